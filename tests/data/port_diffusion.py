"""A small diffusion model on an Explicit mesh: time embeddings, group norm, conv blocks under
checkpoint policies, Adam with bias correction, EMA params, fold_in keys, sampling with cond."""
import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P

jax.config.update("jax_num_cpu_devices", 8)
mesh = jax.make_mesh((4, 2), ("data", "model"), axis_types=(AxisType.Explicit,) * 2)
jax.sharding.set_mesh(mesh)

C, HW, B = 8, 8, 8
init_fn = jax.nn.initializers.variance_scaling(1.0, "fan_in", "truncated_normal")


def timestep_embedding(t, dim=16):
    half = dim // 2
    freqs = jnp.exp(-math.log(10000) * jnp.arange(half) / half)
    a = t[:, None].astype(jnp.float32) * freqs[None]
    return jnp.concatenate([jnp.sin(a), jnp.cos(a)], axis=-1)


def group_norm(x, g, b, groups=2, eps=1e-5):
    n, h, w, c = x.shape
    xg = x.reshape(n, h, w, groups, c // groups)
    mean = xg.mean(axis=(1, 2, 4), keepdims=True)
    var = xg.var(axis=(1, 2, 4), keepdims=True)
    return ((xg - mean) * lax.rsqrt(var + eps)).reshape(n, h, w, c) * g + b


def conv(x, w):
    return lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))


def init(key):
    k = jax.random.split(key, 6)
    return {
        "inp": init_fn(k[0], (3, 3, 1, C)),
        "blocks": [{"w1": init_fn(jax.random.fold_in(k[1], i), (3, 3, C, C)),
                    "w2": init_fn(jax.random.fold_in(k[2], i), (3, 3, C, C)),
                    "t": init_fn(jax.random.fold_in(k[3], i), (16, C)),
                    "g": jnp.ones(C), "b": jnp.zeros(C)} for i in range(2)],
        "out": jnp.zeros((3, 3, C, 1)),
    }


@functools.partial(jax.checkpoint, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)
def block(p, x, temb):
    h = jax.nn.silu(group_norm(x, p["g"], p["b"]))
    h = conv(h, p["w1"]) + (temb @ p["t"])[:, None, None, :]
    h = jax.nn.silu(h)
    return x + conv(h, p["w2"])


def model(params, x, t):
    temb = timestep_embedding(t)
    h = conv(x, params["inp"])
    for p in params["blocks"]:
        h = block(p, h, temb)
    return conv(h, params["out"])


betas = jnp.linspace(1e-4, 0.02, 50)
alphas_bar = jnp.cumprod(1.0 - betas)


def loss_fn(params, x0, key):
    kt, kn = jax.random.split(key)
    t = jax.random.randint(kt, (x0.shape[0],), 0, 50)
    noise = jax.random.normal(kn, x0.shape)
    ab = alphas_bar[t][:, None, None, None]
    xt = jnp.sqrt(ab) * x0 + jnp.sqrt(1 - ab) * noise
    return jnp.mean((model(params, xt, t) - noise) ** 2)


def adam(grads, state, params, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8):
    m, v, n = state
    n = n + 1
    m = jax.tree.map(lambda m, g: b1 * m + (1 - b1) * g, m, grads)
    v = jax.tree.map(lambda v, g: b2 * v + (1 - b2) * g * g, v, grads)
    mh = jax.tree.map(lambda m: m / (1 - b1 ** n), m)
    vh = jax.tree.map(lambda v: v / (1 - b2 ** n), v)
    params = jax.tree.map(lambda p, m, v: p - lr * m / (jnp.sqrt(v) + eps), params, mh, vh)
    return params, (m, v, n)


@jax.jit
def train_step(params, opt, ema, x0, key):
    loss, grads = jax.value_and_grad(loss_fn)(params, x0, key)
    gnorm = jnp.sqrt(sum(jnp.sum(g * g) for g in jax.tree.leaves(grads)))
    grads = jax.tree.map(lambda g: g * jnp.minimum(1.0, 1.0 / (gnorm + 1e-6)), grads)
    params, opt = adam(grads, opt, params)
    ema = jax.tree.map(lambda e, p: 0.99 * e + 0.01 * p, ema, params)
    return params, opt, ema, loss, gnorm


params = init(jax.random.key(0))
opt = (jax.tree.map(jnp.zeros_like, params), jax.tree.map(jnp.zeros_like, params), jnp.zeros((), jnp.int32))
ema = params
x0 = jnp.asarray(np.sin(np.linspace(0, 6, B * HW * HW)).reshape(B, HW, HW, 1), jnp.float32)
x0 = jax.device_put(x0, NamedSharding(mesh, P("data")))
print("x0", jax.typeof(x0), x0.sharding.spec)
for s in range(4):
    params, opt, ema, loss, gnorm = train_step(params, opt, ema, x0, jax.random.fold_in(jax.random.key(1), s))
    print("step", s, round(float(loss), 5), round(float(gnorm), 5))
print("types", jax.typeof(loss), jax.typeof(params["blocks"][0]["w1"]), jax.typeof(opt[2]))


@functools.partial(jax.jit, static_argnums=(2,))
def sample(params, key, n):
    x = jax.random.normal(key, (n, HW, HW, 1), out_sharding=P("data"))

    def body(i, carry):
        x, key = carry
        t = 49 - i
        key, sub = jax.random.split(key)
        eps = model(params, x, jnp.full((n,), t))
        ab, b = alphas_bar[t], betas[t]
        mean = (x - b / jnp.sqrt(1 - ab) * eps) / jnp.sqrt(1 - b)
        x = lax.cond(t > 0, lambda: mean + jnp.sqrt(b) * jax.random.normal(sub, x.shape, out_sharding=P("data")),
                     lambda: mean)
        return x, key

    x, _ = lax.fori_loop(0, 50, body, (x, key))
    return x


xs = sample(ema, jax.random.key(3), 8)
print("sample", jax.typeof(xs), np.round(float(jnp.mean(xs)), 4), np.round(float(jnp.std(xs)), 4))
hlo = train_step.lower(params, opt, ema, x0, jax.random.key(4)).compile().as_text()
print("collectives", {k: hlo.count(k) for k in ("all-reduce(", "all-gather(", "reduce-scatter(", "all-to-all(",
                                                  "collective-permute(")})
