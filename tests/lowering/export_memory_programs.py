"""Lowering programs and FileCheck lines of `device_put` to another memory (shardc/primitives/
sharding_ops.py; `sc.memory.Space`) and `call_exported` (shardc/export.py), merged into
`programs.PROGRAMS` and `test_filecheck.CHECKS`.

* `device_put(x, Space.Host)`: the result's `mhlo.memory_kind = "pinned_host"` and JAX's
  `annotate_device_placement` custom call on it (tests/differential/test_memory_kinds.py compares
  the whole module with JAX's);
* `exported.call(x)`: the exported module's body inlined into `main` (its values renamed `%xc1_*`),
  its argument and result constrained to the exported shardings, no `func.call` left."""
from __future__ import annotations

import numpy as np

import shardc as sc
import shardc.export as sc_export


def _device_put(x):
    return sc.device_put(x * 2, sc.memory.Space.Host)


def _call_exported(x):
    mesh = sc.get_abstract_mesh()
    exp = sc_export.export(sc.jit(lambda a: sc.numpy.sin(a) * 2))(
        sc.ShapeDtypeStruct((8, 4), np.float32, sharding=sc.NamedSharding(mesh, sc.P("X"))))
    return exp.call(x) + 1


PROGRAMS = {
    "device_put": ("2d", ("f32[8@X,4]",), _device_put),
    "call_exported": ("2d", ("f32[8@X,4]",), _call_exported),
}

CHECKS = {
    "device_put": [
        'CHECK: func.func public @main(%arg0: tensor<8x4xf32> {mhlo.memory_kind = "device"',
        'CHECK-SAME: -> (tensor<8x4xf32> {mhlo.memory_kind = "pinned_host"',
        "CHECK: [[Y:%[0-9]+]] = stablehlo.multiply %arg0",
        "CHECK: [[C:%[0-9]+]] = sdy.sharding_constraint [[Y]]",
        "CHECK: [[P:%[0-9]+]] = stablehlo.custom_call @annotate_device_placement([[C]])",
        'CHECK-SAME: has_side_effect = true, mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}',
        "CHECK: return [[P]]",
    ],
    "call_exported": [
        'CHECK: [[A:%[0-9]+]] = sdy.sharding_constraint %arg0 <@mesh, [{"X"}, {}]>',
        "CHECK: %xc1_arg0 = stablehlo.convert [[A]]",
        "CHECK: %xc1_0 = stablehlo.sine %xc1_arg0",
        "CHECK: %xc1_4 = stablehlo.multiply",
        'CHECK: sdy.sharding_constraint %xc1_5 <@mesh, [{"X"}, {}]>',
        "CHECK-NOT: call @",
        "CHECK: stablehlo.add",
    ],
}
