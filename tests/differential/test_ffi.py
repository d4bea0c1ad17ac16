"""`sc.ffi` against `jax.ffi` (JAX 0.10.2).

* Attributes: every kind of keyword attribute (Python and NumPy scalars of each dtype, arrays as
  dense elements incl. bool / bf16 / f8 / int4 / complex, NaN and inf, dtypes, strings with
  escapes, tuples, dicts) lowers to the same `mhlo.backend_config` dictionary as JAX's (both
  modules parsed by jaxlib's MLIR and the custom call's attributes compared), and the values JAX
  refuses are refused with its error class and message.
* Configurations: layouts (tuples, `Layout`s, defaults), aliases, `has_side_effect`, legacy API
  versions, zero operands / results, scalar and constant operands, declared result dtypes
  (int64 / float64 kept) give the same custom call, attributes, operand and result types.
* Calls for real: LAPACK's CPU FFI handlers (potrf, geqrf, getrf, syevd; f32 and c64), called
  through `jax.ffi.ffi_call` and `sc.ffi.ffi_call` with the same attributes, bit-exact values and
  equal `str(typeof)` and collectives, under `sc.jit` on 1-D..3-D meshes with sharded operands
  and declared result shardings, eagerly, under `sc.vmap` with every `vmap_method` (sharded and
  replicated batch dims, unbatched operands), inside `shard_map`.
* Errors: JAX's (call-time argument checks, aliases, layouts, the verifier's layout check, grad,
  vmap without a method, scan of a sharded batch); an unknown target fails at compile with a
  `ShardcError` naming XLA's reason, not a raw XLA traceback.
"""
from __future__ import annotations

import enum

import jax
import jaxlib.lapack
import ml_dtypes
import numpy as np
import pytest
from jax._src import dtypes as jdt
from jax._src.interpreters import mlir
from jax._src.layout import Layout
from jax._src.lib.mlir import ir
from oracle import Case, check, error_kind, key_phrase, param

import shardc as sc

jaxlib.lapack._lapack.initialize()   # XLA's LAPACK handlers call into jaxlib's LAPACK (as JAX's own ffi_test)

F32 = np.float32


def custom_calls(text: str) -> list[tuple]:
    """Each `stablehlo.custom_call` of a module as MLIR parses it: (its attributes as MLIR prints
    them, operand types, result types)."""
    found = []

    def walk(op):
        for region in op.regions:
            for block in region.blocks:
                for o in block.operations:
                    if o.operation.name == "stablehlo.custom_call":
                        attrs = o.operation.attributes
                        found.append(({name: str(attrs[name]) for name in attrs},
                                      [str(v.type) for v in o.operands], [str(r.type) for r in o.results]))
                    walk(o.operation)

    with mlir.make_ir_context():
        walk(ir.Module.parse(text).operation)
    return found


def lowered(ns, fn, *args):
    """(custom calls, None) of `fn` lowered by `ns`'s jit, or (None, the error)."""
    try:
        text = ns.jit(fn).lower(*args).as_text()
    except Exception as e:  # noqa: BLE001 - the verdict itself is compared
        return None, e
    return custom_calls(text), None


def assert_same_lowering(make, *args):
    """`make(ffi)` (with `ffi` JAX's or shardc's module) lowers to the same custom calls, or both
    refuse it with JAX's error class and message."""
    j, je = lowered(jax, make(jax.ffi), *args)
    s, se = lowered(sc, make(sc.ffi), *args)
    if je is not None or se is not None:
        assert je is not None and se is not None, f"JAX: {je!r}\nshardc: {se!r} / {s}"
        assert isinstance(se, sc.ShardcError), f"shardc raised a non-shardc error: {se!r}"
        kind = error_kind(je)
        assert kind is None or isinstance(se, kind), f"kinds differ: JAX {je!r}, shardc {se!r}"
        assert key_phrase(str(je)) in str(se), f"JAX: {je}\nshardc: {se}"
        return je
    assert s == j
    return j


# --- attributes -----------------------------------------------------------------------------------
class _Enum(enum.IntEnum):
    A = 3


ATTRIBUTES = {
    "int": 1, "neg-int": -3, "int64-max": 2**63 - 1, "int64-min": -2**63, "float": 2.5, "float-tenth": 0.1,
    "float-big": 1e30, "float-tiny": 5e-324, "float-exact": 123456789.0, "neg-zero": -0.0, "true": True,
    "int-enum": _Enum.A, "str": "param", "str-escapes": 's"\\\n\x01é', "bytes": b"xy", "np-str": np.str_("hi"),
    "f16": np.float16(0.1), "f32": np.float32(3), "f32-neg-zero": np.float32(-0.0), "f64": np.float64(1e-300),
    "bf16": ml_dtypes.bfloat16(1.5), "f32-inf": np.float32(np.inf), "f64-nan": np.float64(np.nan),
    "f16-inf": np.float16(-np.inf), "i8": np.int8(-3), "i16": np.int16(7), "i32": np.int32(1), "i64": np.int64(3),
    "u8": np.uint8(76), "u16": np.uint16(9), "u32": np.uint32(2**32 - 1), "u64": np.uint64(5), "bool-np": np.bool_(False),
    "f8-scalar": ml_dtypes.float8_e4m3fn(1), "int4-scalar": jdt.int4(3),
    "arr-i32": np.arange(3, dtype=np.int32), "arr-i64-2d": np.array([[1, 2], [3, 4]]), "arr-f32-0d": np.array(1.5, F32),
    "arr-f32-1": np.array([3.0], F32), "arr-f32-nan": np.array([1.0, np.nan], F32), "arr-f64": np.array([0.1, 0.2]),
    "arr-bool": np.array([True, False]), "arr-bool-splat": np.array([[True]]), "arr-u8": np.array([1, 2, 3], np.uint8),
    "arr-u64": np.array([1, 2**63], np.uint64), "arr-bf16": np.array([1.5, np.nan, np.inf], ml_dtypes.bfloat16),
    "arr-f16": np.array([1, 2, 3], np.float16), "arr-f8": np.array([1, 2, 3], ml_dtypes.float8_e5m2),
    "arr-int4": np.array([1, -2, 3], jdt.int4), "arr-uint2": np.array([1, 2], jdt.uint2),
    "arr-c128": np.array([1 + 2j]), "arr-c64-0d": np.array(1j, np.complex64), "arr-empty": np.array([], F32),
    "arr-zeros-2x3": np.zeros((2, 3), F32), "arr-broadcast": np.broadcast_to(np.arange(2), (3, 2)),
    "float0-0d": np.zeros((), jdt.float0),
    "dtype-f32": np.dtype(F32), "dtype-i8": np.dtype(np.int8), "dtype-bf16": np.dtype(ml_dtypes.bfloat16),
    "dtype-bool": np.dtype(bool), "dtype-c64": np.dtype(np.complex64), "dtype-f8": np.dtype(ml_dtypes.float8_e4m3fn),
    "tuple": (1, 2.0), "tuple-empty": (), "tuple-nested": ((1, "a"),), "dict": {"z": 1, "a": np.float16(2)},
    "dict-tuple": {"x": (1, 2)}, "dict-odd-keys": {"é": 1, "a b": 2},
    # refused, as JAX refuses them (class and message)
    "none": None, "list": [1], "complex": 1 + 2j, "complex64": np.complex64(1), "int-too-big": 2**70,
    "int-too-small": -2**63 - 1, "dict-nested": {"x": {"y": 2}}, "dict-array": {"x": np.arange(2)},
    "tuple-array": (np.arange(2),), "type-object": np.float32, "str-array": np.array(["a"]),
    "float0-1d": np.zeros((2,), jdt.float0), "dict-int-key": {1: 2}, "u64-too-big": np.uint64(2**64 - 1),
}


@pytest.mark.parametrize("name", sorted(ATTRIBUTES))
def test_attribute_encoding_as_jax(name):
    value = ATTRIBUTES[name]
    make = lambda ffi: lambda x: ffi.ffi_call("test_ffi", jax.ShapeDtypeStruct((4,), F32))(x, param=value)
    assert_same_lowering(make, np.ones(4, F32))


def test_many_attributes_sorted_in_one_dictionary():
    kw = {k: ATTRIBUTES[k] for k in ("u8", "str", "arr-f32-nan", "dict", "tuple", "dtype-bf16", "f64-nan")}
    make = lambda ffi: lambda x: ffi.ffi_call("test_ffi", x)(x, **{k.replace("-", "_"): v for k, v in kw.items()})
    assert_same_lowering(make, np.ones(4, F32))


# --- configurations -------------------------------------------------------------------------------
S = jax.ShapeDtypeStruct
A43 = np.ones((4, 3), F32)

CONFIGS = {
    "default": lambda ffi: lambda x: ffi.ffi_call("t", S((4, 3), F32))(x),
    "in-layout-tuple": lambda ffi: lambda x: ffi.ffi_call("t", S((4, 3), F32), input_layouts=[(1, 0)])(x),
    "in-layout-obj": lambda ffi: lambda x: ffi.ffi_call("t", S((4, 3), F32), input_layouts=[Layout((0, 1))])(x),
    "out-layout-single": lambda ffi: lambda x: ffi.ffi_call("t", S((4, 3), F32), output_layouts=(1, 0))(x),
    "out-layouts-seq": lambda ffi: lambda x: ffi.ffi_call("t", [S((4, 3), F32), S((2,), np.int32)],
                                                          output_layouts=[(1, 0), None])(x),
    "aliases": lambda ffi: lambda x: ffi.ffi_call("t", (S((4, 3), F32), S((4, 3), F32)),
                                                  input_output_aliases={1: 1, 0: 0})(x, x * 2),
    "alias-single": lambda ffi: lambda x: ffi.ffi_call("t", S((4, 3), F32), input_output_aliases={0: 0})(x),
    "side-effect": lambda ffi: lambda x: ffi.ffi_call("t", S((4, 3), F32), has_side_effect=True)(x),
    "side-effect-unused": lambda ffi: lambda x: (ffi.ffi_call("t", S((4, 3), F32), has_side_effect=True)(x), x)[1],
    "pure-unused-dropped": lambda ffi: lambda x: (ffi.ffi_call("t", S((4, 3), F32))(x), x + 1)[1],
    "no-operands-no-results": lambda ffi: lambda x: (ffi.ffi_call("lapack_sgetrf_ffi", (), has_side_effect=True)(),
                                                     x)[1],
    "no-results": lambda ffi: lambda x: (ffi.ffi_call("t", [], has_side_effect=True)(x), x)[1],
    "legacy-api2": lambda ffi: lambda x: ffi.ffi_call("t", S((4, 3), F32), custom_call_api_version=2,
                                                      legacy_backend_config="12345")(x),
    "legacy-api3-escapes": lambda ffi: lambda x: ffi.ffi_call("t", S((4, 3), F32), custom_call_api_version=3,
                                                              legacy_backend_config='a"b\\c\n')(x),
    "api1-no-config": lambda ffi: lambda x: ffi.ffi_call("t", S((4, 3), F32), custom_call_api_version=1)(x),
    "api5": lambda ffi: lambda x: ffi.ffi_call("t", S((4, 3), F32), custom_call_api_version=5)(x, a=1),
    "scalar-operands": lambda ffi: lambda x: ffi.ffi_call("t", S((), F32))(x[0, 0], 2, 1.5, True),
    "bool-operand": lambda ffi: lambda x: ffi.ffi_call("t", S((), np.bool_))(x > 0),
    "result-like-operand": lambda ffi: lambda x: ffi.ffi_call("t", x)(x),
    "result-int64": lambda ffi: lambda x: ffi.ffi_call("t", S((), np.int64))(),
    "result-float64": lambda ffi: lambda x: ffi.ffi_call("t", S((2, 2), np.float64))(x),
    "result-uint8-weak": lambda ffi: lambda x: ffi.ffi_call("t", S((3,), np.uint8, weak_type=True))(x),
    "two-calls": lambda ffi: lambda x: ffi.ffi_call("u", S((3,), F32))(ffi.ffi_call("t", S((3,), F32))(x, k=1)),
}


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_custom_call_as_jax(name):
    assert_same_lowering(CONFIGS[name], A43)


REFUSED = {
    "bad-vmap-method": lambda ffi: lambda x: ffi.ffi_call("t", S((4, 3), F32), vmap_method="foo")(x),
    "legacy-config-api4": lambda ffi: lambda x: ffi.ffi_call("t", S((4, 3), F32), legacy_backend_config="1")(x),
    "attrs-api2": lambda ffi: lambda x: ffi.ffi_call("t", S((4, 3), F32), custom_call_api_version=2)(x, a=1),
    "n-input-layouts": lambda ffi: lambda x: ffi.ffi_call("t", S((4, 3), F32), input_layouts=[None, None])(x),
    "n-output-layouts": lambda ffi: lambda x: ffi.ffi_call("t", [S((4, 3), F32)], output_layouts=[None, None])(x),
    "layout-not-permutation": lambda ffi: lambda x: ffi.ffi_call("t", S((4, 3), F32), input_layouts=[(0,)])(x),
    "layout-repeated": lambda ffi: lambda x: ffi.ffi_call("t", S((4, 3), F32), input_layouts=[(0, 0)])(x),
    "out-layout-range": lambda ffi: lambda x: ffi.ffi_call("t", S((4, 3), F32), output_layouts=(1, 2))(x),
    "alias-in-range": lambda ffi: lambda x: ffi.ffi_call("t", S((4, 3), F32), input_output_aliases={1: 0})(x),
    "alias-out-range": lambda ffi: lambda x: ffi.ffi_call("t", S((4, 3), F32), input_output_aliases={0: 1})(x),
    "alias-dtype": lambda ffi: lambda x: ffi.ffi_call("t", S((4, 3), np.int32), input_output_aliases={0: 0})(x),
    "alias-shape": lambda ffi: lambda x: ffi.ffi_call("t", S((4, 3, 4, 3), F32), input_output_aliases={0: 0})(x),
    "alias-layout": lambda ffi: lambda x: ffi.ffi_call("t", S((4, 3), F32), input_output_aliases={0: 0},
                                                       input_layouts=[(1, 0)])(x),
    "result-none": lambda ffi: lambda x: ffi.ffi_call("t", None)(x),
    "result-position-1": lambda ffi: lambda x: ffi.ffi_call("t", (S((), F32), ()))(x),
    "result-dict": lambda ffi: lambda x: ffi.ffi_call("t", {"a": S((4, 3), F32)})(x),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_as_jax(name):
    assert isinstance(assert_same_lowering(REFUSED[name], A43), Exception)


def test_results_keep_their_container():
    for res, kind in [((S((2,), F32),), tuple), ([S((2,), F32)], list)]:
        for ns in (jax, sc):
            assert type(ns.eval_shape(lambda x: ns.ffi.ffi_call("t", res)(x), A43)) is kind


TYPES = [
    Case("int64-result", "2d", lambda ns, x: ns.ffi.ffi_call("t", ns.ShapeDtypeStruct((2,), np.int64))(x),
         ("f32[8@X,4]",)),
    Case("weak-result", "2d", lambda ns, x: ns.ffi.ffi_call("t", ns.ShapeDtypeStruct((2,), F32, weak_type=True))(x),
         ("f32[8@X,4]",)),
    Case("array-as-result", "3d", lambda ns, x: ns.ffi.ffi_call("t", x)(x), ("f32[8@X,4@(Y,Z)]",)),
    Case("scalar-operand-only", "1d", lambda ns, x: ns.ffi.ffi_call("t", ns.ShapeDtypeStruct((), F32))(1.0), ("f32[8@X]",)),
    Case("result-declared-on-mesh", "3d", lambda ns, x: ns.ffi.ffi_call("t", [ns.ShapeDtypeStruct(
        (4, 8), F32, sharding=ns.NamedSharding(ns.mesh("3d"), ns.P("Z", ("X", "Y"))))])(x), ("f32[8@X,4@(Y,Z)]",)),
]


@param(TYPES)
def test_result_types_as_jax(case):
    check(case)


# --- real calls: LAPACK's FFI handlers -----------------------------------------------------------------
def _cm(nd: int) -> tuple[int, ...]:
    """Column-major matrices (major-to-minor), batch dims slowest: LAPACK's layout."""
    return tuple(range(nd - 2)) + (nd - 1, nd - 2)


def potrf(ns, x, vm="sequential", sharding=None, effect=False):
    """Cholesky factor and info (JAX's `_cholesky_cpu_lowering` through ffi_call)."""
    target = {np.dtype(F32): "lapack_spotrf_ffi", np.dtype(np.complex64): "lapack_cpotrf_ffi"}[np.dtype(x.dtype)]
    res = (ns.ShapeDtypeStruct(x.shape, x.dtype, sharding=sharding), ns.ShapeDtypeStruct(x.shape[:-2], np.int32))
    return ns.ffi.ffi_call(target, res, vmap_method=vm, input_output_aliases={0: 0}, input_layouts=[_cm(x.ndim)],
                           output_layouts=[_cm(x.ndim), None], has_side_effect=effect)(x, uplo=np.uint8(ord("L")))


def geqrf(ns, x, vm="sequential"):
    """JAX's own ffi_test helper (`ffi_call_geqrf`)."""
    res = [ns.ShapeDtypeStruct(x.shape, x.dtype), ns.ShapeDtypeStruct(x.shape[:-2] + (min(x.shape[-2:]),), x.dtype)]
    return ns.ffi.ffi_call("lapack_sgeqrf_ffi", res, vmap_method=vm, input_output_aliases={0: 0},
                           input_layouts=[_cm(x.ndim)], output_layouts=[_cm(x.ndim), None])(x)


def getrf(ns, x):
    m, n = x.shape[-2:]
    b = x.shape[:-2]
    res = (ns.ShapeDtypeStruct(x.shape, x.dtype), ns.ShapeDtypeStruct(b + (min(m, n),), np.int32),
           ns.ShapeDtypeStruct(b, np.int32))
    return ns.ffi.ffi_call("lapack_sgetrf_ffi", res, vmap_method="expand_dims", input_output_aliases={0: 0},
                           input_layouts=[_cm(x.ndim)], output_layouts=[_cm(x.ndim), None, None])(x)


def syevd(ns, x):
    b, n = x.shape[:-2], x.shape[-1]
    res = (ns.ShapeDtypeStruct(x.shape, x.dtype), ns.ShapeDtypeStruct(b + (n,), x.dtype),
           ns.ShapeDtypeStruct(b, np.int32))
    return ns.ffi.ffi_call("lapack_ssyevd_ffi", res, vmap_method="broadcast_all", input_output_aliases={0: 0},
                           input_layouts=[_cm(x.ndim)], output_layouts=[_cm(x.ndim), None, None])(
        x, mode=np.uint8(ord("V")), uplo=np.uint8(ord("L")))


def spd(ns, x):
    """A symmetric (Hermitian) positive definite batch from any batch of square matrices."""
    xt = ns.swapaxes(x, -1, -2)
    if x.dtype == np.complex64:
        xt = ns.conj(xt)
    return x @ xt + 4 * ns.eye(x.shape[-1], dtype=x.dtype)


def _sym(ns, x):
    return x + ns.swapaxes(x, -1, -2)


VALUES = [
    Case(f"potrf-{m}-{t}", m, lambda ns, x: potrf(ns, spd(ns, x)), (t,), mode="jit", tol=(0, 0))
    for m, t in [("1d", "f32[8@X,4,4]"), ("2d", "f32[8@X,4,4]"), ("2d", "f32[2@X,4@Y,3,3]"),
                 ("3d", "f32[4@(X,Y),2@Z,3,3]"), ("2d", "f32[4,4]"), ("3d", "c64[4@Z,3,3]")]
] + [
    Case(f"geqrf-{m}-{t}", m, lambda ns, x: geqrf(ns, x), (t,), mode="jit", tol=(0, 0))
    for m, t in [("2d", "f32[6,5]"), ("2d", "f32[8@X,5,6]"), ("3d", "f32[4@Y,6@Z,5]")]
] + [
    Case("getrf-2d", "2d", lambda ns, x: getrf(ns, x), ("f32[8@X,4,3@Y]",), mode="jit", tol=(0, 0)),
    Case("syevd-1d", "1d", lambda ns, x: syevd(ns, _sym(ns, x)), ("f32[8@X,4,4]",), mode="jit", tol=(0, 0)),
    # the declared result sharding is the result's type (XLA places it so)
    Case("potrf-declared-sharding", "2d", lambda ns, x: potrf(
        ns, spd(ns, x), sharding=ns.NamedSharding(ns.mesh("2d"), ns.P("X"))), ("f32[8@Y,4,4]",), mode="jit",
        tol=(0, 0)),
    Case("potrf-declared-pspec", "2d", lambda ns, x: potrf(ns, spd(ns, x), sharding=ns.P(None, "Y")),
         ("f32[8@X,4,4]",), mode="trace"),
    # eagerly, op by op
    Case("potrf-eager", "2d", lambda ns, x: potrf(ns, spd(ns, x)), ("f32[8@X,4,4]",), mode="eager", tol=(0, 0)),
    Case("geqrf-eager", "1d", lambda ns, x: geqrf(ns, x), ("f32[8@X,5,4]",), mode="eager", tol=(0, 0)),
    # an unreduced operand: the handler gets the sum, as in JAX
    Case("potrf-unreduced-operand", "2d", lambda ns, a, b: potrf(ns, spd(ns, ns.dot(
        a, b, out_sharding=ns.P(unreduced={"Y"})))), ("f32[4,8@Y]", "f32[8@Y,4]"), mode="jit", tol=(1e-6, 1e-5)),
]


@param(VALUES)
def test_values_as_jax(case):
    check(case)


VMAP = []
for _vm in ["sequential", "sequential_unrolled", "expand_dims", "broadcast_all", "legacy_vectorized", None]:
    for _t in ["f32[8,4,4]", "f32[8@X,4,4]", "f32[4,8@Y,4]"]:
        _ax = 1 if _t.startswith("f32[4,8") else 0
        VMAP.append(Case(f"vmap-{_vm}-{_t}", "2d", lambda ns, x, vm=_vm, ax=_ax: ns.vmap(
            lambda r: potrf(ns, r, vm), in_axes=ax)(spd(ns, ns.moveaxis(x, ax, 0))), (_t,),
            mode="jit" if _t == "f32[8@X,4,4]" or _vm == "expand_dims" else "trace", tol=(0, 0)))
    # an unbatched operand beside a batched one (broadcast, or closed over by the scan)
    VMAP.append(Case(f"vmap-unbatched-{_vm}", "2d", lambda ns, x, y, vm=_vm: ns.vmap(
        lambda r, c: ns.ffi.ffi_call("lapack_strsm_ffi", ns.ShapeDtypeStruct(r.shape, r.dtype), vmap_method=vm,
                                     input_layouts=[(1, 0), (1, 0)], output_layouts=(1, 0))(
            c, r, side=np.uint8(76), uplo=np.uint8(76), trans_x=np.uint8(78), diag=np.uint8(78)),
        in_axes=(0, None))(x, spd(ns, y)), ("f32[8,4,3]", "f32[4,4]"), tol=(0, 0),
        # (run only where every operand has the whole batch: with a size-1 or missing batch dim
        # LAPACK's trsm reads past the unbatched operand, on either side)
        mode="jit" if _vm in ("sequential", "sequential_unrolled", "broadcast_all") else "trace"))
VMAP.append(Case("vmap-geqrf-3d-nested", "3d", lambda ns, x: ns.vmap(ns.vmap(
    lambda r: geqrf(ns, r, "expand_dims")))(x), ("f32[2@X,2,6,5]",), mode="jit", tol=(0, 0)))


@param(VMAP)
def test_vmap_methods_as_jax(case):
    check(case)


def test_vmap_layouts_as_jax():
    """The batched calls' layouts (batch dim most major) and the sequential scan's inner call."""
    x = np.ones((8, 3, 4, 4), F32)
    for vm in ["expand_dims", "broadcast_all", "legacy_vectorized", "sequential"]:
        def make(ffi, vm=vm):
            ns = jax if ffi is jax.ffi else sc
            return lambda a: ns.vmap(lambda r: potrf(ns, r, vm))(a)
        assert_same_lowering(make, x)


def _smap_potrf(ns, x, **kw):
    def body(b):
        ns.note(b, "in")
        r, info = potrf(ns, b)
        ns.note(r, "out")
        return r, info
    return ns.shard_map(body, in_specs=ns.P("X"), out_specs=(ns.P("X"), ns.P("X")), **kw)(spd(ns, x))


SHARD_MAP = [
    Case("smap-jit", "2d", _smap_potrf, ("f32[8@X,4,4]",), mode="jit", tol=(0, 0)),
    Case("smap-eager", "2d", _smap_potrf, ("f32[8@X,4,4]",), mode="eager", tol=(0, 0)),
    Case("smap-no-check-vma", "2d", lambda ns, x: _smap_potrf(ns, x, check_vma=False), ("f32[8@X,4,4]",),
         mode="jit", tol=(0, 0)),
    Case("smap-3d-geqrf", "3d", lambda ns, x: ns.shard_map(lambda b: geqrf(ns, b), in_specs=ns.P(("X", "Z")),
                                                          out_specs=[ns.P(("X", "Z"))] * 2)(x),
         ("f32[8@(X,Z),4,5]",), mode="jit", tol=(0, 0)),
    # operands varying over different axes: JAX's auto pcast makes them agree first
    Case("smap-mixed-vma", "2d", lambda ns, x, y: ns.shard_map(
        lambda b, c: ns.note(ns.ffi.ffi_call("t", ns.ShapeDtypeStruct(b.shape, b.dtype))(b, c)),
        in_specs=(ns.P("X"), ns.P()), out_specs=ns.P())(x, y), ("f32[8@X,4]", "f32[8,4]"), mode="trace"),
]


@param(SHARD_MAP)
def test_shard_map_as_jax(case):
    check(case)


# --- refused as JAX refuses ----------------------------------------------------------------------------
def _loss(ns, x):
    return ns.sum(potrf(ns, spd(ns, x))[0])


ERRORS = [
    Case("grad", "2d", lambda ns, x: ns.grad(lambda y: _loss(ns, y))(x), ("f32[8@X,4,4]",),
         expect="reject", kind=ValueError, phrase="The FFI call to `lapack_spotrf_ffi` cannot be differentiated"),
    Case("grad-jit-value-and-grad", "1d", lambda ns, x: ns.value_and_grad(lambda y: _loss(ns, y))(x),
         ("f32[8@X,3,3]",), expect="reject", kind=ValueError),
    # the call on an argument not differentiated: differentiable around it
    Case("grad-around", "2d", lambda ns, x, z: ns.grad(lambda y: ns.sum(y * potrf(ns, spd(ns, z))[0]))(x),
         ("f32[8@X,4,4]", "f32[8@X,4,4]"), mode="jit", expect="accept", tol=(1e-6, 1e-6)),
    # an effectful call whose result the backward pass of a scan needs: JAX fails in XLA ("Side-effect ops
    # cannot be replicated"); shardc refuses with a ShardcError (its replay of the body once read the
    # skipped call's results: a KeyError)
    Case("grad-scan-effect", "2d", lambda ns, x, z: ns.grad(lambda y: ns.sum(ns.lax.scan(
        lambda c, w: (c * potrf(ns, spd(ns, w), effect=True)[0][0, 0], None), y, z)[0]))(x),
         ("f32[4]", "f32[3,4,4]"), mode="jit", quirk=True),
    Case("vmap-none", "1d", lambda ns, x: ns.vmap(lambda r: potrf(ns, r, None))(x), ("f32[8,4,4]",),
         expect="reject", kind=NotImplementedError),
    Case("vmap-sequential-sharded-batch", "1d", lambda ns, x: ns.vmap(lambda r: potrf(ns, r, "sequential"))(x),
         ("f32[8@X,4,4]",), expect="reject", kind=ValueError, phrase="0th dimension of all xs should be replicated"),
]


@param(ERRORS)
def test_errors_as_jax(case):
    check(case)


def test_unknown_target_fails_at_compile_with_a_shardc_error():
    x = np.ones(4, F32)
    with pytest.raises(jax.errors.JaxRuntimeError) as je:
        jax.jit(lambda a: jax.ffi.ffi_call("no_such_target", jax.ShapeDtypeStruct((4,), F32))(a))(x)
    f = sc.jit(lambda a: sc.ffi.ffi_call("no_such_target", sc.ShapeDtypeStruct((4,), F32))(a))
    assert "no_such_target" in f.lower(x).as_text()      # lowers: only XLA knows its targets
    with pytest.raises(sc.ShardcRuntimeError) as se:
        f(x)
    assert "No FFI handler registered for no_such_target" in str(je.value)
    assert "No FFI handler registered for no_such_target" in str(se.value)
    assert "test_ffi.py" in str(se.value) and se.value.__cause__ is None


# --- the rest of the module ----------------------------------------------------------------------------
def test_registration_helpers_as_jax():
    assert sc.ffi.include_dir() == jax.ffi.include_dir()
    for f in (sc.ffi, jax.ffi):
        with pytest.raises(ValueError, match="register_ffi_type_id is not supported after jaxlib version 381"):
            f.register_ffi_type_id("t", None)
    import ctypes
    fn = ctypes.CFUNCTYPE(None)(lambda: None)
    cap = sc.ffi.pycapsule(ctypes.cast(fn, ctypes.c_void_p).value)
    assert type(cap).__name__ == "PyCapsule" == type(jax.ffi.pycapsule(ctypes.cast(fn, ctypes.c_void_p).value)).__name__
    for name in ("ffi_lowering", "build_ffi_lowering_function"):
        with pytest.raises(sc.ShardcNotImplementedError, match="mlir.LoweringRuleContext"):
            getattr(sc.ffi, name)("t")
    assert sorted(n for n in dir(jax.ffi) if not n.startswith("_")) == sorted(sc.ffi.__all__)


def test_batch_partitionable_registration_as_jax():
    """After `register_ffi_target_as_batch_partitionable` (JAX's BatchPartitioningTest target), calls
    through ffi_call compile and run as JAX's: the same values, types and collectives (ffi_call writes
    no `num_batch_dims` frontend attribute, in JAX too, so XLA still gathers the batch)."""
    for ffi in (sc.ffi, jax.ffi):
        ffi.register_ffi_target_as_batch_partitionable("lapack_sgeqrf_ffi")
    check(Case("batch-partitionable", "1d", lambda ns, x: geqrf(ns, x), ("f32[8@X,4,5]",), mode="jit", tol=(0, 0)))
