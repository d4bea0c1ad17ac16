"""Differential: `shardc.experimental.ode.odeint` against JAX 0.10.2's `jax.experimental.ode`.

* values of several ODEs (linear decay, forced decay, harmonic oscillator as a pytree state,
  Lotka-Volterra with tuple args, a complex state), with `rtol` / `atol`, a small `mxstep`,
  `hmax`, eagerly and inside `jit`, under `vmap` over `y0`;
* the adjoint gradient (JAX's custom_vjp) w.r.t. `y0`, `t` and the extra args, and w.r.t. a
  value `func` closes over (JAX's `closure_convert` path);
* JAX's TypeErrors for non-float times and non-array args.
Leaves are compared by structure, shape, dtype, weak type and value (to rounding).
"""
from __future__ import annotations

from typing import Any, Callable

import jax
import jax.experimental.ode as JO
import jax.numpy as jnp
import numpy as np
import pytest

import shardc as sc
import shardc.experimental.ode as SO

T = np.linspace(0.0, 2.0, 5).astype(np.float32)
Y2 = np.array([1.0, 2.0], np.float32)
A = np.float32(0.7)


def _sides():
    """(top, numpy, ode) of JAX, then of shardc."""
    return ((jax, jnp, JO), (sc, sc.numpy, SO))


def decay(N):
    return lambda y, t, a: -a * y


def forced(N):
    return lambda y, t, a: -a * y + N.sin(3.0 * t)


def oscillator(N):
    return lambda s, t, k: {"x": s["v"], "v": -k * s["x"]}


def lotka(N):
    return lambda y, t, ab, cd: N.stack([ab[0] * y[0] - ab[1] * y[0] * y[1], -cd[0] * y[1] + cd[1] * y[0] * y[1]])


def matrix(N):
    M = np.array([[-0.5, 1.0], [-1.0, -0.2]], np.float32)
    return lambda y, t: N.dot(M, y)


def complex_rot(N):
    return lambda y, t: 1j * y - 0.1 * y


OSC0 = {"x": np.float32(1.0), "v": np.float32(0.0)}
LV0 = np.array([1.0, 0.5], np.float32)
LV_ARGS = (np.array([1.1, 0.4], np.float32), np.array([0.4, 0.1], np.float32))

#: name -> fn(N, odeint, t) solving one ODE (t: the side's time array)
CASES: dict[str, Callable[..., Any]] = {
    "decay": lambda N, o, t: o(decay(N), Y2, t, A),
    "decay_python_arg": lambda N, o, t: o(decay(N), Y2, t, 0.7),
    "forced": lambda N, o, t: o(forced(N), Y2, t, A),
    "forced_rtol_atol": lambda N, o, t: o(forced(N), Y2, t, A, rtol=1e-3, atol=1e-3),
    "forced_mxstep": lambda N, o, t: o(forced(N), Y2, t, A, mxstep=2),
    "forced_hmax": lambda N, o, t: o(forced(N), Y2, t, A, hmax=0.05),
    "oscillator_pytree": lambda N, o, t: o(oscillator(N), OSC0, t, np.float32(4.0)),
    "lotka_tuple_args": lambda N, o, t: o(lotka(N), LV0, t, *LV_ARGS),
    "matrix": lambda N, o, t: o(matrix(N), Y2, t),
    "complex_state": lambda N, o, t: o(complex_rot(N), (Y2 + 1j * Y2).astype(np.complex64), t),
    "scalar_state": lambda N, o, t: o(decay(N), np.float32(3.0), t, A),
    "two_times": lambda N, o, t: o(forced(N), Y2, t[:2], A),
}


def _leaf_info(x) -> tuple:
    t = jax.typeof(x) if isinstance(x, jax.Array) else sc.typeof(x)
    return np.asarray(x).shape, np.asarray(x).dtype, bool(getattr(t, "weak_type", False))


def _same(j, s, *, rtol: float = 1e-5, weak: bool = True) -> None:
    jl, jt = jax.tree.flatten(j)
    sl, st = jax.tree.flatten(s)
    assert str(jt) == str(st), (jt, st)
    for x, y in zip(jl, sl):
        ji, si = _leaf_info(x), _leaf_info(y)
        assert ji[:2] == si[:2] and (not weak or ji == si), (ji, si)
        np.testing.assert_allclose(np.asarray(y), np.asarray(x), rtol=rtol, atol=rtol)


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_match_jax(name: str) -> None:
    got = [CASES[name](N, ode.odeint, N.asarray(T)) for _, N, ode in _sides()]
    _same(*got)


@pytest.mark.parametrize("name", ["forced", "oscillator_pytree", "lotka_tuple_args"])
def test_values_inside_jit_match_jax(name: str) -> None:
    got = [top.jit(lambda t: CASES[name](N, ode.odeint, t))(T) for top, N, ode in _sides()]
    _same(*got)


def test_vmap_over_y0_matches_jax() -> None:
    ys = np.stack([Y2, 2 * Y2, -Y2])
    got = [top.vmap(lambda y: ode.odeint(forced(N), y, N.asarray(T), A))(ys) for top, N, ode in _sides()]
    _same(*got)


#: gradients: name -> (fn(N, odeint, y0, t, *args) -> scalar, y0, args)
GRADS = {
    "forced": (lambda N, o, y, t, a: N.sum(o(forced(N), y, t, a) ** 2), Y2, (A,)),
    "oscillator_pytree": (lambda N, o, y, t, k: N.sum(o(oscillator(N), y, t, k)["x"] ** 2), OSC0, (np.float32(4.0),)),
    "lotka_tuple_args": (lambda N, o, y, t, ab, cd: N.sum(o(lotka(N), y, t, ab, cd)[-1]), LV0, LV_ARGS),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_adjoint_gradient_matches_jax(name: str) -> None:
    fn, y0, args = GRADS[name]
    got = []
    for top, N, ode in _sides():
        loss = lambda y, t, *a: fn(N, ode.odeint, y, t, *a)  # noqa: E731  (one side's loss)
        got.append(top.grad(loss, argnums=tuple(range(2 + len(args))))(y0, N.asarray(T), *args))
    _same(*got, rtol=2e-4)


def test_gradient_of_a_closed_over_value_matches_jax() -> None:
    """`func` closes over a differentiated value: closure_convert hoists it into the custom_vjp's args."""
    got = []
    for top, N, ode in _sides():
        def loss(w):
            return N.sum(ode.odeint(lambda y, t: -w * y + N.cos(t), Y2, N.asarray(T))[-1])
        got.append((top.grad(loss)(A), top.jit(top.grad(loss))(A)))
    _same(*got, rtol=2e-4)


def test_jit_of_grad_matches_jax() -> None:
    fn, y0, args = GRADS["forced"]
    got = [top.jit(top.grad(lambda y: fn(N, ode.odeint, y, N.asarray(T), *args)))(y0) for top, N, ode in _sides()]
    _same(*got, rtol=2e-4)


#: JAX's errors: name -> fn(N, odeint)
ERRORS = {
    "int_times": lambda N, o: o(decay(N), Y2, N.arange(3), A),
    "string_arg": lambda N, o: o(lambda y, t, s: y, Y2, N.asarray(T), "abc"),
    "object_arg": lambda N, o: o(lambda y, t, s: y, Y2, N.asarray(T), {"k": object()}),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_jax(name: str) -> None:
    errs = []
    for _, N, ode in _sides():
        with pytest.raises(Exception) as e:
            ERRORS[name](N, ode.odeint)
        errs.append(e.value)
    je, se = errs
    assert isinstance(se, type(je)), (je, se)
    assert str(je).split(",")[0] == str(se).split(",")[0], (str(je), str(se))


#: names JAX's module imports that are not built (docs/api.md): its internals (jaxpr machinery) and the
#: `jax` package itself (shardc's top package is not bound inside the module)
JAX_INTERNALS = {"core", "api_util", "lu", "jax"}


def test_every_jax_name_is_built() -> None:
    public = {n for n in dir(JO) if not n.startswith("_")}
    missing = {n for n in public - JAX_INTERNALS if not hasattr(SO, n)}
    assert missing == set()
    defined = {n for n in public if getattr(getattr(JO, n), "__module__", None) == JO.__name__}
    assert defined <= set(SO.__all__), defined - set(SO.__all__)
    _same(JO.optimal_step_size(jnp.float32(0.1), jnp.float32(0.5)), SO.optimal_step_size(sc.numpy.float32(0.1),
                                                                                         sc.numpy.float32(0.5)))
    _same(JO.abs2(jnp.complex64(1 + 2j)), SO.abs2(sc.numpy.complex64(1 + 2j)))
