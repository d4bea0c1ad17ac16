"""Lowering programs and FileCheck lines of the complex-number primitives and the FFT
(`shardc/primitives/complex.py`, `shardc/primitives/fft.py`), merged into
`programs.PROGRAMS` and `test_filecheck.CHECKS`. The CHECK lines follow the StableHLO JAX
0.10.2 emits for the same programs (`jax.jit(f).lower(...).as_text()`: `stablehlo.real` /
`imag` / `complex`, conj as `complex(real, -imag)`, `stablehlo.fft %x, type = .., length = [..]`)."""
from __future__ import annotations

from shardc import lax

C = "c64[8@X,4@Y]"
F = "f32[8@X,4@Y]"
XY = '<@mesh, [{"X"}, {"Y"}]>'
CT, FT = "tensor<8x4xcomplex<f32>>", "tensor<8x4xf32>"

PROGRAMS = {
    "real": ("2d", (C,), lax.real),
    "imag": ("2d", (C,), lax.imag),
    "complex": ("2d", (F, F), lax.complex),
    "conj": ("2d", (C,), lax.conj),
    "fft": ("2d", ("f32[8@X,4]",), lambda x: lax.fft(x, "RFFT", (4,))),
}

CHECKS = {
    "real": [f"CHECK: stablehlo.real %arg0 : ({CT}) -> {FT}", f"CHECK-NEXT: sdy.sharding_constraint {{{{%[0-9]+}}}} {XY}"],
    "imag": [f"CHECK: stablehlo.imag %arg0 : ({CT}) -> {FT}", f"CHECK-NEXT: sdy.sharding_constraint {{{{%[0-9]+}}}} {XY}"],
    "complex": [f"CHECK: stablehlo.complex %arg0, %arg1 : {CT}",
                f"CHECK-NEXT: sdy.sharding_constraint {{{{%[0-9]+}}}} {XY}"],
    "conj": [f"CHECK: [[RE:%[0-9]+]] = stablehlo.real %arg0 : ({CT}) -> {FT}",
             f"CHECK-NEXT: [[IM:%[0-9]+]] = stablehlo.imag %arg0 : ({CT}) -> {FT}",
             f"CHECK-NEXT: [[NEG:%[0-9]+]] = stablehlo.negate [[IM]] : {FT}",
             f"CHECK-NEXT: stablehlo.complex [[RE]], [[NEG]] : {CT}"],
    "fft": ["CHECK: stablehlo.fft %arg0, type = RFFT, length = [4] : (tensor<8x4xf32>) -> tensor<8x3xcomplex<f32>>",
            'CHECK-NEXT: sdy.sharding_constraint {{%[0-9]+}} <@mesh, [{"X"}, {}]>'],
}
