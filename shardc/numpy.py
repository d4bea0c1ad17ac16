"""`shardc.numpy`, as `jax.numpy`: `import shardc.numpy as jnp` is the porting contract's
import line (SPEC §2b). The functions are shardc's own (global view, sharding types, JAX's
promotion); the scalar types (`float32`, `int8`, ...) are dtypes that also construct shardc
arrays (`jnp.float32(0.5)`), as JAX's; abstract scalar types (`floating`, ...) and dtype helpers
(`finfo`, `promote_types`, ...) are JAX's own (they describe dtypes, they do not compute).
What `jax.numpy` has and this module does not yet, and what cannot exist in a compiled
program, is listed in docs/numpy.md and checked by tests/differential/test_numpy_namespace.py.
"""
import sys as _sys
from typing import Any as _Any

import jax as _jax
import jax.numpy as _jnp
import numpy as _np
from jax.numpy import (  # noqa: F401  (dtype descriptions and pure-Python helpers, as JAX's)
    ComplexWarning,
    __array_namespace_info__,  # noqa: F401  (JAX's: the devices and dtypes it lists are shardc's too)
    character,
    complexfloating,
    dtype,
    einsum_path,
    finfo,
    flexible,
    floating,
    fromfile,  # (JAX's NotImplementedError: reading a file is a side effect under jit)
    generic,
    get_printoptions,
    iinfo,
    index_exp,
    inexact,
    integer,
    isdtype,
    issubdtype,
    iterable,
    number,
    object_,
    printoptions,
    s_,
    save,
    savez,
    set_printoptions,
    signedinteger,
    unsignedinteger,
)

from . import _ufunc as _uf
from ._ufunc import frompyfunc, ufunc  # noqa: F401  (jnp.ufunc, JAX's generic methods)
from .batching import vectorize  # noqa: F401  (jnp.vectorize: over sc.vmap)
from .batching import vmap as _vmap
from .core import Tracer as _Tracer
from .errors import ShardcValueError as _ShardcValueError
from .ops import (  # noqa: F401
    abs,
    absolute,
    all,
    amax,
    amin,
    any,
    arange,
    arctan2,
    argmax,
    argmin,
    array,
    asarray,
    astype,
    bitwise_not,
    broadcast_to,
    cbrt,
    ceil,
    clip,
    concatenate,
    cos,
    cumprod,
    cumsum,
    divide,
    dot,
    einsum,
    empty,
    equal,
    exp,
    expand_dims,
    expm1,
    floor,
    floor_divide,
    full,
    full_like,
    greater,
    greater_equal,
    invert,
    isfinite,
    less,
    less_equal,
    log,
    log1p,
    logical_not,
    matmul,
    max,
    mean,
    min,
    mod,
    moveaxis,
    not_equal,
    ones,
    ones_like,
    outer,
    permute_dims,
    power,
    prod,
    ravel,
    reciprocal,
    remainder,
    reshape,
    round,
    sign,
    sin,
    sqrt,
    square,
    squeeze,
    stack,
    std,
    sum,
    swapaxes,
    take,
    take_along_axis,
    tan,
    tanh,
    tensordot,
    transpose,
    true_divide,
    var,
    where,
    zeros,
    zeros_like,
)
from .ops import construct as _construct
from .ops import math as _math
from .ops import nan_reductions as _nan_reductions
from .ops import numpy_fft as fft
from .ops import numpy_linalg as linalg
from .ops import numpy_more as _numpy_more
from .ops import polynomial as _polynomial
from .ops import sorting as _sorting
from .ops import switch as _switch
from .ops._util import type_of as _type_of
from .ops.array_methods import ARRAY_API_VERSION as __array_api_version__  # noqa: F401  (the array API standard)
from .ops.construct import *  # noqa: F403
from .ops.construct import promote_types, shape  # noqa: F401  (shape: a function; promote_types: JAX's on our flag)
from .ops.conv import convolve, correlate  # noqa: F401
from .ops.math import *  # noqa: F403
from .ops.math import select  # noqa: F401  (jnp.select; `sc.select` is the two-way where)
from .ops.nan_reductions import *  # noqa: F403
from .ops.numpy_more import *  # noqa: F403
from .ops.padding import pad  # noqa: F401
from .ops.polynomial import *  # noqa: F403
from .ops.scalar_types import (  # noqa: F401  (dtypes that are also constructors: jnp.float32(0.5))
    bfloat16,
    bool_,
    cdouble,
    complex64,
    complex128,
    complex_,
    csingle,
    double,
    float4_e2m1fn,
    float6_e2m3fn,
    float6_e3m2fn,
    float8_e3m4,
    float8_e4m3,
    float8_e4m3b11fnuz,
    float8_e4m3fn,
    float8_e4m3fnuz,
    float8_e5m2,
    float8_e5m2fnuz,
    float8_e8m0fnu,
    float16,
    float32,
    float64,
    float_,
    int1,
    int2,
    int4,
    int8,
    int16,
    int32,
    int64,
    int_,
    single,
    uint,
    uint1,
    uint2,
    uint4,
    uint8,
    uint16,
    uint32,
    uint64,
)
from .ops.scalar_types import (
    bool_ as bool,
)
from .ops.sorting import *  # noqa: F403  (`where` here also takes the condition alone)
from .runtime.array import Array as ndarray

# jax.numpy's 14 ufunc objects (`jnp.add.reduce`, `jnp.maximum.at`, ...) over shardc's functions:
# `shardc.numpy.add(x, y)` is `sc.add(x, y)`; the flat `sc.add` stays the plain function
(add, bitwise_and, bitwise_or, bitwise_xor, logaddexp, logaddexp2, logical_and, logical_or, logical_xor, maximum,
 minimum, multiply, negative, subtract) = (
    _uf.add, _uf.bitwise_and, _uf.bitwise_or, _uf.bitwise_xor, _uf.logaddexp, _uf.logaddexp2, _uf.logical_and,
    _uf.logical_or, _uf.logical_xor, _uf.maximum, _uf.minimum, _uf.multiply, _uf.negative, _uf.subtract)

# `import shardc.numpy.linalg` (as `import jax.numpy.linalg`)
_sys.modules[__name__ + ".linalg"] = linalg
_sys.modules[__name__ + ".fft"] = fft

e, euler_gamma, inf, nan, pi = _np.e, _np.euler_gamma, _np.inf, _np.nan, _np.pi
newaxis = None


def _is_array(a: _Any) -> bool:
    return isinstance(a, _Tracer) or getattr(a, "_shardc_type", None) is not None


def load(file, *args, **kwargs):
    """`jnp.load`: NumPy's load, an `.npy` array (bfloat16 restored, as JAX's) as an `sc.Array`;
    `.npz` archives stay NumPy's, as in JAX."""
    out = _jnp.load(file, *args, **kwargs)
    return asarray(out) if isinstance(out, _jax.Array) else out


def from_dlpack(x, /, *, device=None, copy=None):
    """`jnp.from_dlpack`: another runtime's buffer (a DLPack capsule or exporter) as an `sc.Array`."""
    return asarray(_jnp.from_dlpack(x, device=device, copy=copy))


def ndim(a: _Any) -> int:
    """Number of dims of an array, traced value or array-like (`jnp.ndim`)."""
    return _type_of(a).ndim if _is_array(a) else _np.ndim(a)


def fromfunction(function, shape, *, dtype=float, **kwargs):  # noqa: F811  (JAX's parameter name)
    """`function` of the index grids of `shape` (one `vmap` per dim, as `jnp.fromfunction`)."""
    shape = tuple(int(s) for s in shape)
    for i in range(len(shape)):
        in_axes = [0 if i == j else None for j in range(len(shape))]
        function = _vmap(function, in_axes=tuple(in_axes[::-1]))
    return function(*(arange(s, dtype=dtype) for s in shape), **kwargs)


def piecewise(x, condlist, funclist, *args, **kw):
    """`funclist[i]` (a function or a constant) where `condlist[i]`, JAX's algorithm: the index of
    the last true condition (`argmax` of a cumulative sum) picks a `switch` branch per element
    (`vectorize(switch)`, so a batched index becomes a select over the branches)."""
    x_arr = asarray(x)
    nc, nf = len(condlist), len(funclist)
    if nf == nc + 1:
        funclist = funclist[-1:] + funclist[:-1]
    elif nf == nc:
        funclist = [0] + list(funclist)
    else:
        raise _ShardcValueError(f"with {nc} condition(s), either {nc} or {nc+1} functions are expected; got {nf}")
    if isinstance(condlist, (list, tuple)):   # `asarray(condlist, dtype=bool)` of traced conditions
        conds = stack([asarray(c, dtype=bool_) for c in condlist]) if condlist else asarray([], dtype=bool_)
    else:
        conds = asarray(condlist, dtype=bool_)
    indices = argmax(cumsum(concatenate([zeros_like(conds[:1]), conds], 0), 0), 0)
    d = _type_of(x_arr).dtype

    def _call(f):
        return lambda v: astype(f(v, *args, **kw), d)

    def _const(c):
        return lambda v: array(c, dtype=d)

    branches = [_call(f) if callable(f) else _const(f) for f in funclist]
    return vectorize(_switch, excluded=(1,))(indices, branches, x_arr)


def _host(a):
    """A shardc array's values as a (single-device) `jax.Array`: JAX's printers then format them
    exactly as JAX does (NumPy's printer on a `jax.Array` formats each element through Python)."""
    return _jnp.asarray(_np.asarray(a)) if _is_array(a) else a


def array_repr(arr, max_line_width=None, precision=None, suppress_small=None) -> str:
    """`jnp.array_repr` (NumPy's, re-exported by JAX) of the fetched values. Eager only: the values
    must exist. (JAX's own fails on arrays sharded on Explicit axes: NumPy indexes them element by
    element.)"""
    return _jnp.array_repr(_host(arr), max_line_width, precision, suppress_small)


def array_str(a, max_line_width=None, precision=None, suppress_small=None) -> str:
    """`jnp.array_str` of the fetched values (eager only, as `array_repr`)."""
    return _jnp.array_str(_host(a), max_line_width, precision, suppress_small)


def size(a: _Any, axis: "int | None" = None) -> int:
    """Number of elements, or the size of `axis` (`jnp.size`)."""
    shp = _type_of(a).shape if _is_array(a) else _np.shape(a)
    if axis is None:
        return int(_np.prod(shp, dtype=_np.int64))
    return int(shp[axis])


__all__ = [
    'abs', 'absolute', 'add', 'all', 'amax', 'amin', 'any', 'arange', 'arctan2', 'argmax', 'argmin',
    'array', 'asarray', 'astype', 'bfloat16', 'bitwise_and', 'bitwise_not', 'bitwise_or',
    'bitwise_xor', 'bool', 'bool_', 'broadcast_to', 'cbrt', 'ceil', 'clip', 'complex128',
    'complex64', 'complexfloating', 'concatenate', 'cos', 'cumprod', 'cumsum', 'divide', 'dot',
    'double', 'dtype', 'e', 'einsum', 'empty', 'equal', 'euler_gamma', 'exp', 'expand_dims',
    'expm1', 'finfo', 'float16', 'float32', 'float64', 'float_', 'floating', 'floor',
    'floor_divide', 'full', 'full_like', 'generic', 'greater', 'greater_equal', 'iinfo', 'inexact',
    'inf', 'int16', 'int32', 'int64', 'int8', 'int_', 'integer', 'invert', 'isfinite', 'issubdtype',
    'less', 'less_equal', 'log', 'log1p', 'logical_and', 'logical_not', 'logical_or', 'matmul',
    'max', 'maximum', 'mean', 'min', 'minimum', 'mod', 'moveaxis', 'multiply', 'nan', 'ndarray',
    'ndim', 'negative', 'newaxis', 'not_equal', 'number', 'ones', 'ones_like', 'outer',
    'permute_dims', 'pi', 'power', 'prod', 'promote_types', 'ravel', 'reciprocal', 'remainder',
    'reshape', 'round', 'select', 'sign', 'signedinteger', 'sin', 'single', 'size', 'sqrt',
    'square', 'squeeze', 'stack', 'std', 'subtract', 'sum', 'swapaxes', 'take', 'take_along_axis',
    'tan', 'tanh', 'tensordot', 'transpose', 'true_divide', 'uint', 'uint16', 'uint32', 'uint64',
    'uint8', 'unsignedinteger', 'var', 'vectorize', 'where', 'zeros', 'zeros_like',
]
#: dtype descriptions and pure-Python helpers of JAX's (they describe, they do not compute: shardc
#: arrays of the narrow float/int and complex dtypes do not exist yet, and making one says so), and
#: the host side of a script: file I/O, print options, DLPack
_JAX_DESCRIPTIONS = {
    "ComplexWarning", "character", "flexible", "object_", "fromfile", "get_printoptions", "printoptions",
    "set_printoptions", "save", "savez", "load", "from_dlpack",
    "cdouble", "complex_", "csingle", "float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn", "float8_e3m4",
    "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz",
    "float8_e8m0fnu", "int1", "int2", "int4", "uint1", "uint2", "uint4", "isdtype", "einsum_path", "index_exp",
    "iterable", "s_"}
__all__ = sorted(set(__all__) | _JAX_DESCRIPTIONS | {"linalg", "fft", "shape", "apply_along_axis", "pad", "fromfunction", "convolve", "correlate"}
                 | {"piecewise", "array_repr", "array_str", "frompyfunc", "ufunc"} | set(_numpy_more.__all__) | set(_math.__all__) | set(_construct.__all__)
                 | set(_nan_reductions.__all__) | set(_polynomial.__all__) | set(_sorting.__all__))


def __dir__() -> list[str]:
    """`dir(shardc.numpy)` lists `jax.numpy`'s names only (no helpers or imports)."""
    return list(__all__)
