"""Lowering programs and FileCheck lines of `cholesky_update` (shardc/primitives/linalg_update.py)
and `scaled_dot` (shardc/primitives/scaled_dot.py), merged into `programs.PROGRAMS` and
`test_filecheck.CHECKS`. The CHECK lines follow what JAX 0.10.2 writes on CPU: cholesky_update is
JAX's `lower_fun` of its Givens sweep (per row: slices of R[k, k] and w[k], the rotation from
|x|, |y|, a square root, the row update written back by `dynamic_update_slice`; JAX's `cond` on
w[k] == 0 is a select of the same values here), on a mesh without Explicit axes (JAX has no sharding
rule for it); scaled_dot is a `stablehlo.composite "xla.scaled_dot"` with JAX's attributes whose
decomposition is a private function: the scales broadcast along the contracting dim, converted to
bf16 with the operands, multiplied, dotted, each step constrained to JAX's intermediate sharding."""
from __future__ import annotations

import shardc as sc

PROGRAMS = {
    "cholesky_update": ("all_auto", ("f32[2,2]", "f32[2]"), lambda r, w: sc.lax.linalg.cholesky_update(r, w)),
    "scaled_dot": ("2d", ("f32[4@X,8]", "f32[8,4@Y]"), lambda a, b: sc.lax.scaled_dot(a, b) * 2),
}

_ROW = [
    "CHECK: stablehlo.abs",
    "CHECK: stablehlo.compare GT",
    "CHECK: stablehlo.sqrt",
    "CHECK: stablehlo.compare EQ",
    "CHECK: stablehlo.select",
]

CHECKS = {
    "cholesky_update": [
        "CHECK: stablehlo.slice %arg0 [0:1, 0:1] : (tensor<2x2xf32>) -> tensor<1x1xf32>",
        "CHECK: stablehlo.slice %arg1 [0:1] : (tensor<2xf32>) -> tensor<1xf32>",
        *_ROW,
        "CHECK: stablehlo.slice %arg0 [0:1, 0:2] : (tensor<2x2xf32>) -> tensor<1x2xf32>",
        "CHECK: [[R0:%[0-9]+]] = stablehlo.dynamic_update_slice %arg0",
        "CHECK: stablehlo.slice [[R0]] [1:2, 1:2]",
        *_ROW,
        "CHECK: [[R1:%[0-9]+]] = stablehlo.dynamic_update_slice [[R0]]",
        "CHECK: return [[R1]] : tensor<2x2xf32>",
    ],
    "scaled_dot": [
        "CHECK: [[S:%[0-9]+]] = stablehlo.composite \"xla.scaled_dot\" %arg0, %arg1, {{%[0-9]+}}, {{%[0-9]+}} "
        "{composite_attributes = {dimension_numbers = {{\\[\\[\\[}}1], [0]], [[], []]], preferred_element_type = "
        "bf16}, decomposition = @xla.scaled_dot} : (tensor<4x8xf32>, tensor<8x4xf32>, tensor<4x1xf8E8M0FNU>, "
        "tensor<1x4xf8E8M0FNU>) -> tensor<4x4xbf16>",
        "CHECK-NEXT: sdy.sharding_constraint [[S]] <@mesh, [{}, {}]> : tensor<4x4xbf16>",
        "CHECK: func.func private @xla.scaled_dot(%arg0: tensor<4x8xf32>, %arg1: tensor<8x4xf32>, "
        "%arg2: tensor<4x1xf8E8M0FNU>, %arg3: tensor<1x4xf8E8M0FNU>) -> (tensor<4x4xbf16>)",
        "CHECK: stablehlo.broadcast_in_dim %arg2, dims = [0, 1] : (tensor<4x1xf8E8M0FNU>) -> tensor<4x1x1xf8E8M0FNU>",
        "CHECK: stablehlo.reshape {{%[0-9]+}} : (tensor<4x1x8xf8E8M0FNU>) -> tensor<4x8xf8E8M0FNU>",
        "CHECK: stablehlo.convert %arg0 : (tensor<4x8xf32>) -> tensor<4x8xbf16>",
        'CHECK-NEXT: sdy.sharding_constraint {{%[0-9]+}} <@mesh, [{"X"}, {}]>',
        "CHECK: stablehlo.multiply",
        "CHECK: stablehlo.convert %arg1 : (tensor<8x4xf32>) -> tensor<8x4xbf16>",
        "CHECK: [[D:%[0-9]+]] = stablehlo.dot_general {{%[0-9]+}}, {{%[0-9]+}}, contracting_dims = [1] x [0]",
        'CHECK-NEXT: [[C:%[0-9]+]] = sdy.sharding_constraint [[D]] <@mesh, [{"X"}, {"Y"}]>',
        "CHECK-NEXT: return [[C]] : tensor<4x4xbf16>",
    ],
}
