"""API details of `jax` / `jax.sharding` / `jax.stages` that ported code touches, against JAX:
`AbstractMesh.update` / `update_axis_types` / `are_all_axes_*`, `NamedSharding.shard_shape`,
`Lowered.in_avals`, `Compiled.input_shardings` / `output_shardings`, `jit(inline=)`,
`device_get`, and the `jax.sharding` names under `shardc.sharding`."""
from __future__ import annotations

import jax
import numpy as np
import pytest

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
    # not yet: AbstractDevice, ManualAxisType, Sharding, SingleDeviceSharding, make_single_device_sharding
    have = {n for n in want if hasattr(scs, n)}
    assert {"PartitionSpec", "NamedSharding", "AxisType", "AbstractMesh", "Mesh", "reshard", "auto_axes",
            "explicit_axes", "get_abstract_mesh", "use_abstract_mesh", "get_mesh", "set_mesh"} <= have
    assert scs.reshard is sc.reshard and scs.Mesh is sc.Mesh and scs.AxisType is sc.AxisType


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
