"""FSDP-style (ZeRO-3) weights: every weight is stored sharded over the data
axis, so each device keeps 1/8 of it, and is all-gathered just before use.
The batch stays sharded over the same axis the whole time.

Each `sc.reshard(w, P())` is one all-gather over `fsdp`, on its own line.
"""
import shardc as sc
from shardc import P

sc.set_mesh(sc.make_mesh((8,), ("fsdp",)))


@sc.jit
def two_layers(x: "f32[16@fsdp,32]", w1: "f32[32@fsdp,64]", w2: "f32[64@fsdp,32]"):
    w1_full = sc.reshard(w1, P())          # all-gather over fsdp
    h = sc.relu(x @ w1_full)               # f32[16@fsdp,64]: no communication
    w2_full = sc.reshard(w2, P())          # all-gather over fsdp
    return x + h @ w2_full


@sc.jit
def loss(x: "f32[16@fsdp,32]", w1: "f32[32@fsdp,64]", w2: "f32[64@fsdp,32]"):
    y = two_layers.fun(x, w1, w2)          # the same layers, inlined into this program
    return sc.mean(sc.square(y))           # a mean over the sharded batch: one all-reduce
