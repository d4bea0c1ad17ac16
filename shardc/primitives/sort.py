"""`sort` (multi-operand, stable, lexicographic over `num_keys` keys) and
`top_k`, as JAX 0.10.2's `sort_p` / `top_k_p`.

Sharding: every operand keeps its sharding, the sorted dim must be unsharded
and (on Explicit axes) all operands must be sharded alike (JAX's
`_sort_abstract_eval` errors); `top_k`'s axis must be unsharded too.

Order: JAX's comparator (`_sort_lt_comparator`): floats compare in a total
order after -0.0 is made 0.0 and every NaN the canonical NaN, so -inf < ... <
inf < NaN and +-0 tie (a stable sort keeps their order).

VJPs are JAX's JVPs transposed: the permutation (a sort with an iota operand)
gathers the forward, so the cotangent is scattered back with `scatter_add`.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as dt
from ..core import Primitive, bind
from ..emit.text import tensor_type, ttype
from ..errors import ShardcTypeError, ShardcValueError, ShardingTypeError
from ..sharding import PartitionSpec
from ..types import ArrayType
from .gather import ScatterDimensionNumbers, scatter_add
from .shape import iota

__all__ = ["sort", "top_k", "Sort", "TopK"]


def _spec_of(t: ArrayType) -> PartitionSpec | None:
    return None if t.mesh.empty else PartitionSpec(*t.spec)


def _explicit(t: ArrayType) -> bool:
    return not t.mesh.empty and t.mesh.has_explicit


def permutation_scatter_dnums(ndim: int, dimension: int) -> ScatterDimensionNumbers:
    """The scatter that undoes gathering along `dimension` at a permutation
    (every other dim a batch dim): the transpose of JAX's sort / top_k JVP gather."""
    batch = tuple(i for i in range(ndim) if i != dimension)
    return ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(dimension,),
                                   scatter_dims_to_operand_dims=(dimension,), operand_batching_dims=batch,
                                   scatter_indices_batching_dims=batch)


class Sort(Primitive):
    """`sort(*operands, dimension, is_stable, num_keys)`: all operands permuted by
    the lexicographic order of the first `num_keys`."""

    name = "sort"
    multiple_results = True
    #: JAX's `sort_p` has no VMA rule: its operands are not made to vary alike (no
    #: automatic pvary) and each result has its own operand's varying axes
    auto_pcast = False

    def shape_rule(self, *ins: ArrayType, dimension, is_stable=True, num_keys=1):
        if not ins:
            raise ShardcTypeError("Sort requires at least one operand")
        if any(t.shape != ins[0].shape for t in ins[1:]):
            raise ShardcTypeError("Arguments to sort must have equal shapes, got: "
                                  + " ".join(str(t.shape) for t in ins))
        if not 1 <= num_keys <= len(ins):
            raise ShardcValueError(f"num_keys={num_keys} must be between 1 and len(operand)={len(ins)}")
        if not 0 <= dimension < max(ins[0].ndim, 1):
            raise ShardcValueError(f"sort dimension {dimension} out of range for rank {ins[0].ndim}")
        return [(t.shape, t.dtype, t.weak_type) for t in ins]

    def sharding_rule(self, *ins: ArrayType, dimension, is_stable=True, num_keys=1):
        explicit = [t for t in ins if _explicit(t)]
        for t in explicit:
            if t.ndim and t.spec[dimension] is not None:
                raise ShardingTypeError(
                    "Arguments to sort must be unsharded over the sorting dimension. Got arg sharding="
                    f"{t.str_short()} and sorting dimension={dimension}")
            if t.spec != explicit[0].spec:
                raise ShardingTypeError("Arguments to sort must have equal shardings, got: "
                                        + " ".join(u.str_short() for u in explicit))
        return [t.spec for t in ins]

    def batch(self, B, axis, args, dims, *, dimension, is_stable=True, num_keys=1):
        """Every operand batched at dim 0 (unbatched ones broadcast); sorted along dim + 1."""
        xs = [B.bdim_at_front(x, d, axis.size, axis.entry) for x, d in zip(args, dims)]
        outs = B.bind(self, *xs, dimension=dimension + 1, is_stable=is_stable, num_keys=num_keys)
        return outs, [0] * len(outs)

    def vma_rule(self, *ins: ArrayType, **_):
        return [t.vma for t in ins]

    def vjp(self, L, cts, ins, outs, *, dimension, is_stable=True, num_keys=1):
        """JAX's `_sort_jvp` transposed: sort again with an iota to get the
        permutation, scatter each cotangent back through it."""
        t0 = ins[0].aval
        if not any(dt.is_float(x.aval.dtype) for x in ins):
            return [None] * len(ins)
        idx_dtype = np.dtype(np.uint32) if max(t0.shape, default=0) <= np.iinfo(np.uint32).max \
            else np.dtype(np.uint64)
        # replicated, as JAX's `broadcasted_iota` here (so a sharded operand fails the
        # equal-shardings rule under differentiation, as in JAX)
        io = bind(iota, dtype=idx_dtype, shape=t0.shape, dimension=dimension, out_sharding=None, mesh=t0.mesh)
        perm = bind(self, *ins, io, dimension=dimension, is_stable=is_stable, num_keys=num_keys)[-1]
        perm = L.expand_dims(perm, (t0.ndim,))
        d = permutation_scatter_dnums(t0.ndim, dimension)
        res = []
        for x, g in zip(ins, cts):
            t = x.aval
            if not dt.is_float(t.dtype):
                res.append(None)
                continue
            z = L.full(t.shape, 0, g.aval.dtype, out_sharding=_spec_of(t))
            res.append(bind(scatter_add, z, perm, g, dimension_numbers=d, mode="promise_in_bounds",
                            out_sharding=None))
        return res

    def lower(self, ctx, eqn, *xs):
        p = eqn.params
        types = [a.type for a in eqn.inputs]
        n = len(xs)
        lhs, names = ctx.results(n)
        stable = "true" if p.get("is_stable", True) else "false"
        ctx.emit(f'{lhs} = "stablehlo.sort"({", ".join(xs)}) <{{dimension = {p["dimension"]} : i64, '
                 f"is_stable = {stable}}}> ({{")
        inner = ctx.child(ctx.mesh)
        args = [(inner.fresh("a"), inner.fresh("b")) for _ in xs]
        sig = ", ".join(f"{a}: {tensor_type((), t.dtype)}, {b}: {tensor_type((), t.dtype)}"
                        for (a, b), t in zip(args, types))
        ctx.emit(f"^bb0({sig}):")
        res = lt_comparator(inner, [(a, b, t.dtype) for (a, b), t in zip(args, types)][:p["num_keys"]])
        inner.emit(f"stablehlo.return {res} : tensor<i1>")
        ctx.emit(f"}}) : ({', '.join(ttype(t) for t in types)}) -> "
                 f"({', '.join(ttype(o.type) for o in eqn.outputs)}){ctx._loc}")
        return names


def _compare_kind(dtype) -> str:
    if dt.is_float(dtype):
        return "TOTALORDER"
    return "SIGNED" if dt.is_signed(dtype) else "UNSIGNED"


def _canonical_float(ctx, x: str, dtype) -> str:
    """JAX's `_canonicalize_float_for_sort`: -0.0 -> 0.0, every NaN -> NaN."""
    st = tensor_type((), dtype)
    zero = ctx.scalar(0, dtype)
    is0 = ctx.op(f"stablehlo.compare EQ, {x}, {zero}, FLOAT : ({st}, {st}) -> tensor<i1>")
    y = ctx.op(f"stablehlo.select {is0}, {zero}, {x} : tensor<i1>, {st}")
    isnan = ctx.op(f"stablehlo.compare NE, {x}, {x}, FLOAT : ({st}, {st}) -> tensor<i1>")
    nan = ctx.scalar(np.nan, dtype)
    return ctx.op(f"stablehlo.select {isnan}, {nan}, {y} : tensor<i1>, {st}")


def lt_comparator(ctx, keys: list[tuple[str, str, np.dtype]], le: bool = False) -> str:
    """JAX's `_sort_lt_comparator` (`le`: `_sort_le_comparator`) over scalar
    pairs `(x, y, dtype)`, lexicographic with the first key primary."""
    canon = []
    for x, y, d in _complex_parts(ctx, keys):
        if dt.is_float(d):
            x, y = _canonical_float(ctx, x, d), _canonical_float(ctx, y, d)
        canon.append((x, y, d))
    p = None
    for i, (x, y, d) in enumerate(reversed(canon)):
        st = tensor_type((), d)
        kind = _compare_kind(d)
        op = "LE" if le and i == 0 else "LT"
        lt = ctx.op(f"stablehlo.compare {op}, {x}, {y}, {kind} : ({st}, {st}) -> tensor<i1>")
        if p is None:
            p = lt
            continue
        eq = ctx.op(f"stablehlo.compare EQ, {x}, {y}, {kind} : ({st}, {st}) -> tensor<i1>")
        both = ctx.op(f"stablehlo.and {eq}, {p} : tensor<i1>")
        p = ctx.op(f"stablehlo.or {lt}, {both} : tensor<i1>")
    return p


def _complex_parts(ctx, keys: list[tuple[str, str, np.dtype]]) -> list[tuple[str, str, np.dtype]]:
    """JAX's `_operands_to_keys`: a complex key compares as (real part, imaginary part)."""
    out = []
    for x, y, d in keys:
        if not dt.is_complex(d):
            out.append((x, y, d))
            continue
        r = dt.real_dtype(d)
        ct, rt = tensor_type((), d), tensor_type((), r)
        parts = [[ctx.op(f"stablehlo.{part} {v} : ({ct}) -> {rt}") for part in ("real", "imag")] for v in (x, y)]
        out += [(parts[0][0], parts[1][0], r), (parts[0][1], parts[1][1], r)]
    return out


sort = Sort()


class TopK(Primitive):
    """`top_k(operand, k, axis)`: the `k` largest along `axis` (descending, the
    lower index first among equals) and their int32 indices."""

    name = "top_k"
    multiple_results = True

    def shape_rule(self, x: ArrayType, *, k, axis):
        if k < 0:
            raise ShardcValueError(f"k argument to top_k must be nonnegative, got {k}")
        if x.ndim == 0:
            raise ShardcTypeError(f"top_k operand must have >= 1 dimension, got {x.shape}")
        if not 0 <= axis < x.ndim:
            raise ShardcValueError(f"axis argument out of range: axis={axis} for operand.shape={x.shape}")
        if x.shape[axis] < k:
            raise ShardcValueError("k argument to top_k must be no larger than size along axis; got "
                                   f"k={k} with shape={list(x.shape)} and axis={axis}")
        shape = list(x.shape)
        shape[axis] = k
        return [(tuple(shape), x.dtype, x.weak_type), (tuple(shape), dt.int32, False)]

    def sharding_rule(self, x: ArrayType, *, k, axis):
        if x.spec[axis] is not None:
            raise ShardingTypeError(
                "The input should be unsharded over the axis along which to compute the top_k values. Got "
                f"input type={x.str_short()} and axis={axis}")
        return [x.spec, x.spec]

    def batch(self, B, ax, args, dims, *, k, axis):
        d = dims[0]
        outs = B.bind(self, args[0], k=k, axis=axis + (axis >= d))
        return outs, [d, d]

    def vjp(self, L, cts, ins, outs, *, k, axis):
        """JAX's `_top_k_jvp` transposed: scatter the values' cotangent back at the indices."""
        x = ins[0]
        t = x.aval
        g = cts[0]
        idx = L.expand_dims(outs[1], (t.ndim,))
        d = permutation_scatter_dnums(t.ndim, axis)
        z = L.full(t.shape, 0, g.aval.dtype, out_sharding=_spec_of(t))
        return [bind(scatter_add, z, idx, g, dimension_numbers=d, mode="promise_in_bounds", out_sharding=None)]

    def lower(self, ctx, eqn, x):
        """As JAX: `chlo.top_k` over the last dim (a transpose moves `axis` there and back)."""
        t = eqn.inputs[0].type
        axis, k = eqn.params["axis"], eqn.params["k"]
        perm = list(range(t.ndim))
        perm[axis], perm[-1] = perm[-1], perm[axis]
        moved = t.shape if axis == t.ndim - 1 else tuple(t.shape[i] for i in perm)
        src = x
        if axis != t.ndim - 1:
            src = ctx.op(f"stablehlo.transpose {x}, dims = [{', '.join(map(str, perm))}] : "
                         f"({ttype(t)}) -> {tensor_type(moved, t.dtype)}")
        out_shape = moved[:-1] + (k,)
        vt, it = tensor_type(out_shape, t.dtype), tensor_type(out_shape, dt.int32)
        lhs, names = ctx.results(2)
        ctx.emit(f"{lhs} = chlo.top_k({src}, k = {k}) : {tensor_type(moved, t.dtype)} -> ({vt}, {it}){ctx._loc}")
        if axis == t.ndim - 1:
            return names
        back = []
        for name, o in zip(names, eqn.outputs):
            back.append(ctx.op(f"stablehlo.transpose {name}, dims = [{', '.join(map(str, perm))}] : "
                               f"({tensor_type(out_shape, o.type.dtype)}) -> {ttype(o.type)}"))
        return back


top_k = TopK()
