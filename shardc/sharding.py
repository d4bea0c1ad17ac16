"""`PartitionSpec` (`P`) and `NamedSharding`: how a value is laid out on a mesh."""
from __future__ import annotations

import abc
import enum
from typing import Iterable, Union

from jax.sharding import ManualAxisType, make_single_device_sharding  # noqa: F401  (JAX's, by these names)
from jax.sharding import NamedSharding as _JNamedSharding  # (host questions about devices, answered by JAX)
from jax.sharding import PartitionSpec as _JP
from jax.sharding import Sharding as _JSharding

from .errors import ShardcValueError, located
from .mesh import AbstractDevice, AxisType, JaxAbstractMesh, get_abstract_mesh, use_abstract_mesh
from .mesh import AbstractMesh as _AbstractMesh

# `from shardc.sharding import PartitionSpec as P, NamedSharding, AxisType` ports as is: the
# names of `jax.sharding` (those defined above this base module resolve lazily, `__getattr__`)
_ABOVE = {"Mesh": "runtime.mesh", "get_mesh": "runtime.mesh", "set_mesh": "runtime.mesh",
          "reshard": "ops.sharding", "auto_axes": "ops.sharding", "explicit_axes": "ops.sharding",
          "SingleDeviceSharding": "ops.sharding"}
#: `AbstractMesh` here is JAX's, Auto by default (`__getattr__`); the base class is `shardc.mesh`'s
_JAX_DEFAULTS = {"AbstractMesh": JaxAbstractMesh}
__all__ = ["PartitionSpec", "P", "NamedSharding", "AbstractDevice", "AxisType", "get_abstract_mesh",
           "use_abstract_mesh", "MemorySpace", "Sharding", "ManualAxisType", "make_single_device_sharding",
           *_JAX_DEFAULTS, *_ABOVE]


class Sharding(abc.ABC):
    """`jax.sharding.Sharding`: what every sharding is, for `isinstance` checks in ported code:
    shardc's `NamedSharding` and JAX's own shardings (a `SingleDeviceSharding`) are registered
    as its subclasses (virtual ones: their own `isinstance` checks stay plain)."""


Sharding.register(_JSharding)


#: `jax.sharding.Mesh` defaults to Auto axes, `sc.Mesh` to Explicit: this namespace gives JAX's
_RENAMED = {"Mesh": "JaxMesh"}


def __getattr__(name: str):
    if name in _JAX_DEFAULTS:
        return _JAX_DEFAULTS[name]
    if name in _ABOVE:
        import importlib  # late: runtime and ops are above this module and import it
        return getattr(importlib.import_module(f"shardc.{_ABOVE[name]}"), _RENAMED.get(name, name))
    raise AttributeError(f"module 'shardc.sharding' has no attribute {name!r}")

Entry = Union[None, str, tuple[str, ...]]


class MemorySpace(enum.Enum):
    """JAX's `jax.memory.Space` (`core.MemorySpace`): the memory a value lives in, part of its
    type (`float32<host>[8]`). `Device` is the accelerator's default memory; `Host` is
    `memory_kind='pinned_host'`; `Any` lets the compiler choose (Pallas kernels)."""

    Device = enum.auto()
    Host = enum.auto()
    Any = enum.auto()

    def __repr__(self) -> str:
        return f"MemorySpace.{self.name}"


def as_memory_space(x) -> "MemorySpace | None":
    """Ours for `x` when it is a memory space (JAX's own `jax.memory.Space` too), else None."""
    if isinstance(x, MemorySpace):
        return x
    if type(x).__name__ == "MemorySpace" and isinstance(x, enum.Enum):
        return MemorySpace[x.name]
    return None


def mem_kind_to_space(kind: str | None) -> MemorySpace:
    """JAX's `core.mem_kind_to_space`: only `pinned_host` is host memory in a type
    (`unpinned_host` arrays type as device memory, as in JAX)."""
    return MemorySpace.Host if kind == "pinned_host" else MemorySpace.Device


def mem_space_to_kind(space: MemorySpace) -> str:
    """JAX's `core.mem_space_to_kind` (JAX fails with `AssertionError('unreachable')` for `Any`)."""
    if space is MemorySpace.Device:
        return "device"
    if space is MemorySpace.Host:
        return "pinned_host"
    raise AssertionError("unreachable")


def check_memory_kind(mesh, kind: str | None) -> None:
    """JAX's check of a sharding's memory kind against what the mesh's devices address
    (a concrete mesh only: an abstract one has no devices)."""
    devices = getattr(mesh, "devices", None)
    if kind is None or devices is None:
        return
    dev = next(iter(getattr(devices, "flat", devices)))
    kinds = [m.kind for m in dev.addressable_memories()]
    if kind not in kinds:
        raise ShardcValueError(
            f"Could not find memory addressable by device {dev.device_kind}. Device {dev.device_kind} "
            f"can address the following memory kinds: {', '.join(kinds)}. Got memory kind: {kind}")


class _Unconstrained:
    """`P.UNCONSTRAINED`: leave a dim for the compiler to choose (Auto axes only)."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNCONSTRAINED"

    def __reduce__(self):
        return (_Unconstrained, ())


UNCONSTRAINED = _Unconstrained()


def _normalize_entry(e) -> Entry:
    if e is None or e is UNCONSTRAINED:
        return e
    if isinstance(e, str):
        return e
    if isinstance(e, (tuple, list)):
        names = tuple(e)
        for n in names:
            if not isinstance(n, str):
                raise ShardcValueError(f"a PartitionSpec entry lists mesh axis names; got {n!r} in {e!r}")
        if len(names) == 0:
            return None
        return names[0] if len(names) == 1 else names
    raise ShardcValueError(
        f"a PartitionSpec entry is None, an axis name or a tuple of names; got {e!r}")


def entry_axes(e: Entry) -> tuple[str, ...]:
    """The mesh axes of one spec entry, major to minor."""
    if e is None or e is UNCONSTRAINED:
        return ()
    return (e,) if isinstance(e, str) else tuple(e)


def _axis_set(names: Iterable[str], what: str) -> frozenset[str]:
    if isinstance(names, str):
        names = (names,)
    out = frozenset(names)
    for n in out:
        if not isinstance(n, str):
            raise ShardcValueError(f"{what} takes mesh axis names, got {n!r}")
    return out


class PartitionSpec(tuple):
    """`P(*dims, unreduced=..., reduced=...)`: per-dim mesh axes plus the axes
    over which the value is a partial sum (unreduced) or replicated-with-an-
    unreduced-cotangent (reduced)."""

    UNCONSTRAINED = UNCONSTRAINED

    @located
    def __new__(cls, *dims, unreduced: Iterable[str] = frozenset(),
                reduced: Iterable[str] = frozenset()):
        entries = tuple(_normalize_entry(d) for d in dims)
        self = super().__new__(cls, entries)
        self.unreduced = _axis_set(unreduced, "unreduced")
        self.reduced = _axis_set(reduced, "reduced")
        used = [a for e in entries for a in entry_axes(e)]
        if self.unreduced & set(used):
            raise ShardcValueError(
                f"partitions cannot overlap with unreduced axes passed to PartitionSpec. "
                f"Got partitions: {entries!r} and unreduced axes: {_fs(self.unreduced)}")
        if self.reduced & set(used):
            raise ShardcValueError(
                f"partitions cannot overlap with reduced axes passed to PartitionSpec. "
                f"Got partitions: {entries!r} and reduced axes: {_fs(self.reduced)}")
        if self.unreduced & self.reduced:
            raise ShardcValueError(
                f"unreduced and reduced axes cannot overlap. Got unreduced={_fs(self.unreduced)} "
                f"and reduced={_fs(self.reduced)}")
        return self

    @property
    def partitions(self) -> tuple[Entry, ...]:
        return tuple(self)

    def update(self, partitions=None, unreduced=None, reduced=None) -> "PartitionSpec":
        """This spec with its entries, unreduced or reduced axes replaced (JAX's `P.update`)."""
        return PartitionSpec(*(tuple(self) if partitions is None else partitions),
                             unreduced=self.unreduced if unreduced is None else unreduced,
                             reduced=self.reduced if reduced is None else reduced)

    def axes(self) -> list[str]:
        return [a for e in self for a in entry_axes(e)]

    def __repr__(self) -> str:
        parts = [repr(e) for e in self]
        if len(self) == 1 and not (self.unreduced or self.reduced):
            parts[0] += ","
        if self.unreduced:
            parts.append(f"unreduced={_set_repr(self.unreduced)}")
        if self.reduced:
            parts.append(f"reduced={_set_repr(self.reduced)}")
        return "P(" + ", ".join(parts) + ")"

    __str__ = __repr__

    def __eq__(self, other) -> bool:
        if not isinstance(other, tuple):
            return False
        o_u = getattr(other, "unreduced", frozenset())
        o_r = getattr(other, "reduced", frozenset())
        return (tuple(self) == tuple(other) and self.unreduced == o_u and self.reduced == o_r)

    def __ne__(self, other) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash((tuple(self), self.unreduced, self.reduced))

    def __reduce__(self):
        return (_make_p, (tuple(self), self.unreduced, self.reduced))

def _make_p(entries, unreduced, reduced):
    return PartitionSpec(*entries, unreduced=unreduced, reduced=reduced)


def _set_repr(s: frozenset[str]) -> str:
    return "{" + ", ".join(repr(a) for a in sorted(s)) + "}"


def _fs(s: frozenset[str]) -> str:
    return "frozenset({" + ", ".join(repr(a) for a in sorted(s)) + "})"


P = PartitionSpec


def spec_from_foreign(spec) -> PartitionSpec:
    """Our spec for another library's (`jax.sharding.PartitionSpec`: a tuple
    of entries with `unreduced`/`reduced` sets)."""
    # JAX refuses `tuple(spec)` when its spec has unreduced/reduced axes: read the entries
    entries = getattr(spec, "partitions", None)
    return PartitionSpec(*(tuple(spec) if entries is None else tuple(entries)),
                         unreduced=getattr(spec, "unreduced", frozenset()),
                         reduced=getattr(spec, "reduced", frozenset()))


class NamedSharding:
    """A mesh plus a `PartitionSpec`."""

    @located
    def __init__(self, mesh, spec: PartitionSpec | None = None, *, memory_kind: str | None = None):
        # `mesh` is an `sc.Mesh` (concrete, from the runtime) or an `sc.AbstractMesh`
        if not isinstance(getattr(mesh, "abstract_mesh", mesh), _AbstractMesh):
            raise ShardcValueError(f"NamedSharding needs an sc.Mesh or sc.AbstractMesh, got {type(mesh).__name__}")
        if spec is None:
            spec = PartitionSpec()
        if not isinstance(spec, PartitionSpec):
            if isinstance(spec, tuple) and not hasattr(spec, "unreduced"):
                spec = PartitionSpec(*spec)
            else:
                spec = spec_from_foreign(spec)
        am = getattr(mesh, "abstract_mesh", mesh)
        if (not am.empty and AxisType.Auto not in am.axis_types
                and any(e is UNCONSTRAINED for e in tuple(spec))):
            raise ShardcValueError(
                f"{spec!r} cannot contain `P.UNCONSTRAINED` when no mesh axis_types are `Auto`. "
                f"Got mesh axis_types: ({', '.join(t.name for t in am.axis_types)},)")
        if memory_kind not in (None, "device"):   # (every device has its default memory: no lookup)
            check_memory_kind(mesh, memory_kind)
        self.mesh = mesh
        self.spec = spec
        #: JAX's memory space of the placement (None: the device's default memory)
        self.memory_kind = memory_kind

    @located
    def with_memory_kind(self, kind: str) -> "NamedSharding":
        """This sharding in another memory (`pinned_host`, `unpinned_host`, `device`), as JAX's."""
        return NamedSharding(self.mesh, self.spec, memory_kind=kind)

    @property
    def abstract_mesh(self) -> _AbstractMesh:
        return getattr(self.mesh, "abstract_mesh", self.mesh)

    def update(self, **kwargs) -> "NamedSharding":
        """This sharding with its `mesh`, `spec` or `memory_kind` replaced (JAX's `update`)."""
        spec = kwargs.pop("spec", self.spec)
        out = NamedSharding(kwargs.pop("mesh", self.mesh), spec if isinstance(spec, PartitionSpec)
                            else PartitionSpec(*spec), memory_kind=kwargs.pop("memory_kind", self.memory_kind))
        if kwargs:
            raise ShardcValueError(f"Unknown keys: {list(kwargs)}")
        return out

    # --- the devices: what `jax.sharding.NamedSharding` answers (host code, checkpointing) -------
    def _jax(self, what: str) -> _JNamedSharding:
        """The equivalent `jax.sharding.NamedSharding`, on a concrete mesh (JAX's error on an abstract one)."""
        jm = getattr(self.mesh, "jax_mesh", None)
        if jm is None:
            raise ShardcValueError(f"{what} is not implemented for `sc.AbstractMesh`.")
        spec = _JP(*self.spec, unreduced=set(self.spec.unreduced), reduced=set(self.spec.reduced))
        return _JNamedSharding(jm, spec, memory_kind=self.memory_kind)

    @property
    def num_devices(self) -> int:
        return self.abstract_mesh.size

    @property
    def device_set(self) -> set:
        return self._jax("device_set").device_set

    @property
    def addressable_devices(self) -> set:
        return self._jax("addressable_devices").addressable_devices

    @property
    def is_fully_addressable(self) -> bool:
        return self._jax("is_fully_addressable").is_fully_addressable

    @property
    def has_addressable_devices(self) -> bool:
        return self._jax("has_addressable_devices").has_addressable_devices

    @property
    def replicated_axes(self) -> frozenset[str]:
        """The mesh axes the spec does not split the value over (nor holds it unreduced or reduced on)."""
        used = set(self.spec.axes()) | set(self.spec.unreduced) | set(self.spec.reduced)
        return frozenset(a for a in self.abstract_mesh.axis_names if a not in used)

    def devices_indices_map(self, global_shape) -> dict:
        """Each device's index into an array of `global_shape` (slices per dim), as JAX's."""
        return self._jax("devices_indices_map").devices_indices_map(tuple(global_shape))

    def addressable_devices_indices_map(self, global_shape) -> dict:
        """`devices_indices_map` for this process's devices."""
        return self._jax("addressable_devices_indices_map").addressable_devices_indices_map(tuple(global_shape))

    def is_equivalent_to(self, other, ndim: int) -> bool:
        """Whether `other` (shardc's or JAX's sharding) lays out a rank-`ndim` value alike."""
        mine = self._jax("is_equivalent_to")
        theirs = other._jax("is_equivalent_to") if isinstance(other, NamedSharding) else other
        return mine.is_equivalent_to(theirs, ndim)

    def check_compatible_aval(self, aval_shape) -> None:
        """JAX's check that the spec fits a value of shape `aval_shape`."""
        if len(aval_shape) < len(self.spec):
            extra = " For scalars the PartitionSpec should be P()" if len(aval_shape) == 0 else ""
            raise ShardcValueError(
                f"Sharding {self} is only valid for values of rank at least {len(self.spec)}, but was "
                f"applied to a value of rank {len(aval_shape)}.{extra}")

    @property
    def is_fully_replicated(self) -> bool:
        """Every device holds the whole value (JAX's rule: not when unreduced)."""
        mesh = self.abstract_mesh
        if mesh.size == 1:
            return True
        if self.spec.unreduced:
            return False
        n = 1
        for e in self.spec:
            for a in entry_axes(e):
                n *= mesh.axis_size(a)
        return n == 1

    def shard_shape(self, global_shape) -> tuple[int, ...]:
        """The shape of each device's block of an array of `global_shape` (JAX's `shard_shape`)."""
        mesh = self.abstract_mesh
        spec = tuple(self.spec) + (None,) * (len(global_shape) - len(self.spec))
        out = []
        for d, e in zip(global_shape, spec):
            n = 1
            for a in entry_axes(e):
                n *= mesh.axis_size(a)
            if d % n:
                raise ShardcValueError(f"shard_shape: dimension {d} is not divisible by {n} (spec {self.spec!r})")
            out.append(d // n)
        return tuple(out)

    def _memory_kind(self) -> str | None:
        """The memory kind as JAX normalizes it: on a concrete mesh, none given is the
        device's default memory (`device`); an abstract mesh has none."""
        if self.memory_kind is None and not isinstance(self.mesh, _AbstractMesh):
            return "device"
        return self.memory_kind

    def __eq__(self, other) -> bool:
        return (isinstance(other, NamedSharding) and self.mesh == other.mesh
                and self.spec == other.spec and self._memory_kind() == other._memory_kind())

    def __hash__(self) -> int:
        return hash((self.mesh, self.spec, self._memory_kind()))

    def __repr__(self) -> str:
        mk = self._memory_kind()
        mk = "" if mk is None else f", memory_kind={mk}"
        return f"NamedSharding(mesh={self.mesh}, spec={self.spec!r}{mk})"   # str(mesh), as JAX


Sharding.register(NamedSharding)
