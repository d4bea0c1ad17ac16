"""The host-side part of `jax`'s top level: devices and processes, waiting for
results, building arrays from per-device pieces, and name scopes.

These are runtime helpers, not compilation: they report or arrange where data
lives. Device objects are jaxlib's own (`sc.Device` is `jax.Device`), so code
that compares or prints devices ports unchanged; arrays come back as
`sc.Array`s with their sharding types.
"""
from __future__ import annotations

import contextlib
import functools
import importlib.metadata
from typing import Any, Callable, Sequence

import jax
import jax.tree_util as tu

from ..errors import NAME_STACK, ShardcTypeError, ShardcValueError
from ..sharding import NamedSharding
from . import devices as _devices
from .array import Array, Shard
from .jaxbridge import to_jax_mesh, to_jax_spec

__all__ = [
    "Device", "Shard", "devices", "device_count", "local_devices", "local_device_count", "process_index",
    "process_count", "process_indices", "host_id", "host_count", "host_ids", "default_backend",
    "block_until_ready", "copy_to_host_async", "make_array_from_callback", "make_array_from_single_device_arrays",
    "live_arrays", "named_scope", "named_call", "effects_barrier", "print_environment_info",
]

#: jaxlib's device class: `sc.devices()` returns these, as `jax.devices()` does
Device = jax.Device


def _backend(backend):
    return backend if backend is not None else _devices.platform()


def devices(backend: str | None = None) -> list:
    """Every device of the job (all processes), ordered by id."""
    return jax.devices(_backend(backend))


def device_count(backend: str | None = None) -> int:
    return jax.device_count(_backend(backend))


def local_devices(process_index: int | None = None, backend: str | None = None, host_id: int | None = None) -> list:
    """This process's devices (or those of `process_index`)."""
    return jax.local_devices(process_index, _backend(backend), host_id)


def local_device_count(backend: str | None = None) -> int:
    return jax.local_device_count(_backend(backend))


def process_index(backend: str | None = None) -> int:
    """This process's rank in a multi-process job (0 otherwise)."""
    return jax.process_index(_backend(backend))


def process_count(backend: str | None = None) -> int:
    return jax.process_count(_backend(backend))


def process_indices(backend: str | None = None) -> list[int]:
    return list(range(process_count(backend)))


# JAX keeps the pre-"process" names as aliases
host_id, host_count, host_ids = process_index, process_count, process_indices


def default_backend() -> str:
    """The platform programs run on: `sc.set_platform`'s, or JAX's default."""
    return _devices.platform() or jax.default_backend()


def block_until_ready(x: Any) -> Any:
    """Wait until every array leaf of the pytree `x` is computed; returns `x`.
    Leaves without `block_until_ready` (Python numbers, NumPy arrays) pass through."""
    for leaf in tu.tree_leaves(x):
        try:
            leaf.block_until_ready()
        except AttributeError:
            pass
    return x


def copy_to_host_async(x: Any) -> Any:
    """Start copying every array leaf of `x` to the host; returns `x`."""
    for leaf in tu.tree_leaves(x):
        if isinstance(leaf, Array) or hasattr(leaf, "copy_to_host_async"):
            leaf.copy_to_host_async()
    return x


def _jax_sharding(sharding):
    if isinstance(sharding, NamedSharding):
        return jax.sharding.NamedSharding(to_jax_mesh(sharding.mesh), to_jax_spec(sharding.spec))
    if isinstance(sharding, jax.sharding.Sharding):
        return sharding
    raise ShardcTypeError(f"expected a NamedSharding, got {type(sharding).__name__}: {sharding!r}")


def make_array_from_callback(shape: Sequence[int], sharding, data_callback: Callable, dtype=None) -> Array:
    """`jax.make_array_from_callback`: the array of global `shape` laid out by
    `sharding`, each device's piece being `data_callback(index)` for the global
    index (a tuple of slices) that device holds."""
    return Array(jax.make_array_from_callback(tuple(shape), _jax_sharding(sharding), _host_data(data_callback),
                                              dtype))


def _host_data(cb: Callable) -> Callable:
    """A callback may return `sc.Array`s: JAX receives their `jax.Array`s."""
    @functools.wraps(cb)
    def call(index):
        out = cb(index)
        return out.to_jax() if isinstance(out, Array) else out
    return call


def make_array_from_single_device_arrays(shape: Sequence[int], sharding, arrays: Sequence[Any], *,
                                         dtype=None) -> Array:
    """`jax.make_array_from_single_device_arrays`: one array from the pieces each
    addressable device holds (`sc.Array`s or `jax.Array`s on one device each)."""
    pieces = [a.to_jax() if isinstance(a, Array) else a for a in arrays]
    if any(not hasattr(p, "devices") for p in pieces):
        raise ShardcValueError("make_array_from_single_device_arrays takes arrays already on one device each "
                               "(sc.device_put(piece, device)), not host data")
    return Array(jax.make_array_from_single_device_arrays(tuple(shape), _jax_sharding(sharding), pieces,
                                                          dtype=dtype))


def live_arrays(platform: str | None = None) -> list:
    """The device buffers alive in this process (`jax.live_arrays`), as `jax.Array`s:
    an `sc.Array` holds one of them."""
    return jax.live_arrays(platform)


@contextlib.contextmanager
def named_scope(name: str):
    """`jax.named_scope`: ops written inside carry `name/` before their own name in
    the emitted locations, so XLA's op names (and profiles, `shardc inspect`) show the
    scope, e.g. `block0/attn/sc.dot at model.py:12`. Scopes nest."""
    if not isinstance(name, str):
        raise ShardcTypeError(f"named_scope takes a string name, got {type(name).__name__}")
    NAME_STACK.append(name)
    try:
        yield
    finally:
        NAME_STACK.pop()


def named_call(fun: Callable, *, name: str | None = None) -> Callable:
    """`jax.named_call`: `fun` whose ops are scoped under `name` (default: its `__name__`)."""
    scope = name if name is not None else getattr(fun, "__name__", "fun")

    @functools.wraps(fun)
    def call(*args, **kwargs):
        with named_scope(scope):
            return fun(*args, **kwargs)
    return call


def effects_barrier() -> None:
    """`jax.effects_barrier`: wait for the side effects of programs already run.
    shardc programs have none (no callbacks, no prints, no ordered effects), so
    there is never anything to wait for."""


def print_environment_info(return_string: bool = False) -> str | None:
    """shardc's version and platform, then JAX's environment report (jaxlib, Python,
    devices), as `jax.print_environment_info`."""
    text = (f"shardc:    {importlib.metadata.version('shardc')}\nplatform:  {default_backend()} ({device_count()} devices)\n"
            + jax.print_environment_info(return_string=True))
    if return_string:
        return text
    print(text)
    return None
