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
from ..errors import ShardcValueError, ShardingTypeError
from ..sharding import Entry, PartitionSpec
from ..transforms.ad import ct_spec
from ..types import ArrayType
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
        raise ShardcValueError(f"{name} indices must have an integer type, got {idx.dtype.name}")
    if idx.ndim < 1:
        raise ShardcValueError(f"{name} indices must have rank >= 1 (the last dim is the index "
                               f"vector), got {idx.str_short()}")


def _sorted_unique(name: str, what: str, dims, bound: int) -> None:
    if list(dims) != sorted(set(dims)) or any(not 0 <= d < bound for d in dims):
        raise ShardcValueError(f"{name} {what} must be sorted, unique and in [0, {bound}); "
                               f"got {tuple(dims)}")


# --- gather ----------------------------------------------------------------------------------------
def gather_shape(operand: ArrayType, indices: ArrayType, dnums: GatherDimensionNumbers,
                 slice_sizes) -> tuple[int, ...]:
    """`_gather_shape_rule` (the checks XLA needs) and `_gather_shape_computation`."""
    name = "gather"
    _check_int_indices(name, indices)
    d = dnums
    if len(slice_sizes) != operand.ndim:
        raise ShardcValueError(f"gather slice_sizes {tuple(slice_sizes)} must have one entry per "
                               f"operand dim ({operand.shape})")
    out_rank = len(d.offset_dims) + indices.ndim - 1
    _sorted_unique(name, "offset_dims", d.offset_dims, max(out_rank, 1))
    _sorted_unique(name, "collapsed_slice_dims", d.collapsed_slice_dims, operand.ndim)
    _sorted_unique(name, "operand_batching_dims", d.operand_batching_dims, operand.ndim)
    if len(d.offset_dims) + len(d.collapsed_slice_dims) + len(d.operand_batching_dims) != operand.ndim:
        raise ShardcValueError(
            "All components of the offset index in a gather op must either be a offset dimension "
            "or explicitly collapsed/batching; got len(slice_sizes)="
            f"{len(slice_sizes)}, output_slice_sizes={tuple(d.offset_dims)}, collapsed_slice_dims="
            f"{tuple(d.collapsed_slice_dims)}, operand_batching_dims={tuple(d.operand_batching_dims)}.")
    if len(d.start_index_map) != indices.shape[-1]:
        raise ShardcValueError(
            "Gather op has start_index_map of size "
            f"{len(d.start_index_map)} but the index vector dim of indices has size {indices.shape[-1]}")
    if len(set(d.start_index_map)) != len(d.start_index_map) or any(
            not 0 <= i < operand.ndim for i in d.start_index_map):
        raise ShardcValueError(f"gather start_index_map {tuple(d.start_index_map)} must be unique "
                               f"operand dims")
    if len(d.operand_batching_dims) != len(d.start_indices_batching_dims):
        raise ShardcValueError("gather operand_batching_dims and start_indices_batching_dims must "
                               "have the same length")
    for od, idim in zip(d.operand_batching_dims, d.start_indices_batching_dims):
        if not 0 <= idim < indices.ndim - 1 or operand.shape[od] != indices.shape[idim]:
            raise ShardcValueError(
                f"gather batching dims must match: operand dim {od} ({operand.shape[od]}) vs "
                f"indices dim {idim}")
    for i, (s, n) in enumerate(zip(slice_sizes, operand.shape)):
        if not 0 <= s <= n:
            raise ShardcValueError(f"Slice size at index {i} in gather op is out of range, must be "
                                   f"within [0, {n} + 1), got {s}.")
    for i in tuple(d.collapsed_slice_dims) + tuple(d.operand_batching_dims):
        if slice_sizes[i] > 1:
            raise ShardcValueError(f"Gather op can only collapse slice dims with bound 1 or 0, but "
                                   f"bound is {slice_sizes[i]} for index {i} at position ...")
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


# --- scatter-add -------------------------------------------------------------------------------------
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


class ScatterAdd(Primitive):
    """`scatter_add(operand, indices, updates, dimension_numbers, mode, out_sharding)`:
    `operand` with `updates` added at the windows `indices` select."""

    name = "scatter_add"

    def shape_rule(self, operand: ArrayType, indices: ArrayType, updates: ArrayType, *,
                   dimension_numbers, mode="fill", out_sharding=None):
        if mode not in MODES:
            raise ShardcValueError(f'Unknown scatter mode "{mode}"')
        _check_int_indices(self.name, indices)
        d = dimension_numbers
        if updates.dtype != operand.dtype:
            raise ShardcValueError(f"scatter_add updates dtype {updates.dtype.name} must equal the "
                                   f"operand's ({operand.dtype.name})")
        if updates.ndim != len(d.update_window_dims) + indices.ndim - 1:
            raise ShardcValueError(
                f"scatter_add updates {updates.str_short()} must have rank "
                f"{len(d.update_window_dims) + indices.ndim - 1} (window dims plus index batch dims)")
        if len(d.scatter_dims_to_operand_dims) != indices.shape[-1]:
            raise ShardcValueError("scatter_add scatter_dims_to_operand_dims must have one entry per "
                                   "index vector component")
        if len(d.update_window_dims) + len(d.inserted_window_dims) + len(d.operand_batching_dims) \
                != operand.ndim:
            raise ShardcValueError("scatter_add window, inserted and batching dims must cover the "
                                   "operand's dims")
        return [(operand.shape, operand.dtype, operand.weak_type)]

    def sharding_rule(self, operand: ArrayType, indices: ArrayType, updates: ArrayType, *,
                      dimension_numbers, mode="fill", out_sharding=None):
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

    def ur_rule(self, operand: ArrayType, indices: ArrayType, updates: ArrayType, *,
                out_sharding=None, **_):
        _ur_dangerous(self.name, operand, indices, updates)
        return [(_NONE, _NONE)]

    def vjp(self, L, g, ins, outs, *, dimension_numbers, mode="fill", out_sharding=None):
        """JAX's `_scatter_add_transpose_rule`: the operand's cotangent is the
        output's; the updates' is a gather of it at the same windows."""
        operand, indices, updates = ins
        d = dimension_numbers
        cts = [g if isinstance(operand, Tracer) else None, None, None]
        if isinstance(updates, Tracer):
            ut = updates.aval
            pos = 0
            slice_sizes = []
            for i in range(g.aval.ndim):
                if i in d.inserted_window_dims or i in getattr(d, "operand_batching_dims", ()):
                    slice_sizes.append(1)
                else:
                    slice_sizes.append(ut.shape[d.update_window_dims[pos]])
                    pos += 1
            gd = GatherDimensionNumbers(
                offset_dims=tuple(d.update_window_dims), collapsed_slice_dims=tuple(d.inserted_window_dims),
                start_index_map=tuple(d.scatter_dims_to_operand_dims),
                operand_batching_dims=tuple(getattr(d, "operand_batching_dims", ())),
                start_indices_batching_dims=tuple(getattr(d, "scatter_indices_batching_dims", ())))
            cts[2] = bind(gather, g, indices, dimension_numbers=gd, slice_sizes=tuple(slice_sizes),
                          mode=mode, fill_value=0, out_sharding=None)
        return cts

    def format_params(self, p):
        s = f"dimension_numbers=({_dnums_text(p['dimension_numbers'])}) mode={p.get('mode', 'fill')}"
        if p.get("out_sharding") is not None:
            s += f" out_sharding={p['out_sharding']!r}"
        return s

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
        add = "stablehlo.or" if op_t.dtype == dt.bool_ else "stablehlo.add"
        return [ctx.op(
            f'"stablehlo.scatter"({operand}, {indices}, {updates}) <{{indices_are_sorted = false, '
            f'scatter_dimension_numbers = #stablehlo.scatter<{", ".join(attrs)}>, '
            f"unique_indices = false}}> ({{",
            region=[
                f"^bb0(%s0: {st}, %s1: {st}):",
                f"  %s2 = {add} %s0, %s1 : {st}",
                f"  stablehlo.return %s2 : {st}",
                f"}}) : ({ttype(op_t)}, {ttype(idx_t)}, {ttype(upd_t)}) -> {ttype(op_t)}",
            ])]


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


scatter_add = ScatterAdd()
