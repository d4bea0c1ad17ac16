"""Differential: `lax.scaled_dot` (the block-scaled "mx" dot: shardc/primitives/scaled_dot.py,
shardc/ops/scaled_dot.py) against JAX 0.10.2.

Traced types (replicated on every mesh, whatever the operands' shardings: JAX's abstract eval
gives a `ShapedArray` without sharding) over 1-D to 3-D meshes and sampled operand specs;
compiled values (bf16 by default, f32/f16 `preferred_element_type`, float8_e8m0fnu scales,
float8_e4m3fn / e5m2 operands, batch dims, explicit `dimension_numbers`, vmap), output shardings
and collectives (the composite's decomposition is constrained as JAX's, so XLA partitions both
alike); JAX's TypeErrors (rank, batch, contracting and scale shapes) and its NotImplementedError for
derivatives; a sharded contracting dim (the decomposition's dot_general: "Contracting dimensions
are sharded", when the program is lowered, as JAX's `lower_fun` raises it); the lowered module's
`stablehlo.composite "xla.scaled_dot"` and its private decomposition. Where JAX and shardc differ
(a top-level result's concrete sharding: XLA's propagation in JAX, the replicated type in shardc;
docs/lax.md) a test states both.
"""
from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
from oracle import BASIC_MESHES, JAX, Case, check, param, sample, specs_for, type_str

import shardc as sc
import shardc.numpy as snp


def M(ns):
    return jnp if ns is JAX else snp


def _scale(ns, s):
    """Positive power-of-two-ish scales: |s| + 0.5 rounded into float8_e8m0fnu."""
    m = M(ns)
    return (m.abs(s) + 0.5).astype(m.float8_e8m0fnu)


def _sd(**kw):
    return lambda ns, a, b: ns.lax.scaled_dot(a, b, **kw)


def _sd_scaled(cast=None, **kw):
    def f(ns, a, b, sa, sb):
        if cast is not None:
            a, b = a.astype(getattr(M(ns), cast)), b.astype(getattr(M(ns), cast))
        return ns.lax.scaled_dot(a, b, lhs_scale=_scale(ns, sa), rhs_scale=_scale(ns, sb), **kw)
    return f


def type_cases():
    cases = []
    for mesh in BASIC_MESHES:
        for (sa, sb) in [((4, 8), (8, 4)), ((2, 4, 8), (2, 8, 4))]:
            pool = [Case(f"sd-{mesh}-{type_str('f32', sa, p)}-{type_str('f32', sb, q)}", mesh, _sd(),
                         (type_str("f32", sa, p), type_str("f32", sb, q)))
                    for p, q in itertools.product(specs_for(sa, mesh), specs_for(sb, mesh))]
            cases += sample(pool, 4, salt="sd" + mesh)
    cases += [
        Case("sd-types-bf16", "2d", _sd(), ("bf16[4@X,8]", "bf16[8,4@Y]"), expect="accept"),
        Case("sd-types-f32-pet", "2d", _sd(preferred_element_type=np.float32), ("f32[4@X,8]", "f32[8,4@Y]")),
        Case("sd-types-i32", "1d", _sd(), ("i32[4,8]", "i32[8,4]"), expect="accept"),
        Case("sd-types-weak", "1d", _sd(), ("~f32[4,8]", "~f32[8,4]")),
        Case("sd-types-mixed", "1d", _sd(), ("f32[4,8]", "bf16[8,4]"), expect="accept"),
        Case("sd-types-contract-sharded", "1d", _sd(), ("f32[4,8@X]", "f32[8@X,4]"), expect="accept"),
        # JAX's TypeErrors
        Case("sd-rank1", "1d", _sd(), ("f32[8]", "f32[8]"), expect="reject", kind=TypeError),
        Case("sd-rank0", "1d", _sd(), ("f32[]", "f32[]"), expect="reject", kind=TypeError),
        Case("sd-rank-mismatch", "1d", _sd(), ("f32[2,4,8]", "f32[8,4]"), expect="reject", kind=TypeError),
        Case("sd-contract-mismatch", "1d", _sd(), ("f32[4,8]", "f32[6,4]"), expect="reject", kind=TypeError),
        Case("sd-batch-mismatch", "1d", _sd(), ("f32[2,4,8]", "f32[3,8,4]"), expect="reject", kind=TypeError),
        Case("sd-ncontract", "1d", _sd(dimension_numbers=(((1,), (0, 1)), ((), ()))), ("f32[4,8]", "f32[8,4]"),
             expect="reject", kind=TypeError),
        Case("sd-nbatch", "1d", _sd(dimension_numbers=(((2,), (1,)), ((0,), ()))), ("f32[2,4,8]", "f32[2,8,4]"),
             expect="reject", kind=TypeError),
        Case("sd-scale-divides", "1d", lambda ns, a, b, s: ns.lax.scaled_dot(a, b, lhs_scale=_scale(ns, s)),
             ("f32[4,8]", "f32[8,4]", "f32[4,3]"), expect="reject", kind=TypeError),
        Case("sd-scale-ratio", "1d", lambda ns, a, b, s: ns.lax.scaled_dot(a, b, lhs_scale=_scale(ns, s)),
             ("f32[4,8]", "f32[8,4]", "f32[4,8]"), expect="reject", kind=TypeError),
        Case("sd-scale-free-dim", "1d", lambda ns, a, b, s: ns.lax.scaled_dot(a, b, rhs_scale=_scale(ns, s)),
             ("f32[4,8]", "f32[8,4]", "f32[2,2]"), expect="reject", kind=TypeError),
        Case("sd-scale-rank", "1d", lambda ns, a, b, s: ns.lax.scaled_dot(a, b, rhs_scale=_scale(ns, s)),
             ("f32[4,8]", "f32[8,4]", "f32[2]"), expect="reject", kind=TypeError),
        Case("sd-grad", "1d", lambda ns, a, b: ns.grad(lambda x: ns.lax.scaled_dot(x, b).astype(
             M(ns).float32).sum())(a), ("f32[4,8]", "f32[8,4]"), expect="reject", kind=NotImplementedError),
        Case("sd-jvp", "1d", lambda ns, a, b: ns.jvp(lambda x: ns.lax.scaled_dot(x, b), (a,), (a,))[1],
             ("f32[4,8]", "f32[8,4]"), expect="reject", kind=NotImplementedError),
    ]
    return cases


@param(type_cases())
def test_scaled_dot_types(case):
    check(case, "trace")


def value_cases():
    return [
        Case("sdv-default", "1d", _sd(), ("f32[4,8]", "f32[8,4]"), expect="accept"),
        Case("sdv-scales-f32", "1d", _sd_scaled(preferred_element_type=np.float32),
             ("f32[4,8]", "f32[8,4]", "f32[4,2]", "f32[2,4]"), expect="accept"),
        Case("sdv-scales-f16", "1d", _sd_scaled(preferred_element_type=np.float16),
             ("f32[4,16]", "f32[16,4]", "f32[4,4]", "f32[4,4]"), tol=(2e-2, 2e-2), expect="accept"),
        Case("sdv-e4m3fn", "1d", _sd_scaled("float8_e4m3fn"), ("f32[4,8]", "f32[8,4]", "f32[4,2]", "f32[2,4]"),
             expect="accept"),
        Case("sdv-e5m2", "1d", _sd_scaled("float8_e5m2", preferred_element_type=np.float32),
             ("f32[4,8]", "f32[8,4]", "f32[4,4]", "f32[4,4]"), expect="accept"),
        Case("sdv-batch", "1d", _sd_scaled(preferred_element_type=np.float32),
             ("f32[2,4,8]", "f32[2,8,4]", "f32[2,4,2]", "f32[2,2,4]"), expect="accept"),
        Case("sdv-batch-sharded-then-mul", "2d", lambda ns, *xs: _sd_scaled(preferred_element_type=np.float32)(ns, *xs) * 3,
             ("f32[2@X,4,8]", "f32[2@X,8,4]", "f32[2@X,4,2]", "f32[2@X,2,4]"), expect="accept"),
        Case("sdv-dn", "1d", _sd_scaled(dimension_numbers=(((0,), (1,)), ((), ())), preferred_element_type=np.float32),
             ("f32[8,4]", "f32[4,8]", "f32[2,4]", "f32[4,2]"), expect="accept"),
        Case("sdv-vmap", "2d", lambda ns, a, b: ns.vmap(ns.lax.scaled_dot)(a, b) * 1, ("f32[2@X,4,8]", "f32[2@X,8,4]"),
             expect="accept"),
        Case("sdv-vmap-scales", "1d", lambda ns, a, b, sa, sb: ns.vmap(
             lambda x, y, p, q: ns.lax.scaled_dot(x, y, lhs_scale=p, rhs_scale=q, preferred_element_type=np.float32),
             in_axes=(0, None, 0, None))(a, b, _scale(ns, sa), _scale(ns, sb)),
             ("f32[3,4,8]", "f32[8,4]", "f32[3,4,2]", "f32[2,4]"), expect="accept"),
        # sharded operands: the traced type is replicated, and so is the result after another op
        Case("sdv-sharded-then-mul", "2d", lambda ns, a, b: ns.lax.scaled_dot(a, b) * 2,
             ("f32[4@X,8]", "f32[8,4@Y]"), expect="accept"),
        Case("sdv-sharded-batch-then-add", "3d", lambda ns, a, b: ns.lax.scaled_dot(a, b) + 1,
             ("f32[2@X,4@Y,8]", "f32[2@X,8,4@Z]"), expect="accept"),
        Case("sdv-contract-sharded", "1d", lambda ns, a, b: ns.lax.scaled_dot(a, b) * 2,
             ("f32[4,8@X]", "f32[8@X,4]"), expect="reject", kind="ShardingTypeError"),
    ]


@param(value_cases())
def test_scaled_dot_values(case):
    check(case, "jit")


def test_scaled_dot_eager_matches_jax_values():
    """Op by op on replicated operands (sharded ones: the documented difference below)."""
    check(Case("sde-eager", "2d", _sd_scaled(preferred_element_type=np.float32),
               ("f32[4,8]", "f32[8,4]", "f32[4,2]", "f32[2,4]"), expect="accept"), "eager")


def test_scaled_dot_module_is_a_composite():
    """Both lower to a `stablehlo.composite "xla.scaled_dot"` whose decomposition is a private
    function of the module doing the same ops (two decompositions in one module: two functions)."""
    a, b = np.ones((4, 8), np.float32), np.ones((8, 4), np.float32)
    both = lambda lx: (lambda x, y: (lx.scaled_dot(x, y), lx.scaled_dot(x[:, :4], y[:4])))
    ours = sc.jit(both(sc.lax)).lower(a, b).as_text()
    theirs = jax.jit(both(jax.lax)).lower(a, b).as_text()
    for text in (ours, theirs):
        assert text.count('stablehlo.composite "xla.scaled_dot"') == 2
        assert text.count("func.func private @xla.scaled_dot") == 2
        assert "dimension_numbers = [[[1], [0]], [[], []]], preferred_element_type = bf16" in text
    ops = lambda t: sorted(k for k in ("broadcast_in_dim", "reshape", "convert", "multiply", "dot_general")
                           for _ in range(t.split("func.func private")[1].count(f"stablehlo.{k}")))
    assert ops(ours) == ops(theirs)


def test_scaled_dot_top_level_sharding_differs_from_jax_as_documented():
    """A scaled_dot result returned directly (or through unary ops, or eagerly): JAX's traced type
    has no mesh (`bfloat16[4,4]`, its abstract eval's bare ShapedArray), so its result array
    carries what XLA propagated through the decomposition (`bfloat16[4@X,4@Y]`); shardc's type is
    replicated on the context mesh (the same text) and so is its result, with the same values.
    A following op that meets the mesh (`* 2`) makes JAX's replicated too (the value cases above).
    docs/lax.md states this."""
    a = np.arange(32, dtype=np.float32).reshape(4, 8) / 8
    b = np.arange(32, dtype=np.float32).reshape(8, 4) / 8
    jm = jax.make_mesh((2, 4), ("X", "Y"), axis_types=(jax.sharding.AxisType.Explicit,) * 2)
    with jax.set_mesh(jm):
        ja, jb = jax.device_put(a, jax.P("X")), jax.device_put(b, jax.P(None, "Y"))
        jtraced = jax.jit(jax.lax.scaled_dot).trace(ja, jb).jaxpr.out_avals[0]
        jout = jax.jit(jax.lax.scaled_dot)(ja, jb)
        jneg = jax.jit(lambda x, y: -jax.lax.scaled_dot(x, y))(ja, jb)
        jeager = jax.lax.scaled_dot(ja, jb)
    with sc.set_mesh(sc.make_mesh((2, 4), ("X", "Y"))):
        sa, sb = sc.device_put(a, sc.P("X")), sc.device_put(b, sc.P(None, "Y"))
        straced = sc.jit(sc.lax.scaled_dot).trace(sa, sb).out_types
        sout = sc.jit(sc.lax.scaled_dot)(sa, sb)
        seager = sc.lax.scaled_dot(sa, sb)
    assert str(jtraced) == "bfloat16[4,4]" and str(straced) == "bfloat16[4,4]"
    assert jtraced.sharding.mesh.empty
    assert str(jax.typeof(jout)) == str(jax.typeof(jneg)) == str(jax.typeof(jeager)) == "bfloat16[4@X,4@Y]"
    assert str(sc.typeof(seager)) == "bfloat16[4,4]"
    assert str(sc.typeof(sout)) == "bfloat16[4,4]" and tuple(sout.sharding.spec) in ((), (None, None))
    np.testing.assert_array_equal(np.asarray(sout).astype(np.float32), np.asarray(jout).astype(np.float32))


def test_scaled_dot_in_shard_map():
    """Per-device blocks inside `shard_map` (the decomposition traced on the body's manual view):
    the same type and values as JAX's."""
    a = (np.arange(64, dtype=np.float32).reshape(8, 8) % 5) / 4
    b = (np.arange(32, dtype=np.float32).reshape(8, 4) % 3) / 2

    def run(lib, mesh):
        f = lib.shard_map(lambda x, y: lib.lax.scaled_dot(x, y, preferred_element_type=np.float32), mesh=mesh,
                          in_specs=(lib.P("X"), lib.P()), out_specs=lib.P("X"))
        with lib.set_mesh(mesh):
            r = lib.jit(f)(lib.device_put(a, lib.P("X")), lib.device_put(b, lib.P()))
            return str(lib.typeof(r)), np.asarray(r)

    jt, jv = run(jax, jax.make_mesh((8,), ("X",), axis_types=(jax.sharding.AxisType.Explicit,)))
    st, sv = run(sc, sc.make_mesh((8,), ("X",)))
    assert st == jt == "float32[8@X,4]"
    np.testing.assert_array_equal(sv, jv)
