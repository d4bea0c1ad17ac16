"""`device_put`, `reshard` and `with_sharding_constraint` over pytrees, as JAX's: a dict of
parameters with one spec or a spec per leaf (a pytree prefix), lists, typed PRNG key arrays
(whose key data keeps its trailing dim unsharded), eagerly and inside jit; JAX's ValueError
for a spec tree that is not a prefix."""
from __future__ import annotations

import jax
import numpy as np
import pytest

import shardc as sc

PS = {"w": np.arange(32, dtype=np.float32).reshape(8, 4), "b": np.arange(4, dtype=np.float32)}


def _sides():
    jm = jax.make_mesh((2, 4), ("X", "Y"), axis_types=(jax.sharding.AxisType.Explicit,) * 2)
    sm = sc.make_mesh((2, 4), ("X", "Y"))
    return [(jax, jax.sharding.reshard, jax.lax.with_sharding_constraint, jax.set_mesh(jm)),
            (sc, sc.reshard, sc.with_sharding_constraint, sc.set_mesh(sm))]


PROGRAMS = {
    "device_put-one-spec": lambda ns, rs, wsc: ns.device_put(PS, ns.P("X")),
    "device_put-per-leaf": lambda ns, rs, wsc: ns.device_put(PS, {"w": ns.P("X", "Y"), "b": ns.P("Y")}),
    "device_put-list": lambda ns, rs, wsc: ns.device_put([PS["w"], PS["w"] * 2], ns.P(None, "Y")),
    "reshard-jit": lambda ns, rs, wsc: ns.jit(lambda t: rs(t, {"w": ns.P(None, "Y"), "b": ns.P()}))(
        ns.device_put(PS, {"w": ns.P("X", "Y"), "b": ns.P("Y")})),
    "reshard-eager": lambda ns, rs, wsc: rs(ns.device_put(PS, ns.P()), {"w": ns.P("X"), "b": ns.P("Y")}),
    "wsc-jit": lambda ns, rs, wsc: ns.jit(lambda t: wsc(t, {"w": ns.P("X", "Y"), "b": ns.P("Y")}))(
        ns.device_put(PS, {"w": ns.P("X", "Y"), "b": ns.P("Y")})),
    "keys-device_put": lambda ns, rs, wsc: ns.random.key_data(
        ns.device_put(ns.random.split(ns.random.key(0), 8), ns.P("X"))),
    "keys-reshard-jit": lambda ns, rs, wsc: ns.random.key_data(ns.jit(lambda k: rs(k, ns.P("X")))(
        ns.random.split(ns.random.key(3), 8))),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_pytree_shardings_as_jax(name):
    out = []
    for ns, rs, wsc, ctx in _sides():
        with ctx:
            out.append(PROGRAMS[name](ns, rs, wsc))
    theirs, ours = out
    assert jax.tree_util.tree_structure(theirs) == jax.tree_util.tree_structure(ours)
    for a, b in zip(jax.tree_util.tree_leaves(theirs), jax.tree_util.tree_leaves(ours)):
        assert str(sc.typeof(b)) == str(jax.typeof(a))
        np.testing.assert_array_equal(np.asarray(b), np.asarray(a))


def test_key_array_types_as_jax():
    types = []
    for ns, rs, wsc, ctx in _sides():
        with ctx:
            ks = ns.random.split(ns.random.key(0), 8)
            types.append((str(ns.typeof(ns.device_put(ks, ns.P("X")))),
                          str(ns.typeof(ns.jit(lambda k: rs(k, ns.P("X")))(ks)))))
    assert types[0] == types[1] == ("key<fry>[8@X]", "key<fry>[8@X]")


def test_not_a_prefix_is_a_value_error():
    for ns, rs, wsc, ctx in _sides():
        with ctx, pytest.raises(ValueError, match="must be a tree prefix of the corresponding value"):
            ns.device_put(PS, {"w": ns.P("X")})
