"""API details of `jax` / `jax.sharding` / `jax.stages` that ported code touches, against JAX:
`AbstractMesh.update` / `update_axis_types` / `are_all_axes_*`, `NamedSharding.shard_shape`,
`Lowered.in_avals`, `Compiled.input_shardings` / `output_shardings`, `jit(inline=)`,
`device_get`, and the `jax.sharding` names under `shardc.sharding`; what a ported program prints
(mesh / sharding reprs, `jax.debug.visualize_array_sharding`)."""
from __future__ import annotations

import contextlib
import io

import jax
import numpy as np
import pytest
from oracle import mesh_pair, spec_id, specs_for

import shardc as sc
import shardc.sharding as scs


def _meshes():
    jm = jax.make_mesh((2, 4), ("X", "Y"), axis_types=(jax.sharding.AxisType.Explicit,) * 2)
    return jm, sc.make_mesh((2, 4), ("X", "Y"))


def _mesh_text(m) -> str:
    """`AbstractMesh('X': 2, 'Y': 4, axis_types=(Explicit, Explicit)...)` without JAX's device fields."""
    return repr(m).split(", device_kind")[0].rstrip(")") + ")"


@pytest.mark.parametrize("call", [
    lambda am, AT: am.update(axis_names=("A", "B")),
    lambda am, AT: am.update(axis_sizes=(4, 2)),
    lambda am, AT: am.update(axis_types=(AT.Auto, AT.Explicit)),
    lambda am, AT: am.update_axis_types({"X": AT.Auto}),
    lambda am, AT: am.update_axis_types({"Y": AT.Manual, "X": AT.Auto}),
])
def test_abstract_mesh_updates(call):
    jm, sm = _meshes()
    want = call(jm.abstract_mesh, jax.sharding.AxisType)
    got = call(sm.abstract_mesh, sc.AxisType)
    assert _mesh_text(got) == _mesh_text(want)
    for flag in ("are_all_axes_manual", "are_all_axes_auto", "are_all_axes_explicit"):
        assert getattr(got, flag) == getattr(want, flag), flag


@pytest.mark.parametrize("spec,shape", [(("X",), (8, 4)), (("X", "Y"), (8, 4)), ((("X", "Y"),), (16, 3)),
                                        ((None, "Y"), (2, 8)), ((), (5,))])
def test_shard_shape(spec, shape):
    jm, sm = _meshes()
    want = jax.sharding.NamedSharding(jm, jax.P(*spec)).shard_shape(shape)
    assert sc.NamedSharding(sm, sc.P(*spec)).shard_shape(shape) == want


def test_stages_avals_and_shardings():
    jm, sm = _meshes()
    x = np.arange(32, dtype=np.float32).reshape(8, 4)
    fn = lambda d, s: ({"y": d["a"] * s, "z": d["a"].sum(axis=0)}, s)  # noqa: E731
    out = {}
    for j, mesh, put, P, jit in [(True, jm, jax.device_put, jax.P, jax.jit), (False, sm, sc.device_put, sc.P, sc.jit)]:
        with (jax.set_mesh if j else sc.set_mesh)(mesh):
            args = ({"a": put(x, P("X", "Y"))}, put(np.float32(2.0), P()))
            low = jit(fn, inline=True).lower(*args)
            comp = low.compile()
            specs = lambda tree: jax.tree_util.tree_map(lambda s: tuple(s.spec), tree)  # noqa: E731
            out[j] = (jax.tree_util.tree_map(str, low.in_avals), specs(comp.input_shardings),
                      specs(comp.output_shardings), jax.tree_util.tree_map(lambda a: a.tolist(),
                                                                           (jax if j else sc).device_get(jit(fn)(*args))))
    assert out[False] == out[True]


def test_jax_sharding_names_under_shardc_sharding():
    want = {n for n in dir(jax.sharding) if not n.startswith("_")}
    # not yet: ManualAxisType, Sharding, SingleDeviceSharding, make_single_device_sharding
    have = {n for n in want if hasattr(scs, n)}
    assert {"PartitionSpec", "NamedSharding", "AxisType", "AbstractMesh", "AbstractDevice", "Mesh", "reshard", "auto_axes",
            "explicit_axes", "get_abstract_mesh", "use_abstract_mesh", "get_mesh", "set_mesh"} <= have
    assert scs.reshard is sc.reshard and scs.AxisType is sc.AxisType
    assert issubclass(scs.Mesh, sc.Mesh)   # JAX's default axis types (test_sharding_mesh_defaults_as_jax)


@pytest.mark.parametrize("shape", [(2.5, 4), (-1, 4), (4, np.float32(2.0))])
def test_creation_shapes_are_checked_as_jax(shape):
    """`jnp.zeros((2.5, 4))` is a TypeError in JAX (shardc used to round it to 2)."""
    import jax.numpy as jnp
    with pytest.raises(TypeError) as want:
        jnp.zeros(shape)
    with pytest.raises(sc.ShardcTypeError) as got:
        sc.zeros(shape)
    assert str(want.value).split(",")[0] in str(got.value)


@pytest.mark.parametrize("sizes", [(0,), (-2,), (2, 0), (2.0,)])
def test_mesh_sizes_must_be_positive_integers(sizes):
    """JAX fails on these with IndexError / a device-count ValueError (and -2 once gave a
    6-device mesh here); shardc names the bad size."""
    with pytest.raises(sc.ShardcValueError, match="axis sizes must be positive integers"):
        sc.make_mesh(sizes, tuple("XYZ"[: len(sizes)]))
    if all(isinstance(s, int) for s in sizes):
        with pytest.raises(sc.ShardcValueError, match="mesh axis sizes must be positive"):
            sc.AbstractMesh(sizes, tuple("XYZ"[: len(sizes)]))


# --- what a ported program prints: meshes, shardings, sharding pictures (issue 12) ---------------------
def _printed(fn) -> str:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        fn()
    return buf.getvalue()


def _sides(mesh_name: str):
    """(namespace module, mesh, its abstract mesh) for JAX, then for shardc."""
    m, jm = mesh_pair(mesh_name)
    return [(jax, jm), (sc, m)]


@pytest.mark.parametrize("mesh_name", ["1d", "2d", "3d", "2d_rev", "2d_auto"])
def test_mesh_and_sharding_reprs_as_jax(mesh_name):
    """`print(mesh)`, `x.sharding` (memory_kind=device), `jax.typeof(x).sharding` and
    `get_abstract_mesh()` inside a program (with JAX's device_kind/num_cores/platform) print as JAX's."""
    shown = []
    for ns, mesh in _sides(mesh_name):
        first = mesh.axis_names[0]
        with ns.set_mesh(mesh):
            x = ns.device_put(np.arange(16.0, dtype=np.float32).reshape(8, 2), ns.P(first))
            seen = []
            ns.jit(lambda v: seen.append(repr(ns.sharding.get_abstract_mesh())) or v)(x)
            user = ns.NamedSharding(mesh, ns.P(first))
            shown.append([repr(mesh), repr(mesh.abstract_mesh), repr(x.sharding), repr(ns.typeof(x).sharding),
                          repr(ns.sharding.get_abstract_mesh()), *seen, repr(user),
                          repr(ns.NamedSharding(mesh.abstract_mesh, ns.P(first))),
                          x.sharding == user, hash(x.sharding) == hash(user),
                          ns.typeof(x).sharding == ns.NamedSharding(mesh.abstract_mesh, ns.P(first))])
    assert shown[1] == shown[0]


def _vis_specs(mesh_name: str, shape: tuple[int, ...]) -> list:
    return [(mesh_name, shape, spec) for spec in specs_for(shape, mesh_name, max_axes_per_dim=2)]


@pytest.mark.parametrize("mesh_name,shape,spec", [
    *_vis_specs("1d", (8,)), *_vis_specs("1d", (8, 4)), *_vis_specs("2d", (8,)), *_vis_specs("2d", (8, 4)),
    *_vis_specs("2d_rev", (8, 4)), *_vis_specs("3d", (4, 8)), *_vis_specs("2d_auto", (8, 4))],
    ids=lambda v: spec_id(v) if isinstance(v, tuple) and v and not isinstance(v[0], int) else None)
def test_debug_visualize_array_sharding_as_jax(mesh_name, shape, spec):
    """`jax.debug.visualize_array_sharding` prints JAX's own picture (shardc's richer one is
    `sc.visualize_array_sharding`), eagerly and from inside a program."""
    out = []
    for ns, mesh in _sides(mesh_name):
        with ns.set_mesh(mesh):
            x = ns.device_put(np.zeros(shape, np.float32), ns.NamedSharding(mesh, ns.P(*spec)))

            def run():
                ns.debug.visualize_array_sharding(x)
                ns.debug.visualize_array_sharding(x, use_color=False, max_width=40)
                ns.debug.visualize_sharding(shape, x.sharding, scale=0.5)
                if not mesh_name.endswith("auto"):   # XLA's choice on Auto axes: JAX calls back at compile time
                    ns.jit(lambda v: (ns.debug.visualize_array_sharding(v * 2), v)[1])(x)
            out.append(_printed(run))
    assert out[1] == out[0]
    assert "CPU" in out[0]


@pytest.mark.parametrize("names", ["x", ("a", "b")], ids=str)
def test_sharding_mesh_defaults_as_jax(names):
    """`jax.sharding.Mesh(devices, names)` has Auto axes in JAX 0.10.2 (`jax.make_mesh` Explicit):
    the drop-in `shardc.sharding.Mesh` too (it was Explicit, so a ported classic program's mesh
    typed every value). The flat `sc.Mesh` keeps Explicit, as SPEC §2 says."""
    shape = (8,) if isinstance(names, str) else (2, 4)
    devs = np.array(jax.devices()[:8]).reshape(shape)
    theirs, ours = jax.sharding.Mesh(devs, names), scs.Mesh(devs, names)
    assert repr(ours) == repr(theirs) and str(ours.axis_types) == str(theirs.axis_types)
    assert sc.Mesh(devs, names).axis_types == (sc.AxisType.Explicit,) * len(shape)
    assert isinstance(ours, sc.Mesh)
    explicit = (sc.AxisType.Explicit,) * len(shape)
    assert scs.Mesh(devs, names, explicit).axis_types == explicit
    sizes = shape if not isinstance(names, str) else (8,)
    assert repr(scs.AbstractMesh(sizes, names)) == repr(jax.sharding.AbstractMesh(sizes, names))
    assert sc.AbstractMesh(sizes, names).axis_types == explicit and isinstance(scs.AbstractMesh(sizes, names),
                                                                                 sc.AbstractMesh)


#: host-side questions checkpointing and data-loading code asks of shardings and meshes:
#: name -> probe(mesh, NamedSharding class, P); answers compared with JAX's (devices by id)
def _ids(devs) -> list:
    return sorted(d.id for d in devs)


def _index_map(m) -> dict:
    return {d.id: tuple((s.start, s.stop) for s in idx) for d, idx in m.items()}


SHARDING_PROBES = {
    "device_set": lambda m, NS, P: _ids(NS(m, P("X")).device_set),
    "num_devices": lambda m, NS, P: NS(m, P("X")).num_devices,
    "addressable_devices": lambda m, NS, P: _ids(NS(m, P(None, "Y")).addressable_devices),
    "is_fully_addressable": lambda m, NS, P: NS(m, P("X")).is_fully_addressable,
    "has_addressable_devices": lambda m, NS, P: NS(m, P("X")).has_addressable_devices,
    "replicated_axes": lambda m, NS, P: sorted(NS(m, P("X")).replicated_axes),
    "replicated_axes-both": lambda m, NS, P: sorted(NS(m, P(("X", "Y"))).replicated_axes),
    "devices_indices_map": lambda m, NS, P: _index_map(NS(m, P("X", "Y")).devices_indices_map((8, 4))),
    "addressable_devices_indices_map": lambda m, NS, P: _index_map(
        NS(m, P(None, ("Y", "X"))).addressable_devices_indices_map((2, 8))),
    "is_equivalent_to": lambda m, NS, P: (NS(m, P("X")).is_equivalent_to(NS(m, P("X", None)), 2),
                                          NS(m, P("X")).is_equivalent_to(NS(m, P("Y")), 2)),
    "check_compatible_aval": lambda m, NS, P: NS(m, P("X", "Y")).check_compatible_aval((8,)),
    "check_compatible_aval-scalar": lambda m, NS, P: NS(m, P("X")).check_compatible_aval(()),
    "update-spec": lambda m, NS, P: repr(NS(m, P("X")).update(spec=P("Y")).spec),
    "update-memory": lambda m, NS, P: NS(m, P("X")).update(memory_kind="pinned_host").memory_kind,
    "P.update": lambda m, NS, P: repr(P("X", unreduced={"Y"}).update(partitions=("Y",), unreduced=set())),
    "mesh.shape": lambda m, NS, P: repr(m.shape),
    "mesh.shape_tuple": lambda m, NS, P: m.shape_tuple,
    "mesh.are_all_axes": lambda m, NS, P: (m.are_all_axes_explicit, m.are_all_axes_auto, m.are_all_axes_manual),
    "mesh.is_multi_process": lambda m, NS, P: m.is_multi_process,
    "mesh.local_devices": lambda m, NS, P: _ids(m.local_devices),
    "mesh.local_mesh": lambda m, NS, P: (repr(m.local_mesh.shape), _ids(m.local_mesh.devices.flat)),
    "abstract.shape_tuple": lambda m, NS, P: m.abstract_mesh.shape_tuple,
    "abstract.abstract_mesh": lambda m, NS, P: m.abstract_mesh.abstract_mesh == m.abstract_mesh,
    "abstract.devices": lambda m, NS, P: m.abstract_mesh.devices,
    "abstract.local_mesh": lambda m, NS, P: m.abstract_mesh.local_mesh,
    "abstract.device_set": lambda m, NS, P: NS(m.abstract_mesh, P("X")).device_set,
    "abstract.num_devices": lambda m, NS, P: NS(m.abstract_mesh, P("X")).num_devices,
}


@pytest.mark.parametrize("name", sorted(SHARDING_PROBES))
def test_sharding_and_mesh_host_questions_as_jax(name):
    jm, sm = _meshes()
    out = []
    for m, NS, P in ((jm, jax.sharding.NamedSharding, jax.P), (sm, sc.NamedSharding, sc.P)):
        try:
            out.append(("ok", SHARDING_PROBES[name](m, NS, P)))
        except Exception as e:  # noqa: BLE001  (the error is the answer compared)
            out.append(("raised", e))
    (jk, j), (sk, s) = out
    assert sk == jk, (j, s)
    if jk == "raised":
        assert isinstance(s, type(j).__mro__[1] if type(j).__name__ == "JaxRuntimeError" else type(j)), (j, s)
        assert isinstance(s, sc.ShardcError), s
        assert str(j).split(":")[-1].strip()[:30] in str(s) or "AbstractMesh" in str(s), (j, s)
    else:
        assert s == j


@pytest.mark.parametrize("spec", [("X",), (None, "Y"), ("Y", "X"), ()])
def test_device_put_of_an_array_to_another_sharding_outside_a_mesh_context(spec):
    """Resharding an array by `device_put(x, NamedSharding(mesh, spec))` needs no mesh in context
    (was shardc's 'PartitionSpec outside a mesh context' error)."""
    jm, sm = _meshes()
    v = np.arange(32, dtype=np.float32).reshape(8, 4)
    j = jax.device_put(jax.device_put(v, jax.sharding.NamedSharding(jm, jax.P("X"))),
                       jax.sharding.NamedSharding(jm, jax.P(*spec)))
    s = sc.device_put(sc.device_put(v, sc.NamedSharding(sm, sc.P("X"))), sc.NamedSharding(sm, sc.P(*spec)))
    assert str(sc.typeof(s)) == str(jax.typeof(j)) and repr(s.sharding.spec) == repr(j.sharding.spec)
    np.testing.assert_array_equal(np.asarray(s), v)


def test_jax_dtypes_and_sharding_names_as_jax():
    """Every `jax.dtypes` and `jax.sharding` name is in `shardc.dtypes` / `shardc.sharding`; key
    dtypes are extended dtypes (`issubdtype(key.dtype, prng_key)`); `isinstance(s, Sharding)` holds
    for shardc's NamedSharding and JAX's SingleDeviceSharding, as in JAX."""
    assert [n for n in dir(jax.dtypes) if not n.startswith("_") and not hasattr(sc.dtypes, n)] == []
    assert [n for n in dir(jax.sharding) if not n.startswith("_") and not hasattr(scs, n)] == []
    for top, N in ((jax, jax.numpy), (sc, sc.numpy)):
        k = top.random.key(0)
        assert N.issubdtype(k.dtype, top.dtypes.prng_key) and N.issubdtype(k.dtype, top.dtypes.extended)
        assert not N.issubdtype(k.dtype, N.floating)
    jm, sm = _meshes()
    for S, NS, m, P in ((jax.sharding.Sharding, jax.sharding.NamedSharding, jm, jax.P),
                        (scs.Sharding, sc.NamedSharding, sm, sc.P)):
        assert isinstance(NS(m, P("X")), S)
        assert isinstance(jax.sharding.SingleDeviceSharding(jax.devices()[1]), S) and not isinstance(1, S)
    assert scs.make_single_device_sharding(jax.devices()[2]) == jax.sharding.make_single_device_sharding(jax.devices()[2])


def test_array_delete_and_is_deleted_as_jax():
    for N in (jax.numpy, sc.numpy):
        a = N.ones(4)
        assert a.is_deleted() is False
        a.delete()
        assert a.is_deleted() is True
