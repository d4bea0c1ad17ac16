module @shardc_forward attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func public @main(%arg0: tensor<8xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}]>}, %arg1: tensor<32x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, %arg2: tensor<16x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, %arg3: tensor<64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}]>}, %arg4: tensor<64x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}, %arg5: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}) -> (tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) {
    %0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %2 = sdy.sharding_constraint %1 <@mesh, [{"data"}]> : tensor<8xi32>
    %3 = stablehlo.compare LT, %arg0, %2, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %4 = sdy.sharding_constraint %3 <@mesh, [{"data"}]> : tensor<8xi1>
    %5 = stablehlo.constant dense<32> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %7 = sdy.sharding_constraint %6 <@mesh, [{"data"}]> : tensor<8xi32>
    %8 = stablehlo.add %arg0, %7 : tensor<8xi32>
    %9 = sdy.sharding_constraint %8 <@mesh, [{"data"}]> : tensor<8xi32>
    %10 = stablehlo.select %4, %9, %arg0 : tensor<8xi1>, tensor<8xi32>
    %11 = sdy.sharding_constraint %10 <@mesh, [{"data"}]> : tensor<8xi32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [0] : (tensor<8xi32>) -> tensor<8x1xi32>
    %13 = sdy.sharding_constraint %12 <@mesh, [{"data"}, {}]> : tensor<8x1xi32>
    %14 = "stablehlo.gather"(%arg1, %13) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 16>}> : (tensor<32x16xf32>, tensor<8x1xi32>) -> tensor<8x16xf32>
    %15 = stablehlo.constant dense<31> : tensor<1xi32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [1] : (tensor<1xi32>) -> tensor<8x1xi32>
    %17 = stablehlo.compare LE, %13, %16, SIGNED : (tensor<8x1xi32>, tensor<8x1xi32>) -> tensor<8x1xi1>
    %18 = stablehlo.constant dense<0> : tensor<i32>
    %19 = stablehlo.broadcast_in_dim %18, dims = [] : (tensor<i32>) -> tensor<8x1xi32>
    %20 = stablehlo.compare GE, %13, %19, SIGNED : (tensor<8x1xi32>, tensor<8x1xi32>) -> tensor<8x1xi1>
    %21 = stablehlo.and %17, %20 : tensor<8x1xi1>
    %22 = stablehlo.constant dense<true> : tensor<i1>
    %23 = stablehlo.reduce(%21 init: %22) applies stablehlo.and across dimensions = [1] : (tensor<8x1xi1>, tensor<i1>) -> tensor<8xi1>
    %24 = stablehlo.broadcast_in_dim %23, dims = [0] : (tensor<8xi1>) -> tensor<8x16xi1>
    %25 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %26 = stablehlo.broadcast_in_dim %25, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %27 = stablehlo.select %24, %14, %26 : tensor<8x16xi1>, tensor<8x16xf32>
    %28 = sdy.sharding_constraint %27 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
    %29 = stablehlo.dot_general %28, %arg2, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x64xf32>) -> tensor<8x64xf32>
    %30 = sdy.sharding_constraint %29 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %31 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
    %32 = sdy.sharding_constraint %31 <@mesh, [{}, {"model"}]> : tensor<1x64xf32>
    %33 = stablehlo.broadcast_in_dim %32, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<8x64xf32>
    %34 = sdy.sharding_constraint %33 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %35 = stablehlo.add %30, %34 : tensor<8x64xf32>
    %36 = sdy.sharding_constraint %35 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %37 = stablehlo.multiply %36, %36 : tensor<8x64xf32>
    %38 = stablehlo.multiply %36, %37 : tensor<8x64xf32>
    %39 = sdy.sharding_constraint %38 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %40 = stablehlo.constant dense<0.044714998453855515> : tensor<f32>
    %41 = stablehlo.broadcast_in_dim %40, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
    %42 = sdy.sharding_constraint %41 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %43 = stablehlo.multiply %42, %39 : tensor<8x64xf32>
    %44 = sdy.sharding_constraint %43 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %45 = stablehlo.add %36, %44 : tensor<8x64xf32>
    %46 = sdy.sharding_constraint %45 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %47 = stablehlo.constant dense<0.7978845834732056> : tensor<f32>
    %48 = stablehlo.broadcast_in_dim %47, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
    %49 = sdy.sharding_constraint %48 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %50 = stablehlo.multiply %49, %46 : tensor<8x64xf32>
    %51 = sdy.sharding_constraint %50 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %52 = stablehlo.tanh %51 : tensor<8x64xf32>
    %53 = sdy.sharding_constraint %52 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %54 = stablehlo.constant dense<1.0> : tensor<f32>
    %55 = stablehlo.broadcast_in_dim %54, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
    %56 = sdy.sharding_constraint %55 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %57 = stablehlo.add %56, %53 : tensor<8x64xf32>
    %58 = sdy.sharding_constraint %57 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %59 = stablehlo.constant dense<0.5> : tensor<f32>
    %60 = stablehlo.broadcast_in_dim %59, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
    %61 = sdy.sharding_constraint %60 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %62 = stablehlo.multiply %61, %58 : tensor<8x64xf32>
    %63 = sdy.sharding_constraint %62 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %64 = stablehlo.multiply %36, %63 : tensor<8x64xf32>
    %65 = sdy.sharding_constraint %64 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
    %66 = stablehlo.dot_general %65, %arg4, contracting_dims = [1] x [0] : (tensor<8x64xf32>, tensor<64x16xf32>) -> tensor<8x16xf32>
    %67 = sdy.sharding_constraint %66 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
    %68 = stablehlo.broadcast_in_dim %arg5, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %69 = sdy.sharding_constraint %68 <@mesh, [{}, {}]> : tensor<1x16xf32>
    %70 = stablehlo.broadcast_in_dim %69, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<8x16xf32>
    %71 = sdy.sharding_constraint %70 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
    %72 = stablehlo.add %67, %71 : tensor<8x16xf32>
    %73 = sdy.sharding_constraint %72 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
    %74 = stablehlo.add %73, %28 : tensor<8x16xf32>
    %75 = sdy.sharding_constraint %74 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
    %76 = stablehlo.constant dense<0.0> : tensor<f32>
    %77 = stablehlo.reduce(%75 init: %76) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
    %78 = sdy.sharding_constraint %77 <@mesh, [{"data"}]> : tensor<8xf32>
    %79 = stablehlo.broadcast_in_dim %78, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %80 = sdy.sharding_constraint %79 <@mesh, [{"data"}, {}]> : tensor<8x1xf32>
    %81 = stablehlo.constant dense<16.0> : tensor<f32>
    %82 = stablehlo.broadcast_in_dim %81, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
    %83 = sdy.sharding_constraint %82 <@mesh, [{"data"}, {}]> : tensor<8x1xf32>
    %84 = stablehlo.divide %80, %83 : tensor<8x1xf32>
    %85 = sdy.sharding_constraint %84 <@mesh, [{"data"}, {}]> : tensor<8x1xf32>
    %86 = stablehlo.broadcast_in_dim %85, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x16xf32>
    %87 = sdy.sharding_constraint %86 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
    %88 = stablehlo.subtract %75, %87 : tensor<8x16xf32>
    %89 = sdy.sharding_constraint %88 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
    %90 = stablehlo.multiply %89, %89 : tensor<8x16xf32>
    %91 = sdy.sharding_constraint %90 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
    %92 = stablehlo.constant dense<0.0> : tensor<f32>
    %93 = stablehlo.reduce(%91 init: %92) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
    %94 = sdy.sharding_constraint %93 <@mesh, [{"data"}]> : tensor<8xf32>
    %95 = stablehlo.broadcast_in_dim %94, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %96 = sdy.sharding_constraint %95 <@mesh, [{"data"}, {}]> : tensor<8x1xf32>
    %97 = stablehlo.divide %96, %83 : tensor<8x1xf32>
    %98 = sdy.sharding_constraint %97 <@mesh, [{"data"}, {}]> : tensor<8x1xf32>
    %99 = stablehlo.constant dense<9.999999974752427e-07> : tensor<f32>
    %100 = stablehlo.broadcast_in_dim %99, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
    %101 = sdy.sharding_constraint %100 <@mesh, [{"data"}, {}]> : tensor<8x1xf32>
    %102 = stablehlo.add %98, %101 : tensor<8x1xf32>
    %103 = sdy.sharding_constraint %102 <@mesh, [{"data"}, {}]> : tensor<8x1xf32>
    %104 = stablehlo.rsqrt %103 : tensor<8x1xf32>
    %105 = sdy.sharding_constraint %104 <@mesh, [{"data"}, {}]> : tensor<8x1xf32>
    %106 = stablehlo.broadcast_in_dim %105, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x16xf32>
    %107 = sdy.sharding_constraint %106 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
    %108 = stablehlo.multiply %89, %107 : tensor<8x16xf32>
    %109 = sdy.sharding_constraint %108 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
    %110 = stablehlo.constant dense<1.0> : tensor<16xf32>
    %111 = sdy.sharding_constraint %110 <@mesh, [{}]> : tensor<16xf32>
    %112 = stablehlo.broadcast_in_dim %111, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %113 = sdy.sharding_constraint %112 <@mesh, [{}, {}]> : tensor<1x16xf32>
    %114 = stablehlo.broadcast_in_dim %113, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<8x16xf32>
    %115 = sdy.sharding_constraint %114 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
    %116 = stablehlo.multiply %109, %115 : tensor<8x16xf32>
    %117 = sdy.sharding_constraint %116 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
    %118 = stablehlo.constant dense<0.0> : tensor<16xf32>
    %119 = sdy.sharding_constraint %118 <@mesh, [{}]> : tensor<16xf32>
    %120 = stablehlo.broadcast_in_dim %119, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %121 = sdy.sharding_constraint %120 <@mesh, [{}, {}]> : tensor<1x16xf32>
    %122 = stablehlo.broadcast_in_dim %121, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<8x16xf32>
    %123 = sdy.sharding_constraint %122 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
    %124 = stablehlo.add %117, %123 : tensor<8x16xf32>
    %125 = sdy.sharding_constraint %124 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
    return %125 : tensor<8x16xf32>
  }
}
