"""Elementwise primitives: unary math, n-ary arithmetic with broadcasting,
comparisons, dtype conversion, `integer_pow` and `select_n`.

Sharding (JAX rules §2.2–2.4): unary ops keep the operand's spec; n-ary ops
merge specs dim by dim (`lax.broadcasting_sharding_rule`). Unreduced/reduced
(§3.2): unary ops keep R and reject U; `add` and `mul` have their own U rules;
every n-ary op applies the reduced checks.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .. import dtypes as dt
from ..core import Primitive, Tracer, _fs, bind
from ..emit.text import tensor_type, ttype
from ..errors import ShardcNotImplementedError, ShardcTypeError, ShardcValueError, ShardingTypeError
from ..sharding import Entry
from ..types import ArrayType

_NONE: frozenset[str] = frozenset()


#: primitives whose JAX dtype rule accepts floats but not complex numbers
_REAL_ONLY = {"floor", "ceil", "round", "erf", "cbrt", "rem", "is_finite", "lt", "le",
              "gt", "ge", "erf_inv", "lgamma", "digamma", "erfc", "polygamma", "zeta",
              "nextafter", "bessel_i0e", "bessel_i1e"}


def accepts(name: str, kinds: str, d: np.dtype) -> bool:
    """Whether JAX's dtype rule takes `d`: floating rules take complex too unless `_REAL_ONLY`."""
    return (d.kind in kinds or (dt.is_custom_float(d) and "f" in kinds)
            or (d.kind == "c" and "f" in kinds and name not in _REAL_ONLY))


def accepted_names(name: str, kinds: str) -> str:
    """JAX's wording of a dtype rule: `integer, floating, complexfloating, bool`."""
    out = []
    if "i" in kinds or "u" in kinds:
        out.append("integer")
    if "f" in kinds:
        out.append("floating")
        if name not in _REAL_ONLY:
            out.append("complexfloating")
    if "b" in kinds:
        out.append("bool")
    return ", ".join(out)


def dtype_error(name: str, kinds: str, d: np.dtype, position: int | None = None) -> ShardcTypeError:
    """`lax`'s dtype-rule error (a TypeError, as in JAX)."""
    if position is None:
        return ShardcTypeError(f"{name} does not accept dtype {np.dtype(d).name}. Accepted dtypes "
                               f"are subtypes of {accepted_names(name, kinds)}.")
    return ShardcTypeError(
        f"{name} does not accept dtype {np.dtype(d).name} at position {position}. Accepted dtypes "
        f"at position {position} are subtypes of {accepted_names(name, kinds)}.")


def _not_impl_unreduced(name: str) -> ShardcNotImplementedError:
    return ShardcNotImplementedError(
        f"unreduced rule for {name} is not implemented. "
        "Please file an issue at https://github.com/jax-ml/jax/issues")


# --- unary --------------------------------------------------------------------------
class Unary(Primitive):
    """`out = op(x)`; keeps shape, dtype (or `out_dtype`), spec and R."""

    def __init__(self, name: str, hlo: str, kinds: str = "fiub", out_dtype=None):
        self.hlo, self.kinds, self.out_dtype = hlo, kinds, out_dtype
        super().__init__(name)

    def shape_rule(self, x: ArrayType, **_):
        if not accepts(self.name, self.kinds, x.dtype):
            raise dtype_error(self.name, self.kinds, x.dtype)
        # JAX's `abs` of a complex number is its (real) modulus
        out = self.out_dtype or (dt.real_dtype(x.dtype) if self.name == "abs" else x.dtype)
        return [(x.shape, out, x.weak_type and self.out_dtype is None)]

    def sharding_rule(self, x: ArrayType, **_):
        return [x.spec]

    def ur_rule(self, x: ArrayType, **_):
        if x.unreduced:
            raise _not_impl_unreduced(self.name)
        return [(_NONE, x.reduced)]

    def batch(self, B, axis, args, dims, **params):
        """Elementwise: the batch dim stays where it is."""
        return B.bind(self, args[0], **params), dims[0]

    def vjp(self, L, g, ins, outs, **_):
        """Cotangent of the operand (None for piecewise-constant ops)."""
        if self.name in _ZERO_GRAD:
            return [None]
        rule = _UNARY_VJP.get(self.name)
        if rule is None:
            raise ShardcNotImplementedError(f"differentiation of {self.name} is not supported yet")
        return [rule(L, g, ins[0], outs[0])]

    def lower(self, ctx, eqn, x):
        out = eqn.outputs[0].type
        if out.dtype != eqn.inputs[0].type.dtype or self.hlo.startswith("chlo."):
            # chlo ops print a functional type
            return [ctx.op(f"{self.hlo} {x} : {ttype(eqn.inputs[0].type)} -> {ttype(out)}")
                    if self.hlo.startswith("chlo.") else
                    ctx.op(f"{self.hlo} {x} : ({ttype(eqn.inputs[0].type)}) -> {ttype(out)}")]
        return [ctx.op(f"{self.hlo} {x} : {ttype(out)}")]


_UNARY_VJP = {
    "neg": lambda L, g, x, y: L.neg(g),
    # JAX's `_abs_jvp_rule`: `select(x >= 0, g, -g)`, so the derivative at 0 is 1 (sign(0) would give 0)
    "abs": lambda L, g, x, y: _abs_complex_vjp(L, g, x, y) if dt.is_complex(_dtype_of(x)) else
    L.select_n(L.ge(x, 0.0), L.neg(g), g),
    "sin": lambda L, g, x, y: L.mul(g, L.cos(x)),
    "cos": lambda L, g, x, y: L.neg(L.mul(g, L.sin(x))),
    "tan": lambda L, g, x, y: L.mul(g, L.add(1.0, L.mul(y, y))),
    "tanh": lambda L, g, x, y: L.mul(g, L.sub(1.0, L.mul(y, y))),
    "exp": lambda L, g, x, y: L.mul(g, y),
    "expm1": lambda L, g, x, y: L.mul(g, L.add(y, 1.0)),
    "log": lambda L, g, x, y: L.div(g, x),
    "log1p": lambda L, g, x, y: L.div(g, L.add(x, 1.0)),
    "sqrt": lambda L, g, x, y: L.div(L.mul(g, 0.5), y),
    "rsqrt": lambda L, g, x, y: L.mul(L.mul(g, -0.5), L.div(y, x)),
    "cbrt": lambda L, g, x, y: L.div(g, L.mul(3.0, L.mul(y, y))),
    "logistic": lambda L, g, x, y: L.mul(g, L.mul(y, L.sub(1.0, y))),
    "erf": lambda L, g, x, y: L.mul(
        L.mul(g, 2.0 / float(np.sqrt(np.pi))), L.exp(L.neg(L.mul(x, x)))),
    "square": lambda L, g, x, y: L.mul(g, L.mul(x, 2.0)),
    # erf_inv' = sqrt(pi)/2 * exp(erf_inv(x)^2)
    "erf_inv": lambda L, g, x, y: L.mul(L.mul(g, float(np.sqrt(np.pi) / 2.0)), L.exp(L.mul(y, y))),
    # inverse trig / hyperbolic: JAX's JVPs (lax.py), transposed
    "asin": lambda L, g, x, y: L.mul(g, L.rsqrt(L.sub(1.0, L.square(x)))),
    "acos": lambda L, g, x, y: L.mul(g, L.neg(L.rsqrt(L.sub(1.0, L.square(x))))),
    "atan": lambda L, g, x, y: L.div(g, L.add(1.0, L.square(x))),
    "sinh": lambda L, g, x, y: L.mul(g, L.cosh(x)),
    "cosh": lambda L, g, x, y: L.mul(g, L.sinh(x)),
    "asinh": lambda L, g, x, y: L.mul(g, L.rsqrt(L.add(L.square(x), 1.0))),
    "acosh": lambda L, g, x, y: L.mul(g, L.rsqrt(L.sub(L.square(x), 1.0))),
    "atanh": lambda L, g, x, y: L.mul(L.div(1.0, L.add(1.0, x)), L.div(g, L.sub(1.0, x))),
}


def _abs_complex_vjp(L, g, x, y):
    """JAX's complex `_abs_jvp_rule` transposed: `g * conj(x) / (|x| or 1 where |x| == 0)`."""
    d = _dtype_of(x)
    y = L.convert_element_type(y, d)
    safe = L.select_n(L.eq(y, 0.0), y, L.full_like(y, 1.0))
    return L.mul(L.convert_element_type(g, d), L.div(L.conj(x), safe))


# piecewise-constant (or non-float) ops: no cotangent flows through them
_ZERO_GRAD = frozenset({"sign", "floor", "ceil", "round", "not", "is_finite"})

UNARY: dict[str, Unary] = {}
for _name, _hlo, _kinds in [
    ("neg", "stablehlo.negate", "fiu"), ("abs", "stablehlo.abs", "fi"),
    ("sign", "stablehlo.sign", "fi"), ("floor", "stablehlo.floor", "f"),
    ("ceil", "stablehlo.ceil", "f"), ("round", "stablehlo.round_nearest_even", "f"),
    ("sin", "stablehlo.sine", "f"), ("cos", "stablehlo.cosine", "f"),
    ("tan", "stablehlo.tan", "f"), ("tanh", "stablehlo.tanh", "f"),
    ("exp", "stablehlo.exponential", "f"), ("expm1", "stablehlo.exponential_minus_one", "f"),
    ("log", "stablehlo.log", "f"), ("log1p", "stablehlo.log_plus_one", "f"),
    ("sqrt", "stablehlo.sqrt", "f"), ("rsqrt", "stablehlo.rsqrt", "f"),
    ("cbrt", "stablehlo.cbrt", "f"), ("logistic", "stablehlo.logistic", "f"),
    ("erf", "chlo.erf", "f"), ("not", "stablehlo.not", "iub"),
    ("erf_inv", "chlo.erf_inv", "f"),
    ("asin", "chlo.asin", "f"), ("acos", "chlo.acos", "f"), ("atan", "chlo.atan", "f"),
    ("sinh", "chlo.sinh", "f"), ("cosh", "chlo.cosh", "f"), ("asinh", "chlo.asinh", "f"),
    ("acosh", "chlo.acosh", "f"), ("atanh", "chlo.atanh", "f"),
]:
    UNARY[_name] = Unary(_name, _hlo, _kinds)
UNARY["is_finite"] = Unary("is_finite", "stablehlo.is_finite", "f", out_dtype=dt.bool_)


class Square(Unary):
    """`lax.square`: `x * x`, a unary op (keeps R, rejects U) unlike `integer_pow`."""

    def lower(self, ctx, eqn, x):
        return [ctx.op(f"stablehlo.multiply {x}, {x} : {ttype(eqn.outputs[0].type)}")]


UNARY["square"] = Square("square", "stablehlo.multiply", "fiu")


# --- n-ary with broadcasting ---------------------------------------------------------
def broadcast_shapes(name: str, ins: Sequence[ArrayType]) -> tuple[int, ...]:
    """Rank-0 operands broadcast; others must have equal rank and dims equal or 1."""
    shaped = [t.shape for t in ins if t.ndim > 0]
    if not shaped:
        return ()
    rank = len(shaped[0])
    if any(len(s) != rank for s in shaped):
        raise ShardcTypeError(f"{name} got arrays of different rank: "
                               + ", ".join(str(s) for s in shaped))
    out = []
    for i in range(rank):
        sizes = {s[i] for s in shaped} - {1}
        if len(sizes) > 1:
            raise ShardcTypeError(f"{name} got incompatible shapes for broadcasting: "
                                   + ", ".join(str(s) for s in shaped))
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def broadcasting_sharding_rule(name: str, ins: Sequence[ArrayType]) -> tuple[Entry, ...]:
    """`lax.broadcasting_sharding_rule`: replicated yields to sharded; two
    different shardings of one dim are an error."""
    shaped = [t for t in ins if t.ndim > 0]
    if not shaped:
        return ()
    out = []
    for i in range(shaped[0].ndim):
        ss = [t.spec[i] for t in shaped]
        if all(s == ss[0] for s in ss):
            out.append(ss[0])
            continue
        non_trivial = [t.spec[i] for t in shaped if not (t.shape[i] == 1 and t.spec[i] is None)]
        if non_trivial and all(s == non_trivial[0] for s in non_trivial):
            out.append(non_trivial[0])
            continue
        non_none = [s for s in ss if s is not None]
        if any(s != non_none[0] for s in non_none):
            specs = ", ".join(repr(tuple(t.spec)) for t in shaped)
            raise ShardingTypeError(f"{name} got incompatible shardings for broadcasting: {specs}.")
        out.append(non_none[0])
    return tuple(out)


def broadcast_shardings(ins: Sequence[ArrayType]) -> tuple[tuple[Entry, ...], frozenset[str], frozenset[str]]:
    """`lax.broadcast_shardings` (used by `jnp.where` and `_broadcast_arrays`):
    the highest-rank operand's sharding when the others are only rank-promoted
    suffixes of it; otherwise the n-ary rule over every operand padded with
    leading size-1 dims (rank-0 ones included). Returns (spec, U, R)."""
    if len(ins) == 1:
        return ins[0].spec, ins[0].unreduced, ins[0].reduced
    res = max(ins, key=lambda t: t.ndim)
    nd = res.ndim
    if nd and (res.unreduced or res.reduced):
        # JAX 0.10.2 indexes this operand's PartitionSpec and fails
        raise ShardcValueError(
            f"broadcasting an unreduced/reduced operand ({res.str_short()}) against others of another "
            "shape is not supported (JAX 0.10.2 fails here too, with `Using pspec[...] is dangerous`); "
            "`sc.reshard` it first")
    plain = lambda t: not (t.unreduced or t.reduced)
    if nd == 0 or all(tuple(res.spec[nd - t.ndim:]) == tuple(t.spec) and plain(t) and plain(res)
                      for t in ins):
        return res.spec, res.unreduced, res.reduced
    if any(t.unreduced or t.reduced for t in ins):
        # JAX 0.10.2 pads such an operand's PartitionSpec as a tuple and fails
        raise ShardcValueError(
            "broadcasting unreduced/reduced operands against others of another shape is not "
            "supported (JAX 0.10.2 fails here too, in `__radd__` of PartitionSpec); `sc.reshard` "
            "them first")
    padded = [t.update(shape=(1,) * (nd - t.ndim) + t.shape, spec=(None,) * (nd - t.ndim) + t.spec)
              for t in ins]
    return broadcasting_sharding_rule("broadcast_shardings", padded), _NONE, _NONE


def nary_reduced_rule(ins: Sequence[ArrayType]) -> frozenset[str]:
    """`default_nary_reduced_rule` (JAX rules §3.2): returns the common R set."""
    rsets = {t.reduced for t in ins if t.reduced}
    if not rsets:
        return _NONE
    if len(rsets) > 1:
        raise ShardingTypeError("All inputs should be reduced across the same mesh axes. Got specs: {"
                                + ", ".join(_fs(s) for s in sorted(rsets, key=sorted)) + "}")
    red = rsets.pop()
    for t in ins:
        sharded = {a for i in range(t.ndim) for a in t.dim_axes(i)}
        # replicated: neither sharded, unreduced, reduced nor varying (so U axes are fine here)
        replicated = set(t.mesh.axis_names) - (sharded | t.unreduced | t.reduced | t.vma)
        if replicated & red:
            raise ShardingTypeError(
                "Inputs cannot be replicated on the same axes that another input is reduced on. "
                f"Got input type: {t} and reduced spec: {_fs(red)}")
        if (sharded | t.vma) & red:
            raise ShardingTypeError(
                "Inputs cannot be sharded/varying on the same axes that another input is reduced "
                "on. Reshard the input which is reduced to be sharded on the mesh axes it is "
                "reduced on via `sc.reshard(inp, sc.P(...))`. "
                f"Got input type: {t} and reduced spec: {_fs(red)}")
    return red


class Nary(Primitive):
    """Same-dtype n-ary elementwise op with scalar and size-1 broadcasting."""

    def __init__(self, name: str, hlo: str, kinds: str = "fiub", compare: str | None = None):
        self.hlo, self.kinds, self.compare = hlo, kinds, compare
        super().__init__(name)

    def shape_rule(self, *ins: ArrayType, **_):
        dts = {t.dtype for t in ins}
        if len(dts) != 1:
            raise ShardcValueError(f"{self.name} requires arguments to have the same dtypes, got "
                                   + ", ".join(t.dtype.name for t in ins))
        d = ins[0].dtype
        if not accepts(self.name, self.kinds, d):
            raise dtype_error(self.name, self.kinds, d, position=0)
        shape = broadcast_shapes(self.name, ins)
        # the output is weak when every operand is (comparisons too: `~bool`)
        return [(shape, dt.bool_ if self.compare else d, all(t.weak_type for t in ins))]

    def sharding_rule(self, *ins: ArrayType, **_):
        return [broadcasting_sharding_rule(self.name, ins)]

    def ur_rule(self, *ins: ArrayType, **_):
        red = nary_reduced_rule(ins)  # JAX checks R before rejecting U
        if any(t.unreduced for t in ins):
            raise _not_impl_unreduced(self.name)
        return [(_NONE, red)]

    def batch(self, B, axis, args, dims, **params):
        """JAX's `broadcast_batcher`: operands batched at one dim with one shape bind as they
        are; otherwise batch dims go first, unbatched operands get a size-1 leading dim and
        lower-rank batched ones trailing size-1 dims (the op broadcasts them)."""
        return broadcast_batch(self, B, axis, args, dims, **params)

    def vjp(self, L, g, ins, outs, **_):
        """Cotangents of both operands (only for traced ones: constants need
        none), summed back over broadcast dims."""
        rules = _BINARY_VJP.get(self.name)
        if rules is None:
            return [None] * len(ins)
        x, y = ins
        return [unbroadcast(L, rule(L, g, x, y, outs[0]), a) if isinstance(a, Tracer) else None
                for rule, a in zip(rules, (x, y))]

    def lower(self, ctx, eqn, *args):
        out = eqn.outputs[0].type
        if any(i.type.shape != out.shape for i in eqn.inputs):   # (most operands need no broadcast)
            args = [ctx.broadcast_operand(a, i.type, out) for a, i in zip(args, eqn.inputs)]
        if self.name in ("max", "min") and dt.is_complex(out.dtype):
            return [complex_minmax(ctx.op, args[0], args[1], out.shape, out.dtype, "GT" if self.name == "max" else "LT")]
        if self.compare:
            in_t = tensor_type(out.shape, eqn.inputs[0].type.dtype)
            d = eqn.inputs[0].type.dtype
            kind = "FLOAT" if dt.is_inexact(d) else ("SIGNED" if dt.is_signed(d) else "UNSIGNED")
            return [ctx.op(f"stablehlo.compare {self.compare}, {args[0]}, {args[1]}, {kind} : "
                           f"({in_t}, {in_t}) -> {ttype(out)}")]
        return [ctx.op(f"{self.hlo} {', '.join(args)} : {ttype(out)}")]


def complex_minmax(op, x: str, y: str, shape, dtype, cmp: str) -> str:
    """JAX's `_minmax_complex_lowering`: x where (re x, im x) `cmp` (re y, im y)
    lexicographically, else y. `op(text) -> name` writes one op (`ctx.op`, or a region's)."""
    ct, rt, bt = tensor_type(shape, dtype), tensor_type(shape, dt.real_dtype(dtype)), tensor_type(shape, dt.bool_)
    rx, ry = op(f"stablehlo.real {x} : ({ct}) -> {rt}"), op(f"stablehlo.real {y} : ({ct}) -> {rt}")
    eq = op(f"stablehlo.compare EQ, {rx}, {ry}, FLOAT : ({rt}, {rt}) -> {bt}")
    re_pick = op(f"stablehlo.compare {cmp}, {rx}, {ry}, FLOAT : ({rt}, {rt}) -> {bt}")
    ix, iy = op(f"stablehlo.imag {x} : ({ct}) -> {rt}"), op(f"stablehlo.imag {y} : ({ct}) -> {rt}")
    im_pick = op(f"stablehlo.compare {cmp}, {ix}, {iy}, FLOAT : ({rt}, {rt}) -> {bt}")
    pick = op(f"stablehlo.select {eq}, {im_pick}, {re_pick} : {bt}, {bt}")
    return op(f"stablehlo.select {pick}, {x}, {y} : {bt}, {ct}")


def _max_weight(L, x, y, pick):
    """JAX's balanced rule for max/min: ties split the cotangent in half."""
    tie = L.mul(L.convert_element_type(L.eq(x, y), _dtype_of(x, y)), 0.5)
    return L.add(L.convert_element_type(pick(x, y), _dtype_of(x, y)), tie)


# (cotangent of x, cotangent of y) for g = cotangent of out = op(x, y)
_BINARY_VJP = {
    "add": (lambda L, g, x, y, o: g, lambda L, g, x, y, o: g),
    "sub": (lambda L, g, x, y, o: g, lambda L, g, x, y, o: L.neg(g)),
    "mul": (lambda L, g, x, y, o: L.mul(g, y), lambda L, g, x, y, o: L.mul(g, x)),
    "div": (lambda L, g, x, y, o: L.div(g, y),
            lambda L, g, x, y, o: L.neg(L.mul(g, L.div(o, y)))),
    "max": (lambda L, g, x, y, o: L.mul(g, _max_weight(L, x, y, L.gt)),
            lambda L, g, x, y, o: L.mul(g, _max_weight(L, y, x, L.gt))),
    "min": (lambda L, g, x, y, o: L.mul(g, _max_weight(L, x, y, L.lt)),
            lambda L, g, x, y, o: L.mul(g, _max_weight(L, y, x, L.lt))),
    "pow": (lambda L, g, x, y, o: L.mul(g, L.mul(y, L.pow(x, L.sub(y, 1)))),
            lambda L, g, x, y, o: L.mul(g, L.mul(L.log(x), o))),
    "atan2": (lambda L, g, x, y, o: L.mul(g, L.div(y, L.add(L.mul(x, x), L.mul(y, y)))),
              lambda L, g, x, y, o: L.neg(L.mul(g, L.div(x, L.add(L.mul(x, x), L.mul(y, y)))))),
    "rem": (lambda L, g, x, y, o: g,
            lambda L, g, x, y, o: L.neg(L.mul(g, L.div(L.sub(x, o), y)))),
}


def _dtype_of(*xs):
    """The operands' dtype (they share one: binary VJP rules see promoted operands)."""
    for x in xs:
        if isinstance(x, Tracer):
            return x.aval.dtype
    return np.asarray(xs[0]).dtype


def unbroadcast(L, ct, operand):
    """Sum a cotangent over the dims `operand` was broadcast along (rank-0 or size-1)."""
    if not isinstance(operand, Tracer):
        return None
    t, c = operand.aval, ct.aval
    if t.shape == c.shape:
        return ct
    if t.ndim == 0:
        return L.reduce_sum(ct, tuple(range(c.ndim)))
    dims = tuple(i for i, (a, b) in enumerate(zip(t.shape, c.shape)) if a == 1 and b != 1)
    return L.expand_dims(L.reduce_sum(ct, dims), dims) if dims else ct


class Add(Nary):
    def ur_rule(self, x: ArrayType, y: ArrayType, **_):
        red = nary_reduced_rule([x, y])
        if x.unreduced and y.unreduced:
            if x.unreduced != y.unreduced:
                raise ShardingTypeError(
                    f"lhs and rhs to `add` must be unreduced along the same mesh axes. "
                    f"Got lhs={_fs(x.unreduced)}, rhs={_fs(y.unreduced)}")
            return [(x.unreduced, red)]
        if x.unreduced or y.unreduced:
            a, b = ("lhs", "rhs") if x.unreduced else ("rhs", "lhs")
            raise ShardingTypeError(
                f"{a} is unreduced while {b} is not. `add` operation does not allow this because "
                f"there will be implicit communication. Please reduce {a} via `reshard` before "
                "calling `add`.")
        return [(_NONE, red)]


class Mul(Nary):
    def ur_rule(self, x: ArrayType, y: ArrayType, **_):
        red = nary_reduced_rule([x, y])
        if x.unreduced and y.unreduced:
            raise ShardingTypeError(
                f"lhs and rhs to `mul` cannot be unreduced since mul is bilinear. "
                f"Got lhs={_fs(x.unreduced)}, rhs={_fs(y.unreduced)}")
        if x.unreduced or y.unreduced:
            u, other = (x, y) if x.unreduced else (y, x)
            if other.reduced != u.unreduced:
                a, b = ("RHS", "LHS") if x.unreduced else ("LHS", "RHS")
                raise ShardingTypeError(
                    f"{a} should be reduced along the same axes {b} is unreduced on. "
                    f"Got lhs={x} and rhs={y}")
            return [(u.unreduced, _NONE)]  # the R operand is consumed
        return [(_NONE, red)]


BINARY: dict[str, Nary] = {
    "add": Add("add", "stablehlo.add", "fiu"),
    "mul": Mul("mul", "stablehlo.multiply", "fiub"),
}
for _name, _hlo, _kinds in [
    ("sub", "stablehlo.subtract", "fiu"), ("div", "stablehlo.divide", "fiu"),
    ("rem", "stablehlo.remainder", "fiu"), ("pow", "stablehlo.power", "fi"),
    ("max", "stablehlo.maximum", "fiub"), ("min", "stablehlo.minimum", "fiub"),
    ("atan2", "stablehlo.atan2", "f"), ("and", "stablehlo.and", "iub"),
    ("or", "stablehlo.or", "iub"), ("xor", "stablehlo.xor", "iub"),
]:
    BINARY[_name] = Nary(_name, _hlo, _kinds)
for _name, _cmp in [("eq", "EQ"), ("ne", "NE"), ("lt", "LT"), ("le", "LE"), ("gt", "GT"), ("ge", "GE")]:
    BINARY[_name] = Nary(_name, "stablehlo.compare", "fiub", compare=_cmp)


def broadcast_batch(prim, B, axis, args, dims, **params):
    """Batch an n-ary elementwise op (JAX's `broadcast_batcher`)."""
    types = [B.type_of(x) for x in args]
    shape, dim = next((t.shape, d) for t, d in zip(types, dims) if d is not None)
    if all(t.shape == shape and d == dim for t, d in zip(types, dims) if t.ndim):
        return B.bind(prim, *args, **params), dim
    moved = []
    for x, t, d in zip(args, types, dims):
        if d is not None:
            moved.append(B.moveaxis(x, d, 0))
        elif t.ndim:
            moved.append(B.expand_dims(x, (0,)))
        else:
            moved.append(x)
    nd = max(B.type_of(x).ndim for x in moved)
    out = []
    for x, d in zip(moved, dims):
        k = B.type_of(x).ndim
        out.append(B.expand_dims(x, tuple(range(k, nd))) if d is not None and k < nd else x)
    return B.bind(prim, *out, **params), 0


# --- dtype conversion --------------------------------------------------------------
class ConvertElementType(Primitive):
    """`astype`: keeps the spec, U and R."""

    name = "convert_element_type"

    def shape_rule(self, x: ArrayType, *, new_dtype, weak_type=False):
        return [(x.shape, new_dtype, weak_type)]

    def sharding_rule(self, x: ArrayType, **_):
        return [x.spec]

    def ur_rule(self, x: ArrayType, **_):
        return [(x.unreduced, x.reduced)]

    def batch(self, B, axis, args, dims, **params):
        return B.bind(self, args[0], **params), dims[0]

    def vjp(self, L, g, ins, outs, **_):
        src = ins[0].aval.dtype if hasattr(ins[0], "aval") else None
        if src is None or not dt.is_inexact(src) or not dt.is_inexact(g.aval.dtype):
            return [None]
        return [L.convert_element_type(g, src)]

    def format_params(self, params):
        w = " weak_type=True" if params.get("weak_type") else ""
        return f"new_dtype={dt.short_name(params['new_dtype'])}{w}"

    def lower(self, ctx, eqn, x):
        src, out = eqn.inputs[0].type, eqn.outputs[0].type
        if src.dtype == out.dtype:
            return [x]
        if dt.is_complex(src.dtype) and not dt.is_complex(out.dtype):
            # JAX's `_convert_element_type_lower`: a complex value becomes real by its real part
            part = src.update(dtype=dt.real_dtype(src.dtype))
            x = ctx.op(f"stablehlo.real {x} : ({ttype(src)}) -> {ttype(part)}")
            src = part
            if src.dtype == out.dtype:
                return [x]
        if out.dtype == dt.bool_:
            zero = ctx.splat(0, src.dtype, src.shape)
            kind = "FLOAT" if dt.is_inexact(src.dtype) else ("SIGNED" if dt.is_signed(src.dtype) else "UNSIGNED")
            return [ctx.op(f"stablehlo.compare NE, {x}, {zero}, {kind} : ({ttype(src)}, {ttype(src)}) -> {ttype(out)}")]
        return [ctx.op(f"stablehlo.convert {x} : ({ttype(src)}) -> {ttype(out)}")]


convert_element_type = ConvertElementType()


class IntegerPow(Primitive):
    """`x ** n` for a static integer n, by repeated squaring. No U/R rule (as JAX)."""

    name = "integer_pow"

    def shape_rule(self, x: ArrayType, *, y: int):
        if x.dtype == dt.bool_:
            raise dtype_error(self.name, "fiu", x.dtype)
        if dt.is_int(x.dtype) and y < 0:
            raise ShardcTypeError(f"Integers cannot be raised to negative powers, got "
                                   f"integer_pow({x.str_short(short_dtypes=False)}, {y})")
        return [(x.shape, x.dtype, x.weak_type)]

    def sharding_rule(self, x: ArrayType, **_):
        return [x.spec]

    def batch(self, B, axis, args, dims, **params):
        return B.bind(self, args[0], **params), dims[0]

    def vjp(self, L, g, ins, outs, *, y):
        x = ins[0]
        if y == 0:
            return [L.mul(g, 0.0)]
        d = x if y == 2 else (bind(integer_pow, x, y=y - 1) if y != 1 else None)
        scale = L.mul(g, float(y))
        return [scale if d is None else L.mul(scale, d)]

    def lower(self, ctx, eqn, x, *, y=None):
        t = eqn.outputs[0].type
        n = eqn.params["y"]
        tt = ttype(t)
        if n == 0:
            return [ctx.splat(1, t.dtype, t.shape)]
        acc, base, k = None, x, abs(n)
        while k:
            if k & 1:
                acc = base if acc is None else ctx.op(f"stablehlo.multiply {acc}, {base} : {tt}")
            k >>= 1
            if k:
                base = ctx.op(f"stablehlo.multiply {base}, {base} : {tt}")
        if n < 0:
            one = ctx.splat(1, t.dtype, t.shape)
            acc = ctx.op(f"stablehlo.divide {one}, {acc} : {tt}")
        return [acc]


integer_pow = IntegerPow()


class SelectN(Primitive):
    """`select_n(pred, *cases)`: cases must have identical shardings (§2.4)."""

    name = "select_n"

    def shape_rule(self, pred: ArrayType, *cases: ArrayType, **_):
        if pred.dtype != dt.bool_:
            raise ShardcValueError(f"select_n predicate must be bool, got {pred.dtype.name}")
        if len({c.shape for c in cases}) != 1 or len({c.dtype for c in cases}) != 1:
            raise ShardcValueError("select cases must have the same shapes and dtypes, got "
                                   + ", ".join(c.str_short() for c in cases))
        if pred.ndim and pred.shape != cases[0].shape:
            raise ShardcValueError(f"select `which` must be scalar or have the same shape as cases, "
                                   f"got {pred.shape} and {cases[0].shape}")
        return [(cases[0].shape, cases[0].dtype, all(c.weak_type for c in cases))]

    def sharding_rule(self, pred: ArrayType, *cases: ArrayType, **_):
        shardings = [c.sharding for c in cases]
        if any(s != shardings[0] for s in shardings):
            raise ShardingTypeError(
                f"select cases must have the same shardings, got [{', '.join(repr(s) for s in shardings)}].")
        if pred.ndim and pred.spec != cases[0].spec:
            raise ShardingTypeError(
                f"select `which` must be scalar or have the same sharding as cases, got `which` "
                f"sharding {pred.sharding!r} but case sharding {shardings[0]!r}.")
        return [cases[0].spec]

    def ur_rule(self, pred: ArrayType, *cases: ArrayType, **_):
        return [(cases[0].unreduced, cases[0].reduced)]

    def vma_rule(self, *ins, **params):
        return super().vma_rule(*ins, **params)

    def batch(self, B, axis, args, dims, **params):
        """JAX's `_select_batch_rule`: a per-example scalar `which` with array cases is
        broadcast to the cases' shape and sharding; unbatched cases get the batch dim."""
        which, *cases = args
        wd, *cds = dims
        size = axis.size
        shape = lambda x: B.type_of(x).shape
        if all(wd == d for d in cds):
            if shape(which) != shape(cases[0]):
                which = _broadcast_which(B, which, cases[0], wd)
            return B.bind(self, which, *cases, **params), wd
        if wd is None and not shape(which) and all(d is not None for d in cds):
            if all(cds[0] == d for d in cds[1:]):
                return B.bind(self, which, *cases, **params), cds[0]
            if all(shape(cases[0]) == shape(c) for c in cases):
                others = [B.moveaxis(c, d, cds[0]) for c, d in zip(cases[1:], cds[1:])]
                return B.bind(self, which, cases[0], *others, **params), cds[0]
        if shape(which):
            which = B.bdim_at_front(which, wd, size, axis.entry)
        if not all(shape(c) == () for c in cases):
            cases = [B.bdim_at_front(c, d, size, axis.entry) for c, d in zip(cases, cds)]
        if 0 < len(shape(which)) < len(shape(cases[0])):
            which = _broadcast_which(B, which, cases[0], 0)
        if len(shape(which)) > len(shape(cases[0])):
            cases = [_broadcast_which(B, c, which, None) for c in cases]
        return B.bind(self, which, *cases, **params), 0

    def vjp(self, L, g, ins, outs, **_):
        pred = ins[0]
        zero = L.zeros_like(g)
        cts = [None]
        for k in range(len(ins) - 1):
            cases = [g if j == k else zero for j in range(len(ins) - 1)]
            cts.append(bind(select_n, pred, *cases))
        return cts

    def lower(self, ctx, eqn, pred, *cases):
        out = eqn.outputs[0].type
        pt = eqn.inputs[0].type
        # select_n(p, on_false, on_true)
        return [ctx.op(f"stablehlo.select {pred}, {cases[1]}, {cases[0]} : {ttype(pt)}, {ttype(out)}")]


select_n = SelectN()


def _broadcast_which(B, x, like, dim):
    """`x` broadcast to `like`'s shape and sharding (`dim`: where x's one dim goes)."""
    t = B.type_of(like)
    dims = () if dim is None else (dim,)
    spec = B.PartitionSpec(*t.spec) if t.mesh.has_explicit else None
    return B.broadcast_in_dim(x, t.shape, dims, out_sharding=spec)
