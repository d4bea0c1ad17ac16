"""`jax.scipy.stats.vonmises` (JAX 0.10.2's formulas)."""
from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as jnp
from ._common import _const, promote_args_inexact

__all__ = ["logpdf", "pdf"]


def logpdf(x, kappa):
    x, kappa = promote_args_inexact("vonmises.logpdf", x, kappa)
    zero = _const(kappa, 0)
    return jnp.where(lax.gt(kappa, zero), kappa * (jnp.cos(x) - 1) - jnp.log(2 * np.pi * lax.bessel_i0e(kappa)), np.nan)


def pdf(x, kappa):
    return lax.exp(logpdf(x, kappa))
