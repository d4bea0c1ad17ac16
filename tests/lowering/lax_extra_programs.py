"""Lowering programs and FileCheck lines of `rng_bit_generator`, `rng_uniform` and `mulhi`
(`shardc/primitives/rng.py`), merged into `programs.PROGRAMS` and `test_filecheck.CHECKS`. The
CHECK lines follow the StableHLO JAX 0.10.2 emits for the same programs
(`jax.jit(f).lower(...).as_text()`)."""
from __future__ import annotations

import numpy as np

from shardc import P, lax

PROGRAMS = {
    "rng_bit_generator": ("2d", ("u32[4]",),
                          lambda k: lax.rng_bit_generator(k, (8, 4), np.uint8, out_sharding=P("X", "Y"))),
    "rng_uniform": ("2d", ("f32[]", "f32[]"), lambda a, b: lax.rng_uniform(a, b, (3, 2))),
    "mulhi": ("2d", ("i32[8@X,4@Y]", "i32[8@X,4@Y]"), lax.mulhi),
}

CHECKS = {
    "rng_bit_generator": [
        "CHECK: [[K:%[0-9]+]] = stablehlo.reshape %arg0 : (tensor<4xui32>) -> tensor<2x2xui32>",
        "CHECK-NEXT: [[K64:%[0-9]+]] = stablehlo.bitcast_convert [[K]] : (tensor<2x2xui32>) -> tensor<2xui64>",
        "CHECK-NEXT: [[R:%[0-9]+]]:2 = stablehlo.rng_bit_generator [[K64]], algorithm = DEFAULT : (tensor<2xui64>) "
        "-> (tensor<2xui64>, tensor<8x4xui8>)",
        "CHECK-NEXT: [[S:%[0-9]+]] = stablehlo.bitcast_convert [[R]]#0 : (tensor<2xui64>) -> tensor<2x2xui32>",
        "CHECK-NEXT: stablehlo.reshape [[S]] : (tensor<2x2xui32>) -> tensor<4xui32>",
        'CHECK: sdy.sharding_constraint [[R]]#1 <@mesh, [{"X"}, {"Y"}]> : tensor<8x4xui8>'],
    "rng_uniform": [
        "CHECK: [[S:%[0-9]+]] = stablehlo.constant dense<[3, 2]> : tensor<2xi64>",
        "CHECK: stablehlo.rng %arg0, %arg1, [[S]], distribution = UNIFORM : (tensor<f32>, tensor<f32>, "
        "tensor<2xi64>) -> tensor<3x2xf32>"],
    "mulhi": [
        "CHECK: chlo.mulhi %arg0, %arg1 : tensor<8x4xi32>, tensor<8x4xi32> -> tensor<8x4xi32>",
        'CHECK-NEXT: sdy.sharding_constraint {{%[0-9]+}} <@mesh, [{"X"}, {"Y"}]>'],
}
