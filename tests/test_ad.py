"""Autodiff against JAX: gradient values, cotangent sharding types (sharded ↔
sharded, replicated ↔ replicated, reduced ↔ unreduced) and collectives."""
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import PartitionSpec as JP

import shardc as sc
from shardc import P

MESH = ((2, 4), ("X", "Y"))


def _meshes():
    m = sc.make_mesh(*MESH)
    jm = jax.make_mesh(*MESH, devices=list(m.devices.flat))
    return m, jm


# (name, shapes, specs, shardc loss, jax loss, argnums)
CASES = [
    ("sin_sum", [(8, 4)], [("X", "Y")], lambda x: sc.sum(sc.sin(x)), lambda x: jnp.sum(jnp.sin(x)), 0),
    ("chain", [(8, 4)], [("X", None)],
     lambda x: sc.sum(sc.tanh(x * 2.0 + 1.0) * sc.exp(-x)),
     lambda x: jnp.sum(jnp.tanh(x * 2.0 + 1.0) * jnp.exp(-x)), 0),
    ("broadcast_add", [(8, 4), (4,)], [("X", "Y"), ("Y",)],
     lambda x, b: sc.sum((x + b) ** 2), lambda x, b: jnp.sum((x + b) ** 2), (0, 1)),
    ("row_bias_replicated", [(8, 4), (4,)], [("X", "Y"), (None,)],
     lambda x, b: sc.sum(sc.sin(x * b)), lambda x, b: jnp.sum(jnp.sin(x * b)), (0, 1)),
    ("mean_max", [(8, 4)], [("X", "Y")],
     lambda x: sc.mean(x) + sc.sum(sc.max(x, axis=1)),
     lambda x: jnp.mean(x) + jnp.sum(jnp.max(x, axis=1)), 0),
    ("div_sqrt_log", [(8, 4)], [("X", None)],
     lambda x: sc.sum(sc.sqrt(x * x + 1.0) / (1.0 + sc.log(x * x + 2.0))),
     lambda x: jnp.sum(jnp.sqrt(x * x + 1.0) / (1.0 + jnp.log(x * x + 2.0))), 0),
    ("transpose_reshape", [(8, 4)], [("X", "Y")],
     lambda x: sc.sum(sc.reshape(x.T, (32,)) * sc.arange(32.0)),
     lambda x: jnp.sum(jnp.reshape(x.T, (32,)) * jnp.arange(32.0)), 0),
    ("slice_concat", [(8, 4)], [(None, "Y")],
     lambda x: sc.sum(sc.concatenate([x[2:6], x[::2]], axis=0) ** 3),
     lambda x: jnp.sum(jnp.concatenate([x[2:6], x[::2]], axis=0) ** 3), 0),
    ("dot_explicit", [(8, 4), (4, 16)], [("X", None), (None, "Y")],
     lambda x, w: sc.sum(sc.relu(x @ w)), lambda x, w: jnp.sum(jax.nn.relu(x @ w)), (0, 1)),
    ("dot_contract_sharded", [(8, 4), (4, 16)], [(None, "X"), ("X", None)],
     lambda x, w: sc.sum(sc.dot(x, w, out_sharding=P("X"))),
     lambda x, w: jnp.sum(jnp.dot(x, w, out_sharding=JP("X"))), (0, 1)),
    ("einsum_batch", [(2, 8, 4), (2, 4, 8)], [("X", None, None), ("X", None, "Y")],
     lambda a, b: sc.sum(sc.einsum("bij,bjk->bik", a, b) ** 2),
     lambda a, b: jnp.sum(jnp.einsum("bij,bjk->bik", a, b) ** 2), (0, 1)),
    ("softmax_logsumexp", [(8, 4)], [("X", None)],
     lambda x: sc.sum(sc.softmax(x, axis=-1) * x) + sc.sum(sc.logsumexp(x, axis=1)),
     lambda x: jnp.sum(jax.nn.softmax(x, axis=-1) * x) + jnp.sum(jax.nn.logsumexp(x, axis=1)), 0),
    ("gelu_where", [(8, 4)], [("X", "Y")],
     lambda x: sc.sum(sc.where(x > 0, sc.gelu(x), x * 0.1)),
     lambda x: jnp.sum(jnp.where(x > 0, jax.nn.gelu(x), x * 0.1)), 0),
    ("cumsum", [(8, 4)], [(None, "Y")],
     lambda x: sc.sum(sc.cumsum(x, axis=0) ** 2), lambda x: jnp.sum(jnp.cumsum(x, axis=0) ** 2), 0),
    ("reshard", [(8, 4)], [("X", "Y")],
     lambda x: sc.sum(sc.sin(sc.reshard(x, P("Y", "X")))),
     lambda x: jnp.sum(jnp.sin(jax.sharding.reshard(x, JP("Y", "X")))), 0),
    ("megatron", [(16, 32), (32, 64), (64, 32)], [("X", None), (None, "Y"), ("Y", None)],
     lambda x, w1, w2: sc.sum(sc.dot(sc.gelu(x @ w1), w2, out_sharding=P("X", None)) ** 2),
     lambda x, w1, w2: jnp.sum(jnp.dot(jax.nn.gelu(x @ w1), w2, out_sharding=JP("X", None)) ** 2),
     (1, 2)),
]


def _collectives(text: str) -> list[str]:
    return sorted(re.findall(r"\b(all-reduce|all-gather|reduce-scatter|all-to-all|collective-permute)"
                             r"(?:-start)?\(", text))


@pytest.mark.parametrize("name,shapes,specs,f_sc,f_j,argnums", CASES, ids=[c[0] for c in CASES])
def test_grad_matches_jax(name, shapes, specs, f_sc, f_j, argnums):
    m, jm = _meshes()
    rng = np.random.default_rng(0)
    datas = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    with sc.set_mesh(m):
        xs = [sc.device_put(d, P(*s)) for d, s in zip(datas, specs)]
        prog = sc.jit(sc.value_and_grad(f_sc, argnums=argnums))
        val, gs = prog(*xs)
        ours = _collectives(prog.lower(*xs).compile().as_text())
    with jax.set_mesh(jm):
        jxs = [jax.device_put(d, JP(*s)) for d, s in zip(datas, specs)]
        jprog = jax.jit(jax.value_and_grad(f_j, argnums=argnums))
        jval, jgs = jprog(*jxs)
        theirs = _collectives(jprog.lower(*jxs).compile().as_text())
    np.testing.assert_allclose(np.asarray(val), np.asarray(jval), rtol=2e-4, atol=1e-4)
    gs = gs if isinstance(gs, tuple) else (gs,)
    jgs = jgs if isinstance(jgs, tuple) else (jgs,)
    for g, jg in zip(gs, jgs):
        assert str(sc.typeof(g)) == str(jax.typeof(jg))
        np.testing.assert_allclose(np.asarray(g), np.asarray(jg), rtol=2e-4, atol=2e-4)
    assert len(ours) <= len(theirs), (ours, theirs)


def _reduced_pair(shape_r, shape_s, spec_s):
    m = sc.make_mesh((2,), ("x",))
    jm = jax.make_mesh((2,), ("x",), devices=list(m.devices.flat))
    rng = np.random.default_rng(1)
    r, s = rng.standard_normal(shape_r).astype(np.float32), rng.standard_normal(shape_s).astype(np.float32)
    return m, jm, r, s


@pytest.mark.parametrize("name,f_sc,f_j,shape_s,spec_s", [
    ("reduced_sin_fwd_mul_bwd", lambda p, q: sc.sum(sc.sin(p) @ sc.sin(q)),
     lambda p, q: jnp.sum(jnp.sin(p) @ jnp.sin(q)), (2, 8), (None, "x")),
    ("reduced_times_scalar", lambda p, q: sc.sum(p * 2.0) + sc.sum(q),
     lambda p, q: jnp.sum(p * 2.0) + jnp.sum(q), (4, 2), ("x",)),
    ("reduced_reshard_sharded", lambda p, q: sc.sum(sc.reshard(p, P("x")) * q),
     lambda p, q: jnp.sum(jax.sharding.reshard(p, JP("x")) * q), (4, 2), ("x",)),
])
def test_reduced_input_gets_unreduced_cotangent(name, f_sc, f_j, shape_s, spec_s):
    m, jm, r, s = _reduced_pair((4, 2), shape_s, spec_s)
    with sc.set_mesh(m):
        p = sc.device_put(r, P(reduced={"x"}))
        q = sc.device_put(s, P(*spec_s))
        g1, g2 = sc.jit(sc.grad(f_sc, argnums=(0, 1)))(p, q)
    with jax.set_mesh(jm):
        jp = jax.device_put(r, JP(reduced={"x"}))
        jq = jax.device_put(s, JP(*spec_s))
        j1, j2 = jax.jit(jax.grad(f_j, argnums=(0, 1)))(jp, jq)
        j1_full = np.asarray(jax.sharding.reshard(j1, JP()))
    assert str(sc.typeof(g1)) == str(jax.typeof(j1)) and "{U:x}" in str(sc.typeof(g1))
    assert str(sc.typeof(g2)) == str(jax.typeof(j2))
    np.testing.assert_allclose(np.asarray(g1), j1_full, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(g2), np.asarray(j2), rtol=1e-5, atol=1e-5)


def test_grad_eagerly_and_vjp_type_check(mesh24):
    x = sc.device_put(np.arange(32, dtype=np.float32).reshape(8, 4), P("X", "Y"))
    g = sc.grad(lambda a: sc.sum(a * a))(x)
    assert str(sc.typeof(g)) == "float32[8@X,4@Y]"
    np.testing.assert_allclose(np.asarray(g), 2 * np.arange(32).reshape(8, 4))

    @sc.jit
    def f(a):
        out, back = sc.vjp(lambda v: sc.sin(v), a)
        return back(sc.ones_like(out))[0]

    np.testing.assert_allclose(np.asarray(f(x)), np.cos(np.arange(32.0).reshape(8, 4)), rtol=1e-5)

    @sc.jit
    def bad(a):
        out, back = sc.vjp(lambda v: sc.sin(v), a)
        return back(sc.ones((8, 4)))[0]

    with pytest.raises(sc.ShardcValueError, match="unexpected type for argument to VJP"):
        bad(x)


def test_grad_rejects_non_scalar_and_int(mesh24):
    x = sc.device_put(np.ones((8, 4), np.float32), P("X"))
    with pytest.raises(sc.ShardcValueError, match="float scalar"):
        sc.grad(lambda a: a * 2)(x)
    with pytest.raises(sc.ShardcValueError, match="float inputs"):
        sc.grad(lambda a: sc.sum(a))(sc.device_put(np.ones(8, np.int32), P("X")))


def test_shard_map_grad_matches_jax():
    m, jm = _meshes()
    rng = np.random.default_rng(2)
    xn, wn = rng.standard_normal((8, 16)).astype(np.float32), rng.standard_normal((16, 8)).astype(np.float32)

    def body_sc(x, w):
        return sc.psum(sc.tanh(x @ w), "Y")

    def body_j(x, w):
        return jax.lax.psum(jnp.tanh(x @ w), "Y")

    with sc.set_mesh(m):
        x, w = sc.device_put(xn, P("X", "Y")), sc.device_put(wn, P("Y", None))
        loss = lambda a, b: sc.sum(sc.shard_map(body_sc, out_specs=P("X", None))(a, b) ** 2)
        g1, g2 = sc.jit(sc.grad(loss, argnums=(0, 1)))(x, w)
    with jax.set_mesh(jm):
        jx, jw = jax.device_put(xn, JP("X", "Y")), jax.device_put(wn, JP("Y", None))
        jloss = lambda a, b: jnp.sum(jax.shard_map(body_j, out_specs=JP("X", None))(a, b) ** 2)
        j1, j2 = jax.jit(jax.grad(jloss, argnums=(0, 1)))(jx, jw)
    for g, j in ((g1, j1), (g2, j2)):
        assert str(sc.typeof(g)) == str(jax.typeof(j))
        np.testing.assert_allclose(np.asarray(g), np.asarray(j), rtol=1e-4, atol=1e-4)


def test_pcast_varying_transposes_to_psum(mesh24):
    x = sc.device_put(np.ones((8, 4), np.float32), P())

    def body(a):
        return sc.pcast(a, "X", to="varying") * sc.astype(sc.axis_index("X"), sc.float32)

    def loss(a):
        return sc.sum(sc.shard_map(body, out_specs=P("X"), in_specs=P())(a))

    prog = sc.jit(sc.grad(loss))
    g = prog(x)
    # d/da sum over the two X blocks of a * index = 0 + 1 per element
    np.testing.assert_allclose(np.asarray(g), np.ones((8, 4)))
    assert "psum" in str(prog.trace(x))


def test_every_float_primitive_has_a_vjp_rule():
    """A primitive without a rule would silently stop gradients: each one either
    differentiates, or says it does not."""
    from shardc.primitives.core import REGISTRY
    missing = [name for name, p in REGISTRY.items() if getattr(p, "vjp", None) is None]
    # primitives whose outputs are never float (indices, predicates) need no rule
    assert set(missing) <= {"iota", "axis_index"}, missing


@pytest.mark.parametrize("name,f_sc,f_j", [
    ("square", lambda x: sc.sum(sc.square(x)), lambda x: jnp.sum(jnp.square(x))),
    ("pow2", lambda x: sc.sum(x ** 2), lambda x: jnp.sum(x ** 2)),
    ("flip", lambda x: sc.sum(x[::-1] * sc.arange(8.0)[:, None]), lambda x: jnp.sum(x[::-1] * jnp.arange(8.0)[:, None])),
])
def test_grad_of_newer_primitives(mesh24, name, f_sc, f_j):
    xn = np.random.default_rng(3).standard_normal((8, 4)).astype(np.float32)
    g = sc.grad(f_sc)(sc.device_put(xn, P(None, "Y")))
    np.testing.assert_allclose(np.asarray(g), np.asarray(jax.grad(f_j)(xn)), rtol=1e-5, atol=1e-6)


def test_second_derivative_through_take(mesh24):
    xn = np.linspace(-1, 1, 8).astype(np.float32)
    idx = np.array([0, 3, 3, 7], np.int32)
    inner_sc = lambda y: sc.sum(sc.take(y, idx) ** 3)
    inner_j = lambda y: jnp.sum(jnp.take(y, idx) ** 3)
    g2 = sc.grad(lambda x: sc.sum(sc.grad(inner_sc)(x) ** 2))(sc.device_put(xn, P()))
    j2 = jax.grad(lambda x: jnp.sum(jax.grad(inner_j)(x) ** 2))(xn)
    np.testing.assert_allclose(np.asarray(g2), np.asarray(j2), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("coll", ["all_gather", "psum_scatter", "ppermute", "all_to_all"])
def test_collective_grads_match_jax(coll):
    m, jm = _meshes()
    xn = np.random.default_rng(4).standard_normal((8, 8)).astype(np.float32)
    ops = {
        "all_gather": (lambda a: sc.all_gather(a, "Y", axis=1, tiled=True),
                       lambda a: jax.lax.all_gather(a, "Y", axis=1, tiled=True), P("X", "Y")),
        "psum_scatter": (lambda a: sc.psum_scatter(a, "Y", scatter_dimension=0, tiled=True),
                         lambda a: jax.lax.psum_scatter(a, "Y", scatter_dimension=0, tiled=True), P("X", "Y")),
        "ppermute": (lambda a: sc.ppermute(a, "Y", [(i, (i + 1) % 4) for i in range(4)]),
                     lambda a: jax.lax.ppermute(a, "Y", [(i, (i + 1) % 4) for i in range(4)]), P("X", "Y")),
        "all_to_all": (lambda a: sc.all_to_all(a, "Y", 0, 1, tiled=True),
                       lambda a: jax.lax.all_to_all(a, "Y", 0, 1, tiled=True), P("X", "Y")),
    }
    f_sc, f_j, ospec = ops[coll]
    w = np.arange(64, dtype=np.float32).reshape(8, 8) / 64
    with sc.set_mesh(m):
        x = sc.device_put(xn, P("X", "Y"))
        loss = lambda a: sc.sum(sc.sin(sc.shard_map(lambda b: f_sc(b * 2.0), out_specs=ospec)(a)) * sc.sum(w))
        g = sc.jit(sc.grad(loss))(x)
    with jax.set_mesh(jm):
        jx = jax.device_put(xn, JP("X", "Y"))
        jloss = lambda a: jnp.sum(jnp.sin(jax.shard_map(lambda b: f_j(b * 2.0), out_specs=JP(*ospec))(a)) * np.sum(w))
        jg = jax.jit(jax.grad(jloss))(jx)
    assert str(sc.typeof(g)) == str(jax.typeof(jg))
    np.testing.assert_allclose(np.asarray(g), np.asarray(jg), rtol=1e-4, atol=1e-5)
