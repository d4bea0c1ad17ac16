"""Sorting and the data-dependent functions of `jax.numpy` built on it
(`sort`, `argsort`, `lexsort`, `partition`, `searchsorted`, `unique`,
`nonzero`, quantiles, set operations, `bincount`), written as `jax.numpy`
writes them so that types, values and errors agree; and `lax.sort`,
`lax.sort_key_val`, `lax.top_k`.

Inside a program, a result whose size depends on the data needs JAX's
`size=` (and `fill_value=`); without it, shardc raises JAX's
ConcretizationTypeError (a TypeError) at the user's line. Outside programs
the arrays are concrete and the size is read from them, as in JAX.
"""
from __future__ import annotations

import operator
from typing import Any, NamedTuple, Sequence

import numpy as np

from .. import dtypes as dt
from ..core import Tracer, api, bind, raise_user_error
from ..errors import (
    ConcretizationTypeError,
    ShardcNotImplementedError,
    ShardcTypeError,
    ShardcValueError,
    ShardingTypeError,
    TracerBoolConversionError,
)
from ..mesh import get_abstract_mesh
from ..primitives import gather as gp
from ..primitives import shape as sp
from ..primitives import sort as so
from ..sharding import NamedSharding, PartitionSpec
from ..types import ArrayType
from . import elementwise as E
from . import reductions as R
from ._util import as_operand, is_array, normalize_axis, promote, to_spec, type_of
from .construct import linspace
from .creation import arange, asarray, broadcast_to, full
from .elementwise import add, negative, subtract
from .indexing import gather_get, scatter_update, take_along_axis
from .shape import concatenate, expand_dims, moveaxis, ravel, reshape, stack, swapaxes, transpose
from .sharding import auto_axes

#: the `jax.numpy` names defined here (`lax_sort`, `sort_key_val`, `top_k` are `shardc.lax`'s)
__all__ = ["sort", "argsort", "lexsort", "partition", "argpartition", "searchsorted", "unique", "unique_all",
           "unique_counts", "unique_inverse", "unique_values", "nonzero", "flatnonzero", "argwhere", "where",
           "count_nonzero", "bincount", "isin", "union1d", "intersect1d", "setdiff1d", "setxor1d", "quantile",
           "nanquantile", "percentile", "nanpercentile", "median", "nanmedian", "histogram", "histogram_bin_edges",
           "digitize", "compress", "extract", "put", "put_along_axis", "place"]


def _arr(x, name: str):
    x = as_operand(x)
    if not is_array(x):
        if isinstance(x, (str, bytes)) or x is None:
            raise ShardcTypeError(f"{name} requires ndarray or scalar arguments, got {type(x)} at position 0.")
        x = asarray(x)
    return x


def _spec(t: ArrayType) -> PartitionSpec | None:
    return None if t.mesh.empty else PartitionSpec(*t.spec)


def _rev(x, dims: Sequence[int]):
    return bind(sp.rev, x, dimensions=tuple(dims))


def _iota(dtype, shape, dimension: int, like: ArrayType):
    return bind(sp.iota, dtype=np.dtype(dtype), shape=tuple(shape), dimension=dimension,
                out_sharding=_spec(like) if tuple(shape) == like.shape else None,
                mesh=like.mesh)


def _index_dtype(n: int) -> np.dtype:
    return dt.int32 if n <= np.iinfo(np.int32).max else np.dtype(np.int64)


# --- lax ---------------------------------------------------------------------------------------------
@api("lax.sort")
def lax_sort(operand, dimension: int = -1, is_stable: bool = True, num_keys: int = 1):
    """`lax.sort`: one array, or a sequence sorted together by its first `num_keys`."""
    if isinstance(operand, (list, tuple)):
        if not operand:
            raise_user_error(ShardcTypeError("Sort requires at least one operand"))
        if not 1 <= num_keys <= len(operand):
            raise_user_error(ShardcValueError(
                f"num_keys={num_keys} must be between 1 and len(operand)={len(operand)}"))
        ops = [_arr(o, "sort") for o in operand]
        dim = normalize_axis(dimension, type_of(ops[0]).ndim)
        return tuple(bind(so.sort, *ops, dimension=dim, is_stable=bool(is_stable), num_keys=num_keys))
    if num_keys != 1:
        raise_user_error(ShardcValueError(f"num_keys={num_keys} must equal 1 for a single operand."))
    x = _arr(operand, "sort")
    dim = normalize_axis(dimension, type_of(x).ndim)
    return bind(so.sort, x, dimension=dim, is_stable=bool(is_stable), num_keys=1)[0]


@api("lax.sort_key_val")
def sort_key_val(keys, values, dimension: int = -1, is_stable: bool = True):
    """`lax.sort_key_val`: `values` permuted as `keys` sort."""
    k, v = _arr(keys, "sort_key_val"), _arr(values, "sort_key_val")
    dim = normalize_axis(dimension, type_of(k).ndim)
    out = bind(so.sort, k, v, dimension=dim, is_stable=bool(is_stable), num_keys=1)
    return out[0], out[1]


@api("lax.top_k")
def top_k(operand, k: int, *, axis: int = -1):
    """`lax.top_k`: the `k` largest entries along `axis` and their int32 indices."""
    x = _arr(operand, "top_k")
    k = int(k)
    if k < 0:
        raise_user_error(ShardcValueError(f"k argument to top_k must be nonnegative, got {k}"))
    ax = normalize_axis(axis, type_of(x).ndim)
    return list(bind(so.top_k, x, k=k, axis=ax))  # a list, as JAX's


# --- jnp ---------------------------------------------------------------------------------------------
def _no_kind_order(name: str, kind, order) -> None:
    if kind is not None:
        raise_user_error(ShardcTypeError(f"'kind' argument to {name} is not supported. Use stable=True or "
                                         "stable=False to specify sort stability."))
    if order is not None:
        raise_user_error(ShardcTypeError(f"'order' argument to {name} is not supported."))


@api("sc.sort")
def sort(a, axis: int | None = -1, *, kind=None, order=None, stable: bool = True, descending: bool = False):
    """`jnp.sort`: along `axis` (the flattened array when None); NaNs last."""
    _no_kind_order("sort", kind, order)
    x = _arr(a, "sort")
    if axis is None:
        x, axis = ravel(x), 0
    dim = normalize_axis(axis, type_of(x).ndim)
    r = bind(so.sort, x, dimension=dim, is_stable=bool(stable), num_keys=1)[0]
    return _rev(r, [dim]) if descending else r


@api("sc.argsort")
def argsort(a, axis: int | None = -1, *, kind=None, order=None, stable: bool = True,
            descending: bool = False, dtype=None):
    """`jnp.argsort`: the indices that sort `a` (stable by default; a stable
    descending sort keeps equal elements in their original order)."""
    _no_kind_order("argsort", kind, order)
    x = _arr(a, "argsort")
    if axis is None:
        x, axis = ravel(x), 0
    t = type_of(x)
    dim = normalize_axis(axis, t.ndim)
    idt = dt.canonicalize(dtype) if dtype is not None else _index_dtype(t.shape[dim] if t.ndim else 1)
    io = _iota(idt, t.shape, dim, t)
    if descending and stable:
        x, io = _rev(x, [dim]), _rev(io, [dim])
    _, idx = bind(so.sort, x, io, dimension=dim, is_stable=bool(stable), num_keys=1)
    return _rev(idx, [dim]) if descending else idx


@api("sc.lexsort")
def lexsort(keys, axis: int = -1):
    """`jnp.lexsort`: indices sorting by the last key first."""
    ks = [_arr(k, "lexsort") for k in (keys if not is_array(keys) else [keys[i] for i in range(len(keys))])]
    if not ks:
        raise_user_error(ShardcTypeError("need sequence of keys with len > 0 in lexsort"))
    if len({type_of(k).shape for k in ks}) > 1:
        raise_user_error(ShardcValueError("all keys need to be the same shape"))
    t = type_of(ks[0])
    if t.ndim == 0:
        return full((), 0, dt.int32)
    dim = normalize_axis(axis, t.ndim)
    io = bind(sp.iota, dtype=_index_dtype(t.shape[dim]), shape=t.shape, dimension=dim, out_sharding=None,
              mesh=t.mesh)  # replicated, as JAX's (a sharded key then fails the sort's equal-sharding rule)
    return bind(so.sort, *ks[::-1], io, dimension=dim, is_stable=True, num_keys=len(ks))[-1]


def _neg_key(x):
    t = type_of(x)
    if dt.is_int(t.dtype) and not dt.is_signed(t.dtype):
        return negative(add(x, 1))
    return negative(x)


@api("sc.partition")
def partition(a, kth: int, axis: int = -1):
    """`jnp.partition` via `top_k` (as JAX): the `kth + 1` smallest first (sorted), then the rest."""
    x = _arr(a, "partition")
    t = type_of(x)
    ax = normalize_axis(axis, t.ndim)
    kth = normalize_axis(kth, t.shape[ax])
    x = swapaxes(x, ax, -1)
    n = type_of(x).shape[-1]
    if dt.is_int(t.dtype) and not dt.is_signed(t.dtype) and t.dtype != dt.bool_:
        bottom = subtract(negative(top_k(_neg_key(x), kth + 1)[0]), 1)
    else:
        bottom = negative(top_k(negative(x), kth + 1)[0])
    top = top_k(x, n - kth - 1)[0]
    return swapaxes(concatenate([bottom, top], axis=-1), -1, ax)


@api("sc.argpartition")
def argpartition(a, kth: int, axis: int = -1):
    """`jnp.argpartition` via `top_k` (as JAX): indices of the `kth + 1` smallest, then the rest."""
    x = _arr(a, "partition")
    t = type_of(x)
    ax = normalize_axis(axis, t.ndim)
    kth = normalize_axis(kth, t.shape[ax])
    x = swapaxes(x, ax, -1)
    xt = type_of(x)
    if dt.is_int(t.dtype) and not dt.is_signed(t.dtype) and t.dtype != dt.bool_:
        bottom = top_k(_neg_key(x), kth + 1)[1]
    else:
        bottom = top_k(negative(x), kth + 1)[1]
    # JAX: vmap(lambda a, i: a.at[i].set(0)) over the leading dims (of a replicated proxy): one
    # batched scatter here, and vmap's error for leading dims sharded differently from the proxy's
    for e in xt.spec[:-1]:
        if e is not None:
            raise_user_error(ShardcValueError(
                "Mapped away dimension of inputs passed to vmap should be sharded the same. Got inconsistent "
                f"axis specs: None vs {e if isinstance(e, str) else e}"), [t])
    lead = [np.arange(s).reshape((-1,) + (1,) * (xt.ndim - 1 - d)) for d, s in enumerate(xt.shape[:-1])]
    proxy = scatter_update(full(xt.shape, 1.0), (*lead, bottom), 0.0, "set")
    top = top_k(proxy, xt.shape[-1] - kth - 1)[1]
    return swapaxes(concatenate([bottom, top], axis=-1), -1, ax)


def _concrete_error(what: str, t: ArrayType, fix: str) -> None:
    raise_user_error(ConcretizationTypeError(
        f"Abstract tracer value encountered where concrete value is expected: {t.str_short()}\n"
        f"The size argument of {what} must be statically specified to use {what} within JAX "
        f"transformations.", fix=fix), [t])


def _is_traced(x: Any) -> bool:
    return isinstance(x, Tracer)


def _concrete(x, what: str, hint: str = ""):
    """`x`'s value (NumPy) when it is concrete; JAX's ConcretizationTypeError when traced."""
    if _is_traced(x):
        t = type_of(x)
        raise_user_error(ConcretizationTypeError(
            "Abstract tracer value encountered where concrete value is expected: traced array with shape "
            f"{t.dtype.name}[{','.join(map(str, t.shape))}]\n{what}" + (f" {hint}" if hint else "")), [t])
    return np.asarray(x.to_jax() if hasattr(x, "to_jax") else x) if is_array(x) else np.asarray(x)


def _static_size(size, what: str) -> int:
    if _is_traced(size):
        _concrete(size, what)
    if is_array(size):
        return int(np.asarray(size))
    try:
        return operator.index(size)
    except TypeError as e:
        raise_user_error(ShardcTypeError(str(e)))


# --- total-order comparisons (JAX's sort comparators, elementwise) -----------------------------------
def _canon(x):
    """-0.0 -> 0.0, NaNs -> NaN (JAX's `_canonicalize_float_for_sort`)."""
    t = type_of(x)
    if not dt.is_float(t.dtype):
        return x
    x = E.where(E.equal(x, 0), 0, x)
    return E.where(E.not_equal(x, x), np.nan, x)


def _lt_total(x, y):
    """`x < y` in JAX's sort order (NaN last)."""
    if not dt.is_float(type_of(x).dtype):
        return E.less(x, y)
    x, y = _canon(x), _canon(y)
    return E.logical_or(E.less(x, y), E.logical_and(E.not_equal(y, y), E.equal(x, x)))


def _le_total(x, y):
    """`x <= y` in JAX's sort order (NaN last, NaN <= NaN)."""
    if not dt.is_float(type_of(x).dtype):
        return E.less_equal(x, y)
    x, y = _canon(x), _canon(y)
    return E.logical_or(E.less_equal(x, y), E.not_equal(y, y))


# --- searchsorted ------------------------------------------------------------------------------------
@api("sc.searchsorted")
def searchsorted(a, v, side: str = "left", sorter=None, *, method: str = "scan"):
    """`jnp.searchsorted`: insertion indices of `v` into the sorted 1-d `a`
    (`method`: 'scan' / 'scan_unrolled' a binary search, 'compare_all' a
    count of smaller elements, 'sort' a merge by sorting; all give the same values)."""
    a, v = _arr(a, "searchsorted"), _arr(v, "searchsorted")
    if type_of(a).ndim != 1:
        raise_user_error(ShardcValueError("a should be 1-dimensional"))
    a, v = promote(a, v)
    if sorter is not None:
        a = R_take(a, sorter)
    n = type_of(a).shape[0]
    idt = _index_dtype(n)
    if side not in ("left", "right"):
        raise_user_error(ShardcValueError(f"invalid argument side={side!r}, expected 'left' or 'right'"))
    methods = ("compare_all", "scan", "scan_unrolled", "sort")
    if method not in methods:
        raise_user_error(ShardcValueError(f"invalid argument method={method!r}, expected one of {list(methods)}"))
    vt = type_of(v)
    if n == 0:
        return full(vt.shape, 0, idt)
    if method == "compare_all":
        op = _lt_total if side == "left" else _le_total
        cmp = op(reshape(a, (n,) + (1,) * vt.ndim), v)
        return R.sum(cmp, axis=0, dtype=idt)
    if method == "sort":
        return _searchsorted_sort(a, v, side, idt)
    op = _le_total if side == "left" else _lt_total
    low = full(vt.shape, 0, dt.uint32)
    high = full(vt.shape, n, dt.uint32)
    for _ in range(int(np.ceil(np.log2(n + 1)))):
        mid = E.add(low, E.floor_divide(E.subtract(high, low), 2))
        go_left = op(v, R_take(a, mid))
        low, high = E.where(go_left, low, mid), E.where(go_left, mid, high)
    return E.astype(high, idt)


def R_take(a, idx, mode=None):
    """`a[idx]` (JAX's default: indices promised in bounds)."""
    return gather_get(a, idx, mode="promise_in_bounds" if mode is None else mode)


def _searchsorted_sort(a, v, side: str, idt):
    """JAX's `_searchsorted_sort_impl`: ranks in a merged sort."""
    n, m = type_of(a).shape[0], int(np.prod(type_of(v).shape))
    wdt = dt.int32

    def rank(x):
        k = type_of(x).shape[0]
        io = bind(sp.iota, dtype=wdt, shape=(k,), dimension=0, out_sharding=None, mesh=type_of(x).mesh)
        perm = sort_key_val(x, io)[1]
        return scatter_update(full((k,), 0, wdt), perm, io, "set")

    flat = ravel(v)
    if side == "left":
        index = gather_get(rank(concatenate([flat, a])), slice(None, m))
    else:
        index = gather_get(rank(concatenate([a, flat])), slice(n, None))
    return E.astype(reshape(E.subtract(index, rank(flat)), type_of(v).shape), idt)


# --- nonzero & co. -----------------------------------------------------------------------------------
def _mask_of(x):
    t = type_of(x)
    return x if t.dtype == dt.bool_ else E.not_equal(x, 0)


@api("sc.bincount")
def bincount(x, weights=None, minlength: int = 0, *, length: int | None = None, out_sharding=None):
    """`jnp.bincount`: counts (or summed `weights`) per value of a 1-d int `x`;
    inside a program `length=` must be given (JAX's contract)."""
    x = _arr(x, "bincount")
    t = type_of(x)
    if t.dtype == dt.bool_:
        x = E.astype(x, dt.int32)
        t = type_of(x)
    if not dt.is_int(t.dtype):
        raise_user_error(ShardcTypeError(f"x argument to bincount must have an integer type; got {t.dtype.name}"))
    if t.ndim != 1:
        raise_user_error(ShardcValueError("only 1-dimensional input supported."))
    minlength = int(minlength)
    if length is None:
        xv = _concrete(x, "The error occurred because of argument 'x' of jnp.bincount. To avoid this error, "
                          "pass a static `length` argument.")
        length = max(minlength, xv.size and int(max(0, xv.max())) + 1)
    else:
        length = _static_size(length, "The error occurred because of argument 'length' of jnp.bincount.")
    if weights is None:
        weights = np.array(1, dtype=dt.int32)
        wdt = dt.int32
    else:
        weights = _arr(weights, "bincount")
        wt = type_of(weights)
        if wt.shape != t.shape or (not t.mesh.empty and not wt.mesh.empty and wt.spec != t.spec):
            raise_user_error(ShardcValueError(
                f"type of weights must match type of x. Got typeof(x)={t.str_short()} and "
                f"typeof(weights)={wt.str_short()}"))
        wdt = wt.dtype
    spec = to_spec(out_sharding)
    if spec is not None and any(e is not None for e in spec):
        raise_user_error(ShardingTypeError("out_sharding passed to `jnp.bincount` can only be fully replicated "
                                           "or fully unreduced along all mesh axes"))
    return scatter_update(full((length,), 0, wdt), E.clip(x, 0), weights, "add", mode="drop",
                          out_sharding=out_sharding)


@api("sc.nonzero")
def nonzero(a, *, size: int | None = None, fill_value=None):
    """`jnp.nonzero`: a tuple of index arrays, one per dim; inside a program
    `size=` is required (extra entries are `fill_value`, default 0)."""
    arr = _arr(a, "nonzero")
    t = type_of(arr)
    if t.ndim == 0:
        raise_user_error(ShardcValueError("Calling nonzero on 0d arrays is not allowed. Use "
                                          "jnp.atleast_1d(scalar).nonzero() instead."))
    mask = _mask_of(arr)
    if size is None:
        total = R.sum(mask)
        size = int(_concrete(total, "The size argument of jnp.nonzero must be statically specified to use "
                                    "jnp.nonzero within JAX transformations."))
    else:
        size = _static_size(size, "The size argument of jnp.nonzero must be statically specified to use "
                                  "jnp.nonzero within JAX transformations.")
    if t.size == 0 or size == 0:
        return tuple(full((size,), 0, dt.int32) for _ in t.shape)
    flat = R.cumsum(bincount(R.cumsum(mask), length=size))
    strides = (np.cumprod(t.shape[::-1])[::-1] // t.shape).astype(np.int32)
    out = tuple(E.remainder(E.floor_divide(flat, int(s)), int(n)) for s, n in zip(strides, t.shape))
    if fill_value is not None:
        fills = fill_value if isinstance(fill_value, tuple) else t.ndim * (fill_value,)
        if any(np.shape(f) != () for f in fills):
            raise_user_error(ShardcValueError(
                f"fill_value must be a scalar or a tuple of length {t.ndim}; got {fill_value}"))
        fill_mask = E.greater_equal(arange(size), R.sum(mask))
        out = tuple(E.where(fill_mask, f, e) for f, e in zip(fills, out))
    return out


@api("sc.flatnonzero")
def flatnonzero(a, *, size: int | None = None, fill_value=None):
    """`jnp.flatnonzero`: indices of the nonzero entries of the flattened array."""
    return nonzero(ravel(_arr(a, "flatnonzero")), size=size, fill_value=fill_value)[0]


@api("sc.argwhere")
def argwhere(a, *, size: int | None = None, fill_value=None):
    """`jnp.argwhere`: a (count, ndim) array of the nonzero entries' indices."""
    a = _arr(a, "argwhere")
    t = type_of(a)
    x = reshape(a, (1,)) if t.ndim == 0 else a
    res = transpose(stack(nonzero(x, size=size, fill_value=fill_value)))
    rt = type_of(res)
    if t.ndim == 0:
        return reshape(gather_get(res, slice(None, 0)), (rt.shape[0], 0))
    return reshape(res, (rt.shape[0], t.ndim))


@api("sc.where")
def where(condition, x=None, y=None, /, *, size=None, fill_value=None):
    """`jnp.where`: with `x` and `y`, elementwise selection; with the condition
    alone, `nonzero(condition, size=, fill_value=)`."""
    if x is None and y is None:
        return nonzero(condition, size=size, fill_value=fill_value)
    if size is not None or fill_value is not None:
        raise_user_error(ShardcValueError("size and fill_value arguments cannot be used in three-term where "
                                          "function."))
    if x is None or y is None:  # JAX's check_arraylike meets the None first
        raise_user_error(ShardcTypeError("where requires ndarray or scalar arguments, got <class 'NoneType'> at "
                                         f"position {1 if x is None else 2}."))
    return E.where(condition, x, y)


@api("sc.count_nonzero")
def count_nonzero(a, axis=None, keepdims: bool = False):
    """`jnp.count_nonzero`: int32 counts of nonzero entries."""
    a = _arr(a, "count_nonzero")
    return R.sum(E.not_equal(a, 0), axis=axis, dtype=dt.int32, keepdims=keepdims)


# --- unique and set operations ------------------------------------------------------------------------
_UNIQUE_HINT = ("To make jnp.unique() compatible with JIT and other transforms, you can specify a concrete value "
                "for the size argument, which will determine the output size.")


def _isnan(x):
    return E.not_equal(x, x)


def _unique_sorted_mask(ar, axis: int, equal_nan: bool):
    """JAX's `_unique_sorted_mask`: the sorted slices, a mask of first
    occurrences, and the sorting permutation."""
    aux = moveaxis(ar, axis, 0)
    t = type_of(aux)
    size, rest = t.shape[0], t.shape[1:]
    if int(np.prod(rest)) == 0:
        size = 1
        perm = full((1,), 0, dt.int32)
    else:
        keys = reshape(aux, (size, int(np.prod(rest))))
        keys = transpose(keys)
        perm = lexsort([gather_get(keys, i) for i in reversed(range(type_of(keys).shape[0]))])
    aux = gather_get(aux, perm)
    at = type_of(aux)
    if at.size:
        a1, a0 = gather_get(aux, slice(1, None)), gather_get(aux, slice(None, -1))
        neq = E.not_equal(a1, a0)
        if dt.is_float(at.dtype) and equal_nan:
            neq = E.logical_and(neq, E.logical_not(E.logical_and(_isnan(a1), _isnan(a0))))
        diff = R.any(neq, tuple(range(1, at.ndim))) if at.ndim > 1 else neq
        mask = scatter_update(full((size,), True, dt.bool_), slice(1, None), diff, "set")
    else:
        mask = full((size,), False, dt.bool_)
    return aux, mask, perm


def _unique(ar, axis: int, return_index=False, return_inverse=False, return_counts=False, equal_nan=True,
            size=None, fill_value=None, return_true_size=False):
    t = type_of(ar)
    axis = normalize_axis(axis, t.ndim)
    if t.shape[axis] == 0 and size and fill_value is None:
        raise_user_error(ShardcValueError("jnp.unique: for zero-sized input with nonzero size argument, "
                                          "fill_value must be specified"))
    aux, mask, perm = _unique_sorted_mask(ar, axis, equal_nan)
    at = type_of(aux)
    if size is None:
        ind = np.nonzero(_concrete(mask, "The error arose in jnp.unique().", _UNIQUE_HINT))[0].astype(np.int32)
    else:
        ind = nonzero(mask, size=size)[0]
    result = gather_get(aux, ind) if at.size else aux
    rt = type_of(result)
    if size is not None and fill_value is not None:
        fv = E.astype(asarray(fill_value), rt.dtype)
        if rt.shape[0]:
            valid = E.less(arange(size), R.sum(mask))
            valid = reshape(valid, (size,) + (1,) * (rt.ndim - 1))
            result = E.where(valid, result, fv)
        else:
            result = full((size,) + rt.shape[1:], fv, rt.dtype)
    result = moveaxis(result, 0, axis)
    ret = (result,)
    if return_index:
        ret += (gather_get(perm, ind) if at.size else perm,)
    if return_inverse:
        if at.size:
            imask = E.subtract(R.cumsum(mask), 1)
            inv = scatter_update(full(type_of(mask).shape, 0, dt.int32), perm, imask, "set")
        else:
            inv = full((t.shape[axis],), 0, dt.int32)
        ret += (inv,)
    if return_counts:
        if at.size:
            msize = type_of(mask).shape[0]
            if size is None:
                idx = np.append(np.asarray(ind), msize).astype(np.int32)
                idx = asarray(idx)
            else:
                idx = nonzero(mask, size=size + 1)[0]
                tail = gather_get(idx, slice(1, None))
                idx = scatter_update(idx, slice(1, None), E.where(tail, tail, msize), "set")
            ret += (E.subtract(gather_get(idx, slice(1, None)), gather_get(idx, slice(None, -1))),)
        elif t.shape[axis]:
            ret += (full((1,), t.shape[axis], dt.int32),)
        else:
            ret += (full((0,), 0, dt.int32),)
    if return_true_size:
        ret += (R.sum(mask),)
    return ret[0] if len(ret) == 1 else ret


@api("sc.unique")
def unique(ar, return_index: bool = False, return_inverse: bool = False, return_counts: bool = False,
           axis: int | None = None, *, equal_nan: bool = True, size: int | None = None, fill_value=None,
           sorted: bool = True):
    """`jnp.unique`: sorted unique values (slices along `axis`), optionally
    first indices, inverse and counts; inside a program `size=` is required
    (padded with `fill_value`, default the smallest unique value)."""
    arr = _arr(ar, "unique")
    if size is None:
        if _is_traced(arr):
            _concrete(arr, "The error arose for the first argument of jnp.unique().", _UNIQUE_HINT)
    else:
        size = _static_size(size, "The error arose for the size argument of jnp.unique(). " + _UNIQUE_HINT)
    shape = type_of(arr).shape
    if axis is None:
        axis_int = 0
        arr = ravel(arr)
    else:
        axis_int = normalize_axis(axis, len(shape))
    result = _unique(arr, axis_int, return_index, return_inverse, return_counts, equal_nan=equal_nan,
                     size=size, fill_value=fill_value)
    if return_inverse and axis is None:
        i = 2 if return_index else 1
        result = (*result[:i], reshape(result[i], shape), *result[i + 1:])
    return result


class UniqueAllResult(NamedTuple):
    values: Any
    indices: Any
    inverse_indices: Any
    counts: Any


class UniqueCountsResult(NamedTuple):
    values: Any
    counts: Any


class UniqueInverseResult(NamedTuple):
    values: Any
    inverse_indices: Any


@api("sc.unique_all")
def unique_all(x, /, *, size: int | None = None, fill_value=None) -> UniqueAllResult:
    """`jnp.unique_all` (array API): values, first indices, inverse, counts (NaNs distinct)."""
    return UniqueAllResult(*unique(x, return_index=True, return_inverse=True, return_counts=True,
                                   equal_nan=False, size=size, fill_value=fill_value))


@api("sc.unique_counts")
def unique_counts(x, /, *, size: int | None = None, fill_value=None) -> UniqueCountsResult:
    """`jnp.unique_counts` (array API)."""
    return UniqueCountsResult(*unique(x, return_counts=True, equal_nan=False, size=size, fill_value=fill_value))


@api("sc.unique_inverse")
def unique_inverse(x, /, *, size: int | None = None, fill_value=None) -> UniqueInverseResult:
    """`jnp.unique_inverse` (array API)."""
    return UniqueInverseResult(*unique(x, return_inverse=True, equal_nan=False, size=size,
                                       fill_value=fill_value))


@api("sc.unique_values")
def unique_values(x, /, *, size: int | None = None, fill_value=None):
    """`jnp.unique_values` (array API)."""
    return unique(x, equal_nan=False, size=size, fill_value=fill_value)


def _in1d(ar1, ar2, invert: bool, method="auto", assume_unique=False):
    a1, a2 = promote(_arr(ar1, "in1d"), _arr(ar2, "in1d"))
    a1, a2 = ravel(a1), ravel(a2)
    n1, n2 = type_of(a1).shape[0], type_of(a2).shape[0]
    if n1 == 0 or n2 == 0:
        return full((n1,), bool(invert), dt.bool_)
    if method in ("auto", "compare_all"):
        c1, c2 = reshape(a1, (n1, 1)), reshape(a2, (1, n2))
        return R.all(E.not_equal(c1, c2), -1) if invert else R.any(E.equal(c1, c2), -1)
    if method == "binary_search":
        a2 = lax_sort(a2)
        ind = searchsorted(a2, a1)
        other = gather_get(a2, ind)
        return E.not_equal(a1, other) if invert else E.equal(a1, other)
    if method == "sort":
        ind_out: Any = slice(None)
        if not assume_unique:
            a1, ind_out = unique(a1, size=n1, return_inverse=True, fill_value=R.max(a2))
        io = arange(n1 + n2)
        aux, ind = sort_key_val(concatenate([a1, a2]), io)
        hi, lo = gather_get(aux, slice(1, None)), gather_get(aux, slice(None, -1))
        head = gather_get(ind, slice(None, -1))
        if invert:
            r = scatter_update(full((n1,), True, dt.bool_), head, E.not_equal(hi, lo), "set", mode="drop")
        else:
            r = scatter_update(full((n1,), False, dt.bool_), head, E.equal(hi, lo), "set", mode="drop")
        return gather_get(r, ind_out)
    raise_user_error(ShardcValueError(f"method={method!r} is not implemented; options are 'compare_all', "
                                      "'binary_search', 'sort', and 'auto'"))


@api("sc.isin")
def isin(element, test_elements, assume_unique: bool = False, invert: bool = False, *, method="auto"):
    """`jnp.isin`: whether each element of `element` is in `test_elements`."""
    element = _arr(element, "isin")
    r = _in1d(element, test_elements, invert=invert, method=method, assume_unique=assume_unique)
    return reshape(r, type_of(element).shape)


@api("sc.union1d")
def union1d(ar1, ar2, *, size: int | None = None, fill_value=None):
    """`jnp.union1d`: the sorted unique values of both (inside a program: `size=`)."""
    ar1, ar2 = _arr(ar1, "union1d"), _arr(ar2, "union1d")
    if size is None:
        for a in (ar1, ar2):
            if _is_traced(a):
                _concrete(a, "The error arose in union1d()")
    else:
        size = _static_size(size, "The error arose in union1d()")
    return unique(concatenate([ravel(ar1), ravel(ar2)]), size=size, fill_value=fill_value)


@api("sc.setdiff1d")
def setdiff1d(ar1, ar2, assume_unique: bool = False, *, size: int | None = None, fill_value=None):
    """`jnp.setdiff1d`: the unique values of `ar1` not in `ar2` (inside a program: `size=`)."""
    a1, a2 = ravel(_arr(ar1, "setdiff1d")), ravel(_arr(ar2, "setdiff1d"))
    if size is None:
        if _is_traced(a1):
            _concrete(a1, "The error arose in setdiff1d()")
    else:
        size = _static_size(size, "The error arose in setdiff1d()")
    t1 = type_of(a1)
    fv = E.astype(asarray(0 if fill_value is None else fill_value), t1.dtype)
    if t1.shape[0] == 0:
        return full((size or 0,), fv, t1.dtype)
    if not assume_unique:
        a1 = unique(a1, size=size and t1.shape[0])
    mask = _in1d(a1, a2, invert=True, assume_unique=assume_unique)
    if size is None:
        return gather_get(a1, _concrete(mask, "The error arose in setdiff1d()"))
    n1 = type_of(a1).shape[0]
    if not assume_unique:
        n_unique = E.subtract(n1 + 1, R.sum(E.equal(a1, gather_get(a1, 0))))
        mask = E.where(E.less(arange(n1), n_unique), mask, False)
    picked = gather_get(a1, where(mask, size=size)[0])
    return E.where(E.less(arange(size), R.sum(mask)), picked, fv)


@api("sc.intersect1d")
def intersect1d(ar1, ar2, assume_unique: bool = False, return_indices: bool = False, *,
                size: int | None = None, fill_value=None):
    """`jnp.intersect1d`: the sorted values in both (inside a program: `size=`)."""
    a1, a2 = promote(_arr(ar1, "intersect1d"), _arr(ar2, "intersect1d"))
    a1, a2 = ravel(a1), ravel(a2)
    if size is not None:
        return _intersect1d_size(a1, a2, return_indices, _static_size(size, "The error arose in intersect1d()"),
                                 fill_value, assume_unique)
    ind1 = ind2 = None
    if not assume_unique:
        if return_indices:
            a1, ind1 = unique(a1, return_index=True)
            a2, ind2 = unique(a2, return_index=True)
        else:
            a1, a2 = unique(a1), unique(a2)
    aux, mask, perm = _intersect_sorted_mask(a1, a2, return_indices)
    m = _concrete(mask, "The error arose in intersect1d()")
    res = gather_get(gather_get(aux, slice(None, -1)), m)
    if not return_indices:
        return res
    n1 = type_of(a1).shape[0]
    i1 = gather_get(gather_get(perm, slice(None, -1)), m)
    i2 = E.subtract(gather_get(gather_get(perm, slice(1, None)), m), n1)
    if not assume_unique:
        i1, i2 = gather_get(ind1, i1), gather_get(ind2, i2)
    return res, i1, i2


def _intersect_sorted_mask(a1, a2, return_indices: bool):
    arr = concatenate([a1, a2])
    n = type_of(arr).shape[0]
    if return_indices:
        io = bind(sp.iota, dtype=_index_dtype(n), shape=(n,), dimension=0, out_sharding=None, mesh=type_of(arr).mesh)
        aux, perm = sort_key_val(arr, io)
    else:
        aux, perm = sort(arr), None
    mask = E.equal(gather_get(aux, slice(1, None)), gather_get(aux, slice(None, -1)))
    return aux, mask, perm


def _dus(x, u, start):
    return bind(sp.dynamic_update_slice, x, u, E.astype(asarray(start), dt.int32))


def _concat_unique(a1, a2):
    """JAX's `_concat_unique`: the unique values of each, packed at the front of one array."""
    n1, n2 = type_of(a1).shape[0], type_of(a2).shape[0]
    a1, nu1 = _unique(a1, 0, size=n1, return_true_size=True)
    a2, nu2 = _unique(a2, 0, size=n2, return_true_size=True)
    arr = _dus(_dus(full((n1 + n2,), 0, type_of(a1).dtype), a1, 0), a2, nu1)
    return arr, E.add(nu1, nu2)


def _pad_results(vals, num_results, fill_value):
    n = type_of(vals).shape[0]
    keep = E.less(arange(n), num_results)
    if fill_value is None:
        vals = E.where(keep, vals, R.max(vals))
        return E.where(keep, vals, R.min(vals))
    return E.where(keep, vals, fill_value)


def _intersect1d_size(a1, a2, return_indices, size, fill_value, assume_unique):
    """JAX's `_intersect1d_size`."""
    n1, n2 = type_of(a1).shape[0], type_of(a2).shape[0]
    if assume_unique:
        ind1, nu1 = arange(n1), full((), n1, dt.int32)
        ind2 = arange(n2)
        arr = concatenate([a1, a2])
        aux, perm = lax_sort([arr, arange(n1 + n2)], is_stable=True, num_keys=1)
        mask = full((n1 + n2,), True, dt.bool_)
    else:
        a1, ind1, nu1 = _unique(a1, 0, size=n1, return_index=True, return_true_size=True, fill_value=0)
        a2, ind2, nu2 = _unique(a2, 0, size=n2, return_index=True, return_true_size=True, fill_value=0)
        arr = _dus(_dus(full((n1 + n2,), 0, type_of(a1).dtype), a1, 0), a2, nu1)
        mask = E.less(arange(n1 + n2), E.add(nu1, nu2))
        _, aux, perm = lax_sort([E.logical_not(mask), arr, arange(n1 + n2)], is_stable=True, num_keys=2)
    aux_mask = E.logical_and(E.equal(gather_get(aux, slice(1, None)), gather_get(aux, slice(None, -1))),
                             gather_get(mask, slice(1, None)))
    num_results = R.sum(aux_mask)
    na = type_of(aux).shape[0]
    if na:
        val_idx = nonzero(aux_mask, size=size, fill_value=na)[0]
        vals = gather_get(aux, val_idx, mode="fill", fill_value=0)
    else:
        val_idx = arange(0)
        vals = full((size,), 0, type_of(aux).dtype)
    vals = _pad_results(vals, num_results, fill_value)
    if not return_indices:
        return vals
    keep = E.less(arange(size), num_results)
    i1 = E.where(keep, gather_get(perm, val_idx, mode="fill", fill_value=n1), n1)
    i2 = E.subtract(gather_get(perm, E.add(val_idx, 1), mode="fill", fill_value=n2), nu1)
    i2 = E.where(keep, i2, n2)
    if not assume_unique:
        i1 = gather_get(ind1, i1, mode="fill", fill_value=type_of(ind1).shape[0])
        i2 = gather_get(ind2, i2, mode="fill", fill_value=type_of(ind2).shape[0])
    return vals, i1, i2


@api("sc.setxor1d")
def setxor1d(ar1, ar2, assume_unique: bool = False, *, size: int | None = None, fill_value=None):
    """`jnp.setxor1d`: the sorted values in exactly one of the two (inside a program: `size=`)."""
    a1, a2 = promote(ravel(_arr(ar1, "setxor1d")), ravel(_arr(ar2, "setxor1d")))
    if size is not None:
        return _setxor1d_size(a1, a2, fill_value, assume_unique, _static_size(size, "The error arose in setxor1d()"))
    if not assume_unique:
        a1, a2 = unique(a1), unique(a2)
    aux = concatenate([a1, a2])
    n = type_of(aux).shape[0]
    if n == 0:
        return aux
    aux = sort(aux)
    true = full((1,), True, dt.bool_)
    flag = concatenate([true, E.not_equal(gather_get(aux, slice(1, None)), gather_get(aux, slice(None, -1))), true])
    sel = E.logical_and(gather_get(flag, slice(1, None)), gather_get(flag, slice(None, -1)))
    return gather_get(aux, _concrete(sel, "The error arose in setxor1d()"))


def _setxor1d_size(a1, a2, fill_value, assume_unique: bool, size: int):
    """JAX's `_setxor1d_size`."""
    if assume_unique:
        aux = sort(concatenate([a1, a2]))
        n = type_of(aux).shape[0]
        flag = concatenate([full((1,), bool(n), dt.bool_),
                            E.not_equal(gather_get(aux, slice(1, None)), gather_get(aux, slice(None, -1))),
                            full((1,), True, dt.bool_)])
    else:
        arr, num_unique = _concat_unique(a1, a2)
        n = type_of(arr).shape[0]
        mask = E.less(arange(n + 1), E.add(num_unique, 1))
        _, aux = lax_sort([E.logical_not(gather_get(mask, slice(1, None))), arr], is_stable=True, num_keys=2)
        inner = concatenate([full((1,), bool(n), dt.bool_),
                             E.not_equal(gather_get(aux, slice(1, None)), gather_get(aux, slice(None, -1))),
                             full((1,), False, dt.bool_)])
        flag = E.logical_and(mask, scatter_update(inner, num_unique, True, "set"))
    aux_mask = E.logical_and(gather_get(flag, slice(1, None)), gather_get(flag, slice(None, -1)))
    num_results = R.sum(aux_mask)
    n = type_of(aux).shape[0]
    if n:
        idx = nonzero(aux_mask, size=size, fill_value=n)[0]
        vals = gather_get(aux, idx, mode="fill", fill_value=0)
    else:
        vals = full((size,), 0, type_of(aux).dtype)
    return _pad_results(vals, num_results, fill_value)


# --- quantiles -----------------------------------------------------------------------------------------
_METHODS = ["linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf"]


def _inexact(x):
    t = type_of(x)
    return x if dt.is_float(t.dtype) else E.astype(x, dt.float32)


def _quantile(a, q, axis, method: str, keepdims: bool, squash_nans: bool, weights=None):
    """JAX's `_quantile` (sort, then gather the two neighbouring order statistics)."""
    if method not in _METHODS:
        raise_user_error(ShardcValueError("method can only be 'linear', 'lower', 'higher', 'midpoint', 'nearest' "
                                          "or 'inverted_cdf'"))
    if weights is not None:
        if method != "inverted_cdf":
            raise_user_error(ShardcNotImplementedError(
                f"{method} doesn't support weights. Only method 'inverted_cdf' supports weights."))
        a, weights = promote(_inexact(a), _inexact(_arr(weights, "quantile")))
        weights = _weights_like(a, weights, axis)
    else:
        a = _inexact(a)
    at = type_of(a)
    keepdim: list[int] = []
    if axis is None:
        if keepdims:
            keepdim = [1] * at.ndim
        a, axis = ravel(a), 0
        weights = None if weights is None else ravel(weights)
    elif isinstance(axis, tuple):
        keepdim = list(at.shape)
        nd = at.ndim
        axis = tuple(normalize_axis(ax, nd) for ax in axis)
        if len(set(axis)) != len(axis):
            raise_user_error(ShardcValueError("repeated axis"))
        for ax in axis:
            keepdim[ax] = 1
        keep = sorted(set(range(nd)) - set(axis))
        dims = list(range(nd))
        for i, s_ in enumerate(keep):
            dims[i], dims[s_] = dims[s_], dims[i]
        outer = tuple(x for i, x in enumerate(at.shape) if i not in axis)
        inner = int(np.prod([x for i, x in enumerate(at.shape) if i in axis]))
        a = reshape(transpose(a, dims), outer + (inner,))
        if weights is not None:
            weights = reshape(transpose(weights, dims), outer + (inner,))
        axis = type_of(a).ndim - 1
    else:
        axis = normalize_axis(axis, at.ndim)
    qt = type_of(q)
    if qt.ndim > 1:
        raise_user_error(ShardcValueError(f"q must be have rank <= 1, got shape {qt.shape}"))
    q_ndim = qt.ndim
    a_shape = type_of(a).shape
    q_orig = q
    if squash_nans:
        a = E.where(_isnan(a), np.nan, a)
        a, weights = _sort_with(a, weights, axis)
        counts = R.sum(E.logical_not(_isnan(a)), axis=axis, dtype=qt.dtype, keepdims=keepdims)
        after = type_of(counts).shape
        q = reshape(q, qt.shape + (1,) * len(after))
        counts = reshape(counts, (1,) * q_ndim + after)
        q = E.multiply(q, E.subtract(counts, 1))
        low, high = E.floor(q), E.ceil(q)
        high_weight = E.subtract(q, low)
        low_weight = E.subtract(1, high_weight)
        low = E.maximum(0, E.minimum(low, E.subtract(counts, 1)))
        high = E.maximum(0, E.minimum(high, E.subtract(counts, 1)))
        low, high = E.astype(low, dt.int32), E.astype(high, dt.int32)
        out_shape = qt.shape + after
        index = [bind(sp.iota, dtype=dt.int32, shape=out_shape, dimension=d + q_ndim, out_sharding=None,
                      mesh=type_of(a).mesh) for d in range(len(after))]
        if keepdims:
            index[axis] = low
        else:
            index.insert(axis, low)
        low_value = gather_get(a, tuple(index))
        index[axis] = high
        high_value = gather_get(a, tuple(index))
    else:
        a = E.where(R.any(_isnan(a), axis=axis, keepdims=True), np.nan, a)
        a, weights = _sort_with(a, weights, axis)
        n = float(a_shape[axis])
        q = E.multiply(q, n - 1)
        low, high = E.floor(q), E.ceil(q)
        high_weight = E.subtract(q, low)
        low_weight = E.subtract(1, high_weight)
        low = E.clip(low, 0, n - 1)
        high = E.clip(high, 0, n - 1)
        low, high = E.astype(low, dt.int32), E.astype(high, dt.int32)
        slice_sizes = list(a_shape)
        slice_sizes[axis] = 1
        nd = len(a_shape)
        dnums = gp.GatherDimensionNumbers(
            offset_dims=tuple(range(q_ndim, nd + q_ndim if keepdims else nd + q_ndim - 1)),
            collapsed_slice_dims=() if keepdims else (axis,), start_index_map=(axis,))
        low_value = _gather(a, reshape(low, type_of(low).shape + (1,)), dnums, slice_sizes)
        high_value = _gather(a, reshape(high, type_of(high).shape + (1,)), dnums, slice_sizes)
        if q_ndim == 1:
            shp = type_of(low_value).shape
            low_weight = bind(sp.broadcast_in_dim, low_weight, shape=shp, broadcast_dimensions=(0,),
                              out_sharding=None)
            high_weight = bind(sp.broadcast_in_dim, high_weight, shape=shp, broadcast_dimensions=(0,),
                               out_sharding=None)
    if method == "linear":
        result = E.add(E.multiply(E.astype(low_value, qt.dtype), low_weight),
                       E.multiply(E.astype(high_value, qt.dtype), high_weight))
    elif method == "lower":
        result = low_value
    elif method == "higher":
        result = high_value
    elif method == "nearest":
        result = E.where(E.less_equal(high_weight, 0.5), low_value, high_value)
    elif method == "midpoint":
        result = E.multiply(E.add(low_value, high_value), 0.5)
    else:
        result = _inverted_cdf(a, weights, q, q_orig, axis, keepdims, squash_nans, a_shape)
    if keepdims and keepdim:
        if q_ndim > 0:
            keepdim = [qt.shape[0], *keepdim]
        result = reshape(result, tuple(keepdim))
    return E.astype(result, type_of(a).dtype)


def _weights_like(a, w, axis):
    """JAX's check and broadcast of `weights` to `a`'s shape (over the reduced axes)."""
    at, wt = type_of(a), type_of(w)
    if wt.shape == at.shape:
        return w
    if axis is None:
        raise_user_error(ShardcValueError("Weights shape must match 'a' shape when axis is None."))
    axes = tuple(normalize_axis(ax, at.ndim) for ax in (axis if isinstance(axis, tuple) else (axis,)))
    want = tuple(at.shape[ax] for ax in axes)
    if wt.shape != want:
        raise_user_error(ShardcValueError(f"Weights shape {wt.shape} must match reduction axes {want}"))
    return bind(sp.broadcast_in_dim, w, shape=at.shape, broadcast_dimensions=axes, out_sharding=None)


def _sort_with(a, weights, axis: int):
    if weights is None:
        return lax_sort(a, dimension=axis), None
    return sort_key_val(a, weights, dimension=axis)


def _expand_front(x, n: int):
    return reshape(x, (1,) * n + type_of(x).shape) if n else x


def _inverted_cdf(a, weights, q, q_orig, axis: int, keepdims: bool, squash_nans: bool, a_shape):
    """JAX's `method='inverted_cdf'`: the first order statistic whose cumulative
    weight reaches `q` of the total (NaN data or bad weights give NaN)."""
    qt = type_of(q_orig)
    q_ndim = qt.ndim
    if weights is None:
        weights = full(type_of(a).shape, 1.0, type_of(a).dtype)
    bad = E.logical_or(E.less(weights, 0), _isnan(weights))
    nan_data = _isnan(a)
    clean = E.where(E.logical_or(bad, nan_data), 0, weights)
    cum = R.cumsum(clean, axis=axis)
    total = gather_get(cum, (slice(None),) * axis + ((slice(-1, None) if keepdims else -1),))
    tw = _expand_front(total, q_ndim)
    qf = reshape(q_orig, qt.shape + (1,) * type_of(total).ndim)
    target = E.multiply(qf, tw)
    if not keepdims:
        target = expand_dims(target, (axis + q_ndim,))
    is_less = E.less(_expand_front(cum, q_ndim), target)
    idx = R.sum(E.astype(is_less, dt.int32), axis=axis + q_ndim, keepdims=keepdims)
    if squash_nans:
        valid = R.sum(E.logical_not(nan_data), axis=axis, dtype=type_of(q).dtype, keepdims=keepdims)
    else:
        valid = full(type_of(total).shape, a_shape[axis], type_of(q).dtype)
    max_idx = E.astype(_expand_front(E.astype(E.subtract(valid, 1), dt.int32), q_ndim), type_of(idx).dtype)
    idx = E.maximum(0, E.minimum(idx, max_idx))
    take = bind(sp.squeeze, idx, dimensions=(q_ndim + axis,)) if keepdims else idx
    if q_ndim == 0:
        result = bind(sp.squeeze, take_along_axis(a, expand_dims(take, (axis,)), axis=axis), dimensions=(axis,))
    else:
        tn = type_of(take).ndim
        perm = [*range(q_ndim, q_ndim + axis), *range(q_ndim), *range(q_ndim + axis, tn)]
        result = take_along_axis(a, transpose(take, perm), axis=axis)
        result = transpose(result, [perm.index(i) for i in range(len(perm))])
    if keepdims:
        result = expand_dims(result, (q_ndim + axis,))
    all_nan = E.equal(valid, 0)
    any_bad = R.any(bad, axis=axis, keepdims=keepdims)
    force = E.logical_or(any_bad, all_nan) if squash_nans else \
        E.logical_or(any_bad, R.any(nan_data, axis=axis, keepdims=keepdims))
    return E.where(_expand_front(force, q_ndim), np.nan, result)


def _gather(a, idx, dnums, slice_sizes):
    return bind(gp.gather, a, idx, dimension_numbers=dnums, slice_sizes=tuple(slice_sizes),
                mode="promise_in_bounds", fill_value=None, out_sharding=None)


def _check_out(name: str, out, overwrite_input) -> None:
    if overwrite_input or out is not None:
        raise_user_error(ShardcValueError(f"jax.numpy.{name} does not support overwrite_input=True or out != None"))


@api("sc.quantile")
def quantile(a, q, axis=None, out=None, overwrite_input: bool = False, method: str = "linear",
             keepdims: bool = False, *, weights=None):
    """`jnp.quantile` (NaN anywhere along the axis gives NaN)."""
    _check_out("quantile", out, overwrite_input)
    return _quantile(_arr(a, "quantile"), _arr(q, "quantile"), axis, method, keepdims, False, weights)


@api("sc.nanquantile")
def nanquantile(a, q, axis=None, out=None, overwrite_input: bool = False, method: str = "linear",
                keepdims: bool = False, *, weights=None):
    """`jnp.nanquantile`: quantiles ignoring NaNs."""
    _check_out("nanquantile", out, overwrite_input)
    return _quantile(_arr(a, "nanquantile"), _arr(q, "nanquantile"), axis, method, keepdims, True, weights)


@api("sc.percentile")
def percentile(a, q, axis=None, out=None, overwrite_input: bool = False, method: str = "linear",
               keepdims: bool = False, *, weights=None, out_sharding=None):
    """`jnp.percentile`: `quantile(a, q / 100)`; with `out_sharding=` it runs, as JAX's, under
    `auto_axes` over the mesh's Explicit axes (the sort may then be over a sharded dimension)
    and its result is resharded to `out_sharding`."""
    q = E.true_divide(_inexact(_arr(q, "percentile")), 100)

    def internal_quantile(x, y, w):
        return quantile(x, y, axis=axis, out=out, overwrite_input=overwrite_input, method=method,
                        keepdims=keepdims, weights=w)
    if out_sharding is None:
        return internal_quantile(a, q, weights)
    spec = to_spec(out_sharding)
    mesh = out_sharding.abstract_mesh if isinstance(out_sharding, NamedSharding) else get_abstract_mesh()
    return auto_axes(internal_quantile, out_sharding=spec, axes=mesh.explicit_axes)(_arr(a, "percentile"), q, weights)


@api("sc.nanpercentile")
def nanpercentile(a, q, axis=None, out=None, overwrite_input: bool = False, method: str = "linear",
                  keepdims: bool = False, *, weights=None):
    """`jnp.nanpercentile`: `nanquantile(a, q / 100)`."""
    q = E.true_divide(_inexact(_arr(q, "nanpercentile")), 100)
    return nanquantile(a, q, axis=axis, out=out, overwrite_input=overwrite_input, method=method,
                       keepdims=keepdims, weights=weights)


@api("sc.median")
def median(a, axis=None, out=None, overwrite_input: bool = False, keepdims: bool = False):
    """`jnp.median`: the midpoint quantile 0.5."""
    return quantile(a, 0.5, axis=axis, out=out, overwrite_input=overwrite_input, keepdims=keepdims,
                    method="midpoint")


@api("sc.nanmedian")
def nanmedian(a, axis=None, out=None, overwrite_input: bool = False, keepdims: bool = False):
    """`jnp.nanmedian`: the midpoint nanquantile 0.5."""
    return nanquantile(a, 0.5, axis=axis, out=out, overwrite_input=overwrite_input, keepdims=keepdims,
                       method="midpoint")


# --- histograms, digitize, compress --------------------------------------------------------------------
@api("sc.histogram_bin_edges")
def histogram_bin_edges(a, bins=10, range=None, weights=None):
    """`jnp.histogram_bin_edges`: `bins + 1` even edges over `range` (default the data's min/max)."""
    if isinstance(bins, str):
        raise_user_error(ShardcNotImplementedError("string values for `bins` not implemented."))
    arr = _arr(a, "histogram_bin_edges")
    d = _inexact_dtype(type_of(arr).dtype)
    if np.ndim(bins) == 1 or (is_array(bins) and type_of(bins).ndim == 1):
        return E.astype(asarray(bins), d)
    nbins = _static_size(bins, "bins argument of histogram_bin_edges")
    lo, hi = (R.min(arr), R.max(arr)) if range is None else (range[0], range[1])
    if range is not None and len(range) != 2:
        raise_user_error(ShardcValueError(f"`range` must be either None or a sequence of scalars, got {range}"))
    lo, hi = E.astype(asarray(lo), d), E.astype(asarray(hi), d)
    flat = E.equal(E.subtract(hi, lo), 0)
    lo, hi = E.where(flat, E.subtract(lo, 0.5), lo), E.where(flat, E.add(hi, 0.5), hi)
    return linspace(lo, hi, nbins + 1, dtype=d)


def _inexact_dtype(d):
    return d if dt.is_float(d) else dt.float32


@api("sc.histogram")
def histogram(a, bins=10, range=None, weights=None, density=None):
    """`jnp.histogram`: counts (or summed weights) per bin, and the bin edges."""
    if isinstance(bins, str):  # JAX's ensure_arraylike meets it before histogram_bin_edges does
        raise_user_error(ShardcTypeError(f"asarray: expected ArrayLike, got {bins} of type {type(bins)}."))
    a = _arr(a, "histogram")
    if weights is None:
        a = _inexact(a)
        weights = full(type_of(a).shape, 1, type_of(a).dtype)
    else:
        weights = _arr(weights, "histogram")
        if type_of(weights).shape != type_of(a).shape:
            raise_user_error(ShardcValueError("weights should have the same shape as a."))
        a, weights = promote(_inexact(a), _inexact(weights))
    edges = histogram_bin_edges(a, bins, range, weights)
    n = type_of(edges).shape[0]
    idx = searchsorted(edges, a, side="right")
    idx = E.where(E.equal(a, gather_get(edges, -1)), n - 1, idx)
    counts = gather_get(scatter_update(full((n,), 0, type_of(weights).dtype), idx, weights, "add"),
                        slice(1, None))
    if density:
        widths = E.subtract(gather_get(edges, slice(1, None)), gather_get(edges, slice(None, -1)))
        counts = E.true_divide(E.true_divide(counts, widths), R.sum(counts))
    return counts, edges


@api("sc.digitize")
def digitize(x, bins, right: bool = False, *, method: str | None = None):
    """`jnp.digitize`: the bin of each `x` (bins increasing or decreasing)."""
    x, b = _arr(x, "digitize"), _arr(bins, "digitize")
    if type_of(b).ndim != 1:
        raise_user_error(ShardcValueError(f"digitize: bins must be a 1-dimensional array; got bins={bins}"))
    n = type_of(b).shape[0]
    if n == 0:
        return full(type_of(x).shape, 0, dt.int32)
    side = "right" if not right else "left"
    kw = {} if method is None else {"method": method}
    inc = searchsorted(b, x, side=side, **kw)
    dec = E.subtract(n, searchsorted(_rev(b, [0]), x, side=side, **kw))
    return E.where(E.greater_equal(gather_get(b, -1), gather_get(b, 0)), inc, dec)


@api("sc.compress")
def compress(condition, a, axis: int | None = None, *, size: int | None = None, fill_value=0, out=None):
    """`jnp.compress`: the slices of `a` along `axis` where `condition` holds (inside a program: `size=`)."""
    cond = E.astype(_arr(condition, "compress"), dt.bool_)
    arr = _arr(a, "compress")
    if out is not None:
        raise_user_error(ShardcNotImplementedError("The 'out' argument to jnp.compress is not supported."))
    if type_of(cond).ndim != 1:
        raise_user_error(ShardcValueError("condition must be a 1D array"))
    if axis is None:
        axis, arr = 0, ravel(arr)
    else:
        arr = moveaxis(arr, axis, 0)
    n = type_of(arr).shape[0]
    extra = gather_get(cond, slice(n, None))
    cond = gather_get(cond, slice(None, n))
    arr = gather_get(arr, slice(None, type_of(cond).shape[0]))
    if size is None:
        anyx = R.any(extra)
        if _is_traced(anyx):  # JAX's `if any(extra):` on a traced value
            raise_user_error(TracerBoolConversionError(
                "Attempted boolean conversion of traced array with shape bool[]."), [type_of(anyx)])
        if bool(_concrete(anyx, "")):
            raise_user_error(ShardcValueError("condition contains entries that are out of bounds"))
        result = gather_get(arr, _concrete(cond, "The error arose in compress()"))
    else:
        size = _static_size(size, "The error arose in compress()")
        if not 0 <= size <= type_of(arr).shape[0]:
            raise_user_error(ShardcValueError(
                "size must be positive and not greater than the size of the array axis; got "
                f"size={size} for a.shape[axis]={type_of(arr).shape[0]}"))
        at = type_of(arr)
        mask = reshape(cond, (type_of(cond).shape[0],) + (1,) * (at.ndim - 1))
        arr = E.where(mask, arr, E.astype(asarray(fill_value), at.dtype))
        result = gather_get(gather_get(arr, argsort(cond, stable=True, descending=True)), slice(None, size))
    return moveaxis(result, 0, axis)


@api("sc.extract")
def extract(condition, arr, *, size: int | None = None, fill_value=0):
    """`jnp.extract`: the elements of `arr` where `condition` holds, flattened."""
    return compress(ravel(_arr(condition, "extract")), ravel(_arr(arr, "extract")), size=size,
                    fill_value=fill_value)


# --- put, put_along_axis, place (indexed updates built on `.at[]`) ------------------------------------------
def _tile_to_size(arr, size: int):
    n = type_of(arr).shape[0]
    if n < size:
        arr = concatenate([arr] * int(np.ceil(size / n)))
    return gather_get(arr, slice(None, size)) if type_of(arr).shape[0] > size else arr


def _unravel(ind, shape):
    """JAX's `unravel_index` (out-of-bound flat indices clip to the first / last element)."""
    out = [None] * len(shape)
    for i, s in reversed(list(enumerate(shape))):
        ind, out[i] = E.floor_divide(ind, s), E.remainder(ind, s)
    oob_pos = E.greater(ind, 0)
    oob_neg = E.less(ind, -1) if dt.is_signed(type_of(ind).dtype) else None
    res = []
    for s, i in zip(shape, out):
        inner = i if oob_neg is None else E.where(oob_neg, 0, i)
        res.append(E.where(oob_pos, s - 1, inner))
    return tuple(res)


def _no_inplace(name: str, inplace: bool) -> None:
    if inplace:
        raise_user_error(ShardcValueError(
            f"jax.numpy.{name} cannot modify arrays in-place, because JAX arrays are immutable. Pass inplace=False "
            "to instead return an updated array."))


@api("sc.put")
def put(a, ind, v, mode: str | None = None, *, inplace: bool = True):
    """`jnp.put(..., inplace=False)`: `a` with the flat positions `ind` set to `v` (tiled)."""
    _no_inplace("put", inplace)
    arr, ind_arr = _arr(a, "put"), ravel(_arr(ind, "put"))
    v_arr = ravel(_arr(v, "put"))
    at = type_of(arr)
    if not at.size or not type_of(ind_arr).size or not type_of(v_arr).size:
        return arr
    v_arr = _tile_to_size(v_arr, type_of(ind_arr).shape[0])
    if mode is None:
        smode = "drop"
    elif mode == "clip":
        ind_arr, smode = E.clip(ind_arr, 0, at.size - 1), "promise_in_bounds"
    elif mode == "wrap":
        ind_arr, smode = E.remainder(ind_arr, at.size), "promise_in_bounds"
    elif mode == "raise":
        raise_user_error(ShardcNotImplementedError("The 'raise' mode to jnp.put is not supported."))
    else:
        raise_user_error(ShardcValueError(f"mode should be one of 'wrap' or 'clip'; got mode={mode!r}"))
    return scatter_update(arr, _unravel(ind_arr, at.shape), v_arr, "set", mode=smode)


@api("sc.put_along_axis")
def put_along_axis(arr, indices, values, axis: int | None, inplace: bool = True, *, mode: str | None = None):
    """`jnp.put_along_axis(..., inplace=False)`: `arr` with `values` set at
    `indices` along `axis` (the other dims matched)."""
    if inplace:
        raise_user_error(ShardcValueError(
            "jax.numpy.put_along_axis cannot modify arrays in-place, because JAX arraysare immutable. Pass "
            "inplace=False to instead return an updated array."))
    a, idx, vals = _arr(arr, "put_along_axis"), _arr(indices, "put_along_axis"), _arr(values, "put_along_axis")
    shape0 = type_of(a).shape
    if axis is None:
        a, ax = ravel(a), 0
    else:
        ax = axis
    at, it = type_of(a), type_of(idx)
    if at.ndim != it.ndim:
        raise_user_error(ShardcValueError(
            f"put_along_axis arguments 'arr' and 'indices' must have same ndim. Got arr.ndim={at.ndim} and "
            f"indices.ndim={it.ndim}."))
    vt = type_of(vals)
    try:
        np.broadcast_shapes(vt.shape, it.shape)
        ok = len(np.broadcast_shapes(vt.shape, it.shape)) == it.ndim and \
            np.broadcast_shapes(vt.shape, it.shape) == it.shape
    except ValueError:
        ok = False
    if not ok:
        raise_user_error(ShardcValueError(
            "put_along_axis argument 'values' must be broadcastable to 'indices'. Got "
            f"values.shape={vt.shape} and indices.shape={it.shape}."))
    vals = broadcast_to(vals, it.shape)
    ax = normalize_axis(ax, at.ndim)
    grid = [np.arange(n, dtype=np.int32).reshape((1,) * d + (n,) + (1,) * (at.ndim - d - 1))
            for d, n in enumerate(at.shape)]
    grid[ax] = idx
    result = scatter_update(a, tuple(grid), vals, "set", mode=mode)
    return reshape(result, shape0) if axis is None else result


@api("sc.place")
def place(arr, mask, vals, *, inplace: bool = True):
    """`jnp.place(..., inplace=False)`: `arr` with the masked entries taken from `vals` in order (repeated)."""
    data, m, v = _arr(arr, "place"), _arr(mask, "place"), ravel(_arr(vals, "place"))
    _no_inplace("place", inplace)
    dtt, mt = type_of(data), type_of(m)
    if dtt.size != mt.size:
        raise_user_error(ShardcValueError("place: arr and mask must be the same size"))
    if not type_of(v).size:
        raise_user_error(ShardcValueError("Cannot place values from an empty array"))
    if not dtt.size:
        return data
    ind = where(ravel(m), size=mt.size, fill_value=mt.size)[0]
    v = _tile_to_size(v, mt.size)
    return reshape(scatter_update(ravel(data), ind, v, "set", mode="drop"), dtt.shape)
