"""`jax.scipy.stats.gennorm`: the generalized normal distribution (JAX 0.10.2's formulas)."""
from __future__ import annotations

from ... import lax
from ..special import _igamma
from ._common import promote_args_inexact

__all__ = ["cdf", "logpdf", "pdf"]


def logpdf(x, beta):
    x, beta = promote_args_inexact("gennorm.logpdf", x, beta)
    return lax.log(0.5 * beta) - lax.lgamma(1 / beta) - lax.abs(x) ** beta


def cdf(x, beta):
    x, beta = promote_args_inexact("gennorm.cdf", x, beta)
    return 0.5 * (1 + lax.sign(x) * _igamma(1 / beta, lax.abs(x) ** beta))


def pdf(x, beta):
    return lax.exp(logpdf(x, beta))
