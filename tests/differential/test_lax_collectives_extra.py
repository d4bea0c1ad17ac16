"""The jax.lax collectives shardc excludes because no CPU program can run them, JAX 0.10.2's
included (docs/lax.md "Excluded"): each exclusion's reason is checked here by running JAX on
this machine's CPU devices, so a JAX that gains a CPU lowering fails the test and the name
moves back to "not yet". `pbroadcast` (`collective_broadcast`): JAX registers its lowering for
GPU only, and XLA:CPU has no `collective-broadcast` either; `psend` / `precv`: JAX's CPU
lowering raises "only implemented on GPU"; `ragged_all_to_all`: JAX lowers it, XLA:CPU cannot
run the `ragged-all-to-all` opcode. The names stay out of `shardc.lax`."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax as jlax
from jax.sharding import AxisType
from jax.sharding import PartitionSpec as P

from shardc import lax as slax

CPU_ONLY_UNRUNNABLE = ("pbroadcast", "psend", "precv", "ragged_all_to_all")


@pytest.fixture(scope="module")
def jmesh():
    return jax.make_mesh((8,), ("x",), axis_types=(AxisType.Explicit,), devices=jax.devices("cpu")[:8])


def _run(mesh, body, x):
    with jax.set_mesh(mesh):
        xs = jax.device_put(x, P("x"))
        return jax.jit(jax.shard_map(body, out_specs=P("x")))(xs)


def _ragged(b):
    n = 8
    out = jnp.zeros_like(b)
    ones = jnp.ones((n,), jnp.int32)
    offsets = jnp.arange(n, dtype=jnp.int32) % b.shape[0]
    return jlax.ragged_all_to_all(b, out, offsets, ones, jnp.zeros((n,), jnp.int32) + jlax.axis_index("x"),
                                  ones, axis_name="x")


def _psend(b):
    jlax.psend(b, "x", [(0, 1)])
    return b


def _precv(b):
    return jlax.precv(jlax.create_token(), jax.ShapeDtypeStruct(b.shape, b.dtype), "x", [(0, 1)])


@pytest.mark.parametrize("name,body,error,phrase", [
    ("pbroadcast", lambda b: jlax.pbroadcast(b, "x", 2), NotImplementedError,
     "MLIR translation rule for primitive 'pbroadcast' not found for platform cpu"),
    ("psend", _psend, NotImplementedError, "psend is currently only implemented on GPU"),
    ("precv", _precv, NotImplementedError, "precv is currently only implemented on GPU"),
    ("ragged_all_to_all", _ragged, Exception, "HLO opcode `ragged-all-to-all` is not supported by XLA:CPU"),
])
def test_jax_cannot_run_it_on_cpu(jmesh, name, body, error, phrase):
    """The exclusion's reason, as JAX says it on CPU (jit of a shard_map over 8 CPU devices)."""
    x = np.arange(16, dtype=np.float32)
    with pytest.raises(error, match=phrase.replace("(", r"\(").replace("`", ".")):
        jax.block_until_ready(_run(jmesh, body, x))


def test_pbroadcast_fails_in_xla_cpu_too(jmesh):
    """Even with JAX's GPU lowering rule registered for CPU, XLA:CPU cannot run the op: no
    shardc lowering could run it on CPU either."""
    from jax._src.interpreters import mlir
    from jax._src.lax import parallel

    rules = mlir._platform_specific_lowerings["cpu"]
    had = parallel.pbroadcast_p in rules
    mlir.register_lowering(parallel.pbroadcast_p, parallel._pbroadcast_lowering, platform="cpu")
    try:
        with pytest.raises(Exception, match="HLO opcode `collective-broadcast` is not supported by XLA:CPU"):
            jax.block_until_ready(_run(jmesh, lambda b: jlax.pbroadcast(b, "x", 2), np.arange(16, dtype=np.float32)))
    finally:
        if not had:
            del rules[parallel.pbroadcast_p]


def test_excluded_names_are_not_in_shardc_lax():
    for name in CPU_ONLY_UNRUNNABLE:
        assert name not in slax.__all__ and hasattr(jlax, name), name
