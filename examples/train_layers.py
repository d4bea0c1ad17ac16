"""A deep MLP trained the way JAX training code is written: the layers' weights
are stacked and `sc.scan` runs them, the loop body closes over a shared scale,
each layer is rematerialized in the backward pass (`sc.checkpoint`), and the
weights are stored FSDP-style (sharded over `fsdp`, all-gathered just before
use). `sc.value_and_grad` differentiates through all of it.

    shardc inspect examples/train_layers.py -p train_step

shows one all-gather of a layer's weights per layer in the forward pass, one
more per layer where the backward recomputes it, a reduce-scatter of each
layer's gradient (the transpose of the all-gather), and the loss's all-reduce.
`python examples/train_layers.py` trains a few steps and prints the loss.
"""
import numpy as np

import shardc as sc
from shardc import P

sc.set_mesh(sc.make_mesh((8,), ("fsdp",)))

LAYERS, WIDTH, BATCH = 4, 64, 32


def layer(h, w, scale):
    w_full = sc.reshard(w, P())                 # all-gather this layer's weights over fsdp
    return sc.tanh(h @ w_full) * scale          # h stays batch-sharded: no other communication


def forward(ws, scale, x):
    remat_layer = sc.checkpoint(layer)          # recompute the layer in the backward pass

    def body(h, w):                             # closes over `scale`, a value of this program
        return remat_layer(h, w, scale), None

    h, _ = sc.scan(body, x, ws)
    return h


@sc.jit
def loss(ws: "f32[4,64@fsdp,64]", scale: "f32[64]", x: "f32[32@fsdp,64]", y: "f32[32@fsdp,64]"):
    return sc.mean(sc.square(forward(ws, scale, x) - y))


@sc.jit
def train_step(ws: "f32[4,64@fsdp,64]", scale: "f32[64]", x: "f32[32@fsdp,64]", y: "f32[32@fsdp,64]"):
    value, (g_ws, g_scale) = sc.value_and_grad(loss, argnums=(0, 1))(ws, scale, x, y)
    return ws - 0.5 * g_ws, scale - 0.5 * g_scale, value


def init(seed: int = 0):
    rng = np.random.default_rng(seed)
    ws = rng.normal(0, WIDTH ** -0.5, (LAYERS, WIDTH, WIDTH)).astype(np.float32)
    x = rng.normal(0, 1, (BATCH, WIDTH)).astype(np.float32)
    y = np.tanh(x[:, ::-1]).astype(np.float32)
    return ws, np.ones(WIDTH, np.float32), x, y


if __name__ == "__main__":
    ws, scale, x, y = init()
    ws = sc.device_put(ws, P(None, "fsdp", None))
    x, y = sc.device_put(x, P("fsdp", None)), sc.device_put(y, P("fsdp", None))
    for step in range(5):
        ws, scale, value = train_step(ws, scale, x, y)
        print(f"step {step}: loss {float(value):.5f}")
    print(sc.typeof(ws), sc.typeof(scale))
