"""Differential: shardc.random's three PRNG implementations against JAX 0.10.2.

JAX 0.10.2 builds `threefry2x32` (its default, `key<fry>`, key data `uint32[2]`), `rbg`
(`key<rbg>`) and `unsafe_rbg` (`key<urbg>`), both with key data `uint32[4]`, split and
fold_in by threefry on each half key (rbg) or by XLA's RngBitGenerator (unsafe_rbg), and
random bits by `lax.rng_bit_generator`. Each program takes random key data of the right
shape, wraps it as keys of one implementation and draws from them: keys, split, fold_in,
key_data, and the samplers, with and without `out_sharding=` on 1-D to 3-D meshes, from
one key, from a sharded key array (vmap, where JAX's RngBitGenerator batching rule draws
the whole batch from the first key) and inside `shard_map`. Compared: accept/reject,
`str(typeof)` of outputs and of noted values, and (compiled subset) values bit for bit.
Then `lax.rng_bit_generator` itself on every algorithm and bit width, JAX's errors (mixed
implementations, wrong key data), and `jax_default_prng_impl`."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from oracle import BASIC_MESHES, MESHES, Case, check, param, spec_id, specs_for, type_str

import shardc as sc

EXACT = (0.0, 0.0)
IMPLS = ("threefry2x32", "rbg", "unsafe_rbg")
KEY_WORDS = {"threefry2x32": 2, "rbg": 4, "unsafe_rbg": 4}


def _key(ns, kd, impl):
    return ns.random.wrap_key_data(kd, impl=impl)


def _osh(ns, spec):
    return None if spec is None else ns.P(*spec)


# --- samplers from one key ---------------------------------------------------------------------------
def _sampler(name: str):
    """`fn(ns, k, shape, osh)` drawing `name`'s samples (JAX's defaults otherwise)."""
    return {
        "bits8": lambda ns, k, s, o: ns.random.bits(k, s, jnp.uint8, out_sharding=o),
        "bits32": lambda ns, k, s, o: ns.random.bits(k, s, out_sharding=o),
        "uniform": lambda ns, k, s, o: ns.random.uniform(k, s, minval=-2.0, maxval=3.0, out_sharding=o),
        "uniform-bf16": lambda ns, k, s, o: ns.random.uniform(k, s, jnp.bfloat16, out_sharding=o),
        "normal": lambda ns, k, s, o: ns.random.normal(k, s, out_sharding=o),
        "randint": lambda ns, k, s, o: ns.random.randint(k, s, -5, 1000, out_sharding=o),
        "bernoulli": lambda ns, k, s, o: ns.random.bernoulli(k, 0.3, s, out_sharding=o),
        "gumbel": lambda ns, k, s, o: ns.random.gumbel(k, s, out_sharding=o),
        "truncated_normal": lambda ns, k, s, o: ns.random.truncated_normal(k, -1.0, 2.0, s, out_sharding=o),
        "categorical": lambda ns, k, s, o: ns.random.categorical(k, ns.arange(5.0), shape=s, out_sharding=o),
        "exponential": lambda ns, k, s, o: ns.random.exponential(k, s, out_sharding=o),
        "rademacher": lambda ns, k, s, o: ns.random.rademacher(k, s, out_sharding=o),
    }[name]


SAMPLERS = ("bits8", "bits32", "uniform", "uniform-bf16", "normal", "randint", "bernoulli", "gumbel",
            "truncated_normal", "categorical", "exponential", "rademacher")
SHAPES = {"1d": [(8, 4)], "2d": [(2, 4, 8)], "3d": [(4, 2, 8)]}


def _draw(impl, name, shape, spec):
    def fn(ns, kd):
        k = ns.note(_key(ns, kd, impl), "key")
        return _sampler(name)(ns, k, shape, _osh(ns, spec))
    return fn


def _sampler_cases() -> list[Case]:
    """rbg and unsafe_rbg (threefry's samplers: test_random_samplers.py)."""
    out = []
    for impl in ("rbg", "unsafe_rbg"):
        kd = f"u32[{KEY_WORDS[impl]}]"
        for mesh, shapes in SHAPES.items():
            for shape in shapes:
                specs = specs_for(shape, BASIC_MESHES[mesh])
                picks = [None, *dict.fromkeys(specs[1::max(1, len(specs) // 2)][:2] + specs[-1:])]
                for spec in picks:
                    sid = "none" if spec is None else spec_id(spec)
                    for name in SAMPLERS:
                        out.append(Case(f"{impl}-{name}-{mesh}-{shape}-{sid}", mesh, _draw(impl, name, shape, spec),
                                        (kd,), tol=EXACT))
    return out


SAMPLER_CASES = _sampler_cases()


@param(SAMPLER_CASES)
def test_sampler_types(case):
    check(case, "trace")


#: compiled and run (each compiles on both sides: a few): rbg's draws replicated and with out_sharding
SAMPLER_RUNS = ("rbg-uniform-1d-(8, 4)-P(X,-)", "unsafe_rbg-randint-2d-(2, 4, 8)-none")


@param([c for c in SAMPLER_CASES if c.id in SAMPLER_RUNS])
def test_sampler_values(case):
    check(case, "jit", collectives=None)


# --- keys, split, fold_in, the slower samplers -------------------------------------------------------
def _keys_program(impl):
    def fn(ns, kd, seed):
        k = _key(ns, kd, impl)
        b = ns.note(ns.random.split(k, (2, 3)), "split23")
        d = ns.note(ns.random.fold_in(k, seed), "fold-traced")
        e = ns.note(ns.random.key(seed, impl=impl), "key")
        return tuple(ns.random.key_data(x) for x in (b, d, e))
    return fn


def _slow_program(impl):
    def fn(ns, kd, logits, x):
        k = _key(ns, kd, impl)
        ks = ns.random.split(k, 6)
        return (ns.random.permutation(ks[0], 10), ns.random.permutation(ks[1], x, axis=1),
                ns.random.choice(ks[2], 7, (5,), replace=False), ns.random.gamma(ks[3], 2.5, (4,)),
                ns.random.beta(ks[4], 2.0, 3.0, (3,)),
                ns.random.categorical(ks[5], logits, axis=0, shape=(3, 4), replace=False))
    return fn


KEY_CASES = [Case(f"{impl}-keys-{m}", m, _keys_program(impl), (f"u32[{KEY_WORDS[impl]}]", "i32[]"), tol=EXACT)
             for impl, m in (("rbg", "1d"), ("unsafe_rbg", "2d"))]
SLOW_CASES = [Case(f"{impl}-slow", "1d", _slow_program(impl),
                   (f"u32[{KEY_WORDS[impl]}]", "f32[6,4]", "f32[4,5]"), tol=(1e-6, 1e-6)) for impl in IMPLS]


@param(KEY_CASES)
def test_keys_split_fold_in(case):
    check(case, "jit", collectives=None)


@param(SLOW_CASES)
def test_shuffles_and_gamma_types(case):
    """permutation/choice/gamma/beta/categorical without replacement: types (values: test_gamma_values)."""
    check(case, "trace")


def test_gamma_values():
    """gamma over a non-threefry key is JAX's `lax.map` of `_gamma_one` (not vmap): bit-exact."""
    case = Case("unsafe_rbg-gamma", "1d", lambda ns, kd: ns.random.gamma(_key(ns, kd, "unsafe_rbg"), 2.5, (3,)),
                ("u32[4]",), tol=(1e-6, 1e-6))
    check(case, "jit", collectives=None)


# --- sharded key arrays: vmap over keys, shard_map over keys ------------------------------------------------
def _vmapped(impl, what):
    def fn(ns, kd):
        ks = ns.note(_key(ns, kd, impl), "keys")
        if what == "uniform":
            f = lambda k: ns.random.uniform(k, (3,))
        elif what == "split":
            f = lambda k: ns.random.key_data(ns.random.split(k))
        elif what == "fold_in":
            f = lambda k: ns.random.key_data(ns.random.fold_in(k, 3))
        else:
            f = lambda k: ns.random.randint(k, (2, 2), 0, 9)
        g = f
        for _ in range(ks.ndim):
            g = ns.vmap(g)
        return g(ks)
    return fn


def _vmap_cases() -> list[Case]:
    """threefry over Explicit meshes; rbg / unsafe_rbg over an Auto mesh: on Explicit axes JAX's
    lowering of their vmapped `random_bits` fails (RngBitGenerator's batching rule slices the first
    key: sharded keys are refused below; replicated ones hit a dynamic_update_slice sharding error in
    JAX's lowering that shardc does not have)."""
    out = []
    for impl in IMPLS:
        meshes = (("1d", (8,)), ("2d", (2, 4)), ("3d", (4, 2))) if impl == "threefry2x32" else \
            (("2d_auto", (2, 4)), ("2d_auto", (8,)))
        for mesh, shape in meshes:
            specs = specs_for(shape, BASIC_MESHES.get(mesh) or MESHES[mesh])
            for spec in dict.fromkeys([specs[0], specs[-1]]):
                kd = type_str("u32", (*shape, KEY_WORDS[impl]), spec)
                for what in ("uniform", "split", "fold_in", "randint"):
                    out.append(Case(f"{impl}-vmap-{what}-{mesh}-{shape}-{spec_id(spec)}", mesh,
                                    _vmapped(impl, what), (kd,), tol=EXACT))
    return out


VMAP_CASES = _vmap_cases()


@param(VMAP_CASES)
def test_sharded_key_arrays_types(case):
    check(case, "trace")


@param([c for c in VMAP_CASES if c.id in ("rbg-vmap-uniform-2d_auto-(8,)-P((Y,X))",
                                          "unsafe_rbg-vmap-split-2d_auto-(2, 4)-P(X,Y)",
                                          "unsafe_rbg-vmap-randint-2d_auto-(8,)-P((Y,X))")])
def test_sharded_key_arrays_values(case):
    check(case, "jit", collectives=None)


VMAP_REFUSED = [Case(f"{impl}-vmap-{what}-sharded", "1d", _vmapped(impl, what), (f"u32[8@X,{KEY_WORDS[impl]}]",),
                     phrase="slicing on sharded dims where out dim (1) is not divisible by mesh axes (8)")
                for impl in ("rbg", "unsafe_rbg") for what in ("uniform", "randint")]


@param(VMAP_REFUSED)
def test_sharded_key_arrays_refused_as_jax(case):
    """JAX's verdict when compiled (its trace-level `random_bits` accepts; its lowering refuses)."""
    check(case, "jit", collectives=None)


def _smap_bits(impl, what):
    """JAX's `test_sharded_random_bits`: a sharded batch of keys, one per device, drawn from inside shard_map."""
    def body(ns, k):
        k = ns.note(k[0], "body-key")
        if what == "bits":
            return ns.random.bits(k, (4,), jnp.uint8)[None]
        if what == "normal":
            return ns.random.normal(k, (4,))[None]
        return ns.random.key_data(ns.random.fold_in(ns.random.split(k)[1], 5))[None]

    def fn(ns, kd):
        g = ns.shard_map(lambda k: ns.note(body(ns, k), "body-out"), in_specs=ns.P("X"), out_specs=ns.P("X"))
        return g(_key(ns, kd, impl))
    return fn


SMAP_CASES = [Case(f"{impl}-smap-{what}", "1d", _smap_bits(impl, what), (f"u32[8@X,{KEY_WORDS[impl]}]",), tol=EXACT)
              for impl, what in (("rbg", "bits"), ("unsafe_rbg", "fold"))]


def _smap_pcast(impl):
    """JAX's `test_random_beta_vma`: a replicated key made varying by `lax.pcast` inside shard_map."""
    def fn(ns, kd, a):
        def body(k, a):
            k = ns.note(ns.lax.pcast(k, ("X",), to="varying"), "pcast-key")
            return ns.random.uniform(k, a.shape) + a
        return ns.shard_map(body, in_specs=(ns.P(), ns.P("X")), out_specs=ns.P("X"))(_key(ns, kd, impl), a)
    return fn


SMAP_CASES += [Case(f"{impl}-smap-pcast", "1d", _smap_pcast(impl), (f"u32[{KEY_WORDS[impl]}]", "f32[16@X]"),
                    tol=EXACT) for impl in ("threefry2x32", "unsafe_rbg")]


@param(SMAP_CASES)
def test_inside_shard_map(case):
    check(case, "jit", collectives=None)


# --- lax.rng_bit_generator: every algorithm, bit width, out_sharding ----------------------------------------
def _rbg_program(algorithm, dtype, shape, spec):
    def fn(ns, kd):
        new, bits = ns.lax.rng_bit_generator(kd, shape, dtype=dtype, algorithm=ns.lax.RandomAlgorithm(algorithm),
                                             out_sharding=_osh(ns, spec))
        return new, bits
    return fn


RBG_CASES = [Case(f"rbg-alg{a}-{np.dtype(d).name}-{m}-{spec_id(s) if s else 'none'}", m, _rbg_program(a, d, sh, s),
                  ("u32[4]",), tol=EXACT)
             for a in (0, 1, 2) for d in (jnp.uint8, jnp.uint16, jnp.uint32)
             for m, sh, s in (("1d", (8, 4), None), ("1d", (8, 4), ("X", None)), ("2d", (4, 8), ("X", "Y")))]


@param(RBG_CASES)
def test_rng_bit_generator_types(case):
    check(case, "trace")


@param([c for c in RBG_CASES if c.id in ("rbg-alg0-uint8-1d-P(X,-)", "rbg-alg2-uint32-2d-P(X,Y)")])
def test_rng_bit_generator_values(case):
    check(case, "jit", collectives=None)


# --- JAX's errors --------------------------------------------------------------------------------------------
def _k(ns, impl, seed=0):
    return ns.random.key(seed, impl=impl)


MIXED = "is not a valid dtype for JAX type promotion"   # JAX names one of the dtypes, in set order
BAD_DATA = "JAX encountered invalid PRNG key data: expected key_data"

REFUSED = [
    Case("stack-fry-rbg", "1d", lambda ns: ns.stack([_k(ns, "threefry2x32"), _k(ns, "rbg")]), phrase=MIXED),
    Case("stack-rbg-urbg", "1d", lambda ns: ns.stack([_k(ns, "rbg"), _k(ns, "unsafe_rbg")]), phrase=MIXED),
    Case("concat-urbg-rbg", "1d", lambda ns: ns.concatenate([_k(ns, "unsafe_rbg")[None], _k(ns, "rbg")[None]]),
         phrase=MIXED),
    Case("where-urbg-fry", "1d", lambda ns: ns.where(True, _k(ns, "unsafe_rbg"), _k(ns, "threefry2x32")),
         phrase=MIXED),
    Case("eq-rbg-fry", "1d", lambda ns: _k(ns, "rbg") == _k(ns, "threefry2x32")),
    Case("ne-urbg-rbg", "1d", lambda ns: _k(ns, "unsafe_rbg") != _k(ns, "rbg")),
    Case("add-rbg", "1d", lambda ns: _k(ns, "rbg") + 1),
    Case("where-rbg-int", "1d", lambda ns: ns.where(True, _k(ns, "rbg"), 1)),
    Case("wrap-rbg-2", "1d", lambda ns, kd: ns.random.wrap_key_data(kd, impl="rbg"), ("u32[2]",),
         phrase=BAD_DATA + ".shape to end with (4,); got shape=(2,)"),
    Case("wrap-urbg-3", "1d", lambda ns, kd: ns.random.wrap_key_data(kd, impl="unsafe_rbg"), ("u32[5,3]",),
         phrase=BAD_DATA + ".shape to end with (4,); got shape=(5, 3)"),
    Case("wrap-fry-4", "1d", lambda ns, kd: ns.random.wrap_key_data(kd), ("u32[4]",),
         phrase=BAD_DATA + ".shape to end with (2,); got shape=(4,)"),
    Case("wrap-rbg-i32", "1d", lambda ns, kd: ns.random.wrap_key_data(kd, impl="rbg"), ("i32[4]",)),
    Case("raw-rbg-data-default", "1d", lambda ns, kd: ns.random.uniform(kd), ("u32[4]",),
         phrase=BAD_DATA + ".shape to end with (2,); got shape=(4,)"),
    Case("poisson-rbg", "1d", lambda ns: ns.random.poisson(_k(ns, "rbg"), 3.0, (2,))),
    Case("unknown-impl", "1d", lambda ns: ns.random.key(0, impl="mt19937")),
    Case("impl-and-dtype", "1d", lambda ns: ns.random.key(0, impl="rbg", dtype="rbg")),
    Case("asarray-other-key-dtype", "1d",
         lambda ns: ns.asarray(_k(ns, "rbg"), dtype=_k(ns, "threefry2x32").dtype)),
    Case("batched-rbg-uniform", "1d", lambda ns: ns.random.uniform(ns.random.split(_k(ns, "rbg")))),
]


@param(REFUSED)
def test_refusals_as_jax(case):
    check(case, "trace")


# --- key types, key_impl, key_dtype, eager ----------------------------------------------------------------------
@pytest.mark.parametrize("impl", ["unsafe_rbg"])
def test_key_type_impl_and_dtype(impl):
    outs = []
    for ns in (jax, sc):
        k = ns.random.key(11, impl=impl)
        ks = ns.random.split(k, (2, 3))
        outs.append((str(ns.typeof(k)), str(ns.typeof(ks)), str(k.dtype), ns.random.key_impl(ks),
                     str(ns.random.key_dtype(impl)), k.dtype == ns.random.key(0, dtype=impl).dtype,
                     k.dtype == ns.random.key(0, impl=k.dtype).dtype, ns.random.key_data(ks).shape,
                     ns.random.PRNGKey(3, impl=impl).shape, np.asarray(ns.random.key_data(ks)).tolist(),
                     np.asarray(ns.random.uniform(ks[1, 2], (5,))).tolist()))
    assert outs[0] == outs[1]


@pytest.mark.parametrize("impl", ["rbg"])
def test_default_prng_impl_flag(impl):
    """`jax_default_prng_impl`: `key(seed)`, `PRNGKey(seed)` and raw keys use it; a program traced
    before keeps its keys (JAX's jit cache is not keyed on the flag)."""
    outs = []
    for ns in (jax, sc):
        f = ns.jit(lambda s: ns.random.uniform(ns.random.PRNGKey(s), (4,)))
        before = np.asarray(f(3))
        with ns.default_prng_impl(impl):
            k = ns.random.key(5)
            raw = ns.random.PRNGKey(5)
            inside = np.asarray(f(3))
            row = (str(ns.typeof(k)), raw.shape, np.asarray(ns.random.key_data(k)).tolist(),
                   np.asarray(ns.random.normal(raw, (3,))).tolist(), inside.tolist())
        after = np.asarray(f(3))
        outs.append((row, before.tolist(), after.tolist(), str(ns.typeof(ns.random.key(5)))))
    assert outs[0] == outs[1]
    assert outs[0][0][-1] == outs[0][1]   # JAX does not retrace a program for the flag: nor does shardc
