"""`sc.export` against `jax.export` (jax 0.10.2): the same program exported on both sides over
1-D and 2-D Explicit meshes and without a mesh, compared field by field (in/out avals, trees,
shardings recorded by the export and read back from the serialized bytes, device count,
platforms), by calling it (`typeof` and values, eagerly and inside `jit`), and across the two:
shardc's bytes deserialized and called by JAX, JAX's bytes deserialized and called by shardc
(eagerly, inside `sc.jit`, and differentiated through the serialized VJP), pytree arguments and
results, several dtypes, several platforms; and the refusals (wrong calls: JAX's ValueError and
key phrase on both sides; host callbacks; shape polymorphism)."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import shardc as sc
import shardc.numpy as snp
from shardc import P
from shardc.errors import ShardcNotImplementedError

EXPLICIT = jax.sharding.AxisType.Explicit
MESHES = {"1d": ((8,), ("X",)), "2d": ((2, 4), ("X", "Y"))}


@pytest.fixture(scope="module")
def mesh_pairs():
    out = {}
    for k, (shape, names) in MESHES.items():
        out[k] = (sc.make_mesh(shape, names), jax.make_mesh(shape, names, axis_types=(EXPLICIT,) * len(names)))
    return out


def _data(shape, dtype, seed=0):
    r = np.random.RandomState(seed)
    if np.dtype(dtype) == np.bool_:
        return r.rand(*shape) > 0.5
    if np.issubdtype(np.dtype(dtype), np.integer):
        return r.randint(-20, 20, size=shape).astype(dtype)
    return r.randn(*shape).astype(dtype)


# (name, mesh, function written once against (ns, np), [(shape, dtype, spec)])
CASES = [
    ("sin_add_f32", "2d", lambda ns, np_, x, y: np_.sin(x) * 2.0 + y,
     [((8, 4), np.float32, P("X", None)), ((8, 4), np.float32, P("X", None))]),
    ("matmul_bf16", "2d", lambda ns, np_, x, w: x @ w,
     [((8, 4), jnp.bfloat16, P("X", None)), ((4, 16), jnp.bfloat16, P(None, "Y"))]),
    ("reduce_tree", "2d", lambda ns, np_, x: {"s": np_.sum(x, axis=0), "m": (np_.max(x, axis=1), x.T)},
     [((8, 4), np.float32, P("X", "Y"))]),
    ("int_ops_1d", "1d", lambda ns, np_, a, b: (a * 3 - b, np_.max(a * b)),
     [((16,), np.int32, P("X")), ((16,), np.int32, P("X"))]),
    ("where_bool", "1d", lambda ns, np_, c, x: np_.where(c, x, -x),
     [((8, 2), np.bool_, P("X", None)), ((8, 2), np.float32, P("X", None))]),
    ("shard_map_sort_loop", "2d", lambda ns, np_, x: (
        ns.shard_map(lambda b: ns.lax.psum(b, "X") * 2, out_specs=ns.P(None, "Y"))(x),
        np_.sort(ns.reshard(x, ns.P("X", None)), axis=1),
        ns.lax.fori_loop(0, 3, lambda i, c: c * 1.5 + i, x)),
     [((8, 4), np.float32, P("X", "Y"))]),
    ("reshape_2d", "2d", lambda ns, np_, x: x.reshape(8, 2, 2).sum(-1),
     [((8, 4), np.float32, P(("X", "Y"), None))]),
]


def _export_both(name, mesh_pairs):
    case = next(c for c in CASES if c[0] == name)
    _, mk, fn, specs = case
    sm, jm = mesh_pairs[mk]
    data = [_data(s, d, i) for i, (s, d, _) in enumerate(specs)]
    with sc.set_mesh(sm):
        sds = [sc.ShapeDtypeStruct(s, d, sharding=sc.NamedSharding(sm, p)) for s, d, p in specs]
        se = sc.export.export(sc.jit(lambda *a: fn(sc, snp, *a)))(*sds)
        sargs = [sc.device_put(x, sc.NamedSharding(sm, p)) for x, (_, _, p) in zip(data, specs)]
    with jax.set_mesh(jm):
        jsds = [jax.ShapeDtypeStruct(s, d, sharding=jax.sharding.NamedSharding(jm, jax.P(*p))) for s, d, p in specs]
        je = jax.export.export(jax.jit(lambda *a: fn(jax, jnp, *a)))(*jsds)
        jargs = [jax.device_put(x, jax.sharding.NamedSharding(jm, jax.P(*p))) for x, (_, _, p) in zip(data, specs)]
    return (sm, jm), se, je, sargs, jargs


def _specs(shardings):
    return [None if s is None else str(s.spec) for s in shardings]


def _same_results(r_sc, r_jax, values: bool = True):
    ls, ts = jax.tree.flatten(r_sc)
    lj, tj = jax.tree.flatten(r_jax)
    assert str(ts) == str(tj)
    for a, b in zip(ls, lj):
        assert str(sc.typeof(a)) == str(jax.typeof(b)), (sc.typeof(a), jax.typeof(b))
        assert str(getattr(a.sharding, "spec", None)) == str(getattr(b.sharding, "spec", None)), (a.sharding, b.sharding)
        if not values:
            continue
        if np.issubdtype(np.asarray(b).dtype, np.floating) or np.asarray(b).dtype == jnp.bfloat16:
            np.testing.assert_allclose(np.asarray(a, np.float32), np.asarray(b, np.float32), rtol=2e-2, atol=1e-5)
        else:
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def _same_fields(se, je, mesh_pair, hlo_ref=None):
    sm, jm = mesh_pair
    assert str(se.in_avals) == str(je.in_avals)
    assert str(se.out_avals) == str(je.out_avals)
    assert str(se.in_tree) == str(je.in_tree) and str(se.out_tree) == str(je.out_tree)
    assert (se.nr_devices, se.platforms, se.calling_convention_version, se.module_kept_var_idx) == \
        (je.nr_devices, je.platforms, je.calling_convention_version, je.module_kept_var_idx)
    assert _specs(se.in_shardings_jax(sm)) == _specs(je.in_shardings_jax(jm))
    assert _specs(se.out_shardings_jax(sm)) == _specs(je.out_shardings_jax(jm))
    hlo_ref = je if hlo_ref is None else hlo_ref
    assert [str(s) for s in se.in_shardings_hlo] == [str(s) for s in hlo_ref.in_shardings_hlo]
    assert [str(s) for s in se.out_shardings_hlo] == [str(s) for s in hlo_ref.out_shardings_hlo]


@pytest.mark.parametrize("name", [c[0] for c in CASES])
def test_export_fields_and_call_agree(name, mesh_pairs):
    mp, se, je, sargs, jargs = _export_both(name, mesh_pairs)
    _same_fields(se, je, mp)
    # the bytes: both read back by JAX record the same avals and shardings (HloShardings included)
    sj, jj = jax.export.deserialize(se.serialize()), jax.export.deserialize(je.serialize())
    assert str(sj.in_avals) == str(jj.in_avals) and str(sj.out_avals) == str(jj.out_avals)
    assert [str(s) for s in sj.in_shardings_hlo] == [str(s) for s in jj.in_shardings_hlo]
    assert [str(s) for s in sj.out_shardings_hlo] == [str(s) for s in jj.out_shardings_hlo]
    with jax.set_mesh(mp[1]):
        expect = je.call(*jargs)
        _same_results(sj.call(*jargs), expect)                # shardc's module, called by JAX
    with sc.set_mesh(mp[0]):
        _same_results(se.call(*sargs), expect)                 # shardc's, called by shardc
        back = sc.export.deserialize(je.serialize())           # JAX's module, called by shardc
        _same_fields(back, je, mp, hlo_ref=jj)   # (read back, JAX's HloShardings too)
        _same_results(back.call(*sargs), expect)


@pytest.mark.parametrize("name", ["sin_add_f32", "reduce_tree", "int_ops_1d", "shard_map_sort_loop"])
def test_jax_export_called_inside_sc_jit(name, mesh_pairs):
    mp, se, je, sargs, jargs = _export_both(name, mesh_pairs)
    back = sc.export.deserialize(je.serialize())
    with jax.set_mesh(mp[1]):
        expect = jax.jit(lambda *a: jax.tree.map(lambda v: v * 2, je.call(*a)))(*jargs)
    with sc.set_mesh(mp[0]):
        got = sc.jit(lambda *a: jax.tree.map(lambda v: v * 2, back.call(*a)))(*sargs)
    _same_results(got, expect)


def test_module_is_inlined_with_private_functions(mesh_pairs):
    """JAX's module calls private functions (nested jit, `_where`, `norm`): inlined by shardc."""
    sm, jm = mesh_pairs["2d"]

    def f(x, y):
        z = jax.jit(lambda a: a * 2, inline=False)(x)
        return jnp.where(x > 0, jax.jit(jnp.cos)(z), y), jnp.linalg.norm(x)
    x = _data((8, 4), np.float32)
    with jax.set_mesh(jm):
        s = jax.ShapeDtypeStruct((8, 4), np.float32, sharding=jax.P("X"))
        je = jax.export.export(jax.jit(f))(s, s)
        jx = jax.device_put(x, jax.P("X"))
        expect = je.call(jx, jx)
    assert "call @" in je.mlir_module()
    back = sc.export.deserialize(je.serialize())
    with sc.set_mesh(sm):
        sx = sc.device_put(x, P("X"))
        text = sc.jit(lambda a: back.call(a, a)).lower(sx).as_text()
        assert "call @" not in text and "func.func private" not in text
        _same_results(back.call(sx, sx), expect)


def test_vjp_round_trips_both_ways(mesh_pairs):
    sm, jm = mesh_pairs["2d"]
    x = _data((8, 4), np.float32)
    with jax.set_mesh(jm):
        jx = jax.device_put(x, jax.P("X", "Y"))
        je = jax.export.export(jax.jit(lambda a: jnp.sum(jnp.sin(a) * a)))(jx)
        expect = jax.grad(je.call)(jx)
        jax_of_sc = None
    with sc.set_mesh(sm):
        sx = sc.device_put(x, P("X", "Y"))
        se = sc.export.export(sc.jit(lambda a: snp.sum(snp.sin(a) * a)))(sx)
        assert se.has_vjp() and str(se.vjp().in_avals) == str(je.vjp().in_avals)
        assert str(se.vjp().out_avals) == str(je.vjp().out_avals)
        _same_results(sc.grad(se.call)(sx), expect)
        _same_results(sc.grad(sc.export.deserialize(je.serialize(vjp_order=1)).call)(sx), expect)
        assert not sc.export.deserialize(je.serialize()).has_vjp()
        blob = se.serialize(vjp_order=1)
    with jax.set_mesh(jm):
        jax_of_sc = jax.export.deserialize(blob)
        _same_results(jax.grad(jax_of_sc.call)(jx), expect)


def test_no_mesh_pytree_kwargs_weak_scalars_and_platforms():
    def f(ns, np_):
        return lambda x, *, s, d: {"y": np_.cos(x) * s, "z": (d["a"] + 1, d["b"])}
    x = np.linspace(0, 1, 6, dtype=np.float32).reshape(2, 3)
    d = {"a": np.arange(3, dtype=np.int32), "b": np.ones((2,), np.float32)}
    for plats in (None, ("cpu", "cuda")):
        se = sc.export.export(sc.jit(f(sc, snp)), platforms=plats)(x, s=2.0, d=d)
        je = jax.export.export(jax.jit(f(jax, jnp)), platforms=plats)(x, s=2.0, d=d)
        assert str(se.in_avals) == str(je.in_avals) and str(se.out_avals) == str(je.out_avals)
        assert str(se.in_tree) == str(je.in_tree) and str(se.out_tree) == str(je.out_tree)
        assert (se.nr_devices, se.platforms, se.uses_global_constants) == \
            (je.nr_devices, je.platforms, je.uses_global_constants)
        assert se.in_shardings_jax(None) == je.in_shardings_jax(None) == (None,) * 4
        expect = je.call(x, s=2.0, d=d)
        _same_results(se.call(x, s=2.0, d=d), expect)
        _same_results(jax.export.deserialize(se.serialize()).call(x, s=2.0, d=d), expect)
        _same_results(sc.export.deserialize(je.serialize()).call(x, s=2.0, d=d), expect)
        if plats:
            assert '_platform_index' in se.mlir_module()


def _refusal(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001  (the class and message are what is compared)
        return e
    raise AssertionError("no error")


WRONG_CALLS = [
    ("arity", lambda x, y: ((x,), {}), "must have the same pytree structure"),
    ("tree", lambda x, y: (([x], y), {}), "must have the same pytree structure"),
    ("shape", lambda x, y: ((x[:4], y), {}), "Shape mismatch for args[0].shape[0]"),
    ("dtype", lambda x, y: ((x.astype(np.int32), y), {}), "Dtype mismatch for args[0]"),
    ("rank", lambda x, y: ((x, y[None]), {}), "Rank mismatch for args[1]"),
]


@pytest.mark.parametrize("kind,make,phrase", WRONG_CALLS, ids=[w[0] for w in WRONG_CALLS])
def test_wrong_calls_are_jax_errors(kind, make, phrase):
    x, y = np.ones((8, 4), np.float32), np.ones((8, 4), np.float32)
    se = sc.export.export(sc.jit(lambda a, b: a + b))(x, y)
    je = jax.export.export(jax.jit(lambda a, b: a + b))(x, y)
    for exp, arrays in ((se, (sc.numpy.asarray(x), sc.numpy.asarray(y))), (je, (jnp.asarray(x), jnp.asarray(y)))):
        args, kwargs = make(*arrays)
        err = _refusal(lambda: exp.call(*args, **kwargs))
        assert isinstance(err, ValueError) and phrase in str(err), (exp, err)
        assert type(err).__module__.startswith("shardc") == (exp is se)


def test_other_refusals():
    x = np.ones(3, np.float32)
    for ns, mod in ((sc, sc.export), (jax, jax.export)):
        err = _refusal(lambda: mod.export(lambda a: a)(x))
        assert isinstance(err, ValueError) and "must be the result of `jit`" in str(err)
        err = _refusal(lambda: mod.export(ns.jit(lambda a: ns.debug.print("{}", a)))(x))
        assert isinstance(err, NotImplementedError) and "serialization of host_callbacks" in str(err)
    a, = jax.export.symbolic_shape("a")
    with pytest.raises(ShardcNotImplementedError, match="symbolic dimensions"):
        sc.export.export(sc.jit(lambda v: v))(jax.ShapeDtypeStruct((a, 4), np.float32))
    for mod, ns in ((sc.export, sc), (jax.export, jax)):   # exported for another platform only
        err = _refusal(lambda: mod.export(ns.jit(lambda a: a * 2), platforms=("cuda",))(x).call(x))
        assert isinstance(err, ValueError) and "was exported for platforms '('cuda',)' but it is used on" in str(err)
    with pytest.raises(ShardcNotImplementedError, match="lowers differently on the platforms"):
        sc.export.export(sc.jit(snp.linalg.cholesky), platforms=("cpu", "cuda"))(np.eye(4, dtype=np.float32))
    jk = jax.export.export(jax.jit(lambda k: jax.random.normal(k, (3,))))(jax.random.key(0))
    for fn in (lambda: sc.export.deserialize(jk.serialize()).call(sc.random.key(0)),
               lambda: sc.export.export(sc.jit(lambda k: sc.random.normal(k, (3,))))(sc.random.key(0))):
        with pytest.raises(ShardcNotImplementedError, match="typed PRNG key arrays"):
            fn()
    for name in ("symbolic_shape", "symbolic_args_specs", "SymbolicScope"):
        with pytest.raises(ShardcNotImplementedError, match="symbolic"):
            getattr(sc.export, name)("a, b")
    assert not sc.export.is_symbolic_dim(4) and sc.export.is_symbolic_dim(jax.export.symbolic_shape("a")[0])
    assert sc.export.DisabledSafetyCheck is jax.export.DisabledSafetyCheck
    assert sc.export.default_export_platform() == jax.export.default_export_platform()
    assert (sc.export.minimum_supported_calling_convention_version,
            sc.export.maximum_supported_calling_convention_version) == (
        jax.export.minimum_supported_calling_convention_version, jax.export.maximum_supported_calling_convention_version)


def test_wrong_device_count_and_mesh(mesh_pairs):
    sm, jm = mesh_pairs["2d"]
    with jax.set_mesh(jm):
        je = jax.export.export(jax.jit(lambda a: a * 2))(jax.ShapeDtypeStruct((8,), np.float32, sharding=jax.P("X")))
    back = sc.export.deserialize(je.serialize())
    err = _refusal(lambda: back.call(np.ones(8, np.float32)))   # no mesh: one device
    assert isinstance(err, ValueError) and "was exported for 8 devices" in str(err), err
    err = _refusal(lambda: back.in_shardings_jax(mesh_pairs["1d"][0]))
    assert isinstance(err, ValueError) and "does not match the mesh used for export" in str(err)


def _auto(sm, jm, x):
    """An all-Auto mesh: the in/out shardings are placements (`out_shardings=`), not types."""
    with sc.set_mesh(sm):
        se = sc.export.export(sc.jit(lambda a: a * 2, out_shardings=sc.NamedSharding(sm, P("Y"))))(
            sc.ShapeDtypeStruct(x.shape, x.dtype, sharding=sc.NamedSharding(sm, P("X"))))
        sargs = [sc.device_put(x, P("X"))]
    with jax.set_mesh(jm):
        je = jax.export.export(jax.jit(lambda a: a * 2, out_shardings=jax.NamedSharding(jm, jax.P("Y"))))(
            jax.ShapeDtypeStruct(x.shape, x.dtype, sharding=jax.NamedSharding(jm, jax.P("X"))))
        jargs = [jax.device_put(x, jax.P("X"))]
    return se, je, sargs, jargs


def _unused_and_static(sm, jm, x):
    """A static argument (not in `in_tree`) and an unused one (dropped from the module)."""
    def f(np_):
        return lambda a, n, b: np_.tanh(a) * n
    with sc.set_mesh(sm):
        xs = sc.device_put(x, P("X"))
        se = sc.export.export(sc.jit(f(snp), static_argnums=1))(xs, 3, xs)
    with jax.set_mesh(jm):
        xj = jax.device_put(x, jax.P("X"))
        je = jax.export.export(jax.jit(f(jnp), static_argnums=1))(xj, 3, xj)
    return se, je, [xs, xs], [xj, xj]


def _unreduced(sm, jm, x):
    """An unreduced result (`{U:X}`): the partial sums stay on the devices."""
    def f(np_, p):
        return lambda a, w: np_.dot(a, w, out_sharding=p(None, None, unreduced={"X"}))
    w = np.linspace(-1, 1, 8, dtype=np.float32).reshape(4, 2)
    with sc.set_mesh(sm):
        se = sc.export.export(sc.jit(f(snp, P)))(sc.ShapeDtypeStruct((8, 4), np.float32, sharding=P(None, "X")),
                                                 sc.ShapeDtypeStruct((4, 2), np.float32, sharding=P("X")))
        sargs = [sc.device_put(x, P(None, "X")), sc.device_put(w, P("X"))]
    with jax.set_mesh(jm):
        je = jax.export.export(jax.jit(f(jnp, jax.P)))(jax.ShapeDtypeStruct((8, 4), np.float32, sharding=jax.P(None, "X")),
                                                       jax.ShapeDtypeStruct((4, 2), np.float32, sharding=jax.P("X")))
        jargs = [jax.device_put(x, jax.P(None, "X")), jax.device_put(w, jax.P("X"))]
    return se, je, sargs, jargs


EXTRA = [("auto", _auto, sc.AxisType.Auto), ("unused_static", _unused_and_static, sc.AxisType.Explicit),
         ("unreduced", _unreduced, sc.AxisType.Explicit)]


@pytest.mark.parametrize("name,build,kind", EXTRA, ids=[e[0] for e in EXTRA])
def test_export_placements_unused_static_unreduced(name, build, kind):
    sm = sc.make_mesh((2, 4), ("X", "Y"), axis_types=(kind,) * 2)
    jm = jax.make_mesh((2, 4), ("X", "Y"), axis_types=(getattr(jax.sharding.AxisType, kind.value),) * 2)
    x = _data((8, 4), np.float32)
    se, je, sargs, jargs = build(sm, jm, x)
    _same_fields(se, je, (sm, jm))
    back = sc.export.deserialize(je.serialize())
    unreduced = name == "unreduced"   # (values read after a reshard: an unreduced array has no global value)
    with jax.set_mesh(jm):
        expect = je.call(*jargs)
        got = jax.export.deserialize(se.serialize()).call(*jargs)
        _same_results(got, expect, values=not unreduced)
        expect_v = jax.reshard(expect, jax.P()) if unreduced else expect
        _same_results(jax.reshard(got, jax.P()) if unreduced else got, expect_v)
    with sc.set_mesh(sm):
        for r in (se.call(*sargs), back.call(*sargs)):
            _same_results(r, expect, values=not unreduced)
            _same_results(sc.reshard(r, P()) if unreduced else r, expect_v)


def test_jax_shape_polymorphic_export_called_at_concrete_shapes():
    """A JAX export with a dimension variable, called by shardc at concrete shapes (JAX's shape
    refinement, as JAX compiles it), eagerly, in `sc.jit` and under `sc.grad`; JAX's errors."""
    a, = jax.export.symbolic_shape("a")
    spec = jax.ShapeDtypeStruct((a, 4), np.float32)
    je = jax.export.export(jax.jit(lambda x, y: (jnp.sin(x) * x.shape[0], jnp.sum(y, axis=0),
                                                 jnp.concatenate([x, y]))))(spec, spec)
    se = sc.export.deserialize(je.serialize(vjp_order=1))
    assert str(se.in_avals) == str(je.in_avals) and str(se.out_avals) == str(je.out_avals)
    for n in (3, 8):
        x = _data((n, 4), np.float32, n)
        expect = je.call(x, x * 2)
        _same_results(se.call(x, x * 2), expect)
        if n == 3:
            _same_results(sc.jit(lambda v: se.call(v, v * 2))(x), expect)
    loss = lambda call: lambda v: call(v, v * 2)[0].sum()   # noqa: E731
    _same_results(sc.grad(loss(se.call))(x), jax.grad(loss(je.call))(x))
    wrong = [((3, 4), (4, 4), "Found inconsistency between dimension size args[1].shape[0]"),
             ((3, 5), (3, 5), "Shape mismatch for args[0].shape[1]"),
             ((0, 4), (0, 4), "Expected value >= 1 for dimension variable 'a'")]
    for s1, s2, phrase in wrong:
        for exp in (se, je):
            err = _refusal(lambda: exp.call(np.ones(s1, np.float32), np.ones(s2, np.float32)))
            assert isinstance(err, ValueError) and phrase in str(err), err


def test_twice_nested_donated_and_second_order(mesh_pairs):
    """Two calls in one program, an export of a program that calls an export, a donated argument
    (`tf.aliasing_output`), and second-order gradients through `serialize(vjp_order=2)`, each
    against JAX running the same bytes."""
    sm, jm = mesh_pairs["2d"]
    x = _data((8, 4), np.float32)
    with sc.set_mesh(sm):
        xs = sc.device_put(x, P("X"))
        e = sc.export.export(sc.jit(lambda a: snp.sin(a) * 2))(xs)
        twice = sc.jit(lambda a: e.call(e.call(a)))(xs)
        outer = sc.export.export(sc.jit(lambda a: e.call(a) + 1, donate_argnums=0))(xs)
        loss = sc.export.export(sc.jit(lambda a: snp.sum(snp.sin(a) * a)))(xs)
        g2 = sc.grad(lambda a: snp.sum(sc.grad(loss.call)(a)))(xs)
        blobs = outer.serialize(), loss.serialize(vjp_order=2)
    assert "tf.aliasing_output" in outer.mlir_module()
    with jax.set_mesh(jm):
        xj = jax.device_put(x, jax.P("X"))
        je = jax.export.deserialize(e.serialize())
        _same_results(twice, jax.jit(lambda a: je.call(je.call(a)))(xj))
        _same_results(sc.export.deserialize(blobs[0]).call(xs), jax.export.deserialize(blobs[0]).call(xj))
        jl = jax.export.deserialize(blobs[1])
        _same_results(g2, jax.grad(lambda a: jnp.sum(jax.grad(jl.call)(a)))(xj))
        ref = jax.grad(lambda a: jnp.sum(jax.grad(lambda b: jnp.sum(jnp.sin(b) * b))(a)))(xj)
        _same_results(g2, ref)


def test_multi_platform_export_on_a_mesh(mesh_pairs):
    """Exported for cpu and cuda over a 2-D mesh: the `_platform_index` argument, called on cpu by both."""
    sm, jm = mesh_pairs["2d"]
    x = _data((8, 4), np.float32)
    with sc.set_mesh(sm):
        xs = sc.device_put(x, P("X"))
        se = sc.export.export(sc.jit(lambda a: snp.sin(a) * 2), platforms=("cpu", "cuda"))(xs)
    with jax.set_mesh(jm):
        xj = jax.device_put(x, jax.P("X"))
        je = jax.export.export(jax.jit(lambda a: jnp.sin(a) * 2), platforms=("cpu", "cuda"))(xj)
        expect = je.call(xj)
        _same_results(jax.export.deserialize(se.serialize()).call(xj), expect)
    _same_fields(se, je, (sm, jm))
    assert se.uses_global_constants == je.uses_global_constants
    with sc.set_mesh(sm):
        _same_results(se.call(xs), expect)
        _same_results(sc.export.deserialize(je.serialize()).call(xs), expect)


JAX_ONLY = [
    ("cholesky_eigh", lambda a: (jnp.linalg.cholesky(a), jnp.linalg.eigh(a)[0])),     # LAPACK FFI custom calls
    ("erfinv_top_k", lambda a: (jax.scipy.special.erfinv(a * 0.1), jax.lax.top_k(a, 2))),  # chlo; a composite
    ("threefry", lambda a: jax.random.normal(jax.random.key(7), (3, 2)) + a[0, :2]),  # private functions
    ("scan_cond_remat", lambda a: jax.lax.scan(
        lambda c, r: (c + r, jax.lax.cond(r[0] > 0, jnp.sin, jax.checkpoint(jax.nn.softplus), r)), jnp.zeros(4), a)),
]


@pytest.mark.parametrize("name,fn", JAX_ONLY, ids=[j[0] for j in JAX_ONLY])
def test_jax_modules_called_by_shardc(name, fn):
    """JAX modules shardc's own emitter never writes (custom calls, chlo ops, a `stablehlo.composite`
    whose decomposition is inlined, private functions, regions), called eagerly and in `sc.jit`."""
    a = (np.eye(4) * 2 + 0.1).astype(np.float32)
    je = jax.export.export(jax.jit(fn))(a)
    back = sc.export.deserialize(je.serialize())
    expect = je.call(a)
    _same_results(back.call(a), expect)
    _same_results(sc.jit(back.call)(a), expect)


def test_export_from_type_annotations(mesh_pairs):
    """shardc's typed signature (`def f(x: "f32[8@X,4]", p: {...})`) exports without arguments, as
    JAX's export of the same program from `ShapeDtypeStruct`s with those shardings."""
    sm, jm = mesh_pairs["2d"]

    def body(x, p):
        return x @ p["w"]

    def f(x: "f32[8@X,4]", p: {"w": "f32[4,8@Y]"}):  # noqa: F821  (shardc type strings)
        return body(x, p)
    with sc.set_mesh(sm):
        se = sc.export.export(sc.jit(f))()
    with jax.set_mesh(jm):
        je = jax.export.export(jax.jit(body))(jax.ShapeDtypeStruct((8, 4), np.float32, sharding=jax.P("X", None)),
                                              {"w": jax.ShapeDtypeStruct((4, 8), np.float32, sharding=jax.P(None, "Y"))})
    _same_fields(se, je, (sm, jm))


def test_vjp_with_integer_inputs_and_outputs(mesh_pairs):
    """Integer arguments and results in an exported function with a VJP: JAX's float0 convention
    (unused cotangent arguments dropped from the module, `false` cotangent results), both ways."""
    sm, jm = mesh_pairs["1d"]

    def f(np_):
        return lambda x, i: (np_.sum(x * i), i + 1)
    x = np.linspace(0, 1, 8, dtype=np.float32)
    i = np.arange(8, dtype=np.int32)
    with sc.set_mesh(sm):
        xs, is_ = sc.device_put(x, P("X")), sc.device_put(i, P("X"))
        se = sc.export.export(sc.jit(f(snp)))(xs, is_)
    with jax.set_mesh(jm):
        xj, ij = jax.device_put(x, jax.P("X")), jax.device_put(i, jax.P("X"))
        je = jax.export.export(jax.jit(f(jnp)))(xj, ij)
        expect = jax.grad(lambda v: je.call(v, ij)[0])(xj)
        _same_results(jax.grad(lambda v: jax.export.deserialize(se.serialize(vjp_order=1)).call(v, ij)[0])(xj),
                      expect)
    sv, jv = se.vjp(), je.vjp()
    assert sv.module_kept_var_idx == jv.module_kept_var_idx
    assert [str(a).replace("bool", "float0") for a in sv.out_avals] == [str(a) for a in jv.out_avals]
    with sc.set_mesh(sm):
        _same_results(sc.grad(lambda v: se.call(v, is_)[0])(xs), expect)
        back = sc.export.deserialize(je.serialize(vjp_order=1))
        _same_results(sc.grad(lambda v: back.call(v, is_)[0])(xs), expect)


def test_mixed_explicit_auto_mesh():
    """Explicit X, Auto Y: JAX records the results' unsharded dims as UNCONSTRAINED (XLA places
    them: the results land where JAX's do), and its serializer cannot write those (a TypeError on
    both sides)."""
    sm = sc.make_mesh((2, 4), ("X", "Y"), axis_types=(sc.AxisType.Explicit, sc.AxisType.Auto))
    jm = jax.make_mesh((2, 4), ("X", "Y"), axis_types=(jax.sharding.AxisType.Explicit, jax.sharding.AxisType.Auto))
    x = _data((8, 4), np.float32)

    def f(np_):
        return lambda a: (np_.sin(a) * 2, a.sum(0))
    with sc.set_mesh(sm):
        xs = sc.device_put(x, P("X", "Y"))
        se = sc.export.export(sc.jit(f(snp)))(xs)
        got = se.call(xs)
    with jax.set_mesh(jm):
        xj = jax.device_put(x, jax.P("X", "Y"))
        je = jax.export.export(jax.jit(f(jnp)))(xj)
        _same_results(got, je.call(xj))
    _same_fields(se, je, (sm, jm))
    for exp in (se, je):
        err = _refusal(exp.serialize)
        assert isinstance(err, TypeError) and "'UnconstrainedSingleton' object is not iterable" in str(err)
