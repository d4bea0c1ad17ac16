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
  `shard_map`'s specs) stay exactly as traced.

Programs shared by several equations are rewritten once (memoized by identity).
"""
from __future__ import annotations

import copy
import dataclasses
from typing import Any

from ..ir import Eqn, Literal, Program

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
        live = {o.id for o in prog.outputs if type(o) is not Literal}
        kept: list[Eqn] = []
        changed = False
        for eqn in reversed(prog.eqns):   # (the hot loop: one pass, set lookups only)
            outs = eqn.outputs
            if len(outs) == 1:
                used = outs[0].id in live
            else:
                used = any(v.id in live for v in outs)
            if not used and not self.eqn_effects(eqn):
                changed = True
                continue
            for v in eqn.params.values():
                if type(v) in _NESTING:
                    new = self._nested(eqn)
                    changed |= new is not eqn
                    eqn = new
                    break
            kept.append(eqn)
            for a in eqn.inputs:
                if type(a) is not Literal:
                    live.add(a.id)
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
        if isinstance(v, Program):
            return self.program(v)
        if isinstance(v, (tuple, list)) and any(isinstance(x, Program) for x in v):
            new = [self.program(x) if isinstance(x, Program) else x for x in v]
            return v if all(a is b for a, b in zip(new, v)) else type(v)(new)
        return v

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


#: the param types that may hold a nested program
_NESTING = (Program, tuple, list)


def _programs(params: dict[str, Any]) -> list[Program]:
    out: list[Program] = []
    for v in params.values():
        if isinstance(v, Program):
            out.append(v)
        elif isinstance(v, (tuple, list)):
            out.extend(x for x in v if isinstance(x, Program))
    return out
