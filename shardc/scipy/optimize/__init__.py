"""`shardc.scipy.optimize`: JAX 0.10.2's `jax.scipy.optimize` (`minimize`, `OptimizeResults`).

JAX's own composition (`jax/_src/scipy/optimize/`, Copyright 2020 The JAX Authors, Apache License
2.0): BFGS (`bfgs.py`), the experimental L-BFGS (`_lbfgs.py`) and their strong-Wolfe line search
(`line_search.py`), ported onto shardc's `numpy`, `lax.while_loop`/`fori_loop` and
`value_and_grad`, so iterates, counts, statuses, dtypes and errors follow JAX's by construction.
"""
from .minimize import OptimizeResults, minimize

__all__ = ["OptimizeResults", "minimize"]  # JAX 0.10.2's jax.scipy.optimize, every name
