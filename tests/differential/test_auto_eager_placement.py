"""Where eager ops on an all-Auto mesh leave their results, against JAX: XLA places them (the
types say nothing), so the program shardc runs must be JAX's. JAX runs an eager `slice` as a
`dynamic_slice` whose offsets are arguments (`_slice_impl`), which XLA places replicated along
the sliced dim; shardc ran a static slice, which keeps the operand's placement, so `x[:8]` came
back `P('data')` where JAX gives `P()` (and a jit declaring `P()` for it refused it)."""
from __future__ import annotations

import jax
import numpy as np
import pytest

import shardc as sc

OPS = {
    "x[:8]": lambda x: x[:8], "x[:16]": lambda x: x[:16], "x[8:24]": lambda x: x[8:24],
    "x[8:24, 1:3]": lambda x: x[8:24, 1:3], "x[:, :2]": lambda x: x[:, :2], "x[3]": lambda x: x[3],
    "x[-8:]": lambda x: x[-8:], "x * 2": lambda x: x * 2, "x.T": lambda x: x.T, "sum(0)": lambda x: x.sum(0),
    "reshape": lambda x: x.reshape(8, 16), "x[idx]": lambda x: x[np.array([0, 5, 9])],
}


def _placements(lib, spec):
    mesh = lib.make_mesh((2, 4), ("data", "model"), axis_types=(lib.sharding.AxisType.Auto,) * 2)
    with lib.set_mesh(mesh):
        x = lib.device_put(np.arange(128, dtype=np.float32).reshape(32, 4),
                           lib.sharding.NamedSharding(mesh, lib.sharding.PartitionSpec(*spec)))
        outs = {k: f(x) for k, f in OPS.items()}
        return {k: (str(v.sharding.spec), str(lib.typeof(v))) for k, v in outs.items()}, \
            {k: np.asarray(v) for k, v in outs.items()}


@pytest.mark.parametrize("spec", [("data",), ("data", "model"), (None, "model"), ()], ids=str)
def test_eager_results_placed_as_jax(spec):
    (jp, jv), (sp, sv) = _placements(jax, spec), _placements(sc, spec)
    assert sp == jp
    for k in OPS:
        np.testing.assert_array_equal(sv[k], jv[k], err_msg=k)
