"""Differential: `holomorphic=True` of `grad` / `value_and_grad` / `jacrev` / `jacfwd` /
`hessian` against JAX 0.10.2: complex inputs and outputs differentiated as JAX does (the
transpose, not the conjugate transpose, of the linear map: f'(z) for holomorphic f), over
replicated and sharded complex64 arguments on 1-D to 3-D meshes, and JAX's TypeErrors for
the dtypes each transformation refuses (with and without `holomorphic`)."""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from oracle import JAX, Case, Placed, check, param

import shardc.numpy as snp


def J(ns):
    """The numpy namespace of a side."""
    return jnp if ns is JAX else snp


def _f(ns, v):
    """A holomorphic scalar function."""
    m = J(ns)
    return (m.sin(v) * v.reshape(-1)[0] + v ** 2 + m.exp(v / 4)).sum()


def _g(ns, v):
    """A holomorphic vector function (same shape)."""
    m = J(ns)
    return m.sin(v) * v.reshape(-1)[0] + m.exp(v) * 1j


def _grad(ns, x):
    return ns.grad(lambda v: _f(ns, v), holomorphic=True)(x)


def _value_and_grad(ns, x):
    return ns.value_and_grad(lambda v: _f(ns, v), holomorphic=True)(x)


def _jacrev(ns, x):
    return ns.jacrev(lambda v: _g(ns, v), holomorphic=True)(x)


def _jacfwd(ns, x):
    return ns.jacfwd(lambda v: _g(ns, v), holomorphic=True)(x)


def _hessian(ns, x):
    return ns.hessian(lambda v: _f(ns, v), holomorphic=True)(x)


def _z(*shape, seed=0):
    rs = np.random.RandomState(seed)
    return Placed(value=(rs.randn(*shape) + 1j * rs.randn(*shape)).astype(np.complex64) * 0.5)


TOL = (1e-4, 1e-4)


def cases():
    out = [Case(f"{name}-{mesh}-{arg}", mesh, fn, (arg,), mode="jit", tol=TOL)
           for name, fn in [("grad", _grad), ("value_and_grad", _value_and_grad)]
           for mesh, arg in [("1d", "c64[8]"), ("1d", "c64[8@X]"), ("2d", "c64[2@X,4@Y]"), ("3d", "c64[2@X,2@Y,2@Z]")]]
    out += [Case(f"{name}-{mesh}-{arg}", mesh, fn, (arg,), mode="jit", tol=TOL)
            for name, fn in [("jacrev", _jacrev), ("jacfwd", _jacfwd)]
            for mesh, arg in [("1d", "c64[4]"), ("2d", "c64[2@X,4]")]]
    out += [Case("hessian-1d", "1d", _hessian, (_z(3),), mode="jit", tol=(1e-3, 1e-3)),
            Case("grad-eager", "1d", _grad, (_z(4, seed=1),), mode="eager", tol=TOL)]
    # JAX's TypeErrors
    out += [
        Case("grad-holo-real-input", "1d", _grad, ("f32[4]",), expect="reject", kind=TypeError),
        Case("grad-holo-real-output", "1d", lambda ns, x: ns.grad(lambda v: J(ns).real(v).sum(), holomorphic=True)(x),
             ("c64[4]",), expect="reject", kind=TypeError),
        Case("grad-complex-output", "1d", lambda ns, x: ns.grad(lambda v: (v * 1j).sum())(x), ("c64[4]",),
             expect="reject", kind=TypeError),
        Case("jacrev-holo-real-input", "1d", _jacrev, ("f32[4]",), expect="reject", kind=TypeError),
        Case("jacrev-complex-output", "1d", lambda ns, x: ns.jacrev(lambda v: v * 1j)(x), ("f32[4]",),
             expect="reject", kind=TypeError),
        Case("jacrev-int-input", "1d", lambda ns, x: ns.jacrev(lambda v: v * 2)(x), ("i32[4]",),
             expect="reject", kind=TypeError),
        Case("jacfwd-holo-real-input", "1d", _jacfwd, ("f32[4]",), expect="reject", kind=TypeError),
        Case("jacfwd-complex-input", "1d", lambda ns, x: ns.jacfwd(lambda v: _g(ns, v))(x), ("c64[4]",),
             expect="reject", kind=TypeError),
        Case("jacfwd-holo-real-output", "1d", lambda ns, x: ns.jacfwd(lambda v: J(ns).real(v), holomorphic=True)(x),
             ("c64[4]",), expect="reject", kind=TypeError),
        Case("jacfwd-real-in-complex-out", "1d", lambda ns, x: ns.jacfwd(lambda v: v * 1j)(x), ("f32[4]",),
             mode="jit"),
    ]
    return out


@param(cases())
def test_holomorphic(case):
    check(case)
