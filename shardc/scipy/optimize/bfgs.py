"""The Broyden-Fletcher-Goldfarb-Shanno minimization algorithm (JAX's
`jax/_src/scipy/optimize/bfgs.py`, Copyright 2020 The JAX Authors, Apache License 2.0), on
shardc's `numpy`, `lax.while_loop` and `value_and_grad`."""
from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, NamedTuple

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...autodiff import value_and_grad
from .line_search import line_search

Array = Any
jnp_linalg = jnp.linalg


class _BFGSResults(NamedTuple):
    """Results from BFGS optimization (`converged`; `failed`: the line search failed; `k`
    iterations; `nfev`/`ngev`/`nhev` evaluations; `x_k`, `f_k`, `g_k` the last iterate, value and
    gradient; `H_k` the inverse Hessian estimate; `status`, `line_search_status`)."""

    converged: bool | Array
    failed: bool | Array
    k: int | Array
    nfev: int | Array
    ngev: int | Array
    nhev: int | Array
    x_k: Array
    f_k: Array
    g_k: Array
    H_k: Array
    old_old_fval: Array
    status: int | Array
    line_search_status: int | Array


_dot = partial(jnp.dot, precision=lax.Precision.HIGHEST)
_einsum = partial(jnp.einsum, precision=lax.Precision.HIGHEST)


def minimize_bfgs(fun: Callable, x0: Array, maxiter: int | None = None, norm=np.inf, gtol: float = 1e-5,
                  line_search_maxiter: int = 10) -> _BFGSResults:
    """Minimize `fun` (of a flat array, a real scalar) from `x0` by BFGS: Algorithm 6.1 of Wright
    and Nocedal, 'Numerical Optimization', 1999, pg. 136-143; stops when |grad|_norm < gtol."""
    if maxiter is None:
        maxiter = np.size(x0) * 200
    d = x0.shape[0]
    initial_H = jnp.eye(d, dtype=x0.dtype)
    f_0, g_0 = value_and_grad(fun)(x0)
    state = _BFGSResults(
        converged=jnp_linalg.norm(g_0, ord=norm) < gtol,
        failed=False,
        k=0,
        nfev=1,
        ngev=1,
        nhev=0,
        x_k=x0,
        f_k=f_0,
        g_k=g_0,
        H_k=initial_H,
        old_old_fval=f_0 + jnp_linalg.norm(g_0) / 2,
        status=0,
        line_search_status=0,
    )

    def cond_fun(state):
        return jnp.logical_not(state.converged) & jnp.logical_not(state.failed) & (state.k < maxiter)

    def body_fun(state):
        p_k = -_dot(state.H_k, state.g_k)
        line_search_results = line_search(fun, state.x_k, p_k, old_fval=state.f_k, old_old_fval=state.old_old_fval,
                                          gfk=state.g_k, maxiter=line_search_maxiter)
        state = state._replace(
            nfev=state.nfev + line_search_results.nfev,
            ngev=state.ngev + line_search_results.ngev,
            failed=line_search_results.failed,
            line_search_status=line_search_results.status,
        )
        s_k = line_search_results.a_k * p_k
        x_kp1 = state.x_k + s_k
        f_kp1 = line_search_results.f_k
        g_kp1 = line_search_results.g_k
        y_k = g_kp1 - state.g_k
        rho_k = jnp.reciprocal(_dot(y_k, s_k))
        sy_k = s_k[:, np.newaxis] * y_k[np.newaxis, :]
        w = jnp.eye(d, dtype=rho_k.dtype) - rho_k * sy_k
        H_kp1 = _einsum("ij,jk,lk", w, state.H_k, w) + rho_k * s_k[:, np.newaxis] * s_k[np.newaxis, :]
        H_kp1 = jnp.where(jnp.isfinite(rho_k), H_kp1, state.H_k)
        converged = jnp_linalg.norm(g_kp1, ord=norm) < gtol
        return state._replace(converged=converged, k=state.k + 1, x_k=x_kp1, f_k=f_kp1, g_k=g_kp1, H_k=H_kp1,
                              old_old_fval=state.f_k)

    state = lax.while_loop(cond_fun, body_fun, state)
    status = jnp.where(
        state.converged,
        0,  # converged
        jnp.where(
            state.k == maxiter,
            1,  # max iters reached
            jnp.where(
                state.failed,
                2 + state.line_search_status,  # ls failed (+ reason)
                -1,  # undefined
            ),
        ),
    )
    return state._replace(status=status)
