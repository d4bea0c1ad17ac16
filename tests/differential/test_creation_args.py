"""The creation functions take JAX's arguments (device=, order=, copy=, ndmin=) with JAX's
behaviour: device= places an eager result (a NamedSharding as if out_sharding, a Device on that
device) and is ignored inside jit, device= with out_sharding= is JAX's ValueError; reshape's
order='F' reads column-major. Compared with jax.numpy on a 2x4 Explicit mesh."""
from __future__ import annotations

import inspect

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import shardc as sc
import shardc.numpy as snp

NAMES = ["asarray", "array", "ones", "zeros", "full", "empty", "ones_like", "zeros_like", "full_like", "arange",
         "reshape", "astype"]


@pytest.mark.parametrize("name", NAMES)
def test_signature_names_as_jax(name):
    ours = [p.name for p in inspect.signature(getattr(snp, name)).parameters.values()]
    theirs = [p.name for p in inspect.signature(getattr(jnp, name)).parameters.values() if p.name != "args"]
    assert ours == theirs


def _both(fn):
    """(shardc result, JAX result) of `fn(ns, mesh, sharding_ctor)` under each side's mesh."""
    jm = jax.make_mesh((2, 4), ("X", "Y"), axis_types=(jax.sharding.AxisType.Explicit,) * 2)
    sm = sc.make_mesh((2, 4), ("X", "Y"))
    with jax.set_mesh(jm):
        theirs = fn(jnp, jax, lambda *s: jax.sharding.NamedSharding(jm, jax.P(*s)))
    with sc.set_mesh(sm):
        ours = fn(snp, sc, lambda *s: sc.NamedSharding(sm, sc.P(*s)))
    return ours, theirs


CASES = {
    "ones-device": lambda np_, ns, S: np_.ones((8, 4), device=S("X")),
    "ones-device-jit": lambda np_, ns, S: ns.jit(lambda: np_.ones((8, 4), device=S("X")))(),
    "zeros_like-device": lambda np_, ns, S: np_.zeros_like(np_.ones((8, 4)), device=S(None, "Y")),
    "full-device": lambda np_, ns, S: np_.full((8,), 2.5, device=S("X")),
    "arange-device": lambda np_, ns, S: np_.arange(8, device=S("X")),
    "asarray-device": lambda np_, ns, S: np_.asarray(np.ones((8, 4), np.float32), device=S("X", "Y")),
    "asarray-out-sharding-jit": lambda np_, ns, S: ns.jit(lambda x: np_.asarray(x, out_sharding=ns.P("X", "Y")))(
        np.ones((8, 4), np.float32)),
    "array-ndmin": lambda np_, ns, S: np_.array([1, 2, 3], ndmin=3),
    "reshape-F": lambda np_, ns, S: np_.reshape(np_.arange(24.0), (2, 3, 4), order="F"),
    "reshape-F-infer": lambda np_, ns, S: np_.reshape(np_.arange(8.0), (2, -1), order="F"),
    "astype-copy": lambda np_, ns, S: np_.astype(np_.arange(4.0), np_.int32, copy=True),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_creation_as_jax(name):
    ours, theirs = _both(CASES[name])
    assert str(sc.typeof(ours)) == str(jax.typeof(theirs))
    np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))


def test_device_on_one_device_as_jax():
    d = jax.devices()[3]
    ours, theirs = snp.ones((8, 4), device=d), jnp.ones((8, 4), device=d)
    assert list(ours.devices()) == list(theirs.devices()) == [d]
    assert str(sc.typeof(ours)) == str(jax.typeof(theirs))


@pytest.mark.parametrize("call, kind, phrase", [
    (lambda np_, ns, S: np_.ones((8,), device=S("X"), out_sharding=ns.P("X")), ValueError,
     "Only one of `device` or `out_sharding` can be set"),
    (lambda np_, ns, S: np_.reshape(np_.arange(8.0), (2, 4), order="A"), NotImplementedError,
     "np.reshape order=A is not implemented"),
    (lambda np_, ns, S: np_.asarray(np.ones(3), order="F"), NotImplementedError, "Only implemented for order='K'"),
])
def test_errors_as_jax(call, kind, phrase):
    for side in (0, 1):
        with pytest.raises(kind, match=phrase.replace("(", r"\(")):
            _both_one(call, side)


def _both_one(fn, side):
    if side == 0:
        jm = jax.make_mesh((2, 4), ("X", "Y"), axis_types=(jax.sharding.AxisType.Explicit,) * 2)
        with jax.set_mesh(jm):
            return fn(jnp, jax, lambda *s: jax.sharding.NamedSharding(jm, jax.P(*s)))
    sm = sc.make_mesh((2, 4), ("X", "Y"))
    with sc.set_mesh(sm):
        return fn(snp, sc, lambda *s: sc.NamedSharding(sm, sc.P(*s)))


#: `*_like` of a committed sharded array with no mesh in context: JAX's `lax.full_like` keeps the
#: array's sharding (its mesh is concrete), where shardc refused the spec for want of a context mesh
LIKE_OUTSIDE_A_MESH = {
    "full_like": lambda ns, x: ns.full_like(x, 1),
    "zeros_like": lambda ns, x: ns.zeros_like(x),
    "ones_like-f32": lambda ns, x: ns.ones_like(x, dtype=ns.float32),
    "full_like-shape": lambda ns, x: ns.full_like(x, 2, shape=(3, 8)),
    "full_like-weak": lambda ns, x: ns.full_like(x * 1, 3),
    "remainder-weak": lambda ns, x: ns.remainder(7, x > 1),
    "divmod-weak": lambda ns, x: ns.divmod(7, x > 1)[1],
}


@pytest.mark.parametrize("name", sorted(LIKE_OUTSIDE_A_MESH))
@pytest.mark.parametrize("spec", [("X", "Y"), (None, "Y"), ()])
def test_like_outside_a_mesh_as_jax(name, spec):
    v = np.arange(16, dtype=np.int32).reshape(2, 8) % 5
    jm = jax.make_mesh((2, 4), ("X", "Y"), axis_types=(jax.sharding.AxisType.Explicit,) * 2)
    sm = sc.make_mesh((2, 4), ("X", "Y"))
    fn = LIKE_OUTSIDE_A_MESH[name]
    j = fn(jnp, jax.device_put(v, jax.sharding.NamedSharding(jm, jax.P(*spec))))
    s = fn(snp, sc.device_put(v, sc.NamedSharding(sm, sc.P(*spec))))
    assert str(sc.typeof(s)) == str(jax.typeof(j))
    assert str(s.sharding) == str(j.sharding)
    np.testing.assert_array_equal(np.asarray(s), np.asarray(j))
