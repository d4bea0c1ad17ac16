"""Collectives and casts over Manual axes inside `shard_map` (JAX rules §4.3–4.4).

Each primitive carries its varying-manual-axes (VMA) rule: which axes the
result varies over, and which become unreduced/reduced. Lowering emits
StableHLO collectives whose replica groups are logical device ids of the mesh
(positions in the device assignment), with distinct positive channel handles
and `use_global_device_ids`, so they are right for any device order.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from .. import dtypes as dt
from ..errors import ShardcNotImplementedError, ShardcValueError, ShardingTypeError
from ..mesh import AbstractMesh, AxisType
from ..types import ArrayType
from ..emit.text import int_list, tensor_type, ttype
from .core import Primitive

_NONE: frozenset[str] = frozenset()


# --- helpers -------------------------------------------------------------------------------
def check_manual_axes(mesh: AbstractMesh, axes: Sequence[str], what: str) -> None:
    for a in axes:
        if a not in mesh.axis_names or mesh.axis_type(a) != AxisType.Manual:
            raise ShardcValueError(
                f"Found an unbound axis name: {a}. To fix this, please call {what} under "
                "`sc.shard_map` with that axis among its manual axes.")


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
    body = "[" + ", ".join("[" + ", ".join(str(i) for i in g) + "]" for g in groups) + "]"
    return f"dense<{body}> : tensor<{len(groups)}x{len(groups[0])}xi64>"


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
    constrain_outputs = True

    def sharding_rule(self, x: ArrayType, **_):
        (shape, _, _), = self.shape_rule(x, **_)
        if shape == x.shape:
            return [x.spec]
        return [tuple(e if s == d else None for e, s, d in zip(x.spec, x.shape, shape))] \
            if len(shape) == x.ndim else [(None,) * len(shape)]

    def format_params(self, p):
        return " ".join(f"{k}={v!r}" if isinstance(v, str) else f"{k}={v}" for k, v in p.items())


# --- all-reduce family --------------------------------------------------------------------------
_ALLREDUCE = {"psum": "stablehlo.add", "pmax": "stablehlo.maximum", "pmin": "stablehlo.minimum"}


class AllReduce(Collective):
    """psum/pmax/pmin over varying axes (→ invariant) or unreduced axes (psum: → invariant)."""

    def __init__(self, name: str):
        super().__init__(name)

    def shape_rule(self, x: ArrayType, *, axes):
        return [(x.shape, x.dtype, x.weak_type)]

    def ur_rule(self, x: ArrayType, *, axes):
        states = _state(x, axes)
        if states == {"unreduced"} and self.name == "psum":
            return [(x.unreduced - set(axes), x.reduced)]
        return [(x.unreduced, x.reduced)]

    def vma_rule(self, x: ArrayType, *, axes):
        states = _state(x, axes)
        if len(states) > 1:
            raise _state_error(self.name, x, axes, states)
        if states == {"reduced"} or (states == {"unreduced"} and self.name != "psum"):
            raise ShardcNotImplementedError(
                f"sc.{self.name} over axes where the input is {states.pop()} is not supported")
        return [x.vma - set(axes)]

    def vjp(self, g, ins, outs, *, axes):
        """psum of a varying value transposes to pvary (the cotangent is invariant
        over `axes`, and becomes varying again)."""
        from ..frontend.tracing import bind
        if self.name != "psum":
            from ..errors import ShardcNotImplementedError
            raise ShardcNotImplementedError(f"differentiation of {self.name} is not supported yet")
        x = ins[0].aval
        rest = tuple(a for a in axes if a in x.vma)
        return [bind(pvary, g, axes=rest) if rest else g]

    def lower(self, ctx, eqn, x):
        t = eqn.inputs[0].type
        groups = axis_groups(ctx.mesh, eqn.params["axes"])
        return [ctx.op(
            f'"stablehlo.all_reduce"({x}) <{{channel_handle = {ctx.channel()}, replica_groups = '
            f"{dense_groups(groups)}, use_global_device_ids}}> ({{",
            region=_reducer(ctx, _ALLREDUCE[self.name], t.dtype) +
            [f"}}) : ({ttype(t)}) -> {ttype(eqn.outputs[0].type)}"])]


ALL_REDUCE = {n: AllReduce(n) for n in _ALLREDUCE}


class AllGather(Collective):
    name = "all_gather"

    def shape_rule(self, x: ArrayType, *, axes, axis, tiled, to):
        n = axes_size(x.mesh, axes)
        shape = list(x.shape)
        if tiled:
            shape[axis] *= n
        else:
            shape.insert(axis, n)
        return [(tuple(shape), x.dtype, x.weak_type)]

    def sharding_rule(self, x: ArrayType, *, axes, axis, tiled, to):
        spec = list(x.spec)
        if tiled:
            if spec[axis] is not None:
                raise ShardingTypeError(f"all_gather along dim {axis} which is sharded on "
                                        f"Explicit axes {spec[axis]!r}")
        else:
            spec.insert(axis, None)
        return [tuple(spec)]

    def ur_rule(self, x: ArrayType, *, axes, axis, tiled, to):
        if to == "reduced":
            return [(x.unreduced, x.reduced | set(axes))]
        return [(x.unreduced, x.reduced)]

    def vma_rule(self, x: ArrayType, *, axes, axis, tiled, to):
        if to == "reduced":
            return [x.vma - set(axes)]
        return [x.vma]

    def lower(self, ctx, eqn, x):
        t, out = eqn.inputs[0].type, eqn.outputs[0].type
        p = eqn.params
        groups = axis_groups(ctx.mesh, p["axes"])
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


class PsumScatter(Collective):
    name = "psum_scatter"

    def shape_rule(self, x: ArrayType, *, axes, scatter_dimension, tiled):
        n = axes_size(x.mesh, axes)
        d = scatter_dimension
        shape = list(x.shape)
        if tiled:
            if shape[d] % n:
                raise ShardcValueError(f"psum_scatter: dim {d} of size {shape[d]} is not divisible "
                                       f"by the axis size {n}")
            shape[d] //= n
        else:
            if shape[d] != n:
                raise ShardcValueError(f"psum_scatter (tiled=False) needs dim {d} of size {n}, "
                                       f"got {shape[d]}")
            shape.pop(d)
        return [(tuple(shape), x.dtype, x.weak_type)]

    def sharding_rule(self, x: ArrayType, *, axes, scatter_dimension, tiled):
        spec = list(x.spec)
        if spec[scatter_dimension] is not None:
            raise ShardingTypeError(f"psum_scatter along dim {scatter_dimension} which is sharded "
                                    f"on Explicit axes {spec[scatter_dimension]!r}")
        if not tiled:
            spec.pop(scatter_dimension)
        return [tuple(spec)]

    def ur_rule(self, x: ArrayType, *, axes, **_):
        return [(x.unreduced - set(axes), x.reduced)]

    def vma_rule(self, x: ArrayType, *, axes, **_):
        states = _state(x, axes)
        if not states <= {"varying", "unreduced"}:
            raise _state_error(self.name, x, axes, states)
        return [x.vma | set(axes)]

    def lower(self, ctx, eqn, x):
        t, out = eqn.inputs[0].type, eqn.outputs[0].type
        p = eqn.params
        groups = axis_groups(ctx.mesh, p["axes"])
        d = p["scatter_dimension"]
        tiled_shape = list(t.shape)
        tiled_shape[d] //= axes_size(ctx.mesh, p["axes"])
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

    def shape_rule(self, x: ArrayType, *, axes, perm):
        n = axes_size(x.mesh, axes)
        srcs, dsts = [s for s, _ in perm], [d for _, d in perm]
        if len(set(srcs)) != len(srcs) or len(set(dsts)) != len(dsts) or \
                any(not 0 <= i < n for i in srcs + dsts):
            raise ShardcValueError(f"ppermute perm {perm} must be a partial permutation of range({n})")
        return [(x.shape, x.dtype, x.weak_type)]

    def ur_rule(self, x: ArrayType, **_):
        return [(x.unreduced, x.reduced)]

    def vma_rule(self, x: ArrayType, **_):
        return [x.vma]

    def lower(self, ctx, eqn, x):
        t = eqn.inputs[0].type
        pairs = []
        for g in axis_groups(ctx.mesh, eqn.params["axes"]):
            pairs.extend([g[s], g[d]] for s, d in eqn.params["perm"])
        body = "[" + ", ".join(f"[{a}, {b}]" for a, b in pairs) + "]"
        return [ctx.op(
            f'"stablehlo.collective_permute"({x}) <{{channel_handle = {ctx.channel()}, '
            f"source_target_pairs = dense<{body}> : tensor<{len(pairs)}x2xi64>}}> : ({ttype(t)}) -> {ttype(t)}")]


ppermute = Ppermute()


class AllToAll(Collective):
    name = "all_to_all"

    def shape_rule(self, x: ArrayType, *, axes, split_axis, concat_axis, tiled):
        n = axes_size(x.mesh, axes)
        shape = list(x.shape)
        if tiled:
            if shape[split_axis] % n:
                raise ShardcValueError(f"all_to_all: split dim {split_axis} of size "
                                       f"{shape[split_axis]} is not divisible by {n}")
            shape[split_axis] //= n
            shape[concat_axis] *= n
        else:
            if shape[split_axis] != n:
                raise ShardcValueError(f"all_to_all (tiled=False) needs split dim {split_axis} of "
                                       f"size {n}, got {shape[split_axis]}")
            shape.pop(split_axis)
            shape.insert(concat_axis, n)
        return [(tuple(shape), x.dtype, x.weak_type)]

    def sharding_rule(self, x: ArrayType, *, split_axis, concat_axis, **_):
        if x.spec[split_axis] is not None or x.spec[concat_axis] is not None:
            raise ShardingTypeError("all_to_all split/concat dims must not be sharded on Explicit axes")
        return [x.spec]

    def ur_rule(self, x: ArrayType, **_):
        return [(x.unreduced, x.reduced)]

    def vma_rule(self, x: ArrayType, **_):
        return [x.vma]

    def lower(self, ctx, eqn, x):
        t, out = eqn.inputs[0].type, eqn.outputs[0].type
        p = eqn.params
        n = axes_size(ctx.mesh, p["axes"])
        groups = axis_groups(ctx.mesh, p["axes"])
        src_shape = list(t.shape)
        if not p["tiled"]:
            # untiled: move the split dim (size n) next to concat via reshapes around a tiled a2a
            pass
        tiled_out = list(t.shape)
        tiled_out[p["split_axis"]] //= n
        tiled_out[p["concat_axis"]] *= n
        r = ctx.op(
            f'"stablehlo.all_to_all"({x}) <{{channel_handle = {ctx.channel()}, concat_dimension = '
            f"{p['concat_axis']} : i64, replica_groups = {dense_groups(groups)}, split_count = {n} : i64, "
            f"split_dimension = {p['split_axis']} : i64}}> : ({ttype(t)}) -> {tensor_type(tiled_out, t.dtype)}")
        if not p["tiled"]:
            r = ctx.op(f"stablehlo.reshape {r} : ({tensor_type(tiled_out, t.dtype)}) -> {ttype(out)}")
        return [r]


all_to_all = AllToAll()


class AxisIndex(Primitive):
    """`axis_index(axes)`: this device's (linearized) coordinate along `axes`."""

    name = "axis_index"
    auto_pcast = False

    def shape_rule(self, *, axes, mesh):
        return [((), dt.int32, False)]

    def sharding_rule(self, *, axes, mesh):
        return [()]

    def ur_rule(self, **_):
        return [(_NONE, _NONE)]

    def vma_rule(self, *, axes, mesh):
        return [frozenset(axes)]

    def format_params(self, p):
        return f"axes={tuple(p['axes'])}"

    def lower(self, ctx, eqn):
        mesh = ctx.mesh
        i32 = tensor_type((), dt.int32)
        pid = ctx.op("stablehlo.partition_id : tensor<ui32>")
        pid = ctx.op(f"stablehlo.convert {pid} : (tensor<ui32>) -> {i32}")
        acc = None
        for a in eqn.params["axes"]:
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
        return [acc]


axis_index = AxisIndex()


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
            bad_r = set(axes) & x.reduced
            bad_u = set(axes) & x.unreduced
            if bad_r or bad_u:
                kind = "reduced" if bad_r else "unreduced"
                raise ShardcValueError(
                    f"pvary cannot accept args which are {kind}. Got {x.str_short()} and "
                    f"axes={{{', '.join(repr(a) for a in sorted(axes))}}}")
        if self.name == "vary_unreduced_cast" and not set(axes) <= x.vma:
            raise ShardcValueError(
                "vary_unreduced_cast is a Varying->Unreduced collective. This means that the axis "
                "names mentioned in `axes` passed to `vary_unreduced_cast` must be present in "
                f"`sc.typeof(x).vma`. Got axes={tuple(axes)} and sc.typeof(x).vma="
                f"frozenset({{{', '.join(repr(a) for a in sorted(x.vma))}}})")

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

    def vjp(self, g, ins, outs, *, axes):
        """pvary (invariant→varying) transposes to psum; the other casts are not
        differentiable yet."""
        from ..frontend.tracing import bind
        if self.name == "pvary":
            return [bind(ALL_REDUCE["psum"], g, axes=axes)]
        from ..errors import ShardcNotImplementedError
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
