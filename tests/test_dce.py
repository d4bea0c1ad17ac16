"""Dead-code elimination before lowering (`shardc/passes/dce.py`) against `jax.jit`'s lowering,
which runs `pe.dce_jaxpr` first: a value no output needs (the forward result inside `grad`, an
unused intermediate, an unused `pure_callback`, a dead equation inside a loop body) is in neither
module, an effect (`debug.print`, at any depth) is in both, and the printed program
(`make_jaxpr`, `Traced`) still shows everything, as JAX's `make_jaxpr` does. Values, output
shardings and collectives of the compiled programs are compared with JAX by the oracle."""
from __future__ import annotations

import re
from collections import Counter

import jax
import pytest
from oracle import JAX, SC, Case, abstract_args, check, concrete_args, mesh_pair

import shardc as sc
from shardc.ir import Eqn, Program, Var
from shardc.passes.dce import dce, has_effects
from shardc.primitives import callback
from shardc.primitives import elementwise as ew

_OP = re.compile(r"^\s*(?:%[^=]*=\s*)?\"?(?:stablehlo|sdy|chlo)\.([a-z_]+)")
#: ops that say nothing about computation (shardc pins every result's sharding type)
_BOOKKEEPING = {"sharding_constraint", "mesh", "sharding", "sharding_per_value", "tensor_sharding", "manual_axes"}


def _ops(text: str) -> Counter:
    """The StableHLO/sdy operations of a module by kind (bookkeeping annotations left out)."""
    ops = Counter()
    for line in text.splitlines():
        m = _OP.match(line)
        if m and m.group(1) not in _BOOKKEEPING:
            ops[m.group(1)] += 1
    return ops


def _lowered(ns, fn, mesh: str, args: tuple) -> tuple[str, str]:
    """(lowered module text, printed jaxpr / program) of `fn(ns, *args)` traced from the types."""
    m, jm = mesh_pair(mesh)
    case = Case("dce", mesh, fn, args)
    prog = lambda *xs: fn(ns, *xs)
    with (jax.set_mesh(jm) if ns is JAX else sc.set_mesh(m)):
        xs = abstract_args(ns, case)
        traced = ns.jit(prog).trace(*xs)
        printed = str(traced.jaxpr) if ns is JAX else str(traced)
        return traced.lower().as_text(), printed


def _p(id: str, *values):
    return pytest.param(*values, id=id)


# --- the programs: (fn, op kind the dead code would emit, printed name of that equation) ----------
def _unused_intermediate(ns, x):
    _ = ns.cos(x) * 3.0
    return ns.sin(x)


def _grad(ns, x, w):
    """grad drops the forward's loss reduction and tanh's output beyond what the backward needs."""
    return ns.grad(lambda w: ns.sum(ns.exp(x @ w)))(w)


def _grad_aux_unused(ns, x, w):
    """`has_aux` whose aux the caller drops: its whole computation is dead."""
    g, _ = ns.grad(lambda w: (ns.sum(ns.sin(x @ w)), ns.cosh(w).max()), has_aux=True)(w)
    return g


def _jvp_primal_unused(ns, x):
    return ns.jvp(lambda a: ns.log(ns.cosh(a)), (x,), (x,))[1]


def _vjp_primal_unused(ns, x, w):
    _, pull = ns.vjp(lambda w: ns.cosh(x @ w).sum(), w)
    return pull(ns.ones(()))[0]


def _dead_reshard(ns, x):
    """An unused `reshard` would be an all-gather."""
    _ = ns.reshard(x, ns.P()) * 2.0
    return ns.sin(x)


def _scan_body_dead(ns, x, xs):
    def body(c, y):
        _ = ns.cosh(y) * 4.0
        return c + y, ns.sin(y)
    return ns.lax.scan(body, x, xs)


def _unused_loop(ns, x):
    _ = ns.lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, ns.cosh(c[1])), (0, x))
    return ns.sin(x)


def _unused_cond(ns, p, x):
    _ = ns.lax.cond(p, ns.cosh, ns.cos, x)
    return ns.sin(x)


def _cond_result_unused(ns, p, x):
    """A kept cond's unused result leaves both branches (JAX's cond dce rule)."""
    a, _ = ns.lax.cond(p, lambda v: (ns.sin(v), ns.cosh(v)), lambda v: (ns.cos(v), ns.cosh(v) * 2.0), x)
    return a


def _shard_map_dead(ns, x):
    def body(a):
        _ = ns.cosh(a) * 2.0
        return ns.psum(a, "X")
    return ns.shard_map(body, in_specs=ns.P("X"), out_specs=ns.P())(x)


def _unused_pure_callback(ns, x):
    shape = jax.ShapeDtypeStruct(x.shape, x.dtype)
    _ = ns.pure_callback(lambda a: a * 2, shape, x)
    return ns.sin(x)


PROGRAMS = [
    _p("unused_intermediate", "1d", _unused_intermediate, ("f32[8@X]",), "cosine"),
    _p("grad", "2d", _grad, ("f32[8@X,16]", "f32[16,8@Y]"), "reduce"),
    _p("grad_aux_unused", "2d", _grad_aux_unused, ("f32[8@X,16]", "f32[16,8@Y]"), "cosh"),
    _p("jvp_primal_unused", "1d", _jvp_primal_unused, ("f32[8@X,4]",), "log"),
    _p("vjp_primal_unused", "2d", _vjp_primal_unused, ("f32[8@X,16]", "f32[16,8@Y]"), "cosh"),
    _p("dead_reshard", "2d", _dead_reshard, ("f32[8@X,4@Y]",), "multiply"),
    _p("scan_body_dead", "1d", _scan_body_dead, ("f32[8@X]", "f32[6,8@X]"), "cosh"),
    _p("unused_loop", "1d", _unused_loop, ("f32[8@X]",), "while"),
    _p("unused_cond", "1d", _unused_cond, ("bool[]", "f32[8@X]"), "case"),
    _p("shard_map_dead", "1d", _shard_map_dead, ("f32[8@X]",), "cosh"),
    _p("cond_result_unused", "2d", _cond_result_unused, ("bool[]", "f32[8@X,4@Y]"), "cosh"),
    _p("unused_pure_callback", "1d", _unused_pure_callback, ("f32[8@X]",), "custom_call"),
]


@pytest.mark.parametrize("mesh,fn,args,dead", PROGRAMS)
def test_dead_code_is_not_emitted_as_jax(mesh, fn, args, dead):
    """The dead equation's op is in neither lowered module (in shardc's printed program it is still
    there, as in JAX's jaxpr), and shardc emits no more operations than JAX (+ a small constant)."""
    j_text, j_printed = _lowered(JAX, fn, mesh, args)
    s_text, s_printed = _lowered(SC, fn, mesh, args)
    j_ops, s_ops = _ops(j_text), _ops(s_text)
    assert j_ops[dead] == 0, f"JAX emits {dead}: the program's dead code is not dead ({j_ops})"
    assert s_ops[dead] == 0, f"shardc emits dead {dead}:\n{s_text}"
    assert sum(s_ops.values()) <= sum(j_ops.values()) + 4, (s_ops, j_ops)


@pytest.mark.parametrize("mesh,fn,args,dead", PROGRAMS[:3] + PROGRAMS[6:8])
def test_printed_program_keeps_dead_code_as_make_jaxpr(mesh, fn, args, dead):
    """`make_jaxpr` / `Traced` show the program as traced: the dead equations included."""
    name = {"cosine": "cos", "reduce": "reduce_sum", "while": "while"}.get(dead, dead)
    _, j_printed = _lowered(JAX, fn, mesh, args)
    _, s_printed = _lowered(SC, fn, mesh, args)
    assert name in j_printed and name in s_printed


@pytest.mark.parametrize("mesh,fn,args,dead", PROGRAMS[:2] + PROGRAMS[4:6] + PROGRAMS[6:11])
def test_values_unchanged(mesh, fn, args, dead):
    """Compiled and run: values, output shardings and collectives equal JAX's."""
    check(Case(f"dce-{fn.__name__}", mesh, fn, args, mode="jit"))


# --- effects survive --------------------------------------------------------------------------------
def _print_unused(ns, x):
    ns.debug.print("v={v}", v=ns.cos(x).sum())
    return ns.sin(x)


def _print_in_unused_cond(ns, p, x):
    def yes(a):
        ns.debug.print("yes {a}", a=a.sum())
        return ns.cosh(a)

    def no(a):
        ns.debug.print("no {a}", a=a.max())
        return ns.cos(a)
    _ = ns.lax.cond(p, yes, no, x)
    return ns.sin(x)


def _print_in_scan(ns, x, xs):
    def body(c, y):
        ns.debug.print("y {y}", y=y.sum())
        return c, None
    _ = ns.lax.scan(body, x, xs)
    return ns.sin(x)


EFFECTS = [
    _p("print_unused", "1d", _print_unused, ("f32[8@X]",), 1),
    _p("print_in_unused_cond", "1d", _print_in_unused_cond, ("bool[]", "f32[8@X]"), 1),
    _p("print_in_scan", "1d", _print_in_scan, ("f32[8@X]", "f32[3,8@X]"), 3),
]


@pytest.mark.parametrize("mesh,fn,args,n", EFFECTS)
def test_effects_survive(mesh, fn, args, n, capfd):
    """A callback whose values nothing uses is emitted (with what it prints, and the cond/scan
    holding it), as in JAX, and runs: `n` lines printed. (A cond kept for its effect alone keeps one
    result in shardc, JAX none: the cos/cosh computing it stay.)"""
    j_text, _ = _lowered(JAX, fn, mesh, args)
    s_text, _ = _lowered(SC, fn, mesh, args)
    assert _ops(j_text)["custom_call"] >= 1 and _ops(s_text)["custom_call"] >= 1
    for kind in ("case", "while"):
        assert (_ops(s_text)[kind] > 0) == (_ops(j_text)[kind] > 0), kind
    m, _ = mesh_pair(mesh)
    with sc.set_mesh(m):
        xs = concrete_args(SC, Case("dce", mesh, fn, args))
        capfd.readouterr()
        out = sc.jit(lambda *a: fn(SC, *a))(*xs)
        sc.effects_barrier()
        sc.block_until_ready(out)
    printed = [line for line in capfd.readouterr().out.splitlines() if line.strip()]
    assert len(printed) == n, printed


# --- the pass itself --------------------------------------------------------------------------------
def test_nothing_dead_is_the_same_program():
    with sc.set_mesh(sc.make_mesh((8,), ("X",), axis_types=(sc.AxisType.Explicit,))):
        prog = sc.jit(lambda x: sc.sin(x) * 2.0).trace(sc.parse_type("f32[8@X]")).program
    assert dce(prog) is prog


def test_traced_program_is_not_mutated():
    with sc.set_mesh(sc.make_mesh((8,), ("X",), axis_types=(sc.AxisType.Explicit,))):
        traced = sc.jit(lambda x: (sc.cos(x), sc.sin(x))[1]).trace(sc.parse_type("f32[8@X]"))
        before = [e.prim.name for e in traced.program.eqns]
        lowered = traced.lower()
    assert [e.prim.name for e in traced.program.eqns] == before == ["cos", "sin"]
    assert [e.prim.name for e in lowered.program.eqns] == ["sin"]
    assert "cosine" not in lowered.as_text() and "cosine" not in lowered.as_text(debug_info=True)


class _Call(sc.core.Primitive):
    """A stand-in call-like primitive holding one body (only `dce` looks at it)."""

    name = "dce_test_call"


@pytest.fixture
def call_prim():
    """The stand-in, out of shardc's primitive registry again afterwards (the registry tests
    require every registered primitive to have all its rules)."""
    prim = _Call()
    yield prim
    sc.core.REGISTRY.pop(_Call.name, None)


def test_shared_body_rewritten_once_and_effects_found_at_depth(call_prim):
    """A program held by two equations is rewritten once (both get the same copy); an effect two
    levels down keeps the outer equation although none of its outputs is used."""
    t = sc.parse_type("f32[4]")
    a, b, c = Var(t), Var(t), Var(t)
    inner = Program("inner", [a], [Eqn(ew.UNARY['cos'], [a], [b], {}), Eqn(ew.UNARY['sin'], [a], [c], {})], [c], sc.mesh.EMPTY_MESH)
    x, y1, y2, z = Var(t), Var(t), Var(t), Var(t)
    outer = Program("outer", [x], [Eqn(call_prim, [x], [y1], {"body": inner}),
                                   Eqn(call_prim, [y1], [y2], {"body": inner}),
                                   Eqn(ew.UNARY['exp'], [y2], [z], {})], [y2], sc.mesh.EMPTY_MESH)
    out = dce(outer)
    assert [e.prim.name for e in out.eqns] == ["dce_test_call"] * 2
    assert out.eqns[0].params["body"] is out.eqns[1].params["body"] is not inner
    assert [e.prim.name for e in out.eqns[0].params["body"].eqns] == ["sin"]
    assert [e.prim.name for e in inner.eqns] == ["cos", "sin"]
    p, q = Var(t), Var(t)
    printing = Program("p", [p], [Eqn(callback.debug_callback, [p], [], {"callback": print})], [p],
                       sc.mesh.EMPTY_MESH)
    wrapped = Program("w", [q], [Eqn(call_prim, [q], [Var(t)], {"body": printing})], [q], sc.mesh.EMPTY_MESH)
    assert has_effects(wrapped) and not has_effects(inner)
    assert len(dce(wrapped).eqns) == 1
