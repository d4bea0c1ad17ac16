"""The concrete device mesh and `set_mesh`.

A `Mesh` is an n-d array of devices with named, typed axes; its
`abstract_mesh` is what sharding types carry (`shardc/mesh.py`). `set_mesh`
makes a mesh the context mesh for tracing and for eager arrays.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from ..errors import ShardcValueError, located
from ..mesh import AbstractDevice, AbstractMesh, AxisType, concrete_context_mesh, reset_mesh_context, set_mesh_context
from .devices import default_devices
from .jaxbridge import axis_types_of_jax, to_jax_mesh

__all__ = ["Mesh", "JaxMesh", "make_mesh", "set_mesh", "get_mesh", "from_jax_mesh"]


class Mesh:
    """A concrete mesh: an n-d array of devices with named, typed axes.

    Axis types default to Explicit (unlike `jax.sharding.Mesh`, which defaults
    to Auto), so `sc.Mesh(...)` and `sc.make_mesh(...)` agree.
    """

    def __init__(self, devices, axis_names: Sequence[str] | str,
                 axis_types: Sequence[AxisType] | AxisType | None = None):
        if isinstance(axis_names, str):
            axis_names = (axis_names,)
        devs = np.asarray(devices, dtype=object)
        if devs.ndim != len(tuple(axis_names)):
            raise ShardcValueError(
                f"devices has {devs.ndim} dimensions but {len(tuple(axis_names))} axis names were given")
        ids = [d.id for d in devs.flat]
        if len(set(ids)) != len(ids):
            raise ShardcValueError("a device appears twice in the mesh")
        self.devices = devs
        self.abstract_mesh = AbstractMesh(devs.shape, tuple(axis_names), axis_types,
                                          abstract_device=_abstract_device(devs))
        self._jax_mesh = None
        self._hash = hash((self.abstract_mesh, tuple(ids)))
        self._ids = tuple(ids)

    axis_names = property(lambda self: self.abstract_mesh.axis_names)
    axis_sizes = property(lambda self: self.abstract_mesh.axis_sizes)
    axis_types = property(lambda self: self.abstract_mesh.axis_types)
    shape = property(lambda self: self.abstract_mesh.shape)
    size = property(lambda self: self.abstract_mesh.size)
    manual_axes = property(lambda self: self.abstract_mesh.manual_axes)
    auto_axes = property(lambda self: self.abstract_mesh.auto_axes)
    explicit_axes = property(lambda self: self.abstract_mesh.explicit_axes)
    empty = property(lambda self: self.abstract_mesh.empty)

    are_all_axes_auto = property(lambda self: self.abstract_mesh.are_all_axes_auto)
    are_all_axes_explicit = property(lambda self: self.abstract_mesh.are_all_axes_explicit)
    are_all_axes_manual = property(lambda self: self.abstract_mesh.are_all_axes_manual)
    shape_tuple = property(lambda self: self.abstract_mesh.shape_tuple)

    @property
    def device_ids(self) -> tuple[int, ...]:
        return self._ids

    @property
    def is_multi_process(self) -> bool:
        """Whether the mesh holds devices of other processes (a multi-host job)."""
        return self.jax_mesh.is_multi_process

    @property
    def local_devices(self) -> list:
        return self.jax_mesh.local_devices

    @property
    def local_mesh(self) -> "Mesh":
        """The sub-mesh of this process's devices (JAX's `local_mesh`), with the same axes."""
        return self.update(devices=self.jax_mesh.local_mesh.devices)

    @property
    def is_scalar(self) -> bool:
        return self.jax_mesh.is_scalar

    @property
    def jax_mesh(self):
        """The equivalent `jax.sharding.Mesh` (for building `jax.Array`s)."""
        if self._jax_mesh is None:
            self._jax_mesh = to_jax_mesh(self)
        return self._jax_mesh

    def update(self, devices=None, axis_names=None, axis_types=None) -> "Mesh":
        """This mesh with some of its devices, axis names or axis types replaced (JAX's `Mesh.update`)."""
        return Mesh(self.devices if devices is None else devices,
                    self.axis_names if axis_names is None else axis_names,
                    self.axis_types if axis_types is None else axis_types)

    def __eq__(self, other) -> bool:
        return self is other or (isinstance(other, Mesh) and self._hash == other._hash
                                 and self.abstract_mesh == other.abstract_mesh
                                 and self._ids == other._ids)

    def __hash__(self) -> int:
        return self._hash

    def __str__(self) -> str:
        # `AbstractMesh('X': 2, ..., axis_types=(...))` with this class's name (and, as JAX, no device kind)
        return "Mesh" + repr(self.abstract_mesh.update(abstract_device=None)).removeprefix("AbstractMesh")

    def __repr__(self) -> str:
        """JAX's `repr(mesh)` (`print(mesh)` and a sharding's repr show `str(mesh)`)."""
        if self.empty:
            return "Mesh(axis_sizes=(), axis_names=())"
        types = ", ".join(t.value for t in self.axis_types) + ("," if len(self.axis_types) == 1 else "")
        return f"Mesh(axis_sizes={self.axis_sizes}, axis_names={self.axis_names!r}, axis_types=({types}))"

    def __enter__(self):
        self._ctx = set_mesh(self)
        return self._ctx.__enter__()

    def __exit__(self, *exc):
        return self._ctx.__exit__(*exc)


def _abstract_device(devs: np.ndarray) -> AbstractDevice | None:
    """JAX's `Mesh.abstract_mesh` device kind: the first device's kind, platform and (TPU/GPU) core count."""
    if devs.size == 0:
        return None
    d = devs.flat[0]
    platform = getattr(d, "platform", None)
    if platform is None:
        return None
    cores = {"tpu": "num_cores", "gpu": "core_count"}.get(platform)
    return AbstractDevice(d.device_kind, getattr(d, cores, None) if cores else None, platform)


class JaxMesh(Mesh):
    """`jax.sharding.Mesh` as ported code builds it (`shardc.sharding.Mesh`, SPEC §2b): JAX
    0.10.2's default axis types, Auto, so `Mesh(mesh_utils.create_device_mesh(...), names)`
    means what it means under JAX. The flat `sc.Mesh` (§2) keeps Explicit as its default."""

    def __init__(self, devices, axis_names: Sequence[str] | str,
                 axis_types: Sequence[AxisType] | AxisType | None = None):
        if axis_types is None:
            axis_types = (AxisType.Auto,) * (1 if isinstance(axis_names, str) else len(tuple(axis_names)))
        super().__init__(devices, axis_names, axis_types)


@located
def make_mesh(axis_shapes: Sequence[int], axis_names: Sequence[str],
              axis_types: Sequence[AxisType] | AxisType | None = None, *,
              devices=None) -> Mesh:
    """Build a mesh over the first `prod(axis_shapes)` devices (default: Explicit axes)."""
    if isinstance(axis_names, str):   # one axis named by a string, as JAX accepts
        axis_names = (axis_names,)
    if any(isinstance(s, (bool, np.bool_)) or not isinstance(s, (int, np.integer)) or s < 1 for s in axis_shapes):
        raise ShardcValueError(f"make_mesh: axis sizes must be positive integers, got {tuple(axis_shapes)}")
    axis_shapes = tuple(int(s) for s in axis_shapes)
    n = math.prod(axis_shapes)
    devs = list(default_devices() if devices is None else devices)
    if len(devs) < n:
        raise ShardcValueError(
            f"make_mesh({axis_shapes}) needs {n} devices but only {len(devs)} are available; "
            "on CPU, set the virtual device count with sc.set_cpu_device_count(N) "
            "before any array is created (or SHARDC_CPU_DEVICES=N)")
    if devices is not None and len(devs) != n:
        raise ShardcValueError(f"make_mesh({axis_shapes}) got {len(devs)} devices, expected {n}")
    arr = np.empty(len(devs[:n]), dtype=object)
    arr[:] = devs[:n]
    return Mesh(arr.reshape(axis_shapes), tuple(axis_names), axis_types)


class _MeshSetter:
    """`sc.set_mesh(m)` sets the mesh at once (statement form); used with `with`
    it restores the previous mesh on exit."""

    def __init__(self, mesh: Mesh | None):
        if mesh is not None and not isinstance(mesh, Mesh):
            raise ShardcValueError(f"set_mesh expects an sc.Mesh or None, got {type(mesh).__name__}")
        if mesh is not None and mesh.abstract_mesh.manual_axes:
            raise ShardcValueError(
                f"mesh {mesh} contains manual axes which is not allowed when using `sc.set_mesh`. "
                "Please use `sc.shard_map` to enter into `Manual` mode instead.")
        self._tokens = set_mesh_context(mesh, mesh.abstract_mesh if mesh is not None else None)
        self.mesh = mesh

    def __enter__(self) -> Mesh | None:
        return self.mesh

    def __exit__(self, *exc) -> None:
        reset_mesh_context(self._tokens)


@located
def set_mesh(mesh: Mesh | None) -> _MeshSetter:
    """Make `mesh` the context mesh: `sc.set_mesh(m)` or `with sc.set_mesh(m): ...`."""
    return _MeshSetter(mesh)


def get_mesh() -> Mesh | None:
    """The concrete context mesh, or None."""
    return concrete_context_mesh()


_MESHES: dict = {}


def from_jax_mesh(jmesh) -> Mesh:
    """The `sc.Mesh` of a `jax.sharding.Mesh` (one object per distinct mesh)."""
    key = (tuple(d.id for d in jmesh.devices.flat), jmesh.axis_names, jmesh.devices.shape,
           tuple(jmesh.axis_types))
    m = _MESHES.get(key)
    if m is None:
        m = Mesh(jmesh.devices, jmesh.axis_names, axis_types_of_jax(jmesh))
        m._jax_mesh = jmesh
        _MESHES[key] = m
    return m
