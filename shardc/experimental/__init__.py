"""`shardc.experimental`, for the `jax.experimental` import paths that ported programs
still use: `mesh_utils` (device arrangement), `shard_map` (the pre-`jax.shard_map`
location, with its `check_rep` argument), `compilation_cache` and `multihost_utils` (host-side
helpers of multi-process programs). The rest of
`jax.experimental` (pallas, jax2tf, sparse, ...) is not here."""
from . import compilation_cache, mesh_utils, multihost_utils, shard_map

__all__ = ["compilation_cache", "mesh_utils", "multihost_utils", "shard_map"]
