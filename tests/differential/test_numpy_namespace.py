"""`import shardc.numpy as jnp`: the names of `jax.numpy` that shardc has, against JAX.

Coverage of jax.numpy 0.10.2's 416 public names: all 416 here, the host-side ones too (file
I/O, print options, DLPack, NumPy's abstract types, as JAX has them: a ported script calls them).
A new JAX name, or a name that stops existing here, fails
`test_every_jax_numpy_name_is_accounted_for`."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import shardc as sc
import shardc.numpy as snp

EXCLUDED: dict[str, str] = {}
# to be built (issue 12); docs/numpy.md groups them
NOT_YET: set[str] = set()


def test_every_jax_numpy_name_is_accounted_for():
    names = {n for n in dir(jnp) if not n.startswith("_")}
    ours = set(snp.__all__)
    assert ours <= names, ours - names
    assert not (ours & NOT_YET) and not (ours & set(EXCLUDED)), (ours & NOT_YET, ours & set(EXCLUDED))
    assert names == ours | NOT_YET | set(EXCLUDED), names ^ (ours | NOT_YET | set(EXCLUDED))
    assert all(hasattr(snp, n) for n in snp.__all__)


def test_functions_are_shardcs_and_constants_jaxs():
    assert snp.sin is sc.sin and snp.matmul is sc.matmul and snp.ndarray is sc.Array
    for n in ("e", "euler_gamma", "inf", "pi"):
        assert getattr(snp, n) == getattr(jnp, n)
    assert snp.newaxis is jnp.newaxis is None and np.isnan(snp.nan)
    assert snp.finfo(snp.bfloat16).eps == jnp.finfo(jnp.bfloat16).eps
    assert snp.issubdtype(snp.float32, snp.floating) and snp.promote_types(snp.int8, snp.bfloat16) == \
        jnp.promote_types(jnp.int8, jnp.bfloat16)


@pytest.mark.parametrize("shape", [(), (3,), (8, 4), (2, 8, 4)])
def test_ndim_and_size(shape, mesh24):
    x = np.ones(shape, np.float32)
    with sc.set_mesh(mesh24):
        a = sc.asarray(x)
        for obj in (x, a, list(x.tolist()) if shape else 1.0):
            assert snp.ndim(obj) == jnp.ndim(np.asarray(obj))
            assert snp.size(obj) == jnp.size(np.asarray(obj))
        if shape:
            assert snp.size(a, -1) == jnp.size(x, -1)
    seen = []
    sc.jit(lambda t: seen.append((snp.ndim(t), snp.size(t))) or t)(x)
    assert seen == [(len(shape), int(np.prod(shape)))]   # on a traced value too


def test_namespace_shows_only_jax_names():
    """`dir(shardc.numpy)` is its public names, all of them jax.numpy's (no helpers, imports or
    `annotations`); `shardc.numpy.linalg` names are jax.numpy.linalg's, also as a submodule import."""
    import importlib

    names = {n for n in dir(jnp) if not n.startswith("_")}
    shown = {n for n in dir(snp) if not n.startswith("_")}
    assert shown == set(snp.__all__) and shown <= names, shown - names
    for leak in ("Any", "Tracer", "annotations", "np", "sys"):
        assert leak not in shown
    la = importlib.import_module("shardc.numpy.linalg")
    assert la is snp.linalg
    assert set(la.__all__) <= {n for n in dir(jnp.linalg) if not n.startswith("_")}


SCALAR_TYPES = ["bool_", "bool", "int8", "int16", "int32", "int64", "int_", "uint8", "uint16", "uint32", "uint64",
                "uint", "float16", "bfloat16", "float32", "float64", "float_", "single", "double", "complex64",
                "complex128", "complex_", "csingle", "cdouble"]
# JAX's narrow int and float6 types: shardc has no such dtypes (it says so when one is asked for)
NARROW_TYPES = ["int1", "int2", "int4", "uint1", "uint2", "uint4", "float6_e2m3fn", "float6_e3m2fn"]
# JAX's 8-bit and 4-bit floats: shardc dtypes (tests/differential/test_float8.py checks them in programs)
SMALL_FLOAT_TYPES = ["float4_e2m1fn", "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn",
                     "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu"]


@pytest.mark.parametrize("name", SCALAR_TYPES)
def test_scalar_types_construct_arrays_as_jax(name, mesh24):
    """`jnp.float32(0.5)` is a rank-0 array (shardc's), eagerly and inside a program, typed as
    JAX's; the same object is a dtype (np.dtype, dtype=, astype), equal to NumPy's scalar type."""
    ours, theirs = getattr(snp, name), getattr(jnp, name)
    assert np.dtype(ours) == np.dtype(theirs) and ours == theirs.dtype.type and hash(ours) == hash(theirs)
    assert isinstance(theirs.dtype.type(1), ours) and not isinstance(1.5, ours)
    for value in (1, 0.5, [1, 0], True):
        a, b = ours(value), theirs(value)
        assert isinstance(a, sc.Array) and str(sc.typeof(a)) == str(jax.typeof(b))
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    with sc.set_mesh(mesh24):
        x = sc.device_put(np.ones((8, 4), np.float32), sc.P("X", "Y"))
        got = sc.jit(lambda v: v * ours(2) + snp.zeros((4,), ours).astype(snp.float32))(x)
    want = jax.jit(lambda v: v * theirs(2) + jnp.zeros((4,), theirs).astype(jnp.float32))(np.ones((8, 4), np.float32))
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


@pytest.mark.parametrize("name", SMALL_FLOAT_TYPES)
def test_small_float_scalar_types_construct_arrays_as_jax(name):
    ours, theirs = getattr(snp, name), getattr(jnp, name)
    assert np.dtype(ours) == np.dtype(theirs) and ours == theirs.dtype.type
    for value in (1, 0.5, [1, 0], True):
        a, b = ours(value), theirs(value)
        assert isinstance(a, sc.Array) and str(sc.typeof(a)) == str(jax.typeof(b))
        np.testing.assert_array_equal(np.asarray(a).view(np.uint8), np.asarray(b).view(np.uint8))


@pytest.mark.parametrize("name", NARROW_TYPES)
def test_narrow_scalar_types_are_refused_by_name(name):
    ours = getattr(snp, name)
    assert np.dtype(ours) == np.dtype(getattr(jnp, name))
    with pytest.raises(sc.ShardcError, match="not supported by shardc"):
        ours(1)


def test_host_side_io_and_printing_as_jax(tmp_path):
    """jnp.save / load (bfloat16 restored from .npy), savez, printoptions, from_dlpack, fromfile's
    refusal: what a ported script does around its computation."""
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    for m, path in ((jnp, tmp_path / "j.npy"), (snp, tmp_path / "s.npy")):
        m.save(path, m.asarray(x, dtype=m.bfloat16))
    j, s = jnp.load(tmp_path / "j.npy"), snp.load(tmp_path / "s.npy")
    assert str(sc.typeof(s)) == str(jax.typeof(j)) == "bfloat16[2,3]" and type(s) is sc.Array
    np.testing.assert_array_equal(np.asarray(s, np.float32), x)
    snp.savez(tmp_path / "z.npz", a=x)
    assert sorted(snp.load(tmp_path / "z.npz").files) == ["a"]
    with snp.printoptions(precision=1):
        shown = str(snp.asarray(x / 3))
    with jnp.printoptions(precision=1):
        assert shown == str(jnp.asarray(x / 3))
    assert snp.get_printoptions() == jnp.get_printoptions()
    d = snp.from_dlpack(np.arange(4, dtype=np.int32))
    assert type(d) is sc.Array and str(sc.typeof(d)) == str(jax.typeof(jnp.from_dlpack(np.arange(4, dtype=np.int32))))
    for m in (jnp, snp):
        with pytest.raises(NotImplementedError, match="jnp.fromfile"):
            m.fromfile(tmp_path / "j.npy")
    assert snp.object_ is jnp.object_ and snp.ComplexWarning is jnp.ComplexWarning
