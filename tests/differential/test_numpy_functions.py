"""Differential: the `jax.numpy` functions of issue 12 (elementwise math, shapes and
construction, NaN reductions, products, `linalg` norms) against jax.numpy 0.10.2, over 1-D
to 3-D meshes, f32/bf16/i32/bool, ranks 0-3 and the shardings the shapes allow: accept/reject
(error class and key phrase) and `str(typeof)` of every output by tracing; values, concrete
output shardings and collectives (shardc <= JAX) by compiling and running a spread subset."""
from __future__ import annotations

import itertools
import re

import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
from oracle import BASIC_MESHES, JAX, Case, Placed, check, param, sample, specs_for, type_str

import shardc.numpy as snp


def J(ns):
    """The numpy namespace of a side."""
    return jnp if ns is JAX else snp


SHAPES = {0: (), 1: (8,), 2: (8, 4), 3: (4, 2, 8)}
DTYPES = ("f32", "bf16", "i32", "bool")


def _dtypes_for(k: int) -> tuple[str, ...]:
    """f32 always, and one of i32 / bf16 / bool in turn (over the meshes of one function)."""
    return ("f32", ("i32", "bf16", "bool")[k % 3])


def _types(dname: str, mesh: str, ranks=(0, 1, 2, 3), n: int = 4, salt: str = "") -> list[str]:
    pool = [type_str(dname, SHAPES[r], spec) for r in ranks for spec in specs_for(SHAPES[r], mesh)]
    return [c.id for c in sample([Case(t, mesh, None) for t in pool], n, salt=salt + dname + mesh)]


# --- elementwise: unary --------------------------------------------------------------------------
UNARY = ["arcsin", "asin", "arccos", "arctan", "atan", "sinh", "cosh", "arcsinh", "arccosh", "arctanh", "acos",
         "asinh", "acosh", "atanh", "log2", "log10", "exp2", "trunc", "rint", "isnan", "isinf", "isposinf",
         "isneginf", "signbit", "deg2rad", "radians", "rad2deg", "degrees", "sinc", "nan_to_num", "positive",
         "modf", "real", "imag", "conj", "conjugate", "fabs", "around", "iscomplex", "isreal", "bitwise_invert",
         "angle", "bitwise_count"]


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
        for t in _types(dname, mesh, n=2 if dname == "f32" else 1, salt=name):
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
          "pow", "left_shift", "right_shift", "bitwise_left_shift", "bitwise_right_shift"]
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
    picks = sample([Case(f"{a}|{b}", mesh, None) for a, b in uniq], 2, salt=salt)
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


# --- shapes and construction ---------------------------------------------------------------------
def _p(expr):
    """A program `lambda ns, x: <expr>` with `m` the side's numpy namespace."""
    code = compile(f"lambda ns, x: (lambda m: {expr})(J(ns))", expr, "eval")
    return eval(code, {"J": J, "np": np})


#: (name, expression of `m` and `x`, ranks of `x` it takes)
SHAPE_FNS = [
    ("tril", "m.tril(x)", (2, 3)), ("tril-k", "m.tril(x, -1)", (2, 3)), ("triu-k", "m.triu(x, 1)", (2, 3)),
    ("triu", "m.triu(x)", (2, 3)), ("tril-1d", "m.tril(x)", (1,)),
    ("diagonal", "m.diagonal(x)", (2, 3)), ("diagonal-off", "m.diagonal(x, 1, 0, 1)", (2, 3)),
    ("diagonal-neg", "m.diagonal(x, -2, 1, 0)", (2, 3)), ("diag", "m.diag(x)", (1, 2)),
    ("diag-k", "m.diag(x, 1)", (1, 2)), ("diagflat", "m.diagflat(x)", (1, 2)),
    ("trace", "m.trace(x)", (2, 3)), ("trace-off", "m.trace(x, 1, axis1=1, axis2=0)", (2, 3)),
    ("split2", "m.split(x, 2)", (1, 2, 3)), ("split-idx", "m.split(x, [1, 3], axis=-1)", (1, 2, 3)),
    ("split4", "m.split(x, 4, axis=0)", (1, 2, 3)), ("array_split3", "m.array_split(x, 3)", (1, 2, 3)),
    ("hsplit", "m.hsplit(x, 2)", (1, 2, 3)), ("vsplit", "m.vsplit(x, 2)", (2, 3)), ("dsplit", "m.dsplit(x, 2)", (3,)),
    ("hstack", "m.hstack([x, x])", (0, 1, 2, 3)), ("vstack", "m.vstack([x, x])", (0, 1, 2, 3)),
    ("dstack", "m.dstack([x, x])", (0, 1, 2, 3)), ("column_stack", "m.column_stack([x, x])", (1, 2, 3)),
    ("concat", "m.concat([x, x], axis=-1)", (1, 2, 3)), ("concat-none", "m.concat([x, x], axis=None)", (1, 2)),
    ("unstack", "m.unstack(x, axis=-1)", (1, 2, 3)), ("block", "m.block([[x, x], [x, x]])", (1, 2)),
    ("tile", "m.tile(x, 2)", (0, 1, 2, 3)), ("tile-2", "m.tile(x, (2, 1))", (0, 1, 2, 3)),
    ("repeat", "m.repeat(x, 2)", (0, 1, 2)), ("repeat-ax", "m.repeat(x, 3, axis=-1)", (1, 2, 3)),
    ("repeat-arr", "m.repeat(x, np.array([1, 0, 2, 1]), axis=-1)", (2,)),
    ("repeat-total", "m.repeat(x, 2, axis=-1, total_repeat_length=5)", (2, 3)),
    ("repeat-out", "m.repeat(x, 2, axis=0, out_sharding=ns.P())", (1, 2)),
    ("roll", "m.roll(x, 3)", (0, 1, 2, 3)), ("roll-ax", "m.roll(x, -1, axis=-1)", (1, 2, 3)),
    ("roll-2", "m.roll(x, (1, 2), axis=(0, 1))", (2, 3)),
    ("flip", "m.flip(x)", (0, 1, 2, 3)), ("flip-ax", "m.flip(x, -1)", (1, 2, 3)), ("fliplr", "m.fliplr(x)", (2, 3)),
    ("flipud", "m.flipud(x)", (1, 2, 3)), ("rot90", "m.rot90(x)", (2, 3)), ("rot90-2", "m.rot90(x, 2)", (2, 3)),
    ("rot90-3", "m.rot90(x, -1, axes=(1, 0))", (2, 3)),
    ("pad", "m.pad(x, 1)", (0, 1, 2, 3)), ("pad-cv", "m.pad(x, ((0, 2),) * x.ndim, constant_values=3)", (1, 2)),
    ("pad-edge", "m.pad(x, 2, mode='edge')", (1, 2)), ("pad-wrap", "m.pad(x, 3, mode='wrap')", (1, 2)),
    ("pad-reflect", "m.pad(x, (1, 2), mode='reflect')", (1, 2)),
    ("pad-symmetric", "m.pad(x, 2, mode='symmetric')", (1, 2)),
    ("pad-odd", "m.pad(x, 2, mode='reflect', reflect_type='odd')", (1, 2)),
    ("pad-empty", "m.pad(x, 1, mode='empty')", (1, 2)),
    ("pad-linear_ramp", "m.pad(x, (2, 3), mode='linear_ramp')", (1, 2, 3)),
    ("pad-linear_ramp-ends", "m.pad(x, ((1, 2),) * x.ndim, mode='linear_ramp', end_values=(-1.5, 4))", (1, 2)),
    ("pad-maximum", "m.pad(x, 2, mode='maximum')", (1, 2, 3)), ("pad-minimum", "m.pad(x, (0, 2), mode='minimum')", (1, 2)),
    ("pad-mean", "m.pad(x, 1, mode='mean')", (1, 2, 3)), ("pad-median", "m.pad(x, 2, mode='median')", (1, 2)),
    ("pad-mean-stat", "m.pad(x, 2, mode='mean', stat_length=(1, 3))", (1, 2)),
    ("pad-max-stat", "m.pad(x, 1, mode='maximum', stat_length=2)", (1, 2)),
    ("pad-int-mean", "m.pad((x * 3).astype(m.int32), 2, mode='mean')", (1, 2)),
    ("pad-uint8-median", "m.pad(abs(x * 40).astype(m.uint8), (1, 2), mode='median', stat_length=3)", (1, 2)),
    ("pad-callable", "m.pad(x, 2, mode=lambda v, w, i, kw: v.at[:w[0]].set(kw.get('val', 7.0)), val=-2.0)", (1, 2)),
    ("pad-callable-int", "m.pad((x * 2).astype(m.int32), (1, 3), mode=lambda v, w, i, kw: v * (i + 2))", (1, 2)),
    ("atleast_1d", "m.atleast_1d(x)", (0, 1, 2)), ("atleast_2d", "m.atleast_2d(x)", (0, 1, 2)),
    ("atleast_3d", "m.atleast_3d(x)", (0, 1, 2, 3)), ("atleast-many", "m.atleast_2d(x, x)", (0, 1)),
    ("broadcast_arrays", "m.broadcast_arrays(x, m.ones((2,) + x.shape, x.dtype))", (0, 1, 2)),
    ("empty_like", "m.empty_like(x)", (0, 1, 2, 3)), ("copy", "m.copy(x)", (0, 1, 2)),
    ("rollaxis", "m.rollaxis(x, -1)", (2, 3)), ("matrix_transpose", "m.matrix_transpose(x)", (2, 3)),
    ("resize", "m.resize(x, (3, 5))", (1, 2)), ("append", "m.append(x, x)", (1, 2)),
    ("append-ax", "m.append(x, x, axis=0)", (1, 2, 3)), ("delete", "m.delete(x, 1, axis=0)", (1, 2, 3)),
    ("delete-arr", "m.delete(x, np.array([0, 2]), axis=-1)", (1, 2)),
    ("delete-slice", "m.delete(x, slice(0, 3, 2))", (1, 2)),
    ("delete-unique", "m.delete(x, np.array([3, 0]), axis=0, assume_unique_indices=True)", (1, 2)),
    ("delete-traced", "m.delete(x, m.argmax(x.reshape(-1)).reshape(1) % 3, axis=0, assume_unique_indices=True)",
     (1, 2)),
    ("delete-traced-nonunique", "m.delete(x, m.argmax(x.reshape(-1)).reshape(1) % 3, axis=0)", (1,)),
    ("diff", "m.diff(x)", (1, 2, 3)), ("diff-2", "m.diff(x, 2, axis=0)", (1, 2, 3)),
    ("diff-pre", "m.diff(x, prepend=0, append=x[..., :1])", (1, 2)),
    ("ediff1d", "m.ediff1d(x, to_begin=1, to_end=x[:2] if x.ndim == 1 else None)", (1, 2)),
    ("cumulative_sum", "m.cumulative_sum(x, axis=-1)", (1, 2, 3)),
    ("cumulative_sum-init", "m.cumulative_sum(x, axis=0, include_initial=True)", (1, 2)),
    ("cumulative_prod", "m.cumulative_prod(x, axis=-1)", (1, 2)),
    ("nancumsum", "m.nancumsum(x, axis=-1)", (1, 2, 3)), ("nancumprod", "m.nancumprod(x, axis=0)", (1, 2)),
    ("shape", "m.zeros(m.shape(x))", (0, 1, 2)),
    ("linspace", "m.linspace(x, 2 * x, 5)", (0, 1, 2)), ("linspace-ax", "m.linspace(0, x, 4, axis=-1)", (1, 2)),
    ("linspace-noend", "m.linspace(x, 3.0, 4, endpoint=False, retstep=True)", (0, 1)),
    ("logspace", "m.logspace(x, 1.0, 4)", (0, 1)), ("geomspace", "m.geomspace(1.0, x * x + 1, 3)", (0, 1)),
    ("meshgrid", "m.meshgrid(x, x[:2])", (1,)), ("meshgrid-ij", "m.meshgrid(x, x, indexing='ij', sparse=True)", (1,)),
    ("kron", "m.kron(x, x[:2])", (1, 2)), ("cross", "m.cross(x[..., :3], x[..., 1:4])", (1, 2, 3)),
    ("cross2", "m.cross(x[..., :2], x[..., 2:4])", (1, 2)), ("inner", "m.inner(x, x)", (0, 1, 2)),
    ("vdot", "m.vdot(x, x)", (1, 2)), ("vecdot", "m.vecdot(x, x)", (1, 2, 3)),
    ("vecdot-ax", "m.vecdot(x, x[:1], axis=0)", (2, 3)), ("matvec", "m.matvec(x, x[0])", (2, 3)),
    ("vecmat", "m.vecmat(x[..., 0], x)", (2, 3)), ("outer-linalg", "m.linalg.outer(x, x[:2])", (1,)),
    ("polyval", "m.polyval(x[:3], x)", (1, 2)), ("polyval-2d", "m.polyval(x, x[0])", (2,)),
    ("polyadd", "m.polyadd(x, x[:3])", (1,)), ("polysub", "m.polysub(x[:2], x)", (1,)),
    ("polyder", "m.polyder(x, 2)", (1,)), ("polyint", "m.polyint(x, 2, 1.5)", (1,)),
    ("trapezoid", "m.trapezoid(x)", (1, 2, 3)), ("trapezoid-x", "m.trapezoid(x, x, axis=0)", (1, 2)),
    ("trapezoid-dx", "m.trapezoid(x, dx=0.5, axis=0)", (2, 3)),
    ("vander", "m.vander(x)", (1,)), ("vander-N", "m.vander(x, 3, increasing=True)", (1,)),
    ("unwrap", "m.unwrap(x * 3)", (1, 2, 3)), ("unwrap-ax", "m.unwrap(x, discont=1.0, axis=0, period=2.5)", (1, 2)),
    ("cov", "m.cov(x)", (1, 2)), ("cov-cols", "m.cov(x, rowvar=False, bias=True)", (2,)),
    ("cov-y", "m.cov(x, x[::-1], ddof=0)", (1, 2)), ("cov-aw", "m.cov(x, aweights=m.abs(x[(0,) * (x.ndim - 1)]) + 1)", (1, 2)),
    ("corrcoef", "m.corrcoef(x)", (1, 2)), ("corrcoef-y", "m.corrcoef(x, x * x)", (1,)),
    ("unravel_index", "m.unravel_index(m.abs(x).astype(m.int32) * 3 - 2, (2, 3))", (0, 1, 2)),
    ("ravel_multi_index", "m.ravel_multi_index((m.abs(x).astype(m.int32), x.astype(m.int32)), (6, 7), mode='clip')",
     (0, 1, 2)),
    ("ravel_multi_index-wrap", "m.ravel_multi_index((x.astype(m.int32),) * 3, (2, 3, 4), mode='wrap', order='F')",
     (1, 2)),
    ("choose", "m.choose(m.abs(x).astype(m.int32), [x, 2 * x, -x], mode='wrap')", (1, 2, 3)),
    ("choose-clip", "m.choose(x.astype(m.int32), [x, x[..., :1] * 0], mode='clip')", (1, 2)),
    ("gradient", "m.gradient(x)", (1, 2, 3)), ("gradient-ax", "m.gradient(x, 0.5, axis=-1)", (1, 2, 3)),
    ("gradient-x", "m.gradient(x, m.arange(x.shape[0]) ** 2, axis=0)", (1, 2)),
    ("fill_diagonal", "m.fill_diagonal(x, 3, inplace=False)", (2,)),
    ("fill_diagonal-arr", "m.fill_diagonal(x[:2, :2], x[0, :2], inplace=False)", (2,)),
    ("ix_", "m.ix_(x, x[:3])", (1,)), ("apply_over_axes", "m.apply_over_axes(m.sum, x, [0, x.ndim - 1])", (1, 2, 3)),
    ("angle-deg", "m.angle(x, deg=True)", (0, 1, 2)),
    ("apply_along_axis", "m.apply_along_axis(lambda v: v * v.sum(), 0, x)", (1, 2, 3)),
    ("apply_along_axis-red", "m.apply_along_axis(m.max, -1, x)", (2, 3)),
    ("insert", "m.insert(x, 1, 5)", (1, 2)), ("insert-ax", "m.insert(x, -1, x[..., 0], axis=-1)", (2, 3)),
    ("insert-idx", "m.insert(x, np.array([0, 2]), x[:2], axis=0)", (1, 2)),
    ("insert-slice", "m.insert(x, slice(0, 4, 2), 7, axis=0)", (1, 2)),
    ("insert-traced", "m.insert(x, m.argmax(x.reshape(-1)), 0, axis=0)", (1, 2)),
]
CONSTRUCT_FNS = [
    ("tri", "m.tri(3, 5, 1)"), ("tri-i32", "m.tri(4, dtype=m.int32)"), ("eye", "m.eye(4)"),
    ("eye-k", "m.eye(3, 5, k=-1, dtype=m.bfloat16)"), ("identity", "m.identity(3, dtype=m.int32)"),
    ("tril_indices", "m.tril_indices(4)"), ("triu_indices", "m.triu_indices(4, 1, 5)"),
    ("tril_indices_from", "m.tril_indices_from(m.ones((3, 4)), -1)"), ("triu_indices_from", "m.triu_indices_from(m.ones((4, 4)))"),
    ("diag_indices", "m.diag_indices(3, 3)"), ("diag_indices_from", "m.diag_indices_from(m.ones((3, 3)))"),
    ("indices", "m.indices((2, 3))"), ("indices-sparse", "m.indices((2, 3), sparse=True)"),
    ("linspace-const", "m.linspace(0, 1, 7)"), ("linspace-int", "m.linspace(0, 10, 4, dtype=m.int32)"),
    ("logspace-const", "m.logspace(0, 2, 3, base=2.0)"), ("geomspace-const", "m.geomspace(1, 1000, 4)"),
    ("broadcast_shapes", "m.zeros(m.broadcast_shapes((2, 1), (3,), 1))"),
    ("result_type", "m.zeros(2, m.result_type(m.int8, 1.0, m.bfloat16))"),
    ("hanning", "m.hanning(7)"), ("hamming", "m.hamming(6)"), ("blackman", "m.blackman(5)"),
    ("bartlett", "m.bartlett(8)"), ("window-1", "m.hanning(1)"),
    ("mask_indices", "m.mask_indices(4, m.triu, 1, size=6)"), ("mask_indices-tril", "m.mask_indices(3, m.tril, size=6)"),
    ("fromfunction", "m.fromfunction(lambda i, j: i * 10 + j, (3, 4))"),
    ("fromfunction-int", "m.fromfunction(lambda i, j, k: i * j - k, (2, 3, 2), dtype=m.int32)"),
    ("mgrid", "m.mgrid[0:3, 1:7:2]"), ("mgrid-1d", "m.mgrid[0:1:5j]"), ("ogrid", "m.ogrid[0:2, 0:1:3j]"),
]


def shape_cases():
    out = []
    for (name, expr, ranks), (k, mesh) in itertools.product(SHAPE_FNS, enumerate(BASIC_MESHES)):
        for dname in _dtypes_for(k + len(name)):
            for t in _types(dname, mesh, ranks=ranks, n=2 if dname == "f32" else 1, salt=name):
                out.append(Case(f"{name}-{mesh}-{t}", mesh, _p(expr), (t,)))
    for name, expr in CONSTRUCT_FNS:
        out.append(Case(f"{name}-2d", "2d", _p(expr), ("f32[8]",)))
    return out


def shape_value_cases():
    out = []
    for k, (name, expr, ranks) in enumerate(SHAPE_FNS):
        mesh = ("1d", "2d", "3d")[k % 3]
        r = ranks[-1] if ranks[-1] < 3 else 2
        spec = {0: (), 1: ("X",), 2: (None, "X") if k % 2 else ("X", None)}[r]
        for dname in ("f32", "i32"):
            t = type_str(dname, SHAPES[r], spec)
            out.append(Case(f"{name}-vals-{mesh}-{t}", mesh, _p(expr), (t,), mode="jit", collectives="at_most"))
    for name, expr in CONSTRUCT_FNS:
        out.append(Case(f"{name}-vals", "1d", _p(expr), ("f32[8]",), mode="jit", collectives="at_most"))
    return out


@param(shape_cases())
def test_shapes_types(case):
    check(case)


@param(shape_value_cases())
def test_shapes_values(case):
    check(case)


# --- NaN reductions, averages, norms -------------------------------------------------------------
def _nanified(expr):
    """`expr` of `x` with NaNs put in where x > 1 (floats), so NaN handling shows in values."""
    inner = _p(expr)

    def fn(ns, x):
        m = J(ns)
        if m.issubdtype(x.dtype, m.floating):
            x = m.where(x > 1.0, m.nan, x)
        return inner(ns, x)
    return fn


REDUCTION_FNS = [
    ("nansum", "m.nansum(x)", (0, 1, 2, 3)), ("nansum-ax", "m.nansum(x, axis=-1, keepdims=True)", (1, 2, 3)),
    ("nansum-dt", "m.nansum(x, axis=0, dtype=m.float32)", (1, 2)),
    ("nanprod", "m.nanprod(x, axis=0)", (1, 2, 3)), ("nanmax", "m.nanmax(x, axis=-1)", (1, 2, 3)),
    ("nanmin", "m.nanmin(x)", (0, 1, 2)), ("nanmean", "m.nanmean(x, axis=0)", (1, 2, 3)),
    ("nanmean-all", "m.nanmean(x, keepdims=True)", (0, 1, 2)), ("nanvar", "m.nanvar(x, axis=-1)", (1, 2, 3)),
    ("nanvar-ddof", "m.nanvar(x, ddof=1)", (1, 2)), ("nanstd", "m.nanstd(x, axis=(0, 1))", (2, 3)),
    ("nanargmax", "m.nanargmax(x, axis=-1)", (1, 2, 3)), ("nanargmin", "m.nanargmin(x)", (1, 2)),
    ("nanargmax-kd", "m.nanargmin(x, axis=0, keepdims=True)", (2,)),
    ("ptp", "m.ptp(x, axis=-1)", (1, 2, 3)), ("ptp-all", "m.ptp(x)", (0, 1, 2)),
    ("average", "m.average(x)", (0, 1, 2)), ("average-ax", "m.average(x, axis=-1, returned=True)", (1, 2, 3)),
    ("average-w", "m.average(x, axis=-1, weights=m.abs(x[(0,) * (x.ndim - 1)]) + 1)", (1, 2, 3)),
    ("average-wfull", "m.average(x, weights=x * x + 1, returned=True, keepdims=True)", (1, 2)),
    ("norm", "m.linalg.norm(x)", (1, 2, 3)), ("norm-ax", "m.linalg.norm(x, axis=-1)", (1, 2, 3)),
    ("norm-1", "m.linalg.norm(x, 1, axis=0)", (1, 2)), ("norm-inf", "m.linalg.norm(x, m.inf, axis=-1)", (1, 2)),
    ("norm-3", "m.linalg.norm(x, 3, axis=-1, keepdims=True)", (1, 2)),
    ("norm-0", "m.linalg.norm(x, 0, axis=-1)", (1, 2)),
    ("norm-fro", "m.linalg.norm(x, 'fro', axis=(0, 1))", (2, 3)),
    ("norm-m1", "m.linalg.norm(x, 1, axis=(0, 1))", (2, 3)), ("norm-minf", "m.linalg.norm(x, -m.inf, axis=(1, 0))", (2, 3)),
    ("vector_norm", "m.linalg.vector_norm(x, ord=-m.inf)", (1, 2)),
    ("matrix_norm", "m.linalg.matrix_norm(x, ord=m.inf, keepdims=True)", (2, 3)),
    ("linalg-trace", "m.linalg.trace(x, offset=1)", (2, 3)), ("linalg-diagonal", "m.linalg.diagonal(x)", (2, 3)),
    ("linalg-vecdot", "m.linalg.vecdot(x, x, axis=0)", (1, 2)),
    ("linalg-matmul", "m.linalg.matmul(x, m.linalg.matrix_transpose(x))", (2, 3)),
    ("linalg-cross", "m.linalg.cross(x[..., :3], x[..., 2:5])", (1, 2, 3)),
]


def reduction_cases():
    out = []
    for (name, expr, ranks), (k, mesh) in itertools.product(REDUCTION_FNS, enumerate(BASIC_MESHES)):
        for dname in _dtypes_for(k + len(name)):
            for t in _types(dname, mesh, ranks=ranks, n=2 if dname == "f32" else 1, salt=name):
                out.append(Case(f"{name}-{mesh}-{t}", mesh, _nanified(expr), (t,)))
    return out


def reduction_value_cases():
    out = []
    for k, (name, expr, ranks) in enumerate(REDUCTION_FNS):
        mesh = ("1d", "2d", "3d")[k % 3]
        r = 2 if 2 in ranks else ranks[-1]
        spec = {0: (), 1: ("X",), 2: (None, "X") if k % 2 else ("X", None), 3: ("X", None, None)}[r]
        for dname in ("f32", "i32"):
            t = type_str(dname, SHAPES[r], spec)
            out.append(Case(f"{name}-vals-{mesh}-{t}", mesh, _nanified(expr), (t,), mode="jit",
                            collectives="at_most", tol=(1e-4, 1e-4)))
    return out


@param(reduction_cases())
def test_reductions_types(case):
    check(case)


@param(reduction_value_cases())
def test_reductions_values(case):
    check(case)


@param([Case("trim_zeros-jit", "1d", _p("m.trim_zeros(x)"), ("i32[8]",), expect="reject", kind=TypeError,
             phrase="Abstract tracer value encountered where concrete value is expected"),
        Case("trim_zeros-eager", "1d", _p("m.trim_zeros(m.where(m.abs(x) < 3, 0, x))"), ("i32[8]",), mode="eager"),
        Case("trim_zeros-f", "1d", _p("m.trim_zeros(m.where(x < 3, 0, x), 'f')"), ("i32[8]",), mode="eager")])
def test_concrete_only(case):
    check(case)


# --- jnp.select (was the two-way `where` under jnp's name) -------------------------------------
def _select(default):
    def prog(ns, c1, c2, a, b):
        return J(ns).select([c1 > 0, c2 > 0], [a, b], default=default)
    return prog


SELECT_CASES = [Case(f"select-default-{d}-{mesh}-{mode}", mesh, _select(d), args, mode=mode)
                for d in (0, 0.5)
                for mesh, args in [("1d", ("f32[8@X]", "f32[8@X]", "i32[8@X]", "i32[8@X]")),
                                   ("2d", ("f32[8@X,4]", "f32[8@X,4]", "f32[8@X,4]", "f32[4]"))]
                for mode in ("trace", "jit")] + [
    Case("select-lengths", "1d", lambda ns, a: J(ns).select([a > 0], [a, a]), ("f32[8]",), expect="reject",
         kind=ValueError, phrase="condlist must have length equal to choicelist"),
    Case("select-empty", "1d", lambda ns, a: J(ns).select([], []), ("f32[8]",), expect="reject", kind=ValueError,
         phrase="condlist must be non-empty")]


@param(SELECT_CASES)
def test_jnp_select(case):
    check(case)


ABS_GRAD = [Case(f"grad-abs-at-zero-{np.dtype(d).name}", "1d", lambda ns, x: ns.grad(lambda v: ns.sum(ns.abs(v * 0.0 + v)))(x),
                 (Placed(value=np.array([-1, 0, 0, 2, -0.0, 3, 0, -5], np.float32).astype(d)),), mode="jit")
            for d in (np.float32, ml_dtypes.bfloat16)]


@param(ABS_GRAD)
def test_abs_gradient_at_zero_is_one(case):
    """JAX's abs JVP is select(x >= 0, g, -g): 1 at 0 (and at -0.0), not sign(0) = 0."""
    check(case)


#: jnp.pad's refusals: (call, JAX's exception class, key phrase)
PAD_ERRORS = {
    "unknown-mode": (lambda m, x: m.pad(x, 1, mode="nearest"), NotImplementedError, "Unimplemented padding mode 'nearest'"),
    "bad-kwarg": (lambda m, x: m.pad(x, 1, mode="mean", end_values=1), ValueError, "unsupported keyword arguments for mode 'mean'"),
    "stat-length-0": (lambda m, x: m.pad(x, 1, mode="maximum", stat_length=0), ValueError, "stat_length of 0 yields no value"),
    "float-width": (lambda m, x: m.pad(x, 1.5, mode="linear_ramp"), TypeError, "`pad_width` must be of integral type."),
}


@pytest.mark.parametrize("name", sorted(PAD_ERRORS))
def test_pad_errors_as_jax(name):
    call, kind, phrase = PAD_ERRORS[name]
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    for m in (jnp, snp):
        with pytest.raises(kind, match=re.escape(phrase)):
            call(m, x)
