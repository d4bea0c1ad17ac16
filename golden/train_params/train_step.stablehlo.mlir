module @shardc_train_step attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func public @main(%arg0: tensor<64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}]>}, %arg1: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg2: tensor<16x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, %arg3: tensor<64x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}, %arg4: tensor<4x8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"data"}, {}]>}, %arg5: tensor<4x8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"data"}, {}]>}) -> (tensor<64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}]>}, tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<16x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, tensor<64x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}, tensor<f32> {sdy.sharding = #sdy.sharding<@mesh, []>}) {
    %0 = stablehlo.constant dense<0.0> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %2 = sdy.sharding_constraint %1 <@mesh, [{"model"}]> : tensor<64xf32>
    %3 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %4 = sdy.sharding_constraint %3 <@mesh, [{}]> : tensor<16xf32>
    %5 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %6 = sdy.sharding_constraint %5 <@mesh, [{}, {"model"}]> : tensor<16x64xf32>
    %7 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<64x16xf32>
    %8 = sdy.sharding_constraint %7 <@mesh, [{"model"}, {}]> : tensor<64x16xf32>
    %9 = stablehlo.constant dense<0> : tensor<i32>
    %10 = stablehlo.constant dense<0.0> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %12 = sdy.sharding_constraint %11 <@mesh, [{}]> : tensor<4xf32>
    %13:12 = "stablehlo.while"(%9, %2, %4, %6, %8, %arg0, %arg1, %arg2, %arg3, %12, %arg4, %arg5) ({
    ^bb0(%w14: tensor<i32>, %w15: tensor<64xf32>, %w16: tensor<16xf32>, %w17: tensor<16x64xf32>, %w18: tensor<64x16xf32>, %w19: tensor<64xf32>, %w20: tensor<16xf32>, %w21: tensor<16x64xf32>, %w22: tensor<64x16xf32>, %w23: tensor<4xf32>, %w24: tensor<4x8x16xf32>, %w25: tensor<4x8x16xf32>):
      %26 = stablehlo.constant dense<4> : tensor<i32>
      %27 = stablehlo.compare LT, %w14, %26 : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %27 : tensor<i1>
    }, {
    ^bb0(%w28: tensor<i32>, %w29: tensor<64xf32>, %w30: tensor<16xf32>, %w31: tensor<16x64xf32>, %w32: tensor<64x16xf32>, %w33: tensor<64xf32>, %w34: tensor<16xf32>, %w35: tensor<16x64xf32>, %w36: tensor<64x16xf32>, %w37: tensor<4xf32>, %w38: tensor<4x8x16xf32>, %w39: tensor<4x8x16xf32>):
      %40 = sdy.sharding_constraint %w29 <@mesh, [{"model"}]> : tensor<64xf32>
      %41 = sdy.sharding_constraint %w30 <@mesh, [{}]> : tensor<16xf32>
      %42 = sdy.sharding_constraint %w31 <@mesh, [{}, {"model"}]> : tensor<16x64xf32>
      %43 = sdy.sharding_constraint %w32 <@mesh, [{"model"}, {}]> : tensor<64x16xf32>
      %44 = sdy.sharding_constraint %w33 <@mesh, [{"model"}]> : tensor<64xf32>
      %45 = sdy.sharding_constraint %w34 <@mesh, [{}]> : tensor<16xf32>
      %46 = sdy.sharding_constraint %w35 <@mesh, [{}, {"model"}]> : tensor<16x64xf32>
      %47 = sdy.sharding_constraint %w36 <@mesh, [{"model"}, {}]> : tensor<64x16xf32>
      %48 = stablehlo.constant dense<0> : tensor<i32>
      %49 = stablehlo.constant dense<1> : tensor<i32>
      %50 = stablehlo.dynamic_slice %w38, %w28, %48, %48, sizes = [1, 8, 16] : (tensor<4x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16xf32>
      %51 = stablehlo.reshape %50 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
      %52 = sdy.sharding_constraint %51 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
      %53 = stablehlo.dynamic_slice %w39, %w28, %48, %48, sizes = [1, 8, 16] : (tensor<4x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16xf32>
      %54 = stablehlo.reshape %53 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
      %55 = sdy.sharding_constraint %54 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
      %56 = stablehlo.dot_general %52, %46, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x64xf32>) -> tensor<8x64xf32>
      %57 = sdy.sharding_constraint %56 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
      %58 = stablehlo.broadcast_in_dim %44, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
      %59 = sdy.sharding_constraint %58 <@mesh, [{}, {"model"}]> : tensor<1x64xf32>
      %60 = stablehlo.broadcast_in_dim %59, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<8x64xf32>
      %61 = sdy.sharding_constraint %60 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
      %62 = stablehlo.add %57, %61 : tensor<8x64xf32>
      %63 = sdy.sharding_constraint %62 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
      %64 = stablehlo.multiply %63, %63 : tensor<8x64xf32>
      %65 = stablehlo.multiply %63, %64 : tensor<8x64xf32>
      %66 = sdy.sharding_constraint %65 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
      %67 = stablehlo.constant dense<0.044714998453855515> : tensor<f32>
      %68 = stablehlo.broadcast_in_dim %67, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
      %69 = sdy.sharding_constraint %68 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
      %70 = stablehlo.multiply %69, %66 : tensor<8x64xf32>
      %71 = sdy.sharding_constraint %70 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
      %72 = stablehlo.add %63, %71 : tensor<8x64xf32>
      %73 = sdy.sharding_constraint %72 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
      %74 = stablehlo.constant dense<0.7978845834732056> : tensor<f32>
      %75 = stablehlo.broadcast_in_dim %74, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
      %76 = sdy.sharding_constraint %75 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
      %77 = stablehlo.multiply %76, %73 : tensor<8x64xf32>
      %78 = sdy.sharding_constraint %77 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
      %79 = stablehlo.tanh %78 : tensor<8x64xf32>
      %80 = sdy.sharding_constraint %79 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
      %81 = stablehlo.constant dense<1.0> : tensor<f32>
      %82 = stablehlo.broadcast_in_dim %81, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
      %83 = sdy.sharding_constraint %82 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
      %84 = stablehlo.add %83, %80 : tensor<8x64xf32>
      %85 = sdy.sharding_constraint %84 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
      %86 = stablehlo.constant dense<0.5> : tensor<f32>
      %87 = stablehlo.broadcast_in_dim %86, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
      %88 = sdy.sharding_constraint %87 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
      %89 = stablehlo.multiply %88, %85 : tensor<8x64xf32>
      %90 = sdy.sharding_constraint %89 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
      %91 = stablehlo.multiply %63, %90 : tensor<8x64xf32>
      %92 = sdy.sharding_constraint %91 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
      %93 = stablehlo.dot_general %92, %47, contracting_dims = [1] x [0] : (tensor<8x64xf32>, tensor<64x16xf32>) -> tensor<8x16xf32>
      %94 = sdy.sharding_constraint %93 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
      %95 = stablehlo.broadcast_in_dim %45, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
      %96 = sdy.sharding_constraint %95 <@mesh, [{}, {}]> : tensor<1x16xf32>
      %97 = stablehlo.broadcast_in_dim %96, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<8x16xf32>
      %98 = sdy.sharding_constraint %97 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
      %99 = stablehlo.add %94, %98 : tensor<8x16xf32>
      %100 = sdy.sharding_constraint %99 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
      %101 = stablehlo.subtract %100, %55 : tensor<8x16xf32>
      %102 = sdy.sharding_constraint %101 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
      %103 = stablehlo.multiply %102, %102 : tensor<8x16xf32>
      %104 = sdy.sharding_constraint %103 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
      %105 = stablehlo.constant dense<0.0> : tensor<f32>
      %106 = stablehlo.reduce(%104 init: %105) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<f32>
      %107 = sdy.sharding_constraint %106 <@mesh, []> : tensor<f32>
      %108 = stablehlo.constant dense<128.0> : tensor<f32>
      %109 = stablehlo.divide %107, %108 : tensor<f32>
      %110 = sdy.sharding_constraint %109 <@mesh, []> : tensor<f32>
      %111 = sdy.sharding_constraint %81 <@mesh, []> : tensor<f32>
      %112 = stablehlo.divide %111, %108 : tensor<f32>
      %113 = sdy.sharding_constraint %112 <@mesh, []> : tensor<f32>
      %114 = stablehlo.broadcast_in_dim %113, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
      %115 = sdy.sharding_constraint %114 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
      %116 = stablehlo.constant dense<2.0> : tensor<f32>
      %117 = stablehlo.broadcast_in_dim %116, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
      %118 = sdy.sharding_constraint %117 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
      %119 = stablehlo.multiply %102, %118 : tensor<8x16xf32>
      %120 = sdy.sharding_constraint %119 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
      %121 = stablehlo.multiply %115, %120 : tensor<8x16xf32>
      %122 = sdy.sharding_constraint %121 <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
      %123 = stablehlo.constant dense<0.0> : tensor<f32>
      %124 = stablehlo.reduce(%122 init: %123) applies stablehlo.add across dimensions = [0] : (tensor<8x16xf32>, tensor<f32>) -> tensor<16xf32>
      %125 = sdy.sharding_constraint %124 <@mesh, [{}]> : tensor<16xf32>
      %126 = stablehlo.broadcast_in_dim %125, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
      %127 = sdy.sharding_constraint %126 <@mesh, [{}, {}]> : tensor<1x16xf32>
      %128 = stablehlo.constant dense<0.0> : tensor<f32>
      %129 = stablehlo.reduce(%127 init: %128) applies stablehlo.add across dimensions = [0] : (tensor<1x16xf32>, tensor<f32>) -> tensor<16xf32>
      %130 = sdy.sharding_constraint %129 <@mesh, [{}]> : tensor<16xf32>
      %131 = stablehlo.dot_general %122, %47, contracting_dims = [1] x [1] : (tensor<8x16xf32>, tensor<64x16xf32>) -> tensor<8x64xf32>
      %132 = sdy.sharding_constraint %131 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
      %133 = stablehlo.dot_general %122, %92, contracting_dims = [0] x [0] : (tensor<8x16xf32>, tensor<8x64xf32>) -> tensor<16x64xf32>
      %134 = sdy.sharding_constraint %133 <@mesh, [{}, {"model"}]> : tensor<16x64xf32>
      %135 = stablehlo.transpose %134, dims = [1, 0] : (tensor<16x64xf32>) -> tensor<64x16xf32>
      %136 = sdy.sharding_constraint %135 <@mesh, [{"model"}, {}]> : tensor<64x16xf32>
      %137 = stablehlo.multiply %132, %90 : tensor<8x64xf32>
      %138 = sdy.sharding_constraint %137 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
      %139 = stablehlo.multiply %132, %63 : tensor<8x64xf32>
      %140 = sdy.sharding_constraint %139 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
      %141 = stablehlo.multiply %140, %88 : tensor<8x64xf32>
      %142 = sdy.sharding_constraint %141 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
      %143 = stablehlo.multiply %80, %80 : tensor<8x64xf32>
      %144 = sdy.sharding_constraint %143 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
      %145 = stablehlo.subtract %83, %144 : tensor<8x64xf32>
      %146 = sdy.sharding_constraint %145 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
      %147 = stablehlo.multiply %142, %146 : tensor<8x64xf32>
      %148 = sdy.sharding_constraint %147 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
      %149 = stablehlo.multiply %148, %76 : tensor<8x64xf32>
      %150 = sdy.sharding_constraint %149 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
      %151 = stablehlo.add %138, %150 : tensor<8x64xf32>
      %152 = sdy.sharding_constraint %151 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
      %153 = stablehlo.multiply %150, %69 : tensor<8x64xf32>
      %154 = sdy.sharding_constraint %153 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
      %155 = stablehlo.multiply %63, %63 : tensor<8x64xf32>
      %156 = sdy.sharding_constraint %155 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
      %157 = stablehlo.constant dense<3.0> : tensor<f32>
      %158 = stablehlo.broadcast_in_dim %157, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
      %159 = sdy.sharding_constraint %158 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
      %160 = stablehlo.multiply %154, %159 : tensor<8x64xf32>
      %161 = sdy.sharding_constraint %160 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
      %162 = stablehlo.multiply %161, %156 : tensor<8x64xf32>
      %163 = sdy.sharding_constraint %162 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
      %164 = stablehlo.add %152, %163 : tensor<8x64xf32>
      %165 = sdy.sharding_constraint %164 <@mesh, [{"data"}, {"model"}]> : tensor<8x64xf32>
      %166 = stablehlo.constant dense<0.0> : tensor<f32>
      %167 = stablehlo.reduce(%165 init: %166) applies stablehlo.add across dimensions = [0] : (tensor<8x64xf32>, tensor<f32>) -> tensor<64xf32>
      %168 = sdy.sharding_constraint %167 <@mesh, [{"model"}]> : tensor<64xf32>
      %169 = stablehlo.broadcast_in_dim %168, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
      %170 = sdy.sharding_constraint %169 <@mesh, [{}, {"model"}]> : tensor<1x64xf32>
      %171 = stablehlo.constant dense<0.0> : tensor<f32>
      %172 = stablehlo.reduce(%170 init: %171) applies stablehlo.add across dimensions = [0] : (tensor<1x64xf32>, tensor<f32>) -> tensor<64xf32>
      %173 = sdy.sharding_constraint %172 <@mesh, [{"model"}]> : tensor<64xf32>
      %174 = stablehlo.dot_general %165, %52, contracting_dims = [0] x [0] : (tensor<8x64xf32>, tensor<8x16xf32>) -> tensor<64x16xf32>
      %175 = sdy.sharding_constraint %174 <@mesh, [{"model"}, {}]> : tensor<64x16xf32>
      %176 = stablehlo.transpose %175, dims = [1, 0] : (tensor<64x16xf32>) -> tensor<16x64xf32>
      %177 = sdy.sharding_constraint %176 <@mesh, [{}, {"model"}]> : tensor<16x64xf32>
      %178 = stablehlo.add %40, %173 : tensor<64xf32>
      %179 = sdy.sharding_constraint %178 <@mesh, [{"model"}]> : tensor<64xf32>
      %180 = stablehlo.add %41, %130 : tensor<16xf32>
      %181 = sdy.sharding_constraint %180 <@mesh, [{}]> : tensor<16xf32>
      %182 = stablehlo.add %42, %177 : tensor<16x64xf32>
      %183 = sdy.sharding_constraint %182 <@mesh, [{}, {"model"}]> : tensor<16x64xf32>
      %184 = stablehlo.add %43, %136 : tensor<64x16xf32>
      %185 = sdy.sharding_constraint %184 <@mesh, [{"model"}, {}]> : tensor<64x16xf32>
      %186 = stablehlo.reshape %110 : (tensor<f32>) -> tensor<1xf32>
      %187 = stablehlo.dynamic_update_slice %w37, %186, %w28 : (tensor<4xf32>, tensor<1xf32>, tensor<i32>) -> tensor<4xf32>
      %188 = sdy.sharding_constraint %187 <@mesh, [{}]> : tensor<4xf32>
      %189 = stablehlo.add %w28, %49 : tensor<i32>
      stablehlo.return %189, %179, %181, %183, %185, %44, %45, %46, %47, %188, %w38, %w39 : tensor<i32>, tensor<64xf32>, tensor<16xf32>, tensor<16x64xf32>, tensor<64x16xf32>, tensor<64xf32>, tensor<16xf32>, tensor<16x64xf32>, tensor<64x16xf32>, tensor<4xf32>, tensor<4x8x16xf32>, tensor<4x8x16xf32>
    }) : (tensor<i32>, tensor<64xf32>, tensor<16xf32>, tensor<16x64xf32>, tensor<64x16xf32>, tensor<64xf32>, tensor<16xf32>, tensor<16x64xf32>, tensor<64x16xf32>, tensor<4xf32>, tensor<4x8x16xf32>, tensor<4x8x16xf32>) -> (tensor<i32>, tensor<64xf32>, tensor<16xf32>, tensor<16x64xf32>, tensor<64x16xf32>, tensor<64xf32>, tensor<16xf32>, tensor<16x64xf32>, tensor<64x16xf32>, tensor<4xf32>, tensor<4x8x16xf32>, tensor<4x8x16xf32>)
    %190 = sdy.sharding_constraint %13#1 <@mesh, [{"model"}]> : tensor<64xf32>
    %191 = sdy.sharding_constraint %13#2 <@mesh, [{}]> : tensor<16xf32>
    %192 = sdy.sharding_constraint %13#3 <@mesh, [{}, {"model"}]> : tensor<16x64xf32>
    %193 = sdy.sharding_constraint %13#4 <@mesh, [{"model"}, {}]> : tensor<64x16xf32>
    %194 = sdy.sharding_constraint %13#5 <@mesh, [{"model"}]> : tensor<64xf32>
    %195 = sdy.sharding_constraint %13#6 <@mesh, [{}]> : tensor<16xf32>
    %196 = sdy.sharding_constraint %13#7 <@mesh, [{}, {"model"}]> : tensor<16x64xf32>
    %197 = sdy.sharding_constraint %13#8 <@mesh, [{"model"}, {}]> : tensor<64x16xf32>
    %198 = sdy.sharding_constraint %13#9 <@mesh, [{}]> : tensor<4xf32>
    %199 = stablehlo.constant dense<0.10000000149011612> : tensor<f32>
    %200 = stablehlo.broadcast_in_dim %199, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %201 = sdy.sharding_constraint %200 <@mesh, [{"model"}]> : tensor<64xf32>
    %202 = stablehlo.multiply %201, %190 : tensor<64xf32>
    %203 = sdy.sharding_constraint %202 <@mesh, [{"model"}]> : tensor<64xf32>
    %204 = stablehlo.constant dense<4.0> : tensor<f32>
    %205 = stablehlo.broadcast_in_dim %204, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %206 = sdy.sharding_constraint %205 <@mesh, [{"model"}]> : tensor<64xf32>
    %207 = stablehlo.divide %203, %206 : tensor<64xf32>
    %208 = sdy.sharding_constraint %207 <@mesh, [{"model"}]> : tensor<64xf32>
    %209 = stablehlo.subtract %arg0, %208 : tensor<64xf32>
    %210 = sdy.sharding_constraint %209 <@mesh, [{"model"}]> : tensor<64xf32>
    %211 = stablehlo.broadcast_in_dim %199, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %212 = sdy.sharding_constraint %211 <@mesh, [{}]> : tensor<16xf32>
    %213 = stablehlo.multiply %212, %191 : tensor<16xf32>
    %214 = sdy.sharding_constraint %213 <@mesh, [{}]> : tensor<16xf32>
    %215 = stablehlo.broadcast_in_dim %204, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %216 = sdy.sharding_constraint %215 <@mesh, [{}]> : tensor<16xf32>
    %217 = stablehlo.divide %214, %216 : tensor<16xf32>
    %218 = sdy.sharding_constraint %217 <@mesh, [{}]> : tensor<16xf32>
    %219 = stablehlo.subtract %arg1, %218 : tensor<16xf32>
    %220 = sdy.sharding_constraint %219 <@mesh, [{}]> : tensor<16xf32>
    %221 = stablehlo.broadcast_in_dim %199, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %222 = sdy.sharding_constraint %221 <@mesh, [{}, {"model"}]> : tensor<16x64xf32>
    %223 = stablehlo.multiply %222, %192 : tensor<16x64xf32>
    %224 = sdy.sharding_constraint %223 <@mesh, [{}, {"model"}]> : tensor<16x64xf32>
    %225 = stablehlo.broadcast_in_dim %204, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %226 = sdy.sharding_constraint %225 <@mesh, [{}, {"model"}]> : tensor<16x64xf32>
    %227 = stablehlo.divide %224, %226 : tensor<16x64xf32>
    %228 = sdy.sharding_constraint %227 <@mesh, [{}, {"model"}]> : tensor<16x64xf32>
    %229 = stablehlo.subtract %arg2, %228 : tensor<16x64xf32>
    %230 = sdy.sharding_constraint %229 <@mesh, [{}, {"model"}]> : tensor<16x64xf32>
    %231 = stablehlo.broadcast_in_dim %199, dims = [] : (tensor<f32>) -> tensor<64x16xf32>
    %232 = sdy.sharding_constraint %231 <@mesh, [{"model"}, {}]> : tensor<64x16xf32>
    %233 = stablehlo.multiply %232, %193 : tensor<64x16xf32>
    %234 = sdy.sharding_constraint %233 <@mesh, [{"model"}, {}]> : tensor<64x16xf32>
    %235 = stablehlo.broadcast_in_dim %204, dims = [] : (tensor<f32>) -> tensor<64x16xf32>
    %236 = sdy.sharding_constraint %235 <@mesh, [{"model"}, {}]> : tensor<64x16xf32>
    %237 = stablehlo.divide %234, %236 : tensor<64x16xf32>
    %238 = sdy.sharding_constraint %237 <@mesh, [{"model"}, {}]> : tensor<64x16xf32>
    %239 = stablehlo.subtract %arg3, %238 : tensor<64x16xf32>
    %240 = sdy.sharding_constraint %239 <@mesh, [{"model"}, {}]> : tensor<64x16xf32>
    %241 = stablehlo.constant dense<0.0> : tensor<f32>
    %242 = stablehlo.reduce(%198 init: %241) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %243 = sdy.sharding_constraint %242 <@mesh, []> : tensor<f32>
    %244 = stablehlo.divide %243, %204 : tensor<f32>
    %245 = sdy.sharding_constraint %244 <@mesh, []> : tensor<f32>
    return %210, %220, %230, %240, %245 : tensor<64xf32>, tensor<16xf32>, tensor<16x64xf32>, tensor<64x16xf32>, tensor<f32>
  }
}
