"""`jit(in_shardings=, out_shardings=)` as pytree prefixes, against `jax.jit`: one sharding per
positional argument covering every leaf of a dict of parameters, a pytree of shardings over an
argument, one for all, `None` entries, and the same for results (a `(params, loss)` pair), on Auto
and Explicit meshes. Compared: values, each result leaf's placement spec and type, and the
refusal of a committed argument placed otherwise (JAX's ValueError). shardc compared the entries
with the flat leaves (the batch's sharding checked against the second parameter) and dropped the
results past the entries' count."""
from __future__ import annotations

import jax
import numpy as np
import pytest
from oracle import error_kind

import shardc as sc

AXES = ("auto", "explicit")


def _side(lib, kind):
    axis_type = lib.sharding.AxisType.Auto if kind == "auto" else lib.sharding.AxisType.Explicit
    mesh = lib.make_mesh((2, 4), ("data", "model"), axis_types=(axis_type,) * 2)
    return lib, mesh, (lambda *spec: lib.sharding.NamedSharding(mesh, lib.sharding.PartitionSpec(*spec)))


def _params():
    rng = np.random.default_rng(0)
    return {"w": rng.standard_normal((8, 16)).astype(np.float32), "b": rng.standard_normal((16,)).astype(np.float32),
            "v": {"u": rng.standard_normal((16, 4)).astype(np.float32)}}


def _step(lib):
    def step(p, x):
        h = lib.numpy.tanh(x @ p["w"] + p["b"]) @ p["v"]["u"]
        new = lib.tree.map(lambda a: a * 0.5, p)
        return new, lib.numpy.sum(h)
    return step


PROGRAMS = {
    # (in_shardings, out_shardings) built from the side's NamedSharding maker S
    "per-argument": lambda S: ((S("model"), S("data")), (S("model"), S())),
    "pytree-of-shardings": lambda S: (({"w": S(None, "model"), "b": S("model"), "v": {"u": S()}}, S("data")),
                                      ({"w": S(), "b": S("model"), "v": S()}, S())),
    "one-for-all": lambda S: (S(), S()),
    "none-entries": lambda S: ((None, S("data")), (S("model"), None)),
}


def _run(lib, kind, name):
    lib, mesh, S = _side(lib, kind)
    ins, outs = PROGRAMS[name](S)
    with lib.set_mesh(mesh):
        p = lib.device_put(_params(), ins[0] if isinstance(ins, tuple) and ins[0] is not None else S())
        x = lib.device_put(np.arange(64, dtype=np.float32).reshape(8, 8) / 64, ins[1] if isinstance(ins, tuple)
                           else ins)
        try:
            new, loss = lib.jit(_step(lib), in_shardings=ins, out_shardings=outs)(p, x)
        except Exception as e:  # noqa: BLE001  (the refusal is compared)
            return "refused", e
        leaves = lib.tree.leaves((new, loss))
        return ([(str(lib.typeof(a)), str(a.sharding.spec)) for a in leaves], [np.asarray(a) for a in leaves])


@pytest.mark.parametrize("kind", AXES)
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_prefix_shardings_as_jax(name, kind):
    (jt, jv), (st, sv) = _run(jax, kind, name), _run(sc, kind, name)
    if "refused" in (jt, st):
        assert jt == st and error_kind(sv) == error_kind(jv), (jv, sv)
        return
    assert st == jt
    for a, b in zip(sv, jv, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kind", AXES)
def test_committed_argument_placed_otherwise(kind):
    """JAX's ValueError: the argument is placed (Auto) or typed (Explicit) otherwise than declared."""
    errors = []
    for lib in (jax, sc):
        lib, mesh, S = _side(lib, kind)
        with lib.set_mesh(mesh):
            p = lib.device_put(_params(), S())
            x = lib.device_put(np.ones((8, 8), np.float32), S())
            f = lib.jit(_step(lib), in_shardings=(S(), S("data")))
            with pytest.raises(Exception) as e:  # noqa: B017,PT011  (the refusal is compared)
                f(p, x)
            errors.append(e.value)
    assert error_kind(errors[1]) == error_kind(errors[0]), errors
    assert isinstance(errors[1], ValueError) and "`x`" in str(errors[1]), errors[1]   # named by parameter
