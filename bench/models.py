"""Model-scale training steps, written ONCE against the JAX API and run on both sides.

The shardc side gets the same source through the porting contract (SPEC §2b):
`import shardc as jax`, `import shardc.numpy as jnp`. `build(jax, jnp, ...)` takes the two
namespaces, so what is benchmarked is exactly what a user porting the step would run.

* `mlp100`: a 100-layer MLP (Megatron layout: column-parallel `w1` on `Y`, row-parallel `w2`
  with `out_sharding=P('X', None)`, residual, batch on `X`), mean-squared-error loss.
* `transformer24`: a 24-layer pre-LayerNorm transformer (causal attention with heads on `Y`,
  Megatron MLP, residuals, batch on `X`).

Each step is forward + `jax.value_and_grad` + an SGD-with-momentum update over the parameter
pytree (`jax.tree_util.tree_map`), on the (2, 4) Explicit mesh `('X', 'Y')`.
"""
from __future__ import annotations

import numpy as np

MLP = dict(layers=100, batch=64, width=128, hidden=512)
TRANSFORMER = dict(layers=24, batch=8, seq=64, width=128, heads=8, head_dim=16, hidden=512)


def _mlp_params(cfg):
    d, f = cfg["width"], cfg["hidden"]
    return ([{"w1": ((d, f), (None, "Y")), "w2": ((f, d), ("Y", None))} for _ in range(cfg["layers"])],
            ((cfg["batch"], d), ("X", None)))


def _transformer_params(cfg):
    d, h, k, f = cfg["width"], cfg["heads"], cfg["head_dim"], cfg["hidden"]
    layer = {"ln1": ((d,), (None,)), "wq": ((d, h, k), (None, "Y", None)), "wk": ((d, h, k), (None, "Y", None)),
             "wv": ((d, h, k), (None, "Y", None)), "wo": ((h, k, d), ("Y", None, None)), "ln2": ((d,), (None,)),
             "w1": ((d, f), (None, "Y")), "w2": ((f, d), ("Y", None))}
    return [dict(layer) for _ in range(cfg["layers"])], ((cfg["batch"], cfg["seq"], d), ("X", None, None))


def layouts(kind: str):
    """(parameter pytree of (shape, spec) leaves, (shape, spec) of the input and target)."""
    return _mlp_params(MLP) if kind == "mlp100" else _transformer_params(TRANSFORMER)


def build(jax, jnp, P, kind: str):
    """The training step of `kind`, built from the namespaces `jax`, `jnp` and `P`."""

    def gelu_mlp(p, x, out):
        return jnp.dot(jax.nn.gelu(jnp.dot(x, p["w1"])), p["w2"], out_sharding=out)

    def mlp_forward(params, x):
        for p in params:
            x = x + gelu_mlp(p, x, P("X", None))
        return x

    def layer_norm(x, scale):
        mu = jnp.mean(x, axis=-1, keepdims=True)
        var = jnp.mean(jnp.square(x - mu), axis=-1, keepdims=True)
        return (x - mu) * jax.lax.rsqrt(var + 1e-6) * scale

    def attention(p, x):
        q = jnp.einsum("bsd,dhk->bshk", x, p["wq"])
        k = jnp.einsum("bsd,dhk->bshk", x, p["wk"])
        v = jnp.einsum("bsd,dhk->bshk", x, p["wv"])
        s = jnp.einsum("bqhk,bshk->bhqs", q, k) / np.sqrt(q.shape[-1]).astype(np.float32)
        causal = jnp.tril(jnp.ones((x.shape[1], x.shape[1]), dtype=bool))
        s = jnp.where(causal, s, -1e9)
        o = jnp.einsum("bhqs,bshk->bqhk", jax.nn.softmax(s, axis=-1), v)
        return jnp.einsum("bqhk,hkd->bqd", o, p["wo"], out_sharding=P("X", None, None))

    def transformer_forward(params, x):
        for p in params:
            x = x + attention(p, layer_norm(x, p["ln1"]))
            x = x + gelu_mlp(p, layer_norm(x, p["ln2"]), P("X", None, None))
        return x

    forward = mlp_forward if kind == "mlp100" else transformer_forward

    def loss(params, x, y):
        return jnp.mean(jnp.square(forward(params, x) - y))

    def train_step(params, momentum, x, y):
        value, grads = jax.value_and_grad(loss)(params, x, y)
        momentum = jax.tree_util.tree_map(lambda m, g: 0.9 * m + g, momentum, grads)
        params = jax.tree_util.tree_map(lambda p, m: p - 1e-3 * m, params, momentum)
        return params, momentum, value

    return train_step


def init_values(kind: str, seed: int = 0):
    """numpy values for (params, momentum, x, y), the same on both sides."""
    rng = np.random.default_rng(seed)
    tree, (xshape, _) = layouts(kind)

    def leaf(shape, ones=False):
        if ones:
            return np.ones(shape, np.float32)
        return (rng.normal(0, 1, shape) * shape[0] ** -0.5 * 0.5).astype(np.float32)

    params = [{k: leaf(s, ones=k.startswith("ln")) for k, (s, _) in layer.items()} for layer in tree]
    momentum = [{k: np.zeros(s, np.float32) for k, (s, _) in layer.items()} for layer in tree]
    x = rng.normal(0, 1, xshape).astype(np.float32)
    return params, momentum, x, np.tanh(x[..., ::-1]).astype(np.float32)
