"""Manual mode: `shard_map` and the collectives used inside it."""
from __future__ import annotations

import functools
import math
from typing import Callable, NoReturn, Sequence

import jax.tree_util as tu
import numpy as np
from jax._src.tree_util import broadcast_prefix, prefix_errors  # JAX's prefix rules (pinned 0.10.2)
from jax.sharding import NamedSharding as JNamedSharding

from .. import dtypes as dt
from ..core import (
    Trace,
    Tracer,
    api,
    bind,
    current_trace,
    outside_traces,
    raise_user_error,
    stage_eagerly,
    tracing,
    user_code,
)
from ..errors import ShardcError, ShardcNotImplementedError, ShardcTypeError, ShardcValueError
from ..ir import Program
from ..mesh import AbstractMesh, AxisType, _abstract_mesh_override, get_abstract_mesh
from ..primitives import collectives as col
from ..primitives.shard_map import global_type, local_type
from ..primitives.shard_map import shard_map as shard_map_p
from ..primitives.shard_map import with_residuals as sm_with_residuals
from ..runtime.array import Array, respell
from ..runtime.jaxbridge import to_jax_spec
from ..runtime.mesh import Mesh, get_mesh, set_mesh
from ..sharding import PartitionSpec, entry_axes
from ..transforms.ad import keeps_residuals
from ..transforms.batching import vmap_axis, vmapped_mesh_axes
from ..types import ArrayType
from ._util import as_operand, is_array, normalize_axis, type_of
from .creation import asarray
from .elementwise import astype, true_divide


def _tree():
    return tu


def _leafwise(fn: Callable) -> Callable:
    """JAX's collectives take a pytree of arrays (`lax.psum(grads, 'data')` over a dict of
    gradients) and apply to each leaf; shardc's apply per leaf too, under the one API name."""
    @functools.wraps(fn)
    def over_leaves(x, *args, **kwargs):
        if isinstance(x, Tracer) or tu.treedef_is_leaf(tu.tree_structure(x, is_leaf=_is_leaf)):
            return fn(x, *args, **kwargs)
        return tu.tree_map(lambda leaf: fn(leaf, *args, **kwargs), x, is_leaf=_is_leaf)
    return over_leaves


def _is_leaf(x) -> bool:
    """Arrays and traced values are leaves of argument and output trees; `None` is an
    empty subtree there, as in JAX (`f(x, None)`, a body returning `(y, None)`)."""
    return isinstance(x, (Tracer, PartitionSpec)) or getattr(x, "_shardc_type", None) is not None


def _arg_specs(in_specs, args: tuple, n: int) -> list | None:
    """One in_spec per argument leaf (None: inferred from the types, as `in_specs=None`
    is here). A spec for a subtree (a dict of weights) covers all its leaves, by JAX's
    `broadcast_prefix` with `None` a leaf: such an argument is static, passed to the
    body as it is; JAX's pytree structure error when `in_specs` is no prefix of `args`."""
    if in_specs is None:
        return None
    if in_specs is _ALL_STATIC:
        return [None] * n
    if isinstance(in_specs, PartitionSpec):
        return [in_specs] * n
    try:
        return broadcast_prefix(in_specs, args, is_leaf=lambda s: s is None)
    except ValueError:
        _prefix_error(in_specs, args, "in_specs")


def _out_specs(out_specs, out) -> list[PartitionSpec]:
    """One out_spec per output leaf: `out_specs` a pytree prefix of the outputs, by
    JAX's `broadcast_prefix` (here `None` is an empty subtree, so a `None` spec
    only matches a `None` output); JAX's pytree structure error otherwise."""
    try:
        return broadcast_prefix(out_specs, out)
    except ValueError:
        _prefix_error(out_specs, out, "out_specs")


def _prefix_error(specs, tree, what: str) -> NoReturn:
    """JAX's first pytree structure error for `specs` that are no prefix of `tree`."""
    errs = prefix_errors(specs, tree)
    msg = str(errs[0](f"shard_map {what}")) if errs else f"shard_map {what} is not a pytree prefix of the values"
    raise_user_error(ShardcValueError(msg))


#: `out_specs` not given (JAX requires it; `None` is a valid spec tree: no outputs)
_REQUIRED = object()


class _InferSpecs:
    """`in_specs` left out: taken from the arguments' types (JAX's `Infer`); `in_specs=None`
    given is another thing, every argument static (passed to the body as it is)."""

    def __repr__(self) -> str:
        return "Infer"


INFER = _InferSpecs()
#: `in_specs=None` as given: a None leaf for every argument
_ALL_STATIC = object()


def shard_map(f: Callable | None = None, *, mesh: Mesh | AbstractMesh | None = None,
              in_specs=INFER, out_specs=_REQUIRED, axis_names=None, check_vma: bool = True):
    """Run `f` per device over the Manual axes `axis_names` (default: all).

    Inside, values have local shapes and types record the manual axes they vary
    over (`{V:X}`). `in_specs` may be omitted on Explicit meshes (taken from the
    arguments' types); `out_specs` say how results are assembled.
    """
    if f is None:
        return functools.partial(shard_map, mesh=mesh, in_specs=in_specs, out_specs=out_specs,
                                 axis_names=axis_names, check_vma=check_vma)
    if out_specs is _REQUIRED:
        raise ShardcTypeError("shard_map() missing 1 required keyword-only argument: 'out_specs'")

    specs = None if in_specs is INFER else _ALL_STATIC if in_specs is None else in_specs

    @functools.wraps(f)
    def wrapper(*args):
        return _shard_map_call(f, args, mesh, specs, out_specs, axis_names, check_vma, api="sc.shard_map")

    return wrapper


@api("sc.shard_map")
def _shard_map_call(f, args, mesh, in_specs, out_specs, axis_names, check_vma):
    """One call of a shard_map: the body traced on local types and bound as one
    primitive, its specs broadcast over the argument and output trees as JAX does."""
    if current_trace() is None and not any(isinstance(a, Tracer) for a in _tree().tree_leaves(args, is_leaf=_is_leaf)):
        return _stage_call(f, args, mesh, in_specs, out_specs, axis_names, check_vma)
    amesh, manual = _context_mesh(mesh, axis_names)
    full_manual = manual == frozenset(amesh.axis_names)
    name = getattr(f, "__name__", "<function>")
    if in_specs is not None and in_specs is not _ALL_STATIC:
        _check_specs("in", in_specs, manual)
        _check_unreduced("in", in_specs, manual, amesh, full_manual)
    _check_specs("out", out_specs, manual)
    _check_unreduced("out", out_specs, manual, amesh, full_manual)
    leaves, in_tree = _tree().tree_flatten(args, is_leaf=_is_leaf)
    arg_specs = _arg_specs(in_specs, tuple(args), len(leaves))
    dyn = [i for i in range(len(leaves)) if arg_specs is None or arg_specs[i] is not None]
    flat = [as_operand(leaves[i]) for i in dyn]
    flat = [a if is_array(a) else _const_array(a) for a in flat]
    types = [type_of(a) for a in flat]
    specs = _in_specs(None if arg_specs is None else [arg_specs[i] for i in dyn], types, manual, amesh,
                      full_manual, name)
    inner = _body_trace(amesh, manual, check_vma, getattr(f, "__name__", "body"))
    body_mesh = inner.mesh
    body_args = list(leaves)   # static arguments (in_spec None) as they are
    for i, t, s in zip(dyn, types, specs):
        try:
            body_args[i] = inner.new_arg(local_type(t, s, body_mesh, manual, check_vma))
        except ShardcError as e:
            raise_user_error(e, [t])
    if _EAGER_ARGS and all(id(a) in _EAGER_ARGS[-1] for a in flat):
        inner.concrete_value = _ConcreteValues(inner, amesh, manual, check_vma, tuple(specs),
                                               [_EAGER_ARGS[-1][id(a)] for a in flat])
    with tracing(inner), _abstract_mesh_override(body_mesh):
        with user_code():
            out = f(*_tree().tree_unflatten(in_tree, body_args))
        flat_out, out_tree = _tree().tree_flatten(out, is_leaf=_is_leaf)
        ospecs = _out_specs(out_specs, out)
        keys = _out_keys(out, out_specs, len(flat_out))
        # a value of the enclosing program returned as it is under a replicated out_spec is the
        # result itself (JAX forwards it); others become values of the body
        fwd = {i: o for i, (o, s) in enumerate(zip(flat_out, ospecs)) if _forwarded(o, s, inner)}
        kept = [i for i in range(len(flat_out)) if i not in fwd]
        ospecs, keys = [ospecs[i] for i in kept], [keys[i] for i in kept]
        flat_out = _check_outs([_body_value(flat_out[i], inner) for i in kept], ospecs, keys, manual, amesh,
                               check_vma, name)
    if not kept:   # every result forwarded: no computation
        return _tree().tree_unflatten(out_tree, [fwd[i] for i in range(len(fwd))])
    captured = list(inner.closure.values()) if inner.closure else []
    flat = flat + [t for t, _ in captured]
    specs = list(specs) + [PartitionSpec()] * len(captured)
    body = Program(inner.name, inner.in_vars + [v for _, v in captured], inner.eqns, [o._var for o in flat_out],
                   body_mesh)
    out_types = tuple(global_type(o.aval, s, amesh, manual) for o, s in zip(flat_out, ospecs))
    ospecs, saved = tuple(ospecs), ()
    if keeps_residuals():   # keep the body's values for the backward pass
        body, ospecs, out_types, saved = sm_with_residuals(body, ospecs, out_types, manual, amesh, check_vma)
    res = bind(shard_map_p, *flat, body=body, in_specs=tuple(specs), out_specs=ospecs,
               manual_axes=manual, check_vma=check_vma, out_types=out_types, saved=saved)
    results = iter(res[:len(res) - len(saved)])
    return _tree().tree_unflatten(out_tree, [fwd[i] if i in fwd else next(results) for i in range(len(fwd) + len(kept))])


def _body_trace(amesh: AbstractMesh, manual: frozenset, check_vma: bool, name: str) -> Trace:
    """The trace of a shard_map body: the mesh with the manual axes Manual. As JAX, on a
    mesh without Explicit axes a body may close over values of the enclosing program;
    each is passed in whole (in_spec P(): invariant, global shape)."""
    body_mesh = amesh.with_axis_types({a: AxisType.Manual for a in manual})
    inner = Trace(body_mesh, name, manual, check_vma)
    if not amesh.has_explicit:
        inner.closure = {}
        inner.capture_type = lambda t: local_type(t.update(mesh=amesh), PartitionSpec(), body_mesh, manual,
                                                  check_vma)
    return inner


def _forwarded(o, spec: PartitionSpec, inner: Trace) -> bool:
    """A body output that is a value of the enclosing program, under
    an out_spec that mentions no axis, on a mesh with Explicit axes (where bodies cannot
    close over values): the shard_map's result is that array, as JAX forwards it."""
    if inner.closure is not None:   # the body can close over it: a value of the body (JAX)
        return False
    outer = isinstance(o, Tracer) and o._trace is not inner
    return outer and not spec.axes() and not spec.unreduced and not spec.reduced


def _body_value(o, inner: Trace) -> Tracer:
    """A body output as a value of the body: a constant, or an array of the enclosing
    program closed over (JAX's NotImplementedError on meshes with Explicit axes)."""
    if isinstance(o, Tracer):
        return o if o._trace is inner else Tracer(inner, inner.atom(o))
    if getattr(o, "_shardc_type", None) is not None:   # a concrete array: a constant of the body
        inner.atom(o)   # JAX's NotImplementedError where it is sharded on Explicit axes
        return _body_const(np.asarray(o))
    return _body_const(o)


def _stage_call(f, args, mesh, in_specs, out_specs, axis_names, check_vma):
    """Outside a program: the call staged as one, its static arguments (in_spec None)
    closed over rather than traced, as JAX keeps them out of its trace."""
    leaves, tree = _tree().tree_flatten(args, is_leaf=_is_leaf)
    arg_specs = _arg_specs(in_specs, tuple(args), len(leaves))
    dyn = [i for i in range(len(leaves)) if arg_specs is None or arg_specs[i] is not None]

    def call(*ts):
        full = list(leaves)
        for i, x in zip(dyn, ts):
            full[i] = x
        # the body's arguments are known: its values can be computed while it is traced
        _EAGER_ARGS.append({id(t): x for t, x in zip(ts, xs)})
        try:
            return _shard_map_call(f, tuple(_tree().tree_unflatten(tree, full)), mesh, in_specs, out_specs,
                                   axis_names, check_vma)
        finally:
            _EAGER_ARGS.pop()

    xs, name = [leaves[i] for i in dyn], getattr(f, "__name__", "shard_map")
    if isinstance(mesh, AbstractMesh):   # eagerly the devices come from the arguments (JAX's get_mesh_from_args)
        mesh = _mesh_from_args(xs, mesh)
    _EAGER.append(name)
    try:
        if isinstance(mesh, Mesh) and get_mesh() is None:
            # `mesh=` outside any mesh context: the call runs on that mesh (JAX places it there)
            with set_mesh(mesh):
                return _spelled_as(stage_eagerly(call, xs, name), out_specs)
        return _spelled_as(stage_eagerly(call, xs, name), out_specs)
    finally:
        _EAGER.pop()


def _mesh_from_args(xs, mesh: AbstractMesh) -> Mesh:
    """The concrete mesh of an eager shard_map given an `AbstractMesh`: its arrays' (JAX's
    `get_mesh_from_args`, with its errors)."""
    shape = lambda m: tuple(zip(m.axis_names, m.axis_sizes))  # noqa: E731
    found = None
    for a in xs:
        m = getattr(a, "_mesh", None)
        if m is None:
            continue
        if shape(m.abstract_mesh) != shape(mesh):
            raise_user_error(ShardcValueError(
                f"Mesh shape of the input {shape(m.abstract_mesh)} does not match the mesh shape passed to "
                f"shard_map {shape(mesh)} for shape {type_of(a).str_short()}"))
        found = m
    if found is None:
        raise_user_error(ShardcValueError(
            "Please pass `sc.Array`s with a `NamedSharding` as input to `shard_map` when passing "
            "`AbstractMesh` to the mesh argument."))
    return found


#: the eager (un-jitted) shard_maps being staged: JAX runs their bodies op by op
_EAGER: list[str] = []
#: for each: the staged program's arguments (by tracer id) and their concrete values
_EAGER_ARGS: list[dict[int, object]] = []


class _ConcreteValues:
    """An eager shard_map body's values while it is traced (JAX runs such a body op by op, so
    Python control flow on an invariant value, `if psum(x, 'x') > 0:`, and `str(x)` work): the
    body so far, with the tracer as its one result, run as a shard_map on the call's arguments.
    The staged call then holds the branch taken, as JAX's op-by-op run does."""

    def __init__(self, inner: Trace, amesh: AbstractMesh, manual: frozenset, check_vma: bool, specs: tuple,
                 args: list):
        self.inner, self.amesh, self.manual, self.check_vma = inner, amesh, manual, check_vma
        self.specs, self.args = specs, args
        self.mesh = get_mesh()

    def __call__(self, t: Tracer, blocks: bool):
        """blocks=False: the value of an invariant tracer (JAX's `to_concrete_value`: None where
        it varies, is unreduced/reduced, or nothing is tracked); True: every device's block, in
        the order of the mesh's devices (JAX's `ShardMapTracer.__str__`)."""
        inner, manual = self.inner, self.manual
        if t._trace is not inner or inner.closure or self.mesh is None:
            return None
        a = t.aval
        if (a.unreduced | a.reduced) & manual:
            return None
        if not blocks:
            if not self.check_vma or a.vma:
                return None
            spec, x = PartitionSpec(), t
        else:
            if manual != frozenset(self.amesh.axis_names):
                return None
            order = tuple(self.amesh.mesh_order(manual))
            rest = tuple(ax for ax in order if ax not in a.vma)
            x = bind(col.pvary, t, axes=rest) if rest and self.check_vma else t
            x = x.reshape(1, *a.shape)
            spec = PartitionSpec(order)
        body = Program(inner.name, list(inner.in_vars), list(inner.eqns), [x._var], inner.mesh)
        out_type = global_type(x.aval, spec, self.amesh, manual)

        def run(*xs):
            return bind(shard_map_p, *xs, body=body, in_specs=self.specs, out_specs=(spec,), manual_axes=manual,
                        check_vma=self.check_vma, out_types=(out_type,), saved=())[0]
        with outside_traces(), _abstract_mesh_override(self.amesh), set_mesh(self.mesh):
            out = np.asarray(stage_eagerly(run, self.args, f"{inner.name}_value"))
        return list(out) if blocks else out

    def describe(self, t: Tracer) -> str | None:
        """JAX's `str` of an eager shard_map body value: each device's block at its mesh coordinates."""
        blocks = self(t, True)
        if blocks is None:
            return None
        devices = self.mesh.devices
        names = f"({', '.join(map(str, self.mesh.axis_names))},)"
        return "\n".join(f"On {d} at mesh coordinates {names} = {idx}:\n{b}\n"
                         for (idx, d), b in zip(np.ndenumerate(devices), blocks))


def in_eager_shard_map() -> bool:
    """Whether an eager shard_map's body is being traced (JAX's eager rules apply there:
    `device_put` to a device is an error, which under `jit` is ignored)."""
    return bool(_EAGER)


def _spelled_as(out, out_specs):
    """Eager results carry their out_specs as written (JAX's eager shard_map places each
    result with `NamedSharding(mesh, out_spec)`: `P(unreduced={'x'})`, not the type's
    `P(None, unreduced={'x'})`)."""
    try:
        specs = broadcast_prefix(out_specs, out)
    except ValueError:
        return out
    leaves, tree = _tree().tree_flatten(out)
    if len(specs) != len(leaves):
        return out
    leaves = [respell(a, JNamedSharding(a._mesh.jax_mesh, to_jax_spec(s)))
              if isinstance(a, Array) and a._mesh is not None and isinstance(s, PartitionSpec) else a
              for a, s in zip(leaves, specs)]
    return _tree().tree_unflatten(tree, leaves)


def _context_mesh(mesh, axis_names) -> tuple[AbstractMesh, frozenset]:
    """The mesh a shard_map runs on (the context mesh, or `mesh=` matching it) and its
    manual axes (`axis_names`, default every axis not already manual), as JAX checks them."""
    outer = get_abstract_mesh()
    amesh = outer if mesh is None else (mesh.abstract_mesh if isinstance(mesh, Mesh) else mesh)
    if isinstance(mesh, Mesh):
        _GIVEN_MESHES[mesh.abstract_mesh] = mesh
    if amesh.empty:
        raise_user_error(ShardcValueError(
            "The context mesh cannot be empty. Use `sc.set_mesh(mesh)` to enter into a mesh context "
            "(or pass mesh= to sc.shard_map)"))
    if not outer.empty and (amesh.axis_names != outer.axis_names or amesh.axis_sizes != outer.axis_sizes
                            or amesh.axis_types != outer.axis_types):
        # as JAX, axis types included: inside a shard_map the context has its Manual axes
        raise_user_error(ShardcValueError(
            f"The context mesh {outer} should match the mesh passed to shard_map {amesh}"))
    amesh = outer if not outer.empty else amesh
    names = frozenset((axis_names,) if isinstance(axis_names, str) else (axis_names or ()))
    # not the axes an enclosing vmap maps over (JAX's mesh_axis_names_wo_vmap)
    free_outer = frozenset(a for a in amesh.axis_names if amesh.axis_type(a) != AxisType.Manual) - vmapped_mesh_axes()
    manual = names or free_outer
    if not manual <= free_outer:
        raise_user_error(ShardcValueError(
            f"sc.shard_map requires axis_names={col.fs_repr(manual)} to be a subset of "
            f"mesh.axis_names={col.fs_repr(free_outer)}"))
    return amesh, manual


#: concrete meshes passed as `mesh=` to shard_maps, by abstract mesh: a program traced
#: without a mesh context runs on the one its shard_maps name (JAX takes its devices from there)
_GIVEN_MESHES: dict[AbstractMesh, Mesh] = {}


def shard_map_mesh(eqns, default: AbstractMesh) -> AbstractMesh:
    """The mesh of a program traced without a mesh context: the one its shard_maps run
    on (`default` when it has none, or several)."""
    found: set = set()

    def walk(es) -> None:
        for e in es:
            if e.prim is shard_map_p:
                found.update(t.mesh for t in e.params["out_types"] if not t.mesh.empty)
            else:   # shard_maps inside checkpoint / control-flow bodies count too
                for sub in e.prim.sub_programs(e.params):
                    walk(sub.eqns)
    walk(eqns)
    return found.pop() if len(found) == 1 else default


def given_mesh(amesh: AbstractMesh) -> Mesh | None:
    """The concrete mesh last passed as `mesh=` to a shard_map on `amesh`, if any."""
    return _GIVEN_MESHES.get(amesh)


def _const_array(a):
    return asarray(a)


def _body_const(o):
    return asarray(o)


def _flat_specs(specs) -> list[tuple[str, PartitionSpec]]:
    """(key string, spec) for every spec in a spec tree (JAX's `keystr` paths)."""
    tu = _tree()
    leaves, _ = tu.tree_flatten_with_path(specs, is_leaf=lambda s: isinstance(s, PartitionSpec) or s is None)
    return [(tu.keystr(k), s if s is not None else PartitionSpec()) for k, s in leaves]


def _check_specs(prefix: str, specs, manual) -> None:
    """Specs may only name the manual axes (JAX `_check_specs`)."""
    msgs = []
    for key, s in _flat_specs(specs):
        if not isinstance(s, PartitionSpec):
            raise_user_error(col.ShardcTypeError(
                f"shard_map {prefix}_specs argument must be a pytree of `sc.P` instances, but "
                f"{prefix}_specs{key} is {s!r} of type {type(s).__name__}"))
        msgs += [f"  {prefix}_specs{key} refers to {a!r}" for a in s.axes() if a not in manual]
    if msgs:
        raise_user_error(ShardcValueError(
            f"shard_map {prefix}_specs argument must refer to an axis marked as manual "
            f"({col.fs_repr(manual)}), but:\n\n" + "\n\n".join(msgs) +
            f"\n\nCheck the {prefix}_specs values passed to shard_map."))


def _check_unreduced(prefix: str, specs, manual, mesh: AbstractMesh, full_manual: bool) -> None:
    for _, s in _flat_specs(specs):
        if isinstance(s, PartitionSpec):
            _check_unreduced_spec(prefix, s, manual, mesh, full_manual)


def _check_unreduced_spec(prefix: str, s: PartitionSpec, manual, mesh: AbstractMesh, full_manual: bool) -> None:
    if not s.unreduced and not s.reduced:
        return
    if not full_manual:
        raise_user_error(ShardcNotImplementedError(
            f"unreduced/reduced can only be passed to {prefix}_specs when shard_map is in full manual "
            f"mode. Got mesh axis names {mesh.axis_names}, manual_axes: {col.fs_repr(manual)}, specs: {s!r}."))
    for what, axes in (("unreduced", s.unreduced), ("reduced", s.reduced)):
        if any(a not in mesh.axis_names or mesh.axis_type(a) != AxisType.Explicit for a in axes):
            raise_user_error(ShardcValueError(
                f"{what} in {prefix}_specs {s!r} can only be used when the mesh passed to shard_map "
                f"contains axis names all of type `Explicit`. Got mesh {mesh}"))


def _manual_spec(t: ArrayType, manual, mesh: AbstractMesh, full_manual: bool) -> PartitionSpec:
    """The in_spec inferred from an argument's type: its manual axes (JAX `_manual_spec`)."""
    arg_spec = PartitionSpec(*t.spec, unreduced=t.unreduced, reduced=t.reduced)
    out = []
    for e in t.spec:
        if isinstance(e, tuple):
            kept = [a if a in manual else None for a in e]
            while kept and kept[-1] is None:
                kept.pop()
            if None in kept:
                raise_user_error(ShardcValueError(f"Invalid spec: {arg_spec!r}"), [t])
            out.append(None if not kept else (kept[0] if len(kept) == 1 else tuple(kept)))
        else:
            out.append(e if e in manual else None)
    _check_unreduced_spec("in", arg_spec, manual, mesh, full_manual)
    return PartitionSpec(*out, unreduced=t.unreduced, reduced=t.reduced)


def _in_specs(in_specs: list[PartitionSpec] | None, types: list[ArrayType], manual, mesh: AbstractMesh,
              full_manual: bool, name: str) -> list[PartitionSpec]:
    """The in_spec of each array argument (given, one per leaf, or inferred from its
    type when None), checked against it as JAX does (rank, divisibility, no reshard)."""
    if in_specs is None:
        if any(mesh.axis_type(a) != AxisType.Explicit for a in manual):
            kinds = ", ".join(mesh.axis_type(a).value for a in mesh.mesh_order(manual))
            raise_user_error(col.ShardcTypeError(
                "shard_map in_specs argument must be a pytree of `sc.P` instances, but it was `None` "
                f"when axis_names={col.fs_repr(manual)} are of type {kinds}"))
        return [_manual_spec(t, manual, mesh, full_manual) for t in types]
    specs = list(in_specs)
    for s, t in zip(specs, types):
        if len(s) > t.ndim:
            raise_user_error(ShardcValueError(
                f"shard_map applied to the function '{name}' was given an in_specs entry which is too "
                "long to be compatible with the corresponding input value from the function:\n\n"
                f"in_specs is {s!r} which has length {len(s)}, but the passed args have shape "
                f"{t.str_short()}, which has rank {t.ndim} (and {t.ndim} < {len(s)})\n\n"
                "Entries in in_specs must be of length no greater than the number of axes in the "
                f"corresponding input value.\n\nEither revise the spec to be shorter, or modify "
                f"'{name}' so that its inputs have sufficient rank." + _SCALAR_HINT.format("in") * (t.ndim == 0)),
                [t])
        for i, e in enumerate(tuple(s) + (None,) * (t.ndim - len(s))):
            axes = entry_axes(e)
            n = math.prod(mesh.axis_size(a) for a in axes)
            if t.shape[i] % n:
                axis = f"axes {axes}" if len(axes) > 1 else f"axis '{axes[0]}'"
                raise_user_error(ShardcValueError(
                    f"shard_map applied to the function '{name}' was given argument arrays with axis "
                    "sizes that are not evenly divisible by the corresponding mesh axis sizes:\n\n"
                    f"The mesh given has shape {mesh.axis_sizes} with corresponding axis names "
                    f"{mesh.axis_names}.\n\nthe passed args of shape {t.str_short()} corresponds to "
                    f"in_specs of value {s!r}, which maps array axis {i} (of size {t.shape[i]}) to mesh "
                    f"{axis} (of {'total ' if len(axes) > 1 else ''}size {n}), but {n} does not evenly "
                    f"divide {t.shape[i]}"), [t])
        if full_manual and not mesh.auto_axes and not mesh.manual_axes:
            # all-Explicit mesh, every axis manual: in_specs must be the arguments' specs (no reshard)
            norm = PartitionSpec(*(tuple(s) + (None,) * (t.ndim - len(s))), unreduced=s.unreduced,
                                 reduced=s.reduced)
            arg_p = PartitionSpec(*t.spec, unreduced=t.unreduced, reduced=t.reduced)
            if tuple(norm) != tuple(arg_p) or norm.unreduced != arg_p.unreduced or \
                    norm.reduced != arg_p.reduced:
                raise_user_error(ShardcValueError(
                    f"in_specs passed to shard_map: {norm!r} does not match the specs of the input: "
                    f"{arg_p!r} for arg: {t}. `in_specs` is an optional argument so you can omit "
                    "specifying it and shard_map will infer the in_specs from the arguments. If you "
                    "want to reshard your inputs, you can use `sc.reshard` on the arguments and then "
                    "pass those args to shard_map."), [t])
    return specs


def _out_keys(out, out_specs, n: int) -> list[str]:
    """The key path JAX names a failing output by (`out_specs[1]`), '' for one spec."""
    if isinstance(out_specs, PartitionSpec):
        return [""] * n
    tu = _tree()
    leaves, _ = tu.tree_flatten_with_path(out, is_leaf=_is_leaf)
    return [tu.keystr(k) for k, _ in leaves] if len(leaves) == n else [""] * n


def _spec_vma(spec: PartitionSpec) -> frozenset[str]:
    return frozenset(spec.axes())


def _check_outs(outs: list[Tracer], specs: list[PartitionSpec], keys: list[str], manual,
                mesh: AbstractMesh, check_vma: bool, name: str) -> list[Tracer]:
    """Out-spec checks (JAX rules §4.5): rank; with check_vma, make each result
    vary over its out_spec's axes (`pvary`) and unreduced over its `unreduced=`
    axes (`vary_unreduced_cast`), then every axis the result varies over (or is
    unreduced/reduced on) must be mentioned by its out_spec."""
    _check_out_ranks(outs, specs, keys, name)
    if not check_vma:
        return outs
    res, fails = [], []
    outer_manual = set(mesh.manual_axes)
    for o, s, k in zip(outs, specs, keys):
        t = o.aval
        need_v = _spec_vma(s) - t.vma
        if need_v:
            o = bind(col.pvary, o, axes=mesh.mesh_order(need_v))
            t = o.aval
        need_u = s.unreduced - t.unreduced
        if need_u:
            o = bind(col.vary_unreduced_cast, o, axes=mesh.mesh_order(need_u))
            t = o.aval
        mentioned = _spec_vma(s) | s.unreduced | s.reduced
        unmentioned = [a for a in mesh.axis_names if a not in mentioned]
        if (set(unmentioned) - outer_manual) & (t.vma | t.unreduced | t.reduced):
            fails.append((k, s, t, unmentioned))
        res.append(o)
    if fails:
        raise_user_error(_replication_error(fails, mesh, name), [fails[0][2]])
    return res


def _check_out_ranks(outs: list[Tracer], specs: list[PartitionSpec], keys: list[str], name: str) -> None:
    """An out_spec may not be longer than its output's rank (JAX's message)."""
    rank_fails = [(k, s, o.aval) for o, s, k in zip(outs, specs, keys) if len(s) > o.aval.ndim]
    if not rank_fails:
        return
    msgs = [f"* out_specs{k} is {s!r} which has length {len(s)}, but {name}(*args){k} has shape "
            f"{t.str_short()}, which has rank {t.ndim} (and {t.ndim} < {len(s)})" for k, s, t in rank_fails]
    if len(msgs) == 1:
        msgs = [msgs[0][2:]]
    raise_user_error(ShardcValueError(
        f"shard_map applied to the function '{name}' was given an out_specs entry which is too long "
        "to be compatible with the corresponding output value from the function:\n\n"
        + "\n\n".join(msgs) + "\n\nEntries in out_specs must be of length no greater than the number "
        f"of axes in the corresponding output value.\n\nEither revise the spec to be shorter, or "
        f"modify '{name}' so that its outputs have sufficient rank."
        + _SCALAR_HINT.format("out") * any(t.ndim == 0 for _, _, t in rank_fails)), [rank_fails[0][2]])


#: JAX's hint after a too-long spec for a scalar
_SCALAR_HINT = ("\n\nFor scalar values (rank 0), consider using an {}_specs entry of `P()`, where "
                "`P = sc.PartitionSpec`.")


def _replication_error(fails: list, mesh: AbstractMesh, name: str) -> ShardcValueError:
    """JAX's error for outputs varying over axes their out_specs say are replicated."""
    msgs = []
    for k, s, t, unmentioned in fails:
        if len(unmentioned) > 1:
            need = ",".join(mesh.mesh_order(_spec_vma(s)))
            got = ",".join(mesh.mesh_order(t.vma))
            diff = ",".join(a for a in unmentioned if a in t.vma)
            msgs.append(f"* out_specs{k} is {s!r} which implies that the corresponding output value is "
                        f"only varying across mesh axes {{{need}}} and not {{{diff}}}, but it was "
                        f"inferred to be possibly varying over {{{got}}}")
        else:
            msgs.append(f"* out_specs{k} is {s!r} which implies that the corresponding output value is "
                        f"replicated across mesh axis '{unmentioned[0]}', but could not infer "
                        "replication over any axes")
    if len(msgs) == 1:
        msgs = [msgs[0][2:]]
    return ShardcValueError(
        f"shard_map applied to the function '{name}' was given out_specs which require "
        "replication which can't be statically inferred given the mesh:\n\n"
        f"The mesh given has shape {mesh.axis_sizes} with corresponding axis names {mesh.axis_names}.\n\n"
        + "\n\n".join(msgs) + "\n\n"
        "Check if these output values are meant to be replicated over those mesh axes. If not, "
        "consider revising the corresponding out_specs entries. If so, consider disabling the "
        "check by passing the check_vma=False argument to `sc.shard_map`.")


# --- collectives ------------------------------------------------------------------------------
def _axes(axis_name) -> tuple[str, ...]:
    if isinstance(axis_name, str):
        return (axis_name,)
    if isinstance(axis_name, (tuple, list)):
        return tuple(axis_name)
    raise_user_error(col.ShardcTypeError(f"axis_name={axis_name!r} must be a tuple or a str. Got {axis_name!r}"))


def _vmapped(axes) -> bool:
    """`axes` name an enclosing `sc.vmap`'s axis (not a mesh axis)."""
    names = get_abstract_mesh().axis_names
    return any(vmap_axis(a) is not None and a not in names for a in axes)


#: collectives over several vmapped axes at once, as one per axis (JAX's `('i', 'j')`: the axes
#: linearized in the order given, the first major)
_FOLDED = ("psum", "pmax", "pmin", "axis_index")


def _vmap_collective(kind: str, x, axes, **params):
    """A collective over a vmapped axis: typed per example here, batched by the vmap."""
    if len(axes) != 1:
        names = get_abstract_mesh().axis_names
        if kind in _FOLDED and all(vmap_axis(a) is not None and a not in names for a in axes):
            return _vmap_collective_folded(kind, x, axes, **params)
        _check_axes(axes, kind)   # mixed vmap and mesh axes: a clear NotImplementedError
    a = vmap_axis(axes[0])
    if x is not None:
        x = as_operand(x)
        x = x if is_array(x) else asarray(x)
        return bind(col.VMAP_COLLECTIVES[kind], x, axis_name=axes[0], size=a.size, entry=a.entry, **params)
    return bind(col.VMAP_COLLECTIVES[kind], axis_name=axes[0], size=a.size, entry=a.entry, **params)


def _vmap_collective_folded(kind: str, x, axes, **params):
    """A collective over several vmapped axes as one per axis: reductions over the last axis
    first (the reduction is the same in any order); `axis_index` linearizes the indices. (JAX
    0.10.2's vmap fails on `all_gather` over two vmapped axes; it stays refused here.)"""
    if kind == "axis_index":
        index = _vmap_collective("axis_index", None, axes[:1])
        for a in axes[1:]:
            index = index * vmap_axis(a).size + _vmap_collective("axis_index", None, (a,))
        return index
    for a in axes[::-1]:
        x = _vmap_collective(kind, x, (a,), **params)
    return x


def _manual_operand(x, axes, what: str):
    x = as_operand(x)
    if not is_array(x):
        x = asarray(x)
    _check_axes(axes, what, [type_of(x)])
    return x


def _check_axes(axes, what: str, types=()) -> None:
    try:
        col.check_manual_axes(get_abstract_mesh(), axes, what)
    except ShardcError as e:
        raise_user_error(e, types)


def _check_vma() -> bool:
    tr = current_trace()
    return tr is not None and tr.check_vma


def _insert_pvary(x, axes):
    """JAX's `insert_collective_pvary`: a collective's operand first varies over
    every axis it runs over (a `pvary` of the missing ones; an error for axes on
    which it is unreduced or reduced)."""
    if not _check_vma():
        return x
    t = type_of(x)
    rest = [a for a in axes if a not in t.vma]
    if rest:
        return bind(col.pvary, x, axes=get_abstract_mesh().mesh_order(rest))
    return x


def _source_state(name: str, x, axes) -> str:
    """JAX's `_get_from`: the axes' one state in `x` (varying/unreduced/reduced/invarying)."""
    t = type_of(x)
    states = col._state(t, axes)
    if len(states) > 1:
        raise_user_error(col._state_error(name, t, axes, states), [t])
    return states.pop()


def _index_groups(axis_index_groups, axes, what: str, *, even: bool):
    """`axis_index_groups` as a tuple of tuples, checked as JAX checks it (each index of the
    axes once: JAX's `ValueError`; equal sizes where the result's shape is the group size), or None."""
    if axis_index_groups is None:
        return None
    _no_vmap_groups(axes, axis_index_groups)
    groups = tuple(tuple(int(i) for i in g) for g in axis_index_groups)
    _check_axes(axes, what)
    try:
        col.check_index_groups(get_abstract_mesh(), axes, groups, even=even)
    except ShardcError as e:
        raise_user_error(e)
    return groups


def _no_vmap_groups(axes, axis_index_groups) -> None:
    if axis_index_groups is not None and _vmapped(axes):   # JAX's vmap collectives refuse them
        raise_user_error(ShardcNotImplementedError(
            "axis_index_groups not supported in vmap collectives. Please open a feature request!"))


def _groups_not_implemented(what: str, why: str) -> NoReturn:
    """Where JAX 0.10.2 raises a bare `NotImplementedError` for `axis_index_groups`."""
    raise_user_error(ShardcNotImplementedError(f"{what} with axis_index_groups {why} is not implemented (as in JAX)"))


def _is_constant(x) -> bool:
    return not is_array(x) and not isinstance(as_operand(x), Tracer) and \
        getattr(as_operand(x), "_shardc_type", None) is None


@api("sc.psum")
@_leafwise
def psum(x, axis_name, *, axis_index_groups=None):
    """Sum over the Manual axes `axis_name` (varying → invariant; unreduced → invariant).

    A constant (a Python number) gives the constant times the axes' size, as in JAX.
    `axis_index_groups` (lists of indices along the axes, each index once) sums within each
    group; as in JAX only where varying axes are not tracked (`check_vma=False`) or of a constant."""
    axes = _axes(axis_name)
    if not axes:
        return x
    if _vmapped(axes):
        _no_vmap_groups(axes, axis_index_groups)
        if not _is_constant(x) and type_of(as_operand(x)).dtype == np.bool_:
            x = astype(x, dt.int32)   # booleans are summed as int32, as JAX's psum
        return _vmap_collective("psum", x, axes)
    if _is_constant(x):
        groups = _index_groups(axis_index_groups, axes, "psum", even=False)
        _check_axes(axes, "psum")
        n = len(groups[0]) if groups is not None else col.axes_size(get_abstract_mesh(), axes)
        return x * n if isinstance(x, (int, float, complex)) else np.asarray(x) * n
    x = _manual_operand(x, axes, "psum")
    src = _source_state("psum", x, axes)
    if src == "unreduced" and axis_index_groups is not None:
        _groups_not_implemented("sc.psum", "of an unreduced value")
    groups = _index_groups(axis_index_groups, axes, "psum", even=False)
    if groups is not None and _check_vma():   # JAX's `bind_psum_invariant`
        _groups_not_implemented("sc.psum", "inside a shard_map with check_vma=True")
    if type_of(x).dtype == np.bool_:
        x = astype(x, dt.int32)
    if src != "unreduced":
        x = _insert_pvary(x, axes)
    return bind(col.ALL_REDUCE["psum"], x, axes=axes, **col._groups_param(groups))


def _pmax_pmin(name: str, x, axis_name, axis_index_groups):
    axes = _axes(axis_name)
    if _vmapped(axes):
        _no_vmap_groups(axes, axis_index_groups)
        return _vmap_collective(name, x, axes)
    groups = _index_groups(axis_index_groups, axes, name, even=False)
    x = _manual_operand(x, axes, name)
    x = _insert_pvary(x, axes)
    return bind(col.ALL_REDUCE[name], x, axes=axes, **col._groups_param(groups))


@api("sc.pmax")
@_leafwise
def pmax(x, axis_name, *, axis_index_groups=None):
    """Maximum over the Manual axes `axis_name` (invariant operands are made varying first),
    within each of `axis_index_groups` when given (typed invariant over the axes, as in JAX)."""
    return _pmax_pmin("pmax", x, axis_name, axis_index_groups)


@api("sc.pmin")
@_leafwise
def pmin(x, axis_name, *, axis_index_groups=None):
    """Minimum over the Manual axes `axis_name` (invariant operands are made varying first),
    within each of `axis_index_groups` when given (typed invariant over the axes, as in JAX)."""
    return _pmax_pmin("pmin", x, axis_name, axis_index_groups)


@api("sc.pmean")
@_leafwise
def pmean(x, axis_name, *, axis_index_groups=None):
    """Mean over the Manual axes: `psum(x) / axis_size` (integers give floats, as `/` does);
    with `axis_index_groups`, the sum within each group over the group's size."""
    axes = _axes(axis_name)
    s = psum(x, axes, axis_index_groups=axis_index_groups)
    if axis_index_groups is not None:
        n = len(tuple(axis_index_groups)[0])
    else:
        n = (math.prod(vmap_axis(a).size for a in axes) if _vmapped(axes)
             else col.axes_size(get_abstract_mesh(), axes))
    return true_divide(s, n)


_ALL_GATHER_TO = ("varying", "reduced", "invarying")


@api("sc.all_gather")
@_leafwise
def all_gather(x, axis_name, *, axis_index_groups=None, axis: int = 0, tiled: bool = False,
               to: str = "varying"):
    """Gather shards along `axis` (stacked, or concatenated when `tiled`).

    `to='varying'` (default) keeps the result varying; `to='reduced'` makes it
    reduced over `axis_name` (a varying input); `to='invarying'` invariant.
    `axis_index_groups` (equal-sized groups of indices along the axes) gathers within each group."""
    if to not in _ALL_GATHER_TO:
        raise_user_error(ShardcValueError(
            "Got unexpected `to` value for `sc.all_gather`. Allowed `to` values are: "
            "{'invarying', 'reduced', 'varying'}"))
    if axis_index_groups is not None and to != "varying":
        _groups_not_implemented("sc.all_gather", f"and to={to!r}")
    axes = _axes(axis_name)
    groups = _index_groups(axis_index_groups, axes, "all_gather", even=True)
    if _vmapped(axes):
        t = type_of(as_operand(x)) if is_array(as_operand(x)) else type_of(asarray(x))
        return _vmap_collective("all_gather", x, axes, axis=normalize_axis(axis, t.ndim + (0 if tiled else 1)),
                                tiled=bool(tiled))
    x = _manual_operand(x, axes, "all_gather")
    if to != "reduced":
        x = _insert_pvary(x, axes)
    t = type_of(x)
    ax = normalize_axis(axis, t.ndim + (0 if tiled else 1))
    return bind(col.all_gather, x, axes=axes, axis=ax, tiled=bool(tiled), to=to, **col._groups_param(groups))


@api("sc.psum_scatter")
@_leafwise
def psum_scatter(x, axis_name, *, scatter_dimension: int = 0, axis_index_groups=None, tiled: bool = False):
    """Sum over `axis_name` leaving each device one slice of `scatter_dimension`
    (varying → varying; unreduced → varying); within each of `axis_index_groups` (equal-sized
    groups of indices along the axes) when given."""
    axes = _axes(axis_name)
    if _vmapped(axes):
        _no_vmap_groups(axes, axis_index_groups)
        t = type_of(as_operand(x)) if is_array(as_operand(x)) else type_of(asarray(x))
        return _vmap_collective("psum_scatter", x, axes, axis=normalize_axis(scatter_dimension, t.ndim),
                                tiled=bool(tiled))
    x = _manual_operand(x, axes, "psum_scatter")
    src = _source_state("psum_scatter", x, axes)
    if src == "unreduced" and axis_index_groups is not None:
        _groups_not_implemented("sc.psum_scatter", "of an unreduced value")
    groups = _index_groups(axis_index_groups, axes, "psum_scatter", even=True)
    if src != "unreduced":
        x = _insert_pvary(x, axes)
    t = type_of(x)
    return bind(col.psum_scatter, x, axes=axes, scatter_dimension=normalize_axis(scatter_dimension, t.ndim),
                tiled=bool(tiled), **col._groups_param(groups))


@api("sc.ppermute")
@_leafwise
def ppermute(x, axis_name, perm: Sequence[tuple[int, int]]):
    """Send each device's value to the device `perm` maps its index (along `axis_name`) to."""
    axes = _axes(axis_name)
    if _vmapped(axes):
        return _vmap_collective("ppermute", x, axes, perm=tuple((int(a), int(b)) for a, b in perm))
    x = _manual_operand(x, axes, "ppermute")
    x = _insert_pvary(x, axes)
    return bind(col.ppermute, x, axes=axes, perm=tuple((int(a), int(b)) for a, b in perm))


@api("sc.all_to_all")
@_leafwise
def all_to_all(x, axis_name, split_axis: int, concat_axis: int, *, axis_index_groups=None, tiled: bool = False):
    """Split `split_axis` into one chunk per device along `axis_name` and
    concatenate what arrives along `concat_axis` (among the devices of each of
    `axis_index_groups`, equal-sized groups of indices along the axes, when given)."""
    axes = _axes(axis_name)
    groups = _index_groups(axis_index_groups, axes, "all_to_all", even=True)
    if _vmapped(axes):
        t = type_of(as_operand(x)) if is_array(as_operand(x)) else type_of(asarray(x))
        return _vmap_collective("all_to_all", x, axes, axis=normalize_axis(split_axis, t.ndim),
                                concat=normalize_axis(concat_axis, t.ndim), tiled=bool(tiled))
    x = _manual_operand(x, axes, "all_to_all")
    t = type_of(x)
    split, concat = normalize_axis(split_axis, t.ndim), normalize_axis(concat_axis, t.ndim)
    gp = col._groups_param(groups)
    try:   # the size checks come before the implicit pvary, as in JAX
        col.all_to_all.shape_rule(t, axes=axes, split_axis=split, concat_axis=concat, tiled=bool(tiled), **gp)
    except ShardcError as e:
        raise_user_error(e, [t])
    x = _insert_pvary(x, axes)
    return bind(col.all_to_all, x, axes=axes, split_axis=split, concat_axis=concat, tiled=bool(tiled), **gp)


@api("sc.axis_index")
def axis_index(axis_name):
    """This device's index along the Manual axis (or axes, linearized in the order given)."""
    axes = _axes(axis_name)
    if _vmapped(axes):
        return _vmap_collective("axis_index", None, axes)
    _check_axes(axes, "axis_index")
    return bind(col.axis_index, axes=axes, mesh=get_abstract_mesh(), check_vma=_check_vma())


def axis_size(axis_name) -> int:
    """The size of a Manual mesh axis (or the product over several), as a Python int."""
    axes = _axes(axis_name)
    if _vmapped(axes) and len(axes) == 1:
        return vmap_axis(axes[0]).size
    _check_axes(axes, "axis_size")
    return col.axes_size(get_abstract_mesh(), axes)


@api("sc.pcast")
@_leafwise
def pcast(x, axis_name, *, to: str):
    """Change the varying/invariant/unreduced/reduced state over Manual axes
    without moving data: invariant→varying, varying→unreduced, invariant→reduced,
    reduced→varying."""
    if isinstance(axis_name, (set, frozenset)):
        raise_user_error(col.ShardcTypeError(f"axis_name={axis_name!r} must be a tuple or a str. Got {axis_name!r}"))
    axes = _axes(axis_name)
    if not axes:
        return x
    if to not in ("varying", "unreduced", "reduced"):
        raise_user_error(ShardcValueError(
            "Got unexpected `to` value. Allowed `to` values are: {'reduced', 'unreduced', 'varying'}"))
    if current_trace() is None and not isinstance(x, Tracer):   # JAX's eager impl of the cast primitives
        name = {"varying": "pvary", "reduced": "preduced", "unreduced": "vary_unreduced_cast"}[to]
        raise_user_error(ShardcValueError(f"{name} should be called under sc.shard_map."))
    x = _manual_operand(x, axes, "pcast")
    src = _source_state("pcast", x, axes)
    prim = col.PCAST.get((src, to))
    if prim is None:
        raise_user_error(ShardcValueError(f"Unsupported pcast from={src}, to={to!r}"), [type_of(x)])
    if not _check_vma():   # nothing is tracked: the cast is the identity
        return x
    return bind(prim, x, axes=get_abstract_mesh().mesh_order(axes))
