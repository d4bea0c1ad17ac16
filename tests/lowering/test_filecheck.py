"""FileCheck tests of each primitive's StableHLO/sdy lowering.

Every primitive in the registry has a program (`programs.PROGRAMS`) whose
traced IR contains it; its emitted module is run through `filecheck` (the
Python port of LLVM's FileCheck) against the CHECK lines below, written from
the StableHLO op JAX lowers the same operation to. A lowering change shows up
as a failing CHECK line; a new primitive without a case fails
`test_every_primitive_has_a_lowering_test`.
"""
from __future__ import annotations

import subprocess

import pytest

import shardc as sc
from shardc.core import REGISTRY

from . import conv_programs
from .complex_programs import CHECKS as COMPLEX_CHECKS
from .export_memory_programs import CHECKS as EXPORT_MEMORY_CHECKS
from .ffi_programs import CHECKS as FFI_CHECKS
from .last_lax_programs import CHECKS as LAST_LAX_CHECKS
from .lax_extra_programs import CHECKS as LAX_EXTRA_CHECKS
from .linalg_programs import CHECKS as LINALG_CHECKS
from .programs import PROGRAMS
from .windowed_programs import CHECKS as WINDOWED_CHECKS

MESHES = {"1d": ((8,), ("X",), None), "2d": ((2, 4), ("X", "Y"), None),
          "3d": ((2, 2, 2), ("X", "Y", "Z"), None),
          "auto": ((2, 4), ("X", "Y"), (sc.AxisType.Explicit, sc.AxisType.Auto)),
          "all_auto": ((2, 4), ("X", "Y"), (sc.AxisType.Auto, sc.AxisType.Auto))}

XY = '<@mesh, [{"X"}, {"Y"}]>'


def _unary(op, t="tensor<8x4xf32>", out=None):
    sig = f"{t}" if out is None else f"({t}) -> {out}"
    return [f"CHECK: {op} %arg0 : {sig}", f"CHECK-NEXT: sdy.sharding_constraint {{{{%[0-9]+}}}} {XY}"]


def _binary(op, t="tensor<8x4xf32>"):
    return [f"CHECK: {op} %arg0, %arg1 : {t}", f"CHECK-NEXT: sdy.sharding_constraint {{{{%[0-9]+}}}} {XY}"]


def _compare(direction, kind, t="tensor<8x4xf32>"):
    return [f"CHECK: stablehlo.compare {direction}, %arg0, %arg1, {kind} : ({t}, {t}) -> tensor<8x4xi1>"]


def _reduce(op, init, t="f32", in_t="tensor<8x4xf32>"):
    return [f"CHECK: [[INIT:%[0-9]+]] = stablehlo.constant dense<{init}> : tensor<{t}>",
            f"CHECK: stablehlo.reduce(%arg0 init: [[INIT]]) applies {op} across dimensions = [1] : "
            f"({in_t}, tensor<{t}>) -> tensor<8x{t}>",
            'CHECK: sdy.sharding_constraint {{%[0-9]+}} <@mesh, [{"X"}]>']


def _cumulative(op, init):
    return [f"CHECK: [[INIT:%[0-9]+]] = stablehlo.constant dense<{init}> : tensor<f32>",
            'CHECK: "stablehlo.reduce_window"(%arg0, [[INIT]])',
            "CHECK-SAME: padding = dense<{{\\[\\[}}0, 0], [3, 0]]>",
            "CHECK-SAME: window_dimensions = array<i64: 1, 4>",
            f"CHECK: {op} %w0, %w1 : tensor<f32>"]


def _manual(in_sh, out_sh, block, body):
    return [f"CHECK: sdy.manual_computation(%arg0) in_shardings=[{in_sh}] out_shardings=[{out_sh}] "
            f'manual_axes={{"X", "Y"}} (%m1: {block})'] + body


CHECKS: dict[str, list[str]] = {
    # elementwise: unary
    "neg": _unary("stablehlo.negate"), "abs": _unary("stablehlo.abs"), "sign": _unary("stablehlo.sign"),
    "floor": _unary("stablehlo.floor"), "ceil": _unary("stablehlo.ceil"),
    "round": _unary("stablehlo.round_nearest_even"), "sin": _unary("stablehlo.sine"),
    "cos": _unary("stablehlo.cosine"), "tan": _unary("stablehlo.tan"), "tanh": _unary("stablehlo.tanh"),
    "exp": _unary("stablehlo.exponential"), "expm1": _unary("stablehlo.exponential_minus_one"),
    "log": _unary("stablehlo.log"), "log1p": _unary("stablehlo.log_plus_one"),
    "sqrt": _unary("stablehlo.sqrt"), "rsqrt": _unary("stablehlo.rsqrt"), "cbrt": _unary("stablehlo.cbrt"),
    "logistic": _unary("stablehlo.logistic"),
    "erf": ["CHECK: chlo.erf %arg0 : tensor<8x4xf32> -> tensor<8x4xf32>"],
    "not": _unary("stablehlo.not", "tensor<8x4xi32>"),
    "is_finite": _unary("stablehlo.is_finite", "tensor<8x4xf32>", "tensor<8x4xi1>"),
    "square": ["CHECK: stablehlo.multiply %arg0, %arg0 : tensor<8x4xf32>"],
    # elementwise: n-ary
    "add": _binary("stablehlo.add"), "sub": _binary("stablehlo.subtract"),
    "mul": _binary("stablehlo.multiply"), "div": _binary("stablehlo.divide"),
    "max": _binary("stablehlo.maximum"), "min": _binary("stablehlo.minimum"),
    "pow": _binary("stablehlo.power"), "atan2": _binary("stablehlo.atan2"),
    "rem": ["CHECK: stablehlo.remainder %arg0, {{%[0-9]+}} : tensor<8x4xi32>"],
    "and": _binary("stablehlo.and", "tensor<8x4xi32>"), "or": _binary("stablehlo.or", "tensor<8x4xi1>"),
    "xor": _binary("stablehlo.xor", "tensor<8x4xi32>"),
    "shift_left": _binary("stablehlo.shift_left", "tensor<8x4xi32>"),
    "shift_right_logical": _binary("stablehlo.shift_right_logical", "tensor<8x4xi32>"),
    "shift_right_arithmetic": _binary("stablehlo.shift_right_arithmetic", "tensor<8x4xi32>"),
    "population_count": _unary("stablehlo.popcnt", "tensor<8x4xi32>"),
    "clz": _unary("stablehlo.count_leading_zeros", "tensor<8x4xi32>"),
    "bitcast_convert_type": ["CHECK: stablehlo.bitcast_convert %arg0 : (tensor<8x4xf32>) -> tensor<8x4xi32>",
                             'CHECK-NEXT: sdy.sharding_constraint {{%[0-9]+}} <@mesh, [{"X"}, {"Y"}]>'],
    "erf_inv": ["CHECK: chlo.erf_inv %arg0 : tensor<8x4xf32> -> tensor<8x4xf32>"],
    "debug_callback": ["CHECK: sdy.mesh @maximal_mesh_0 = <[], device_ids=[0]>",
                       "CHECK: stablehlo.custom_call @xla_ffi_python_cpu_callback(%arg0) {{.*}}has_side_effect = true"
                       "{{.*}}index = 0 : ui64{{.*}}sdy.sharding_per_value<[<@maximal_mesh_0, []>]>"],
    "pure_callback": ["CHECK: [[R:%[0-9]+]] = stablehlo.custom_call @xla_ffi_python_cpu_callback(%arg0) "
                      "{backend_config = \"\", mhlo.backend_config = {index = 0 : ui64}{{.*}}result_layouts = "
                      "[dense<[1, 0]> : tensor<2xindex>]{{.*}}: (tensor<8x4xf32>) -> tensor<8x4xf32>",
                      "CHECK-NEXT: sdy.sharding_constraint [[R]] <@mesh, [{}, {}]>"],
    "io_callback": ["CHECK: stablehlo.custom_call @xla_ffi_python_cpu_callback(%arg0) {{.*}}has_side_effect = true"],
    "io_callback_ordered": ["CHECK: stablehlo.custom_call @xla_ffi_python_cpu_callback(%arg0) "
                            "{{.*}}has_side_effect = true"],
    "while_jvp_transposed": ["CHECK: stablehlo.while", "CHECK: stablehlo.while"],
    "lgamma": ["CHECK: chlo.lgamma %arg0 : tensor<8x4xf32> -> tensor<8x4xf32>"],
    **{n: [f"CHECK: chlo.{n} %arg0 : tensor<8x4xf32> -> tensor<8x4xf32>"]
       for n in ("asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh")},
    "digamma": ["CHECK: chlo.digamma %arg0 : tensor<8x4xf32> -> tensor<8x4xf32>"],
    "erfc": ["CHECK: chlo.erfc %arg0 : tensor<8x4xf32> -> tensor<8x4xf32>"],
    "polygamma": ["CHECK: chlo.polygamma %arg0, %arg1 : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>"],
    "zeta": ["CHECK: chlo.zeta %arg0, %arg1 : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>"],
    "nextafter": ["CHECK: chlo.next_after %arg0, %arg1 : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>",
                  f"CHECK-NEXT: sdy.sharding_constraint {{{{%[0-9]+}}}} {XY}"],
    "bessel_i1e": ["CHECK: chlo.bessel_i1e %arg0 : tensor<8x4xf32> -> tensor<8x4xf32>"],
    # JAX lowers bessel_i0e as its Cephes series (mlir.lower_fun), in f32, each value pinned
    "bessel_i0e": ["CHECK: [[X:%[0-9]+]] = stablehlo.convert %arg0 : (tensor<8x4xbf16>) -> tensor<8x4xf32>",
                   "CHECK: [[A:%[0-9]+]] = stablehlo.abs", f"CHECK-NEXT: sdy.sharding_constraint {{{{%[0-9]+}}}} {XY}",
                   "CHECK: stablehlo.constant dense<-1.3000249765582339e-08>",
                   "CHECK: stablehlo.constant dense<0.6767953038215637>",
                   "CHECK: stablehlo.constant dense<0.8044903874397278>", "CHECK: stablehlo.sqrt",
                   "CHECK: stablehlo.compare LE", "CHECK: stablehlo.select",
                   "CHECK: stablehlo.convert {{%[0-9]+}} : (tensor<8x4xf32>) -> tensor<8x4xbf16>",
                   "CHECK-NOT: chlo.bessel_i0e"],
    "eq": _compare("EQ", "FLOAT"), "ne": _compare("NE", "SIGNED", "tensor<8x4xi32>"),
    "lt": _compare("LT", "FLOAT"), "le": _compare("LE", "SIGNED", "tensor<8x4xi32>"),
    "gt": _compare("GT", "FLOAT"), "ge": _compare("GE", "FLOAT"),
    "convert_element_type": ["CHECK: stablehlo.convert %arg0 : (tensor<8x4xf32>) -> tensor<8x4xi32>"],
    "integer_pow": ["CHECK: [[SQ:%[0-9]+]] = stablehlo.multiply %arg0, %arg0 : tensor<8x4xf32>",
                    "CHECK-NEXT: stablehlo.multiply %arg0, [[SQ]] : tensor<8x4xf32>"],
    # select_n(p, on_false, on_true) is `select(p, on_true, on_false)`; sc.where(p, x, y) binds (p, y, x)
    "select_n": ["CHECK: stablehlo.select %arg0, %arg1, %arg2 : tensor<8x4xi1>, tensor<8x4xf32>"],
    # shapes
    "broadcast_in_dim": ["CHECK: stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<4xf32>) -> tensor<8x4xf32>",
                         'CHECK-NEXT: sdy.sharding_constraint {{%[0-9]+}} <@mesh, [{}, {"Y"}]>'],
    "reshape": ["CHECK: stablehlo.reshape %arg0 : (tensor<8x4xf32>) -> tensor<8x2x2xf32>",
                'CHECK-NEXT: sdy.sharding_constraint {{%[0-9]+}} <@mesh, [{"X"}, {}, {}]>'],
    "transpose": ["CHECK: stablehlo.transpose %arg0, dims = [1, 0] : (tensor<8x4xf32>) -> tensor<4x8xf32>",
                  'CHECK-NEXT: sdy.sharding_constraint {{%[0-9]+}} <@mesh, [{"Y"}, {"X"}]>'],
    "squeeze": ["CHECK: stablehlo.reshape %arg0 : (tensor<8x1xf32>) -> tensor<8xf32>"],
    "rev": ["CHECK: stablehlo.reverse %arg0, dims = [0] : tensor<8x4xf32>"],
    "concatenate": ["CHECK: stablehlo.concatenate %arg0, %arg1, dim = 0 : "
                    "(tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<16x4xf32>"],
    "slice": ["CHECK: stablehlo.slice %arg0 [2:6, 0:4] : (tensor<8x4xf32>) -> tensor<4x4xf32>"],
    "dynamic_slice": ["CHECK: stablehlo.dynamic_slice %arg0, {{%[0-9]+}}, {{%[0-9]+}}, sizes = [1, 4] : "
                      "(tensor<8x4xf32>, tensor<i32>, tensor<i32>) -> tensor<1x4xf32>"],
    "dynamic_update_slice": ["CHECK: stablehlo.dynamic_update_slice %arg0, {{%[0-9]+}}, {{%[0-9]+}}, "
                             "{{%[0-9]+}} : (tensor<8x4xf32>, tensor<2x4xf32>, tensor<i32>, tensor<i32>) "
                             "-> tensor<8x4xf32>"],
    "pad": ["CHECK: stablehlo.pad %arg0, {{%[0-9]+}}, low = [1, 0], high = [2, 0], interior = [0, 0] : "
            "(tensor<8x4xf32>, tensor<f32>) -> tensor<11x4xf32>"],
    "iota": ["CHECK: stablehlo.iota dim = 0 : tensor<8xi32>",
             'CHECK-NEXT: sdy.sharding_constraint {{%[0-9]+}} <@mesh, [{"X"}]>'],
    # reductions
    "reduce_sum": _reduce("stablehlo.add", "0.0"),
    "reduce_max": _reduce("stablehlo.maximum", "0xFF800000"),
    "reduce_min": _reduce("stablehlo.minimum", "0x7F800000"),
    "reduce_prod": _reduce("stablehlo.multiply", "1.0"),
    "reduce_and": _reduce("stablehlo.and", "true", "i1", "tensor<8x4xi1>"),
    "reduce_or": _reduce("stablehlo.or", "false", "i1", "tensor<8x4xi1>"),
    "argmax": ["CHECK: [[IDX:%[0-9]+]] = stablehlo.iota dim = 1 : tensor<8x4xi32>",
               "CHECK: stablehlo.reduce(%arg0 init: {{%[0-9]+}}), ({{%[0-9]+}} init: {{%[0-9]+}}) "
               "across dimensions = [1]",
               "CHECK: stablehlo.compare GT, %a0, %a1, FLOAT"],
    "argmin": ["CHECK: stablehlo.iota dim = 1 : tensor<8x4xi32>",
               "CHECK: stablehlo.reduce(%arg0 init: {{%[0-9]+}}), ({{%[0-9]+}} init: {{%[0-9]+}}) "
               "across dimensions = [1]",
               "CHECK: stablehlo.compare LT, %a0, %a1, FLOAT"],
    "cumsum": _cumulative("stablehlo.add", "0.0"), "cumprod": _cumulative("stablehlo.multiply", "1.0"),
    "cummax": _cumulative("stablehlo.maximum", "0xFF800000"),
    "cummin": _cumulative("stablehlo.minimum", "0x7F800000"),
    # dot
    "dot_general": ["CHECK: stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : "
                    "(tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>",
                    f"CHECK-NEXT: sdy.sharding_constraint {{{{%[0-9]+}}}} {XY}"],
    # sharding ops
    "reshard": ['CHECK: sdy.sharding_constraint %arg0 <@mesh, [{"Y"}, {}]> : tensor<8x4xf32>'],
    "sharding_constraint": ['CHECK: sdy.mesh @mesh = <["X"=2, "Y"=4]>',
                            'CHECK: %arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"X"}, {}]>}',
                            'CHECK: sdy.sharding_constraint %arg0 <@mesh, [{"X"}, {"Y"}]> : tensor<8x4xf32>'],
    "mesh_cast": ["CHECK: stablehlo.multiply %arg0, {{%[0-9]+}} : tensor<8x4xf32>",
                  'CHECK: sdy.sharding_constraint {{%[0-9]+}} <@mesh, [{"X"}, {}]>'],
    "copy": ["CHECK: func.func public @main(%arg0: tensor<8x4xf32>", "CHECK-NOT: stablehlo.",
             "CHECK: return %arg0 : tensor<8x4xf32>"],
    "stop_gradient": ["CHECK: func.func public @main(%arg0: tensor<8x4xf32>", "CHECK-NOT: stablehlo.",
                      "CHECK: return %arg0 : tensor<8x4xf32>"],
    # collectives and casts
    "psum": _manual(XY, '<@mesh, [{}, {"Y"}]>', "tensor<4x1xf32>", [
        'CHECK-NEXT: "stablehlo.all_reduce"(%m1)',
        "CHECK-SAME: replica_groups = dense<{{\\[\\[0, 4\\], \\[1, 5\\], \\[2, 6\\], \\[3, 7\\]\\]}}>",
        "CHECK-SAME: use_global_device_ids", "CHECK: stablehlo.add %r0, %r1 : tensor<f32>"]),
    "pmax": _manual(XY, '<@mesh, [{"X"}, {}]>', "tensor<4x1xf32>", [
        'CHECK-NEXT: "stablehlo.all_reduce"(%m1)',
        "CHECK-SAME: replica_groups = dense<{{\\[\\[0, 1, 2, 3\\], \\[4, 5, 6, 7\\]\\]}}>",
        "CHECK: stablehlo.maximum %r0, %r1 : tensor<f32>"]),
    "pmin": _manual(XY, '<@mesh, [{"X"}, {}]>', "tensor<4x1xf32>", [
        'CHECK-NEXT: "stablehlo.all_reduce"(%m1)', "CHECK: stablehlo.minimum %r0, %r1 : tensor<f32>"]),
    "all_gather": _manual(XY, XY, "tensor<4x1xf32>", [
        'CHECK-NEXT: "stablehlo.all_gather"(%m1) <{all_gather_dim = 1 : i64',
        "CHECK-SAME: replica_groups = dense<{{\\[\\[0, 1, 2, 3\\], \\[4, 5, 6, 7\\]\\]}}>",
        "CHECK: (tensor<4x1xf32>) -> tensor<4x4xf32>"]),
    "psum_scatter": _manual('<@mesh, [{"X"}, {}]>', '<@mesh, [{"X", "Y"}, {}]>', "tensor<8x4xf32>", [
        'CHECK-NEXT: "stablehlo.reduce_scatter"(%m1)', "CHECK-SAME: scatter_dimension = 0 : i64",
        "CHECK: (tensor<8x4xf32>) -> tensor<2x4xf32>"]),
    "ppermute": _manual(XY, XY, "tensor<4x1xf32>", [
        'CHECK-NEXT: "stablehlo.collective_permute"(%m1)',
        "CHECK-SAME: source_target_pairs = dense<{{\\[\\[0, 4\\], \\[4, 0\\], \\[1, 5\\], \\[5, 1\\]}}"]),
    "all_to_all": _manual('<@mesh, [{}, {"Y"}]>', '<@mesh, [{"Y"}, {}]>', "tensor<8x1xf32>", [
        'CHECK-NEXT: "stablehlo.all_to_all"(%m1)', "CHECK-SAME: concat_dimension = 1 : i64",
        "CHECK-SAME: split_count = 4", "CHECK-SAME: split_dimension = 0 : i64",
        "CHECK: (tensor<8x1xf32>) -> tensor<2x4xf32>"]),
    "axis_index": _manual(XY, XY, "tensor<4x1xf32>", [
        "CHECK-NEXT: [[PID:%[0-9]+]] = stablehlo.partition_id : tensor<ui32>",
        "CHECK: stablehlo.divide", "CHECK: stablehlo.remainder"]),
    "pvary": ['CHECK: sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{}, {"Y"}]>, ' + XY + ']',
              "CHECK-NEXT: [[S:%[0-9]+]] = stablehlo.add %m1, %m2 : tensor<4x1xf32>",
              "CHECK: sdy.return [[S]]"],
    "preduced": _manual('<@mesh, [{}, {"Y"}]>', '<@mesh, [{}, {"Y"}]>', "tensor<8x1xf32>",
                        ["CHECK-NEXT: sdy.return %m1 : tensor<8x1xf32>"]),
    "vary_unreduced_cast": _manual(XY, '<@mesh, [{}, {"Y"}], unreduced={"X"}>', "tensor<4x1xf32>",
                                   ["CHECK-NEXT: sdy.return %m1 : tensor<4x1xf32>"]),
    "reduced_vary_cast": _manual('<@mesh, [{}, {"Y"}]>', XY, "tensor<8x1xf32>",
                                 ["CHECK-NEXT: sdy.return %m1 : tensor<8x1xf32>"]),
    "shard_map": _manual(XY, XY, "tensor<4x1xf32>", [
        "CHECK: stablehlo.multiply %m1, {{%[0-9]+}} : tensor<4x1xf32>",
        "CHECK: } : (tensor<8x4xf32>) -> tensor<8x4xf32>"]),
    # gather / scatter
    "gather": ['CHECK: "stablehlo.gather"(%arg0, {{%[0-9]+}})', "CHECK-SAME: offset_dims = [1]",
               "CHECK-SAME: collapsed_slice_dims = [0]", "CHECK-SAME: start_index_map = [0]",
               "CHECK-SAME: slice_sizes = array<i64: 1, 4>"],
    "scatter_add": ['CHECK: "stablehlo.scatter"', "CHECK-SAME: update_window_dims = [1]",
                    "CHECK-SAME: inserted_window_dims = [0]", "CHECK: stablehlo.add"],
    "scatter": ['CHECK: "stablehlo.scatter"(%arg0', "CHECK-SAME: update_window_dims = [1]",
                "CHECK-SAME: inserted_window_dims = [0]", "CHECK-NEXT: ^bb0(%s0: tensor<f32>, %s1: tensor<f32>):",
                "CHECK-NEXT: stablehlo.return %s1 : tensor<f32>"],
    "scatter_sub": ['CHECK: "stablehlo.scatter"(%arg0', "CHECK: stablehlo.subtract %s0, %s1"],
    "scatter_mul": ['CHECK: "stablehlo.scatter"(%arg0', "CHECK: stablehlo.multiply %s0, %s1"],
    "scatter_min": ['CHECK: "stablehlo.scatter"(%arg0', "CHECK: stablehlo.minimum %s0, %s1"],
    "scatter_max": ['CHECK: "stablehlo.scatter"(%arg0', "CHECK: stablehlo.maximum %s0, %s1 : tensor<i32>"],
    "scatter_apply": ['CHECK: "stablehlo.scatter"(%arg0', "CHECK-NEXT: ^bb0([[A:%a[0-9]+]]: tensor<f32>",
                      "CHECK-NEXT: [[S:%[0-9]+]] = stablehlo.sine [[A]] : tensor<f32>",
                      "CHECK-NEXT: stablehlo.return [[S]] : tensor<f32>"],
    # sorting: JAX's comparator (-0.0 -> 0.0, NaN canonical, TOTALORDER) over the one key
    "sort": ['CHECK: "stablehlo.sort"(%arg0, %arg1) <{dimension = 1 : i64, is_stable = true}>',
             "CHECK: stablehlo.compare EQ", "CHECK: stablehlo.compare NE", "CHECK: 0x7FC00000",
             "CHECK: stablehlo.compare LT, {{.*}}, TOTALORDER",
             "CHECK: (tensor<8x4xf32>, tensor<8x4xi32>) -> (tensor<8x4xf32>, tensor<8x4xi32>)"],
    "top_k": ["CHECK: chlo.top_k(%arg0, k = 2) : tensor<8x4xf32> -> (tensor<8x2xf32>, tensor<8x2xi32>)"],
    # control flow
    # (JAX's `case` on the predicate as an index: branch 0 is the false branch)
    "cond": ["CHECK: [[I:%[0-9]+]] = stablehlo.convert %arg0 : (tensor<i1>) -> tensor<i32>",
             'CHECK: "stablehlo.case"([[I]]) ({', "CHECK: stablehlo.subtract %arg1",
             "CHECK: stablehlo.return {{%[0-9]+}} : tensor<8x4xf32>", "CHECK-NEXT: }, {",
             "CHECK: stablehlo.add %arg1", "CHECK: stablehlo.return {{%[0-9]+}} : tensor<8x4xf32>",
             "CHECK-NEXT: }) : (tensor<i32>) -> (tensor<8x4xf32>)"],
    "while": ['CHECK: "stablehlo.while"({{%[0-9]+}}, %arg0) ({', "CHECK: stablehlo.compare LT",
              "CHECK: stablehlo.return", "CHECK-NEXT: }, {", "CHECK: stablehlo.add", "CHECK: stablehlo.multiply"],
    "scan": ['CHECK: "stablehlo.while"', "CHECK: stablehlo.constant dense<4> : tensor<i32>",
             "CHECK: stablehlo.dynamic_slice", "CHECK: stablehlo.dynamic_update_slice"],
    # custom rules: the forward rule inlined (its residual computed forward), then the user's backward
    "custom_vjp_call": ["CHECK: stablehlo.sine %arg0", "CHECK: stablehlo.cosine %arg0",
                        "CHECK: stablehlo.multiply", "CHECK-NOT: stablehlo.sine", "CHECK: return"],
    "custom_jvp_call": ["CHECK: stablehlo.exponential %arg0", "CHECK: stablehlo.tanh %arg0",
                        "CHECK: stablehlo.multiply", "CHECK-NOT: stablehlo.exponential", "CHECK: return"],
    "custom_vmap_call": ["CHECK: stablehlo.sine %arg0", "CHECK-NOT: stablehlo.cosine", "CHECK: return"],
    # remat: the body inlined; under grad the backward recomputes it behind a barrier
    "checkpoint": ["CHECK: stablehlo.cosine %arg0", "CHECK: stablehlo.sine", "CHECK-NOT: optimization_barrier",
                   "CHECK: return"],
    "name": ["CHECK: [[D:%[0-9]+]] = stablehlo.multiply %arg0", "CHECK-NOT: stablehlo.custom_call",
             "CHECK: return"],
    "optimization_barrier": ["CHECK: stablehlo.sine %arg0",
                             "CHECK: [[B:%[0-9]+]] = stablehlo.optimization_barrier %arg0 : tensor<8x4xf32>",
                             "CHECK: stablehlo.cosine [[B]]"],
}

CHECKS.update(conv_programs.CHECKS)
CHECKS.update(WINDOWED_CHECKS)
CHECKS.update(COMPLEX_CHECKS)
CHECKS.update(LAX_EXTRA_CHECKS)
CHECKS.update(LINALG_CHECKS)
CHECKS.update(FFI_CHECKS)
CHECKS.update(LAST_LAX_CHECKS)
CHECKS.update(EXPORT_MEMORY_CHECKS)


def lower(name: str) -> tuple[str, str]:
    mesh, types, fn = PROGRAMS[name]
    shape, names, axis_types = MESHES[mesh]
    with sc.set_mesh(sc.make_mesh(shape, names, axis_types=axis_types)):
        traced = sc.jit(fn, name=f"f_{name}").trace(*types)
        return str(traced), traced.lower().as_text()


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_lowering(name, tmp_path):
    ir, text = lower(name)
    assert f" = {name}" in ir or f" {name}[" in ir, f"the program for {name} does not bind it:\n{ir}"
    check_file = tmp_path / f"{name}.check"
    check_file.write_text("\n".join(f"// {line}" for line in CHECKS[name]) + "\n")
    res = subprocess.run(["filecheck", str(check_file)], input=text, capture_output=True, text=True)
    assert res.returncode == 0, f"{res.stdout}{res.stderr}\n--- module ---\n{text}"


#: primitives that are never lowered, with the reason
NEVER_LOWERED = {
    name: "a collective over a vmapped axis name: sc.vmap's batching rule replaces it by array ops"
    for name in REGISTRY if name.startswith("vmap_")}


def test_every_primitive_has_a_lowering_test():
    assert set(REGISTRY) - set(NEVER_LOWERED) <= set(CHECKS), sorted(set(REGISTRY) - set(CHECKS) - set(NEVER_LOWERED))
    assert set(CHECKS) == set(PROGRAMS)


def test_filecheck_rejects_a_wrong_line(tmp_path):
    """The harness can fail: a CHECK for an op the module does not hold is reported."""
    _, text = lower("sin")
    check_file = tmp_path / "wrong.check"
    check_file.write_text("// CHECK: stablehlo.cosine %arg0\n")
    res = subprocess.run(["filecheck", str(check_file)], input=text, capture_output=True, text=True)
    assert res.returncode != 0
