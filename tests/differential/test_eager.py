"""Differential: ops applied eagerly to arrays (outside any program) give the
same types, errors and values as JAX's eager ops (JAX rules §1.4: the rules
are identical eagerly and under `jit`)."""
from __future__ import annotations

import numpy as np
from oracle import Case, check_eager, check_types, compare, param, run_jax, run_sc

EAGER = [
    Case("eager-sin-2d", "2d", lambda ns, x: ns.sin(x), ("f32[8@X,4@Y]",)),
    Case("eager-T-2d", "2d", lambda ns, x: x.T, ("f32[8@X,4@Y]",)),
    Case("eager-add-bcast-2d", "2d", lambda ns, x, y: x + y, ("f32[8@X,4]", "f32[4@Y]")),
    Case("eager-add-conflict-2d", "2d", lambda ns, x, y: x * y, ("f32[8@X,4@Y]", "f32[8@Y,4@X]")),
    Case("eager-scalar-weak-2d", "2d", lambda ns, x: (x * 2 + 1.5) > 0, ("i32[8@X,4@Y]",)),
    Case("eager-sum0-3d", "3d", lambda ns, x: x.sum(0), ("f32[8@(X,Y),4@Z]",)),
    Case("eager-argmax-2d", "2d", lambda ns, x: ns.argmax(x, axis=1), ("f32[8@X,4@Y]",)),
    Case("eager-matmul-2d", "2d", lambda ns, x, w: x @ w, ("f32[8@X,4]", "f32[4,16@Y]")),
    Case("eager-matmul-ambiguous-2d", "2d", lambda ns, x, w: ns.dot(x, w), ("f32[8,4@X]", "f32[4@X,16]")),
    Case("eager-dot-unreduced-2d", "2d", lambda ns, x, w: ns.dot(x, w, out_sharding=ns.P(unreduced={"X"})),
         ("f32[8,4@X]", "f32[4@X,16]")),
    Case("eager-reshape-2d", "2d", lambda ns, x: ns.reshape(x, (2, 4, 4)), ("f32[8@X,4@Y]",)),
    Case("eager-reshape-bad-2d", "2d", lambda ns, x: ns.reshape(x, (4, 8)), ("f32[8@X,4@Y]",)),
    Case("eager-reshard-1d", "1d", lambda ns, x: ns.reshard(x, ns.P(None, "X")), ("f32[8@X,8]",)),
    Case("eager-slice-unsharded-2d", "2d", lambda ns, x: x[:, 0:2], ("f32[8@X,4]",)),
    Case("eager-zeros-2d", "2d", lambda ns: ns.zeros((8, 4), out_sharding=ns.P("X", "Y"))),
    Case("eager-zeros_like-2d", "2d", lambda ns, x: ns.zeros_like(x), ("bf16[8@X,4@Y]",)),
    Case("eager-zeros_like-shape-2d", "2d", lambda ns, x: ns.zeros_like(x, shape=(8, 4)), ("f32[8@X,4@Y]",)),
    Case("eager-full_like-newshape-2d", "2d", lambda ns, x: ns.full_like(x, 1, shape=(4,)), ("f32[8@X,4@Y]",)),
    Case("eager-where-2d", "2d", lambda ns, x: ns.where(x > 0, x, 0.0), ("f32[8@X,4@Y]",)),
    Case("eager-softmax-3d", "3d", lambda ns, x: ns.softmax(x, axis=0), ("f32[8@X,4@(Y,Z)]",)),
    Case("eager-cumsum-2d", "2d", lambda ns, x: ns.cumsum(x, axis=1), ("i32[8@X,4]",)),
    Case("eager-R-times-2-2d", "2d", lambda ns, x: x * 2, ("f32[8,4]{R:X}",)),
    Case("eager-astype-2d", "2d", lambda ns, x: x.astype(np.int32), ("f32[8@X,4@Y]",)),
    Case("eager-concat-2d", "2d", lambda ns, x: ns.concatenate([x, x], axis=1), ("f32[8@X,4@Y]",)),
]


@param(EAGER)
def test_eager(case):
    check_eager(case)


# JAX's eager `x[...]` passes the indices to a cached program as arguments, so
# slicing or indexing a sharded dim eagerly becomes a gather and fails with
# the gather rule, while the same expression under `jit` is a static slice.
# shardc keeps its promise that eager ops type like traced ones: its eager
# indexing agrees with JAX under `jit`. These cases pin both facts down.
EAGER_INDEXING = [
    Case("eager-slice-sharded-2d", "2d", lambda ns, x: x[0:2], ("f32[8@X,4@Y]",)),
    Case("eager-index-sharded-2d", "2d", lambda ns, x: x[0], ("f32[8@X,4@Y]",)),
    Case("eager-slice-sharded-3d", "3d", lambda ns, x: x[4:], ("f32[16@(X,Y),8@Z]",)),
]


@param(EAGER_INDEXING)
def test_eager_indexing_follows_jit(case):
    j_eager = run_jax(case, "eager")
    j_jit = run_jax(case, "trace")
    s_eager = run_sc(case, "eager")
    assert j_eager.error is not None and "gather indexing" in str(j_eager.error), j_eager.describe()
    # shardc's eager op answers as JAX does under jit
    compare(case, j_jit, s_eager)
    check_types(case)


def test_eager_creation_follows_the_context_mesh():
    """An eager op without array operands (`zeros`) is a cached one-op program: it must be typed
    on the mesh in force at each call, not reuse the one compiled under an earlier mesh (which
    made a later `.at[].set` fail with 'context mesh ... should match the aval mesh')."""
    import shardc as sc
    import shardc.numpy as snp
    m1, m2 = sc.make_mesh((2, 4), ("X", "Y")), sc.make_mesh((8,), ("X",))
    with sc.set_mesh(m1):
        a = snp.zeros(4)
    with sc.set_mesh(m2):
        b = snp.zeros(4)
        c = b.at[:3].set(1.0)
    assert a.sharding.mesh.axis_names == ("X", "Y") and b.sharding.mesh.axis_names == ("X",)
    assert str(sc.typeof(c)) == "float32[4]" and float(c.sum()) == 3.0
