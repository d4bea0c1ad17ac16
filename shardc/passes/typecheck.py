"""Type checking a whole program: every equation's recorded output types must
be what its primitive's rules give for its input types.

Tracing already ran the rules once per op (that is how errors name the user's
line) and marks those equations `inferred`; this pass checks a finished
`Program` before it is emitted: that every value is defined before use, and
the rules of every equation built or rewritten otherwise (by later passes,
transformations, by hand). Re-running the rules of an `inferred` equation
would recompute what `bind` just recorded (JAX likewise checks jaxprs again
only under `jax_enable_checks`; `SHARDC_RECHECK=1` re-checks every equation).
"""
from __future__ import annotations

import os

from ..core import infer
from ..errors import ShardcError, ShardcInternalError
from ..ir import Literal, Program

#: re-run the rules of every equation, recorded ones included (a debugging aid)
RECHECK = os.environ.get("SHARDC_RECHECK", "") not in ("", "0")


def typecheck(prog: Program) -> None:
    for eqn in prog.eqns:
        for sub in eqn.prim.sub_programs(eqn.params):
            typecheck(sub)
    defined = {v.id for v in prog.in_vars}
    for n, eqn in enumerate(prog.eqns):
        for a in eqn.inputs:
            if type(a) is not Literal and a.id not in defined:
                raise ShardcInternalError(f"equation {n} ({eqn.prim.name}) uses an undefined value")
        if eqn.inferred and not RECHECK:
            for v in eqn.outputs:
                defined.add(v.id)
            continue
        try:
            # ops inside auto_axes/explicit_axes ran under another view of the mesh
            context = eqn.outputs[0].type.mesh if eqn.outputs else prog.mesh
            outs = infer(eqn.prim, [a.type for a in eqn.inputs], eqn.params, context)
        except ShardcError as e:
            raise e.with_context(op=eqn.api or eqn.prim.name, loc=eqn.loc,
                                 inputs=[a.type.str_short() for a in eqn.inputs]) from None
        got = [v.type for v in eqn.outputs]
        if outs != got:
            raise ShardcInternalError(
                f"equation {n} ({eqn.prim.name}) at {eqn.loc} records types "
                f"{[str(t) for t in got]} but its rules give {[str(t) for t in outs]}")
        defined.update(v.id for v in eqn.outputs)
    for o in prog.outputs:
        if not isinstance(o, Literal) and o.id not in defined:
            raise ShardcInternalError("a program output is not defined by the program")
