"""The user-facing operations (global view), named and shaped like their
`jax.numpy` / `jax.nn` / `jax.lax` namesakes. Each lowers to primitives through
`bind`, so the same function works inside programs and eagerly on arrays."""
from . import array_methods  # noqa: F401  (installs the operators and methods of Tracer and Array)
from ._util import result_dtype
from .activations import gelu, log_softmax, logsumexp, relu, silu, softmax, swish
from .control_flow import cond, fori_loop, scan, switch, while_loop
from .creation import arange, array, asarray, broadcast_to, empty, full, full_like, ones, ones_like, zeros, zeros_like
from .elementwise import (
                          abs,
                          absolute,
                          add,
                          arctan2,
                          astype,
                          binary_op,
                          bitwise_and,
                          bitwise_not,
                          bitwise_or,
                          bitwise_xor,
                          cbrt,
                          ceil,
                          clip,
                          cos,
                          divide,
                          equal,
                          erf,
                          exp,
                          expm1,
                          floor,
                          floor_divide,
                          greater,
                          greater_equal,
                          invert,
                          isfinite,
                          less,
                          less_equal,
                          log,
                          log1p,
                          logical_and,
                          logical_not,
                          logical_or,
                          maximum,
                          minimum,
                          mod,
                          multiply,
                          negative,
                          not_equal,
                          power,
                          reciprocal,
                          remainder,
                          round,
                          rsqrt,
                          select,
                          sigmoid,
                          sign,
                          sin,
                          sqrt,
                          square,
                          subtract,
                          tan,
                          tanh,
                          true_divide,
                          where,
)
from .indexing import getitem, one_hot, take, take_along_axis
from .linalg import dot, dot_general, einsum, matmul, outer, tensordot
from .manual import (
                          all_gather,
                          all_to_all,
                          axis_index,
                          axis_size,
                          pcast,
                          pmax,
                          pmean,
                          pmin,
                          ppermute,
                          psum,
                          psum_scatter,
                          shard_map,
)
from .reductions import (
                          all,
                          amax,
                          amin,
                          any,
                          argmax,
                          argmin,
                          cummax,
                          cummin,
                          cumprod,
                          cumsum,
                          max,
                          mean,
                          min,
                          prod,
                          std,
                          sum,
                          var,
)
from .shape import (
                          concatenate,
                          expand_dims,
                          moveaxis,
                          permute_dims,
                          ravel,
                          reshape,
                          squeeze,
                          stack,
                          swapaxes,
                          transpose,
)
from .sharding import auto_axes, device_put, explicit_axes, reshard, stop_gradient, with_sharding_constraint
from .smap import smap

__all__ = [
    "arange",
    "array",
    "asarray",
    "empty",
    "full",
    "full_like",
    "ones",
    "ones_like",
    "zeros",
    "zeros_like",
    "abs",
    "absolute",
    "add",
    "arctan2",
    "astype",
    "binary_op",
    "bitwise_and",
    "bitwise_not",
    "bitwise_or",
    "bitwise_xor",
    "cbrt",
    "ceil",
    "clip",
    "cos",
    "divide",
    "equal",
    "erf",
    "exp",
    "expm1",
    "floor",
    "floor_divide",
    "greater",
    "greater_equal",
    "invert",
    "isfinite",
    "less",
    "less_equal",
    "log",
    "log1p",
    "logical_and",
    "logical_not",
    "logical_or",
    "maximum",
    "minimum",
    "mod",
    "multiply",
    "negative",
    "not_equal",
    "power",
    "reciprocal",
    "remainder",
    "round",
    "rsqrt",
    "select",
    "sigmoid",
    "sign",
    "sin",
    "sqrt",
    "square",
    "subtract",
    "tan",
    "tanh",
    "true_divide",
    "where",
    "dot",
    "dot_general",
    "einsum",
    "matmul",
    "outer",
    "tensordot",
    "gelu",
    "log_softmax",
    "logsumexp",
    "relu",
    "silu",
    "softmax",
    "swish",
    "all",
    "amax",
    "amin",
    "any",
    "argmax",
    "argmin",
    "cummax",
    "cummin",
    "cumprod",
    "cumsum",
    "max",
    "mean",
    "min",
    "prod",
    "std",
    "sum",
    "var",
    "broadcast_to",
    "concatenate",
    "expand_dims",
    "getitem",
    "moveaxis",
    "permute_dims",
    "ravel",
    "reshape",
    "squeeze",
    "stack",
    "swapaxes",
    "transpose",
    "auto_axes",
    "device_put",
    "explicit_axes",
    "reshard",
    "stop_gradient",
    "with_sharding_constraint",
    "all_gather",
    "all_to_all",
    "axis_index",
    "axis_size",
    "pcast",
    "pmax",
    "pmean",
    "pmin",
    "ppermute",
    "psum",
    "psum_scatter",
    "shard_map",
    "smap",
    "result_dtype",
    "one_hot",
    "take",
    "take_along_axis",
    "cond",
    "fori_loop",
    "scan",
    "switch",
    "while_loop",
]

# jax.numpy's elementwise math, shapes and construction, NaN reductions and products (issue 12)
from . import construct as _construct  # noqa: E402
from . import lax_extra as _lax_extra  # noqa: E402,F401  (more of `shardc.lax`: rng, platform_dependent, ...)
from . import lax_ops  # noqa: E402,F401  (`shardc.lax`'s contractions)
from . import math as _math  # noqa: E402
from . import nan_reductions as _nan_reductions  # noqa: E402
from . import polynomial as _polynomial  # noqa: E402
from . import sorting as _sorting  # noqa: E402
from .construct import *  # noqa: E402,F403
from .math import *  # noqa: E402,F403
from .nan_reductions import *  # noqa: E402,F403
from .padding import pad  # noqa: E402  (jnp.pad: its statistics reach sorting's median)
from .polynomial import *  # noqa: E402,F403
from .sorting import *  # noqa: E402,F403  (sorting, set ops, nonzero/where(cond), quantiles)

__all__ += [n for n in _math.__all__ + _construct.__all__ + _nan_reductions.__all__ + _polynomial.__all__
            if n not in __all__]
__all__ += [n for n in _sorting.__all__ if n not in __all__]
__all__ += ["pad"]

# lax's convolutions (`shardc.lax` forwards them here) and jnp.convolve / jnp.correlate
from . import conv  # noqa: E402,F401  (`shardc.lax`'s convolutions)
from .conv import convolve, correlate  # noqa: E402

__all__ += ["convolve", "correlate"]

# `shardc.lax`'s windowed and generic reductions (reduce_window, reduce, associative_scan, ...)
from . import windowed  # noqa: E402,F401  (`shardc.lax`'s windowed and generic reductions)

# `jax.ops`' segment reductions: `import shardc as jax` makes `jax.ops` this package
from .segment import segment_max, segment_min, segment_prod, segment_sum  # noqa: E402

__all__ += ["segment_max", "segment_min", "segment_prod", "segment_sum"]

# `shardc.lax.linalg`'s qdwh and cholesky_update, and `shardc.lax.scaled_dot`
from . import qdwh, scaled_dot  # noqa: E402,F401
