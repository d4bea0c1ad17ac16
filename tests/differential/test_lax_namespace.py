"""`from shardc import lax` as `from jax import lax`: control flow, collectives and the
sharding assertions are reachable under their `lax` names, and `lax.map` agrees with
`jax.lax.map` (types, values, gradients, closures)."""
from __future__ import annotations

import functools

import jax
import pytest
from oracle import Case, check, param

import shardc as sc
from shardc import lax

# kept in the wrapper layer for transformation rules; JAX has them elsewhere
# (`jax.sharding.reshard`, `jnp.zeros_like`)
NOT_LAX = {"reshard", "zeros_like"}

# --- coverage of jax.lax 0.10.2's public names (docs/lax.md holds the same sets) ----------------------
#: every `*_p` name is a `jax.extend.core.Primitive`: JAX's jaxpr-level primitive objects. shardc's
#: primitives are its own (`shardc.core.Primitive`, in `shardc/primitives/`); a JAX Primitive cannot be
#: bound in a shardc program, so these are excluded as a class (the test checks each is one)
PRIMITIVE_OBJECTS = "jax.extend.core.Primitive objects (JAX's jaxpr internals; shardc's are shardc.core.Primitive)"
EXCLUDED = {
    "dce_sink": "JAX's jaxpr dead-code-elimination control (a value kept alive in a jaxpr); shardc's IR has none",
    "create_token": "XLA tokens order side effects between host transfers; shardc programs have no ordered effects",
    "after_all": "joins XLA tokens (see create_token)",
    "composite": "wraps a decomposition in a stablehlo.composite for a custom XLA backend pattern-matcher",
    "shape_as_value": "turns a symbolic (shape-polymorphic) dimension into a value; shardc shapes are static",
    # no CPU program can run these, JAX's included (checked by running JAX: test_lax_collectives_extra.py)
    "pbroadcast": "collective_broadcast: JAX lowers it on GPU only, and XLA:CPU has no collective-broadcast",
    "psend": "one-sided send: JAX's CPU lowering raises 'psend is currently only implemented on GPU'",
    "precv": "one-sided receive: JAX's CPU lowering raises 'precv is currently only implemented on GPU'",
    "ragged_all_to_all": "XLA:CPU cannot run the ragged-all-to-all opcode (JAX's program fails there too)",
}
NOT_YET: set[str] = set()   # see docs/lax.md "Not yet" (none left)


def test_every_jax_lax_name_is_accounted_for():
    from jax.extend.core import Primitive

    names = {n for n in dir(jax.lax) if not n.startswith("_")}
    prims = {n for n in names if isinstance(getattr(jax.lax, n), Primitive)}
    assert all(n.endswith("_p") for n in prims) and all(n in prims for n in names if n.endswith("_p"))
    ours = set(lax.__all__) - NOT_LAX
    sets = {"built": ours, "not yet": NOT_YET, "excluded": set(EXCLUDED), "primitive objects": prims}
    for a in sets:
        for b in sets:
            assert a == b or not (sets[a] & sets[b]), (a, b, sets[a] & sets[b])
    union = ours | NOT_YET | set(EXCLUDED) | prims
    assert names == union, f"not accounted for: {sorted(names - union)}; not jax.lax names: {sorted(union - names)}"


def test_lax_names_are_jax_lax_names():
    assert set(lax.__all__) - NOT_LAX <= set(dir(jax.lax)), set(lax.__all__) - NOT_LAX - set(dir(jax.lax))
    for name in lax.__all__:
        assert callable(getattr(lax, name)) or name == "linalg", name     # (jax.lax.linalg is a module)
    assert lax.scan is sc.scan and lax.psum is sc.psum and not hasattr(sc, "map")
    with pytest.raises(AttributeError):
        lax.no_such_function  # noqa: B018


def _map(ns, x, w):
    return ns.lax.map(lambda r: ns.tanh(r @ w), x)


def _map_pytree(ns, x, w):
    return ns.lax.map(lambda d: {"s": ns.sum(d["a"]), "a": d["a"] * 2.0}, {"a": x})


def _map_grad(ns, x, w):
    return ns.grad(lambda w: ns.sum(ns.lax.map(lambda r: ns.sin(r @ w), x)))(w)


def _map_in_jit_closure(ns, x, w):
    return ns.jit(lambda x: ns.lax.map(lambda r: r * ns.sum(w), x))(x)


PROGRAMS = [("map", _map), ("map-pytree", _map_pytree), ("map-grad", _map_grad),
            ("map-closure", _map_in_jit_closure)]
CASES = [Case(f"{name}-{mesh}-{mode}", mesh, fn, args, mode=mode, expect="accept", collectives="at_most")
         for name, fn in PROGRAMS
         for mesh, args in [("2d", ("f32[4,8@X,16]", "f32[16,4@Y]")), ("1d", ("f32[3,8@X,16]", "f32[16,8]"))]
         for mode in ("trace", "jit")]


@param(CASES)
def test_lax_map(case):
    check(case)


# --- lax.map(batch_size=...): whole batches in a scan, then the remainder (JAX vmaps f over each) ---
def _bmap(ns, x, w, bs):
    return ns.lax.map(lambda r: ns.tanh(r @ w), x, batch_size=bs)


def _bmap_pytree(ns, x, w, bs):
    return ns.lax.map(lambda d: (ns.sum(d["a"], axis=0), {"b": d["a"] * d["c"]}), {"a": x, "c": x + 1}, batch_size=bs)


def _bmap_grad(ns, x, w, bs):
    return ns.grad(lambda w: ns.sum(ns.lax.map(lambda r: ns.sin(r @ w), x, batch_size=bs)))(w)


def _bmap_closure(ns, x, w, bs):
    return ns.jit(lambda x, w: ns.lax.map(lambda r: r * ns.sum(w), x, batch_size=bs))(x, w)


def _bmap_nested(ns, x, w, bs):
    return ns.lax.map(lambda r: ns.lax.map(lambda s: s @ w, r, batch_size=bs), x.reshape(2, -1, *x.shape[1:]),
                      batch_size=1)


#: (name, program, argument types by mesh): f32 matmuls and i32 pytrees; 10 and 9 leading
#: slices, so that batch sizes 2 and 3 divide one of them and leave a remainder in the other
BATCHED = [("matmul", _bmap, {"2d": ("f32[10,8@X,16]", "f32[16,4@Y]"), "1d": ("f32[9,8@X,16]", "f32[16,8]")}),
           ("pytree-i32", _bmap_pytree, {"2d": ("i32[10,8@X,4@Y]", "i32[4]"), "1d": ("i32[9,8,8@X]", "i32[4]")}),
           ("grad", _bmap_grad, {"2d": ("f32[10,8@X,16]", "f32[16,4@Y]"), "1d": ("f32[9,8@X,16]", "f32[16,8]")}),
           ("closure", _bmap_closure, {"2d": ("f32[10,8@X,4]", "f32[4@Y]"), "1d": ("i32[9,8@X]", "i32[8@X]")}),
           ("nested", _bmap_nested, {"2d": ("f32[10,8@X,16]", "f32[16,4@Y]"), "1d": ("f32[8,8@X,16]", "f32[16,8]")})]
BATCH_SIZES = (0, 2, 3, 16)   # a full batch, divisible or a remainder (10 vs 9 slices), none whole
BATCHED_CASES = [Case(f"{name}-bs{bs}-{mesh}-{mode}", mesh, functools.partial(fn, bs=bs), args[mesh], mode=mode,
                      expect="accept", collectives="equal")
                 for name, fn, args in BATCHED for bs in BATCH_SIZES for mesh in ("2d", "1d")
                 for mode in ("trace", "jit", "eager")
                 if name != "nested" or bs in (2, 3)]


def _bmap_sharded_batches(ns, x, w):
    return ns.lax.map(lambda r: r * 2.0, x, batch_size=4)


def _bmap_sizes(ns, x, w):
    return ns.lax.map(lambda d: d["a"], {"a": x, "b": x[:9]}, batch_size=3)


def _bmap_float_size(ns, x, w):
    return ns.lax.map(lambda r: r, x, batch_size=2.0)


BATCHED_ERRORS = [
    Case("sharded-leading-dim", "1d", _bmap_sharded_batches, ("f32[16@X,4]", "f32[4]"), expect="reject",
         kind=ValueError, phrase="0th dimension of leaf passed to `jax.lax.map` should be replicated"),
    Case("different-sizes", "1d", _bmap_sizes, ("f32[10,4]", "f32[4]"), expect="reject", kind=ValueError,
         phrase="inconsistent sizes for array axes to be mapped"),
    Case("float-batch-size", "2d", _bmap_float_size, ("i32[10,4]", "i32[4]"), expect="reject", kind=TypeError,
         phrase="cannot be interpreted as an integer")]


@param(BATCHED_CASES + BATCHED_ERRORS)
def test_lax_map_batch_size(case):
    check(case)


def _one_sharded_batch(bs):
    return lambda ns, x, w: ns.lax.map(lambda r: ns.tanh(r * w), x, batch_size=bs)


ONE_BATCH = [Case(f"one-sharded-batch-bs{bs}-{mode}", "2d", _one_sharded_batch(bs), ("f32[16@X,4@Y]", "f32[4@Y]"),
                  mode=mode) for bs in (0, 32, 5) for mode in ("trace", "jit")]


@param(ONE_BATCH)
def test_map_batches_are_vmapped(case):
    """Each batch is `vmap(f)` as in JAX: one batch of everything may be sharded along its leading
    dim (f32[16@X,4@Y] stays sharded); with batch_size=5 the sharded leading dim is JAX's ValueError."""
    check(case)
