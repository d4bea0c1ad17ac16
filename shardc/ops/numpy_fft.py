"""`shardc.numpy.fft`: every function of `jax.numpy.fft`, ported from JAX 0.10.2's
`jax/_src/numpy/fft.py` over `lax.fft` (`primitives/fft.py`).

The n-d transforms move the requested axes last, crop / zero-pad them to `s`, run one
`fft` primitive over up to three trailing dims (more are split into FFTs of 2 or 3 dims, as
JAX), scale by the `norm` factor and move the axes back. Shardings follow from the ops
used, as in JAX: `moveaxis` moves a dim's sharding with it, and the `fft` primitive keeps
its operand's spec (sharded FFT dims included).
"""
from __future__ import annotations

import operator
from typing import Sequence

import numpy as np

from .. import dtypes as dt
from .. import lax
from ..core import Const, api
from ..errors import ShardcValueError
from ._util import type_of
from .construct import roll
from .creation import arange, asarray
from .elementwise import multiply
from .indexing import getitem
from .math import _arr, conjugate
from .padding import pad
from .shape import moveaxis

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2", "rfftn",
           "irfftn", "hfft", "ihfft", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

FftType = lax.FftType


def _norm_factor(s: Sequence[int], func_name: str, norm: str, dtype) -> Const | None:
    """JAX's `_fft_norm` as a constant of the transform's dtype (None for "backward")."""
    if norm == "backward":
        return None
    n = float(np.prod(np.asarray(s, dtype=np.float64)))
    if norm == "ortho":
        f = np.sqrt(n) if func_name.startswith("i") else 1 / np.sqrt(n)
    elif norm == "forward":
        f = n if func_name.startswith("i") else 1 / n
    else:
        raise ShardcValueError(f'Invalid norm value {norm}; should be "backward","ortho" or "forward".')
    return Const(np.asarray(f, dtype=dtype), np.dtype(dtype), False)


def _fft_core(func_name: str, fft_type: FftType, a, s, axes, norm):
    full_name = f"jax.numpy.fft.{func_name}"
    arr = _arr(a)
    ndim = type_of(arr).ndim
    if s is not None:
        s = tuple(map(operator.index, s))
        if np.any(np.less_equal(s, 0)):
            raise ShardcValueError("Shape should be positive.")
    if s is not None and axes is not None and len(s) != len(axes):
        raise ShardcValueError("Shape and axes have different lengths.")
    orig_axes = axes
    if axes is None:
        axes = range(ndim) if s is None else range(ndim - len(s), ndim)
    axes = tuple(axes)
    if len(axes) != len(set(axes)):
        raise ShardcValueError(f"{full_name} does not support repeated axes. Got axes {axes}.")
    if orig_axes is not None:
        axes = tuple(range(ndim - len(axes), ndim))
        arr = moveaxis(arr, tuple(orig_axes), axes)
    shape = type_of(arr).shape
    if s is not None:
        in_s = list(shape)
        for axis, x in zip(axes, s):
            in_s[axis] = x
        if fft_type == FftType.IRFFT:
            in_s[-1] = in_s[-1] // 2 + 1
        arr = getitem(arr, tuple(slice(k) for k in in_s))
        widths = [(0, x - y) for x, y in zip(in_s, type_of(arr).shape)]
        if any(w for _, w in widths):
            arr = pad(arr, widths)
    elif fft_type == FftType.IRFFT:
        s = [shape[axis] for axis in axes[:-1]]
        if axes:
            s += [max(0, 2 * (shape[axes[-1]] - 1))]
    else:
        s = [shape[axis] for axis in axes]
    out = _fft_core_nd(arr, fft_type, s)
    if norm is not None:
        factor = _norm_factor(s, func_name, norm, type_of(out).dtype)
        if factor is not None:
            out = multiply(out, factor)
    if orig_axes is not None:
        out = moveaxis(out, axes, tuple(orig_axes))
    return out


def _fft_core_nd(arr, fft_type: FftType, s: Sequence[int]):
    """At most 3 dims per `fft` (XLA's limit), split as JAX does."""
    if len(s) <= 3:
        return lax.fft(arr, fft_type, tuple(s))
    ndim = type_of(arr).ndim
    n = 2 if len(s) == 4 else 3
    src = tuple(range(ndim - len(s), ndim - n))
    dst = tuple(range(ndim - len(s) + n, ndim))
    if fft_type in (FftType.RFFT, FftType.FFT):
        arr = lax.fft(arr, fft_type, tuple(s)[-n:])
        arr = moveaxis(arr, src, dst)
        arr = _fft_core_nd(arr, FftType.FFT, s[:-n])
        return moveaxis(arr, dst, src)
    arr = moveaxis(arr, src, dst)
    arr = _fft_core_nd(arr, FftType.IFFT, s[:-n])
    arr = moveaxis(arr, dst, src)
    return lax.fft(arr, fft_type, tuple(s)[-n:])


def _axis_check_1d(func_name: str, axis) -> None:
    full_name = f"jax.numpy.fft.{func_name}"
    if isinstance(axis, (list, tuple)):
        raise ShardcValueError(f"{full_name} does not support multiple axes. Please use {full_name}n. "
                               f"Got axis = {axis!r}.")


def _fft_core_1d(func_name: str, fft_type: FftType, a, n, axis, norm):
    _axis_check_1d(func_name, axis)
    axes = None if axis is None else [axis]
    s = None if n is None else [n]
    return _fft_core(func_name, fft_type, a, s, axes, norm)


def _fft_core_2d(func_name: str, fft_type: FftType, a, s, axes, norm):
    if len(axes) != 2:
        raise ShardcValueError(f"jax.numpy.fft.{func_name} only supports 2 axes. Got axes = {axes!r}.")
    return _fft_core(func_name, fft_type, a, s, axes, norm)


@api("jnp.fft.fftn")
def fftn(a, s=None, axes=None, norm=None):
    """The n-d discrete Fourier transform over `axes` (default: all), cropped/padded to `s`."""
    return _fft_core("fftn", FftType.FFT, a, s, axes, norm)


@api("jnp.fft.ifftn")
def ifftn(a, s=None, axes=None, norm=None):
    """The inverse of `fftn`."""
    return _fft_core("ifftn", FftType.IFFT, a, s, axes, norm)


@api("jnp.fft.rfftn")
def rfftn(a, s=None, axes=None, norm=None):
    """The n-d FFT of a real array: the last axis keeps `n // 2 + 1` (non-negative) bins."""
    return _fft_core("rfftn", FftType.RFFT, a, s, axes, norm)


@api("jnp.fft.irfftn")
def irfftn(a, s=None, axes=None, norm=None):
    """The inverse of `rfftn` (a real result; the last axis `2 (m - 1)` long unless `s` says)."""
    return _fft_core("irfftn", FftType.IRFFT, a, s, axes, norm)


@api("jnp.fft.fft")
def fft(a, n=None, axis: int = -1, norm=None):
    """The 1-d discrete Fourier transform along `axis`, cropped/padded to `n`."""
    return _fft_core_1d("fft", FftType.FFT, a, n, axis, norm)


@api("jnp.fft.ifft")
def ifft(a, n=None, axis: int = -1, norm=None):
    return _fft_core_1d("ifft", FftType.IFFT, a, n, axis, norm)


@api("jnp.fft.rfft")
def rfft(a, n=None, axis: int = -1, norm=None):
    return _fft_core_1d("rfft", FftType.RFFT, a, n, axis, norm)


@api("jnp.fft.irfft")
def irfft(a, n=None, axis: int = -1, norm=None):
    return _fft_core_1d("irfft", FftType.IRFFT, a, n, axis, norm)


@api("jnp.fft.hfft")
def hfft(a, n=None, axis: int = -1, norm=None):
    """The FFT of a Hermitian-symmetric signal (given by its first half): a real spectrum."""
    conj_a = conjugate(a)
    _axis_check_1d("hfft", axis)
    nn = (type_of(conj_a).shape[axis] - 1) * 2 if n is None else n
    return multiply(_fft_core_1d("hfft", FftType.IRFFT, conj_a, n, axis, norm), nn)


@api("jnp.fft.ihfft")
def ihfft(a, n=None, axis: int = -1, norm=None):
    """The inverse of `hfft`."""
    _axis_check_1d("ihfft", axis)
    arr = _arr(a)
    nn = type_of(arr).shape[axis] if n is None else n
    out = _fft_core_1d("ihfft", FftType.RFFT, arr, n, axis, norm)
    return multiply(conjugate(out), 1 / nn)


@api("jnp.fft.fft2")
def fft2(a, s=None, axes=(-2, -1), norm=None):
    return _fft_core_2d("fft2", FftType.FFT, a, s, axes, norm)


@api("jnp.fft.ifft2")
def ifft2(a, s=None, axes=(-2, -1), norm=None):
    return _fft_core_2d("ifft2", FftType.IFFT, a, s, axes, norm)


@api("jnp.fft.rfft2")
def rfft2(a, s=None, axes=(-2, -1), norm=None):
    return _fft_core_2d("rfft2", FftType.RFFT, a, s, axes, norm)


@api("jnp.fft.irfft2")
def irfft2(a, s=None, axes=(-2, -1), norm=None):
    return _fft_core_2d("irfft2", FftType.IRFFT, a, s, axes, norm)


def _check_freq_args(name: str, n, d) -> None:
    if isinstance(n, (list, tuple)):
        raise ShardcValueError(f"The n argument of jax.numpy.fft.{name} only takes an int. Got n = {list(n)}.")
    if isinstance(d, (list, tuple)):
        raise ShardcValueError(f"The d argument of jax.numpy.fft.{name} only takes a single value. "
                               f"Got d = {list(d)}.")


@api("jnp.fft.fftfreq")
def fftfreq(n: int, d=1.0, *, dtype=None, device=None):
    """The sample frequencies of an n-point FFT: `[0, 1, ..., n//2 - 1, -(n//2), ..., -1] / (d n)`."""
    dtype = dtype or dt.float32
    _check_freq_args("fftfreq", n, d)
    out_dtype = dtype
    dtype = dt.canonicalize(dtype)
    dtype = dtype if dt.is_inexact(dtype) else dt.float32
    dtype = dt.real_dtype(dtype)
    i = arange(n, dtype=dtype, device=device)
    k = (i + n // 2) % n - n // 2
    result = k.astype(dtype) / asarray(d * n, dtype=dtype)
    return result.astype(out_dtype)


@api("jnp.fft.rfftfreq")
def rfftfreq(n: int, d=1.0, *, dtype=None, device=None):
    """The sample frequencies of an n-point `rfft`: `[0, 1, ..., n//2] / (d n)`."""
    dtype = dtype or dt.float32
    _check_freq_args("rfftfreq", n, d)
    k = arange(0, n // 2 + 1 if n % 2 == 0 else (n - 1) // 2 + 1, dtype=dtype)
    result = k / asarray(d * n, dtype=dtype)
    if device is not None:
        return result.to_device(device)
    return result


def _shift(x, axes, sign: int):
    x = _arr(x)
    shape = type_of(x).shape
    if axes is None:
        axes = tuple(range(len(shape)))
        shift = [sign * (k // 2) for k in shape]
    elif isinstance(axes, int):
        shift = sign * (shape[axes] // 2)
    else:
        shift = [sign * (shape[ax] // 2) for ax in axes]
    return roll(x, shift, axes)


@api("jnp.fft.fftshift")
def fftshift(x, axes=None):
    """The zero-frequency bin moved to the centre (a `roll` by half of each axis)."""
    return _shift(x, axes, 1)


@api("jnp.fft.ifftshift")
def ifftshift(x, axes=None):
    """The inverse of `fftshift`."""
    return _shift(x, axes, -1)
