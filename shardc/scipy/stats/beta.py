"""`jax.scipy.stats.beta` (JAX 0.10.2's formulas)."""
from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as jnp
from ..special import betainc, betaln, xlog1py, xlogy
from ._common import _const, promote_args_inexact

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x, a, b, loc=0, scale=1):
    x, a, b, loc, scale = promote_args_inexact("beta.logpdf", x, a, b, loc, scale)
    one = _const(x, 1)
    zero = _const(a, 0)
    shape_term = lax.neg(betaln(a, b))
    y = lax.div(lax.sub(x, loc), scale)
    log_linear_term = lax.add(xlogy(lax.sub(a, one), y), xlog1py(lax.sub(b, one), lax.neg(y)))
    log_probs = lax.sub(lax.add(shape_term, log_linear_term), lax.log(scale))
    result = jnp.where(jnp.logical_or(lax.gt(x, lax.add(loc, scale)), lax.lt(x, loc)), -np.inf, log_probs)
    return jnp.where(jnp.logical_or(jnp.logical_or(lax.le(a, zero), lax.le(b, zero)), lax.le(scale, zero)),
                     np.nan, result)


def pdf(x, a, b, loc=0, scale=1):
    return lax.exp(logpdf(x, a, b, loc, scale))


def cdf(x, a, b, loc=0, scale=1):
    x, a, b, loc, scale = promote_args_inexact("beta.cdf", x, a, b, loc, scale)
    return betainc(a, b, lax.clamp(_const(x, 0), lax.div(lax.sub(x, loc), scale), _const(x, 1)))


def logcdf(x, a, b, loc=0, scale=1):
    return lax.log(cdf(x, a, b, loc, scale))


def sf(x, a, b, loc=0, scale=1):
    x, a, b, loc, scale = promote_args_inexact("beta.sf", x, a, b, loc, scale)
    return betainc(b, a, 1 - lax.clamp(_const(x, 0), lax.div(lax.sub(x, loc), scale), _const(x, 1)))


def logsf(x, a, b, loc=0, scale=1):
    return lax.log(sf(x, a, b, loc, scale))
