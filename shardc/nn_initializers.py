"""`shardc.nn.initializers`, as `jax.nn.initializers` 0.10.2: initializers
`init(key, shape, dtype=..., out_sharding=None)` built on `shardc.random`, so
for the same key an initializer's values are bit-identical to JAX's and
`out_sharding=` gives the array JAX's sharding type.

`orthogonal` and `delta_orthogonal` draw from `random.orthogonal` (the QR of
a normal matrix, shardc's `qr` primitive).
"""
from __future__ import annotations

import math as _math
import typing as _typing
from typing import Any as _Any
from typing import Literal as _Literal
from typing import Sequence as _Sequence

import numpy as _np

from . import dtypes as _dt
from . import random as _random
from .core import Const as _Const
from .errors import ShardcNotImplementedError as _ShardcNotImplementedError
from .errors import ShardcValueError as _ShardcValueError
from .ops._util import is_array as _is_array
from .ops.creation import asarray as _asarray
from .ops.creation import full as _full
from .ops.creation import ones as _ones_array
from .ops.creation import zeros as _zeros_array
from .ops.elementwise import astype as _astype
from .ops.elementwise import multiply as _multiply
from .ops.shape import moveaxis as _moveaxis
from .ops.shape import reshape as _reshape

__all__ = [
    "Initializer", "constant", "delta_orthogonal", "glorot_normal", "glorot_uniform", "he_normal", "he_uniform",
    "kaiming_normal", "kaiming_uniform", "lecun_normal", "lecun_uniform", "normal", "ones", "orthogonal",
    "truncated_normal", "uniform", "variance_scaling", "xavier_normal", "xavier_uniform", "zeros",
]

_DTypeLikeInexact = _Any
_RealNumeric = _Any


def __dir__() -> list[str]:
    return sorted(__all__)


@_typing.runtime_checkable
class Initializer(_typing.Protocol):
    """Protocol for initializers returned by `shardc.nn.initializers` APIs."""

    def __call__(self, key, shape, dtype: _DTypeLikeInexact | None = None, out_sharding=None):
        raise NotImplementedError


def _default(dtype):
    return _dt.float32 if dtype is None else dtype


def _array(v, dtype):
    """`jnp.array(v, dtype)`: a non-weak array of `dtype`."""
    if _is_array(v):
        return _astype(v, dtype)
    return _asarray(_np.asarray(v, dtype=_dt.canonicalize(dtype)))


def zeros(key, shape, dtype: _DTypeLikeInexact | None = None, out_sharding=None):
    """An array of zeros (the key is ignored)."""
    return _zeros_array(shape, _default(dtype), out_sharding=out_sharding)


def ones(key, shape, dtype: _DTypeLikeInexact | None = None, out_sharding=None):
    """An array of ones (the key is ignored)."""
    return _ones_array(shape, _default(dtype), out_sharding=out_sharding)


def constant(value, dtype: _DTypeLikeInexact | None = None) -> Initializer:
    """Builds an initializer that returns arrays full of a constant `value`."""
    def init(key, shape, dtype: _DTypeLikeInexact | None = dtype, out_sharding=None):
        return _full(shape, value, dtype=_default(dtype), out_sharding=out_sharding)
    return init


def uniform(scale: _RealNumeric = 1e-2, dtype: _DTypeLikeInexact | None = None) -> Initializer:
    """Builds an initializer of values uniform in `[0, scale)`."""
    def init(key, shape, dtype: _DTypeLikeInexact | None = dtype, out_sharding=None):
        dtype = _default(dtype)
        return _multiply(_random.uniform(key, shape, dtype, out_sharding=out_sharding), _array(scale, dtype))
    return init


def normal(stddev: _RealNumeric = 1e-2, dtype: _DTypeLikeInexact | None = None) -> Initializer:
    """Builds an initializer of normal values with mean 0 and standard deviation `stddev`."""
    def init(key, shape, dtype: _DTypeLikeInexact | None = dtype, out_sharding=None):
        dtype = _default(dtype)
        return _multiply(_random.normal(key, shape, dtype, out_sharding=out_sharding), _array(stddev, dtype))
    return init


def truncated_normal(stddev: _RealNumeric = 1e-2, dtype: _DTypeLikeInexact | None = None,
                     lower: _RealNumeric = -2.0, upper: _RealNumeric = 2.0) -> Initializer:
    """Builds an initializer of normal values truncated to `(lower, upper)`, times `stddev`."""
    def init(key, shape, dtype: _DTypeLikeInexact | None = dtype, out_sharding=None):
        dtype = _default(dtype)
        return _multiply(_random.truncated_normal(key, lower, upper, shape, dtype, out_sharding=out_sharding),
                         _array(stddev, dtype))
    return init


def _compute_fans(shape: _Sequence[int], in_axis: int | _Sequence[int] = -2, out_axis: int | _Sequence[int] = -1,
                  batch_axis: int | _Sequence[int] = ()) -> tuple[float, float]:
    """Effective input and output sizes; other axes are the receptive field (JAX's `_compute_fans`)."""
    if isinstance(in_axis, int) and in_axis == -2 and len(shape) <= 1:
        raise _ShardcValueError(
            f"Can't compute input and output sizes of a {len(shape)}-dimensional weights tensor with default "
            "in_axis. Must be at least 2D or specify in_axis explicitly.")
    size = lambda ax: shape[ax] if isinstance(ax, int) else _math.prod([shape[i] for i in ax])  # noqa: E731
    try:
        in_size, out_size, batch_size = size(in_axis), size(out_axis), size(batch_axis)
    except IndexError:  # JAX fails with Python's IndexError here
        raise _ShardcValueError(f"in_axis={in_axis}, out_axis={out_axis} or batch_axis={batch_axis} is out of "
                                f"range for the {len(shape)}-dimensional shape {tuple(shape)}") from None
    receptive_field_size = _math.prod(shape) / in_size / out_size / batch_size
    return in_size * receptive_field_size, out_size * receptive_field_size


def _const(v, dtype) -> _Const:
    """A non-weak scalar constant of `dtype`."""
    return _Const(_np.asarray(v, dtype=dtype), dtype, False)


def _is_float(dtype) -> bool:
    d = _np.dtype(dtype)
    if d.kind == "c":
        raise _ShardcNotImplementedError(f"variance_scaling with the complex dtype {d}: shardc has no complex "
                                         "dtypes")
    return _dt.is_float(_dt.canonicalize(d))


def variance_scaling(scale: _RealNumeric,
                     mode: _Literal["fan_in", "fan_out", "fan_avg", "fan_geo_avg"],
                     distribution: _Literal["truncated_normal", "normal", "uniform"],
                     in_axis: int | _Sequence[int] = -2, out_axis: int | _Sequence[int] = -1,
                     batch_axis: int | _Sequence[int] = (), dtype: _DTypeLikeInexact | None = None) -> Initializer:
    """An initializer whose variance is `scale / n`, `n` the fan-in, fan-out, or
    their arithmetic or geometric average (JAX's `variance_scaling`)."""
    def init(key, shape, dtype: _DTypeLikeInexact | None = dtype, out_sharding=None):
        shape = tuple(int(d) for d in ((shape,) if isinstance(shape, int) else shape))
        dtype = _default(dtype)
        fan_in, fan_out = _compute_fans(shape, in_axis, out_axis, batch_axis)
        if mode == "fan_in":
            denominator = fan_in
        elif mode == "fan_out":
            denominator = fan_out
        elif mode == "fan_avg":
            denominator = (fan_in + fan_out) / 2
        elif mode == "fan_geo_avg":
            denominator = (fan_in * fan_out) ** 0.5
        else:
            raise _ShardcValueError(f"invalid mode for variance scaling initializer: {mode}")
        if distribution in ("truncated_normal", "uniform"):
            _is_float(dtype)
        # JAX's scalar factors (jnp.array, jnp.sqrt, /) are constants of `dtype` inside its program;
        # computed here in `dtype` with NumPy (IEEE sqrt and division: the same roundings), they
        # enter the program as constants too, so XLA folds and fuses the product as in JAX's
        d = _dt.canonicalize(dtype)
        variance = _np.asarray(scale / denominator, dtype=d)
        if distribution == "truncated_normal":
            stddev = _np.sqrt(variance) / _np.asarray(.87962566103423978, dtype=d)
            return _multiply(_random.truncated_normal(key, -2, 2, shape, dtype, out_sharding=out_sharding),
                             _const(stddev, d))
        if distribution == "normal":
            return _multiply(_random.normal(key, shape, dtype, out_sharding=out_sharding),
                             _const(_np.sqrt(variance), d))
        if distribution == "uniform":
            three_var = _np.asarray(3, dtype=d) * variance
            return _multiply(_random.uniform(key, shape, dtype, -1, out_sharding=out_sharding),
                             _const(_np.sqrt(three_var), d))
        raise _ShardcValueError(f"invalid distribution for variance scaling initializer: {distribution}")
    return init


def _specialized(scale: float, mode: str, distribution: str, doc: str):
    def builder(in_axis: int | _Sequence[int] = -2, out_axis: int | _Sequence[int] = -1,
                batch_axis: int | _Sequence[int] = (), dtype: _DTypeLikeInexact | None = None) -> Initializer:
        return variance_scaling(scale, mode, distribution, in_axis=in_axis, out_axis=out_axis,
                                batch_axis=batch_axis, dtype=dtype)
    builder.__doc__ = doc
    return builder


glorot_uniform = _specialized(1.0, "fan_avg", "uniform", "Glorot (Xavier) uniform: `variance_scaling(1, 'fan_avg', 'uniform')`.")
glorot_normal = _specialized(1.0, "fan_avg", "truncated_normal",
                             "Glorot (Xavier) normal: `variance_scaling(1, 'fan_avg', 'truncated_normal')`.")
lecun_uniform = _specialized(1.0, "fan_in", "uniform", "LeCun uniform: `variance_scaling(1, 'fan_in', 'uniform')`.")
lecun_normal = _specialized(1.0, "fan_in", "truncated_normal",
                            "LeCun normal: `variance_scaling(1, 'fan_in', 'truncated_normal')`.")
he_uniform = _specialized(2.0, "fan_in", "uniform", "He (Kaiming) uniform: `variance_scaling(2, 'fan_in', 'uniform')`.")
he_normal = _specialized(2.0, "fan_in", "truncated_normal",
                         "He (Kaiming) normal: `variance_scaling(2, 'fan_in', 'truncated_normal')`.")
for _f, _n in ((glorot_uniform, "glorot_uniform"), (glorot_normal, "glorot_normal"), (lecun_uniform, "lecun_uniform"),
               (lecun_normal, "lecun_normal"), (he_uniform, "he_uniform"), (he_normal, "he_normal")):
    _f.__name__ = _f.__qualname__ = _n
xavier_uniform, xavier_normal = glorot_uniform, glorot_normal
kaiming_uniform, kaiming_normal = he_uniform, he_normal


def _random_orthogonal(key, n_rows: int, dtype, n_cols: int):
    return _random.orthogonal(key, n_rows, (), dtype, n_cols)


def orthogonal(scale: _RealNumeric = 1.0, column_axis: int = -1,
               dtype: _DTypeLikeInexact | None = None) -> Initializer:
    """Builds an initializer of (semi-)orthogonal matrices along `column_axis`, times `scale`."""
    def init(key, shape, dtype: _DTypeLikeInexact | None = dtype, out_sharding=None):
        if out_sharding is not None:
            raise _ShardcNotImplementedError("orthogonal initializers take no out_sharding (as in JAX)")
        dtype = _default(dtype)
        if len(shape) < 2:
            raise _ShardcValueError("orthogonal initializer requires at least a 2D shape")
        if any(d == 0 for d in shape):
            return _zeros_array(shape, dtype)
        n_rows, n_cols = _math.prod(shape) // shape[column_axis], shape[column_axis]
        q = _random_orthogonal(key, n_rows, dtype, n_cols)
        q = _reshape(q, tuple(_np.delete(shape, column_axis)) + (shape[column_axis],))
        q = _moveaxis(q, -1, column_axis)
        return _multiply(_array(scale, dtype), q)
    return init


def delta_orthogonal(scale: _RealNumeric = 1.0, column_axis: int = -1,
                     dtype: _DTypeLikeInexact | None = None) -> Initializer:
    """Builds an initializer for 3-5-D convolution kernels: zero but for an
    orthogonal matrix at the kernel's center (JAX's `delta_orthogonal`)."""
    def init(key, shape, dtype: _DTypeLikeInexact | None = dtype, out_sharding=None):
        if out_sharding is not None:
            raise _ShardcNotImplementedError("orthogonal initializers take no out_sharding (as in JAX)")
        dtype = _default(dtype)
        if len(shape) not in [3, 4, 5]:
            raise _ShardcValueError("Delta orthogonal initializer requires a 3D, 4D or 5D shape.")
        if shape[-1] < shape[-2]:
            raise _ShardcValueError("`fan_in` must be less or equal than `fan_out`. ")
        ortho = orthogonal(scale=scale, column_axis=column_axis, dtype=dtype)(key, shape[-2:])
        w = _zeros_array(shape, dtype)
        center = tuple((k - 1) // 2 for k in shape[:-2])
        return w.at[center + (Ellipsis,)].set(ortho)
    return init
