"""`lax.random_gamma_grad`: the derivative of a Gamma(a, 1) sample in `a` at a fixed key
(JAX's `jax/_src/lax/special.py`: `random_gamma_grad_impl` in `_up_and_broadcast`).

Not a primitive in JAX either: it is the incomplete-gamma power series and continued
fraction of `incomplete.py` (XLA's math.cc, ported by JAX) in their SAMPLE_DERIVATIVE mode.
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
from .creation import asarray, broadcast_to
from .incomplete import _SAMPLE_DERIVATIVE, _igamma_prelude, _igamma_series, _igammac_continued_fraction

__all__ = ["random_gamma_grad"]


def _impl(a, x):
    """JAX's `random_gamma_grad_impl` on operands of one shape and float dtype."""
    eps, is_nan, ax, _ = _igamma_prelude(a, x)
    d = type_of(a).dtype      # JAX's `ax < -log(finfo.max)` with the log in the program, as before
    underflow = lax.lt(ax, lax.neg(lax.log(Const(np.array(ml_dtypes.finfo(d).max, d), d))))
    x_is_zero = lax.eq(x, lax.full_like(x, 0))
    domain_error = lax.bitwise_or(lax.lt(x, lax.full_like(x, 0)), lax.le(a, lax.full_like(a, 0)))
    use_igammac = lax.bitwise_and(lax.gt(x, lax.full_like(x, 1)), lax.gt(x, a))
    ax = lax.exp(ax)
    enabled = lax.bitwise_not(lax.bitwise_or(lax.bitwise_or(lax.bitwise_or(x_is_zero, domain_error), underflow),
                                             is_nan))
    output = lax.select(
        use_igammac,
        lax.neg(_igammac_continued_fraction(ax, x, a, lax.bitwise_and(enabled, use_igammac), eps,
                                            _SAMPLE_DERIVATIVE)),
        _igamma_series(ax, x, a, lax.bitwise_and(enabled, lax.bitwise_not(use_igammac)), eps, _SAMPLE_DERIVATIVE))
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
