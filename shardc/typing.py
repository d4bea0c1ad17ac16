"""`shardc.typing`, as `jax.typing`: JAX's annotation types (`ArrayLike`, `DTypeLike`), the very
objects, so a ported `from jax.typing import ArrayLike` (now `from shardc.typing import ArrayLike`)
annotates as before. They are for annotations only: nothing in shardc computes with them, and
`isinstance(x, ArrayLike)` is JAX's check (it is false for an `sc.Array`, which is not a `jax.Array`).
"""
from jax.typing import ArrayLike, DTypeLike

__all__ = ["ArrayLike", "DTypeLike"]  # JAX 0.10.2's jax.typing, every name
