"""More of `jax.numpy`, each as JAX computes it (the same lax operations in the same order, so
dtypes, weak types, shardings and errors agree): the float decompositions `frexp` / `ldexp` /
`spacing` / `nextafter`, the Bessel function `i0` and the `kaiser` window, `interp`, the index
tricks `r_` / `c_`, `histogramdd` / `histogram2d`, `packbits` / `unpackbits`, `poly` / `polymul` / `polydiv`, and the
host-side constructors `frombuffer` / `fromstring` / `fromiter` (JAX's: NumPy parses, the result
becomes an array; `fromiter` refuses, as JAX does, because consuming an iterator is not pure)."""
from __future__ import annotations

import builtins
import math

import ml_dtypes
import numpy as np

from .. import dtypes as dt
from .. import lax
from ..core import Const, api, raise_user_error
from ..errors import ShardcNotImplementedError, ShardcTypeError, ShardcValueError
from ._util import is_array, promote, type_of
from .construct import diff, ix_, linspace, ravel_multi_index, trim_zeros
from .conv import convolve
from .creation import arange, array, asarray, zeros
from .custom import custom_jvp
from .elementwise import (
    abs,
    add,
    astype,
    bitwise_and,
    clip,
    greater,
    less,
    logical_or,
    multiply,
    power,
    remainder,
    sqrt,
    subtract,
    where,
)
from .math import _const, _inexact, copysign, isinf, isnan, left_shift
from .numpy_linalg import eigvals as _eigvals
from .padding import pad
from .reductions import sum as _sum
from .shape import _arr, concatenate, expand_dims, ravel, reshape, stack, swapaxes, transpose
from .sorting import bincount, histogram_bin_edges, searchsorted, sort_key_val

__all__ = ["frexp", "ldexp", "spacing", "nextafter", "i0", "kaiser", "interp", "r_", "c_", "histogramdd",
           "histogram2d", "packbits", "unpackbits", "poly", "polymul", "polydiv", "frombuffer", "fromstring", "fromiter"]


# --- float decompositions -----------------------------------------------------------------------
_INT_FOR_BITS = {16: dt.int16, 32: dt.int32}


def _info(d):
    return ml_dtypes.finfo(d)


def _normalize_float(x):
    """JAX's `_normalize_float`: subnormals scaled up by 2**nmant, their exponent offset noted."""
    info = _info(type_of(x).dtype)
    int_type = _INT_FOR_BITS[info.bits]
    cond = lax.lt(lax.abs(x), _const(x, info.tiny))
    x1 = where(cond, lax.mul(x, _const(x, 1 << info.nmant)), x)
    x2 = where(cond, Const(np.asarray(-info.nmant, int_type), int_type, False),
               Const(np.asarray(0, int_type), int_type, False))
    return lax.bitcast_convert_type(x1, int_type), x2


def _int_const(x, v):
    d = type_of(x).dtype
    return Const(np.asarray(v).astype(d), d, False)


def _frexp_impl(x):
    info = _info(type_of(x).dtype)
    mask = (1 << info.nexp) - 1
    bias = 1 - info.minexp
    x1, x2 = _normalize_float(x)
    x2 = lax.add(x2, lax.add(lax.sub(lax.bitwise_and(lax.shift_right_arithmetic(x1, _int_const(x1, info.nmant)),
                                                        _int_const(x1, mask)), _int_const(x2, bias)),
                             _int_const(x2, 1)))
    x1 = lax.bitwise_and(x1, _int_const(x1, ~(mask << info.nmant)))
    x1 = lax.bitwise_or(x1, _int_const(x1, (bias - 1) << info.nmant))
    x1 = lax.bitcast_convert_type(x1, type_of(x).dtype)
    cond = logical_or(logical_or(isinf(x), isnan(x)), lax.eq(x, _const(x, 0)))
    x2 = where(cond, lax.zeros_like(x2), x2)
    return where(cond, x, x1), lax.convert_element_type(x2, dt.int32)


@custom_jvp
def _frexp(x):
    return _frexp_impl(x)


def _frexp_jvp(primals, tangents):
    x, = primals
    t, = tangents
    m, e = _frexp(x)
    mdot = lax.mul(t, lax.exp2(lax.neg(astype(e, type_of(t).dtype))))
    return (m, e), (mdot, lax.zeros_like(e))


_frexp.defjvp(_frexp_jvp)


@api("sc.frexp")
def frexp(x, /):
    """Mantissa in [0.5, 1) and int32 exponent with `x == m * 2**e` (JAX's bit manipulation)."""
    x, = _inexact(x)
    if type_of(x).dtype.itemsize * 8 not in _INT_FOR_BITS:
        raise_user_error(ShardcTypeError(f"frexp does not support {type_of(x).dtype.name} inputs"))
    return _frexp(x)


@api("sc.ldexp")
def ldexp(x1, x2, /):
    """`x1 * 2**x2`, via `frexp` so small `x1` and large `x2` do not overflow (as JAX)."""
    x1, x2 = _arr(x1), _arr(x2)
    d1, d2 = type_of(x1).dtype, type_of(x2).dtype
    if d1.kind == "c" or dt.is_float(d2):
        raise_user_error(ShardcValueError(f"ldexp not supported for input types {(d1, d2)}"))
    x1, = _inexact(x1)
    x2 = lax.convert_element_type(x2, type_of(x1).dtype)
    m, e = frexp(x1)
    e = astype(add(astype(e, type_of(x2).dtype), x2), type_of(x1).dtype)
    pos = greater(e, 0)
    m = where(pos, multiply(m, 2), m)
    e = where(pos, subtract(e, 1), e)
    x = multiply(m, power(2, astype(e, type_of(m).dtype)))
    return where(logical_or(isinf(x1), lax.eq(x1, _const(x1, 0))), x1, x)


@api("sc.nextafter")
def nextafter(x, y, /):
    """The next float after `x` toward `y` (`lax.nextafter` on the promoted operands)."""
    return lax.nextafter(*lax.rank_promote(*_inexact(x, y)))   # (promote_args_inexact: ranks too)


@api("sc.spacing")
def spacing(x, /):
    """Distance to the adjacent float away from zero (NumPy's smallest subnormal at a zero gap)."""
    arr, = _inexact(x)
    d = type_of(arr).dtype
    inf = _const(arr, np.inf)
    if d == dt.float16:
        return lax.sub(lax.nextafter(arr, inf), arr)
    result = lax.sub(lax.nextafter(arr, copysign(inf, arr)), arr)
    smallest = float(_info(d).smallest_subnormal)
    return where(lax.eq(result, _const(result, 0)), copysign(smallest, arr), result)


# --- Bessel i0 and the Kaiser window -------------------------------------------------------------
@custom_jvp
def _i0(x):
    a = lax.abs(x)
    return lax.mul(lax.exp(a), lax.bessel_i0e(a))


def _i0_jvp(primals, tangents):
    """JAX's rule: the JVP of `exp(|x|) * i0e(|x|)` op by op, and 0 at x == 0."""
    x, = primals
    t, = tangents
    a = lax.abs(x)
    ta = lax.select(lax.ge(x, _const(x, 0)), t, lax.neg(t))
    ea, ia = lax.exp(a), lax.bessel_i0e(a)
    y = lax.mul(ea, ia)
    ti = lax.mul(ta, lax.sub(lax.bessel_i1e(a), lax.mul(lax.sign(a), ia)))
    out = lax.add(lax.mul(lax.mul(ta, ea), ia), lax.mul(ea, ti))
    return y, where(lax.eq(x, _const(x, 0)), 0.0, out)


_i0.defjvp(_i0_jvp)


@api("sc.i0")
def i0(x):
    """The modified Bessel function of the first kind, order 0 (`exp(|x|) * bessel_i0e(|x|)`)."""
    x_arr, = _inexact(x)
    d = type_of(x_arr).dtype
    if not dt.is_float(d):
        raise_user_error(ShardcValueError(f"Unsupported input type to jax.numpy.i0: {d}"))
    return _i0(x_arr)


@api("sc.kaiser")
def kaiser(M: int, beta):
    """The Kaiser window of `M` points (`i0(beta * sqrt(1 - ((n - alpha) / alpha)**2)) / i0(beta)`)."""
    if is_array(M):
        raise_user_error(ShardcTypeError("M argument of jnp.kaiser must be a concrete integer"))
    M = int(M)
    if M <= 1:
        return lax.full((M,), 1, dt.float32)
    n = lax.iota(dt.float32, M)
    alpha = 0.5 * (M - 1)
    return i0(beta * sqrt(1 - ((n - alpha) / alpha) ** 2)) / i0(beta)


# --- interp --------------------------------------------------------------------------------------
@api("sc.interp")
def interp(x, xp, fp, left=None, right=None, period=None):
    """Piecewise-linear interpolation of (xp, fp) at x (`left`/`right` values or 'extrapolate',
    `period` for periodic xp), JAX's searchsorted-and-gather algorithm."""
    x, xp, fp = _arr(x), _arr(xp), _arr(fp)
    if type_of(xp).shape != type_of(fp).shape or type_of(xp).ndim != 1:
        raise_user_error(ShardcValueError("xp and fp must be one-dimensional arrays of equal size"))
    x_arr, xp_arr = _inexact(x, xp)
    fp_arr, = _inexact(fp)
    extrapolate = []
    for name, v in (("left", left), ("right", right)):
        if isinstance(v, str) and v != "extrapolate":
            raise_user_error(ShardcValueError(f"the only valid string value of `{name}` is 'extrapolate', but got: "
                                              f"{v!r}"))
        extrapolate.append(isinstance(v, str))
    if period is not None:
        if np.ndim(period) != 0 and not (is_array(period) and type_of(period).ndim == 0):
            raise_user_error(ShardcValueError(f"period must be a scalar; got {period}"))
        period = abs(period)
        x_arr = remainder(x_arr, period)
        xp_arr = remainder(xp_arr, period)
        xp_arr, fp_arr = sort_key_val(xp_arr, fp_arr)
        xp_arr = concatenate([xp_arr[-1:] - period, xp_arr, xp_arr[:1] + period])
        fp_arr = concatenate([fp_arr[-1:], fp_arr, fp_arr[:1]])
    n = type_of(xp_arr).shape[0]
    i = clip(searchsorted(xp_arr, x_arr, side="right"), 1, n - 1)
    df = fp_arr[i] - fp_arr[i - 1]
    dx = xp_arr[i] - xp_arr[i - 1]
    delta = x_arr - xp_arr[i - 1]
    epsilon = np.spacing(_info(type_of(xp_arr).dtype).eps)
    dx0 = lax.abs(dx) <= epsilon
    f = where(dx0, fp_arr[i - 1], fp_arr[i - 1] + (delta / where(dx0, 1, dx)) * df)
    if not extrapolate[0]:
        left_arr = fp_arr[0] if left is None else left
        if period is None:
            f = where(less(x_arr, xp_arr[0]), left_arr, f)
    if not extrapolate[1]:
        right_arr = fp_arr[-1] if right is None else right
        if period is None:
            f = where(greater(x_arr, xp_arr[-1]), right_arr, f)
    return f


# --- r_ / c_ --------------------------------------------------------------------------------------
def _grid_from_slice(s: slice, op_name: str):
    vals = (s.start, s.stop, s.step)
    if builtins.any(is_array(v) for v in vals):
        raise_user_error(ShardcTypeError(f"slice bounds of jnp.{op_name} must be concrete values, not traced ones"))
    start, stop, step = s.start or 0, s.stop, s.step or 1
    if np.iscomplex(step):
        return linspace(start, stop, int(builtins.abs(step)))
    return arange(start, stop, step)


class _AxisConcat:
    """JAX's `_AxisConcat`: slices, scalars and arrays concatenated along `axis`, with NumPy's
    string directives ('r', 'c', 'axis,ndmin,trans1d')."""
    axis: int
    ndmin: int
    trans1d: int
    op_name: str

    def __getitem__(self, key):
        key_tup = key if isinstance(key, tuple) else (key,)
        params = [self.axis, self.ndmin, self.trans1d, -1]
        directive = key_tup[0]
        if isinstance(directive, str):
            key_tup = key_tup[1:]
            if directive == "r":
                params[-1] = 0
            elif directive == "c":
                params[-1] = 1
            else:
                vec: list = directive.split(",")
                k = len(vec)
                vec = vec + params[k:] if k < 4 else vec[:3] + [params[-1]]
                try:
                    params = list(map(int, vec))
                except ValueError:
                    raise_user_error(ShardcValueError(f"could not understand directive {directive!r}"))
        axis, ndmin, trans1d, matrix = params
        output = []
        for item in key_tup:
            if isinstance(item, slice):
                newobj = _grid_from_slice(item, self.op_name)
                item_ndim = 0
            elif isinstance(item, str):
                raise_user_error(ShardcValueError("string directive must be placed at the beginning"))
            else:
                newobj = array(item, copy=False)
                item_ndim = type_of(newobj).ndim
            newobj = array(newobj, copy=False, ndmin=ndmin)
            if trans1d != -1 and ndmin - item_ndim > 0:
                shape_obj = tuple(range(ndmin))
                num_lshifts = ndmin - builtins.abs(ndmin + trans1d + 1) % ndmin
                newobj = transpose(newobj, shape_obj[num_lshifts:] + shape_obj[:num_lshifts])
            output.append(newobj)
        res = concatenate(tuple(output), axis=axis)
        if matrix != -1 and type_of(res).ndim == 1:
            res = expand_dims(res, matrix)
        return res

    def __len__(self) -> int:
        return 0


class RClass(_AxisConcat):
    """`jnp.r_`: concatenation along the first axis."""
    axis, ndmin, trans1d, op_name = 0, 1, -1, "r_"


class CClass(_AxisConcat):
    """`jnp.c_`: concatenation along the last axis, 1-D items as columns."""
    axis, ndmin, trans1d, op_name = -1, 2, 0, "c_"


r_ = RClass()
c_ = CClass()


# --- histograms ------------------------------------------------------------------------------------
@api("sc.histogramdd")
def histogramdd(sample, bins=10, range=None, weights=None, density=None):  # noqa: A002  (NumPy's name)
    """Counts of (N, D) samples in a D-dimensional grid of bins: per-dim `searchsorted` into the
    edges, `ravel_multi_index`, one `bincount` (JAX's algorithm)."""
    if weights is None:
        sample, = _inexact(_arr(sample))
    else:
        sample, weights = _arr(sample), _arr(weights)
        if type_of(weights).shape != type_of(sample).shape[:1]:
            raise_user_error(ShardcValueError("should have one weight for each sample."))
        sample, weights = _promote_inexact(sample, weights)
    shp = type_of(sample).shape
    if len(shp) != 2:
        raise_user_error(ShardcValueError(f"not enough values to unpack (expected 2, got {len(shp)})"))
    N, D = shp
    if range is not None and (len(range) != D or builtins.any(r is not None and np.shape(r)[0] != 2
                                                               for r in range)):
        raise_user_error(ShardcValueError(f"For sample.shape={(N, D)}, range must be a sequence of {D} pairs or "
                                          f"Nones; got {range=}"))
    try:
        bins_per_dimension = list(bins)
    except TypeError:
        bins_per_dimension = D * [bins]
    else:
        if len(bins_per_dimension) != D:
            raise_user_error(ShardcValueError("should be a bin for each dimension."))
    bin_idx_by_dim, bin_edges_by_dim = [], []
    for i in builtins.range(D):
        range_i = None if range is None else range[i]
        col = sample[:, i]
        bin_edges = histogram_bin_edges(col, bins_per_dimension[i], range_i, weights)
        bin_idx = searchsorted(bin_edges, col, side="right")
        bin_idx = where(lax.eq(*promote(col, bin_edges[-1])), bin_idx - 1, bin_idx)
        bin_idx_by_dim.append(bin_idx)
        bin_edges_by_dim.append(bin_edges)
    nbins = tuple(type_of(e).shape[0] + 1 for e in bin_edges_by_dim)
    dedges = [diff(e) for e in bin_edges_by_dim]
    xy = ravel_multi_index(tuple(bin_idx_by_dim), nbins, mode="clip")
    hist = bincount(xy, weights, length=math.prod(nbins))
    hist = reshape(hist, nbins)
    hist = hist[D * (slice(1, -1),)]
    if density:
        hist = astype(hist, type_of(sample).dtype)
        hist = hist / _sum(hist)
        for norm in ix_(*dedges):
            hist = hist / norm
    return hist, bin_edges_by_dim


def _promote_inexact(*xs):
    """`promote_dtypes_inexact`: one common dtype, then ints and bools to float."""
    return _inexact(*xs)


@api("sc.histogram2d")
def histogram2d(x, y, bins=10, range=None, weights=None, density=None):  # noqa: A002  (NumPy's name)
    """`histogramdd` of the (x, y) pairs; returns (hist, x_edges, y_edges)."""
    x, y = _arr(x), _arr(y)
    try:
        N = len(bins)
    except TypeError:
        N = 1
    if N != 1 and N != 2:
        x_edges = y_edges = asarray(bins)
        bins = [x_edges, y_edges]
    sample = transpose(stack(promote(x, y)))
    hist, edges = histogramdd(sample, bins, range, weights, density)
    return hist, edges[0], edges[1]


# --- packbits / unpackbits ---------------------------------------------------------------------------
def _check_bitorder(bitorder: str) -> None:
    if bitorder not in ("little", "big"):
        raise_user_error(ShardcValueError("'order' must be either 'little' or 'big'"))


@api("sc.packbits")
def packbits(a, axis: int | None = None, bitorder: str = "big"):
    """Booleans (nonzero elements) packed 8 to a uint8 along `axis` (flattened when None)."""
    arr = _arr(a)
    d = type_of(arr).dtype
    if not (dt.is_int(d) or d == dt.bool_):
        raise_user_error(ShardcTypeError("Expected an input array of integer or boolean data type"))
    _check_bitorder(bitorder)
    arr = astype(lax.ne(arr, _const(arr, 0)), dt.uint8)
    bits = arange(8, dtype=dt.uint8)
    if bitorder == "big":
        bits = bits[::-1]
    if axis is None:
        arr = ravel(arr)
        axis = 0
    arr = swapaxes(arr, axis, -1)
    t = type_of(arr)
    rem = t.shape[-1] % 8
    if rem:
        arr = lax.pad(arr, np.uint8(0), (t.ndim - 1) * [(0, 0, 0)] + [(0, 8 - rem, 0)])
        t = type_of(arr)
    arr = reshape(arr, t.shape[:-1] + (t.shape[-1] // 8, 8))
    bits = expand_dims(bits, tuple(builtins.range(type_of(arr).ndim - 1)))
    packed = astype(_sum(left_shift(arr, bits), -1), dt.uint8)
    return swapaxes(packed, axis, -1)


@api("sc.unpackbits")
def unpackbits(a, axis: int | None = None, count: int | None = None, bitorder: str = "big"):
    """Each uint8 unpacked into 8 bits (uint8 0/1) along `axis`; `count` keeps (or zero-pads to)
    that many bits."""
    arr = _arr(a)
    if type_of(arr).dtype != dt.uint8:
        raise_user_error(ShardcTypeError("Expected an input array of unsigned byte data type"))
    _check_bitorder(bitorder)
    bits = left_shift(asarray(1), arange(8, dtype=dt.uint8))
    if bitorder == "big":
        bits = bits[::-1]
    if axis is None:
        arr = ravel(arr)
        axis = 0
    arr = swapaxes(arr, axis, -1)
    nd = type_of(arr).ndim
    unpacked = astype(greater(bitwise_and(expand_dims(arr, -1), expand_dims(bits, tuple(builtins.range(nd)))), 0), dt.uint8)
    shp = type_of(unpacked).shape
    unpacked = reshape(unpacked, shp[:-2] + (-1,))
    if count is not None:
        n = type_of(unpacked).shape[-1]
        if count > n:
            unpacked = pad(unpacked, [(0, 0)] * (type_of(unpacked).ndim - 1) + [(0, count - n)])
        else:
            unpacked = unpacked[..., :count]
    return swapaxes(unpacked, axis, -1)


# --- poly / polymul / polydiv -------------------------------------------------------------------------
@api("sc.poly")
def poly(seq_of_zeros):
    """Coefficients of the monic polynomial with the given roots: one `convolve` per root (JAX's
    loop); a square matrix's characteristic polynomial from its eigenvalues (`linalg.eigvals`)."""
    z, = _inexact(_arr(seq_of_zeros))
    t = type_of(z)
    if t.ndim == 0:
        z = reshape(z, (1,))
        t = type_of(z)
    if t.ndim == 2 and t.shape[0] == t.shape[1] and t.shape[0] != 0:
        z = _eigvals(z)   # the characteristic polynomial, as JAX
        t = type_of(z)
    if t.ndim != 1:
        raise_user_error(ShardcValueError("input must be 1d or non-empty square 2d array."))
    d = t.dtype
    if t.shape[0] == 0:
        return lax.full((), 1, d)
    a = lax.full((1,), 1, d)
    one = lax.full((1,), 1, d)
    for k in builtins.range(t.shape[0]):
        a = convolve(a, concatenate([one, -z[k:k + 1]]), mode="full")
    return a


@api("sc.polymul")
def polymul(a1, a2, *, trim_leading_zeros: bool = False):
    """The product polynomial: `convolve(a1, a2, mode='full')` (empty operands count as [0])."""
    a1_arr, a2_arr = _inexact(_arr(a1), _arr(a2))
    n1, n2 = type_of(a1_arr).shape[0], type_of(a2_arr).shape[0]
    if trim_leading_zeros and (n1 > 1 or n2 > 1):
        a1_arr, a2_arr = trim_zeros(a1_arr, trim="f"), trim_zeros(a2_arr, trim="f")
    if type_of(a1_arr).shape[0] == 0:
        a1_arr = zeros(1, dtype=type_of(a2_arr).dtype)
    if type_of(a2_arr).shape[0] == 0:
        a2_arr = zeros(1, dtype=type_of(a1_arr).dtype)
    return convolve(a1_arr, a2_arr, mode="full")


# --- polydiv -------------------------------------------------------------------------------------------
@api("sc.polydiv")
def polydiv(u, v, *, trim_leading_zeros: bool = False):
    """Quotient and remainder of polynomial division, JAX's loop of `.at[].set` / `.at[].add`."""
    u_arr, v_arr = _inexact(_arr(u), _arr(v))
    m = type_of(u_arr).shape[0] - 1
    n = type_of(v_arr).shape[0] - 1
    scale = 1. / v_arr[0]
    q = zeros(builtins.max(m - n + 1, 1), dtype=type_of(u_arr).dtype)
    for k in builtins.range(0, m - n + 1):
        d = scale * u_arr[k]
        q = q.at[k].set(d)
        u_arr = u_arr.at[k:k + n + 1].add(-d * v_arr)
    if trim_leading_zeros:
        raise_user_error(ShardcNotImplementedError(
            "polydiv(trim_leading_zeros=True) trims to a data-dependent length; JAX does it on concrete "
            "values only, shardc not yet"))
    return q, u_arr


# --- host-side constructors ------------------------------------------------------------------------------
def frombuffer(buffer, dtype=float, count: int = -1, offset: int = 0):
    """`np.frombuffer` on the host, then `asarray` (as JAX)."""
    return asarray(np.frombuffer(buffer=buffer, dtype=dtype, count=count, offset=offset))


def fromstring(string: str, dtype=float, count: int = -1, *, sep: str):
    """`np.fromstring` on the host, then `asarray` (as JAX)."""
    return asarray(np.fromstring(string=string, dtype=dtype, count=count, sep=sep))


def fromiter(*args, **kwargs):
    """Refused, as JAX refuses it: consuming an iterator is not pure."""
    raise ShardcNotImplementedError(
        "jnp.fromiter() is not implemented because it may be non-pure and thus unsafe for use "
        "with JIT and other JAX transformations. Consider using jnp.asarray(np.fromiter(...)) "
        "instead, although care should be taken if np.fromiter is used within a jax transformations "
        "because of its potential side-effect of consuming the iterable object; for more information see "
        "https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#pure-functions")
