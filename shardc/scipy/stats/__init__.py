"""`shardc.scipy.stats`: JAX 0.10.2's `jax.scipy.stats` distributions, each a module of JAX's
functions written as JAX writes them (see docs/scipy.md for what is built).

    from shardc.scipy.stats import norm
    norm.logpdf(x, loc=0.0, scale=2.0)
"""
from . import (
    bernoulli,
    beta,
    betabinom,
    binom,
    cauchy,
    chi2,
    dirichlet,
    expon,
    gamma,
    gennorm,
    geom,
    gumbel_l,
    gumbel_r,
    laplace,
    logistic,
    multinomial,
    nbinom,
    norm,
    pareto,
    poisson,
    t,
    truncnorm,
    uniform,
    vonmises,
    wrapcauchy,
)
from ._core import mode, rankdata, sem

__all__ = [
    "bernoulli", "beta", "betabinom", "binom", "cauchy", "chi2", "dirichlet", "expon", "gamma", "gennorm", "geom", "gumbel_l",
    "gumbel_r", "laplace", "logistic", "multinomial", "nbinom", "norm", "pareto", "mode", "poisson", "rankdata", "sem", "t", "truncnorm", "uniform", "vonmises",
    "wrapcauchy",
]
