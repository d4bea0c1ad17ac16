"""Differential: `frexp` / `ldexp` / `spacing` / `nextafter`, `i0` / `kaiser`, `interp`,
`piecewise`, `r_` / `c_`, `histogramdd` / `histogram2d`, `packbits` / `unpackbits`, `poly` /
`polymul` / `polydiv`, `array_repr` / `array_str`, `frombuffer` / `fromstring` / `fromiter`, and
the primitives `lax.nextafter` / `lax.bessel_i0e` / `lax.bessel_i1e`, against jax.numpy / jax.lax
0.10.2: accept/reject (error class and key phrase) and `str(typeof)` by tracing over 1-D to 3-D
meshes, f32/bf16/i32/u8/bool as each function takes them, ranks 0-3 and the shardings the shapes
allow; values (bit-exact for the integer and bit functions, `frexp`, `spacing`, `nextafter`),
output shardings, collectives (shardc <= JAX) and gradients on a compiled subset."""
from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from oracle import BASIC_MESHES, JAX, Case, Placed, check, param, sample, specs_for, type_str

import shardc as sc
import shardc.numpy as snp


def J(ns):
    return jnp if ns is JAX else snp


def L(ns):
    return jax.lax if ns is JAX else sc.lax


SHAPES = {0: (), 1: (8,), 2: (8, 4), 3: (4, 2, 8)}
EXACT = (0.0, 0.0)


def _types(dname: str, mesh: str, ranks=(0, 1, 2, 3), n: int = 3, salt: str = "") -> list[str]:
    pool = [type_str(dname, SHAPES[r], spec) for r in ranks for spec in specs_for(SHAPES[r], mesh)]
    return [c.id for c in sample([Case(t, mesh, None) for t in pool], n, salt=salt + dname + mesh)]


def _specials(ns, x):
    """x with zeros, infinities, NaNs, subnormal-range and huge values put in (float inputs)."""
    m = J(ns)
    if not m.issubdtype(x.dtype, m.floating):
        return x
    x = m.where(x > 1.8, m.inf, m.where(x < -1.8, -m.inf, m.where(m.abs(x) < 0.05, 0.0, x)))
    return m.where((x > 1.6) & (x < 1.8), m.nan, m.where((x > 1.4) & (x < 1.6), x * 1e30, x))


# --- elementwise functions: types by tracing --------------------------------------------------------
UNARY = {
    "frexp": lambda ns, x: J(ns).frexp(x),
    "spacing": lambda ns, x: J(ns).spacing(x),
    "i0": lambda ns, x: J(ns).i0(x),
    "nextafter": lambda ns, x: J(ns).nextafter(x, 0.0),
    "ldexp": lambda ns, x: J(ns).ldexp(x, 3),
    "lax.bessel_i0e": lambda ns, x: L(ns).bessel_i0e(x),
    "lax.bessel_i1e": lambda ns, x: L(ns).bessel_i1e(x),
    "lax.nextafter": lambda ns, x: L(ns).nextafter(x, x),
}
DTYPES = ("f32", "bf16", "i32", "u8", "bool")


def unary_type_cases():
    out = []
    for (name, fn), mesh in itertools.product(UNARY.items(), BASIC_MESHES):
        for dname in DTYPES:
            for t in _types(dname, mesh, n=2 if dname == "f32" else 1, salt=name):
                out.append(Case(f"{name}-{mesh}-{t}", mesh, fn, (t,)))
    return out


def _ldexp(ns, x, e):
    return J(ns).ldexp(x, e)


def _nextafter2(ns, x, y):
    return J(ns).nextafter(x, y)


def binary_type_cases():
    out = []
    for mesh in BASIC_MESHES:
        for d1, d2 in (("f32", "i32"), ("bf16", "i32"), ("i32", "i32"), ("f32", "f32"), ("bool", "u8")):
            for t in _types(d1, mesh, ranks=(1, 2, 3), n=1, salt="ld" + d2):
                t2 = d2 + t[t.index("["):]
                out.append(Case(f"ldexp-{mesh}-{t}-{d2}", mesh, _ldexp, (t, t2)))
                out.append(Case(f"nextafter-{mesh}-{t}-{d2}", mesh, _nextafter2, (t, t2)))
        # rank-promoted and scalar operands
        t = _types("f32", mesh, ranks=(2,), n=1, salt="bc")[0]
        out.append(Case(f"ldexp-bcast-{mesh}", mesh, _ldexp, (t, "i32[4]")))
        out.append(Case(f"nextafter-scalar-{mesh}", mesh, _nextafter2, ("f32[]", t)))
    return out


@param(unary_type_cases() + binary_type_cases())
def test_elementwise_types(case):
    check(case)


def elementwise_value_cases():
    out = []
    for i, (name, fn) in enumerate(UNARY.items()):
        for dname in ("f32", "bf16", "i32"):
            mesh = ("1d", "2d", "3d")[(i + len(dname)) % 3]
            t = type_str(dname, (8, 4), ("X", None)) if mesh != "1d" else type_str(dname, (8,), ("X",))
            if name.startswith("lax.") and dname == "i32":
                continue
            exact = name in ("frexp", "spacing", "nextafter", "lax.nextafter", "ldexp")
            f = (lambda ns, x, fn=fn: fn(ns, _specials(ns, x))) if name != "i0" else fn
            out.append(Case(f"{name}-vals-{mesh}-{t}", mesh, f, (t,), mode="jit", collectives="at_most",
                            tol=EXACT if exact else ((2e-2, 2e-2) if dname == "bf16" else (2e-6, 2e-6))))
    out.append(Case("ldexp-vals-exps", "2d", _ldexp,
                    ("f32[8@X,4@Y]", Placed(value=np.arange(-16, 16, dtype=np.int32).reshape(8, 4) * 9,
                                            spec=("X", "Y"))), mode="jit", tol=EXACT))
    return out


@param(elementwise_value_cases())
def test_elementwise_values(case):
    check(case)


def _g(f):
    return lambda ns, x: ns.grad(lambda v: J(ns).sum(f(ns, v)))(x)


GRADS = {
    "i0": lambda ns, x: J(ns).i0(x * 3.0),
    "i0-at-0": lambda ns, x: J(ns).i0(x * 0.0),
    "frexp": lambda ns, x: J(ns).frexp(x * 7.0)[0],
    "ldexp": lambda ns, x: J(ns).ldexp(x, 5),
    "spacing": lambda ns, x: J(ns).spacing(x),
    "bessel_i0e": lambda ns, x: L(ns).bessel_i0e(x * 10.0),
    "bessel_i1e": lambda ns, x: L(ns).bessel_i1e(x * 10.0),
    "bessel_i1e-at-0": lambda ns, x: L(ns).bessel_i1e(x * 0.0),
    "interp": lambda ns, x: J(ns).interp(x, np.linspace(-2, 2, 7, dtype=np.float32),
                                         np.cos(np.arange(7, dtype=np.float32))),
    "piecewise": lambda ns, x: J(ns).piecewise(x, [x < 0, x > 1], [lambda v: v * v, lambda v: -v, 2.0]),
}


@pytest.mark.parametrize("name", list(GRADS))
def test_gradients(name):
    mesh = ("1d", "2d", "3d")[list(GRADS).index(name) % 3]
    t = "f32[8@X,4]" if mesh != "1d" else "f32[8@X]"
    if name in ("interp", "piecewise"):   # JAX rejects these on sharded operands (see above)
        t = "f32[8,4]"
    check(Case(f"grad-{name}", mesh, _g(GRADS[name]), (t,), mode="jit", collectives="at_most", tol=(2e-5, 2e-6)))


def test_nextafter_has_no_derivative_as_jax():
    check(Case("grad-nextafter", "1d", _g(lambda ns, x: L(ns).nextafter(x, 1.0)), ("f32[8@X]",),
               expect="reject", kind=NotImplementedError))


# --- interp / piecewise -------------------------------------------------------------------------------
XP = np.sort(np.random.default_rng(1).uniform(-1.5, 1.5, 9)).astype(np.float32)
FP = np.sin(3 * XP).astype(np.float32)
INTERP_KW = [{}, {"left": -7.0, "right": 9.0}, {"left": "extrapolate"}, {"right": "extrapolate"},
             {"period": 1.25}]


def _interp(kw):
    return lambda ns, x: J(ns).interp(x, XP, FP, **kw)


def _interp_arrays(ns, x, xp, fp):
    return J(ns).interp(x, xp, fp)


def _sharded(t: str) -> bool:
    return "@" in t


def interp_cases():
    """JAX 0.10.2 rejects a sharded `x` (its `searchsorted` scan fails: "Resource axis: X of P('X',)
    is not found in mesh: ()"), an implementation gap: shardc rejects it too (`quirk`)."""
    out = []
    for i, (kw, mesh) in enumerate(itertools.product(INTERP_KW, BASIC_MESHES)):
        for dname in ("f32", "bf16", "i32"):
            for t in _types(dname, mesh, n=2, salt=f"interp{i}"):
                out.append(Case(f"interp{kw}-{mesh}-{t}", mesh, _interp(kw), (t,), quirk=_sharded(t)))
        if mesh == list(BASIC_MESHES)[i // len(BASIC_MESHES) % 3]:   # values: one mesh per keyword set
            out.append(Case(f"interp{kw}-vals-{mesh}", mesh, _interp(kw), ("f32[4,8]",), mode="jit",
                            collectives="at_most", tol=(1e-5, 1e-6)))
    for mesh in BASIC_MESHES:
        out.append(Case(f"interp-replicated-x-{mesh}", mesh, _interp_arrays, ("f32[4,8]", "f32[8]", "bf16[8]")))
        # JAX's searchsorted vmaps over x and refuses an xp sharded along that axis (a gap: quirk)
        out.append(Case(f"interp-sharded-xp-{mesh}", mesh, _interp_arrays, ("f32[4,8@X]", "f32[8@X]", "bf16[8]"),
                        quirk=True))
    # errors, as JAX's
    out.append(Case("interp-bad-left", "1d", _interp({"left": "nearest"}), ("f32[8@X]",), expect="reject"))
    out.append(Case("interp-bad-shapes", "1d", _interp_arrays, ("f32[8]", "f32[8]", "f32[4]"), expect="reject"))
    out.append(Case("interp-2d-xp", "2d", _interp_arrays, ("f32[8]", "f32[8,4]", "f32[8,4]"), expect="reject"))
    return out


@param(interp_cases())
def test_interp(case):
    check(case)


def _piecewise(kind):
    def fn(ns, x):
        m = J(ns)
        if kind == "consts":
            return m.piecewise(x, [x < 0, x > 1], [-1, 1])
        if kind == "default":
            return m.piecewise(x, [x < 0, x > 1], [lambda v: v * 2, lambda v: v - 1, lambda v: v * 0 + 5])
        if kind == "mixed":
            return m.piecewise(x, [x < -0.5], [lambda v: -v, 3])
        return m.piecewise(x, [x < 0, x > 1, x > 0], [1, 2])   # wrong number of functions
    return fn


def piecewise_cases():
    """Replicated operands (on a sharded one JAX 0.10.2 fails inside its batched `switch`: see
    `test_piecewise_sharded`)."""
    out = []
    for kind, mesh in itertools.product(("consts", "default", "mixed"), BASIC_MESHES):
        for dname in ("f32", "i32", "bf16", "bool"):
            for r in (0, 1, 2, 3):
                t = type_str(dname, SHAPES[r], ())
                out.append(Case(f"piecewise-{kind}-{mesh}-{t}", mesh, _piecewise(kind), (t,)))
        out.append(Case(f"piecewise-{kind}-vals-{mesh}", mesh, _piecewise(kind), ("f32[8,4]",), mode="jit",
                        collectives="at_most", tol=EXACT))
    out.append(Case("piecewise-count", "1d", _piecewise("bad"), ("f32[8@X]",), expect="reject"))
    return out


@param(piecewise_cases())
def test_piecewise(case):
    check(case)


@pytest.mark.parametrize("kind", ["consts", "default", "mixed"])
def test_piecewise_sharded(kind, mesh24):
    """JAX 0.10.2 mostly rejects `piecewise` of a sharded operand (its batched `switch` builds a
    `select_n` whose index and cases disagree in sharding, or fails looking up the mesh axis inside
    `vmap`: see the table's ids in docs/numpy.md); shardc computes it, keeping the operand's
    sharding: values equal JAX's on the replicated operand."""
    x = np.linspace(-2, 2, 32, dtype=np.float32).reshape(8, 4)
    want = jax.jit(lambda v: _piecewise(kind)(JAX, v))(x)
    with sc.set_mesh(mesh24):
        got = sc.jit(lambda v: _piecewise(kind)(None, v))(sc.device_put(x, sc.P("X", "Y")))
        assert str(sc.typeof(got)) == "float32[8@X,4@Y]"
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


# --- packbits / unpackbits (bit-exact) ------------------------------------------------------------------
def _pack(kw):
    return lambda ns, x: J(ns).packbits(x, **kw)


def _unpack(kw):
    return lambda ns, x: J(ns).unpackbits(x, **kw)


PACK_KW = [{}, {"axis": 0}, {"axis": -1, "bitorder": "little"}, {"axis": 1}]
UNPACK_KW = [{}, {"axis": 0}, {"axis": -1, "count": 5, "bitorder": "little"}, {"axis": 1, "count": 20},
             {"count": -3}]


def bits_cases():
    out = []
    for (i, kw), mesh in itertools.product(enumerate(PACK_KW), BASIC_MESHES):
        for dname in ("bool", "i32", "u8"):
            for t in _types(dname, mesh, ranks=(1, 2, 3) if kw.get("axis") != 1 else (2, 3), n=1, salt=f"p{i}"):
                out.append(Case(f"packbits{kw}-{mesh}-{t}", mesh, _pack(kw), (t,)))
    for (i, kw), mesh in itertools.product(enumerate(UNPACK_KW), BASIC_MESHES):
        for t in _types("u8", mesh, ranks=(1, 2, 3) if kw.get("axis") != 1 else (2, 3), n=2, salt=f"u{i}"):
            out.append(Case(f"unpackbits{kw}-{mesh}-{t}", mesh, _unpack(kw), (t,)))
    for i, mesh in enumerate(BASIC_MESHES):
        bits = Placed(value=np.random.default_rng(i).random((8, 12)) < 0.5, spec=("X",))
        out.append(Case(f"packbits-vals-{mesh}", mesh, _pack(PACK_KW[i + 1]), (bits,), mode="jit",
                        collectives="at_most", tol=EXACT))
        u8 = Placed(value=np.random.default_rng(i).integers(0, 256, (8, 4)).astype(np.uint8), spec=("X",))
        out.append(Case(f"unpackbits-vals-{mesh}", mesh, _unpack(UNPACK_KW[i + 1]), (u8,), mode="jit",
                        collectives="at_most", tol=EXACT))
    out += [Case("packbits-float", "1d", _pack({}), ("f32[8@X]",), expect="reject", kind=TypeError),
            Case("packbits-order", "1d", _pack({"bitorder": "middle"}), ("i32[8@X]",), expect="reject"),
            Case("unpackbits-i32", "1d", _unpack({}), ("i32[8@X]",), expect="reject", kind=TypeError),
            Case("unpackbits-order", "1d", _unpack({"bitorder": "x"}), ("u8[8@X]",), expect="reject")]
    return out


@param(bits_cases())
def test_packbits_unpackbits(case):
    check(case)


# --- histograms ------------------------------------------------------------------------------------------
def _hdd(kw):
    return lambda ns, s: J(ns).histogramdd(s, **kw)


def _hdd_w(ns, s, w):
    return J(ns).histogramdd(s, bins=3, weights=w, range=[(-2, 2)] * 3)


def _h2d(kw):
    return lambda ns, x, y: J(ns).histogram2d(x, y, **kw)


HDD_KW = [{"bins": 4, "range": [(-2, 2), (-1, 1), (-2, 2)]},
          {"bins": (2, 3, 4), "range": [(-2, 2), None, (-1, 3)], "density": True},
          {"bins": [np.array([-2, 0, 2.0]), 3, np.array([-1, 1.0])], "range": [None, (-2, 2), None]}]
H2D_KW = [{"bins": 5, "range": [(-2, 2), (-2, 2)]}, {"bins": (3, 4), "range": [(-2, 2), (-1, 1)], "density": True},
          {"bins": np.array([-2, -1, 0, 1, 2.0])}]


def histogram_cases():
    """A sample sharded along N: JAX 0.10.2's `searchsorted` fails on it (an implementation gap,
    `quirk`: shardc rejects it too)."""
    out = []
    for (i, kw), mesh in itertools.product(enumerate(HDD_KW), BASIC_MESHES):
        for dname in ("f32", "i32", "bf16"):
            spec = specs_for((16, 3), mesh)[(i + len(dname)) % len(specs_for((16, 3), mesh))]
            t = type_str(dname, (16, 3), spec)
            out.append(Case(f"histogramdd{i}-{mesh}-{dname}{spec}", mesh, _hdd(kw), (t,), quirk=_sharded(t)))
            out.append(Case(f"histogramdd{i}-{mesh}-{dname}", mesh, _hdd(kw), (type_str(dname, (16, 3), ()),)))
        if mesh == list(BASIC_MESHES)[i]:   # values: one mesh per keyword set
            out.append(Case(f"histogramdd{i}-vals-{mesh}", mesh, _hdd(kw), ("f32[16,3]",), mode="jit",
                            collectives="at_most", tol=(1e-5, 1e-6)))
    for (i, kw), mesh in itertools.product(enumerate(H2D_KW), BASIC_MESHES):
        out.append(Case(f"histogram2d{i}-{mesh}", mesh, _h2d(kw), ("f32[16@X]", "f32[16]"), quirk=True))
        out.append(Case(f"histogram2d{i}-mixed-{mesh}", mesh, _h2d(kw), ("i32[16]", "bf16[16]")))
    out.append(Case("histogram2d-vals", "2d", _h2d(H2D_KW[1]), ("f32[16]", "f32[16]"), mode="jit",
                    collectives="at_most", tol=(1e-5, 1e-6)))
    out.append(Case("histogramdd-weights", "1d", _hdd_w, ("f32[16,3]", "f32[16]"), mode="jit",
                    collectives="at_most", tol=(1e-5, 1e-6)))
    out.append(Case("histogramdd-bad-weights", "1d", _hdd_w, ("f32[16,3]", "f32[8]"), expect="reject"))
    out.append(Case("histogramdd-bad-range", "1d", _hdd({"range": [(-2, 2)]}), ("f32[16,3]",), expect="reject"))
    out.append(Case("histogramdd-bad-bins", "1d", _hdd({"bins": (2, 3)}), ("f32[16,3]",), expect="reject"))
    return out


@param(histogram_cases())
def test_histograms(case):
    check(case)


# --- poly / polymul / polydiv ------------------------------------------------------------------------------
def _poly(ns, r):
    return J(ns).poly(r)


def _polymul(ns, a, b):
    return J(ns).polymul(a, b)


def _polydiv(ns, a, b):
    return J(ns).polydiv(a, b)


def poly_cases():
    out = []
    for mesh in BASIC_MESHES:
        for d1, d2 in (("f32", "f32"), ("i32", "bf16"), ("bf16", "bf16"), ("bool", "i32")):
            out.append(Case(f"poly-{mesh}-{d1}", mesh, _poly, (f"{d1}[5]",)))
            out.append(Case(f"polymul-{mesh}-{d1}-{d2}", mesh, _polymul, (f"{d1}[5]", f"{d2}[3]")))
            out.append(Case(f"polydiv-{mesh}-{d1}-{d2}", mesh, _polydiv, (f"{d1}[6]", f"{d2}[3]")))
        out.append(Case(f"polymul-sharded-{mesh}", mesh, _polymul, ("f32[8@X]", "f32[3]")))
        out.append(Case(f"polydiv-sharded-{mesh}", mesh, _polydiv, ("f32[8@X]", "f32[3]")))
    out += [Case("poly-vals", "1d", _poly, (Placed(value=np.array([1.0, -2.0, 0.5, 3.0], np.float32)),), mode="jit",
                 tol=(1e-6, 1e-6)),
            Case("poly-scalar", "1d", _poly, ("f32[]",)),
            Case("poly-empty", "1d", _poly, ("f32[0]",)),
            Case("poly-3d", "1d", _poly, ("f32[2,2,2]",), expect="reject"),
            Case("poly-nonsquare", "1d", _poly, ("f32[2,3]",), expect="reject"),
            Case("polymul-vals", "2d", _polymul, ("f32[8@X]", "f32[3]"), mode="jit", collectives="at_most",
                 tol=(1e-5, 1e-5)),
            Case("polymul-empty", "2d", _polymul, ("f32[0]", "f32[3]")),
            Case("polydiv-vals", "3d", _polydiv, (Placed(value=np.arange(1, 7, dtype=np.float32)),
                                                  Placed(value=np.array([2.0, -1.0, 0.5], np.float32))),
                 mode="jit", tol=(1e-5, 1e-5))]
    return out


@param(poly_cases())
def test_polynomials(case):
    check(case)


def test_poly_of_a_matrix_is_its_characteristic_polynomial():
    """A square matrix: the polynomial of its eigenvalues (`linalg.eigvals`, complex), as JAX."""
    x = np.array([[1.0, 2, 3], [4, 5, 6], [1, 3, 5]], np.float32)
    for a in (x, np.eye(2, dtype=np.int32)):
        ours, theirs = np.asarray(snp.poly(a)), np.asarray(jnp.poly(a))
        assert ours.dtype == theirs.dtype == np.complex64
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)


# --- kaiser, r_/c_, printing, host constructors (eager, against JAX's values) --------------------------------
def _same(ours, theirs, exact=True):
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape, (ours, theirs)
    if exact:
        np.testing.assert_array_equal(ours, theirs)
    else:
        np.testing.assert_allclose(ours, theirs, rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("M,beta", [(0, 1.0), (1, 2.0), (2, 0.0), (12, 14.0)])
def test_kaiser(M, beta):
    got = sc.jit(lambda b: snp.kaiser(M, b))(np.float32(beta))
    _same(got, jax.jit(jnp.kaiser, static_argnums=0)(M, np.float32(beta)), exact=False)
    assert str(sc.typeof(got)) == str(jax.typeof(jnp.kaiser(M, beta)))


INDEX_TRICKS = [
    np.s_[1:4, [7, 8], 0], np.s_[0:1:5j], np.s_[np.array([[1, 2]]), np.array([[3, 4]])],
    np.s_["r", [1, 2], [3, 4]], np.s_["c", [1, 2], [3, 4]], np.s_["0,2,1", [1, 2], [3, 4]],
    np.s_["1,2", np.array([[1, 2]]), np.array([[3, 4]])], np.s_["-1,3,0", [1.5, 2], 7],
    np.s_[np.float32(2.5), [1, 2]], np.s_[2:5], np.s_[3.0, 1:3]]


@pytest.mark.parametrize("i", range(len(INDEX_TRICKS)))
def test_r_and_c(i):
    key = INDEX_TRICKS[i]
    for ours, theirs in ((snp.r_, jnp.r_), (snp.c_, jnp.c_)):
        try:
            want = theirs[key]
        except TypeError:   # shapes that do not concatenate (JAX's TypeError)
            with pytest.raises((TypeError, ValueError)):
                ours[key]
            continue
        got = ours[key]
        _same(got, want)
        assert sc.typeof(got).weak_type == jax.typeof(want).weak_type


def test_r_errors_as_jax():
    for bad in (np.s_["r", 1, "c"], np.s_["x,y", 1]):
        with pytest.raises(ValueError):
            jnp.r_[bad]
        with pytest.raises(ValueError):
            snp.r_[bad]


def test_r_inside_a_program():
    def f(ns, x):
        return J(ns).r_[x, 0.0, x * 2]
    check(Case("r_-traced", "1d", f, ("f32[8@X]",), mode="jit", collectives="at_most", tol=EXACT))


@pytest.mark.parametrize("value", [np.arange(12, dtype=np.float32).reshape(3, 4) / 7, np.arange(5, dtype=np.int32),
                                   np.ones((2, 2, 2), bool), np.linspace(-1e6, 1e-6, 8).astype(np.float32)])
def test_array_repr_and_str(value, mesh24):
    want_repr, want_str = jnp.array_repr(jnp.asarray(value)), jnp.array_str(jnp.asarray(value))
    with sc.set_mesh(mesh24):
        a = sc.asarray(value)
        if value.ndim == 2 and value.shape[0] % 2 == 0:
            a = sc.device_put(a, sc.P("X"))
        assert snp.array_repr(a) == want_repr
        assert snp.array_str(a) == want_str
        assert snp.array_repr(a, precision=2) == jnp.array_repr(jnp.asarray(value), precision=2)
    assert snp.array_repr(value) == jnp.array_repr(value)


def test_host_constructors():
    buf = np.arange(6, dtype=np.float32).tobytes()
    _same(snp.frombuffer(buf, dtype=np.float32), jnp.frombuffer(buf, dtype=np.float32))
    _same(snp.frombuffer(buf, dtype=np.uint8, count=5, offset=2), jnp.frombuffer(buf, dtype=np.uint8, count=5, offset=2))
    _same(snp.fromstring("1 2 3 4", dtype=np.int32, sep=" "), jnp.fromstring("1 2 3 4", dtype=np.int32, sep=" "))
    _same(snp.fromstring("1.5,2", sep=","), jnp.fromstring("1.5,2", sep=","))
    with pytest.raises(NotImplementedError, match="non-pure"):
        snp.fromiter(iter([1, 2]), dtype=np.int32)
    with pytest.raises(NotImplementedError, match="non-pure"):
        jnp.fromiter(iter([1, 2]), dtype=np.int32)


# --- jax.Array methods that mirror functions (every public jax.Array method is an sc.Array one) ---------
def test_array_has_every_jax_array_method():
    names = {n for n in dir(jax.Array) if not n.startswith("_")}
    assert names <= {n for n in dir(sc.Array) if not n.startswith("_")}
    assert names <= {n for n in dir(sc.core.Tracer) if not n.startswith("_")}


def _method(name, *args, **kw):
    def fn(ns, x):
        return getattr(x, name)(*args, **kw)
    fn.__name__ = name
    return fn


IDX = np.array([3, 0, 1], np.int32)
METHODS = [
    ("std", (), {}), ("std", (0,), {"ddof": 1}), ("var", (1,), {"keepdims": True}), ("var", (), {"correction": 1}),
    ("ptp", (0,), {}), ("clip", (-0.5, 0.5), {}), ("clip", (None, 1), {}), ("round", (), {}),
    ("cumprod", (0,), {}), ("cumsum", (), {}), ("swapaxes", (0, -1), {}), ("diagonal", (), {}),
    ("trace", (), {"offset": 1}), ("repeat", (2,), {"axis": 0}), ("take", (IDX,), {"axis": -1}),
    ("copy", (), {}), ("byteswap", (), {}), ("view", (np.int32,), {}), ("view", (np.uint8,), {}),
    ("sum", (0,), {"dtype": np.float32}), ("prod", (), {"keepdims": True}), ("max", (-1,), {}),
    ("min", (), {"keepdims": True}), ("mean", (0,), {}), ("argmax", (0,), {"keepdims": True}),
    ("argmin", (-1,), {}), ("any", (0,), {}), ("all", (), {}), ("ravel", (), {}),
    ("flatten", (), {}), ("argpartition", (1,), {}), ("compress", (np.array([True, False, True, True]),),
                                                        {"axis": -1}),
    ("astype", (np.int32,), {}), ("reshape", (-1,), {}), ("reshape", (2, -1), {"out_sharding": None}),
]
#: order='F' on replicated operands (on sharded ones JAX refuses the reshape; shardc's `reshape(order='F')`
#: accepts some: reported, not shardc.numpy_more's)
F_ORDER = [("ravel", (), {"order": "F"}), ("flatten", (), {"order": "F"}), ("reshape", (4, -1), {"order": "F"})]


def method_cases():
    out = []
    for i, (name, args, kw) in enumerate(METHODS):
        mesh = ("1d", "2d", "3d")[i % 3]
        for dname in ("f32", "i32", "bool", "bf16"):
            ranks = (2, 3) if name in ("diagonal", "trace", "swapaxes") else (1, 2, 3)
            for t in _types(dname, mesh, ranks=ranks, n=1, salt=f"m{i}"):
                out.append(Case(f"x.{name}{i}-{mesh}-{t}", mesh, _method(name, *args, **kw), (t,)))
        t = "f32[8@X,4]" if name not in ("take", "compress", "argpartition") else "f32[8,4@X]"
        out.append(Case(f"x.{name}{i}-vals-{mesh}", mesh, _method(name, *args, **kw), (t,), mode="jit",
                        collectives="at_most", tol=EXACT if name not in ("std", "var", "mean") else (1e-5, 1e-6)))
    for i, (name, args, kw) in enumerate(F_ORDER):
        for mesh, r in itertools.product(BASIC_MESHES, (2, 3)):
            out.append(Case(f"x.{name}-F-{mesh}-{r}", mesh, _method(name, *args, **kw), (type_str("f32", SHAPES[r], ()),)))
        out.append(Case(f"x.{name}-F-vals", "2d", _method(name, *args, **kw), ("f32[8,4]",), mode="jit", tol=EXACT))
    out.append(Case("x.sum-out", "1d", _method("sum", out=np.zeros(())), ("f32[8@X]",), expect="reject",
                    kind=NotImplementedError))
    out.append(Case("x.view-0d", "1d", _method("view", np.uint8), ("f32[]",), expect="reject"))
    out.append(Case("x.view-divisor", "1d", _method("view", np.int32), ("u8[8,3]",), expect="reject"))
    out.append(Case("x.ravel-order", "1d", _method("ravel", order="K"), ("f32[8@X]",), expect="reject"))
    return out


@param(method_cases())
def test_array_methods(case):
    check(case)


def test_flat_and_placement_as_jax(mesh24):
    x = np.arange(32, dtype=np.float32).reshape(8, 4)
    with pytest.raises(NotImplementedError, match="flat"):
        sc.asarray(x).flat
    with pytest.raises(NotImplementedError, match="flat"):
        jnp.asarray(x).flat
    with sc.set_mesh(mesh24):
        a = sc.device_put(x, sc.P("X", "Y"))
        assert a.device == a.sharding and len(a.global_shards) == 8
        b = a.to_device(sc.NamedSharding(mesh24, sc.P(None, "Y")))
        assert str(sc.typeof(b)) == "float32[8,4@Y]" and b.device == b.sharding
        np.testing.assert_array_equal(np.asarray(b), x)
        with pytest.raises(AttributeError, match="'device' attribute is not available"):
            sc.jit(lambda t: t.device)(a)


# --- jnp.ufunc / frompyfunc (JAX's generic methods) ---------------------------------------------------------
def _uf(ns, kind):
    import operator
    m = J(ns)
    if kind == "add":
        return m.frompyfunc(operator.add, nin=2, nout=1, identity=0)
    if kind == "fma":
        return m.frompyfunc(lambda a, b: a * b + 1, 2, 1)
    return m.frompyfunc(lambda a: (a + 1, a * 2), 1, 2)   # two outputs


UFUNC_CALLS = {
    "call": lambda u, x: u(x, 2),
    "call-two-out": lambda u, x: u(x),
    "reduce": lambda u, x: u.reduce(x),
    "reduce-axis-1": lambda u, x: u.reduce(x, axis=-1, keepdims=True),
    "reduce-none": lambda u, x: u.reduce(x, axis=None),
    "reduce-initial": lambda u, x: u.reduce(x, axis=0, initial=3),
    "reduce-where": lambda u, x: u.reduce(x, axis=0, where=x > 0, initial=0),
    "accumulate": lambda u, x: u.accumulate(x, axis=-1),
    "accumulate-0": lambda u, x: u.accumulate(x),
    "at": lambda u, x: u.at(x, np.array([0, 2, 2], np.int32), 5, inplace=False),
    "at-scalar": lambda u, x: u.at(x, 1, 5, inplace=False),
    "reduceat": lambda u, x: u.reduceat(x, np.array([0, 2, 3], np.int32), axis=0),
    "outer": lambda u, x: u.outer(x[:3], x[:2]),
}


def _ufunc_case(kind, call):
    return lambda ns, x: UFUNC_CALLS[call](_uf(ns, kind), x)


def ufunc_cases():
    out = []
    for i, (call, kind) in enumerate(itertools.product(UFUNC_CALLS, ("add", "fma"))):
        if call == "call-two-out":
            kind = "two" if kind == "add" else None
            if kind is None:
                continue
        mesh = ("1d", "2d", "3d")[i % 3]
        for dname in ("f32", "i32", "bf16"):
            # JAX's `at` takes a Python-int index traced (a dynamic_slice): on sharded operands its
            # error names dynamic_slice, shardc's static slicing; both reject (compared on replicated)
            for t in (_types(dname, mesh, ranks=(1, 2), n=1, salt=f"uf{i}") if call != "at-scalar"
                      else [type_str(dname, (8, 4), ())]):
                out.append(Case(f"ufunc-{kind}-{call}-{mesh}-{t}", mesh, _ufunc_case(kind, call), (t,)))
        out.append(Case(f"ufunc-{kind}-{call}-vals-{mesh}", mesh, _ufunc_case(kind, call), ("f32[4,8]",), mode="jit",
                        collectives="at_most", tol=(1e-5, 1e-5)))
    out += [Case("ufunc-reduce-no-identity-where", "1d", lambda ns, x: _uf(ns, "fma").reduce(x, where=x > 0),
                 ("f32[8]",), expect="reject"),
            Case("ufunc-at-inplace", "1d", lambda ns, x: _uf(ns, "add").at(x, 0, 1), ("f32[8]",), expect="reject"),
            Case("ufunc-reduce-unary", "1d", lambda ns, x: _uf(ns, "two").reduce(x), ("f32[8]",), expect="reject")]
    return out


@param(ufunc_cases())
def test_ufunc(case):
    check(case)


def test_ufunc_object_as_jax():
    import operator
    ours, theirs = snp.frompyfunc(operator.mul, 2, 1, identity=1), jnp.frompyfunc(operator.mul, 2, 1, identity=1)
    assert repr(ours) == repr(theirs) and (ours.nin, ours.nout, ours.nargs, ours.identity) == (
        theirs.nin, theirs.nout, theirs.nargs, theirs.identity)
    assert ours == snp.frompyfunc(operator.mul, 2, 1, identity=1) and hash(ours) == hash(
        snp.frompyfunc(operator.mul, 2, 1, identity=1))
    assert isinstance(ours, snp.ufunc)


# --- Python scalars and weak types (JAX's promotion of each function) ---------------------------------------
SCALAR_CASES = {
    "frexp-py": lambda ns, x: J(ns).frexp(2.5),
    "spacing-py": lambda ns, x: J(ns).spacing(1.0) + 0 * x,
    "nextafter-py-arr": lambda ns, x: J(ns).nextafter(1, x),
    "nextafter-arr-py": lambda ns, x: J(ns).nextafter(x, 3),
    "ldexp-py-arr": lambda ns, x: J(ns).ldexp(1.5, x.astype(J(ns).int32)),
    "ldexp-arr-py": lambda ns, x: J(ns).ldexp(x, 2),
    "ldexp-float-exp": lambda ns, x: J(ns).ldexp(x, 2.0),
    "i0-py": lambda ns, x: J(ns).i0(0.5),
    "i0-int": lambda ns, x: J(ns).i0(x.astype(J(ns).int32)),
    "interp-py-x": lambda ns, x: J(ns).interp(0.3, XP, FP),
    "interp-int-fp": lambda ns, x: J(ns).interp(x, XP, np.arange(9, dtype=np.int32)),
    "interp-period-arr": lambda ns, x: J(ns).interp(x, XP, FP, period=J(ns).asarray(1.5)),
    "piecewise-py-consts": lambda ns, x: J(ns).piecewise(x, [x > 0], [1.5, 2]),
    "packbits-bool-scalar": lambda ns, x: J(ns).packbits(x > 0, axis=None),
    "poly-int": lambda ns, x: J(ns).poly(np.array([1, 2, 3], np.int32)),
    "polymul-py": lambda ns, x: J(ns).polymul(x[:3], np.array([1.0, 2.0])),
    "polydiv-bf16": lambda ns, x: J(ns).polydiv(x.astype(J(ns).bfloat16)[:5], np.array([1.0, 2.0], np.float32)),
}


@pytest.mark.parametrize("name", list(SCALAR_CASES))
def test_scalars_and_weak_types(name):
    check(Case(f"scalar-{name}", "2d", SCALAR_CASES[name], ("f32[8]",)))


LAX_NEXTAFTER = {
    "py-scalar": (lambda ns, x, y: L(ns).nextafter(x, 1.0), ("f32[8@X,4]", "f32[4]")),
    "rank-mismatch": (lambda ns, x, y: L(ns).nextafter(x, y), ("f32[8@X,4]", "f32[4]")),
    "dtype-mismatch": (lambda ns, x, y: L(ns).nextafter(x, y.astype(J(ns).bfloat16)), ("f32[8@X,4]", "f32[8,4]")),
    "shardings": (lambda ns, x, y: L(ns).nextafter(x, y), ("f32[8@X,4]", "f32[8,4@Y]")),
    "shardings-clash": (lambda ns, x, y: L(ns).nextafter(x, y), ("f32[8@X,4]", "f32[8@Y,4]")),
    "i0e-int": (lambda ns, x, y: L(ns).bessel_i0e(y.astype(J(ns).int32)), ("f32[8@X,4]", "f32[8,4]")),
}


@pytest.mark.parametrize("name", list(LAX_NEXTAFTER))
def test_lax_rules(name):
    fn, args = LAX_NEXTAFTER[name]
    check(Case(f"lax-{name}", "2d", fn, args))


ERRORS = {
    "packbits-axis": (lambda ns, x: J(ns).packbits(x > 0, axis=3), ("f32[8,4]",)),
    "unpackbits-axis": (lambda ns, x: J(ns).unpackbits(x.astype(J(ns).uint8), axis=-3), ("f32[8,4]",)),
    "histogramdd-1d": (lambda ns, x: J(ns).histogramdd(x), ("f32[8]",)),
    "interp-period-array": (lambda ns, x: J(ns).interp(x, XP, FP, period=np.ones(2)), ("f32[8]",)),
    "ldexp-complex-free-float": (lambda ns, x: J(ns).ldexp(x.astype(J(ns).int32), x), ("f32[8]",)),
    "polymul-2d": (lambda ns, x: J(ns).polymul(x, x), ("f32[2,4]",)),
    "kaiser-traced-M": (lambda ns, x: J(ns).kaiser(x.shape[0], x[0]), ("f32[8]",)),
    "i0-bool": (lambda ns, x: J(ns).i0(x > 0), ("f32[8]",)),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_and_edges(name):
    fn, args = ERRORS[name]
    # JAX prints the traced period (`JitTracer(float32[2])`), shardc the constant's values
    phrase = "period must be a scalar" if name == "interp-period-array" else None
    check(Case(f"edge-{name}", "1d", fn, args, phrase=phrase))
