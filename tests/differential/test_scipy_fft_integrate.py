"""Differential: `shardc.scipy.fft` and `shardc.scipy.integrate` against JAX 0.10.2's `jax.scipy.fft`
and `jax.scipy.integrate`, every public name.

* values: `dct`/`idct`/`dctn`/`idctn` over norms, axes, `n`/`s` (crop and pad), ranks 1-3 and dtypes
  (f32, bf16, f16, int32, c64), `trapezoid` with `dx`, `x` (1-D and N-D), axes and dtypes, eagerly and
  compared leaf by leaf (structure, shape, dtype, weak type, values to rounding);
* gradients through `dct`/`idct`/`dctn` and `trapezoid`, and `vmap` over them;
* inside `jit` on an Explicit 2x4 mesh with a sharded operand: `str(typeof)` equals JAX's;
* JAX's errors (class and key phrase): DCT types other than 2, unknown norms, `s` longer than the rank,
  lists, bad axes.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import jax.scipy.fft as JF
import jax.scipy.integrate as JI
import numpy as np
import pytest
from oracle.modules import on_both_meshes

import shardc as sc

SF, SI = sc.scipy.fft, sc.scipy.integrate
_rng = np.random.default_rng(0)
X1 = _rng.standard_normal(7).astype(np.float32)
X2 = _rng.standard_normal((4, 6)).astype(np.float32)
X3 = _rng.standard_normal((3, 4, 5)).astype(np.float32)
C2 = (X2 + 1j * _rng.standard_normal((4, 6))).astype(np.complex64)
I2 = _rng.integers(-5, 5, (4, 6)).astype(np.int32)
T1 = np.sort(_rng.uniform(0, 3, 7)).astype(np.float32)

#: name -> fn(F, I) where F/I are jax.scipy.fft/integrate or shardc.scipy.fft/integrate
CASES = {
    "dct": lambda F, I: F.dct(X2),
    "dct_1d": lambda F, I: F.dct(X1),
    "dct_axis0": lambda F, I: F.dct(X2, axis=0),
    "dct_ortho": lambda F, I: F.dct(X2, norm="ortho"),
    "dct_backward": lambda F, I: F.dct(X2, norm="backward"),
    "dct_n_crop": lambda F, I: F.dct(X2, n=3),
    "dct_n_pad": lambda F, I: F.dct(X2, n=9, axis=0),
    "dct_3d_axis1": lambda F, I: F.dct(X3, axis=1, norm="ortho"),
    "dct_bf16": lambda F, I: F.dct(X2.astype(jnp.bfloat16)),
    "dct_f16": lambda F, I: F.dct(X2.astype(np.float16)),
    "dct_int": lambda F, I: F.dct(I2),
    "dct_c64": lambda F, I: F.dct(C2, norm="ortho"),
    "dct_scaled": lambda F, I: F.dct(np.float32(2.0) * X1),
    "idct": lambda F, I: F.idct(X2),
    "idct_1d_odd": lambda F, I: F.idct(X1),
    "idct_axis0_ortho": lambda F, I: F.idct(X2, axis=0, norm="ortho"),
    "idct_n_crop": lambda F, I: F.idct(X2, n=4),
    "idct_n_pad": lambda F, I: F.idct(X2, n=8),
    "idct_int": lambda F, I: F.idct(I2),
    "idct_bf16": lambda F, I: F.idct(X2.astype(jnp.bfloat16)),
    "idct_c64": lambda F, I: F.idct(C2),
    "idct_roundtrip": lambda F, I: F.idct(F.dct(X3, axis=0), axis=0),
    "dctn": lambda F, I: F.dctn(X2),
    "dctn_ortho": lambda F, I: F.dctn(X2, norm="ortho"),
    "dctn_3d": lambda F, I: F.dctn(X3),
    "dctn_3d_ortho": lambda F, I: F.dctn(X3, norm="ortho"),
    "dctn_axes_one": lambda F, I: F.dctn(X3, axes=[1]),
    "dctn_axes_int": lambda F, I: F.dctn(X3, axes=-1),
    "dctn_axes_neg": lambda F, I: F.dctn(X3, axes=(-1, 0)),
    "dctn_s": lambda F, I: F.dctn(X2, s=[2, 8]),
    "dctn_s_int": lambda F, I: F.dctn(X2, s=3),
    "dctn_s_axes": lambda F, I: F.dctn(X3, s=[2, 6], axes=[0, 2]),
    "dctn_c64": lambda F, I: F.dctn(C2),
    "dctn_int": lambda F, I: F.dctn(I2),
    "idctn": lambda F, I: F.idctn(X2),
    "idctn_3d_ortho": lambda F, I: F.idctn(X3, norm="ortho"),
    "idctn_s": lambda F, I: F.idctn(X2, s=[2, 5]),
    "idctn_s_one": lambda F, I: F.idctn(X2, s=[2]),
    "idctn_axes": lambda F, I: F.idctn(X3, axes=[0, 2]),
    "idctn_c64": lambda F, I: F.idctn(C2, norm="ortho"),
    "idctn_roundtrip": lambda F, I: F.idctn(F.dctn(X3)),
    "trapezoid": lambda F, I: I.trapezoid(X1),
    "trapezoid_dx": lambda F, I: I.trapezoid(X2, dx=0.5),
    "trapezoid_x": lambda F, I: I.trapezoid(X1, T1),
    "trapezoid_x_axis0": lambda F, I: I.trapezoid(X2, T1[:4], axis=0),
    "trapezoid_x_nd": lambda F, I: I.trapezoid(X2, np.cumsum(np.abs(X2), axis=1)),
    "trapezoid_axis0": lambda F, I: I.trapezoid(X3, axis=0),
    "trapezoid_int": lambda F, I: I.trapezoid(I2),
    "trapezoid_int_dx_int": lambda F, I: I.trapezoid(I2, dx=2),
    "trapezoid_bf16": lambda F, I: I.trapezoid(X2.astype(jnp.bfloat16)),
    "trapezoid_f16_x": lambda F, I: I.trapezoid(X1.astype(np.float16), T1),
    "trapezoid_c64": lambda F, I: I.trapezoid(C2, axis=0),
    "trapezoid_dx_array": lambda F, I: I.trapezoid(X2, dx=np.float32(0.25)),
}

#: gradients and vmap: name -> fn(top, F, I) (top = jax or shardc)
GRADS = {
    "grad_dct": lambda t, F, I: t.grad(lambda x: (F.dct(x, norm="ortho") ** 2 * np.arange(6.0)).sum())(X2),
    "grad_idct": lambda t, F, I: t.grad(lambda x: (F.idct(x, n=5) * np.arange(5.0)).sum())(X2),
    "grad_dctn": lambda t, F, I: t.grad(lambda x: (F.dctn(x) * X3).sum())(X3),
    "grad_idctn": lambda t, F, I: t.grad(lambda x: (F.idctn(x, s=[3, 5]) ** 2).sum())(X2),
    "grad_trapezoid_y": lambda t, F, I: t.grad(lambda y: I.trapezoid(y ** 2, T1))(X1),
    "grad_trapezoid_x": lambda t, F, I: t.grad(lambda x: I.trapezoid(X1, x))(T1),
    "grad_trapezoid_dx": lambda t, F, I: t.grad(lambda d: I.trapezoid(X2, dx=d).sum())(0.5),
    "vmap_dct": lambda t, F, I: t.vmap(lambda x: F.dct(x, norm="ortho"))(X3),
    "vmap_dctn_axis1": lambda t, F, I: t.vmap(F.dctn, in_axes=1)(X3),
    "vmap_trapezoid": lambda t, F, I: t.vmap(lambda y, x: I.trapezoid(y, x), in_axes=(0, None))(X2, T1[:6]),
    "jit_dct": lambda t, F, I: t.jit(lambda x: F.idct(F.dct(x, n=8), n=6))(X2),
    "jit_trapezoid": lambda t, F, I: t.jit(lambda y: I.trapezoid(y, dx=0.1, axis=0))(X3),
}

#: JAX's errors: name -> fn(F, I); both sides must raise the same class with JAX's message start
ERRORS = {
    "dct_type1": lambda F, I: F.dct(X2, type=1),
    "dct_type3": lambda F, I: F.dct(X2, type=3),
    "idct_type4": lambda F, I: F.idct(X2, type=4),
    "dctn_type1": lambda F, I: F.dctn(X2, type=1),
    "idctn_type1": lambda F, I: F.idctn(X2, type=1),
    "dct_norm_forward": lambda F, I: F.dct(X2, norm="forward"),
    "idct_norm_bad": lambda F, I: F.idct(X2, norm="orth"),
    "dctn_norm_forward": lambda F, I: F.dctn(X2, norm="forward"),
    "idctn_norm_bad": lambda F, I: F.idctn(X2, norm="fwd"),
    "dctn_s_too_long": lambda F, I: F.dctn(X2, s=[2, 3, 4]),
    "idctn_s_too_long": lambda F, I: F.idctn(X1, s=[2, 3]),
    "dct_list": lambda F, I: F.dct([1.0, 2.0]),
    "trapezoid_list": lambda F, I: I.trapezoid([1.0, 2.0, 4.0]),
    "trapezoid_x_list": lambda F, I: I.trapezoid(X1, list(T1)),
    "dctn_list": lambda F, I: F.dctn([[1.0, 2.0]]),
    "dct_axis": lambda F, I: F.dct(X2, axis=2),
    "idct_axis": lambda F, I: F.idct(X2, axis=-3),
    "dctn_axes_out_of_range": lambda F, I: F.dctn(X2, axes=[0, 5]),
}


def _same(j, s) -> None:
    jl, sl = jax.tree.leaves(j), jax.tree.leaves(s)
    assert jax.tree.structure(j) == jax.tree.structure(s) or len(jl) == len(sl), (j, s)
    assert len(jl) == len(sl), (j, s)
    for x, y in zip(jl, sl):
        jw, sw = getattr(x, "weak_type", False), getattr(sc.typeof(y), "weak_type", False) if hasattr(
            y, "_shardc_type") else False
        x, y = np.asarray(x), np.asarray(y)
        assert x.shape == y.shape and x.dtype == y.dtype, (x.shape, y.shape, x.dtype, y.dtype)
        assert jw == sw, (jw, sw)
        tol = 5e-2 if x.dtype in (jnp.bfloat16, np.float16) else 2e-4
        np.testing.assert_allclose(np.asarray(y, np.float64) if x.dtype != np.complex64 else y,
                                   np.asarray(x, np.float64) if x.dtype != np.complex64 else x, rtol=tol, atol=tol)


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_match_jax(name: str) -> None:
    _same(CASES[name](JF, JI), CASES[name](SF, SI))


@pytest.mark.parametrize("name", sorted(GRADS))
def test_grads_vmap_jit_match_jax(name: str) -> None:
    _same(GRADS[name](jax, JF, JI), GRADS[name](sc, SF, SI))


def test_every_jax_name_is_built() -> None:
    for J, S in ((JF, SF), (JI, SI)):
        public = {n for n in dir(J) if not n.startswith("_")}
        assert public == set(S.__all__) and all(hasattr(S, n) for n in S.__all__)
        tested = {n for n in public if any(c == n or c.startswith(n + "_") for c in CASES)}
        assert public == tested
    import jax.scipy
    assert {"fft", "integrate"} <= set(dir(jax.scipy)) and sc.scipy.fft is SF and sc.scipy.integrate is SI


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_jax(name: str) -> None:
    with pytest.raises(Exception) as je:
        ERRORS[name](JF, JI)
    with pytest.raises(Exception) as se:
        ERRORS[name](SF, SI)
    assert isinstance(se.value, type(je.value)) or type(je.value).__name__ in {
        c.__name__ for c in type(se.value).__mro__}, (je.value, se.value)
    assert str(je.value)[:40] in str(se.value), (str(je.value)[:80], str(se.value)[:160])


# --- on a mesh: (function, argument shapes and shardings) -----------------------------------------------------------
XS = _rng.standard_normal((8, 8)).astype(np.float32)
#: name -> (fn(F, I, *args), [(value, spec)]) on the 2x4 Explicit mesh
SHARDED = {
    "dct_rows": (lambda F, I, x: F.dct(x), [(XS, ("X", None))]),
    "dct_ortho_rows_y": (lambda F, I, x: F.dct(x, norm="ortho", n=4), [(XS, ("Y", None))]),
    "idct_rows": (lambda F, I, x: F.idct(x, norm="ortho"), [(XS, ("X", None))]),
    "dct_sharded_axis": (lambda F, I, x: F.dct(x, axis=0), [(XS, ("X", None))]),
    "dctn_3d_batch": (lambda F, I, x: F.dctn(x, axes=(1, 2)), [(np.stack([XS] * 2), ("X", None, None))]),
    "idctn_3d_batch": (lambda F, I, x: F.idctn(x, axes=(1, 2), norm="ortho"), [(np.stack([XS] * 2), ("X", None, None))]),
    "trapezoid_rows": (lambda F, I, y: I.trapezoid(y, dx=0.5), [(XS, ("X", None))]),
    "trapezoid_2d_spec": (lambda F, I, y: I.trapezoid(y, axis=-1), [(XS, ("X", "Y"))]),
    "trapezoid_x_rows": (lambda F, I, y, x: I.trapezoid(y, x), [(XS, ("X", None)), (XS, ("X", None))]),
    "trapezoid_sharded_axis": (lambda F, I, y: I.trapezoid(y, axis=0), [(XS, ("X", None))]),
}




@pytest.mark.parametrize("name", sorted(SHARDED))
def test_sharded_types_and_values_match_jax(name: str) -> None:
    """Where JAX rejects the sharded operands inside its composition, shardc must reject them too."""
    fn, args = SHARDED[name]
    got = on_both_meshes(fn, ((JF, JI), (SF, SI)), args)
    if isinstance(got[0], Exception):
        assert isinstance(got[1], Exception) and type(got[0]).__name__ in {
            c.__name__ for c in type(got[1]).__mro__} | {"ShardingTypeError"}, (got[0], got[1])
        return
    assert not isinstance(got[1], Exception), got[1]
    (jo, jt), (so, st) = got
    assert st == jt
    _same(jo, so)


# --- what the port found in shardc's lax / autodiff / numpy ---------------------------------------------------------
@pytest.mark.parametrize("cfg", [[(-2, 1, 1)], [(1, -3, 0)], [(-1, -1, 2)], [(0, -2, 0)], [(2, 1, 1)], [(-3, 4, 2)],
                                 [(0, -9, 1)], [(1, -2, 0), (-1, 2, 1)]])
def test_grad_of_cropping_pad_matches_jax(cfg) -> None:
    """`lax.pad` with a negative low/high (a crop: `dct(x, n=3)` of a longer axis) had no gradient
    ('slice ... out of bounds'); JAX's `_pad_transpose` un-pads by the negated config."""
    x = X2[:len(cfg) * 2 - 1, :5] if len(cfg) == 2 else X1[:5]
    n = jax.lax.pad(x, 0.0, cfg).shape
    w = np.arange(np.prod(n), dtype=np.float32).reshape(n)
    _same(jax.grad(lambda x: (jax.lax.pad(x, 0.0, cfg) * w).sum())(x),
          sc.grad(lambda x: (sc.lax.pad(x, 0.0, cfg) * w).sum())(x))


@pytest.mark.parametrize("how", ["grad", "vjp", "jit_grad"])
def test_cotangent_of_weak_input_is_weak_as_jax(how: str) -> None:
    """The gradient at a Python float of a function mixing it with float32 arrays was a strong
    float32 (JAX: the input's tangent type, `~float32`)."""
    f = {jax: lambda d: (d * X1).sum(), sc: lambda d: (d * X1).sum()}
    def run(top):
        if how == "vjp":
            return top.vjp(f[top], 0.5)[1](np.float32(1.0))[0]
        g = top.grad(f[top])
        return (top.jit(g) if how == "jit_grad" else g)(0.5)
    _same(run(jax), run(sc))


@pytest.mark.parametrize("args", [([1.0, 2.0],), ([1.0, 2.0], [0.0, 1.0]), (X1, list(T1))])
def test_numpy_trapezoid_refuses_lists_as_jax(args) -> None:
    with pytest.raises(TypeError) as je:
        jnp.trapezoid(*args)
    with pytest.raises(TypeError) as se:
        sc.numpy.trapezoid(*args)
    assert str(je.value) in str(se.value)
