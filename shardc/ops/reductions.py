"""Reductions and cumulative ops with `jnp` dtype rules (small ints and bools
sum in int32; bf16/f16 accumulate in f32; `mean` of ints is float)."""
from __future__ import annotations

import builtins

import numpy as np

from .. import dtypes as dt
from ..core import Const, api, bind, raise_user_error
from ..errors import ShardcValueError, ShardingTypeError
from ..primitives import complex as cx
from ..primitives import reductions as rd
from ._util import convert, normalize_axes, normalize_axis, to_spec, type_of
from .elementwise import _binary, astype, sqrt, square, subtract, where
from .shape import _arr, expand_dims, reshape


def _keepdims(x, axes, keepdims: bool):
    return expand_dims(x, tuple(sorted(axes))) if keepdims and axes else x


def _sum_dtype(d: np.dtype) -> np.dtype:
    if d == dt.bool_ or (dt.is_signed(d) and d.itemsize < 4):
        return dt.int32
    if dt.is_int(d) and not dt.is_signed(d) and d.itemsize < 4:
        return dt.uint32
    return d


def _reduce(kind: str, x, axis, keepdims: bool, dtype=None, out_sharding=None):
    x = _arr(x)
    t = type_of(x)
    axes = normalize_axes(axis, t.ndim)
    out_dtype = dt.canonicalize(dtype) if dtype is not None else (
        _sum_dtype(t.dtype) if kind in ("sum", "prod") else t.dtype)
    acc = dt.float32 if out_dtype in (dt.bfloat16, dt.float16) else out_dtype
    if kind in ("max", "min") and t.dtype == dt.bool_:
        kind = "or" if kind == "max" else "and"
    if acc != t.dtype or t.weak_type:   # as JAX's `_reduction`, a weak operand gives a strong result
        x = convert(x, acc)
    r = bind(rd.REDUCE[kind], x, axes=axes, out_sharding=to_spec(out_sharding)) if axes else x
    if acc != out_dtype:
        r = convert(r, out_dtype)
    return _keepdims(r, axes, keepdims)


@api("sc.sum")
def sum(x, axis=None, dtype=None, keepdims: bool = False, *, out_sharding=None):
    """Sum over `axis`. Over a sharded dim the result is replicated (an
    all-reduce) unless `out_sharding=P(..., unreduced={...})` keeps partial sums."""
    return _reduce("sum", x, axis, keepdims, dtype, out_sharding)


@api("sc.prod")
def prod(x, axis=None, dtype=None, keepdims: bool = False):
    return _reduce("prod", x, axis, keepdims, dtype)


@api("sc.max")
def max(x, axis=None, keepdims: bool = False):
    return _reduce("max", x, axis, keepdims)


@api("sc.min")
def min(x, axis=None, keepdims: bool = False):
    return _reduce("min", x, axis, keepdims)


amax, amin = max, min


@api("sc.any")
def any(x, axis=None, keepdims: bool = False):
    return _reduce("or", astype(x, dt.bool_), axis, keepdims)


@api("sc.all")
def all(x, axis=None, keepdims: bool = False):
    return _reduce("and", astype(x, dt.bool_), axis, keepdims)


@api("sc.mean")
def mean(x, axis=None, dtype=None, keepdims: bool = False):
    """Mean over `axis`, computed in float32 for ints and half precision."""
    x = _arr(x)
    t = type_of(x)
    axes = normalize_axes(axis, t.ndim)
    n = int(np.prod([t.shape[a] for a in axes])) if axes else 1
    out_dtype = dt.canonicalize(dtype) if dtype is not None else (
        t.dtype if dt.is_inexact(t.dtype) else dt.float32)
    acc = dt.float32 if out_dtype in (dt.bfloat16, dt.float16) else out_dtype
    s = _reduce("sum", convert(x, acc) if t.dtype != acc else x, axes, keepdims)
    r = _binary("div", s, Const(n, acc, False))
    return convert(r, out_dtype) if acc != out_dtype else r


@api("sc.var")
def var(x, axis=None, dtype=None, ddof: int = 0, keepdims: bool = False):
    x = _arr(x)
    t = type_of(x)
    axes = normalize_axes(axis, t.ndim)
    m = mean(x, axes, dtype, keepdims=True)
    xc = convert(x, type_of(m).dtype) if type_of(m).dtype != t.dtype else x
    c = subtract(xc, m)
    n = int(np.prod([t.shape[a] for a in axes])) if axes else 1
    if dt.is_complex(type_of(c).dtype):
        # JAX: |c|^2 as real(c * conj(c)); the result is real unless `dtype` says otherwise
        sq = bind(cx.real, _binary("mul", c, bind(cx.conj, c, input_dtype=type_of(c).dtype)))
        s = sum(sq, axes, keepdims=keepdims)
        r = _binary("div", s, Const(n - ddof, type_of(s).dtype, False))
        r = where(n - ddof > 0, r, np.nan)
        return astype(r, dt.canonicalize(dtype)) if dtype is not None else r
    s = sum(square(c), axes, keepdims=keepdims)
    r = _binary("div", s, Const(n - ddof, type_of(s).dtype, False))
    return where(n - ddof > 0, r, np.nan)  # as `jnp.var` (NaN for a non-positive normalizer)


@api("sc.std")
def std(x, axis=None, dtype=None, ddof: int = 0, keepdims: bool = False):
    return sqrt(var(x, axis, dtype, ddof, keepdims))


def _arg(kind: str, x, axis, keepdims: bool):
    x = _arr(x)
    t = type_of(x)
    if axis is None:
        x = reshape(x, (-1,))
        r = bind(rd.ARG_REDUCE[kind], x, axis=0, index_dtype=dt.int32)
        return reshape(r, (1,) * t.ndim) if keepdims else r
    ax = normalize_axis(axis, t.ndim)
    r = bind(rd.ARG_REDUCE[kind], x, axis=ax, index_dtype=dt.int32)
    return _keepdims(r, (ax,), keepdims)


@api("sc.argmax")
def argmax(x, axis=None, keepdims: bool = False):
    return _arg("max", x, axis, keepdims)


@api("sc.argmin")
def argmin(x, axis=None, keepdims: bool = False):
    return _arg("min", x, axis, keepdims)


def _cumulative(kind: str, name: str, x, axis, dtype=None):
    x = _arr(x)
    t = type_of(x)
    if axis is None or t.ndim == 0:
        if t.mesh.has_explicit and builtins.any(e is not None for e in t.spec):
            raise_user_error(ShardingTypeError(
                f"The input should be fully replicated when axis is not specified to {name}. "
                f"Got input type={t}"), [t])
        x = reshape(x, (-1,))
        axis = 0 if axis is None else axis
        t = type_of(x)
    ax = normalize_axis(axis, t.ndim)
    d = dt.canonicalize(dtype) if dtype is not None else (_sum_dtype(t.dtype) if kind in ("sum", "prod") else t.dtype)
    if d != t.dtype or t.weak_type:   # a weak operand gives a strong result (as JAX)
        x = convert(x, d)
    return bind(rd.CUMULATIVE[kind], x, axis=ax, reverse=False)


@api("sc.cumsum")
def cumsum(x, axis=None, dtype=None):
    """Inclusive prefix sum along `axis` (which must be unsharded)."""
    return _cumulative("sum", "cumsum", x, axis, dtype)


@api("sc.cumprod")
def cumprod(x, axis=None, dtype=None):
    return _cumulative("prod", "cumprod", x, axis, dtype)


def _lax_cumulative(kind: str, x, axis: int, reverse: bool):
    x = _arr(x)
    if axis < 0:
        raise_user_error(ShardcValueError("XLA operations do not allow negative axes"), [type_of(x)])
    return bind(rd.CUMULATIVE[kind], x, axis=int(axis), reverse=bool(reverse))


@api("sc.cummax")
def cummax(x, axis: int = 0, reverse: bool = False):
    """Running maximum along `axis` (as `lax.cummax`: `jnp` has none)."""
    return _lax_cumulative("max", x, axis, reverse)


@api("sc.cummin")
def cummin(x, axis: int = 0, reverse: bool = False):
    """Running minimum along `axis` (as `lax.cummin`)."""
    return _lax_cumulative("min", x, axis, reverse)
