module @shardc_ring_step attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["X"=8]>
  func.func public @main(%arg0: tensor<64x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"X"}, {}]>}, %arg1: tensor<16x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg2: tensor<64x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"X"}, {}]>}) -> (tensor<16x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<f32> {sdy.sharding = #sdy.sharding<@mesh, []>}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<64x16xf32>, tensor<16x16xf32>) -> tensor<64x16xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{"X"}, {}]> : tensor<64x16xf32>
    %2:42 = sdy.manual_computation(%1, %arg0, %arg0) in_shardings=[<@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}]>] out_shardings=[<@mesh, [{"X"}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{}]>, <@mesh, [{}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>] manual_axes={"X"} (%m3: tensor<8x16xf32>, %m4: tensor<8x16xf32>, %m5: tensor<8x16xf32>) {
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
      %251 = stablehlo.broadcast_in_dim %209, dims = [1, 2] : (tensor<8x1xf32>) -> tensor<1x8x1xf32>
      %252 = stablehlo.broadcast_in_dim %211, dims = [1, 2] : (tensor<8x16xf32>) -> tensor<1x8x16xf32>
      sdy.return %211, %212, %213, %214, %215, %216, %217, %218, %219, %220, %221, %222, %223, %224, %225, %226, %227, %228, %229, %230, %231, %232, %233, %234, %235, %236, %237, %238, %239, %240, %241, %242, %243, %244, %245, %246, %247, %248, %249, %250, %251, %252 : tensor<8x16xf32>, tensor<1x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>, tensor<1x8x16xf32>, tensor<1x8x16xf32>, tensor<1xi32>, tensor<1xi32>, tensor<1x8xf32>, tensor<1x8xf32>, tensor<1x8x16xf32>, tensor<1x8x16xf32>, tensor<1x8x16xf32>, tensor<1x8x16xf32>, tensor<1x8xi32>, tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>, tensor<1x8xi32>, tensor<1x8x16x8xf32>, tensor<1x8x8x8xf32>, tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1x8x8x1xf32>, tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>, tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1x8x8x1xf32>, tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>, tensor<1x8x1xf32>, tensor<1x8x16xf32>
    } : (tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>) -> (tensor<64x16xf32>, tensor<1x8xf32>, tensor<8x8xf32>, tensor<1x8xf32>, tensor<8x8xf32>, tensor<1x8x16xf32>, tensor<8x8x16xf32>, tensor<1xi32>, tensor<1xi32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<1x8xi32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8x16xf32>, tensor<8x8x8x16xf32>, tensor<8x8x8x16xf32>, tensor<1x8xi32>, tensor<8x8x16x8xf32>, tensor<8x8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8x1xf32>, tensor<8x8x8x8xf32>, tensor<8x8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8x1xf32>, tensor<8x8x8x16xf32>, tensor<8x8x8x16xf32>, tensor<8x8x8x16xf32>, tensor<8x8x8x16xf32>, tensor<8x8x8x16xf32>, tensor<8x8x1xf32>, tensor<8x8x16xf32>)
    %253 = stablehlo.subtract %2#0, %arg2 : tensor<64x16xf32>
    %254 = sdy.sharding_constraint %253 <@mesh, [{"X"}, {}]> : tensor<64x16xf32>
    %255 = stablehlo.multiply %254, %254 : tensor<64x16xf32>
    %256 = sdy.sharding_constraint %255 <@mesh, [{"X"}, {}]> : tensor<64x16xf32>
    %257 = stablehlo.constant dense<0.0> : tensor<f32>
    %258 = stablehlo.reduce(%256 init: %257) applies stablehlo.add across dimensions = [0, 1] : (tensor<64x16xf32>, tensor<f32>) -> tensor<f32>
    %259 = sdy.sharding_constraint %258 <@mesh, []> : tensor<f32>
    %260 = stablehlo.constant dense<1024.0> : tensor<f32>
    %261 = stablehlo.divide %259, %260 : tensor<f32>
    %262 = sdy.sharding_constraint %261 <@mesh, []> : tensor<f32>
    %263 = stablehlo.constant dense<1.0> : tensor<f32>
    %264 = sdy.sharding_constraint %263 <@mesh, []> : tensor<f32>
    %265 = stablehlo.divide %264, %260 : tensor<f32>
    %266 = sdy.sharding_constraint %265 <@mesh, []> : tensor<f32>
    %267 = stablehlo.broadcast_in_dim %266, dims = [] : (tensor<f32>) -> tensor<64x16xf32>
    %268 = sdy.sharding_constraint %267 <@mesh, [{"X"}, {}]> : tensor<64x16xf32>
    %269 = stablehlo.constant dense<2.0> : tensor<f32>
    %270 = stablehlo.broadcast_in_dim %269, dims = [] : (tensor<f32>) -> tensor<64x16xf32>
    %271 = sdy.sharding_constraint %270 <@mesh, [{"X"}, {}]> : tensor<64x16xf32>
    %272 = stablehlo.multiply %254, %271 : tensor<64x16xf32>
    %273 = sdy.sharding_constraint %272 <@mesh, [{"X"}, {}]> : tensor<64x16xf32>
    %274 = stablehlo.multiply %268, %273 : tensor<64x16xf32>
    %275 = sdy.sharding_constraint %274 <@mesh, [{"X"}, {}]> : tensor<64x16xf32>
    %276 = stablehlo.negate %275 : tensor<64x16xf32>
    %277 = sdy.sharding_constraint %276 <@mesh, [{"X"}, {}]> : tensor<64x16xf32>
    %278 = stablehlo.constant dense<0.0> : tensor<f32>
    %279 = stablehlo.broadcast_in_dim %278, dims = [] : (tensor<f32>) -> tensor<1x8xf32>
    %280 = sdy.sharding_constraint %279 <@mesh, [{}, {}]> : tensor<1x8xf32>
    %281 = stablehlo.broadcast_in_dim %278, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
    %282 = sdy.sharding_constraint %281 <@mesh, [{"X"}, {}]> : tensor<8x8xf32>
    %283 = stablehlo.broadcast_in_dim %278, dims = [] : (tensor<f32>) -> tensor<1x8xf32>
    %284 = sdy.sharding_constraint %283 <@mesh, [{}, {}]> : tensor<1x8xf32>
    %285 = stablehlo.broadcast_in_dim %278, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
    %286 = sdy.sharding_constraint %285 <@mesh, [{"X"}, {}]> : tensor<8x8xf32>
    %287 = stablehlo.broadcast_in_dim %278, dims = [] : (tensor<f32>) -> tensor<1x8x16xf32>
    %288 = sdy.sharding_constraint %287 <@mesh, [{}, {}, {}]> : tensor<1x8x16xf32>
    %289 = stablehlo.broadcast_in_dim %278, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
    %290 = sdy.sharding_constraint %289 <@mesh, [{"X"}, {}, {}]> : tensor<8x8x16xf32>
    %291 = stablehlo.constant dense<0> : tensor<i32>
    %292 = stablehlo.broadcast_in_dim %291, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %293 = sdy.sharding_constraint %292 <@mesh, [{}]> : tensor<1xi32>
    %294 = stablehlo.broadcast_in_dim %291, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %295 = sdy.sharding_constraint %294 <@mesh, [{}]> : tensor<1xi32>
    %296 = stablehlo.broadcast_in_dim %278, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
    %297 = sdy.sharding_constraint %296 <@mesh, [{"X"}, {}]> : tensor<8x8xf32>
    %298 = stablehlo.broadcast_in_dim %278, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
    %299 = sdy.sharding_constraint %298 <@mesh, [{"X"}, {}]> : tensor<8x8xf32>
    %300 = stablehlo.broadcast_in_dim %278, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
    %301 = sdy.sharding_constraint %300 <@mesh, [{"X"}, {}, {}]> : tensor<8x8x16xf32>
    %302 = stablehlo.broadcast_in_dim %278, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
    %303 = sdy.sharding_constraint %302 <@mesh, [{"X"}, {}, {}]> : tensor<8x8x16xf32>
    %304 = stablehlo.broadcast_in_dim %278, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
    %305 = sdy.sharding_constraint %304 <@mesh, [{"X"}, {}, {}]> : tensor<8x8x16xf32>
    %306 = stablehlo.broadcast_in_dim %278, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
    %307 = sdy.sharding_constraint %306 <@mesh, [{"X"}, {}, {}]> : tensor<8x8x16xf32>
    %308 = stablehlo.broadcast_in_dim %291, dims = [] : (tensor<i32>) -> tensor<1x8xi32>
    %309 = sdy.sharding_constraint %308 <@mesh, [{}, {}]> : tensor<1x8xi32>
    %310 = stablehlo.broadcast_in_dim %278, dims = [] : (tensor<f32>) -> tensor<8x8x8xf32>
    %311 = sdy.sharding_constraint %310 <@mesh, [{"X"}, {}, {}]> : tensor<8x8x8xf32>
    %312 = stablehlo.broadcast_in_dim %278, dims = [] : (tensor<f32>) -> tensor<8x8x8xf32>
    %313 = sdy.sharding_constraint %312 <@mesh, [{"X"}, {}, {}]> : tensor<8x8x8xf32>
    %314 = stablehlo.broadcast_in_dim %278, dims = [] : (tensor<f32>) -> tensor<8x8x8x16xf32>
    %315 = sdy.sharding_constraint %314 <@mesh, [{"X"}, {}, {}, {}]> : tensor<8x8x8x16xf32>
    %316 = stablehlo.broadcast_in_dim %278, dims = [] : (tensor<f32>) -> tensor<8x8x8x16xf32>
    %317 = sdy.sharding_constraint %316 <@mesh, [{"X"}, {}, {}, {}]> : tensor<8x8x8x16xf32>
    %318 = stablehlo.broadcast_in_dim %278, dims = [] : (tensor<f32>) -> tensor<8x8x8x16xf32>
    %319 = sdy.sharding_constraint %318 <@mesh, [{"X"}, {}, {}, {}]> : tensor<8x8x8x16xf32>
    %320 = stablehlo.broadcast_in_dim %291, dims = [] : (tensor<i32>) -> tensor<1x8xi32>
    %321 = sdy.sharding_constraint %320 <@mesh, [{}, {}]> : tensor<1x8xi32>
    %322 = stablehlo.broadcast_in_dim %278, dims = [] : (tensor<f32>) -> tensor<8x8x16x8xf32>
    %323 = sdy.sharding_constraint %322 <@mesh, [{"X"}, {}, {}, {}]> : tensor<8x8x16x8xf32>
    %324 = stablehlo.broadcast_in_dim %278, dims = [] : (tensor<f32>) -> tensor<8x8x8x8xf32>
    %325 = sdy.sharding_constraint %324 <@mesh, [{"X"}, {}, {}, {}]> : tensor<8x8x8x8xf32>
    %326 = stablehlo.broadcast_in_dim %278, dims = [] : (tensor<f32>) -> tensor<8x8x8xf32>
    %327 = sdy.sharding_constraint %326 <@mesh, [{"X"}, {}, {}]> : tensor<8x8x8xf32>
    %328 = stablehlo.broadcast_in_dim %278, dims = [] : (tensor<f32>) -> tensor<8x8x8xf32>
    %329 = sdy.sharding_constraint %328 <@mesh, [{"X"}, {}, {}]> : tensor<8x8x8xf32>
    %330 = stablehlo.broadcast_in_dim %278, dims = [] : (tensor<f32>) -> tensor<8x8x8x1xf32>
    %331 = sdy.sharding_constraint %330 <@mesh, [{"X"}, {}, {}, {}]> : tensor<8x8x8x1xf32>
    %332 = stablehlo.broadcast_in_dim %278, dims = [] : (tensor<f32>) -> tensor<8x8x8x8xf32>
    %333 = sdy.sharding_constraint %332 <@mesh, [{"X"}, {}, {}, {}]> : tensor<8x8x8x8xf32>
    %334 = stablehlo.broadcast_in_dim %278, dims = [] : (tensor<f32>) -> tensor<8x8x8x8xf32>
    %335 = sdy.sharding_constraint %334 <@mesh, [{"X"}, {}, {}, {}]> : tensor<8x8x8x8xf32>
    %336 = stablehlo.broadcast_in_dim %278, dims = [] : (tensor<f32>) -> tensor<8x8x8xf32>
    %337 = sdy.sharding_constraint %336 <@mesh, [{"X"}, {}, {}]> : tensor<8x8x8xf32>
    %338 = stablehlo.broadcast_in_dim %278, dims = [] : (tensor<f32>) -> tensor<8x8x8xf32>
    %339 = sdy.sharding_constraint %338 <@mesh, [{"X"}, {}, {}]> : tensor<8x8x8xf32>
    %340 = stablehlo.broadcast_in_dim %278, dims = [] : (tensor<f32>) -> tensor<8x8x8xf32>
    %341 = sdy.sharding_constraint %340 <@mesh, [{"X"}, {}, {}]> : tensor<8x8x8xf32>
    %342 = stablehlo.broadcast_in_dim %278, dims = [] : (tensor<f32>) -> tensor<8x8x8xf32>
    %343 = sdy.sharding_constraint %342 <@mesh, [{"X"}, {}, {}]> : tensor<8x8x8xf32>
    %344 = stablehlo.broadcast_in_dim %278, dims = [] : (tensor<f32>) -> tensor<8x8x8xf32>
    %345 = sdy.sharding_constraint %344 <@mesh, [{"X"}, {}, {}]> : tensor<8x8x8xf32>
    %346 = stablehlo.broadcast_in_dim %278, dims = [] : (tensor<f32>) -> tensor<8x8x8x1xf32>
    %347 = sdy.sharding_constraint %346 <@mesh, [{"X"}, {}, {}, {}]> : tensor<8x8x8x1xf32>
    %348 = stablehlo.broadcast_in_dim %278, dims = [] : (tensor<f32>) -> tensor<8x8x8x16xf32>
    %349 = sdy.sharding_constraint %348 <@mesh, [{"X"}, {}, {}, {}]> : tensor<8x8x8x16xf32>
    %350 = stablehlo.broadcast_in_dim %278, dims = [] : (tensor<f32>) -> tensor<8x8x8x16xf32>
    %351 = sdy.sharding_constraint %350 <@mesh, [{"X"}, {}, {}, {}]> : tensor<8x8x8x16xf32>
    %352 = stablehlo.broadcast_in_dim %278, dims = [] : (tensor<f32>) -> tensor<8x8x8x16xf32>
    %353 = sdy.sharding_constraint %352 <@mesh, [{"X"}, {}, {}, {}]> : tensor<8x8x8x16xf32>
    %354 = stablehlo.broadcast_in_dim %278, dims = [] : (tensor<f32>) -> tensor<8x8x8x16xf32>
    %355 = sdy.sharding_constraint %354 <@mesh, [{"X"}, {}, {}, {}]> : tensor<8x8x8x16xf32>
    %356 = stablehlo.broadcast_in_dim %278, dims = [] : (tensor<f32>) -> tensor<8x8x8x16xf32>
    %357 = sdy.sharding_constraint %356 <@mesh, [{"X"}, {}, {}, {}]> : tensor<8x8x8x16xf32>
    %358 = stablehlo.broadcast_in_dim %278, dims = [] : (tensor<f32>) -> tensor<8x8x1xf32>
    %359 = sdy.sharding_constraint %358 <@mesh, [{"X"}, {}, {}]> : tensor<8x8x1xf32>
    %360 = stablehlo.broadcast_in_dim %278, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
    %361 = sdy.sharding_constraint %360 <@mesh, [{"X"}, {}, {}]> : tensor<8x8x16xf32>
    %362:3 = sdy.manual_computation(%1, %arg0, %arg0, %275, %2#1, %2#2, %2#3, %2#4, %2#5, %2#6, %2#7, %2#8, %2#9, %2#10, %2#11, %2#12, %2#13, %2#14, %2#15, %2#16, %2#17, %2#18, %2#19, %2#20, %2#21, %2#22, %2#23, %2#24, %2#25, %2#26, %2#27, %2#28, %2#29, %2#30, %2#31, %2#32, %2#33, %2#34, %2#35, %2#36, %2#37, %2#38, %2#39, %2#40, %2#41) in_shardings=[<@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{}]>, <@mesh, [{}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>] out_shardings=[<@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}]>] manual_axes={"X"} (%m363: tensor<8x16xf32>, %m364: tensor<8x16xf32>, %m365: tensor<8x16xf32>, %m366: tensor<8x16xf32>, %m367: tensor<1x8xf32>, %m368: tensor<1x8xf32>, %m369: tensor<1x8xf32>, %m370: tensor<1x8xf32>, %m371: tensor<1x8x16xf32>, %m372: tensor<1x8x16xf32>, %m373: tensor<1xi32>, %m374: tensor<1xi32>, %m375: tensor<1x8xf32>, %m376: tensor<1x8xf32>, %m377: tensor<1x8x16xf32>, %m378: tensor<1x8x16xf32>, %m379: tensor<1x8x16xf32>, %m380: tensor<1x8x16xf32>, %m381: tensor<1x8xi32>, %m382: tensor<1x8x8xf32>, %m383: tensor<1x8x8xf32>, %m384: tensor<1x8x8x16xf32>, %m385: tensor<1x8x8x16xf32>, %m386: tensor<1x8x8x16xf32>, %m387: tensor<1x8xi32>, %m388: tensor<1x8x16x8xf32>, %m389: tensor<1x8x8x8xf32>, %m390: tensor<1x8x8xf32>, %m391: tensor<1x8x8xf32>, %m392: tensor<1x8x8x1xf32>, %m393: tensor<1x8x8x8xf32>, %m394: tensor<1x8x8x8xf32>, %m395: tensor<1x8x8xf32>, %m396: tensor<1x8x8xf32>, %m397: tensor<1x8x8xf32>, %m398: tensor<1x8x8xf32>, %m399: tensor<1x8x8xf32>, %m400: tensor<1x8x8x1xf32>, %m401: tensor<1x8x8x16xf32>, %m402: tensor<1x8x8x16xf32>, %m403: tensor<1x8x8x16xf32>, %m404: tensor<1x8x8x16xf32>, %m405: tensor<1x8x8x16xf32>, %m406: tensor<1x8x1xf32>, %m407: tensor<1x8x16xf32>) {
      %408 = stablehlo.reshape %m367 : (tensor<1x8xf32>) -> tensor<8xf32>
      %409 = stablehlo.reshape %m368 : (tensor<1x8xf32>) -> tensor<8xf32>
      %410 = stablehlo.reshape %m369 : (tensor<1x8xf32>) -> tensor<8xf32>
      %411 = stablehlo.reshape %m370 : (tensor<1x8xf32>) -> tensor<8xf32>
      %412 = stablehlo.reshape %m371 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
      %413 = stablehlo.reshape %m372 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
      %414 = stablehlo.reshape %m373 : (tensor<1xi32>) -> tensor<i32>
      %415 = stablehlo.reshape %m374 : (tensor<1xi32>) -> tensor<i32>
      %416 = stablehlo.reshape %m375 : (tensor<1x8xf32>) -> tensor<8xf32>
      %417 = stablehlo.reshape %m376 : (tensor<1x8xf32>) -> tensor<8xf32>
      %418 = stablehlo.reshape %m377 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
      %419 = stablehlo.reshape %m378 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
      %420 = stablehlo.reshape %m379 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
      %421 = stablehlo.reshape %m380 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
      %422 = stablehlo.reshape %m381 : (tensor<1x8xi32>) -> tensor<8xi32>
      %423 = stablehlo.reshape %m382 : (tensor<1x8x8xf32>) -> tensor<8x8xf32>
      %424 = stablehlo.reshape %m383 : (tensor<1x8x8xf32>) -> tensor<8x8xf32>
      %425 = stablehlo.reshape %m384 : (tensor<1x8x8x16xf32>) -> tensor<8x8x16xf32>
      %426 = stablehlo.reshape %m385 : (tensor<1x8x8x16xf32>) -> tensor<8x8x16xf32>
      %427 = stablehlo.reshape %m386 : (tensor<1x8x8x16xf32>) -> tensor<8x8x16xf32>
      %428 = stablehlo.reshape %m387 : (tensor<1x8xi32>) -> tensor<8xi32>
      %429 = stablehlo.reshape %m388 : (tensor<1x8x16x8xf32>) -> tensor<8x16x8xf32>
      %430 = stablehlo.reshape %m389 : (tensor<1x8x8x8xf32>) -> tensor<8x8x8xf32>
      %431 = stablehlo.reshape %m390 : (tensor<1x8x8xf32>) -> tensor<8x8xf32>
      %432 = stablehlo.reshape %m391 : (tensor<1x8x8xf32>) -> tensor<8x8xf32>
      %433 = stablehlo.reshape %m392 : (tensor<1x8x8x1xf32>) -> tensor<8x8x1xf32>
      %434 = stablehlo.reshape %m393 : (tensor<1x8x8x8xf32>) -> tensor<8x8x8xf32>
      %435 = stablehlo.reshape %m394 : (tensor<1x8x8x8xf32>) -> tensor<8x8x8xf32>
      %436 = stablehlo.reshape %m395 : (tensor<1x8x8xf32>) -> tensor<8x8xf32>
      %437 = stablehlo.reshape %m396 : (tensor<1x8x8xf32>) -> tensor<8x8xf32>
      %438 = stablehlo.reshape %m397 : (tensor<1x8x8xf32>) -> tensor<8x8xf32>
      %439 = stablehlo.reshape %m398 : (tensor<1x8x8xf32>) -> tensor<8x8xf32>
      %440 = stablehlo.reshape %m399 : (tensor<1x8x8xf32>) -> tensor<8x8xf32>
      %441 = stablehlo.reshape %m400 : (tensor<1x8x8x1xf32>) -> tensor<8x8x1xf32>
      %442 = stablehlo.reshape %m401 : (tensor<1x8x8x16xf32>) -> tensor<8x8x16xf32>
      %443 = stablehlo.reshape %m402 : (tensor<1x8x8x16xf32>) -> tensor<8x8x16xf32>
      %444 = stablehlo.reshape %m403 : (tensor<1x8x8x16xf32>) -> tensor<8x8x16xf32>
      %445 = stablehlo.reshape %m404 : (tensor<1x8x8x16xf32>) -> tensor<8x8x16xf32>
      %446 = stablehlo.reshape %m405 : (tensor<1x8x8x16xf32>) -> tensor<8x8x16xf32>
      %447 = stablehlo.reshape %m406 : (tensor<1x8x1xf32>) -> tensor<8x1xf32>
      %448 = stablehlo.reshape %m407 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
      %449 = stablehlo.broadcast_in_dim %447, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x16xf32>
      %450 = stablehlo.divide %m366, %449 : tensor<8x16xf32>
      %451 = stablehlo.broadcast_in_dim %447, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x16xf32>
      %452 = stablehlo.divide %448, %451 : tensor<8x16xf32>
      %453 = stablehlo.multiply %m366, %452 : tensor<8x16xf32>
      %454 = stablehlo.negate %453 : tensor<8x16xf32>
      %455 = stablehlo.constant dense<0.0> : tensor<f32>
      %456 = stablehlo.reduce(%454 init: %455) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
      %457 = stablehlo.broadcast_in_dim %456, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
      %458 = stablehlo.constant dense<0.0> : tensor<f32>
      %459 = stablehlo.reduce(%457 init: %458) applies stablehlo.add across dimensions = [1] : (tensor<8x1xf32>, tensor<f32>) -> tensor<8xf32>
      %460 = stablehlo.constant dense<0> : tensor<i32>
      %461 = stablehlo.constant dense<0.0> : tensor<f32>
      %462 = stablehlo.broadcast_in_dim %461, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %463 = stablehlo.broadcast_in_dim %461, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
      %464 = stablehlo.broadcast_in_dim %461, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
      %465 = stablehlo.broadcast_in_dim %461, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
      %466 = stablehlo.broadcast_in_dim %460, dims = [] : (tensor<i32>) -> tensor<8xi32>
      %467 = stablehlo.broadcast_in_dim %461, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
      %468 = stablehlo.broadcast_in_dim %461, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
      %469 = stablehlo.broadcast_in_dim %461, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
      %470 = stablehlo.broadcast_in_dim %461, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
      %471 = stablehlo.broadcast_in_dim %461, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
      %472 = stablehlo.broadcast_in_dim %460, dims = [] : (tensor<i32>) -> tensor<8xi32>
      %473 = stablehlo.broadcast_in_dim %461, dims = [] : (tensor<f32>) -> tensor<8x16x8xf32>
      %474 = stablehlo.broadcast_in_dim %461, dims = [] : (tensor<f32>) -> tensor<8x8x8xf32>
      %475 = stablehlo.broadcast_in_dim %461, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
      %476 = stablehlo.broadcast_in_dim %461, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
      %477 = stablehlo.broadcast_in_dim %461, dims = [] : (tensor<f32>) -> tensor<8x8x1xf32>
      %478 = stablehlo.broadcast_in_dim %461, dims = [] : (tensor<f32>) -> tensor<8x8x8xf32>
      %479 = stablehlo.broadcast_in_dim %461, dims = [] : (tensor<f32>) -> tensor<8x8x8xf32>
      %480 = stablehlo.broadcast_in_dim %461, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
      %481 = stablehlo.broadcast_in_dim %461, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
      %482 = stablehlo.broadcast_in_dim %461, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
      %483 = stablehlo.broadcast_in_dim %461, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
      %484 = stablehlo.broadcast_in_dim %461, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
      %485 = stablehlo.broadcast_in_dim %461, dims = [] : (tensor<f32>) -> tensor<8x8x1xf32>
      %486 = stablehlo.broadcast_in_dim %461, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
      %487 = stablehlo.broadcast_in_dim %461, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
      %488 = stablehlo.broadcast_in_dim %461, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
      %489 = stablehlo.broadcast_in_dim %461, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
      %490 = stablehlo.broadcast_in_dim %461, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
      %491 = stablehlo.constant dense<0> : tensor<i32>
      %492:34 = "stablehlo.while"(%491, %460, %462, %459, %450, %463, %464, %465, %m363, %422, %423, %424, %425, %426, %427, %428, %429, %430, %431, %432, %433, %434, %435, %436, %437, %438, %439, %440, %441, %442, %443, %444, %445, %446) ({
      ^bb0(%w493: tensor<i32>, %w494: tensor<i32>, %w495: tensor<8xf32>, %w496: tensor<8xf32>, %w497: tensor<8x16xf32>, %w498: tensor<8x16xf32>, %w499: tensor<8x16xf32>, %w500: tensor<8x16xf32>, %w501: tensor<8x16xf32>, %w502: tensor<8xi32>, %w503: tensor<8x8xf32>, %w504: tensor<8x8xf32>, %w505: tensor<8x8x16xf32>, %w506: tensor<8x8x16xf32>, %w507: tensor<8x8x16xf32>, %w508: tensor<8xi32>, %w509: tensor<8x16x8xf32>, %w510: tensor<8x8x8xf32>, %w511: tensor<8x8xf32>, %w512: tensor<8x8xf32>, %w513: tensor<8x8x1xf32>, %w514: tensor<8x8x8xf32>, %w515: tensor<8x8x8xf32>, %w516: tensor<8x8xf32>, %w517: tensor<8x8xf32>, %w518: tensor<8x8xf32>, %w519: tensor<8x8xf32>, %w520: tensor<8x8xf32>, %w521: tensor<8x8x1xf32>, %w522: tensor<8x8x16xf32>, %w523: tensor<8x8x16xf32>, %w524: tensor<8x8x16xf32>, %w525: tensor<8x8x16xf32>, %w526: tensor<8x8x16xf32>):
        %527 = stablehlo.constant dense<8> : tensor<i32>
        %528 = stablehlo.compare LT, %w493, %527 : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %528 : tensor<i1>
      }, {
      ^bb0(%w529: tensor<i32>, %w530: tensor<i32>, %w531: tensor<8xf32>, %w532: tensor<8xf32>, %w533: tensor<8x16xf32>, %w534: tensor<8x16xf32>, %w535: tensor<8x16xf32>, %w536: tensor<8x16xf32>, %w537: tensor<8x16xf32>, %w538: tensor<8xi32>, %w539: tensor<8x8xf32>, %w540: tensor<8x8xf32>, %w541: tensor<8x8x16xf32>, %w542: tensor<8x8x16xf32>, %w543: tensor<8x8x16xf32>, %w544: tensor<8xi32>, %w545: tensor<8x16x8xf32>, %w546: tensor<8x8x8xf32>, %w547: tensor<8x8xf32>, %w548: tensor<8x8xf32>, %w549: tensor<8x8x1xf32>, %w550: tensor<8x8x8xf32>, %w551: tensor<8x8x8xf32>, %w552: tensor<8x8xf32>, %w553: tensor<8x8xf32>, %w554: tensor<8x8xf32>, %w555: tensor<8x8xf32>, %w556: tensor<8x8xf32>, %w557: tensor<8x8x1xf32>, %w558: tensor<8x8x16xf32>, %w559: tensor<8x8x16xf32>, %w560: tensor<8x8x16xf32>, %w561: tensor<8x8x16xf32>, %w562: tensor<8x8x16xf32>):
        %563 = stablehlo.constant dense<0> : tensor<i32>
        %564 = stablehlo.constant dense<1> : tensor<i32>
        %565 = stablehlo.constant dense<7> : tensor<i32>
        %566 = stablehlo.subtract %565, %w529 : tensor<i32>
        %567 = stablehlo.dynamic_slice %w538, %566, sizes = [1] : (tensor<8xi32>, tensor<i32>) -> tensor<1xi32>
        %568 = stablehlo.reshape %567 : (tensor<1xi32>) -> tensor<i32>
        %569 = stablehlo.dynamic_slice %w539, %566, %563, sizes = [1, 8] : (tensor<8x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
        %570 = stablehlo.reshape %569 : (tensor<1x8xf32>) -> tensor<8xf32>
        %571 = stablehlo.dynamic_slice %w540, %566, %563, sizes = [1, 8] : (tensor<8x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
        %572 = stablehlo.reshape %571 : (tensor<1x8xf32>) -> tensor<8xf32>
        %573 = stablehlo.dynamic_slice %w541, %566, %563, %563, sizes = [1, 8, 16] : (tensor<8x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16xf32>
        %574 = stablehlo.reshape %573 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
        %575 = stablehlo.dynamic_slice %w542, %566, %563, %563, sizes = [1, 8, 16] : (tensor<8x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16xf32>
        %576 = stablehlo.reshape %575 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
        %577 = stablehlo.dynamic_slice %w543, %566, %563, %563, sizes = [1, 8, 16] : (tensor<8x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16xf32>
        %578 = stablehlo.reshape %577 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
        %579 = stablehlo.dynamic_slice %w544, %566, sizes = [1] : (tensor<8xi32>, tensor<i32>) -> tensor<1xi32>
        %580 = stablehlo.reshape %579 : (tensor<1xi32>) -> tensor<i32>
        %581 = stablehlo.dynamic_slice %w545, %566, %563, %563, sizes = [1, 16, 8] : (tensor<8x16x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x16x8xf32>
        %582 = stablehlo.reshape %581 : (tensor<1x16x8xf32>) -> tensor<16x8xf32>
        %583 = stablehlo.dynamic_slice %w546, %566, %563, %563, sizes = [1, 8, 8] : (tensor<8x8x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x8xf32>
        %584 = stablehlo.reshape %583 : (tensor<1x8x8xf32>) -> tensor<8x8xf32>
        %585 = stablehlo.dynamic_slice %w547, %566, %563, sizes = [1, 8] : (tensor<8x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
        %586 = stablehlo.reshape %585 : (tensor<1x8xf32>) -> tensor<8xf32>
        %587 = stablehlo.dynamic_slice %w548, %566, %563, sizes = [1, 8] : (tensor<8x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
        %588 = stablehlo.reshape %587 : (tensor<1x8xf32>) -> tensor<8xf32>
        %589 = stablehlo.dynamic_slice %w549, %566, %563, %563, sizes = [1, 8, 1] : (tensor<8x8x1xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x1xf32>
        %590 = stablehlo.reshape %589 : (tensor<1x8x1xf32>) -> tensor<8x1xf32>
        %591 = stablehlo.dynamic_slice %w550, %566, %563, %563, sizes = [1, 8, 8] : (tensor<8x8x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x8xf32>
        %592 = stablehlo.reshape %591 : (tensor<1x8x8xf32>) -> tensor<8x8xf32>
        %593 = stablehlo.dynamic_slice %w551, %566, %563, %563, sizes = [1, 8, 8] : (tensor<8x8x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x8xf32>
        %594 = stablehlo.reshape %593 : (tensor<1x8x8xf32>) -> tensor<8x8xf32>
        %595 = stablehlo.dynamic_slice %w552, %566, %563, sizes = [1, 8] : (tensor<8x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
        %596 = stablehlo.reshape %595 : (tensor<1x8xf32>) -> tensor<8xf32>
        %597 = stablehlo.dynamic_slice %w553, %566, %563, sizes = [1, 8] : (tensor<8x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
        %598 = stablehlo.reshape %597 : (tensor<1x8xf32>) -> tensor<8xf32>
        %599 = stablehlo.dynamic_slice %w554, %566, %563, sizes = [1, 8] : (tensor<8x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
        %600 = stablehlo.reshape %599 : (tensor<1x8xf32>) -> tensor<8xf32>
        %601 = stablehlo.dynamic_slice %w555, %566, %563, sizes = [1, 8] : (tensor<8x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
        %602 = stablehlo.reshape %601 : (tensor<1x8xf32>) -> tensor<8xf32>
        %603 = stablehlo.dynamic_slice %w556, %566, %563, sizes = [1, 8] : (tensor<8x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
        %604 = stablehlo.reshape %603 : (tensor<1x8xf32>) -> tensor<8xf32>
        %605 = stablehlo.dynamic_slice %w557, %566, %563, %563, sizes = [1, 8, 1] : (tensor<8x8x1xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x1xf32>
        %606 = stablehlo.reshape %605 : (tensor<1x8x1xf32>) -> tensor<8x1xf32>
        %607 = stablehlo.dynamic_slice %w558, %566, %563, %563, sizes = [1, 8, 16] : (tensor<8x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16xf32>
        %608 = stablehlo.reshape %607 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
        %609 = stablehlo.dynamic_slice %w559, %566, %563, %563, sizes = [1, 8, 16] : (tensor<8x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16xf32>
        %610 = stablehlo.reshape %609 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
        %611 = stablehlo.dynamic_slice %w560, %566, %563, %563, sizes = [1, 8, 16] : (tensor<8x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16xf32>
        %612 = stablehlo.reshape %611 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
        %613 = stablehlo.dynamic_slice %w561, %566, %563, %563, sizes = [1, 8, 16] : (tensor<8x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16xf32>
        %614 = stablehlo.reshape %613 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
        %615 = stablehlo.dynamic_slice %w562, %566, %563, %563, sizes = [1, 8, 16] : (tensor<8x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16xf32>
        %616 = stablehlo.reshape %615 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
        %617 = "stablehlo.collective_permute"(%w535) <{channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>, source_target_pairs = dense<[[1, 0], [2, 1], [3, 2], [4, 3], [5, 4], [6, 5], [7, 6], [0, 7]]> : tensor<8x2xi64>}> : (tensor<8x16xf32>) -> tensor<8x16xf32>
        %618 = "stablehlo.collective_permute"(%w534) <{channel_handle = #stablehlo.channel_handle<handle = 4, type = 1>, source_target_pairs = dense<[[1, 0], [2, 1], [3, 2], [4, 3], [5, 4], [6, 5], [7, 6], [0, 7]]> : tensor<8x2xi64>}> : (tensor<8x16xf32>) -> tensor<8x16xf32>
        %619 = stablehlo.dot_general %w533, %578, contracting_dims = [1] x [1] : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x8xf32>
        %620 = stablehlo.dot_general %w533, %594, contracting_dims = [0] x [0] : (tensor<8x16xf32>, tensor<8x8xf32>) -> tensor<16x8xf32>
        %621 = stablehlo.transpose %620, dims = [1, 0] : (tensor<16x8xf32>) -> tensor<8x16xf32>
        %622 = stablehlo.add %617, %621 : tensor<8x16xf32>
        %623 = stablehlo.broadcast_in_dim %606, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x16xf32>
        %624 = stablehlo.multiply %w533, %623 : tensor<8x16xf32>
        %625 = stablehlo.multiply %w533, %574 : tensor<8x16xf32>
        %626 = stablehlo.constant dense<0.0> : tensor<f32>
        %627 = stablehlo.reduce(%625 init: %626) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
        %628 = stablehlo.broadcast_in_dim %627, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
        %629 = stablehlo.constant dense<0.0> : tensor<f32>
        %630 = stablehlo.reduce(%628 init: %629) applies stablehlo.add across dimensions = [1] : (tensor<8x1xf32>, tensor<f32>) -> tensor<8xf32>
        %631 = stablehlo.broadcast_in_dim %w532, dims = [0] : (tensor<8xf32>) -> tensor<8x8xf32>
        %632 = stablehlo.add %619, %631 : tensor<8x8xf32>
        %633 = stablehlo.multiply %w532, %598 : tensor<8xf32>
        %634 = stablehlo.multiply %w532, %572 : tensor<8xf32>
        %635 = stablehlo.add %630, %634 : tensor<8xf32>
        %636 = stablehlo.multiply %635, %598 : tensor<8xf32>
        %637 = stablehlo.negate %636 : tensor<8xf32>
        %638 = stablehlo.add %w531, %637 : tensor<8xf32>
        %639 = stablehlo.multiply %632, %594 : tensor<8x8xf32>
        %640 = stablehlo.negate %639 : tensor<8x8xf32>
        %641 = stablehlo.constant dense<0.0> : tensor<f32>
        %642 = stablehlo.reduce(%640 init: %641) applies stablehlo.add across dimensions = [1] : (tensor<8x8xf32>, tensor<f32>) -> tensor<8xf32>
        %643 = stablehlo.broadcast_in_dim %642, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
        %644 = stablehlo.constant dense<0.0> : tensor<f32>
        %645 = stablehlo.reduce(%643 init: %644) applies stablehlo.add across dimensions = [1] : (tensor<8x1xf32>, tensor<f32>) -> tensor<8xf32>
        %646 = stablehlo.add %638, %645 : tensor<8xf32>
        %647 = stablehlo.compare EQ, %570, %586, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
        %648 = stablehlo.convert %647 : (tensor<8xi1>) -> tensor<8xf32>
        %649 = stablehlo.constant dense<0.5> : tensor<f32>
        %650 = stablehlo.broadcast_in_dim %649, dims = [] : (tensor<f32>) -> tensor<8xf32>
        %651 = stablehlo.multiply %648, %650 : tensor<8xf32>
        %652 = stablehlo.compare GT, %570, %586, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
        %653 = stablehlo.convert %652 : (tensor<8xi1>) -> tensor<8xf32>
        %654 = stablehlo.add %653, %651 : tensor<8xf32>
        %655 = stablehlo.multiply %646, %654 : tensor<8xf32>
        %656 = stablehlo.compare EQ, %586, %570, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
        %657 = stablehlo.convert %656 : (tensor<8xi1>) -> tensor<8xf32>
        %658 = stablehlo.multiply %657, %650 : tensor<8xf32>
        %659 = stablehlo.compare GT, %586, %570, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
        %660 = stablehlo.convert %659 : (tensor<8xi1>) -> tensor<8xf32>
        %661 = stablehlo.add %660, %658 : tensor<8xf32>
        %662 = stablehlo.multiply %646, %661 : tensor<8xf32>
        %663 = stablehlo.add %636, %655 : tensor<8xf32>
        %664 = stablehlo.broadcast_in_dim %586, dims = [0] : (tensor<8xf32>) -> tensor<8x8xf32>
        %665 = stablehlo.compare EQ, %584, %664, FLOAT : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xi1>
        %666 = stablehlo.convert %665 : (tensor<8x8xi1>) -> tensor<8x8xf32>
        %667 = stablehlo.constant dense<0.0> : tensor<f32>
        %668 = stablehlo.reduce(%666 init: %667) applies stablehlo.add across dimensions = [1] : (tensor<8x8xf32>, tensor<f32>) -> tensor<8xf32>
        %669 = stablehlo.divide %662, %668 : tensor<8xf32>
        %670 = stablehlo.broadcast_in_dim %669, dims = [0] : (tensor<8xf32>) -> tensor<8x8xf32>
        %671 = stablehlo.multiply %670, %666 : tensor<8x8xf32>
        %672 = stablehlo.add %639, %671 : tensor<8x8xf32>
        %673 = stablehlo.dot_general %672, %582, contracting_dims = [1] x [1] : (tensor<8x8xf32>, tensor<16x8xf32>) -> tensor<8x16xf32>
        %674 = stablehlo.dot_general %672, %w537, contracting_dims = [0] x [0] : (tensor<8x8xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
        %675 = stablehlo.transpose %674, dims = [1, 0] : (tensor<8x16xf32>) -> tensor<16x8xf32>
        %676 = stablehlo.add %w536, %673 : tensor<8x16xf32>
        %677 = stablehlo.transpose %675, dims = [1, 0] : (tensor<16x8xf32>) -> tensor<8x16xf32>
        %678 = stablehlo.add %618, %677 : tensor<8x16xf32>
        %679 = stablehlo.constant dense<0> : tensor<i32>
        %680 = stablehlo.add %w529, %564 : tensor<i32>
        stablehlo.return %680, %679, %663, %633, %624, %678, %622, %676, %w537, %w538, %w539, %w540, %w541, %w542, %w543, %w544, %w545, %w546, %w547, %w548, %w549, %w550, %w551, %w552, %w553, %w554, %w555, %w556, %w557, %w558, %w559, %w560, %w561, %w562 : tensor<i32>, tensor<i32>, tensor<8xf32>, tensor<8xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8xi32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8xi32>, tensor<8x16x8xf32>, tensor<8x8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x1xf32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x1xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>
      }) : (tensor<i32>, tensor<i32>, tensor<8xf32>, tensor<8xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8xi32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8xi32>, tensor<8x16x8xf32>, tensor<8x8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x1xf32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x1xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>) -> (tensor<i32>, tensor<i32>, tensor<8xf32>, tensor<8xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8xi32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8xi32>, tensor<8x16x8xf32>, tensor<8x8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x1xf32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x1xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>)
      sdy.return %492#7, %492#5, %492#6 : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>
    } : (tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>, tensor<1x8xf32>, tensor<8x8xf32>, tensor<1x8xf32>, tensor<8x8xf32>, tensor<1x8x16xf32>, tensor<8x8x16xf32>, tensor<1xi32>, tensor<1xi32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<1x8xi32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8x16xf32>, tensor<8x8x8x16xf32>, tensor<8x8x8x16xf32>, tensor<1x8xi32>, tensor<8x8x16x8xf32>, tensor<8x8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8x1xf32>, tensor<8x8x8x8xf32>, tensor<8x8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8x1xf32>, tensor<8x8x8x16xf32>, tensor<8x8x8x16xf32>, tensor<8x8x8x16xf32>, tensor<8x8x8x16xf32>, tensor<8x8x8x16xf32>, tensor<8x8x1xf32>, tensor<8x8x16xf32>) -> (tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>)
    %681 = stablehlo.dot_general %362#0, %arg1, contracting_dims = [1] x [1] : (tensor<64x16xf32>, tensor<16x16xf32>) -> tensor<64x16xf32>
    %682 = sdy.sharding_constraint %681 <@mesh, [{"X"}, {}]> : tensor<64x16xf32>
    %683 = stablehlo.dot_general %362#0, %arg0, contracting_dims = [0] x [0] : (tensor<64x16xf32>, tensor<64x16xf32>) -> tensor<16x16xf32>
    %684 = sdy.sharding_constraint %683 <@mesh, [{}, {}]> : tensor<16x16xf32>
    %685 = stablehlo.transpose %684, dims = [1, 0] : (tensor<16x16xf32>) -> tensor<16x16xf32>
    %686 = sdy.sharding_constraint %685 <@mesh, [{}, {}]> : tensor<16x16xf32>
    %687 = stablehlo.constant dense<0.5> : tensor<f32>
    %688 = stablehlo.broadcast_in_dim %687, dims = [] : (tensor<f32>) -> tensor<16x16xf32>
    %689 = sdy.sharding_constraint %688 <@mesh, [{}, {}]> : tensor<16x16xf32>
    %690 = stablehlo.multiply %689, %686 : tensor<16x16xf32>
    %691 = sdy.sharding_constraint %690 <@mesh, [{}, {}]> : tensor<16x16xf32>
    %692 = stablehlo.subtract %arg1, %691 : tensor<16x16xf32>
    %693 = sdy.sharding_constraint %692 <@mesh, [{}, {}]> : tensor<16x16xf32>
    return %693, %262 : tensor<16x16xf32>, tensor<f32>
  }
}
