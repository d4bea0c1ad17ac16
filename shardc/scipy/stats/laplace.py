"""`jax.scipy.stats.laplace` (JAX 0.10.2's formulas)."""
from __future__ import annotations

from ... import lax
from ._common import _const, promote_args_inexact

__all__ = ["cdf", "logpdf", "pdf"]


def logpdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("laplace.logpdf", x, loc, scale)
    two = _const(x, 2)
    linear_term = lax.div(lax.abs(lax.sub(x, loc)), scale)
    return lax.neg(lax.add(linear_term, lax.log(lax.mul(two, scale))))


def pdf(x, loc=0, scale=1):
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("laplace.cdf", x, loc, scale)
    half = _const(x, 0.5)
    one = _const(x, 1)
    zero = _const(x, 0)
    diff = lax.div(lax.sub(x, loc), scale)
    return lax.select(lax.le(diff, zero), lax.mul(half, lax.exp(diff)),
                      lax.sub(one, lax.mul(half, lax.exp(lax.neg(diff)))))
