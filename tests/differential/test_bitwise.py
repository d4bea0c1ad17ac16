"""Differential: the bit primitives (`shardc/primitives/bitwise.py`) and `erf_inv`
under their `lax` names: shifts, `population_count`, `clz`, `bitcast_convert_type`
against `jax.lax` — types on every sharding of ranks 0–3 on 1-D to 3-D meshes,
exact values (compiled and eager), JAX's dtype errors, and (zero / erf_inv's)
gradients."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from oracle import BASIC_MESHES, Case, check, check_types, param, sample, specs_for, type_str

SHAPES = {0: (), 1: (8,), 2: (8, 4), 3: (4, 2, 8)}
INTS = ["i32", "u32", "i8", "u8", "i16", "u16"]
SHIFTS = ["shift_left", "shift_right_logical", "shift_right_arithmetic"]
COUNTS = ["population_count", "clz"]
EXACT = (0.0, 0.0)


def _shift(op):
    # scale the [-5, 5] test data so shifts of 0..31 and out-of-range amounts both occur
    return lambda ns, x, y: getattr(ns.lax, op)(x * 37, y * 3)


def _count(op):
    return lambda ns, x: getattr(ns.lax, op)(x * 1237)


def _pool(dname, mesh):
    return [type_str(dname, shape, spec) for shape in SHAPES.values() for spec in specs_for(shape, mesh)]


def bit_cases():
    cases = []
    for op, dname, mesh in itertools.product(SHIFTS, INTS, BASIC_MESHES):
        cases += sample([Case(f"{op}-{mesh}-{t}", mesh, _shift(op), (t, t), tol=EXACT)
                         for t in _pool(dname, mesh)], 3, salt=op + dname)
    for op, dname, mesh in itertools.product(COUNTS, INTS, BASIC_MESHES):
        cases += sample([Case(f"{op}-{mesh}-{t}", mesh, _count(op), (t,), tol=EXACT)
                         for t in _pool(dname, mesh)], 3, salt=op + dname)
    return cases


BIT_CASES = bit_cases()


@param(BIT_CASES)
def test_bit_op_types(case):
    check_types(case)


@param(sample(BIT_CASES, 24, salt="values"))
def test_bit_op_values(case):
    check(case, "jit")


@param(sample(BIT_CASES, 6, salt="eager"))
def test_bit_op_values_eager(case):
    check(case, "eager")


# --- scalars, weak types, broadcasting and JAX's errors --------------------------------------------
ERROR_CASES = [
    Case("shift-f32", "2d", lambda ns, x, y: ns.lax.shift_left(x, y), ("f32[8@X,4]", "f32[8@X,4]")),
    Case("shift-bool", "2d", lambda ns, x, y: ns.lax.shift_right_logical(x, y), ("bool[8,4]", "bool[8,4]")),
    Case("shift-mixed", "2d", lambda ns, x, y: ns.lax.shift_left(x, y), ("i32[8,4]", "u32[8,4]")),
    Case("shift-pyint", "2d", lambda ns, x: ns.lax.shift_left(x, 3), ("u8[8@X,4@Y]",)),
    Case("shift-weak", "2d", lambda ns, x: ns.lax.shift_right_arithmetic(x, 1), ("~i32[8,4@Y]",)),
    Case("shift-scalar-operand", "2d", lambda ns, x, y: ns.lax.shift_left(x, y), ("i32[8@X,4]", "i32[]")),
    Case("shift-bad-shapes", "2d", lambda ns, x, y: ns.lax.shift_left(x, y), ("i32[8,4]", "i32[4,8]")),
    Case("shift-bad-shardings", "2d", lambda ns, x, y: ns.lax.shift_left(x, y), ("i32[8@X,4]", "i32[8@Y,4]")),
    Case("popcount-f32", "2d", lambda ns, x: ns.lax.population_count(x), ("f32[8,4]",)),
    Case("clz-bool", "2d", lambda ns, x: ns.lax.clz(x), ("bool[8,4]",)),
    Case("clz-weak", "2d", lambda ns, x: ns.lax.clz(x), ("~i32[8@X,4]",)),
    Case("erf_inv-i32", "2d", lambda ns, x: ns.lax.erf_inv(x), ("i32[8,4]",)),
    Case("erf_inv-weak", "2d", lambda ns, x: ns.lax.erf_inv(x), ("~f32[8@X,4@Y]",)),
]


@param(ERROR_CASES)
def test_scalars_weak_types_and_errors(case):
    check_types(case)


# --- bitcast_convert_type -----------------------------------------------------------------------------
def _bitcast(dname):
    return lambda ns, x: ns.lax.bitcast_convert_type(x, getattr(np, dname) if dname != "bfloat16"
                                                     else ns.bfloat16)


BITCASTS = [  # (from, to): same width, narrower (adds a dim), wider (eats the last dim)
    ("f32", "int32"), ("f32", "uint32"), ("i32", "float32"), ("u32", "float32"), ("bf16", "uint16"),
    ("bf16", "int16"), ("f16", "uint16"), ("u16", "float16"), ("u16", "bfloat16"), ("f32", "uint8"),
    ("i32", "int16"), ("f16", "uint8"), ("u8", "int8"), ("f32", "float32"),
]


def bitcast_cases():
    cases = []
    for (src, dst), mesh in itertools.product(BITCASTS, BASIC_MESHES):
        cases += sample([Case(f"bitcast-{dst}-{mesh}-{t}", mesh, _bitcast(dst), (t,), tol=EXACT)
                         for t in _pool(src, mesh)], 3, salt=src + dst)
    # wider: the last dim must be the width ratio; its spec is dropped
    for mesh, t, dst in [("2d", "u8[8@X,4]", "float32"), ("2d", "u8[8@X,2@Y,4]", "int32"),
                         ("1d", "u16[8@X,2]", "uint32"), ("3d", "i8[2@X,4@(Y,Z),2]", "int16"),
                         ("2d", "u8[8@X,4@Y]", "float32"), ("1d", "u8[8,3]", "float32"),
                         ("1d", "u8[]", "int16"), ("2d", "bool[8,4]", "int8"), ("2d", "i8[8,4]", "bool"),
                         ("2d", "bool[8@X,4]", "bool")]:
        cases.append(Case(f"bitcast-{dst}-{mesh}-{t}", mesh, _bitcast(dst), (t,), tol=EXACT))
    return cases


BITCAST_CASES = bitcast_cases()


@param(BITCAST_CASES)
def test_bitcast_types(case):
    check_types(case)


@param(sample(BITCAST_CASES, 16, salt="values"))
def test_bitcast_values(case):
    check(case, "jit")


# --- erf_inv ------------------------------------------------------------------------------------------
def _erf_inv(ns, x):
    return ns.lax.erf_inv(x * 0.49)   # data in [-2, 2): keep it inside (-1, 1)


ERF_INV_CASES = [c for dname in ("f32", "bf16", "f16") for mesh in BASIC_MESHES
                 for c in sample([Case(f"erf_inv-{mesh}-{t}", mesh, _erf_inv, (t,), tol=EXACT)
                                  for t in _pool(dname, mesh)], 2, salt="erfinv" + dname)]


@param(ERF_INV_CASES)
def test_erf_inv(case):
    check(case, "jit")


GRAD_CASES = [
    Case("grad-erf_inv", "2d", lambda ns, x: ns.grad(lambda v: ns.lax.erf_inv(v * 0.4).sum())(x), ("f32[8@X,4@Y]",)),
    # integer shifts / counts / bitcasts pass no cotangent: a float path around them does
    Case("grad-bitcast-path", "2d", lambda ns, x: ns.grad(
        lambda v: (v * ns.lax.bitcast_convert_type(
            ns.lax.shift_right_logical(ns.lax.bitcast_convert_type(v, np.uint32), np.uint32(1)) | np.uint32(
                0x3F800000), np.float32)).sum())(x), ("f32[8@X,4]",)),
]


@param(GRAD_CASES)
def test_gradients(case):
    check(case, "jit")


def test_every_bit_op_is_a_lax_name():
    import jax

    import shardc as sc
    for name in SHIFTS + COUNTS + ["bitcast_convert_type", "erf_inv"]:
        assert callable(getattr(sc.lax, name)) and hasattr(jax.lax, name), name
    with pytest.raises(TypeError):   # and they reject floats as JAX does (a TypeError)
        sc.lax.clz(np.float32(1.0))
