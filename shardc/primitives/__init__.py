"""Primitives: one definition per operation, holding all of its rules.

| file | primitives |
|---|---|
| `elementwise.py` | unary math (incl. `square`), binary arithmetic/comparison, `convert_element_type`, `integer_pow`, `select_n` |
| `shape.py` | `broadcast_in_dim`, `reshape`, `transpose`, `squeeze`, `rev`, `concatenate`, `slice`, `dynamic_slice`, `dynamic_update_slice`, `pad`, `iota` |
| `reductions.py` | `reduce_{sum,max,min,prod,and,or}`, `argmax`, `argmin`, `cumsum`/`cumprod`/`cummax`/`cummin` |
| `dot.py` | `dot_general` |
| `sharding_ops.py` | `reshard`, `mesh_cast`, `sharding_constraint`, `copy` |
| `collectives.py` | `psum`/`pmax`/`pmin`, `all_gather`, `psum_scatter`, `ppermute`, `all_to_all`, `axis_index`, the `pcast` family |
| `shard_map.py` | `shard_map` (a nested per-device body over Manual axes) |
| `gather.py` | `gather`, `scatter_add` (indexing with arrays, `take`) |
| `control_flow.py` | `cond`, `while`, `scan` (nested bodies with typed carries) |
"""
from . import core, elementwise, shape, reductions, dot, sharding_ops, collectives, shard_map  # noqa: F401
from . import gather  # noqa: F401  (gather, scatter_add)
from . import control_flow  # noqa: F401  (cond, while, scan)
