"""Promotion-free wrappers over the primitives (JAX's `lax` layer).

Each function binds one primitive (or a fixed few) with JAX's `lax`
semantics: operands already share a dtype (no promotion lattice, no
`jnp`-style integer-to-float conversion); Python scalars and NumPy constants
take the dtype of the array operand (Python scalars also its weak type), and
lower-rank operands get leading size-1 dims (NumPy rank promotion, which the
n-ary primitives' broadcasting rule then handles). Transformation rules (VJP
now, batching and JVP next) build programs from these, never from
`shardc.ops`, so the layers stay one-way: core → primitives → lax → ops.
"""
from __future__ import annotations

import builtins
import warnings
from typing import Any, Sequence

import jax.lax as _jax_lax
import numpy as np
from jax.lax import GatherScatterMode  # JAX's enum of gather/scatter modes (a description)

from . import core as _core
from . import dtypes as dt
from .core import Const, Tracer, bind, current_api, current_trace, foreign_type, literal_type, raise_user_error, typeof
from .errors import ShardcTypeError, ShardcValueError, ShardingTypeError
from .mesh import AxisType, get_abstract_mesh
from .primitives import bitwise as bw
from .primitives import collectives as coll
from .primitives import complex as cx
from .primitives import conv as _cvp
from .primitives import elementwise as ew
from .primitives import fft as _fft
from .primitives import gather as _gp
from .primitives import reductions as rd
from .primitives import shape as sp
from .primitives import sharding_ops as so
from .sharding import PartitionSpec
from .types import ArrayType

#: the promotion-free wrappers defined here (what transformation rules build with)
WRAPPERS = [
    "add", "sub", "mul", "div", "neg", "max", "min", "pow", "rem", "atan2",
    "eq", "ne", "lt", "le", "gt", "ge",
    "sign", "sin", "cos", "exp", "log", "integer_pow", "convert_element_type",
    "reduce_sum", "reshape", "transpose", "expand_dims", "broadcast_in_dim",
    "full", "full_like", "zeros_like", "select_n", "reshard",
    "rsqrt", "square", "sinh", "cosh",
    "shift_left", "shift_right_logical", "shift_right_arithmetic", "bitcast_convert_type",
    "population_count", "clz", "erf_inv",
    "real", "imag", "complex", "conj",
]
#: the FFT (`primitives/fft.py`)
FFT_NAMES = ["fft", "FftType"]
#: JAX's `lax` names whose functions live in `shardc.ops` (above this module) with `lax`
#: semantics already: control flow, collectives, the sharding assertions
FROM_OPS = [
    "cond", "fori_loop", "map", "scan", "switch", "while_loop", "stop_gradient", "with_sharding_constraint",
    "all_gather", "all_to_all", "axis_index", "axis_size", "pcast", "pmax", "pmean", "pmin",
    "ppermute", "psum", "psum_scatter",
]
#: JAX `lax` functions defined in `shardc.ops.lax_ops` (contractions, which build on `ops.linalg`)
FROM_LAX_OPS = ["dot", "dot_general", "batch_matmul"]
#: more of JAX's `lax` names defined below (public only: rules use `WRAPPERS`)
PUBLIC = [
    "abs", "acos", "acosh", "argmax", "argmin", "asin", "asinh", "atan", "atanh", "bitwise_and",
    "bitwise_not", "bitwise_or", "bitwise_xor", "broadcast", "broadcasted_iota", "cbrt", "ceil", "clamp",
    "concatenate", "cosh", "cumlogsumexp", "cummax", "cummin", "cumprod", "cumsum", "dynamic_index_in_dim",
    "dynamic_slice", "dynamic_slice_in_dim", "dynamic_update_index_in_dim", "dynamic_update_slice",
    "dynamic_update_slice_in_dim", "erf", "exp2", "expm1", "floor", "index_in_dim", "iota", "is_finite",
    "log1p", "logistic", "pad", "reciprocal", "reduce_and", "reduce_max", "reduce_min", "reduce_or",
    "reduce_prod", "rev", "round", "rsqrt", "select", "sinh", "slice", "slice_in_dim", "split", "sqrt",
    "square", "squeeze", "tan", "tanh", "tile", "RoundingMethod",
    "lgamma", "digamma", "erfc", "polygamma", "zeta", "nextafter", "bessel_i0e", "bessel_i1e",
    "broadcast_shapes", "broadcast_to_rank", "collapse", "dtype", "stack", "unstack",
]
#: JAX `lax` names of sorting, indexing (and random_gamma_grad): name -> (module of `shardc.ops`, function there)
FROM_SORT_INDEX = {
    "sort": ("sorting", "lax_sort"), "sort_key_val": ("sorting", "sort_key_val"), "top_k": ("sorting", "top_k"),
    "gather": ("indexing", "lax_gather"), "scatter": ("indexing", "lax_scatter"),
    "scatter_add": ("indexing", "lax_scatter_add"), "scatter_sub": ("indexing", "lax_scatter_sub"),
    "scatter_mul": ("indexing", "lax_scatter_mul"), "scatter_min": ("indexing", "lax_scatter_min"),
    "scatter_max": ("indexing", "lax_scatter_max"), "scatter_apply": ("indexing", "lax_scatter_apply"),
    "GatherDimensionNumbers": ("gp", "GatherDimensionNumbers"),
    "ScatterDimensionNumbers": ("gp", "ScatterDimensionNumbers"),
    "GatherScatterMode": ("jax", "GatherScatterMode"),
    "random_gamma_grad": ("special", "random_gamma_grad"),  # a composite of while_loops, as JAX's
}
#: JAX `lax` functions defined in `shardc.ops.lax_extra` (compositions of primitives, as JAX's)
FROM_LAX_EXTRA = ["broadcast_like", "index_take", "empty", "stage", "optimization_barrier", "pshuffle",
                  "pswapaxes", "platform_dependent", "rng_bit_generator", "rng_uniform", "mulhi", "ragged_dot",
                  "ragged_dot_general", "igamma", "igammac", "igamma_grad_a", "betainc"]
#: JAX's own argument-description types (enums, dataclasses, aliases), re-exported: they do not compute
JAX_TYPES = ["AccuracyMode", "DotAlgorithm", "DotAlgorithmPreset", "DotDimensionNumbers", "Precision",
             "PrecisionLike", "RaggedDotDimensionNumbers", "RandomAlgorithm", "Tolerance"]
#: JAX `lax` convolutions: functions in `shardc.ops.conv`, pure shape helpers beside the primitive
FROM_CONV = ["conv", "conv_general_dilated", "conv_general_dilated_local", "conv_general_dilated_patches",
             "conv_transpose", "conv_with_general_padding"]
CONV_HELPERS = ["ConvDimensionNumbers", "ConvGeneralDilatedDimensionNumbers", "conv_dimension_numbers",
                "conv_general_permutations", "conv_general_shape_tuple", "conv_shape_tuple",
                "conv_transpose_shape_tuple", "padtype_to_pads"]
#: JAX `lax` functions defined in `shardc.ops.windowed` (windowed and generic reductions)
FROM_WINDOWED = ["reduce_window", "reduce", "reduce_xor", "reduce_precision", "associative_scan", "approx_max_k",
                 "approx_min_k", "reduce_window_shape_tuple"]
#: JAX `lax` names defined above `autodiff` (they transpose user functions): filled by those modules at
#: import (`shardc/solves.py`), so this layer never imports them
LATE: dict[str, Any] = {}
LATE_NAMES = ["custom_linear_solve", "custom_root"]
#: internal wrappers that are not `jax.lax` names (JAX has `jax.sharding.reshard`, `jnp.zeros_like`)
_NOT_JAX_LAX = {"reshard", "zeros_like"}
__all__ = sorted(set(WRAPPERS + FROM_OPS + FROM_LAX_OPS + PUBLIC + list(FROM_SORT_INDEX) + FROM_LAX_EXTRA
                     + JAX_TYPES + FROM_WINDOWED) - _NOT_JAX_LAX)
__all__ = sorted(set(__all__) | set(FROM_CONV) | set(CONV_HELPERS))
__all__ = sorted(set(__all__) | set(LATE_NAMES))
#: `jax.lax.linalg` is a submodule: here a namespace of the decompositions built (docs/lax.md)
__all__ = sorted(set(__all__) | set(FFT_NAMES) | {"linalg"})
__all__ = sorted(set(__all__) | {"scaled_dot"})   # `shardc.ops.scaled_dot` (the block-scaled dot)


def _ops():
    from . import ops  # late: `ops` imports this module; the names above are its functions
    return ops


def __getattr__(name: str):
    if name in FROM_OPS:
        ops = _ops()
        return getattr(ops, name) if name != "map" else ops.control_flow.map
    if name in FROM_LAX_OPS:
        return getattr(_ops().lax_ops, name)
    if name in FROM_WINDOWED:
        return getattr(_ops().windowed, name)
    if name in FROM_LAX_EXTRA:
        return getattr(_ops().lax_extra, name)
    if name in LATE:
        return LATE[name]
    if name in JAX_TYPES:
        return getattr(_jax_lax, name)
    if name in FROM_SORT_INDEX:
        mod, attr = FROM_SORT_INDEX[name]
        if mod == "gp":
            return getattr(_gp, attr)
        if mod == "jax":
            return GatherScatterMode
        return getattr(getattr(_ops(), mod), attr)
    if name in FROM_CONV:
        return getattr(_ops().conv, name)
    if name == "scaled_dot":
        return _ops().scaled_dot.scaled_dot
    if name == "linalg":  # `jax.lax.linalg`: decompositions and solvers (with qdwh, cholesky_update)
        return _ops().qdwh.lax_linalg
    if name in CONV_HELPERS:
        return getattr(_cvp, name)
    raise AttributeError(f"module 'shardc.lax' has no attribute {name!r}")


def __dir__() -> list[str]:
    """`dir(shardc.lax)` lists `jax.lax`'s names only (helpers and imports stay hidden)."""
    return list(__all__)
# Also used by `shardc.ops` (not part of the `lax` namespace): `is_array`,
# `type_of`, `rank_promote`, `reduced_scalar_reshard`.


# --- operands ------------------------------------------------------------------------------
def is_array(x: Any) -> bool:
    """A traced value or an `sc.Array` (not a constant)."""
    return isinstance(x, Tracer) or getattr(x, "_shardc_type", None) is not None


def type_of(x: Any) -> ArrayType:
    """The type of an operand: a traced value, an array (ours or JAX's) or a
    constant (typed on the context mesh)."""
    if type(x) is Tracer:  # the common case, first
        return x._var.type
    if is_array(x):
        return typeof(x)
    t = foreign_type(x) if not isinstance(x, Const) else None
    return t if t is not None else literal_type(x, get_abstract_mesh())


def _const(x: Any, dtype: np.dtype, weak: bool) -> Const:
    """A constant operand as `dtype`: Python scalars keep the array operand's
    weak type, NumPy constants are strong."""
    if isinstance(x, Const):
        return x if x.value.dtype == dtype else Const(x.value.astype(dtype), dtype, x.weak)
    is_py = isinstance(x, (bool, int, float, builtins.complex))
    return Const(np.asarray(x, dtype=dtype), dtype, weak and is_py)


#: the `jnp` function JAX's same-dtypes error names for a `lax` op
_TIPS = {"add": "jnp.add", "sub": "jnp.subtract", "mul": "jnp.multiply", "div": "jnp.divide",
         "max": "jnp.maximum", "min": "jnp.minimum", "eq": "jnp.equal", "ne": "jnp.not_equal",
         "nextafter": "jnp.nextafter"}
#: JAX's dtype rule of each binary op, by position: accepted dtype kinds and their names
_NUM = ("iuf", "integer, floating, complexfloating")
_ACCEPT = {"add": (_NUM, _NUM), "sub": (_NUM, _NUM), "mul": (_NUM, _NUM), "div": (_NUM, _NUM),
           "rem": (("iuf", "integer, floating"),) * 2,
           "pow": (("f", "floating, complexfloating"), _NUM),
           "atan2": (("f", "floating, complexfloating"),) * 2,
           "and": (("iub", "integer, bool"),) * 2, "or": (("iub", "integer, bool"),) * 2,
           "xor": (("iub", "integer, bool"),) * 2}


def _check_positions(name: str, *xs: Any) -> None:
    """JAX's n-ary dtype rule: each array operand's dtype must be accepted at its position."""
    arrays = [type_of(x).dtype for x in xs if is_array(x)]
    for i, (x, (kinds, names)) in enumerate(zip(xs, _ACCEPT.get(name, ()))):
        if is_array(x) or arrays:   # a constant takes the (first) array's dtype
            d = type_of(x).dtype if is_array(x) or isinstance(x, Const) else arrays[0]
            if not (d.kind in kinds or (dt.is_custom_float(d) and "f" in kinds)
                    or (d.kind == "c" and "complexfloating" in names)):
                raise ShardcTypeError(f"{name} does not accept dtype {d.name} at position {i}. Accepted dtypes at "
                                      f"position {i} are subtypes of {names}.")


def _same_dtype(name: str, *xs: Any) -> list[Any]:
    """The operands with constants as the arrays' dtype; arrays must agree (as `lax`)."""
    arrays = [type_of(x) for x in xs if is_array(x)]
    if not arrays:
        t = type_of(xs[0])
        return [_const(x, t.dtype, t.weak_type) for x in xs]
    d = arrays[0].dtype
    if any(t.dtype != d for t in arrays):
        tip = _TIPS.get(name)
        raise ShardcTypeError(f"lax.{name} requires arguments to have the same dtypes, got "
                              + ", ".join(t.dtype.name for t in arrays) + "."
                              + (f" (Tip: {tip} is a similar function that does automatic type promotion on "
                                 "inputs)." if tip else ""))
    weak = all(t.weak_type for t in arrays)
    return [x if is_array(x) else _const(x, d, weak) for x in xs]


def rank_promote(*xs: Any) -> list[Any]:
    """NumPy rank promotion: prepend size-1 dims (spec None) to lower-rank operands. Every `jnp`
    function that broadcasts ranks does it here, so this is where `jax_numpy_rank_promotion`
    ('warn' / 'raise') is honoured, as JAX's `promote_shapes` does."""
    ts = [type_of(x) for x in xs]
    rank = builtins.max((t.ndim for t in ts), default=0)
    if dt.PROMOTION_FLAGS["rank"] != "allow" and len({t.ndim for t in ts if t.ndim}) > 1:
        _rank_promotion_warning_or_error([t.shape for t in ts])
    return [_expand_leading(x, t, rank) if 0 < t.ndim < rank else x for x, t in zip(xs, ts)]


#: the `jnp` function a Python operator calls (the name JAX's rank-promotion messages give)
_OPERATOR_FUNS = {"+": "add", "-": "subtract", "*": "multiply", "/": "true_divide", "//": "floor_divide",
                  "%": "remainder", "**": "power", "&": "bitwise_and", "|": "bitwise_or", "^": "bitwise_xor",
                  "<": "less", "<=": "less_equal", ">": "greater", ">=": "greater_equal", "==": "equal",
                  "!=": "not_equal"}


def _rank_promotion_warning_or_error(shapes: list[tuple[int, ...]]) -> None:
    """JAX's `_rank_promotion_warning_or_error`, naming the user's function."""
    api_name = current_api() or ""
    fun_name = _OPERATOR_FUNS.get(api_name, api_name.removeprefix("sc.").removeprefix("."))
    shapes_s = " ".join(map(str, shapes))
    if dt.PROMOTION_FLAGS["rank"] == "warn":
        warnings.warn(f"Following NumPy automatic rank promotion for {fun_name} on shapes {shapes_s}. "
                      "Set the jax_numpy_rank_promotion config option to 'allow' to disable this warning; "
                      "for more information, see https://docs.jax.dev/en/latest/rank_promotion_warning.html.",
                      stacklevel=3)
        return
    raise_user_error(ShardcValueError(
        f"Operands could not be broadcast together for {fun_name} on shapes {shapes_s} and with the config "
        "option jax_numpy_rank_promotion='raise'. For more information, see "
        "https://docs.jax.dev/en/latest/rank_promotion_warning.html."))


def _expand_leading(x: Any, t: ArrayType, rank: int) -> Any:
    k = rank - t.ndim
    if not is_array(x):
        return Const(np.reshape(x.value if isinstance(x, Const) else np.asarray(x),
                                (1,) * k + t.shape), t.dtype, t.weak_type)
    return bind(sp.broadcast_in_dim, x, shape=(1,) * k + t.shape,
                broadcast_dimensions=tuple(range(k, rank)), out_sharding=None)


def _all_explicit() -> bool:
    m = get_abstract_mesh()
    return not m.empty and all(t == AxisType.Explicit for t in m.axis_types)


def reduced_scalar_reshard(xs: Sequence[Any]) -> list[Any]:
    """`core.insert_reduced_reshard`: in an all-Explicit mesh a rank-0 operand
    replicated where the other is reduced is resharded to that reduced set."""
    xs = list(xs)
    if len(xs) != 2 or not _all_explicit():
        return xs
    ts = [type_of(x) for x in xs]
    for i, j in ((0, 1), (1, 0)):
        a, b = ts[i], ts[j]
        if a.ndim == 0 and not a.reduced and not a.unreduced and b.reduced:
            xs[i] = bind(so.reshard, xs[i], spec=PartitionSpec(reduced=b.reduced), mesh=b.mesh)
    return xs


# --- n-ary ---------------------------------------------------------------------------------
def _binary(name: str, x: Any, y: Any) -> Any:
    _strict_rank(name, x, y)
    _check_positions(name, x, y)
    x, y = _same_dtype(name, x, y)
    x, y = reduced_scalar_reshard([x, y])
    return bind(ew.BINARY[name], x, y)


def add(x, y): return _binary("add", x, y)
def sub(x, y): return _binary("sub", x, y)
def mul(x, y, *, out_dtype=None):
    """`lax.mul` (bools are rejected, as JAX: `jnp.multiply` maps them to `and`); `out_dtype`
    multiplies in that (wider) dtype."""
    if out_dtype is not None:
        x, y = convert_element_type(x, out_dtype), convert_element_type(y, out_dtype)
    return _binary("mul", x, y)
def div(x, y): return _binary("div", x, y)
def max(x, y): return _binary("max", x, y)  # noqa: A001  (lax's name)
def min(x, y): return _binary("min", x, y)  # noqa: A001  (lax's name)
def rem(x, y): return _binary("rem", x, y)
def atan2(x, y): return _binary("atan2", x, y)
def eq(x, y): return _binary("eq", x, y)
def ne(x, y): return _binary("ne", x, y)
def lt(x, y): return _binary("lt", x, y)
def le(x, y): return _binary("le", x, y)
def gt(x, y): return _binary("gt", x, y)
def ge(x, y): return _binary("ge", x, y)


def pow(x, y):  # noqa: A001  (lax's name)
    """`x ** y`; a Python integer exponent is an `integer_pow`, as `jnp.power` binds it."""
    if isinstance(y, (int, np.integer)) and not isinstance(y, bool):
        return integer_pow(x, int(y))
    if is_array(x) and is_array(y) and dt.is_float(type_of(x).dtype) and not dt.is_float(type_of(y).dtype):
        _strict_rank("pow", x, y)
        _check_positions("pow", x, y)
        y = convert_element_type(y, type_of(x).dtype) if type_of(y).dtype != dt.bool_ else y
    return _binary("pow", x, y)


def integer_pow(x, y: int):
    return bind(ew.integer_pow, x, y=int(y))


# --- unary ---------------------------------------------------------------------------------
def neg(x): return bind(ew.UNARY["neg"], x)
def sign(x): return bind(ew.UNARY["sign"], x)
def sin(x, *, accuracy=None): return bind(ew.UNARY["sin"], x)
def cos(x, *, accuracy=None): return bind(ew.UNARY["cos"], x)
def exp(x, *, accuracy=None): return bind(ew.UNARY["exp"], x)
def log(x, *, accuracy=None): return bind(ew.UNARY["log"], x)


# --- complex numbers -----------------------------------------------------------------------
def real(x): return bind(cx.real, _operand(x))
def imag(x): return bind(cx.imag, _operand(x))


def complex(x, y):  # noqa: A001  (lax's name)
    """`x + i y` for float32 operands of one dtype (no promotion, as `lax.complex`)."""
    _strict_rank("complex", x, y)
    for i, a in enumerate((x, y)):
        if is_array(a) and type_of(a).dtype != dt.float32:
            raise ShardcTypeError(f"complex does not accept dtype {type_of(a).dtype.name} at position {i}. "
                                  f"Accepted dtypes at position {i} are subtypes of float32, float64.")
    x, y = _same_dtype("complex", x, y)
    return bind(cx.complex_, x, y)


def conj(x):
    """The complex conjugate; a float32 operand gives a complex64 result (as `lax.conj`)."""
    x = _operand(x)
    return bind(cx.conj, x, input_dtype=type_of(x).dtype)


# --- FFT -----------------------------------------------------------------------------------
FftType = _fft.FftType
_FFT_NAMES = {s: t for t in FftType for s in (t.name, t.name.lower())}


def fft(x, fft_type, fft_lengths: Sequence[int]):
    """`lax.fft`: the operand converted as JAX does (RFFT: to a real inexact dtype, complex
    refused; the others: to complex), then the `fft` primitive over the trailing dims."""
    if isinstance(fft_type, str):
        typ = _FFT_NAMES.get(fft_type)
        if typ is None:
            raise ShardcValueError(f"Unknown FFT type '{fft_type}'")
    elif isinstance(fft_type, FftType):
        typ = fft_type
    else:
        raise ShardcTypeError(f"Unknown FFT type value '{fft_type}'")
    x = _operand(x)
    d = type_of(x).dtype
    if typ == FftType.RFFT:
        if dt.is_complex(d):
            raise ShardcValueError("only real valued inputs supported for rfft")
        x = convert_element_type(x, d if dt.is_float(d) else dt.float32)
    else:
        x = convert_element_type(x, dt.complex_dtype(d))
    lengths = tuple(int(n) for n in fft_lengths)
    if not lengths:
        return x  # XLA's FFT has no rank-0 form
    return bind(_fft.fft, x, fft_type=typ, fft_lengths=lengths)


def _cast_constant(v: np.ndarray, d: np.dtype) -> np.ndarray:
    """XLA's convert of a constant: an int wraps (-1 as uint8 is 255); a float to an int rounds toward
    zero and saturates (-1.5 as uint32 is 0), NaN to 0."""
    if dt.is_int(d) and (v.dtype.kind == "f" or dt.is_float(v.dtype)):
        info = np.iinfo(d)
        v = np.nan_to_num(np.trunc(v.astype(np.float64)), nan=0.0)
        return np.clip(v, info.min, info.max).astype(d)
    with np.errstate(invalid="ignore", over="ignore"):
        return v.astype(d)


def convert_element_type(operand, new_dtype) -> Any:
    """`operand` as a strong `new_dtype` (a constant is converted in place)."""
    x = operand
    d = dt.canonicalize(new_dtype)
    if not is_array(x):
        return Const(_cast_constant(np.asarray(x.value if isinstance(x, Const) else x), d), d, False)
    t = type_of(x)
    if t.dtype == d and not t.weak_type:
        return x
    return bind(ew.convert_element_type, x, new_dtype=d, weak_type=False)


@_core.dispatches("lax.select_n")
def select_n(which, *cases):
    return bind(ew.select_n, which, *cases)


# --- reductions and shapes -----------------------------------------------------------------
def reduce_sum(operand, axes: Sequence[int], *, out_sharding: PartitionSpec | None = None):
    """Sum over `axes`; bfloat16/float16 accumulate in float32 (as shardc's `sum`)."""
    x = operand
    if type_of(x).dtype == dt.bool_:
        raise ShardcTypeError("reduce_sum does not accept dtype bool. Accepted dtypes are subtypes of number.")
    axes = tuple(sorted(int(a) % builtins.max(type_of(x).ndim, 1) for a in axes))
    if not axes:
        return x
    d = type_of(x).dtype
    acc = dt.float32 if d in (dt.bfloat16, dt.float16) else d
    if acc != d:
        x = convert_element_type(x, acc)
    r = bind(rd.REDUCE["sum"], x, axes=axes, out_sharding=out_sharding)
    return convert_element_type(r, d) if acc != d else r


@_core.dispatches("lax.reshape")
def reshape(operand, new_sizes: Sequence[int], dimensions: Sequence[int] | None = None, *,
            out_sharding: PartitionSpec | None = None):
    """`lax.reshape`; `dimensions` transposes `operand` first (row-major order of that permutation)."""
    x = operand
    out_sharding = _spec(out_sharding)
    if dimensions is not None and tuple(dimensions) != tuple(range(type_of(x).ndim)):
        t = type_of(x)
        if out_sharding is None and builtins.any(e is not None for e in t.spec):
            # JAX's rule sees the operand before the permutation: a sharded dim may not be split or merged
            old, new = [d for d in t.shape if d != 1], [d for d in new_sizes if d != 1]
            if old != new:
                for gi, gj in sp._groups(t.shape, tuple(new_sizes)):
                    if (len(gi) > 1 or len(gj) > 1) and builtins.any(t.spec[i] is not None for i in gi):
                        raise sp._reshape_error(t, tuple(new_sizes))
        x = transpose(x, dimensions)
    if tuple(new_sizes) == type_of(x).shape and out_sharding is None:
        return x
    return bind(sp.reshape, x, new_sizes=tuple(int(s) for s in new_sizes), out_sharding=out_sharding)


@_core.dispatches("lax.transpose")
def transpose(operand, permutation: Sequence[int]):
    x = operand
    perm = tuple(int(p) for p in permutation)
    if perm == tuple(range(len(perm))):
        return x
    return bind(sp.transpose, x, permutation=perm)


@_core.dispatches("lax.expand_dims")
def expand_dims(array, dimensions: Sequence[int]):
    """Insert size-1 dims at `dimensions` (positions in the result)."""
    x = array
    t = type_of(x)
    nd = t.ndim + len(dimensions)
    if len(set(dimensions)) != len(dimensions):
        raise ShardcValueError(f"repeated axis in lax.expand_dims: {dimensions}")
    for a in dimensions:   # JAX's canonicalize_axis: no wrapping past the result's rank
        if not -nd <= int(a) < nd:
            raise ShardcValueError(f"axis {a} is out of bounds for array of dimension {nd}")
    new = sorted(int(a) % nd for a in dimensions)
    if len(set(new)) != len(new):
        raise ShardcValueError(f"repeated axis in lax.expand_dims: {new}")
    shape, kept, k = [], [], 0
    for i in range(nd):
        if i in new:
            shape.append(1)
        else:
            shape.append(t.shape[k])
            kept.append(i)
            k += 1
    return bind(sp.broadcast_in_dim, x, shape=tuple(shape), broadcast_dimensions=tuple(kept),
                out_sharding=None)


def broadcast_in_dim(operand, shape: Sequence[int], broadcast_dimensions: Sequence[int], *,
                     out_sharding: PartitionSpec | None = None):
    return bind(sp.broadcast_in_dim, operand, shape=tuple(shape),
                broadcast_dimensions=tuple(broadcast_dimensions), out_sharding=_spec(out_sharding))


# --- creation and sharding -----------------------------------------------------------------
def full(shape: Sequence[int], fill_value, dtype=None, *, sharding=None,
         out_sharding: PartitionSpec | None = None):
    """A `dtype` array of `shape` filled with a scalar (`lax.full`; `out_sharding=` is the
    spec-valued spelling transformation rules use). Without `dtype`, the fill value's dtype
    and weak type."""
    if is_array(fill_value):
        return _ops().creation.full(shape, fill_value, dtype,
                                    out_sharding=sharding if out_sharding is None else out_sharding)
    if dtype is None:
        d, weak = dt.scalar_dtype(fill_value) if np.ndim(fill_value) == 0 else (
            dt.canonicalize(np.asarray(fill_value).dtype), False)
    else:
        d, weak = dt.canonicalize(dtype), False
    if np.ndim(fill_value):
        raise ShardcTypeError(f"full must be called with scalar fill_value, got fill_value.shape "
                              f"{np.shape(fill_value)}.")
    out = bind(sp.broadcast_in_dim, Const(np.asarray(fill_value, dtype=d), d, weak),
               shape=_check_shape("broadcast_in_dim", shape), broadcast_dimensions=(), out_sharding=out_sharding)
    if sharding is not None and current_trace() is None:
        # as JAX: `sharding=` places an eager result (a strong array); inside a program it is ignored
        out = reshard(convert_element_type(out, d), _spec(sharding))
    return out


def full_like(x, fill_value, dtype=None, shape=None, sharding=None):
    """`lax.full_like` of a traced `x`: its shape, dtype, weak type and sharding
    (unreduced and reduced included), and inside `shard_map` its varying axes."""
    if dtype is not None or shape is not None or sharding is not None or not is_array(x):
        return _ops().creation.full_like(x, fill_value, dtype, shape, out_sharding=sharding)
    t = type_of(x)
    spec = None if t.mesh.empty else PartitionSpec(*t.spec, unreduced=t.unreduced, reduced=t.reduced)
    if t.weak_type:
        out = bind(sp.broadcast_in_dim, Const(np.asarray(fill_value, dtype=t.dtype), t.dtype, True),
                   shape=t.shape, broadcast_dimensions=(), out_sharding=spec)
    else:
        out = full(t.shape, fill_value, t.dtype, out_sharding=spec)
    if t.vma:
        out = bind(coll.pvary, out, axes=get_abstract_mesh().mesh_order(t.vma))
    return out


def zeros_like(x):
    return full_like(x, 0)


def reshard(x, spec: PartitionSpec):
    """Give `x` exactly the sharding `spec` on its mesh (XLA inserts the communication)."""
    return bind(so.reshard, x, spec=spec, mesh=type_of(x).mesh)


# --- bits (shardc/primitives/bitwise.py) and erf_inv: what the PRNG builds with --------------
_SHIFT_TIPS = {"shift_left": "jnp.left_shift", "shift_right_logical": "jnp.right_shift",
               "shift_right_arithmetic": "jnp.right_shift"}


def _shift(name: str, x, y):
    """JAX's `lax` n-ary checks, strictly: one dtype (a Python int is an int32), one rank
    among the non-scalars; then a rank-0 operand broadcasts."""
    ts = [type_of(v) for v in (x, y)]
    if ts[0].dtype != ts[1].dtype:
        raise ShardcTypeError(f"lax.{name} requires arguments to have the same dtypes, got "
                              f"{ts[0].dtype.name}, {ts[1].dtype.name}. (Tip: {_SHIFT_TIPS[name]} is a similar "
                              "function that does automatic type promotion on inputs).")
    ranks = {t.ndim for t in ts if t.ndim}
    if len(ranks) > 1:
        raise ShardcTypeError(f"{name}: arrays must have the same number of dimensions, got "
                              "{" + ", ".join(str(r) for r in sorted(ranks)) + "}")
    x, y = _same_dtype(name, x, y)
    x, y = rank_promote(x, y)
    x, y = reduced_scalar_reshard([x, y])
    return bind(bw.SHIFTS[name], x, y)


def shift_left(x, y): return _shift("shift_left", x, y)
def shift_right_logical(x, y): return _shift("shift_right_logical", x, y)
def shift_right_arithmetic(x, y): return _shift("shift_right_arithmetic", x, y)
def population_count(x): return bind(bw.population_count, x)
def clz(x): return bind(bw.clz, x)
def erf_inv(x): return bind(ew.UNARY["erf_inv"], x)


def bitcast_convert_type(x, new_dtype):
    """The bits of `x` read as `new_dtype` (a narrower one adds a trailing dim, a wider one
    consumes it)."""
    return bind(bw.bitcast_convert_type, x, new_dtype=dt.canonicalize(new_dtype))


# --- the rest of `jax.lax`'s public names (JAX's signatures and dtype checks) --------------
def _operand(x: Any) -> Any:
    """A `lax` operand: traced values and arrays pass; constants become (weak, for Python
    scalars) rank-0 or n-d constants, bound as broadcasts so primitives see a value."""
    if is_array(x):
        return x
    t = type_of(x)
    c = x if isinstance(x, Const) else Const(np.asarray(x, dtype=t.dtype), t.dtype, t.weak_type)
    return bind(sp.broadcast_in_dim, c, shape=t.shape, broadcast_dimensions=tuple(range(t.ndim)),
                out_sharding=None)


def _unary(name: str, x: Any) -> Any:
    return bind(ew.UNARY[name], _operand(x))


def tan(x, *, accuracy=None): return _unary("tan", x)
def tanh(x, *, accuracy=None): return _unary("tanh", x)
def sqrt(x, *, accuracy=None): return _unary("sqrt", x)
def rsqrt(x, *, accuracy=None): return _unary("rsqrt", x)
def cbrt(x, *, accuracy=None): return _unary("cbrt", x)
def log1p(x, *, accuracy=None): return _unary("log1p", x)
def expm1(x, *, accuracy=None): return _unary("expm1", x)
def logistic(x, *, accuracy=None): return _unary("logistic", x)
def erf(x): return _unary("erf", x)
def asin(x): return _unary("asin", x)
def acos(x): return _unary("acos", x)
def atan(x): return _unary("atan", x)
def sinh(x): return _unary("sinh", x)
def cosh(x): return _unary("cosh", x)
def asinh(x): return _unary("asinh", x)
def acosh(x): return _unary("acosh", x)
def atanh(x): return _unary("atanh", x)
def floor(x): return _unary("floor", x)
def ceil(x): return _unary("ceil", x)
def is_finite(x): return _unary("is_finite", x)


def abs(x):  # noqa: A001  (lax's name)
    x = _operand(x)
    d = type_of(x).dtype
    if d == dt.bool_ or (dt.is_int(d) and not dt.is_signed(d)):
        raise ShardcTypeError(f"abs does not accept dtype {d.name}. Accepted dtypes are subtypes of floating, "
                              "complexfloating, signedinteger.")
    return _unary("abs", x)


def square(x):
    x = _operand(x)
    if type_of(x).dtype == dt.bool_:
        raise ShardcTypeError("square does not accept dtype bool. Accepted dtypes are subtypes of integer, "
                              "floating, complexfloating.")
    return _unary("square", x)


def bitwise_not(x): return _unary("not", x)


def reciprocal(x):
    """`lax.reciprocal`: `integer_pow(x, -1)`."""
    return integer_pow(_operand(x), -1)


def exp2(x, *, accuracy=None):
    """`2 ** x` as JAX lowers `exp2`: `exp(log(2) * x)`."""
    x = _operand(x)
    t = type_of(x)
    if not dt.is_inexact(t.dtype):
        raise ShardcTypeError(f"exp2 does not accept dtype {t.dtype.name}. Accepted dtypes are subtypes of "
                              "floating, complexfloating.")
    return exp(mul(Const(np.asarray(np.log(2), t.dtype), t.dtype, t.weak_type), x))


#: `lax.RoundingMethod` is JAX's enum (a description): halves away from zero (0, lax's default) or
#: to even (1, `jnp.round`'s)
RoundingMethod = _jax_lax.RoundingMethod


def round(x, rounding_method=RoundingMethod.AWAY_FROM_ZERO):  # noqa: A001  (lax's name)
    """`lax.round`. Halves away from zero is composed exactly: the integer part `t` of `x`
    (floor of |x|, signed), plus the sign of `x` where |x - t| >= 0.5."""
    x = _operand(x)
    d = type_of(x).dtype
    if not dt.is_float(d):
        raise ShardcTypeError(f"round does not accept dtype {d.name}. Accepted dtypes are subtypes of floating.")
    if int(rounding_method) == RoundingMethod.TO_NEAREST_EVEN:
        return _unary("round", x)
    t = select(lt(x, 0.0), ceil(x), floor(x))
    frac = _unary("abs", sub(x, t))
    return select(ge(frac, 0.5), add(t, sign(x)), t)


def _bitwise(name: str, prim: str, x, y):
    return _binary(prim, *_strict_rank(name, x, y))


def _strict_rank(name: str, *xs: Any) -> list[Any]:
    """`lax`'s n-ary shape check: arrays of rank > 0 must have one rank (no rank promotion)."""
    ranks = {type_of(x).ndim for x in xs if is_array(x) and type_of(x).ndim}
    if len(ranks) > 1:
        raise ShardcTypeError(f"{name}: arrays must have the same number of dimensions, got "
                              "{" + ", ".join(str(r) for r in sorted(ranks)) + "}")
    return list(xs)


def bitwise_and(x, y): return _bitwise("and", "and", x, y)
def bitwise_or(x, y): return _bitwise("or", "or", x, y)
def bitwise_xor(x, y): return _bitwise("xor", "xor", x, y)


@_core.dispatches("lax.select")
def select(pred, on_true, on_false):
    """`lax.select`: no broadcasting, no promotion; `on_true`/`on_false` share a dtype."""
    on_true, on_false = _same_dtype_named("select", "jnp.where", on_true, on_false)
    return bind(ew.select_n, _operand(pred), _operand(on_false), _operand(on_true))


def _same_dtype_named(name: str, tip: str, *xs: Any) -> list[Any]:
    """`_same_dtype`, with JAX's message naming the jnp function that promotes (`select` names
    its cases in `select_n`'s order: on_false first)."""
    arrays = [type_of(x) for x in xs if is_array(x)]
    if arrays and builtins.any(t.dtype != arrays[0].dtype for t in arrays):
        order = arrays[::-1] if name == "select" else arrays
        raise ShardcTypeError(f"lax.{name} requires arguments to have the same dtypes, got "
                              + ", ".join(t.dtype.name for t in order)
                              + f". (Tip: {tip} is a similar function that does automatic type promotion "
                              "on inputs).")
    return _same_dtype(name, *xs)


def clamp(min, x, max):  # noqa: A002  (lax's names)
    """`lax.clamp(min, x, max)`: `min`/`max` are scalars or have `x`'s shape; one dtype."""
    tx = type_of(x)
    for what, b in (("min", min), ("max", max)):
        tb = type_of(b)
        if tb.ndim and tb.shape != tx.shape:
            raise ShardcTypeError(f"clamp requires {what}.shape == operand.shape or {what}.shape == (), got "
                                  f"{what}.shape={tb.shape}, operand.shape={tx.shape}.")
    ds = [dt.scalar_dtype(v)[0] if isinstance(v, (bool, int, float)) else type_of(v).dtype for v in (min, x, max)]
    if builtins.any(d != ds[1] for d in ds):
        raise ShardcTypeError("lax.clamp requires arguments to have the same dtypes, got "
                              + ", ".join(d.name for d in ds) + ".")
    lo, xv, hi = _same_dtype("clamp", min, x, max)
    r = bind(ew.BINARY["min"], bind(ew.BINARY["max"], _operand(xv), lo), hi)
    return r


# --- reductions and cumulative ops -----------------------------------------------------------
def _axes(x: Any, axes: Sequence[int]) -> tuple[int, ...]:
    t = type_of(x)
    axes = tuple(int(a) for a in axes)
    if builtins.any(not 0 <= a < t.ndim for a in axes) or len(set(axes)) != len(axes):
        raise ShardcValueError(f"reduction axes {axes} contains out-of-bounds indices for {t}.")
    return axes


def _reduce(kind: str, name: str, x: Any, axes: Sequence[int]) -> Any:
    x = _operand(x)
    axes = _axes(x, axes)
    d = type_of(x).dtype
    if kind in ("and", "or") and not (d == dt.bool_ or dt.is_int(d)):
        raise ShardcTypeError(f"logical reduction requires operand dtype bool or int, got {d.name}.")
    if kind in ("sum", "prod") and d == dt.bool_:
        raise ShardcTypeError(f"{name} does not accept dtype bool. Accepted dtypes are subtypes of number.")
    if kind in ("max", "min") and d == dt.bool_:
        kind = "or" if kind == "max" else "and"
    return bind(rd.REDUCE[kind], x, axes=tuple(sorted(axes)), out_sharding=None) if axes else x


def reduce_max(operand, axes): return _reduce("max", "reduce_max", operand, axes)
def reduce_min(operand, axes): return _reduce("min", "reduce_min", operand, axes)
def reduce_prod(operand, axes): return _reduce("prod", "reduce_prod", operand, axes)
def reduce_and(operand, axes): return _reduce("and", "reduce_and", operand, axes)
def reduce_or(operand, axes): return _reduce("or", "reduce_or", operand, axes)


def _arg(kind: str, operand, axis: int, index_dtype):
    x = _operand(operand)
    t = type_of(x)
    if not isinstance(axis, (int, np.integer)) or not 0 <= int(axis) < t.ndim:
        raise ShardcValueError(f"Invalid axis {axis} for operand shape {t.shape}")
    return bind(rd.ARG_REDUCE[kind], x, axis=int(axis), index_dtype=dt.canonicalize(index_dtype))


def argmax(operand, axis: int, index_dtype): return _arg("max", operand, axis, index_dtype)
def argmin(operand, axis: int, index_dtype): return _arg("min", operand, axis, index_dtype)


def _cumulative(kind: str, name: str, operand, axis: int, reverse: bool):
    x = _operand(operand)
    t = type_of(x)
    if axis < 0:
        raise ShardcValueError("XLA operations do not allow negative axes")
    if axis >= t.ndim:
        raise ShardcValueError(f"axis {axis} is out of bounds for array of shape {t.shape}")
    if t.dtype == dt.bool_:
        raise ShardcTypeError(f"{name} does not accept dtype bool. Accepted dtypes are subtypes of number.")
    return bind(rd.CUMULATIVE[kind], x, axis=int(axis), reverse=bool(reverse))


def cumsum(operand, axis: int = 0, reverse: bool = False):
    return _cumulative("sum", "cumsum", operand, axis, reverse)


def cumprod(operand, axis: int = 0, reverse: bool = False):
    return _cumulative("prod", "cumprod", operand, axis, reverse)


def cummax(operand, axis: int = 0, reverse: bool = False):
    return _cumulative("max", "cummax", operand, axis, reverse)


def cummin(operand, axis: int = 0, reverse: bool = False):
    return _cumulative("min", "cummin", operand, axis, reverse)


def cumlogsumexp(operand, axis: int = 0, reverse: bool = False):
    """`log(cumsum(exp(x)))`, shifted by the (gradient-free) maximum along `axis` so that
    `exp` does not overflow (JAX has a primitive; the values agree to rounding)."""
    x = _operand(operand)
    t = type_of(x)
    _cumulative("max", "cumlogsumexp", x, axis, reverse)   # the axis and dtype checks
    if not dt.is_float(t.dtype):
        # JAX types an integer cumlogsumexp (and then fails to lower it); shardc computes it in float32
        return convert_element_type(cumlogsumexp(convert_element_type(x, dt.float32), axis, reverse), t.dtype)
    m = bind(rd.REDUCE["max"], x, axes=(int(axis),), out_sharding=None)
    m = expand_dims(select(is_finite(m), m, zeros_like(m)), (int(axis),))
    # the shift cancels in the value and in the gradient (d/dm = -1 + 1)
    return add(log(cumsum(exp(sub(x, m)), axis, reverse)), m)


# --- shapes ------------------------------------------------------------------------------------
def _spec(sharding: Any) -> PartitionSpec | None:
    """An `out_sharding=` / `sharding=` argument (P or NamedSharding) as a spec."""
    if sharding is None or isinstance(sharding, PartitionSpec):
        return sharding
    spec = getattr(sharding, "spec", None)
    if isinstance(spec, PartitionSpec):
        return spec
    raise ShardcValueError(f"out_sharding must be an sc.P or sc.NamedSharding, got {sharding!r}")


@_core.dispatches("lax.broadcast")
def broadcast(operand, sizes: Sequence[int], *, out_sharding=None):
    """Prepend dims of `sizes` to `operand`'s shape."""
    x = _operand(operand)
    t = type_of(x)
    sizes = tuple(int(s) for s in sizes)
    if not sizes and out_sharding is None:
        return x
    return broadcast_in_dim(x, sizes + t.shape, tuple(range(len(sizes), len(sizes) + t.ndim)),
                            out_sharding=out_sharding)


def _check_shape(name: str, shape: Sequence[int]) -> tuple[int, ...]:
    shape = tuple(shape)
    if builtins.any(not isinstance(s, (int, np.integer)) for s in shape):
        raise ShardcTypeError(f"Shapes must be 1D sequences of concrete values of integer type, got {shape}.")
    if builtins.any(s < 0 for s in shape):
        raise ShardcTypeError(f"{name} shape must have every element be nonnegative, got {shape}.")
    return tuple(int(s) for s in shape)


def _iota_dtype(dtype) -> np.dtype:
    d = dt.canonicalize(dtype)
    if d == dt.bool_:
        raise ShardcTypeError("iota does not accept dtype bool. Accepted dtypes are subtypes of integer, floating, "
                              "complexfloating.")
    return d


def broadcasted_iota(dtype, shape: Sequence[int], dimension: int, *, out_sharding=None):
    _iota_dtype(dtype)
    shape = _check_shape("broadcasted_iota", shape)
    if not 0 <= int(dimension) < len(shape):
        raise ShardcValueError(f"broadcasted_iota dimension must be between 0 and {len(shape)}, "
                               f"got {dimension}")
    return bind(sp.iota, dtype=dt.canonicalize(dtype), shape=shape, dimension=int(dimension),
                out_sharding=_spec(out_sharding), mesh=get_abstract_mesh())


def iota(dtype, size: int):
    _iota_dtype(dtype)
    shape = _check_shape("iota", (size,))
    return bind(sp.iota, dtype=dt.canonicalize(dtype), shape=shape, dimension=0, out_sharding=None,
                mesh=get_abstract_mesh())


@_core.dispatches("lax.squeeze")
def squeeze(array, dimensions: Sequence[int]):
    x = _operand(array)
    t = type_of(x)
    dims = tuple(sorted(int(d) % builtins.max(t.ndim, 1) for d in dimensions))
    if builtins.any(t.shape[d] != 1 for d in dims):
        raise ShardcValueError("cannot select an axis to squeeze out which has size not equal to one, got "
                               f"shape={t.shape} and dimensions={tuple(dimensions)}")
    return bind(sp.squeeze, x, dimensions=dims) if dims else x


def rev(operand, dimensions: Sequence[int]):
    x = _operand(operand)
    t = type_of(x)
    dims = tuple(int(d) for d in dimensions)
    if builtins.any(not 0 <= d < t.ndim for d in dims):
        raise ShardcTypeError(f"rev dimensions must all be less than operand ndim, got dimensions {dims} for "
                              f"operand ndim {t.ndim}.")
    return bind(sp.rev, x, dimensions=dims) if dims else x


@_core.dispatches("lax.concatenate")
def concatenate(operands, dimension: int):
    xs = list(operands)
    if not xs:
        raise ShardcValueError("concatenate requires a non-empty sequences of arrays")
    ds = [type_of(x).dtype for x in xs]
    if builtins.any(d != ds[0] for d in ds):
        raise ShardcTypeError("lax.concatenate requires arguments to have the same dtypes, got "
                              + ", ".join(d.name for d in ds) + ". (Tip: jnp.concatenate is a similar function "
                              "that does automatic type promotion on inputs).")
    xs = [_operand(x) for x in xs]
    shapes = [type_of(x).shape for x in xs]
    if len({len(s) for s in shapes}) != 1:
        raise ShardcTypeError("Cannot concatenate arrays with different numbers of dimensions: got "
                              + ", ".join(str(s) for s in shapes) + ".")
    if len(xs) == 1:
        return xs[0]
    return bind(sp.concatenate, *xs, dimension=int(dimension))


def pad(operand, padding_value, padding_config):
    x = _operand(operand)
    t = type_of(x)
    cfg = [tuple(int(v) for v in c) for c in padding_config]
    if len(cfg) != t.ndim:
        raise ShardcValueError("length of padding_config must equal the number of axes of operand, got "
                               f"padding_config {tuple(cfg)} for operand shape {t.shape}")
    v, = _same_dtype("pad", padding_value) if not is_array(padding_value) else [padding_value]
    if is_array(v) and type_of(v).dtype != t.dtype:
        raise ShardcTypeError(f"pad operand and padding_value must be same dtype: got {t.dtype.name} and "
                              f"{type_of(v).dtype.name}.")
    if not is_array(v):
        v = _const(v, t.dtype, t.weak_type)
    return bind(sp.pad, x, v, low=tuple(c[0] for c in cfg), high=tuple(c[1] for c in cfg),
                interior=tuple(c[2] for c in cfg))


@_core.dispatches("lax.slice")
def slice(operand, start_indices: Sequence[int], limit_indices: Sequence[int],  # noqa: A001
          strides: Sequence[int] | None = None):
    x = _operand(operand)
    t = type_of(x)
    start, limit = tuple(int(i) for i in start_indices), tuple(int(i) for i in limit_indices)
    if len(start) != t.ndim or len(limit) != t.ndim:
        raise ShardcTypeError(f"slice start_indices must have length equal to the number of dimensions of "
                              f"the operand, got indices {start} for operand shape {t.shape}.")
    if builtins.any(lim > d for lim, d in zip(limit, t.shape)):
        raise ShardcTypeError(f"slice limit_indices must be less than or equal to operand shape, got "
                              f"limit_indices {limit} for operand shape {t.shape}.")
    if builtins.any(s < 0 for s in start):
        raise ShardcTypeError(f"slice start_indices must be greater than or equal to zero, got start_indices "
                              f"{start}.")
    if builtins.any(lim < s for s, lim in zip(start, limit)):
        raise ShardcTypeError(f"slice limit_indices must be greater than or equal to start_indices, got "
                              f"start_indices {start} and limit_indices {limit}.")
    st = None if strides is None or builtins.all(int(s) == 1 for s in strides) else tuple(int(s) for s in strides)
    if start == (0,) * t.ndim and limit == t.shape and st is None:
        return x
    return bind(sp.slice_p, x, start_indices=start, limit_indices=limit, strides=st)


def _canon_axis(axis: int, ndim: int) -> int:
    if not -ndim <= axis < ndim:
        raise ShardcValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return int(axis) % ndim


@_core.dispatches("lax.slice_in_dim")
def slice_in_dim(operand, start_index: int | None, limit_index: int | None, stride: int = 1, axis: int = 0):
    x = _operand(operand)
    t = type_of(x)
    axis = _canon_axis(axis, t.ndim)
    n = t.shape[axis]
    s = 0 if start_index is None else int(start_index)
    lim = n if limit_index is None else int(limit_index)
    s, lim = (s + n if s < 0 else s), (lim + n if lim < 0 else lim)
    starts, limits, strides = [0] * t.ndim, list(t.shape), [1] * t.ndim
    starts[axis], limits[axis], strides[axis] = s, lim, int(stride)
    return slice(x, starts, limits, strides)


@_core.dispatches("lax.index_in_dim")
def index_in_dim(operand, index: int, axis: int = 0, keepdims: bool = True):
    x = _operand(operand)
    t = type_of(x)
    axis = _canon_axis(axis, t.ndim)
    index = int(index)
    i = index + t.shape[axis] if index < 0 else index
    if not 0 <= i < t.shape[axis]:
        raise ShardcValueError(f"index {index} is out of bounds for axis {axis} with size {t.shape[axis]}")
    r = slice_in_dim(x, i, i + 1, 1, axis)
    return r if keepdims else squeeze(r, (axis,))


def _dynamic_indices(x, start_indices, allow_negative_indices) -> list[Any]:
    """`_dynamic_slice_indices`: one scalar integer index per dim, negative ones wrapped."""
    t = type_of(x)
    if is_array(start_indices):
        it = type_of(start_indices)
        if it.ndim != 1:
            raise ShardcValueError(f"Slice indices must be a 1D sequence, got {it.shape}")
        start_indices = [index_in_dim(start_indices, k, keepdims=False) for k in range(it.shape[0])]
    idx = list(start_indices)
    if len(idx) != t.ndim:
        raise ShardcValueError("Length of slice indices must match number of operand dimensions "
                               f"({len(idx)} vs {t.shape})")
    neg = [allow_negative_indices] * t.ndim if isinstance(allow_negative_indices, bool) else \
        list(allow_negative_indices)
    out = []
    for i, d, ok in zip(idx, t.shape, neg):
        if not is_array(i):
            i = int(i)
            if i < 0 and not ok:
                raise ShardcValueError(f"Index {i} is out of bounds for dimension {d} if "
                                       "allow_negative_indices=False")
            out.append(i + d if i < 0 else i)
            continue
        it = type_of(i)
        if it.ndim or not dt.is_int(it.dtype):
            raise ShardcTypeError(f"index arguments to dynamic_slice must be integers of the same type, got: "
                                  f"{it.dtype.name}")
        if ok and dt.is_signed(it.dtype):
            i = select(lt(i, 0), add(i, d), i)
        out.append(i)
    dtypes_ = [type_of(i).dtype for i in out if is_array(i)]
    d = dtypes_[0] if dtypes_ and builtins.all(x == dtypes_[0] for x in dtypes_) else dt.int32
    return [convert_element_type(i, d) if is_array(i) and type_of(i).dtype != d else
            (i if is_array(i) else Const(np.asarray(i, d), d, False)) for i in out]


@_core.dispatches("lax.dynamic_slice")
def dynamic_slice(operand, start_indices, slice_sizes: Sequence[int], *, allow_negative_indices=True):
    x = _operand(operand)
    t = type_of(x)
    idx = _dynamic_indices(x, start_indices, allow_negative_indices)
    sizes = tuple(int(s) for s in slice_sizes)
    if len(sizes) != t.ndim:
        raise ShardcTypeError(f"dynamic_slice slice_sizes must have the same length as start_indices, got "
                              f"start_indices length {t.ndim} and slice_sizes {sizes}.")
    if builtins.any(not 0 <= s <= d for s, d in zip(sizes, t.shape)):
        raise ShardcTypeError(f"slice slice_sizes must be less than or equal to operand shape, got slice_sizes "
                              f"{sizes} for operand shape {t.shape}.")
    return bind(sp.dynamic_slice, x, *idx, slice_sizes=sizes)


@_core.dispatches("lax.dynamic_slice_in_dim")
def dynamic_slice_in_dim(operand, start_index, slice_size: int, axis: int = 0, *, allow_negative_indices=True):
    x = _operand(operand)
    t = type_of(x)
    axis = _canon_axis(axis, t.ndim)
    starts = [0] * t.ndim
    starts[axis] = start_index
    sizes = list(t.shape)
    sizes[axis] = int(slice_size)
    neg = [True] * t.ndim
    neg[axis] = allow_negative_indices
    return dynamic_slice(x, starts, sizes, allow_negative_indices=neg)


@_core.dispatches("lax.dynamic_index_in_dim")
def dynamic_index_in_dim(operand, index, axis: int = 0, keepdims: bool = True, *, allow_negative_indices=True):
    r = dynamic_slice_in_dim(operand, index, 1, axis, allow_negative_indices=allow_negative_indices)
    return r if keepdims else squeeze(r, (_canon_axis(axis, type_of(r).ndim),))


def dynamic_update_slice(operand, update, start_indices, *, allow_negative_indices=True):
    x, u = _operand(operand), _operand(update)
    t, tu = type_of(x), type_of(u)
    if t.dtype != tu.dtype:
        raise ShardcTypeError(f"lax.dynamic_update_slice requires arguments to have the same dtypes, got "
                              f"{t.dtype.name}, {tu.dtype.name}.")
    if tu.ndim != t.ndim or builtins.any(a > b for a, b in zip(tu.shape, t.shape)):
        raise ShardcTypeError("dynamic_update_slice update shape must be smaller than operand shape, got "
                              f"update shape {tu.shape} for operand shape {t.shape}.")
    idx = _dynamic_indices(x, start_indices, allow_negative_indices)
    return bind(sp.dynamic_update_slice, x, u, *idx)


def dynamic_update_slice_in_dim(operand, update, start_index, axis: int, *, allow_negative_indices=True):
    x = _operand(operand)
    t = type_of(x)
    axis = _canon_axis(axis, t.ndim)
    starts = [0] * t.ndim
    starts[axis] = start_index
    neg = [True] * t.ndim
    neg[axis] = allow_negative_indices
    return dynamic_update_slice(x, update, starts, allow_negative_indices=neg)


def dynamic_update_index_in_dim(operand, update, index, axis: int, *, allow_negative_indices=True):
    x = _operand(operand)
    t = type_of(x)
    axis = _canon_axis(axis, t.ndim)
    u = _operand(update)
    if type_of(u).ndim == t.ndim - 1:
        u = expand_dims(u, (axis,))
    return dynamic_update_slice_in_dim(x, u, index, axis, allow_negative_indices=allow_negative_indices)


def split(operand, sizes: Sequence[int], axis: int = 0):
    """Pieces of `sizes` along `axis` (static slices)."""
    x = _operand(operand)
    t = type_of(x)
    axis = _canon_axis(axis, t.ndim)
    sizes = [int(s) for s in sizes]
    if builtins.sum(sizes) != t.shape[axis]:
        raise ShardcValueError(f"Sum of sizes {builtins.sum(sizes)} must be equal to dimension {axis} of the "
                               f"operand shape {list(t.shape)}")
    if t.mesh.has_explicit:   # the slices' rule, under `split`'s name (JAX's error names it)
        for s in sizes:
            sp.varying_out_shape_sharding("split", t, t.shape[:axis] + (s,) + t.shape[axis + 1:])
    out, start = [], 0
    for s in sizes:
        out.append(slice_in_dim(x, start, start + s, 1, axis))
        start += s
    return out


def tile(operand, reps: Sequence[int]):
    """`lax.tile`: broadcast each dim to (rep, size), then merge (a reshape)."""
    x = _operand(operand)
    t = type_of(x)
    reps = tuple(int(r) for r in reps)
    if len(reps) != t.ndim:
        raise ShardcTypeError(f"reps length must be equal to the ndim of x, got len(reps)={len(reps)} and "
                              f"x.ndim={t.ndim}.")
    for i, (r, e) in enumerate(zip(reps, t.spec)):
        if r != 1 and e is not None:
            raise ShardingTypeError(f"Operand cannot be sharded on dimension {i} when the tiling is non-trivial. "
                                    f"Got input type: {t} with reps: {reps}")
    if builtins.all(r == 1 for r in reps):
        return x
    shape = tuple(v for r, d in zip(reps, t.shape) for v in (r, d))
    b = broadcast_in_dim(x, shape, tuple(range(1, 2 * t.ndim, 2)))
    return reshape(b, tuple(r * d for r, d in zip(reps, t.shape)))


# --- special functions (shardc/primitives/special.py) ------------------------------------------
def lgamma(x): return _unary("lgamma", x)
def digamma(x): return _unary("digamma", x)
def erfc(x): return _unary("erfc", x)
def polygamma(m, x): return _binary("polygamma", m, x)
def zeta(x, q): return _binary("zeta", x, q)
def nextafter(x1, x2): return _binary("nextafter", x1, x2)
def bessel_i0e(x): return _unary("bessel_i0e", x)
def bessel_i1e(x): return _unary("bessel_i1e", x)


# --- small shape helpers of `jax.lax` ------------------------------------------------------
def dtype(x: Any) -> np.dtype:
    """The (canonical) dtype of an array, traced value or constant."""
    return type_of(x).dtype if is_array(x) or isinstance(x, Const) else dt.canonicalize(np.result_type(x))


def broadcast_shapes(*shapes) -> tuple[int, ...]:
    """NumPy's broadcast of static shapes (JAX's ValueError when they do not broadcast)."""
    shapes = [tuple(int(d) for d in s) for s in shapes]
    try:
        return tuple(int(d) for d in np.broadcast_shapes(*shapes))
    except ValueError:
        raise ShardcValueError(f"Incompatible shapes for broadcasting: shapes={shapes}") from None


def broadcast_to_rank(x, rank: int):
    """Leading size-1 dims up to `rank`."""
    x = _operand(x)
    nd = type_of(x).ndim
    return x if nd == rank else broadcast(x, (1,) * (rank - nd))


def collapse(operand, start_dimension: int, stop_dimension: int | None = None):
    """Merge dims [start, stop) into one (a reshape)."""
    x = _operand(operand)
    t = type_of(x)
    lo, hi, _ = builtins.slice(start_dimension, stop_dimension).indices(t.ndim)
    if hi < lo:
        raise ShardcValueError(f"Invalid dimension range passed to collapse: {t.shape}[{start_dimension}:"
                               f"{stop_dimension}]")
    size = int(np.prod(t.shape[lo:hi], dtype=np.int64))
    return reshape(x, t.shape[:lo] + (size,) + t.shape[hi:])


def stack(operands, axis: int = 0):
    """`lax.stack`: arrays of one shape, dtype and sharding joined along a new `axis`."""
    xs = [_operand(x) for x in operands]
    if not xs:
        raise ShardcValueError("stack expects at least one operand, got 0.")
    ts = [type_of(x) for x in xs]
    if len({t.ndim for t in ts}) != 1:
        raise ShardcValueError("Cannot stack arrays with different numbers of dimensions: got "
                               + ", ".join(str(t.shape) for t in ts) + ".")
    if len({t.shape for t in ts}) != 1:
        raise ShardcValueError("All input arrays must have the same shape. Got "
                               + ", ".join(str(t.shape) for t in ts) + ".")
    if len({t.dtype for t in ts}) != 1:
        raise ShardcTypeError("lax.stack requires arguments to have the same dtypes, got "
                              + ", ".join(t.dtype.name for t in ts) + ".")
    axis = _canon_axis(axis, ts[0].ndim + 1)
    return concatenate([expand_dims(x, (axis,)) for x in xs], axis)


def unstack(x, axis: int = 0) -> tuple:
    """The slices along `axis` (which must not be sharded), that dim removed."""
    x = _operand(x)
    t = type_of(x)
    if t.ndim == 0:
        raise ShardcValueError("Unstack requires arrays with rank > 0, however a scalar array was passed.")
    axis = _canon_axis(axis, t.ndim)
    if t.spec[axis] is not None:
        raise ShardingTypeError(f"unstack operand cannot be sharded on the unstacking axis {axis}. "
                                f"Got operand type={t.str_short()}")
    return tuple(index_in_dim(x, i, axis, keepdims=False) for i in range(t.shape[axis]))
