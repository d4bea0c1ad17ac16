"""`jax.scipy.stats.bernoulli` (JAX 0.10.2's formulas)."""
from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as jnp
from ..special import _select, xlog1py, xlogy
from ._common import _const, promote_args_inexact

__all__ = ["cdf", "logpmf", "pmf", "ppf"]


def logpmf(k, p, loc=0):
    k, p, loc = promote_args_inexact("bernoulli.logpmf", k, p, loc)
    zero = _const(k, 0)
    one = _const(k, 1)
    x = lax.sub(k, loc)
    log_probs = xlogy(x, p) + xlog1py(lax.sub(one, x), -p)
    return jnp.where(jnp.logical_or(lax.lt(x, zero), lax.gt(x, one)), -np.inf, log_probs)


def pmf(k, p, loc=0):
    return jnp.exp(logpmf(k, p, loc))


def cdf(k, p):
    k, p = promote_args_inexact("bernoulli.cdf", k, p)
    zero, one = _const(k, 0), _const(k, 1)
    conds = [jnp.isnan(k) | jnp.isnan(p) | (p < zero) | (p > one), lax.lt(k, zero),
             jnp.logical_and(lax.ge(k, zero), lax.lt(k, one)), lax.ge(k, one)]
    vals = [jnp.nan, zero, one - p, one]
    return _select(conds, vals, 0)


def ppf(q, p):
    q, p = promote_args_inexact("bernoulli.ppf", q, p)
    zero, one = _const(q, 0), _const(q, 1)
    return jnp.where(jnp.isnan(q) | jnp.isnan(p) | (p < zero) | (p > one) | (q < zero) | (q > one),
                     jnp.nan, jnp.where(lax.le(q, one - p), zero, one))
