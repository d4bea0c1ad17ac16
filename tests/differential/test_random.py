"""Differential: `shardc.random` against `jax.random` (JAX 0.10.2, partitionable
threefry). Values must be bit-identical (tolerance 0), on every mesh and
`out_sharding`, in compiled programs and eagerly; `str(typeof)` of keys
(`key<fry>[...]`) and samples agree, inside `jit`, `scan`, `fori_loop`,
`shard_map` and under `grad`; JAX's errors (class and message) for bad dtypes,
batched keys, bad seeds and key data, bad modes and sizes."""
from __future__ import annotations

import inspect
import itertools

import jax
import numpy as np
import pytest
from oracle import BASIC_MESHES, Case, check, param, sample, specs_for

import shardc as sc

EXACT = (0.0, 0.0)
SHAPES = [(), (8,), (8, 4), (4, 2, 8)]
FLOATS = ["float32", "bfloat16", "float16"]


def _dtype(ns, name):
    return getattr(ns, name) if name == "bfloat16" else getattr(np, name)


def _P(ns, spec):
    return None if spec is None else ns.P(*spec)


# --- samplers: shape, dtype, out_sharding ----------------------------------------------------------
def _float_sampler(name, **kw):
    def fn(ns, shape, dname, spec, seed):
        return getattr(ns.random, name)(ns.random.key(seed), shape, _dtype(ns, dname),
                                        out_sharding=_P(ns, spec), **kw)
    return fn


SAMPLERS = {
    "normal": (_float_sampler("normal"), FLOATS),
    "uniform": (_float_sampler("uniform"), FLOATS),
    "uniform-range": (lambda ns, shape, d, spec, seed: ns.random.uniform(
        ns.random.key(seed), shape, _dtype(ns, d), -3.0, 5.5, out_sharding=_P(ns, spec)), FLOATS),
    "gumbel": (_float_sampler("gumbel"), FLOATS),
    "gumbel-high": (_float_sampler("gumbel", mode="high"), ["float32", "bfloat16"]),
    "gumbel-highest": (_float_sampler("gumbel", mode="highest"), ["float32", "float16"]),
    "exponential": (_float_sampler("exponential"), FLOATS),
    "laplace": (_float_sampler("laplace"), FLOATS),
    "logistic": (_float_sampler("logistic"), FLOATS),
    "cauchy": (_float_sampler("cauchy"), FLOATS),
    "bits": (lambda ns, shape, d, spec, seed: ns.random.bits(
        ns.random.key(seed), shape, getattr(np, d), out_sharding=_P(ns, spec)), ["uint32", "uint16", "uint8"]),
    "randint": (lambda ns, shape, d, spec, seed: ns.random.randint(
        ns.random.key(seed), shape, -3, 17, getattr(np, d), out_sharding=_P(ns, spec)),
        ["int32", "uint32", "int16", "uint8", "int8"]),
    "randint-wide": (lambda ns, shape, d, spec, seed: ns.random.randint(
        ns.random.key(seed), shape, -5, 300, getattr(np, d), out_sharding=_P(ns, spec)), ["uint8", "int32"]),
    "bernoulli": (lambda ns, shape, d, spec, seed: ns.random.bernoulli(
        ns.random.key(seed), np.asarray(0.3, _dtype(ns, d)), shape, out_sharding=_P(ns, spec)),
        ["float32", "bfloat16"]),
    "bernoulli-high": (lambda ns, shape, d, spec, seed: ns.random.bernoulli(
        ns.random.key(seed), 0.3, shape, mode="high", out_sharding=_P(ns, spec)), ["float32"]),
    "truncated_normal": (lambda ns, shape, d, spec, seed: ns.random.truncated_normal(
        ns.random.key(seed), -1.0, 2.0, shape, _dtype(ns, d), out_sharding=_P(ns, spec)), FLOATS),
    "rademacher": (lambda ns, shape, d, spec, seed: ns.random.rademacher(
        ns.random.key(seed), shape, getattr(np, d), out_sharding=_P(ns, spec)), ["int32", "float32"]),
    "pareto": (lambda ns, shape, d, spec, seed: ns.random.pareto(
        ns.random.key(seed), 2.5, shape, _dtype(ns, d), out_sharding=_P(ns, spec)), FLOATS),
    "rayleigh": (lambda ns, shape, d, spec, seed: ns.random.rayleigh(
        ns.random.key(seed), 1.5, shape, _dtype(ns, d), out_sharding=_P(ns, spec)), FLOATS),
    "lognormal": (lambda ns, shape, d, spec, seed: ns.random.lognormal(
        ns.random.key(seed), 0.5, shape, _dtype(ns, d), out_sharding=_P(ns, spec)), FLOATS),
    "geometric": (lambda ns, shape, d, spec, seed: ns.random.geometric(
        ns.random.key(seed), 0.3, shape, getattr(np, d), out_sharding=_P(ns, spec)), ["int32", "int16"]),
    "triangular": (lambda ns, shape, d, spec, seed: ns.random.triangular(
        ns.random.key(seed), -1.0, 0.5, 2.0, shape, _dtype(ns, d), out_sharding=_P(ns, spec)), FLOATS),
    "maxwell": (lambda ns, shape, d, spec, seed: ns.random.maxwell(
        ns.random.key(seed), shape, _dtype(ns, d), out_sharding=_P(ns, spec)), ["float32", "bfloat16"]),
}


def sampler_cases():
    cases = []
    for (name, (fn, dnames)), mesh in itertools.product(SAMPLERS.items(), BASIC_MESHES):
        pool = []
        for shape, dname in itertools.product(SHAPES, dnames):
            specs = [None] + list(specs_for(shape, mesh))
            for k, spec in enumerate(sample_specs(specs, name + dname + str(shape) + mesh)):
                sid = "none" if spec is None else ",".join("-" if e is None else str(e) for e in spec) or "P()"
                pool.append(Case(f"{name}-{dname}-{mesh}-{shape}-{sid}", mesh,
                                 (lambda f, s, d, sp, seed: lambda ns: f(ns, s, d, sp, seed))(
                                     fn, shape, dname, spec, k + len(shape)), (), tol=EXACT, tags=(name,)))
        cases += sample(pool, 3, salt=name + mesh)
    return cases


def sample_specs(specs, salt):
    """None (the default sharding), replicated and up to two sharded specs of the shape."""
    sharded = [s for s in specs if s is not None and any(e is not None for e in s)]
    rest = sample([_Id(s) for s in sharded], 2, salt=salt)
    return [None, tuple(None for _ in (specs[1] if len(specs) > 1 else ()))] + [r.spec for r in rest]


class _Id:
    def __init__(self, spec):
        self.spec = spec
        self.id = repr(spec)


SAMPLER_CASES = sampler_cases()


@param(SAMPLER_CASES)
def test_sampler_types(case):
    check(case, "trace")


def _value_cases():
    """One case of every sampler, then a spread of the rest."""
    picked = [c for name in SAMPLERS for c in sample([c for c in SAMPLER_CASES if c.tags == (name,)], 1,
                                                       salt="values")]
    rest = [c for c in SAMPLER_CASES if c not in picked]
    return picked + sample(rest, 10, salt="more-values")


@param(_value_cases())
def test_sampler_values(case):
    """Compiled: the same types, values (bit for bit) and output shardings as JAX."""
    check(case, "jit", collectives=None)


@param(sample(SAMPLER_CASES, 4, salt="eager"))
def test_sampler_values_eager(case):
    check(case, "eager")


# --- keys: typed / raw, types, split / fold_in, indexing ----------------------------------------------
def _keys_program(ns):
    k = ns.note(ns.random.key(7), "key")
    ks = ns.note(ns.random.split(k, 4), "split4")
    kk = ns.note(ns.random.split(k, (2, 3)), "split23")
    f = ns.note(ns.random.fold_in(k, 12345), "fold")
    first = ns.note(ks[1], "index")
    a, b = ns.random.split(first)
    ns.note(a, "unpacked")
    raw = ns.note(ns.random.PRNGKey(3), "raw")
    rs = ns.note(ns.random.split(raw, 3), "rawsplit")
    rf = ns.note(ns.random.fold_in(raw, 2 ** 32 - 7), "rawfold")
    w = ns.note(ns.random.wrap_key_data(ns.random.key_data(kk)), "wrapped")
    return (ns.random.key_data(ks), ns.random.key_data(kk), ns.random.key_data(f), ns.random.key_data(b),
            rs, rf, ns.random.key_data(w[1, 2]), ns.random.normal(a, (3,)), ns.random.uniform(raw, (2,)))


SEEDS = [0, 1, 42, -1, 2 ** 31 - 1, -2 ** 31, 2 ** 32 + 5, 2 ** 40 + 3, np.int32(-9), np.uint32(4000000000),
         np.int8(-3), np.uint16(65535)]

KEY_CASES = [
    Case("keys", "2d", _keys_program, (), tol=EXACT),
    *[Case(f"seed-{type(s).__name__}-{s}", "1d", (lambda s: lambda ns: (
        ns.random.key_data(ns.random.key(s)), ns.random.PRNGKey(s)))(s), (), tol=EXACT) for s in SEEDS],
    Case("seed-traced", "1d", lambda ns, s: ns.random.key_data(ns.note(ns.random.key(s))), ("i32[]",), tol=EXACT),
    Case("seed-traced-u32", "1d", lambda ns, s: ns.random.PRNGKey(s), ("u32[]",), tol=EXACT),
    Case("fold_in-traced", "1d", lambda ns, d: ns.random.key_data(ns.random.fold_in(ns.random.key(3), d)),
         ("i32[]",), tol=EXACT),
    Case("key_data-sharded", "2d", lambda ns, kd: ns.random.key_data(ns.note(ns.random.wrap_key_data(kd))),
         ("u32[8@X,4@Y,2]",), tol=EXACT),
    Case("fold_in-negative", "1d", lambda ns: ns.random.fold_in(ns.random.key(0), -7), ()),
    Case("seed-too-large", "1d", lambda ns: ns.random.key(2 ** 70), ()),
]


@param([c for c in KEY_CASES if not c.id.startswith("seed-") or c.args])
def test_keys(case):
    check(case, "jit", collectives=None)


@param([c for c in KEY_CASES if not c.args])
def test_keys_eager(case):
    check(case, "eager")


def test_key_types_print_as_jax():
    k, jk = sc.random.key(0), jax.random.key(0)
    for f in (lambda r, k: k, lambda r, k: r.split(k, 4), lambda r, k: r.split(k, (2, 3))[1],
              lambda r, k: r.fold_in(k, 3)):
        assert str(sc.typeof(f(sc.random, k))) == str(jax.typeof(f(jax.random, jk)))
    assert str(sc.random.key(0).dtype) == str(jk.dtype) == "key<fry>"
    assert sc.random.split(k, 5).shape == (5,) and len(sc.random.split(k, 5)) == 5
    assert str(sc.typeof(sc.random.PRNGKey(0))) == str(jax.typeof(jax.random.PRNGKey(0))) == "uint32[2]"
    assert bool(sc.random.wrap_key_data(sc.random.key_data(k)) == k)
    assert sc.random.key_impl(k) == str(jax.random.key_impl(jk)) == "threefry2x32"
    ks, jks = sc.random.split(k, 6), jax.random.split(jk, 6)
    for f in (lambda a: a.reshape(2, 3), lambda a: a.reshape((3, 2)).T, lambda a: a[1:4], lambda a: a[None, 2]):
        assert str(sc.typeof(f(ks))) == str(jax.typeof(f(jks))), str(jax.typeof(f(jks)))
        np.testing.assert_array_equal(np.asarray(sc.random.key_data(f(ks))),
                                      np.asarray(jax.random.key_data(f(jks))))
    np.testing.assert_array_equal(np.asarray(ks == ks[::-1]), np.asarray(jks == jks[::-1]))
    traced = sc.jit(lambda a: [sc.random.key_data(x) for x in a])(ks[:3])
    np.testing.assert_array_equal(np.stack([np.asarray(t) for t in traced]), np.asarray(jax.random.key_data(jks[:3])))


# --- in programs: jit arguments and results, scan / fori_loop carries, shard_map, grad -----------------
def _zeros(ns, n):
    return ns.zeros(n) if ns.name == "shardc" else jax.numpy.zeros(n)


def _scan(ns):
    def body(k, _):
        k, sub = ns.random.split(k)
        return k, ns.random.normal(sub, (2,))
    k, xs = ns.lax.scan(body, ns.random.key(5), None, length=4)
    ns.note(k, "carry")
    return ns.random.key_data(k), xs


def _fori(ns):
    def body(i, c):
        k, acc = c
        return ns.random.fold_in(k, i), acc + ns.random.uniform(k, (4,))
    k, acc = ns.lax.fori_loop(0, 3, body, (ns.random.key(9), _zeros(ns, 4)))
    return ns.random.key_data(k), acc


def _jit_args(ns):
    f = ns.jit(lambda k, x: (ns.random.split(k, 2), x + ns.random.normal(k, x.shape)))
    ks, y = f(ns.random.key(4), _zeros(ns, 3))
    ns.note(ks, "jit-out")
    g = ns.jit(lambda ks: ns.random.bits(ks[1], (2,)))
    return ns.random.key_data(ks), y, g(ks)


def _smap(ns, dname):
    def body(kb):
        ns.note(kb, "block")
        return ns.random.normal(kb[0], (4,))[None] + ns.random.uniform(ns.random.fold_in(kb[0], 1), ())
    ks = ns.random.split(ns.random.key(0), 8)
    if ns.name == "shardc":   # sc.reshard takes arrays, not key arrays: reshard their data
        ks = ns.random.wrap_key_data(ns.reshard(ns.random.key_data(ks), ns.P("X")))
    else:
        ks = ns.reshard(ks, ns.P("X"))
    return ns.shard_map(body, in_specs=ns.P("X"), out_specs=ns.P("X"))(ks)


def _smap_sharded(ns, kd):
    def body(kb):
        ns.note(kb, "block")
        return ns.random.randint(kb[0], (1, 4), 0, 100)
    return ns.shard_map(body, in_specs=ns.P("X"), out_specs=ns.P("X"))(ns.random.wrap_key_data(kd))


def _smap_replicated_key(ns):
    def body(x):
        k = ns.random.key(11)          # the same key on every shard: the same values
        return x + ns.random.normal(k, x.shape)
    return ns.shard_map(body, in_specs=ns.P("X", "Y"), out_specs=ns.P("X", "Y"))(
        ns.reshard(_zeros(ns, (8, 4)), ns.P("X", "Y")))


def _grad(ns, x):
    def loss(w, k):
        noise = ns.random.normal(k, w.shape)
        keep = ns.random.bernoulli(ns.random.fold_in(k, 1), 0.7, w.shape)
        return (ns.where(keep, w * noise, 0.0) ** 2).sum()
    return ns.grad(loss)(x, ns.random.key(2))


def _dropout_in_scan_grad(ns, x):
    def loss(w):
        def step(c, k):
            return c * ns.random.uniform(k, c.shape, minval=0.5, maxval=1.5), None
        keys = ns.random.split(ns.random.key(1), 3)
        return ns.lax.scan(step, w, keys)[0].sum()
    return ns.grad(loss)(x)


CONTEXT_CASES = [
    Case("scan-carry", "2d", _scan, (), tol=EXACT),
    Case("fori-carry", "2d", _fori, (), tol=EXACT),
    Case("jit-args", "2d", _jit_args, (), tol=EXACT),
    Case("shard_map-keys", "1d", lambda ns: _smap(ns, "f32"), (), tol=EXACT),
    Case("shard_map-sharded-key-data", "2d", _smap_sharded, ("u32[2@X,2]",), tol=EXACT),
    Case("shard_map-replicated-key", "2d", _smap_replicated_key, (), tol=EXACT),
    Case("grad", "2d", _grad, ("f32[8@X,4@Y]",), tol=(1e-6, 1e-6)),
    Case("grad-scan-keys", "1d", _dropout_in_scan_grad, ("f32[8@X]",), tol=(1e-6, 1e-6)),
    Case("categorical", "2d", lambda ns, lg: ns.random.categorical(ns.random.key(3), lg), ("f32[8,4]",), tol=EXACT),
    Case("categorical-axis0-shape", "2d", lambda ns, lg: ns.random.categorical(
        ns.random.key(3), lg, axis=0, shape=(5, 4)), ("f32[8,4]",), tol=EXACT),
    Case("categorical-no-replace", "1d", lambda ns, lg: ns.random.categorical(
        ns.random.key(3), lg, shape=(3, 8), replace=False), ("f32[8,4]",), tol=EXACT),
    Case("categorical-bf16", "1d", lambda ns, lg: ns.random.categorical(ns.random.key(6), lg),
         ("bf16[4,8]",), tol=EXACT),
    Case("permutation-int", "1d", lambda ns: ns.random.permutation(ns.random.key(0), 50), (), tol=EXACT),
    Case("permutation-rows", "2d", lambda ns, x: ns.random.permutation(ns.random.key(1), x), ("f32[8,4]",),
         tol=EXACT),
    Case("permutation-axis1-independent", "2d", lambda ns, x: ns.random.permutation(
        ns.random.key(1), x, axis=1, independent=True), ("i32[8,4]",), tol=EXACT),
    Case("choice-replace", "1d", lambda ns: ns.random.choice(ns.random.key(2), 10, (3, 4)), (), tol=EXACT),
    Case("choice-array-axis1", "2d", lambda ns, x: ns.random.choice(ns.random.key(2), x, (5,), axis=1),
         ("f32[8,4]",), tol=EXACT),
    Case("choice-no-replace", "1d", lambda ns: ns.random.choice(ns.random.key(2), 10, (6,), replace=False),
         (), tol=EXACT),
    Case("choice-p", "1d", lambda ns: ns.random.choice(ns.random.key(2), 5, (7,),
                                                       p=np.array([.1, .2, .3, .25, .15], np.float32)),
         (), tol=EXACT),
    Case("choice-p-no-replace", "1d", lambda ns: ns.random.choice(
        ns.random.key(2), 5, (3,), replace=False, p=np.array([.1, .2, .3, .25, .15], np.float32)), (), tol=EXACT),
    Case("uniform-array-bounds", "2d", lambda ns, lo: ns.random.uniform(
        ns.random.key(8), (8, 4), minval=lo, maxval=lo + 2.0), ("f32[8,4]",), tol=EXACT),
    Case("truncated_normal-array-bounds", "2d", lambda ns, lo: ns.random.truncated_normal(
        ns.random.key(8), lo, lo + 1.0), ("f32[8,4]",), tol=EXACT),
    Case("randint-array-bounds", "2d", lambda ns, lo: ns.random.randint(
        ns.random.key(8), (8, 4), lo, lo + 7), ("i32[4]",), tol=EXACT),
    # a traced mean (with a compile-time constant one XLA may contract one multiply-add differently: 1 ulp)
    Case("wald", "2d", lambda ns, m: ns.random.wald(ns.random.key(8), m * 0.25 + 1.0), ("f32[8@X,4]",), tol=EXACT),
    Case("bernoulli-array-p", "2d", lambda ns, p: ns.random.bernoulli(ns.random.key(8), p * 0.25 + 0.5),
         ("f32[8@X,4]",), tol=EXACT),
]


@param(CONTEXT_CASES)
def test_in_programs(case):
    check(case, "jit", collectives=None)


@param([c for c in CONTEXT_CASES if not c.id.startswith(("grad", "shard_map"))][:8])
def test_in_programs_eager(case):
    check(case, "eager")


# --- JAX's errors ------------------------------------------------------------------------------------
ERRORS = [
    ("normal-int-dtype", lambda ns: ns.random.normal(ns.random.key(0), (3,), np.int32)),
    ("uniform-int-dtype", lambda ns: ns.random.uniform(ns.random.key(0), (3,), np.int32)),
    ("gumbel-int-dtype", lambda ns: ns.random.gumbel(ns.random.key(0), (3,), np.int32)),
    ("truncated-int-dtype", lambda ns: ns.random.truncated_normal(ns.random.key(0), -1.0, 1.0, (3,), np.int32)),
    ("bits-signed-dtype", lambda ns: ns.random.bits(ns.random.key(0), (3,), np.int32)),
    ("randint-float-dtype", lambda ns: ns.random.randint(ns.random.key(0), (3,), 0, 4, np.float32)),
    ("bernoulli-int-p", lambda ns: ns.random.bernoulli(ns.random.key(0), np.int32(1), (3,))),
    ("bernoulli-mode", lambda ns: ns.random.bernoulli(ns.random.key(0), 0.5, (3,), mode="mid")),
    ("gumbel-mode", lambda ns: ns.random.gumbel(ns.random.key(0), (3,), mode="mid")),
    ("batched-key", lambda ns: ns.random.normal(ns.random.split(ns.random.key(0), 2), (3,))),
    ("batched-key-split", lambda ns: ns.random.split(ns.random.split(ns.random.key(0), 2))),
    ("batched-key-fold_in", lambda ns: ns.random.fold_in(ns.random.split(ns.random.key(0), 2), 1)),
    ("seed-array", lambda ns: ns.random.key(np.zeros(3, np.int32))),
    ("seed-key", lambda ns: ns.random.key(ns.random.key(0))),
    ("impl-unknown", lambda ns: ns.random.key(0, impl="foo")),
    ("impl-and-dtype", lambda ns: ns.random.key(0, impl="threefry2x32", dtype="threefry2x32")),
    ("fold_in-array", lambda ns: ns.random.fold_in(ns.random.key(0), np.arange(3))),
    ("raw-key-shape", lambda ns: ns.random.normal(np.zeros(3, np.uint32)),
     "JAX encountered invalid PRNG key data: expected key_data.shape to end with (2,); got shape=(3,)"),
    ("raw-key-dtype", lambda ns: ns.random.normal(np.zeros(2, np.int32))),
    ("shape-param-mismatch", lambda ns: ns.random.randint(ns.random.key(0), (3,), np.zeros(4, np.int32), 5)),
    ("choice-too-many", lambda ns: ns.random.choice(ns.random.key(0), 3, (5,), replace=False)),
    ("choice-p-shape", lambda ns: ns.random.choice(ns.random.key(0), 3, (2,), p=np.ones(4, np.float32))),
    ("choice-shape-int", lambda ns: ns.random.choice(ns.random.key(0), 3, 2)),
    ("categorical-too-many", lambda ns: ns.random.categorical(
        ns.random.key(0), np.zeros((2, 3), np.float32), shape=(4, 2), replace=False)),
    ("permutation-float", lambda ns: ns.random.permutation(ns.random.key(0), 2.5)),
    ("out_sharding-auto-free", lambda ns: ns.random.normal(ns.random.key(0), (8,), out_sharding=ns.P("X", "Y"))),
]
ERROR_CASES = [Case(f"error-{name}", "2d", e[1], (), phrase=e[2] if len(e) > 2 else None) for e in ERRORS
               for name in [e[0]]]

# --- shapes as JAX's canonicalize_shape takes them: a Python int (bool too) is 1-D, a NumPy integer
# scalar is not a shape, NumPy integers inside a sequence are ----------------------------------------
SHAPE_FORMS = [("int", 5), ("bool", True), ("np-ints", (np.int32(3), np.int64(2))), ("list", [2, 3]),
               ("bool-dim", (True, 2)), ("empty", ()), ("np-int-scalar", np.int32(3)), ("float-dim", (2.0,)),
               ("np-bool-dim", (np.bool_(True),)), ("none", None), ("string", "ab")]
# (a negative dimension is left out: JAX's trace accepts `float32[4,-1]` and fails at lowering)
SHAPE_SAMPLERS = {
    "normal": lambda ns, k, s: ns.random.normal(k, s),
    "uniform": lambda ns, k, s: ns.random.uniform(k, shape=s),
    "bernoulli": lambda ns, k, s: ns.random.bernoulli(k, 0.5, s),
    "randint": lambda ns, k, s: ns.random.randint(k, s, 0, 9),
    "bits": lambda ns, k, s: ns.random.bits(k, s),
    "truncated_normal": lambda ns, k, s: ns.random.truncated_normal(k, -1.0, 1.0, s),
    "split": lambda ns, k, s: ns.random.key_data(ns.random.split(k, s)),
}
SPLIT_REFUSES = {"np-int-scalar", "float-dim", "np-bool-dim", "none", "string"}   # JAX's own messages there
SHAPE_CASES = [Case(f"shape-{fname}-{sname}", "2d",
                    (lambda f, shp: lambda ns: f(ns, ns.random.key(1), shp))(f, shape), ())
               for (fname, f), (sname, shape) in itertools.product(SHAPE_SAMPLERS.items(), SHAPE_FORMS)
               if not (fname == "split" and sname in SPLIT_REFUSES)]


@param(SHAPE_CASES)
def test_shape_arguments_as_jax(case):
    """Accepted or refused (class and phrase) as JAX, with the same types."""
    check(case, "trace")


@param(ERROR_CASES)
def test_errors(case):
    check(case, "eager")


def test_errors_name_the_users_line():
    with pytest.raises(ValueError) as e:
        sc.random.normal(sc.random.key(0), (3,), np.int32)
    assert "test_random.py" in str(e.value) and "sc.random.normal" in str(e.value)


# --- the API: every function JAX's signature ---------------------------------------------------------
def test_signatures_are_jax():
    names = [n for n in sc.random.__all__ if n != "KeyArray"]
    assert len(names) >= 20
    for n in names:
        ps, pj = inspect.signature(getattr(sc.random, n)).parameters, inspect.signature(getattr(jax.random, n)).parameters
        assert list(ps) == list(pj), n
        for a in ps:
            assert ps[a].kind == pj[a].kind, (n, a)
            if pj[a].default is not inspect.Parameter.empty:
                assert ps[a].default == pj[a].default, (n, a, ps[a].default, pj[a].default)


def test_partitionable_is_jaxs_default():
    """The values above follow from jax_threefry_partitionable=True, JAX 0.10.2's default."""
    assert jax.config.jax_threefry_partitionable is True


def test_vmap_over_keys():
    """`vmap` over a batch of typed keys (the usual per-example idiom): JAX's values and types."""
    ks_j, ks_s = jax.random.split(jax.random.key(0), 4), sc.random.split(sc.random.key(0), 4)
    a = jax.vmap(lambda k: jax.random.normal(k, (3,)))(ks_j)
    b = sc.vmap(lambda k: sc.random.normal(k, (3,)))(ks_s)
    np.testing.assert_array_equal(np.asarray(b), np.asarray(a))
    a = jax.vmap(jax.random.split)(ks_j)
    b = sc.vmap(sc.random.split)(ks_s)
    assert str(sc.typeof(b)) == str(jax.typeof(a)) == "key<fry>[4,2]"
    np.testing.assert_array_equal(np.asarray(sc.random.key_data(b)), np.asarray(jax.random.key_data(a)))
