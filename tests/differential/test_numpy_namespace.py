"""`import shardc.numpy as jnp`: the names of `jax.numpy` that shardc has, against JAX.

Coverage of jax.numpy 0.10.2's 416 public names: all 416 here, the host-side ones too (file
I/O, print options, DLPack, NumPy's abstract types, as JAX has them: a ported script calls them).
A new JAX name, or a name that stops existing here, fails
`test_every_jax_numpy_name_is_accounted_for`."""
from __future__ import annotations

import inspect

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


# --- signatures: a call that JAX accepts, shardc accepts with the same meaning ----------------------
#: shardc's keyword-only parameters that JAX's function lacks, each with its reason (a call written
#: for JAX never passes them, so porting is unaffected)
EXTRA_KEYWORDS: dict[str, dict[str, str]] = {
    "sum": {"out_sharding": "P(..., unreduced={...}) keeps partial sums over sharded dims: the "
                            "sharding-in-types result of lax.reduce_sum(out_sharding=), from the README's tour"},
    "take": {"out_sharding": "the gather's result sharding, as JAX's a.at[idx].get(out_sharding=)"},
}
_P = inspect.Parameter


def _jax_functions() -> list[tuple[str, object, object]]:
    """(qualified name, JAX's function, shardc's) for every public callable of jax.numpy,
    jax.numpy.linalg and jax.numpy.fft that shardc has (types are dtypes or classes: not functions)."""
    out = []
    for jmod, smod, prefix in ((jnp, snp, ""), (jnp.linalg, snp.linalg, "linalg."), (jnp.fft, snp.fft, "fft.")):
        for name in sorted(smod.__all__):
            j = getattr(jmod, name, None)
            if j is None or isinstance(j, type) or not callable(j):
                continue
            out.append((prefix + name, j, getattr(smod, name)))
    return out


def _signature_mismatches(name: str, j, s) -> list[str]:
    """How shardc's signature `s` differs from JAX's `j`: positional parameters pair up in order
    (JAX's positional-only ones only need a positional parameter with the same default; the others
    need the same name, kind and default), keyword-only ones by name (shardc's extras must be in
    `EXTRA_KEYWORDS`)."""
    pj, ps = list(inspect.signature(j).parameters.values()), list(inspect.signature(s).parameters.values())
    posj = [p for p in pj if p.kind != _P.KEYWORD_ONLY]
    poss = [p for p in ps if p.kind != _P.KEYWORD_ONLY]
    bad = []
    if len(posj) != len(poss):
        bad.append(f"{len(posj)} positional parameters in JAX, {len(poss)} in shardc")
    for a, b in zip(posj, poss):
        if a.kind == _P.POSITIONAL_ONLY:
            if b.kind not in (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD) or not _same_default(a, b):
                bad.append(f"JAX's positional-only {a} is shardc's {b}")
        elif (a.name, a.kind) != (b.name, b.kind) or not _same_default(a, b):
            bad.append(f"JAX's {a} ({a.kind.description}) is shardc's {b} ({b.kind.description})")
    kwj = {p.name: p for p in pj if p.kind == _P.KEYWORD_ONLY}
    kws = {p.name: p for p in ps if p.kind == _P.KEYWORD_ONLY}
    for k, a in kwj.items():
        if k not in kws:
            bad.append(f"no keyword-only {k!r}")
        elif not _same_default(a, kws[k]):
            bad.append(f"keyword-only {k!r}: default {kws[k].default!r}, JAX's {a.default!r}")
    bad += [f"keyword-only {k!r} that JAX lacks" for k in kws.keys() - kwj.keys()
            if k not in EXTRA_KEYWORDS.get(name, {})]
    return bad


def _same_default(a: inspect.Parameter, b: inspect.Parameter) -> bool:
    if (a.default is _P.empty) != (b.default is _P.empty):
        return False
    return a.default is b.default or type(a.default) is type(b.default) and a.default == b.default


def _comparable(j) -> bool:
    """JAX's callable has a signature other than `*args`: not ufunc objects (`__call__(*args)`,
    covered by test_ufuncs.py) nor varargs functions (`result_type(*args)`, `jnp.load`), whose
    parameters a caller cannot name."""
    try:
        sj = inspect.signature(j)
    except (TypeError, ValueError):
        return False
    return not any(p.kind == _P.VAR_POSITIONAL for p in sj.parameters.values())


_FUNCTIONS = _jax_functions()
_COMPARED = [f for f in _FUNCTIONS if _comparable(f[1])]


@pytest.mark.parametrize("name,j,s", _COMPARED, ids=[f[0] for f in _COMPARED])
def test_signature_is_jaxs(name, j, s):
    """A ported call (`jnp.sum(x, 0, None, None, True)`, `jnp.std(x, correction=1)`) binds in shardc
    exactly as in JAX: the parameters a caller can name have JAX's names, kinds and defaults."""
    sj = inspect.signature(j)
    assert not _signature_mismatches(name, j, s), (name, str(sj), str(inspect.signature(s)))


def test_extra_keyword_exceptions_are_current():
    """Every documented exception is still an extra of shardc's (none stale)."""
    funcs = {n: s for n, _, s in _FUNCTIONS}
    for name, extras in EXTRA_KEYWORDS.items():
        ps = inspect.signature(funcs[name]).parameters
        for k in extras:
            assert k in ps and ps[k].kind == _P.KEYWORD_ONLY, (name, k)


def test_array_method_signatures_are_jaxs():
    """`x.sum(...)`, `x.std(..., correction=)`, `x.dot(b=...)`: the methods of sc.Array take JAX's
    parameters (varargs methods, reshape(*args) / transpose(*args), may name their varargs freely)."""
    jcls, scls = type(jnp.ones(3)), sc.Array
    checked = 0
    for name in sorted(dir(jcls)):
        if name.startswith("_") or not hasattr(scls, name):
            continue
        a, b = inspect.getattr_static(jcls, name), inspect.getattr_static(scls, name)
        if isinstance(a, property) or isinstance(b, property) or not callable(getattr(jcls, name)):
            continue
        try:
            pa = list(inspect.signature(getattr(jcls, name)).parameters.values())[1:]
        except (TypeError, ValueError):
            continue
        pb = list(inspect.signature(getattr(scls, name)).parameters.values())[1:]
        norm = lambda ps: [("*" if p.kind == _P.VAR_POSITIONAL else p.name, p.kind, p.default) for p in ps]  # noqa: E731
        assert norm(pa) == norm(pb), (name, pa, pb)
        checked += 1
    assert checked > 40, checked
