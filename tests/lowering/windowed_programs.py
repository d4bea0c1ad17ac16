"""Lowering programs and FileCheck lines of the windowed and generic reductions
(`shardc/primitives/windowed.py`, `shardc/primitives/reduce_generic.py`), merged into
`programs.PROGRAMS` and `test_filecheck.CHECKS`. The CHECK lines follow the StableHLO
JAX 0.10.2 emits for the same programs (`jax.jit(f).lower(...).as_text()`)."""
from __future__ import annotations

import numpy as np

import shardc as sc
from shardc import lax

F = "f32[8@X,4@Y]"
XY = '<@mesh, [{"X"}, {"Y"}]>'


def _pool(f, t=F):
    return ("2d", (t,), f)


PROGRAMS = {
    "reduce_window_sum": _pool(lambda x: lax.reduce_window(x, 0.0, lax.add, (2, 1), (2, 1), "VALID")),
    "reduce_window_max": _pool(lambda x: lax.reduce_window(x, -np.inf, lax.max, (2, 1), (2, 1), "VALID")),
    "reduce_window_min": _pool(lambda x: lax.reduce_window(x, np.inf, lax.min, (2, 1), (2, 1), ((0, 0), (0, 0)))),
    "reduce_window": _pool(lambda x: lax.reduce_window(x, 1.0, lambda a, b: a * b, (2, 1), (2, 1), "VALID")),
    "select_and_scatter_add": _pool(sc.grad(lambda x: sc.sum(lax.reduce_window(x, -np.inf, lax.max, (2, 1), (2, 1),
                                                                              ((0, 0), (1, 0))))),
                                    "f32[8@X,4]"),
    "select_and_gather_add": _pool(lambda x: sc.jvp(lambda y: lax.reduce_window(y, -np.inf, lax.max, (2, 1), (2, 1),
                                                                                "VALID"), (x,), (x,))[1]),
    "reduce": _pool(lambda x: lax.reduce(x, 1.0, lambda a, b: a * b + 1.0, (1,))),
    "reduce_xor": _pool(lambda x: lax.reduce_xor(x, (1,)), "i32[8@X,4@Y]"),
    "reduce_precision": _pool(lambda x: lax.reduce_precision(x, 5, 10)),
    "approx_top_k": _pool(lambda x: lax.approx_max_k(x, 2), "f32[8@X,4]"),
}

_RW = ('CHECK: "stablehlo.reduce_window"(%arg0, [[INIT]]) <{base_dilations = array<i64: 1, 1>, '
       "padding = dense<{{\\[\\[}}0, 0], [0, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, "
       "window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 2, 1>}>")


def _monoid(init, op):
    return [f"CHECK: [[INIT:%[0-9]+]] = stablehlo.constant dense<{init}> : tensor<f32>", _RW,
            f"CHECK: {op} %w0, %w1 : tensor<f32>",
            "CHECK: }) : (tensor<8x4xf32>, tensor<f32>) -> tensor<4x4xf32>",
            f"CHECK-NEXT: sdy.sharding_constraint {{{{%[0-9]+}}}} {XY} : tensor<4x4xf32>"]


CHECKS = {
    "reduce_window_sum": _monoid("0.0", "stablehlo.add"),
    "reduce_window_max": _monoid("0xFF800000", "stablehlo.maximum"),
    "reduce_window_min": _monoid("0x7F800000", "stablehlo.minimum"),
    "reduce_window": ["CHECK: [[C:%[0-9]+]] = stablehlo.constant dense<1.0> : tensor<f32>",
                      "CHECK: [[INIT:%[0-9]+]] = sdy.sharding_constraint [[C]] <@mesh, []> : tensor<f32>", _RW,
                      "CHECK-NEXT: ^bb0([[A:%arg[0-9]+]]: tensor<f32>, [[B:%arg[0-9]+]]: tensor<f32>):",
                      "CHECK: stablehlo.multiply [[A]], [[B]] : tensor<f32>",
                      "CHECK: stablehlo.return",
                      "CHECK: }) : (tensor<8x4xf32>, tensor<f32>) -> tensor<4x4xf32>",
                      f"CHECK-NEXT: sdy.sharding_constraint {{{{%[0-9]+}}}} {XY} : tensor<4x4xf32>"],
    # JAX's CPU lowering: the operand padded with the select identity, no padding in the op, sliced back
    "select_and_scatter_add": [
        "CHECK: [[P:%[0-9]+]] = stablehlo.pad %arg0, {{%[0-9]+}}, low = [0, 1], high = [0, 0], interior = [0, 0] : "
        "(tensor<8x4xf32>, tensor<f32>) -> tensor<8x5xf32>",
        'CHECK: "stablehlo.select_and_scatter"([[P]], {{%[0-9]+}}, {{%[0-9]+}}) <{padding = '
        "dense<{{\\[\\[}}0, 0], [0, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 2, 1>, "
        "window_strides = array<i64: 2, 1>}>",
        "CHECK: stablehlo.compare GE, %s0, %s1, FLOAT",
        "CHECK: stablehlo.add %s0, %s1 : tensor<f32>",
        "CHECK: stablehlo.slice {{%[0-9]+}} [0:8, 1:5] : (tensor<8x5xf32>) -> tensor<8x4xf32>",
        'CHECK-NEXT: sdy.sharding_constraint {{%[0-9]+}} <@mesh, [{"X"}, {}]>'],
    # JAX's `_select_and_gather_add_using_variadic_reducewindow`
    "select_and_gather_add": [
        'CHECK: "stablehlo.reduce_window"(%arg0, %arg0, {{%[0-9]+}}, {{%[0-9]+}})',
        "CHECK: stablehlo.compare GE, %g0, %g2, FLOAT",
        "CHECK: stablehlo.select %g4, %g1, %g3",
        "CHECK: }) : (tensor<8x4xf32>, tensor<8x4xf32>, tensor<f32>, tensor<f32>) -> "
        "(tensor<4x4xf32>, tensor<4x4xf32>)"],
    "reduce": ['CHECK: "stablehlo.reduce"(%arg0, {{%[0-9]+}}) <{dimensions = array<i64: 1>}>',
               "CHECK-NEXT: ^bb0([[A:%arg[0-9]+]]: tensor<f32>, [[B:%arg[0-9]+]]: tensor<f32>):",
               "CHECK: stablehlo.multiply [[A]], [[B]] : tensor<f32>",
               "CHECK: stablehlo.add",
               "CHECK: }) : (tensor<8x4xf32>, tensor<f32>) -> tensor<8xf32>",
               'CHECK-NEXT: sdy.sharding_constraint {{%[0-9]+}} <@mesh, [{"X"}]> : tensor<8xf32>'],
    "reduce_xor": ["CHECK: [[INIT:%[0-9]+]] = stablehlo.constant dense<0> : tensor<i32>",
                   "CHECK: stablehlo.reduce(%arg0 init: [[INIT]]) applies stablehlo.xor across dimensions = [1] : "
                   "(tensor<8x4xi32>, tensor<i32>) -> tensor<8xi32>"],
    "reduce_precision": ["CHECK: stablehlo.reduce_precision %arg0, format = e5m10 : tensor<8x4xf32>",
                         f"CHECK-NEXT: sdy.sharding_constraint {{{{%[0-9]+}}}} {XY}"],
    # XLA's CPU fallback of JAX's `ApproxTopK` custom call: a sort of (values, iota), then a slice
    "approx_top_k": ["CHECK: [[IOTA:%[0-9]+]] = stablehlo.iota dim = 1 : tensor<8x4xi32>",
                     'CHECK: "stablehlo.sort"(%arg0, [[IOTA]]) <{dimension = 1 : i64',
                     "CHECK: stablehlo.compare GT, %t0, %t1, FLOAT",
                     "CHECK: stablehlo.slice {{%[0-9]+#0}} [0:8, 0:2] : (tensor<8x4xf32>) -> tensor<8x2xf32>",
                     "CHECK: stablehlo.slice {{%[0-9]+#1}} [0:8, 0:2] : (tensor<8x4xi32>) -> tensor<8x2xi32>"],
}
