"""Sharding ops: `reshard` (change a sharding, with communication),
`with_sharding_constraint` (an assertion on Explicit axes, a hint on Auto
ones), and `auto_axes` / `explicit_axes` (switch axis types for a region)."""
from __future__ import annotations

import functools
from typing import Any, Callable

from ..errors import ShardcAssertionError, ShardcError, ShardcValueError
from ..frontend.tracing import Tracer, api, bind, current_trace, raise_user_error, user_code
from ..mesh import AbstractMesh, AxisType, _abstract_mesh_override, get_abstract_mesh
from ..primitives import sharding_ops as so
from ..sharding import UNCONSTRAINED, NamedSharding, PartitionSpec, entry_axes
from ..types import check_spec, visible_entry
from ._util import as_operand, is_array, to_spec, type_of


def _tree():
    import jax.tree_util as tu
    return tu


@api("sc.reshard")
def reshard(x, spec):
    """Give `x` exactly the sharding `spec` (sharded, replicated, unreduced or
    reduced); XLA inserts the communication. Under `use_abstract_mesh` the
    result lives on the new mesh's axes."""
    x = as_operand(x)
    if isinstance(spec, NamedSharding) and not is_array(x):
        from ..runtime.array import device_put
        return device_put(x, spec)
    p = to_spec(spec) if not isinstance(spec, NamedSharding) else spec.spec
    if not is_array(x):
        from .creation import asarray
        x = asarray(x)
    mesh = get_abstract_mesh()
    if mesh.empty or (current_trace() is None and mesh.axis_names != type_of(x).mesh.axis_names
                      and not type_of(x).mesh.empty):
        mesh = type_of(x).mesh
    return bind(so.reshard, x, spec=p, mesh=mesh)


@api("sc.with_sharding_constraint")
def with_sharding_constraint(x, spec):
    """On an all-Explicit mesh: assert `x` already has `spec` (JAX's behaviour).
    With Auto axes: constrain their placement (`P.UNCONSTRAINED` leaves a dim open)."""
    x = as_operand(x)
    t = type_of(x)
    p = to_spec(spec) if not isinstance(spec, NamedSharding) else spec.spec
    mesh = get_abstract_mesh() if not get_abstract_mesh().empty else t.mesh
    explicit = not mesh.auto_axes
    try:
        check_spec(p, mesh, t.shape, allow_uneven=explicit)  # an assertion compares, uneven or not
    except ShardcError as e:
        raise_user_error(e, [t])
    if explicit and (t.unreduced or t.reduced or p.unreduced or p.reduced):
        raise_user_error(ShardcValueError(
            "with_sharding_constraint cannot assert on unreduced/reduced values (JAX 0.10.2 fails "
            "here too, with `Using *pspec is dangerous`); use `sc.reshard` to change them"), [t])
    want = tuple(visible_entry(e, mesh) if e is not UNCONSTRAINED else None for e in p)
    want += (None,) * (t.ndim - len(want))
    explicit_ok = all(w == s or p_e is UNCONSTRAINED for w, s, p_e in
                      zip(want, t.spec, tuple(p) + (None,) * (t.ndim - len(p))))
    if not explicit_ok or p.unreduced != t.unreduced or p.reduced != t.reduced:
        raise_user_error(ShardcAssertionError(
            "`with_sharding_constraint` acts as an assert when all axes of mesh are of type "
            f"`Explicit`. The array sharding: {t.pspec!r} did not match the sharding provided: "
            f"{p!r}. Please use `sc.reshard` to shard your input to the sharding you want."), [t])
    if mesh.auto_axes:
        return bind(so.sharding_constraint, x, spec=p)
    return x


# --- auto_axes / explicit_axes ---------------------------------------------------------------
def _switch_axes(mesh: AbstractMesh, axes, frm: AxisType, to: AxisType, what: str) -> tuple[AbstractMesh, tuple]:
    if mesh.manual_axes:
        raise ShardcValueError(
            f"{what} cannot be used where mesh axes are Manual ({', '.join(mesh.manual_axes)}): "
            "it switches Explicit and Auto axes only")
    if axes is None:
        names = mesh.axes_of_type(frm)
    else:
        names = (axes,) if isinstance(axes, str) else tuple(axes)
    for a in names:
        if a not in mesh.axis_names:
            raise ShardcValueError(f"{what}: {a!r} is not an axis of {mesh}")
        if mesh.axis_type(a) != frm:
            raise ShardcValueError(f"{what}: axis {a!r} is {mesh.axis_type(a).value}, expected {frm.value}")
    return mesh.with_axis_types({a: to for a in names}), names


def _specs_for(spec_tree, n: int, what: str) -> list[PartitionSpec]:
    if isinstance(spec_tree, NamedSharding):
        spec_tree = spec_tree.spec
    if isinstance(spec_tree, PartitionSpec):
        return [spec_tree] * n
    flat, _ = _tree().tree_flatten(spec_tree, is_leaf=lambda s: isinstance(s, (PartitionSpec, NamedSharding)) or s is None)
    if len(flat) != n:
        raise ShardcValueError(f"{what} has {len(flat)} shardings for {n} values")
    return [(s.spec if isinstance(s, NamedSharding) else s) or PartitionSpec() for s in flat]


def _drop_axes(t, mesh: AbstractMesh) -> PartitionSpec:
    """`t`'s spec as seen on `mesh` (axes that are not Explicit there vanish)."""
    ents = [visible_entry(e, mesh) for e in t.spec]
    return PartitionSpec(*ents, unreduced=t.unreduced, reduced=t.reduced)


def _region(f: Callable, args, inner: AbstractMesh, in_specs, outer: AbstractMesh,
            out_specs_fn, what: str):
    """Cast `args` onto `inner`, run `f` there, cast the results back to `outer`."""
    flat, tree = _tree().tree_flatten(args, is_leaf=lambda a: isinstance(a, Tracer) or is_array(a))
    flat = [as_operand(a) for a in flat]
    specs = in_specs(flat)
    cast = []
    for a, s in zip(flat, specs):
        if not is_array(a):
            from .creation import asarray
            a = asarray(a)
        cast.append(bind(so.mesh_cast, a, spec=s, mesh=inner))
    with _abstract_mesh_override(inner), user_code():
        out = f(*_tree().tree_unflatten(tree, cast))
    flat_out, out_tree = _tree().tree_flatten(out, is_leaf=lambda a: isinstance(a, Tracer) or is_array(a))
    ospecs = out_specs_fn(flat_out)
    res = [bind(so.mesh_cast, o, spec=s, mesh=outer) for o, s in zip(flat_out, ospecs)]
    return _tree().tree_unflatten(out_tree, res)


def _staged(fn: Callable, args, name: str):
    """Run a region eagerly by staging it as a one-off program."""
    from ..frontend.jit import Jit
    return Jit(lambda *xs: fn(*xs), name=name)(*args)


def auto_axes(f: Callable | None = None, *, axes=None, out_sharding=None):
    """Run `f` with `axes` (default: all Explicit axes) switched to Auto: inside,
    types do not mention them and XLA chooses their placement; the results get
    `out_sharding` (here or as a keyword of the call)."""
    if f is None:
        return functools.partial(auto_axes, axes=axes, out_sharding=out_sharding)

    @functools.wraps(f)
    def wrapper(*args, out_sharding=out_sharding):
        return _auto_axes_call(f, args, axes, out_sharding, api="sc.auto_axes")

    return wrapper


@api("sc.auto_axes")
def _auto_axes_call(f, args, axes, out_sharding):
    if out_sharding is None:
        raise_user_error(ShardcValueError(
            "auto_axes needs out_sharding= (pass it to sc.auto_axes or to the call): the result's "
            "sharding on the switched axes must be stated"))
    if current_trace() is None:
        return _staged(lambda *xs: _auto_axes_call(f, xs, axes, out_sharding), args, "auto_axes")
    outer = get_abstract_mesh()
    try:
        inner, names = _switch_axes(outer, axes, AxisType.Explicit, AxisType.Auto, "auto_axes")
    except ShardcError as e:
        raise_user_error(e)
    return _region(f, args, inner, lambda flat: [_drop_axes(type_of(a), inner) for a in flat], outer,
                   lambda outs: _specs_for(out_sharding, len(outs), "out_sharding"), "auto_axes")


def explicit_axes(f: Callable | None = None, *, axes=None, in_sharding=None):
    """Run `f` with `axes` (default: all Auto axes) switched to Explicit: the
    arguments take `in_sharding` (here or as a keyword of the call) and the
    sharding-in-types rules apply inside; outside, those axes vanish again."""
    if f is None:
        return functools.partial(explicit_axes, axes=axes, in_sharding=in_sharding)

    @functools.wraps(f)
    def wrapper(*args, in_sharding=in_sharding):
        return _explicit_axes_call(f, args, axes, in_sharding, api="sc.explicit_axes")

    return wrapper


@api("sc.explicit_axes")
def _explicit_axes_call(f, args, axes, in_sharding):
    if in_sharding is None:
        raise_user_error(ShardcValueError(
            "explicit_axes needs in_sharding= (pass it to sc.explicit_axes or to the call): the "
            "arguments' sharding on the switched axes must be stated"))
    if current_trace() is None:
        return _staged(lambda *xs: _explicit_axes_call(f, xs, axes, in_sharding), args, "explicit_axes")
    outer = get_abstract_mesh()
    try:
        inner, names = _switch_axes(outer, axes, AxisType.Auto, AxisType.Explicit, "explicit_axes")
    except ShardcError as e:
        raise_user_error(e)

    def in_specs(flat):
        specs = _specs_for(in_sharding, len(flat), "in_sharding")
        out = []
        for a, s in zip(flat, specs):
            t = type_of(a)
            keep = [tuple(x for x in entry_axes(e) if x not in names) for e in tuple(s)]
            for i, (k, e) in enumerate(zip(keep, t.spec + (None,) * 0)):
                if tuple(k) != tuple(entry_axes(t.spec[i])):
                    raise_user_error(ShardcValueError(
                        f"explicit_axes in_sharding {s!r} must keep the argument's Explicit "
                        f"sharding {t.pspec!r}"), [t])
            out.append(s)
        return out

    return _region(f, args, inner, in_specs, outer,
                   lambda outs: [_drop_axes(type_of(o), outer) for o in outs], "explicit_axes")
