"""`sc.custom_vjp` and `sc.custom_jvp`: functions with user-defined derivatives (as `jax.custom_vjp` /
`jax.custom_jvp`).

Called where nothing is being differentiated, the decorated function simply
runs (its ops are traced or executed as usual). Inside `sc.grad` / `sc.vjp`,
the call is one `custom_vjp_call` / `custom_jvp_call` equation
(`primitives/custom.py`) whose VJP rule runs the user's rule; this module
flattens the user's pytrees around those rules and checks what they return
with JAX's messages.

`nondiff_argnums` arguments are passed to the rules first, as in JAX; for
`custom_vjp` they may not be traced values (JAX's UnexpectedTracerError, a
TypeError); for `custom_jvp` traced ones are treated as constants
(`stop_gradient`).
"""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Sequence

import jax.tree_util as tu

from ..core import Tracer, api, bind, current_trace, raise_user_error
from ..errors import ShardcAttributeError, ShardcTypeError, ShardcValueError
from ..primitives import custom as cp
from ..sharding import PartitionSpec
from ..transforms.ad import ct_spec, differentiable, is_differentiating, is_linearizing, not_differentiating
from ..types import ArrayType
from ._util import is_array, type_of
from .control_flow import _consts, _operands, _trace_fn
from .creation import full
from .sharding import stop_gradient

__all__ = ["custom_vjp", "custom_jvp"]


def _is_leaf(x) -> bool:
    return isinstance(x, Tracer) or getattr(x, "_shardc_type", None) is not None


def _flatten(tree):
    return tu.tree_flatten(tree, is_leaf=_is_leaf)


def _resolve_kwargs(fun: Callable, args: tuple, kwargs: dict, kind: str) -> tuple:
    """Keyword arguments bound to positions (the rules take positional args only)."""
    if not kwargs:
        return args
    try:
        ba = inspect.signature(fun).bind(*args, **kwargs)
        ba.apply_defaults()
    except TypeError as e:
        raise ShardcTypeError(
            f"The input arguments to the {kind}-decorated function {_name(fun)} could not be resolved "
            f"to positional-only arguments. Binding failed with the error:\n{e}") from None
    if ba.kwargs:
        raise ShardcTypeError(f"keyword-only arguments are not supported by {kind}: {sorted(ba.kwargs)}")
    return ba.args


def _name(f) -> str:
    return getattr(f, "__name__", str(f))


def _nondiff(fun: Callable, nums: Sequence[int], names: Sequence[str]) -> tuple[int, ...]:
    if names:
        params = list(inspect.signature(fun).parameters)
        nums = [*nums, *(params.index(n) for n in names)]
    return tuple(sorted(set(nums)))


def _short(types) -> list[str]:
    return [t.str_short(short_dtypes=False) for t in types]


class _Args:
    """A call's arguments split as the rules see them: the differentiable ones
    (flattened to operand leaves) and the `nondiff_argnums` ones."""

    def __init__(self, args: tuple, nondiff: tuple[int, ...]):
        self.args, self.nondiff = args, nondiff
        self.dyn = [i for i in range(len(args)) if i not in nondiff]
        flat, self.tree = _flatten(tuple(args[i] for i in self.dyn))
        self.flat = _operands(flat)
        self.types = [type_of(a) for a in self.flat]

    def static(self) -> list:
        return [self.args[i] for i in self.nondiff]

    def dyn_args(self, leaves) -> tuple:
        return tu.tree_unflatten(self.tree, list(leaves))

    def full(self, leaves) -> list:
        full = list(self.args)
        for i, v in zip(self.dyn, self.dyn_args(leaves)):
            full[i] = v
        return full


class _Custom:
    """What `custom_vjp` and `custom_jvp` share: wrapping, methods, nondiff args."""
    kind = "?"

    def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = (), nondiff_argnames: Sequence[str] = ()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = _nondiff(fun, tuple(nondiff_argnums), tuple(nondiff_argnames))

    def __get__(self, instance, owner=None):
        # used as a method: bind `self` as JAX does
        return self if instance is None else functools.partial(self, instance)

    def _plain(self, args: tuple) -> bool:
        """Run the function itself: nothing is being differentiated."""
        return current_trace() is None or not is_differentiating()


class custom_vjp(_Custom):
    """A function whose reverse-mode derivative is given by `defvjp(fwd, bwd)`:
    `fwd(*args) -> (out, residuals)`, `bwd(residuals, ct_out) -> ct_args`
    (a tuple with one entry per argument, `None` for a zero cotangent)."""
    kind = "custom_vjp"

    def __init__(self, fun, nondiff_argnums=(), nondiff_argnames=()):
        super().__init__(fun, nondiff_argnums, nondiff_argnames)
        self.fwd = self.bwd = None

    def defvjp(self, fwd: Callable, bwd: Callable, symbolic_zeros: bool = False,
               optimize_remat: bool = False) -> None:
        if symbolic_zeros:
            raise ShardcValueError("custom_vjp(symbolic_zeros=True) is not supported by shardc; "
                                   "leave it False (bwd gets zero cotangents as arrays)")
        self.fwd, self.bwd = fwd, bwd

    def __call__(self, *args, **kwargs):
        if self.fwd is None:
            raise ShardcAttributeError(f"No VJP defined for custom_vjp function {_name(self.fun)} using defvjp.")
        return _call_vjp(self, _resolve_kwargs(self.fun, args, kwargs, self.kind))


@api("sc.custom_vjp")
def _call_vjp(cv: custom_vjp, args: tuple):
    for i in cv.nondiff_argnums:
        if any(isinstance(leaf, Tracer) for leaf in tu.tree_leaves(args[i], is_leaf=_is_leaf)):
            raise_user_error(ShardcTypeError(
                "Found a traced value passed as an argument to a custom_vjp function in a position "
                "indicated by nondiff_argnums as non-differentiable. Traced values cannot be passed as "
                "non-differentiable arguments to custom_vjp functions; instead, nondiff_argnums should "
                "only be used for arguments that can't be or contain arrays, e.g. function-valued "
                "arguments. In particular, array-valued arguments should typically not be indicated as "
                "nondiff_argnums."))
    if cv._plain(args):
        return cv.fun(*args)
    a = _Args(args, cv.nondiff_argnums)
    trees: dict[str, Any] = {}
    # as JAX under differentiation, only `fwd` is traced (its primal outputs are the results)
    with not_differentiating():
        body = _trace_fn(lambda *ls: _fwd_flat(cv, a, ls, trees), a.types, list, "fwd")
    num_out = trees["out"].num_leaves
    consts = _consts(body)
    bwd = functools.partial(_bwd_flat, cv, a, trees)
    # JAX gives a user's custom_vjp no JVP: refused where forward mode needs one (the rule, reached
    # while forward mode pulls tangents back with a cotangent for the call's outputs)
    bwd.forward_refused = is_linearizing() and not _forward_ok(cv)
    outs = bind(cp.custom_vjp_call, *a.flat, *consts, fwd=body.with_consts(consts), bwd=bwd,
                num_out=num_out, num_consts=len(consts), out_types=tuple(body.out_types),
                name=_name(cv.fun))
    return tu.tree_unflatten(trees["out"], list(outs[:num_out]))


def _forward_ok(cv: custom_vjp) -> bool:
    """JAX gives a user's custom_vjp function no JVP; shardc's own uses of custom_vjp stand for
    rules JAX differentiates in forward mode too (`custom_linear_solve`, `linear_call`, the
    refusals in `betainc` / `igamma`), whose transposed VJP is that JVP."""
    mod = getattr(cv.fun, "__module__", "") or ""
    return getattr(cv, "forward_ok", mod.startswith("shardc.") and mod != "shardc.custom_derivatives")


def _fwd_flat(cv: custom_vjp, a: _Args, leaves, trees: dict) -> list:
    pair = cv.fwd(*a.full(leaves))
    if not isinstance(pair, (list, tuple)) or len(pair) != 2:
        raise_user_error(ShardcTypeError(
            f"Custom VJP fwd rule {_name(cv.fwd)} for function {_name(cv.fun)} must produce a pair (list "
            "or tuple of length two) where the first element represents the primal output (equal to "
            f"those of the custom_vjp-decorated function {_name(cv.fun)}) and the second element "
            "represents residuals (i.e. values stored from the forward pass for use on the backward "
            f"pass), but instead of a pair the fwd rule {_name(cv.fwd)} produced {pair}."))
    out, res = pair
    out_flat, trees["out"] = _flatten(out)
    res_flat, trees["res"] = _flatten(res)
    return [*out_flat, *res_flat]


def _bwd_flat(cv: custom_vjp, a: _Args, trees: dict, res: list, cts: list) -> list:
    """The user's bwd on pytrees; one checked cotangent (or None) per argument leaf."""
    py_cts = cv.bwd(*a.static(), tu.tree_unflatten(trees["res"], res), tu.tree_unflatten(trees["out"], cts))
    if isinstance(py_cts, list) and len(py_cts) == len(a.dyn):
        py_cts = tuple(py_cts)
    dyn = a.dyn_args([None] * len(a.flat))
    try:
        if not isinstance(py_cts, tuple) or len(py_cts) != len(dyn):
            raise ValueError
        per_arg = [[None] * tu.tree_structure(d, is_leaf=lambda x: x is None).num_leaves if c is None
                   else tu.tree_flatten(c, is_leaf=_is_leaf)[0]
                   for c, d in zip(py_cts, dyn)]
        flat = [c for cs in per_arg for c in cs]
        if len(flat) != len(a.flat):
            raise ValueError
    except ValueError:
        raise_user_error(ShardcTypeError(
            "Custom VJP bwd rule must produce an output with the same container (pytree) structure as "
            "the args tuple of the primal function, and in particular must produce a tuple of length "
            "equal to the number of arguments to the primal function, but got bwd output structure "
            f"{tu.tree_structure(py_cts, is_leaf=_is_leaf)} for primal input structure {a.tree}."))
    paths = [tu.keystr(k) for k, _ in tu.tree_flatten_with_path(dyn, is_leaf=lambda x: x is None)[0]]
    return [_check_ct(c, t, p) for c, t, p in zip(flat, a.types, paths)]


def _check_ct(ct, t, path: str):
    """A cotangent must have the argument's cotangent type, sharding included (JAX's check)."""
    if ct is None or not differentiable(t):
        return None
    ct = ct if is_array(ct) else _operands([ct])[0]
    got = type_of(ct)
    spec = ct_spec(t)
    want = t.update(unreduced=spec.unreduced, reduced=spec.reduced, weak_type=False)
    tr = current_trace()
    # inside a shard_map checking VMA the varying axes are part of the type (JAX compares `mat`)
    vma_checked = tr is not None and bool(tr.manual_axes) and tr.check_vma
    if got.update(weak_type=False, vma=want.vma) != want or (vma_checked and got.vma != want.vma):
        raise_user_error(ShardcValueError(
            "Custom VJP bwd rule must produce an output with the same type as the args tuple of the "
            f"primal function, but at output{path} the bwd rule produced an output of type "
            f"{got.str_short(short_dtypes=False)} corresponding to an input of type "
            f"{t.str_short(short_dtypes=False)}"))
    return ct


# --- symbolic zeros ------------------------------------------------------------------------
def _type(x) -> ArrayType:
    return x.aval if isinstance(x, Tracer) else type_of(_operands([x])[0])


def _ct_type(t: ArrayType) -> ArrayType:
    """The cotangent type of a primal of type `t` (reduced ↔ unreduced), as `to_tangent_aval`."""
    if t.mesh.empty:
        return t.update(weak_type=False)
    spec = ct_spec(t)
    return t.update(unreduced=spec.unreduced, reduced=spec.reduced, weak_type=False)


class SymbolicZero:
    """A zero tangent known only by its type (JAX's `SymbolicZero`): `aval`, `shape`, `dtype`;
    `instantiate()` makes the zero array. A `custom_jvp` rule defined with
    `symbolic_zeros=True` gets one for each argument no differentiated input reaches."""

    def __init__(self, aval: ArrayType):
        self.aval = aval

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    size = property(lambda self: functools.reduce(lambda a, b: a * b, self.aval.shape, 1))
    ndim = property(lambda self: len(self.aval.shape))

    def __repr__(self) -> str:
        return f"SymbolicZero({self.aval.str_short()})"

    def instantiate(self):
        return _zeros(self.aval)

    @staticmethod
    def from_primal_value(val) -> "SymbolicZero":
        return SymbolicZero(_ct_type(_type(val)))


def _zeros(t: ArrayType):
    sharding = None if t.mesh.empty or not t.mesh.has_explicit else PartitionSpec(*t.spec)
    return full(t.shape, 0, t.dtype, out_sharding=sharding)


# --- custom_jvp -------------------------------------------------------------------------
class custom_jvp(_Custom):
    """A function whose derivative is given by `defjvp(jvp)`:
    `jvp(primals, tangents) -> (primal_out, tangent_out)`, linear in the
    tangents. Reverse mode transposes it."""
    kind = "custom_jvp"

    def __init__(self, fun, nondiff_argnums=()):
        super().__init__(fun, nondiff_argnums)
        self.jvp = None
        self.symbolic_zeros = False

    def defjvp(self, jvp: Callable, symbolic_zeros: bool = False) -> Callable:
        """`symbolic_zeros=True`: the rule gets a `SymbolicZero` for each argument that no
        differentiated input reaches (and for integer ones) and may return them."""
        self.jvp, self.symbolic_zeros = jvp, symbolic_zeros
        return jvp

    def defjvps(self, *jvps: Callable | None) -> None:
        """One rule per argument: `jvp_i(t_i, primal_out, *primals)`; tangents add up."""
        if self.nondiff_argnums:
            raise ShardcTypeError("Can't use ``defjvps`` with ``nondiff_argnums``.")

        def jvp(primals, tangents):
            out = self(*primals)
            parts = [rule(t, out, *primals) for t, rule in zip(tangents, jvps) if rule is not None]
            if not parts:
                return out, tu.tree_map(lambda o: o * 0, out)
            return out, functools.reduce(lambda x, y: tu.tree_map(lambda p, q: p + q, x, y), parts)

        self.defjvp(jvp)

    def __call__(self, *args, **kwargs):
        if self.jvp is None:
            raise ShardcAttributeError(f"No JVP defined for custom_jvp function {_name(self.fun)} using defjvp.")
        return _call_jvp(self, _resolve_kwargs(self.fun, args, kwargs, self.kind))


@api("sc.custom_jvp")
def _call_jvp(cj: custom_jvp, args: tuple):
    if cj._plain(args):
        return cj.fun(*args)
    args = tuple(stop_gradient(x) if i in cj.nondiff_argnums and any(
        is_array(leaf) for leaf in tu.tree_leaves(x, is_leaf=_is_leaf)) else x for i, x in enumerate(args))
    a = _Args(args, cj.nondiff_argnums)
    with not_differentiating():
        body = _trace_fn(lambda *ls: cj.fun(*a.full(ls)), a.types, list, "fun")
    consts = _consts(body)
    jvp = functools.partial(_jvp_flat, cj, a, body)
    jvp.symbolic_zeros = cj.symbolic_zeros   # the primitive passes None for the zero tangents
    outs = bind(cp.custom_jvp_call, *a.flat, *consts, fun=body.with_consts(consts), jvp=jvp,
                num_consts=len(consts), out_types=tuple(body.out_types), name=_name(cj.fun))
    return tu.tree_unflatten(body.tree, list(outs))


def _jvp_flat(cj: custom_jvp, a: _Args, body, primals: list, tangents: list) -> list:
    """The user's jvp rule on pytrees; its tangent outputs, flat and checked."""
    jname, fname = _name(cj.jvp), _name(cj.fun)
    tangents = [SymbolicZero(_ct_type(type_of(p))) if t is None else t for p, t in zip(primals, tangents)]
    with not_differentiating():
        pair = cj.jvp(*a.static(), a.dyn_args(primals), a.dyn_args(tangents))
    if not isinstance(pair, (list, tuple)) or len(pair) != 2:
        raise_user_error(ShardcTypeError(
            f"Custom JVP rule {jname} for function {fname} must produce a pair (list or tuple of length "
            f"two) representing primal and tangent outputs, but got {pair}."))
    p_flat, p_tree = _flatten(pair[0])
    t_flat, t_tree = _flatten(pair[1])
    t_flat = [t.instantiate() if isinstance(t, SymbolicZero) else t for t in t_flat]
    if p_tree != t_tree:
        raise_user_error(ShardcTypeError(
            f"Custom JVP rule {jname} for function {fname} must produce primal and tangent outputs with "
            f"equal container (pytree) structures, but got {p_tree} and {t_tree} respectively."))
    p_types = [type_of(p) for p in _operands(p_flat)]
    if p_tree != body.tree or [(t.shape, t.dtype) for t in p_types] != [
            (t.shape, t.dtype) for t in body.out_types]:
        raise_user_error(ShardcTypeError(
            f"Custom JVP rule {jname} for function {fname} must produce a pair (list or tuple of length "
            "two) where the first element represents the primal output (equal in value to the output "
            f"of the custom_jvp-decorated function {fname}, and in particular of the same "
            "container/pytree structure and leaves of the same shape/dtype), but instead the JVP rule "
            f"output's first element had {tu.tree_unflatten(p_tree, _short(p_types))} while the "
            f"custom_jvp-decorated function {fname} had output "
            f"{tu.tree_unflatten(body.tree, _short(body.out_types))}"))
    t_ops = _operands(t_flat)
    bad = [(p, t) for p, t in zip(p_types, (type_of(t) for t in t_ops))
           if (p.shape, p.dtype) != (t.shape, t.dtype) and differentiable(p)]
    if bad:
        p, t = bad[0]
        raise_user_error(ShardcTypeError(
            "Custom JVP rule must produce primal and tangent outputs with corresponding shapes and "
            f"dtypes. Expected {p.str_short(short_dtypes=False)} (tangent type of "
            f"{p.str_short(short_dtypes=False)}) but got {t.str_short(short_dtypes=False)}."))
    return t_ops
