module @shardc_mlp attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func public @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}, %arg1: tensor<16x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, %arg2: tensor<64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}]>}, %arg3: tensor<64x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}) -> (tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x64xf32>) -> tensor<8x64xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %2 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{}, {"model"}]> : tensor<1x64xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<8x64xf32>
    %5 = sdy.sharding_constraint %4 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %6 = stablehlo.add %1, %5 : tensor<8x64xf32>
    %7 = sdy.sharding_constraint %6 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %8 = stablehlo.multiply %7, %7 : tensor<8x64xf32>
    %9 = stablehlo.multiply %7, %8 : tensor<8x64xf32>
    %10 = sdy.sharding_constraint %9 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %11 = stablehlo.constant dense<0.044714998453855515> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
    %13 = sdy.sharding_constraint %12 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %14 = stablehlo.multiply %13, %10 : tensor<8x64xf32>
    %15 = sdy.sharding_constraint %14 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %16 = stablehlo.add %7, %15 : tensor<8x64xf32>
    %17 = sdy.sharding_constraint %16 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %18 = stablehlo.constant dense<0.7978845834732056> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %18, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
    %20 = sdy.sharding_constraint %19 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %21 = stablehlo.multiply %20, %17 : tensor<8x64xf32>
    %22 = sdy.sharding_constraint %21 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %23 = stablehlo.tanh %22 : tensor<8x64xf32>
    %24 = sdy.sharding_constraint %23 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %25 = stablehlo.constant dense<1.0> : tensor<f32>
    %26 = stablehlo.broadcast_in_dim %25, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
    %27 = sdy.sharding_constraint %26 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %28 = stablehlo.add %27, %24 : tensor<8x64xf32>
    %29 = sdy.sharding_constraint %28 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %30 = stablehlo.constant dense<0.5> : tensor<f32>
    %31 = stablehlo.broadcast_in_dim %30, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
    %32 = sdy.sharding_constraint %31 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %33 = stablehlo.multiply %32, %29 : tensor<8x64xf32>
    %34 = sdy.sharding_constraint %33 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %35 = stablehlo.multiply %7, %34 : tensor<8x64xf32>
    %36 = sdy.sharding_constraint %35 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %37 = stablehlo.dot_general %36, %arg3, contracting_dims = [1] x [0] : (tensor<8x64xf32>, tensor<64x16xf32>) -> tensor<8x16xf32>
    %38 = sdy.sharding_constraint %37 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
    return %38 : tensor<8x16xf32>
  }
}
