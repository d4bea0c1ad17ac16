"""`shardc.scipy.integrate`: JAX 0.10.2's `jax.scipy.integrate` (`trapezoid`).

JAX's own definition (`jax/_src/scipy/integrate.py`, Copyright 2023 The JAX Authors, Apache
License 2.0): `jnp.trapezoid` under `jit` with a static `axis`, ported onto shardc's `jit` and
`numpy.trapezoid`, so values, dtypes, weak types and sharding types are those of
`shardc.numpy.trapezoid` inside a program, as JAX's are.
"""
from __future__ import annotations

from typing import Any

from .. import numpy as jnp
from ..stages import jit

Array = ArrayLike = Any

__all__ = ["trapezoid"]  # JAX 0.10.2's jax.scipy.integrate, every name


@jit(static_argnames=("axis",))
def trapezoid(y: ArrayLike, x: ArrayLike | None = None, dx: ArrayLike = 1.0, axis: int = -1) -> Array:
    """`jax.scipy.integrate.trapezoid`: the composite trapezoidal rule along `axis` (samples `x`,
    or spacing `dx`)."""
    return jnp.trapezoid(y, x, dx, axis)
