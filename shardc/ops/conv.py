"""The convolution family under `jax.lax`'s and `jax.numpy`'s names: `lax.conv_general_dilated`
and its wrappers (`conv`, `conv_with_general_padding`, `conv_transpose`,
`conv_general_dilated_patches`, `conv_general_dilated_local`) and `jnp.convolve` /
`jnp.correlate`, each built as JAX 0.10.2 builds it (jax/_src/lax/convolution.py,
jax/_src/lax/other.py, jax/_src/numpy/lax_numpy.py) over the `conv_general_dilated` primitive
(`shardc/primitives/conv.py`), so the types, shardings and errors are JAX's.
"""
from __future__ import annotations

import math
import operator
from typing import Any, Sequence

import numpy as np
from jax._src.lax.lax import Precision as _Precision
from jax._src.lax.lax import canonicalize_precision as _jax_precision  # JAX's parsing of PrecisionLike (pinned 0.10.2)

from .. import dtypes as dt
from .. import lax
from ..core import api, check_explicit_spec
from ..errors import ShardcAssertionError, ShardcTypeError, ShardcValueError
from ..mesh import get_abstract_mesh
from ..primitives import conv as cp
from ._util import is_array, promote, to_spec, type_of
from .lax_ops import dot_general as _dot_general
from .math import _inexact
from .shape import _arr

__all__ = [
    "conv_general_dilated", "conv", "conv_with_general_padding", "conv_transpose", "conv_general_dilated_patches",
    "conv_general_dilated_local", "convolve", "correlate",
]

#: `jax.lax` names of the pure shape helpers (defined beside the primitive)
LAX_HELPERS = ["ConvDimensionNumbers", "conv_dimension_numbers", "conv_general_permutations", "conv_shape_tuple",
               "conv_general_shape_tuple", "conv_transpose_shape_tuple", "padtype_to_pads"]


def _precision(precision: Any) -> tuple[str, str] | None:
    try:
        canon = _jax_precision(precision)
    except ValueError as e:
        raise ShardcValueError(str(e)) from None
    return cp.precision_names(canon)


def _conv(lhs, rhs, window_strides, padding, lhs_dilation=None, rhs_dilation=None, dimension_numbers=None,
          feature_group_count=1, batch_group_count=1, precision=None, preferred_element_type=None,
          out_sharding=None):
    """`lax.conv_general_dilated` (JAX's wrapper: canonical dimension numbers and padding)."""
    lhs, rhs = _arr(lhs), _arr(rhs)
    lt, rt = type_of(lhs), type_of(rhs)
    dnums = cp.conv_dimension_numbers(lt.shape, rt.shape, dimension_numbers)
    spec = to_spec(out_sharding)
    if spec is not None:
        check_explicit_spec(spec, get_abstract_mesh(), "dot_general")   # JAX canonicalizes it under that name
    if lhs_dilation is None:
        lhs_dilation = (1,) * (lt.ndim - 2)
    elif isinstance(padding, str) and not len(lhs_dilation) == list(lhs_dilation).count(1):
        raise ShardcValueError(
            "String padding is not implemented for transposed convolution using this op. Please either exactly "
            "specify the required padding or use conv_transpose.")
    if rhs_dilation is None:
        rhs_dilation = (1,) * (rt.ndim - 2)
    if isinstance(padding, str):
        rhs_shape = np.take(rt.shape, dnums.rhs_spec)[2:]
        eff = [k if r == 1 else max(1 + r * (k - 1), 0) for k, r in zip(rhs_shape, rhs_dilation)]
        padding = cp.padtype_to_pads(np.take(lt.shape, dnums.lhs_spec)[2:], eff, window_strides, padding)
    else:
        try:
            padding = tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
        except (ValueError, TypeError):
            raise ShardcValueError("padding argument to conv_general_dilated should be a string or a sequence of "
                                   f"(low, high) pairs, got {padding}") from None
    pet = None if preferred_element_type is None else dt.canonicalize(preferred_element_type)
    return cp.bind_conv(lhs, rhs, window_strides=window_strides, padding=padding, lhs_dilation=lhs_dilation,
                        rhs_dilation=rhs_dilation, dimension_numbers=dnums, feature_group_count=feature_group_count,
                        batch_group_count=batch_group_count, precision=_precision(precision),
                        preferred_element_type=pet, out_sharding=spec)


@api("lax.conv_general_dilated")
def conv_general_dilated(lhs, rhs, window_strides: Sequence[int], padding, lhs_dilation=None, rhs_dilation=None,
                         dimension_numbers=None, feature_group_count: int = 1, batch_group_count: int = 1,
                         precision=None, preferred_element_type=None, out_sharding=None):
    """General n-d convolution with strides, padding ('SAME', 'SAME_LOWER', 'VALID' or (low, high)
    pairs), lhs/rhs dilation, dimension numbers and feature/batch groups."""
    return _conv(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
                 feature_group_count, batch_group_count, precision, preferred_element_type, out_sharding)


@api("lax.conv")
def conv(lhs, rhs, window_strides: Sequence[int], padding: str, precision=None, preferred_element_type=None):
    """`conv_general_dilated` in NCHW/OIHW layout without dilation."""
    return _conv(lhs, rhs, window_strides, padding, precision=precision,
                 preferred_element_type=preferred_element_type)


@api("lax.conv_with_general_padding")
def conv_with_general_padding(lhs, rhs, window_strides: Sequence[int], padding, lhs_dilation, rhs_dilation,
                              precision=None, preferred_element_type=None):
    """`conv_general_dilated` in NCHW/OIHW layout with dilations."""
    return _conv(lhs, rhs, window_strides, padding, lhs_dilation=lhs_dilation, rhs_dilation=rhs_dilation,
                 precision=precision, preferred_element_type=preferred_element_type)


@api("lax.conv_transpose")
def conv_transpose(lhs, rhs, strides: Sequence[int], padding, rhs_dilation=None, dimension_numbers=None,
                   transpose_kernel: bool = False, precision=None, preferred_element_type=None,
                   use_consistent_padding: bool = False):
    """The fractionally strided convolution (JAX's `conv_transpose`: lhs dilated by `strides`)."""
    lhs, rhs = _arr(lhs), _arr(rhs)
    lt, rt = type_of(lhs), type_of(rhs)
    if not (lt.ndim == rt.ndim and lt.ndim >= 2):
        raise ShardcAssertionError(f"conv_transpose needs operands of one rank >= 2, got {lt.shape} and {rt.shape}")
    ndims = lt.ndim
    one = (1,) * (ndims - 2)
    if dimension_numbers is None:
        defaults = {2: ("NC", "IO", "NC"), 3: ("NHC", "HIO", "NHC"), 4: ("NHWC", "HWIO", "NHWC"),
                    5: ("NHWDC", "HWDIO", "NHWDC")}
        if ndims not in defaults:
            raise ShardcValueError("No 4+ dimensional dimension_number defaults.")
        dimension_numbers = defaults[ndims]
    dn = cp.conv_dimension_numbers(lt.shape, rt.shape, dimension_numbers)
    k_sdims = np.take(rt.shape, dn.rhs_spec)[2:]
    if rhs_dilation is None:
        rhs_dilation = (1,) * (rt.ndim - 2)
    if use_consistent_padding or (isinstance(padding, str) and padding in {"SAME", "VALID"}):
        eff = [int(k) if r == 1 else max(1 + r * (int(k) - 1), 0) for k, r in zip(k_sdims, rhs_dilation)]
        rep = [padding] * len(strides) if isinstance(padding, str) else padding
        pads = tuple(cp.conv_transpose_padding(k, s, p) for k, s, p in zip(eff, strides, rep))
    else:
        pads = padding
    if transpose_kernel:
        rhs = lax.rev(rhs, [int(d) for d in dn.rhs_spec[2:]])
        perm = list(range(rt.ndim))
        perm[dn.rhs_spec[0]], perm[dn.rhs_spec[1]] = perm[dn.rhs_spec[1]], perm[dn.rhs_spec[0]]
        rhs = lax.transpose(rhs, perm)
    return _conv(lhs, rhs, one, pads, strides, rhs_dilation, dn, precision=precision,
                 preferred_element_type=preferred_element_type)


def _eye(dtype: np.dtype, n: int):
    """`lax._eye`: ones on the diagonal (two iotas compared, converted)."""
    a = lax.broadcasted_iota(dt.int32, (n, n), 0)
    b = lax.broadcasted_iota(dt.int32, (n, n), 1)
    return lax.convert_element_type(lax.eq(lax.add(a, np.int32(0)), b), dtype)


def _moveaxis2(x, src: tuple[int, int], dst: tuple[int, int]):
    """`util.moveaxis(x, src, dst)` for two axes (a transpose)."""
    n = type_of(x).ndim
    perm = [i for i in range(n) if i not in src]
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return lax.transpose(x, perm)


@api("lax.conv_general_dilated_patches")
def conv_general_dilated_patches(lhs, filter_shape: Sequence[int], window_strides: Sequence[int], padding,
                                 lhs_dilation=None, rhs_dilation=None, dimension_numbers=None, precision=None,
                                 preferred_element_type=None):
    """The patches a convolution would see, flattened into the feature dim (a grouped conv with an
    identity kernel, as JAX)."""
    lhs = _arr(lhs)
    lt = type_of(lhs)
    filter_shape = tuple(filter_shape)
    dn = cp.conv_dimension_numbers(lt.shape, (1, 1) + filter_shape, dimension_numbers)
    spatial = math.prod(filter_shape)
    n_channels = lt.shape[dn.lhs_spec[1]]
    rhs = _eye(lt.dtype, spatial)
    rhs = lax.broadcast_in_dim(rhs, (n_channels, spatial, spatial), (1, 2))
    rhs = lax.reshape(rhs, (n_channels * spatial, 1, *filter_shape))
    rhs = _moveaxis2(rhs, (0, 1), (dn.rhs_spec[0], dn.rhs_spec[1]))
    return _conv(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation, dn,
                 feature_group_count=n_channels,
                 precision=None if precision is None else (precision, _Precision.DEFAULT),   # as JAX
                 preferred_element_type=preferred_element_type)


@api("lax.conv_general_dilated_local")
def conv_general_dilated_local(lhs, rhs, window_strides: Sequence[int], padding, filter_shape: Sequence[int],
                               lhs_dilation=None, rhs_dilation=None, dimension_numbers=None, precision=None):
    """A convolution with a different kernel at every output position (JAX's: the patches, then a
    dot_general with the per-position kernels)."""
    lhs, rhs = _arr(lhs), _arr(rhs)
    try:
        c_precision = _jax_precision(precision)
    except ValueError as e:
        raise ShardcValueError(str(e)) from None
    if c_precision is None:
        lhs_precision = None
    elif isinstance(c_precision, tuple) and len(c_precision) == 2:
        lhs_precision = c_precision[0]
    else:
        raise ShardcValueError(f"Unsupported precision for conv_general_dilated_local: {precision}")
    patches = conv_general_dilated_patches(lhs, filter_shape, window_strides, padding, lhs_dilation, rhs_dilation,
                                           dimension_numbers, lhs_precision)
    lhs_spec, rhs_spec, out_spec = cp.conv_dimension_numbers(type_of(lhs).shape, (1, 1) + tuple(filter_shape),
                                                             dimension_numbers)
    lhs_c, rhs_c = [out_spec[1]], [rhs_spec[1]]
    lhs_b, rhs_b = list(out_spec[2:]), list(rhs_spec[2:])
    rhs_b = [rhs_b[i] for i in sorted(range(len(rhs_b)), key=lambda k: lhs_b[k])]
    lhs_b = sorted(lhs_b)
    out = _dot_general(patches, rhs, ((lhs_c, rhs_c), (lhs_b, rhs_b)), precision)
    n = type_of(out).ndim
    return _moveaxis2(out, (n - 2, n - 1), (out_spec[0], out_spec[1]))


def _np_conv(x, y, mode: str, op: str, precision, preferred_element_type):
    """`jnp.convolve` / `jnp.correlate` (JAX's `_conv`): a 1-D conv_general_dilated on [1, 1, n]."""
    for pos, v in enumerate((x, y)):   # JAX's `ensure_arraylike`: no lists or tuples
        if not (is_array(v) or isinstance(v, (np.ndarray, np.generic, bool, int, float, complex))):
            raise ShardcTypeError(f"{op} requires ndarray or scalar arguments, got {type(v)} at position {pos}.")
    x, y = _arr(x), _arr(y)
    if type_of(x).ndim != 1 or type_of(y).ndim != 1:
        raise ShardcValueError(f"{op}() only support 1-dimensional inputs.")
    if preferred_element_type is None:
        x, y = _inexact(x, y)
    else:
        x, y = (_arr(v) for v in promote(x, y))
    nx, ny = type_of(x).shape[0], type_of(y).shape[0]
    if nx == 0 or ny == 0:
        raise ShardcValueError(f"{op}: inputs cannot be empty, got shapes {type_of(x).shape} and {type_of(y).shape}.")
    reverse = False
    if op == "correlate":
        if np.issubdtype(type_of(y).dtype, np.complexfloating):
            y = lax.conj(y)
        if nx < ny:
            x, y, reverse = y, x, True
    else:
        if nx < ny:
            x, y = y, x
        y = lax.rev(y, (0,))
    n = type_of(y).shape[0]
    if mode == "valid":
        padding = [(0, 0)]
    elif mode == "same":
        padding = [(n // 2, n - n // 2 - 1)]
    elif mode == "full":
        padding = [(n - 1, n - 1)]
    else:
        raise ShardcValueError("mode must be one of ['full', 'same', 'valid']")
    out = _conv(lax.expand_dims(x, (0, 1)), lax.expand_dims(y, (0, 1)), (1,), padding, precision=precision,
                preferred_element_type=preferred_element_type)
    out = lax.squeeze(out, (0, 1))
    return lax.rev(out, (0,)) if reverse else out


@api("sc.convolve")
def convolve(a, v, mode: str = "full", *, precision=None, preferred_element_type=None):
    """`jnp.convolve`: the discrete linear convolution of two 1-D arrays ('full', 'same', 'valid')."""
    return _np_conv(a, v, mode, "convolve", precision, preferred_element_type)


@api("sc.correlate")
def correlate(a, v, mode: str = "valid", *, precision=None, preferred_element_type=None):
    """`jnp.correlate`: the cross-correlation of two 1-D arrays ('valid' by default)."""
    return _np_conv(a, v, mode, "correlate", precision, preferred_element_type)
