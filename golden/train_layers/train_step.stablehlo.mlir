module @shardc_train_step attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["fsdp"=8]>
  func.func public @main(%arg0: tensor<4x64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"fsdp"}, {}]>}, %arg1: tensor<64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg2: tensor<32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"fsdp"}, {}]>}, %arg3: tensor<32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"fsdp"}, {}]>}) -> (tensor<4x64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"fsdp"}, {}]>}, tensor<64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<f32> {sdy.sharding = #sdy.sharding<@mesh, []>}) {
    %0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.constant dense<0.0> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<4x32x64xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{}, {"fsdp"}, {}]> : tensor<4x32x64xf32>
    %4 = stablehlo.constant dense<0.0> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [] : (tensor<f32>) -> tensor<4x32x64xf32>
    %6 = sdy.sharding_constraint %5 <@mesh, [{}, {"fsdp"}, {}]> : tensor<4x32x64xf32>
    %7:6 = "stablehlo.while"(%0, %arg2, %arg1, %3, %6, %arg0) ({
    ^bb0(%w8: tensor<i32>, %w9: tensor<32x64xf32>, %w10: tensor<64xf32>, %w11: tensor<4x32x64xf32>, %w12: tensor<4x32x64xf32>, %w13: tensor<4x64x64xf32>):
      %14 = stablehlo.constant dense<4> : tensor<i32>
      %15 = stablehlo.compare LT, %w8, %14 : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %15 : tensor<i1>
    }, {
    ^bb0(%w16: tensor<i32>, %w17: tensor<32x64xf32>, %w18: tensor<64xf32>, %w19: tensor<4x32x64xf32>, %w20: tensor<4x32x64xf32>, %w21: tensor<4x64x64xf32>):
      %22 = sdy.sharding_constraint %w17 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
      %23 = sdy.sharding_constraint %w18 <@mesh, [{}]> : tensor<64xf32>
      %24 = stablehlo.constant dense<0> : tensor<i32>
      %25 = stablehlo.constant dense<1> : tensor<i32>
      %26 = stablehlo.dynamic_slice %w21, %w16, %24, %24, sizes = [1, 64, 64] : (tensor<4x64x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x64xf32>
      %27 = stablehlo.reshape %26 : (tensor<1x64x64xf32>) -> tensor<64x64xf32>
      %28 = sdy.sharding_constraint %27 <@mesh, [{"fsdp"}, {}]> : tensor<64x64xf32>
      %29 = sdy.sharding_constraint %28 <@mesh, [{}, {}]> : tensor<64x64xf32>
      %30 = stablehlo.dot_general %22, %29, contracting_dims = [1] x [0] : (tensor<32x64xf32>, tensor<64x64xf32>) -> tensor<32x64xf32>
      %31 = sdy.sharding_constraint %30 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
      %32 = stablehlo.tanh %31 : tensor<32x64xf32>
      %33 = sdy.sharding_constraint %32 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
      %34 = stablehlo.broadcast_in_dim %23, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
      %35 = sdy.sharding_constraint %34 <@mesh, [{}, {}]> : tensor<1x64xf32>
      %36 = stablehlo.broadcast_in_dim %35, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<32x64xf32>
      %37 = sdy.sharding_constraint %36 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
      %38 = stablehlo.multiply %33, %37 : tensor<32x64xf32>
      %39 = sdy.sharding_constraint %38 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
      %40 = stablehlo.reshape %22 : (tensor<32x64xf32>) -> tensor<1x32x64xf32>
      %41 = stablehlo.dynamic_update_slice %w19, %40, %w16, %24, %24 : (tensor<4x32x64xf32>, tensor<1x32x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<4x32x64xf32>
      %42 = sdy.sharding_constraint %41 <@mesh, [{}, {"fsdp"}, {}]> : tensor<4x32x64xf32>
      %43 = stablehlo.reshape %39 : (tensor<32x64xf32>) -> tensor<1x32x64xf32>
      %44 = stablehlo.dynamic_update_slice %w20, %43, %w16, %24, %24 : (tensor<4x32x64xf32>, tensor<1x32x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<4x32x64xf32>
      %45 = sdy.sharding_constraint %44 <@mesh, [{}, {"fsdp"}, {}]> : tensor<4x32x64xf32>
      %46 = stablehlo.add %w16, %25 : tensor<i32>
      stablehlo.return %46, %39, %23, %42, %45, %w21 : tensor<i32>, tensor<32x64xf32>, tensor<64xf32>, tensor<4x32x64xf32>, tensor<4x32x64xf32>, tensor<4x64x64xf32>
    }) : (tensor<i32>, tensor<32x64xf32>, tensor<64xf32>, tensor<4x32x64xf32>, tensor<4x32x64xf32>, tensor<4x64x64xf32>) -> (tensor<i32>, tensor<32x64xf32>, tensor<64xf32>, tensor<4x32x64xf32>, tensor<4x32x64xf32>, tensor<4x64x64xf32>)
    %47 = sdy.sharding_constraint %7#1 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
    %48 = sdy.sharding_constraint %7#2 <@mesh, [{}]> : tensor<64xf32>
    %49 = sdy.sharding_constraint %7#3 <@mesh, [{}, {"fsdp"}, {}]> : tensor<4x32x64xf32>
    %50 = sdy.sharding_constraint %7#4 <@mesh, [{}, {"fsdp"}, {}]> : tensor<4x32x64xf32>
    %51 = stablehlo.subtract %47, %arg3 : tensor<32x64xf32>
    %52 = sdy.sharding_constraint %51 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
    %53 = stablehlo.multiply %52, %52 : tensor<32x64xf32>
    %54 = sdy.sharding_constraint %53 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
    %55 = stablehlo.constant dense<0.0> : tensor<f32>
    %56 = stablehlo.reduce(%54 init: %55) applies stablehlo.add across dimensions = [0, 1] : (tensor<32x64xf32>, tensor<f32>) -> tensor<f32>
    %57 = sdy.sharding_constraint %56 <@mesh, []> : tensor<f32>
    %58 = stablehlo.constant dense<2048.0> : tensor<f32>
    %59 = stablehlo.divide %57, %58 : tensor<f32>
    %60 = sdy.sharding_constraint %59 <@mesh, []> : tensor<f32>
    %61 = stablehlo.constant dense<1.0> : tensor<f32>
    %62 = sdy.sharding_constraint %61 <@mesh, []> : tensor<f32>
    %63 = stablehlo.divide %62, %58 : tensor<f32>
    %64 = sdy.sharding_constraint %63 <@mesh, []> : tensor<f32>
    %65 = stablehlo.broadcast_in_dim %64, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %66 = sdy.sharding_constraint %65 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
    %67 = stablehlo.constant dense<2.0> : tensor<f32>
    %68 = stablehlo.broadcast_in_dim %67, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %69 = sdy.sharding_constraint %68 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
    %70 = stablehlo.multiply %52, %69 : tensor<32x64xf32>
    %71 = sdy.sharding_constraint %70 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
    %72 = stablehlo.multiply %66, %71 : tensor<32x64xf32>
    %73 = sdy.sharding_constraint %72 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
    %74 = stablehlo.constant dense<0.0> : tensor<f32>
    %75 = stablehlo.broadcast_in_dim %74, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %76 = sdy.sharding_constraint %75 <@mesh, [{}]> : tensor<64xf32>
    %77 = stablehlo.constant dense<0> : tensor<i32>
    %78 = stablehlo.constant dense<0.0> : tensor<f32>
    %79 = stablehlo.broadcast_in_dim %78, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
    %80 = sdy.sharding_constraint %79 <@mesh, [{}, {"fsdp"}, {}]> : tensor<4x64x64xf32>
    %81:8 = "stablehlo.while"(%77, %73, %76, %arg1, %80, %49, %arg0, %50) ({
    ^bb0(%w82: tensor<i32>, %w83: tensor<32x64xf32>, %w84: tensor<64xf32>, %w85: tensor<64xf32>, %w86: tensor<4x64x64xf32>, %w87: tensor<4x32x64xf32>, %w88: tensor<4x64x64xf32>, %w89: tensor<4x32x64xf32>):
      %90 = stablehlo.constant dense<4> : tensor<i32>
      %91 = stablehlo.compare LT, %w82, %90 : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %91 : tensor<i1>
    }, {
    ^bb0(%w92: tensor<i32>, %w93: tensor<32x64xf32>, %w94: tensor<64xf32>, %w95: tensor<64xf32>, %w96: tensor<4x64x64xf32>, %w97: tensor<4x32x64xf32>, %w98: tensor<4x64x64xf32>, %w99: tensor<4x32x64xf32>):
      %100 = sdy.sharding_constraint %w93 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
      %101 = sdy.sharding_constraint %w94 <@mesh, [{}]> : tensor<64xf32>
      %102 = sdy.sharding_constraint %w95 <@mesh, [{}]> : tensor<64xf32>
      %103 = stablehlo.constant dense<0> : tensor<i32>
      %104 = stablehlo.constant dense<1> : tensor<i32>
      %105 = stablehlo.constant dense<3> : tensor<i32>
      %106 = stablehlo.subtract %105, %w92 : tensor<i32>
      %107 = stablehlo.dynamic_slice %w97, %106, %103, %103, sizes = [1, 32, 64] : (tensor<4x32x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x32x64xf32>
      %108 = stablehlo.reshape %107 : (tensor<1x32x64xf32>) -> tensor<32x64xf32>
      %109 = sdy.sharding_constraint %108 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
      %110 = stablehlo.dynamic_slice %w98, %106, %103, %103, sizes = [1, 64, 64] : (tensor<4x64x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x64xf32>
      %111 = stablehlo.reshape %110 : (tensor<1x64x64xf32>) -> tensor<64x64xf32>
      %112 = sdy.sharding_constraint %111 <@mesh, [{"fsdp"}, {}]> : tensor<64x64xf32>
      %113 = stablehlo.dynamic_slice %w99, %106, %103, %103, sizes = [1, 32, 64] : (tensor<4x32x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x32x64xf32>
      %114 = stablehlo.reshape %113 : (tensor<1x32x64xf32>) -> tensor<32x64xf32>
      %115 = sdy.sharding_constraint %114 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
      %116:3 = stablehlo.optimization_barrier %109, %112, %102 : tensor<32x64xf32>, tensor<64x64xf32>, tensor<64xf32>
      %117 = sdy.sharding_constraint %116#1 <@mesh, [{}, {}]> : tensor<64x64xf32>
      %118 = stablehlo.dot_general %116#0, %117, contracting_dims = [1] x [0] : (tensor<32x64xf32>, tensor<64x64xf32>) -> tensor<32x64xf32>
      %119 = sdy.sharding_constraint %118 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
      %120 = stablehlo.tanh %119 : tensor<32x64xf32>
      %121 = sdy.sharding_constraint %120 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
      %122 = stablehlo.broadcast_in_dim %116#2, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
      %123 = sdy.sharding_constraint %122 <@mesh, [{}, {}]> : tensor<1x64xf32>
      %124 = stablehlo.broadcast_in_dim %123, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<32x64xf32>
      %125 = sdy.sharding_constraint %124 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
      %126 = stablehlo.multiply %100, %125 : tensor<32x64xf32>
      %127 = sdy.sharding_constraint %126 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
      %128 = stablehlo.multiply %100, %121 : tensor<32x64xf32>
      %129 = sdy.sharding_constraint %128 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
      %130 = stablehlo.constant dense<0.0> : tensor<f32>
      %131 = stablehlo.reduce(%129 init: %130) applies stablehlo.add across dimensions = [0] : (tensor<32x64xf32>, tensor<f32>) -> tensor<64xf32>
      %132 = sdy.sharding_constraint %131 <@mesh, [{}]> : tensor<64xf32>
      %133 = stablehlo.broadcast_in_dim %132, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
      %134 = sdy.sharding_constraint %133 <@mesh, [{}, {}]> : tensor<1x64xf32>
      %135 = stablehlo.constant dense<0.0> : tensor<f32>
      %136 = stablehlo.reduce(%134 init: %135) applies stablehlo.add across dimensions = [0] : (tensor<1x64xf32>, tensor<f32>) -> tensor<64xf32>
      %137 = sdy.sharding_constraint %136 <@mesh, [{}]> : tensor<64xf32>
      %138 = stablehlo.multiply %121, %121 : tensor<32x64xf32>
      %139 = sdy.sharding_constraint %138 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
      %140 = stablehlo.constant dense<1.0> : tensor<f32>
      %141 = stablehlo.broadcast_in_dim %140, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
      %142 = sdy.sharding_constraint %141 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
      %143 = stablehlo.subtract %142, %139 : tensor<32x64xf32>
      %144 = sdy.sharding_constraint %143 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
      %145 = stablehlo.multiply %127, %144 : tensor<32x64xf32>
      %146 = sdy.sharding_constraint %145 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
      %147 = stablehlo.dot_general %146, %117, contracting_dims = [1] x [1] : (tensor<32x64xf32>, tensor<64x64xf32>) -> tensor<32x64xf32>
      %148 = sdy.sharding_constraint %147 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
      %149 = stablehlo.dot_general %146, %116#0, contracting_dims = [0] x [0] : (tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<64x64xf32>
      %150 = sdy.sharding_constraint %149 <@mesh, [{}, {}]> : tensor<64x64xf32>
      %151 = stablehlo.transpose %150, dims = [1, 0] : (tensor<64x64xf32>) -> tensor<64x64xf32>
      %152 = sdy.sharding_constraint %151 <@mesh, [{}, {}]> : tensor<64x64xf32>
      %153 = sdy.sharding_constraint %152 <@mesh, [{"fsdp"}, {}]> : tensor<64x64xf32>
      %154 = stablehlo.add %101, %137 : tensor<64xf32>
      %155 = sdy.sharding_constraint %154 <@mesh, [{}]> : tensor<64xf32>
      %156 = stablehlo.reshape %153 : (tensor<64x64xf32>) -> tensor<1x64x64xf32>
      %157 = stablehlo.dynamic_update_slice %w96, %156, %106, %103, %103 : (tensor<4x64x64xf32>, tensor<1x64x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<4x64x64xf32>
      %158 = sdy.sharding_constraint %157 <@mesh, [{}, {"fsdp"}, {}]> : tensor<4x64x64xf32>
      %159 = stablehlo.add %w92, %104 : tensor<i32>
      stablehlo.return %159, %148, %155, %102, %158, %w97, %w98, %w99 : tensor<i32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>
    }) : (tensor<i32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> (tensor<i32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>)
    %160 = sdy.sharding_constraint %81#1 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
    %161 = sdy.sharding_constraint %81#2 <@mesh, [{}]> : tensor<64xf32>
    %162 = sdy.sharding_constraint %81#3 <@mesh, [{}]> : tensor<64xf32>
    %163 = sdy.sharding_constraint %81#4 <@mesh, [{}, {"fsdp"}, {}]> : tensor<4x64x64xf32>
    %164 = stablehlo.constant dense<0.5> : tensor<f32>
    %165 = stablehlo.broadcast_in_dim %164, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
    %166 = sdy.sharding_constraint %165 <@mesh, [{}, {"fsdp"}, {}]> : tensor<4x64x64xf32>
    %167 = stablehlo.multiply %166, %163 : tensor<4x64x64xf32>
    %168 = sdy.sharding_constraint %167 <@mesh, [{}, {"fsdp"}, {}]> : tensor<4x64x64xf32>
    %169 = stablehlo.subtract %arg0, %168 : tensor<4x64x64xf32>
    %170 = sdy.sharding_constraint %169 <@mesh, [{}, {"fsdp"}, {}]> : tensor<4x64x64xf32>
    %171 = stablehlo.broadcast_in_dim %164, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %172 = sdy.sharding_constraint %171 <@mesh, [{}]> : tensor<64xf32>
    %173 = stablehlo.multiply %172, %161 : tensor<64xf32>
    %174 = sdy.sharding_constraint %173 <@mesh, [{}]> : tensor<64xf32>
    %175 = stablehlo.subtract %arg1, %174 : tensor<64xf32>
    %176 = sdy.sharding_constraint %175 <@mesh, [{}]> : tensor<64xf32>
    return %170, %176, %60 : tensor<4x64x64xf32>, tensor<64xf32>, tensor<f32>
  }
}
