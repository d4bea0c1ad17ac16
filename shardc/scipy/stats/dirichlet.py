"""`jax.scipy.stats.dirichlet` (JAX 0.10.2's formulas; `x` holds the simplex along axis 0)."""
from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...core import raise_user_error
from ...errors import ShardcValueError
from ..special import gammaln, xlogy
from ._common import _const, promote_dtypes_inexact

__all__ = ["logpdf", "pdf"]


def _is_simplex(x):
    x_sum = jnp.sum(x, axis=0)
    return jnp.all(x > 0, axis=0) & (abs(x_sum - 1) < 1e-06)


def logpdf(x, alpha):
    return _logpdf(*promote_dtypes_inexact(x, alpha))


def _logpdf(x, alpha):
    if alpha.ndim != 1:
        raise_user_error(ShardcValueError(f"`alpha` must be one-dimensional; got alpha.shape={alpha.shape}"))
    if x.shape[0] not in (alpha.shape[0], alpha.shape[0] - 1):
        raise_user_error(ShardcValueError(
            "`x` must have either the same number of entries as `alpha` or one entry fewer; "
            f"got x.shape={x.shape}, alpha.shape={alpha.shape}"))
    one = _const(x, 1)
    if x.shape[0] != alpha.shape[0]:
        x = jnp.concatenate([x, lax.sub(one, x.sum(0, keepdims=True))], axis=0)
    normalize_term = jnp.sum(gammaln(alpha)) - gammaln(jnp.sum(alpha))
    if x.ndim > 1:
        alpha = lax.broadcast_in_dim(alpha, alpha.shape + (1,) * (x.ndim - 1), (0,))
    log_probs = lax.sub(jnp.sum(xlogy(lax.sub(alpha, one), x), axis=0), normalize_term)
    return jnp.where(_is_simplex(x), log_probs, -np.inf)


def pdf(x, alpha):
    return lax.exp(logpdf(x, alpha))
