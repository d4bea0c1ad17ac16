"""`jax.scipy.stats.expon` (JAX 0.10.2's formulas)."""
from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as jnp
from ._common import promote_args_inexact

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("expon.logpdf", x, loc, scale)
    log_scale = lax.log(scale)
    linear_term = lax.div(lax.sub(x, loc), scale)
    log_probs = lax.neg(lax.add(linear_term, log_scale))
    return jnp.where(lax.lt(x, loc), -np.inf, log_probs)


def pdf(x, loc=0, scale=1):
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("expon.cdf", x, loc, scale)
    neg_scaled_x = lax.div(lax.sub(loc, x), scale)
    return jnp.where(lax.lt(x, loc), jnp.zeros_like(neg_scaled_x), lax.neg(lax.expm1(neg_scaled_x)))


def logcdf(x, loc=0, scale=1):
    return lax.log1p(lax.neg(sf(x, loc, scale)))


def logsf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("expon.sf", x, loc, scale)
    neg_scaled_x = lax.div(lax.sub(loc, x), scale)
    return jnp.where(lax.lt(x, loc), jnp.zeros_like(neg_scaled_x), neg_scaled_x)


def sf(x, loc=0, scale=1):
    return lax.exp(logsf(x, loc, scale))


def ppf(q, loc=0, scale=1):
    q, loc, scale = promote_args_inexact("expon.ppf", q, loc, scale)
    return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), np.nan,
                     lax.sub(loc, lax.mul(scale, lax.log1p(lax.neg(q)))))
