"""`lax.custom_linear_solve` and `lax.custom_root`: a linear solve and a root finder with
implicit derivatives (JAX's `jax/_src/lax/control_flow/solves.py`; `custom_root` below).

`x = solve(matvec, b)` runs the user's solver; differentiation never looks inside it.
JAX's rules, for `A x = b` with `A = matvec` (linear in x, depending on the arrays it
closes over, `theta`): `dx = A^{-1} (db - dA x)`, so in reverse mode
`ct_b = A^{-T} ct_x` (`transpose_solve(vecmat, ct_x)`, `vecmat` being `matvec`'s
transpose, `solve` itself when `symmetric`) and `ct_theta = -(d(A x)/d theta)^T ct_b`;
the arrays `solve` closes over get no cotangent. Without `transpose_solve` (and not
symmetric) reverse mode is JAX's TypeError.

Closure conversion as JAX's `separate_consts`: `matvec` and `solve` are traced once into
programs whose closed-over values become explicit operands (`ops.control_flow._trace_fn`),
so that a `custom_vjp` over `(b, theta, solve's values)` carries the rule. This module sits
above `autodiff` (it transposes `matvec` with `vjp`); `shardc.lax` reaches it through the
registry `lax.LATE` filled at import.
"""
from __future__ import annotations

from typing import Any, Callable

import jax.tree_util as tu

from . import lax
from .autodiff import eval_program, linearize, vjp
from .core import api, current_trace, raise_user_error, stage_eagerly
from .errors import ShardcTypeError, ShardcValueError
from .ops._util import as_operand, is_array, type_of
from .ops.control_flow import _consts, _trace_fn
from .ops.creation import asarray, zeros_like
from .ops.custom import custom_vjp

__all__ = ["custom_linear_solve", "custom_root"]


def _leaves(tree) -> tuple[list, Any]:
    return tu.tree_flatten(tree, is_leaf=lambda x: is_array(x))


def _check(name: str, out_tree, tree, outs_types, b_types, has_aux: bool, expected: str = "b"):
    """JAX's `_check_tree` / `_check_shapes` on what `name` returned."""
    if has_aux:
        kids = out_tree.children()
        if len(kids) != 2:
            raise_user_error(ShardcValueError(
                f"{name}() produced a pytree with structure {out_tree}, but a pytree tuple with auxiliary output "
                "was expected because has_aux was set to True."))
        out_tree = kids[0]
    if out_tree != tree:
        raise_user_error(ShardcTypeError(f"{name}() output pytree structure must match {expected}, got {out_tree} and "
                                         f"{tree}."))
    got, want = [t.shape for t in outs_types[:len(b_types)]], [t.shape for t in b_types]
    if got != want:
        raise_user_error(ShardcValueError(f"{name}() output shapes must match {expected}, got {got} and {want}"))


def _closure_converted(fn: Callable, tree, types, name: str):
    """`fn` traced on arguments of `types` (the leaves of `tree`): its program taking the values it
    closed over after the arguments, those values, and its output tree and types."""
    body = _trace_fn(lambda *xs: fn(tu.tree_unflatten(tree, list(xs))), list(types), lambda ts: ts, name)
    consts = _consts(body)
    return body.with_consts(consts), consts, body.tree, body.out_types


@api("lax.custom_linear_solve")
def custom_linear_solve(matvec: Callable, b: Any, solve: Callable, transpose_solve: Callable | None = None,
                        symmetric: bool = False, has_aux: bool = False):
    """`solve(matvec, b)`, differentiated implicitly (JAX's rules above)."""
    flat, tree = _leaves(b)
    flat = [x if is_array(x) else asarray(x) for x in map(as_operand, flat)]
    if current_trace() is None:
        return stage_eagerly(lambda *xs: _solve(matvec, tu.tree_unflatten(tree, list(xs)), solve, transpose_solve,
                                                symmetric, has_aux), flat, "custom_linear_solve")
    return _solve(matvec, tu.tree_unflatten(tree, flat), solve, transpose_solve, symmetric, has_aux)


def _solve(matvec, b, solve, transpose_solve, symmetric: bool, has_aux: bool):
    if transpose_solve is None and symmetric:
        transpose_solve = solve
    b_flat, tree = _leaves(b)
    b_types = [type_of(x) for x in b_flat]
    mv_prog, mv_consts, mv_tree, mv_types = _closure_converted(matvec, tree, b_types, "matvec")
    _check("matvec", mv_tree, tree, mv_types, b_types, False)
    def solve_b(x):
        if not has_aux:
            return solve(matvec, x)
        out = solve(matvec, x)
        try:   # as JAX's `_shape_checked`: a solve without aux fails to unpack here, with Python's message
            y, aux = out
        except ValueError as e:
            raise_user_error(ShardcValueError(str(e)))
        return y, aux

    s_prog, s_consts, s_tree, s_types = _closure_converted(solve_b, tree, b_types, "solve")
    _check("solve", s_tree, tree, s_types, b_types, has_aux)
    n = len(b_flat)

    def mv(theta, xs):
        return eval_program(mv_prog, [*xs, *theta])

    def vecmat(y):
        """`matvec`'s transpose (it is linear: its VJP at any point)."""
        ys, _ = _leaves(y)
        _, pull = vjp(lambda *xs: mv(theta_now[0], xs), *[zeros_like(x) for x in b_flat])
        return tu.tree_unflatten(tree, list(pull(list(ys))))

    if transpose_solve is not None and not symmetric:   # traced now for JAX's checks, as JAX does
        theta_now = [mv_consts]
        _, _, t_tree, t_types = _closure_converted(lambda x: transpose_solve(vecmat, x), tree, b_types,
                                                   "transpose_solve")
        _check("transpose_solve", t_tree, tree, t_types, b_types, has_aux)

    @custom_vjp
    def run(bs, theta, svals):
        return eval_program(s_prog, [*bs, *svals])

    def fwd(bs, theta, svals):
        out = run(bs, theta, svals)
        return out, (out[:n], theta, svals)

    def bwd(res, cts):
        xs, theta, svals = res
        ct_x = list(cts[:n])
        if transpose_solve is None:
            raise_user_error(ShardcTypeError("transpose_solve required for backwards mode automatic "
                                             "differentiation of custom_linear_solve"))
        if symmetric:
            ct_b = eval_program(s_prog, [*ct_x, *svals])[:n]
        else:
            theta_now[0] = theta
            out = transpose_solve(vecmat, tu.tree_unflatten(tree, ct_x))
            ct_b = _leaves(out[0] if has_aux else out)[0]
        ct_theta = []
        if theta:
            _, pull = vjp(lambda *th: mv(list(th), xs), *theta)
            ct_theta = list(pull([lax.neg(c) for c in ct_b]))
        return list(ct_b), ct_theta, [zeros_like(v) for v in svals]

    theta_now = [mv_consts]
    run.defvjp(fwd, bwd)
    out = run(list(b_flat), list(mv_consts), list(s_consts))
    x = tu.tree_unflatten(tree, list(out[:n]))
    if has_aux:
        return x, tu.tree_unflatten(s_tree.children()[1], list(out[n:]))
    return x


@api("lax.custom_root")
def custom_root(f: Callable, initial_guess: Any, solve: Callable, tangent_solve: Callable, has_aux: bool = False):
    """`solve(f, initial_guess)`, a root of `f`, differentiated by the implicit function theorem (JAX's
    `_root_jvp`: `dx = -tangent_solve(g, df/dtheta dtheta)`, `g` the linearization of `f` in x at the
    root), here in reverse: `ct_theta = -(df/dtheta)^T T^T ct_x` with `T = tangent_solve(g, .)`
    transposed by `vjp`; the initial guess and what only `solve` closes over get none."""
    flat, tree = _leaves(initial_guess)
    flat = [x if is_array(x) else asarray(x) for x in map(as_operand, flat)]
    if current_trace() is None:
        return stage_eagerly(lambda *xs: _root(f, tu.tree_unflatten(tree, list(xs)), solve, tangent_solve, has_aux),
                             flat, "custom_root")
    return _root(f, tu.tree_unflatten(tree, flat), solve, tangent_solve, has_aux)


def _root(f, guess, solve, tangent_solve, has_aux: bool):
    g_flat, tree = _leaves(guess)
    g_types = [type_of(x) for x in g_flat]
    f_prog, f_consts, f_tree, f_types = _closure_converted(f, tree, g_types, "f")
    _check("f", f_tree, tree, f_types, g_types, False, "initial_guess")

    def solve_g(x):
        if not has_aux:
            return solve(f, x)
        out = solve(f, x)
        try:
            y, aux = out
        except ValueError as e:
            raise_user_error(ShardcValueError(str(e)))
        return y, aux

    s_prog, s_consts, s_tree, s_types = _closure_converted(solve_g, tree, g_types, "solve")
    _check("solve", s_tree, tree, s_types, g_types, has_aux, "initial_guess")
    n = len(g_flat)

    def f_eval(theta, xs):
        return eval_program(f_prog, [*xs, *theta])

    @custom_vjp
    def run(gs, theta, svals):
        return eval_program(s_prog, [*gs, *svals])

    def fwd(gs, theta, svals):
        out = run(gs, theta, svals)
        return out, (gs, out[:n], theta, svals)

    def bwd(res, cts):
        gs, sol, theta, svals = res
        ct_x = list(cts[:n])
        _, g_lin = linearize(lambda *xs: f_eval(theta, xs), *sol)

        def g(v):
            return tu.tree_unflatten(tree, list(g_lin(*_leaves(v)[0])))

        def t_solve(*bs):
            return _leaves(tangent_solve(g, tu.tree_unflatten(tree, list(bs))))[0]

        _, pull_t = vjp(t_solve, *[zeros_like(c) for c in ct_x])
        w = pull_t(ct_x)
        ct_theta = []
        if theta:
            _, pull_f = vjp(lambda *th: f_eval(list(th), sol), *theta)
            ct_theta = list(pull_f([lax.neg(c) for c in w]))
        return [zeros_like(v) for v in gs], ct_theta, [zeros_like(v) for v in svals]

    run.defvjp(fwd, bwd)
    out = run(list(g_flat), list(f_consts), list(s_consts))
    x = tu.tree_unflatten(tree, list(out[:n]))
    if has_aux:
        return x, tu.tree_unflatten(s_tree.children()[1], list(out[n:]))
    return x


lax.LATE["custom_linear_solve"] = custom_linear_solve
lax.LATE["custom_root"] = custom_root
