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

from typing import Any

import numpy as np

from .. import dtypes as dt
from ..core import Const, api, bind, raise_user_error
from ..errors import ShardcNotImplementedError, ShardcTypeError, ShardcValueError
from ..mesh import get_abstract_mesh
from ..primitives import gather as gp
from ..primitives import shape as sp
from ..sharding import PartitionSpec
from ..types import ArrayType
from ._util import as_operand, is_array, normalize_axis, to_spec, type_of
from .creation import asarray, broadcast_to, zeros
from .elementwise import add, astype, equal, less, remainder, where
from .shape import _arr, expand_dims, ravel, reshape
from .sharding import reshard


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
        raise_user_error(ShardcTypeError(f"{what} indices must be of integer type, got {np.dtype(d).name}"))
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
def take(a, indices, axis: int | None = None, mode: str | None = None, fill_value=None, *,
         out_sharding=None):
    """`jnp.take`: elements of `a` at `indices` along `axis` (the flattened `a`
    when None). Out-of-bound indices give `fill_value` (NaN for floats) in the
    default `mode="fill"`; `"clip"` clamps, `"wrap"` wraps. The result's
    sharding follows JAX's gather rule; `out_sharding=` sets it instead (as
    JAX's `a.at[idx].get(out_sharding=)`)."""
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
def take_along_axis(arr, indices, axis: int | None = -1, mode: str | None = None, fill_value=None):
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
    wrap = mode != "promise_in_bounds"
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


def _classify(i):
    """JAX's `IndexType.from_index` for what shardc supports."""
    if i is None:
        return "none"
    if i is Ellipsis:
        return "ellipsis"
    if isinstance(i, slice):
        return "slice"
    if _is_int_scalar(i):
        return "int"
    if is_array(i):
        d = type_of(i).dtype
        if d == dt.bool_:
            return "bool"
        if not dt.is_int(d):
            raise_user_error(ShardcTypeError(
                f"Indexer must have integer or boolean type, got indexer with type {d.name}"))
        return "array"
    if isinstance(i, (np.ndarray, list, tuple)):
        arr = np.asarray(i)
        if arr.dtype == np.bool_:
            return "bool"
        if arr.size == 0 or dt.is_int(arr.dtype):
            return "array"
        raise_user_error(ShardcTypeError(
            f"Indexer must have integer or boolean type, got indexer with type {arr.dtype}"))
    if isinstance(i, (float, complex, np.generic, bool)):
        raise_user_error(ShardcTypeError(
            f"Indexer must have integer or boolean type, got indexer with type {np.dtype(type(i))}"))
    raise_user_error(ShardcTypeError(
        "only integers, slices (`:`), ellipsis (`...`), newaxis (`None`) and integer or boolean "
        f"arrays are valid indices. Got {i}"))


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


def advanced_getitem(x, idx: tuple, *, out_sharding=None):
    """`x[idx]` with integer arrays: one gather, built as JAX's
    `_index_to_gather` builds it (advanced indices broadcast together; their
    dims go where the first one is when they are contiguous, else first)."""
    x = _array(x, "[]")
    t = type_of(x)
    full, kinds, contiguous = _expand_index(t, idx)
    plan = _GatherPlan(t, contiguous)
    plan.build(full, kinds)
    if plan.reversed_y_dims:
        raise_user_error(ShardcNotImplementedError(
            "negative slice steps are not supported by shardc yet"), [t])
    if 0 in plan.slice_shape:
        raise_user_error(ShardcNotImplementedError(
            "indexing that selects no elements is not supported by shardc yet"), [t])
    dnums = gp.GatherDimensionNumbers(offset_dims=tuple(plan.offset_dims),
                                      collapsed_slice_dims=tuple(sorted(plan.collapsed)),
                                      start_index_map=tuple(plan.start_index_map))
    y = _gather(x, plan.indices_operand(), dnums, plan.gather_slice_shape, "promise_in_bounds", None,
                out_sharding)
    if plan.newaxis_dims:
        y = expand_dims(y, tuple(plan.newaxis_dims))
    return y


def _expand_index(t: ArrayType, idx: tuple) -> tuple[list, list[str], bool]:
    """The index with the ellipsis and trailing slices spelled out, negative
    indices normalized, and its kinds; whether the advanced indices are contiguous."""
    kinds = [_classify(i) for i in idx]
    if "bool" in kinds:
        raise_user_error(ShardcNotImplementedError(
            "boolean array indexing is not supported by shardc (its result shape depends on the "
            "mask's values); use sc.where, or integer indices"), [t])
    # sequences become arrays (JAX's convert_sequences_to_arrays)
    idx = tuple(_as_index_array(i) if k == "array" else i for i, k in zip(idx, kinds))
    adv_pos = [p for p, k in enumerate(kinds) if k in ("array", "int")]
    contiguous = all(b - a == 1 for a, b in zip(adv_pos, adv_pos[1:]))
    n_ell = kinds.count("ellipsis")
    if n_ell > 1:
        raise_user_error(ShardcValueError("an index can only have a single ellipsis ('...')"), [t])
    consumed = sum(1 for k in kinds if k not in ("none", "ellipsis"))
    if consumed > t.ndim:
        raise_user_error(ShardcValueError(
            f"Too many indices: array is {t.ndim}-dimensional, but {consumed} were indexed"), [t])
    full, fk = [], []
    for i, k in zip(idx, kinds):
        if k == "ellipsis":
            full += [slice(None)] * (t.ndim - consumed)
            fk += ["slice"] * (t.ndim - consumed)
        else:
            full.append(i)
            fk.append(k)
    if n_ell == 0:
        full += [slice(None)] * (t.ndim - consumed)
        fk += ["slice"] * (t.ndim - consumed)
    return _normalize_negative(t, full, fk), fk, contiguous


def _normalize_negative(t: ArrayType, full: list, kinds: list[str]) -> list:
    """Negative indices counted from the end (static ints in Python, arrays with a select)."""
    axis_of, ax = [], 0
    for k in kinds:
        axis_of.append(ax if k != "none" else None)
        ax += k != "none"
    for p, (i, k) in enumerate(zip(full, kinds)):
        if k == "int":
            size = t.shape[axis_of[p]]
            full[p] = int(i) + size if int(i) < 0 else int(i)
        elif k == "array":
            full[p] = _wrap_negative(i, t.shape[axis_of[p]])
    return full


class _GatherPlan:
    """The gather `_index_to_gather` builds for an expanded index: its dimension
    numbers, slice sizes and the pieces of its index operand."""

    def __init__(self, t: ArrayType, contiguous: bool):
        self.t, self.contiguous = t, contiguous
        self.index_dtype = dt.int32 if all(d <= np.iinfo(np.int32).max for d in t.shape) else np.dtype(np.int64)
        self.offset_dims: list[int] = []
        self.collapsed: list[int] = []
        self.start_index_map: list[int] = []
        self.gather_indices: list[tuple[Any, int]] = []
        self.gather_indices_shape: list[int] = []
        self.slice_shape: list[int] = []
        self.newaxis_dims: list[int] = []
        self.reversed_y_dims: list[int] = []
        self.gather_slice_shape: list[int] = []
        self.x_axis = self.y_axis = self.collapsed_y_axis = 0

    def build(self, full: list, kinds: list[str]) -> None:
        without_none = [(p, i, k) for p, (i, k) in enumerate(zip(full, kinds)) if k != "none"]
        adv = [(i, p, j) for j, (p, i, k) in enumerate(without_none) if k in ("array", "int")]
        idx_adv_axes = [p for _, p, _ in adv]
        for p, (index, k) in enumerate(zip(full, kinds)):
            if adv and (self.contiguous and p == idx_adv_axes[0] or not self.contiguous and p == 0):
                self._advanced([a for a, _, _ in adv], [j for _, _, j in adv])
            if p in idx_adv_axes:
                self.x_axis += 1
                self.gather_slice_shape.append(1)
            elif k == "none":
                self.slice_shape.append(1)
                self.newaxis_dims.append(self.y_axis)
                self.y_axis += 1
            else:
                self._static_slice(index)

    def _advanced(self, arrays: list, x_adv_axes: list[int]) -> None:
        """All advanced indices, broadcast together, at the current output position."""
        arrs = _broadcast_index_arrays(arrays)
        shape = _shape(arrs[0])
        start = len(self.gather_indices_shape)
        self.gather_indices.extend((_convert(a, self.index_dtype), start) for a in arrs)
        self.gather_indices_shape += shape
        self.start_index_map.extend(x_adv_axes)
        self.collapsed.extend(x_adv_axes)
        self.slice_shape.extend(shape)
        self.y_axis += len(shape)
        self.collapsed_y_axis += len(shape)

    def _static_slice(self, index: slice) -> None:
        size = self.t.shape[self.x_axis]
        start, stop, step = index.indices(size)
        n = len(range(start, stop, step))
        self.slice_shape.append(n)
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
                vals = vals[::-1]
            self.gather_slice_shape.append(1)
            self.gather_indices.append((vals, len(self.gather_indices_shape)))
            self.start_index_map.append(self.x_axis)
            self.gather_indices_shape.append(n)
            self.collapsed.append(self.x_axis)
        self.collapsed_y_axis += 1
        self.y_axis += 1
        self.x_axis += 1

    def indices_operand(self):
        """The gather's index array: the index pieces broadcast and concatenated."""
        if len(self.gather_indices) == 1:
            return _expand_last(self.gather_indices[0][0])
        gshape = tuple(self.gather_indices_shape) + (1,)
        parts = []
        for g, i in self.gather_indices:
            gs = _shape(g)
            if not is_array(g):
                g = Const(np.asarray(g), np.asarray(g).dtype)
            parts.append(bind(sp.broadcast_in_dim, g, shape=gshape,
                              broadcast_dimensions=tuple(range(i, i + len(gs))), out_sharding=None))
        return bind(sp.concatenate, *parts, dimension=len(self.gather_indices_shape))


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
    out = []
    for a, s in zip(arrs, shapes):
        if s == shape:
            out.append(a)
        elif is_array(a):
            out.append(broadcast_to(a, shape))
        else:
            out.append(np.broadcast_to(np.asarray(a), shape))
    return out


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
    if is_advanced(idx):  # integer arrays: one gather (JAX's `_index_to_gather`)
        return advanced_getitem(x, idx)
    plan = _BasicIndex(t)
    for i in _expand_basic(t, idx):
        plan.add(i)
    return plan.apply(x)


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
