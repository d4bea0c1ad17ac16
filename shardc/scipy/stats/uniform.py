"""`jax.scipy.stats.uniform` (JAX 0.10.2's formulas)."""
from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as jnp
from ..special import _select
from ._common import _dtype, promote_args_inexact

__all__ = ["cdf", "logpdf", "pdf", "ppf"]


def logpdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("uniform.logpdf", x, loc, scale)
    log_probs = lax.neg(lax.log(scale))
    return jnp.where(jnp.logical_or(lax.gt(x, lax.add(loc, scale)), lax.lt(x, loc)), -np.inf, log_probs)


def pdf(x, loc=0, scale=1):
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("uniform.cdf", x, loc, scale)
    zero, one = jnp.array(0, _dtype(x)), jnp.array(1, _dtype(x))
    conds = [lax.lt(x, loc), lax.gt(x, lax.add(loc, scale)), lax.ge(x, loc) & lax.le(x, lax.add(loc, scale))]
    vals = [zero, one, lax.div(lax.sub(x, loc), scale)]
    return _select(conds, vals, 0)


def ppf(q, loc=0, scale=1):
    q, loc, scale = promote_args_inexact("uniform.ppf", q, loc, scale)
    return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), np.nan, lax.add(loc, lax.mul(scale, q)))
