"""Auto axes: let XLA choose part of the sharding.

The mesh below has an Explicit axis X (data parallel: it shows in every type)
and an Auto axis Y (XLA decides how to use it; it never shows in a type).

* `mlp`: an MLP whose batch is split over X. Its hidden activations are free
  on Y; `with_sharding_constraint` hints that XLA should split the hidden dim
  over Y (Megatron style). The constraint may name Auto axes only: Explicit
  ones are already fixed by the type.
* `contract`: `x @ w` with the contracting dim split over X on both sides is
  ambiguous under Explicit rules (where would the partial sums go?).
  `auto_axes` switches X to Auto for that one op and states the result's
  sharding instead: XLA inserts the reduction.
* `running_sum`: a cumulative sum along a dim split over X is rejected by the
  Explicit rules; under `auto_axes` XLA gathers what it needs.

Run:  SHARDC_CPU_DEVICES=8 python examples/auto_mode.py
      shardc run examples/auto_mode.py -p contract
"""
import numpy as np

import shardc as sc
from shardc import P

sc.set_mesh(sc.make_mesh((2, 4), ("X", "Y"), axis_types=(sc.AxisType.Explicit, sc.AxisType.Auto)))


@sc.jit
def mlp(x: "f32[16@X,32]", w1: "f32[32,64]", w2: "f32[64,32]"):
    h = sc.relu(sc.dot(x, w1))                       # f32[16@X,64]: Y is XLA's to use
    h = sc.with_sharding_constraint(h, P(None, "Y"))  # hint: hidden dim over Y
    return sc.dot(h, w2)                             # f32[16@X,32]


@sc.jit
def contract(x: "f32[16,32@X]", w: "f32[32@X,8]"):
    # sc.dot(x, w) raises "... ambiguous ...": both contracting dims are split over X
    return sc.auto_axes(sc.dot, out_sharding=P("X", None))(x, w)   # f32[16@X,8]


@sc.jit
def running_sum(x: "f32[16@X,8]"):
    @sc.auto_axes(out_sharding=P("X", None))
    def cumsum_rows(a):
        print("  inside auto_axes:", sc.typeof(a), "on", sc.get_abstract_mesh())
        return sc.cumsum(a, axis=0)
    return cumsum_rows(sc.sin(x)) * 2.0


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    x = sc.device_put(rng.standard_normal((16, 32), np.float32), P("X", "Y"))
    # The type shows only the Explicit axis; the array's concrete sharding also
    # says where the Auto axis went.
    print("x: type", sc.typeof(x), "| placed as", x.sharding.spec)

    w1 = sc.device_put(rng.standard_normal((32, 64), np.float32), P())
    w2 = sc.device_put(rng.standard_normal((64, 32), np.float32), P())
    y = mlp(x, w1, w2)
    print("mlp(x):", sc.typeof(y), "| XLA placed it as", y.sharding.spec)
    for c in mlp.lower(x, w1, w2).compile().collectives():
        print("   collective:", c.kind, "over", c.axes, f"({c.bytes} B per device)")

    xc = sc.device_put(rng.standard_normal((16, 32), np.float32), P(None, "X"))
    w = sc.device_put(rng.standard_normal((32, 8), np.float32), P("X", None))
    try:
        sc.dot(xc, w)
    except sc.ShardingTypeError as e:
        print("sc.dot(x, w) under Explicit X:", str(e).splitlines()[0])
    z = contract(xc, w)
    print("contract(x, w):", sc.typeof(z), "| max error vs NumPy:",
          float(np.abs(np.asarray(z) - np.asarray(xc) @ np.asarray(w)).max()))

    r = running_sum(sc.device_put(rng.standard_normal((16, 8), np.float32), P("X")))
    print("running_sum(x):", sc.typeof(r))
