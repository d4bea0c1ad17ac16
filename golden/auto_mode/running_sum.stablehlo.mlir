module @shardc_running_sum attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["X"=2, "Y"=4]>
  func.func public @main(%arg0: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"X"}, {}]>}) -> (tensor<16x8xf32>) {
    %0 = stablehlo.sine %arg0 : tensor<16x8xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{"X", ?}, {?}]> : tensor<16x8xf32>
    %2 = stablehlo.constant dense<0.0> : tensor<f32>
    %3 = "stablehlo.reduce_window"(%1, %2) <{base_dilations = array<i64: 1, 1>, padding = dense<[[15, 0], [0, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 16, 1>, window_strides = array<i64: 1, 1>}> ({
      ^bb0(%w0: tensor<f32>, %w1: tensor<f32>):
        %w2 = stablehlo.add %w0, %w1 : tensor<f32>
        stablehlo.return %w2 : tensor<f32>
      }) : (tensor<16x8xf32>, tensor<f32>) -> tensor<16x8xf32>
    %4 = sdy.sharding_constraint %3 <@mesh, [{"X", ?}, {?}]> : tensor<16x8xf32>
    %5 = stablehlo.constant dense<2.0> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
    %7 = sdy.sharding_constraint %6 <@mesh, [{"X", ?}, {?}]> : tensor<16x8xf32>
    %8 = stablehlo.multiply %4, %7 : tensor<16x8xf32>
    %9 = sdy.sharding_constraint %8 <@mesh, [{"X", ?}, {?}]> : tensor<16x8xf32>
    return %9 : tensor<16x8xf32>
  }
}
