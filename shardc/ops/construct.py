"""Shapes and construction of `jax.numpy`: triangles and diagonals, splitting and stacking,
`tile`/`repeat`/`roll`/`flip`/`rot90`, `pad` (constant, edge, reflect, symmetric, wrap,
empty), ranges (`linspace`, `logspace`, `geomspace`), grids, `atleast_*d`, broadcasting
helpers, `diff`, `cumulative_sum`. Each follows `jax.numpy`'s algorithm (the same lax
ops in the same order: masks by `select`, splits by slices, rolls by slice-and-concatenate),
so the sharding rules see what JAX's see and give the same types and errors."""
from __future__ import annotations

import builtins
import math
import operator
from typing import Sequence

import jax
import numpy as np

from .. import dtypes as dt
from .. import lax
from ..core import Tracer, api, raise_user_error
from ..errors import ShardcNotImplementedError, ShardcTypeError, ShardcValueError, ShardingTypeError
from ..mesh import get_abstract_mesh
from ..sharding import NamedSharding, PartitionSpec
from ._util import as_operand, convert, is_array, normalize_axis, promote, to_spec, type_of
from .control_flow import registered_vmap
from .creation import arange, asarray, broadcast_to, full, full_like, zeros, zeros_like
from .elementwise import (
    _broadcast_to,
    astype,
    clip,
    equal,
    multiply,
    not_equal,
    remainder,
    subtract,
    true_divide,
    where,
)
from .elementwise import less as _less
from .elementwise import power as _power
from .elementwise import sign as _sign
from .indexing import take
from .math import _inexact, broadcast_arrays, isnan
from .math import divmod as _divmod
from .math import log10 as _log10
from .reductions import _cumulative, cumprod, cumsum
from .reductions import sum as _sum
from .shape import _arr, concatenate, expand_dims, moveaxis, ravel, reshape, stack, transpose
from .sharding import auto_axes

__all__ = [
    "append", "apply_along_axis", "array_split", "atleast_1d", "atleast_2d", "atleast_3d", "block", "broadcast_arrays",
    "broadcast_shapes", "can_cast", "column_stack", "concat", "copy", "cumulative_prod", "cumulative_sum",
    "choose", "diag", "diag_indices", "diag_indices_from", "diagflat", "diagonal", "diff", "dsplit", "dstack",
    "ediff1d", "empty_like", "eye", "fill_diagonal", "mgrid", "ogrid", "gradient", "ix_", "apply_over_axes",
    "trim_zeros", "flip", "fliplr", "flipud", "geomspace", "hsplit", "hstack", "identity",
    "indices", "linspace", "logspace", "matrix_transpose", "meshgrid", "nancumprod", "nancumsum",
    "ravel_multi_index", "repeat", "resize", "result_type", "roll", "rollaxis", "rot90", "split", "tile", "trace", "tri",
    "tril", "tril_indices", "tril_indices_from", "triu", "triu_indices", "triu_indices_from", "unravel_index",
    "unstack",
    "vsplit", "vstack",
]


def _canon(axis: int, ndim: int) -> int:
    return normalize_axis(operator.index(axis), ndim)


def _dtype(dtype, default) -> np.dtype:
    return dt.canonicalize(default if dtype is None else dtype)


# --- triangles and diagonals -----------------------------------------------------------------
def _tri_mask(n: int, m: int, k: int):
    """`lax._tri`: `iota0 + k >= iota1` over an (n, m) grid (replicated)."""
    i = lax.broadcasted_iota(dt.int32, (n, m), 0)
    j = lax.broadcasted_iota(dt.int32, (n, m), 1)
    return lax.ge(lax.add(i, lax.full((), int(k), dt.int32)), j)


@api("sc.tri")
def tri(N: int, M: int | None = None, k: int = 0, dtype=None):
    """Ones at and below the k-th diagonal of an (N, M) array."""
    M = N if M is None else M
    return lax.convert_element_type(_tri_mask(operator.index(N), operator.index(M), k), _dtype(dtype, dt.float32))


def _triangle(name: str, m, k: int, lower: bool):
    m = _arr(m)
    t = type_of(m)
    if t.ndim < 2:
        raise ShardcValueError(f"Argument to jax.numpy.{name} must be at least 2D")
    n_, m_ = t.shape[-2:]
    mask = _tri_mask(n_, m_, k if lower else k - 1)
    spec = None if t.mesh.empty else PartitionSpec(*t.spec)
    which = lax.broadcast(mask, t.shape[:-2], out_sharding=spec) if (t.ndim > 2 or spec is not None) else mask
    z = zeros_like(m)
    return lax.select(which, m, z) if lower else lax.select(which, z, m)


@api("sc.tril")
def tril(m, k: int = 0):
    """The lower triangle (at and below diagonal k) of the last two dims; zeros elsewhere."""
    return _triangle("tril", m, k, True)


@api("sc.triu")
def triu(m, k: int = 0):
    return _triangle("triu", m, k, False)


@api("sc.eye")
def eye(N: int, M: int | None = None, k: int = 0, dtype=None, *, device=None):
    """`(iota0 + k == iota1)` as `dtype` (float32 by default)."""
    if device is not None:
        raise ShardcValueError("sc.eye(device=...) is not supported: use sc.device_put or out_sharding")
    d = _dtype(dtype, dt.float32)
    if not isinstance(k, (int, np.integer)):
        raise ShardcValueError(f"k must be a scalar integer; got {k}")
    n = operator.index(N)
    m = n if M is None else operator.index(M)
    if n < 0 or m < 0:
        raise ShardcValueError(f"negative dimensions are not allowed, got {N} and {M}")
    i = lax.broadcasted_iota(dt.int32, (n, m), 0)
    j = lax.broadcasted_iota(dt.int32, (n, m), 1)
    return lax.convert_element_type(lax.eq(lax.add(i, lax.full((), int(k), dt.int32)), j), d)


@api("sc.identity")
def identity(n: int, dtype=None):
    return eye(n, dtype=dtype)


@api("sc.diagonal")
def diagonal(a, offset: int = 0, axis1: int = 0, axis2: int = 1):
    """The diagonal over `axis1`/`axis2` as the last dim, by one gather (`a[..., i, j]`)."""
    a = _arr(a)
    t = type_of(a)
    if t.ndim < 2:
        raise ShardcValueError("diagonal requires an array of at least two dimensions.")
    offset = operator.index(offset)
    a1, a2 = _canon(axis1, t.ndim), _canon(axis2, t.ndim)
    a = moveaxis(a, (a1, a2), (-2, -1)) if (a1, a2) != (t.ndim - 2, t.ndim - 1) else a
    size = builtins.max(0, builtins.min(t.shape[a1] + builtins.min(offset, 0), t.shape[a2] - builtins.max(offset, 0)))
    i = arange(size)
    j = arange(builtins.abs(offset), builtins.abs(offset) + size)
    return a[..., i, j] if offset >= 0 else a[..., j, i]


@api("sc.diag")
def diag(v, k: int = 0):
    """A 1-D `v` on the k-th diagonal of a square matrix, or the k-th diagonal of a 2-D `v`."""
    v = _arr(v)
    t = type_of(v)
    k = operator.index(k)
    if t.ndim == 1:
        zero = lax.full_like(v, 0, shape=())
        n = t.shape[0] + builtins.abs(k)
        v = lax.pad(v, zero, ((builtins.max(0, -k), builtins.max(0, k), 0),))
        return where(eye(n, k=k, dtype=dt.bool_), expand_dims(v, 1), zero)
    if t.ndim == 2:
        return diagonal(v, offset=k)
    raise ShardcValueError("diag input must be 1d or 2d")


@api("sc.diagflat")
def diagflat(v, k: int = 0):
    """`ravel(v)` on the k-th diagonal of a square matrix (zeros elsewhere)."""
    v = ravel(_arr(v))
    k = operator.index(k)
    tv = type_of(v)
    if get_abstract_mesh().has_explicit:
        # JAX scatters `v` into a replicated zeros array: a sharded `v` is its broadcasting error
        _broadcast_to(v, tv.shape, ((None,), frozenset(), frozenset()))
    n = tv.shape[0] + builtins.abs(k)
    vals = lax.pad(v, lax.full_like(v, 0, shape=()), ((builtins.max(0, -k), builtins.max(0, k), 0),))
    return where(eye(n, k=k, dtype=dt.bool_), expand_dims(vals, 1), zeros((), type_of(v).dtype))


@api("sc.trace")
def trace(a, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype=None, out=None):
    """Sum along a diagonal (`axis1`, `axis2`), as `jnp.trace`: mask by `eye`, then sum."""
    if out is not None:
        raise ShardcValueError("The 'out' argument to jnp.trace is not supported.")
    a = _arr(a)
    t = type_of(a)
    if _canon(axis1, t.ndim) == _canon(axis2, t.ndim):
        raise ShardcValueError(f"axis1 and axis2 can not be same. axis1={axis1} and axis2={axis2}")
    a = moveaxis(a, (axis1, axis2), (-2, -1))
    a = where(eye(t.shape[axis1], t.shape[axis2], k=offset, dtype=dt.bool_), a, zeros_like(a))
    return _sum(a, axis=(-2, -1), dtype=dtype)


def _triu_size(n: int, m: int, k: int) -> int:
    return int(np.triu_indices(n, k, m)[0].size)


def _index_pair(rows: np.ndarray, cols: np.ndarray):
    return asarray(rows.astype(np.int32)), asarray(cols.astype(np.int32))


@api("sc.tril_indices")
def tril_indices(n: int, k: int = 0, m: int | None = None):
    return _index_pair(*np.tril_indices(operator.index(n), operator.index(k), n if m is None else operator.index(m)))


@api("sc.triu_indices")
def triu_indices(n: int, k: int = 0, m: int | None = None):
    return _index_pair(*np.triu_indices(operator.index(n), operator.index(k), n if m is None else operator.index(m)))


def _shape2(name: str, arr) -> tuple[int, int]:
    s = tuple(arr.shape) if hasattr(arr, "shape") else np.shape(arr)
    if len(s) != 2:
        raise ShardcValueError("Only 2-D inputs are accepted")
    return s


@api("sc.tril_indices_from")
def tril_indices_from(arr, k: int = 0):
    n, m = _shape2("tril_indices_from", arr)
    return tril_indices(n, k=k, m=m)


@api("sc.triu_indices_from")
def triu_indices_from(arr, k: int = 0):
    n, m = _shape2("triu_indices_from", arr)
    return triu_indices(n, k=k, m=m)


@api("sc.diag_indices")
def diag_indices(n: int, ndim: int = 2):
    n, ndim = operator.index(n), operator.index(ndim)
    if n < 0:
        raise ShardcValueError(f"n argument to diag_indices must be nonnegative, got {n}")
    if ndim < 0:
        raise ShardcValueError(f"ndim argument to diag_indices must be nonnegative, got {ndim}")
    return (lax.iota(dt.int32, n),) * ndim


@api("sc.diag_indices_from")
def diag_indices_from(arr):
    s = type_of(_arr(arr)).shape
    if len(s) < 2:
        raise ShardcValueError("input array must be at least 2-d")
    if len(set(s)) != 1:
        raise ShardcValueError("All dimensions of input must be of equal length")
    return diag_indices(s[0], ndim=len(s))


# --- splitting ---------------------------------------------------------------------------------
def _split(op: str, ary, indices_or_sections, axis: int = 0) -> list:
    ary = _arr(ary)
    t = type_of(ary)
    axis = _canon(axis, t.ndim)
    size = t.shape[axis]
    if isinstance(indices_or_sections, (tuple, list)) or (
            isinstance(indices_or_sections, np.ndarray) and indices_or_sections.ndim > 0):
        bounds = np.asarray([0] + [operator.index(i) for i in indices_or_sections] + [size])
        sizes = [int(s) for s in np.diff(bounds)]
        # as NumPy: indices past the end or decreasing give empty pieces (lax.split clamps none)
        starts = np.clip(bounds[:-1], 0, size)
        stops = np.clip(np.maximum(bounds[1:], bounds[:-1]), 0, size)
        if builtins.any(s < 0 for s in sizes) or bounds[-2] > size:
            return [lax.slice_in_dim(ary, int(a), int(b), axis=axis) for a, b in zip(starts, stops)]
    else:
        if is_array(indices_or_sections):
            raise ShardcTypeError(f"in jax.numpy.{op} argument 1: the number of sections must be static")
        n = operator.index(indices_or_sections)
        part, r = builtins.divmod(size, n)
        if r == 0:
            sizes = [part] * n
        elif op == "array_split":
            sizes = [part + 1] * r + [part] * (n - r)
        else:
            raise ShardcValueError(f"array split does not result in an equal division: rest is {r}")
    return list(lax.split(ary, sizes, axis=axis))


@api("sc.split")
def split(ary, indices_or_sections, axis: int = 0) -> list:
    """Equal sections or pieces between static indices (one slice each, as `lax.split`)."""
    return _split("split", ary, indices_or_sections, axis)


@api("sc.array_split")
def array_split(ary, indices_or_sections, axis: int = 0) -> list:
    return _split("array_split", ary, indices_or_sections, axis)


def _nsplit(name: str, min_nd: int, axis_of, ary, indices_or_sections):
    a = _arr(ary)
    nd = type_of(a).ndim
    if nd < min_nd:
        raise ShardcValueError(f"{name} only works on arrays of {min_nd} or more dimensions")
    return _split("split", a, indices_or_sections, axis_of(nd))


@api("sc.hsplit")
def hsplit(ary, indices_or_sections) -> list:
    return _nsplit("hsplit", 1, lambda nd: 0 if nd == 1 else 1, ary, indices_or_sections)


@api("sc.vsplit")
def vsplit(ary, indices_or_sections) -> list:
    return _nsplit("vsplit", 2, lambda nd: 0, ary, indices_or_sections)


@api("sc.dsplit")
def dsplit(ary, indices_or_sections) -> list:
    return _nsplit("dsplit", 3, lambda nd: 2, ary, indices_or_sections)


@api("sc.unstack")
def unstack(x, /, *, axis: int = 0) -> tuple:
    """The slices along `axis`, that dim removed (`lax.unstack`: index, then squeeze)."""
    x = _arr(x)
    t = type_of(x)
    if t.ndim == 0:
        raise ShardcValueError("Unstack requires arrays with rank > 0, however a scalar array was passed.")
    axis = _canon(axis, t.ndim)
    if t.spec[axis] is not None:
        raise_user_error(ShardingTypeError(f"unstack operand cannot be sharded on the unstacking axis {axis}. "
                                           f"Got operand type={t.str_short()}"), [t])
    return tuple(lax.index_in_dim(x, i, axis, keepdims=False) for i in range(t.shape[axis]))


# --- stacking --------------------------------------------------------------------------------
def _ndmin(x, n: int):
    """`array(x, ndmin=n)`: leading size-1 dims."""
    x = _arr(x)
    k = n - type_of(x).ndim
    return lax.expand_dims(x, tuple(range(k))) if k > 0 else x


def _check_arraylike(name: str, arys: tuple) -> None:
    """JAX's `check_arraylike` of the `atleast_*d` functions: arrays and scalars, not lists or tuples."""
    for pos, v in enumerate(arys):
        if not (is_array(v) or isinstance(v, (Tracer, np.ndarray, np.generic, bool, int, float, complex))):
            raise ShardcTypeError(f"{name} requires ndarray or scalar arguments, got {type(v)} at position {pos}.")


@api("sc.atleast_1d")
def atleast_1d(*arys):
    _check_arraylike("atleast_1d", arys)
    out = [_ndmin(a, 1) for a in arys]
    return out[0] if len(out) == 1 else out


@api("sc.atleast_2d")
def atleast_2d(*arys):
    _check_arraylike("atleast_2d", arys)
    out = [_ndmin(a, 2) for a in arys]
    return out[0] if len(out) == 1 else out


def _atleast_3d(a):
    a = _arr(a)
    nd = type_of(a).ndim
    dims = {0: (0, 1, 2), 1: (0, 2), 2: (2,)}.get(nd)
    return lax.expand_dims(a, dims) if dims else a


@api("sc.atleast_3d")
def atleast_3d(*arys):
    _check_arraylike("atleast_3d", arys)
    out = [_atleast_3d(a) for a in arys]
    return out[0] if len(out) == 1 else out


def _concat(arrs, axis: int, dtype=None):
    if dtype is not None:
        arrs = [astype(a, dtype) for a in arrs]
    return concatenate(arrs, axis=axis)


def _seq(name: str, tup) -> list:
    if is_array(tup) or isinstance(tup, np.ndarray):
        a = _arr(tup)
        return [lax.index_in_dim(a, i, 0, keepdims=False) for i in range(type_of(a).shape[0])]
    return list(tup)


@api("sc.hstack")
def hstack(tup, dtype=None):
    arrs = [_ndmin(m, 1) for m in _seq("hstack", tup)]
    return _concat(arrs, 0 if type_of(arrs[0]).ndim == 1 else 1, dtype)


@api("sc.vstack")
def vstack(tup, dtype=None):
    return _concat([_ndmin(m, 2) for m in _seq("vstack", tup)], 0, dtype)


@api("sc.dstack")
def dstack(tup, dtype=None):
    return _concat([_atleast_3d(m) for m in _seq("dstack", tup)], 2, dtype)


@api("sc.column_stack")
def column_stack(tup):
    arrs = [_arr(a) for a in _seq("column_stack", tup)]
    arrs = [transpose(_ndmin(a, 2)) if type_of(a).ndim < 2 else a for a in arrs]
    return concatenate(arrs, axis=1)


@api("sc.concat")
def concat(arrays, /, *, axis: int | None = 0):
    if axis is None:
        return concatenate([ravel(a) for a in arrays], axis=0)
    return concatenate(arrays, axis=axis)


def _block_depth(x) -> int:
    return 1 + _block_depth(x[0]) if isinstance(x, list) and x else (1 if isinstance(x, list) else 0)


@api("sc.block")
def block(arrays):
    """Assemble nested lists of arrays (the innermost list joins along the last dim)."""
    depth = _block_depth(arrays)

    def rank(x):
        return builtins.max(rank(a) for a in x) if isinstance(x, list) else type_of(_arr(x)).ndim

    nd = builtins.max(rank(arrays), depth)

    def rec(x, d):
        if not isinstance(x, list):
            return _ndmin(x, nd)
        if not x:
            raise ShardcValueError("Lists cannot be empty")
        return concatenate([rec(a, d + 1) for a in x], axis=-(depth - d))

    return rec(arrays, 0) if isinstance(arrays, list) else _arr(arrays)


# --- tile, repeat, roll, flip, rot90 ---------------------------------------------------------
@api("sc.tile")
def tile(A, reps):
    A = _arr(A)
    try:
        reps_t = tuple(operator.index(r) for r in reps)
    except TypeError:
        reps_t = (operator.index(reps),)
    nd = type_of(A).ndim
    reps_t = (1,) * (nd - len(reps_t)) + reps_t
    if len(reps_t) > nd:
        A = lax.expand_dims(A, tuple(range(len(reps_t) - nd)))
    return lax.tile(A, reps_t)


def _repeat_static(arr, repeats, axis: int, total: int | None):
    """`jnp.repeat` with static `repeats`: a broadcast and reshape for a scalar, else one take
    of the indices JAX's scatter-and-cumsum builds (computed here on the host)."""
    t = type_of(arr)
    if np.ndim(repeats) == 0 and t.ndim != 0 and total is None:
        r = operator.index(repeats)
        aux = list(t.shape)
        aux.insert(axis + 1, r)
        b = lax.broadcast_in_dim(arr, aux, [i for i in range(len(aux)) if i != axis + 1])
        shape = list(t.shape)
        shape[axis] *= r
        return reshape(b, shape)
    reps = np.ravel(np.asarray(repeats))
    if t.ndim == 0:
        if reps.shape != (1,):
            raise ShardcValueError("`repeat` with a scalar parameter `a` is only implemented for scalar values "
                                   "of the parameter `repeats`.")
        return full([int(reps[0]) if total is None else total], arr)
    reps = np.broadcast_to(reps, [t.shape[axis]])
    total = int(np.sum(reps)) if total is None else int(total)
    if total == 0:
        shape = list(t.shape)
        shape[axis] = 0
        return reshape(asarray(np.zeros((0,), t.dtype)), shape)
    if t.shape[axis] == 0:
        return arr
    excl = np.roll(reps, 1)
    excl[0] = 0
    starts = np.cumsum(excl)
    ind = np.zeros(total, np.int32)
    np.add.at(ind, starts[starts < total], 1)
    gather = (np.cumsum(ind) - 1).astype(np.int32)
    return take(arr, asarray(gather), axis=axis)


def _repeat_traced(arr, repeats, axis: int, total: int):
    """Traced `repeats` with a static `total_repeat_length`: JAX's algorithm, its scatter-add
    of ones as a comparison and sum (the same integers)."""
    t = type_of(arr)
    reps = broadcast_to(ravel(astype(repeats, dt.int32)), (t.shape[axis],))
    excl = concatenate([zeros((1,), dt.int32), lax.slice_in_dim(reps, 0, t.shape[axis] - 1)], 0)
    starts = cumsum(excl)
    hits = equal(expand_dims(starts, 1), expand_dims(arange(total, dtype=dt.int32), 0))
    ind = _sum(hits, axis=0, dtype=dt.int32)
    return take(arr, subtract(cumsum(ind), 1), axis=axis)


@api("sc.repeat")
def repeat(a, repeats, axis: int | None = None, *, total_repeat_length: int | None = None, out_sharding=None):
    """Repeat elements along `axis`. On an Explicit mesh the repeated dim must be unsharded
    (else pass `out_sharding=`, as JAX asks)."""
    a = _arr(a)
    if axis is None:
        a = ravel(a)
        axis = 0
    t = type_of(a)
    axis = _canon(axis, builtins.max(t.ndim, 1)) if t.ndim else 0
    if is_array(repeats) and total_repeat_length is None:
        raise ShardcTypeError(
            "When jit-compiling jnp.repeat, the total number of repeats must be static. To fix this, either "
            "specify a static value for `repeats`, or pass a static value to `total_repeat_length`.")
    fn = (lambda x: _repeat_traced(x, repeats, axis, total_repeat_length)) if is_array(repeats) else \
        (lambda x: _repeat_static(x, repeats, axis, total_repeat_length))
    spec = to_spec(out_sharding)
    m = get_abstract_mesh()
    if spec is None and m.has_explicit and t.ndim and t.spec[axis] is not None:
        raise_user_error(ShardcValueError("Please pass sharding to `jnp.repeat` via `out_sharding` parameter."), [t])
    if spec is not None:
        # JAX's `_auto_repeat`: under `auto_axes` over the Explicit axes; with a
        # `total_repeat_length`, `repeats` is an argument of the region (not closed over)
        axes = (out_sharding.abstract_mesh if isinstance(out_sharding, NamedSharding) else m).explicit_axes
        if total_repeat_length is None:
            return auto_axes(fn, out_sharding=spec, axes=axes)(a)
        return auto_axes(lambda r, x: _repeat_traced(x, r, axis, total_repeat_length), out_sharding=spec,
                         axes=axes)(repeats, a)
    return fn(a)


@api("sc.roll")
def roll(a, shift, axis=None):
    """Rotate elements along `axis` (slice and concatenate; a traced shift: a dynamic slice of
    the array concatenated with itself)."""
    a = _arr(a)
    t = type_of(a)
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), t.shape)
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    axes = tuple(_canon(ax, t.ndim) for ax in axes)
    if is_array(shift):
        return _roll_dynamic(a, shift, axes)
    shifts = (shift,) if isinstance(shift, (int, np.integer)) else tuple(shift)
    for ax, s in zip(*np.broadcast_arrays(axes, shifts)):
        n = type_of(a).shape[ax]
        if n == 0:
            continue
        i = int(-s % n)
        a = lax.concatenate([lax.slice_in_dim(a, i, n, axis=int(ax)), lax.slice_in_dim(a, 0, i, axis=int(ax))],
                            int(ax))
    return a


def _roll_dynamic(a, shift, axes):
    st = type_of(shift)
    if st.ndim > 1 or (st.ndim == 1 and len(axes) not in (1, st.shape[0])):
        raise ShardcValueError("'shift' and 'axis' arguments to roll must be scalars or 1D arrays")
    n = builtins.max(st.shape[0] if st.ndim else 1, len(axes))
    shifts = [lax.index_in_dim(shift, k if st.shape[0] > 1 else 0, keepdims=False) for k in range(n)] \
        if st.ndim else [shift] * n
    axes = list(axes) * n if len(axes) == 1 else list(axes)
    for x, i in zip(shifts, axes):
        size = type_of(a).shape[i]
        x = remainder(lax.convert_element_type(x, dt.int32), builtins.max(size, 1))
        both = lax.concatenate((a, a), i)
        a = lax.dynamic_slice_in_dim(both, lax.sub(lax.full((), size, dt.int32), x), size, axis=i)
    return a


@api("sc.flip")
def flip(m, axis=None):
    m = _arr(m)
    nd = type_of(m).ndim
    if axis is None:
        return lax.rev(m, list(range(nd)))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    return lax.rev(m, [_canon(ax, nd) for ax in axes])


@api("sc.fliplr")
def fliplr(m):
    m = _arr(m)
    if type_of(m).ndim < 2:
        raise ShardcValueError("fliplr requires an array of at least two dimensions, got "
                               f"{type_of(m).ndim}")
    return flip(m, 1)


@api("sc.flipud")
def flipud(m):
    m = _arr(m)
    if type_of(m).ndim < 1:
        raise ShardcValueError("flipud requires an array of at least one dimension, got 0")
    return flip(m, 0)


@api("sc.rot90")
def rot90(m, k: int = 1, axes: tuple[int, int] = (0, 1)):
    m = _arr(m)
    nd = type_of(m).ndim
    if nd < 2:
        raise ShardcValueError(f"rot90 requires its first argument to have ndim at least two, but got first "
                               f"argument of shape {type_of(m).shape}, which has ndim {nd}")
    ax1, ax2 = _canon(axes[0], nd), _canon(axes[1], nd)
    if ax1 == ax2:
        raise ShardcValueError("Axes must be different")
    k = k % 4
    if k == 0:
        return m
    if k == 2:
        return flip(flip(m, ax1), ax2)
    perm = list(range(nd))
    perm[ax1], perm[ax2] = perm[ax2], perm[ax1]
    return transpose(flip(m, ax2), perm) if k == 1 else flip(transpose(m, perm), ax2)


@api("sc.rollaxis")
def rollaxis(a, axis: int, start: int = 0):
    a = _arr(a)
    nd = type_of(a).ndim
    axis = _canon(axis, nd)
    start = operator.index(start)
    if not -nd <= start <= nd:
        raise ShardcValueError(f"start={start!r} must satisfy {-nd}<=start<={nd}")
    if start < 0:
        start += nd
    if start > axis:
        start -= 1
    return moveaxis(a, axis, start)


@api("sc.matrix_transpose")
def matrix_transpose(x, /):
    x = _arr(x)
    nd = type_of(x).ndim
    if nd < 2:
        raise ShardcValueError(f"x must be at least two-dimensional for matrix_transpose; got ndim={nd!r}")
    return lax.transpose(x, (*range(nd - 2), nd - 1, nd - 2))


# --- apply_along_axis -----------------------------------------------------------------------
def apply_along_axis(func1d, axis: int, arr, *args, **kwargs):
    """`func1d` applied to the 1-D slices along `axis` (nested `vmap`s, as `jnp.apply_along_axis`;
    not an `api`: errors inside name the user's ops in `func1d`)."""
    arr = _arr(arr)
    nd = type_of(arr).ndim
    axis = normalize_axis(axis, nd)
    vmap = registered_vmap()

    def func(a):
        return func1d(a, *args, **kwargs)

    for i in range(1, nd - axis):
        func = vmap(func, in_axes=i, out_axes=-1)
    for _ in range(axis):
        func = vmap(func, in_axes=0, out_axes=0)
    return func(arr)


# --- ranges and grids ------------------------------------------------------------------------
def _inexact_dtype(*xs) -> np.dtype:
    d = dt.result_type(*[(type_of(as_operand(x)).dtype, type_of(as_operand(x)).weak_type) for x in xs])[0]
    return d if dt.is_float(d) else dt.float32


@api("sc.linspace")
def linspace(start, stop, num: int = 50, endpoint: bool = True, retstep: bool = False, dtype=None, axis: int = 0,
             *, device=None):
    """`num` evenly spaced values from `start` to `stop` (`start * (1 - s) + stop * s`, as JAX)."""
    num = operator.index(num)
    axis = operator.index(axis)
    if num < 0:
        raise ShardcValueError(f"Number of samples, {num}, must be non-negative.")
    if device is not None:
        raise ShardcValueError("sc.linspace(device=...) is not supported: use sc.device_put")
    d = _inexact_dtype(start, stop) if dtype is None else dt.canonicalize(dtype)
    cd = d if dt.is_float(d) else dt.float32
    start, stop = astype(_arr(start), cd), astype(_arr(stop), cd)
    bshape = list(np.broadcast_shapes(type_of(start).shape, type_of(stop).shape))
    bstart, bstop = _broadcast_pair(start, stop, tuple(bshape))
    axis = len(bshape) + axis + 1 if axis < 0 else axis
    bounds = list(bshape)
    bounds.insert(axis, 1)
    div = num - 1 if endpoint else num
    if num > 1:
        delta = lax.div(subtract(stop, start), asarray(div, dtype=cd))
        ishape = [1] * len(bounds)
        ishape[axis] = div
        step = lax.div(reshape(lax.iota(cd, div), ishape), asarray(div, dtype=cd))
        out = (multiply(reshape(bstart, bounds), subtract(1, step))
               + multiply(reshape(bstop, bounds), step))
        if endpoint:
            out = lax.concatenate([out, lax.expand_dims(bstop, (axis,))], normalize_axis(axis, type_of(out).ndim))
    elif num == 1:
        delta = asarray(np.nan, dtype=cd) if endpoint else subtract(stop, start)
        out = reshape(bstart, bounds)
    else:
        eshape = list(bshape)
        eshape.insert(axis, 0)
        delta = full((), np.nan, cd)
        out = zeros(eshape, d)
    if dt.is_int(d) and not dt.is_int(type_of(out).dtype):
        out = lax.floor(out)
    result = lax.convert_element_type(out, d)
    return (result, delta) if retstep else result


def _broadcast_pair(a, b, shape):
    """`util._broadcast_to(start / stop, bounds_shape)`: no sharding is asked for (a bound that
    changes shape comes out replicated)."""
    return _broadcast_to(a, shape, None), _broadcast_to(b, shape, None)


@api("sc.logspace")
def logspace(start, stop, num: int = 50, endpoint: bool = True, base=10.0, dtype=None, axis: int = 0):
    d = _inexact_dtype(start, stop) if dtype is None else dt.canonicalize(dtype)
    cd = d if dt.is_float(d) else dt.float32
    start, stop = astype(_arr(start), cd), astype(_arr(stop), cd)
    lin = linspace(start, stop, num, endpoint=endpoint, retstep=False, dtype=None, axis=axis)
    return lax.convert_element_type(_power(base, lin), d)


@api("sc.geomspace")
def geomspace(start, stop, num: int = 50, endpoint: bool = True, dtype=None, axis: int = 0):
    d = _inexact_dtype(start, stop) if dtype is None else dt.canonicalize(dtype)
    cd = d if dt.is_float(d) else dt.float32
    start, stop = astype(_arr(start), cd), astype(_arr(stop), cd)
    s = _sign(start)
    res = multiply(s, logspace(_log10(start / s), _log10(stop / s), num, endpoint=endpoint, base=10.0,
                               dtype=cd, axis=0))
    axis = normalize_axis(axis, type_of(res).ndim)
    if axis != 0:
        res = lax.transpose(res, (*range(1, axis + 1), 0, *range(axis + 1, type_of(res).ndim)))
    return lax.convert_element_type(res, d)


@api("sc.meshgrid")
def meshgrid(*xi, copy: bool = True, sparse: bool = False, indexing: str = "xy") -> list:
    args = [_arr(a) for a in xi]
    if not copy:
        raise ShardcValueError("jax.numpy.meshgrid only supports copy=True")
    if indexing not in ("xy", "ij"):
        raise ShardcValueError(f"Valid values for indexing are 'xy' and 'ij', got {indexing}")
    if builtins.any(type_of(a).ndim != 1 for a in args):
        raise ShardcValueError(f"Arguments to jax.numpy.meshgrid must be 1D, got shapes "
                               f"{[type_of(a).shape for a in args]}")
    if indexing == "xy" and len(args) >= 2:
        args[0], args[1] = args[1], args[0]
    shape = [1 if sparse else type_of(a).shape[0] for a in args]

    def a_shape(i, a):
        return [*shape[:i], type_of(a).shape[0], *shape[i + 1:]] if sparse else shape

    out = [lax.broadcast_in_dim(a, a_shape(i, a), (i,)) for i, a in enumerate(args)]
    if indexing == "xy" and len(args) >= 2:
        out[0], out[1] = out[1], out[0]
    return out


@api("sc.indices")
def indices(dimensions: Sequence[int], dtype=None, sparse: bool = False):
    d = _dtype(dtype, dt.int32)
    dims = tuple(operator.index(x) for x in dimensions)
    n = len(dims)
    out = []
    s = dims
    for i, dim in enumerate(dims):
        idx = lax.iota(d, dim)
        if sparse:
            s = (1,) * i + (dim,) + (1,) * (n - i - 1)
        out.append(lax.broadcast_in_dim(idx, s, (i,)))
    if sparse:
        return tuple(out)
    return stack(out, 0) if out else asarray(np.zeros((0,), d))


# --- broadcasting and types ------------------------------------------------------------------
def broadcast_shapes(*shapes) -> tuple[int, ...]:
    """The broadcast of shapes (ints are rank-1 shapes), as `jnp.broadcast_shapes`."""
    if not shapes:
        return ()
    shapes = [(s,) if np.ndim(s) == 0 else tuple(s) for s in shapes]
    try:
        return tuple(int(d) for d in np.broadcast_shapes(*shapes))
    except ValueError:
        raise ShardcValueError(f"Incompatible shapes for broadcasting: shapes={list(shapes)}") from None


# not in `__all__`: `shardc.ops.shape` is a module; `shardc.numpy.shape` is this function
def shape(a) -> tuple[int, ...]:
    """`jnp.shape`: the shape of an array, traced value or array-like."""
    return type_of(a).shape if (is_array(a) or isinstance(a, Tracer)) else np.shape(a)


def result_type(*args):
    """JAX's promotion of arrays, dtypes and Python scalars (weak types included)."""
    import jax.numpy as jnp  # late: JAX's own lattice, on dtype descriptions only
    conv = [_WeakAval(type_of(a).dtype) if is_array(a) and type_of(a).weak_type
            else np.dtype(type_of(a).dtype) if is_array(a) else a for a in args]
    with jax.numpy_dtype_promotion(dt.PROMOTION_FLAGS["dtype"]):   # shardc's flag, on JAX's lattice
        try:
            return jnp.result_type(*conv)
        except jax.dtypes.TypePromotionError as e:
            raise dt.TypePromotionError(str(e)) from None


def promote_types(a, b) -> np.dtype:
    """`jnp.promote_types`: JAX's own, on the lattice `sc.numpy_dtype_promotion` selects
    (`jax.numpy` re-exports it from shardc.numpy, not from `sc.ops`)."""
    with jax.numpy_dtype_promotion(dt.PROMOTION_FLAGS["dtype"]):
        try:
            return jax.numpy.promote_types(a, b)
        except jax.dtypes.TypePromotionError as e:
            raise dt.TypePromotionError(str(e)) from None


class _WeakAval:
    """A weakly typed array as `jnp.result_type` reads one (its `dtype` and `aval.weak_type`)."""

    def __init__(self, dtype: np.dtype):
        self.dtype = np.dtype(dtype)
        self.aval = jax.core.ShapedArray((), self.dtype, weak_type=True)


def can_cast(from_, to, casting: str = "safe") -> bool:
    import jax.numpy as jnp  # late: JAX's own casting table, on dtype descriptions only
    return jnp.can_cast(type_of(from_).dtype if is_array(from_) else from_, to, casting)


@api("sc.empty_like")
def empty_like(prototype, dtype=None, shape=None, *, device=None):
    if device is not None:
        raise ShardcValueError("sc.empty_like(device=...) is not supported: use out_sharding or sc.device_put")
    return full_like(prototype, 0, dtype, shape)


@api("sc.copy")
def copy(a, order: str | None = None):
    """A copy: arrays are immutable, so `a` itself as an array (as `jnp.copy` returns a value)."""
    return _arr(a)


@api("sc.resize")
def resize(a, new_shape):
    new_shape = (new_shape,) if isinstance(new_shape, (int, np.integer)) else tuple(new_shape)
    if builtins.any(d < 0 for d in new_shape):
        raise ShardcValueError("all elements of `new_shape` must be non-negative")
    arr = ravel(_arr(a))
    new_size = math.prod(new_shape)
    size = type_of(arr).size
    if size == 0 or new_size == 0:
        return zeros_like(arr, shape=new_shape)
    reps = -(-new_size // size)
    arr = tile(arr, reps)[:new_size]
    return reshape(arr, new_shape)


@api("sc.append")
def append(arr, values, axis: int | None = None):
    if axis is None:
        return concatenate([ravel(_arr(arr)), ravel(_arr(values))], 0)
    return concatenate([arr, values], axis=axis)


# --- differences and cumulative ops ----------------------------------------------------------
@api("sc.diff")
def diff(a, n: int = 1, axis: int = -1, prepend=None, append=None):
    arr = _arr(a)
    n = operator.index(n)
    if n == 0:
        return arr
    if n < 0:
        raise ShardcValueError(f"order must be non-negative but got {n}")
    t = type_of(arr)
    if t.ndim == 0:
        raise ShardcValueError(f"diff requires input that is at least one dimensional; got {a}")
    axis = _canon(axis, t.ndim)
    parts = []
    for extra, first in ((prepend, True), (append, False)):
        if extra is None:
            continue
        e = _arr(extra)
        if type_of(e).ndim == 0:
            s = list(t.shape)
            s[axis] = 1
            e = broadcast_to(e, tuple(s))
        parts.append((first, e))
    combined = [e for f, e in parts if f] + [arr] + [e for f, e in parts if not f]
    if len(combined) > 1:
        arr = concatenate(combined, axis)
    nd = t.ndim
    s1 = tuple(builtins.slice(1, None) if i == axis else builtins.slice(None) for i in range(nd))
    s2 = tuple(builtins.slice(None, -1) if i == axis else builtins.slice(None) for i in range(nd))
    for _ in range(n):
        arr = not_equal(arr[s1], arr[s2]) if type_of(arr).dtype == dt.bool_ else subtract(arr[s1], arr[s2])
    return arr


@api("sc.ediff1d")
def ediff1d(ary, to_end=None, to_begin=None):
    arr = ravel(_arr(ary))
    result = lax.sub(arr[1:], arr[:-1])
    d = type_of(arr).dtype
    if to_begin is not None:
        result = concatenate((ravel(astype(_arr(to_begin), d)), result))
    if to_end is not None:
        result = concatenate((result, ravel(astype(_arr(to_end), d))))
    return result


def _cumulative_api(kind: str, name: str, x, axis, dtype, include_initial: bool):
    x = _arr(x)
    t = type_of(x)
    if t.ndim == 0:
        raise ShardcValueError(f"The input must be non-scalar to take a cumulative {kind}, however a scalar value "
                               "or scalar array was given.")
    if axis is None:
        axis = 0
        if t.ndim > 1:
            raise ShardcValueError(f"The input array has rank {t.ndim}, however axis was not set to an explicit "
                                   "value. The axis argument is only optional for one-dimensional arrays.")
    axis = _canon(axis, t.ndim)
    out = _cumulative("sum" if kind == "sum" else "prod", name, x, axis, dtype)
    if include_initial:
        s = list(t.shape)
        s[axis] = 1
        out = lax.concatenate([lax.full(s, 0 if kind == "sum" else 1, type_of(out).dtype), out], axis)
    return out


@api("sc.cumulative_sum")
def cumulative_sum(x, /, *, axis: int | None = None, dtype=None, include_initial: bool = False):
    return _cumulative_api("sum", "cumulative_sum", x, axis, dtype, include_initial)


@api("sc.cumulative_prod")
def cumulative_prod(x, /, *, axis: int | None = None, dtype=None, include_initial: bool = False):
    return _cumulative_api("product", "cumulative_prod", x, axis, dtype, include_initial)


def _nan_fill(a, value):
    a = _arr(a)
    if not dt.is_float(type_of(a).dtype):
        return a
    return where(isnan(a), lax.full((), value, type_of(a).dtype), a)


@api("sc.nancumsum")
def nancumsum(a, axis=None, dtype=None, out=None):
    """`cumsum` with NaNs counted as zero."""
    if out is not None:
        raise ShardcValueError("The 'out' argument to jnp.nancumsum is not supported.")
    return cumsum(_nan_fill(a, 0), axis, dtype)


@api("sc.nancumprod")
def nancumprod(a, axis=None, dtype=None, out=None):
    if out is not None:
        raise ShardcValueError("The 'out' argument to jnp.nancumprod is not supported.")
    return cumprod(_nan_fill(a, 1), axis, dtype)


# --- index arithmetic and choosing -----------------------------------------------------------
@api("sc.unravel_index")
def unravel_index(indices, shape) -> tuple:
    """Flat indices as a tuple of coordinate arrays for `shape` (clamped as JAX's)."""
    idx = _arr(indices)
    try:
        shape = list(shape)
    except TypeError:
        shape = [shape]
    if builtins.any(np.ndim(s) != 0 for s in shape):
        raise ShardcValueError("unravel_index: shape should be a scalar or 1D sequence.")
    out: list = [0] * len(shape)
    for i, s in reversed(list(enumerate(shape))):
        idx, out[i] = _divmod(idx, s)
    oob_pos = lax.gt(idx, lax.full((), 0, type_of(idx).dtype)) if type_of(idx).dtype != dt.bool_ else idx
    unsigned = dt.is_int(type_of(idx).dtype) and not dt.is_signed(type_of(idx).dtype)
    oob_neg = asarray(np.asarray(False)) if unsigned else _less(idx, -1)
    return tuple(where(oob_pos, s - 1, where(oob_neg, 0, i)) for s, i in zip(shape, out))


@api("sc.ravel_multi_index")
def ravel_multi_index(multi_index, dims, mode: str = "raise", order: str = "C", *, dtype=None):
    """Coordinate arrays as flat indices into `dims` (`mode` 'clip', 'wrap', 'ignore'; 'raise'
    checks concrete indices, as JAX: inside a program it cannot)."""
    if len(multi_index) != len(dims):
        raise ShardcValueError(f"len(multi_index)={len(multi_index)} != len(dims)={len(dims)}")
    dims = tuple(operator.index(d) for d in dims)
    arrs = [_arr(i) for i in multi_index]
    d = dt.result_type(*[(dt.int32, True)] + [(type_of(a).dtype, type_of(a).weak_type) for a in arrs])[0] \
        if dtype is None else dt.canonicalize(dtype)
    if not dt.is_int(d):
        raise ShardcValueError(f"dtype={d!r} is not an integer type.")
    for a in arrs:
        if not dt.is_int(type_of(a).dtype):
            raise ShardcTypeError("only int indices permitted")
    if mode == "raise":
        if builtins.any(isinstance(a, Tracer) for a in arrs):
            raise ShardcTypeError("Abstract tracer value encountered where concrete value is expected: the "
                                  "error occurred because ravel_multi_index was jit-compiled with mode='raise'. "
                                  "Use mode='wrap' or mode='clip' instead.")
        if builtins.any(bool(np.any((np.asarray(a) < 0) | (np.asarray(a) >= n))) for a, n in zip(arrs, dims)):
            raise ShardcValueError("invalid entry in coordinates array")
    elif mode == "clip":
        arrs = [clip(a, 0, n - 1) for a, n in zip(arrs, dims)]
    elif mode == "wrap":
        arrs = [remainder(a, n) for a, n in zip(arrs, dims)]
    elif mode != "ignore":
        raise ShardcValueError(f"invalid mode={mode!r}. Expected 'raise', 'wrap', 'clip', or 'ignore'.")
    if order == "F":
        strides = np.cumprod((1,) + dims[:-1])
    elif order == "C":
        strides = np.cumprod((1,) + dims[1:][::-1])[::-1]
    else:
        raise ShardcValueError(f"invalid order={order!r}. Expected 'C' or 'F'")
    result = asarray(np.asarray(0, d))
    for a, s in zip(arrs, strides):
        result = result + multiply(astype(a, d), int(s))
    return result


@api("sc.choose")
def choose(a, choices, out=None, mode: str = "raise"):
    """`choices[a]` elementwise (`mode` 'wrap', 'clip'; 'raise' checks a concrete `a`)."""
    if out is not None:
        raise ShardcValueError("The 'out' argument to jnp.choose is not supported.")
    a = _arr(a)
    choices = [_arr(c) for c in (choices if isinstance(choices, (list, tuple)) else _seq("choose", choices))]
    if not dt.is_int(type_of(a).dtype):
        raise ShardcValueError("`a` array must be integer typed")
    n = len(choices)
    if mode == "raise":
        if isinstance(a, Tracer):
            raise ShardcTypeError("Abstract tracer value encountered where concrete value is expected: the error "
                                  "occurred because jnp.choose was jit-compiled with mode='raise'. Use mode='wrap' "
                                  "or mode='clip' instead.")
        if bool(np.any((np.asarray(a) < 0) | (np.asarray(a) >= n))):
            raise ShardcValueError("invalid entry in choice array")
        arr = a
    elif mode == "wrap":
        arr = remainder(a, n)
    elif mode == "clip":
        arr = clip(a, 0, n - 1)
    else:
        raise ShardcValueError(f"mode={mode!r} not understood. Must be 'raise', 'wrap', or 'clip'")
    arr, *choices = broadcast_arrays(arr, *choices)
    stacked = stack(choices)   # `jnp.array(choices)`: a strong array
    stacked = convert(stacked, type_of(stacked).dtype, False) if type_of(stacked).weak_type else stacked
    return stacked[(arr,) + indices(type_of(arr).shape, sparse=True)]


@api("sc.fill_diagonal")
def fill_diagonal(a, val, wrap: bool = False, *, inplace: bool = True):
    """`a` with its main diagonal set to `val` (a new array: `inplace=False` is required, as JAX)."""
    if inplace:
        raise ShardcNotImplementedError("JAX arrays are immutable, must use inplace=False")
    if wrap:
        raise ShardcNotImplementedError("wrap=True is not implemented, must use wrap=False")
    a, val = _arr(a), _arr(val)
    t = type_of(a)
    if t.ndim < 2:
        raise ShardcValueError("array must be at least 2-d")
    if t.ndim > 2 and not builtins.all(n == t.shape[0] for n in t.shape[1:]):
        raise ShardcValueError("All dimensions of input must be of equal length")
    n = builtins.min(t.shape)
    idx = diag_indices(n, t.ndim)
    if type_of(val).ndim:
        v = ravel(val)
        if type_of(v).size < n:
            v = tile(v, -(-n // type_of(v).size))
        val = v[:n] if type_of(v).size > n else v
    return a.at[idx].set(val)


def _grid_1d(s, op_name: str):
    start = s.start or 0
    stop = s.stop
    step = s.step or 1
    if builtins.any(is_array(v) for v in (start, stop, step)):
        raise ShardcTypeError(f"slice bounds of jnp.{op_name} must be static")
    if np.iscomplex(step):
        return linspace(start, stop, int(builtins.abs(step)))
    return arange(start, stop, step)


class _Grid:
    """`jnp.mgrid` / `jnp.ogrid`: `[start:stop:step, ...]` as dense (mgrid) or open (ogrid) grids
    (an imaginary step is a number of points, as `linspace`)."""

    def __init__(self, sparse: bool):
        self.sparse = sparse

    def __getitem__(self, key):
        name = "ogrid" if self.sparse else "mgrid"
        if isinstance(key, builtins.slice):
            return _grid_1d(key, name)
        out = promote(*[_grid_1d(k, name) for k in key])
        out = meshgrid(*[_arr(o) for o in out], indexing="ij", sparse=self.sparse)
        if self.sparse:
            return out
        return stack(out, 0) if out else arange(0)


mgrid = _Grid(False)
ogrid = _Grid(True)


@api("sc.gradient")
def gradient(f, *varargs, axis=None, edge_order=None):
    """Central differences inside, one-sided at the edges (`jnp.gradient`), along each axis."""
    if edge_order is not None:
        raise ShardcNotImplementedError("The 'edge_order' argument to jnp.gradient is not supported.")
    a, *spacing = _inexact(f, *varargs)

    def along(a, h, ax):
        def sl(x, lo, hi):
            return lax.slice_in_dim(x, lo, hi, axis=ax)
        upper = subtract(sl(a, 1, 2), sl(a, 0, 1))
        lower = subtract(sl(a, -1, None), sl(a, -2, -1))
        if type_of(h).ndim == 0:
            inner = true_divide(multiply(subtract(sl(a, 2, None), sl(a, None, -2)), 0.5), h)
            lower, upper = true_divide(lower, h), true_divide(upper, h)
        elif type_of(h).ndim == 1:
            if type_of(h).shape[0] != type_of(a).shape[ax]:
                raise ShardcValueError("Spacing arrays must have the same length as the dimension along which the "
                                       "gradient is calculated.")
            hs = [1] * type_of(a).ndim
            hs[ax] = type_of(h).shape[0]
            h = reshape(h, hs)
            upper = true_divide(upper, subtract(sl(h, 1, 2), sl(h, 0, 1)))
            lower = true_divide(lower, subtract(sl(h, -1, None), sl(h, -2, -1)))
            dx1 = subtract(sl(h, 1, -1), sl(h, 0, -2))
            dx2 = subtract(sl(h, 2, None), sl(h, 1, -1))
            ca = true_divide(-dx2, multiply(dx1, dx1 + dx2))
            cb = true_divide(subtract(dx2, dx1), multiply(dx1, dx2))
            cc = true_divide(dx1, multiply(dx2, dx1 + dx2))
            inner = multiply(ca, sl(a, 0, -2)) + multiply(cb, sl(a, 1, -1)) + multiply(cc, sl(a, 2, None))
        else:
            raise ShardcValueError("Spacing arrays must be 1D arrays or scalars.")
        return concatenate((upper, inner, lower), axis=ax)

    nd = type_of(a).ndim
    axes = tuple(range(nd)) if axis is None else tuple(
        _canon(i, nd) for i in ((axis,) if isinstance(axis, (int, np.integer)) else axis))
    if not axes:
        return []
    if builtins.min(type_of(a).shape[i] for i in axes) < 2:
        raise ShardcValueError("Shape of array too small to calculate a numerical gradient, at least 2 elements "
                               "are required.")
    if not spacing:
        dx = [asarray(np.float32(1.0))] * len(axes)
    elif len(spacing) == 1:
        dx = list(spacing) * len(axes)
    elif len(spacing) == len(axes):
        dx = list(spacing)
    else:
        raise ShardcTypeError(f"Invalid number of spacing arguments {len(spacing)} for axis={axis!r}")
    grads = [along(a, h, ax) for ax, h in zip(axes, dx)]
    return grads[0] if len(axes) == 1 else grads


@api("sc.ix_")
def ix_(*args) -> tuple:
    """Open-mesh index arrays from 1-D sequences (each broadcast along its own dim)."""
    n = len(args)
    out = []
    for i, a in enumerate(args):
        a = _arr(a)
        t = type_of(a)
        if t.ndim != 1:
            raise ShardcValueError(f"Arguments to jax.numpy.ix_ must be 1-dimensional, got shape {t.shape}")
        if t.dtype == dt.bool_:
            raise ShardcNotImplementedError("Boolean arguments to jax.numpy.ix_ are not supported")
        shape = [1] * n
        shape[i] = t.shape[0]
        out.append(lax.full(shape, np.zeros((), t.dtype)[()], t.dtype) if t.size == 0
                   else lax.broadcast_in_dim(a, shape, (i,)))
    return tuple(out)


@api("sc.apply_over_axes")
def apply_over_axes(func, a, axes):
    """`func(a, axis)` over each axis in turn, keeping the rank (a reduced dim comes back as size 1)."""
    a = _arr(a)
    for axis in axes:
        b = _arr(func(a, axis))
        if type_of(b).ndim == type_of(a).ndim:
            a = b
        elif type_of(b).ndim == type_of(a).ndim - 1:
            a = expand_dims(b, axis)
        else:
            raise ShardcValueError("function is not returning an array of the correct shape")
    return a


@api("sc.trim_zeros")
def trim_zeros(filt, trim: str = "fb", axis=None):
    """Leading/trailing zeros cut from a concrete array (its result's shape depends on the values:
    inside a program JAX cannot either)."""
    filt = _arr(filt)
    if isinstance(filt, Tracer):
        raise ShardcTypeError("Abstract tracer value encountered where concrete value is expected: Error arose "
                              "in the `filt` argument of trim_zeros()")
    t = type_of(filt)
    axes = set(range(t.ndim)) if axis is None else {
        _canon(a, t.ndim) for a in ((axis,) if isinstance(axis, (int, np.integer)) else axis)}
    if not axes or ("f" not in trim.lower() and "b" not in trim.lower()):
        return filt
    host = np.asarray(filt)

    def cut(ax):
        if ax not in axes:
            return builtins.slice(None)
        mask = host.any(axis=tuple(i for i in range(host.ndim) if i != ax))
        if not mask.any():
            return builtins.slice(0, 0)
        start = int(mask.argmax()) if "f" in trim.lower() else None
        stop = host.shape[ax] - int(mask[::-1].argmax()) if "b" in trim.lower() else None
        return builtins.slice(start, stop)

    return filt[tuple(cut(ax) for ax in range(t.ndim))]
