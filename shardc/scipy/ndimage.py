"""`shardc.scipy.ndimage`: JAX 0.10.2's `jax.scipy.ndimage` (`map_coordinates`).

JAX's own composition (`jax/_src/scipy/ndimage.py`, Copyright 2019 The JAX Authors, Apache License 2.0)
ported onto shardc's `numpy`, `lax` and `jit`: orders 0 (nearest) and 1 (linear), modes 'constant',
'nearest', 'wrap', 'mirror' and 'reflect' with JAX's index fixers (JAX's 'wrap'/'constant' are SciPy's
'grid-wrap'/'grid-constant'), the corner contributions gathered by integer indexing and summed, under a
`jit` with `order`, `mode` and `cval` static as JAX's; values, dtypes and errors follow JAX's.
"""
from __future__ import annotations

import functools
import itertools
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..errors import ShardcNotImplementedError, ShardcValueError
from ..stages import jit

Array = ArrayLike = Any

__all__ = ["map_coordinates"]  # JAX 0.10.2's jax.scipy.ndimage, every name


def _nonempty_prod(arrs: Sequence[Array]) -> Array:
    return functools.reduce(operator.mul, arrs)


def _nonempty_sum(arrs: Sequence[Array]) -> Array:
    return sum(arrs[1:], arrs[0])


def _mirror_index_fixer(index: Array, size: int) -> Array:
    s = size - 1  # half-wavelength of the triangular wave |x - round(x)|
    return jnp.abs((index + s) % (2 * s) - s)


def _reflect_index_fixer(index: Array, size: int) -> Array:
    return jnp.floor_divide(_mirror_index_fixer(2 * index + 1, 2 * size + 1) - 1, 2)


_INDEX_FIXERS: dict[str, Callable[[Array, int], Array]] = {
    "constant": lambda index, size: index,
    "nearest": lambda index, size: jnp.clip(index, 0, size - 1),
    "wrap": lambda index, size: index % size,
    "mirror": _mirror_index_fixer,
    "reflect": _reflect_index_fixer,
}


def _round_half_away_from_zero(a: Array) -> Array:
    return a if jnp.issubdtype(a.dtype, np.integer) else lax.round(a)


def _nearest_indices_and_weights(coordinate: Array) -> list[tuple[Array, ArrayLike]]:
    index = _round_half_away_from_zero(coordinate).astype(np.int32)
    weight = coordinate.dtype.type(1)
    return [(index, weight)]


def _linear_indices_and_weights(coordinate: Array) -> list[tuple[Array, ArrayLike]]:
    lower = jnp.floor(coordinate)
    upper_weight = coordinate - lower
    lower_weight = 1 - upper_weight
    index = lower.astype(np.int32)
    return [(index, lower_weight), (index + 1, upper_weight)]


@functools.partial(jit, static_argnums=(2, 3, 4))
def _map_coordinates(input: ArrayLike, coordinates: Sequence[ArrayLike], order: int, mode: str,
                     cval: ArrayLike) -> Array:
    input_arr = jnp.asarray(input)
    coordinate_arrs = [jnp.asarray(c) for c in coordinates]
    cval = jnp.asarray(cval, input_arr.dtype)
    if len(coordinates) != input_arr.ndim:
        raise ShardcValueError("coordinates must be a sequence of length input.ndim, but "
                               f"{len(coordinates)} != {input_arr.ndim}")
    index_fixer = _INDEX_FIXERS.get(mode)
    if index_fixer is None:
        raise ShardcNotImplementedError(
            f"jax.scipy.ndimage.map_coordinates does not yet support mode {mode}. "
            f"Currently supported modes are {set(_INDEX_FIXERS)}.")
    if mode == "constant":
        is_valid = lambda index, size: (0 <= index) & (index < size)  # noqa: E731
    else:
        is_valid = lambda index, size: True  # noqa: E731
    if order == 0:
        interp_fun = _nearest_indices_and_weights
    elif order == 1:
        interp_fun = _linear_indices_and_weights
    else:
        raise ShardcNotImplementedError("jax.scipy.ndimage.map_coordinates currently requires order<=1")

    valid_1d_interpolations = []
    for coordinate, size in zip(coordinate_arrs, input_arr.shape, strict=True):
        valid_interp = []
        for index, weight in interp_fun(coordinate):
            valid_interp.append((index_fixer(index, size), is_valid(index, size), weight))
        valid_1d_interpolations.append(valid_interp)

    outputs = []
    for items in itertools.product(*valid_1d_interpolations):
        indices, validities, weights = (tuple(t) for t in zip(*items))
        if all(valid is True for valid in validities):
            contribution = input_arr[indices]
        else:
            all_valid = functools.reduce(operator.and_, validities)
            contribution = jnp.where(all_valid, input_arr[indices], cval)
        outputs.append(_nonempty_prod(weights) * contribution)
    result = _nonempty_sum(outputs)
    if jnp.issubdtype(input_arr.dtype, np.integer):
        result = _round_half_away_from_zero(result)
    return result.astype(input_arr.dtype)


def map_coordinates(input: ArrayLike, coordinates: Sequence[ArrayLike], order: int, mode: str = "constant",
                    cval: ArrayLike = 0.0) -> Array:
    """`jax.scipy.ndimage.map_coordinates`: `input` interpolated (order 0 or 1) at `coordinates`."""
    return _map_coordinates(input, coordinates, order, mode, cval)
