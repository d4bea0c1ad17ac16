"""Differential: the non-symmetric eigendecomposition (`eig_p` in shardc/primitives/linalg.py,
`lax.linalg.eig`, `jnp.linalg.eig` / `eigvals`, and over them `jnp.roots` and `jnp.poly` of a
matrix) against JAX 0.10.2. By tracing: every spec of batched operands (ranks 2-4) on 1-D to 3-D
meshes with each eigenvector option (batch dims sharded: kept; matrix dims sharded: JAX's "must
be unsharded on non-batch dimensions"), f32/f16/bf16/c64/i32 and weak types, JAX's shape, dtype
and argument errors. Compiled: values (LAPACK's geev both sides: equal), batch-sharded values and
output shardings, the sdy annotations of the lowered module, gradients and JVPs (eigenvalues; the
eigenvectors under `enable_eigvec_derivs`, without it JAX's NotImplementedError), vmap, and JAX's
lowering errors (bf16: no LAPACK kernel; MAGMA on CPU). Also the other `lax.linalg` kernels
built beside it: `lu_pivots_to_permutation`, `hessenberg`, `householder_product`, `schur`,
`tridiagonal` (no derivatives in JAX: its NotImplementedError) and `tridiagonal_solve` (JAX's
JVP and transpose: gradients of all four operands)."""
from __future__ import annotations

import itertools

import jax.numpy as jnp
import numpy as np
from jax._src.lax import linalg as jax_linalg
from oracle import BASIC_MESHES, JAX, Case, Placed, S, check, param, sample, smap_case, specs_for, type_str

import shardc.numpy as snp


def J(ns):
    """The numpy namespace of a side."""
    return jnp if ns is JAX else snp


def _eig(left=True, right=True, **kw):
    return lambda ns, x: tuple(ns.lax.linalg.eig(x, compute_left_eigenvectors=left,
                                                 compute_right_eigenvectors=right, **kw))


OPTIONS = [(True, True), (False, True), (True, False), (False, False)]
SHAPES = [(4, 4), (2, 4, 4), (8, 2, 2), (2, 2, 3, 3)]


def type_cases():
    cases = []
    for mesh, shape in itertools.product(BASIC_MESHES, SHAPES):
        pool = [Case(f"eig-{mesh}-{type_str(d, shape, s)}-{lr}", mesh, _eig(*lr), (type_str(d, shape, s),))
                for s in specs_for(shape, mesh) for lr in OPTIONS for d in ("f32", "c64")]
        cases += sample(pool, 3, salt="eig" + mesh)
    cases += [
        Case("eig-batch-sharded", "2d", _eig(), ("f32[2@X,4,4]",), expect="accept"),
        Case("eig-batch-2axes", "3d", _eig(False, True), ("f32[2@X,2@Y,3,3]",), expect="accept"),
        Case("eig-mat-sharded", "2d", _eig(), ("f32[2,4@Y,4]",), expect="reject"),
        Case("eig-mat-sharded-col", "1d", _eig(False, False), ("f32[4,8@X]",), expect="reject"),
        Case("eig-rank1", "1d", _eig(), ("f32[4]",), expect="reject"),
        Case("eig-rect", "1d", _eig(), ("f32[4,3]",), expect="reject"),
        Case("eig-i32", "1d", _eig(), ("i32[4,4]",), expect="reject"),
        Case("eig-bool", "1d", _eig(), ("bool[4,4]",), expect="reject"),
        Case("eig-bf16", "1d", _eig(), ("bf16[4,4]",), expect="accept"),
        Case("eig-f16", "1d", _eig(False, True), ("f16[2,4,4]",), expect="accept"),
        Case("eig-weak", "1d", _eig(), ("~f32[4,4]",)),
        Case("eig-empty", "1d", _eig(), ("f32[0,0]",)),
    ]
    for name, fn in [("jnp-eig", lambda ns, x: tuple(J(ns).linalg.eig(x))),
                     ("jnp-eigvals", lambda ns, x: J(ns).linalg.eigvals(x))]:
        cases += [Case(f"{name}-{arg}", "2d", fn, (arg,)) for arg in (
            "f32[4,4]", "f32[2@X,4,4]", "i32[3,3]", "bool[2,2]", "bf16[4,4]", "c64[3,3]", "~f32[2,2]",
            "f32[4,3]", "f32[4]", "f32[]", "f32[4,4@Y]")]
    return cases


@param(type_cases())
def test_eig_types(case):
    check(case, "trace")


def _sum_parts(ns, outs):
    """A real loss of complex outputs (real and imaginary parts both weighted)."""
    m = J(ns)
    return sum((m.real(o * o) + m.imag(o) * m.arange(o.shape[-1] * 1.0)).sum() for o in outs)


def _grad_eig(left, right, derivs=True):
    def f(ns, x):
        return ns.grad(lambda v: _sum_parts(ns, ns.lax.linalg.eig(
            v, compute_left_eigenvectors=left, compute_right_eigenvectors=right,
            enable_eigvec_derivs=derivs)))(x)
    return f


def _grad_eigvals(ns, x):
    return ns.grad(lambda v: _sum_parts(ns, [J(ns).linalg.eigvals(v)]))(x)


def _jvp_eigvals(ns, x, t):
    return ns.jvp(lambda v: J(ns).linalg.eigvals(v), (x,), (t,))


def _jvp_eig(ns, x, t):
    f = _eig(False, True, enable_eigvec_derivs=True)
    return ns.jvp(lambda v: f(ns, v), (x,), (t,))


def _vmap_eig(ns, x):
    return ns.vmap(lambda v: tuple(J(ns).linalg.eig(v)), in_axes=2)(x)


def _magma(ns, x):
    return tuple(ns.lax.linalg.eig(x, implementation=jax_linalg.EigImplementation.MAGMA))


TOL = (2e-4, 2e-4)


def value_cases():
    vals = [(_eig(), "f32[4,4]"), (_eig(False, True), "f32[2@X,4,4]"), (_eig(True, False), "c64[3,5,5]"),
            (_eig(False, False), "f32[8@X,3,3]"), (_eig(), "c64[2@X,2@Y,3,3]"),
            (lambda ns, x: tuple(J(ns).linalg.eig(x)), "f32[4@X,4,4]"),
            (lambda ns, x: J(ns).linalg.eigvals(x), "i32[3,3]"),
            (lambda ns, x: tuple(J(ns).linalg.eig(x)), "f16[3,3]")]
    cases = [Case(f"val-eig-{i}-{arg}", "2d", fn, (arg,), mode="jit", tol=TOL) for i, (fn, arg) in enumerate(vals)]
    cases.append(Case("val-eig-3d", "3d", _eig(False, True), ("f32[2@X,2@Y,2@Z,3,3]",), mode="jit", tol=TOL))
    # a failed decomposition (NaN input): NaN outputs, as JAX masks them by `info`
    cases.append(Case("val-eig-nan", "1d", _eig(), (Placed(value=np.full((2, 2), np.nan, np.float32)),), mode="jit"))
    grads = [(_grad_eigvals, "f32[4,4]"), (_grad_eigvals, "f32[2@X,3,3]"), (_grad_eigvals, "c64[3,3]"),
             (_grad_eig(False, False, False), "f32[4,4]"), (_grad_eig(False, True), "f32[3,3]"),
             (_grad_eig(True, False), "f32[2@X,3,3]"), (_grad_eig(True, True), "c64[3,3]")]
    cases += [Case(f"grad-eig-{i}-{arg}", "2d", fn, (arg,), mode="jit", tol=(1e-3, 1e-3))
              for i, (fn, arg) in enumerate(grads)]
    cases += [
        Case("grad-eig-vectors-refused", "1d", _grad_eig(False, True, False), ("f32[3,3]",), expect="reject",
             kind=NotImplementedError),
        Case("grad-eig-left-refused", "1d", _grad_eig(True, False, False), ("f32[3,3]",), expect="reject",
             kind=NotImplementedError),
        Case("jvp-eigvals", "2d", _jvp_eigvals, ("f32[2@X,3,3]", "f32[2@X,3,3]"), mode="jit", tol=(1e-3, 1e-3)),
        Case("jvp-eig-vectors", "1d", _jvp_eig, ("f32[3,3]", "f32[3,3]"), mode="jit", tol=(1e-3, 1e-3)),
        Case("vmap-eig", "1d", _vmap_eig, ("f32[3,3,4]",), mode="jit", tol=TOL),
        Case("lower-eig", "2d", _eig(False, True), ("f32[2@X,4,4]",), mode="lower"),
        Case("lower-bf16-no-lapack", "1d", _eig(), ("bf16[4,4]",), mode="jit", expect="reject",
             kind=NotImplementedError),
        Case("lower-magma-on-cpu", "1d", _magma, ("f32[4,4]",), mode="jit", expect="reject", kind=ValueError),
    ]
    return cases


@param(value_cases())
def test_eig_values(case):
    check(case)


# --- roots ------------------------------------------------------------------------------------------
def _roots(strip=True):
    return lambda ns, p: ns.roots(p, strip_zeros=strip)


def _p(*coeffs, dtype=np.float32):
    return Placed(value=np.array(coeffs, dtype))


def roots_cases():
    # strip_zeros=True needs the leading zeros' count concrete: run op by op; False: compiled
    coeffs = [((1, -3, 2), np.float32), ((0, 0, 1, 2), np.float32), ((0, 1, 0, -1, 4), np.float32),
              ((0, 0, 0), np.float32), ((2, 5), np.int32), ((3,), np.float32), ((1, 0, 0, 1), np.complex64)]
    cases = [Case(f"roots-eager-{i}", "1d", _roots(True), (_p(*c, dtype=d),), mode="eager", tol=TOL)
             for i, (c, d) in enumerate(coeffs) if i in (1, 4, 6)]
    cases += [Case(f"roots-jit-{i}", "1d", _roots(False), (_p(*c, dtype=d),), mode="jit", tol=TOL)
              for i, (c, d) in enumerate(coeffs) if i in (2, 3, 5, 6)]
    cases += [
        Case("roots-jit-strip-traced", "1d", _roots(True), (_p(0, 1, -2, 3),), mode="jit", expect="reject",
             kind=TypeError),
        Case("roots-rank2", "1d", _roots(False), ("f32[2,2]",), expect="reject", kind=ValueError),
        Case("roots-scalar", "1d", _roots(False), ("f32[]",)),
        Case("roots-sharded", "1d", _roots(False), ("f32[8@X]",)),
        Case("roots-list", "1d", lambda ns: ns.roots([1.0, 2.0]), (), expect="reject", kind=TypeError),
        Case("poly-matrix", "1d", lambda ns, x: J(ns).poly(x.reshape(3, 3)), (_p(1, 2, 3, 0, 1, 4, 5, 6, 0, dtype=np.float32),),
             mode="eager", tol=(1e-3, 1e-3)),
    ]
    return cases


@param(roots_cases())
def test_roots(case):
    check(case)


# --- inside shard_map (varying blocks: the results vary as the operand) -----------------------------
def _smap_eigvals(ns, b):
    return J(ns).linalg.eigvals(b)


def _smap_grad(ns, b):
    return ns.grad(lambda v: _sum_parts(ns, [J(ns).linalg.eigvals(v)]))(b)


SMAP = [
    smap_case("smap-eig", "2d", ("f32[4@X,3,3]",), lambda ns, b: tuple(J(ns).linalg.eig(b)),
              (S("X"), S("X")), in_specs=(S("X"),)),
    smap_case("smap-eigvals-run", "2d", ("f32[4@X,3,3]",), _smap_eigvals, S("X"), in_specs=(S("X"),), run=True),
    smap_case("smap-eigvals-2axes", "2d", ("c64[2@X,4@Y,2,2]",), _smap_eigvals, S("X", "Y"),
              in_specs=(S("X", "Y"),), run=True),
    smap_case("smap-grad-run", "1d", ("f32[8@X,3,3]",), _smap_grad, S("X"), in_specs=(S("X"),), run=True),
]


@param(SMAP)
def test_eig_in_shard_map(case):
    check(case)


# --- lax.linalg.lu_pivots_to_permutation ------------------------------------------------------------
def _perm(m):
    return lambda ns, p: ns.lax.linalg.lu_pivots_to_permutation(p, m)


def _pivots(shape, m, seed=0):
    """Valid row swaps (pivot i in [i, m)), as LU produces."""
    rs = np.random.RandomState(seed)
    return Placed(value=np.stack([rs.randint(i, m, size=shape[:-1]) for i in range(shape[-1])], -1).astype(np.int32))


PERM = [Case(f"perm-{mesh}-{arg}-{m}", mesh, _perm(m), (arg,)) for mesh, arg, m in [
    ("1d", "i32[3]", 5), ("2d", "i32[2@X,4]", 4), ("3d", "i32[2@X,2@Y,3]", 3), ("1d", "i32[8@X,0]", 2),
    ("1d", "i32[3]", 2), ("1d", "i32[]", 2), ("1d", "f32[3]", 4), ("1d", "i16[3]", 4), ("2d", "i32[2,4@Y]", 4),
    ("1d", "~i32[3]", 4)]]
PERM += [Case(f"perm-val-{i}", "2d", _perm(m), (_pivots(shape, m, i),), mode="jit")
         for i, (shape, m) in enumerate([((3,), 5), ((4, 4), 4), ((2, 3, 2), 3)])]
PERM.append(Case("perm-sharded-val", "2d", _perm(4), (Placed(spec=("X", None), value=_pivots((4, 3), 4, 5).value),),
                 mode="jit"))
PERM.append(Case("perm-vmap", "1d", lambda ns, p: ns.vmap(lambda q: ns.lax.linalg.lu_pivots_to_permutation(q, 4),
                                                          in_axes=1)(p), (_pivots((3, 2), 4, 7),), mode="jit"))


@param(PERM)
def test_lu_pivots_to_permutation(case):
    check(case)


# --- lax.linalg.hessenberg, householder_product (LAPACK gehrd / orgqr; no derivatives in JAX) ------
def _hess(ns, x):
    return tuple(ns.lax.linalg.hessenberg(x))


def _hh(ns, a, t):
    return ns.lax.linalg.householder_product(a, t)


def reflector_cases():
    cases = []
    for mesh, shape in itertools.product(BASIC_MESHES, [(4, 4), (2, 4, 4), (8, 2, 2)]):
        pool = [Case(f"hess-{mesh}-{type_str(d, shape, s)}", mesh, _hess, (type_str(d, shape, s),))
                for s in specs_for(shape, mesh) for d in ("f32", "c64")]
        cases += sample(pool, 2, salt="hess" + mesh)
        ashape, tshape = shape[:-1] + (2,), shape[:-2] + (2,)
        pool = [Case(f"hh-{mesh}-{type_str('f32', ashape, s)}", mesh, _hh,
                     (type_str("f32", ashape, s), type_str("f32", tshape, s[:-1])))
                for s in specs_for(ashape, mesh)]
        cases += sample(pool, 2, salt="hh" + mesh)
    cases += [Case(f"hess-{arg}", "1d", _hess, (arg,)) for arg in ("i32[4,4]", "f32[4,3]", "f32[4]", "bf16[3,3]",
                                                                   "~f32[3,3]", "f32[4,4@X]")]
    cases += [Case(f"hh-{a}-{t}", "1d", _hh, (a, t)) for a, t in [
        ("f32[3,5]", "f32[2]"), ("f32[5,3]", "f32[4]"), ("f32[5,3]", "bf16[2]"), ("i32[5,3]", "i32[2]"),
        ("f32[2,5,3]", "f32[2]"), ("f32[5,3@X]", "f32[2]"), ("c64[5,3]", "c64[3]"), ("~f32[5,3]", "~f32[2]")]]
    cases += [
        Case("hess-val", "2d", _hess, ("f32[2@X,4,4]",), mode="jit", tol=TOL),
        Case("hess-val-c64", "1d", _hess, ("c64[3,3]",), mode="jit", tol=TOL),
        Case("hh-val", "2d", _hh, ("f32[2@X,5,3]", "f32[2@X,3]"), mode="jit", tol=TOL),
        Case("hh-val-c64", "1d", _hh, ("c64[4,4]", "c64[2]"), mode="jit", tol=TOL),
        Case("hh-vmap", "1d", lambda ns, a, t: ns.vmap(lambda x: _hh(ns, x, t), in_axes=2)(a), ("f32[5,3,4]", "f32[2]"),
             mode="jit", tol=TOL),
        Case("hess-grad", "1d", lambda ns, x: ns.grad(lambda v: ns.lax.linalg.hessenberg(v)[0].sum())(x),
             ("f32[3,3]",), expect="reject", kind=NotImplementedError),
        Case("hh-grad", "1d", lambda ns, a, t: ns.grad(lambda v: _hh(ns, v, t).sum())(a), ("f32[4,3]", "f32[2]"),
             expect="reject", kind=NotImplementedError),
        Case("hess-bf16-lower", "1d", _hess, ("bf16[3,3]",), mode="jit", expect="reject", kind=NotImplementedError),
    ]
    return cases


@param(reflector_cases())
def test_hessenberg_householder_product(case):
    check(case)


# --- lax.linalg.schur (gees), tridiagonal (sytrd / hetrd): no derivatives in JAX ------------------
def _schur(vectors=True, **kw):
    return lambda ns, x: tuple(ns.lax.linalg.schur(x, compute_schur_vectors=vectors, **kw))


def _tridiag(lower=True):
    return lambda ns, x: tuple(ns.lax.linalg.tridiagonal(x, lower=lower))


def schur_tridiagonal_cases():
    cases = []
    for mesh, shape in itertools.product(BASIC_MESHES, [(4, 4), (2, 4, 4), (8, 2, 2)]):
        pool = [Case(f"{name}-{mesh}-{type_str(d, shape, s)}-{flag}", mesh, mk(flag), (type_str(d, shape, s),))
                for s in specs_for(shape, mesh) for d in ("f32", "c64") for flag in (True, False)
                for name, mk in (("schur", _schur), ("tridiag", _tridiag))]
        cases += sample(pool, 3, salt="schur" + mesh)
    cases += [Case(f"{name}-{arg}", "1d", fn, (arg,)) for arg in ("i32[4,4]", "f32[4,3]", "f32[4]", "bf16[3,3]",
                                                                  "~f32[3,3]", "f32[4,4@X]", "f32[0,0]")
              for name, fn in (("schur", _schur()), ("tridiag", _tridiag()))]
    cases += [
        Case("schur-val", "2d", _schur(), ("f32[2@X,4,4]",), mode="jit", tol=TOL),
        Case("schur-val-novec-c64", "1d", _schur(False), ("c64[3,3]",), mode="jit", tol=TOL),
        Case("tridiag-val", "2d", _tridiag(), ("f32[2@X,4,4]",), mode="jit", tol=TOL),
        Case("tridiag-val-upper-c64", "1d", _tridiag(False), ("c64[2,3,3]",), mode="jit", tol=TOL),
        Case("schur-vmap", "1d", lambda ns, x: ns.vmap(lambda v: _schur()(ns, v), in_axes=2)(x), ("f32[3,3,2]",),
             mode="jit", tol=TOL),
        Case("schur-sort-lower", "1d", _schur(sort_eig_vals=True), ("f32[3,3]",), mode="jit", expect="reject",
             kind=NotImplementedError),
        Case("schur-grad", "1d", lambda ns, x: ns.grad(lambda v: ns.lax.linalg.schur(v)[0].sum())(x), ("f32[3,3]",),
             expect="reject", kind=NotImplementedError),
        Case("tridiag-grad", "1d", lambda ns, x: ns.grad(lambda v: ns.lax.linalg.tridiagonal(v)[1].sum())(x),
             ("f32[3,3]",), expect="reject", kind=NotImplementedError),
    ]
    return cases


@param(schur_tridiagonal_cases())
def test_schur_tridiagonal(case):
    check(case)


# --- lax.linalg.tridiagonal_solve (gtsv): JVP/transpose as JAX ------------------------------------
def _tsolve(**kw):
    return lambda ns, dl, d, du, b: ns.lax.linalg.tridiagonal_solve(dl, d, du, b, **kw)


def _tsolve_dominant(ns, dl, d, du, b):
    """A diagonally dominant system (d + 4), so values and gradients are well conditioned."""
    return ns.lax.linalg.tridiagonal_solve(dl, d + 4, du, b)


def _tsolve_grad(ns, dl, d, du, b):
    m = J(ns)
    return ns.grad(lambda *a: m.real(_tsolve_dominant(ns, *a) * m.arange(3.0)).sum() + m.imag(
        _tsolve_dominant(ns, *a) ** 2).sum(), argnums=(0, 1, 2, 3))(dl, d, du, b)


def tsolve_cases():
    def args(d, batch, spec=None):
        vec = type_str(d, batch + (4,), (spec,) * len(batch) + (None,))
        return (vec, vec, vec, type_str(d, batch + (4, 3), (spec,) * len(batch) + (None, None)))
    cases = [Case(f"tsolve-{mesh}-{d}-{batch}-{spec}", mesh, _tsolve(), args(d, batch, spec))
             for mesh, d, batch, spec in [("1d", "f32", (), None), ("2d", "c64", (2,), "X"), ("3d", "f32", (2, 2), "Z"),
                                          ("1d", "bf16", (8,), "X")]]
    cases += [
        Case("tsolve-shapes", "1d", _tsolve(), ("f32[4]", "f32[3]", "f32[4]", "f32[4,2]")),
        Case("tsolve-b", "1d", _tsolve(), ("f32[4]", "f32[4]", "f32[4]", "f32[3,2]")),
        Case("tsolve-dtypes", "1d", _tsolve(), ("f32[4]", "f32[4]", "f32[4]", "c64[4,2]")),
        Case("tsolve-i32", "1d", _tsolve(), ("i32[4]", "i32[4]", "i32[4]", "i32[4,2]")),
        Case("tsolve-rank", "1d", _tsolve(), ("f32[4]", "f32[4]", "f32[4]", "f32[4]")),
        Case("tsolve-m-sharded", "1d", _tsolve(), ("f32[8@X]", "f32[8@X]", "f32[8@X]", "f32[8@X,2]")),
        Case("tsolve-val", "2d", _tsolve_dominant, args("f32", (2,), "X"), mode="jit", tol=TOL),
        Case("tsolve-val-c64", "1d", _tsolve_dominant, args("c64", (), None), mode="jit", tol=TOL),
        Case("tsolve-grad", "1d", _tsolve_grad, args("f32", (2,), "X"), mode="jit", tol=(1e-3, 1e-3)),
        Case("tsolve-grad-c64", "1d", _tsolve_grad, args("c64", (), None), mode="jit", tol=(1e-3, 1e-3)),
        Case("tsolve-vmap", "1d", lambda ns, dl, d, du, b: ns.vmap(lambda v: _tsolve_dominant(ns, dl, d, du, v),
                                                                   in_axes=2)(b),
             ("f32[4]", "f32[4]", "f32[4]", "f32[4,3,2]"), mode="jit", tol=TOL),
        Case("tsolve-perturbed", "1d", _tsolve(perturb_singular=True),
             tuple(Placed(value=np.zeros((4,), np.float32)) for _ in range(3)) + (
                 Placed(value=np.ones((4, 2), np.float32)),), mode="jit"),
    ]
    return cases


@param(tsolve_cases())
def test_tridiagonal_solve(case):
    check(case)


# --- lax.linalg.ormqr (ormqr / unmqr): no derivative in JAX -------------------------------------------
def _ormqr(**kw):
    return lambda ns, a, t, c: ns.lax.linalg.ormqr(a, t, c, **kw)


ORMQR = [Case(f"ormqr-{mesh}-{d}-{left}-{tr}", mesh, _ormqr(left=left, transpose=tr),
              (f"{d}[2@X,5,3]", f"{d}[2@X,3]", f"{d}[2@X,5,4]" if left else f"{d}[2@X,4,5]"),
              mode="jit" if d == "c64" and left != tr else "trace", tol=TOL)
         for mesh, d in (("1d", "f32"), ("2d", "c64"), ("3d", "f32")) for left in (True, False) for tr in (True, False)]
ORMQR += [Case(f"ormqr-{a}-{t}-{c}-{left}", "1d", _ormqr(left=left), (a, t, c)) for a, t, c, left in [
    ("f32[5,3]", "f32[3]", "f32[4,5]", True), ("f32[5,3]", "f32[3]", "f32[5,4]", False),
    ("f32[5,3]", "f32[3]", "f32[5]", True), ("f32[5,3]", "f32[3]", "bf16[5,4]", True),
    ("i32[5,3]", "i32[3]", "i32[5,4]", True), ("f32[5,3]", "f32[3]", "f32[5,4@X]", True),
    ("~f32[5,3]", "~f32[3]", "~f32[5,4]", True)]]
ORMQR += [Case("ormqr-val", "2d", _ormqr(), ("f32[2@X,5,3]", "f32[2@X,3]", "f32[2@X,5,4]"), mode="jit", tol=TOL),
          Case("ormqr-grad", "1d", lambda ns, a, t, c: ns.grad(lambda v: _ormqr()(ns, a, t, v).sum())(c),
               ("f32[5,3]", "f32[3]", "f32[5,4]"), expect="reject", kind=NotImplementedError)]


@param(ORMQR)
def test_ormqr(case):
    check(case)


# --- lax.linalg.symmetric_product: no derivative in JAX -----------------------------------------------
def _symprod(**kw):
    return lambda ns, a, c: ns.lax.linalg.symmetric_product(a, c, **kw)


SYMPROD = [Case(f"symprod-{mesh}-{a}-{c}", mesh, _symprod(alpha=2.0, beta=0.5), (a, c)) for mesh, a, c in [
    ("1d", "f32[4,3]", "f32[4,4]"), ("2d", "f32[2@X,4,3]", "f32[2@X,4,4]"), ("3d", "bf16[2@X,2@Y,4,2]", "bf16[2@X,2@Y,4,4]"),
    ("1d", "f32[4,3]", "f32[3,3]"), ("1d", "f32[4,3]", "f32[4,5]"), ("1d", "c64[4,3]", "c64[4,4]"),
    ("1d", "f32[4,3]", "bf16[4,4]"), ("1d", "f32[4,3@X]", "f32[4,4]"), ("1d", "~f32[4,3]", "~f32[4,4]"),
    ("2d", "f32[2@X,4,3]", "f32[2@Y,4,4]")]]
SYMPROD += [
    Case("symprod-val", "2d", _symprod(alpha=-1.5, beta=2.0), ("f32[2@X,4,3]", "f32[2@X,4,4]"), mode="jit", tol=TOL),
    Case("symprod-symmetrize", "1d", _symprod(symmetrize_output=True), ("f32[4,3]", "f32[4,4]"), mode="jit", tol=TOL),
    Case("symprod-symmetrize-batch-sharded", "2d", _symprod(symmetrize_output=True),
         ("f32[2@X,4,3]", "f32[2@X,4,4]")),
    Case("symprod-grad", "1d", lambda ns, a, c: ns.grad(lambda v: _symprod()(ns, v, c).sum())(a),
         ("f32[4,3]", "f32[4,4]"), expect="reject", kind=NotImplementedError),
]


@param(SYMPROD)
def test_symmetric_product(case):
    check(case)
