"""Autodiff against JAX through the oracle (tests/oracle): gradient values,
cotangent sharding types (sharded ↔ sharded, replicated ↔ replicated,
reduced ↔ unreduced) and collectives (never more than JAX's)."""
import numpy as np
import pytest
from oracle import Case, MeshSpec, Placed, check, param

import shardc as sc
from shardc import P

MESH = MeshSpec((2, 4), ("X", "Y"))


def _vg(loss, argnums):
    """`fn(ns, *args)`: the value and gradient of `loss(ns, *args)` (compiled)."""
    return lambda ns, *xs: ns.value_and_grad(lambda *a: loss(ns, *a), argnums=argnums)(*xs)


def _g(loss, argnums=0):
    return lambda ns, *xs: ns.grad(lambda *a: loss(ns, *a), argnums=argnums)(*xs)


def _args(shapes, specs):
    from oracle import type_str
    return tuple(type_str("f32", s, sp) for s, sp in zip(shapes, specs))


# (name, shapes, specs, loss(ns, *args), argnums)
CASES = [
    ("sin_sum", [(8, 4)], [("X", "Y")], lambda ns, x: ns.sum(ns.sin(x)), 0),
    ("chain", [(8, 4)], [("X", None)], lambda ns, x: ns.sum(ns.tanh(x * 2.0 + 1.0) * ns.exp(-x)), 0),
    ("broadcast_add", [(8, 4), (4,)], [("X", "Y"), ("Y",)], lambda ns, x, b: ns.sum((x + b) ** 2), (0, 1)),
    ("row_bias_replicated", [(8, 4), (4,)], [("X", "Y"), (None,)], lambda ns, x, b: ns.sum(ns.sin(x * b)), (0, 1)),
    ("mean_max", [(8, 4)], [("X", "Y")], lambda ns, x: ns.mean(x) + ns.sum(ns.max(x, axis=1)), 0),
    ("div_sqrt_log", [(8, 4)], [("X", None)],
     lambda ns, x: ns.sum(ns.sqrt(x * x + 1.0) / (1.0 + ns.log(x * x + 2.0))), 0),
    ("transpose_reshape", [(8, 4)], [("X", "Y")], lambda ns, x: ns.sum(ns.reshape(x.T, (32,)) * ns.arange(32.0)), 0),
    ("slice_concat", [(8, 4)], [(None, "Y")],
     lambda ns, x: ns.sum(ns.concatenate([x[2:6], x[::2]], axis=0) ** 3), 0),
    ("dot_explicit", [(8, 4), (4, 16)], [("X", None), (None, "Y")], lambda ns, x, w: ns.sum(ns.relu(x @ w)), (0, 1)),
    ("dot_contract_sharded", [(8, 4), (4, 16)], [(None, "X"), ("X", None)],
     lambda ns, x, w: ns.sum(ns.dot(x, w, out_sharding=ns.P("X"))), (0, 1)),
    ("einsum_batch", [(2, 8, 4), (2, 4, 8)], [("X", None, None), ("X", None, "Y")],
     lambda ns, a, b: ns.sum(ns.einsum("bij,bjk->bik", a, b) ** 2), (0, 1)),
    ("softmax_logsumexp", [(8, 4)], [("X", None)],
     lambda ns, x: ns.sum(ns.softmax(x, axis=-1) * x) + ns.sum(ns.logsumexp(x, axis=1)), 0),
    ("gelu_where", [(8, 4)], [("X", "Y")], lambda ns, x: ns.sum(ns.where(x > 0, ns.gelu(x), x * 0.1)), 0),
    ("cumsum", [(8, 4)], [(None, "Y")], lambda ns, x: ns.sum(ns.cumsum(x, axis=0) ** 2), 0),
    ("reshard", [(8, 4)], [("X", "Y")], lambda ns, x: ns.sum(ns.sin(ns.reshard(x, ns.P("Y", "X")))), 0),
    ("megatron", [(16, 32), (32, 64), (64, 32)], [("X", None), (None, "Y"), ("Y", None)],
     lambda ns, x, w1, w2: ns.sum(ns.dot(ns.gelu(x @ w1), w2, out_sharding=ns.P("X", None)) ** 2), (1, 2)),
]


@param([Case(name, MESH, _vg(loss, argnums), _args(shapes, specs), mode="jit", expect="accept",
             collectives="at_most", tol=(2e-4, 2e-4))
        for name, shapes, specs, loss, argnums in CASES])
def test_grad_matches_jax(case):
    check(case)


@pytest.mark.parametrize("name,loss,arg_s", [
    ("reduced_sin_fwd_mul_bwd", lambda ns, p, q: ns.sum(ns.sin(p) @ ns.sin(q)), "f32[2,8@x]"),
    ("reduced_times_scalar", lambda ns, p, q: ns.sum(p * 2.0) + ns.sum(q), "f32[4@x,2]"),
    ("reduced_reshard_sharded", lambda ns, p, q: ns.sum(ns.reshard(p, ns.P("x")) * q), "f32[4@x,2]"),
])
def test_reduced_input_gets_unreduced_cotangent(name, loss, arg_s):
    j, s = check(Case(name, "x2", _g(loss, (0, 1)), ("f32[4,2]{R:x}", arg_s), mode="jit", expect="accept",
                      collectives="at_most", tol=(1e-5, 1e-5)))
    assert "{U:x}" in s.types[0]


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
    with pytest.raises(sc.ShardcTypeError, match="real- or complex-valued inputs"):   # JAX's TypeError
        sc.grad(lambda a: sc.sum(a))(sc.device_put(np.ones(8, np.int32), P("X")))


def test_shard_map_grad_matches_jax():
    def loss(ns, a, b):
        body = lambda x, w: ns.psum(ns.tanh(x @ w), "Y")
        return ns.sum(ns.shard_map(body, out_specs=ns.P("X", None))(a, b) ** 2)
    check(Case("shard_map-grad", MESH, _g(loss, (0, 1)), ("f32[8@X,16@Y]", "f32[16@Y,8]"), mode="jit",
               expect="accept", collectives="at_most", tol=(1e-4, 1e-4)))


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
    from shardc.core import REGISTRY
    from shardc.transforms.ad import vjp_rules
    missing = [name for name, p in REGISTRY.items() if p not in vjp_rules]
    # primitives whose outputs are never float (indices, predicates) need no rule
    assert set(missing) <= {"iota", "axis_index"}, missing


@pytest.mark.parametrize("name,loss", [
    ("square", lambda ns, x: ns.sum(ns.square(x))),
    ("pow2", lambda ns, x: ns.sum(x ** 2)),
    ("flip", lambda ns, x: ns.sum(x[::-1] * ns.arange(8.0)[:, None])),
])
def test_grad_of_newer_primitives(name, loss):
    check(Case(name, MESH, _g(loss), ("f32[8,4@Y]",), mode="eager", expect="accept", tol=(1e-5, 1e-6)))


def test_second_derivative_through_take():
    idx = np.array([0, 3, 3, 7], np.int32)

    def loss(ns, x):
        inner = ns.grad(lambda y: ns.sum(ns.take(y, idx) ** 3))
        return ns.sum(inner(x) ** 2)
    check(Case("take-2nd", MESH, _g(loss), (Placed(value=np.linspace(-1, 1, 8).astype(np.float32)),),
               mode="eager", expect="accept", tol=(1e-5, 1e-6)))


COLLECTIVE_GRADS = {
    "all_gather": lambda ns, a: ns.all_gather(a, "Y", axis=1, tiled=True),
    "psum_scatter": lambda ns, a: ns.psum_scatter(a, "Y", scatter_dimension=0, tiled=True),
    "ppermute": lambda ns, a: ns.ppermute(a, "Y", [(i, (i + 1) % 4) for i in range(4)]),
    "all_to_all": lambda ns, a: ns.all_to_all(a, "Y", 0, 1, tiled=True),
}


@pytest.mark.parametrize("coll", list(COLLECTIVE_GRADS))
def test_collective_grads_match_jax(coll):
    w = np.arange(64, dtype=np.float32).reshape(8, 8) / 64
    f = COLLECTIVE_GRADS[coll]

    def loss(ns, a):
        y = ns.shard_map(lambda b: f(ns, b * 2.0), out_specs=ns.P("X", "Y"))(a)
        return ns.sum(ns.sin(y) * np.sum(w))
    check(Case(coll, MESH, _g(loss), ("f32[8@X,8@Y]",), mode="jit", expect="accept", collectives="at_most",
               tol=(1e-4, 1e-5)))
