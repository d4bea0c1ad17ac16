"""Bit-level primitives: shifts, `bitcast_convert_type`, `population_count`, `clz`.

What the PRNG (`shardc/ops/prng.py`) builds threefry2x32 and its bits→float
conversions from, and `lax`'s names for the same operations.

* Shifts are n-ary elementwise ops over integers (JAX's `standard_naryop([_int,
  _int])`): same dtype, broadcasting sharding rule (JAX rules §2.2–2.4), the
  reduced checks of every n-ary op, no unreduced rule, standard VMA rule; they are
  piecewise constant, so no cotangent flows (JAX: `defjvp_zero`).
* `population_count` / `clz` are unary integer ops (`standard_unop(_int)`): keep the
  spec and R, reject U, keep the weak type.
* `bitcast_convert_type` reinterprets the bits: same width keeps the shape; a
  narrower target appends a dim of the width ratio, a wider one consumes the last
  dim (which must be the ratio); the spec follows (`_bitcast_convert_type_sharding_rule`),
  the weak type is stripped, bool/complex only to themselves. No U/R rule (JAX
  has none), zero derivative.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as dt
from ..core import Primitive
from ..emit.text import ttype
from ..errors import ShardcTypeError, ShardcValueError
from ..types import ArrayType
from .elementwise import Nary, Unary

__all__ = ["SHIFTS", "shift_left", "shift_right_logical", "shift_right_arithmetic",
           "population_count", "clz", "bitcast_convert_type"]


class Shift(Nary):
    """`lax.shift_*`: integers only; no derivative (piecewise constant)."""

    def vjp(self, L, g, ins, outs, **_):
        return [None] * len(ins)


shift_left = Shift("shift_left", "stablehlo.shift_left", "iu")
shift_right_logical = Shift("shift_right_logical", "stablehlo.shift_right_logical", "iu")
shift_right_arithmetic = Shift("shift_right_arithmetic", "stablehlo.shift_right_arithmetic", "iu")
SHIFTS: dict[str, Shift] = {p.name: p for p in (shift_left, shift_right_logical, shift_right_arithmetic)}


class IntUnary(Unary):
    """`population_count` / `clz`: integer in, same integer out; no derivative."""

    def vjp(self, L, g, ins, outs, **_):
        return [None]


population_count = IntUnary("population_count", "stablehlo.popcnt", "iu")
clz = IntUnary("clz", "stablehlo.count_leading_zeros", "iu")


def _bits(d: np.dtype) -> int:
    return 8 * np.dtype(d).itemsize


class BitcastConvertType(Primitive):
    """`lax.bitcast_convert_type(x, new_dtype)`."""

    name = "bitcast_convert_type"

    def shape_rule(self, x: ArrayType, *, new_dtype):
        old, new = x.dtype, np.dtype(new_dtype)
        if (old == dt.bool_ or new == dt.bool_) and old != new:
            raise ShardcTypeError(
                "lax.bitcast_convert_type does not support bool or complex values unless the operand "
                f"and destination types match. Got operand dtype={old.name}, new_dtype=dtype('{new.name}'). "
                "Consider using the arr.view() method instead.")
        ob, nb = _bits(old), _bits(new)
        if ob == nb:
            shape = x.shape
        elif ob > nb:
            shape = (*x.shape, ob // nb)
        else:
            dim = x.shape[-1] if x.shape else 1
            if dim * ob != nb:
                raise ShardcValueError(
                    f"Attempting to convert array of shape {x.shape} from {old.name} of size {ob} bits "
                    f"to {new.name} of size {nb}, bits but {dim} * {ob} != {nb}")
            shape = x.shape[:-1]
        return [(shape, new, False)]

    def sharding_rule(self, x: ArrayType, *, new_dtype):
        ob, nb = _bits(x.dtype), _bits(new_dtype)
        if ob == nb:
            return [x.spec]
        if ob > nb:
            return [(*x.spec, None)]
        return [x.spec[:-1]]

    def vjp(self, L, g, ins, outs, **_):
        return [None]

    def batch(self, B, axis, args, dims, *, new_dtype):
        """The batch dim first (a changed width adds or drops the last dim)."""
        return B.bind(self, B.moveaxis(args[0], dims[0], 0), new_dtype=new_dtype), 0

    def format_params(self, params):
        return f"new_dtype={dt.short_name(params['new_dtype'])}"

    def lower(self, ctx, eqn, x, **_):
        src, out = eqn.inputs[0].type, eqn.outputs[0].type
        return [ctx.op(f"stablehlo.bitcast_convert {x} : ({ttype(src)}) -> {ttype(out)}")]


bitcast_convert_type = BitcastConvertType()
