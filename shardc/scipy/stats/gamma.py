"""`jax.scipy.stats.gamma` (JAX 0.10.2's formulas)."""
from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as jnp
from ..special import gammainc, gammaincc, gammaln, xlogy
from ._common import _const, promote_args_inexact

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x, a, loc=0, scale=1):
    x, a, loc, scale = promote_args_inexact("gamma.logpdf", x, a, loc, scale)
    ok = lax.ge(x, loc)
    one = _const(x, 1)
    y = jnp.where(ok, lax.div(lax.sub(x, loc), scale), one)
    log_linear_term = lax.sub(xlogy(lax.sub(a, one), y), y)
    shape_terms = lax.add(gammaln(a), lax.log(scale))
    log_probs = lax.sub(log_linear_term, shape_terms)
    return jnp.where(ok, log_probs, -np.inf)


def pdf(x, a, loc=0, scale=1):
    return lax.exp(logpdf(x, a, loc, scale))


def cdf(x, a, loc=0, scale=1):
    x, a, loc, scale = promote_args_inexact("gamma.cdf", x, a, loc, scale)
    return gammainc(a, lax.clamp(_const(x, 0), lax.div(lax.sub(x, loc), scale), _const(x, np.inf)))


def logcdf(x, a, loc=0, scale=1):
    return lax.log(cdf(x, a, loc, scale))


def sf(x, a, loc=0, scale=1):
    x, a, loc, scale = promote_args_inexact("gamma.sf", x, a, loc, scale)
    y = lax.div(lax.sub(x, loc), scale)
    return jnp.where(lax.lt(y, _const(y, 0)), 1, gammaincc(a, y))


def logsf(x, a, loc=0, scale=1):
    return lax.log(sf(x, a, loc, scale))
