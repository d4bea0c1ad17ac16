"""Matrix decompositions and solvers (JAX's `jax.lax.linalg` primitives): `cholesky`,
`triangular_solve`, `lu` (partial pivoting: the factors, the pivots and the permutation), `qr`
(Householder: LAPACK's geqrf then orgqr/ungqr, as JAX's `_qr_lowering`), `eigh` (syevd/heevd), `eig` (geev), `svd` (gesdd on CPU; its GPU lowering is not built),
`lu_pivots_to_permutation`, `hessenberg` (gehrd), `householder_product` (orgqr/ungqr), `schur` (gees),
`tridiagonal` (sytrd/hetrd), `ormqr` (ormqr/unmqr), `tridiagonal_solve` (gtsv)
and `symmetric_product`.

Rules, as `jax/_src/lax/linalg.py` of JAX 0.10.2:
* shape/dtype (`linalg_shape_rule`, `naryop_dtype_rule`): each operand has rank at least 2; the
  leading dims are batch dims, equal in number across operands; the dtype is floating or
  complex ("cholesky does not accept dtype ..."), one dtype for all operands; the weak type is
  kept when every operand is weak.
* sharding (`linalg_sharding_rule`): the matrix dims must be unsharded ("Input i to cholesky must
  be unsharded on non-batch dimensions"), every operand has the same batch spec, the result
  keeps it. `triangular_solve` has its own rule (`_tri_solve_sharding`): the batch specs equal,
  only the contracting dims unsharded, the free dims' specs carried to the result.
* unreduced/reduced: refused (JAX has no rule). VMA: the operands' (equal) varying axes.
* VJP: JAX's JVP rules transposed (`_cholesky_jvp_rule`; `_triangular_solve_jvp_rule_a` and
  `_triangular_solve_transpose_rule`; `_lu_jvp_rule`, its row gather `a_dot[permutation]` as a
  product with the one-hot permutation matrix).
* lu's CPU lowering: `lapack_?getrf_ffi`, the pivots made 0-based, NaN where `info < 0`, and
  the permutation from the pivots by a `stablehlo.while` over the row swaps (JAX lowers its
  `lu_pivots_to_permutation` as a fori_loop of gathers/scatters: the same values).
* batching: the batch dim moved to the front (`expand_dims_batcher`; `_triangular_solve_batching_rule`).
* lowering: on CPU the LAPACK FFI custom calls JAX emits (`lapack_?potrf_ffi`, `lapack_?trsm_ffi`)
  with column-major layouts, the `num_batch_dims` frontend attribute and the
  `sdy.sharding_rule` of `_linalg_ffi_lowering`, a failed factorization (`info != 0`) masked
  with NaN; bf16/f16 cholesky fail as JAX's "Unsupported dtype", triangular_solve falls back to
  `stablehlo.triangular_solve` (as JAX, also on GPU); cholesky on GPU is `cusolver_potrf_ffi`.
"""
from __future__ import annotations

import jax.lax.linalg  # noqa: F401  (importing it registers jaxlib's LAPACK / cuSOLVER FFI handlers with XLA)
import numpy as np
from jaxlib import lapack as _jaxlib_lapack  # LAPACK's target names and its one-time initialization

from .. import dtypes as dt
from ..core import Const, Primitive, bind, current_trace
from ..emit.text import tensor_type, ttype
from ..errors import ShardcNotImplementedError, ShardcTypeError, ShardcValueError, ShardingTypeError
from ..sharding import PartitionSpec
from ..types import ArrayType
from . import complex as cx
from . import elementwise as ew
from . import reductions as rd
from . import shape as sp
from .dot import dot_general

__all__ = ["cholesky_p", "triangular_solve_p", "lu_p", "qr_p", "eigh_p", "eig_p", "svd_p", "lu_pivots_to_permutation_p", "hessenberg_p",
           "householder_product_p", "schur_p", "tridiagonal_p", "tridiagonal_solve_p",
           "ormqr_p", "symmetric_product_p", "tril", "triu", "mT", "batch_matmul", "lapack_target"]


# --- shared rules ------------------------------------------------------------------------------
def _check_dtypes(name: str, ins, require_same: bool = True) -> None:
    """JAX's `naryop_dtype_rule` over floating | complex operands."""
    for i, t in enumerate(ins):
        if not dt.is_inexact(t.dtype):
            raise ShardcTypeError(f"{name} does not accept dtype {t.dtype.name} at position {i}. Accepted dtypes "
                                  f"at position {i} are subtypes of floating, complexfloating.")
    if require_same and len({t.dtype for t in ins}) > 1:
        raise ShardcTypeError(f"lax.{name} requires arguments to have the same dtypes, got "
                              f"{', '.join(t.dtype.name for t in ins)}.")


def _check_ranks(name: str, ins, ranks) -> tuple[int, ...]:
    """JAX's `linalg_shape_rule`: the operands' batch dims (all of one rank)."""
    batch = []
    for i, (rank, t) in enumerate(zip(ranks, ins)):
        if t.ndim < rank:
            raise ShardcTypeError(f"Input {i} to {name} must have rank at least {rank}, but got shape={t.shape}")
        batch.append(t.shape[:t.ndim - rank])
    if any(len(b) != len(batch[0]) for b in batch):
        raise ShardcTypeError(f"All inputs to {name} must have the same number of batch dimensions, but got "
                              f"{[len(b) for b in batch]} batch dimensions for the inputs.")
    return tuple(batch[0])


def _weak(ins) -> bool:
    return all(t.weak_type for t in ins)


def linalg_sharding(name: str, ins, ranks, out_ranks) -> list[tuple]:
    """JAX's `linalg_sharding_rule`: matrix dims unsharded, one batch spec, kept by the results."""
    batch_specs = []
    for i, (rank, t) in enumerate(zip(ranks, ins)):
        spec = tuple(t.spec)
        if any(s is not None for s in spec[len(spec) - rank:]):
            raise ShardingTypeError(f"Input {i} to {name} must be unsharded on non-batch dimensions, but got "
                                    f"{PartitionSpec(*spec)!r}.")
        batch_specs.append(spec[:len(spec) - rank])
    if any(b != batch_specs[0] for b in batch_specs[1:]):
        raise ShardingTypeError(f"All inputs to {name} must have the same batch sharding, but got {batch_specs}.")
    return [batch_specs[0] + (None,) * r for r in out_ranks]


# --- helpers the rules build with (binding primitives: this is the primitives layer) -----------
def mT(x):
    """The transpose of the last two dims."""
    n = x.aval.ndim
    return bind(sp.transpose, x, permutation=tuple(range(n - 2)) + (n - 1, n - 2))


def _H(x):
    """The conjugate transpose (JAX's `_H`)."""
    y = mT(x)
    return bind(cx.conj, y, input_dtype=y.aval.dtype) if dt.is_complex(y.aval.dtype) else y


def _tri_mask(t: ArrayType, k: int, sharded: bool):
    """JAX's `lax._tri(bool, (N, M), k)` broadcast over the batch dims: replicated, as JAX's
    `_tril` (a batch-sharded operand then fails select's sharding rule, as in JAX), or with
    `sharded`, carrying `t`'s batch spec (what a rule vmapped per matrix in JAX sees)."""
    n, m = t.shape[-2:]
    mask = Const(np.tri(n, m, k, dtype=bool), np.dtype(bool), False)
    spec = PartitionSpec(*t.spec[:-2], None, None) if sharded else None
    return bind(sp.broadcast_in_dim, mask, shape=t.shape, broadcast_dimensions=(t.ndim - 2, t.ndim - 1),
                out_sharding=spec)


def _zeros(t: ArrayType):
    return bind(sp.broadcast_in_dim, Const(np.zeros((), t.dtype), t.dtype, t.weak_type), shape=t.shape,
                broadcast_dimensions=(), out_sharding=PartitionSpec(*t.spec))


def tril(x, k: int = 0, sharded: bool = False):
    """JAX's `_tril`: `select(tri(k), x, 0)`."""
    t = x.aval
    return bind(ew.select_n, _tri_mask(t, k, sharded), _zeros(t), x)


def triu(x, k: int = 0, sharded: bool = False):
    """JAX's `_triu`: `select(tri(k - 1), 0, x)`."""
    t = x.aval
    return bind(ew.select_n, _tri_mask(t, k - 1, sharded), x, _zeros(t))


def batch_matmul(a, b):
    """`lax.batch_matmul` of operands of one rank >= 2."""
    n = a.aval.ndim
    batch = tuple(range(n - 2))
    return bind(dot_general, a, b, dimension_numbers=(((n - 1,), (n - 2,)), (batch, batch)), out_sharding=None,
                preferred_element_type=None)


def lapack_target(fn: str, dtype) -> str:
    """`lapack.prepare_lapack_call`: the LAPACK FFI target for `dtype` (s/d/c/z), after
    initializing jaxlib's LAPACK (which XLA's CPU handlers call into); other dtypes are its
    NotImplementedError."""
    try:
        return _jaxlib_lapack.prepare_lapack_call(fn, np.dtype(dtype))
    except NotImplementedError as e:
        raise ShardcNotImplementedError(str(e)) from None


# --- lowering helpers (JAX's `_linalg_ffi_lowering`) ---------------------------------------------
def _index_list(vals) -> str:
    """An index vector as MLIR prints it (one element: a splat)."""
    if not vals:
        return "dense<> : tensor<0xindex>"
    if len(vals) == 1:
        return f"dense<{vals[0]}> : tensor<1xindex>"
    return f"dense<[{', '.join(str(v) for v in vals)}]> : tensor<{len(vals)}xindex>"


def _factor_names():
    """Shardy's factor names as its printer writes them: i .. z, then z_1, z_2, …"""
    for c in "ijklmnopqrstuvwxyz":
        yield c
    n = 1
    while True:
        yield f"z_{n}"
        n += 1


def _layout(t: ArrayType, max_dims: int) -> str:
    """Column-major for the operands of the largest rank, row-major (default) for the rest."""
    n = t.ndim
    if n == max_dims:
        return _index_list((n - 2, n - 1) + tuple(range(n - 3, -1, -1)))
    return _index_list(tuple(range(n - 1, -1, -1)))


def _sdy_rule(ins, outs, num_batch: int) -> str:
    """`_build_sdy_sharding_rule`: batch dims share factors, every other dim its own letter."""
    letters = _factor_names()
    sizes: list[tuple[str, int]] = []
    batch_letters: list[str] = []

    def factors(t: ArrayType) -> str:
        out = []
        for i, d in enumerate(t.shape):
            if i < num_batch:
                if len(batch_letters) <= i:
                    batch_letters.append(next(letters))
                    sizes.append((batch_letters[i], d))
                out.append(batch_letters[i])
            else:
                c = next(letters)
                sizes.append((c, d))
                out.append(c)
        return "[" + ", ".join(out) + "]"

    lhs = ", ".join(factors(t) for t in ins)
    rhs = ", ".join(factors(t) for t in outs)
    return (f"#sdy.op_sharding_rule<({lhs})->({rhs}) {{{', '.join(f'{c}={d}' for c, d in sizes)}}}, custom>")


def ffi_call(ctx, target: str, args, ins, outs, config: dict, aliases: dict | None = None,
             num_non_batch: int = 2) -> list[str]:
    """A `stablehlo.custom_call` to an XLA FFI handler, written as JAX's `_linalg_ffi_lowering`."""
    max_dims = max(t.ndim for t in ins)
    num_batch = max_dims - num_non_batch
    attrs = ['backend_config = ""',
             f"mhlo.backend_config = {{{', '.join(f'{k} = {v}' for k, v in config.items())}}}",
             f'mhlo.frontend_attributes = {{num_batch_dims = "{num_batch}"}}',
             f"operand_layouts = [{', '.join(_layout(t, max_dims) for t in ins)}]"]
    if aliases:
        attrs.append("output_operand_aliases = [" + ", ".join(
            f"#stablehlo.output_operand_alias<output_tuple_indices = [{o}], operand_index = {i}, "
            f"operand_tuple_indices = []>" if len(outs) > 1 else
            f"#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = {i}, "
            f"operand_tuple_indices = []>" for i, o in aliases.items()) + "]")
    attrs.append(f"result_layouts = [{', '.join(_layout(t, max_dims) for t in outs)}]")
    attrs.append(f"sdy.sharding_rule = {_sdy_rule(ins, outs, num_batch)}")
    res_types = ", ".join(ttype(t) for t in outs)
    text = (f"stablehlo.custom_call @{target}({', '.join(args)}) {{{', '.join(attrs)}}} : "
            f"({', '.join(ttype(t) for t in ins)}) -> " + (f"({res_types})" if len(outs) != 1 else res_types))
    res = ctx.op(text, len(outs))
    return res if isinstance(res, list) else [res]


def nan_if_failed(ctx, info: str, x: str, t: ArrayType, direction: str = "EQ", nb: int | None = None) -> str:
    """`_replace_not_ok_with_nan`: each matrix whose `info` is not ok (`info == 0`, or for
    getrf `info >= 0`) becomes NaN (`nb`: the number of batch dims, default all but two)."""
    batch = t.shape[:t.ndim - 2 if nb is None else nb]
    it = tensor_type(batch, np.int32)
    zero = ctx.splat(0, np.int32, batch) if batch else ctx.op(
        f"stablehlo.broadcast_in_dim {ctx.scalar(0, np.int32)}, dims = [] : (tensor<i32>) -> tensor<i32>")
    ok = ctx.op(f"stablehlo.compare {direction}, {info}, {zero}, SIGNED : ({it}, {it}) -> {tensor_type(batch, np.bool_)}")
    return _nan_unless(ctx, ok, x, t, batch)


def _nan_unless(ctx, ok: str, x: str, t: ArrayType, batch: tuple) -> str:
    """`_replace_not_ok_with_nan` given the `ok` mask."""
    nb = len(batch)
    sel_shape = batch + (1,) * (t.ndim - nb)
    okb = ctx.op(f"stablehlo.broadcast_in_dim {ok}, dims = [{', '.join(str(i) for i in range(nb))}] : "
                 f"({tensor_type(batch, np.bool_)}) -> {tensor_type(sel_shape, np.bool_)}")
    nan_value = complex(np.nan, np.nan) if dt.is_complex(t.dtype) else np.nan
    nan = ctx.splat(nan_value, t.dtype, t.shape)
    okf = ctx.op(f"stablehlo.broadcast_in_dim {okb}, dims = [{', '.join(str(i) for i in range(t.ndim))}] : "
                 f"({tensor_type(sel_shape, np.bool_)}) -> {tensor_type(t.shape, np.bool_)}")
    return ctx.op(f"stablehlo.select {okf}, {x}, {nan} : {tensor_type(t.shape, np.bool_)}, {ttype(t)}")


def _u8(c: str) -> str:
    return f"{ord(c)} : ui8"


def _is_gpu(ctx) -> bool:
    return ctx.platform in ("gpu", "cuda", "rocm")


def _gpu_prefix(ctx) -> str:
    return "hip" if ctx.platform == "rocm" else "cu"


# --- cholesky ----------------------------------------------------------------------------------
class Cholesky(Primitive):
    """`cholesky_p`: the lower Cholesky factor (only the lower triangle is meaningful: callers `tril`)."""

    name = "cholesky"

    def shape_rule(self, x: ArrayType):
        _check_dtypes(self.name, (x,))
        _check_ranks(self.name, (x,), (2,))
        if x.shape[-1] != x.shape[-2]:
            raise ShardcValueError(f"The input to cholesky must be a square matrix. Got shape {x.shape[-2:]}.")
        return [(x.shape, x.dtype, x.weak_type)]

    def sharding_rule(self, x: ArrayType):
        return linalg_sharding(self.name, (x,), (2,), (2,))

    def batch(self, B, axis, args, dims):
        return B.bind(self, B.moveaxis(args[0], dims[0], 0)), 0

    def vjp(self, L, g, ins, outs):
        """`_cholesky_jvp_rule` transposed: L_dot = L phi(L^-1 S L^-H), so
        S_bar = L^-H phi(L^H L_bar) L^-1 (phi: the lower triangle, its diagonal halved)."""
        low = tril(outs[0])
        t = low.aval
        half = np.tri(t.shape[-1], dtype=np.dtype(t.dtype)) / (1 + np.eye(t.shape[-1], dtype=np.dtype(t.dtype)))
        phi_t = Const(np.broadcast_to(half, t.shape).copy(), t.dtype, False)
        x_bar = L.mul(batch_matmul(_H(low), g), phi_t)
        # transposes of the two triangular solves of the JVP (JAX's `_triangular_solve_transpose_rule`)
        tmp_bar = bind(triangular_solve_p, low, x_bar, left_side=True, lower=True, transpose_a=True,
                       conjugate_a=False, unit_diagonal=False)
        conj = dt.is_complex(t.dtype)
        s_bar = bind(triangular_solve_p, low, tmp_bar, left_side=False, lower=True, transpose_a=False,
                     conjugate_a=conj, unit_diagonal=False)
        return [s_bar]

    def lower(self, ctx, eqn, x):
        t = eqn.inputs[0].type
        info_t = ArrayType(t.shape[:-2], np.dtype(np.int32), (None,) * (t.ndim - 2))
        if _is_gpu(ctx):
            target, config = f"{_gpu_prefix(ctx)}solver_potrf_ffi", {"lower": "true"}
        else:
            target, config = lapack_target("potrf_ffi", t.dtype), {"uplo": _u8("L")}
        res, info = ffi_call(ctx, target, [x], [t], [t, info_t], config, aliases={0: 0})
        return [nan_if_failed(ctx, info, res, t)]


cholesky_p = Cholesky()


# --- triangular_solve --------------------------------------------------------------------------
class TriangularSolve(Primitive):
    """`triangular_solve_p`: op(a) x = b (`left_side`) or x op(a) = b."""

    name = "triangular_solve"

    def shape_rule(self, a: ArrayType, b: ArrayType, *, left_side, lower, transpose_a, conjugate_a,
                   unit_diagonal):
        _check_dtypes(self.name, (a, b))
        _check_ranks(self.name, (a, b), (2, 2))
        if a.shape[-1] != a.shape[-2]:
            raise ShardcValueError("The first input to triangular_solve must be a square matrix. Got shape "
                                   f"{a.shape[-2:]}.")
        if a.shape[-1] != b.shape[-2 if left_side else -1]:
            raise ShardcValueError(f"Incompatible shapes for arguments to triangular_solve: {a.shape[-2:]} and "
                                   f"{b.shape[-2:]}.")
        return [(b.shape[:-2] + b.shape[-2:], b.dtype, _weak((a, b)))]

    def sharding_rule(self, a: ArrayType, b: ArrayType, *, left_side, lower, transpose_a, conjugate_a,
                      unit_diagonal):
        """JAX's `_tri_solve_sharding`."""
        batch_a, a_spec = tuple(a.spec[:-2]), tuple(a.spec[-2:])
        batch_b, b_spec = tuple(b.spec[:-2]), tuple(b.spec[-2:])
        if batch_a != batch_b:
            raise ShardingTypeError("All inputs to triangular_solve must have the same batch sharding, "
                                    f"but got {batch_a} and {batch_b}.")
        if a_spec[left_side ^ transpose_a] is not None:
            raise ShardingTypeError("triangular solve input `a` must be unsharded on the contracting axis, but got "
                                    f"{PartitionSpec(*a.spec)!r} with left_side={left_side} and "
                                    f"transpose_a={transpose_a}.")
        if b_spec[not left_side] is not None:
            raise ShardingTypeError("triangular solve input `b` must be unsharded on the contracting axis, but got "
                                    f"{PartitionSpec(*b.spec)!r} with left_side={left_side} and "
                                    f"transpose_a={transpose_a}.")
        out = (a_spec[transpose_a], b_spec[1]) if left_side else (b_spec[0], a_spec[not transpose_a])
        return [batch_a + out]

    def batch(self, B, axis, args, dims, **params):
        """JAX's `_triangular_solve_batching_rule` (an unbatched `a`: the batch folded into b's free dim)."""
        (a, b), (da, db) = args, dims
        if da is None:
            tb = b.aval
            if params["left_side"]:
                y = B.moveaxis(b, db, tb.ndim - 1)
                ys = y.aval.shape
                flat = bind(sp.reshape, y, new_sizes=ys[:-2] + (ys[-2] * ys[-1],),
                            out_sharding=None)
                out = B.bind(self, a, flat, **params)
                return bind(sp.reshape, out, new_sizes=ys, out_sharding=None), tb.ndim - 1
            y = B.moveaxis(b, db, tb.ndim - 2)
            ys = y.aval.shape
            flat = bind(sp.reshape, y, new_sizes=ys[:-3] + (ys[-3] * ys[-2], ys[-1]),
                        out_sharding=None)
            out = B.bind(self, a, flat, **params)
            return bind(sp.reshape, out, new_sizes=ys, out_sharding=None), tb.ndim - 2
        a = B.bdim_at_front(a, da, axis.size, axis.entry)
        b = B.bdim_at_front(b, db, axis.size, axis.entry)
        return B.bind(self, a, b, **params), 0

    def vjp(self, L, g, ins, outs, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
        """b: `_triangular_solve_transpose_rule` (solve with op(a) transposed); a: the transpose of
        `_triangular_solve_jvp_rule_a`, -mask(op^T(b_bar x^T)) (or x^T b_bar on the right)."""
        a, _ = ins
        x = outs[0]
        b_bar = bind(self, a, g, left_side=left_side, lower=lower, transpose_a=not transpose_a,
                     conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)
        op_bar = batch_matmul(b_bar, mT(x)) if left_side else batch_matmul(mT(x), b_bar)
        op_bar = L.neg(op_bar)
        if conjugate_a:
            op_bar = bind(cx.conj, op_bar, input_dtype=op_bar.aval.dtype)
        if transpose_a:
            op_bar = mT(op_bar)
        k = 1 if unit_diagonal else 0
        a_bar = tril(op_bar, -k, True) if lower else triu(op_bar, k, True)
        return [a_bar, b_bar]

    def format_params(self, p):
        return " ".join(f"{k}={p[k]}" for k in ("left_side", "lower", "transpose_a", "conjugate_a", "unit_diagonal"))

    def lower(self, ctx, eqn, a, b):
        p = eqn.params
        left_side, lower, transpose_a, conjugate_a, unit_diagonal = (
            p["left_side"], p["lower"], p["transpose_a"], p["conjugate_a"], p["unit_diagonal"])
        ta, tb = eqn.inputs[0].type, eqn.inputs[1].type
        if conjugate_a and not transpose_a:
            a = _conj_hlo(ctx, a, ta)
            conjugate_a = False
        trans = ("C" if conjugate_a else "T") if transpose_a else "N"
        if not _is_gpu(ctx) and ta.dtype.name in ("float32", "float64", "complex64", "complex128"):
            config = {"diag": _u8("U" if unit_diagonal else "N"), "side": _u8("L" if left_side else "R"),
                      "trans_x": _u8(trans), "uplo": _u8("L" if lower else "U")}
            return ffi_call(ctx, lapack_target("trsm_ffi", ta.dtype), [a, b], [ta, tb], [tb], config,
                            aliases={1: 0})
        mode = {"N": "NO_TRANSPOSE", "T": "TRANSPOSE", "C": "ADJOINT"}[trans]
        return [ctx.op(f'"stablehlo.triangular_solve"({a}, {b}) <{{left_side = {str(left_side).lower()}, '
                       f"lower = {str(lower).lower()}, transpose_a = #stablehlo<transpose {mode}>, "
                       f"unit_diagonal = {str(unit_diagonal).lower()}}}> : ({ttype(ta)}, {ttype(tb)}) -> "
                       f"{ttype(eqn.outputs[0].type)}")]


def _conj_hlo(ctx, a: str, t: ArrayType) -> str:
    """chlo.conj as StableHLO: complex(real, -imag) (a real operand is itself)."""
    if not dt.is_complex(t.dtype):
        return a
    rt = ttype(t.update(dtype=dt.real_dtype(t.dtype)))
    re = ctx.op(f"stablehlo.real {a} : ({ttype(t)}) -> {rt}")
    im = ctx.op(f"stablehlo.imag {a} : ({ttype(t)}) -> {rt}")
    neg = ctx.op(f"stablehlo.negate {im} : {rt}")
    return ctx.op(f"stablehlo.complex {re}, {neg} : {ttype(t)}")


triangular_solve_p = TriangularSolve()


# --- lu ----------------------------------------------------------------------------------------
class Lu(Primitive):
    """`lu_p`: (lu, pivots, permutation) with P a = L U (L unit lower, U upper, packed in `lu`)."""

    name = "lu"
    multiple_results = True

    def shape_rule(self, x: ArrayType):
        _check_dtypes(self.name, (x,))
        batch = _check_ranks(self.name, (x,), (2,))
        m, n = x.shape[-2:]
        i32 = np.dtype(np.int32)
        return [(x.shape, x.dtype, x.weak_type), (batch + (min(m, n),), i32, x.weak_type),
                (batch + (m,), i32, x.weak_type)]

    def sharding_rule(self, x: ArrayType):
        return linalg_sharding(self.name, (x,), (2,), (2, 1, 1))

    def batch(self, B, axis, args, dims):
        outs = B.bind(self, B.moveaxis(args[0], dims[0], 0))
        return outs, [0, 0, 0]

    def vjp(self, L, cts, ins, outs):
        """`_lu_jvp_rule` transposed: with lau = L^-1 P a_dot U^-1 and lu_dot = l tril(lau, -1) +
        triu(lau) u, a_bar = P^T L^-T (tril(l^T g, -1) + triu(g u^T)) U^-T."""
        g = cts[0]
        if g is None:
            return [None]
        lu, _, perm = outs
        t = lu.aval
        m, n = t.shape[-2:]
        k = min(m, n)
        low, up = _lu_factors(lu, m, n, k)
        lau_bar = L.add(tril(batch_matmul(mT(low), g), -1, True), triu(batch_matmul(g, mT(up)), 0, True))
        la_bar = bind(triangular_solve_p, up, lau_bar, left_side=False, lower=False, transpose_a=True,
                      conjugate_a=False, unit_diagonal=False)
        pa_bar = bind(triangular_solve_p, low, la_bar, left_side=True, lower=True, transpose_a=True,
                      conjugate_a=False, unit_diagonal=True)
        return [batch_matmul(mT(_perm_matrix(L, perm, t)), pa_bar)]

    def lower(self, ctx, eqn, x):
        t = eqn.inputs[0].type
        lu_t, piv_t, perm_t = (v.type for v in eqn.outputs)
        info_t = ArrayType(t.shape[:-2], np.dtype(np.int32), (None,) * (t.ndim - 2))
        target = f"{_gpu_prefix(ctx)}solver_getrf_ffi" if _is_gpu(ctx) else lapack_target("getrf_ffi", t.dtype)
        lu, piv, info = ffi_call(ctx, target, [x], [t], [lu_t, piv_t, info_t], {}, aliases={0: 0})
        pt = ttype(piv_t)
        piv = ctx.op(f"stablehlo.subtract {piv}, {ctx.splat(1, np.int32, piv_t.shape)} : {pt}")
        lu = nan_if_failed(ctx, info, lu, t, direction="GE")
        return [lu, piv, _pivots_to_permutation(ctx, piv, piv_t, perm_t)]


lu_p = Lu()


class LuPivotsToPermutation(Primitive):
    """`lu_pivots_to_permutation_p`: the permutation [.., m] the row swaps [.., k] (k <= m) make
    of `iota(m)`. JAX lowers it on CPU by `lower_fun` of a fori_loop of gathers and scatters;
    here the while loop of `lu`'s lowering (one-hot selects): the same permutation for pivots
    in [0, m), which is all LU produces (out-of-range pivots, which JAX's clamped gathers
    accept, differ)."""

    name = "lu_pivots_to_permutation"

    def shape_rule(self, x: ArrayType, *, permutation_size: int):
        if x.dtype != np.dtype(np.int32):
            raise ShardcTypeError(f"lu_pivots_to_permutation does not accept dtype {x.dtype.name} at position 0. "
                                  "Accepted dtypes at position 0 are subtypes of int32.")
        batch = _check_ranks(self.name, (x,), (1,))
        if not permutation_size >= x.shape[-1]:
            raise ShardcValueError(f"Output permutation size {permutation_size} has to exceed the trailing dimension "
                                   f"of the pivots. Got pivots size {x.shape[-1]}")
        return [(batch + (permutation_size,), x.dtype, x.weak_type)]

    def sharding_rule(self, x: ArrayType, **_):
        return linalg_sharding(self.name, (x,), (1,), (1,))

    def batch(self, B, axis, args, dims, **params):
        return B.bind(self, B.moveaxis(args[0], dims[0], 0), **params), 0

    def vjp(self, L, g, ins, outs, **_):
        return [None]   # integer in and out: no cotangent (JAX defines no JVP)

    def format_params(self, p):
        return f"permutation_size={p['permutation_size']}"

    def lower(self, ctx, eqn, x):
        if _is_gpu(ctx):
            raise ShardcNotImplementedError("lu_pivots_to_permutation on GPU (the cu_lu_pivots_to_permutation FFI "
                                            "kernel) is not implemented in shardc yet")
        return [_pivots_to_permutation(ctx, x, eqn.inputs[0].type, eqn.outputs[0].type)]


lu_pivots_to_permutation_p = LuPivotsToPermutation()


def _lu_factors(lu, m: int, n: int, k: int):
    """`_lu_jvp_inner`'s l (m x m, unit lower) and u (n x n, upper, identity below k)."""
    t = lu.aval
    nb = t.ndim - 2
    batch = t.shape[:-2]
    zero = Const(np.zeros((), t.dtype), t.dtype, False)
    lk = bind(sp.slice_p, lu, start_indices=(0,) * t.ndim, limit_indices=batch + (m, k), strides=None)
    low = tril(lk, -1, True)
    if k < m:
        low = bind(sp.pad, low, zero, low=(0,) * t.ndim, high=(0,) * (nb + 1) + (m - k,), interior=(0,) * t.ndim)
    low = _plus_eye(low, 0)
    uk = bind(sp.slice_p, lu, start_indices=(0,) * t.ndim, limit_indices=batch + (k, n), strides=None)
    up = triu(uk, 0, True)
    if k < n:
        up = bind(sp.pad, up, zero, low=(0,) * t.ndim, high=(0,) * nb + (n - k, 0), interior=(0,) * t.ndim)
        up = _plus_eye(up, k)
    return low, up


def _plus_eye(x, start: int):
    """x + the identity on the diagonal entries from `start` on."""
    t = x.aval
    n = t.shape[-1]
    eye = Const(np.diag(np.arange(n) >= start).astype(t.dtype), t.dtype, False)
    eye = bind(sp.broadcast_in_dim, eye, shape=t.shape, broadcast_dimensions=(t.ndim - 2, t.ndim - 1),
               out_sharding=PartitionSpec(*t.spec[:-2], None, None))
    return bind(ew.BINARY["add"], x, eye)


def _perm_matrix(L, perm, t: ArrayType):
    """The one-hot matrix P[..., i, j] = (perm[..., i] == j), in `t`'s dtype and batch sharding."""
    m = t.shape[-2]
    nb = t.ndim - 2
    shape = t.shape[:-2] + (m, m)
    spec = PartitionSpec(*t.spec[:-2], None, None)
    rows = bind(sp.broadcast_in_dim, perm, shape=shape, broadcast_dimensions=tuple(range(nb + 1)), out_sharding=spec)
    cols = bind(sp.iota, dtype=np.dtype(np.int32), shape=shape, dimension=nb + 1, out_sharding=spec, mesh=t.mesh)
    return L.convert_element_type(L.eq(rows, cols), t.dtype)


def _pivots_to_permutation(ctx, piv: str, piv_t: ArrayType, perm_t: ArrayType) -> str:
    """The permutation the row swaps `piv` make of `iota(m)`: a while loop over i < k swapping
    perm[..., i] and perm[..., piv[..., i]] (by one-hot selects: no gathers over batch dims)."""
    batch, k, m = perm_t.shape[:-1], piv_t.shape[-1], perm_t.shape[-1]
    nb = len(batch)
    i32, b1 = np.dtype(np.int32), np.dtype(np.bool_)
    pt, vt, st = ttype(perm_t), ttype(piv_t), "tensor<i32>"
    col_t = tensor_type(batch + (1,), i32)
    perm0 = ctx.op(f"stablehlo.iota dim = {nb} : {pt}")
    if k == 0 or m == 0:
        return perm0
    i0 = ctx.scalar(0, i32)
    lhs, names = ctx.results(3)
    ctx.emit(f'{lhs} = "stablehlo.while"({i0}, {perm0}, {piv}) ({{')
    inner = ctx.child(ctx.mesh)
    a_i, a_p, a_s = inner.fresh("w"), inner.fresh("w"), inner.fresh("w")
    ctx.emit(f"^bb0({a_i}: {st}, {a_p}: {pt}, {a_s}: {vt}):")
    kk = inner.scalar(k, i32)
    c = inner.op(f"stablehlo.compare LT, {a_i}, {kk}, SIGNED : ({st}, {st}) -> tensor<i1>")
    inner.emit(f"stablehlo.return {c} : tensor<i1>")
    ctx.emit("}, {")
    ctx.emit(f"^bb0({a_i}: {st}, {a_p}: {pt}, {a_s}: {vt}):")
    zero = inner.scalar(0, i32)
    starts = ", ".join([zero] * nb + [a_i])
    sizes = ", ".join(str(d) for d in batch + (1,))
    j = inner.op(f"stablehlo.dynamic_slice {a_s}, {starts}, sizes = [{sizes}] : ({vt}, {', '.join([st] * (nb + 1))})"
                 f" -> {col_t}")
    x = inner.op(f"stablehlo.dynamic_slice {a_p}, {starts}, sizes = [{sizes}] : ({pt}, {', '.join([st] * (nb + 1))})"
                 f" -> {col_t}")
    dims = ", ".join(str(d) for d in range(nb + 1))
    bt = tensor_type(perm_t.shape, b1)
    io = inner.op(f"stablehlo.iota dim = {nb} : {pt}")
    jb = inner.op(f"stablehlo.broadcast_in_dim {j}, dims = [{dims}] : ({col_t}) -> {pt}")
    is_j = inner.op(f"stablehlo.compare EQ, {io}, {jb}, SIGNED : ({pt}, {pt}) -> {bt}")
    ib = inner.op(f"stablehlo.broadcast_in_dim {a_i}, dims = [] : ({st}) -> {pt}")
    is_i = inner.op(f"stablehlo.compare EQ, {io}, {ib}, SIGNED : ({pt}, {pt}) -> {bt}")
    zeros = inner.splat(0, i32, perm_t.shape)
    picked = inner.op(f"stablehlo.select {is_j}, {a_p}, {zeros} : {bt}, {pt}")
    y = inner.op(f"stablehlo.reduce({picked} init: {zero}) applies stablehlo.add across dimensions = [{nb}] : "
                 f"({pt}, {st}) -> {tensor_type(batch, i32)}")
    yb = inner.op(f"stablehlo.broadcast_in_dim {y}, dims = [{', '.join(str(d) for d in range(nb))}] : "
                  f"({tensor_type(batch, i32)}) -> {pt}")
    xb = inner.op(f"stablehlo.broadcast_in_dim {x}, dims = [{dims}] : ({col_t}) -> {pt}")
    p1 = inner.op(f"stablehlo.select {is_j}, {xb}, {a_p} : {bt}, {pt}")
    p2 = inner.op(f"stablehlo.select {is_i}, {yb}, {p1} : {bt}, {pt}")
    one = inner.scalar(1, i32)
    nxt = inner.op(f"stablehlo.add {a_i}, {one} : {st}")
    inner.emit(f"stablehlo.return {nxt}, {p2}, {a_s} : {st}, {pt}, {vt}")
    ctx.emit(f"}}) : ({st}, {pt}, {vt}) -> ({st}, {pt}, {vt})")
    return names[1]


# --- qr ----------------------------------------------------------------------------------------
def _slice_last2(x, rows: tuple[int, int], cols: tuple[int, int]):
    t = x.aval
    nb = t.ndim - 2
    return bind(sp.slice_p, x, start_indices=(0,) * nb + (rows[0], cols[0]),
                limit_indices=t.shape[:nb] + (rows[1], cols[1]), strides=None)


def _conj(x):
    return bind(cx.conj, x, input_dtype=x.aval.dtype) if dt.is_complex(x.aval.dtype) else x


class Qr(Primitive):
    """`qr_p` (pivoting=False): q [.., m, k] and r [.., k, n], k = m (full_matrices) or min(m, n)."""

    name = "qr"
    multiple_results = True

    def shape_rule(self, x: ArrayType, *, full_matrices: bool, pivoting: bool = False):
        _check_dtypes(self.name, (x,))
        batch = _check_ranks(self.name, (x,), (2,))
        m, n = x.shape[-2:]
        k = m if full_matrices else min(m, n)
        return [(batch + (m, k), x.dtype, x.weak_type), (batch + (k, n), x.dtype, x.weak_type)]

    def sharding_rule(self, x: ArrayType, **_):
        return linalg_sharding(self.name, (x,), (2,), (2, 2))

    def batch(self, B, axis, args, dims, **params):
        return B.bind(self, B.moveaxis(args[0], dims[0], 0), **params), [0, 0]

    def vjp(self, L, cts, ins, outs, *, full_matrices, pivoting=False):
        """`qr_jvp_rule` transposed: the thin rule (m >= n) and the wide one (m < n, R = [R1 R2],
        dR2 = dQ^H X2 + Q^H dX2); full matrices of a tall operand (JAX's Eq. 32-33) not yet."""
        x = ins[0]
        q, r = outs
        gq, gr = cts
        t = x.aval
        m, n = t.shape[-2:]
        gq = gq if gq is not None else L.zeros_like(q)
        gr = gr if gr is not None else L.zeros_like(r)
        if m < n:
            x2 = _slice_last2(x, (0, m), (m, n))
            r1 = _slice_last2(r, (0, m), (0, m))
            gr1, gr2 = _slice_last2(gr, (0, m), (0, m)), _slice_last2(gr, (0, m), (m, n))
            gq = L.add(gq, _conj(batch_matmul(x2, mT(gr2))))
            dx2 = batch_matmul(_conj(q), gr2)
            dx1 = _thin_qr_transpose(L, q, r1, gq, gr1)
            return [bind(sp.concatenate, dx1, dx2, dimension=t.ndim - 1)]
        if full_matrices and m != n:
            raise ShardcNotImplementedError("the derivative of qr(full_matrices=True) of a tall matrix (m > n) is "
                                            "not implemented in shardc yet; use full_matrices=False")
        return [_thin_qr_transpose(L, q, r, gq, gr)]

    def format_params(self, p):
        return f"full_matrices={p['full_matrices']}"

    def lower(self, ctx, eqn, x):
        t = eqn.inputs[0].type
        q_t, r_t = (v.type for v in eqn.outputs)
        _check_triu_lowering(r_t)
        m, n = t.shape[-2:]
        nb = t.ndim - 2
        batch = t.shape[:-2]
        if m == 0 or n == 0:
            eye = ctx.op(f"stablehlo.iota dim = {nb} : {ttype(q_t.update(dtype=np.dtype(np.int32)))}")
            eye2 = ctx.op(f"stablehlo.iota dim = {nb + 1} : {ttype(q_t.update(dtype=np.dtype(np.int32)))}")
            it = ttype(q_t.update(dtype=np.dtype(np.int32)))
            bt = tensor_type(q_t.shape, np.bool_)
            is_d = ctx.op(f"stablehlo.compare EQ, {eye}, {eye2}, SIGNED : ({it}, {it}) -> {bt}")
            q = ctx.op(f"stablehlo.convert {is_d} : ({bt}) -> {ttype(q_t)}")
            return [q, ctx.splat(0, t.dtype, r_t.shape)]
        k = min(m, n)
        taus_t = ArrayType(batch + (k,), t.dtype, (None,) * (nb + 1))
        gpu = _is_gpu(ctx)
        geqrf = f"{_gpu_prefix(ctx)}solver_geqrf_ffi" if gpu else lapack_target("geqrf_ffi", t.dtype)
        orgqr = f"{_gpu_prefix(ctx)}solver_orgqr_ffi" if gpu else lapack_target(
            ("un" if dt.is_complex(t.dtype) else "or") + "gqr_ffi", t.dtype)
        r, taus = ffi_call(ctx, geqrf, [x], [t], [t, taus_t], {}, aliases={0: 0})
        if m < n:
            sq = t.update(shape=batch + (m, m), spec=(None,) * t.ndim)
            a = ctx.op(f"stablehlo.slice {r} [{', '.join([f'0:{d}' for d in batch] + [f'0:{m}', f'0:{m}'])}] : "
                       f"({ttype(t)}) -> {ttype(sq)}")
            q, = ffi_call(ctx, orgqr, [a, taus], [sq, taus_t], [sq], {}, aliases={0: 0})
        elif full_matrices_of(eqn):
            sq = t.update(shape=batch + (m, m), spec=(None,) * t.ndim)
            zero = ctx.scalar(0, t.dtype)
            a = ctx.op(f"stablehlo.pad {r}, {zero}, low = [{', '.join(['0'] * t.ndim)}], "
                       f"high = [{', '.join(['0'] * (nb + 1) + [str(m - n)])}], "
                       f"interior = [{', '.join(['0'] * t.ndim)}] : ({ttype(t)}, {tensor_type((), t.dtype)}) -> "
                       f"{ttype(sq)}")
            q, = ffi_call(ctx, orgqr, [a, taus], [sq, taus_t], [sq], {}, aliases={0: 0})
        else:
            q, = ffi_call(ctx, orgqr, [r, taus], [t, taus_t], [t], {}, aliases={0: 0})
            r = ctx.op(f"stablehlo.slice {r} [{', '.join([f'0:{d}' for d in batch] + [f'0:{n}', f'0:{n}'])}] : "
                       f"({ttype(t)}) -> {ttype(r_t)}")
        return [q, _triu_hlo(ctx, r, r_t)]


def _check_triu_lowering(r_t: ArrayType) -> None:
    """JAX lowers qr through `lower_fun`, whose `_triu` selects with a replicated mask: a
    batch-sharded operand fails there, when lowered (its select sharding error), as here."""
    if any(e is not None for e in r_t.spec):
        which = r_t.update(spec=(None,) * r_t.ndim, dtype=np.dtype(np.bool_))
        raise ShardingTypeError("select `which` must be scalar or have the same sharding as cases, got `which` "
                                f"sharding {which.sharding!r} but case sharding {r_t.sharding!r}.")


def full_matrices_of(eqn) -> bool:
    return bool(eqn.params["full_matrices"])


def _triu_hlo(ctx, x: str, t: ArrayType) -> str:
    """JAX's `_triu` as it lowers: iota rows >= iota cols - 0 ... (select zeros below the diagonal)."""
    n, m = t.shape[-2:]
    it = tensor_type((n, m), np.int32)
    rows = ctx.op(f"stablehlo.iota dim = 0 : {it}")
    cols = ctx.op(f"stablehlo.iota dim = 1 : {it}")
    off = ctx.splat(-1, np.int32, (n, m))
    shifted = ctx.op(f"stablehlo.add {rows}, {off} : {it}")
    bt2 = tensor_type((n, m), np.bool_)
    mask = ctx.op(f"stablehlo.compare GE, {shifted}, {cols}, SIGNED : ({it}, {it}) -> {bt2}")
    bt = tensor_type(t.shape, np.bool_)
    maskb = ctx.op(f"stablehlo.broadcast_in_dim {mask}, dims = [{t.ndim - 2}, {t.ndim - 1}] : ({bt2}) -> {bt}")
    zeros = ctx.splat(0, t.dtype, t.shape)
    return ctx.op(f"stablehlo.select {maskb}, {zeros}, {x} : {bt}, {ttype(t)}")


def _thin_qr_transpose(L, q, r, gq, gr):
    """`_thin_qr_jvp` transposed. Forward: A = dx R^-1, C = Q^H A, do = tril(C, -1) -
    tril(C, -1)^H + I (C - re C), dq = Q (do - C) + A, dr = (C - do) R."""
    t = q.aval
    n = r.aval.shape[-1]
    e_bar = batch_matmul(mT(q), gq)
    f_bar = batch_matmul(gr, mT(r))
    do_bar = L.sub(e_bar, f_bar)
    c_bar = L.sub(f_bar, e_bar)
    cl_bar = L.sub(do_bar, _conj(mT(do_bar)))
    c_bar = L.add(c_bar, tril(cl_bar, -1, True))
    if dt.is_complex(t.dtype):
        eye = Const(np.eye(n, dtype=t.dtype), t.dtype, False)
        eye = bind(sp.broadcast_in_dim, eye, shape=do_bar.aval.shape,
                   broadcast_dimensions=(t.ndim - 2, t.ndim - 1),
                   out_sharding=PartitionSpec(*do_bar.aval.spec[:-2], None, None))
        d = L.mul(eye, do_bar)
        re = L.real(d)
        c_bar = L.add(c_bar, L.sub(d, L.complex(re, L.zeros_like(re))))
    a_bar = L.add(gq, batch_matmul(_conj(q), c_bar))
    return bind(triangular_solve_p, r, a_bar, left_side=False, lower=False, transpose_a=True, conjugate_a=False,
                unit_diagonal=False)


qr_p = Qr()


# --- eigh --------------------------------------------------------------------------------------
class Eigh(Primitive):
    """`eigh_p`: eigenvectors v [.., n, d] (columns) and ascending eigenvalues w [.., d] (real)."""

    name = "eigh"
    multiple_results = True

    def shape_rule(self, x: ArrayType, *, lower=True, sort_eigenvalues=True, subset_by_index=None, algorithm=None):
        _check_dtypes(self.name, (x,))
        batch = _check_ranks(self.name, (x,), (2,))
        if x.shape[-2] != x.shape[-1]:
            raise ShardcValueError("Argument to symmetric eigendecomposition must have shape [..., n, n], got "
                                   f"shape {x.shape[-2:]}")
        n = x.shape[-1]
        d = n if subset_by_index is None else subset_by_index[1] - subset_by_index[0]
        return [(batch + (n, d), x.dtype, x.weak_type), (batch + (d,), dt.real_dtype(x.dtype), x.weak_type)]

    def sharding_rule(self, x: ArrayType, **_):
        return linalg_sharding(self.name, (x,), (2,), (2, 1))

    def batch(self, B, axis, args, dims, **params):
        return B.bind(self, B.moveaxis(args[0], dims[0], 0), **params), [0, 0]

    def vjp(self, L, cts, ins, outs, *, lower=True, sort_eigenvalues=True, subset_by_index=None, algorithm=None):
        """`_eigh_jvp_rule` transposed: with X = V^H a_dot V, dv = V (F o X), dw = diag(re X),
        a_bar = conj(V) (F o V^T gv + diag(gw)) V^T, F = 1 / (w_j - w_i) off the diagonal."""
        a = ins[0]
        t = a.aval
        n = t.shape[-1]
        if not (subset_by_index is None or tuple(subset_by_index) == (0, n)):
            raise ShardcNotImplementedError("Derivatives not defined for partial eigen decomposition.")
        gv, gw = cts
        sym = L.div(L.add(a, _H(a)), 2)
        v, w = bind(self, sym, lower=lower, sort_eigenvalues=sort_eigenvalues, subset_by_index=subset_by_index,
                    algorithm=algorithm)
        wc = L.convert_element_type(w, t.dtype)
        eye = _eye_like(t)
        nb = t.ndim - 2
        wi = bind(sp.broadcast_in_dim, wc, shape=t.shape, broadcast_dimensions=tuple(range(nb)) + (nb + 1,),
                  out_sharding=PartitionSpec(*t.spec))
        wj = bind(sp.broadcast_in_dim, wc, shape=t.shape, broadcast_dimensions=tuple(range(nb)) + (nb,),
                  out_sharding=PartitionSpec(*t.spec))
        fmat = L.sub(L.integer_pow(L.add(L.sub(wi, wj), eye), -1), eye)
        x_bar = L.zeros_like(a)
        if gv is not None:
            x_bar = L.add(x_bar, L.mul(fmat, batch_matmul(mT(v), gv)))
        if gw is not None:
            gwc = L.convert_element_type(gw, t.dtype)
            gwb = bind(sp.broadcast_in_dim, gwc, shape=t.shape, broadcast_dimensions=tuple(range(nb)) + (nb + 1,),
                       out_sharding=PartitionSpec(*t.spec))
            x_bar = L.add(x_bar, L.mul(eye, gwb))
        return [batch_matmul(batch_matmul(_conj(v), x_bar), mT(v))]

    def format_params(self, p):
        return f"lower={p.get('lower', True)} subset_by_index={p.get('subset_by_index')}"

    def lower(self, ctx, eqn, x):
        p = eqn.params
        t = eqn.inputs[0].type
        v_t, w_t = (o.type for o in eqn.outputs)
        n = t.shape[-1]
        sub = p.get("subset_by_index")
        if not (sub is None or tuple(sub) == (0, n)):
            raise ShardcNotImplementedError("subset_by_index not supported on CPU and GPU")
        algorithm = p.get("algorithm")
        name = getattr(algorithm, "name", None)
        if name == "QDWH":
            raise ShardcNotImplementedError("QDWH implementation is only supported on TPU")
        if name == "JACOBI" and not _is_gpu(ctx):
            raise ShardcNotImplementedError("Jacobi implementation is not supported on CPU")
        if _is_gpu(ctx):
            algo = 0 if algorithm is None else (2 if name == "JACOBI" else 1)
            target = f"{_gpu_prefix(ctx)}solver_syevd_ffi"
            config = {"algorithm": f"{algo} : ui8", "lower": str(bool(p.get("lower", True))).lower()}
        else:
            target = lapack_target(("he" if dt.is_complex(t.dtype) else "sy") + "evd_ffi", t.dtype)
            config = {"mode": _u8("V"), "uplo": _u8("L" if p.get("lower", True) else "U")}
        info_t = ArrayType(t.shape[:-2], np.dtype(np.int32), (None,) * (t.ndim - 2))
        v, w, info = ffi_call(ctx, target, [x], [t], [v_t, w_t, info_t], config, aliases={0: 0})
        nb = t.ndim - 2
        return [nan_if_failed(ctx, info, v, v_t, nb=nb), nan_if_failed(ctx, info, w, w_t, nb=nb)]


def _eye_like(t: ArrayType):
    """The identity in `t`'s dtype, broadcast over its batch dims with its batch spec."""
    n = t.shape[-1]
    eye = Const(np.eye(n, dtype=t.dtype), t.dtype, False)
    return bind(sp.broadcast_in_dim, eye, shape=t.shape, broadcast_dimensions=(t.ndim - 2, t.ndim - 1),
                out_sharding=PartitionSpec(*t.spec[:-2], None, None))


eigh_p = Eigh()


# --- eig ---------------------------------------------------------------------------------------
_EIGVEC_DERIVS_MSG = (
    "Derivatives of non-symmetric eigenvectors are only valid under assumptions on the input that JAX "
    "cannot check (see the enable_eigvec_derivs argument to jax.lax.linalg.eig). Pass "
    "enable_eigvec_derivs=True to jax.lax.linalg.eig to opt in. See https://github.com/jax-ml/jax/issues/2748 "
    "for discussion.")


class Eig(Primitive):
    """`eig_p`: eigenvalues w [.., n], then left vl and right vr eigenvectors [.., n, n] (columns)
    when asked, all complex (`to_complex_dtype` of the operand's dtype), as LAPACK's geev."""

    name = "eig"
    multiple_results = True

    def shape_rule(self, x: ArrayType, *, compute_left_eigenvectors=True, compute_right_eigenvectors=True,
                   enable_eigvec_derivs=False, implementation=None):
        _check_dtypes(self.name, (x,))
        _check_ranks(self.name, (x,), (2,))
        if x.shape[-2] != x.shape[-1]:
            raise ShardcValueError(f"The input to eig must be a square matrix. Got shape {x.shape[-2:]}.")
        c = dt.complex_dtype(x.dtype)
        count = int(bool(compute_left_eigenvectors)) + int(bool(compute_right_eigenvectors))
        return [(x.shape[:-1], c, x.weak_type)] + [(x.shape, c, x.weak_type)] * count

    def sharding_rule(self, x: ArrayType, *, compute_left_eigenvectors=True, compute_right_eigenvectors=True,
                      **_):
        count = int(bool(compute_left_eigenvectors)) + int(bool(compute_right_eigenvectors))
        return linalg_sharding(self.name, (x,), (2,), (1,) + (2,) * count)

    def batch(self, B, axis, args, dims, **params):
        outs = B.bind(self, B.moveaxis(args[0], dims[0], 0), **params)
        return outs, [0] * len(outs)

    def vjp(self, L, cts, ins, outs, *, compute_left_eigenvectors=True, compute_right_eigenvectors=True,
            enable_eigvec_derivs=False, implementation=None):
        """`eig_jvp_rule` transposed, as JAX's reverse mode transposes it: its linear part (in the
        tangent `da`) is recorded from a placeholder and run backwards from the cotangents (the
        eigenvector rows only under `enable_eigvec_derivs`, else JAX's NotImplementedError)."""
        left, right = bool(compute_left_eigenvectors), bool(compute_right_eigenvectors)
        if (left or right) and not enable_eigvec_derivs:
            raise ShardcNotImplementedError(_EIGVEC_DERIVS_MSG)
        a = ins[0]
        res = bind(self, a, compute_left_eigenvectors=left, compute_right_eigenvectors=True,
                   enable_eigvec_derivs=enable_eigvec_derivs, implementation=implementation)
        w, vr = res[0], res[-1]
        trace = current_trace()
        da = L.copy(L.zeros_ct(a.aval))
        start = len(trace.eqns)
        dac = da if dt.is_complex(a.aval.dtype) else L.convert_element_type(da, vr.aval.dtype)
        if not (left or right):
            tangents = [L.reduce_sum(L.mul(_solve(L, vr, dac), mT(vr)), (vr.aval.ndim - 1,))]
        else:
            dw, dvr = _eig_vec_jvp(L, w, vr, dac)
            tangents = [dw]
            if left:
                tangents.append(_eig_vec_jvp(L, L.conj(w), res[1], _H(dac))[1])
            if right:
                tangents.append(dvr)
        seeds = [c for c in (cts if isinstance(cts, (list, tuple)) else [cts])]
        got = L.backward(trace, trace.eqns[start:], [da._var], [t._var for t in tangents], seeds)[0]
        return [L.fit_ct(got, a.aval) if got is not None else L.zeros_ct(a.aval)]

    def format_params(self, p):
        return (f"compute_left_eigenvectors={p.get('compute_left_eigenvectors', True)} "
                f"compute_right_eigenvectors={p.get('compute_right_eigenvectors', True)}")

    def lower(self, ctx, eqn, x):
        """`_eig_cpu_lowering`: `lapack_?geev_ffi` (real operands: the eigenvalues' real and
        imaginary parts as two outputs, joined by `stablehlo.complex`), NaN where `info != 0`."""
        p = eqn.params
        impl = p.get("implementation")
        if _is_gpu(ctx):
            raise ShardcNotImplementedError("eig on GPU (cuSOLVER / MAGMA geev) is not implemented in shardc yet")
        if impl and getattr(impl, "name", impl) != "LAPACK":
            raise ShardcValueError("Only the lapack implementation is supported on CPU.")
        t = eqn.inputs[0].type
        left, right = bool(p.get("compute_left_eigenvectors", True)), bool(p.get("compute_right_eigenvectors", True))
        nb = t.ndim - 2
        batch = t.shape[:-2]
        rep = (None,) * t.ndim
        c = dt.complex_dtype(t.dtype)
        real = not dt.is_complex(t.dtype)
        w_t = ArrayType(t.shape[:-1], t.dtype, rep[:-1])
        v_t = ArrayType(t.shape, c, rep)
        info_t = ArrayType(batch, np.dtype(np.int32), rep[:nb])
        outs_t = ([w_t] if real else []) + [w_t, v_t, v_t, info_t]
        target = lapack_target("geev_ffi", t.dtype)
        config = {"compute_left": _u8("V" if left else "N"), "compute_right": _u8("V" if right else "N")}
        *ws, vl, vr, info = ffi_call(ctx, target, [x], [t], outs_t, config)
        wc_t = ArrayType(t.shape[:-1], c, rep[:-1])
        w = ctx.op(f"stablehlo.complex {ws[0]}, {ws[1]} : {ttype(wc_t)}") if real else ws[0]
        ok = _info_ok(ctx, info, batch)
        res = [_nan_unless(ctx, ok, w, wc_t, batch)]
        if left:
            res.append(_nan_unless(ctx, ok, vl, v_t, batch))
        if right:
            res.append(_nan_unless(ctx, ok, vr, v_t, batch))
        return res


eig_p = Eig()


def _info_ok(ctx, info: str, batch: tuple) -> str:
    """`info == 0` per matrix, computed once (JAX's `_eig_cpu_lowering` shares it between outputs)."""
    it = tensor_type(batch, np.int32)
    zero = ctx.op(f"stablehlo.broadcast_in_dim {ctx.scalar(0, np.int32)}, dims = [] : (tensor<i32>) -> {it}")
    return ctx.op(f"stablehlo.compare EQ, {info}, {zero}, SIGNED : ({it}, {it}) -> {tensor_type(batch, np.bool_)}")


def _solve(L, a, b):
    """JAX's `linalg._solve(a, b)` = a^-1 b by `a`'s LU (P a = L U), linear in `b`."""
    lu, _, perm = bind(lu_p, a)
    pb = batch_matmul(_perm_matrix(L, perm, a.aval), b)
    y = bind(triangular_solve_p, lu, pb, left_side=True, lower=True, transpose_a=False, conjugate_a=False,
             unit_diagonal=True)
    return bind(triangular_solve_p, lu, y, left_side=True, lower=False, transpose_a=False, conjugate_a=False,
                unit_diagonal=False)


def _eig_vec_jvp(L, w, v, da):
    """JAX's `_eig_vec_jvp`: (dw, dv) under LAPACK's normalisation of each eigenvector (unit
    2-norm, largest-magnitude component real)."""
    t = v.aval
    nb = t.ndim - 2
    spec = PartitionSpec(*t.spec)
    eye = _eye_like(t)

    def bcast(x, last):
        return bind(sp.broadcast_in_dim, x, shape=t.shape, broadcast_dimensions=tuple(range(nb)) + (last,),
                    out_sharding=spec)

    fmat = L.sub(L.div(L.full_like(eye, 1), L.sub(L.add(eye, bcast(w, nb + 1)), bcast(w, nb))), eye)
    pmat = batch_matmul(_solve(L, v, da), v)
    dw = L.reduce_sum(L.mul(pmat, eye), (t.ndim - 1,))
    u = batch_matmul(v, L.mul(fmat, pmat))
    absv = bind(ew.UNARY["abs"], v)
    k = bind(rd.ARG_REDUCE["max"], absv, axis=nb, index_dtype=np.dtype(np.int32))
    rows = bind(sp.iota, dtype=np.dtype(np.int32), shape=t.shape, dimension=nb, out_sharding=spec, mesh=t.mesh)
    mask = L.convert_element_type(L.eq(rows, bcast(k, nb + 1)), t.dtype)
    col = (nb,)
    re = L.neg(L.real(L.reduce_sum(L.mul(L.conj(v), u), col)))
    im = L.div(L.neg(L.imag(L.reduce_sum(L.mul(mask, u), col))), L.real(L.reduce_sum(L.mul(mask, v), col)))
    c = L.complex(re, im)
    return dw, L.add(u, L.mul(v, bcast(c, nb + 1)))


# --- hessenberg, householder_product -------------------------------------------------------------
class Hessenberg(Primitive):
    """`hessenberg_p`: (a, taus) with a's upper triangle and first subdiagonal the Hessenberg
    matrix, the reflectors below, taus [.., n - 1] their scale factors (LAPACK's gehrd)."""

    name = "hessenberg"
    multiple_results = True

    def shape_rule(self, x: ArrayType):
        _check_dtypes(self.name, (x,))
        batch = _check_ranks(self.name, (x,), (2,))
        if x.shape[-2] != x.shape[-1]:
            raise ShardcValueError("Argument to Hessenberg reduction must have shape [..., n, n], got shape "
                                   f"{x.shape[-2:]}")
        return [(x.shape, x.dtype, x.weak_type), (batch + (x.shape[-1] - 1,), x.dtype, x.weak_type)]

    def sharding_rule(self, x: ArrayType):
        return linalg_sharding(self.name, (x,), (2,), (2, 1))

    def batch(self, B, axis, args, dims):
        outs = B.bind(self, B.moveaxis(args[0], dims[0], 0))
        return outs, [0, 0]

    def vjp(self, L, cts, ins, outs):
        raise ShardcNotImplementedError("Differentiation rule for 'hessenberg' not implemented")

    def lower(self, ctx, eqn, x):
        """`_hessenberg_cpu_lowering`: `lapack_?gehrd_ffi` (low = 1, high = n), NaN where `info != 0`."""
        if _is_gpu(ctx):
            raise ShardcNotImplementedError("MLIR translation rule for primitive 'hessenberg' not found for "
                                            f"platform {ctx.platform}")
        t = eqn.inputs[0].type
        a_t, tau_t = (o.type for o in eqn.outputs)
        batch = t.shape[:-2]
        info_t = ArrayType(batch, np.dtype(np.int32), (None,) * len(batch))
        target = lapack_target("gehrd_ffi", t.dtype)
        a, taus, info = ffi_call(ctx, target, [x], [t], [a_t, tau_t, info_t],
                                 {"high": f"{t.shape[-1]} : i32", "low": "1 : i32"}, aliases={0: 0})
        ok = _info_ok(ctx, info, batch)
        return [_nan_unless(ctx, ok, a, a_t, batch), _nan_unless(ctx, ok, taus, tau_t, batch)]


hessenberg_p = Hessenberg()


class HouseholderProduct(Primitive):
    """`householder_product_p`: the product of the elementary reflectors stored below a's
    diagonal with scale factors `taus` (LAPACK's orgqr / ungqr), of a's shape."""

    name = "householder_product"

    def shape_rule(self, a: ArrayType, taus: ArrayType):
        _check_dtypes(self.name, (a, taus))
        _check_ranks(self.name, (a, taus), (2, 1))
        m, n = a.shape[-2:]
        if m < n:
            raise ShardcValueError("The first argument to householder_product must have at least as many rows as "
                                   f"columns, got shape {a.shape[-2:]}")
        if taus.shape[-1] > min(m, n):
            raise ShardcValueError("The second argument to householder_product must not have more rows than the "
                                   "minimum of the first argument's rows and columns.")
        return [(a.shape, a.dtype, _weak((a, taus)))]

    def sharding_rule(self, a: ArrayType, taus: ArrayType):
        return linalg_sharding(self.name, (a, taus), (2, 1), (2,))

    def batch(self, B, axis, args, dims):
        a, taus = (B.bdim_at_front(x, d, axis.size, axis.entry) for x, d in zip(args, dims))
        return B.bind(self, a, taus), 0

    def vjp(self, L, g, ins, outs):
        raise ShardcNotImplementedError("Differentiation rule for 'householder_product' not implemented")

    def lower(self, ctx, eqn, a, taus):
        """`_householder_product_cpu_gpu_lowering`: `lapack_?orgqr_ffi` / `?ungqr_ffi` (GPU:
        `cusolver_orgqr_ffi`), aliasing a to the result."""
        a_t, tau_t = (v.type for v in eqn.inputs)
        if _is_gpu(ctx):
            target = f"{_gpu_prefix(ctx)}solver_orgqr_ffi"
        else:
            target = lapack_target(("un" if dt.is_complex(a_t.dtype) else "or") + "gqr_ffi", a_t.dtype)
        return ffi_call(ctx, target, [a, taus], [a_t, tau_t], [eqn.outputs[0].type], {}, aliases={0: 0})


householder_product_p = HouseholderProduct()


class Schur(Primitive):
    """`schur_p`: the Schur form T [.., n, n] and (with `compute_schur_vectors`) the Schur
    vectors Q, A = Q T Q^H (LAPACK's gees, unsorted)."""

    name = "schur"
    multiple_results = True

    def shape_rule(self, x: ArrayType, *, compute_schur_vectors=True, sort_eig_vals=False, select_callable=None):
        _check_dtypes(self.name, (x,))
        _check_ranks(self.name, (x,), (2,))
        if x.shape[-2] != x.shape[-1]:
            raise ShardcValueError(f"The input to schur must be a square matrix. Got shape {x.shape[-2:]}.")
        return [(x.shape, x.dtype, x.weak_type)] * (2 if compute_schur_vectors else 1)

    def sharding_rule(self, x: ArrayType, *, compute_schur_vectors=True, **_):
        return linalg_sharding(self.name, (x,), (2,), (2, 2) if compute_schur_vectors else (2,))

    def batch(self, B, axis, args, dims, **params):
        outs = B.bind(self, B.moveaxis(args[0], dims[0], 0), **params)
        return outs, [0] * len(outs)

    def vjp(self, L, cts, ins, outs, **_):
        raise ShardcNotImplementedError("Differentiation rule for 'schur' not implemented")

    def format_params(self, p):
        return f"compute_schur_vectors={p.get('compute_schur_vectors', True)}"

    def lower(self, ctx, eqn, x):
        """`_schur_cpu_lowering`: `lapack_?gees_ffi` (mode V|N, sort N), NaN where `info != 0`."""
        p = eqn.params
        if _is_gpu(ctx):
            raise ShardcNotImplementedError(f"MLIR translation rule for primitive 'schur' not found for platform "
                                            f"{ctx.platform}")
        if p.get("sort_eig_vals"):
            raise ShardcNotImplementedError("The sort feature of LAPACK's gees routine is not implemented.")
        vectors = bool(p.get("compute_schur_vectors", True))
        t = eqn.inputs[0].type
        batch = t.shape[:-2]
        rep = (None,) * t.ndim
        w_t = ArrayType(t.shape[:-1], t.dtype, rep[:-1])
        info_t = ArrayType(batch, np.dtype(np.int32), rep[:len(batch)])
        a_t = ArrayType(t.shape, t.dtype, rep)
        outs_t = [a_t, a_t] + ([w_t] if dt.is_complex(t.dtype) else [w_t, w_t]) + [info_t, info_t]
        res = ffi_call(ctx, lapack_target("gees_ffi", t.dtype), [x], [t], outs_t,
                       {"mode": _u8("V" if vectors else "N"), "sort": _u8("N")}, aliases={0: 0})
        ok = _info_ok(ctx, res[-1], batch)
        out_t = [o.type for o in eqn.outputs]
        return [_nan_unless(ctx, ok, r, o, batch) for r, o in zip(res[:len(out_t)], out_t)]


schur_p = Schur()


class Tridiagonal(Primitive):
    """`tridiagonal_p`: (a, d, e, taus), the reduction of a Hermitian matrix to tridiagonal form
    (LAPACK's sytrd / hetrd): d the diagonal and e the off-diagonal (real), taus the reflectors'
    scale factors."""

    name = "tridiagonal"
    multiple_results = True

    def shape_rule(self, x: ArrayType, *, lower=True):
        _check_dtypes(self.name, (x,))
        batch = _check_ranks(self.name, (x,), (2,))
        n = x.shape[-1]
        if x.shape[-2] != n or n == 0:
            raise ShardcValueError(f"The input to tridiagonal must be a square matrix. Got shape {x.shape[-2:]}.")
        real = dt.real_dtype(x.dtype)
        w = x.weak_type
        return [(x.shape, x.dtype, w), (batch + (n,), real, w), (batch + (n - 1,), real, w),
                (batch + (n - 1,), x.dtype, w)]

    def sharding_rule(self, x: ArrayType, **_):
        return linalg_sharding(self.name, (x,), (2,), (2, 1, 1, 1))

    def batch(self, B, axis, args, dims, **params):
        return B.bind(self, B.moveaxis(args[0], dims[0], 0), **params), [0, 0, 0, 0]

    def vjp(self, L, cts, ins, outs, **_):
        raise ShardcNotImplementedError("Differentiation rule for 'tridiagonal' not implemented")

    def format_params(self, p):
        return f"lower={p.get('lower', True)}"

    def lower(self, ctx, eqn, x):
        """`_tridiagonal_cpu_gpu_lowering`: `lapack_?sytrd_ffi` / `?hetrd_ffi` (GPU:
        `cusolver_sytrd_ffi`), each output NaN where `info != 0`."""
        lower = bool(eqn.params.get("lower", True))
        t = eqn.inputs[0].type
        if _is_gpu(ctx):
            target, config = f"{_gpu_prefix(ctx)}solver_sytrd_ffi", {"lower": str(lower).lower()}
        else:
            target = lapack_target(("he" if dt.is_complex(t.dtype) else "sy") + "trd_ffi", t.dtype)
            config = {"uplo": _u8("L" if lower else "U")}
        batch = t.shape[:-2]
        out_t = [o.type for o in eqn.outputs]
        info_t = ArrayType(batch, np.dtype(np.int32), (None,) * len(batch))
        *res, info = ffi_call(ctx, target, [x], [t], out_t + [info_t], config, aliases={0: 0})
        ok = _info_ok(ctx, info, batch)
        return [_nan_unless(ctx, ok, r, o, batch) for r, o in zip(res, out_t)]


tridiagonal_p = Tridiagonal()


class Ormqr(Primitive):
    """`ormqr_p`: c multiplied by the Q of Householder reflectors (a, taus) without forming Q:
    Q c, Q^H c, c Q or c Q^H (`left`, `transpose`), of c's shape (LAPACK's ormqr / unmqr)."""

    name = "ormqr"

    def shape_rule(self, a: ArrayType, taus: ArrayType, c: ArrayType, *, left=True, transpose=False):
        _check_dtypes(self.name, (a, taus, c))
        _check_ranks(self.name, (a, taus, c), (2, 1, 2))
        m = a.shape[-2]
        if left and c.shape[-2] != m:
            raise ShardcValueError("ormqr with left=True expects c to have the same number of rows as the Householder "
                                   f"matrix a. Got a shape {a.shape[-2:]} and c shape {c.shape[-2:]}.")
        if not left and c.shape[-1] != m:
            raise ShardcValueError("ormqr with left=False expects c to have the same number of columns as the "
                                   f"Householder matrix a has rows. Got a shape {a.shape[-2:]} and c shape "
                                   f"{c.shape[-2:]}.")
        return [(c.shape, c.dtype, _weak((a, taus, c)))]

    def sharding_rule(self, a, taus, c, **_):
        return linalg_sharding(self.name, (a, taus, c), (2, 1, 2), (2,))

    def batch(self, B, axis, args, dims, **params):
        a, taus, c = (B.bdim_at_front(x, k, axis.size, axis.entry) for x, k in zip(args, dims))
        return B.bind(self, a, taus, c, **params), 0

    def vjp(self, L, g, ins, outs, **_):
        raise ShardcNotImplementedError("Differentiation rule for 'ormqr' not implemented")

    def format_params(self, p):
        return f"left={p.get('left', True)} transpose={p.get('transpose', False)}"

    def lower(self, ctx, eqn, a, taus, c):
        """`_ormqr_cpu_gpu_lowering`: `lapack_?ormqr_ffi` / `?unmqr_ffi` (GPU: `cusolver_ormqr_ffi`),
        aliasing c to the result."""
        ins_t = [v.type for v in eqn.inputs]
        if _is_gpu(ctx):
            target = f"{_gpu_prefix(ctx)}solver_ormqr_ffi"
        else:
            target = lapack_target(("un" if dt.is_complex(ins_t[0].dtype) else "or") + "mqr_ffi", ins_t[0].dtype)
        p = eqn.params
        config = {"left": str(bool(p.get("left", True))).lower(),
                  "transpose": str(bool(p.get("transpose", False))).lower()}
        return ffi_call(ctx, target, [a, taus, c], ins_t, [eqn.outputs[0].type], config, aliases={2: 0})


ormqr_p = Ormqr()


class SymmetricProduct(Primitive):
    """`symmetric_product_p`: alpha a a^T + beta c (a [.., m, n], c [.., m, m]). JAX lowers it on
    CPU by `lower_fun`: the transpose, one HIGHEST-precision batched dot, two scalings and an add,
    written here as the same ops."""

    name = "symmetric_product"

    def shape_rule(self, a: ArrayType, c: ArrayType, *, alpha=1.0, beta=0.0):
        for i, t in enumerate((a, c)):
            if not dt.is_float(t.dtype):
                raise ShardcTypeError(f"symmetric_product does not accept dtype {t.dtype.name} at position {i}. "
                                      f"Accepted dtypes at position {i} are subtypes of floating.")
        _check_dtypes(self.name, (a, c))
        _check_ranks(self.name, (a, c), (2, 2))
        if a.shape[-2] != c.shape[-1] or c.shape[-2] != c.shape[-1]:
            raise ShardcValueError("symmetric_update expects a rectangular matrix of shape (m, n) and a square matrix "
                                   f"of shape (n, n). Got shapes {a.shape[-2:]} and {c.shape[-2:]}.")
        return [(c.shape, c.dtype, _weak((a, c)))]

    def sharding_rule(self, a, c, **_):
        return linalg_sharding(self.name, (a, c), (2, 2), (2,))

    def batch(self, B, axis, args, dims, **params):
        a, c = (B.bdim_at_front(x, k, axis.size, axis.entry) for x, k in zip(args, dims))
        return B.bind(self, a, c, **params), 0

    def vjp(self, L, g, ins, outs, **_):
        raise ShardcNotImplementedError("Differentiation rule for 'symmetric_product' not implemented")

    def format_params(self, p):
        return f"alpha={p.get('alpha', 1.0)} beta={p.get('beta', 0.0)}"

    def lower(self, ctx, eqn, a, c):
        if _is_gpu(ctx):
            raise ShardcNotImplementedError("symmetric_product on GPU (cusolver syrk) is not implemented in shardc yet")
        a_t, c_t = (v.type for v in eqn.inputs)
        nb = a_t.ndim - 2
        perm = tuple(range(nb)) + (nb + 1, nb)
        at_shape = a_t.shape[:nb] + (a_t.shape[-1], a_t.shape[-2])
        at_t = tensor_type(at_shape, a_t.dtype)
        ct = ttype(c_t)
        a_tr = ctx.op(f"stablehlo.transpose {a}, dims = [{', '.join(map(str, perm))}] : ({ttype(a_t)}) -> {at_t}")
        batch = ", ".join(map(str, range(nb)))
        bd = f"batching_dims = [{batch}] x [{batch}], " if nb else ""
        prod = ctx.op(f"stablehlo.dot_general {a}, {a_tr}, {bd}contracting_dims = [{nb + 1}] x [{nb}], "
                      f"precision = [HIGHEST, HIGHEST] : ({ttype(a_t)}, {at_t}) -> {ct}")
        p = eqn.params
        alpha = ctx.splat(float(p.get("alpha", 1.0)), c_t.dtype, c_t.shape)
        left = ctx.op(f"stablehlo.multiply {alpha}, {prod} : {ct}")
        beta = ctx.splat(float(p.get("beta", 0.0)), c_t.dtype, c_t.shape)
        right = ctx.op(f"stablehlo.multiply {beta}, {c} : {ct}")
        return [ctx.op(f"stablehlo.add {left}, {right} : {ct}")]


symmetric_product_p = SymmetricProduct()


# --- tridiagonal_solve ---------------------------------------------------------------------------
class TridiagonalSolve(Primitive):
    """`tridiagonal_solve_p`: x with A x = b, A tridiagonal given by its sub-, main and super-
    diagonals dl, d, du [.., m] (dl[0] and du[m - 1] unused), b [.., m, n] (LAPACK's gtsv)."""

    name = "tridiagonal_solve"

    def shape_rule(self, dl: ArrayType, d: ArrayType, du: ArrayType, b: ArrayType, *, perturb_singular=False):
        ins = (dl, d, du, b)
        _check_dtypes(self.name, ins)
        _check_ranks(self.name, ins, (1, 1, 1, 2))
        if not (dl.shape == d.shape == du.shape):
            raise ShardcTypeError("tridiagonal_solve requires that all diagonal arguments have the same shape.")
        if dl.shape != b.shape[:-1]:
            raise ShardcTypeError("tridiagonal_solve requires that the leading ndim-1 dimensions of b equal the "
                                  "dimensions of the diagonal arguments.")
        return [(b.shape, b.dtype, _weak(ins))]

    def sharding_rule(self, dl, d, du, b, **_):
        return linalg_sharding(self.name, (dl, d, du, b), (1, 1, 1, 2), (2,))

    def batch(self, B, axis, args, dims, **params):
        dl, d, du, b = (B.bdim_at_front(x, k, axis.size, axis.entry) for x, k in zip(args, dims))
        return B.bind(self, dl, d, du, b, **params), 0

    def vjp(self, L, g, ins, outs, *, perturb_singular=False):
        """`_tridiagonal_solve_jvp_rule` transposed: b_bar = A^-T g (`_tridiagonal_solve_transpose_rule`:
        the transposed system's diagonals), and the diagonals get -(b_bar * x) summed over the
        columns, x shifted down (dl) or up (du) a row as `_tridiagonal_product` multiplies."""
        dl, d, du, _ = ins
        x = outs[0]
        t = dl.aval
        n = t.ndim - 1
        m = t.shape[-1]
        zero = _zeros(ArrayType(t.shape[:-1] + (1,), t.dtype, tuple(t.spec[:-1]) + (None,), mesh=t.mesh))
        dl_t = bind(sp.concatenate, zero, _slice_last(du, 0, m - 1), dimension=n)
        du_t = bind(sp.concatenate, _slice_last(dl, 1, m), zero, dimension=n)
        b_bar = bind(self, dl_t, d, du_t, g, perturb_singular=perturb_singular)
        prod = L.neg(b_bar)
        col = (x.aval.ndim - 1,)
        d_bar = L.reduce_sum(L.mul(prod, x), col)
        xt = x.aval
        pad0 = _zeros(ArrayType(xt.shape[:-2] + (1, xt.shape[-1]), xt.dtype, tuple(xt.spec[:-2]) + (None, None),
                                mesh=xt.mesh))
        x_down = bind(sp.concatenate, pad0, _slice_rows(x, 0, m - 1), dimension=n)   # x[i - 1]
        x_up = bind(sp.concatenate, _slice_rows(x, 1, m), pad0, dimension=n)         # x[i + 1]
        dl_bar = L.reduce_sum(L.mul(prod, x_down), col)
        du_bar = L.reduce_sum(L.mul(prod, x_up), col)
        return [dl_bar, d_bar, du_bar, b_bar]

    def lower(self, ctx, eqn, dl, d, du, b):
        """`_tridiagonal_solve_cpu_lowering`: `lapack_?gtsv_ffi` aliasing every operand, NaN where
        `info != 0`; `perturb_singular`: jaxlib's `tridiagonal_solve_perturbed_ffi`."""
        if _is_gpu(ctx):
            raise ShardcNotImplementedError("tridiagonal_solve on GPU (cusparse gtsv2) is not implemented in shardc yet")
        ins_t = [v.type for v in eqn.inputs]
        b_t = eqn.outputs[0].type
        if eqn.params.get("perturb_singular"):
            return ffi_call(ctx, "tridiagonal_solve_perturbed_ffi", [dl, d, du, b], ins_t, [b_t], {})
        batch = b_t.shape[:-2]
        info_t = ArrayType(batch, np.dtype(np.int32), (None,) * len(batch))
        outs_t = [ArrayType(t.shape, t.dtype, (None,) * t.ndim) for t in ins_t] + [info_t]
        *_, x, info = ffi_call(ctx, lapack_target("gtsv_ffi", b_t.dtype), [dl, d, du, b], ins_t, outs_t, {},
                               aliases={0: 0, 1: 1, 2: 2, 3: 3})
        return [_nan_unless(ctx, _info_ok(ctx, info, batch), x, b_t, batch)]


tridiagonal_solve_p = TridiagonalSolve()


def _slice_last(x, start: int, stop: int):
    t = x.aval
    return bind(sp.slice_p, x, start_indices=(0,) * (t.ndim - 1) + (start,), limit_indices=t.shape[:-1] + (stop,),
                strides=None)


def _slice_rows(x, start: int, stop: int):
    t = x.aval
    return bind(sp.slice_p, x, start_indices=(0,) * (t.ndim - 2) + (start, 0),
                limit_indices=t.shape[:-2] + (stop, t.shape[-1]), strides=None)


# --- svd ---------------------------------------------------------------------------------------
class Svd(Primitive):
    """`svd_p`: s [.., k] (real, descending), and with `compute_uv` u [.., m, m|k], vt [.., n|k, n]."""

    name = "svd"
    multiple_results = True

    def shape_rule(self, x: ArrayType, *, full_matrices, compute_uv, subset_by_index=None, algorithm=None):
        _check_dtypes(self.name, (x,))
        batch = _check_ranks(self.name, (x,), (2,))
        m, n = x.shape[-2:]
        rank = min(m, n)
        if subset_by_index is not None:
            if full_matrices and tuple(subset_by_index) != (0, rank):
                raise ShardcValueError("full_matrices and subset_by_index cannot both be set")
            rank = min(rank, subset_by_index[1] - subset_by_index[0])
        real = dt.real_dtype(x.dtype)
        out = [(batch + (rank,), real, x.weak_type)]
        if compute_uv:
            out += [(batch + (m, m if full_matrices else rank), x.dtype, x.weak_type),
                    (batch + (n if full_matrices else rank, n), x.dtype, x.weak_type)]
        return out

    def sharding_rule(self, x: ArrayType, *, compute_uv, **_):
        return linalg_sharding(self.name, (x,), (2,), (1, 2, 2) if compute_uv else (1,))

    def batch(self, B, axis, args, dims, **params):
        outs = B.bind(self, B.moveaxis(args[0], dims[0], 0), **params)
        return outs, [0] * len(outs)

    def vjp(self, L, cts, ins, outs, *, full_matrices, compute_uv, subset_by_index=None, algorithm=None):
        """`_svd_jvp_rule` transposed (the reduced factors; full matrices of a non-square operand
        raise JAX's NotImplementedError)."""
        a = ins[0]
        t = a.aval
        m, n = t.shape[-2:]
        if compute_uv and full_matrices and m != n:
            raise ShardcNotImplementedError("Singular value decomposition JVP not implemented for full matrices")
        s, u, vt = bind(self, a, full_matrices=False, compute_uv=True, subset_by_index=subset_by_index,
                        algorithm=algorithm)
        gs = cts[0]
        gu, gvt = (cts[1], cts[2]) if compute_uv else (None, None)
        k = s.aval.shape[-1]
        nb = t.ndim - 2
        batch = t.shape[:-2]
        kk = batch + (k, k)
        spec = PartitionSpec(*t.spec[:-2], None, None)
        sc_ = L.convert_element_type(s, t.dtype)

        def bcast(x, shape, last):
            return bind(sp.broadcast_in_dim, x, shape=shape, broadcast_dimensions=tuple(range(nb)) + (last,),
                        out_sharding=spec)

        s_row, s_col = bcast(s, kk, nb + 1), bcast(s, kk, nb)
        eye = _eye_like(ArrayType(kk, s.aval.dtype, tuple(t.spec[:-2]) + (None, None), mesh=t.mesh))
        diffs = L.mul(L.add(s_row, s_col), L.sub(s_row, s_col))
        fmat = L.convert_element_type(L.sub(L.div(L.full_like(diffs, 1.0), L.add(diffs, eye)), eye), t.dtype)
        zero_s = L.convert_element_type(L.eq(s, L.full_like(s, 0.0)), s.aval.dtype)
        s_inv = L.sub(L.div(L.full_like(s, 1.0), L.add(s, zero_s)), zero_s)
        s_inv_mat = L.convert_element_type(L.mul(bcast(s_inv, kk, nb + 1), eye), t.dtype)
        ds_bar = L.mul(L.convert_element_type(eye, t.dtype), L.convert_element_type(s_row, t.dtype))
        ds_bar = L.mul(ds_bar, L.full_like(ds_bar, 0))
        if gs is not None:
            ds_bar = L.add(ds_bar, L.mul(L.convert_element_type(eye, t.dtype),
                                         L.convert_element_type(bcast(gs, kk, nb + 1), t.dtype)))
        a_bar = None
        srow_t, scol_t = L.convert_element_type(s_row, t.dtype), L.convert_element_type(s_col, t.dtype)
        if gu is not None:
            m1 = batch_matmul(mT(u), gu)
            t1 = L.mul(fmat, m1)
            ds_bar = L.add(ds_bar, L.mul(srow_t, L.add(t1, _H(t1))))
            d = L.mul(L.mul(s_inv_mat, m1), L.full_like(m1, 0.5))
            ds_bar = L.add(ds_bar, L.sub(d, _H(d)))
            if m > n:
                g = L.div(gu, bcast(sc_, batch + (m, k), nb + 1))
                dav_bar = L.sub(g, batch_matmul(_conj(u), batch_matmul(mT(u), g)))
                a_bar = batch_matmul(dav_bar, _conj(vt))
        if gvt is not None:
            gv = _H(gvt)
            m2 = batch_matmul(_conj(vt), gv)
            t2 = L.mul(fmat, m2)
            ds_bar = L.add(ds_bar, L.mul(scol_t, L.add(t2, _H(t2))))
            if n > m:
                g = L.div(gv, bcast(sc_, batch + (n, k), nb + 1))
                dahu_bar = L.sub(g, batch_matmul(mT(vt), batch_matmul(_conj(vt), g)))
                extra = batch_matmul(_conj(u), _H(dahu_bar))
                a_bar = extra if a_bar is None else L.add(a_bar, extra)
        main = batch_matmul(batch_matmul(_conj(u), ds_bar), _conj(vt))
        return [main if a_bar is None else L.add(main, a_bar)]

    def format_params(self, p):
        return f"full_matrices={p['full_matrices']} compute_uv={p['compute_uv']}"

    def lower(self, ctx, eqn, x):
        p = eqn.params
        t = eqn.inputs[0].type
        m, n = t.shape[-2:]
        k = min(m, n)
        sub = p.get("subset_by_index")
        if not (sub is None or tuple(sub) == (0, k)):
            raise ShardcNotImplementedError("subset_by_index not implemented for CPU and GPU")
        if _is_gpu(ctx):
            raise ShardcNotImplementedError("svd on GPU (cuSOLVER gesvdj/gesvd) is not implemented in shardc yet")
        algorithm = getattr(p.get("algorithm"), "name", None)
        if algorithm in (None, "DEFAULT", "DIVIDE_AND_CONQUER"):
            target = lapack_target("gesdd_ffi", t.dtype)
        elif algorithm == "QR":
            target = lapack_target("gesvd_ffi", t.dtype)
        else:
            raise ShardcNotImplementedError("The SVD Jacobi and Polar algorithms are not implemented on CPU.")
        full, uv = p["full_matrices"], p["compute_uv"]
        mode = "N" if not uv else ("A" if full else "S")
        nb = t.ndim - 2
        batch = t.shape[:-2]
        rep = (None,) * (nb + 2)
        s_t = eqn.outputs[0].type
        u_t = ArrayType(batch + (m, m if full else k), t.dtype, rep)
        vt_t = ArrayType(batch + (n if full else k, n), t.dtype, rep)
        info_t = ArrayType(batch, np.dtype(np.int32), rep[:nb])
        _, s, u, vt, info = ffi_call(ctx, target, [x], [t], [t, s_t, u_t, vt_t, info_t], {"mode": _u8(mode)},
                                     aliases={0: 0})
        res = [nan_if_failed(ctx, info, s, s_t, nb=nb)]
        if uv:
            res += [nan_if_failed(ctx, info, u, u_t, nb=nb), nan_if_failed(ctx, info, vt, vt_t, nb=nb)]
        return res


svd_p = Svd()
