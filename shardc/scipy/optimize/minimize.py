"""`minimize` and `OptimizeResults` (JAX's `jax/_src/scipy/optimize/minimize.py`, Copyright 2020
The JAX Authors, Apache License 2.0), on shardc's BFGS and L-BFGS ports."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from ... import numpy as jnp
from ...errors import ShardcTypeError, ShardcValueError
from ._lbfgs import _minimize_lbfgs
from .bfgs import minimize_bfgs

Array = Any


class OptimizeResults(NamedTuple):
    """Object holding optimization results.

    Parameters:
      x: final solution.
      success: ``True`` if optimization succeeded.
      status: integer solver specific return code. 0 means converged (nominal),
        1=max BFGS iters reached, 3=zoom failed, 4=saddle point reached,
        5=max line search iters reached, -1=undefined
      fun: final function value.
      jac: final jacobian array.
      hess_inv: final inverse Hessian estimate.
      nfev: integer number of function calls used.
      njev: integer number of gradient evaluations.
      nit: integer number of iterations of the optimization algorithm.
    """

    x: Array
    success: bool | Array
    status: int | Array
    fun: Array
    jac: Array
    hess_inv: Array | None
    nfev: int | Array
    njev: int | Array
    nit: int | Array


def minimize(fun: Callable, x0: Array, args: tuple = (), *, method: str, tol: float | None = None,
             options: Mapping[str, Any] | None = None) -> OptimizeResults:
    """`jax.scipy.optimize.minimize`: minimize `fun(x, *args)` over a 1-D `x` from `x0` with
    `method` 'BFGS' or 'l-bfgs-experimental-do-not-rely-on-this' (gradients by autodiff; `tol`
    is accepted and, as in JAX, unused: pass `options={'gtol': ...}`)."""
    if options is None:
        options = {}
    if not isinstance(args, tuple):
        msg = "args argument to jax.scipy.optimize.minimize must be a tuple, got {}"
        raise ShardcTypeError(msg.format(args))

    def fun_with_args(x):
        return fun(x, *args)

    if method.lower() == "bfgs":
        results = minimize_bfgs(fun_with_args, x0, **options)
        success = results.converged & jnp.logical_not(results.failed)
        return OptimizeResults(x=results.x_k, success=success, status=results.status, fun=results.f_k,
                               jac=results.g_k, hess_inv=results.H_k, nfev=results.nfev, njev=results.ngev,
                               nit=results.k)

    if method.lower() == "l-bfgs-experimental-do-not-rely-on-this":
        results = _minimize_lbfgs(fun_with_args, x0, **options)
        success = results.converged & jnp.logical_not(results.failed)
        return OptimizeResults(x=results.x_k, success=success, status=results.status, fun=results.f_k,
                               jac=results.g_k, hess_inv=None, nfev=results.nfev, njev=results.ngev,
                               nit=results.k)

    raise ShardcValueError(f"Method {method} not recognized")
