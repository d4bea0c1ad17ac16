"""Array creation: `zeros`/`ones`/`full`/`arange` with `out_sharding=`, the
`*_like` family (which copies the operand's sharding), and `asarray`."""
from __future__ import annotations

import jax
import numpy as np

from .. import dtypes as dt
from .. import lax
from ..core import Const, Tracer, api, bind, current_api, current_trace, raise_user_error
from ..errors import ShardcNotImplementedError, ShardcTypeError, ShardcValueError
from ..mesh import AbstractMesh, AxisType, get_abstract_mesh
from ..primitives import shape as sp
from ..primitives.collectives import pvary
from ..primitives.shape import iota
from ..primitives.sharding_ops import reshard as reshard_p
from ..runtime.array import Array, place, resolve_sharding, respell
from ..runtime.mesh import get_mesh, set_mesh
from ..sharding import NamedSharding, PartitionSpec
from ._util import as_operand, is_array, promote, to_spec, type_of


def _shape(shape) -> tuple[int, ...]:
    if np.ndim(shape) == 0:
        shape = (shape,)
    shape = tuple(shape)
    if any(not isinstance(s, (int, np.integer)) for s in shape):
        # as JAX: no rounding of 2.5 to 2
        raise ShardcTypeError(f"Shapes must be 1D sequences of concrete values of integer type, got {shape}.")
    out = tuple(int(s) for s in shape)
    if any(s < 0 for s in out):
        raise ShardcTypeError(f"broadcast_in_dim shape must have every element be nonnegative, got {out}.")
    return out


def _placed(make, device, out_sharding):
    """`device=` as JAX's creation functions take it: exclusive with `out_sharding`; inside a
    program it is ignored (as JAX does under jit); eagerly the result is put on that
    `Sharding` (a NamedSharding: as if `out_sharding`) or single device."""
    if device is not None and out_sharding is not None:
        raise_user_error(ShardcValueError(
            f"Only one of `device` or `out_sharding` can be set. Got device={device} and "
            f"out_sharding={out_sharding}"))
    out = make(out_sharding)
    if device is None or current_trace() is not None:
        return out
    return device_put_eager(out, device)


def device_put_eager(x, device):
    """An eager result moved to `device`: a NamedSharding (shardc's or JAX's) or one device
    (a `jax.Device` or a `SingleDeviceSharding`: committed there, as JAX's `device=`)."""
    if isinstance(device, (jax.Device, jax.sharding.SingleDeviceSharding)):
        return Array(jax.device_put(x.to_jax() if isinstance(x, Array) else np.asarray(x), device))
    return place(np.asarray(x), *resolve_sharding(device))


@api("sc.full")
def full(shape, fill_value, dtype=None, *, device=None, out_sharding=None):
    """An array of `shape` filled with `fill_value` (weak-typed for Python scalars)."""
    return _placed(lambda o: _full(shape, fill_value, dtype, o), device, out_sharding)


def _full(shape, fill_value, dtype, out_sharding):
    shape = _shape(shape)
    if is_array(fill_value):
        v = lax.convert_element_type(fill_value, dtype) if dtype is not None else fill_value
        return broadcast_to(v, shape, out_sharding=out_sharding)
    if dtype is None:
        d, weak = dt.scalar_dtype(fill_value) if np.ndim(fill_value) == 0 else (dt.canonicalize(np.asarray(fill_value).dtype), False)
    else:
        d, weak = dt.canonicalize(dtype), False
    val = np.asarray(fill_value, dtype=d)
    if val.ndim:
        val = np.broadcast_to(val, shape)
        return bind(sp.broadcast_in_dim, Const(np.ascontiguousarray(val), d, weak), shape=shape,
                    broadcast_dimensions=tuple(range(len(shape))), out_sharding=to_spec(out_sharding))
    return bind(sp.broadcast_in_dim, Const(val, d, weak), shape=shape, broadcast_dimensions=(),
                out_sharding=to_spec(out_sharding))


@api("sc.zeros")
def zeros(shape, dtype=None, *, device=None, out_sharding=None):
    return full(shape, 0, dt.float32 if dtype is None else dtype, device=device, out_sharding=out_sharding)


@api("sc.ones")
def ones(shape, dtype=None, *, device=None, out_sharding=None):
    return full(shape, 1, dt.float32 if dtype is None else dtype, device=device, out_sharding=out_sharding)


@api("sc.empty")
def empty(shape, dtype=None, *, device=None, out_sharding=None):
    """`jnp.empty`: zeros (XLA has no uninitialised memory), as in JAX."""
    return zeros(shape, dtype, device=device, out_sharding=out_sharding)


@api("sc.full_like")
def full_like(a, fill_value, dtype=None, shape=None, *, device=None, out_sharding=None):
    """`full` with `a`'s shape, dtype and sharding (unless overridden)."""
    return _placed(lambda o: _full_like(a, fill_value, dtype, shape, o), device, out_sharding)


def _lends_sharding(x, t, shape: tuple[int, ...]) -> bool:
    """JAX's `use_x_sharding` in `lax.full_like` for a concrete `x` (an array or an
    `sc.ShapeDtypeStruct`): its sharding is kept when it is concrete, a concrete mesh is
    in context, or its mesh is all-Explicit; and the shape is unchanged or it is replicated."""
    s = getattr(x, "sharding", None)
    if isinstance(s, NamedSharding):
        concrete = (not isinstance(s.mesh, AbstractMesh) or get_mesh() is not None
                    or all(ty == AxisType.Explicit for ty in s.abstract_mesh.axis_types))
        if not concrete:
            return False
    return shape == t.shape or not any(e is not None for e in t.spec)


#: the public `*_like` functions: called by the user on a concrete array, JAX's `lax.full_like`
#: sees that array; called inside another op (JAX's jitted `jnp` functions) it sees a tracer
_LIKE_APIS = frozenset({"sc.full_like", "sc.zeros_like", "sc.ones_like", "sc.empty_like"})


def _seen_as_traced(x) -> bool:
    """Whether JAX's `full_like` would see `x` as a tracer: `x` is traced, or it is an eager
    intermediate of a composite op (`jnp.remainder`'s `lax._ones(x2)`: the `jnp` function runs
    under `jit` in JAX, so a weakly typed intermediate still lends its sharding)."""
    outer = current_api()
    return isinstance(x, Tracer) or (outer is not None and outer not in _LIKE_APIS)


def _full_like(x, fill_value, dtype, shape, out_sharding):
    a_orig = x
    x = as_operand(x)
    t = type_of(x)
    shp = t.shape if shape is None else _shape(shape)
    weak = dtype is None and t.weak_type
    if out_sharding is None and not t.mesh.empty:
        # as `lax.full_like`: a traced `x` lends its sharding only when no `shape` is
        # given; a concrete one when it is not weak and the shape is unchanged
        if _seen_as_traced(x):
            copy = shape is None
        else:
            copy = not weak and _lends_sharding(a_orig, t, shp)
        if copy:   # (another shape: `x` is replicated, and so is the result)
            out_sharding = PartitionSpec(*(t.spec if shp == t.shape else ()), unreduced=t.unreduced,
                                         reduced=t.reduced)
            if isinstance(a_orig, Array) and get_abstract_mesh().empty and current_trace() is None:
                # no mesh in context: made on `x`'s own concrete mesh (JAX's `sharding=x.sharding`)
                with set_mesh(a_orig.sharding.mesh):
                    out = _full_like(x, fill_value, dtype, shape, a_orig.sharding.spec)
                return respell(out, a_orig.to_jax().sharding)   # spelled as `x`'s, as JAX keeps it
    d = t.dtype if dtype is None else dtype
    if weak and not is_array(fill_value) and np.ndim(fill_value) == 0:
        d = dt.canonicalize(d)
        out = bind(sp.broadcast_in_dim, Const(np.asarray(fill_value, dtype=d), d, True), shape=shp,
                   broadcast_dimensions=(), out_sharding=to_spec(out_sharding))
    else:
        out = full(shp, fill_value, d, out_sharding=out_sharding)
    if t.vma:   # inside shard_map the result varies like `x` (JAX's full_like pvary)
        out = bind(pvary, out, axes=get_abstract_mesh().mesh_order(t.vma))
    return out


@api("sc.zeros_like")
def zeros_like(a, dtype=None, shape=None, *, device=None, out_sharding=None):
    return full_like(a, 0, dtype, shape, device=device, out_sharding=out_sharding)


@api("sc.ones_like")
def ones_like(a, dtype=None, shape=None, *, device=None, out_sharding=None):
    return full_like(a, 1, dtype, shape, device=device, out_sharding=out_sharding)


@api("sc.arange")
def arange(start, stop=None, step=None, dtype=None, *, device=None, out_sharding=None):
    """`jnp.arange` for static bounds; `out_sharding` shards the result."""
    return _placed(lambda o: _arange(start, stop, step, dtype, o), device, out_sharding)


def _arange(start, stop, step, dtype, out_sharding):
    vals = [v for v in (start, stop, step) if v is not None]
    if any(is_array(v) for v in vals):
        raise ShardcValueError("sc.arange needs static (Python) bounds")
    if stop is None:
        start, stop = 0, start
    step = 1 if step is None else step
    if step == 0:
        raise ShardcValueError("arange: step must not be zero")
    if dtype is None:
        is_int = all(isinstance(v, (int, np.integer)) for v in (start, stop, step))
        dtype = dt.int32 if is_int else dt.float32
    d = dt.canonicalize(dtype)
    n = max(0, int(np.ceil((stop - start) / step)))
    spec = to_spec(out_sharding)
    r = bind(iota, dtype=d, shape=(n,), dimension=0, out_sharding=spec, mesh=get_abstract_mesh())
    if step != 1:
        r = lax.mul(r, Const(step, d, False))
    if start != 0:
        r = lax.add(r, Const(start, d, False))
    return r


@api("sc.asarray")
def asarray(a, dtype=None, order=None, *, copy=None, device=None, out_sharding=None):
    """`x` as an array: traced values and arrays pass through; host data becomes
    a replicated constant (inside a program) or a replicated device array.
    `out_sharding` reshards the result (eagerly too, as inside a program: JAX
    0.10.2 eagerly returns it replicated); `order` is JAX's 'K' only; `copy` has
    no effect (arrays are immutable)."""
    if order not in (None, "K"):
        raise_user_error(ShardcNotImplementedError("Only implemented for order='K'"))
    return _placed(lambda o: _resharded(_asarray(a, dtype), o), device, out_sharding)


@api("sc.array")
def array(object, dtype=None, *, copy: bool = True, order="K", ndmin: int = 0, device=None,  # noqa: A002
          out_sharding=None):
    """`jnp.array`: `asarray` with at least `ndmin` dims (leading size-1 dims added)."""
    out = asarray(object, dtype, order, copy=copy, device=device, out_sharding=out_sharding)
    if getattr(out, "_key_ops", None) is not None:
        return out.reshape((1,) * (ndmin - out.ndim) + out.shape) if ndmin > out.ndim else out
    t = type_of(out)
    if ndmin > t.ndim:
        out = lax.reshape(out, (1,) * (ndmin - t.ndim) + t.shape)
    return out


def _resharded(x, out_sharding):
    spec = to_spec(out_sharding)
    if spec is None:
        return x
    return bind(reshard_p, x, spec=spec, mesh=type_of(x).mesh if not type_of(x).mesh.empty else get_abstract_mesh())


def _has_traced(x) -> bool:
    """Whether a (nested) list/tuple holds traced values."""
    return any(isinstance(e, Tracer) or (isinstance(e, (list, tuple)) and _has_traced(e)) for e in x)


def _asarray(x, dtype):
    if isinstance(x, (list, tuple)) and x and _has_traced(x):
        # JAX's `jnp.array([tracer, ...])`: the elements promoted to one dtype and stacked
        parts = promote(*[_asarray(e, None) for e in x])
        out = lax.concatenate([lax.reshape(p, (1, *type_of(p).shape)) for p in parts], 0)
        return out if dtype is None else lax.convert_element_type(out, dtype)
    x = as_operand(x)
    if is_array(x):
        if dtype is not None:
            return lax.convert_element_type(x, dtype)
        return x
    val = x.value if isinstance(x, Const) else np.asarray(x)
    weak = isinstance(x, Const) and x.weak or (isinstance(x, (int, float)) and not isinstance(x, bool))
    d = dt.canonicalize(val.dtype if dtype is None else dtype)
    if dtype is not None:
        weak = False
    val = np.asarray(val, dtype=d)
    if current_trace() is None:
        if get_mesh() is not None:
            out = place(val, *resolve_sharding(None))
            view = get_abstract_mesh()
            if view != out._shardc_type.mesh and view.axis_names == out._shardc_type.mesh.axis_names \
                    and view.axis_sizes == out._shardc_type.mesh.axis_sizes:
                # inside an eager `auto_axes` / `use_abstract_mesh` region: typed on that view of
                # the context mesh (replicated), as the region's other values are
                out = Array(out._jax, out._shardc_type.update(mesh=view), out._mesh)
        else:
            out = Array(jax.device_put(val))
        # a Python scalar stays weakly typed on devices too, as `jnp.asarray(1.0)`
        return Array(out._jax, out._shardc_type.update(weak_type=True), out._mesh) if weak else out
    return bind(sp.broadcast_in_dim, Const(val, d, weak), shape=val.shape,
                broadcast_dimensions=tuple(range(val.ndim)), out_sharding=None)



@api("sc.broadcast_to")
def broadcast_to(array, shape, *, out_sharding=None):
    """Broadcast to `shape`; with `out_sharding`, each operand dim must be
    unsharded or already sharded as asked (JAX's check)."""
    x = as_operand(array)
    t = type_of(x)
    shape = tuple(int(s) for s in shape)
    if len(shape) < t.ndim:
        raise ShardcValueError(f"cannot broadcast {t.shape} to the lower-rank shape {shape}")
    k = len(shape) - t.ndim
    for i, d in enumerate(t.shape):
        if d not in (1, shape[k + i]):
            raise ShardcValueError(f"Incompatible shapes for broadcasting: {t.shape} and requested shape {shape}")
    spec = to_spec(out_sharding)
    if spec is not None:
        want = tuple(spec) + (None,) * (len(shape) - len(spec))
        for i, e in enumerate(t.spec):
            if e is not None and e != want[k + i]:
                raise_user_error(ShardcValueError(
                    f"Incompatible types for broadcasting: input type={t} and requested type="
                    f"{t.update(shape=shape, spec=want).str_short(short_dtypes=False)}"), [t])
    if shape == t.shape and spec is None and is_array(x):
        return x
    if not is_array(x):
        x = Const(x.value if isinstance(x, Const) else np.asarray(x, dtype=t.dtype), t.dtype, t.weak_type)
    return bind(sp.broadcast_in_dim, x, shape=shape, broadcast_dimensions=tuple(range(k, len(shape))),
                out_sharding=spec)

