"""Conversions between shardc's meshes/specs/types and JAX's (runtime only)."""
from __future__ import annotations

import numpy as np

from ..mesh import EMPTY_MESH, AbstractMesh, AxisType, Mesh
from ..sharding import PartitionSpec
from ..types import ArrayType, visible_entry


def _jax_axis_type(t: AxisType):
    from jax.sharding import AxisType as JT
    return {AxisType.Explicit: JT.Explicit, AxisType.Auto: JT.Auto, AxisType.Manual: JT.Manual}[t]


def _from_jax_axis_type(t) -> AxisType:
    return AxisType[t.name]


def to_jax_mesh(mesh: Mesh):
    import jax
    return jax.sharding.Mesh(mesh.devices, mesh.axis_names,
                             axis_types=tuple(_jax_axis_type(t) for t in mesh.axis_types))


_MESHES: dict = {}


def from_jax_mesh(jmesh) -> Mesh:
    key = (tuple(d.id for d in jmesh.devices.flat), jmesh.axis_names, jmesh.devices.shape,
           tuple(jmesh.axis_types))
    m = _MESHES.get(key)
    if m is None:
        m = Mesh(jmesh.devices, jmesh.axis_names,
                 tuple(_from_jax_axis_type(t) for t in jmesh.axis_types))
        m._jax_mesh = jmesh
        _MESHES[key] = m
    return m


def to_jax_spec(spec: PartitionSpec):
    from jax.sharding import PartitionSpec as JP
    return JP(*spec, unreduced=set(spec.unreduced), reduced=set(spec.reduced))


def spec_from_jax(jspec) -> PartitionSpec:
    return PartitionSpec(*tuple(jspec), unreduced=getattr(jspec, "unreduced", frozenset()),
                         reduced=getattr(jspec, "reduced", frozenset()))


def jax_sharding(mesh: Mesh, t: ArrayType):
    """The `jax.sharding.NamedSharding` of a value of type `t` on `mesh`."""
    from jax.sharding import NamedSharding as JNS
    return JNS(mesh.jax_mesh, to_jax_spec(t.pspec))


def is_jax_array(x) -> bool:
    import jax
    return isinstance(x, jax.Array)


def type_of_jax_array(x) -> ArrayType:
    import jax
    from .. import dtypes as dt
    aval = jax.typeof(x)
    sh = x.sharding
    jmesh = getattr(sh, "mesh", None)
    if jmesh is None or not hasattr(sh, "spec") or not getattr(jmesh, "axis_names", ()):
        return ArrayType(tuple(x.shape), dt.canonicalize(x.dtype), (None,) * x.ndim,
                         weak_type=bool(aval.weak_type))
    mesh = from_jax_mesh(jmesh).abstract_mesh if hasattr(jmesh, "devices") else AbstractMesh(
        jmesh.axis_sizes, jmesh.axis_names, tuple(_from_jax_axis_type(t) for t in jmesh.axis_types))
    spec = spec_from_jax(sh.spec)
    ents = tuple(visible_entry(e, mesh) for e in spec)
    return ArrayType(tuple(x.shape), dt.canonicalize(x.dtype), ents, spec.unreduced, spec.reduced,
                     frozenset(), mesh, bool(aval.weak_type))
