"""Differential: JAX's 8-bit and 4-bit floats (`float8_e4m3fn`, `float8_e5m2`, `float8_e4m3b11fnuz`,
`float8_e4m3fnuz`, `float8_e5m2fnuz`, `float8_e3m4`, `float8_e4m3`, `float8_e8m0fnu`, `float4_e2m1fn`;
shardc/dtypes.py) as shardc dtypes end to end, against JAX 0.10.2: `str(typeof)` (JAX spells them
out: `float8_e4m3fn[4]`), conversion from and to float32 (values bit-exact: XLA rounds both
sides), arithmetic with their own dtype and with weak Python scalars, comparisons, reductions,
creation (`zeros`, `ones`, `full`, `arange`), sharded operands on Explicit meshes, and JAX's
promotion rules (an 8-bit float promotes with nothing but weak scalars, bool and the integers below
`f*` on JAX's lattice: JAX's
TypePromotionError "8-bit floats do not support implicit promotion"; 4-bit likewise), the
MLIR spelling (`f8E4M3FN`, ...) of the lowered module and host transfer (`device_put` of an
ml_dtypes array and back)."""
from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
from oracle import JAX, Case, check, param

import shardc as sc
import shardc.numpy as snp

SMALL = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3b11fnuz", "float8_e4m3fnuz", "float8_e5m2fnuz",
         "float8_e3m4", "float8_e4m3", "float8_e8m0fnu", "float4_e2m1fn"]
MLIR = {"float8_e4m3fn": "f8E4M3FN", "float8_e5m2": "f8E5M2", "float8_e4m3b11fnuz": "f8E4M3B11FNUZ",
        "float8_e4m3fnuz": "f8E4M3FNUZ", "float8_e5m2fnuz": "f8E5M2FNUZ", "float8_e3m4": "f8E3M4",
        "float8_e4m3": "f8E4M3", "float8_e8m0fnu": "f8E8M0FNU", "float4_e2m1fn": "f4E2M1FN"}


def M(ns):
    return jnp if ns is JAX else snp


def _prog(kind: str, d: str):
    """A program over f32 arguments that computes in dtype `d`."""
    def f(ns, x, y):
        m = M(ns)
        dt_ = getattr(m, d)
        a, b = x.astype(dt_), y.astype(dt_)
        if kind == "convert":
            return a, a.astype(m.float32), a.astype(m.bfloat16)
        if kind == "add":
            return a + b, a - b, a * b
        if kind == "weak":
            return a * 2.0, a + 1, 0.5 * a, a / 2
        if kind == "compare":
            return a > b, a == b, m.maximum(a, b), m.where(a > b, a, b)
        if kind == "reduce":
            return m.sum(a), m.max(a, axis=0), m.min(a)
        if kind == "unary":
            return m.abs(a), -a
        if kind == "create":
            shape = x.shape
            return m.zeros(shape, dt_), m.ones(shape, dt_), m.full(shape, 2.0, dt_), m.arange(4, dtype=dt_)
        if kind == "mixed-f32":
            return a + x
        if kind == "mixed-bf16":
            return a + y.astype(m.bfloat16)
        if kind == "mixed-other":
            other = "float8_e5m2" if d != "float8_e5m2" else "float8_e4m3fn"
            return a + y.astype(getattr(m, other))
        if kind == "mixed-i32":
            return a + y.astype(m.int32)
        if kind == "mixed-bool":
            return a * (y > 0)
        raise AssertionError(kind)
    return f


KINDS = ["convert", "add", "weak", "compare", "reduce", "unary", "create"]
REJECTS = ["mixed-f32", "mixed-bf16", "mixed-other"]


def type_cases():
    cases = []
    meshes = (("1d", ("f32[8@X,4]", "f32[8@X,4]")), ("2d", ("f32[8@X,4@Y]", "f32[8@X,4@Y]")))
    for k, (d, kind) in enumerate(itertools.product(SMALL, KINDS + REJECTS + ["mixed-bool", "mixed-i32"])):
        mesh, args = meshes[k % 2]   # (each dtype and kind on one mesh, alternating)
        cases.append(Case(f"{d}-{kind}-{mesh}", mesh, _prog(kind, d), args,
                          expect="reject" if kind in REJECTS else "accept"))
    return cases


@param(type_cases())
def test_float8_types(case):
    check(case, "trace")


def value_cases():
    cases = [Case(f"{d}-{kind}", "2d", _prog(kind, d), ("f32[8@X,4@Y]", "f32[8@X,4@Y]"), tol=(0, 0))
             for d in SMALL for kind in ("convert", "add", "weak")]
    cases += [Case(f"{d}-{kind}", "1d", _prog(kind, d), ("f32[8@X,4]", "f32[8@X,4]"), tol=(0, 0))
              for d in ("float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu", "float4_e2m1fn")
              for kind in ("compare", "reduce", "unary", "create")]
    return cases


@param(value_cases())
def test_float8_values(case):
    check(case, "jit")


@pytest.mark.parametrize("d", SMALL)
def test_float8_promotion_and_names(d):
    """`result_type` / `promote_types` as JAX's, JAX's TypePromotionError wording, `finfo`,
    the short and MLIR names, and `jnp.<name>` as a dtype."""
    jd, sd = getattr(jnp, d), getattr(snp, d)
    assert np.dtype(sd) == np.dtype(jd)
    for other in (float, int, bool, jnp.bool_, jnp.float8_e4m3fn, jnp.float32, jnp.bfloat16, jnp.int8, jnp.uint8):
        try:
            want = jnp.result_type(jd, other)
        except Exception as e:  # noqa: BLE001 - the error is compared
            with pytest.raises(sc.dtypes.TypePromotionError) as got:
                snp.result_type(sd, other)
            assert ("bit floats do not support implicit promotion" in str(e)) == \
                   ("bit floats do not support implicit promotion" in str(got.value)), (str(e), str(got.value))
            continue
        assert snp.result_type(sd, other) == want, (d, other)
    assert snp.finfo(sd).eps == jnp.finfo(jd).eps
    x = np.arange(4, dtype=np.float32).astype(np.dtype(jd))
    text = sc.jit(lambda a: a + a).lower(sc.device_put(x)).as_text()
    assert f"tensor<4x{MLIR[d]}>" in text
    assert MLIR[d] in jax.jit(lambda a: a + a).lower(x).as_text()


@pytest.mark.parametrize("d", ["float8_e4m3fn", "float8_e8m0fnu", "float4_e2m1fn"])
def test_float8_transfer(d):
    """An ml_dtypes host array goes onto the mesh (sharded) and comes back bit for bit, as in JAX;
    its non-finite and special values survive (e8m0's NaN, fn's NaN)."""
    dtype = np.dtype(getattr(ml_dtypes, d))
    vals = np.array([0.5, 1.0, 2.0, 4.0, np.nan, 0.25, 1.5, 3.0], np.float32).astype(dtype).reshape(8, 1)
    vals = np.tile(vals, (1, 4))
    mesh = sc.make_mesh((2, 4), ("X", "Y"))
    with sc.set_mesh(mesh):
        a = sc.device_put(vals, sc.P("X", "Y"))
        assert str(sc.typeof(a)) == f"{d}[8@X,4@Y]"
        back = np.asarray(a)
        doubled = np.asarray(sc.jit(lambda v: v * 2.0)(a))
    want = np.asarray(jax.jit(lambda v: v * 2.0)(vals))
    assert back.dtype == dtype and doubled.dtype == dtype
    np.testing.assert_array_equal(back.view(np.uint8), vals.view(np.uint8))
    np.testing.assert_array_equal(doubled.view(np.uint8), want.view(np.uint8))
    # a constant of the dtype inside a program (written by its bits)
    const = np.asarray(sc.jit(lambda: snp.asarray(vals))())
    np.testing.assert_array_equal(const.view(np.uint8), vals.view(np.uint8))
