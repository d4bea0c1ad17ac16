"""Reverse-mode autodiff over the typed IR: `sc.vjp`, `sc.grad`, `sc.value_and_grad`.

The function is traced into the current program (or a staged one, eagerly);
its equations are then walked backwards and each primitive's VJP rule (the
table in `transforms/ad.py`) binds the cotangent computation, so cotangents
get sharding types from the same rules as everything else. Cotangent types
follow JAX (`ad.ct_spec`): sharded↔sharded, replicated↔replicated,
reduced↔unreduced.

This is the driver; it sits above the primitives, `lax` and `ops`, and hands
each rule the kit `KIT` it builds with.
"""
from __future__ import annotations

import functools
import math
from contextlib import nullcontext
from types import SimpleNamespace
from typing import Any, Callable, Sequence

import jax.tree_util as tu
import numpy as np

from . import dtypes as dt
from . import lax
from .core import Trace, Tracer, api, at_source, bind, current_trace, raise_user_error, stage_eagerly, user_code
from .errors import ShardcError, ShardcNotImplementedError, ShardcTypeError, ShardcValueError
from .ir import Eqn, Var
from .mesh import _abstract_mesh_override, get_abstract_mesh
from .ops.control_flow import cond, scan, while_loop
from .ops.creation import arange, asarray, full
from .ops.manual import pcast, shard_map
from .ops.sharding import reshard
from .primitives import elementwise as ew
from .primitives.sharding_ops import copy_p
from .primitives.sharding_ops import reshard as reshard_p
from .sharding import MemorySpace, PartitionSpec
from .transforms.ad import (
    ct_spec,
    differentiable,
    differentiating,
    forward_api,
    forward_pullback,
    linearizing,
    vjp_rules,
)
from .types import ArrayType

__all__ = ["grad", "value_and_grad", "vjp", "jvp", "linearize", "jacfwd", "jacrev", "jacobian", "hessian", "backward", "eval_program", "fit_ct", "zeros_ct"]


class TypedConst:
    """A constant operand handed to a VJP rule: its value (`np.asarray(c)`) and
    its type, sharding included (a closed-over `sc.Array` keeps its layout when
    a rule binds it again)."""

    __slots__ = ("_literal",)

    def __init__(self, literal):
        self._literal = literal

    @property
    def _shardc_type(self) -> ArrayType:
        return self._literal.type

    def __array__(self, dtype=None, copy=None):
        v = self._literal.value
        return v.astype(dtype) if dtype is not None else v

    def to_jax(self):
        return self._literal.value


def zeros_ct(t: ArrayType):
    """A zero cotangent of the right type for a primal of type `t` (inside
    `shard_map`, varying over the same manual axes, so loop carries keep their types)."""
    if t.mesh.empty:
        z = full(t.shape, 0, t.dtype)
    else:
        spec = ct_spec(t)
        manual_u = tuple(a for a in t.mesh.mesh_order(spec.unreduced) if a in t.mesh.manual_axes)
        if manual_u:   # inside shard_map (a reduced primal): zeros made varying, then unreduced
            z = pcast(full(t.shape, 0, t.dtype, out_sharding=PartitionSpec(*t.spec)), manual_u, to="varying")
            z = pcast(z, manual_u, to="unreduced")
        elif spec.unreduced:
            z = reshard(full(t.shape, 0, t.dtype, out_sharding=PartitionSpec(*t.spec)), spec)
        else:
            z = full(t.shape, 0, t.dtype, out_sharding=spec)
    if t.vma and current_trace() is not None and current_trace().check_vma:
        z = pcast(z, tuple(t.mesh.mesh_order(t.vma)), to="varying")
    return z


def fit_ct(ct, t: ArrayType):
    """Make a cotangent have exactly the cotangent type of primal type `t`
    (a reshard where a rule's natural result is laid out differently)."""
    ct_t = lax.type_of(ct)
    if ct_t.dtype != t.dtype:
        ct = lax.convert_element_type(ct, t.dtype)
        ct_t = lax.type_of(ct)
    if t.mesh.empty or not t.mesh.has_explicit:
        return ct
    want = ct_spec(t)
    if (tuple(ct_t.spec), ct_t.unreduced, ct_t.reduced) != (tuple(t.spec), want.unreduced, want.reduced):
        ct = bind(reshard_p, ct, spec=want, mesh=t.mesh)
    return ct


def _add_ct(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return lax.add(a, b)


def backward(trace: Trace, eqns: Sequence[Eqn], in_vars: Sequence[Var], out_var, seed) -> list:
    """Cotangents of `in_vars` through `eqns` (a forward computation recorded in
    `trace`), seeded with `seed` at `out_var` (or lists of both); the backward
    ops go into `trace`."""
    outs_v = out_var if isinstance(out_var, (list, tuple)) else [out_var]
    seeds = seed if isinstance(out_var, (list, tuple)) else [seed]
    cts: dict[int, Any] = {}
    for v, c in zip(outs_v, seeds):
        if isinstance(v, Var) and c is not None:
            v = _seen_here(trace, v)
            cts[v.id] = _add_ct(cts.get(v.id), c)
    in_vars = [_seen_here(trace, v) for v in in_vars]
    wanted = {v.id for v in in_vars}
    # only equations on a path from the inputs carry cotangents
    live = set(wanted)
    for e in eqns:
        if any(isinstance(a, Var) and a.id in live for a in e.inputs):
            live.update(v.id for v in e.outputs)
    for e in reversed(eqns):
        outs_ct = [cts.pop(v.id, None) for v in e.outputs]
        if all(c is None for c in outs_ct):
            continue
        if not any(isinstance(a, Var) and a.id in live for a in e.inputs):
            continue
        vjp = vjp_rules.get(e.prim)
        if vjp is None:
            raise ShardcNotImplementedError(
                f"differentiation of `{e.api or e.prim.name}` ({e.prim.name}) is not supported yet",
                op=e.api or e.prim.name, loc=e.loc)
        _check_live(e, live)
        ins = [Tracer(trace, a) if isinstance(a, Var) else TypedConst(a) for a in e.inputs]
        outs = [Tracer(trace, v) for v in e.outputs]
        with _recorded_mesh(e):
            # rules marked `sparse_cts` take None for outputs no cotangent reaches (their residuals)
            cts_t = outs_ct if getattr(e.prim, "sparse_cts", False) else [
                c if c is not None else zeros_ct(v.type) for c, v in zip(outs_ct, e.outputs)]
            with at_source(e.loc, f"grad of {e.api or e.prim.name}"):
                in_cts = vjp(KIT, cts_t if e.prim.multiple_results else cts_t[0], ins, outs, **e.params)
            for a, c in zip(e.inputs, in_cts):
                if c is None or not isinstance(a, Var) or a.id not in live or not differentiable(a.type):
                    continue
                cts[a.id] = _add_ct(cts.get(a.id), fit_ct(c, a.type))
    return [cts.get(v.id) for v in in_vars]


def _seen_here(trace: Trace, v: Var) -> Var:
    """`v` as `trace`'s equations use it: a value of an enclosing program that a rule replayed
    here (a `custom_vjp`'s `fwd`, a product's halvings, a branch) is read through the input
    that captured it, under another variable (the pullback `jacrev` runs in a scan over basis
    vectors); walking to `v` itself would find no path and drop those cotangents. (Inputs and
    outputs alike: a replayed output may be an input passed through.)"""
    hit = trace.closure.get(v.id) if trace.closure else None
    return hit[1] if hit is not None else v


def _recorded_mesh(e: Eqn):
    """The abstract mesh `e` was recorded under, for its VJP rule (JAX's `eqn.ctx` does this):
    inside an `auto_axes` / `explicit_axes` region the operands are typed on the region's mesh
    (the context mesh with other axis types), and so are the cotangents the rule makes; the
    backward pass runs outside the region, under the outer mesh. (A `mesh_cast` at the region's
    edge takes its operand's mesh too: its VJP casts back onto it, as it was bound forward.)"""
    cur = get_abstract_mesh()
    m = next((a.type.mesh for a in e.inputs if not a.type.mesh.empty), None)
    if (m is None or cur.empty or m == cur or m.axis_names != cur.axis_names
            or m.axis_sizes != cur.axis_sizes):
        return nullcontext()
    return _abstract_mesh_override(m)


def _check_live(e: Eqn, live: set[int]) -> None:
    """Rules that refuse cotangents for some inputs (a custom rule's closed-over
    values) say so before running, naming the user's line."""
    check = getattr(e.prim, "check_live", None)
    if check is None:
        return
    try:
        check([isinstance(a, Var) and a.id in live and differentiable(a.type) for a in e.inputs], **e.params)
    except ShardcError as err:
        raise err.with_context(op=e.api or e.prim.name, loc=e.loc) from None


def _vjp_in_trace(f: Callable, primals: Sequence[Any], has_aux: bool = False):
    trace = current_trace()
    xs = [p if isinstance(p, Tracer) else asarray(p) for p in primals]
    # each primal gets its own variable so cotangents are tracked per argument
    xs = [bind(copy_p, x) for x in xs]
    start = len(trace.eqns)
    with user_code(), differentiating():
        out = f(*xs)
    aux = None
    if has_aux:
        out, aux = out
    return trace, start, xs, out, aux


@api("sc.vjp")
def vjp(f: Callable, *primals, has_aux: bool = False):
    """`(out, vjp_fn)` (or `(out, vjp_fn, aux)`): `vjp_fn(ct)` gives the primals'
    cotangents. Primals and outputs may be pytrees; `ct` has the output's structure."""
    if current_trace() is None:
        return _vjp_eagerly(f, primals, has_aux)
    flat_p = [tu.tree_flatten(p, is_leaf=_is_leaf) for p in primals]

    def g(*leaves):
        rebuilt, k = [], 0
        for ls, tree in flat_p:
            rebuilt.append(tu.tree_unflatten(tree, leaves[k:k + len(ls)]))
            k += len(ls)
        return f(*rebuilt)

    trace, start, xs, out, aux = _vjp_in_trace(g, [leaf for ls, _ in flat_p for leaf in ls], has_aux)
    out_flat, out_tree = tu.tree_flatten(out, is_leaf=_is_leaf)
    if not all(isinstance(o, Tracer) for o in out_flat):
        raise_user_error(ShardcValueError("sc.vjp needs a function whose outputs are arrays"))
    end = len(trace.eqns)

    def vjp_fn(ct):
        ct_flat, ct_tree = tu.tree_flatten(ct, is_leaf=_is_leaf)
        if ct_tree != out_tree:
            raise_user_error(ShardcValueError(
                "unexpected tree structure.\n\nThe argument to a VJP function returned by `sc.vjp` "
                f"must match the pytree structure of the differentiated function's output: got "
                f"{ct_tree}, expected {out_tree}."))
        for c, o in zip(ct_flat, out_flat):
            _check_ct(c, o.aval)
        # integer outputs' cotangents (float0 or integer zeros) reach nothing
        ct_flat = [c if differentiable(o.aval) else None for c, o in zip(ct_flat, out_flat)]
        cts = backward(trace, trace.eqns[start:end], [x._var for x in xs], [o._var for o in out_flat], ct_flat)
        # (JAX: an input's cotangent has its primal's tangent type, weak type included)
        res = [_weak_as(fit_ct(c, x.aval), x.aval.weak_type) if c is not None else _zero_ct(x.aval)
               for c, x in zip(cts, xs)]
        per_primal, k = [], 0
        for ls, tree in flat_p:
            per_primal.append(tu.tree_unflatten(tree, res[k:k + len(ls)]))
            k += len(ls)
        return tuple(per_primal)

    return (out, vjp_fn, aux) if has_aux else (out, vjp_fn)


def _vjp_eagerly(f: Callable, primals: tuple, has_aux: bool):
    """`sc.vjp` outside programs: the forward runs as one staged program, `vjp_fn`
    as another that recomputes it and pulls the cotangent back (values as JAX's)."""
    res = stage_eagerly(lambda *p: f(*p), primals, "vjp")
    out, aux = res if has_aux else (res, None)

    def vjp_fn(ct):
        # float0 cotangents (of integer outputs) hold no data: they stay on the host
        leaves, tree = tu.tree_flatten(ct, is_leaf=_is_leaf)
        f0 = {i: x for i, x in enumerate(leaves) if _is_float0(x)}
        dyn = [x for i, x in enumerate(leaves) if i not in f0]

        def pull(*a):
            it = iter(a[:len(dyn)])
            c = tu.tree_unflatten(tree, [f0[i] if i in f0 else next(it) for i in range(len(leaves))])
            return vjp(f, *a[len(dyn):], has_aux=has_aux)[1](c)

        return _float0_eagerly(pull, (*dyn, *primals), "vjp_fn")

    return (out, vjp_fn, aux) if has_aux else (out, vjp_fn)


def _zero_ct(t: ArrayType):
    """The cotangent of a primal no cotangent reached: zeros, or for an integer or bool primal
    JAX's host array of `float0` (it carries no data)."""
    if differentiable(t):
        return zeros_ct(t)
    return dt.traced_float0(t.shape) if current_trace() is not None else np.zeros(t.shape, dt.float0)


def _check_ct(ct, t: ArrayType) -> None:
    """A cotangent handed to `vjp_fn` must have the cotangent type of its output."""
    if not differentiable(t) and getattr(ct, "dtype", None) == dt.float0:
        if tuple(np.shape(ct)) != t.shape:
            raise_user_error(ShardcValueError(
                f"unexpected type for argument to VJP function: got float0{list(np.shape(ct))}, but expected "
                f"float0{list(t.shape)} because the corresponding output of the differentiated function had "
                f"type {t}"))
        return
    want = ct_spec(t)
    ct_t = lax.type_of(ct)
    if ct_t.memory_space is not t.memory_space:
        _memory_mismatch(ct_t, t)
    if (ct_t.shape, ct_t.dtype) != (t.shape, t.dtype) or (
            not t.mesh.empty and (tuple(ct_t.spec), ct_t.unreduced, ct_t.reduced) !=
            (tuple(t.spec), want.unreduced, want.reduced)):
        raise_user_error(ShardcValueError(
            f"unexpected type for argument to VJP function: got {ct_t}, but expected "
            f"{t.update(unreduced=want.unreduced, reduced=want.reduced, weak_type=False)} "
            f"because the corresponding output of the differentiated function had type {t}"))


def _memory_mismatch(ct_t: ArrayType, t: ArrayType) -> None:
    """JAX's check of a cotangent's type (its memory space included) against the output's."""
    raise_user_error(ShardcValueError(
        "unexpected JAX type (e.g. shape/dtype) for argument to VJP function: "
        f"got {ct_t.str_short(short_dtypes=False)}, but expected {t.str_short(short_dtypes=False)} "
        "because the corresponding output of the differentiated function had JAX type "
        f"{t.str_short(short_dtypes=False)}"))


def _seed(out: Tracer):
    t = out.aval
    if t.memory_space is not MemorySpace.Device:   # JAX's seed `_one(ans)` is in device memory
        _memory_mismatch(t.update(memory_space=MemorySpace.Device), t)
    spec = ct_spec(t)
    one = full(t.shape, 1, t.dtype, out_sharding=PartitionSpec(*t.spec) if not t.mesh.empty else None)
    if spec.unreduced or spec.reduced:
        one = reshard(one, spec)
    if t.vma:   # JAX's seed `_one(ans)` varies where the output does (inside shard_map)
        one = pcast(one, tuple(t.mesh.mesh_order(t.vma)), to="varying")
    if t.weak_type:   # JAX's `_one(ans)` keeps the output's weak type: the gradient of `2.0 * s` at 3.0 is weak
        one = bind(ew.convert_element_type, one, new_dtype=t.dtype, weak_type=True)
    return one


def value_and_grad(f: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False, holomorphic: bool = False,
                   allow_int: bool = False, reduce_axes: Sequence[Any] = ()):
    """`(f(*args), ∂f/∂args[argnums])` for scalar-valued `f`. With `allow_int=True` integer
    and bool arguments are allowed and get JAX's `float0` zeros as their gradient."""
    if reduce_axes:
        raise ShardcNotImplementedError("reduce_axes argument to grad is deprecated")
    single = isinstance(argnums, int)
    nums = (argnums,) if single else tuple(argnums)

    @functools.wraps(f)
    def wrapper(*args):
        return _value_and_grad_call(f, args, nums, single, has_aux, (holomorphic, allow_int),
                                    api="sc.value_and_grad")

    return wrapper


def _check_input_dtype(holomorphic: bool, allow_int: bool, t: ArrayType, name: str = "grad") -> None:
    """JAX's `_check_input_dtype_revderiv` (`grad`, `jacrev`)."""
    if holomorphic and not dt.is_complex(t.dtype):
        raise_user_error(ShardcTypeError(
            f"{name} with holomorphic=True requires inputs with complex dtype, but got {t.dtype.name}."))
    if not dt.is_inexact(t.dtype) and not allow_int:
        raise_user_error(ShardcTypeError(
            f"{name} requires real- or complex-valued inputs (input dtype that is a sub-dtype of np.inexact), "
            f"but got {t.dtype.name}. If you want to use Boolean- or integer-valued inputs, use vjp or set "
            "allow_int to True."))


def _check_output_dtype(holomorphic: bool, t: ArrayType, name: str = "grad") -> None:
    """JAX's `_check_output_dtype_revderiv`: complex outputs only with `holomorphic` (then only)."""
    if holomorphic:
        if not dt.is_complex(t.dtype):
            raise_user_error(ShardcTypeError(
                f"{name} with holomorphic=True requires outputs with complex dtype, but got {t.dtype.name}."))
    elif dt.is_complex(t.dtype):
        raise_user_error(ShardcTypeError(
            f"{name} requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got "
            f"{t.dtype.name}. For holomorphic differentiation, pass holomorphic=True. For differentiation of "
            "non-holomorphic functions involving complex outputs, use sc.vjp directly."))
    elif not dt.is_float(t.dtype):
        raise_user_error(ShardcTypeError(
            f"{name} requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got "
            f"{t.dtype.name}. For differentiation of functions with integer outputs, use sc.vjp directly."))


@api("sc.value_and_grad")
def _value_and_grad_call(f, args, nums, single, has_aux, flags=(False, False)):
    if current_trace() is None and not any(isinstance(a, Tracer) for a in tu.tree_leaves(args, is_leaf=_is_leaf)):
        return _float0_eagerly(lambda *xs: _value_and_grad_call(f, xs, nums, single, has_aux, flags), args,
                               name=f"grad_{getattr(f, '__name__', 'f')}")
    for n in nums:
        if not 0 <= n < len(args):
            raise_user_error(ShardcValueError(f"argnums {n} is out of range for {len(args)} arguments"))
    # differentiated arguments may be pytrees (a dict of parameters, a module): their leaves
    flat_args = [tu.tree_flatten(args[n], is_leaf=_is_leaf) for n in nums]
    diff = [leaf for leaves, _ in flat_args for leaf in leaves]
    for leaf in diff:
        _check_input_dtype(*flags, lax.type_of(_as_tangent(leaf)))

    def g(*ds):
        full_args, k = list(args), 0
        for n, (leaves, tree) in zip(nums, flat_args):
            full_args[n] = tu.tree_unflatten(tree, ds[k:k + len(leaves)])
            k += len(leaves)
        return f(*full_args)

    trace, start, xs, out, aux = _vjp_in_trace(g, diff, has_aux)
    if isinstance(out, Tracer) and (flags[0] or dt.is_complex(out.aval.dtype)):
        _check_output_dtype(flags[0], out.aval)
    if not isinstance(out, Tracer) or out.aval.shape != () or not differentiable(out.aval):
        t = out.aval if isinstance(out, Tracer) else type(out).__name__
        raise_user_error(ShardcValueError(
            f"grad requires a function returning a float scalar, got {t}"))
    cts = backward(trace, trace.eqns[start:], [x._var for x in xs], out._var, _seed(out))
    grads = [_weak_as(fit_ct(c, x.aval), x.aval.weak_type) if c is not None else _zero_ct(x.aval)
             for c, x in zip(cts, xs)]
    per_arg, k = [], 0
    for leaves, tree in flat_args:
        per_arg.append(tu.tree_unflatten(tree, grads[k:k + len(leaves)]))
        k += len(leaves)
    g_out = per_arg[0] if single else tuple(per_arg)
    return ((out, aux), g_out) if has_aux else (out, g_out)


def _is_leaf(x) -> bool:
    return isinstance(x, Tracer) or getattr(x, "_shardc_type", None) is not None


def _is_float0(x) -> bool:
    return isinstance(x, np.ndarray) and x.dtype == dt.float0


def _float0_eagerly(fn: Callable, args: tuple, name: str):
    """`stage_eagerly(fn, args)` where `fn`'s results may hold `float0` host arrays (gradients
    of integer arguments): those carry no data, so they are made on the host, not returned
    by the program."""
    holes: dict = {}

    def staged(*xs):
        leaves, tree = tu.tree_flatten(fn(*xs), is_leaf=_is_leaf)
        holes["tree"] = tree
        holes["f0"] = {i: x.shape for i, x in enumerate(leaves) if _is_float0(x)}
        return [x for i, x in enumerate(leaves) if i not in holes["f0"]]

    outs = iter(stage_eagerly(staged, args, name))
    leaves = [np.zeros(holes["f0"][i], dt.float0) if i in holes["f0"] else next(outs)
              for i in range(holes["tree"].num_leaves)]
    return tu.tree_unflatten(holes["tree"], leaves)


def grad(f: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False, holomorphic: bool = False,
         allow_int: bool = False, reduce_axes: Sequence[Any] = ()):
    """∂f/∂args[argnums] for scalar-valued `f`, with JAX's cotangent sharding types."""
    vg = value_and_grad(f, argnums, has_aux, holomorphic, allow_int, reduce_axes)

    @functools.wraps(f)
    def wrapper(*args):
        res, g = vg(*args)
        return (g, res[1]) if has_aux else g

    return wrapper


# --- forward mode ---------------------------------------------------------------------------------
# A JVP is the transpose of the VJP: the pullback `ct ↦ Jᵀct` is linear in `ct`, so reverse mode
# through it, seeded with the tangents, gives `J t`. The pullback's own primal values are dead
# (XLA drops them); what remains is the forward's linearization, with the collectives of its
# transpose-of-transpose (all_gather ↔ psum_scatter ↔ all_gather), as JAX's JVP rules give.


@api("sc.jvp")
def jvp(fun: Callable, primals, tangents, has_aux: bool = False):
    """`(fun(*primals), J·tangents)` (and `aux`): tangents have the primals' types."""
    _check_tangents(primals, tangents)
    leaves = tu.tree_leaves((tuple(primals), tuple(tangents)), is_leaf=_is_leaf)
    if current_trace() is None and not any(isinstance(a, Tracer) for a in leaves):
        n = len(primals)
        # float0 tangents (of integer primals) hold no data: they stay on the host
        t_leaves, t_tree = tu.tree_flatten(tuple(tangents), is_leaf=_is_leaf)
        f0 = {i: x for i, x in enumerate(t_leaves) if _is_float0(x)}

        def run(*a):
            it = iter(a[n:])
            ts = tu.tree_unflatten(t_tree, [f0[i] if i in f0 else next(it) for i in range(len(t_leaves))])
            return jvp(fun, a[:n], ts, has_aux=has_aux)

        dyn = [x for i, x in enumerate(t_leaves) if i not in f0]
        return _float0_eagerly(run, (*primals, *dyn), name=f"jvp_{getattr(fun, '__name__', 'f')}")
    with forward_api("jvp"):
        out, f_jvp, *aux = linearize(fun, *primals, has_aux=has_aux)
        return (out, f_jvp(*tangents), *aux)


@api("sc.linearize")
def linearize(fun: Callable, *primals, has_aux: bool = False):
    """`(fun(*primals), f_jvp)` (and `aux`): `f_jvp(*tangents)` is the JVP at `primals`, usable
    inside the same program or, outside one, as a staged program that recomputes the JVP."""
    if current_trace() is None:
        return _linearize_eagerly(fun, primals, has_aux)
    with linearizing():
        res = vjp(fun, *primals, has_aux=has_aux)
    out, pull = res[0], res[1]
    out_flat, out_tree = tu.tree_flatten(out, is_leaf=_is_leaf)

    def f_jvp(*tangents):
        _check_tangents(primals, tangents)
        _check_tangent_vma(primals, tangents)
        # placeholder output cotangents: the pullback is linear in them
        u = [bind(copy_p, zeros_ct(o.aval)) for o in out_flat]
        rec = current_trace()   # `trace`, or a body (a scan over tangents) inside it
        start = len(rec.eqns)
        with linearizing(), forward_pullback():
            cts = tu.tree_leaves(pull(tu.tree_unflatten(out_tree, u)), is_leaf=_is_leaf)
        # integer primals' (float0) tangents reach nothing; integer outputs get float0 tangents
        seeds = [(c._var, _as_tangent(t)) for c, t in zip(cts, tu.tree_leaves(tangents, is_leaf=_is_leaf))
                 if isinstance(c, Tracer) and differentiable(c.aval)]
        got = backward(rec, rec.eqns[start:], [x._var for x in u], [v for v, _ in seeds], [t for _, t in seeds])
        t_out = [fit_ct(g, x.aval) if g is not None else _zero_ct(x.aval) for g, x in zip(got, u)]
        t_out = [_weak_as(t, o.aval.weak_type) for t, o in zip(t_out, out_flat)]
        return tu.tree_unflatten(out_tree, t_out)

    return (out, f_jvp, res[2]) if has_aux else (out, f_jvp)


def _weak_as(t, weak: bool):
    """A tangent with JAX's weak type, its primal output's: JAX's tangents take their primals'
    weak types (`2.0 * s` at a Python scalar is weak whatever the tangent's type), and a cast to a
    strong dtype (`convert_element_type`, a write into a float32 reference) makes both strong."""
    if not isinstance(t, Tracer) or t.aval.weak_type == weak or not differentiable(t.aval):
        return t
    return bind(ew.convert_element_type, t, new_dtype=t.aval.dtype, weak_type=weak)


def _check_tangent_vma(primals, tangents) -> None:
    """JAX's `_lift_linearized`: a tangent must vary over the manual axes its primal varies over
    (inside shard_map), with JAX's `pcast` hints."""
    for p, t in zip(tu.tree_leaves(primals, is_leaf=_is_leaf), tu.tree_leaves(tangents, is_leaf=_is_leaf)):
        if _is_float0(t):   # an integer primal's tangent: no values, nothing varies
            continue
        pt, tt = lax.type_of(_as_tangent(p)), lax.type_of(_as_tangent(t))
        if pt.vma == tt.vma:
            continue
        hints = []
        if left := tt.mesh.mesh_order(tt.vma - pt.vma):
            hints.append(f"applying `sc.pcast(..., {tuple(left)}, to='varying')` to the primal value passed to "
                         "`sc.linearize`")
        if left := pt.mesh.mesh_order(pt.vma - tt.vma):
            hints.append(f"applying `sc.pcast(..., {tuple(left)}, to='varying')` to the tangent value passed to "
                         "the callable `f_jvp` returned by `sc.linearize`")
        raise_user_error(ShardcValueError(
            "linearized function called on tangent values inconsistent with the original primal values:\n"
            f"Got tangent aval {tt.str_short(short_dtypes=False)} for primal aval {pt.str_short(short_dtypes=False)} "
            f"but expected {pt.str_short(short_dtypes=False)}. \nThis might be fixed by:\n"
            + "\n".join(f"  * {h};" for h in hints)), [pt, tt])


def _linearize_eagerly(fun: Callable, primals: tuple, has_aux: bool):
    """`sc.linearize` outside programs, as `_vjp_eagerly`: the primal output from one staged
    program, each `f_jvp(*tangents)` from another that recomputes the JVP at `primals`."""
    res = stage_eagerly(lambda *p: fun(*p), primals, "linearize")
    out, aux = res if has_aux else (res, None)

    def f_jvp(*tangents):
        _check_tangents(primals, tangents)
        with forward_api("linearize"):
            return jvp(fun, tuple(primals), tuple(tangents), has_aux=has_aux)[1]

    return (out, f_jvp, aux) if has_aux else (out, f_jvp)


# --- Jacobians -------------------------------------------------------------------------------------
# One pullback (jacrev) or one linearization (jacfwd), applied to each basis vector by a scan over
# the basis (JAX vmaps it): the trace holds the rule once, whatever the size. Types as JAX's:
# jacrev keeps the inputs' shardings on the trailing dims, jacfwd the outputs' on the leading dims.


def jacrev(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False, holomorphic: bool = False,
           allow_int: bool = False):
    """Jacobian by reverse mode: shape `out.shape + arg.shape`, per output and argument leaf."""
    _no_int_jacobian("sc.jacrev", allow_int)
    return _jacobian(fun, argnums, has_aux, forward=False, api="sc.jacrev", holomorphic=holomorphic)


#: `jax.jacobian` is reverse mode
jacobian = jacrev


def _no_int_jacobian(api: str, allow_int: bool) -> None:
    """Integer inputs' Jacobians (JAX's float0 blocks) are refused."""
    if allow_int:
        raise ShardcNotImplementedError(
            f"{api}(allow_int=True): integer inputs have float0 cotangents in JAX, which shardc does not have")


def jacfwd(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False, holomorphic: bool = False,
           allow_int: bool = False):
    """Jacobian by forward mode: shape `out.shape + arg.shape`, per output and argument leaf."""
    _no_int_jacobian("sc.jacfwd", allow_int)
    return _jacobian(fun, argnums, has_aux, forward=True, api="sc.jacfwd", holomorphic=holomorphic)


def hessian(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False, holomorphic: bool = False):
    """`jacfwd(jacrev(fun))`, as JAX."""
    return jacfwd(jacrev(fun, argnums, has_aux, holomorphic), argnums, has_aux, holomorphic)


def _jacobian(fun, argnums, has_aux: bool, forward: bool, api: str, holomorphic: bool = False):
    single = isinstance(argnums, int)
    nums = (argnums,) if single else tuple(argnums)

    @functools.wraps(fun)
    def wrapper(*args):
        return _jacobian_call(fun, args, nums, single, has_aux, forward, holomorphic, api=api)

    return wrapper


def _check_jac_input(forward: bool, holomorphic: bool, t: ArrayType) -> None:
    """JAX's `_check_input_dtype_jacfwd` / `_check_input_dtype_revderiv("jacrev")`."""
    if not forward:
        _check_input_dtype(holomorphic, False, t, "jacrev")
    elif holomorphic and not dt.is_complex(t.dtype):
        raise_user_error(ShardcTypeError(
            f"jacfwd with holomorphic=True requires inputs with complex dtype, but got {t.dtype.name}."))
    elif not holomorphic and not dt.is_float(t.dtype):
        raise_user_error(ShardcTypeError(
            f"jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got "
            f"{t.dtype.name}. For holomorphic differentiation, pass holomorphic=True. For differentiation of "
            "non-holomorphic functions involving complex inputs or integer inputs, use sc.jvp directly."))


def _check_jac_output(forward: bool, holomorphic: bool, t: ArrayType) -> None:
    """JAX's `_check_output_dtype_jacfwd` / `_check_output_dtype_revderiv("jacrev")`."""
    if not forward:
        _check_output_dtype(holomorphic, t, "jacrev")
    elif holomorphic and not dt.is_complex(t.dtype):
        raise_user_error(ShardcTypeError(
            f"jacfwd with holomorphic=True requires outputs with complex dtype, but got {t.dtype.name}."))


@api("sc.jacobian")
def _jacobian_call(fun, args, nums, single, has_aux, forward, holomorphic=False):
    if current_trace() is None and not any(isinstance(a, Tracer) for a in tu.tree_leaves(args, is_leaf=_is_leaf)):
        return stage_eagerly(lambda *xs: _jacobian_call(fun, xs, nums, single, has_aux, forward, holomorphic), args,
                             name=f"jac_{getattr(fun, '__name__', 'f')}")
    for n in nums:
        if not 0 <= n < len(args):
            raise_user_error(ShardcValueError(f"argnums {n} is out of range for {len(args)} arguments"))
    flat, trees = [], []
    for n in nums:
        leaves, tree = tu.tree_flatten(args[n], is_leaf=_is_leaf)
        flat.extend(_as_tangent(x) for x in leaves)
        trees.append((tree, len(leaves)))
    for x in flat:
        _check_jac_input(forward, holomorphic, lax.type_of(x))

    def g(*leaves):
        full, k = list(args), 0
        for n, (tree, m) in zip(nums, trees):
            full[n] = tu.tree_unflatten(tree, list(leaves[k:k + m]))
            k += m
        return fun(*full)

    with forward_api("jacfwd") if forward else nullcontext():
        out, lin, *aux = (linearize if forward else vjp)(g, *flat, has_aux=has_aux)
        out_flat, out_tree = tu.tree_flatten(out, is_leaf=_is_leaf)
        for o in out_flat:
            _check_jac_output(forward, holomorphic, lax.type_of(o))
        blocks = (_jac_forward(lin, flat, out_flat) if forward else _jac_reverse(lin, flat, out_flat, out_tree))
    per_out = [_per_arg(row, trees, single) for row in blocks]
    jac = tu.tree_unflatten(out_tree, per_out)
    return (jac, aux[0]) if has_aux else jac


def _per_arg(row: list, trees, single: bool):
    parts, k = [], 0
    for tree, m in trees:
        parts.append(tu.tree_unflatten(tree, row[k:k + m]))
        k += m
    return parts[0] if single else tuple(parts)


def _basis(t: ArrayType):
    """The `n = t.size` unit vectors of type `t`, stacked on a new leading (replicated) dim."""
    n = math.prod(t.shape)
    i = arange(n, dtype=np.int32)
    eye = lax.convert_element_type(lax.eq(lax.broadcast_in_dim(i, (n, n), (0,)),
                                          lax.broadcast_in_dim(i, (n, n), (1,))), t.dtype)
    e = lax.reshape(eye, (n, *t.shape))
    if t.mesh.has_explicit and any(x is not None for x in t.spec):
        e = reshard(e, PartitionSpec(None, *t.spec))
    return e


def _jac_reverse(pull, flat, out_flat, out_tree) -> list[list]:
    """Row k: the Jacobian of output leaf k w.r.t. every argument leaf (pullback of each basis vector)."""
    rows = []
    for k, o in enumerate(out_flat):
        t = lax.type_of(o)
        zeros = [zeros_ct(lax.type_of(q)) for q in out_flat]

        def one(_, e, k=k, zeros=zeros):
            cts = list(zeros)
            cts[k] = fit_ct(e, t)
            return None, tuple(tu.tree_leaves(pull(tu.tree_unflatten(out_tree, cts)), is_leaf=_is_leaf))

        _, stacked = scan(one, None, _basis(t.update(unreduced=frozenset(), reduced=frozenset())))
        rows.append([lax.reshape(j, (*t.shape, *lax.type_of(x).shape)) for j, x in zip(stacked, flat)])
    return rows


def _jac_forward(f_jvp, flat, out_flat) -> list[list]:
    """Column i: the JVP of each argument leaf's basis vectors; then output dims first."""
    cols = []
    for i, x in enumerate(flat):
        t = lax.type_of(x)

        def one(_, e, i=i):
            tangents = [zeros_ct(lax.type_of(q)) if j != i else e for j, q in enumerate(flat)]
            return None, tuple(tu.tree_leaves(f_jvp(*tangents), is_leaf=_is_leaf))

        _, stacked = scan(one, None, _basis(t))
        cols.append([_out_first(j, t.shape) for j in stacked])
    return [[cols[i][k] for i in range(len(flat))] for k in range(len(out_flat))]


def _out_first(j, in_shape: tuple):
    """(n_in, *out) stacked JVPs → (*out, *in)."""
    out_shape = lax.type_of(j).shape[1:]
    r = lax.reshape(j, (*in_shape, *out_shape))
    k = len(in_shape)
    return lax.transpose(r, (*range(k, k + len(out_shape)), *range(k)))


def _as_tangent(t):
    return t if isinstance(t, Tracer) or getattr(t, "_shardc_type", None) is not None else asarray(t)


def _check_tangents(primals, tangents) -> None:
    """JAX's checks of `jvp`'s arguments: tuples, one structure, equal shapes and dtypes."""
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise_user_error(ShardcTypeError(
            "primal and tangent arguments to sc.jvp must be tuples or lists; found "
            f"{type(primals).__name__} and {type(tangents).__name__}."))
    p_flat, p_tree = tu.tree_flatten(primals, is_leaf=_is_leaf)
    t_flat, t_tree = tu.tree_flatten(tangents, is_leaf=_is_leaf)
    if p_tree != t_tree:
        raise_user_error(ShardcTypeError(
            "primal and tangent arguments to sc.jvp must have the same tree structure; primals have "
            f"tree structure {p_tree} whereas tangents have tree structure {t_tree}."))
    for p, t in zip(p_flat, t_flat):
        pt = lax.type_of(_as_tangent(p))
        tt = (pt.update(shape=tuple(np.shape(t))) if _is_float0(t) else lax.type_of(_as_tangent(t)))
        want = pt.dtype if differentiable(pt) else dt.float0
        got = dt.float0 if _is_float0(t) else tt.dtype
        if got != want:
            raise_user_error(ShardcTypeError(
                "primal and tangent arguments to sc.jvp do not match; dtypes must be equal, or in case "
                "of int/bool primal dtype the tangent dtype must be float0.Got primal dtype "
                f"{pt.dtype} and so expected tangent dtype {want}, but got tangent dtype {got} "
                "instead."))
        if pt.shape != tt.shape:
            raise_user_error(ShardcValueError(
                "jvp called with different primal and tangent shapes;Got primal shape "
                f"{pt.shape} and tangent shape as {tt.shape}"))


def eval_program(prog, args: Sequence[Any]) -> list:
    """Re-apply a program's equations to `args` in the current trace."""
    env: dict[int, Any] = {v.id: a for v, a in zip(prog.in_vars, args)}

    def read(a):
        return env[a.id] if isinstance(a, Var) else a.value

    for e in prog.eqns:
        with at_source(e.loc, e.api) if e.loc is not None else nullcontext():   # recomputed at its own line
            res = bind(e.prim, *[read(a) for a in e.inputs], **e.params)
        res = res if e.prim.multiple_results else [res]
        for v, r in zip(e.outputs, res):
            env[v.id] = r
    return [read(o) for o in prog.outputs]


#: What VJP rules build with (`transforms/ad.py`): the promotion-free `lax`
#: functions, plus this driver's helpers for rules of nested primitives.
KIT = SimpleNamespace(**{name: getattr(lax, name) for name in lax.WRAPPERS},
                      type_of=lax.type_of, backward=backward, eval_program=eval_program, fit_ct=fit_ct,
                      zeros_ct=zeros_ct, cond=cond, scan=scan, while_loop=while_loop, jvp=jvp,
                      copy=lambda x: bind(copy_p, x), shard_map=shard_map)
