"""`shardc.scipy.sparse.linalg`: JAX 0.10.2's `jax.scipy.sparse.linalg` (`cg`, `gmres`, `bicgstab`).

JAX's own composition (`jax/_src/scipy/sparse/linalg.py`, Copyright 2020 The JAX Authors, Apache
License 2.0) ported onto shardc's `numpy`, `lax.while_loop`/`fori_loop`, `lax.custom_linear_solve`,
`scipy.linalg` and `tree_util`: the same Krylov iterations over pytrees of arrays, the same
tolerances (`norm(residual) <= max(tol * norm(b), atol)`), the same implicit derivatives (another
solve, through `custom_linear_solve`), so values, dtypes, weak types, sharding types and errors
follow JAX's by construction.
"""
from __future__ import annotations

import operator
from functools import partial
from typing import Any

import jax
import numpy as np

from ... import dtypes as dt
from ... import lax
from ... import numpy as jnp
from ...errors import ShardcTypeError, ShardcValueError
from ...ops._util import as_operand, convert, is_array, type_of
from ...ops.sharding import device_put
from ...tree_util import Partial, tree_leaves, tree_map, tree_reduce, tree_structure
from .. import linalg as jsp_linalg

Array = ArrayLike = Any

__all__ = ["bicgstab", "cg", "gmres"]  # JAX 0.10.2's jax.scipy.sparse.linalg, every name

_dot = partial(jnp.dot, precision=lax.Precision.HIGHEST)
_vdot = partial(jnp.vdot, precision=lax.Precision.HIGHEST)
_einsum = partial(jnp.einsum, precision=lax.Precision.HIGHEST)


def _lattice_result_type(*xs) -> tuple[np.dtype, bool]:
    """JAX's `dtypes.lattice_result_type`: the common (dtype, weak_type) of `xs`."""
    ts = [type_of(as_operand(x)) for x in xs]
    return dt.result_type(*[(t.dtype, t.weak_type) for t in ts])


def _result_type(*xs) -> np.dtype:
    return _lattice_result_type(*xs)[0]


# aliases for working with pytrees
def _vdot_real_part(x, y):
    """Vector dot-product guaranteed to have a real valued result despite possibly complex input
    (it neglects the real-imaginary cross-terms: every use computes `z^H M z`, M Hermitian)."""
    result = _vdot(x.real, y.real)
    if jnp.iscomplexobj(x) or jnp.iscomplexobj(y):
        result += _vdot(x.imag, y.imag)
    return result


def _vdot_real_tree(x, y):
    return sum(tree_leaves(tree_map(_vdot_real_part, x, y)))


def _vdot_tree(x, y) -> ArrayLike:
    return sum(tree_leaves(tree_map(partial(jnp.vdot, precision=lax.Precision.HIGHEST), x, y)))


def _norm(x):
    xs = tree_leaves(x)
    return jnp.sqrt(sum(map(_vdot_real_part, xs, xs)))


def _mul(scalar, tree):
    return tree_map(partial(operator.mul, scalar), tree)


_add = partial(tree_map, operator.add)
_sub = partial(tree_map, operator.sub)
_dot_tree = partial(tree_map, _dot)


@Partial
def _identity(x):
    return x


def _is_matrix(f) -> bool:
    """JAX's `isinstance(f, (np.ndarray, Array))`: a NumPy array, a jax.Array, an sc.Array or a traced value."""
    return isinstance(f, (np.ndarray, jax.Array)) or is_array(f)


def _normalize_matvec(f):
    """Normalize an argument for computing matrix-vector products."""
    if callable(f):
        return f
    elif _is_matrix(f):
        if f.ndim != 2 or f.shape[0] != f.shape[1]:
            raise ShardcValueError(f"linear operator must be a square matrix, but has shape: {f.shape}")
        return partial(_dot, f)
    elif hasattr(f, "__matmul__"):
        if hasattr(f, "shape") and len(f.shape) != 2 or f.shape[0] != f.shape[1]:
            raise ShardcValueError(f"linear operator must be a square matrix, but has shape: {f.shape}")
        return partial(operator.matmul, f)
    else:
        raise ShardcTypeError(f"linear operator must be either a function or ndarray: {f}")


def _cg_solve(A, b, x0=None, *, maxiter, tol=1e-5, atol=0.0, M=_identity):
    # tolerance handling uses the "non-legacy" behavior of scipy.sparse.linalg.cg
    bs = _vdot_real_tree(b, b)
    atol2 = jnp.maximum(jnp.square(tol) * bs, jnp.square(atol))

    # https://en.wikipedia.org/wiki/Conjugate_gradient_method#The_preconditioned_conjugate_gradient_method
    def cond_fun(value):
        _, r, gamma, _, k = value
        rs = gamma.real if M is _identity else _vdot_real_tree(r, r)
        return (rs > atol2) & (k < maxiter)

    def body_fun(value):
        x, r, gamma, p, k = value
        Ap = A(p)
        alpha = gamma / _vdot_real_tree(p, Ap).astype(dtype)
        x_ = _add(x, _mul(alpha, p))
        r_ = _sub(r, _mul(alpha, Ap))
        z_ = M(r_)
        gamma_ = _vdot_real_tree(r_, z_).astype(dtype)
        beta_ = gamma_ / gamma
        p_ = _add(z_, _mul(beta_, p))
        return x_, r_, gamma_, p_, k + 1

    r0 = _sub(b, A(x0))
    p0 = z0 = M(r0)
    dtype = _result_type(*tree_leaves(p0))
    gamma0 = _vdot_real_tree(r0, z0).astype(dtype)
    initial_value = (x0, r0, gamma0, p0, 0)
    x_final, *_ = lax.while_loop(cond_fun, body_fun, initial_value)
    return x_final


def _bicgstab_solve(A, b, x0=None, *, maxiter, tol=1e-5, atol=0.0, M=_identity):
    # tolerance handling uses the "non-legacy" behavior of scipy.sparse.linalg.bicgstab
    bs = _vdot_real_tree(b, b)
    atol2 = jnp.maximum(jnp.square(tol) * bs, jnp.square(atol))

    # https://en.wikipedia.org/wiki/Biconjugate_gradient_stabilized_method#Preconditioned_BiCGSTAB
    def cond_fun(value):
        x, r, *_, k = value
        rs = _vdot_real_tree(r, r)
        # the last condition checks breakdown
        return (rs > atol2) & (k < maxiter) & (k >= 0)

    def body_fun(value):
        x, r, rhat, alpha, omega, rho, p, q, k = value
        rho_ = _vdot_tree(rhat, r)
        beta = rho_ / rho * alpha / omega
        p_ = _add(r, _mul(beta, _sub(p, _mul(omega, q))))
        phat = M(p_)
        q_ = A(phat)
        alpha_ = rho_ / _vdot_tree(rhat, q_)
        s = _sub(r, _mul(alpha_, q_))
        exit_early = _vdot_real_tree(s, s) < atol2
        shat = M(s)
        t = A(shat)
        omega_ = _vdot_tree(t, s) / _vdot_tree(t, t)  # make cases?
        x_ = tree_map(partial(jnp.where, exit_early),
                      _add(x, _mul(alpha_, phat)),
                      _add(x, _add(_mul(alpha_, phat), _mul(omega_, shat))))
        r_ = tree_map(partial(jnp.where, exit_early), s, _sub(s, _mul(omega_, t)))
        k_ = jnp.where((omega_ == 0) | (alpha_ == 0), -11, k + 1)
        k_ = jnp.where((rho_ == 0), -10, k_)
        return x_, r_, rhat, alpha_, omega_, rho_, p_, q_, k_

    r0 = _sub(b, A(x0))
    dtype, weak = _lattice_result_type(*tree_leaves(b))
    rho0 = alpha0 = omega0 = jnp.asarray(convert(1, dtype, weak))
    initial_value = (x0, r0, r0, alpha0, omega0, rho0, r0, r0, 0)
    x_final, *_ = lax.while_loop(cond_fun, body_fun, initial_value)
    return x_final


def _shapes(pytree):
    return list(map(np.shape, tree_leaves(pytree)))


def _isolve(_isolve_solve, A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None, check_symmetric=False):
    if x0 is None:
        x0 = tree_map(jnp.zeros_like, b)
    b, x0 = device_put((b, x0))
    if maxiter is None:
        size = sum(bi.size for bi in tree_leaves(b))
        maxiter = 10 * size  # copied from scipy
    if M is None:
        M = _identity
    A = _normalize_matvec(A)
    M = _normalize_matvec(M)
    if tree_structure(x0) != tree_structure(b):
        raise ShardcValueError(
            f"x0 and b must have matching tree structure: {tree_structure(x0)} vs {tree_structure(b)}")
    if _shapes(x0) != _shapes(b):
        raise ShardcValueError(f"arrays in x0 and b must have matching shapes: {_shapes(x0)} vs {_shapes(b)}")
    isolve_solve = partial(_isolve_solve, x0=x0, tol=tol, atol=atol, maxiter=maxiter, M=M)

    # real-valued positive-definite linear operators are symmetric
    def real_valued(x):
        return not issubclass(x.dtype.type, np.complexfloating)

    symmetric = all(map(real_valued, tree_leaves(b))) if check_symmetric else False
    x = lax.custom_linear_solve(A, b, solve=isolve_solve, transpose_solve=isolve_solve, symmetric=symmetric)
    info = None
    return x, info


def cg(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
    """`jax.scipy.sparse.linalg.cg`: conjugate gradients for a Hermitian positive definite `A`
    (a function, matrix or matmul-compatible object) on a pytree `b`; returns `(x, None)`.
    Derivatives are another `cg` solve (`custom_linear_solve`), not a trace through the loop."""
    return _isolve(_cg_solve, A=A, b=b, x0=x0, tol=tol, atol=atol, maxiter=maxiter, M=M, check_symmetric=True)


def _safe_normalize(x, thresh=None):
    """The L2-normalized (pytree) `x` and its norm; a norm at or below `thresh` (default: the
    machine epsilon of `x`'s dtype) is taken as 0, and the normalized `x` as the zero vector."""
    norm = _norm(x)
    dtype, weak_type = _lattice_result_type(*tree_leaves(x))
    if thresh is None:
        thresh = jnp.finfo(norm.dtype).eps
    thresh = thresh.astype(dtype).real
    use_norm = norm > thresh
    norm_cast = convert(norm, dtype, weak_type)
    normalized_x = tree_map(lambda y: jnp.where(use_norm, y / norm_cast, 0.0), x)
    norm = jnp.where(use_norm, norm, 0.0)
    return normalized_x, norm


def _project_on_columns(A, v):
    """`A.T.conj() @ v`."""
    v_proj = tree_map(lambda X, y: _einsum("...n,...->n", X.conj(), y), A, v)
    return tree_reduce(operator.add, v_proj)


def _iterative_classical_gram_schmidt(Q, x, xnorm, max_iterations=2):
    """Orthogonalize `x` against the orthonormal columns of `Q` ("twice is enough": repeated up to
    `max_iterations` times, or until ||r|| < ||x|| / sqrt(2)); returns the unit vector `q` and the
    overlaps `r` of `x` with `Q`'s columns."""
    # http://slepc.upv.es/documentation/reports/str1.pdf
    # This assumes that Q's leaves all have the same dimension in the last axis.
    Q0 = tree_leaves(Q)[0]
    r = jnp.zeros(Q0.shape[-1], dtype=Q0.dtype)
    q = x
    xnorm_scaled = xnorm / jnp.sqrt(2.0)

    def body_function(carry):
        k, q, r, qnorm_scaled = carry
        h = _project_on_columns(Q, q)
        Qh = tree_map(lambda X: _dot(X, h), Q)
        q = _sub(q, Qh)
        r = _add(r, h)

        def qnorm_cond(carry):
            k, not_done, _, _ = carry
            return jnp.logical_and(not_done, k < (max_iterations - 1))

        def qnorm(carry):
            k, _, q, qnorm_scaled = carry
            _, qnorm = _safe_normalize(q)
            qnorm_scaled = qnorm / jnp.sqrt(2.0)
            return (k, False, q, qnorm_scaled)

        init = (k, True, q, qnorm_scaled)
        _, _, q, qnorm_scaled = lax.while_loop(qnorm_cond, qnorm, init)
        return (k + 1, q, r, qnorm_scaled)

    def cond_function(carry):
        k, _, r, qnorm_scaled = carry
        _, rnorm = _safe_normalize(r)
        return jnp.logical_and(k < (max_iterations - 1), rnorm < qnorm_scaled)

    k, q, r, qnorm_scaled = body_function((0, q, r, xnorm_scaled))
    k, q, r, _ = lax.while_loop(cond_function, body_function, (k, q, r, qnorm_scaled))
    return q, r


def _kth_arnoldi_iteration(k, A, M, V, H):
    """The k'th step of the Arnoldi process: the orthonormalized Krylov vector A(M(V[:, k])) into
    V[:, k+1], its overlaps with the existing ones into H[k, :]; a vector below `eps * norm` is an
    invariant subspace found (breakdown), taken as the zero vector."""
    dtype, _ = _lattice_result_type(*tree_leaves(V))
    eps = jnp.finfo(dtype).eps
    v = tree_map(lambda x: x[..., k], V)  # Gets V[:, k]
    v = M(A(v))
    _, v_norm_0 = _safe_normalize(v)
    v, h = _iterative_classical_gram_schmidt(V, v, v_norm_0, max_iterations=2)
    tol = eps * v_norm_0
    unit_v, v_norm_1 = _safe_normalize(v, thresh=tol)
    V = tree_map(lambda X, y: X.at[..., k + 1].set(y), V, unit_v)
    h = h.at[k + 1].set(v_norm_1.astype(dtype))
    H = H.at[k, :].set(h)
    breakdown = v_norm_1 == 0.0
    return V, H, breakdown


def _rotate_vectors(H, i, cs, sn):
    x1 = H[i]
    y1 = H[i + 1]
    x2 = cs.conj() * x1 - sn.conj() * y1
    y2 = sn * x1 + cs * y1
    H = H.at[i].set(x2)
    H = H.at[i + 1].set(y2)
    return H


def _givens_rotation(a, b):
    b_zero = abs(b) == 0
    a_lt_b = abs(a) < abs(b)
    t = -jnp.where(a_lt_b, a, b) / jnp.where(a_lt_b, b, a)
    r = lax.rsqrt(1 + abs(t) ** 2).astype(t.dtype)
    cs = jnp.where(b_zero, 1, jnp.where(a_lt_b, r * t, r))
    sn = jnp.where(b_zero, 0, jnp.where(a_lt_b, r, r * t))
    return cs, sn


def _apply_givens_rotations(H_row, givens, k):
    """Apply the Givens rotations `givens[:k]` to `H_row`, then build and apply the one that
    eliminates its k'th element."""
    def apply_ith_rotation(i, H_row):
        return _rotate_vectors(H_row, i, *givens[i, :])

    R_row = lax.fori_loop(0, k, apply_ith_rotation, H_row)
    givens_factors = _givens_rotation(R_row[k], R_row[k + 1])
    givens = givens.at[k, :].set(givens_factors)
    R_row = _rotate_vectors(R_row, k, *givens_factors)
    return R_row, givens


def _gmres_incremental(A, b, x0, unit_residual, residual_norm, ptol, restart, M):
    """One restart of GMRES, building the QR factorization of the Krylov basis during the Arnoldi
    process (Givens rotations: a residual estimate that allows early termination)."""
    # https://www-users.cs.umn.edu/~saad/Calais/PREC.pdf
    V = tree_map(lambda x: jnp.pad(x[..., None], ((0, 0),) * x.ndim + ((0, restart),)), unit_residual)
    dtype = _result_type(*tree_leaves(b))
    # use eye() to avoid constructing a singular matrix in case of early termination
    R = jnp.eye(restart, restart + 1, dtype=dtype)
    givens = jnp.zeros((restart, 2), dtype=dtype)
    beta_vec = jnp.zeros((restart + 1), dtype=dtype)
    beta_vec = beta_vec.at[0].set(residual_norm.astype(dtype))

    def loop_cond(carry):
        k, err, _, _, _, _ = carry
        return jnp.logical_and(k < restart, err > ptol)

    def arnoldi_qr_step(carry):
        k, _, V, R, beta_vec, givens = carry
        V, H, _ = _kth_arnoldi_iteration(k, A, M, V, R)
        R_row, givens = _apply_givens_rotations(H[k, :], givens, k)
        R = R.at[k, :].set(R_row)
        beta_vec = _rotate_vectors(beta_vec, k, *givens[k, :])
        err = abs(beta_vec[k + 1])
        return k + 1, err, V, R, beta_vec, givens

    carry = (0, residual_norm, V, R, beta_vec, givens)
    carry = lax.while_loop(loop_cond, arnoldi_qr_step, carry)
    k, residual_norm, V, R, beta_vec, _ = carry
    del k  # Until we figure out how to pass this to the user.
    y = jsp_linalg.solve_triangular(R[:, :-1].T, beta_vec[:-1])
    dx = tree_map(lambda X: _dot(X[..., :-1], y), V)
    x = _add(x0, dx)
    residual = M(_sub(b, A(x)))
    unit_residual, residual_norm = _safe_normalize(residual)
    # TODO(shoyer): "Inner loop tolerance control" on ptol, like SciPy
    return x, unit_residual, residual_norm


def _lstsq(a, b):
    # faster than jsp_linalg.lstsq
    a2 = _dot(a.T.conj(), a)
    b2 = _dot(a.T.conj(), b)
    return jsp_linalg.solve(a2, b2, assume_a="pos")


def _gmres_batched(A, b, x0, unit_residual, residual_norm, ptol, restart, M):
    """One restart of GMRES, solving the dense least-squares problem at the end of the Arnoldi
    process (no early termination; less overhead on accelerators)."""
    del ptol  # unused
    # https://www-users.cs.umn.edu/~saad/Calais/PREC.pdf
    V = tree_map(lambda x: jnp.pad(x[..., None], ((0, 0),) * x.ndim + ((0, restart),)), unit_residual)
    dtype, weak_type = _lattice_result_type(*tree_leaves(b))
    H = convert(jnp.eye(restart, restart + 1, dtype=dtype), dtype, weak_type)

    def loop_cond(carry):
        _, _, breakdown, k = carry
        return jnp.logical_and(k < restart, jnp.logical_not(breakdown))

    def arnoldi_process(carry):
        V, H, _, k = carry
        V, H, breakdown = _kth_arnoldi_iteration(k, A, M, V, H)
        return V, H, breakdown, k + 1

    carry = (V, H, False, 0)
    V, H, _, _ = lax.while_loop(loop_cond, arnoldi_process, carry)
    beta_vec = jnp.zeros_like(H, shape=(restart + 1,)).at[0].set(residual_norm.astype(dtype))
    y = _lstsq(H.T, beta_vec)
    dx = tree_map(lambda X: _dot(X[..., :-1], y), V)
    x = _add(x0, dx)
    residual = M(_sub(b, A(x)))
    unit_residual, residual_norm = _safe_normalize(residual)
    return x, unit_residual, residual_norm


def _gmres_solve(A, b, x0, atol, ptol, restart, maxiter, M, gmres_func):
    """The solve `custom_linear_solve` wraps: `gmres_func` restarts from the previous projection
    until `norm(M(A(x) - b)) <= atol` or `maxiter` restarts (`ptol` bounds a restart's residual)."""
    residual = M(_sub(b, A(x0)))
    unit_residual, residual_norm = _safe_normalize(residual)

    def cond_fun(value):
        _, k, _, residual_norm = value
        return jnp.logical_and(k < maxiter, residual_norm > atol)

    def body_fun(value):
        x, k, unit_residual, residual_norm = value
        x, unit_residual, residual_norm = gmres_func(A, b, x, unit_residual, residual_norm, ptol, restart, M)
        return x, k + 1, unit_residual, residual_norm

    initialization = (x0, 0, unit_residual, residual_norm)
    x_final, k, _, err = lax.while_loop(cond_fun, body_fun, initialization)
    return x_final


def gmres(A, b, x0=None, *, tol=1e-5, atol=0.0, restart=20, maxiter=None, M=None, solve_method="batched"):
    """`jax.scipy.sparse.linalg.gmres`: restarted GMRES for a general `A` on a pytree `b`
    (`solve_method` 'batched' or 'incremental'); returns `(x, info)`, info -1 where x is NaN."""
    if x0 is None:
        x0 = tree_map(jnp.zeros_like, b)
    if M is None:
        M = _identity
    A = _normalize_matvec(A)
    M = _normalize_matvec(M)
    b, x0 = device_put((b, x0))
    size = sum(bi.size for bi in tree_leaves(b))
    if maxiter is None:
        maxiter = 10 * size  # copied from scipy
    restart = min(restart, size)
    if tree_structure(x0) != tree_structure(b):
        raise ShardcValueError(
            f"x0 and b must have matching tree structure: {tree_structure(x0)} vs {tree_structure(b)}")
    b_norm = _norm(b)
    atol = jnp.maximum(tol * b_norm, atol)
    Mb = M(b)
    Mb_norm = _norm(Mb)
    ptol = Mb_norm * jnp.minimum(1.0, atol / b_norm)
    if solve_method == "incremental":
        gmres_func = _gmres_incremental
    elif solve_method == "batched":
        gmres_func = _gmres_batched
    else:
        raise ShardcValueError(f"invalid solve_method {solve_method}, must be either 'incremental' or 'batched'")

    def _solve(A, b):
        return _gmres_solve(A, b, x0, atol, ptol, restart, maxiter, M, gmres_func)

    x = lax.custom_linear_solve(A, b, solve=_solve, transpose_solve=_solve)
    failed = jnp.isnan(_norm(x))
    info = jnp.where(failed, -1, 0)
    return x, info


def bicgstab(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
    """`jax.scipy.sparse.linalg.bicgstab`: BiCGSTAB for a general `A` on a pytree `b`; returns
    `(x, None)`. Derivatives are another `bicgstab` solve (`custom_linear_solve`)."""
    return _isolve(_bicgstab_solve, A=A, b=b, x0=x0, tol=tol, atol=atol, maxiter=maxiter, M=M)
