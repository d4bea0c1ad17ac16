"""The Limited-Memory Broyden-Fletcher-Goldfarb-Shanno minimization algorithm (JAX's
`jax/_src/scipy/optimize/_lbfgs.py`, Copyright 2021 The JAX Authors, Apache License 2.0), on
shardc's `numpy`, `lax.while_loop`/`fori_loop` and `value_and_grad`; `minimize`'s method
'l-bfgs-experimental-do-not-rely-on-this'."""
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

_dot = partial(jnp.dot, precision=lax.Precision.HIGHEST)


class LBFGSResults(NamedTuple):
    """Results from L-BFGS optimization (`status`: 0 nominal, 1 max iters, 2 max function
    evaluations, 3 max gradient evaluations, 4 insufficient progress (ftol), 5 line search failed;
    `ls_status`: the last line search's end status)."""

    converged: Array
    failed: Array
    k: int | Array
    nfev: int | Array
    ngev: int | Array
    x_k: Array
    f_k: Array
    g_k: Array
    s_history: Array
    y_history: Array
    rho_history: Array
    gamma: float | Array
    status: int | Array
    ls_status: int | Array


def _minimize_lbfgs(fun: Callable, x0: Array, maxiter: float | None = None, norm=np.inf, maxcor: int = 10,
                    ftol: float = 2.220446049250313e-09, gtol: float = 1e-05, maxfun: float | None = None,
                    maxgrad: float | None = None, maxls: int = 20):
    """Minimize `fun` from `x0` by L-BFGS: Algorithm 7.5 of Wright and Nocedal, 'Numerical
    Optimization', 1999, pg. 176-185, generalized to complex variables (Sorber, Barel and
    Lathauwer, SIAM J. Optim. 22(3), 2012)."""
    d = len(x0)
    dtype = jnp.asarray(x0).dtype if not hasattr(x0, "dtype") else np.dtype(x0.dtype)

    # ensure there is at least one termination condition
    if (maxiter is None) and (maxfun is None) and (maxgrad is None):
        maxiter = d * 200
    # set others to inf, such that >= is supported
    if maxiter is None:
        maxiter = np.inf
    if maxfun is None:
        maxfun = np.inf
    if maxgrad is None:
        maxgrad = np.inf

    # initial evaluation
    f_0, g_0 = value_and_grad(fun)(x0)
    state_initial = LBFGSResults(
        converged=jnp.array(False, dtype=bool),
        failed=jnp.array(False, dtype=bool),
        k=0,
        nfev=1,
        ngev=1,
        x_k=x0,
        f_k=f_0,
        g_k=g_0,
        s_history=jnp.zeros((maxcor, d), dtype=dtype),
        y_history=jnp.zeros((maxcor, d), dtype=dtype),
        rho_history=jnp.zeros((maxcor,), dtype=dtype),
        gamma=1.0,
        status=0,
        ls_status=0,
    )

    def cond_fun(state: LBFGSResults):
        return (~state.converged) & (~state.failed)

    def body_fun(state: LBFGSResults):
        # find search direction
        p_k = _two_loop_recursion(state)
        # line search
        ls_results = line_search(f=fun, xk=state.x_k, pk=p_k, old_fval=state.f_k, gfk=state.g_k, maxiter=maxls)
        # evaluate at next iterate
        s_k = jnp.asarray(ls_results.a_k).astype(p_k.dtype) * p_k
        x_kp1 = state.x_k + s_k
        f_kp1 = ls_results.f_k
        g_kp1 = ls_results.g_k
        y_k = g_kp1 - state.g_k
        rho_k_inv = jnp.real(_dot(y_k, s_k))
        rho_k = jnp.reciprocal(rho_k_inv).astype(y_k.dtype)
        gamma = rho_k_inv / jnp.real(_dot(jnp.conj(y_k), y_k))

        # replacements for next iteration
        status = jnp.array(0)
        status = jnp.where(state.f_k - f_kp1 < ftol, 4, status)
        status = jnp.where(state.ngev >= maxgrad, 3, status)
        status = jnp.where(state.nfev >= maxfun, 2, status)
        status = jnp.where(state.k >= maxiter, 1, status)
        status = jnp.where(ls_results.failed, 5, status)

        converged = jnp_linalg.norm(g_kp1, ord=norm) < gtol

        # TODO(jakevdp): use a fixed-point procedure rather than type-casting?
        return state._replace(
            converged=converged,
            failed=(status > 0) & (~converged),
            k=state.k + 1,
            nfev=state.nfev + ls_results.nfev,
            ngev=state.ngev + ls_results.ngev,
            x_k=x_kp1.astype(state.x_k.dtype),
            f_k=f_kp1.astype(state.f_k.dtype),
            g_k=g_kp1.astype(state.g_k.dtype),
            s_history=_update_history_vectors(history=state.s_history, new=s_k),
            y_history=_update_history_vectors(history=state.y_history, new=y_k),
            rho_history=_update_history_scalars(history=state.rho_history, new=rho_k),
            gamma=gamma.astype(state.g_k.dtype),
            status=jnp.where(converged, 0, status),
            ls_status=ls_results.status,
        )

    return lax.while_loop(cond_fun, body_fun, state_initial)


def _two_loop_recursion(state: LBFGSResults):
    dtype = state.rho_history.dtype
    his_size = len(state.rho_history)
    curr_size = jnp.where(state.k < his_size, state.k, his_size)
    q = -jnp.conj(state.g_k)
    a_his = jnp.zeros_like(state.rho_history)

    def body_fun1(j, carry):
        i = his_size - 1 - j
        _q, _a_his = carry
        a_i = state.rho_history[i] * _dot(jnp.conj(state.s_history[i]), _q).real.astype(dtype)
        _a_his = _a_his.at[i].set(a_i)
        _q = _q - a_i * jnp.conj(state.y_history[i])
        return _q, _a_his

    q, a_his = lax.fori_loop(0, curr_size, body_fun1, (q, a_his))
    q = state.gamma * q

    def body_fun2(j, _q):
        i = his_size - curr_size + j
        b_i = state.rho_history[i] * _dot(state.y_history[i], _q).real.astype(dtype)
        _q = _q + (a_his[i] - b_i) * state.s_history[i]
        return _q

    return lax.fori_loop(0, curr_size, body_fun2, q)


def _update_history_vectors(history, new):
    # TODO(Jakob-Unfried) use rolling buffer instead? See #6053
    return jnp.roll(history, -1, axis=0).at[-1, :].set(new)


def _update_history_scalars(history, new):
    # TODO(Jakob-Unfried) use rolling buffer instead? See #6053
    return jnp.roll(history, -1, axis=0).at[-1].set(new)
