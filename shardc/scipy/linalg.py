"""`shardc.scipy.linalg`: JAX 0.10.2's `jax.scipy.linalg` Cholesky and triangular-solve functions
(`cholesky`, `cho_factor`, `cho_solve`, `solve_triangular`), as JAX writes them: `jnp.vectorize`
over `lax.linalg.triangular_solve` / `cholesky` (shardc/primitives/linalg.py). The other
`jax.scipy.linalg` functions are not built yet (docs/numpy.md)."""
from __future__ import annotations

import warnings
from functools import partial

from .. import numpy as jnp
from ..batching import vectorize
from ..core import api
from ..errors import ShardcValueError
from ..ops._util import type_of
from ..ops.math import _inexact
from ..ops.numpy_linalg import lax_linalg

__all__ = ["cho_factor", "cho_solve", "cholesky", "solve_triangular"]


def _cholesky(a, lower: bool):
    a, = _inexact(a)
    low = lax_linalg.cholesky(a if lower else jnp.conj(jnp.matrix_transpose(a)), symmetrize_input=False)
    return low if lower else jnp.conj(jnp.matrix_transpose(low))


@api("sc.scipy.linalg.cholesky")
def cholesky(a, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """`jax.scipy.linalg.cholesky`: the upper factor by default (only one triangle of `a` is read)."""
    del overwrite_a, check_finite
    return _cholesky(a, lower)


@api("sc.scipy.linalg.cho_factor")
def cho_factor(a, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """`jax.scipy.linalg.cho_factor`: `(c, lower)` for `cho_solve`."""
    del overwrite_a, check_finite
    return (cholesky(a, lower=lower), lower)


def _signature(a, b, name: str) -> str:
    ta, tb = type_of(a), type_of(b)
    if tb.ndim == 1:
        return "(n,n),(n)->(n)"
    if ta.ndim == tb.ndim + 1 and ta.shape[-1] == tb.shape[-1]:
        warnings.warn(f"jax.scipy.linalg.{name}: batched 1D solves with b.ndim > 1 are deprecated, and in the "
                      "future will be treated as a batched 2D solve. Use "
                      f"{name}({'c_and_lower' if name == 'cho_solve' else 'a'}, b[..., None]).squeeze(-1) to avoid "
                      "this warning.", category=FutureWarning, stacklevel=3)
        return "(n,n),(n)->(n)"
    return "(n,n),(n,k)->(n,k)"


@api("sc.scipy.linalg.cho_solve")
def cho_solve(c_and_lower, b, overwrite_b: bool = False, check_finite: bool = True):
    """`jax.scipy.linalg.cho_solve`: x with (c c^H) x = b, by two triangular solves."""
    del overwrite_b, check_finite
    c, lower = c_and_lower
    c, b = _inexact(c, b)
    sig = _signature(c, b, "cho_solve")
    b = vectorize(partial(lax_linalg.triangular_solve, left_side=True, lower=lower, transpose_a=not lower,
                          conjugate_a=not lower), signature=sig)(c, b)
    return vectorize(partial(lax_linalg.triangular_solve, left_side=True, lower=lower, transpose_a=lower,
                             conjugate_a=lower), signature=sig)(c, b)


@api("sc.scipy.linalg.solve_triangular")
def solve_triangular(a, b, trans=0, lower: bool = False, unit_diagonal: bool = False, overwrite_b: bool = False,
                     debug=None, check_finite: bool = True):
    """`jax.scipy.linalg.solve_triangular`: x with op(a) x = b (trans 0/'N', 1/'T', 2/'C')."""
    del overwrite_b, debug, check_finite
    if trans == 0 or trans == "N":
        transpose_a, conjugate_a = False, False
    elif trans == 1 or trans == "T":
        transpose_a, conjugate_a = True, False
    elif trans == 2 or trans == "C":
        transpose_a, conjugate_a = True, True
    else:
        raise ShardcValueError(f"Invalid 'trans' value {trans}")
    a, b = _inexact(a, b)
    sig = _signature(a, b, "solve_triangular")
    return vectorize(partial(lax_linalg.triangular_solve, left_side=True, lower=lower, transpose_a=transpose_a,
                             conjugate_a=conjugate_a, unit_diagonal=unit_diagonal), signature=sig)(a, b)
