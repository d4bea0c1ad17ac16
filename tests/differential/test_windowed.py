"""Differential: `lax.reduce_window` (max / min / avg pooling, the generic body form),
`lax.reduce` (monoids and custom bodies), `reduce_xor`, `reduce_precision`,
`associative_scan`, `approx_max_k` / `approx_min_k` and the cumulative ops' gradients
against JAX 0.10.2.

The pooling table: 1-D / 2-D / 3-D windows in NWC / NHWC / NCHW / NDHWC layouts, strides,
SAME / VALID / explicit padding, base and window dilations, f32 / bf16 / i32, and the
operand sharded on its batch, feature or a pooled (window) dim on 1-D to 3-D meshes: a
pooled sharded dim is accepted when the pooled size stays divisible by its mesh axes, and
otherwise is JAX's "reduce_window on sharded dims ..." error. Every case is compared by
trace (accept/reject, error class and phrase, `str(typeof)`), a sample compiled (values,
output shardings, collectives at most JAX's) and a sample differentiated (max/min pooling
go through `select_and_scatter_add`, avg pooling through the padded window-sum transpose).
"""
from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest
from oracle import JAX, SC, Case, MeshSpec, Placed, check_eager, check_types, check_values, param, sample

#: layout -> (rank, spatial dims); shapes keep every dim divisible by 8 where it can be sharded
LAYOUTS = {
    "NWC": ((8, 8, 4), (1,)),
    "NHWC": ((8, 8, 8, 4), (1, 2)),
    "NCHW": ((8, 4, 8, 8), (2, 3)),
    "NDHWC": ((4, 4, 4, 4, 2), (1, 2, 3)),
}
#: window configurations: (window, stride, padding, base_dilation, window_dilation) per spatial dim
WINDOWS = {
    "w2s2-valid": (2, 2, "VALID", 1, 1),
    "w3s1-same": (3, 1, "SAME", 1, 1),
    "w3s2-same": (3, 2, "SAME", 1, 1),
    "w2s1-samelower": (2, 1, "SAME_LOWER", 1, 1),
    "w3s2-explicit": (3, 2, (1, 1), 1, 1),
    "w2s2-asym": (2, 2, (1, 0), 1, 1),
    "w2s1-wdil2": (2, 1, "VALID", 1, 2),
    "w2s2-bdil2": (2, 2, (0, 1), 2, 1),
}
KINDS = ("max", "min", "avg")


def _window_args(layout: str, cfg: str):
    shape, spatial = LAYOUTS[layout]
    w, s, pad, bd, wd = WINDOWS[cfg]
    nd = len(shape)
    wdims = tuple(w if i in spatial else 1 for i in range(nd))
    strides = tuple(s if i in spatial else 1 for i in range(nd))
    padding = pad if isinstance(pad, str) else tuple(pad if i in spatial else (0, 0) for i in range(nd))
    base = tuple(bd if i in spatial else 1 for i in range(nd))
    wdil = tuple(wd if i in spatial else 1 for i in range(nd))
    return wdims, strides, padding, base, wdil


def pool(kind: str, layout: str, cfg: str):
    wdims, strides, padding, base, wdil = _window_args(layout, cfg)

    def fn(ns, x):
        lax = ns.lax
        if kind == "max":
            return lax.reduce_window(x, -np.inf, lax.max, wdims, strides, padding, base, wdil)
        if kind == "min":
            return lax.reduce_window(x, np.inf, lax.min, wdims, strides, padding, base, wdil)
        init = 0 if x.dtype == np.int32 else 0.0
        y = lax.reduce_window(x, init, lax.add, wdims, strides, padding, base, wdil)
        return y if x.dtype == np.int32 else y / float(np.prod(wdims))
    return fn


def _pool_grad(kind, layout, cfg):
    f = pool(kind, layout, cfg)
    return lambda ns, x: ns.grad(lambda y: ns.sum(f(ns, y).astype(np.float32)))(x)


MESH_AXES = {"1d": {"X": 8}, "2d": {"X": 2, "Y": 4}, "3d": {"X": 2, "Y": 2, "Z": 2}}


def _specs(layout: str, mesh: str) -> list[tuple]:
    """Replicated; batch on X; feature on the last axis; batch and feature; a pooled dim on X."""
    shape, spatial = LAYOUTS[layout]
    axes = MESH_AXES[mesh]
    names = list(axes)
    nd = len(shape)
    feat = 1 if layout == "NCHW" else nd - 1
    out = [(None,) * nd]

    def put(d, a):
        return shape[d] % axes[a] == 0

    def spec(**m):
        return tuple(m.get(f"d{i}") for i in range(nd))

    if put(0, names[0]):
        out.append(spec(d0=names[0]))
    if len(names) > 1 and put(feat, names[-1]):
        out.append(spec(**{f"d{feat}": names[-1]}))
        if put(0, names[0]):
            out.append(spec(d0=names[0], **{f"d{feat}": names[-1]}))
    if put(spatial[0], names[0]):
        out.append(spec(**{f"d{spatial[0]}": names[0]}))
    return out


def _type(dtype: str, shape, spec) -> str:
    return f"{dtype}[" + ",".join(f"{n}@{s}" if s else str(n) for n, s in zip(shape, spec)) + "]"


def _sid(spec) -> str:
    return "".join(s or "_" for s in spec)


def _pool_table() -> list[Case]:
    cases = []
    for kind, layout, cfg, dtype, mesh in itertools.product(KINDS, LAYOUTS, WINDOWS, ("f32", "bf16", "i32"),
                                                            ("1d", "2d", "3d")):
        shape = LAYOUTS[layout][0]
        for spec in _specs(layout, mesh):
            cases.append(Case(f"{kind}-{layout}-{cfg}-{dtype}-{mesh}-{_sid(spec)}", mesh, pool(kind, layout, cfg),
                              (_type(dtype, shape, spec),), collectives="at_most"))
    return cases


TABLE = _pool_table()
TRACE = sample(TABLE, 400, salt="windowed-trace")
RUN = sample([c for c in TABLE if "-3d-" not in c.id and "NDHWC" not in c.id], 16, salt="windowed-run")
GRAD = [Case(c.id + "-grad", c.mesh, _pool_grad(*c.id.split("-")[:2], "-".join(c.id.split("-")[2:4])), c.args,
             collectives="at_most")
        for c in sample([c for c in TABLE if "-f32-" in c.id and "NDHWC" not in c.id and "-3d-" not in c.id], 12,
                        salt="windowed-grad")]


def test_table_covers_sharded_pooled_dims():
    """The sampled table pools over sharded window dims (JAX accepts 387 of the 400 sampled cases and
    rejects 13 with its "reduce_window on sharded dims" error) besides sharded batch / feature dims."""
    assert len(TABLE) > 1500
    pooled = [c for c in TRACE if any(f"{n}@" in c.args[0].split(",")[d]
                                      for d in LAYOUTS[c.id.split("-")[1]][1] for n in (8, 4))]
    assert len(pooled) > 40


@param(TRACE)
def test_pool_types(case):
    check_types(case)


@param(RUN)
def test_pool_values(case):
    check_values(case)


@param(GRAD)
def test_pool_grads(case):
    check_values(case)


# --- hand-written programs ---------------------------------------------------------------------
C = Case


def _rw(x_init, body, *window):
    return lambda ns, x: ns.lax.reduce_window(x, x_init, body(ns), *window)


def _mul_plus(ns):
    return lambda a, b: a * b + 1.0


def _pair_body(ns):
    return lambda a, b: (a[0] + b[0], ns.lax.max(a[1], b[1]))


def _argmax_body(ns):
    def body(a, b):
        take = a[0] >= b[0]
        return ns.lax.select(take, a[0], b[0]), ns.lax.select(take, a[1], b[1])
    return body


def _scan_affine(ns):
    """A linear recurrence h_t = a_t h_{t-1} + b_t as a pytree scan."""
    return lambda x, y: (x[0] * y[0], y[0] * x[1] + y[1])


SMALL = np.linspace(-2, 2, 64, dtype=np.float32).reshape(8, 8)
POS = (np.arange(64, dtype=np.float32).reshape(8, 8) % 7 + 1) / 4
PREC = np.array([1.0, 1.0009765625, 1.00048828125, 3.14159265, -65504.0, 65520.0, 1e-8, 6.1e-5, -0.0, np.inf,
                 -np.inf, np.nan, 1e38, 2.5e-39, 0.1, 1 / 3], np.float32).reshape(2, 8)

PROGRAMS = [
    # generic reduce_window: custom bodies, pytrees, sharded batch dims
    C("rw-generic-mul-plus", "2d", _rw(1.0, _mul_plus, (2, 2), (2, 2), "VALID"), ("f32[8@X,8@Y]",)),
    C("rw-generic-same", "2d", _rw(1.0, _mul_plus, (1, 3), (1, 1), "SAME"), ("f32[8@X,8]",)),
    C("rw-generic-uneven-sharded", "2d", _rw(1.0, _mul_plus, (2, 2), (1, 1), "VALID"), ("f32[8@X,8@Y]",)),
    C("rw-generic-jnp-max", "1d", lambda ns, x: ns.lax.reduce_window(x, -np.inf, ns.maximum, (2, 2), (2, 2), "VALID"),
      ("f32[8@X,8]",)),
    C("rw-generic-pytree", "2d", lambda ns, x: ns.lax.reduce_window((x, x * 2), (0.0, -np.inf), _pair_body(ns),
                                                                    (2, 1), (2, 1), "VALID"), ("f32[8,8@Y]",)),
    C("rw-generic-argmax", "1d", lambda ns, x: ns.lax.reduce_window(
        (x, ns.lax.broadcasted_iota(np.int32, (8, 8), 1)), (-np.inf, np.int32(0)), _argmax_body(ns), (1, 4), (1, 4),
        "VALID"), ("f32[8@X,8]",)),
    C("rw-prod-i32", "2d", lambda ns, x: ns.lax.reduce_window(x, np.int32(1), ns.lax.mul, (2, 2), (1, 1), "SAME"),
      ("i32[8@X,8]",)),
    C("rw-sum-bool-init-int-weak", "2d", lambda ns, x: ns.lax.reduce_window(x, 0, ns.lax.add, (2, 2), (2, 2), "VALID"),
      ("i32[8@X,8@Y]",)),
    C("rw-max-i32-float-init", "2d", lambda ns, x: ns.lax.reduce_window(x, -np.inf, ns.lax.max, (3, 1), (1, 1),
                                                                        "SAME"), ("i32[8@X,8@Y]",)),
    C("rw-max-bool", "2d", lambda ns, x: ns.lax.reduce_window(x, False, ns.lax.max, (2, 2), (2, 2), "VALID"),
      ("bool[8@X,8]",)),
    C("rw-rank0", "1d", lambda ns, x: ns.lax.reduce_window(x, 0.0, ns.lax.add, (), (), "VALID"), ("f32[]",)),
    C("rw-shape-tuple", "1d", lambda ns, x: x + ns.lax.reduce_window_shape_tuple((8, 8), (3, 3), (2, 2),
                                                                                 ((1, 1), (0, 1)))[0],
      ("f32[8@X]",)),
    C("rw-default-strides-valid", "2d", lambda ns, x: ns.lax.reduce_window(x, -np.inf, ns.lax.max, (2, 2)),
      ("f32[8,8@Y]",)),
    C("rw-default-strides-same", "2d", lambda ns, x: ns.lax.reduce_window(x, -np.inf, ns.lax.max, (2, 2),
                                                                         padding="SAME"), ("f32[8,8]",)),
    C("rw-padding-lowercase", "2d", lambda ns, x: ns.lax.reduce_window(x, 0.0, ns.lax.add, (3, 3), (2, 2), "same"),
      ("f32[8@X,8]",)),
    C("rw-padding-lists", "2d", lambda ns, x: ns.lax.reduce_window(x, 0.0, ns.lax.add, [2, 2], [2, 2], [[1, 1], [0, 0]]),
      ("f32[8,8@Y]",)),
    C("rw-negative-padding", "1d", lambda ns, x: ns.lax.reduce_window(x, 0.0, ns.lax.add, (2, 2), (1, 1),
                                                                      ((-1, 0), (0, -2))), ("f32[8,8]",)),
    # errors of the shape rule, the argument handling, the dtype checks
    C("err-window-rank", "1d", _rw(0.0, lambda ns: ns.lax.add, (2,), (1,), "VALID"), ("f32[8,8]",)),
    C("err-window-zero", "1d", _rw(0.0, lambda ns: ns.lax.add, (0, 2), (1, 1), "VALID"), ("f32[8,8]",)),
    C("err-stride-zero", "1d", _rw(-np.inf, lambda ns: ns.lax.max, (2, 2), (0, 1), "VALID"), ("f32[8,8]",)),
    C("err-strides-len", "1d", _rw(-np.inf, lambda ns: ns.lax.max, (2, 2), (1,), ((0, 0), (0, 0))), ("f32[8,8]",)),
    C("err-padding-string", "1d", _rw(0.0, lambda ns: ns.lax.add, (2, 2), (1, 1), "FULL"), ("f32[8,8]",)),
    C("err-init-dtype", "1d", _rw(1.0, _mul_plus, (2, 2), (1, 1), "VALID"), ("bf16[8,8]",)),
    C("err-bool-sum", "1d", _rw(False, lambda ns: ns.lax.add, (2, 2), (1, 1), "VALID"), ("bool[8,8]",)),
    C("err-tree-mismatch", "1d", lambda ns, x: ns.lax.reduce_window((x, x), 0.0, ns.lax.add, (2, 2)), ("f32[8,8]",)),
    C("err-closure", "1d", lambda ns, x: ns.lax.reduce_window(x, 1.0, lambda a, b: a * b + x[0, 0], (2, 2)),
      ("f32[8,8]",)),
    C("err-unreduced", "2d", lambda ns, x: ns.lax.reduce_window(x, -np.inf, ns.lax.max, (2, 2), (2, 2)),
      ("f32[8,8]{U:X}",)),
    C("err-wdil-grad", "1d", lambda ns, x: ns.grad(lambda y: ns.sum(ns.lax.reduce_window(
        y, -np.inf, ns.lax.max, (2, 2), (1, 1), "VALID", None, (2, 1))))(x), ("f32[8,8]",)),
    C("err-generic-grad", "1d", lambda ns, x: ns.grad(lambda y: ns.sum(ns.lax.reduce_window(
        y, 1.0, _mul_plus(ns), (2, 2), (2, 2))))(x), ("f32[8,8]",)),
    # gradients: base dilation, overlapping windows, sharded batch, sum with strides
    C("grad-max-bdil", "2d", lambda ns, x: ns.grad(lambda y: ns.sum(ns.lax.reduce_window(
        y, -np.inf, ns.lax.max, (2, 2), (1, 1), "VALID", (2, 1))))(x), (Placed(spec=("X",), value=SMALL),)),
    C("grad-max-overlap-sharded", "2d", lambda ns, x: ns.grad(lambda y: ns.sum(ns.lax.reduce_window(
        y, -np.inf, ns.lax.max, (3, 3), (1, 1), "SAME") ** 2))(x), (Placed(spec=("X", None), value=SMALL),)),
    C("grad-min-window-sharded", "2d", lambda ns, x: ns.grad(lambda y: ns.sum(ns.lax.reduce_window(
        y, np.inf, ns.lax.min, (2, 2), (2, 2), "VALID")))(x), (Placed(spec=("X", "Y"), value=SMALL),)),
    C("grad-sum-window-sharded", "2d", lambda ns, x: ns.grad(lambda y: ns.sum(ns.lax.reduce_window(
        y, 0.0, ns.lax.add, (2, 2), (2, 2), "VALID")))(x), ("f32[8@X,8@Y]",)),
    C("grad-sum-dilated", "1d", lambda ns, x: ns.grad(lambda y: ns.sum(ns.sin(ns.lax.reduce_window(
        y, 0.0, ns.lax.add, (2, 3), (2, 1), ((1, 0), (2, 1)), (1, 2), (2, 1)))))(x), ("f32[8,8]",)),
    C("grad-of-grad-max", "1d", lambda ns, x: ns.grad(lambda z: ns.sum(ns.grad(lambda y: ns.sum(ns.lax.reduce_window(
        y, -np.inf, ns.lax.max, (2, 2), (2, 2), "VALID") ** 2))(z) * z))(x), (Placed(spec=(), value=SMALL),)),
    C("jvp-max", "2d", lambda ns, x: ns.jvp(lambda y: ns.lax.reduce_window(y, -np.inf, ns.lax.max, (2, 2), (1, 1),
                                                                          "SAME"), (x,), (x * 0.5,)),
      (Placed(spec=("X",), value=SMALL),)),
    # vmap of pooling, of its gradient, of the generic form
    C("vmap-maxpool", "2d", lambda ns, x: ns.vmap(lambda img: ns.lax.reduce_window(
        img, -np.inf, ns.lax.max, (2, 2, 1), (2, 2, 1), "VALID"))(x), ("f32[8@X,8,8,4@Y]",)),
    C("vmap-avgpool-axis1", "2d", lambda ns, x: ns.vmap(lambda img: ns.lax.reduce_window(
        img, 0.0, ns.lax.add, (3, 3), (1, 1), "SAME"), in_axes=1)(x), ("f32[8,4@Y,8]",)),
    C("vmap-grad-maxpool", "2d", lambda ns, x: ns.vmap(ns.grad(lambda img: ns.sum(ns.lax.reduce_window(
        img, -np.inf, ns.lax.max, (2, 2), (1, 1), "SAME"))))(x), (Placed(spec=("X",), value=np.stack([SMALL] * 8)),)),
    C("vmap-generic", "2d", lambda ns, x: ns.vmap(lambda r: ns.lax.reduce_window(
        r, 1.0, _mul_plus(ns), (2,), (2,), "VALID"))(x), ("f32[8@X,8]",)),
    # inside shard_map: per-device pooling, a varying operand and an invariant init value
    C("smap-maxpool", "2d", lambda ns, x: ns.shard_map(lambda b: ns.lax.reduce_window(
        b, -np.inf, ns.lax.max, (2, 2), (2, 2), "VALID"), in_specs=ns.P("X", "Y"), out_specs=ns.P("X", "Y"))(x),
      ("f32[8@X,8@Y]",)),
    C("smap-generic-rw", "2d", lambda ns, x: ns.shard_map(lambda b: ns.lax.reduce_window(
        b, 1.0, _mul_plus(ns), (1, 2), (1, 2), "VALID"), in_specs=ns.P("X"), out_specs=ns.P("X"))(x),
      ("f32[8@X,8]",)),
    C("smap-reduce-body", "2d", lambda ns, x: ns.shard_map(lambda b: ns.lax.reduce(
        b, 1.0, _mul_plus(ns), (1,)), in_specs=ns.P("X"), out_specs=ns.P("X"))(x), ("f32[8@X,8]",)),
    C("smap-grad-avgpool", "2d", lambda ns, x: ns.shard_map(ns.grad(lambda b: ns.sum(ns.lax.reduce_window(
        b, 0.0, ns.lax.add, (2, 2), (1, 1), "SAME"))), in_specs=ns.P("X"), out_specs=ns.P("X"))(x),
      ("f32[8@X,8]",)),
    # Auto axes (no sharding rule runs: XLA places the windows) and a mixed Explicit/Auto mesh
    C("auto-maxpool-uneven", "2d_auto", lambda ns, x: ns.lax.reduce_window(x, -np.inf, ns.lax.max, (3, 3), (1, 1),
                                                                          "VALID"), ("f32[8,8]",)),
    C("auto-generic-grad-avg", "2d_auto", lambda ns, x: ns.grad(lambda y: ns.sum(ns.lax.reduce_window(
        y, 0.0, ns.lax.add, (2, 2), (1, 1), "SAME")))(x), ("f32[8,8]",)),
    C("mixed-maxpool-grad", MeshSpec((2, 4), ("X", "Y"), "EA"), lambda ns, x: ns.grad(lambda y: ns.sum(
        ns.lax.reduce_window(y, -np.inf, ns.lax.max, (2, 3), (2, 1), "SAME")))(x), ("f32[8@X,8]",)),
    # generic lax.reduce: monoids (with their weak types) and bodies
    C("reduce-monoid-add", "2d", lambda ns, x: ns.lax.reduce(x, 0.0, ns.lax.add, (1,)), ("f32[8@X,8@Y]",)),
    C("reduce-monoid-add-weak", "1d", lambda ns, x: ns.lax.reduce(x * 0 + 1.0, 0.0, ns.lax.add, (0,)), ("f32[8@X]",)),
    C("reduce-monoid-max-i32", "2d", lambda ns, x: ns.lax.reduce(x, np.iinfo(np.int32).min, ns.lax.max, (0,)),
      ("i32[8@X,8@Y]",)),
    C("reduce-monoid-mul", "2d", lambda ns, x: ns.lax.reduce(x, 1.0, ns.lax.mul, (0, 1)), ("f32[8@X,8]",)),
    C("reduce-monoid-or", "2d", lambda ns, x: ns.lax.reduce(x, False, ns.lax.bitwise_or, (1,)), ("bool[8@X,8]",)),
    C("reduce-monoid-xor", "2d", lambda ns, x: ns.lax.reduce(x, np.int32(0), ns.lax.bitwise_xor, (1,)),
      ("i32[8@X,8@Y]",)),
    C("reduce-monoid-and", "2d", lambda ns, x: ns.lax.reduce(x, np.int32(-1), ns.lax.bitwise_and, (0,)),
      ("i32[8@X,8@Y]",)),
    C("reduce-body", "2d", lambda ns, x: ns.lax.reduce(x, 1.0, _mul_plus(ns), (1,)), ("f32[8@X,8@Y]",)),
    C("reduce-body-non-identity", "2d", lambda ns, x: ns.lax.reduce(x, 1.0, ns.lax.add, (0,)), ("f32[8@X,8@Y]",)),
    C("reduce-argmax", "1d", lambda ns, x: ns.lax.reduce((x, ns.lax.broadcasted_iota(np.int32, (8, 8), 1)),
                                                         (-np.inf, np.int32(0)), _argmax_body(ns), (1,)),
      ("f32[8@X,8]",)),
    C("reduce-err-init-shape", "1d", lambda ns, x: ns.lax.reduce(x, x[0], _mul_plus(ns), (0,)), ("f32[8,8]",)),
    C("reduce-err-dtype", "1d", lambda ns, x: ns.lax.reduce(x, 1.0, _mul_plus(ns), (0,)), ("bf16[8,8]",)),
    C("reduce-grad-body", "2d", lambda ns, x: ns.grad(lambda y: ns.sum(ns.lax.reduce(y, 1.0, ns.lax.mul, (1,))))(x),
      (Placed(spec=("X",), value=POS),)),
    C("reduce-grad-custom", "2d", lambda ns, x: ns.grad(lambda y: ns.sum(ns.lax.reduce(
        y, 0.0, lambda a, b: a * b + a, (0, 1))))(x), (Placed(spec=(), value=POS[:3, :5]),)),
    C("reduce-grad-odd", "1d", lambda ns, x: ns.grad(lambda y: ns.sum(ns.lax.reduce(
        y, 1.0, lambda a, b: a * b, (0,))))(x), (Placed(spec=(None, "X"), value=np.tile(POS[:7], (1, 1))),)),
    C("vmap-reduce-body", "2d", lambda ns, x: ns.vmap(lambda r: ns.lax.reduce(r, 1.0, _mul_plus(ns), (0,)))(x),
      ("f32[8@X,8]",)),
    # reduce_xor, reduce_precision
    C("reduce-xor-i32", "2d", lambda ns, x: ns.lax.reduce_xor(x, (1,)), ("i32[8@X,8@Y]",)),
    C("reduce-xor-bool", "3d", lambda ns, x: ns.lax.reduce_xor(x, (0, 2)), ("bool[4@X,4@Y,4@Z]",)),
    C("reduce-xor-err-float", "1d", lambda ns, x: ns.lax.reduce_xor(x, (0,)), ("f32[8]",)),
    C("vmap-reduce-xor", "2d", lambda ns, x: ns.vmap(lambda r: ns.lax.reduce_xor(r, (0,)))(x), ("i32[8@X,8@Y]",)),
    C("reduce-precision-e5m10", "2d", lambda ns, x: ns.lax.reduce_precision(x, 5, 10),
      (Placed(spec=("X",), value=PREC),), tol=(0, 0)),
    C("reduce-precision-e8m7", "1d", lambda ns, x: ns.lax.reduce_precision(x, 8, 7), (Placed(spec=(), value=PREC),),
      tol=(0, 0)),
    C("reduce-precision-e4m3", "1d", lambda ns, x: ns.lax.reduce_precision(x, 4, 3), (Placed(spec=(), value=PREC),),
      tol=(0, 0)),
    C("reduce-precision-e2m0", "1d", lambda ns, x: ns.lax.reduce_precision(x, 2, 0), (Placed(spec=(), value=PREC),),
      tol=(0, 0)),
    C("reduce-precision-bf16", "2d", lambda ns, x: ns.lax.reduce_precision(x, 5, 2), ("bf16[8@X,8@Y]",), tol=(0, 0)),
    C("reduce-precision-unreduced", "2d", lambda ns, x: ns.lax.reduce_precision(x, 5, 10), ("f32[8,8]{U:X}",)),
    C("reduce-precision-err-int", "1d", lambda ns, x: ns.lax.reduce_precision(x, 5, 10), ("i32[8]",)),
    C("reduce-precision-err-bits", "1d", lambda ns, x: ns.lax.reduce_precision(x, 0, 10), ("f32[8]",)),
    C("reduce-precision-err-mant", "1d", lambda ns, x: ns.lax.reduce_precision(x, 5, -1), ("f32[8]",)),
    C("reduce-precision-grad", "2d", lambda ns, x: ns.grad(lambda y: ns.sum(ns.lax.reduce_precision(y, 5, 2) * y))(x),
      ("f32[8@X,8@Y]",)),
    C("vmap-reduce-precision", "2d", lambda ns, x: ns.vmap(lambda r: ns.lax.reduce_precision(r, 4, 3))(x),
      ("f32[8@X,8@Y]",), tol=(0, 0)),
    # associative_scan (JAX's algorithm: values and shardings, a sharded scanned dim errs as JAX's slicing)
    C("ascan-add", "2d", lambda ns, x: ns.lax.associative_scan(ns.lax.add, x, axis=1), ("f32[8@X,8]",)),
    C("ascan-add-odd", "1d", lambda ns, x: ns.lax.associative_scan(ns.add, x), ("f32[7,8@X]",)),
    C("ascan-mul-reverse", "2d", lambda ns, x: ns.lax.associative_scan(ns.multiply, x, reverse=True, axis=-1),
      ("f32[8@X,5]",)),
    C("ascan-max-i32", "2d", lambda ns, x: ns.lax.associative_scan(ns.maximum, x, axis=0), ("i32[6,8@Y]",)),
    C("ascan-or-bool", "1d", lambda ns, x: ns.lax.associative_scan(ns.logical_or, x, axis=1), ("bool[8@X,9]",)),
    C("ascan-pytree", "2d", lambda ns, a, b: ns.lax.associative_scan(_scan_affine(ns), (a, b), axis=1),
      ("f32[8@X,8]", "f32[8@X,8]")),
    C("ascan-sharded-axis", "2d", lambda ns, x: ns.lax.associative_scan(ns.lax.add, x, axis=0), ("f32[8@X,8]",)),
    C("ascan-rank3", "3d", lambda ns, x: ns.lax.associative_scan(ns.add, x, axis=1), ("f32[4@X,6,4@Z]",)),
    C("ascan-err-lengths", "1d", lambda ns, a, b: ns.lax.associative_scan(lambda x, y: (x[0] + y[0], x[1] + y[1]),
                                                                          (a, b)), ("f32[8]", "f32[4]")),
    C("ascan-grad", "2d", lambda ns, x: ns.grad(lambda y: ns.sum(ns.lax.associative_scan(ns.multiply, y, axis=1)))(x),
      (Placed(spec=("X",), value=POS),)),
    C("vmap-ascan", "2d", lambda ns, x: ns.vmap(lambda r: ns.lax.associative_scan(ns.add, r))(x), ("f32[8@X,8]",)),
    # cumulative ops: gradients through JAX's prefix scan (zeros and ties included)
    C("cumprod-grad", "2d", lambda ns, x: ns.grad(lambda y: ns.sum(ns.lax.cumprod(y, 1)))(x),
      (Placed(spec=("X",), value=np.where(SMALL > 1.5, 0.0, SMALL).astype(np.float32)),)),
    C("cumprod-grad-reverse", "1d", lambda ns, x: ns.grad(lambda y: ns.sum(ns.sin(ns.lax.cumprod(y, 0, reverse=True)))
                                                          )(x), ("f32[7,8@X]",)),
    C("cummax-grad-ties", "2d", lambda ns, x: ns.grad(lambda y: ns.sum(ns.lax.cummax(y, 1) ** 2))(x),
      (Placed(spec=("X",), value=np.round(SMALL)),)),
    C("cummin-grad", "1d", lambda ns, x: ns.grad(lambda y: ns.sum(ns.lax.cummin(y, 0, reverse=True)))(x),
      (Placed(spec=(), value=np.round(SMALL * 2)),)),
    C("cumsum-grad", "2d", lambda ns, x: ns.grad(lambda y: ns.sum(ns.lax.cumsum(y, 1) ** 2))(x), ("f32[8@X,8]",)),
    C("cumprod-jnp-grad", "1d", lambda ns, x: ns.grad(lambda y: ns.sum(ns.cumprod(y, axis=1)))(x), ("f32[8@X,6]",)),
    C("cumlogsumexp-grad", "2d", lambda ns, x: ns.grad(lambda y: ns.sum(ns.lax.cumlogsumexp(y, 1) ** 2))(x),
      ("f32[8@X,8]",)),
    C("cumprod-bf16-grad", "2d", lambda ns, x: ns.grad(lambda y: ns.sum(ns.lax.cumprod(y, 1)))(x), ("bf16[8@X,5]",)),
    C("cummax-i32", "3d", lambda ns, x: ns.lax.cummax(x, 1, reverse=True), ("i32[4@X,6,4@Z]",)),
    C("vmap-cumprod-grad", "2d", lambda ns, x: ns.vmap(ns.grad(lambda r: ns.sum(ns.lax.cumprod(r, 0))))(x),
      ("f32[8@X,6]",)),
    # approx_max_k / approx_min_k (exact on CPU)
    C("approx-max-k", "2d", lambda ns, x: ns.lax.approx_max_k(x, 3), (Placed(spec=("X",), value=SMALL),)),
    C("approx-min-k-dim0", "2d", lambda ns, x: ns.lax.approx_min_k(x, 2, reduction_dimension=0),
      (Placed(spec=(None, "Y"), value=SMALL),)),
    C("approx-max-k-no-aggregate", "1d", lambda ns, x: ns.lax.approx_max_k(x, 2, aggregate_to_topk=False),
      (Placed(spec=("X",), value=SMALL),)),
    C("approx-max-k-bf16", "2d", lambda ns, x: ns.lax.approx_max_k(x, 4), ("bf16[8@X,8]",)),
    C("approx-max-k-override", "1d", lambda ns, x: ns.lax.approx_max_k(x, 2, recall_target=0.5,
                                                                       reduction_input_size_override=256,
                                                                       aggregate_to_topk=False),
      (Placed(spec=("X",), value=np.tile(SMALL, (1, 16))),)),
    C("approx-override-too-small", "1d", lambda ns, x: ns.lax.approx_max_k(x, 2, reduction_input_size_override=64),
      (Placed(spec=("X",), value=np.tile(SMALL, (1, 16))),), phrase="reduction_input_size_override out of range"),
    C("approx-err-sharded", "2d", lambda ns, x: ns.lax.approx_max_k(x, 3), ("f32[8@X,8@Y]",)),
    C("approx-err-k", "1d", lambda ns, x: ns.lax.approx_max_k(x, 9), ("f32[8,8]",)),
    C("approx-err-int", "1d", lambda ns, x: ns.lax.approx_max_k(x, 2), ("i32[8,8]",)),
    C("approx-grad", "2d", lambda ns, x: ns.grad(lambda y: ns.sum(ns.lax.approx_max_k(y, 3)[0] ** 2))(x),
      (Placed(spec=("X",), value=SMALL),)),
    C("vmap-approx", "2d", lambda ns, x: ns.vmap(lambda r: ns.lax.approx_min_k(r, 2))(x),
      (Placed(spec=("X",), value=SMALL),)),
]


#: a reduction over a sharded dim whose body XLA's SPMD partitioner does not know (xor, and, a custom
#: body) fails to compile in JAX too ("Unsupported reduction computation"): compiled, shardc must fail alike
XLA_GAP = {"reduce-monoid-xor", "reduce-monoid-and", "reduce-body", "reduce-xor-i32", "reduce-xor-bool",
           "vmap-reduce-xor"}
PROGRAMS += [
    C("reduce-xor-i32-local", "2d", lambda ns, x: ns.lax.reduce_xor(x, (1,)), ("i32[8@X,8]",)),
    C("reduce-xor-bool-local", "3d", lambda ns, x: ns.lax.reduce_xor(x, (2,)), ("bool[4@X,4@Y,4]",)),
    C("reduce-monoid-and-local", "2d", lambda ns, x: ns.lax.reduce(x, np.int32(-1), ns.lax.bitwise_and, (0,)),
      ("i32[8,8@Y]",)),
    C("reduce-body-local", "2d", lambda ns, x: ns.lax.reduce(x, 1.0, _mul_plus(ns), (1,)), ("f32[8@X,8]",)),
    C("vmap-reduce-xor-local", "2d", lambda ns, x: ns.vmap(lambda r: ns.lax.reduce_xor(r, (0,)))(x), ("i32[8@X,8]",)),
]


@param(PROGRAMS)
def test_program_types(case):
    check_types(case)


@param([c for c in PROGRAMS if not c.id.startswith(("err-", "reduce-err", "approx-err", "ascan-err"))
        and "unreduced" not in c.id and "reduce-precision-err" not in c.id and "xor-err" not in c.id])
def test_program_values(case):
    if case.id in XLA_GAP:   # JAX's compile fails (an XLA gap): shardc's must fail with the same phrase
        case = dataclasses.replace(case, quirk=True, phrase="Unsupported reduction computation")
    check_values(case)


EAGER = [c for c in PROGRAMS if c.id in ("rw-generic-mul-plus", "rw-generic-pytree", "reduce-body-local", "ascan-pytree",
                                         "reduce-precision-e5m10", "approx-max-k", "grad-max-overlap-sharded")]


@param(EAGER)
def test_program_eager(case):
    """Op by op outside `jit` (the bodies traced into a staged program), as JAX runs them."""
    check_eager(case)


# --- the lowering, op for op against JAX's ----------------------------------------------------------
#: the ops whose attributes (window, padding, dilations, dimensions, format) must equal JAX's
LOWERED_OPS = ("stablehlo.reduce_window", "stablehlo.select_and_scatter", "stablehlo.reduce",
               "stablehlo.reduce_precision", "stablehlo.pad", "stablehlo.slice")


def _key_ops(text: str) -> list[tuple[str, str, str]]:
    """(op, attributes, result types) of the windowed ops of a module, in MLIR's own printing
    (both modules parsed in one context, so `dense<0>` and `dense<[[0, 0], [0, 0]]>` read alike)."""
    from jaxlib.mlir import ir

    from shardc.emit.verify import _context
    out = []
    with _context():
        module = ir.Module.parse(text)

        def walk(op):
            for region in op.regions:
                for block in region.blocks:
                    for o in block.operations:
                        name = o.operation.name
                        if name in LOWERED_OPS:
                            at = o.operation.attributes
                            attrs = sorted(f"{at[i].name}={at[i].attr}" for i in range(len(at))
                                           if at[i].name not in ("mhlo.frontend_attributes", "mhlo.sharding"))
                            out.append((name, " ".join(attrs), " ".join(str(r.type) for r in o.operation.results)))
                        walk(o.operation)
        walk(module.operation)
    return sorted(out)


LOWER_PROGRAMS = {
    "maxpool-valid": lambda ns: lambda x: ns.lax.reduce_window(x, -np.inf, ns.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID"),
    "avgpool-same-dilated": lambda ns: lambda x: ns.lax.reduce_window(x, 0.0, ns.lax.add, (1, 3, 3, 1), (1, 2, 1, 1),
                                                                     "SAME", (1, 1, 2, 1), (1, 2, 1, 1)),
    "minpool-explicit": lambda ns: lambda x: ns.lax.reduce_window(x, np.inf, ns.lax.min, (1, 3, 2, 1), (1, 1, 2, 1),
                                                                 ((0, 0), (1, 2), (0, 1), (0, 0))),
    "generic-body": lambda ns: lambda x: ns.lax.reduce_window(x, 1.0, lambda a, b: a * b, (1, 2, 2, 1), (1, 1, 1, 1),
                                                             "SAME_LOWER"),
    "maxpool-grad": lambda ns: ns.grad(lambda x: ns.sum(ns.lax.reduce_window(x, -np.inf, ns.lax.max, (1, 3, 3, 1),
                                                                              (1, 2, 2, 1), "SAME"))),
    "avgpool-grad": lambda ns: ns.grad(lambda x: ns.sum(ns.lax.reduce_window(x, 0.0, ns.lax.add, (1, 3, 3, 1),
                                                                              (1, 2, 2, 1), ((0, 0), (1, 1), (0, 1),
                                                                                             (0, 0))))),
    "maxpool-bdil-grad": lambda ns: ns.grad(lambda x: ns.sum(ns.lax.reduce_window(
        x, -np.inf, ns.lax.max, (1, 2, 2, 1), (1, 1, 1, 1), "VALID", (1, 2, 1, 1)))),
    "reduce-body": lambda ns: lambda x: ns.lax.reduce(x, 1.0, lambda a, b: a * b + 1.0, (1, 2)),
    "reduce-precision": lambda ns: lambda x: ns.lax.reduce_precision(x, 4, 3),
}


@pytest.mark.parametrize("name", sorted(LOWER_PROGRAMS))
def test_lowering_matches_jax(name):
    """Single-device: the windowed ops, their attributes and result types equal JAX's lowering."""
    import jax

    import shardc as sc
    x = np.zeros((2, 8, 8, 4), np.float32)
    jtext = jax.jit(LOWER_PROGRAMS[name](JAX)).lower(x).as_text()
    with sc.set_mesh(None):
        stext = sc.jit(LOWER_PROGRAMS[name](SC)).trace("f32[2,8,8,4]").lower().as_text()
    # (the "-grad" programs: both sides drop the unused forward pass before lowering, shardc in its DCE)
    assert _key_ops(stext) == _key_ops(jtext)
