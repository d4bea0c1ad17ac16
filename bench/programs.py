"""The benchmark programs, each written once per side: the JAX version and the
shardc version next to each other, line for line.

Every program is a *factory*: calling it returns a fresh Python function, so
neither side can hit a tracing cache keyed on the function object when a
benchmark repeats a measurement.

Argument types are given once, as `(shape, spec)` pairs, and turned into
`jax.ShapeDtypeStruct`s / `sc.ArrayType`s (or device arrays) by `run.py`.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as JP

import shardc as sc
from shardc import P

# ----------------------------------------------------------------------------------------------
# Front-end scaling families (sized by a repeat count `n`; run.py calibrates n to a target
# number of primitive equations).
# ----------------------------------------------------------------------------------------------

# Elementwise chain: 5 primitive equations per block (sin, mul, add, tanh, mul).
CHAIN_ARGS = [((64, 128), ("X", "Y")), ((64, 128), ("X", "Y"))]


def chain_jax(n):
    def chain(x, y):
        for _ in range(n):
            x = jnp.tanh(jnp.sin(x) * 1.01 + y) * 0.5
        return x
    return chain


def chain_sc(n):
    def chain(x, y):
        for _ in range(n):
            x = sc.tanh(sc.sin(x) * 1.01 + y) * 0.5
        return x
    return chain


# MLP stack (Megatron layout: column-parallel w1, row-parallel w2, residual):
# 11 equations per layer (2 dot_general, 8 for tanh-gelu, 1 add).
MLP_ARGS = [((64, 128), ("X", None)), ((128, 512), (None, "Y")), ((512, 128), ("Y", None))]


def mlp_jax(n):
    def mlp(x, w1, w2):
        for _ in range(n):
            h = jax.nn.gelu(jnp.dot(x, w1))
            x = x + jnp.dot(h, w2, out_sharding=JP("X", None))
        return x
    return mlp


def mlp_sc(n):
    def mlp(x, w1, w2):
        for _ in range(n):
            h = sc.gelu(sc.dot(x, w1))
            x = x + sc.dot(h, w2, out_sharding=P("X", None))
        return x
    return mlp


# Attention block (heads sharded on Y, batch on X; einsum projections, softmax,
# row-parallel output projection, residual): 16 equations per block in shardc,
# 18 in JAX (its softmax adds a `max(-inf, .)` and a `stop_gradient`).
ATTN_ARGS = [((8, 64, 128), ("X", None, None)), ((128, 8, 16), (None, "Y", None)),
             ((128, 8, 16), (None, "Y", None)), ((128, 8, 16), (None, "Y", None)),
             ((8, 16, 128), ("Y", None, None))]


def attn_jax(n):
    def attn(x, wq, wk, wv, wo):
        for _ in range(n):
            q = jnp.einsum("bsd,dhk->bshk", x, wq)
            k = jnp.einsum("bsd,dhk->bshk", x, wk)
            v = jnp.einsum("bsd,dhk->bshk", x, wv)
            s = jnp.einsum("bqhk,bshk->bhqs", q, k) * 0.125
            p = jax.nn.softmax(s, axis=-1)
            o = jnp.einsum("bhqs,bshk->bqhk", p, v)
            x = x + jnp.einsum("bqhk,hkd->bqd", o, wo, out_sharding=JP("X", None, None))
        return x
    return attn


def attn_sc(n):
    def attn(x, wq, wk, wv, wo):
        for _ in range(n):
            q = sc.einsum("bsd,dhk->bshk", x, wq)
            k = sc.einsum("bsd,dhk->bshk", x, wk)
            v = sc.einsum("bsd,dhk->bshk", x, wv)
            s = sc.einsum("bqhk,bshk->bhqs", q, k) * 0.125
            p = sc.softmax(s, axis=-1)
            o = sc.einsum("bhqs,bshk->bqhk", p, v)
            x = x + sc.einsum("bqhk,hkd->bqd", o, wo, out_sharding=P("X", None, None))
        return x
    return attn


# Training step of the MLP stack: forward + backward (`value_and_grad` w.r.t. both weights).
def train_jax(n):
    forward = mlp_jax(n)

    def train(x, w1, w2):
        return jax.value_and_grad(lambda w1, w2: jnp.mean(jnp.square(forward(x, w1, w2))), argnums=(0, 1))(w1, w2)
    return train


def train_sc(n):
    forward = mlp_sc(n)

    def train(x, w1, w2):
        return sc.value_and_grad(lambda w1, w2: sc.mean(sc.square(forward(x, w1, w2))), argnums=(0, 1))(w1, w2)
    return train


FAMILIES = {
    # name: (jax factory, shardc factory, argument (shape, spec) list)
    "elementwise": (chain_jax, chain_sc, CHAIN_ARGS),
    "mlp": (mlp_jax, mlp_sc, MLP_ARGS),
    "attention": (attn_jax, attn_sc, ATTN_ARGS),
    "train step": (train_jax, train_sc, MLP_ARGS),
}

# ----------------------------------------------------------------------------------------------
# Collectives parity (small programs whose communication is the point).
# ----------------------------------------------------------------------------------------------


def megatron_jax():
    def megatron_mlp(x, w1, w2):
        h = jax.nn.gelu(jnp.dot(x, w1))
        return jnp.dot(h, w2, out_sharding=JP("X", None))
    return megatron_mlp


def megatron_sc():
    def megatron_mlp(x, w1, w2):
        h = sc.gelu(sc.dot(x, w1))
        return sc.dot(h, w2, out_sharding=P("X", None))
    return megatron_mlp


def sum_sharded_jax():
    def sum_sharded_dim(x):
        return jnp.sum(x, axis=0)
    return sum_sharded_dim


def sum_sharded_sc():
    def sum_sharded_dim(x):
        return sc.sum(x, axis=0)
    return sum_sharded_dim


def sum_all_jax():
    def sum_all(x):
        return jnp.sum(x)
    return sum_all


def sum_all_sc():
    def sum_all(x):
        return sc.sum(x)
    return sum_all


def ambiguous_dot_jax(out):
    def ambiguous_dot(x, w):
        return jnp.dot(x, w, out_sharding=out)
    return ambiguous_dot


def ambiguous_dot_sc(out):
    def ambiguous_dot(x, w):
        return sc.dot(x, w, out_sharding=out)
    return ambiguous_dot


def unreduced_einsum_jax():
    def unreduced_einsum(x, y):
        return jnp.einsum("bx,bx->b", x, y, out_sharding=JP(unreduced={"X"}))
    return unreduced_einsum


def unreduced_einsum_sc():
    def unreduced_einsum(x, y):
        return sc.einsum("bx,bx->b", x, y, out_sharding=P(unreduced={"X"}))
    return unreduced_einsum


def unreduced_then_reduce_jax():
    def unreduced_then_reduce(x, y):
        u = jnp.einsum("bx,bx->b", x, y, out_sharding=JP(unreduced={"X"}))
        return jax.sharding.reshard(u, JP())
    return unreduced_then_reduce


def unreduced_then_reduce_sc():
    def unreduced_then_reduce(x, y):
        u = sc.einsum("bx,bx->b", x, y, out_sharding=P(unreduced={"X"}))
        return sc.reshard(u, P())
    return unreduced_then_reduce


_DOT_ARGS = [((64, 128), (None, "X")), ((128, 256), ("X", None))]
_EIN_ARGS = [((64, 128), (None, "X")), ((64, 128), (None, "X"))]

COLLECTIVE_PROGRAMS = [
    # (name, jax factory, shardc factory, argument (shape, spec) list)
    ("megatron_mlp", megatron_jax, megatron_sc, MLP_ARGS),
    ("attention_block", lambda: attn_jax(1), lambda: attn_sc(1), ATTN_ARGS),
    ("sum over sharded dim", sum_sharded_jax, sum_sharded_sc, [((64, 128), ("X", "Y"))]),
    ("sum over all dims", sum_all_jax, sum_all_sc, [((64, 128), ("X", "Y"))]),
    ("ambiguous dot -> P()", lambda: ambiguous_dot_jax(JP()), lambda: ambiguous_dot_sc(P()), _DOT_ARGS),
    ("ambiguous dot -> P('X')", lambda: ambiguous_dot_jax(JP("X")), lambda: ambiguous_dot_sc(P("X")),
     _DOT_ARGS),
    ("ambiguous dot -> P(unreduced=X)", lambda: ambiguous_dot_jax(JP(unreduced={"X"})),
     lambda: ambiguous_dot_sc(P(unreduced={"X"})), _DOT_ARGS),
    ("unreduced einsum", unreduced_einsum_jax, unreduced_einsum_sc, _EIN_ARGS),
    ("unreduced einsum + reshard P()", unreduced_then_reduce_jax, unreduced_then_reduce_sc, _EIN_ARGS),
]

# ----------------------------------------------------------------------------------------------
# Call overhead: the smallest useful program.
# ----------------------------------------------------------------------------------------------


def tiny_jax():
    def tiny(x):
        return x + 1.0
    return tiny


def tiny_sc():
    def tiny(x):
        return x + 1.0
    return tiny
