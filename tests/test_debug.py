"""`sc.debug.print` / `sc.debug.callback` against `jax.debug`: what each program prints,
compiled and eagerly, inside scan, shard_map, vmap, grad and checkpoint (where JAX prints
again when it recomputes), with pytree and static arguments; JAX's errors; the emitted
custom call. Lines printed by shard_map bodies come from several devices at once, so
both sides' lines are compared as sorted lists."""
from __future__ import annotations

import numpy as np
import pytest
from oracle import JAX, SC

import shardc as sc


def _run(ns, prog, capsys):
    """The lines `prog(ns)` prints (the program is run and waited for)."""
    import jax
    mesh = _mesh(ns)
    capsys.readouterr()
    with (jax.set_mesh(mesh) if ns is JAX else sc.set_mesh(mesh)):
        out = prog(ns)
    for leaf in jax.tree_util.tree_leaves(out):
        if hasattr(leaf, "block_until_ready"):
            leaf.block_until_ready()
    return sorted(capsys.readouterr().out.splitlines())


def _mesh(ns):
    return ns.mesh("2d")


def _x(ns, spec=("X", "Y")):
    data = np.arange(32, dtype=np.float32).reshape(8, 4) / 7.0
    return ns.device_put(data, ns.NamedSharding(_mesh(ns), ns.P(*spec)))


def _jit_kwargs(ns):
    def f(x):
        y = ns.sin(x)
        ns.debug.print("sum {s} max {m}", s=ns.sum(y), m=ns.max(y))
        return y * 2.0
    return ns.jit(f)(_x(ns))


def _jit_positional_and_array(ns):
    def f(x):
        ns.debug.print("row {} col {}", ns.sum(x, axis=1), ns.sum(x, axis=0))
        return x
    return ns.jit(f)(_x(ns))


def _eager(ns):
    ns.debug.print("eager {x}", x=ns.sum(_x(ns)))


def _no_placeholders(ns):
    return ns.jit(lambda x: (ns.debug.print("values", ns.max(x), 3, skip_format_check=True), x)[1])(_x(ns))


def _scan(ns):
    def body(c, w):
        ns.debug.print("c {c} w {w}", c=c, w=w)
        return c * 2.0 + w, None
    return ns.jit(lambda xs: ns.lax.scan(body, 1.0, xs)[0])(np.arange(4, dtype=np.float32))


def _fori(ns):
    def body(i, c):
        ns.debug.print("i {} c {}", i, c)
        return c + i
    return ns.jit(lambda: ns.lax.fori_loop(0, 3, body, 0))()


def _cond(ns):
    def f(p, x):
        return ns.lax.cond(p, lambda v: (ns.debug.print("true {}", v), v)[1],
                           lambda v: (ns.debug.print("false {}", v), -v)[1], x)
    g = ns.jit(f)
    return g(True, 2.0), g(False, 3.0)


def _shard_map(ns):
    def body(b):
        ns.debug.print("block {} {}", ns.sum(b), b.shape)
        return ns.sin(b)
    return ns.jit(lambda x: ns.shard_map(body, in_specs=ns.P("X", "Y"), out_specs=ns.P("X", "Y"))(x))(_x(ns))


def _vmap(ns):
    def f(r):
        ns.debug.print("row {} max {m}", ns.sum(r), m=ns.max(r))
        return r * 2.0
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    return ns.jit(ns.vmap(f))(x), ns.vmap(f, in_axes=1)(x)


def _grad(ns):
    def loss(w):
        ns.debug.print("w {w}", w=w)
        return ns.sum(ns.sin(w))
    return ns.jit(ns.grad(loss))(np.arange(4, dtype=np.float32))


def _grad_remat(ns):
    def loss(w):
        ns.debug.print("w {w}", w=w)
        return ns.sum(ns.sin(w))
    return ns.jit(ns.grad(ns.checkpoint(loss)))(np.arange(4, dtype=np.float32))


def _callback_pytree(ns):
    def cb(a, tag, tree=None):
        print("cb", np.asarray(a).shape, tag, [np.asarray(t).tolist() for t in tree])
    f = ns.jit(lambda x: (ns.debug.callback(cb, x, "static", tree=(x.sum(), 2)), x)[1])
    return f(_x(ns))


def _callback_two_call(ns):
    f = ns.jit(lambda x: (ns.debug.callback()(lambda v: print("two-call", float(np.asarray(v))), ns.sum(x)), x)[1])
    ns.debug.print()("two-call print {}", 7)
    return f(_x(ns))


def _no_mesh(ns):
    return ns.jit(lambda v: (ns.debug.print("plain {}", v * 2), v)[1])(np.arange(3, dtype=np.int32))


PROGRAMS = [_jit_kwargs, _jit_positional_and_array, _eager, _no_placeholders, _scan, _fori, _cond, _shard_map,
            _vmap, _grad, _grad_remat, _callback_pytree, _callback_two_call, _no_mesh]


@pytest.mark.parametrize("prog", PROGRAMS, ids=[p.__name__.strip("_") for p in PROGRAMS])
def test_prints_what_jax_prints(prog, capsys):
    theirs = _run(JAX, prog, capsys)
    ours = _run(SC, prog, capsys)
    assert theirs, "the program prints nothing in JAX: a test that cannot fail"
    assert ours == theirs


def test_each_run_prints_again(capsys, mesh24):
    f = sc.jit(lambda x: (sc.debug.print("run {}", sc.sum(x)), x * 2.0)[1])
    x = sc.device_put(np.ones((8, 4), np.float32), sc.P("X", "Y"))
    capsys.readouterr()
    f(x).block_until_ready()
    f(x * 3.0).block_until_ready()
    assert capsys.readouterr().out.splitlines() == ["run 32.0", "run 96.0"]


def test_emitted_callback_gathers_to_device_zero(mesh24):
    x = sc.device_put(np.ones((8, 4), np.float32), sc.P("X", "Y"))
    text = sc.jit(lambda v: (sc.debug.print("{}", v), v)[1]).lower(x).as_text()
    assert "sdy.mesh @maximal_mesh_0 = <[], device_ids=[0]>" in text
    assert "stablehlo.custom_call @xla_ffi_python_cpu_callback(%arg0)" in text
    assert "has_side_effect = true" in text and "mhlo.backend_config = {index = 0 : ui64}" in text
    assert "operand_layouts = [dense<[1, 0]> : tensor<2xindex>]" in text


@pytest.mark.parametrize("call, kind, phrase", [
    (lambda ns, x: ns.debug.print("{}", x, x), ValueError, "Unused positional arguments to `jax.debug.print`"),
    (lambda ns, x: ns.debug.print("{a}", a=x, b=x), ValueError, "Unused keyword arguments to `jax.debug.print`"),
    (lambda ns, x: ns.debug.callback(3, x), TypeError, "first argument to jax.debug.callback must be callable"),
    (lambda ns, x: ns.debug.callback(None, x), TypeError, "received unexpected arguments in the two-call form"),
])
def test_errors_as_jax(call, kind, phrase):
    for ns in (JAX, SC):
        with pytest.raises(kind) as e:
            ns.jit(lambda x: (call(ns, x), x)[1])(np.ones(3, np.float32))
        if phrase:
            assert phrase in str(e.value)


def test_ordered_and_partitioned_are_refused_not_ignored():
    with pytest.raises(NotImplementedError, match="ordered=True"):
        sc.jit(lambda x: (sc.debug.print("{}", x, ordered=True), x)[1])(np.ones(3, np.float32))
    with pytest.raises(NotImplementedError, match="partitioned=True"):
        sc.jit(lambda x: (sc.debug.callback(print, x, partitioned=True), x)[1])(np.ones(3, np.float32))


def test_inspect_array_sharding(mesh24):
    seen = []
    x = sc.device_put(np.ones((8, 4), np.float32), sc.P("X", None))
    sc.jit(lambda v: (sc.debug.inspect_array_sharding(v * 2, callback=seen.append), v)[1])(x)
    sc.debug.inspect_array_sharding(x, callback=seen.append)
    assert [s.spec for s in seen] == [sc.P("X", None), sc.P("X", None)]


# --- sc.pure_callback ---------------------------------------------------------------------------
def _run_values(ns, prog, mesh: bool):
    import jax
    if not mesh:
        return jax.tree_util.tree_map(np.asarray, prog(ns))
    m = _mesh(ns)
    with (jax.set_mesh(m) if ns is JAX else sc.set_mesh(m)):
        return jax.tree_util.tree_map(np.asarray, prog(ns)), jax.tree_util.tree_map(
            lambda v: str(ns.typeof(v)), prog(ns))


def _pc_sharded(ns):
    x = _x(ns)
    return ns.jit(lambda v: ns.pure_callback(lambda a: np.sin(a) * 2, ns.ShapeDtypeStruct(v.shape, v.dtype), v) + 1)(x)


def _pc_pytree(ns):
    x = _x(ns)
    two = lambda a, b: (np.asarray(a).sum(axis=0), {"m": np.maximum(a, b).astype(np.int32)})
    out = (ns.ShapeDtypeStruct((4,), np.float32), {"m": ns.ShapeDtypeStruct((8, 4), np.int32)})
    return ns.jit(lambda a, b: ns.pure_callback(two, out, a, b))(x, x * 0.5)


def _pc_in_scan(ns):
    def body(c, w):
        c = ns.pure_callback(lambda a, b: (np.asarray(a) * 2 + b).astype(np.float32),
                             ns.ShapeDtypeStruct((), np.float32), c, w)
        return c, c
    return ns.jit(lambda xs: ns.lax.scan(body, np.float32(1.0), xs))(np.arange(4, dtype=np.float32))


def _pc_vmap(method):
    def prog(ns):
        def cb(a, b):
            return np.asarray(a) + np.asarray(b).reshape(np.shape(b) + (1,) * (np.ndim(a) - np.ndim(b)))
        f = ns.vmap(lambda r, s: ns.pure_callback(cb, ns.ShapeDtypeStruct(r.shape, r.dtype), r, s,
                                                  vmap_method=method), in_axes=(0, None))
        return ns.jit(f)(np.arange(12, dtype=np.float32).reshape(3, 4), np.float32(2))
    return prog


@pytest.mark.parametrize("prog, mesh", [(_pc_sharded, True), (_pc_pytree, True), (_pc_in_scan, False)] + [
    (_pc_vmap(m), False) for m in ("sequential", "sequential_unrolled", "expand_dims", "broadcast_all",
                                   "legacy_vectorized")], ids=lambda p: getattr(p, "__name__", str(p)))
def test_pure_callback_as_jax(prog, mesh):
    import jax
    theirs, ours = _run_values(JAX, prog, mesh), _run_values(SC, prog, mesh)
    jax.tree_util.tree_map(lambda a, b: np.testing.assert_allclose(b, a, rtol=1e-6) if isinstance(a, np.ndarray)
                           else None, theirs, ours)
    if mesh:
        assert ours[1] == theirs[1]       # the results' types (replicated, as JAX's)


@pytest.mark.parametrize("call, kind, phrase", [
    (lambda ns, x: ns.grad(lambda v: ns.sum(ns.pure_callback(np.sin, ns.ShapeDtypeStruct((3,), np.float32), v)))(x),
     ValueError, "Pure callbacks do not support JVP"),
    (lambda ns, x: ns.vmap(lambda r: ns.pure_callback(np.sin, ns.ShapeDtypeStruct((), np.float32), r))(x),
     NotImplementedError, "vmap is only supported for the pure_callback primitive when vmap_method is one of"),
    (lambda ns, x: ns.pure_callback(np.sin, ns.ShapeDtypeStruct((3,), np.float32), x, vmap_method="nope"),
     ValueError, "vmap_method must be on of the allowed methods"),
    (lambda ns, x: ns.pure_callback(np.sin, ns.ShapeDtypeStruct((3,), np.float64), x),
     ValueError, "result_shape_dtypes cannot specify 64-bit types"),
])
def test_pure_callback_errors_as_jax(call, kind, phrase):
    for ns in (JAX, SC):
        with pytest.raises(kind, match=phrase):
            ns.jit(lambda x: call(ns, x))(np.ones(3, np.float32))


class _Mine(Exception):
    pass


def _raise(*_):
    raise _Mine("raised by the user's callback")


@pytest.mark.parametrize("make", [
    lambda x: sc.pure_callback(_raise, sc.ShapeDtypeStruct(x.shape, x.dtype), x) + 1.0,
    lambda x: (sc.debug.callback(_raise, x), x * 2.0)[1],
    lambda x: sc.pure_callback(lambda a: np.asarray(a)[:2], sc.ShapeDtypeStruct(x.shape, x.dtype), x),
], ids=["pure", "debug", "wrong-shape"])
def test_a_failing_callback_raises_after_the_run(make, mesh24):
    """The other devices would wait in the result's collective until XLA aborts the process;
    instead the run completes and the user's exception (or JAX's shape error) is raised."""
    x = sc.device_put(np.ones((8, 4), np.float32), sc.P("X", "Y"))
    with pytest.raises((_Mine, RuntimeError), match="raised by the user's callback|Incorrect output shape"):
        sc.jit(make)(x)
    np.testing.assert_array_equal(np.asarray(sc.jit(lambda v: v + 1.0)(x)), 2.0)   # the runtime is fine after
