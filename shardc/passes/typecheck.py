"""Type checking a whole program: every equation's recorded output types must
be what its primitive's rules give for its input types.

Tracing already ran the rules once per op (that is how errors name the user's
line); this pass re-checks a finished `Program` — programs built or rewritten
by later passes included — before it is emitted.
"""
from __future__ import annotations

from ..core import infer
from ..errors import ShardcError, ShardcInternalError
from ..ir import Literal, Program


def typecheck(prog: Program) -> None:
    for eqn in prog.eqns:
        for sub in eqn.prim.sub_programs(eqn.params):
            typecheck(sub)
    defined = {v.id for v in prog.in_vars}
    for n, eqn in enumerate(prog.eqns):
        for a in eqn.inputs:
            if not isinstance(a, Literal) and a.id not in defined:
                raise ShardcInternalError(f"equation {n} ({eqn.prim.name}) uses an undefined value")
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
