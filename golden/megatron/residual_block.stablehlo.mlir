module @shardc_residual_block attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func public @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}, %arg1: tensor<16x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, %arg2: tensor<64x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}) -> (tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x64xf32>) -> tensor<8x64xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %2 = stablehlo.constant dense<0.0> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
    %4 = sdy.sharding_constraint %3 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %5 = stablehlo.maximum %1, %4 : tensor<8x64xf32>
    %6 = sdy.sharding_constraint %5 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %7 = stablehlo.dot_general %6, %arg2, contracting_dims = [1] x [0] : (tensor<8x64xf32>, tensor<64x16xf32>) -> tensor<8x16xf32>
    %8 = sdy.sharding_constraint %7 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
    %9 = stablehlo.add %arg0, %8 : tensor<8x16xf32>
    %10 = sdy.sharding_constraint %9 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
    return %10 : tensor<8x16xf32>
  }
}
