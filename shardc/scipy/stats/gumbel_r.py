"""`jax.scipy.stats.gumbel_r`: the right-skewed Gumbel distribution (JAX 0.10.2's formulas)."""
from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...ops.activations import log1mexp
from ..special import xlogy
from ._common import _const, promote_args_inexact

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("gumbel_r.logpdf", x, loc, scale)
    ok = lax.gt(scale, _const(scale, 0))
    z = lax.div(lax.sub(x, loc), scale)
    neg_log_scale = xlogy(-1, scale)
    t2 = lax.neg(lax.add(z, lax.exp(lax.neg(z))))
    return jnp.where(ok, lax.add(neg_log_scale, t2), np.nan)


def pdf(x, loc=0, scale=1):
    return lax.exp(logpdf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("gumbel_r.logcdf", x, loc, scale)
    ok = lax.gt(scale, _const(scale, 0))
    z = lax.div(lax.sub(x, loc), scale)
    return jnp.where(ok, lax.neg(lax.exp(lax.neg(z))), np.nan)


def cdf(x, loc=0, scale=1):
    return lax.exp(logcdf(x, loc, scale))


def ppf(p, loc=0, scale=1):
    p, loc, scale = promote_args_inexact("gumbel_r.ppf", p, loc, scale)
    ok = lax.bitwise_and(lax.gt(p, _const(p, 0)), lax.lt(p, _const(p, 1)))
    t1 = xlogy(-1, p)
    t = lax.mul(scale, lax.log(t1))
    return jnp.where(ok, lax.sub(loc, t), np.nan)


def sf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("gumbel_r.sf", x, loc, scale)
    ok = lax.gt(scale, _const(scale, 0))
    neg_z = lax.div(lax.sub(loc, x), scale)
    t1 = lax.exp(lax.neg(lax.exp(neg_z)))
    return jnp.where(ok, lax.sub(_const(x, 1), t1), np.nan)


def logsf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("gumbel_r.logsf", x, loc, scale)
    ok = lax.gt(scale, _const(scale, 0))
    neg_z = lax.div(lax.sub(loc, x), scale)
    return jnp.where(ok, log1mexp(lax.exp(neg_z)), np.nan)
