"""Lowering programs and FileCheck lines of the linalg primitives (`shardc/primitives/linalg.py`),
merged into `programs.PROGRAMS` and `test_filecheck.CHECKS`. The CHECK lines follow what JAX
0.10.2 emits on CPU for the same programs (`jax.jit(f).lower(...).as_text()`): the LAPACK FFI
custom calls with column-major layouts, `num_batch_dims`, the output-operand alias and the
`sdy.sharding_rule` whose batch factors are shared, then the NaN mask from `info` (lu: the
0-based pivots, and the permutation by a while loop over the row swaps)."""
from __future__ import annotations

from shardc import lax
from shardc.core import bind
from shardc.primitives import linalg as la

PROGRAMS = {
    "cholesky": ("2d", ("f32[8@X,4,4]",), lambda x: bind(la.cholesky_p, x)),
    "triangular_solve": ("2d", ("f32[8@X,4,4]", "f32[8@X,4,4@Y]"),
                         lambda a, b: lax.linalg.triangular_solve(a, b, left_side=True, lower=True,
                                                                  transpose_a=True)),
    "lu": ("2d", ("f32[8@X,4,3]",), lambda x: lax.linalg.lu(x)),
    # (replicated: JAX's qr lowering rejects a sharded batch, see `Qr.lower`)
    "qr": ("2d", ("f32[8,5,3]",), lambda x: lax.linalg.qr(x, full_matrices=False)),
    "eigh": ("2d", ("f32[8@X,4,4]",), lambda x: lax.linalg.eigh(x, symmetrize_input=False)),
    "svd": ("2d", ("f32[8@X,4,3]",), lambda x: lax.linalg.svd(x)),
    "eig": ("2d", ("f32[8@X,4,4]",), lambda x: lax.linalg.eig(x, compute_left_eigenvectors=False)),
    "lu_pivots_to_permutation": ("2d", ("i32[8@X,3]",), lambda p: lax.linalg.lu_pivots_to_permutation(p, 4)),
    "hessenberg": ("2d", ("f32[8@X,4,4]",), lambda x: lax.linalg.hessenberg(x)),
    "householder_product": ("2d", ("f32[8@X,5,3]", "f32[8@X,2]"), lambda a, t: lax.linalg.householder_product(a, t)),
    "schur": ("2d", ("f32[8@X,4,4]",), lambda x: lax.linalg.schur(x)),
    "tridiagonal": ("2d", ("c64[8@X,4,4]",), lambda x: lax.linalg.tridiagonal(x, lower=False)),
    "tridiagonal_solve": ("2d", ("f32[8@X,4]", "f32[8@X,4]", "f32[8@X,4]", "f32[8@X,4,3]"),
                          lambda dl, d, du, b: lax.linalg.tridiagonal_solve(dl, d, du, b)),
    "ormqr": ("2d", ("f32[8@X,5,3]", "f32[8@X,3]", "f32[8@X,5,4]"),
              lambda a, t, c: lax.linalg.ormqr(a, t, c, transpose=True)),
    "symmetric_product": ("2d", ("f32[8@X,4,3]", "f32[8@X,4,4]"),
                          lambda a, c: lax.linalg.symmetric_product(a, c, alpha=2.0, beta=0.5)),
}

_ALIAS0 = ("output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [{}], "
           "operand_index = {}, operand_tuple_indices = []>]")

CHECKS = {
    "cholesky": [
        "CHECK: [[R:%[0-9]+]]:2 = stablehlo.custom_call @lapack_spotrf_ffi(%arg0)",
        'CHECK-SAME: backend_config = "", mhlo.backend_config = {uplo = 76 : ui8}',
        'CHECK-SAME: mhlo.frontend_attributes = {num_batch_dims = "1"}',
        "CHECK-SAME: operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>]",
        "CHECK-SAME: " + _ALIAS0.format(0, 0),
        "CHECK-SAME: result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<0> : tensor<1xindex>]",
        "CHECK-SAME: sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i]) "
        "{i=8, j=4, k=4, l=4, m=4}, custom>",
        "CHECK-SAME: (tensor<8x4x4xf32>) -> (tensor<8x4x4xf32>, tensor<8xi32>)",
        "CHECK: [[OK:%[0-9]+]] = stablehlo.compare EQ, [[R]]#1, {{%[0-9]+}}, SIGNED",
        "CHECK: [[OK3:%[0-9]+]] = stablehlo.broadcast_in_dim [[OK]], dims = [0] : "
        "(tensor<8xi1>) -> tensor<8x1x1xi1>",
        "CHECK: [[NAN:%[0-9]+]] = stablehlo.constant dense<0x7FC00000> : tensor<f32>",
        "CHECK: stablehlo.select {{%[0-9]+}}, [[R]]#0, {{%[0-9]+}} : tensor<8x4x4xi1>, tensor<8x4x4xf32>",
        'CHECK-NEXT: sdy.sharding_constraint {{%[0-9]+}} <@mesh, [{"X"}, {}, {}]>',
    ],
    "triangular_solve": [
        "CHECK: stablehlo.custom_call @lapack_strsm_ffi(%arg0, %arg1)",
        'CHECK-SAME: backend_config = "", mhlo.backend_config = {diag = 78 : ui8, side = 76 : ui8, '
        "trans_x = 84 : ui8, uplo = 76 : ui8}",
        'CHECK-SAME: mhlo.frontend_attributes = {num_batch_dims = "1"}',
        "CHECK-SAME: operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>]",
        "CHECK-SAME: output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], "
        "operand_index = 1, operand_tuple_indices = []>]",
        "CHECK-SAME: result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>]",
        "CHECK-SAME: sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k], [i, l, m])->([i, n, o]) "
        "{i=8, j=4, k=4, l=4, m=4, n=4, o=4}, custom>",
        'CHECK-NEXT: sdy.sharding_constraint {{%[0-9]+}} <@mesh, [{"X"}, {}, {"Y"}]>',
    ],
    "lu": [
        "CHECK: [[R:%[0-9]+]]:3 = stablehlo.custom_call @lapack_sgetrf_ffi(%arg0)",
        'CHECK-SAME: backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}',
        "CHECK-SAME: operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>]",
        "CHECK-SAME: " + _ALIAS0.format(0, 0),
        "CHECK-SAME: result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, "
        "dense<0> : tensor<1xindex>]",
        "CHECK-SAME: sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n], [i]) "
        "{i=8, j=4, k=3, l=4, m=3, n=3}, custom>",
        "CHECK-SAME: (tensor<8x4x3xf32>) -> (tensor<8x4x3xf32>, tensor<8x3xi32>, tensor<8xi32>)",
        "CHECK: [[PIV:%[0-9]+]] = stablehlo.subtract [[R]]#1, {{%[0-9]+}} : tensor<8x3xi32>",
        "CHECK: stablehlo.compare GE, [[R]]#2, {{%[0-9]+}}, SIGNED",
        "CHECK: [[LU:%[0-9]+]] = stablehlo.select {{%[0-9]+}}, [[R]]#0, {{%[0-9]+}} : tensor<8x4x3xi1>, "
        "tensor<8x4x3xf32>",
        "CHECK: [[IOTA:%[0-9]+]] = stablehlo.iota dim = 1 : tensor<8x4xi32>",
        'CHECK: [[W:%[0-9]+]]:3 = "stablehlo.while"({{%[0-9]+}}, [[IOTA]], [[PIV]])',
        "CHECK: stablehlo.dynamic_slice",
        "CHECK: stablehlo.return",
        'CHECK: sdy.sharding_constraint [[LU]] <@mesh, [{"X"}, {}, {}]>',
        'CHECK-NEXT: sdy.sharding_constraint [[PIV]] <@mesh, [{"X"}, {}]>',
        'CHECK-NEXT: sdy.sharding_constraint [[W]]#1 <@mesh, [{"X"}, {}]>',
    ],
    "qr": [
        "CHECK: [[R:%[0-9]+]]:2 = stablehlo.custom_call @lapack_sgeqrf_ffi(%arg0)",
        'CHECK-SAME: mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}',
        "CHECK-SAME: " + _ALIAS0.format(0, 0),
        "CHECK-SAME: result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>]",
        "CHECK-SAME: sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n]) "
        "{i=8, j=5, k=3, l=5, m=3, n=3}, custom>",
        "CHECK: [[Q:%[0-9]+]] = stablehlo.custom_call @lapack_sorgqr_ffi([[R]]#0, [[R]]#1)",
        "CHECK-SAME: operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>]",
        "CHECK-SAME: output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], "
        "operand_index = 0, operand_tuple_indices = []>]",
        "CHECK-SAME: sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k], [i, l])->([i, m, n]) "
        "{i=8, j=5, k=3, l=3, m=5, n=3}, custom>",
        "CHECK: [[RS:%[0-9]+]] = stablehlo.slice [[R]]#0 [0:8, 0:3, 0:3]",
        "CHECK: stablehlo.compare GE",
        "CHECK: [[RT:%[0-9]+]] = stablehlo.select {{%[0-9]+}}, {{%[0-9]+}}, [[RS]] : tensor<8x3x3xi1>, "
        "tensor<8x3x3xf32>",
        "CHECK: sdy.sharding_constraint [[Q]] <@mesh, [{}, {}, {}]>",
        "CHECK-NEXT: sdy.sharding_constraint [[RT]] <@mesh, [{}, {}, {}]>",
    ],
    "eigh": [
        "CHECK: [[R:%[0-9]+]]:3 = stablehlo.custom_call @lapack_ssyevd_ffi(%arg0)",
        'CHECK-SAME: mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}, '
        'mhlo.frontend_attributes = {num_batch_dims = "1"}',
        "CHECK-SAME: " + _ALIAS0.format(0, 0),
        "CHECK-SAME: result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, "
        "dense<0> : tensor<1xindex>]",
        "CHECK-SAME: sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n], [i]) "
        "{i=8, j=4, k=4, l=4, m=4, n=4}, custom>",
        "CHECK-SAME: (tensor<8x4x4xf32>) -> (tensor<8x4x4xf32>, tensor<8x4xf32>, tensor<8xi32>)",
        "CHECK: stablehlo.compare EQ, [[R]]#2",
        "CHECK: [[V:%[0-9]+]] = stablehlo.select {{%[0-9]+}}, [[R]]#0, {{%[0-9]+}} : tensor<8x4x4xi1>",
        "CHECK: stablehlo.broadcast_in_dim {{%[0-9]+}}, dims = [0] : (tensor<8xi1>) -> tensor<8x1xi1>",
        "CHECK: [[W:%[0-9]+]] = stablehlo.select {{%[0-9]+}}, [[R]]#1, {{%[0-9]+}} : tensor<8x4xi1>",
        'CHECK: sdy.sharding_constraint [[V]] <@mesh, [{"X"}, {}, {}]>',
        'CHECK-NEXT: sdy.sharding_constraint [[W]] <@mesh, [{"X"}, {}]>',
    ],
    "svd": [
        "CHECK: [[R:%[0-9]+]]:5 = stablehlo.custom_call @lapack_sgesdd_ffi(%arg0)",
        'CHECK-SAME: mhlo.backend_config = {mode = 65 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}',
        "CHECK-SAME: " + _ALIAS0.format(0, 0),
        "CHECK-SAME: result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, "
        "dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<0> : tensor<1xindex>]",
        "CHECK-SAME: sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n], [i, o, p], "
        "[i, q, r], [i]) {i=8, j=4, k=3, l=4, m=3, n=3, o=4, p=4, q=3, r=3}, custom>",
        "CHECK-SAME: (tensor<8x4x3xf32>) -> (tensor<8x4x3xf32>, tensor<8x3xf32>, tensor<8x4x4xf32>, "
        "tensor<8x3x3xf32>, tensor<8xi32>)",
        "CHECK: [[S:%[0-9]+]] = stablehlo.select {{%[0-9]+}}, [[R]]#1, {{%[0-9]+}} : tensor<8x3xi1>",
        "CHECK: [[U:%[0-9]+]] = stablehlo.select {{%[0-9]+}}, [[R]]#2, {{%[0-9]+}} : tensor<8x4x4xi1>",
        "CHECK: [[V:%[0-9]+]] = stablehlo.select {{%[0-9]+}}, [[R]]#3, {{%[0-9]+}} : tensor<8x3x3xi1>",
        'CHECK: sdy.sharding_constraint [[S]] <@mesh, [{"X"}, {}]>',
        'CHECK-NEXT: sdy.sharding_constraint [[U]] <@mesh, [{"X"}, {}, {}]>',
        'CHECK-NEXT: sdy.sharding_constraint [[V]] <@mesh, [{"X"}, {}, {}]>',
    ],
    "eig": [
        "CHECK: [[R:%[0-9]+]]:5 = stablehlo.custom_call @lapack_sgeev_ffi(%arg0)",
        'CHECK-SAME: backend_config = "", mhlo.backend_config = {compute_left = 78 : ui8, compute_right = 86 : ui8}, '
        'mhlo.frontend_attributes = {num_batch_dims = "1"}',
        "CHECK-SAME: operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>]",
        "CHECK-SAME: result_layouts = [dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, "
        "dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<0> : tensor<1xindex>]",
        "CHECK-SAME: sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l], [i, m], [i, n, o], "
        "[i, p, q], [i]) {i=8, j=4, k=4, l=4, m=4, n=4, o=4, p=4, q=4}, custom>",
        "CHECK-SAME: (tensor<8x4x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4x4xcomplex<f32>>, "
        "tensor<8x4x4xcomplex<f32>>, tensor<8xi32>)",
        "CHECK: [[W:%[0-9]+]] = stablehlo.complex [[R]]#0, [[R]]#1 : tensor<8x4xcomplex<f32>>",
        "CHECK: [[OK:%[0-9]+]] = stablehlo.compare EQ, [[R]]#4, {{%[0-9]+}}, SIGNED",
        "CHECK: stablehlo.broadcast_in_dim [[OK]], dims = [0] : (tensor<8xi1>) -> tensor<8x1xi1>",
        "CHECK: [[WN:%[0-9]+]] = stablehlo.select {{%[0-9]+}}, [[W]], {{%[0-9]+}} : tensor<8x4xi1>",
        "CHECK: stablehlo.broadcast_in_dim [[OK]], dims = [0] : (tensor<8xi1>) -> tensor<8x1x1xi1>",
        "CHECK: [[VN:%[0-9]+]] = stablehlo.select {{%[0-9]+}}, [[R]]#3, {{%[0-9]+}} : tensor<8x4x4xi1>",
        'CHECK: sdy.sharding_constraint [[WN]] <@mesh, [{"X"}, {}]>',
        'CHECK-NEXT: sdy.sharding_constraint [[VN]] <@mesh, [{"X"}, {}, {}]>',
    ],
    # JAX: a stablehlo.while over the k swaps from iota(m) (its body gathers/scatters; here selects)
    "lu_pivots_to_permutation": [
        "CHECK: [[IOTA:%[0-9]+]] = stablehlo.iota dim = 1 : tensor<8x4xi32>",
        'CHECK: [[W:%[0-9]+]]:3 = "stablehlo.while"({{%[0-9]+}}, [[IOTA]], %arg0)',
        "CHECK: stablehlo.compare LT",
        "CHECK: stablehlo.dynamic_slice",
        'CHECK: sdy.sharding_constraint [[W]]#1 <@mesh, [{"X"}, {}]>',
    ],
    "hessenberg": [
        "CHECK: [[R:%[0-9]+]]:3 = stablehlo.custom_call @lapack_sgehrd_ffi(%arg0)",
        'CHECK-SAME: backend_config = "", mhlo.backend_config = {high = 4 : i32, low = 1 : i32}, '
        'mhlo.frontend_attributes = {num_batch_dims = "1"}',
        "CHECK-SAME: operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>]",
        "CHECK-SAME: " + _ALIAS0.format(0, 0),
        "CHECK-SAME: result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, "
        "dense<0> : tensor<1xindex>]",
        "CHECK-SAME: sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n], [i]) "
        "{i=8, j=4, k=4, l=4, m=4, n=3}, custom>",
        "CHECK: [[OK:%[0-9]+]] = stablehlo.compare EQ, [[R]]#2, {{%[0-9]+}}, SIGNED",
        "CHECK: [[A:%[0-9]+]] = stablehlo.select {{%[0-9]+}}, [[R]]#0, {{%[0-9]+}} : tensor<8x4x4xi1>",
        "CHECK: stablehlo.broadcast_in_dim [[OK]], dims = [0] : (tensor<8xi1>) -> tensor<8x1xi1>",
        "CHECK: [[T:%[0-9]+]] = stablehlo.select {{%[0-9]+}}, [[R]]#1, {{%[0-9]+}} : tensor<8x3xi1>",
        'CHECK: sdy.sharding_constraint [[A]] <@mesh, [{"X"}, {}, {}]>',
        'CHECK-NEXT: sdy.sharding_constraint [[T]] <@mesh, [{"X"}, {}]>',
    ],
    "householder_product": [
        "CHECK: [[Q:%[0-9]+]] = stablehlo.custom_call @lapack_sorgqr_ffi(%arg0, %arg1)",
        'CHECK-SAME: backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}',
        "CHECK-SAME: operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>]",
        "CHECK-SAME: output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], "
        "operand_index = 0, operand_tuple_indices = []>]",
        "CHECK-SAME: result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>]",
        "CHECK-SAME: sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k], [i, l])->([i, m, n]) "
        "{i=8, j=5, k=3, l=2, m=5, n=3}, custom>",
        'CHECK: sdy.sharding_constraint [[Q]] <@mesh, [{"X"}, {}, {}]>',
    ],
    "schur": [
        "CHECK: [[R:%[0-9]+]]:6 = stablehlo.custom_call @lapack_sgees_ffi(%arg0)",
        'CHECK-SAME: backend_config = "", mhlo.backend_config = {mode = 86 : ui8, sort = 78 : ui8}, '
        'mhlo.frontend_attributes = {num_batch_dims = "1"}',
        "CHECK-SAME: " + _ALIAS0.format(0, 0),
        "CHECK-SAME: result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>, "
        "dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>, "
        "dense<0> : tensor<1xindex>]",
        "CHECK-SAME: sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n, o], [i, p], [i, q], "
        "[i], [i]) {i=8, j=4, k=4, l=4, m=4, n=4, o=4, p=4, q=4}, custom>",
        "CHECK: stablehlo.compare EQ, [[R]]#5",
        "CHECK: [[T:%[0-9]+]] = stablehlo.select {{%[0-9]+}}, [[R]]#0, {{%[0-9]+}} : tensor<8x4x4xi1>",
        "CHECK: [[Q:%[0-9]+]] = stablehlo.select {{%[0-9]+}}, [[R]]#1, {{%[0-9]+}} : tensor<8x4x4xi1>",
        'CHECK: sdy.sharding_constraint [[T]] <@mesh, [{"X"}, {}, {}]>',
        'CHECK-NEXT: sdy.sharding_constraint [[Q]] <@mesh, [{"X"}, {}, {}]>',
    ],
    "tridiagonal": [
        "CHECK: [[R:%[0-9]+]]:5 = stablehlo.custom_call @lapack_chetrd_ffi(%arg0)",
        'CHECK-SAME: backend_config = "", mhlo.backend_config = {uplo = 85 : ui8}, '
        'mhlo.frontend_attributes = {num_batch_dims = "1"}',
        "CHECK-SAME: " + _ALIAS0.format(0, 0),
        "CHECK-SAME: sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n], [i, o], [i, p], [i]) "
        "{i=8, j=4, k=4, l=4, m=4, n=4, o=3, p=3}, custom>",
        "CHECK-SAME: (tensor<8x4x4xcomplex<f32>>) -> (tensor<8x4x4xcomplex<f32>>, tensor<8x4xf32>, tensor<8x3xf32>, "
        "tensor<8x3xcomplex<f32>>, tensor<8xi32>)",
        "CHECK: stablehlo.compare EQ, [[R]]#4",
        "CHECK: [[TAU:%[0-9]+]] = stablehlo.select {{%[0-9]+}}, [[R]]#3, {{%[0-9]+}} : tensor<8x3xi1>",
        'CHECK: sdy.sharding_constraint [[TAU]] <@mesh, [{"X"}, {}]>',
    ],
    "tridiagonal_solve": [
        "CHECK: [[R:%[0-9]+]]:5 = stablehlo.custom_call @lapack_sgtsv_ffi(%arg0, %arg1, %arg2, %arg3)",
        'CHECK-SAME: backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}',
        "CHECK-SAME: operand_layouts = [dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, "
        "dense<[1, 0]> : tensor<2xindex>, dense<[1, 2, 0]> : tensor<3xindex>]",
        "CHECK-SAME: output_tuple_indices = [3], operand_index = 3",
        "CHECK-SAME: sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [i, k], [i, l], [i, m, n])->([i, o], [i, p], "
        "[i, q], [i, r, s], [i]) {i=8, j=4, k=4, l=4, m=4, n=3, o=4, p=4, q=4, r=4, s=3}, custom>",
        "CHECK: stablehlo.compare EQ, [[R]]#4",
        "CHECK: [[X:%[0-9]+]] = stablehlo.select {{%[0-9]+}}, [[R]]#3, {{%[0-9]+}} : tensor<8x4x3xi1>",
        'CHECK: sdy.sharding_constraint [[X]] <@mesh, [{"X"}, {}, {}]>',
    ],
    "ormqr": [
        "CHECK: [[Y:%[0-9]+]] = stablehlo.custom_call @lapack_sormqr_ffi(%arg0, %arg1, %arg2)",
        'CHECK-SAME: backend_config = "", mhlo.backend_config = {left = true, transpose = true}, '
        'mhlo.frontend_attributes = {num_batch_dims = "1"}',
        "CHECK-SAME: operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, "
        "dense<[1, 2, 0]> : tensor<3xindex>]",
        "CHECK-SAME: output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], "
        "operand_index = 2, operand_tuple_indices = []>]",
        "CHECK-SAME: sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k], [i, l], [i, m, n])->([i, o, p]) "
        "{i=8, j=5, k=3, l=3, m=5, n=4, o=5, p=4}, custom>",
        'CHECK: sdy.sharding_constraint [[Y]] <@mesh, [{"X"}, {}, {}]>',
    ],
    # JAX: mlir.lower_fun of alpha * batch_matmul(a, a^T, HIGHEST) + beta * c
    "symmetric_product": [
        "CHECK: [[T:%[0-9]+]] = stablehlo.transpose %arg0, dims = [0, 2, 1] : (tensor<8x4x3xf32>) -> tensor<8x3x4xf32>",
        "CHECK: [[D:%[0-9]+]] = stablehlo.dot_general %arg0, [[T]], batching_dims = [0] x [0], contracting_dims = [2] x "
        "[1], precision = [HIGHEST, HIGHEST]",
        "CHECK: stablehlo.constant dense<2.0{{.*}}> : tensor<f32>",
        "CHECK: [[L:%[0-9]+]] = stablehlo.multiply {{%[0-9]+}}, [[D]] : tensor<8x4x4xf32>",
        "CHECK: stablehlo.constant dense<{{0.5|5.0+e-01}}> : tensor<f32>",
        "CHECK: [[R:%[0-9]+]] = stablehlo.multiply {{%[0-9]+}}, %arg1 : tensor<8x4x4xf32>",
        "CHECK: stablehlo.add [[L]], [[R]] : tensor<8x4x4xf32>",
    ],
}
