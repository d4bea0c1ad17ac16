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
    %103:2 = sdy.manual_computation(%arg0, %arg1, %100, %0#1, %0#2, %0#3, %0#4, %0#5, %0#6, %0#7, %0#8, %0#9, %0#10, %0#11) in_shardings=[<@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{}]>, <@mesh, [{}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>] out_shardings=[<@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}, {}]>] manual_axes={"X"} (%m104: tensor<8x16xf32>, %m105: tensor<1x16x16xf32>, %m106: tensor<8x16xf32>, %m107: tensor<1xi32>, %m108: tensor<1xi32>, %m109: tensor<1x8x16xf32>, %m110: tensor<1x1x16x16xf32>, %m111: tensor<1x8xi32>, %m112: tensor<1x8x8x16xf32>, %m113: tensor<1x8xi32>, %m114: tensor<1x8x16x16xf32>, %m115: tensor<1x8x8x16xf32>, %m116: tensor<1x8x8x16xf32>, %m117: tensor<1x8x8x16xf32>) {
      %118 = stablehlo.reshape %m107 : (tensor<1xi32>) -> tensor<i32>
      %119 = stablehlo.reshape %m108 : (tensor<1xi32>) -> tensor<i32>
      %120 = stablehlo.reshape %m109 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
      %121 = stablehlo.reshape %m110 : (tensor<1x1x16x16xf32>) -> tensor<1x16x16xf32>
      %122 = stablehlo.reshape %m111 : (tensor<1x8xi32>) -> tensor<8xi32>
      %123 = stablehlo.reshape %m112 : (tensor<1x8x8x16xf32>) -> tensor<8x8x16xf32>
      %124 = stablehlo.reshape %m113 : (tensor<1x8xi32>) -> tensor<8xi32>
      %125 = stablehlo.reshape %m114 : (tensor<1x8x16x16xf32>) -> tensor<8x16x16xf32>
      %126 = stablehlo.reshape %m115 : (tensor<1x8x8x16xf32>) -> tensor<8x8x16xf32>
      %127 = stablehlo.reshape %m116 : (tensor<1x8x8x16xf32>) -> tensor<8x8x16xf32>
      %128 = stablehlo.reshape %m117 : (tensor<1x8x8x16xf32>) -> tensor<8x8x16xf32>
      %129 = stablehlo.constant dense<0> : tensor<i32>
      %130 = stablehlo.constant dense<0.0> : tensor<f32>
      %131 = stablehlo.broadcast_in_dim %130, dims = [] : (tensor<f32>) -> tensor<1x16x16xf32>
      %132 = stablehlo.broadcast_in_dim %129, dims = [] : (tensor<i32>) -> tensor<8xi32>
      %133 = stablehlo.broadcast_in_dim %130, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
      %134 = stablehlo.broadcast_in_dim %129, dims = [] : (tensor<i32>) -> tensor<8xi32>
      %135 = stablehlo.broadcast_in_dim %130, dims = [] : (tensor<f32>) -> tensor<8x16x16xf32>
      %136 = stablehlo.broadcast_in_dim %130, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
      %137 = stablehlo.broadcast_in_dim %130, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
      %138 = stablehlo.broadcast_in_dim %130, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
      %139 = stablehlo.constant dense<0> : tensor<i32>
      %140:12 = "stablehlo.while"(%139, %129, %m106, %131, %m105, %122, %123, %124, %125, %126, %127, %128) ({
      ^bb0(%w141: tensor<i32>, %w142: tensor<i32>, %w143: tensor<8x16xf32>, %w144: tensor<1x16x16xf32>, %w145: tensor<1x16x16xf32>, %w146: tensor<8xi32>, %w147: tensor<8x8x16xf32>, %w148: tensor<8xi32>, %w149: tensor<8x16x16xf32>, %w150: tensor<8x8x16xf32>, %w151: tensor<8x8x16xf32>, %w152: tensor<8x8x16xf32>):
        %153 = stablehlo.constant dense<8> : tensor<i32>
        %154 = stablehlo.compare LT, %w141, %153 : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %154 : tensor<i1>
      }, {
      ^bb0(%w155: tensor<i32>, %w156: tensor<i32>, %w157: tensor<8x16xf32>, %w158: tensor<1x16x16xf32>, %w159: tensor<1x16x16xf32>, %w160: tensor<8xi32>, %w161: tensor<8x8x16xf32>, %w162: tensor<8xi32>, %w163: tensor<8x16x16xf32>, %w164: tensor<8x8x16xf32>, %w165: tensor<8x8x16xf32>, %w166: tensor<8x8x16xf32>):
        %167 = stablehlo.constant dense<0> : tensor<i32>
        %168 = stablehlo.constant dense<1> : tensor<i32>
        %169 = stablehlo.constant dense<7> : tensor<i32>
        %170 = stablehlo.subtract %169, %w155 : tensor<i32>
        %171 = stablehlo.dynamic_slice %w160, %170, sizes = [1] : (tensor<8xi32>, tensor<i32>) -> tensor<1xi32>
        %172 = stablehlo.reshape %171 : (tensor<1xi32>) -> tensor<i32>
        %173 = stablehlo.dynamic_slice %w161, %170, %167, %167, sizes = [1, 8, 16] : (tensor<8x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16xf32>
        %174 = stablehlo.reshape %173 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
        %175 = stablehlo.dynamic_slice %w162, %170, sizes = [1] : (tensor<8xi32>, tensor<i32>) -> tensor<1xi32>
        %176 = stablehlo.reshape %175 : (tensor<1xi32>) -> tensor<i32>
        %177 = stablehlo.dynamic_slice %w163, %170, %167, %167, sizes = [1, 16, 16] : (tensor<8x16x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x16x16xf32>
        %178 = stablehlo.reshape %177 : (tensor<1x16x16xf32>) -> tensor<16x16xf32>
        %179 = stablehlo.dynamic_slice %w164, %170, %167, %167, sizes = [1, 8, 16] : (tensor<8x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16xf32>
        %180 = stablehlo.reshape %179 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
        %181 = stablehlo.dynamic_slice %w165, %170, %167, %167, sizes = [1, 8, 16] : (tensor<8x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16xf32>
        %182 = stablehlo.reshape %181 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
        %183 = stablehlo.dynamic_slice %w166, %170, %167, %167, sizes = [1, 8, 16] : (tensor<8x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16xf32>
        %184 = stablehlo.reshape %183 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
        %185 = "stablehlo.collective_permute"(%w157) <{channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, source_target_pairs = dense<[[1, 0], [2, 1], [3, 2], [4, 3], [5, 4], [6, 5], [7, 6], [0, 7]]> : tensor<8x2xi64>}> : (tensor<8x16xf32>) -> tensor<8x16xf32>
        %186 = stablehlo.multiply %182, %182 : tensor<8x16xf32>
        %187 = stablehlo.constant dense<1.0> : tensor<f32>
        %188 = stablehlo.broadcast_in_dim %187, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
        %189 = stablehlo.subtract %188, %186 : tensor<8x16xf32>
        %190 = stablehlo.multiply %185, %189 : tensor<8x16xf32>
        %191 = stablehlo.dot_general %190, %178, contracting_dims = [1] x [1] : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
        %192 = stablehlo.dot_general %190, %174, contracting_dims = [0] x [0] : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<16x16xf32>
        %193 = stablehlo.transpose %192, dims = [1, 0] : (tensor<16x16xf32>) -> tensor<16x16xf32>
        %194 = stablehlo.broadcast_in_dim %193, dims = [1, 2] : (tensor<16x16xf32>) -> tensor<1x16x16xf32>
        %195 = stablehlo.add %w158, %194 : tensor<1x16x16xf32>
        %196 = stablehlo.constant dense<0> : tensor<i32>
        %197 = stablehlo.add %w155, %168 : tensor<i32>
        stablehlo.return %197, %196, %191, %195, %w159, %w160, %w161, %w162, %w163, %w164, %w165, %w166 : tensor<i32>, tensor<i32>, tensor<8x16xf32>, tensor<1x16x16xf32>, tensor<1x16x16xf32>, tensor<8xi32>, tensor<8x8x16xf32>, tensor<8xi32>, tensor<8x16x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>
      }) : (tensor<i32>, tensor<i32>, tensor<8x16xf32>, tensor<1x16x16xf32>, tensor<1x16x16xf32>, tensor<8xi32>, tensor<8x8x16xf32>, tensor<8xi32>, tensor<8x16x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>) -> (tensor<i32>, tensor<i32>, tensor<8x16xf32>, tensor<1x16x16xf32>, tensor<1x16x16xf32>, tensor<8xi32>, tensor<8x8x16xf32>, tensor<8xi32>, tensor<8x16x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>)
      sdy.return %140#2, %140#3 : tensor<8x16xf32>, tensor<1x16x16xf32>
    } : (tensor<64x16xf32>, tensor<8x16x16xf32>, tensor<64x16xf32>, tensor<1xi32>, tensor<1xi32>, tensor<8x8x16xf32>, tensor<8x1x16x16xf32>, tensor<1x8xi32>, tensor<8x8x8x16xf32>, tensor<1x8xi32>, tensor<8x8x16x16xf32>, tensor<8x8x8x16xf32>, tensor<8x8x8x16xf32>, tensor<8x8x8x16xf32>) -> (tensor<64x16xf32>, tensor<8x16x16xf32>)
    %198 = stablehlo.constant dense<0.5> : tensor<f32>
    %199 = stablehlo.broadcast_in_dim %198, dims = [] : (tensor<f32>) -> tensor<8x16x16xf32>
    %200 = sdy.sharding_constraint %199 <@mesh, [{"X"}, {}, {}]> : tensor<8x16x16xf32>
    %201 = stablehlo.multiply %200, %103#1 : tensor<8x16x16xf32>
    %202 = sdy.sharding_constraint %201 <@mesh, [{"X"}, {}, {}]> : tensor<8x16x16xf32>
    %203 = stablehlo.subtract %arg1, %202 : tensor<8x16x16xf32>
    %204 = sdy.sharding_constraint %203 <@mesh, [{"X"}, {}, {}]> : tensor<8x16x16xf32>
    return %204, %87 : tensor<8x16x16xf32>, tensor<f32>
  }
}
