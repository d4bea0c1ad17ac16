"""shard_map programs: a ring all-reduce with ppermute, an MoE all_to_all dispatch, a pipeline
with ppermute in a fori_loop, psum_scatter / all_gather FSDP matmul, grad through shard_map."""
import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import PartitionSpec as P

jax.config.update("jax_num_cpu_devices", 8)
mesh = jax.make_mesh((8,), ("i",), axis_types=(jax.sharding.AxisType.Explicit,))
mesh2 = jax.make_mesh((2, 4), ("dp", "fsdp"), axis_types=(jax.sharding.AxisType.Explicit,) * 2)
N = 8


@jax.jit
@functools.partial(jax.shard_map, mesh=mesh, in_specs=P("i"), out_specs=P("i"))
def ring_allreduce(x):
    acc = x
    cur = x
    for _ in range(N - 1):
        cur = lax.ppermute(cur, "i", [(j, (j + 1) % N) for j in range(N)])
        acc = acc + cur
    return acc


@jax.jit
@functools.partial(jax.shard_map, mesh=mesh, in_specs=(P("i"), P("i")), out_specs=P("i"))
def moe(tokens, expert_w):
    # tokens: [N*4, 8], per device [4, 8]; device d's tokens go to expert d
    t = tokens.reshape(4, 8)
    send = jnp.broadcast_to(t[None], (N, 4, 8)) * (jnp.arange(N)[:, None, None] == lax.axis_index("i") % N)
    recv = lax.all_to_all(send, "i", 0, 0, tiled=False)
    out = jnp.einsum("ntd,de->nte", recv, expert_w[0])
    back = lax.all_to_all(out, "i", 0, 0, tiled=False)
    return jnp.sum(back, axis=0)


def pipeline(ws, x):
    @functools.partial(jax.shard_map, mesh=mesh, in_specs=(P("i"), P()), out_specs=P())
    def run(w, x):
        stage = lax.axis_index("i")
        def step(k, carry):
            buf, out = carry
            inp = jnp.where(stage == 0, x[k % x.shape[0]], buf)
            y = jnp.tanh(inp @ w[0])
            out = jnp.where((stage == N - 1) & (k >= N - 1), out + y.sum(), out)
            return lax.ppermute(y, "i", [(j, j + 1) for j in range(N - 1)]), out
        init = lax.pcast((jnp.zeros_like(x[0]), jnp.zeros(())), ("i",), to="varying")
        _, out = lax.fori_loop(0, N + 2, step, init)
        return lax.psum(out, "i")
    return run(ws, x)


@jax.jit
def fsdp_loss(w, x):
    @functools.partial(jax.shard_map, mesh=mesh2, in_specs=(P("fsdp"), P("dp")), out_specs=P())
    def f(w, x):
        full = lax.all_gather(w, "fsdp", tiled=True)
        y = jnp.tanh(x @ full)
        return lax.psum(jnp.sum(y ** 2), ("dp", "fsdp")) / 4
    return f(w, x)


x = jnp.arange(N * 2, dtype=jnp.float32).reshape(N * 2, 1) * 1.0
with jax.set_mesh(mesh):
    xs = jax.device_put(x, P("i"))
    r = ring_allreduce(xs)
    print("ring", np.asarray(r).ravel()[:4], jax.typeof(r))
    toks = jax.device_put(jnp.arange(N * 4 * 8, dtype=jnp.float32).reshape(N * 4, 8) / 100, P("i"))
    ew = jax.device_put(jnp.stack([jnp.eye(8) * (e + 1) for e in range(N)]), P("i"))
    m = moe(toks, ew)
    print("moe", jax.typeof(m), round(float(jnp.sum(m)), 3))
    ws = jax.device_put(jnp.stack([jnp.eye(4) * 0.5 + 0.01 * k for k in range(N)]), P("i"))
    inp = jnp.ones((3, 4))
    print("pipeline", round(float(jax.jit(pipeline)(ws, inp)), 5))
    g = jax.jit(jax.grad(lambda w: pipeline(w, inp)))(ws)
    print("pipeline grad", jax.typeof(g), round(float(jnp.sum(g)), 5))
with jax.set_mesh(mesh2):
    w = jax.device_put(jnp.linspace(-1, 1, 16 * 8).reshape(16, 8), P("fsdp"))
    xb = jax.device_put(jnp.linspace(0, 1, 4 * 16).reshape(4, 16), P("dp"))
    l, gw = jax.value_and_grad(fsdp_loss)(w, xb)
    print("fsdp", round(float(l), 5), jax.typeof(gw), round(float(jnp.sum(gw)), 5))
    txt = jax.jit(jax.grad(fsdp_loss)).lower(w, xb).compile().as_text()
    print("fsdp collectives", sorted({k: txt.count(k + "(") for k in ("all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute")}.items()))
