"""JAX's collectives take pytrees: `lax.pmean(grads, 'data')` over a dict of gradients is how
data-parallel training is written. Every collective of `jax.lax` on a tuple, a dict with a nested
list and `None`, against JAX: each leaf's type, values, and the compiled program's collectives
(shardc's at most JAX's). shardc took one array only and failed on the container."""
from __future__ import annotations

import jax
import numpy as np
import pytest
from oracle.hlo import hlo_collectives

import shardc as sc

PERM = [(j, (j + 1) % 8) for j in range(8)]
OPS = {
    "psum": (lambda lax, t: lax.psum(t, "i"), "P()"),
    "pmax": (lambda lax, t: lax.pmax(t, "i"), "P()"),
    "pmin": (lambda lax, t: lax.pmin(t, "i"), "P()"),
    "pmean": (lambda lax, t: lax.pmean(t, "i"), "P()"),
    "all_gather": (lambda lax, t: lax.all_gather(t, "i", tiled=True), "P('i')"),
    "psum_scatter": (lambda lax, t: lax.psum_scatter(t, "i", tiled=True), "P('i')"),
    "ppermute": (lambda lax, t: lax.ppermute(t, "i", PERM), "P('i')"),
    "pshuffle": (lambda lax, t: lax.pshuffle(t, "i", [(j + 3) % 8 for j in range(8)]), "P('i')"),
    "all_to_all": (lambda lax, t: lax.all_to_all(t, "i", 0, 0, tiled=True), "P('i')"),
    "pcast": (lambda lax, t: lax.pcast(lax.psum(t, "i"), "i", to="varying"), "P('i')"),
}
TREES = {
    "tuple": lambda a: (a, a * 2.0),
    "dict": lambda a: {"w": a, "rest": [a + 1.0, None], "b": a[:, :1] * 3.0},
}


def _run(lib, op, tree):
    fn, out = OPS[op]
    mesh = lib.make_mesh((8,), ("i",), axis_types=(lib.sharding.AxisType.Explicit,))
    spec = lib.sharding.PartitionSpec
    with lib.set_mesh(mesh):
        x = lib.device_put(np.arange(128, dtype=np.float32).reshape(64, 2) / 10, spec("i"))
        body = lambda a: fn(lib.lax, TREES[tree](a))   # noqa: E731
        f = lib.jit(lib.shard_map(body, mesh=mesh, in_specs=spec("i"), out_specs=eval(out, {"P": spec})))
        res = f(x)
        leaves = jax.tree.leaves(res)
        text = f.lower(x).compile().as_text()
        return ([str(lib.typeof(v)) for v in leaves], [np.asarray(v) for v in leaves],
                jax.tree.structure(jax.tree.map(lambda _: 0, res)), hlo_collectives(text))


@pytest.mark.parametrize("tree", sorted(TREES))
@pytest.mark.parametrize("op", sorted(OPS))
def test_collective_of_a_pytree(op, tree):
    jt, jv, js, jc = _run(jax, op, tree)
    st, sv, ss, scc = _run(sc, op, tree)
    assert (st, ss) == (jt, js)
    for a, b in zip(sv, jv, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    assert all(scc.get(k, 0) <= n for k, n in jc.items()) and set(scc) <= set(jc), (scc, jc)


def test_pmean_of_gradients_in_data_parallel_training():
    """The data-parallel step: per-shard gradients of a dict of parameters, averaged by one pmean."""
    outs = []
    for lib in (jax, sc):
        mesh = lib.make_mesh((8,), ("data",), axis_types=(lib.sharding.AxisType.Explicit,))
        P = lib.sharding.PartitionSpec
        with lib.set_mesh(mesh):
            params = {"w": np.linspace(-1, 1, 8, dtype=np.float32).reshape(4, 2), "b": np.zeros(2, np.float32)}
            xs = lib.device_put(np.linspace(0, 1, 64, dtype=np.float32).reshape(16, 4), P("data"))

            def step(p, x):
                loss = lambda p: lib.numpy.mean(lib.numpy.tanh(x @ p["w"] + p["b"]) ** 2)   # noqa: E731
                return lib.lax.pmean(lib.grad(loss)(p), "data")
            g = lib.jit(lib.shard_map(step, mesh=mesh, in_specs=(P(), P("data")), out_specs=P()))(params, xs)
            outs.append({k: (str(lib.typeof(v)), np.asarray(v)) for k, v in g.items()})
    for k in outs[1]:
        assert outs[0][k][0] == outs[1][k][0]
        np.testing.assert_allclose(outs[1][k][1], outs[0][k][1], rtol=1e-5, atol=1e-7)
