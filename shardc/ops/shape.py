"""Shape ops: reshape, transpose, broadcasting, expand/squeeze, concatenation
and basic indexing (static slices, integers, `None`, `...`, traced integers)."""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from .. import dtypes as dt
from ..core import Const, Tracer, api, bind, raise_user_error
from ..errors import ShardcTypeError, ShardcValueError
from ..primitives import shape as sp
from ..primitives import sharding_ops as so
from ..sharding import PartitionSpec
from ._util import as_operand, is_array, normalize_axes, normalize_axis, to_spec, type_of


def _arr(x):
    if type(x) is Tracer:
        return x
    x = as_operand(x)
    if not is_array(x):
        from .creation import asarray
        x = asarray(x)
    return x


@api("sc.reshape")
def reshape(x, shape, out_sharding=None):
    """Reshape; sharded splits/merges follow JAX's rule, else pass `out_sharding=`."""
    x = _arr(x)
    t = type_of(x)
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    shape = [int(s) for s in shape]
    if shape.count(-1) > 1:
        raise ShardcValueError("can only specify one unknown dimension (-1)")
    if -1 in shape:
        known = math.prod(s for s in shape if s != -1)
        if known == 0 or t.size % known:
            raise ShardcValueError(f"cannot reshape array of shape {t.shape} into shape {tuple(shape)}")
        shape[shape.index(-1)] = t.size // known
    spec = to_spec(out_sharding)
    if tuple(shape) == t.shape and spec is None:
        return x
    return bind(sp.reshape, x, new_sizes=tuple(shape), out_sharding=spec)


@api("sc.ravel")
def ravel(x, out_sharding=None):
    return reshape(x, (-1,), out_sharding=out_sharding)


@api("sc.transpose")
def transpose(x, axes=None):
    x = _arr(x)
    t = type_of(x)
    perm = tuple(reversed(range(t.ndim))) if axes is None else tuple(normalize_axis(a, t.ndim) for a in axes)
    if perm == tuple(range(t.ndim)):
        return x
    return bind(sp.transpose, x, permutation=perm)


permute_dims = transpose


@api("sc.swapaxes")
def swapaxes(x, axis1: int, axis2: int):
    t = type_of(_arr(x))
    perm = list(range(t.ndim))
    a, b = normalize_axis(axis1, t.ndim), normalize_axis(axis2, t.ndim)
    perm[a], perm[b] = perm[b], perm[a]
    return transpose(x, perm)


@api("sc.moveaxis")
def moveaxis(x, source: int, destination: int):
    t = type_of(_arr(x))
    s, d = normalize_axis(source, t.ndim), normalize_axis(destination, t.ndim)
    perm = [i for i in range(t.ndim) if i != s]
    perm.insert(d, s)
    return transpose(x, perm)


@api("sc.expand_dims")
def expand_dims(x, axis):
    x = _arr(x)
    t = type_of(x)
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    nd = t.ndim + len(axes)
    axes = sorted(normalize_axis(a, nd) for a in axes)
    shape, dims, k = [], [], 0
    for i in range(nd):
        if i in axes:
            shape.append(1)
        else:
            shape.append(t.shape[k])
            dims.append(i)
            k += 1
    return bind(sp.broadcast_in_dim, x, shape=tuple(shape), broadcast_dimensions=tuple(dims),
                out_sharding=None)


@api("sc.squeeze")
def squeeze(x, axis=None):
    x = _arr(x)
    t = type_of(x)
    dims = tuple(i for i, d in enumerate(t.shape) if d == 1) if axis is None else normalize_axes(axis, t.ndim)
    if not dims:
        return x
    return bind(sp.squeeze, x, dimensions=tuple(sorted(dims)))


@api("sc.broadcast_to")
def broadcast_to(x, shape, out_sharding=None):
    """Broadcast to `shape`; with `out_sharding`, each operand dim must be
    unsharded or already sharded as asked (JAX's check)."""
    x = as_operand(x)
    t = type_of(x)
    shape = tuple(int(s) for s in shape)
    if len(shape) < t.ndim:
        raise ShardcValueError(f"cannot broadcast {t.shape} to the lower-rank shape {shape}")
    k = len(shape) - t.ndim
    for i, d in enumerate(t.shape):
        if d not in (1, shape[k + i]):
            raise ShardcValueError(f"Incompatible shapes for broadcasting: {t.shape} and requested shape {shape}")
    spec = to_spec(out_sharding)
    if spec is not None:
        want = tuple(spec) + (None,) * (len(shape) - len(spec))
        for i, e in enumerate(t.spec):
            if e is not None and e != want[k + i]:
                raise_user_error(ShardcValueError(
                    f"Incompatible types for broadcasting: input type={t} and requested type="
                    f"{t.update(shape=shape, spec=want).str_short(short_dtypes=False)}"), [t])
    if shape == t.shape and spec is None and is_array(x):
        return x
    if not is_array(x):
        x = Const(x.value if isinstance(x, Const) else np.asarray(x, dtype=t.dtype), t.dtype, t.weak_type)
    return bind(sp.broadcast_in_dim, x, shape=shape, broadcast_dimensions=tuple(range(k, len(shape))),
                out_sharding=spec)


def _broadcast_to_sharded(x, shape: tuple[int, ...], spec) -> Any:
    """Broadcast `x` to `shape` with exactly `spec` (where's implicit reshard)."""
    t = type_of(x)
    if t.shape == shape:
        if tuple(t.spec) == tuple(spec) or not is_array(x):
            if not is_array(x):
                return bind(sp.broadcast_in_dim, x, shape=shape, broadcast_dimensions=tuple(range(len(shape))),
                            out_sharding=PartitionSpec(*spec) if not t.mesh.empty or any(spec) else None)
            return x
        return bind(so.reshard, x, spec=PartitionSpec(*spec, unreduced=t.unreduced, reduced=t.reduced),
                    mesh=t.mesh)
    k = len(shape) - t.ndim
    p = PartitionSpec(*spec) if any(e is not None for e in spec) else None
    return bind(sp.broadcast_in_dim, x, shape=shape, broadcast_dimensions=tuple(range(k, len(shape))),
                out_sharding=p)


@api("sc.concatenate")
def concatenate(arrays: Sequence[Any], axis: int = 0):
    """Join along `axis`; every operand must carry the same sharding."""
    from ._util import promote
    if not arrays:
        raise ShardcValueError("need at least one array to concatenate")
    xs = [_arr(a) for a in promote(*arrays)]
    t = type_of(xs[0])
    if t.ndim == 0:
        raise ShardcValueError("zero-dimensional arrays cannot be concatenated")
    ax = normalize_axis(axis, t.ndim)
    if len(xs) == 1:
        return xs[0]
    return bind(sp.concatenate, *xs, dimension=ax)


@api("sc.stack")
def stack(arrays: Sequence[Any], axis: int = 0):
    if not arrays:
        raise ShardcValueError("need at least one array to stack")
    t = type_of(_arr(arrays[0]))
    ax = normalize_axis(axis, t.ndim + 1)
    return concatenate([expand_dims(a, ax) for a in arrays], axis=ax)


# --- indexing ------------------------------------------------------------------------------
def getitem(x, idx):
    return _getitem(x, idx, api="[]")


@api("[]")
def _getitem(x, idx):
    """Basic indexing: ints, slices (positive step), None, Ellipsis, traced ints;
    integer arrays go to one gather (`ops/indexing.py`)."""
    x = _arr(x)
    t = type_of(x)
    if isinstance(idx, list):
        # as JAX: a non-tuple sequence is not a multi-dimensional index
        raise_user_error(ShardcTypeError(
            "Using a non-tuple sequence for multidimensional indexing is not allowed; use "
            "`arr[tuple(seq)]` or `arr[array(seq)]` instead of `arr[seq]`."), [t])
    if not isinstance(idx, tuple):
        idx = (idx,)
    from .indexing import advanced_getitem, is_advanced
    if is_advanced(idx):  # integer arrays: one gather (JAX's `_index_to_gather`)
        return advanced_getitem(x, idx)
    n_ell = sum(1 for i in idx if i is Ellipsis)
    if n_ell > 1:
        raise ShardcValueError("an index can only have a single ellipsis ('...')")
    n_real = sum(1 for i in idx if i is not None and i is not Ellipsis)
    if n_real > t.ndim:
        raise ShardcValueError(f"too many indices for array: array is {t.ndim}-dimensional, "
                               f"but {n_real} were indexed")
    full = []
    for i in idx:
        if i is Ellipsis:
            full.extend([slice(None)] * (t.ndim - n_real))
        else:
            full.append(i)
    if n_ell == 0:
        full.extend([slice(None)] * (t.ndim - n_real))
    starts, limits, strides, squeeze_dims, dyn, new_axes, rev_dims = [], [], [], [], {}, [], []
    d = 0
    out_pos = 0
    for i in full:
        if i is None:
            new_axes.append(out_pos)
            out_pos += 1
            continue
        size = t.shape[d]
        if isinstance(i, slice):
            s, e, st = i.indices(size)
            if st < 0:
                # as JAX: slice the same elements in increasing order, then reverse the dim
                new_start = min(size, e + 1 + abs(s - e - 1) % abs(st))
                starts.append(new_start); limits.append(max(new_start, s + 1)); strides.append(-st)
                rev_dims.append(d)
            else:
                starts.append(s); limits.append(max(s, e)); strides.append(st)
            out_pos += 1
        elif isinstance(i, (int, np.integer)) and not isinstance(i, bool):
            k = int(i)
            if not -size <= k < size:
                raise ShardcValueError(f"index {k} is out of bounds for axis {d} with size {size}")
            k %= size
            starts.append(k); limits.append(k + 1); strides.append(1)
            squeeze_dims.append(d)
        elif is_array(i) and type_of(i).ndim == 0 and dt.is_int(type_of(i).dtype):
            dyn[d] = i
            starts.append(0); limits.append(size); strides.append(1)
            squeeze_dims.append(d)
        else:
            raise ShardcValueError(f"unsupported index {i!r}")
        d += 1
    y = x
    if (tuple(starts), tuple(limits), tuple(strides)) != ((0,) * t.ndim, t.shape, (1,) * t.ndim):
        y = bind(sp.slice_p, y, start_indices=tuple(starts), limit_indices=tuple(limits),
                 strides=None if all(s == 1 for s in strides) else tuple(strides))
    if rev_dims:
        y = bind(sp.rev, y, dimensions=tuple(rev_dims))
    if dyn:
        from .elementwise import add, less, where
        yt = type_of(y)
        idxs, sizes = [], list(yt.shape)
        for dim in range(yt.ndim):
            if dim in dyn:
                i = dyn[dim]
                i = where(less(i, 0), add(i, yt.shape[dim]), i)
                idxs.append(i)
                sizes[dim] = 1
            else:
                idxs.append(Const(0, type_of(dyn[next(iter(dyn))]).dtype))
        y = bind(sp.dynamic_slice, y, *idxs, slice_sizes=tuple(sizes))
    if squeeze_dims:
        y = bind(sp.squeeze, y, dimensions=tuple(squeeze_dims))
    if new_axes:
        y = expand_dims(y, tuple(new_axes))
    return y
