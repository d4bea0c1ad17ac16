"""`jax.scipy.stats.sem` (JAX 0.10.2's formula); `mode` and `rankdata` are not built yet."""
from __future__ import annotations

from ... import numpy as jnp
from ...core import raise_user_error
from ...errors import ShardcValueError
from ._common import _dtype, promote_args_inexact

__all__ = ["sem"]


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
