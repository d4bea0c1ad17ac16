"""`jax.scipy.stats.gumbel_l`: the left-skewed Gumbel distribution (JAX 0.10.2's formulas)."""
from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as jnp
from ..special import xlog1py, xlogy
from ._common import _const, promote_args_inexact

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("gumbel_l.logpdf", x, loc, scale)
    ok = lax.gt(scale, _const(scale, 0))
    z = lax.div(lax.sub(x, loc), scale)
    neg_log_scale = xlogy(-1, scale)
    t2 = lax.sub(z, lax.exp(z))
    return jnp.where(ok, lax.add(neg_log_scale, t2), np.nan)


def pdf(x, loc=0, scale=1):
    return lax.exp(logpdf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("gumbel_l.logcdf", x, loc, scale)
    ok = lax.gt(scale, _const(scale, 0))
    z = lax.div(lax.sub(x, loc), scale)
    neg_exp_z = lax.neg(lax.exp(z))
    return jnp.where(ok, lax.log(-lax.expm1(neg_exp_z)), np.nan)


def cdf(x, loc=0, scale=1):
    return lax.exp(logcdf(x, loc, scale))


def ppf(p, loc=0, scale=1):
    p, loc, scale = promote_args_inexact("gumbel_l.ppf", p, loc, scale)
    ok = lax.bitwise_and(lax.gt(p, _const(p, 0)), lax.lt(p, _const(p, 1)))
    t1 = xlog1py(-1, lax.neg(p))
    t = lax.mul(scale, lax.log(t1))
    return jnp.where(ok, lax.add(loc, t), np.nan)


def sf(x, loc=0, scale=1):
    return jnp.exp(logsf(x, loc, scale))


def logsf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("gumbel_l.logsf", x, loc, scale)
    ok = lax.gt(scale, _const(scale, 0))
    z = lax.div(lax.sub(x, loc), scale)
    return jnp.where(ok, lax.neg(lax.exp(z)), np.nan)
