"""`shardc.numpy.linalg`: the `jax.numpy.linalg` functions that compose shardc's primitives
(norms, products, transposes, traces, diagonals) and the decompositions built on the
`shardc/primitives/linalg.py` primitives (`cholesky`), plus `lax_linalg`, the namespace served
as `shardc.lax.linalg` (JAX's `jax.lax.linalg` wrappers: `cholesky`, `triangular_solve`).
`svd`, `qr`, `eigh`, `lu`, `inv`, `solve`, … are not here yet."""
from __future__ import annotations

from types import SimpleNamespace

import ml_dtypes
import numpy as np

from .. import lax
from ..core import api, bind
from ..errors import ShardcNotImplementedError, ShardcTypeError, ShardcValueError
from ..primitives import linalg as _lp
from ._util import normalize_axis, type_of
from .construct import diagonal as _diagonal
from .construct import matrix_transpose
from .construct import trace as _trace
from .elementwise import abs as _abs
from .elementwise import multiply, not_equal, power, sqrt
from .linalg import matmul, tensordot
from .math import _const, _inexact
from .nan_reductions import cross as _cross
from .nan_reductions import vecdot as _vecdot
from .reductions import max as _max
from .reductions import min as _min
from .reductions import sum as _sum
from .shape import _arr, expand_dims

__all__ = ["cholesky", "cross", "diagonal", "matmul", "matrix_norm", "matrix_transpose", "norm", "outer", "tensordot",
           "trace", "vecdot", "vector_norm"]


def _sumsq(x, axis, keepdims):
    return sqrt(_sum(multiply(x, x), axis=axis, keepdims=keepdims))


def _amax0(x, axis, keepdims):
    """`amax(..., initial=0)`: the maximum, at least 0."""
    r = _max(x, axis=axis, keepdims=keepdims)
    return lax.max(r, _const(r, 0))


@api("sc.linalg.vector_norm")
def vector_norm(x, /, *, axis=None, keepdims: bool = False, ord=2):
    """The `ord`-norm of vectors along `axis` (2, inf, -inf, 0, 1 or any other power)."""
    x = _arr(x)
    if ord is None or ord == 2:
        return _sumsq(x, axis, keepdims)
    if isinstance(ord, str):
        msg = f"Invalid order '{ord}' for vector norm."
        if ord == "inf":
            msg += "Use 'jax.numpy.inf' instead."
        if ord == "-inf":
            msg += "Use '-jax.numpy.inf' instead."
        raise ShardcValueError(msg)
    if ord == np.inf:
        return _amax0(_abs(x), axis, keepdims)
    if ord == -np.inf:
        return _min(_abs(x), axis=axis, keepdims=keepdims)
    if ord == 0:
        return _sum(not_equal(x, 0), dtype=ml_dtypes.finfo(type_of(x).dtype).dtype, axis=axis, keepdims=keepdims)
    if ord == 1:
        return _sum(_abs(x), axis=axis, keepdims=keepdims)
    ax = _abs(x)
    o = _const(ax, ord)
    inv = _const(ax, 1.0 / np.asarray(ord, type_of(ax).dtype))
    return power(_sum(power(ax, o), axis=axis, keepdims=keepdims), inv)


@api("sc.linalg.norm")
def norm(x, ord=None, axis=None, keepdims: bool = False):
    """Vector norms (one axis) and matrix norms (two axes: 'fro', 1, -1, inf, -inf)."""
    x, = _inexact(x)
    nd = type_of(x).ndim
    if axis is None:
        if ord is None:
            return _sumsq(x, None, keepdims)
        axis = tuple(range(nd))
    elif isinstance(axis, tuple):
        axis = tuple(normalize_axis(a, nd) for a in axis)
    else:
        axis = (normalize_axis(axis, nd),)
    if len(axis) == 1:
        return vector_norm(x, ord=2 if ord is None else ord, axis=axis, keepdims=keepdims)
    if len(axis) != 2:
        raise ShardcValueError(f"Improper number of axes for norm: axis={axis!r}. Pass one axis to compute a "
                               "vector-norm, or two axes to compute a matrix-norm.")
    row, col = axis
    if ord is None or ord in ("f", "fro"):
        return _sumsq(x, axis, keepdims)
    if ord in (1, -1):
        if not keepdims and col > row:
            col -= 1
        s = _sum(_abs(x), axis=row, keepdims=keepdims)
        return _amax0(s, col, keepdims) if ord == 1 else _min(s, axis=col, keepdims=keepdims)
    if ord in (np.inf, -np.inf):
        if not keepdims and row > col:
            row -= 1
        s = _sum(_abs(x), axis=col, keepdims=keepdims)
        return _amax0(s, row, keepdims) if ord == np.inf else _min(s, axis=row, keepdims=keepdims)
    if ord in ("nuc", 2, -2):
        raise ShardcNotImplementedError(f"jnp.linalg.norm(ord={ord!r}) needs an SVD, which shardc has not yet")
    raise ShardcValueError(f"Invalid order '{ord}' for matrix norm.")


@api("sc.linalg.matrix_norm")
def matrix_norm(x, /, *, keepdims: bool = False, ord="fro"):
    return norm(x, ord=ord, keepdims=keepdims, axis=(-2, -1))


@api("sc.linalg.vecdot")
def vecdot(x1, x2, /, *, axis: int = -1, precision=None, preferred_element_type=None):
    return _vecdot(x1, x2, axis=axis, precision=precision, preferred_element_type=preferred_element_type)


@api("sc.linalg.outer")
def outer(x1, x2, /):
    x1, x2 = _arr(x1), _arr(x2)
    n1, n2 = type_of(x1).ndim, type_of(x2).ndim
    if n1 != 1 or n2 != 1:
        raise ShardcValueError(f"Input arrays must be one-dimensional, but they are x1.ndim={n1!r} x2.ndim={n2!r}")
    return multiply(expand_dims(x1, 1), expand_dims(x2, 0))


@api("sc.linalg.trace")
def trace(x, /, *, offset: int = 0, dtype=None):
    return _trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)


@api("sc.linalg.diagonal")
def diagonal(x, /, *, offset: int = 0):
    return _diagonal(x, offset=offset, axis1=-2, axis2=-1)


@api("sc.linalg.cross")
def cross(x1, x2, /, *, axis: int = -1):
    t1, t2 = type_of(_arr(x1)), type_of(_arr(x2))
    if t1.shape[axis] != 3 or t2.shape[axis] != 3:
        raise ShardcValueError("Both input arrays must be (arrays of) 3-dimensional vectors, but they have "
                               f"x1.shape[axis]={t1.shape[axis]} and x2.shape[axis]={t2.shape[axis]}")
    return _cross(x1, x2, axis=axis)


# --- decompositions (`jax.lax.linalg` and `jax.numpy.linalg` over the linalg primitives) ----------
def _symmetrize(x):
    """JAX's `symmetrize`: (x + x^H) / 2."""
    return lax.div(lax.add(x, _lp._H(x)), 2)


@api("lax.linalg.cholesky")
def lax_cholesky(x, *, symmetrize_input: bool = True):
    """`jax.lax.linalg.cholesky`: the lower factor (NaN where the factorization fails)."""
    x = _arr(x)
    if symmetrize_input:
        t = type_of(x)
        if t.ndim < 2:  # JAX's `_H` transposes the last two dims first
            perm = tuple(range(t.ndim - 2)) + (t.ndim - 1, t.ndim - 2)
            raise ShardcTypeError("transpose permutation isn't a permutation of operand dimensions, got "
                                  f"permutation {perm} for operand shape {t.shape}.")
        x = _symmetrize(x)
    return _lp.tril(bind(_lp.cholesky_p, x))


@api("lax.linalg.triangular_solve")
def triangular_solve(a, b, *, left_side: bool = False, lower: bool = False, transpose_a: bool = False,
                     conjugate_a: bool = False, unit_diagonal: bool = False):
    """`jax.lax.linalg.triangular_solve`: op(a) x = b or x op(a) = b (a vector b: one right-hand side)."""
    a, b = _arr(a), _arr(b)
    ta, tb = type_of(a), type_of(b)
    conjugate_a = conjugate_a and np.issubdtype(ta.dtype, np.complexfloating)
    singleton = tb.ndim == ta.ndim - 1
    if singleton:
        b = lax.expand_dims(b, (tb.ndim if left_side else tb.ndim - 1,))
    out = bind(_lp.triangular_solve_p, a, b, left_side=left_side, lower=lower, transpose_a=transpose_a,
               conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)
    if singleton:
        n = type_of(out).ndim
        out = lax.squeeze(out, (n - 1 if left_side else n - 2,))
    return out


@api("sc.linalg.cholesky")
def cholesky(a, *, upper: bool = False, symmetrize_input: bool = True):
    """`jnp.linalg.cholesky`: the lower factor L (or `upper`: L^H) of a Hermitian positive-definite matrix."""
    a, = _inexact(a)
    low = lax_cholesky(a, symmetrize_input=symmetrize_input)
    return _lp._H(low) if upper else low


#: `shardc.lax.linalg` (JAX's `jax.lax.linalg`): the wrappers and the primitives
lax_linalg = SimpleNamespace(cholesky=lax_cholesky, triangular_solve=triangular_solve,
                             cholesky_p=_lp.cholesky_p, triangular_solve_p=_lp.triangular_solve_p)
