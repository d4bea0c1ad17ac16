"""`sc.pmap` against JAX 0.10.2's `jax.pmap` (a jitted shard_map over a one-axis Auto mesh in both):
each program runs with both on the same host inputs; the results' pytree structure, `str(typeof)`,
`repr(sharding)` and values must be JAX's, and each error JAX's class and key phrase. Also the jit
and lax fixes pmap needed: an uncommitted array under `in_shardings`, Auto results' spelling,
`lax.expand_dims` bounds."""
from __future__ import annotations

from typing import Any, Callable

import jax
import numpy as np
import pytest

import shardc as sc

R = np.random.default_rng(0)
X8 = R.standard_normal(8).astype(np.float32)
X83 = R.standard_normal((8, 3)).astype(np.float32)
X38 = R.standard_normal((3, 8)).astype(np.float32)
X843 = R.standard_normal((8, 4, 3)).astype(np.float32)
X88 = R.standard_normal((8, 8)).astype(np.float32)
V3 = R.standard_normal(3).astype(np.float32)
W32 = R.standard_normal((3, 2)).astype(np.float32)
I8 = np.arange(8, dtype=np.int32)
PERM = [(i, (i + 1) % 8) for i in range(8)]


def _loss(lib, w, x):
    return lib.numpy.sum(lib.numpy.tanh(x @ w) ** 2)


def _train_step(lib):
    """The data-parallel step old training code writes with pmap: per-device gradients, pmean'd."""
    def step(w, x):
        loss, g = lib.value_and_grad(lambda w: _loss(lib, w, x))(w)
        return lib.lax.pmean(loss, "batch"), lib.lax.pmean(g, "batch")
    return lib.pmap(step, "batch", in_axes=(None, 0), out_axes=None)(W32, X843)


#: name -> program(lib) -> results (lib is `jax` or `sc`, called on the same host inputs)
CASES: dict[str, Callable[[Any], Any]] = {
    # the collectives with the pmap's axis name
    "psum": lambda lib: lib.pmap(lambda x: lib.lax.psum(x, "i"), axis_name="i")(X8),
    "psum_arange": lambda lib: lib.pmap(lambda x: lib.lax.psum(x, "i"), axis_name="i")(lib.numpy.arange(8.0)),
    "normalize": lambda lib: lib.pmap(lambda x: x / lib.lax.psum(x, "i"), "i")(np.abs(X8) + 1),
    "pmean": lambda lib: lib.pmap(lambda x: lib.lax.pmean(x, "i"), "i")(X83),
    "pmax": lambda lib: lib.pmap(lambda x: lib.lax.pmax(x, "i"), "i")(X83),
    "pmin": lambda lib: lib.pmap(lambda x: lib.lax.pmin(x, "i"), "i")(I8),
    "all_gather": lambda lib: lib.pmap(lambda x: lib.lax.all_gather(x, "i"), "i")(X83),
    "all_gather_tiled": lambda lib: lib.pmap(lambda x: lib.lax.all_gather(x, "i", tiled=True), "i")(X83),
    "ppermute": lambda lib: lib.pmap(lambda x: lib.lax.ppermute(x, "i", PERM), "i")(X83),
    "axis_index": lambda lib: lib.pmap(lambda x: x * lib.lax.axis_index("i"), "i")(X8),
    "axis_index_alone": lambda lib: lib.pmap(lambda x: lib.lax.axis_index("i"), "i")(X8),
    "psum_scatter": lambda lib: lib.pmap(lambda x: lib.lax.psum_scatter(x, "i"), "i")(X88),
    "psum_scatter_tiled": lambda lib: lib.pmap(lambda x: lib.lax.psum_scatter(x, "i", tiled=True), "i")(X88),
    "all_to_all": lambda lib: lib.pmap(lambda x: lib.lax.all_to_all(x, "i", 0, 0), "i")(X88),
    "psum_groups": lambda lib: lib.pmap(
        lambda x: lib.lax.psum(x, "i", axis_index_groups=[[0, 1, 2, 3], [4, 5, 6, 7]]), "i")(X8),
    "psum_of_constant": lambda lib: lib.pmap(lambda x: lib.lax.psum(1, "i"), "i")(X8),
    "psum_pytree": lambda lib: lib.pmap(lambda x: lib.lax.psum({"a": x, "b": (x * 2, None)}, "i"), "i")(X83),
    # in_axes
    "in_axes_1": lambda lib: lib.pmap(lambda x: x * 2, in_axes=1)(X38),
    "in_axes_none": lambda lib: lib.pmap(lambda x, v: x + v, in_axes=(0, None))(X83, V3),
    "in_axes_none_scalar": lambda lib: lib.pmap(lambda x, s: x * s, in_axes=(0, None))(X8, 2.0),
    "in_axes_pytree": lambda lib: lib.pmap(lambda d: d["a"] * d["b"], in_axes=({"a": 0, "b": None},))(
        {"a": X83, "b": V3}),
    "in_axes_nested": lambda lib: lib.pmap(lambda t, y: t[0] + t[1] + y, in_axes=((0, 1), None))(
        (X83, X38), V3),
    "kwargs": lambda lib: lib.pmap(lambda x, y: x - y)(X83, y=X83 * 3),
    "kwargs_with_in_axes": lambda lib: lib.pmap(lambda x, y: x + y, in_axes=(1,))(X38, y=X83),
    # out_axes
    "out_axes_1": lambda lib: lib.pmap(lambda x: x * 2, out_axes=1)(X83),
    "out_axes_negative": lambda lib: lib.pmap(lambda x: x * 2, out_axes=-1)(X83),   # JAX's (24, 1)
    "out_axes_none_psum": lambda lib: lib.pmap(lambda x: lib.lax.psum(x, "i"), "i", out_axes=None)(X83),
    "out_axes_none_varying": lambda lib: lib.pmap(lambda x: x * 3, "i", out_axes=None)(X8),   # device 0's
    "out_axes_pytree": lambda lib: lib.pmap(lambda x: (x, lib.lax.psum(x, "i")), "i", out_axes=(0, None))(X8),
    "out_axes_dict_prefix": lambda lib: lib.pmap(lambda x: {"a": x, "b": (x, x + 1)},
                                                 out_axes={"a": 0, "b": 1})(X83),
    "out_axes_none_tuple": lambda lib: lib.pmap(lambda w, x: (lib.lax.psum(x, "b"), w + 1), "b",
                                                in_axes=(None, 0), out_axes=None)(W32, X83),
    # outputs
    "pytree_out": lambda lib: lib.pmap(lambda x: (x, {"a": x * 2, "n": None}))(X83),
    "constant_out": lambda lib: lib.pmap(lambda x: 1.0)(X8),
    "int32": lambda lib: lib.pmap(lambda x: x + 1)(I8),
    "bool": lambda lib: lib.pmap(lambda x: x > 3)(I8),
    "bfloat16": lambda lib: lib.pmap(lambda x: x * 2)(X8.astype(jax.numpy.bfloat16)),
    "float64_input": lambda lib: lib.pmap(lambda x: x * 2)(X8.astype(np.float64)),
    # static_broadcasted_argnums, donate_argnums, devices, axis_size, backend
    "static": lambda lib: lib.pmap(lambda x, n: x * n, static_broadcasted_argnums=1)(X8, 3),
    "static_two_values": lambda lib: (lambda f: (f(X8, 2), f(X8, 3), f(X8, 2.5)))(
        lib.pmap(lambda x, n: x * n, static_broadcasted_argnums=(1,))),
    "static_first_donate": lambda lib: lib.pmap(lambda n, x: x * n, static_broadcasted_argnums=0,
                                                donate_argnums=1)(3, X8),
    "static_python_branch": lambda lib: lib.pmap(lambda x, neg: -x if neg else x, static_broadcasted_argnums=1)(
        X8, True),
    "donate": lambda lib: lib.pmap(lambda x: x * 2, donate_argnums=0)(lib.numpy.ones(8)),
    "donate_pmap_output": lambda lib: (lambda y: lib.pmap(lambda x: x + 1, donate_argnums=0)(y))(
        lib.pmap(lambda x: x * 2)(X8)),
    "devices_first4": lambda lib: lib.pmap(lambda x: lib.lax.psum(x, "i"), "i", devices=lib.devices()[:4])(X8[:4]),
    "devices_last4": lambda lib: lib.pmap(lambda x: lib.lax.psum(x, "i"), "i", devices=lib.devices()[4:])(X8[:4]),
    "axis_size": lambda lib: lib.pmap(lambda x: x + 1, axis_size=4)(X8[:4]),
    "fewer_than_devices": lambda lib: lib.pmap(lambda x: lib.lax.pmax(x, "i"), "i")(X83[:3]),
    "device_count": lambda lib: lib.pmap(lambda x: x.sum())(np.ones((lib.device_count(), 5), np.float32)),
    "backend": lambda lib: lib.pmap(lambda x: x * 2, backend="cpu")(X8),
    "pmap_of_pmap_output": lambda lib: lib.pmap(lambda x: x + 1)(lib.pmap(lambda x: x * 2)(X8)),
    "pmap_of_4_device_output": lambda lib: lib.pmap(lambda x: x + 1)(
        lib.pmap(lambda x: x * 2, devices=lib.devices()[4:])(X8[:4])),
    # compositions
    "jit_of_pmap": lambda lib: lib.jit(lib.pmap(lambda x: lib.lax.psum(x, "i") * x, "i"))(X8),
    "pmap_of_jit": lambda lib: lib.pmap(lib.jit(lambda x: x * 2))(X83),
    "jit_inside_with_psum": lambda lib: lib.pmap(lambda x: lib.jit(lambda y: lib.lax.psum(y, "i"))(x), "i")(X8),
    "grad_of_pmap": lambda lib: lib.grad(lambda x: lib.pmap(lambda y: lib.numpy.sin(y) * y)(x).sum())(X8),
    "grad_of_pmap_psum": lambda lib: lib.grad(
        lambda x: lib.pmap(lambda y: lib.lax.psum(y * y, "i"), "i")(x).sum())(X8),
    "pmap_of_grad": lambda lib: lib.pmap(lib.grad(lambda y: lib.numpy.sin(y) * y))(X8),
    "pmap_of_grad_pmean": _train_step,
    "pmap_of_vmap": lambda lib: lib.pmap(lib.vmap(lambda x: x * 2))(X83),
    "pmap_of_vmap_psum": lambda lib: lib.pmap(lib.vmap(lambda x: lib.lax.psum(x, "i")), "i")(X83),
    "vmap_of_pmap": lambda lib: lib.vmap(lib.pmap(lambda x: x * 2))(X38),
    "random_keys": lambda lib: lib.pmap(lambda k: lib.random.normal(k, (2,)))(
        lib.random.split(lib.random.key(0), 8)),
    "matmul_batch": lambda lib: lib.pmap(lambda x, w: x @ w, in_axes=(0, None))(X843, W32),
}


def _run(lib, case: str):
    out = CASES[case](lib)
    leaves = jax.tree.leaves(out)
    return (jax.tree.structure(jax.tree.map(lambda _: 0, out)), [str(lib.typeof(v)) for v in leaves],
            [repr(v.sharding) for v in leaves], [np.asarray(v) for v in leaves])


@pytest.mark.parametrize("case", sorted(CASES))
def test_pmap_as_jax(case):
    jtree, jtypes, jshard, jvals = _run(jax, case)
    stree, stypes, sshard, svals = _run(sc, case)
    assert stree == jtree
    assert stypes == jtypes
    assert sshard == jshard
    for a, b in zip(svals, jvals, strict=True):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(np.asarray(a, np.float64), np.asarray(b, np.float64), rtol=2e-6, atol=1e-6)


def test_donated_pmap_output_is_deleted_as_in_jax():
    for lib in (jax, sc):
        y = lib.pmap(lambda x: x * 2)(X8)
        lib.pmap(lambda x: x + 1, donate_argnums=0)(y)
        with pytest.raises(RuntimeError, match="deleted"):
            np.asarray(y)


def test_pmapped_function_keeps_name_and_lowers():
    for lib in (jax, sc):
        def step(x):
            return x * 2
        f = lib.pmap(step)
        assert f.__name__ == "step" and f.__wrapped__ is step
        text = f.lower(X8).as_text()
        assert "mhlo.num_partitions = 8" in text


#: name -> (program(lib), key phrase of JAX's message, which shardc's must contain too)
ERRORS: dict[str, tuple[Callable[[Any], Any], str]] = {
    "too_many": (lambda lib: lib.pmap(lambda x: x)(np.ones(9, np.float32)),
                 "implies that array axis 0 is partitioned 8 times, but the dimension size is 9"),
    "sizes_differ": (lambda lib: lib.pmap(lambda x, y: x + y)(np.ones(4), np.ones(3)),
                     "implies that array axis 0 is partitioned 4 times, but the dimension size is 3"),
    "negative_in_axes": (lambda lib: lib.pmap(lambda x: x, in_axes=-1)(X38),
                         "implies that array axis 0 is partitioned 8 times, but the dimension size is 3"),
    "no_mapped_arg": (lambda lib: lib.pmap(lambda x: x, in_axes=None)(X8),
                      "pmap requires at least one argument with a mapped axis."),
    "scalar_arg": (lambda lib: lib.pmap(lambda x: x)(3.0), "pmap requires at least one argument with a mapped axis."),
    "list_arg": (lambda lib: lib.pmap(lambda x: x)([1.0, 2.0]),
                 "pmap requires at least one argument with a mapped axis."),
    "axis_size_mismatch": (lambda lib: lib.pmap(lambda x: x, axis_size=5)(X8[:4]),
                           "Specified axis_size 5 doesn't match received axis_size 4."),
    "devices_empty": (lambda lib: lib.pmap(lambda x: x, devices=[])(X8),
                      "'devices' argument to pmap must be non-empty, or None."),
    "in_axes_float": (lambda lib: lib.pmap(lambda x: x, in_axes=1.0)(X8),
                      "pmap in_axes must be an int, None, or (nested) container with those types as leaves, but "
                      "got 1.0."),
    "out_axes_str": (lambda lib: lib.pmap(lambda x: x, out_axes="a")(X8),
                     "pmap out_axes must be an int, None, or (nested) container with those types as leaves"),
    "not_callable": (lambda lib: lib.pmap(3), "Expected a callable value, got 3"),
    "static_not_passed": (lambda lib: lib.pmap(lambda x, n: x * n, static_broadcasted_argnums=1)(X8),
                          "pmapped function has static_broadcasted_argnums=(1,) but was called with only 1 "
                          "positional argument. All static broadcasted arguments must be passed positionally."),
    "static_unhashable": (lambda lib: lib.pmap(lambda x, n: x, static_broadcasted_argnums=1)(X8, [1]),
                          "Non-hashable static arguments are not supported"),
    "in_axes_not_prefix": (lambda lib: lib.pmap(lambda x, y: x, in_axes=(0, 0, 0))(X8, X8),
                           "is a tree prefix of the tuple of arguments passed positionally to the pmapped function"),
    "in_axes_list": (lambda lib: lib.pmap(lambda x, y: x + y, in_axes=[0, None])(X83, V3),
                     "different types at key path"),
    "in_axes_with_kwargs": (lambda lib: lib.pmap(lambda x, y: x + y, in_axes=(0, 0))(X83, y=X83),
                            "each argument passed by keyword is mapped over its leading axis"),
    "out_axes_not_prefix": (lambda lib: lib.pmap(lambda x: (x, x), out_axes=(0, 0, 0))(X8),
                            "different lengths of tuple at key path"),
    "in_axes_out_of_range": (lambda lib: lib.pmap(lambda x: x, in_axes=2)(X83), "tuple index out of range"),
    "out_axes_out_of_range": (lambda lib: lib.pmap(lambda x: x, out_axes=3)(X83),
                              "axis 3 is out of bounds for array of dimension 2"),
    "unbound_axis": (lambda lib: lib.pmap(lambda x: lib.lax.psum(x, "i"))(X8), "Found an unbound axis name: i."),
    "nested_pmap": (lambda lib: lib.pmap(lib.pmap(lambda x: lib.lax.psum(x, "j"), "j"), "i")(X8.reshape(2, 4)),
                    "should match the mesh passed to shard_map"),
}


def _mesh_context_error(lib):
    mesh = lib.make_mesh((8,), ("X",), axis_types=(lib.sharding.AxisType.Explicit,))
    with lib.set_mesh(mesh):
        return lib.pmap(lambda x: x + 1)(X8)


def _jit_mesh_context_error(lib):
    mesh = lib.make_mesh((8,), ("X",), axis_types=(lib.sharding.AxisType.Explicit,))
    with lib.set_mesh(mesh):
        return lib.jit(lib.pmap(lambda x: x + 1))(X8)


ERRORS["under_mesh"] = (_mesh_context_error, "The context mesh AbstractMesh('X': 8, axis_types=(Explicit,), "
                        "device_kind=cpu, num_cores=None, platform=cpu) should match the mesh passed to shard_map")
ERRORS["jit_under_mesh"] = (_jit_mesh_context_error, "should match the mesh passed to shard_map")


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_pmap_errors_as_jax(case):
    prog, phrase = ERRORS[case]
    with pytest.raises(Exception) as jerr:
        prog(jax)
    assert phrase in str(jerr.value)
    builtin = next(c for c in type(jerr.value).__mro__ if c.__module__ == "builtins")
    with pytest.raises(builtin) as serr:
        prog(sc)
    assert phrase in str(serr.value)


# --- the jit and lax behaviours pmap relies on, as JAX's -------------------------------------

def _auto_mesh(lib):
    return lib.sharding.Mesh(np.array(jax.devices()), ("i",), axis_types=(lib.sharding.AxisType.Auto,))


def _explicit_mesh(lib):
    return lib.sharding.Mesh(np.array(jax.devices()), ("i",), axis_types=(lib.sharding.AxisType.Explicit,))


JIT_PLACEMENTS: dict[str, Callable[[Any], Any]] = {
    # an uncommitted array (on the default device) is placed as in_shardings say
    "uncommitted_auto": lambda lib: lib.jit(lambda a: a * 2, in_shardings=lib.sharding.NamedSharding(
        _auto_mesh(lib), lib.P("i")))(lib.numpy.arange(8.0)),
    "uncommitted_explicit": lambda lib: lib.jit(lambda a: a * 2, in_shardings=lib.sharding.NamedSharding(
        _explicit_mesh(lib), lib.P("i")))(lib.numpy.arange(8.0)),
    # Auto results: spelled as out_shardings, or as the first array the user placed
    "out_shardings_replicated": lambda lib: lib.jit(lambda w: w + 1, out_shardings=lib.sharding.NamedSharding(
        _auto_mesh(lib), lib.P()))(W32),
    "in_shardings_replicated": lambda lib: lib.jit(lambda w: w + 1, in_shardings=lib.sharding.NamedSharding(
        _auto_mesh(lib), lib.P(None, None)))(W32),
    "in_shardings_host": lambda lib: lib.jit(lambda w: w + 1, in_shardings=lib.sharding.NamedSharding(
        _auto_mesh(lib), lib.P("i", None)))(X83),
    "placed_argument": lambda lib: lib.jit(lambda w: w + 1)(lib.device_put(X83, lib.sharding.NamedSharding(
        _auto_mesh(lib), lib.P("i", None)))),
    "placed_second_argument": lambda lib: lib.jit(lambda a, w: w + 1)(V3, lib.device_put(
        X83, lib.sharding.NamedSharding(_auto_mesh(lib), lib.P(None, None)))),
}


@pytest.mark.parametrize("case", sorted(JIT_PLACEMENTS))
def test_jit_placements_pmap_relies_on(case):
    res = {}
    for lib in (jax, sc):
        out = jax.tree.leaves(JIT_PLACEMENTS[case](lib))
        res[lib.__name__] = ([str(lib.typeof(v)) for v in out], [repr(v.sharding) for v in out],
                             [np.asarray(v).tolist() for v in out])
    assert res["shardc"] == res["jax"]


@pytest.mark.parametrize("dims, phrase", [([3], "axis 3 is out of bounds for array of dimension 2"),
                                          ([-3], "axis -3 is out of bounds for array of dimension 2"),
                                          ([0, 0], "repeated axis in lax.expand_dims"),
                                          ([0, -3], "repeated axis in lax.expand_dims")])
def test_lax_expand_dims_errors_as_jax(dims, phrase):
    for lib in (jax, sc):
        with pytest.raises(ValueError, match=phrase.replace("(", r"\(")):
            lib.lax.expand_dims(V3, dims)
