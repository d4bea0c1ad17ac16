"""The user-facing operations (global view), named and shaped like their
`jax.numpy` / `jax.nn` / `jax.lax` namesakes. Each lowers to primitives through
`bind`, so the same function works inside programs and eagerly on arrays."""
from .creation import arange, array, asarray, empty, full, full_like, ones, ones_like, zeros, zeros_like
from .elementwise import (abs, absolute, add, arctan2, astype, binary_op, bitwise_and, bitwise_not,
                          bitwise_or, bitwise_xor, cbrt, ceil, clip, cos, divide, equal, erf, exp, expm1,
                          floor, floor_divide, greater, greater_equal, invert, isfinite, less, less_equal,
                          log, log1p, logical_and, logical_not, logical_or, maximum, minimum, mod,
                          multiply, negative, not_equal, power, reciprocal, remainder, round, rsqrt,
                          select, sigmoid, sign, sin, sqrt, square, subtract, tan, tanh, true_divide, where)
from .linalg import dot, dot_general, einsum, matmul, outer, tensordot
from .nn import gelu, log_softmax, logsumexp, relu, silu, softmax, swish
from .reductions import (all, amax, amin, any, argmax, argmin, cummax, cummin, cumprod, cumsum, max,
                         mean, min, prod, std, sum, var)
from .shape import (broadcast_to, concatenate, expand_dims, getitem, moveaxis, permute_dims, ravel,
                    reshape, squeeze, stack, swapaxes, transpose)
from .sharding import auto_axes, explicit_axes, reshard, with_sharding_constraint
from .manual import (all_gather, all_to_all, axis_index, axis_size, pcast, pmax, pmean, pmin, ppermute,
                     psum, psum_scatter, shard_map)
from ._util import result_dtype
from .indexing import one_hot, take, take_along_axis
from .control_flow import cond, fori_loop, scan
