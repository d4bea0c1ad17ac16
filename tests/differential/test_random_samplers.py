"""Differential: the rejection-sampling family of `shardc.random` against `jax.random`
(JAX 0.10.2, partitionable threefry): `gamma`, `loggamma`, `beta`, `dirichlet`,
`chisquare`, `f`, `t`, `poisson`, `binomial`, `multinomial`, `weibull_min`,
`double_sided_maxwell`, `generalized_normal`, `ball`, `key_dtype`, and
`lax.random_gamma_grad`. Values bit-identical (tolerance 0) over f32/bf16/f16,
shapes of rank 0-3, scalar and array parameters, typed and raw keys, `out_sharding=`
on 1-D to 3-D meshes, compiled and eager; types (`str(typeof)`) over a larger table
traced only; gradients in `a` (JAX's implicit reparameterization through
`random_gamma_grad`) to rounding; JAX's errors for bad arguments."""
from __future__ import annotations

import inspect
import itertools

import jax
import numpy as np
from oracle import BASIC_MESHES, Case, check, param, sample, specs_for

import shardc as sc

EXACT = (0.0, 0.0)
SHAPES = [(), (8,), (8, 4), (4, 2, 8)]
FLOATS = ["float32", "bfloat16", "float16"]


def _dtype(ns, name):
    return getattr(ns, name) if name == "bfloat16" else getattr(np, name)


def _P(ns, spec):
    return None if spec is None else ns.P(*spec)


def _key(ns, seed):
    """Typed keys for even seeds, raw `uint32[2]` keys for odd ones."""
    return ns.random.key(seed) if seed % 2 == 0 else ns.random.PRNGKey(seed)


# --- samplers with a shape, a dtype and out_sharding (scalar parameters) -----------------------------
def _s(call, dtypes=FLOATS, sharded=True):
    return call, dtypes, sharded


SAMPLERS = {
    "gamma": _s(lambda r, k, s, d, o: r.gamma(k, 2.5, s, d, out_sharding=o)),
    "gamma-small-a": _s(lambda r, k, s, d, o: r.gamma(k, 0.3, s, d, out_sharding=o), ["float32"]),
    "loggamma": _s(lambda r, k, s, d, o: r.loggamma(k, 0.2, s, d, out_sharding=o)),
    "beta": _s(lambda r, k, s, d, o: r.beta(k, 0.5, 2.0, s, d, out_sharding=o)),
    "chisquare": _s(lambda r, k, s, d, o: r.chisquare(k, 3.0, s, d, out_sharding=o)),
    "f": _s(lambda r, k, s, d, o: r.f(k, 3.0, 5.0, s, d, out_sharding=o)),
    "t": _s(lambda r, k, s, d, o: r.t(k, 4.0, s, d, out_sharding=o)),
    "poisson": _s(lambda r, k, s, d, o: r.poisson(k, 3.5, s, d, out_sharding=o), ["int32", "int8"]),
    "poisson-large": _s(lambda r, k, s, d, o: r.poisson(k, 40.0, s, d, out_sharding=o), ["int32", "int16"]),
    "generalized_normal": _s(lambda r, k, s, d, o: r.generalized_normal(k, 1.5, s, d, out_sharding=o)),
    "weibull_min": _s(lambda r, k, s, d, o: r.weibull_min(k, 2.0, 1.5, s, d), FLOATS, False),
    "double_sided_maxwell": _s(lambda r, k, s, d, o: r.double_sided_maxwell(k, 1.0, 2.0, s, d),
                               ["float32", "bfloat16"], False),
    "binomial": _s(lambda r, k, s, d, o: r.binomial(k, 30.0, 0.4, s, d), FLOATS, False),
    "binomial-small": _s(lambda r, k, s, d, o: r.binomial(k, 8, 0.7, s, d), ["float32"], False),
}


def _sampler_fn(call, shape, dname, spec, seed):
    def fn(ns):
        return call(ns.random, _key(ns, seed), shape, _dtype(ns, dname), _P(ns, spec))
    return fn


def _sid(spec) -> str:
    return "none" if spec is None else ",".join("-" if e is None else str(e) for e in spec) or "P()"


def sampler_cases():
    cases = []
    for (name, (call, dnames, sharded)), mesh in itertools.product(SAMPLERS.items(), BASIC_MESHES):
        pool = []
        for shape, dname in itertools.product(SHAPES, dnames):
            specs = [None]
            if sharded:   # None, replicated, and one sharded spec of the shape
                sharded_specs = [_Spec(s) for s in specs_for(shape, mesh) if any(e is not None for e in s)]
                specs += [tuple(None for _ in shape)] + [s.spec for s in sample(
                    sharded_specs, 1, salt=name + dname + str(shape) + mesh)]
            for k, spec in enumerate(specs):
                pool.append(Case(f"{name}-{dname}-{mesh}-{shape}-{_sid(spec)}", mesh,
                                 _sampler_fn(call, shape, dname, spec, k + len(shape)), (), tol=EXACT,
                                 tags=(name,)))
        cases += sample(pool, 1, salt=name + mesh)
    return cases


class _Spec:
    def __init__(self, spec):
        self.spec = spec
        self.id = repr(spec)


SAMPLER_CASES = sampler_cases()


@param(SAMPLER_CASES)
def test_sampler_types(case):
    check(case, "trace")


def _value_cases():
    """Compiled cases of a spread of samplers, meshes, shapes, dtypes and shardings (the array-parameter
    programs below compile the rest)."""
    names = ("gamma", "poisson-large", "binomial", "t")
    def pool(name):   # an out_sharding case of the sampler where the table has one
        cs = [c for c in SAMPLER_CASES if c.tags == (name,)]
        return [c for c in cs if not c.id.endswith("-none")] or cs
    return [c for name in names for c in sample(pool(name), 1, salt="values")]


@param(_value_cases())
def test_sampler_values(case):
    """Compiled: the same types, values (bit for bit) and output shardings as JAX."""
    check(case, "jit", collectives=None)


@param(sample([c for c in SAMPLER_CASES if c.tags in (("gamma",), ("poisson",))], 1, salt="eager"))
def test_sampler_values_eager(case):
    check(case, "eager")


# --- array parameters, samplers without `shape`, and the rest --------------------------------------
def _pos(ns, a):
    return ns.abs(a) + 0.25


A8x4 = "f32[8,4]"


def _gamma_family(ns, a, b):
    k = ns.random.split(_key(ns, 0), 6)
    pa, pb = _pos(ns, a), _pos(ns, b)
    return (ns.random.gamma(k[0], pa), ns.random.loggamma(k[1], pa * 0.1), ns.random.beta(k[2], pa, pb),
            ns.random.chisquare(k[3], pa * 4), ns.random.f(k[4], pa * 3, pb * 3), ns.random.t(k[5], pa * 3))


def _dirichlets(ns, a, a3):
    return (ns.random.dirichlet(_key(ns, 6), _pos(ns, a)),
            ns.random.dirichlet(_key(ns, 7), _pos(ns, a3), (8,), out_sharding=ns.P("X")),
            ns.random.dirichlet(_key(ns, 8), _pos(ns, a3), dtype=ns.bfloat16))


def _discrete(ns, a, b):
    """poisson (Knuth and rejection branches, lam == 0), binomial (inversion and BTRS with an int n;
    nan / negative / infinite n and nan / negative p), multinomial (a batch of n)."""
    edge_n = np.array([-1., np.nan, np.inf, 0., 5., 100., 7., 1e3], np.float32)
    edge_p = np.array([.5, .5, .3, .5, np.nan, .99, -.1, .8], np.float32)
    lam = ns.where(a > 0.5, ns.abs(a) * 30, ns.where(a > -0.5, 0.0, ns.abs(a) * 3))
    return (ns.random.poisson(_key(ns, 12), lam),
            ns.random.binomial(_key(ns, 14), 40, ns.abs(ns.sin(a + 1.0))),
            ns.random.binomial(_key(ns, 15), edge_n, edge_p),
            ns.random.multinomial(_key(ns, 18), ns.floor(ns.abs(b) * 30), ns.abs(a[0]) + 0.1, shape=(4, 4),
                                  dtype=np.int32))


def _others(ns, a, b):
    return (ns.random.weibull_min(_key(ns, 19), _pos(ns, a), _pos(ns, b), (8, 4)),
            ns.random.double_sided_maxwell(_key(ns, 20), b, 2.0, (3,)),
            ns.random.generalized_normal(_key(ns, 21), ns.abs(b[0]) + 0.5, (8,)),
            ns.random.ball(_key(ns, 23), 3, 1.5, (8,), ns.bfloat16, out_sharding=ns.P("X")))


def _in_shard_map(ns, sampler):
    """`sampler(key)` per shard, on keys sharded over X (a varying key: the parameters and the loop
    constants are made varying, as JAX's `random_insert_pvary` / `pvary`)."""
    kd = ns.reshard(ns.random.key_data(ns.random.split(ns.random.key(0), 8)), ns.P("X"))
    return ns.shard_map(lambda kb: sampler(ns.random.wrap_key_data(kb)[0])[None], in_specs=ns.P("X"),
                        out_specs=ns.P("X"))(kd)


PARAM_CASES = [
    Case("gamma-family-arrays", "2d", _gamma_family, (A8x4, "f32[4]"), tol=EXACT),
    Case("gamma-array-a-3d-out_sharding", "3d", lambda ns, a: (
        ns.random.gamma(_key(ns, 1), _pos(ns, a) * 0.5, out_sharding=ns.P("X", None, "Z")),
        ns.random.gamma(_key(ns, 2), _pos(ns, a[0, 0]), (3, 4), ns.bfloat16)), ("f32[2,2,4]",), tol=EXACT),
    Case("dirichlet", "2d", _dirichlets, (A8x4, "f32[3]"), tol=EXACT),
    Case("discrete", "2d", _discrete, (A8x4, "f32[4]"), tol=EXACT),
    Case("weibull-dsm-gennorm-ball", "2d", _others, (A8x4, "f32[4]"), tol=EXACT),
    Case("gamma-in-scan", "1d", lambda ns, a: ns.lax.scan(
        lambda c, k: (c + ns.random.gamma(k, _pos(ns, a)), None), ns.zeros_like(a),
        ns.random.split(ns.random.key(24), 3))[0], ("f32[8]",), tol=EXACT),
    Case("random_gamma_grad", "2d", lambda ns, a, x: (
        ns.lax.random_gamma_grad(_pos(ns, a), ns.abs(x) * 3),
        ns.lax.random_gamma_grad(ns.abs(a).astype(ns.bfloat16), x.astype(ns.bfloat16))), (A8x4, A8x4), tol=EXACT),
    Case("gamma-t-in-shard_map", "1d", lambda ns: _in_shard_map(
        ns, lambda k: ns.random.gamma(k, 2.5, (2,)) + ns.random.t(ns.random.fold_in(k, 1), 6.0, (2,))), (),
        tol=EXACT),
    Case("poisson-in-shard_map", "1d", lambda ns: _in_shard_map(ns, lambda k: ns.random.poisson(k, 3.0, (2,))), ()),
    # a sharded parameter: JAX's gamma replicates it (P() out_sharding for shape=None); loggamma's
    # vmap over the flattened elements refuses it
    Case("gamma-sharded-a", "2d", lambda ns, a: ns.random.gamma(_key(ns, 0), _pos(ns, a)), ("f32[8@X,4@Y]",),
         tol=EXACT),
    Case("loggamma-sharded-a", "2d", lambda ns, a: ns.random.loggamma(_key(ns, 0), _pos(ns, a)),
         ("f32[8@X,4@Y]",)),
]


@param(PARAM_CASES)
def test_param_samplers(case):
    check(case, "jit", collectives=None)


# --- gradients: the reparameterized gradient of gamma in `a` ------------------------------------------
GRAD_TOL = (2e-6, 1e-6)   # the transposed JVP multiplies in another order: rounding only


def _grads(ns, a, b):
    """gamma (through JAX's P() out_sharding for shape=None), loggamma's log-space rule, and
    dirichlet (loggamma under a softmax)."""
    k = ns.random.split(ns.random.key(1), 3)
    return (ns.grad(lambda a: (ns.random.gamma(k[0], a) ** 2).sum())(_pos(ns, a)),
            ns.grad(lambda b: ns.random.loggamma(k[1], b).sum())(_pos(ns, b) * 0.1),
            ns.grad(lambda b: ns.random.dirichlet(k[2], b)[0])(_pos(ns, b)))


GRAD_CASES = [Case("grads", "2d", _grads, (A8x4, "f32[4]"), tol=GRAD_TOL)]


@param(GRAD_CASES)
def test_gradients(case):
    check(case, "jit", collectives=None)


# --- JAX's errors ------------------------------------------------------------------------------------
def _k(ns):
    return ns.random.key(0)


ERRORS = [
    ("gamma-int-dtype", lambda ns: ns.random.gamma(_k(ns), 1.0, (3,), np.int32)),
    ("loggamma-int-dtype", lambda ns: ns.random.loggamma(_k(ns), 1.0, (3,), np.int32)),
    ("beta-int-dtype", lambda ns: ns.random.beta(_k(ns), 1.0, 2.0, (3,), np.int32)),
    ("dirichlet-int-dtype", lambda ns: ns.random.dirichlet(_k(ns), np.ones(3, np.float32), dtype=np.int32)),
    ("dirichlet-scalar-alpha", lambda ns: ns.random.dirichlet(_k(ns), 1.0)),
    ("dirichlet-shape", lambda ns: ns.random.dirichlet(_k(ns), np.ones((2, 3), np.float32), (4,))),
    ("gamma-shape-mismatch", lambda ns: ns.random.gamma(_k(ns), np.ones(3, np.float32), (4,))),
    ("beta-shape-mismatch", lambda ns: ns.random.beta(_k(ns), np.ones(3, np.float32), 1.0, (4,))),
    ("t-unsafe-cast", lambda ns: ns.random.t(_k(ns), np.ones(3, np.float32), dtype=np.float16)),
    ("chisquare-int-dtype", lambda ns: ns.random.chisquare(_k(ns), 2.0, (3,), np.int32)),
    ("f-int-dtype", lambda ns: ns.random.f(_k(ns), 2.0, 3.0, (3,), np.int32)),
    ("poisson-float-dtype", lambda ns: ns.random.poisson(_k(ns), 2.0, (3,), np.float32)),
    ("binomial-int-dtype", lambda ns: ns.random.binomial(_k(ns), 5.0, 0.5, (3,), np.int32)),
    ("binomial-list", lambda ns: ns.random.binomial(_k(ns), [5.0], 0.5)),
    ("multinomial-list", lambda ns: ns.random.multinomial(_k(ns), 5.0, [0.5, 0.5])),
    ("weibull-int-dtype", lambda ns: ns.random.weibull_min(_k(ns), 1.0, 1.0, (3,), np.int32)),
    ("dsm-int-dtype", lambda ns: ns.random.double_sided_maxwell(_k(ns), 1.0, 1.0, (3,), np.int32)),
    ("gamma-batched-key", lambda ns: ns.random.gamma(ns.random.split(_k(ns), 2), 1.0, (3,))),
    ("poisson-batched-key", lambda ns: ns.random.poisson(ns.random.split(_k(ns), 2), 1.0, (3,))),
    ("gamma-bad-shape", lambda ns: ns.random.gamma(_k(ns), 1.0, (3.5,))),
    ("key_dtype-unknown", lambda ns: ns.random.key_dtype("foo")),
]
ERROR_CASES = [Case(f"error-{name}", "2d", fn, ()) for name, fn in ERRORS]


@param(ERROR_CASES)
def test_errors(case):
    check(case, "eager")


# --- the API --------------------------------------------------------------------------------------------
NEW = ["gamma", "loggamma", "beta", "dirichlet", "chisquare", "f", "t", "poisson", "binomial", "multinomial",
       "weibull_min", "double_sided_maxwell", "generalized_normal", "ball", "key_dtype"]


def test_signatures_are_jax():
    for n in NEW + ["random_gamma_grad"]:
        mod_s, mod_j = (sc.lax, jax.lax) if n == "random_gamma_grad" else (sc.random, jax.random)
        ps = inspect.signature(getattr(mod_s, n)).parameters
        pj = inspect.signature(getattr(mod_j, n)).parameters
        if n == "random_gamma_grad":   # JAX's is wrapped by `_up_and_broadcast(*args)`
            assert list(ps) == ["a", "x"]
            continue
        assert list(ps) == list(pj), n
        for a in ps:
            assert ps[a].kind == pj[a].kind, (n, a)
            if pj[a].default is not inspect.Parameter.empty:
                assert ps[a].default == pj[a].default, (n, a)


def test_key_dtype_is_jaxs():
    assert str(sc.random.key_dtype()) == str(jax.random.key_dtype()) == "key<fry>"
    assert sc.random.key_dtype("threefry2x32") == sc.random.key(0).dtype


def test_vmap_over_keys():
    """Per-example samples (`vmap` over a batch of keys): poisson's loops give JAX's values bit for
    bit; gamma's doubly batched Marsaglia-Tsang loops are fused differently by XLA in the two
    programs (JAX batches its `random_gamma` primitive, shardc the loops): a few ulp apart."""
    ks_j, ks_s = jax.random.split(jax.random.key(0), 4), sc.random.split(sc.random.key(0), 4)
    for f, tol in ((lambda r, k: r.gamma(k, 2.5, (3,)), 1e-6), (lambda r, k: r.poisson(k, 4.0, (3,)), 0),
                   (lambda r, k: r.gamma(k, 0.7, (3,)), 1e-6)):
        a = jax.vmap(lambda k: f(jax.random, k))(ks_j)
        b = sc.vmap(lambda k: f(sc.random, k))(ks_s)
        np.testing.assert_allclose(np.asarray(b), np.asarray(a), rtol=tol, atol=0)
