"""The explicit-sharding story in shardc: every value has a sharding type,
ambiguous or illegal programs are rejected with the fix, and what runs is
compiled through XLA on a device mesh.

Run:  SHARDC_CPU_DEVICES=8 python examples/quickstart.py
"""
import numpy as np

import shardc as sc
from shardc import P

mesh = sc.make_mesh((2, 4), ("X", "Y"))
sc.set_mesh(mesh)
print("mesh:", mesh)

# 1. device_put gives an array a sharding type; typeof shows it.
a = sc.device_put(np.arange(32, dtype=np.float32).reshape(8, 4), P("X", "Y"))
print("a        :", sc.typeof(a))

# 2. Elementwise ops keep the sharding; transpose permutes it.
b = sc.sin(a)
print("sin(a)   :", sc.typeof(b))
print("a.T      :", sc.typeof(a.T))


# 3. A program: types are computed while tracing; reductions over a sharded
#    dim make XLA insert an all-reduce.
@sc.jit
def total(x: "f32[8@X,4@Y]"):
    print("  inside the program x has type", sc.typeof(x))
    return x.sum(axis=0)


s = total(a)
print("sum(a, 0):", sc.typeof(s), np.asarray(s))
for c in total.lower(a).compile().collectives():
    print("   collective:", c.kind, "over", c.axes, f"({c.bytes} B per device)")

# 4. A contraction sharded on both sides is ambiguous: where should the
#    partial sums go? shardc refuses and lists the choices.
x = sc.device_put(np.ones((8, 4), np.float32), P(None, "X"))
w = sc.device_put(np.ones((4, 16), np.float32), P("X", None))
try:
    sc.dot(x, w)
except sc.ShardingTypeError as e:
    print("dot(x, w) is rejected:\n   " + str(e).replace("\n", "\n   "))

# 5. ... and each fix is one keyword away.
print("all-reduce     :", sc.typeof(sc.dot(x, w, out_sharding=P())))
print("reduce-scatter :", sc.typeof(sc.dot(x, w, out_sharding=P("X"))))
u = sc.dot(x, w, out_sharding=P(unreduced={"X"}))
print("unreduced      :", sc.typeof(u), "-> np.asarray sums the partials:", np.asarray(u)[0, :3])

# 6. Unreduced einsum (the seed example): partial sums, reduced later by reshard.
xi = sc.device_put(np.arange(32, dtype=np.float32).reshape(4, 8), P(None, "X"))
yi = sc.device_put(np.ones((4, 8), np.float32), P(None, "X"))
e = sc.einsum("bx,bx->b", xi, yi, out_sharding=P(unreduced={"X"}))
print("einsum         :", sc.typeof(e), "-> reshard(P()):", sc.typeof(sc.reshard(e, P())),
      np.asarray(sc.reshard(e, P())))

# 7. Adding two arrays sharded on the same axis in different dims is illegal.
p = sc.device_put(np.zeros((8, 8), np.int32), P("X", None))
q = sc.device_put(np.zeros((8, 8), np.int32), P(None, "X"))
try:
    p + q
except sc.ShardingTypeError as err:
    print("p + q is rejected:\n   " + str(err).replace("\n", "\n   "))
