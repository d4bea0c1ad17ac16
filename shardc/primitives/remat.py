"""Rematerialization: `checkpoint` (a nested program recomputed in the backward
pass), `name` (`checkpoint_name`, a value policies can pick) and
`optimization_barrier` (keeps XLA from merging the recomputation with the
forward), as JAX's `jax.checkpoint` (docs/rules.md §3.5).

Under differentiation the front end (`shardc/ops/remat.py`) asks the policy
which of the body's equations may be saved; their results become extra
outputs of the `checkpoint` equation (residuals, computed once, forward). The
VJP replays the body on the (barriered) inputs and residuals: a saved
equation is not recomputed, its saved value stands in, and reverse mode runs
through the replay, so only what the policy did not save is recomputed.
"""
from __future__ import annotations

from typing import Any

from ..core import Nested, Primitive, bind, current_trace
from ..emit.text import ttype
from ..ir import Program
from ..transforms.ad import replay
from ..types import ArrayType
from .sharding_ops import device_put_p

__all__ = ["checkpoint", "name", "optimization_barrier"]


class Checkpoint(Nested):
    """`checkpoint(*args, *consts; body, prevent_cse, policy, num_out, saved)`:
    the first `num_out` results are the body's; the rest are the body values
    `saved` (ids of its variables) that the policy let the forward keep."""
    name = "checkpoint"
    constrain_outputs = False

    def format_params(self, params: dict[str, Any]) -> str:
        pol = params.get("policy")
        shown = {k: v for k, v in params.items() if k not in ("out_types", "saved", "policy")}
        shown["policy"] = getattr(pol, "__name__", None) or (type(pol).__name__ if pol is not None else None)
        return super().format_params(shown)

    def lower(self, ctx, eqn, *args):
        return ctx.lower_body(eqn.params["body"], list(args))

    def batch(self, B, axis, args, dims, *, body: Program, prevent_cse: bool, policy, num_out: int,
              saved: tuple[int, ...], out_types):
        """The body batched (results where they come); the saved values are the batched
        body's results standing for them."""
        prog, od = B.batch_program(body, dims, axis, want=["any"] * len(body.outputs))
        new_saved = tuple(o.id for o in prog.outputs[num_out:])
        outs = B.bind(self, *args, body=prog, prevent_cse=prevent_cse, policy=policy, num_out=num_out,
                      saved=new_saved, out_types=tuple(prog.out_types))
        return outs, od

    def vjp(self, L, cts, ins, outs, *, body: Program, prevent_cse: bool, policy, num_out: int,
            saved: tuple[int, ...], out_types):
        trace = current_trace()
        live = [i for i, a in enumerate(ins) if hasattr(a, "_var")]
        res = list(outs[num_out:])
        vals = [ins[i] for i in live] + res
        if prevent_cse and vals:
            vals = bind(optimization_barrier, *vals)
        args = list(ins)
        for i, v in zip(live, vals):
            args[i] = v
        eqns = replay(trace, body, args, dict(zip(saved, _onloaded(body, saved, vals[len(live):]))), effects=True)
        env_outs = eqns.pop()
        pairs = [(o._var, c) for o, c in zip(env_outs[:num_out], cts[:num_out]) if hasattr(o, "_var")]
        in_cts = L.backward(trace, eqns, [args[i]._var for i in live], [v for v, _ in pairs], [c for _, c in pairs])
        out = [None] * len(ins)
        for i, c in zip(live, in_cts):
            out[i] = c
        return out


def _onloaded(body: Program, saved, res: list) -> list:
    """Residuals an offloading policy put in other memory (`save_and_offload_only_these_names`),
    brought back to the memory of the body values they stand for (JAX's `device_put` back to
    `offload_src` in the backward pass)."""
    types = {v.id: v.type for e in body.eqns for v in e.outputs}
    out = []
    for i, r in zip(saved, res):
        want = types.get(i)
        if want is not None and r.aval.memory_space is not want.memory_space:
            r = bind(device_put_p, r, space=want.memory_space)
        out.append(r)
    return out


class Name(Primitive):
    """`checkpoint_name(x, name)`: the identity, tagged for remat policies."""
    name = "name"
    constrain_outputs = False

    def shape_rule(self, x: ArrayType, *, name):
        return [(x.shape, x.dtype, x.weak_type)]

    def sharding_rule(self, x: ArrayType, *, name):
        return [x.spec]

    def ur_rule(self, x: ArrayType, *, name):
        return (x.unreduced, x.reduced)

    def batch(self, B, axis, args, dims, *, name):
        return B.bind(self, args[0], name=name), dims[0]

    def vjp(self, L, g, ins, outs, *, name):
        return [g]

    def lower(self, ctx, eqn, x):
        return [x]


class OptimizationBarrier(Primitive):
    """`optimization_barrier(*xs)`: the identity XLA may not look through."""
    name = "optimization_barrier"
    multiple_results = True
    constrain_outputs = False
    auto_pcast = False

    def shape_rule(self, *xs: ArrayType):
        return [(x.shape, x.dtype, x.weak_type) for x in xs]

    def sharding_rule(self, *xs: ArrayType):
        return [x.spec for x in xs]

    def ur_rule(self, *xs: ArrayType):
        return [(x.unreduced, x.reduced) for x in xs]

    def vma_rule(self, *xs: ArrayType):
        return [x.vma for x in xs]

    def memory_space_rule(self, *xs: ArrayType):
        return [x.memory_space for x in xs]   # JAX's abstract eval returns its operands' types

    def batch(self, B, axis, args, dims):
        return B.bind(self, *args), list(dims)

    def vjp(self, L, cts, ins, outs):
        return list(cts)

    def lower(self, ctx, eqn, *xs):
        lhs, names = ctx.results(len(xs))
        types = ", ".join(ttype(a.type) for a in eqn.inputs)
        ctx.emit(f"{lhs} = stablehlo.optimization_barrier {', '.join(xs)} : {types}{ctx._loc}")
        return names


checkpoint = Checkpoint()
name = Name()
optimization_barrier = OptimizationBarrier()
