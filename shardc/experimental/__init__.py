"""`shardc.experimental`, for the `jax.experimental` import paths that ported programs
still use: `mesh_utils` (device arrangement), `shard_map` (the pre-`jax.shard_map`
location, with its `check_rep` argument), `compilation_cache` and `multihost_utils` (host-side
helpers of multi-process programs), `pjit` (the deprecated `pjit`, shardc's `jit`) and
`io_callback` (an impure host function, shardc/callbacks.py). `shardc.experimental.ode` (`odeint`,
JAX's Dormand-Prince solver) is imported by name (`from shardc.experimental.ode import odeint`),
as JAX's `jax.experimental.ode`, which `import jax` does not bind either. The rest of `jax.experimental` (pallas, jax2tf, sparse, ...) is not here."""
from ..callbacks import io_callback
from . import compilation_cache, mesh_utils, multihost_utils, pjit, shard_map

__all__ = ["compilation_cache", "io_callback", "mesh_utils", "multihost_utils", "pjit", "shard_map"]
