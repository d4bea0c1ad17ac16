"""Differential: sorting and the data-dependent functions of `jax.numpy` against JAX.

`sort` / `argsort` (stable, descending) / `lax.sort` (multi-operand, `num_keys`) /
`lax.sort_key_val` / `lax.top_k` / `partition` / `argpartition` / `lexsort` over dtypes (f32 with
NaN, -0.0, +-inf and ties; bf16; i32; bool), ranks 1-3, every axis and operand sharding on 1-D/2-D/3-D
meshes (JAX's errors for a sharded sorted dim and unequal shardings), by trace (accept/reject, error
class and phrase, `str(typeof)`) and a compiled subset (bit-exact values, shardings, collectives at
most JAX's); then `searchsorted` (every method, both sides, `sorter`), `nonzero` / `argwhere` /
`flatnonzero` / `where(cond)` / `count_nonzero` / `bincount`, `unique` (+ array-API variants), `isin`,
the set operations, quantiles, with `size=` inside jit and JAX's ConcretizationTypeError without it;
gradients of sort / top_k / quantiles against `jax.grad`.
"""
from __future__ import annotations

import itertools

import jax
import numpy as np
import pytest
from oracle import Case, Placed, S, check_types, check_values, param, sample, smap

import shardc as sc
from shardc import P

SORT_DIM_ERR = "Arguments to sort must be unsharded over the sorting dimension"
EQUAL_ERR = "Arguments to sort must have equal shardings"
TOPK_ERR = "The input should be unsharded over the axis along which to compute the top_k values"
CONCRETE = "Abstract tracer value encountered where concrete value is expected"

#: floats with every special value JAX's comparator orders (NaN last, -0.0 == 0.0, ties kept stable)
SPECIAL = np.array([3., -0., 0., np.nan, -np.inf, 1., 1., np.inf, -2., 0., np.nan, -0., 5., -1., 2., 1.],
                   np.float32)


def _is_jax(ns) -> bool:
    return ns.name == "jax"


def _lax(ns):
    return ns.lax


# --- sort / argsort / top_k table ------------------------------------------------------------------------
SHAPES = {1: (8,), 2: (4, 8), 3: (2, 4, 4)}
OPS = {
    "sort": lambda ax: lambda ns, x: ns.sort(x, axis=ax),
    "sort-desc": lambda ax: lambda ns, x: ns.sort(x, axis=ax, descending=True),
    "argsort": lambda ax: lambda ns, x: ns.argsort(x, axis=ax),
    "argsort-desc": lambda ax: lambda ns, x: ns.argsort(x, axis=ax, descending=True),
    "argsort-unstable-desc": lambda ax: lambda ns, x: ns.argsort(x, axis=ax, stable=False, descending=True),
    "lax-sort": lambda ax: lambda ns, x: _lax(ns).sort(x, dimension=ax),
    "sort-key-val": lambda ax: lambda ns, x: _lax(ns).sort_key_val(x, x, dimension=ax),
    "top_k": lambda ax: lambda ns, x: _lax(ns).top_k(x, 2, axis=ax),
    "partition": lambda ax: lambda ns, x: ns.partition(x, 1, axis=ax),
}


def _specs(rank: int, mesh: str) -> list[tuple]:
    axes = {"1d": ("X",), "2d": ("X", "Y"), "3d": ("X", "Y", "Z")}[mesh]
    out = [(None,) * rank]
    for d in range(rank):
        for a in axes[:2]:
            if SHAPES[rank][d] % {"X": 2 if mesh != "1d" else 8, "Y": 4 if mesh == "2d" else 2}[a] == 0:
                out.append(tuple(a if i == d else None for i in range(rank)))
    return out


def _type(dtype: str, shape, spec) -> str:
    return f"{dtype}[" + ",".join(f"{n}@{s}" if s else str(n) for n, s in zip(shape, spec)) + "]"


def _table() -> list[Case]:
    cases = []
    for op, dtype, rank, mesh in itertools.product(OPS, ("f32", "bf16", "i32", "u8", "bool"), (1, 2, 3),
                                                   ("1d", "2d", "3d")):
        for ax in range(-1, rank):
            for spec in _specs(rank, mesh):
                sid = "".join(s or "_" for s in spec)
                cases.append(Case(f"{op}-{dtype}-r{rank}-ax{ax}-{mesh}-{sid}", mesh, OPS[op](ax),
                                  (_type(dtype, SHAPES[rank], spec),), collectives="at_most"))
    return cases


TABLE = _table()
TRACE = sample(TABLE, 350, salt="sort-trace")
RUN = sample([c for c in TABLE if "-3d-" not in c.id], 30, salt="sort-run")


@param(TRACE)
def test_sort_table_types(case):
    check_types(case)


@param(RUN)
def test_sort_table_values(case):
    check_values(case)


def _special(spec=()):
    return Placed(spec=spec, value=SPECIAL.reshape(2, 8))


C = Case
SPECIAL_CASES = [
    C("special-sort", "2d", lambda ns, x: ns.sort(x), (_special(),)),
    C("special-sort-rows-X", "2d", lambda ns, x: ns.sort(x, axis=-1), (_special(("X",)),)),
    C("special-sort-desc", "2d", lambda ns, x: ns.sort(x, descending=True), (_special(),)),
    C("special-argsort", "2d", lambda ns, x: ns.argsort(x), (_special(),)),
    C("special-argsort-desc", "2d", lambda ns, x: ns.argsort(x, descending=True), (_special(),)),
    C("special-argsort-axis-none", "2d", lambda ns, x: ns.argsort(x, axis=None), (_special(),)),
    C("special-sort-axis0", "2d", lambda ns, x: ns.sort(x, axis=0), (_special(),)),
    C("special-top_k", "2d", lambda ns, x: _lax(ns).top_k(x, 5), (_special(),)),
    C("special-lexsort", "2d", lambda ns, x: ns.lexsort([x, -x]), (_special(),)),
    C("special-partition", "2d", lambda ns, x: ns.partition(x, 3), (_special(),)),
    C("special-argpartition", "2d", lambda ns, x: ns.argpartition(x, 3), (_special(),)),
    C("special-method-sort", "2d", lambda ns, x: x.sort(axis=0), (_special(),)),
    C("special-method-argsort", "2d", lambda ns, x: x.argsort(descending=True), (_special(),)),
    # multi-operand lax.sort with num_keys, and its errors
    C("lax-sort-2keys", "2d", lambda ns, x, y: _lax(ns).sort((x, y, x), dimension=1, num_keys=2),
      ("i32[4@X,8]", "f32[4@X,8]")),
    C("lax-sort-unequal-shardings", "2d", lambda ns, x, y: _lax(ns).sort((x, y), dimension=1),
      ("f32[4@X,8]", "f32[4,8]"), phrase=EQUAL_ERR),
    C("lax-sort-unequal-shapes", "2d", lambda ns, x, y: _lax(ns).sort((x, y), dimension=1),
      ("f32[4,8]", "f32[4,4]")),
    C("lax-sort-num-keys", "2d", lambda ns, x: _lax(ns).sort((x, x), num_keys=3), ("f32[4,8]",)),
    C("lax-sort-num-keys-single", "2d", lambda ns, x: _lax(ns).sort(x, num_keys=2), ("f32[4,8]",)),
    C("lax-sort-empty", "2d", lambda ns: _lax(ns).sort(()), ()),
    C("lax-sort-unstable", "2d", lambda ns, x: _lax(ns).sort(x, is_stable=False), ("i32[4,8@Y]",)),
    C("sort-kind", "1d", lambda ns, x: ns.sort(x, kind="quicksort"), ("f32[8]",)),
    C("argsort-order", "1d", lambda ns, x: ns.argsort(x, order="a"), ("f32[8]",)),
    C("argsort-dtype", "1d", lambda ns, x: ns.argsort(x, dtype=ns.int16 if not _is_jax(ns) else "int16"),
      ("f32[8]",)),
    C("sort-sharded-dim", "2d", lambda ns, x: ns.sort(x, axis=0), ("f32[4@X,8]",), phrase=SORT_DIM_ERR),
    C("top_k-sharded-axis", "2d", lambda ns, x: _lax(ns).top_k(x, 2), ("f32[4,8@Y]",), phrase=TOPK_ERR),
    C("top_k-k-too-big", "1d", lambda ns, x: _lax(ns).top_k(x, 9), ("f32[8]",)),
    C("top_k-negative-k", "1d", lambda ns, x: _lax(ns).top_k(x, -1), ("f32[8]",)),
    C("top_k-scalar", "1d", lambda ns, x: _lax(ns).top_k(x, 1), ("f32[]",)),
    C("argpartition-rows-sharded", "2d", lambda ns, x: ns.argpartition(x, 2), ("f32[4@X,8]",)),
    C("sort-axis-oob", "1d", lambda ns, x: ns.sort(x, axis=5), ("f32[4,8]",)),
    C("argsort-scalar", "1d", lambda ns, x: ns.argsort(x), ("f32[]",)),
    C("lax-sort-dim-oob", "1d", lambda ns, x: _lax(ns).sort(x, dimension=2), ("f32[4,8]",)),
    C("top_k-axis-oob", "1d", lambda ns, x: _lax(ns).top_k(x, 1, axis=2), ("f32[4,8]",)),
    C("partition-kth-oob", "1d", lambda ns, x: ns.partition(x, 9), ("f32[4,8]",)),
    C("lexsort-sharded", "2d", lambda ns, x: ns.lexsort([x, x]), ("f32[4@X,8]",)),
    C("lexsort-shape-mismatch", "2d", lambda ns, x, y: ns.lexsort([x, y]), ("f32[8]", "f32[4]")),
]
SPECIAL_RUN = {c.id for c in SPECIAL_CASES if c.id.startswith("special") or c.id in (
    "lax-sort-2keys", "lax-sort-unstable", "argsort-dtype")}


@param(SPECIAL_CASES)
def test_sort_cases_types(case):
    check_types(case)


@param([c for c in SPECIAL_CASES if c.id in SPECIAL_RUN])
def test_sort_cases_values(case):
    check_values(case)


# --- data-dependent functions --------------------------------------------------------------------------
def _ints(n=16, lo=-3, hi=4, seed=0, spec=()):
    return Placed(spec=spec, value=np.random.default_rng(seed).integers(lo, hi, size=n).astype(np.int32))


def _floats(n=16, seed=0, spec=(), nan=True):
    v = np.random.default_rng(seed).integers(-3, 4, size=n).astype(np.float32)
    if nan:
        v[3] = np.nan
    return Placed(spec=spec, value=v)


Q = np.array([0.1, 0.5, 0.9], np.float32)
DATA_CASES = [
    # searchsorted
    *[C(f"searchsorted-{m}-{side}", "2d",
        (lambda m, side: lambda ns, a, v: ns.searchsorted(ns.sort(a), v, side=side, method=m))(m, side),
        (_floats(8, 1), _floats(16, 2)))
      for m in ("scan", "scan_unrolled", "compare_all", "sort") for side in ("left", "right")],
    C("searchsorted-sorter", "2d", lambda ns, a, v: ns.searchsorted(a, v, sorter=ns.argsort(a)),
      (_floats(8, 1, nan=False), _floats(16, 2))),
    C("searchsorted-int-2d-query", "2d", lambda ns, a, v: ns.searchsorted(ns.sort(a), v),
      (_ints(8, seed=3), Placed(value=np.arange(-4, 4, dtype=np.int32).reshape(2, 4)))),
    C("searchsorted-method-error", "1d", lambda ns, a, v: ns.searchsorted(a, v, method="magic"),
      ("f32[8]", "f32[4]")),
    C("searchsorted-2d-error", "1d", lambda ns, a, v: ns.searchsorted(a, v), ("f32[2,4]", "f32[4]")),
    C("searchsorted-compare_all-query-sharded", "2d",
      lambda ns, a, v: ns.searchsorted(a, v, method="compare_all"), ("f32[8]", "f32[8@X,4@Y]")),
    C("searchsorted-compare_all-a-sharded", "2d",
      lambda ns, a, v: ns.searchsorted(a, v, method="compare_all"), ("f32[16@X]", "f32[8,4]")),
    # JAX's binary search fails on sharded operands for implementation reasons (its vmap of a scalar
    # search, its dynamic_slice): shardc rejects them too (the gather rule)
    C("searchsorted-scan-query-sharded", "2d", lambda ns, a, v: ns.searchsorted(a, v), ("f32[8]", "f32[8@X,4]"),
      quirk=True),
    C("searchsorted-scan-a-sharded", "2d", lambda ns, a, v: ns.searchsorted(a, v), ("f32[16@X]", "f32[8,4]"),
      quirk=True, kind="ShardingTypeError"),
    C("searchsorted-method", "1d", lambda ns, a, v: ns.sort(a).searchsorted(v, side="right"),
      (_floats(8, 1), _floats(16, 2))),
    # nonzero & co
    C("nonzero-size", "2d", lambda ns, x: ns.nonzero(x, size=12, fill_value=-1), (_ints(),)),
    C("nonzero-size-small", "2d", lambda ns, x: ns.nonzero(x, size=3), (_ints(),)),
    C("nonzero-2d", "2d", lambda ns, x: ns.nonzero(x.reshape(4, 4), size=20, fill_value=(7, 8)), (_ints(),)),
    C("nonzero-bool", "2d", lambda ns, x: ns.nonzero(x > 0, size=8), (_floats(),)),
    C("nonzero-method", "2d", lambda ns, x: x.nonzero(size=8), (_ints(),)),
    C("nonzero-no-size", "2d", lambda ns, x: ns.nonzero(x), (_ints(),)),
    C("nonzero-0d", "2d", lambda ns, x: ns.nonzero(x, size=1), ("f32[]",)),
    C("nonzero-sharded", "2d", lambda ns, x: ns.nonzero(x, size=4), ("i32[16@X]",)),
    C("flatnonzero", "2d", lambda ns, x: ns.flatnonzero(x.reshape(4, 4), size=20), (_ints(),)),
    C("argwhere", "2d", lambda ns, x: ns.argwhere(x.reshape(2, 8), size=20, fill_value=-1), (_ints(),)),
    C("argwhere-no-size", "2d", lambda ns, x: ns.argwhere(x), (_ints(),)),
    C("where-cond", "2d", lambda ns, x: ns.where(x > 0, size=5), (_floats(),)),
    C("where-cond-no-size", "2d", lambda ns, x: ns.where(x > 0), (_floats(),)),
    C("where-one-of-two", "2d", lambda ns, x: ns.where(x > 0, x), (_floats(),)),
    C("where-size-three-term", "2d", lambda ns, x: ns.where(x > 0, x, 0.0, size=3), (_floats(),)),
    C("count_nonzero", "2d", lambda ns, x: ns.count_nonzero(x.reshape(4, 4), axis=0), (_ints(),)),
    C("count_nonzero-sharded", "2d", lambda ns, x: ns.count_nonzero(x, axis=1, keepdims=True), ("f32[8@X,4@Y]",)),
    C("bincount", "2d", lambda ns, x: ns.bincount(x, length=6), (_ints(lo=0, hi=6),)),
    C("bincount-weights", "2d", lambda ns, x, w: ns.bincount(x, w, length=6), (_ints(lo=-1, hi=8), "f32[16]")),
    C("bincount-no-length", "2d", lambda ns, x: ns.bincount(x), (_ints(lo=0, hi=6),)),
    C("bincount-float", "2d", lambda ns, x: ns.bincount(x, length=3), ("f32[16]",)),
    C("bincount-2d", "2d", lambda ns, x: ns.bincount(x, length=3), ("i32[4,4]",)),
    C("bincount-out-sharding", "2d", lambda ns, x: ns.bincount(x, length=8, out_sharding=ns.P("X")),
      ("i32[16]",)),
    # unique and set operations
    C("unique-size", "2d", lambda ns, x: ns.unique(x, size=10, fill_value=99), (_floats(),)),
    C("unique-size-all", "2d", lambda ns, x: ns.unique(x, return_index=True, return_inverse=True,
                                                       return_counts=True, size=10), (_floats(),)),
    C("unique-no-size", "2d", lambda ns, x: ns.unique(x), (_floats(),)),
    C("unique-size-str", "2d", lambda ns, x: ns.unique(x, size="3"), (_floats(),)),
    C("nonzero-negative-size", "2d", lambda ns, x: ns.nonzero(x, size=-1), (_ints(),)),
    C("unique-axis0", "2d", lambda ns, x: ns.unique(x.reshape(8, 2) // 2, axis=0, size=8, return_counts=True),
      (_ints(),)),
    C("unique-2d-inverse", "2d", lambda ns, x: ns.unique(x.reshape(4, 4), return_inverse=True, size=16),
      (_ints(),)),
    C("unique-no-equal-nan", "2d", lambda ns, x: ns.unique(ns.where(x > 2, np.nan, x), equal_nan=False, size=16),
      (_floats(),)),
    C("unique_all", "2d", lambda ns, x: tuple(ns.unique_all(x, size=10)), (_ints(),)),
    C("unique_counts", "2d", lambda ns, x: tuple(ns.unique_counts(x, size=10)), (_ints(),)),
    C("unique_inverse", "2d", lambda ns, x: tuple(ns.unique_inverse(x, size=10)), (_ints(),)),
    C("unique_values", "2d", lambda ns, x: ns.unique_values(x, size=10), (_ints(),)),
    *[C(f"isin-{m}{'-invert' if inv else ''}", "2d",
        (lambda m, inv: lambda ns, a, b: ns.isin(a, b, method=m, invert=inv))(m, inv),
        (_floats(16, 1), _floats(8, 2)))
      for m in ("auto", "compare_all", "binary_search", "sort") for inv in (False, True)],
    C("isin-2d", "2d", lambda ns, a, b: ns.isin(a.reshape(4, 4), b), (_ints(seed=1), _ints(8, seed=2))),
    C("isin-bad-method", "2d", lambda ns, a, b: ns.isin(a, b, method="hash"), ("f32[4]", "f32[4]")),
    C("union1d-size", "2d", lambda ns, a, b: ns.union1d(a, b, size=12), (_ints(seed=1), _ints(8, seed=2))),
    C("union1d-no-size", "2d", lambda ns, a, b: ns.union1d(a, b), (_ints(seed=1), _ints(8, seed=2))),
    C("intersect1d-size", "2d", lambda ns, a, b: ns.intersect1d(a, b, size=6), (_ints(seed=1), _ints(8, seed=2))),
    C("intersect1d-size-indices", "2d", lambda ns, a, b: ns.intersect1d(a, b, size=6, return_indices=True,
                                                                         fill_value=-9),
      (_ints(seed=1), _ints(8, seed=2))),
    C("intersect1d-unique", "2d", lambda ns, a, b: ns.intersect1d(a, b, assume_unique=True, size=4),
      (Placed(value=np.array([5, 1, 3, 7], np.int32)), Placed(value=np.array([3, 0, 7, 8, 9], np.int32)))),
    C("intersect1d-no-size", "2d", lambda ns, a, b: ns.intersect1d(a, b), (_ints(seed=1), _ints(8, seed=2))),
    C("setdiff1d-size", "2d", lambda ns, a, b: ns.setdiff1d(a, b, size=6, fill_value=0),
      (_ints(seed=1), _ints(8, seed=2))),
    C("setdiff1d-no-size", "2d", lambda ns, a, b: ns.setdiff1d(a, b), (_ints(seed=1), _ints(8, seed=2))),
    C("setxor1d-size", "2d", lambda ns, a, b: ns.setxor1d(a, b, size=6), (_ints(seed=1), _ints(8, seed=2))),
    C("setxor1d-size-unique", "2d", lambda ns, a, b: ns.setxor1d(a, b, size=6, assume_unique=True),
      (Placed(value=np.array([5, 1, 3, 7], np.int32)), Placed(value=np.array([3, 0, 7, 8, 9], np.int32)))),
    C("setxor1d-no-size", "2d", lambda ns, a, b: ns.setxor1d(a, b), (_ints(seed=1), _ints(8, seed=2))),
    # quantiles
    C("median", "2d", lambda ns, x: ns.median(x.reshape(4, 4), axis=1), (_floats(),)),
    C("median-all", "2d", lambda ns, x: ns.median(x, keepdims=True), (_floats(nan=False),)),
    C("nanmedian", "2d", lambda ns, x: ns.nanmedian(x.reshape(4, 4), axis=0), (_floats(),)),
    *[C(f"quantile-{m}", "2d", (lambda m: lambda ns, x: ns.quantile(x.reshape(4, 4), Q, axis=1, method=m))(m),
        (_floats(nan=False),)) for m in ("linear", "lower", "higher", "midpoint", "nearest")],
    C("quantile-tuple-axis", "2d", lambda ns, x: ns.quantile(x.reshape(2, 2, 4), 0.3, axis=(0, 2), keepdims=True),
      (_floats(nan=False),)),
    C("quantile-int", "2d", lambda ns, x: ns.quantile(x, 0.5), (_ints(),)),
    C("quantile-bf16", "2d", lambda ns, x: ns.quantile(x, Q, axis=0), ("bf16[8,4]",)),
    C("quantile-rows-sharded", "2d", lambda ns, x: ns.quantile(x, Q, axis=1), ("f32[8@X,4]",)),
    C("quantile-bad-method", "2d", lambda ns, x: ns.quantile(x, 0.5, method="bogus"), ("f32[8]",)),
    C("quantile-q-rank2", "2d", lambda ns, x: ns.quantile(x, np.ones((2, 2), np.float32) / 2), ("f32[8]",)),
    C("quantile-inverted_cdf", "2d", lambda ns, x: ns.quantile(x.reshape(4, 4), Q, axis=0, method="inverted_cdf",
                                                               keepdims=True), (_floats(),)),
    C("quantile-inverted_cdf-weights", "2d", lambda ns, x, w: ns.quantile(
        x, Q, axis=1, method="inverted_cdf", weights=ns.abs(w)), ("f32[4,8]", "f32[4,8]")),
    C("quantile-inverted_cdf-axis-weights", "2d", lambda ns, x, w: ns.quantile(
        x, 0.5, axis=1, method="inverted_cdf", weights=ns.abs(w)), ("f32[4,8]", "f32[8]")),
    C("nanquantile-inverted_cdf-weights", "2d", lambda ns, x, w: ns.nanquantile(
        x.reshape(4, 4), 0.7, axis=0, method="inverted_cdf", weights=w), (_floats(), "f32[4,4]")),
    C("quantile-weights-linear", "2d", lambda ns, x, w: ns.quantile(x, 0.5, axis=1, weights=w),
      ("f32[4,8]", "f32[4,8]")),
    C("quantile-weights-shape", "2d", lambda ns, x, w: ns.quantile(x, 0.5, axis=1, method="inverted_cdf",
                                                                   weights=w), ("f32[4,8]", "f32[4]")),
    C("nanquantile", "2d", lambda ns, x: ns.nanquantile(x.reshape(4, 4), Q, axis=0, method="nearest"),
      (_floats(),)),
    C("percentile", "2d", lambda ns, x: ns.percentile(x.reshape(4, 4), 30.0, axis=1, method="lower"),
      (_floats(nan=False),)),
    # histograms, digitize, compress / extract
    C("histogram", "2d", lambda ns, x: ns.histogram(x, bins=5), ("f32[16]",)),
    C("histogram-range-weights-density", "2d",
      lambda ns, x: ns.histogram(x, bins=4, range=(-1.0, 1.0), weights=x * x, density=True), ("f32[16]",)),
    C("histogram-edges", "2d", lambda ns, x: ns.histogram(x, bins=np.array([-1., 0., .5, 2.], np.float32)),
      ("f32[16]",)),
    C("histogram-int", "2d", lambda ns, x: ns.histogram(x, bins=3), (_ints(),)),
    C("histogram_bin_edges", "2d", lambda ns, x: ns.histogram_bin_edges(x, bins=3), ("f32[16]",)),
    C("histogram-str-bins", "2d", lambda ns, x: ns.histogram(x, bins="auto"), ("f32[16]",)),
    C("digitize", "2d", lambda ns, x: ns.digitize(x, np.array([-1., 0., .5, 2.], np.float32)), ("f32[16]",)),
    C("digitize-decreasing-right", "2d",
      lambda ns, x: ns.digitize(x, np.array([2., .5, 0., -1.], np.float32), right=True), ("f32[4,4]",)),
    C("compress-size", "2d", lambda ns, c, x: ns.compress(c, x, size=5, fill_value=-9.), ("bool[16]", "f32[16]")),
    C("compress-axis", "2d", lambda ns, c, x: ns.compress(c, x, axis=1, size=2), ("bool[4]", "f32[4,4]")),
    C("compress-no-size", "2d", lambda ns, c, x: ns.compress(c, x), ("bool[16]", "f32[16]")),
    C("extract-size", "2d", lambda ns, c, x: ns.extract(c, x, size=6), ("bool[4,4]", "f32[4,4]")),
    C("nanpercentile", "2d", lambda ns, x: ns.nanpercentile(x.reshape(4, 4), np.array([10., 90.], np.float32),
                                                           axis=1), (_floats(),)),
]
#: compiled and run (what is not an error by design)
DATA_NO_RUN = {"searchsorted-method-error", "searchsorted-2d-error", "searchsorted-scan-query-sharded",
               "searchsorted-scan-a-sharded", "nonzero-no-size", "nonzero-0d",
               "argwhere-no-size", "where-cond-no-size", "where-one-of-two", "where-size-three-term",
               "bincount-no-length", "bincount-float", "bincount-2d", "unique-no-size", "isin-bad-method",
               "union1d-no-size", "intersect1d-no-size", "setdiff1d-no-size", "setxor1d-no-size",
               "quantile-bad-method", "quantile-q-rank2", "nonzero-sharded", "bincount-out-sharding",
               "histogram-str-bins", "compress-no-size", "unique-size-str", "nonzero-negative-size", "quantile-weights-linear", "quantile-weights-shape"}


@param(DATA_CASES)
def test_data_dependent_types(case):
    check_types(case)


@param([c for c in DATA_CASES if c.id not in DATA_NO_RUN])
def test_data_dependent_values(case):
    check_values(case)


# --- gradients ------------------------------------------------------------------------------------------
def _grad(ns):
    return jax.grad if _is_jax(ns) else sc.grad


def _weighted(ns, y):
    """sum(sin(y) * k): a position-dependent weight, so a wrong permutation shows."""
    return ns.sum(ns.sin(y) * ns.arange(y.size, dtype=y.dtype).reshape(y.shape))


def _loss(f):
    return lambda ns, x: _grad(ns)(lambda x: _weighted(ns, f(ns, x)))(x)


def _loss_scalar(f):
    return lambda ns, x: _grad(ns)(lambda x: ns.sum(ns.sin(f(ns, x))))(x)


GRAD_CASES = [
    C("grad-sort", "2d", _loss(lambda ns, x: ns.sort(x)), ("f32[4,8]",)),
    C("grad-sort-desc", "2d", _loss(lambda ns, x: ns.sort(x, descending=True)), ("f32[4,8]",)),
    C("grad-sort-axis0", "2d", _loss_scalar(lambda ns, x: ns.sort(x, axis=0) * ns.arange(4.0)[:, None]),
      ("f32[4,8]",)),
    C("grad-sort-sharded", "2d", _loss(lambda ns, x: ns.sort(x)), ("f32[4@X,8]",)),
    C("grad-sort-key-val", "2d", _loss_scalar(lambda ns, x: _lax(ns).sort_key_val(x, x * x)[1] * ns.arange(8.0)),
      ("f32[4,8]",)),
    C("grad-lax-sort-2", "2d", _loss_scalar(lambda ns, x: _lax(ns).sort((x, ns.cos(x)), num_keys=1)[1]
                                            * ns.arange(8.0)), ("f32[4,8]",)),
    C("grad-top_k", "2d", _loss(lambda ns, x: _lax(ns).top_k(x, 3)[0]), ("f32[4,8]",)),
    C("grad-top_k-sharded-rows", "2d", _loss(lambda ns, x: _lax(ns).top_k(x, 3)[0]), ("f32[4@X,8]",)),
    C("grad-top_k-axis0", "2d", _loss_scalar(lambda ns, x: _lax(ns).top_k(x, 2, axis=0)[0] * ns.arange(8.0)),
      ("f32[4,8]",)),
    C("grad-median", "2d", _loss_scalar(lambda ns, x: ns.median(x, axis=1)), ("f32[4,8]",)),
    C("grad-quantile", "2d", _loss_scalar(lambda ns, x: ns.quantile(x, Q, axis=1)), ("f32[4,8]",)),
    C("grad-nanquantile", "2d", _loss_scalar(lambda ns, x: ns.nanquantile(x, Q, axis=0)), ("f32[4,8]",)),
    C("grad-partition", "2d", _loss_scalar(lambda ns, x: ns.partition(x, 2) * ns.arange(8.0)), ("f32[4,8]",)),
]


GRAD_CASES += [
    C("jvp-sort", "2d", lambda ns, x: ns.jvp(lambda b: ns.sort(b, axis=0), (x,), (x * 0.5,)), ("f32[8,4@Y]",)),
    C("jvp-top_k", "2d", lambda ns, x: ns.jvp(lambda b: _lax(ns).top_k(b, 2)[0], (x,), (x * 0.5,)), ("f32[8@X,4]",)),
    C("jvp-quantile", "2d", lambda ns, x: ns.jvp(lambda b: ns.quantile(b, 0.3, axis=0), (x,), (x * 0.5,)),
      ("f32[8,4]",)),
]


GRAD_OPS = {
    "sort": lambda ax: lambda ns, x: ns.sort(x, axis=ax),
    "sort-desc": lambda ax: lambda ns, x: ns.sort(x, axis=ax, descending=True),
    "top_k": lambda ax: lambda ns, x: _lax(ns).top_k(x, 2, axis=ax)[0],
    "sort_key_val": lambda ax: lambda ns, x: _lax(ns).sort_key_val(ns.cos(x), x, dimension=ax)[1],
    "quantile": lambda ax: lambda ns, x: ns.quantile(x, Q, axis=ax),
    "median": lambda ax: lambda ns, x: ns.median(x, axis=ax),
}
GRAD_TABLE = [
    C(f"gradtab-{op}-r{rank}-ax{ax}-{''.join(e or '_' for e in spec)}", "2d",
      (lambda f: lambda ns, x: _grad(ns)(lambda x: _weighted(ns, f(ns, x)))(x))(GRAD_OPS[op](ax)),
      (_type("f32", SHAPES[rank], spec),), collectives="at_most")
    for op, rank in itertools.product(GRAD_OPS, (1, 2, 3)) for ax in range(-1, rank) for spec in _specs(rank, "2d")
]
GRAD_TRACE = sample(GRAD_TABLE, 100, salt="sort-grad")
GRAD_RUN = sample([c for c in GRAD_TABLE if c in GRAD_TRACE], 12, salt="sort-grad-run")


@param(GRAD_TRACE)
def test_sort_grad_table_types(case):
    check_types(case)


@param(GRAD_RUN)
def test_sort_grad_table_values(case):
    check_values(case)


@param(GRAD_CASES)
def test_sort_grad_types(case):
    check_types(case)


@param([c for c in GRAD_CASES if c.id != "grad-sort-sharded"])
def test_sort_grad_values(case):
    check_values(case)


# --- shardc-only ---------------------------------------------------------------------------------------
def test_concretization_error_names_the_users_line(mesh24):
    x = sc.device_put(np.arange(8, dtype=np.int32), P())
    with pytest.raises(TypeError) as e:
        sc.jit(lambda a: sc.nonzero(a))(x)
    assert CONCRETE in str(e.value) and "test_sort.py" in str(e.value) and "size argument" in str(e.value)


def test_eager_data_dependent_sizes_come_from_the_data(mesh24):
    x = sc.device_put(np.array([0, 3, 0, 1, 3, 3], np.int32), P())
    np.testing.assert_array_equal(np.asarray(sc.nonzero(x)[0]), [1, 3, 4, 5])
    vals, counts = sc.unique(x, return_counts=True)
    np.testing.assert_array_equal(np.asarray(vals), [0, 1, 3])
    np.testing.assert_array_equal(np.asarray(counts), [2, 1, 3])
    np.testing.assert_array_equal(np.asarray(x[x > 0]), [3, 1, 3, 3])
    np.testing.assert_array_equal(np.asarray(sc.bincount(x)), [2, 1, 0, 3])


# --- manual mode (shard_map bodies: varying types) and Auto meshes -------------------------------------------
MANUAL_CASES = [
    C("smap-sort", "2d", smap(lambda ns, b: ns.sort(b, axis=1), S("X", "Y"), in_specs=(S("X", "Y"),)),
      ("f32[8@X,8@Y]",)),
    C("smap-argsort", "2d", smap(lambda ns, b: ns.argsort(b, axis=0, descending=True), S("X", "Y"),
                                 in_specs=(S("X", "Y"),)), ("f32[8@X,8@Y]",)),
    C("smap-top_k", "2d", smap(lambda ns, b: ns.lax.top_k(b, 1)[0], S("X", "Y"), in_specs=(S("X", "Y"),)),
      ("f32[8@X,8@Y]",)),
    C("smap-sort-key-val-mixed-vma", "2d", smap(lambda ns, b, c: ns.lax.sort_key_val(b, c)[1], S("X", "Y"),
                                                in_specs=(S("X", "Y"), S(None, "Y"))),
      ("f32[8@X,8@Y]", "f32[8,8@Y]")),
    C("smap-searchsorted", "2d", smap(lambda ns, a, v: ns.searchsorted(a, v, method="compare_all"), S("X"),
                                      in_specs=(S(), S("X"))), ("f32[8]", "f32[8@X]")),
    C("auto-sort", "2d_auto", lambda ns, x: ns.sort(x, axis=0), (Placed((8, 4), (None, "Y")),)),
    C("auto-argsort-sharded-dim", "2d_auto", lambda ns, x: ns.argsort(x, axis=0), (Placed((8, 4), ("X", "Y")),)),
    C("auto-top_k", "2d_auto", lambda ns, x: ns.lax.top_k(x, 2), (Placed((8, 4), ("X", None)),)),
]


@param(MANUAL_CASES)
def test_sort_manual_and_auto_types(case):
    check_types(case)


@param(MANUAL_CASES)
def test_sort_manual_and_auto_values(case):
    check_values(case)
