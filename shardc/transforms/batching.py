"""Batching's rule table and the types of batched values (JAX's `interpreters/batching.py`).

`batch_rules[prim]` is `rule(B, axis, args, dims, **params) -> (outs, out_dims)`, JAX's
signature: `args` are the operands with the batch dimension in them (tracers, or constants),
`dims` the position of that dimension in each (`None`: not batched, the same for every
example), and the rule binds the batched computation and says where the batch dimension of
each result is (`None`: the result is the same for every example). A single-result primitive
returns one value and one dim; a multiple-result one lists both. `B` is the rule kit the driver
passes in (`shardc/batching.py`): the promotion-free `shardc.lax` functions plus the driver's
own helpers (batching nested programs), so rules never import layers above the primitives;
`axis` is the `AxisData` of the vmap being applied.

Types as JAX 0.10.2 gives them: inside the mapped function a value is its batched value with
the batch dimension (and its spec entry) dropped (`mapped_type`). The mesh axes the mapped
dimension of the inputs is sharded over (`explicit_mesh_axis`, one entry for all inputs) are put
on the batch dimension of values a rule creates (`broadcast`) and of the outputs.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from ..core import Primitive
from ..mesh import AxisType, get_abstract_mesh
from ..sharding import Entry, PartitionSpec
from ..types import ArrayType

__all__ = ["batch_rules", "defbatch", "AxisData", "mapped_type", "unmapped_type", "moveaxis", "bdim_at_front",
           "broadcast", "matchaxis", "insert_spec", "vmap_axes", "vmap_axis", "vmap_in_scope", "vmapped_mesh_axes", "vmapped_spmd_axes",
           "UNBATCHED_OK"]

BatchRule = Callable[..., tuple[Any, Any]]

batch_rules: dict[Primitive, BatchRule] = {}

#: primitives that have no batching rule because they never see a batched operand (their
#: operands are unbatched whenever they are bound), with the reason; checked by the tests
UNBATCHED_OK: dict[str, str] = {
    "iota": "no operands: a value the same for every example",
    "axis_index": "no operands: the device's index along mesh axes, the same for every example",
}


def defbatch(prim: Primitive, rule: BatchRule) -> None:
    """Register `prim`'s batching rule (once)."""
    if prim in batch_rules:
        raise AssertionError(f"batching rule for {prim.name} registered twice")
    batch_rules[prim] = rule


@dataclass(frozen=True)
class AxisData:
    """One `vmap`: its axis name (None: anonymous), size, `spmd_axis_name` mesh axes, and the
    Explicit mesh axes its mapped dimension is sharded over (JAX's `explicit_mesh_axis`)."""

    name: Any
    size: int
    spmd_name: tuple[str, ...] | None
    ema: tuple[str, ...] | None

    @property
    def explicit_mesh_axis(self) -> tuple[str, ...] | None:
        """`ema` where the context mesh has those axes Explicit (JAX's property: inside an
        `auto_axes` region or a `shard_map` body making them Auto / Manual, None)."""
        if not self.ema:
            return None
        mesh = get_abstract_mesh()
        if mesh.empty:
            return self.ema
        if any(a not in mesh.axis_names or mesh.axis_type(a) != AxisType.Explicit for a in self.ema):
            return None
        return self.ema

    @property
    def entry(self) -> Entry:
        """The spec entry of the batch dimension of values created here (JAX's
        `get_sharding_for_vmap`)."""
        ema = self.explicit_mesh_axis
        if not ema:
            return None
        return ema[0] if len(ema) == 1 else tuple(ema)


# --- the vmap axes in scope (for collectives over a vmapped axis_name) -------------------------
_AXES: list[AxisData] = []


class vmap_axes:
    """While a vmapped function is traced: its named axis is in scope, so collectives over it
    (`sc.psum(x, "batch")`) type-check inside and are batched by the vmap's rules."""

    def __init__(self, axis: AxisData):
        self.axis = axis

    def __enter__(self):
        _AXES.append(self.axis)

    def __exit__(self, *exc):
        _AXES.pop()


def vmap_in_scope() -> bool:
    """Whether a vmapped function is being traced."""
    return bool(_AXES)


def vmap_axis(name: Any) -> AxisData | None:
    """The innermost vmap in scope whose axis is called `name`, or None."""
    for a in reversed(_AXES):
        if a.name is not None and a.name == name:
            return a
    return None


def vmapped_mesh_axes() -> frozenset[str]:
    """The Explicit mesh axes the vmaps in scope map over (their mapped dims' sharding): a
    `shard_map` inside does not make them manual by default (JAX's `explicit_mesh_axis_names`)."""
    return frozenset(a for ax in _AXES for a in (ax.ema or ()))


def vmapped_spmd_axes() -> frozenset[str]:
    """The mesh axes the vmaps in scope name as `spmd_axis_name` (JAX's
    `axis_env.spmd_axis_names`): a shard_map traced inside leaves them out of its residuals'
    specs, since the batching rule puts them on the batch dimension."""
    return frozenset(a for ax in _AXES for a in (ax.spmd_name or ()))


# --- types ------------------------------------------------------------------------------------
def mapped_type(t: ArrayType, d: int | None) -> ArrayType:
    """The type a value of type `t`, batched at `d`, has inside the mapped function."""
    if d is None:
        return t
    return ArrayType(t.shape[:d] + t.shape[d + 1:], t.dtype, t.spec[:d] + t.spec[d + 1:], t.unreduced,
                     t.reduced, t.vma, t.mesh, t.weak_type, t.memory_space)


def unmapped_type(t: ArrayType, size: int, d: int | None, entry: Entry = None) -> ArrayType:
    """The batched type of a value of type `t` inside the function: batch dim `d` of `size`."""
    if d is None:
        return t
    spec = t.spec[:d] + (entry if not t.mesh.empty else None,) + t.spec[d:]
    return ArrayType(t.shape[:d] + (size,) + t.shape[d:], t.dtype, spec, t.unreduced, t.reduced, t.vma,
                     t.mesh, t.weak_type, t.memory_space)


# --- moving and inserting batch dims ---------------------------------------------------------------
def moveaxis(B, x, src: int, dst: int):
    """`x` with its dim `src` moved to `dst` (a transpose; shardings move with the dims)."""
    n = B.type_of(x).ndim
    dst = dst % n if n else 0
    if src == dst:
        return x
    perm = [i for i in range(n) if i != src]
    perm.insert(dst, src)
    return B.transpose(x, tuple(perm))


def broadcast(B, x, size: int, axis: int, entry: Entry = None):
    """`x` (not batched) with a new dim of `size` at `axis`, sharded as the vmap's batch dim
    (JAX's `batching.broadcast`: the other dims keep their shardings)."""
    t = B.type_of(x)
    if not B.is_array(x):
        x = B.asarray(x, t)
        t = B.type_of(x)
    shape = t.shape[:axis] + (size,) + t.shape[axis:]
    dims = tuple(i for i in range(len(shape)) if i != axis)
    if t.mesh.empty or not t.mesh.has_explicit:
        return B.broadcast_in_dim(x, shape, dims)
    spec = PartitionSpec(*(t.spec[:axis] + (entry,) + t.spec[axis:]), unreduced=t.unreduced, reduced=t.reduced)
    return B.broadcast_in_dim(x, shape, dims, out_sharding=spec)


def bdim_at_front(B, x, d: int | None, size: int, entry: Entry = None):
    """`x` with its batch dim first (broadcast along a new first dim if not batched)."""
    if d is None:
        return broadcast(B, x, size, 0, entry)
    return moveaxis(B, x, d, 0)


def matchaxis(B, x, src: int | None, dst: int | None, size: int, entry: Entry = None):
    """`x` (batched at `src`) batched at `dst` instead (`dst` None: `src` must be too)."""
    if src == dst:
        return x
    if src is None:
        return broadcast(B, x, size, dst, entry)
    if dst is None:
        raise AssertionError("matchaxis: a batched value cannot be made unbatched")
    return moveaxis(B, x, src, dst)


def insert_spec(spec: PartitionSpec, pos: int, entry: Entry) -> PartitionSpec:
    """`spec` with `entry` for a new dim at `pos` (JAX's `get_sharding_for_vmap`)."""
    parts = list(spec)
    if len(parts) < pos:
        parts += [None] * (pos - len(parts))
    parts.insert(pos, entry)
    return PartitionSpec(*parts, unreduced=spec.unreduced, reduced=spec.reduced)
