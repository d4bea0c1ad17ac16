"""Manual mode: `shard_map` and the collectives used inside it."""
from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

from .. import dtypes as dt
from ..errors import ShardcError, ShardcValueError
from ..frontend.tracing import (Trace, Tracer, api, bind, current_api, current_trace, raise_user_error,
                                tracing, typeof, user_code)
from ..ir import Program
from ..mesh import AbstractMesh, AxisType, Mesh, _abstract_mesh_override, get_abstract_mesh
from ..primitives import collectives as col
from ..primitives.shard_map import global_type, local_type, manual_entry, shard_map as shard_map_p
from ..sharding import PartitionSpec, entry_axes
from ..types import ArrayType
from ._util import as_operand, is_array, type_of


def _tree():
    import jax.tree_util as tu
    return tu


def _is_leaf(x) -> bool:
    return x is None or isinstance(x, (Tracer, PartitionSpec)) or getattr(x, "_shardc_type", None) is not None


def _broadcast_specs(specs, n: int, what: str) -> list[PartitionSpec]:
    if isinstance(specs, PartitionSpec):
        return [specs] * n
    flat, _ = _tree().tree_flatten(specs, is_leaf=lambda s: isinstance(s, PartitionSpec) or s is None)
    if len(flat) != n:
        raise ShardcValueError(f"shard_map {what} has {len(flat)} specs for {n} values")
    return [s if s is not None else PartitionSpec() for s in flat]


def _set_str(axes) -> str:
    return "{" + ",".join(axes) + "}"


def shard_map(f: Callable | None = None, *, mesh: Mesh | AbstractMesh | None = None,
              in_specs=None, out_specs=None, axis_names=None, check_vma: bool = True):
    """Run `f` per device over the Manual axes `axis_names` (default: all).

    Inside, values have local shapes and types record the manual axes they vary
    over (`{V:X}`). `in_specs` may be omitted on Explicit meshes (taken from the
    arguments' types); `out_specs` say how results are assembled.
    """
    if f is None:
        return functools.partial(shard_map, mesh=mesh, in_specs=in_specs, out_specs=out_specs,
                                 axis_names=axis_names, check_vma=check_vma)
    if out_specs is None:
        raise ShardcValueError("shard_map requires out_specs")

    @functools.wraps(f)
    def wrapper(*args):
        return _shard_map_call(f, args, mesh, in_specs, out_specs, axis_names, check_vma, api="sc.shard_map")

    return wrapper


@api("sc.shard_map")
def _shard_map_call(f, args, mesh, in_specs, out_specs, axis_names, check_vma):
    if current_trace() is None and not any(isinstance(a, Tracer) for a in _tree().tree_leaves(args, is_leaf=_is_leaf)):
        from ..frontend.jit import Jit
        prog = Jit(lambda *xs: _shard_map_call(f, xs, mesh, in_specs, out_specs, axis_names, check_vma),
                   name=getattr(f, "__name__", "shard_map"))
        return prog(*args)
    outer = get_abstract_mesh()
    amesh = outer if mesh is None else (mesh.abstract_mesh if isinstance(mesh, Mesh) else mesh)
    if amesh.empty:
        raise_user_error(ShardcValueError("shard_map needs a mesh: pass mesh= or use sc.set_mesh"))
    if not outer.empty and (amesh.axis_names != outer.axis_names or amesh.axis_sizes != outer.axis_sizes):
        raise_user_error(ShardcValueError(f"shard_map mesh {amesh} does not match the context mesh {outer}"))
    amesh = outer if not outer.empty else amesh
    manual = frozenset(amesh.axis_names if axis_names is None else
                       ((axis_names,) if isinstance(axis_names, str) else axis_names))
    for a in manual:
        if a not in amesh.axis_names:
            raise_user_error(ShardcValueError(f"shard_map axis_names mentions {a!r}, not an axis of {amesh}"))
    flat, in_tree = _tree().tree_flatten(args, is_leaf=_is_leaf)
    flat = [as_operand(a) for a in flat]
    flat = [a if is_array(a) else _const_array(a) for a in flat]
    types = [type_of(a) for a in flat]
    specs = _in_specs(in_specs, types, manual, amesh, f)
    body_mesh = amesh.with_axis_types({a: AxisType.Manual for a in manual})
    inner = Trace(body_mesh, getattr(f, "__name__", "body"), manual, check_vma)
    tracers = [inner.new_arg(local_type(t, s, body_mesh, manual, check_vma)) for t, s in zip(types, specs)]
    with tracing(inner), _abstract_mesh_override(body_mesh):
        with user_code():
            out = f(*_tree().tree_unflatten(in_tree, tracers))
        flat_out, out_tree = _tree().tree_flatten(out, is_leaf=_is_leaf)
        flat_out = [o if isinstance(o, Tracer) else _body_const(o) for o in flat_out]
        ospecs = _broadcast_specs(out_specs, len(flat_out), "out_specs")
        flat_out = [_check_out(o, s, manual, amesh, check_vma, f) for o, s in zip(flat_out, ospecs)]
    body = Program(inner.name, inner.in_vars, inner.eqns, [o._var for o in flat_out], body_mesh)
    out_types = tuple(global_type(o.aval, s, amesh, manual) for o, s in zip(flat_out, ospecs))
    res = bind(shard_map_p, *flat, body=body, in_specs=tuple(specs), out_specs=tuple(ospecs),
               manual_axes=manual, check_vma=check_vma, out_types=out_types)
    return _tree().tree_unflatten(out_tree, res)


def _const_array(a):
    from .creation import asarray
    return asarray(a)


def _body_const(o):
    from .creation import asarray
    return asarray(o)


def _restrict(spec_entries, manual) -> tuple:
    out = []
    for e in spec_entries:
        axes = manual_entry(e, manual)
        out.append(None if not axes else (axes[0] if len(axes) == 1 else axes))
    while out and out[-1] is None:
        out.pop()
    return tuple(out)


def _in_specs(in_specs, types: list[ArrayType], manual, mesh: AbstractMesh, f) -> list[PartitionSpec]:
    if in_specs is None:
        if not mesh.has_explicit and not all(t.is_replicated for t in types):
            pass
        return [PartitionSpec(*[(lambda a: None if not a else (a[0] if len(a) == 1 else a))(manual_entry(e, manual))
                                for e in t.spec],
                              unreduced=t.unreduced & manual, reduced=t.reduced & manual) for t in types]
    specs = _broadcast_specs(in_specs, len(types), "in_specs")
    for s, t in zip(specs, types):
        bad = [a for a in s.axes() + list(s.unreduced | s.reduced) if a not in manual]
        if bad:
            raise_user_error(ShardcValueError(
                f"shard_map in_specs argument must refer to an axis marked as manual "
                f"(frozenset({{{', '.join(repr(a) for a in sorted(manual))}}})), but:\n\n"
                f"  in_specs refers to {bad[0]!r}\n\nCheck the in_specs values passed to shard_map."), [t])
        if len(s) > t.ndim:
            raise_user_error(ShardcValueError(f"in_spec {s!r} has more entries than the argument's rank {t.ndim}"), [t])
        arg_p = PartitionSpec(*t.spec, unreduced=t.unreduced, reduced=t.reduced)
        if mesh.has_explicit:
            if _restrict(tuple(s), manual) != _restrict(t.spec, manual) or \
                    (s.unreduced & manual) != (t.unreduced & manual) or (s.reduced & manual) != (t.reduced & manual):
                raise_user_error(ShardcValueError(
                    f"in_specs passed to shard_map: {s!r} does not match the specs of the input: "
                    f"{arg_p!r} for arg: {t}. `in_specs` is an optional argument so you can omit "
                    "specifying it and shard_map will infer the in_specs from the arguments. If you "
                    "want to reshard your inputs, you can use `sc.reshard` on the arguments and then "
                    "pass those args to shard_map."), [t])
        for i, e in enumerate(tuple(s) + (None,) * (t.ndim - len(s))):
            n = 1
            for a in manual_entry(e, manual):
                n *= mesh.axis_size(a)
            if t.shape[i] % n:
                raise_user_error(ShardcValueError(
                    f"shard_map in_spec {s!r} splits dim {i} of {t} into {n} parts, which does not divide it"), [t])
    return specs


def _check_out(o: Tracer, spec: PartitionSpec, manual, mesh: AbstractMesh, check_vma: bool, f) -> Tracer:
    t = o.aval
    for a in spec.axes() + list(spec.unreduced | spec.reduced):
        if a not in mesh.axis_names:
            raise_user_error(ShardcValueError(f"out_specs mentions {a!r}, not an axis of {mesh}"), [t])
    if len(spec) > t.ndim:
        raise_user_error(ShardcValueError(f"out_spec {spec!r} has more entries than the result's rank {t.ndim}"), [t])
    if not check_vma:
        return o
    need_u = (spec.unreduced & manual) - t.unreduced
    if need_u:
        o = bind(col.vary_unreduced_cast, o, axes=mesh.mesh_order(need_u))
        t = o.aval
    mentioned = set(spec.axes()) | set(spec.unreduced)
    missing = [a for a in mesh.mesh_order(t.vma) if a not in mentioned]
    if missing:
        name = getattr(f, "__name__", "<function>")
        spec_axes = [a for a in mesh.axis_names if a in set(spec.axes())]
        not_v = [a for a in mesh.axis_names if a in manual and a not in spec_axes]
        raise_user_error(ShardcValueError(
            f"shard_map applied to the function '{name}' was given out_specs which require "
            "replication which can't be statically inferred given the mesh:\n\n"
            f"The mesh given has shape {mesh.axis_sizes} with corresponding axis names {mesh.axis_names}.\n\n"
            f"out_specs is {spec!r} which implies that the corresponding output value is only varying "
            f"across mesh axes {_set_str(spec_axes)} and not {_set_str(not_v)}, but it was inferred to "
            f"be possibly varying over {_set_str(mesh.mesh_order(t.vma))}\n\n"
            "Check if these output values are meant to be replicated over those mesh axes. If not, "
            "consider revising the corresponding out_specs entries. If so, consider disabling the "
            "check by passing the check_vma=False argument to `sc.shard_map`."), [t])
    stray_u = (t.unreduced & manual) - spec.unreduced
    if stray_u:
        raise_user_error(ShardcValueError(
            f"a shard_map result of type {t} is unreduced over {sorted(stray_u)} but its out_spec "
            f"{spec!r} does not list them in `unreduced=`; psum it or add them"), [t])
    return o


# --- collectives ------------------------------------------------------------------------------
def _axes(axis_name) -> tuple[str, ...]:
    if isinstance(axis_name, str):
        return (axis_name,)
    if isinstance(axis_name, (tuple, list)):
        return tuple(axis_name)
    raise ShardcValueError(f"axis_name={axis_name!r} must be a tuple or a str. Got {axis_name!r}")


def _manual_operand(x, axes, what: str):
    x = as_operand(x)
    if not is_array(x):
        from .creation import asarray
        x = asarray(x)
    mesh = get_abstract_mesh()
    try:
        col.check_manual_axes(mesh, axes, what)
    except ShardcError as e:
        raise_user_error(e, [type_of(x)])
    return x


def _pvary_invariant(x, axes):
    """Collectives on invariant inputs first make them varying (as JAX does)."""
    t = type_of(x)
    tr = current_trace()
    if tr is None or not tr.check_vma:
        return x
    rest = [a for a in axes if a not in t.vma and a not in t.unreduced and a not in t.reduced]
    if rest and len(rest) == len(axes):
        return bind(col.pvary, x, axes=get_abstract_mesh().mesh_order(rest))
    return x


def _all_reduce(name: str, x, axis_name):
    axes = _axes(axis_name)
    x = _manual_operand(x, axes, name)
    t = type_of(x)
    if name != "psum" or not set(axes) <= t.unreduced:
        x = _pvary_invariant(x, axes)
    return bind(col.ALL_REDUCE[name], x, axes=get_abstract_mesh().mesh_order(axes) if
                set(axes) <= set(get_abstract_mesh().axis_names) else axes)


@api("sc.psum")
def psum(x, axis_name):
    """Sum over the Manual axes `axis_name` (varying → invariant; unreduced → invariant)."""
    return _all_reduce("psum", x, axis_name)


@api("sc.pmax")
def pmax(x, axis_name):
    return _all_reduce("pmax", x, axis_name)


@api("sc.pmin")
def pmin(x, axis_name):
    return _all_reduce("pmin", x, axis_name)


@api("sc.pmean")
def pmean(x, axis_name):
    from .elementwise import true_divide
    axes = _axes(axis_name)
    s = _all_reduce("psum", x, axes)
    return true_divide(s, col.axes_size(get_abstract_mesh(), axes))


@api("sc.all_gather")
def all_gather(x, axis_name, *, axis: int = 0, tiled: bool = False, to: str = "varying"):
    """Gather shards along `axis` (stacked, or concatenated when `tiled`)."""
    from ._util import normalize_axis
    axes = _axes(axis_name)
    x = _manual_operand(x, axes, "all_gather")
    if to not in ("varying", "reduced"):
        raise_user_error(ShardcValueError(f"all_gather to={to!r}: expected 'varying' or 'reduced'"))
    if to == "varying":
        x = _pvary_invariant(x, axes)
    t = type_of(x)
    ax = normalize_axis(axis, t.ndim + (0 if tiled else 1))
    return bind(col.all_gather, x, axes=axes, axis=ax, tiled=bool(tiled), to=to)


@api("sc.psum_scatter")
def psum_scatter(x, axis_name, *, scatter_dimension: int = 0, tiled: bool = False):
    from ._util import normalize_axis
    axes = _axes(axis_name)
    x = _manual_operand(x, axes, "psum_scatter")
    x = _pvary_invariant(x, axes)
    t = type_of(x)
    return bind(col.psum_scatter, x, axes=axes, scatter_dimension=normalize_axis(scatter_dimension, t.ndim),
                tiled=bool(tiled))


@api("sc.ppermute")
def ppermute(x, axis_name, perm: Sequence[tuple[int, int]]):
    axes = _axes(axis_name)
    x = _manual_operand(x, axes, "ppermute")
    x = _pvary_invariant(x, axes)
    return bind(col.ppermute, x, axes=axes, perm=tuple((int(a), int(b)) for a, b in perm))


@api("sc.all_to_all")
def all_to_all(x, axis_name, split_axis: int, concat_axis: int, *, tiled: bool = False):
    from ._util import normalize_axis
    axes = _axes(axis_name)
    x = _manual_operand(x, axes, "all_to_all")
    x = _pvary_invariant(x, axes)
    t = type_of(x)
    return bind(col.all_to_all, x, axes=axes, split_axis=normalize_axis(split_axis, t.ndim),
                concat_axis=normalize_axis(concat_axis, t.ndim), tiled=bool(tiled))


@api("sc.axis_index")
def axis_index(axis_name):
    """This device's index along the Manual axis (or axes, linearized)."""
    axes = _axes(axis_name)
    mesh = get_abstract_mesh()
    try:
        col.check_manual_axes(mesh, axes, "axis_index")
    except ShardcError as e:
        raise_user_error(e)
    return bind(col.axis_index, axes=axes, mesh=mesh)


def axis_size(axis_name) -> int:
    """The size of a mesh axis (or the product over several), as a Python int."""
    return col.axes_size(get_abstract_mesh(), _axes(axis_name))


@api("sc.pcast")
def pcast(x, axis_name, *, to: str):
    """Change the varying/invariant/unreduced/reduced state over Manual axes
    without moving data: invariant→varying, varying→unreduced, invariant→reduced,
    reduced→varying."""
    allowed = {"varying", "unreduced", "reduced"}
    if to not in allowed:
        raise_user_error(ShardcValueError(
            f"Got unexpected `to` value. Allowed `to` values are: {{'reduced', 'unreduced', 'varying'}}"))
    axes = _axes(axis_name)
    x = _manual_operand(x, axes, "pcast")
    t = type_of(x)
    states = col._state(t, axes)
    if len(states) > 1:
        raise_user_error(col._state_error("pcast", t, axes, states), [t])
    src = states.pop()
    prim = col.PCAST.get((src, to))
    if prim is None:
        raise_user_error(ShardcValueError(f"Unsupported pcast from={src}, to={to!r}"), [t])
    return bind(prim, x, axes=get_abstract_mesh().mesh_order(axes))
