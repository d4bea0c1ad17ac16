"""`sc.nn`: eagerly sharded parameters (FLIP 4844), modules as program
arguments, forward passes against NumPy, gradients against `jax.grad`
(cotangent types equal to the parameters' types)."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import AxisType
from jax.sharding import NamedSharding as JNamedSharding

import shardc as sc
from shardc import P

MEGATRON = dict(kernel_shardings=(P(None, "model"), P("model", None)), bias_shardings=(P("model"), None))


@pytest.fixture
def mesh():
    m = sc.make_mesh((2, 4), ("data", "model"))
    with sc.set_mesh(m):
        yield m


def _types(tree) -> dict:
    return jax.tree_util.tree_map(lambda v: str(sc.typeof(v)), tree,
                                  is_leaf=lambda v: getattr(v, "_shardc_type", None) is not None)


def _np(tree):
    return jax.tree_util.tree_map(np.asarray, tree,
                                  is_leaf=lambda v: getattr(v, "_shardc_type", None) is not None)


# --- NumPy references --------------------------------------------------------------------------------
def np_gelu(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def np_mlp(p, x):
    h = np_gelu(x @ p["fc1"]["kernel"] + p["fc1"]["bias"])
    return h @ p["fc2"]["kernel"] + p["fc2"]["bias"]


def np_layer_norm(p, x, eps=1e-6):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * p["scale"] + p["bias"]


# --- eager sharding ------------------------------------------------------------------------------------
def test_annotated_parameters_are_created_sharded(mesh):
    mlp = sc.nn.MLP(16, 64, **MEGATRON, seed=0)
    emb = sc.nn.Embed(32, 16, embedding_sharding=P(None, "model"))
    ln = sc.nn.LayerNorm(16, scale_sharding=P("model"))
    assert _types(mlp.params()) == {
        "fc1": {"bias": "float32[64@model]", "kernel": "float32[16,64@model]"},
        "fc2": {"bias": "float32[16]", "kernel": "float32[64@model,16]"}}
    assert str(sc.typeof(emb.embedding.value)) == "float32[32,16@model]"
    assert _types(ln.params()) == {"bias": "float32[16]", "scale": "float32[16@model]"}
    # really laid out on the devices as typed: each device holds a [16, 16] block of fc1's kernel
    shards = mlp.fc1.kernel.value.addressable_shards
    assert len(shards) == 8 and all(s.data.shape == (16, 16) for s in shards)
    assert mlp.fc1.kernel.out_sharding == P(None, "model")


def test_annotated_parameter_without_mesh_names_the_fix():
    with sc.set_mesh(None):
        for make in (lambda: sc.nn.Linear(4, 8, kernel_sharding=P(None, "model")),
                     lambda: sc.nn.Embed(8, 4, embedding_sharding=P("model")),
                     lambda: sc.nn.LayerNorm(8, scale_sharding=P("model")),
                     lambda: sc.nn.Param(np.ones(4, np.float32), out_sharding=P("model"))):
            with pytest.raises(sc.ShardcValueError) as e:
                make()
            msg = str(e.value)
            assert "with sc.set_mesh(mesh):" in msg and "eager_sharding=False" in msg
            assert "test_nn.py" in msg  # the user's line


def test_eager_sharding_false_opts_out(mesh):
    lin = sc.nn.Linear(16, 64, kernel_sharding=P(None, "model"), bias_sharding=P("model"),
                       eager_sharding=False)
    assert _types(lin.params()) == {"bias": "float32[64]", "kernel": "float32[16,64]"}
    assert lin.kernel.out_sharding == P(None, "model") and not lin.kernel.eager_sharding
    # per parameter: one opts out, the other is placed
    a = sc.nn.Param(np.ones((8, 4), np.float32), out_sharding=P("data"), eager_sharding=False)
    b = sc.nn.Param(np.ones((8, 4), np.float32), out_sharding=P("data"))
    assert (str(sc.typeof(a.value)), str(sc.typeof(b.value))) == ("float32[8,4]", "float32[8@data,4]")
    # and with no mesh at all, opting out is what makes construction possible
    with sc.set_mesh(None):
        c = sc.nn.Embed(8, 4, embedding_sharding=P("model"), eager_sharding=False)
    assert str(sc.typeof(c.embedding.value)) == "float32[8,4]"


def test_named_sharding_brings_its_own_mesh(mesh):
    with sc.set_mesh(None):
        p = sc.nn.Param(np.arange(8, dtype=np.float32), out_sharding=sc.NamedSharding(mesh, P("data")))
    assert str(sc.typeof(p.value)) == "float32[8@data]"
    np.testing.assert_array_equal(np.asarray(p.value), np.arange(8))


def test_initialization_is_deterministic(mesh):
    a = _np(sc.nn.MLP(8, 16, seed=3).params())
    b = _np(sc.nn.MLP(8, 16, seed=3, **MEGATRON).params())
    c = _np(sc.nn.MLP(8, 16, seed=4).params())
    jax.tree_util.tree_map(np.testing.assert_array_equal, a, b)
    assert not np.array_equal(a["fc1"]["kernel"], c["fc1"]["kernel"])
    assert np.allclose(a["fc1"]["kernel"].std(), 1 / np.sqrt(8), rtol=0.3)


def test_parameter_created_inside_a_program(mesh):
    @sc.jit
    def f(x):
        return sc.nn.Linear(16, 8, kernel_sharding=P(None, "model"))(x)

    x = sc.device_put(np.ones((8, 16), np.float32), P("data"))
    assert str(sc.typeof(f(x))) == "float32[8@data,8@model]"


# --- forward passes ---------------------------------------------------------------------------------------
def test_forward_matches_numpy(mesh):
    rng = np.random.default_rng(0)
    xh = rng.standard_normal((8, 16)).astype(np.float32)
    x = sc.device_put(xh, P("data"))
    mlp = sc.nn.MLP(16, 64, **MEGATRON, seed=1)
    ln = sc.nn.LayerNorm(16, scale_sharding=P("model"))
    ln = ln.replace({"bias": sc.device_put(rng.standard_normal(16).astype(np.float32), P()),
                     "scale": sc.device_put(rng.standard_normal(16).astype(np.float32), P("model"))})
    emb = sc.nn.Embed(32, 16, embedding_sharding=P(None, "model"), seed=2)
    ids = np.array([3, 31, 0, 7, 7, 12, 1, 30], np.int32)

    y = mlp(x, out_sharding=P("data", None))              # eagerly
    assert str(sc.typeof(y)) == "float32[8@data,16]"
    np.testing.assert_allclose(np.asarray(y), np_mlp(_np(mlp.params()), xh), rtol=1e-5, atol=1e-5)
    z = ln(x)
    assert str(sc.typeof(z)) == "float32[8@data,16@model]"
    np.testing.assert_allclose(np.asarray(z), np_layer_norm(_np(ln.params()), xh), rtol=1e-4, atol=1e-5)
    e = emb(sc.device_put(ids, P()))
    assert str(sc.typeof(e)) == "float32[8,16@model]"
    np.testing.assert_array_equal(np.asarray(e), np.asarray(emb.embedding.value)[ids])

    # the same model as a program argument (a pytree), and through `apply`
    @sc.jit
    def block(m, ln, x):
        return ln(m(x, out_sharding=P("data", None)) + x)

    out = block(mlp, ln, x)
    ref = np_layer_norm(_np(ln.params()), np_mlp(_np(mlp.params()), xh) + xh)
    np.testing.assert_allclose(np.asarray(out), ref, rtol=1e-4, atol=1e-4)
    y2 = sc.jit(lambda p, x: mlp.apply(p, x, out_sharding=P("data", None)))(mlp.params(), x)
    np.testing.assert_allclose(np.asarray(y2), np.asarray(y), rtol=1e-6, atol=1e-6)


def test_apply_checks_structure(mesh):
    mlp = sc.nn.MLP(4, 8)
    with pytest.raises(sc.ShardcValueError, match="params do not match MLP"):
        mlp.apply({"fc1": mlp.params()["fc1"]}, np.ones((2, 4), np.float32))


def test_sharded_ids_need_out_sharding(mesh):
    emb = sc.nn.Embed(32, 16, embedding_sharding=P(None, "model"))
    ids = sc.device_put(np.arange(8, dtype=np.int32), P("data"))
    with pytest.raises(sc.ShardingTypeError, match="out_sharding"):
        emb(ids)
    e = emb(ids, out_sharding=P("data", "model"))
    assert str(sc.typeof(e)) == "float32[8@data,16@model]"
    np.testing.assert_array_equal(np.asarray(e), np.asarray(emb.embedding.value)[:8])


# --- gradients ------------------------------------------------------------------------------------------------
class Tiny(sc.nn.Module):
    """embed → MLP (Megatron) → layer norm → mean square."""

    def __init__(self):
        self.embed = sc.nn.Embed(32, 16, embedding_sharding=P(None, "model"), seed=5)
        self.mlp = sc.nn.MLP(16, 64, **MEGATRON, seed=6)
        self.norm = sc.nn.LayerNorm(16)

    def __call__(self, ids):
        h = self.embed(ids, out_sharding=P("data", None))
        return self.norm(self.mlp(h, out_sharding=P("data", None)) + h)


def _jax_loss(p, ids):
    """The same model in JAX (the oracle for gradient values and types)."""
    h = p["embed"]["embedding"].at[ids].get(out_sharding=jax.P("data", None), mode="fill")
    m = p["mlp"]
    a = jax.nn.gelu(h @ m["fc1"]["kernel"] + m["fc1"]["bias"])
    y = jnp.matmul(a, m["fc2"]["kernel"], out_sharding=jax.P("data", None)) + m["fc2"]["bias"] + h
    mu = y.mean(-1, keepdims=True)
    var = ((y - mu) ** 2).mean(-1, keepdims=True)
    z = (y - mu) * jax.lax.rsqrt(var + 1e-6) * p["norm"]["scale"] + p["norm"]["bias"]
    return (z ** 2).mean()


def test_grad_types_equal_parameter_types_and_values_match_jax(mesh):
    model = Tiny()
    ids_h = np.array([3, 31, 0, 7, 7, 12, 1, 30], np.int32)
    ids = sc.device_put(ids_h, P("data"))

    def loss(m, ids):
        return sc.mean(m(ids) ** 2)

    value, g = sc.jit(sc.nn.value_and_grad(loss))(model, ids)
    assert isinstance(g, Tiny)                     # a model-shaped gradient
    assert _types(g.params()) == _types(model.params())
    assert _types(g.params())["mlp"]["fc1"]["kernel"] == "float32[16,64@model]"

    jm = jax.make_mesh((2, 4), ("data", "model"), axis_types=(AxisType.Explicit,) * 2,
                       devices=list(mesh.devices.flat))
    with jax.set_mesh(jm):
        jp = jax.tree_util.tree_map(lambda a: jax.device_put(np.asarray(a), JNamedSharding(
            jm, jax.P(*sc.typeof(a).spec))), model.params(),
            is_leaf=lambda v: getattr(v, "_shardc_type", None) is not None)
        jids = jax.device_put(ids_h, JNamedSharding(jm, jax.P("data")))
        jv, jg = jax.jit(jax.value_and_grad(_jax_loss))(jp, jids)
    assert jax.tree_util.tree_map(lambda a: str(jax.typeof(a)), jg) == _types(g.params())
    np.testing.assert_allclose(float(value), float(jv), rtol=1e-5)
    jax.tree_util.tree_map(lambda a, b: np.testing.assert_allclose(a, np.asarray(b), rtol=2e-4, atol=2e-5),
                           _np(g.params()), jg)

    # eagerly, and with respect to a params dict (the `apply` form)
    g2 = sc.nn.grad(lambda p, ids: loss(model.replace(p), ids))(model.params(), ids)
    assert _types(g2) == _types(model.params())
    jax.tree_util.tree_map(lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6),
                           _np(g2), _np(g.params()))
