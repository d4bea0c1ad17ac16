"""`shardc.numpy.linalg`: the `jax.numpy.linalg` functions that compose shardc's primitives
(norms, products, transposes, traces, diagonals) and the decompositions built on the
`shardc/primitives/linalg.py` primitives (`cholesky`; over `lu`: `solve`, `inv`, `det`,
`slogdet`), plus `lax_linalg`, the namespace served as `shardc.lax.linalg` (JAX's
`jax.lax.linalg` wrappers: `cholesky`, `triangular_solve`, `lu`). `svd`, `qr`, `eigh`, `eig`
are over their primitives too.

Where JAX differentiates through `custom_linear_solve` (solve) or custom JVPs (det, slogdet),
shardc differentiates the same LU algorithm directly: the same derivatives (d log|det A| =
tr(A^-1 dA)), computed by other equations."""
from __future__ import annotations

import math
import operator
from types import SimpleNamespace
from typing import Any, NamedTuple

import ml_dtypes
import numpy as np
from jax._src.lax.linalg import EighImplementation as _JaxEighImplementation
from jax._src.lax.linalg import EigImplementation as _JaxEigImplementation  # JAX's enums, re-exported
from jax._src.lax.linalg import SvdAlgorithm as _JaxSvdAlgorithm

from .. import lax
from ..core import api, bind
from ..errors import ShardcNotImplementedError, ShardcTypeError, ShardcValueError
from ..primitives import linalg as _lp
from ._util import normalize_axis, type_of
from .construct import diagonal as _diagonal
from .construct import matrix_transpose
from .construct import trace as _trace
from .elementwise import abs as _abs
from .elementwise import divide as _divide
from .elementwise import greater as _greater
from .elementwise import greater_equal as _greater_equal
from .elementwise import less as _less
from .elementwise import logical_and, logical_not, multiply, not_equal, power, sqrt
from .elementwise import where as _where
from .linalg import einsum as _einsum
from .linalg import matmul as _matmul
from .linalg import tensordot as _tensordot
from .math import _const, _inexact
from .math import conj as _conjugate
from .math import real as _real
from .nan_reductions import cross as _cross
from .nan_reductions import vecdot as _vecdot
from .reductions import any as _any
from .reductions import max as _max
from .reductions import min as _min
from .reductions import prod as _prod
from .reductions import sum as _sum
from .shape import _arr, expand_dims, moveaxis
from .sorting import count_nonzero as _count_nonzero

__all__ = ["cholesky", "cond", "det", "eig", "eigh", "eigvals", "eigvalsh", "inv", "lstsq", "matrix_power", "matrix_rank",
           "multi_dot", "pinv", "qr", "slogdet", "solve", "svd", "svdvals", "tensorinv", "tensorsolve"]
__all__ += ["cross", "diagonal", "matmul", "matrix_norm", "matrix_transpose", "norm", "outer", "tensordot",
           "trace", "vecdot", "vector_norm"]


def _sumsq(x, axis, keepdims):
    """The 2-norm / Frobenius norm: sqrt(sum(|x|^2)), as JAX's `real(x * conj(x))` for complex x."""
    sq = _real(multiply(x, _conjugate(x))) if np.issubdtype(type_of(x).dtype, np.complexfloating) else multiply(x, x)
    return sqrt(_sum(sq, axis=axis, keepdims=keepdims))


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
        xs = moveaxis(x, axis, (-2, -1))
        sv = svd(xs, compute_uv=False)
        if ord == 2:
            y = _amax0(sv, -1, False)
        elif ord == -2:
            y = _min(sv, axis=-1)
        else:
            y = _sum(sv, axis=-1)
        return expand_dims(y, axis) if keepdims else y
    raise ShardcValueError(f"Invalid order '{ord}' for matrix norm.")


@api("sc.linalg.matrix_norm")
def matrix_norm(x, /, *, keepdims: bool = False, ord="fro"):
    return norm(x, ord=ord, keepdims=keepdims, axis=(-2, -1))


@api("sc.linalg.vecdot")
def vecdot(x1, x2, /, *, axis: int = -1, precision=None, preferred_element_type=None):
    return _vecdot(x1, x2, axis=axis, precision=precision, preferred_element_type=preferred_element_type)


@api("sc.linalg.matmul")
def matmul(x1, x2, /, *, precision=None, preferred_element_type=None):
    """`jnp.linalg.matmul`: the array API's signature (positional operands, no `out_sharding`)."""
    return _matmul(x1, x2, precision=precision, preferred_element_type=preferred_element_type)


@api("sc.linalg.tensordot")
def tensordot(x1, x2, /, *, axes=2, precision=None, preferred_element_type=None, out_sharding=None):
    """`jnp.linalg.tensordot`: `axes` is keyword-only (the array API's signature)."""
    return _tensordot(x1, x2, axes, precision=precision, preferred_element_type=preferred_element_type,
                      out_sharding=out_sharding)


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
    t = type_of(x)
    if t.ndim < 2:  # JAX's `_H` transposes the last two dims first
        perm = tuple(range(t.ndim - 2)) + (t.ndim - 1, t.ndim - 2)
        raise ShardcTypeError("transpose permutation isn't a permutation of operand dimensions, got "
                              f"permutation {perm} for operand shape {t.shape}.")
    return lax.div(lax.add(x, _lp._H(x)), 2)


@api("lax.linalg.cholesky")
def lax_cholesky(x, *, symmetrize_input: bool = True):
    """`jax.lax.linalg.cholesky`: the lower factor (NaN where the factorization fails)."""
    x = _arr(x)
    if symmetrize_input:
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


@api("lax.linalg.lu")
def lax_lu(x):
    """`jax.lax.linalg.lu`: (lu, pivots, permutation) with P x = L U."""
    return tuple(bind(_lp.lu_p, _arr(x)))


def _lu_solve(lu, perm, b):
    """JAX's `_lu_solve_core` (trans=0) over batches: the rows of b permuted (a one-hot
    product), then the unit-lower and the upper triangular solves."""
    bp = _lp.batch_matmul(_lp._perm_matrix(lax, perm, type_of(lu)), b)
    x = bind(_lp.triangular_solve_p, lu, bp, left_side=True, lower=True, transpose_a=False, conjugate_a=False,
             unit_diagonal=True)
    return bind(_lp.triangular_solve_p, lu, x, left_side=True, lower=False, transpose_a=False,
                conjugate_a=False, unit_diagonal=False)


def _vmap_specs_agree(ta, tb, nb: int) -> None:
    """jnp.vectorize's vmaps over the batch dims: each dim mapped must be sharded alike."""
    for d in range(nb):
        ea, eb = ta.spec[d], tb.spec[d]
        if ea != eb:
            raise ShardcValueError("Mapped away dimension of inputs passed to vmap should be sharded the same. "
                                   f"Got inconsistent axis specs: {_entry(ea)} vs {_entry(eb)}")


def _entry(e) -> str:
    return "None" if e is None else e if isinstance(e, str) else str(tuple(e))


@api("sc.linalg.solve")
def solve(a, b):
    """`jnp.linalg.solve`: x with a x = b (b: [..., m] or [..., m, k]), by LU with partial pivoting."""
    a, b = _inexact(a, b)
    ta, tb = type_of(a), type_of(b)
    if ta.ndim < 2:
        raise ShardcValueError(f"left hand array must be at least two dimensional; got a.shape={ta.shape}")
    if tb.ndim > 1 and ta.ndim == tb.ndim + 1 and ta.shape[-1] == tb.shape[-1] and ta.shape[-1] != tb.shape[-2]:
        raise ShardcValueError(f"Invalid shapes for solve: {ta.shape}, {tb.shape}. Prior to JAX v0.5.0, this would "
                               "have been treated as a batched 1-dimensional solve. To recover this behavior, use "
                               "solve(a, b[..., None]).squeeze(-1).")
    vector = tb.ndim == 1
    core_b = 1 if vector else 2
    _core_sizes("(m,m),(m)->(m)" if vector else "(m,m),(m,n)->(m,n)", ta.shape[-2:], tb.shape[tb.ndim - core_b:])
    batch = tuple(np.broadcast_shapes(ta.shape[:-2], tb.shape[:tb.ndim - core_b]))
    if ta.shape[:-2] != batch:
        a = _broadcast_batch(a, batch, 2)
    if tb.shape[:tb.ndim - core_b] != batch:
        b = _broadcast_batch(b, batch, core_b)
    _vmap_specs_agree(type_of(a), type_of(b), len(batch))
    if vector:
        b = expand_dims(b, -1)
    lu, _, perm = bind(_lp.lu_p, a)
    x = _lu_solve(lu, perm, b)
    return lax.squeeze(x, (type_of(x).ndim - 1,)) if vector else x


def _core_sizes(signature: str, a_core: tuple, b_core: tuple) -> None:
    """jnp.vectorize's check of the core dims' sizes (a's (m, m), then b's (m) or (m, n))."""
    sizes: dict[str, int] = {}
    for names, dims in ((("m", "m"), a_core), (("m", "n")[:len(b_core)], b_core)):
        for name, d in zip(names, dims):
            if name in sizes and sizes[name] != d:
                raise ShardcValueError(f"inconsistent size for core dimension '{name}': {d} vs {sizes[name]} on "
                                       f"vectorized function with excluded=frozenset() and signature='{signature}'")
            sizes.setdefault(name, d)


def _broadcast_batch(x, batch: tuple, core: int):
    t = type_of(x)
    shape = batch + t.shape[t.ndim - core:]
    return lax.broadcast_in_dim(x, shape, tuple(range(len(shape) - t.ndim, len(shape))))


@api("sc.linalg.inv")
def inv(a):
    """`jnp.linalg.inv`: `solve(a, eye)` (the identity broadcast over the batch dims, replicated)."""
    a = _arr(a)
    t = type_of(a)
    if t.ndim < 2 or t.shape[-1] != t.shape[-2]:
        raise ShardcValueError(f"Argument to inv must have shape [..., n, n], got {t.shape}.")
    n = t.shape[-1]
    eye = lax.broadcast_in_dim(lax.convert_element_type(np.eye(n), t.dtype), t.shape, (t.ndim - 2, t.ndim - 1))
    return solve(a, eye)


def _slogdet_lu(a):
    """JAX's `_slogdet_lu`: sign and log|det| from the LU factors' diagonal and the pivots' parity."""
    t = type_of(a)
    dtype = t.dtype
    lu, pivot, _ = bind(_lp.lu_p, a)
    diag = _diagonal(lu, axis1=-2, axis2=-1)
    is_zero = _any(lax.eq(diag, _const(diag, 0)), axis=-1)
    tp = type_of(pivot)
    iota = lax.broadcast_in_dim(lax.convert_element_type(np.arange(t.shape[-1]), np.int32), tp.shape,
                                (tp.ndim - 1,))
    parity = _count_nonzero(lax.ne(pivot, iota), axis=-1)
    if np.issubdtype(dtype, np.complexfloating):
        sign = _prod(lax.div(diag, lax.convert_element_type(_abs(diag), dtype)), axis=-1)
    else:
        sign = _const(diag, 1)
        parity = lax.add(parity, _count_nonzero(lax.lt(diag, _const(diag, 0)), axis=-1))
    odd = lax.convert_element_type(lax.rem(parity, np.int32(2)), dtype)
    flip = lax.sub(_const(odd, 1), lax.mul(_const(odd, 2), odd))
    sign = lax.select_n(is_zero, lax.mul(sign, flip), lax.full_like(flip, 0))
    logs = lax.convert_element_type(lax.log(_abs(diag)), dtype)
    total = _sum(logs, axis=-1)
    logdet = lax.select_n(is_zero, total, lax.full_like(total, -np.inf))
    return sign, _real(logdet)


@api("sc.linalg.slogdet")
def slogdet(a, *, method: str | None = None):
    """`jnp.linalg.slogdet`: (sign, log|det|) by LU (`method=None` or 'lu'; 'qr' needs a QR: not yet)."""
    a, = _inexact(a)
    t = type_of(a)
    if t.ndim < 2 or t.shape[-1] != t.shape[-2]:
        raise ShardcValueError(f"Argument to slogdet() must have shape [..., n, n], got {t.shape}")
    if method is None or method == "lu":
        return SlogdetResult(*_slogdet_lu(a))
    if method == "qr":
        raise ShardcNotImplementedError("slogdet(method='qr') needs a QR decomposition, which shardc has not yet")
    raise ShardcValueError(f"Unknown slogdet method '{method}'. Supported methods are 'lu' (`None`), and 'qr'.")


class SlogdetResult(NamedTuple):
    """`(sign, logabsdet)`, JAX's named tuple (a pytree: `vmap`/`jit` outputs)."""
    sign: Any
    logabsdet: Any


def _at(a, i: int, j: int):
    t = type_of(a)
    nb = t.ndim - 2
    s = lax.slice(a, (0,) * nb + (i, j), t.shape[:nb] + (i + 1, j + 1))
    return lax.squeeze(s, (nb, nb + 1))


@api("sc.linalg.det")
def det(a):
    """`jnp.linalg.det`: the 2x2 and 3x3 cofactor formulas, else sign * exp(log|det|) by LU."""
    a, = _inexact(a)
    t = type_of(a)
    if t.ndim >= 2 and t.shape[-2:] == (2, 2):
        return lax.sub(lax.mul(_at(a, 0, 0), _at(a, 1, 1)), lax.mul(_at(a, 0, 1), _at(a, 1, 0)))
    if t.ndim >= 2 and t.shape[-2:] == (3, 3):
        def term(p, q, r):
            return lax.mul(lax.mul(_at(a, 0, p), _at(a, 1, q)), _at(a, 2, r))
        pos = lax.add(lax.add(term(0, 1, 2), term(1, 2, 0)), term(2, 0, 1))
        return lax.sub(lax.sub(lax.sub(pos, term(2, 1, 0)), term(0, 2, 1)), term(1, 0, 2))
    if t.ndim >= 2 and t.shape[-1] == t.shape[-2]:
        sign, logdet = _slogdet_lu(a)
        return lax.mul(sign, lax.convert_element_type(lax.exp(logdet), type_of(sign).dtype))
    raise ShardcValueError(f"Argument to _det() must have shape [..., n, n], got {t.shape}")


@api("lax.linalg.qr")
def lax_qr(x, *, pivoting: bool = False, full_matrices: bool = True, use_magma=None):
    """`jax.lax.linalg.qr`: (q, r); column pivoting is not built yet."""
    if pivoting:
        raise ShardcNotImplementedError("qr(pivoting=True) (LAPACK's geqp3) is not implemented in shardc yet")
    return tuple(bind(_lp.qr_p, _arr(x), full_matrices=bool(full_matrices)))


@api("sc.linalg.qr")
def qr(a, mode: str = "reduced"):
    """`jnp.linalg.qr`: modes 'reduced' (q, r), 'complete' (q, r), 'r' (r only), 'raw' (not in JAX either)."""
    a, = _inexact(a)
    if mode == "raw":
        raise ShardcNotImplementedError("The 'raw' mode is not implemented for jax.numpy.linalg.qr")
    if mode in ("reduced", "r", "full"):
        full_matrices = False
    elif mode == "complete":
        full_matrices = True
    else:
        raise ShardcValueError(f"Unsupported QR decomposition mode '{mode}'")
    q, r = bind(_lp.qr_p, a, full_matrices=full_matrices)
    if mode == "r":
        return r
    return QRResult(q, r)


class QRResult(NamedTuple):
    """`(Q, R)`, JAX's `QRResult` named tuple (a pytree node: `jit` returns it as such)."""
    Q: Any
    R: Any


@api("lax.linalg.eigh")
def lax_eigh(x, *, lower: bool = True, symmetrize_input: bool = True, sort_eigenvalues: bool = True,
             subset_by_index=None, implementation=None):
    """`jax.lax.linalg.eigh`: (v, w), eigenvectors as columns, eigenvalues ascending."""
    x = _arr(x)
    if symmetrize_input:
        x = _symmetrize(x)
    sub = None if subset_by_index is None else tuple(subset_by_index)
    v, w = bind(_lp.eigh_p, x, lower=lower, sort_eigenvalues=sort_eigenvalues, subset_by_index=sub,
                algorithm=implementation)
    return v, w


class EighResult(NamedTuple):
    """`(eigenvalues, eigenvectors)`, JAX's named tuple (a pytree node: `jit` returns it as such)."""
    eigenvalues: Any
    eigenvectors: Any


def _uplo_lower(UPLO) -> bool:
    if UPLO is None or UPLO == "L":
        return True
    if UPLO == "U":
        return False
    raise ShardcValueError(f"UPLO must be one of None, 'L', or 'U', got {UPLO}")


@api("sc.linalg.eigh")
def eigh(a, UPLO: str | None = None, symmetrize_input: bool = True):
    """`jnp.linalg.eigh`: (eigenvalues ascending, eigenvectors as columns) of a Hermitian matrix."""
    a = _arr(a)
    lower = _uplo_lower(UPLO)
    a, = _inexact(a)
    v, w = lax_eigh(a, lower=lower, symmetrize_input=symmetrize_input)
    return EighResult(w, v)


@api("sc.linalg.eigvalsh")
def eigvalsh(a, UPLO: str | None = "L", *, symmetrize_input: bool = True):
    """`jnp.linalg.eigvalsh`: the eigenvalues of a Hermitian matrix, ascending."""
    w, _ = eigh(a, UPLO, symmetrize_input=symmetrize_input)
    return w


@api("lax.linalg.eig")
def lax_eig(x, *, compute_left_eigenvectors: bool = True, compute_right_eigenvectors: bool = True,
            enable_eigvec_derivs: bool = False, implementation=None, use_magma: bool | None = None):
    """`jax.lax.linalg.eig`: [w, vl, vr] (vl, vr only when asked), complex, as LAPACK's geev."""
    if use_magma is not None:
        import warnings  # late: only on the deprecated path, as JAX warns
        warnings.warn("use_magma is deprecated, please use implementation=EigImplementation.MAGMA instead.",
                      DeprecationWarning, stacklevel=2)
        implementation = _JaxEigImplementation.MAGMA if use_magma else _JaxEigImplementation.LAPACK
    return list(bind(_lp.eig_p, _arr(x), compute_left_eigenvectors=bool(compute_left_eigenvectors),
                     compute_right_eigenvectors=bool(compute_right_eigenvectors),
                     enable_eigvec_derivs=bool(enable_eigvec_derivs), implementation=implementation))


class EigResult(NamedTuple):
    """`(eigenvalues, eigenvectors)`, JAX's named tuple (a pytree: `vmap`/`jit` outputs)."""
    eigenvalues: Any
    eigenvectors: Any


def _ensure_arraylike(name: str, x):
    """JAX's `ensure_arraylike`: arrays and scalars, no lists or tuples."""
    if isinstance(x, (list, tuple)):
        raise ShardcTypeError(f"{name} requires ndarray or scalar arguments, got {type(x)} at position 0.")
    return _arr(x)


@api("sc.linalg.eig")
def eig(a):
    """`jnp.linalg.eig`: (eigenvalues, right eigenvectors as columns) of a general square matrix,
    complex for every input dtype."""
    a, = _inexact(_ensure_arraylike("jnp.linalg.eig", a))
    w, v = lax_eig(a, compute_left_eigenvectors=False)
    return EigResult(w, v)


@api("sc.linalg.eigvals")
def eigvals(a):
    """`jnp.linalg.eigvals`: the eigenvalues of a general square matrix (complex)."""
    a, = _inexact(_ensure_arraylike("jnp.linalg.eigvals", a))
    return lax_eig(a, compute_left_eigenvectors=False, compute_right_eigenvectors=False)[0]


@api("lax.linalg.lu_pivots_to_permutation")
def lax_lu_pivots_to_permutation(pivots, permutation_size: int):
    """`jax.lax.linalg.lu_pivots_to_permutation`: the permutation of `iota(permutation_size)` the
    row swaps `pivots` (int32 [..., k]) make."""
    return bind(_lp.lu_pivots_to_permutation_p, _arr(pivots), permutation_size=operator.index(permutation_size))


@api("lax.linalg.hessenberg")
def lax_hessenberg(a):
    """`jax.lax.linalg.hessenberg`: (a, taus), the Hessenberg form and its Householder reflectors."""
    return list(bind(_lp.hessenberg_p, _arr(a)))


@api("lax.linalg.householder_product")
def lax_householder_product(a, taus):
    """`jax.lax.linalg.householder_product`: the product of the reflectors in a's lower triangle."""
    return bind(_lp.householder_product_p, _arr(a), _arr(taus))


@api("lax.linalg.schur")
def lax_schur(x, *, compute_schur_vectors: bool = True, sort_eig_vals: bool = False, select_callable=None):
    """`jax.lax.linalg.schur`: [T, Q] (Q only with `compute_schur_vectors`), A = Q T Q^H."""
    return list(bind(_lp.schur_p, _arr(x), compute_schur_vectors=bool(compute_schur_vectors),
                     sort_eig_vals=bool(sort_eig_vals), select_callable=select_callable))


@api("lax.linalg.tridiagonal")
def lax_tridiagonal(a, *, lower: bool = True):
    """`jax.lax.linalg.tridiagonal`: (a, d, e, taus), the tridiagonal reduction of a Hermitian matrix."""
    return list(bind(_lp.tridiagonal_p, _arr(a), lower=bool(lower)))


@api("lax.linalg.tridiagonal_solve")
def lax_tridiagonal_solve(dl, d, du, b, *, perturb_singular: bool = False):
    """`jax.lax.linalg.tridiagonal_solve`: x with A x = b, A given by its three diagonals."""
    return bind(_lp.tridiagonal_solve_p, _arr(dl), _arr(d), _arr(du), _arr(b), perturb_singular=bool(perturb_singular))


@api("lax.linalg.ormqr")
def lax_ormqr(a, taus, c, *, left: bool = True, transpose: bool = False):
    """`jax.lax.linalg.ormqr`: Q c, Q^H c, c Q or c Q^H for the Q of Householder reflectors (a, taus)."""
    return bind(_lp.ormqr_p, _arr(a), _arr(taus), _arr(c), left=bool(left), transpose=bool(transpose))


@api("lax.linalg.symmetric_product")
def lax_symmetric_product(a_matrix, c_matrix, *, alpha: float = 1., beta: float = 0.,
                          symmetrize_output: bool = False):
    """`jax.lax.linalg.symmetric_product`: alpha a a^T + beta c (lower triangle; all of it with
    `symmetrize_output`, JAX's `_tril` and transpose)."""
    result = bind(_lp.symmetric_product_p, _arr(a_matrix), _arr(c_matrix), alpha=alpha, beta=beta)
    if symmetrize_output:
        result = lax.add(_lp.tril(result, 0), _lp.mT(_lp.tril(result, -1)))
    return result


@api("lax.linalg.svd")
def lax_svd(x, *, full_matrices: bool = True, compute_uv: bool = True, subset_by_index=None, algorithm=None):
    """`jax.lax.linalg.svd`: (u, s, vh), or s alone without `compute_uv`."""
    sub = None if subset_by_index is None else tuple(subset_by_index)
    out = bind(_lp.svd_p, _arr(x), full_matrices=bool(full_matrices), compute_uv=bool(compute_uv),
               subset_by_index=sub, algorithm=algorithm)
    if compute_uv:
        s, u, vt = out
        return u, s, vt
    return out[0]


class SVDResult(NamedTuple):
    """`(U, S, Vh)`, JAX's named tuple (a pytree node: `jit` returns it as such)."""
    U: Any
    S: Any
    Vh: Any


@api("sc.linalg.svd")
def svd(a, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False, subset_by_index=None):
    """`jnp.linalg.svd` (LAPACK's gesdd); `hermitian=True` (JAX's eigh-based path) is not built yet."""
    a, = _inexact(a)
    if hermitian:
        raise ShardcNotImplementedError("jnp.linalg.svd(hermitian=True) is not implemented in shardc yet")
    if compute_uv:
        return SVDResult(*lax_svd(a, full_matrices=full_matrices, compute_uv=True, subset_by_index=subset_by_index))
    return lax_svd(a, full_matrices=full_matrices, compute_uv=False, subset_by_index=subset_by_index)


@api("sc.linalg.svdvals")
def svdvals(x, /):
    """`jnp.linalg.svdvals`: the singular values, descending."""
    return svd(x, compute_uv=False, hermitian=False)


def _eps(dtype) -> float:
    return float(ml_dtypes.finfo(dtype).eps)


@api("sc.linalg.matrix_rank")
def matrix_rank(M, rtol=None, *, hermitian: bool = False, tol=None):
    """`jnp.linalg.matrix_rank`: singular values above rtol (default max(s) * max(m, n) * eps)."""
    if tol is not None:
        if rtol is not None:
            raise ShardcValueError("matrix_rank: only one of tol or rtol may be specified.")
        rtol = tol
    M, = _inexact(M)
    t = type_of(M)
    if t.ndim < 2:
        return lax.convert_element_type(_any(not_equal(M, 0)), np.int32)
    sv = svd(M, full_matrices=False, compute_uv=False, hermitian=hermitian)
    real = type_of(sv).dtype
    if rtol is None:
        rtol = multiply(_max(sv, axis=-1), float(np.float32(max(t.shape[-2:])) * _eps(real)))
    rtol = _arr(rtol)
    rtol = expand_dims(rtol, type_of(rtol).ndim)
    return _sum(_greater(sv, rtol), axis=-1)


@api("sc.linalg.pinv")
def pinv(a, rtol=None, hermitian: bool = False, *, rcond=None):
    """`jnp.linalg.pinv` (NumPy's SVD algorithm); its derivative is the SVD's (JAX: a custom JVP
    with the same values for full-rank inputs)."""
    if rcond is not None:
        if rtol is not None:
            raise ShardcValueError("pinv: only one of rtol and rcond may be specified.")
        rtol = rcond
    a, = _inexact(a)
    t = type_of(a)
    m, n = t.shape[-2:]
    arr = _conjugate(a)
    real = np.dtype(ml_dtypes.finfo(t.dtype).dtype) if not np.issubdtype(t.dtype, np.complexfloating) \
        else np.dtype(np.float32 if t.dtype == np.complex64 else np.float64)
    if rtol is None:
        rtol = np.asarray(10.0 * max(m, n) * _eps(real), dtype=real)
    u, sv, vh = svd(arr, full_matrices=False, hermitian=hermitian)
    rtol = _arr(rtol)
    sn = type_of(sv).ndim
    rtol = expand_dims(expand_dims(rtol, type_of(rtol).ndim), tuple(range(sn - type_of(rtol).ndim - 1)))
    cutoff = multiply(rtol, lax.slice_in_dim(sv, 0, 1, axis=sn - 1))
    sv = lax.convert_element_type(_where(_greater(sv, cutoff), sv, np.inf), t.dtype)
    res = matmul(matrix_transpose(vh), _divide(matrix_transpose(u), expand_dims(sv, -1)))
    return lax.convert_element_type(res, t.dtype)


@api("sc.linalg.cond")
def cond(x, p=None):
    """`jnp.linalg.cond`: s_max / s_min (p None, 2), s_min / s_max (-2), else norm(x) * norm(inv(x))."""
    arr = _arr(x)
    t = type_of(arr)
    if t.ndim < 2:
        raise ShardcValueError(f"jnp.linalg.cond: input array must be at least 2D; got arr.shape={t.shape}")
    if t.shape[-1] == 0 or t.shape[-2] == 0:
        raise ShardcValueError(f"jnp.linalg.cond: input array must not be empty; got arr.shape={t.shape}")
    if p is None or p == 2:
        sv = svdvals(arr)
        n = type_of(sv).shape[-1]
        return _divide(lax.index_in_dim(sv, 0, axis=-1, keepdims=False),
                    lax.index_in_dim(sv, n - 1, axis=-1, keepdims=False))
    if p == -2:
        sv = svdvals(arr)
        n = type_of(sv).shape[-1]
        r = _divide(lax.index_in_dim(sv, n - 1, axis=-1, keepdims=False), lax.index_in_dim(sv, 0, axis=-1, keepdims=False))
    else:
        if t.shape[-2] != t.shape[-1]:
            raise ShardcValueError(f"jnp.linalg.cond: for p={p!r}, array must be square; got arr.shape={t.shape}")
        r = multiply(norm(arr, ord=p, axis=(-2, -1)), norm(inv(arr), ord=p, axis=(-2, -1)))
    nan_r = not_equal(r, r)
    any_nan = _any(not_equal(arr, arr), axis=(-2, -1))
    return _where(logical_and(nan_r, logical_not(any_nan)), np.inf, r)


@api("sc.linalg.lstsq")
def lstsq(a, b, rcond=None, *, numpy_resid: bool = False):
    """`jnp.linalg.lstsq` (JAX's `_lstsq`): (x, residuals, rank, s) by the SVD of a 2-D `a`."""
    if numpy_resid:
        raise ShardcNotImplementedError("lstsq(numpy_resid=True) returns a data-dependent shape; it is not "
                                        "implemented in shardc (use the default numpy_resid=False)")
    a, b = _inexact(a, b)
    ta, tb = type_of(a), type_of(b)
    if ta.shape[:1] != tb.shape[:1]:
        raise ShardcValueError("Leading dimensions of input arrays must match")
    vector = tb.ndim == 1
    if vector:
        b = expand_dims(b, 1)
        tb = type_of(b)
    if ta.ndim != 2:
        raise ShardcTypeError(f"{ta.ndim}-dimensional array given. Array must be two-dimensional")
    if tb.ndim != 2:
        raise ShardcTypeError(f"{tb.ndim}-dimensional array given. Array must be one or two-dimensional")
    m, n = ta.shape
    dtype = ta.dtype
    if rcond is None:
        rcond = float(ml_dtypes.finfo(dtype).eps) * max(n, m)
    else:
        rcond = _where(_less(rcond, 0), float(ml_dtypes.finfo(dtype).eps), rcond)
    u, sv, vt = svd(a, full_matrices=False)
    sdt = type_of(sv).dtype
    s0 = lax.index_in_dim(sv, 0, axis=0, keepdims=True)
    mask = logical_and(_greater(sv, 0), _greater_equal(sv, multiply(lax.convert_element_type(rcond, sdt), s0)))
    rank = _sum(mask)
    safe_s = lax.convert_element_type(_where(mask, sv, 1), dtype)
    s_inv = expand_dims(_where(mask, _divide(1, safe_s), 0), 1)
    utb = matmul(matrix_transpose(_conjugate(u)), b)
    x = matmul(matrix_transpose(_conjugate(vt)), multiply(s_inv, utb))
    resid = power(norm(lax.sub(b, matmul(a, x)), axis=0), 2)
    if vector:
        x = lax.reshape(x, (n,))
    return x, resid, rank, sv


@api("sc.linalg.matrix_power")
def matrix_power(a, n: int):
    """`jnp.linalg.matrix_power`: repeated squaring (a negative power inverts first)."""
    arr = _arr(a)
    t = type_of(arr)
    if t.ndim < 2:
        raise ShardcTypeError(f"{t.ndim}-dimensional array given. Array must be at least two-dimensional")
    if t.shape[-2] != t.shape[-1]:
        raise ShardcTypeError("Last 2 dimensions of the array must be square")
    try:
        n = operator.index(n)
    except TypeError as err:
        raise ShardcTypeError(f"exponent must be an integer, got {n}") from err
    if n == 0:
        eye = lax.convert_element_type(np.eye(t.shape[-2]), t.dtype)
        return lax.broadcast_in_dim(eye, t.shape, (t.ndim - 2, t.ndim - 1))
    if n < 0:
        arr = inv(arr)
        n = abs(n)
    if n == 1:
        return arr
    if n == 2:
        return matmul(arr, arr)
    if n == 3:
        return matmul(matmul(arr, arr), arr)
    z = result = None
    while n > 0:
        z = arr if z is None else matmul(z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else matmul(result, z)
    return result


@api("sc.linalg.multi_dot")
def multi_dot(arrays, *, precision=None):
    """`jnp.linalg.multi_dot`: one einsum over the chain (JAX's contraction order)."""
    arrs = [_arr(a) for a in arrays]
    if len(arrs) == 1 and type_of(arrs[0]).ndim:  # JAX's `list(ensure_arraylike(name, x))` iterates x's rows
        arrs = [lax.index_in_dim(arrs[0], i, keepdims=False) for i in range(type_of(arrs[0]).shape[0])]
    if len(arrs) < 2:
        raise ShardcValueError(f"multi_dot requires at least two arrays; got len(arrays)={len(arrs)}")
    ts = [type_of(a) for a in arrs]
    if not (ts[0].ndim in (1, 2) and ts[-1].ndim in (1, 2) and all(t.ndim == 2 for t in ts[1:-1])):
        raise ShardcValueError("multi_dot: input arrays must all be two-dimensional, except for the first and last "
                               f"array which may be 1 or 2 dimensional. Got array shapes {[t.shape for t in ts]}")
    if any(a.shape[-1] != b.shape[0] for a, b in zip(ts[:-1], ts[1:])):
        raise ShardcValueError("multi_dot: last dimension of each array must match first dimension of following "
                               f"array. Got array shapes {[t.shape for t in ts]}")
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    axes = [[i, i + 1] for i in range(len(arrs))]
    if ts[0].ndim == 1:
        axes[0] = axes[0][1:]
    if ts[-1].ndim == 1:
        axes[-1] = axes[-1][:1]
    counts: dict[int, int] = {}
    for ax in axes:
        for i in ax:
            counts[i] = counts.get(i, 0) + 1
    out = "".join(letters[i] for i in sorted(counts) if counts[i] == 1)
    subs = ",".join("".join(letters[i] for i in ax) for ax in axes) + "->" + out
    return _einsum(subs, *arrs)


@api("sc.linalg.tensorinv")
def tensorinv(a, ind: int = 2):
    """`jnp.linalg.tensorinv`: `inv` of the (prod(shape[:ind]), prod(shape[ind:])) matrix, reshaped."""
    arr = _arr(a)
    t = type_of(arr)
    ind = operator.index(ind)
    if ind <= 0:
        raise ShardcValueError(f"ind must be a positive integer; got ind={ind!r}")
    contracting, batch = t.shape[:ind], t.shape[ind:]
    flat = (math.prod(contracting), math.prod(batch))
    if flat[0] != flat[1]:
        raise ShardcValueError("tensorinv is only possible when the product of the first `ind` dimensions equals "
                               f"that of the remaining dimensions. got arr.shape={t.shape} with ind={ind!r}.")
    return lax.reshape(inv(lax.reshape(arr, flat)), batch + contracting)


@api("sc.linalg.tensorsolve")
def tensorsolve(a, b, axes=None):
    """`jnp.linalg.tensorsolve`: `solve` of a flattened to a square matrix."""
    a_arr, b_arr = _arr(a), _arr(b)
    if axes is not None:
        a_arr = moveaxis(a_arr, axes, len(axes) * (type_of(a_arr).ndim - 1,))
    ta, tb = type_of(a_arr), type_of(b_arr)
    out_shape = ta.shape[tb.ndim:]
    if ta.shape[:tb.ndim] != tb.shape:
        raise ShardcValueError("After moving axes to end, leading shape of a must match shape of b. got "
                               f"a.shape={ta.shape}, b.shape={tb.shape}")
    size = math.prod(tb.shape)
    if size != math.prod(out_shape):
        raise ShardcValueError("Input arrays must have prod(a.shape[:b.ndim]) == prod(a.shape[b.ndim:]); got "
                               f"a.shape={ta.shape}, b.ndim={tb.ndim}.")
    x = solve(lax.reshape(a_arr, (size, math.prod(out_shape))), lax.reshape(b_arr, (size,)))
    return lax.reshape(x, out_shape)


#: `shardc.lax.linalg` (JAX's `jax.lax.linalg`): the wrappers and the primitives
lax_linalg = SimpleNamespace(cholesky=lax_cholesky, triangular_solve=triangular_solve, lu=lax_lu, qr=lax_qr,
                             eigh=lax_eigh, eig=lax_eig, svd=lax_svd, eig_p=_lp.eig_p,
                             EigImplementation=_JaxEigImplementation,
                             EighImplementation=_JaxEighImplementation, SvdAlgorithm=_JaxSvdAlgorithm,
                             lu_pivots_to_permutation=lax_lu_pivots_to_permutation,
                             hessenberg=lax_hessenberg, hessenberg_p=_lp.hessenberg_p,
                             householder_product=lax_householder_product,
                             householder_product_p=_lp.householder_product_p,
                             schur=lax_schur, schur_p=_lp.schur_p, tridiagonal=lax_tridiagonal,
                             tridiagonal_p=_lp.tridiagonal_p, tridiagonal_solve=lax_tridiagonal_solve,
                             tridiagonal_solve_p=_lp.tridiagonal_solve_p, ormqr=lax_ormqr, ormqr_p=_lp.ormqr_p,
                             symmetric_product=lax_symmetric_product,
                             symmetric_product_p=_lp.symmetric_product_p,
                             lu_pivots_to_permutation_p=_lp.lu_pivots_to_permutation_p, svd_p=_lp.svd_p, cholesky_p=_lp.cholesky_p, triangular_solve_p=_lp.triangular_solve_p,
                             lu_p=_lp.lu_p, qr_p=_lp.qr_p, eigh_p=_lp.eigh_p)
