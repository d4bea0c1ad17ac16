"""`jax.experimental.shard_map.shard_map` (deprecated in JAX for `jax.shard_map`): the
same `sc.shard_map`, with the old signature (`mesh` and specs positional or keyword,
`check_rep` for what is now `check_vma`)."""
from __future__ import annotations

from typing import Callable

from ..ops.manual import shard_map as _shard_map

__all__ = ["shard_map"]


def shard_map(f: Callable, mesh, in_specs, out_specs, check_rep: bool = True):
    return _shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_vma=check_rep)
