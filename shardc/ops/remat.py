"""`sc.checkpoint` / `sc.remat`, `checkpoint_name` and `checkpoint_policies`, as JAX's
(docs/rules.md §3.5).

`checkpoint(f)` traces `f` into one `checkpoint` equation (the primitive is in
`primitives/remat.py`). Its backward pass recomputes what the policy does not
let the forward save: by default everything but the inputs. Policies are
JAX's, written against shardc's primitives: a policy is called as
`policy(prim, *input_types, **params)` for each equation of the body and
returns whether its results may be saved.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, Callable, Sequence

import jax.tree_util as tu

from ..core import Tracer, api, bind, current_trace, raise_user_error
from ..errors import ShardcTypeError, ShardcValueError
from ..ir import Eqn, Program, Var
from ..primitives import remat as rp
from ..primitives import sharding_ops as so
from ..sharding import mem_kind_to_space
from ..transforms.ad import keeps_residuals
from ._util import is_array, type_of
from .control_flow import _consts, _operands, _trace_fn
from .creation import asarray

__all__ = ["checkpoint", "remat", "checkpoint_name", "checkpoint_policies"]


def _is_leaf(x) -> bool:
    return isinstance(x, Tracer) or getattr(x, "_shardc_type", None) is not None


# --- policies -------------------------------------------------------------------------------------
def everything_saveable(*_, **__) -> bool:
    """Save every value (no recomputation: as if there were no checkpoint)."""
    return True


def nothing_saveable(*_, **__) -> bool:
    """Save nothing but the inputs (the default): recompute the whole body."""
    return False


@dataclass(frozen=True)
class DotsSaveable:
    """Save the results of matmuls (`dot_general`), optionally only those with no batch dims."""
    only_if_no_batch_dims: bool

    def __call__(self, prim, *args, **params) -> bool:
        if prim.name != "dot_general":
            return False
        (_, _), (lb, rb) = params["dimension_numbers"]
        return not (self.only_if_no_batch_dims and (lb or rb))


@dataclass(frozen=True)
class SaveOnlyTheseNames:
    """Save only values named (`checkpoint_name`) with one of `names`."""
    names: frozenset[str]

    def __call__(self, prim, *_, **params) -> bool:
        return prim.name == "name" and params["name"] in self.names


@dataclass(frozen=True)
class SaveAnyNamesButThese:
    """Save named values except those named with one of `names`."""
    names: frozenset[str]

    def __call__(self, prim, *_, **params) -> bool:
        return prim.name == "name" and params["name"] not in self.names


def save_only_these_names(*names: str) -> SaveOnlyTheseNames:
    return SaveOnlyTheseNames(frozenset(names))


def save_any_names_but_these(*names: str) -> SaveAnyNamesButThese:
    return SaveAnyNamesButThese(frozenset(names))


def save_anything_except_these_names(*names: str) -> Callable[..., bool]:
    """As in JAX 0.10.2, this saves everything (the names are not consulted)."""
    return everything_saveable


def save_from_both_policies(policy_1: Callable, policy_2: Callable) -> Callable[..., bool]:
    """A value is saveable if either policy says so."""
    def policy(prim, *args, **params):
        out1, out2 = policy_1(prim, *args, **params), policy_2(prim, *args, **params)
        if not (isinstance(out1, bool) and isinstance(out2, bool)):
            raise ShardcValueError(
                f"The return value of the policies should be a boolean. Got: {out1} and {out2}. Please "
                "write a custom policy function directly, rather than using this helper function.")
        return out1 or out2
    return policy


@dataclass(frozen=True)
class Offloadable:
    """JAX's `pe.Offloadable`: save the value, moved from memory `src` to memory `dst`
    (memory kinds: 'device', 'pinned_host') until the backward pass brings it back."""
    src: str
    dst: str


def offload_dot_with_no_batch_dims(offload_src: str, offload_dst: str) -> Callable[..., Any]:
    """Save the results of matmuls with no batch dims in memory `offload_dst` (JAX's)."""
    def policy(prim, *_, **params):
        if prim.name == "dot_general":
            (_, _), (lb, rb) = params["dimension_numbers"]
            if not lb and not rb:
                return Offloadable(offload_src, offload_dst)
        return False
    return policy


def save_and_offload_only_these_names(*, names_which_can_be_saved, names_which_can_be_offloaded,
                                      offload_src: str, offload_dst: str) -> Callable[..., Any]:
    """`save_only_these_names`, plus named values kept in memory `offload_dst` (JAX's)."""
    saved, offloaded = set(names_which_can_be_saved), set(names_which_can_be_offloaded)
    if saved & offloaded:
        raise ShardcValueError(
            "The names should be exclusive and should not intersect in `names_which_can_be_saved` and "
            f"`names_which_can_be_offloaded`. Got names_which_can_be_saved={saved}, "
            f"names_which_can_be_offloaded={offloaded} and the intersection={saved & offloaded}")

    def policy(prim, *_, **params):
        if prim.name == "name" and params["name"] in saved:
            return True
        if prim.name == "name" and params["name"] in offloaded:
            return Offloadable(offload_src, offload_dst)
        return False
    return policy


checkpoint_policies = SimpleNamespace(
    everything_saveable=everything_saveable, nothing_saveable=nothing_saveable,
    dots_saveable=DotsSaveable(False), checkpoint_dots=DotsSaveable(False),
    dots_with_no_batch_dims_saveable=DotsSaveable(True), checkpoint_dots_with_no_batch_dims=DotsSaveable(True),
    offload_dot_with_no_batch_dims=offload_dot_with_no_batch_dims,
    save_and_offload_only_these_names=save_and_offload_only_these_names,
    save_anything_except_these_names=save_anything_except_these_names,
    save_any_names_but_these=save_any_names_but_these, save_only_these_names=save_only_these_names,
    save_from_both_policies=save_from_both_policies)


# --- checkpoint_name --------------------------------------------------------------------------------
def checkpoint_name(x, name: str):
    """`x` unchanged (a pytree too), its values tagged `name` for remat policies."""
    def tag(leaf):
        if current_trace() is None and not isinstance(leaf, Tracer):
            return leaf   # eagerly the identity, as JAX's impl
        return bind(rp.name, leaf if is_array(leaf) else asarray(leaf), name=name)
    return tu.tree_map(tag, x, is_leaf=_is_leaf)


# --- checkpoint -------------------------------------------------------------------------------------
def checkpoint(fun: Callable, *, prevent_cse: bool = True, policy: Callable | None = None,
               static_argnums: int | Sequence[int] = ()) -> Callable:
    """`fun` whose intermediate values are recomputed in the backward pass
    instead of kept (except those `policy` saves)."""
    statics = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)

    @functools.wraps(fun)
    def wrapper(*args, **kwargs):
        return _checkpoint_call(fun, args, kwargs, bool(prevent_cse), policy, statics, api="sc.checkpoint")

    return wrapper


remat = checkpoint


@api("sc.checkpoint")
def _checkpoint_call(fun, args: tuple, kwargs: dict, prevent_cse: bool, policy, statics: tuple[int, ...]):
    statics = tuple(i % len(args) if -len(args) <= i < len(args) else _bad_static(i, len(args)) for i in statics)
    if current_trace() is None and not any(isinstance(x, Tracer) for x in tu.tree_leaves((args, kwargs),
                                                                                        is_leaf=_is_leaf)):
        return fun(*args, **kwargs)   # eagerly: nothing is differentiated, just run it
    dyn = [i for i in range(len(args)) if i not in statics]
    flat, tree = tu.tree_flatten(([args[i] for i in dyn], kwargs), is_leaf=_is_leaf)
    flat = _operands(flat)

    def run(*leaves):
        d, kw = tu.tree_unflatten(tree, list(leaves))
        full = list(args)
        for i, v in zip(dyn, d):
            full[i] = v
        return fun(*full, **kw)

    body = _trace_fn(run, [type_of(a) for a in flat], list, getattr(fun, "__name__", "checkpoint"))
    consts = _consts(body)
    prog = body.with_consts(consts)
    saved, kept, moves = _saved_vars(prog, policy) if keeps_residuals() else ([], [], [])
    n = len(prog.outputs)
    prog = Program(prog.name, prog.in_vars, [*prog.eqns, *moves], [*prog.outputs, *kept], prog.mesh)
    outs = bind(rp.checkpoint, *flat, *consts, body=prog, prevent_cse=prevent_cse, policy=policy, num_out=n,
                saved=tuple(v.id for v in saved), out_types=(*body.out_types, *(v.type for v in kept)))
    return tu.tree_unflatten(body.tree, list(outs[:n]))


def _bad_static(i: int, n: int) -> Any:
    raise_user_error(ShardcValueError(f"static_argnums {i} is out of range for {n} arguments"))


def _saved_vars(prog: Program, policy) -> tuple[list, list, list]:
    """The body's values the policy lets the forward pass keep (top-level equations), the
    values kept for them (an offloaded one moved to its policy's memory, as JAX's
    `device_put` to `offload_dst`), and the equations that move them."""
    if policy is None:
        return [], [], []
    saved, kept, moves = [], [], []
    for e in prog.eqns:
        ok = policy(e.prim, *[a.type for a in e.inputs], **e.params)
        if isinstance(ok, Offloadable):
            for v in e.outputs:
                w = Var(v.type.update(memory_space=mem_kind_to_space(ok.dst)))
                moves.append(Eqn(so.device_put_p, [v], [w], {"space": w.type.memory_space}, e.loc, e.api))
                saved.append(v)
                kept.append(w)
            continue
        if not isinstance(ok, bool):
            raise_user_error(ShardcTypeError(
                f"a checkpoint policy must return a bool for each equation, got {ok!r} for {e.prim.name}"))
        if ok:
            saved.extend(e.outputs)
            kept.extend(e.outputs)
    return saved, kept, moves
