"""`jnp.float32` and friends: dtypes that are also constructors, as JAX's `_ScalarMeta`.

`jnp.float32(0.5)` is a rank-0 array (a shardc `Array` here, a tracer inside a program),
`jnp.float32` works wherever a dtype does (`np.dtype(jnp.float32)`, `dtype=jnp.float32`,
`x.astype(jnp.float32)`), equals NumPy's scalar type and checks instances of it. Ported from
jax/_src/numpy/scalar_types.py; the constructor is `shardc.numpy.asarray`.
"""
from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from ..errors import ShardcTypeError
from .creation import asarray

__all__ = [
    "bfloat16", "bool_", "cdouble", "complex64", "complex128", "complex_", "csingle", "double",
    "float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn", "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz",
    "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu", "float16",
    "float32", "float64", "float_", "int1", "int2", "int4", "int8", "int16", "int32", "int64", "int_",
    "single", "uint", "uint1", "uint2", "uint4", "uint8", "uint16", "uint32", "uint64",
]


class _ScalarMeta(type):
    dtype: np.dtype

    @property
    def __numpy_dtype__(cls) -> np.dtype:      # NumPy >= 2.4's protocol
        return cls.dtype

    def __hash__(cls) -> int:
        return hash(cls.dtype.type)

    def __eq__(cls, other: Any) -> bool:
        return cls is other or cls.dtype.type == other

    def __ne__(cls, other: Any) -> bool:
        return not (cls == other)

    def __call__(cls, x: Any):
        return asarray(x, dtype=cls.dtype)

    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, cls.dtype.type)

    def __jax_array__(cls):                     # (JAX: "cannot be interpreted as a JAX array")
        raise ShardcTypeError(f"JAX scalar type {cls} cannot be interpreted as a JAX array.")


def _make(np_scalar_type: type) -> _ScalarMeta:
    meta = _ScalarMeta(np_scalar_type.__name__, (object,), {"dtype": np.dtype(np_scalar_type)})
    meta.__module__ = "shardc.numpy"
    meta.__doc__ = (f"A scalar constructor of type {np_scalar_type.__name__} (as jax.numpy's): scalars are "
                    "rank-0 arrays.")
    return meta


bool_ = _make(np.bool_)
uint1 = _make(ml_dtypes.uint1) if hasattr(ml_dtypes, "uint1") else None
uint2 = _make(ml_dtypes.uint2)
uint4 = _make(ml_dtypes.uint4)
uint8 = _make(np.uint8)
uint16 = _make(np.uint16)
uint32 = _make(np.uint32)
uint64 = _make(np.uint64)
int1 = _make(ml_dtypes.int1) if hasattr(ml_dtypes, "int1") else None
int2 = _make(ml_dtypes.int2)
int4 = _make(ml_dtypes.int4)
int8 = _make(np.int8)
int16 = _make(np.int16)
int32 = _make(np.int32)
int64 = _make(np.int64)
float4_e2m1fn = _make(ml_dtypes.float4_e2m1fn)
float6_e2m3fn = _make(ml_dtypes.float6_e2m3fn)
float6_e3m2fn = _make(ml_dtypes.float6_e3m2fn)
float8_e3m4 = _make(ml_dtypes.float8_e3m4)
float8_e4m3 = _make(ml_dtypes.float8_e4m3)
float8_e8m0fnu = _make(ml_dtypes.float8_e8m0fnu)
float8_e4m3fn = _make(ml_dtypes.float8_e4m3fn)
float8_e4m3fnuz = _make(ml_dtypes.float8_e4m3fnuz)
float8_e5m2 = _make(ml_dtypes.float8_e5m2)
float8_e5m2fnuz = _make(ml_dtypes.float8_e5m2fnuz)
float8_e4m3b11fnuz = _make(ml_dtypes.float8_e4m3b11fnuz)
bfloat16 = _make(ml_dtypes.bfloat16)
float16 = _make(np.float16)
float32 = single = _make(np.float32)
float64 = double = _make(np.float64)
complex64 = csingle = _make(np.complex64)
complex128 = cdouble = _make(np.complex128)

int_ = int64
uint = uint64
float_ = float64
complex_ = complex128
