"""Differential: the `jax.numpy` functions of issue 12 (elementwise math, shapes and
construction, NaN reductions, products, `linalg` norms) against jax.numpy 0.10.2, over 1-D
to 3-D meshes, f32/bf16/i32/bool, ranks 0-3 and the shardings the shapes allow: accept/reject
(error class and key phrase) and `str(typeof)` of every output by tracing; values, concrete
output shardings and collectives (shardc <= JAX) by compiling and running a spread subset."""
from __future__ import annotations

import itertools

import jax.numpy as jnp
from oracle import BASIC_MESHES, JAX, Case, check, param, sample, specs_for, type_str

import shardc.numpy as snp


def J(ns):
    """The numpy namespace of a side."""
    return jnp if ns is JAX else snp


SHAPES = {0: (), 1: (8,), 2: (8, 4), 3: (4, 2, 8)}
DTYPES = ("f32", "bf16", "i32", "bool")


def _types(dname: str, mesh: str, ranks=(0, 1, 2, 3), n: int = 4, salt: str = "") -> list[str]:
    pool = [type_str(dname, SHAPES[r], spec) for r in ranks for spec in specs_for(SHAPES[r], mesh)]
    return [c.id for c in sample([Case(t, mesh, None) for t in pool], n, salt=salt + dname + mesh)]


# --- elementwise: unary --------------------------------------------------------------------------
UNARY = ["arcsin", "asin", "arccos", "arctan", "atan", "sinh", "cosh", "arcsinh", "arccosh", "arctanh", "acos",
         "asinh", "acosh", "atanh", "log2", "log10", "exp2", "trunc", "rint", "isnan", "isinf", "isposinf",
         "isneginf", "signbit", "deg2rad", "radians", "rad2deg", "degrees", "sinc", "nan_to_num", "positive",
         "modf", "real", "imag", "conj", "conjugate", "fabs", "around", "iscomplex", "isreal", "bitwise_invert"]


def _unary(name):
    def fn(ns, x):
        return getattr(J(ns), name)(x)
    return fn


def _with_specials(name):
    """The function of an array with NaNs, infinities and signed zeros put in (float inputs)."""
    def fn(ns, x):
        m = J(ns)
        if m.issubdtype(x.dtype, m.floating):
            x = m.where(x > 1.5, m.nan, m.where(x < -1.5, -m.inf, m.where(x > 1.2, m.inf, x)))
            x = m.where(m.abs(x) < 0.1, -0.0, x)
        return getattr(m, name)(x)
    return fn


def unary_cases():
    out = []
    for name, dname, mesh in itertools.product(UNARY, DTYPES, BASIC_MESHES):
        for t in _types(dname, mesh, n=3, salt=name):
            out.append(Case(f"{name}-{mesh}-{t}", mesh, _unary(name), (t,)))
    return out


def unary_value_cases():
    out = []
    for name, dname in itertools.product(UNARY, ("f32", "i32", "bf16")):
        mesh = ("1d", "2d", "3d")[UNARY.index(name) % 3]
        t = type_str(dname, (8, 4), ("X", None)) if mesh != "1d" else type_str(dname, (8,), ("X",))
        out.append(Case(f"{name}-vals-{mesh}-{t}", mesh, _with_specials(name), (t,), mode="jit",
                        collectives="at_most", tol=(2e-2, 2e-2) if dname == "bf16" else (2e-5, 2e-5)))
    return out


@param(unary_cases())
def test_unary_types(case):
    check(case)


@param(unary_value_cases())
def test_unary_values(case):
    check(case)


# --- elementwise: binary -------------------------------------------------------------------------
BINARY = ["hypot", "logaddexp", "logaddexp2", "fmax", "fmin", "fmod", "copysign", "heaviside", "float_power",
          "logical_xor", "isclose", "gcd", "lcm", "divmod", "atan2", "allclose", "array_equal", "array_equiv",
          "pow"]
PAIRS = [("f32", "f32"), ("f32", "i32"), ("i32", "i32"), ("bf16", "f32"), ("bool", "bool"), ("bf16", "bf16")]
#: (lhs shape, rhs shape): equal, rank-promoted, scalar
BSHAPES = [((8, 4), (8, 4)), ((8, 4), (4,)), ((), (8, 4)), ((4, 2, 8), (2, 8))]


def _binary(name, scalar=None):
    def fn(ns, x, y):
        f = getattr(J(ns), name)
        return f(x, scalar) if scalar is not None else f(x, y)
    return fn


def _bin_types(mesh, d1, d2, salt):
    out = []
    for s1, s2 in BSHAPES:
        for spec in specs_for(s1, mesh):
            # the rhs takes the lhs's spec on its trailing dims (or none: broadcasting rules decide)
            k = len(s1) - len(s2)
            out.append((type_str(d1, s1, spec), type_str(d2, s2, spec[k:] if k >= 0 else ())))
            out.append((type_str(d1, s1, spec), type_str(d2, s2, ())))
    uniq = sorted(set(out))
    picks = sample([Case(f"{a}|{b}", mesh, None) for a, b in uniq], 3, salt=salt)
    return [tuple(c.id.split("|")) for c in picks]


def binary_cases():
    out = []
    for name, (d1, d2), mesh in itertools.product(BINARY, PAIRS, BASIC_MESHES):
        for a, b in _bin_types(mesh, d1, d2, name + d1 + d2):
            out.append(Case(f"{name}-{mesh}-{a}-{b}", mesh, _binary(name), (a, b)))
    for name, mesh in itertools.product(BINARY, ("2d",)):
        for scal in (2, 1.5, True):
            out.append(Case(f"{name}-{mesh}-scalar{scal!r}", mesh, _binary(name, scal), ("f32[8@X,4]", "f32[4]")))
            out.append(Case(f"{name}-{mesh}-i32-scalar{scal!r}", mesh, _binary(name, scal),
                            ("i32[8,4@Y]", "i32[4]")))
    return out


def binary_value_cases():
    out = []
    for k, name in enumerate(BINARY):
        for d1, d2 in (("f32", "f32"), ("i32", "i32")):
            mesh = ("1d", "2d", "3d")[k % 3]
            a = "f32[8@X,4]".replace("f32", d1)
            b = "f32[4]".replace("f32", d2)
            out.append(Case(f"{name}-vals-{mesh}-{a}-{b}", mesh, _binary(name), (a, b), mode="jit",
                            collectives="at_most"))
    return out


@param(binary_cases())
def test_binary_types(case):
    check(case)


@param(binary_value_cases())
def test_binary_values(case):
    check(case)
