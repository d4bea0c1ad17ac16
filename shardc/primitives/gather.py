"""`gather` and `scatter_add` (JAX rules §2.12: `x[idx]`, `jnp.take`,
`take_along_axis`, and the transpose of a gather).

Dimension numbers are XLA's (as `jax.lax.GatherDimensionNumbers` /
`ScatterDimensionNumbers`); the index vector is always the last dim of
`indices`, as in JAX.

Sharding (`_gather_spec_computation`): the result's sharding is inferred only
when every indexed operand dim is unsharded or fully sliced, batching dims of
operand and indices agree, and every non-batch dim of the indices is
replicated; offset dims then take the operand's specs and the other result
dims the indices'. Otherwise the user must say what they want with
`out_sharding=` (JAX's `.at[...].get(out_sharding=)`), which is then the
result's sharding whatever the operands' (the gather runs as if the axes were
Auto, and XLA moves the data). Scatter has the inverse rule.

Unreduced/reduced operands are rejected as in JAX 0.10.2 (where they fail
with `Using *pspec is dangerous`); with `out_sharding` a reduced operand is
fine (it is replicated along its R axes).

Out-of-bound indices (`mode`): `"clip"` and `"promise_in_bounds"` clamp (XLA's
gather semantics), `"fill"` returns `fill_value` (NaN for floats, the minimum
for signed ints, the maximum for unsigned ones, True for bools) for windows
that do not fit; a scatter drops out-of-bound windows, except in `"clip"`
mode, where the indices are clamped first.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import dtypes as dt
from ..core import Primitive, Tracer, bind, raise_user_error
from ..emit.text import dense_literal, int_list, tensor_type, ttype
from ..errors import ShardcNotImplementedError, ShardcTypeError, ShardcValueError, ShardingTypeError
from ..sharding import Entry, PartitionSpec
from ..transforms.ad import ct_spec
from ..types import ArrayType
from .shape import iota as iota_p
from .shape import out_sharding_entries

_NONE: frozenset[str] = frozenset()
MODES = ("clip", "fill", "promise_in_bounds")


class GatherDimensionNumbers(NamedTuple):
    """As `jax.lax.GatherDimensionNumbers` (the index vector dim is last)."""
    offset_dims: tuple[int, ...]
    collapsed_slice_dims: tuple[int, ...]
    start_index_map: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    start_indices_batching_dims: tuple[int, ...] = ()


class ScatterDimensionNumbers(NamedTuple):
    """As `jax.lax.ScatterDimensionNumbers` (the index vector dim is last)."""
    update_window_dims: tuple[int, ...]
    inserted_window_dims: tuple[int, ...]
    scatter_dims_to_operand_dims: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    scatter_indices_batching_dims: tuple[int, ...] = ()


def default_fill_value(dtype: np.dtype):
    """`take`'s fill for out-of-bound indices (JAX's defaults)."""
    d = np.dtype(dtype)
    if d == dt.bool_:
        return True
    if dt.is_float(d):
        return np.nan
    info = np.iinfo(d)
    return info.min if dt.is_signed(d) else info.max


def _ur_dangerous(name: str, *ts: ArrayType) -> None:
    for t in ts:
        if t.unreduced or t.reduced:
            raise ShardcValueError(
                f"{name} does not accept unreduced/reduced operands ({t.str_short()}) unless "
                "`out_sharding=` is given; reduce it first with `sc.reshard(x, P(...))` (JAX "
                "0.10.2 fails here too, with `Using *pspec is dangerous when PartitionSpec has "
                "non-empty unreduced/reduced set`)")


def _dnums_text(d) -> str:
    return ", ".join(f"{k}={tuple(v)}" for k, v in d._asdict().items() if v or k in (
        "offset_dims", "update_window_dims"))


def _check_int_indices(name: str, idx: ArrayType) -> None:
    if not dt.is_int(idx.dtype) or idx.dtype == dt.bool_:
        raise ShardcValueError("indices must have an integer type")      # (JAX's words)
    if idx.ndim < 1:
        op = name.capitalize()
        raise ShardcTypeError(f"{op} index leaf dimension must be within [0, rank(indices) + 1). rank(indices) "
                              f"is 0 and {name} index leaf dimension is -1.")


def _is_sorted(dims, op: str, name: str) -> None:
    if any(b < a for a, b in zip(dims, dims[1:])):
        raise ShardcTypeError(f"{name} in {op} op must be sorted; got {dims}")


def _no_duplicate_dims(dims, op: str, name: str) -> None:
    if len(set(dims)) != len(dims):
        raise ShardcTypeError(f"{name} in {op} op must not repeat; got: {dims}.")


def _sorted_dims_in_range(dims, rank: int, op: str, name: str) -> None:
    bad = dims[0] if dims and dims[0] < 0 else dims[-1] if dims and dims[-1] >= rank else None
    if bad:            # (JAX's test: a bad dim 0 is not reported)
        raise ShardcTypeError(f"Invalid {name} set in {op} op; valid range is [0, {rank}); got: {bad}.")


def _dims_in_range(dims, rank: int, op: str, name: str) -> None:
    for dim in dims:
        if dim < 0 or dim >= rank:
            raise ShardcTypeError(f"Invalid {name} set in {op} op; valid range is [0, {rank}); got: {dim}.")


def _disjoint_dims(a, b, op: str, name_a: str, name_b: str) -> None:
    if not set(a).isdisjoint(b):
        raise ShardcTypeError(f"{name_a} and {name_b} in {op} op must be disjoint; got: {a} and {b}.")


def _validate_gather_dims(operand: ArrayType, indices: ArrayType, d: GatherDimensionNumbers) -> None:
    """JAX's ValidateGatherDimensions part of `_gather_shape_rule`, in its order and words."""
    ivd = indices.ndim - 1
    _is_sorted(d.offset_dims, "gather", "offset_dims")
    _no_duplicate_dims(d.offset_dims, "gather", "offset_dims")
    out_rank = len(d.offset_dims) + indices.ndim - 1
    for i, od in enumerate(d.offset_dims):
        if od < 0 or od >= out_rank:
            raise ShardcTypeError(f"Offset dimension {i} in gather op is out of bounds; got {od}, but should "
                                  f"have been in [0, {out_rank})")
    if len(d.start_index_map) != indices.shape[ivd]:
        raise ShardcTypeError(f"Gather op has {len(d.start_index_map)} elements in start_index_map and the "
                              f"bound of dimension index_vector_dim={ivd} of indices is {indices.shape[ivd]}. "
                              "These two numbers must be equal.")
    for i, od in enumerate(d.start_index_map):
        if od < 0 or od >= operand.ndim:
            raise ShardcTypeError(f"Invalid start_index_map; domain is [0, {operand.ndim}), got: {i}->{od}.")
    _no_duplicate_dims(d.start_index_map, "gather", "start_index_map")
    _is_sorted(d.collapsed_slice_dims, "gather", "collapsed_slice_dims")
    _sorted_dims_in_range(d.collapsed_slice_dims, operand.ndim, "gather", "collapsed_slice_dims")
    _no_duplicate_dims(d.collapsed_slice_dims, "gather", "collapsed_slice_dims")
    _no_duplicate_dims(d.operand_batching_dims, "gather", "operand_batching_dims")
    _is_sorted(d.operand_batching_dims, "gather", "operand_batching_dims")
    _sorted_dims_in_range(d.operand_batching_dims, operand.ndim, "gather", "operand_batching_dims")
    _disjoint_dims(d.collapsed_slice_dims, d.operand_batching_dims, "gather", "collapsed_slice_dims",
                   "operand_batching_dims")
    _disjoint_dims(d.start_index_map, d.operand_batching_dims, "gather", "start_index_map",
                   "operand_batching_dims")
    _no_duplicate_dims(d.start_indices_batching_dims, "gather", "start_indices_batching_dims")
    _dims_in_range(d.start_indices_batching_dims, indices.ndim, "gather", "start_indices_batching_dims")
    if ivd in d.start_indices_batching_dims:
        raise ShardcTypeError("Gather op cannot have the index vector dimension as a batching dimension; got "
                              f"{d.start_indices_batching_dims}.")
    if len(d.operand_batching_dims) != len(d.start_indices_batching_dims):
        raise ShardcTypeError("Gather op requires equal numbers of operand_batching_dims and "
                              f"start_indices_batching_dims, got {d.operand_batching_dims} and"
                              f"{d.start_indices_batching_dims}.")
    ob = tuple(operand.shape[i] for i in d.operand_batching_dims)
    ib = tuple(indices.shape[i] for i in d.start_indices_batching_dims)
    if ob != ib:
        raise ShardcTypeError("Gather op requires operand batching dimensions and indices batching dimensions "
                              f"to have the same shape, got {ob} and {ib}.")


def _validate_slice_sizes(operand: ArrayType, indices: ArrayType, d: GatherDimensionNumbers, slice_sizes) -> None:
    if operand.ndim != len(slice_sizes):
        raise ShardcTypeError("Gather op must have one slice size for every input dimension; got: "
                              f"len(slice_sizes)={len(slice_sizes)}, input_shape.rank={operand.ndim}")
    if len(slice_sizes) != len(d.offset_dims) + len(d.collapsed_slice_dims) + len(d.operand_batching_dims):
        raise ShardcTypeError(
            "All components of the offset index in a gather op must either be a offset dimension or explicitly "
            f"collapsed/batching; got len(slice_sizes)={len(slice_sizes)}, output_slice_sizes={d.offset_dims}, "
            f"collapsed_slice_dims={d.collapsed_slice_dims}, operand_batching_dims={d.operand_batching_dims}.")
    empty = 0 in indices.shape
    for i, (size, n) in enumerate(zip(slice_sizes, operand.shape)):
        if not empty and not (size >= 0 and n >= size):
            raise ShardcTypeError(f"Slice size at index {i} in gather op is out of range, must be within "
                                  f"[0, {n} + 1), got {size}.")
    for i, dim in enumerate(d.collapsed_slice_dims):
        if slice_sizes[dim] != 1:
            raise ShardcTypeError(f"Gather op can only collapse slice dims with bound 1, but bound is "
                                  f"{slice_sizes[dim]} for index {dim} at position {i}.")
    for i, dim in enumerate(d.operand_batching_dims):
        if slice_sizes[dim] > 1:
            raise ShardcTypeError(f"Gather op can only have operand batching dims with bound 0/1, but bound is "
                                  f"{slice_sizes[dim]} for index {dim} at position {i}.")


# --- gather ----------------------------------------------------------------------------------------
def gather_shape(operand: ArrayType, indices: ArrayType, dnums: GatherDimensionNumbers,
                 slice_sizes) -> tuple[int, ...]:
    """`_gather_shape_rule` (the checks XLA needs, JAX's errors) and `_gather_shape_computation`."""
    _check_int_indices("gather", indices)
    d = dnums
    _validate_gather_dims(operand, indices, d)
    _validate_slice_sizes(operand, indices, d, slice_sizes)
    out_rank = len(d.offset_dims) + indices.ndim - 1
    batch_shape = iter(indices.shape[:-1])
    window = iter(s for i, s in enumerate(slice_sizes)
                  if i not in d.collapsed_slice_dims and i not in d.operand_batching_dims)
    return tuple(next(window) if i in d.offset_dims else next(batch_shape) for i in range(out_rank))


def gather_spec(operand: ArrayType, indices: ArrayType, dnums: GatherDimensionNumbers,
                slice_sizes) -> tuple[Entry, ...] | None:
    """`_gather_spec_computation`: the result's spec, or None when ambiguous."""
    d = dnums
    out_rank = len(d.offset_dims) + indices.ndim - 1
    op_spec = operand.spec
    idx_spec = list(indices.spec)
    if all(s is None for s in op_spec) and all(s is None for s in idx_spec):
        return (None,) * out_rank
    full_or_replicated = all(slice_sizes[i] == operand.shape[i] or op_spec[i] is None
                             for i in d.start_index_map)
    batching_ok = all(idx_spec[i] == op_spec[o] or op_spec[o] is None or idx_spec[i] is None
                      for o, i in zip(d.operand_batching_dims, d.start_indices_batching_dims))
    non_batch_replicated = all(s is None for i, s in enumerate(idx_spec)
                               if i not in d.start_indices_batching_dims)
    if not (full_or_replicated and batching_ok and non_batch_replicated):
        return None
    for o, i in zip(d.operand_batching_dims, d.start_indices_batching_dims):
        idx_spec[i] = idx_spec[i] or op_spec[o]
    window = iter(i for i in range(operand.ndim)
                  if i not in d.collapsed_slice_dims and i not in d.operand_batching_dims)
    batch = iter(idx_spec)
    return tuple(op_spec[next(window)] if i in d.offset_dims else next(batch) for i in range(out_rank))


class Gather(Primitive):
    """`gather(operand, indices, dimension_numbers, slice_sizes, mode, fill_value,
    out_sharding)`."""

    name = "gather"

    def shape_rule(self, operand: ArrayType, indices: ArrayType, *, dimension_numbers, slice_sizes,
                   mode="fill", fill_value=None, out_sharding=None):
        if mode not in MODES:
            raise ShardcValueError(f'Unknown gather mode "{mode}"')
        shape = gather_shape(operand, indices, dimension_numbers, slice_sizes)
        return [(shape, operand.dtype, operand.weak_type)]

    def sharding_rule(self, operand: ArrayType, indices: ArrayType, *, dimension_numbers, slice_sizes,
                      mode="fill", fill_value=None, out_sharding=None):
        shape = gather_shape(operand, indices, dimension_numbers, slice_sizes)
        if out_sharding is not None:
            return [out_sharding_entries(out_sharding, shape, operand.mesh if not operand.mesh.empty
                                         else indices.mesh)]
        if not (operand.unreduced or operand.reduced or indices.unreduced or indices.reduced):
            spec = gather_spec(operand, indices, dimension_numbers, slice_sizes)
            if spec is None:
                raise ShardingTypeError(
                    "Use `.at[...].get(out_sharding=)` to provide output PartitionSpec for the gather "
                    "indexing as out sharding could not be resolved unambiguously (or would require "
                    f"collectives on inputs). Got operand={operand!r}, indices={indices!r}. In "
                    "shardc: pass `out_sharding=` to `sc.take` (the result is laid out as asked and "
                    "XLA moves the data), or `sc.reshard` the operand/indices first")
            return [spec]
        return [(None,) * len(shape)]

    def ur_rule(self, operand: ArrayType, indices: ArrayType, *, out_sharding=None, **_):
        if out_sharding is None:
            _ur_dangerous(self.name, operand, indices)
            return [(_NONE, _NONE)]
        for t in (operand, indices):
            if t.unreduced:
                raise ShardcValueError(
                    f"gather of an unreduced operand ({t.str_short()}) is not supported; reduce it "
                    "first with `sc.reshard(x, P(...))`")
        if out_sharding.unreduced or out_sharding.reduced:
            raise ShardcValueError("the gather primitive's out_sharding carries partitions only "
                                   f"(got {out_sharding!r}); reshard its result for U/R")
        return [(_NONE, _NONE)]

    def batch(self, B, axis, args, dims, *, dimension_numbers, slice_sizes, mode="fill", fill_value=None,
              out_sharding=None):
        """JAX's `_gather_batching_rule`: a batched operand's batch dim is an offset dim (or,
        with batched indices too, an operand/indices batching dim); batched indices alone add
        a leading batch dim to the indices."""
        operand, indices = args
        od, idd = dims
        d = dimension_numbers
        up = lambda ds: tuple(x + 1 for x in ds)
        if idd is None:
            operand = B.moveaxis(operand, od, 0)
            sizes = (B.type_of(operand).shape[0], *slice_sizes)
            dn = GatherDimensionNumbers((0, *up(d.offset_dims)), up(d.collapsed_slice_dims), up(d.start_index_map),
                                        up(d.operand_batching_dims), tuple(d.start_indices_batching_dims))
        elif od is None:
            indices = B.moveaxis(indices, idd, 0)
            sizes = tuple(slice_sizes)
            dn = GatherDimensionNumbers(up(d.offset_dims), tuple(d.collapsed_slice_dims), tuple(d.start_index_map),
                                        tuple(d.operand_batching_dims), up(d.start_indices_batching_dims))
        else:
            operand = B.moveaxis(operand, od, 0)
            indices = B.moveaxis(indices, idd, 0)
            sizes = (1 if B.type_of(operand).shape[0] else 0, *slice_sizes)
            dn = GatherDimensionNumbers(up(d.offset_dims), up(d.collapsed_slice_dims), up(d.start_index_map),
                                        (0, *up(d.operand_batching_dims)), (0, *up(d.start_indices_batching_dims)))
        osh = None if out_sharding is None else B.insert_spec(out_sharding, 0, axis.entry)
        return B.bind(self, operand, indices, dimension_numbers=dn, slice_sizes=sizes, mode=mode,
                      fill_value=fill_value, out_sharding=osh), 0

    def vjp(self, L, g, ins, outs, *, dimension_numbers, slice_sizes, mode="fill", fill_value=None,
            out_sharding=None):
        """JAX's `_gather_transpose_rule`: scatter-add the cotangent into zeros
        laid out as the operand (the transpose of an `out_sharding` gather runs
        as if the axes were Auto, so its result is given the operand's layout)."""
        operand, indices = ins
        t = operand.aval
        ct_t = g.aval
        mesh_ok = not t.mesh.empty
        z = L.full(t.shape, 0, ct_t.dtype, out_sharding=PartitionSpec(*t.spec) if mesh_ok else None)
        d = dimension_numbers
        sd = ScatterDimensionNumbers(
            update_window_dims=d.offset_dims, inserted_window_dims=d.collapsed_slice_dims,
            scatter_dims_to_operand_dims=d.start_index_map,
            operand_batching_dims=d.operand_batching_dims,
            scatter_indices_batching_dims=d.start_indices_batching_dims)
        forced = PartitionSpec(*t.spec) if out_sharding is not None and mesh_ok else None
        r = bind(scatter_add, z, indices, g, dimension_numbers=sd, mode=mode, out_sharding=forced)
        if mesh_ok and t.mesh.has_explicit and tuple(r.aval.spec) != tuple(t.spec):
            want = t.update(**{"spec": t.spec, "unreduced": ct_spec(t).unreduced,
                               "reduced": ct_spec(t).reduced, "weak_type": False})
            raise_user_error(ShardcValueError(
                f"Expected cotangent type {want} but got {r.aval.update(weak_type=False)} (JAX's "
                "check: the transpose of this gather, a scatter-add, lays its result out "
                "differently from the operand; pass `out_sharding=` to the gather)"), [t])
        return [r, None]

    def format_params(self, p):
        s = (f"dimension_numbers=({_dnums_text(p['dimension_numbers'])}) "
             f"slice_sizes={tuple(p['slice_sizes'])} mode={p.get('mode', 'fill')}")
        if p.get("fill_value") is not None:
            s += f" fill_value={p['fill_value']}"
        if p.get("out_sharding") is not None:
            s += f" out_sharding={p['out_sharding']!r}"
        return s

    def lower(self, ctx, eqn, operand, indices):
        p = eqn.params
        d: GatherDimensionNumbers = p["dimension_numbers"]
        op_t, idx_t = eqn.inputs[0].type, eqn.inputs[1].type
        out_t = eqn.outputs[0].type
        if 0 in out_t.shape:
            return [ctx.splat(0, out_t.dtype, out_t.shape)]
        ivd = idx_t.ndim - 1
        attrs = [f"offset_dims = {int_list(d.offset_dims)}"] if d.offset_dims else []
        if d.collapsed_slice_dims:
            attrs.append(f"collapsed_slice_dims = {int_list(d.collapsed_slice_dims)}")
        if d.operand_batching_dims:
            attrs.append(f"operand_batching_dims = {int_list(d.operand_batching_dims)}")
            attrs.append(f"start_indices_batching_dims = {int_list(d.start_indices_batching_dims)}")
        attrs.append(f"start_index_map = {int_list(d.start_index_map)}")
        attrs.append(f"index_vector_dim = {ivd}")
        sizes = ", ".join(str(int(s)) for s in p["slice_sizes"])
        res_ty = tensor_type(out_t.shape, out_t.dtype)
        g = ctx.op(f'"stablehlo.gather"({operand}, {indices}) <{{dimension_numbers = '
                   f'#stablehlo.gather<{", ".join(attrs)}>, indices_are_sorted = false, '
                   f"slice_sizes = array<i64{': ' + sizes if sizes else ''}>}}> : "
                   f"({ttype(op_t)}, {ttype(idx_t)}) -> {res_ty}")
        if p.get("mode", "fill") != "fill":
            return [g]
        # FILL_OR_DROP: windows that do not fit read the fill value (JAX's `_gather_fill`)
        batch_shape = idx_t.shape[:-1]
        mask = _in_bounds_mask(ctx, indices, idx_t, [op_t.shape[i] - p["slice_sizes"][i]
                                                     for i in d.start_index_map])
        batch_pos = [i for i in range(out_t.ndim) if i not in d.offset_dims]
        mask_b = ctx.op(f"stablehlo.broadcast_in_dim {mask}, dims = {int_list(batch_pos)} : "
                        f"({tensor_type(batch_shape, dt.bool_)}) -> {tensor_type(out_t.shape, dt.bool_)}")
        fv = p.get("fill_value")
        fv = default_fill_value(out_t.dtype) if fv is None else fv
        fill = ctx.splat(fv, out_t.dtype, out_t.shape)
        return [ctx.op(f"stablehlo.select {mask_b}, {g}, {fill} : "
                       f"{tensor_type(out_t.shape, dt.bool_)}, {res_ty}")]


def _in_bounds_mask(ctx, indices: str, idx_t: ArrayType, upper) -> str:
    """`all(0 <= idx[..., k] <= upper[k])` over the index vector dim."""
    it = idx_t.dtype
    signed = dt.is_signed(it)
    cmp = "SIGNED" if signed else "UNSIGNED"
    hi = np.iinfo(it).max
    ub = np.asarray([min(int(u), hi) for u in upper], dtype=it)
    k = idx_t.shape[-1]
    full = tensor_type(idx_t.shape, it)
    bool_full = tensor_type(idx_t.shape, dt.bool_)
    ub_c = ctx.op(f"stablehlo.constant dense<{dense_literal(ub, it)}> : {tensor_type((k,), it)}")
    ub_b = ctx.op(f"stablehlo.broadcast_in_dim {ub_c}, dims = [{idx_t.ndim - 1}] : "
                  f"({tensor_type((k,), it)}) -> {full}")
    ok = ctx.op(f"stablehlo.compare LE, {indices}, {ub_b}, {cmp} : ({full}, {full}) -> {bool_full}")
    if signed:
        zero = ctx.splat(0, it, idx_t.shape)
        ge = ctx.op(f"stablehlo.compare GE, {indices}, {zero}, {cmp} : ({full}, {full}) -> {bool_full}")
        ok = ctx.op(f"stablehlo.and {ok}, {ge} : {bool_full}")
    init = ctx.scalar(True, dt.bool_)
    bt = tensor_type((), dt.bool_)
    return ctx.op(f"stablehlo.reduce({ok} init: {init}) applies stablehlo.and across dimensions = "
                  f"[{idx_t.ndim - 1}] : ({bool_full}, {bt}) -> {tensor_type(idx_t.shape[:-1], dt.bool_)}")


gather = Gather()


# --- the scatter family -------------------------------------------------------------------------------------
def _updates_batching_dims(d: ScatterDimensionNumbers, index_vector_dim: int, updates_rank: int):
    """`_get_updates_batching_dims`."""
    pos: list[int | None] = list(range(index_vector_dim))
    for i in d.update_window_dims:
        pos.insert(i, None)
    if len(pos) != updates_rank:
        raise ShardcValueError("scatter updates rank does not match update_window_dims and indices")
    return tuple(pos.index(i) for i in d.scatter_indices_batching_dims)


def scatter_spec(operand: ArrayType, indices: ArrayType, updates: ArrayType,
                 d: ScatterDimensionNumbers) -> tuple[Entry, ...] | None:
    """`_scatter_spec_computation`: the result's spec, or None when ambiguous."""
    ivd = indices.ndim - 1
    o_spec, i_spec, u_spec = operand.spec, indices.spec, updates.spec
    if all(s is None for s in o_spec + i_spec + u_spec):
        return (None,) * operand.ndim
    u_batch = _updates_batching_dims(d, ivd, updates.ndim)
    window = [i for i in range(operand.ndim)
              if i not in d.inserted_window_dims and i not in d.operand_batching_dims]

    def resolvable(*names):
        return len({a for a in names if a is not None}) <= 1

    ok = (all(resolvable(o_spec[o], i_spec[i], u_spec[u])
              for o, i, u in zip(d.operand_batching_dims, d.scatter_indices_batching_dims, u_batch))
          and all((updates.shape[u] == operand.shape[o] and u_spec[u] == o_spec[o])
                  or (u_spec[u] is None and o_spec[o] is None)
                  for u, o in zip(d.update_window_dims, window))
          and all(o_spec[i] is None for i in d.inserted_window_dims)
          and all(s is None for i, s in enumerate(u_spec)
                  if i not in u_batch and i not in d.update_window_dims)
          and all(s is None for i, s in enumerate(i_spec[:ivd])
                  if i not in d.scatter_indices_batching_dims)
          and i_spec[ivd] is None)
    if not ok:
        return None
    out = list(o_spec)
    for o, i, u in zip(d.operand_batching_dims, d.scatter_indices_batching_dims, u_batch):
        if out[o] is None:
            out[o] = i_spec[i] or u_spec[u]
    for u, o in zip(d.update_window_dims, window):
        if out[o] is None:
            out[o] = u_spec[u]
    return tuple(out)


#: JAX's scatter family: kind -> primitive name
SCATTER_KINDS = {"set": "scatter", "add": "scatter_add", "sub": "scatter_sub", "mul": "scatter_mul",
                 "min": "scatter_min", "max": "scatter_max", "apply": "scatter_apply"}
_COMBINE = {"add": ("stablehlo.add", None), "sub": ("stablehlo.subtract", None),
            "mul": ("stablehlo.multiply", None), "min": ("stablehlo.minimum", "stablehlo.and"),
            "max": ("stablehlo.maximum", "stablehlo.or")}


def scatter_slice_sizes(op_shape, upd_shape, d: ScatterDimensionNumbers) -> list[int]:
    """The window each update covers in the operand (1 on inserted / batching dims)."""
    sizes, pos = [], 0
    for i in range(len(op_shape)):
        if i in d.inserted_window_dims or i in d.operand_batching_dims:
            sizes.append(1)
        else:
            sizes.append(upd_shape[d.update_window_dims[pos]])
            pos += 1
    return sizes


def inverse_gather_dnums(d: ScatterDimensionNumbers) -> GatherDimensionNumbers:
    """The gather that reads back the windows a scatter writes."""
    return GatherDimensionNumbers(
        offset_dims=tuple(d.update_window_dims), collapsed_slice_dims=tuple(d.inserted_window_dims),
        start_index_map=tuple(d.scatter_dims_to_operand_dims),
        operand_batching_dims=tuple(d.operand_batching_dims),
        start_indices_batching_dims=tuple(d.scatter_indices_batching_dims))


def _scatter_shape_checks(name: str, operand: ArrayType, indices: ArrayType, updates: ArrayType,
                          d: ScatterDimensionNumbers) -> None:
    """JAX's `_scatter_shape_rule` (TypeError, JAX's messages) and dtype rule."""
    if not dt.is_int(indices.dtype) or indices.dtype == dt.bool_:
        raise ShardcValueError("indices must have an integer type")
    if updates.dtype != operand.dtype:
        raise ShardcTypeError("lax.scatter requires arguments to have the same dtypes, got "
                              f"{operand.dtype.name}, {updates.dtype.name}.")
    if indices.ndim < 1:
        raise ShardcTypeError(f"{name} indices must have rank >= 1 (the last dim is the index vector), "
                              f"got {indices.str_short()}")
    ivd = indices.ndim - 1
    want = len(d.update_window_dims) + indices.ndim - 1
    if updates.ndim != want:
        raise ShardcTypeError(f"Updates tensor must be of rank {want}; got {updates.ndim}.")
    for what, dims, bound in (("update_window_dims", d.update_window_dims, updates.ndim),
                              ("inserted_window_dims", d.inserted_window_dims, operand.ndim),
                              ("operand_batching_dims", d.operand_batching_dims, operand.ndim)):
        if list(dims) != sorted(set(dims)) or any(not 0 <= x < bound for x in dims):
            raise ShardcTypeError(f"{name} {what} must be sorted, unique and in [0, {bound}); got "
                                  f"{tuple(dims)}")
    if len(d.operand_batching_dims) != len(d.scatter_indices_batching_dims):
        raise ShardcTypeError(
            "Scatter op requires equal numbers of operand_batching_dims and scatter_indices_batching_dims, "
            f"got {tuple(d.operand_batching_dims)} and {tuple(d.scatter_indices_batching_dims)}.")
    window = len(d.update_window_dims) + len(d.inserted_window_dims) + len(d.operand_batching_dims)
    if window != operand.ndim:
        raise ShardcTypeError(f"Scatter op has window of size {window}; doesn't match operand of rank "
                              f"{operand.ndim}.")
    if len(d.scatter_dims_to_operand_dims) != indices.shape[ivd]:
        raise ShardcTypeError(
            f"Scatter op has {len(d.scatter_dims_to_operand_dims)} elements in scatter_dims_to_operand_dims "
            f"and the bound of dimension index_vector_dim={ivd} of indices is {indices.shape[ivd]}. These "
            "two numbers must be equal")
    for i, dim in enumerate(d.scatter_dims_to_operand_dims):
        if not 0 <= dim < operand.ndim:
            raise ShardcTypeError(f"Invalid scatter_dims_to_operand_dims mapping; domain is "
                                  f"[0, {operand.ndim}), got: {i}->{dim}.")
    if len(set(d.scatter_dims_to_operand_dims)) != len(d.scatter_dims_to_operand_dims):
        raise ShardcTypeError(f"{name} scatter_dims_to_operand_dims must not have duplicate entries; got "
                              f"{tuple(d.scatter_dims_to_operand_dims)}")
    full = [operand.shape[i] for i in range(operand.ndim)
            if i not in d.inserted_window_dims and i not in d.operand_batching_dims]
    for i, u in enumerate(d.update_window_dims):
        if updates.shape[u] > full[i]:
            raise ShardcTypeError(
                "Bounds of the window dimensions of updates must not exceed the bounds of the corresponding "
                f"dimensions of operand. For dimension {u}, updates bound is {updates.shape[u]}, operand "
                f"bound is {full[i]}.")
    scatter_dims = [i for i in range(updates.ndim) if i not in d.update_window_dims]
    for k, i in enumerate(scatter_dims):
        if updates.shape[i] != indices.shape[k]:
            raise ShardcTypeError(
                "Bounds of the scatter dimensions of updates must be the same as the bounds of the "
                f"corresponding dimensions of scatter indices. For scatter dimension {i}, updates bound is "
                f"{updates.shape[i]}, indices bound is {indices.shape[k]}.")


class Scatter(Primitive):
    """JAX's scatter family, one instance per combiner: `scatter` (overwrite),
    `scatter_add`, `scatter_sub`, `scatter_mul`, `scatter_min`, `scatter_max`
    and `scatter_apply` (a unary scalar function `update_fn`, a traced program,
    applied at the windows; its `updates` are ignored). Params as JAX's
    (`dimension_numbers`, `indices_are_sorted`, `unique_indices`, `mode`) plus
    `out_sharding` (JAX's `.at[...].op(out_sharding=)`: the result is laid out
    as asked, as if the axes were Auto)."""

    def __init__(self, kind: str):
        self.kind = kind
        super().__init__(SCATTER_KINDS[kind])

    def memory_space_rule(self, operand: ArrayType, *_, **__):
        return operand.memory_space   # JAX's `_scatter_memory_space_rule`: the operand's memory

    def shape_rule(self, operand: ArrayType, indices: ArrayType, updates: ArrayType, *,
                   dimension_numbers, mode="fill", **_):
        if mode not in MODES:
            raise ShardcValueError(f'Unknown scatter mode "{mode}"')
        _scatter_shape_checks(self.name, operand, indices, updates, dimension_numbers)
        if self.kind in ("add", "sub", "mul") and operand.dtype == dt.bool_:
            # JAX traces the combiner (`lax.add` & co.) on the operand's scalars, which refuse bools
            raise ShardcTypeError(f"{self.kind} does not accept dtype bool at position 0. Accepted dtypes at "
                                  "position 0 are subtypes of integer, floating, complexfloating.")
        return [(operand.shape, operand.dtype, operand.weak_type)]

    def sharding_rule(self, operand: ArrayType, indices: ArrayType, updates: ArrayType, *,
                      dimension_numbers, out_sharding=None, **_):
        if out_sharding is not None:
            return [out_sharding_entries(out_sharding, operand.shape, operand.mesh)]
        if any(t.unreduced or t.reduced for t in (operand, indices, updates)):
            return [(None,) * operand.ndim]
        spec = scatter_spec(operand, indices, updates, dimension_numbers)
        if spec is None:
            raise ShardingTypeError(
                "Use `.at[...].set/add/mul/...(out_sharding=)` to provide output PartitionSpec for "
                "the scatter update as out sharding could not be resolved unambiguously (or would "
                f"require collectives on inputs). Got operand={operand!r}, indices={indices!r}, "
                f"updates={updates!r}")
        return [spec]

    def ur_rule(self, operand: ArrayType, indices: ArrayType, updates: ArrayType, **_):
        _ur_dangerous(self.name, operand, indices, updates)
        return [(_NONE, _NONE)]

    def batch(self, B, axis, args, dims, *, dimension_numbers, out_sharding=None, **params):
        """JAX's `_scatter_batching_rule`: operand and updates batched at dim 0 (a window dim,
        or with batched indices a batching dim)."""
        operand, indices, updates = args
        od, idd, ud = dims
        d = dimension_numbers
        up = lambda ds: tuple(x + 1 for x in ds)
        operand = B.bdim_at_front(operand, od, axis.size, axis.entry)
        updates = B.bdim_at_front(updates, ud, axis.size, axis.entry)
        if idd is None:
            dn = ScatterDimensionNumbers((0, *up(d.update_window_dims)), up(d.inserted_window_dims),
                                         up(d.scatter_dims_to_operand_dims), up(d.operand_batching_dims),
                                         tuple(d.scatter_indices_batching_dims))
        else:
            indices = B.bdim_at_front(indices, idd, axis.size, axis.entry)
            dn = ScatterDimensionNumbers(up(d.update_window_dims), up(d.inserted_window_dims),
                                         up(d.scatter_dims_to_operand_dims), (0, *up(d.operand_batching_dims)),
                                         (0, *up(d.scatter_indices_batching_dims)))
        osh = None if out_sharding is None else B.insert_spec(out_sharding, 0, axis.entry)
        return B.bind(self, operand, indices, updates, dimension_numbers=dn, out_sharding=osh, **params), 0

    def check_live(self, live, *, unique_indices=False, **_):
        """JAX's refusals, before any backward op is built."""
        if self.kind == "apply" and any(live):
            raise ShardcNotImplementedError("scatter_apply JVP not implemented")
        if self.kind == "mul" and live[2] and not unique_indices:
            raise ShardcNotImplementedError(
                "scatter_mul gradients are only implemented if `unique_indices=True`")

    def vjp(self, L, g, ins, outs, *, dimension_numbers, mode="fill", unique_indices=False,
            indices_are_sorted=False, out_sharding=None, update_fn=None):
        """JAX's rules: add/sub transpose (`_scatter_addsub_transpose_rule`),
        mul (`_scatter_mul_transpose_rule`), the transposes of `_scatter_jvp`
        (overwrite; the ID trick when indices may repeat) and of
        `_scatter_extremal_jvp` (min/max: tied updates share the cotangent)."""
        operand, indices, updates = ins
        d = dimension_numbers
        kw = dict(dimension_numbers=d, mode=mode, indices_are_sorted=indices_are_sorted,
                  unique_indices=unique_indices)
        gd = inverse_gather_dnums(d)
        sizes = tuple(scatter_slice_sizes(operand.aval.shape, updates.aval.shape, d))
        # a forward given `out_sharding=` ran as if its axes were Auto (JAX's `auto_axes`): so does
        # its backward, each gather laid out as the updates and each scatter as the operand
        auto = out_sharding is not None and not operand.aval.mesh.empty
        g_spec = PartitionSpec(*updates.aval.spec) if auto else None
        if auto:
            kw["out_sharding"] = PartitionSpec(*operand.aval.spec)

        def gather_(x, m=mode, fill=0):
            return bind(gather, x, indices, dimension_numbers=gd, slice_sizes=sizes, mode=m, fill_value=fill,
                        out_sharding=g_spec)

        def scatter_(kind, x, u, **extra):
            return bind(SCATTERS[kind], x, indices, u, **{**kw, **extra})

        if self.kind in ("add", "sub"):
            u_ct = gather_(g) if isinstance(updates, Tracer) else None
            if u_ct is not None and self.kind == "sub":
                u_ct = L.neg(u_ct)
            return [g, None, u_ct]
        if self.kind == "mul":
            op_ct = scatter_("mul", g, updates)
            u_ct = gather_(L.mul(g, operand)) if unique_indices and isinstance(updates, Tracer) else None
            return [op_ct, None, u_ct]
        if self.kind == "set":
            return self._set_vjp(L, g, operand, updates, d, gather_, scatter_, unique_indices)
        if self.kind in ("min", "max"):
            return self._extremal_vjp(L, g, operand, updates, outs[0], gather_, scatter_)
        return [None, None, None]

    @staticmethod
    def _set_vjp(L, g, operand, updates, d, gather_, scatter_, unique_indices):
        ut = updates.aval
        if unique_indices:
            zeros = L.full(ut.shape, 0, g.aval.dtype, out_sharding=_spec_of(ut))
            return [scatter_("set", g, zeros, unique_indices=True), None, gather_(g)]
        return _set_vjp_ids(L, g, operand, updates, d, gather_, scatter_)

    @staticmethod
    def _extremal_vjp(L, g, operand, updates, out, gather_, scatter_):
        """The transpose of `_scatter_extremal_jvp` (its coefficients from the primals)."""
        initial = gather_(operand, "promise_in_bounds", None)
        target = gather_(out, "promise_in_bounds", None)
        successful = L.eq(updates, target)
        retained = L.eq(initial, target)
        ones_u = L.full_like(updates, 1)
        zeros_u = L.zeros_like(updates)
        zeros_op = L.zeros_like(operand)
        plain = dict(mode="fill", unique_indices=False, indices_are_sorted=False)
        num_updates = gather_(scatter_("add", zeros_op, L.select_n(successful, zeros_u, ones_u), **plain),
                              "promise_in_bounds", None)
        num_refs = gather_(scatter_("add", zeros_op, ones_u, **plain), "promise_in_bounds", None)
        upd_norm = L.select_n(retained, L.div(1.0, num_updates), L.div(1.0, L.add(num_updates, 1.0)))
        upd_coef = L.select_n(successful, zeros_u, upd_norm)
        op_norm = L.select_n(retained, L.zeros_like(num_updates), L.div(1.0, L.add(num_updates, 1.0)))
        op_coef = L.div(L.add(-1.0, op_norm), num_refs)
        ct_tu = gather_(g)
        # tangent_out = scatter_add(g_op, idx, gather(g_op) * op_coef + g_upd * upd_coef): its transpose
        back = scatter_("add", L.zeros_like(g), L.mul(ct_tu, op_coef), mode="promise_in_bounds",
                        unique_indices=False, indices_are_sorted=False)
        op_ct = L.add(g, back)
        ct_upd = L.mul(ct_tu, upd_coef)
        return [op_ct, None, ct_upd]

    def format_params(self, p):
        s = f"dimension_numbers=({_dnums_text(p['dimension_numbers'])}) mode={p.get('mode', 'fill')}"
        for k in ("indices_are_sorted", "unique_indices"):
            if p.get(k):
                s += f" {k}=True"
        if p.get("out_sharding") is not None:
            s += f" out_sharding={p['out_sharding']!r}"
        return s

    def sub_programs(self, params):
        return [params["update_fn"]] if params.get("update_fn") is not None else []

    def lower(self, ctx, eqn, operand, indices, updates):
        p = eqn.params
        d: ScatterDimensionNumbers = p["dimension_numbers"]
        op_t, idx_t, upd_t = (a.type for a in eqn.inputs)
        if 0 in upd_t.shape:
            return [operand]
        ivd = idx_t.ndim - 1
        if p.get("mode", "fill") == "clip":
            indices = _clamp_scatter_indices(ctx, indices, idx_t, op_t, upd_t, d)
        attrs = [f"update_window_dims = {int_list(d.update_window_dims)}"] if d.update_window_dims else []
        if d.inserted_window_dims:
            attrs.append(f"inserted_window_dims = {int_list(d.inserted_window_dims)}")
        if d.operand_batching_dims:
            attrs.append(f"input_batching_dims = {int_list(d.operand_batching_dims)}")
            attrs.append(f"scatter_indices_batching_dims = {int_list(d.scatter_indices_batching_dims)}")
        attrs.append(f"scatter_dims_to_operand_dims = {int_list(d.scatter_dims_to_operand_dims)}")
        attrs.append(f"index_vector_dim = {ivd}")
        st = tensor_type((), op_t.dtype)
        sorted_ = "true" if p.get("indices_are_sorted") else "false"
        unique = "true" if p.get("unique_indices") else "false"
        head = (f'"stablehlo.scatter"({operand}, {indices}, {updates}) <{{indices_are_sorted = {sorted_}, '
                f'scatter_dimension_numbers = #stablehlo.scatter<{", ".join(attrs)}>, '
                f"unique_indices = {unique}}}> ({{")
        tail = f"}}) : ({ttype(op_t)}, {ttype(idx_t)}, {ttype(upd_t)}) -> {ttype(op_t)}"
        if self.kind == "apply":
            return [self._lower_apply(ctx, head, tail, st, p["update_fn"])]
        if self.kind == "set":
            body = [f"  stablehlo.return %s1 : {st}"]
        else:
            fop = _COMBINE[self.kind][1 if op_t.dtype == dt.bool_ else 0]
            body = [f"  %s2 = {fop} %s0, %s1 : {st}", f"  stablehlo.return %s2 : {st}"]
        return [ctx.op(head, region=[f"^bb0(%s0: {st}, %s1: {st}):", *body, tail])]

    @staticmethod
    def _lower_apply(ctx, head: str, tail: str, st: str, prog) -> str:
        lhs, names = ctx.results(1)
        ctx.emit(f"{lhs} = {head}")
        inner = ctx.child(prog.mesh)
        inner.constrain = lambda name, t: name  # scalars of a combiner region carry no sharding (as JAX's)
        a0, a1 = inner.fresh("a"), inner.fresh("a")
        ctx.emit(f"^bb0({a0}: {st}, {a1}: {st}):")
        res = inner.lower_body(prog, [a0])
        inner.emit(f"stablehlo.return {res[0]} : {st}")
        ctx.emit(tail + ctx._loc)
        return names[0]


def _spec_of(t: ArrayType) -> PartitionSpec | None:
    return PartitionSpec(*t.spec) if not t.mesh.empty else None


def _set_vjp_ids(L, g, operand, updates, d: ScatterDimensionNumbers, gather_, scatter_):
    """The transpose of `_scatter_jvp` for indices that may repeat: each update
    gets an ID (1, 2, ...), the IDs are scattered and gathered back; the
    operand's cotangent is kept where no update landed, an update's where its
    own ID won."""
    ut = updates.aval
    ids_shape = list(ut.shape)
    for w in d.update_window_dims:
        ids_shape[w] = 1
    n = int(np.prod(ids_shape))
    id_dtype = np.dtype(np.uint8 if n < 2 ** 8 else np.uint16 if n < 2 ** 16 else np.uint32)
    mesh = ut.mesh
    iota = bind(iota_p, dtype=id_dtype, shape=(n,), dimension=0,
                out_sharding=None if mesh.empty else PartitionSpec(None), mesh=mesh)
    update_ids = L.add(L.reshape(iota, ids_shape), L.full(ut.shape, 1, id_dtype, out_sharding=_spec_of(ut)))
    scattered = scatter_("set", L.full(operand.aval.shape, 0, id_dtype), update_ids)
    gathered = gather_(scattered, "promise_in_bounds", None)
    keep_op = L.eq(scattered, L.zeros_like(scattered))
    keep_upd = L.eq(update_ids, gathered)
    op_ct = L.select_n(keep_op, L.zeros_like(g), g)
    u_ct = gather_(g)
    u_ct = L.select_n(keep_upd, L.zeros_like(u_ct), u_ct)
    return [op_ct, None, u_ct]


def _clamp_scatter_indices(ctx, indices: str, idx_t: ArrayType, op_t: ArrayType, upd_t: ArrayType,
                           d: ScatterDimensionNumbers) -> str:
    """JAX's `_clamp_scatter_indices`: each start index into [0, dim - window]."""
    sizes, pos = [], 0
    for i in range(op_t.ndim):
        if i in d.inserted_window_dims or i in d.operand_batching_dims:
            sizes.append(1)
        else:
            sizes.append(upd_t.shape[d.update_window_dims[pos]])
            pos += 1
    it = idx_t.dtype
    hi = np.iinfo(it).max
    ub = np.asarray([min(op_t.shape[i] - sizes[i], hi) for i in d.scatter_dims_to_operand_dims], it)
    k = idx_t.shape[-1]
    full = tensor_type(idx_t.shape, it)
    ub_c = ctx.op(f"stablehlo.constant dense<{dense_literal(ub, it)}> : {tensor_type((k,), it)}")
    ub_b = ctx.op(f"stablehlo.broadcast_in_dim {ub_c}, dims = [{idx_t.ndim - 1}] : "
                  f"({tensor_type((k,), it)}) -> {full}")
    zero = ctx.splat(0, it, idx_t.shape)
    return ctx.op(f"stablehlo.clamp {zero}, {indices}, {ub_b} : ({full}, {full}, {full}) -> {full}")


SCATTERS = {kind: Scatter(kind) for kind in SCATTER_KINDS}
scatter = SCATTERS["set"]
scatter_add = SCATTERS["add"]
scatter_sub = SCATTERS["sub"]
scatter_mul = SCATTERS["mul"]
scatter_min = SCATTERS["min"]
scatter_max = SCATTERS["max"]
scatter_apply = SCATTERS["apply"]
ScatterAdd = Scatter  # the former name of the class
