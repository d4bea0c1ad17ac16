module @shardc_moe_step attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["X"=8]>
  func.func public @main(%arg0: tensor<64x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"X"}, {}]>}, %arg1: tensor<8x16x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"X"}, {}, {}]>}, %arg2: tensor<64x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"X"}, {}]>}) -> (tensor<8x16x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"X"}, {}, {}]>}, tensor<f32> {sdy.sharding = #sdy.sharding<@mesh, []>}) {
    %0:6 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}, {}]>] out_shardings=[<@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>] manual_axes={"X"} (%m1: tensor<8x16xf32>, %m2: tensor<1x16x16xf32>) {
      %3 = "stablehlo.all_to_all"(%m1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, concat_dimension = 0 : i64, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, split_count = 8 : i64, split_dimension = 0 : i64}> : (tensor<8x16xf32>) -> tensor<8x16xf32>
      %4 = stablehlo.reshape %m2 : (tensor<1x16x16xf32>) -> tensor<16x16xf32>
      %5 = stablehlo.dot_general %3, %4, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
      %6 = stablehlo.tanh %5 : tensor<8x16xf32>
      %7 = "stablehlo.all_to_all"(%6) <{channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, concat_dimension = 0 : i64, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, split_count = 8 : i64, split_dimension = 0 : i64}> : (tensor<8x16xf32>) -> tensor<8x16xf32>
      %8 = stablehlo.broadcast_in_dim %3, dims = [1, 2] : (tensor<8x16xf32>) -> tensor<1x8x16xf32>
      %9 = stablehlo.broadcast_in_dim %4, dims = [1, 2] : (tensor<16x16xf32>) -> tensor<1x16x16xf32>
      %10 = stablehlo.broadcast_in_dim %5, dims = [1, 2] : (tensor<8x16xf32>) -> tensor<1x8x16xf32>
      %11 = stablehlo.broadcast_in_dim %6, dims = [1, 2] : (tensor<8x16xf32>) -> tensor<1x8x16xf32>
      %12 = stablehlo.broadcast_in_dim %7, dims = [1, 2] : (tensor<8x16xf32>) -> tensor<1x8x16xf32>
      sdy.return %7, %8, %9, %10, %11, %12 : tensor<8x16xf32>, tensor<1x8x16xf32>, tensor<1x16x16xf32>, tensor<1x8x16xf32>, tensor<1x8x16xf32>, tensor<1x8x16xf32>
    } : (tensor<64x16xf32>, tensor<8x16x16xf32>) -> (tensor<64x16xf32>, tensor<8x8x16xf32>, tensor<8x16x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>)
    %13 = stablehlo.subtract %0#0, %arg2 : tensor<64x16xf32>
    %14 = sdy.sharding_constraint %13 <@mesh, [{"X"}, {}]> : tensor<64x16xf32>
    %15 = stablehlo.multiply %14, %14 : tensor<64x16xf32>
    %16 = sdy.sharding_constraint %15 <@mesh, [{"X"}, {}]> : tensor<64x16xf32>
    %17 = stablehlo.constant dense<0.0> : tensor<f32>
    %18 = stablehlo.reduce(%16 init: %17) applies stablehlo.add across dimensions = [0, 1] : (tensor<64x16xf32>, tensor<f32>) -> tensor<f32>
    %19 = sdy.sharding_constraint %18 <@mesh, []> : tensor<f32>
    %20 = stablehlo.constant dense<1024.0> : tensor<f32>
    %21 = stablehlo.divide %19, %20 : tensor<f32>
    %22 = sdy.sharding_constraint %21 <@mesh, []> : tensor<f32>
    %23 = stablehlo.constant dense<1.0> : tensor<f32>
    %24 = sdy.sharding_constraint %23 <@mesh, []> : tensor<f32>
    %25 = stablehlo.divide %24, %20 : tensor<f32>
    %26 = sdy.sharding_constraint %25 <@mesh, []> : tensor<f32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [] : (tensor<f32>) -> tensor<64x16xf32>
    %28 = sdy.sharding_constraint %27 <@mesh, [{"X"}, {}]> : tensor<64x16xf32>
    %29 = stablehlo.constant dense<2.0> : tensor<f32>
    %30 = stablehlo.broadcast_in_dim %29, dims = [] : (tensor<f32>) -> tensor<64x16xf32>
    %31 = sdy.sharding_constraint %30 <@mesh, [{"X"}, {}]> : tensor<64x16xf32>
    %32 = stablehlo.multiply %14, %31 : tensor<64x16xf32>
    %33 = sdy.sharding_constraint %32 <@mesh, [{"X"}, {}]> : tensor<64x16xf32>
    %34 = stablehlo.multiply %28, %33 : tensor<64x16xf32>
    %35 = sdy.sharding_constraint %34 <@mesh, [{"X"}, {}]> : tensor<64x16xf32>
    %36:2 = sdy.manual_computation(%arg0, %arg1, %35, %0#1, %0#2, %0#3, %0#4, %0#5) in_shardings=[<@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>] out_shardings=[<@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}, {}]>] manual_axes={"X"} (%m37: tensor<8x16xf32>, %m38: tensor<1x16x16xf32>, %m39: tensor<8x16xf32>, %m40: tensor<1x8x16xf32>, %m41: tensor<1x16x16xf32>, %m42: tensor<1x8x16xf32>, %m43: tensor<1x8x16xf32>, %m44: tensor<1x8x16xf32>) {
      %45 = stablehlo.reshape %m40 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
      %46 = stablehlo.reshape %m41 : (tensor<1x16x16xf32>) -> tensor<16x16xf32>
      %47 = stablehlo.reshape %m43 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
      %48 = "stablehlo.all_to_all"(%m39) <{channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>, concat_dimension = 0 : i64, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, split_count = 8 : i64, split_dimension = 0 : i64}> : (tensor<8x16xf32>) -> tensor<8x16xf32>
      %49 = stablehlo.multiply %47, %47 : tensor<8x16xf32>
      %50 = stablehlo.constant dense<1.0> : tensor<f32>
      %51 = stablehlo.broadcast_in_dim %50, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
      %52 = stablehlo.subtract %51, %49 : tensor<8x16xf32>
      %53 = stablehlo.multiply %48, %52 : tensor<8x16xf32>
      %54 = stablehlo.dot_general %53, %46, contracting_dims = [1] x [1] : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
      %55 = stablehlo.dot_general %53, %45, contracting_dims = [0] x [0] : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<16x16xf32>
      %56 = stablehlo.transpose %55, dims = [1, 0] : (tensor<16x16xf32>) -> tensor<16x16xf32>
      %57 = stablehlo.broadcast_in_dim %56, dims = [1, 2] : (tensor<16x16xf32>) -> tensor<1x16x16xf32>
      %58 = "stablehlo.all_to_all"(%54) <{channel_handle = #stablehlo.channel_handle<handle = 4, type = 1>, concat_dimension = 0 : i64, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, split_count = 8 : i64, split_dimension = 0 : i64}> : (tensor<8x16xf32>) -> tensor<8x16xf32>
      sdy.return %58, %57 : tensor<8x16xf32>, tensor<1x16x16xf32>
    } : (tensor<64x16xf32>, tensor<8x16x16xf32>, tensor<64x16xf32>, tensor<8x8x16xf32>, tensor<8x16x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>) -> (tensor<64x16xf32>, tensor<8x16x16xf32>)
    %59 = stablehlo.constant dense<0.5> : tensor<f32>
    %60 = stablehlo.broadcast_in_dim %59, dims = [] : (tensor<f32>) -> tensor<8x16x16xf32>
    %61 = sdy.sharding_constraint %60 <@mesh, [{"X"}, {}, {}]> : tensor<8x16x16xf32>
    %62 = stablehlo.multiply %61, %36#1 : tensor<8x16x16xf32>
    %63 = sdy.sharding_constraint %62 <@mesh, [{"X"}, {}, {}]> : tensor<8x16x16xf32>
    %64 = stablehlo.subtract %arg1, %63 : tensor<8x16x16xf32>
    %65 = sdy.sharding_constraint %64 <@mesh, [{"X"}, {}, {}]> : tensor<8x16x16xf32>
    return %65, %22 : tensor<8x16x16xf32>, tensor<f32>
  }
}
