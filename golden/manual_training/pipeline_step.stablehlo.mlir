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
    %101:2 = sdy.manual_computation(%arg0, %arg1, %100, %0#1, %0#2, %0#3, %0#4, %0#5, %0#6, %0#7, %0#8, %0#9, %0#10, %0#11) in_shardings=[<@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{}]>, <@mesh, [{}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>] out_shardings=[<@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}, {}]>] manual_axes={"X"} (%m102: tensor<8x16xf32>, %m103: tensor<1x16x16xf32>, %m104: tensor<8x16xf32>, %m105: tensor<1xi32>, %m106: tensor<1xi32>, %m107: tensor<1x8x16xf32>, %m108: tensor<1x1x16x16xf32>, %m109: tensor<1x8xi32>, %m110: tensor<1x8x8x16xf32>, %m111: tensor<1x8xi32>, %m112: tensor<1x8x16x16xf32>, %m113: tensor<1x8x8x16xf32>, %m114: tensor<1x8x8x16xf32>, %m115: tensor<1x8x8x16xf32>) {
      %116 = stablehlo.reshape %m109 : (tensor<1x8xi32>) -> tensor<8xi32>
      %117 = stablehlo.reshape %m110 : (tensor<1x8x8x16xf32>) -> tensor<8x8x16xf32>
      %118 = stablehlo.reshape %m111 : (tensor<1x8xi32>) -> tensor<8xi32>
      %119 = stablehlo.reshape %m112 : (tensor<1x8x16x16xf32>) -> tensor<8x16x16xf32>
      %120 = stablehlo.reshape %m113 : (tensor<1x8x8x16xf32>) -> tensor<8x8x16xf32>
      %121 = stablehlo.reshape %m114 : (tensor<1x8x8x16xf32>) -> tensor<8x8x16xf32>
      %122 = stablehlo.reshape %m115 : (tensor<1x8x8x16xf32>) -> tensor<8x8x16xf32>
      %123 = stablehlo.constant dense<0> : tensor<i32>
      %124 = stablehlo.constant dense<0.0> : tensor<f32>
      %125 = stablehlo.broadcast_in_dim %124, dims = [] : (tensor<f32>) -> tensor<1x16x16xf32>
      %126 = stablehlo.constant dense<0> : tensor<i32>
      %127:12 = "stablehlo.while"(%126, %123, %m104, %125, %m103, %116, %117, %118, %119, %120, %121, %122) ({
      ^bb0(%w128: tensor<i32>, %w129: tensor<i32>, %w130: tensor<8x16xf32>, %w131: tensor<1x16x16xf32>, %w132: tensor<1x16x16xf32>, %w133: tensor<8xi32>, %w134: tensor<8x8x16xf32>, %w135: tensor<8xi32>, %w136: tensor<8x16x16xf32>, %w137: tensor<8x8x16xf32>, %w138: tensor<8x8x16xf32>, %w139: tensor<8x8x16xf32>):
        %140 = stablehlo.constant dense<8> : tensor<i32>
        %141 = stablehlo.compare LT, %w128, %140 : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %141 : tensor<i1>
      }, {
      ^bb0(%w142: tensor<i32>, %w143: tensor<i32>, %w144: tensor<8x16xf32>, %w145: tensor<1x16x16xf32>, %w146: tensor<1x16x16xf32>, %w147: tensor<8xi32>, %w148: tensor<8x8x16xf32>, %w149: tensor<8xi32>, %w150: tensor<8x16x16xf32>, %w151: tensor<8x8x16xf32>, %w152: tensor<8x8x16xf32>, %w153: tensor<8x8x16xf32>):
        %154 = stablehlo.constant dense<0> : tensor<i32>
        %155 = stablehlo.constant dense<1> : tensor<i32>
        %156 = stablehlo.constant dense<7> : tensor<i32>
        %157 = stablehlo.subtract %156, %w142 : tensor<i32>
        %158 = stablehlo.dynamic_slice %w147, %157, sizes = [1] : (tensor<8xi32>, tensor<i32>) -> tensor<1xi32>
        %159 = stablehlo.reshape %158 : (tensor<1xi32>) -> tensor<i32>
        %160 = stablehlo.dynamic_slice %w148, %157, %154, %154, sizes = [1, 8, 16] : (tensor<8x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16xf32>
        %161 = stablehlo.reshape %160 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
        %162 = stablehlo.dynamic_slice %w149, %157, sizes = [1] : (tensor<8xi32>, tensor<i32>) -> tensor<1xi32>
        %163 = stablehlo.reshape %162 : (tensor<1xi32>) -> tensor<i32>
        %164 = stablehlo.dynamic_slice %w150, %157, %154, %154, sizes = [1, 16, 16] : (tensor<8x16x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x16x16xf32>
        %165 = stablehlo.reshape %164 : (tensor<1x16x16xf32>) -> tensor<16x16xf32>
        %166 = stablehlo.dynamic_slice %w151, %157, %154, %154, sizes = [1, 8, 16] : (tensor<8x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16xf32>
        %167 = stablehlo.reshape %166 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
        %168 = stablehlo.dynamic_slice %w152, %157, %154, %154, sizes = [1, 8, 16] : (tensor<8x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16xf32>
        %169 = stablehlo.reshape %168 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
        %170 = stablehlo.dynamic_slice %w153, %157, %154, %154, sizes = [1, 8, 16] : (tensor<8x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16xf32>
        %171 = stablehlo.reshape %170 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
        %172 = "stablehlo.collective_permute"(%w144) <{channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, source_target_pairs = dense<[[1, 0], [2, 1], [3, 2], [4, 3], [5, 4], [6, 5], [7, 6], [0, 7]]> : tensor<8x2xi64>}> : (tensor<8x16xf32>) -> tensor<8x16xf32>
        %173 = stablehlo.multiply %169, %169 : tensor<8x16xf32>
        %174 = stablehlo.constant dense<1.0> : tensor<f32>
        %175 = stablehlo.broadcast_in_dim %174, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
        %176 = stablehlo.subtract %175, %173 : tensor<8x16xf32>
        %177 = stablehlo.multiply %172, %176 : tensor<8x16xf32>
        %178 = stablehlo.dot_general %177, %165, contracting_dims = [1] x [1] : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
        %179 = stablehlo.dot_general %177, %161, contracting_dims = [0] x [0] : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<16x16xf32>
        %180 = stablehlo.transpose %179, dims = [1, 0] : (tensor<16x16xf32>) -> tensor<16x16xf32>
        %181 = stablehlo.broadcast_in_dim %180, dims = [1, 2] : (tensor<16x16xf32>) -> tensor<1x16x16xf32>
        %182 = stablehlo.add %w145, %181 : tensor<1x16x16xf32>
        %183 = stablehlo.constant dense<0> : tensor<i32>
        %184 = stablehlo.add %w142, %155 : tensor<i32>
        stablehlo.return %184, %183, %178, %182, %w146, %w147, %w148, %w149, %w150, %w151, %w152, %w153 : tensor<i32>, tensor<i32>, tensor<8x16xf32>, tensor<1x16x16xf32>, tensor<1x16x16xf32>, tensor<8xi32>, tensor<8x8x16xf32>, tensor<8xi32>, tensor<8x16x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>
      }) : (tensor<i32>, tensor<i32>, tensor<8x16xf32>, tensor<1x16x16xf32>, tensor<1x16x16xf32>, tensor<8xi32>, tensor<8x8x16xf32>, tensor<8xi32>, tensor<8x16x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>) -> (tensor<i32>, tensor<i32>, tensor<8x16xf32>, tensor<1x16x16xf32>, tensor<1x16x16xf32>, tensor<8xi32>, tensor<8x8x16xf32>, tensor<8xi32>, tensor<8x16x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>)
      sdy.return %127#2, %127#3 : tensor<8x16xf32>, tensor<1x16x16xf32>
    } : (tensor<64x16xf32>, tensor<8x16x16xf32>, tensor<64x16xf32>, tensor<1xi32>, tensor<1xi32>, tensor<8x8x16xf32>, tensor<8x1x16x16xf32>, tensor<1x8xi32>, tensor<8x8x8x16xf32>, tensor<1x8xi32>, tensor<8x8x16x16xf32>, tensor<8x8x8x16xf32>, tensor<8x8x8x16xf32>, tensor<8x8x8x16xf32>) -> (tensor<64x16xf32>, tensor<8x16x16xf32>)
    %185 = stablehlo.constant dense<0.5> : tensor<f32>
    %186 = stablehlo.broadcast_in_dim %185, dims = [] : (tensor<f32>) -> tensor<8x16x16xf32>
    %187 = sdy.sharding_constraint %186 <@mesh, [{"X"}, {}, {}]> : tensor<8x16x16xf32>
    %188 = stablehlo.multiply %187, %101#1 : tensor<8x16x16xf32>
    %189 = sdy.sharding_constraint %188 <@mesh, [{"X"}, {}, {}]> : tensor<8x16x16xf32>
    %190 = stablehlo.subtract %arg1, %189 : tensor<8x16x16xf32>
    %191 = sdy.sharding_constraint %190 <@mesh, [{"X"}, {}, {}]> : tensor<8x16x16xf32>
    return %191, %87 : tensor<8x16x16xf32>, tensor<f32>
  }
}
