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
    %36 = stablehlo.negate %35 : tensor<64x16xf32>
    %37 = sdy.sharding_constraint %36 <@mesh, [{"X"}, {}]> : tensor<64x16xf32>
    %38 = stablehlo.constant dense<0.0> : tensor<f32>
    %39 = stablehlo.broadcast_in_dim %38, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
    %40 = sdy.sharding_constraint %39 <@mesh, [{"X"}, {}, {}]> : tensor<8x8x16xf32>
    %41 = stablehlo.broadcast_in_dim %38, dims = [] : (tensor<f32>) -> tensor<8x16x16xf32>
    %42 = sdy.sharding_constraint %41 <@mesh, [{"X"}, {}, {}]> : tensor<8x16x16xf32>
    %43 = stablehlo.broadcast_in_dim %38, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
    %44 = sdy.sharding_constraint %43 <@mesh, [{"X"}, {}, {}]> : tensor<8x8x16xf32>
    %45 = stablehlo.broadcast_in_dim %38, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
    %46 = sdy.sharding_constraint %45 <@mesh, [{"X"}, {}, {}]> : tensor<8x8x16xf32>
    %47 = stablehlo.broadcast_in_dim %38, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
    %48 = sdy.sharding_constraint %47 <@mesh, [{"X"}, {}, {}]> : tensor<8x8x16xf32>
    %49:2 = sdy.manual_computation(%arg0, %arg1, %35, %0#1, %0#2, %0#3, %0#4, %0#5) in_shardings=[<@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>] out_shardings=[<@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}, {}]>] manual_axes={"X"} (%m50: tensor<8x16xf32>, %m51: tensor<1x16x16xf32>, %m52: tensor<8x16xf32>, %m53: tensor<1x8x16xf32>, %m54: tensor<1x16x16xf32>, %m55: tensor<1x8x16xf32>, %m56: tensor<1x8x16xf32>, %m57: tensor<1x8x16xf32>) {
      %58 = stablehlo.reshape %m53 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
      %59 = stablehlo.reshape %m54 : (tensor<1x16x16xf32>) -> tensor<16x16xf32>
      %60 = stablehlo.reshape %m55 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
      %61 = stablehlo.reshape %m56 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
      %62 = stablehlo.reshape %m57 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
      %63 = "stablehlo.all_to_all"(%m52) <{channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>, concat_dimension = 0 : i64, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, split_count = 8 : i64, split_dimension = 0 : i64}> : (tensor<8x16xf32>) -> tensor<8x16xf32>
      %64 = stablehlo.multiply %61, %61 : tensor<8x16xf32>
      %65 = stablehlo.constant dense<1.0> : tensor<f32>
      %66 = stablehlo.broadcast_in_dim %65, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
      %67 = stablehlo.subtract %66, %64 : tensor<8x16xf32>
      %68 = stablehlo.multiply %63, %67 : tensor<8x16xf32>
      %69 = stablehlo.dot_general %68, %59, contracting_dims = [1] x [1] : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
      %70 = stablehlo.dot_general %68, %58, contracting_dims = [0] x [0] : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<16x16xf32>
      %71 = stablehlo.transpose %70, dims = [1, 0] : (tensor<16x16xf32>) -> tensor<16x16xf32>
      %72 = stablehlo.broadcast_in_dim %71, dims = [1, 2] : (tensor<16x16xf32>) -> tensor<1x16x16xf32>
      %73 = "stablehlo.all_to_all"(%69) <{channel_handle = #stablehlo.channel_handle<handle = 4, type = 1>, concat_dimension = 0 : i64, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, split_count = 8 : i64, split_dimension = 0 : i64}> : (tensor<8x16xf32>) -> tensor<8x16xf32>
      sdy.return %73, %72 : tensor<8x16xf32>, tensor<1x16x16xf32>
    } : (tensor<64x16xf32>, tensor<8x16x16xf32>, tensor<64x16xf32>, tensor<8x8x16xf32>, tensor<8x16x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>) -> (tensor<64x16xf32>, tensor<8x16x16xf32>)
    %74 = stablehlo.constant dense<0.5> : tensor<f32>
    %75 = stablehlo.broadcast_in_dim %74, dims = [] : (tensor<f32>) -> tensor<8x16x16xf32>
    %76 = sdy.sharding_constraint %75 <@mesh, [{"X"}, {}, {}]> : tensor<8x16x16xf32>
    %77 = stablehlo.multiply %76, %49#1 : tensor<8x16x16xf32>
    %78 = sdy.sharding_constraint %77 <@mesh, [{"X"}, {}, {}]> : tensor<8x16x16xf32>
    %79 = stablehlo.subtract %arg1, %78 : tensor<8x16x16xf32>
    %80 = sdy.sharding_constraint %79 <@mesh, [{"X"}, {}, {}]> : tensor<8x16x16xf32>
    return %80, %22 : tensor<8x16x16xf32>, tensor<f32>
  }
}
