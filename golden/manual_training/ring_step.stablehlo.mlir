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
    %278:3 = sdy.manual_computation(%1, %arg0, %arg0, %275, %2#1, %2#2, %2#3, %2#4, %2#5, %2#6, %2#7, %2#8, %2#9, %2#10, %2#11, %2#12, %2#13, %2#14, %2#15, %2#16, %2#17, %2#18, %2#19, %2#20, %2#21, %2#22, %2#23, %2#24, %2#25, %2#26, %2#27, %2#28, %2#29, %2#30, %2#31, %2#32, %2#33, %2#34, %2#35, %2#36, %2#37, %2#38, %2#39, %2#40, %2#41) in_shardings=[<@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{}]>, <@mesh, [{}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>, <@mesh, [{"X"}, {}, {}]>] out_shardings=[<@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}]>, <@mesh, [{"X"}, {}]>] manual_axes={"X"} (%m279: tensor<8x16xf32>, %m280: tensor<8x16xf32>, %m281: tensor<8x16xf32>, %m282: tensor<8x16xf32>, %m283: tensor<1x8xf32>, %m284: tensor<1x8xf32>, %m285: tensor<1x8xf32>, %m286: tensor<1x8xf32>, %m287: tensor<1x8x16xf32>, %m288: tensor<1x8x16xf32>, %m289: tensor<1xi32>, %m290: tensor<1xi32>, %m291: tensor<1x8xf32>, %m292: tensor<1x8xf32>, %m293: tensor<1x8x16xf32>, %m294: tensor<1x8x16xf32>, %m295: tensor<1x8x16xf32>, %m296: tensor<1x8x16xf32>, %m297: tensor<1x8xi32>, %m298: tensor<1x8x8xf32>, %m299: tensor<1x8x8xf32>, %m300: tensor<1x8x8x16xf32>, %m301: tensor<1x8x8x16xf32>, %m302: tensor<1x8x8x16xf32>, %m303: tensor<1x8xi32>, %m304: tensor<1x8x16x8xf32>, %m305: tensor<1x8x8x8xf32>, %m306: tensor<1x8x8xf32>, %m307: tensor<1x8x8xf32>, %m308: tensor<1x8x8x1xf32>, %m309: tensor<1x8x8x8xf32>, %m310: tensor<1x8x8x8xf32>, %m311: tensor<1x8x8xf32>, %m312: tensor<1x8x8xf32>, %m313: tensor<1x8x8xf32>, %m314: tensor<1x8x8xf32>, %m315: tensor<1x8x8xf32>, %m316: tensor<1x8x8x1xf32>, %m317: tensor<1x8x8x16xf32>, %m318: tensor<1x8x8x16xf32>, %m319: tensor<1x8x8x16xf32>, %m320: tensor<1x8x8x16xf32>, %m321: tensor<1x8x8x16xf32>, %m322: tensor<1x8x1xf32>, %m323: tensor<1x8x16xf32>) {
      %324 = stablehlo.reshape %m283 : (tensor<1x8xf32>) -> tensor<8xf32>
      %325 = stablehlo.reshape %m284 : (tensor<1x8xf32>) -> tensor<8xf32>
      %326 = stablehlo.reshape %m285 : (tensor<1x8xf32>) -> tensor<8xf32>
      %327 = stablehlo.reshape %m286 : (tensor<1x8xf32>) -> tensor<8xf32>
      %328 = stablehlo.reshape %m287 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
      %329 = stablehlo.reshape %m288 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
      %330 = stablehlo.reshape %m289 : (tensor<1xi32>) -> tensor<i32>
      %331 = stablehlo.reshape %m290 : (tensor<1xi32>) -> tensor<i32>
      %332 = stablehlo.reshape %m291 : (tensor<1x8xf32>) -> tensor<8xf32>
      %333 = stablehlo.reshape %m292 : (tensor<1x8xf32>) -> tensor<8xf32>
      %334 = stablehlo.reshape %m293 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
      %335 = stablehlo.reshape %m294 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
      %336 = stablehlo.reshape %m295 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
      %337 = stablehlo.reshape %m296 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
      %338 = stablehlo.reshape %m297 : (tensor<1x8xi32>) -> tensor<8xi32>
      %339 = stablehlo.reshape %m298 : (tensor<1x8x8xf32>) -> tensor<8x8xf32>
      %340 = stablehlo.reshape %m299 : (tensor<1x8x8xf32>) -> tensor<8x8xf32>
      %341 = stablehlo.reshape %m300 : (tensor<1x8x8x16xf32>) -> tensor<8x8x16xf32>
      %342 = stablehlo.reshape %m301 : (tensor<1x8x8x16xf32>) -> tensor<8x8x16xf32>
      %343 = stablehlo.reshape %m302 : (tensor<1x8x8x16xf32>) -> tensor<8x8x16xf32>
      %344 = stablehlo.reshape %m303 : (tensor<1x8xi32>) -> tensor<8xi32>
      %345 = stablehlo.reshape %m304 : (tensor<1x8x16x8xf32>) -> tensor<8x16x8xf32>
      %346 = stablehlo.reshape %m305 : (tensor<1x8x8x8xf32>) -> tensor<8x8x8xf32>
      %347 = stablehlo.reshape %m306 : (tensor<1x8x8xf32>) -> tensor<8x8xf32>
      %348 = stablehlo.reshape %m307 : (tensor<1x8x8xf32>) -> tensor<8x8xf32>
      %349 = stablehlo.reshape %m308 : (tensor<1x8x8x1xf32>) -> tensor<8x8x1xf32>
      %350 = stablehlo.reshape %m309 : (tensor<1x8x8x8xf32>) -> tensor<8x8x8xf32>
      %351 = stablehlo.reshape %m310 : (tensor<1x8x8x8xf32>) -> tensor<8x8x8xf32>
      %352 = stablehlo.reshape %m311 : (tensor<1x8x8xf32>) -> tensor<8x8xf32>
      %353 = stablehlo.reshape %m312 : (tensor<1x8x8xf32>) -> tensor<8x8xf32>
      %354 = stablehlo.reshape %m313 : (tensor<1x8x8xf32>) -> tensor<8x8xf32>
      %355 = stablehlo.reshape %m314 : (tensor<1x8x8xf32>) -> tensor<8x8xf32>
      %356 = stablehlo.reshape %m315 : (tensor<1x8x8xf32>) -> tensor<8x8xf32>
      %357 = stablehlo.reshape %m316 : (tensor<1x8x8x1xf32>) -> tensor<8x8x1xf32>
      %358 = stablehlo.reshape %m317 : (tensor<1x8x8x16xf32>) -> tensor<8x8x16xf32>
      %359 = stablehlo.reshape %m318 : (tensor<1x8x8x16xf32>) -> tensor<8x8x16xf32>
      %360 = stablehlo.reshape %m319 : (tensor<1x8x8x16xf32>) -> tensor<8x8x16xf32>
      %361 = stablehlo.reshape %m320 : (tensor<1x8x8x16xf32>) -> tensor<8x8x16xf32>
      %362 = stablehlo.reshape %m321 : (tensor<1x8x8x16xf32>) -> tensor<8x8x16xf32>
      %363 = stablehlo.reshape %m322 : (tensor<1x8x1xf32>) -> tensor<8x1xf32>
      %364 = stablehlo.reshape %m323 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
      %365 = stablehlo.broadcast_in_dim %363, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x16xf32>
      %366 = stablehlo.divide %m282, %365 : tensor<8x16xf32>
      %367 = stablehlo.broadcast_in_dim %363, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x16xf32>
      %368 = stablehlo.divide %364, %367 : tensor<8x16xf32>
      %369 = stablehlo.multiply %m282, %368 : tensor<8x16xf32>
      %370 = stablehlo.negate %369 : tensor<8x16xf32>
      %371 = stablehlo.constant dense<0.0> : tensor<f32>
      %372 = stablehlo.reduce(%370 init: %371) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
      %373 = stablehlo.broadcast_in_dim %372, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
      %374 = stablehlo.constant dense<0.0> : tensor<f32>
      %375 = stablehlo.reduce(%373 init: %374) applies stablehlo.add across dimensions = [1] : (tensor<8x1xf32>, tensor<f32>) -> tensor<8xf32>
      %376 = stablehlo.constant dense<0> : tensor<i32>
      %377 = stablehlo.constant dense<0.0> : tensor<f32>
      %378 = stablehlo.broadcast_in_dim %377, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %379 = stablehlo.broadcast_in_dim %377, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
      %380 = stablehlo.broadcast_in_dim %377, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
      %381 = stablehlo.broadcast_in_dim %377, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
      %382 = stablehlo.broadcast_in_dim %376, dims = [] : (tensor<i32>) -> tensor<8xi32>
      %383 = stablehlo.broadcast_in_dim %377, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
      %384 = stablehlo.broadcast_in_dim %377, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
      %385 = stablehlo.broadcast_in_dim %377, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
      %386 = stablehlo.broadcast_in_dim %377, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
      %387 = stablehlo.broadcast_in_dim %377, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
      %388 = stablehlo.broadcast_in_dim %376, dims = [] : (tensor<i32>) -> tensor<8xi32>
      %389 = stablehlo.broadcast_in_dim %377, dims = [] : (tensor<f32>) -> tensor<8x16x8xf32>
      %390 = stablehlo.broadcast_in_dim %377, dims = [] : (tensor<f32>) -> tensor<8x8x8xf32>
      %391 = stablehlo.broadcast_in_dim %377, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
      %392 = stablehlo.broadcast_in_dim %377, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
      %393 = stablehlo.broadcast_in_dim %377, dims = [] : (tensor<f32>) -> tensor<8x8x1xf32>
      %394 = stablehlo.broadcast_in_dim %377, dims = [] : (tensor<f32>) -> tensor<8x8x8xf32>
      %395 = stablehlo.broadcast_in_dim %377, dims = [] : (tensor<f32>) -> tensor<8x8x8xf32>
      %396 = stablehlo.broadcast_in_dim %377, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
      %397 = stablehlo.broadcast_in_dim %377, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
      %398 = stablehlo.broadcast_in_dim %377, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
      %399 = stablehlo.broadcast_in_dim %377, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
      %400 = stablehlo.broadcast_in_dim %377, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
      %401 = stablehlo.broadcast_in_dim %377, dims = [] : (tensor<f32>) -> tensor<8x8x1xf32>
      %402 = stablehlo.broadcast_in_dim %377, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
      %403 = stablehlo.broadcast_in_dim %377, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
      %404 = stablehlo.broadcast_in_dim %377, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
      %405 = stablehlo.broadcast_in_dim %377, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
      %406 = stablehlo.broadcast_in_dim %377, dims = [] : (tensor<f32>) -> tensor<8x8x16xf32>
      %407 = stablehlo.constant dense<0> : tensor<i32>
      %408:34 = "stablehlo.while"(%407, %376, %378, %375, %366, %379, %380, %381, %m279, %338, %339, %340, %341, %342, %343, %344, %345, %346, %347, %348, %349, %350, %351, %352, %353, %354, %355, %356, %357, %358, %359, %360, %361, %362) ({
      ^bb0(%w409: tensor<i32>, %w410: tensor<i32>, %w411: tensor<8xf32>, %w412: tensor<8xf32>, %w413: tensor<8x16xf32>, %w414: tensor<8x16xf32>, %w415: tensor<8x16xf32>, %w416: tensor<8x16xf32>, %w417: tensor<8x16xf32>, %w418: tensor<8xi32>, %w419: tensor<8x8xf32>, %w420: tensor<8x8xf32>, %w421: tensor<8x8x16xf32>, %w422: tensor<8x8x16xf32>, %w423: tensor<8x8x16xf32>, %w424: tensor<8xi32>, %w425: tensor<8x16x8xf32>, %w426: tensor<8x8x8xf32>, %w427: tensor<8x8xf32>, %w428: tensor<8x8xf32>, %w429: tensor<8x8x1xf32>, %w430: tensor<8x8x8xf32>, %w431: tensor<8x8x8xf32>, %w432: tensor<8x8xf32>, %w433: tensor<8x8xf32>, %w434: tensor<8x8xf32>, %w435: tensor<8x8xf32>, %w436: tensor<8x8xf32>, %w437: tensor<8x8x1xf32>, %w438: tensor<8x8x16xf32>, %w439: tensor<8x8x16xf32>, %w440: tensor<8x8x16xf32>, %w441: tensor<8x8x16xf32>, %w442: tensor<8x8x16xf32>):
        %443 = stablehlo.constant dense<8> : tensor<i32>
        %444 = stablehlo.compare LT, %w409, %443 : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %444 : tensor<i1>
      }, {
      ^bb0(%w445: tensor<i32>, %w446: tensor<i32>, %w447: tensor<8xf32>, %w448: tensor<8xf32>, %w449: tensor<8x16xf32>, %w450: tensor<8x16xf32>, %w451: tensor<8x16xf32>, %w452: tensor<8x16xf32>, %w453: tensor<8x16xf32>, %w454: tensor<8xi32>, %w455: tensor<8x8xf32>, %w456: tensor<8x8xf32>, %w457: tensor<8x8x16xf32>, %w458: tensor<8x8x16xf32>, %w459: tensor<8x8x16xf32>, %w460: tensor<8xi32>, %w461: tensor<8x16x8xf32>, %w462: tensor<8x8x8xf32>, %w463: tensor<8x8xf32>, %w464: tensor<8x8xf32>, %w465: tensor<8x8x1xf32>, %w466: tensor<8x8x8xf32>, %w467: tensor<8x8x8xf32>, %w468: tensor<8x8xf32>, %w469: tensor<8x8xf32>, %w470: tensor<8x8xf32>, %w471: tensor<8x8xf32>, %w472: tensor<8x8xf32>, %w473: tensor<8x8x1xf32>, %w474: tensor<8x8x16xf32>, %w475: tensor<8x8x16xf32>, %w476: tensor<8x8x16xf32>, %w477: tensor<8x8x16xf32>, %w478: tensor<8x8x16xf32>):
        %479 = stablehlo.constant dense<0> : tensor<i32>
        %480 = stablehlo.constant dense<1> : tensor<i32>
        %481 = stablehlo.constant dense<7> : tensor<i32>
        %482 = stablehlo.subtract %481, %w445 : tensor<i32>
        %483 = stablehlo.dynamic_slice %w454, %482, sizes = [1] : (tensor<8xi32>, tensor<i32>) -> tensor<1xi32>
        %484 = stablehlo.reshape %483 : (tensor<1xi32>) -> tensor<i32>
        %485 = stablehlo.dynamic_slice %w455, %482, %479, sizes = [1, 8] : (tensor<8x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
        %486 = stablehlo.reshape %485 : (tensor<1x8xf32>) -> tensor<8xf32>
        %487 = stablehlo.dynamic_slice %w456, %482, %479, sizes = [1, 8] : (tensor<8x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
        %488 = stablehlo.reshape %487 : (tensor<1x8xf32>) -> tensor<8xf32>
        %489 = stablehlo.dynamic_slice %w457, %482, %479, %479, sizes = [1, 8, 16] : (tensor<8x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16xf32>
        %490 = stablehlo.reshape %489 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
        %491 = stablehlo.dynamic_slice %w458, %482, %479, %479, sizes = [1, 8, 16] : (tensor<8x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16xf32>
        %492 = stablehlo.reshape %491 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
        %493 = stablehlo.dynamic_slice %w459, %482, %479, %479, sizes = [1, 8, 16] : (tensor<8x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16xf32>
        %494 = stablehlo.reshape %493 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
        %495 = stablehlo.dynamic_slice %w460, %482, sizes = [1] : (tensor<8xi32>, tensor<i32>) -> tensor<1xi32>
        %496 = stablehlo.reshape %495 : (tensor<1xi32>) -> tensor<i32>
        %497 = stablehlo.dynamic_slice %w461, %482, %479, %479, sizes = [1, 16, 8] : (tensor<8x16x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x16x8xf32>
        %498 = stablehlo.reshape %497 : (tensor<1x16x8xf32>) -> tensor<16x8xf32>
        %499 = stablehlo.dynamic_slice %w462, %482, %479, %479, sizes = [1, 8, 8] : (tensor<8x8x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x8xf32>
        %500 = stablehlo.reshape %499 : (tensor<1x8x8xf32>) -> tensor<8x8xf32>
        %501 = stablehlo.dynamic_slice %w463, %482, %479, sizes = [1, 8] : (tensor<8x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
        %502 = stablehlo.reshape %501 : (tensor<1x8xf32>) -> tensor<8xf32>
        %503 = stablehlo.dynamic_slice %w464, %482, %479, sizes = [1, 8] : (tensor<8x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
        %504 = stablehlo.reshape %503 : (tensor<1x8xf32>) -> tensor<8xf32>
        %505 = stablehlo.dynamic_slice %w465, %482, %479, %479, sizes = [1, 8, 1] : (tensor<8x8x1xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x1xf32>
        %506 = stablehlo.reshape %505 : (tensor<1x8x1xf32>) -> tensor<8x1xf32>
        %507 = stablehlo.dynamic_slice %w466, %482, %479, %479, sizes = [1, 8, 8] : (tensor<8x8x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x8xf32>
        %508 = stablehlo.reshape %507 : (tensor<1x8x8xf32>) -> tensor<8x8xf32>
        %509 = stablehlo.dynamic_slice %w467, %482, %479, %479, sizes = [1, 8, 8] : (tensor<8x8x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x8xf32>
        %510 = stablehlo.reshape %509 : (tensor<1x8x8xf32>) -> tensor<8x8xf32>
        %511 = stablehlo.dynamic_slice %w468, %482, %479, sizes = [1, 8] : (tensor<8x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
        %512 = stablehlo.reshape %511 : (tensor<1x8xf32>) -> tensor<8xf32>
        %513 = stablehlo.dynamic_slice %w469, %482, %479, sizes = [1, 8] : (tensor<8x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
        %514 = stablehlo.reshape %513 : (tensor<1x8xf32>) -> tensor<8xf32>
        %515 = stablehlo.dynamic_slice %w470, %482, %479, sizes = [1, 8] : (tensor<8x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
        %516 = stablehlo.reshape %515 : (tensor<1x8xf32>) -> tensor<8xf32>
        %517 = stablehlo.dynamic_slice %w471, %482, %479, sizes = [1, 8] : (tensor<8x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
        %518 = stablehlo.reshape %517 : (tensor<1x8xf32>) -> tensor<8xf32>
        %519 = stablehlo.dynamic_slice %w472, %482, %479, sizes = [1, 8] : (tensor<8x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
        %520 = stablehlo.reshape %519 : (tensor<1x8xf32>) -> tensor<8xf32>
        %521 = stablehlo.dynamic_slice %w473, %482, %479, %479, sizes = [1, 8, 1] : (tensor<8x8x1xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x1xf32>
        %522 = stablehlo.reshape %521 : (tensor<1x8x1xf32>) -> tensor<8x1xf32>
        %523 = stablehlo.dynamic_slice %w474, %482, %479, %479, sizes = [1, 8, 16] : (tensor<8x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16xf32>
        %524 = stablehlo.reshape %523 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
        %525 = stablehlo.dynamic_slice %w475, %482, %479, %479, sizes = [1, 8, 16] : (tensor<8x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16xf32>
        %526 = stablehlo.reshape %525 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
        %527 = stablehlo.dynamic_slice %w476, %482, %479, %479, sizes = [1, 8, 16] : (tensor<8x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16xf32>
        %528 = stablehlo.reshape %527 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
        %529 = stablehlo.dynamic_slice %w477, %482, %479, %479, sizes = [1, 8, 16] : (tensor<8x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16xf32>
        %530 = stablehlo.reshape %529 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
        %531 = stablehlo.dynamic_slice %w478, %482, %479, %479, sizes = [1, 8, 16] : (tensor<8x8x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x16xf32>
        %532 = stablehlo.reshape %531 : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
        %533 = "stablehlo.collective_permute"(%w451) <{channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>, source_target_pairs = dense<[[1, 0], [2, 1], [3, 2], [4, 3], [5, 4], [6, 5], [7, 6], [0, 7]]> : tensor<8x2xi64>}> : (tensor<8x16xf32>) -> tensor<8x16xf32>
        %534 = "stablehlo.collective_permute"(%w450) <{channel_handle = #stablehlo.channel_handle<handle = 4, type = 1>, source_target_pairs = dense<[[1, 0], [2, 1], [3, 2], [4, 3], [5, 4], [6, 5], [7, 6], [0, 7]]> : tensor<8x2xi64>}> : (tensor<8x16xf32>) -> tensor<8x16xf32>
        %535 = stablehlo.dot_general %w449, %494, contracting_dims = [1] x [1] : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x8xf32>
        %536 = stablehlo.dot_general %w449, %510, contracting_dims = [0] x [0] : (tensor<8x16xf32>, tensor<8x8xf32>) -> tensor<16x8xf32>
        %537 = stablehlo.transpose %536, dims = [1, 0] : (tensor<16x8xf32>) -> tensor<8x16xf32>
        %538 = stablehlo.add %533, %537 : tensor<8x16xf32>
        %539 = stablehlo.broadcast_in_dim %522, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x16xf32>
        %540 = stablehlo.multiply %w449, %539 : tensor<8x16xf32>
        %541 = stablehlo.multiply %w449, %490 : tensor<8x16xf32>
        %542 = stablehlo.constant dense<0.0> : tensor<f32>
        %543 = stablehlo.reduce(%541 init: %542) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
        %544 = stablehlo.broadcast_in_dim %543, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
        %545 = stablehlo.constant dense<0.0> : tensor<f32>
        %546 = stablehlo.reduce(%544 init: %545) applies stablehlo.add across dimensions = [1] : (tensor<8x1xf32>, tensor<f32>) -> tensor<8xf32>
        %547 = stablehlo.broadcast_in_dim %w448, dims = [0] : (tensor<8xf32>) -> tensor<8x8xf32>
        %548 = stablehlo.add %535, %547 : tensor<8x8xf32>
        %549 = stablehlo.multiply %w448, %514 : tensor<8xf32>
        %550 = stablehlo.multiply %w448, %488 : tensor<8xf32>
        %551 = stablehlo.add %546, %550 : tensor<8xf32>
        %552 = stablehlo.multiply %551, %514 : tensor<8xf32>
        %553 = stablehlo.negate %552 : tensor<8xf32>
        %554 = stablehlo.add %w447, %553 : tensor<8xf32>
        %555 = stablehlo.multiply %548, %510 : tensor<8x8xf32>
        %556 = stablehlo.negate %555 : tensor<8x8xf32>
        %557 = stablehlo.constant dense<0.0> : tensor<f32>
        %558 = stablehlo.reduce(%556 init: %557) applies stablehlo.add across dimensions = [1] : (tensor<8x8xf32>, tensor<f32>) -> tensor<8xf32>
        %559 = stablehlo.broadcast_in_dim %558, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
        %560 = stablehlo.constant dense<0.0> : tensor<f32>
        %561 = stablehlo.reduce(%559 init: %560) applies stablehlo.add across dimensions = [1] : (tensor<8x1xf32>, tensor<f32>) -> tensor<8xf32>
        %562 = stablehlo.add %554, %561 : tensor<8xf32>
        %563 = stablehlo.compare EQ, %486, %502, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
        %564 = stablehlo.convert %563 : (tensor<8xi1>) -> tensor<8xf32>
        %565 = stablehlo.constant dense<0.5> : tensor<f32>
        %566 = stablehlo.broadcast_in_dim %565, dims = [] : (tensor<f32>) -> tensor<8xf32>
        %567 = stablehlo.multiply %564, %566 : tensor<8xf32>
        %568 = stablehlo.compare GT, %486, %502, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
        %569 = stablehlo.convert %568 : (tensor<8xi1>) -> tensor<8xf32>
        %570 = stablehlo.add %569, %567 : tensor<8xf32>
        %571 = stablehlo.multiply %562, %570 : tensor<8xf32>
        %572 = stablehlo.compare EQ, %502, %486, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
        %573 = stablehlo.convert %572 : (tensor<8xi1>) -> tensor<8xf32>
        %574 = stablehlo.multiply %573, %566 : tensor<8xf32>
        %575 = stablehlo.compare GT, %502, %486, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
        %576 = stablehlo.convert %575 : (tensor<8xi1>) -> tensor<8xf32>
        %577 = stablehlo.add %576, %574 : tensor<8xf32>
        %578 = stablehlo.multiply %562, %577 : tensor<8xf32>
        %579 = stablehlo.add %552, %571 : tensor<8xf32>
        %580 = stablehlo.broadcast_in_dim %502, dims = [0] : (tensor<8xf32>) -> tensor<8x8xf32>
        %581 = stablehlo.compare EQ, %500, %580, FLOAT : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xi1>
        %582 = stablehlo.convert %581 : (tensor<8x8xi1>) -> tensor<8x8xf32>
        %583 = stablehlo.constant dense<0.0> : tensor<f32>
        %584 = stablehlo.reduce(%582 init: %583) applies stablehlo.add across dimensions = [1] : (tensor<8x8xf32>, tensor<f32>) -> tensor<8xf32>
        %585 = stablehlo.divide %578, %584 : tensor<8xf32>
        %586 = stablehlo.broadcast_in_dim %585, dims = [0] : (tensor<8xf32>) -> tensor<8x8xf32>
        %587 = stablehlo.multiply %586, %582 : tensor<8x8xf32>
        %588 = stablehlo.add %555, %587 : tensor<8x8xf32>
        %589 = stablehlo.dot_general %588, %498, contracting_dims = [1] x [1] : (tensor<8x8xf32>, tensor<16x8xf32>) -> tensor<8x16xf32>
        %590 = stablehlo.dot_general %588, %w453, contracting_dims = [0] x [0] : (tensor<8x8xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
        %591 = stablehlo.transpose %590, dims = [1, 0] : (tensor<8x16xf32>) -> tensor<16x8xf32>
        %592 = stablehlo.add %w452, %589 : tensor<8x16xf32>
        %593 = stablehlo.transpose %591, dims = [1, 0] : (tensor<16x8xf32>) -> tensor<8x16xf32>
        %594 = stablehlo.add %534, %593 : tensor<8x16xf32>
        %595 = stablehlo.constant dense<0> : tensor<i32>
        %596 = stablehlo.add %w445, %480 : tensor<i32>
        stablehlo.return %596, %595, %579, %549, %540, %594, %538, %592, %w453, %w454, %w455, %w456, %w457, %w458, %w459, %w460, %w461, %w462, %w463, %w464, %w465, %w466, %w467, %w468, %w469, %w470, %w471, %w472, %w473, %w474, %w475, %w476, %w477, %w478 : tensor<i32>, tensor<i32>, tensor<8xf32>, tensor<8xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8xi32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8xi32>, tensor<8x16x8xf32>, tensor<8x8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x1xf32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x1xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>
      }) : (tensor<i32>, tensor<i32>, tensor<8xf32>, tensor<8xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8xi32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8xi32>, tensor<8x16x8xf32>, tensor<8x8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x1xf32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x1xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>) -> (tensor<i32>, tensor<i32>, tensor<8xf32>, tensor<8xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8xi32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8xi32>, tensor<8x16x8xf32>, tensor<8x8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x1xf32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x1xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>)
      sdy.return %408#7, %408#5, %408#6 : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>
    } : (tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>, tensor<1x8xf32>, tensor<8x8xf32>, tensor<1x8xf32>, tensor<8x8xf32>, tensor<1x8x16xf32>, tensor<8x8x16xf32>, tensor<1xi32>, tensor<1xi32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<8x8x16xf32>, tensor<1x8xi32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8x16xf32>, tensor<8x8x8x16xf32>, tensor<8x8x8x16xf32>, tensor<1x8xi32>, tensor<8x8x16x8xf32>, tensor<8x8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8x1xf32>, tensor<8x8x8x8xf32>, tensor<8x8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8x1xf32>, tensor<8x8x8x16xf32>, tensor<8x8x8x16xf32>, tensor<8x8x8x16xf32>, tensor<8x8x8x16xf32>, tensor<8x8x8x16xf32>, tensor<8x8x1xf32>, tensor<8x8x16xf32>) -> (tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>)
    %597 = stablehlo.dot_general %278#0, %arg1, contracting_dims = [1] x [1] : (tensor<64x16xf32>, tensor<16x16xf32>) -> tensor<64x16xf32>
    %598 = sdy.sharding_constraint %597 <@mesh, [{"X"}, {}]> : tensor<64x16xf32>
    %599 = stablehlo.dot_general %278#0, %arg0, contracting_dims = [0] x [0] : (tensor<64x16xf32>, tensor<64x16xf32>) -> tensor<16x16xf32>
    %600 = sdy.sharding_constraint %599 <@mesh, [{}, {}]> : tensor<16x16xf32>
    %601 = stablehlo.transpose %600, dims = [1, 0] : (tensor<16x16xf32>) -> tensor<16x16xf32>
    %602 = sdy.sharding_constraint %601 <@mesh, [{}, {}]> : tensor<16x16xf32>
    %603 = stablehlo.constant dense<0.5> : tensor<f32>
    %604 = stablehlo.broadcast_in_dim %603, dims = [] : (tensor<f32>) -> tensor<16x16xf32>
    %605 = sdy.sharding_constraint %604 <@mesh, [{}, {}]> : tensor<16x16xf32>
    %606 = stablehlo.multiply %605, %602 : tensor<16x16xf32>
    %607 = sdy.sharding_constraint %606 <@mesh, [{}, {}]> : tensor<16x16xf32>
    %608 = stablehlo.subtract %arg1, %607 : tensor<16x16xf32>
    %609 = sdy.sharding_constraint %608 <@mesh, [{}, {}]> : tensor<16x16xf32>
    return %609, %262 : tensor<16x16xf32>, tensor<f32>
  }
}
