"""Sharding types: printing (== JAX's str(jax.typeof)), parsing, spec checks."""

import jax
import numpy as np
import pytest
from jax.sharding import PartitionSpec as JP

import shardc as sc
from shardc import P
from shardc.sharding import spec_from_foreign

SPECS_2D = [(), ("X",), (None, "Y"), ("X", "Y"), ("Y", "X"), (("X", "Y"), None), (None, ("Y", "X"))]


@pytest.mark.parametrize("spec", SPECS_2D, ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_, sc.bfloat16], ids=lambda d: np.dtype(d).name)
def test_typeof_matches_jax(mesh24, spec, dtype):
    data = np.zeros((8, 8), dtype)
    a = sc.device_put(data, P(*spec))
    jmesh = jax.make_mesh((2, 4), ("X", "Y"), devices=list(mesh24.devices.flat))
    with jax.set_mesh(jmesh):
        j = jax.device_put(data, JP(*spec))
        assert str(sc.typeof(a)) == str(jax.typeof(j))


@pytest.mark.parametrize("u,r", [({"X"}, set()), ({"Y", "X"}, set()), ({"X"}, {"Y"}), (set(), {"Y"})])
def test_unreduced_reduced_printing_matches_jax(mesh24, u, r):
    jmesh = jax.make_mesh((2, 4), ("X", "Y"), devices=list(mesh24.devices.flat))
    with jax.set_mesh(jmesh):
        jr = jax.device_put(np.ones((8, 4), np.float32), JP())
        j = jax.sharding.reshard(jr, JP(unreduced=u, reduced=r))
        want = str(jax.typeof(j))
    t = sc.ArrayType((8, 4), np.dtype(np.float32), (None, None), frozenset(u), frozenset(r), mesh=mesh24.abstract_mesh)
    assert str(t) == want


def test_weak_type_printing():
    assert str(sc.typeof(1.0)) == str(jax.typeof(1.0)) == "~float32[]"
    assert str(sc.typeof(2)) == str(jax.typeof(2)) == "~int32[]"


@pytest.mark.parametrize("text,long", [
    ("f32[8@X,4]", "float32[8@X,4]"),
    ("float32[8@(X,Y),4]", "float32[8@(X,Y),4]"),
    ("bf16[8,4@Y]{U:X}", "bfloat16[8,4@Y]{U:X}"),
    ("i32[]", "int32[]"),
    ("~f32[8]", "~float32[8]"),
    ("bool[8@X]{R:Y}", "bool[8@X]{R:Y}"),
    ("f32[8,4]{U:(Y,X)}", "float32[8,4]{U:(X,Y)}"),
    ("f32[8,4]{U:X, R:Y}", "float32[8,4]{U:X, R:Y}"),
])
def test_parse_type_roundtrip(mesh24, text, long):
    t = sc.parse_type(text)
    assert str(t) == long
    assert sc.parse_type(str(t)) == t


@pytest.mark.parametrize("text,phrase", [
    ("f32[3@X,4]", "does not evenly divide"),
    ("f32[8@X,4@X]", "duplicate entries"),
    ("f32[8@Z]", "not found in mesh"),
    ("q32[8]", "unknown dtype"),
    ("f32(8)", "cannot parse"),
])
def test_parse_type_errors(mesh24, text, phrase):
    with pytest.raises(sc.ShardcValueError, match=phrase):
        sc.parse_type(text)


def test_partition_spec_repr_matches_jax():
    for args, kw in [(("X", None), {}), ((None,), {}), ((), {"unreduced": {"X"}}),
                     (("X",), {"unreduced": {"Y"}}), ((("X", "Y"),), {})]:
        assert repr(P(*args, **kw)) == repr(JP(*args, **kw))


def test_partition_spec_overlap_rejected():
    with pytest.raises(sc.ShardcValueError, match="cannot overlap"):
        P("X", unreduced={"X"})


def test_typeof_not_mesh_context_dependent(mesh24):
    a = sc.device_put(np.zeros((8, 4), np.float32), P("X", "Y"))
    with sc.set_mesh(None):
        assert str(sc.typeof(a)) == "float32[8@X,4@Y]"


def test_set_mesh_statement_and_context():
    m = sc.make_mesh((8,), ("i",))
    prev = sc.get_mesh()
    with sc.set_mesh(m) as got:
        assert got is m and sc.get_mesh() is m
        assert sc.get_abstract_mesh() == m.abstract_mesh
    assert sc.get_mesh() is prev


def test_use_abstract_mesh_requires_same_size(mesh24):
    with sc.use_abstract_mesh(sc.AbstractMesh((4, 2), ("a", "b"))):
        assert sc.get_abstract_mesh().axis_names == ("a", "b")
    with pytest.raises(sc.ShardcValueError, match="cannot change the size of the mesh"):
        with sc.use_abstract_mesh(sc.AbstractMesh((2,), ("a",))):
            pass


def test_make_mesh_defaults_to_explicit():
    m = sc.make_mesh((2, 4), ("X", "Y"))
    assert m.axis_types == (sc.AxisType.Explicit, sc.AxisType.Explicit)
    m2 = sc.Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ("X", "Y"))
    assert m2.axis_types == m.axis_types


def test_make_mesh_too_many_devices():
    with pytest.raises(sc.ShardcValueError, match="needs 16 devices"):
        sc.make_mesh((4, 4), ("X", "Y"))


def test_device_put_without_mesh_context_is_an_error():
    with sc.set_mesh(None):
        with pytest.raises(sc.ShardcValueError, match="not under a mesh context"):
            sc.device_put(np.zeros(8), P("X"))


def test_jax_specs_with_unreduced_or_reduced_axes_convert():
    """`tuple(spec)` raises on such JAX specs ("Using *pspec is dangerous"): read their entries."""
    for jspec, want in [(jax.P("X", None, unreduced={"Y"}), sc.P("X", None, unreduced={"Y"})),
                        (jax.P(None, reduced={"X"}), sc.P(None, reduced={"X"})),
                        (jax.P(("X", "Y")), sc.P(("X", "Y")))]:
        got = spec_from_foreign(jspec)
        assert (tuple(got), got.unreduced, got.reduced) == (tuple(want), want.unreduced, want.reduced)


@pytest.mark.parametrize("mod", ["tree_util", "tree"])
def test_pytree_namespaces_mirror_jax(mod, mesh24):
    """`import shardc as jax; jax.tree_util...`: every public name of JAX's module, usable on
    shardc arrays (they are leaves)."""
    import importlib
    want = {n for n in dir(importlib.import_module(f"jax.{mod}")) if not n.startswith("_")}
    ours = importlib.import_module(f"shardc.{mod}")
    assert want <= set(ours.__all__) and all(hasattr(ours, n) for n in want)
    params = {"w": sc.device_put(np.ones((8, 4), np.float32), P("X", "Y")), "b": sc.zeros(4)}
    fn = sc.tree_util.tree_map if mod == "tree_util" else sc.tree.map
    doubled = fn(lambda a: a * 2.0, params)
    assert str(sc.typeof(doubled["w"])) == "float32[8@X,4@Y]"
    np.testing.assert_array_equal(np.asarray(doubled["w"]), np.full((8, 4), 2.0, np.float32))
