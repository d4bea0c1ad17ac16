"""`shardc.image`, as `jax.image`: `resize`, `scale_and_translate` and `ResizeMethod`.

Built as JAX 0.10.2 builds it (jax/_src/image/scale.py), from shardc's own ops: a resize is,
per resized dimension, a weight matrix (input size x output size) from the method's kernel,
then one einsum of the image with every weight matrix, contracted in the order JAX's einsum
takes (opt_einsum's path), so the intermediate and output sharding types are JAX's: a resized
dimension comes out unsharded, the others keep their sharding. `nearest` is a gather per
resized dimension (JAX's error where a sharded dimension is gathered without `out_sharding`).

`ResizeMethod` is JAX's own enum (a description, not a computation), so either library's
members work with either's functions. `precision` is parsed as JAX parses it; shardc's dots
are emitted at the platform's default precision (exact float32 on CPU), as `sc.lax.dot_general`.
"""
from __future__ import annotations

import operator
from typing import Any, Callable, Sequence

import numpy as np
import opt_einsum
from jax._src.lax.lax import canonicalize_precision as _jax_precision  # JAX's PrecisionLike parsing (0.10.2)
from jax.image import ResizeMethod  # JAX's enum: the method names and their parsing

from . import dtypes as dt
from . import lax
from .core import api
from .errors import ShardcAssertionError, ShardcTypeError, ShardcValueError, located
from .lax import type_of
from .ops import elementwise as el
from .ops import reductions as red
from .ops._util import promote, promote_to_float
from .ops.creation import arange, asarray, zeros
from .ops.linalg import einsum
from .stages import jit

__all__ = ["ResizeMethod", "resize", "scale_and_translate"]

_EPS = 1000.0 * float(np.finfo(np.float32).eps)


def _lanczos(radius: float) -> Callable:
    def kernel(x):
        y = radius * el.sin(np.pi * x) * el.sin(np.pi * x / radius)
        out = el.where(x > 1e-3, el.true_divide(y, el.where(x != 0, np.pi ** 2 * x ** 2, 1)), 1)
        return el.where(x > radius, 0., out)
    return kernel


def _keys_cubic(x):
    """Keys' cubic kernel, A = -0.5 (Pillow, TensorFlow, PyTorch with antialiasing)."""
    out = ((1.5 * x - 2.5) * x) * x + 1.
    out = el.where(x >= 1., ((-0.5 * x + 2.5) * x - 4.) * x + 2., out)
    return el.where(x >= 2., 0., out)


def _opencv_cubic(x):
    """A = -0.75: PyTorch's (OpenCV's) cubic without antialiasing."""
    a = -0.75
    out = ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
    out = el.where(x >= 1.0, ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a, out)
    return el.where(x >= 2.0, 0.0, out)


def _triangle(x):
    return el.maximum(0, 1 - el.abs(x))


_AREA = object()
_KERNELS: dict[ResizeMethod, tuple[int, Any]] = {
    ResizeMethod.LINEAR: (1, _triangle),
    ResizeMethod.LANCZOS3: (3, _lanczos(3.)),
    ResizeMethod.LANCZOS5: (5, _lanczos(5.)),
    ResizeMethod.CUBIC: (2, _keys_cubic),
    ResizeMethod.CUBIC_PYTORCH: (2, _opencv_cubic),
    ResizeMethod.AREA: (1, _AREA),
}


def _normalize(weights):
    total = red.sum(weights, axis=0, keepdims=True)
    return el.where(el.abs(total) > _EPS, el.true_divide(weights, el.where(total != 0, total, 1)), 0)


def _weight_matrix(input_size: int, output_size: int, scale, translation, kernel, antialias: bool,
                   edge_padding: bool, radius: int):
    """The (input_size, output_size) resampling weights of one dimension (JAX's compute_weight_mat)."""
    dtype = dt.result_type((type_of(scale).dtype, type_of(scale).weak_type),
                           (type_of(translation).dtype, type_of(translation).weak_type))[0]
    inv_scale = 1. / scale
    kernel_scale = el.maximum(inv_scale, 1.) if antialias else 1.
    sample_f = (arange(output_size, dtype=dtype) + 0.5) * inv_scale - translation * inv_scale - 0.5
    k = radius if edge_padding else 0      # edge padding only without antialiasing (as JAX's public API)
    expanded = arange(-k, input_size + k, dtype=dtype)
    if kernel is _AREA:
        left_out = arange(output_size, dtype=dtype) * inv_scale - translation * inv_scale
        right_out = left_out + inv_scale
        left_in = arange(input_size, dtype=dtype)
        weights = el.maximum(0.0, el.minimum(right_out[None, :], (left_in + 1.0)[:, None])
                             - el.maximum(left_out[None, :], left_in[:, None]))
    else:
        weights = kernel(el.abs(sample_f[None, :] - expanded[:, None]) / kernel_scale)
    if edge_padding:
        # the weights of pixels off the edge move onto the edge pixels (a scatter-add), then normalize
        clamped = el.clip(expanded.astype(dt.int32), 0, input_size - 1)
        cols = lax.broadcast_in_dim(arange(output_size), (type_of(expanded).shape[0], output_size), (1,))
        mat = zeros((input_size, output_size), dtype=dtype).at[clamped[:, None], cols].add(weights)
        return _normalize(mat)
    weights = _normalize(weights)
    inside = el.logical_and(sample_f >= -0.5, sample_f <= input_size - 0.5)
    return el.where(inside[None, :], weights, 0)


def _contract(x, in_idx: list[int], weights: list, pairs: list[list[int]], out_idx: list[int]):
    """einsum(x, in_idx, w0, pair0, w1, pair1, ..., out_idx) in JAX's order: opt_einsum's path
    over the same shapes, each step a two-operand shardc einsum with that step's subscripts."""
    operands = [x, *weights]
    args: list[Any] = [np.empty(type_of(x).shape, np.float32), in_idx]
    for w, p in zip(weights, pairs):
        args += [np.empty(type_of(w).shape, np.float32), p]
    _, contractions = opt_einsum.contract_path(*args, out_idx, einsum_call=True, use_blas=True, optimize="auto")
    for inds, _removed, einstr, *_ in contractions:
        picked = [operands.pop(i) for i in inds]
        operands.append(einsum(einstr, *picked))
    return operands[0]


def _scale_and_translate(x, output_shape: tuple[int, ...], spatial_dims: Sequence[int], scale, translation,
                         kernel, antialias: bool, edge_padding: bool, radius: int):
    shape = type_of(x).shape
    if len(spatial_dims) == 0:
        return x
    weights, pairs = [], []
    out_idx = list(range(len(output_shape)))
    for i, d in enumerate(spatial_dims):
        d = d % len(shape)
        w = _weight_matrix(shape[d], output_shape[d], scale[i], translation[i], kernel, antialias,
                           edge_padding, radius)
        weights.append(w.astype(type_of(x).dtype))
        pairs.append([d, len(output_shape) + i])
        out_idx[d] = len(output_shape) + i
    return _contract(x, list(range(len(output_shape))), weights, pairs, out_idx)


def _method(method: str | ResizeMethod) -> ResizeMethod:
    if isinstance(method, str):
        try:
            return ResizeMethod.from_string(method)
        except ValueError as e:
            raise ShardcValueError(str(e)) from None
    return method


def _check_rank(shape: tuple[int, ...], image_shape: tuple[int, ...]) -> None:
    if len(shape) != len(image_shape):
        raise ShardcValueError("shape must have length equal to the number of dimensions of x; "
                               f" {shape} vs {image_shape}")


def _canonical_shape(shape) -> tuple[int, ...]:
    try:
        return tuple(operator.index(d) for d in shape)
    except TypeError:
        raise ShardcTypeError(f"Shapes must be 1D sequences of concrete values of integer type, got {shape}.") \
            from None


def _as_float(v):
    """JAX's promote_dtypes_inexact of one scale/translation entry (a Python float stays weak)."""
    return promote_to_float(asarray(v))


@located
@api("sc.image.scale_and_translate")
def scale_and_translate(image, shape: Sequence[int], spatial_dims: Sequence[int], scale, translation,
                        method: str | ResizeMethod, antialias: bool = True, precision=lax.Precision.HIGHEST):
    """`jax.image.scale_and_translate`: resample `image` to `shape` under the warp
    `x * scale + translation` of `spatial_dims` (half-centred pixels; samples off the image are zero)."""
    _jax_precision(precision)
    shape = _canonical_shape(shape)
    image = asarray(image)
    _check_rank(shape, type_of(image).shape)
    method = _method(method)
    if method == ResizeMethod.NEAREST:
        raise ShardcValueError("Nearest neighbor resampling is not currently supported for scale_and_translate.")
    if method == ResizeMethod.CUBIC_PYTORCH and antialias:
        method = ResizeMethod.CUBIC
    radius, kernel = _KERNELS[method]
    image = promote_to_float(image)
    for v in (scale, translation):
        if isinstance(v, (list, tuple)):     # JAX's promote_dtypes_inexact takes arrays and scalars only
            raise ShardcTypeError(f"Cannot determine dtype of {v}")
    scale, translation = _promote_pair(asarray(scale), asarray(translation))
    sizes = [type_of(v).shape[0] if type_of(v).ndim else None for v in (scale, translation)]
    if sizes != [len(spatial_dims)] * 2:
        raise ShardcAssertionError(f"scale_and_translate: scale and translation need one entry per spatial "
                                   f"dimension ({len(spatial_dims)}), got shapes {type_of(scale).shape} and "
                                   f"{type_of(translation).shape}")
    scale = [scale[i] for i in range(len(spatial_dims))]
    translation = [translation[i] for i in range(len(spatial_dims))]
    return _scale_and_translate(image, shape, tuple(spatial_dims), scale, translation, kernel, antialias,
                                method == ResizeMethod.CUBIC_PYTORCH and not antialias, radius)


def _promote_pair(a, b):
    """JAX's promote_dtypes_inexact(scale, translation): their common type, made inexact."""
    a, b = promote(a, b)
    return promote_to_float(a), promote_to_float(b)


def _resize_nearest(x, output_shape: tuple[int, ...]):
    in_shape = type_of(x).shape
    for d in [i for i in range(len(in_shape)) if in_shape[i] != output_shape[i]]:
        m, n = in_shape[d], output_shape[d]
        offsets = (arange(n, dtype=dt.float32) + 0.5) * m / n
        offsets = el.floor(offsets.astype(dt.float32)).astype(dt.int32)
        index: list[Any] = [slice(None)] * len(in_shape)
        index[d] = offsets
        x = x[tuple(index)]
    return x


def _resize(image, shape: tuple[int, ...], method: str | ResizeMethod, antialias: bool, precision):
    in_shape = type_of(image).shape
    _check_rank(shape, in_shape)
    method = _method(method)
    if method == ResizeMethod.NEAREST:
        return _resize_nearest(image, shape)
    image = promote_to_float(image)
    # dimensions of the same size are skipped: every kernel interpolates (identity warp = identity)
    spatial_dims = tuple(i for i in range(len(shape)) if in_shape[i] != shape[i])
    if method == ResizeMethod.CUBIC_PYTORCH and antialias:
        method = ResizeMethod.CUBIC
    radius, kernel = _KERNELS[method]
    scale = [_as_float(1.0 if shape[d] == 0 else shape[d] / in_shape[d]) for d in spatial_dims]
    translation = [_as_float(0.) for _ in spatial_dims]
    return _scale_and_translate(image, shape, spatial_dims, scale, translation, kernel, antialias,
                                method == ResizeMethod.CUBIC_PYTORCH and not antialias, radius)


_resize_jit = jit(_resize, static_argnums=(1, 2, 3, 4))


@located
@api("sc.image.resize")
def resize(image, shape: Sequence[int], method: str | ResizeMethod, antialias: bool = True,
           precision=lax.Precision.HIGHEST):
    """`jax.image.resize`: resample every dimension of `image` whose size differs from `shape`
    with `method` (`nearest`, `linear`/`bilinear`/`trilinear`, `cubic`/`bicubic`/`tricubic`,
    `cubic-pytorch`, `lanczos3`, `lanczos5`, `area`). `nearest` keeps the dtype; the others
    compute in the image's inexact type (integers and bools become float32). A jitted program,
    as JAX's."""
    _jax_precision(precision)
    return _resize_jit(image, _canonical_shape(shape), method, antialias, precision)
