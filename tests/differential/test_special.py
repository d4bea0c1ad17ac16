"""`lax.lgamma`, `lax.digamma`, `lax.erfc`, `lax.polygamma`, `lax.zeta` (shardc/primitives/special.py)
against jax.lax: types on every sharding of ranks 0-3 on 1-D to 3-D meshes, JAX's dtype errors
(integers and bools are refused: floats only), values compiled and eagerly (f32, bf16), and
gradients with JAX's refusals (polygamma in its order m, zeta)."""
from __future__ import annotations

import itertools

import pytest
from oracle import BASIC_MESHES, Case, check, check_types, param, sample, specs_for, type_str

SHAPES = [(), (8,), (8, 4), (4, 2, 8)]
UNARY = ["lgamma", "digamma", "erfc"]
BINARY = ["polygamma", "zeta"]


def _unary(op):
    return lambda ns, x: getattr(ns.lax, op)(x)


def _binary(op):
    return lambda ns, a, b: getattr(ns.lax, op)(a, b)


def _pos(op):
    """On positive arguments (the functions' usual domain): |x| + 0.5, and the order m rounded."""
    def fn(ns, a, b):
        if op == "polygamma":
            a = ns.floor(ns.abs(a) * 2.0)
        else:
            a = ns.abs(a) + 1.5
        return getattr(ns.lax, op)(a, ns.abs(b) + 0.5)
    return fn


def type_cases():
    cases = []
    for op, dname, mesh in itertools.product(UNARY, ["f32", "bf16", "i32", "bool"], BASIC_MESHES):
        pool = [type_str(dname, s, spec) for s in SHAPES for spec in specs_for(s, mesh)]
        cases += sample([Case(f"{op}-{mesh}-{t}", mesh, _unary(op), (t,)) for t in pool], 6, salt=op + dname)
    for op, dname, mesh in itertools.product(BINARY, ["f32", "bf16", "i32"], BASIC_MESHES):
        pool = [type_str(dname, s, spec) for s in SHAPES for spec in specs_for(s, mesh)]
        cases += sample([Case(f"{op}-{mesh}-{t}", mesh, _binary(op), (t, t)) for t in pool], 4, salt=op + dname)
    # mixed dtypes: lax does not promote
    cases.append(Case("polygamma-mixed", "2d", _binary("polygamma"), ("f32[8@X,4]", "bf16[8@X,4]")))
    return cases


@param(type_cases())
def test_special_types(case):
    check_types(case)


def value_cases():
    cases = []
    for op, dname, mode in itertools.product(UNARY, ["f32", "bf16"], ["jit", "eager"]):
        cases.append(Case(f"{op}-{dname}-{mode}", "2d", _unary(op), (f"{dname}[8@X,4@Y]",), mode=mode))
    for op, mode in itertools.product(BINARY, ["jit", "eager"]):
        cases.append(Case(f"{op}-{mode}", "2d", _pos(op), ("f32[8@X,4@Y]", "f32[8@X,4@Y]"), mode=mode))
    return cases


@param(value_cases())
def test_special_values(case):
    check(case)


def _grad_unary(op):
    return lambda ns, x: ns.grad(lambda v: ns.sum(getattr(ns.lax, op)(ns.abs(v) + 0.5)))(x)


def _grad_polygamma_x(ns, x):
    return ns.grad(lambda v: ns.sum(ns.lax.polygamma(ns.full_like(v, 1.0), ns.abs(v) + 0.5)))(x)


def _grad_polygamma_m(ns, x):
    return ns.grad(lambda m: ns.sum(ns.lax.polygamma(m, ns.abs(x) + 0.5)))(x)


def _grad_zeta(ns, x):
    return ns.grad(lambda q: ns.sum(ns.lax.zeta(ns.full_like(q, 2.0), ns.abs(q) + 0.5)))(x)


GRADS = [(f"grad-{op}", _grad_unary(op)) for op in UNARY] + [
    ("grad-polygamma-x", _grad_polygamma_x), ("grad-polygamma-m", _grad_polygamma_m), ("grad-zeta", _grad_zeta)]


@pytest.mark.parametrize("mode", ["trace", "jit"])
@pytest.mark.parametrize("name, fn", GRADS, ids=[n for n, _ in GRADS])
def test_special_grads(name, fn, mode):
    kind = NotImplementedError if name == "grad-zeta" else None
    check(Case(f"{name}-{mode}", "2d", fn, ("f32[8@X,4@Y]",), mode=mode, kind=kind,
               quirk=name == "grad-zeta"))
