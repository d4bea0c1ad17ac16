"""The type-check pass (`shardc/passes/typecheck.py`): what it checks on a finished program.

Equations recorded by `bind` carry the types their rules gave (`Eqn.inferred`); the pass
checks that every value is defined before use and re-runs the rules of every other
equation (built by hand or by a pass), and of all of them under `SHARDC_RECHECK`."""
from __future__ import annotations

import dataclasses

import pytest

import shardc as sc
from shardc.errors import ShardcInternalError
from shardc.ir import Eqn, Var
from shardc.passes import typecheck as tc


def _program(mesh24):
    with sc.set_mesh(mesh24):
        t = sc.parse_type("f32[8@X,4@Y]", mesh24.abstract_mesh)
        return sc.jit(lambda x: sc.sin(x) * 2.0).trace(t).program


def test_traced_programs_check_and_record_inferred_equations(mesh24):
    prog = _program(mesh24)
    assert prog.eqns and all(e.inferred for e in prog.eqns)
    tc.typecheck(prog)


def test_a_hand_built_equation_with_wrong_types_is_caught(mesh24):
    prog = _program(mesh24)
    e = prog.eqns[0]
    wrong = Var(e.outputs[0].type.update(shape=(4, 4), spec=(None, None)))
    prog.eqns[0] = Eqn(e.prim, e.inputs, [wrong], e.params, e.loc, e.api)     # not `inferred`
    with pytest.raises(ShardcInternalError, match="records types"):
        tc.typecheck(prog)


def test_an_undefined_value_is_caught(mesh24):
    prog = _program(mesh24)
    prog.eqns = prog.eqns[1:]             # the first result is used but no longer defined
    with pytest.raises(ShardcInternalError, match="undefined value"):
        tc.typecheck(prog)


def test_recheck_reruns_the_rules_of_recorded_equations(mesh24, monkeypatch):
    prog = _program(mesh24)
    e = prog.eqns[0]
    wrong = Var(e.outputs[0].type.update(spec=(None, None)))
    prog.eqns[0] = dataclasses.replace(e, outputs=[wrong])       # still marked `inferred`
    prog.eqns[1] = dataclasses.replace(prog.eqns[1], inputs=[wrong if a is e.outputs[0] else a
                                                              for a in prog.eqns[1].inputs])
    tc.typecheck(prog)                                           # trusted as recorded
    monkeypatch.setattr(tc, "RECHECK", True)
    with pytest.raises(ShardcInternalError, match="records types"):
        tc.typecheck(prog)
