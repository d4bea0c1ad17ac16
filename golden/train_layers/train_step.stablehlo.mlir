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
    %74 = stablehlo.negate %73 : tensor<32x64xf32>
    %75 = sdy.sharding_constraint %74 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
    %76 = stablehlo.constant dense<0.0> : tensor<f32>
    %77 = stablehlo.broadcast_in_dim %76, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %78 = sdy.sharding_constraint %77 <@mesh, [{}]> : tensor<64xf32>
    %79 = stablehlo.broadcast_in_dim %76, dims = [] : (tensor<f32>) -> tensor<4x32x64xf32>
    %80 = sdy.sharding_constraint %79 <@mesh, [{}, {"fsdp"}, {}]> : tensor<4x32x64xf32>
    %81 = stablehlo.broadcast_in_dim %76, dims = [] : (tensor<f32>) -> tensor<4x32x64xf32>
    %82 = sdy.sharding_constraint %81 <@mesh, [{}, {"fsdp"}, {}]> : tensor<4x32x64xf32>
    %83 = stablehlo.constant dense<0> : tensor<i32>
    %84 = stablehlo.constant dense<0.0> : tensor<f32>
    %85 = stablehlo.broadcast_in_dim %84, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
    %86 = sdy.sharding_constraint %85 <@mesh, [{}, {"fsdp"}, {}]> : tensor<4x64x64xf32>
    %87:8 = "stablehlo.while"(%83, %73, %78, %arg1, %86, %49, %arg0, %50) ({
    ^bb0(%w88: tensor<i32>, %w89: tensor<32x64xf32>, %w90: tensor<64xf32>, %w91: tensor<64xf32>, %w92: tensor<4x64x64xf32>, %w93: tensor<4x32x64xf32>, %w94: tensor<4x64x64xf32>, %w95: tensor<4x32x64xf32>):
      %96 = stablehlo.constant dense<4> : tensor<i32>
      %97 = stablehlo.compare LT, %w88, %96 : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %97 : tensor<i1>
    }, {
    ^bb0(%w98: tensor<i32>, %w99: tensor<32x64xf32>, %w100: tensor<64xf32>, %w101: tensor<64xf32>, %w102: tensor<4x64x64xf32>, %w103: tensor<4x32x64xf32>, %w104: tensor<4x64x64xf32>, %w105: tensor<4x32x64xf32>):
      %106 = sdy.sharding_constraint %w99 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
      %107 = sdy.sharding_constraint %w100 <@mesh, [{}]> : tensor<64xf32>
      %108 = sdy.sharding_constraint %w101 <@mesh, [{}]> : tensor<64xf32>
      %109 = stablehlo.constant dense<0> : tensor<i32>
      %110 = stablehlo.constant dense<1> : tensor<i32>
      %111 = stablehlo.constant dense<3> : tensor<i32>
      %112 = stablehlo.subtract %111, %w98 : tensor<i32>
      %113 = stablehlo.dynamic_slice %w103, %112, %109, %109, sizes = [1, 32, 64] : (tensor<4x32x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x32x64xf32>
      %114 = stablehlo.reshape %113 : (tensor<1x32x64xf32>) -> tensor<32x64xf32>
      %115 = sdy.sharding_constraint %114 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
      %116 = stablehlo.dynamic_slice %w104, %112, %109, %109, sizes = [1, 64, 64] : (tensor<4x64x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x64xf32>
      %117 = stablehlo.reshape %116 : (tensor<1x64x64xf32>) -> tensor<64x64xf32>
      %118 = sdy.sharding_constraint %117 <@mesh, [{"fsdp"}, {}]> : tensor<64x64xf32>
      %119 = stablehlo.dynamic_slice %w105, %112, %109, %109, sizes = [1, 32, 64] : (tensor<4x32x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x32x64xf32>
      %120 = stablehlo.reshape %119 : (tensor<1x32x64xf32>) -> tensor<32x64xf32>
      %121 = sdy.sharding_constraint %120 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
      %122:3 = stablehlo.optimization_barrier %115, %118, %108 : tensor<32x64xf32>, tensor<64x64xf32>, tensor<64xf32>
      %123 = sdy.sharding_constraint %122#1 <@mesh, [{}, {}]> : tensor<64x64xf32>
      %124 = stablehlo.dot_general %122#0, %123, contracting_dims = [1] x [0] : (tensor<32x64xf32>, tensor<64x64xf32>) -> tensor<32x64xf32>
      %125 = sdy.sharding_constraint %124 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
      %126 = stablehlo.tanh %125 : tensor<32x64xf32>
      %127 = sdy.sharding_constraint %126 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
      %128 = stablehlo.broadcast_in_dim %122#2, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
      %129 = sdy.sharding_constraint %128 <@mesh, [{}, {}]> : tensor<1x64xf32>
      %130 = stablehlo.broadcast_in_dim %129, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<32x64xf32>
      %131 = sdy.sharding_constraint %130 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
      %132 = stablehlo.multiply %127, %131 : tensor<32x64xf32>
      %133 = sdy.sharding_constraint %132 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
      %134 = stablehlo.broadcast_in_dim %129, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<32x64xf32>
      %135 = sdy.sharding_constraint %134 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
      %136 = stablehlo.multiply %106, %135 : tensor<32x64xf32>
      %137 = sdy.sharding_constraint %136 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
      %138 = stablehlo.multiply %106, %127 : tensor<32x64xf32>
      %139 = sdy.sharding_constraint %138 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
      %140 = stablehlo.constant dense<0.0> : tensor<f32>
      %141 = stablehlo.reduce(%139 init: %140) applies stablehlo.add across dimensions = [0] : (tensor<32x64xf32>, tensor<f32>) -> tensor<64xf32>
      %142 = sdy.sharding_constraint %141 <@mesh, [{}]> : tensor<64xf32>
      %143 = stablehlo.broadcast_in_dim %142, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
      %144 = sdy.sharding_constraint %143 <@mesh, [{}, {}]> : tensor<1x64xf32>
      %145 = stablehlo.constant dense<0.0> : tensor<f32>
      %146 = stablehlo.reduce(%144 init: %145) applies stablehlo.add across dimensions = [0] : (tensor<1x64xf32>, tensor<f32>) -> tensor<64xf32>
      %147 = sdy.sharding_constraint %146 <@mesh, [{}]> : tensor<64xf32>
      %148 = stablehlo.multiply %127, %127 : tensor<32x64xf32>
      %149 = sdy.sharding_constraint %148 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
      %150 = stablehlo.constant dense<1.0> : tensor<f32>
      %151 = stablehlo.broadcast_in_dim %150, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
      %152 = sdy.sharding_constraint %151 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
      %153 = stablehlo.subtract %152, %149 : tensor<32x64xf32>
      %154 = sdy.sharding_constraint %153 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
      %155 = stablehlo.multiply %137, %154 : tensor<32x64xf32>
      %156 = sdy.sharding_constraint %155 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
      %157 = stablehlo.dot_general %156, %123, contracting_dims = [1] x [1] : (tensor<32x64xf32>, tensor<64x64xf32>) -> tensor<32x64xf32>
      %158 = sdy.sharding_constraint %157 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
      %159 = stablehlo.dot_general %156, %122#0, contracting_dims = [0] x [0] : (tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<64x64xf32>
      %160 = sdy.sharding_constraint %159 <@mesh, [{}, {}]> : tensor<64x64xf32>
      %161 = stablehlo.transpose %160, dims = [1, 0] : (tensor<64x64xf32>) -> tensor<64x64xf32>
      %162 = sdy.sharding_constraint %161 <@mesh, [{}, {}]> : tensor<64x64xf32>
      %163 = sdy.sharding_constraint %162 <@mesh, [{"fsdp"}, {}]> : tensor<64x64xf32>
      %164 = stablehlo.add %107, %147 : tensor<64xf32>
      %165 = sdy.sharding_constraint %164 <@mesh, [{}]> : tensor<64xf32>
      %166 = stablehlo.reshape %163 : (tensor<64x64xf32>) -> tensor<1x64x64xf32>
      %167 = stablehlo.dynamic_update_slice %w102, %166, %112, %109, %109 : (tensor<4x64x64xf32>, tensor<1x64x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<4x64x64xf32>
      %168 = sdy.sharding_constraint %167 <@mesh, [{}, {"fsdp"}, {}]> : tensor<4x64x64xf32>
      %169 = stablehlo.add %w98, %110 : tensor<i32>
      stablehlo.return %169, %158, %165, %108, %168, %w103, %w104, %w105 : tensor<i32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>
    }) : (tensor<i32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>) -> (tensor<i32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>, tensor<4x64x64xf32>, tensor<4x32x64xf32>)
    %170 = sdy.sharding_constraint %87#1 <@mesh, [{"fsdp"}, {}]> : tensor<32x64xf32>
    %171 = sdy.sharding_constraint %87#2 <@mesh, [{}]> : tensor<64xf32>
    %172 = sdy.sharding_constraint %87#3 <@mesh, [{}]> : tensor<64xf32>
    %173 = sdy.sharding_constraint %87#4 <@mesh, [{}, {"fsdp"}, {}]> : tensor<4x64x64xf32>
    %174 = stablehlo.constant dense<0.5> : tensor<f32>
    %175 = stablehlo.broadcast_in_dim %174, dims = [] : (tensor<f32>) -> tensor<4x64x64xf32>
    %176 = sdy.sharding_constraint %175 <@mesh, [{}, {"fsdp"}, {}]> : tensor<4x64x64xf32>
    %177 = stablehlo.multiply %176, %173 : tensor<4x64x64xf32>
    %178 = sdy.sharding_constraint %177 <@mesh, [{}, {"fsdp"}, {}]> : tensor<4x64x64xf32>
    %179 = stablehlo.subtract %arg0, %178 : tensor<4x64x64xf32>
    %180 = sdy.sharding_constraint %179 <@mesh, [{}, {"fsdp"}, {}]> : tensor<4x64x64xf32>
    %181 = stablehlo.broadcast_in_dim %174, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %182 = sdy.sharding_constraint %181 <@mesh, [{}]> : tensor<64xf32>
    %183 = stablehlo.multiply %182, %171 : tensor<64xf32>
    %184 = sdy.sharding_constraint %183 <@mesh, [{}]> : tensor<64xf32>
    %185 = stablehlo.subtract %arg1, %184 : tensor<64xf32>
    %186 = sdy.sharding_constraint %185 <@mesh, [{}]> : tensor<64xf32>
    return %180, %186, %60 : tensor<4x64x64xf32>, tensor<64xf32>, tensor<f32>
  }
}
