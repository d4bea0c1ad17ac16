"""float0 values (the tangents and cotangents of integer and bool values) across the boundary of
`sc.jit` programs and `sc.vmap`, against jax 0.10.2: `jit(grad(f, allow_int=True))` returns the
float0 cotangent of an integer argument, float0 tangents are arguments of a jitted `jvp`, vmap
maps float0 arguments and results (JAX passes a `bool` placeholder through the program and
rebuilds the host `np.zeros(shape, float0)`); composed with shard_map; JAX's rejections."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from oracle import placed_pair

import shardc as sc
from shardc import P

SPECS = [P(), P("X"), P("Y"), P(("X", "Y"))]
SPECS2 = [P(), P("X"), P(None, "Y"), P("X", "Y"), P(None, ("X", "Y"))]
IDTYPES = [np.int32, np.bool_, np.uint8]


def _same(a, b):
    """Same tree, float0 leaves where JAX has them (same shapes), other leaves equal in type and value."""
    la, ta = jax.tree.flatten(a)
    lb, tb = jax.tree.flatten(b)
    assert str(ta) == str(tb), (ta, tb)
    for x, y in zip(la, lb):
        if getattr(y, "dtype", None) == jax.float0:
            assert isinstance(x, np.ndarray) and x.dtype == sc.float0 and x.shape == y.shape, (x, y)
            continue
        assert getattr(x, "dtype", None) != sc.float0, x
        assert str(sc.typeof(x)) == str(jax.typeof(y)), (sc.typeof(x), jax.typeof(y))
        np.testing.assert_allclose(np.asarray(x, np.float32), np.asarray(y, np.float32), rtol=1e-6, atol=1e-6)


def _f(np_):
    return lambda a, b: np_.sum(a * b.astype(np.float32))


@pytest.mark.parametrize("idtype", IDTYPES)
@pytest.mark.parametrize("spec", SPECS)
def test_jit_grad_allow_int_returns_float0(meshes, spec, idtype):
    x, jx = placed_pair(meshes, np.linspace(0, 1, 8, dtype=np.float32), spec)
    i, ji = placed_pair(meshes, (np.arange(8) % 3).astype(idtype), spec)
    res = []
    for ns, np_, a, b in ((sc, sc.numpy, x, i), (jax, jnp, jx, ji)):
        g = ns.grad(_f(np_), argnums=(0, 1), allow_int=True)
        vg = ns.value_and_grad(_f(np_), argnums=1, allow_int=True)
        res.append((ns.jit(g)(a, b), ns.jit(vg)(a, b), ns.jit(lambda a, b: {"g": g(a, b)[1], "y": a * 2.0})(a, b)))
    _same(*res)


@pytest.mark.parametrize("spec,idtype", [(s, IDTYPES[k % len(IDTYPES)]) for k, s in enumerate(SPECS2)])
def test_jit_jvp_takes_float0_tangents(meshes, spec, idtype):
    shape = (4, 8)
    x, jx = placed_pair(meshes, np.linspace(0, 1, 32, dtype=np.float32).reshape(shape), spec)
    i, ji = placed_pair(meshes, (np.arange(32) % 3).astype(idtype).reshape(shape), spec)
    t0 = np.zeros(shape, jax.float0)
    res = []
    for ns, np_, a, b in ((sc, sc.numpy, x, i), (jax, jnp, jx, ji)):
        def h(a, b):
            return np_.sin(a) * b.astype(np.float32), b
        run = ns.jit(lambda a, b, ta, tb: ns.jvp(h, (a, b), (ta, tb)))
        res.append((run(a, b, a, t0), run(a, b, a * 2.0, t0),
                    ns.jit(lambda a, b, tb: ns.jvp(h, (a, b), (a, tb)))(a, b, t0)))
    _same(*res)


@pytest.mark.parametrize("spec", [P(), P("X"), P(None, None, "Y")])
@pytest.mark.parametrize("out_axes", [0, 1])
def test_vmap_float0_arguments_and_results(meshes, out_axes, spec):
    x, jx = placed_pair(meshes, np.linspace(0, 1, 24, dtype=np.float32).reshape(2, 3, 4), spec)
    i, ji = placed_pair(meshes, np.arange(24, dtype=np.int32).reshape(2, 3, 4) % 5, spec)
    r, jr = placed_pair(meshes, np.linspace(0, 1, 24, dtype=np.float32).reshape(2, 3, 4), P())
    t0 = np.zeros((2, 3, 4), jax.float0)
    res = []
    for ns, np_, a, b, c in ((sc, sc.numpy, x, i, r), (jax, jnp, jx, ji, jr)):
        g = ns.grad(_f(np_), argnums=(0, 1), allow_int=True)
        res.append((ns.vmap(g, out_axes=out_axes)(a, b), ns.jit(ns.vmap(g, out_axes=out_axes))(a, b),
                    ns.vmap(ns.vmap(g))(a, b)))
        if spec == P():   # a float0 argument's placeholder is unsharded: with replicated arguments only
            jv = ns.vmap(lambda a, b, ta, tb: ns.jvp(lambda a, b: (a * b, b), (a, b), (ta, tb)), out_axes=out_axes)
            res[-1] += (jv(c, b, c, t0), ns.jit(jv)(c, b, c * 2.0, t0))
    _same(*res)


def test_vmap_float0_argument_beside_sharded_batch_rejected(meshes):
    """JAX maps a float0 argument as an unsharded placeholder: beside an argument whose batch
    dim is sharded, vmap refuses the inconsistent specs."""
    x, jx = placed_pair(meshes, np.ones((2, 4), np.float32), P("X"))
    i, ji = placed_pair(meshes, np.ones((2, 4), np.int32), P("X"))
    t0 = np.zeros((2, 4), jax.float0)
    for ns, a, b in ((jax, jx, ji), (sc, x, i)):
        jv = ns.vmap(lambda a, b, ta, tb: ns.jvp(lambda a, b: (a * b, b), (a, b), (ta, tb)))
        with pytest.raises(ValueError, match="Mapped away dimension of inputs passed to vmap should be sharded "
                                             "the same. Got inconsistent axis specs: '?X'? vs None"):
            jv(a, b, a, t0)


def test_float0_through_shard_map(meshes):
    sm, jm = meshes
    x, jx = placed_pair(meshes, np.linspace(0, 1, 32, dtype=np.float32).reshape(8, 4), P("X", "Y"))
    i, ji = placed_pair(meshes, np.arange(32, dtype=np.int32).reshape(8, 4), P("X", "Y"))
    res = []
    for ns, np_, m, a, b in ((sc, sc.numpy, sm, x, i), (jax, jnp, jm, jx, ji)):
        body = ns.grad(lambda a, b: np_.sum(a * b.astype(np.float32)), argnums=(0, 1), allow_int=True)
        spec = ns.P("X", "Y")
        inner = ns.shard_map(lambda a, b: body(a, b)[0], mesh=m, in_specs=(spec, spec), out_specs=spec)
        res.append((ns.jit(inner)(a, b), ns.jit(ns.grad(lambda a, b: inner(a, b).sum(), argnums=(0, 1),
                                                        allow_int=True))(a, b)))
    _same(*res)


def test_jit_identity_of_float0(meshes):
    t0 = np.zeros((3, 2), jax.float0)
    res = [(ns.jit(lambda t, y: (t, y + 1.0, [t]))(t0, np.float32(1.0)), ns.jit(lambda: t0)()) for ns in (sc, jax)]
    _same(*res)
    # a second call with another float0 shape is another program (the shape is in its structure)
    assert sc.jit(lambda t: t)(np.zeros((5,), jax.float0)).shape == (5,)


def test_jitted_jvp_rejects_wrong_tangent_dtype(meshes):
    x, jx = placed_pair(meshes, np.ones(8, np.int32), P("X"))
    for ns, a in ((jax, jx), (sc, x)):
        with pytest.raises(TypeError, match="tangent dtype must be float0.Got primal dtype int32"):
            ns.jit(lambda a, t: ns.jvp(lambda a: a * 2, (a,), (t,)))(a, np.zeros(8, np.float32))


@pytest.mark.parametrize("op", ["add", "mul"])
def test_operations_on_float0_rejected(meshes, op):
    """float0s support no operations: JAX's TypeError and phrase, inside and outside a program."""
    x, jx = placed_pair(meshes, np.ones(3, np.float32), P())
    t0 = np.zeros(3, jax.float0)
    for ns, np_, a in ((jax, jnp, jx), (sc, sc.numpy, x)):
        fn = getattr(np_, {"add": "add", "mul": "multiply"}[op])
        for run in (lambda: fn(a, t0), lambda: ns.jit(lambda a, t: fn(a, t))(a, t0)):
            with pytest.raises(TypeError, match="float0s do not support any operations by design"):
                run()


#: Python operators and NumPy / jnp functions on a float0 made inside a program (the gradient of an
#: integer input): JAX's value there is traced, so each is JAX's TypeError naming the operation
FLOAT0_OPS = {
    "t + 1": lambda np_, t: t + 1, "1 + t": lambda np_, t: 1 + t, "t * 2": lambda np_, t: t * 2,
    "-t": lambda np_, t: -t, "t - 1": lambda np_, t: t - 1, "t / 2": lambda np_, t: t / 2,
    "t ** 2": lambda np_, t: t ** 2, "t < 1": lambda np_, t: t < 1, "abs(t)": lambda np_, t: abs(t),
    "t == 0": lambda np_, t: t == 0, "t != 0": lambda np_, t: t != 0, "t >= 0": lambda np_, t: t >= 0,
    "maximum(t, 1)": lambda np_, t: np_.maximum(t, 1), "sin(t)": lambda np_, t: np_.sin(t),
    "where(t, 1, 2)": lambda np_, t: np_.where(t, 1, 2),
}


@pytest.mark.parametrize("op", sorted(FLOAT0_OPS))
def test_operations_on_traced_float0_are_jax_type_error(op):
    msgs = []
    for ns, np_ in ((jax, jnp), (sc, sc.numpy)):
        def h(x, i):
            g = ns.grad(lambda x, i: (x * i).sum(), argnums=(0, 1), allow_int=True)(x, i)
            return FLOAT0_OPS[op](np_, g[1])
        with pytest.raises(TypeError) as e:
            ns.jit(h)(1.0, np.arange(3, dtype=np.int32))
        msgs.append(str(e.value))
    jax_msg, sc_msg = msgs
    assert "float0s do not support any operations by design" in jax_msg
    assert jax_msg.split(" with a float0")[0] in sc_msg, (jax_msg[:60], sc_msg[:80])


def test_traced_float0_leaves_the_program_as_a_host_float0_and_converts():
    """The traced float0 is still a float0 array (JAX's suggested `np.zeros_like(t, dtype=float)` works
    inside; the result outside is a plain NumPy float0 array, as JAX's)."""
    def h(x, i):
        g = sc.grad(lambda x, i: (x * i).sum(), argnums=(0, 1), allow_int=True)(x, i)
        return g[1], x + np.zeros_like(g[1], dtype=np.float32).sum()
    t, y = sc.jit(h)(1.0, np.arange(3, dtype=np.int32))
    assert type(t) is np.ndarray and t.dtype == sc.float0 and t.shape == (3,)
    assert float(y) == 1.0
