"""Conversions between shardc's meshes/specs/types and JAX's (runtime only)."""
from __future__ import annotations

import os

import jax
from jax.sharding import AxisType as JT
from jax.sharding import NamedSharding as JNS
from jax.sharding import PartitionSpec as JP

from .. import dtypes as dt
from .. import errors
from ..mesh import AbstractDevice, AbstractMesh, AxisType
from ..sharding import MemorySpace, PartitionSpec, mem_space_to_kind, spec_from_foreign
from ..types import ArrayType, visible_entry

# JAX's own frames (tree_util, called by shardc) are never "the user's line" in an error
if os.path.dirname(jax.__file__) not in errors.INTERNAL_PREFIXES:
    errors.INTERNAL_PREFIXES.append(os.path.dirname(jax.__file__))

__all__ = ["to_jax_mesh", "abstract_mesh_of_jax", "to_jax_spec", "spec_from_jax", "jax_sharding",
           "is_jax_array", "type_of_jax_array", "memory_kind_of", "memory_space_of"]


def _jax_axis_type(t: AxisType):
    return {AxisType.Explicit: JT.Explicit, AxisType.Auto: JT.Auto, AxisType.Manual: JT.Manual}[t]


def _from_jax_axis_type(t) -> AxisType:
    return AxisType[t.name]


def to_jax_mesh(mesh):
    """The `jax.sharding.Mesh` of an `sc.Mesh` (devices, axis names and types)."""
    return jax.sharding.Mesh(mesh.devices, mesh.axis_names,
                             axis_types=tuple(_jax_axis_type(t) for t in mesh.axis_types))


def axis_types_of_jax(jmesh) -> tuple[AxisType, ...]:
    return tuple(_from_jax_axis_type(t) for t in jmesh.axis_types)


def abstract_mesh_of_jax(jmesh) -> AbstractMesh:
    ad = getattr(getattr(jmesh, "abstract_mesh", jmesh), "abstract_device", None)
    ad = None if ad is None else AbstractDevice(ad.device_kind, ad.num_cores, ad.platform)
    return AbstractMesh(jmesh.axis_sizes, jmesh.axis_names, axis_types_of_jax(jmesh), abstract_device=ad)


def to_jax_spec(spec: PartitionSpec):
    return JP(*spec, unreduced=set(spec.unreduced), reduced=set(spec.reduced))


def spec_from_jax(jspec) -> PartitionSpec:
    return spec_from_foreign(jspec)


def jax_sharding(mesh, t: ArrayType):
    """The `jax.sharding.NamedSharding` of a value of type `t` on `mesh` (an `sc.Mesh`), in the
    memory its type names (host memory: `memory_kind='pinned_host'`)."""
    return JNS(mesh.jax_mesh, to_jax_spec(t.pspec), memory_kind=memory_kind_of(t))


def memory_kind_of(t: ArrayType) -> str | None:
    """The memory kind a sharding of a value of type `t` names (None: the default, device memory)."""
    return None if t.memory_space is MemorySpace.Device else mem_space_to_kind(t.memory_space)


def memory_space_of(aval) -> MemorySpace:
    """Ours for a JAX aval's memory space (`float32<host>[8]`: `MemorySpace.Host`)."""
    ms = getattr(aval, "memory_space", None)
    return MemorySpace.Device if ms is None else MemorySpace[ms.name]


def is_jax_array(x) -> bool:
    return isinstance(x, jax.Array)


def type_of_jax_array(x) -> ArrayType:
    aval = jax.typeof(x)
    sh = x.sharding
    jmesh = getattr(sh, "mesh", None)
    if jmesh is None or not hasattr(sh, "spec") or not getattr(jmesh, "axis_names", ()):
        return ArrayType(tuple(x.shape), dt.canonicalize(x.dtype), (None,) * x.ndim,
                         weak_type=bool(aval.weak_type), memory_space=memory_space_of(aval))
    mesh = abstract_mesh_of_jax(jmesh)
    spec = spec_from_jax(sh.spec)
    ents = tuple(visible_entry(e, mesh) for e in spec)
    return ArrayType(tuple(x.shape), dt.canonicalize(x.dtype), ents, spec.unreduced, spec.reduced,
                     frozenset(), mesh, bool(aval.weak_type), memory_space_of(aval))
