"""Abstract meshes, axis types and the mesh context.

An `AbstractMesh` is what types carry: axis names, sizes and types only.
Types compare abstract meshes, so a program traced for one mesh can run on any
mesh of the same shape and types. The concrete `Mesh` (devices) and
`set_mesh` live in the runtime (`shardc/runtime/mesh.py`); this module only
holds the context they set.
"""
from __future__ import annotations

import collections
import contextlib
import contextvars
import enum
import math
from dataclasses import dataclass
from typing import Any, Iterator, Sequence

from .errors import ShardcValueError

__all__ = ["AxisType", "AbstractDevice", "AbstractMesh", "JaxAbstractMesh", "EMPTY_MESH", "get_abstract_mesh", "use_abstract_mesh",
           "set_mesh_context", "reset_mesh_context", "concrete_context_mesh", "mesh_context_is_inferred"]


class AxisType(enum.Enum):
    """How the compiler treats a mesh axis: in types (Explicit), chosen by XLA
    (Auto), or per-device code (Manual, inside `shard_map`)."""

    Explicit = "Explicit"
    Auto = "Auto"
    Manual = "Manual"

    def __repr__(self) -> str:
        return self.value


@dataclass(frozen=True)
class AbstractDevice:
    """The kind of device a concrete mesh is built of (JAX's `AbstractDevice`): an
    abstract mesh taken from a concrete one carries it, and prints it as JAX does."""

    device_kind: str
    num_cores: int | None
    platform: str

    def __repr__(self) -> str:
        return f"AbstractDevice({self._repr()})"

    def _repr(self) -> str:
        return f"device_kind={self.device_kind}, num_cores={self.num_cores}, platform={self.platform}"


class _NoDevices(ShardcValueError, AttributeError):
    """JAX's ValueError for a device question to an abstract mesh; also an AttributeError, so
    that `getattr(mesh, "devices", None)` still tells an abstract mesh from a concrete one."""


@dataclass(frozen=True, eq=False)
class AbstractMesh:
    """Axis names, sizes and types: the mesh as sharding types see it."""

    axis_sizes: tuple[int, ...]
    axis_names: tuple[str, ...]
    axis_types: tuple[AxisType, ...]

    def __init__(self, axis_sizes: Sequence[int], axis_names: Sequence[str],
                 axis_types: Sequence[AxisType] | AxisType | None = None, *,
                 abstract_device: AbstractDevice | None = None):
        names = tuple(axis_names)
        sizes = tuple(int(s) for s in axis_sizes)
        types = _normalize_axis_types(axis_types, len(names))
        if len(sizes) != len(names):
            raise ShardcValueError(f"mesh has {len(sizes)} axis sizes but {len(names)} axis names")
        if any(s < 1 for s in sizes):
            raise ShardcValueError(f"mesh axis sizes must be positive, got {sizes}")
        if len(set(names)) != len(names):
            raise ShardcValueError(f"mesh axis names must be distinct, got {names}")
        for n in names:
            if not isinstance(n, str) or not n:
                raise ShardcValueError(f"mesh axis names must be non-empty strings, got {n!r}")
        object.__setattr__(self, "axis_sizes", sizes)
        object.__setattr__(self, "axis_names", names)
        object.__setattr__(self, "axis_types", types)
        #: the device kind of the concrete mesh this was taken from (None: built abstractly). Printed as
        #: JAX prints it, but not compared: JAX interns meshes by it, shardc's types compare shape and
        #: axis types only (a program traced for one mesh runs on any mesh of that shape)
        object.__setattr__(self, "abstract_device", abstract_device)
        object.__setattr__(self, "_hash", hash((sizes, names, types)))
        by_type = {t: tuple(n for n, at in zip(names, types) if at == t) for t in AxisType}
        object.__setattr__(self, "_by_type", by_type)
        #: plain attributes for the per-call fast paths
        object.__setattr__(self, "has_auto", bool(by_type[AxisType.Auto]))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other) -> bool:
        return self is other or (isinstance(other, AbstractMesh) and self._hash == other._hash
                                 and self.axis_names == other.axis_names
                                 and self.axis_sizes == other.axis_sizes
                                 and self.axis_types == other.axis_types)

    @property
    def shape(self) -> collections.OrderedDict[str, int]:
        """Axis name -> size, as JAX's (an OrderedDict: `print(mesh.shape)` reads as JAX's)."""
        return collections.OrderedDict(zip(self.axis_names, self.axis_sizes))

    @property
    def size(self) -> int:
        return math.prod(self.axis_sizes)

    @property
    def empty(self) -> bool:
        return not self.axis_names

    def axis_size(self, name: str) -> int:
        return self.axis_sizes[self.axis_names.index(name)]

    def axis_type(self, name: str) -> AxisType:
        return self.axis_types[self.axis_names.index(name)]

    def axes_of_type(self, t: AxisType) -> tuple[str, ...]:
        return self._by_type[t]

    @property
    def explicit_axes(self) -> tuple[str, ...]:
        return self.axes_of_type(AxisType.Explicit)

    @property
    def auto_axes(self) -> tuple[str, ...]:
        return self.axes_of_type(AxisType.Auto)

    @property
    def manual_axes(self) -> tuple[str, ...]:
        return self.axes_of_type(AxisType.Manual)

    @property
    def has_explicit(self) -> bool:
        return bool(self._by_type[AxisType.Explicit])

    def with_axis_types(self, updates: dict[str, AxisType]) -> "AbstractMesh":
        types = tuple(updates.get(n, t) for n, t in zip(self.axis_names, self.axis_types))
        return AbstractMesh(self.axis_sizes, self.axis_names, types, abstract_device=self.abstract_device)

    def update(self, axis_sizes=None, axis_names=None, axis_types=None, **kwargs) -> "AbstractMesh":
        """A copy with some of sizes, names, types (or `abstract_device=`) replaced (`AbstractMesh.update`)."""
        return AbstractMesh(self.axis_sizes if axis_sizes is None else axis_sizes,
                            self.axis_names if axis_names is None else axis_names,
                            self.axis_types if axis_types is None else axis_types,
                            abstract_device=kwargs.get("abstract_device", self.abstract_device))

    def update_axis_types(self, name_to_type: dict[str, AxisType]) -> "AbstractMesh":
        """A copy with the named axes' types changed (JAX's `update_axis_types`)."""
        unknown = set(name_to_type) - set(self.axis_names)
        if unknown:
            raise ShardcValueError(f"update_axis_types: unknown axes {sorted(unknown)} for {self!r}")
        return self.with_axis_types(name_to_type)

    @property
    def shape_tuple(self) -> tuple[tuple[str, int], ...]:
        return tuple(zip(self.axis_names, self.axis_sizes))

    @property
    def abstract_mesh(self) -> "AbstractMesh":
        return self

    # an abstract mesh has no devices: JAX's errors
    device_ids = property(lambda self: self._no_devices("device_ids"))
    devices = property(lambda self: self._no_devices("devices"))
    is_multi_process = property(lambda self: self._no_devices("is_multi_process"))
    local_devices = property(lambda self: self._no_devices("local_devices"))
    local_mesh = property(lambda self: self._no_devices("local_mesh"))

    def _no_devices(self, what: str):
        raise _NoDevices(f"AbstractMesh does not implement {what}")

    @property
    def are_all_axes_manual(self) -> bool:
        return all(t == AxisType.Manual for t in self.axis_types)

    @property
    def are_all_axes_auto(self) -> bool:
        return all(t == AxisType.Auto for t in self.axis_types)

    @property
    def are_all_axes_explicit(self) -> bool:
        return all(t == AxisType.Explicit for t in self.axis_types)

    def mesh_order(self, axes) -> tuple[str, ...]:
        """`axes` sorted as the mesh lists them (how JAX prints axis sets)."""
        s = set(axes)
        return tuple(n for n in self.axis_names if n in s)

    def __repr__(self) -> str:
        body = ", ".join(f"'{n}': {s}" for n, s in zip(self.axis_names, self.axis_sizes))
        types = ", ".join(t.value for t in self.axis_types)
        if len(self.axis_types) == 1:
            types += ","
        ad = "" if self.abstract_device is None else ", " + self.abstract_device._repr()
        return f"AbstractMesh({body}, axis_types=({types}){ad})"

    def str_axis_types(self) -> str:
        """`{Explicit: ('X', 'Y'), Auto: ('Z',)}` as JAX prints with mesh_axis_types."""
        parts = []
        for t in (AxisType.Manual, AxisType.Explicit, AxisType.Auto):
            names = self.axes_of_type(t)
            if names:
                parts.append(f"{t.value}: {names!r}")
        return "{" + ", ".join(parts) + "}"



def _normalize_axis_types(axis_types, n: int) -> tuple[AxisType, ...]:
    if axis_types is None:
        return (AxisType.Explicit,) * n
    if isinstance(axis_types, AxisType):
        return (axis_types,) * n
    types = tuple(axis_types)
    if len(types) != n:
        raise ShardcValueError(f"got {len(types)} axis_types for {n} mesh axes")
    for t in types:
        if not isinstance(t, AxisType):
            raise ShardcValueError(f"axis_types must be sc.AxisType values, got {t!r}")
    return types


EMPTY_MESH = AbstractMesh((), (), ())


class JaxAbstractMesh(AbstractMesh):
    """`jax.sharding.AbstractMesh` as ported code builds it (`shardc.sharding.AbstractMesh`, SPEC
    §2b): JAX 0.10.2's default axis types, Auto. The flat `sc.AbstractMesh` defaults to Explicit."""

    def __init__(self, axis_sizes: Sequence[int], axis_names: Sequence[str],
                 axis_types: Sequence[AxisType] | AxisType | None = None, *,
                 abstract_device: AbstractDevice | None = None):
        if axis_types is None:
            axis_types = (AxisType.Auto,) * (1 if isinstance(axis_names, str) else len(tuple(axis_names)))
        super().__init__(axis_sizes, axis_names, axis_types, abstract_device=abstract_device)


# --- the mesh context ---------------------------------------------------------
_CONCRETE: contextvars.ContextVar[Any] = contextvars.ContextVar("shardc_mesh", default=None)
_ABSTRACT: contextvars.ContextVar[AbstractMesh | None] = contextvars.ContextVar(
    "shardc_abstract_mesh", default=None)


def set_mesh_context(concrete: Any, abstract: AbstractMesh | None) -> tuple:
    """Set the context meshes (the concrete one is opaque here: `runtime.mesh`
    owns `Mesh` and `set_mesh`); returns tokens for `reset_mesh_context`."""
    return (_CONCRETE.set(concrete), _ABSTRACT.set(abstract))


def reset_mesh_context(tokens: tuple) -> None:
    _ABSTRACT.reset(tokens[1])
    _CONCRETE.reset(tokens[0])


def concrete_context_mesh() -> Any:
    """The concrete context mesh (an `sc.Mesh`), or None."""
    return _CONCRETE.get()


def get_abstract_mesh() -> AbstractMesh:
    """The abstract context mesh (inside a program: with the current axis types)."""
    m = _ABSTRACT.get()
    return EMPTY_MESH if m is None else m


@contextlib.contextmanager
def use_abstract_mesh(mesh: AbstractMesh) -> Iterator[AbstractMesh]:
    """Switch the abstract mesh (names, types) over the same devices."""
    mesh = getattr(mesh, "abstract_mesh", mesh)   # a concrete sc.Mesh gives its abstract mesh
    if not isinstance(mesh, AbstractMesh):
        raise ShardcValueError(f"use_abstract_mesh expects an sc.AbstractMesh, got {type(mesh).__name__}")
    cur = _ABSTRACT.get()
    if cur is not None and cur.size != mesh.size:
        raise ShardcValueError(
            f"use_abstract_mesh cannot change the size of the mesh. Got new mesh: {mesh} with "
            f"size={mesh.size} and prev mesh: {cur} with size={cur.size}")
    token = _ABSTRACT.set(mesh)
    try:
        yield mesh
    finally:
        _ABSTRACT.reset(token)


#: the mesh a program took from its arguments, traced with no mesh context
_INFERRED: contextvars.ContextVar[AbstractMesh | None] = contextvars.ContextVar("shardc_inferred_mesh",
                                                                               default=None)


@contextlib.contextmanager
def _inferred_mesh(mesh: AbstractMesh | None) -> Iterator[None]:
    """Internal: mark `mesh` (the one a program is traced on) as taken from its arguments."""
    token = _INFERRED.set(mesh)
    try:
        yield
    finally:
        _INFERRED.reset(token)


def mesh_context_is_inferred() -> bool:
    """Whether the abstract mesh in context is only the one a program took from its arguments
    (traced with no mesh context): there JAX's `get_abstract_mesh()` is empty, so a bare
    `PartitionSpec` names no mesh (JAX's "Using PartitionSpec when ... not under a mesh context")."""
    m = _ABSTRACT.get()
    return m is not None and m is _INFERRED.get()


@contextlib.contextmanager
def _abstract_mesh_override(mesh: AbstractMesh) -> Iterator[None]:
    """Internal: set the abstract mesh without checks (used while tracing)."""
    token = _ABSTRACT.set(mesh)
    try:
        yield
    finally:
        _ABSTRACT.reset(token)
