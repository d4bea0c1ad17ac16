"""`shardc.scipy`: JAX 0.10.2's `jax.scipy.special`, `jax.scipy.stats` and part of `jax.scipy.linalg` (see docs/scipy.md for
what is built, what is not yet, and why).

    import shardc as jax
    jax.scipy.special.logsumexp(x), jax.scipy.stats.norm.logpdf(x, loc, scale)
"""
from . import linalg, special, stats

__all__ = ["linalg", "special", "stats"]
