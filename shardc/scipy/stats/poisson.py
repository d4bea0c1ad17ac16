"""`jax.scipy.stats.poisson` (JAX 0.10.2's formulas)."""
from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as jnp
from ..special import entr, gammaincc, gammaln, xlogy
from ._common import _const, promote_args_inexact, promote_dtypes_inexact

__all__ = ["cdf", "entropy", "logpmf", "pmf"]


def logpmf(k, mu, loc=0):
    k, mu, loc = promote_args_inexact("poisson.logpmf", k, mu, loc)
    zero = _const(k, 0)
    x = lax.sub(k, loc)
    log_probs = xlogy(x, mu) - gammaln(x + 1) - mu
    return jnp.where(jnp.logical_or(lax.lt(x, zero), lax.ne(jnp.round(k), k)), -np.inf, log_probs)


def pmf(k, mu, loc=0):
    return jnp.exp(logpmf(k, mu, loc))


def cdf(k, mu, loc=0):
    k, mu, loc = promote_args_inexact("poisson.logpmf", k, mu, loc)
    zero = _const(k, 0)
    x = lax.sub(k, loc)
    p = gammaincc(jnp.floor(1 + x), mu)
    return jnp.where(lax.lt(x, zero), zero, p)


def entropy(mu, loc=0):
    """The entropy: 0 at mu == 0, sums over k < 35 (mu < 10) or k < 250 (mu < 100), else the
    asymptotic expansion, as JAX's."""
    promoted_mu, promoted_loc = promote_dtypes_inexact(mu, loc)
    result_shape = jnp.broadcast_shapes(promoted_mu.shape, promoted_loc.shape)
    mu_flat = jnp.ravel(promoted_mu)
    zero_result = jnp.zeros_like(mu_flat)
    result = jnp.where(mu_flat == 0, zero_result,
                       jnp.where(mu_flat < 10, _entropy_small_mu(mu_flat),
                                 jnp.where(mu_flat < 100, _entropy_medium_mu(mu_flat), _entropy_large_mu(mu_flat))))
    return jnp.broadcast_to(jnp.reshape(result, promoted_mu.shape), result_shape)


def _entropy_sum(mu, max_k: int, upper):
    k = jnp.arange(max_k, dtype=mu.dtype)[:, None]
    probs = pmf(k, mu, 0)
    mask = k < jnp.ceil(upper).astype(k.dtype)[None, :]
    probs_masked = jnp.where(mask, probs, 0.0)
    return jnp.sum(entr(probs_masked), axis=0)


def _entropy_small_mu(mu):
    return _entropy_sum(mu, 35, mu + 20)


def _entropy_medium_mu(mu):
    return _entropy_sum(mu, 250, mu + 10 * jnp.sqrt(mu) + 20)


def _entropy_large_mu(mu):
    return 0.5 * jnp.log(2 * np.pi * np.e * mu) - 1.0 / (12 * mu)
