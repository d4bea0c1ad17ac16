module @shardc_norm_only attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "seq"=2, "model"=2]>
  func.func public @main(%arg0: tensor<4x8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"seq"}, {}]>}, %arg1: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}) -> (tensor<4x8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"seq"}, {}]>}) {
    %0 = stablehlo.constant dense<0.0> : tensor<f32>
    %1 = stablehlo.reduce(%arg0 init: %0) applies stablehlo.add across dimensions = [2] : (tensor<4x8x16xf32>, tensor<f32>) -> tensor<4x8xf32>
    %2 = sdy.sharding_constraint %1 <@mesh, [{"data"}, {"seq"}]> : tensor<4x8xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0, 1] : (tensor<4x8xf32>) -> tensor<4x8x1xf32>
    %4 = sdy.sharding_constraint %3 <@mesh, [{"data"}, {"seq"}, {}]> : tensor<4x8x1xf32>
    %5 = stablehlo.constant dense<16.0> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [] : (tensor<f32>) -> tensor<4x8x1xf32>
    %7 = sdy.sharding_constraint %6 <@mesh, [{"data"}, {"seq"}, {}]> : tensor<4x8x1xf32>
    %8 = stablehlo.divide %4, %7 : tensor<4x8x1xf32>
    %9 = sdy.sharding_constraint %8 <@mesh, [{"data"}, {"seq"}, {}]> : tensor<4x8x1xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1, 2] : (tensor<4x8x1xf32>) -> tensor<4x8x16xf32>
    %11 = sdy.sharding_constraint %10 <@mesh, [{"data"}, {"seq"}, {}]> : tensor<4x8x16xf32>
    %12 = stablehlo.subtract %arg0, %11 : tensor<4x8x16xf32>
    %13 = sdy.sharding_constraint %12 <@mesh, [{"data"}, {"seq"}, {}]> : tensor<4x8x16xf32>
    %14 = stablehlo.multiply %13, %13 : tensor<4x8x16xf32>
    %15 = sdy.sharding_constraint %14 <@mesh, [{"data"}, {"seq"}, {}]> : tensor<4x8x16xf32>
    %16 = stablehlo.constant dense<0.0> : tensor<f32>
    %17 = stablehlo.reduce(%15 init: %16) applies stablehlo.add across dimensions = [2] : (tensor<4x8x16xf32>, tensor<f32>) -> tensor<4x8xf32>
    %18 = sdy.sharding_constraint %17 <@mesh, [{"data"}, {"seq"}]> : tensor<4x8xf32>
    %19 = stablehlo.broadcast_in_dim %18, dims = [0, 1] : (tensor<4x8xf32>) -> tensor<4x8x1xf32>
    %20 = sdy.sharding_constraint %19 <@mesh, [{"data"}, {"seq"}, {}]> : tensor<4x8x1xf32>
    %21 = stablehlo.constant dense<16.0> : tensor<f32>
    %22 = stablehlo.broadcast_in_dim %21, dims = [] : (tensor<f32>) -> tensor<4x8x1xf32>
    %23 = sdy.sharding_constraint %22 <@mesh, [{"data"}, {"seq"}, {}]> : tensor<4x8x1xf32>
    %24 = stablehlo.divide %20, %23 : tensor<4x8x1xf32>
    %25 = sdy.sharding_constraint %24 <@mesh, [{"data"}, {"seq"}, {}]> : tensor<4x8x1xf32>
    %26 = stablehlo.broadcast_in_dim %9, dims = [0, 1, 2] : (tensor<4x8x1xf32>) -> tensor<4x8x16xf32>
    %27 = sdy.sharding_constraint %26 <@mesh, [{"data"}, {"seq"}, {}]> : tensor<4x8x16xf32>
    %28 = stablehlo.subtract %arg0, %27 : tensor<4x8x16xf32>
    %29 = sdy.sharding_constraint %28 <@mesh, [{"data"}, {"seq"}, {}]> : tensor<4x8x16xf32>
    %30 = stablehlo.constant dense<9.999999747378752e-06> : tensor<f32>
    %31 = stablehlo.broadcast_in_dim %30, dims = [] : (tensor<f32>) -> tensor<4x8x1xf32>
    %32 = sdy.sharding_constraint %31 <@mesh, [{"data"}, {"seq"}, {}]> : tensor<4x8x1xf32>
    %33 = stablehlo.add %25, %32 : tensor<4x8x1xf32>
    %34 = sdy.sharding_constraint %33 <@mesh, [{"data"}, {"seq"}, {}]> : tensor<4x8x1xf32>
    %35 = stablehlo.rsqrt %34 : tensor<4x8x1xf32>
    %36 = sdy.sharding_constraint %35 <@mesh, [{"data"}, {"seq"}, {}]> : tensor<4x8x1xf32>
    %37 = stablehlo.broadcast_in_dim %36, dims = [0, 1, 2] : (tensor<4x8x1xf32>) -> tensor<4x8x16xf32>
    %38 = sdy.sharding_constraint %37 <@mesh, [{"data"}, {"seq"}, {}]> : tensor<4x8x16xf32>
    %39 = stablehlo.multiply %29, %38 : tensor<4x8x16xf32>
    %40 = sdy.sharding_constraint %39 <@mesh, [{"data"}, {"seq"}, {}]> : tensor<4x8x16xf32>
    %41 = stablehlo.broadcast_in_dim %arg1, dims = [2] : (tensor<16xf32>) -> tensor<1x1x16xf32>
    %42 = sdy.sharding_constraint %41 <@mesh, [{}, {}, {}]> : tensor<1x1x16xf32>
    %43 = stablehlo.broadcast_in_dim %42, dims = [0, 1, 2] : (tensor<1x1x16xf32>) -> tensor<4x8x16xf32>
    %44 = sdy.sharding_constraint %43 <@mesh, [{"data"}, {"seq"}, {}]> : tensor<4x8x16xf32>
    %45 = stablehlo.multiply %40, %44 : tensor<4x8x16xf32>
    %46 = sdy.sharding_constraint %45 <@mesh, [{"data"}, {"seq"}, {}]> : tensor<4x8x16xf32>
    return %46 : tensor<4x8x16xf32>
  }
}
