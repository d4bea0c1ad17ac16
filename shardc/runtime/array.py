"""`sc.Array`: a sharded array on devices (wrapping a `jax.Array`) that knows
its sharding type, plus `device_put` and friends."""
from __future__ import annotations

import operator
from typing import Any

import jax
import numpy as np
from jax._src.array import _process_has_full_value_in_mcjax  # what jax.Array.__repr__ checks
from jax.sharding import NamedSharding as JNS

from .. import dtypes as dt
from ..core import bind, register_foreign_typeof
from ..errors import ShardcNotImplementedError, ShardcTypeError, ShardcValueError, user_location
from ..primitives.sharding_ops import reshard as reshard_p
from ..sharding import NamedSharding, PartitionSpec, mem_kind_to_space
from ..types import ArrayType, type_from_spec
from .failures import is_xla_failure, xla_failure
from .jaxbridge import is_jax_array, jax_sharding, spec_from_jax, to_jax_spec, type_of_jax_array
from .mesh import Mesh, from_jax_mesh, get_mesh

__all__ = ["Array", "Shard", "array_of", "check_bool_conversion", "check_integer_conversion",
           "check_scalar_conversion", "place", "make_array_from_process_local_data", "mesh_of_sharding",
           "resolve_sharding", "respell", "wrap_outputs"]


class Array:
    """A global-view array laid out on a mesh. Operators and methods run the
    same typed ops as inside programs (eagerly, compiled once per signature);
    `shardc.ops` installs them (`ops/array_methods.py`)."""

    __slots__ = ("_jax", "_shardc_type", "_mesh", "__weakref__")
    __array_priority__ = 100

    def __init__(self, jax_array, type: ArrayType | None = None, mesh: Mesh | None = None):
        self._jax = jax_array
        self._shardc_type = type if type is not None else type_of_jax_array(jax_array)
        self._mesh = mesh if mesh is not None else mesh_of_sharding(jax_array.sharding)

    @property
    def aval(self) -> ArrayType:
        return self._shardc_type

    @property
    def sharding(self) -> NamedSharding | None:
        """The concrete sharding, spelled as JAX spells it: the spec the array was
        placed with (`device_put(x, P())` keeps `P()`, as a `jax.Array` does) when it
        means the type's layout, plus where XLA placed Auto axes."""
        if self._mesh is None:   # on one device: JAX's SingleDeviceSharding
            return self._jax.sharding
        t = self._shardc_type
        mk = self._jax.sharding.memory_kind   # where the buffers are (`pinned_host`: host memory)
        if self._mesh.abstract_mesh.auto_axes:
            return NamedSharding(self._mesh, spec_from_jax(self._jax.sharding.spec), memory_kind=mk)
        jspec = getattr(self._jax.sharding, "spec", None)
        if jspec is not None:  # (with the type's unreduced / reduced axes, checked by _same_layout)
            placed = spec_from_jax(jspec)
            if _same_layout(placed, t.pspec, t.ndim):
                return NamedSharding(self._mesh, placed, memory_kind=mk)
        return NamedSharding(self._mesh, t.pspec, memory_kind=mk)

    @property
    def mesh(self) -> Mesh | None:
        return self._mesh

    @property
    def addressable_shards(self) -> list["Shard"]:
        """This process's pieces; each shard's `.data` is an `sc.Array` on one device."""
        return [Shard(s) for s in self._jax.addressable_shards]

    def addressable_data(self, index: int) -> "Array":
        """The `index`-th addressable shard's data (JAX returns shard 0 for every index
        of a fully replicated array, and so does this)."""
        return Array(self._jax.addressable_data(index))

    @property
    def is_fully_replicated(self) -> bool:
        return self._jax.is_fully_replicated

    @property
    def is_fully_addressable(self) -> bool:
        """Whether this process addresses every device the array lives on."""
        return self._jax.is_fully_addressable

    @property
    def committed(self) -> bool:
        """Whether the array is pinned to its devices. An array laid out on a mesh was
        put there on purpose (`device_put`, a program or op under a mesh), as JAX
        commits it; one without a mesh is committed where `device_put(x, device)` put
        it (and so are results computed from it), while `jnp` results on uncommitted
        arrays stay uncommitted on the default device, as in JAX."""
        return self._jax.committed

    def devices(self) -> set:
        """The set of devices holding a piece of the array."""
        return self._jax.devices()

    def copy_to_host_async(self) -> None:
        """Start the device-to-host copy now, so a later `np.asarray` does not wait."""
        self._jax.copy_to_host_async()

    def to_jax(self):
        """The underlying `jax.Array` (unreduced arrays hold per-device addends)."""
        return self._jax

    def is_deleted(self) -> bool:
        """Whether the buffers are gone (donated to a call, or `delete()`d), as `jax.Array.is_deleted`."""
        return self._jax.is_deleted()

    def delete(self) -> None:
        """Free the buffers now (`jax.Array.delete`); the array may not be used afterwards."""
        self._jax.delete()

    def block_until_ready(self) -> "Array":
        try:
            self._jax.block_until_ready()
        except Exception as e:  # noqa: BLE001  (XLA's failure of the computation that makes this array)
            if not is_xla_failure(e):
                raise
            raise xla_failure(e, "waiting for an array (block_until_ready)", [("the array", self._shardc_type)]) \
                from None
        return self

    def __array__(self, dtype=None, copy=None):
        t = self._shardc_type
        if t.unreduced:
            full = bind(reshard_p, self, spec=PartitionSpec(*t.spec, reduced=t.reduced), mesh=t.mesh)
            arr = _host_value(full._jax, t)
        else:
            arr = _host_value(self._jax, t)
        return arr.astype(dtype) if dtype is not None else arr

    def __repr__(self) -> str:
        if not _has_full_value(self._jax):
            shards = ", ".join(f"{s.device.id}:{list(s.data.shape)}" for s in self._jax.addressable_shards)
            return (f"sc.Array(<spread over processes; this process holds shards {shards}>, "
                    f"type={self._shardc_type})")
        with np.printoptions(threshold=64, edgeitems=2):
            body = np.array2string(np.asarray(self), separator=", ")
        return f"sc.Array({body}, type={self._shardc_type})"

    def __str__(self) -> str:
        """The value as NumPy prints it (`print(x)` shows numbers, as for a `jax.Array`);
        the repr where this process cannot read the whole value."""
        if self._shardc_type.unreduced or not _has_full_value(self._jax):
            return repr(self)
        return str(np.asarray(self))

    def __format__(self, format_spec: str) -> str:
        """`f"{x:.2f}"` formats a 0-d array's scalar, a larger one's NumPy array
        (which refuses a non-empty spec), as `jax.Array.__format__` does."""
        if self._shardc_type.unreduced or not _has_full_value(self._jax):
            return repr(self)
        value = np.asarray(self)
        return format(value if value.ndim else value[()], format_spec)

    # --- Python scalars, with JAX's checks (`jax._src.core.check_*_conversion`) -------------
    def __bool__(self) -> bool:
        check_bool_conversion(self._shardc_type)
        return bool(np.asarray(self))

    def __float__(self) -> float:
        check_scalar_conversion(self._shardc_type)
        return float(np.asarray(self))

    def __int__(self) -> int:
        check_scalar_conversion(self._shardc_type)
        return int(np.asarray(self))

    def __complex__(self) -> complex:
        check_scalar_conversion(self._shardc_type)
        return complex(np.asarray(self))

    def __index__(self) -> int:
        check_integer_conversion(self._shardc_type)
        return operator.index(np.asarray(self)[()])

    def item(self, *args: int):
        return np.asarray(self).item(*args)

    def tolist(self):
        return np.asarray(self).tolist()


_new = object.__new__


def array_of(jax_array, type: ArrayType, mesh: Mesh | None) -> Array:
    """`Array(jax_array, type, mesh)` where the caller already knows all three (a compiled
    program's results: `mesh` is `mesh_of_sharding` of the result's sharding, worked out
    once per program), without `Array.__init__`'s inference: the per-call dispatch path."""
    a = _new(Array)
    a._jax, a._shardc_type, a._mesh = jax_array, type, mesh
    return a


def mesh_of_sharding(sharding) -> Mesh | None:
    """The `sc.Mesh` an array laid out by a JAX `sharding` lives on (None: a single-device one)."""
    jm = getattr(sharding, "mesh", None)
    return from_jax_mesh(jm) if jm is not None and hasattr(jm, "devices") and jm.axis_names else None


class Shard:
    """One device's piece of an `sc.Array`, as `jax.Array.addressable_shards` lists
    them: the device, the global index it holds, its replica id and its data. The
    index and replica id are worked out on first use, as JAX does (an unreduced
    array's shards have data but no index)."""

    __slots__ = ("_jax_shard", "data")

    def __init__(self, jax_shard):
        self._jax_shard = jax_shard
        self.data = Array(jax_shard.data)

    @property
    def device(self):
        return self._jax_shard.device

    @property
    def index(self) -> tuple:
        return self._jax_shard.index

    @property
    def replica_id(self) -> int:
        return self._jax_shard.replica_id

    def __repr__(self) -> str:
        return repr(self._jax_shard)


def check_scalar_conversion(t: ArrayType) -> None:
    """`float(x)` / `int(x)` / `complex(x)` need a 0-d array in JAX (NumPy also takes size 1)."""
    if t.ndim > 0:
        raise ShardcTypeError(f"Only scalar arrays can be converted to Python scalars; got arr.ndim={t.ndim}",
                              loc=user_location())


def check_integer_conversion(t: ArrayType) -> None:
    """`operator.index(x)` (so `range(x)`, `lst[x]`) needs a 0-d integer array, as in JAX."""
    if not (t.ndim == 0 and np.issubdtype(t.dtype, np.integer)):
        raise ShardcTypeError("Only integer scalar arrays can be converted to a scalar index.",
                              loc=user_location())


def check_bool_conversion(t: ArrayType) -> None:
    """`bool(x)` needs exactly one element (JAX's and NumPy's ValueErrors otherwise)."""
    if t.size == 0:
        raise ShardcValueError("The truth value of an empty array is ambiguous. Use `array.size > 0` "
                               "to check that an array is not empty.", loc=user_location())
    if t.size > 1:
        raise ShardcValueError("The truth value of an array with more than one element is ambiguous. "
                               "Use a.any() or a.all()", loc=user_location())


def _same_layout(a: PartitionSpec, b: PartitionSpec, ndim: int) -> bool:
    """Whether two specs lay out an `ndim`-d array alike (trailing `None`s are implied)."""
    pad = lambda s: PartitionSpec(*s, *(None,) * (ndim - len(s)), unreduced=s.unreduced, reduced=s.reduced)
    return len(a) <= ndim and len(b) <= ndim and pad(a) == pad(b)


def _has_full_value(j) -> bool:
    """Whether this process can read the whole value (always, on one process)."""
    if getattr(j, "is_fully_addressable", True):
        return True
    return bool(j.is_fully_replicated or _process_has_full_value_in_mcjax(j.sharding, j.shape))


def _host_value(j, t: ArrayType) -> np.ndarray:
    if not _has_full_value(j):
        n = len(j.addressable_shards)
        raise ShardcValueError(
            f"cannot convert an array of type {t} to NumPy on this process: it is spread over several "
            f"processes and this one holds only {n} of its shards. Read this process's part with "
            f"`a.addressable_shards` (each has `.index` and `.data`), or get the whole value on every "
            f"process with `sc.distributed.gather(a)` (a reshard to replicated; every process must call it)")
    if 0 in t.shape:
        # nothing to copy; XLA-CPU may hand back empty shards of the global shape, which
        # jax.Array's own copy rejects ('could not broadcast (0,8) into (0,2)'; JAX 0.10.2 fails so too)
        return np.zeros(t.shape, t.dtype)
    try:
        return np.asarray(j)
    except Exception as e:  # noqa: BLE001  (XLA's failure of the computation that makes this array)
        if not is_xla_failure(e):
            raise
        raise xla_failure(e, "copying an array to the host", [("the array", t)]) from None


def resolve_sharding(spec_or_sharding, api: str = "device_put") -> tuple[Mesh, PartitionSpec]:
    """The concrete mesh and spec a placement names (a spec uses the context mesh)."""
    if isinstance(spec_or_sharding, NamedSharding):
        if not isinstance(spec_or_sharding.mesh, Mesh):
            raise ShardcValueError("device_put needs a NamedSharding on a concrete sc.Mesh")
        return spec_or_sharding.mesh, spec_or_sharding.spec
    if isinstance(spec_or_sharding, PartitionSpec) or spec_or_sharding is None:
        mesh = get_mesh()
        spec = spec_or_sharding if spec_or_sharding is not None else PartitionSpec()
        if mesh is None:
            raise ShardcValueError(
                f"Please set a mesh via `sc.set_mesh` if a PartitionSpec is passed to {api}: "
                "using PartitionSpec when you are not under a mesh context is not allowed (or pass "
                f"a NamedSharding instance). Got {spec!r}")
        return mesh, spec
    raise ShardcValueError(f"expected an sc.P or sc.NamedSharding, got {type(spec_or_sharding).__name__}")


def place(x: Any, mesh: Mesh, spec: PartitionSpec, memory_kind: str | None = None) -> Array:
    """Host data (NumPy or a scalar) laid out on `mesh` with `spec`, in the memory
    `memory_kind` names (None: device memory)."""
    arr = np.asarray(x)
    dtype = dt.canonicalize(arr.dtype)
    weak = isinstance(x, (int, float)) and not isinstance(x, bool)
    if spec.unreduced:
        raise ShardcNotImplementedError(
            f"device_put of host data with unreduced axes is not supported (the addends are not "
            f"defined); put it replicated and `sc.reshard(x, {spec!r})` instead")
    t = type_from_spec(arr.shape, dtype, spec, mesh.abstract_mesh, weak_type=weak,
                       memory_space=mem_kind_to_space(memory_kind))
    # the concrete placement keeps Auto axes, which the type does not show
    try:
        ja = jax.device_put(arr.astype(dtype, copy=False), JNS(mesh.jax_mesh, to_jax_spec(spec),
                                                               memory_kind=memory_kind))
    except Exception as e:  # noqa: BLE001  (out of device memory)
        if not is_xla_failure(e):
            raise
        raise xla_failure(e, "putting an array on the devices (device_put)", [("the array", t)]) from None
    return Array(ja, t, mesh)


def respell(arr: Array, jsharding) -> Array:
    """`arr` with its buffers under `jsharding` (a `jax.sharding.NamedSharding`) when that
    lays it out alike and only spells it otherwise (`P('x')` for `P('x', None)`, `P(unreduced=
    {'x'})` for `P(None, unreduced={'x'})`): what JAX keeps as the array's sharding where
    the user named one (`device_put`) or an argument's equals it (Auto results). No copy."""
    j = arr._jax
    old = getattr(j, "sharding", None)
    if (not isinstance(old, JNS) or not isinstance(jsharding, JNS) or jsharding == old
            or len(jsharding.spec) > j.ndim or jsharding.mesh != old.mesh
            or set(jsharding.spec.unreduced) != set(old.spec.unreduced)
            or set(jsharding.spec.reduced) != set(old.spec.reduced) or not jsharding.is_equivalent_to(old, j.ndim)):
        return arr
    ja = jax.make_array_from_single_device_arrays(j.shape, jsharding, [s.data for s in j.addressable_shards])
    return Array(ja, arr._shardc_type, arr._mesh)


def make_array_from_process_local_data(sharding: NamedSharding, local_data,
                                       global_shape=None) -> Array:
    """Build a global array from this process's slice of the data (multi-process)."""
    mesh, spec = resolve_sharding(sharding)
    local = np.asarray(local_data)
    dtype = dt.canonicalize(local.dtype)
    shape = tuple(global_shape) if global_shape is not None else None
    probe = type_from_spec(shape or local.shape, dtype, spec, mesh.abstract_mesh)
    ja = jax.make_array_from_process_local_data(jax_sharding(mesh, probe), local.astype(dtype, copy=False),
                                                shape)
    t = type_from_spec(ja.shape, dtype, spec, mesh.abstract_mesh)
    return Array(ja, t, mesh)


def wrap_outputs(jax_arrays, types, mesh: Mesh | None) -> list[Array]:
    return [Array(a, t, mesh) for a, t in zip(jax_arrays, types)]


register_foreign_typeof(is_jax_array, type_of_jax_array)
