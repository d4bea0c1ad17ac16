"""Differential: arrays committed to one device, as JAX 0.10.2 has them.

`device_put(x, device)` and `device_put(x, SingleDeviceSharding(device))` commit `x` to that
device: its `sharding` is the `SingleDeviceSharding`, its type has no mesh axes, ops and
programs on it run on that device and their results stay committed there; arrays committed
to two different devices, or one committed to a device and one laid out on a mesh (or a
program under a mesh context), are JAX's "Received incompatible devices" ValueError; an
uncommitted array (a `jnp` result) moves to where the committed one is.

Each program is written once against a namespace and run eagerly on both sides; what is
compared, per output: `str(typeof)`, the device ids, `committed`, the concrete sharding (the
`SingleDeviceSharding`'s device, or a NamedSharding's axes and spec) and the value; on
rejection the error class and JAX's key phrase (the oracle's `compare_errors`).
"""
from __future__ import annotations

import jax
import ml_dtypes
import numpy as np
from oracle import JAX, SC, Case, assert_values, mesh_pair, param
from oracle.harness import compare_errors, concrete_sharding

import shardc as sc

SDS = {JAX: jax.sharding.SingleDeviceSharding, SC: sc.sharding.SingleDeviceSharding}
DEVICES = {JAX: jax.devices, SC: sc.devices}
DTYPES = {"f32": np.float32, "i32": np.int32, "bf16": ml_dtypes.bfloat16, "bool": np.bool_}
SHAPES = {0: (), 1: (8,), 2: (8, 4), 3: (8, 4, 2)}


def _data(dtype: str, rank: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(SHAPES[rank]) * 4
    return (x > 0) if dtype == "bool" else x.astype(DTYPES[dtype])


def _sharding(s) -> tuple:
    """A concrete sharding as both sides can be compared by: the device of a single-device one,
    the mesh axes and spec of a named one."""
    if isinstance(s, jax.sharding.SingleDeviceSharding):
        return ("single", next(iter(s.device_set)).id)
    return ("named", concrete_sharding(type("_", (), {"sharding": s})()))


def _observe(ns, case: Case):
    """Run `case.fn(ns, mesh)` eagerly ("mesh": under that side's 2-D mesh); the error or, per
    output, (type, device ids, committed, sharding) and the values."""
    m, jm = mesh_pair("2d")
    mesh = jm if ns is JAX else m
    try:
        if "mesh" in case.tags:
            with (jax.set_mesh(jm) if ns is JAX else sc.set_mesh(m)):
                out = case.fn(ns, mesh)
        else:
            out = case.fn(ns, mesh)
        leaves = jax.tree_util.tree_leaves(out, is_leaf=lambda v: isinstance(v, sc.Array))
        facts = [(ns.tstr(o), sorted(d.id for d in o.devices()), o.committed, _sharding(o.sharding))
                 for o in leaves]
        return None, facts, [np.asarray(o) for o in leaves]
    except Exception as e:  # noqa: BLE001 - the verdict itself is compared
        return e, None, None


def check(case: Case) -> None:
    je, jfacts, jvals = _observe(JAX, case)
    se, sfacts, svals = _observe(SC, case)
    where = f"[{case.id}]"
    if case.expect == "reject":
        assert je is not None, f"{where} the case expects JAX to reject it: {jfacts}"
    if case.expect == "accept":
        assert je is None, f"{where} the case expects JAX to accept it: {type(je).__name__}: {je}"
    if je is None:
        assert se is None, f"{where} JAX accepts ({jfacts}) but shardc raised {type(se).__name__}: {se}"
        assert sfacts == jfacts, f"{where} outputs differ:\n  jax:    {jfacts}\n  shardc: {sfacts}"
        assert_values(case, jvals, svals, where)
        return
    assert se is not None, f"{where} JAX rejects ({type(je).__name__}: {je}) but shardc accepts: {sfacts}"
    compare_errors(case, je, se, where)


def _dev(ns, k: int, how: str):
    d = DEVICES[ns]()[k]
    return d if how == "device" else SDS[ns](d)


# --- where `device_put` puts things ---------------------------------------------------------------
def _source(ns, mesh, src: str, x: np.ndarray):
    """The value to put: host data, an uncommitted array, one committed to device 5, or one laid
    out on the 2-D mesh (sharded over X where it has a first dim)."""
    if src == "numpy":
        return x
    if src == "uncommitted":
        return ns.asarray(x)
    if src == "device5":
        return ns.device_put(x, DEVICES[ns]()[5])
    spec = ns.P("X") if x.ndim else ns.P()
    return ns.device_put(x, ns.NamedSharding(mesh, spec))


def _put_case(dtype: str, rank: int, src: str, how: str, k: int) -> Case:
    def fn(ns, mesh):
        v = ns.device_put(_source(ns, mesh, src, _data(dtype, rank)), _dev(ns, k, how))
        return v, v + v if dtype != "bool" else v & v
    return Case(f"put-{src}-{dtype}{rank}-{how}{k}", "2d", fn, expect="accept")


# (a mesh-laid array put on a bare `jax.Device` keeps its mesh type in JAX 0.10.2, `float32[8@X]` on
# one device, on which every op then fails: shardc gives it the one-device type, as for the sharding)
_COMBOS = [(dt, r, src, how) for dt in DTYPES for r in SHAPES
           for src in ("numpy", "uncommitted", "device5", "mesh") for how in ("device", "sds")
           if not (src == "mesh" and how == "device")]
PUTS = [_put_case(*combo, (0, 3, 7)[i % 3]) for i, combo in enumerate(_COMBOS)]

SCALARS = [
    Case("put-python-float", "2d", lambda ns, m: ns.device_put(3.0, DEVICES[ns]()[3]), expect="accept"),
    Case("put-python-int-sds", "2d", lambda ns, m: ns.device_put(7, _dev(ns, 2, "sds")), expect="accept"),
    Case("put-np-int32", "2d", lambda ns, m: ns.device_put(np.int32(3), DEVICES[ns]()[6]), expect="accept"),
    Case("put-weak-times-array", "2d",
         lambda ns, m: ns.device_put(2.0, DEVICES[ns]()[3]) * ns.device_put(_data("i32", 1), DEVICES[ns]()[3])),
    Case("put-pytree", "2d", lambda ns, m: ns.device_put({"a": _data("f32", 2), "b": [_data("i32", 1)]},
                                                           DEVICES[ns]()[4]), expect="accept"),
    Case("put-no-sharding", "2d", lambda ns, m: ns.device_put(_data("f32", 2)), expect="accept"),
    Case("put-no-sharding-scalar", "2d", lambda ns, m: ns.device_put(2.5) * _A3(ns), expect="accept"),
    Case("put-no-sharding-under-mesh", "2d", lambda ns, m: ns.device_put(_data("i32", 1)), expect="accept",
         tags=("mesh",)),
    Case("put-no-sharding-under-mesh-ops", "2d",
         lambda ns, m: (lambda u: (u + 1, u * ns.device_put(_data("f32", 1), ns.P("X"))))(ns.device_put(_data("f32", 1))),
         expect="accept", tags=("mesh",)),
    # creation functions' `device=` (a device or a SingleDeviceSharding) commit their result there
    Case("create-ones-sds", "2d", lambda ns, m: ns.ones((8, 4), device=_dev(ns, 3, "sds")), expect="accept"),
    Case("create-arange-sds", "2d", lambda ns, m: ns.arange(8, device=_dev(ns, 5, "sds")), expect="accept"),
    Case("create-array-sds", "2d", lambda ns, m: ns.array([1.0, 2.0], device=_dev(ns, 3, "sds")), expect="accept"),
    Case("create-zeros-device", "2d", lambda ns, m: ns.zeros((2, 3), np.int32, device=_dev(ns, 7, "device")),
         expect="accept"),
    Case("create-full_like-sds", "2d", lambda ns, m: ns.full_like(ns.arange(3), 3, device=_dev(ns, 2, "sds")),
         expect="accept"),
    Case("put-under-mesh", "2d", lambda ns, m: ns.device_put(_data("f32", 2), DEVICES[ns]()[3]),
         expect="accept", tags=("mesh",)),
    Case("put-sharded-sds-under-mesh", "2d",
         lambda ns, m: ns.device_put(ns.device_put(_data("f32", 2), ns.P("X", "Y")), _dev(ns, 3, "sds")),
         expect="accept", tags=("mesh",)),
    Case("put-back-onto-mesh", "2d",
         lambda ns, m: ns.device_put(ns.device_put(_data("f32", 2), DEVICES[ns]()[3]),
                                     ns.NamedSharding(m, ns.P("X", "Y"))), expect="accept"),
]


@param(PUTS + SCALARS)
def test_device_put_commits_to_the_device(case):
    check(case)


# --- ops and programs on a committed array ----------------------------------------------------------
OPS = {
    "add": lambda ns, x: x + 1.0,
    "sin": lambda ns, x: ns.sin(x),
    "sum0": lambda ns, x: x.sum(0),
    "matmul": lambda ns, x: x @ x.T,
    "T": lambda ns, x: x.T,
    "reshape": lambda ns, x: ns.reshape(x, (4, 8)),
    "astype": lambda ns, x: x.astype(np.int32),
    "where": lambda ns, x: ns.where(x > 0, x, 0.0),
    "argmax": lambda ns, x: ns.argmax(x, axis=1),
    "jit": lambda ns, x: ns.jit(lambda a: (a * 2.0, a.max()))(x),
    "jit-two-args": lambda ns, x: ns.jit(lambda a, b: a - b)(x, x * 3.0),
    "with-uncommitted": lambda ns, x: x * ns.ones((8, 4)),
    "jit-with-uncommitted": lambda ns, x: ns.jit(lambda a, b: a + b)(ns.arange(32.0).reshape(8, 4), x),
    "with-numpy": lambda ns, x: ns.jit(lambda a, b: a + b)(x, np.ones((8, 4), np.float32)),
}


def _op_case(name: str, k: int, how: str) -> Case:
    op = OPS[name]
    return Case(f"op-{name}-{how}{k}", "2d",
                lambda ns, m: op(ns, ns.device_put(_data("f32", 2), _dev(ns, k, how))), expect="accept")


OP_CASES = [_op_case(name, k, how) for i, name in enumerate(OPS)
            for k, how in (((3, "device"), (0, "sds")) if i % 2 else ((7, "sds"), (0, "device")))]


@param(OP_CASES)
def test_ops_on_a_committed_array_stay_there(case):
    check(case)


def test_uncommitted_results_stay_uncommitted():
    """`jnp` results on uncommitted arrays (and programs over them) stay uncommitted, on the
    default device, as in JAX: this is what lets them move to a committed array's device."""
    for fn in (lambda ns, m: ns.arange(8.0) + 1, lambda ns, m: ns.jit(lambda a: a * 2)(ns.ones((4, 2)))):
        check(Case("uncommitted", "2d", fn, expect="accept"))


# --- JAX's "Received incompatible devices" ----------------------------------------------------------
_A3 = lambda ns: ns.device_put(_data("f32", 1), DEVICES[ns]()[3])   # noqa: E731
_A5 = lambda ns: ns.device_put(_data("f32", 1, 1), _dev(ns, 5, "sds"))   # noqa: E731
_A0 = lambda ns: ns.device_put(_data("f32", 1), DEVICES[ns]()[0])   # noqa: E731
_ON_MESH = lambda ns, m: ns.device_put(_data("f32", 1, 2), ns.NamedSharding(m, ns.P("X")))   # noqa: E731
INCOMPATIBLE = [
    Case("two-devices-eager", "2d", lambda ns, m: _A3(ns) + _A5(ns)),
    Case("two-devices-jit", "2d", lambda ns, m: ns.jit(lambda a, b: a * b)(_A5(ns), _A3(ns))),
    Case("device0-and-device3", "2d", lambda ns, m: ns.jit(lambda a, b: a * b)(_A0(ns), _A3(ns))),
    Case("device-and-mesh-eager", "2d", lambda ns, m: _A3(ns) + _ON_MESH(ns, m)),
    Case("device0-and-mesh-eager", "2d", lambda ns, m: _ON_MESH(ns, m) - _A0(ns)),
    Case("device-and-mesh-jit", "2d", lambda ns, m: ns.jit(lambda a, b: a + b)(_A3(ns), _ON_MESH(ns, m))),
    Case("device-under-mesh-context", "2d", lambda ns, m: _A3(ns) + 1.0, tags=("mesh",)),
    Case("device-sin-under-mesh-context", "2d", lambda ns, m: ns.sin(_A5(ns)), tags=("mesh",)),
    Case("device-jit-under-mesh-context", "2d", lambda ns, m: ns.jit(lambda a: a * 2)(_A0(ns)), tags=("mesh",)),
    Case("sds-inside-jit-under-mesh", "2d",
         lambda ns, m: ns.jit(lambda a: ns.device_put(a, _dev(ns, 3, "sds")) + 1)(_ON_MESH(ns, m)),
         tags=("mesh",)),
]
INCOMPATIBLE = [Case(c.id, c.mesh, c.fn, expect="reject", kind=ValueError,
                     phrase="Received incompatible devices for jitted computation", tags=c.tags)
                for c in INCOMPATIBLE]

# where JAX does not complain: an uncommitted array joins a committed one or a mesh-laid one,
# and a `jax.Device` named inside a program over a mesh is ignored
COMPATIBLE = [
    Case("uncommitted-and-mesh", "2d", lambda ns, m: ns.arange(8.0) + _ON_MESH(ns, m)),
    Case("uncommitted-and-mesh-under-context", "2d",
         lambda ns, m: ns.arange(8.0) * _ON_MESH(ns, m), tags=("mesh",)),
    Case("device-inside-jit-under-mesh", "2d",
         lambda ns, m: ns.jit(lambda a: ns.device_put(a, DEVICES[ns]()[3]) + 1)(_ON_MESH(ns, m)), tags=("mesh",)),
    Case("same-device-twice", "2d", lambda ns, m: _A3(ns) * ns.device_put(_data("f32", 1, 1), _dev(ns, 3, "sds"))),
]
COMPATIBLE = [Case(c.id, c.mesh, c.fn, expect="accept", tags=c.tags) for c in COMPATIBLE]


@param(INCOMPATIBLE + COMPATIBLE)
def test_mixing_devices_as_jax(case):
    check(case)


def test_single_device_sharding_is_jax_s():
    """`sc.sharding.SingleDeviceSharding` is JAX's class (an array's `.sharding` is one)."""
    assert sc.sharding.SingleDeviceSharding is jax.sharding.SingleDeviceSharding
