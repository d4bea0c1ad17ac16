"""XLA's own random-bit generators (JAX's `rng_bit_generator` and `rng_uniform`), and
`mulhi` (the high half of an integer product), as JAX 0.10.2 defines and lowers them.

* `rng_bit_generator(key; shape, dtype, algorithm, out_sharding)`: a `u32[4]` key in,
  `(new_key, bits)` out. JAX's rules: the new key has the key's shape, dtype, weak type,
  sharding and varying axes; the bits are `dtype[shape]`, strong, sharded as
  `out_sharding` (replicated without one) and invariant. Lowered as JAX lowers it: the
  key reshaped to `u32[2,2]` and bitcast to `u64[2]`, `stablehlo.rng_bit_generator`, and
  back. Nothing differentiable (integer outputs). Batching is JAX's rule: the first key
  of the batch draws the bits of the whole batch and alone is advanced.
* `rng_uniform(a, b; shape)`: `stablehlo.rng` with the UNIFORM distribution from two
  scalars of one dtype; JAX has neither a differentiation nor a batching rule for it
  (both say so, as JAX does).
* `mulhi(x, y)`: an integer n-ary op (`naryop(input_dtype, [integer, integer])`), lowered
  to `chlo.mulhi`; no cotangent (JAX's `defjvp_zero`).
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as dt
from ..core import Const, Primitive, bind
from ..emit.text import tensor_type, ttype
from ..errors import ShardcNotImplementedError, ShardcTypeError, ShardcValueError
from ..types import ArrayType
from . import shape as sp
from .elementwise import Nary
from .shape import out_sharding_entries

__all__ = ["rng_bit_generator", "rng_uniform", "mulhi"]

_NONE: frozenset[str] = frozenset()
_ALGORITHMS = {0: "DEFAULT", 1: "THREE_FRY", 2: "PHILOX"}


class RngBitGenerator(Primitive):
    """`lax.rng_bit_generator(key, shape, dtype, algorithm, out_sharding=)`."""

    name = "rng_bit_generator"
    multiple_results = True

    def shape_rule(self, key: ArrayType, *, shape, dtype, algorithm, out_sharding=None):
        return [(key.shape, key.dtype, key.weak_type), (tuple(shape), np.dtype(dtype), False)]

    def sharding_rule(self, key: ArrayType, *, shape, dtype, algorithm, out_sharding=None):
        bits = (None,) * len(shape) if out_sharding is None else out_sharding_entries(out_sharding, shape, key.mesh)
        return [key.spec, bits]

    def vma_rule(self, key: ArrayType, **_):
        return [key.vma, _NONE]

    def vjp(self, L, cts, ins, outs, **_):
        return [None]   # integer results: nothing flows back

    def batch(self, B, axis, args, dims, *, shape, dtype, algorithm, out_sharding=None):
        """JAX's rule: the batch's first key draws `(size, *shape)` bits; only it is advanced."""
        keys, d = args[0], dims[0]
        keys = B.moveaxis(keys, d, 0)
        t = B.type_of(keys)
        first = bind(sp.slice_p, keys, start_indices=(0,) * t.ndim, limit_indices=(1, *t.shape[1:]), strides=None)
        first = B.reshape(first, t.shape[1:])
        bits_sharding = None if out_sharding is None else B.insert_spec(out_sharding, 0, axis.entry)
        new_key, bits = B.bind(self, first, shape=(axis.size, *shape), dtype=dtype, algorithm=algorithm,
                               out_sharding=bits_sharding)
        zero = Const(np.zeros((), dt.int32), dt.int32, False)
        new_keys = bind(sp.dynamic_update_slice, keys, B.reshape(new_key, (1, *t.shape[1:])), *[zero] * t.ndim)
        return [new_keys, bits], [0, 0]

    def format_params(self, p):
        s = f"shape={tuple(p['shape'])} dtype={dt.short_name(p['dtype'])} algorithm={_ALGORITHMS[int(p['algorithm'])]}"
        return s + (f" out_sharding={p['out_sharding']!r}" if p.get("out_sharding") is not None else "")

    def lower(self, ctx, eqn, key):
        kt, (ot, bt) = eqn.inputs[0].type, [o.type for o in eqn.outputs]
        if kt.shape != (4,) or kt.dtype != dt.uint32:
            raise ShardcTypeError(f"rng_bit_generator: the key must be uint32[4] (what JAX lowers), got "
                                  f"{kt.str_short(short_dtypes=False)}")
        u32x2, u64 = tensor_type((2, 2), dt.uint32), "tensor<2xui64>"
        k2 = ctx.op(f"stablehlo.reshape {key} : ({ttype(kt)}) -> {u32x2}")
        k64 = ctx.op(f"stablehlo.bitcast_convert {k2} : ({u32x2}) -> {u64}")
        alg = _ALGORITHMS[int(eqn.params["algorithm"])]
        state, bits = ctx.op(f"stablehlo.rng_bit_generator {k64}, algorithm = {alg} : ({u64}) -> "
                             f"({u64}, {tensor_type(bt.shape, bt.dtype)})", n_results=2)
        s2 = ctx.op(f"stablehlo.bitcast_convert {state} : ({u64}) -> {u32x2}")
        return [ctx.op(f"stablehlo.reshape {s2} : ({u32x2}) -> {ttype(ot)}"), bits]


rng_bit_generator = RngBitGenerator()


class RngUniform(Primitive):
    """`lax.rng_uniform(a, b, shape)`: XLA's stateful uniform generator (replicated result)."""

    name = "rng_uniform"

    def shape_rule(self, a: ArrayType, b: ArrayType, *, shape):
        if a.dtype != b.dtype:
            raise ShardcValueError(f"Arguments to rng_uniform must have identical dtypes, got {a.dtype.name} "
                                   f"and {b.dtype.name}.")
        if a.shape != () or b.shape != ():
            raise ShardcValueError(f"Arguments to rng_uniform must be scalars; got shapes {a.shape} and {b.shape}.")
        return [(tuple(shape), a.dtype, a.weak_type and b.weak_type)]

    def sharding_rule(self, a: ArrayType, b: ArrayType, *, shape):
        return [(None,) * len(shape)]   # JAX's `a.update(shape=...)`: a scalar's (replicated) sharding

    def vjp(self, L, cts, ins, outs, **_):
        raise ShardcNotImplementedError("Differentiation rule for 'rng_uniform' not implemented")

    def batch(self, B, axis, args, dims, **_):
        raise ShardcNotImplementedError("Batching rule for 'rng_uniform' not implemented")

    def format_params(self, p):
        return f"shape={tuple(p['shape'])}"

    def lower(self, ctx, eqn, a, b):
        at, out = eqn.inputs[0].type, eqn.outputs[0].type
        n = len(out.shape)
        dims = ctx.op(f"stablehlo.constant dense<{list(out.shape) if n else []}> : {tensor_type((n,), dt.int64)}")
        return [ctx.op(f"stablehlo.rng {a}, {b}, {dims}, distribution = UNIFORM : ({ttype(at)}, {ttype(at)}, "
                       f"{tensor_type((n,), dt.int64)}) -> {ttype(out)}")]


rng_uniform = RngUniform()


class Mulhi(Nary):
    """`lax.mulhi(x, y)`: integers only, lowered to `chlo.mulhi`; no derivative."""

    def __init__(self):
        super().__init__("mulhi", "chlo.mulhi", "iu")

    def vjp(self, L, g, ins, outs, **_):
        return [None, None]

    def lower(self, ctx, eqn, *args):
        out = eqn.outputs[0].type
        a, b = [ctx.broadcast_operand(x, i.type, out) for x, i in zip(args, eqn.inputs)]
        return [ctx.op(f"chlo.mulhi {a}, {b} : {ttype(out)}, {ttype(out)} -> {ttype(out)}")]


mulhi = Mulhi()
