module @shardc_train_step attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func public @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}, %arg1: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}, %arg2: tensor<16x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, %arg3: tensor<64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}]>}, %arg4: tensor<64x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}, %arg5: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}) -> (tensor<f32> {sdy.sharding = #sdy.sharding<@mesh, []>}, tensor<16x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, tensor<64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}]>}, tensor<64x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}, tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}) {
    %0 = stablehlo.dot_general %arg0, %arg2, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x64xf32>) -> tensor<8x64xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %2 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{}, {"model"}]> : tensor<1x64xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<8x64xf32>
    %5 = sdy.sharding_constraint %4 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %6 = stablehlo.add %1, %5 : tensor<8x64xf32>
    %7 = sdy.sharding_constraint %6 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %8 = stablehlo.multiply %7, %7 : tensor<8x64xf32>
    %9 = stablehlo.multiply %7, %8 : tensor<8x64xf32>
    %10 = sdy.sharding_constraint %9 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %11 = stablehlo.constant dense<0.044714998453855515> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
    %13 = sdy.sharding_constraint %12 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %14 = stablehlo.multiply %13, %10 : tensor<8x64xf32>
    %15 = sdy.sharding_constraint %14 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %16 = stablehlo.add %7, %15 : tensor<8x64xf32>
    %17 = sdy.sharding_constraint %16 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %18 = stablehlo.constant dense<0.7978845834732056> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %18, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
    %20 = sdy.sharding_constraint %19 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %21 = stablehlo.multiply %20, %17 : tensor<8x64xf32>
    %22 = sdy.sharding_constraint %21 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %23 = stablehlo.tanh %22 : tensor<8x64xf32>
    %24 = sdy.sharding_constraint %23 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %25 = stablehlo.constant dense<1.0> : tensor<f32>
    %26 = stablehlo.broadcast_in_dim %25, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
    %27 = sdy.sharding_constraint %26 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %28 = stablehlo.add %27, %24 : tensor<8x64xf32>
    %29 = sdy.sharding_constraint %28 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %30 = stablehlo.constant dense<0.5> : tensor<f32>
    %31 = stablehlo.broadcast_in_dim %30, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
    %32 = sdy.sharding_constraint %31 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %33 = stablehlo.multiply %32, %29 : tensor<8x64xf32>
    %34 = sdy.sharding_constraint %33 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %35 = stablehlo.multiply %7, %34 : tensor<8x64xf32>
    %36 = sdy.sharding_constraint %35 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %37 = stablehlo.dot_general %36, %arg4, contracting_dims = [1] x [0] : (tensor<8x64xf32>, tensor<64x16xf32>) -> tensor<8x16xf32>
    %38 = sdy.sharding_constraint %37 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
    %39 = stablehlo.broadcast_in_dim %arg5, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %40 = sdy.sharding_constraint %39 <@mesh, [{}, {}]> : tensor<1x16xf32>
    %41 = stablehlo.broadcast_in_dim %40, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<8x16xf32>
    %42 = sdy.sharding_constraint %41 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
    %43 = stablehlo.add %38, %42 : tensor<8x16xf32>
    %44 = sdy.sharding_constraint %43 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
    %45 = stablehlo.subtract %44, %arg1 : tensor<8x16xf32>
    %46 = sdy.sharding_constraint %45 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
    %47 = stablehlo.multiply %46, %46 : tensor<8x16xf32>
    %48 = sdy.sharding_constraint %47 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
    %49 = stablehlo.constant dense<0.0> : tensor<f32>
    %50 = stablehlo.reduce(%48 init: %49) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<f32>
    %51 = sdy.sharding_constraint %50 <@mesh, []> : tensor<f32>
    %52 = stablehlo.constant dense<128.0> : tensor<f32>
    %53 = stablehlo.divide %51, %52 : tensor<f32>
    %54 = sdy.sharding_constraint %53 <@mesh, []> : tensor<f32>
    %55 = sdy.sharding_constraint %25 <@mesh, []> : tensor<f32>
    %56 = stablehlo.divide %55, %52 : tensor<f32>
    %57 = sdy.sharding_constraint %56 <@mesh, []> : tensor<f32>
    %58 = stablehlo.broadcast_in_dim %57, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %59 = sdy.sharding_constraint %58 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
    %60 = stablehlo.constant dense<2.0> : tensor<f32>
    %61 = stablehlo.broadcast_in_dim %60, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %62 = sdy.sharding_constraint %61 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
    %63 = stablehlo.multiply %59, %62 : tensor<8x16xf32>
    %64 = sdy.sharding_constraint %63 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
    %65 = stablehlo.multiply %64, %46 : tensor<8x16xf32>
    %66 = sdy.sharding_constraint %65 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
    %67 = stablehlo.constant dense<0.0> : tensor<f32>
    %68 = stablehlo.reduce(%66 init: %67) applies stablehlo.add across dimensions = [0] : (tensor<8x16xf32>, tensor<f32>) -> tensor<16xf32>
    %69 = sdy.sharding_constraint %68 <@mesh, [{}]> : tensor<16xf32>
    %70 = stablehlo.broadcast_in_dim %69, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %71 = sdy.sharding_constraint %70 <@mesh, [{}, {}]> : tensor<1x16xf32>
    %72 = stablehlo.constant dense<0.0> : tensor<f32>
    %73 = stablehlo.reduce(%71 init: %72) applies stablehlo.add across dimensions = [0] : (tensor<1x16xf32>, tensor<f32>) -> tensor<16xf32>
    %74 = sdy.sharding_constraint %73 <@mesh, [{}]> : tensor<16xf32>
    %75 = stablehlo.dot_general %66, %arg4, contracting_dims = [1] x [1] : (tensor<8x16xf32>, tensor<64x16xf32>) -> tensor<8x64xf32>
    %76 = sdy.sharding_constraint %75 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %77 = stablehlo.dot_general %66, %36, contracting_dims = [0] x [0] : (tensor<8x16xf32>, tensor<8x64xf32>) -> tensor<16x64xf32>
    %78 = sdy.sharding_constraint %77 <@mesh, [{}, {"model"}]> : tensor<16x64xf32>
    %79 = stablehlo.transpose %78, dims = [1, 0] : (tensor<16x64xf32>) -> tensor<64x16xf32>
    %80 = sdy.sharding_constraint %79 <@mesh, [{"model"}, {}]> : tensor<64x16xf32>
    %81 = stablehlo.multiply %76, %34 : tensor<8x64xf32>
    %82 = sdy.sharding_constraint %81 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %83 = stablehlo.multiply %76, %7 : tensor<8x64xf32>
    %84 = sdy.sharding_constraint %83 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %85 = stablehlo.multiply %84, %32 : tensor<8x64xf32>
    %86 = sdy.sharding_constraint %85 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %87 = stablehlo.multiply %24, %24 : tensor<8x64xf32>
    %88 = sdy.sharding_constraint %87 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %89 = stablehlo.subtract %27, %88 : tensor<8x64xf32>
    %90 = sdy.sharding_constraint %89 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %91 = stablehlo.multiply %86, %90 : tensor<8x64xf32>
    %92 = sdy.sharding_constraint %91 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %93 = stablehlo.multiply %92, %20 : tensor<8x64xf32>
    %94 = sdy.sharding_constraint %93 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %95 = stablehlo.add %82, %94 : tensor<8x64xf32>
    %96 = sdy.sharding_constraint %95 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %97 = stablehlo.multiply %94, %13 : tensor<8x64xf32>
    %98 = sdy.sharding_constraint %97 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %99 = stablehlo.multiply %7, %7 : tensor<8x64xf32>
    %100 = sdy.sharding_constraint %99 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %101 = stablehlo.constant dense<3.0> : tensor<f32>
    %102 = stablehlo.broadcast_in_dim %101, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
    %103 = sdy.sharding_constraint %102 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %104 = stablehlo.multiply %98, %103 : tensor<8x64xf32>
    %105 = sdy.sharding_constraint %104 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %106 = stablehlo.multiply %105, %100 : tensor<8x64xf32>
    %107 = sdy.sharding_constraint %106 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %108 = stablehlo.add %96, %107 : tensor<8x64xf32>
    %109 = sdy.sharding_constraint %108 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %110 = stablehlo.constant dense<0.0> : tensor<f32>
    %111 = stablehlo.reduce(%109 init: %110) applies stablehlo.add across dimensions = [0] : (tensor<8x64xf32>, tensor<f32>) -> tensor<64xf32>
    %112 = sdy.sharding_constraint %111 <@mesh, [{"model"}]> : tensor<64xf32>
    %113 = stablehlo.broadcast_in_dim %112, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
    %114 = sdy.sharding_constraint %113 <@mesh, [{}, {"model"}]> : tensor<1x64xf32>
    %115 = stablehlo.constant dense<0.0> : tensor<f32>
    %116 = stablehlo.reduce(%114 init: %115) applies stablehlo.add across dimensions = [0] : (tensor<1x64xf32>, tensor<f32>) -> tensor<64xf32>
    %117 = sdy.sharding_constraint %116 <@mesh, [{"model"}]> : tensor<64xf32>
    %118 = stablehlo.dot_general %109, %arg0, contracting_dims = [0] x [0] : (tensor<8x64xf32>, tensor<8x16xf32>) -> tensor<64x16xf32>
    %119 = sdy.sharding_constraint %118 <@mesh, [{"model"}, {}]> : tensor<64x16xf32>
    %120 = stablehlo.transpose %119, dims = [1, 0] : (tensor<64x16xf32>) -> tensor<16x64xf32>
    %121 = sdy.sharding_constraint %120 <@mesh, [{}, {"model"}]> : tensor<16x64xf32>
    return %54, %121, %117, %80, %74 : tensor<f32>, tensor<16x64xf32>, tensor<64xf32>, tensor<64x16xf32>, tensor<16xf32>
  }
}
