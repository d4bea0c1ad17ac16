"""`jax.scipy.stats.multinomial` (JAX 0.10.2's formulas; `x` and `n` of integer dtype)."""
from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...core import raise_user_error
from ...errors import ShardcValueError
from ..special import gammaln, xlogy
from ._common import _dtype, promote_args_inexact, promote_args_numeric

__all__ = ["logpmf", "pmf"]


def logpmf(x, n, p):
    p, = promote_args_inexact("multinomial.logpmf", p)
    x, n = promote_args_numeric("multinomial.logpmf", x, n)
    if not np.issubdtype(_dtype(x), np.integer):
        raise_user_error(ShardcValueError(
            f"x and n must be of integer type; got x.dtype={_dtype(x)}, n.dtype={_dtype(n)}"))
    x = x.astype(_dtype(p))
    n = n.astype(_dtype(p))
    logprobs = gammaln(n + 1) + jnp.sum(xlogy(x, p) - gammaln(x + 1), axis=-1)
    return jnp.where(jnp.equal(jnp.sum(x), n), logprobs, -np.inf)


def pmf(x, n, p):
    return lax.exp(logpmf(x, n, p))
