"""`jax.experimental.multihost_utils`: host-side helpers of multi-process programs (gather a
sharded array to every host, broadcast process 0's values, a barrier, an equality check across
processes, preemption sync points). They run outside compiled programs and move host data, so
they are JAX's own functions, with shardc arrays passed in as the `jax.Array`s they wrap and
arrays that come back wrapped as `sc.Array`s. Under `shardc run --processes N` (or any
`jax.distributed` job) they act across the processes; in one process they are what JAX's are there."""
from __future__ import annotations

from typing import Any

import jax
import jax.tree_util as tu
from jax.experimental import multihost_utils as _jax_mhu

from ..runtime.array import Array
from ..runtime.jaxbridge import to_jax_spec
from ..runtime.mesh import Mesh
from ..sharding import PartitionSpec

__all__ = ["process_allgather", "broadcast_one_to_all", "sync_global_devices", "assert_equal",
           "reached_preemption_sync_point", "host_local_array_to_global_array",
           "global_array_to_host_local_array", "live_devices"]


def _to_jax(tree: Any) -> Any:
    return tu.tree_map(lambda x: x.to_jax() if isinstance(x, Array) else x, tree)


def _from_jax(tree: Any) -> Any:
    return tu.tree_map(lambda x: Array(x) if isinstance(x, jax.Array) else x, tree)


def _jax_mesh(mesh):
    return mesh.jax_mesh if isinstance(mesh, Mesh) else mesh


def _jax_specs(pspecs: Any) -> Any:
    return tu.tree_map(lambda s: to_jax_spec(s) if isinstance(s, PartitionSpec) else s, pspecs,
                       is_leaf=lambda s: isinstance(s, PartitionSpec) or s is None)


def process_allgather(in_tree: Any, tiled: bool = False) -> Any:
    """Every process's data of each array, as NumPy arrays on every host (JAX's)."""
    return _jax_mhu.process_allgather(_to_jax(in_tree), tiled=tiled)


def broadcast_one_to_all(in_tree: Any, is_source: bool | None = None) -> Any:
    """Process 0's values (or the source's) on every process (JAX's)."""
    return _from_jax(_jax_mhu.broadcast_one_to_all(_to_jax(in_tree), is_source=is_source))


def sync_global_devices(name: str) -> None:
    """A barrier across all processes' devices (JAX's)."""
    _jax_mhu.sync_global_devices(name)


def assert_equal(in_tree: Any, fail_message: str = "") -> None:
    """Raise where the processes' values differ (JAX's AssertionError)."""
    _jax_mhu.assert_equal(_to_jax(in_tree), fail_message)


def reached_preemption_sync_point(step_id: int) -> bool:
    """Whether the job is to save and stop at `step_id` (JAX's preemption service)."""
    return _jax_mhu.reached_preemption_sync_point(step_id)


def host_local_array_to_global_array(local_inputs: Any, global_mesh, pspecs: Any) -> Any:
    """Each process's local data as one global array on `global_mesh` laid out by `pspecs` (JAX's)."""
    return _from_jax(_jax_mhu.host_local_array_to_global_array(_to_jax(local_inputs), _jax_mesh(global_mesh),
                                                               _jax_specs(pspecs)))


def global_array_to_host_local_array(global_inputs: Any, global_mesh, pspecs: Any) -> Any:
    """The inverse of `host_local_array_to_global_array` (JAX's)."""
    return _from_jax(_jax_mhu.global_array_to_host_local_array(_to_jax(global_inputs), _jax_mesh(global_mesh),
                                                               _jax_specs(pspecs)))


def live_devices(devices):
    """JAX's `live_devices` context manager (the devices of live processes)."""
    return _jax_mhu.live_devices(devices)
