"""`shardc.custom_derivatives`, as `jax.custom_derivatives`: functions with user-defined
derivatives. `custom_jvp` / `custom_vjp` are `shardc/ops/custom.py`'s; this module adds what JAX
builds on them:

- `custom_gradient(fun)`: `fun` returns `(out, vjp_fn)`; a `custom_vjp` whose `fwd` traces
  `vjp_fn` on the output's cotangent types into a nested program, the values it closes over
  (computed by `fun`) being the residuals, and whose `bwd` replays that program (JAX's
  `custom_gradient` traces the rule to a jaxpr the same way).
- `closure_convert(fun, *example_args)`: `fun` traced on the examples' types; the float values
  of enclosing programs it closes over (those a transformation could differentiate, JAX's
  `_maybe_perturbed`) are hoisted to extra trailing arguments, returned beside the converted
  function. Outside any program nothing can be hoisted (JAX's consts are then concrete).
- `linear_call(callee, transpose, residual_args, linear_args)`: `callee(res, lin)`, whose
  reverse-mode derivative with respect to `lin` is `transpose(res, ct)` (residuals get none).
- `zero_from_primal` / `SymbolicZero`: zero tangents of a primal pytree; a `custom_jvp` rule
  defined with `symbolic_zeros=True` gets `SymbolicZero`s (`ops/custom.py`).

Left out, as JAX internals: the primitives (`custom_jvp_call_p`, `custom_vjp_call_p`,
`remat_opt_p`) and the `optimize_remat` / `symbolic_zeros` helpers `CustomVJPPrimal`,
`custom_vjp_primal_tree_values` (`custom_vjp(symbolic_zeros=True)` is not built).
"""
from __future__ import annotations

from typing import Any, Callable

import jax.tree_util as tu
import numpy as np

from . import dtypes as dt
from .autodiff import eval_program
from .core import Tracer, current_trace, raise_user_error
from .errors import ShardcTypeError
from .ops.control_flow import _consts, _operands, _trace_fn
from .ops.custom import SymbolicZero, _ct_type, _type, _zeros, custom_jvp, custom_vjp
from .transforms.ad import differentiable, is_linearizing

__all__ = ["custom_jvp", "custom_vjp", "custom_gradient", "closure_convert", "linear_call", "SymbolicZero",
           "zero_from_primal"]


def _is_leaf(x) -> bool:
    return isinstance(x, Tracer) or getattr(x, "_shardc_type", None) is not None


# --- custom_gradient ---------------------------------------------------------------------------
@tu.register_pytree_node_class
class _Rule:
    """`custom_gradient`'s residuals: the traced `vjp_fn` (static) and the values it closed over."""

    def __init__(self, prog, in_tree, out_tree, consts):
        self.prog, self.in_tree, self.out_tree, self.consts = prog, in_tree, out_tree, list(consts)

    def tree_flatten(self):
        return self.consts, (self.prog, self.in_tree, self.out_tree)

    @classmethod
    def tree_unflatten(cls, aux, consts):
        return cls(*aux, consts)


def custom_gradient(fun: Callable) -> custom_vjp:
    """`fun(*args) -> (out, vjp_fn)` with `vjp_fn(ct_out) -> ct_args` (a tuple, or one
    cotangent for a function of one argument): a function whose gradient is `vjp_fn`'s."""

    @custom_vjp
    def wrapped_fun(*args, **kwargs):
        ans, _ = fun(*args, **kwargs)
        return ans

    def fwd(*args, **kwargs):
        ans, rule = fun(*args, **kwargs)
        ans_flat, out_tree = tu.tree_flatten((ans,), is_leaf=_is_leaf)
        ans_flat = _operands(ans_flat)
        trees: dict[str, Any] = {}

        def rule_flat(*cts):
            # what the rule closes over (values `fun` computed) are the residuals: differentiated
            # again (grad of grad), they take the outer cotangents back through `fun`
            res = rule(*tu.tree_unflatten(out_tree, list(cts)))
            flat, trees["in"] = tu.tree_flatten(res, is_leaf=_is_leaf)
            return _operands(flat)

        body = _trace_fn(rule_flat, [_ct_type(_type(a)) for a in ans_flat], list, "custom_gradient_rule")
        consts = _consts(body)
        return ans, _Rule(body.with_consts(consts), trees["in"], out_tree, consts)

    def bwd(res: _Rule, cts):
        cts_flat, out_tree = tu.tree_flatten((cts,), is_leaf=_is_leaf)
        if out_tree != res.out_tree:
            raise_user_error(ShardcTypeError(f"{res.out_tree}\n!=\n{out_tree}"))
        out = eval_program(res.prog, [*_operands(cts_flat), *res.consts])
        cts_out = tu.tree_unflatten(res.in_tree, out)
        return (cts_out,) if tu.treedef_is_leaf(res.in_tree) else cts_out

    wrapped_fun.defvjp(fwd, bwd)
    return wrapped_fun


# --- closure_convert ---------------------------------------------------------------------------
def closure_convert(fun: Callable, *example_args) -> tuple[Callable, list]:
    """`(converted_fun, consts)`: `converted_fun(*args, *consts)` computes `fun(*args)` with the
    traced float values `fun` closes over passed explicitly (for `custom_vjp` / `custom_jvp`
    rules, which refuse closed-over values that are differentiated)."""
    flat, in_tree = tu.tree_flatten(example_args, is_leaf=_is_leaf)
    if current_trace() is None:
        # no enclosing program: whatever `fun` closes over is a concrete value
        return _EagerConverted(fun, in_tree), []
    types = [_type(a) for a in flat]
    body = _trace_fn(lambda *xs: fun(*tu.tree_unflatten(in_tree, list(xs))), types, list, "closure_convert")
    consts = _consts(body)
    prog = body.with_consts(consts)
    hoist = [differentiable(c.aval) for c in consts]
    hoisted = [c for c, h in zip(consts, hoist) if h]
    kept = [c for c, h in zip(consts, hoist) if not h]

    def converted_fun(*args_hconsts):
        n = len(args_hconsts) - len(hoisted)
        args, hs = args_hconsts[:n], list(args_hconsts[n:])
        leaves = _check_tree(in_tree, args)
        k, h = iter(kept), iter(hs)
        merged = [next(h) if m else next(k) for m in hoist]
        out = eval_program(prog, [*_operands(leaves), *merged])
        return tu.tree_unflatten(body.tree, out)

    return converted_fun, hoisted


class _EagerConverted:
    """`closure_convert` outside programs: `fun` itself (after JAX's structure check), equal and
    hashing alike for the same `fun` and argument structure, as JAX's cached converted functions
    are, so that a `jit` taking it as a static argument (`odeint`'s) finds its program again
    instead of tracing and compiling on every call."""

    __slots__ = ("fun", "in_tree")

    def __init__(self, fun: Callable, in_tree):
        self.fun, self.in_tree = fun, in_tree

    def __call__(self, *args):
        _check_tree(self.in_tree, args)
        return self.fun(*args)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _EagerConverted) and self.fun is other.fun and self.in_tree == other.in_tree

    def __hash__(self) -> int:
        return hash((id(self.fun), self.in_tree))

    @property
    def __name__(self) -> str:
        return getattr(self.fun, "__name__", "converted_fun")


def _check_tree(in_tree, args) -> list:
    leaves, tree = tu.tree_flatten(tuple(args), is_leaf=_is_leaf)
    if tree != in_tree:
        raise_user_error(ShardcTypeError(
            "The inputs to the closure produced by closure_convert must have the same Pytree structure as "
            f"the example arguments passed when closure_convert was called. Expected {in_tree}, but got "
            f"{tree}"))
    return leaves


# --- linear_call -------------------------------------------------------------------------------
def linear_call(callee: Callable, transpose: Callable, residual_args, linear_args):
    """`callee(residual_args, linear_args)`, linear in `linear_args`, whose transpose (the
    reverse-mode derivative with respect to `linear_args`) is `transpose(residual_args, ct)`."""

    if is_linearizing():
        # forward mode: JAX's JVP of linear_call is `callee` applied to the linear tangents
        @custom_jvp
        def call_fwd(res, lin):
            return callee(res, lin)

        def jvp(primals, tangents):
            res, lin = primals
            return callee(res, lin), callee(res, tangents[1])

        call_fwd.defjvp(jvp)
        return call_fwd(residual_args, linear_args)

    @custom_vjp
    def call(res, lin):
        return callee(res, lin)

    def fwd(res, lin):
        return callee(res, lin), res

    def bwd(res, ct):
        lin_ct = transpose(res, ct)
        lin_tree = tu.tree_structure(linear_args, is_leaf=_is_leaf)
        got = tu.tree_structure(lin_ct, is_leaf=_is_leaf)
        if got != lin_tree:
            raise_user_error(ShardcTypeError(
                "transpose output pytree structure must match that of linear inputs, got output structure "
                f"{got} and input structure {lin_tree}."))
        return None, lin_ct

    call.defvjp(fwd, bwd)
    call.forward_ok = True      # JAX's linear_call has a JVP: callee applied to the tangents
    return call(residual_args, linear_args)


# --- zeros -------------------------------------------------------------------------------------
def zero_from_primal(val, symbolic_zeros: bool = False):
    """Zero tangents with `val`'s structure and types (symbolic ones with `symbolic_zeros=True`)."""
    def one(x):
        t = _ct_type(_type(x))
        if not differentiable(t):   # integer and bool primals: float0 tangents
            return np.zeros(t.shape, dt.float0)
        return SymbolicZero(t) if symbolic_zeros else _zeros(t)
    return tu.tree_map(one, val, is_leaf=_is_leaf)
