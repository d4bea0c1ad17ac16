"""Elementwise ops with NumPy semantics: promotion, rank promotion, Python
scalars as weak types, and the reduced-scalar reshard JAX inserts."""
from __future__ import annotations

import operator
from typing import Any

import ml_dtypes
import numpy as np

from .. import dtypes as dt
from .. import lax as _lax
from ..core import Const, Tracer, api, bind, current_trace, raise_user_error, scalar_const
from ..errors import ShardcError, ShardcNotImplementedError, ShardcTypeError, ShardcValueError
from ..lax import rank_promote, reduced_scalar_reshard, shift_right_logical
from ..mesh import get_abstract_mesh
from ..primitives import elementwise as ew
from ..primitives import shape as sp
from ..primitives.elementwise import broadcast_shardings
from ..sharding import PartitionSpec
from ._util import as_operand, broadcast_shapes, convert, is_array, promote, promote_to_float, type_of
from .creation import asarray, device_put_eager, full_like


def binary_op(name: str, x: Any, y: Any, api: str | None = None) -> Any:
    return _binary_api(name, x, y, api=api or f"sc.{_PUBLIC.get(name, name)}")


@api("sc.binary")
def _binary_api(name: str, x: Any, y: Any) -> Any:
    return _binary(name, x, y)


#: `jnp.add`/`jnp.multiply` on bools are logical or/and
_BOOL_BINARY = {"add": "or", "mul": "and"}


_SCALARS = (int, float)
_BITWISE = ("and", "or", "xor")


def _plain_float(t) -> bool:
    """A non-weak, non-reduced float type: a scalar of its dtype beside it needs no promotion."""
    return not t.weak_type and not t.reduced and dt.is_float(t.dtype)


def _scalar_as(v: Any, dtype) -> Const | None:
    """`v` as the constant `promote` would make of it beside a `_plain_float` array of `dtype`
    (a Python int in int32's range or float, or a non-weak rank-0 `Const` of `dtype`: gelu's
    constants); None where the general path must decide."""
    if type(v) in _SCALARS:
        return scalar_const(v, dtype) if _int32ish(v) else None
    if type(v) is Const and not v.weak and v.value.ndim == 0 and v.value.dtype == dtype:
        return v
    return None


def _int32ish(v: Any) -> bool:
    """A float, or an int JAX parses as int32 (a bigger one takes the general path, which raises
    JAX's OverflowError)."""
    return type(v) is float or -2**31 <= v < 2**31


def _binary(name: str, x: Any, y: Any) -> Any:
    if name in _ORDERED:
        return _ordered_compare(name, x, y)
    return _binary_general(name, x, y)


#: comparisons that order values: on complex numbers `jnp` compares (real, imag) lexicographically
_ORDERED = ("lt", "le", "gt", "ge")


def _ordered_compare(name: str, x: Any, y: Any) -> Any:
    """JAX's `_complex_comparison`: `select(re x == re y, op(im x, im y), op(re x, re y))`."""
    tx, ty = type_of(as_operand(x)), type_of(as_operand(y))
    if not (dt.is_complex(tx.dtype) or dt.is_complex(ty.dtype)):
        return _binary_general(name, x, y)
    x, y = rank_promote(*promote(x, y))
    rx, ry, ix, iy = _lax.real(x), _lax.real(y), _lax.imag(x), _lax.imag(y)
    return _select(_binary_general("eq", rx, ry), _binary_general(name, ix, iy), _binary_general(name, rx, ry))


def _binary_general(name: str, x: Any, y: Any) -> Any:
    # Fast paths (no promotion, rank promotion or reduced reshard can apply): two tracers of
    # one non-bool dtype/weakness/rank, or a non-weak float tracer with a scalar constant.
    if isinstance(x, Tracer) and name not in _BITWISE:
        tx = x._var.type
        if isinstance(y, Tracer):
            ty = y._var.type
            if (tx.dtype == ty.dtype and tx.dtype != dt.bool_ and tx.weak_type == ty.weak_type
                    and len(tx.shape) == len(ty.shape) and not tx.reduced and not ty.reduced
                    and not (tx.weak_type and dt.PROMOTION_FLAGS["dtype"] == "strict")):  # strict: ~i8+~i8: ~i32
                return bind(ew.BINARY[name], x, y)
        elif _plain_float(tx) and (c := _scalar_as(y, tx.dtype)) is not None:
            return bind(ew.BINARY[name], x, c)
    elif isinstance(y, Tracer) and name not in _BITWISE:
        ty = y._var.type
        if _plain_float(ty) and (c := _scalar_as(x, ty.dtype)) is not None:
            return bind(ew.BINARY[name], c, y)
    x, y = promote(x, y)
    if name in _BOOL_BINARY and type_of(x).dtype == dt.bool_:
        name = _BOOL_BINARY[name]
    x, y = rank_promote(x, y)
    x, y = reduced_scalar_reshard([x, y])
    return bind(ew.BINARY[name], x, y)


_PUBLIC = {"add": "add", "sub": "subtract", "mul": "multiply", "div": "divide", "max": "maximum",
           "min": "minimum", "eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal",
           "gt": "greater", "ge": "greater_equal", "and": "bitwise_and", "or": "bitwise_or",
           "xor": "bitwise_xor", "rem": "remainder", "pow": "power", "atan2": "arctan2"}


def _make_binary(prim: str, public: str):
    @api(f"sc.{public}")
    def fn(x, y):
        return _binary(prim, x, y)
    fn.__name__ = public
    fn.__doc__ = f"Elementwise `{public}` with NumPy broadcasting and JAX type promotion."
    return fn


add = _make_binary("add", "add")
subtract = _make_binary("sub", "subtract")
multiply = _make_binary("mul", "multiply")
maximum = _make_binary("max", "maximum")
minimum = _make_binary("min", "minimum")
equal = _make_binary("eq", "equal")
not_equal = _make_binary("ne", "not_equal")
less = _make_binary("lt", "less")
less_equal = _make_binary("le", "less_equal")
greater = _make_binary("gt", "greater")
greater_equal = _make_binary("ge", "greater_equal")
bitwise_and = _make_binary("and", "bitwise_and")
bitwise_or = _make_binary("or", "bitwise_or")
bitwise_xor = _make_binary("xor", "bitwise_xor")
_arctan2 = _make_binary("atan2", "arctan2")


@api("sc.arctan2")
def arctan2(x, y):
    """`jnp.arctan2`: integers are promoted to float first."""
    x, y = promote(x, y)
    return _arctan2(promote_to_float(x), promote_to_float(y))


@api("sc.true_divide")
def true_divide(x, y):
    """`x / y`: integers are promoted to float first (as `jnp.true_divide`)."""
    x, y = promote(x, y)
    x, y = promote_to_float(x), promote_to_float(y)
    return _binary("div", x, y)


divide = true_divide


def promote_numeric(*xs: Any) -> list[Any]:
    """`promote_dtypes_numeric`: promote, then bools become int32 (keeping weakness)."""
    xs = promote(*xs)
    t = type_of(xs[0])
    if t.dtype != dt.bool_:
        return xs
    weak = all(type_of(x).weak_type for x in xs)
    return [convert(x, dt.int32, weak) for x in xs]


def _select(pred, on_true, on_false):
    """`lax.select`: no broadcasting, cases sharded identically."""
    return bind(ew.select_n, pred, on_false, on_true)


def _const_like(x, v):
    """`_constant_like`: a non-weak scalar of `x`'s dtype."""
    d = type_of(x).dtype
    return Const(np.asarray(v, dtype=d), d, False)


@api("sc.floor_divide")
def floor_divide(x, y):
    """`x // y` with `jnp.floor_divide`'s algorithm (CPython's float divmod for floats)."""
    x, y = rank_promote(*promote_numeric(x, y))
    d = type_of(x).dtype
    if dt.is_complex(d):
        raise_user_error(ShardcTypeError("floor_divide does not support complex-valued inputs"))
    if dt.is_int(d) and not dt.is_signed(d):
        return _binary("div", x, y)
    if dt.is_int(d):
        quotient = _binary("div", x, y)
        sel = logical_and(not_equal(sign(x), sign(y)), not_equal(_binary("rem", x, y), 0))
        return where(sel, subtract(quotient, 1), quotient)
    return _float_divmod(x, y)[0]


def _float_divmod(x, y):
    mod = _binary("rem", x, y)
    x_corrected = where(equal(y, 0), x, _binary("sub", x, mod))
    div = _binary("div", x_corrected, y)
    ind = _binary("and", not_equal(mod, 0), not_equal(sign(y), sign(mod)))
    mod = _select(ind, add(mod, y), mod)
    div = _select(ind, subtract(div, 1.0), div)
    return bind(ew.UNARY["round"], div), mod


@api("sc.remainder")
def remainder(x, y):
    """Python-style modulus (the result takes the divisor's sign), as `jnp.remainder`."""
    x, y = rank_promote(*promote_numeric(x, y))
    if dt.is_complex(type_of(x).dtype):
        raise_user_error(ShardcTypeError("rem does not accept dtype complex64 at position 0. Accepted dtypes at "
                                         "position 0 are subtypes of integer, floating."))
    zero = _const_like(x, 0)
    if dt.is_int(type_of(y).dtype):
        y = where(equal(y, 0), _ones_like_scalar(y), y)
    trunc_mod = _binary("rem", x, y)
    trunc_mod_not_zero = _binary("ne", trunc_mod, zero)
    do_plus = _binary("and", _binary("ne", _binary("lt", trunc_mod, zero), _binary("lt", y, zero)),
                      trunc_mod_not_zero)
    return _select(do_plus, _binary("add", trunc_mod, y), trunc_mod)


def _ones_like_scalar(y):
    """`lax._ones(y)`: ones of `y`'s type (a broadcast of a scalar one)."""
    return full_like(y, 1)


mod = remainder


@api("sc.power")
def power(x, y):
    """`x ** y` with `jnp.power`'s cases: a static integer exponent is an
    `integer_pow` (repeated multiplication); integer bases give a non-weak
    integer; a float base with an integer exponent keeps the base's dtype."""
    if isinstance(y, (int, np.integer)):
        if type(x) is Tracer and x._var.type.dtype != dt.bool_:   # fast path: nothing to promote
            return bind(ew.integer_pow, x, y=int(y))
        x, = promote_numeric(as_operand(x))
        if not is_array(x):
            x = asarray(x)
        return bind(ew.integer_pow, x, y=int(y))
    x, y = as_operand(x), as_operand(y)
    tx, ty = type_of(x), type_of(y)
    xp, yp = promote_numeric(x, y)
    d = type_of(xp).dtype
    if dt.is_int(d):
        return _pow_int_int(*rank_promote(xp, yp))
    if dt.is_float(tx.dtype) and (dt.is_int(ty.dtype) or ty.dtype == dt.bool_):
        # `lax.pow(float, int)`: the exponent is not promoted; weak only if both are
        weak = tx.weak_type and ty.weak_type
        x = convert(x, tx.dtype, weak) if not is_array(x) or tx.weak_type != weak else x
        return _binary("pow", x, convert(y, tx.dtype, weak))
    return _binary("pow", xp, yp)


def _pow_int_int(x1, x2):
    """JAX's `_pow_int_int`: binary exponentiation over the exponent's 6 low bits (in
    `where`s of non-weak constants, so types, errors and values are JAX's)."""
    zero, one = _const_like(x2, 0), _const_like(x2, 1)
    acc = where(_binary("and", _binary("eq", x1, zero), _binary("ne", x2, zero)), zero, one)
    for _ in range(6):
        acc = where(_binary("and", x2, one), _binary("mul", acc, x1), acc)
        x1 = _binary("mul", x1, x1)
        x2 = shift_right_logical(x2, one)
    return acc


def _make_unary(prim: str, public: str, to_float: bool = True):
    @api(f"sc.{public}")
    def fn(x):
        if type(x) is Tracer and (not to_float or dt.is_inexact(x._var.type.dtype)):
            return bind(ew.UNARY[prim], x)     # fast path: nothing to convert
        x = as_operand(x)
        if to_float:
            x = promote_to_float(x)
        if not is_array(x):
            x = asarray(x)
        return bind(ew.UNARY[prim], x)
    fn.__name__ = public
    fn.__doc__ = f"Elementwise `{public}` (as `jnp.{public}`)."
    return fn


sin = _make_unary("sin", "sin")
cos = _make_unary("cos", "cos")
tan = _make_unary("tan", "tan")
tanh = _make_unary("tanh", "tanh")
exp = _make_unary("exp", "exp")
expm1 = _make_unary("expm1", "expm1")
log = _make_unary("log", "log")
log1p = _make_unary("log1p", "log1p")
sqrt = _make_unary("sqrt", "sqrt")
rsqrt = _make_unary("rsqrt", "rsqrt", to_float=False)  # lax.rsqrt (jnp has none): no promotion
cbrt = _make_unary("cbrt", "cbrt")
_floor = _make_unary("floor", "floor")
_ceil = _make_unary("ceil", "ceil")


@api("sc.floor")
def floor(x):
    """`jnp.floor`: integers and bools are returned unchanged."""
    x = as_operand(x)
    t = type_of(x)
    if is_array(x) and (dt.is_int(t.dtype) or t.dtype == dt.bool_):
        return x
    return _floor(x)


@api("sc.ceil")
def ceil(x):
    """`jnp.ceil`: integers and bools are returned unchanged."""
    x = as_operand(x)
    t = type_of(x)
    if is_array(x) and (dt.is_int(t.dtype) or t.dtype == dt.bool_):
        return x
    return _ceil(x)



erf = _make_unary("erf", "erf", to_float=False)  # lax.erf: no promotion
sigmoid = _make_unary("logistic", "sigmoid", to_float=False)  # jax.nn.sigmoid: floats only
negative = _make_unary("neg", "negative", to_float=False)
sign = _make_unary("sign", "sign", to_float=False)
_isfinite = _make_unary("is_finite", "isfinite")


@api("sc.isfinite")
def isfinite(x, /):
    """`jnp.isfinite`: of a complex array, both parts finite (as JAX)."""
    x = as_operand(x)
    if is_array(x) and dt.is_complex(type_of(x).dtype):
        return _lax.bitwise_and(_isfinite(_lax.real(x)), _isfinite(_lax.imag(x)))
    return _isfinite(x)


@api("sc.round")
def round(a, decimals: int = 0, out=None):
    """`jnp.round`: halves to even; `decimals` scales by 10**decimals around the rounding, as
    JAX does (float16 in float32); integers are returned as they are."""
    decimals = operator.index(decimals)
    if out is not None:
        raise_user_error(ShardcNotImplementedError("The 'out' argument to jnp.round is not supported."))
    x = as_operand(a)
    t = type_of(x)
    if t.dtype == dt.bool_:
        raise_user_error(ShardcValueError("data type <class 'numpy.bool'> not inexact"), [t])
    if not dt.is_inexact(t.dtype):
        if decimals < 0:
            raise_user_error(ShardcNotImplementedError("integer np.round not implemented for decimals < 0"), [t])
        return x
    if decimals > np.log10(float(ml_dtypes.finfo(t.dtype).max)):
        return x                      # rounding beyond the input's precision is a no-op
    if dt.is_complex(t.dtype):
        # JAX rounds the real and imaginary parts separately
        return _lax.complex(_round_float(_lax.real(x), decimals), _round_float(_lax.imag(x), decimals))
    return _round_float(x, decimals)


def _round_float(x, decimals: int):
    if decimals == 0:
        return bind(ew.UNARY["round"], x)
    d = type_of(x).dtype
    if d == dt.float16:
        x = _lax.convert_element_type(x, dt.float32)
    factor = Const(np.asarray(10 ** decimals, type_of(x).dtype), type_of(x).dtype, False)
    out = _lax.div(bind(ew.UNARY["round"], _lax.mul(x, factor)), factor)
    return _lax.convert_element_type(out, d) if d == dt.float16 else out


@api("sc.abs")
def abs(x):
    x = as_operand(x)
    t = type_of(x)
    if t.dtype == dt.bool_ or (dt.is_int(t.dtype) and not dt.is_signed(t.dtype)):
        return x
    return bind(ew.UNARY["abs"], x)


absolute = abs


@api("sc.invert")
def invert(x):
    return bind(ew.UNARY["not"], as_operand(x))


bitwise_not = invert


@api("sc.logical_not")
def logical_not(x):
    return bind(ew.UNARY["not"], astype(x, dt.bool_))


@api("sc.logical_and")
def logical_and(x, y):
    return _binary("and", astype(x, dt.bool_), astype(y, dt.bool_))


@api("sc.logical_or")
def logical_or(x, y):
    return _binary("or", astype(x, dt.bool_), astype(y, dt.bool_))


@api("sc.square")
def square(x):
    """`jnp.square`: `lax.square` after bools become int32."""
    x, = promote_numeric(as_operand(x))
    if not is_array(x):
        x = asarray(x)
    return bind(ew.UNARY["square"], x)


@api("sc.reciprocal")
def reciprocal(x):
    """`jnp.reciprocal`: `integer_pow(x, -1)` after promotion to float."""
    x = promote_to_float(as_operand(x))
    if not is_array(x):
        x = asarray(x)
    return bind(ew.integer_pow, x, y=-1)


@api("sc.clip")
def clip(arr=None, /, min=None, max=None):
    """Clamp `arr` to [min, max] (either may be None); complex values are refused, as JAX."""
    if arr is None:
        raise_user_error(ShardcValueError("No input was provided to the clip function."))
    x = arr
    if any(v is not None and dt.is_complex(type_of(as_operand(v)).dtype) for v in (x, min, max)):
        raise_user_error(ShardcValueError(
            "Clip received a complex value either through the input or the min/max keywords. Complex values have "
            "no ordering and cannot be clipped. Please convert to a real value or array by taking the real or "
            "imaginary components via shardc.numpy.real/imag respectively."))
    if min is not None:
        x = maximum(x, min)
    if max is not None:
        x = minimum(x, max)
    return x


@api("sc.astype")
def astype(x, dtype, /, *, copy: bool = False, device=None):
    """Convert to `dtype` (canonicalized as JAX does with x64 off); keeps sharding, U and R.
    `copy` has no effect (arrays are immutable); `device` places an eager result, as in JAX."""
    out = _astype(x, dtype)
    return device_put_eager(out, device) if device is not None and current_trace() is None else out


def _astype(x, dtype):
    x = as_operand(x)
    d = dt.canonicalize(dtype)
    if not is_array(x):
        return asarray(np.asarray(x.value if isinstance(x, Const) else x, dtype=d))
    t = type_of(x)
    if t.dtype == d and not t.weak_type:
        return x
    if dt.is_complex(t.dtype) and d == dt.bool_:
        # JAX: convert_element_type(complex, bool) would test the real part only
        return bind(ew.BINARY["ne"], x, Const(np.zeros((), t.dtype), t.dtype, False))
    return bind(ew.convert_element_type, x, new_dtype=d, weak_type=False)


def broadcast_all(args: list) -> list:
    """Every operand broadcast to the common shape and sharding (JAX's `_broadcast_arrays`:
    `lax.broadcast_shardings`, rejecting differently sharded dims)."""
    ts = [type_of(a) for a in args]
    if not ts or all(t.shape == ts[0].shape for t in ts):
        return args
    shape = broadcast_shapes(*[t.shape for t in ts])
    sharding = None
    if get_abstract_mesh().has_explicit:
        try:
            sharding = broadcast_shardings(ts)
        except ShardcError as e:
            raise_user_error(e, ts)
    return [_broadcast_to(a, shape, sharding) for a in args]


@api("sc.where")
def where(condition, x, y):
    """`jnp.where(c, x, y)`. Operands of equal shapes go straight to `select_n`
    (so the cases must be sharded identically). Otherwise every operand (just
    `x` and `y` when the condition is a scalar) is broadcast to the common
    shape and sharding first, which silently shards replicated operands and
    rejects differently sharded ones (JAX's `_broadcast_arrays` quirk)."""
    if getattr(condition, "dtype", None) == dt.float0:   # JAX tests `condition != 0` first
        raise_user_error(dt.float0_error("ne", 0))
    condition = as_operand(condition)
    if is_array(condition):
        condition = astype(condition, dt.bool_)
    else:
        condition = Const(np.asarray(condition, dtype=bool), dt.bool_)
    x, y = promote(x, y)
    scalar_pred = type_of(condition).ndim == 0
    args = [x, y] if scalar_pred else [condition, x, y]
    args = broadcast_all(args)
    if scalar_pred:
        x, y = args
    else:
        condition, x, y = args
    return bind(ew.select_n, condition, y, x)


def _broadcast_to(x, shape: tuple[int, ...], sharding) -> Any:
    """`lax.broadcast_to(x, shape, sharding)`: a no-op when nothing changes; an
    operand dim may only go from unsharded to the requested sharding."""
    t = type_of(x)
    if t.shape == shape and (sharding is None or (t.spec, t.unreduced, t.reduced) == sharding):
        return x
    nlead = len(shape) - t.ndim
    out_sharding = None
    if sharding is not None:
        spec, u, r = sharding
        if not all(a in (None, o) for a, o in zip(t.spec, spec[nlead:])):
            want = t.update(shape=shape, spec=spec, unreduced=u, reduced=r, weak_type=False)
            raise_user_error(ShardcValueError(
                f"Incompatible types for broadcasting: input type={t} and requested "
                f"type={want.str_short(short_dtypes=False)}"), [t])
        out_sharding = PartitionSpec(*spec, unreduced=u, reduced=r)
    return bind(sp.broadcast_in_dim, x, shape=shape, broadcast_dimensions=tuple(range(nlead, len(shape))),
                out_sharding=out_sharding)


select = where
