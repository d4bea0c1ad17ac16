"""Window functions, polynomials and `trapezoid` of `jax.numpy`, computed as JAX does (the
same elementwise formulas over an `iota`; `polyval` as a scan of Horner steps)."""
from __future__ import annotations

import operator

import ml_dtypes
import numpy as np

from .. import dtypes as dt
from .. import lax
from ..core import Tracer, api
from ..errors import ShardcTypeError, ShardcValueError
from ._util import is_array, normalize_axis, promote, type_of
from .construct import atleast_1d, atleast_2d, diag, diff, roll
from .control_flow import scan
from .creation import arange, asarray, full, zeros_like
from .elementwise import abs as _abs
from .elementwise import (
    add,
    astype,
    clip,
    cos,
    equal,
    floor_divide,
    greater,
    greater_equal,
    less,
    logical_and,
    maximum,
    multiply,
    negative,
    power,
    remainder,
    sqrt,
    subtract,
    true_divide,
    where,
)
from .linalg import dot
from .math import _inexact
from .nan_reductions import average
from .numpy_linalg import eigvals as _eigvals
from .numpy_linalg import inv as _inv
from .numpy_linalg import lstsq as _lstsq
from .reductions import all as _all
from .reductions import argmin as _argmin
from .reductions import cumsum, prod
from .reductions import sum as _sum
from .shape import _arr, concatenate, expand_dims, moveaxis, ravel, reshape, squeeze, transpose
from .sorting import _concrete, argsort, nonzero, sort, sort_key_val
from .sorting import where as _where_nonzero

__all__ = ["bartlett", "blackman", "corrcoef", "cov", "delete", "hamming", "hanning", "insert", "mask_indices", "polyadd", "polyder", "polyfit", "polyint",
           "polysub", "polyval", "roots", "trapezoid", "unwrap", "vander"]


def _window(name: str, M, formula):
    M = operator.index(M)
    if M <= 1:
        return lax.full((M,), 1, dt.float32)
    return formula(lax.iota(dt.float32, M), M)


@api("sc.hanning")
def hanning(M: int):
    return _window("hanning", M, lambda n, M: multiply(0.5, subtract(1, cos(2 * np.pi * n / (M - 1)))))


@api("sc.hamming")
def hamming(M: int):
    return _window("hamming", M, lambda n, M: subtract(0.54, multiply(0.46, cos(2 * np.pi * n / (M - 1)))))


@api("sc.blackman")
def blackman(M: int):
    return _window("blackman", M, lambda n, M: add(subtract(0.42, multiply(0.5, cos(2 * np.pi * n / (M - 1)))),
                                                   multiply(0.08, cos(4 * np.pi * n / (M - 1)))))


@api("sc.bartlett")
def bartlett(M: int):
    return _window("bartlett", M, lambda n, M: subtract(1, _abs(2 * n + 1 - M) / (M - 1)))


@api("sc.polyval")
def polyval(p, x, *, unroll: int = 16):
    """Horner's rule over the leading dim of `p` (a scan, as JAX)."""
    p, x = promote(_arr(p), _arr(x))
    p, x = _arr(p), _arr(x)
    shape = tuple(int(s) for s in np.broadcast_shapes(type_of(p).shape[1:], type_of(x).shape))
    y = lax.full_like(x, 0, shape=shape, dtype=type_of(x).dtype)
    y, _ = scan(lambda y, c: (y * x + c, None), y, p, unroll=unroll)
    return y


@api("sc.polyadd")
def polyadd(a1, a2):
    """The sum of two coefficient vectors: the shorter one scatter-added into the end of the
    longer (`x.at[-n:].add`, as JAX, so sharded coefficients meet the scatter's rule)."""
    a1, a2 = promote(_arr(a1), _arr(a2))
    a1, a2 = _arr(a1), _arr(a2)
    n1, n2 = type_of(a1).shape[0], type_of(a2).shape[0]
    if n2 <= n1:
        return a1.at[-n2:].add(a2)
    return a2.at[-n1:].add(a1)


@api("sc.polysub")
def polysub(a1, a2):
    a1, a2 = promote(_arr(a1), _arr(a2))
    return polyadd(a1, -_arr(a2))


@api("sc.polyder")
def polyder(p, m: int = 1):
    m = operator.index(m)
    p, = _inexact(p)
    if m < 0:
        raise ShardcValueError("Order of derivative must be positive")
    if m == 0:
        return p
    d = type_of(p).dtype
    n = type_of(p).shape[0]
    coeff = prod(subtract(expand_dims(arange(m, n, dtype=d), 0), expand_dims(arange(m, dtype=d), 1)), axis=0)
    return multiply(p[:-m], coeff[::-1])


@api("sc.polyint")
def polyint(p, m: int = 1, k=None):
    m = operator.index(m)
    k = 0 if k is None else k
    p, k = _inexact(p, k)
    if m < 0:
        raise ShardcValueError("Order of integral must be positive (see polyder)")
    k = atleast_1d(k)
    if type_of(k).shape[0] == 1:
        k = full((m,), k[0])
    if type_of(k).shape != (m,):
        raise ShardcValueError("k must be a scalar or a rank-1 array of length 1 or m.")
    if m == 0:
        return p
    d = type_of(p).dtype
    n = type_of(p).shape[0]
    grid = subtract(expand_dims(arange(n + m, dtype=d), 0), expand_dims(arange(m, dtype=d), 1))
    coeff = prod(maximum(1, grid), axis=0)[::-1]
    return true_divide(concatenate((p, k)), coeff)


@api("sc.trapezoid")
def trapezoid(y, x=None, dx=1.0, axis: int = -1):
    """The trapezoidal rule along `axis` (spacing `dx`, or the differences of `x`)."""
    for pos, v in enumerate((y,) if x is None else (y, x)):   # JAX's `ensure_arraylike('trapezoid', y, x)`
        if isinstance(v, (list, tuple)):
            raise ShardcTypeError(f"trapezoid requires ndarray or scalar arguments, got {type(v)} at position {pos}.")
    if x is None:
        y, = _inexact(y)
        dxa = _arr(dx)
        if type_of(dxa).ndim > 0:
            dxa = lax.expand_dims(dxa, tuple(range(type_of(y).ndim - type_of(dxa).ndim)))
            dxa = moveaxis(dxa, axis, -1)
    else:
        y, x = _inexact(y, x)
        dxa = diff(x) if type_of(x).ndim == 1 else moveaxis(diff(x, axis=axis), axis, -1)
    y = moveaxis(y, axis, -1)
    td = type_of(dxa)
    if td.ndim == 0 or td.shape[-1] == 1:
        dr = dxa if td.ndim == 0 else dxa[..., 0]
        return multiply(dr, subtract(_sum(y, -1), multiply(0.5, add(y[..., 0], y[..., -1]))))
    return multiply(0.5, _sum(multiply(dxa, add(y[..., 1:], y[..., :-1])), -1))


@api("sc.vander")
def vander(x, N: int | None = None, increasing: bool = False):
    """Powers of `x` as columns (decreasing unless `increasing`)."""
    x = _arr(x)
    t = type_of(x)
    if t.ndim != 1:
        raise ShardcValueError("x must be a one-dimensional array")
    N = t.shape[0] if N is None else operator.index(N)
    if N < 0:
        raise ShardcValueError("N must be nonnegative")
    it = lax.iota(t.dtype, N)
    if not increasing:
        it = lax.sub(lax.full((), N - 1, t.dtype), it)
    return power(expand_dims(x, -1), expand_dims(it, 0))


@api("sc.unwrap")
def unwrap(p, discont=None, axis: int = -1, period=2 * np.pi):
    """Remove jumps larger than `discont` by adding multiples of `period` (as `jnp.unwrap`)."""
    p, period = promote(_arr(p), period)
    p = _arr(p)
    t = type_of(p)
    if t.shape[axis] == 0:
        return p
    if discont is None:
        discont = true_divide(period, 2) if not dt.is_int(t.dtype) else floor_divide(period, 2)
    interval = floor_divide(period, 2) if dt.is_int(t.dtype) else true_divide(period, 2)
    dd = diff(p, axis=axis)
    ddmod = subtract(remainder(add(dd, interval), period), interval)
    ddmod = where(logical_and(equal(ddmod, negative(interval)), greater(dd, 0)), interval, ddmod)
    ph_correct = where(less(_abs(dd), discont), 0, subtract(ddmod, dd))
    ax = normalize_axis(axis, t.ndim)
    return concatenate((lax.slice_in_dim(p, 0, 1, axis=ax),
                        add(lax.slice_in_dim(p, 1, None, axis=ax), cumsum(ph_correct, axis=ax))), axis=ax)


@api("sc.cov")
def cov(m, y=None, rowvar: bool = True, bias: bool = False, ddof: int | None = None, fweights=None,
        aweights=None, dtype=None):
    """The covariance matrix of the rows (or columns) of `m` (and `y`), with optional weights."""
    if y is not None:
        m, y = _inexact(m, y)
        if type_of(y).ndim > 2:
            raise ShardcValueError("y has more than 2 dimensions")
    else:
        m, = _inexact(m)
    if type_of(m).ndim > 2:
        raise ShardcValueError("m has more than 2 dimensions")
    if dtype is not None and not dt.is_float(dt.canonicalize(dtype)):
        raise ShardcValueError(f"cov: dtype must be a subclass of float or complex; got dtype={dtype!r}")
    X = atleast_2d(m)
    if not rowvar and type_of(m).ndim != 1:
        X = transpose(X)
    if type_of(X).shape[0] == 0:
        return reshape(asarray(np.zeros((0,), np.float32)), (0, 0))
    if y is not None:
        ya = atleast_2d(y)
        if not rowvar and type_of(ya).shape[0] != 1:
            ya = transpose(ya)
        X = concatenate((X, ya), axis=0)
    n_obs = type_of(X).shape[1]
    if n_obs == 0:
        shp = () if type_of(X).shape[0] == 1 else (type_of(X).shape[0],) * 2
        return full(shp, np.nan, dtype=type_of(X).dtype)
    if ddof is None:
        ddof = 1 if bias == 0 else 0
    w = None
    if fweights is not None:
        fw = _arr(fweights)
        if type_of(fw).ndim > 1:
            raise ShardcValueError("cannot handle multidimensional fweights")
        if type_of(fw).shape[0] != n_obs:
            raise ShardcValueError("incompatible numbers of samples and fweights")
        if not dt.is_int(type_of(fw).dtype):
            raise ShardcTypeError("fweights must be integer.")
        w = _abs(fw)
    if aweights is not None:
        aw = _arr(aweights)
        if type_of(aw).ndim > 1:
            raise ShardcValueError("cannot handle multidimensional aweights")
        if type_of(aw).shape[0] != n_obs:
            raise ShardcValueError("incompatible numbers of samples and aweights")
        aweights = _abs(aw)
        w = aweights if w is None else multiply(w, aweights)
    if dtype is not None:
        X = astype(X, dtype)
        w = astype(w, dtype) if w is not None else w
    avg, w_sum = average(X, axis=1, weights=w, returned=True)
    w_sum = w_sum[0]
    if w is None:
        f = n_obs - ddof
    elif ddof == 0:
        f = w_sum
    elif aweights is None:
        f = subtract(w_sum, ddof)
    else:
        f = subtract(w_sum, true_divide(multiply(ddof, _sum(multiply(w, aweights))), w_sum))
    X = subtract(X, expand_dims(avg, 1))
    XT = transpose(X) if w is None else transpose(multiply(X, expand_dims(w, 0)))
    return squeeze(true_divide(dot(X, XT), f))


@api("sc.corrcoef")
def corrcoef(x, y=None, rowvar: bool = True, dtype=None):
    """Pearson correlation coefficients (`cov` normalized by the standard deviations, clipped to [-1, 1])."""
    if dtype is not None and not dt.is_float(dt.canonicalize(dtype)):
        raise ShardcValueError(f"corrcoef: dtype must be a subclass of float or complex; got dtype={dtype!r}")
    c = cov(x, y, rowvar, dtype=dtype)
    if type_of(c).ndim == 0:
        return true_divide(c, c)
    d = diag(c)
    stddev = astype(sqrt(d), type_of(c).dtype)
    c = true_divide(true_divide(c, expand_dims(stddev, 1)), expand_dims(stddev, 0))
    return clip(c, -1, 1)


@api("sc.mask_indices")
def mask_indices(n: int, mask_func, k: int = 0, *, size: int | None = None):
    """The indices where `mask_func(ones((n, n)), k)` is nonzero (`size=` inside programs, as JAX)."""
    i, j = nonzero(mask_func(full((n, n), 1.0), k), size=size)
    return i, j


@api("sc.insert")
def insert(arr, obj, values, axis: int | None = None):
    """`values` inserted before the static or traced indices `obj` along `axis` (JAX's algorithm:
    scatter the values to their final positions, then the array's elements around them)."""
    for pos, v in enumerate((arr, obj, values)):
        if isinstance(v, (list, tuple)):
            raise ShardcTypeError(f"insert requires ndarray or scalar arguments, got {type(v)} at position {pos}.")
    a = _arr(arr)
    if axis is None:
        a = ravel(a)
        axis = 0
    t = type_of(a)
    axis = normalize_axis(axis, t.ndim)
    if isinstance(obj, slice):
        idx = arange(*obj.indices(t.shape[axis]))
    else:
        idx = _arr(obj)
    ti = type_of(idx)
    if ti.ndim > 1:
        raise ShardcValueError(f"jnp.insert(): obj must be a slice, a one-dimensional array, or a scalar; got {obj}")
    if not dt.is_int(ti.dtype):
        if ti.size == 0 and not is_array(obj):
            idx = astype(idx, dt.int32)
        else:
            raise ShardcValueError(f"jnp.insert(): index array must be integer typed; got {obj}")
    vals = astype(_arr(values), t.dtype)
    k = t.ndim - type_of(vals).ndim
    if k > 0:
        vals = expand_dims(vals, tuple(range(k)))
    if type_of(idx).size == 1:
        index = ravel(idx)[0]
        if type_of(idx).ndim == 0:
            vals = moveaxis(vals, 0, axis)
        idx = full(type_of(vals).shape[axis], index)
    n_input = t.shape[axis]
    n_insert = int(np.broadcast_shapes(type_of(idx).shape, (type_of(vals).shape[axis],))[0])
    out_shape = list(t.shape)
    out_shape[axis] += n_insert
    out = zeros_like(a, shape=tuple(out_shape))
    idx = where(less(idx, 0), add(idx, n_input), idx)
    idx = clip(idx, 0, n_input)
    values_ind = idx.at[argsort(idx)].add(arange(n_insert, dtype=type_of(idx).dtype))
    arr_mask = full((n_input + n_insert,), True).at[values_ind].set(False)
    arr_ind = _where_nonzero(arr_mask, size=n_input)[0]
    pre = (slice(None),) * axis
    out = out.at[pre + (values_ind,)].set(vals)
    return out.at[pre + (arr_ind,)].set(a)


@api("sc.delete")
def delete(arr, obj, axis: int | None = None, *, assume_unique_indices: bool = False):
    """Remove indices along `axis`: an int, a slice, a static integer or boolean array, or (with
    `assume_unique_indices`, or traced) unique integer indices by JAX's sort-based algorithm."""
    a = _arr(arr)
    if axis is None:
        a = ravel(a)
        axis = 0
    nd = type_of(a).ndim
    axis = normalize_axis(operator.index(axis), nd)
    n = type_of(a).shape[axis]
    if isinstance(obj, (int, np.integer)):
        i = normalize_axis(operator.index(obj), n)
        pre = (slice(None),) * axis
        return concatenate([a[pre + (slice(0, i),)], a[pre + (slice(i + 1, None),)]], axis)
    if isinstance(obj, slice):
        obj = np.arange(n)[obj]
        assume_unique_indices = True
    if assume_unique_indices and np.issubdtype(type_of(_arr(obj)).dtype, np.integer):
        # JAX's algorithm for unique indices: sort them, then gather the kept positions
        o = ravel(_arr(obj))
        o = clip(where(less(o, 0), add(o, n), o), 0, n)
        o = sort(o)
        o = subtract(o, arange(type_of(o).shape[0], dtype=type_of(o).dtype))
        i = arange(n - type_of(o).shape[0], dtype=type_of(o).dtype)
        i = add(i, _sum(greater_equal(expand_dims(i, 0), expand_dims(o, 1)), 0, dtype=type_of(i).dtype))
        return a[(slice(None),) * axis + (i,)]
    if is_array(obj) and isinstance(obj, Tracer):
        raise ShardcTypeError("Abstract tracer value encountered where concrete value is expected: traced array "
                              f"with shape {type_of(obj).str_short(short_dtypes=False)}\n'obj' array argument of "
                              "jnp.delete()")
    obj = np.asarray(obj)
    if np.issubdtype(obj.dtype, np.integer):
        mask = np.ones(n, dtype=bool)
        mask[obj] = False
    elif obj.dtype == bool:
        if obj.shape != (n,):
            raise ShardcValueError("np.delete(arr, obj): for boolean indices, obj must be one-dimensional with "
                                   "length matching specified axis.")
        mask = ~obj
    else:
        raise ShardcValueError(f"np.delete(arr, obj): got obj.dtype={obj.dtype}; must be integer or bool.")
    return a[(slice(None),) * axis + (np.flatnonzero(mask).astype(np.int32),)]


@api("sc.polyfit")
def polyfit(x, y, deg: int, rcond: float | None = None, full: bool = False, w=None, cov: bool = False):
    """`jnp.polyfit`: JAX's least-squares fit (Vandermonde columns scaled to unit norm, then
    `linalg.lstsq`; `full` adds residuals/rank/singular values/rcond, `cov` the covariance)."""
    raw_dtype = type_of(_arr(x)).dtype
    if w is None:
        x_arr, y_arr = _inexact(x, y)
    else:
        x_arr, y_arr, w = _inexact(x, y, w)
    deg = operator.index(deg)
    order = deg + 1
    if deg < 0:
        raise ShardcValueError("expected deg >= 0")
    tx, ty = type_of(x_arr), type_of(y_arr)
    if tx.ndim != 1:
        raise ShardcTypeError("expected 1D vector for x")
    if tx.shape[0] == 0:
        raise ShardcTypeError("expected non-empty vector for x")
    if ty.ndim < 1 or ty.ndim > 2:
        raise ShardcTypeError("expected 1D or 2D array for y")
    if tx.shape[0] != ty.shape[0]:
        raise ShardcTypeError("expected x and y to have same length")
    if rcond is None:
        if not dt.is_float(raw_dtype):  # JAX's `finfo` of the (unpromoted) x
            raise ShardcValueError(f"data type <class 'numpy.{np.dtype(raw_dtype).name}'> not inexact")
        rcond = tx.shape[0] * float(ml_dtypes.finfo(tx.dtype).eps)
    rcond = float(rcond)
    lhs = vander(x_arr, order)
    rhs = y_arr
    if w is not None:
        tw = type_of(w)
        if tw.ndim != 1:
            raise ShardcTypeError("expected a 1-d array for weights")
        if tw.shape[0] != ty.shape[0]:
            raise ShardcTypeError("expected w and y to have the same length")
        lhs = multiply(lhs, expand_dims(w, 1))
        rhs = multiply(rhs, expand_dims(w, 1)) if ty.ndim == 2 else multiply(rhs, w)
    scale = sqrt(_sum(multiply(lhs, lhs), axis=0))
    lhs = true_divide(lhs, expand_dims(scale, 0))
    c, resids, rank, s = _lstsq(lhs, rhs, rcond)
    if type_of(c).ndim > 1:
        c = transpose(true_divide(transpose(c, (1, 0)), expand_dims(scale, 0)), (1, 0))
    else:
        c = true_divide(c, scale)
    if full:
        return c, resids, rank, s, asarray(rcond)
    if cov:
        vbase = _inv(dot(transpose(lhs, (1, 0)), lhs))
        vbase = true_divide(vbase, multiply(expand_dims(scale, 1), expand_dims(scale, 0)))
        if cov == "unscaled":
            fac = asarray(1.0)
        else:
            if tx.shape[0] <= order:
                raise ShardcValueError("the number of data points must exceed order to scale the covariance matrix")
            fac = true_divide(resids, tx.shape[0] - order)
        if ty.ndim == 1:
            return c, multiply(vbase, expand_dims(atleast_1d(fac), 0))
        return c, multiply(expand_dims(vbase, 2), expand_dims(expand_dims(atleast_1d(fac), 0), 0))
    return c


def _roots_no_zeros(p):
    """JAX's `_roots_no_zeros`: the eigenvalues of the companion matrix."""
    n = type_of(p).shape[0]
    if n < 2:
        return asarray(np.zeros((0,), dt.complex_dtype(type_of(p).dtype)))
    a = diag(lax.full((n - 2,), 1, type_of(p).dtype), -1)
    a = a.at[0, :].set(true_divide(negative(p[1:]), p[0]))
    return _eigvals(a)


@api("sc.roots")
def roots(p, *, strip_zeros: bool = True):
    """`jnp.roots`: the roots of the polynomial with coefficients `p` (complex). Leading zeros are
    stripped (their count must be concrete: JAX's ConcretizationTypeError inside programs), or
    with `strip_zeros=False` the missing roots are NaN, as JAX."""
    if isinstance(p, (list, tuple)):
        raise ShardcTypeError(f"roots requires ndarray or scalar arguments, got {type(p)} at position 0.")
    p_arr = atleast_1d(_inexact(_arr(p))[0])
    t = type_of(p_arr)
    if t.ndim != 1:
        raise ShardcValueError("Input must be a rank-1 array.")
    if t.shape[0] < 2:
        return asarray(np.zeros((0,), dt.complex_dtype(t.dtype)))
    zero = equal(p_arr, 0)
    num_leading_zeros = where(_all(zero), t.shape[0], _argmin(zero))
    if strip_zeros:
        k = int(_concrete(num_leading_zeros, "The error occurred in the jnp.roots() function. To use this within a "
                          "JIT-compiled context, pass strip_zeros=False, but be aware that leading zeros will "
                          "result in some returned roots being set to NaN."))
        return _roots_no_zeros(p_arr[k:])
    return _roots_with_zeros(p_arr, num_leading_zeros)


def _roots_with_zeros(p, num_leading_zeros):
    """JAX's `_roots_with_zeros`: the zeros rolled to the end, their roots sorted last and NaN."""
    n = type_of(p).shape[0]
    p = where(equal(n, num_leading_zeros), 1.0, p)
    r = _roots_no_zeros(roll(p, negative(num_leading_zeros)))
    r = sort_key_val(equal(r, 0), r)[1]
    m = type_of(r).shape[0]
    return where(less(arange(m), subtract(m, num_leading_zeros)), r, complex(np.nan, np.nan))
