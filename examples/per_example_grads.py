"""Per-example gradient norms of a Megatron-sharded MLP, with `vmap(grad)`.

The batch is split over `data`, the MLP's hidden features over `model` (column- then
row-parallel, as in megatron.py). `sc.grad` of one example's loss, mapped over the batch with
`sc.vmap`, gives every example its own gradient: each leaf is the parameter's type with the
batch dim in front, laid out over `data` like the batch (`f32[8@data,16,64@model]`), so the
per-example gradients are computed where the examples are and nothing is gathered.
`spmd_axis_name="data"` says so explicitly (it must name the axes the mapped dim is sharded
over, as in JAX). Inside the mapped function an example is `f32[16]`: the batch dim and its
`data` sharding are out of sight.

`clipped_grad` is the DP-SGD step: clip each example's gradient to norm 1, then average
over the batch; the average is the one reduction over `data` (an all-reduce).

    shardc inspect examples/per_example_grads.py -p grad_norms
"""
import shardc as sc
from shardc import P

mesh = sc.make_mesh((2, 4), ("data", "model"))
sc.set_mesh(mesh)


def loss(params, x, y):
    """One example's squared error (x, y: f32[16])."""
    h = sc.tanh(x @ params["w1"])                                 # column-parallel: f32[64@model]
    out = sc.dot(h, params["w2"], out_sharding=P(None))           # row-parallel: all-reduce over model
    return sc.sum((out - y) ** 2)


per_example_grads = sc.vmap(sc.grad(loss), in_axes=(None, 0, 0), spmd_axis_name="data")

PARAMS = {"w1": "f32[16,64@model]", "w2": "f32[64@model,16]"}


def _norms(grads):
    """Each example's gradient norm over all parameters: f32[8@data]."""
    sq = [sc.sum(g * g, axis=tuple(range(1, g.ndim))) for g in sc.tree_util.tree_leaves(grads)]
    return sc.sqrt(sum(sq))


@sc.jit
def grad_norms(params: PARAMS, x: "f32[8@data,16]", y: "f32[8@data,16]"):
    """Per-example gradient norms: no communication beyond the row-parallel all-reduce."""
    return _norms(per_example_grads(params, x, y))


@sc.jit
def clipped_grad(params: PARAMS, x: "f32[8@data,16]", y: "f32[8@data,16]"):
    """DP-SGD: per-example gradients clipped to norm 1, averaged over the batch."""
    grads = per_example_grads(params, x, y)
    scale = 1.0 / sc.maximum(_norms(grads), 1.0)                  # f32[8@data]
    return sc.tree_util.tree_map(
        lambda g: sc.mean(g * sc.reshape(scale, (-1,) + (1,) * (g.ndim - 1)), axis=0), grads)


if __name__ == "__main__":
    import numpy as np
    rng = np.random.default_rng(0)
    params = {"w1": sc.device_put(rng.standard_normal((16, 64), np.float32) * 0.3, P(None, "model")),
              "w2": sc.device_put(rng.standard_normal((64, 16), np.float32) * 0.3, P("model", None))}
    x = sc.device_put(rng.standard_normal((8, 16), np.float32), P("data", None))
    y = sc.device_put(rng.standard_normal((8, 16), np.float32), P("data", None))
    print("per-example grads:", sc.tree_util.tree_map(lambda g: str(sc.typeof(g)), per_example_grads(params, x, y)))
    print("norms:", sc.typeof(grad_norms(params, x, y)), np.round(np.asarray(grad_norms(params, x, y)), 3))
    print("clipped:", {k: str(sc.typeof(v)) for k, v in clipped_grad(params, x, y).items()})
    for c in clipped_grad.lower(params, x, y).compile().collectives():
        print("  ", c)
