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
from typing import Any, Sequence

import numpy as np

from . import dtypes as dt
from .core import Const, Tracer, bind, foreign_type, literal_type, typeof
from .errors import ShardcTypeError
from .mesh import AxisType, get_abstract_mesh
from .primitives import bitwise as bw
from .primitives import collectives as coll
from .primitives import elementwise as ew
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
    "shift_left", "shift_right_logical", "shift_right_arithmetic", "bitcast_convert_type",
    "population_count", "clz", "erf_inv",
]
#: JAX's `lax` names whose functions live in `shardc.ops` (above this module) with `lax`
#: semantics already: control flow, collectives, the sharding assertions
FROM_OPS = [
    "cond", "fori_loop", "map", "scan", "switch", "while_loop", "stop_gradient", "with_sharding_constraint",
    "dot_general", "all_gather", "all_to_all", "axis_index", "axis_size", "pcast", "pmax", "pmean", "pmin",
    "ppermute", "psum", "psum_scatter",
]
__all__ = WRAPPERS + FROM_OPS


def __getattr__(name: str):
    if name in FROM_OPS:
        from . import ops  # late: `ops` imports this module; these names are its functions
        return getattr(ops, name) if name != "map" else ops.control_flow.map
    raise AttributeError(f"module 'shardc.lax' has no attribute {name!r}")
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
    is_py = isinstance(x, (bool, int, float, complex))
    return Const(np.asarray(x, dtype=dtype), dtype, weak and is_py)


def _same_dtype(name: str, *xs: Any) -> list[Any]:
    """The operands with constants as the arrays' dtype; arrays must agree (as `lax`)."""
    arrays = [type_of(x) for x in xs if is_array(x)]
    if not arrays:
        t = type_of(xs[0])
        return [_const(x, t.dtype, t.weak_type) for x in xs]
    d = arrays[0].dtype
    if any(t.dtype != d for t in arrays):
        raise ShardcTypeError(f"lax.{name} requires arguments to have the same dtypes, got "
                              + ", ".join(t.dtype.name for t in arrays) + ".")
    weak = all(t.weak_type for t in arrays)
    return [x if is_array(x) else _const(x, d, weak) for x in xs]


def rank_promote(*xs: Any) -> list[Any]:
    """NumPy rank promotion: prepend size-1 dims (spec None) to lower-rank operands."""
    ts = [type_of(x) for x in xs]
    rank = builtins.max((t.ndim for t in ts), default=0)
    return [_expand_leading(x, t, rank) if 0 < t.ndim < rank else x for x, t in zip(xs, ts)]


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
    x, y = _same_dtype(name, x, y)
    x, y = rank_promote(x, y)
    x, y = reduced_scalar_reshard([x, y])
    return bind(ew.BINARY[name], x, y)


def add(x, y): return _binary("add", x, y)
def sub(x, y): return _binary("sub", x, y)
def mul(x, y): return _binary("mul", x, y)
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
    return _binary("pow", x, y)


def integer_pow(x, y: int):
    return bind(ew.integer_pow, x, y=int(y))


# --- unary ---------------------------------------------------------------------------------
def neg(x): return bind(ew.UNARY["neg"], x)
def sign(x): return bind(ew.UNARY["sign"], x)
def sin(x): return bind(ew.UNARY["sin"], x)
def cos(x): return bind(ew.UNARY["cos"], x)
def exp(x): return bind(ew.UNARY["exp"], x)
def log(x): return bind(ew.UNARY["log"], x)


def convert_element_type(x, new_dtype) -> Any:
    """`x` as a strong `new_dtype` (a constant is converted in place)."""
    d = dt.canonicalize(new_dtype)
    if not is_array(x):
        return Const(np.asarray(x.value if isinstance(x, Const) else x, dtype=d), d, False)
    t = type_of(x)
    if t.dtype == d and not t.weak_type:
        return x
    return bind(ew.convert_element_type, x, new_dtype=d, weak_type=False)


def select_n(which, *cases):
    return bind(ew.select_n, which, *cases)


# --- reductions and shapes -----------------------------------------------------------------
def reduce_sum(x, axes: Sequence[int], *, out_sharding: PartitionSpec | None = None):
    """Sum over `axes`; bfloat16/float16 accumulate in float32 (as shardc's `sum`)."""
    axes = tuple(sorted(int(a) % builtins.max(type_of(x).ndim, 1) for a in axes))
    if not axes:
        return x
    d = type_of(x).dtype
    acc = dt.float32 if d in (dt.bfloat16, dt.float16) else d
    if acc != d:
        x = convert_element_type(x, acc)
    r = bind(rd.REDUCE["sum"], x, axes=axes, out_sharding=out_sharding)
    return convert_element_type(r, d) if acc != d else r


def reshape(x, new_sizes: Sequence[int], *, out_sharding: PartitionSpec | None = None):
    if tuple(new_sizes) == type_of(x).shape and out_sharding is None:
        return x
    return bind(sp.reshape, x, new_sizes=tuple(int(s) for s in new_sizes), out_sharding=out_sharding)


def transpose(x, permutation: Sequence[int]):
    perm = tuple(int(p) for p in permutation)
    if perm == tuple(range(len(perm))):
        return x
    return bind(sp.transpose, x, permutation=perm)


def expand_dims(x, dimensions: Sequence[int]):
    """Insert size-1 dims at `dimensions` (positions in the result)."""
    t = type_of(x)
    nd = t.ndim + len(dimensions)
    new = sorted(int(a) % nd for a in dimensions)
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


def broadcast_in_dim(x, shape: Sequence[int], broadcast_dimensions: Sequence[int], *,
                     out_sharding: PartitionSpec | None = None):
    return bind(sp.broadcast_in_dim, x, shape=tuple(shape),
                broadcast_dimensions=tuple(broadcast_dimensions), out_sharding=out_sharding)


# --- creation and sharding -----------------------------------------------------------------
def full(shape: Sequence[int], fill_value, dtype, *, out_sharding: PartitionSpec | None = None):
    """A strong `dtype` array of `shape` filled with a scalar."""
    d = dt.canonicalize(dtype)
    return bind(sp.broadcast_in_dim, Const(np.asarray(fill_value, dtype=d), d, False),
                shape=tuple(shape), broadcast_dimensions=(), out_sharding=out_sharding)


def full_like(x, fill_value):
    """`lax.full_like` of a traced `x`: its shape, dtype, weak type and sharding
    (unreduced and reduced included), and inside `shard_map` its varying axes."""
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
