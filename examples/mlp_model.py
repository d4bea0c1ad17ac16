"""A small model from `sc.nn` layers whose parameters are created sharded.

Every parameter carries a sharding annotation, and because the mesh is set
when the layers are constructed, each one is placed on the devices as
annotated right away (Flax's FLIP 4844 "eager sharding") — no init program:

    embedding   float32[32,16@model]
    fc1.kernel  float32[16,64@model]     column-parallel
    fc1.bias    float32[64@model]
    fc2.kernel  float32[64@model,16]     row-parallel
    fc2.bias    float32[16]

The programs take the parameters as typed arguments (so `shardc` can compile
them without data) and run the layers on them with `apply`. The embedding
lookup is a gather of `data`-sharded ids, whose layout JAX's gather rule does
not guess: `out_sharding=P("data", None)` asks for batch-sharded rows with whole
features (an all-gather over `model`). The MLP is Megatron's: one all-reduce
over `model` at the row-parallel matmul. The gradients of `train_step` have
exactly the parameters' types.

    shardc check examples/mlp_model.py
    shardc inspect examples/mlp_model.py -p train_step
"""
import numpy as np

import shardc as sc
from shardc import P

mesh = sc.make_mesh((2, 4), ("data", "model"))
sc.set_mesh(mesh)

# created sharded, as annotated (a mesh is set)
embed = sc.nn.Embed(32, 16, embedding_sharding=P(None, "model"), seed=0)
mlp = sc.nn.MLP(16, 64, kernel_shardings=(P(None, "model"), P("model", None)),
                bias_shardings=(P("model"), None), seed=1)
norm = sc.nn.LayerNorm(16)


def mlp_params(w1, b1, w2, b2):
    return {"fc1": {"kernel": w1, "bias": b1}, "fc2": {"kernel": w2, "bias": b2}}


@sc.jit
def forward(ids: "i32[8@data]", table: "f32[32,16@model]", w1: "f32[16,64@model]",
            b1: "f32[64@model]", w2: "f32[64@model,16]", b2: "f32[16]"):
    # ids are sharded, so the gather needs to be told its result's layout
    h = embed.apply({"embedding": table}, ids, out_sharding=P("data", None))   # f32[8@data,16]
    y = mlp.apply(mlp_params(w1, b1, w2, b2), h, out_sharding=P("data", None))  # all-reduce over model
    return norm(y + h)                                                          # f32[8@data,16]


@sc.jit
def train_step(x: "f32[8@data,16]", target: "f32[8@data,16]", w1: "f32[16,64@model]",
               b1: "f32[64@model]", w2: "f32[64@model,16]", b2: "f32[16]"):
    def loss(params):
        y = mlp.apply(params, x, out_sharding=P("data", None))
        return sc.mean((y - target) ** 2)

    value, g = sc.nn.value_and_grad(loss)(mlp_params(w1, b1, w2, b2))
    # cotangents have the parameters' types: f32[16,64@model], f32[64@model], f32[64@model,16], f32[16]
    return value, g["fc1"]["kernel"], g["fc1"]["bias"], g["fc2"]["kernel"], g["fc2"]["bias"]


if __name__ == "__main__":
    for name, v in [("embedding", embed.embedding.value)] + [
            (f"{layer}.{p}", v) for layer, ps in mlp.params().items() for p, v in ps.items()]:
        print(f"{name:12s}", sc.typeof(v))
    rng = np.random.default_rng(0)
    ids = sc.device_put(rng.integers(0, 32, 8).astype(np.int32), P("data"))
    p = mlp.params()
    out = forward(ids, embed.embedding.value, p["fc1"]["kernel"], p["fc1"]["bias"],
                  p["fc2"]["kernel"], p["fc2"]["bias"])
    print("forward:", sc.typeof(out))
    # the modules themselves are pytrees: pass the model to a program as it is
    x = sc.device_put(rng.standard_normal((8, 16)).astype(np.float32), P("data"))
    y = sc.jit(lambda m, x: m(x, out_sharding=P("data", None)))(mlp, x)
    print("mlp(x):", sc.typeof(y))
    g = sc.jit(sc.nn.grad(lambda m, x: sc.mean(m(x, out_sharding=P("data", None)) ** 2)))(mlp, x)
    print("grad:", g)
