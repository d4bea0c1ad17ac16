"""Control flow: `cond`, `while` and `scan`, each holding nested programs (JAX rules §2.16).

The front end (`shardc/ops/control_flow.py`) traces the branches / bodies and
checks their types (equal branch outputs, equal carry in/out types, replicated
leading dim of `xs`); the primitives carry the result types in `out_types`.
Lowering: `stablehlo.case` for `cond`, `stablehlo.while` for `while` and `scan`
(scan slices `xs` at the loop index and updates the stacked `ys` in place).
"""
from __future__ import annotations

import numpy as np

from ..core import Nested, Tracer, bind, current_trace
from ..emit.text import tensor_type, ttype
from ..errors import ShardcNotImplementedError, ShardcValueError
from ..ir import Program, Var
from ..transforms.ad import differentiable, in_forward_pullback, replay
from ..types import ArrayType
from .collectives import Collective
from .reductions import REDUCE

_I32 = np.dtype("int32")
_BOOL = np.dtype("bool")


def _sig(types) -> str:
    return ", ".join(ttype(t) for t in types)


class _Nested(Nested):
    pass


def _body_vjp(L, prog: Program, args: list, cts: list) -> tuple:
    """Inside a traced function: replay `prog` on `args` and take the cotangents
    of `args` for output cotangents `cts` (zeros of the cotangent type where
    none flows), so every branch / iteration gives the same types."""
    trace = current_trace()
    start = len(trace.eqns)
    outs = L.eval_program(prog, args)
    res = L.backward(trace, trace.eqns[start:], [a._var for a in args], [o._var for o in outs], list(cts))
    return tuple(L.fit_ct(c, a.aval) if c is not None else L.zeros_ct(a.aval) for c, a in zip(res, args))


def _block(inner, names, types) -> str:
    return "^bb0(" + ", ".join(f"{n}: {ttype(t)}" for n, t in zip(names, types)) + "):"


class Cond(_Nested):
    """`cond(pred, *operands; false_branch, true_branch)`: pred is a bool scalar.

    Unlike the other nested primitives, operands are made to vary over the
    predicate's manual axes first (auto pcast): with a per-device predicate,
    devices take different branches, so the cotangent sums of closed-over
    invariant values (psum, the transpose of pvary) must happen outside the
    branches, where every device reaches them (JAX relies on XLA hoisting them)."""
    name = "cond"
    auto_pcast = True

    def vjp(self, L, cts, ins, outs, *, true_branch, false_branch, out_types):
        """A `cond` on the same predicate whose branches differentiate the
        primal branches (each replayed on the operands)."""
        pred, ops = ins[0], list(ins[1:])
        n = len(ops)

        def branch(prog):
            return lambda *a: _body_vjp(L, prog, list(a[:n]), list(a[n:]))

        res = L.cond(pred, branch(true_branch), branch(false_branch), *ops, *cts)
        return [None, *res]

    def batch(self, B, axis, args, dims, *, true_branch, false_branch, out_types):
        """An unbatched predicate: a cond of the batched branches (outputs batched in either
        branch batched at 0 in both). A batched one: both branches computed, then `select_n`
        per example, as JAX."""
        pred, ops = args[0], list(args[1:])
        pd, ods = dims[0], list(dims[1:])
        if pd is None:
            _, td = B.batch_program(true_branch, ods, axis)
            _, fd = B.batch_program(false_branch, ods, axis)
            want = [0 if a is not None or b is not None else None for a, b in zip(td, fd)]
            tp, _ = B.batch_program(true_branch, ods, axis, want=want)
            fp, _ = B.batch_program(false_branch, ods, axis, want=want)
            types = tuple(a if not a.weak_type or b.weak_type else b
                          for a, b in zip(tp.out_types, fp.out_types))
            outs = B.bind(self, pred, *ops, true_branch=tp, false_branch=fp, out_types=types)
            return outs, want
        t_outs, t_d = B.batch_eval(true_branch, ops, ods, axis)
        f_outs, f_d = B.batch_eval(false_branch, ops, ods, axis)
        pred = B.moveaxis(pred, pd, 0)
        res = []
        for t, td, f, fd in zip(t_outs, t_d, f_outs, f_d):
            t = B.matchaxis(t, td, 0, axis.size, axis.entry)
            f = B.matchaxis(f, fd, 0, axis.size, axis.entry)
            ot = B.type_of(t)
            # as JAX's `_bcast_select_n`: the predicate keeps its own sharding (so cases sharded
            # on other dims are JAX's select_n sharding error)
            p = B.broadcast_in_dim(pred, ot.shape, (0,)) if ot.ndim > 1 else pred
            res.append(B.select_n(p, f, t))
        return res, [0] * len(res)

    def lower(self, ctx, eqn, pred, *args):
        outs = [v.type for v in eqn.outputs]
        n = len(outs)
        # JAX's `stablehlo.case` on the predicate as an index (false: branch 0), not
        # `stablehlo.if`: Shardy aborts the process on an `if` whose results differ in
        # unreduced axes (the gradient of a cond carrying reduced values), not on a `case`
        idx = ctx.op(f"stablehlo.convert {pred} : ({ttype(eqn.inputs[0].type)}) -> tensor<i32>")
        lhs, names = ctx.results(n)
        ctx.emit(f'{lhs} = "stablehlo.case"({idx}) ({{')
        for i, key in enumerate(("false_branch", "true_branch")):
            prog: Program = eqn.params[key]
            inner = ctx.child(prog.mesh)
            res = inner.lower_body(prog, list(args))
            inner.emit(f"stablehlo.return {', '.join(res)} : {_sig(o.type for o in prog.outputs)}")
            if i == 0:
                ctx.emit("}, {")
        ctx.emit(f"}}) : (tensor<i32>) -> ({_sig(outs)}){ctx._loc}")
        return names


class While(_Nested):
    """`while(*carry; cond_body, body)`: `cond_body` maps the carry to a bool
    scalar, `body` maps the carry to a carry of the same types."""
    name = "while"

    def vjp(self, L, cts, ins, outs, *, cond_body, body, out_types):
        """Reverse mode: none (the trip count is dynamic), JAX's error. Forward mode, which
        shardc takes as reverse mode transposed, is the loop's JVP: in the pullback of a
        forward-mode derivative the loop stands transposed (`while_jvp_transposed`)."""
        if in_forward_pullback():
            return bind(while_jvp_transposed, *cts, *ins, cond_body=cond_body, body=body,
                        out_types=tuple(L.type_of(c) for c in cts))
        raise ShardcValueError(
            "Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with "
            "dynamic start/stop values. Try using lax.scan, or using fori_loop with static "
            "start/stop.")

    def batch(self, B, axis, args, dims, *, cond_body, body, out_types):
        """Carries batched where the initial value or the body makes them so (a fixed point).
        A batched predicate (JAX's rule): every carry batched, the loop runs while any example's
        predicate holds, and examples that are done keep their carries (`select_n`)."""
        n = len(args)
        bat = [d is not None for d in dims]
        while True:
            _, od = B.batch_program(body, [0 if b else None for b in bat], axis)
            new = [b or d is not None for b, d in zip(bat, od)]
            if new == bat:
                break
            bat = new
        _, (pd,) = B.batch_program(cond_body, [0 if b else None for b in bat], axis)
        if pd is not None:
            bat = [True] * n
            if axis.ema:
                raise ShardcNotImplementedError(
                    "vmap of a while_loop whose predicate differs per example, with the mapped dim sharded "
                    f"over Explicit mesh axes {axis.ema}, is not implemented (JAX 0.10.2 fails here too: "
                    f"\"Resource axis: {axis.ema[0]} ... is not found in mesh\"); reshard the mapped dim to be "
                    "replicated first, or make the predicate the same for every example")
        cdims = [0 if b else None for b in bat]
        carries = [B.matchaxis(x, d, c, axis.size, axis.entry) for x, d, c in zip(args, dims, cdims)]
        bp, _ = B.batch_program(body, cdims, axis, want=cdims)
        cp, (pd,) = B.batch_program(cond_body, cdims, axis, want=["any"])
        types = [B.type_of(c) for c in carries]
        if pd is None:
            outs = B.bind(self, *carries, cond_body=cp, body=bp, out_types=tuple(types))
            return outs, cdims
        ev = B.batch_eval

        def any_cond(*c):
            (p,), _ = ev(cp, list(c), [None] * n, axis)
            return [B.bind(REDUCE["or"], B.moveaxis(p, pd, 0), axes=(0,), out_sharding=None)]

        def step(*c):
            (p,), _ = ev(cp, list(c), [None] * n, axis)
            nxt, _ = ev(bp, list(c), [None] * n, axis)
            p = B.moveaxis(p, pd, 0)
            out = []
            for x, y in zip(c, nxt):
                t = B.type_of(x)
                q = p
                if t.ndim > 1:
                    spec = B.PartitionSpec(*t.spec) if t.mesh.has_explicit else None
                    q = B.broadcast_in_dim(p, t.shape, (0,), out_sharding=spec)
                out.append(B.select_n(q, x, y))
            return out

        cp2 = B.trace_program(any_cond, types, "cond_fun")
        bp2 = B.trace_program(step, types, "body_fun")
        outs = B.bind(self, *carries, cond_body=cp2, body=bp2, out_types=tuple(types))
        return outs, cdims

    def lower(self, ctx, eqn, *args):
        types = [v.type for v in eqn.outputs]
        n = len(types)
        lhs, names = ctx.results(n)
        ctx.emit(f'{lhs} = "stablehlo.while"({", ".join(args)}) ({{')
        for i, key in enumerate(("cond_body", "body")):
            prog: Program = eqn.params[key]
            inner = ctx.child(prog.mesh)
            block = [inner.fresh("w") for _ in types]
            ctx.emit(_block(inner, block, types))
            block = [inner.constrain(b, t) for b, t in zip(block, types)]
            res = inner.lower_body(prog, block)
            inner.emit(f"stablehlo.return {', '.join(res)} : {_sig(o.type for o in prog.outputs)}")
            if i == 0:
                ctx.emit("}, {")
        ctx.emit(f"}}) : ({_sig(types)}) -> ({_sig(types)}){ctx._loc}")
        return names


class WhileJvpTransposed(_Nested):
    """Forward mode through a `while` loop, held transposed.

    shardc's forward mode is its reverse mode transposed (`autodiff.linearize`): a JVP comes
    from transposing the pullback. A `while` has no pullback (its trip count is dynamic) but it
    has a JVP, a loop carrying primal and tangent values together (JAX's `_while_loop_jvp`).
    In the pullback of a forward-mode derivative `While.vjp` binds this equation in the loop's
    place, `(cotangents of the loop's results, the loop's operands) -> cotangents of its
    operands`. It is never computed (its results are dead; DCE drops it before lowering): only
    its own VJP is, when the pullback is transposed, and that VJP is the JVP loop, mapping the
    operands' tangents to the results' tangents. Reverse mode of the JVP loop is JAX's error
    again, as `grad(jvp(while))` is in JAX."""
    name = "while_jvp_transposed"
    #: cotangents of its results are the loop operands' tangents: None where none flows
    sparse_cts = True

    def vjp(self, L, cts, ins, outs, *, cond_body, body, out_types):
        n = len(out_types)
        primals = list(ins[n:])
        diff = [k for k in range(n) if differentiable(L.type_of(primals[k]))]
        tangents = [L.fit_ct(cts[k], L.type_of(primals[k])) if cts[k] is not None
                    else L.zeros_ct(L.type_of(primals[k])) for k in diff]

        def cond_fn(carry):
            return L.eval_program(cond_body, list(carry[:n]))[0]

        def body_fn(carry):
            p = list(carry[:n])

            def step(*qs):
                full = list(p)
                for k, q in zip(diff, qs):
                    full[k] = q
                return tuple(L.eval_program(body, full))

            out, t_out = L.jvp(step, tuple(p[k] for k in diff), tuple(carry[n:]))
            return (*out, *(L.fit_ct(t_out[k], L.type_of(p[k])) for k in diff))

        res = L.while_loop(cond_fn, body_fn, (*primals, *tangents))
        t_final = dict(zip(diff, res[n:]))
        return [*(t_final.get(k) for k in range(n)), *[None] * n]

    def batch(self, B, axis, args, dims, **params):
        """One example at a time (its results are dead; the scan keeps its meaning exact)."""
        return B.map_fallback(self, args, dims, params, axis)

    def lower(self, ctx, eqn, *args):
        """Zeros: the results feed only the rest of a forward-mode derivative's pullback, whose
        values the derivative discards (it keeps the pullback's transpose); they reach the module
        where the pullback runs through a loop's carries, which DCE keeps, and XLA drops them."""
        return [ctx.splat(0, v.type.dtype, v.type.shape) for v in eqn.outputs]


while_jvp_transposed = WhileJvpTransposed()


class Scan(_Nested):
    """`scan(*init, *xs; body, length, reverse, num_carry)`: the body maps
    (carry, x slice) to (carry, y slice); results are the final carry and the
    stacked ys."""
    name = "scan"

    def vjp(self, L, cts, ins, outs, *, body, length, reverse, num_carry, out_types, num_res=0):
        """With residuals (a scan traced under differentiation, `with_residuals`):
        one reverse scan over the saved per-iteration values that replays the
        body with them standing in (nothing saved is recomputed, collectives
        included) and differentiates it. Without (a scan built by another
        rule): the forward again to stack the carries, then the same."""
        nc = num_carry
        n_ys = len(out_types) - nc - num_res
        init, xs = list(ins[:nc]), list(ins[nc:])
        ct_carry, ct_ys = list(cts[:nc]), list(cts[nc:nc + n_ys])
        if num_res:
            stacked, saved = _residuals(body, nc, n_ys, list(outs[nc + n_ys:]))
        else:
            stacked, saved = _recompute_carries(L, body, nc, init, xs, length, reverse), {}
        variant = sorted(stacked)
        prog = Program(body.name, body.in_vars, body.eqns, body.outputs[:nc + n_ys], body.mesh)
        ids = sorted(saved)

        def backward(ct_c, slices):
            c_var, x_i, res_i, ct_y = slices
            c_i = list(init)
            for k, v in zip(variant, c_var):
                c_i[k] = v
            return _body_vjp_saved(L, prog, nc, [*c_i, *x_i], dict(zip(ids, res_i)), [*ct_c, *ct_y])

        ct_init, ct_xs = L.scan(backward, tuple(ct_carry),
                                (tuple(stacked[k] for k in variant), tuple(xs), tuple(saved[i] for i in ids),
                                 tuple(ct_ys)), length=length, reverse=not reverse)
        return [*ct_init, *ct_xs]

    def batch(self, B, axis, args, dims, *, body, length, reverse, num_carry, out_types, num_res=0):
        """Batched xs carry their batch dim at 1 (each slice at 0); carries batched where the
        initial value or the body makes them so (a fixed point); batched ys at 0 per slice, so
        at 1 stacked."""
        nc = num_carry
        init, xs = list(args[:nc]), list(args[nc:])
        xs = [B.moveaxis(x, d, 1) if d is not None else x for x, d in zip(xs, dims[nc:])]
        xdims = [0 if d is not None else None for d in dims[nc:]]
        bat = [d is not None for d in dims[:nc]]
        while True:
            _, od = B.batch_program(body, [0 if b else None for b in bat] + xdims, axis)
            new = [b or d is not None for b, d in zip(bat, od[:nc])]
            if new == bat:
                break
            bat = new
        cdims = [0 if b else None for b in bat]
        ydims = [0 if d is not None else None for d in od[nc:]]
        init = [B.matchaxis(x, d, c, axis.size, axis.entry) for x, d, c in zip(init, dims[:nc], cdims)]
        prog, _ = B.batch_program(body, cdims + xdims, axis, want=cdims + ydims)
        ys_types = tuple(_stacked(o.type, length) for o in prog.outputs[nc:])
        types = tuple(B.type_of(c) for c in init) + ys_types
        outs = B.bind(self, *init, *xs, body=prog, length=length, reverse=reverse, num_carry=nc,
                      out_types=types, num_res=num_res)
        return outs, cdims + [1 if d is not None else None for d in ydims]

    def lower(self, ctx, eqn, *args):
        p = eqn.params
        body: Program = p["body"]
        nc, length, reverse = p["num_carry"], p["length"], p["reverse"]
        outs = [v.type for v in eqn.outputs]
        carry_t, ys_t = outs[:nc], outs[nc:]
        xs_t = [a.type for a in eqn.inputs[nc:]]
        i32 = tensor_type((), _I32)
        zero = ctx.op(f"stablehlo.constant dense<0> : {i32}")
        bufs = []
        for t in ys_t:
            b = ctx.splat(0, t.dtype, t.shape)
            bufs.append(ctx.constrain(b, t))
        types = [ArrayType((), _I32)] + carry_t + ys_t + xs_t
        init = [zero] + list(args[:nc]) + bufs + list(args[nc:])
        n = len(types)
        name = ctx.fresh()
        ctx.emit(f'{name}:{n} = "stablehlo.while"({", ".join(init)}) ({{')
        _scan_condition(ctx, body.mesh, types, length)
        ctx.emit("}, {")
        inner = ctx.child(body.mesh)
        block = [inner.fresh("w") for _ in types]
        ctx.emit(_block(inner, block, types))
        it = block[0]
        carry = [inner.constrain(b, t) for b, t in zip(block[1:1 + nc], carry_t)]
        bufs = block[1 + nc:1 + nc + len(ys_t)]
        xs = block[1 + nc + len(ys_t):]
        z = inner.op(f"stablehlo.constant dense<0> : {i32}")
        one = inner.op(f"stablehlo.constant dense<1> : {i32}")
        if reverse:
            last = inner.op(f"stablehlo.constant dense<{length - 1}> : {i32}")
            idx = inner.op(f"stablehlo.subtract {last}, {it} : {i32}")
        else:
            idx = it
        slices = [_scan_slice(inner, x, t, v.type, idx, z) for x, t, v in zip(xs, xs_t, body.in_vars[nc:])]
        res = inner.lower_body(body, carry + slices)
        new_bufs = [_scan_update(inner, buf, y, t, yv.type, idx, z)
                    for buf, y, t, yv in zip(bufs, res[nc:], ys_t, body.outputs[nc:])]
        nxt = inner.op(f"stablehlo.add {it}, {one} : {i32}")
        rets = [nxt] + res[:nc] + new_bufs + list(xs)
        inner.emit(f"stablehlo.return {', '.join(rets)} : {_sig(types)}")
        ctx.emit(f"}}) : ({_sig(types)}) -> ({_sig(types)}){ctx._loc}")
        return [f"{name}#{i}" for i in range(1, 1 + nc + len(ys_t))]




def check_uniform_collectives(pred: ArrayType, branches: list[Program]) -> None:
    """A collective over a manual axis inside a `cond` whose predicate varies
    over that axis would leave the devices that took the other branch waiting
    forever (XLA's rendezvous hangs). Refuse it instead (JAX leaves it to XLA,
    which hoists some such collectives out of the branches and hangs on others)."""
    axes = pred.vma
    if not axes:
        return
    for prog in branches:
        for e in prog.eqns:
            if isinstance(e.prim, Collective) and axes & frozenset(e.params.get("axes") or ()):
                raise ShardcNotImplementedError(
                    f"`{e.api or e.prim.name}` over {sorted(axes & frozenset(e.params['axes']))} inside a cond "
                    f"whose predicate varies over those axes ({pred}): devices taking different branches "
                    "would wait for each other forever. Make the predicate invariant (e.g. reduce it with "
                    "sc.pmax / sc.psum over the axes) or compute both branches and pick with sc.where. "
                    "Under sc.grad this arises from a branch using a value the branch closed over that "
                    "does not vary over those axes: pass it through sc.pcast(..., to='varying') first.",
                    loc=e.loc)
            check_uniform_collectives(pred, e.prim.sub_programs(e.params))


def _invariant(body: Program, nc: int) -> set[int]:
    """Carries the body passes through unchanged (closed-over values): not stacked."""
    return {k for k in range(nc) if body.outputs[k] is body.in_vars[k]}


def with_residuals(body: Program, num_carry: int, length: int, out_types: tuple) -> tuple[Program, tuple, int]:
    """A scan's body and result types extended for reverse mode (the front end
    calls this under differentiation): the body also returns each iteration's
    input carries (those that change) and the results of its top-level
    equations, stacked per iteration, so the backward pass recomputes nothing."""
    inv = _invariant(body, num_carry)
    carries = [v for k, v in enumerate(body.in_vars[:num_carry]) if k not in inv]
    saved = [v for e in _reaching_outputs(body) for v in e.outputs]
    extra = carries + saved
    prog = Program(body.name, body.in_vars, body.eqns, [*body.outputs, *extra], body.mesh)
    types = tuple(_stacked(v.type, length) for v in extra)
    return prog, (*out_types, *types), len(extra)


def _reaching_outputs(body: Program) -> list:
    """The body's equations a result depends on, in order: only their values are saved (no
    cotangent reaches the others, and stacking them per iteration costs memory: the dead
    pullback of a `jvp` inside the body holds a `while_jvp_transposed`, which has no value)."""
    live = set(body.outputs)   # (values by identity)
    kept = []
    for e in reversed(body.eqns):
        if not live.isdisjoint(e.outputs):
            kept.append(e)
            live.update(a for a in e.inputs if isinstance(a, Var))
    return kept[::-1]


def _stacked(t: ArrayType, n: int) -> ArrayType:
    return ArrayType((n, *t.shape), t.dtype, (None, *t.spec), t.unreduced, t.reduced, t.vma, t.mesh, t.weak_type,
                     t.memory_space)


def _residuals(body: Program, nc: int, n_ys: int, res: list) -> tuple[dict, dict]:
    """The residual outputs of a scan made by `with_residuals`, as (carry index →
    stacked carry-ins, body var id → stacked values)."""
    inv = _invariant(body, nc)
    variant = [k for k in range(nc) if k not in inv]
    extra = body.outputs[nc + n_ys:]
    stacked = dict(zip(variant, res[:len(variant)]))
    saved = {v.id: r for v, r in zip(extra[len(variant):], res[len(variant):])}
    return stacked, saved


def _recompute_carries(L, body: Program, nc: int, init: list, xs: list, length: int, reverse: bool) -> dict:
    """Each iteration's input carries, by running the forward scan again."""
    def forward(c, x):
        new = L.eval_program(body, [*c, *x])
        return tuple(new[:nc]), tuple(c)

    _, carries = L.scan(forward, tuple(init), tuple(xs), length=length, reverse=reverse)
    return dict(enumerate(carries))


def _body_vjp_saved(L, prog: Program, nc: int, args: list, saved: dict, cts: list) -> tuple:
    """One backward iteration: replay the body on `args` with `saved` values
    standing in, then reverse mode; (carry cotangents, x-slice cotangents)."""
    trace = current_trace()
    # values of the enclosing program (invariant carries) as this body's own inputs
    args = [Tracer(trace, trace.atom(a)) if isinstance(a, Tracer) else a for a in args]
    eqns = replay(trace, prog, args, saved)
    outs = eqns.pop()
    pairs = [(o._var, c) for o, c in zip(outs, cts) if hasattr(o, "_var")]
    res = L.backward(trace, eqns, [a._var for a in args], [v for v, _ in pairs], [c for _, c in pairs])
    res = tuple(L.fit_ct(c, a.aval) if c is not None else L.zeros_ct(a.aval) for c, a in zip(res, args))
    return res[:nc], res[nc:]


def _scan_condition(ctx, mesh, types, length: int) -> None:
    """The while loop's condition region: `i < length`."""
    i32 = tensor_type((), _I32)
    inner = ctx.child(mesh)
    block = [inner.fresh("w") for _ in types]
    ctx.emit(_block(inner, block, types))
    lim = inner.op(f"stablehlo.constant dense<{length}> : {i32}")
    pr = inner.op(f"stablehlo.compare LT, {block[0]}, {lim} : ({i32}, {i32}) -> {tensor_type((), _BOOL)}")
    inner.emit(f"stablehlo.return {pr} : {tensor_type((), _BOOL)}")


def _scan_slice(inner, x: str, t: ArrayType, out: ArrayType, idx: str, z: str) -> str:
    """Row `idx` of a scanned-over operand `x`, as the body's input type `out`."""
    i32 = tensor_type((), _I32)
    sizes = [1] + list(t.shape[1:])
    st = tensor_type(tuple(sizes), t.dtype)
    ind = ", ".join([idx] + [z] * (t.ndim - 1))
    s = inner.op(f"stablehlo.dynamic_slice {x}, {ind}, sizes = [{', '.join(map(str, sizes))}] : "
                 f"({ttype(t)}, {', '.join([i32] * t.ndim)}) -> {st}")
    r = inner.op(f"stablehlo.reshape {s} : ({st}) -> {ttype(out)}")
    return inner.constrain(r, out)


def _scan_update(inner, buf: str, y: str, t: ArrayType, yt: ArrayType, idx: str, z: str) -> str:
    """The stacked output `buf` with row `idx` set to the body's output `y`."""
    i32 = tensor_type((), _I32)
    ut = tensor_type((1,) + tuple(yt.shape), t.dtype)
    r = inner.op(f"stablehlo.reshape {y} : ({ttype(yt)}) -> {ut}")
    ind = ", ".join([idx] + [z] * (t.ndim - 1))
    u = inner.op(f"stablehlo.dynamic_update_slice {buf}, {r}, {ind} : "
                 f"({ttype(t)}, {ut}, {', '.join([i32] * t.ndim)}) -> {ttype(t)}")
    return inner.constrain(u, t)


cond = Cond()
while_p = While()
scan = Scan()

