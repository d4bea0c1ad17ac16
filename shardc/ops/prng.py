"""The threefry2x32 PRNG on raw key data (`uint32[..., 2]`), as JAX 0.10.2 computes it.

`shardc.random` (the user API, typed keys, samplers) builds on these. Everything
here is JAX's `jax._src.random.threefry2x32` / `prng` with the default
`jax_threefry_partitionable=True`: the counter of element `i` of an output of
shape `s` is the 64-bit row-major index of `i` split into two uint32 halves
(`iota_2x32_shape`), hashed with the key by threefry2x32 (20 rounds), so a
value depends only on the key and its position, never on the sharding. The
ops are shardc's own (`lax` wrappers and `iota`), so the same code runs in
programs, eagerly, in loop bodies and in `shard_map` bodies, and lowers to the
same StableHLO arithmetic JAX's CPU lowering emits (bit-identical results).
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from .. import dtypes as dt
from .. import lax
from ..core import Const, bind
from ..errors import ShardcNotImplementedError, ShardcTypeError
from ..mesh import get_abstract_mesh
from ..primitives.shape import iota
from .control_flow import fori_loop
from .creation import asarray
from .shape import concatenate, stack

__all__ = ["threefry2x32", "iota_2x32_shape", "threefry_seed", "threefry_split", "threefry_fold_in",
           "threefry_random_bits", "UINT_DTYPES"]

UINT_DTYPES = {8: dt.uint8, 16: dt.uint16, 32: dt.uint32}
_U32 = dt.uint32
_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))


def _u32(v: int) -> Const:
    return Const(np.uint32(v), _U32)


def _rotate_left(x, d):
    """`x` rotated left by `d` (a traced uint32 scalar, as in JAX's rolled loop)."""
    return lax._binary("or", lax.shift_left(x, d), lax.shift_right_logical(x, lax.sub(_u32(32), d)))


def _apply_round(v: list, rot) -> list:
    a = lax.add(v[0], v[1])
    b = _rotate_left(v[1], rot)
    return [a, lax._binary("xor", a, b)]


def _rotate_list(xs: list) -> list:
    return xs[1:] + xs[:1]


def _rolled_step(i, state):
    """One of the five 4-round groups with its key injection (JAX's `rolled_loop_step`)."""
    x, ks, rotations = state
    rot = rotations[0]
    for r in range(4):
        x = _apply_round(x, lax.reshape(rot[r:r + 1], ()))
    step = lax.convert_element_type(lax.add(i, 1), _U32)
    x = [lax.add(x[0], ks[0]), lax.add(lax.add(x[1], ks[1]), step)]
    return x, _rotate_list(ks), _rotate_list(rotations)


def threefry2x32(k1, k2, x1, x2) -> tuple[Any, Any]:
    """The Threefry-2x32 hash of the counters `(x1, x2)` under the key `(k1, k2)`
    (uint32 arrays broadcasting elementwise). As JAX's CPU lowering, the 20 rounds are a
    rolled `fori_loop` of five groups with the rotation amounts carried as arrays: the same
    HLO, so XLA computes (and does not constant-fold) it exactly as for JAX."""
    ks = [k1, k2, lax._binary("xor", lax._binary("xor", k1, k2), _u32(0x1BD11BDA))]
    x = [lax.add(x1, ks[0]), lax.add(x2, ks[1])]
    rotations = [asarray(np.array(r, dtype=np.uint32)) for r in _ROTATIONS]
    x, _, _ = fori_loop(0, 5, _rolled_step, (x, _rotate_list(ks), rotations))
    return x[0], x[1]


def iota_2x32_shape(shape: Sequence[int]) -> tuple[Any, Any]:
    """The row-major index of every element of `shape` as (high, low) uint32 halves.

    Sizes are below 2**32 here (the high half is zero): JAX computes in uint64 and
    keeps the low 32 bits of the same products, so uint32 arithmetic (which wraps
    exactly the same way) gives the same low half."""
    shape = tuple(int(d) for d in shape)
    if not shape:
        z = Const(np.uint32(0), _U32)
        return z, z
    if math.prod(shape) >= 2 ** 32:
        raise ShardcNotImplementedError(
            f"random values of {math.prod(shape)} elements (2**32 or more) are not supported")
    mesh = get_abstract_mesh()
    strides = [int(np.prod(shape[i + 1:])) for i in range(len(shape))]
    lo = None
    for dim, stride in enumerate(strides):
        term = bind(iota, dtype=_U32, shape=shape, dimension=dim, out_sharding=None, mesh=mesh)
        if stride != 1:
            term = lax.mul(term, _u32(stride))
        lo = term if lo is None else lax.add(lo, term)
    return lax.full(shape, 0, _U32), lo


def _key_halves(key) -> tuple[Any, Any]:
    """`k1, k2 = key` of one raw key `uint32[2]`."""
    return key[0], key[1]


def threefry_seed(seed) -> Any:
    """A raw key `uint32[2]` from an integer scalar: `[seed >> 32, seed & 0xFFFFFFFF]`
    (for 32-bit seeds the high word is 0: a logical shift by the full width)."""
    t = lax.type_of(seed)
    if t.ndim:
        raise ShardcTypeError(f"PRNG key seed must be a scalar; got {t}.")
    if not dt.is_int(t.dtype):
        raise ShardcTypeError(f"PRNG key seed must be an integer; got {t}")
    hi = lax.shift_right_logical(seed, Const(np.asarray(32, t.dtype), t.dtype))
    hi = lax.convert_element_type(hi, _U32)
    lo = lax.convert_element_type(seed, _U32)
    return stack([hi, lo])


def threefry_split(key, shape: Sequence[int]) -> Any:
    """`split` (JAX's fold-like split): keys `uint32[*shape, 2]`."""
    k1, k2 = _key_halves(key)
    c1, c2 = iota_2x32_shape(shape)
    b1, b2 = threefry2x32(k1, k2, c1, c2)
    return stack([b1, b2], axis=len(tuple(shape)))


def threefry_fold_in(key, data) -> Any:
    """`fold_in`: the hash of the seed-key of `data` (a uint32 scalar) under `key`."""
    k1, k2 = _key_halves(key)
    s = threefry_seed(data)
    y1, y2 = threefry2x32(k1, k2, s[0:1], s[1:2])
    return concatenate([y1, y2])


def threefry_random_bits(key, bit_width: int, shape: Sequence[int]) -> Any:
    """`bit_width`-bit random unsigned integers of `shape` (8, 16 or 32 bits)."""
    if bit_width not in (8, 16, 32, 64):
        raise ShardcTypeError("requires 8-, 16-, 32- or 64-bit field width.")
    if bit_width == 64:
        raise ShardcNotImplementedError("64-bit random bits need jax_enable_x64, which shardc does not have")
    k1, k2 = _key_halves(key)
    c1, c2 = iota_2x32_shape(shape)
    b1, b2 = threefry2x32(k1, k2, c1, c2)
    bits = lax._binary("xor", b1, b2)
    if bit_width != 32:
        bits = lax.convert_element_type(bits, UINT_DTYPES[bit_width])
    return bits
