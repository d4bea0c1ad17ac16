"""Neural-network helpers with `jax.nn`'s definitions (so types and numbers
match): relu, gelu, softmax, log_softmax, logsumexp, sigmoid, silu."""
from __future__ import annotations

import numpy as np

from ..core import Const, api
from ._util import normalize_axes, promote_to_float, type_of
from .elementwise import (
    add,
    erf,
    exp,
    isfinite,
    log,
    maximum,
    multiply,
    sigmoid,
    subtract,
    tanh,
    true_divide,
    where,
)
from .reductions import max as rmax
from .reductions import sum as rsum
from .shape import _arr, expand_dims


@api("sc.relu")
def relu(x):
    return maximum(x, 0)


@api("sc.gelu")
def gelu(x, approximate: bool = True):
    """GELU; the tanh approximation by default, as `jax.nn.gelu`."""
    x = promote_to_float(_arr(x))
    d = type_of(x).dtype
    if approximate:
        c = Const(np.sqrt(2 / np.pi), d, False)
        inner = multiply(c, add(x, multiply(0.044715, x ** 3)))
        return multiply(x, multiply(0.5, add(1.0, tanh(inner))))
    return multiply(multiply(0.5, x), add(1.0, erf(multiply(x, Const(np.sqrt(0.5), d, False)))))


@api("sc.silu")
def silu(x):
    return multiply(x, sigmoid(x))


swish = silu


@api("sc.softmax")
def softmax(x, axis=-1):
    """`exp(x - max) / sum(exp(x - max))` along `axis`; keeps x's sharding."""
    x = _arr(x)
    unnormalized = exp(subtract(x, rmax(x, axis, keepdims=True)))
    return true_divide(unnormalized, rsum(unnormalized, axis, keepdims=True))


@api("sc.log_softmax")
def log_softmax(x, axis=-1):
    x = _arr(x)
    shifted = subtract(x, rmax(x, axis, keepdims=True))
    return subtract(shifted, log(rsum(exp(shifted), axis, keepdims=True)))


@api("sc.logsumexp")
def logsumexp(x, axis=None, keepdims: bool = False):
    """`log(sum(exp(x)))` computed stably (the max is subtracted first)."""
    x = _arr(x)
    t = type_of(x)
    axes = normalize_axes(axis, t.ndim)
    amax = rmax(x, axes, keepdims=keepdims)
    amax = where(isfinite(amax), amax, 0.0)
    amax_dims = amax if keepdims else expand_dims(amax, axes)
    s = rsum(exp(subtract(x, amax_dims)), axes, keepdims=keepdims)
    return add(log(s), amax)
