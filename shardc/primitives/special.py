"""Special functions (JAX's `jax/_src/lax/special.py`): `lgamma`, `digamma`, `erfc`
(unary) and `polygamma`, `zeta` (binary), each lowered to its `chlo` op as JAX does.

They are elementwise ops: shape, sharding, unreduced/reduced and VMA rules are those of
`elementwise.Unary` / `elementwise.Nary` (float operands only, as JAX's `_float` dtype
rule), and they join the `UNARY` / `BINARY` tables there so `shardc.lax` binds them like
any other elementwise op. Their VJPs are JAX's JVP rules transposed:
`lgamma' = digamma`, `digamma' = polygamma(1, x)`, `erfc' = -2/sqrt(pi) exp(-x^2)`,
`polygamma(m, x)` in x is `polygamma(m + 1, x)` (in m JAX refuses), `zeta` has none.
"""
from __future__ import annotations

import numpy as np

from ..core import Tracer, bind
from ..emit.text import ttype
from ..errors import ShardcNotImplementedError, ShardcValueError
from .elementwise import BINARY, UNARY, Nary, Unary, unbroadcast

__all__ = ["lgamma", "digamma", "erfc", "polygamma", "zeta"]


class _ChloUnary(Unary):
    """A float-only unary op lowered to `chlo.<name>` with its own VJP."""

    def __init__(self, name: str):
        super().__init__(name, f"chlo.{name}", "f")
        UNARY[name] = self

    def vjp(self, L, g, ins, outs, **_):
        x = ins[0]
        if not isinstance(x, Tracer):
            return [None]
        return [_UNARY_VJP[self.name](L, g, x)]


class _ChloBinary(Nary):
    """A float-only binary op lowered to `chlo.<name>` (operands already broadcast)."""

    def __init__(self, name: str):
        super().__init__(name, f"chlo.{name}", "f")
        BINARY[name] = self

    def check_live(self, live, **_):
        """JAX refuses a cotangent for zeta, and for polygamma's order m (before any rule runs)."""
        if self.name == "zeta" and any(live):
            raise ShardcNotImplementedError("differentiation of zeta is not supported (JAX has no derivative "
                                            "rule for it)")
        if live[0]:
            raise ShardcValueError("polygamma gradient with respect to m is not supported")

    def vjp(self, L, g, ins, outs, **_):
        m, x = ins
        if not isinstance(x, Tracer):
            return [None, None]
        # d/dx polygamma(m, x) = polygamma(m + 1, x)
        m1 = L.add(m, 1.0) if isinstance(m, Tracer) else np.asarray(m) + np.asarray(1, np.asarray(m).dtype)
        return [None, unbroadcast(L, L.mul(g, bind(polygamma, m1, x)), x)]

    def lower(self, ctx, eqn, *args):
        out = eqn.outputs[0].type
        a, b = [ctx.broadcast_operand(x, i.type, out) for x, i in zip(args, eqn.inputs)]
        return [ctx.op(f"{self.hlo} {a}, {b} : {ttype(out)}, {ttype(out)} -> {ttype(out)}")]


_TWO_OVER_SQRT_PI = float(2.0 / np.sqrt(np.pi))

_UNARY_VJP = {
    "lgamma": lambda L, g, x: L.mul(g, bind(digamma, x)),
    "digamma": lambda L, g, x: L.mul(g, bind(polygamma, L.full_like(x, 1.0), x)),
    "erfc": lambda L, g, x: L.mul(L.mul(g, -_TWO_OVER_SQRT_PI), L.exp(L.neg(L.mul(x, x)))),
}

lgamma = _ChloUnary("lgamma")
digamma = _ChloUnary("digamma")
erfc = _ChloUnary("erfc")
polygamma = _ChloBinary("polygamma")
zeta = _ChloBinary("zeta")
