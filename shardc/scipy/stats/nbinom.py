"""`jax.scipy.stats.nbinom` (JAX 0.10.2's formulas)."""
from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as jnp
from ..special import gammaln, xlogy
from ._common import _const, promote_args_inexact

__all__ = ["logpmf", "pmf"]


def logpmf(k, n, p, loc=0):
    k, n, p, loc = promote_args_inexact("nbinom.logpmf", k, n, p, loc)
    one = _const(k, 1)
    y = lax.sub(k, loc)
    comb_term = lax.sub(lax.sub(gammaln(lax.add(y, n)), gammaln(n)), gammaln(lax.add(y, one)))
    log_linear_term = lax.add(xlogy(n, p), xlogy(y, lax.sub(one, p)))
    log_probs = lax.add(comb_term, log_linear_term)
    return jnp.where(lax.lt(k, loc), -np.inf, log_probs)


def pmf(k, n, p, loc=0):
    return lax.exp(logpmf(k, n, p, loc))
