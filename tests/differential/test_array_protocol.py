"""The iteration protocol of traced values and arrays, against JAX: rows along
the first dim (so `for`, `list`, `zip` and unpacking stop), static indices
past the end clamped as JAX clamps them, a `TypeError` for 0-d arrays.

Eager iteration of a concrete array is compared for values only: JAX's
`Array.__iter__` returns rows without the array's sharding (`float32[4]` for
a `float32[8,4@Y]`), shardc's keep it."""
from __future__ import annotations

import copy
import functools
import operator
import re
import weakref

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from oracle import Case, check, error_kind, key_phrase, param

import shardc as sc


def _sum_rows(ns, x):
    return sum(r for r in x)


def _unpack(ns, x):
    a, b, c, d = x
    return a * d - b * c


def _zip(ns, x, y):
    return [u + v for u, v in zip(x, y)]


CASES = [Case(f"{name}-{mode}", "2d", fn, args, mode=mode, expect="accept")
         for name, fn, args in [("sum-rows", _sum_rows, ("f32[8,4@Y]",)),
                                ("unpack", _unpack, ("f32[4,8@X]",)),
                                ("zip", _zip, ("f32[3,4@Y]", "f32[3,4@Y]"))]
         for mode in ("trace", "jit")]

CLAMPED = [Case(f"{name}-{mode}", "2d", fn, args, mode=mode, expect="accept")
           for name, fn, args in [("index-past-end", lambda ns, x: x[8], ("f32[8,4@Y]",)),
                                  ("negative-past-end", lambda ns, x: x[:, -5], ("f32[8,4]",)),
                                  ("far-past-end", lambda ns, x: x[100, 1], ("f32[8,4]",))]
           for mode in ("trace", "jit")]

ERRORS = [Case("iterate-0d", "2d", lambda ns, x: list(x), ("f32[]",), expect="reject", kind=TypeError)]


@param(CASES)
def test_iteration(case):
    check(case)


@param(CLAMPED)
def test_static_indices_past_the_end_are_clamped(case):
    check(case)


@param(ERRORS)
def test_iteration_errors(case):
    check(case)


def test_list_of_an_array_stops(mesh24):
    with sc.set_mesh(mesh24):
        x = sc.device_put(np.arange(12, dtype=np.float32).reshape(3, 4), sc.P(None, "Y"))
        rows = list(x)
    assert len(rows) == 3
    np.testing.assert_array_equal(np.stack([np.asarray(r) for r in rows]), np.arange(12).reshape(3, 4))
    np.testing.assert_array_equal(np.asarray(x[3]), np.arange(8, 12))   # clamped, as in JAX
    with pytest.raises(TypeError):
        iter(sc.asarray(np.float32(1.0)))


# --- eager `asarray` keeps JAX's weak types (a Python scalar is weak on devices too) --------------
VALUES = {"float": 1.0, "int": 2, "bool": True, "np.float32": np.float32(1.0), "list": [1.0, 2.0],
          "np.int8-array": np.ones(3, np.int8)}


@pytest.mark.parametrize("with_mesh", [False, True])
@pytest.mark.parametrize("name", sorted(VALUES))
def test_eager_asarray_type(name, with_mesh, mesh24):
    v = VALUES[name]
    if with_mesh:
        jm = jax.make_mesh((2, 4), ("X", "Y"), axis_types=(jax.sharding.AxisType.Explicit,) * 2)
        with jax.set_mesh(jm):
            want = str(jax.typeof(jnp.asarray(v)))
        with sc.set_mesh(mesh24):
            got = str(sc.typeof(sc.asarray(v)))
    else:
        want, got = str(jax.typeof(jnp.asarray(v))), str(sc.typeof(sc.asarray(v)))
    assert got == want


# --- the rest of the `jax.Array` protocol, concrete and traced, against jax.Array -------------------
# Each probe runs on a `jax.Array` / JAX tracer and on an `sc.Array` / shardc tracer of the same data
# and placement; the results must be equal (value and Python type), or both sides must raise the same
# builtin error class with JAX's key phrase (shardc's traced-value errors also name this file's line).
LAYOUTS = {"0d": ((), ()), "1d-size1": ((1,), ()), "1d": ((8,), ()), "1d@Y": ((8,), ("Y",)),
           "2d": ((4, 8), ()), "2d@X,Y": ((4, 8), ("X", "Y")), "2d@(X,Y)": ((2, 8), (None, ("X", "Y")))}
DTYPES = (np.float32, np.int32, np.bool_)


@functools.cache
def _jax_mesh():
    return jax.make_mesh((2, 4), ("X", "Y"), axis_types=(jax.sharding.AxisType.Explicit,) * 2)


def _value(shape: tuple, dtype) -> np.ndarray:
    """-1.25, 0, 1.25, ... so floats have fractions, ints negatives and bools both values."""
    n = int(np.prod(shape))
    return ((np.arange(n) % 3 - 1) * 1.25).reshape(shape).astype(dtype)


def _placed(layout: str, dtype, mesh24):
    shape, spec = LAYOUTS[layout]
    v = _value(shape, dtype)
    jm = _jax_mesh()
    return (jax.device_put(v, jax.sharding.NamedSharding(jm, jax.sharding.PartitionSpec(*spec))),
            sc.device_put(v, sc.NamedSharding(mesh24, sc.P(*spec))))


def _shards(x) -> list:
    return sorted((str(s.index), s.device.id, s.replica_id, np.asarray(s.data).tolist())
                  for s in x.addressable_shards)


#: name -> probe(x, typeof); values only (arrays go through NumPy, types through str)
PROBES = {
    "len": lambda x, ty: len(x),
    "__array__": lambda x, ty: np.asarray(x),
    "__array__-dtype": lambda x, ty: np.asarray(x, dtype=np.float64),
    "__index__": lambda x, ty: operator.index(x),
    "range": lambda x, ty: list(range(x)),
    "__bool__": lambda x, ty: bool(x),
    "if": lambda x, ty: "yes" if x else "no",
    "__float__": lambda x, ty: float(x),
    "__int__": lambda x, ty: int(x),
    "__complex__": lambda x, ty: complex(x),
    "item": lambda x, ty: x.item(),
    "tolist": lambda x, ty: x.tolist(),
    "format-.2f": lambda x, ty: f"{x:.2f}",
    "format-empty": lambda x, ty: format(x, ""),
    "format->9": lambda x, ty: f"{x:>9}",
    "format-d": lambda x, ty: f"{x:d}",
    "str": lambda x, ty: str(x),
    "T": lambda x, ty: str(ty(x.T)),
    "mT": lambda x, ty: str(ty(x.mT)),
    "nbytes": lambda x, ty: x.nbytes,
    "itemsize": lambda x, ty: x.itemsize,
    "size": lambda x, ty: x.size,
    "ndim": lambda x, ty: x.ndim,
    "shape": lambda x, ty: x.shape,
    "dtype": lambda x, ty: np.dtype(x.dtype),
    "weak_type": lambda x, ty: x.weak_type,
    "hash": lambda x, ty: hash(x),
    "in-present": lambda x, ty: 1 in x,
    "in-absent": lambda x, ty: 7 in x,
    "in-None": lambda x, ty: None in x,
    "in-list": lambda x, ty: [0] in x,
    "in-1d-array": lambda x, ty: np.zeros(1, np.int32) in x,
    "addressable_shards": lambda x, ty: _shards(x),
    "addressable_data": lambda x, ty: [np.asarray(x.addressable_data(i)) for i in range(len(x.addressable_shards))],
    "is_fully_replicated": lambda x, ty: x.is_fully_replicated,
    "is_fully_addressable": lambda x, ty: x.is_fully_addressable,
    "committed": lambda x, ty: x.committed,
    "copy_to_host_async": lambda x, ty: x.copy_to_host_async(),
    "block_until_ready": lambda x, ty: x.block_until_ready() is x,
    "devices": lambda x, ty: sorted(d.id for d in x.devices()),
    "sharding": lambda x, ty: (tuple(x.sharding.spec), tuple(x.sharding.mesh.axis_names)),
    "__setitem__": lambda x, ty: x.__setitem__(0, 1),
    "weakref": lambda x, ty: weakref.ref(x)() is x,
    "__array_namespace__": lambda x, ty: x.__array_namespace__() is (jnp if ty is jax.typeof else sc.numpy),
    "__array_namespace__-version": lambda x, ty: x.__array_namespace__(api_version="2024.12") is not None,
    "__array_namespace__-bad-version": lambda x, ty: x.__array_namespace__(api_version="2021.12"),
}
#: operators that make arrays: each is two probes, the result's type (`str(typeof)`, traced too)
#: and its value (`name=`; on a traced value both sides refuse the conversion alike)
_MAKING = {
    "divmod": lambda x: divmod(x, 2),
    "divmod-float": lambda x: divmod(x, 2.5),
    "rdivmod": lambda x: divmod(7, x),
    "lshift": lambda x: x << 1,
    "rshift": lambda x: x >> 1,
    "rlshift": lambda x: 1 << x,
    "rrshift": lambda x: 64 >> x,
    "round": lambda x: round(x),
    "round-1": lambda x: round(x, 1),
    "copy.copy": lambda x: copy.copy(x),
    "copy.deepcopy": lambda x: copy.deepcopy(x),
}
for _name, _make in _MAKING.items():
    PROBES[_name] = lambda x, ty, make=_make: [str(ty(r)) for r in jax.tree.leaves(make(x))]
    PROBES[_name + "="] = lambda x, ty, make=_make: [np.asarray(r) for r in jax.tree.leaves(make(x))]


def _run(probe, x, typeof):
    try:
        return True, probe(x, typeof)
    except Exception as e:  # noqa: BLE001 - the error is the outcome compared
        return False, e


def _kind(e: BaseException):
    return AttributeError if isinstance(e, AttributeError) else error_kind(e)


def _assert_same(j, s, where: str) -> None:
    (jok, jv), (sok, sv) = j, s
    if not jok:
        assert not sok, f"{where}: JAX raised {type(jv).__name__}: {jv}\n  shardc returned {sv!r}"
        assert _kind(sv) is _kind(jv) is not None, (
            f"{where}: JAX raised {type(jv).__name__}, shardc {type(sv).__name__}\n  jax: {jv}\n  shardc: {sv}")
        if not re.search(r"ArrayImpl|Tracer\b|Tracer'", str(jv)):  # messages naming JAX's classes
            phrase = key_phrase(str(jv))
            assert phrase and phrase in str(sv), f"{where}: JAX's key phrase {phrase!r} missing:\n  shardc: {sv}"
        if isinstance(sv, sc.ShardcError):
            assert sv.loc is not None and sv.loc.file == __file__, f"{where}: not named at the user's line: {sv}"
        return
    assert sok, f"{where}: JAX returned {jv!r}, shardc raised {type(sv).__name__}: {sv}"
    assert type(sv) is type(jv), f"{where}: JAX gave a {type(jv).__name__}, shardc a {type(sv).__name__}"
    np.testing.assert_equal(sv, jv, err_msg=where)
    for a, b in zip(sv if isinstance(sv, list) else [sv], jv if isinstance(jv, list) else [jv]):
        if isinstance(b, np.ndarray):
            assert a.dtype == b.dtype and a.shape == b.shape, f"{where}: {a.dtype}{a.shape} vs {b.dtype}{b.shape}"


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("probe", sorted(PROBES))
def test_concrete_protocol(probe, layout, mesh24):
    """On concrete arrays: `sc.Array` answers as `jax.Array` (eager, under the mesh)."""
    for dtype in DTYPES:
        jx, sx = _placed(layout, dtype, mesh24)
        with jax.set_mesh(_jax_mesh()):
            j = _run(PROBES[probe], jx, jax.typeof)
        s = _run(PROBES[probe], sx, sc.typeof)
        _assert_same(j, s, f"[{probe} {layout} {np.dtype(dtype).name}]")


#: a traced value prints as shardc's `Tracer<float32[8]>`, not JAX's `JitTracer(float32[8])`, so
#: `str` / `format(x, "")` are left out of the traced table (other format specs raise on both sides)
_TRACED = sorted(set(PROBES) - {"str", "format-empty"})


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("probe", _TRACED)
def test_traced_protocol(probe, layout, mesh24):
    """Inside `sc.jit` vs `jax.jit`: the same answers where JAX has one without a value
    (shape, dtype, len, `in` on a bad operand...), else the same error class and phrase."""
    for dtype in DTYPES:
        jx, sx = _placed(layout, dtype, mesh24)
        out = {}

        def jax_fn(x):
            out["jax"] = _run(PROBES[probe], x, jax.typeof)
            return x

        def sc_fn(x):
            out["sc"] = _run(PROBES[probe], x, sc.typeof)
            return x

        with jax.set_mesh(_jax_mesh()):
            jax.jit(jax_fn)(jx)
        sc.jit(sc_fn)(sx)
        _assert_same(out["jax"], out["sc"], f"[{probe} {layout} {np.dtype(dtype).name} jit]")


#: how an array was made, on each side: (jax, shardc) builders of the same value
MADE = {
    "asarray-float": (lambda: jnp.asarray(1.5), lambda: sc.asarray(1.5)),
    "asarray-np": (lambda: jnp.asarray(np.arange(8, dtype=np.float32)),
                   lambda: sc.asarray(np.arange(8, dtype=np.float32))),
    "op-on-asarray": (lambda: jnp.asarray(np.arange(8, dtype=np.int32)) * 2,
                      lambda: sc.asarray(np.arange(8, dtype=np.int32)) * 2),
    "jit-on-asarray": (lambda: jax.jit(lambda a: a + 1)(jnp.asarray(np.ones(8, np.float32))),
                       lambda: sc.jit(lambda a: a + 1)(sc.asarray(np.ones(8, np.float32)))),
    "weak-scalar-op": (lambda: jnp.asarray(np.float32(2.0)) * 3, lambda: sc.asarray(np.float32(2.0)) * 3),
}


@pytest.mark.parametrize("probe", ["committed", "weak_type", "is_fully_replicated", "devices", "format-.2f",
                                   "str", "__array__", "item", "tolist", "addressable_shards"])
@pytest.mark.parametrize("made", sorted(MADE))
def test_protocol_without_a_mesh(made, probe):
    """Arrays made without a mesh (`asarray`, ops and programs on them): JAX leaves them
    uncommitted on the default device."""
    jmake, smake = MADE[made]
    with sc.set_mesh(None):
        j = _run(PROBES[probe], jmake(), jax.typeof)
        s = _run(PROBES[probe], smake(), sc.typeof)
    _assert_same(j, s, f"[{probe} {made}]")


@pytest.mark.parametrize("spec", [(), (None,), ("X",), ("X", None), (None, "Y"), (("X", "Y"),)])
def test_sharding_spells_the_placement_as_jax(spec, mesh24):
    """`x.sharding.spec` after `device_put(x, P(...))` and after a program, as in JAX
    (`P()` stays `P()` after placement; a program's output spells every dim)."""
    v = np.arange(64, dtype=np.float32).reshape(8, 8)
    jm = _jax_mesh()
    jx = jax.device_put(v, jax.sharding.NamedSharding(jm, jax.sharding.PartitionSpec(*spec)))
    sx = sc.device_put(v, sc.P(*spec))
    with jax.set_mesh(jm):
        jy = jax.jit(lambda a: a * 2)(jx)
    sy = sc.jit(lambda a: a * 2)(sx)
    assert tuple(sx.sharding.spec) == tuple(jx.sharding.spec)
    assert tuple(sy.sharding.spec) == tuple(jy.sharding.spec)
