"""`jax.scipy.stats.cauchy` (JAX 0.10.2's formulas)."""
from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as jnp
from ._common import _const, promote_args_inexact

__all__ = ["cdf", "isf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("cauchy.logpdf", x, loc, scale)
    pi = _const(x, np.pi)
    scaled_x = lax.div(lax.sub(x, loc), scale)
    normalize_term = lax.log(lax.mul(pi, scale))
    return lax.neg(lax.add(normalize_term, lax.log1p(lax.mul(scaled_x, scaled_x))))


def pdf(x, loc=0, scale=1):
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("cauchy.cdf", x, loc, scale)
    pi = _const(x, np.pi)
    scaled_x = lax.div(lax.sub(x, loc), scale)
    return lax.add(_const(x, 0.5), lax.mul(lax.div(_const(x, 1.0), pi), jnp.arctan(scaled_x)))


def logcdf(x, loc=0, scale=1):
    return lax.log(cdf(x, loc, scale))


def sf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("cauchy.sf", x, loc, scale)
    return cdf(-x, -loc, scale)


def logsf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("cauchy.logsf", x, loc, scale)
    return logcdf(-x, -loc, scale)


def isf(q, loc=0, scale=1):
    q, loc, scale = promote_args_inexact("cauchy.isf", q, loc, scale)
    pi = _const(q, np.pi)
    half_pi = _const(q, np.pi / 2)
    unscaled = lax.tan(lax.sub(half_pi, lax.mul(pi, q)))
    return lax.add(lax.mul(unscaled, scale), loc)


def ppf(q, loc=0, scale=1):
    q, loc, scale = promote_args_inexact("cauchy.ppf", q, loc, scale)
    pi = _const(q, np.pi)
    half_pi = _const(q, np.pi / 2)
    unscaled = lax.tan(lax.sub(lax.mul(pi, q), half_pi))
    return lax.add(lax.mul(unscaled, scale), loc)
