"""`cholesky_update` (JAX's `jax.lax.linalg.cholesky_update_p`): the upper Cholesky factor of
A + w w^T from the factor R of A (A = R^T R) and the vector w, in O(n^2).

Rules, as `jax/_src/lax/linalg.py` of JAX 0.10.2 (`standard_linalg_primitive(..., supports_batching=False)`):
* shape/dtype: R of rank exactly 2, w of rank exactly 1 (no batch dims: "Input 0 to
  cholesky_update must have a rank of exactly 2"), R square and w of its size (JAX's
  ValueError "Rank-1 update to Cholesky decomposition ..."), both floating (not complex) and of
  one dtype; weak when both are.
* sharding: none (JAX defines no sharding rule: on a mesh with Explicit axes even replicated
  operands are "sharding rule for cholesky_update is not implemented", the `Primitive` default).
* no batching rule, no JVP/VJP (JAX's NotImplementedErrors).
* lowering: JAX's `mlir.lower_fun(_cholesky_update_jax_fn)` on every platform but CUDA: for each
  k a Givens rotation zeroing w[k] against R[k, k] (`_drotg`, the identity where w[k] == 0: JAX's
  `cond`, here a select of the same values) applied to row k of R and to w (`_drot`), row k
  written back. Written out here op by op, unrolled over k as JAX's Python loop is.
"""
from __future__ import annotations

from .. import dtypes as dt
from ..core import Primitive
from ..emit.text import tensor_type, ttype
from ..errors import ShardcNotImplementedError, ShardcTypeError, ShardcValueError
from ..types import ArrayType

__all__ = ["cholesky_update_p"]


class CholeskyUpdate(Primitive):
    """`cholesky_update_p(r_matrix, w_vector)`: R' with R'^T R' = R^T R + w w^T."""

    name = "cholesky_update"

    def shape_rule(self, r: ArrayType, w: ArrayType):
        for i, t in enumerate((r, w)):
            if not dt.is_float(t.dtype):
                raise ShardcTypeError(f"cholesky_update does not accept dtype {t.dtype.name} at position {i}. "
                                      f"Accepted dtypes at position {i} are subtypes of floating.")
        if r.dtype != w.dtype:
            raise ShardcTypeError("lax.cholesky_update requires arguments to have the same dtypes, got "
                                  f"{r.dtype.name}, {w.dtype.name}.")
        for i, (rank, t) in enumerate(((2, r), (1, w))):
            if t.ndim != rank:
                raise ShardcTypeError(f"Input {i} to cholesky_update must have a rank of exactly {rank}, but got "
                                      f"shape={t.shape}")
        if r.shape[0] != r.shape[1] or w.shape[0] != r.shape[1]:
            raise ShardcValueError("Rank-1 update to Cholesky decomposition takes a square matrix and a vector of "
                                   f"the same size as input. Got shapes {r.shape} and {w.shape} instead")
        return [(r.shape, r.dtype, r.weak_type and w.weak_type)]

    def vjp(self, L, g, ins, outs):
        raise ShardcNotImplementedError("Differentiation rule for 'cholesky_update' not implemented")

    def batch(self, B, axis, args, dims):
        raise ShardcNotImplementedError("Batching rule for 'cholesky_update' not implemented")

    def lower(self, ctx, eqn, r, w):
        rt = eqn.inputs[0].type
        d, n = rt.dtype, rt.shape[0]
        s_t, v_t, row_t = (tensor_type(s, d) for s in ((), (n,), (1, n)))
        b_t, i_t = tensor_type((), dt.bool_), tensor_type((), dt.int32)
        m_t = ttype(rt)

        def bin_(op: str, a: str, b: str, t: str) -> str:
            return ctx.op(f"stablehlo.{op} {a}, {b} : {t}")

        def elem(x: str, idx: tuple, shape_t: str) -> str:
            """x[idx] as a scalar (a slice and a reshape)."""
            one = tensor_type((1,) * len(idx), d)
            rng = ", ".join(f"{i}:{i + 1}" for i in idx)
            sl = ctx.op(f"stablehlo.slice {x} [{rng}] : ({shape_t}) -> {one}")
            return ctx.op(f"stablehlo.reshape {sl} : ({one}) -> {s_t}")

        zero, one = ctx.scalar(0, d), ctx.scalar(1, d)
        izero = ctx.scalar(0, dt.int32)
        z = w
        for k in range(n):
            x, y = elem(r, (k, k), m_t), elem(z, (k,), v_t)
            # _drotg_nonzero
            ax, ay = ctx.op(f"stablehlo.abs {x} : {s_t}"), ctx.op(f"stablehlo.abs {y} : {s_t}")
            gt = ctx.op(f"stablehlo.compare GT, {ax}, {ay}, FLOAT : ({s_t}, {s_t}) -> {b_t}")
            den = ctx.op(f"stablehlo.select {gt}, {ax}, {ay} : {b_t}, {s_t}")
            xn, yn = bin_("divide", x, den, s_t), bin_("divide", y, den, s_t)
            ss = bin_("add", bin_("multiply", xn, xn, s_t), bin_("multiply", yn, yn, s_t), s_t)
            rh = bin_("divide", one, ctx.op(f"stablehlo.sqrt {ss} : {s_t}"), s_t)
            c = bin_("multiply", xn, rh, s_t)
            s = bin_("multiply", ctx.op(f"stablehlo.negate {yn} : {s_t}"), rh, s_t)
            # cond(y == 0, (1, 0), _drotg_nonzero)
            y0 = ctx.op(f"stablehlo.compare EQ, {y}, {zero}, FLOAT : ({s_t}, {s_t}) -> {b_t}")
            c = ctx.op(f"stablehlo.select {y0}, {one}, {c} : {b_t}, {s_t}")
            s = ctx.op(f"stablehlo.select {y0}, {zero}, {s} : {b_t}, {s_t}")
            # _drot(R[k, :], z, c, s)
            row1 = ctx.op(f"stablehlo.slice {r} [{k}:{k + 1}, 0:{n}] : ({m_t}) -> {row_t}")
            row = ctx.op(f"stablehlo.reshape {row1} : ({row_t}) -> {v_t}")
            cb = ctx.op(f"stablehlo.broadcast_in_dim {c}, dims = [] : ({s_t}) -> {v_t}")
            sb = ctx.op(f"stablehlo.broadcast_in_dim {s}, dims = [] : ({s_t}) -> {v_t}")
            new_row = bin_("subtract", bin_("multiply", cb, row, v_t), bin_("multiply", sb, z, v_t), v_t)
            z = bin_("add", bin_("multiply", cb, z, v_t), bin_("multiply", sb, row, v_t), v_t)
            upd = ctx.op(f"stablehlo.reshape {new_row} : ({v_t}) -> {row_t}")
            kk = ctx.scalar(k, dt.int32)
            r = ctx.op(f"stablehlo.dynamic_update_slice {r}, {upd}, {kk}, {izero} : ({m_t}, {row_t}, {i_t}, {i_t}) "
                       f"-> {m_t}")
        return [r]


cholesky_update_p = CholeskyUpdate()
