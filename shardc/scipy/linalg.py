"""`shardc.scipy.linalg`: JAX 0.10.2's `jax.scipy.linalg`, function for function.

`cholesky`, `cho_factor`, `cho_solve` and `solve_triangular` are written here in shardc's style;
the rest is JAX's own composition (`jax/_src/scipy/linalg.py`, Copyright 2018 The JAX Authors,
Apache License 2.0) ported onto shardc's `numpy`, `lax`, `lax.linalg`, `vectorize`, `jit` and
`random`, so that values, dtypes, sharding types and errors follow JAX's by construction. Where
the port differs (docs/scipy.md): `qr_multiply` forms Q (geqrf + orgqr) and multiplies instead of
LAPACK's ormqr (same values to rounding); `qr(pivoting=True)` / `qr_multiply(pivoting=True)`
(LAPACK's geqp3) are not built; `polar` runs its qdwh iteration at shardc's default matmul
precision (JAX pins float32 precision, the same on CPU).
"""


import math
import operator
import warnings
from functools import partial
from typing import Any

import numpy as np

from .. import lax, random
from .. import numpy as jnp
from ..autodiff import jvp
from ..batching import vectorize, vmap
from ..core import api
from ..errors import ShardcNotImplementedError, ShardcTypeError, ShardcValueError
from ..ops._util import as_operand, promote, type_of
from ..ops.math import _inexact
from ..ops.numpy_linalg import lax_linalg
from ..stages import jit
from .special import comb

jnp_linalg = jnp.linalg
Array = ArrayLike = DTypeLike = Any

__all__ = [  # JAX 0.10.2's jax.scipy.linalg, every name
    "block_diag",
    "cho_factor",
    "cho_solve",
    "cholesky",
    "circulant",
    "companion",
    "convolution_matrix",
    "det",
    "dft",
    "eigh",
    "eigh_tridiagonal",
    "expm",
    "expm_frechet",
    "fiedler",
    "fiedler_companion",
    "funm",
    "hadamard",
    "hankel",
    "helmert",
    "hessenberg",
    "hilbert",
    "inv",
    "invhilbert",
    "invpascal",
    "leslie",
    "lu",
    "lu_factor",
    "lu_solve",
    "pascal",
    "polar",
    "qr",
    "qr_multiply",
    "rsf2csf",
    "schur",
    "solve",
    "solve_sylvester",
    "solve_triangular",
    "sqrtm",
    "svd",
    "toeplitz",
]


def _cholesky(a, lower: bool):
    (a,) = _inexact(a)
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
        warnings.warn(
            f"jax.scipy.linalg.{name}: batched 1D solves with b.ndim > 1 are deprecated, and in the "
            "future will be treated as a batched 2D solve. Use "
            f"{name}({'c_and_lower' if name == 'cho_solve' else 'a'}, b[..., None]).squeeze(-1) to avoid "
            "this warning.",
            category=FutureWarning,
            stacklevel=3,
        )
        return "(n,n),(n)->(n)"
    return "(n,n),(n,k)->(n,k)"


@api("sc.scipy.linalg.cho_solve")
def cho_solve(c_and_lower, b, overwrite_b: bool = False, check_finite: bool = True):
    """`jax.scipy.linalg.cho_solve`: x with (c c^H) x = b, by two triangular solves."""
    del overwrite_b, check_finite
    c, lower = c_and_lower
    c, b = _inexact(c, b)
    sig = _signature(c, b, "cho_solve")
    b = vectorize(
        partial(lax_linalg.triangular_solve, left_side=True, lower=lower, transpose_a=not lower, conjugate_a=not lower),
        signature=sig,
    )(c, b)
    return vectorize(
        partial(lax_linalg.triangular_solve, left_side=True, lower=lower, transpose_a=lower, conjugate_a=lower),
        signature=sig,
    )(c, b)


@api("sc.scipy.linalg.solve_triangular")
def solve_triangular(
    a,
    b,
    trans=0,
    lower: bool = False,
    unit_diagonal: bool = False,
    overwrite_b: bool = False,
    debug=None,
    check_finite: bool = True,
):
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
    return vectorize(
        partial(
            lax_linalg.triangular_solve,
            left_side=True,
            lower=lower,
            transpose_a=transpose_a,
            conjugate_a=conjugate_a,
            unit_diagonal=unit_diagonal,
        ),
        signature=sig,
    )(a, b)


# --- the JAX internals the port uses, on shardc's public ops ---------------------------------------------------------
def promote_dtypes_inexact(*args):
    """JAX's `promote_dtypes_inexact`: one common dtype, integers and bools to float32."""
    return _inexact(*args)


promote_args_inexact = lambda name, *args: (check_arraylike(name, *args), _inexact(*args))[1]  # noqa: E731


def promote_dtypes(*args):
    """JAX's `promote_dtypes`: the arguments converted to their common dtype (weak types kept)."""
    return [jnp.asarray(x) if not hasattr(x, "dtype") else x for x in promote(*(as_operand(x) for x in args))]


def promote_dtypes_complex(*args):
    """JAX's `promote_dtypes_complex`: the common dtype, made complex."""
    d = _to_complex_dtype(jnp.result_type(*args))
    return [jnp.asarray(x).astype(d) for x in args]


def _to_complex_dtype(d):
    d = np.dtype(d)
    return d if jnp.issubdtype(d, np.complexfloating) else np.dtype(jnp.complex64)


def check_arraylike(name: str, *args) -> None:
    """JAX's `check_arraylike`: arrays and scalars only (a list is JAX's TypeError)."""
    for i, a in enumerate(args):
        if not (
            hasattr(a, "dtype")
            or hasattr(a, "_shardc_type")
            or hasattr(a, "aval")
            or isinstance(a, (int, float, complex, bool, np.ndarray, np.generic))
        ):
            raise ShardcTypeError(f"{name} requires ndarray or scalar arguments, got {type(a)} at position {i}.")


def _check_solve_shapes(a, b) -> None:
    if not (a.ndim >= 2 and b.ndim in [a.ndim, a.ndim - 1] and a.shape[-1] == a.shape[-2] == b.shape[a.ndim - 2]):
        raise ShardcValueError(
            "The arguments to solve must have shapes a=[..., m, m] and "
            f"b=[..., m, k] or b=[..., m]; got a={a.shape} and b={b.shape}"
        )


def _broadcasted_matvec(a, b):
    """(..., n, m), (..., m) -> (..., n), as JAX's lax.linalg helper."""
    batch = jnp.broadcast_shapes(a.shape[:-2], b.shape[:-1])
    nb = len(batch)
    a = jnp.broadcast_to(a, (*batch, *a.shape[-2:]))
    b = jnp.broadcast_to(b, (*batch, b.shape[-1]))
    dims = (([a.ndim - 1], [b.ndim - 1]), (list(range(nb)), list(range(nb))))
    return lax.dot_general(a, b, dimension_numbers=dims, precision=lax.Precision.HIGHEST)


def _lu_solve_core(lu, permutation, b, trans: int):
    """JAX's `_lu_solve_core`: x with op(A) x = b from A's LU factors (trans 0, 1: A^T, 2: A^H)."""
    m = lu.shape[0]
    x = jnp.reshape(b, (m, math.prod(b.shape[1:])))
    if trans == 0:
        x = x[permutation, :]
        x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=True, unit_diagonal=True)
        x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=False)
    elif trans == 1 or trans == 2:
        conj = trans == 2
        x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=False, transpose_a=True, conjugate_a=conj)
        x = lax_linalg.triangular_solve(
            lu, x, left_side=True, lower=True, unit_diagonal=True, transpose_a=True, conjugate_a=conj
        )
        _, ind = lax.sort_key_val(permutation, lax.iota("int32", permutation.shape[0]))
        x = x[ind, :]
    else:
        raise ShardcValueError(f"'trans' value must be 0, 1, or 2, got {trans}")
    return jnp.reshape(x, b.shape)


# --- JAX's jax/_src/scipy/linalg.py from here on (overloads and long docstrings left out) -----------------------------
@jit(static_argnames=("full_matrices", "compute_uv"))
def _svd(a: ArrayLike, *, full_matrices: bool, compute_uv: bool) -> Array | tuple[Array, Array, Array]:
    (a,) = promote_dtypes_inexact(jnp.asarray(a))
    return lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)


def svd(
    a: ArrayLike,
    full_matrices: bool = True,
    compute_uv: bool = True,
    overwrite_a: bool = False,
    check_finite: bool = True,
    lapack_driver: str = "gesdd",
) -> Array | tuple[Array, Array, Array]:
    """Compute the singular value decomposition."""
    del overwrite_a, check_finite, lapack_driver  # unused
    return _svd(a, full_matrices=full_matrices, compute_uv=compute_uv)


def det(a: ArrayLike, overwrite_a: bool = False, check_finite: bool = True) -> Array:
    """Compute the determinant of a matrix"""
    del overwrite_a, check_finite  # unused
    return jnp_linalg.det(a)


@jit(static_argnames=("lower", "eigvals_only", "eigvals", "type"))
def _eigh(
    a: ArrayLike, b: ArrayLike | None, lower: bool, eigvals_only: bool, eigvals: None, type: int
) -> Array | tuple[Array, Array]:
    if b is not None:
        raise ShardcNotImplementedError("Only the b=None case of eigh is implemented")
    if type != 1:
        raise ShardcNotImplementedError("Only the type=1 case of eigh is implemented.")
    if eigvals is not None:
        raise ShardcNotImplementedError("Only the eigvals=None case of eigh is implemented.")

    (a,) = promote_dtypes_inexact(jnp.asarray(a))
    v, w = lax_linalg.eigh(a, lower=lower)

    if eigvals_only:
        return w
    else:
        return w, v


def eigh(
    a: ArrayLike,
    b: ArrayLike | None = None,
    lower: bool = True,
    eigvals_only: bool = False,
    overwrite_a: bool = False,
    overwrite_b: bool = False,
    turbo: bool = True,
    eigvals: None = None,
    type: int = 1,
    check_finite: bool = True,
) -> Array | tuple[Array, Array]:
    """Compute eigenvalues and eigenvectors for a Hermitian matrix"""
    del overwrite_a, overwrite_b, turbo, check_finite  # unused
    return _eigh(a, b, lower, eigvals_only, eigvals, type)


@jit(static_argnames=("output",))
def _schur(a: Array, output: str) -> tuple[Array, Array]:
    if output == "complex":
        a = a.astype(_to_complex_dtype(a.dtype))
    return lax_linalg.schur(a)


def schur(a: ArrayLike, output: str = "real") -> tuple[Array, Array]:
    """Compute the Schur decomposition"""
    if output not in ("real", "complex"):
        raise ShardcValueError(f"Expected 'output' to be either 'real' or 'complex', got {output=}.")
    return _schur(a, output)


def inv(a: ArrayLike, overwrite_a: bool = False, check_finite: bool = True) -> Array:
    """Return the inverse of a square matrix"""
    del overwrite_a, check_finite  # unused
    return jnp_linalg.inv(a)


@jit(static_argnames=("overwrite_a", "check_finite"))
def lu_factor(a: ArrayLike, overwrite_a: bool = False, check_finite: bool = True) -> tuple[Array, Array]:
    """Factorization for LU-based linear solves"""
    del overwrite_a, check_finite  # unused
    (a,) = promote_dtypes_inexact(jnp.asarray(a))
    lu, pivots, _ = lax_linalg.lu(a)
    return lu, pivots


@jit(static_argnames=("trans", "overwrite_b", "check_finite"))
def lu_solve(
    lu_and_piv: tuple[Array, ArrayLike],
    b: ArrayLike,
    trans: int = 0,
    overwrite_b: bool = False,
    check_finite: bool = True,
) -> Array:
    """Solve a linear system using an LU factorization"""
    del overwrite_b, check_finite  # unused
    lu, pivots = lu_and_piv
    lu, b = promote_dtypes_inexact(jnp.asarray(lu), jnp.asarray(b))
    m, _ = lu.shape[-2:]
    perm = lax_linalg.lu_pivots_to_permutation(pivots, m)
    if b.ndim == 1:
        signature = "(n,n),(n),(n)->(n)"
    elif lu.ndim == b.ndim + 1 and lu.shape[-1] == b.shape[-1]:
        # Deprecation warning added 2026-03-23
        warnings.warn(
            "jax.scipy.linalg.lu_solve: batched 1D solves with b.ndim > 1 are "
            "deprecated, and in the future will be treated as a batched 2D solve. "
            "Use lu_solve(lu_and_piv, b[..., None]).squeeze(-1) to avoid this warning.",
            category=FutureWarning,
        )
        signature = "(n,n),(n),(n)->(n)"
    else:
        signature = "(n,n),(n),(n,k)->(n,k)"
    return vectorize(partial(_lu_solve_core, trans=trans), signature=signature)(lu, perm, b)


@jit(static_argnums=(1,))
def _lu(a: ArrayLike, permute_l: bool) -> tuple[Array, Array] | tuple[Array, Array, Array]:
    (a,) = promote_dtypes_inexact(jnp.asarray(a))
    lu, _, permutation = lax_linalg.lu(a)
    dtype = lax.dtype(a)
    m, n = np.shape(a)
    p = jnp.real(jnp.array(permutation[None, :] == jnp.arange(m, dtype=permutation.dtype)[:, None], dtype=dtype))
    k = min(m, n)
    l = jnp.tril(lu, -1)[:, :k] + jnp.eye(m, k, dtype=dtype)
    u = jnp.triu(lu)[:k, :]
    if permute_l:
        return jnp.matmul(p, l, precision=lax.Precision.HIGHEST), u
    else:
        return p, l, u


@jit(static_argnames=("permute_l", "overwrite_a", "check_finite"))
def lu(
    a: ArrayLike, permute_l: bool = False, overwrite_a: bool = False, check_finite: bool = True
) -> tuple[Array, Array] | tuple[Array, Array, Array]:
    """Compute the LU decomposition"""
    del overwrite_a, check_finite  # unused
    return _lu(a, permute_l)


@jit(static_argnames=("mode", "pivoting"))
def _qr(a: ArrayLike, mode: str, pivoting: bool) -> tuple[Array] | tuple[Array, Array] | tuple[Array, Array, Array]:
    if mode in ("full", "r"):
        full_matrices = True
    elif mode == "economic":
        full_matrices = False
    else:
        raise ShardcValueError(f"Unsupported QR decomposition mode '{mode}'")
    (a,) = promote_dtypes_inexact(jnp.asarray(a))
    q, r, *p = lax_linalg.qr(a, pivoting=pivoting, full_matrices=full_matrices)
    if mode == "r":
        if pivoting:
            return r, p[0]
        return (r,)
    if pivoting:
        return q, r, p[0]
    return q, r


def qr(
    a: ArrayLike,
    overwrite_a: bool = False,
    lwork: Any = None,
    mode: str = "full",
    pivoting: bool = False,
    check_finite: bool = True,
) -> tuple[Array] | tuple[Array, Array] | tuple[Array, Array, Array]:
    """Compute the QR decomposition of an array"""
    del overwrite_a, lwork, check_finite  # unused
    return _qr(a, mode, pivoting)


def qr_multiply(
    a: ArrayLike,
    c: ArrayLike,
    mode: str = "right",
    pivoting: bool = False,
    conjugate: bool = False,
    overwrite_a: bool = False,
    overwrite_c: bool = False,
) -> tuple[Array, Array] | tuple[Array, Array, Array]:
    """Calculate the QR decomposition and multiply Q with a matrix."""
    del overwrite_a, overwrite_c  # unused
    a, c = promote_dtypes_inexact(jnp.asarray(a), jnp.asarray(c))
    if mode not in ("right", "left"):
        raise ShardcValueError(f"mode must be 'right' or 'left', got {mode!r}")

    onedim = c.ndim == 1
    if onedim:
        c = c[:, None] if mode == "left" else c[None, :]

    m, n = a.shape[-2:]
    k = min(m, n)

    if mode == "left":
        if c.shape[-2] != k:
            raise ShardcValueError(
                f"Array shapes are not compatible for Q @ c operation: "
                f"a has shape {tuple(a.shape)} so Q has {k} columns, "
                f"but c has {c.shape[-2]} rows (expected {k})."
            )
    else:
        if c.shape[-1] != m:
            raise ShardcValueError(
                f"Array shapes are not compatible for c @ Q operation: "
                f"a has shape {tuple(a.shape)} so Q has {m} rows, "
                f"but c has {c.shape[-1]} columns (expected {m})."
            )

    batch = jnp.broadcast_shapes(a.shape[:-2], c.shape[:-2])
    a = jnp.broadcast_to(a, batch + a.shape[-2:])
    c = jnp.broadcast_to(c, batch + c.shape[-2:])

    p: Array | None = None
    if pivoting:  # (LAPACK's geqp3: shardc's qr has no column pivoting yet)
        raise ShardcNotImplementedError("qr_multiply(pivoting=True) (LAPACK's geqp3) is not implemented in shardc yet")
    # JAX applies geqrf's Householder reflectors with ormqr; shardc forms Q (geqrf + orgqr) and multiplies
    q, r = lax_linalg.qr(a, full_matrices=True)

    if m > n and mode == "left":
        zeros = jnp.zeros(c.shape[:-2] + (m - k,) + c.shape[-1:], dtype=c.dtype)
        c = jnp.concatenate([c, zeros], axis=-2)

    if conjugate:
        # Avoid explicit jnp.conj call by instead transposing (for free under jit)
        # and telling LAPACK to compute Hermitian
        c = c.swapaxes(-1, -2)

    # conjugate swaps left/right because c and Q change sides when transposing.
    left = (mode == "left") != conjugate
    qh = jnp.conj(q.mT) if conjugate else q
    cQ = (
        jnp.matmul(qh, c, precision=lax.Precision.HIGHEST)
        if left
        else jnp.matmul(c, qh, precision=lax.Precision.HIGHEST)
    )

    if conjugate:
        cQ = cQ.swapaxes(-1, -2)

    if mode == "right":
        cQ = cQ[..., :k]

    if onedim:
        cQ = cQ.ravel()

    r = jnp.triu(r[..., :k, :])

    if pivoting:
        assert p is not None
        return cQ, r, p
    return cQ, r


@jit(static_argnames=("assume_a", "lower"))
def _solve(a: ArrayLike, b: ArrayLike, assume_a: str, lower: bool) -> Array:
    if assume_a != "pos":
        return jnp_linalg.solve(a, b)

    a, b = promote_dtypes_inexact(jnp.asarray(a), jnp.asarray(b))
    _check_solve_shapes(a, b)

    # With custom_linear_solve, we can reuse the same factorization when
    # computing sensitivities. This is considerably faster.
    factors = cho_factor(lax.stop_gradient(a), lower=lower)
    custom_solve = partial(
        lax.custom_linear_solve,
        lambda x: _broadcasted_matvec(a, x),
        solve=lambda _, x: cho_solve(factors, x),
        symmetric=True,
    )
    if a.ndim == b.ndim + 1:
        # b.shape == [..., m]
        return custom_solve(b)
    else:
        # b.shape == [..., m, k]
        return vmap(custom_solve, b.ndim - 1, max(a.ndim, b.ndim) - 1)(b)


def solve(
    a: ArrayLike,
    b: ArrayLike,
    lower: bool = False,
    overwrite_a: bool = False,
    overwrite_b: bool = False,
    debug: bool = False,
    check_finite: bool = True,
    assume_a: str = "gen",
) -> Array:
    """Solve a linear system of equations."""
    del overwrite_a, overwrite_b, debug, check_finite  # unused
    valid_assume_a = ["gen", "sym", "her", "pos"]
    if assume_a not in valid_assume_a:
        raise ShardcValueError(f"Expected assume_a to be one of {valid_assume_a}; got {assume_a!r}")
    return _solve(a, b, assume_a, lower)


@jit(static_argnames=("upper_triangular", "max_squarings"))
def expm(A: ArrayLike, *, upper_triangular: bool = False, max_squarings: int = 16) -> Array:
    """Compute the matrix exponential"""
    (A,) = promote_dtypes_inexact(A)

    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise ShardcValueError(f"Expected A to be a (batched) square matrix, got {A.shape=}.")

    if A.ndim > 2:
        return vectorize(
            partial(expm, upper_triangular=upper_triangular, max_squarings=max_squarings), signature="(n,n)->(n,n)"
        )(A)

    P, Q, n_squarings = _calc_P_Q(jnp.asarray(A))

    def _nan(args):
        A, *_ = args
        return jnp.full_like(A, np.nan)

    def _compute(args):
        A, P, Q = args
        R = _solve_P_Q(P, Q, upper_triangular)
        R = _squaring(R, n_squarings, max_squarings)
        return R

    R = lax.cond(n_squarings > max_squarings, _nan, _compute, (A, P, Q))
    return R


@jit
def _calc_P_Q(A: Array) -> tuple[Array, Array, Array]:
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ShardcValueError("expected A to be a square matrix")
    A_L1 = jnp_linalg.norm(A, 1)
    n_squarings: Array
    U: Array
    V: Array
    if A.dtype == "float64" or A.dtype == "complex128":
        maxnorm = 5.371920351148152
        n_squarings = jnp.maximum(0, jnp.floor(jnp.log2(A_L1 / maxnorm)))
        A = A / 2 ** n_squarings.astype(A.dtype)
        conds = jnp.array(
            [1.495585217958292e-002, 2.539398330063230e-001, 9.504178996162932e-001, 2.097847961257068e000],
            dtype=A_L1.dtype,
        )
        idx = jnp.digitize(A_L1, conds)
        U, V = lax.switch(idx, [_pade3, _pade5, _pade7, _pade9, _pade13], A)
    elif A.dtype == "float32" or A.dtype == "complex64":
        maxnorm = 3.925724783138660
        n_squarings = jnp.maximum(0, jnp.floor(jnp.log2(A_L1 / maxnorm)))
        A = A / 2 ** n_squarings.astype(A.dtype)
        conds = jnp.array([4.258730016922831e-001, 1.880152677804762e000], dtype=A_L1.dtype)
        idx = jnp.digitize(A_L1, conds)
        U, V = lax.switch(idx, [_pade3, _pade5, _pade7], A)
    else:
        raise ShardcTypeError(f"A.dtype={A.dtype} is not supported.")
    P = U + V  # p_m(A) : numerator
    Q = -U + V  # q_m(A) : denominator
    return P, Q, n_squarings


def _solve_P_Q(P: ArrayLike, Q: ArrayLike, upper_triangular: bool = False) -> Array:
    if upper_triangular:
        return solve_triangular(Q, P)
    else:
        return jnp_linalg.solve(Q, P)


def _precise_dot(A: ArrayLike, B: ArrayLike) -> Array:
    return jnp.dot(A, B, precision=lax.Precision.HIGHEST)


@jit(static_argnums=2)
def _squaring(R: Array, n_squarings: Array, max_squarings: int) -> Array:
    # squaring step to undo scaling
    def _squaring_precise(x):
        return _precise_dot(x, x)

    def _identity(x):
        return x

    def _scan_f(c, i):
        return lax.cond(i < n_squarings, _squaring_precise, _identity, c), None

    res, _ = lax.scan(_scan_f, R, jnp.arange(max_squarings, dtype=n_squarings.dtype))

    return res


def _pade3(A: Array) -> tuple[Array, Array]:
    b = (120.0, 60.0, 12.0, 1.0)
    M, N = A.shape
    ident = jnp.eye(M, N, dtype=A.dtype)
    A2 = _precise_dot(A, A)
    U = _precise_dot(A, (b[3] * A2 + b[1] * ident))
    V: Array = b[2] * A2 + b[0] * ident
    return U, V


def _pade5(A: Array) -> tuple[Array, Array]:
    b = (30240.0, 15120.0, 3360.0, 420.0, 30.0, 1.0)
    M, N = A.shape
    ident = jnp.eye(M, N, dtype=A.dtype)
    A2 = _precise_dot(A, A)
    A4 = _precise_dot(A2, A2)
    U = _precise_dot(A, b[5] * A4 + b[3] * A2 + b[1] * ident)
    V: Array = b[4] * A4 + b[2] * A2 + b[0] * ident
    return U, V


def _pade7(A: Array) -> tuple[Array, Array]:
    b = (17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0, 1.0)
    M, N = A.shape
    ident = jnp.eye(M, N, dtype=A.dtype)
    A2 = _precise_dot(A, A)
    A4 = _precise_dot(A2, A2)
    A6 = _precise_dot(A4, A2)
    U = _precise_dot(A, b[7] * A6 + b[5] * A4 + b[3] * A2 + b[1] * ident)
    V = b[6] * A6 + b[4] * A4 + b[2] * A2 + b[0] * ident
    return U, V


def _pade9(A: Array) -> tuple[Array, Array]:
    b = (17643225600.0, 8821612800.0, 2075673600.0, 302702400.0, 30270240.0, 2162160.0, 110880.0, 3960.0, 90.0, 1.0)
    M, N = A.shape
    ident = jnp.eye(M, N, dtype=A.dtype)
    A2 = _precise_dot(A, A)
    A4 = _precise_dot(A2, A2)
    A6 = _precise_dot(A4, A2)
    A8 = _precise_dot(A6, A2)
    U = _precise_dot(A, b[9] * A8 + b[7] * A6 + b[5] * A4 + b[3] * A2 + b[1] * ident)
    V = b[8] * A8 + b[6] * A6 + b[4] * A4 + b[2] * A2 + b[0] * ident
    return U, V


def _pade13(A: Array) -> tuple[Array, Array]:
    b = (
        64764752532480000.0,
        32382376266240000.0,
        7771770303897600.0,
        1187353796428800.0,
        129060195264000.0,
        10559470521600.0,
        670442572800.0,
        33522128640.0,
        1323241920.0,
        40840800.0,
        960960.0,
        16380.0,
        182.0,
        1.0,
    )
    M, N = A.shape
    ident = jnp.eye(M, N, dtype=A.dtype)
    A2 = _precise_dot(A, A)
    A4 = _precise_dot(A2, A2)
    A6 = _precise_dot(A4, A2)
    U = _precise_dot(
        A, _precise_dot(A6, b[13] * A6 + b[11] * A4 + b[9] * A2) + b[7] * A6 + b[5] * A4 + b[3] * A2 + b[1] * ident
    )
    V = _precise_dot(A6, b[12] * A6 + b[10] * A4 + b[8] * A2) + b[6] * A6 + b[4] * A4 + b[2] * A2 + b[0] * ident
    return U, V


@jit(static_argnames=("method", "compute_expm"))
def expm_frechet(
    A: ArrayLike, E: ArrayLike, *, method: str | None = None, compute_expm: bool = True
) -> Array | tuple[Array, Array]:
    """Compute the Frechet derivative of the matrix exponential."""
    del method  # unused
    A_arr = jnp.asarray(A)
    E_arr = jnp.asarray(E)
    if A_arr.ndim < 2 or A_arr.shape[-2] != A_arr.shape[1]:
        raise ShardcValueError(f"expected A to be a (batched) square matrix, got A.shape={A_arr.shape}")
    if E_arr.ndim < 2 or E_arr.shape[-2] != E_arr.shape[-1]:
        raise ShardcValueError(f"expected E to be a (batched) square matrix, got E.shape={E_arr.shape}")
    if A_arr.shape != E_arr.shape:
        raise ShardcValueError(
            f"expected A and E to be the same shape, got A.shape={A_arr.shape} E.shape={E_arr.shape}"
        )
    bound_fun = partial(expm, upper_triangular=False, max_squarings=16)
    expm_A, expm_frechet_AE = jvp(bound_fun, (A_arr,), (E_arr,))
    if compute_expm:
        return expm_A, expm_frechet_AE
    else:
        return expm_frechet_AE


@jit
def block_diag(*arrs: ArrayLike) -> Array:
    """Create a block diagonal matrix from input arrays."""
    if len(arrs) == 0:
        arrs = (jnp.zeros((1, 0)),)
    arrs = tuple(promote_dtypes(*arrs))
    bad_shapes = [i for i, a in enumerate(arrs) if np.ndim(a) > 2]
    if bad_shapes:
        raise ShardcValueError(
            "Arguments to jax.scipy.linalg.block_diag must have at most 2 dimensions, got {} at argument {}.".format(
                arrs[bad_shapes[0]], bad_shapes[0]
            )
        )
    converted_arrs = [jnp.atleast_2d(a) for a in arrs]
    dtype = lax.dtype(converted_arrs[0])
    total_cols = sum(a.shape[1] for a in converted_arrs)

    padded_arrs = []
    current_col = 0
    for arr in converted_arrs:
        cols = arr.shape[1]
        padding_config = ((0, 0, 0), (current_col, total_cols - cols - current_col, 0))
        padded_arrs.append(lax.pad(arr, dtype.type(0), padding_config))
        current_col += cols
    return jnp.concatenate(padded_arrs, axis=0)


@jit(static_argnames=("eigvals_only", "select", "select_range"))
def eigh_tridiagonal(
    d: ArrayLike,
    e: ArrayLike,
    *,
    eigvals_only: bool = False,
    select: str = "a",
    select_range: tuple[float, float] | None = None,
    tol: float | None = None,
    key: Array | None = None,
) -> Array | tuple[Array, Array]:
    """Solve the eigenvalue problem for a symmetric real tridiagonal matrix"""
    if not eigvals_only and key is None:
        key = random.key(42)

    def _sturm(alpha, beta_sq, pivmin, alpha0_perturbation, x):
        """Implements the Sturm sequence recurrence."""
        n = alpha.shape[0]
        zeros = jnp.zeros(x.shape, dtype=np.int32)
        ones = jnp.ones(x.shape, dtype=np.int32)

        # The first step in the Sturm sequence recurrence
        # requires special care if x is equal to alpha[0].
        def sturm_step0():
            q = alpha[0] - x
            count = jnp.where(q < 0, ones, zeros)
            q = jnp.where(alpha[0] == x, alpha0_perturbation, q)
            return q, count

        # Subsequent steps all take this form:
        def sturm_step(i, q, count):
            q = alpha[i] - beta_sq[i - 1] / q - x
            count = jnp.where(q <= pivmin, count + 1, count)
            q = jnp.where(q <= pivmin, jnp.minimum(q, -pivmin), q)
            return q, count

        # The first step initializes q and count.
        q, count = sturm_step0()

        # Peel off ((n-1) % blocksize) steps from the main loop, so we can run
        # the bulk of the iterations unrolled by a factor of blocksize.
        blocksize = 16
        i = 1
        peel = (n - 1) % blocksize
        unroll_cnt = peel

        def unrolled_steps(args):
            start, q, count = args
            for j in range(unroll_cnt):
                q, count = sturm_step(start + j, q, count)
            return start + unroll_cnt, q, count

        i, q, count = unrolled_steps((i, q, count))

        # Run the remaining steps of the Sturm sequence using a partially
        # unrolled while loop.
        unroll_cnt = blocksize

        def cond(iqc):
            i, q, count = iqc
            return jnp.less(i, n)

        _, _, count = lax.while_loop(cond, unrolled_steps, (i, q, count))
        return count

    alpha = jnp.asarray(d)
    beta = jnp.asarray(e)
    supported_dtypes = (np.float32, np.float64, np.complex64, np.complex128)
    if alpha.dtype != beta.dtype:
        raise ShardcTypeError(
            f"diagonal and off-diagonal values must have same dtype, got {alpha.dtype} and {beta.dtype}"
        )
    if alpha.dtype not in supported_dtypes or beta.dtype not in supported_dtypes:
        raise ShardcTypeError(
            "Only float32 and float64 inputs are supported as inputs "
            "to jax.scipy.linalg.eigh_tridiagonal, got "
            f"{alpha.dtype} and {beta.dtype}"
        )
    n = alpha.shape[0]
    if n <= 1:
        if eigvals_only:
            return jnp.real(alpha)
        else:
            return jnp.real(alpha), jnp.eye(n, dtype=alpha.dtype)

    if jnp.issubdtype(alpha.dtype, np.complexfloating):
        alpha = jnp.real(alpha)
        beta_sq = jnp.real(beta * jnp.conj(beta))
        beta_abs = jnp.sqrt(beta_sq)
    else:
        beta_abs = jnp.abs(beta)
        beta_sq = jnp.square(beta)

    # Estimate the largest and smallest eigenvalues of T using the Gershgorin
    # circle theorem.
    off_diag_abs_row_sum = jnp.concatenate([beta_abs[:1], beta_abs[:-1] + beta_abs[1:], beta_abs[-1:]], axis=0)
    lambda_est_max = jnp.amax(alpha + off_diag_abs_row_sum)
    lambda_est_min = jnp.amin(alpha - off_diag_abs_row_sum)
    # Upper bound on 2-norm of T.
    t_norm = jnp.maximum(jnp.abs(lambda_est_min), jnp.abs(lambda_est_max))

    # Compute the smallest allowed pivot in the Sturm sequence to avoid
    # overflow.
    finfo = np.finfo(alpha.dtype)
    one = np.ones([], dtype=alpha.dtype)
    safemin = np.maximum(one / finfo.max, (one + finfo.eps) * finfo.tiny)
    pivmin = safemin * jnp.maximum(1, jnp.amax(beta_sq))
    alpha0_perturbation = jnp.square(finfo.eps * beta_abs[0])
    abs_tol = finfo.eps * t_norm
    if tol is not None:
        abs_tol = jnp.maximum(tol, abs_tol)

    # In the worst case, when the absolute tolerance is eps*lambda_est_max and
    # lambda_est_max = -lambda_est_min, we have to take as many bisection steps
    # as there are bits in the mantissa plus 1.
    # The proof is left as an exercise to the reader.
    max_it = finfo.nmant + 1

    # Determine the indices of the desired eigenvalues, based on select and
    # select_range.
    if select == "a":
        target_counts = jnp.arange(n, dtype=np.int32)
    elif select == "i":
        if select_range is None:
            raise ShardcValueError("for select='i', select_range must be specified.")
        if select_range[0] > select_range[1]:
            raise ShardcValueError("Got empty index range in select_range.")
        target_counts = jnp.arange(select_range[0], select_range[1] + 1, dtype=np.int32)
    elif select == "v":
        # TODO(phawkins): requires dynamic shape support.
        raise ShardcNotImplementedError("eigh_tridiagonal(..., select='v') is not implemented")
    else:
        raise ShardcValueError("'select must have a value in {'a', 'i', 'v'}.")

    # Run binary search for all desired eigenvalues in parallel, starting from
    # the interval lightly wider than the estimated
    # [lambda_est_min, lambda_est_max].
    fudge = 2.1  # We widen starting interval the Gershgorin interval a bit.
    norm_slack = jnp.array(n, alpha.dtype) * fudge * finfo.eps * t_norm
    lower = lambda_est_min - norm_slack - 2 * fudge * pivmin
    upper = lambda_est_max + norm_slack + fudge * pivmin

    # Pre-broadcast the scalars used in the Sturm sequence for improved
    # performance.
    target_shape = np.shape(target_counts)
    lower = jnp.broadcast_to(lower, shape=target_shape)
    upper = jnp.broadcast_to(upper, shape=target_shape)
    mid = 0.5 * (upper + lower)
    pivmin = jnp.broadcast_to(pivmin, target_shape)
    alpha0_perturbation = jnp.broadcast_to(alpha0_perturbation, target_shape)

    # Start parallel binary searches.
    def cond(args):
        i, lower, _, upper = args
        return jnp.logical_and(jnp.less(i, max_it), jnp.less(abs_tol, jnp.amax(upper - lower)))

    def body(args):
        i, lower, mid, upper = args
        counts = _sturm(alpha, beta_sq, pivmin, alpha0_perturbation, mid)
        lower = jnp.where(counts <= target_counts, mid, lower)
        upper = jnp.where(counts > target_counts, mid, upper)
        mid = 0.5 * (lower + upper)
        return i + 1, lower, mid, upper

    def _compute_eigenvectors(alpha, beta, eigvals, key):
        """Implements inverse iteration to compute eigenvectors."""
        n = alpha.shape[0]
        k = eigvals.shape[0]

        # Pad beta to length n
        dl = jnp.pad(jnp.conj(beta), (1, 0))
        du = jnp.pad(beta, (0, 1))

        # Eigenvectors corresponding to cluster of close eigenvalues are
        # not unique and need to be explicitly orthogonalized. Here we
        # identify such clusters. Note: This function assumes that
        # eigenvalues are sorted in non-decreasing order.
        gap = eigvals[1:] - eigvals[:-1]
        eps = np.finfo(eigvals.dtype).eps
        t_norm = jnp.maximum(jnp.abs(eigvals[0]), jnp.abs(eigvals[-1]))
        gaptol = jnp.sqrt(eps) * t_norm

        # Find the beginning and end of runs of eigenvectors corresponding
        # to eigenvalues closer than "gaptol", which will need to be
        # orthogonalized against each other.
        close = gap < gaptol
        left_neighbor_close = jnp.pad(close, (1, 0), constant_values=False)
        right_neighbor_close = jnp.pad(close, (0, 1), constant_values=False)

        ortho_interval_start = jnp.logical_and(jnp.logical_not(left_neighbor_close), right_neighbor_close)
        ortho_interval_end = jnp.logical_and(left_neighbor_close, jnp.logical_not(right_neighbor_close))

        max_clusters = k // 2 + 1
        starts = jnp.nonzero(ortho_interval_start, size=max_clusters)[0]
        ends = jnp.nonzero(ortho_interval_end, size=max_clusters)[0] + 1
        num_clusters = jnp.sum(ortho_interval_start)

        arange_k = jnp.arange(k)

        solve_dtype = np.result_type(alpha.dtype, beta.dtype)
        base_dtype = np.finfo(solve_dtype).dtype
        # We perform inverse iteration for all eigenvectors in parallel,
        # starting from a random set of vectors, until all have converged.
        v = random.normal(key, (k, n), dtype=base_dtype).astype(solve_dtype)
        v = v / jnp.linalg.norm(v, axis=-1, keepdims=True).astype(solve_dtype)

        def orthogonalize_close_eigenvectors(ev):
            # Eigenvectors corresponding to a cluster of close eigenvalues are not
            # uniquely defined, but the subspace they span is. To avoid numerical
            # instability, we explicitly mutually orthogonalize such eigenvectors
            # after each step of inverse iteration. It is customary to use
            # modified Gram-Schmidt for this, but this is not very efficient
            # on some platforms, so here we defer to the QR decomposition in JAX.
            def orthogonalize_cluster(i, ev):
                start = starts[i]
                end = ends[i]
                c = end - start

                ev_padded = jnp.pad(ev, ((0, k), (0, 0)))
                v_block = lax.dynamic_slice(ev_padded, (start, 0), (k, n))

                mask = (arange_k < c).astype(ev.dtype)
                v_block_masked = v_block * mask[:, None]

                # We use the builtin QR factorization to orthonormalize the
                # vectors in the cluster.
                Q, _ = jnp_linalg.qr(v_block_masked.T)

                QT = Q.T
                QT_masked = QT * mask[:, None]

                big_zeros = jnp.zeros((2 * k, n), dtype=ev.dtype)
                big_update = lax.dynamic_update_slice(big_zeros, QT_masked, (start, 0))
                update_full = big_update[:k, :]

                is_in_cluster = (arange_k >= start) & (arange_k < end)
                ev = jnp.where(is_in_cluster[:, None], update_full, ev)

                return ev

            ev = lax.fori_loop(0, num_clusters, orthogonalize_cluster, ev)
            return ev

        # Replicate alpha-shifted and beta across the k eigenvectors so we
        # can solve the k systems
        #    [T - eigvals(i)*eye(n)] x_i = r_i
        # simultaneously using the batching mechanism.
        alpha_shifted = alpha[None, :] - eigvals[:, None]
        dl_batched = jnp.broadcast_to(dl[None, :], (k, n))
        du_batched = jnp.broadcast_to(du[None, :], (k, n))

        def inverse_iteration_step(state):
            i, v, nrm_v, nrm_v_old = state

            v_new = lax_linalg.tridiagonal_solve(
                dl_batched.astype(solve_dtype),
                alpha_shifted.astype(solve_dtype),
                du_batched.astype(solve_dtype),
                v[:, :, None].astype(solve_dtype),
                perturb_singular=True,
            )
            v_new = jnp.squeeze(v_new, axis=-1)

            nrm_v_new = jnp.linalg.norm(v_new, axis=-1, keepdims=True)
            v_new = v_new / nrm_v_new.astype(v_new.dtype)
            nrm_v_new = jnp.squeeze(nrm_v_new, axis=-1)

            v_new = orthogonalize_close_eigenvectors(v_new)

            return i + 1, v_new, nrm_v_new, nrm_v

        def continue_iteration(state):
            i, _, nrm_v, nrm_v_old = state
            max_it = 5  # Taken from LAPACK xSTEIN.
            min_norm_growth = 0.1
            norm_growth_factor = 1 + min_norm_growth
            # We stop the inverse iteration when we reach the maximum number of
            # iterations or the norm growths is less than 10%.
            return jnp.logical_and(i < max_it, jnp.any(nrm_v >= norm_growth_factor * nrm_v_old))

        _, v_final, _, _ = lax.while_loop(
            continue_iteration,
            inverse_iteration_step,
            (0, v, jnp.ones(k, dtype=eigvals.dtype), jnp.zeros(k, dtype=eigvals.dtype)),
        )

        return v_final

    _, _, mid, _ = lax.while_loop(cond, body, (0, lower, mid, upper))

    if eigvals_only:
        return mid

    eigenvectors = _compute_eigenvectors(alpha, beta, mid, key)
    return mid, eigenvectors.T


@jit(static_argnames=("side", "method"))
def _polar_2d(a: Array, side: str, method: str, eps: float | None, max_iterations: int | None) -> tuple[Array, Array]:
    m, n = a.shape
    if method == "qdwh":
        # TODO(phawkins): return info also if the user opts in?
        if m >= n and side == "right":
            unitary, posdef, _, _ = lax.linalg.qdwh(a, is_hermitian=False, eps=eps)
        elif m < n and side == "left":
            a = a.T.conj()
            unitary, posdef, _, _ = lax.linalg.qdwh(a, is_hermitian=False, eps=eps)
            posdef = posdef.T.conj()
            unitary = unitary.T.conj()
        else:
            raise ShardcNotImplementedError(
                "method='qdwh' only supports mxn matrices "
                "where m < n where side='right' and m >= n "
                f"side='left', got {a.shape} with {side=}"
            )
    elif method == "svd":
        u_svd, s_svd, vh_svd = lax_linalg.svd(a, full_matrices=False)
        s_svd = s_svd.astype(u_svd.dtype)
        unitary = u_svd @ vh_svd
        if side == "right":
            posdef = (vh_svd.T.conj() * s_svd[None, :]) @ vh_svd
        else:
            posdef = (u_svd * s_svd[None, :]) @ (u_svd.T.conj())
    else:
        raise ShardcValueError(f"Unknown polar decomposition method {method}.")
    return unitary, posdef


@jit(static_argnames=("side", "method"))
def polar(
    a: ArrayLike,
    side: str = "right",
    *,
    method: str = "qdwh",
    eps: float | None = None,
    max_iterations: int | None = None,
) -> tuple[Array, Array]:
    """Computes the polar decomposition."""
    arr = jnp.asarray(a)
    if arr.ndim < 2:
        raise ShardcValueError("The input `a` must be at least a 2-D array.")

    if side not in ["right", "left"]:
        raise ShardcValueError("The argument `side` must be either 'right' or 'left'.")

    sig = "(m,n)->(m,n),(n,n)" if side == "right" else "(m,n)->(m,n),(m,m)"
    return vectorize(
        partial(_polar_2d, side=side, method=method, eps=eps, max_iterations=max_iterations), signature=sig
    )(arr)


@jit
def _sqrtm_triu(T: Array) -> Array:
    """Implements Björck, Å., & Hammarling, S. (1983)."""
    diag = jnp.sqrt(jnp.diag(T))
    n = diag.size
    U = jnp.diag(diag)

    def i_loop(l, data):
        j, U = data
        i = j - 1 - l
        s = lax.fori_loop(i + 1, j, lambda k, val: val + U[i, k] * U[k, j], 0.0)
        value = jnp.where(T[i, j] == s, 0.0, (T[i, j] - s) / (diag[i] + diag[j]))
        return j, U.at[i, j].set(value)

    def j_loop(j, U):
        _, U = lax.fori_loop(0, j, i_loop, (j, U))
        return U

    U = lax.fori_loop(0, n, j_loop, U)
    return U


@jit
def _sqrtm(A: ArrayLike) -> Array:
    T, Z = schur(A, output="complex")
    sqrt_T = _sqrtm_triu(T)
    return jnp.matmul(
        jnp.matmul(Z, sqrt_T, precision=lax.Precision.HIGHEST), jnp.conj(Z.T), precision=lax.Precision.HIGHEST
    )


def sqrtm(A: ArrayLike, blocksize: int = 1) -> Array:
    """Compute the matrix square root"""
    if blocksize > 1:
        raise ShardcNotImplementedError("Blocked version is not implemented yet.")
    return _sqrtm(A)


@jit
def _rsf2csf_2d(T: Array, Z: Array) -> tuple[Array, Array]:
    T, Z = promote_dtypes_complex(T, Z)
    eps = jnp.finfo(T.dtype).eps
    N = T.shape[0]

    if N == 1:
        return T, Z

    def _update_T_Z(m, T, Z):
        mu = jnp_linalg.eigvals(lax.dynamic_slice(T, (m - 1, m - 1), (2, 2))) - T[m, m]
        r = jnp_linalg.norm(jnp.array([mu[0], T[m, m - 1]])).astype(T.dtype)
        c = mu[0] / r
        s = T[m, m - 1] / r
        G = jnp.array([[c.conj(), s], [-s, c]], dtype=T.dtype)

        T_rows = lax.dynamic_slice_in_dim(T, m - 1, 2, axis=0)
        col_mask = jnp.arange(N) >= m - 1
        G_dot_T_zeroed_cols = G @ jnp.where(col_mask, T_rows, 0)
        T_rows_new = jnp.where(~col_mask, T_rows, G_dot_T_zeroed_cols)
        T = lax.dynamic_update_slice_in_dim(T, T_rows_new, m - 1, axis=0)

        T_cols = lax.dynamic_slice_in_dim(T, m - 1, 2, axis=1)
        row_mask = jnp.arange(N)[:, np.newaxis] < m + 1
        T_zeroed_rows_dot_GH = jnp.where(row_mask, T_cols, 0) @ G.conj().T
        T_cols_new = jnp.where(~row_mask, T_cols, T_zeroed_rows_dot_GH)
        T = lax.dynamic_update_slice_in_dim(T, T_cols_new, m - 1, axis=1)

        Z_cols = lax.dynamic_slice_in_dim(Z, m - 1, 2, axis=1)
        Z = lax.dynamic_update_slice_in_dim(Z, Z_cols @ G.conj().T, m - 1, axis=1)
        return T, Z

    def _rsf2csf_iter(i, TZ):
        m = N - i
        T, Z = TZ
        T, Z = lax.cond(
            jnp.abs(T[m, m - 1]) > eps * (jnp.abs(T[m - 1, m - 1]) + jnp.abs(T[m, m])),
            _update_T_Z,
            lambda m, T, Z: (T, Z),
            m,
            T,
            Z,
        )
        T = T.at[m, m - 1].set(0.0)
        return T, Z

    return lax.fori_loop(1, N, _rsf2csf_iter, (T, Z))


@jit(static_argnames=("check_finite",))
def rsf2csf(T: ArrayLike, Z: ArrayLike, check_finite: bool = True) -> tuple[Array, Array]:
    """Convert real Schur form to complex Schur form."""
    del check_finite  # unused

    T_arr = jnp.asarray(T)
    Z_arr = jnp.asarray(Z)

    if T_arr.ndim < 2 or T_arr.shape[-1] != T_arr.shape[-2]:
        raise ShardcValueError("Input 'T' must be square.")
    if Z_arr.ndim < 2 or Z_arr.shape[-1] != Z_arr.shape[-2]:
        raise ShardcValueError("Input 'Z' must be square.")
    if T_arr.shape[-1] != Z_arr.shape[-1]:
        raise ShardcValueError(f"Input array shapes must match: Z: {Z_arr.shape} vs. T: {T_arr.shape}")

    return vectorize(_rsf2csf_2d, signature="(n,n),(n,n)->(n,n),(n,n)")(T_arr, Z_arr)


@jit(static_argnames=("calc_q", "check_finite", "overwrite_a"))
def hessenberg(
    a: ArrayLike, *, calc_q: bool = False, overwrite_a: bool = False, check_finite: bool = True
) -> Array | tuple[Array, Array]:
    """Compute the Hessenberg form of the matrix"""
    del overwrite_a, check_finite  # unused
    n = np.shape(a)[-1]
    if n == 0:
        if calc_q:
            return jnp.zeros_like(a), jnp.zeros_like(a)
        else:
            return jnp.zeros_like(a)
    a_out, taus = lax_linalg.hessenberg(a)
    h = jnp.triu(a_out, -1)
    if calc_q:
        q = lax_linalg.householder_product(a_out[..., 1:, :-1], taus)
        batch_dims = a_out.shape[:-2]
        q = jnp.block(
            [
                [
                    jnp.ones(batch_dims + (1, 1), dtype=a_out.dtype),
                    jnp.zeros(batch_dims + (1, n - 1), dtype=a_out.dtype),
                ],
                [jnp.zeros(batch_dims + (n - 1, 1), dtype=a_out.dtype), q],
            ]
        )
        return h, q
    else:
        return h


def toeplitz(c: ArrayLike, r: ArrayLike | None = None) -> Array:
    """Construct a Toeplitz matrix."""
    if r is None:
        check_arraylike("toeplitz", c)
        r = jnp.conjugate(jnp.asarray(c))
    else:
        check_arraylike("toeplitz", c, r)
    return _toeplitz(jnp.atleast_1d(jnp.asarray(c)), jnp.atleast_1d(jnp.asarray(r)))


@partial(vectorize, signature="(m),(n)->(m,n)")
def _toeplitz(c: Array, r: Array) -> Array:
    (ncols,) = c.shape
    (nrows,) = r.shape
    if ncols == 0 or nrows == 0:
        return jnp.empty((ncols, nrows), dtype=jnp.promote_types(c.dtype, r.dtype))
    nelems = ncols + nrows - 1
    elems = jnp.concatenate((c[::-1], r[1:]))
    patches = lax.conv_general_dilated_patches(
        elems.reshape((1, nelems, 1)),
        (nrows,),
        (1,),
        "VALID",
        dimension_numbers=("NTC", "IOT", "NTC"),
        precision=lax.Precision.HIGHEST,
    )[0]
    return jnp.flip(patches, axis=0)


def hankel(c: ArrayLike, r: ArrayLike | None = None) -> Array:
    """Construct a Hankel matrix."""
    if r is None:
        check_arraylike("hankel", c)
        c = jnp.asarray(c)
        r = jnp.zeros_like(c)
    else:
        check_arraylike("hankel", c, r)
        c = jnp.asarray(c)
        r = jnp.asarray(r)
    if c.ndim == 0:
        raise ShardcValueError("hankel: c must be at least 1-dimensional, got a scalar.")
    if r.ndim == 0:
        raise ShardcValueError("hankel: r must be at least 1-dimensional, got a scalar.")

    # Align batch ranks so jnp.vectorize doesn't need implicit rank promotion.
    if c.ndim < r.ndim:
        c = lax.expand_dims(c, range(r.ndim - c.ndim))
    elif r.ndim < c.ndim:
        r = lax.expand_dims(r, range(c.ndim - r.ndim))

    return _hankel(c, r)


@partial(vectorize, signature="(m),(n)->(m,n)")
def _hankel(c: Array, r: Array) -> Array:
    (ncols,) = c.shape
    (nrows,) = r.shape
    if ncols == 0 or nrows == 0:
        return jnp.empty((ncols, nrows), dtype=jnp.result_type(c, r))
    v = jnp.concatenate((c, r[1:]))
    return lax.conv_general_dilated_patches(
        v.reshape((1, ncols + nrows - 1, 1)),
        (nrows,),
        (1,),
        "VALID",
        dimension_numbers=("NTC", "IOT", "NTC"),
        precision=lax.Precision.HIGHEST,
    )[0]


def circulant(c: ArrayLike) -> Array:
    """Construct a circulant matrix."""
    check_arraylike("circulant", c)
    return _circulant(jnp.atleast_1d(jnp.asarray(c)))


@partial(vectorize, signature="(n)->(n,n)")
def _circulant(c: Array) -> Array:
    (n,) = c.shape
    idx = (jnp.arange(n)[:, None] - jnp.arange(n)[None, :]) % n
    return c[idx]


def leslie(f: ArrayLike, s: ArrayLike) -> Array:
    """Construct a Leslie matrix."""
    check_arraylike("leslie", f, s)
    f_arr = jnp.atleast_1d(f)
    s_arr = jnp.atleast_1d(s)
    if f_arr.shape[-1] < 2:
        raise ShardcValueError(f"The length of f along the last axis must be at least 2; got shape {f_arr.shape}.")
    if s_arr.shape[-1] != f_arr.shape[-1] - 1:
        raise ShardcValueError(
            "Incorrect lengths for f and s. The length of s along the last axis "
            f"must be one less than the length of f; got f shape {f_arr.shape} "
            f"and s shape {s_arr.shape}."
        )
    return _leslie(f_arr, s_arr)


@partial(vectorize, signature="(n),(m)->(n,n)")
def _leslie(f: Array, s: Array) -> Array:
    f, s = promote_dtypes(f, s)
    return jnp.diag(s, k=-1).at[0].set(f)


def companion(a: ArrayLike) -> Array:
    """Construct a companion matrix."""
    (a,) = promote_args_inexact("companion", a)
    a = jnp.atleast_1d(a)
    if a.shape[-1] < 2:
        raise ShardcValueError(f"The length of `a` along the last axis must be at least 2; got shape {a.shape}.")
    return _companion(a)


@partial(vectorize, signature="(n)->(m,m)")
def _companion(a: Array) -> Array:
    first_row = -a[1:] / a[0]
    m = a.shape[0] - 1
    out = jnp.eye(m, m, k=-1, dtype=first_row.dtype)
    return out.at[0].set(first_row)


def fiedler(a: ArrayLike) -> Array:
    """Construct a symmetric Fiedler matrix."""
    check_arraylike("fiedler", a)
    arr = jnp.atleast_1d(a)
    return jnp.abs(arr[..., None] - arr[..., None, :])


def fiedler_companion(a: ArrayLike) -> Array:
    """Construct a Fiedler companion matrix."""
    (a,) = promote_args_inexact("fiedler_companion", a)
    a = jnp.atleast_1d(a)
    if a.shape[-1] == 0:
        raise ShardcValueError(
            "fiedler_companion requires the last axis of 'a' to have nonzero "
            f"length, but got an array of shape {a.shape}."
        )
    return _fiedler_companion(a)


@partial(vectorize, signature="(n)->(m,m)")
def _fiedler_companion(a: Array) -> Array:
    n = a.shape[0] - 1
    if n == 0:
        return jnp.empty_like(a, shape=(0, 0))
    a = a / a[0]
    if n == 1:
        return -a[1:].reshape(1, 1)
    # Build the matrix with full-grid masked assignments so static shapes are
    # preserved under jit and vectorize. The pentadiagonal layout is:
    #   c[0, 0]               = -a[1]            (first column top)
    #   c[1, 0]               = 1                (first column second row)
    #   c[i,   i+1]           = -a[i+2]          (super-diag, even i, i+1 < n)
    #   c[i,   i+2]           = 1                (second super, even i, i+2 < n)
    #   c[i,   i-1]           = -a[i+1]          (sub-diag, even i >= 2, < n)
    #   c[i,   i-2]           = 1                (second sub, odd i >= 3, < n)
    i = jnp.arange(n)[:, None]
    j = jnp.arange(n)[None, :]
    # Clip indices so out-of-range lookups are safe; masks below select valid
    # cells.
    super_val = -a[jnp.minimum(i + 2, n)]
    sub_val = -a[jnp.minimum(i + 1, n)]
    i_even = i % 2 == 0
    i_odd = i % 2 == 1
    one = jnp.array(1, dtype=a.dtype)
    zero = jnp.array(0, dtype=a.dtype)
    conditions = [
        (i == 0) & (j == 0),
        (i == 1) & (j == 0),
        (j == i + 1) & i_even,
        (j == i + 2) & i_even,
        (j == i - 1) & i_even & (i >= 2),
        (j == i - 2) & i_odd & (i >= 3),
    ]
    choices = [-a[1], one, super_val, one, sub_val, one]
    return jnp.select(conditions, choices, default=zero)


@jit(static_argnames=("n", "mode"))
def convolution_matrix(a: ArrayLike, n: int, mode: str = "full") -> Array:
    """Construct a convolution matrix."""
    n = operator.index(n)
    if n <= 0:
        raise ShardcValueError(f"n must be a positive integer; got {n}.")
    check_arraylike("convolution_matrix", a)
    a_arr = jnp.asarray(a)
    if a_arr.ndim == 0:
        raise ShardcValueError("convolution_matrix: a must be at least 1-dimensional, got a scalar.")
    m = a_arr.shape[-1]
    if m < 1:
        raise ShardcValueError(f"len(a) must be at least 1; got shape {a_arr.shape}.")
    if mode not in ("full", "valid", "same"):
        raise ShardcValueError(f"mode must be one of 'full', 'valid', 'same'; got {mode!r}.")
    pad_widths = [(0, 0)] * (a_arr.ndim - 1) + [(0, n - 1)]
    az = jnp.pad(a_arr, pad_widths)
    raz = jnp.pad(jnp.flip(a_arr, axis=-1), pad_widths)
    L = m + n - 1
    if mode == "same":
        trim = min(n, m) - 1
        tb = trim // 2
        te = trim - tb
    elif mode == "valid":
        tb = min(n, m) - 1
        te = tb
    else:  # 'full'
        tb = 0
        te = 0
    col0 = lax.slice_in_dim(az, tb, L - te, axis=-1)
    row0 = lax.slice_in_dim(raz, L - n - tb, L - tb, axis=-1)
    return toeplitz(col0, row0)


@jit(static_argnames=("n",))
def hilbert(n: int) -> Array:
    """Create a Hilbert matrix of order n."""
    a = lax.broadcasted_iota(float, (n, 1), 0)
    return 1 / (a + a.T + 1)


@jit(static_argnames=("n",))
def invhilbert(n: int) -> Array:
    """Compute the inverse of the Hilbert matrix of order n."""
    a = jnp.arange(n, dtype=jnp.float32)
    i = a[:, None]
    j = a[None, :]
    s = i + j
    return (-1.0) ** s * (s + 1.0) * comb(n + i, n - j - 1) * comb(n + j, n - i - 1) * comb(s, i) ** 2


@jit(
    static_argnames=(
        "n",
        "kind",
    )
)
def pascal(n: int, kind: str | None = None) -> Array:
    """Create a Pascal matrix approximation of order n."""
    if kind is None:
        kind = "symmetric"

    valid_kind = ["symmetric", "lower", "upper"]

    if kind not in valid_kind:
        raise ShardcValueError(f"Expected kind to be on of: {valid_kind}; got {kind}")

    a = jnp.arange(n, dtype=np.float32)

    L_n = _binom(a[:, None], a[None, :])

    if kind == "lower":
        return L_n

    if kind == "upper":
        return L_n.T

    return jnp.dot(L_n, L_n.T)


@jit
def _binom(n, k):
    a = lax.lgamma(n + 1.0)
    b = lax.lgamma(n - k + 1.0)
    c = lax.lgamma(k + 1.0)
    return lax.exp(a - b - c)


@jit(
    static_argnames=(
        "n",
        "kind",
    )
)
def invpascal(n: int, kind: str | None = None) -> Array:
    """Compute the inverse of the Pascal matrix of order n."""
    if kind is None:
        kind = "symmetric"

    valid_kind = ["symmetric", "lower", "upper"]
    if kind not in valid_kind:
        raise ShardcValueError(f"Expected kind to be one of: {valid_kind}; got {kind}")

    a = jnp.arange(n, dtype=jnp.float32)
    i = a[:, None]
    j = a[None, :]
    # Lower-triangular inverse: (-1)^(i-j) * binom(i, j).
    L_inv = ((-1.0) ** (i - j)) * _binom(i, j)

    if kind == "lower":
        return L_inv
    if kind == "upper":
        return L_inv.T
    return jnp.dot(L_inv.T, L_inv)


@jit(static_argnames=("n", "full"))
def helmert(n: int, full: bool = False) -> Array:
    """Construct a Helmert matrix."""
    if n < 1:
        raise ShardcValueError(f"n must be a positive integer; got {n}.")
    i = jnp.arange(n - 1)[:, None]
    j = jnp.arange(n)[None, :]
    k = i + 1
    k_f = k.astype(jnp.float32)
    denom = jnp.sqrt(k_f * (k_f + 1))
    H = jnp.where(j <= i, 1.0 / denom, jnp.where(j == k, -k_f / denom, jnp.zeros_like(denom)))
    if full:
        first_row = jnp.full((1, n), 1.0 / jnp.sqrt(n), dtype=H.dtype)
        H = jnp.concatenate([first_row, H], axis=0)
    return H


@jit(static_argnames=("n", "dtype"))
def hadamard(n: int, dtype: DTypeLike = int) -> Array:
    """Construct an n-by-n Hadamard matrix."""
    if n < 1 or not math.log2(n).is_integer():
        raise ShardcValueError(f"n must be a positive power of 2; got {n}.")
    lg2 = int(math.log2(n))
    H = jnp.ones((1, 1), dtype=dtype)
    for _ in range(lg2):
        H = jnp.block([[H, H], [H, -H]])
    return H


@jit(static_argnames=("n", "scale", "dtype"))
def dft(n: int, scale: str | None = None, *, dtype: DTypeLike | None = None) -> Array:
    """Construct an n-by-n discrete Fourier transform matrix."""
    if scale is not None and scale not in ("sqrtn", "n"):
        raise ShardcValueError(f"scale must be None, 'sqrtn', or 'n'; got {scale!r}.")
    if dtype is None:
        dtype = jnp.complex64
    else:
        dtype = np.dtype(dtype)
        if not jnp.issubdtype(dtype, np.complexfloating):
            raise ShardcValueError(f"dtype must be a complex floating-point type; got {dtype}.")
    a = jnp.arange(n, dtype=dtype)
    omegas = jnp.exp(-2j * np.pi * a[:, None] * a[None, :] / n)
    if scale == "sqrtn":
        omegas = omegas / jnp.sqrt(n)
    elif scale == "n":
        omegas = omegas / n
    return omegas


def _solve_sylvester_triangular_scan(R: Array, S: Array, F: Array) -> Array:
    """Solves the Sylvester equation using Bartels-Stewart algorithm"""
    R, S, F = promote_args_inexact("_solve_sylvester_triangular_scan", R, S, F)

    m, n = F.shape
    total = m * n
    # scan the matrix from bottom-right to top-left
    flat_indices = jnp.arange(total - 1, -1, -1)
    Y0 = jnp.zeros((m * n,), dtype=F.dtype)

    def scan_fn(Y_flat, idx):
        i = idx // n
        j = idx % n
        Y = Y_flat.reshape((m, n))
        rhs = F[i, j]

        # Row term: gets contributions from R and already filled in Y. mask ensures that we only get non-zero elements from R because it is upper triangular
        k_row = jnp.arange(m)
        row_mask = k_row > i
        r_row = R[i, :]
        y_col = Y[:, j]
        row_term = jnp.sum(jnp.where(row_mask, r_row * y_col, 0.0))

        # Col term: same as Row term but now uses S instead of R.
        k_col = jnp.arange(n)
        col_mask = k_col > j
        y_row = Y[i, :]
        s_col = S[:, j]
        col_term = jnp.sum(jnp.where(col_mask, y_row * s_col, 0.0))

        # Here we are solving for the current Y[i, j]
        rhs -= row_term + col_term
        val = rhs / (R[i, i] + S[j, j])

        Y_flat = Y_flat.at[i * n + j].set(val)
        return Y_flat, None

    Y_flat_final, _ = lax.scan(scan_fn, Y0, flat_indices)
    return Y_flat_final.reshape((m, n))


@jit(static_argnames=["method"])
def _solve_sylvester_2d(A: Array, B: Array, C: Array, *, method: str, tol: float) -> Array:
    m, n = C.shape[-2:]
    if method == "schur":
        R, U = schur(A, output="complex")
        S, V = schur(B.conj().T, output="complex")
        F = U.conj().T @ C.astype(R.dtype) @ V
        Y = _solve_sylvester_triangular_scan(R, S.conj().T, F)
        X = U @ Y @ V.conj().T
    elif method == "eigen":
        RA, UA = jnp.linalg.eig(A)
        RB, UB = jnp.linalg.eig(B)
        F = solve(UA, C.astype(RA.dtype) @ UB)
        W = RA[:, None] + RB[None, :]
        Y = F / W
        X = UA[:m, :m] @ Y[:m, :n] @ inv(UB)[:n, :n]
    else:
        raise ShardcValueError(f'Unrecognized method {method}. The two valid methods are either "schur" or "eigen".')
    if not jnp.issubdtype(C.dtype, np.complexfloating):
        X = X.real
    return lax.cond(
        jnp.any(jnp.abs(jnp.linalg.eigvals(A)[:, None] + jnp.linalg.eigvals(B)[None, :]) < tol),
        lambda: jnp.zeros_like(X) * np.nan,
        lambda: X,
    )


@jit(static_argnames=["method"])
def solve_sylvester(A: ArrayLike, B: ArrayLike, C: ArrayLike, *, method: str = "schur", tol: float = 1e-8) -> Array:
    """Solves the Sylvester equation"""
    A, B, C = promote_dtypes_inexact(jnp.asarray(A), jnp.asarray(B), jnp.asarray(C))

    m, n = C.shape[-2:]
    if A.shape[-2:] != (m, m) or B.shape[-2:] != (n, n):
        raise ShardcValueError(f"Incompatible shapes for Sylvester equation:\nA: {A.shape}\nB: {B.shape}\nC: {C.shape}")

    return vectorize(partial(_solve_sylvester_2d, method=method, tol=tol), signature="(m,m),(n,n),(m,n)->(m,n)")(
        A, B, C
    )


# --- JAX's jax/_src/third_party/scipy/linalg.py (funm; BSD-licensed from SciPy, as JAX's) ----------------------------
@jit
def _algorithm_11_1_1(F, T):
    # Algorithm 11.1.1 from Golub and Van Loan "Matrix Computations"
    N = T.shape[0]
    minden = jnp.abs(T[0, 0])

    def _outer_loop(p, F_minden):
        _, F, minden = lax.fori_loop(1, N - p + 1, _inner_loop, (p, *F_minden))
        return F, minden

    def _inner_loop(i, p_F_minden):
        p, F, minden = p_F_minden
        j = i + p
        s = T[i - 1, j - 1] * (F[j - 1, j - 1] - F[i - 1, i - 1])
        T_row, T_col = T[i - 1], T[:, j - 1]
        F_row, F_col = F[i - 1], F[:, j - 1]
        ind = (jnp.arange(N) >= i) & (jnp.arange(N) < j - 1)
        val = jnp.where(ind, T_row, 0) @ jnp.where(ind, F_col, 0) - jnp.where(ind, F_row, 0) @ jnp.where(ind, T_col, 0)
        s = s + val
        den = T[j - 1, j - 1] - T[i - 1, i - 1]
        s = jnp.where(den != 0, s / den, s)
        F = F.at[i - 1, j - 1].set(s)
        minden = jnp.minimum(minden, jnp.abs(den))
        return p, F, minden

    return lax.fori_loop(1, N, _outer_loop, (F, minden))


def funm(A, func, disp: bool = True):
    """Evaluate a matrix-valued function (`jax.scipy.linalg.funm`: Schur-Parlett)."""
    A_arr = jnp.asarray(A)
    if A_arr.ndim != 2 or A_arr.shape[0] != A_arr.shape[1]:
        raise ShardcValueError("expected square array_like input")
    T, Z = schur(A_arr)
    T, Z = rsf2csf(T, Z)
    F = jnp.diag(func(jnp.diag(T)))
    F = F.astype(T.dtype.char)
    F, minden = _algorithm_11_1_1(F, T)
    F = Z @ F @ Z.conj().T
    if disp:
        return F
    if F.dtype.char.lower() == "e":
        tol = jnp.finfo(np.float16).eps
    if F.dtype.char.lower() == "f":
        tol = jnp.finfo(np.float32).eps
    else:
        tol = jnp.finfo(np.float64).eps
    minden = jnp.where(minden == 0.0, tol, minden)
    err = jnp.where(
        jnp.any(jnp.isinf(F)), np.inf, jnp.minimum(1, jnp.maximum(tol, (tol / minden) * jnp.linalg.norm(jnp.triu(T, 1), 1)))
    )
    return F, err
