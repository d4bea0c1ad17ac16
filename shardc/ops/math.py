"""Elementwise math of `jax.numpy` that composes shardc's primitives: inverse trig and
hyperbolic functions, logs and exponentials in other bases, rounding, NaN/inf tests,
`hypot`, `logaddexp`, `fmax`/`fmin`/`fmod`, `copysign`, `sinc`, `nan_to_num`, `divmod`,
`modf`, `gcd`/`lcm`, `isclose` and friends. Each follows `jax.numpy`'s algorithm (the
same lax ops in the same order), so dtypes, weak types, shardings and values agree."""
from __future__ import annotations

import ml_dtypes
import numpy as np

from .. import dtypes as dt
from .. import lax
from ..core import Const, Tracer, api, bind, raise_user_error
from ..errors import ShardcTypeError, ShardcValueError
from ..primitives import elementwise as ew
from ..primitives import sort as _so
from ._util import as_operand, is_array, promote, promote_to_float, type_of
from .control_flow import while_loop
from .creation import asarray, full_like
from .elementwise import (
    _binary,
    _float_divmod,
    _make_unary,
    abs,
    add,
    arctan2,
    astype,
    broadcast_all,
    ceil,
    equal,
    floor,
    floor_divide,
    greater,
    invert,
    isfinite,
    less,
    logical_and,
    logical_or,
    maximum,
    minimum,
    multiply,
    not_equal,
    power,
    promote_numeric,
    remainder,
    round,
    sqrt,
    square,
    subtract,
    where,
)
from .reductions import all as _all
from .reductions import any as _any

__all__ = [
    "acos", "acosh", "allclose", "angle", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh",
    "around", "array_equal", "array_equiv", "asin", "asinh", "atan", "atan2", "atanh", "bitwise_count",
    "bitwise_invert", "bitwise_left_shift", "bitwise_right_shift", "broadcast_arrays", "conj", "conjugate",
    "copysign", "cosh", "deg2rad", "degrees", "divmod", "exp2", "fabs", "float_power", "fmax", "fmin", "fmod",
    "gcd", "heaviside", "hypot", "imag", "iscomplex", "sort_complex", "iscomplexobj", "isclose", "isinf", "isnan", "isneginf",
    "isposinf", "isreal", "isrealobj", "isscalar", "lcm", "left_shift", "log10", "log2", "logaddexp",
    "logaddexp2", "logical_xor", "modf", "nan_to_num", "positive", "pow", "rad2deg", "radians", "real",
    "right_shift", "rint", "signbit", "sinc", "sinh", "trunc",
]

pow = power
bitwise_invert = invert
arcsin = asin = _make_unary("asin", "arcsin")
arccos = acos = _make_unary("acos", "arccos")
arctan = atan = _make_unary("atan", "arctan")
sinh = _make_unary("sinh", "sinh")
cosh = _make_unary("cosh", "cosh")
arcsinh = asinh = _make_unary("asinh", "arcsinh")
arccosh = acosh = _make_unary("acosh", "arccosh")
arctanh = atanh = _make_unary("atanh", "arctanh")


def _arr(x):
    x = as_operand(x)
    return x if is_array(x) else asarray(x)


def _inexact(*xs):
    """`promote_args_inexact`: a common dtype, then integers and bools become float32 (weak
    operands stay weak)."""
    xs = promote(*[as_operand(x) for x in xs])
    return [_arr(promote_to_float(x)) for x in xs]


def _const(x, v):
    """`_lax_const(x, v)`: a strong scalar of `x`'s dtype."""
    d = type_of(x).dtype
    return Const(np.asarray(v, dtype=d), d, False)


def _is_float(x) -> bool:
    return dt.is_float(type_of(x).dtype)


def _int_or_bool(x) -> bool:
    d = type_of(x).dtype
    return d == dt.bool_ or dt.is_int(d)


@api("sc.atan2")
def atan2(x1, x2, /):
    """`jnp.atan2`, the array-API name of `arctan2`."""
    return arctan2(x1, x2)


@api("sc.log2")
def log2(x, /):
    x, = _inexact(x)
    return lax.div(lax.log(x), lax.log(_const(x, 2)))


@api("sc.log10")
def log10(x, /):
    x, = _inexact(x)
    return lax.mul(lax.log(x), _const(x, 0.4342944819032518))


@api("sc.exp2")
def exp2(x, /):
    x, = _inexact(x)
    return lax.exp2(x)


@api("sc.deg2rad")
def deg2rad(x, /):
    x, = _inexact(x)
    return lax.mul(x, _const(x, np.pi / 180))


@api("sc.rad2deg")
def rad2deg(x, /):
    x, = _inexact(x)
    return lax.mul(x, _const(x, 180 / np.pi))


radians, degrees = deg2rad, rad2deg


@api("sc.fabs")
def fabs(x, /):
    x, = _inexact(x)
    return bind(ew.UNARY["abs"], x)


@api("sc.trunc")
def trunc(x):
    """Round toward zero; integers and bools are returned unchanged."""
    x = _arr(x)
    if _int_or_bool(x):
        return x
    return where(lax.lt(x, _const(x, 0)), ceil(x), floor(x))


@api("sc.rint")
def rint(x, /):
    """Round half to even; integers and bools become float32."""
    x = _arr(x)
    if _int_or_bool(x):
        return lax.convert_element_type(x, dt.float32)
    return bind(ew.UNARY["round"], x)


@api("sc.around")
def around(a, decimals: int = 0, out=None):
    if out is not None:
        raise ShardcValueError("The 'out' argument to jnp.around is not supported.")
    return round(a, decimals)


@api("sc.isnan")
def isnan(x, /):
    x = _arr(x)
    return bind(ew.BINARY["ne"], x, x)


def _false_like(x):
    return full_like(x, False, dtype=dt.bool_)


@api("sc.isinf")
def isinf(x, /):
    x = _arr(x)
    if _is_float(x):
        return lax.eq(bind(ew.UNARY["abs"], x), _const(x, np.inf))
    if _is_complex(x):
        return lax.bitwise_or(isinf(lax.real(x)), isinf(lax.imag(x)))
    return _false_like(x)


def _isposneginf(infinity: float, x, out):
    if out is not None:
        raise ShardcValueError("The 'out' argument to isneginf/isposinf is not supported.")
    x = _arr(x)
    if _is_float(x):
        return lax.eq(x, _const(x, infinity))
    return _false_like(x)


@api("sc.isposinf")
def isposinf(x, /, out=None):
    return _isposneginf(np.inf, x, out)


@api("sc.isneginf")
def isneginf(x, /, out=None):
    return _isposneginf(-np.inf, x, out)


_INT_FOR_BITS = {16: dt.int16, 32: dt.int32}


@api("sc.signbit")
def signbit(x, /):
    """The sign bit (set for -0.0 and negative NaNs too): the float's bits as an integer,
    shifted right to the sign, as JAX computes it."""
    x, = promote(_arr(x))
    x = _arr(x)
    d = type_of(x).dtype
    if dt.is_int(d):
        return lax.lt(x, _const(x, 0))
    if d == dt.bool_:
        return _false_like(x)
    bits = np.dtype(d).itemsize * 8
    if bits not in _INT_FOR_BITS:
        raise ShardcTypeError("jax.numpy.signbit only supports 16, 32, and 64-bit types.")
    i = lax.bitcast_convert_type(x, _INT_FOR_BITS[bits])
    shift = Const(np.asarray(bits - 1, _INT_FOR_BITS[bits]), _INT_FOR_BITS[bits], False)
    return lax.convert_element_type(lax.shift_right_arithmetic(i, shift), dt.bool_)


@api("sc.copysign")
def copysign(x1, x2, /):
    x1, x2 = lax.rank_promote(*_inexact(x1, x2))   # (JAX's promote_args_inexact: rank promotion checked)
    a = bind(ew.UNARY["abs"], x1)
    return where(signbit(x2), bind(ew.UNARY["neg"], a), a)


@api("sc.hypot")
def hypot(x1, x2, /):
    """`sqrt(x1**2 + x2**2)` without overflow: the larger magnitude times `sqrt(1 + r**2)`."""
    x1, x2 = _inexact(x1, x2)
    x1, x2 = bind(ew.UNARY["abs"], x1), bind(ew.UNARY["abs"], x2)
    idx_inf = logical_or(isposinf(x1), isposinf(x2))
    x1, x2 = maximum(x1, x2), minimum(x1, x2)
    x = where(equal(x1, 0), x1, multiply(x1, sqrt(add(1, square(lax.div(
        x2, where(equal(x1, 0), full_like(x1, 1), x1)))))))
    return where(idx_inf, _const(x, np.inf), x)


def _wrap_between(x, a: float):
    """`x` wrapped into [-a, a] (JAX's `_wrap_between`)."""
    rem = lax.rem(lax.add(x, _const(x, a)), _const(x, 2 * a))
    rem = lax.select(lax.lt(rem, _const(x, 0)), lax.add(rem, _const(x, 2 * a)), rem)
    return lax.sub(rem, _const(x, a))


def _logaddexp_complex(x1, x2, base2: bool):
    """JAX's complex branch: `amax + log1p(exp(x1 + x2 - 2 amax))`, the phase wrapped to (-pi, pi]."""
    amax = lax.max(x1, x2)
    delta = lax.sub(lax.add(x1, x2), lax.mul(amax, _const(amax, 2)))
    if base2:
        out = lax.add(amax, lax.mul(_const(amax, 1 / np.log(2)), lax.log1p(lax.exp2(delta))))
    else:
        out = lax.add(amax, lax.log1p(lax.exp(delta)))
    return lax.complex(lax.real(out), _wrap_between(lax.imag(out), np.pi / np.log(2) if base2 else np.pi))


def _logaddexp(x1, x2, base2: bool):
    if _is_complex(x1):
        return _logaddexp_complex(x1, x2, base2)
    amax = lax.max(x1, x2)
    delta = lax.sub(x1, x2)
    if base2:
        tail = lax.mul(_const(amax, 1 / np.log(2)), lax.log1p(lax.exp2(lax.neg(lax.abs(delta)))))
    else:
        tail = lax.log1p(lax.exp(lax.neg(lax.abs(delta))))
    return lax.select(isnan(delta), lax.add(x1, x2), lax.add(amax, tail))


@api("sc.logaddexp")
def logaddexp(x1, x2, /):
    """`log(exp(x1) + exp(x2))`, stable (NaN where the difference is NaN)."""
    x1, x2 = _inexact(x1, x2)
    x1, x2 = _broadcast_pair(x1, x2)
    return _logaddexp(x1, x2, False)


@api("sc.logaddexp2")
def logaddexp2(x1, x2, /):
    x1, x2 = _inexact(x1, x2)
    x1, x2 = _broadcast_pair(x1, x2)
    return _logaddexp(x1, x2, True)


def _broadcast_pair(x1, x2):
    """Operands of one rank (lax ops broadcast size-1 dims and scalars, not ranks)."""
    return lax.rank_promote(x1, x2)


@api("sc.fmax")
def fmax(x1, x2):
    """Maximum ignoring NaNs (a NaN loses to a number)."""
    return where(logical_or(greater(x1, x2), isnan(x2)), x1, x2)


@api("sc.fmin")
def fmin(x1, x2):
    return where(logical_or(less(x1, x2), isnan(x2)), x1, x2)


@api("sc.fmod")
def fmod(x1, x2, /):
    """C's `fmod` (the result takes the dividend's sign); integer division by zero gives 0's
    divisor of one, as JAX."""
    x1, x2 = _arr(x1), _arr(x2)
    if dt.is_int(type_of(promote(x1, x2)[0]).dtype):
        x2 = where(equal(x2, 0), full_like(x2, 1), x2)
    a, b = lax.rank_promote(*promote_numeric(x1, x2))
    return _binary("rem", a, b)


@api("sc.heaviside")
def heaviside(x1, x2, /):
    x1, x2 = _inexact(x1, x2)
    zero = _const(x1, 0)
    return where(lax.lt(x1, zero), zero, where(lax.gt(x1, zero), _const(x1, 1), where(isnan(x1), x1, x2)))


@api("sc.sinc")
def sinc(x, /):
    """`sin(pi x) / (pi x)`, 1 at 0."""
    x, = _inexact(x)
    eq_zero = lax.eq(x, _const(x, 0))
    pi_x = lax.mul(_const(x, np.pi), x)
    safe_pi_x = where(eq_zero, _const(x, 1), pi_x)
    at_zero = add(multiply(pi_x, 0), _const(pi_x, 1.0))
    return where(eq_zero, at_zero, lax.div(lax.sin(safe_pi_x), safe_pi_x))


@api("sc.nan_to_num")
def nan_to_num(x, copy: bool = True, nan=0.0, posinf=None, neginf=None):
    """NaN to `nan`, infinities to `posinf`/`neginf` (default: the dtype's largest finite values)."""
    x = _arr(x)
    d = type_of(x).dtype
    if not dt.is_float(d):
        return x
    info = ml_dtypes.finfo(d)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    out = where(isnan(x), asarray(nan, dtype=d), x)
    out = where(isposinf(out), asarray(posinf, dtype=d), out)
    return where(isneginf(out), asarray(neginf, dtype=d), out)


@api("sc.float_power")
def float_power(x, y, /):
    x, y = _inexact(x, y)
    return _binary("pow", *lax.rank_promote(x, y))


@api("sc.positive")
def positive(x, /):
    x, = promote(as_operand(x))
    return _arr(x)


@api("sc.logical_xor")
def logical_xor(x, y, /):
    x, y = promote(as_operand(x), as_operand(y))
    return _binary("xor", astype(x, dt.bool_), astype(y, dt.bool_))


@api("sc.divmod")
def divmod(x1, x2, /):
    """`(x1 // x2, x1 % x2)` (floats: one shared computation, as JAX's `_float_divmod`)."""
    x1, x2 = promote_numeric(x1, x2)
    if dt.is_int(type_of(x1).dtype):
        return floor_divide(x1, x2), remainder(x1, x2)
    return _float_divmod(*lax.rank_promote(x1, x2))


@api("sc.modf")
def modf(x, /, out=None):
    """(fractional part, integral part), both with `x`'s sign."""
    if out is not None:
        raise ShardcValueError("The 'out' argument to jnp.modf is not supported.")
    x, = _inexact(x)
    whole = where(lax.ge(x, _const(x, 0)), floor(x), ceil(x))
    return subtract(x, whole), whole


def _gcd_cond(xs):
    return _any(not_equal(xs[1], 0))


def _gcd_body(xs):
    x1, x2 = xs
    nz = not_equal(x2, 0)
    x1, x2 = (where(nz, x2, x1), where(nz, _binary("rem", x1, where(nz, x2, full_like(x2, 1))), _const(x2, 0)))
    lt = less(x1, x2)
    return where(lt, x2, x1), where(lt, x1, x2)


def _int_pair(name: str, x1, x2):
    x1, x2 = promote(as_operand(x1), as_operand(x2))
    x1, x2 = _arr(x1), _arr(x2)
    if not dt.is_int(type_of(x1).dtype):
        raise ShardcValueError(f"Arguments to jax.numpy.{name} must be integers.")
    return broadcast_arrays(x1, x2)


@api("sc.gcd")
def gcd(x1, x2):
    """Euclid's algorithm in a `while_loop` over the whole arrays (as JAX)."""
    x1, x2 = _int_pair("gcd", x1, x2)
    g, _ = while_loop(_gcd_cond, _gcd_body, (abs(x1), abs(x2)))
    return g


@api("sc.lcm")
def lcm(x1, x2):
    x1, x2 = promote(as_operand(x1), as_operand(x2))
    x1, x2 = abs(_arr(x1)), abs(_arr(x2))
    if not dt.is_int(type_of(x1).dtype):
        raise ShardcValueError("Arguments to jax.numpy.lcm must be integers.")
    d = gcd(x1, x2)
    return where(equal(d, 0), _const(d, 0), multiply(x1, floor_divide(x2, d)))


@api("sc.isclose")
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan: bool = False):
    a, b = _inexact(a, b)
    d = type_of(a).dtype
    rtol = lax.convert_element_type(rtol, d)
    atol = lax.convert_element_type(atol, d)
    both_nan = logical_and(isnan(a), isnan(b))
    check_fin = isfinite(b)
    a, b = lax.rank_promote(a, b)
    in_range = lax.le(lax.abs(lax.sub(a, b)), lax.add(atol, lax.mul(rtol, lax.abs(b))))
    out = logical_or(lax.eq(a, b), logical_and(check_fin, in_range))
    return logical_or(out, both_nan) if equal_nan else out


@api("sc.allclose")
def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan: bool = False):
    return _all(isclose(a, b, rtol, atol, equal_nan))


@api("sc.array_equal")
def array_equal(a1, a2, equal_nan: bool = False):
    a1, a2 = _arr(a1), _arr(a2)
    if type_of(a1).shape != type_of(a2).shape:
        return asarray(np.asarray(False))
    eq = equal(a1, a2)
    if equal_nan:
        eq = logical_or(eq, logical_and(isnan(a1), isnan(a2)))
    return _all(eq)


@api("sc.array_equiv")
def array_equiv(a1, a2):
    a1, a2 = _arr(a1), _arr(a2)
    try:
        np.broadcast_shapes(type_of(a1).shape, type_of(a2).shape)
    except ValueError:
        return asarray(np.asarray(False))
    return _all(equal(a1, a2))


@api("sc.broadcast_arrays")
def broadcast_arrays(*args) -> list:
    """Every operand broadcast to the common shape and sharding (`_broadcast_arrays`)."""
    return broadcast_all([_arr(a) for a in args])



# --- complex parts (JAX's `ufuncs.real` / `imag` / `conjugate`: real arrays pass through) ----------
def _is_complex(x) -> bool:
    return type_of(x).dtype.kind == "c"


@api("sc.real")
def real(val, /):
    """The real part: `lax.real` of a complex array, the array itself otherwise."""
    val = _arr(val)
    return lax.real(val) if _is_complex(val) else val


@api("sc.imag")
def imag(val, /):
    """The imaginary part: `lax.imag` of a complex array, zeros of a real one."""
    val = _arr(val)
    return lax.imag(val) if _is_complex(val) else full_like(val, 0)


@api("sc.conjugate")
def conjugate(x, /):
    """The complex conjugate (`lax.conj`); a real array is returned as it is."""
    x = _arr(x)
    return lax.conj(x) if _is_complex(x) else x


conj = conjugate


@api("sc.iscomplex")
def iscomplex(x):
    i = imag(x)
    return lax.ne(i, _const(i, 0))


@api("sc.isreal")
def isreal(x):
    i = imag(x)
    return lax.eq(i, _const(i, 0))


@api("sc.angle")
def angle(z, deg: bool = False):
    """The argument of `z`, `atan2(imag(z), real(z))`, in degrees with `deg` (JAX's `jnp.angle`:
    non-float real parts, and float rank-0 inputs, are computed in float32)."""
    zt = type_of(_arr(z))
    z, = _inexact(z)
    re, im = real(z), imag(z)
    d = type_of(re).dtype
    if not dt.is_float(d) or (dt.is_float(zt.dtype) and zt.ndim == 0):
        re, im = lax.convert_element_type(re, dt.float32), lax.convert_element_type(im, dt.float32)
    r = lax.atan2(im, re)
    return rad2deg(r) if deg else r


@api("jnp.sort_complex")
def sort_complex(a):
    """Sorted along the last axis (complex numbers by real part, then imaginary part), as a
    complex array (`jnp.sort_complex`: `lax.sort`, then a conversion to complex)."""
    a = _arr(a)
    t = type_of(a)
    if t.ndim == 0:
        raise_user_error(ShardcTypeError("sort_complex requires an array of rank >= 1 (lax.sort of a scalar)"))
    a = bind(_so.sort, a, dimension=t.ndim - 1, is_stable=True, num_keys=1)[0]
    return lax.convert_element_type(a, dt.complex_dtype(t.dtype))


def _numeric_pair(x, y):
    """`promote_args_numeric`: one dtype (bools as int32), one rank."""
    x, y = promote_numeric(as_operand(x), as_operand(y))
    return lax.rank_promote(_arr(x), _arr(y))


@api("sc.left_shift")
def left_shift(x, y, /):
    """`x << y` after promotion (`lax.shift_left`)."""
    return lax.shift_left(*_numeric_pair(x, y))


@api("sc.right_shift")
def right_shift(x1, x2, /):
    """`x1 >> x2` after promotion: logical for unsigned integers, arithmetic otherwise."""
    x1, x2 = _numeric_pair(x1, x2)
    d = type_of(x1).dtype
    fn = lax.shift_right_logical if dt.is_int(d) and not dt.is_signed(d) else lax.shift_right_arithmetic
    return fn(x1, x2)


bitwise_left_shift, bitwise_right_shift = left_shift, right_shift


@api("sc.bitwise_count")
def bitwise_count(x, /):
    """The number of set bits of |x|, as uint8."""
    x, = promote_numeric(as_operand(x))
    return lax.convert_element_type(lax.population_count(abs(_arr(x))), dt.uint8)


def iscomplexobj(x) -> bool:
    """Whether `x` has a complex dtype (a Python check, as `jnp.iscomplexobj`)."""
    if isinstance(x, (complex, np.complexfloating)):
        return True
    if x is None or isinstance(x, (bool, int, float, str, np.generic)):
        return False
    d = getattr(x, "dtype", None)
    return np.dtype(d if d is not None else np.asarray(x).dtype).kind == "c"


def isrealobj(x) -> bool:
    return not iscomplexobj(x)


def isscalar(element) -> bool:
    """`jnp.isscalar`: Python/NumPy scalars and rank-0 arrays (traced ones included)."""
    if np.isscalar(element):
        return True
    if isinstance(element, (np.ndarray, Tracer)) or is_array(element):
        return type_of(element).ndim == 0 if not isinstance(element, np.ndarray) else element.ndim == 0
    return False



# --- jnp.select ----------------------------------------------------------------------------------
@api("jnp.select")
def select(condlist, choicelist, default=0):
    """`jnp.select`: at each position the choice of the first true condition, else `default`.
    JAX computes it with `argmax` of the stacked conditions and an n-way `select_n`; shardc's
    `select_n` is two-way, so this is the nested `where` JAX documents as equivalent (the same
    values, promotion and broadcast). Not exported as `sc.select`, the two-way `where`."""
    if len(condlist) != len(choicelist):
        raise_user_error(ShardcValueError(
            f"condlist must have length equal to choicelist ({len(condlist)} vs {len(choicelist)})"))
    if len(condlist) == 0:
        raise_user_error(ShardcValueError("condlist must be non-empty"))
    conds = [astype(asarray(c), dt.bool_) for c in condlist]
    default, *choices = promote(asarray(default), *[asarray(c) for c in choicelist])
    out = default
    for cond, choice in zip(reversed(conds), reversed(choices)):
        out = where(cond, choice, out)
    return out
