"""`import shardc as jax`: every public name of JAX 0.10.2's top-level `jax` module is
here, or listed in docs/api.md as not yet built or excluded (with the reason). A new JAX
name, or one that appears here while still listed, fails `test_every_jax_name_is_accounted_for`.
The other tests run the host-side helpers against JAX's."""
from __future__ import annotations

import re
from pathlib import Path

import jax
import numpy as np
import pytest

import shardc as sc
from shardc import P

DOC = Path(__file__).resolve().parents[1] / "docs" / "api.md"


def _listed(section: str) -> set[str]:
    """The `name` entries of one section of docs/api.md (tables and lists)."""
    text = DOC.read_text()
    body = text.split(f"## {section}\n", 1)[1].split("\n## ", 1)[0]
    # in a table, the names are its first column; the other columns explain
    lines = [ln.split("|")[1] if ln.startswith("|") else ln for ln in body.splitlines()]
    return set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", "\n".join(lines)))


def test_every_jax_name_is_accounted_for():
    names = {n for n in dir(jax) if not n.startswith("_")}
    not_yet, excluded = _listed("Not yet") & names, _listed("Excluded") & names
    ours = {n for n in names if hasattr(sc, n)}
    assert not (ours & not_yet), f"built but still listed as not yet: {sorted(ours & not_yet)}"
    assert not (ours & excluded), f"built but listed as excluded: {sorted(ours & excluded)}"
    missing = names - ours - not_yet - excluded
    assert not missing, f"JAX names neither here nor listed in docs/api.md: {sorted(missing)}"


def test_submodules_are_shardcs():
    import shardc.numpy
    assert sc.numpy is shardc.numpy and sc.numpy.sum is sc.sum
    assert sc.typing.ArrayLike is jax.typing.ArrayLike


def test_devices_and_processes_as_jax():
    assert sc.devices() == jax.devices() and sc.device_count() == jax.device_count() == 8
    assert sc.local_devices() == jax.local_devices() and sc.local_device_count() == jax.local_device_count()
    assert (sc.process_index(), sc.process_count(), sc.process_indices()) == (0, 1, [0])
    assert sc.default_backend() == jax.default_backend() == "cpu"
    assert isinstance(sc.devices()[0], sc.Device)


def test_block_until_ready_is_a_pytree_identity(mesh24):
    a = sc.device_put(np.ones((8, 4), np.float32), P("X", "Y"))
    tree = {"a": a, "n": 3, "h": np.zeros(2)}
    out = sc.block_until_ready(tree)
    assert out is tree and out["a"] is a
    assert sc.copy_to_host_async(tree) is tree


@pytest.mark.parametrize("spec", [P("X", "Y"), P(None, "X"), P(), P(("X", "Y"))])
def test_make_array_from_callback_as_jax(mesh24, spec):
    shape = (8, 4)
    data = np.arange(32, dtype=np.float32).reshape(shape)
    ours = sc.make_array_from_callback(shape, sc.NamedSharding(mesh24, spec), lambda idx: data[idx])
    jm = jax.make_mesh((2, 4), ("X", "Y"), axis_types=(jax.sharding.AxisType.Explicit,) * 2)
    theirs = jax.make_array_from_callback(shape, jax.sharding.NamedSharding(jm, jax.P(*spec)), lambda i: data[i])
    assert str(sc.typeof(ours)) == str(jax.typeof(theirs))
    np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))
    pieces = [s.data for s in ours.addressable_shards]
    again = sc.make_array_from_single_device_arrays(shape, sc.NamedSharding(mesh24, spec), pieces)
    assert str(sc.typeof(again)) == str(sc.typeof(ours))
    np.testing.assert_array_equal(np.asarray(again), data)


def test_single_device_arrays_refuse_host_data(mesh24):
    with pytest.raises(sc.ShardcValueError, match="already on one device"):
        sc.make_array_from_single_device_arrays((8,), sc.NamedSharding(mesh24, P("X")), [np.zeros(4)] * 2)


def test_disable_jit_runs_the_python(mesh24):
    seen = []

    @sc.jit
    def f(x):
        seen.append(type(x).__name__)
        return sc.sin(x) * 2.0

    a = sc.device_put(np.linspace(0, 1, 32, dtype=np.float32).reshape(8, 4), P("X", "Y"))
    with sc.disable_jit():
        eager = f(a)
        f(a)
    assert seen == ["Array", "Array"]           # the function ran, on arrays, each call
    traced = f(a)
    assert seen[-1] == "Tracer"
    assert str(sc.typeof(eager)) == str(sc.typeof(traced)) == "float32[8@X,4@Y]"
    np.testing.assert_allclose(np.asarray(eager), np.sin(np.asarray(a)) * 2, rtol=1e-6)


def test_clear_caches_retraces(mesh24):
    calls = []

    @sc.jit
    def f(x):
        calls.append(1)
        return x + 1.0

    a = sc.device_put(np.ones((8, 4), np.float32), P("X", "Y"))
    f(a)
    f(a)
    assert len(calls) == 1
    sc.clear_caches()
    np.testing.assert_array_equal(np.asarray(f(a)), 2.0)
    assert len(calls) == 2


def test_make_jaxpr_prints_typed_ir(mesh24):
    a = sc.device_put(np.ones((8, 4), np.float32), P("X", "Y"))
    jx, shapes = sc.make_jaxpr(lambda x: sc.sum(sc.sin(x), axis=0), return_shape=True)(a)
    text = str(jx)
    assert "sin" in text and "reduce_sum" in text and "f32[8@X,4@Y]" in text
    assert [str(t) for t in jx.in_avals] == ["float32[8@X,4@Y]"]
    assert [str(t) for t in jx.out_avals] == [str(jax.typeof(jax.numpy.sum(jax.numpy.sin(
        jax.device_put(np.ones((8, 4), np.float32), jax.sharding.NamedSharding(
            jax.make_mesh((2, 4), ("X", "Y"), axis_types=(jax.sharding.AxisType.Explicit,) * 2),
            jax.P("X", "Y")))), axis=0)))]
    assert shapes.shape == (4,) and shapes.dtype == np.float32
    with pytest.raises(sc.ShardcValueError, match="axis_env"):
        sc.make_jaxpr(lambda x: x, axis_env=[("i", 2)])(a)


def test_named_scope_names_ops_and_collectives(tmp_path, mesh24):
    a = sc.device_put(np.ones((8, 4), np.float32), P("X", "Y"))

    def f(x):
        with sc.named_scope("block"):
            with sc.named_scope("attn"):
                y = sc.sin(x)
        return sc.named_call(lambda z: sc.sum(z), name="head")(y)

    text = sc.jit(f).lower(a).as_text(locations=True)
    names = re.findall(r'loc\("([^"]+) at ', text)
    assert "block/attn/sc.sin" in names and "head/sc.sum" in names
    assert not any(n.startswith("block") for n in names if "sum" in n)   # the scope ended
    colls = sc.jit(f).lower(a).compile().collectives()
    line = next(i for i, ln in enumerate(Path(__file__).read_text().splitlines(), 1) if 'name="head"' in ln)
    assert colls and all(c.source.endswith(f"test_top_level_namespace.py:{line}") for c in colls)


def test_jacobian_is_reverse_mode(mesh24):
    x = np.linspace(0.1, 1.0, 4, dtype=np.float32)
    fn = lambda ns: (lambda v: ns.tanh(v) * v[0])
    np.testing.assert_allclose(np.asarray(sc.jacobian(fn(sc))(sc.asarray(x))),
                               np.asarray(jax.jacobian(fn(jax.numpy))(x)), rtol=1e-6)
    z = (x + 1j * x[::-1]).astype(np.complex64)   # holomorphic=True: JAX's complex Jacobian
    np.testing.assert_allclose(np.asarray(sc.jacobian(fn(sc), holomorphic=True)(sc.asarray(z))),
                               np.asarray(jax.jacobian(fn(jax.numpy), holomorphic=True)(z)), rtol=1e-5, atol=1e-6)


def test_config_acts_refuses_or_records():
    assert sc.config.jax_enable_x64 is jax.config.jax_enable_x64 is False
    sc.config.update("jax_enable_x64", False)                   # JAX's default: accepted
    with pytest.raises(NotImplementedError, match="32-bit"):
        sc.config.update("jax_enable_x64", True)                # would change results: refused
    assert sc.config.read("jax_enable_x64") is False
    with pytest.raises(NotImplementedError, match="precision"):
        sc.config.update("jax_default_matmul_precision", "highest")   # not emitted: refused
    sc.config.update("jax_debug_nans", True)                    # acted on (test_config_context.py)
    try:
        assert sc.config.jax_debug_nans is True
    finally:
        sc.config.update("jax_debug_nans", False)
    sc.config.update("jax_numpy_rank_promotion", "raise")      # acted on (differential/test_promotion_flags.py)
    try:
        assert sc.config.jax_numpy_rank_promotion == "raise"
    finally:
        sc.config.update("jax_numpy_rank_promotion", "allow")
    with pytest.raises(AttributeError, match="Unrecognized config option: jax_nonsense"):
        sc.config.update("jax_nonsense", 1)
    with pytest.raises(AttributeError, match="Unrecognized config option"):
        jax.config.update("jax_nonsense", 1)
    sc.config.update("jax_num_cpu_devices", 8)                  # the count the runtime has: fine
    with pytest.raises(sc.ShardcValueError, match="already started"):
        sc.config.update("jax_num_cpu_devices", 4)
    sc.config.update("jax_persistent_cache_min_compile_time_secs", 0)   # no effect on results
    assert sc.config.jax_persistent_cache_min_compile_time_secs == 0


def test_config_disable_jit(mesh24):
    seen = []
    f = sc.jit(lambda x: seen.append(1) or x * 2.0)
    a = sc.device_put(np.ones((8, 4), np.float32), P("X", "Y"))
    sc.config.update("jax_disable_jit", True)
    try:
        f(a)
        f(a)
    finally:
        sc.config.update("jax_disable_jit", False)
    f(a)
    f(a)
    assert len(seen) == 3       # twice op by op, then traced once


def test_experimental_import_paths():
    from jax.experimental import mesh_utils as jmu

    from shardc.experimental import mesh_utils
    from shardc.experimental.shard_map import shard_map
    devs = mesh_utils.create_device_mesh((2, 4))
    assert [d.id for d in devs.flat] == [d.id for d in jmu.create_device_mesh((2, 4)).flat]
    mesh = sc.Mesh(devs, ("X", "Y"))
    x = np.arange(32, dtype=np.float32).reshape(8, 4)
    with sc.set_mesh(mesh):
        a = sc.device_put(x, P("X", "Y"))
        out = sc.jit(lambda v: shard_map(lambda b: sc.psum(b, "Y"), mesh, P("X", "Y"), P("X", None),
                                         check_rep=True)(v))(a)
    assert str(sc.typeof(out)) == "float32[8@X,1]"
    np.testing.assert_allclose(np.asarray(out), x.sum(axis=1, keepdims=True), rtol=1e-6)
    assert sc.experimental.compilation_cache.set_cache_dir is sc.compilation_cache.set_cache_dir


# --- jax.typing, jax.experimental.io_callback, jax.experimental.pjit: the import paths ported programs use ------------
def test_typing_is_a_module_with_jaxs_names():
    import importlib
    import types

    import jax.typing
    mod = importlib.import_module("shardc.typing")
    from shardc.typing import ArrayLike, DTypeLike
    assert isinstance(mod, types.ModuleType) and mod is sc.typing
    assert ArrayLike is jax.typing.ArrayLike and DTypeLike is jax.typing.DTypeLike
    public = {n for n in dir(jax.typing) if not n.startswith("_")}
    assert public == set(mod.__all__)


def _io_program(top, io, log):
    """A jitted program whose io_callback result is used, one whose result is unused, and a vmapped one."""
    def cb(x):
        log.append(np.asarray(x).copy())
        return np.asarray(x) * 2
    sds = top.ShapeDtypeStruct((3,), np.float32)
    used = top.jit(lambda x: io(cb, sds, x) + 1)(np.arange(3, dtype=np.float32))
    n_used = len(log)
    top.jit(lambda x: (io(cb, sds, x), x * 2)[1])(np.ones(3, np.float32))
    n_unused = len(log) - n_used
    mapped = top.vmap(lambda x: io(cb, top.ShapeDtypeStruct((), np.float32), x))(np.arange(4, dtype=np.float32))
    n_mapped = len(log) - n_used - n_unused
    eager = io(cb, {"a": sds}, np.ones(3, np.float32))
    return [np.asarray(used), np.asarray(mapped), np.asarray(eager["a"])], (n_used, n_unused, n_mapped)


def test_io_callback_runs_as_jaxs():
    """Values, and how often the host function runs: once per call, also when its result is unused
    (an impure callback is kept), once per example under vmap."""
    from jax.experimental import io_callback as jax_io

    from shardc.experimental import io_callback
    jlog, slog = [], []
    jv, jn = _io_program(jax, jax_io, jlog)
    sv, sn = _io_program(sc, io_callback, slog)
    assert sn == jn == (1, 1, 4)
    for a, b in zip(jv, sv):
        np.testing.assert_array_equal(b, a)
    for a, b in zip(jlog, slog):
        np.testing.assert_array_equal(b, a)


@pytest.mark.parametrize("case", ["vmap_ordered", "grad"])
def test_io_callback_errors_as_jaxs(case):
    from jax.experimental import io_callback as jax_io

    from shardc.experimental import io_callback
    errs = []
    for top, io in ((jax, jax_io), (sc, io_callback)):
        sds = top.ShapeDtypeStruct((), np.float32)
        fn = {"vmap_ordered": lambda: top.vmap(lambda x: io(np.sin, sds, x, ordered=True))(np.ones(2, np.float32)),
              "grad": lambda: top.grad(lambda x: io(np.sin, sds, x))(1.0)}[case]
        with pytest.raises(ValueError) as e:
            fn()
        errs.append(str(e.value))
    assert errs[0] in errs[1], errs


def test_io_callback_ordered_runs_in_jit():
    from shardc.experimental import io_callback
    log = []
    sds = sc.ShapeDtypeStruct((), np.float32)
    out = sc.jit(lambda x: io_callback(lambda v: log.append(float(v)) or np.float32(v + 1), sds, x, ordered=True))(
        np.float32(2))
    assert float(out) == 3.0 and log == [2.0]


def test_pjit_is_deprecated_jit_as_jaxs(mesh24):
    import importlib
    jm = jax.make_mesh((2, 4), ("X", "Y"), axis_types=(jax.sharding.AxisType.Explicit,) * 2)
    x = np.arange(32, dtype=np.float32).reshape(8, 4)
    got = []
    for name, top, mesh in (("jax", jax, jm), ("shardc", sc, mesh24)):
        mod = importlib.import_module(f"{name}.experimental.pjit")
        with pytest.warns(DeprecationWarning, match="Please use `jax.jit` instead"):
            pjit = mod.pjit
        with mesh:   # pjit's classic pattern: PartitionSpecs name the axes of the mesh entered
            f = pjit(lambda a, k: a * k, in_shardings=(top.P("X", None),), out_shardings=top.P(None, "Y"),
                     static_argnums=(1,))
            out = f(x, 3)
            got.append((np.asarray(out), str(top.typeof(out))))
        assert [n for n in dir(mod) if not n.startswith("_")] == []
    (jv, jt), (sv, st) = got
    assert st == jt, (st, jt)
    np.testing.assert_array_equal(sv, jv)
