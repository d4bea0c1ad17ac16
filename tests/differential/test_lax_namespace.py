"""`from shardc import lax` as `from jax import lax`: control flow, collectives and the
sharding assertions are reachable under their `lax` names, and `lax.map` agrees with
`jax.lax.map` (types, values, gradients, closures)."""
from __future__ import annotations

import jax
import pytest
from oracle import Case, check, param

import shardc as sc
from shardc import lax

# kept in the wrapper layer for transformation rules; JAX has them elsewhere
# (`jax.sharding.reshard`, `jnp.zeros_like`)
NOT_LAX = {"reshard", "zeros_like"}


def test_lax_names_are_jax_lax_names():
    assert set(lax.__all__) - NOT_LAX <= set(dir(jax.lax)), set(lax.__all__) - NOT_LAX - set(dir(jax.lax))
    for name in lax.__all__:
        assert callable(getattr(lax, name)), name
    assert lax.scan is sc.scan and lax.psum is sc.psum and not hasattr(sc, "map")
    with pytest.raises(AttributeError):
        lax.no_such_function  # noqa: B018


def _map(ns, x, w):
    return ns.lax.map(lambda r: ns.tanh(r @ w), x)


def _map_pytree(ns, x, w):
    return ns.lax.map(lambda d: {"s": ns.sum(d["a"]), "a": d["a"] * 2.0}, {"a": x})


def _map_grad(ns, x, w):
    return ns.grad(lambda w: ns.sum(ns.lax.map(lambda r: ns.sin(r @ w), x)))(w)


def _map_in_jit_closure(ns, x, w):
    return ns.jit(lambda x: ns.lax.map(lambda r: r * ns.sum(w), x))(x)


PROGRAMS = [("map", _map), ("map-pytree", _map_pytree), ("map-grad", _map_grad),
            ("map-closure", _map_in_jit_closure)]
CASES = [Case(f"{name}-{mesh}-{mode}", mesh, fn, args, mode=mode, expect="accept", collectives="at_most")
         for name, fn in PROGRAMS
         for mesh, args in [("2d", ("f32[4,8@X,16]", "f32[16,4@Y]")), ("1d", ("f32[3,8@X,16]", "f32[16,8]"))]
         for mode in ("trace", "jit")]


@param(CASES)
def test_lax_map(case):
    check(case)


def test_map_batch_size_needs_vmap(mesh24):
    with pytest.raises(sc.ShardcNotImplementedError, match="batch_size"):
        sc.jit(lambda x: lax.map(lambda r: r, x, batch_size=2))("f32[4,8]")
