"""User-defined differentiation rules: `custom_vjp_call`, `custom_jvp_call` (JAX rules §3.4).

The front end (`shardc/ops/custom.py`) binds these only while a function is
being differentiated (elsewhere it calls the user's function directly, so a
program that is never differentiated has no trace of them, and its values are
the primal function's, as in JAX).

- `custom_vjp_call(*args, *consts; fwd, bwd, num_out)` holds the user's `fwd`
  traced as a nested program whose results are the primal outputs followed by
  the residuals; the equation's outputs are both, so the residuals are values
  of the forward program (saved, never recomputed) and the VJP rule hands them
  to the user's `bwd`.
- `custom_jvp_call(*args, *consts; fun, jvp)` holds the primal function; its
  VJP transposes the user's JVP rule: the rule is traced on fresh tangent
  variables (copies of the primals, of the tangent types), and reverse mode
  through the recorded tangent computation, which is linear in the tangents,
  is its transpose.

Both lower by inlining their program (JAX lowers `fwd` / `fun` the same way).
Differentiating with respect to a value the function closed over is an error,
as in JAX: the user's rule only speaks of the explicit arguments.
"""
from __future__ import annotations

from typing import Any

from ..core import Nested, Tracer, current_loc, current_trace, user_code
from ..errors import ShardcNotImplementedError, ShardcTypeError, ShardcValueError
from ..ir import Program
from ..transforms.ad import forward_apis, in_forward_pullback, is_linearizing
from ..transforms.batching import vmap_in_scope

__all__ = ["custom_vjp_call", "custom_jvp_call", "custom_vmap_call"]

_CLOSURE_MSG = (
    "Detected differentiation of a {kind} function with respect to a closed-over value. That isn't "
    "supported because the custom {rule} rule only specifies how to differentiate the {kind} function "
    "with respect to explicit input parameters. Try passing the closed-over value into the {kind} "
    "function as an argument, and adapting the {kind} rules.")


class _Custom(Nested):
    """Shared by both: inlined when lowered; closed-over values get no cotangent."""
    constrain_outputs = False
    kind, rule = "?", "?"

    def format_params(self, params: dict[str, Any]) -> str:
        # the user's rules are Python functions (`name` says whose they are)
        shown = {k: v for k, v in params.items()
                 if k not in ("out_types", "num_consts") and (isinstance(v, Program) or not callable(v))}
        return super().format_params(shown)

    def check_live(self, live: list[bool], *, num_consts: int, **_) -> None:
        """Called by reverse mode with which inputs carry cotangents."""
        if num_consts and any(live[len(live) - num_consts:]):
            raise ShardcTypeError(_CLOSURE_MSG.format(kind=self.kind, rule=self.rule))

    def _program(self, params: dict[str, Any]) -> Program:
        raise NotImplementedError

    def lower(self, ctx, eqn, *args):
        return ctx.lower_body(self._program(eqn.params), list(args))


class CustomVjpCall(_Custom):
    """`custom_vjp_call(*args, *consts; fwd, bwd, num_out, num_consts)`."""
    name = "custom_vjp_call"
    kind, rule = "custom_vjp", "VJP"

    def _program(self, params):
        return params["fwd"]

    #: cotangents of the residual outputs arrive as None unless a higher-order
    #: differentiation reaches them
    sparse_cts = True

    def batch(self, B, axis, args, dims, *, fwd, bwd, num_out, num_consts, out_types, name):
        """Every operand, output and residual batched at 0; `bwd` applied per example."""
        xs = [B.bdim_at_front(x, d, axis.size, axis.entry) for x, d in zip(args, dims)]
        zeros = [0] * len(xs)
        prog, _ = B.batch_program(fwd, zeros, axis, want=[0] * len(fwd.outputs))
        n_res = len(fwd.outputs) - num_out

        def bwd_b(res, cts):
            return B.apply_batched(lambda *a: bwd(list(a[:n_res]), list(a[n_res:])), [*res, *cts],
                                   [0] * (n_res + len(cts)), axis)

        outs = B.bind(self, *xs, fwd=prog, bwd=bwd_b, num_out=num_out, num_consts=num_consts,
                      out_types=tuple(prog.out_types), name=name)
        return outs, [0] * len(outs)

    def vjp(self, L, cts, ins, outs, *, fwd, bwd, num_out, num_consts, out_types, name):
        """The user's `bwd` on the saved residuals and the outputs' cotangents
        (`bwd` is the front end's flattened wrapper: one cotangent or None per
        argument leaf, already checked against the arguments' types). Where an
        outer differentiation also sends cotangents to the residuals (grad of
        grad), they flow back through `fwd` by ordinary reverse mode, as JAX."""
        n_args = len(ins) - num_consts
        if getattr(bwd, "forward_refused", False) and in_forward_pullback() and \
                any(c is not None for c in cts[:num_out]):
            raise ShardcTypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function.",
                                  op="sc.custom_vjp", loc=current_loc())
        primal_cts = [c if c is not None else L.zeros_ct(o.aval) for c, o in zip(cts[:num_out], outs)]
        with user_code():
            cts_in = list(bwd(list(outs[num_out:]), primal_cts))
        res_cts = list(cts[num_out:])
        if any(c is not None for c in res_cts):
            trace = current_trace()
            start = len(trace.eqns)
            replayed = L.eval_program(fwd, list(ins))
            seeds = [(r._var, c) for r, c in zip(replayed[num_out:], res_cts) if c is not None and hasattr(r, "_var")]
            more = L.backward(trace, trace.eqns[start:], [a._var for a in ins[:n_args] if hasattr(a, "_var")],
                              [v for v, _ in seeds], [c for _, c in seeds])
            live = iter(more)
            more = [next(live) if hasattr(a, "_var") else None for a in ins[:n_args]]
            # one value passed as several arguments: `backward` gives each occurrence the value's
            # whole cotangent, and the caller adds the arguments' cotangents up: keep one
            seen: set[int] = set()
            for k, a in enumerate(ins[:n_args]):
                if hasattr(a, "_var"):
                    if a._var.id in seen:
                        more[k] = None
                    seen.add(a._var.id)
            cts_in = [m if c is None else (c if m is None else L.add(c, L.fit_ct(m, L.type_of(a))))
                      for c, m, a in zip(cts_in, more, ins[:n_args])]
        return [*(L.fit_ct(c, L.type_of(a)) if c is not None else None
                  for c, a in zip(cts_in, ins[:n_args])), *[None] * num_consts]


class CustomJvpCall(_Custom):
    """`custom_jvp_call(*args, *consts; fun, jvp, num_consts)`."""
    name = "custom_jvp_call"
    kind, rule = "custom_jvp", "JVP"

    def _program(self, params):
        return params["fun"]

    def batch(self, B, axis, args, dims, *, fun, jvp, num_consts, out_types, name):
        """Every operand and output batched at 0; the user's `jvp` applied per example."""
        xs = [B.bdim_at_front(x, d, axis.size, axis.entry) for x, d in zip(args, dims)]
        prog, _ = B.batch_program(fun, [0] * len(xs), axis, want=[0] * len(fun.outputs))

        def jvp_b(primals, tangents):
            n = len(primals)
            return B.apply_batched(lambda *a: jvp(list(a[:n]), list(a[n:])), [*primals, *tangents],
                                   [0] * (n + len(tangents)), axis)

        outs = B.bind(self, *xs, fun=prog, jvp=jvp_b, num_consts=num_consts, out_types=tuple(prog.out_types),
                      name=name)
        return outs, [0] * len(outs)

    #: which arguments of the equation reverse mode is at carry cotangents (`check_live`)
    _live: list[bool] | None = None

    def check_live(self, live: list[bool], **params) -> None:
        super().check_live(live, **params)
        self._live = live

    def vjp(self, L, cts, ins, outs, *, fun, jvp, num_consts, out_types, name):
        """Transpose of the user's JVP rule: trace it on fresh tangents, then
        reverse mode from the tangent outputs back to those tangents. A rule that takes
        symbolic zeros gets None (the front end's `SymbolicZero`) for each argument that
        no differentiated input reaches."""
        n_args = len(ins) - num_consts
        # constant operands (reverse mode's typed constants) reach the user's rule as arrays
        primals = [p if isinstance(p, Tracer) else L.copy(p) for p in ins[:n_args]]
        live, self._live = self._live, None
        sym = getattr(jvp, "symbolic_zeros", False) and live is not None
        tangents = [None if sym and not live[i] else L.copy(p) for i, p in enumerate(primals)]
        trace = current_trace()
        start = len(trace.eqns)
        with user_code():
            t_out = jvp(primals, tangents)
        pairs = [(o._var, c) for o, c in zip(t_out, cts) if hasattr(o, "_var")]
        res = L.backward(trace, trace.eqns[start:], [t._var for t in tangents if t is not None],
                         [v for v, _ in pairs], [c for _, c in pairs])
        res = iter(res)
        return [*(None if t is None else next(res) for t in tangents), *[None] * num_consts]


class CustomVmapCall(_Custom):
    """`custom_vmap_call(*args, *consts; fun, rule, num_consts)` (JAX's `custom_vmap_p`):
    `fun` inlined where nothing batches it; `sc.vmap` applies `rule`, the front end's
    flattened user rule `rule(axis_size, in_batched, args) -> (outs, out_batched)`."""
    name = "custom_vmap_call"
    kind, rule = "custom_vmap", "vmap"

    def _program(self, params):
        return params["fun"]

    def batch(self, B, axis, args, dims, *, fun, rule, num_consts, out_types, name):
        """The user's rule on the operands, batch dims moved to the front (unbatched ones
        left as they are); each result batched at 0 where the rule says so."""
        n_args = len(args) - num_consts
        if any(d is not None for d in dims[n_args:]):
            raise ShardcTypeError(
                f"custom_vmap function {name} closes over a value batched by this vmap; pass it as an "
                "argument so its vmap rule sees it")
        xs = [x if d is None else B.moveaxis(x, d, 0) for x, d in zip(args[:n_args], dims[:n_args])]
        with user_code():
            outs, out_batched = rule(axis.size, [d is not None for d in dims[:n_args]], xs)
        return list(outs), [0 if b else None for b in out_batched]

    def vjp(self, L, cts, ins, outs, *, fun, rule, num_consts, out_types, name):
        """JAX linearizes `custom_vmap_call` by partial evaluation, which leaves its primal
        outputs unknown: reverse mode through it fails (`vmap` first, then differentiate).
        Forward mode works: JAX's JVP of an unbatched call is the JVP of `fun`, so (forward
        mode being reverse mode transposed) `fun` is replayed and differentiated here. Under
        a vmap JAX batches the JVP with the JVP of the rule, which is not built."""
        apis, reverse = forward_apis()
        if is_linearizing() and (vmap_in_scope() or "jacfwd" in apis):
            raise ShardcNotImplementedError(
                f"forward-mode differentiation (jvp) of the custom_vmap function {name} inside a vmap (or "
                "jacfwd) is not supported by shardc (JAX's JVP of a custom_vmap rule is not built); vmap it "
                "first, then differentiate")
        # `sc.jvp`s only (JAX's jvp of jvp), not under `sc.linearize` or reverse mode
        if is_linearizing() and all(a == "jvp" for a in apis) and reverse < len(apis):
            n_args = len(ins) - num_consts
            xs = [L.copy(a) for a in ins[:n_args]]
            trace = current_trace()
            start = len(trace.eqns)
            with user_code():
                ys = L.eval_program(fun, [*xs, *ins[n_args:]])
            pairs = [(y._var, c) for y, c in zip(ys, cts) if hasattr(y, "_var") and c is not None]
            res = L.backward(trace, trace.eqns[start:], [x._var for x in xs],
                             [v for v, _ in pairs], [c for _, c in pairs])
            return [*res, *[None] * num_consts]
        raise ShardcValueError(
            "Linearization failed to produce known values for all output primals. This is typically caused "
            "by attempting to differentiate a function uses an operation that does not support reverse-mode "
            "autodiff.")


custom_vjp_call = CustomVjpCall()
custom_jvp_call = CustomJvpCall()
custom_vmap_call = CustomVmapCall()
