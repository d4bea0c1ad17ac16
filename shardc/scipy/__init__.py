"""`shardc.scipy`: JAX 0.10.2's `jax.scipy.special`, `jax.scipy.stats` and part of `jax.scipy.linalg` (see docs/scipy.md for
what is built, what is not yet, and why).

    import shardc as jax
    jax.scipy.special.logsumexp(x), jax.scipy.stats.norm.logpdf(x, loc, scale)
"""
from . import (  # (spatial: imported on demand, as JAX's)
    cluster,
    fft,
    integrate,
    interpolate,
    linalg,
    ndimage,
    optimize,
    signal,
    sparse,
    special,
    stats,
)

__all__ = ["linalg", "special", "stats"]
__all__ += ["cluster", "interpolate", "ndimage", "signal"]
__all__ += ["fft", "integrate", "optimize", "sparse"]
