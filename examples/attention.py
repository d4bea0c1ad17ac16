"""A layer norm followed by attention scores on a 3-D mesh (data, seq, model).

Activations `x[batch, seq, embed]` are split over `data` (batch) and `seq`
(sequence parallelism); the projection weights split the heads over `model`.

* the layer norm reduces over `embed`, which is not sharded: no communication;
* the projections contract `embed` (not sharded): no communication, and the
  heads come out sharded over `model`;
* every query attends to every key, so the keys are gathered along `seq`
  (one all-gather, on the `reshard` line);
* the softmax runs over keys, which are now whole: no communication.
"""
import numpy as np

import shardc as sc
from shardc import P

sc.set_mesh(sc.make_mesh((2, 2, 2), ("data", "seq", "model")))


def layer_norm(x, scale, eps=1e-5):
    mu = sc.mean(x, axis=-1, keepdims=True)
    var = sc.mean(sc.square(x - mu), axis=-1, keepdims=True)
    return (x - mu) * sc.rsqrt(var + eps) * scale


@sc.jit
def attention_scores(x: "f32[4@data,8@seq,16]", scale: "f32[16]",
                     wq: "f32[16,4@model,8]", wk: "f32[16,4@model,8]"):
    h = layer_norm(x, scale)
    q = sc.einsum("bse,ehd->bshd", h, wq)           # f32[4@data,8@seq,4@model,8]
    k = sc.einsum("bse,ehd->bshd", h, wk)
    k = sc.reshard(k, P("data", None, "model", None))   # all-gather the keys over seq
    s = sc.einsum("bqhd,bkhd->bhqk", q, k) / np.float32(np.sqrt(8))
    return sc.softmax(s, axis=-1)                   # f32[4@data,4@model,8@seq,8]


@sc.jit
def norm_only(x: "f32[4@data,8@seq,16]", scale: "f32[16]"):
    return layer_norm(x, scale)
