"""Window functions, polynomials and `trapezoid` of `jax.numpy`, computed as JAX does (the
same elementwise formulas over an `iota`; `polyval` as a scan of Horner steps)."""
from __future__ import annotations

import operator

import numpy as np

from .. import dtypes as dt
from .. import lax
from ..core import api
from ..errors import ShardcValueError
from ._util import promote, type_of
from .construct import atleast_1d, diff
from .control_flow import scan
from .creation import arange, full
from .elementwise import abs as _abs
from .elementwise import add, cos, maximum, multiply, subtract, true_divide
from .math import _inexact
from .reductions import prod
from .reductions import sum as _sum
from .shape import _arr, concatenate, expand_dims, moveaxis

__all__ = ["bartlett", "blackman", "hamming", "hanning", "polyadd", "polyder", "polyint", "polysub", "polyval",
           "trapezoid"]


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
