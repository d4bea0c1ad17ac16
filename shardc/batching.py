"""`sc.vmap` and `sc.vectorize`: batching over the typed IR.

The mapped function is traced once on the per-example types of its arguments (the batch
dimension and its spec entry dropped, as JAX types values inside `vmap`) into a nested program,
closing over values of the enclosing program as the control-flow front ends do. Its equations
are then walked in order and each primitive's batching rule (the table in
`transforms/batching.py`) binds the batched computation into the current program, tracking
where each value's batch dimension is; equations whose operands are all unbatched are bound as
they are. So batched values get their sharding types from the same rules as everything else,
`grad` of `vmap` is reverse mode over ordinary equations, and `vmap` of `grad` batches the
forward and backward equations the same way.

This is the driver; it sits above the primitives, `lax` and `ops`, and hands each rule the kit
`KIT` it builds with.
"""
from __future__ import annotations

import collections
import functools
import inspect
import re
from contextlib import nullcontext
from types import SimpleNamespace
from typing import Any, Callable, Sequence

import jax.tree_util as tu
import numpy as np

from . import dtypes as dt
from . import lax
from .autodiff import TypedConst
from .core import (
    Const,
    Trace,
    Tracer,
    api,
    at_source,
    bind,
    current_trace,
    raise_user_error,
    stage_eagerly,
    tracing,
    user_code,
)
from .errors import ShardcError, ShardcNotImplementedError, ShardcTypeError, ShardcValueError
from .ir import Literal, Program, Var
from .mesh import _abstract_mesh_override, get_abstract_mesh
from .ops.control_flow import register_vmap, scan
from .ops.creation import asarray
from .ops.indexing import take
from .ops.shape import expand_dims, squeeze
from .primitives.gather import SCATTERS, GatherDimensionNumbers, ScatterDimensionNumbers, gather
from .primitives.shape import concatenate
from .sharding import PartitionSpec, entry_axes
from .transforms import batching as bt
from .transforms.batching import AxisData, batch_rules, mapped_type, unmapped_type
from .types import ArrayType

__all__ = ["vmap", "vectorize", "batch_program", "batch_eval"]


def _is_leaf(x) -> bool:
    return isinstance(x, Tracer) or getattr(x, "_shardc_type", None) is not None


def _const(a: Literal):
    """A literal operand as a value that binds to the same literal type."""
    if a.type.mesh.empty:
        return Const(a.value, a.type.dtype, a.type.weak_type)
    return TypedConst(a)


# === walking a program ===============================================================================
def batch_eval(prog: Program, args: Sequence[Any], dims: Sequence[int | None], axis: AxisData):
    """Bind `prog`'s equations batched into the current program: `args` are its inputs with
    their batch dims `dims`; returns its outputs and theirs."""
    env: dict[int, tuple[Any, int | None]] = {v.id: (a, d) for v, a, d in zip(prog.in_vars, args, dims)}

    def read(a):
        if isinstance(a, Var):
            return env[a.id]
        return _const(a), None

    for e in prog.eqns:
        vals, ds = zip(*[read(a) for a in e.inputs]) if e.inputs else ((), ())
        with at_source(e.loc, e.api) if e.loc is not None else nullcontext(), _typed_on(e):
            if all(d is None for d in ds) and not _needs_rule(e, axis):
                res = bind(e.prim, *vals, **e.params)
                outs = res if e.prim.multiple_results else [res]
                odims = [None] * len(outs)
            else:
                outs, odims = _apply_rule(e, list(vals), list(ds), axis)
        for v, o, d in zip(e.outputs, outs, odims):
            env[v.id] = (o, d)
    outs = [read(o) for o in prog.outputs]
    return [o for o, _ in outs], [d for _, d in outs]


def _typed_on(e):
    """Bind `e` on the mesh it was typed on: inside an `auto_axes` / `explicit_axes` region the
    context mesh's axis types differ from the program's (the region's ops record no mesh)."""
    if e.prim.changes_mesh or not e.outputs:
        return nullcontext()
    mesh = e.outputs[0].type.mesh
    here = get_abstract_mesh()
    if here.empty:
        here = current_trace().mesh
    if mesh.empty or mesh == here:
        return nullcontext()
    return _abstract_mesh_override(mesh)


def _needs_rule(e, axis: AxisData) -> bool:
    """Equations that depend on the vmap even with unbatched operands: collectives over this
    vmap's axis name, and nested programs whose bodies hold one."""
    if axis.name is None:
        return False
    names = getattr(e.prim, "batch_always", None)
    if names is not None and names(**e.params) == axis.name:
        return True
    return any(_uses_vmap_axis(p, axis) for p in e.prim.sub_programs(e.params))


def _uses_vmap_axis(prog: Program, axis: AxisData) -> bool:
    return any(_needs_rule(e, axis) for e in prog.eqns)


def _apply_rule(e, vals: list, ds: list, axis: AxisData):
    rule = batch_rules.get(e.prim)
    if rule is None:
        raise ShardcNotImplementedError(
            f"vmap of `{e.api or e.prim.name}` ({e.prim.name}) is not implemented: no batching rule",
            op=e.api or e.prim.name, loc=e.loc)
    try:
        outs, odims = rule(KIT, axis, vals, ds, **e.params)
    except ShardcError as err:
        raise err.with_context(op=e.api or e.prim.name, loc=e.loc) from None
    if not e.prim.multiple_results:
        outs, odims = [outs], [odims]
    return list(outs), list(odims)


def batch_program(prog: Program, dims: Sequence[int | None], axis: AxisData,
                  want: Sequence[Any] | None = None, manual_axes=None, check_vma=None,
                  in_types: Sequence[ArrayType] | None = None) -> tuple[Program, list]:
    """`prog` batched: a program on the batched inputs (`dims` their batch dims). `want`: the
    batch dim each output must have (None unbatched, "any": as it comes). Returns the program
    and the outputs' batch dims."""
    outer = current_trace()
    manual = outer.manual_axes if manual_axes is None else manual_axes
    cv = outer.check_vma if check_vma is None else check_vma
    inner = Trace(prog.mesh, prog.name, manual, cv)
    region = (lambda: _abstract_mesh_override(prog.mesh)) if manual_axes is not None else nullcontext
    with region():
        ent = axis.entry   # the batch dim's sharding as seen in the body (none over its Manual axes)
    types = in_types or [unmapped_type(v.type, axis.size, d, ent)
                         for v, d in zip(prog.in_vars, dims)]
    tracers = [inner.new_arg(t) for t in types]
    with tracing(inner), region():
        outs, odims = batch_eval(prog, tracers, dims, axis)
        if want is not None:
            new = []
            for o, d, w in zip(outs, odims, want):
                if w == "any":
                    new.append((o, d))
                elif w is None:
                    if d is not None:
                        raise AssertionError("batch_program: a batched output was wanted unbatched")
                    new.append((o, d))
                else:
                    new.append((bt.matchaxis(KIT, o, d, w, axis.size, ent), w))
            outs, odims = [o for o, _ in new], [d for _, d in new]
        atoms = [inner.atom(o) for o in outs]
    return Program(prog.name, inner.in_vars, inner.eqns, atoms, prog.mesh), list(odims)


def trace_program(fn: Callable, in_types: Sequence[ArrayType], name: str, manual_axes=None,
                  check_vma=None) -> Program:
    """`fn` (flat arguments → flat results) traced on `in_types` into a closed program (no
    values of enclosing programs: rules pass everything in)."""
    outer = current_trace()
    manual = outer.manual_axes if manual_axes is None else manual_axes
    cv = outer.check_vma if check_vma is None else check_vma
    inner = Trace(outer.mesh, name, manual, cv)
    tracers = [inner.new_arg(t) for t in in_types]
    with tracing(inner):
        outs = fn(*tracers)
        atoms = [inner.atom(o) for o in outs]
    return Program(name, inner.in_vars, inner.eqns, atoms, outer.mesh)


def apply_batched(fn: Callable, args: Sequence[Any], dims: Sequence[int | None], axis: AxisData,
                  out_dim: int | None = 0) -> list:
    """`fn` (flat per-example arguments → flat results: a user's rule, `bwd` of a custom_vjp)
    applied to batched `args`: traced per example, then batched; results batched at `out_dim`."""
    types = [mapped_type(lax.type_of(a), d) for a, d in zip(args, dims)]
    outer = current_trace()
    inner = Trace(outer.mesh, getattr(fn, "__name__", "rule"), outer.manual_axes, outer.check_vma)
    inner.closure = {}
    tracers = [inner.new_arg(t) for t in types]
    with tracing(inner), bt.vmap_axes(axis):
        outs = list(fn(*tracers))
        keep = [i for i, o in enumerate(outs) if o is not None]
        atoms = [inner.atom(outs[i]) for i in keep]
    consts = [t for t, _ in inner.closure.values()]
    prog = Program(inner.name, inner.in_vars + [v for _, v in inner.closure.values()], inner.eqns, atoms,
                   inner.mesh)
    res, rd = batch_eval(prog, [*args, *consts], [*dims, *([None] * len(consts))], axis)
    full: list = [None] * len(outs)
    for i, o, d in zip(keep, res, rd):
        full[i] = bt.matchaxis(KIT, o, d, out_dim, axis.size, axis.entry) if out_dim is not None else o
    return full


def map_fallback(prim, args: Sequence[Any], dims: Sequence[int | None], params: dict, axis: AxisData):
    """`prim` applied one example at a time (a scan over the batch): for the few cases a
    vectorized rule does not cover (dynamic_update_slice at batched indices). Results are
    batched at 0 with the vmap's batch-dim sharding."""
    batched = [i for i, d in enumerate(dims) if d is not None]
    xs = []
    for i in batched:
        x = bt.moveaxis(KIT, args[i], dims[i], 0)
        t = lax.type_of(x)
        if t.mesh.has_explicit and t.spec[0] is not None:
            x = lax.reshard(x, PartitionSpec(None, *t.spec[1:], unreduced=t.unreduced, reduced=t.reduced))
        xs.append(x)

    def one(c, sl):
        full = list(args)
        for i, v in zip(batched, sl):
            full[i] = v
        out = bind(prim, *full, **params)
        return c, tuple(out) if prim.multiple_results else out

    _, ys = scan(one, None, tuple(xs))
    ys_list = list(ys) if prim.multiple_results else [ys]
    res = []
    for y in ys_list:
        t = lax.type_of(y)
        if axis.entry is not None and t.mesh.has_explicit:
            y = lax.reshard(y, PartitionSpec(axis.entry, *t.spec[1:], unreduced=t.unreduced, reduced=t.reduced))
        res.append(y)
    return (res, [0] * len(res)) if prim.multiple_results else (res[0], 0)


def _index_vectors(idx: list, idims: list, axis: AxisData):
    """Per-dim start indices (some batched) as one batched index vector `[batch, n]` (JAX's
    `_batch_dynamic_slice_indices`)."""
    cols = []
    for i, d in zip(idx, idims):
        i = lax.convert_element_type(i, np.int32)
        i = bt.bdim_at_front(KIT, i, d, axis.size, axis.entry)
        t = lax.type_of(i)
        spec = PartitionSpec(*t.spec, None) if t.mesh.has_explicit else None
        cols.append(lax.broadcast_in_dim(i, (axis.size, 1), (0,), out_sharding=spec))
    return bind(concatenate, *cols, dimension=1) if len(cols) > 1 else cols[0]


def dynamic_update_slice_scatter(x, xd, u, ud, idx: list, idims: list, axis: AxisData):
    """`dynamic_update_slice` at batched indices: a scatter of the update window at each
    example's (clamped) start, batched by the scatter's rule (JAX's rule)."""
    n = len(idx)
    dims = tuple(range(n))
    dn = ScatterDimensionNumbers(update_window_dims=dims, inserted_window_dims=(), scatter_dims_to_operand_dims=dims)
    return SCATTERS["set"].batch(KIT, axis, [x, _index_vectors(idx, idims, axis), u], [xd, 0, ud],
                                 dimension_numbers=dn, mode="clip", indices_are_sorted=True, unique_indices=True,
                                 out_sharding=None)


def dynamic_slice_gather(x, xd, idx: list, idims: list, slice_sizes: tuple, axis: AxisData):
    """`dynamic_slice` at batched indices: a gather with the batch as operand and indices
    batching dims (JAX's rule), indices clamped as dynamic_slice clamps them."""
    x = bt.bdim_at_front(KIT, x, xd, axis.size, axis.entry)
    n = len(idx)
    ind = _index_vectors(idx, idims, axis)
    dn = GatherDimensionNumbers(offset_dims=tuple(range(1, n + 1)), collapsed_slice_dims=(),
                                start_index_map=tuple(range(1, n + 1)), operand_batching_dims=(0,),
                                start_indices_batching_dims=(0,))
    return bind(gather, x, ind, dimension_numbers=dn, slice_sizes=(1, *slice_sizes), mode="clip",
                fill_value=None, out_sharding=None)


# === sc.vmap =========================================================================================
_SPEC_TYPES = (int, type(None))


def vmap(fun: Callable, in_axes: Any = 0, out_axes: Any = 0, axis_name: Any = None, axis_size: int | None = None,
         spmd_axis_name: Any = None, sum_match: bool = False) -> Callable:
    """Vectorizing map, as `jax.vmap`: `fun` mapped over the `in_axes` dims of its arguments
    (a pytree prefix of the positional arguments: ints, negative ints, None), results batched
    at `out_axes`. `axis_name` names the mapped axis for collectives (`sc.psum(x, name)`),
    `axis_size` gives its size when no argument is mapped, and `spmd_axis_name` are the mesh
    axes the batch dimension is partitioned over. With `sum_match`, a batched result whose
    out_axes is None is summed over the batch (instead of JAX's error)."""
    if not callable(fun):
        raise ShardcTypeError(f"Expected a callable value, got {fun}")
    if spmd_axis_name is not None and not isinstance(spmd_axis_name, tuple):
        spmd_axis_name = (spmd_axis_name,)
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)
    if not (in_axes is None or type(in_axes) in (int, tuple)):
        raise ShardcTypeError("vmap in_axes must be an int, None, or a tuple of entries corresponding "
                              f"to the positional arguments passed to the function, but got {in_axes}.")
    if not all(type(leaf) in _SPEC_TYPES for leaf in _axis_leaves(in_axes)):
        raise ShardcTypeError("vmap in_axes must be an int, None, or (nested) container "
                              f"with those types as leaves, but got {in_axes}.")
    if not all(type(leaf) in _SPEC_TYPES for leaf in _axis_leaves(out_axes)):
        raise ShardcTypeError("vmap out_axes must be an int, None, or (nested) container "
                              f"with those types as leaves, but got {out_axes}.")

    @functools.wraps(fun)
    def vmap_f(*args, **kwargs):
        return _vmap_call(fun, args, kwargs, in_axes, out_axes, axis_name, axis_size, spmd_axis_name, sum_match,
                          api="sc.vmap")

    return vmap_f


def _axis_leaves(tree) -> list:
    return tu.tree_leaves(tree, is_leaf=lambda x: x is None)


def _flatten_axes(name: str, treedef, axis_tree, kws: bool = False) -> list:
    """JAX's `flatten_axes`: the axis spec broadcast over the value's leaves (a prefix tree)."""
    from jax._src.api_util import flatten_axes  # late: JAX's own prefix rules and messages, as for shard_map specs
    try:
        return flatten_axes(name, treedef, axis_tree, kws=kws)
    except ValueError as e:
        raise_user_error(ShardcValueError(str(e)))


@api("sc.vmap")
def _vmap_call(fun, args, kwargs, in_axes, out_axes, axis_name, axis_size, spmd_axis_name, sum_match=False):
    if isinstance(in_axes, tuple) and len(in_axes) != len(args):
        raise_user_error(ShardcValueError(
            "vmap in_axes must be an int, None, or a tuple of entries corresponding to the positional "
            f"arguments passed to the function, but got len(in_axes)={len(in_axes)}, len(args)={len(args)}"))
    leaves, in_tree = tu.tree_flatten((args, kwargs), is_leaf=_is_leaf)
    if current_trace() is None and not any(isinstance(a, Tracer) for a in leaves):
        def staged(*xs):
            a, k = tu.tree_unflatten(in_tree, xs)
            return _vmap_call(fun, a, k, in_axes, out_axes, axis_name, axis_size, spmd_axis_name, sum_match)
        return stage_eagerly(staged, leaves, name=f"vmap_{getattr(fun, '__name__', 'f')}")
    dims = _flatten_axes("vmap in_axes", in_tree, (in_axes, 0), kws=True)
    # float0 values (integer values' tangents) hold no data: a bool placeholder is batched, as JAX's
    f0_in = {i for i, a in enumerate(leaves) if _is_float0(a)}
    vals = [a if isinstance(a, Tracer) or getattr(a, "_shardc_type", None) is not None else
            asarray(np.zeros(a.shape, bool) if i in f0_in else a) for i, a in enumerate(leaves)]
    types = [lax.type_of(v) for v in vals]
    size = _mapped_axis_size(fun, in_tree, types, dims, axis_size)
    dims = [None if d is None else d % max(t.ndim, 1) for d, t in zip(dims, types)]
    ema = _mapped_axis_spec(types, dims)
    _check_ema_unmapped(ema, types, dims)
    if spmd_axis_name is not None and ema is not None:
        mesh = get_abstract_mesh()
        if not mesh.empty:
            unknown = [a for a in spmd_axis_name if a not in mesh.axis_names]
            if unknown:
                raise_user_error(ShardcValueError(
                    f"spmd_axis_name {tuple(unknown)} are not axes of the mesh {mesh!r}"))
            spmd_axis_name = tuple(a for a in spmd_axis_name if mesh.axis_size(a) != 1)
        if spmd_axis_name == ema:
            spmd_axis_name = None
        else:
            raise_user_error(ShardcValueError(
                "Only one of spmd_axis_name or arrays sharded on `Explicit` mesh axis type is allowed. "
                f"Got spmd_axis_name={spmd_axis_name} and arrays sharded on explicit_mesh_axis={ema}"))
    axis = AxisData(axis_name, size, spmd_axis_name, ema)
    prog, out_tree, consts, f0_out = _trace_mapped(fun, in_tree, vals, types, dims, axis, f0_in)
    outs, odims = batch_eval(prog, [*vals, *consts], [*dims, *([None] * len(consts))], axis)
    out_dims = _flatten_axes("vmap out_axes", out_tree, out_axes)
    res = []
    paths = None
    for k, (o, d, want) in enumerate(zip(outs, odims, out_dims)):
        if want is None and d is not None and sum_match:
            res.append(lax.reduce_sum(o, (d,)))
            continue
        if want is None and d is not None:
            if axis_name is not None:
                raise_user_error(ShardcValueError(
                    f"vmap has mapped output (axis_name={axis_name}) but out_axes is {want}"))
            if paths is None:
                full = tu.tree_unflatten(out_tree, out_dims)
                paths = [tu.keystr(p) for p, _ in tu.tree_flatten_with_path(full, is_leaf=lambda x: x is None)[0]]
            raise_user_error(ShardcValueError(
                f"at vmap out_axes{paths[k]}, got axis spec {want} but output was batched on axis {d}"))
        if want is not None:
            nd = lax.type_of(o).ndim + (1 if d is None else 0)
            if not -nd <= want < nd:
                raise_user_error(ShardcValueError(
                    f"axis {want} is out of bounds for array of dimension {nd}"))
            want = want % nd
            if d is None and not lax.is_array(o):
                o = asarray(o)
            o = bt.matchaxis(KIT, o, d, want, size, axis.entry)
        res.append(np.zeros(lax.type_of(o).shape, dt.float0) if k in f0_out else o)
    return tu.tree_unflatten(out_tree, res)


def _is_float0(x) -> bool:
    return isinstance(x, np.ndarray) and x.dtype == dt.float0


def _trace_mapped(fun, in_tree, vals, types, dims, axis: AxisData, f0_in=frozenset()):
    """Trace `fun` on the per-example types into a nested program (closing over values of the
    enclosing program, which come back as `consts`, unbatched); also the indices of its float0
    results (`f0_in`: of its float0 arguments), which are bool placeholders in the program."""
    outer = current_trace()
    inner = Trace(outer.mesh, getattr(fun, "__name__", "vmapped"), outer.manual_axes, outer.check_vma)
    inner.closure = {}
    tracers = [inner.new_arg(mapped_type(t, d)) for t, d in zip(types, dims)]
    tracers = [np.zeros(lax.type_of(x).shape, dt.float0) if i in f0_in else x for i, x in enumerate(tracers)]
    with tracing(inner), bt.vmap_axes(axis):
        a, k = tu.tree_unflatten(in_tree, tracers)
        with user_code():
            out = fun(*a, **k)
        flat, out_tree = tu.tree_flatten(out, is_leaf=_is_leaf)
        for o in flat:
            if not (lax.is_array(o) or isinstance(o, (bool, int, float, complex, np.ndarray, np.generic))):
                raise_user_error(ShardcTypeError(
                    f"Output from batched function {o!r} with type {type(o)} is not a valid JAX type"))
        f0_out = {i for i, o in enumerate(flat) if _is_float0(o)}
        flat = [np.zeros(o.shape, bool) if i in f0_out else o for i, o in enumerate(flat)]
        atoms = [inner.atom(o if lax.is_array(o) else asarray(o)) for o in flat]
    consts = [t for t, _ in inner.closure.values()]
    prog = Program(inner.name, inner.in_vars + [v for _, v in inner.closure.values()], inner.eqns, atoms,
                   inner.mesh)
    return prog, out_tree, consts, f0_out


def _mapped_axis_size(fun, in_tree, types: list[ArrayType], dims: list, axis_size) -> int:
    """JAX's `_mapped_axis_size`: the one size of the mapped dims (and `axis_size`), or its errors."""
    if not types:
        if axis_size is not None:
            return axis_size
        args, kwargs = tu.tree_unflatten(in_tree, types)
        raise_user_error(ShardcValueError(
            "vmap wrapped function must be passed at least one argument containing an array or axis_size "
            f"must be specified, got empty *args={args} and **kwargs={kwargs}"))
    sizes_all = []
    for t, d in zip(types, dims):
        if d is None:
            sizes_all.append(None)
            continue
        if not -t.ndim <= d < t.ndim:
            min_rank = d + 1 if d >= 0 else -d
            raise_user_error(ShardcValueError(
                f"vmap was requested to map its argument along axis {d}, which implies that its rank should "
                f"be at least {min_rank}, but is only {t.ndim} (its shape is {t.shape})"))
        sizes_all.append(t.shape[d])
    sizes = [s for s in sizes_all if s is not None]
    if axis_size is not None:
        sizes.append(axis_size)
    if len(set(sizes)) == 1:
        return sizes[0]
    if not sizes:
        raise_user_error(ShardcValueError(
            "vmap must have at least one non-None value in in_axes or axis_size must be specified"))
    raise_user_error(ShardcValueError(_inconsistent_sizes(fun, in_tree, types, dims, sizes_all, axis_size)))


def _inconsistent_sizes(fun, in_tree, types, dims, sizes_all, axis_size) -> str:
    msg = ["vmap got inconsistent sizes for array axes to be mapped:\n"]
    args, kwargs = tu.tree_unflatten(in_tree, [t.str_short() for t in types])
    try:
        names = list(inspect.signature(fun).bind(*args, **kwargs).signature.parameters)
    except (TypeError, ValueError):
        names = None

    def arg_name(path):
        i = path[0].idx
        if names is None or i >= len(names):
            return f"args{tu.keystr(path)}"
        return f"argument {names[i]}" + (tu.keystr(path[1:]) if len(path) > 1 else "")

    keys = [f"{arg_name(p)} of type {s}" for p, s in tu.tree_flatten_with_path(args)[0]]
    keys += [f"kwargs{tu.keystr(p)} of type {s}" for p, s in tu.tree_flatten_with_path(kwargs)[0]]
    counts = collections.Counter(s for s in sizes_all if s is not None).most_common()
    first = {s: next(i for i, x in enumerate(sizes_all) if x == s) for s, _ in counts}
    if axis_size is not None:
        msg.append(f"  * the `axis_size` argument was {axis_size};\n")
    for k, (sz, ct) in enumerate(counts):
        i = first[sz]
        if ct == 1:
            msg.append(f"  * one axis had size {sz}: axis {dims[i]} of {keys[i]};\n")
        elif k == 0:
            msg.append(f"  * most axes ({ct} of them) had size {sz}, e.g. axis {dims[i]} of {keys[i]};\n")
        else:
            msg.append(f"  * some axes ({ct} of them) had size {sz}, e.g. axis {dims[i]} of {keys[i]};\n")
    return "".join(msg)[:-2]


def _mapped_axis_spec(types: list[ArrayType], dims: list) -> tuple[str, ...] | None:
    """JAX's `_mapped_axis_spec`: the (common) spec entry of the mapped dims, as a tuple of axes."""
    out, n = None, 0
    for t, d in zip(types, dims):
        if d is None:
            continue
        if t.unreduced or t.reduced:   # JAX indexes the spec (`spec[d]`), which refuses these
            raise_user_error(ShardcValueError(
                "Using pspec[...] is dangerous when PartitionSpec has non-empty unreduced/reduced set. Please use "
                f"spec.partitions[...] (JAX 0.10.2 cannot vmap over {t}: reshard it to drop unreduced/reduced "
                "first, or pass it unmapped)"), [t])
        spec = t.spec[d] if t.mesh.has_explicit else None
        spec = tuple(entry_axes(spec)) or None
        if n and out != spec:
            raise_user_error(ShardcValueError(
                "Mapped away dimension of inputs passed to vmap should be sharded the same. Got inconsistent "
                f"axis specs: {_entry_repr(out)} vs {_entry_repr(spec)}"))
        out, n = spec, n + 1
    return out


def _entry_repr(e) -> str:
    if e is None:
        return "None"
    return repr(e[0]) if len(e) == 1 else repr(tuple(e))


def _check_ema_unmapped(ema, types, dims) -> None:
    if ema is None:
        return
    for t, d in zip(types, dims):
        if d is None and any(a in ema for e in t.spec for a in entry_axes(e)):
            raise_user_error(ShardcValueError(
                "Unmapped values passed to vmap cannot be sharded along the mesh axis you are vmapping over. "
                f"Got type: {t.str_short(True)}, in_axes: {d} and vmapped mesh axis: {ema}"))


# === sc.vectorize ====================================================================================
_DIMS = r"\w+"
_CORE = rf"(?:{_DIMS}(?:,{_DIMS})*)?"
_ARG = rf"\({_CORE}\)"
_SIGNATURE = re.compile(rf"^{_ARG}(?:,{_ARG})*->{_ARG}(?:,{_ARG})*$")


def _parse_signature(signature: str):
    """NumPy's gufunc signature: (input core dims, output core dims)."""
    sig = signature
    if not _SIGNATURE.match(sig):
        raise_user_error(ShardcValueError(f"not a valid gufunc signature: {signature}"))
    ins, outs = sig.split("->")
    parse = lambda s: [tuple(re.findall(_DIMS, a)) for a in re.findall(_ARG, s)]
    return parse(ins), parse(outs)


def vectorize(pyfunc: Callable, *, excluded=frozenset(), signature: str | None = None) -> Callable:
    """`jnp.vectorize`: `pyfunc` on scalars (or on core dims, with a gufunc `signature`) applied
    over the broadcast leading dims of its arguments by `vmap`, one vmap per loop dim, size-1
    dims squeezed and left unmapped (JAX's implementation, so the same types). `excluded`:
    positional argument indices (or keyword names) passed through unchanged."""
    if any(not isinstance(e, (int, str)) for e in excluded):
        raise ShardcTypeError("jax.numpy.vectorize can only exclude integer or string arguments, "
                              f"but excluded={excluded!r}")
    if any(isinstance(e, int) and e < 0 for e in excluded):
        raise ShardcValueError(f"excluded={excluded!r} contains negative numbers")

    @functools.wraps(pyfunc)
    def wrapped(*args, **kwargs):
        return _vectorize_call(pyfunc, excluded, signature, args, kwargs, api="sc.vectorize")

    return wrapped


def _apply_excluded(func, excluded, args, kwargs):
    """JAX's `_apply_excluded`: the excluded positional / keyword arguments partially applied."""
    if not excluded:
        return func, list(args), dict(kwargs)
    dynamic = [a for i, a in enumerate(args) if i not in excluded]
    dyn_kw = {k: v for k, v in kwargs.items() if k not in excluded}
    static = [(i, args[i]) for i in sorted(e for e in excluded if isinstance(e, int)) if i < len(args)]
    static_kw = {k: v for k, v in kwargs.items() if k in excluded}

    def new_func(*a, **kw):
        a = list(a)
        for i, v in static:
            a.insert(i, v)
        return func(*a, **kw, **static_kw)

    return new_func, dynamic, dyn_kw


@api("sc.vectorize")
def _vectorize_call(pyfunc, excluded, signature, args, kwargs):
    context = f"on vectorized function with excluded={excluded!r} and signature={signature!r}"
    func, args, kwargs = _apply_excluded(pyfunc, excluded, args, kwargs)
    if signature is not None:
        in_core, out_core = _parse_signature(signature)
    else:
        in_core, out_core = [()] * len(args), None
    none_args = {i for i, a in enumerate(args) if a is None}
    if none_args:
        if any(in_core[i] != () for i in none_args):
            raise_user_error(ShardcValueError(f"Cannot pass None at locations {none_args} with signature={signature!r}"))
        func, args, _ = _apply_excluded(func, none_args, args, {})
        in_core = [c for i, c in enumerate(in_core) if i not in none_args]
    if kwargs:   # JAX drops them (then `pyfunc` misses them): say so
        raise_user_error(ShardcTypeError(
            f"keyword arguments {sorted(kwargs)} of a vectorized function must be listed in `excluded` (JAX's "
            "jnp.vectorize drops the others, so the function is called without them)"))
    args = [a if lax.is_array(a) else asarray(a) for a in args]
    types = [lax.type_of(a) for a in args]
    if len(args) != len(in_core):
        raise_user_error(ShardcTypeError(
            f"wrong number of positional arguments: expected {len(in_core)}, got {len(args)} {context}"))
    sizes: dict[str, int] = {}
    for t, core in zip(types, in_core):
        _update_dim_sizes(sizes, t.shape, core, context, is_input=True)
    loop_shapes = [tuple(t.shape[:t.ndim - len(c)]) for t, c in zip(types, in_core)]
    try:
        shape = tuple(np.broadcast_shapes(*loop_shapes))
    except ValueError:   # JAX's `lax.broadcast_shapes` message, not NumPy's
        raise_user_error(ShardcValueError(f"Incompatible shapes for broadcasting: shapes={loop_shapes}"))
    checked = func if out_core is None else _check_output_dims(func, sizes, out_core, context)
    squeezed, rev_filled = [], []
    for a, t, c in zip(args, types, in_core):
        noncore = t.shape[:t.ndim - len(c)]
        rev_filled.append(((1,) * (len(shape) - len(noncore)) + noncore)[::-1])
        sq = tuple(i for i, n in enumerate(noncore) if n == 1)
        squeezed.append(squeeze(a, axis=sq) if sq else a)
    fn, expand = checked, []
    for negdim, axis_sizes in enumerate(zip(*rev_filled)):
        in_axes = tuple(None if n == 1 else 0 for n in axis_sizes)
        if all(a is None for a in in_axes):
            expand.append(len(shape) - 1 - negdim)
        else:
            fn = vmap(fn, in_axes)
    res = fn(*squeezed)
    if not expand:
        return res
    if isinstance(res, tuple):
        return tuple(expand_dims(r, tuple(expand)) for r in res)
    return expand_dims(res, tuple(expand))


def _update_dim_sizes(sizes: dict, shape, core, context: str, *, is_input: bool) -> None:
    """JAX's `_update_dim_sizes`: the core dims' sizes, checked for consistency."""
    n = len(core)
    if is_input and len(shape) < n:
        raise_user_error(ShardcValueError(
            f"input with shape {shape!r} does not have enough dimensions for all core dimensions {core!r} {context}"))
    if not is_input and len(shape) != n:
        raise_user_error(ShardcValueError(
            f"output shape {shape!r} does not match core dimensions {core!r} {context}"))
    for d, k in zip(core, shape[len(shape) - n:] if core else ()):
        if sizes.setdefault(d, k) != k:
            raise_user_error(ShardcValueError(
                f"inconsistent size for core dimension {d!r}: {k!r} vs {sizes[d]!r} {context}"))


def _check_output_dims(f, sizes: dict, out_core, context: str):
    def wrapped(*a):
        out = f(*a)
        outs = out if isinstance(out, tuple) else (out,)
        if len(out_core) > 1 and not isinstance(out, tuple):
            raise_user_error(ShardcTypeError(
                f"output must be a tuple when multiple outputs are expected, got: {out!r}\n{context}"))
        if len(outs) != len(out_core):
            raise_user_error(ShardcTypeError(
                f"wrong number of output arguments: expected {len(out_core)!r}, got {len(outs)!r} {context}"))
        s = dict(sizes)
        for o, c in zip(outs, out_core):
            _update_dim_sizes(s, lax.type_of(o).shape, c, context, is_input=False)
        return out
    return wrapped


#: What batching rules build with (`transforms/batching.py`): the promotion-free `lax`
#: functions, plus this driver's helpers for rules of nested primitives.
KIT = SimpleNamespace(**{name: getattr(lax, name) for name in lax.WRAPPERS},
                      type_of=lax.type_of, is_array=lax.is_array, bind=bind,
                      asarray=lambda x, t=None: asarray(x) if t is None else asarray(x, dtype=t.dtype),
                      batch_program=batch_program, batch_eval=batch_eval, PartitionSpec=PartitionSpec)
KIT.insert_spec = bt.insert_spec
KIT.take_static = lambda x, idx, d: take(x, np.asarray(idx, np.int32), axis=d)
KIT.trace_program = trace_program
KIT.apply_batched = apply_batched
KIT.map_fallback = map_fallback
KIT.dynamic_slice_gather = dynamic_slice_gather
KIT.dynamic_update_slice_scatter = dynamic_update_slice_scatter
KIT.zeros_index = lambda i: Const(np.zeros((), lax.type_of(i).dtype), lax.type_of(i).dtype)
KIT.moveaxis = lambda x, src, dst: bt.moveaxis(KIT, x, src, dst)
KIT.broadcast = lambda x, size, axis, entry=None: bt.broadcast(KIT, x, size, axis, entry)
KIT.bdim_at_front = lambda x, d, size, entry=None: bt.bdim_at_front(KIT, x, d, size, entry)
KIT.matchaxis = lambda x, src, dst, size, entry=None: bt.matchaxis(KIT, x, src, dst, size, entry)


register_vmap(vmap)
