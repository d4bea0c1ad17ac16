"""`shardc.tree`, as `jax.tree`: JAX's pytree functions re-exported (SPEC §2b). shardc's arrays and
traced values are leaves."""
from jax.tree import (  # noqa: F401  (re-exported under JAX's names)
    all,
    broadcast,
    flatten,
    flatten_with_path,
    leaves,
    leaves_with_path,
    map,
    map_with_path,
    reduce,
    reduce_associative,
    static,
    structure,
    transpose,
    unflatten,
)

__all__ = [
    "all",
    "broadcast",
    "flatten",
    "flatten_with_path",
    "leaves",
    "leaves_with_path",
    "map",
    "map_with_path",
    "reduce",
    "reduce_associative",
    "static",
    "structure",
    "transpose",
    "unflatten",
]
