module @shardc_loss attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["fsdp"=8]>
  func.func public @main(%arg0: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"fsdp"}, {}]>}, %arg1: tensor<32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"fsdp"}, {}]>}, %arg2: tensor<64x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"fsdp"}, {}]>}) -> (tensor<f32> {sdy.sharding = #sdy.sharding<@mesh, []>}) {
    %0 = sdy.sharding_constraint %arg1 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %1 = stablehlo.dot_general %arg0, %0, contracting_dims = [1] x [0] : (tensor<16x32xf32>, tensor<32x64xf32>) -> tensor<16x64xf32>
    %2 = sdy.sharding_constraint %1 <@mesh, [{"fsdp"}, {}]> : tensor<16x64xf32>
    %3 = stablehlo.constant dense<0.0> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %5 = sdy.sharding_constraint %4 <@mesh, [{"fsdp"}, {}]> : tensor<16x64xf32>
    %6 = stablehlo.maximum %2, %5 : tensor<16x64xf32>
    %7 = sdy.sharding_constraint %6 <@mesh, [{"fsdp"}, {}]> : tensor<16x64xf32>
    %8 = sdy.sharding_constraint %arg2 <@mesh, [{}, {}]> : tensor<64x32xf32>
    %9 = stablehlo.dot_general %7, %8, contracting_dims = [1] x [0] : (tensor<16x64xf32>, tensor<64x32xf32>) -> tensor<16x32xf32>
    %10 = sdy.sharding_constraint %9 <@mesh, [{"fsdp"}, {}]> : tensor<16x32xf32>
    %11 = stablehlo.add %arg0, %10 : tensor<16x32xf32>
    %12 = sdy.sharding_constraint %11 <@mesh, [{"fsdp"}, {}]> : tensor<16x32xf32>
    %13 = stablehlo.multiply %12, %12 : tensor<16x32xf32>
    %14 = sdy.sharding_constraint %13 <@mesh, [{"fsdp"}, {}]> : tensor<16x32xf32>
    %15 = stablehlo.constant dense<0.0> : tensor<f32>
    %16 = stablehlo.reduce(%14 init: %15) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x32xf32>, tensor<f32>) -> tensor<f32>
    %17 = sdy.sharding_constraint %16 <@mesh, []> : tensor<f32>
    %18 = stablehlo.constant dense<512.0> : tensor<f32>
    %19 = stablehlo.divide %17, %18 : tensor<f32>
    %20 = sdy.sharding_constraint %19 <@mesh, []> : tensor<f32>
    return %20 : tensor<f32>
  }
}
