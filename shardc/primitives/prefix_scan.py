"""JAX's parallel prefix scan (`lax.associative_scan`, jax/_src/lax/control_flow/loops.py),
written with this layer's primitives so that the VJP rules of `cumprod` / `cummax` /
`cummin` can differentiate it as JAX's JVP rules do (`_cumulative_jvp_rule`).

`fn` combines two lists of arrays (already flattened); the recursion, slices, padding
and interleaving are JAX's, step for step, so types (and sharding errors: a sharded
scanned dim fails JAX's slicing rule) and values agree.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from ..core import Const, bind
from ..sharding import PartitionSpec
from .elementwise import BINARY
from .shape import concatenate, pad, reshape, reshape_sharding, rev, slice_p, squeeze, transpose

__all__ = ["prefix_scan", "reduce_tree"]


def _slice_in_dim(x, start: int, limit: int | None, stride: int, axis: int):
    """JAX's `slicing.slice_in_dim` (negative `limit` counts from the end)."""
    shape = x.aval.shape
    n = shape[axis]
    limit = n if limit is None else (limit + n if limit < 0 else limit)
    start_i = [0] * len(shape)
    limit_i = list(shape)
    strides = [1] * len(shape)
    start_i[axis], limit_i[axis], strides[axis] = start, limit, stride
    return bind(slice_p, x, start_indices=tuple(start_i), limit_indices=tuple(limit_i),
                strides=None if stride == 1 else tuple(strides))


def _interleave(a, b, axis: int):
    """JAX's `_interleave`: pad both with zeros (interior 1) and add (`or` for bool)."""
    at, bt = a.aval, b.aval
    same = at.shape[axis] == bt.shape[axis]
    lo_a, hi_a, in_a = [0] * at.ndim, [0] * at.ndim, [0] * at.ndim
    lo_b, hi_b, in_b = [0] * bt.ndim, [0] * bt.ndim, [0] * bt.ndim
    hi_a[axis], in_a[axis] = (1 if same else 0), 1
    lo_b[axis], hi_b[axis], in_b[axis] = 1, (0 if same else 1), 1
    zero = Const(False if at.dtype == np.bool_ else 0, at.dtype, at.weak_type)
    pa = bind(pad, a, zero, low=tuple(lo_a), high=tuple(hi_a), interior=tuple(in_a))
    pb = bind(pad, b, Const(zero.value, bt.dtype, bt.weak_type), low=tuple(lo_b), high=tuple(hi_b),
              interior=tuple(in_b))
    return bind(BINARY["or" if at.dtype == np.bool_ else "add"], pa, pb)


def prefix_scan(fn: Callable[[list, list], list], elems: Sequence, axis: int, reverse: bool = False) -> list:
    """The inclusive scan of `elems` (a flat list, all the same size along `axis`) under
    the associative `fn`, as JAX's `associative_scan` computes it."""
    elems = list(elems)
    if reverse:
        elems = [bind(rev, e, dimensions=(axis,)) for e in elems]

    def scan(xs: list) -> list:
        n = xs[0].aval.shape[axis]
        if n < 2:
            return xs
        reduced = fn([_slice_in_dim(e, 0, -1, 2, axis) for e in xs], [_slice_in_dim(e, 1, None, 2, axis) for e in xs])
        odd = scan(list(reduced))
        if n % 2 == 0:
            even = fn([_slice_in_dim(e, 0, -1, 1, axis) for e in odd], [_slice_in_dim(e, 2, None, 2, axis) for e in xs])
        else:
            even = fn(odd, [_slice_in_dim(e, 2, None, 2, axis) for e in xs])
        even = [bind(concatenate, _slice_in_dim(e, 0, 1, 1, axis), r, dimension=axis) for e, r in zip(xs, even)]
        return [_interleave(a, b, axis) for a, b in zip(even, odd)]

    out = scan(elems)
    if reverse:
        out = [bind(rev, e, dimensions=(axis,)) for e in out]
    return out


def _slice_front(x, start: int, limit: int):
    shape = x.aval.shape
    return bind(slice_p, x, start_indices=(start,) + (0,) * (len(shape) - 1),
                limit_indices=(limit,) + tuple(shape[1:]), strides=None)


def reduce_tree(L, combine: Callable[[list, list], list], ops: list, inits: list, axes: tuple) -> list:
    """JAX's `_reduce_tree` (`_reduce_jvp`): the reduced dims moved to the front and
    flattened, then halved until one row is left, the halves combined elementwise (an odd
    half padded with the init values). Differentiating it gives JAX's gradients of
    `reduce_prod` and of a generic `reduce`."""
    shape = ops[0].aval.shape
    non = tuple(i for i in range(len(shape)) if i not in axes)
    m = int(np.prod([shape[a] for a in axes], dtype=np.int64))
    new_shape = (m,) + tuple(shape[i] for i in non)
    perm = tuple(axes) + non
    xs = []
    for x in ops:
        if perm != tuple(range(len(shape))):
            # JAX's `reshape(x, new_shape, dimensions=perm)`: its sharding rule reads the operand
            # *before* the transpose, so the result has that spec (kept here for equal types)
            t = x.aval
            osh = PartitionSpec(*reshape_sharding(t, new_shape)) if t.mesh.has_explicit else None
            x = bind(reshape, bind(transpose, x, permutation=perm), new_sizes=new_shape, out_sharding=osh)
        elif x.aval.shape != new_shape:
            x = bind(reshape, x, new_sizes=new_shape)
        xs.append(x)
    while xs[0].aval.shape[0] > 1:
        k = xs[0].aval.shape[0]
        k1 = (k + 1) // 2
        a = [_slice_front(x, 0, k1) for x in xs]
        b = [_slice_front(x, k1, k) for x in xs]
        if k - k1 != k1:
            zeros = (0,) * (len(new_shape) - 1)
            b = [bind(pad, x, i, low=(0,) + zeros, high=(1,) + zeros, interior=(0,) * len(new_shape))
                 for x, i in zip(b, inits)]
        xs = list(combine(a, b))
    if xs[0].aval.shape[0] == 0:
        return [L.full(new_shape[1:], i, o.aval.dtype) for o, i in zip(ops, inits)]
    return [bind(squeeze, x, dimensions=(0,)) for x in xs]
