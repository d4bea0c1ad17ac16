"""`jax.scipy.stats.wrapcauchy` (JAX 0.10.2's formulas)."""
from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as jnp
from ._common import _const, promote_args_inexact

__all__ = ["logpdf", "pdf"]


def logpdf(x, c):
    x, c = promote_args_inexact("wrapcauchy.logpdf", x, c)
    return jnp.where(
        lax.gt(c, _const(c, 0)) & lax.lt(c, _const(c, 1)),
        jnp.where(lax.ge(x, _const(x, 0)) & lax.le(x, _const(x, np.pi * 2)),
                  jnp.log(1 - c * c) - jnp.log(2 * np.pi) - jnp.log(1 + c * c - 2 * c * jnp.cos(x)), -np.inf),
        np.nan)


def pdf(x, c):
    return lax.exp(logpdf(x, c))
