module @shardc_loss attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["fsdp"=8]>
  func.func public @main(%arg0: tensor<4x64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"fsdp"}, {}]>}, %arg1: tensor<64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg2: tensor<32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"fsdp"}, {}]>}, %arg3: tensor<32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"fsdp"}, {}]>}) -> (tensor<f32> {sdy.sharding = #sdy.sharding<@mesh, []>}) {
    %0 = stablehlo.constant dense<0> : tensor<i32>
    %1:4 = "stablehlo.while"(%0, %arg2, %arg1, %arg0) ({
    ^bb0(%w2: tensor<i32>, %w3: tensor<32x64xf32>, %w4: tensor<64xf32>, %w5: tensor<4x64x64xf32>):
      %6 = stablehlo.constant dense<4> : tensor<i32>
      %7 = stablehlo.compare LT, %w2, %6 : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %7 : tensor<i1>
    }, {
    ^bb0(%w8: tensor<i32>, %w9: tensor<32x64xf32>, %w10: tensor<64xf32>, %w11: tensor<4x64x64xf32>):
      %12 = sdy.sharding_constraint %w9 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
      %13 = sdy.sharding_constraint %w10 <@mesh, [{}]> : tensor<64xf32>
      %14 = stablehlo.constant dense<0> : tensor<i32>
      %15 = stablehlo.constant dense<1> : tensor<i32>
      %16 = stablehlo.dynamic_slice %w11, %w8, %14, %14, sizes = [1, 64, 64] : (tensor<4x64x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x64xf32>
      %17 = stablehlo.reshape %16 : (tensor<1x64x64xf32>) -> tensor<64x64xf32>
      %18 = sdy.sharding_constraint %17 <@mesh, [{"fsdp"}, {}]> : tensor<64x64xf32>
      %19 = sdy.sharding_constraint %18 <@mesh, [{}, {}]> : tensor<64x64xf32>
      %20 = stablehlo.dot_general %12, %19, contracting_dims = [1] x [0] : (tensor<32x64xf32>, tensor<64x64xf32>) -> tensor<32x64xf32>
      %21 = sdy.sharding_constraint %20 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
      %22 = stablehlo.tanh %21 : tensor<32x64xf32>
      %23 = sdy.sharding_constraint %22 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
      %24 = stablehlo.broadcast_in_dim %13, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
      %25 = sdy.sharding_constraint %24 <@mesh, [{}, {}]> : tensor<1x64xf32>
      %26 = stablehlo.broadcast_in_dim %25, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<32x64xf32>
      %27 = sdy.sharding_constraint %26 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
      %28 = stablehlo.multiply %23, %27 : tensor<32x64xf32>
      %29 = sdy.sharding_constraint %28 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
      %30 = stablehlo.add %w8, %15 : tensor<i32>
      stablehlo.return %30, %29, %13, %w11 : tensor<i32>, tensor<32x64xf32>, tensor<64xf32>, tensor<4x64x64xf32>
    }) : (tensor<i32>, tensor<32x64xf32>, tensor<64xf32>, tensor<4x64x64xf32>) -> (tensor<i32>, tensor<32x64xf32>, tensor<64xf32>, tensor<4x64x64xf32>)
    %31 = sdy.sharding_constraint %1#1 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
    %32 = sdy.sharding_constraint %1#2 <@mesh, [{}]> : tensor<64xf32>
    %33 = stablehlo.subtract %31, %arg3 : tensor<32x64xf32>
    %34 = sdy.sharding_constraint %33 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
    %35 = stablehlo.multiply %34, %34 : tensor<32x64xf32>
    %36 = sdy.sharding_constraint %35 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
    %37 = stablehlo.constant dense<0.0> : tensor<f32>
    %38 = stablehlo.reduce(%36 init: %37) applies stablehlo.add across dimensions = [0, 1] : (tensor<32x64xf32>, tensor<f32>) -> tensor<f32>
    %39 = sdy.sharding_constraint %38 <@mesh, []> : tensor<f32>
    %40 = stablehlo.constant dense<2048.0> : tensor<f32>
    %41 = stablehlo.divide %39, %40 : tensor<f32>
    %42 = sdy.sharding_constraint %41 <@mesh, []> : tensor<f32>
    return %42 : tensor<f32>
  }
}
