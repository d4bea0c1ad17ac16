"""Differential: the convolution family against JAX 0.10.2.

`lax.conv_general_dilated` over 1-D/2-D/3-D spatial dims, three layouts (NCH.. / OIH.., channels
last N..C / ..IO, and NHWC in, OIHW kernel, NCHW out), strides, SAME / VALID / SAME_LOWER / explicit
(negative too) padding, lhs and rhs dilation, feature and batch groups, `preferred_element_type`,
f32/bf16/f16/i32, and operand shardings on 1-D/2-D/3-D meshes (batch dim on one or all axes,
feature dim, a spatial dim, the kernel, `out_sharding`): accept/reject with JAX's error class and
phrase and `str(typeof)` by tracing (a sampled table), then values, output shardings and
collectives compiled on a subset, gradients in lhs and rhs against `jax.grad`, `vmap` over either
or both operands, JAX's shape-rule errors, the wrappers (`conv`, `conv_with_general_padding`,
`conv_transpose`, `conv_general_dilated_patches`, `conv_general_dilated_local`) and shape helpers,
`jnp.convolve` / `jnp.correlate`, and the `stablehlo.convolution` text JAX emits.
"""
from __future__ import annotations

import itertools
import re

import jax
import numpy as np
import pytest
from oracle import Case, MeshSpec, check, check_types, check_values, param, sample_product, smap_case
from oracle import S as Spec

import shardc as sc

# --- the big table ------------------------------------------------------------------------------
SPATIAL = "HWD"
AXES = {"1d": ("X",), "2d": ("X", "Y"), "3d": ("X", "Y", "Z")}
#: (lhs, rhs, out) layout strings for n spatial dims; None: the default (NC.. / OI.. / NC..)
LAYOUTS = {
    "nchw": lambda n: None,
    "nhwc": lambda n: ("N" + SPATIAL[:n] + "C", SPATIAL[:n] + "IO", "N" + SPATIAL[:n] + "C"),
    "mixed": lambda n: ("N" + SPATIAL[:n] + "C", "OI" + SPATIAL[:n], "NC" + SPATIAL[:n]),
}
N, C, O, S = 8, 8, 8, 8   # batch, features, output features, spatial size (all divisible by every mesh axis)
#: name -> (kernel spatial size, kwargs of conv_general_dilated (strides/padding per spatial dim), groups)
KINDS = {
    "same": (3, lambda n: dict(window_strides=(1,) * n, padding="SAME"), 1, 1),
    "valid-s2": (3, lambda n: dict(window_strides=(2,) * n, padding="VALID"), 1, 1),
    "samelower-rd2": (2, lambda n: dict(window_strides=(1,) * n, padding="SAME_LOWER", rhs_dilation=(2,) * n), 1, 1),
    "pads-ld2": (3, lambda n: dict(window_strides=(1,) * n, padding=[(1, 2)] * n, lhs_dilation=(2,) * n), 1, 1),
    "negpad": (2, lambda n: dict(window_strides=(1,) * n, padding=[(-1, 1)] * n), 1, 1),
    "fgroups": (3, lambda n: dict(window_strides=(1,) * n, padding="SAME", feature_group_count=2), 2, 1),
    "bgroups": (3, lambda n: dict(window_strides=(1,) * n, padding="SAME", batch_group_count=2), 1, 2),
    "pet": (3, lambda n: dict(window_strides=(1,) * n, padding="SAME", preferred_element_type=np.float32), 1, 1),
}
SHARDINGS = ["rep", "batch", "batch-all", "feature", "spatial", "rhs-out", "rhs-out+out_sharding"]


def _dims(layout: str | None, n: int, which: int) -> str:
    default = ("NC", "OI", "NC")[which] + SPATIAL[:n]
    return default if layout is None else layout[which]


def _type(dtype: str, dims: str, sizes: dict[str, int], spec: dict[str, str] | None = None) -> str:
    spec = spec or {}
    return f"{dtype}[" + ",".join(f"{sizes[c]}@{spec[c]}" if c in spec else str(sizes[c]) for c in dims) + "]"


def _table_case(n: int, layout: str, kind: str, dtype: str, mesh: str, sharding: str, mode: str = "trace") -> Case:
    lay = LAYOUTS[layout](n)
    k, kw_of, fgc, _ = KINDS[kind]
    kw = kw_of(n)
    ldims, rdims = _dims(lay, n, 0), _dims(lay, n, 1)
    lsizes = {"N": N, "C": C, **{c: S for c in SPATIAL[:n]}}
    rsizes = {"O": O, "I": C // fgc, **{c: k for c in SPATIAL[:n]}}
    axes = AXES[mesh]
    allx = axes[0] if len(axes) == 1 else "(" + ",".join(axes) + ")"
    lspec, rspec, out_sharding = {}, {}, None
    if sharding == "batch":
        lspec = {"N": axes[0]}
    elif sharding == "batch-all":
        lspec = {"N": allx}
    elif sharding == "feature":
        lspec = {"C": axes[-1]}
    elif sharding == "spatial":
        lspec = {"H": axes[-1]}
    elif sharding.startswith("rhs-out"):
        rspec = {"O": axes[-1]}
        if sharding.endswith("out_sharding"):
            out_sharding = (axes[0],)   # the output's first dim (its batch dim in nchw/nhwc)
    args = (_type(dtype, ldims, lsizes, lspec), _type(dtype, rdims, rsizes, rspec))

    def fn(ns, x, w):
        osh = None if out_sharding is None else ns.P(*out_sharding)
        return ns.lax.conv_general_dilated(x, w, dimension_numbers=lay, out_sharding=osh, **kw)

    tol = (1e-1, 1e-1) if dtype in ("bf16", "f16") else None
    return Case(f"conv-{n}d-{layout}-{kind}-{dtype}-{mesh}-{sharding}", mesh, fn, args, mode=mode, tol=tol,
                collectives="at_most")


POOLS = [(1, 2, 3), tuple(LAYOUTS), tuple(KINDS), ("f32", "bf16", "f16", "i32"), ("1d", "2d", "3d"), tuple(SHARDINGS)]
TABLE = [_table_case(*p) for p in sample_product(POOLS, 200, salt="conv")]


@param(TABLE)
def test_conv_types_and_errors(case):
    check_types(case)


#: compiled: every kind and layout at least once, on every mesh, the shardings JAX accepts
VALUE_CASES = [_table_case(*p, mode="jit") for p in [
    (2, "nchw", "same", "f32", "2d", "batch"),
    (2, "nhwc", "valid-s2", "f32", "1d", "batch"),
    (2, "mixed", "same", "f32", "3d", "batch-all"),
    (1, "nchw", "samelower-rd2", "f32", "1d", "spatial"),
    (1, "nhwc", "pads-ld2", "f32", "2d", "batch"),
    (3, "nchw", "negpad", "f32", "3d", "batch"),
    (2, "nchw", "fgroups", "f32", "2d", "batch-all"),
    (2, "nhwc", "bgroups", "f32", "2d", "rep"),
    (2, "nchw", "pet", "bf16", "2d", "batch"),
    (1, "mixed", "same", "f16", "1d", "spatial"),
    (2, "nchw", "same", "i32", "3d", "batch"),
    (3, "nhwc", "same", "bf16", "2d", "rep"),
    (2, "nchw", "same", "f32", "2d", "rhs-out+out_sharding"),
    (2, "nchw", "same", "f32", "2d", "spatial"),
]]


@param(VALUE_CASES)
def test_conv_values(case):
    check_values(case)


# --- gradients --------------------------------------------------------------------------------------
def _grad_case(cid: str, mesh: str, x: str, w: str, dn, expect: str | None = "accept", osh=None, **kw) -> Case:
    def fn(ns, a, b):
        extra = {} if osh is None else dict(out_sharding=ns.P(*osh))
        loss = lambda a, b: ns.sum(ns.lax.conv_general_dilated(a, b, dimension_numbers=dn, **kw, **extra) ** 2)
        return ns.grad(loss, argnums=(0, 1))(a, b)
    return Case(f"grad-{cid}", mesh, fn, (x, w), mode="jit", collectives="at_most", tol=(1e-4, 1e-3), expect=expect)


GRAD_CASES = [
    _grad_case("same", "2d", "f32[8@X,4,8,8]", "f32[6,4,3,3]", None, window_strides=(1, 1), padding="SAME"),
    _grad_case("strided-dilated", "1d", "f32[8@X,3,9,7]", "f32[4,3,2,3]", None, window_strides=(2, 1),
               padding=[(1, 2), (0, 1)], lhs_dilation=(1, 2), rhs_dilation=(2, 1)),
    _grad_case("nhwc-fgroups", "2d", "f32[8@X,6,6,4]", "f32[3,3,2,6]", ("NHWC", "HWIO", "NHWC"),
               window_strides=(1, 1), padding="VALID", feature_group_count=2),
    _grad_case("bgroups", "3d", "f32[8,4,6@X]", "f32[4,4,3]", None, window_strides=(1,), padding="SAME",
               batch_group_count=2),
    # the lhs cotangent of a batch-grouped conv reshapes the batch dim: sharded, JAX's ShardingTypeError
    _grad_case("bgroups-sharded-batch", "3d", "f32[8@(X,Y),4,6]", "f32[4,4,3]", None, expect="reject",
               window_strides=(1,), padding="SAME", batch_group_count=2),
    _grad_case("3d-spatial", "3d", "f32[2,2,4@X,4,4]", "f32[2,2,2,2,2]", None, window_strides=(1, 1, 1),
               padding="SAME"),
    # data parallel over X, output features over Y: out_sharding needed forward; cotangents pinned to the operands
    _grad_case("dp-mp-out-sharding", "2d", "f32[8@X,4,8,8]", "f32[8@Y,4,3,3]", None, window_strides=(1, 1),
               padding="SAME", osh=("X", "Y")),
    _grad_case("bf16-pet", "2d", "bf16[8@X,4,6]", "bf16[4,4,3]", None, window_strides=(1,), padding="SAME",
               preferred_element_type=np.float32),
]


@param(GRAD_CASES)
def test_conv_grad(case):
    _, s = check_values(case)
    assert case.expect == "reject" or len(s.values) == 2   # both cotangents compared


# --- vmap ------------------------------------------------------------------------------------------------
def _vmap_case(cid: str, mesh: str, x: str, w: str, in_axes, mode: str = "jit", **kw) -> Case:
    def fn(ns, a, b):
        return ns.vmap(lambda a, b: ns.lax.conv_general_dilated(a, b, **kw), in_axes=in_axes)(a, b)
    return Case(f"vmap-{cid}", mesh, fn, (x, w), mode=mode, collectives="at_most")


VMAP_CASES = [
    _vmap_case("lhs", "2d", "f32[3,4,2,8]", "f32[4,2,3]", (0, None), window_strides=(1,), padding="SAME"),
    _vmap_case("rhs", "2d", "f32[4,2,8]", "f32[3,4,2,3]", (None, 0), window_strides=(1,), padding="VALID"),
    _vmap_case("both", "2d", "f32[3,4,2,8]", "f32[3,4,2,3]", (0, 0), window_strides=(2,), padding="SAME"),
    _vmap_case("both-moved", "1d", "f32[4,3,2,8]", "f32[4,2,3,3]", (1, 2), window_strides=(1,), padding="SAME"),
    _vmap_case("lhs-bgroups", "2d", "f32[3,4,2,8]", "f32[4,2,3]", (0, None), window_strides=(1,), padding="SAME",
               batch_group_count=2),
    _vmap_case("rhs-fgroups", "2d", "f32[4,4,8]", "f32[3,4,2,3]", (None, 0), window_strides=(1,), padding="SAME",
               feature_group_count=2),
    # a vmapped dim sharded over X: the reshape into the batch dim is JAX's ShardingTypeError
    _vmap_case("lhs-sharded", "2d", "f32[2@X,8,3,8]", "f32[4,3,3]", (0, None), mode="trace", window_strides=(1,),
               padding="SAME"),
    _vmap_case("batch-sharded", "2d", "f32[2,8@X,3,8]", "f32[4,3,3]", (0, None), mode="trace", window_strides=(1,),
               padding="SAME"),
]


@param(VMAP_CASES)
def test_conv_vmap(case):
    check(case)


# --- JAX's errors -------------------------------------------------------------------------------------
def _err(cid: str, x: str, w: str, mesh: str = "2d", osh=None, **kw) -> Case:
    """A call JAX rejects; `osh` = (entries, unreduced) of an `out_sharding` in each side's own P."""
    kw.setdefault("window_strides", (1, 1))
    kw.setdefault("padding", "SAME")

    def fn(ns, a, b):
        extra = {} if osh is None else dict(out_sharding=ns.P(*osh[0], unreduced=osh[1]))
        return ns.lax.conv_general_dilated(a, b, **kw, **extra)
    return Case(f"err-{cid}", mesh, fn, (x, w), expect="reject")


X4, W4 = "f32[8,4,8,8]", "f32[4,4,3,3]"
ERRORS = [
    _err("rank", X4, "f32[4,4,3]"),
    _err("dn-length", X4, W4, dimension_numbers=("NCHW", "OIHW")),
    _err("dn-not-strings", X4, W4, dimension_numbers=((0, 1, 2, 3),) * 3),
    _err("dn-len", X4, W4, dimension_numbers=("NCH", "OIH", "NCH")),
    _err("dn-missing-char", X4, W4, dimension_numbers=("NXHW", "OIHW", "NCHW")),
    _err("dn-duplicate", X4, W4, dimension_numbers=("NCHH", "OIHW", "NCHW")),
    _err("dn-spatial-chars", X4, W4, dimension_numbers=("NCHW", "OIHD", "NCHW")),
    _err("dn-type", X4, W4, dimension_numbers="NCHW"),
    _err("fgc-zero", X4, W4, feature_group_count=0),
    _err("fgc-divides", X4, W4, feature_group_count=3),
    _err("fgc-rhs-in", X4, W4, feature_group_count=2),
    _err("fgc-rhs-out", "f32[8,4,8,8]", "f32[3,2,3,3]", feature_group_count=2),
    _err("bgc-zero", X4, W4, batch_group_count=0),
    _err("bgc-divides", "f32[6,4,8,8]", W4, batch_group_count=4),
    _err("bgc-rhs-out", X4, "f32[3,4,3,3]", batch_group_count=2),
    _err("both-groups", "f32[8,4,8,8]", "f32[4,2,3,3]", feature_group_count=2, batch_group_count=2),
    _err("strides-rank", X4, W4, window_strides=(1,)),
    _err("dtypes", X4, "bf16[4,4,3,3]"),
    _err("pet-narrow", X4, W4, preferred_element_type=np.float16),
    _err("pet-kind", X4, W4, preferred_element_type=np.int32),
    _err("pet-sign", "i32[8,4,8,8]", "i32[4,4,3,3]", preferred_element_type=np.uint32),
    _err("string-pad-lhs-dilation", X4, W4, lhs_dilation=(2, 2)),
    _err("unknown-pad", X4, W4, padding="FULL"),
    _err("bad-pad-pairs", X4, W4, padding=[(1,), (1,)]),
    _err("pad-count", X4, W4, padding=[(1, 1)]),
    _err("negative-pad", X4, W4, padding=[(-6, -6), (0, 0)]),
    _err("dilation-zero", X4, W4, rhs_dilation=(0, 1)),
    # sharding rule: the kernel sharded, or the input's feature dim, asks for out_sharding
    _err("rhs-sharded", X4, "f32[4@Y,4,3,3]"),
    _err("feature-sharded", "f32[8,4@Y,8,8]", W4),
    _err("spatial-not-divisible", "f32[8,4,8@Y,8]", W4, padding="VALID"),
    # no unreduced/reduced rule
    _err("unreduced-lhs", "f32[8,4,8,8]{U:X}", W4),
    _err("reduced-rhs", X4, "f32[4,4,3,3]{R:X}"),
    _err("unreduced-rhs", X4, "f32[4,4,3,3]{U:X}"),
    _err("out-sharding-unreduced", X4, "f32[4@Y,4,3,3]", osh=((), {"Y"})),
    _err("out-sharding-indivisible", X4, W4, osh=((None, None, None, "Y"), frozenset()), padding="VALID"),
]


@param(ERRORS)
def test_conv_errors(case):
    check_types(case)


@pytest.mark.parametrize("where", ["lhs-dilated-string", "auto-axis"])
def test_conv_out_sharding_checks(where):
    """`out_sharding` naming an Auto axis is JAX's ValueError (checked as dot_general's)."""
    mesh = "2d_auto" if where == "auto-axis" else "2d"
    if where == "auto-axis":
        fn = lambda ns, a, b: ns.lax.conv_general_dilated(a, b, (1, 1), "SAME", out_sharding=ns.P("X"))
    else:
        fn = lambda ns, a, b: ns.lax.conv_general_dilated(a, b, (1, 1), "VALID", lhs_dilation=(1, 1))
    check_types(Case(f"osh-{where}", mesh, fn, (X4, W4)))


# --- wrappers, helpers, jnp.convolve / correlate ----------------------------------------------------------
def _wrap(cid: str, mesh: str, args, fn, mode: str = "jit") -> Case:
    return Case(f"wrap-{cid}", mesh, fn, args, mode=mode, collectives="at_most", tol=(1e-4, 1e-4))


WRAPPERS = [
    _wrap("conv-same", "2d", ("f32[8@X,3,8,8]", "f32[4,3,3,3]"), lambda ns, x, w: ns.lax.conv(x, w, (1, 1), "SAME")),
    _wrap("conv-valid-hi", "1d", ("f32[8@X,3,8]", "f32[4,3,3]"),
          lambda ns, x, w: ns.lax.conv(x, w, (2,), "VALID", precision=ns.lax.Precision.HIGHEST)),
    _wrap("conv-general-padding", "2d", ("f32[8@X,3,8,8]", "f32[4,3,3,3]"),
          lambda ns, x, w: ns.lax.conv_with_general_padding(x, w, (1, 1), [(1, 1), (2, 0)], (2, 1), (1, 2))),
    *[_wrap(f"transpose-{pad if isinstance(pad, str) else 'pairs'}-{tk}-{cp}", "2d",
            ("f32[8@X,6,6,3]", "f32[3,3,4,3]" if tk else "f32[3,3,3,4]"),
            lambda ns, x, w, pad=pad, tk=tk, cp=cp: ns.lax.conv_transpose(x, w, (2, 2), pad, transpose_kernel=tk,
                                                                          use_consistent_padding=cp))
      for pad, tk, cp in [("SAME", False, False), ("VALID", True, False), (((1, 1), (0, 2)), False, False),
                          (((1, 1), (0, 2)), True, True)]],
    _wrap("transpose-1d-dilated", "1d", ("f32[8@X,6,3]", "f32[3,3,4]"),
          lambda ns, x, w: ns.lax.conv_transpose(x, w, (3,), "SAME", rhs_dilation=(2,))),
    _wrap("transpose-nchw", "2d", ("f32[8@X,3,5,5]", "f32[4,3,3,3]"),
          lambda ns, x, w: ns.lax.conv_transpose(x, w, (2, 2), "SAME", dimension_numbers=("NCHW", "OIHW", "NCHW"))),
    _wrap("patches", "2d", ("f32[8@X,3,6,6]",),
          lambda ns, x: ns.lax.conv_general_dilated_patches(x, (2, 3), (1, 1), "SAME")),
    _wrap("patches-nhwc", "2d", ("f32[8@X,6,6,2]",),
          lambda ns, x: ns.lax.conv_general_dilated_patches(x, (3, 3), (2, 2), "VALID", rhs_dilation=(1, 2),
                                                            dimension_numbers=("NHWC", "HWIO", "NHWC"))),
    _wrap("local", "2d", ("f32[8@X,2,6,6]", "f32[6,6,18,3]"),
          lambda ns, x, w: ns.lax.conv_general_dilated_local(x, w, (1, 1), "SAME", (3, 3),
                                                             dimension_numbers=("NCHW", "HWIO", "NCHW"))),
]


@param(WRAPPERS)
def test_conv_wrappers(case):
    check(case)


@param([_wrap("grad-transpose", "2d", ("f32[8@X,4,4,3]", "f32[3,3,3,4]"),
              lambda ns, x, w: ns.grad(lambda a, b: ns.sum(ns.lax.conv_transpose(a, b, (2, 2), "SAME") ** 2),
                                       argnums=(0, 1))(x, w))])
def test_conv_transpose_grad(case):
    check(case)


HELPER_CALLS = [
    ("conv_dimension_numbers", ((2, 8, 8, 3), (3, 3, 3, 4), ("NHWC", "HWIO", "NHWC"))),
    ("conv_dimension_numbers", ((2, 3, 8), (4, 3, 3), None)),
    ("conv_general_permutations", (("NHWDC", "DHWIO", "NCDHW"),)),
    ("conv_shape_tuple", ((2, 3, 9, 8), (4, 3, 3, 2), (2, 1), "SAME")),
    ("conv_shape_tuple", ((8, 3, 9), (4, 3, 3), (1,), [(1, 2)], 2)),
    ("conv_general_shape_tuple", ((2, 9, 8, 3), (3, 2, 3, 4), (2, 3), "VALID", ("NHWC", "HWIO", "NHWC"))),
    ("conv_transpose_shape_tuple", ((2, 5, 5, 3), (3, 3, 3, 4), (2, 2), "SAME", ("NHWC", "HWIO", "NHWC"))),
    ("conv_transpose_shape_tuple", ((2, 3, 5), (4, 3, 3), (3,), [(1, 2)], ("NCH", "OIH", "NCH"))),
    ("padtype_to_pads", ((9, 8), (3, 2), (2, 3), "SAME")),
    ("padtype_to_pads", ((9, 8), (3, 2), (2, 3), "SAME_LOWER")),
    ("padtype_to_pads", ((9,), (4,), (1,), "valid")),
    ("padtype_to_pads", ((9,), (4,), (1,), "Same")),
    ("padtype_to_pads", ((9,), (4,), (1,), "same_upper")),
    ("conv_dimension_numbers", ((2, 3, 8), (4, 3), None)),
    ("conv_general_permutations", (("NCHW", "OIHW", "NCWH"),)),
    ("conv_shape_tuple", ((2, 3, 9), (4, 3, 3), (1,), [(1, 1), (0, 0)])),
]


@pytest.mark.parametrize("name,args", HELPER_CALLS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(HELPER_CALLS)])
def test_conv_shape_helpers(name, args):
    """The pure shape helpers return what JAX's return (as plain tuples) or raise its error class."""
    def run(f):
        try:
            r = f(*args)
        except Exception as e:  # noqa: BLE001 - the verdict is compared
            return type(e).__mro__, str(e)
        return None, jax.tree_util.tree_map(int, tuple(r) if not isinstance(r, list) else r)
    je, jr = run(getattr(jax.lax, name))
    se, sr = run(getattr(sc.lax, name))
    if je is None:
        assert se is None and sr == jr, (sr, jr)
    else:
        assert se is not None and any(k in se for k in (TypeError, ValueError, RuntimeError) if k in je), (se, je)
        assert jr.split(".")[0][:40] in sr, (sr, jr)


def test_conv_dimension_numbers_type():
    dn = sc.lax.conv_dimension_numbers((2, 8, 8, 3), (3, 3, 3, 4), ("NHWC", "HWIO", "NHWC"))
    assert isinstance(dn, sc.lax.ConvDimensionNumbers) and dn == ((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2))
    assert tuple(dn) == tuple(jax.lax.conv_dimension_numbers((2, 8, 8, 3), (3, 3, 3, 4), ('NHWC', 'HWIO', 'NHWC')))
    jdn = jax.lax.ConvDimensionNumbers((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2))
    assert sc.lax.conv_dimension_numbers((2, 8, 8, 3), (3, 3, 3, 4), jdn) == dn   # JAX's own object is taken


def _np_case(op: str, mode: str, a: str, v: str, mesh: str = "1d", run: str = "trace", **kw) -> Case:
    fn = lambda ns, x, y: getattr(ns, op)(x, y, mode, **kw)
    return Case(f"{op}-{mode}-{a}-{v}-{mesh}-{run}-{sorted(kw)}", mesh, fn, (a, v), mode=run, collectives="at_most",
                tol=(1e-1, 1e-1) if "bf16" in a + v else (1e-4, 1e-4))


NP_CASES = [
    _np_case(op, mode, a, v, mesh, run)
    for op, mode in itertools.product(("convolve", "correlate"), ("full", "same", "valid"))
    for a, v, mesh, run in [("f32[8]", "f32[3]", "1d", "jit"), ("f32[3]", "f32[8]", "2d", "jit"),
                            ("i32[8]", "i32[3]", "1d", "jit"), ("bf16[8]", "f32[4]", "2d", "jit"),
                            ("f32[8@X]", "f32[3]", "1d", "trace"), ("f32[16@X]", "f32[9]", "1d", "trace"),
                            ("f32[8@Y]", "f32[1]", "2d", "jit"), ("f32[8]", "f32[4@X]", "3d", "trace"),
                            ("i32[5]", "bf16[2]", "3d", "trace")]
] + [
    _np_case("convolve", "full", "f32[8]", "f32[3]", run="jit", precision="highest"),
    _np_case("correlate", "same", "i32[8]", "i32[3]", run="jit", preferred_element_type=np.int32),
    _np_case("convolve", "same", "bf16[8]", "bf16[3]", run="jit", preferred_element_type=np.float32),
    _np_case("convolve", "middle", "f32[8]", "f32[3]"),
    _np_case("correlate", "valid", "f32[2,4]", "f32[3]"),
    _np_case("convolve", "full", "f32[0]", "f32[3]"),
    *[_np_case(op, mode, "c64[8@X]", "c64[3]", "2d", "jit") for op in ("convolve", "correlate") for mode in ("full", "same")],
    _np_case("correlate", "full", "c64[2]", "c64[5]", "1d", "jit"),
    Case("convolve-list", "1d", lambda ns, v: ns.convolve([1.0, 2.0], v), ("f32[3]",), expect="reject"),
]


@param(NP_CASES)
def test_numpy_convolve_correlate(case):
    check(case)


def test_numpy_convolve_grad():
    case = Case("convolve-grad", "1d", lambda ns, a, v: ns.grad(lambda a, v: ns.sum(ns.convolve(a, v, "same") ** 2),
                                                                 argnums=(0, 1))(a, v),
                ("f32[8@X]", "f32[3]"), mode="jit", collectives="at_most", tol=(1e-4, 1e-4))
    check(case)


# --- the emitted text ------------------------------------------------------------------------------------
_CONV_LINE = re.compile(r"stablehlo\.convolution\(%arg0, %arg1\)[^\n]*")


@pytest.mark.parametrize("n,layout,kind,dtype", [(2, "nchw", "same", "f32"), (1, "nhwc", "pads-ld2", "bf16"),
                                                 (3, "mixed", "negpad", "f32"), (2, "nhwc", "fgroups", "f16"),
                                                 (2, "nchw", "bgroups", "i32"), (1, "mixed", "pet", "bf16"),
                                                 (2, "nhwc", "samelower-rd2", "f32")])
def test_conv_text_is_jaxs(n, layout, kind, dtype):
    """The `stablehlo.convolution` op shardc emits is, character for character, the one JAX emits."""
    case = _table_case(n, layout, kind, dtype, "2d", "batch")
    from oracle import JAX, SC, abstract_args, mesh_pair
    m, jm = mesh_pair("2d")
    texts = []
    for ns in (JAX, SC):
        with (jax.set_mesh(jm) if ns is JAX else sc.set_mesh(m)):
            prog = lambda *xs, ns=ns: case.fn(ns, *xs)
            texts.append(_CONV_LINE.search(ns.jit(prog).lower(*abstract_args(ns, case)).as_text()).group(0))
    assert texts[1] == texts[0], texts


# --- manual mode, eager, Auto meshes, constants, nested transformations ----------------------------------
def _c(ns, a, b, **kw):
    kw.setdefault("window_strides", (1,))
    kw.setdefault("padding", "SAME")
    return ns.lax.conv_general_dilated(a, b, **kw)


MORE_CASES = [
    # shard_map: the batch varies over X, the kernel is invariant (JAX's auto pvary), or both vary
    smap_case("smap-lhs-varying", "2d", ("f32[8@X,4,8]", "f32[4,4,3]"), lambda ns, a, b: _c(ns, a, b),
              Spec("X"), in_specs=(Spec("X"), Spec()), run=True),
    smap_case("smap-both-varying", "2d", ("f32[8@X,4,8]", "f32[8@X,4,3]"), lambda ns, a, b: _c(ns, a, b),
              Spec("X"), in_specs=(Spec("X"), Spec("X"))),
    smap_case("smap-feature-split", "2d", ("f32[8,4@Y,8]", "f32[4,4@Y,3]"), lambda ns, a, b: ns.psum(_c(ns, a, b), "Y"),
              Spec(), in_specs=(Spec(None, "Y"), Spec(None, "Y")), run=True),
    Case("eager-batch", "2d", lambda ns, a, b: _c(ns, a, b, window_strides=(2,)), ("f32[8@X,4,8]", "f32[4,4,3]"),
         mode="eager"),
    Case("eager-rhs-sharded", "2d", lambda ns, a, b: _c(ns, a, b), ("f32[8,4,8]", "f32[4@Y,4,3]"), mode="eager"),
    Case("auto-mesh", "2d_auto", lambda ns, a, b: _c(ns, a, b), ("f32[8,4,8]", "f32[4,4,3]"), mode="jit"),
    Case("auto-mesh-trace", "2d_auto", lambda ns, a, b: _c(ns, a, b, feature_group_count=2),
         ("f32[8,4,8]", "f32[4,2,3]")),
    Case("mixed-mesh", MeshSpec((2, 4), ("X", "Y"), "EA"), lambda ns, a, b: _c(ns, a, b),
         ("f32[8@X,4,8]", "f32[4,4,3]"), mode="jit"),
    Case("constant-lhs", "2d", lambda ns, b: _c(ns, np.ones((2, 4, 8), np.float32), b), ("f32[4@Y,4,3]",)),
    Case("constant-rhs", "2d", lambda ns, a: _c(ns, a, np.ones((4, 4, 3), np.float32)), ("f32[8@X,4,8]",),
         mode="jit"),
    Case("grad-rhs-only-constant-lhs", "2d",
         lambda ns, b: ns.grad(lambda b: ns.sum(_c(ns, np.ones((8, 4, 8), np.float32), b) ** 2))(b),
         ("f32[4,4,3]",), mode="jit", tol=(1e-4, 1e-3)),
    Case("vmap-of-grad", "2d",
         lambda ns, a, b: ns.vmap(ns.grad(lambda a, b: ns.sum(_c(ns, a, b) ** 2), argnums=1), in_axes=(0, None))(a, b),
         ("f32[3,2,4,8]", "f32[4,4,3]"), mode="jit", tol=(1e-4, 1e-3)),
    Case("grad-of-vmap", "2d",
         lambda ns, a, b: ns.grad(lambda a, b: ns.sum(ns.vmap(lambda a, b: _c(ns, a, b), in_axes=(0, 0))(a, b) ** 2),
                                  argnums=(0, 1))(a, b),
         ("f32[3,2,4,8]", "f32[3,4,4,3]"), mode="jit", tol=(1e-4, 1e-3)),
    Case("vmap-out-sharding", "2d",
         lambda ns, a, b: ns.vmap(lambda a, b: _c(ns, a, b, out_sharding=ns.P(None, "Y")), in_axes=(0, None))(a, b),
         ("f32[2@X,2,4,8]", "f32[4,4,3]"), mode="jit"),
    Case("complex64", "2d", lambda ns, a, b: _c(ns, a, b, feature_group_count=2), ("c64[8@X,4,8]", "c64[4,2,3]"),
         mode="jit", tol=(1e-4, 1e-4), collectives="at_most"),   # JAX's CPU lowering: 3 real convolutions
    Case("precision-tuple", "1d", lambda ns, a, b: _c(ns, a, b, precision=("highest", "default")),
         ("f32[8@X,4,8]", "f32[4,4,3]"), mode="jit"),
    Case("precision-bad", "1d", lambda ns, a, b: _c(ns, a, b, precision="fastest-ever"),
         ("f32[8@X,4,8]", "f32[4,4,3]"), expect="reject"),
]


@param(MORE_CASES)
def test_conv_more(case):
    check(case)


@pytest.mark.parametrize("precision", ["highest", "fastest", "tensorfloat32", ("high", "default"),
                                       jax.lax.Precision.HIGH, jax.lax.DotAlgorithmPreset.F32_F32_F32])
def test_conv_precision_text_is_jaxs(precision):
    """`precision=` reaches the op's `precision_config` as JAX writes it (an algorithm preset: DEFAULT)."""
    from oracle import JAX, SC, mesh_pair
    m, jm = mesh_pair("1d")
    texts = []
    for ns in (JAX, SC):
        with (jax.set_mesh(jm) if ns is JAX else sc.set_mesh(m)):
            prog = lambda a, b, ns=ns: ns.lax.conv(a, b, (1,), "SAME", precision=precision)
            args = (np.ones((2, 3, 8), np.float32), np.ones((4, 3, 3), np.float32))
            texts.append(_CONV_LINE.search(ns.jit(prog).lower(*args).as_text()).group(0))
    assert texts[1] == texts[0], texts
