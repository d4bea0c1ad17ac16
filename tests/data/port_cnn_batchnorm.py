"""A small CNN with batch norm (running stats), custom pytree modules, pooling, attention pooling,
label smoothing, a cosine schedule, written against JAX."""
import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import PartitionSpec as P

jax.config.update("jax_num_cpu_devices", 8)
mesh = jax.make_mesh((8,), ("batch",), axis_types=(jax.sharding.AxisType.Explicit,))


@jax.tree_util.register_pytree_node_class
@dataclasses.dataclass
class Conv:
    w: jax.Array
    b: jax.Array

    def __call__(self, x, stride=1):
        y = lax.conv_general_dilated(x, self.w, (stride, stride), "SAME",
                                     dimension_numbers=("NHWC", "HWIO", "NHWC"))
        return y + self.b

    def tree_flatten(self):
        return (self.w, self.b), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)


def conv_init(key, cin, cout, k=3):
    return Conv(jax.nn.initializers.he_normal()(key, (k, k, cin, cout)), jnp.zeros((cout,)))


def batch_norm(x, stats, train, momentum=0.9, eps=1e-5):
    if train:
        mean, var = jnp.mean(x, axis=(0, 1, 2)), jnp.var(x, axis=(0, 1, 2))
        new = {"mean": momentum * stats["mean"] + (1 - momentum) * mean,
               "var": momentum * stats["var"] + (1 - momentum) * var}
    else:
        mean, var, new = stats["mean"], stats["var"], stats
    return (x - mean) * lax.rsqrt(var + eps), new


def init(key):
    ks = jax.random.split(key, 5)
    return ({"c1": conv_init(ks[0], 3, 8), "c2": conv_init(ks[1], 8, 16), "q": jax.random.normal(ks[2], (16,)),
             "head": jax.nn.initializers.xavier_normal()(ks[3], (16, 10))},
            {"bn1": {"mean": jnp.zeros(8), "var": jnp.ones(8)}, "bn2": {"mean": jnp.zeros(16), "var": jnp.ones(16)}})


def apply(params, stats, x, train):
    h = params["c1"](x)
    h, s1 = batch_norm(h, stats["bn1"], train)
    h = jax.nn.silu(h)
    h = lax.reduce_window(h, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")   # max pool
    h = params["c2"](h, stride=1)
    h, s2 = batch_norm(h, stats["bn2"], train)
    h = jax.nn.swish(h)
    h = lax.reduce_window(h, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4.0    # avg pool
    tokens = h.reshape(h.shape[0], -1, h.shape[-1])
    att = jax.nn.softmax(jnp.einsum("btc,c->bt", tokens, params["q"]) / 4.0, axis=-1)
    pooled = jnp.einsum("bt,btc->bc", att, tokens)
    return pooled @ params["head"], {"bn1": s1, "bn2": s2}


def loss_fn(params, stats, x, y, smoothing=0.1):
    logits, new_stats = apply(params, stats, x, True)
    labels = optax_smooth(jax.nn.one_hot(y, 10), smoothing)
    return -jnp.mean(jnp.sum(labels * jax.nn.log_softmax(logits), axis=-1)), new_stats


def optax_smooth(labels, alpha):
    return labels * (1 - alpha) + alpha / labels.shape[-1]


def cosine(step, total=8, base=0.05):
    return base * 0.5 * (1 + jnp.cos(jnp.pi * jnp.minimum(step, total) / total))


@functools.partial(jax.jit, static_argnames=("nesterov",))
def train_step(params, stats, mom, x, y, step, nesterov=True):
    (loss, stats), g = jax.value_and_grad(loss_fn, has_aux=True)(params, stats, x, y)
    lr = cosine(step)
    mom = jax.tree.map(lambda m, g: 0.9 * m + g, mom, g)
    upd = jax.tree.map(lambda m, g: 0.9 * m + g, mom, g) if nesterov else mom
    params = jax.tree.map(lambda p, u: p - lr * u, params, upd)
    return params, stats, mom, loss


@jax.jit
def evaluate(params, stats, x, y):
    logits, _ = apply(params, stats, x, False)
    top2 = lax.top_k(logits, 2)[1]
    correct = jnp.any(top2 == y[:, None], axis=-1)
    conf = jax.reshard(jnp.sort(jax.nn.softmax(logits), axis=-1)[:, -1], P())
    return jnp.mean(correct), jnp.median(conf), jnp.argsort(-conf)[:4]


with jax.set_mesh(mesh):
    key = jax.random.key(7)
    kp, kx, kn = jax.random.split(key, 3)
    params, stats = init(kp)
    mom = jax.tree.map(jnp.zeros_like, params)
    x = jax.random.uniform(kx, (16, 8, 8, 3), out_sharding=P("batch"))
    y = (jnp.sum(x[..., 0], axis=(1, 2)) * 3).astype(jnp.int32) % 10
    print("leaves", [str(jax.typeof(l)) for l in jax.tree.leaves(params)])
    for step in range(6):
        noise = 0.01 * jax.random.normal(jax.random.fold_in(kn, step), x.shape, out_sharding=P("batch"))
        params, stats, mom, loss = train_step(params, stats, mom, x + noise, y, step)
        print(f"step {step} loss {float(loss):.5f} bn2-mean {float(jnp.mean(stats['bn2']['mean'])):.5f}")
    acc, med, worst = evaluate(params, stats, x, y)
    print("eval", float(acc), round(float(med), 4), np.asarray(worst), jax.typeof(worst))
    g_norms = jax.tree.map(lambda a: round(float(jnp.linalg.norm(a)), 4), mom)
    print("mom norms", jax.tree.leaves(g_norms))
    print("c1", type(params["c1"]).__name__, jax.typeof(params["c1"].w))
