"""Differential: the linalg primitives (shardc/primitives/linalg.py: `cholesky`, `triangular_solve`)
and the functions over them (`jnp.linalg.cholesky`, `jax.lax.linalg.cholesky` /
`triangular_solve`) against JAX 0.10.2. By tracing: every spec of batched operands (ranks 2-4)
on 1-D to 3-D meshes (batch dims sharded: kept; matrix dims sharded: JAX's "must be unsharded
on non-batch dimensions" / "unsharded on the contracting axis"), f32/bf16/f16/c64/i32 and weak
types, JAX's shape and dtype errors. Compiled: values (SPD matrices built in the program,
failures as NaN, every triangular_solve flag), batch-sharded values, gradients vs jax.grad
(JAX's JVP rules transposed), vmap, and bf16 lowering (JAX's "Unsupported dtype")."""
from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax._src.lax import linalg as jax_linalg
from oracle import BASIC_MESHES, JAX, Case, bind, check, param, sample, specs_for, type_str

import shardc as sc
import shardc.numpy as snp
from shardc.emit.stablehlo import emit_module
from shardc.primitives import linalg as sc_linalg


def J(ns):
    """The numpy namespace of a side."""
    return jnp if ns is JAX else snp


def _chol_p(ns, x):
    """The bare `cholesky_p` (JAX's `cholesky` adds a replicated `tril` mask, see `JNP_TYPES`)."""
    return jax_linalg.cholesky_p.bind(x) if ns is JAX else bind(sc_linalg.cholesky_p, x)


def _tri(**kw):
    return lambda ns, a, b: ns.lax.linalg.triangular_solve(a, b, **kw)


SHAPES = [(4, 4), (2, 4, 4), (2, 2, 4, 4), (8, 4, 4)]


def type_cases():
    cases = []
    for mesh, shape in itertools.product(BASIC_MESHES, SHAPES):
        pool = [Case(f"chol_p-{mesh}-{type_str('f32', shape, s)}", mesh, _chol_p, (type_str("f32", shape, s),))
                for s in specs_for(shape, mesh)]
        cases += sample(pool, 2, salt="chol" + mesh)
        # triangular_solve: a and b with the same spec (batch dims sharded, or any matrix dim)
        pool = []
        for s, left, tr in itertools.product(specs_for(shape, mesh), (True, False), (True, False)):
            t = type_str("f32", shape, s)
            pool.append(Case(f"tri-{mesh}-{t}-{left}-{tr}", mesh, _tri(left_side=left, transpose_a=tr), (t, t)))
        cases += sample(pool, 3, salt="tri" + mesh)
    # matrix dims sharded on one operand only: each contracting/free dim in turn
    for left, tr, (sa, sb) in itertools.product((True, False), (True, False), [
            ("f32[2@X,4,4]", "f32[2@X,4,4@Y]"), ("f32[2@X,4,4]", "f32[2@X,4@Y,4]"),
            ("f32[2@X,4@Y,4]", "f32[2@X,4,4]"), ("f32[2@X,4,4@Y]", "f32[2@X,4,4]"),
            ("f32[2@X,4,4]", "f32[2@Y,4,4]"), ("f32[2@X,4,4]", "f32[2,4,4]")]):
        cases.append(Case(f"tri-one-{sa}-{sb}-{left}-{tr}", "2d", _tri(left_side=left, transpose_a=tr), (sa, sb)))
    cases += [
        Case("chol_p-mat-sharded", "2d", _chol_p, ("f32[2,4@Y,4]",), expect="reject"),
        Case("chol_p-batch", "2d", _chol_p, ("f32[2@X,4,4]",), expect="accept"),
        Case("chol_p-rank1", "1d", _chol_p, ("f32[4]",), expect="reject"),
        Case("chol_p-rect", "1d", _chol_p, ("f32[4,3]",), expect="reject"),
        Case("chol_p-i32", "1d", _chol_p, ("i32[4,4]",), expect="reject"),
        Case("chol_p-bf16", "1d", _chol_p, ("bf16[4,4]",), expect="accept"),
        Case("chol_p-f16", "1d", _chol_p, ("f16[4,4]",), expect="accept"),
        Case("chol_p-c64", "1d", _chol_p, ("c64[8@X,4,4]",), expect="accept"),
        Case("chol_p-weak", "1d", _chol_p, ("~f32[4,4]",)),
        Case("tri-dtypes", "1d", _tri(), ("f32[4,4]", "bf16[4,4]"), expect="reject"),
        Case("tri-i32", "1d", _tri(), ("i32[4,4]", "i32[4,4]"), expect="reject"),
        Case("tri-bf16", "1d", _tri(), ("bf16[4,4]", "bf16[4,4]"), expect="accept"),
        Case("tri-rect-a", "1d", _tri(), ("f32[4,3]", "f32[4,3]"), expect="reject"),
        Case("tri-incompatible", "1d", _tri(left_side=True), ("f32[4,4]", "f32[3,4]"), expect="reject"),
        Case("tri-incompatible-right", "1d", _tri(), ("f32[4,4]", "f32[4,3]"), expect="reject"),
        Case("tri-batch-ranks", "1d", _tri(left_side=True), ("f32[2,4,4]", "f32[2,2,4,4]"), expect="reject"),
        Case("tri-vector-left", "2d", _tri(left_side=True), ("f32[2@X,4,4]", "f32[2@X,4]")),
        Case("tri-vector-right", "1d", _tri(), ("f32[4,4]", "f32[4]")),
        Case("tri-rect-b", "2d", _tri(left_side=True), ("f32[4,4]", "f32[4,8@Y]"), expect="accept"),
        Case("tri-weak", "1d", _tri(), ("~f32[4,4]", "~f32[4,4]")),
        Case("tri-weak-mixed", "1d", _tri(), ("~f32[4,4]", "f32[4,4]")),
        Case("tri-c64-conj", "1d", _tri(conjugate_a=True, transpose_a=True), ("c64[4,4]", "c64[4,4]")),
    ]
    return cases


@param(type_cases())
def test_linalg_types(case):
    check(case, "trace")


def _spd(ns, x):
    """A symmetric positive-definite batch from any square batch: x x^T + n I."""
    m = J(ns)
    n = x.shape[-1]
    return m.matmul(x, m.swapaxes(x, -1, -2)) + n * m.eye(n, dtype=x.dtype)


def _chol(**kw):
    return lambda ns, x: J(ns).linalg.cholesky(_spd(ns, x), **kw)


JNP_TYPES = [
    ("chol-rep", _chol(), "f32[2,4,4]"), ("chol-batch-sharded", _chol(), "f32[2@X,4,4]"),
    ("chol-i32", lambda ns, x: J(ns).linalg.cholesky(x), "i32[4,4]"),
    ("chol-bf16", lambda ns, x: J(ns).linalg.cholesky(x), "bf16[3,4,4]"),
    ("chol-mat-sharded", lambda ns, x: J(ns).linalg.cholesky(x), "f32[4@X,4]"),
    ("chol-rank1", lambda ns, x: J(ns).linalg.cholesky(x), "f32[4]"),
    ("lax-chol-nosym", lambda ns, x: ns.lax.linalg.cholesky(x, symmetrize_input=False), "f32[2,4,4]"),
    ("lax-chol-batch-sharded", lambda ns, x: ns.lax.linalg.cholesky(x), "f32[2@X,4,4]"),
]


@param([Case(f"jnp-types-{name}", "2d", fn, (arg,)) for name, fn, arg in JNP_TYPES])
def test_jnp_linalg_types(case):
    check(case, "trace")


TOL = (2e-4, 2e-4)


def _well_conditioned(ns, x, lower=True):
    """A triangular matrix with a dominant diagonal (its solves are accurate in f32)."""
    m = J(ns)
    n = x.shape[-1]
    t = m.tril(x) if lower else m.triu(x)
    return t + 4.0 * m.eye(n, dtype=x.dtype)


def _solve(left, lower, tr, unit, vector=False):
    def f(ns, a, b):
        if vector:
            b = b[..., 0]
        return ns.lax.linalg.triangular_solve(_well_conditioned(ns, a, lower), b, left_side=left, lower=lower,
                                              transpose_a=tr, unit_diagonal=unit)
    return f


def value_cases():
    cases = [
        Case("val-chol-2", "1d", _chol(), ("f32[4,4]",), mode="jit", tol=TOL),
        Case("val-chol-3", "1d", _chol(), ("f32[3,4,4]",), mode="jit", tol=TOL),
        Case("val-chol-4", "1d", _chol(), ("f32[2,3,5,5]",), mode="jit", tol=TOL),
        Case("val-chol-upper", "1d", _chol(upper=True), ("f32[2,4,4]",), mode="jit", tol=TOL),
        Case("val-chol-nosym", "1d", _chol(symmetrize_input=False), ("f32[2,4,4]",), mode="jit", tol=TOL),
        Case("val-chol-c64", "1d", _chol(), ("c64[2,3,3]",), mode="jit", tol=TOL),
        Case("val-chol-not-pd", "1d", lambda ns, x: J(ns).linalg.cholesky(-_spd(ns, x)), ("f32[2,4,4]",),
             mode="jit"),
        Case("val-chol-eager", "1d", _chol(), ("f32[2,4,4]",), mode="eager", tol=TOL),
        Case("val-chol_p-batch-sharded", "2d", lambda ns, x: _chol_p(ns, _spd(ns, x)), ("f32[4@Y,4,4]",),
             mode="jit", tol=TOL),
        Case("val-tri-batch-sharded", "3d", _solve(True, True, False, False), ("f32[2@X,2@Y,4,4]",
                                                                              "f32[2@X,2@Y,4,3]"),
             mode="jit", tol=TOL),
        Case("val-chol-bf16-lowering", "1d", lambda ns, x: J(ns).linalg.cholesky(x), ("bf16[4,4]",), mode="jit"),
        Case("val-tri-bf16", "1d", _solve(True, True, False, False), ("bf16[4,4]", "bf16[4,2]"), mode="jit",
             tol=(3e-2, 3e-2)),
    ]
    for left, lower, tr, unit in itertools.product((True, False), (True, False), (True, False), (False, True)):
        if (left + lower + tr + unit) % 2:  # half the flag combinations (each flag both ways)
            continue
        b = "f32[2,4,3]" if left else "f32[2,3,4]"
        cases.append(Case(f"val-tri-{left}-{lower}-{tr}-{unit}", "1d", _solve(left, lower, tr, unit),
                          ("f32[2,4,4]", b), mode="jit", tol=TOL))
    cases.append(Case("val-tri-vector", "1d", _solve(True, True, True, False, vector=True),
                      ("f32[2,4,4]", "f32[2,4,1]"), mode="jit", tol=TOL))
    cases.append(Case("val-tri-c64-conj", "1d",
                      lambda ns, a, b: ns.lax.linalg.triangular_solve(
                          _well_conditioned(ns, a), b, left_side=True, lower=True, transpose_a=True,
                          conjugate_a=True), ("c64[4,4]", "c64[4,2]"), mode="jit", tol=TOL))
    return cases


@param(value_cases())
def test_linalg_values(case):
    check(case)


def _grad(f, argnums=0):
    return lambda ns, *xs: ns.grad(lambda *v: J(ns).sum(f(ns, *v) * J(ns).sin(f(ns, *v))), argnums=argnums)(*xs)


def grad_cases():
    cases = [
        Case("grad-chol", "1d", _grad(_chol()), ("f32[4,4]",), mode="jit", tol=(1e-3, 1e-3)),
        Case("grad-chol-batch", "1d", _grad(_chol()), ("f32[3,4,4]",), mode="jit", tol=(1e-3, 1e-3)),
        Case("grad-chol-upper-nosym", "1d", _grad(_chol(upper=True, symmetrize_input=False)), ("f32[2,4,4]",),
             mode="jit", tol=(1e-3, 1e-3)),
        Case("grad-chol-sharded", "2d", _grad(lambda ns, x: _chol_p(ns, _spd(ns, x))), ("f32[4@X,4,4]",),
             mode="jit", tol=(1e-3, 1e-3)),
    ]
    for left, lower, tr, unit in [(True, True, False, False), (True, False, True, False), (False, True, True, True),
                                  (False, False, False, False), (True, True, True, True)]:
        b = "f32[2,4,3]" if left else "f32[2,3,4]"
        for argnums in (0, 1):
            cases.append(Case(f"grad-tri-{left}-{lower}-{tr}-{unit}-{argnums}", "1d",
                              _grad(_solve(left, lower, tr, unit), argnums), ("f32[2,4,4]", b), mode="jit",
                              tol=(1e-3, 1e-3)))
    return cases


@param(grad_cases())
def test_linalg_grads(case):
    check(case)


def vmap_cases():
    tri = _solve(True, True, False, False)
    return [
        Case("vmap-chol", "1d", lambda ns, x: ns.vmap(lambda v: _chol()(ns, v), in_axes=1)(x), ("f32[4,3,4]",),
             mode="jit", tol=TOL),
        Case("vmap-chol_p", "2d", lambda ns, x: ns.vmap(lambda v: _chol_p(ns, _spd(ns, v)))(x), ("f32[4@X,4,4]",),
             mode="jit", tol=TOL),
        Case("vmap-tri-both", "1d", lambda ns, a, b: ns.vmap(lambda u, v: tri(ns, u, v), in_axes=(0, 2))(a, b),
             ("f32[3,4,4]", "f32[4,2,3]"), mode="jit", tol=TOL),
        Case("vmap-tri-b-only-left", "1d", lambda ns, a, b: ns.vmap(lambda v: tri(ns, a, v), in_axes=1)(b),
             ("f32[4,4]", "f32[4,3,2]"), mode="jit", tol=TOL),
        Case("vmap-tri-b-only-right", "1d",
             lambda ns, a, b: ns.vmap(lambda v: _solve(False, False, True, False)(ns, a, v))(b),
             ("f32[4,4]", "f32[3,2,4]"), mode="jit", tol=TOL),
    ]


@param(vmap_cases())
def test_linalg_vmap(case):
    check(case)


def _module(fn, types, platform):
    """The module shardc emits for `fn` on the 2-D mesh, as for `platform`."""
    with sc.set_mesh(sc.make_mesh((2, 4), ("X", "Y"))):
        traced = sc.jit(fn).trace(*types)
    return emit_module(traced.program, platform=platform)


def test_gpu_lowering_text():
    """JAX's GPU rules: cholesky is cuSOLVER's `potrf` FFI (`lower = true`, the same layouts,
    alias and NaN mask); triangular_solve is `stablehlo.triangular_solve` (a conjugated `a`
    without transpose: conj first). CI has no GPU: the text only."""
    text = _module(lambda x: bind(sc_linalg.cholesky_p, x), ("f32[8@X,4,4]",), "cuda")
    assert "stablehlo.custom_call @cusolver_potrf_ffi(%arg0)" in text
    assert "mhlo.backend_config = {lower = true}" in text and "lapack" not in text
    assert "stablehlo.compare EQ" in text and "0x7FC00000" in text
    assert "hipsolver_potrf_ffi" in _module(lambda x: bind(sc_linalg.cholesky_p, x), ("f32[4,4]",), "rocm")
    text = _module(lambda a, b: sc.lax.linalg.triangular_solve(a, b, left_side=True, transpose_a=True),
                   ("f32[8@X,4,4]", "f32[8@X,4,4]"), "cuda")
    assert ('"stablehlo.triangular_solve"(%arg0, %arg1) <{left_side = true, lower = false, '
            "transpose_a = #stablehlo<transpose TRANSPOSE>, unit_diagonal = false}>") in text
    assert "custom_call" not in text
    text = _module(lambda a, b: sc.lax.linalg.triangular_solve(a, b, conjugate_a=True),
                   ("c64[4,4]", "c64[4,4]"), "cpu")
    assert "stablehlo.negate" in text and "trans_x = 78 : ui8" in text and "@lapack_ctrsm_ffi" in text


# --- lu and the functions over it (solve, inv, det, slogdet) ----------------------------------------
def _lu_p(ns, x):
    return ns.lax.linalg.lu(x)


LU_SHAPES = [(4, 4), (4, 3), (3, 4), (2, 4, 4), (2, 2, 4, 3), (8, 4, 4)]


def lu_type_cases():
    cases = []
    for mesh, shape in itertools.product(BASIC_MESHES, LU_SHAPES):
        pool = [Case(f"lu-{mesh}-{type_str('f32', shape, s)}", mesh, _lu_p, (type_str("f32", shape, s),))
                for s in specs_for(shape, mesh)]
        cases += sample(pool, 2, salt="lu" + mesh)
    cases += [Case("lu-mat-sharded", "2d", _lu_p, ("f32[2,4@Y,4]",), expect="reject"),
              Case("lu-batch", "2d", _lu_p, ("f32[2@X,4,4]",), expect="accept"),
              Case("lu-rank1", "1d", _lu_p, ("f32[4]",), expect="reject"),
              Case("lu-i32", "1d", _lu_p, ("i32[4,4]",), expect="reject"),
              Case("lu-bf16", "1d", _lu_p, ("bf16[4,4]",)),
              Case("lu-c64", "1d", _lu_p, ("c64[4,4]",)),
              Case("lu-weak", "1d", _lu_p, ("~f32[4,4]",))]
    # jnp functions: batch sharded, replicated, matrix dims sharded, broadcast batches, errors
    fns = {"solve": (lambda ns, a, b: J(ns).linalg.solve(a, b), 2), "inv": (lambda ns, a: J(ns).linalg.inv(a), 1),
           "det": (lambda ns, a: J(ns).linalg.det(a), 1),
           "slogdet": (lambda ns, a: tuple(J(ns).linalg.slogdet(a)), 1)}
    args = {
        "rep": ("f32[2,4,4]", "f32[2,4,3]"), "batch": ("f32[2@X,4,4]", "f32[2@X,4,3]"),
        "mat": ("f32[2,4@Y,4]", "f32[2,4,3]"), "b-mat": ("f32[2,4,4]", "f32[2,4,4@Y]"),
        "2x2": ("f32[2@X,2,2]", "f32[2@X,2,1]"), "3x3": ("f32[3,3]", "f32[3]"),
        "i32": ("i32[4,4]", "i32[4]"), "bf16": ("bf16[4,4]", "bf16[4,2]"), "rect": ("f32[4,3]", "f32[4]"),
        "vec": ("f32[2@X,4,4]", "f32[4]"), "bcast": ("f32[4,4]", "f32[2@X,4,3]"),
        "rank1": ("f32[4]", "f32[4]"), "old-batched-1d": ("f32[2,4,4]", "f32[2,4]"),
        "b-mismatch": ("f32[4,4]", "f32[3]"), "b-batch-spec": ("f32[2@X,4,4]", "f32[2,4,3]"),
    }
    #: JAX rejects these for its implementation (jnp.vectorize leaves the unbatched operand
    #: replicated; its gather / reshape then has no sharding rule): shardc rejects them too, with
    #: vectorize's "sharded the same" ValueError
    quirks = {("solve", "vec"), ("solve", "bcast")}
    for (fname, (fn, nargs)), (aname, a) in itertools.product(fns.items(), args.items()):
        if nargs == 1 and aname.startswith("b-"):
            continue
        cases.append(Case(f"jnp-{fname}-{aname}", "2d", fn, a[:nargs], quirk=(fname, aname) in quirks))
    cases += [Case("slogdet-qr-method-bad", "1d", lambda ns, a: tuple(J(ns).linalg.slogdet(a, method="foo")),
                   ("f32[4,4]",), expect="reject")]
    return cases


@param(lu_type_cases())
def test_lu_types(case):
    check(case, "trace")


def _inv_safe(ns, x):
    """A well-conditioned (diagonally dominant) batch."""
    m = J(ns)
    return x + 8.0 * m.eye(x.shape[-1], dtype=x.dtype)


def _det_safe(ns, x):
    """A batch whose determinants are O(1) (so sin(det) in the loss is well-conditioned)."""
    return 0.25 * x + J(ns).eye(x.shape[-1], dtype=x.dtype)


def lu_value_cases():
    m = lambda ns: J(ns).linalg  # noqa: E731
    progs = {
        "lu-44": (lambda ns, x: ns.lax.linalg.lu(x), ("f32[4,4]",)),
        "lu-rect-tall": (lambda ns, x: ns.lax.linalg.lu(x), ("f32[2,5,3]",)),
        "lu-rect-wide": (lambda ns, x: ns.lax.linalg.lu(x), ("f32[3,5]",)),
        "lu-batch4": (lambda ns, x: ns.lax.linalg.lu(x), ("f32[2,2,4,4]",)),
        "lu-c64": (lambda ns, x: ns.lax.linalg.lu(x), ("c64[3,3]",)),
        "lu-sharded": (lambda ns, x: ns.lax.linalg.lu(x), ("f32[4@Y,4,4]",)),
        "lu-singular": (lambda ns, x: ns.lax.linalg.lu(x * 0.0), ("f32[2,3,3]",)),
        "solve": (lambda ns, a, b: m(ns).solve(_inv_safe(ns, a), b), ("f32[2,4,4]", "f32[2,4,3]")),
        "solve-vec": (lambda ns, a, b: m(ns).solve(_inv_safe(ns, a), b), ("f32[5,5]", "f32[5]")),
        "solve-bcast": (lambda ns, a, b: m(ns).solve(_inv_safe(ns, a), b), ("f32[4,4]", "f32[3,4,2]")),
        "solve-sharded": (lambda ns, a, b: m(ns).solve(_inv_safe(ns, a), b), ("f32[4@X,4,4]", "f32[4@X,4,2]")),
        "inv": (lambda ns, a: m(ns).inv(_inv_safe(ns, a)), ("f32[2,5,5]",)),
        "inv-c64": (lambda ns, a: m(ns).inv(_inv_safe(ns, a)), ("c64[4,4]",)),
        "det-2": (lambda ns, a: m(ns).det(a), ("f32[3,2,2]",)),
        "det-3": (lambda ns, a: m(ns).det(a), ("f32[3,3]",)),
        "det-5": (lambda ns, a: m(ns).det(a), ("f32[2,5,5]",)),
        "det-sharded": (lambda ns, a: m(ns).det(a), ("f32[4@X,4,4]",)),
        "det-singular": (lambda ns, a: m(ns).det(a * 0.0), ("f32[4,4]",)),
        "slogdet": (lambda ns, a: tuple(m(ns).slogdet(a)), ("f32[2,5,5]",)),
        "slogdet-lu": (lambda ns, a: tuple(m(ns).slogdet(a, method="lu")), ("f32[4,4]",)),
        "slogdet-c64": (lambda ns, a: tuple(m(ns).slogdet(a)), ("c64[4,4]",)),
        "slogdet-singular": (lambda ns, a: tuple(m(ns).slogdet(a * 0.0)), ("f32[4,4]",)),
    }
    cases = [Case(f"val-{name}", "2d", fn, args, mode="jit", tol=(1e-4, 1e-4)) for name, (fn, args) in progs.items()]
    cases.append(Case("val-solve-eager", "2d", progs["solve"][0], progs["solve"][1], mode="eager", tol=(1e-4, 1e-4)))
    grads = {
        "lu-sq": (lambda ns, x: ns.lax.linalg.lu(x)[0], ("f32[2,4,4]",), 0),
        "lu-tall": (lambda ns, x: ns.lax.linalg.lu(x)[0], ("f32[5,3]",), 0),
        "lu-wide": (lambda ns, x: ns.lax.linalg.lu(x)[0], ("f32[3,5]",), 0),
        "solve-a": (lambda ns, a, b: m(ns).solve(_inv_safe(ns, a), b), ("f32[2,4,4]", "f32[2,4,3]"), 0),
        "solve-b": (lambda ns, a, b: m(ns).solve(_inv_safe(ns, a), b), ("f32[2,4,4]", "f32[2,4,3]"), 1),
        "inv": (lambda ns, a: m(ns).inv(_inv_safe(ns, a)), ("f32[4,4]",), 0),
        "det": (lambda ns, a: m(ns).det(_det_safe(ns, a)), ("f32[2,4,4]",), 0),
        "det-3": (lambda ns, a: m(ns).det(a), ("f32[3,3]",), 0),
        "slogdet": (lambda ns, a: m(ns).slogdet(_inv_safe(ns, a))[1], ("f32[2,4,4]",), 0),
        "lu-sharded": (lambda ns, x: ns.lax.linalg.lu(x)[0], ("f32[4@X,4,4]",), 0),
        "solve-sharded": (lambda ns, a, b: m(ns).solve(_inv_safe(ns, a), b), ("f32[4@X,4,4]", "f32[4@X,4,3]"), 0),
    }
    cases += [Case(f"grad-{name}", "2d", _grad(fn, argnums), args, mode="jit", tol=(1e-3, 1e-3))
              for name, (fn, args, argnums) in grads.items()]
    cases += [
        Case("vmap-lu", "1d", lambda ns, x: ns.vmap(ns.lax.linalg.lu, in_axes=2)(x), ("f32[4,4,3]",), mode="jit"),
        Case("vmap-solve", "1d", lambda ns, a, b: ns.vmap(lambda u: m(ns).solve(_inv_safe(ns, a), u))(b),
             ("f32[4,4]", "f32[3,4]"), mode="jit", tol=(1e-4, 1e-4)),
        Case("vmap-det", "2d", lambda ns, a: ns.vmap(m(ns).det)(a), ("f32[4@X,4,4]",), mode="jit", tol=(1e-4, 1e-4)),
    ]
    return cases


@param(lu_value_cases())
def test_lu_values_grads_vmap(case):
    check(case)


# --- qr ---------------------------------------------------------------------------------------------
def _qr(mode):
    def f(ns, x):
        out = J(ns).linalg.qr(x, mode=mode)
        return out if mode == "r" else tuple(out)
    return f


def qr_cases():
    cases = []
    for mesh, shape in itertools.product(BASIC_MESHES, [(4, 4), (5, 3), (2, 3, 5), (8, 4, 2)]):
        pool = [Case(f"qr-{mesh}-{type_str('f32', shape, s)}-{full}", mesh,
                     lambda ns, x, full=full: ns.lax.linalg.qr(x, full_matrices=full), (type_str("f32", shape, s),))
                for s in specs_for(shape, mesh) for full in (True, False)]
        cases += sample(pool, 2, salt="qr" + mesh)
    cases += [Case(f"qr-types-{mode}-{arg}", "2d", _qr(mode), (arg,))
              for mode in ("reduced", "complete", "r", "full", "bogus")
              for arg in ("f32[2@X,5,3]", "i32[4,4]", "bf16[3,4]", "f32[4]", "f32[2,4@Y,4]")]
    vals = [("reduced", "f32[4,4]"), ("reduced", "f32[2,5,3]"), ("complete", "f32[2,5,3]"), ("r", "f32[3,5]"),
            ("complete", "f32[3,5]"), ("reduced", "c64[4,3]"), ("reduced", "f32[4@Y,4,2]"), ("full", "f32[2,2,4,3]")]
    cases += [Case(f"val-qr-{mode}-{arg}", "2d", _qr(mode), (arg,), mode="jit", tol=(1e-4, 1e-4))
              for mode, arg in vals]

    def loss(mode):
        def f(ns, x):
            q, r = J(ns).linalg.qr(x, mode=mode)
            return J(ns).sin(q).sum() + (r * r).sum() * 0.1
        return f
    grads = [("reduced", "f32[4,4]"), ("reduced", "f32[2,5,3]"), ("reduced", "f32[3,5]"), ("complete", "f32[3,5]"),
             ("complete", "f32[4,4]"), ("reduced", "f32[4@X,4,3]")]
    cases += [Case(f"grad-qr-{mode}-{arg}", "2d", lambda ns, x, mode=mode: ns.grad(lambda v: loss(mode)(ns, v))(x),
                   (arg,), mode="jit", tol=(1e-3, 1e-3)) for mode, arg in grads]
    cases.append(Case("vmap-qr", "1d", lambda ns, x: ns.vmap(lambda v: tuple(J(ns).linalg.qr(v)), in_axes=1)(x),
                      ("f32[4,3,3]",), mode="jit", tol=(1e-4, 1e-4)))
    return cases


@param(qr_cases())
def test_qr(case):
    check(case)


# --- eigh -------------------------------------------------------------------------------------------
def _eigh(**kw):
    return lambda ns, x: tuple(J(ns).linalg.eigh(x, **kw))


def eigh_cases():
    cases = []
    for mesh, shape in itertools.product(BASIC_MESHES, [(4, 4), (2, 4, 4), (8, 2, 2)]):
        pool = [Case(f"eigh-{mesh}-{type_str('f32', shape, s)}", mesh,
                     lambda ns, x: ns.lax.linalg.eigh(x, symmetrize_input=False), (type_str("f32", shape, s),))
                for s in specs_for(shape, mesh)]
        cases += sample(pool, 2, salt="eigh" + mesh)
    cases += [Case(f"eigh-types-{i}-{arg}", "2d", fn, (arg,)) for i, fn in enumerate(
        [_eigh(), _eigh(UPLO="U"), _eigh(UPLO="X"), lambda ns, x: J(ns).linalg.eigvalsh(x)])
        for arg in ("f32[2@X,4,4]", "f32[4,4]", "i32[4,4]", "bf16[4,4]", "c64[3,3]", "f32[4,3]", "f32[4]",
                    "f32[4,4@Y]")]
    vals = [(_eigh(), "f32[4,4]"), (_eigh(), "f32[2,3,5,5]"), (_eigh(UPLO="U", symmetrize_input=False), "f32[3,4,4]"),
            (lambda ns, x: J(ns).linalg.eigvalsh(x), "f32[4@X,4,4]"), (_eigh(), "c64[4,4]"),
            (lambda ns, x: ns.lax.linalg.eigh(x, symmetrize_input=False), "f32[8@X,3,3]")]
    cases += [Case(f"val-eigh-{i}-{arg}", "2d", fn, (arg,), mode="jit", tol=(1e-4, 1e-4))
              for i, (fn, arg) in enumerate(vals)]

    def loss(ns, x):
        w, v = J(ns).linalg.eigh(x)
        return J(ns).sin(w).sum() + (v[..., 0] ** 2 * J(ns).arange(v.shape[-1] * 1.0)).sum()
    grads = [(loss, "f32[4,4]"), (loss, "f32[3,5,5]"), (lambda ns, x: J(ns).sin(J(ns).linalg.eigvalsh(x)).sum(),
                                                        "f32[4@X,3,3]"),
             (lambda ns, x: J(ns).sin(J(ns).linalg.eigvalsh(x)).sum(), "c64[3,3]")]
    cases += [Case(f"grad-eigh-{i}-{arg}", "2d", lambda ns, x, f=f: ns.grad(lambda v: f(ns, v))(x), (arg,),
                   mode="jit", tol=(1e-3, 1e-3)) for i, (f, arg) in enumerate(grads)]
    cases.append(Case("vmap-eigh", "1d", lambda ns, x: ns.vmap(lambda v: J(ns).linalg.eigvalsh(v), in_axes=2)(x),
                      ("f32[4,4,3]",), mode="jit", tol=(1e-4, 1e-4)))
    return cases


@param(eigh_cases())
def test_eigh(case):
    check(case)


# --- svd --------------------------------------------------------------------------------------------
def _svd(**kw):
    def f(ns, x):
        out = J(ns).linalg.svd(x, **kw)
        return tuple(out) if kw.get("compute_uv", True) else out
    return f


def svd_cases():
    cases = []
    for mesh, shape in itertools.product(BASIC_MESHES, [(4, 4), (5, 3), (2, 3, 5), (8, 2, 2)]):
        pool = [Case(f"svd-{mesh}-{type_str('f32', shape, s)}-{full}-{uv}", mesh,
                     lambda ns, x, full=full, uv=uv: ns.lax.linalg.svd(x, full_matrices=full, compute_uv=uv),
                     (type_str("f32", shape, s),))
                for s in specs_for(shape, mesh) for full in (True, False) for uv in (True, False)]
        cases += sample(pool, 2, salt="svd" + mesh)
    cases += [Case(f"svd-types-{i}-{arg}", "2d", fn, (arg,)) for i, fn in enumerate(
        [_svd(), _svd(full_matrices=False), _svd(compute_uv=False), lambda ns, x: J(ns).linalg.svdvals(x)])
        for arg in ("f32[2@X,4,3]", "i32[4,4]", "bf16[3,4]", "c64[3,3]", "f32[4]", "f32[4,4@Y]")]
    vals = [(_svd(), "f32[4,4]"), (_svd(), "f32[2,5,3]"), (_svd(full_matrices=False), "f32[2,3,5]"),
            (_svd(compute_uv=False), "f32[2,2,4,4]"), (_svd(), "c64[4,3]"), (_svd(), "f32[4@X,3,3]"),
            (lambda ns, x: J(ns).linalg.svdvals(x), "f32[5,2]")]
    cases += [Case(f"val-svd-{i}-{arg}", "2d", fn, (arg,), mode="jit", tol=(1e-4, 1e-4))
              for i, (fn, arg) in enumerate(vals)]

    def loss(ns, x):
        u, s, v = J(ns).linalg.svd(x, full_matrices=False)
        return J(ns).sin(u).sum() + J(ns).sin(s).sum() + (J(ns).cos(v) * J(ns).arange(v.shape[-1] * 1.0)).sum()

    def loss_s(ns, x):
        return J(ns).sin(J(ns).linalg.svd(x, compute_uv=False)).sum()
    grads = [(loss, "f32[4,4]"), (loss, "f32[2,5,3]"), (loss, "f32[3,5]"), (loss_s, "f32[4@X,3,3]"),
             (loss_s, "c64[4,3]"), (lambda ns, x: J(ns).sin(J(ns).linalg.svd(x)[0]).sum(), "f32[4,3]")]
    cases += [Case(f"grad-svd-{i}-{arg}", "2d", lambda ns, x, f=f: ns.grad(lambda v: f(ns, v))(x), (arg,),
                   mode="jit", tol=(1e-3, 1e-3)) for i, (f, arg) in enumerate(grads)]
    cases.append(Case("vmap-svd", "1d", lambda ns, x: ns.vmap(lambda v: J(ns).linalg.svdvals(v), in_axes=2)(x),
                      ("f32[4,3,3]",), mode="jit", tol=(1e-4, 1e-4)))
    return cases


@param(svd_cases())
def test_svd(case):
    check(case)


# --- over the SVD: norm(ord=2/-2/'nuc'), matrix_rank, pinv, cond --------------------------------------
SVD_FUNCS = [
    ("norm-2", lambda ns, x: J(ns).linalg.norm(x, ord=2, axis=(1, 2)), "f32[2,4,3]"),
    ("norm--2-keep", lambda ns, x: J(ns).linalg.norm(x, ord=-2, axis=(2, 0), keepdims=True), "f32[2,4,3]"),
    ("norm-nuc", lambda ns, x: J(ns).linalg.norm(x, ord="nuc", axis=(-2, -1)), "f32[4@X,3,3]"),
    ("norm-nuc-2d", lambda ns, x: J(ns).linalg.norm(x, ord="nuc"), "f32[4,3]"),
    ("matrix_norm-2", lambda ns, x: J(ns).linalg.matrix_norm(x, ord=2), "f32[2,3,3]"),
    ("rank", lambda ns, x: J(ns).linalg.matrix_rank(x), "f32[2,4,3]"),
    ("rank-deficient", lambda ns, x: J(ns).linalg.matrix_rank(J(ns).concatenate([x, x], axis=-1)), "f32[4,2]"),
    ("rank-rtol", lambda ns, x: J(ns).linalg.matrix_rank(x, rtol=0.5), "f32[4,4]"),
    ("rank-1d", lambda ns, x: J(ns).linalg.matrix_rank(x), "f32[4]"),
    ("rank-tol-rtol", lambda ns, x: J(ns).linalg.matrix_rank(x, rtol=0.1, tol=0.1), "f32[4,4]"),
    ("pinv", lambda ns, x: J(ns).linalg.pinv(x), "f32[2,4,3]"),
    ("pinv-wide", lambda ns, x: J(ns).linalg.pinv(x, rtol=0.3), "f32[3,5]"),
    ("pinv-both", lambda ns, x: J(ns).linalg.pinv(x, rtol=0.1, rcond=0.1), "f32[3,3]"),
    ("cond", lambda ns, x: J(ns).linalg.cond(x), "f32[2,4,3]"),
    ("cond--2", lambda ns, x: J(ns).linalg.cond(x, -2), "f32[4,4]"),
    ("cond-fro", lambda ns, x: J(ns).linalg.cond(x, "fro"), "f32[2,3,3]"),
    ("cond-1-rect", lambda ns, x: J(ns).linalg.cond(x, 1), "f32[4,3]"),
    ("cond-1d", lambda ns, x: J(ns).linalg.cond(x), "f32[4]"),
    ("cond-i32", lambda ns, x: J(ns).linalg.cond(x), "i32[3,3]"),
]


def svd_func_cases():
    cases = [Case(f"val-{name}", "2d", fn, (arg,), mode="jit", tol=(1e-4, 1e-4)) for name, fn, arg in SVD_FUNCS]
    cases += [Case(f"types-{name}", "2d", fn, (arg,)) for name, fn, arg in SVD_FUNCS]
    cases += [Case("grad-pinv", "2d", _grad(lambda ns, x: J(ns).linalg.pinv(x)), ("f32[4,3]",), mode="jit",
                   tol=(1e-3, 1e-3)),
              Case("grad-norm-nuc", "2d", _grad(lambda ns, x: J(ns).linalg.norm(x, "nuc")), ("f32[4,3]",),
                   mode="jit", tol=(1e-3, 1e-3))]
    return cases


@param(svd_func_cases())
def test_svd_functions(case):
    check(case)


# --- jax.scipy.linalg: cholesky, cho_factor, cho_solve, solve_triangular --------------------------------
def _sl(ns):
    return ns.scipy.linalg


def scipy_cases():
    progs = {
        "cholesky": (lambda ns, x: _sl(ns).cholesky(_spd(ns, x)), ("f32[2,4,4]",)),
        "cholesky-lower": (lambda ns, x: _sl(ns).cholesky(_spd(ns, x), lower=True), ("f32[4,4]",)),
        "cho_solve": (lambda ns, x, b: _sl(ns).cho_solve(_sl(ns).cho_factor(_spd(ns, x)), b),
                      ("f32[2,4,4]", "f32[2,4,3]")),
        "cho_solve-lower-vec": (lambda ns, x, b: _sl(ns).cho_solve(_sl(ns).cho_factor(_spd(ns, x), lower=True), b),
                                ("f32[4,4]", "f32[4]")),
        "cho_solve-bcast": (lambda ns, x, b: _sl(ns).cho_solve((_sl(ns).cholesky(_spd(ns, x)), False), b),
                            ("f32[4,4]", "f32[2,4,3]")),
        "solve_triangular-int": (lambda ns, a, b: _sl(ns).solve_triangular(a, b, lower=True), ("i32[3,3]", "i32[3]")),
        "solve_triangular-bad-trans": (lambda ns, a, b: _sl(ns).solve_triangular(a, b, trans=3), ("f32[3,3]",
                                                                                                  "f32[3]")),
        "solve_triangular-shapes": (lambda ns, a, b: _sl(ns).solve_triangular(a, b), ("f32[3,3]", "f32[4,2]")),
    }
    for trans in (0, 1, 2, "N", "T", "C"):
        for lower in (True, False):
            progs[f"solve_triangular-{trans}-{lower}"] = (
                lambda ns, a, b, trans=trans, lower=lower: _sl(ns).solve_triangular(
                    _well_conditioned(ns, a, lower), b, trans=trans, lower=lower), ("f32[2,4,4]", "f32[2,4,2]"))
    cases = [Case(f"scipy-{name}", "2d", fn, args, mode="jit", tol=(1e-4, 1e-4)) for name, (fn, args) in progs.items()]
    cases.append(Case("scipy-grad-cho_solve", "2d", _grad(
        lambda ns, x: _sl(ns).cho_solve(_sl(ns).cho_factor(_spd(ns, x)), ns.ones((x.shape[-1], 2)))),
        ("f32[4,4]",), mode="jit", tol=(1e-3, 1e-3)))
    return cases


@param(scipy_cases())
def test_scipy_linalg(case):
    check(case)


LSTSQ = [
    ("tall", lambda ns, a, b: J(ns).linalg.lstsq(a, b), ("f32[6,3]", "f32[6,2]")),
    ("vector", lambda ns, a, b: J(ns).linalg.lstsq(a, b), ("f32[5,3]", "f32[5]")),
    ("wide", lambda ns, a, b: J(ns).linalg.lstsq(a, b), ("f32[3,5]", "f32[3,2]")),
    ("rcond", lambda ns, a, b: J(ns).linalg.lstsq(a, b, rcond=0.5), ("f32[6,3]", "f32[6]")),
    ("rcond-neg", lambda ns, a, b: J(ns).linalg.lstsq(a, b, rcond=-1.0), ("f32[6,3]", "f32[6]")),
    ("int", lambda ns, a, b: J(ns).linalg.lstsq(a, b), ("i32[4,2]", "i32[4]")),
    ("rows-mismatch", lambda ns, a, b: J(ns).linalg.lstsq(a, b), ("f32[4,2]", "f32[3]")),
    ("rank3", lambda ns, a, b: J(ns).linalg.lstsq(a, b), ("f32[2,4,2]", "f32[2,4]")),
]


@param([Case(f"lstsq-{name}", "2d", fn, args, mode="jit", tol=(1e-4, 1e-4)) for name, fn, args in LSTSQ]
       + [Case("lstsq-grad", "2d", _grad(lambda ns, a, b: J(ns).linalg.lstsq(a, b)[0]), ("f32[6,3]", "f32[6,2]"),
               mode="jit", tol=(1e-3, 1e-3))])
def test_lstsq(case):
    check(case)


# --- jax.random samplers over the decompositions -----------------------------------------------------
def _mvn(method, shape=None, batch_cov=False):
    def f(ns):
        k = ns.random.key(3)
        mean = J(ns).arange(3.0)
        a = J(ns).array([[1.0, 0.5, 0.0], [0.2, 1.0, 0.3], [0.0, 0.1, 1.0]])
        cov = a @ a.T + J(ns).eye(3)
        if batch_cov:
            cov = J(ns).stack([cov, 2.0 * cov])
        return ns.random.multivariate_normal(k, mean, cov, shape, method=method)
    return f


RANDOM = {
    "orthogonal": lambda ns: ns.random.orthogonal(ns.random.key(1), 4),
    "orthogonal-batch": lambda ns: ns.random.orthogonal(ns.random.key(2), 3, (2,)),
    "orthogonal-wide": lambda ns: ns.random.orthogonal(ns.random.key(2), 3, m=5),
    "orthogonal-tall": lambda ns: ns.random.orthogonal(ns.random.key(2), 5, m=2),
    "mvn-cholesky": _mvn("cholesky", (4,)), "mvn-svd": _mvn("svd", (2, 4)), "mvn-eigh": _mvn("eigh"),
    "mvn-batch-cov": _mvn("cholesky", batch_cov=True), "mvn-bad-method": _mvn("qr"),
    "mvn-bad-shape": _mvn("cholesky", (5, 3), batch_cov=True),
    "mvn-bad-cov": lambda ns: ns.random.multivariate_normal(ns.random.key(0), J(ns).zeros(3), J(ns).eye(2)),
}


@param([Case(f"random-{name}-jit", "1d", fn, (), mode="jit") for name, fn in RANDOM.items()]
       + [Case(f"random-{name}-eager", "1d", RANDOM[name], (), mode="eager") for name in ("orthogonal", "mvn-eigh")])
def test_random_over_linalg(case):
    check(case)


# --- matrix_power, multi_dot, tensorinv, tensorsolve ---------------------------------------------------
MORE = [(f"matrix_power-{n}", lambda ns, a, n=n: J(ns).linalg.matrix_power(_inv_safe(ns, a), n), ("f32[2,3,3]",))
        for n in (0, 1, 2, 3, 5, -1, -3)]
MORE += [
    ("matrix_power-sharded", lambda ns, a: J(ns).linalg.matrix_power(a, 4), ("f32[4@X,3,3]",)),
    ("matrix_power-1d", lambda ns, a: J(ns).linalg.matrix_power(a, 2), ("f32[3]",)),
    ("matrix_power-rect", lambda ns, a: J(ns).linalg.matrix_power(a, 2), ("f32[3,4]",)),
    ("matrix_power-float", lambda ns, a: J(ns).linalg.matrix_power(a, 2.0), ("f32[3,3]",)),
    ("multi_dot-vec", lambda ns, a, b, c, d: J(ns).linalg.multi_dot([a, b, c, d]),
     ("f32[3]", "f32[3,4]", "f32[4,5]", "f32[5]")),
    ("multi_dot-mat", lambda ns, a, b, c: J(ns).linalg.multi_dot([a, b, c]), ("f32[2,3]", "f32[3,8]", "f32[8,2]")),
    ("multi_dot-sharded", lambda ns, a, b: J(ns).linalg.multi_dot([a, b]), ("f32[4@X,3]", "f32[3,8@Y]")),
    ("multi_dot-one", lambda ns, a: J(ns).linalg.multi_dot([a]), ("f32[3,3]",)),
    ("multi_dot-3d", lambda ns, a, b: J(ns).linalg.multi_dot([a, b]), ("f32[2,3,3]", "f32[3,3]")),
    ("multi_dot-mismatch", lambda ns, a, b: J(ns).linalg.multi_dot([a, b]), ("f32[2,3]", "f32[2,3]")),
    ("tensorinv", lambda ns, a: J(ns).linalg.tensorinv(_inv_safe(ns, a).reshape(6, 2, 3), 1), ("f32[6,6]",)),
    ("tensorinv-ind2", lambda ns, a: J(ns).linalg.tensorinv(_inv_safe(ns, a).reshape(2, 3, 6)), ("f32[6,6]",)),
    ("tensorinv-bad", lambda ns, a: J(ns).linalg.tensorinv(a, 1), ("f32[2,3]",)),
    ("tensorinv-ind0", lambda ns, a: J(ns).linalg.tensorinv(a, 0), ("f32[2,2]",)),
    ("tensorsolve", lambda ns, a, b: J(ns).linalg.tensorsolve(_inv_safe(ns, a).reshape(2, 3, 6), b),
     ("f32[6,6]", "f32[2,3]")),
    ("tensorsolve-axes", lambda ns, a, b: J(ns).linalg.tensorsolve(_inv_safe(ns, a).reshape(6, 2, 3), b, axes=(0,)),
     ("f32[6,6]", "f32[2,3]")),
    ("tensorsolve-bad", lambda ns, a, b: J(ns).linalg.tensorsolve(a, b), ("f32[2,3,4]", "f32[3]")),
]


@param([Case(f"more-{name}", "2d", fn, args, mode="jit", tol=(1e-4, 1e-4)) for name, fn, args in MORE])
def test_more_linalg(case):
    check(case)


# --- jnp.polyfit (over lstsq) ---------------------------------------------------------------------
def _pf(**kw):
    def f(ns, x, y, *w):
        out = J(ns).polyfit(J(ns).linspace(0.0, 1.0, x.shape[0]) + 0.01 * x, y, *w, **kw)
        return tuple(out) if isinstance(out, tuple) else out
    return f


POLYFIT = [
    ("deg2", _pf(deg=2), ("f32[8]", "f32[8]")), ("deg3-2d", _pf(deg=3), ("f32[8]", "f32[8,2]")),
    ("full", _pf(deg=2, full=True), ("f32[8]", "f32[8]")), ("rcond", _pf(deg=2, rcond=0.1), ("f32[8]", "f32[8]")),
    ("w", lambda ns, x, y, w: J(ns).polyfit(J(ns).linspace(0.0, 1.0, 8), y, 2, w=w + 3.0), ("f32[8]", "f32[8,2]",
                                                                                             "f32[8]")),
    ("cov", _pf(deg=2, cov=True), ("f32[8]", "f32[8]")), ("cov-2d", _pf(deg=1, cov=True), ("f32[8]", "f32[8,3]")),
    ("cov-unscaled", _pf(deg=2, cov="unscaled"), ("f32[8]", "f32[8]")),
    ("cov-too-few", _pf(deg=3, cov=True), ("f32[4]", "f32[4]")),
    ("deg-neg", _pf(deg=-1), ("f32[8]", "f32[8]")), ("x-2d", lambda ns, x, y: J(ns).polyfit(x, y, 1),
                                                      ("f32[4,2]", "f32[4]")),
    ("len-mismatch", lambda ns, x, y: J(ns).polyfit(x, y, 1), ("f32[4]", "f32[5]")),
    ("int", lambda ns, x, y: J(ns).polyfit(x, y, 1), ("i32[5]", "i32[5]")),
]


@param([Case(f"polyfit-{name}", "1d", fn, args, mode="jit", tol=(1e-3, 1e-3)) for name, fn, args in POLYFIT])
def test_polyfit(case):
    check(case)


# --- named-tuple results are pytree nodes: `jit` returns them whole, as JAX's --------------------------
RESULT_FNS = {"eigh": lambda ns: ns.linalg.eigh, "svd": lambda ns: ns.linalg.svd, "qr": lambda ns: ns.linalg.qr,
              "slogdet": lambda ns: ns.linalg.slogdet, "eig": lambda ns: ns.linalg.eig}


@pytest.mark.parametrize("name", list(RESULT_FNS))
def test_named_tuple_results_through_jit_as_jax(name):
    """`jit(jnp.linalg.eigh)(x)` is an `EighResult` of two arrays (it was a leaf: shardc stacked
    Q and R of `qr` into one array, and refused eigh's and svd's of unequal shapes)."""
    x = np.eye(4, dtype=np.float32) * 2 + 0.1
    want = jax.jit(RESULT_FNS[name](jnp))(x)
    mesh = sc.make_mesh((8,), ("X",))
    with sc.set_mesh(mesh):
        got = sc.jit(RESULT_FNS[name](snp))(x)
        inside = sc.jit(lambda a: RESULT_FNS[name](snp)(a)[0])(x)
    assert type(got).__name__ == type(want).__name__ and got._fields == want._fields
    assert [str(sc.typeof(g)) for g in got] == [str(jax.typeof(w)) for w in want]
    assert str(sc.typeof(inside)) == str(jax.typeof(want[0]))
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.abs(np.asarray(g)), np.abs(np.asarray(w)), rtol=1e-4, atol=1e-5)
