"""Reverse mode's rule table and cotangent types.

`vjp_rules[prim]` is `rule(L, cts, ins, outs, **params) -> list[ct | None]`:
given the output cotangent(s) (one value, or a list for multiple-result
primitives), the primal inputs (tracers, or constants as NumPy values) and
outputs, it returns one cotangent per input (None: no cotangent flows). `L`
is the rule kit the driver passes in (`shardc/autodiff.py`): the
promotion-free `shardc.lax` functions plus the driver's own helpers, so rules
never import layers above the primitives.

Cotangent types follow JAX (docs/rules.md §3): a value's cotangent has its
sharding with unreduced and reduced swapped: sharded↔sharded,
replicated↔replicated, reduced↔unreduced.
"""
from __future__ import annotations

from contextlib import nullcontext
from typing import Any, Callable

from .. import dtypes as dt
from ..core import Primitive, at_source, bind
from ..errors import ShardcNotImplementedError
from ..ir import Eqn, Literal, Program, Var
from ..sharding import PartitionSpec
from ..types import ArrayType

__all__ = ["vjp_rules", "defvjp", "ct_spec", "differentiable", "differentiating", "is_differentiating", "not_differentiating", "replay",
           "keeps_residuals", "forward_api", "forward_apis"]

VjpRule = Callable[..., list]

vjp_rules: dict[Primitive, VjpRule] = {}


def defvjp(prim: Primitive, rule: VjpRule) -> None:
    """Register `prim`'s VJP rule (once)."""
    if prim in vjp_rules:
        raise AssertionError(f"VJP rule for {prim.name} registered twice")
    vjp_rules[prim] = rule


def ct_spec(t: ArrayType) -> PartitionSpec:
    """The cotangent's spec: the primal's partitions, unreduced and reduced swapped."""
    return PartitionSpec(*t.spec, unreduced=t.reduced, reduced=t.unreduced)


def differentiable(t: ArrayType) -> bool:
    """Only float and complex values carry cotangents (integers and bools have none)."""
    return dt.is_inexact(t.dtype)


_DEPTH = [0]


class differentiating:
    """While a function is traced for reverse mode (`sc.grad`, `sc.vjp`):
    user-defined rules (`sc.custom_vjp`, `sc.custom_jvp`) bind their equations
    only then, and call the plain function everywhere else, as JAX does."""

    def __enter__(self):
        _DEPTH[0] += 1

    def __exit__(self, *exc):
        _DEPTH[0] -= 1


def is_differentiating() -> bool:
    return _DEPTH[0] > 0


def keeps_residuals() -> bool:
    """Whether a loop or region traced now should return its body's values for the
    backward pass (scan, shard_map, checkpoint policies). Only under exactly one
    differentiation: under two (grad of grad, jvp of grad) the outer one would
    differentiate the inner backward through those values, which their VJP rules do
    not give cotangents for; there the backward replays the body instead."""
    return _DEPTH[0] == 1


class not_differentiating:
    """While a custom rule's own functions are traced (`fwd`, the primal function,
    the user's `jvp`): calls of the decorated function inside them are plain,
    not another rule application (which would recurse)."""

    def __enter__(self):
        self._saved, _DEPTH[0] = _DEPTH[0], 0
        self._saved_fwd, _FORWARD[0] = _FORWARD[0], 0

    def __exit__(self, *exc):
        _DEPTH[0] = self._saved
        _FORWARD[0] = self._saved_fwd


_FORWARD = [0]


class linearizing:
    """While `sc.jvp` / `sc.linearize` / `sc.jacfwd` trace their function (forward mode is
    reverse mode transposed): rules that have no JVP in JAX (a user's `custom_vjp`, a
    `custom_vmap`) refuse as JAX does, instead of transposing their reverse-mode rule."""

    def __enter__(self):
        _FORWARD[0] += 1
        # the API that opened it (`forward_api`); nested contexts start unnamed
        _KINDS.append(_API[0])
        _API[0] = None

    def __exit__(self, *exc):
        _FORWARD[0] -= 1
        _API[0] = _KINDS.pop()


def is_linearizing() -> bool:
    return _FORWARD[0] > 0


_PULLBACK = [0]


class forward_pullback:
    """While forward mode transposes its reverse pass (`f_jvp` of `sc.linearize` pulls the
    tangents back): a rule reached here with a cotangent for its outputs is being differentiated
    in forward mode; one JAX gives none (a user's `custom_vjp`) refuses then, and only then (a
    call whose arguments no tangent reaches, or whose result's tangent is unused, runs)."""

    def __enter__(self):
        _PULLBACK[0] += 1

    def __exit__(self, *exc):
        _PULLBACK[0] -= 1


def in_forward_pullback() -> bool:
    return _PULLBACK[0] > 0


#: the forward-mode API about to linearize ("jvp", "jacfwd", "linearize"; None: a traced
#: `sc.linearize`), and the
#: one of each open `linearizing` context
_API: list[str | None] = [None]
_KINDS: list[str | None] = []


class forward_api:
    """Around `sc.jvp`'s / `sc.jacfwd`'s use of linearize: names the API for the rules that
    JAX differentiates only through some of them (a `custom_vmap` call: `jvp`, not `linearize`)."""

    def __init__(self, name: str):
        self.name = name

    def __enter__(self):
        # an eager `sc.linearize` computes its JVP with `sc.jvp`: it stays "linearize"
        self._saved, _API[0] = _API[0], "linearize" if _API[0] == "linearize" else self.name

    def __exit__(self, *exc):
        _API[0] = self._saved


def forward_apis() -> tuple[tuple[str | None, ...], int]:
    """The APIs of the open `linearizing` contexts, outermost first, and how many reverse-mode
    traces enclose them (`sc.grad` of a `sc.jvp` shows as one)."""
    return tuple(_KINDS), _DEPTH[0]


def replay(trace, body: Program, args: list, saved: dict[int, Any], effects: bool = False) -> list:
    """Re-run `body` on `args` in `trace`, using `saved` values (body var id →
    value) instead of recomputing equations whose results were all saved. The
    equations reverse mode walks (the bound ones, plus a record linking each
    saved result to its inputs), then the body's outputs as the last item. Host callbacks
    run again only with `effects` (rematerialization recomputes them, as JAX's remat does;
    a scan's or shard_map's backward pass does not)."""
    env: dict[int, Any] = {v.id: a for v, a in zip(body.in_vars, args)}

    def read(a):
        return env[a.id] if isinstance(a, Var) else a.value

    def atom(a, x):
        # values of enclosing programs (closed over) are captured as in `bind`
        return a if isinstance(a, Literal) else trace.atom(x)

    eqns: list = []
    for e in body.eqns:
        if getattr(e.prim, "side_effect", False) and not effects:
            if not e.outputs:
                continue   # a host callback ran in the forward pass already (only remat runs it again, as JAX)
            if not all(v.id in saved for v in e.outputs):   # an effectful sc.ffi.ffi_call: not run twice
                raise ShardcNotImplementedError(
                    f"Effects not supported in partial-eval: the backward pass needs results of `{e.api or e.prim.name}`, "
                    "which has an effect and would run again", op=e.api or e.prim.name, loc=e.loc)
        if e.outputs and all(v.id in saved for v in e.outputs):
            got = [saved[v.id] for v in e.outputs]
            eqns.append(Eqn(e.prim, [atom(a, read(a)) for a in e.inputs], [g._var for g in got], e.params,
                            e.loc, e.api))
        else:
            start = len(trace.eqns)
            with at_source(e.loc, e.api) if e.loc is not None else nullcontext():   # recomputed at its own line
                got = bind(e.prim, *[read(a) for a in e.inputs], **e.params)
            got = got if e.prim.multiple_results else [got]
            eqns.extend(trace.eqns[start:])
        for v, g in zip(e.outputs, got):
            env[v.id] = g
    eqns.append([read(o) for o in body.outputs])
    return eqns
