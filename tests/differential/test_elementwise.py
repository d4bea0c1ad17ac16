"""Differential: elementwise ops (unary, binary with broadcasting, Python
scalars and weak types, astype, where, integer powers), every sharding the
mesh allows (JAX rules §2.2–§2.4)."""
from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
from oracle import (
    BASIC_MESHES,
    Case,
    check,
    check_types,
    check_values,
    param,
    sample,
    sample_product,
    spec_id,
    specs_for,
    type_str,
)

import shardc as sc

SHAPES = {0: (), 1: (8,), 2: (8, 4), 3: (4, 2, 8), 4: (2, 4, 2, 8)}

UNARY = ["sin", "cos", "exp", "negative", "abs", "tanh", "log1p", "sqrt", "floor", "sign",
         "sigmoid", "relu", "square", "logical_not", "reciprocal", "rsqrt", "erf", "isfinite", "round",
         "ceil", "cbrt", "invert"]
DT_NAMES = ["f32", "bf16", "i32", "bool"]


def _unary(op):
    return lambda ns, x: getattr(ns, op)(x)


def unary_cases():
    cases = []
    # sin/f32 on every spec (valid and invalid) of every rank on every mesh
    for mesh in BASIC_MESHES:
        for rank, shape in SHAPES.items():
            for valid in (True, False):
                for spec in specs_for(shape, mesh, valid=valid):
                    t = type_str("f32", shape, spec)
                    cases.append(Case(f"sin-{mesh}-{t}", mesh, _unary("sin"), (t,)))
    # every other (op, dtype): a spread of specs and ranks
    for op, dname, mesh in itertools.product(UNARY, DT_NAMES, BASIC_MESHES):
        if op == "sin" and dname == "f32":
            continue
        pool = [type_str(dname, shape, spec) for shape in SHAPES.values()
                for spec in specs_for(shape, mesh)]
        cases += sample([Case(f"{op}-{mesh}-{t}", mesh, _unary(op), (t,)) for t in pool], 5,
                        salt=op + dname)
    # duplicate axes in the input type are rejected
    for mesh, t in [("2d", "f32[8@X,4@X]"), ("3d", "f32[8@(X,Y),4@Y]"), ("1d", "f32[8@X,8@X]")]:
        cases.append(Case(f"sin-dup-{mesh}-{t}", mesh, _unary("sin"), (t,)))
    return cases


UNARY_CASES = unary_cases()


@param(UNARY_CASES)
def test_unary_types(case):
    check_types(case)


# --- binary ---------------------------------------------------------------------------------------
BINARY = {
    "add": lambda ns, x, y: x + y, "sub": lambda ns, x, y: x - y, "mul": lambda ns, x, y: x * y,
    "div": lambda ns, x, y: x / y, "maximum": lambda ns, x, y: ns.maximum(x, y),
    "minimum": lambda ns, x, y: ns.minimum(x, y), "gt": lambda ns, x, y: x > y,
    "eq": lambda ns, x, y: x == y, "le": lambda ns, x, y: ns.less_equal(x, y),
    "pow": lambda ns, x, y: ns.power(x, y), "and": lambda ns, x, y: x & y,
    "arctan2": lambda ns, x, y: ns.arctan2(x, y), "floordiv": lambda ns, x, y: x // y,
    "mod": lambda ns, x, y: x % y,
}
BCAST_SHAPES = [((8, 4), (8, 4)), ((8, 4), (4,)), ((4,), (8, 4)), ((8, 1), (1, 4)), ((8, 4), ()),
                ((), (8, 4)), ((4, 2, 8), (2, 8)), ((4, 1, 8), (4, 2, 1)), ((8,), (8,))]


def binary_cases():
    cases = []
    for mesh in BASIC_MESHES:
        for ls, rs in BCAST_SHAPES:
            pairs = list(itertools.product(specs_for(ls, mesh), specs_for(rs, mesh)))
            all_add = [Case(f"add-{mesh}-{type_str('f32', ls, a)}+{type_str('f32', rs, b)}", mesh,
                            BINARY["add"], (type_str("f32", ls, a), type_str("f32", rs, b)))
                       for a, b in pairs]
            cases += sample(all_add, 60, salt="add")
            for op in BINARY:
                if op == "add":
                    continue
                sub = [Case(f"{op}-{mesh}-{c.args[0]}∘{c.args[1]}", mesh, BINARY[op], c.args)
                       for c in all_add]
                cases += sample(sub, 4, salt=op)
    # dtype pairs (promotion) on sharded operands
    for (dl, dr), op in itertools.product(itertools.product(DT_NAMES, DT_NAMES), ["add", "mul", "gt", "maximum", "div"]):
        l, r = type_str(dl, (8, 4), ("X", None)), type_str(dr, (8, 4), (None, "Y"))
        cases.append(Case(f"{op}-dtypes-2d-{l}∘{r}", "2d", BINARY[op], (l, r)))
    return cases


BINARY_CASES = binary_cases()


@param(BINARY_CASES)
def test_binary_types(case):
    check_types(case)


# Python scalars, NumPy scalars and weak types
SCALARS = {
    "+2": lambda ns, x: x + 2, "2.5*": lambda ns, x: 2.5 * x, ">0": lambda ns, x: x > 0,
    "/3": lambda ns, x: x / 3, "-1.0": lambda ns, x: x - 1.0, "max0": lambda ns, x: ns.maximum(x, 0),
    "np.f32": lambda ns, x: x + np.float32(1), "**2": lambda ns, x: x ** 2, "**3": lambda ns, x: x ** 3,
    "&True": lambda ns, x: x & True, "clip": lambda ns, x: ns.clip(x, 0, 1),
    "2**": lambda ns, x: 2 ** x, "+bf16": lambda ns, x: x + ml_dtypes.bfloat16(1),
    "where>0": lambda ns, x: ns.where(x > 0, x, 0),
    "weak+weak": lambda ns, x: ns.full((8, 4), 3.0, out_sharding=ns.P(None, "Y")) * 2,
}


def scalar_cases():
    cases = []
    for name, fn in SCALARS.items():
        for d in DT_NAMES:
            for mesh, spec in [("2d", ("X", "Y")), ("3d", (("X", "Z"), None)), ("1d", ("X", None))]:
                t = type_str(d, (8, 4), spec)
                cases.append(Case(f"scalar{name}-{mesh}-{t}", mesh, fn, (t,)))
        cases.append(Case(f"scalar{name}-2d-f32[]", "2d", fn, ("f32[]",)))
    return cases


SCALAR_CASES = scalar_cases()


@param(SCALAR_CASES)
def test_scalar_types(case):
    check_types(case)


# --- astype ---------------------------------------------------------------------------------------
def astype_cases():
    cases = []
    for src, dst in itertools.product(DT_NAMES, DT_NAMES + ["u8", "f16"]):
        dtype = {"f32": np.float32, "bf16": ml_dtypes.bfloat16, "i32": np.int32, "bool": np.bool_,
                 "u8": np.uint8, "f16": np.float16}[dst]
        for mesh in BASIC_MESHES:
            for shape in ((8, 4), (4, 2, 8)):
                for spec in sample_specs(shape, mesh, 2, salt=src + dst):
                    t = type_str(src, shape, spec)
                    cases.append(Case(f"astype-{dst}-{mesh}-{t}", mesh,
                                      lambda ns, x, dtype=dtype: x.astype(dtype), (t,)))
    return cases


def sample_specs(shape, mesh, n, salt=""):
    specs = specs_for(shape, mesh)
    cs = [Case(spec_id(s), mesh, None) for s in specs]
    keep = {c.id for c in sample(cs, n, salt)}
    return [s for s in specs if spec_id(s) in keep]


ASTYPE_CASES = astype_cases()


@param(ASTYPE_CASES)
def test_astype_types(case):
    check_types(case)


# --- where / select ---------------------------------------------------------------------------------------
def where_cases():
    cases = []
    shapes = [((8, 4), (8, 4), (8, 4)), ((8, 1), (8, 4), (8, 4)), ((8, 4), (8, 4), ()),
              ((), (8, 4), (8, 4)), ((4,), (8, 4), (8, 4))]
    for mesh in ("2d", "3d"):
        for cs, xs, ys in shapes:
            combos = sample_product([specs_for(cs, mesh), specs_for(xs, mesh), specs_for(ys, mesh)], 40,
                                    salt=f"where{cs}{xs}{ys}")
            cases += [Case(f"where-{mesh}-{type_str('bool', cs, a)},{type_str('f32', xs, b)},"
                           f"{type_str('f32', ys, c)}", mesh, lambda ns, c, x, y: ns.where(c, x, y),
                           (type_str("bool", cs, a), type_str("f32", xs, b), type_str("f32", ys, c)))
                      for a, b, c in combos]
    # the reference's table (§2.4)
    ref = [("bool[8@X,4@Y]", "f32[8@X,4@Y]", "f32[8,4]"), ("bool[8,1]", "f32[8@X,4@Y]", "f32[8,4]"),
           ("bool[8,1]", "f32[8@X,4@Y]", "f32[8@Y,4]"), ("bool[8,4]", "f32[8@X,4@Y]", "f32[8@X,4]"),
           ("bool[8,4]", "f32[8@X,4@Y]", "f32[8@X,4@Y]")]
    for a in ref:
        cases.append(Case(f"where-ref-2d-{','.join(a)}", "2d", lambda ns, c, x, y: ns.where(c, x, y), a))
    for a in ["f32[8@X,4@Y]", "f32[8,4]", "f32[8@(X,Y),4]"]:
        cases.append(Case(f"where-scalar-2d-{a}", "2d", lambda ns, x: ns.where(x > 0, x, 0.0), (a,)))
        cases.append(Case(f"where-cbcast-2d-{a}", "2d",
                          lambda ns, c, x: ns.where(c, x, 0.0), ("bool[8,4]", a)))
    return cases


WHERE_CASES = where_cases()


@param(WHERE_CASES)
def test_where_types(case):
    check_types(case)


# --- values and collectives for a sample ---------------------------------------------------------------------
def value_cases():
    pool = [c for c in UNARY_CASES if "dup" not in c.id]
    picked = sample(pool, 14, salt="v")
    picked += sample(BINARY_CASES, 30, salt="v")
    picked += sample(SCALAR_CASES, 12, salt="v")
    picked += sample(ASTYPE_CASES, 8, salt="v")
    picked += sample(WHERE_CASES, 10, salt="v")
    return picked


@param(value_cases())
def test_elementwise_values(case):
    check_values(case)


WHERE_BAD = [Case(f"where-incompatible-{i}", "1d", lambda ns, c, a, b: ns.where(c, a, b), args, expect="reject",
                  kind=ValueError, phrase="Incompatible shapes for broadcasting")
             for i, args in enumerate([("bool[8]", "f32[3]", "f32[8]"), ("bool[2,8]", "f32[8]", "f32[3,8]")])]


@param(WHERE_BAD)
def test_where_incompatible_shapes(case):
    """JAX's ValueError (was NumPy's own 'shape mismatch' message, naming no line)."""
    check_types(case)


@pytest.mark.parametrize("first,second", [(0.0, -0.0), (-0.0, 0.0), (np.float32(0.0), np.float32(-0.0))])
def test_signed_zero_constants_are_not_shared(first, second):
    """Scalar constants are shared between programs by their bits: `x * -0.0` after
    `x * 0.0` multiplies by -0.0 (they compare equal), as in JAX."""
    x = np.array([-1.0, 1.0], np.float32)
    for c in (first, second):
        got = np.asarray(sc.jit(lambda v, c=c: v * c)(sc.asarray(x)))
        want = np.asarray(jax.jit(lambda v, c=c: v * c)(jnp.asarray(x)))
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


# --- jnp.round(x, decimals): JAX's rescaling (float16 in float32), integers unchanged --------------------------
ROUND_CASES = [Case(f"round-{d}-{dec}-{mesh}", mesh, lambda ns, x, dec=dec: ns.round(x, dec), (f"{d}[{dims}]",),
                    mode=mode, tol=(0, 0))
               for d in ("f32", "f16", "bf16", "i32", "bool")
               for dec in (0, 2, -1, 40)
               for mesh, dims, mode in [("1d", "8@X,4", "jit"), ("2d", "8@X,4@Y", "trace")]]


@param(ROUND_CASES)
def test_round_decimals(case):
    check(case)
