"""`lax.random_gamma_grad`: the derivative of a Gamma(a, 1) sample in `a` at a fixed key
(JAX's `jax/_src/lax/special.py`: `random_gamma_grad_impl` in `_up_and_broadcast`).

Not a primitive in JAX either: it is the incomplete-gamma power series and continued
fraction (XLA's math.cc, ported by JAX) in their SAMPLE_DERIVATIVE mode, each a
`while_loop` over the whole array that runs while any element has not converged
(elements that have stop changing: the values are those of a per-element loop).
bf16/f16 operands are computed in float32 and rounded back, as JAX's wrapper does.
`shardc.random.gamma`'s JVP uses it.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

from .. import dtypes as dt
from .. import lax
from ..core import Const
from ..errors import ShardcTypeError
from ._util import is_array, type_of
from .control_flow import while_loop
from .creation import asarray, broadcast_to
from .reductions import any as _reduce_any

__all__ = ["random_gamma_grad"]


def _c(x, v) -> Const:
    d = type_of(x).dtype
    return Const(np.array(v, d), d)


def _series(ax, x, a, enabled, eps: float):
    """The power series of the lower incomplete gamma function, iterated while an enabled
    element's derivative term is above `eps` (JAX's `_igamma_series`, SAMPLE_DERIVATIVE)."""
    def body_fn(vals):
        enabled, r, c, ans, x, dc_da, dans_da = vals
        r = lax.add(r, _c(r, 1.))
        dc_da = lax.sub(lax.mul(dc_da, lax.div(x, r)), lax.div(lax.mul(c, x), lax.mul(r, r)))
        dans_da = lax.add(dans_da, dc_da)
        c = lax.mul(c, lax.div(x, r))
        ans = lax.add(ans, c)
        conditional = lax.bitwise_and(enabled, lax.gt(lax.abs(lax.div(dc_da, dans_da)), _c(dc_da, eps)))
        return (conditional,) + tuple(lax.select(enabled, new, old)
                                      for new, old in zip((r, c, ans, x, dc_da, dans_da), vals[1:]))

    init = (enabled, a, lax.full_like(a, 1), lax.full_like(a, 1), x, lax.full_like(a, 0), lax.full_like(a, 0))
    vals = while_loop(lambda v: _reduce_any(v[0]), body_fn, init)
    ans, dans_da = vals[3], vals[6]
    dlogax_da = lax.sub(lax.log(x), lax.digamma(lax.add(a, _c(a, 1))))
    return lax.div(lax.mul(lax.neg(lax.add(dans_da, lax.mul(ans, dlogax_da))), x), a)


def _continued_fraction(ax, x, a, enabled, eps: float):
    """The continued fraction of the upper incomplete gamma function, at most 2000 steps
    (JAX's `_igammac_continued_fraction`, SAMPLE_DERIVATIVE)."""
    def cond_fn(vals):
        return lax.bitwise_and(lax.lt(vals[5], _c(vals[5], 2000)), _reduce_any(vals[0]))

    def body_fn(vals):
        (enabled, ans, t, y, z, c, pkm1, qkm1, pkm2, qkm2,
         dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da, dans_da) = vals
        c = lax.add(c, _c(c, 1))
        y = lax.add(y, _c(y, 1))
        z = lax.add(z, _c(z, 2))
        yc = lax.mul(y, c)
        pk = lax.sub(lax.mul(pkm1, z), lax.mul(pkm2, yc))
        qk = lax.sub(lax.mul(qkm1, z), lax.mul(qkm2, yc))
        qk_is_nonzero = lax.ne(qk, _c(qk, 0))
        r = lax.div(pk, qk)
        t = lax.select(qk_is_nonzero, lax.abs(lax.div(lax.sub(ans, r), r)), lax.full_like(r, 1))
        ans = lax.select(qk_is_nonzero, r, ans)
        dpk_da = lax.add(lax.sub(lax.sub(lax.mul(dpkm1_da, z), pkm1), lax.mul(dpkm2_da, yc)), lax.mul(pkm2, c))
        dqk_da = lax.add(lax.sub(lax.sub(lax.mul(dqkm1_da, z), qkm1), lax.mul(dqkm2_da, yc)), lax.mul(qkm2, c))
        dans_da_new = lax.select(qk_is_nonzero, lax.div(lax.sub(dpk_da, lax.mul(ans, dqk_da)), qk), dans_da)
        grad_conditional = lax.select(qk_is_nonzero, lax.abs(lax.sub(dans_da_new, dans_da)),
                                      lax.full_like(dans_da, 1))
        pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
        dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da = dpkm1_da, dqkm1_da, dpk_da, dqk_da
        rescale = lax.gt(lax.abs(pk), lax.reciprocal(_c(pk, eps)))
        pkm2, pkm1, qkm2, qkm1, dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da = (
            lax.select(rescale, lax.mul(v, _c(v, eps)), v)
            for v in (pkm2, pkm1, qkm2, qkm1, dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da))
        conditional = lax.bitwise_and(enabled, lax.gt(grad_conditional, _c(grad_conditional, eps)))
        new = (ans, t, y, z, c, pkm1, qkm1, pkm2, qkm2, dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da, dans_da_new)
        return (conditional,) + tuple(v if k == 4 else lax.select(enabled, v, old)
                                      for k, (v, old) in enumerate(zip(new, vals[1:])))

    y = lax.sub(_c(a, 1), a)
    z = lax.add(lax.add(x, y), _c(x, 1))
    c = asarray(_c(x, 0))
    pkm2 = lax.full_like(x, 1)
    qkm2 = x
    pkm1 = lax.add(x, _c(x, 1))
    qkm1 = lax.mul(z, x)
    ans = lax.div(pkm1, qkm1)
    t = lax.full_like(x, 1)
    dpkm2_da = lax.full_like(x, 0)
    dqkm2_da = lax.full_like(x, 0)
    dpkm1_da = lax.full_like(x, 0)
    dqkm1_da = lax.neg(x)
    dans_da = lax.div(lax.sub(dpkm1_da, lax.mul(ans, dqkm1_da)), qkm1)
    init = (enabled, ans, t, y, z, c, pkm1, qkm1, pkm2, qkm2, dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da, dans_da)
    vals = while_loop(cond_fn, body_fn, init)
    dlogax_da = lax.sub(lax.log(x), lax.digamma(a))
    return lax.neg(lax.mul(lax.add(vals[14], lax.mul(vals[1], dlogax_da)), x))


def _impl(a, x):
    """JAX's `random_gamma_grad_impl` on operands of one shape and float dtype."""
    d = type_of(a).dtype
    eps = float(ml_dtypes.finfo(d).eps)
    is_nan = lax.bitwise_or(lax.ne(a, a), lax.ne(x, x))
    x_is_zero = lax.eq(x, lax.full_like(x, 0))
    domain_error = lax.bitwise_or(lax.lt(x, lax.full_like(x, 0)), lax.le(a, lax.full_like(a, 0)))
    use_igammac = lax.bitwise_and(lax.gt(x, lax.full_like(x, 1)), lax.gt(x, a))
    ax = lax.sub(lax.sub(lax.mul(a, lax.log(x)), x), lax.lgamma(a))
    underflow = lax.lt(ax, lax.neg(lax.log(_c(a, ml_dtypes.finfo(d).max))))
    ax = lax.exp(ax)
    enabled = lax.bitwise_not(lax.bitwise_or(lax.bitwise_or(lax.bitwise_or(x_is_zero, domain_error), underflow),
                                             is_nan))
    output = lax.select(use_igammac,
                        lax.neg(_continued_fraction(ax, x, a, lax.bitwise_and(enabled, use_igammac), eps)),
                        _series(ax, x, a, lax.bitwise_and(enabled, lax.bitwise_not(use_igammac)), eps))
    output = lax.select(x_is_zero, lax.full_like(output, 0), output)
    return lax.select(lax.bitwise_or(domain_error, is_nan), lax.full_like(a, np.nan), output)


def random_gamma_grad(a, x):
    """Elementwise derivative of samples from `Gamma(a, 1)` (`jax.lax.random_gamma_grad`)."""
    a, x = (v if is_array(v) else asarray(v) for v in (a, x))
    ta, tx = type_of(a), type_of(x)
    if ta.dtype != tx.dtype or not dt.is_float(ta.dtype):
        raise ShardcTypeError(f"random_gamma_grad requires arguments of one floating dtype, got "
                              f"{ta.dtype.name} and {tx.dtype.name}")
    shape = tuple(np.broadcast_shapes(ta.shape, tx.shape))
    a, x = (v if type_of(v).shape == shape else broadcast_to(v, shape) for v in (a, x))
    d = ta.dtype
    if d in (np.dtype(ml_dtypes.bfloat16), np.dtype(np.float16)):
        f32 = np.dtype(np.float32)
        return lax.convert_element_type(_impl(lax.convert_element_type(a, f32), lax.convert_element_type(x, f32)), d)
    return _impl(a, x)
