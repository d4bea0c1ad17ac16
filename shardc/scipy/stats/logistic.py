"""`jax.scipy.stats.logistic` (JAX 0.10.2's formulas)."""
from __future__ import annotations

from ... import lax
from ... import numpy as jnp
from ..special import expit, logit
from ._common import _const, promote_args_inexact

__all__ = ["cdf", "isf", "logpdf", "pdf", "ppf", "sf"]


def logpdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("logistic.logpdf", x, loc, scale)
    x = lax.div(lax.sub(x, loc), scale)
    two = _const(x, 2)
    half_x = lax.div(x, two)
    return lax.sub(lax.mul(lax.neg(two), jnp.logaddexp(half_x, lax.neg(half_x))), lax.log(scale))


def pdf(x, loc=0, scale=1):
    return lax.exp(logpdf(x, loc, scale))


def ppf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("logistic.ppf", x, loc, scale)
    return lax.add(lax.mul(logit(x), scale), loc)


def sf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("logistic.sf", x, loc, scale)
    return expit(lax.neg(lax.div(lax.sub(x, loc), scale)))


def isf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("logistic.isf", x, loc, scale)
    return lax.add(lax.mul(lax.neg(logit(x)), scale), loc)


def cdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("logistic.cdf", x, loc, scale)
    return expit(lax.div(lax.sub(x, loc), scale))
