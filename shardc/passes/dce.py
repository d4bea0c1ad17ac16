"""Dead-code elimination before lowering, as `jax.jit` runs `pe.dce_jaxpr`.

A traced program records every equation the user's function bound, and a
transformation records more: the program of `grad(f)` holds `f`'s whole forward
pass, much of which only fed `f`'s (unused) result. JAX's `make_jaxpr` shows
those equations; its jit lowering drops them first. This pass does the same on a
copy, so the printed program (`make_jaxpr`, `Traced.program`) is unchanged and
the emitted module holds only what reaches a result:

* an equation is kept when one of its outputs is used (transitively) by a
  program output, or when it has an effect: its primitive's `side_effect`
  (`debug_callback`: `sc.debug.print` / `sc.debug.callback`), or an effect in a
  nested program it holds (a `cond` branch that prints). `pure_callback` has no
  effect and is dropped when unused, as JAX drops it.
* nested programs (bodies of `scan` / `while` / `cond` / `shard_map` /
  `checkpoint` / custom rules, reducers) lose their own dead equations, with
  every output of theirs kept: their signatures (a loop's carried values, a
  `shard_map`'s specs) stay exactly as traced. A kept `cond` also drops its
  unused results from both branches (JAX's cond rule); JAX's rules that also
  shrink a scan's / while's / shard_map's results and operands are not done.

Programs shared by several equations are rewritten once (memoized by identity).
"""
from __future__ import annotations

import copy
import dataclasses
from typing import Any

from ..ir import Eqn, Program

__all__ = ["dce", "has_effects"]


def dce(prog: Program) -> Program:
    """`prog` without the equations no output depends on; `prog` itself when nothing is dead."""
    return _Dce().program(prog)


def has_effects(prog: Program) -> bool:
    """Whether running `prog` has an effect beyond its results (a host callback, at any depth)."""
    return _Dce().program_effects(prog)


class _Dce:
    """One pass: memo tables keyed by program identity (each holds its program alive)."""

    def __init__(self) -> None:
        self._done: dict[int, tuple[Program, Program]] = {}
        self._effects: dict[int, tuple[Program, bool]] = {}

    def program(self, prog: Program) -> Program:
        got = self._done.get(id(prog))
        if got is not None:
            return got[1]
        # values by identity (a Var hashes as its object): `update` of the inputs runs in C
        live = set(prog.outputs)
        add_all = live.update
        kept: list[Eqn] = []
        append = kept.append
        changed = False
        for eqn in reversed(prog.eqns):   # (the hot loop: one pass, set lookups only)
            outs = eqn.outputs
            if len(outs) == 1:
                used = outs[0] in live
            else:
                used = not live.isdisjoint(outs)
            if not used and not self.eqn_effects(eqn):
                changed = True
                continue
            prune = _PRUNE.get(eqn.prim.name)
            if prune is not None and len(outs) > 1 and not all(v in live for v in outs):
                # (kept for its effect alone, it keeps one result: the emitter writes no 0-result region op)
                flags = [v in live for v in outs] if used else [True] + [False] * (len(outs) - 1)
                eqn, changed = prune(eqn, flags), True
            for v in eqn.params.values():
                if type(v) is Program:
                    new = self._nested(eqn)
                    changed |= new is not eqn
                    eqn = new
                    break
            append(eqn)
            add_all(eqn.inputs)
        out = prog
        if changed:
            out = copy.copy(prog)   # keeps whatever else the program carries
            out.eqns = kept[::-1]
        self._done[id(prog)] = (prog, out)
        return out

    def _nested(self, eqn: Eqn) -> Eqn:
        """`eqn` with the programs among its params rewritten (all their outputs kept)."""
        params: dict[str, Any] | None = None
        for k, v in eqn.params.items():
            new = self._param(v)
            if new is not v:
                params = dict(eqn.params) if params is None else params
                params[k] = new
        return eqn if params is None else dataclasses.replace(eqn, params=params)

    def _param(self, v: Any) -> Any:
        return self.program(v) if type(v) is Program else v

    def eqn_effects(self, eqn: Eqn) -> bool:
        if eqn.prim.side_effect:
            return True
        return any(self.program_effects(p) for p in _programs(eqn.params))

    def program_effects(self, prog: Program) -> bool:
        got = self._effects.get(id(prog))
        if got is not None:
            return got[1]
        self._effects[id(prog)] = (prog, False)   # (a program never holds itself; guards a cycle anyway)
        eff = any(self.eqn_effects(e) for e in prog.eqns)
        self._effects[id(prog)] = (prog, eff)
        return eff


def _prune_cond(eqn: Eqn, used: list[bool]) -> Eqn:
    """JAX's `_cond_dce_rule`: a kept `cond`'s unused results leave it and both its branches
    (whose equations computing only those then go too)."""
    keep = [i for i, u in enumerate(used) if u]
    params = dict(eqn.params)
    for key in ("false_branch", "true_branch"):
        branch = copy.copy(params[key])
        branch.outputs = [branch.outputs[i] for i in keep]
        params[key] = branch
    params["out_types"] = tuple(params["out_types"][i] for i in keep)
    return dataclasses.replace(eqn, outputs=[eqn.outputs[i] for i in keep], params=params)


#: per primitive, how a kept equation drops the results nothing uses (JAX's `dce_rules`); the
#: others keep all their results (a loop's carry, a shard_map's specs)
_PRUNE = {"cond": _prune_cond}


def _programs(params: dict[str, Any]) -> list[Program]:
    """The nested programs of an equation: its params that are programs (as `Primitive.sub_programs`,
    the type-check pass and the printer see them)."""
    return [v for v in params.values() if type(v) is Program]
