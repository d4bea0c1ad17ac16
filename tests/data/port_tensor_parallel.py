"""Tensor + data parallel MLP classifier with shard_map'd loss, custom_vjp, fori_loop eval, written against JAX."""
import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import PartitionSpec as P

jax.config.update("jax_num_cpu_devices", 8)
mesh = jax.make_mesh((2, 4), ("dp", "tp"), axis_types=(jax.sharding.AxisType.Explicit,) * 2)
D, H, C, N = 16, 64, 10, 32


@jax.custom_vjp
def clip_grad(x, c):
    return x


def _fwd(x, c):
    return x, c


def _bwd(c, g):
    return jnp.clip(g, -c, c), None


clip_grad.defvjp(_fwd, _bwd)


def init(key):
    k1, k2, k3 = jax.random.split(key, 3)
    return {
        "w1": jax.random.normal(k1, (D, H), out_sharding=P(None, "tp")) * (1 / np.sqrt(D)),
        "b1": jnp.zeros((H,), out_sharding=P("tp")),
        "w2": jax.random.normal(k2, (H, C), out_sharding=P("tp", None)) * (1 / np.sqrt(H)),
        "scale": jax.random.uniform(k3, (), minval=0.5, maxval=1.5),
    }


def model(p, x):
    h = jax.nn.relu(jnp.dot(x, p["w1"]) + p["b1"])
    h = clip_grad(h, 0.1)
    logits = jnp.dot(h, p["w2"], out_sharding=P("dp", None))
    return logits * lax.stop_gradient(p["scale"])


def loss(p, x, y):
    logits = model(p, x)
    onehot = jax.nn.one_hot(y, C)
    per = -jnp.sum(onehot * jax.nn.log_softmax(logits), axis=-1)
    l2 = sum(jnp.sum(w ** 2) for k, w in p.items() if k.startswith("w"))
    return jnp.mean(per) + 1e-4 * l2


@functools.partial(jax.jit, donate_argnums=0)
def step(p, x, y, lr):
    l, g = jax.value_and_grad(loss)(p, x, y)
    g = jax.tree_util.tree_map_with_path(lambda path, v: v if path[0].key != "scale" else jnp.zeros_like(v), g)
    p = jax.tree.map(lambda a, b: a - lr * b, p, g)
    return p, l


@jax.jit
def accuracy(p, x, y):
    def body(i, acc):
        xi = lax.dynamic_slice_in_dim(x, i * 8, 8)
        yi = lax.dynamic_slice_in_dim(y, i * 8, 8)
        pred = jnp.argmax(model(p, xi), axis=-1)
        return acc + jnp.sum(pred == yi)
    return lax.fori_loop(0, x.shape[0] // 8, body, 0) / x.shape[0]


@jax.jit
def sm_stats(x):
    @functools.partial(jax.shard_map, in_specs=P("dp", None), out_specs=P(), axis_names={"dp"})
    def f(xb):
        s = lax.psum(jnp.sum(xb, axis=0), "dp")
        m = lax.pmax(jnp.max(xb), "dp")
        return jnp.concatenate([s, m[None]])
    return f(x)


with jax.set_mesh(mesh):
    key = jax.random.key(42)
    kp, kx = jax.random.split(key)
    p = init(kp)
    x = jax.random.normal(kx, (N, D), out_sharding=P("dp"))
    true_w = jnp.arange(D * C, dtype=jnp.float32).reshape(D, C) % 3 - 1
    y = jnp.argmax(jnp.dot(x, true_w, out_sharding=P("dp")), axis=-1)
    print("types", {k: str(jax.typeof(v)) for k, v in p.items()}, jax.typeof(y))
    for i in range(5):
        p, l = step(p, x, y, 0.5)
        print(f"step {i} loss {float(l):.5f}")
    print("acc", float(accuracy(p, x, y)))
    print("stats", np.round(np.asarray(sm_stats(x)), 4))
    txt = step.lower(p, x, y, 0.5).compile().as_text()
    print("collectives", {k: txt.count(k + "(") for k in ("all-reduce", "all-gather", "reduce-scatter", "all-to-all")})
    hess = jax.jit(jax.hessian(lambda b: jnp.sum(jax.nn.softplus(x @ p["w1"] + b) ** 2)))(p["b1"])
    print("hess", jax.typeof(hess), np.round(np.asarray(jnp.diagonal(jax.reshard(hess, P())))[:6], 4))
    jac = jax.jacfwd(lambda b: jax.nn.relu(jnp.dot(jax.reshard(x, P())[:2], p["w1"]) + b))(p["b1"])
    print("jac", jac.shape, jax.typeof(jac), round(float(jnp.sum(jac)), 4))
