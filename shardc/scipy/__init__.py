"""`shardc.scipy`: JAX 0.10.2's `jax.scipy.special` and `jax.scipy.stats` (see docs/scipy.md for
what is built, what is not yet, and why).

    import shardc as jax
    jax.scipy.special.logsumexp(x), jax.scipy.stats.norm.logpdf(x, loc, scale)
"""
from . import special, stats

__all__ = ["special", "stats"]
