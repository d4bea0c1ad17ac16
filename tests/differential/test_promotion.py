"""Dtype promotion, exhaustively against JAX (x64 off): every pair of operands
from {bool, int8, int16, int32, uint8, uint16, uint32, bfloat16, float16,
float32, complex64} × {strong, weak} (weak: a weak-typed argument, `~f32[...]`), through
`+`, `*` and `maximum`, and every operand with a Python bool / int / float /
complex scalar: accept/reject (error class) and the result's `str(typeof)`, weak type
included (`~`)."""
from __future__ import annotations

import itertools

from oracle import Case, check, param

DTYPES = ["bool", "i8", "i16", "i32", "u8", "u16", "u32", "bf16", "f16", "f32", "c64"]
OPERANDS = [f"{w}{d}[8@X]" for d in DTYPES for w in ("", "~") if not (w and d == "bool")]

OPS = {"add": lambda ns, x, y: x + y,
       "mul": lambda ns, x, y: x * y,
       "maximum": lambda ns, x, y: ns.maximum(x, y)}

PAIRS = [Case(f"{op}-{a}-{b}", "1d", fn, (a, b))
         for (op, fn), (a, b) in itertools.product(OPS.items(), itertools.product(OPERANDS, OPERANDS))]

SCALARS = {"True": True, "2": 2, "2.5": 2.5, "1.5+2j": 1.5 + 2j}
WITH_SCALARS = [Case(f"{side}-{a}-{name}", "1d",
                     (lambda v: (lambda ns, x: x + v))(v) if side == "right" else (lambda v: (lambda ns, x: v * x))(v),
                     (a,))
                for a in OPERANDS for name, v in SCALARS.items() for side in ("right", "left")]


@param(PAIRS)
def test_binary_promotion(case):
    check(case)


@param(WITH_SCALARS)
def test_scalar_promotion(case):
    check(case)
