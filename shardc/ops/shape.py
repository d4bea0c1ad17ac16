"""Shape ops: reshape, transpose, broadcasting, expand/squeeze, concatenation
and basic indexing (static slices, integers, `None`, `...`, traced integers)."""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from .. import lax
from ..core import Tracer, api, bind, raise_user_error
from ..errors import ShardcNotImplementedError, ShardcValueError
from ..primitives import shape as sp
from ..sharding import PartitionSpec
from ..types import integer_dims
from ._util import as_operand, is_array, normalize_axes, normalize_axis, promote, to_spec, type_of
from .creation import asarray


def _arr(x):
    if type(x) is Tracer:
        return x
    x = as_operand(x)
    if not is_array(x):
        x = asarray(x)
    return x


def _reversed_spec(sharding):
    """`out_sharding` (a spec or NamedSharding, or None) with its partitions reversed."""
    if sharding is None:
        return None
    spec = getattr(sharding, "spec", sharding)
    rev = PartitionSpec(*tuple(spec)[::-1], unreduced=spec.unreduced, reduced=spec.reduced)
    return type(sharding)(sharding.mesh, rev) if hasattr(sharding, "spec") else rev


def _resolved_shape(shape, t) -> tuple[int, ...]:
    """`shape` with its `-1` (if any) worked out for an operand of type `t`."""
    shape = list(integer_dims(shape))
    if shape.count(-1) == 1:
        known = math.prod(s for s in shape if s != -1)
        if known and t.size % known == 0:
            shape[shape.index(-1)] = t.size // known
    return tuple(shape)


def _f_order_sharding(t, new_sizes: tuple[int, ...]) -> list:
    """JAX's sharding of `order="F"`'s one reshape (`dimensions` reversed): its rule runs on the
    operand as given (not transposed) against the reversed new sizes, keeps entries through
    size-1 dims coming and going, and refuses any sharded dim that splits or merges."""
    if [d for d in t.shape if d != 1] == [d for d in new_sizes if d != 1]:
        kept = iter([e for d, e in zip(t.shape, t.spec) if d != 1])
        return [None if d == 1 else next(kept) for d in new_sizes]
    try:
        split, groups = _split_on_one_axis(t.shape, new_sizes)
        merge = False
        if not split and len(new_sizes) < t.ndim:
            merge, groups = _split_on_one_axis(new_sizes, t.shape)
    except _NotOneAxis:
        split = merge = False
    if split:   # groups: per operand dim, its size or the list of sizes it splits into
        out: list = []
        for g, e in zip(groups, t.spec):
            if isinstance(g, list) and e is not None:
                raise_user_error(sp._reshape_error(t, new_sizes))
            out.extend([None] * len(g) if isinstance(g, list) else [e])
        return out
    if merge:   # groups: per new dim, its size or the list of operand sizes merged into it
        spec, out = iter(t.spec), []
        for g in groups:
            ents = [next(spec) for _ in g] if isinstance(g, list) else [next(spec)]
            if isinstance(g, list) and any(e is not None for e in ents):
                raise_user_error(sp._reshape_error(t, new_sizes))
            out.append(None if isinstance(g, list) else ents[0])
        return out
    raise_user_error(sp._reshape_error(t, new_sizes))


class _NotOneAxis(Exception):
    pass


def _split_on_one_axis(op_shape, new_sizes):
    """JAX's `_split_on_one_axis`, as written (`lax.py`): (True, per-operand-dim sizes) when
    exactly one operand dim splits into consecutive new dims."""
    if len(new_sizes) <= len(op_shape):
        return False, []
    orig_op_shape, op_shape, new_sizes = op_shape, tuple(op_shape), tuple(new_sizes)
    num_1s = 0
    while op_shape[-1] == 1 and new_sizes[-1] == 1:
        num_1s += 1
        op_shape, new_sizes = op_shape[:-1], new_sizes[:-1]
    i, j, count, out = 0, 0, 0, []
    while j < len(new_sizes):
        if op_shape[i] == new_sizes[j]:
            out.append(op_shape[i])
        else:
            count += 1
            if count > 1:
                raise _NotOneAxis()
            temp = [new_sizes[j]]
            next_j, next_i = j + 1, i + 1
            while math.prod(temp) != op_shape[i] or (next_j < len(new_sizes) and new_sizes[next_j] == 1):
                if math.prod(temp) > op_shape[i]:
                    return False, []
                if (math.prod(temp) == op_shape[i] and next_i < len(op_shape)
                        and new_sizes[next_j] == op_shape[next_i]):
                    break
                j += 1
                if j >= len(new_sizes):
                    return False, []
                temp.append(new_sizes[j])
                next_j += 1
            out.append(temp)
        i += 1
        j += 1
    out.extend([1] * num_1s)
    assert len(orig_op_shape) == len(out)
    return True, out


@api("sc.reshape")
def reshape(a, shape, order: str = "C", *, copy: bool | None = None, out_sharding=None):
    """Reshape; sharded splits/merges follow JAX's rule, else pass `out_sharding=`.
    `order="F"` reads and writes column-major (JAX's transpose, reshape, transpose);
    `copy` has no effect (arrays are immutable), as in JAX."""
    x = a
    if order == "F":
        x = _arr(x)
        dims = shape if np.ndim(shape) else (shape,)
        # JAX reverses the spec as written (`spec[::-1]`) for the reshape of the transpose
        out_sharding = _reversed_spec(out_sharding)
        t = type_of(x)
        if out_sharding is None and t.ndim > 1 and any(e is not None for e in t.spec) and not (
                t.unreduced or t.reduced):
            rev = tuple(reversed(_resolved_shape(dims, t)))
            out_sharding = PartitionSpec(*_f_order_sharding(t, rev))
        out = reshape(transpose(x), tuple(reversed(tuple(dims))), out_sharding=out_sharding)
        return transpose(out)
    if order == "A":
        raise_user_error(ShardcNotImplementedError("np.reshape order=A is not implemented."))
    if order != "C":
        raise_user_error(ShardcValueError(f"Unexpected value for 'order' argument: {order}."))
    x = _arr(x)
    t = type_of(x)
    if np.ndim(shape) == 0:
        shape = (shape,)
    shape = list(integer_dims(shape))   # JAX's TypeError for 2.5 (was rounded to 2)
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
def ravel(a, order: str = "C", *, out_sharding=None):
    """Flatten in `order` ("C" row-major, "F" column-major): JAX's `reshape(a, (a.size,), order)`."""
    a = a if getattr(a, "_key_ops", None) is not None else _arr(a)   # (key arrays reshape their own way)
    if order == "K":
        raise_user_error(ShardcNotImplementedError("Ravel not implemented for order='K'."))
    return reshape(a, (type_of(a).size,), order, out_sharding=out_sharding)


@api("sc.transpose")
def transpose(a, axes=None):
    """Permute the dims (reversed when `axes` is None)."""
    x = _arr(a)
    t = type_of(x)
    perm = tuple(reversed(range(t.ndim))) if axes is None else tuple(normalize_axis(a, t.ndim) for a in axes)
    if perm == tuple(range(t.ndim)):
        return x
    return bind(sp.transpose, x, permutation=perm)


@api("sc.permute_dims")
def permute_dims(a, /, axes):
    """The array API's `transpose`: `axes` is required."""
    return transpose(a, axes)


@api("sc.swapaxes")
def swapaxes(a, axis1: int, axis2: int):
    """Exchange two dims."""
    x = a
    t = type_of(x if getattr(x, "_key_ops", None) is not None else _arr(x))
    perm = list(range(t.ndim))
    a, b = normalize_axis(axis1, t.ndim), normalize_axis(axis2, t.ndim)
    perm[a], perm[b] = perm[b], perm[a]
    return transpose(x, perm)


@api("sc.moveaxis")
def moveaxis(a, source, destination):
    """Move axes `source` (an int or a sequence) to `destination`, the others in order."""
    x = a
    t = type_of(x if getattr(x, "_key_ops", None) is not None else _arr(x))
    src = (source,) if isinstance(source, (int, np.integer)) else tuple(source)
    dst = (destination,) if isinstance(destination, (int, np.integer)) else tuple(destination)
    src = tuple(normalize_axis(a, t.ndim) for a in src)
    dst = tuple(normalize_axis(a, t.ndim) for a in dst)
    if len(src) != len(dst):
        raise ShardcValueError(f"Inconsistent number of elements: {len(src)} vs {len(dst)}")
    perm = [i for i in range(t.ndim) if i not in src]
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return transpose(x, perm)


@api("sc.expand_dims")
def expand_dims(a, axis):
    """Insert size-1 dims at `axis` (positions in the result)."""
    x = _arr(a)
    t = type_of(x)
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    nd = t.ndim + len(axes)
    return lax.expand_dims(x, [normalize_axis(a, nd) for a in axes])


@api("sc.squeeze")
def squeeze(a, axis=None):
    """Remove size-1 dims (all of them when `axis` is None)."""
    x = _arr(a)
    t = type_of(x)
    dims = tuple(i for i, d in enumerate(t.shape) if d == 1) if axis is None else normalize_axes(axis, t.ndim)
    if not dims:
        return x
    return bind(sp.squeeze, x, dimensions=tuple(sorted(dims)))


@api("sc.concatenate")
def concatenate(arrays: Sequence[Any], axis: int | None = 0, dtype=None):
    """`jnp.concatenate`: promoted (or cast to `dtype`) operands joined along `axis` (raveled
    first for `axis=None`); an array operand is joined along its leading dim. Every operand must
    carry the same sharding."""
    if is_array(arrays) or isinstance(arrays, np.ndarray):
        return _concatenate_array(asarray(arrays, dtype=dtype), axis)
    if not len(arrays):
        raise ShardcValueError("Need at least one array to concatenate.")
    if axis is None:
        return concatenate([ravel(a) for a in arrays], axis=0, dtype=dtype)
    xs = [_arr(a) for a in (promote(*arrays) if dtype is None else [asarray(a, dtype=dtype) for a in arrays])]
    t = type_of(xs[0])
    if t.ndim == 0:
        raise ShardcValueError("Zero-dimensional arrays cannot be concatenated.")
    ax = normalize_axis(axis, t.ndim)
    if len(xs) == 1:
        return xs[0]
    return bind(sp.concatenate, *xs, dimension=ax)


def _concatenate_array(arr, axis: int | None):
    """JAX's `_concatenate_array`: the leading dim's slices joined, as one reshape."""
    t = type_of(arr)
    if t.ndim == 0 or t.shape[0] == 0:
        raise ShardcValueError("Need at least one array to concatenate.")
    if axis is None:
        return lax.reshape(arr, (math.prod(t.shape),))
    if t.ndim == 1:
        raise ShardcValueError("Zero-dimensional arrays cannot be concatenated.")
    axis = normalize_axis(axis, t.ndim - 1)
    shape = t.shape[1:axis + 1] + (t.shape[0] * t.shape[axis + 1],) + t.shape[axis + 2:]
    return lax.reshape(arr, shape, [*range(1, axis + 1), 0, *range(axis + 1, t.ndim)])


@api("sc.stack")
def stack(arrays: Sequence[Any], axis: int = 0, out=None, dtype=None):
    """`jnp.stack`: promoted (or cast to `dtype`) arrays of one shape along a new `axis`."""
    if not len(arrays):
        raise ShardcValueError("Need at least one array to stack.")
    if out is not None:
        raise ShardcNotImplementedError("The 'out' argument to jnp.stack is not supported.")
    if is_array(arrays) or isinstance(arrays, np.ndarray):
        arr = asarray(arrays, dtype=dtype)
        return concatenate(expand_dims(arr, normalize_axis(axis, type_of(arr).ndim) + 1), axis=axis)
    xs = promote(*arrays) if dtype is None else [asarray(a, dtype=dtype) for a in arrays]
    return lax.stack(xs, axis=axis)
