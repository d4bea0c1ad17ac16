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
    %8 = stablehlo.constant dense<1.0> : tensor<f32>
    %9 = sdy.sharding_constraint %8 <@mesh, []> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %11 = sdy.sharding_constraint %10 <@mesh, [{}]> : tensor<16xf32>
    %12 = stablehlo.constant dense<2.0> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %14 = sdy.sharding_constraint %13 <@mesh, [{}]> : tensor<16xf32>
    %15 = stablehlo.multiply %11, %14 : tensor<16xf32>
    %16 = sdy.sharding_constraint %15 <@mesh, [{}]> : tensor<16xf32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %18 = sdy.sharding_constraint %17 <@mesh, [{}, {}]> : tensor<1x16xf32>
    %19 = stablehlo.broadcast_in_dim %18, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<8x16xf32>
    %20 = sdy.sharding_constraint %19 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
    %21 = stablehlo.multiply %20, %7 : tensor<8x16xf32>
    %22 = sdy.sharding_constraint %21 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
    %23 = stablehlo.dot_general %22, %arg1, contracting_dims = [1] x [1] : (tensor<8x16xf32>, tensor<64x16xf32>) -> tensor<8x64xf32>
    %24 = sdy.sharding_constraint %23 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %25 = stablehlo.dot_general %22, %3, batching_dims = [0] x [0], contracting_dims = [] x [] : (tensor<8x16xf32>, tensor<8x64xf32>) -> tensor<8x16x64xf32>
    %26 = sdy.sharding_constraint %25 <@mesh, [{"data"}, {}, {"model"}]> : tensor<8x16x64xf32>
    %27 = stablehlo.transpose %26, dims = [0, 2, 1] : (tensor<8x16x64xf32>) -> tensor<8x64x16xf32>
    %28 = sdy.sharding_constraint %27 <@mesh, [{"data"}, {"model"}, {}]> : tensor<8x64x16xf32>
    %29 = stablehlo.multiply %3, %3 : tensor<8x64xf32>
    %30 = sdy.sharding_constraint %29 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %31 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
    %32 = sdy.sharding_constraint %31 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %33 = stablehlo.subtract %32, %30 : tensor<8x64xf32>
    %34 = sdy.sharding_constraint %33 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %35 = stablehlo.multiply %24, %34 : tensor<8x64xf32>
    %36 = sdy.sharding_constraint %35 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %37 = stablehlo.dot_general %36, %arg2, batching_dims = [0] x [0], contracting_dims = [] x [] : (tensor<8x64xf32>, tensor<8x16xf32>) -> tensor<8x64x16xf32>
    %38 = sdy.sharding_constraint %37 <@mesh, [{"data"}, {"model"}, {}]> : tensor<8x64x16xf32>
    %39 = stablehlo.transpose %38, dims = [0, 2, 1] : (tensor<8x64x16xf32>) -> tensor<8x16x64xf32>
    %40 = sdy.sharding_constraint %39 <@mesh, [{"data"}, {}, {"model"}]> : tensor<8x16x64xf32>
    %41 = stablehlo.multiply %40, %40 : tensor<8x16x64xf32>
    %42 = sdy.sharding_constraint %41 <@mesh, [{"data"}, {}, {"model"}]> : tensor<8x16x64xf32>
    %43 = stablehlo.constant dense<0.0> : tensor<f32>
    %44 = stablehlo.reduce(%42 init: %43) applies stablehlo.add across dimensions = [1, 2] : (tensor<8x16x64xf32>, tensor<f32>) -> tensor<8xf32>
    %45 = sdy.sharding_constraint %44 <@mesh, [{"data"}]> : tensor<8xf32>
    %46 = stablehlo.multiply %28, %28 : tensor<8x64x16xf32>
    %47 = sdy.sharding_constraint %46 <@mesh, [{"data"}, {"model"}, {}]> : tensor<8x64x16xf32>
    %48 = stablehlo.constant dense<0.0> : tensor<f32>
    %49 = stablehlo.reduce(%47 init: %48) applies stablehlo.add across dimensions = [1, 2] : (tensor<8x64x16xf32>, tensor<f32>) -> tensor<8xf32>
    %50 = sdy.sharding_constraint %49 <@mesh, [{"data"}]> : tensor<8xf32>
    %51 = stablehlo.constant dense<0.0> : tensor<f32>
    %52 = stablehlo.broadcast_in_dim %51, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %53 = sdy.sharding_constraint %52 <@mesh, [{"data"}]> : tensor<8xf32>
    %54 = stablehlo.add %53, %45 : tensor<8xf32>
    %55 = sdy.sharding_constraint %54 <@mesh, [{"data"}]> : tensor<8xf32>
    %56 = stablehlo.add %55, %50 : tensor<8xf32>
    %57 = sdy.sharding_constraint %56 <@mesh, [{"data"}]> : tensor<8xf32>
    %58 = stablehlo.sqrt %57 : tensor<8xf32>
    %59 = sdy.sharding_constraint %58 <@mesh, [{"data"}]> : tensor<8xf32>
    %60 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %61 = sdy.sharding_constraint %60 <@mesh, [{"data"}]> : tensor<8xf32>
    %62 = stablehlo.maximum %59, %61 : tensor<8xf32>
    %63 = sdy.sharding_constraint %62 <@mesh, [{"data"}]> : tensor<8xf32>
    %64 = stablehlo.divide %61, %63 : tensor<8xf32>
    %65 = sdy.sharding_constraint %64 <@mesh, [{"data"}]> : tensor<8xf32>
    %66 = stablehlo.reshape %65 : (tensor<8xf32>) -> tensor<8x1x1xf32>
    %67 = sdy.sharding_constraint %66 <@mesh, [{"data"}, {}, {}]> : tensor<8x1x1xf32>
    %68 = stablehlo.broadcast_in_dim %67, dims = [0, 1, 2] : (tensor<8x1x1xf32>) -> tensor<8x16x64xf32>
    %69 = sdy.sharding_constraint %68 <@mesh, [{"data"}, {}, {"model"}]> : tensor<8x16x64xf32>
    %70 = stablehlo.multiply %40, %69 : tensor<8x16x64xf32>
    %71 = sdy.sharding_constraint %70 <@mesh, [{"data"}, {}, {"model"}]> : tensor<8x16x64xf32>
    %72 = stablehlo.constant dense<0.0> : tensor<f32>
    %73 = stablehlo.reduce(%71 init: %72) applies stablehlo.add across dimensions = [0] : (tensor<8x16x64xf32>, tensor<f32>) -> tensor<16x64xf32>
    %74 = sdy.sharding_constraint %73 <@mesh, [{}, {"model"}]> : tensor<16x64xf32>
    %75 = stablehlo.constant dense<8.0> : tensor<f32>
    %76 = stablehlo.broadcast_in_dim %75, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %77 = sdy.sharding_constraint %76 <@mesh, [{}, {"model"}]> : tensor<16x64xf32>
    %78 = stablehlo.divide %74, %77 : tensor<16x64xf32>
    %79 = sdy.sharding_constraint %78 <@mesh, [{}, {"model"}]> : tensor<16x64xf32>
    %80 = stablehlo.reshape %65 : (tensor<8xf32>) -> tensor<8x1x1xf32>
    %81 = sdy.sharding_constraint %80 <@mesh, [{"data"}, {}, {}]> : tensor<8x1x1xf32>
    %82 = stablehlo.broadcast_in_dim %81, dims = [0, 1, 2] : (tensor<8x1x1xf32>) -> tensor<8x64x16xf32>
    %83 = sdy.sharding_constraint %82 <@mesh, [{"data"}, {"model"}, {}]> : tensor<8x64x16xf32>
    %84 = stablehlo.multiply %28, %83 : tensor<8x64x16xf32>
    %85 = sdy.sharding_constraint %84 <@mesh, [{"data"}, {"model"}, {}]> : tensor<8x64x16xf32>
    %86 = stablehlo.constant dense<0.0> : tensor<f32>
    %87 = stablehlo.reduce(%85 init: %86) applies stablehlo.add across dimensions = [0] : (tensor<8x64x16xf32>, tensor<f32>) -> tensor<64x16xf32>
    %88 = sdy.sharding_constraint %87 <@mesh, [{"model"}, {}]> : tensor<64x16xf32>
    %89 = stablehlo.broadcast_in_dim %75, dims = [] : (tensor<f32>) -> tensor<64x16xf32>
    %90 = sdy.sharding_constraint %89 <@mesh, [{"model"}, {}]> : tensor<64x16xf32>
    %91 = stablehlo.divide %88, %90 : tensor<64x16xf32>
    %92 = sdy.sharding_constraint %91 <@mesh, [{"model"}, {}]> : tensor<64x16xf32>
    return %79, %92 : tensor<16x64xf32>, tensor<64x16xf32>
  }
}
