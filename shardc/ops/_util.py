"""Helpers shared by the NumPy-style op functions (promotion, axes, specs)."""
from __future__ import annotations

from typing import Any

import jax
import numpy as np

from .. import dtypes as dt
from ..core import Const, Tracer, bind, raise_user_error, typeof
from ..errors import ShardcValueError
from ..lax import is_array, type_of
from ..mesh import AxisType, get_abstract_mesh
from ..primitives import elementwise as ew
from ..runtime.array import Array
from ..sharding import NamedSharding, PartitionSpec


def as_operand(x: Any) -> Any:
    """Wrap `jax.Array`s; leave tracers, arrays, scalars and NumPy arrays."""
    if type(x) is Tracer:
        return x
    if isinstance(x, jax.Array):
        return Array(x)
    if isinstance(x, (list, tuple)):
        return np.asarray(x)
    return x


def convert(x: Any, dtype: np.dtype, weak: bool = False) -> Any:
    """`x` as `dtype` (constants are converted in place; arrays get `convert_element_type`)."""
    dtype = np.dtype(dtype)
    if not is_array(x):
        t = type_of(x)
        val = x.value if isinstance(x, Const) else np.asarray(x)
        return Const(val.astype(dtype), dtype, weak)
    t = typeof(x)
    if t.dtype == dtype and t.weak_type == weak:
        return x
    return bind(ew.convert_element_type, x, new_dtype=dtype, weak_type=weak)


def promote(*xs: Any) -> list[Any]:
    """Promote operands to their common dtype (JAX's lattice, weak types)."""
    if all(type(x) is Tracer for x in xs):
        ts = [x._var.type for x in xs]
        t0 = ts[0]
        if all(t.dtype == t0.dtype and t.weak_type == t0.weak_type for t in ts) and not (
                t0.weak_type and dt.PROMOTION_FLAGS["dtype"] == "strict"):   # (strict: ~i8 + ~i8 is ~i32)
            return list(xs)  # nothing to promote
    xs = [as_operand(x) for x in xs]
    ts = [type_of(x) for x in xs]
    dtype, weak = dt.result_type(*[(t.dtype, t.weak_type) for t in ts])
    # As `jnp`'s promote_dtypes: operands that change dtype take the result's weakness.
    return [convert(x, dtype, weak) if (t.dtype != dtype or not is_array(x)) else x
            for x, t in zip(xs, ts)]


def promote_to_float(x: Any) -> Any:
    t = type_of(x)
    if dt.is_inexact(t.dtype):
        return x
    return convert(x, dt.float32, t.weak_type)


def broadcast_shapes(*shapes) -> tuple[int, ...]:
    """NumPy's broadcast of `shapes`, with JAX's ValueError (a `ShardcValueError` naming the
    user's line) where they do not broadcast, instead of NumPy's own message."""
    try:
        return tuple(int(d) for d in np.broadcast_shapes(*shapes))
    except ValueError:
        raise_user_error(ShardcValueError(
            f"Incompatible shapes for broadcasting: shapes={[tuple(s) for s in shapes]}"))


def normalize_axis(axis: int, ndim: int, what: str = "axis") -> int:
    if not isinstance(axis, (int, np.integer)):
        raise ShardcValueError(f"{what} must be an integer, got {axis!r}")
    if not -ndim <= axis < max(ndim, 1) or (ndim == 0 and axis not in (0, -1)):
        raise ShardcValueError(f"{what} {axis} is out of bounds for array of dimension {ndim}")
    return int(axis) % ndim if ndim else 0


def normalize_axes(axis, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (int, np.integer)):
        axis = (axis,)
    out = tuple(normalize_axis(a, ndim) for a in axis)
    if len(set(out)) != len(out):
        raise ShardcValueError(f"repeated axis in {tuple(axis)}")
    return out


def to_spec(out_sharding: Any) -> PartitionSpec | None:
    """An `out_sharding=` argument (P, NamedSharding or None) as a spec."""
    if out_sharding is None:
        return None
    if isinstance(out_sharding, NamedSharding):
        if getattr(out_sharding, "memory_kind", None) is not None:   # JAX's check on an aval's sharding
            raise ShardcValueError(
                "sharding with memory_kind is not allowed. Please use `sc.device_put` to transfer to "
                f"different memory spaces. Got sharding={out_sharding!r}")
        m, sm = get_abstract_mesh(), out_sharding.abstract_mesh
        all_auto = lambda am: len(am.auto_axes) == len(am.axis_names)  # noqa: E731
        # (JAX's canonicalize_sharding: several all-Auto meshes are allowed together)
        if not m.empty and sm != m and not (all_auto(m) and all_auto(sm)):
            raise ShardcValueError(
                f"Context mesh {m} should match the mesh of sharding {sm} passed to out_sharding")
        return out_sharding.spec
    if isinstance(out_sharding, PartitionSpec):
        if get_abstract_mesh().empty and (out_sharding.axes() or out_sharding.unreduced or out_sharding.reduced):
            raise ShardcValueError(
                "Using PartitionSpec when you are not under a mesh context is not allowed. Please "
                "pass a NamedSharding instance or enter into a mesh context via `sc.set_mesh`. "
                f"Got {out_sharding!r}")
        return out_sharding
    if isinstance(out_sharding, tuple):
        return PartitionSpec(*out_sharding)
    raise ShardcValueError(f"out_sharding must be an sc.P or sc.NamedSharding, got {out_sharding!r}")


def all_explicit() -> bool:
    m = get_abstract_mesh()
    return not m.empty and all(t == AxisType.Explicit for t in m.axis_types)


def result_dtype(*xs: Any) -> np.dtype:
    """The dtype `promote` would give these operands."""
    ts = [type_of(as_operand(x)) for x in xs]
    return dt.result_type(*[(t.dtype, t.weak_type) for t in ts])[0]
