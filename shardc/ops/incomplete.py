"""The incomplete gamma and beta functions: JAX's `lax.igamma`, `lax.igammac`,
`lax.igamma_grad_a` and `lax.betainc` (`jax/_src/lax/special.py`, ported from XLA's math.cc).

JAX binds a primitive for each and lowers it with `mlir.lower_fun` of these very
computations: a power series and a continued fraction, each a `while_loop` over the whole
array that runs while any element has not converged (elements that have converged stop
changing, so the values are those of a per-element loop); operands broadcast to one shape and
bf16/f16 computed in float32 (`_up_and_broadcast`). Here they are those compositions, with
JAX's derivative rules as `custom_jvp`s: `d igamma/dx = exp(-x + (a-1) log x - lgamma(a))`,
`d igamma/da = igamma_grad_a(a, x)`, `igammac`'s the negatives, `betainc` in `x` only (in `a`
and `b` JAX's ValueError), `igamma_grad_a` none (JAX's NotImplementedError).

The functions here take operands already of one float dtype; `shardc.lax`'s (in
`lax_extra.py`) check them as JAX's n-ary ops do, `shardc.scipy.special`'s promote first.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

from .. import lax
from ..core import raise_user_error
from ..errors import ShardcNotImplementedError, ShardcValueError
from ._util import as_operand, type_of
from .creation import asarray
from .custom import custom_jvp, custom_vjp
from .math import broadcast_arrays, isnan
from .reductions import any as _reduce_any

__all__ = ["igamma", "igammac", "igamma_grad_a", "betainc", "no_grad_ab"]


def _dtype(x) -> np.dtype:
    """`lax.dtype(x)`: the canonical dtype of an array or Python/NumPy value."""
    return type_of(as_operand(x)).dtype


def _const(x, v) -> np.ndarray:
    """`lax._const(x, v)`: a strong (non-weak) scalar of `x`'s dtype."""
    with np.errstate(invalid="ignore", over="ignore"):
        return np.asarray(v).astype(_dtype(x))


#: XLA's modes: the value, its derivative in `a` (igamma_grad_a), and the derivative of a
#: Gamma(a, 1) sample in `a` (random_gamma_grad, in `special.py`)
_VALUE, _DERIVATIVE, _SAMPLE_DERIVATIVE = "value", "derivative", "sample_derivative"


def _any(pred):
    return _reduce_any(pred)


def _igamma_series(ax, x, a, enabled, eps: float, mode: str):
    """The power series of the lower incomplete gamma function, iterated while any element of
    `enabled` has not converged (and its derivative in `a` alongside, for `_DERIVATIVE`)."""
    def cond_fn(vals):
        return _any(vals[0])

    def body_fn(vals):
        enabled, r, c, ans, x, dc_da, dans_da = vals
        r = r + _const(r, 1.)
        dc_da = dc_da * (x / r) - (c * x) / (r * r)
        dans_da = dans_da + dc_da
        c = c * (x / r)
        ans = ans + c
        if mode == _VALUE:
            conditional = enabled & (c / ans > eps)
        else:
            conditional = enabled & (lax.abs(dc_da / dans_da) > eps)
        return (conditional,) + tuple(lax.select(enabled, new, old) for new, old in
                                      zip((r, c, ans, x, dc_da, dans_da), vals[1:]))

    init = (enabled, a, lax.full_like(a, 1), lax.full_like(a, 1), x, lax.full_like(a, 0), lax.full_like(a, 0))
    vals = lax.while_loop(cond_fn, body_fn, init)
    ans, dans_da = vals[3], vals[6]
    if mode == _VALUE:
        return (ans * ax) / a
    dlogax_da = lax.log(x) - lax.digamma(a + _const(a, 1))
    if mode == _SAMPLE_DERIVATIVE:
        return -(dans_da + ans * dlogax_da) * x / a
    return ax * (ans * dlogax_da + dans_da) / a


def _igammac_continued_fraction(ax, x, a, enabled, eps: float, mode: str):
    """The continued fraction of the upper incomplete gamma function (at most 2000 steps)."""
    def cond_fn(vals):
        return (vals[5] < _const(vals[5], 2000)) & _any(vals[0])

    def body_fn(vals):
        (enabled, ans, t, y, z, c, pkm1, qkm1, pkm2, qkm2,
         dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da, dans_da) = vals
        c = c + _const(c, 1)
        y = y + _const(y, 1)
        z = z + _const(z, 2)
        yc = y * c
        pk = pkm1 * z - pkm2 * yc
        qk = qkm1 * z - qkm2 * yc
        qk_is_nonzero = lax.ne(qk, _const(qk, 0))
        r = pk / qk
        t = lax.select(qk_is_nonzero, lax.abs(lax.div(lax.sub(ans, r), r)), lax.full_like(r, 1))
        ans = lax.select(qk_is_nonzero, r, ans)
        dpk_da = dpkm1_da * z - pkm1 - dpkm2_da * yc + pkm2 * c
        dqk_da = dqkm1_da * z - qkm1 - dqkm2_da * yc + qkm2 * c
        dans_da_new = lax.select(qk_is_nonzero, lax.div(dpk_da - ans * dqk_da, qk), dans_da)
        grad_conditional = lax.select(qk_is_nonzero, lax.abs(dans_da_new - dans_da), lax.full_like(dans_da, 1))
        pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
        dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da = dpkm1_da, dqkm1_da, dpk_da, dqk_da
        rescale = lax.gt(lax.abs(pk), lax.reciprocal(_const(pk, eps)))
        e = _const(pk, eps)
        pkm2, pkm1, qkm2, qkm1, dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da = (
            lax.select(rescale, lax.mul(v, e), v)
            for v in (pkm2, pkm1, qkm2, qkm1, dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da))
        if mode == _VALUE:
            conditional = enabled & (t > eps)
        else:
            conditional = enabled & (grad_conditional > _const(grad_conditional, eps))
        new = (ans, t, y, z, c, pkm1, qkm1, pkm2, qkm2, dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da, dans_da_new)
        return (conditional,) + tuple(v if k == 4 else lax.select(enabled, v, old)
                                      for k, (v, old) in enumerate(zip(new, vals[1:])))

    y = _const(a, 1) - a
    z = x + y + _const(x, 1)
    c = asarray(_const(x, 0))
    pkm2 = lax.full_like(x, 1)
    qkm2 = x
    pkm1 = x + _const(x, 1)
    qkm1 = z * x
    ans = pkm1 / qkm1
    t = lax.full_like(x, 1)
    dpkm2_da = lax.full_like(x, 0)
    dqkm2_da = lax.full_like(x, 0)
    dpkm1_da = lax.full_like(x, 0)
    dqkm1_da = -x
    dans_da = (dpkm1_da - ans * dqkm1_da) / qkm1
    init = (enabled, ans, t, y, z, c, pkm1, qkm1, pkm2, qkm2, dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da, dans_da)
    vals = lax.while_loop(cond_fn, body_fn, init)
    ans = vals[1]
    if mode == _VALUE:
        return ans * ax
    dlogax_da = lax.log(x) - lax.digamma(a)
    if mode == _SAMPLE_DERIVATIVE:
        return -(vals[14] + ans * dlogax_da) * x
    return lax.mul(ax, lax.add(lax.mul(ans, dlogax_da), vals[14]))


def _or(*ps):
    out = ps[0]
    for p in ps[1:]:
        out = out | p
    return out


def _igamma_prelude(a, x):
    eps = float(np.finfo(_dtype(a)).eps)
    is_nan = isnan(a) | isnan(x)
    ax = a * lax.log(x) - x - lax.lgamma(a)
    underflow = lax.lt(ax, _const(ax, -np.log(np.finfo(_dtype(a)).max)))
    return eps, is_nan, ax, underflow


def _igamma_impl(a, x):
    eps, is_nan, ax, underflow = _igamma_prelude(a, x)
    x_is_infinity = lax.eq(x, _const(x, np.inf))
    a_is_zero = lax.eq(a, _const(a, 0))
    x_is_zero = lax.eq(x, _const(x, 0))
    domain_error = _or(lax.lt(x, _const(x, 0)), lax.lt(a, _const(a, 0)), a_is_zero & x_is_zero, is_nan)
    use_igammac = lax.ge(x, _const(x, 1)) & lax.gt(x, a)
    ax = lax.exp(ax)
    enabled = ~_or(x_is_zero, domain_error, underflow, x_is_infinity)
    output = lax.select(
        use_igammac,
        _const(a, 1) - _igammac_continued_fraction(ax, x, a, enabled & use_igammac, eps, _VALUE),
        _igamma_series(ax, x, a, enabled & ~use_igammac, eps, _VALUE))
    output = lax.select(x_is_zero, lax.full_like(a, 0), output)
    output = lax.select(x_is_infinity, lax.full_like(a, 1), output)
    return lax.select(domain_error, lax.full_like(a, np.nan), output)


def _igammac_impl(a, x):
    eps, is_nan, ax, underflow = _igamma_prelude(a, x)
    a_is_zero = lax.eq(a, _const(a, 0))
    x_is_zero = lax.eq(x, _const(x, 0))
    x_is_infinity = lax.eq(x, _const(x, np.inf))
    domain_error = _or(lax.lt(x, _const(x, 0)), lax.lt(a, _const(a, 0)), a_is_zero & x_is_zero, is_nan)
    use_igamma = lax.lt(x, _const(x, 1)) | lax.lt(x, a)
    enabled = ~_or(domain_error, underflow, x_is_infinity, a_is_zero)
    ax = lax.exp(ax)
    igamma_call = _igamma_series(ax, x, a, enabled & use_igamma, eps, _VALUE)
    igammac_cf_call = _igammac_continued_fraction(ax, x, a, enabled & ~use_igamma, eps, _VALUE)
    output = lax.select(use_igamma, _const(a, 1) - igamma_call, igammac_cf_call)
    output = lax.select(x_is_infinity | a_is_zero, lax.full_like(output, 0), output)
    return lax.select(domain_error, lax.full_like(a, np.nan), output)


def _igamma_grad_a_impl(a, x):
    eps, is_nan, ax, underflow = _igamma_prelude(a, x)
    x_is_zero = lax.eq(x, lax.full_like(x, 0))
    domain_error = lax.lt(x, lax.full_like(x, 0)) | lax.le(a, lax.full_like(a, 0))
    use_igammac = lax.gt(x, lax.full_like(x, 1)) & lax.gt(x, a)
    ax = lax.exp(ax)
    enabled = ~_or(x_is_zero, domain_error, underflow, is_nan)
    output = lax.select(use_igammac,
                        -_igammac_continued_fraction(ax, x, a, enabled & use_igammac, eps, _DERIVATIVE),
                        _igamma_series(ax, x, a, enabled & ~use_igammac, eps, _DERIVATIVE))
    output = lax.select(x_is_zero, lax.full_like(output, 0), output)
    return lax.select(domain_error | is_nan, lax.full_like(a, np.nan), output)


def _up_and_broadcast(impl):
    """JAX's `_up_and_broadcast`: operands broadcast to one shape, bf16/f16 computed in float32."""
    def run(*args):
        args = broadcast_arrays(*args)
        d = _dtype(args[0])
        if d in (np.dtype(ml_dtypes.bfloat16), np.dtype(np.float16)):
            return impl(*[lax.convert_element_type(v, np.float32) for v in args]).astype(d)
        return impl(*args)
    return run


def _igamma_gradx(g, a, x):
    return g * lax.exp(-x + (a - lax.full_like(a, 1)) * lax.log(x) - lax.lgamma(a))


@custom_jvp
def _igamma(a, x):
    return _up_and_broadcast(_igamma_impl)(a, x)


@custom_jvp
def _igammac(a, x):
    return _up_and_broadcast(_igammac_impl)(a, x)


_igamma.defjvps(lambda g, ans, a, x: g * _up_and_broadcast(_igamma_grad_a_impl)(a, x),
                lambda g, ans, a, x: _igamma_gradx(g, a, x))
_igammac.defjvps(lambda g, ans, a, x: -(g * _up_and_broadcast(_igamma_grad_a_impl)(a, x)),
                 lambda g, ans, a, x: -_igamma_gradx(g, a, x))


def _lentz(*, num_iterations: int, small, threshold, nth_partial_numerator, nth_partial_denominator, inputs):
    """The modified Lentz-Thompson-Barnett evaluation of a continued fraction, as JAX's."""
    def cond_fn(values):
        return lax.lt(values[0], num_iterations) & values[1]

    def body_fn(values):
        iteration, _, c_prev, d_prev, h_prev = values
        partial_numerator = nth_partial_numerator(iteration, *inputs)
        partial_denominator = nth_partial_denominator(iteration, *inputs)
        c = lax.add(partial_denominator, lax.div(partial_numerator, c_prev))
        small_constant = lax.full_like(c, small)
        c = lax.select(lax.lt(lax.abs(c), small_constant), small_constant, c)
        d = lax.add(partial_denominator, lax.mul(partial_numerator, d_prev))
        d = lax.select(lax.lt(lax.abs(d), small_constant), small_constant, d)
        d = lax.reciprocal(d)
        delta = lax.mul(c, d)
        h = lax.mul(h_prev, delta)
        unconverged = _any(lax.ge(lax.abs(lax.sub(delta, _const(delta, 1.0))), threshold))
        return iteration + 1, unconverged, c, d, h

    partial_denominator = nth_partial_denominator(0, *inputs)
    h = lax.select(lax.lt(lax.abs(partial_denominator), small), lax.full_like(partial_denominator, small),
                   partial_denominator)
    values = (asarray(np.int32(1)), asarray(True), h, lax.full_like(h, 0), h)
    return lax.while_loop(cond_fn, body_fn, values)[4]


def _betainc_impl(a, b, x):
    """JAX's `regularized_incomplete_beta_impl`: the continued fraction of DLMF 8.17.22."""
    d = _dtype(a)
    eps = np.asarray(np.finfo(d).eps / 2).astype(d)

    def iteration_like(iteration):
        # as JAX: an unsharded broadcast (so JAX's select refuses sharded operands, and so does shardc)
        return lax.broadcast_in_dim(asarray(iteration), tuple(type_of(a).shape), ())

    def numerator(iteration, a, b, x):
        it = iteration_like(iteration)
        iteration_is_even = lax.eq(it % 2, lax.full_like(it, 0))
        iteration_is_one = lax.eq(it, lax.full_like(it, 1))
        m = (it - 1) // 2
        m_is_zero = lax.eq(m, lax.full_like(m, 0))
        m = lax.convert_element_type(m, d)
        one = lax.full_like(a, 1)
        two = lax.full_like(a, 2.0)
        zero_numerator = -(a + b) * x / (a + one)
        even_numerator = lax.select(m_is_zero, zero_numerator,
                                    -(a + m) * (a + b + m) * x / ((a + two * m) * (a + two * m + one)))
        odd_numerator = m * (b - m) * x / ((a + two * m - one) * (a + two * m))
        num = lax.select(iteration_is_even, even_numerator, odd_numerator)
        return lax.select(iteration_is_one, lax.full_like(x, 1.0), num)

    def denominator(iteration, a, b, x):
        it = iteration_like(iteration)
        return lax.select(lax.eq(it, lax.full_like(it, 0)), lax.full_like(x, 0), lax.full_like(x, 1))

    a_is_zero = lax.eq(a, lax.full_like(a, 0)) | lax.eq(b, lax.full_like(b, np.inf))
    b_is_zero = lax.eq(b, lax.full_like(b, 0)) | lax.eq(a, lax.full_like(a, np.inf))
    x_is_zero = lax.eq(x, lax.full_like(x, 0))
    x_is_one = lax.eq(x, lax.full_like(x, 1))
    is_nan = isnan(a) | isnan(b) | isnan(x)
    result_is_zero = (b_is_zero & ~x_is_one) | (a_is_zero & x_is_zero)
    result_is_one = (a_is_zero & ~x_is_zero) | (b_is_zero & x_is_one)
    result_is_nan = _or(lax.lt(a, lax.full_like(a, 0)), lax.lt(b, lax.full_like(b, 0)),
                        lax.lt(x, lax.full_like(x, 0)), lax.gt(x, lax.full_like(x, 1)))
    result_is_nan = result_is_nan | (a_is_zero & b_is_zero) | is_nan
    converges_rapidly = lax.lt(x, (a + lax.full_like(a, 1)) / (a + b + lax.full_like(b, 2.0)))
    a_orig = a
    a = lax.select(converges_rapidly, a, b)
    b = lax.select(converges_rapidly, b, a_orig)
    x = lax.select(converges_rapidly, x, lax.sub(lax.full_like(x, 1), x))
    continued_fraction = _lentz(num_iterations=200, small=eps, threshold=eps, nth_partial_numerator=numerator,
                                nth_partial_denominator=denominator, inputs=[a, b, x])
    very_small = np.asarray(np.finfo(d).tiny * 2).astype(d)
    lbeta_ab_small_a = lax.lgamma(b) - lax.lgamma(a + b)
    lbeta_ab = lax.lgamma(a) + lbeta_ab_small_a
    factor = lax.select(lax.lt(a, lax.full_like(a, very_small)),
                        lax.exp(lax.log1p(-x) * b - lbeta_ab_small_a),
                        lax.exp(lax.log(x) * a + lax.log1p(-x) * b - lbeta_ab) / a)
    result = continued_fraction * factor
    result = lax.select(converges_rapidly, result, lax.sub(lax.full_like(result, 1), result))
    result = lax.select(result_is_zero, lax.full_like(a, 0), result)
    result = lax.select(result_is_one, lax.full_like(a, 1), result)
    return lax.select(result_is_nan, lax.full_like(a, np.nan), result)


@custom_jvp
def _betainc(a, b, x):
    return _up_and_broadcast(_betainc_impl)(a, b, x)


def _betainc_jvp(primals, tangents):
    a, b, x = primals
    ta, tb, tx = tangents
    lbeta = lax.lgamma(a) + lax.lgamma(b) - lax.lgamma(a + b)
    partial_x = lax.exp((b - 1) * lax.log1p(-x) + (a - 1) * lax.log(x) - lbeta)
    # a and b reach the tangent with a zero factor, so that reverse mode sends their cotangents to
    # `_no_grad_ab`, which refuses them as JAX does
    return _betainc(a, b, x), partial_x * tx + 0 * ta + 0 * tb


_betainc.defjvp(_betainc_jvp)


@custom_vjp
def _no_grad_ab(v):
    """The identity, whose cotangent is JAX's refusal: reverse mode reaches its rule only when
    the program differentiates `betainc` in `a` or `b` (JAX defines no derivative there)."""
    return v


def _no_grad_bwd(_, g):
    raise_user_error(ShardcValueError("Betainc gradient with respect to a and b not supported."))


_no_grad_ab.defvjp(lambda v: (v, None), _no_grad_bwd)


@custom_vjp
def _igamma_grad_a(a, x):
    return _up_and_broadcast(_igamma_grad_a_impl)(a, x)


def _igamma_grad_a_bwd(_, g):
    raise_user_error(ShardcNotImplementedError("Differentiation rule for 'igamma_grad_a' not implemented"))


_igamma_grad_a.defvjp(lambda a, x: (_igamma_grad_a(a, x), None), _igamma_grad_a_bwd)

#: the public names: JAX's functions on operands of one float dtype
igamma, igammac, igamma_grad_a, betainc, no_grad_ab = _igamma, _igammac, _igamma_grad_a, _betainc, _no_grad_ab
