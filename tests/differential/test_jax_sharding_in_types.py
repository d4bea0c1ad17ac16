"""JAX's `tests/pjit_test.py::ShardingInTypesTest` (tag jax-v0.10.2), ported to the oracle (issue 13 item 6).

Each table row is one of JAX's cases, rewritten as a program `fn(ns, *args)` run by JAX and by shardc
and compared by the harness (accept/reject with error class and key phrase, `typeof` of results and
of the values noted inside, and, in "jit" mode, values, output shardings and collectives). JAX's
parameter tables are kept as tables (same ids); where JAX's test also checks lowered text or
jaxprs (JAX internals), only the semantic part is ported. `tools/port_jax_tests.py` runs JAX's own
test methods against shardc; docs/jax_tests.md has its counts.
"""
from __future__ import annotations

import numpy as np
import pytest
from oracle import Case, MeshSpec, check, param, type_str

X2 = MeshSpec((2,), ("x",))
X4 = MeshSpec((4,), ("x",))
XY = MeshSpec((2, 2), ("x", "y"))
XY1 = MeshSpec((2, 1), ("x", "y"))
XYZ = MeshSpec((2, 2, 2), ("x", "y", "z"))
XY_AUTO = MeshSpec((2, 2), ("x", "y"), "AA")
XY_EA = MeshSpec((2, 2), ("x", "y"), "EA")


def T(shape, spec=(), dt: str = "f32", u=(), r=()) -> str:
    return type_str(dt, shape, spec, u, r)


def P(ns, spec):
    """A spec written as a tuple (None entries, names, tuples of names) as `ns.P`."""
    if spec is None:
        return None
    return ns.P(*spec)


# --- elementwise (test_basic_mul, test_fully_replicated_array_mul, test_sin_unop, test_integer_pow) ----
def _basic_mul(ns, x):
    x = ns.note(x * 2)
    return ns.note(x * x)


ELEMENTWISE = [
    Case("basic_mul", XY, _basic_mul, (T((8, 2), ("x", "y")),), mode="jit"),
    Case("basic_mul_grad", XY, lambda ns, x: ns.grad(lambda a: ns.sum(_basic_mul(ns, a)))(x),
         (T((8, 2), ("x", "y")),), mode="jit"),
    Case("fully_replicated_mul_row", XY, lambda ns, x, y: x * y, (T((8, 2), ("x", "y"), "i32"), T((1, 2), (), "i32")),
         mode="jit"),
    Case("fully_replicated_mul_same", XY, lambda ns, x, y: x * y,
         (T((8, 2), ("x", "y"), "i32"), T((8, 2), ("x", "y"), "i32")), mode="jit"),
    Case("mul_incompatible_yx", XY, lambda ns, x, y: x * y,
         (T((8, 2), ("x", "y"), "i32"), T((8, 2), ("y", "x"), "i32")), expect="reject",
         phrase="mul got incompatible shardings for broadcasting"),
    Case("mul_incompatible_xy_first", XY, lambda ns, x, y: x * y,
         (T((8, 2), ("x", "y"), "i32"), T((8, 2), (("x", "y"),), "i32")), expect="reject",
         phrase="mul got incompatible shardings for broadcasting"),
    Case("sin_unop", XY, lambda ns, x: ns.note(ns.sin(x)), (T((8, 2), ("x", "y")),), mode="jit"),
    *[Case(f"integer_pow_{p}", XY, (lambda p: lambda ns, x: x ** p)(p), (T((8, 2), ("x", "y")),), mode="jit")
      for p in (2, 3, 4)],
    Case("where_with_scalar", XY, lambda ns, x: ns.where(x > 0, x, 0), (T((8, 2), ("x", "y")),), mode="jit"),
    Case("select", XY, lambda ns, p, x, y: ns.lax.select(p, x, y),
         (T((8, 2), ("x", "y"), "bool"), T((8, 2), ("x", "y")), T((8, 2), ("x", "y"))), mode="jit"),
    Case("select_mismatch", XY, lambda ns, p, x, y: ns.lax.select(p, x, y),
         (T((8, 2), ("x", "y"), "bool"), T((8, 2), ("x", "y")), T((8, 2), ("y", "x")))),
]


# --- dot_general (test_dot_general, test_dot_general_error, test_dot_general_batch_error) ----------------
DOT_OK = [("x_y", ("x", None), (None, "y")), ("x_None", ("x", None), (None, None)),
          ("contracting2", ("x", "y"), (None, None)), ("fsdp", ("x", None), ("x", None)),
          ("half_tp", (None, "y"), (None, "y"))]
DOT_ERR = [("fail1", ("x", None), (None, "x"), "produces an illegally sharded result"),
           ("fail2", ("x", "y"), ("x", "y"), "dot_general requires contracting dimensions to have consistent sharding"),
           ("contracting1", ("x", "y"), ("y", None), "Contracting dimensions are sharded"),
           ("other_half_tp", (None, "y"), ("y", None), "Contracting dimensions are sharded")]


def _matmul_grad(ns, x, y):
    return ns.grad(lambda a, b: ns.sum(a @ b), argnums=(0, 1))(x, y)


DOT = [
    *[Case(f"dot_general_{n}", XY, lambda ns, x, y: x @ y, (T((8, 2), a), T((2, 8), b)), mode="jit")
      for n, a, b in DOT_OK],
    *[Case(f"dot_general_{n}_grad", XY, _matmul_grad, (T((8, 2), a), T((2, 8), b))) for n, a, b in DOT_OK],
    *[Case(f"dot_general_error_{n}", XY, lambda ns, x, y: x @ y, (T((8, 2), a, "i32"), T((2, 8), b, "i32")),
           expect="reject", kind="ShardingTypeError", phrase=ph) for n, a, b, ph in DOT_ERR],
    Case("dot_general_batch_error", MeshSpec((2, 2, 1), ("x", "y", "z")),
         lambda ns, x, y: ns.lax.dot_general(x, y, (([2], [1]), ([0], [0]))),
         (T((8, 4, 2), ("x", "y", "z")), T((8, 2, 4), ("y", "z", "x"))), expect="reject", kind="ShardingTypeError",
         phrase="dot_general requires lhs batch dimensions and rhs batch dimensions to have the consistent sharding"),
    Case("einsum_batch_error", MeshSpec((2, 2, 1), ("x", "y", "z")),
         lambda ns, x, y: ns.einsum("abc,acz->abz", x, y),
         (T((8, 4, 2), ("x", "y", "z")), T((8, 2, 4), ("y", "z", "x"))), expect="reject", kind="ShardingTypeError"),
    Case("dot_general_out_sharding_einsum", X4,
         lambda ns, x, y: ns.sum(ns.note(ns.einsum("xy,yz->xz", x, y, out_sharding=ns.P("x", None)))),
         (T((8, 2), ("x", None)), T((2, 8), (None, "x"))), mode="jit"),
    Case("einsum_out_sharding_auto_axis_error", X4,
         lambda ns, x, y: ns.auto_axes(lambda a, b: ns.einsum("xy,yz->xz", a, b, out_sharding=ns.P("x", None)),
                                       out_sharding=ns.P())(x, y),
         (T((8, 2), ("x", None)), T((2, 8), (None, "x"))), expect="reject",
         phrase="PartitionSpec passed to einsum cannot contain axis names that are of type Auto or Manual"),
    Case("einsum_with_out_sharding", XY, lambda ns, x, y: ns.einsum("xy,yz->xz", x, y, out_sharding=ns.P("x", "y")),
         (T((8, 2), ("x", None)), T((2, 8), (None, "y"))), mode="jit"),
    Case("jnp_dot", XY, lambda ns, x, y: ns.dot(x, y), (T((8, 2), ("x", None)), T((2, 4), (None, "y"))), mode="jit"),
    Case("jnp_matmul", XY, lambda ns, x, y: ns.matmul(x, y), (T((8, 2), ("x", None)), T((2, 4), (None, "y"))),
         mode="jit"),
    Case("jnp_tensordot", XY, lambda ns, x, y: ns.tensordot(x, y, axes=1),
         (T((8, 2), ("x", None)), T((2, 4), (None, "y"))), mode="jit"),
    Case("jnp_matmul_out_sharding_3d", XY, lambda ns, x, y: ns.matmul(x, y, out_sharding=ns.P("x", None, "y")),
         (T((2, 8, 4), ("x", None, None)), T((2, 4, 8), ("x", None, "y")))),
]


# --- reductions (test_reduce_sum, test_reduce_max, test_argminmax, test_cumsum) -------------------------------
REDUCE = [("all", None, ("x", "y")), ("first", 0, ("x", "y")), ("second", 1, ("x", "y")),
          ("first2", 0, (("x", "y"), None)), ("second2", 1, (("x", "y"), None))]
REDUCTIONS = [
    *[Case(f"reduce_{op}_{n}", XY, (lambda op, ax: lambda ns, x: getattr(ns, op)(x, axis=ax))(op, ax),
           (T((8, 4), spec),), mode="jit")
      for op in ("sum", "max") for n, ax, spec in REDUCE],
    *[Case(f"reduce_max_grad_{n}", XY, (lambda ax: lambda ns, x: ns.grad(lambda a: ns.sum(ns.max(a, axis=ax)))(x))(ax),
           (T((8, 4), spec),)) for n, ax, spec in REDUCE[:3]],
    *[Case(f"argminmax_{op}_{ax}", XY, (lambda op, ax: lambda ns, x: getattr(ns, op)(x, axis=ax))(op, ax),
           (T((8, 4), ("x", "y")),), mode="jit") for op in ("argmax", "argmin") for ax in (0, 1)],
    Case("cumsum", XY, lambda ns, x: ns.cumsum(x, axis=1), (T((8, 4), ("x", None)),), mode="jit"),
    Case("cumsum_sharded_axis", XY, lambda ns, x: ns.cumsum(x, axis=0), (T((8, 4), ("x", None)),)),
]


# --- broadcasting and shape ops ------------------------------------------------------------------------
BCAST = [("0", 0, (None, "x", "y")), ("1", 1, ("x", None, "y")), ("2", 2, ("x", "y", None)), ("-1", -1, ("x", "y", None))]
SHAPE = [
    *[Case(f"broadcast_in_dim_{n}", XY, (lambda ax: lambda ns, x: ns.note(ns.expand_dims(x, ax)) * 2)(ax),
           (T((8, 4), ("x", "y")),), mode="jit") for n, ax, _ in BCAST],
    Case("broadcast_to", XY, lambda ns, x: ns.broadcast_to(x, (4, 8, 4)), (T((8, 4), ("x", "y")),), mode="jit"),
    Case("lax_transpose", XY, lambda ns, x: ns.lax.transpose(x, (1, 0)), (T((8, 4), ("x", "y")),), mode="jit"),
    Case("transpose_grad", XY, lambda ns, x: ns.grad(lambda a: ns.sum(ns.sin(a.T)))(x), (T((8, 4), ("x", "y")),)),
    Case("slice", XY, lambda ns, x: ns.lax.slice(x, (0, 0), (4, 2)), (T((8, 4), (None, "y")),), mode="jit"),
    Case("slice_sharded_error", XY, lambda ns, x: ns.lax.slice(x, (0, 0), (3, 4)), (T((8, 4), ("x", None)),)),
    Case("squeeze", XY, lambda ns, x: ns.squeeze(x, axis=1), (T((8, 1, 4), ("x", None, "y")),), mode="jit"),
    Case("pad", XY, lambda ns, x: ns.pad(x, ((0, 0), (2, 2))), (T((8, 4), ("x", None)),), mode="jit"),
    Case("pad_sharded_error", XY, lambda ns, x: ns.pad(x, ((1, 1), (0, 0))), (T((8, 4), ("x", None)),)),
    Case("concatenate", XY, lambda ns, x, y: ns.concatenate([x, y], axis=1),
         (T((8, 2), ("x", None)), T((8, 2), ("x", None))), mode="jit"),
    Case("concatenate_mismatch", XY, lambda ns, x, y: ns.concatenate([x, y], axis=1),
         (T((8, 2), ("x", None)), T((8, 2), ("y", None)))),
    Case("split", XY, lambda ns, x: ns.split(x, [2], axis=1), (T((8, 4), ("x", None)),), mode="jit"),
    Case("split_sharded_axis", XY, lambda ns, x: ns.split(x, [2], axis=0), (T((8, 4), ("x", None)),)),
    Case("stack", XY, lambda ns, x, y: ns.stack([x, y], axis=1), (T((8, 4), ("x", "y")), T((8, 4), ("x", "y"))),
         mode="jit"),
    Case("jnp_ravel", XY, lambda ns, x: ns.ravel(x), (T((8, 4), ("x", None)),), mode="jit"),
    Case("fully_replicated_reshape", XY, lambda ns, x: ns.lax.reshape(ns.reshard(x, ns.P(None, None)), (2, 16, 1)),
         (T((8, 4), ("x", "y")),), mode="jit"),
]


# --- reshape (test_reshape, test_reshape_split_merge_one_axis) ------------------------------------------------
RESHAPE = [((16, 1), (1, 16, 1), ("x", None), (None, "x", None), False),
           ((8, 2, 1), (1, 16, 1), ("x", None, None), (None, "x", None), True),
           ((8, 1), (1, 4, 2), ("x", None), (None, None, "x"), True),
           ((1, 4, 1, 6, 1), (1, 4, 6), (None, "x", None, None, None), (None, "x", None), False),
           ((4, 6), (4, 6), (None, "x"), (None, "x"), False),
           ((1024, 4096), (1024, 2048, 2, 1, 1, 1, 1), ("x", None), ("x",) + (None,) * 6, False),
           ((1024, 4096, 32), (1024, 2048, 2, 1, 1, 32), ("x", None, None), ("x",) + (None,) * 5, False),
           ((1024, 4096), (1024, 1, 1, 4096), ("x", None), ("x", None, None, None), False),
           ((1024, 4096), (1024, 1, 1, 4096), (None, "x"), (None, None, None, "x"), False),
           ((1024, 2048, 2, 1, 1, 1), (1024, 4096), ("x",) + (None,) * 5, ("x", None), False),
           ((1024, 2048, 2, 1, 1, 1), (1024, 4096), (None, "x") + (None,) * 4, (None, "x"), False),
           ((4, 1, 8, 1, 32), (4, 1, 2, 4, 1, 32), ("x",) + (None,) * 4, ("x",) + (None,) * 5, False),
           ((4, 1, 2, 4, 1, 32), (4, 1, 8, 1, 32), ("x",) + (None,) * 5, ("x",) + (None,) * 4, False)]
SPLIT_MERGE = [((4, 6, 8), (4, 2, 3, 8), ("x", None, "y"), ("x", None, None, "y"), False),
               ((4, 6, 8), (4, 6, 2, 2, 2), ("x", None, None), ("x", None, None, None, None), False),
               ((4, 6, 8), (4, 2, 3, 4, 2), ("x", None, None), ("x", None, None, None, None), True),
               ((4, 6, 8), (4, 2, 3, 8), ("x", "y", None), ("x", "y", None, None), False),
               ((4, 12, 8), (4, 4, 3, 8), (None, ("x", "y"), None), (None, ("x", "y"), None, None), False),
               ((4, 6, 8), (4, 3, 2, 8), ("x", "y", None), None, True),
               ((4, 6, 8), (4, 4, 2, 6), ("x", None, None), None, True),
               ((4, 8, 9), (4, 2, 2, 3, 3, 2), ("x", None, None), None, True),
               ((10, 1), (2, 5, 1), ("x", None), ("x", None, None), False),
               ((10, 1), (2, 5, 1, 1), ("x", None), ("x", None, None, None), False),
               ((10, 1, 1), (2, 5, 1, 1), ("x", None, None), ("x", None, None, None), False),
               ((1, 10), (1, 2, 5), (None, "x"), (None, "x", None), False),
               ((4, 2, 3, 8), (4, 6, 8), ("x", None, None, "y"), ("x", None, "y"), False),
               ((2, 2, 6, 8), (4, 6, 8), (None, None, "y", "x"), (None, "y", "x"), False),
               ((4, 6, 2, 2, 2), (4, 6, 8), ("x", None, None, None, None), ("x", None, None), False),
               ((4, 2, 3, 8), (4, 6, 8), (None, "y", None, "x"), (None, "y", "x"), False),
               ((4, 4, 3, 8), (4, 12, 8), (None, ("x", "y"), None, None), (None, ("x", "y"), None), False),
               ((4, 2, 3, 2, 4), (4, 6, 8), ("x", None, None, None, None), ("x", None, None), True),
               ((4, 2, 6, 8), (4, 12, 8), (None, None, "y", "x"), None, True),
               ((4, 2, 3, 8), (4, 8, 6), (None, "y", None, "x"), None, True),
               ((2, 5, 1), (10, 1), ("x", None, None), ("x", None), False)]


def _reshape(fun: str, dst, dst_spec, use):
    def f(ns, x):
        op = ns.reshape if fun == "jnp" else ns.lax.reshape
        y = ns.note(op(x, dst, out_sharding=P(ns, dst_spec) if use else None))
        return ns.note(y * 2)
    return f


def _big(shape) -> bool:
    return max(shape) > 64


RESHAPES = [
    *[Case(f"reshape{k}_{fun}", X2, _reshape(fun, dst, dspec, use), (T(src, sspec),),
           mode="trace" if _big(src) else "jit")
      for fun in ("jnp", "lax") for k, (src, dst, sspec, dspec, use) in enumerate(RESHAPE)],
    *[Case(f"reshape_split_merge_one_axis{k}", XY, _reshape("jnp", dst, dspec, use), (T(src, sspec),),
           mode="jit" if k % 3 == 0 else "trace")
      for k, (src, dst, sspec, dspec, use) in enumerate(SPLIT_MERGE)],
    Case("reshape_grad", X2, lambda ns, x: ns.grad(lambda a: ns.square(ns.sum(ns.reshape(a, (1, 16, 1)) * 2)))(x),
         (T((16, 1), ("x", None)),)),
]


# --- creation and *_like with out_sharding -------------------------------------------------------------------
CREATION = [
    Case("jnp_like_functions", XY, lambda ns, x: (ns.zeros_like(x), ns.ones_like(x), ns.full_like(x, 3.0)),
         (T((8, 2), ("x", "y")),), mode="jit"),
    Case("jnp_zeros_out_sharding", XY, lambda ns: ns.zeros((8, 2), out_sharding=ns.P("x", "y")), mode="jit"),
    Case("jnp_full_out_sharding", XY, lambda ns: ns.full((8, 2), 2.0, out_sharding=ns.P("x", None)), mode="jit"),
    Case("jnp_arange_out_sharding", XY, lambda ns: ns.arange(8, out_sharding=ns.P("x")), mode="jit"),
    Case("broadcasted_iota", XY, lambda ns: ns.lax.broadcasted_iota("int32", (8, 4), 1, out_sharding=ns.P("x", "y")),
         mode="jit"),
]


# --- reshard / auto_axes / explicit_axes / mesh contexts ------------------------------------------------------
def _auto_top(ns, x, y):
    return ns.auto_axes(lambda a, b: a @ b, out_sharding=ns.P("x", None))(x, y)


def _explicit_in_auto(ns, x):
    return ns.explicit_axes(lambda a: ns.note(a * 2), in_sharding=ns.P("x", "y"))(x)


AXES = [
    Case("reshard_api", XY, lambda ns, x: ns.note(ns.reshard(x, ns.P("y", None))) * 2, (T((8, 2), ("x", None)),),
         mode="jit"),
    Case("reshard_to_unreduced_roundtrip", XY,
         lambda ns, x: ns.reshard(ns.note(ns.reshard(x, ns.P(None, None, unreduced={"x"}))), ns.P(None, None)),
         (T((8, 2)),)),
    Case("auto_axes_top_level", XY, _auto_top, (T((8, 2), ("x", None)), T((2, 8), (None, "y"))), mode="jit"),
    Case("auto_axes_out_sharding_auto_axis", XY,
         lambda ns, x: ns.auto_axes(lambda a: a * 2, out_sharding=ns.P("x", "y"))(x), (T((8, 2), ("x", "y")),)),
    Case("explicit_axes_top_level", XY_AUTO, _explicit_in_auto, (T((8, 2)),), mode="jit"),
    Case("wsc_mix_axis_types", XY_EA, lambda ns, x: ns.with_sharding_constraint(x * 2, ns.P("x", "y")),
         (T((8, 2), ("x", None)),)),
    Case("wsc_pspec_set_mesh_host_data", XY_AUTO, lambda ns, x: ns.with_sharding_constraint(x, ns.P("x", "y")),
         (T((4, 4), (), "i32"),), mode="eager", numpy_args=True),
    Case("user_auto_mix_error", XY_EA, lambda ns, x: ns.reshard(x, ns.P("x", "y")), (T((8, 2), ("x", None)),)),
]


# --- unreduced / reduced --------------------------------------------------------------------------------------
def _einsum_u(ns, x, y):
    return ns.note(ns.einsum("xy,yz->xz", x, y, out_sharding=ns.P("x", None, unreduced={"y"})))


UNREDUCED = [
    Case("unreduced_einsum_basic", XY, _einsum_u, (T((8, 4), ("x", "y")), T((4, 8), ("y", None)))),
    Case("unreduced_einsum_then_reshard", XY, lambda ns, x, y: ns.reshard(_einsum_u(ns, x, y), ns.P("x", None)),
         (T((8, 4), ("x", "y")), T((4, 8), ("y", None))), mode="jit"),
    Case("add_unreduced_error", XY, lambda ns, x, y: _einsum_u(ns, x, y) + ns.reshard(x @ y, ns.P("x", None)),
         (T((8, 4), ("x", "y")), T((4, 8), ("y", None)))),
    Case("dot_general_unreduced_error", XY,
         lambda ns, x, y: ns.einsum("xy,yz->xz", x, y, out_sharding=ns.P("x", None, unreduced={"x"})),
         (T((8, 4), ("x", "y")), T((4, 8), ("y", None)))),
    Case("reduce_sum_unreduced", XY, lambda ns, x: ns.reduce_sum(x, (0,), out_sharding=ns.P(None, unreduced={"x"})),
         (T((8, 4), ("x", None)),)),
    Case("reduce_sum_unreduced_error", XY,
         lambda ns, x: ns.reduce_sum(x, (0,), out_sharding=ns.P(None, unreduced={"y"})), (T((8, 4), ("x", None)),)),
    Case("mul_reduced_error", XY, lambda ns, x, y: x * y, (T((8,), (), r=("x",)), T((8,), ("x",)))),
    Case("both_inputs_reduced_mul", XY, lambda ns, x, y: x * y, (T((8,), (), r=("x",)), T((8,), (), r=("x",)))),
    Case("one_input_reduced_another_replicated_add", XY, lambda ns, x, y: x + y, (T((8,), (), r=("x",)), T((8,)))),
    Case("reduced_reshard_unreduced_bwd", XY,
         lambda ns, x, w: ns.grad(lambda a: ns.sum(x @ a), argnums=0)(w),
         (T((8, 4), (None, "x")), T((4, 8), ("x", None), r=()))),
    # reshape's unreduced / reduced rules (test_reshape_unreduced_out_sharding_error,
    # test_reshape_unreduced_fwd_reduced_bwd, test_reshape_reduced_fwd_unreduced_bwd)
    Case("ur_reshape_cannot_add_unreduced", X2,
         lambda ns, x: ns.reshape(x, (4, 2), out_sharding=ns.P(unreduced={"x"})), (T((8,), (), "i32"),),
         expect="reject", phrase="cannot contain unreduced"),
    Case("ur_reshape_cannot_add_reduced", X2,
         lambda ns, x: ns.reshape(x, (4, 2), out_sharding=ns.P(reduced={"x"})), (T((8,), (), "i32"),),
         expect="reject", phrase="cannot contain reduced"),
    Case("ur_reshape_unreduced_out_sharding_drops_it", X2,
         lambda ns, x: ns.reshape(x, (4, 2), out_sharding=ns.P("x")), (T((8,), (), "f32", u=("x",)),),
         expect="reject", phrase="must be unreduced over the same mesh axes as operand"),
    Case("ur_reshape_reduced_out_sharding_drops_it", X2,
         lambda ns, x: ns.reshape(x, (4, 2), out_sharding=ns.P("x")), (T((8,), (), "f32", r=("x",)),),
         expect="reject", phrase="must be reduced over the same mesh axes as operand"),
    Case("ur_reshape_unreduced_keeps_it", XY, lambda ns, x: ns.reshape(x, (2, 8)),
         (T((8, 2), (), "f32", u=("x", "y")),), expect="accept"),
    Case("ur_reshape_unreduced_lower_rank_gap", XY, lambda ns, x: ns.reshape(x, (16,)),
         (T((8, 2), (), "f32", u=("x",)),), expect="reject", quirk=True),
    Case("ur_reshape_unreduced_singleton_gap", XY, lambda ns, x: ns.reshape(x, (8, 1, 2)),
         (T((8, 2), ("y", None), "f32", u=("x",)),), expect="reject", quirk=True),
    Case("ur_reshape_reduced_keeps_it_and_grad", X2,
         lambda ns, x: (ns.reshape(x, (4, 2)), ns.grad(lambda a: ns.sum(ns.reshard(ns.reshape(a, (4, 2)), ns.P())))(x)),
         (T((8,), (), "f32", r=("x",)),), expect="accept"),
    Case("ur_reshape_unreduced_dot_then_grad", XY, lambda ns, x, w: ns.grad(lambda a, b: ns.sum(ns.reshard(ns.reshape(
        ns.dot(a, b, out_sharding=ns.P("x", unreduced={"y"})), (4, 2, 4)), ns.P())), argnums=(0, 1))(x, w),
         (T((8, 2), ("x", "y")), T((2, 4), ("y", None))), mode="jit"),
    Case("jnp_reshape_order_F", X2, lambda ns, x: ns.reshape(x, (-1, 4), order="F", out_sharding=ns.P(None, "x")),
         (T((16,), ("x",)),), mode="jit"),
    Case("jnp_reshape_order_F_2d", X2, lambda ns, x: ns.reshape(x, (2, 8), order="F", out_sharding=ns.P(None, "x")),
         (T((4, 4), ("x", None)),), mode="jit"),
    # the gradient of a cond choosing between reduced values inside a fori_loop: its backward
    # cond has results with different unreduced axes (was an abort in Shardy, the process died)
    Case("cond_fori_reduced_fwd", X2, lambda ns, p, kr, vr, k, v: ns.grad(
        lambda *a: ns.sum(_cond_fori(ns, *a)[0]), argnums=(1, 2, 3))(p, (kr, vr), k, v),
         (T((), (), "bool"), T((8,), (None,), r=("x",)), T((8,), (None,), r=("x",)), T((8,), ("x",)),
          T((8,), ("x",))), mode="jit"),
    Case("cond_fori_reduced_fwd_values", X2, lambda ns, p, kr, vr, k, v: _cond_fori(ns, p, (kr, vr), k, v),
         (T((), (), "bool"), T((8,), (None,), r=("x",)), T((8,), (None,), r=("x",)), T((8,), ("x",)),
          T((8,), ("x",))), mode="jit"),
]


def _cond_fori(ns, p, kv, k, v):
    def body(_, kv_store):
        return ns.lax.cond(p, lambda: (ns.reshard(k, ns.P(reduced={"x"})), ns.reshard(v, ns.P(reduced={"x"}))),
                           lambda: kv_store)
    return ns.lax.fori_loop(0, 10, body, kv)


# --- control flow, autodiff, vmap -------------------------------------------------------------------------------
def _scan(ns, c, xs):
    return ns.lax.scan(lambda carry, x: (ns.note(carry * x), None), c, xs)[0]


MISC = [
    Case("scan", XY, _scan, (T((8, 2), ("x", None)), T((4, 8, 2), (None, "x", None))), mode="jit"),
    Case("scan_carry_shardings_diff_error", XY,
         lambda ns, c, xs: ns.lax.scan(lambda carry, x: (ns.reshard(carry * x, ns.P(None, "y")), None), c, xs)[0],
         (T((8, 2), ("x", None)), T((4, 8, 2), (None, "x", None)))),
    Case("mul_vmap", XY, lambda ns, x: ns.vmap(lambda a: ns.note(a * 2))(x), (T((8, 2), ("x", "y")),), mode="jit"),
    Case("dot_general_vmap", XY, lambda ns, x, y: ns.vmap(lambda a, b: a @ b)(x, y),
         (T((2, 8, 4), (None, "x", "y")), T((2, 4, 8), (None, "y", None)))),
    Case("jacrev_sharded_broadcast", X2, lambda ns, x: ns.jacrev(lambda a: a[:, None] * 2)(x), (T((4,), ("x",)),)),
    Case("jacfwd_sharded_broadcast", X2, lambda ns, x: ns.jacfwd(lambda a: a[:, None] * 2)(x), (T((4,), ("x",)),)),
    Case("add_transpose", XY, lambda ns, x, y: ns.grad(lambda a, b: ns.sum(a + b), argnums=(0, 1))(x, y),
         (T((8, 2), ("x", "y")), T((8, 2), ("x", "y")))),
    Case("topk", XY, lambda ns, x: ns.lax.top_k(x, 2), (T((8, 4), ("x", None)),)),
    Case("triu_tril", XY, lambda ns, x: (ns.triu(x), ns.tril(x)), (T((8, 8), ("x", "y")),)),
]

# --- reshape over several mesh axes, and unreduced round trips (tables of JAX's tests) ---------------------------
XYZ_E = MeshSpec((2, 2, 2), ("x", "y", "z"))
MULTI_AXES = [  # (mesh, name, in shape, in spec, out shape)
    *[(XY, f"reshape_split_one_dim_multi_axes{k}", a, b, c) for k, (a, b, c) in enumerate([
        ((4,), (("x", "y"),), (2, 2)), ((8,), (("x", "y"),), (2, 4)), ((8,), (("x", "y"),), (4, 2))])],
    *[(XYZ_E, f"reshape_split_one_dim_multi_axes_3_mesh_axes{k}", a, b, c) for k, (a, b, c) in enumerate([
        ((8,), (("x", "y", "z"),), (2, 2, 2)), ((8,), (("x", "y", "z"),), (2, 4)),
        ((8,), (("x", "y", "z"),), (4, 2)), ((4, 2), (("x", "y"), "z"), (2, 2, 2)),
        ((16,), (("x", "y", "z"),), (2, 2, 2, 2))])],
    *[(XY, f"reshape_merge_one_dim_multi_axes{k}", a, b, c) for k, (a, b, c) in enumerate([
        ((2, 2), ("x", "y"), (4,)), ((2, 4), ("x", "y"), (8,)), ((4, 2), (("x", "y"), None), (8,))])],
    *[(XYZ_E, f"reshape_merge_one_dim_multi_axes_3_mesh_axes{k}", a, b, c) for k, (a, b, c) in enumerate([
        ((2, 2, 2), ("x", "y", "z"), (8,)), ((2, 4), ("x", ("y", "z")), (8,)), ((4, 2), (("x", "y"), "z"), (8,)),
        ((2, 2, 2), ("x", "y", "z"), (4, 2)), ((2, 2, 2, 2), ("x", "y", "z", None), (16,))])],
]


def _reshape_and_grad(dst):
    def f(ns, x):
        return ns.note(ns.reshape(x, dst)), ns.grad(lambda a: ns.sum(ns.reshape(a, dst)))(x)
    return f


SHARDED_U = [((8,), ("x",), (None,), ("x",)), ((4, 2), ("x", "y"), (None, None), ("x", "y")),
             ((4, 2), ("x", "y"), ("x", None), ("y",)), ((4, 2), ("x", "y"), (None, "y"), ("x",)),
             ((4, 2), ("x", None), (None, None), ("x",)), ((4, 2), ("y", None), (None, None), ("y",)),
             ((4, 2), (("x", "y"), None), (None, None), ("x", "y")),
             ((4, 4), (None, ("x", "y")), (None, None), ("x", "y"))]
REPLICATED_U = [((4,), (None,), (None,), ("x",)), ((4,), (None,), (None,), ("y",)),
                ((4,), (None,), (None,), ("x", "y")), ((4, 2), (None, None), (None, None), ("x",)),
                ((4, 2), (None, None), (None, None), ("y",)), ((4, 2), (None, None), (None, None), ("x", "y")),
                ((4, 4), ("x", None), ("x", None), ("y",)), ((4, 4), (None, "y"), (None, "y"), ("x",)),
                ((4, 4), ("x", None), (None, None), ("x", "y")), ((4, 4), ("y", None), (None, None), ("x", "y")),
                ((4, 4), ("x", "y"), (None, None), ("x", "y", "z")), ((4, 4), ("x", "z"), (None, None), ("x", "y", "z")),
                ((4, 4), (("x", "z"), "y"), (None, None), ("x", "y", "z")),
                ((4, 4), (("x", "z"), "y"), ("x", None), ("y", "z")), ((4, 4), ("z", "y"), (None, None), ("y", "z")),
                ((4, 4), ("z", "y"), (None, None), ("x", "y", "z"))]


def _roundtrip(orig, un, u):
    def f(ns, x):
        y = ns.note(ns.reshard(x, ns.P(*un, unreduced=set(u))))
        return ns.reshard(y, ns.P(*orig))
    return f


SCATTER_SPECS = [("xy", ("x", None, "y"), ("x", "y")), ("x", ("x", None, None), ("x", None))]
SCATTER_OPS = {"set": lambda ns, x, i, y: x.at[i].set(y), "add": lambda ns, x, i, y: x.at[i].add(y),
               "mul": lambda ns, x, i, y: x.at[i].mul(y), "min": lambda ns, x, i, y: x.at[i].min(y),
               "max": lambda ns, x, i, y: x.at[i].max(y),
               "dynamic_update_slice_in_dim": lambda ns, x, i, y: ns.lax.dynamic_update_slice_in_dim(
                   x, y[None], i, axis=0)}


def _scatter(op):
    def f(ns, x, i, y):
        g = ns.vmap(lambda a, b, c: SCATTER_OPS[op](ns, a, b, c))
        return ns.note(g(x, i, y)), ns.grad(lambda a, c: ns.sum(g(a, i, c)), argnums=(0, 1))(x, y)
    return f


U_JIT = [("Ux", MeshSpec((2,), ("x",)), (None, "x"), ("x", None), (None, None), ("x",)),
         ("Sx,Uy", XY, ("x", "y"), ("y", None), ("x", None), ("y",)),
         ("Rx,Uy", XY, (None, "y"), ("y", None), (None, None), ("y",)),
         ("Sx,Uy,Rz", MeshSpec((2, 2, 2), ("x", "y", "z")), ("x", "y"), ("y", None), ("x", None), ("y",))]


def _u_out(out, u):
    def f(ns, x, y):
        o = ns.note(ns.einsum("xy,yz->xz", x, y, out_sharding=ns.P(*out, unreduced=set(u))))
        return ns.reshard(o, ns.P(*out)), o   # the unreduced result itself is an output too
    return f


REDUCE_U = [([0], None), ([0], ("x", "y")), ([0], ("x",)), ([0, 1], None), ([0, 1], ("x", "y")), ([0, 1], ("x",))]


def _reduce_u(axes, u):
    def f(ns, x, w):
        arr = ns.dot(x, w, out_sharding=ns.P("x", unreduced={"y"}))
        return ns.note(ns.reduce_sum(arr, axes, out_sharding=None if u is None else ns.P(unreduced=set(u))))
    return f


TABLES = [
    *[Case(f"scatter_sharding_rule_operand_{sn}_sharded_{op}", XY, _scatter(op),
           (T((2, 10, 8), ospec), T((2,), ("x",), "i32"), T((2, 8), uspec)))
      for sn, ospec, uspec in SCATTER_SPECS for op in SCATTER_OPS],
    *[Case(f"unreduced_output_from_jit_{n}", m, _u_out(out, u), (T((8, 2), xs), T((2, 8), ys)), mode="jit")
      for n, m, xs, ys, out, u in U_JIT],
    *[Case(f"reduce_sum_unreduced_inp_multi_mesh{k}", XY, _reduce_u(axes, u),
           (T((8, 2), ("x", "y"), "i32"), T((2, 4), ("y", None), "i32")))
      for k, (axes, u) in enumerate(REDUCE_U)],
    *[Case(n, m, _reshape_and_grad(dst), (T(src, spec),), mode="jit") for m, n, src, spec, dst in MULTI_AXES],
    *[Case(f"sharded_unreduced_roundtrip{k}", XY, _roundtrip(o, un, u), (T(sh, o, "i32"),), mode="jit")
      for k, (sh, o, un, u) in enumerate(SHARDED_U)],
    *[Case(f"replicated_sharded_unreduced_roundtrip{k}", XYZ_E, _roundtrip(o, un, u), (T(sh, o, "i32"),),
           mode="jit" if k % 4 == 0 else "trace")
      for k, (sh, o, un, u) in enumerate(REPLICATED_U)],
]

CASES = ELEMENTWISE + DOT + REDUCTIONS + SHAPE + RESHAPES + CREATION + AXES + UNREDUCED + MISC + TABLES


@param(CASES)
def test_sharding_in_types(case):
    check(case, case.mode)


def test_every_case_id_names_a_jax_test_family():
    """The tables keep JAX's case names (so a failure points at the JAX test it came from)."""
    assert len(CASES) >= 150
    assert len({c.id for c in CASES}) == len(CASES)



def test_reshape_tables_are_whole():
    """Every row of JAX's reshape tables is ported (13 rows x jnp/lax, 21 split/merge rows, 16 multi-axes rows)."""
    assert sum(c.id.startswith("reshape") for c in CASES) == 13 * 2 + 21 + 1 + 16


# --- API boundaries outside programs, each compared with JAX (fixes found by tools/port_jax_tests.py) -------------
def _api_cases():
    import jax
    import numpy as np

    import shardc as sc

    def jmesh(types):
        return jax.make_mesh((2,), ("x",), axis_types=types, devices=jax.devices()[:2])

    def smesh(types):
        return sc.make_mesh((2,), ("x",), types, devices=jax.devices()[:2])
    JA, SA = jax.sharding.AxisType, sc.AxisType
    return {
        "unconstrained_without_auto_axes": (
            lambda: jax.sharding.NamedSharding(jmesh((JA.Explicit,)), jax.P(jax.P.UNCONSTRAINED)),
            lambda: sc.NamedSharding(smesh((SA.Explicit,)), sc.P(sc.P.UNCONSTRAINED)),
            "cannot contain `P.UNCONSTRAINED` when no mesh axis_types are `Auto`"),
        "set_mesh_with_manual_axes": (
            lambda: jax.set_mesh(jax.sharding.Mesh(jax.devices()[:2], "x", (JA.Manual,))),
            lambda: sc.set_mesh(sc.Mesh(np.array(jax.devices()[:2]), "x", (SA.Manual,))),
            "contains manual axes which is not allowed when using"),
        "reshard_host_data_onto_auto_axis": (
            lambda: jax.sharding.reshard(np.arange(8), jax.sharding.NamedSharding(jmesh((JA.Auto,)), jax.P("x"))),
            lambda: sc.reshard(np.arange(8), sc.NamedSharding(smesh((SA.Auto,)), sc.P("x"))),
            "PartitionSpec passed to reshard cannot contain axis names that are of type Auto"),
        "device_put_spec_without_mesh": (
            lambda: jax.device_put(np.arange(8), jax.P("x")),
            lambda: sc.device_put(np.arange(8), sc.P("x")),
            "if a PartitionSpec is passed to device_put"),
        "use_abstract_mesh_other_size": (
            lambda: _enter(jax.set_mesh(jmesh((JA.Explicit,))),
                           jax.sharding.use_abstract_mesh(jax.sharding.AbstractMesh((4,), ("x",)))),
            lambda: _enter(sc.set_mesh(smesh((SA.Explicit,))), sc.use_abstract_mesh(sc.AbstractMesh((4,), ("x",)))),
            "use_abstract_mesh cannot change the size of the mesh"),
        "out_sharding_on_other_mesh_than_context": (
            lambda: _other_out_mesh(jax, jax.numpy, jmesh((JA.Explicit,)), jmesh((JA.Auto,)).abstract_mesh,
                                    jax.sharding.NamedSharding, jax.P),
            lambda: _other_out_mesh(sc, sc, smesh((SA.Explicit,)), smesh((SA.Auto,)).abstract_mesh,
                                    sc.NamedSharding, sc.P),
            "should match the mesh of sharding"),
        "operand_on_other_mesh_than_context": (
            lambda: _other_mesh(jax, jax.make_mesh((1,), ("x",), devices=jax.devices()[:1]),
                                jax.make_mesh((1,), ("y",), devices=jax.devices()[:1]), jax.P()),
            lambda: _other_mesh(sc, sc.make_mesh((1,), ("x",), devices=jax.devices()[:1]),
                                sc.make_mesh((1,), ("y",), devices=jax.devices()[:1]), sc.P()),
            "context mesh"),
    }


def _enter(outer, inner):
    with outer:
        with inner:
            pass


def _other_out_mesh(mod, jnp, mesh, other, NS, P):
    """test_output_different_context_error: an out_sharding on another mesh than the context."""
    with mod.set_mesh(mesh):
        a = mod.device_put(np.arange(16).reshape(8, 2), P("x", None))
        b = mod.device_put(np.arange(16).reshape(2, 8), P(None, "x"))
        return mod.jit(lambda x, y: jnp.einsum("xy,yz->xz", x, y, out_sharding=NS(other, P(None, None))))(a, b)


def _other_mesh(mod, m1, m2, P):
    import numpy as np
    a = mod.device_put(np.arange(8), mod.NamedSharding(m1, P))
    b = mod.device_put(np.arange(8), mod.NamedSharding(m2, P))
    with mod.set_mesh(m1):
        return mod.jit(lambda x, y: x + y)(a, b)


_API = _api_cases()


@pytest.mark.parametrize("name", sorted(_API))
def test_api_boundary_as_jax(name):
    jax_call, sc_call, phrase = _API[name]
    with pytest.raises(Exception) as want:
        jax_call()
    assert phrase in str(want.value), want.value
    with pytest.raises(type(want.value).__mro__[0] if type(want.value) in (ValueError, TypeError)
                       else Exception) as got:
        sc_call()
    assert isinstance(got.value, ValueError) == isinstance(want.value, ValueError)
    assert isinstance(got.value, TypeError) == isinstance(want.value, TypeError)
    assert phrase in str(got.value), got.value


# --- result shardings spelled as JAX spells them (out.sharding == NamedSharding(mesh, P(...)) is exact) ----------
def _spelled(mod, np_, mesh, P, NS, jnp):
    """JAX's cases comparing `out.sharding` with `==` (P('x',) != P('x', None)): test_only_auto,
    test_auto_mode_no_context_mesh, test_auto_user, test_out_sharding_mix_axis_types,
    test_broadcasted_iota_mix_axes, test_identity_jit_out_unreduced, test_eager_(un)reduced_out."""
    x = np_.arange(16.0, dtype=np_.float32).reshape(8, 2)
    return {
        "auto_same_as_arg": lambda: mod.jit(lambda a: a * 2)(mod.device_put(x, NS(mesh("AA"), P("x", None)))),
        "auto_arg_spelled_short": lambda: mod.jit(lambda a: a * 2)(mod.device_put(x, NS(mesh("AA"), P("x")))),
        "auto_other_rank": lambda: mod.jit(lambda a: a.sum(axis=1))(mod.device_put(x, NS(mesh("AA"), P("x", None)))),
        "auto_transposed": lambda: mod.jit(lambda a: a.T)(mod.device_put(x, NS(mesh("AA"), P("x", None)))),
        "auto_matmul": lambda: mod.jit(lambda a, b: jnp.sin(a * 2) @ b)(
            mod.device_put(x, NS(mesh("AA"), P("x", "y"))), mod.device_put(x.T, NS(mesh("AA"), P("y", "x")))),
        "mixed_matmul": lambda: mod.jit(lambda a, b: jnp.sin(a * 2) @ b)(
            mod.device_put(x, NS(mesh("EA"), P("x", "y"))), mod.device_put(x.T, NS(mesh("EA"), P("y", None)))),
        "mixed_iota": lambda: _in(mod, mesh("AE"), lambda: mod.jit(lambda: mod.lax.broadcasted_iota(
            np_.int32, (16, 24), 1, out_sharding=NS(mesh("AE"), P("y", None))))()),
        "explicit_jit": lambda: _in(mod, mesh("EE"), lambda: mod.jit(lambda a: a * 2)(mod.device_put(x, P("x")))),
        "explicit_out_shardings": lambda: _in(mod, mesh("EE"), lambda: mod.jit(
            lambda a: a * 2, out_shardings=P("x"))(mod.device_put(x, P("x")))),
        "explicit_out_shardings_unreduced": lambda: _in(mod, mesh("EE"), lambda: mod.jit(
            lambda a: a, out_shardings=P(unreduced={"x"}))(jnp.arange(4))),
        "device_put_unreduced": lambda: _in(mod, mesh("EE"), lambda: mod.device_put(jnp.arange(4),
                                                                                   P(unreduced={"x"}))),
        "device_put_array_short_spec": lambda: _in(mod, mesh("EE"), lambda: mod.device_put(
            mod.device_put(x, P("x", None)), P("x"))),
        "reshard_full_spec": lambda: _in(mod, mesh("EE"), lambda: mod.reshard(mod.device_put(x, P("x")), P("x"))),
        "eager_shard_map_unreduced_out": lambda: _in(mod, mesh("EE"), lambda: mod.shard_map(
            lambda a: mod.lax.pcast(a, "x", to="unreduced"), out_specs=P(unreduced={"x"}))(
                mod.device_put(np_.arange(8.0, dtype=np_.float32), P("x")))),
        "key_fold_in_jit": lambda: _in(mod, mesh("EE"), lambda: mod.jit(lambda k: mod.random.fold_in(k, 1))(
            mod.device_put(mod.random.key(72), P()))),
        "key_reshard_jit": lambda: _in(mod, mesh("EE"), lambda: mod.jit(lambda: mod.reshard(mod.random.key(12), P()))()),
        "key_squeeze_in_shard_map": lambda: _in(mod, mesh("EE"), lambda: mod.jit(lambda ks: mod.shard_map(
            lambda k: mod.random.normal(k.squeeze(0), (1, 4)), out_specs=P("x"), axis_names={"x"})(ks))(
                mod.reshard(mod.random.split(mod.random.key(0), 2), P("x")))),
        "eager_shard_map_reduced_out": lambda: _in(mod, mesh("EE"), lambda: mod.shard_map(
            lambda a: mod.lax.pcast(a, "x", to="reduced"), out_specs=P(reduced={"x"}))(
                mod.device_put(np_.arange(8.0, dtype=np_.float32), P()))),
    }


def _in(mod, mesh, fn):
    with mod.set_mesh(mesh):
        return fn()


def _spelled_sides():
    import jax

    import shardc as sc
    import shardc.numpy as snp
    T = {"A": "Auto", "E": "Explicit"}

    def meshes(mod, AxisType):
        return lambda k: mod.make_mesh((2, 2), ("x", "y"), axis_types=tuple(getattr(AxisType, T[c]) for c in k),
                                       devices=jax.devices()[:4])
    return (_spelled(jax, np, meshes(jax, jax.sharding.AxisType), jax.P, jax.sharding.NamedSharding, jax.numpy),
            _spelled(sc, np, meshes(sc, sc.AxisType), sc.P, sc.NamedSharding, snp))


_SPELLED_NAMES = sorted(_spelled(None, np, None, None, None, None))


@pytest.mark.parametrize("name", _SPELLED_NAMES)
def test_result_sharding_spelled_as_jax(name):
    """The result's spec is spelled exactly as JAX's: same entries (trailing `None`s
    included or not), unreduced / reduced axes and mesh axis types."""
    jside, sside = _spelled_sides()
    want, got = jside[name](), sside[name]()
    ws, gs = want.sharding.spec, got.sharding.spec
    parts = lambda s: tuple(s.partitions) if hasattr(s, "partitions") else tuple(s)  # noqa: E731
    assert (parts(gs), set(gs.unreduced), set(gs.reduced)) == (parts(ws), set(ws.unreduced), set(ws.reduced)), \
        (got.sharding, want.sharding)
    assert [str(t) for t in got.sharding.mesh.axis_types] == [str(t) for t in want.sharding.mesh.axis_types]
    assert type(got.sharding.mesh).__name__ == type(want.sharding.mesh).__name__   # a concrete Mesh, not abstract
    if name.startswith("key_") and "squeeze" not in name:
        import jax

        import shardc as sc
        got, want = sc.random.key_data(got), jax.random.key_data(want)
    if not (ws.unreduced or ws.reduced):
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_traced_out_info_and_lowering_platforms_as_jax():
    """test_sds_closed_over_to_zeros_like_propagates_sharding_jit (`Traced.out_info`: shape,
    dtype, sharding on the abstract mesh) and test_abstract_mesh_context_trace
    (`Traced.lower(lowering_platforms=...)` under `use_abstract_mesh`, 2 partitions)."""
    import jax

    import shardc as sc
    got = []
    for mod, snp in ((jax, jax.numpy), (sc, sc)):
        am = mod.sharding.AbstractMesh((2,), ("x",), (mod.sharding.AxisType.Explicit,))
        with mod.sharding.use_abstract_mesh(am):
            val = mod.ShapeDtypeStruct((32,), np.float32, sharding=mod.sharding.NamedSharding(am, mod.P("x")))
            out = mod.jit(lambda: snp.zeros_like(val)).trace().out_info
            low = mod.jit(lambda x: x * 2).trace(mod.ShapeDtypeStruct((8, 2), np.float32)).lower(
                lowering_platforms=("tpu",))
        got.append((out.shape, str(np.dtype(out.dtype)), tuple(out.sharding.spec), out.sharding.mesh.axis_names,
                    "mhlo.num_partitions = 2" in low.as_text()))
    assert got[0] == got[1]


def test_memory_kind_as_jax():
    """test_to_pinned_host_error: an out_sharding with a memory_kind is JAX's ValueError; the
    NamedSharding keeps it (equality and repr as JAX's)."""
    import jax

    import shardc as sc
    for mod, snp in ((jax, jax.numpy), (sc, sc)):
        mesh = mod.make_mesh((2,), ("x",), axis_types=(mod.sharding.AxisType.Explicit,), devices=jax.devices()[:2])
        s = mod.sharding.NamedSharding(mesh.abstract_mesh, mod.P("x"), memory_kind="pinned_host")
        assert s.memory_kind == "pinned_host" and s != mod.sharding.NamedSharding(mesh.abstract_mesh, mod.P("x"))
        with mod.set_mesh(mesh):
            with pytest.raises(ValueError, match="sharding with memory_kind is not allowed"):
                snp.full((2,), fill_value=0, out_sharding=s)


def test_in_shardings_type_host_arguments_as_jax():
    """test_in_aval_matches_in_sharding: host data passed to `jit(in_shardings=P('x'))` is typed
    (Lowered.in_avals, Compiled.in_avals) and placed as declared; the result as JAX's."""
    import jax

    import shardc as sc
    got = []
    for mod in (jax, sc):
        mesh = mod.make_mesh((2,), ("x",), axis_types=(mod.sharding.AxisType.Explicit,), devices=jax.devices()[:2])
        with mod.set_mesh(mesh):
            f = mod.jit(lambda x: x * 2, in_shardings=mod.P("x"), out_shardings=mod.P("x"))
            arr = np.arange(8)
            low = f.lower(arr)
            comp = low.compile()
            out = comp(arr)
            specs = [tuple(a[0][0].sharding.spec) for a in (low.in_avals, comp.in_avals)]
            got.append((specs, tuple(out.sharding.spec), np.asarray(out).tolist()))
    assert got[0] == got[1]


def test_auto_axes_without_context_mesh_as_jax():
    """test_auto_axes_no_context_mesh: with no context mesh, `auto_axes(out_sharding=NamedSharding)`
    takes the mesh from the sharding (JAX's _get_new_mesh), eagerly and under jit: inside, the
    Auto axis is gone from the types."""
    import jax

    import shardc as sc
    got = []
    for mod, snp in ((jax, jax.numpy), (sc, sc)):
        mesh = mod.make_mesh((2, 2), ("x", "y"), axis_types=(mod.sharding.AxisType.Explicit,) * 2,
                             devices=jax.devices()[:4])
        s = mod.sharding.NamedSharding(mesh, mod.P("x", "y"))
        arr = mod.device_put(np.arange(16.0, dtype=np.float32).reshape(8, 2), s)
        seen = []

        def h(y, mod=mod, snp=snp, seen=seen):
            seen.append(tuple(mod.typeof(y).sharding.spec))
            return snp.sin(y)
        g = mod.sharding.auto_axes(h, axes="x", out_sharding=s)
        outs = [mod.jit(g)(arr), g(arr)]
        got.append((seen, [tuple(o.sharding.spec) for o in outs], [np.asarray(o).tolist() for o in outs]))
    assert got[0] == got[1]


# --- ops whose `out_sharding` runs them under `auto_axes` (JAX's percentile, multi-operand einsum) --------------
def _percentile(q, axis, spec):
    return lambda ns, x: ns.percentile(x, q, axis=axis, out_sharding=ns.P(*spec))


OUT_SHARDING_AUTO = [
    # test_percentile: the sort runs over the sharded dim (Auto inside), the result is resharded
    Case("percentile", X2, _percentile(50, 0, ()), (T((100,), ("x",)),), mode="jit"),
    Case("percentile_rows", XY, _percentile(np.array([25, 75]), 1, (None, "x")), (T((8, 16), ("x", "y")),), mode="jit"),
    Case("percentile_all_axes", XY, _percentile(10, None, ()), (T((8, 4), ("x", "y")),)),
    # test_multi_einsum_intermediate_einsum_auto: more than one contraction with out_sharding
    Case("multi_einsum_intermediate_einsum_auto", XY,
         lambda ns, a, b, c: ns.einsum("ab,bc,ac->c", a, b, c, out_sharding=ns.P()),
         (T((8, 16), ("x", "y")), T((16, 4), ("y", None)), T((8, 4), ("x", None))), mode="jit"),
    Case("multi_einsum_out_sharded", XY,
         lambda ns, a, b, c: ns.einsum("ab,bc,cd->ad", a, b, c, out_sharding=ns.P("x", "y")),
         (T((8, 16), ("x", "y")), T((16, 4), ("y", None)), T((4, 8), (None, "x")))),
    Case("two_operand_einsum_contracting_sharded", XY,   # one contraction: still JAX's dot_general rule
         lambda ns, a, b: ns.einsum("ab,bc->ac", a, b, out_sharding=ns.P()),
         (T((8, 16), ("x", "y")), T((16, 4), ("y", None)))),
    # test_bincount (replicated result; the unreduced one is compared shard by shard below)
    Case("bincount", X2, lambda ns, x: ns.bincount(x, length=2, out_sharding=ns.P()), (T((4,), ("x",), "i32"),),
         mode="jit"),
    Case("bincount_sharded_out_error", X2, lambda ns, x: ns.bincount(x, length=2, out_sharding=ns.P("x")),
         (T((4,), ("x",), "i32"),), expect="reject", phrase="only be fully replicated or fully unreduced"),
    # test_linalg_slogdet_and_solve: slogdet's result is a named tuple (a pytree) under vmap
    Case("linalg_slogdet_vmap", X2, lambda ns, a: ns.vmap(ns.linalg.slogdet)(a), (T((8, 4, 4), ("x",)),)),
    Case("linalg_slogdet_fields", X2, lambda ns, a: (lambda r: (r.sign, r.logabsdet))(ns.linalg.slogdet(a)),
         (T((8, 4, 4), ("x",)),)),
    # test_c64_to_f32_view_rountrip: view() to and from complex (JAX interleaves real and imaginary parts)
    Case("c64_to_f32_view", X2, lambda ns, x: x.view(np.float32), (T((8, 4), ("x",), "c64"),), mode="jit"),
    Case("f32_to_c64_view", X2, lambda ns, x: x.view(np.complex64), (T((8, 4), ("x",)),), mode="jit"),
    Case("c64_view_roundtrip_2d_mesh", XY, lambda ns, x: x.view(np.float32).view(np.complex64),
         (T((4, 8), ("x", "y"), "c64"),), mode="jit"),
    *[Case(f"c64_to_{d}_view", XY, (lambda d: lambda ns, x: x.view(d))(d), (T((4, 2, 8), ("x", None, "y"), "c64"),))
      for d in ("int32", "uint8", "bfloat16", "complex64")],
    Case("i16_to_c64_view", X2, lambda ns, x: x.view(np.complex64), (T((8, 8), ("x",), "i16"),)),
    # test_jnp_repeat_arraylike / test_jnp_repeat / test_manual_mode_mix_repeat: `jnp.repeat(out_sharding=)`
    # under `auto_axes` over the Explicit axes; with `total_repeat_length`, `repeats` is an argument of it
    Case("jnp_repeat_arraylike", X2,
         lambda ns, p, c: ns.repeat(p, c % 3, axis=0, total_repeat_length=5, out_sharding=ns.P()),
         (T((5, 3)), T((5,), (), "i32")), mode="jit"),
    Case("jnp_repeat_static_total", X2,
         lambda ns, p: ns.repeat(p, 5, axis=0, total_repeat_length=5, out_sharding=ns.P()), (T((5, 3)),)),
    Case("jnp_repeat_sharded_out", X2, lambda ns, a: ns.repeat(a, np.array((1, 1, 1, 1)), axis=0,
                                                               out_sharding=ns.P("x")),
         (T((4, 4), ("x",)),), mode="eager"),
    Case("jnp_repeat_traced_sharded", XY, lambda ns, a, r: ns.repeat(a, r % 2, axis=1, total_repeat_length=4,
                                                                    out_sharding=ns.P("x", "y")),
         (T((8, 4), ("x", "y")), T((4,), ("y",), "i32")), mode="jit",
         collectives=None),   # (shardc counts repeats by a comparison and sum, JAX by a scatter-add)
    Case("manual_mode_mix_repeat", XY,
         lambda ns, x: ns.shard_map(lambda y: ns.repeat(y, 2, axis=1, out_sharding=ns.P(None, "y")),
                                    out_specs=ns.P("x"), axis_names={"x"})(x * 2),
         (T((8, 2), ("x", "y")),), mode="jit"),
]


@param(OUT_SHARDING_AUTO)
def test_out_sharding_under_auto_axes(case):
    check(case, case.mode)


def _bcast_reduced(spec):
    return lambda ns, x: ns.broadcast_in_dim(x, (2, 8), (1,), out_sharding=ns.P(*spec))


# test_broadcast_reduced_inp_unreduced_out: a reduced operand broadcast to a result the given
# out_sharding partitions over those axes is not reduced; its gradient comes back unreduced
BROADCAST_UR = [
    Case("broadcast_reduced_inp_sharded_out", X2, _bcast_reduced(("x", None)), (T((8,), (), r=("x",)),), mode="jit"),
    Case("broadcast_reduced_inp_unreduced_out", X2,
         lambda ns, x: ns.grad(lambda a: ns.sum(_bcast_reduced(("x", None))(ns, a)))(x), (T((8,), (), r=("x",)),),
         mode="jit"),
    Case("broadcast_reduced_inp_xy_grad", XY,
         lambda ns, x: ns.grad(lambda a: ns.sum(ns.broadcast_in_dim(a, (4, 8), (1,), out_sharding=ns.P("x", "y"))))(x),
         (T((8,), ("y",), r=("x",)),)),
]


@param(BROADCAST_UR)
def test_broadcast_out_sharding_drops_reduced(case):
    check(case, case.mode)


def test_scatter_unreduced_out_keeps_each_devices_sums_as_jax():
    """test_bincount: `bincount(out_sharding=P(unreduced={'x'}))` (a scatter-add under
    `auto_axes`) leaves each device its own counts (no all-reduce first): the shards as JAX's."""
    import jax

    import shardc as sc
    got = []
    for mod, snp in ((jax, jax.numpy), (sc, sc)):
        mesh = mod.make_mesh((2,), ("x",), axis_types=(mod.sharding.AxisType.Explicit,), devices=jax.devices()[:2])
        with mod.set_mesh(mesh):
            a = mod.device_put(np.array([0, 1, 1, 1, 0, 1, 0, 0], np.int32), mod.P("x"))
            out = mod.jit(lambda x: snp.bincount(x, length=3, out_sharding=mod.P(unreduced={"x"})))(a)
            at = mod.jit(lambda x: snp.zeros((4,), np.float32).at[x].add(1.0, out_sharding=mod.P(unreduced={"x"})))(a)
            got.append([(tuple(o.sharding.spec.partitions), set(o.sharding.spec.unreduced),
                         [np.asarray(s.data).tolist() for s in o.addressable_shards],
                         np.asarray(mod.reshard(o, mod.P())).tolist()) for o in (out, at)])
    assert got[0] == got[1]


def test_reshard_onto_renamed_context_mesh_as_jax():
    """test_typeof_not_mesh_context_dependent: a type keeps its mesh's names under a context mesh
    renamed with `Mesh.update(axis_names=)`; `reshard` to the new names moves it there (eagerly)."""
    import jax

    import shardc as sc
    got = []
    for mod in (jax, sc):
        mesh = mod.make_mesh((2, 1), ("x", "y"), axis_types=(mod.sharding.AxisType.Explicit,) * 2,
                             devices=jax.devices()[:2])
        with mod.set_mesh(mesh):
            arr = mod.device_put(np.arange(16).reshape(8, 2), mod.P("x", "y"))
            with mod.set_mesh(mesh.update(axis_names=("a", "b"))):
                before = tuple(mod.typeof(arr).sharding.spec)
                out = mod.reshard(arr, mod.P("a", "b"))
                got.append((before, tuple(mod.typeof(out).sharding.spec), out.sharding.mesh.axis_names,
                            np.asarray(out * 2).tolist()))
    assert got[0] == got[1]


def test_uncommitted_array_moves_to_the_program_mesh_as_jax():
    """test_dot_lhs_rhs_mesh_empty / test_random_normal_wo_mesh_context: an array made with no
    mesh (uncommitted, on the default device) passed with mesh-placed ones is moved onto the
    program's mesh, as JAX moves it; the results as JAX's."""
    import jax

    import shardc as sc
    got = []
    for mod, snp in ((jax, jax.numpy), (sc, sc)):
        mesh = mod.make_mesh((2,), ("x",), axis_types=(mod.sharding.AxisType.Explicit,), devices=jax.devices()[:2])
        x = mod.device_put(np.ones((32, 16), np.float32), mod.sharding.NamedSharding(mesh, mod.P("x")))
        w = snp.arange(16 * 8, dtype=np.float32).reshape(16, 8) / 100
        f = mod.jit(mod.grad(lambda w, x: mod.lax.dot(x, w).sum()))
        with mod.set_mesh(mesh):
            dw = f(w, x)
            dw2 = f(w, x)   # the steady-state call moves it too
        out = mod.jit(lambda a, b: a @ b)(x, w)   # no context mesh: the mesh of the placed argument
        got.append([(tuple(o.sharding.spec), np.asarray(o).tolist()) for o in (dw, dw2, out)])
    assert got[0] == got[1]


def test_full_like_of_abstract_sharding_is_not_placed_as_jax():
    """test_full_like_eager_non_concrete_sharding: `lax.full_like` of a ShapeDtypeStruct whose
    sharding names an abstract (not all-Explicit) mesh does not take that sharding (JAX's
    `use_x_sharding`): an eager result on the default device, no error; on an all-Explicit
    abstract mesh it does."""
    import jax

    import shardc as sc
    got = []
    for mod in (jax, sc):
        sm = mod.sharding
        auto = sm.NamedSharding(sm.AbstractMesh((2,), ("x",), axis_types=(sm.AxisType.Auto,)), mod.P("x"))
        out = mod.lax.full_like(mod.ShapeDtypeStruct((8, 2), np.float32, sharding=auto), 3)
        got.append((out.shape, np.asarray(out).tolist(), getattr(out.sharding, "spec", None),
                    {d.id for d in out.devices()}))
    assert got[0] == got[1]


def test_pspec_without_context_mesh_inside_jit_as_jax():
    """test_pspec_einsum_no_context_mesh: a program traced with no mesh context (its mesh taken
    from placed arguments) has no mesh for a bare `out_sharding=P(...)`: JAX's ValueError for einsum,
    zeros and random samplers (even `P()`); a NamedSharding or a context mesh are fine."""
    import jax

    import shardc as sc
    phrase = "Using PartitionSpec when you are not under a mesh context is not allowed"
    got = []
    for mod, snp in ((jax, jax.numpy), (sc, sc)):
        mesh = mod.make_mesh((2, 1), ("x", "y"), axis_types=(mod.sharding.AxisType.Explicit,) * 2,
                             devices=jax.devices()[:2])
        NS = mod.sharding.NamedSharding
        x = mod.device_put(np.arange(16.0, dtype=np.float32).reshape(8, 2), NS(mesh, mod.P("x", "y")))
        y = mod.device_put(np.arange(16.0, dtype=np.float32).reshape(2, 8), NS(mesh, mod.P("y", None)))
        k = mod.random.key(0)
        programs = {
            "einsum_p": lambda a, b: snp.einsum("xy,yz->xz", a, b, out_sharding=mod.P("x", "y")),
            "einsum_named": lambda a, b: snp.einsum("xy,yz->xz", a, b, out_sharding=NS(mesh, mod.P("x", "y"))),
            "zeros_p": lambda a, b: a + snp.zeros((8, 2), out_sharding=mod.P("x")),
            "zeros_empty_p": lambda a, b: a + snp.zeros((8, 2), out_sharding=mod.P()),
            "normal_p": lambda a, b: a + mod.random.normal(k, (8, 2), out_sharding=mod.P("x")),
        }
        row = {}
        for name, fn in programs.items():
            try:
                out = mod.jit(fn)(x, y)
                row[name] = ("ok", tuple(out.sharding.spec), np.asarray(out).tolist())
            except ValueError as e:
                row[name] = ("ValueError", phrase in str(e))
        with mod.set_mesh(mesh):
            out = mod.jit(programs["einsum_p"])(x, y)
            row["einsum_p_in_context"] = ("ok", tuple(out.sharding.spec), np.asarray(out).tolist())
        got.append(row)
    assert got[0] == got[1]
    assert got[0]["einsum_p"] == ("ValueError", True)
