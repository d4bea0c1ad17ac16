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

from typing import Any, Sequence

import numpy as np

from .. import dtypes as dt
from ..core import Tracer, api, bind, raise_user_error
from ..errors import ShardcError, ShardcTypeError, ShardcValueError
from ..primitives import shape as sp
from ..primitives import sort as so
from ..sharding import PartitionSpec
from ..types import ArrayType
from ._util import as_operand, is_array, normalize_axis, type_of
from .creation import asarray, full
from .elementwise import add, negative, subtract
from .indexing import scatter_update
from .shape import concatenate, ravel, swapaxes

__all__ = ["sort", "argsort", "lexsort", "partition", "argpartition", "lax_sort", "sort_key_val", "top_k"]


class ConcretizationTypeError(ShardcError, TypeError):
    """A value's size depends on traced data (JAX's `ConcretizationTypeError`)."""


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
    kth = normalize_axis(kth, t.shape[ax], "kth")
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
    kth = normalize_axis(kth, t.shape[ax], "kth")
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
