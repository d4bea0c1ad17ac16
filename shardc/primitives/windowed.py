"""Windowed reductions, as JAX 0.10.2's `jax/_src/lax/windowed_reductions.py`:
`reduce_window_sum` / `reduce_window_max` / `reduce_window_min` (the monoids
`lax.reduce_window` recognises), the generic `reduce_window` (a reducer body
over any number of operands), and the two primitives the max/min VJP needs,
`select_and_scatter_add` (the transpose of the max/min JVP) and
`select_and_gather_add` (its own transpose, for second derivatives).

Sharding (JAX's `reduce_window_sharding_rule`): the result keeps the operand's
spec; a sharded dim whose size changes must stay divisible by its mesh axes
(`_get_sharding_for_varying_out_shape`), otherwise JAX's "reduce_window on
sharded dims where out dim ... is not divisible" error. So pooling over a
sharded window dim is accepted when the pooled size divides; XLA inserts the
halo exchange. None of these has an unreduced/reduced rule (JAX's default
error); the varying manual axes follow the standard rule.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .. import dtypes as dt
from ..core import Const, Primitive, bind
from ..emit.text import tensor_type, ttype
from ..errors import ShardcNotImplementedError, ShardcTypeError, ShardcValueError, ShardingTypeError
from ..types import ArrayType
from .reduce_generic import lower_with_reducer
from .reductions import identity_value
from .shape import pad, slice_p, varying_out_shape_sharding

__all__ = ["reduce_window_sum", "reduce_window_max", "reduce_window_min", "reduce_window",
           "select_and_scatter_add", "select_and_gather_add", "reduce_window_shape_tuple",
           "check_shapelike", "window_params"]

Pads = tuple[tuple[int, int], ...]


# --- shapes (JAX's `_common_reduce_window_shape_rule`) ---------------------------------------------
def check_shapelike(fun: str, arg: str, obj, non_zero_shape: bool = False) -> None:
    """JAX's `lax._check_shapelike`."""
    if not isinstance(obj, (tuple, list, np.ndarray)):
        raise ShardcTypeError(f"{fun} {arg} must be of type tuple/list/ndarray, got {type(obj)}.")
    if not len(obj):
        return
    if any(not isinstance(d, (int, np.integer)) for d in obj):
        raise ShardcTypeError(f"{fun} {arg} must have every element be an integer type, "
                              f"got {tuple(map(type, obj))}.")
    lower, what = (1, "strictly positive") if non_zero_shape else (0, "nonnegative")
    if not all(d >= lower for d in obj):
        raise ShardcTypeError(f"{fun} {arg} must have every element be {what}, got {tuple(obj)}.")


def _dilate(shape: Sequence[int], dilation: Sequence[int]) -> tuple[int, ...]:
    if not all(d > 0 for d in dilation):
        raise ShardcTypeError(f"All dilations must be positive, got {tuple(dilation)}.")
    return tuple(0 if n == 0 else 1 + k * (n - 1) for n, k in zip(shape, dilation))


def reduce_window_shape_tuple(operand_shape, window_dimensions, window_strides, padding,
                              base_dilation=None, window_dilation=None) -> tuple[int, ...]:
    """`lax.reduce_window_shape_tuple`: the result shape of a windowed reduction."""
    if base_dilation is not None:
        operand_shape = _dilate(operand_shape, base_dilation)
    if window_dilation is not None:
        window_dimensions = _dilate(window_dimensions, window_dilation)
    padded = tuple(d + lo + hi for d, (lo, hi) in zip(operand_shape, padding))
    return tuple(max((d - w) // s + 1, 0) for d, w, s in zip(padded, window_dimensions, window_strides))


def window_shape(x: ArrayType, window_dimensions, window_strides, padding, base_dilation,
                 window_dilation) -> tuple[int, ...]:
    """JAX's `_common_reduce_window_shape_rule` (its errors, in its order)."""
    check_shapelike("reduce_window", "window_dimensions", window_dimensions, non_zero_shape=True)
    check_shapelike("reduce_window", "window_strides", window_strides, non_zero_shape=True)
    check_shapelike("reduce_window", "base_dilation", base_dilation)
    check_shapelike("reduce_window", "window_dilation", window_dilation)
    if x.ndim != len(window_dimensions):
        raise ShardcTypeError("reduce_window got the wrong number of window_dimensions for operand: got operand "
                              f"shape {x.shape} with window_dimensions {tuple(window_dimensions)}.")
    for name, v in (("window_strides", window_strides), ("base_dilation", base_dilation),
                    ("window_dilation", window_dilation)):
        if len(v) != len(window_dimensions):
            raise ShardcTypeError(f"reduce_window got inconsistent {name} and window_dimensions: got {name} "
                                  f"{tuple(v)} and window_dimensions {tuple(window_dimensions)}.")
    if len(padding) != len(window_dimensions):
        raise ShardcTypeError(f"reduce_window got padding {tuple(padding)} for an operand of rank {x.ndim}.")
    return reduce_window_shape_tuple(x.shape, window_dimensions, window_strides, padding, base_dilation,
                                     window_dilation)


def window_sharding(x: ArrayType, out_shape) -> tuple:
    """JAX's `reduce_window_sharding_rule`."""
    return varying_out_shape_sharding("reduce_window", x, out_shape)


def window_params(p: dict) -> tuple:
    return (p["window_dimensions"], p["window_strides"], p["padding"], p["base_dilation"], p["window_dilation"])


def _fmt_window(p: dict) -> str:
    s = f"window_dimensions={tuple(p['window_dimensions'])} window_strides={tuple(p['window_strides'])} " \
        f"padding={tuple(tuple(q) for q in p['padding'])}"
    for k in ("base_dilation", "window_dilation"):
        if k in p and any(d != 1 for d in p[k]):
            s += f" {k}={tuple(p[k])}"
    return s


def _arr(name: str, values) -> str:
    if not len(values):
        return f"{name} = array<i64>"
    return f"{name} = array<i64: {', '.join(str(int(v)) for v in values)}>"


def _pad_attr(padding) -> str:
    n = len(padding)
    if n == 0:
        return "padding = dense<> : tensor<0x2xi64>"
    body = "[" + ", ".join(f"[{int(lo)}, {int(hi)}]" for lo, hi in padding) + "]"
    return f"padding = dense<{body}> : tensor<{n}x2xi64>"


def _window_attrs(p: dict, dilations: bool = True) -> str:
    parts = []
    if dilations:
        parts.append(_arr("base_dilations", p["base_dilation"]))
    parts.append(_pad_attr(p["padding"]))
    if dilations:
        parts.append(_arr("window_dilations", p["window_dilation"]))
    parts += [_arr("window_dimensions", p["window_dimensions"]), _arr("window_strides", p["window_strides"])]
    return "<{" + ", ".join(parts) + "}>"


def _insert1(p: dict, d: int, keys=("window_dimensions", "window_strides", "padding", "base_dilation",
                                   "window_dilation")) -> dict:
    """The window params with a size-1 window (no padding) inserted at dim `d` (a batch dim)."""
    out = dict(p)
    for k in keys:
        v = tuple(p[k])
        out[k] = (*v[:d], (0, 0) if k == "padding" else 1, *v[d:])
    return out


# --- the monoid reductions -------------------------------------------------------------------------
_COMBINE = {"sum": "stablehlo.add", "max": "stablehlo.maximum", "min": "stablehlo.minimum"}


class ReduceWindowMonoid(Primitive):
    """`reduce_window_<kind>(x; window_dimensions, window_strides, padding, base_dilation,
    window_dilation)`."""

    def __init__(self, kind: str):
        self.kind = kind
        super().__init__(f"reduce_window_{kind}")

    def shape_rule(self, x: ArrayType, **p):
        if self.kind == "sum" and not (dt.is_float(x.dtype) or dt.is_int(x.dtype)
                                       or dt.is_complex(x.dtype)):
            raise ShardcTypeError(f"operand to reduce_window_sum must have a number dtype, got {x.dtype.name}")
        return [(window_shape(x, *window_params(p)), x.dtype, x.weak_type)]

    def sharding_rule(self, x: ArrayType, **p):
        return [window_sharding(x, window_shape(x, *window_params(p)))]

    def batch(self, B, axis, args, dims, **p):
        d = dims[0]
        return B.bind(self, args[0], **_insert1(p, d)), d

    def vjp(self, L, g, ins, outs, *, window_dimensions, window_strides, padding, base_dilation,
            window_dilation):
        x = ins[0]
        t = x.aval
        if self.kind == "sum":
            return [_sum_transpose(g, t, window_dimensions, window_strides, padding, base_dilation,
                                   window_dilation)]
        return [_chooser_transpose("ge" if self.kind == "max" else "le", g, x, window_dimensions,
                                   window_strides, padding, base_dilation, window_dilation)]

    def format_params(self, p):
        return _fmt_window(p)

    def lower(self, ctx, eqn, x):
        src, out = eqn.inputs[0].type, eqn.outputs[0].type
        init = ctx.scalar(identity_value(self.kind, src.dtype), src.dtype)
        st = tensor_type((), src.dtype)
        comb = _COMBINE[self.kind]
        if src.dtype == dt.bool_ and self.kind != "sum":
            comb = "stablehlo.or" if self.kind == "max" else "stablehlo.and"
        return [ctx.op(
            f'"stablehlo.reduce_window"({x}, {init}) {_window_attrs(eqn.params)} ({{',
            region=[f"^bb0(%w0: {st}, %w1: {st}):",
                    f"  %w2 = {comb} %w0, %w1 : {st}",
                    f"  stablehlo.return %w2 : {st}",
                    f"}}) : ({ttype(src)}, {st}) -> {ttype(out)}"])]


reduce_window_sum = ReduceWindowMonoid("sum")
reduce_window_max = ReduceWindowMonoid("max")
reduce_window_min = ReduceWindowMonoid("min")


def _sum_transpose(g, t: ArrayType, window_dimensions, window_strides, padding, base_dilation, window_dilation):
    """JAX's `_reduce_window_sum_transpose_rule`: pad the cotangent (interior stride - 1,
    the conv-VJP padding), then a window sum strided by the base dilation."""
    in_shape = t.shape
    out_shape = g.aval.shape
    lhs = _dilate(in_shape, base_dilation)
    rhs = _dilate(window_dimensions, window_dilation)
    outd = _dilate(out_shape, window_strides)
    before = [r - lo - 1 for r, (lo, _) in zip(rhs, padding)]
    after = [a + r - 1 - o - b for a, r, o, b in zip(lhs, rhs, outd, before)]
    interior = [s - 1 for s in window_strides]
    zero = Const(0, g.aval.dtype)
    padded = bind(pad, g, zero, low=tuple(before), high=tuple(after), interior=tuple(interior))
    ones = (1,) * len(in_shape)
    return bind(reduce_window_sum, padded, window_dimensions=tuple(window_dimensions),
                window_strides=tuple(base_dilation), padding=((0, 0),) * len(in_shape), base_dilation=ones,
                window_dilation=tuple(window_dilation))


def _select_identity(select_prim: str, dtype) -> object:
    return identity_value("max" if select_prim == "ge" else "min", dtype)


def _chooser_transpose(select_prim: str, g, operand, window_dimensions, window_strides, padding, base_dilation,
                       window_dilation):
    """JAX's `_select_and_gather_add_transpose` (the max/min JVP transposed): the cotangent
    scattered onto each window's selected element (`select_and_scatter_add`)."""
    if any(d != 1 for d in window_dilation):
        raise ShardcNotImplementedError(
            "VJP not implemented for select_and_gather (MaxPool) with window dilation, got "
            f"window_dilation={tuple(window_dilation)}.")
    t = operand.aval if hasattr(operand, "aval") else operand
    has_base = any(d != 1 for d in base_dilation)
    if has_base:
        ident = Const(_select_identity(select_prim, t.dtype), t.dtype)
        operand = bind(pad, operand, ident, low=(0,) * t.ndim, high=(0,) * t.ndim,
                       interior=tuple(d - 1 for d in base_dilation))
    res = bind(select_and_scatter_add, g, operand, select_prim=select_prim,
               window_dimensions=tuple(window_dimensions), window_strides=tuple(window_strides),
               padding=tuple(tuple(q) for q in padding))
    if has_base:
        shape = res.aval.shape
        res = bind(slice_p, res, start_indices=(0,) * len(shape), limit_indices=tuple(shape),
                   strides=tuple(base_dilation))
    return res


# --- select_and_scatter_add / select_and_gather_add ------------------------------------------------
class SelectAndScatterAdd(Primitive):
    """`select_and_scatter_add(source, operand; select_prim, window_dimensions, window_strides,
    padding)`: each window of `operand` picks its max (`ge`) / min (`le`) element, which
    receives the sum of the `source` values of the windows that picked it."""

    name = "select_and_scatter_add"

    def shape_rule(self, source: ArrayType, operand: ArrayType, *, select_prim, window_dimensions,
                   window_strides, padding):
        check_shapelike("select_and_scatter", "window_dimensions", window_dimensions)
        check_shapelike("select_and_scatter", "window_strides", window_strides)
        if len(window_dimensions) != len(window_strides):
            raise ShardcTypeError("select_and_scatter got inconsistent window_strides and window_dimensions: "
                                  f"got window_strides {tuple(window_strides)} and window_dimensions "
                                  f"{tuple(window_dimensions)}.")
        return [(operand.shape, source.dtype, source.weak_type)]

    def sharding_rule(self, source: ArrayType, operand: ArrayType, **_):
        return [operand.spec]

    def batch(self, B, axis, args, dims, *, select_prim, window_dimensions, window_strides, padding):
        s, o = (B.bdim_at_front(a, d, axis.size, axis.entry) for a, d in zip(args, dims))
        p = _insert1(dict(window_dimensions=window_dimensions, window_strides=window_strides, padding=padding), 0,
                     keys=("window_dimensions", "window_strides", "padding"))
        return B.bind(self, s, o, select_prim=select_prim, **p), 0

    def vjp(self, L, g, ins, outs, *, select_prim, window_dimensions, window_strides, padding):
        """JAX's `_select_and_scatter_add_transpose`: gather the cotangent at the selected elements."""
        ones = (1,) * len(window_dimensions)
        return [bind(select_and_gather_add, g, ins[1], select_prim=select_prim,
                     window_dimensions=window_dimensions, window_strides=window_strides, padding=padding,
                     base_dilation=ones, window_dilation=ones), None]

    def format_params(self, p):
        return f"select_prim={p['select_prim']} " + _fmt_window(p)

    def lower(self, ctx, eqn, source, operand):
        """JAX's CPU lowering (`expand_padding=True`): pad the operand with the select
        identity, `stablehlo.select_and_scatter` without padding, slice the padding away."""
        p = eqn.params
        ot, st_, out = eqn.inputs[1].type, eqn.inputs[0].type, eqn.outputs[0].type
        d = ot.dtype
        sc = tensor_type((), d)
        padding = p["padding"]
        padded_shape = tuple(n + lo + hi for n, (lo, hi) in zip(ot.shape, padding))
        # as JAX's CPU lowering: the pad (and the slice below) even when they are no-ops
        ident = ctx.scalar(_select_identity(p["select_prim"], d), d)
        lows = ", ".join(str(lo) for lo, _ in padding)
        highs = ", ".join(str(hi) for _, hi in padding)
        zeros = ", ".join("0" for _ in padding)
        x = ctx.op(f"stablehlo.pad {operand}, {ident}, low = [{lows}], high = [{highs}], interior = [{zeros}] : "
                   f"({ttype(ot)}, {sc}) -> {tensor_type(padded_shape, d)}")
        zero = ctx.scalar(False if d == dt.bool_ else 0, d)
        kind = "FLOAT" if dt.is_float(d) else ("SIGNED" if dt.is_signed(d) else "UNSIGNED")
        cmp = "GE" if p["select_prim"] == "ge" else "LE"
        add = "stablehlo.or" if d == dt.bool_ else "stablehlo.add"
        no_pad = dict(p, padding=((0, 0),) * len(padding))
        attrs = "<{" + ", ".join([_pad_attr(no_pad["padding"]), _arr("window_dimensions", p["window_dimensions"]),
                                  _arr("window_strides", p["window_strides"])]) + "}>"
        res = ctx.op(
            f'"stablehlo.select_and_scatter"({x}, {source}, {zero}) {attrs} ({{',
            region=[f"^bb0(%s0: {sc}, %s1: {sc}):",
                    f"  %s2 = stablehlo.compare {cmp}, %s0, %s1, {kind} : ({sc}, {sc}) -> tensor<i1>",
                    "  stablehlo.return %s2 : tensor<i1>",
                    "}, {",
                    f"^bb0(%s0: {sc}, %s1: {sc}):",
                    f"  %s2 = {add} %s0, %s1 : {sc}",
                    f"  stablehlo.return %s2 : {sc}",
                    f"}}) : ({tensor_type(padded_shape, d)}, {ttype(st_)}, {sc}) -> "
                    f"{tensor_type(padded_shape, d)}"])
        parts = ", ".join(f"{lo}:{lo + n}" for n, (lo, _) in zip(ot.shape, padding))
        return [ctx.op(f"stablehlo.slice {res} [{parts}] : ({tensor_type(padded_shape, d)}) -> {ttype(out)}")]


select_and_scatter_add = SelectAndScatterAdd()


class SelectAndGatherAdd(Primitive):
    """`select_and_gather_add(tangents, operand; select_prim, window params)`: per window,
    the tangent at the window's max (`ge`) / min (`le`) element of `operand` (the JVP of
    `reduce_window_max` / `_min`)."""

    name = "select_and_gather_add"

    def shape_rule(self, tangents: ArrayType, operand: ArrayType, *, select_prim, **p):
        if tangents.shape != operand.shape:
            raise ShardcTypeError("select_and_gather_add tangents and operand shapes must match, got "
                                  f"{tangents.shape} and {operand.shape}.")
        return [(window_shape(operand, *window_params(p)), tangents.dtype, tangents.weak_type)]

    def sharding_rule(self, tangents: ArrayType, operand: ArrayType, *, select_prim, **p):
        if tangents.spec != operand.spec:
            raise ShardingTypeError("select_and_gather_add tangents and operand shardings must match, got "
                                    f"{tangents.str_short()} and {operand.str_short()}.")
        return [window_sharding(operand, window_shape(operand, *window_params(p)))]

    def batch(self, B, axis, args, dims, *, select_prim, **p):
        t, x = (B.bdim_at_front(a, d, axis.size, axis.entry) for a, d in zip(args, dims))
        return B.bind(self, t, x, select_prim=select_prim, **_insert1(p, 0)), 0

    def vjp(self, L, g, ins, outs, *, select_prim, window_dimensions, window_strides, padding, base_dilation,
            window_dilation):
        return [_chooser_transpose(select_prim, g, ins[1], window_dimensions, window_strides, padding,
                                   base_dilation, window_dilation), None]

    def format_params(self, p):
        return f"select_prim={p['select_prim']} " + _fmt_window(p)

    def lower(self, ctx, eqn, tangents, operand):
        """JAX's `_select_and_gather_add_using_variadic_reducewindow`: a two-operand window
        reduction keeping the (value, tangent) pair whose value wins `ge` / `le`."""
        p = eqn.params
        ot, out = eqn.inputs[1].type, eqn.outputs[0].type
        d = ot.dtype
        sc = tensor_type((), d)
        init = ctx.scalar(-np.inf if p["select_prim"] == "ge" else np.inf, d) if dt.is_float(d) else \
            ctx.scalar(_select_identity(p["select_prim"], d), d)
        zero = ctx.scalar(0, d)
        kind = "FLOAT" if dt.is_float(d) else ("SIGNED" if dt.is_signed(d) else "UNSIGNED")
        cmp = "GE" if p["select_prim"] == "ge" else "LE"
        res = ctx.op(
            f'"stablehlo.reduce_window"({operand}, {tangents}, {init}, {zero}) {_window_attrs(p)} ({{',
            n_results=2,
            region=[f"^bb0(%g0: {sc}, %g1: {sc}, %g2: {sc}, %g3: {sc}):",
                    f"  %g4 = stablehlo.compare {cmp}, %g0, %g2, {kind} : ({sc}, {sc}) -> tensor<i1>",
                    f"  %g5 = stablehlo.select %g4, %g0, %g2 : tensor<i1>, {sc}",
                    f"  %g6 = stablehlo.select %g4, %g1, %g3 : tensor<i1>, {sc}",
                    f"  stablehlo.return %g5, %g6 : {sc}, {sc}",
                    f"}}) : ({ttype(ot)}, {ttype(ot)}, {sc}, {sc}) -> ({ttype(out)}, {ttype(out)})"])
        return [res[1]]


select_and_gather_add = SelectAndGatherAdd()


# --- the generic reduce_window (a reducer body) ----------------------------------------------------
class ReduceWindow(Primitive):
    """`reduce_window(*operands, *init_values; jaxpr, window params)`: the reducer `jaxpr`
    (a program over 2n scalars: the n accumulators, then the n new elements) folds each
    window of the n operands."""

    name = "reduce_window"
    multiple_results = True

    def shape_rule(self, *ins: ArrayType, jaxpr, **p):
        n = len(ins) // 2
        ops, inits = ins[:n], ins[n:]
        if any(o.dtype != i.dtype for o, i in zip(ops, inits)):
            raise ShardcTypeError(
                "reduce_window got inconsistent dtypes for operands and init_values: got operand dtypes "
                f"{[o.dtype for o in ops]} and init_value dtypes {[i.dtype for i in inits]}.")
        if any(i.ndim for i in inits):
            raise ShardcTypeError("reduce_window expected init_values to be scalars but init_values have shapes "
                                  f"{[i.shape for i in inits]}.")
        shape = window_shape(ops[0], *window_params(p))
        return [(shape, o.dtype, False) for o in ops]

    def sharding_rule(self, *ins: ArrayType, jaxpr, **p):
        n = len(ins) // 2
        shape = window_shape(ins[0], *window_params(p))
        return [window_sharding(ins[0], shape)] * n

    def ur_rule(self, *ins: ArrayType, **_):
        if any(t.unreduced or t.reduced for t in ins[:len(ins) // 2]):
            raise ShardcNotImplementedError("reduce_window does not accept unreduced/reduced operands")
        return (frozenset(), frozenset())

    def vma_rule(self, *ins: ArrayType, **_):
        return super().vma_rule(*ins[:len(ins) // 2])

    def batch(self, B, axis, args, dims, *, jaxpr, **p):
        n = len(args) // 2
        if any(d is not None for d in dims[n:]):
            raise ShardcNotImplementedError("reduce_window batching is not implemented for initial values")
        ops = [B.bdim_at_front(a, d, axis.size, axis.entry) for a, d in zip(args[:n], dims[:n])]
        outs = B.bind(self, *ops, *args[n:], jaxpr=jaxpr, **_insert1(p, 0))
        return outs, [0] * n

    def vjp(self, L, cts, ins, outs, **_):
        raise ShardcValueError(
            "Linearization failed to produce known values for all output primals. This is typically caused by "
            "attempting to differentiate a function uses an operation that does not support reverse-mode "
            "autodiff.")

    def format_params(self, p):
        return _fmt_window(p)

    def sub_programs(self, params):
        return [params["jaxpr"]]

    def lower(self, ctx, eqn, *args):
        return lower_with_reducer(ctx, eqn, args,
                                  f'"stablehlo.reduce_window"({", ".join(args)}) {_window_attrs(eqn.params)}')


reduce_window = ReduceWindow()
