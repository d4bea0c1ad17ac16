"""Sharding ops: `reshard` (change a sharding, with communication),
`with_sharding_constraint` (an assertion on Explicit axes, a hint on Auto
ones), and `auto_axes` / `explicit_axes` (switch axis types for a region).
JAX rules §2.14, §2.15 (`jax._src.pjit`: `with_sharding_constraint`,
`_auto_axes`, `_explicit_axes`)."""
from __future__ import annotations

import functools
from typing import Any, Callable

import jax
import jax.tree_util as tu
import numpy as np
from jax._src.tree_util import broadcast_prefix, prefix_errors  # JAX's prefix rules (pinned 0.10.2)
from jax.sharding import NamedSharding as JNamedSharding
from jax.sharding import SingleDeviceSharding

from ..core import Tracer, api, bind, check_explicit_spec, current_trace, raise_user_error, user_code
from ..errors import (
    ShardcAssertionError,
    ShardcError,
    ShardcNotImplementedError,
    ShardcTypeError,
    ShardcValueError,
    located,
)
from ..mesh import AbstractMesh, AxisType, _abstract_mesh_override, get_abstract_mesh
from ..primitives import sharding_ops as so
from ..runtime.array import Array, place, resolve_sharding, respell
from ..runtime.jaxbridge import is_jax_array, to_jax_spec
from ..runtime.mesh import get_mesh
from ..sharding import (
    UNCONSTRAINED,
    MemorySpace,
    NamedSharding,
    PartitionSpec,
    as_memory_space,
    entry_axes,
    mem_kind_to_space,
    mem_space_to_kind,
)
from ..types import check_spec, visible_entry
from ._util import as_operand, is_array, to_spec, type_of
from .creation import asarray
from .manual import in_eager_shard_map


def _spec_leaf(s) -> bool:
    return s is None or isinstance(s, (PartitionSpec, NamedSharding)) or not isinstance(s, (tuple, list, dict))


def _over_tree(fn: Callable, x, spec, what: str = "sharding"):
    """`fn(leaf, spec)` over a pytree `x` with `spec` a pytree prefix of it (one spec for a
    whole subtree), as JAX's `device_put` / `reshard` / `with_sharding_constraint` take
    pytrees (a dict of parameters, a typed key array); an array is its own one leaf."""
    leaves, tree = tu.tree_flatten(x, is_leaf=_is_array_leaf)
    if tree.num_leaves == 1 and tree.num_nodes == 1:
        return fn(x, spec)
    try:
        specs = broadcast_prefix(spec, x, is_leaf=_spec_leaf)
    except ValueError:
        errs = prefix_errors(spec, x, is_leaf=_spec_leaf)
        detail = str(errs[0](what)) if errs else ""
        raise_user_error(ShardcValueError(
            f"{what} must be a tree prefix of the corresponding value; mismatch: {detail}"))
    return tu.tree_unflatten(tree, [fn(leaf, s) for leaf, s in zip(leaves, specs)])


def _is_array_leaf(v) -> bool:
    return isinstance(v, Tracer) or getattr(v, "_shardc_type", None) is not None


@api("sc.reshard")
def reshard(x, spec):
    """Give `x` exactly the sharding `spec` (sharded, replicated, unreduced or
    reduced); XLA inserts the communication. `spec` may name Explicit axes
    only. Under `use_abstract_mesh` the result lives on the new mesh's axes.
    `x` may be a pytree, `spec` a prefix of it."""
    return _over_tree(_reshard, x, spec)


def _reshard(x, spec):
    x = as_operand(x)
    if isinstance(spec, NamedSharding) and not is_array(x):
        try:
            check_explicit_spec(spec.spec, spec.abstract_mesh, "reshard")
        except ShardcValueError as e:
            raise_user_error(e)
        return _device_put(x, spec)
    p = to_spec(spec) if not isinstance(spec, NamedSharding) else spec.spec
    if not is_array(x):
        x = asarray(x)
    mesh = get_abstract_mesh()
    if mesh.empty:
        mesh = type_of(x).mesh
    return bind(so.reshard, x, spec=p, mesh=mesh)


@api("sc.with_sharding_constraint")
def with_sharding_constraint(x, spec):
    """On an all-Explicit mesh: assert `x` already has `spec` (JAX's behaviour).
    With Auto axes: `spec` may name Auto axes only; it constrains their
    placement, the type's Explicit axes are kept (`P.UNCONSTRAINED` leaves a
    dim open). `x` may be a pytree, `spec` a prefix of it."""
    return _over_tree(_with_sharding_constraint, x, spec)


def _with_sharding_constraint(x, spec):
    x = as_operand(x)
    if not is_array(x):   # host data: an array on the context mesh first (as reshard takes it)
        x = asarray(x)
    t = type_of(x)
    p = to_spec(spec) if not isinstance(spec, NamedSharding) else spec.spec
    mesh = get_abstract_mesh() if not get_abstract_mesh().empty else t.mesh
    explicit = bool(mesh.axis_types) and all(a == AxisType.Explicit for a in mesh.axis_types)
    try:
        # uneven is fine: an assertion compares, and XLA pads uneven constraints on Auto axes
        check_spec(p, mesh, t.shape, allow_uneven=True)
    except ShardcError as e:
        raise_user_error(e, [t])
    ents = tuple(p) + (None,) * (t.ndim - len(p))
    if explicit:
        if t.unreduced or t.reduced or p.unreduced or p.reduced:
            raise_user_error(ShardcValueError(
                "with_sharding_constraint cannot assert on unreduced/reduced values (JAX 0.10.2 fails "
                "here too, with `Using *pspec is dangerous`); use `sc.reshard` to change them"), [t])
        if any(e is not UNCONSTRAINED and e != s for e, s in zip(ents, t.spec)):
            raise_user_error(ShardcAssertionError(
                "`with_sharding_constraint` acts as an assert when all axes of mesh are of type "
                f"`Explicit`. The array sharding: {t.pspec!r} did not match the sharding provided: "
                f"{PartitionSpec(*ents)!r}. Please use `sc.reshard` to shard your input to the "
                "sharding you want."), [t])
        return x
    manual = frozenset(mesh.manual_axes)
    if any(a in manual for e in ents for a in entry_axes(e)):   # JAX's add_manual_axes
        raise_user_error(ShardcValueError(
            f"pspec {p!r} contains a manual axes {set(manual)} of mesh which is not allowed. If you "
            "are using a with_sharding_constraint under a shard_map, only use the mesh axis in "
            "PartitionSpec which are not manual."), [t])
    bad = [a for e in ents for a in entry_axes(e) if mesh.axis_type(a) != AxisType.Auto]
    if bad:
        raise_user_error(ShardcValueError(
            "The spec of NamedSharding passed to with_sharding_constraint can only refer to Auto "
            f"axes of the mesh. Got spec={p!r} and mesh={mesh!r}. You probably meant to use "
            "`sc.reshard` API?"), [t])
    return bind(so.sharding_constraint, x, spec=p)


# --- auto_axes / explicit_axes ---------------------------------------------------------------
def _new_mesh(axes, to: AxisType, shardings=None) -> tuple[AbstractMesh, AbstractMesh, tuple[str, ...]] | None:
    """(outer mesh, region mesh, switched axes), as JAX's `_get_new_mesh`:
    `axes=None` means every axis of the context mesh; with no context mesh, the mesh
    of the NamedShardings given (`out_sharding=` / `in_sharding=`)."""
    cur = get_abstract_mesh()
    if cur.empty:
        named = [s.abstract_mesh for s in tu.tree_leaves(shardings, is_leaf=lambda x: isinstance(x, NamedSharding))
                 if isinstance(s, NamedSharding)]
        if not named:
            return None
        cur = named[0]
    names = cur.axis_names if axes is None else ((axes,) if isinstance(axes, str) else tuple(axes))
    for a in names:
        if a not in cur.axis_names:
            raise ShardcValueError(f"{a!r} is not an axis of the context mesh {cur!r}")
        if cur.axis_type(a) == AxisType.Manual:
            raise ShardcNotImplementedError(
                "Going from `Manual` AxisType to `Auto` or `Explicit` AxisType is not allowed "
                f"(axis {a!r} is Manual here, inside a shard_map)")
    return cur, cur.with_axis_types({a: to for a in names}), names


def _specs_for(spec_tree, n: int, what: str) -> list[PartitionSpec]:
    if isinstance(spec_tree, NamedSharding):
        spec_tree = spec_tree.spec
    if isinstance(spec_tree, PartitionSpec):
        return [spec_tree] * n
    flat, _ = tu.tree_flatten(spec_tree, is_leaf=lambda s: isinstance(s, (PartitionSpec, NamedSharding)) or s is None)
    if len(flat) != n:
        raise ShardcValueError(f"{what} has {len(flat)} shardings for {n} values")
    return [(s.spec if isinstance(s, NamedSharding) else s) or PartitionSpec() for s in flat]


def _visible_spec(t, mesh: AbstractMesh) -> PartitionSpec:
    """`t`'s spec as seen on `mesh`: axes that are not Explicit there vanish
    (JAX's `modify_spec_for_auto_manual`)."""
    keep = lambda axes: frozenset(a for a in axes if mesh.axis_type(a) == AxisType.Explicit)
    return PartitionSpec(*[visible_entry(e, mesh) for e in t.spec],
                         unreduced=keep(t.unreduced), reduced=keep(t.reduced))


def _is_leaf(a) -> bool:
    return isinstance(a, Tracer) or is_array(a)


def _cast_all(values, specs_fn, mesh: AbstractMesh):
    """`mesh_cast` every array leaf of `values` onto `mesh` with `specs_fn(leaves)`."""
    flat, tree = tu.tree_flatten(values, is_leaf=_is_leaf)
    flat = [as_operand(a) for a in flat]
    arrays = []
    for a in flat:
        if not is_array(a):
            a = asarray(a)
        arrays.append(a)
    specs = specs_fn(arrays)
    with _abstract_mesh_override(mesh):
        out = [bind(so.mesh_cast, a, spec=s, mesh=mesh) for a, s in zip(arrays, specs)]
    return tu.tree_unflatten(tree, out)


def auto_axes(f: Callable | None = None, *, axes=None, out_sharding=None):
    """Run `f` with `axes` (default: every mesh axis) switched to Auto: inside,
    types do not mention them and XLA chooses their placement; the results are
    resharded to `out_sharding` (given here or as a keyword of the call; it may
    name Explicit axes of the outer mesh only). When the axes are already
    exactly the Auto ones, `f` just runs (as in JAX)."""
    if f is None:
        return functools.partial(auto_axes, axes=axes, out_sharding=out_sharding)

    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        osh = _required_kw(out_sharding, kwargs, "out_sharding", "sc.auto_axes",
                           "the result's sharding must be stated")
        return _auto_axes_call(f, args, kwargs, axes, osh, api="sc.auto_axes")

    return wrapper


def _required_kw(given, kwargs: dict, name: str, where: str, why: str):
    """A keyword required by the time the region is called (given up front or
    at the call, as JAX allows)."""
    if given is not None:
        return given
    if name not in kwargs:
        raise_user_error(ShardcTypeError(
            f"Missing required keyword argument: '{name}' (pass it to {where} or to the call): {why}"))
    return kwargs.pop(name)


@api("sc.auto_axes")
def _auto_axes_call(f, args, kwargs, axes, out_sharding):
    try:
        info = _new_mesh(axes, AxisType.Auto, out_sharding)
    except ShardcError as e:
        raise_user_error(e)
    if info is None or set(info[0].auto_axes) == set(info[2]):
        # nothing to switch: JAX runs `f` as is (outside a program, on the concrete arrays:
        # `x.sharding` works inside) and does not reshard to `out_sharding`
        with user_code():
            return f(*args, **kwargs)
    outer, inner, _ = info
    args = _cast_all(args, lambda flat: [_visible_spec(type_of(a), inner) for a in flat], inner)
    with _abstract_mesh_override(inner), user_code():
        out = f(*args, **kwargs)
    return _cast_all(out, lambda flat: _specs_for(out_sharding, len(flat), "out_sharding"), outer)


def explicit_axes(f: Callable | None = None, *, axes=None, in_sharding=None):
    """Run `f` with `axes` (default: every mesh axis) switched to Explicit: the
    arguments are resharded to `in_sharding` (given here or as a keyword of the
    call) and the sharding-in-types rules apply inside; outside, the axes that
    are not Explicit there vanish from the results' types again."""
    if f is None:
        return functools.partial(explicit_axes, axes=axes, in_sharding=in_sharding)

    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        ish = _required_kw(in_sharding, kwargs, "in_sharding", "sc.explicit_axes",
                           "the arguments' sharding must be stated")
        return _explicit_axes_call(f, args, kwargs, axes, ish, api="sc.explicit_axes")

    return wrapper


@api("sc.explicit_axes")
def _explicit_axes_call(f, args, kwargs, axes, in_sharding):
    try:
        info = _new_mesh(axes, AxisType.Explicit)
    except ShardcError as e:
        raise_user_error(e)
    if info is None:
        raise_user_error(ShardcValueError(
            "Context mesh cannot be empty. Please use `sc.set_mesh` to enter into a mesh context "
            "when using `explicit_axes`."))
    outer, inner, _ = info
    args = _cast_all(args, lambda flat: _specs_for(in_sharding, len(flat), "in_sharding"), inner)
    with _abstract_mesh_override(inner), user_code():
        out = f(*args, **kwargs)
    return _cast_all(out, lambda flat: [_visible_spec(type_of(o), outer) for o in flat], outer)


@located
def device_put(x: Any, spec_or_sharding=None) -> Array:
    """Place `x` (NumPy, scalar, `jax.Array` or `sc.Array`, or a pytree of them with
    `spec_or_sharding` a prefix of it) on devices with a sharding.

    An array already on devices is resharded by a compiled program (communication);
    inside a program, `device_put` of a traced value is a `reshard` (as in JAX).
    """
    return _over_tree(_device_put, x, spec_or_sharding, "device_put device specification")


def _device_put(x: Any, spec_or_sharding=None) -> Array:
    space = as_memory_space(spec_or_sharding)
    if space is not None:
        return _to_memory_space(x, space)
    _check_placement(spec_or_sharding)
    kind = getattr(spec_or_sharding, "memory_kind", None)
    if isinstance(spec_or_sharding, SingleDeviceSharding) and kind == "device":
        kind = None   # (JAX's spells its default memory so; a device's memory is where it puts values)
    if kind is not None:   # a sharding in a memory: laid out first, then moved there
        out = _device_put(x, _without_memory_kind(spec_or_sharding))
        if current_trace() is not None:
            return _to_memory_space(out, mem_kind_to_space(kind))
        return _to_memory_kind(out, spec_or_sharding)
    device = _single_device(spec_or_sharding)
    if current_trace() is not None:
        if device is not None:
            if get_abstract_mesh().manual_axes and in_eager_shard_map():   # JAX's `_device_put_eager_rule`
                raise_user_error(ShardcValueError(
                    "device_put with explicit device not allowed within shard_map-decorated functions, "
                    f"but got device {spec_or_sharding}"))
            if isinstance(spec_or_sharding, SingleDeviceSharding) and not get_abstract_mesh().empty:
                _incompatible_in_program(device)
            # under jit JAX ignores a device (the program's devices decide where it runs)
            return x if is_array(x) else asarray(x)
        if spec_or_sharding is None:
            return x if is_array(x) else asarray(x)
        spec = spec_or_sharding.spec if isinstance(spec_or_sharding, NamedSharding) else spec_or_sharding
        return _reshard(x, spec)
    if device is not None:
        # (a SingleDeviceSharding as given: JAX moves a host-memory array to its memory)
        return _put_on_device(x, spec_or_sharding if isinstance(spec_or_sharding, SingleDeviceSharding) else device)
    if isinstance(x, Array) or is_jax_array(x):
        src = x if isinstance(x, Array) else Array(x)
        if spec_or_sharding is None:
            return src
        mesh, spec = resolve_sharding(spec_or_sharding)
        if src._mesh is not None and src._mesh.abstract_mesh == mesh.abstract_mesh and src._mesh != mesh:
            raise ShardcNotImplementedError(
                "device_put between meshes of the same shape but a different device order is not "
                "supported yet; build the array on the target mesh")
        am = mesh.abstract_mesh
        named = [a for e in spec for a in entry_axes(e)]
        if src._mesh is None or src._mesh != mesh or any(am.axis_type(a) != AxisType.Explicit for a in named):
            # another mesh, or a placement over Auto axes (which a reshard cannot name): lay it out anew
            return place(np.asarray(src), mesh, spec)
        out = _reshard(src, NamedSharding(mesh, spec))   # (named: no mesh need be in context)
        if out._shardc_type.memory_space is not MemorySpace.Device:   # JAX: a sharding names device memory
            out = _to_memory_kind(out, NamedSharding(mesh, spec, memory_kind="device"))
        # JAX's result carries the sharding as passed (P('x') stays P('x'), not the type's P('x', None))
        return respell(out, JNamedSharding(mesh.jax_mesh, to_jax_spec(spec)))
    if spec_or_sharding is None:   # JAX: uncommitted, on the default device (a mesh context or not)
        return Array(jax.device_put(x))
    mesh, spec = resolve_sharding(spec_or_sharding)
    return place(x, mesh, spec)


_PLACEMENT_ERROR = ("`sc.device_put` only accepts `None`, `sc.sharding.Sharding`, `jax.Device`, `Format`, "
                    "`sc.memory.Space` or a pytree of these values. Received invalid value: ")


def _check_placement(s) -> None:
    """JAX's ValueError for a placement that is none of those `device_put` takes (a memory
    kind's name such as 'pinned_host' among them)."""
    if isinstance(s, str):
        raise_user_error(ShardcValueError(_PLACEMENT_ERROR + s))


def _without_memory_kind(s):
    """The same placement in the default memory (its layout part)."""
    if isinstance(s, SingleDeviceSharding):
        return SingleDeviceSharding(next(iter(s.device_set)))
    return NamedSharding(s.mesh, s.spec)


def _to_memory_space(x: Any, space: MemorySpace):
    """`device_put(x, sc.memory.Space.Host)`: inside a program the `device_put` primitive (the
    type's memory space changes); eagerly the array's buffers move (its layout stays)."""
    if current_trace() is not None:
        return bind(so.device_put_p, as_operand(x), space=space)
    src = x if isinstance(x, Array) else (Array(x) if is_jax_array(x) else None)
    try:
        kind = mem_space_to_kind(space)
    except AssertionError:   # JAX's own AssertionError for `Space.Any` outside Pallas
        raise_user_error(ShardcAssertionError("unreachable"))
    if src is None:   # host data: on the default device, uncommitted (JAX's)
        return Array(jax.device_put(x, getattr(jax.memory.Space, space.name)))
    if src._mesh is None:
        return Array(jax.device_put(src._jax, src._jax.sharding.with_memory_kind(kind)))
    return _to_memory_kind(src, src.sharding.with_memory_kind(kind))


def _to_memory_kind(arr: Array, sharding) -> Array:
    """`arr` (laid out as `sharding` says) with its buffers in `sharding.memory_kind`."""
    if isinstance(sharding, SingleDeviceSharding) or arr._mesh is None:
        return Array(jax.device_put(arr._jax, sharding if isinstance(sharding, SingleDeviceSharding)
                                    else arr._jax.sharding.with_memory_kind(sharding.memory_kind)))
    j = arr._jax
    js = JNamedSharding(j.sharding.mesh, j.sharding.spec, memory_kind=sharding.memory_kind)
    ja = j if j.sharding == js else jax.device_put(j, js)
    return Array(ja, arr._shardc_type.update(memory_space=mem_kind_to_space(sharding.memory_kind)), arr._mesh)


def _single_device(spec_or_sharding):
    """The device a `jax.Device` or a `SingleDeviceSharding` names; None for anything else."""
    if isinstance(spec_or_sharding, SingleDeviceSharding):
        return next(iter(spec_or_sharding.device_set))
    if hasattr(spec_or_sharding, "platform") and hasattr(spec_or_sharding, "id"):   # a jax.Device
        return spec_or_sharding
    return None


def _put_on_device(x: Any, device) -> Array:
    """`x` committed to one `device` (JAX's `device_put(x, device)`): a mesh-less array there,
    whose ops and programs run on that device. An unreduced array is summed first (its value)."""
    if isinstance(x, Array):
        value = np.asarray(x) if x._shardc_type.unreduced else x._jax
    else:
        value = x   # a jax.Array, NumPy data or a scalar: JAX's own conversion (weak types too)
    return Array(jax.device_put(value, device))


def _incompatible_in_program(device) -> None:
    """JAX's error for a `SingleDeviceSharding` placement inside a program over a mesh."""
    mesh = get_mesh()
    ids = [d.id for d in mesh.devices.flat] if mesh is not None else list(range(get_abstract_mesh().size))
    raise_user_error(ShardcValueError(
        f"Received incompatible devices for jitted computation. Got jit's context mesh with device ids {ids} "
        f"on platform {device.platform.upper()} and device_put inside jit with device ids [{device.id}] "
        f"on platform {device.platform.upper()}"))


@api("sc.stop_gradient")
def stop_gradient(x):
    """`lax.stop_gradient`: `x` unchanged (a pytree too), with no cotangent flowing
    back through it."""
    flat, tree = tu.tree_flatten(x, is_leaf=is_array)
    out = [bind(so.stop_gradient_p, a if is_array(a) else asarray(a)) for a in flat]
    return tu.tree_unflatten(tree, out)
