"""`jax.lax`'s windowed and generic reductions: `reduce_window` (pooling), `reduce`,
`reduce_xor`, `reduce_precision`, `associative_scan`, `approx_max_k` / `approx_min_k`,
`reduce_window_shape_tuple`, with JAX 0.10.2's argument handling and errors.

As JAX: `reduce_window` / `reduce` with a single concrete scalar init value that is the
identity of `lax.add` / `lax.max` / `lax.min` (and, for `reduce`, `lax.mul` and the
bitwise monoids) bind the monoid primitives (`reduce_window_max`, `reduce_sum`, …);
any other reducer is traced into a body program (it may not close over traced values)
and binds the generic `reduce_window` / `reduce`.
"""
from __future__ import annotations

import operator
from typing import Any, Callable, Sequence

import jax.lax as _jax_lax
import jax.tree_util as tu
import numpy as np

from .. import dtypes as dt
from .. import lax
from ..core import Tracer, bind, current_trace, stage_eagerly
from ..errors import ShardcNotImplementedError, ShardcRuntimeError, ShardcTypeError, ShardcValueError
from ..primitives import reduce_generic as rg
from ..primitives import reductions as rd
from ..primitives import windowed as wp
from ..primitives.elementwise import convert_element_type
from ..primitives.prefix_scan import prefix_scan
from ..primitives.windowed import reduce_window_shape_tuple
from ._util import as_operand, is_array, normalize_axis, type_of
from .control_flow import _trace_fn
from .creation import asarray

__all__ = ["reduce_window", "reduce", "reduce_xor", "reduce_precision", "associative_scan", "approx_max_k",
           "approx_min_k", "reduce_window_shape_tuple"]


def _is_leaf(x) -> bool:
    return isinstance(x, Tracer) or getattr(x, "_shardc_type", None) is not None


def _flatten(tree):
    return tu.tree_flatten(tree, is_leaf=_is_leaf)


def _is(fn, name: str) -> bool:
    """`fn` is `lax.<name>` (shardc's or JAX's: JAX compares by identity too)."""
    return fn is getattr(lax, name, None) or fn is getattr(_jax_lax, name, None)


def _concrete_scalar(x):
    """The value of a concrete scalar init value, or None (a traced one)."""
    if isinstance(x, Tracer):
        return None
    if getattr(x, "_shardc_type", None) is not None:
        return np.asarray(x) if type_of(x).ndim == 0 else None
    a = np.asarray(x)
    return a if a.ndim == 0 else None


def _init_array(x):
    x = as_operand(x)
    return x if is_array(x) else asarray(x)


def _trace_reducer(computation: Callable, inits: list, tree, what: str):
    """The reducer traced on (accumulators, elements) of the init values' types."""
    types = [type_of(i).update(shape=(), spec=()) for i in inits]
    n = len(types)

    def make_args(ts):
        return (tu.tree_unflatten(tree, ts[:n]), tu.tree_unflatten(tree, ts[n:]))

    body = _trace_fn(lambda a, b: computation(a, b), types + types, make_args, what)
    if body.closure:
        raise ShardcNotImplementedError("Reduction computations can't close over Tracers. Please open an issue at "
                                        "https://github.com/jax-ml/jax.")
    return body


# --- reduce_window -------------------------------------------------------------------------------
def _padtype_to_pads(in_shape, window_shape, window_strides, padding: str) -> list[tuple[int, int]]:
    """JAX's `lax.padtype_to_pads` for a padding string."""
    kind = padding.upper()
    if kind not in ("VALID", "SAME", "SAME_LOWER"):
        raise ShardcRuntimeError(
            f"Unrecognized padding type: expected 'VALID', 'SAME', or 'SAME_LOWER', got {padding}.")
    if kind == "VALID":
        return [(0, 0)] * len(in_shape)
    if len(window_strides) == 1 and len(in_shape) != 1:   # NumPy broadcasting in JAX's arithmetic
        window_strides = tuple(window_strides) * len(in_shape)
    if len(window_strides) != len(in_shape):   # JAX's NumPy arithmetic on the lists fails (strides=None)
        raise ShardcValueError(f"operands could not be broadcast together with shapes ({len(in_shape)},) "
                               f"({len(window_strides)},) ")
    pads = []
    for n, w, s in zip(in_shape, window_shape, window_strides):
        out = -(-n // s)
        p = max((out - 1) * s + w - n, 0)
        pads.append((p // 2, p - p // 2) if kind == "SAME" else (p - p // 2, p // 2))
    return pads


def reduce_window(operand: Any, init_value: Any, computation: Callable, window_dimensions: Sequence[int],
                  window_strides: Sequence[int] | None = None, padding: str | Sequence[tuple[int, int]] = "VALID",
                  base_dilation: Sequence[int] | None = None, window_dilation: Sequence[int] | None = None) -> Any:
    """`lax.reduce_window`: `computation` folded over each (padded, dilated) window."""
    flat_ops, op_tree = _flatten(operand)
    flat_inits, init_tree = _flatten(init_value)
    if op_tree != init_tree:
        raise ShardcValueError(f"Operands must have the same tree structure as init_values: {op_tree} vs. {init_tree}")
    if len(flat_ops) != len(flat_inits):
        raise ShardcValueError("Must have same total number of operands as init_values:  "
                               f"{len(flat_ops)} vs. {len(flat_inits)}")
    if not flat_ops:
        raise ShardcValueError("reduce_window must have at least one operand.")
    flat_ops = [_init_array(x) for x in flat_ops]
    if isinstance(padding, str):
        wd = tuple(window_dimensions)
        if window_dilation is not None:
            wd = wp._dilate(wd, window_dilation)
        padding = tuple(_padtype_to_pads(type_of(flat_ops[0]).shape, wd, window_strides or [], padding))
    else:
        padding = tuple((int(lo), int(hi)) for lo, hi in padding)
    nd = len(window_dimensions)
    p = dict(window_dimensions=tuple(window_dimensions),
             window_strides=tuple(window_strides) if window_strides is not None else (1,) * nd,
             padding=padding,
             base_dilation=tuple(base_dilation) if base_dilation is not None else (1,) * nd,
             window_dilation=tuple(window_dilation) if window_dilation is not None else (1,) * nd)
    monoid = _window_monoid(computation, flat_inits)
    if monoid is not None:
        return bind(monoid, flat_ops[0], **p)
    if current_trace() is None:
        return stage_eagerly(lambda *xs: reduce_window(tu.tree_unflatten(op_tree, list(xs)), init_value, computation,
                                                       window_dimensions, window_strides, padding, base_dilation,
                                                       window_dilation), flat_ops, "reduce_window")
    inits = [_init_array(i) for i in flat_inits]
    body = _trace_reducer(computation, inits, init_tree, "reduce_window comp")
    if body.tree != op_tree:
        raise ShardcValueError("reduce_window output must have the same tree structure as the operands "
                               f"{op_tree} vs. {body.tree}")
    outs = bind(wp.reduce_window, *flat_ops, *inits, jaxpr=body.prog, **p)
    return tu.tree_unflatten(op_tree, list(outs))


def _window_monoid(computation, flat_inits):
    """JAX's `_get_monoid_window_reducer`."""
    if len(flat_inits) != 1:
        return None
    v = _concrete_scalar(flat_inits[0])
    if v is None:
        return None
    d = v.dtype if not isinstance(flat_inits[0], (bool, int, float)) else dt.scalar_dtype(flat_inits[0])[0]
    if _is(computation, "add"):
        return wp.reduce_window_sum if v == 0 else None
    if _is(computation, "max"):
        return wp.reduce_window_max if v == rd.identity_value("max", d) else None
    if _is(computation, "min"):
        return wp.reduce_window_min if v == rd.identity_value("min", d) else None
    return None


# --- reduce --------------------------------------------------------------------------------------
_MONOIDS = {"add": "reduce_sum", "mul": "reduce_prod", "max": "reduce_max", "min": "reduce_min",
            "bitwise_or": "reduce_or", "bitwise_and": "reduce_and", "bitwise_xor": "reduce_xor"}


def _reduce_monoid(computation, flat_inits):
    """JAX's `_get_monoid_reducer`: the wrapper name, or None."""
    if len(flat_inits) != 1:
        return None
    v = _concrete_scalar(flat_inits[0])
    if v is None:
        return None
    x = flat_inits[0]
    d = dt.scalar_dtype(x)[0] if isinstance(x, (bool, int, float)) else np.dtype(v.dtype)
    intlike = d == dt.bool_ or dt.is_int(d)
    for fn, name in _MONOIDS.items():
        if not _is(computation, fn):
            continue
        if fn.startswith("bitwise") and not intlike:
            return None
        ident = {"add": 0, "mul": 1, "bitwise_or": 0, "bitwise_xor": 0,
                 "bitwise_and": np.array(-1).astype(d)}.get(fn)
        if fn in ("max", "min"):
            ident = rd.identity_value(fn, d)
        return name if np.equal(v, ident) else None
    return None


def reduce(operands: Any, init_values: Any, computation: Callable, dimensions: Sequence[int],
           out_sharding=None) -> Any:
    """`lax.reduce`: `computation` folded over `dimensions` of every operand at once."""
    flat_ops, op_tree = _flatten(operands)
    flat_inits, init_tree = _flatten(init_values)
    if op_tree != init_tree:
        raise ShardcValueError("Operands must have the same tree structure as init_values: "
                               f"{op_tree} vs. {init_tree}")
    if len(flat_ops) != len(flat_inits):
        raise ShardcValueError("Must have same total number of operands as init_values:  "
                               f"{len(flat_ops)} vs. {len(flat_inits)}")
    dims = tuple(int(d) for d in dimensions)
    monoid = _reduce_monoid(computation, flat_inits)
    if monoid is not None:
        x = _init_array(flat_ops[0])
        init_weak = isinstance(flat_inits[0], (bool, int, float)) or (
            is_array(flat_inits[0]) and type_of(flat_inits[0]).weak_type)
        weak = type_of(x).weak_type and init_weak
        if out_sharding is not None and monoid != "reduce_sum":
            raise ShardcNotImplementedError("")
        if monoid == "reduce_xor":
            out = reduce_xor(x, dims)
        elif monoid == "reduce_sum":
            out = lax.reduce_sum(x, dims, out_sharding=out_sharding) if dims else x
        else:
            out = getattr(lax, monoid)(x, dims)
        t = type_of(out)
        if t.weak_type != weak:   # as JAX: monoid reducers bypass the weak-type rule
            out = bind(convert_element_type, out, new_dtype=t.dtype, weak_type=weak)
        return out
    flat_ops = [_init_array(x) for x in flat_ops]
    if current_trace() is None:
        return stage_eagerly(lambda *xs: reduce(tu.tree_unflatten(op_tree, list(xs)), init_values, computation,
                                                dimensions), flat_ops, "reduce")
    inits = [_init_array(i) for i in flat_inits]
    body = _trace_reducer(computation, inits, init_tree, "reduce comp")
    outs = bind(rg.reduce, *flat_ops, *inits, jaxpr=body.prog, dimensions=dims)
    return tu.tree_unflatten(body.tree, list(outs))


def reduce_xor(operand, axes: Sequence[int]):
    """`lax.reduce_xor`: bitwise xor over `axes`."""
    x = _init_array(operand)
    t = type_of(x)
    axes = tuple(int(a) for a in axes)
    if any(not 0 <= a < t.ndim for a in axes) or len(set(axes)) != len(axes):
        raise ShardcValueError(f"reduction axes {axes} contains out-of-bounds indices for {t}.")
    return bind(rg.reduce_xor, x, axes=tuple(sorted(axes)), out_sharding=None)


def reduce_precision(operand, exponent_bits: int, mantissa_bits: int):
    """`lax.reduce_precision`: round to a float format with these exponent / mantissa widths."""
    try:
        e, m = operator.index(exponent_bits), operator.index(mantissa_bits)
    except TypeError:
        raise ShardcTypeError("exponent_bits and mantissa_bits arguments of lax.reduce_precision must be "
                              "concrete integers") from None
    return bind(rg.reduce_precision, _init_array(operand), exponent_bits=e, mantissa_bits=m)


# --- associative_scan ----------------------------------------------------------------------------
def associative_scan(fn: Callable, elems, reverse: bool = False, axis: int = 0):
    """`lax.associative_scan`: the inclusive scan of `elems` (a pytree) under the
    associative `fn`, by JAX's parallel prefix algorithm."""
    flat, tree = _flatten(elems)
    flat = [_init_array(x) for x in flat]
    if current_trace() is None:
        return stage_eagerly(lambda *xs: associative_scan(fn, tu.tree_unflatten(tree, list(xs)), reverse, axis),
                             flat, "associative_scan")
    if reverse and axis < 0:   # JAX reverses before it canonicalizes the axis: `lax.rev`'s error
        raise ShardcTypeError(f"rev dimensions must have every element be nonnegative, got ({axis},).")
    ax = normalize_axis(axis, type_of(flat[0]).ndim)
    n = type_of(flat[0]).shape[ax]
    if any(type_of(e).shape[ax] != n for e in flat[1:]):
        raise ShardcValueError("Array inputs to associative_scan must have the same first dimension. (saw: "
                               f"{[type_of(e).shape for e in flat]})")

    def combine(a, b):
        c = fn(tu.tree_unflatten(tree, a), tu.tree_unflatten(tree, b))
        return [_init_array(x) for x in _flatten(c)[0]]

    return tu.tree_unflatten(tree, prefix_scan(combine, flat, ax, reverse))


# --- approx_max_k / approx_min_k -----------------------------------------------------------------
def _approx(x, k: int, reduction_dimension: int, recall_target: float, is_max_k: bool,
            reduction_input_size_override: int, aggregate_to_topk: bool):
    return tuple(bind(rg.approx_top_k, _init_array(x), k=k, reduction_dimension=reduction_dimension,
                      recall_target=recall_target, is_max_k=is_max_k,
                      reduction_input_size_override=reduction_input_size_override,
                      aggregate_to_topk=aggregate_to_topk))


def approx_max_k(operand, k: int, reduction_dimension: int = -1, recall_target: float = 0.95,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True):
    """`lax.approx_max_k`: the `k` largest values and their indices (exact on CPU, as XLA's fallback)."""
    return _approx(operand, k, reduction_dimension, recall_target, True, reduction_input_size_override,
                   aggregate_to_topk)


def approx_min_k(operand, k: int, reduction_dimension: int = -1, recall_target: float = 0.95,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True):
    """`lax.approx_min_k`: the `k` smallest values and their indices."""
    return _approx(operand, k, reduction_dimension, recall_target, False, reduction_input_size_override,
                   aggregate_to_topk)
