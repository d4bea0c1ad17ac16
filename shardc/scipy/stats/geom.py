"""`jax.scipy.stats.geom` (JAX 0.10.2's formulas)."""
from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as jnp
from ..special import xlog1py
from ._common import _const, promote_args_inexact

__all__ = ["logpmf", "pmf"]


def logpmf(k, p, loc=0):
    k, p, loc = promote_args_inexact("geom.logpmf", k, p, loc)
    zero = _const(k, 0)
    one = _const(k, 1)
    x = lax.sub(k, loc)
    log_probs = xlog1py(lax.sub(x, one), -p) + lax.log(p)
    return jnp.where(lax.le(x, zero), -np.inf, log_probs)


def pmf(k, p, loc=0):
    return jnp.exp(logpmf(k, p, loc))
