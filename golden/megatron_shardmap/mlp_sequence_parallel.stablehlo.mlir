module @shardc_mlp_sequence_parallel attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["X"=2, "Y"=4]>
  func.func public @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg1: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"Y"}]>}, %arg2: tensor<32x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"Y"}, {}]>}) -> (tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"Y"}, {}]>}) {
    %0 = sdy.manual_computation(%arg0, %arg1, %arg2) in_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}, {"Y"}]>, <@mesh, [{"Y"}, {}]>] out_shardings=[<@mesh, [{"Y"}, {}]>] manual_axes={"X", "Y"} (%m1: tensor<8x16xf32>, %m2: tensor<16x8xf32>, %m3: tensor<8x16xf32>) {
      %4 = stablehlo.dot_general %m1, %m2, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
      %5 = stablehlo.constant dense<0.0> : tensor<f32>
      %6 = stablehlo.broadcast_in_dim %5, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
      %7 = stablehlo.maximum %4, %6 : tensor<8x8xf32>
      %8 = stablehlo.dot_general %7, %m3, contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
      %9 = "stablehlo.reduce_scatter"(%8) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>, scatter_dimension = 0 : i64, use_global_device_ids}> ({
        ^bb0(%r0: tensor<f32>, %r1: tensor<f32>):
          %r2 = stablehlo.add %r0, %r1 : tensor<f32>
          stablehlo.return %r2 : tensor<f32>
        }) : (tensor<8x16xf32>) -> tensor<2x16xf32>
      sdy.return %9 : tensor<2x16xf32>
    } : (tensor<8x16xf32>, tensor<16x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
    return %0 : tensor<8x16xf32>
  }
}
