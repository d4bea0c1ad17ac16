"""More of `jax.lax` against JAX 0.10.2 (issue 12): `broadcast_like`, `index_take`, `empty`,
`stage`, `optimization_barrier`, `pshuffle`, `pswapaxes`, `platform_dependent`, `mulhi`,
`rng_bit_generator`, `rng_uniform`, `ragged_dot`, `ragged_dot_general` and the description
types (`Precision`, `DotAlgorithmPreset`, ...).

Tables: types, errors and shardings by tracing over 1-D..3-D meshes and the specs the shapes
allow; values, output shardings and collectives on a compiled subset."""
from __future__ import annotations

import jax
import numpy as np
import pytest
from oracle import Case, S, check, param, smap_case

import shardc as sc
from shardc import lax

TRACE_JIT = ("trace", "jit")


# --- broadcast_like -------------------------------------------------------------------------------------
def _bl(ns, x, like):
    return ns.lax.broadcast_like(x, like)


BROADCAST_LIKE = [
    ("2d", "f32[4]", "f32[8,4]"), ("2d", "f32[4]", "f32[8@X,4]"), ("2d", "f32[4@Y]", "f32[8@X,4@Y]"),
    ("2d", "i32[1,4]", "i32[2,8@X,4@Y]"), ("3d", "bf16[1,4@Z]", "bf16[2@X,8@Y,4@Z]"), ("1d", "f32[]", "f32[8@X]"),
    ("1d", "bool[8@X]", "bool[8@X]"), ("3d", "f32[8,4]", "f32[8@X,4@(Y,Z)]"),
]
BL_ERRORS = [
    ("2d", "f32[4@Y]", "f32[8,4@X]", "Incompatible types for broadcasting"),
    ("2d", "f32[3]", "f32[8,4]", "Incompatible types for broadcasting"),
    ("2d", "f32[8,4]", "f32[4]", "Cannot broadcast to shape with fewer dimensions"),
]
BL_CASES = [Case(f"broadcast_like-{m}-{a}-{b}-{mode}", m, _bl, (a, b), mode=mode, expect="accept")
            for k, (m, a, b) in enumerate(BROADCAST_LIKE) for mode in (TRACE_JIT if k % 3 == 0 else ("trace",))]
BL_CASES += [Case(f"broadcast_like-err-{a}-{b}", m, _bl, (a, b), expect="reject", kind=ValueError, phrase=ph)
             for m, a, b, ph in BL_ERRORS]


@param(BL_CASES)
def test_broadcast_like(case):
    check(case)


# --- index_take -----------------------------------------------------------------------------------------
def _take(axes):
    def fn(ns, src, *idxs):
        return ns.lax.index_take(src, idxs, axes)
    return fn


INDEX_TAKE = [
    ("2d", "f32[8,4]", ("i32[5]",), (0,)), ("2d", "f32[8,4@Y]", ("i32[5]",), (0,)),
    ("2d", "f32[8,4,6]", ("i32[3]", "i32[3]"), (0, 2)), ("3d", "i32[8@X,4,6@Y]", ("i32[7]",), (1,)),
    ("1d", "bf16[8,4]", ("i32[2]", "i32[2]"), (0, 1)), ("1d", "f32[16]", ("i32[8]",), (0,)),
]
IT_CASES = [Case(f"index_take-{m}-{src}-{axes}-{mode}", m, _take(axes), (src, *idx), mode=mode, expect="accept")
            for k, (m, src, idx, axes) in enumerate(INDEX_TAKE) for mode in (TRACE_JIT if k % 2 == 0 else ("trace",))]
IT_CASES += [Case("index_take-unsorted-axes", "1d", _take((1, 0)), ("f32[8,4]", "i32[2]", "i32[2]"), expect="reject",
                  kind=TypeError, phrase="collapsed_slice_dims in gather op must be sorted")]


@param(IT_CASES)
def test_index_take(case):
    check(case)


def test_index_take_wraps_negative_and_large_indices():
    x = np.arange(32, dtype=np.float32).reshape(8, 4)
    i, j = np.array([-1, 9, 3], np.int32), np.array([5, -2, 0], np.int32)
    np.testing.assert_array_equal(np.asarray(lax.index_take(x, (i, j), (0, 1))),
                                  np.asarray(jax.lax.index_take(x, (i, j), (0, 1))))


# --- empty, stage, optimization_barrier ----------------------------------------------------------------
def _empty(shape, dtype, spec):
    def fn(ns, x):
        return ns.lax.empty(shape, dtype, out_sharding=None if spec is None else ns.P(*spec)) , x
    return fn


EMPTY = [((8, 4), np.float32, None), (8, np.int32, ("X",)), ((8, 4, 2), jax.numpy.bfloat16, ("X", "Y")),
         ((), np.bool_, None), ((4, 8), np.float32, (None, ("X", "Y")))]
EMPTY_CASES = [Case(f"empty-{shape}-{np.dtype(d).name}-{spec}-{mode}", "2d", _empty(shape, d, spec), ("f32[2]",),
                    mode=mode, expect="accept") for shape, d, spec in EMPTY for mode in TRACE_JIT]


def _stage(ns, x):
    return ns.lax.stage(x), ns.lax.stage(2.0), ns.lax.stage(np.arange(3, dtype=np.int32))


def _barrier(ns, x, y):
    a, (b, c) = ns.lax.optimization_barrier((x * 2.0, (y, {"k": x + 1.0})))
    return a + 1.0, b, c["k"]


def _barrier_grad(ns, x, y):
    return ns.grad(lambda x: ns.sum(ns.lax.optimization_barrier(ns.sin(x)) * y))(x)


def _barrier_single(ns, x, y):
    return ns.lax.optimization_barrier(x)


MISC_CASES = EMPTY_CASES + [
    Case(f"stage-{m}-{a}-{mode}", m, _stage, (a,), mode=mode, expect="accept")
    for m, a in [("1d", "f32[8@X]"), ("2d", "i32[8@X,4@Y]")] for mode in TRACE_JIT
] + [
    Case(f"{name}-{m}-{mode}", m, fn, args, mode=mode, expect="accept")
    for name, fn in [("barrier", _barrier), ("barrier-grad", _barrier_grad), ("barrier-single", _barrier_single)]
    for m, args in [("2d", ("f32[8@X,4@Y]", "f32[8@X,4@Y]")), ("3d", ("f32[8@X,4@(Y,Z)]", "f32[8,4]")),
                    ("1d", ("f32[8@X,4]", "f32[8@X,4]"))]
    for mode in TRACE_JIT
]


@param(MISC_CASES)
def test_empty_stage_barrier(case):
    check(case)


def test_barrier_lowers_to_one_stablehlo_barrier():
    text = sc.jit(lambda x, y: lax.optimization_barrier((x, [y]))).lower(np.ones(4, np.float32),
                                                                         np.ones(2, np.int32)).as_text()
    assert text.count("stablehlo.optimization_barrier") == 1
    assert lax.optimization_barrier(()) == ()


# --- pshuffle, pswapaxes (shard_map collectives composed as JAX does) ----------------------------------
def _pshuffle(perm):
    return lambda ns, a: ns.lax.pshuffle(a, "X", perm)


def _pswapaxes(axis):
    return lambda ns, a: ns.lax.pswapaxes(a, "X", axis)


COLL_CASES = [
    smap_case(f"pshuffle-{perm}", "1d", ("f32[64@X,4]",), _pshuffle(perm), S("X"), in_specs=(S("X"),), run=k == 0)
    for k, perm in enumerate([(1, 2, 3, 4, 5, 6, 7, 0), (7, 6, 5, 4, 3, 2, 1, 0), tuple(range(8))])
] + [
    smap_case("pshuffle-not-a-permutation", "1d", ("f32[64@X,4]",), _pshuffle((0, 0, 1, 2, 3, 4, 5, 6)), S("X"),
              in_specs=(S("X"),), error=(ValueError, "does not represent a permutation")),
    smap_case("pswapaxes-1", "1d", ("f32[64@X,8]",), _pswapaxes(1), S("X"), in_specs=(S("X"),), run=True),
    smap_case("pswapaxes-0", "1d", ("i32[64@X,3]",), _pswapaxes(0), S("X"), in_specs=(S("X"),), run=True),
    smap_case("pswapaxes-size", "1d", ("f32[64@X,16]",), _pswapaxes(1), S("X"), in_specs=(S("X"),),
              error=(ValueError, "all_to_all requires the size of the mapped axis")),
]


@param(COLL_CASES)
def test_pshuffle_pswapaxes(case):
    check(case)


# --- platform_dependent ---------------------------------------------------------------------------------
def _plat(**branches):
    def fn(ns, x):
        return ns.lax.platform_dependent(x, **{k: (lambda f: lambda x: f(ns, x))(f) for k, f in branches.items()})
    return fn


def _plat_default(ns, x):
    return ns.lax.platform_dependent(x, cuda=lambda x: x * 2.0, default=lambda x: ns.sin(x))


def _plat_mismatch(ns, x):
    return ns.lax.platform_dependent(x, cpu=lambda x: x + 1.0, default=lambda x: x.astype(np.int32))


def _plat_none(ns, x):
    return ns.lax.platform_dependent(x, tpu=lambda x: x + 1.0, cuda=lambda x: x * 2.0)


def _plat_gpu(ns, x):
    return ns.lax.platform_dependent(x, gpu=lambda x: x + 1.0)


PLAT_CASES = [
    Case(f"platform-cpu-{m}-{mode}", m, _plat(cpu=lambda ns, x: x + 1.0, tpu=lambda ns, x: x * 3.0), (a,), mode=mode,
         expect="accept") for m, a in [("1d", "f32[8@X]"), ("2d", "f32[8@X,4@Y]")] for mode in ("trace", "jit", "eager")
] + [Case(f"platform-default-{mode}", "2d", _plat_default, ("f32[8@X,4]",), mode=mode, expect="accept")
     for mode in ("trace", "jit", "eager")] + [
    Case("platform-mismatch", "1d", _plat_mismatch, ("f32[8@X]",), expect="reject", kind=TypeError,
         phrase="branches must have equal output types"),
    Case("platform-none-jit", "1d", _plat_none, ("f32[8@X]",), mode="jit", expect="reject",
         kind=NotImplementedError, phrase="not found for platform cpu"),
    Case("platform-gpu", "1d", _plat_gpu, ("f32[8@X]",), expect="reject", kind=ValueError,
         phrase="Use 'cuda' or 'rocm'"),
]


@param(PLAT_CASES)
def test_platform_dependent(case):
    check(case)


# --- the description types are JAX's ------------------------------------------------------------------
def test_description_types_are_jaxs():
    for n in ("AccuracyMode", "DotAlgorithm", "DotAlgorithmPreset", "DotDimensionNumbers", "Precision",
              "PrecisionLike", "RaggedDotDimensionNumbers", "RandomAlgorithm", "Tolerance"):
        assert getattr(lax, n) is getattr(jax.lax, n), n


def _dot_precision(prec):
    return lambda ns, a, b: ns.lax.dot_general(a, b, (((1,), (0,)), ((), ())), precision=prec(ns))


PREC_CASES = [Case(f"dot-precision-{name}-{mode}", "2d", _dot_precision(p), ("f32[8@X,16]", "f32[16,4@Y]"),
                   mode=mode, expect="accept")
              for name, p in [("highest", lambda ns: ns.lax.Precision.HIGHEST),
                              ("pair", lambda ns: (ns.lax.Precision.DEFAULT, ns.lax.Precision.HIGH)),
                              ("string", lambda ns: "highest")]
              for mode in TRACE_JIT]


@param(PREC_CASES)
def test_precision_arguments(case):
    check(case)


@pytest.mark.parametrize("name", ["exp", "log", "tanh", "logistic", "sin"])
def test_accuracy_argument_is_accepted(name):
    x = np.linspace(0.1, 2.0, 8, dtype=np.float32)
    tol = jax.lax.Tolerance(atol=1e-5, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(getattr(lax, name)(x, accuracy=tol)),
                               np.asarray(getattr(jax.lax, name)(x)), rtol=1e-6)


# --- mulhi ----------------------------------------------------------------------------------------------
def _mulhi(ns, x, y):
    return ns.lax.mulhi(x, y)


def _mulhi_scalar(ns, x, y):
    return ns.lax.mulhi(x, 7), ns.lax.mulhi(-3, x)


MULHI = [("2d", "i32[8@X,4@Y]", "i32[8@X,4@Y]"), ("2d", "u32[8@X,4]", "u32[8@X,4]"), ("1d", "i8[16@X]", "i8[16@X]"),
         ("3d", "u8[8@X,4@Y,2@Z]", "u8[8@X,4@Y,2@Z]"), ("3d", "i16[8,4@(X,Y)]", "i16[8,4@(X,Y)]"),
         ("2d", "i32[8@X,4]", "i32[1,4]"), ("1d", "i32[]", "i32[]"), ("2d", "u16[8,4@Y]", "u16[8,4]")]
# Compiled over a multi-device mesh, XLA's CPU pipeline in jaxlib 0.10.2 cannot legalize `chlo.mulhi`
# ("Unable to convert MHLO to StableHLO"): JAX fails so, and shardc, which lowers it as JAX does, too
# (`quirk`); the values are compared on one device (`test_mulhi_values_at_the_extremes`).
MULHI_CASES = [Case(f"mulhi-{m}-{a}-{b}-{mode}", m, _mulhi, (a, b), mode=mode, expect="accept")
               for m, a, b in MULHI for mode in ("trace",)]
MULHI_CASES += [Case(f"mulhi-scalar-{mode}", "2d", _mulhi_scalar, ("i32[8@X,4@Y]", "i32[]"), mode=mode,
                     expect="accept") for mode in ("trace",)]
MULHI_CASES += [Case(f"mulhi-{m}-{a}-jit-mesh", m, _mulhi, (a, a), mode="jit", quirk=True)
                for m, a in [("2d", "i32[8@X,4@Y]"), ("1d", "u8[16]")]]
MULHI_CASES += [Case(f"mulhi-err-{a}-{b}", "2d", _mulhi, (a, b), expect="reject", kind=TypeError, phrase=ph)
                for a, b, ph in [("f32[8,4]", "f32[8,4]", "mulhi does not accept dtype float32 at position 0"),
                                 ("bool[8,4]", "bool[8,4]", "mulhi does not accept dtype bool"),
                                 ("i32[8,4]", "u32[8,4]", "lax.mulhi requires arguments to have the same dtypes"),
                                 ("i32[8,4]", "i32[4]", "mulhi: arrays must have the same number of dimensions"),
                                 ("i32[8,4]", "i32[2,4]", "mulhi got incompatible shapes for broadcasting")]]
MULHI_CASES += [Case("mulhi-err-sharding", "2d", _mulhi, ("i32[8@X,4]", "i32[8@Y,4]"), expect="reject")]


@param(MULHI_CASES)
def test_mulhi(case):
    check(case)


def test_mulhi_values_at_the_extremes():
    for d in (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32):
        info = np.iinfo(d)
        v = np.array([info.min, info.min + 1, -1 if info.min else 1, 0, 1, 2, info.max - 1, info.max], d)
        x, y = np.meshgrid(v, v)
        np.testing.assert_array_equal(np.asarray(lax.mulhi(x, y)), np.asarray(jax.lax.mulhi(x, y)), err_msg=str(d))


# --- rng_bit_generator, rng_uniform --------------------------------------------------------------------
def _rbg(shape, dtype=np.uint32, algorithm=None, spec=None):
    def fn(ns, key):
        kw = {} if algorithm is None else {"algorithm": getattr(ns.lax.RandomAlgorithm, algorithm)}
        if spec is not None:
            kw["out_sharding"] = ns.P(*spec)
        return ns.lax.rng_bit_generator(key, shape, dtype, **kw)
    return fn


RBG = [((8, 4), np.uint32, None, None, "2d"), ((8, 4), np.uint8, "RNG_THREE_FRY", ("X", "Y"), "2d"),
       ((16,), np.uint16, "RNG_PHILOX", ("X",), "1d"), ((4, 8, 2), np.uint32, "RNG_DEFAULT", (None, ("X", "Y"), "Z"), "3d"),
       ((), np.uint32, None, None, "1d"), (8, np.uint8, None, None, "2d")]
RBG_CASES = [Case(f"rbg-{shape}-{np.dtype(d).name}-{alg}-{spec}-{m}-{mode}", m, _rbg(shape, d, alg, spec),
                  (key,), mode=mode, expect="accept")
             for shape, d, alg, spec, m in RBG for key in ("u32[4]",) for mode in TRACE_JIT]
RBG_CASES += [Case("rbg-sharded-key", "2d", _rbg((8,)), ("u32[4@Y]",), mode="trace", expect="accept"),
              Case("rbg-float", "1d", _rbg((8,), np.float32), ("u32[4]",), expect="reject", kind=TypeError,
                   phrase="rng_bit_generator: unsupported dtype float32"),
              Case("rbg-int32", "1d", _rbg((8,), np.int32), ("u32[4]",), expect="reject", kind=TypeError,
                   phrase="unsupported dtype int32")]


def _rbg_vmap(ns, keys):
    return ns.vmap(lambda k: ns.lax.rng_bit_generator(k, (3, 2)))(keys)


def _rbg_in_axes_none(ns, key):
    return ns.vmap(lambda k, i: ns.lax.rng_bit_generator(k, (3,))[1] + i, in_axes=(None, 0))(key, ns.arange(
        2, dtype=np.uint32))


RBG_CASES += [Case(f"rbg-vmap-{mode}", "1d", _rbg_vmap, ("u32[3,4]",), mode=mode, expect="accept")
              for mode in TRACE_JIT]
RBG_CASES += [Case(f"rbg-vmap-unbatched-key-{mode}", "1d", _rbg_in_axes_none, ("u32[4]",), mode=mode,
                   expect="accept") for mode in TRACE_JIT]


def _rng_uniform(shape):
    return lambda ns, a, b: ns.lax.rng_uniform(a, b, shape)


RBG_CASES += [Case(f"rng_uniform-{a}-{shape}", "2d", _rng_uniform(shape), (a, a), expect="accept")
              for a, shape in [("f32[]", (3, 2)), ("i32[]", (8,)), ("bf16[]", ())]]
RBG_CASES += [
    Case("rng_uniform-dtypes", "2d", _rng_uniform((3,)), ("f32[]", "bf16[]"), expect="reject", kind=ValueError,
         phrase="Arguments to rng_uniform must have identical dtypes"),
    Case("rng_uniform-shapes", "2d", _rng_uniform((3,)), ("f32[2]", "f32[2]"), expect="reject", kind=ValueError,
         phrase="Arguments to rng_uniform must be scalars"),
    Case("rng_uniform-grad", "2d", lambda ns, a, b: ns.grad(lambda a: ns.sum(ns.lax.rng_uniform(a, b, (3,))))(a),
         ("f32[]", "f32[]"), expect="reject", kind=NotImplementedError,
         phrase="Differentiation rule for 'rng_uniform' not implemented"),
    Case("rng_uniform-vmap", "2d", lambda ns, a, b: ns.vmap(lambda a: ns.lax.rng_uniform(a, b, (3,)))(a),
         ("f32[4]", "f32[]"), expect="reject", kind=NotImplementedError,
         phrase="Batching rule for 'rng_uniform' not implemented"),
]


@param(RBG_CASES)
def test_rng_bit_generator_and_rng_uniform(case):
    check(case)


def test_rng_uniform_draws_in_range():
    u = np.asarray(sc.jit(lambda a, b: lax.rng_uniform(a, b, (64,)))(np.float32(2.0), np.float32(3.0)))
    assert u.shape == (64,) and u.dtype == np.float32 and (u >= 2.0).all() and (u < 3.0).all()


# --- ragged_dot, ragged_dot_general (JAX's lowering decomposition, values bit-equal) --------------------
GS = np.array([2, 3, 3], np.int32)
GS2 = np.array([[2, 3, 3], [1, 1, 6]], np.int32)


def _rdn(ns, dims, ragged, group):
    return ns.lax.RaggedDotDimensionNumbers(dims, ragged, group)


def _ragged_dot(spec=None, gs=GS, **kw):
    def fn(ns, lhs, rhs):
        if spec is not None:
            kw["out_sharding"] = ns.P(*spec)
        return ns.lax.ragged_dot(lhs, rhs, gs, **kw)
    return fn


def _ragged_general(dims, ragged, group, gs=GS, spec=None):
    def fn(ns, lhs, rhs):
        kw = {} if spec is None else {"out_sharding": ns.P(*spec)}
        return ns.lax.ragged_dot_general(lhs, rhs, gs, _rdn(ns, dims, ragged, group), **kw)
    return fn


NONCONTRACT = ((((1,), (1,)), ((), ())), (0,), (0,))
CONTRACT = ((((1,), (0,)), ((), ())), (1,), ())
BATCHED = ((((2,), (1,)), ((0,), (0,))), (0,), ())
NC_BATCH = ((((2,), (2,)), ((0,), (1,))), (1,), (0,))
RAGGED_CASES = [
    Case(f"ragged_dot-{d}-{mode}", "1d", _ragged_dot((), preferred_element_type=pet), (f"{d}[8,4]", f"{d}[3,4,5]"),
         mode=mode, expect="accept", numpy_args=True)
    for d, pet in [("f32", None), ("bf16", np.float32), ("i32", None)] for mode in TRACE_JIT
] + [
    Case(f"ragged_dot-out-sharding-{m}-{spec}-{mode}", m, _ragged_dot(spec), ("f32[8,4]", "f32[3,4,8]"), mode=mode,
         expect="accept")
    for m, spec in [("1d", ("X",)), ("2d", ("X", "Y")), ("3d", (("X", "Y"), "Z")), ("2d", ())] for mode in TRACE_JIT
] + [
    Case(f"ragged_general-{name}-{mode}", "1d", _ragged_general(*dn, gs=gs, spec=()), args, mode=mode, expect="accept",
         numpy_args=True)
    for name, dn, gs, args in [("contract", CONTRACT, GS, ("f32[5,8]", "f32[8,6]")),
                               ("batch", BATCHED, GS, ("f32[7,3,4]", "f32[7,4,2]")),
                               ("noncontract-batch-gs2", NC_BATCH, GS2, ("f32[2,8,4]", "f32[3,2,4,5]"))]
    for mode in TRACE_JIT
]
RAGGED_ERRORS = [
    ("no-out-sharding", "2d", _ragged_dot(), ("f32[8,4]", "f32[3,4,6]"), NotImplementedError,
     "Explicit sharding inference for ragged_dot_general is not currently implemented"),
    ("group-count", "1d", _ragged_dot(spec=()), ("f32[8,4]", "f32[2,4,6]"), TypeError,
     "expected rhs group dimension size to be 3, got 2"),
    ("float-group-sizes", "1d", _ragged_dot(spec=(), gs=np.array([2., 3., 3.], np.float32)),
     ("f32[8,4]", "f32[3,4,6]"), TypeError, "group_sizes.dtype is subtype of np.integer"),
    ("gs-shape", "1d", _ragged_general(*NC_BATCH, gs=np.ones((3, 3), np.int32), spec=()),
     ("f32[2,8,4]", "f32[3,2,4,5]"), TypeError, "expected group_sizes to have shape (2, 3), got (3, 3)"),
    ("rhs-group-in-contract", "1d", _ragged_general((((1,), (1,)), ((), ())), (0,), (1,), spec=()),
     ("f32[8,4]", "f32[3,4,6]"), TypeError, "rhs group dimension numbers to be distinct"),
    ("contract-with-group", "1d", _ragged_general((((1,), (0,)), ((), ())), (1,), (0,), spec=()),
     ("f32[5,8]", "f32[8,6]"), TypeError, "requires zero group dimensions in the rhs"),
    ("two-ragged", "1d", _ragged_general((((1,), (1,)), ((), ())), (0, 1), (0,), spec=()),
     ("f32[8,4]", "f32[3,4,6]"), TypeError, "expects exactly one lhs ragged dimension"),
    ("ragged-range", "1d", _ragged_general((((1,), (1,)), ((), ())), (2,), (0,), spec=()),
     ("f32[8,4]", "f32[3,4,6]"), TypeError, "lhs ragged dimension numbers to be nonnegative"),
]
RAGGED_CASES += [Case(f"ragged-err-{name}", m, fn, args, expect="reject", kind=kind, phrase=ph)
                 for name, m, fn, args, kind, ph in RAGGED_ERRORS]
RAGGED_CASES += [Case(f"ragged-mixed-dtypes-{a}-{b}", "1d", _ragged_dot(spec=()), (f"{a}[8,4]", f"{b}[3,4,6]"))
                 for a, b in [("f32", "i32"), ("bf16", "f32"), ("i8", "i32")]]


@param(RAGGED_CASES)
def test_ragged_dot(case):
    check(case)


def test_ragged_dot_gradients_without_a_mesh():
    """JAX differentiates ragged_dot by transposed ragged_dot_generals bound without `out_sharding`, so
    only where no mesh is set (under one it raises its 'Explicit sharding inference' error; shardc's
    gradient flows through the decomposition there too). Without a mesh: JAX's values."""
    rng = np.random.default_rng(0)
    lhs, rhs = rng.standard_normal((8, 4)).astype(np.float32), rng.standard_normal((3, 4, 5)).astype(np.float32)
    for gs in (GS, np.array([0, 8, 0], np.int32)):
        ga = sc.grad(lambda a, b: sc.sum(lax.ragged_dot(a, b, gs) ** 2), argnums=(0, 1))(lhs, rhs)
        gb = jax.grad(lambda a, b: (jax.lax.ragged_dot(a, b, gs) ** 2).sum(), argnums=(0, 1))(lhs, rhs)
        for x, y in zip(ga, gb):
            np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-5, atol=1e-5)


# --- igamma, igammac, igamma_grad_a, betainc (JAX's series / continued fractions) -----------------------
def _gamma_args(ns, a, x):
    """Positive shapes a and x >= 0 (through abs), spanning both branches (series / continued fraction)."""
    return ns.abs(a) + 0.5, ns.abs(x) * 3.0


def _incomplete(name):
    def fn(ns, a, x):
        a, x = _gamma_args(ns, a, x)
        return getattr(ns.lax, name)(a, x)
    return fn


def _betainc3(ns, a, b, x):
    return ns.lax.betainc(ns.abs(a) + 0.5, ns.abs(b) + 0.5, ns.tanh(ns.abs(x)))


def _igamma_grads(ns, a, x):
    a, x = _gamma_args(ns, a, x)
    return (ns.grad(lambda a, x: ns.sum(ns.lax.igamma(a, x)), argnums=(0, 1))(a, x),
            ns.grad(lambda a, x: ns.sum(ns.lax.igammac(a, x) ** 2), argnums=(0, 1))(a, x))


def _betainc_grad_x(ns, a, b, x):
    return ns.grad(lambda x: ns.sum(_betainc3(ns, a, b, x)))(x)


INCOMPLETE = [("2d", "f32[8@X,4@Y]"), ("1d", "f32[16@X]"), ("3d", "f32[4@X,2@Y,2@Z]"), ("2d", "bf16[8,4@Y]"),
              ("1d", "f32[]")]
INC_CASES = [Case(f"{name}-{m}-{t}-{mode}", m, _incomplete(name), (t, t), mode=mode, expect="accept")
             for name in ("igamma", "igammac", "igamma_grad_a") for k, (m, t) in enumerate(INCOMPLETE)
             for mode in (TRACE_JIT if k == 0 else ("trace",))]
# JAX's betainc decomposition broadcasts its loop counter unsharded, so its `select` refuses sharded operands:
# JAX's primitive types them, and then fails to compile; shardc, composing the same ops, refuses when
# tracing. Sharded operands are compared compiled (both reject), replicated ones everywhere.
INC_CASES += [Case(f"betainc-{m}-{t}-{mode}", m, _betainc3, (t, t, t), mode=mode, expect="accept")
              for m, t in [("1d", "f32[16]"), ("2d", "bf16[8,4]"), ("1d", "f32[]")]
              for mode in (TRACE_JIT if t == "bf16[8,4]" else ("trace",))]
INC_CASES += [Case(f"betainc-sharded-{m}-{t}", m, _betainc3, (t, t, t), mode="jit", expect="reject",
                   kind="ShardingTypeError", phrase="select `which` must be scalar or have the same sharding")
              for m, t in [("2d", "f32[8@X,4@Y]")]]
INC_CASES += [Case("igamma-grads", "2d", _igamma_grads, ("f32[8@X,4]", "f32[8@X,4]"), expect="accept")]
INC_CASES += [Case(f"betainc-grad-x-{mode}", "1d", _betainc_grad_x, ("f32[8]",) * 3, mode=mode, expect="accept")
              for mode in TRACE_JIT]
INC_CASES += [
    Case("igamma-int", "1d", lambda ns, a, x: ns.lax.igamma(a, x), ("i32[8]", "i32[8]"), expect="reject",
         kind=TypeError, phrase="igamma does not accept dtype int32 at position 0"),
    Case("igamma-dtypes", "1d", lambda ns, a, x: ns.lax.igamma(a, x), ("f32[8]", "bf16[8]"), expect="reject",
         kind=TypeError, phrase="lax.igamma requires arguments to have the same dtypes"),
    Case("igammac-rank", "1d", lambda ns, a, x: ns.lax.igammac(a, x), ("f32[8,2]", "f32[2]"), expect="reject",
         kind=TypeError, phrase="igammac: arrays must have the same number of dimensions"),
    Case("igamma_grad_a-shapes", "1d", lambda ns, a, x: ns.lax.igamma_grad_a(a, x), ("f32[8,2]", "f32[4,2]"),
         expect="reject", kind=TypeError, phrase="igamma_grad_a got incompatible shapes for broadcasting"),
    Case("betainc-int-x", "1d", lambda ns, a, b, x: ns.lax.betainc(a, b, x), ("f32[8]", "f32[8]", "i32[8]"),
         expect="reject", kind=TypeError, phrase="regularized_incomplete_beta does not accept dtype int32 at position 2"),
    Case("betainc-grad-a", "1d", lambda ns, a, b, x: ns.grad(lambda a: ns.sum(_betainc3(ns, a, b, x)))(a),
         ("f32[8]",) * 3, expect="reject", kind=ValueError, phrase="Betainc gradient with respect to a and b"),
    Case("igamma_grad_a-grad", "1d", lambda ns, a, x: ns.grad(lambda a: ns.sum(ns.lax.igamma_grad_a(*_gamma_args(
        ns, a, x))))(a), ("f32[8]", "f32[8]"), expect="reject", kind=NotImplementedError,
         phrase="Differentiation rule for 'igamma_grad_a' not implemented"),
    Case("igamma-sharding-mismatch", "2d", lambda ns, a, x: ns.lax.igamma(a, x), ("f32[8@X,4]", "f32[8@Y,4]"),
         expect="reject"),
]


@param(INC_CASES)
def test_incomplete_gamma_and_beta(case):
    check(case)


def test_incomplete_gamma_edge_values():
    """NaN, zero, infinity and domain errors as JAX (compiled: each program as one fused module)."""
    a = np.array([0.0, 0.0, 1.0, -1.0, np.nan, 2.0, 3.0, 1e-3, 50.0, 2.0], np.float32)
    x = np.array([0.0, 1.0, 0.0, 1.0, 1.0, np.inf, -1.0, 2.0, 49.0, 1e-30], np.float32)
    b = np.array([1.0, 0.0, 2.0, np.inf, 0.5, 3.0, 2.0, 1.0, 1.0, 4.0], np.float32)
    xb = np.array([0.5, 0.5, 0.0, 0.3, 1.0, 1.5, -0.1, 0.999, 0.001, 0.5], np.float32)

    def all_four(ns):   # one program per side: the four functions' loops compiled together
        return lambda a, x, b, xb: (ns.igamma(a, x), ns.igammac(a, x), ns.igamma_grad_a(a, x),
                                    ns.betainc(ns.abs(a), b, xb))
    ours, theirs = sc.jit(all_four(lax))(a, x, b, xb), jax.jit(all_four(jax.lax))(a, x, b, xb)
    for name, u, v in zip(("igamma", "igammac", "igamma_grad_a", "betainc"), ours, theirs):
        np.testing.assert_array_equal(np.asarray(u), np.asarray(v), err_msg=name)


# --- custom_linear_solve (shardc/solves.py) -------------------------------------------------------------
def _richardson(ns, steps=40):
    """A solver JAX and shardc run alike: x <- x + (b - A x) / 8 (A diagonally dominant below)."""
    def solve(mv, b):
        return ns.lax.fori_loop(0, steps, lambda i, x: jax.tree_util.tree_map(lambda xi, bi, ai: xi + (bi - ai) / 8.0, x, b,
                                                                    mv(x)), jax.tree_util.tree_map(ns.zeros_like, b))
    return solve


def _spd(ns, a):
    return a @ a.T / 16.0 + 4.0 * ns.eye(a.shape[0], dtype=a.dtype)


def _cls(symmetric=False, grad=False, tree=False, aux=False):
    def fn(ns, a, b):
        def f(a, b):
            m = _spd(ns, a)
            mv = (lambda x: {"u": m @ x["u"]}) if tree else (lambda x: m @ x)
            rhs = {"u": b} if tree else b
            solve = _richardson(ns)
            if aux:
                solve = (lambda s: lambda mv, b: (s(mv, b), ns.sum(b)))(solve)
            out = ns.lax.custom_linear_solve(mv, rhs, solve, None if symmetric else solve, symmetric=symmetric,
                                             has_aux=aux)
            x = out[0] if aux else out
            x = x["u"] if tree else x
            return ns.sum(x * x) + (out[1] if aux else 0.0)
        if grad:
            return ns.grad(f, argnums=(0, 1))(a, b)
        return f(a, b)
    return fn


CLS_CASES = [Case(f"cls-{name}-{m}-{mode}", m, _cls(**kw), args, mode=mode, expect="accept")
             for name, kw in [("plain", {}), ("grad", dict(grad=True)), ("sym-grad", dict(symmetric=True, grad=True)),
                              ("tree-grad", dict(tree=True, grad=True)), ("aux", dict(aux=True))]
             for m, args in [("1d", ("f32[8,8]", "f32[8]")), ("2d", ("f32[8,8]", "f32[8,4]"))]
             for mode in (TRACE_JIT if name in ("grad", "aux") else ("trace", "eager") if name == "plain" else ("trace",))]


def _cls_bad(kind):
    def fn(ns, a, b):
        m = _spd(ns, a)
        solve = _richardson(ns)
        if kind == "matvec-tree":
            return ns.lax.custom_linear_solve(lambda x: (m @ x,), b, solve, solve)
        if kind == "matvec-shape":
            return ns.lax.custom_linear_solve(lambda x: (m @ x)[:4], b, solve, solve)
        if kind == "aux-missing":
            return ns.lax.custom_linear_solve(lambda x: m @ x, b, solve, solve, has_aux=True)
        return ns.grad(lambda b: ns.sum(ns.lax.custom_linear_solve(lambda x: m @ x, b, solve)))(b)
    return fn


CLS_CASES += [Case(f"cls-err-{kind}", "1d", _cls_bad(kind), ("f32[8,8]", "f32[8]"), expect="reject", kind=k,
                   phrase=ph)
              for kind, k, ph in [("matvec-tree", TypeError, "matvec() output pytree structure must match b"),
                                  ("matvec-shape", ValueError, "matvec() output shapes must match b"),
                                  ("aux-missing", ValueError, "too many values to unpack (expected 2)"),
                                  ("no-transpose-grad", TypeError, "transpose_solve required for backwards mode")]]


@param(CLS_CASES)
def test_custom_linear_solve(case):
    check(case)


# --- custom_root ------------------------------------------------------------------------------------------
def _newton_sqrt(ns, a, aux=False):
    """The root of x**2 - a by Newton steps; the tangent solve divides by g's diagonal (elementwise)."""
    def f(x):
        return x ** 2 - a

    def solve(f, x0):
        x = ns.lax.fori_loop(0, 30, lambda i, x: x - f(x) / (2 * x), x0)
        return (x, ns.sum(x)) if aux else x
    out = ns.lax.custom_root(f, ns.ones_like(a), solve, lambda g, y: y / g(ns.ones_like(y)), has_aux=aux)
    return out


def _root_case(grad=False, aux=False):
    def fn(ns, a):
        a = ns.abs(a) + 1.0
        if grad:
            return ns.grad(lambda a: ns.sum(ns.sin(_newton_sqrt(ns, a))))(a)
        return _newton_sqrt(ns, a, aux)
    return fn


def _root_bad(ns, a):
    return ns.lax.custom_root(lambda x: (x,), ns.ones_like(a), lambda f, x: x, lambda g, y: y)


ROOT_CASES = [Case(f"root-{name}-{m}-{t}-{mode}", m, _root_case(**kw), (t,), mode=mode, expect="accept")
              for name, kw in [("value", {}), ("grad", dict(grad=True)), ("aux", dict(aux=True))]
              for m, t in [("1d", "f32[8@X]"), ("2d", "f32[8@X,4@Y]"), ("1d", "f32[]")]
              for mode in (TRACE_JIT if t == "f32[8@X]" else ("trace",))]
ROOT_CASES += [Case("root-eager", "2d", _root_case(grad=True), ("f32[8@X,4]",), mode="eager", expect="accept"),
               Case("root-err-tree", "1d", _root_bad, ("f32[8]",), expect="reject", kind=TypeError,
                    phrase="f() output pytree structure must match initial_guess")]


@param(ROOT_CASES)
def test_custom_root(case):
    check(case)
