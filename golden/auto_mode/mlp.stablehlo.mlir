module @shardc_mlp attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["X"=2, "Y"=4]>
  func.func public @main(%arg0: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"X"}, {}]>}, %arg1: tensor<32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg2: tensor<64x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) -> (tensor<16x32xf32>) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<16x32xf32>, tensor<32x64xf32>) -> tensor<16x64xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{"X", ?}, {?}]> : tensor<16x64xf32>
    %2 = stablehlo.constant dense<0.0> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %4 = sdy.sharding_constraint %3 <@mesh, [{"X", ?}, {?}]> : tensor<16x64xf32>
    %5 = stablehlo.maximum %1, %4 : tensor<16x64xf32>
    %6 = sdy.sharding_constraint %5 <@mesh, [{"X", ?}, {?}]> : tensor<16x64xf32>
    %7 = sdy.sharding_constraint %6 <@mesh, [{"X"}, {"Y"}]> : tensor<16x64xf32>
    %8 = stablehlo.dot_general %7, %arg2, contracting_dims = [1] x [0] : (tensor<16x64xf32>, tensor<64x32xf32>) -> tensor<16x32xf32>
    %9 = sdy.sharding_constraint %8 <@mesh, [{"X", ?}, {?}]> : tensor<16x32xf32>
    return %9 : tensor<16x32xf32>
  }
}
