"""The FileCheck programs and CHECK lines of `conv_general_dilated` (joined into
`programs.PROGRAMS` and `test_filecheck.CHECKS`). The CHECK lines are the text JAX 0.10.2
emits for the same convolutions (`jax.jit(...).lower(...).as_text()`)."""
from __future__ import annotations

import shardc as sc

PROGRAMS = {
    # NCHW, a batch sharded over X, SAME padding with a stride and an rhs dilation
    "conv_general_dilated": ("2d", ("f32[8@X,3,8,8]", "f32[4,3,3,3]"),
                             lambda x, w: sc.lax.conv_general_dilated(x, w, (2, 1), "SAME", rhs_dilation=(1, 2),
                                                                      precision="highest")),
}

CHECKS = {
    "conv_general_dilated": [
        "CHECK: stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], "
        "window = {stride = [2, 1], pad = {{\\[\\[0, 1\\], \\[2, 2\\]\\]}}, lhs_dilate = [1, 1], rhs_dilate = [1, 2], "
        "reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, "
        "precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : "
        "(tensor<8x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<8x4x4x8xf32>",
        'CHECK-NEXT: sdy.sharding_constraint {{%[0-9]+}} <@mesh, [{"X"}, {}, {}, {}]>'],
}
