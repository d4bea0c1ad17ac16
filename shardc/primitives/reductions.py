"""Reductions (`reduce_sum`/`max`/`min`/`prod`/`and`/`or`, `argmax`/`argmin`)
and cumulative ops (`cumsum`/`cumprod`/`cummax`/`cummin`) — JAX rules §2.7, §2.8.

A reduction drops the reduced dims' spec entries: reducing a sharded dim
all-reduces and yields a replicated result unless `reduce_sum` is asked for an
unreduced one via `out_sharding`.
"""
from __future__ import annotations

from typing import Sequence

import ml_dtypes
import numpy as np

from .. import dtypes as dt
from ..core import Const, Primitive, _fs, bind, current_trace
from ..emit.text import int_list, tensor_type, ttype
from ..errors import ShardcNotImplementedError, ShardcTypeError, ShardcValueError, ShardingTypeError
from ..transforms.ad import ct_spec
from ..types import ArrayType
from .elementwise import BINARY, complex_minmax, dtype_error
from .prefix_scan import prefix_scan, reduce_tree
from .shape import broadcast_in_dim, out_sharding_entries

_NONE: frozenset[str] = frozenset()


def _check_axes(x: ArrayType, axes: Sequence[int], name: str) -> None:
    if len(set(axes)) != len(axes) or any(not 0 <= a < x.ndim for a in axes):
        raise ShardcValueError(f"{name}: invalid axes {tuple(axes)} for an array of rank {x.ndim}")


def _dangerous(name: str, x: ArrayType) -> ShardcValueError:
    return ShardcValueError(
        f"{name} does not accept unreduced/reduced operands ({x.str_short()}); reduce it first "
        "with `sc.reshard(x, P(...))` (JAX 0.10.2 fails here too, with "
        "`Using *pspec is dangerous when PartitionSpec has non-empty unreduced/reduced set`)")


def identity_value(kind: str, dtype: np.dtype):
    """The init value of a reduction (`-inf` for max, `0` for sum, …)."""
    d = np.dtype(dtype)
    if kind in ("sum", "or"):
        return False if d == dt.bool_ else 0
    if kind == "prod":
        return True if d == dt.bool_ else 1
    if kind == "and":   # all bits set (JAX's `_get_bitwise_and_identity`: -1 in the int's dtype)
        return True if d == dt.bool_ else np.array(-1).astype(d)
    if d == dt.bool_:
        return kind == "min"
    if dt.is_inexact(d):
        if not dt.supports_inf(d):    # (JAX's `_get_max_identity`: the finite extremes)
            info = ml_dtypes.finfo(d)
            return info.min if kind == "max" else info.max
        return -np.inf if kind == "max" else np.inf
    info = np.iinfo(d)
    return info.min if kind == "max" else info.max


_COMBINER = {"sum": "stablehlo.add", "max": "stablehlo.maximum", "min": "stablehlo.minimum",
             "prod": "stablehlo.multiply", "and": "stablehlo.and", "or": "stablehlo.or"}


class Reduce(Primitive):
    """`reduce_<kind>(x, axes)`."""

    def __init__(self, kind: str):
        self.kind = kind
        super().__init__(f"reduce_{kind}")

    def shape_rule(self, x: ArrayType, *, axes, out_sharding=None):
        _check_axes(x, axes, self.name)
        shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
        return [(shape, x.dtype, x.weak_type)]

    def sharding_rule(self, x: ArrayType, *, axes, out_sharding=None):
        if out_sharding is not None:
            shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
            return [out_sharding_entries(out_sharding, shape, x.mesh)]
        return [tuple(e for i, e in enumerate(x.spec) if i not in axes)]

    def ur_rule(self, x: ArrayType, *, axes, out_sharding=None):
        if self.kind != "sum":
            if x.unreduced or x.reduced:
                raise _dangerous(self.name, x)
            return [(_NONE, _NONE)]
        u = out_sharding.unreduced if out_sharding is not None else _NONE
        if not u:
            return [(x.unreduced, x.reduced)]
        # an unreduced out_sharding replaces the operand's U (which it may keep)
        summed = {a for i in axes for a in x.dim_axes(i)} | x.unreduced
        if not u <= summed:
            raise ShardingTypeError(
                "out_sharding's unreduced axes should be in operand's specs that were summed "
                f"over. Got operand={x!r}, axes=frozenset({{{', '.join(str(a) for a in sorted(axes))}}}), "
                f"unreduced_spec={_fs(u)}")
        return [(u, x.reduced)]

    def batch(self, B, axis, args, dims, *, axes, out_sharding=None):
        """The reduced axes shifted past the batch dim, which stays (as JAX's rule)."""
        d = dims[0]
        new = tuple(a + (a >= d) for a in axes)
        od = d - sum(a < d for a in axes)
        osh = None if out_sharding is None else B.insert_spec(out_sharding, od, axis.entry)
        return B.bind(self, args[0], axes=new, out_sharding=osh), od

    def vjp(self, L, g, ins, outs, *, axes, out_sharding=None):
        """sum: broadcast back with the operand's cotangent sharding; max/min:
        split equally among the maximal (minimal) entries, as JAX does."""
        x = ins[0]
        t = x.aval
        kept = tuple(i for i in range(t.ndim) if i not in axes)
        spec = ct_spec(t) if not t.mesh.empty else None
        manual = frozenset(t.mesh.manual_axes)
        if spec is not None and manual & (spec.unreduced | spec.reduced):
            # Manual U/R axes (inside shard_map) are not spec'able: they come with `g`'s type
            spec = type(spec)(*spec, unreduced=spec.unreduced - manual, reduced=spec.reduced - manual)
        if self.kind == "sum":
            return [bind(broadcast_in_dim, g, shape=t.shape, broadcast_dimensions=kept, out_sharding=spec)]
        if self.kind in ("max", "min"):
            yb = bind(broadcast_in_dim, outs[0], shape=t.shape, broadcast_dimensions=kept,
                      out_sharding=type(spec)(*t.spec) if spec is not None else None)
            mask = L.convert_element_type(L.eq(x, yb), t.dtype)
            # divide by the count before broadcasting: transposed (forward mode), the count's
            # sum and the tangent's sum are independent, so XLA merges their all-reduces (as JAX's)
            share = L.div(g, L.reduce_sum(mask, axes))
            gb = bind(broadcast_in_dim, share, shape=t.shape, broadcast_dimensions=kept, out_sharding=spec)
            return [L.mul(gb, mask)]
        if self.kind in ("and", "or"):
            return [None]
        if self.kind == "prod":
            # JAX's `_reduce_prod_jvp_rule`: a tree of halvings, differentiated (here by replay)
            trace = current_trace()
            start = len(trace.eqns)
            mul = BINARY["mul"]
            y = reduce_tree(L, lambda a, b: [bind(mul, a[0], b[0])], [x], [Const(1, t.dtype)], tuple(axes))[0]
            return L.backward(trace, trace.eqns[start:], [x._var], [y._var], [g])
        raise ShardcNotImplementedError(f"differentiation of reduce_{self.kind} is not supported yet")

    def format_params(self, p):
        s = f"axes={tuple(p['axes'])}"
        return s + (f" out_sharding={p['out_sharding']!r}" if p.get("out_sharding") is not None else "")

    def lower(self, ctx, eqn, x):
        src, out = eqn.inputs[0].type, eqn.outputs[0].type
        init = ctx.scalar(identity_value(self.kind, src.dtype), src.dtype)
        st = tensor_type((), src.dtype)
        if self.kind in ("max", "min") and dt.is_complex(src.dtype):
            return [self._lower_complex_minmax(ctx, eqn, x, init)]
        return [ctx.op(f"stablehlo.reduce({x} init: {init}) applies {_COMBINER[self.kind]} across "
                       f"dimensions = {int_list(eqn.params['axes'])} : ({ttype(src)}, {st}) -> {ttype(out)}")]


    def _lower_complex_minmax(self, ctx, eqn, x: str, init: str) -> str:
        """Complex max/min: JAX's reducer body, the lexicographic (real, imag) choice."""
        src, out = eqn.inputs[0].type, eqn.outputs[0].type
        st = tensor_type((), src.dtype)
        body: list[str] = []

        def op(text: str) -> str:
            name = f"%r{len(body)}"
            body.append(f"  {name} = {text}")
            return name

        res = complex_minmax(op, "%a0", "%a1", (), src.dtype, "GT" if self.kind == "max" else "LT")
        return ctx.op(f"stablehlo.reduce({x} init: {init}) across dimensions = {int_list(eqn.params['axes'])} : "
                      f"({ttype(src)}, {st}) -> {ttype(out)}",
                      region=[f"reducer(%a0: {st}, %a1: {st}) {{", *body, f"  stablehlo.return {res} : {st}", "}"])


REDUCE = {k: Reduce(k) for k in ("sum", "max", "min", "prod", "and", "or")}


class ArgReduce(Primitive):
    """`argmax`/`argmin` along one axis (first index wins ties; NaN wins, as JAX)."""

    def __init__(self, kind: str):
        self.kind = kind
        super().__init__(f"arg{kind}")

    def shape_rule(self, x: ArrayType, *, axis, index_dtype):
        _check_axes(x, (axis,), self.name)
        if dt.is_complex(x.dtype):
            # JAX's comparator binds gt/lt, which refuse complex numbers
            raise dtype_error("gt" if self.kind == "max" else "lt", "fiub", x.dtype, position=0)
        if x.shape[axis] == 0:
            raise ShardcValueError(f"attempt to get {self.name} of an empty sequence")
        return [(tuple(d for i, d in enumerate(x.shape) if i != axis), index_dtype, False)]

    def sharding_rule(self, x: ArrayType, *, axis, index_dtype):
        return [tuple(e for i, e in enumerate(x.spec) if i != axis)]

    def ur_rule(self, x: ArrayType, **_):
        if x.unreduced or x.reduced:
            raise _dangerous(self.name, x)
        return [(_NONE, _NONE)]

    def batch(self, B, ax, args, dims, *, axis, index_dtype):
        d = dims[0]
        return B.bind(self, args[0], axis=axis + (axis >= d), index_dtype=index_dtype), d - (axis < d)

    def vjp(self, L, g, ins, outs, **_):
        return [None]

    def format_params(self, p):
        return f"axes=({p['axis']},) index_dtype={dt.short_name(p['index_dtype'])}"

    def lower(self, ctx, eqn, x):
        src, out = eqn.inputs[0].type, eqn.outputs[0].type
        axis = eqn.params["axis"]
        idt = out.dtype
        iota_t = src.update(dtype=idt)
        iota = ctx.op(f"stablehlo.iota dim = {axis} : {ttype(iota_t)}")
        iota = ctx.constrain(iota, iota_t)
        init_v = ctx.scalar(identity_value(self.kind, src.dtype), src.dtype)
        init_i = ctx.scalar(0, idt)
        vt, it = tensor_type((), src.dtype), tensor_type((), idt)
        cmp = "GT" if self.kind == "max" else "LT"
        kind = "FLOAT" if dt.is_float(src.dtype) else ("SIGNED" if dt.is_signed(src.dtype) else "UNSIGNED")
        ikind = "SIGNED" if dt.is_signed(idt) else "UNSIGNED"
        res = ctx.op(
            f"stablehlo.reduce({x} init: {init_v}), ({iota} init: {init_i}) across dimensions = [{axis}] : "
            f"({ttype(src)}, {ttype(iota_t)}, {vt}, {it}) -> ({ttype(out.update(dtype=src.dtype))}, {ttype(out)})",
            n_results=2,
            region=[
                f"reducer(%a0: {vt}, %a1: {vt}) (%b0: {it}, %b1: {it}) {{",
                f"  %c0 = stablehlo.compare {cmp}, %a0, %a1, {kind} : ({vt}, {vt}) -> tensor<i1>",
                *([f"  %n0 = stablehlo.compare NE, %a0, %a0, {kind} : ({vt}, {vt}) -> tensor<i1>",
                   "  %p0 = stablehlo.or %c0, %n0 : tensor<i1>"] if kind == "FLOAT" else
                  ["  %p0 = stablehlo.or %c0, %c0 : tensor<i1>"]),
                f"  %e0 = stablehlo.compare EQ, %a0, %a1, {kind} : ({vt}, {vt}) -> tensor<i1>",
                f"  %l0 = stablehlo.compare LT, %b0, %b1, {ikind} : ({it}, {it}) -> tensor<i1>",
                "  %t0 = stablehlo.and %e0, %l0 : tensor<i1>",
                "  %q0 = stablehlo.or %p0, %t0 : tensor<i1>",
                f"  %v0 = stablehlo.select %p0, %a0, %a1 : tensor<i1>, {vt}",
                f"  %i0 = stablehlo.select %q0, %b0, %b1 : tensor<i1>, {it}",
                f"  stablehlo.return %v0, %i0 : {vt}, {it}",
                "}",
            ])
        return [res[1]]


ARG_REDUCE = {k: ArgReduce(k) for k in ("max", "min")}


class Cumulative(Primitive):
    """`cum<kind>(x, axis)`: the scanned axis must be unsharded (§2.8)."""

    def __init__(self, kind: str):
        self.kind = kind
        super().__init__(f"cum{kind}")

    def shape_rule(self, x: ArrayType, *, axis, reverse=False):
        if x.dtype == dt.bool_:
            raise ShardcTypeError(f"{self.name} does not accept dtype bool. Accepted dtypes are "
                                   "subtypes of number.")
        _check_axes(x, (axis,), self.name)
        return [(x.shape, x.dtype, x.weak_type)]

    def sharding_rule(self, x: ArrayType, *, axis, reverse=False):
        if x.spec[axis] is not None:
            raise ShardingTypeError(
                "Input should be unsharded over the axis being reduced. "
                f"Got input type={x.str_short(short_dtypes=False)} and axis={axis}")
        return [x.spec]

    def ur_rule(self, x: ArrayType, **_):
        if x.unreduced or x.reduced:
            raise _dangerous(self.name, x)
        return [(_NONE, _NONE)]

    def batch(self, B, ax, args, dims, *, axis, reverse=False):
        d = dims[0]
        return B.bind(self, args[0], axis=axis + (axis >= d), reverse=reverse), d

    def vjp(self, L, g, ins, outs, *, axis, reverse=False):
        if self.kind == "sum":
            return [bind(self, g, axis=axis, reverse=not reverse)]
        # JAX's `_cumulative_jvp_rule`: the parallel prefix scan of the combiner, differentiated
        # (here: replayed and run backward), so ties and zeros get JAX's gradients
        comb = BINARY[{"prod": "mul", "max": "max", "min": "min"}[self.kind]]
        x = ins[0]
        trace = current_trace()
        start = len(trace.eqns)
        y = prefix_scan(lambda a, b: [bind(comb, a[0], b[0])], [x], axis, reverse)[0]
        return L.backward(trace, trace.eqns[start:], [x._var], [y._var], [g])

    def format_params(self, p):
        return f"axis={p['axis']} reverse={p.get('reverse', False)}"

    def lower(self, ctx, eqn, x):
        src = eqn.inputs[0].type
        axis, n = eqn.params["axis"], src.shape[eqn.params["axis"]]
        rev = eqn.params.get("reverse", False)
        init = ctx.scalar(identity_value(self.kind, src.dtype), src.dtype)
        win = [1] * src.ndim
        win[axis] = max(n, 1)
        pad = [[0, 0] for _ in range(src.ndim)]
        pad[axis] = [0, n - 1] if rev else [n - 1, 0]
        ones = ", ".join("1" for _ in range(src.ndim))
        st = tensor_type((), src.dtype)
        pad_txt = "[" + ", ".join(f"[{a}, {b}]" for a, b in pad) + "]"
        return [ctx.op(
            f'"stablehlo.reduce_window"({x}, {init}) <{{base_dilations = array<i64: {ones}>, '
            f"padding = dense<{pad_txt}> : tensor<{src.ndim}x2xi64>, "
            f"window_dilations = array<i64: {ones}>, window_dimensions = array<i64: {', '.join(map(str, win))}>, "
            f"window_strides = array<i64: {ones}>}}> ({{",
            region=[
                f"^bb0(%w0: {st}, %w1: {st}):",
                f"  %w2 = {_COMBINER[self.kind]} %w0, %w1 : {st}",
                f"  stablehlo.return %w2 : {st}",
                f"}}) : ({ttype(src)}, {st}) -> {ttype(src)}",
            ])]


CUMULATIVE = {k: Cumulative(k) for k in ("sum", "prod", "max", "min")}
