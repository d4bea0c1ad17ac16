"""Differential: `shardc.scipy.linalg` against JAX 0.10.2's `jax.scipy.linalg`, every public name.

* values: each function on well-conditioned f32 (and c64 where JAX takes it) inputs, eagerly,
  compared leaf by leaf (structure, shape, dtype, values to rounding);
* inside `jit` and on sharded operands of an Explicit 2x4 mesh (a batch dimension sharded on X):
  `str(typeof)` of every output equals JAX's and values agree;
* JAX's errors (class and key phrase) for bad modes, shapes and arguments;
* found by these: complex `jnp.linalg.norm` (was complex-valued), weakly typed loop carries that
  the body promotes (`fori_loop(..., 0.0)` with a complex body), `precision=` of jnp products.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import jax.scipy.linalg as JL
import numpy as np
import pytest
from oracle.modules import on_both_meshes

import shardc as sc

SL = sc.scipy.linalg
_rng = np.random.default_rng(0)
A = (_rng.standard_normal((4, 4)) + 4 * np.eye(4)).astype(np.float32)
S = (A @ A.T).astype(np.float32)
B = _rng.standard_normal((4, 3)).astype(np.float32)
b = _rng.standard_normal(4).astype(np.float32)
v = _rng.standard_normal(4).astype(np.float32)
AB = np.stack([A, A + 1]).astype(np.float32)
C = (A + 1j * _rng.standard_normal((4, 4))).astype(np.complex64)
E = (B[:, :1] @ B[:, :1].T / 4).astype(np.float32)
SYL_C = (B[:, :1] @ np.ones((1, 4), np.float32)).astype(np.float32)

#: name -> fn(L) where L is jax.scipy.linalg or shardc.scipy.linalg
CASES = {
    "svd": lambda L: L.svd(A), "svd_econ": lambda L: L.svd(A[:, :3], full_matrices=False),
    "svd_values": lambda L: L.svd(A, compute_uv=False), "det": lambda L: L.det(AB), "det_c": lambda L: L.det(C),
    "eigh": lambda L: L.eigh(S), "eigh_upper": lambda L: L.eigh(S, lower=False), "eigh_values": lambda L: L.eigh(
        S, eigvals_only=True),
    "schur": lambda L: L.schur(A)[0].shape, "schur_complex_T": lambda L: abs(L.schur(A, output="complex")[0]).sum(),
    "inv": lambda L: L.inv(AB), "lu_factor": lambda L: L.lu_factor(A), "lu_solve": lambda L: L.lu_solve(L.lu_factor(A), B),
    "lu_solve_vector": lambda L: L.lu_solve(L.lu_factor(A), b),
    "lu_solve_trans1": lambda L: L.lu_solve(L.lu_factor(A), b, trans=1),
    "lu_solve_trans2_c": lambda L: L.lu_solve(L.lu_factor(C), C[:, 0], trans=2),
    "lu": lambda L: L.lu(A), "lu_wide": lambda L: L.lu(A[:3]), "lu_permute_l": lambda L: L.lu(A[:, :3], permute_l=True),
    "qr": lambda L: L.qr(A), "qr_economic": lambda L: L.qr(A[:, :3], mode="economic"), "qr_r": lambda L: L.qr(A, mode="r"),
    "qr_multiply_right": lambda L: L.qr_multiply(A[:, :3], B.T[:, :4]),
    "qr_multiply_left": lambda L: L.qr_multiply(A[:, :3], B[:3], mode="left"),
    "qr_multiply_left_tall": lambda L: L.qr_multiply(A[:, :2], B[:2], mode="left"),
    "qr_multiply_vector": lambda L: L.qr_multiply(A, b), "qr_multiply_conjugate": lambda L: L.qr_multiply(C, C, conjugate=True),
    "solve": lambda L: L.solve(A, B), "solve_sym": lambda L: L.solve(S, b, assume_a="sym"),
    "solve_pos": lambda L: L.solve(S, b, assume_a="pos"),
    "solve_pos_batched": lambda L: L.solve(np.stack([S, 2 * S]), np.stack([B, B]), assume_a="pos"),
    "expm": lambda L: L.expm(A / 4), "expm_batched": lambda L: L.expm(AB / 8), "expm_c": lambda L: L.expm(C / 4),
    "expm_large_norm": lambda L: L.expm(A), "expm_upper": lambda L: L.expm(np.triu(A) / 4, upper_triangular=True),
    "expm_frechet": lambda L: L.expm_frechet(A / 4, E),
    "expm_frechet_only": lambda L: L.expm_frechet(A / 4, E, compute_expm=False),
    "block_diag": lambda L: L.block_diag(A, B, v, 1.0), "block_diag_empty": lambda L: L.block_diag(),
    "eigh_tridiagonal_values": lambda L: L.eigh_tridiagonal(v, v[:3], eigvals_only=True),
    "eigh_tridiagonal_vectors": lambda L: abs(L.eigh_tridiagonal(v, v[:3])[1]),
    "eigh_tridiagonal_select": lambda L: L.eigh_tridiagonal(v, v[:3], eigvals_only=True, select="i",
                                                            select_range=(1, 2)),
    "polar": lambda L: L.polar(A), "polar_left_svd": lambda L: L.polar(A, side="left", method="svd"),
    "sqrtm": lambda L: L.sqrtm(S), "rsf2csf": lambda L: L.rsf2csf(*JL.schur(A)),
    "hessenberg": lambda L: L.hessenberg(A), "hessenberg_q": lambda L: L.hessenberg(A, calc_q=True),
    "toeplitz": lambda L: L.toeplitz(v, b), "toeplitz_symmetric": lambda L: L.toeplitz(v),
    "toeplitz_batched": lambda L: L.toeplitz(AB[:, 0], AB[:, 1, :3]),
    "hankel": lambda L: L.hankel(v, b[:3]), "hankel_one": lambda L: L.hankel(v), "circulant": lambda L: L.circulant(v),
    "leslie": lambda L: L.leslie(v, v[:3]), "companion": lambda L: L.companion(v), "fiedler": lambda L: L.fiedler(v),
    "fiedler_companion": lambda L: L.fiedler_companion(v),
    "convolution_matrix_full": lambda L: L.convolution_matrix(v, 6),
    "convolution_matrix_same": lambda L: L.convolution_matrix(v, 5, mode="same"),
    "convolution_matrix_valid": lambda L: L.convolution_matrix(v, 5, mode="valid"),
    "hilbert": lambda L: L.hilbert(4), "invhilbert": lambda L: L.invhilbert(4), "pascal": lambda L: L.pascal(4),
    "pascal_lower": lambda L: L.pascal(4, kind="lower"), "invpascal": lambda L: L.invpascal(4),
    "invpascal_upper": lambda L: L.invpascal(4, kind="upper"), "helmert": lambda L: L.helmert(4),
    "helmert_full": lambda L: L.helmert(4, full=True), "hadamard": lambda L: L.hadamard(4),
    "hadamard_f32": lambda L: L.hadamard(8, dtype=np.float32), "dft": lambda L: L.dft(4),
    "dft_sqrtn": lambda L: L.dft(4, scale="sqrtn"),
    "solve_sylvester": lambda L: L.solve_sylvester(A, S, SYL_C),
    "funm": lambda L: L.funm(A / 4, lambda x: x * 2), "funm_exp": lambda L: L.funm(A / 4, jnp.exp if L is JL else
                                                                                   sc.numpy.exp),
    "cholesky": lambda L: L.cholesky(S), "cho_solve": lambda L: L.cho_solve(L.cho_factor(S), b),
    "solve_triangular": lambda L: L.solve_triangular(np.triu(A), b),
}

#: JAX's errors: name -> fn(L); both sides must raise the same class with JAX's message start
ERRORS = {
    "schur_output": lambda L: L.schur(A, output="imag"),
    "solve_assume_a": lambda L: L.solve(A, b, assume_a="tri"),
    "qr_mode": lambda L: L.qr(A, mode="thin"),
    "qr_multiply_mode": lambda L: L.qr_multiply(A, B, mode="up"),
    "qr_multiply_shapes": lambda L: L.qr_multiply(A[:, :3], B, mode="right"),
    "expm_not_square": lambda L: L.expm(B),
    "block_diag_3d": lambda L: L.block_diag(AB),
    "convolution_matrix_n": lambda L: L.convolution_matrix(v, 0),
    "convolution_matrix_mode": lambda L: L.convolution_matrix(v, 4, mode="wide"),
    "eigh_b": lambda L: L.eigh(S, S),
    "dft_dtype": lambda L: L.dft(4, dtype=np.float32),
    "polar_side": lambda L: L.polar(A, side="up"),
    "funm_not_square": lambda L: L.funm(B, lambda x: x),
    "lu_solve_trans": lambda L: L.lu_solve(L.lu_factor(A), b, trans=3),
    "leslie_list": lambda L: L.leslie([1.0, 2.0], v[:1]),
}


def _same(j, s) -> None:
    jl, sl = jax.tree.leaves(j), jax.tree.leaves(s)
    assert len(jl) == len(sl), (j, s)
    for x, y in zip(jl, sl):
        x, y = np.asarray(x), np.asarray(y)
        assert x.shape == y.shape and x.dtype == y.dtype, (x.shape, y.shape, x.dtype, y.dtype)
        np.testing.assert_allclose(y, x, rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_match_jax(name: str) -> None:
    _same(CASES[name](JL), CASES[name](SL))


def test_every_jax_name_is_built() -> None:
    public = {n for n in dir(JL) if not n.startswith("_")}
    assert public <= set(SL.__all__) and all(hasattr(SL, n) for n in SL.__all__)
    tested = {n for n in public if any(c == n or c.startswith(n + "_") for c in CASES)} | {"cho_factor", "lu_factor"}
    assert public - tested == set()


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_jax(name: str) -> None:
    with pytest.raises(Exception) as je:
        ERRORS[name](JL)
    with pytest.raises(Exception) as se:
        ERRORS[name](SL)
    assert isinstance(se.value, type(je.value)) or type(je.value).__name__ in {
        c.__name__ for c in type(se.value).__mro__}, (je.value, se.value)
    assert str(je.value)[:40] in str(se.value), (str(je.value)[:80], str(se.value)[:160])


# --- on a mesh: (function, argument shapes and shardings) -----------------------------------------------------------
#: name -> (fn(L, *args), [(value, spec)]): spec names the 2x4 mesh's axes (the batch dim on X)
SHARDED = {
    "det": (lambda L, a: L.det(a), [(AB, ("X", None, None))]),
    "inv": (lambda L, a: L.inv(a), [(AB, ("X", None, None))]),
    "expm": (lambda L, a: L.expm(a / 8), [(AB, ("X", None, None))]),
    "lu_factor": (lambda L, a: L.lu_factor(a), [(AB, ("X", None, None))]),
    "solve": (lambda L, a, x: L.solve(a, x), [(AB, ("X", None, None)), (np.stack([B, B]), ("X", None, None))]),
    "cho_solve": (lambda L, a, x: L.cho_solve((L.cholesky(a), False), x),
                  [(np.stack([S, S]), ("X", None, None)), (np.stack([B, B]), ("X", None, None))]),
    "toeplitz": (lambda L, c, r: L.toeplitz(c, r), [(AB[:, 0], ("X", None)), (AB[:, 1], ("X", None))]),
    "circulant": (lambda L, c: L.circulant(c), [(AB[:, 0], ("X", None))]),
    "block_diag": (lambda L, a, x: L.block_diag(a, x), [(A, (None, None)), (B, (None, None))]),
    "svd": (lambda L, a: L.svd(a, compute_uv=False), [(AB, ("X", None, None))]),
    "eigh": (lambda L, a: L.eigh(a, eigvals_only=True), [(np.stack([S, 2 * S]), ("X", None, None))]),
}


#: sharded cases JAX 0.10.2 fails on with an error of its own making (expm: the `lax.cond` of its squaring
#: steps under the vectorize of a sharded batch loses the mesh), with that error's phrase
JAX_GAPS = {"expm": "is not found in mesh: ()"}




@pytest.mark.parametrize("name", sorted(SHARDED))
def test_sharded_types_and_values_match_jax(name: str) -> None:
    """Where JAX rejects the sharded operands (its vmap / select sharding rules inside the composition),
    shardc must reject them too, with JAX's class."""
    fn, args = SHARDED[name]
    got = on_both_meshes(fn, ((JL,), (SL,)), args)
    if name in JAX_GAPS:   # JAX fails inside its own composition; shardc computes it: compare with JAX unsharded
        assert JAX_GAPS[name] in str(got[0]), got[0]
        assert not isinstance(got[1], Exception), got[1]
        _same(fn(JL, *[val for val, _ in args]), got[1][0])
        return
    if isinstance(got[0], Exception):
        assert isinstance(got[1], (TypeError, ValueError)), (got[0], got[1])
        return
    assert not isinstance(got[1], Exception), got[1]
    (jo, jt), (so, st) = got
    assert st == jt
    _same(jo, so)


# --- what the port found in shardc's numpy / lax -------------------------------------------------------------------
@pytest.mark.parametrize("ord_axis", [(None, None), (2, None), ("fro", (0, 1)), (None, 1), (1, None), (np.inf, 0),
                                      (3, None), ("nuc", (0, 1))])
@pytest.mark.parametrize("dtype", [np.complex64, np.float32])
def test_norm_of_complex_is_real_as_jax(ord_axis, dtype) -> None:
    ord_, axis = ord_axis
    x = (C if dtype == np.complex64 else A).astype(dtype)
    if axis is None and ord_ is not None:
        x = x[0]
    _same(jnp.linalg.norm(x, ord=ord_, axis=axis), sc.numpy.linalg.norm(x, ord=ord_, axis=axis))


#: loops whose weakly typed initial carry the body promotes (JAX's _promote_weak_typed_input)
LOOPS = {
    "fori_static": lambda L, N: L.fori_loop(0, 3, lambda i, c: c + N.complex64(1j), 0.0),
    "fori_dynamic": lambda L, N: L.fori_loop(0, N.int32(3), lambda i, c: c + N.complex64(1j), 0.0),
    "fori_float_from_int": lambda L, N: L.fori_loop(0, N.int32(3), lambda i, c: c + N.float32(0.5), 0),
    "while": lambda L, N: L.while_loop(lambda c: c.real < 1, lambda c: c + N.complex64(1 + 1j), 0.0),
    "scan": lambda L, N: L.scan(lambda c, x: (c + x, c), 0, N.arange(3.0)),
    "scan_tuple": lambda L, N: L.scan(lambda c, x: ((c[0] + x, c[1] * 2), None), (0, 1.0), N.arange(3.0)),
    "strong_carry_rejected": lambda L, N: L.fori_loop(0, N.int32(3), lambda i, c: c + N.float32(0.5),
                                                      N.int32(0)),
}


@pytest.mark.parametrize("name", sorted(LOOPS))
@pytest.mark.parametrize("jit", [False, True])
def test_weak_carries_promote_as_jax(name: str, jit: bool) -> None:
    res = []
    for top, N in ((jax, jnp), (sc, sc.numpy)):
        fn = lambda: LOOPS[name](top.lax, N)  # noqa: E731
        try:
            out = top.jit(fn)() if jit else fn()
            res.append((out, [str(top.typeof(o)) for o in jax.tree.leaves(out)]))
        except TypeError as e:
            res.append(type(e))
    if isinstance(res[0], type):
        assert res[1] is not None and not isinstance(res[1], tuple) and issubclass(res[1], TypeError)
        return
    assert res[1][1] == res[0][1]
    _same(res[0][0], res[1][0])


@pytest.mark.parametrize("fn", ["dot", "matmul", "tensordot", "einsum"])
@pytest.mark.parametrize("precision", [jax.lax.Precision.HIGHEST, "highest", ("default", "highest"), "fastest_x"])
def test_precision_of_jnp_products_as_jax(fn: str, precision) -> None:
    call = {"dot": lambda N: N.dot(A, B, precision=precision), "matmul": lambda N: N.matmul(A, B, precision=precision),
            "tensordot": lambda N: N.tensordot(A, B, 1, precision=precision),
            "einsum": lambda N: N.einsum("ij,jk->ik", A, B, precision=precision)}[fn]
    try:
        want = call(jnp)
    except ValueError as e:
        with pytest.raises(ValueError, match="Precision argument must be one of"):
            call(sc.numpy)
        assert "Precision argument must be one of" in str(e)
        return
    _same(want, call(sc.numpy))
