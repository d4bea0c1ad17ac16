"""A small decoder-only transformer trained with hand-written AdamW, written against JAX."""
import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import PartitionSpec as P

jax.config.update("jax_num_cpu_devices", 8)

VOCAB, SEQ, D, HEADS, LAYERS, BATCH = 64, 16, 32, 4, 3, 8
mesh = jax.make_mesh((4, 2), ("data", "model"), axis_types=(jax.sharding.AxisType.Explicit,) * 2)


def init_params(key):
    k_emb, k_layers, k_out = jax.random.split(key, 3)
    init = jax.nn.initializers.normal(0.02)

    def layer(k):
        ks = jax.random.split(k, 4)
        return {
            "ln1": {"scale": jnp.ones((D,)), "bias": jnp.zeros((D,))},
            "qkv": init(ks[0], (D, 3 * D)),
            "proj": init(ks[1], (D, D)),
            "ln2": {"scale": jnp.ones((D,)), "bias": jnp.zeros((D,))},
            "w1": jax.nn.initializers.lecun_normal()(ks[2], (D, 4 * D)),
            "w2": jax.nn.initializers.glorot_uniform()(ks[3], (4 * D, D)),
        }
    layers = jax.vmap(layer)(jax.random.split(k_layers, LAYERS))
    return {"emb": init(k_emb, (VOCAB, D)), "pos": jnp.zeros((SEQ, D)), "layers": layers,
            "out": init(k_out, (D, VOCAB))}


def layer_norm(p, x, eps=1e-5):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.var(x, axis=-1, keepdims=True)
    return (x - mean) * lax.rsqrt(var + eps) * p["scale"] + p["bias"]


def attention(p, x):
    b, t, _ = x.shape
    qkv = x @ p["qkv"]
    q, k, v = jnp.split(qkv, 3, axis=-1)
    q, k, v = (a.reshape(b, t, HEADS, D // HEADS) for a in (q, k, v))
    logits = jnp.einsum("bqhd,bkhd->bhqk", q, k) / math.sqrt(D // HEADS)
    mask = jnp.tril(jnp.ones((t, t), dtype=bool))
    logits = jnp.where(mask[None, None], logits, jnp.finfo(logits.dtype).min)
    w = jax.nn.softmax(logits, axis=-1)
    out = jnp.einsum("bhqk,bkhd->bqhd", w, v).reshape(b, t, D)
    return out @ p["proj"]


def block(x, p, key):
    h = x + attention(p, layer_norm(p["ln1"], x))
    y = jax.nn.gelu(layer_norm(p["ln2"], h) @ p["w1"]) @ p["w2"]
    keep = jax.random.bernoulli(key, 0.9, y.shape)
    return h + jnp.where(keep, y / 0.9, 0.0)


def forward(params, tokens, key):
    x = params["emb"].at[tokens].get(out_sharding=jax.typeof(tokens).sharding.spec) + params["pos"][None, : tokens.shape[1]]
    keys = jax.random.split(key, LAYERS)

    @functools.partial(jax.checkpoint, policy=jax.checkpoint_policies.nothing_saveable)
    def step(x, pk):
        p, k = pk
        return block(x, p, k), None
    x, _ = lax.scan(step, x, (params["layers"], keys))
    return x @ params["out"]


def loss_fn(params, batch, key):
    tokens, targets = batch
    logits = forward(params, tokens, key)
    logp = jax.nn.log_softmax(logits, axis=-1)
    nll = -jnp.take_along_axis(logp, targets[..., None], axis=-1)[..., 0]
    acc = jnp.mean((jnp.argmax(logits, -1) == targets).astype(jnp.float32))
    return jnp.mean(nll), {"acc": acc, "max_logit": jnp.max(logits)}


def adamw(lr=3e-3, b1=0.9, b2=0.99, eps=1e-8, wd=1e-2):
    def init(params):
        z = jax.tree.map(jnp.zeros_like, params)
        return {"m": z, "v": z, "t": jnp.zeros((), jnp.int32)}

    def update(grads, state, params):
        t = state["t"] + 1
        m = jax.tree.map(lambda m, g: b1 * m + (1 - b1) * g, state["m"], grads)
        v = jax.tree.map(lambda v, g: b2 * v + (1 - b2) * g * g, state["v"], grads)
        bc1, bc2 = 1 - b1 ** t.astype(jnp.float32), 1 - b2 ** t.astype(jnp.float32)
        new = jax.tree.map(lambda p, m, v: p - lr * (m / bc1 / (jnp.sqrt(v / bc2) + eps) + wd * p), params, m, v)
        return new, {"m": m, "v": v, "t": t}
    return init, update


opt_init, opt_update = adamw()


@jax.jit
def train_step(params, opt_state, batch, key):
    (loss, aux), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, batch, key)
    gnorm = jnp.sqrt(sum(jnp.sum(g * g) for g in jax.tree.leaves(grads)))
    grads = jax.tree.map(lambda g: g * jnp.minimum(1.0, 1.0 / (gnorm + 1e-6)), grads)
    params, opt_state = opt_update(grads, opt_state, params)
    return params, opt_state, loss, aux, gnorm


def data(key, n):
    x = jax.random.randint(key, (n, BATCH, SEQ + 1), 0, VOCAB)
    return x[:, :, :-1], (x[:, :, :-1] * 7 + 3) % VOCAB   # a learnable map


with jax.set_mesh(mesh):
    key = jax.random.key(0)
    pkey, dkey, key = jax.random.split(key, 3)
    params = init_params(pkey)
    params = jax.tree.map(lambda a: jax.device_put(a, P()), params)
    opt_state = opt_init(params)
    xs, ys = data(dkey, 6)
    print("params", sum(a.size for a in jax.tree.leaves(params)), jax.tree.structure(params).num_leaves)
    for i in range(6):
        key, sk = jax.random.split(key)
        batch = (jax.device_put(xs[i], P("data")), jax.device_put(ys[i], P("data")))
        params, opt_state, loss, aux, gnorm = train_step(params, opt_state, batch, sk)
        print(f"step {i} loss {float(loss):.5f} acc {float(aux['acc']):.4f} gnorm {float(gnorm):.5f} "
              f"maxlogit {float(aux['max_logit']):.4f}")
    print("loss type", jax.typeof(loss), "qkv", jax.typeof(params["layers"]["qkv"]))
    # eval with vmap over examples and per-example gradients
    per_ex = jax.jit(jax.vmap(lambda t, y: loss_fn(params, (t[None], y[None]), jax.random.key(1))[0]))
    print("per-example", np.round(np.asarray(per_ex(xs[0], ys[0])), 4))
    pe_grads = jax.jit(jax.vmap(jax.grad(lambda p, t, y: loss_fn(p, (t[None], y[None]), jax.random.key(2))[0]),
                               in_axes=(None, 0, 0)))(params, xs[0][:2], ys[0][:2])
    print("pe-grad out", np.round(np.asarray(jnp.linalg.norm(pe_grads["out"].reshape(2, -1), axis=1)), 4))
    # forward-mode: jvp along the embedding
    tan = jax.tree.map(jnp.zeros_like, params)
    tan["emb"] = jnp.ones_like(params["emb"])
    _, dl = jax.jvp(lambda p: loss_fn(p, (xs[0], ys[0]), jax.random.key(3))[0], (params,), (tan,))
    print("jvp", round(float(dl), 4))
