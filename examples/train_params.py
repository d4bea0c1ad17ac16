"""A training step whose parameters are one dict, as JAX training code writes it.

`params` is annotated with a dict of type strings, so every `shardc` command sees
one input per leaf, named by its path (`params.w1`, …): `run` draws them,
`--inputs` / `--save` use those names. The step accumulates gradients over
micro-batches with `lax.scan` (the per-micro-batch collectives run once per
iteration: `inspect` shows the loop's trip count and the per-run totals), then
takes an SGD step with `jax.tree.map`. The MLP is Megatron's (w1 column-parallel,
w2 row-parallel over `model`), the batch is sharded over `data`.

It is written against JAX's names: with `import jax`, `import jax.numpy as jnp`,
`from jax import lax`, `from jax.sharding import PartitionSpec as P` (and
`jax.config.update("jax_num_cpu_devices", 8)`) the same file runs under JAX and
prints the same losses (tests/test_examples_port.py checks that).

    shardc check examples/train_params.py --cost
    shardc run examples/train_params.py
    shardc inspect examples/train_params.py --html report.html
"""
import numpy as np

import shardc as jax
import shardc.numpy as jnp
from shardc import lax
from shardc.sharding import PartitionSpec as P

mesh = jax.make_mesh((2, 4), ("data", "model"))
jax.set_mesh(mesh)

PARAMS = {"w1": "f32[16,64@model]", "b1": "f32[64@model]", "w2": "f32[64@model,16]", "b2": "f32[16]"}
LR = 0.1


def mlp(params, x):
    h = jax.nn.gelu(jnp.matmul(x, params["w1"]) + params["b1"])
    return jnp.matmul(h, params["w2"], out_sharding=P("data", None)) + params["b2"]   # all-reduce over model


def loss_fn(params, x, y):
    return jnp.mean(jnp.square(mlp(params, x) - y))


@jax.jit
def train_step(params: PARAMS, xs: "f32[4,8@data,16]", ys: "f32[4,8@data,16]"):
    """Four micro-batches: gradients summed in a scan, then one SGD step."""
    def micro(acc, batch):
        loss, g = jax.value_and_grad(loss_fn)(params, *batch)
        return jax.tree.map(jnp.add, acc, g), loss

    zeros = jax.tree.map(jnp.zeros_like, params)
    grads, losses = lax.scan(micro, zeros, (xs, ys))
    new = jax.tree.map(lambda p, g: p - LR * g / xs.shape[0], params, grads)
    return new, jnp.mean(losses)


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    layout = {"w1": ((16, 64), P(None, "model")), "b1": ((64,), P("model")),
              "w2": ((64, 16), P("model", None)), "b2": ((16,), P())}
    params = {k: jax.device_put(rng.normal(size=shape).astype(np.float32) * 0.3, spec)
              for k, (shape, spec) in layout.items()}
    xs = jax.device_put(rng.normal(size=(4, 8, 16)).astype(np.float32), P(None, "data"))
    ys = jax.device_put(np.tanh(np.asarray(xs)), P(None, "data"))
    for step in range(3):
        params, loss = train_step(params, xs, ys)
        print(f"step {step}: loss {float(loss):.5f}", {k: str(jax.typeof(v)) for k, v in params.items()})
