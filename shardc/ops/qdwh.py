"""`jax.lax.linalg.qdwh` (the QR-based dynamically weighted Halley iteration for the polar
decomposition) and `jax.lax.linalg.cholesky_update` (the rank-1 update of a Cholesky factor).

`qdwh` is JAX's composition (`jax/_src/tpu/linalg/qdwh.py` of JAX 0.10.2), ported line for
line so each op's sharding rule sees what JAX's sees: alpha from the 1- and inf-norms, the
static schedule of (a, b, c) coefficients computed in Python (QR steps while c > 100, then
Cholesky steps), each run by a `fori_loop`, then Halley steps (a, b, c = 3, 1, 3) in a
`while_loop` until the Frobenius step < cbrt(5 eps) or `max_iterations`, a Newton-Schulz
refinement and h = (u^H x + (u^H x)^H) / 2. It returns (u, h, num_iters, is_converged) with
JAX's types (`num_iters` a weak int32, the while loop's counter). `dynamic_shape=(m, n)`
masks the matrix to its top-left m x n block (values outside become zero). As in JAX: a matrix
only (no batch dims: `vmap` batches it), M >= N, float32/complex64 (bf16/f16 fail in the QR
kernel as JAX's "Unsupported dtype"), `jvp` through its loops, no reverse mode (its
`while_loop`); JAX runs it under `default_matmul_precision('float32')`, which changes nothing
on CPU (shardc's dots are float32 there).

`cholesky_update` binds `cholesky_update_p` (`shardc/primitives/linalg_update.py`).
"""
from __future__ import annotations

import functools
from types import SimpleNamespace

import ml_dtypes
import numpy as np

from .. import dtypes as dt
from .. import lax
from ..core import Tracer, api, bind, current_trace, stage_eagerly
from ..errors import ShardcValueError
from ..primitives.linalg_update import cholesky_update_p
from ._util import type_of
from .construct import eye
from .control_flow import fori_loop, while_loop
from .creation import array
from .elementwise import cbrt, logical_and, logical_not, where
from .numpy_linalg import lax_cholesky, lax_qr, norm, triangular_solve
from .numpy_linalg import lax_linalg as _built
from .shape import _arr, concatenate

__all__ = ["qdwh", "cholesky_update", "lax_linalg"]


@api("lax.linalg.cholesky_update")
def cholesky_update(r_matrix, w_vector):
    """`jax.lax.linalg.cholesky_update`: the upper factor R' of R^T R + w w^T."""
    return bind(cholesky_update_p, _arr(r_matrix), _arr(w_vector))


# --- qdwh: JAX's helpers for padded shapes ---------------------------------------------------
def _mask(x, dims, alternative=0):
    """`x` outside the top-left `dims` block replaced by `alternative`."""
    shape = type_of(x).shape
    mask = None
    for i, d in enumerate(dims):
        if d is not None:
            mask_dim_i = lax.lt(lax.broadcasted_iota(np.int32, shape, i), _int32(d))
            mask = mask_dim_i if mask is None else logical_and(mask, mask_dim_i)
    return x if mask is None else where(mask, x, alternative)


def _int32(d):
    return d if isinstance(d, Tracer) or hasattr(d, "_shardc_type") else np.int32(d)


def _pad_in_dim(x, low=0, high=0, interior=0, fill_value=0, axis=0):
    t = type_of(x)
    pads = [(0, 0, 0)] * t.ndim
    pads[axis] = (low, high, interior)
    return lax.pad(x, array(fill_value, t.dtype), pads)


def _dynamic_concat(a, b, m, axis=0):
    """Concatenates padded `a` and `b` where the true size of `a` is `m`."""
    if m is None:
        return concatenate([a, b], axis=axis)
    return lax.dynamic_update_slice_in_dim(_pad_in_dim(a, high=type_of(b).shape[axis], axis=axis), b, m, axis)


def _use_qr(u, m, n, params):
    """A QDWH step by the QR decomposition of [sqrt(c) u; I]."""
    a_minus_e_by_sqrt_c, sqrt_c, e = params
    M, N = type_of(u).shape
    y = _dynamic_concat(sqrt_c * u, eye(N, dtype=type_of(u).dtype), m)
    q, _ = lax_qr(y, full_matrices=False)
    q1 = _mask(lax.slice(q, (0, 0), (M, N)), (m, n))
    q2 = lax.dynamic_slice_in_dim(q, m, N, axis=0)
    q2 = _mask(q2, (n, n)).T.conj()
    return e * u + a_minus_e_by_sqrt_c * (q1 @ q2)


def _use_cholesky(u, m, n, params):
    """A QDWH step by the Cholesky factor of c u^H u + I."""
    a_minus_e, c, e = params
    N = type_of(u).shape[1]
    x = c * (u.T.conj() @ u) + eye(N, dtype=type_of(u).dtype)
    x = _mask(x, (n, n), eye(N, dtype=type_of(x).dtype))
    y = lax_cholesky(x, symmetrize_input=False)
    z = triangular_solve(y, u.T, left_side=True, lower=True, conjugate_a=True).conj()
    z = triangular_solve(y, z, left_side=True, lower=True, transpose_a=True, conjugate_a=True).T.conj()
    return e * u + a_minus_e * z


def _qr_params(a, b, c):
    e = b / c
    return ((a - e) / c ** (1 / 2), c ** (1 / 2), e)


def _chol_params(a, b, c):
    e = b / c
    return (a - e, c, e)


def _schedule(eps: float, max_iterations: int):
    """The (a, b, c) coefficients of the steps (JAX's Python loop: static, from eps alone)."""
    l, k = eps, 0
    tol_l = 10.0 * eps / 2.0
    qr_coefs, chol_coefs = [], []
    while l + tol_l < 1 and k < max_iterations:
        k += 1
        l2 = l * l
        dd = (4 * (1 / l2 - 1) / l2) ** (1 / 3)
        sqd = (1.0 + dd) ** (1 / 2)
        a = sqd + (2 - dd + 2 * (2 - l2) / (l2 * sqd)) ** (1 / 2)
        b = (a - 1) ** 2 / 4
        c = a + b - 1
        l = l * (a + b * l2) / (1 + c * l2)
        (qr_coefs if c > 100 else chol_coefs).append((_qr_params if c > 100 else _chol_params)(a, b, c))
    return qr_coefs, chol_coefs


def _qdwh(x, m, n, max_iterations, eps):
    t = type_of(x)
    if eps is None:
        eps = float(ml_dtypes.finfo(t.dtype).eps)
    one_norm = norm(x, ord=1)
    inf_norm = norm(x, ord=np.inf)
    alpha_inverse = lax.rsqrt(one_norm) * lax.rsqrt(inf_norm)
    alpha_inverse = where(one_norm == 0, 1, alpha_inverse)
    u = x * alpha_inverse.astype(t.dtype)
    tol_norm = cbrt(10.0 * eps / 2.0)
    qr_coefs, chol_coefs = _schedule(eps, max_iterations)

    def iteration(k, state, update_fn, coefs, test_convergence):
        u, _ = state
        params = _chol_params(3, 1, 3) if coefs is None else lax.dynamic_index_in_dim(coefs, k, keepdims=False)
        if coefs is not None:
            params = tuple(params[i] for i in range(3))
        u_prev = u
        u = update_fn(u, m, n, params)
        is_not_converged = True
        if test_convergence:
            is_not_converged = norm(u - u_prev) > tol_norm
        return u, is_not_converged

    def iterate(u, coefs, **kwargs):
        if not coefs:
            return u, True
        coefs = array(coefs).astype(t.dtype)
        body = functools.partial(iteration, coefs=coefs, **kwargs)
        return fori_loop(0, len(coefs), body, (u, True))

    u, _ = iterate(u, coefs=qr_coefs, update_fn=_use_qr, test_convergence=False)
    u, is_not_converged = iterate(u, coefs=chol_coefs, update_fn=_use_cholesky, test_convergence=True)

    def cond_fun(state):
        k, _, is_not_converged = state
        return logical_and(is_not_converged, k < max_iterations)

    def body_fun(state):
        k, u, is_not_converged = state
        u, is_not_converged = iteration(k, (u, is_not_converged), coefs=None, update_fn=_use_cholesky,
                                        test_convergence=True)
        return k + 1, u, is_not_converged

    k = len(qr_coefs) + len(chol_coefs)
    num_iters, u, is_not_converged = while_loop(cond_fun, body_fun, (k, u, is_not_converged))
    u = 1.5 * u - 0.5 * u @ (u.T.conj() @ u)           # Newton-Schulz refinement
    h = u.T.conj() @ x
    h = (h + h.T.conj()) / 2
    return u, h, num_iters, logical_not(is_not_converged)


def _static(name: str, v, what: str):
    if isinstance(v, Tracer) or hasattr(v, "_shardc_type"):
        raise ShardcValueError(
            "Non-hashable static arguments are not supported. An error occurred while trying to hash an object "
            f"of type {type(v)}, {v}. The error was: TypeError: unhashable type: '{type(v).__name__}'"
            if current_trace() is not None else
            f"The `{name}` argument must be statically specified to use `qdwh` within JAX transformations.")
    return what(v)


@api("lax.linalg.qdwh")
def qdwh(x, *, is_hermitian: bool = False, max_iterations: int | None = None, eps: float | None = None,
         dynamic_shape: tuple[int, int] | None = None):
    """`jax.lax.linalg.qdwh`: (u, h, num_iters, is_converged), x = u h with u's columns orthonormal
    and h Hermitian positive semidefinite (`is_hermitian` is unused, as in JAX)."""
    _static("is_hermitian", is_hermitian, bool)
    max_iterations = 10 if max_iterations is None else _static("max_iterations", max_iterations, int)
    if eps is not None:
        eps = _static("eps", eps, float)
    x = _arr(x)
    t = type_of(x)
    if t.ndim != 2:
        raise ShardcValueError("too many values to unpack (expected 2)" if t.ndim > 2 else
                               f"not enough values to unpack (expected 2, got {t.ndim})")
    if not (dt.is_float(t.dtype) or dt.is_complex(t.dtype)):
        raise ShardcValueError(f"data type {t.dtype.type} not inexact")
    M, N = t.shape
    if M < N:
        raise ShardcValueError("The input matrix of shape M x N must have M >= N.")

    def run(x, *dyn):
        if dynamic_shape is not None:
            m, n = dyn
            x = _mask(x, (m, n))
        else:
            m, n = M, N
        return tuple(_qdwh(x, m, n, max_iterations, eps))

    dyn = () if dynamic_shape is None else tuple(dynamic_shape)
    if current_trace() is None:
        return tuple(stage_eagerly(run, [x, *dyn], "qdwh"))
    return run(x, *dyn)


#: `shardc.lax.linalg` (JAX's `jax.lax.linalg`): the decompositions of `numpy_linalg` and these two
lax_linalg = SimpleNamespace(**vars(_built), qdwh=qdwh, cholesky_update=cholesky_update,
                             cholesky_update_p=cholesky_update_p)
