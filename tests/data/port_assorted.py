"""Assorted JAX: register_dataclass modules, vmap with dict in_axes and axis_name collectives,
scan(unroll=), remat(static_argnums), fft layers, conv_transpose, image.resize, switch on data,
piecewise/select/interp/histogram/searchsorted/bincount/convolve, reduce_precision."""
import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

jax.config.update("jax_num_cpu_devices", 8)


@functools.partial(jax.tree_util.register_dataclass, data_fields=["w", "b"], meta_fields=["act"])
@dataclasses.dataclass
class Dense:
    w: jax.Array
    b: jax.Array
    act: str = "gelu"

    def __call__(self, x):
        y = x @ self.w + self.b
        return jax.nn.gelu(y, approximate=False) if self.act == "gelu" else jnp.tanh(y)


def spectral(x, k):
    return jnp.fft.irfft(jnp.fft.rfft(x, axis=-1) * k, n=x.shape[-1], axis=-1)


@functools.partial(jax.remat, static_argnums=(2,))
def block(layer, x, mode):
    h = layer(x)
    return h if mode == "plain" else spectral(h, jnp.exp(-jnp.arange(h.shape[-1] // 2 + 1) / 4.0))


def model(layers, x):
    def body(h, layer):
        return block(layer, h, "spectral") + h, jnp.mean(h)
    h, means = lax.scan(body, x, layers, unroll=2)
    return h, means


key = jax.random.key(5)
k1, k2, k3 = jax.random.split(key, 3)
layers = Dense(jax.random.normal(k1, (4, 16, 16)) * 0.2, jnp.zeros((4, 16)))
x = jax.random.normal(k2, (6, 16))
h, means = jax.jit(model)(layers, x)
print("model", np.round(np.asarray(means), 4), round(float(jnp.sum(h)), 3))
g = jax.jit(jax.grad(lambda l: jnp.sum(model(l, x)[0] ** 2)))(layers)
print("grad", type(g).__name__, g.act, round(float(jnp.linalg.norm(g.w)), 4), round(float(jnp.sum(g.b)), 4))

# vmap with dict in_axes, out_axes and a collective over the vmapped axis
def normalize(d):
    mu = lax.pmean(d["x"], "batch")
    sd = jnp.sqrt(lax.pmean((d["x"] - mu) ** 2, "batch"))
    return (d["x"] - mu) / sd * d["scale"]
out = jax.vmap(normalize, in_axes=({"x": 0, "scale": None},), out_axes=1, axis_name="batch")(
    {"x": x[:, :4], "scale": 2.0})
print("vmap", out.shape, np.round(np.asarray(out[:, 0]), 4))

# switch on data, cond with a pytree
def route(i, v):
    return lax.switch(i, [lambda v: v * 2, lambda v: jnp.sin(v), lambda v: -v], v)
print("switch", np.round(np.asarray(jax.vmap(route)(jnp.array([0, 1, 2, 5, -1, 1]), x[:, 0])), 4))
c = lax.cond(x[0, 0] > 0, lambda t: (t[0] + 1, t[1] * 2), lambda t: (t[0] - 1, t[1] / 2), (x[0], x[1]))
print("cond", round(float(jnp.sum(c[0])), 4), round(float(jnp.sum(c[1])), 4))

# conv_transpose and resize
img = jax.random.uniform(k3, (1, 5, 5, 2))
kern = jnp.ones((3, 3, 2, 3)) / 9.0
up = lax.conv_transpose(img, kern, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
rs = jax.image.resize(img, (1, 9, 9, 2), "bilinear")
print("conv_t", up.shape, round(float(jnp.sum(up)), 4), "resize", round(float(jnp.sum(rs)), 4))

# numpy utilities
v = x[:, 0]
print("piecewise", np.round(np.asarray(jnp.piecewise(v, [v < 0, v >= 0], [lambda t: t ** 2, lambda t: -t])), 4))
print("select", np.asarray(jnp.select([v < -0.5, v > 0.5], [0, 2], default=1)))
print("interp", np.round(np.asarray(jnp.interp(jnp.linspace(-1, 1, 5), jnp.sort(v), jnp.arange(6.0))), 4))
hist, edges = jnp.histogram(x.ravel(), bins=5, range=(-2, 2))
print("histogram", np.asarray(hist), np.round(np.asarray(edges), 2))
print("searchsorted", np.asarray(jnp.searchsorted(jnp.sort(v), jnp.array([-1.0, 0.0, 1.0]))))
print("bincount", np.asarray(jnp.bincount(jnp.array([0, 1, 1, 3, 3, 3]), length=5)))
print("convolve", np.round(np.asarray(jnp.convolve(v, jnp.array([0.25, 0.5, 0.25]), mode="same")), 4))
print("reduce_precision", np.asarray(lax.reduce_precision(jnp.array([1.0009765625, 3.14159]), 5, 2)))
