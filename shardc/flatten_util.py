"""`shardc.flatten_util`: JAX 0.10.2's `jax.flatten_util` (`ravel_pytree`).

JAX's own code (`jax/_src/flatten_util.py`, Copyright 2018 The JAX Authors, Apache License 2.0)
ported onto shardc's `lax`, `numpy` and `tree_util`, so the flat vector's dtype (the leaves'
promoted dtype), its sharding type and the unravel function's casts and errors follow JAX's by
construction: leaves of one dtype give a dtype-polymorphic unravel; mixed dtypes are converted to
their promoted dtype and cast back by unravel, which refuses a vector of another dtype with JAX's
TypeError. An empty pytree ravels to a float32 vector of length 0.
"""
from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from . import lax
from . import numpy as jnp
from .tree_util import PyTreeDef, tree_flatten, tree_unflatten

__all__ = ["ravel_pytree"]  # JAX 0.10.2's jax.flatten_util, every name

Sizes = tuple[int, ...]
Shapes = tuple[tuple[int, ...], ...]


class _HashablePartial:
    """JAX's `HashablePartial`: a partial application compared and hashed by its function and
    (hashable) arguments, so two `ravel_pytree`s of alike pytrees give equal unravel functions
    (usable as `jit` static arguments, as in JAX)."""

    __slots__ = ("f", "args")

    def __init__(self, f: Callable, *args: Any):
        self.f, self.args = f, args

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, _HashablePartial) and self.f is other.f and self.args == other.args)

    def __hash__(self) -> int:
        return hash((self.f, self.args))

    def __call__(self, *args: Any) -> Any:
        return self.f(*self.args, *args)


def ravel_pytree(pytree: Any) -> tuple[Any, Callable[[Any], Any]]:
    """Ravel (flatten) a pytree of arrays down to a 1D array.

    Returns `(flat, unravel)`: `flat` concatenates the raveled leaves, converted to their promoted
    dtype (float32 and empty for a pytree without leaves); `unravel(flat)` rebuilds the pytree,
    each leaf cast back to its own dtype."""
    leaves, treedef = tree_flatten(pytree)
    flat, unravel_list = _ravel_list(leaves)
    return flat, _HashablePartial(unravel_pytree, treedef, unravel_list)


def unravel_pytree(treedef: PyTreeDef, unravel_list: Callable[[Any], Iterable[Any]], flat: Any) -> Any:
    return tree_unflatten(treedef, unravel_list(flat))


def _ravel_list(lst: list[Any], /) -> tuple[Any, Callable[[Any], list[Any]]]:
    if not lst:
        return lax.full([0], 0, "float32"), _unravel_nothing
    from_dtypes = tuple(jnp.result_type(leaf) for leaf in lst)
    to_dtype = jnp.result_type(*from_dtypes)
    sizes = tuple(int(np.size(x)) for x in lst)
    shapes = tuple(tuple(np.shape(x)) for x in lst)

    if all(d == to_dtype for d in from_dtypes):
        # Skip any dtype conversion, resulting in a dtype-polymorphic `unravel` (JAX issue 7809).
        raveled = lax.concatenate([lax.reshape(jnp.asarray(e), (int(np.size(e)),)) for e in lst], dimension=0)
        return raveled, _HashablePartial(_unravel_list_single_dtype, sizes, shapes)

    # more than one distinct input dtype: convert, and give a dtype-specific `unravel`
    raveled = lax.concatenate([jnp.ravel(lax.convert_element_type(jnp.asarray(e), to_dtype)) for e in lst],
                              dimension=0)
    return raveled, _HashablePartial(_unravel_list, sizes, shapes, from_dtypes, to_dtype)


def _unravel_nothing(_: Any) -> list[Any]:
    return []


def _unravel_list_single_dtype(sizes: Sizes, shapes: Shapes, arr: Any) -> list[Any]:
    chunks = lax.split(arr, sizes)
    return [chunk.reshape(shape) for chunk, shape in zip(chunks, shapes, strict=True)]


def _unravel_list(sizes: Sizes, shapes: Shapes, from_dtypes: tuple[np.dtype, ...], to_dtype: np.dtype,
                  arr: Any) -> list[Any]:
    arr_dtype = jnp.result_type(arr)
    if arr_dtype != to_dtype:
        raise TypeError(f"unravel function given array of dtype {arr_dtype}, but expected dtype {to_dtype}")
    chunks = lax.split(arr, sizes)
    with warnings.catch_warnings():   # JAX casts with warn_on_complex_to_real_cast=False
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        return [lax.convert_element_type(chunk.reshape(shape), dtype)
                for chunk, shape, dtype in zip(chunks, shapes, from_dtypes, strict=True)]
