"""`jax.nn`'s activations and functions, written as JAX 0.10.2 writes them
(jax/_src/nn/functions.py, jax/_src/ops/special.py) out of shardc's ops, so
types (shardings, weak types), values at the edges (-inf, large inputs,
`where=` masks) and gradients are JAX's. Where JAX gives a function its own
derivative (`relu`, `relu6`, `log1mexp`, the `logaddexp` behind `softplus`)
it is a `custom_jvp` here too, with JAX's rule; where JAX stops the gradient
of a max (`softmax`, `log_softmax`, `logsumexp`) so does this (`softmax`
follows `jax_softmax_custom_jvp` as JAX does). jnp's masked reductions
(`max(where=, initial=)`, `sum(where=)`, `mean(where=)`) are private helpers
here, written as jnp's `_reduction` applies the mask.

`sc.nn` re-exports every name; `sc.relu`, `sc.gelu`, `sc.silu`, `sc.swish`,
`sc.softmax`, `sc.log_softmax` and `sc.logsumexp` stay at the top level.
"""
from __future__ import annotations

import warnings

import numpy as np
from jax import config as _jax_config

from .. import dtypes as dt
from .. import lax as _lax
from ..core import Const, api, raise_user_error, scalar_const
from ..errors import ShardcAssertionError, ShardcNotImplementedError, ShardcValueError
from ._util import normalize_axes, promote, promote_to_float, type_of
from .creation import asarray, broadcast_to, full_like, zeros_like
from .custom import custom_jvp
from .elementwise import (
    abs,
    add,
    astype,
    clip,
    equal,
    exp,
    expm1,
    greater,
    greater_equal,
    isfinite,
    less,
    less_equal,
    log,
    log1p,
    logical_and,
    maximum,
    minimum,
    multiply,
    negative,
    not_equal,
    rsqrt,
    sigmoid,
    sign,
    sqrt,
    square,
    subtract,
    true_divide,
    where,
)
from .elementwise import tanh as _tanh
from .indexing import one_hot as _one_hot
from .manual import axis_index, axis_size
from .reductions import _check_where, _ensure_arraylike, _reduction_dims
from .reductions import max as rmax
from .reductions import sum as rsum
from .shape import _arr, expand_dims
from .sharding import stop_gradient

__all__ = [
    "celu", "elu", "gelu", "glu", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh", "identity",
    "leaky_relu", "log1mexp", "log_sigmoid", "log_softmax", "logmeanexp", "logsumexp", "mish", "one_hot",
    "relu", "relu6", "selu", "sigmoid", "silu", "soft_sign", "softmax", "softplus", "sparse_plus",
    "sparse_sigmoid", "squareplus", "standardize", "swish", "tanh",
]


# --- helpers: jnp's promotion and masked reductions, as JAX's functions use them ------------------
def _inexact(*xs):
    """`promote_args_inexact`: promote to the common dtype, then ints/bools to float."""
    xs = [_arr(x) for x in xs]
    return [promote_to_float(x) for x in promote(*xs)] if len(xs) > 1 else [promote_to_float(xs[0])]


def _const(x, v) -> Const:
    """A non-weak scalar of `x`'s dtype (`np.asarray(v).astype(x.dtype)` in JAX's code)."""
    d = type_of(x).dtype
    if isinstance(v, _REAL_SCALARS):   # (gelu's constants, every layer): one shared constant
        return scalar_const(v, d, lambda: _cast_const(v, d))
    return _cast_const(v, d)


_REAL_SCALARS = (int, float, np.integer, np.floating)


def _cast_const(v, d) -> Const:
    with np.errstate(invalid="ignore", over="ignore"):
        return Const(np.asarray(v).astype(d), d, False)


def _select(pred, on_true, on_false):
    """`lax.select` (operands already of one shape and dtype)."""
    return where(pred, on_true, on_false)


def _masked(x, where_, fill):
    """`jnp._where(where, x, fill)` as jnp's reductions apply a `where=` mask."""
    return x if where_ is None else where(where_, x, _const(x, fill))


def _max(x, axis, keepdims: bool, where_=None, initial=None):
    """`jnp.max(x, axis, keepdims=, where=, initial=)`."""
    x = _arr(x)
    if where_ is not None and initial is None:
        raise_user_error(ShardcValueError(
            "reduction operation max does not have an identity, so to use a where mask one has to "
            "specify 'initial'"))
    t = type_of(x)
    ident = -np.inf if dt.is_float(t.dtype) else (
        False if t.dtype == dt.bool_ else np.iinfo(t.dtype).min)
    axes = normalize_axes(axis, t.ndim)
    r = rmax(_masked(x, where_, ident), axes)
    if initial is not None:
        r = maximum(_const(r, initial), r)
    return expand_dims(r, axes) if keepdims else r


def _sum(x, axis, keepdims: bool, where_=None, dtype=None):
    """`jnp.sum(x, axis, dtype=, keepdims=, where=)`."""
    x = _arr(x)
    return rsum(_masked(x, where_, 0), axis, dtype=dtype, keepdims=keepdims)


def _count(x, axis, keepdims: bool, where_, dtype):
    """`jnp.reductions._count`: the number of elements each reduction takes."""
    t = type_of(x)
    if where_ is None:
        axes = normalize_axes(axis, t.ndim)
        n = int(np.prod([t.shape[a] for a in axes])) if axes else 1
        return asarray(np.asarray(n, dtype=dt.canonicalize(dtype)))
    mask = broadcast_to(_arr(where_), t.shape)
    return rsum(mask, axis, dtype=dtype, keepdims=keepdims)


def _mean(x, axis, keepdims: bool, where_):
    """`jnp.mean(x, axis, keepdims=, where=)`: f16/bf16 accumulate in f32."""
    x = _arr(x)
    d = type_of(x).dtype
    res = d if dt.is_float(d) else dt.float32
    comp = dt.float32 if res in (dt.bfloat16, dt.float16) else res
    s = _sum(x, axis, keepdims, where_, dtype=comp)
    n = _count(x, axis, keepdims, where_, comp)
    return astype(true_divide(s, n), res)


# --- activations -------------------------------------------------------------------------------
@api("sc.nn.identity")
def identity(x):
    """`jax.nn.identity`: the argument, as an array."""
    return _arr(x)


def _relu(x):
    return maximum(x, 0)


_relu_cj = custom_jvp(_relu)
# JAX's rule: the derivative at 0 is 0 (https://dl.acm.org/doi/10.5555/3540261.3540297)
_relu_cj.defjvps(lambda g, ans, x: _select(greater(x, 0), g, full_like(g, 0)))


@api("sc.relu")
def relu(x):
    """`max(x, 0)`; its derivative at 0 is 0 (JAX's custom JVP)."""
    return _relu_cj(_arr(x))


def _relu6(x):
    return minimum(maximum(x, 0), 6.)


_relu6_cj = custom_jvp(_relu6)
_relu6_cj.defjvps(lambda g, ans, x: _select(logical_and(greater(x, 0), less(x, 6)), g, full_like(g, 0)))


@api("sc.nn.relu6")
def relu6(x):
    """`min(max(x, 0), 6)`; derivative 0 at 0 and 6 (JAX's custom JVP)."""
    return _relu6_cj(_arr(x))


@api("sc.nn.squareplus")
def squareplus(x, b=4):
    """`(x + sqrt(x**2 + b)) / 2`."""
    x, b = _arr(x), _arr(b)
    y = add(x, sqrt(add(square(x), b)))
    return true_divide(y, 2)


def _replace_inf(x):
    """`lax_other._replace_inf`: +inf (only) becomes 0."""
    return _select(equal(x, _const(x, np.inf)), zeros_like(x), x)


def _logaddexp_impl(x1, x2):
    """`lax_other.logaddexp`: NaN differences (infinities of one sign) add instead."""
    amax = maximum(x1, x2)
    delta = subtract(x1, x2)
    return _select(not_equal(delta, delta), add(x1, x2), add(amax, log1p(exp(negative(abs(delta))))))


_logaddexp_cj = custom_jvp(_logaddexp_impl)


@_logaddexp_cj.defjvp
def _logaddexp_jvp(primals, tangents):
    x1, x2 = primals
    t1, t2 = tangents
    out = _logaddexp_cj(x1, x2)
    return out, add(multiply(t1, exp(subtract(_replace_inf(x1), _replace_inf(out)))),
                    multiply(t2, exp(subtract(_replace_inf(x2), _replace_inf(out)))))


def _logaddexp(x1, x2):
    """`jnp.logaddexp`: promoted to a float dtype, then JAX's custom-JVP `logaddexp`."""
    x1, x2 = _inexact(x1, x2)
    return _logaddexp_cj(x1, x2)


@api("sc.nn.softplus")
def softplus(x):
    """`log(1 + exp(x))`, as `jnp.logaddexp(x, 0)`."""
    return _logaddexp(x, 0)


@api("sc.nn.sparse_plus")
def sparse_plus(x):
    """0 for x <= -1, (x + 1)**2 / 4 in between, x for x >= 1."""
    x = _arr(x)
    return where(less_equal(x, -1.0), 0.0, where(greater_equal(x, 1.0), x, true_divide((x + 1.0) ** 2, 4)))


@api("sc.nn.soft_sign")
def soft_sign(x):
    """`x / (|x| + 1)`."""
    x = _arr(x)
    return true_divide(x, add(abs(x), 1))


@api("sc.nn.sparse_sigmoid")
def sparse_sigmoid(x):
    """`0.5 * clip(x + 1, 0, 2)`."""
    return multiply(0.5, clip(add(_arr(x), 1.0), 0.0, 2.0))


@api("sc.silu")
def silu(x):
    """`x * sigmoid(x)` (also `swish`)."""
    x = _arr(x)
    return multiply(x, sigmoid(x))


swish = silu


@api("sc.nn.mish")
def mish(x):
    """`x * tanh(softplus(x))`."""
    x = _arr(x)
    return multiply(x, tanh(softplus(x)))


@api("sc.nn.log_sigmoid")
def log_sigmoid(x):
    """`-softplus(-x)`."""
    return negative(softplus(negative(_arr(x))))


@api("sc.nn.elu")
def elu(x, alpha=1.0):
    """x for x > 0, `alpha * expm1(x)` otherwise (the expm1 never sees positive x)."""
    x = _arr(x)
    return where(greater(x, 0), x, multiply(alpha, expm1(where(greater(x, 0), 0., x))))


@api("sc.nn.leaky_relu")
def leaky_relu(x, negative_slope=1e-2):
    """x for x >= 0, `negative_slope * x` otherwise."""
    x = _arr(x)
    return where(greater_equal(x, 0), x, multiply(negative_slope, x))


@api("sc.nn.hard_tanh")
def hard_tanh(x):
    """x clipped to [-1, 1]."""
    x = _arr(x)
    return where(greater(x, 1), 1, where(less(x, -1), -1, x))


@api("sc.nn.celu")
def celu(x, alpha=1.0):
    """`max(x, 0) + alpha * expm1(min(x, 0) / alpha)`."""
    x = _arr(x)
    return add(maximum(x, 0.0), multiply(alpha, expm1(true_divide(minimum(x, 0.0), alpha))))


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


@api("sc.nn.selu")
def selu(x):
    """`scale * elu(x, alpha)` with the self-normalizing constants."""
    return multiply(_SELU_SCALE, elu(x, _SELU_ALPHA))


@api("sc.gelu")
def gelu(x, approximate: bool = True):
    """GELU; the tanh approximation by default, as `jax.nn.gelu`; the exact
    form is `0.5 * x * erfc(-x / sqrt(2))`."""
    [x] = _inexact(x)
    if approximate:
        c = _const(x, np.sqrt(2 / np.pi))
        cdf = multiply(0.5, add(1.0, tanh(multiply(c, add(x, multiply(0.044715, x ** 3))))))
        return multiply(x, cdf)
    sqrt_half = _const(x, np.sqrt(0.5))
    return astype(multiply(multiply(0.5, x), _lax.erfc(multiply(negative(x), sqrt_half))), type_of(x).dtype)


@api("sc.nn.glu")
def glu(x, axis: int = -1):
    """`x1 * sigmoid(x2)` for the two halves of `x` along `axis`."""
    x = _arr(x)
    t = type_of(x)
    size = t.shape[axis]
    if size % 2 != 0:
        raise_user_error(ShardcAssertionError("axis size must be divisible by 2"))
    x1, x2 = _lax.split(x, (size // 2, size // 2), axis=axis % t.ndim)
    return multiply(x1, sigmoid(x2))


@api("sc.nn.hard_sigmoid")
def hard_sigmoid(x):
    """`relu6(x + 3) / 6`."""
    return true_divide(relu6(add(_arr(x), 3.)), 6.)


@api("sc.nn.hard_silu")
def hard_silu(x):
    """`x * hard_sigmoid(x)` (also `hard_swish`)."""
    x = _arr(x)
    return multiply(x, hard_sigmoid(x))


hard_swish = hard_silu


def _log1mexp(x):
    c = Const(np.asarray(np.log(2.0), dt.float32), dt.float32, True)
    return where(less(x, c), log(negative(expm1(negative(x)))), log1p(negative(exp(negative(x)))))


_log1mexp_cj = custom_jvp(_log1mexp)
_log1mexp_cj.defjvps(lambda g, ans, x: true_divide(g, expm1(x)))


@api("sc.nn.log1mexp")
def log1mexp(x):
    """`log(1 - exp(-x))`, stably (JAX's custom JVP: `g / expm1(x)`)."""
    return _log1mexp_cj(_arr(x))


@api("sc.nn.tanh")
def tanh(x, /):
    """`jnp.tanh` (positional-only, as JAX's ufuncs)."""
    return _tanh(x)


# --- normalizing functions ---------------------------------------------------------------------
@api("sc.logsumexp")
def logsumexp(a, axis=None, b=None, keepdims: bool = False, return_sign: bool = False, where=None):
    """`log(sum(b * exp(a)))` over `axis`, stably (the max is subtracted, its
    gradient stopped); `where=` masks elements out; `return_sign=True` returns
    `(log|sum|, sign(sum))`; with `b`, a negative sum is NaN."""
    if where is not None:
        a = _where_api(where, a, 0)
    if b is not None:
        a_arr, b_arr = _inexact(a, b)
        a_arr = _where_api(not_equal(b_arr, 0), a_arr, -np.inf)
    else:
        [a_arr] = _inexact(a)
        b_arr = a_arr
    t = type_of(a_arr)
    dims = normalize_axes(axis, t.ndim)
    amax = _max(a_arr, dims, keepdims, where, initial=-np.inf)
    amax = stop_gradient(_select(isfinite(amax), amax, full_like(amax, 0)))
    amax_with_dims = amax if keepdims else expand_dims(amax, dims)
    exp_a = exp(subtract(a_arr, astype(amax_with_dims, t.dtype)))
    if b is not None:
        exp_a = multiply(exp_a, b_arr)
    sumexp = _sum(exp_a, dims, keepdims, where)
    sgn = sign(sumexp)
    sumexp = abs(sumexp)
    out = add(log(sumexp), astype(amax, type_of(sumexp).dtype))
    if return_sign:
        return out, sgn
    if b is not None:
        out = _where_api(less(sgn, 0), _const(out, np.nan), out)
    return out


def _logsumexp(a, axis=None, dtype=None, out=None, keepdims: bool = False, initial=None, where=None):
    """`jnp.logaddexp.reduce` (JAX's `reductions._logsumexp`, here beside `logsumexp` for the custom-JVP
    `logaddexp` that folds `initial` in). As JAX's, `dtype` is checked and then unused, and an `initial`
    whose dtype is not the result's is JAX's AssertionError (its `lax_other.logaddexp` asserts)."""
    if out is not None:
        raise_user_error(ShardcNotImplementedError(
            "The 'out' argument to jnp.logaddexp.reduce is not supported."))
    if dtype is not None:
        dt.canonicalize(dtype)
    a = _ensure_arraylike("logsumexp", a)
    where = _check_where("logsumexp", where)
    [a_arr] = _inexact(a)
    t = type_of(a_arr)
    dims = _reduction_dims(t.ndim, axis)
    real = _lax.real(a_arr) if dt.is_complex(t.dtype) else a_arr
    amax = rmax(real, axis=dims, keepdims=keepdims, where=where, initial=-np.inf)
    amax = stop_gradient(_select(isfinite(amax), amax, full_like(amax, 0)))
    amax_with_dims = amax if keepdims else expand_dims(amax, dims)
    exp_a = exp(subtract(a_arr, astype(amax_with_dims, t.dtype)))
    sumexp = rsum(exp_a, axis=dims, keepdims=keepdims, where=where)
    result = add(log(sumexp), astype(amax, type_of(sumexp).dtype))
    if initial is None:
        return result
    init = _arr(initial)
    if type_of(init).dtype != type_of(result).dtype:
        raise_user_error(ShardcAssertionError(""))
    return _logaddexp_cj(init, result)


def _logsumexp2(a, axis=None, dtype=None, out=None, keepdims: bool = False, initial=None, where=None):
    """`jnp.logaddexp2.reduce` (JAX's `_logsumexp2`): `logsumexp(a ln2) / ln2`."""
    if out is not None:
        raise_user_error(ShardcNotImplementedError(
            "The 'out' argument to jnp.logaddexp2.reduce is not supported."))
    if dtype is not None:
        dtype = dt.canonicalize(dtype)
    a = _ensure_arraylike("logsumexp2", a)
    where = _check_where("logsumexp2", where)
    ln2 = float(np.log(2))
    if initial is not None:
        initial = multiply(initial, ln2)
    return true_divide(_logsumexp(multiply(a, ln2), axis=axis, dtype=dtype, keepdims=keepdims, where=where,
                                  initial=initial), ln2)


def _where_api(c, x, y):
    """`jnp.where`, callable where a parameter named `where` shadows it."""
    return where(c, x, y)


@api("sc.nn.logmeanexp")
def logmeanexp(x, axis=None, where=None, keepdims: bool = False):
    """`logsumexp(x) - log(n)`, n the number of elements reduced (or unmasked)."""
    lse = logsumexp(x, axis=axis, where=where, keepdims=keepdims)
    count = _count(_arr(x), axis, keepdims, where, type_of(lse).dtype)
    return subtract(lse, log(count))


@api("sc.log_softmax")
def log_softmax(x, axis=-1, where=None):
    """`x - logsumexp(x)` along `axis` (an int, a tuple or None); masked-out
    elements (`where=`) are -inf."""
    x = _arr(x)
    x_max = _max(x, axis, True, where, initial=-np.inf)
    x_safe = x if where is None else _where_api(where, x, -np.inf)
    shifted = subtract(x_safe, stop_gradient(x_max))
    shifted_logsumexp = log(_sum(exp(shifted), axis, True, where))
    result = subtract(shifted, shifted_logsumexp)
    if where is not None:
        return _where_api(where, result, -np.inf)
    return result


def _softmax_cj_fun(x, axis, where_):
    """`_softmax`: JAX's softmax under `jax_softmax_custom_jvp` (no stop_gradient; the JVP below).
    JAX also passes `initial` (always -inf from `softmax`): a constant here."""
    initial = -np.inf
    x_max = _max(x, axis, True, where_, initial=initial)
    x_safe = x if where_ is None else _where_api(where_, x, initial)
    unnormalized = exp(subtract(x_safe, x_max))
    result = true_divide(unnormalized, _sum(unnormalized, axis, True, where_))
    if where_ is not None:
        result = _where_api(where_, result, 0)
    return result


_softmax_cj = custom_jvp(_softmax_cj_fun, nondiff_argnums=(1,))


@_softmax_cj.defjvp
def _softmax_jvp(axis, primals, tangents):
    (x, where_), (x_dot, _) = primals, tangents
    y = _softmax_cj(x, axis, where_)
    return y, multiply(y, subtract(x_dot, _sum(multiply(y, x_dot), axis, True, where_)))


@api("sc.softmax")
def softmax(x, axis=-1, where=None):
    """`exp(x - max) / sum(exp(x - max))` along `axis` (an int, a tuple or
    None); masked-out elements (`where=`) are 0. As JAX 0.10.2 by default, the
    max's gradient is stopped; with `jax.config.update("jax_softmax_custom_jvp",
    True)` it is JAX's custom-JVP softmax."""
    x = _arr(x)
    if _jax_config.jax_softmax_custom_jvp:
        return _softmax_cj(x, axis, where)
    x_max = _max(x, axis, True, where, initial=-np.inf)
    x_safe = x if where is None else _where_api(where, x, -np.inf)
    unnormalized = exp(subtract(x_safe, stop_gradient(x_max)))
    result = true_divide(unnormalized, _sum(unnormalized, axis, True, where))
    if where is not None:
        result = _where_api(where, result, 0)
    return result


@api("sc.nn.standardize")
def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5, where=None, *, algorithm: str = "fast"):
    """`(x - mean) * rsqrt(variance + epsilon)` along `axis`; `algorithm="fast"`
    takes `mean(x**2) - mean(x)**2` (clipped at 0), `"stable"` the two-pass form."""
    x = _arr(x)
    if mean is None:
        mean = _mean(x, axis, True, where)
    if variance is None:
        if algorithm == "stable":
            variance = _mean(square(subtract(x, mean)), axis, True, where)
        elif algorithm == "fast":
            variance = subtract(_mean(square(x), axis, True, where), square(mean))
            variance = clip(variance, 0)
        else:
            raise_user_error(ShardcValueError(f"Unknown algorithm '{algorithm}'. Expected 'fast' or 'stable'."))
    return multiply(subtract(x, mean), rsqrt(add(variance, epsilon)))


@api("sc.nn.one_hot")
def one_hot(x, num_classes: int, *, dtype=None, axis=-1):
    """`jax.nn.one_hot`: `x == iota` along a new `axis` of size `num_classes`
    (out-of-range indices encode as zeros); `axis` may name a Manual mesh axis
    inside `shard_map`, where the class is this device's index along it."""
    x = _arr(x)
    if not dt.is_int(type_of(x).dtype):
        warnings.warn(f"jax.nn.one_hot input should be integer-typed; got dtype={type_of(x).dtype}",
                      DeprecationWarning, stacklevel=3)
    if isinstance(axis, (int, np.integer)):
        return _one_hot(x, num_classes, dtype=dtype, axis=axis)
    size = axis_size(axis)
    if num_classes != size:
        raise_user_error(ShardcValueError(f"Expected num_classes to match the size of axis {axis}, but "
                                          f"{num_classes} != {size}"))
    return astype(equal(x, axis_index(axis)), dt.float32 if dtype is None else dtype)
