"""`jax.scipy.stats.mode`, `rankdata` and `sem`, written as JAX 0.10.2 writes them."""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...batching import vmap
from ...core import raise_user_error
from ...errors import ShardcNotImplementedError, ShardcValueError
from ...ops._util import normalize_axis
from ._common import _dtype, promote_args_inexact

__all__ = ["ModeResult", "mode", "rankdata", "sem"]


class ModeResult(NamedTuple):
    mode: object
    count: object


def _check_nan_policy(nan_policy: str, name: str) -> None:
    if nan_policy not in ["propagate", "omit", "raise"]:
        raise_user_error(ShardcValueError(
            f"Illegal nan_policy value {nan_policy!r}; expected one of {{'propagate', 'omit', 'raise'}}"))
    if nan_policy == "omit":
        raise_user_error(ShardcNotImplementedError(f"Logic for `nan_policy` of {nan_policy} is not implemented"))
    if nan_policy == "raise":
        raise_user_error(ShardcNotImplementedError(
            f"In order to best JIT compile `{name}`, we cannot know whether `x` contains nans. Please check if "
            "nans exist in `x` outside of the `" + name + "` function."))


def mode(a, axis: int | None = 0, nan_policy: str = "propagate", keepdims: bool = False) -> ModeResult:
    """The most common value along `axis` and its count (the smallest such value), as JAX's:
    `unique(..., size=)` per column under `vmap`."""
    x = jnp.atleast_1d(a)
    _check_nan_policy(nan_policy, "mode")
    if axis is not None:
        axis = normalize_axis(axis, x.ndim)
    input_shape = x.shape
    if keepdims:
        output_shape = (tuple(1 for _ in input_shape) if axis is None
                        else tuple(1 if i == axis else s for i, s in enumerate(input_shape)))
    else:
        output_shape = () if axis is None else tuple(s for i, s in enumerate(input_shape) if i != axis)
    if axis is None:
        axis = 0
        x = x.ravel()

    def _mode_helper(x):
        if x.size == 0:
            return jnp.array(np.nan, dtype=np.float32), jnp.array(0, dtype=np.float32)
        vals, counts = jnp.unique(x, return_counts=True, size=x.size)
        return vals[jnp.argmax(counts)], counts.max()

    x = jnp.moveaxis(x, axis, 0)
    x = x.reshape(x.shape[0], math.prod(x.shape[1:]))
    vals, counts = vmap(_mode_helper, in_axes=1)(x)
    return ModeResult(vals.reshape(output_shape), counts.reshape(output_shape))


def _invert_permutation(i):
    return jnp.empty_like(i).at[i].set(jnp.arange(i.size, dtype=_dtype(i)))


def rankdata(a, method: str = "average", *, axis: int | None = None, nan_policy: str = "propagate"):
    """Ranks from 1 (ties by `method`: average, min, max, dense, ordinal), NaN everywhere if any
    element is NaN, as JAX's."""
    _check_nan_policy(nan_policy, "rankdata")
    if method not in ("average", "min", "max", "dense", "ordinal"):
        raise_user_error(ShardcValueError(f"unknown method '{method}'"))
    if axis is not None:
        return jnp.apply_along_axis(rankdata, axis, a, method)
    a = jnp.ravel(a)
    out_dtype = np.float32

    def _rankdata(a):
        arr, sorter = lax.sort_key_val(a, jnp.arange(a.size))
        inv = _invert_permutation(sorter)
        if method == "ordinal":
            return (inv + 1).astype(out_dtype)
        obs = jnp.concatenate([jnp.array([True]), arr[1:] != arr[:-1]])
        dense = jnp.cumsum(obs)[inv]
        if method == "dense":
            return dense.astype(out_dtype)
        count = jnp.nonzero(obs, size=arr.size + 1, fill_value=obs.size)[0].astype(out_dtype)
        if method == "max":
            return count[dense]
        if method == "min":
            return count[dense - 1] + 1
        return 0.5 * (count[dense] + count[dense - 1] + 1)

    return lax.cond(jnp.any(jnp.isnan(a)), lambda a: jnp.full_like(a, jnp.nan, out_dtype), _rankdata, a)


def sem(a, axis: int | None = 0, ddof: int = 1, nan_policy: str = "propagate", *, keepdims: bool = False):
    """The standard error of the mean: `std(ddof) / sqrt(n)` (NaNs left out with `nan_policy='omit'`)."""
    b, = promote_args_inexact("sem", a)
    if nan_policy == "propagate":
        size = b.size if axis is None else b.shape[axis]
        return jnp.std(b, axis, ddof=ddof, keepdims=keepdims) / jnp.sqrt(size).astype(_dtype(b))
    if nan_policy == "omit":
        count = (~jnp.isnan(b)).sum(axis, keepdims=keepdims)
        return jnp.nanstd(b, axis, ddof=ddof, keepdims=keepdims) / jnp.sqrt(count).astype(_dtype(b))
    raise_user_error(ShardcValueError(f"{nan_policy} is not supported"))
