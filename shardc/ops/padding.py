"""`jnp.pad`: every padding mode of JAX's (`jax/_src/numpy/lax_numpy.py`'s `_pad_*`), in its own
module because its statistics reach the sorting ops (`median`) that build on `construct`."""
from __future__ import annotations

import builtins

import numpy as np

from .. import dtypes as dt
from .. import lax
from ..core import api, bind
from ..errors import ShardcNotImplementedError, ShardcTypeError, ShardcValueError
from ..primitives import elementwise as ew
from ._util import as_operand, convert, is_array, type_of
from .construct import apply_along_axis, flip, linspace, repeat
from .creation import broadcast_to, full_like
from .elementwise import multiply, subtract
from .reductions import max as _max
from .reductions import mean as _mean
from .reductions import min as _min
from .shape import _arr, squeeze
from .sorting import median

__all__ = ["pad"]


# --- pad -------------------------------------------------------------------------------------
def _pairs(nvals, nd: int, name: str) -> tuple[tuple[int, int], ...]:
    """`_broadcast_to_pairs`: (before, after) per dim from the shapes NumPy accepts."""
    if builtins.any(is_array(v) for v in np.ravel(np.asarray(nvals, dtype=object))):
        raise ShardcTypeError(f"{name} argument of jnp.pad must be static")
    v = np.asarray(nvals)
    if v.shape == (nd, 2):
        return tuple((r[0], r[1]) for r in v.tolist())
    if v.shape == (1, 2):
        return ((v[0, 0].item(), v[0, 1].item()),) * nd
    if v.shape == (2,):
        return ((v[0].item(), v[1].item()),) * nd
    if v.shape in ((1,), ()):
        s = v.flat[0].item()
        return ((s, s),) * nd
    raise ShardcValueError(f"jnp.pad: {name} with nd={nd} has unsupported shape {v.shape}. "
                           f"Valid shapes are ({nd}, 2), (1, 2), (2,), (1,), or ().")


def _pad_constant(array, pad_width, constant_values):
    t = type_of(array)
    cv = as_operand(constant_values)
    cv = lax.convert_element_type(cv, t.dtype) if not t.weak_type else _weak_convert(cv, t.dtype)
    nd_c = type_of(cv).ndim
    if nd_c == 0:
        return lax.pad(array, cv, [(lo, hi, 0) for lo, hi in pad_width])
    if nd_c == 1 and type_of(cv).shape[-1] == 1:
        return lax.pad(array, squeeze(cv), [(lo, hi, 0) for lo, hi in pad_width])
    if nd_c == 1 and type_of(cv).shape[-1] != 2:
        raise ShardcValueError(f"jnp.pad: constant_values has unsupported shape {type_of(cv).shape}. If the "
                               "shape is 1D or 2D, the last dimension must be of size 1 or 2.")
    cv = broadcast_to(_arr(cv), (t.ndim, 2))
    for i in range(t.ndim):
        widths = [(0, 0, 0)] * t.ndim
        if pad_width[i][0] != 0:
            widths[i] = (pad_width[i][0], 0, 0)
            array = lax.pad(array, cv[i, 0], widths)
        if pad_width[i][1] != 0:
            widths[i] = (0, pad_width[i][1], 0)
            array = lax.pad(array, cv[i, 1], widths)
    return array


def _weak_convert(x, d):
    """`_convert_element_type(x, d, weak_type=True)` of a constant or array."""
    return convert(x, d, True) if not is_array(x) else bind(ew.convert_element_type, x, new_dtype=d, weak_type=True)


def _check_no_padding(p, mode: str):
    if p[0] > 0 or p[1] > 0:
        raise ShardcValueError(f"Cannot apply '{mode}' padding to empty axis")


def _pad_wrap(array, pad_width):
    for i in range(type_of(array).ndim):
        size = type_of(array).shape[i]
        if size == 0:
            _check_no_padding(pad_width[i], "wrap")
            continue
        lr, lrem = builtins.divmod(pad_width[i][0], size)
        rr, rrem = builtins.divmod(pad_width[i][1], size)
        parts = []
        if lrem > 0:
            parts.append(lax.slice_in_dim(array, size - lrem, size, axis=i))
        parts += (lr + rr + 1) * [array]
        if rrem > 0:
            parts.append(lax.slice_in_dim(array, 0, rrem, axis=i))
        array = lax.concatenate(parts, i)
    return array


def _pad_reflect(array, pad_width, mode: str, reflect_type: str):
    for i in range(type_of(array).ndim):
        axis_size = type_of(array).shape[i]
        if axis_size == 0:
            _check_no_padding(pad_width[i], mode)
            continue
        if pad_width[i] == (0, 0):
            continue
        for before in (True, False):
            padding = pad_width[i][0 if before else 1]
            edge = lax.slice_in_dim(array, 0, 1, axis=i) if before else lax.slice_in_dim(array, -1, None, axis=i)
            offset = 1 if (mode == "reflect" and axis_size > 1) else 0
            while padding > 0:
                cur = builtins.min(padding, axis_size - offset)
                padding -= cur
                if before:
                    start, stop = offset, offset + cur
                else:
                    start, stop = -(cur + offset), (None if (mode == "symmetric" or axis_size == 1) else -1)
                x = flip(lax.slice_in_dim(array, start, stop, axis=i), i)
                if reflect_type == "odd":
                    x = subtract(multiply(2, edge), x)
                    if axis_size > 1:
                        edge = lax.slice_in_dim(x, 0, 1, axis=i) if before else lax.slice_in_dim(x, -1, None, axis=i)
                array = lax.concatenate([x, array] if before else [array, x], i)
    return array


def _pad_edge(array, pad_width):
    for i in range(type_of(array).ndim):
        n = type_of(array).shape[i]
        if n == 0:
            _check_no_padding(pad_width[i], "edge")
            continue
        lo, hi = pad_width[i]
        before = repeat(lax.slice_in_dim(array, 0, 1, axis=i), lo, axis=i)
        after = repeat(lax.slice_in_dim(array, n - 1, n, axis=i), hi, axis=i)
        array = lax.concatenate([before, array, after], i)
    return array


def _pad_empty(array, pad_width):
    for i in range(type_of(array).ndim):
        s = type_of(array).shape
        b = full_like(array, 0, shape=s[:i] + (pad_width[i][0],) + s[i + 1:])
        a = full_like(array, 0, shape=s[:i] + (pad_width[i][1],) + s[i + 1:])
        array = lax.concatenate([b, array, a], i)
    return array


def _pad_linear_ramp(array, pad_width, end_values):
    """Ramps from `end_values` to the edge values (JAX's `_pad_linear_ramp`: `linspace` without
    the endpoint, the after-ramp flipped), in the array's dtype and weak type."""
    t = type_of(array)
    for axis in range(t.ndim):
        n = type_of(array).shape[axis]
        edges = (lax.slice_in_dim(array, 0, 1, axis=axis), lax.slice_in_dim(array, n - 1, n, axis=axis))
        ramps = []
        for side, edge in enumerate(edges):
            ramp = linspace(end_values[axis][side], squeeze(edge, axis), num=pad_width[axis][side], endpoint=False,
                            dtype=t.dtype, axis=axis)
            ramps.append(convert(ramp, t.dtype, t.weak_type))
        array = lax.concatenate([ramps[0], array, flip(ramps[1], axis)], axis)
    return array


def _pad_stats(array, pad_width, stat_length, stat_func):
    """The statistic of the whole axis, or of `stat_length` values at each end, repeated
    (JAX's `_pad_stats`: integer arrays get the statistic rounded)."""
    t = type_of(array)
    for i in range(t.ndim):
        if stat_length is None:
            before = after = stat_func(array, axis=i, keepdims=True)
        else:
            n = type_of(array).shape[i]
            lb, la = stat_length[i]
            if lb == 0 or la == 0:
                raise ShardcValueError("stat_length of 0 yields no value for padding")
            lb, la = builtins.min(lb, n), builtins.min(la, n)
            before = stat_func(lax.slice_in_dim(array, 0, lb, axis=i), axis=i, keepdims=True)
            after = stat_func(lax.slice_in_dim(array, n - la, n, axis=i), axis=i, keepdims=True)
        if dt.is_int(t.dtype):
            before, after = round(before), round(after)
        before, after = convert(before, t.dtype, t.weak_type), convert(after, t.dtype, t.weak_type)
        array = lax.concatenate([repeat(before, pad_width[i][0], axis=i), array,
                                 repeat(after, pad_width[i][1], axis=i)], i)
    return array


def _pad_func(array, pad_width, func, kwargs: dict):
    """A user's padding function on each 1-D slice (`func(row, (before, after), axis, kwargs)`,
    the array zero-padded first), axis by axis with `apply_along_axis`, as JAX's `_pad_func`."""
    padded = _pad_constant(array, pad_width, 0)
    for axis in range(type_of(padded).ndim):
        padded = apply_along_axis(func, axis, padded, pad_width[axis], axis, kwargs)
    return padded


_PAD_KWARGS = {"empty": [], "edge": [], "wrap": [], "constant": ["constant_values"], "reflect": ["reflect_type"],
               "symmetric": ["reflect_type"], "linear_ramp": ["end_values"], "maximum": ["stat_length"],
               "mean": ["stat_length"], "median": ["stat_length"], "minimum": ["stat_length"]}
_PAD_STATS = {"maximum": _max, "minimum": _min, "mean": _mean, "median": median}


@api("sc.pad")
def pad(array, pad_width, mode: str = "constant", **kwargs):
    """`jnp.pad`: every mode of JAX's (constant, empty, edge, wrap, reflect, symmetric, linear_ramp,
    maximum, minimum, mean, median, a callable) with its keyword arguments and errors."""
    array = _arr(array)
    nd = type_of(array).ndim
    if not callable(mode) and mode not in _PAD_KWARGS:
        raise ShardcNotImplementedError(f"Unimplemented padding mode '{mode}' for np.pad.")
    bad = set() if callable(mode) else set(kwargs) - set(_PAD_KWARGS[mode])
    if bad:
        raise ShardcValueError(f"unsupported keyword arguments for mode '{mode}': {bad}")
    if nd == 0:
        return array
    pw = _pairs(pad_width, nd, "pad_width")
    if builtins.any(not isinstance(p, (int, np.integer)) for pr in pw for p in pr):
        raise ShardcTypeError("`pad_width` must be of integral type.")
    if builtins.any(p < 0 for pr in pw for p in pr):
        raise ShardcValueError("index can't contain negative values")
    if callable(mode):
        return _pad_func(array, pw, mode, kwargs)
    if mode == "constant":
        return _pad_constant(array, pw, kwargs.get("constant_values", 0))
    if mode == "wrap":
        return _pad_wrap(array, pw)
    if mode in ("symmetric", "reflect"):
        return _pad_reflect(array, pw, mode, kwargs.get("reflect_type", "even"))
    if mode == "edge":
        return _pad_edge(array, pw)
    if mode == "linear_ramp":
        return _pad_linear_ramp(array, pw, _pairs(kwargs.get("end_values", 0), nd, "end_values"))
    if mode in _PAD_STATS:
        sl = kwargs.get("stat_length")
        return _pad_stats(array, pw, None if sl is None else _pairs(sl, nd, "stat_length"), _PAD_STATS[mode])
    return _pad_empty(array, pw)
