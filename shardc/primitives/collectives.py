"""Collectives and casts over Manual axes inside `shard_map` (JAX rules §4.3–4.4).

Each primitive carries its varying-manual-axes (VMA) rule: which axes the
result varies over, and which become unreduced/reduced. Lowering emits
StableHLO collectives whose replica groups are logical device ids of the mesh
(positions in the device assignment), with distinct positive channel handles
and `use_global_device_ids`, so they are right for any device order.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from .. import dtypes as dt
from ..core import Primitive, bind, current_trace
from ..emit.text import tensor_type, ttype
from ..errors import ShardcError, ShardcNotImplementedError, ShardcValueError, ShardingTypeError
from ..mesh import AbstractMesh, AxisType
from ..transforms.batching import vmap_axis
from ..types import ArrayType
from . import elementwise as ew
from . import shape as sp
from .reductions import REDUCE

_NONE: frozenset[str] = frozenset()


class UnboundAxisError(ShardcError, NameError):
    """A collective names an axis that is not a Manual axis here (JAX: `NameError`)."""


class ShardcTypeError(ShardcError, TypeError):
    """A bad argument type for a manual-mode API (JAX: plain `TypeError`)."""


# --- helpers -------------------------------------------------------------------------------
def check_manual_axes(mesh: AbstractMesh, axes: Sequence[str], what: str) -> None:
    for a in axes:
        if vmap_axis(a) is not None and a not in mesh.axis_names:
            others = tuple(b for b in axes if b != a)
            raise ShardcNotImplementedError(
                f"{what} over the vmapped axis {a!r} (sc.vmap's axis_name)"
                + (f" together with the axes {others}" if others else "")
                + " is not implemented (psum, pmax, pmin, pmean, all_gather, ppermute and axis_index are)")
        if a not in mesh.axis_names or mesh.axis_type(a) != AxisType.Manual:
            raise UnboundAxisError(
                f"Found an unbound axis name: {a}. To fix this, please call {what} under "
                f"`sc.shard_map` with {a} among its manual axes.")


def set_repr(axes) -> str:
    return "{" + ", ".join(repr(a) for a in sorted(axes)) + "}"


def fs_repr(axes) -> str:
    return "frozenset()" if not axes else f"frozenset({set_repr(axes)})"


def axis_name_repr(axes: Sequence[str]) -> str:
    """How JAX prints the `axis_name` a user passed: `X` or `('X', 'Y')`."""
    return str(axes[0]) if len(axes) == 1 else str(tuple(axes))


def check_unreduced_args(x: ArrayType, axes, name: str) -> None:
    """A collective over axes on which its operand is unreduced/reduced is an error."""
    if x.unreduced & set(axes):
        raise ShardcValueError(f"{name} cannot accept args which are unreduced. Got {x.str_short()} "
                               f"and axes={set_repr(axes)}")
    if x.reduced & set(axes):
        raise ShardcValueError(f"{name} cannot accept args which are reduced. Got {x.str_short()} "
                               f"and axes={set_repr(axes)}")


def axis_groups(mesh: AbstractMesh, axes: Sequence[str]) -> list[list[int]]:
    """Logical device ids grouped so each group spans `axes` (others fixed)."""
    ids = np.arange(mesh.size).reshape(mesh.axis_sizes)
    idx = [mesh.axis_names.index(a) for a in axes]
    other = [i for i in range(len(mesh.axis_names)) if i not in idx]
    n = math.prod(mesh.axis_sizes[i] for i in idx) if idx else 1
    return np.transpose(ids, other + idx).reshape(-1, n).tolist()


def axes_size(mesh: AbstractMesh, axes: Sequence[str]) -> int:
    return math.prod(mesh.axis_size(a) for a in axes)


def dense_groups(groups: list[list[int]]) -> str:
    """Replica groups as a dense attribute; uneven groups padded with -1 (as JAX's
    `_replica_groups_hlo`)."""
    width = max(len(g) for g in groups)
    groups = [list(g) + [-1] * (width - len(g)) for g in groups]
    body = "[" + ", ".join("[" + ", ".join(str(i) for i in g) + "]" for g in groups) + "]"
    return f"dense<{body}> : tensor<{len(groups)}x{width}xi64>"


# --- axis_index_groups: a collective within subgroups of the axes' devices ------------------

def check_index_groups(mesh: AbstractMesh, axes: Sequence[str], groups, *, even: bool) -> None:
    """JAX's `_validate_reduce_axis_index_groups` ("cover all indices exactly once"), also against the
    axes' size (JAX leaves a short or long cover to XLA, which fails), and for the collectives
    whose result shape is the group size (all_gather, psum_scatter, all_to_all) equal sizes."""
    flat = [i for g in groups for i in g]
    n = axes_size(mesh, axes)
    if set(flat) != set(range(len(flat))) or len(flat) != n:
        raise ShardcValueError(
            "axis_index_groups must cover all indices exactly once"
            + ("" if set(flat) != set(range(len(flat))) else
               f" (the indices of axis_name={axis_name_repr(axes)}, of size {n}; got {len(flat)} of them)"))
    if even and any(len(g) != len(groups[0]) for g in groups):
        raise ShardcValueError(f"Replica groups must be equally sized: axis_index_groups={groups}")


def group_size(mesh: AbstractMesh, axes: Sequence[str], groups) -> int:
    """The devices one collective spans: the axes' size, or one group's (JAX: `len(groups[0])`)."""
    return len(groups[0]) if groups is not None else axes_size(mesh, axes)


def replica_groups(mesh: AbstractMesh, axes: Sequence[str], groups) -> list[list[int]]:
    """JAX's `_replica_groups`: the axes' device groups, each split by `axis_index_groups`
    (indices into the group, linearized over `axes` in the order named)."""
    out = axis_groups(mesh, axes)
    if groups is None:
        return out
    return [[g[i] for i in ig] for g in out for ig in groups]


def _groups_param(groups) -> dict:
    """The optional param: present only when given (programs without groups print as before)."""
    return {} if groups is None else {"axis_index_groups": groups}


def _state(t: ArrayType, axes: Sequence[str]) -> set[str]:
    out = set()
    for a in axes:
        if a in t.vma:
            out.add("varying")
        elif a in t.unreduced:
            out.add("unreduced")
        elif a in t.reduced:
            out.add("reduced")
        else:
            out.add("invarying")
    return out


def _state_error(name: str, t: ArrayType, axes, states) -> ShardcValueError:
    return ShardcValueError(
        f"sc.{name} can only accept axis_name which corresponds to one of varying, unreduced, "
        f"reduced or invarying state of the input. Got input type: {t.str_short(short_dtypes=False)}, "
        f"axes: {tuple(axes)} and input state: {{{', '.join(repr(s) for s in sorted(states))}}}")


def _reducer(ctx, combiner: str, dtype) -> list[str]:
    st = tensor_type((), dtype)
    return [f"^bb0(%r0: {st}, %r1: {st}):",
            f"  %r2 = {combiner} %r0, %r1 : {st}",
            f"  stablehlo.return %r2 : {st}"]


class Collective(Primitive):
    """Base: one operand, `axes` param; no sharding change on Explicit axes."""

    auto_pcast = False
    # as JAX: no sharding constraint on a collective's result (in a partial-manual body one
    # on the free axes makes XLA split the collective over them and gather again)
    constrain_outputs = False

    def sharding_rule(self, x: ArrayType, **_):
        (shape, _, _), = self.shape_rule(x, **_)
        if shape == x.shape:
            return [x.spec]
        return [tuple(e if s == d else None for e, s, d in zip(x.spec, x.shape, shape))] \
            if len(shape) == x.ndim else [(None,) * len(shape)]

    def format_params(self, p):
        return " ".join(f"{k}={v!r}" if isinstance(v, str) else f"{k}={v}" for k, v in p.items())

    def batch(self, B, axis, args, dims, **params):
        """Over mesh axes, per example: the batch dim stays where it is (psum/pmax/pmin,
        ppermute); the others shift their dim params past it (below)."""
        return B.bind(self, args[0], **params), dims[0]


# --- all-reduce family --------------------------------------------------------------------------
_ALLREDUCE = {"psum": "stablehlo.add", "pmax": "stablehlo.maximum", "pmin": "stablehlo.minimum"}


class AllReduce(Collective):
    """psum/pmax/pmin over varying axes (→ invariant) or unreduced axes (psum: → invariant).

    `axis_index_groups` (optional param) reduces within each group of the axes' devices; the
    result is typed as JAX types it (invariant over the axes, as without groups)."""

    def __init__(self, name: str):
        super().__init__(name)

    def shape_rule(self, x: ArrayType, *, axes, axis_index_groups=None):
        return [(x.shape, x.dtype, x.weak_type)]

    def ur_rule(self, x: ArrayType, *, axes, axis_index_groups=None):
        states = _state(x, axes)
        if len(states) > 1:
            raise _state_error(self.name, x, axes, states)
        if states == {"unreduced"} and self.name == "psum":   # unreduced_psum: U → invariant
            return [(x.unreduced - set(axes), x.reduced)]
        check_unreduced_args(x, axes, self.name)
        return [(x.unreduced, x.reduced)]

    def vma_rule(self, x: ArrayType, *, axes, axis_index_groups=None):
        return [x.vma - set(axes)]

    def vjp(self, L, g, ins, outs, *, axes, axis_index_groups=None):
        """psum of a varying value transposes to pvary (the cotangent is invariant
        over `axes`, and becomes varying again); where varying axes are not tracked
        (check_vma=False), to psum, as JAX's `_psum_transpose_rule`."""
        if self.name != "psum":
            raise ShardcNotImplementedError(f"differentiation of {self.name} is not supported yet")
        trace = current_trace()
        if trace is not None and not getattr(trace, "check_vma", True):
            return [bind(self, g, axes=axes, **_groups_param(axis_index_groups))]
        x = ins[0].aval
        rest = tuple(a for a in axes if a in x.vma)
        g = bind(pvary, g, axes=rest) if rest else g
        # of an unreduced operand (JAX's unreduced_psum): the cotangent is reduced again (preduced)
        ur = tuple(a for a in axes if a in x.unreduced)
        return [bind(preduced, g, axes=ur) if ur else g]

    def lower(self, ctx, eqn, x):
        t = eqn.inputs[0].type
        groups = replica_groups(ctx.mesh, eqn.params["axes"], eqn.params.get("axis_index_groups"))
        return [ctx.op(
            f'"stablehlo.all_reduce"({x}) <{{channel_handle = {ctx.channel()}, replica_groups = '
            f"{dense_groups(groups)}, use_global_device_ids}}> ({{",
            region=_reducer(ctx, _ALLREDUCE[self.name], t.dtype) +
            [f"}}) : ({ttype(t)}) -> {ttype(eqn.outputs[0].type)}"])]


ALL_REDUCE = {n: AllReduce(n) for n in _ALLREDUCE}


class AllGather(Collective):
    name = "all_gather"

    def batch(self, B, ax, args, dims, *, axes, axis, tiled, to, axis_index_groups=None):
        d = dims[0]
        x = B.moveaxis(args[0], d, 0)
        return B.bind(self, x, axes=axes, axis=axis + 1, tiled=tiled, to=to,
                      **_groups_param(axis_index_groups)), 0

    def vjp(self, L, g, ins, outs, *, axes, axis, tiled, to, axis_index_groups=None):
        """all_gather transposes to psum_scatter along the gathered dim; gathered to an
        invariant value, to this device's block of the (invariant) cotangent, as JAX's
        all_gather_invariant (no communication)."""
        if to == "invarying":
            return [_own_block(g, ins[0].aval, axes, axis, tiled)]
        if to not in ("varying", "reduced"):
            raise ShardcNotImplementedError(f"differentiation of all_gather(to={to!r}) is not supported yet")
        # to="reduced": the cotangent is unreduced, and psum_scatter of it is JAX's unreduced_psum_scatter
        return [bind(psum_scatter, g, axes=axes, scatter_dimension=axis, tiled=tiled,
                     **_groups_param(axis_index_groups))]

    def shape_rule(self, x: ArrayType, *, axes, axis, tiled, to, axis_index_groups=None):
        n = group_size(x.mesh, axes, axis_index_groups)
        shape = list(x.shape)
        if tiled:
            shape[axis] *= n
        else:
            shape.insert(axis, n)
        return [(tuple(shape), x.dtype, x.weak_type)]

    def sharding_rule(self, x: ArrayType, *, axes, axis, tiled, to, axis_index_groups=None):
        # As JAX 0.10.2 (`aval.update(shape=...)`): the free-axis spec is kept position by
        # position; an untiled gather appends an unsharded dim at the end of the spec, whatever
        # `axis` is (so a free axis can move to another dim: XLA reshards accordingly).
        return [tuple(x.spec) if tiled else tuple(x.spec) + (None,)]

    def ur_rule(self, x: ArrayType, *, axes, axis, tiled, to, axis_index_groups=None):
        if to == "reduced":   # all_gather_reduced: varying → reduced
            if not x.vma:
                raise ShardcValueError(f"all_gather_reduced only accepts inputs that are varying. "
                                       f"Got {x.str_short()}")
            if not x.vma & set(axes):
                raise ShardcValueError(
                    "all_gather_reduced is a Varying -> Reduced collective. This means that the "
                    f"axis_name={tuple(axes)} passed to `all_gather_reduced` must be present in "
                    f"sc.typeof(x).vma={fs_repr(x.vma)}")
            if x.reduced & set(axes):
                raise ShardcValueError(
                    "all_gather_reduced's input cannot be reduced across the axis_name provided. "
                    f"Got x={x.str_short()} and axis_name={tuple(axes)}")
            return [(x.unreduced, x.reduced | set(axes))]
        check_unreduced_args(x, axes, "all_gather")
        return [(x.unreduced, x.reduced)]

    def vma_rule(self, x: ArrayType, *, axes, axis, tiled, to, axis_index_groups=None):
        if to in ("reduced", "invarying"):
            return [x.vma - set(axes)]
        return [x.vma]

    def lower(self, ctx, eqn, x):
        t, out = eqn.inputs[0].type, eqn.outputs[0].type
        p = eqn.params
        groups = replica_groups(ctx.mesh, p["axes"], p.get("axis_index_groups"))
        if not p["tiled"]:
            shape = list(t.shape)
            shape.insert(p["axis"], 1)
            x = ctx.op(f"stablehlo.reshape {x} : ({ttype(t)}) -> {tensor_type(shape, t.dtype)}")
            src = tensor_type(shape, t.dtype)
        else:
            src = ttype(t)
        return [ctx.op(
            f'"stablehlo.all_gather"({x}) <{{all_gather_dim = {p["axis"]} : i64, channel_handle = '
            f"{ctx.channel()}, replica_groups = {dense_groups(groups)}, use_global_device_ids}}> : "
            f"({src}) -> {ttype(out)}")]


all_gather = AllGather()

def _own_block(g, t: ArrayType, axes, axis: int, tiled: bool):
    """This device's block (of the operand's type `t`) of a gathered cotangent `g`."""
    trace = current_trace()
    idx = bind(axis_index, axes=axes, mesh=trace.mesh, check_vma=trace.check_vma)
    size = t.shape[axis] if tiled else 1
    start = bind(ew.BINARY["mul"], idx, np.int32(size))
    starts = [start if d == axis else np.int32(0) for d in range(g.aval.ndim)]
    sizes = tuple(size if d == axis else n for d, n in enumerate(g.aval.shape))
    out = bind(sp.dynamic_slice, g, *starts, slice_sizes=sizes)
    return out if tiled else bind(sp.squeeze, out, dimensions=(axis,))


class PsumScatter(Collective):
    name = "psum_scatter"

    def batch(self, B, ax, args, dims, *, axes, scatter_dimension, tiled, axis_index_groups=None):
        x = B.moveaxis(args[0], dims[0], 0)
        return B.bind(self, x, axes=axes, scatter_dimension=scatter_dimension + 1, tiled=tiled,
                      **_groups_param(axis_index_groups)), 0

    def vjp(self, L, g, ins, outs, *, axes, scatter_dimension, tiled, axis_index_groups=None):
        """psum_scatter transposes to all_gather along the scattered dim (of an unreduced operand,
        JAX's unreduced_psum_scatter, to all_gather(to="reduced"))."""
        # (only where VMA is tracked: with check_vma=False the cotangent is not typed varying)
        to = "reduced" if set(axes) <= ins[0].aval.unreduced and set(axes) <= L.type_of(g).vma else "varying"
        return [bind(all_gather, g, axes=axes, axis=scatter_dimension, tiled=tiled, to=to,
                     **_groups_param(axis_index_groups))]

    def shape_rule(self, x: ArrayType, *, axes, scatter_dimension, tiled, axis_index_groups=None):
        n = group_size(x.mesh, axes, axis_index_groups)
        d = scatter_dimension
        shape = list(x.shape)
        if tiled:
            if shape[d] % n:
                raise ShardcValueError(f"tiled reduce_scatter operand scatter dimension size {shape[d]} "
                                       f"must be divisible by shard_count {n}")
            shape[d] //= n
        else:
            if shape[d] != n:
                raise ShardcValueError(f"reduce_scatter operand scatter dimension size {shape[d]} must "
                                       f"match shard count {n}")
            shape.pop(d)
        return [(tuple(shape), x.dtype, x.weak_type)]

    def sharding_rule(self, x: ArrayType, *, axes, scatter_dimension, tiled, axis_index_groups=None):
        spec = list(x.spec)
        if spec[scatter_dimension] is not None:
            raise ShardingTypeError(f"psum_scatter along dim {scatter_dimension} which is sharded "
                                    f"on Explicit axes {spec[scatter_dimension]!r}")
        if not tiled:
            spec.pop(scatter_dimension)
        return [tuple(spec)]

    def ur_rule(self, x: ArrayType, *, axes, **_):
        states = _state(x, axes)
        if len(states) > 1:
            raise _state_error(self.name, x, axes, states)
        if states == {"unreduced"}:   # unreduced_psum_scatter: U → varying
            return [(x.unreduced - set(axes), x.reduced)]
        check_unreduced_args(x, axes, "reduce_scatter")
        return [(x.unreduced, x.reduced)]

    def vma_rule(self, x: ArrayType, *, axes, **_):
        if set(axes) <= x.unreduced:
            return [x.vma | set(axes)]
        return [x.vma]

    def lower(self, ctx, eqn, x):
        t, out = eqn.inputs[0].type, eqn.outputs[0].type
        p = eqn.params
        groups = replica_groups(ctx.mesh, p["axes"], p.get("axis_index_groups"))
        d = p["scatter_dimension"]
        tiled_shape = list(t.shape)
        tiled_shape[d] //= group_size(ctx.mesh, p["axes"], p.get("axis_index_groups"))
        r = ctx.op(
            f'"stablehlo.reduce_scatter"({x}) <{{channel_handle = {ctx.channel()}, replica_groups = '
            f"{dense_groups(groups)}, scatter_dimension = {d} : i64, use_global_device_ids}}> ({{",
            region=_reducer(ctx, "stablehlo.add", t.dtype) +
            [f"}}) : ({ttype(t)}) -> {tensor_type(tiled_shape, t.dtype)}"])
        if not p["tiled"]:
            r = ctx.op(f"stablehlo.reshape {r} : ({tensor_type(tiled_shape, t.dtype)}) -> {ttype(out)}")
        return [r]


psum_scatter = PsumScatter()


class Ppermute(Collective):
    name = "ppermute"

    def vjp(self, L, g, ins, outs, *, axes, perm):
        """ppermute transposes to the inverse permutation."""
        return [bind(ppermute, g, axes=axes, perm=tuple((d, s) for s, d in perm))]

    def shape_rule(self, x: ArrayType, *, axes, perm):
        n = axes_size(x.mesh, axes)
        srcs, dsts = [s for s, _ in perm], [d for _, d in perm]
        if len(set(srcs)) != len(srcs) or len(set(dsts)) != len(dsts) or \
                any(not 0 <= i < n for i in srcs + dsts):
            raise ShardcValueError(f"ppermute perm {perm} must be a partial permutation of range({n})")
        return [(x.shape, x.dtype, x.weak_type)]

    def ur_rule(self, x: ArrayType, *, axes, **_):
        check_unreduced_args(x, axes, "ppermute")
        return [(x.unreduced, x.reduced)]

    def vma_rule(self, x: ArrayType, **_):
        return [x.vma]

    def lower(self, ctx, eqn, x):
        t = eqn.inputs[0].type
        pairs = []
        # as JAX: `perm` indexes each group's devices in mesh order, whatever order the axes
        # were named in
        for g in axis_groups(ctx.mesh, eqn.params["axes"]):
            g = sorted(g)
            pairs.extend([g[s], g[d]] for s, d in eqn.params["perm"])
        body = "[" + ", ".join(f"[{a}, {b}]" for a, b in pairs) + "]"
        return [ctx.op(
            f'"stablehlo.collective_permute"({x}) <{{channel_handle = {ctx.channel()}, '
            f"source_target_pairs = dense<{body}> : tensor<{len(pairs)}x2xi64>}}> : ({ttype(t)}) -> {ttype(t)}")]


ppermute = Ppermute()


class AllToAll(Collective):
    name = "all_to_all"

    def batch(self, B, ax, args, dims, *, axes, split_axis, concat_axis, tiled, axis_index_groups=None):
        x = B.moveaxis(args[0], dims[0], 0)
        return B.bind(self, x, axes=axes, split_axis=split_axis + 1, concat_axis=concat_axis + 1, tiled=tiled,
                      **_groups_param(axis_index_groups)), 0

    def vjp(self, L, g, ins, outs, *, axes, split_axis, concat_axis, tiled, axis_index_groups=None):
        """all_to_all transposes to the all_to_all that swaps split and concat."""
        return [bind(all_to_all, g, axes=axes, split_axis=concat_axis, concat_axis=split_axis, tiled=tiled,
                     **_groups_param(axis_index_groups))]

    def shape_rule(self, x: ArrayType, *, axes, split_axis, concat_axis, tiled, axis_index_groups=None):
        n = group_size(x.mesh, axes, axis_index_groups)
        shape = list(x.shape)
        if tiled:
            if shape[split_axis] % n:
                raise ShardcValueError(
                    f"The size of all_to_all split_axis ({shape[split_axis]}) has to be divisible by "
                    f"the size of the named axis {axis_name_repr(axes)} ({n})")
            shape[split_axis] //= n
            shape[concat_axis] *= n
        else:
            if shape[split_axis] != n:
                raise ShardcValueError(
                    "all_to_all requires the size of the mapped axis axis_name to equal "
                    f"x.shape[split_axis], but they are {n} and {shape[split_axis]} respectively.")
            shape.pop(split_axis)
            shape.insert(concat_axis, n)
        return [(tuple(shape), x.dtype, False)]

    def sharding_rule(self, x: ArrayType, *, split_axis, concat_axis, **_):
        return [x.spec]   # as JAX: the free-axis spec is kept position by position

    def ur_rule(self, x: ArrayType, *, axes, **_):
        check_unreduced_args(x, axes, "all_to_all")
        return [(x.unreduced, x.reduced)]

    def vma_rule(self, x: ArrayType, **_):
        return [x.vma]

    def lower(self, ctx, eqn, x):
        t, out = eqn.inputs[0].type, eqn.outputs[0].type
        p = eqn.params
        n = group_size(ctx.mesh, p["axes"], p.get("axis_index_groups"))
        groups = replica_groups(ctx.mesh, p["axes"], p.get("axis_index_groups"))
        split, concat = p["split_axis"], p["concat_axis"]
        shape = list(t.shape)
        if not p["tiled"] and split != concat:
            # as JAX: insert a size-1 dim at `concat`, exchange tiles of the split dim into it,
            # then drop the (now size-1) split dim
            if split < concat:
                concat += 1
            else:
                split += 1
            shape.insert(concat, 1)
            x = ctx.op(f"stablehlo.reshape {x} : ({ttype(t)}) -> {tensor_type(shape, t.dtype)}")
        src = tensor_type(shape, t.dtype)
        tiled_out = list(shape)
        tiled_out[split] //= n
        tiled_out[concat] *= n
        r = ctx.op(
            f'"stablehlo.all_to_all"({x}) <{{channel_handle = {ctx.channel()}, concat_dimension = '
            f"{concat} : i64, replica_groups = {dense_groups(groups)}, split_count = {n} : i64, "
            f"split_dimension = {split} : i64}}> : ({src}) -> {tensor_type(tiled_out, t.dtype)}")
        if tuple(tiled_out) != tuple(out.shape):
            r = ctx.op(f"stablehlo.reshape {r} : ({tensor_type(tiled_out, t.dtype)}) -> {ttype(out)}")
        return [r]


all_to_all = AllToAll()


class AxisIndex(Primitive):
    """`axis_index(axes)`: this device's (linearized) coordinate along `axes`."""

    name = "axis_index"
    auto_pcast = False

    def shape_rule(self, *, axes, mesh, check_vma=True):
        return [((), dt.int32, False)]

    def sharding_rule(self, **_):
        return [()]

    def ur_rule(self, **_):
        return [(_NONE, _NONE)]

    def vma_rule(self, *, axes, mesh, check_vma=True):
        # varying over its axes, unless the shard_map does not track varying axes
        return [frozenset(axes) if check_vma else _NONE]

    def format_params(self, p):
        return f"axes={tuple(p['axes'])}"

    def lower(self, ctx, eqn):
        mesh = ctx.mesh
        free = [a for a in mesh.axis_names if mesh.axis_type(a) != AxisType.Manual]
        if not free or len(free) == len(mesh.axis_names):
            return [self._index(ctx, eqn.params["axes"])]
        # In a partial-manual body `partition_id` is ambiguous to the SPMD partitioner: read it
        # inside a nested manual computation over the free axes (as JAX does).
        name = ctx.fresh()
        sym = ctx.mesh_symbol(mesh)
        axes = ", ".join(f'"{a}"' for a in free)
        ctx.emit(f"{name} = sdy.manual_computation() in_shardings=[] out_shardings=[<{sym}, []>] "
                 f"manual_axes={{{axes}}} () {{")
        inner = ctx.child(mesh.with_axis_types({a: AxisType.Manual for a in free}))
        r = self._index(inner, eqn.params["axes"])
        inner.emit(f"sdy.return {r} : {tensor_type((), dt.int32)}")
        ctx.emit(f"}} : () -> {tensor_type((), dt.int32)}{ctx._loc}")
        return [name]

    @staticmethod
    def _index(ctx, axes) -> str:
        mesh = ctx.mesh
        i32 = tensor_type((), dt.int32)
        pid = ctx.op("stablehlo.partition_id : tensor<ui32>")
        pid = ctx.op(f"stablehlo.convert {pid} : (tensor<ui32>) -> {i32}")
        acc = None
        for a in axes:
            k = mesh.axis_names.index(a)
            stride = math.prod(mesh.axis_sizes[k + 1:])
            c_stride = ctx.scalar(stride, dt.int32)
            c_size = ctx.scalar(mesh.axis_sizes[k], dt.int32)
            q = ctx.op(f"stablehlo.divide {pid}, {c_stride} : {i32}")
            coord = ctx.op(f"stablehlo.remainder {q}, {c_size} : {i32}")
            if acc is None:
                acc = coord
            else:
                c_n = ctx.scalar(mesh.axis_sizes[k], dt.int32)
                acc = ctx.op(f"stablehlo.add {ctx.op(f'stablehlo.multiply {acc}, {c_n} : {i32}')}, {coord} : {i32}")
        return acc


axis_index = AxisIndex()


# --- collectives over a vmapped axis (sc.vmap's axis_name) ---------------------------------------
class VmapCollective(Primitive):
    """A collective over the named axis of an enclosing `sc.vmap` (`sc.psum(x, "batch")`): it
    exists only in the mapped function's per-example program, where it is typed per example;
    the vmap's batching rule below replaces it by array ops over the batch dim (JAX's
    `_batched_reduction_collective`, `_all_gather_batched_collective`, `_reduce_scatter_batcher`,
    `_all_to_all_batched_collective`, `_ppermute_batcher`, `_axis_index_batcher`), so it is never
    lowered. `axis` is the gather / scatter / split dim, `concat` all_to_all's concat dim."""

    auto_pcast = False
    constrain_outputs = False

    def __init__(self, kind: str):
        self.kind = kind
        super().__init__(f"vmap_{kind}")

    def shape_rule(self, *xs: ArrayType, axis_name, size, entry=None, axis=0, tiled=False, perm=(), concat=0):
        if self.kind == "axis_index":
            return [((), dt.int32, False)]
        x = xs[0]
        shape = list(x.shape)
        if self.kind == "all_gather":
            if tiled:
                shape[axis] *= size
            else:
                shape.insert(axis, size)
        elif self.kind in ("psum_scatter", "all_to_all"):
            n = shape[axis]
            if tiled and n % size:
                raise ShardcValueError(f"tiled {self.kind} operand dimension {axis} of size {n} must be divisible "
                                       f"by the size of the vmapped axis {axis_name!r} ({size})")
            if not tiled and n != size:
                raise ShardcValueError(f"{self.kind} operand dimension {axis} of size {n} must match the size of "
                                       f"the vmapped axis {axis_name!r} ({size})")
            if tiled:
                shape[axis] //= size
                if self.kind == "all_to_all":
                    shape[concat] *= size
            else:
                shape.pop(axis)
                if self.kind == "all_to_all":
                    shape.insert(concat, size)
        return [(tuple(shape), x.dtype, x.weak_type)]

    def sharding_rule(self, *xs: ArrayType, axis_name, size, entry=None, axis=0, tiled=False, perm=(), concat=0):
        if self.kind == "axis_index":
            return [()]
        spec = list(xs[0].spec)
        if self.kind == "all_gather":
            if tiled:
                spec[axis] = None
            else:
                spec.insert(axis, entry)
        elif self.kind in ("psum_scatter", "all_to_all"):
            if tiled:
                spec[axis] = None
                if self.kind == "all_to_all":
                    spec[concat] = None
            else:
                spec.pop(axis)
                if self.kind == "all_to_all":
                    spec.insert(concat, None)
        return [tuple(spec)]

    def ur_rule(self, *xs: ArrayType, **_):
        return [(xs[0].unreduced, xs[0].reduced)] if xs else [(_NONE, _NONE)]

    def vma_rule(self, *xs: ArrayType, **_):
        return [xs[0].vma] if xs else [_NONE]

    def batch_always(self, *, axis_name, **_) -> Any:
        """The vmap whose axis this names batches it even when its operand is unbatched."""
        return axis_name

    def batch(self, B, ax, args, dims, *, axis_name, size, entry=None, axis=0, tiled=False, perm=(), concat=0):
        if axis_name != ax.name:   # an enclosing vmap's axis: that vmap batches it
            out = B.bind(self, *args, axis_name=axis_name, size=size, entry=entry, axis=axis, tiled=tiled, perm=perm,
                         concat=concat)
            return out, (dims[0] if dims else None)
        if self.kind == "axis_index":
            return B.bind(sp.iota, dtype=dt.int32, shape=(size,), dimension=0, out_sharding=None, mesh=None), 0
        x, d = args[0], dims[0]
        if self.kind == "ppermute":
            if d is None:
                return x, None
            src = [0] * size
            for s, t in perm:
                src[t] = s
            return B.take_static(x, src, d), d
        if self.kind == "all_gather":
            y = B.moveaxis(x, d, axis) if d is not None else B.broadcast(x, size, axis, None)
            return (_merge(B, y, axis) if tiled else y), None
        if self.kind == "psum_scatter":   # the sum over examples; example k keeps block k of `axis`
            y = B.reduce_sum(x, (d,)) if d is not None else B.mul(x, size)
            return (_split(B, y, axis, size) if tiled else y), axis
        if self.kind == "all_to_all":     # example k gets block k of every example, in example order
            x = B.bdim_at_front(x, d, size, None)
            if tiled:
                x = _split(B, x, axis + 1, size)
            y = B.moveaxis(x, axis + 1, 0)          # [k, e, rest]
            y = B.moveaxis(y, 1, 1 + concat)        # e just before the concat dim
            return (_merge(B, y, 1 + concat) if tiled else y), 0
        if d is None:   # the same value in every example: JAX's `_constant_reduction`
            return (B.mul(x, size) if self.kind == "psum" else x), None
        red = {"psum": "sum", "pmax": "max", "pmin": "min"}[self.kind]
        if red == "sum":
            return B.reduce_sum(x, (d,)), None
        return B.bind(REDUCE[red], x, axes=(d,), out_sharding=None), None

    def check_live(self, live, **_):
        """pmax / pmin over a vmapped axis have no derivative in JAX (checked before any rule runs,
        so the error names the user's line)."""
        if self.kind in ("pmax", "pmin") and any(live):
            raise ShardcNotImplementedError(f"Differentiation rule for '{self.kind}' not implemented")

    def vjp(self, L, g, ins, outs, *, axis_name, size, entry=None, axis=0, tiled=False, perm=(), concat=0):
        """JAX's transposes over a named (vmapped) axis: psum <-> psum, all_gather <-> psum_scatter,
        ppermute by the inverse permutation, all_to_all with split and concat dims swapped;
        pmax / pmin have none (JAX's NotImplementedError)."""
        kw = dict(axis_name=axis_name, size=size, entry=entry)
        if self.kind == "axis_index":
            return []
        other = {"psum": "psum", "all_gather": "psum_scatter", "psum_scatter": "all_gather",
                 "ppermute": "ppermute", "all_to_all": "all_to_all"}[self.kind]
        if self.kind == "ppermute":
            kw["perm"] = tuple((b, a) for a, b in perm)
        elif self.kind == "all_to_all":
            kw.update(axis=concat, concat=axis, tiled=tiled)
        elif self.kind != "psum":
            kw.update(axis=axis, tiled=tiled)
        return [bind(VMAP_COLLECTIVES[other], g, **kw)]

    def lower(self, ctx, eqn, *args):
        raise ShardcNotImplementedError(f"{self.name} outside sc.vmap")


def _split(B, y, dim: int, size: int):
    """Dim `dim` of `y` split into (size, n // size)."""
    t = B.type_of(y)
    return B.reshape(y, (*t.shape[:dim], size, t.shape[dim] // size, *t.shape[dim + 1:]))


def _merge(B, y, dim: int):
    """Dims `dim` and `dim + 1` of `y` merged into one."""
    t = B.type_of(y)
    return B.reshape(y, (*t.shape[:dim], t.shape[dim] * t.shape[dim + 1], *t.shape[dim + 2:]))


VMAP_COLLECTIVES = {k: VmapCollective(k) for k in ("psum", "pmax", "pmin", "all_gather", "ppermute", "axis_index",
                                                    "psum_scatter", "all_to_all")}


# --- casts between varying / invariant / unreduced / reduced --------------------------------
class Pcast(Primitive):
    """`pcast(x, axes, to=...)` and the implicit `pvary`: type-only casts
    (no data moves), so they lower to nothing."""

    auto_pcast = False
    constrain_outputs = False

    def __init__(self, name: str, src: str, dst: str):
        self.src, self.dst = src, dst
        super().__init__(name)

    def shape_rule(self, x: ArrayType, *, axes):
        return [(x.shape, x.dtype, x.weak_type)]

    def sharding_rule(self, x: ArrayType, **_):
        return [x.spec]

    def _check(self, x: ArrayType, axes) -> None:
        if self.name == "pvary":
            check_unreduced_args(x, axes, "pvary")
        if self.name == "vary_unreduced_cast" and not set(axes) <= x.vma:
            raise ShardcValueError(
                "vary_unreduced_cast is a Varying->Unreduced collective. This means that the axis "
                "names mentioned in `axes` passed to `vary_unreduced_cast` must be present in "
                f"`sc.typeof(x).vma`. Got axes={tuple(axes)} and sc.typeof(x).vma={fs_repr(x.vma)}")

    def ur_rule(self, x: ArrayType, *, axes):
        self._check(x, axes)
        u, r = x.unreduced, x.reduced
        if self.dst == "unreduced":
            u = u | set(axes)
        if self.dst == "reduced":
            r = r | set(axes)
        if self.src == "reduced":
            r = r - set(axes)
        return [(u, r)]

    def vma_rule(self, x: ArrayType, *, axes):
        if self.dst == "varying":
            return [x.vma | set(axes)]
        if self.src == "varying":
            return [x.vma - set(axes)]
        return [x.vma]

    def batch(self, B, axis, args, dims, *, axes):
        return B.bind(self, args[0], axes=axes), dims[0]

    def vjp(self, L, g, ins, outs, *, axes):
        """pvary (invariant→varying) and preduced (invariant→reduced) transpose to psum, the
        varying↔unreduced/reduced casts to each other."""
        if self.name == "pvary":
            return [bind(ALL_REDUCE["psum"], g, axes=axes)]
        if self.name == "preduced":   # Invariant->Reduced transposes to unreduced_psum, as JAX
            return [bind(ALL_REDUCE["psum"], g, axes=axes)]
        # as JAX: Varying->Unreduced and Reduced->Varying transpose to each other
        if self.name == "vary_unreduced_cast":
            return [bind(reduced_vary_cast, g, axes=axes)]
        if self.name == "reduced_vary_cast":
            return [bind(vary_unreduced_cast, g, axes=axes)]
        raise ShardcNotImplementedError(f"differentiation of {self.name} is not supported yet")

    def format_params(self, p):
        return f"axes={tuple(p['axes'])}"

    def lower(self, ctx, eqn, x):
        return [x]


pvary = Pcast("pvary", "invarying", "varying")
vary_unreduced_cast = Pcast("vary_unreduced_cast", "varying", "unreduced")
preduced = Pcast("preduced", "invarying", "reduced")
reduced_vary_cast = Pcast("reduced_vary_cast", "reduced", "varying")

PCAST = {("invarying", "varying"): pvary, ("varying", "unreduced"): vary_unreduced_cast,
         ("invarying", "reduced"): preduced, ("reduced", "varying"): reduced_vary_cast}
