"""Special functions (JAX's `jax/_src/lax/special.py`): `lgamma`, `digamma`, `erfc`,
`bessel_i1e` (unary) and `polygamma`, `zeta`, `nextafter` (binary), each lowered to its `chlo`
op as JAX does; `bessel_i0e` is lowered as JAX's `mlir.lower_fun(bessel_i0e_impl)`: Cephes'
Chebyshev series in float32 (bf16/f16 upcast), every intermediate pinned to the result's
sharding as JAX's lowering under sharding in types does.

They are elementwise ops: shape, sharding, unreduced/reduced and VMA rules are those of
`elementwise.Unary` / `elementwise.Nary` (float operands only, as JAX's `_float` dtype
rule), and they join the `UNARY` / `BINARY` tables there so `shardc.lax` binds them like
any other elementwise op. Their VJPs are JAX's JVP rules transposed:
`lgamma' = digamma`, `digamma' = polygamma(1, x)`, `erfc' = -2/sqrt(pi) exp(-x^2)`,
`polygamma(m, x)` in x is `polygamma(m + 1, x)` (in m JAX refuses), `zeta` has none,
`nextafter` neither ("Differentiation rule for 'nextafter' not implemented");
`bessel_i0e' = i1e(x) - sign(x) i0e(x)`, `bessel_i1e' = i0e(x) - i1e(x) (sign(x) + 1/x)` (0.5
where |x| <= eps).
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

from .. import dtypes as dt
from ..core import Tracer, bind
from ..emit.text import ttype
from ..errors import ShardcNotImplementedError, ShardcValueError
from .elementwise import BINARY, UNARY, Nary, Unary, unbroadcast

__all__ = ["lgamma", "digamma", "erfc", "polygamma", "zeta", "nextafter", "bessel_i0e", "bessel_i1e"]


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

    def __init__(self, name: str, hlo: str | None = None):
        super().__init__(name, hlo or f"chlo.{name}", "f")
        BINARY[name] = self

    def check_live(self, live, **_):
        """JAX refuses a cotangent for zeta and nextafter, and for polygamma's order m (before any rule runs)."""
        if self.name == "zeta" and any(live):
            raise ShardcNotImplementedError("differentiation of zeta is not supported (JAX has no derivative "
                                            "rule for it)")
        if self.name == "nextafter" and any(live):
            raise ShardcNotImplementedError("Differentiation rule for 'nextafter' not implemented")
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
    # JAX's `defjvp2` rules (y = the primal output, recomputed by binding the primitive)
    "bessel_i0e": lambda L, g, x: L.mul(g, L.sub(bind(bessel_i1e, x), L.mul(L.sign(x), bind(bessel_i0e, x)))),
    "bessel_i1e": lambda L, g, x: _bessel_i1e_vjp(L, g, x),
}


def _bessel_i1e_vjp(L, g, x):
    """JAX's `_bessel_i1e_jvp`: a safe x away from 0, and the limit 0.5 at |x| <= eps."""
    eps = float(ml_dtypes.finfo(x.aval.dtype).eps)
    not_tiny = L.gt(bind(UNARY["abs"], x), eps)
    safe_x = L.select_n(not_tiny, L.full_like(x, eps), x)
    y = bind(bessel_i1e, x)
    dy_dx = L.sub(bind(bessel_i0e, safe_x), L.mul(y, L.add(L.sign(safe_x), L.integer_pow(safe_x, -1))))
    return L.mul(g, L.select_n(not_tiny, L.full_like(x, 0.5), dy_dx))

lgamma = _ChloUnary("lgamma")
digamma = _ChloUnary("digamma")
erfc = _ChloUnary("erfc")
polygamma = _ChloBinary("polygamma")
zeta = _ChloBinary("zeta")
nextafter = _ChloBinary("nextafter", "chlo.next_after")
bessel_i1e = _ChloUnary("bessel_i1e")


# Cephes' float32 coefficients of JAX's `_i0e_impl32` (|x| <= 8, then |x| > 8)
_I0E_A = [-1.30002500998624804212E-8, 6.04699502254191894932E-8, -2.67079385394061173391E-7,
          1.11738753912010371815E-6, -4.41673835845875056359E-6, 1.64484480707288970893E-5,
          -5.75419501008210370398E-5, 1.88502885095841655729E-4, -5.76375574538582365885E-4,
          1.63947561694133579842E-3, -4.32430999505057594430E-3, 1.05464603945949983183E-2,
          -2.37374148058994688156E-2, 4.93052842396707084878E-2, -9.49010970480476444210E-2,
          1.71620901522208775349E-1, -3.04682672343198398683E-1, 6.76795274409476084995E-1]
_I0E_B = [3.39623202570838634515E-9, 2.26666899049817806459E-8, 2.04891858946906374183E-7,
          2.89137052083475648297E-6, 6.88975834691682398426E-5, 3.36911647825569408990E-3,
          8.04490411014108831608E-1]


class _BesselI0e(_ChloUnary):
    """`lax.bessel_i0e`: JAX has no chlo op for it and lowers `bessel_i0e_impl` instead."""

    def lower(self, ctx, eqn, x):
        out = eqn.outputs[0].type
        f32 = out.update(dtype=dt.float32)
        t = ttype(f32)

        def pin(name, typ=f32):
            return ctx.constrain(name, typ)

        def op(kind, *args):
            return pin(ctx.op(f"stablehlo.{kind} {', '.join(args)} : {t}"))

        def splat(v):
            return pin(ctx.splat(v, dt.float32, f32.shape))

        def chebyshev(y, coefficients):
            # JAX's `evaluate_chebyshev_polynomial` (Clenshaw's recurrence), op for op
            b0, b1, b2 = splat(0.0), splat(0.0), splat(0.0)
            for c in coefficients:
                b2, b1 = b1, b0
                b0 = op("add", op("subtract", op("multiply", y, b1), b2), splat(c))
            return op("multiply", splat(0.5), op("subtract", b0, b2))

        if out.dtype != dt.float32:
            x = pin(ctx.op(f"stablehlo.convert {x} : ({ttype(eqn.inputs[0].type)}) -> {t}"))
        a = op("abs", x)
        half, two, thirty_two = splat(0.5), splat(2.0), splat(32.0)
        le_8 = chebyshev(op("subtract", op("multiply", half, a), two), _I0E_A)
        gt_8 = op("divide", chebyshev(op("subtract", op("divide", thirty_two, a), two), _I0E_B), op("sqrt", a))
        pred_t = f32.update(dtype=dt.bool_)
        pred = pin(ctx.op(f"stablehlo.compare LE, {a}, {splat(8.0)}, FLOAT : ({t}, {t}) -> {ttype(pred_t)}"),
                   pred_t)
        r = ctx.op(f"stablehlo.select {pred}, {le_8}, {gt_8} : {ttype(pred_t)}, {t}")
        if out.dtype != dt.float32:   # (the driver pins the equation's result)
            r = ctx.op(f"stablehlo.convert {pin(r)} : ({t}) -> {ttype(out)}")
            return [r]
        return [r]


bessel_i0e = _BesselI0e("bessel_i0e")
