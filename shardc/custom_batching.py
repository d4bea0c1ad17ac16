"""`shardc.custom_batching`, as `jax.custom_batching`: functions with a user-defined `vmap` rule.

`custom_vmap(fun)` with `def_vmap(rule)`: inside a program the call is one `custom_vmap_call`
equation (`primitives/custom.py`) holding `fun` traced as a nested program (inlined when
lowered, so unbatched its values are `fun`'s); `sc.vmap`'s batching rule for it calls
`rule(axis_size, in_batched, *args)` on the batched arguments (batch dims moved to the front,
unbatched ones as they are), which returns `(out, out_batched)`. Trees are checked with JAX's
messages. As in JAX, reverse mode through an unbatched `custom_vmap` call fails (vmap it first,
or wrap it in a `custom_vjp`). `sequential_vmap(f)` is the `custom_vmap` whose rule maps `f`
over the batch with `lax.map` (a scan), the unbatched arguments closed over.

`sc.jvp` of an unbatched call is the JVP of `fun` (JAX's `jvp_jaxpr(call)`); `sc.linearize`
and `sc.grad` of it fail with JAX's ValueError. Not built: the JVP batched by the JVP of the
rule (vmap of jvp, jacfwd), which raises NotImplementedError (jvp of vmap works).
"""
from __future__ import annotations

import functools
from typing import Any, Callable

import jax.tree_util as tu

from .core import Tracer, api, bind, current_trace, raise_user_error
from .errors import ShardcAttributeError, ShardcValueError
from .ops.control_flow import _consts, _operands, _trace_fn
from .ops.control_flow import map as lax_map
from .ops.custom import _resolve_kwargs
from .primitives.custom import custom_vmap_call

__all__ = ["custom_vmap", "sequential_vmap"]


def _is_leaf(x) -> bool:
    return isinstance(x, Tracer) or getattr(x, "_shardc_type", None) is not None


def _name(f) -> str:
    return getattr(f, "__name__", "<unnamed rule>")


class custom_vmap:
    """A function whose batching under `vmap` is given by `def_vmap(rule)`:
    `rule(axis_size, in_batched, *args) -> (out, out_batched)`, `in_batched` a list (one
    pytree of bools per argument), `out_batched` a pytree of bools shaped like `out`."""

    def __init__(self, fun: Callable[..., Any]):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.vmap_rule: Callable | None = None

    def def_vmap(self, vmap_rule: Callable) -> Callable:
        """Set the vmap rule; returns it unchanged (usable as a decorator)."""
        self.vmap_rule = vmap_rule
        return vmap_rule

    def __get__(self, instance, owner=None):
        return self if instance is None else functools.partial(self, instance)

    def __call__(self, *args, **kwargs):
        args = _resolve_kwargs(self.fun, args, kwargs, "custom_vmap")
        if not self.vmap_rule:
            raise ShardcAttributeError(
                f"No batching rule defined for custom_vmap function {_name(self.fun)} using def_vmap.")
        return _call(self, args)


@api("sc.custom_vmap")
def _call(cv: custom_vmap, args: tuple):
    if current_trace() is None:
        return cv.fun(*args)     # JAX's impl: the function itself
    flat, in_tree = tu.tree_flatten(args, is_leaf=_is_leaf)
    flat = _operands(flat)
    body = _trace_fn(lambda *ls: cv.fun(*tu.tree_unflatten(in_tree, list(ls))), [x.aval if isinstance(
        x, Tracer) else x._shardc_type for x in flat], list, "custom_vmap")
    consts = _consts(body)
    out_tree = body.tree
    rule = functools.partial(_rule_flat, cv.vmap_rule, in_tree, out_tree)
    outs = bind(custom_vmap_call, *flat, *consts, fun=body.with_consts(consts), rule=rule,
                num_consts=len(consts), out_types=tuple(body.out_types), name=_name(cv.fun))
    return tu.tree_unflatten(out_tree, list(outs))


def _rule_flat(rule: Callable, in_tree, out_tree, axis_size: int, flat_batched: list, flat_args: list):
    """The user's rule on pytrees; its outputs and their batched flags, flat and checked."""
    in_batched = tu.tree_unflatten(in_tree, flat_batched)
    args = tu.tree_unflatten(in_tree, flat_args)
    res = rule(axis_size, list(in_batched), *args)
    if not isinstance(res, (tuple, list)) or len(res) != 2:
        raise_user_error(ShardcValueError(
            f"custom vmap rule ({_name(rule)}) must return a pair (output, output batching spec), got {res}"))
    out, out_batched = res
    flat_out, tree1 = tu.tree_flatten(out, is_leaf=_is_leaf)
    flat_b, tree2 = tu.tree_flatten(out_batched)
    if tree1 != tree2:
        raise_user_error(ShardcValueError(
            "structure of output value and output batching specification returned by custom vmap rule "
            f"({_name(rule)}) do not match.\nOutput values: {tree1}\nBatching spec: {tree2}"))
    if tree1 != out_tree:
        raise_user_error(ShardcValueError(
            f"structure of output returned by custom vmap rule ({_name(rule)}) does not match that of "
            f"original custom-vmapped function.\nOriginal output: {out_tree}\nRule output: {tree1}"))
    return _operands(flat_out), [bool(b) for b in flat_b]


def _tree_split(mask, tree):
    lhs = tu.tree_map(lambda m, x: x if m else None, mask, tree)
    rhs = tu.tree_map(lambda m, x: None if m else x, mask, tree)
    return lhs, rhs


def _tree_merge(mask, lhs, rhs):
    return tu.tree_map(lambda m, x_l, x_r: x_l if m else x_r, mask, lhs, rhs)


def sequential_vmap(f: Callable) -> custom_vmap:
    """A `custom_vmap` whose rule calls `f` on each example in turn (`lax.map`): for functions
    that do not batch natively (a callback, say)."""
    f = custom_vmap(f)

    @f.def_vmap
    def rule(axis_size, in_batched, *args):
        del axis_size
        mapped_args, bcast_args = _tree_split(in_batched, list(args))

        def to_map(mapped):
            return f(*_tree_merge(in_batched, mapped, bcast_args))

        out = lax_map(to_map, mapped_args)
        return out, tu.tree_map(lambda _: True, out)

    return f
