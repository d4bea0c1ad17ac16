"""Control flow: `cond`, `fori_loop` and `scan` (as `jax.lax`), JAX rules §2.16.

Branches and bodies are traced into nested programs on the enclosing
program's mesh. Values of enclosing programs they use (weights closed over by
a layer loop) become extra inputs, as JAX's closure conversion makes them: of
both branches of a `cond`, and loop-invariant carries of a loop or scan.
"""
from __future__ import annotations

import functools
import inspect
from typing import Callable

import jax.tree_util as tu
import numpy as np

from .. import dtypes as dt
from ..core import Trace, Tracer, api, bind, current_trace, raise_user_error, stage_eagerly, tracing, user_code
from ..errors import ShardcError, ShardcTypeError, ShardcValueError
from ..ir import Program, Var
from ..primitives import control_flow as cf
from ..primitives import elementwise as ew
from ..sharding import PartitionSpec
from ..transforms.ad import keeps_residuals
from ..types import ArrayType
from ._util import as_operand, is_array, type_of
from .creation import asarray
from .elementwise import add, astype, less, not_equal, where
from .shape import concatenate, reshape


def _tu():
    return tu


def _is_leaf(x) -> bool:
    return x is None or isinstance(x, Tracer) or getattr(x, "_shardc_type", None) is not None


def _flatten(tree):
    return _tu().tree_flatten(tree, is_leaf=lambda x: isinstance(x, Tracer)
                              or getattr(x, "_shardc_type", None) is not None)


def _operands(flat) -> list:
    out = []
    for a in flat:
        a = as_operand(a)
        out.append(a if is_array(a) else asarray(a))
    return out


class _Body:
    """A traced branch or body: its program (arguments first, then one input
    per closed-over value), output types and tree, and the values of
    enclosing programs it closed over (outer var id → (tracer, its input))."""

    def __init__(self, prog: Program, out_types: list[ArrayType], tree, closure: dict):
        self.prog, self.out_types, self.tree, self.closure = prog, out_types, tree, closure

    def with_consts(self, consts: list[Tracer]) -> Program:
        """The program taking `consts` (a superset of its closure) after its arguments."""
        n = len(self.prog.in_vars) - len(self.closure)
        extra = [self.closure[c._var.id][1] if c._var.id in self.closure else Var(c.aval) for c in consts]
        return Program(self.prog.name, self.prog.in_vars[:n] + extra, self.prog.eqns, self.prog.outputs,
                       self.prog.mesh)


def _trace_fn(f: Callable, types: list[ArrayType], make_args: Callable, name: str) -> _Body:
    """Trace `f` on fresh arguments of `types` into a nested program."""
    outer = current_trace()
    inner = Trace(outer.mesh, name, outer.manual_axes, outer.check_vma)
    inner.closure = {}
    tracers = [inner.new_arg(t) for t in types]
    with tracing(inner):
        with user_code():
            out = f(*make_args(tracers))
        flat, tree = _flatten(out)
        flat = _operands(flat)
        outs = [inner.atom(o) for o in flat]   # a returned outer value is closed over too
    prog = Program(inner.name, inner.in_vars + [v for _, v in inner.closure.values()], inner.eqns, outs,
                   inner.mesh)
    return _Body(prog, [o.type for o in outs], tree, inner.closure)


def _consts(*bodies: _Body) -> list[Tracer]:
    """The values of enclosing programs any of `bodies` closed over, once each."""
    seen: dict[int, Tracer] = {}
    for b in bodies:
        for vid, (t, _) in b.closure.items():
            seen.setdefault(vid, t)
    return list(seen.values())


def _promote_weak_carries(vals: list, in_types: list[ArrayType], out_types) -> tuple[list, bool]:
    """JAX's `_promote_weak_typed_input`: a weakly typed initial carry (a Python scalar) whose
    body output has another dtype takes the promoted dtype (`fori_loop(0, n, f, 0.0)` with a
    complex body carries complex); the body is then traced again. True if any changed."""
    out, changed = list(vals), False
    for k, (ti, to) in enumerate(zip(in_types, out_types)):
        if ti.weak_type and ti.dtype != to.dtype and ti.shape == to.shape:
            d, _ = dt.result_type((ti.dtype, True), (to.dtype, to.weak_type))
            if d != ti.dtype:
                out[k], changed = astype(vals[k], d), True
    return out, changed


def _body_weak_types(res: list, out_types) -> list:
    """JAX types a loop's final carry by the body's output (`_scan_abstract_eval`,
    `_while_loop_abstract_eval`): a weakly typed initial carry that the body returns strongly
    typed (same dtype) comes out strong (`scan(body, zeros_like(0.5), xs)` whose body adds a
    float32 array), and the reverse. The loop itself carries the initial type."""
    return [r if type_of(r).weak_type == t.weak_type else
            bind(ew.convert_element_type, r, new_dtype=t.dtype, weak_type=t.weak_type)
            for r, t in zip(res, out_types)]


def _same(a: ArrayType, b: ArrayType) -> bool:
    return a.update(weak_type=False) == b.update(weak_type=False)


def _fun_info(f) -> str:
    f = inspect.unwrap(f)   # (a body wrapped to thread mutable array references names the user's)
    name = getattr(f, "__name__", "<function>")
    try:
        code = f.__code__
        return f"{name} at {code.co_filename}:{code.co_firstlineno}"
    except AttributeError:
        return name


#: `shardc/ref.py` (a layer above) threads the mutable array references a body uses as extra
#: carries: `hook(kind, impl, *args)`, registered when the first reference is made
_REF_THREADING: list[Callable] = []


def register_ref_threading(hook: Callable) -> None:
    _REF_THREADING[:] = [hook]


def _threads_refs(f) -> bool:
    """References are in use and `f` is not already wrapped by the hook."""
    return bool(_REF_THREADING) and not getattr(f, "_ref_threaded", False)


def _staged(fn, *args):
    """Outside any program, run `fn(*args)` as a one-off compiled program."""
    return stage_eagerly(fn, args, getattr(fn, "__name__", "control_flow"))


# --- cond --------------------------------------------------------------------------
def cond(pred, true_fun: Callable, false_fun: Callable, *operands):
    """`lax.cond`: `true_fun(*operands)` if `pred` else `false_fun(*operands)`;
    both branches must give equal output types."""
    return _cond(pred, true_fun, false_fun, operands)


@api("sc.cond")
def _cond(pred, true_fun, false_fun, operands, typed_as: str = "false"):
    """`typed_as`: the branch whose result types (weak types: the others must equal) the results
    take, as JAX's `cond_p` takes its first branch's, `false_fun` (`switch`: its first branch)."""
    if _threads_refs(true_fun):
        return _REF_THREADING[0]("cond", functools.partial(_cond, typed_as=typed_as), pred, true_fun, false_fun,
                                 operands)
    if current_trace() is None:
        return _staged(lambda p, *ops: _cond(p, true_fun, false_fun, ops, typed_as), pred, *operands)
    pred = _operands([pred])[0]
    pt = type_of(pred)
    if pt.shape != ():
        raise_user_error(ShardcTypeError(
            f"Pred must be a scalar, got {pt.str_short(short_dtypes=False)} of shape {pt.shape}."), [pt])
    if pt.dtype != np.dtype(bool):
        pred = not_equal(pred, 0)
    flat, tree = _flatten(operands)
    flat = _operands(flat)
    types = [type_of(a) for a in flat]
    unflat = lambda ts: _tu().tree_unflatten(tree, ts)
    t_body = _trace_fn(true_fun, types, unflat, "true_fun")
    f_body = _trace_fn(false_fun, types, unflat, "false_fun")
    t_tree, f_tree = t_body.tree, f_body.tree
    if t_tree != f_tree:
        raise_user_error(ShardcTypeError(
            "true_fun and false_fun output must have same type structure, got "
            f"{t_tree} and {f_tree}."))
    t_types, f_types = t_body.out_types, f_body.out_types
    paths = [_tu().keystr(k) for k, _ in _tu().tree_flatten_with_path(
        _tu().tree_unflatten(t_tree, [0] * len(t_types)))[0]]
    diffs = [(p, a, b) for p, a, b in zip(paths, t_types, f_types) if not _same(a, b)]
    if diffs:
        if len(diffs) == 1 and diffs[0][0] == "":
            _, a, b = diffs[0]
            text = (f"The output of true_fun has type {a.str_short(short_dtypes=False)} but the corresponding output "
                    f"of false_fun has type {b.str_short(short_dtypes=False)}"
                    + (", so the manual axis types do not match.\n" if _vma_hint(diffs) else ".\n"))
        else:
            items = [f"  * the output of true_fun{' at path ' + p if p else ''} has type {a.str_short(short_dtypes=False)} "
                     f"but the corresponding output of false_fun has type {b.str_short(short_dtypes=False)}"
                     for p, a, b in diffs]
            text = ";\n".join(items) + ".\n"
        text += ("\n" + _vma_hint(diffs)) if _vma_hint(diffs) else ""
        raise_user_error(ShardcTypeError(
            "cond branches must have equal output types but they differ.\n\n"
            f"true_fun is {_fun_info(true_fun)}\nfalse_fun is {_fun_info(false_fun)}\n\n"
            f"{text}\nRevise true_fun and/or false_fun so that all output types match."))
    out_types = tuple(f_types if typed_as == "false" else t_types)
    try:
        cf.check_uniform_collectives(type_of(pred), [t_body.prog, f_body.prog])
    except ShardcError as e:
        raise_user_error(e)
    consts = _consts(t_body, f_body)
    res = bind(cf.cond, pred, *flat, *consts, true_branch=t_body.with_consts(consts),
               false_branch=f_body.with_consts(consts), out_types=out_types)
    return _tu().tree_unflatten(t_tree, res)


def _vma_hint(diffs) -> str:
    """JAX's fix for branch outputs that differ only in the manual axes they vary over."""
    lines = []
    for path, a, b in diffs:
        if a.update(vma=frozenset()) != b.update(vma=frozenset()):
            continue
        where = f" at path {path}" if path else ""
        for fun, missing in (("true_fun", b.vma - a.vma), ("false_fun", a.vma - b.vma)):
            if missing:
                axes = tuple(a.mesh.mesh_order(missing))
                lines.append(f"  * applying `sc.pcast(..., {axes!r}, to='varying')` to the output of {fun}{where}")
    if not lines:
        return ""
    return "This might be fixed by:\n" + ";\n".join(lines) + ".\n"


# --- carries ---------------------------------------------------------------------------
def _carry_name(f) -> str | None:
    try:
        params = list(inspect.signature(f).parameters)
    except (TypeError, ValueError):
        return None
    return params[0] if params else None


def _check_carry(what: str, carry_name, paths, ins, outs, in_tree, out_tree) -> None:
    if in_tree != out_tree:
        raise_user_error(ShardcTypeError(
            f"{what} function carry input and carry output must have the same pytree structure, "
            f"but they differ:\n\nThe input carry is a {in_tree} but the corresponding output "
            f"carry is a {out_tree}."))
    diffs, fixes = [], []
    for p, a, b in zip(paths, ins, outs):
        if _same(a, b):
            continue
        if carry_name:
            comp = f"the input carry component {carry_name}{p}" if p else f"the input carry {carry_name}"
        else:
            comp = f"the input carry at path {p}" if p else "the input carry"
        vma_only = a.update(vma=frozenset()) == b.update(vma=frozenset())
        diffs.append(f"{comp} has type {a.str_short(short_dtypes=False)} but the corresponding output carry "
                     f"component has type {b.str_short(short_dtypes=False)}"
                     + (", so the manual axis types do not match" if vma_only else ""))
        if vma_only and b.vma - a.vma:   # JAX's hint: make the initial value vary over the missing axes
            axes = tuple(a.mesh.mesh_order(b.vma - a.vma))
            fixes.append(f"applying `sc.pcast(..., {axes!r}, to='varying')`, to the initial carry value "
                         f"corresponding to {comp}")
    if not diffs:
        return
    if len(diffs) == 1:
        text = diffs[0][0].upper() + diffs[0][1:] + ".\n"
    else:
        text = ";\n".join(f"  * {d}" for d in diffs) + ".\n"
    if len(fixes) == 1:
        text += f"This might be fixed by {fixes[0]}.\n"
    elif fixes:
        text += "This might be fixed by:\n" + ";\n".join(f"  * {f}" for f in fixes) + ".\n"
    raise_user_error(ShardcTypeError(
        f"{what} function carry input and carry output must have equal types, but they differ:\n\n"
        f"{text}\nRevise the function so that all output types match the corresponding input types."))


def _paths(tree, n: int, prefix: str = "") -> list[str]:
    leaves = _tu().tree_flatten_with_path(_tu().tree_unflatten(tree, [0] * n))[0]
    return [prefix + _tu().keystr(k) for k, _ in leaves]


# --- fori_loop -------------------------------------------------------------------------
def fori_loop(lower, upper, body_fun: Callable, init_val):
    """`lax.fori_loop`: `for i in range(lower, upper): val = body_fun(i, val)`."""
    return _fori_loop(lower, upper, body_fun, init_val)


def _static_int(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


@api("sc.fori_loop")
def _fori_loop(lower, upper, body_fun, init_val):
    if _threads_refs(body_fun):
        return _REF_THREADING[0]("fori_loop", _fori_loop, lower, upper, body_fun, init_val)
    if current_trace() is None:
        flat0, tree0 = _flatten(init_val)
        return _staged(lambda lo, hi, *c: _fori_loop(lo if not _static_int(lower) else lower,
                                                    hi if not _static_int(upper) else upper, body_fun,
                                                    _tu().tree_unflatten(tree0, c)),
                       lower, upper, *flat0)
    static = _static_int(lower) and _static_int(upper)
    if static:   # as JAX: a scan over the trip count, so reverse mode works through it
        return _fori_scan(int(lower), int(upper), body_fun, init_val)
    lo, hi = _fori_bounds(lower, upper)
    flat, tree = _flatten(init_val)
    flat = _operands(flat)
    types = [type_of(lo), type_of(hi)] + [type_of(a) for a in flat]
    n = len(flat)

    def body(i, h, *c):
        out = body_fun(i, _tu().tree_unflatten(tree, c))
        oflat, otree = _flatten(out)
        body.out_tree = otree
        return (add(i, 1), h, *oflat)

    def cond_fn(i, h, *c):
        return less(i, h)

    b = _trace_fn(body, types, lambda ts: ts, "body_fun")
    flat, changed = _promote_weak_carries(flat, types[2:], b.out_types[2:])
    if changed:
        types = types[:2] + [type_of(a) for a in flat]
        b = _trace_fn(body, types, lambda ts: ts, "body_fun")
    what, off = ("scan body", 1) if static else ("while_loop body", 2)
    _check_carry(what, "loop_carry", _paths(tree, n, f"[{off}]"), types[2:], b.out_types[2:], tree,
                 body.out_tree)
    c = _trace_fn(cond_fn, types, lambda ts: ts, "cond_fun")
    # closed-over values ride along as loop-invariant carries
    consts = _consts(b, c)
    body_prog, cond_prog = b.with_consts(consts), c.with_consts(consts)
    body_prog.outputs = body_prog.outputs + body_prog.in_vars[len(types):]
    res = bind(cf.while_p, lo, hi, *flat, *consts, cond_body=cond_prog, body=body_prog,
               out_types=tuple(types) + tuple(t.aval for t in consts))
    return _tu().tree_unflatten(tree, _body_weak_types(res[2:2 + n], b.out_types[2:]))


def _fori_scan(lower: int, upper: int, body_fun, init_val):
    """A fori_loop with static bounds: a scan of `upper - lower` steps carrying
    (i, val) (JAX's `_fori_scan_body_fun`)."""
    def loop_body(loop_carry, _):
        i, val = loop_carry
        return (add(i, 1), body_fun(i, val)), None

    (_, out), _ = _scan(loop_body, (asarray(lower, dtype=np.int32), init_val), None, max(upper - lower, 0),
                        False)
    return out


# --- while_loop ----------------------------------------------------------------------------
def while_loop(cond_fun: Callable, body_fun: Callable, init_val):
    """`lax.while_loop`: `while cond_fun(val): val = body_fun(val)`; the carry's
    types (shardings included) must not change."""
    return _while_loop(cond_fun, body_fun, init_val)


@api("sc.while_loop")
def _while_loop(cond_fun, body_fun, init_val):
    if _threads_refs(body_fun):
        return _REF_THREADING[0]("while_loop", _while_loop, cond_fun, body_fun, init_val)
    flat, tree = _flatten(init_val)
    if current_trace() is None:
        return _staged(lambda *c: _while_loop(cond_fun, body_fun, _tu().tree_unflatten(tree, c)), *flat)
    flat = _operands(flat)
    types = [type_of(a) for a in flat]
    n = len(flat)
    unflat = lambda ts: (_tu().tree_unflatten(tree, ts),)
    # JAX's order: trace cond_fun, then body_fun; check the predicate, then the carry
    c = _trace_fn(cond_fun, types, unflat, "cond_fun")
    b = _trace_fn(body_fun, types, unflat, "body_fun")
    pt = c.out_types[0] if len(c.out_types) == 1 else None
    if pt is None or pt.shape != () or pt.dtype != np.dtype(bool):
        got = ", ".join(_shaped_array(t) for t in c.out_types)
        raise_user_error(ShardcTypeError(f"cond_fun must return a boolean scalar, but got output type(s) [{got}]."))
    flat, changed = _promote_weak_carries(flat, types, b.out_types)
    if changed:
        types = [type_of(a) for a in flat]
        c = _trace_fn(cond_fun, types, unflat, "cond_fun")
        b = _trace_fn(body_fun, types, unflat, "body_fun")
    _check_carry("while_loop body", _carry_name(body_fun), _paths(tree, n), types, b.out_types, tree, b.tree)
    # closed-over values ride along as loop-invariant carries
    consts = _consts(b, c)
    body_prog, cond_prog = b.with_consts(consts), c.with_consts(consts)
    body_prog.outputs = body_prog.outputs + body_prog.in_vars[n:]
    res = bind(cf.while_p, *flat, *consts, cond_body=cond_prog, body=body_prog,
               out_types=tuple(types) + tuple(t.aval for t in consts))
    return _tu().tree_unflatten(tree, _body_weak_types(res[:n], b.out_types))


def _shaped_array(t: ArrayType) -> str:
    """A type as JAX's `ShapedArray` repr prints it in its messages."""
    weak = ", weak_type=True" if t.weak_type else ""
    return f"ShapedArray({t.update(weak_type=False).str_short(short_dtypes=False)}{weak})"


def _fori_bounds(lower, upper) -> tuple:
    """JAX's bounds of a `fori_loop` run as a while loop: each keeps its dtype and weak type (a Python
    int is a weak int32, so the counter the body sees is weak beside a weak traced bound); of two signed
    integer dtypes the weak bound takes the other's; otherwise they must be equal (JAX's TypeError)."""
    lo, hi = _operands([lower, upper])
    tl, th = type_of(lo), type_of(hi)
    if tl.dtype == th.dtype:
        return lo, hi
    signed = np.issubdtype(tl.dtype, np.signedinteger) and np.issubdtype(th.dtype, np.signedinteger)
    if signed and tl.weak_type and not th.weak_type:
        return astype(lo, th.dtype), hi
    if signed and th.weak_type and not tl.weak_type:
        return lo, astype(hi, tl.dtype)
    raise_user_error(ShardcTypeError(f"lower and upper arguments to fori_loop must have equal types, got "
                                     f"{tl.dtype.name} and {th.dtype.name}"), [tl, th])


# --- switch -------------------------------------------------------------------------------
def switch(index, branches, *operands):
    """`lax.switch`: `branches[clamp(index, 0, len(branches) - 1)](*operands)`;
    all branches must give equal output types. Binds nested `cond`s (a binary
    search on the index), which is what XLA makes of JAX's n-way `cond`."""
    return _switch(index, tuple(branches), operands)


@api("sc.switch")
def _switch(index, branches, operands):
    if not branches:
        raise_user_error(ShardcValueError("Empty branch sequence"))
    if current_trace() is None:
        return _staged(lambda i, *ops: _switch(i, branches, ops), index, *operands)
    index = _operands([index])[0]
    it = type_of(index)
    if it.shape != () or not (np.issubdtype(it.dtype, np.integer)):
        raise_user_error(ShardcTypeError(
            f"Branch index must be scalar integer, got {it.str_short(short_dtypes=False)}"), [it])
    if len(branches) == 1:
        return branches[0](*operands)
    index = clamp_index(index, len(branches))
    return _switch_range(index, branches, 0, operands)


def clamp_index(index, n: int):
    """`index` clamped to [0, n): as `lax.switch`."""
    index = where(less(index, 0), 0, index)
    return where(less(index, n - 1), index, n - 1)


def _switch_range(index, branches, lo: int, operands):
    if len(branches) == 1:
        return branches[0](*operands)
    mid = len(branches) // 2
    # typed as the lower half, and so (at every level) as the first branch, as JAX's switch
    return _cond(less(index, lo + mid),
                 lambda *ops: _switch_range(index, branches[:mid], lo, ops),
                 lambda *ops: _switch_range(index, branches[mid:], lo + mid, ops), operands, typed_as="true")


# --- scan --------------------------------------------------------------------------------
def scan(f: Callable, init, xs=None, length: int | None = None, reverse: bool = False, unroll: int = 1):
    """`lax.scan`: `carry, y = f(carry, x)` over the leading dim of `xs`; returns
    the final carry and the stacked `y`s."""
    return _scan(f, init, xs, length, reverse)


@api("sc.scan")
def _scan(f, init, xs, length, reverse):
    if _threads_refs(f):
        return _REF_THREADING[0]("scan", _scan, f, init, xs, length, reverse)
    if current_trace() is None:
        c_flat, c_tree = _flatten(init)
        x_flat, x_tree = _flatten(xs)
        nc = len(c_flat)
        return _staged(lambda *a: _scan(f, _tu().tree_unflatten(c_tree, a[:nc]),
                                        _tu().tree_unflatten(x_tree, a[nc:]), length, reverse),
                       *c_flat, *x_flat)
    c_flat, c_tree = _flatten(init)
    c_flat = _operands(c_flat)
    x_flat, x_tree = _flatten(xs)
    x_flat = _operands(x_flat)
    c_types = [type_of(a) for a in c_flat]
    x_types = [type_of(a) for a in x_flat]
    for t in x_types:
        if t.ndim == 0:
            raise_user_error(ShardcValueError(
                f"scan got value with no leading axis to scan over: {t.str_short(short_dtypes=False)}"), [t])
    lengths = {t.shape[0] for t in x_types}
    if length is not None:
        lengths.add(int(length))
    if len(lengths) != 1:
        if not lengths:
            raise_user_error(ShardcValueError("scan got no values to scan over and `length` not provided."))
        raise_user_error(ShardcValueError(
            f"scan got `length` argument of {length} and xs leading axis sizes {sorted(lengths)}"
            if length is not None else
            f"scan got values with different leading axis sizes: {', '.join(str(t.shape[0]) for t in x_types)}."))
    n = lengths.pop()
    for t in x_types:
        if t.spec[0] is not None:
            raise_user_error(ShardcValueError(
                f"0th dimension of all xs should be replicated. Got "
                f"{PartitionSpec(*t.spec, unreduced=t.unreduced, reduced=t.reduced)!r}"), [t])
    s_types = [ArrayType(t.shape[1:], t.dtype, t.spec[1:], t.unreduced, t.reduced, t.vma, t.mesh,
                         t.weak_type, t.memory_space) for t in x_types]
    nc = len(c_flat)

    def body(*a):
        carry, y = f(_tu().tree_unflatten(c_tree, a[:nc]), _tu().tree_unflatten(x_tree, a[nc:]))
        cf_, ct = _flatten(carry)
        yf, yt = _flatten(y)
        body.trees = (ct, yt, len(cf_))
        return (*cf_, *yf)

    b = _trace_fn(lambda *a: body(*a), c_types + s_types, lambda ts: ts, getattr(f, "__name__", "f"))
    c_flat, changed = _promote_weak_carries(c_flat, c_types, b.out_types[:body.trees[2]])
    if changed:
        c_types = [type_of(a) for a in c_flat]
        b = _trace_fn(lambda *a: body(*a), c_types + s_types, lambda ts: ts, getattr(f, "__name__", "f"))
    ct, yt, nco = body.trees
    _check_carry("scan body", _carry_name(f), _paths(c_tree, nc), c_types, b.out_types[:nco], c_tree, ct)
    y_types = b.out_types[nco:]
    ys_types = tuple(ArrayType((n,) + t.shape, t.dtype, (None,) + tuple(t.spec), t.unreduced, t.reduced,
                               t.vma, t.mesh, t.weak_type, t.memory_space) for t in y_types)
    # closed-over values ride along as loop-invariant carries, after the user's
    consts = _consts(b)
    prog = b.with_consts(consts)
    nk = len(consts)
    ins, outs = prog.in_vars, prog.outputs
    prog.in_vars = ins[:nc] + ins[len(ins) - nk:] + ins[nc:len(ins) - nk]
    prog.outputs = outs[:nc] + ins[len(ins) - nk:] + outs[nc:]
    out_types = tuple(c_types) + tuple(t.aval for t in consts) + ys_types
    num_res = 0
    if keeps_residuals():   # keep each iteration's values for the backward pass
        prog, out_types, num_res = cf.with_residuals(prog, nc + nk, n, out_types)
    res = bind(cf.scan, *c_flat, *consts, *x_flat, body=prog, length=n, reverse=bool(reverse),
               num_carry=nc + nk, out_types=out_types, num_res=num_res)
    return (_tu().tree_unflatten(c_tree, _body_weak_types(res[:nc], b.out_types[:nco])),
            _tu().tree_unflatten(yt, res[nc + nk:len(res) - num_res]))


# --- map ---------------------------------------------------------------------------------------
#: `sc.vmap`, registered by the batching driver (`shardc/batching.py`, a layer above this one):
#: what `lax.map(batch_size=...)` maps each batch with, as JAX does
_VMAP: list[Callable] = []


def register_vmap(vmap: Callable) -> None:
    """The batching driver plugs `vmap` in here (this module cannot import it)."""
    _VMAP[:] = [vmap]


def registered_vmap() -> Callable:
    """`sc.vmap`, for the ops that JAX writes with `vmap` (`apply_along_axis`, `lax.map`)."""
    return _VMAP[0]


def map(f: Callable, xs, *, batch_size: int | None = None):  # noqa: A001  (jax.lax.map's name)
    """`lax.map`: `f` applied to each slice of `xs` along its leading dim (a scan
    with no carry); the results stacked.

    With `batch_size`, as JAX: whole batches of `batch_size` slices are the
    scan's iterations and the remainder is mapped after them, the results
    concatenated (`batch_size=0`: one batch of everything); each batch is
    `vmap(f)`, as in JAX (types, values and collectives as JAX's)."""
    if batch_size is None:
        _, ys = scan(lambda carry, x: (carry, f(x)), (), xs)
        return ys
    if not isinstance(batch_size, (int, np.integer)):  # JAX's TypeError
        raise_user_error(ShardcTypeError(f"{type(batch_size).__name__!r} object cannot be interpreted as an integer"))
    batch_size = int(batch_size)
    if batch_size < 0:
        raise_user_error(ShardcTypeError(f"lax.map batch_size must be non-negative, got {batch_size}"))
    batches, rest = _batch_and_remainder(xs, batch_size)
    mapped = registered_vmap()(f)
    if batches is None:
        return mapped(rest)
    _, ys = scan(lambda carry, b: (carry, mapped(b)), (), batches)
    ys = _tu().tree_map(lambda y: reshape(y, (-1, *type_of(y).shape[2:])), ys)
    if rest is None:
        return ys
    return _tu().tree_map(lambda y, r: concatenate([y, r], 0), ys, mapped(rest))


def _batch_and_remainder(xs, batch_size: int) -> tuple:
    """JAX's split of `xs` for a batched map: (the whole batches, reshaped to
    `[num_batches, batch_size, ...]`, or None; the remaining slices, or None).
    Whole batches need a replicated leading dim (JAX's ValueError); only the
    remainder (vmapped) may be sharded there."""
    leaves, tree = _flatten(xs)
    if not leaves:
        return xs, None
    leaves = _operands(leaves)
    types = [type_of(a) for a in leaves]
    n = _map_length(types)
    num, rem = divmod(n, batch_size) if batch_size else (0, n)
    whole = num * batch_size
    if num:
        for t in types:
            if t.spec[0] is not None:
                raise_user_error(ShardcValueError(
                    "0th dimension of leaf passed to `jax.lax.map` should be replicated. "
                    f"Got {t.str_short(True, True)}"), [t])
    batches = [reshape(a[:whole], (num, batch_size, *t.shape[1:])) for a, t in zip(leaves, types)] if num else None
    rests = [a[whole:] for a in leaves] if rem else None
    return (batches and _tu().tree_unflatten(tree, batches), rests and _tu().tree_unflatten(tree, rests))


def _map_length(types: list[ArrayType]) -> int:
    """The common leading dim of a batched map's values (JAX's vmap errors
    for scalars and for different sizes, as ValueErrors)."""
    for t in types:
        if t.ndim == 0:
            raise_user_error(ShardcValueError(
                f"lax.map got value with no leading axis to map over: {t.str_short(short_dtypes=False)}"), [t])
    sizes = [t.shape[0] for t in types]
    if len(set(sizes)) != 1:
        raise_user_error(ShardcValueError(
            f"lax.map got inconsistent sizes for array axes to be mapped: {', '.join(str(k) for k in sizes)}."))
    return sizes[0]
