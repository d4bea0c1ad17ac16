"""A Megatron-style MLP in explicit mode on a (data=2, model=4) mesh.

The first matmul is *column-parallel*: `w1`'s output features are split over
`model`, so every device computes its own slice of the hidden activations and
nothing is communicated. The second is *row-parallel*: `w2`'s input features
are split over `model` the same way, so each device holds a partial sum of
the output. The contraction is sharded on both sides, which is ambiguous;
`out_sharding=P("data", None)` says "sum the partials", and that is the one
all-reduce (over `model`) of the whole block — on the row-parallel line.

    shardc inspect examples/megatron.py -p mlp
"""
import shardc as sc
from shardc import P

mesh = sc.make_mesh((2, 4), ("data", "model"))
sc.set_mesh(mesh)


@sc.jit
def mlp(x: "f32[8@data,16]", w1: "f32[16,64@model]", b1: "f32[64@model]", w2: "f32[64@model,16]"):
    h = sc.gelu(x @ w1 + b1)                      # column-parallel: f32[8@data,64@model]
    y = sc.dot(h, w2, out_sharding=P("data", None))   # row-parallel: all-reduce over model
    return y


@sc.jit
def residual_block(x: "f32[8@data,16]", w1: "f32[16,64@model]", w2: "f32[64@model,16]"):
    """The same block with a residual connection and a ReLU; still one all-reduce."""
    h = sc.relu(sc.dot(x, w1))
    return x + sc.dot(h, w2, out_sharding=P("data", None))


if __name__ == "__main__":
    import numpy as np
    rng = np.random.default_rng(0)
    x = sc.device_put(rng.standard_normal((8, 16), np.float32), P("data", None))
    w1 = sc.device_put(rng.standard_normal((16, 64), np.float32), P(None, "model"))
    b1 = sc.device_put(np.zeros(64, np.float32), P("model"))
    w2 = sc.device_put(rng.standard_normal((64, 16), np.float32), P("model", None))
    y = mlp(x, w1, b1, w2)
    print("y:", sc.typeof(y))
    for c in mlp.lower(x, w1, b1, w2).compile().collectives():
        print("  ", c)
