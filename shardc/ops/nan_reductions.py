"""NaN-ignoring reductions (`nansum`, `nanmean`, `nanmax`, …), `ptp`, `average`, and the
vector/matrix products of `jax.numpy` beyond `dot`/`matmul` (`vdot`, `vecdot`, `matvec`,
`vecmat`, `inner`, `kron`, `cross`), each as `jax.numpy` computes it."""
from __future__ import annotations

import math
import operator

import numpy as np

from .. import dtypes as dt
from .. import lax
from ..core import Const, api
from ..errors import ShardcNotImplementedError, ShardcValueError
from ._util import normalize_axes, normalize_axis, promote, type_of
from .creation import broadcast_to, zeros_like
from .elementwise import _broadcast_to, astype, multiply, subtract, true_divide, where
from .elementwise import where as _where  # `where` is also a parameter name of the nan reductions
from .linalg import _dg, dot, tensordot
from .math import _inexact, broadcast_arrays, isnan
from .reductions import _check_where, _ensure_arraylike, argmax, argmin, mean, prod
from .reductions import all as _all
from .reductions import max as _max
from .reductions import min as _min
from .reductions import sum as _sum
from .shape import _arr, expand_dims, moveaxis, ravel, reshape, stack

__all__ = [
    "average", "cross", "inner", "kron", "matvec", "nanargmax", "nanargmin", "nanmax", "nanmean", "nanmin",
    "nanprod", "nanstd", "nansum", "nanvar", "ptp", "vdot", "vecdot", "vecmat",
]


def _no(name: str, **kw) -> None:
    for k, v in kw.items():
        if v is not None:
            raise ShardcNotImplementedError(f"The '{k}' argument to jnp.{name} is not supported.")


def _init_val(a, v):
    """`_reduction_init_val`: `v` in `a`'s dtype (a strong constant)."""
    d = type_of(a).dtype
    if d == dt.bool_:
        return Const(np.asarray(v > 0, d), d, False)
    return Const(np.asarray(v, d), d, False)


def _nan_reduction(a, name: str, red, init, nan_if_all_nan: bool, axis=None, keepdims=False, where=None, **kw):
    """JAX's `_nan_reduction`: NaNs become the identity `init`; `where=` and `initial=` go to the
    reduction (an all-NaN slice is NaN only for max/min without `initial`)."""
    a = _ensure_arraylike(name, a)
    where = _check_where(name, where)
    if not dt.is_inexact(type_of(a).dtype):
        return red(a, axis=axis, keepdims=keepdims, where=where, **kw)
    out = red(_where(isnan(a), _init_val(a, init), a), axis=axis, keepdims=keepdims, where=where, **kw)
    if nan_if_all_nan:
        return _where(_all(isnan(a), axis=axis, keepdims=keepdims), _init_val(a, np.nan), out)
    return out


@api("sc.nansum")
def nansum(a, axis=None, dtype=None, out=None, keepdims: bool = False, initial=None, where=None):
    """Sum treating NaNs as zero."""
    if dtype is not None:
        dtype = dt.canonicalize(dtype)
    return _nan_reduction(a, "nansum", _sum, 0, False, axis, keepdims, where, dtype=dtype, out=out,
                          initial=initial)


@api("sc.nanprod")
def nanprod(a, axis=None, dtype=None, out=None, keepdims: bool = False, initial=None, where=None):
    """Product treating NaNs as one."""
    if dtype is not None:
        dtype = dt.canonicalize(dtype)
    return _nan_reduction(a, "nanprod", prod, 1, False, axis, keepdims, where, dtype=dtype, out=out,
                          initial=initial)


@api("sc.nanmax")
def nanmax(a, axis=None, out=None, keepdims: bool = False, initial=None, where=None):
    """Maximum ignoring NaNs (NaN where a slice is all NaN and there is no `initial`)."""
    return _nan_reduction(a, "nanmax", _max, -np.inf, initial is None, axis, keepdims, where, out=out,
                          initial=initial)


@api("sc.nanmin")
def nanmin(a, axis=None, out=None, keepdims: bool = False, initial=None, where=None):
    """Minimum ignoring NaNs (NaN where a slice is all NaN and there is no `initial`)."""
    return _nan_reduction(a, "nanmin", _min, np.inf, initial is None, axis, keepdims, where, out=out,
                          initial=initial)


@api("sc.nanmean")
def nanmean(a, axis=None, dtype=None, out=None, keepdims: bool = False, where=None):
    """Mean over the non-NaN (and `where=`) elements."""
    a = _ensure_arraylike("nanmean", a)
    where = _check_where("nanmean", where)
    _no("nanmean", out=out)
    d = type_of(a).dtype
    if d == dt.bool_ or dt.is_int(d):
        return mean(a, axis, dtype, out, keepdims, where=where)
    dtype = (d if dt.is_inexact(d) else dt.float32) if dtype is None else dt.canonicalize(dtype)
    nan_mask = lax.bitwise_not(isnan(a))
    normalizer = _sum(nan_mask, axis=axis, dtype=dtype, keepdims=keepdims, where=where)
    return lax.div(nansum(a, axis, dtype=dtype, keepdims=keepdims, where=where), normalizer)


def _var_types(d: np.dtype, dtype):
    """`_var_promote_types`: (computation dtype, result dtype)."""
    if dtype is None:
        out = d if dt.is_float(d) else dt.float32
    else:
        out = dt.canonicalize(dtype)
    comp = dt.float32 if out in (dt.bfloat16, dt.float16) else out
    return comp, out


@api("sc.nanvar")
def nanvar(a, axis=None, dtype=None, out=None, ddof: int = 0, keepdims: bool = False, where=None, mean=None):
    """Variance over the non-NaN (and `where=`) elements."""
    a = _ensure_arraylike("nanvar", a)
    where = _check_where("nanvar", where)
    _no("nanvar", out=out)
    comp, res = _var_types(type_of(a).dtype, dtype)
    a = astype(a, comp)
    a_mean = nanmean(a, axis, dtype=comp, keepdims=True, where=where) if mean is None else \
        astype(_ensure_arraylike("nanvar", mean), comp)
    centered = _where(isnan(a), 0, lax.sub(*lax.rank_promote(a, a_mean)))
    centered = lax.square(centered)
    normalizer = _sum(lax.bitwise_not(isnan(a)), axis=axis, keepdims=keepdims, where=where)
    normalizer = subtract(normalizer, ddof)
    mask = lax.le(normalizer, Const(np.asarray(0, type_of(normalizer).dtype), type_of(normalizer).dtype, False))
    result = _sum(centered, axis, keepdims=keepdims, where=where)
    result = _where(mask, np.nan, result)
    divisor = _where(mask, 1, normalizer)
    result = lax.div(result, lax.convert_element_type(divisor, type_of(result).dtype))
    return lax.convert_element_type(result, res)


@api("sc.nanstd")
def nanstd(a, axis=None, dtype=None, out=None, ddof: int = 0, keepdims: bool = False, where=None, mean=None):
    """Standard deviation over the non-NaN (and `where=`) elements."""
    _no("nanstd", out=out)
    return lax.sqrt(nanvar(a, axis, dtype, None, ddof, keepdims, where, mean))


def _nanarg(kind: str, a, axis, keepdims):
    a = _arr(a)
    fn = argmax if kind == "max" else argmin
    if not dt.is_float(type_of(a).dtype):
        return fn(a, axis=axis, keepdims=keepdims)
    nan_mask = isnan(a)
    a = where(nan_mask, -np.inf if kind == "max" else np.inf, a)
    res = fn(a, axis=axis, keepdims=keepdims)
    return where(_all(nan_mask, axis=axis, keepdims=keepdims), -1, res)


@api("sc.nanargmax")
def nanargmax(a, axis: int | None = None, out=None, keepdims: bool | None = None):
    _no("nanargmax", out=out)
    return _nanarg("max", a, None if axis is None else operator.index(axis), bool(keepdims))


@api("sc.nanargmin")
def nanargmin(a, axis: int | None = None, out=None, keepdims: bool | None = None):
    _no("nanargmin", out=out)
    return _nanarg("min", a, None if axis is None else operator.index(axis), bool(keepdims))


@api("sc.ptp")
def ptp(a, axis=None, out=None, keepdims: bool = False):
    """Peak to peak: max - min along `axis`."""
    _no("ptp", out=out)
    a = _arr(a)
    return lax.sub(_max(a, axis=axis, keepdims=keepdims), _min(a, axis=axis, keepdims=keepdims))


@api("sc.average")
def average(a, axis=None, weights=None, returned: bool = False, keepdims: bool = False):
    """Weighted mean (`weights` of `a`'s shape, or 1-D along one `axis`); `returned` adds the
    sum of weights."""
    a = _arr(a)
    nd = type_of(a).ndim
    axes = normalize_axes(axis, nd) if axis is not None else tuple(range(nd))
    if weights is None:
        a, = _inexact(a)
        avg = mean(a, axis=axis, keepdims=keepdims)
        n = math.prod(type_of(a).shape[d] for d in axes)
        wsum = lax.full((), n, type_of(avg).dtype)
    else:
        a, weights = _inexact(a, weights)
        ta, tw = type_of(a), type_of(weights)
        if ta.shape != tw.shape:
            if axis is None:
                raise ShardcValueError("Axis must be specified when shapes of a and weights differ.")
            if tw.shape != tuple(ta.shape[ax] for ax in axes):
                raise ShardcValueError("Shape of weights must be consistent with shape of a along specified axis.")
            new_shape = tuple(d if i in axes else 1 for i, d in enumerate(ta.shape))
            weights = lax.reshape(weights, new_shape, dimensions=tuple(int(i) for i in np.argsort(axes)))
        wsum = _sum(weights, axis=axis, keepdims=keepdims)
        avg = true_divide(_sum(multiply(a, weights), axis=axis, keepdims=keepdims), wsum)
    if returned:
        if type_of(avg).shape != type_of(wsum).shape:
            wsum = _broadcast_to(wsum, type_of(avg).shape, None)
        return avg, wsum
    return avg


# --- products ------------------------------------------------------------------------------
@api("sc.vdot")
def vdot(a, b, *, precision=None, preferred_element_type=None):
    """The dot product of the flattened operands."""
    return dot(ravel(_arr(a)), ravel(_arr(b)), preferred_element_type=preferred_element_type)


def _batched_contract(x1, x2, lhs_core: int, rhs_core: int, lc: tuple, rc: tuple, name: str, **kw):
    """`vectorize(f, signature)` of a contraction: broadcast the loop (batch) dims of both
    operands to one shape, then one `dot_general` with them as batch dims (what vmap of the
    core `dot` gives)."""
    x1, x2 = promote(_arr(x1), _arr(x2))
    t1, t2 = type_of(x1), type_of(x2)
    b1, b2 = t1.shape[:t1.ndim - lhs_core], t2.shape[:t2.ndim - rhs_core]
    try:
        bshape = tuple(int(s) for s in np.broadcast_shapes(b1, b2))
    except ValueError:
        raise ShardcValueError(f"Incompatible shapes for broadcasting: shapes={[b1, b2]}") from None
    nb = len(bshape)
    x1 = _expand_batch(x1, t1, lhs_core, bshape)
    x2 = _expand_batch(x2, t2, rhs_core, bshape)
    batch = tuple(range(nb))
    return _dg(x1, x2, (tuple(nb + c for c in lc), tuple(nb + c for c in rc)), (batch, batch), **kw)


def _expand_batch(x, t, core: int, bshape):
    nb = len(bshape)
    k = nb - (t.ndim - core)
    if k > 0:
        x = expand_dims(x, tuple(range(k)))
    t = type_of(x)
    want = bshape + t.shape[nb:]
    if t.shape != want:
        x = broadcast_to(x, want)
    return x


@api("sc.vecdot")
def vecdot(x1, x2, /, *, axis: int = -1, precision=None, preferred_element_type=None):
    """Dot products of vectors along `axis`, broadcasting over the other dims."""
    x1, x2 = _arr(x1), _arr(x2)
    t1, t2 = type_of(x1), type_of(x2)
    if t1.shape[axis] != t2.shape[axis]:
        raise ShardcValueError(f"axes must match; got shapes {t1.shape} and {t2.shape} with axis={axis!r}")
    x1, x2 = moveaxis(x1, axis, -1), moveaxis(x2, axis, -1)
    return _batched_contract(x1, x2, 1, 1, (0,), (0,), "vecdot", preferred_element_type=preferred_element_type)


@api("sc.matvec")
def matvec(x1, x2, /):
    """Matrix-vector products over broadcast batch dims (`(n,m),(m)->(n)`)."""
    return _batched_contract(x1, x2, 2, 1, (1,), (0,), "matvec")


@api("sc.vecmat")
def vecmat(x1, x2, /):
    """Vector-matrix products over broadcast batch dims (`(n),(n,m)->(m)`)."""
    return _batched_contract(x1, x2, 1, 2, (0,), (0,), "vecmat")


@api("sc.inner")
def inner(a, b, *, precision=None, preferred_element_type=None):
    """Sum product over the last dims."""
    a, b = _arr(a), _arr(b)
    if type_of(a).ndim == 0 or type_of(b).ndim == 0:
        if preferred_element_type is not None:
            a, b = astype(a, preferred_element_type), astype(b, preferred_element_type)
        return multiply(a, b)
    return tensordot(a, b, (-1, -1))


@api("sc.kron")
def kron(a, b):
    """The Kronecker product: interleaved size-1 dims, a product, a reshape."""
    a, b = promote(_arr(a), _arr(b))
    a, b = _arr(a), _arr(b)
    na, nb = type_of(a).ndim, type_of(b).ndim
    if na < nb:
        a = expand_dims(a, tuple(range(nb - na)))
    elif nb < na:
        b = expand_dims(b, tuple(range(na - nb)))
    n = type_of(a).ndim
    ar = expand_dims(a, tuple(range(1, 2 * n, 2)))
    br = expand_dims(b, tuple(range(0, 2 * n, 2)))
    out_shape = tuple(int(s) for s in np.multiply(type_of(a).shape, type_of(b).shape))
    return reshape(lax.mul(ar, br), out_shape)


@api("sc.cross")
def cross(a, b, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis: int | None = None):
    """Cross products of 2- or 3-vectors along the given axes."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = moveaxis(_arr(a), axisa, -1), moveaxis(_arr(b), axisb, -1)
    na, nb = type_of(a).shape[-1], type_of(b).shape[-1]
    if na not in (2, 3) or nb not in (2, 3):
        raise ShardcValueError("Dimension must be either 2 or 3 for cross product")
    if na == 2 and nb == 2:
        return subtract(multiply(a[..., 0], b[..., 1]), multiply(a[..., 1], b[..., 0]))
    a0, a1 = a[..., 0], a[..., 1]
    a2 = a[..., 2] if na == 3 else zeros_like(a0)
    b0, b1 = b[..., 0], b[..., 1]
    b2 = b[..., 2] if nb == 3 else zeros_like(b0)
    parts = [subtract(multiply(a1, b2), multiply(a2, b1)), subtract(multiply(a2, b0), multiply(a0, b2)),
             subtract(multiply(a0, b1), multiply(a1, b0))]
    parts = broadcast_arrays(*parts)
    c = stack(parts)
    return moveaxis(c, 0, normalize_axis(axisc, type_of(c).ndim))


