"""`shardc.scipy.fft`: JAX 0.10.2's `jax.scipy.fft` (`dct`, `dctn`, `idct`, `idctn`).

JAX's own composition (`jax/_src/scipy/fft.py`, Copyright 2021 The JAX Authors, Apache License
2.0) ported onto shardc's `numpy`, `numpy.fft` and `lax`: Makhoul's fast cosine transform
(interleave, one complex FFT, a twiddle by `exp(-i pi k / 2N)`), so values, dtypes, sharding types
and errors follow JAX's by construction. As JAX, only DCT type 2 (and its inverse) is built: any
other `type` is JAX's NotImplementedError.
"""
from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from functools import partial
from typing import Any

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..errors import ShardcNotImplementedError, ShardcValueError
from ..ops._util import normalize_axes, normalize_axis
from .linalg import check_arraylike, promote_dtypes_complex, promote_dtypes_inexact

Array = Any

__all__ = ["dct", "dctn", "idct", "idctn"]  # JAX 0.10.2's jax.scipy.fft, every name

jnp_fft = jnp.fft


def _ensure_arraylike(name: str, x) -> Array:
    """JAX's `ensure_arraylike`: an array or scalar (a list is JAX's TypeError), as an array."""
    check_arraylike(name, x)
    return jnp.asarray(x)


def _canonicalize_axis(axis: int, num_dims: int) -> int:
    return normalize_axis(axis, num_dims)


def _W4(N: int, k: Array) -> Array:
    N_arr, k = promote_dtypes_complex(N, k)
    return jnp.exp(-0.5j * np.pi * k / N_arr)


def _dct_interleave(x: Array, axis: int) -> Array:
    v0 = lax.slice_in_dim(x, None, None, 2, axis)
    v1 = lax.rev(lax.slice_in_dim(x, 1, None, 2, axis), (axis,))
    return lax.concatenate([v0, v1], axis)


def _dct_ortho_norm(out: Array, axis: int) -> Array:
    factor = lax.concatenate([lax.full((1,), 4, out.dtype), lax.full((out.shape[axis] - 1,), 2, out.dtype)], 0)
    factor = lax.expand_dims(factor, [a for a in range(out.ndim) if a != axis])
    return out / lax.sqrt(factor * out.shape[axis])


def _check_type_norm(name: str, type: int, norm: str | None) -> None:
    if type != 2:
        raise ShardcNotImplementedError("Only DCT type 2 is implemented.")
    if norm is not None and norm not in ["backward", "ortho"]:
        raise ShardcValueError(f"jax.scipy.fft.{name}: {norm=!r} is not implemented")


def _pad_axis(x: Array, n: int, axis: int) -> Array:
    """Zero-pad (or, for `n` below the length, crop with a negative pad) `axis` to length `n`."""
    return lax.pad(x, jnp.array(0, x.dtype), [(0, n - x.shape[axis] if a == axis else 0, 0) for a in range(x.ndim)])


# Implementation based on
# John Makhoul: A Fast Cosine Transform in One and Two Dimensions (1980)
def dct(x: Array, type: int = 2, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """`jax.scipy.fft.dct`: the type-2 discrete cosine transform along `axis`."""
    x = _ensure_arraylike("dct", x)
    _check_type_norm("dct", type, norm)
    if jnp.issubdtype(x.dtype, np.complexfloating):
        return lax.complex(
            dct(x.real, type=type, n=n, norm=norm, axis=axis),
            dct(x.imag, type=type, n=n, norm=norm, axis=axis),
        )
    axis = _canonicalize_axis(axis, x.ndim)
    if n is not None:
        x = _pad_axis(x, n, axis)
    N = x.shape[axis]
    v = _dct_interleave(x, axis)
    V = jnp_fft.fft(v, axis=axis)
    k = lax.expand_dims(jnp.arange(N, dtype=V.real.dtype), [a for a in range(x.ndim) if a != axis])
    out = V * _W4(N, k)
    out = 2 * out.real
    if norm == "ortho":
        out = _dct_ortho_norm(out, axis)
    return out


def _dct2(x: Array, axes: Sequence[int], norm: str | None) -> Array:
    axis1, axis2 = map(partial(_canonicalize_axis, num_dims=x.ndim), axes)
    N1, N2 = x.shape[axis1], x.shape[axis2]
    v = _dct_interleave(_dct_interleave(x, axis1), axis2)
    V = jnp_fft.fftn(v, axes=axes)
    k1 = lax.expand_dims(jnp.arange(N1, dtype=V.dtype), [a for a in range(x.ndim) if a != axis1])
    k2 = lax.expand_dims(jnp.arange(N2, dtype=V.dtype), [a for a in range(x.ndim) if a != axis2])
    out = _W4(N1, k1) * (_W4(N2, k2) * V + _W4(N2, -k2) * jnp.roll(jnp.flip(V, axis=axis2), shift=1, axis=axis2))
    out = 2 * out.real
    if norm == "ortho":
        return _dct_ortho_norm(_dct_ortho_norm(out, axis1), axis2)
    return out


def _s_and_axes(x: Array, s, axes) -> tuple[list[int] | None, tuple[int, ...]]:
    """JAX's reading of `dctn`/`idctn`'s `s` (an int or a sequence) and `axes` (default: the last
    `len(s)` axes, or all)."""
    if s is not None:
        try:
            s = list(s)
        except TypeError:
            assert not isinstance(s, Sequence)
            s = [operator.index(s)]
        if len(s) > x.ndim:
            raise ShardcValueError(f"s must have at most x.ndim ({x.ndim}) elements, got {len(s)}")
    if axes is None:
        axes = tuple(range(x.ndim - len(s), x.ndim)) if s is not None else tuple(range(x.ndim))
    else:
        axes = normalize_axes(axes, x.ndim)
    return s, axes


def _pad_axes(x: Array, s: list[int], axes: tuple[int, ...]) -> Array:
    ns = dict(zip(axes, s))
    pads = [(0, ns[a] - x.shape[a] if a in ns else 0, 0) for a in range(x.ndim)]
    return lax.pad(x, jnp.array(0, x.dtype), pads)


def dctn(x: Array, type: int = 2, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
         norm: str | None = None) -> Array:
    """`jax.scipy.fft.dctn`: the multidimensional type-2 DCT (2-D blocks by one 2-D FFT, as JAX)."""
    x = _ensure_arraylike("dctn", x)
    _check_type_norm("dctn", type, norm)
    if jnp.issubdtype(x.dtype, np.complexfloating):
        return lax.complex(
            dctn(x.real, type=type, s=s, norm=norm, axes=axes),
            dctn(x.imag, type=type, s=s, norm=norm, axes=axes),
        )
    s, axes = _s_and_axes(x, s, axes)
    if len(axes) == 1:
        return dct(x, n=s[0] if s is not None else None, axis=axes[0], norm=norm)
    if s is not None:
        x = _pad_axes(x, s, axes)
    if len(axes) == 2:
        return _dct2(x, axes=axes, norm=norm)
    # compose high-D DCTs from 2D and 1D DCTs:
    for axes_block in [axes[i:i + 2] for i in range(0, len(axes), 2)]:
        x = dctn(x, axes=axes_block, norm=norm)
    return x


def idct(x: Array, type: int = 2, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """`jax.scipy.fft.idct`: the inverse of the type-2 DCT along `axis` (one inverse FFT)."""
    x = _ensure_arraylike("idct", x)
    _check_type_norm("idct", type, norm)
    if jnp.issubdtype(x.dtype, np.complexfloating):
        return lax.complex(
            idct(x.real, type=type, n=n, norm=norm, axis=axis),
            idct(x.imag, type=type, n=n, norm=norm, axis=axis),
        )
    axis = _canonicalize_axis(axis, x.ndim)
    if n is not None:
        x = _pad_axis(x, n, axis)
    N = x.shape[axis]
    (x,) = promote_dtypes_inexact(x)
    if norm is None or norm == "backward":
        x = _dct_ortho_norm(x, axis)
    x = _dct_ortho_norm(x, axis)
    k = lax.expand_dims(jnp.arange(N, dtype=x.dtype), [a for a in range(x.ndim) if a != axis])
    # everything is complex from here...
    w4 = _W4(N, k)
    x = x.astype(w4.dtype)
    x = x / (_W4(N, k))
    x = x * 2 * N
    x = jnp_fft.ifft(x, axis=axis)
    # convert back to reals..
    return _dct_deinterleave(x.real, axis)


def idctn(x: Array, type: int = 2, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: str | None = None) -> Array:
    """`jax.scipy.fft.idctn`: the multidimensional inverse type-2 DCT (one `idct` per axis, as JAX)."""
    x = _ensure_arraylike("idctn", x)
    _check_type_norm("idctn", type, norm)
    if jnp.issubdtype(x.dtype, np.complexfloating):
        return lax.complex(
            idctn(x.real, type=type, s=s, norm=norm, axes=axes),
            idctn(x.imag, type=type, s=s, norm=norm, axes=axes),
        )
    s, axes = _s_and_axes(x, s, axes)
    if len(axes) == 1:
        return idct(x, n=s[0] if s is not None else None, axis=axes[0], norm=norm)
    if s is not None:
        x = _pad_axes(x, s, axes)
    # compose high-D DCTs from 1D DCTs:
    for axis in axes:
        x = idct(x, axis=axis, norm=norm)
    return x


def _dct_deinterleave(x: Array, axis: int) -> Array:
    empty_slice = slice(None, None, None)
    half = math.ceil(x.shape[axis] / 2)
    ix0 = tuple(slice(None, half, 1) if i == axis else empty_slice for i in range(len(x.shape)))
    ix1 = tuple(slice(half, None, 1) if i == axis else empty_slice for i in range(len(x.shape)))
    v0 = x[ix0]
    v1 = lax.rev(x[ix1], (axis,))
    out = jnp.zeros(x.shape, dtype=x.dtype)
    evens = tuple(slice(None, None, 2) if i == axis else empty_slice for i in range(len(x.shape)))
    odds = tuple(slice(1, None, 2) if i == axis else empty_slice for i in range(len(x.shape)))
    out = out.at[evens].set(v0)
    return out.at[odds].set(v1)
