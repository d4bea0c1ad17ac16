"""Autoregressive decoding with a KV cache, a GNN with segment ops, PPO-style losses (a shardc port test:
tests/test_tutorial_port.py runs it with JAX and with its imports changed to shardc, and compares stdout)."""
import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

jax.config.update("jax_num_cpu_devices", 8)

V, D, H, T, L = 32, 16, 2, 12, 2
key = jax.random.key(0)


def init(key):
    ks = jax.random.split(key, 4)
    emb = jax.random.normal(ks[0], (V, D)) * 0.1
    layers = {
        "qkv": jax.random.normal(ks[1], (L, D, 3 * D)) / jnp.sqrt(D),
        "o": jax.random.normal(ks[2], (L, D, D)) / jnp.sqrt(D),
        "ln": jnp.ones((L, D)),
    }
    return {"emb": emb, "layers": layers, "out": jax.random.normal(ks[3], (D, V)) / jnp.sqrt(D)}


def rms(x, g):
    return x * lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + 1e-6) * g


def decode_step(params, cache, tok, pos):
    x = params["emb"][tok]  # [B, D]

    def layer(x, lc):
        p, (kc, vc) = lc
        h = rms(x, p["ln"])
        q, k, v = jnp.split(h @ p["qkv"], 3, axis=-1)
        q, k, v = (a.reshape(a.shape[0], H, D // H) for a in (q, k, v))
        kc = lax.dynamic_update_slice_in_dim(kc, k[:, None], pos, axis=1)
        vc = lax.dynamic_update_slice_in_dim(vc, v[:, None], pos, axis=1)
        s = jnp.einsum("bhd,bthd->bht", q, kc) / jnp.sqrt(D // H)
        mask = jnp.arange(T) <= pos
        s = jnp.where(mask[None, None], s, -jnp.inf)
        a = jax.nn.softmax(s, axis=-1)
        o = jnp.einsum("bht,bthd->bhd", a, vc).reshape(x.shape[0], D)
        return x + o @ p["o"], (kc, vc)

    x, cache = lax.scan(layer, x, (params["layers"], cache))
    return x @ params["out"], cache


@functools.partial(jax.jit, static_argnames=("steps", "greedy"))
def generate(params, prompt, key, steps, greedy=False):
    B = prompt.shape[0]
    cache = (jnp.zeros((L, B, T, H, D // H)), jnp.zeros((L, B, T, H, D // H)))

    def body(i, carry):
        toks, cache, key, lp = carry
        logits, cache = decode_step(params, cache, toks[:, i], i)
        key, sub = jax.random.split(key)
        nxt = jnp.argmax(logits, -1) if greedy else jax.random.categorical(sub, logits / 0.8)
        lp = lp + jnp.take_along_axis(jax.nn.log_softmax(logits), nxt[:, None], axis=-1)[:, 0]
        keep = i + 1 < prompt.shape[1]
        nxt = jnp.where(keep, toks[:, i + 1], nxt)
        toks = toks.at[:, i + 1].set(nxt)
        return toks, cache, key, lp

    toks = jnp.zeros((B, steps + 1), jnp.int32).at[:, : prompt.shape[1]].set(prompt)
    toks, _, _, lp = lax.fori_loop(0, steps, body, (toks, cache, key, jnp.zeros(B)))
    return toks, lp


params = init(key)
prompt = jnp.array([[1, 2, 3], [4, 5, 6]], jnp.int32)
toks, lp = generate(params, prompt, jax.random.key(1), steps=T - 1)
print("sampled", toks.tolist(), np.round(np.asarray(lp), 4).tolist())
toks, lp = generate(params, prompt, jax.random.key(1), steps=T - 1, greedy=True)
print("greedy", toks.tolist(), np.round(np.asarray(lp), 4).tolist())
print("typeof", jax.typeof(toks), jax.typeof(lp))

# --- a GNN: message passing with segment_sum / segment_max, scatter-add ------------------------
N, E, F = 10, 24, 8
rng = np.random.default_rng(0)
senders = jnp.asarray(rng.integers(0, N, E), jnp.int32)
receivers = jnp.asarray(rng.integers(0, N, E), jnp.int32)
feats = jnp.asarray(rng.normal(size=(N, F)), jnp.float32)
labels = jnp.asarray(rng.integers(0, 3, N), jnp.int32)


def gnn(p, x):
    for w in p:
        m = x[senders] @ w
        agg = jax.ops.segment_sum(m, receivers, num_segments=N)
        mx = jax.ops.segment_max(m, receivers, num_segments=N)
        mx = jnp.where(jnp.isfinite(mx), mx, 0.0)
        deg = jnp.zeros(N).at[receivers].add(1.0)
        x = jax.nn.relu(agg / jnp.maximum(deg, 1.0)[:, None] + 0.1 * mx)
    return x[:, :3]


def gnn_loss(p, x, y):
    logits = gnn(p, x)
    return -jnp.mean(jnp.sum(jax.nn.one_hot(y, 3) * jax.nn.log_softmax(logits), -1))


gp = [jax.random.normal(k, (F, F)) * 0.5 for k in jax.random.split(jax.random.key(2), 3)]
opt = jax.jit(lambda p, x, y: jax.tree.map(lambda a, g: a - 0.1 * g, p, jax.grad(gnn_loss)(p, x, y)))
for s in range(5):
    gp = opt(gp, feats, labels)
    print("gnn", s, round(float(gnn_loss(gp, feats, labels)), 5))

# --- PPO-style losses: GAE by reverse scan, clipped ratios, entropy ------------------------------
Tn, Bn, A = 16, 4, 5
rew = jnp.asarray(rng.normal(size=(Tn, Bn)), jnp.float32)
done = jnp.asarray(rng.random((Tn, Bn)) < 0.1)
vals = jnp.asarray(rng.normal(size=(Tn + 1, Bn)), jnp.float32)
acts = jnp.asarray(rng.integers(0, A, (Tn, Bn)), jnp.int32)
old_lp = jnp.asarray(-rng.random((Tn, Bn)) * 2, jnp.float32)
obs = jnp.asarray(rng.normal(size=(Tn, Bn, 6)), jnp.float32)


def gae(rew, vals, done, gamma=0.99, lam=0.95):
    def step(adv, x):
        r, v, nv, d = x
        delta = r + gamma * nv * (1 - d) - v
        adv = delta + gamma * lam * (1 - d) * adv
        return adv, adv
    _, advs = lax.scan(step, jnp.zeros(rew.shape[1:]), (rew, vals[:-1], vals[1:], done.astype(jnp.float32)),
                       reverse=True)
    return advs


def ppo_loss(w, obs, acts, old_lp, advs):
    logits = obs @ w
    logp = jax.nn.log_softmax(logits)
    lp = jnp.take_along_axis(logp, acts[..., None], -1)[..., 0]
    ratio = jnp.exp(lp - old_lp)
    advs = (advs - advs.mean()) / (advs.std() + 1e-8)
    pg = -jnp.minimum(ratio * advs, jnp.clip(ratio, 0.8, 1.2) * advs).mean()
    ent = -(jnp.exp(logp) * logp).sum(-1).mean()
    return pg - 0.01 * ent, (pg, ent, jnp.mean(jnp.abs(ratio - 1) > 0.2))


advs = jax.jit(gae)(rew, vals, done)
print("gae", np.round(np.asarray(advs[:3]), 4).tolist())
w = jnp.zeros((6, A))
for s in range(3):
    (loss, (pg, ent, frac)), g = jax.value_and_grad(ppo_loss, has_aux=True)(w, obs, acts, old_lp, lax.stop_gradient(advs))
    w = w - 0.5 * g
    print("ppo", s, round(float(loss), 5), round(float(ent), 5), float(frac))
print("vmapped gae", jax.vmap(gae, in_axes=(1, 1, 1), out_axes=1)(rew, vals, done).shape)
