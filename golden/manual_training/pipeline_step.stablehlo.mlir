module @shardc_pipeline_step attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["X"=8]>
  func.func public @main(%arg0: tensor<64x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"X"}, {}]>}, %arg1: tensor<8x16x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"X"}, {}, {}]>}, %arg2: tensor<64x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"X"}, {}]>}) -> (tensor<8x16x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"X"}, {}, {}]>}, tensor<f32> {sdy.sharding = #sdy.sharding<@mesh, []>}) {
    %0:12 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}, {}]>] out_shardings=[<@mesh, [{"X"}, {}]>, <@mesh, [{}]>, <@mesh, [{}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>] manual_axes={"X"} (%m1: tensor<8x16xf32>, %m2: tensor<1x16x16xf32>) {
      %3 = stablehlo.constant dense<0> : tensor<i32>
      %4 = stablehlo.constant dense<0> : tensor<i32>
      %5 = stablehlo.constant dense<0> : tensor<i32>
      %6 = stablehlo.broadcast_in_dim %5, dims = [] : (tensor<i32>) -> tensor<8xi32>
      %7 = stablehlo.constant dense<0.0> : tensor<f32>
      %8 = stablehlo.broadcast_in_dim %7, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
      %9 = stablehlo.constant dense<0> : tensor<i32>
      %10 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<i32>) -> tensor<8xi32>
      %11 = stablehlo.constant dense<0.0> : tensor<f32>
      %12 = stablehlo.broadcast_in_dim %11, dims = [] : (tensor<f32>) -> tensor<8x16x16xf32>
      %13 = stablehlo.constant dense<0.0> : tensor<f32>
      %14 = stablehlo.broadcast_in_dim %13, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
      %15 = stablehlo.constant dense<0.0> : tensor<f32>
      %16 = stablehlo.broadcast_in_dim %15, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
      %17 = stablehlo.constant dense<0.0> : tensor<f32>
      %18 = stablehlo.broadcast_in_dim %17, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
      %19:11 = "stablehlo.while"(%4, %3, %m1, %m2, %6, %8, %10, %12, %14, %16, %18) ({
      ^bb0(%w20: tensor<i32>, %w21: tensor<i32>, %w22: tensor<8x16xf32>, %w23: tensor<1x16x16xf32>, %w24: tensor<8xi32>, %w25: tensor<8x8x16xf32>, %w26: tensor<8xi32>, %w27: tensor<8x16x16xf32>, %w28: tensor<8x8x16xf32>, %w29: tensor<8x8x16xf32>, %w30: tensor<8x8x16xf32>):
        %31 = stablehlo.constant dense<8> : tensor<i32>
        %32 = stablehlo.compare LT, %w20, %31 : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %32 : tensor<i1>
      }, {
      ^bb0(%w33: tensor<i32>, %w34: tensor<i32>, %w35: tensor<8x16xf32>, %w36: tensor<1x16x16xf32>, %w37: tensor<8xi32>, %w38: tensor<8x8x16xf32>, %w39: tensor<8xi32>, %w40: tensor<8x16x16xf32>, %w41: tensor<8x8x16xf32>, %w42: tensor<8x8x16xf32>, %w43: tensor<8x8x16xf32>):
        %44 = stablehlo.constant dense<0> : tensor<i32>
        %45 = stablehlo.constant dense<1> : tensor<i32>
        %46 = stablehlo.constant dense<1> : tensor<i32>
        %47 = stablehlo.add %w34, %46 : tensor<i32>
        %48 = stablehlo.reshape %w36 : (tensor<1x16x16xf32>) -> tensor<16x16xf32>
        %49 = stablehlo.dot_general %w35, %48, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
        %50 = stablehlo.tanh %49 : tensor<8x16xf32>
        %51 = "stablehlo.collective_permute"(%50) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7], [7, 0]]> : tensor<8x2xi64>}> : (tensor<8x16xf32>) -> tensor<8x16xf32>
        %52 = stablehlo.reshape %w34 : (tensor<i32>) -> tensor<1xi32>
        %53 = stablehlo.dynamic_update_slice %w37, %52, %w33 : (tensor<8xi32>, tensor<1xi32>, tensor<i32>) -> tensor<8xi32>
        %54 = stablehlo.reshape %w35 : (tensor<8x16xf32>) -> tensor<1x8x16xf32>
        %55 = stablehlo.dynamic_update_slice %w38, %54, %w33, %44, %44 : (tensor<8x8x16xf32>, tensor<1x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<8x8x16xf32>
        %56 = stablehlo.reshape %47 : (tensor<i32>) -> tensor<1xi32>
        %57 = stablehlo.dynamic_update_slice %w39, %56, %w33 : (tensor<8xi32>, tensor<1xi32>, tensor<i32>) -> tensor<8xi32>
        %58 = stablehlo.reshape %48 : (tensor<16x16xf32>) -> tensor<1x16x16xf32>
        %59 = stablehlo.dynamic_update_slice %w40, %58, %w33, %44, %44 : (tensor<8x16x16xf32>, tensor<1x16x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<8x16x16xf32>
        %60 = stablehlo.reshape %49 : (tensor<8x16xf32>) -> tensor<1x8x16xf32>
        %61 = stablehlo.dynamic_update_slice %w41, %60, %w33, %44, %44 : (tensor<8x8x16xf32>, tensor<1x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<8x8x16xf32>
        %62 = stablehlo.reshape %50 : (tensor<8x16xf32>) -> tensor<1x8x16xf32>
        %63 = stablehlo.dynamic_update_slice %w42, %62, %w33, %44, %44 : (tensor<8x8x16xf32>, tensor<1x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<8x8x16xf32>
        %64 = stablehlo.reshape %51 : (tensor<8x16xf32>) -> tensor<1x8x16xf32>
        %65 = stablehlo.dynamic_update_slice %w43, %64, %w33, %44, %44 : (tensor<8x8x16xf32>, tensor<1x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<8x8x16xf32>
        %66 = stablehlo.add %w33, %45 : tensor<i32>
        stablehlo.return %66, %47, %51, %w36, %53, %55, %57, %59, %61, %63, %65 : tensor<i32>, tensor<i32>, tensor<8x16xf32>, tensor<1x16x16xf32>, tensor<8xi32>, tensor<8x8x16xf32>, tensor<8xi32>, tensor<8x16x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>
      }) : (tensor<i32>, tensor<i32>, tensor<8x16xf32>, tensor<1x16x16xf32>, tensor<8xi32>, tensor<8x8x16xf32>, tensor<8xi32>, tensor<8x16x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>) -> (tensor<i32>, tensor<i32>, tensor<8x16xf32>, tensor<1x16x16xf32>, tensor<8xi32>, tensor<8x8x16xf32>, tensor<8xi32>, tensor<8x16x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>)
      %67 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<i32>) -> tensor<1xi32>
      %68 = stablehlo.broadcast_in_dim %19#1, dims = [] : (tensor<i32>) -> tensor<1xi32>
      %69 = stablehlo.broadcast_in_dim %19#2, dims = [1, 2] : (tensor<8x16xf32>) -> tensor<1x8x16xf32>
      %70 = stablehlo.broadcast_in_dim %19#3, dims = [1, 2, 3] : (tensor<1x16x16xf32>) -> tensor<1x1x16x16xf32>
      %71 = stablehlo.broadcast_in_dim %19#4, dims = [1] : (tensor<8xi32>) -> tensor<1x8xi32>
      %72 = stablehlo.broadcast_in_dim %19#5, dims = [1, 2, 3] : (tensor<8x8x16xf32>) -> tensor<1x8x8x16xf32>
      %73 = stablehlo.broadcast_in_dim %19#6, dims = [1] : (tensor<8xi32>) -> tensor<1x8xi32>
      %74 = stablehlo.broadcast_in_dim %19#7, dims = [1, 2, 3] : (tensor<8x16x16xf32>) -> tensor<1x8x16x16xf32>
      %75 = stablehlo.broadcast_in_dim %19#8, dims = [1, 2, 3] : (tensor<8x8x16xf32>) -> tensor<1x8x8x16xf32>
      %76 = stablehlo.broadcast_in_dim %19#9, dims = [1, 2, 3] : (tensor<8x8x16xf32>) -> tensor<1x8x8x16xf32>
      %77 = stablehlo.broadcast_in_dim %19#10, dims = [1, 2, 3] : (tensor<8x8x16xf32>) -> tensor<1x8x8x16xf32>
      sdy.return %19#2, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77 : tensor<8x16xf32>, tensor<1xi32>, tensor<1xi32>, tensor<1x8x16xf32>, tensor<1x1x16x16xf32>, tensor<1x8xi32>, tensor<1x8x8x16xf32>, tensor<1x8xi32>, tensor<1x8x16x16xf32>, tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>
    } : (tensor<64x16xf32>, tensor<8x16x16xf32>) -> (tensor<64x16xf32>, tensor<1xi32>, tensor<1xi32>, tensor<8x8x16xf32>, tensor<8x1x16x16xf32>, tensor<1x8xi32>, tensor<8x8x8x16xf32>, tensor<1x8xi32>, tensor<8x8x16x16xf32>, tensor<8x8x8x16xf32>, tensor<8x8x8x16xf32>, tensor<8x8x8x16xf32>)
    %78 = stablehlo.subtract %0#0, %arg2 : tensor<64x16xf32>
    %79 = sdy.sharding_constraint %78 <@mesh, [{"X"}, {}]> : tensor<64x16xf32>
    %80 = stablehlo.multiply %79, %79 : tensor<64x16xf32>
    %81 = sdy.sharding_constraint %80 <@mesh, [{"X"}, {}]> : tensor<64x16xf32>
    %82 = stablehlo.constant dense<0.0> : tensor<f32>
    %83 = stablehlo.reduce(%81 init: %82) applies stablehlo.add across dimensions = [0, 1] : (tensor<64x16xf32>, tensor<f32>) -> tensor<f32>
    %84 = sdy.sharding_constraint %83 <@mesh, []> : tensor<f32>
    %85 = stablehlo.constant dense<1024.0> : tensor<f32>
    %86 = stablehlo.divide %84, %85 : tensor<f32>
    %87 = sdy.sharding_constraint %86 <@mesh, []> : tensor<f32>
    %88 = stablehlo.constant dense<1.0> : tensor<f32>
    %89 = sdy.sharding_constraint %88 <@mesh, []> : tensor<f32>
    %90 = stablehlo.divide %89, %85 : tensor<f32>
    %91 = sdy.sharding_constraint %90 <@mesh, []> : tensor<f32>
    %92 = stablehlo.broadcast_in_dim %91, dims = [] : (tensor<f32>) -> tensor<64x16xf32>
    %93 = sdy.sharding_constraint %92 <@mesh, [{"X"}, {}]> : tensor<64x16xf32>
    %94 = stablehlo.constant dense<2.0> : tensor<f32>
    %95 = stablehlo.broadcast_in_dim %94, dims = [] : (tensor<f32>) -> tensor<64x16xf32>
    %96 = sdy.sharding_constraint %95 <@mesh, [{"X"}, {}]> : tensor<64x16xf32>
    %97 = stablehlo.multiply %79, %96 : tensor<64x16xf32>
    %98 = sdy.sharding_constraint %97 <@mesh, [{"X"}, {}]> : tensor<64x16xf32>
    %99 = stablehlo.multiply %93, %98 : tensor<64x16xf32>
    %100 = sdy.sharding_constraint %99 <@mesh, [{"X"}, {}]> : tensor<64x16xf32>
    %101 = stablehlo.negate %100 : tensor<64x16xf32>
    %102 = sdy.sharding_constraint %101 <@mesh, [{"X"}, {}]> : tensor<64x16xf32>
    %103 = stablehlo.constant dense<0> : tensor<i32>
    %104 = stablehlo.broadcast_in_dim %103, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %105 = sdy.sharding_constraint %104 <@mesh, [{}]> : tensor<1xi32>
    %106 = stablehlo.broadcast_in_dim %103, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %107 = sdy.sharding_constraint %106 <@mesh, [{}]> : tensor<1xi32>
    %108 = stablehlo.constant dense<0.0> : tensor<f32>
    %109 = stablehlo.broadcast_in_dim %108, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
    %110 = sdy.sharding_constraint %109 <@mesh, [{"X"}, {}, {}]> : tensor<8x8x16xf32>
    %111 = stablehlo.broadcast_in_dim %108, dims = [] : (tensor<f32>) -> tensor<8x1x16x16xf32>
    %112 = sdy.sharding_constraint %111 <@mesh, [{"X"}, {}, {}, {}]> : tensor<8x1x16x16xf32>
    %113 = stablehlo.broadcast_in_dim %103, dims = [] : (tensor<i32>) -> tensor<1x8xi32>
    %114 = sdy.sharding_constraint %113 <@mesh, [{}, {}]> : tensor<1x8xi32>
    %115 = stablehlo.broadcast_in_dim %108, dims = [] : (tensor<f32>) -> tensor<8x8x8x16xf32>
    %116 = sdy.sharding_constraint %115 <@mesh, [{"X"}, {}, {}, {}]> : tensor<8x8x8x16xf32>
    %117 = stablehlo.broadcast_in_dim %103, dims = [] : (tensor<i32>) -> tensor<1x8xi32>
    %118 = sdy.sharding_constraint %117 <@mesh, [{}, {}]> : tensor<1x8xi32>
    %119 = stablehlo.broadcast_in_dim %108, dims = [] : (tensor<f32>) -> tensor<8x8x16x16xf32>
    %120 = sdy.sharding_constraint %119 <@mesh, [{"X"}, {}, {}, {}]> : tensor<8x8x16x16xf32>
    %121 = stablehlo.broadcast_in_dim %108, dims = [] : (tensor<f32>) -> tensor<8x8x8x16xf32>
    %122 = sdy.sharding_constraint %121 <@mesh, [{"X"}, {}, {}, {}]> : tensor<8x8x8x16xf32>
    %123 = stablehlo.broadcast_in_dim %108, dims = [] : (tensor<f32>) -> tensor<8x8x8x16xf32>
    %124 = sdy.sharding_constraint %123 <@mesh, [{"X"}, {}, {}, {}]> : tensor<8x8x8x16xf32>
    %125 = stablehlo.broadcast_in_dim %108, dims = [] : (tensor<f32>) -> tensor<8x8x8x16xf32>
    %126 = sdy.sharding_constraint %125 <@mesh, [{"X"}, {}, {}, {}]> : tensor<8x8x8x16xf32>
    %127:2 = sdy.manual_computation(%arg0, %arg1, %100, %0#1, %0#2, %0#3, %0#4, %0#5, %0#6, %0#7, %0#8, %0#9, %0#10, %0#11) in_shardings=[<@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{}]>, <@mesh, [{}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>] out_shardings=[<@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}, {}]>] manual_axes={"X"} (%m128: tensor<8x16xf32>, %m129: tensor<1x16x16xf32>, %m130: tensor<8x16xf32>, %m131: tensor<1xi32>, %m132: tensor<1xi32>, %m133: tensor<1x8x16xf32>, %m134: tensor<1x1x16x16xf32>, %m135: tensor<1x8xi32>, %m136: tensor<1x8x8x16xf32>, %m137: tensor<1x8xi32>, %m138: tensor<1x8x16x16xf32>, %m139: tensor<1x8x8x16xf32>, %m140: tensor<1x8x8x16xf32>, %m141: tensor<1x8x8x16xf32>) {
      %142 = stablehlo.reshape %m131 : (tensor<1xi32>) -> tensor<i32>
      %143 = stablehlo.reshape %m132 : (tensor<1xi32>) -> tensor<i32>
      %144 = stablehlo.reshape %m133 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
      %145 = stablehlo.reshape %m134 : (tensor<1x1x16x16xf32>) -> tensor<1x16x16xf32>
      %146 = stablehlo.reshape %m135 : (tensor<1x8xi32>) -> tensor<8xi32>
      %147 = stablehlo.reshape %m136 : (tensor<1x8x8x16xf32>) -> tensor<8x8x16xf32>
      %148 = stablehlo.reshape %m137 : (tensor<1x8xi32>) -> tensor<8xi32>
      %149 = stablehlo.reshape %m138 : (tensor<1x8x16x16xf32>) -> tensor<8x16x16xf32>
      %150 = stablehlo.reshape %m139 : (tensor<1x8x8x16xf32>) -> tensor<8x8x16xf32>
      %151 = stablehlo.reshape %m140 : (tensor<1x8x8x16xf32>) -> tensor<8x8x16xf32>
      %152 = stablehlo.reshape %m141 : (tensor<1x8x8x16xf32>) -> tensor<8x8x16xf32>
      %153 = stablehlo.constant dense<0> : tensor<i32>
      %154 = stablehlo.constant dense<0.0> : tensor<f32>
      %155 = stablehlo.broadcast_in_dim %154, dims = [] : (tensor<f32>) -> tensor<1x16x16xf32>
      %156 = stablehlo.broadcast_in_dim %153, dims = [] : (tensor<i32>) -> tensor<8xi32>
      %157 = stablehlo.broadcast_in_dim %154, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
      %158 = stablehlo.broadcast_in_dim %153, dims = [] : (tensor<i32>) -> tensor<8xi32>
      %159 = stablehlo.broadcast_in_dim %154, dims = [] : (tensor<f32>) -> tensor<8x16x16xf32>
      %160 = stablehlo.broadcast_in_dim %154, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
      %161 = stablehlo.broadcast_in_dim %154, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
      %162 = stablehlo.broadcast_in_dim %154, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
      %163 = stablehlo.constant dense<0> : tensor<i32>
      %164:12 = "stablehlo.while"(%163, %153, %m130, %155, %m129, %146, %147, %148, %149, %150, %151, %152) ({
      ^bb0(%w165: tensor<i32>, %w166: tensor<i32>, %w167: tensor<8x16xf32>, %w168: tensor<1x16x16xf32>, %w169: tensor<1x16x16xf32>, %w170: tensor<8xi32>, %w171: tensor<8x8x16xf32>, %w172: tensor<8xi32>, %w173: tensor<8x16x16xf32>, %w174: tensor<8x8x16xf32>, %w175: tensor<8x8x16xf32>, %w176: tensor<8x8x16xf32>):
        %177 = stablehlo.constant dense<8> : tensor<i32>
        %178 = stablehlo.compare LT, %w165, %177 : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %178 : tensor<i1>
      }, {
      ^bb0(%w179: tensor<i32>, %w180: tensor<i32>, %w181: tensor<8x16xf32>, %w182: tensor<1x16x16xf32>, %w183: tensor<1x16x16xf32>, %w184: tensor<8xi32>, %w185: tensor<8x8x16xf32>, %w186: tensor<8xi32>, %w187: tensor<8x16x16xf32>, %w188: tensor<8x8x16xf32>, %w189: tensor<8x8x16xf32>, %w190: tensor<8x8x16xf32>):
        %191 = stablehlo.constant dense<0> : tensor<i32>
        %192 = stablehlo.constant dense<1> : tensor<i32>
        %193 = stablehlo.constant dense<7> : tensor<i32>
        %194 = stablehlo.subtract %193, %w179 : tensor<i32>
        %195 = stablehlo.dynamic_slice %w184, %194, sizes = [1] : (tensor<8xi32>, tensor<i32>) -> tensor<1xi32>
        %196 = stablehlo.reshape %195 : (tensor<1xi32>) -> tensor<i32>
        %197 = stablehlo.dynamic_slice %w185, %194, %191, %191, sizes = [1, 8, 16] : (tensor<8x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16xf32>
        %198 = stablehlo.reshape %197 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
        %199 = stablehlo.dynamic_slice %w186, %194, sizes = [1] : (tensor<8xi32>, tensor<i32>) -> tensor<1xi32>
        %200 = stablehlo.reshape %199 : (tensor<1xi32>) -> tensor<i32>
        %201 = stablehlo.dynamic_slice %w187, %194, %191, %191, sizes = [1, 16, 16] : (tensor<8x16x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x16x16xf32>
        %202 = stablehlo.reshape %201 : (tensor<1x16x16xf32>) -> tensor<16x16xf32>
        %203 = stablehlo.dynamic_slice %w188, %194, %191, %191, sizes = [1, 8, 16] : (tensor<8x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16xf32>
        %204 = stablehlo.reshape %203 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
        %205 = stablehlo.dynamic_slice %w189, %194, %191, %191, sizes = [1, 8, 16] : (tensor<8x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16xf32>
        %206 = stablehlo.reshape %205 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
        %207 = stablehlo.dynamic_slice %w190, %194, %191, %191, sizes = [1, 8, 16] : (tensor<8x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16xf32>
        %208 = stablehlo.reshape %207 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
        %209 = "stablehlo.collective_permute"(%w181) <{channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, source_target_pairs = dense<[[1, 0], [2, 1], [3, 2], [4, 3], [5, 4], [6, 5], [7, 6], [0, 7]]> : tensor<8x2xi64>}> : (tensor<8x16xf32>) -> tensor<8x16xf32>
        %210 = stablehlo.multiply %206, %206 : tensor<8x16xf32>
        %211 = stablehlo.constant dense<1.0> : tensor<f32>
        %212 = stablehlo.broadcast_in_dim %211, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
        %213 = stablehlo.subtract %212, %210 : tensor<8x16xf32>
        %214 = stablehlo.multiply %209, %213 : tensor<8x16xf32>
        %215 = stablehlo.dot_general %214, %202, contracting_dims = [1] x [1] : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
        %216 = stablehlo.dot_general %214, %198, contracting_dims = [0] x [0] : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<16x16xf32>
        %217 = stablehlo.transpose %216, dims = [1, 0] : (tensor<16x16xf32>) -> tensor<16x16xf32>
        %218 = stablehlo.broadcast_in_dim %217, dims = [1, 2] : (tensor<16x16xf32>) -> tensor<1x16x16xf32>
        %219 = stablehlo.add %w182, %218 : tensor<1x16x16xf32>
        %220 = stablehlo.constant dense<0> : tensor<i32>
        %221 = stablehlo.add %w179, %192 : tensor<i32>
        stablehlo.return %221, %220, %215, %219, %w183, %w184, %w185, %w186, %w187, %w188, %w189, %w190 : tensor<i32>, tensor<i32>, tensor<8x16xf32>, tensor<1x16x16xf32>, tensor<1x16x16xf32>, tensor<8xi32>, tensor<8x8x16xf32>, tensor<8xi32>, tensor<8x16x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>
      }) : (tensor<i32>, tensor<i32>, tensor<8x16xf32>, tensor<1x16x16xf32>, tensor<1x16x16xf32>, tensor<8xi32>, tensor<8x8x16xf32>, tensor<8xi32>, tensor<8x16x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>) -> (tensor<i32>, tensor<i32>, tensor<8x16xf32>, tensor<1x16x16xf32>, tensor<1x16x16xf32>, tensor<8xi32>, tensor<8x8x16xf32>, tensor<8xi32>, tensor<8x16x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>)
      sdy.return %164#2, %164#3 : tensor<8x16xf32>, tensor<1x16x16xf32>
    } : (tensor<64x16xf32>, tensor<8x16x16xf32>, tensor<64x16xf32>, tensor<1xi32>, tensor<1xi32>, tensor<8x8x16xf32>, tensor<8x1x16x16xf32>, tensor<1x8xi32>, tensor<8x8x8x16xf32>, tensor<1x8xi32>, tensor<8x8x16x16xf32>, tensor<8x8x8x16xf32>, tensor<8x8x8x16xf32>, tensor<8x8x8x16xf32>) -> (tensor<64x16xf32>, tensor<8x16x16xf32>)
    %222 = stablehlo.constant dense<0.5> : tensor<f32>
    %223 = stablehlo.broadcast_in_dim %222, dims = [] : (tensor<f32>) -> tensor<8x16x16xf32>
    %224 = sdy.sharding_constraint %223 <@mesh, [{"X"}, {}, {}]> : tensor<8x16x16xf32>
    %225 = stablehlo.multiply %224, %127#1 : tensor<8x16x16xf32>
    %226 = sdy.sharding_constraint %225 <@mesh, [{"X"}, {}, {}]> : tensor<8x16x16xf32>
    %227 = stablehlo.subtract %arg1, %226 : tensor<8x16x16xf32>
    %228 = sdy.sharding_constraint %227 <@mesh, [{"X"}, {}, {}]> : tensor<8x16x16xf32>
    return %228, %87 : tensor<8x16x16xf32>, tensor<f32>
  }
}
