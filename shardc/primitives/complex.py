"""Complex-number primitives: `real`, `imag`, `complex`, `conj` (JAX's `lax.real_p`,
`imag_p`, `complex_p`, `conj_p`).

They are elementwise ops: shape, sharding, unreduced/reduced and VMA rules are those of
`elementwise.Unary` / `elementwise.Nary`; only the dtype rules differ (JAX's):
`real`/`imag` take complex operands and give their component dtype, `complex` takes two
float32 operands (JAX: `float32, float64`; float64 is canonicalized away, as x64 is off)
and `conj` takes float32 or complex operands, both giving complex64.

Their VJPs are JAX's transpose rules (these ops are linear): `real` → `complex(ct, 0)`,
`imag` → `complex(0, -ct)`, `complex` → `(real(ct), -imag(ct))`, `conj` → `conj(ct)`
(a real operand: `real(ct)`). With them (and the rules of the other ops, which never
conjugate) a real-valued function's gradient in a complex input is JAX's convention:
`grad(lambda z: abs(z)**2)(z) == 2 * conj(z)`.
"""
from __future__ import annotations

from .. import dtypes as dt
from ..core import Tracer, bind
from ..emit.text import ttype
from ..errors import ShardcTypeError
from ..types import ArrayType
from .elementwise import Nary, Unary, unbroadcast

__all__ = ["real", "imag", "complex_", "conj"]

#: JAX's `_complex_elem_types` (float64 canonicalizes to float32 here)
_ELEM_NAMES = "float32, float64"


class _Part(Unary):
    """`real` / `imag`: a complex operand's component (complex64 → float32)."""

    def shape_rule(self, x: ArrayType, **_):
        if not dt.is_complex(x.dtype):
            raise ShardcTypeError(f"{self.name} does not accept dtype {x.dtype.name}. Accepted dtypes are "
                                  "subtypes of complexfloating.")
        return [(x.shape, dt.real_dtype(x.dtype), x.weak_type)]

    def vjp(self, L, g, ins, outs, **_):
        zero = L.zeros_like(g)
        if self.name == "real":
            return [bind(complex_, g, zero)]
        return [bind(complex_, zero, L.neg(g))]

    def lower(self, ctx, eqn, x):
        return [ctx.op(f"{self.hlo} {x} : ({ttype(eqn.inputs[0].type)}) -> {ttype(eqn.outputs[0].type)}")]


real = _Part("real", "stablehlo.real", "c")
imag = _Part("imag", "stablehlo.imag", "c")


class Complex(Nary):
    """`complex(x, y) = x + i y` for float32 operands (broadcasting as the n-ary ops)."""

    def shape_rule(self, *ins: ArrayType, **_):
        for i, t in enumerate(ins):
            if t.dtype != dt.float32:
                raise ShardcTypeError(
                    f"complex does not accept dtype {t.dtype.name} at position {i}. Accepted dtypes at "
                    f"position {i} are subtypes of {_ELEM_NAMES}.")
        [(shape, _, weak)] = super().shape_rule(*ins)
        return [(shape, dt.complex64, weak)]

    def vjp(self, L, g, ins, outs, **_):
        x, y = ins
        return [unbroadcast(L, bind(real, g), x) if isinstance(x, Tracer) else None,
                unbroadcast(L, bind(imag, L.neg(g)), y) if isinstance(y, Tracer) else None]


complex_ = Complex("complex", "stablehlo.complex", "f")


class Conj(Unary):
    """`conj(x)`: complex conjugate; a float32 operand becomes complex64 (zero imaginary part)."""

    def shape_rule(self, x: ArrayType, **_):
        if not (dt.is_complex(x.dtype) or x.dtype == dt.float32):
            raise ShardcTypeError(f"conj does not accept dtype {x.dtype.name}. Accepted dtypes are subtypes "
                                  "of float32, complexfloating, float64.")
        return [(x.shape, dt.complex_dtype(x.dtype), x.weak_type)]

    def vjp(self, L, g, ins, outs, *, input_dtype):
        if dt.is_complex(input_dtype):
            return [bind(conj, g, input_dtype=g.aval.dtype)]
        return [bind(real, g)]

    def format_params(self, params):
        return f"input_dtype={dt.short_name(params['input_dtype'])}"

    def lower(self, ctx, eqn, x, **_):
        """JAX's `_conj_impl`: complex(real(x), -imag(x)), or complex(x, 0) for a real x."""
        src, out = eqn.inputs[0].type, eqn.outputs[0].type
        part = ttype(src.update(dtype=dt.real_dtype(out.dtype)))
        if dt.is_complex(src.dtype):
            re = ctx.op(f"stablehlo.real {x} : ({ttype(src)}) -> {part}")
            im = ctx.op(f"stablehlo.imag {x} : ({ttype(src)}) -> {part}")
            im = ctx.op(f"stablehlo.negate {im} : {part}")
        else:
            re, im = x, ctx.splat(0, src.dtype, src.shape)
        return [ctx.op(f"stablehlo.complex {re}, {im} : {ttype(out)}")]


conj = Conj("conj", "stablehlo.complex", "fc")

