"""Training steps written per device with `sc.shard_map`, as in the JAX
shard_map tutorials: a mixture-of-experts layer (tokens travel to their
expert's device and back with `all_to_all`), ring attention (key/value blocks
travel around the ring with `ppermute` inside a `fori_loop`, with a running
log-sum-exp), and a rotating pipeline (activations hop from stage to stage
with `ppermute`). Each step takes `sc.value_and_grad` through the shard_map
and updates the weights; the backward pass reuses the forward's per-device
values, so its collectives are the transposes of the forward's, no more.

    shardc inspect examples/manual_training.py -p moe_step

`python examples/manual_training.py` trains each for a few steps.
"""
import numpy as np

import shardc as sc
from shardc import P

sc.set_mesh(sc.make_mesh((8,), ("X",)))

RING = [(i, (i + 1) % 8) for i in range(8)]


# --- mixture of experts -------------------------------------------------------------------------
def moe_layer(x, w):
    def body(x, w):                                    # x: this device's 8 tokens, w: its expert
        t = sc.all_to_all(x, "X", 0, 0, tiled=True)    # one token from every device to this expert
        h = sc.tanh(t @ w[0])
        return sc.all_to_all(h, "X", 0, 0, tiled=True)  # back to the devices they came from
    return sc.shard_map(body, in_specs=(P("X", None), P("X", None, None)), out_specs=P("X", None))(x, w)


@sc.jit
def moe_step(x: "f32[64@X,16]", w: "f32[8@X,16,16]", y: "f32[64@X,16]"):
    loss, g = sc.value_and_grad(lambda w: sc.mean(sc.square(moe_layer(x, w) - y)))(w)
    return w - 0.5 * g, loss


# --- ring attention -------------------------------------------------------------------------------
def ring_attention(q, k, v):
    def body(q, k, v):                                 # one block of queries, keys and values each
        def step(i, carry):
            m, l, acc, k, v = carry
            s = q @ k.T                                # scores against the block held now
            m_new = sc.maximum(m, sc.max(s, axis=1))
            p = sc.exp(s - m_new[:, None])
            scale = sc.exp(m - m_new)
            l = l * scale + sc.sum(p, axis=1)
            acc = acc * scale[:, None] + p @ v
            return m_new, l, acc, sc.ppermute(k, "X", RING), sc.ppermute(v, "X", RING)
        m0 = sc.pcast(sc.full((q.shape[0],), -1e30), "X", to="varying")   # per-device running max
        l0 = sc.pcast(sc.zeros((q.shape[0],)), "X", to="varying")         # and normalizer
        _, l, acc, _, _ = sc.fori_loop(0, 8, step, (m0, l0, sc.zeros_like(q), k, v))
        return acc / l[:, None]
    spec = P("X", None)
    return sc.shard_map(body, in_specs=(spec, spec, spec), out_specs=spec)(q, k, v)


@sc.jit
def ring_step(x: "f32[64@X,16]", wq: "f32[16,16]", y: "f32[64@X,16]"):
    def loss(wq):
        return sc.mean(sc.square(ring_attention(x @ wq, x, x) - y))
    value, g = sc.value_and_grad(loss)(wq)
    return wq - 0.5 * g, value


# --- rotating pipeline ----------------------------------------------------------------------------
def pipeline(x, w):
    def body(x, w):                                    # x: this stage's microbatch, w: its layer
        def hop(i, h):
            return sc.ppermute(sc.tanh(h @ w[0]), "X", RING)   # compute, pass to the next stage
        return sc.fori_loop(0, 8, hop, x)              # every microbatch visits all 8 stages
    return sc.shard_map(body, in_specs=(P("X", None), P("X", None, None)), out_specs=P("X", None))(x, w)


@sc.jit
def pipeline_step(x: "f32[64@X,16]", w: "f32[8@X,16,16]", y: "f32[64@X,16]"):
    loss, g = sc.value_and_grad(lambda w: sc.mean(sc.square(pipeline(x, w) - y)))(w)
    return w - 0.5 * g, loss


def init(seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.normal(0, 1, (64, 16)).astype(np.float32)
    w = rng.normal(0, 16 ** -0.5, (8, 16, 16)).astype(np.float32)
    wq = rng.normal(0, 16 ** -0.5, (16, 16)).astype(np.float32)
    y = np.tanh(x[:, ::-1]).astype(np.float32)
    return x, w, wq, y


if __name__ == "__main__":
    x, w, wq, y = init()
    x, y = sc.device_put(x, P("X", None)), sc.device_put(y, P("X", None))
    for name, step, params in [("moe", moe_step, sc.device_put(w, P("X", None, None))),
                               ("ring", ring_step, sc.device_put(wq, P())),
                               ("pipeline", pipeline_step, sc.device_put(w, P("X", None, None)))]:
        losses = []
        for _ in range(4):
            params, value = step(x, params, y)
            losses.append(float(value))
        print(f"{name}: loss " + " ".join(f"{v:.5f}" for v in losses))
