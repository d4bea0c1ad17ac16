"""`shardc.image` against `jax.image` (0.10.2): `resize` with every method JAX has, `scale_and_translate`,
on sharded images over 1-D to 3-D meshes. The big table compares the traced output types
(accept/reject with the error class and key phrase, `str(typeof)`); a subset compiles and runs both and
compares values (JAX's tolerances by dtype), output shardings and the collectives of the compiled
programs (equal to JAX's by kind); resize also under `grad` and `vmap`."""
from __future__ import annotations

import jax
import pytest
from oracle import BASIC_MESHES, Case, check, param, sample, sample_product, spec_id, specs_for, type_str

import shardc as sc

METHODS = ["nearest", "linear", "bilinear", "trilinear", "cubic", "bicubic", "tricubic", "cubic-pytorch",
           "lanczos3", "lanczos5", "area", sc.image.ResizeMethod.LINEAR]
#: (input shape, output shape): down- and up-sampling, one or several resized dims, ranks 1 to 4
SHAPES = [((8,), (16,)), ((16,), (5,)), ((8, 8), (4, 8)), ((8, 8), (16, 16)), ((8, 16), (5, 8)),
          ((4, 8, 8), (4, 16, 4)), ((2, 8, 8, 4), (2, 16, 16, 4)), ((2, 8, 8, 4), (2, 4, 6, 4))]
DTYPES = ["f32", "bf16"]


def _mname(m) -> str:
    return m if isinstance(m, str) else f"RM.{m.name}"


def _resize(out_shape, method, antialias):
    def prog(ns, x):
        return ns.image.resize(x, out_shape, method, antialias=antialias)
    return prog


def _resize_cases(mode: str) -> list[Case]:
    cases = []
    for mesh_name in BASIC_MESHES:
        for (ins, outs), method, antialias, dtype in sample_product(
                [SHAPES, METHODS, [True, False], DTYPES], 26, salt=mesh_name + mode):
            specs = specs_for(ins, BASIC_MESHES[mesh_name], max_axes_per_dim=2)
            for (s,) in sample_product([specs], 2, salt=f"{mesh_name}{ins}{outs}{_mname(method)}{dtype}"):
                cases.append(Case(
                    f"{mesh_name}-{dtype}{list(ins)}{spec_id(s)}->{list(outs)}-{_mname(method)}-aa{int(antialias)}",
                    mesh_name, _resize(outs, method, antialias), args=(type_str(dtype, ins, s),), mode=mode))
    return cases


TRACE = _resize_cases("trace")


@param(TRACE)
def test_resize_types_as_jax(case):
    check(case)


#: compiled and run on both sides: values, output shardings, collectives
RUN = [Case(f"run-{c.id}", c.mesh, c.fn, args=c.args, mode="jit")
       for c in sample(TRACE, 14, salt="values")] + [
    Case(f"run-2d-{dt}-{_mname(m)}-aa{int(aa)}", "2d", _resize(outs, m, aa),
         args=(type_str(dt, ins, spec),), mode="jit")
    for (ins, outs, spec), m, aa, dt in [
        (((8, 16), (12, 8), ("X", "Y")), "lanczos3", True, "f32"),
        (((8, 16), (12, 8), (None, "Y")), "lanczos5", False, "f32"),
        (((8, 16), (12, 8), ("X", None)), "cubic-pytorch", False, "f32"),
        (((8, 16), (4, 32), ("Y", None)), "area", True, "f32"),
        (((2, 8, 8, 4), (2, 16, 16, 4), ("X", None, None, "Y")), "bilinear", True, "bf16"),
        (((2, 8, 8, 4), (2, 5, 3, 4), ("X", None, None, "Y")), "bicubic", True, "f32"),
        (((8, 8), (16, 8), (None, "Y")), "nearest", True, "i32"),
        (((8, 8), (3, 8), (None, "X")), "linear", True, "i32"),
    ]]


@param(RUN)
def test_resize_values_as_jax(case):
    check(case)


def _scale_translate(out_shape, dims, scale, translation, method, antialias):
    def prog(ns, x):
        s = ns.asarray(scale, dtype=ns.float32)
        t = ns.asarray(translation, dtype=ns.float32)
        return ns.image.scale_and_translate(x, out_shape, dims, s, t, method, antialias=antialias)
    return prog


SCALE = [
    Case(f"st-{mode}-{mesh}-{_mname(m)}-aa{int(aa)}-{i}", mesh, _scale_translate(outs, dims, sc_, tr, m, aa),
         args=(arg,), mode=mode)
    for i, (mesh, arg, outs, dims, sc_, tr) in enumerate([
        ("2d", "f32[8@X,16]", (12, 16), (0,), [1.5], [0.25]),
        ("2d", "f32[8,16@Y]", (8, 8), (1,), [0.5], [-1.0]),
        ("3d", "f32[2@X,8,8,4@Y]", (2, 16, 12, 4), (1, 2), [2.0, 1.5], [0.0, 0.5]),
        ("1d", "bf16[8,8@X]", (8, 8), (0, 1), [0.75, 1.25], [1.0, -0.5]),
    ])
    for m, aa in [("linear", True), ("cubic", False), ("lanczos3", True), ("cubic-pytorch", False), ("area", True)]
    for mode in (("trace", "jit") if (i + len(m)) % 3 == 0 else ("trace",))
]


@param(SCALE)
def test_scale_and_translate_as_jax(case):
    check(case)


def _grad_of_resize(out_shape, method):
    def prog(ns, x):
        return ns.grad(lambda v: ns.sum(ns.image.resize(v, out_shape, method) ** 2))(x)
    return prog


def _vmap_of_resize(out_shape, method):
    def prog(ns, x):
        return ns.vmap(lambda v: ns.image.resize(v, out_shape, method))(x)
    return prog


TRANSFORMED = [
    Case(f"{kind}-{method}-{mode}", "2d", make(outs, method), args=(arg,), mode=mode)
    for kind, make, method, outs, arg, modes in [
        ("grad", _grad_of_resize, "linear", (16, 8), "f32[8@X,8@Y]", ("trace", "jit")),
        ("grad", _grad_of_resize, "nearest", (16, 8), "f32[8,8@Y]", ("trace",)),
        ("grad", _grad_of_resize, "lanczos3", (5, 16), "f32[8@X,8]", ("trace",)),
        ("vmap", _vmap_of_resize, "linear", (16, 4), "f32[2@X,8,8@Y]", ("trace", "jit")),
        ("vmap", _vmap_of_resize, "nearest", (16, 8), "f32[2@X,8,8@Y]", ("trace",)),
    ]
    for mode in modes
]


@param(TRANSFORMED)
def test_resize_under_grad_and_vmap_as_jax(case):
    check(case)


REFUSED = [
    Case("unknown-method", "2d", _resize((4, 4), "bogus", True), args=("f32[8@X,8]",), expect="reject",
         kind=ValueError),
    Case("rank-mismatch", "2d", _resize((4,), "linear", True), args=("f32[8@X,8]",), expect="reject",
         kind=ValueError),
    Case("nearest-gathers-sharded-dim", "2d", _resize((4, 8), "nearest", True), args=("f32[8@X,8]",),
         expect="reject", kind="ShardingTypeError"),
    Case("nearest-unsharded-dim", "2d", _resize((16, 8), "nearest", True), args=("f32[8,8@Y]",),
         expect="accept"),
    Case("scale-translate-nearest", "2d", _scale_translate((8, 8), (0,), [1.0], [0.0], "nearest", True),
         args=("f32[8@X,8]",), expect="reject", kind=ValueError),
    Case("float-in-shape", "2d", _resize((8.0, 8), "linear", True), args=("f32[8@X,8]",), expect="reject",
         kind=TypeError),
    Case("scale-as-list", "2d", lambda ns, x: ns.image.scale_and_translate(x, (16, 8), (0,), [2.0], [0.0], "linear"),
         args=("f32[8@X,8]",), expect="reject", kind=TypeError),
    Case("fewer-scales-than-dims", "2d", _scale_translate((16, 16), (0, 1), [2.0], [0.0], "linear", True),
         args=("f32[8@X,8]",), expect="reject", kind=AssertionError),
]


@param(REFUSED)
def test_resize_errors_as_jax(case):
    check(case)


def test_resize_method_enum_is_jaxs():
    assert sc.image.ResizeMethod is jax.image.ResizeMethod
    assert set(sc.image.__all__) == {n for n in dir(jax.image) if not n.startswith("_")}


def test_eager_resize_of_host_data():
    """Outside any mesh, on NumPy data, as a JAX user calls it."""
    import numpy as np
    x = np.random.RandomState(3).rand(3, 8, 8).astype(np.float32)
    for method in ("lanczos3", "nearest"):
        ours = sc.image.resize(x, (3, 5, 12), method)
        theirs = jax.image.resize(x, (3, 5, 12), method)
        assert str(sc.typeof(ours)) == str(jax.typeof(theirs))
        np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-5, atol=1e-6)
    with pytest.raises(sc.ShardcValueError, match=r"test_image\.py:\d+: Unknown resize method"):   # the user's line
        sc.image.resize(x, (3, 5, 12), "bogus")
