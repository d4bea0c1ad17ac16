module @shardc_clipped_grad attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func public @main(%arg0: tensor<16x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, %arg1: tensor<64x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}, %arg2: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}, %arg3: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) -> (tensor<16x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, tensor<64x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}) {
    %0 = stablehlo.dot_general %arg2, %arg0, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x64xf32>) -> tensor<8x64xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %2 = stablehlo.tanh %1 : tensor<8x64xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %4 = stablehlo.dot_general %3, %arg1, contracting_dims = [1] x [0] : (tensor<8x64xf32>, tensor<64x16xf32>) -> tensor<8x16xf32>
    %5 = sdy.sharding_constraint %4 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
    %6 = stablehlo.subtract %5, %arg3 : tensor<8x16xf32>
    %7 = sdy.sharding_constraint %6 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
    %8 = stablehlo.multiply %7, %7 : tensor<8x16xf32>
    %9 = sdy.sharding_constraint %8 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
    %10 = stablehlo.constant dense<0.0> : tensor<f32>
    %11 = stablehlo.reduce(%9 init: %10) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
    %12 = sdy.sharding_constraint %11 <@mesh, [{"data"}]> : tensor<8xf32>
    %13 = stablehlo.constant dense<1.0> : tensor<f32>
    %14 = sdy.sharding_constraint %13 <@mesh, []> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %14, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %16 = sdy.sharding_constraint %15 <@mesh, [{}]> : tensor<16xf32>
    %17 = stablehlo.constant dense<2.0> : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %17, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %19 = sdy.sharding_constraint %18 <@mesh, [{}]> : tensor<16xf32>
    %20 = stablehlo.multiply %16, %19 : tensor<16xf32>
    %21 = sdy.sharding_constraint %20 <@mesh, [{}]> : tensor<16xf32>
    %22 = stablehlo.broadcast_in_dim %21, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %23 = sdy.sharding_constraint %22 <@mesh, [{}, {}]> : tensor<1x16xf32>
    %24 = stablehlo.broadcast_in_dim %23, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<8x16xf32>
    %25 = sdy.sharding_constraint %24 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
    %26 = stablehlo.multiply %25, %7 : tensor<8x16xf32>
    %27 = sdy.sharding_constraint %26 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
    %28 = stablehlo.negate %27 : tensor<8x16xf32>
    %29 = sdy.sharding_constraint %28 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
    %30 = stablehlo.dot_general %27, %arg1, contracting_dims = [1] x [1] : (tensor<8x16xf32>, tensor<64x16xf32>) -> tensor<8x64xf32>
    %31 = sdy.sharding_constraint %30 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %32 = stablehlo.dot_general %27, %3, batching_dims = [0] x [0], contracting_dims = [] x [] : (tensor<8x16xf32>, tensor<8x64xf32>) -> tensor<8x16x64xf32>
    %33 = sdy.sharding_constraint %32 <@mesh, [{"data"}, {}, {"model"}]> : tensor<8x16x64xf32>
    %34 = stablehlo.transpose %33, dims = [0, 2, 1] : (tensor<8x16x64xf32>) -> tensor<8x64x16xf32>
    %35 = sdy.sharding_constraint %34 <@mesh, [{"data"}, {"model"}, {}]> : tensor<8x64x16xf32>
    %36 = stablehlo.multiply %3, %3 : tensor<8x64xf32>
    %37 = sdy.sharding_constraint %36 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %38 = stablehlo.broadcast_in_dim %13, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
    %39 = sdy.sharding_constraint %38 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %40 = stablehlo.subtract %39, %37 : tensor<8x64xf32>
    %41 = sdy.sharding_constraint %40 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %42 = stablehlo.multiply %31, %41 : tensor<8x64xf32>
    %43 = sdy.sharding_constraint %42 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %44 = stablehlo.dot_general %43, %arg0, contracting_dims = [1] x [1] : (tensor<8x64xf32>, tensor<16x64xf32>) -> tensor<8x16xf32>
    %45 = sdy.sharding_constraint %44 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
    %46 = stablehlo.dot_general %43, %arg2, batching_dims = [0] x [0], contracting_dims = [] x [] : (tensor<8x64xf32>, tensor<8x16xf32>) -> tensor<8x64x16xf32>
    %47 = sdy.sharding_constraint %46 <@mesh, [{"data"}, {"model"}, {}]> : tensor<8x64x16xf32>
    %48 = stablehlo.transpose %47, dims = [0, 2, 1] : (tensor<8x64x16xf32>) -> tensor<8x16x64xf32>
    %49 = sdy.sharding_constraint %48 <@mesh, [{"data"}, {}, {"model"}]> : tensor<8x16x64xf32>
    %50 = stablehlo.multiply %49, %49 : tensor<8x16x64xf32>
    %51 = sdy.sharding_constraint %50 <@mesh, [{"data"}, {}, {"model"}]> : tensor<8x16x64xf32>
    %52 = stablehlo.constant dense<0.0> : tensor<f32>
    %53 = stablehlo.reduce(%51 init: %52) applies stablehlo.add across dimensions = [1, 2] : (tensor<8x16x64xf32>, tensor<f32>) -> tensor<8xf32>
    %54 = sdy.sharding_constraint %53 <@mesh, [{"data"}]> : tensor<8xf32>
    %55 = stablehlo.multiply %35, %35 : tensor<8x64x16xf32>
    %56 = sdy.sharding_constraint %55 <@mesh, [{"data"}, {"model"}, {}]> : tensor<8x64x16xf32>
    %57 = stablehlo.constant dense<0.0> : tensor<f32>
    %58 = stablehlo.reduce(%56 init: %57) applies stablehlo.add across dimensions = [1, 2] : (tensor<8x64x16xf32>, tensor<f32>) -> tensor<8xf32>
    %59 = sdy.sharding_constraint %58 <@mesh, [{"data"}]> : tensor<8xf32>
    %60 = stablehlo.constant dense<0.0> : tensor<f32>
    %61 = stablehlo.broadcast_in_dim %60, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %62 = sdy.sharding_constraint %61 <@mesh, [{"data"}]> : tensor<8xf32>
    %63 = stablehlo.add %62, %54 : tensor<8xf32>
    %64 = sdy.sharding_constraint %63 <@mesh, [{"data"}]> : tensor<8xf32>
    %65 = stablehlo.add %64, %59 : tensor<8xf32>
    %66 = sdy.sharding_constraint %65 <@mesh, [{"data"}]> : tensor<8xf32>
    %67 = stablehlo.sqrt %66 : tensor<8xf32>
    %68 = sdy.sharding_constraint %67 <@mesh, [{"data"}]> : tensor<8xf32>
    %69 = stablehlo.broadcast_in_dim %13, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %70 = sdy.sharding_constraint %69 <@mesh, [{"data"}]> : tensor<8xf32>
    %71 = stablehlo.maximum %68, %70 : tensor<8xf32>
    %72 = sdy.sharding_constraint %71 <@mesh, [{"data"}]> : tensor<8xf32>
    %73 = stablehlo.divide %70, %72 : tensor<8xf32>
    %74 = sdy.sharding_constraint %73 <@mesh, [{"data"}]> : tensor<8xf32>
    %75 = stablehlo.reshape %74 : (tensor<8xf32>) -> tensor<8x1x1xf32>
    %76 = sdy.sharding_constraint %75 <@mesh, [{"data"}, {}, {}]> : tensor<8x1x1xf32>
    %77 = stablehlo.broadcast_in_dim %76, dims = [0, 1, 2] : (tensor<8x1x1xf32>) -> tensor<8x16x64xf32>
    %78 = sdy.sharding_constraint %77 <@mesh, [{"data"}, {}, {"model"}]> : tensor<8x16x64xf32>
    %79 = stablehlo.multiply %49, %78 : tensor<8x16x64xf32>
    %80 = sdy.sharding_constraint %79 <@mesh, [{"data"}, {}, {"model"}]> : tensor<8x16x64xf32>
    %81 = stablehlo.constant dense<0.0> : tensor<f32>
    %82 = stablehlo.reduce(%80 init: %81) applies stablehlo.add across dimensions = [0] : (tensor<8x16x64xf32>, tensor<f32>) -> tensor<16x64xf32>
    %83 = sdy.sharding_constraint %82 <@mesh, [{}, {"model"}]> : tensor<16x64xf32>
    %84 = stablehlo.constant dense<8.0> : tensor<f32>
    %85 = stablehlo.broadcast_in_dim %84, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %86 = sdy.sharding_constraint %85 <@mesh, [{}, {"model"}]> : tensor<16x64xf32>
    %87 = stablehlo.divide %83, %86 : tensor<16x64xf32>
    %88 = sdy.sharding_constraint %87 <@mesh, [{}, {"model"}]> : tensor<16x64xf32>
    %89 = stablehlo.reshape %74 : (tensor<8xf32>) -> tensor<8x1x1xf32>
    %90 = sdy.sharding_constraint %89 <@mesh, [{"data"}, {}, {}]> : tensor<8x1x1xf32>
    %91 = stablehlo.broadcast_in_dim %90, dims = [0, 1, 2] : (tensor<8x1x1xf32>) -> tensor<8x64x16xf32>
    %92 = sdy.sharding_constraint %91 <@mesh, [{"data"}, {"model"}, {}]> : tensor<8x64x16xf32>
    %93 = stablehlo.multiply %35, %92 : tensor<8x64x16xf32>
    %94 = sdy.sharding_constraint %93 <@mesh, [{"data"}, {"model"}, {}]> : tensor<8x64x16xf32>
    %95 = stablehlo.constant dense<0.0> : tensor<f32>
    %96 = stablehlo.reduce(%94 init: %95) applies stablehlo.add across dimensions = [0] : (tensor<8x64x16xf32>, tensor<f32>) -> tensor<64x16xf32>
    %97 = sdy.sharding_constraint %96 <@mesh, [{"model"}, {}]> : tensor<64x16xf32>
    %98 = stablehlo.broadcast_in_dim %84, dims = [] : (tensor<f32>) -> tensor<64x16xf32>
    %99 = sdy.sharding_constraint %98 <@mesh, [{"model"}, {}]> : tensor<64x16xf32>
    %100 = stablehlo.divide %97, %99 : tensor<64x16xf32>
    %101 = sdy.sharding_constraint %100 <@mesh, [{"model"}, {}]> : tensor<64x16xf32>
    return %88, %101 : tensor<16x64xf32>, tensor<64x16xf32>
  }
}
