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
    %21 = stablehlo.divide %20, %7 : tensor<4x8x1xf32>
    %22 = sdy.sharding_constraint %21 <@mesh, [{"data"}, {"seq"}, {}]> : tensor<4x8x1xf32>
    %23 = stablehlo.broadcast_in_dim %9, dims = [0, 1, 2] : (tensor<4x8x1xf32>) -> tensor<4x8x16xf32>
    %24 = sdy.sharding_constraint %23 <@mesh, [{"data"}, {"seq"}, {}]> : tensor<4x8x16xf32>
    %25 = stablehlo.subtract %arg0, %24 : tensor<4x8x16xf32>
    %26 = sdy.sharding_constraint %25 <@mesh, [{"data"}, {"seq"}, {}]> : tensor<4x8x16xf32>
    %27 = stablehlo.constant dense<9.999999747378752e-06> : tensor<f32>
    %28 = stablehlo.broadcast_in_dim %27, dims = [] : (tensor<f32>) -> tensor<4x8x1xf32>
    %29 = sdy.sharding_constraint %28 <@mesh, [{"data"}, {"seq"}, {}]> : tensor<4x8x1xf32>
    %30 = stablehlo.add %22, %29 : tensor<4x8x1xf32>
    %31 = sdy.sharding_constraint %30 <@mesh, [{"data"}, {"seq"}, {}]> : tensor<4x8x1xf32>
    %32 = stablehlo.rsqrt %31 : tensor<4x8x1xf32>
    %33 = sdy.sharding_constraint %32 <@mesh, [{"data"}, {"seq"}, {}]> : tensor<4x8x1xf32>
    %34 = stablehlo.broadcast_in_dim %33, dims = [0, 1, 2] : (tensor<4x8x1xf32>) -> tensor<4x8x16xf32>
    %35 = sdy.sharding_constraint %34 <@mesh, [{"data"}, {"seq"}, {}]> : tensor<4x8x16xf32>
    %36 = stablehlo.multiply %26, %35 : tensor<4x8x16xf32>
    %37 = sdy.sharding_constraint %36 <@mesh, [{"data"}, {"seq"}, {}]> : tensor<4x8x16xf32>
    %38 = stablehlo.broadcast_in_dim %arg1, dims = [2] : (tensor<16xf32>) -> tensor<1x1x16xf32>
    %39 = sdy.sharding_constraint %38 <@mesh, [{}, {}, {}]> : tensor<1x1x16xf32>
    %40 = stablehlo.broadcast_in_dim %39, dims = [0, 1, 2] : (tensor<1x1x16xf32>) -> tensor<4x8x16xf32>
    %41 = sdy.sharding_constraint %40 <@mesh, [{"data"}, {"seq"}, {}]> : tensor<4x8x16xf32>
    %42 = stablehlo.multiply %37, %41 : tensor<4x8x16xf32>
    %43 = sdy.sharding_constraint %42 <@mesh, [{"data"}, {"seq"}, {}]> : tensor<4x8x16xf32>
    %44 = stablehlo.dot_general %43, %arg2, contracting_dims = [2] x [0] : (tensor<4x8x16xf32>, tensor<16x4x8xf32>) -> tensor<4x8x4x8xf32>
    %45 = sdy.sharding_constraint %44 <@mesh, [{"data"}, {"seq"}, {"model"}, {}]> : tensor<4x8x4x8xf32>
    %46 = stablehlo.dot_general %43, %arg3, contracting_dims = [2] x [0] : (tensor<4x8x16xf32>, tensor<16x4x8xf32>) -> tensor<4x8x4x8xf32>
    %47 = sdy.sharding_constraint %46 <@mesh, [{"data"}, {"seq"}, {"model"}, {}]> : tensor<4x8x4x8xf32>
    %48 = sdy.sharding_constraint %47 <@mesh, [{"data"}, {}, {"model"}, {}]> : tensor<4x8x4x8xf32>
    %49 = stablehlo.dot_general %45, %48, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3] : (tensor<4x8x4x8xf32>, tensor<4x8x4x8xf32>) -> tensor<4x4x8x8xf32>
    %50 = sdy.sharding_constraint %49 <@mesh, [{"data"}, {"model"}, {"seq"}, {}]> : tensor<4x4x8x8xf32>
    %51 = stablehlo.constant dense<2.8284270763397217> : tensor<f32>
    %52 = stablehlo.broadcast_in_dim %51, dims = [] : (tensor<f32>) -> tensor<4x4x8x8xf32>
    %53 = sdy.sharding_constraint %52 <@mesh, [{"data"}, {"model"}, {"seq"}, {}]> : tensor<4x4x8x8xf32>
    %54 = stablehlo.divide %50, %53 : tensor<4x4x8x8xf32>
    %55 = sdy.sharding_constraint %54 <@mesh, [{"data"}, {"model"}, {"seq"}, {}]> : tensor<4x4x8x8xf32>
    %56 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %57 = stablehlo.reduce(%55 init: %56) applies stablehlo.maximum across dimensions = [3] : (tensor<4x4x8x8xf32>, tensor<f32>) -> tensor<4x4x8xf32>
    %58 = sdy.sharding_constraint %57 <@mesh, [{"data"}, {"model"}, {"seq"}]> : tensor<4x4x8xf32>
    %59 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %60 = stablehlo.broadcast_in_dim %59, dims = [] : (tensor<f32>) -> tensor<4x4x8xf32>
    %61 = sdy.sharding_constraint %60 <@mesh, [{"data"}, {"model"}, {"seq"}]> : tensor<4x4x8xf32>
    %62 = stablehlo.maximum %61, %58 : tensor<4x4x8xf32>
    %63 = sdy.sharding_constraint %62 <@mesh, [{"data"}, {"model"}, {"seq"}]> : tensor<4x4x8xf32>
    %64 = stablehlo.broadcast_in_dim %63, dims = [0, 1, 2] : (tensor<4x4x8xf32>) -> tensor<4x4x8x1xf32>
    %65 = sdy.sharding_constraint %64 <@mesh, [{"data"}, {"model"}, {"seq"}, {}]> : tensor<4x4x8x1xf32>
    %66 = stablehlo.broadcast_in_dim %65, dims = [0, 1, 2, 3] : (tensor<4x4x8x1xf32>) -> tensor<4x4x8x8xf32>
    %67 = sdy.sharding_constraint %66 <@mesh, [{"data"}, {"model"}, {"seq"}, {}]> : tensor<4x4x8x8xf32>
    %68 = stablehlo.subtract %55, %67 : tensor<4x4x8x8xf32>
    %69 = sdy.sharding_constraint %68 <@mesh, [{"data"}, {"model"}, {"seq"}, {}]> : tensor<4x4x8x8xf32>
    %70 = stablehlo.exponential %69 : tensor<4x4x8x8xf32>
    %71 = sdy.sharding_constraint %70 <@mesh, [{"data"}, {"model"}, {"seq"}, {}]> : tensor<4x4x8x8xf32>
    %72 = stablehlo.constant dense<0.0> : tensor<f32>
    %73 = stablehlo.reduce(%71 init: %72) applies stablehlo.add across dimensions = [3] : (tensor<4x4x8x8xf32>, tensor<f32>) -> tensor<4x4x8xf32>
    %74 = sdy.sharding_constraint %73 <@mesh, [{"data"}, {"model"}, {"seq"}]> : tensor<4x4x8xf32>
    %75 = stablehlo.broadcast_in_dim %74, dims = [0, 1, 2] : (tensor<4x4x8xf32>) -> tensor<4x4x8x1xf32>
    %76 = sdy.sharding_constraint %75 <@mesh, [{"data"}, {"model"}, {"seq"}, {}]> : tensor<4x4x8x1xf32>
    %77 = stablehlo.broadcast_in_dim %76, dims = [0, 1, 2, 3] : (tensor<4x4x8x1xf32>) -> tensor<4x4x8x8xf32>
    %78 = sdy.sharding_constraint %77 <@mesh, [{"data"}, {"model"}, {"seq"}, {}]> : tensor<4x4x8x8xf32>
    %79 = stablehlo.divide %71, %78 : tensor<4x4x8x8xf32>
    %80 = sdy.sharding_constraint %79 <@mesh, [{"data"}, {"model"}, {"seq"}, {}]> : tensor<4x4x8x8xf32>
    return %80 : tensor<4x4x8x8xf32>
  }
}
