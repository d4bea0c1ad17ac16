module @shardc_ring_step attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["X"=8]>
  func.func public @main(%arg0: tensor<64x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"X"}, {}]>}, %arg1: tensor<16x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg2: tensor<64x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"X"}, {}]>}) -> (tensor<16x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<f32> {sdy.sharding = #sdy.sharding<@mesh, []>}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<64x16xf32>, tensor<16x16xf32>) -> tensor<64x16xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{"X"}, {}]> : tensor<64x16xf32>
    %2:43 = sdy.manual_computation(%1, %arg0, %arg0) in_shardings=[<@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}]>] out_shardings=[<@mesh, [{"X"}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{}]>, <@mesh, [{}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>] manual_axes={"X"} (%m3: tensor<8x16xf32>, %m4: tensor<8x16xf32>, %m5: tensor<8x16xf32>) {
      %6 = stablehlo.constant dense<-1.0000000150474662e+30> : tensor<f32>
      %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %8 = stablehlo.constant dense<0.0> : tensor<f32>
      %9 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %10 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
      %11 = stablehlo.constant dense<0> : tensor<i32>
      %12 = stablehlo.constant dense<0> : tensor<i32>
      %13 = stablehlo.constant dense<0> : tensor<i32>
      %14 = stablehlo.broadcast_in_dim %13, dims = [] : (tensor<i32>) -> tensor<8xi32>
      %15 = stablehlo.constant dense<0.0> : tensor<f32>
      %16 = stablehlo.broadcast_in_dim %15, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
      %17 = stablehlo.constant dense<0.0> : tensor<f32>
      %18 = stablehlo.broadcast_in_dim %17, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
      %19 = stablehlo.constant dense<0.0> : tensor<f32>
      %20 = stablehlo.broadcast_in_dim %19, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
      %21 = stablehlo.constant dense<0.0> : tensor<f32>
      %22 = stablehlo.broadcast_in_dim %21, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
      %23 = stablehlo.constant dense<0.0> : tensor<f32>
      %24 = stablehlo.broadcast_in_dim %23, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
      %25 = stablehlo.constant dense<0> : tensor<i32>
      %26 = stablehlo.broadcast_in_dim %25, dims = [] : (tensor<i32>) -> tensor<8xi32>
      %27 = stablehlo.constant dense<0.0> : tensor<f32>
      %28 = stablehlo.broadcast_in_dim %27, dims = [] : (tensor<f32>) -> tensor<8x16x8xf32>
      %29 = stablehlo.constant dense<0.0> : tensor<f32>
      %30 = stablehlo.broadcast_in_dim %29, dims = [] : (tensor<f32>) -> tensor<8x8x8xf32>
      %31 = stablehlo.constant dense<0.0> : tensor<f32>
      %32 = stablehlo.broadcast_in_dim %31, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
      %33 = stablehlo.constant dense<0.0> : tensor<f32>
      %34 = stablehlo.broadcast_in_dim %33, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
      %35 = stablehlo.constant dense<0.0> : tensor<f32>
      %36 = stablehlo.broadcast_in_dim %35, dims = [] : (tensor<f32>) -> tensor<8x8x1xf32>
      %37 = stablehlo.constant dense<0.0> : tensor<f32>
      %38 = stablehlo.broadcast_in_dim %37, dims = [] : (tensor<f32>) -> tensor<8x8x8xf32>
      %39 = stablehlo.constant dense<0.0> : tensor<f32>
      %40 = stablehlo.broadcast_in_dim %39, dims = [] : (tensor<f32>) -> tensor<8x8x8xf32>
      %41 = stablehlo.constant dense<0.0> : tensor<f32>
      %42 = stablehlo.broadcast_in_dim %41, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
      %43 = stablehlo.constant dense<0.0> : tensor<f32>
      %44 = stablehlo.broadcast_in_dim %43, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
      %45 = stablehlo.constant dense<0.0> : tensor<f32>
      %46 = stablehlo.broadcast_in_dim %45, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
      %47 = stablehlo.constant dense<0.0> : tensor<f32>
      %48 = stablehlo.broadcast_in_dim %47, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
      %49 = stablehlo.constant dense<0.0> : tensor<f32>
      %50 = stablehlo.broadcast_in_dim %49, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
      %51 = stablehlo.constant dense<0.0> : tensor<f32>
      %52 = stablehlo.broadcast_in_dim %51, dims = [] : (tensor<f32>) -> tensor<8x8x1xf32>
      %53 = stablehlo.constant dense<0.0> : tensor<f32>
      %54 = stablehlo.broadcast_in_dim %53, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
      %55 = stablehlo.constant dense<0.0> : tensor<f32>
      %56 = stablehlo.broadcast_in_dim %55, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
      %57 = stablehlo.constant dense<0.0> : tensor<f32>
      %58 = stablehlo.broadcast_in_dim %57, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
      %59 = stablehlo.constant dense<0.0> : tensor<f32>
      %60 = stablehlo.broadcast_in_dim %59, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
      %61 = stablehlo.constant dense<0.0> : tensor<f32>
      %62 = stablehlo.broadcast_in_dim %61, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
      %63:33 = "stablehlo.while"(%12, %11, %7, %9, %10, %m4, %m5, %m3, %14, %16, %18, %20, %22, %24, %26, %28, %30, %32, %34, %36, %38, %40, %42, %44, %46, %48, %50, %52, %54, %56, %58, %60, %62) ({
      ^bb0(%w64: tensor<i32>, %w65: tensor<i32>, %w66: tensor<8xf32>, %w67: tensor<8xf32>, %w68: tensor<8x16xf32>, %w69: tensor<8x16xf32>, %w70: tensor<8x16xf32>, %w71: tensor<8x16xf32>, %w72: tensor<8xi32>, %w73: tensor<8x8xf32>, %w74: tensor<8x8xf32>, %w75: tensor<8x8x16xf32>, %w76: tensor<8x8x16xf32>, %w77: tensor<8x8x16xf32>, %w78: tensor<8xi32>, %w79: tensor<8x16x8xf32>, %w80: tensor<8x8x8xf32>, %w81: tensor<8x8xf32>, %w82: tensor<8x8xf32>, %w83: tensor<8x8x1xf32>, %w84: tensor<8x8x8xf32>, %w85: tensor<8x8x8xf32>, %w86: tensor<8x8xf32>, %w87: tensor<8x8xf32>, %w88: tensor<8x8xf32>, %w89: tensor<8x8xf32>, %w90: tensor<8x8xf32>, %w91: tensor<8x8x1xf32>, %w92: tensor<8x8x16xf32>, %w93: tensor<8x8x16xf32>, %w94: tensor<8x8x16xf32>, %w95: tensor<8x8x16xf32>, %w96: tensor<8x8x16xf32>):
        %97 = stablehlo.constant dense<8> : tensor<i32>
        %98 = stablehlo.compare LT, %w64, %97 : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %98 : tensor<i1>
      }, {
      ^bb0(%w99: tensor<i32>, %w100: tensor<i32>, %w101: tensor<8xf32>, %w102: tensor<8xf32>, %w103: tensor<8x16xf32>, %w104: tensor<8x16xf32>, %w105: tensor<8x16xf32>, %w106: tensor<8x16xf32>, %w107: tensor<8xi32>, %w108: tensor<8x8xf32>, %w109: tensor<8x8xf32>, %w110: tensor<8x8x16xf32>, %w111: tensor<8x8x16xf32>, %w112: tensor<8x8x16xf32>, %w113: tensor<8xi32>, %w114: tensor<8x16x8xf32>, %w115: tensor<8x8x8xf32>, %w116: tensor<8x8xf32>, %w117: tensor<8x8xf32>, %w118: tensor<8x8x1xf32>, %w119: tensor<8x8x8xf32>, %w120: tensor<8x8x8xf32>, %w121: tensor<8x8xf32>, %w122: tensor<8x8xf32>, %w123: tensor<8x8xf32>, %w124: tensor<8x8xf32>, %w125: tensor<8x8xf32>, %w126: tensor<8x8x1xf32>, %w127: tensor<8x8x16xf32>, %w128: tensor<8x8x16xf32>, %w129: tensor<8x8x16xf32>, %w130: tensor<8x8x16xf32>, %w131: tensor<8x8x16xf32>):
        %132 = stablehlo.constant dense<0> : tensor<i32>
        %133 = stablehlo.constant dense<1> : tensor<i32>
        %134 = stablehlo.constant dense<1> : tensor<i32>
        %135 = stablehlo.add %w100, %134 : tensor<i32>
        %136 = stablehlo.transpose %w104, dims = [1, 0] : (tensor<8x16xf32>) -> tensor<16x8xf32>
        %137 = stablehlo.dot_general %w106, %136, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
        %138 = stablehlo.constant dense<0xFF800000> : tensor<f32>
        %139 = stablehlo.reduce(%137 init: %138) applies stablehlo.maximum across dimensions = [1] : (tensor<8x8xf32>, tensor<f32>) -> tensor<8xf32>
        %140 = stablehlo.maximum %w101, %139 : tensor<8xf32>
        %141 = stablehlo.broadcast_in_dim %140, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
        %142 = stablehlo.broadcast_in_dim %141, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x8xf32>
        %143 = stablehlo.subtract %137, %142 : tensor<8x8xf32>
        %144 = stablehlo.exponential %143 : tensor<8x8xf32>
        %145 = stablehlo.subtract %w101, %140 : tensor<8xf32>
        %146 = stablehlo.exponential %145 : tensor<8xf32>
        %147 = stablehlo.multiply %w102, %146 : tensor<8xf32>
        %148 = stablehlo.constant dense<0.0> : tensor<f32>
        %149 = stablehlo.reduce(%144 init: %148) applies stablehlo.add across dimensions = [1] : (tensor<8x8xf32>, tensor<f32>) -> tensor<8xf32>
        %150 = stablehlo.add %147, %149 : tensor<8xf32>
        %151 = stablehlo.broadcast_in_dim %146, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
        %152 = stablehlo.broadcast_in_dim %151, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x16xf32>
        %153 = stablehlo.multiply %w103, %152 : tensor<8x16xf32>
        %154 = stablehlo.dot_general %144, %w105, contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
        %155 = stablehlo.add %153, %154 : tensor<8x16xf32>
        %156 = "stablehlo.collective_permute"(%w104) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7], [7, 0]]> : tensor<8x2xi64>}> : (tensor<8x16xf32>) -> tensor<8x16xf32>
        %157 = "stablehlo.collective_permute"(%w105) <{channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7], [7, 0]]> : tensor<8x2xi64>}> : (tensor<8x16xf32>) -> tensor<8x16xf32>
        %158 = stablehlo.reshape %w100 : (tensor<i32>) -> tensor<1xi32>
        %159 = stablehlo.dynamic_update_slice %w107, %158, %w99 : (tensor<8xi32>, tensor<1xi32>, tensor<i32>) -> tensor<8xi32>
        %160 = stablehlo.reshape %w101 : (tensor<8xf32>) -> tensor<1x8xf32>
        %161 = stablehlo.dynamic_update_slice %w108, %160, %w99, %132 : (tensor<8x8xf32>, tensor<1x8xf32>, tensor<i32>, tensor<i32>) -> tensor<8x8xf32>
        %162 = stablehlo.reshape %w102 : (tensor<8xf32>) -> tensor<1x8xf32>
        %163 = stablehlo.dynamic_update_slice %w109, %162, %w99, %132 : (tensor<8x8xf32>, tensor<1x8xf32>, tensor<i32>, tensor<i32>) -> tensor<8x8xf32>
        %164 = stablehlo.reshape %w103 : (tensor<8x16xf32>) -> tensor<1x8x16xf32>
        %165 = stablehlo.dynamic_update_slice %w110, %164, %w99, %132, %132 : (tensor<8x8x16xf32>, tensor<1x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<8x8x16xf32>
        %166 = stablehlo.reshape %w104 : (tensor<8x16xf32>) -> tensor<1x8x16xf32>
        %167 = stablehlo.dynamic_update_slice %w111, %166, %w99, %132, %132 : (tensor<8x8x16xf32>, tensor<1x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<8x8x16xf32>
        %168 = stablehlo.reshape %w105 : (tensor<8x16xf32>) -> tensor<1x8x16xf32>
        %169 = stablehlo.dynamic_update_slice %w112, %168, %w99, %132, %132 : (tensor<8x8x16xf32>, tensor<1x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<8x8x16xf32>
        %170 = stablehlo.reshape %135 : (tensor<i32>) -> tensor<1xi32>
        %171 = stablehlo.dynamic_update_slice %w113, %170, %w99 : (tensor<8xi32>, tensor<1xi32>, tensor<i32>) -> tensor<8xi32>
        %172 = stablehlo.reshape %136 : (tensor<16x8xf32>) -> tensor<1x16x8xf32>
        %173 = stablehlo.dynamic_update_slice %w114, %172, %w99, %132, %132 : (tensor<8x16x8xf32>, tensor<1x16x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<8x16x8xf32>
        %174 = stablehlo.reshape %137 : (tensor<8x8xf32>) -> tensor<1x8x8xf32>
        %175 = stablehlo.dynamic_update_slice %w115, %174, %w99, %132, %132 : (tensor<8x8x8xf32>, tensor<1x8x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<8x8x8xf32>
        %176 = stablehlo.reshape %139 : (tensor<8xf32>) -> tensor<1x8xf32>
        %177 = stablehlo.dynamic_update_slice %w116, %176, %w99, %132 : (tensor<8x8xf32>, tensor<1x8xf32>, tensor<i32>, tensor<i32>) -> tensor<8x8xf32>
        %178 = stablehlo.reshape %140 : (tensor<8xf32>) -> tensor<1x8xf32>
        %179 = stablehlo.dynamic_update_slice %w117, %178, %w99, %132 : (tensor<8x8xf32>, tensor<1x8xf32>, tensor<i32>, tensor<i32>) -> tensor<8x8xf32>
        %180 = stablehlo.reshape %141 : (tensor<8x1xf32>) -> tensor<1x8x1xf32>
        %181 = stablehlo.dynamic_update_slice %w118, %180, %w99, %132, %132 : (tensor<8x8x1xf32>, tensor<1x8x1xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<8x8x1xf32>
        %182 = stablehlo.reshape %143 : (tensor<8x8xf32>) -> tensor<1x8x8xf32>
        %183 = stablehlo.dynamic_update_slice %w119, %182, %w99, %132, %132 : (tensor<8x8x8xf32>, tensor<1x8x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<8x8x8xf32>
        %184 = stablehlo.reshape %144 : (tensor<8x8xf32>) -> tensor<1x8x8xf32>
        %185 = stablehlo.dynamic_update_slice %w120, %184, %w99, %132, %132 : (tensor<8x8x8xf32>, tensor<1x8x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<8x8x8xf32>
        %186 = stablehlo.reshape %145 : (tensor<8xf32>) -> tensor<1x8xf32>
        %187 = stablehlo.dynamic_update_slice %w121, %186, %w99, %132 : (tensor<8x8xf32>, tensor<1x8xf32>, tensor<i32>, tensor<i32>) -> tensor<8x8xf32>
        %188 = stablehlo.reshape %146 : (tensor<8xf32>) -> tensor<1x8xf32>
        %189 = stablehlo.dynamic_update_slice %w122, %188, %w99, %132 : (tensor<8x8xf32>, tensor<1x8xf32>, tensor<i32>, tensor<i32>) -> tensor<8x8xf32>
        %190 = stablehlo.reshape %147 : (tensor<8xf32>) -> tensor<1x8xf32>
        %191 = stablehlo.dynamic_update_slice %w123, %190, %w99, %132 : (tensor<8x8xf32>, tensor<1x8xf32>, tensor<i32>, tensor<i32>) -> tensor<8x8xf32>
        %192 = stablehlo.reshape %149 : (tensor<8xf32>) -> tensor<1x8xf32>
        %193 = stablehlo.dynamic_update_slice %w124, %192, %w99, %132 : (tensor<8x8xf32>, tensor<1x8xf32>, tensor<i32>, tensor<i32>) -> tensor<8x8xf32>
        %194 = stablehlo.reshape %150 : (tensor<8xf32>) -> tensor<1x8xf32>
        %195 = stablehlo.dynamic_update_slice %w125, %194, %w99, %132 : (tensor<8x8xf32>, tensor<1x8xf32>, tensor<i32>, tensor<i32>) -> tensor<8x8xf32>
        %196 = stablehlo.reshape %151 : (tensor<8x1xf32>) -> tensor<1x8x1xf32>
        %197 = stablehlo.dynamic_update_slice %w126, %196, %w99, %132, %132 : (tensor<8x8x1xf32>, tensor<1x8x1xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<8x8x1xf32>
        %198 = stablehlo.reshape %153 : (tensor<8x16xf32>) -> tensor<1x8x16xf32>
        %199 = stablehlo.dynamic_update_slice %w127, %198, %w99, %132, %132 : (tensor<8x8x16xf32>, tensor<1x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<8x8x16xf32>
        %200 = stablehlo.reshape %154 : (tensor<8x16xf32>) -> tensor<1x8x16xf32>
        %201 = stablehlo.dynamic_update_slice %w128, %200, %w99, %132, %132 : (tensor<8x8x16xf32>, tensor<1x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<8x8x16xf32>
        %202 = stablehlo.reshape %155 : (tensor<8x16xf32>) -> tensor<1x8x16xf32>
        %203 = stablehlo.dynamic_update_slice %w129, %202, %w99, %132, %132 : (tensor<8x8x16xf32>, tensor<1x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<8x8x16xf32>
        %204 = stablehlo.reshape %156 : (tensor<8x16xf32>) -> tensor<1x8x16xf32>
        %205 = stablehlo.dynamic_update_slice %w130, %204, %w99, %132, %132 : (tensor<8x8x16xf32>, tensor<1x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<8x8x16xf32>
        %206 = stablehlo.reshape %157 : (tensor<8x16xf32>) -> tensor<1x8x16xf32>
        %207 = stablehlo.dynamic_update_slice %w131, %206, %w99, %132, %132 : (tensor<8x8x16xf32>, tensor<1x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<8x8x16xf32>
        %208 = stablehlo.add %w99, %133 : tensor<i32>
        stablehlo.return %208, %135, %140, %150, %155, %156, %157, %w106, %159, %161, %163, %165, %167, %169, %171, %173, %175, %177, %179, %181, %183, %185, %187, %189, %191, %193, %195, %197, %199, %201, %203, %205, %207 : tensor<i32>, tensor<i32>, tensor<8xf32>, tensor<8xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8xi32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8xi32>, tensor<8x16x8xf32>, tensor<8x8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x1xf32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x1xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>
      }) : (tensor<i32>, tensor<i32>, tensor<8xf32>, tensor<8xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8xi32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8xi32>, tensor<8x16x8xf32>, tensor<8x8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x1xf32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x1xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>) -> (tensor<i32>, tensor<i32>, tensor<8xf32>, tensor<8xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8xi32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8xi32>, tensor<8x16x8xf32>, tensor<8x8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x1xf32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x1xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>)
      %209 = stablehlo.broadcast_in_dim %63#3, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
      %210 = stablehlo.broadcast_in_dim %209, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x16xf32>
      %211 = stablehlo.divide %63#4, %210 : tensor<8x16xf32>
      %212 = stablehlo.broadcast_in_dim %7, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
      %213 = stablehlo.broadcast_in_dim %7, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
      %214 = stablehlo.broadcast_in_dim %9, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
      %215 = stablehlo.broadcast_in_dim %9, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
      %216 = stablehlo.broadcast_in_dim %10, dims = [1, 2] : (tensor<8x16xf32>) -> tensor<1x8x16xf32>
      %217 = stablehlo.broadcast_in_dim %10, dims = [1, 2] : (tensor<8x16xf32>) -> tensor<1x8x16xf32>
      %218 = stablehlo.broadcast_in_dim %11, dims = [] : (tensor<i32>) -> tensor<1xi32>
      %219 = stablehlo.broadcast_in_dim %63#1, dims = [] : (tensor<i32>) -> tensor<1xi32>
      %220 = stablehlo.broadcast_in_dim %63#2, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
      %221 = stablehlo.broadcast_in_dim %63#3, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
      %222 = stablehlo.broadcast_in_dim %63#4, dims = [1, 2] : (tensor<8x16xf32>) -> tensor<1x8x16xf32>
      %223 = stablehlo.broadcast_in_dim %63#5, dims = [1, 2] : (tensor<8x16xf32>) -> tensor<1x8x16xf32>
      %224 = stablehlo.broadcast_in_dim %63#6, dims = [1, 2] : (tensor<8x16xf32>) -> tensor<1x8x16xf32>
      %225 = stablehlo.broadcast_in_dim %63#7, dims = [1, 2] : (tensor<8x16xf32>) -> tensor<1x8x16xf32>
      %226 = stablehlo.broadcast_in_dim %63#8, dims = [1] : (tensor<8xi32>) -> tensor<1x8xi32>
      %227 = stablehlo.broadcast_in_dim %63#9, dims = [1, 2] : (tensor<8x8xf32>) -> tensor<1x8x8xf32>
      %228 = stablehlo.broadcast_in_dim %63#10, dims = [1, 2] : (tensor<8x8xf32>) -> tensor<1x8x8xf32>
      %229 = stablehlo.broadcast_in_dim %63#11, dims = [1, 2, 3] : (tensor<8x8x16xf32>) -> tensor<1x8x8x16xf32>
      %230 = stablehlo.broadcast_in_dim %63#12, dims = [1, 2, 3] : (tensor<8x8x16xf32>) -> tensor<1x8x8x16xf32>
      %231 = stablehlo.broadcast_in_dim %63#13, dims = [1, 2, 3] : (tensor<8x8x16xf32>) -> tensor<1x8x8x16xf32>
      %232 = stablehlo.broadcast_in_dim %63#14, dims = [1] : (tensor<8xi32>) -> tensor<1x8xi32>
      %233 = stablehlo.broadcast_in_dim %63#15, dims = [1, 2, 3] : (tensor<8x16x8xf32>) -> tensor<1x8x16x8xf32>
      %234 = stablehlo.broadcast_in_dim %63#16, dims = [1, 2, 3] : (tensor<8x8x8xf32>) -> tensor<1x8x8x8xf32>
      %235 = stablehlo.broadcast_in_dim %63#17, dims = [1, 2] : (tensor<8x8xf32>) -> tensor<1x8x8xf32>
      %236 = stablehlo.broadcast_in_dim %63#18, dims = [1, 2] : (tensor<8x8xf32>) -> tensor<1x8x8xf32>
      %237 = stablehlo.broadcast_in_dim %63#19, dims = [1, 2, 3] : (tensor<8x8x1xf32>) -> tensor<1x8x8x1xf32>
      %238 = stablehlo.broadcast_in_dim %63#20, dims = [1, 2, 3] : (tensor<8x8x8xf32>) -> tensor<1x8x8x8xf32>
      %239 = stablehlo.broadcast_in_dim %63#21, dims = [1, 2, 3] : (tensor<8x8x8xf32>) -> tensor<1x8x8x8xf32>
      %240 = stablehlo.broadcast_in_dim %63#22, dims = [1, 2] : (tensor<8x8xf32>) -> tensor<1x8x8xf32>
      %241 = stablehlo.broadcast_in_dim %63#23, dims = [1, 2] : (tensor<8x8xf32>) -> tensor<1x8x8xf32>
      %242 = stablehlo.broadcast_in_dim %63#24, dims = [1, 2] : (tensor<8x8xf32>) -> tensor<1x8x8xf32>
      %243 = stablehlo.broadcast_in_dim %63#25, dims = [1, 2] : (tensor<8x8xf32>) -> tensor<1x8x8xf32>
      %244 = stablehlo.broadcast_in_dim %63#26, dims = [1, 2] : (tensor<8x8xf32>) -> tensor<1x8x8xf32>
      %245 = stablehlo.broadcast_in_dim %63#27, dims = [1, 2, 3] : (tensor<8x8x1xf32>) -> tensor<1x8x8x1xf32>
      %246 = stablehlo.broadcast_in_dim %63#28, dims = [1, 2, 3] : (tensor<8x8x16xf32>) -> tensor<1x8x8x16xf32>
      %247 = stablehlo.broadcast_in_dim %63#29, dims = [1, 2, 3] : (tensor<8x8x16xf32>) -> tensor<1x8x8x16xf32>
      %248 = stablehlo.broadcast_in_dim %63#30, dims = [1, 2, 3] : (tensor<8x8x16xf32>) -> tensor<1x8x8x16xf32>
      %249 = stablehlo.broadcast_in_dim %63#31, dims = [1, 2, 3] : (tensor<8x8x16xf32>) -> tensor<1x8x8x16xf32>
      %250 = stablehlo.broadcast_in_dim %63#32, dims = [1, 2, 3] : (tensor<8x8x16xf32>) -> tensor<1x8x8x16xf32>
      %251 = stablehlo.broadcast_in_dim %63#2, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
      %252 = stablehlo.broadcast_in_dim %209, dims = [1, 2] : (tensor<8x1xf32>) -> tensor<1x8x1xf32>
      %253 = stablehlo.broadcast_in_dim %211, dims = [1, 2] : (tensor<8x16xf32>) -> tensor<1x8x16xf32>
      sdy.return %211, %212, %213, %214, %215, %216, %217, %218, %219, %220, %221, %222, %223, %224, %225, %226, %227, %228, %229, %230, %231, %232, %233, %234, %235, %236, %237, %238, %239, %240, %241, %242, %243, %244, %245, %246, %247, %248, %249, %250, %251, %252, %253 : tensor<8x16xf32>, tensor<1x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>, tensor<1x8x16xf32>, tensor<1x8x16xf32>, tensor<1xi32>, tensor<1xi32>, tensor<1x8xf32>, tensor<1x8xf32>, tensor<1x8x16xf32>, tensor<1x8x16xf32>, tensor<1x8x16xf32>, tensor<1x8x16xf32>, tensor<1x8xi32>, tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>, tensor<1x8xi32>, tensor<1x8x16x8xf32>, tensor<1x8x8x8xf32>, tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1x8x8x1xf32>, tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>, tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1x8x8x1xf32>, tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>, tensor<1x8xf32>, tensor<1x8x1xf32>, tensor<1x8x16xf32>
    } : (tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>) -> (tensor<64x16xf32>, tensor<1x8xf32>, tensor<8x8xf32>, tensor<1x8xf32>, tensor<8x8xf32>, tensor<1x8x16xf32>, tensor<8x8x16xf32>, tensor<1xi32>, tensor<1xi32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<1x8xi32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8x16xf32>, tensor<8x8x8x16xf32>, tensor<8x8x8x16xf32>, tensor<1x8xi32>, tensor<8x8x16x8xf32>, tensor<8x8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8x1xf32>, tensor<8x8x8x8xf32>, tensor<8x8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8x1xf32>, tensor<8x8x8x16xf32>, tensor<8x8x8x16xf32>, tensor<8x8x8x16xf32>, tensor<8x8x8x16xf32>, tensor<8x8x8x16xf32>, tensor<8x8xf32>, tensor<8x8x1xf32>, tensor<8x8x16xf32>)
    %254 = stablehlo.subtract %2#0, %arg2 : tensor<64x16xf32>
    %255 = sdy.sharding_constraint %254 <@mesh, [{"X"}, {}]> : tensor<64x16xf32>
    %256 = stablehlo.multiply %255, %255 : tensor<64x16xf32>
    %257 = sdy.sharding_constraint %256 <@mesh, [{"X"}, {}]> : tensor<64x16xf32>
    %258 = stablehlo.constant dense<0.0> : tensor<f32>
    %259 = stablehlo.reduce(%257 init: %258) applies stablehlo.add across dimensions = [0, 1] : (tensor<64x16xf32>, tensor<f32>) -> tensor<f32>
    %260 = sdy.sharding_constraint %259 <@mesh, []> : tensor<f32>
    %261 = stablehlo.constant dense<1024.0> : tensor<f32>
    %262 = stablehlo.divide %260, %261 : tensor<f32>
    %263 = sdy.sharding_constraint %262 <@mesh, []> : tensor<f32>
    %264 = stablehlo.constant dense<1.0> : tensor<f32>
    %265 = sdy.sharding_constraint %264 <@mesh, []> : tensor<f32>
    %266 = stablehlo.divide %265, %261 : tensor<f32>
    %267 = sdy.sharding_constraint %266 <@mesh, []> : tensor<f32>
    %268 = stablehlo.broadcast_in_dim %267, dims = [] : (tensor<f32>) -> tensor<64x16xf32>
    %269 = sdy.sharding_constraint %268 <@mesh, [{"X"}, {}]> : tensor<64x16xf32>
    %270 = stablehlo.constant dense<2.0> : tensor<f32>
    %271 = stablehlo.broadcast_in_dim %270, dims = [] : (tensor<f32>) -> tensor<64x16xf32>
    %272 = sdy.sharding_constraint %271 <@mesh, [{"X"}, {}]> : tensor<64x16xf32>
    %273 = stablehlo.multiply %255, %272 : tensor<64x16xf32>
    %274 = sdy.sharding_constraint %273 <@mesh, [{"X"}, {}]> : tensor<64x16xf32>
    %275 = stablehlo.multiply %269, %274 : tensor<64x16xf32>
    %276 = sdy.sharding_constraint %275 <@mesh, [{"X"}, {}]> : tensor<64x16xf32>
    %277:3 = sdy.manual_computation(%1, %arg0, %arg0, %276, %2#1, %2#2, %2#3, %2#4, %2#5, %2#6, %2#7, %2#8, %2#9, %2#10, %2#11, %2#12, %2#13, %2#14, %2#15, %2#16, %2#17, %2#18, %2#19, %2#20, %2#21, %2#22, %2#23, %2#24, %2#25, %2#26, %2#27, %2#28, %2#29, %2#30, %2#31, %2#32, %2#33, %2#34, %2#35, %2#36, %2#37, %2#38, %2#39, %2#40, %2#41, %2#42) in_shardings=[<@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{}]>, <@mesh, [{}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>] out_shardings=[<@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}]>] manual_axes={"X"} (%m278: tensor<8x16xf32>, %m279: tensor<8x16xf32>, %m280: tensor<8x16xf32>, %m281: tensor<8x16xf32>, %m282: tensor<1x8xf32>, %m283: tensor<1x8xf32>, %m284: tensor<1x8xf32>, %m285: tensor<1x8xf32>, %m286: tensor<1x8x16xf32>, %m287: tensor<1x8x16xf32>, %m288: tensor<1xi32>, %m289: tensor<1xi32>, %m290: tensor<1x8xf32>, %m291: tensor<1x8xf32>, %m292: tensor<1x8x16xf32>, %m293: tensor<1x8x16xf32>, %m294: tensor<1x8x16xf32>, %m295: tensor<1x8x16xf32>, %m296: tensor<1x8xi32>, %m297: tensor<1x8x8xf32>, %m298: tensor<1x8x8xf32>, %m299: tensor<1x8x8x16xf32>, %m300: tensor<1x8x8x16xf32>, %m301: tensor<1x8x8x16xf32>, %m302: tensor<1x8xi32>, %m303: tensor<1x8x16x8xf32>, %m304: tensor<1x8x8x8xf32>, %m305: tensor<1x8x8xf32>, %m306: tensor<1x8x8xf32>, %m307: tensor<1x8x8x1xf32>, %m308: tensor<1x8x8x8xf32>, %m309: tensor<1x8x8x8xf32>, %m310: tensor<1x8x8xf32>, %m311: tensor<1x8x8xf32>, %m312: tensor<1x8x8xf32>, %m313: tensor<1x8x8xf32>, %m314: tensor<1x8x8xf32>, %m315: tensor<1x8x8x1xf32>, %m316: tensor<1x8x8x16xf32>, %m317: tensor<1x8x8x16xf32>, %m318: tensor<1x8x8x16xf32>, %m319: tensor<1x8x8x16xf32>, %m320: tensor<1x8x8x16xf32>, %m321: tensor<1x8xf32>, %m322: tensor<1x8x1xf32>, %m323: tensor<1x8x16xf32>) {
      %324 = stablehlo.reshape %m296 : (tensor<1x8xi32>) -> tensor<8xi32>
      %325 = stablehlo.reshape %m297 : (tensor<1x8x8xf32>) -> tensor<8x8xf32>
      %326 = stablehlo.reshape %m298 : (tensor<1x8x8xf32>) -> tensor<8x8xf32>
      %327 = stablehlo.reshape %m299 : (tensor<1x8x8x16xf32>) -> tensor<8x8x16xf32>
      %328 = stablehlo.reshape %m300 : (tensor<1x8x8x16xf32>) -> tensor<8x8x16xf32>
      %329 = stablehlo.reshape %m301 : (tensor<1x8x8x16xf32>) -> tensor<8x8x16xf32>
      %330 = stablehlo.reshape %m302 : (tensor<1x8xi32>) -> tensor<8xi32>
      %331 = stablehlo.reshape %m303 : (tensor<1x8x16x8xf32>) -> tensor<8x16x8xf32>
      %332 = stablehlo.reshape %m304 : (tensor<1x8x8x8xf32>) -> tensor<8x8x8xf32>
      %333 = stablehlo.reshape %m305 : (tensor<1x8x8xf32>) -> tensor<8x8xf32>
      %334 = stablehlo.reshape %m306 : (tensor<1x8x8xf32>) -> tensor<8x8xf32>
      %335 = stablehlo.reshape %m307 : (tensor<1x8x8x1xf32>) -> tensor<8x8x1xf32>
      %336 = stablehlo.reshape %m308 : (tensor<1x8x8x8xf32>) -> tensor<8x8x8xf32>
      %337 = stablehlo.reshape %m309 : (tensor<1x8x8x8xf32>) -> tensor<8x8x8xf32>
      %338 = stablehlo.reshape %m310 : (tensor<1x8x8xf32>) -> tensor<8x8xf32>
      %339 = stablehlo.reshape %m311 : (tensor<1x8x8xf32>) -> tensor<8x8xf32>
      %340 = stablehlo.reshape %m312 : (tensor<1x8x8xf32>) -> tensor<8x8xf32>
      %341 = stablehlo.reshape %m313 : (tensor<1x8x8xf32>) -> tensor<8x8xf32>
      %342 = stablehlo.reshape %m314 : (tensor<1x8x8xf32>) -> tensor<8x8xf32>
      %343 = stablehlo.reshape %m315 : (tensor<1x8x8x1xf32>) -> tensor<8x8x1xf32>
      %344 = stablehlo.reshape %m316 : (tensor<1x8x8x16xf32>) -> tensor<8x8x16xf32>
      %345 = stablehlo.reshape %m317 : (tensor<1x8x8x16xf32>) -> tensor<8x8x16xf32>
      %346 = stablehlo.reshape %m318 : (tensor<1x8x8x16xf32>) -> tensor<8x8x16xf32>
      %347 = stablehlo.reshape %m319 : (tensor<1x8x8x16xf32>) -> tensor<8x8x16xf32>
      %348 = stablehlo.reshape %m320 : (tensor<1x8x8x16xf32>) -> tensor<8x8x16xf32>
      %349 = stablehlo.reshape %m322 : (tensor<1x8x1xf32>) -> tensor<8x1xf32>
      %350 = stablehlo.reshape %m323 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
      %351 = stablehlo.broadcast_in_dim %349, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x16xf32>
      %352 = stablehlo.divide %m281, %351 : tensor<8x16xf32>
      %353 = stablehlo.broadcast_in_dim %349, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x16xf32>
      %354 = stablehlo.divide %350, %353 : tensor<8x16xf32>
      %355 = stablehlo.multiply %m281, %354 : tensor<8x16xf32>
      %356 = stablehlo.negate %355 : tensor<8x16xf32>
      %357 = stablehlo.constant dense<0.0> : tensor<f32>
      %358 = stablehlo.reduce(%356 init: %357) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
      %359 = stablehlo.broadcast_in_dim %358, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
      %360 = stablehlo.constant dense<0.0> : tensor<f32>
      %361 = stablehlo.reduce(%359 init: %360) applies stablehlo.add across dimensions = [1] : (tensor<8x1xf32>, tensor<f32>) -> tensor<8xf32>
      %362 = stablehlo.constant dense<0> : tensor<i32>
      %363 = stablehlo.constant dense<0.0> : tensor<f32>
      %364 = stablehlo.broadcast_in_dim %363, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %365 = stablehlo.broadcast_in_dim %363, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
      %366 = stablehlo.broadcast_in_dim %363, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
      %367 = stablehlo.broadcast_in_dim %363, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
      %368 = stablehlo.constant dense<0> : tensor<i32>
      %369:34 = "stablehlo.while"(%368, %362, %364, %361, %352, %365, %366, %367, %m278, %324, %325, %326, %327, %328, %329, %330, %331, %332, %333, %334, %335, %336, %337, %338, %339, %340, %341, %342, %343, %344, %345, %346, %347, %348) ({
      ^bb0(%w370: tensor<i32>, %w371: tensor<i32>, %w372: tensor<8xf32>, %w373: tensor<8xf32>, %w374: tensor<8x16xf32>, %w375: tensor<8x16xf32>, %w376: tensor<8x16xf32>, %w377: tensor<8x16xf32>, %w378: tensor<8x16xf32>, %w379: tensor<8xi32>, %w380: tensor<8x8xf32>, %w381: tensor<8x8xf32>, %w382: tensor<8x8x16xf32>, %w383: tensor<8x8x16xf32>, %w384: tensor<8x8x16xf32>, %w385: tensor<8xi32>, %w386: tensor<8x16x8xf32>, %w387: tensor<8x8x8xf32>, %w388: tensor<8x8xf32>, %w389: tensor<8x8xf32>, %w390: tensor<8x8x1xf32>, %w391: tensor<8x8x8xf32>, %w392: tensor<8x8x8xf32>, %w393: tensor<8x8xf32>, %w394: tensor<8x8xf32>, %w395: tensor<8x8xf32>, %w396: tensor<8x8xf32>, %w397: tensor<8x8xf32>, %w398: tensor<8x8x1xf32>, %w399: tensor<8x8x16xf32>, %w400: tensor<8x8x16xf32>, %w401: tensor<8x8x16xf32>, %w402: tensor<8x8x16xf32>, %w403: tensor<8x8x16xf32>):
        %404 = stablehlo.constant dense<8> : tensor<i32>
        %405 = stablehlo.compare LT, %w370, %404 : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %405 : tensor<i1>
      }, {
      ^bb0(%w406: tensor<i32>, %w407: tensor<i32>, %w408: tensor<8xf32>, %w409: tensor<8xf32>, %w410: tensor<8x16xf32>, %w411: tensor<8x16xf32>, %w412: tensor<8x16xf32>, %w413: tensor<8x16xf32>, %w414: tensor<8x16xf32>, %w415: tensor<8xi32>, %w416: tensor<8x8xf32>, %w417: tensor<8x8xf32>, %w418: tensor<8x8x16xf32>, %w419: tensor<8x8x16xf32>, %w420: tensor<8x8x16xf32>, %w421: tensor<8xi32>, %w422: tensor<8x16x8xf32>, %w423: tensor<8x8x8xf32>, %w424: tensor<8x8xf32>, %w425: tensor<8x8xf32>, %w426: tensor<8x8x1xf32>, %w427: tensor<8x8x8xf32>, %w428: tensor<8x8x8xf32>, %w429: tensor<8x8xf32>, %w430: tensor<8x8xf32>, %w431: tensor<8x8xf32>, %w432: tensor<8x8xf32>, %w433: tensor<8x8xf32>, %w434: tensor<8x8x1xf32>, %w435: tensor<8x8x16xf32>, %w436: tensor<8x8x16xf32>, %w437: tensor<8x8x16xf32>, %w438: tensor<8x8x16xf32>, %w439: tensor<8x8x16xf32>):
        %440 = stablehlo.constant dense<0> : tensor<i32>
        %441 = stablehlo.constant dense<1> : tensor<i32>
        %442 = stablehlo.constant dense<7> : tensor<i32>
        %443 = stablehlo.subtract %442, %w406 : tensor<i32>
        %444 = stablehlo.dynamic_slice %w415, %443, sizes = [1] : (tensor<8xi32>, tensor<i32>) -> tensor<1xi32>
        %445 = stablehlo.reshape %444 : (tensor<1xi32>) -> tensor<i32>
        %446 = stablehlo.dynamic_slice %w416, %443, %440, sizes = [1, 8] : (tensor<8x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
        %447 = stablehlo.reshape %446 : (tensor<1x8xf32>) -> tensor<8xf32>
        %448 = stablehlo.dynamic_slice %w417, %443, %440, sizes = [1, 8] : (tensor<8x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
        %449 = stablehlo.reshape %448 : (tensor<1x8xf32>) -> tensor<8xf32>
        %450 = stablehlo.dynamic_slice %w418, %443, %440, %440, sizes = [1, 8, 16] : (tensor<8x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16xf32>
        %451 = stablehlo.reshape %450 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
        %452 = stablehlo.dynamic_slice %w419, %443, %440, %440, sizes = [1, 8, 16] : (tensor<8x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16xf32>
        %453 = stablehlo.reshape %452 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
        %454 = stablehlo.dynamic_slice %w420, %443, %440, %440, sizes = [1, 8, 16] : (tensor<8x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16xf32>
        %455 = stablehlo.reshape %454 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
        %456 = stablehlo.dynamic_slice %w421, %443, sizes = [1] : (tensor<8xi32>, tensor<i32>) -> tensor<1xi32>
        %457 = stablehlo.reshape %456 : (tensor<1xi32>) -> tensor<i32>
        %458 = stablehlo.dynamic_slice %w422, %443, %440, %440, sizes = [1, 16, 8] : (tensor<8x16x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x16x8xf32>
        %459 = stablehlo.reshape %458 : (tensor<1x16x8xf32>) -> tensor<16x8xf32>
        %460 = stablehlo.dynamic_slice %w423, %443, %440, %440, sizes = [1, 8, 8] : (tensor<8x8x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x8xf32>
        %461 = stablehlo.reshape %460 : (tensor<1x8x8xf32>) -> tensor<8x8xf32>
        %462 = stablehlo.dynamic_slice %w424, %443, %440, sizes = [1, 8] : (tensor<8x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
        %463 = stablehlo.reshape %462 : (tensor<1x8xf32>) -> tensor<8xf32>
        %464 = stablehlo.dynamic_slice %w425, %443, %440, sizes = [1, 8] : (tensor<8x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
        %465 = stablehlo.reshape %464 : (tensor<1x8xf32>) -> tensor<8xf32>
        %466 = stablehlo.dynamic_slice %w426, %443, %440, %440, sizes = [1, 8, 1] : (tensor<8x8x1xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x1xf32>
        %467 = stablehlo.reshape %466 : (tensor<1x8x1xf32>) -> tensor<8x1xf32>
        %468 = stablehlo.dynamic_slice %w427, %443, %440, %440, sizes = [1, 8, 8] : (tensor<8x8x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x8xf32>
        %469 = stablehlo.reshape %468 : (tensor<1x8x8xf32>) -> tensor<8x8xf32>
        %470 = stablehlo.dynamic_slice %w428, %443, %440, %440, sizes = [1, 8, 8] : (tensor<8x8x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x8xf32>
        %471 = stablehlo.reshape %470 : (tensor<1x8x8xf32>) -> tensor<8x8xf32>
        %472 = stablehlo.dynamic_slice %w429, %443, %440, sizes = [1, 8] : (tensor<8x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
        %473 = stablehlo.reshape %472 : (tensor<1x8xf32>) -> tensor<8xf32>
        %474 = stablehlo.dynamic_slice %w430, %443, %440, sizes = [1, 8] : (tensor<8x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
        %475 = stablehlo.reshape %474 : (tensor<1x8xf32>) -> tensor<8xf32>
        %476 = stablehlo.dynamic_slice %w431, %443, %440, sizes = [1, 8] : (tensor<8x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
        %477 = stablehlo.reshape %476 : (tensor<1x8xf32>) -> tensor<8xf32>
        %478 = stablehlo.dynamic_slice %w432, %443, %440, sizes = [1, 8] : (tensor<8x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
        %479 = stablehlo.reshape %478 : (tensor<1x8xf32>) -> tensor<8xf32>
        %480 = stablehlo.dynamic_slice %w433, %443, %440, sizes = [1, 8] : (tensor<8x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
        %481 = stablehlo.reshape %480 : (tensor<1x8xf32>) -> tensor<8xf32>
        %482 = stablehlo.dynamic_slice %w434, %443, %440, %440, sizes = [1, 8, 1] : (tensor<8x8x1xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x1xf32>
        %483 = stablehlo.reshape %482 : (tensor<1x8x1xf32>) -> tensor<8x1xf32>
        %484 = stablehlo.dynamic_slice %w435, %443, %440, %440, sizes = [1, 8, 16] : (tensor<8x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16xf32>
        %485 = stablehlo.reshape %484 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
        %486 = stablehlo.dynamic_slice %w436, %443, %440, %440, sizes = [1, 8, 16] : (tensor<8x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16xf32>
        %487 = stablehlo.reshape %486 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
        %488 = stablehlo.dynamic_slice %w437, %443, %440, %440, sizes = [1, 8, 16] : (tensor<8x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16xf32>
        %489 = stablehlo.reshape %488 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
        %490 = stablehlo.dynamic_slice %w438, %443, %440, %440, sizes = [1, 8, 16] : (tensor<8x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16xf32>
        %491 = stablehlo.reshape %490 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
        %492 = stablehlo.dynamic_slice %w439, %443, %440, %440, sizes = [1, 8, 16] : (tensor<8x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16xf32>
        %493 = stablehlo.reshape %492 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
        %494 = "stablehlo.collective_permute"(%w412) <{channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>, source_target_pairs = dense<[[1, 0], [2, 1], [3, 2], [4, 3], [5, 4], [6, 5], [7, 6], [0, 7]]> : tensor<8x2xi64>}> : (tensor<8x16xf32>) -> tensor<8x16xf32>
        %495 = "stablehlo.collective_permute"(%w411) <{channel_handle = #stablehlo.channel_handle<handle = 4, type = 1>, source_target_pairs = dense<[[1, 0], [2, 1], [3, 2], [4, 3], [5, 4], [6, 5], [7, 6], [0, 7]]> : tensor<8x2xi64>}> : (tensor<8x16xf32>) -> tensor<8x16xf32>
        %496 = stablehlo.dot_general %w410, %455, contracting_dims = [1] x [1] : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x8xf32>
        %497 = stablehlo.dot_general %w410, %471, contracting_dims = [0] x [0] : (tensor<8x16xf32>, tensor<8x8xf32>) -> tensor<16x8xf32>
        %498 = stablehlo.transpose %497, dims = [1, 0] : (tensor<16x8xf32>) -> tensor<8x16xf32>
        %499 = stablehlo.add %494, %498 : tensor<8x16xf32>
        %500 = stablehlo.broadcast_in_dim %483, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x16xf32>
        %501 = stablehlo.multiply %w410, %500 : tensor<8x16xf32>
        %502 = stablehlo.multiply %w410, %451 : tensor<8x16xf32>
        %503 = stablehlo.constant dense<0.0> : tensor<f32>
        %504 = stablehlo.reduce(%502 init: %503) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
        %505 = stablehlo.broadcast_in_dim %504, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
        %506 = stablehlo.constant dense<0.0> : tensor<f32>
        %507 = stablehlo.reduce(%505 init: %506) applies stablehlo.add across dimensions = [1] : (tensor<8x1xf32>, tensor<f32>) -> tensor<8xf32>
        %508 = stablehlo.broadcast_in_dim %w409, dims = [0] : (tensor<8xf32>) -> tensor<8x8xf32>
        %509 = stablehlo.add %496, %508 : tensor<8x8xf32>
        %510 = stablehlo.multiply %w409, %475 : tensor<8xf32>
        %511 = stablehlo.multiply %w409, %449 : tensor<8xf32>
        %512 = stablehlo.add %507, %511 : tensor<8xf32>
        %513 = stablehlo.multiply %512, %475 : tensor<8xf32>
        %514 = stablehlo.negate %513 : tensor<8xf32>
        %515 = stablehlo.add %w408, %514 : tensor<8xf32>
        %516 = stablehlo.multiply %509, %471 : tensor<8x8xf32>
        %517 = stablehlo.negate %516 : tensor<8x8xf32>
        %518 = stablehlo.constant dense<0.0> : tensor<f32>
        %519 = stablehlo.reduce(%517 init: %518) applies stablehlo.add across dimensions = [1] : (tensor<8x8xf32>, tensor<f32>) -> tensor<8xf32>
        %520 = stablehlo.broadcast_in_dim %519, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
        %521 = stablehlo.constant dense<0.0> : tensor<f32>
        %522 = stablehlo.reduce(%520 init: %521) applies stablehlo.add across dimensions = [1] : (tensor<8x1xf32>, tensor<f32>) -> tensor<8xf32>
        %523 = stablehlo.add %515, %522 : tensor<8xf32>
        %524 = stablehlo.compare EQ, %447, %463, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
        %525 = stablehlo.convert %524 : (tensor<8xi1>) -> tensor<8xf32>
        %526 = stablehlo.constant dense<0.5> : tensor<f32>
        %527 = stablehlo.broadcast_in_dim %526, dims = [] : (tensor<f32>) -> tensor<8xf32>
        %528 = stablehlo.multiply %525, %527 : tensor<8xf32>
        %529 = stablehlo.compare GT, %447, %463, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
        %530 = stablehlo.convert %529 : (tensor<8xi1>) -> tensor<8xf32>
        %531 = stablehlo.add %530, %528 : tensor<8xf32>
        %532 = stablehlo.multiply %523, %531 : tensor<8xf32>
        %533 = stablehlo.compare EQ, %463, %447, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
        %534 = stablehlo.convert %533 : (tensor<8xi1>) -> tensor<8xf32>
        %535 = stablehlo.multiply %534, %527 : tensor<8xf32>
        %536 = stablehlo.compare GT, %463, %447, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
        %537 = stablehlo.convert %536 : (tensor<8xi1>) -> tensor<8xf32>
        %538 = stablehlo.add %537, %535 : tensor<8xf32>
        %539 = stablehlo.multiply %523, %538 : tensor<8xf32>
        %540 = stablehlo.add %513, %532 : tensor<8xf32>
        %541 = stablehlo.broadcast_in_dim %463, dims = [0] : (tensor<8xf32>) -> tensor<8x8xf32>
        %542 = stablehlo.compare EQ, %461, %541, FLOAT : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xi1>
        %543 = stablehlo.convert %542 : (tensor<8x8xi1>) -> tensor<8x8xf32>
        %544 = stablehlo.constant dense<0.0> : tensor<f32>
        %545 = stablehlo.reduce(%543 init: %544) applies stablehlo.add across dimensions = [1] : (tensor<8x8xf32>, tensor<f32>) -> tensor<8xf32>
        %546 = stablehlo.divide %539, %545 : tensor<8xf32>
        %547 = stablehlo.broadcast_in_dim %546, dims = [0] : (tensor<8xf32>) -> tensor<8x8xf32>
        %548 = stablehlo.multiply %547, %543 : tensor<8x8xf32>
        %549 = stablehlo.add %516, %548 : tensor<8x8xf32>
        %550 = stablehlo.dot_general %549, %459, contracting_dims = [1] x [1] : (tensor<8x8xf32>, tensor<16x8xf32>) -> tensor<8x16xf32>
        %551 = stablehlo.dot_general %549, %w414, contracting_dims = [0] x [0] : (tensor<8x8xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
        %552 = stablehlo.transpose %551, dims = [1, 0] : (tensor<8x16xf32>) -> tensor<16x8xf32>
        %553 = stablehlo.add %w413, %550 : tensor<8x16xf32>
        %554 = stablehlo.transpose %552, dims = [1, 0] : (tensor<16x8xf32>) -> tensor<8x16xf32>
        %555 = stablehlo.add %495, %554 : tensor<8x16xf32>
        %556 = stablehlo.constant dense<0> : tensor<i32>
        %557 = stablehlo.add %w406, %441 : tensor<i32>
        stablehlo.return %557, %556, %540, %510, %501, %555, %499, %553, %w414, %w415, %w416, %w417, %w418, %w419, %w420, %w421, %w422, %w423, %w424, %w425, %w426, %w427, %w428, %w429, %w430, %w431, %w432, %w433, %w434, %w435, %w436, %w437, %w438, %w439 : tensor<i32>, tensor<i32>, tensor<8xf32>, tensor<8xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8xi32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8xi32>, tensor<8x16x8xf32>, tensor<8x8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x1xf32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x1xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>
      }) : (tensor<i32>, tensor<i32>, tensor<8xf32>, tensor<8xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8xi32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8xi32>, tensor<8x16x8xf32>, tensor<8x8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x1xf32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x1xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>) -> (tensor<i32>, tensor<i32>, tensor<8xf32>, tensor<8xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8xi32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8xi32>, tensor<8x16x8xf32>, tensor<8x8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x1xf32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x1xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>)
      sdy.return %369#7, %369#5, %369#6 : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>
    } : (tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>, tensor<1x8xf32>, tensor<8x8xf32>, tensor<1x8xf32>, tensor<8x8xf32>, tensor<1x8x16xf32>, tensor<8x8x16xf32>, tensor<1xi32>, tensor<1xi32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<1x8xi32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8x16xf32>, tensor<8x8x8x16xf32>, tensor<8x8x8x16xf32>, tensor<1x8xi32>, tensor<8x8x16x8xf32>, tensor<8x8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8x1xf32>, tensor<8x8x8x8xf32>, tensor<8x8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8x1xf32>, tensor<8x8x8x16xf32>, tensor<8x8x8x16xf32>, tensor<8x8x8x16xf32>, tensor<8x8x8x16xf32>, tensor<8x8x8x16xf32>, tensor<8x8xf32>, tensor<8x8x1xf32>, tensor<8x8x16xf32>) -> (tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>)
    %558 = stablehlo.dot_general %277#0, %arg0, contracting_dims = [0] x [0] : (tensor<64x16xf32>, tensor<64x16xf32>) -> tensor<16x16xf32>
    %559 = sdy.sharding_constraint %558 <@mesh, [{}, {}]> : tensor<16x16xf32>
    %560 = stablehlo.transpose %559, dims = [1, 0] : (tensor<16x16xf32>) -> tensor<16x16xf32>
    %561 = sdy.sharding_constraint %560 <@mesh, [{}, {}]> : tensor<16x16xf32>
    %562 = stablehlo.constant dense<0.5> : tensor<f32>
    %563 = stablehlo.broadcast_in_dim %562, dims = [] : (tensor<f32>) -> tensor<16x16xf32>
    %564 = sdy.sharding_constraint %563 <@mesh, [{}, {}]> : tensor<16x16xf32>
    %565 = stablehlo.multiply %564, %561 : tensor<16x16xf32>
    %566 = sdy.sharding_constraint %565 <@mesh, [{}, {}]> : tensor<16x16xf32>
    %567 = stablehlo.subtract %arg1, %566 : tensor<16x16xf32>
    %568 = sdy.sharding_constraint %567 <@mesh, [{}, {}]> : tensor<16x16xf32>
    return %568, %263 : tensor<16x16xf32>, tensor<f32>
  }
}
