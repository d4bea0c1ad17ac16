"""A Megatron MLP written with `sc.shard_map` and explicit collectives.

Inside the shard_map every value has its *local* shape, and its type records
the manual mesh axes it varies over (`{V:Y}`), not how it is laid out:

* column-parallel: `w1`'s output features are split over `Y`, so each device
  holds `w1: f32[16,8]{V:Y}` and computes its own hidden slice `f32[8,8]{V:Y}`.
  The input is invariant (`f32[8,16]`); `sc.pcast(x, "Y", to="varying")` says
  it is used by a varying computation. That cast moves no data forwards but is
  an all-reduce backwards, which is why the type system asks for it (shardc
  inserts it for you if you leave it out, as JAX does).
* row-parallel: `w2`'s input features are split over `Y` the same way, so each
  device's product is a partial sum; `sc.psum(..., "Y")` adds them up, and that
  is the one all-reduce of the block. Its result is invariant again, so
  `out_specs=P()` may say "replicated".

`mlp_data_parallel` also splits the batch over `X` (the input varies over `X`,
the result is assembled along `X`); `mlp_sequence_parallel` ends with
`psum_scatter` instead, leaving each device one slice of the output rows
(a reduce-scatter instead of an all-reduce).

    shardc check examples/megatron_shardmap.py
    shardc inspect examples/megatron_shardmap.py -p mlp
"""
import shardc as sc
from shardc import P

mesh = sc.make_mesh((2, 4), ("X", "Y"))
sc.set_mesh(mesh)


def _block(x, w1, w2):
    """The per-device body: column-parallel, ReLU, row-parallel partial sums."""
    x = sc.pcast(x, "Y", to="varying")     # f32[8,16]{V:Y}: no data moves
    h = sc.relu(x @ w1)                    # f32[8,8]{V:Y}: this device's hidden slice
    return h @ w2                          # f32[8,16]{V:Y}: a partial sum over Y


@sc.jit
def mlp(x: "f32[8,16]", w1: "f32[16,32@Y]", w2: "f32[32@Y,16]"):
    @sc.shard_map(out_specs=P())
    def body(x, w1, w2):
        return sc.psum(_block(x, w1, w2), "Y")    # the one all-reduce (over Y)
    return body(x, w1, w2)


@sc.jit
def mlp_data_parallel(x: "f32[8@X,16]", w1: "f32[16,32@Y]", w2: "f32[32@Y,16]"):
    @sc.shard_map(out_specs=P("X"))
    def body(x, w1, w2):                   # x: f32[4,16]{V:X}
        return sc.psum(_block(x, w1, w2), "Y")    # f32[4,16]{V:X}: still one all-reduce
    return body(x, w1, w2)


@sc.jit
def mlp_sequence_parallel(x: "f32[8,16]", w1: "f32[16,32@Y]", w2: "f32[32@Y,16]"):
    @sc.shard_map(out_specs=P("Y"))
    def body(x, w1, w2):
        return sc.psum_scatter(_block(x, w1, w2), "Y", tiled=True)   # f32[2,16]{V:Y}
    return body(x, w1, w2)


if __name__ == "__main__":
    import numpy as np
    rng = np.random.default_rng(0)
    x = sc.device_put(rng.standard_normal((8, 16), np.float32), P())
    w1 = sc.device_put(rng.standard_normal((16, 32), np.float32), P(None, "Y"))
    w2 = sc.device_put(rng.standard_normal((32, 16), np.float32), P("Y", None))
    print(mlp.trace(x, w1, w2))
    y = mlp(x, w1, w2)
    print("y:", sc.typeof(y))
    expect = np.maximum(np.asarray(x) @ np.asarray(w1), 0) @ np.asarray(w2)
    print("max |y - numpy|:", float(np.abs(np.asarray(y) - expect).max()))
    for c in mlp.lower(x, w1, w2).compile().collectives():
        print("  ", c)
