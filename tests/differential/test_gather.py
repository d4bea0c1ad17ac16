"""Differential: gather-based indexing against JAX (JAX rules §2.12) — `x[idx]`,
`x[:, idx]`, mixed integer/slice/array indices, `take`, `take_along_axis`,
`one_hot`, `out_sharding` (JAX's `.at[...].get(out_sharding=)`), the gather
error, unreduced/reduced operands, and gradients (the scatter-add transpose)
compared with `jax.grad`: accept/reject, `str(typeof)`, values, collectives."""
from __future__ import annotations

import jax
import numpy as np
import pytest
from oracle import Case, bind, check_types, check_values, param

import shardc as sc
from shardc import P

GATHER_ERR = ("Use `.at[...].get(out_sharding=)` to provide output PartitionSpec for the gather "
              "indexing as out sharding could not be resolved unambiguously")


def _is_jax(ns) -> bool:
    return ns.name == "jax"


def _get(out_sharding, **kw):
    """`x[idx]` with an out_sharding: JAX's `.at[idx].get(out_sharding=)`,
    shardc's `take(x, idx, axis=0, out_sharding=)`."""
    def fn(ns, x, i):
        if _is_jax(ns):
            return x.at[i].get(out_sharding=out_sharding(ns), mode="fill")
        return ns.take(x, i, axis=0, out_sharding=out_sharding(ns), **kw)
    return fn


def _ix(make_index):
    """`x[make_index(i)]`."""
    return lambda ns, x, i: x[make_index(i)]


C = Case
CASES = [
    # --- the §2.12 table -------------------------------------------------------------------------
    C("ref-x[:,idx]", "2d", _ix(lambda i: (slice(None), i)), ("f32[8@X,4]", "i32[4]")),
    C("ref-take-axis1", "2d", lambda ns, x, i: ns.take(x, i, axis=1), ("f32[8@X,4]", "i32[4]")),
    C("ref-take_along_axis", "2d", lambda ns, x, i: ns.take_along_axis(x, i, axis=1),
      ("f32[8@X,4]", "i32[8@X,2]")),
    C("ref-x[idx@X]", "2d", _ix(lambda i: i), ("f32[8,4]", "i32[8@X]"), phrase=GATHER_ERR),
    C("ref-embedding-idx@X", "2d", _ix(lambda i: i), ("f32[16,4@Y]", "i32[8@X]"), phrase=GATHER_ERR),
    C("ref-at-get-out_sharding", "2d", _get(lambda ns: ns.P("X")), ("f32[8,4]", "i32[8@X]")),
    C("ref-x[:,idx]-indexed-dim-sharded", "2d", _ix(lambda i: (slice(None), i)),
      ("f32[8@X,4@Y]", "i32[4]"), phrase=GATHER_ERR),
    C("ref-diagonal-like", "2d", _ix(lambda i: (i, i)), ("f32[4@X,4]", "i32[4]"), phrase=GATHER_ERR),
    C("ref-one_hot", "2d", lambda ns, x: ns.one_hot(x, 5), ("i32[8@X]",)),
    # --- take ---------------------------------------------------------------------------------------
    C("take-axis0-embedding", "2d", lambda ns, x, i: ns.take(x, i, axis=0), ("f32[16,4@Y]", "i32[8]")),
    C("take-axis0-2d-indices", "2d", lambda ns, x, i: ns.take(x, i, axis=0), ("f32[16,4@Y]", "i32[2,3]")),
    C("take-axis1-2d-indices", "2d", lambda ns, x, i: ns.take(x, i, axis=1), ("f32[8@X,4]", "i32[2,3]")),
    C("take-axis-1-3d", "3d", lambda ns, x, i: ns.take(x, i, axis=-1), ("f32[4@X,2@Y,8]", "i32[5]")),
    C("take-axis-None-replicated", "2d", lambda ns, x, i: ns.take(x, i), ("f32[8,4]", "i32[8]")),
    C("take-axis-None-sharded-reshape-error", "2d", lambda ns, x, i: ns.take(x, i),
      ("f32[8,4@Y]", "i32[8]")),
    C("take-sharded-indices", "2d", lambda ns, x, i: ns.take(x, i, axis=1), ("f32[8,4]", "i32[4@Y]"),
      phrase=GATHER_ERR),
    C("take-clip", "2d", lambda ns, x, i: ns.take(x, i, axis=1, mode="clip"), ("f32[8@X,4]", "i32[6]")),
    C("take-wrap", "2d", lambda ns, x, i: ns.take(x, i, axis=1, mode="wrap"), ("f32[8@X,4]", "i32[6]")),
    C("take-int-operand", "2d", lambda ns, x, i: ns.take(x, i, axis=0), ("i32[8,4@Y]", "i32[6]")),
    C("take-bf16-operand", "1d", lambda ns, x, i: ns.take(x, i, axis=1), ("bf16[8@X,4]", "i32[6]")),
    C("take-1d-mesh", "1d", lambda ns, x, i: ns.take(x, i, axis=1), ("f32[16@X,4]", "i32[3]")),
    # --- take_along_axis ------------------------------------------------------------------------------
    C("tal-replicated-operand-sharded-idx", "2d", lambda ns, x, i: ns.take_along_axis(x, i, axis=1),
      ("f32[8,4]", "i32[8@X,2]")),
    C("tal-batching-mismatch", "2d", lambda ns, x, i: ns.take_along_axis(x, i, axis=1),
      ("f32[8@X,4]", "i32[8@Y,2]"), phrase=GATHER_ERR),
    C("tal-axis0-batch-Y", "2d", lambda ns, x, i: ns.take_along_axis(x, i, axis=0),
      ("f32[8,4@Y]", "i32[2,4@Y]")),
    C("tal-broadcast-index-dim", "2d", lambda ns, x, i: ns.take_along_axis(x, i, axis=1),
      ("f32[8@X,4]", "i32[1,3]")),
    C("tal-axis-sharded", "2d", lambda ns, x, i: ns.take_along_axis(x, i, axis=1),
      ("f32[8,4@Y]", "i32[8,2]"), phrase=GATHER_ERR),
    C("tal-3d", "3d", lambda ns, x, i: ns.take_along_axis(x, i, axis=-1),
      ("f32[4@X,2@Y,8]", "i32[4@X,2@Y,3]")),
    # --- one_hot --------------------------------------------------------------------------------------
    C("one_hot-2d-x", "2d", lambda ns, x: ns.one_hot(x, 3), ("i32[8@X,4@Y]",)),
    C("one_hot-axis0", "2d", lambda ns, x: ns.one_hot(x, 4, axis=0), ("i32[8@X]",)),
    C("one_hot-bf16", "2d", lambda ns, x: ns.one_hot(x, 5, dtype=ns.bfloat16), ("i32[8@(X,Y)]",)),
    # --- integer-array indexing --------------------------------------------------------------------------
    C("ix-x[i]-replicated", "2d", _ix(lambda i: i), ("f32[8,4]", "i32[3]")),
    C("ix-x[i]-cols-sharded", "2d", _ix(lambda i: i), ("f32[8,4@Y]", "i32[5]")),
    C("ix-x[i,i]", "2d", _ix(lambda i: (i, i)), ("f32[8,4]", "i32[3]")),
    C("ix-x[i,1:3]", "2d", _ix(lambda i: (i, slice(1, 3))), ("f32[8,4]", "i32[3]")),
    C("ix-x[1:3,i]-sharded-partial-slice", "2d", _ix(lambda i: (slice(1, 3), i)),
      ("f32[8@X,4]", "i32[3]"), phrase=GATHER_ERR),
    C("ix-x[::2,i]", "2d", _ix(lambda i: (slice(None, None, 2), i)), ("f32[8,4]", "i32[3]")),
    C("ix-x[i,None]", "2d", _ix(lambda i: (i, None)), ("f32[8,4@Y]", "i32[3]")),
    C("ix-x[i,0]-Y-sharded", "2d", _ix(lambda i: (i, 0)), ("f32[8,4@Y]", "i32[3]"), phrase=GATHER_ERR),
    C("ix-x[0,i]-X-sharded", "2d", _ix(lambda i: (0, i)), ("f32[8@X,4]", "i32[3]"), phrase=GATHER_ERR),
    C("ix-x[i,:,i]-noncontiguous", "2d", _ix(lambda i: (i, slice(None), i)), ("f32[8,4@Y,8]", "i32[3]")),
    C("ix-x[:,i,1]", "2d", _ix(lambda i: (slice(None), i, 1)), ("f32[8@X,4,8]", "i32[3]")),
    C("ix-x[:,i2d]", "2d", _ix(lambda i: (slice(None), i)), ("f32[8@X,4]", "i32[2,3]")),
    C("ix-x[:,i2d@Y]", "2d", _ix(lambda i: (slice(None), i)), ("f32[8@X,4]", "i32[2,4@Y]"),
      phrase=GATHER_ERR),
    C("ix-x[i2d@X]", "2d", _ix(lambda i: i), ("f32[8,4@Y]", "i32[2@X,4]"), phrase=GATHER_ERR),
    C("ix-x[:,i]-int8", "2d", _ix(lambda i: (slice(None), i)), ("f32[8@X,4]", "i8[4]")),
    C("ix-x[:,i]-uint8", "2d", _ix(lambda i: (slice(None), i)), ("f32[8@X,4]", "u8[4]")),
    C("ix-x[...,i]", "3d", _ix(lambda i: (Ellipsis, i)), ("f32[4@X,2@Y,8]", "i32[3]")),
    C("ix-x[i,...]", "3d", _ix(lambda i: (i, Ellipsis)), ("f32[8,2@Y,4@Z]", "i32[3]")),
    C("ix-x[None,:,i]", "2d", _ix(lambda i: (None, slice(None), i)), ("f32[8@X,4]", "i32[3]")),
    C("ix-x[i,...,0]", "2d", _ix(lambda i: (i, Ellipsis, 0)), ("f32[8,4,2@X]", "i32[3]"),
      phrase=GATHER_ERR),
    C("ix-x[i,::2]", "2d", _ix(lambda i: (i, slice(None, None, 2))), ("f32[8,4@Y]", "i32[3]"),
      phrase=GATHER_ERR),
    C("ix-x[i,:]-full-slice-sharded", "2d", _ix(lambda i: (i, slice(None))), ("f32[8,4@Y]", "i32[3]")),
    C("ix-const-index-list", "2d", lambda ns, x: x[:, [0, 3, -1]], ("f32[8@X,4]",)),
    C("ix-const-index-ndarray", "2d", lambda ns, x: x[np.array([[1, 2], [0, 7]])], ("f32[8,4@Y]",)),
    C("ix-bool-operand", "2d", _ix(lambda i: (slice(None), i)), ("bool[8@X,4]", "i32[4]")),
    # --- out_sharding -----------------------------------------------------------------------------------
    C("out-idx-sharded-to-replicated", "2d", _get(lambda ns: ns.P()), ("f32[8,4]", "i32[8@X]")),
    C("out-embedding", "2d", _get(lambda ns: ns.P("X", "Y")), ("f32[16,4@Y]", "i32[8@X]")),
    C("out-operand-rows-sharded", "2d", _get(lambda ns: ns.P(None, "Y")), ("f32[8@X,4@Y]", "i32[6]")),
    C("out-reduced-operand", "2d", _get(lambda ns: ns.P("X")), ("f32[8,4]{R:X}", "i32[8]")),
    C("out-unreduced-result", "2d", _get(lambda ns: ns.P(unreduced={"X"})), ("f32[8,4]", "i32[8]")),
    C("out-indivisible", "2d", _get(lambda ns: ns.P("Y")), ("f32[8,4]", "i32[6]")),
    C("out-duplicate-axes", "2d", _get(lambda ns: ns.P("X", "X")), ("f32[8,4]", "i32[8]")),
    # --- unreduced / reduced operands (JAX 0.10.2: `Using *pspec is dangerous`) ---------------------------
    C("ur-reduced-operand", "2d", _ix(lambda i: i), ("f32[8,4]{R:X}", "i32[8]")),
    C("ur-unreduced-operand", "2d", _ix(lambda i: i), ("f32[8,4]{U:X}", "i32[8]")),
    C("ur-take-reduced", "2d", lambda ns, x, i: ns.take(x, i, axis=1), ("f32[8,4]{R:Y}", "i32[3]")),
]

#: cases also compiled and run on both sides (values and collectives)
RUN = {"ref-x[:,idx]", "ref-take-axis1", "ref-take_along_axis", "ref-at-get-out_sharding", "ref-one_hot",
       "take-axis0-embedding", "take-axis1-2d-indices", "take-axis-1-3d", "take-axis-None-replicated",
       "take-clip", "take-wrap", "take-int-operand", "take-bf16-operand", "tal-replicated-operand-sharded-idx",
       "tal-axis0-batch-Y", "tal-broadcast-index-dim", "tal-3d", "one_hot-2d-x", "one_hot-axis0",
       "ix-x[i,i]", "ix-x[i,1:3]", "ix-x[::2,i]", "ix-x[i,None]", "ix-x[i,:,i]-noncontiguous",
       "ix-x[:,i2d]", "ix-x[...,i]", "ix-x[:,i]-int8", "ix-x[:,i]-uint8", "one_hot-bf16", "ix-const-index-list", "ix-const-index-ndarray", "ix-bool-operand",
       "out-idx-sharded-to-replicated", "out-embedding", "out-operand-rows-sharded", "out-reduced-operand"}


@param(CASES)
def test_gather_types(case):
    check_types(case)


@param([c for c in CASES if c.id in RUN])
def test_gather_values(case):
    check_values(case)


def test_run_set_names_cases():
    assert RUN <= {c.id for c in CASES}


# --- gradients: the scatter-add transpose against jax.grad ---------------------------------------------
def _grad(ns):
    return jax.grad if _is_jax(ns) else sc.grad


def _loss_grad(f):
    """∂/∂x of sum(f(x, i)**2)."""
    return lambda ns, x, i: _grad(ns)(lambda x: (f(ns, x, i) ** 2).sum())(x)


GRAD_CASES = [
    C("grad-take-axis1", "2d", _loss_grad(lambda ns, x, i: ns.take(x, i, axis=1)), ("f32[8@X,4]", "i32[6]")),
    C("grad-embedding", "2d", _loss_grad(lambda ns, x, i: ns.take(x, i, axis=0)), ("f32[16,4@Y]", "i32[8]")),
    C("grad-x[:,i]", "2d", _loss_grad(lambda ns, x, i: x[:, i]), ("f32[8@X,4]", "i32[6]")),
    C("grad-x[i,1:3]", "2d", _loss_grad(lambda ns, x, i: x[i, 1:3]), ("f32[8,4]", "i32[3]")),
    C("grad-x[i,:,i]", "2d", _loss_grad(lambda ns, x, i: x[i, :, i]), ("f32[8,4@Y,8]", "i32[3]")),
    C("grad-take_along_axis", "2d", _loss_grad(lambda ns, x, i: ns.take_along_axis(x, i, axis=1)),
      ("f32[8@X,4]", "i32[8@X,2]")),
    C("grad-tal-3d", "3d", _loss_grad(lambda ns, x, i: ns.take_along_axis(x, i, axis=-1)),
      ("f32[4@X,2@Y,8]", "i32[4@X,2@Y,3]")),
    C("grad-take-clip", "2d", _loss_grad(lambda ns, x, i: ns.take(x, i, axis=1, mode="clip")),
      ("f32[8@X,4]", "i32[6]")),
    C("grad-out_sharding", "2d", _loss_grad(_get(lambda ns: ns.P("X"))), ("f32[8,4]", "i32[8@X]")),
    # JAX: the scatter-add lays the cotangent out as [8@X,4], the operand is [8,4]: rejected
    C("grad-tal-replicated-operand", "2d",
      _loss_grad(lambda ns, x, i: ns.take_along_axis(x, i, axis=1)), ("f32[8,4]", "i32[8@X,2]")),
]

GRAD_RUN = {"grad-take-axis1", "grad-embedding", "grad-x[i,1:3]", "grad-take_along_axis", "grad-tal-3d",
            "grad-take-clip", "grad-out_sharding", "grad-x[i,:,i]"}


# --- the scatter-add primitive against `lax.scatter_add` (its own sharding rule) ---------------------------
def _scatter(update_window_dims, inserted_window_dims, to_operand, op_batch=(), idx_batch=()):
    def fn(ns, x, i, u):
        if _is_jax(ns):
            d = jax.lax.ScatterDimensionNumbers(update_window_dims, inserted_window_dims, to_operand,
                                                op_batch, idx_batch)
            return jax.lax.scatter_add(x, i, u, d)
        from shardc.primitives import gather as gp
        d = gp.ScatterDimensionNumbers(update_window_dims, inserted_window_dims, to_operand, op_batch,
                                       idx_batch)
        return bind(gp.scatter_add, x, i, u, dimension_numbers=d, mode="fill", out_sharding=None)
    return fn


SCATTER_ERR = ("Use `.at[...].set/add/mul/...(out_sharding=)` to provide output PartitionSpec for the "
               "scatter update as out sharding could not be resolved unambiguously")
SCATTER_CASES = [
    C("scatter-cols-into-rows-sharded", "2d", _scatter((0,), (1,), (1,)),
      ("f32[8@X,4]", "i32[3,1]", "f32[8@X,3]")),
    C("scatter-row-into-sharded-rows", "2d", _scatter((0,), (0,), (0,)),
      ("f32[8@X,4@Y]", "i32[1]", "f32[4@Y]"), phrase=SCATTER_ERR),
    C("scatter-sharded-queries", "2d", _scatter((1,), (0,), (0,)),
      ("f32[16,4@Y]", "i32[8@X,1]", "f32[8@X,4@Y]"), phrase=SCATTER_ERR),
    C("scatter-batched", "2d", _scatter((), (1,), (1,), (0,), (0,)),
      ("f32[8,4]", "i32[8@X,2,1]", "f32[8@X,2]")),
    C("scatter-window-spec-mismatch", "2d", _scatter((1,), (0,), (0,)),
      ("f32[8,4@Y]", "i32[3,1]", "f32[3,4@X]"), phrase=SCATTER_ERR),
    C("scatter-replicated", "1d", _scatter((1,), (0,), (0,)), ("f32[8,4]", "i32[5,1]", "f32[5,4]")),
]


@param(SCATTER_CASES)
def test_scatter_add_types(case):
    check_types(case)


@param([c for c in SCATTER_CASES if c.phrase is None])
def test_scatter_add_values(case):
    check_values(case)


@param(GRAD_CASES)
def test_gather_grad_types(case):
    check_types(case)


@param([c for c in GRAD_CASES if c.id in GRAD_RUN])
def test_gather_grad_values(case):
    check_values(case)


# --- shardc-only behaviour -------------------------------------------------------------------------------
def test_gather_error_names_line_and_fix(mesh24):
    x = sc.device_put(np.ones((8, 4), np.float32), P())
    i = sc.device_put(np.arange(8, dtype=np.int32), P("X"))
    with pytest.raises(sc.ShardingTypeError) as e:
        x[i]
    msg = str(e.value)
    assert "test_gather.py" in msg and GATHER_ERR in msg and "out_sharding=" in msg
    assert "sc.take" in msg  # the shardc spelling of the fix


def test_eager_indexing_values(mesh24):
    host = np.arange(32, dtype=np.float32).reshape(8, 4)
    x = sc.device_put(host, P("X"))
    i = np.array([3, -1, 0])
    np.testing.assert_array_equal(np.asarray(x[:, i]), host[:, i])
    np.testing.assert_array_equal(np.asarray(x[:, sc.device_put(i.astype(np.int32), P())]), host[:, i])
    np.testing.assert_array_equal(np.asarray(sc.take(x, [1, 5], axis=1)),
                                  np.array([host[:, 1], np.full(8, np.nan)]).T)
    assert str(sc.typeof(x[:, i])) == "float32[8@X,3]"


def test_unreduced_out_sharding_value(mesh24):
    """`out_sharding=P(unreduced=...)`: the type is JAX's (`float32[8,4]{U:X}`) and
    the logical value is the gather's. (JAX 0.10.2 returns twice the value here:
    its auto_axes result keeps the whole value on both X devices yet calls it
    unreduced, so the reduction double-counts; shardc gathers, then reshards
    replicated → unreduced, which keeps the value on one device of each group.)"""
    host = np.arange(32, dtype=np.float32).reshape(8, 4)
    x = sc.device_put(host, P())
    i = np.array([7, 0, 3, 3, 1, 2, 6, 5], np.int32)
    r = sc.take(x, sc.device_put(i, P()), axis=0, out_sharding=P(unreduced={"X"}))
    assert str(sc.typeof(r)) == "float32[8,4]{U:X}"
    np.testing.assert_array_equal(np.asarray(r), host[i])
    np.testing.assert_array_equal(np.asarray(sc.reshard(r, P())), host[i])


def test_unsupported_indices_are_clear_errors(mesh24):
    x = sc.device_put(np.ones((8, 4), np.float32), P("X"))
    with pytest.raises(IndexError, match="Array boolean indices must be concrete"):  # as JAX's
        sc.jit(lambda x, m: x[m])(x, sc.device_put(np.array([True, False] * 4), P()))
    with pytest.raises(sc.ShardcTypeError, match="non-tuple sequence"):
        x[[0, 1]]
    with pytest.raises(sc.ShardcTypeError, match="integer or boolean type"):
        x[:, np.array([0.5, 1.0])]
    with pytest.raises(sc.ShardcValueError, match="could not be broadcast"):
        x[np.array([0, 1]), np.array([0, 1, 2])]


def test_gather_and_scatter_lowering_verifies(mesh24):
    """Both primitives appear in the StableHLO, which jaxlib's parser verifies."""
    def f(x, i):
        return sc.grad(lambda x: (sc.take(x, i, axis=1) ** 2).sum())(x)
    lowered = sc.jit(f).lower("f32[8@X,4]", "i32[6]")
    text = lowered.as_text()
    assert '"stablehlo.gather"' in text and '"stablehlo.scatter"' in text
    from shardc.emit.verify import verify_module
    verify_module(text)


# --- lax.gather's dimension-number and index checks: JAX's `_gather_shape_rule`, in its order and words -------
_G = jax.lax.GatherDimensionNumbers
GATHER_DNUMS_BAD = [
    ("offset-unsorted", _G((1, 0), (), (0, 1)), "i32[1,2]", (1, 1, 4)),
    ("offset-repeat", _G((1, 1), (0,), (0,)), "i32[1,1]", (1, 3, 4)),
    ("offset-out-of-bounds", _G((1, 5), (0,), (0,)), "i32[1,1]", (1, 3, 4)),
    ("start-index-map-length", _G((1, 2), (0,), (0, 1)), "i32[1,1]", (1, 3, 4)),
    ("start-index-map-domain", _G((1, 2), (0,), (5,)), "i32[1,1]", (1, 3, 4)),
    ("start-index-map-repeat", _G((1, 2), (0,), (0, 0)), "i32[1,2]", (1, 3, 4)),
    ("collapsed-unsorted", _G((2,), (1, 0), (0, 1)), "i32[1,2]", (1, 1, 4)),
    ("collapsed-repeat", _G((1,), (0, 0), (0,)), "i32[1,1]", (1, 3, 4)),
    ("collapsed-range", _G((1, 2), (5,), (0,)), "i32[1,1]", (1, 3, 4)),
    ("batching-disjoint", _G((1, 2), (), (0,), operand_batching_dims=(0,), start_indices_batching_dims=(0,)),
     "i32[2,1]", (1, 3, 4)),
    ("batching-shape", _G((1, 2), (), (1,), operand_batching_dims=(0,), start_indices_batching_dims=(1,)),
     "i32[2,1]", (1, 1, 4)),
    ("slice-sizes-rank", _G((1,), (0,), (0,)), "i32[1,1]", (1, 3)),
    ("slice-sizes-components", _G((1, 2), (), (0,)), "i32[1,1]", (1, 3, 4)),
    ("slice-size-range", _G((1, 2), (0,), (0,)), "i32[1,1]", (1, 3, 9)),
    ("collapse-bound", _G((1, 2), (0,), (0,)), "i32[1,1]", (2, 3, 4)),
    ("float-indices", _G((1, 2), (0,), (0,)), "f32[1,1]", (1, 3, 4)),
    ("rank-0-indices", _G((1, 2), (0,), (0,)), "i32[]", (1, 3, 4)),
]
GATHER_BAD_CASES = [Case(f"gather-{name}", "1d", lambda ns, x, i, dn=dn, ss=ss: ns.lax.gather(x, i, dn, ss),
                         ("f32[2,3,4]", idx), expect="reject")
                    for name, dn, idx, ss in GATHER_DNUMS_BAD]


@param(GATHER_BAD_CASES)
def test_gather_dimension_number_errors(case):
    check_types(case)
