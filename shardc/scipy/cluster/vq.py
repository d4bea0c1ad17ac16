"""`shardc.scipy.cluster.vq`: JAX 0.10.2's `jax.scipy.cluster.vq` (`vq`).

JAX's own composition (`jax/_src/scipy/cluster/vq.py`, Copyright 2022 The JAX Authors, Apache License
2.0) ported onto shardc's `numpy`, `numpy.linalg.norm` and `vmap`: the distances of each observation to
every code, their argmin and the minimum picked by a vmapped index, so values, dtypes and errors follow
JAX's.
"""
from __future__ import annotations

import operator
from typing import Any

from ... import numpy as jnp
from ...batching import vmap
from ...errors import ShardcValueError
from ..linalg import check_arraylike, promote_dtypes_inexact

Array = ArrayLike = Any

__all__ = ["vq"]  # JAX 0.10.2's jax.scipy.cluster.vq, every name


def vq(obs: ArrayLike, code_book: ArrayLike, check_finite: bool = True) -> tuple[Array, Array]:
    """`jax.scipy.cluster.vq.vq`: `(code, dist)`, each observation's nearest code and its Euclidean distance."""
    del check_finite  # unused, as in JAX
    check_arraylike("scipy.cluster.vq.vq", obs, code_book)
    obs_arr, cb_arr = promote_dtypes_inexact(obs, code_book)
    if obs_arr.ndim != cb_arr.ndim:
        raise ShardcValueError("Observation and code_book should have the same rank")
    if obs_arr.ndim == 1:
        obs_arr, cb_arr = obs_arr[..., None], cb_arr[..., None]
    if obs_arr.ndim != 2:
        raise ShardcValueError("ndim different than 1 or 2 are not supported")
    dist = vmap(lambda ob: jnp.linalg.norm(ob[None] - cb_arr, axis=-1))(obs_arr)
    code = jnp.argmin(dist, axis=-1)
    dist_min = vmap(operator.getitem)(dist, code)
    return code, dist_min
