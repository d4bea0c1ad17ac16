module @shardc_attention_scores attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "seq"=2, "model"=2]>
  func.func public @main(%arg0: tensor<4x8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"seq"}, {}]>}, %arg1: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg2: tensor<16x4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}, {}]>}, %arg3: tensor<16x4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}, {}]>}) -> (tensor<4x4x8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}, {"seq"}, {}]>}) {
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
    %47 = stablehlo.dot_general %46, %arg2, contracting_dims = [2] x [0] : (tensor<4x8x16xf32>, tensor<16x4x8xf32>) -> tensor<4x8x4x8xf32>
    %48 = sdy.sharding_constraint %47 <@mesh, [{"data"}, {"seq"}, {"model"}, {}]> : tensor<4x8x4x8xf32>
    %49 = stablehlo.dot_general %46, %arg3, contracting_dims = [2] x [0] : (tensor<4x8x16xf32>, tensor<16x4x8xf32>) -> tensor<4x8x4x8xf32>
    %50 = sdy.sharding_constraint %49 <@mesh, [{"data"}, {"seq"}, {"model"}, {}]> : tensor<4x8x4x8xf32>
    %51 = sdy.sharding_constraint %50 <@mesh, [{"data"}, {}, {"model"}, {}]> : tensor<4x8x4x8xf32>
    %52 = stablehlo.dot_general %48, %51, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3] : (tensor<4x8x4x8xf32>, tensor<4x8x4x8xf32>) -> tensor<4x4x8x8xf32>
    %53 = sdy.sharding_constraint %52 <@mesh, [{"data"}, {"model"}, {"seq"}, {}]> : tensor<4x4x8x8xf32>
    %54 = stablehlo.constant dense<2.8284270763397217> : tensor<f32>
    %55 = stablehlo.broadcast_in_dim %54, dims = [] : (tensor<f32>) -> tensor<4x4x8x8xf32>
    %56 = sdy.sharding_constraint %55 <@mesh, [{"data"}, {"model"}, {"seq"}, {}]> : tensor<4x4x8x8xf32>
    %57 = stablehlo.divide %53, %56 : tensor<4x4x8x8xf32>
    %58 = sdy.sharding_constraint %57 <@mesh, [{"data"}, {"model"}, {"seq"}, {}]> : tensor<4x4x8x8xf32>
    %59 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %60 = stablehlo.reduce(%58 init: %59) applies stablehlo.maximum across dimensions = [3] : (tensor<4x4x8x8xf32>, tensor<f32>) -> tensor<4x4x8xf32>
    %61 = sdy.sharding_constraint %60 <@mesh, [{"data"}, {"model"}, {"seq"}]> : tensor<4x4x8xf32>
    %62 = stablehlo.broadcast_in_dim %61, dims = [0, 1, 2] : (tensor<4x4x8xf32>) -> tensor<4x4x8x1xf32>
    %63 = sdy.sharding_constraint %62 <@mesh, [{"data"}, {"model"}, {"seq"}, {}]> : tensor<4x4x8x1xf32>
    %64 = stablehlo.broadcast_in_dim %63, dims = [0, 1, 2, 3] : (tensor<4x4x8x1xf32>) -> tensor<4x4x8x8xf32>
    %65 = sdy.sharding_constraint %64 <@mesh, [{"data"}, {"model"}, {"seq"}, {}]> : tensor<4x4x8x8xf32>
    %66 = stablehlo.subtract %58, %65 : tensor<4x4x8x8xf32>
    %67 = sdy.sharding_constraint %66 <@mesh, [{"data"}, {"model"}, {"seq"}, {}]> : tensor<4x4x8x8xf32>
    %68 = stablehlo.exponential %67 : tensor<4x4x8x8xf32>
    %69 = sdy.sharding_constraint %68 <@mesh, [{"data"}, {"model"}, {"seq"}, {}]> : tensor<4x4x8x8xf32>
    %70 = stablehlo.constant dense<0.0> : tensor<f32>
    %71 = stablehlo.reduce(%69 init: %70) applies stablehlo.add across dimensions = [3] : (tensor<4x4x8x8xf32>, tensor<f32>) -> tensor<4x4x8xf32>
    %72 = sdy.sharding_constraint %71 <@mesh, [{"data"}, {"model"}, {"seq"}]> : tensor<4x4x8xf32>
    %73 = stablehlo.broadcast_in_dim %72, dims = [0, 1, 2] : (tensor<4x4x8xf32>) -> tensor<4x4x8x1xf32>
    %74 = sdy.sharding_constraint %73 <@mesh, [{"data"}, {"model"}, {"seq"}, {}]> : tensor<4x4x8x1xf32>
    %75 = stablehlo.broadcast_in_dim %74, dims = [0, 1, 2, 3] : (tensor<4x4x8x1xf32>) -> tensor<4x4x8x8xf32>
    %76 = sdy.sharding_constraint %75 <@mesh, [{"data"}, {"model"}, {"seq"}, {}]> : tensor<4x4x8x8xf32>
    %77 = stablehlo.divide %69, %76 : tensor<4x4x8x8xf32>
    %78 = sdy.sharding_constraint %77 <@mesh, [{"data"}, {"model"}, {"seq"}, {}]> : tensor<4x4x8x8xf32>
    return %78 : tensor<4x4x8x8xf32>
  }
}
