"""Gather-based indexing (JAX rules §2.12): `take`, `take_along_axis`,
`one_hot`, and integer-array indexing `x[idx]`, `x[:, idx]`, `x[i, j]`.

Each is written the way `jax.numpy` writes it (same index normalization, same
gather dimension numbers), so the gather's sharding rule sees the same
operands and gives the same types and errors. When the rule cannot infer the
result's sharding (an indexed dim is sharded, the indices are sharded), pass
`out_sharding=` to `sc.take`: the result gets that sharding and XLA moves the
data (JAX's `.at[...].get(out_sharding=)`).
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .. import dtypes as dt
from ..core import Const, Trace, Tracer, api, bind, current_trace, raise_user_error, stage_eagerly, tracing, user_code
from ..errors import (
    NonConcreteBooleanIndexError,
    ShardcError,
    ShardcNotImplementedError,
    ShardcTypeError,
    ShardcValueError,
    ShardingTypeError,
)
from ..ir import Program
from ..mesh import get_abstract_mesh
from ..primitives import gather as gp
from ..primitives import shape as sp
from ..sharding import PartitionSpec
from ..types import ArrayType
from ._util import as_operand, convert, is_array, normalize_axis, promote, to_spec, type_of
from .creation import asarray, broadcast_to, full, ones_like, zeros
from .elementwise import add, astype, divide, equal, less, power, remainder, where
from .shape import _arr, expand_dims, ravel, reshape
from .sharding import auto_axes, reshard


def _array(x, what: str):
    x = as_operand(x)
    if not is_array(x):
        x = asarray(x)
    return x


def _index_operand(indices, what: str):
    """Indices as an array or a host constant (NumPy), checked to be integers."""
    indices = as_operand(indices)
    if is_array(indices):
        d = type_of(indices).dtype
    else:
        indices = np.asarray(indices.value if isinstance(indices, Const) else indices)
        if indices.dtype == object:
            raise_user_error(ShardcTypeError(f"{what} indices must be integers, got {indices!r}"))
        if indices.size == 0 and indices.dtype.kind == "f":
            indices = indices.astype(np.int32)  # `[]` is float in NumPy
        indices = indices.astype(dt.canonicalize(indices.dtype))
        d = indices.dtype
    if not dt.is_int(d):
        if what == "take_along_axis":
            raise_user_error(ShardcTypeError(f"{what} indices must be of integer type, got {np.dtype(d).name}"))
        raise_user_error(ShardcValueError("indices must have an integer type"))     # (JAX's words and class)
    return indices


def _wrap_negative(indices, size: int):
    """`where(i < 0, i + size, i)` (unsigned indices pass), on arrays or constants."""
    if is_array(indices):
        if not dt.is_signed(type_of(indices).dtype):
            return indices
        return where(less(indices, 0), add(indices, size), indices)
    if not dt.is_signed(indices.dtype):
        return indices
    return np.where(indices < 0, indices + indices.dtype.type(size), indices).astype(indices.dtype)


def _expand_last(indices):
    """`indices[..., None]`."""
    if is_array(indices):
        t = type_of(indices)
        return bind(sp.broadcast_in_dim, indices, shape=t.shape + (1,),
                    broadcast_dimensions=tuple(range(t.ndim)), out_sharding=None)
    return indices[..., None]


def _gather(operand, indices, dnums, slice_sizes, mode, fill_value, out_sharding):
    """Bind the gather; an `out_sharding` with unreduced/reduced axes becomes a
    gather to its partitions and a reshard."""
    spec = to_spec(out_sharding)
    ur = spec is not None and (spec.unreduced or spec.reduced)
    part = PartitionSpec(*spec) if ur else spec
    if not is_array(indices):
        indices = Const(indices, indices.dtype)
    r = bind(gp.gather, operand, indices, dimension_numbers=dnums, slice_sizes=tuple(slice_sizes),
             mode=mode, fill_value=fill_value, out_sharding=part)
    if ur:
        r = reshard(r, spec)
    return r


def _zeros(shape, dtype):
    return zeros(shape, dtype)


@api("sc.take")
def take(a, indices, axis: int | None = None, out=None, mode: str | None = None, unique_indices: bool = False,
         indices_are_sorted: bool = False, fill_value=None, *, out_sharding=None):
    """`jnp.take`: elements of `a` at `indices` along `axis` (the flattened `a`
    when None). Out-of-bound indices give `fill_value` (NaN for floats) in the
    default `mode="fill"`; `"clip"` clamps, `"wrap"` wraps. The result's
    sharding follows JAX's gather rule; `out_sharding=` sets it instead (as
    JAX's `a.at[idx].get(out_sharding=)`)."""
    if out is not None:
        raise_user_error(ShardcNotImplementedError("The 'out' argument to jnp.take is not supported."))
    a = _array(a, "take")
    indices = _index_operand(indices, "take")
    if axis is None:
        a = ravel(a)
        ax = 0
    else:
        ax = normalize_axis(axis, type_of(a).ndim)
    t = type_of(a)
    n = t.shape[ax]
    if mode is None or mode == "fill":
        gmode = "fill"
        indices = _wrap_negative(indices, n)
    elif mode == "wrap":
        gmode = "promise_in_bounds"
        if is_array(indices):
            indices = remainder(indices, Const(n, type_of(indices).dtype))
        else:
            indices = np.mod(indices, indices.dtype.type(n)).astype(indices.dtype)
    elif mode == "clip":
        gmode = "clip"
    elif mode == "raise":
        raise_user_error(ShardcNotImplementedError("The 'raise' mode to sc.take is not supported."))
    else:
        raise_user_error(ShardcValueError(f"Invalid mode '{mode}' for sc.take"))
    it = type_of(indices) if is_array(indices) else None
    ishape = it.shape if it is not None else indices.shape
    slice_sizes = list(t.shape)
    if n == 0:
        if int(np.prod(ishape)):
            raise_user_error(ShardcValueError("Cannot do a non-empty sc.take() from an empty axis."))
        return a
    if int(np.prod(ishape)) == 0:
        return _zeros(t.shape[:ax] + tuple(ishape) + t.shape[ax + 1:], t.dtype)
    slice_sizes[ax] = 1
    k = len(ishape)
    dnums = gp.GatherDimensionNumbers(
        offset_dims=tuple(range(ax)) + tuple(range(ax + k, t.ndim + k - 1)),
        collapsed_slice_dims=(ax,), start_index_map=(ax,))
    return _gather(a, _expand_last(indices), dnums, slice_sizes, gmode, fill_value, out_sharding)


@api("sc.take_along_axis")
def take_along_axis(arr, indices, axis: int | None = -1, mode: str | None = None, fill_value=None, *,
                    wrap_negative_indices: bool | None = None):
    """`jnp.take_along_axis`: `arr`'s values at `indices` along `axis`, the
    other dims matched (batched) with the indices' dims."""
    a = _array(arr, "take_along_axis")
    indices = _index_operand(indices, "take_along_axis")
    ishape = tuple(type_of(indices).shape) if is_array(indices) else indices.shape
    if axis is None:
        if len(ishape) != 1:
            raise_user_error(ShardcValueError(
                f"take_along_axis indices must be 1D if axis=None, got shape {ishape}"))
        a = ravel(a)
        axis = 0
    t = type_of(a)
    rank = t.ndim
    if rank != len(ishape):
        raise_user_error(ShardcValueError(
            f"indices and arr must have the same number of dimensions; {len(ishape)} vs. {rank}"))
    ax = normalize_axis(axis, rank)
    arr_shape = t.shape[:ax] + (1,) + t.shape[ax + 1:]
    try:
        out_shape = tuple(int(d) for d in np.broadcast_shapes(ishape, arr_shape))
    except ValueError:
        raise_user_error(ShardcValueError(
            f"Incompatible shapes for broadcasting: {ishape} and {arr_shape}"))
    axis_size = t.shape[ax]
    if axis_size == 0:
        return _zeros(out_shape, t.dtype)
    # JAX's legacy default: wrap negative indices unless the mode promises they are in bounds
    wrap = mode != "promise_in_bounds" if wrap_negative_indices is None else wrap_negative_indices
    if wrap:
        # JAX upcasts to the signed index dtype before wrapping negative indices
        if is_array(indices):
            indices = astype(indices, dt.int32)
        else:
            indices = indices.astype(np.int32)
        indices = _wrap_negative(indices, axis_size)
    gmode = {None: "fill", "fill": "fill", "clip": "clip", "promise_in_bounds": "promise_in_bounds"}.get(mode)
    if gmode is None:
        raise_user_error(ShardcValueError(f'Unknown gather mode "{mode}"'))
    index_dims = [i for i, d in enumerate(ishape) if i == ax or d != 1]
    gather_index_shape = tuple(out_shape[i] for i in index_dims) + (1,)
    if is_array(indices):
        indices = reshape(indices, gather_index_shape)
    else:
        indices = indices.reshape(gather_index_shape)
    dnums, slice_sizes, squeeze = _take_along_dnums(rank, ax, ishape, arr_shape)
    if squeeze:
        a = bind(sp.squeeze, a, dimensions=tuple(squeeze))
    return _gather(a, indices, dnums, slice_sizes, gmode, fill_value, None)


def _take_along_dnums(rank: int, ax: int, ishape: tuple, arr_shape: tuple):
    """JAX's `take_along_axis` gather: `ax` is indexed, dims the indices
    broadcast over are offsets, matched dims are batch dims, and operand dims
    of size 1 facing a larger index dim are squeezed first."""
    slice_sizes, offset_dims, start_index_map, collapsed = [], [], [], []
    op_batch, idx_batch, squeeze = [], [], []
    new_i = j = 0
    for i in range(rank):
        if i == ax:
            slice_sizes.append(1)
            start_index_map.append(new_i)
            collapsed.append(new_i)
            new_i += 1
            j += 1
        elif ishape[i] == 1:
            offset_dims.append(i)
            slice_sizes.append(arr_shape[i])
            new_i += 1
        elif arr_shape[i] == 1:
            squeeze.append(i)
            j += 1
        else:
            slice_sizes.append(0 if arr_shape[i] == 0 else 1)
            op_batch.append(new_i)
            idx_batch.append(j)
            new_i += 1
            j += 1
    dnums = gp.GatherDimensionNumbers(
        offset_dims=tuple(offset_dims), collapsed_slice_dims=tuple(collapsed),
        start_index_map=tuple(start_index_map), operand_batching_dims=tuple(op_batch),
        start_indices_batching_dims=tuple(idx_batch))
    return dnums, slice_sizes, squeeze


@api("sc.one_hot")
def one_hot(x, num_classes: int, *, dtype=None, axis: int = -1):
    """`jax.nn.one_hot`: `x == iota` along a new `axis` of size `num_classes`;
    the new dim is replicated, the others keep `x`'s sharding. Out-of-range
    indices encode as all zeros."""
    x = _array(x, "one_hot")
    t = type_of(x)
    if isinstance(num_classes, bool) or not isinstance(num_classes, (int, np.integer)):
        raise_user_error(ShardcValueError(
            f"one_hot's num_classes must be a static integer, got {num_classes!r}"))
    pos = normalize_axis(axis, t.ndim + 1)
    lhs = expand_dims(x, (pos,))
    rhs_shape = [1] * t.ndim
    rhs_shape.insert(pos, int(num_classes))
    mesh = t.mesh if not t.mesh.empty else get_abstract_mesh()
    rhs = bind(sp.iota, dtype=t.dtype, shape=tuple(rhs_shape), dimension=pos,
               out_sharding=PartitionSpec(*[None] * len(rhs_shape)) if not mesh.empty else None,
               mesh=mesh)
    return astype(equal(lhs, rhs), dt.float32 if dtype is None else dtype)


# --- x[idx] with integer arrays (`_index_to_gather`) ------------------------------------------------
def _is_int_scalar(i) -> bool:
    return isinstance(i, (int, np.integer)) and not isinstance(i, (bool, np.bool_))


def is_advanced(idx: tuple) -> bool:
    """Does this index need a gather (an integer array of rank >= 1)?"""
    for i in idx:
        if is_array(i):
            if type_of(i).ndim > 0:
                return True
        elif isinstance(i, (np.ndarray, list, tuple)) and np.ndim(i) > 0:
            return True
    return False


def _as_index_array(i):
    if is_array(i):
        return i
    arr = np.asarray(i)
    if arr.size == 0 and arr.dtype.kind == "f":
        arr = arr.astype(np.int32)
    return arr.astype(dt.canonicalize(arr.dtype))


def _convert(x, dtype):
    if is_array(x):
        return astype(x, dtype)
    return np.asarray(x).astype(dtype)


def _shape(a) -> list[int]:
    return list(type_of(a).shape) if is_array(a) else list(np.shape(a))


def _broadcast_index_arrays(arrs: list) -> list:
    """`jnp.broadcast_arrays` of the advanced indices (static ints included)."""
    shapes = [tuple(_shape(a)) for a in arrs]
    try:
        shape = tuple(int(d) for d in np.broadcast_shapes(*shapes))
    except ValueError:
        raise_user_error(ShardcValueError(
            "shape mismatch: indexing arrays could not be broadcast together with shapes "
            + " ".join(str(s) for s in shapes)))
    if all(s == shape for s in shapes):
        return list(arrs)
    spec = _broadcast_spec(arrs, shape)
    out = []
    for a, s in zip(arrs, shapes):
        if spec is not None:  # as JAX's `_broadcast_arrays`: every index takes the common sharding
            out.append(broadcast_to(a if is_array(a) else np.asarray(a), shape, out_sharding=spec))
        elif s == shape:
            out.append(a)
        elif is_array(a):
            out.append(broadcast_to(a, shape))
        else:
            out.append(np.broadcast_to(np.asarray(a), shape))
    return out


def _broadcast_spec(arrs: list, shape: tuple) -> PartitionSpec | None:
    """`lax.broadcast_shardings` of the index arrays (None when all are replicated)."""
    entries: list = [None] * len(shape)
    for a in arrs:
        if not is_array(a):
            continue
        t = type_of(a)
        k = len(shape) - t.ndim
        for i, (n, e) in enumerate(zip(t.shape, t.spec)):
            if e is not None and n == shape[k + i]:
                if entries[k + i] not in (None, e):
                    raise_user_error(ShardingTypeError(
                        "indexing arrays have incompatible shardings for broadcasting: "
                        + " ".join(type_of(b).str_short() for b in arrs if is_array(b))))
                entries[k + i] = e
    return PartitionSpec(*entries) if any(e is not None for e in entries) else None


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
    if is_advanced(idx) or any(_is_bool_index(i) for i in idx):
        # integer arrays, concrete boolean masks: one gather (JAX's `_index_to_gather`)
        return gather_get(x, idx)
    plan = _BasicIndex(t)
    for i in _expand_basic(t, idx):
        plan.add(i)
    return plan.apply(x)


def _is_bool_index(i) -> bool:
    if isinstance(i, (bool, np.bool_)):
        return True
    if is_array(i):
        return type_of(i).dtype == dt.bool_
    if isinstance(i, (np.ndarray, list)):
        return np.asarray(i).dtype == np.bool_ and np.size(i) > 0
    return False


def _expand_basic(t: ArrayType, idx: tuple) -> list:
    """A basic index with the ellipsis and trailing full slices spelled out."""
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
    return full


class _BasicIndex:
    """A basic index as JAX applies it: one static slice, a reverse for negative
    steps, a dynamic slice for traced integers, then squeezes and new axes."""

    def __init__(self, t: ArrayType):
        self.t = t
        self.starts: list[int] = []
        self.limits: list[int] = []
        self.strides: list[int] = []
        self.squeeze_dims: list[int] = []
        self.dyn: dict[int, Any] = {}
        self.new_axes: list[int] = []
        self.rev_dims: list[int] = []
        self.d = self.out_pos = 0

    def _keep(self, start: int, limit: int, stride: int) -> None:
        self.starts.append(start)
        self.limits.append(limit)
        self.strides.append(stride)

    def add(self, i) -> None:
        if i is None:
            self.new_axes.append(self.out_pos)
            self.out_pos += 1
            return
        d, size = self.d, self.t.shape[self.d]
        if isinstance(i, slice):
            s, e, st = i.indices(size)
            if st < 0:
                # as JAX: slice the same elements in increasing order, then reverse the dim
                new_start = min(size, e + 1 + abs(s - e - 1) % abs(st))
                self._keep(new_start, max(new_start, s + 1), -st)
                self.rev_dims.append(d)
            else:
                self._keep(s, max(s, e), st)
            self.out_pos += 1
        elif isinstance(i, (int, np.integer)) and not isinstance(i, bool):
            # as JAX: negative counts from the end, then clamped into the dim (no IndexError)
            k = int(i)
            k = min(max(k + size if k < 0 else k, 0), size - 1)
            self._keep(k, k + 1, 1)
            self.squeeze_dims.append(d)
        elif is_array(i) and type_of(i).ndim == 0 and dt.is_int(type_of(i).dtype):
            self.dyn[d] = i
            self._keep(0, size, 1)
            self.squeeze_dims.append(d)
        else:
            raise ShardcValueError(f"unsupported index {i!r}")
        self.d += 1

    def apply(self, x):
        t, y = self.t, x
        if (tuple(self.starts), tuple(self.limits), tuple(self.strides)) != ((0,) * t.ndim, t.shape, (1,) * t.ndim):
            y = bind(sp.slice_p, y, start_indices=tuple(self.starts), limit_indices=tuple(self.limits),
                     strides=None if all(s == 1 for s in self.strides) else tuple(self.strides))
        if self.rev_dims:
            y = bind(sp.rev, y, dimensions=tuple(self.rev_dims))
        if self.dyn:
            y = self._dynamic_slice(y)
        if self.squeeze_dims:
            y = bind(sp.squeeze, y, dimensions=tuple(self.squeeze_dims))
        if self.new_axes:
            y = expand_dims(y, tuple(self.new_axes))
        return y

    def _dynamic_slice(self, y):
        """Traced integer indices (negative ones wrapped) as one dynamic slice."""
        yt = type_of(y)
        idxs, sizes = [], list(yt.shape)
        for dim in range(yt.ndim):
            if dim in self.dyn:
                i = self.dyn[dim]
                idxs.append(where(less(i, 0), add(i, yt.shape[dim]), i))
                sizes[dim] = 1
            else:
                idxs.append(Const(0, type_of(self.dyn[next(iter(self.dyn))]).dtype))
        return bind(sp.dynamic_slice, y, *idxs, slice_sizes=tuple(sizes))


# --- JAX's NDIndexer: any index as one gather / scatter (`x.at[idx]`) ----------------------------------
class ShardcIndexError(ShardcError, IndexError):
    """A bad index, where JAX raises IndexError."""


_INT_MAX = np.iinfo(np.int32).max


class _Parsed(NamedTuple):
    kind: str            # none | ellipsis | slice | int | array | bool
    index: Any
    axes: tuple[int, ...]


def _index_kind(i) -> str:
    """JAX's `IndexType.from_index`."""
    if i is None:
        return "none"
    if i is Ellipsis:
        return "ellipsis"
    if isinstance(i, slice):
        return "slice"
    if _is_int_scalar(i):
        return "int"
    if isinstance(i, (bool, np.bool_)):
        return "bool"
    if is_array(i):
        d = type_of(i).dtype
        if d == dt.bool_:
            return "bool"
        if dt.is_int(d):
            return "array"
        raise ShardcTypeError(f"Indexer must have integer or boolean type, got indexer with type {d.name}")
    if isinstance(i, np.ndarray):
        if i.dtype == np.bool_:
            return "bool"
        if dt.is_int(i.dtype):
            return "array"
        raise ShardcTypeError(f"Indexer must have integer or boolean type, got indexer with type {i.dtype}")
    if isinstance(i, str):
        raise ShardcTypeError(f"JAX does not support string indexing; got idx={i!r}")
    if isinstance(i, (list, tuple)):
        if not i:
            return "array"
        arr = np.asarray(i)
        if arr.dtype == np.bool_:
            return "bool"
        if dt.is_int(arr.dtype):
            return "array"
        raise ShardcTypeError(f"Indexer must have integer or boolean type, got indexer with type {arr.dtype}")
    if isinstance(i, (float, complex, np.generic)):
        raise ShardcTypeError(
            f"Indexer must have integer or boolean type, got indexer with type {np.dtype(type(i))}")
    raise ShardcIndexError("only integers, slices (`:`), ellipsis (`...`), newaxis (`None`) and integer or "
                           f"boolean arrays are valid indices. Got {i}")


def _as_tuple_index(idx) -> tuple:
    """JAX's `eliminate_deprecated_list_indexing`."""
    if isinstance(idx, tuple):
        return idx
    if isinstance(idx, list):
        unpack = any((isinstance(e, np.ndarray) or is_array(e)) and np.ndim(e) != 0 if not is_array(e)
                     else type_of(e).ndim != 0 for e in idx) or any(
            isinstance(e, (list, tuple, slice)) or e is Ellipsis or e is None for e in idx)
        hint = "arr[tuple(seq)]" if unpack else "arr[array(seq)]"
        raise ShardcTypeError("Using a non-tuple sequence for multidimensional indexing is not allowed; use "
                              f"`{hint}` instead of `arr[seq]`. See https://github.com/jax-ml/jax/issues/4564 "
                              "for more information.")
    return (idx,)


def _ndim_of(i) -> int:
    return type_of(i).ndim if is_array(i) else np.ndim(i)


def parse_index(shape: tuple[int, ...], idx) -> list[_Parsed]:
    """JAX's `_parse_indices`: each index with the axes of `shape` it consumes."""
    idx = _as_tuple_index(idx)
    kinds = [_index_kind(i) for i in idx]
    consumed = [0 if k in ("none", "ellipsis") else _ndim_of(i) if k == "bool" else 1
                for i, k in zip(idx, kinds)]
    ells = [p for p, k in enumerate(kinds) if k == "ellipsis"]
    if len(ells) > 1:
        raise ShardcIndexError("an index can only have a single ellipsis ('...')")
    total = sum(consumed)
    if total > len(shape):
        raise ShardcIndexError(f"Too many indices: array is {len(shape)}-dimensional, but {total} were indexed")
    if ells:
        consumed[ells[0]] = len(shape) - total
    out, cur = [], 0
    for i, k, n in zip(idx, kinds, consumed):
        if k == "array" and isinstance(i, (list, tuple)):
            i = _as_index_array(i)
        out.append(_Parsed(k, i, tuple(range(cur, cur + n))))
        cur += n
    return out


def expand_bool_indices(shape: tuple[int, ...], parsed: list[_Parsed]) -> list[_Parsed]:
    """Boolean masks as the integer arrays of their True positions (they must
    be concrete: their size is the result's); scalar booleans stay."""
    out = []
    for pos, p in enumerate(parsed):
        if p.kind != "bool":
            out.append(p)
            continue
        i = p.index
        if isinstance(i, Tracer):
            raise NonConcreteBooleanIndexError(
                f"Array boolean indices must be concrete; got {type_of(i).str_short()}\n\nSee "
                "https://docs.jax.dev/en/latest/errors.html#jax.errors.NonConcreteBooleanIndexError")
        mask = np.asarray(i)
        if mask.ndim == 0:
            out.append(_Parsed("bool", bool(mask), ()))
            continue
        want = [shape[a] for a in p.axes]
        if not all(s1 in (0, s2) for s1, s2 in zip(mask.shape, want)):
            raise ShardcIndexError(f"boolean index did not match shape of indexed array in index {pos}: got "
                                   f"{mask.shape}, expected {want}")
        out.extend(_Parsed("array", w.astype(dt.canonicalize(w.dtype)), (a,))
                   for w, a in zip(np.where(mask), p.axes))
    return out


class GatherIndexer(NamedTuple):
    """JAX's `_GatherIndexer`."""
    slice_shape: tuple[int, ...]
    slice_spec: tuple
    newaxis_dims: tuple[int, ...]
    gather_slice_shape: tuple[int, ...]
    reversed_y_dims: tuple[int, ...]
    dnums: gp.GatherDimensionNumbers
    gather_indices: Any
    unique_indices: bool
    indices_are_sorted: bool
    scalar_bool_dims: tuple[int, ...]


def index_to_gather(t: ArrayType, parsed: list[_Parsed], normalize: bool = True) -> GatherIndexer:
    """JAX's `_index_to_gather`, step for step (same dimension numbers, index
    operand and update layout), so the gather/scatter rules see what JAX's see."""
    for pos, p in enumerate(parsed):
        if p.kind == "slice" and not all(e is None or _is_int_scalar(e)
                                          for e in (p.index.start, p.index.stop, p.index.step)):
            raise ShardcIndexError(f"Slice entries must be static integers. Got {p.index} at position {pos}")
    adv_pos = [n for n, p in enumerate(parsed) if p.kind in ("array", "int")]
    contiguous = all(b - a == 1 for a, b in zip(adv_pos, adv_pos[1:]))
    parsed = _expand_ellipses(t.ndim, parsed)
    scalar_bool_dims = tuple(n for n, p in enumerate(parsed) if p.kind == "bool")
    shape, x_spec, parsed = _expand_scalar_bools(t, parsed)
    if normalize:
        parsed = [p._replace(index=_wrap_negative(p.index, shape[p.axes[0]]) if p.kind == "array"
                             else (int(p.index) + shape[p.axes[0]] if int(p.index) < 0 and not
                                   isinstance(p.index, np.unsignedinteger) else p.index)
                             if p.kind == "int" else p.index) for p in parsed]
    is_adv = any(p.kind == "array" and _ndim_of(p.index) > 0 for p in parsed)
    adv = []
    if is_adv:
        no_none = [(n, p) for n, p in enumerate(parsed) if p.kind != "none"]
        adv = [(p.index, n, j) for j, (n, p) in enumerate(no_none) if p.kind in ("array", "int")]
    b = _Builder(shape, x_spec)
    idx_adv_axes = [n for _, n, _ in adv]
    for n, p in enumerate(parsed):
        if adv and (contiguous and n == idx_adv_axes[0] or not contiguous and n == 0):
            b.advanced([a for a, _, _ in adv], [j for _, _, j in adv])
        if n in idx_adv_axes:
            b.x_axis += 1
            b.gather_slice_shape.append(1)
        elif p.kind in ("int", "array"):
            b.scalar(p.index)
        elif p.kind == "none":
            b.slice_shape.append(1)
            b.slice_spec.append(None)
            b.newaxis_dims.append(b.y_axis)
            b.y_axis += 1
        else:
            b.static_slice(p.index)
    return GatherIndexer(
        tuple(b.slice_shape), tuple(b.slice_spec), tuple(b.newaxis_dims), tuple(b.gather_slice_shape),
        tuple(b.reversed_y_dims),
        gp.GatherDimensionNumbers(offset_dims=tuple(b.offset_dims), collapsed_slice_dims=tuple(sorted(b.collapsed)),
                                  start_index_map=tuple(b.start_index_map)),
        b.indices_operand(), not adv, not adv, scalar_bool_dims)


def _expand_ellipses(ndim: int, parsed: list[_Parsed]) -> list[_Parsed]:
    out, consumed = [], 0
    for p in parsed:
        consumed += len(p.axes)
        if p.kind == "ellipsis":
            out.extend(_Parsed("slice", slice(None), (a,)) for a in p.axes)
        else:
            out.append(p)
    out.extend(_Parsed("slice", slice(None), (a,)) for a in range(consumed, ndim))
    return out


def _expand_scalar_bools(t: ArrayType, parsed: list[_Parsed]):
    """JAX's `expand_scalar_bool_indices`: a scalar boolean is a new size-1 dim
    indexed by `arange(int(b))`."""
    shape, spec, out, cur = list(t.shape), list(t.spec), [], 0
    for n, p in enumerate(parsed):
        if p.kind == "bool":
            shape.insert(n, 1)
            spec.insert(n, None)
            out.append(_Parsed("array", np.arange(int(p.index), dtype=np.int32), (cur,)))
            cur += 1
        else:
            k = len(p.axes)
            out.append(p._replace(axes=tuple(range(cur, cur + k))))
            cur += k
    return tuple(shape), tuple(spec), out


class _Builder:
    """The state `_index_to_gather` threads through its loop."""

    def __init__(self, shape: tuple[int, ...], x_spec: tuple):
        self.shape, self.x_spec = shape, x_spec
        self.index_dtype = dt.int32 if all(d <= _INT_MAX for d in shape) else np.dtype(np.int64)
        self.offset_dims: list[int] = []
        self.collapsed: list[int] = []
        self.start_index_map: list[int] = []
        self.gather_indices: list[tuple[Any, int]] = []
        self.gather_indices_shape: list[int] = []
        self.slice_shape: list[int] = []
        self.slice_spec: list = []
        self.newaxis_dims: list[int] = []
        self.reversed_y_dims: list[int] = []
        self.gather_slice_shape: list[int] = []
        self.x_axis = self.y_axis = self.collapsed_y_axis = 0

    def advanced(self, arrays: list, x_adv_axes: list[int]) -> None:
        arrs = _broadcast_index_arrays([a if is_array(a) else np.asarray(a) for a in arrays])
        shape = _shape(arrs[0])
        spec = list(type_of(arrs[0]).spec) if is_array(arrs[0]) else [None] * len(shape)
        start = len(self.gather_indices_shape)
        self.gather_indices.extend((_convert(a, self.index_dtype), start) for a in arrs)
        self.gather_indices_shape += shape
        self.start_index_map.extend(x_adv_axes)
        self.collapsed.extend(x_adv_axes)
        self.slice_shape.extend(shape)
        self.slice_spec.extend(spec)
        self.y_axis += len(shape)
        self.collapsed_y_axis += len(shape)

    def scalar(self, i) -> None:
        if self.shape[self.x_axis] == 0:
            raise ShardcIndexError(f"index is out of bounds for axis {self.x_axis} with size 0")
        self.gather_indices.append((_convert(i, self.index_dtype), len(self.gather_indices_shape)))
        self.collapsed.append(self.x_axis)
        self.gather_slice_shape.append(1)
        self.start_index_map.append(self.x_axis)
        self.x_axis += 1

    def static_slice(self, index: slice) -> None:
        size = self.shape[self.x_axis]
        start, stop, step = index.indices(size)
        n = len(range(start, stop, step))
        self.slice_shape.append(n)
        self.slice_spec.append(self.x_spec[self.x_axis])
        if step == 1:
            if n != size:
                self.gather_indices.append((np.asarray(start, self.index_dtype), len(self.gather_indices_shape)))
                self.start_index_map.append(self.x_axis)
            self.gather_slice_shape.append(n)
            self.offset_dims.append(self.collapsed_y_axis)
        else:
            vals = np.asarray([start + step * q for q in range(n)], self.index_dtype)
            if step < 0:
                self.reversed_y_dims.append(self.collapsed_y_axis)
                vals = vals[::-1].copy()
            self.gather_slice_shape.append(1)
            self.gather_indices.append((vals, len(self.gather_indices_shape)))
            self.start_index_map.append(self.x_axis)
            self.gather_indices_shape.append(n)
            self.collapsed.append(self.x_axis)
        self.collapsed_y_axis += 1
        self.y_axis += 1
        self.x_axis += 1

    def indices_operand(self):
        if not self.gather_indices:
            return np.zeros((0,), self.index_dtype)
        if len(self.gather_indices) == 1:
            return _expand_last(self.gather_indices[0][0])
        if all(not is_array(g) for g, _ in self.gather_indices):
            gshape = tuple(self.gather_indices_shape) + (1,)
            parts = []
            for g, i in self.gather_indices:
                g = np.asarray(g)
                g = g.reshape((1,) * i + g.shape + (1,) * (len(gshape) - i - g.ndim))
                parts.append(np.broadcast_to(g, gshape))
            return np.concatenate(parts, axis=-1)
        gshape = tuple(self.gather_indices_shape) + (1,)
        parts = []
        for g, i in self.gather_indices:
            gs = _shape(g)
            if not is_array(g):
                g = Const(np.asarray(g), np.asarray(g).dtype)
            parts.append(bind(sp.broadcast_in_dim, g, shape=gshape,
                              broadcast_dimensions=tuple(range(i, i + len(gs))), out_sharding=None))
        return bind(sp.concatenate, *parts, dimension=len(self.gather_indices_shape))


def _const_indices(g):
    return g if is_array(g) else Const(np.asarray(g), np.asarray(g).dtype)


def parse_mode(mode, default: str) -> str:
    """JAX's `GatherScatterMode.from_any`, as shardc's mode names."""
    if mode is None:
        return default
    if mode in ("fill", "drop"):
        return "fill"
    if mode in ("clip", "promise_in_bounds"):
        return mode
    if mode == "one_hot":
        raise ShardcNotImplementedError("mode='one_hot' is not supported by shardc")
    raise ShardcValueError(f'Unknown gather mode "{mode}"')


def gather_get(x, idx, *, mode=None, fill_value=None, normalize_indices: bool = True, out_sharding=None,
               indices_are_sorted: bool = False, unique_indices: bool = False):
    """JAX's `rewriting_take`: a static or dynamic slice when the index allows
    (mode 'promise_in_bounds' or 'clip'), otherwise one gather."""
    x = _array(x, "[]")
    t = type_of(x)
    gmode = parse_mode(mode, "promise_in_bounds")
    parsed = parse_index(t.shape, idx)
    simple = all(p.kind in ("none", "ellipsis", "slice", "int") or
                 p.kind == "array" and _ndim_of(p.index) == 0 and is_array(p.index) for p in parsed)
    if simple and gmode in ("promise_in_bounds", "clip") and normalize_indices:
        return _getitem(x, _as_tuple_index(idx))
    if fill_value is not None:
        if is_array(fill_value) and isinstance(fill_value, Tracer):
            raise ShardcTypeError("fill_value argument to indexed get() must be concrete (a static scalar)")
        if np.ndim(fill_value) != 0:
            raise ShardcValueError("fill_value argument to indexed get() must be a scalar")
        fill_value = np.asarray(fill_value).item()
    parsed = expand_bool_indices(t.shape, parsed)
    ix = index_to_gather(t, parsed, normalize_indices)
    y = x
    if ix.scalar_bool_dims:
        y = expand_dims(y, ix.scalar_bool_dims)
    if 0 in ix.slice_shape:
        spec = PartitionSpec(*ix.slice_spec) if not t.mesh.empty else None
        return full(ix.slice_shape, 0, t.dtype, out_sharding=spec)
    if int(np.prod(_shape(ix.gather_indices))) != 0:
        y = _gather(y, ix.gather_indices if is_array(ix.gather_indices) else np.asarray(ix.gather_indices),
                    ix.dnums, ix.gather_slice_shape, gmode, fill_value, out_sharding)
    elif out_sharding is not None:
        y = reshard(y, to_spec(out_sharding))
    if ix.reversed_y_dims:
        y = bind(sp.rev, y, dimensions=tuple(ix.reversed_y_dims))
    if ix.newaxis_dims:
        y = expand_dims(y, ix.newaxis_dims)
    return y


def _dnums_for_scatter(d: gp.GatherDimensionNumbers) -> gp.ScatterDimensionNumbers:
    return gp.ScatterDimensionNumbers(
        update_window_dims=d.offset_dims, inserted_window_dims=d.collapsed_slice_dims,
        scatter_dims_to_operand_dims=d.start_index_map, operand_batching_dims=d.operand_batching_dims,
        scatter_indices_batching_dims=d.start_indices_batching_dims)


def scatter_update(x, idx, y, kind: str, *, indices_are_sorted: bool = False, unique_indices: bool = False,
                   mode=None, normalize_indices: bool = True, out_sharding=None, update_fn=None):
    """JAX's `_scatter_update` / `_scatter_impl`: `x` with `y` combined (`kind`:
    set, add, sub, mul, min, max, apply) at `x[idx]`, as one scatter."""
    x = _array(x, ".at[]")
    t = type_of(x)
    if isinstance(y, int) and not isinstance(y, bool) and dt.is_int(t.dtype) and \
            np.iinfo(t.dtype).min <= y <= np.iinfo(t.dtype).max:
        y = asarray(y, dtype=t.dtype)
    elif isinstance(y, (list, tuple)):   # JAX's `jnp.asarray(y)`: a sequence may hold traced values
        y = asarray(y)
    else:
        y = asarray(as_operand(y))
    smode = parse_mode(mode, "fill")
    spec = to_spec(out_sharding)
    parsed = expand_bool_indices(t.shape, parse_index(t.shape, idx))
    ix = index_to_gather(t, parsed, normalize_indices)
    if 0 in ix.slice_shape:
        return x
    dtype, weak = t.dtype, t.weak_type
    xp, y = promote(x, y)
    slice_spec = PartitionSpec(*ix.slice_spec) if spec is None and not t.mesh.empty else None
    _check_broadcast(type_of(y), ix.slice_shape, ix.slice_spec)
    ur = spec is not None and (spec.unreduced or spec.reduced)
    extra = {"update_fn": update_fn} if kind == "apply" else {}

    def scatter(xp, indices, y, out_sharding):
        y = broadcast_to(y, ix.slice_shape, out_sharding=slice_spec)
        if ix.newaxis_dims:
            y = bind(sp.squeeze, y, dimensions=tuple(ix.newaxis_dims))
        if ix.reversed_y_dims:
            y = bind(sp.rev, y, dimensions=tuple(ix.reversed_y_dims))
        if kind == "apply":  # as `lax.scatter_apply`: the (unused) updates are replicated zeros
            y = full(type_of(y).shape, 0, type_of(y).dtype)
        if ix.scalar_bool_dims:
            xp = expand_dims(xp, ix.scalar_bool_dims)
        out = bind(gp.SCATTERS[kind], xp, indices, y, dimension_numbers=_dnums_for_scatter(ix.dnums),
                   indices_are_sorted=bool(ix.indices_are_sorted or indices_are_sorted),
                   unique_indices=bool(ix.unique_indices or unique_indices), mode=smode,
                   out_sharding=out_sharding, **extra)
        return bind(sp.squeeze, out, dimensions=tuple(ix.scalar_bool_dims)) if ix.scalar_bool_dims else out
    indices = _const_indices(ix.gather_indices)
    if ur and t.mesh.explicit_axes:
        # JAX's `_scatter_update`: the scatter (with the broadcast of its updates) runs under
        # `auto_axes` over the Explicit axes and its result is cast to the unreduced/reduced
        # `out_sharding`: each device keeps the combination of its own updates (no all-reduce)
        out = auto_axes(lambda a, i, u: scatter(a, i, u, None), out_sharding=spec,
                        axes=t.mesh.explicit_axes)(xp, indices, y)
    else:
        out = scatter(xp, indices, y, PartitionSpec(*spec) if ur else spec)
        if ur:
            out = reshard(out, spec)
    return convert(out, dtype, weak)


def _check_broadcast(yt: ArrayType, shape: tuple[int, ...], spec: tuple) -> None:
    """`jnp.broadcast_to`'s errors for updates that do not fit the indexed slice."""
    if yt.ndim > len(shape):
        raise_user_error(ShardcValueError(f"Cannot broadcast to shape with fewer dimensions: arr_shape={yt.shape} "
                                          f"shape={tuple(shape)}"), [yt])
    k = len(shape) - yt.ndim
    if any(d not in (1, shape[k + i]) for i, d in enumerate(yt.shape)):
        want = yt.update(shape=tuple(shape), spec=tuple(spec) if yt.mesh is not None else ())
        raise_user_error(ShardcValueError(
            f"Incompatible types for broadcasting: input type={yt.str_short(short_dtypes=False)} and requested "
            f"type={want.str_short(short_dtypes=False)}"), [yt])


def _trace_update_fn(func, dtype: np.dtype, mesh):
    """`func` traced on a scalar of `dtype` (the combiner region of `scatter_apply`)."""
    outer = current_trace()
    inner = Trace(mesh, "scatter_apply", outer.manual_axes, outer.check_vma)
    arg = inner.new_arg(ArrayType((), np.dtype(dtype), (), mesh=mesh))
    with tracing(inner):
        with user_code():
            out = func(arg)
        out = convert(asarray(as_operand(out)), dtype)
        if type_of(out).shape != ():
            raise ShardcValueError(f".at[].apply's function must map a scalar to a scalar, got {type_of(out)}")
        outs = [inner.atom(out)]
    return Program("scatter_apply", inner.in_vars, inner.eqns, outs, mesh)


def _apply(x, idx, func, **kw):
    if current_trace() is None:
        return stage_eagerly(lambda a: _apply(a, idx, func, **kw), [x], "at.apply")
    x = _array(x, ".at[].apply")
    t = type_of(x)
    prog = _trace_update_fn(func, t.dtype, t.mesh if not t.mesh.empty else current_trace().mesh)
    return scatter_update(x, idx, np.zeros((), t.dtype), "apply", update_fn=prog, **kw)


_UPDATE_KW = ("indices_are_sorted", "unique_indices", "mode", "out_sharding", "wrap_negative_indices")


class IndexUpdateRef:
    """`x.at[idx]`: JAX's `_IndexUpdateRef` (each method returns a new array)."""

    __slots__ = ("array", "index")

    def __init__(self, array, index):
        self.array = array
        self.index = index

    def __repr__(self) -> str:
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    def get(self, *, indices_are_sorted: bool = False, unique_indices: bool = False, mode=None,
            fill_value=None, out_sharding=None, wrap_negative_indices: bool = True):
        """`x[idx]` with JAX's options (`mode="fill"` reads `fill_value` out of bounds)."""
        return _at_get(self.array, self.index, indices_are_sorted=indices_are_sorted,
                       unique_indices=unique_indices, mode=mode, fill_value=fill_value,
                       out_sharding=out_sharding, normalize_indices=wrap_negative_indices)

    def _update(self, kind, values, api_name, indices_are_sorted, unique_indices, mode, out_sharding,
                wrap_negative_indices):
        return _at_update(self.array, self.index, values, kind, indices_are_sorted=indices_are_sorted,
                          unique_indices=unique_indices, mode=mode, out_sharding=out_sharding,
                          normalize_indices=wrap_negative_indices, api_name=api_name)

    def set(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None, out_sharding=None,
            wrap_negative_indices=True):
        """`x[idx] = values`."""
        return self._update("set", values, ".at[].set", indices_are_sorted, unique_indices, mode,
                            out_sharding, wrap_negative_indices)

    def add(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None, out_sharding=None,
            wrap_negative_indices=True):
        """`x[idx] += values` (repeated indices all add)."""
        return self._update("add", values, ".at[].add", indices_are_sorted, unique_indices, mode,
                            out_sharding, wrap_negative_indices)

    def subtract(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
                 out_sharding=None, wrap_negative_indices=True):
        """`x[idx] -= values`."""
        return self._update("sub", values, ".at[].subtract", indices_are_sorted, unique_indices, mode,
                            out_sharding, wrap_negative_indices)

    def multiply(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
                 out_sharding=None, wrap_negative_indices=True):
        """`x[idx] *= values`."""
        return self._update("mul", values, ".at[].multiply", indices_are_sorted, unique_indices, mode,
                            out_sharding, wrap_negative_indices)

    mul = multiply

    def divide(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
               out_sharding=None, wrap_negative_indices=True):
        """`x[idx] /= values`: as JAX, `x / ones_like(x).at[idx].multiply(values)`."""
        return _at_ratio(self, "divide", values, indices_are_sorted, unique_indices, mode, out_sharding,
                         wrap_negative_indices)

    def power(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
              out_sharding=None, wrap_negative_indices=True):
        """`x[idx] **= values`: as JAX, `x ** ones_like(x).at[idx].multiply(values)`."""
        return _at_ratio(self, "power", values, indices_are_sorted, unique_indices, mode, out_sharding,
                         wrap_negative_indices)

    def min(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None, out_sharding=None,
            wrap_negative_indices=True):
        """`x[idx] = minimum(x[idx], values)`."""
        return self._update("min", values, ".at[].min", indices_are_sorted, unique_indices, mode,
                            out_sharding, wrap_negative_indices)

    def max(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None, out_sharding=None,
            wrap_negative_indices=True):
        """`x[idx] = maximum(x[idx], values)`."""
        return self._update("max", values, ".at[].max", indices_are_sorted, unique_indices, mode,
                            out_sharding, wrap_negative_indices)

    def apply(self, func, *, indices_are_sorted=False, unique_indices=False, mode=None,
              wrap_negative_indices=True):
        """`func.at(x, idx)` for a unary scalar function (applied once per occurrence of an index)."""
        return _at_apply(self.array, self.index, func, indices_are_sorted=indices_are_sorted,
                         unique_indices=unique_indices, mode=mode, normalize_indices=wrap_negative_indices)


class IndexUpdateHelper:
    """`x.at`: index it to get an `IndexUpdateRef`."""

    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array

    def __getitem__(self, index) -> IndexUpdateRef:
        return IndexUpdateRef(self.array, index)

    def __repr__(self) -> str:
        return f"_IndexUpdateHelper({self.array!r})"


@api(".at[].get")
def _at_get(x, idx, **kw):
    return gather_get(x, idx, **kw)


def _at_update(x, idx, values, kind, *, api_name: str, **kw):
    return _at_update_api(api_name)(x, idx, values, kind, **kw)


_AT_APIS: dict[str, Any] = {}


def _at_update_api(name: str):
    fn = _AT_APIS.get(name)
    if fn is None:
        fn = _AT_APIS[name] = api(name)(scatter_update)
    return fn


@api(".at[].apply")
def _at_apply(x, idx, func, **kw):
    return _apply(x, idx, func, **kw)


def _at_ratio(ref: IndexUpdateRef, op: str, values, indices_are_sorted, unique_indices, mode, out_sharding,
              wrap_negative_indices):
    f = divide if op == "divide" else power
    factor = _at_update_api(f".at[].{op}")(
        ones_like(ref.array), ref.index, values, "mul", indices_are_sorted=indices_are_sorted,
        unique_indices=unique_indices, mode=mode, out_sharding=out_sharding,
        normalize_indices=wrap_negative_indices)
    return f(ref.array, factor)


# --- lax.gather / lax.scatter* ----------------------------------------------------------------------------
def _mode_name(mode, default: str) -> str:
    """A mode given as a string or as JAX's `GatherScatterMode`."""
    name = getattr(mode, "name", None)
    if name is not None:
        mode = {"CLIP": "clip", "FILL_OR_DROP": "fill", "PROMISE_IN_BOUNDS": "promise_in_bounds",
                "ONE_HOT": "one_hot"}[name]
    return parse_mode(mode, default)


def _dnums(d, cls):
    """Dimension numbers given as shardc's or JAX's NamedTuple (same fields, same order)."""
    return cls(*(tuple(int(i) for i in f) for f in tuple(d)))


@api("lax.gather")
def lax_gather(operand, start_indices, dimension_numbers, slice_sizes, *, unique_indices: bool = False,
               indices_are_sorted: bool = False, mode=None, fill_value=None):
    """`lax.gather`: XLA's gather (default mode 'promise_in_bounds'; 'fill' reads
    `fill_value`, NaN / the dtype's extreme by default)."""
    mode = _mode_name(mode, "promise_in_bounds")
    x = _array(operand, "gather")
    idx = _index_operand(start_indices, "gather")
    d = _dnums(dimension_numbers, gp.GatherDimensionNumbers)
    return _gather(x, idx if is_array(idx) else np.asarray(idx), d, tuple(int(s) for s in slice_sizes), mode,
                   fill_value, None)


def _lax_scatter(kind: str, operand, scatter_indices, updates, dimension_numbers, *, indices_are_sorted=False,
                 unique_indices=False, mode=None, update_fn=None):
    x = _array(operand, "scatter")
    idx = _index_operand(scatter_indices, "scatter")
    u = _array(updates, "scatter") if is_array(as_operand(updates)) else updates
    if not is_array(u):
        u = convert(asarray(u), type_of(x).dtype) if isinstance(u, (int, float, bool)) else asarray(u)
    extra = {"update_fn": update_fn} if kind == "apply" else {}
    return bind(gp.SCATTERS[kind], x, _const_indices(idx), u,
                dimension_numbers=_dnums(dimension_numbers, gp.ScatterDimensionNumbers),
                indices_are_sorted=bool(indices_are_sorted), unique_indices=bool(unique_indices),
                mode=_mode_name(mode, "fill"), out_sharding=None, **extra)


def _make_lax_scatter(kind: str, name: str):
    @api(f"lax.{name}")
    def fn(operand, scatter_indices, updates, dimension_numbers, *, indices_are_sorted: bool = False,
           unique_indices: bool = False, mode=None):
        return _lax_scatter(kind, operand, scatter_indices, updates, dimension_numbers,
                            indices_are_sorted=indices_are_sorted, unique_indices=unique_indices, mode=mode)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"`lax.{name}`: XLA's scatter with the `{kind}` combiner (default mode: drop out-of-bound windows)."
    return fn


lax_scatter = _make_lax_scatter("set", "scatter")
lax_scatter_add = _make_lax_scatter("add", "scatter_add")
lax_scatter_sub = _make_lax_scatter("sub", "scatter_sub")
lax_scatter_mul = _make_lax_scatter("mul", "scatter_mul")
lax_scatter_min = _make_lax_scatter("min", "scatter_min")
lax_scatter_max = _make_lax_scatter("max", "scatter_max")


@api("lax.scatter_apply")
def lax_scatter_apply(operand, scatter_indices, func, dimension_numbers, *, update_shape=(),
                      indices_are_sorted: bool = False, unique_indices: bool = False, mode=None):
    """`lax.scatter_apply`: `func` applied at each scattered window (once per index occurrence)."""
    if current_trace() is None:
        return stage_eagerly(lambda x, i: lax_scatter_apply(
            x, i, func, dimension_numbers, update_shape=update_shape, indices_are_sorted=indices_are_sorted,
            unique_indices=unique_indices, mode=mode), [operand, scatter_indices], "scatter_apply")
    x = _array(operand, "scatter_apply")
    t = type_of(x)
    prog = _trace_update_fn(func, t.dtype, t.mesh if not t.mesh.empty else current_trace().mesh)
    return _lax_scatter("apply", x, scatter_indices, full(tuple(update_shape), 0, t.dtype), dimension_numbers,
                        indices_are_sorted=indices_are_sorted, unique_indices=unique_indices, mode=mode,
                        update_fn=prog)
