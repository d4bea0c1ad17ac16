"""Classic (Auto-axes) JAX: NamedSharding, jit in/out_shardings, with_sharding_constraint, mixed
precision, dot_product_attention, associative_scan, while_loop line search, permutation shuffling."""
import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

jax.config.update("jax_num_cpu_devices", 8)
mesh = jax.make_mesh((2, 4), ("data", "model"), axis_types=(jax.sharding.AxisType.Auto,) * 2)
S = lambda *spec: NamedSharding(mesh, P(*spec))   # noqa: E731
B, T, H, DH, D = 8, 12, 4, 8, 32


def init(key):
    k = jax.random.split(key, 4)
    return {"wq": jax.random.normal(k[0], (D, H, DH)) * 0.1, "wk": jax.random.normal(k[1], (D, H, DH)) * 0.1,
            "wv": jax.random.normal(k[2], (D, H, DH)) * 0.1, "wo": jax.random.normal(k[3], (H, DH, D)) * 0.1}


def model(p, x):
    xb = x.astype(jnp.bfloat16)
    pb = jax.tree.map(lambda a: a.astype(jnp.bfloat16), p)
    q = jnp.einsum("btd,dhk->bthk", xb, pb["wq"])
    k = jnp.einsum("btd,dhk->bthk", xb, pb["wk"])
    v = jnp.einsum("btd,dhk->bthk", xb, pb["wv"])
    q = lax.with_sharding_constraint(q, S("data", None, "model"))
    o = jax.nn.dot_product_attention(q, k, v, is_causal=True)
    out = jnp.einsum("bthk,hkd->btd", o, pb["wo"]).astype(jnp.float32)
    # a running mean over time by an associative scan
    cum = lax.associative_scan(jnp.add, out, axis=1) / jnp.arange(1, T + 1)[None, :, None]
    return cum


def loss(p, x, y):
    return jnp.mean((model(p, x) - y) ** 2)


@functools.partial(jax.jit, in_shardings=(S(None, "model"), S("data"), S("data")), out_shardings=(S(None, "model"), S()))
def step(p, x, y):
    l, g = jax.value_and_grad(loss)(p, x, y)
    d = jax.tree.map(jnp.negative, g)
    # backtracking line search in a while_loop
    def cond(c):
        t, i = c
        new = jax.tree.map(lambda a, b: a + t * b, p, d)
        return (loss(new, x, y) > l - 1e-4 * t * sum(jnp.vdot(a, a) for a in jax.tree.leaves(g))) & (i < 20)

    t, i = lax.while_loop(cond, lambda c: (c[0] * 0.5, c[1] + 1), (1.0, 0))
    return jax.tree.map(lambda a, b: a + t * b, p, d), l


with jax.set_mesh(mesh):
    key = jax.random.key(3)
    kp, kx, ks = jax.random.split(key, 3)
    p = jax.device_put(init(kp), S(None, "model"))
    x = jax.device_put(jax.random.normal(kx, (4 * B, T, D)), S("data"))
    y = jnp.roll(x, 1, axis=1) * 0.5
    for epoch in range(2):
        perm = jax.random.permutation(jax.random.fold_in(ks, epoch), x.shape[0])
        for b in range(4):
            idx = perm[b * B:(b + 1) * B]
            p, l = step(p, jax.device_put(x[idx], S("data")), jax.device_put(y[idx], S("data")))
            print(f"epoch {epoch} batch {b} loss {float(l):.5f}")
    print("shardings", {k: str(v.sharding.spec) for k, v in p.items()}, jax.typeof(l))
    xb, yb = (jax.device_put(a[:B], S("data")) for a in (x, y))
    txt = step.lower(p, xb, yb).compile().as_text()
    print("collectives", sorted({k: txt.count(k + "(") for k in ("all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute")}.items()))
    u, c = jnp.unique(jnp.round(x[0, :, 0] * 2), size=6, fill_value=-99, return_counts=True)
    print("unique", np.asarray(u), np.asarray(c))
