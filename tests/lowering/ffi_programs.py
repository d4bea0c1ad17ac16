"""Lowering programs and FileCheck lines of `ffi_call` / `ffi_call_effect`
(`shardc/primitives/ffi_call.py`), merged into `programs.PROGRAMS` and `test_filecheck.CHECKS`.
The CHECK lines are what JAX 0.10.2 writes for the same `jax.ffi.ffi_call`s on CPU
(`jax.jit(f).lower(...).as_text()`): one `stablehlo.custom_call` with the attributes in
`mhlo.backend_config`, the minor-to-major layouts, the aliases, `has_side_effect`, no `sdy`
sharding on the call and no constraint on its results."""
from __future__ import annotations

import numpy as np

import shardc as sc


def _potrf(x):
    s = sc.ShapeDtypeStruct
    return sc.ffi.ffi_call("lapack_spotrf_ffi", (s((8, 4, 4), np.float32), s((8,), np.int32)),
                           input_layouts=[(0, 2, 1)], output_layouts=[(0, 2, 1), None],
                           input_output_aliases={0: 0}, vmap_method="sequential")(x, uplo=np.uint8(ord("L")))


def _effect(x):
    sc.ffi.ffi_call("lapack_sgetrf_ffi", (), has_side_effect=True)()   # no result used: kept for its effect
    sc.ffi.ffi_call("my_target", (), has_side_effect=True, custom_call_api_version=2,
                    legacy_backend_config="opaque")(x)
    return x


PROGRAMS = {
    "ffi_call": ("2d", ("f32[8@X,4,4]",), _potrf),
    "ffi_call_effect": ("2d", ("f32[8@X,4]",), _effect),
}

CHECKS = {
    "ffi_call": [
        "CHECK: [[R:%[0-9]+]]:2 = stablehlo.custom_call @lapack_spotrf_ffi(%arg0)",
        'CHECK-SAME: {backend_config = "", mhlo.backend_config = {uplo = 76 : ui8}',
        "CHECK-SAME: operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>]",
        "CHECK-SAME: output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], "
        "operand_index = 0, operand_tuple_indices = []>]",
        "CHECK-SAME: result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<0> : tensor<1xindex>]}",
        "CHECK-SAME: : (tensor<8x4x4xf32>) -> (tensor<8x4x4xf32>, tensor<8xi32>)",
        "CHECK-NOT: sdy.sharding_constraint",
        "CHECK: return [[R]]#0, [[R]]#1",
    ],
    "ffi_call_effect": [
        'CHECK: stablehlo.custom_call @lapack_sgetrf_ffi() {backend_config = "", has_side_effect = true, '
        "mhlo.backend_config = {}, operand_layouts = [], result_layouts = []} : () -> ()",
        'CHECK: stablehlo.custom_call @my_target(%arg0) {api_version = 2 : i32, backend_config = "opaque", '
        "has_side_effect = true, operand_layouts = [dense<[1, 0]> : tensor<2xindex>], result_layouts = []} : "
        "(tensor<8x4xf32>) -> ()",
        "CHECK: return %arg0",
    ],
}
