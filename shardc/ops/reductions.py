"""Reductions and cumulative ops with `jnp` dtype rules (small ints and bools
sum in int32; bf16/f16 accumulate in f32; `mean` of ints is float)."""
from __future__ import annotations

import builtins
import math
import operator

import ml_dtypes
import numpy as np

from .. import dtypes as dt
from .. import lax as _lax
from ..core import Const, Tracer, api, bind, raise_user_error
from ..errors import ShardcNotImplementedError, ShardcTypeError, ShardcValueError, ShardingTypeError
from ..primitives import complex as cx
from ..primitives import reduce_generic as rg
from ..primitives import reductions as rd
from ._util import as_operand, convert, to_spec, type_of
from .elementwise import _broadcast_to, astype, where
from .shape import _arr, reshape

_where = where   # (`where` is also a parameter name of the reductions)


def _ensure_arraylike(name: str, x):
    """JAX's `ensure_arraylike`: an array or a scalar (a list or a tuple is a TypeError, not an array)."""
    if type(x) is Tracer:
        return x
    if isinstance(x, (list, tuple, str, bytes)) or x is None:
        raise_user_error(ShardcTypeError(f"{name} requires ndarray or scalar arguments, got {type(x)} at position 0."))
    return _arr(x)


def _out(name: str, out, period: str = ".") -> None:
    """JAX refuses `out=` (accepted only because NumPy delegates to it)."""
    if out is not None:
        raise_user_error(ShardcNotImplementedError(f"The 'out' argument to jnp.{name} is not supported{period}"))


def _check_where(name: str, where):
    """JAX's `check_where`: None, or a boolean array (any other dtype is a ValueError)."""
    if where is None:
        return None
    where = _ensure_arraylike(name, where)
    d = type_of(where).dtype
    if d != dt.bool_:
        raise_user_error(ShardcValueError(
            f"jnp.{name}: where must be None or a boolean array; got where.dtype={np.dtype(d)!r}."))
    return where


def _optional_axes(axis):
    """JAX's `_ensure_optional_axes`: None, an int, or a tuple of ints (`operator.index` each)."""
    if axis is None:
        return None
    try:
        return operator.index(axis)
    except TypeError:
        return tuple(operator.index(i) for i in axis)


def _canonical_axis(axis: int, ndim: int) -> int:
    if not -ndim <= axis < ndim:
        raise_user_error(ShardcValueError(f"axis {axis} is out of bounds for array of dimension {ndim}"))
    return axis % ndim


def _reduction_dims(ndim: int, axis) -> tuple[int, ...]:
    """JAX's `_reduction_dims`: the canonical axes, duplicates refused."""
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, (tuple, list, np.ndarray)) else (axis,)
    out = tuple(_canonical_axis(operator.index(a), ndim) for a in axes)
    if len(out) != len(set(out)):
        raise_user_error(ShardcValueError(f"duplicate value in 'axis': {axis}"))
    return out


def _promote_integer_dtype(d: np.dtype) -> np.dtype:
    """JAX's `_promote_integer_dtype`: bool and narrow ints to the default int/uint (32-bit, x64 off)."""
    if d == dt.bool_:
        return dt.int32
    if dt.is_int(d) and d.itemsize < 4:
        return dt.int32 if dt.is_signed(d) else dt.uint32
    return d


def _sum_dtype(d: np.dtype) -> np.dtype:
    return _promote_integer_dtype(d)


def _upcast_f16(d: np.dtype) -> np.dtype:
    return dt.float32 if d in (dt.float16, dt.bfloat16) else d


def _to_inexact(d: np.dtype) -> np.dtype:
    """`dtypes.to_inexact_dtype` with x64 off: ints and bools to float32."""
    return d if dt.is_inexact(d) else dt.float32


def _init_val(d: np.dtype, v) -> Const:
    """JAX's `_reduction_init_val`: the identity `v` in dtype `d` (bool: `v > 0`; an infinity in a
    float without infinities: its finite extreme; an overflowing int: the int's extreme)."""
    if d == dt.bool_:
        return Const(np.array(v > 0, d), d, False)
    if np.isinf(v) and dt.is_float(d) and not np.isinf(np.array(np.inf).astype(d)):
        fi = ml_dtypes.finfo(d)
        return Const(np.array(fi.min if v < 0 else fi.max, d), d, False)
    if np.isinf(v) and dt.is_int(d):
        ii = np.iinfo(d)
        return Const(np.array(ii.min if v < 0 else ii.max, d), d, False)
    return Const(np.array(v, d), d, False)


#: a reduction's primitive and binary op (for `initial=`), and its op on bools
_OPS = {"sum": ("sum", _lax.add, "or", _lax.bitwise_or), "prod": ("prod", _lax.mul, "and", _lax.bitwise_and),
        "max": ("max", _lax.max, "or", _lax.bitwise_or), "min": ("min", _lax.min, "and", _lax.bitwise_and),
        "or": ("or", _lax.bitwise_or, "or", _lax.bitwise_or), "and": ("and", _lax.bitwise_and, "and", _lax.bitwise_and),
        "xor": ("xor", _lax.bitwise_xor, "xor", _lax.bitwise_xor)}
#: the reduction primitive of each kind (`lax.reduce`'s monoid reducers: xor is `reduce_xor`)
_PRIMS = {**rd.REDUCE, "xor": rg.reduce_xor}


def _cast_to_bool(x):
    """`any`/`all` read a complex value by its real part (JAX's `_cast_to_bool`)."""
    if dt.is_complex(type_of(x).dtype):
        x = bind(cx.real, x)
    return convert(x, dt.bool_)


def _reduction(a, name: str, kind: str, init, *, has_identity: bool = True, preproc=None,
               upcast_f16_for_computation: bool = False, axis=None, dtype=None, out=None,
               keepdims: bool = False, initial=None, where_=None, promote_integers: bool = False,
               out_sharding=None):
    """JAX's `_reduction`, check for check: masked-out elements (`where_`) become the identity
    `init` before the reduction, and `initial` is folded in after it."""
    _out(name, out)
    a = _ensure_arraylike(name, a)
    where_ = _check_where(name, where_)
    if initial is None and not has_identity and where_ is not None:
        raise_user_error(ShardcValueError(
            f"reduction operation {name} does not have an identity, so to use a where mask one has to specify "
            "'initial'"))
    a = preproc(a) if preproc else a
    t = type_of(a)
    dims = _reduction_dims(t.ndim, axis)
    if initial is None and not has_identity and not builtins.all(t.shape[d] >= 1 for d in dims):
        raise_user_error(ShardcValueError(f"zero-size array to reduction operation {name} which has no identity"),
                         [t])
    if dtype is None:
        result_dtype = _promote_integer_dtype(t.dtype) if promote_integers else t.dtype
    else:
        result_dtype = dt.canonicalize(dtype)
    comp = _upcast_f16(result_dtype) if upcast_f16_for_computation and dt.is_inexact(result_dtype) \
        else result_dtype
    if comp != t.dtype or t.weak_type:   # as JAX's `convert_element_type`: the result is strong
        a = convert(a, comp)
    prim, op, bool_prim, bool_op = _OPS[kind]
    if comp == dt.bool_:
        prim, op = bool_prim, bool_op
    if where_ is not None:
        a = _where(where_, a, _init_val(comp, init))
    r = bind(_PRIMS[prim], a, axes=dims, out_sharding=to_spec(out_sharding)) if dims else a
    if initial is not None:
        init_arr = _lax.convert_element_type(as_operand(initial), comp)
        if type_of(init_arr).shape != ():
            raise_user_error(ShardcValueError(
                f"initial value must be a scalar. Got array of shape {type_of(init_arr).shape}"))
        r = op(init_arr, r)
    if keepdims and dims:
        r = _lax.expand_dims(r, tuple(sorted(dims)))
    final = dt.canonicalize(dtype) if dtype is not None else result_dtype
    return convert(r, final) if type_of(r).dtype != final or type_of(r).weak_type else r


def _cast_to_numeric(x):
    """`promote_dtypes_numeric`: a bool operand of `sum`/`prod` counts in the default int."""
    return convert(x, dt.int32, type_of(x).weak_type) if type_of(x).dtype == dt.bool_ else x


@api("sc.sum")
def sum(a, axis=None, dtype=None, out=None, keepdims: bool = False, initial=None, where=None,
        promote_integers: bool = True, *, out_sharding=None):
    """Sum over `axis`. Over a sharded dim the result is replicated (an
    all-reduce) unless `out_sharding=P(..., unreduced={...})` keeps partial sums."""
    return _reduction(a, "sum", "sum", 0, preproc=_cast_to_numeric, upcast_f16_for_computation=dtype is None,
                      axis=_optional_axes(axis), dtype=dtype, out=out, keepdims=keepdims, initial=initial,
                      where_=where, promote_integers=promote_integers, out_sharding=out_sharding)


@api("sc.prod")
def prod(a, axis=None, dtype=None, out=None, keepdims: bool = False, initial=None, where=None,
         promote_integers: bool = True):
    """Product over `axis` (`initial` multiplies in; masked-out elements count as 1)."""
    return _reduction(a, "prod", "prod", 1, preproc=_cast_to_numeric, upcast_f16_for_computation=dtype is None,
                      axis=_optional_axes(axis), dtype=dtype, out=out, keepdims=keepdims, initial=initial,
                      where_=where, promote_integers=promote_integers)


@api("sc.max")
def max(a, axis=None, out=None, keepdims: bool = False, initial=None, where=None):
    """Maximum over `axis`; a `where=` mask needs `initial=` (there is no identity), as in JAX."""
    return _reduction(a, "max", "max", -np.inf, has_identity=False, axis=_optional_axes(axis), out=out,
                      keepdims=keepdims, initial=initial, where_=where)


@api("sc.min")
def min(a, axis=None, out=None, keepdims: bool = False, initial=None, where=None):
    """Minimum over `axis`; a `where=` mask needs `initial=`, as in JAX."""
    return _reduction(a, "min", "min", np.inf, has_identity=False, axis=_optional_axes(axis), out=out,
                      keepdims=keepdims, initial=initial, where_=where)


@api("sc.amax")
def amax(a, axis=None, out=None, keepdims: bool = False, initial=None, where=None):
    """Alias of `max` (JAX's own function with `max`'s signature)."""
    return max(a, axis=axis, out=out, keepdims=keepdims, initial=initial, where=where)


@api("sc.amin")
def amin(a, axis=None, out=None, keepdims: bool = False, initial=None, where=None):
    """Alias of `min`."""
    return min(a, axis=axis, out=out, keepdims=keepdims, initial=initial, where=where)


@api("sc.any")
def any(a, axis=None, out=None, keepdims: bool = False, *, where=None):
    """Whether any element along `axis` is true (masked-out elements count as False)."""
    return _reduction(a, "any", "or", False, preproc=_cast_to_bool, axis=_optional_axes(axis), out=out,
                      keepdims=keepdims, where_=where)


@api("sc.all")
def all(a, axis=None, out=None, keepdims: bool = False, *, where=None):
    """Whether every element along `axis` is true (masked-out elements count as True)."""
    return _reduction(a, "all", "and", True, preproc=_cast_to_bool, axis=_optional_axes(axis), out=out,
                      keepdims=keepdims, where_=where)


# --- the ufuncs' reductions (JAX's `_reduce_max` / `_reduce_bitwise_and` / ...: `jnp.maximum.reduce`, ...) ---
def _reduce_max(a, axis=None, dtype=None, out=None, keepdims: bool = False, initial=None, where=None):
    """`jnp.maximum.reduce`. JAX's `_reduce_max` is jitted with `dtype` traced, so any `dtype=` is
    its TypeError (`_reduce_min` keeps `dtype` static and takes it)."""
    if dtype is not None:
        raise_user_error(ShardcTypeError(
            f"Error interpreting argument to _reduce_max as an abstract array. The problematic value is of type "
            f"{type(dtype)} and was passed to the function at path dtype."))
    return _reduction(a, "max", "max", -np.inf, has_identity=False, axis=axis, out=out, keepdims=keepdims,
                      initial=initial, where_=where)


def _reduce_min(a, axis=None, dtype=None, out=None, keepdims: bool = False, initial=None, where=None):
    """`jnp.minimum.reduce` (JAX's `_reduce_min`: `min` with a `dtype=`)."""
    return _reduction(a, "min", "min", np.inf, has_identity=False, axis=axis, dtype=dtype, out=out,
                      keepdims=keepdims, initial=initial, where_=where)


def _require_integer(x):
    """JAX's `_require_integer`: the bitwise reductions take bools and integers only."""
    d = type_of(x).dtype
    if not (d == dt.bool_ or dt.is_int(d)):
        raise_user_error(ShardcValueError(f"integer argument required; got dtype={np.dtype(d)}"))
    return x


def _reduce_bitwise_and(a, axis=None, dtype=None, out=None, keepdims: bool = False, initial=None, where=None):
    """`jnp.bitwise_and.reduce`: the identity is all bits set (-1 in the result dtype, as JAX's)."""
    arr = _arr(a) if type(a) is not Tracer else a
    init = np.array(-1).astype(dt.canonicalize(dtype) if dtype is not None else type_of(arr).dtype)
    return _reduction(arr, "reduce_bitwise_and", "and", init, preproc=_require_integer, axis=_optional_axes(axis),
                      dtype=dtype, out=out, keepdims=keepdims, initial=initial, where_=where)


def _reduce_bitwise_or(a, axis=None, dtype=None, out=None, keepdims: bool = False, initial=None, where=None):
    """`jnp.bitwise_or.reduce`."""
    return _reduction(a, "reduce_bitwise_or", "or", 0, preproc=_require_integer, axis=_optional_axes(axis),
                      dtype=dtype, out=out, keepdims=keepdims, initial=initial, where_=where)


def _reduce_bitwise_xor(a, axis=None, dtype=None, out=None, keepdims: bool = False, initial=None, where=None):
    """`jnp.bitwise_xor.reduce` (the `reduce_xor` primitive, as JAX's monoid reducer)."""
    return _reduction(a, "reduce_bitwise_xor", "xor", 0, preproc=_require_integer, axis=_optional_axes(axis),
                      dtype=dtype, out=out, keepdims=keepdims, initial=initial, where_=where)


def _reduce_logical_and(a, axis=None, dtype=None, out=None, keepdims: bool = False, initial=None, where=None):
    """`jnp.logical_and.reduce`: `all`, with JAX's `dtype=` / `initial=` (bitwise `and` in that dtype)."""
    return _reduction(a, "reduce_logical_and", "and", True, preproc=_cast_to_bool, axis=_optional_axes(axis),
                      dtype=dtype, out=out, keepdims=keepdims, initial=initial, where_=where)


def _reduce_logical_or(a, axis=None, dtype=None, out=None, keepdims: bool = False, initial=None, where=None):
    """`jnp.logical_or.reduce`: `any`, with `dtype=` / `initial=`."""
    return _reduction(a, "reduce_logical_or", "or", False, preproc=_cast_to_bool, axis=_optional_axes(axis),
                      dtype=dtype, out=out, keepdims=keepdims, initial=initial, where_=where)


def _reduce_logical_xor(a, axis=None, dtype=None, out=None, keepdims: bool = False, initial=None, where=None):
    """`jnp.logical_xor.reduce`: the parity of the true elements."""
    return _reduction(a, "reduce_logical_xor", "xor", False, preproc=_cast_to_bool, axis=_optional_axes(axis),
                      dtype=dtype, out=out, keepdims=keepdims, initial=initial, where_=where)


def _count(a, axis, keepdims: bool, where, dtype: np.dtype):
    """JAX's `_count`: the number of elements reduced (of `where`'s true ones, broadcast to `a`)."""
    t = type_of(a)
    if where is None:
        n = math.prod(t.shape[d] for d in _reduction_dims(t.ndim, axis))
        return Const(np.array(n).astype(dtype), dtype, False)
    w = where if type_of(where).shape == t.shape else _broadcast_to(where, t.shape, None)
    return sum(w, axis, dtype=dtype, keepdims=keepdims)


@api("sc.mean")
def mean(a, axis=None, dtype=None, out=None, keepdims: bool = False, *, where=None):
    """Mean over `axis` (of the `where=` elements), computed in float32 for ints and half precision."""
    return _mean(a, _optional_axes(axis), dtype, out, keepdims, where=where,
                 upcast_f16_for_computation=dtype is None)


def _mean(a, axis, dtype, out, keepdims: bool, *, where, upcast_f16_for_computation: bool):
    a = _ensure_arraylike("mean", a)
    where = _check_where("mean", where)
    _out("mean", out)
    d = type_of(a).dtype
    result_dtype = _to_inexact(d) if dtype is None else dt.canonicalize(dtype)
    comp = _upcast_f16(result_dtype) if upcast_f16_for_computation and dt.is_inexact(result_dtype) \
        else result_dtype
    normalizer = _count(a, axis, keepdims, where, comp)
    r = _lax.div(sum(a, axis, dtype=comp, keepdims=keepdims, where=where), normalizer)
    return astype(r, result_dtype)


def _correction(ddof, correction):
    """`correction` is another name for `ddof`; both at once is JAX's ValueError."""
    if correction is None:
        return ddof
    if not isinstance(ddof, int) or ddof != 0:
        raise_user_error(ShardcValueError("ddof and correction can't be provided simultaneously."))
    return correction


def _var_promote_types(a_dtype: np.dtype, dtype) -> tuple[np.dtype, np.dtype]:
    """JAX's `_var_promote_types`: (computation dtype, result dtype)."""
    if dtype:
        if not dt.is_complex(dtype) and dt.is_complex(a_dtype):
            raise_user_error(ShardcValueError(
                "jax.numpy.var does not yet support real dtype parameters when computing the variance of an "
                "array of complex values. The semantics of numpy.var seem unclear in this case. Please comment "
                "on https://github.com/jax-ml/jax/issues/2283 if this behavior is important to you."))
        comp = dtype
    elif not dt.is_inexact(a_dtype):
        dtype = comp = _to_inexact(a_dtype)
    else:
        dtype = np.array(0, a_dtype).real.dtype
        comp = a_dtype
    return _upcast_f16(comp), np.dtype(dtype)


@api("sc.var")
def var(a, axis=None, dtype=None, out=None, ddof: int = 0, keepdims: bool = False, *, where=None, mean=None,
        correction=None):
    """Variance over `axis` (of the `where=` elements, about `mean=` if given), divided by the
    count less `correction` (alias `ddof`); NaN where that is not positive."""
    correction = _correction(ddof, correction)
    a = _ensure_arraylike("var", a)
    return _var(a, _optional_axes(axis), dtype, out, correction, keepdims, where, mean)


def _var(a, axis, dtype, out, correction, keepdims: bool, where, a_mean):
    where = _check_where("var", where)
    if dtype is not None:
        dtype = dt.canonicalize(dtype)
    _out("var", out)
    comp, dtype = _var_promote_types(type_of(a).dtype, dtype)
    a = astype(a, comp)
    if a_mean is None:
        a_mean = _mean(a, axis, comp, None, True, where=where, upcast_f16_for_computation=True)
    else:
        a_mean = astype(_ensure_arraylike("var", a_mean), comp)
    centered = _lax.sub(a, a_mean)
    if dt.is_complex(comp):
        centered = bind(cx.real, _lax.mul(centered, _lax.conj(centered)))
        comp = type_of(centered).dtype    # (no cast back to complex below)
    else:
        centered = _lax.square(centered)
    normalizer = _count(a, axis, keepdims, where, comp)
    normalizer = _lax.sub(normalizer, convert(as_operand(correction), comp))
    r = sum(centered, axis, dtype=comp, keepdims=keepdims, where=where)
    r = astype(_lax.div(r, normalizer), dtype)
    return _where(_lax.gt(normalizer, Const(np.array(0, comp), comp, False)), r, np.nan)


@api("sc.std")
def std(a, axis=None, dtype=None, out=None, ddof: int = 0, keepdims: bool = False, *, where=None, mean=None,
        correction=None):
    """Standard deviation: the square root of `var` with the same arguments."""
    correction = _correction(ddof, correction)
    a = _ensure_arraylike("std", a)
    where = _check_where("std", where)
    if dtype is not None:
        dtype = dt.canonicalize(dtype)
        if not dt.is_inexact(dtype):
            raise_user_error(ShardcValueError(f"dtype argument to jnp.std must be inexact; got {dtype}"))
    _out("std", out)
    return _lax.sqrt(_var(a, _optional_axes(axis), dtype, None, correction, keepdims, where, mean))


def _arg(kind: str, a, axis, out, keepdims):
    name = "arg" + kind
    a = _ensure_arraylike(name, a)
    _out(name, out)
    axis = None if axis is None else operator.index(axis)
    keepdims = bool(keepdims)
    t = type_of(a)
    if axis is None:
        dims = tuple(range(t.ndim))
        a = reshape(a, (-1,))
        ax = 0
    else:
        ax = _canonical_axis(axis, t.ndim)
        dims = (ax,)
    if type_of(a).shape[ax] == 0:
        raise_user_error(ShardcValueError(f"attempt to get {name} of an empty sequence"))
    r = bind(rd.ARG_REDUCE[kind], a, axis=ax, index_dtype=dt.int32)
    return _lax.expand_dims(r, dims) if keepdims and dims else r


@api("sc.argmax")
def argmax(a, axis=None, out=None, keepdims=None):
    """Index of the maximum (of the flattened array when `axis` is None), as int32."""
    return _arg("max", a, axis, out, keepdims)


@api("sc.argmin")
def argmin(a, axis=None, out=None, keepdims=None):
    """Index of the minimum (of the flattened array when `axis` is None), as int32."""
    return _arg("min", a, axis, out, keepdims)


def _cumulative(kind: str, name: str, a, axis, dtype=None, out=None, promote_integers: bool | None = None):
    """JAX's `_cumulative_reduction`: bools count in int32, other dtypes keep theirs (int8 sums
    stay int8, unlike `sum`) unless `promote_integers` (default: only for a "sum", as JAX's
    `cumulative_sum`; `cumsum` passes False); `dtype=bool` accumulates `a != 0` in int32."""
    if promote_integers is None:
        promote_integers = kind == "sum"
    a = _ensure_arraylike(name, a)
    _out(name, out, period="")
    t = type_of(a)
    if axis is None or t.ndim == 0:
        if t.mesh.has_explicit and builtins.any(e is not None for e in t.spec):
            raise_user_error(ShardingTypeError(
                f"The input should be fully replicated when axis is not specified to {name}. "
                f"Got input type={t}"), [t])
        a = reshape(a, (-1,))
        t = type_of(a)
    ax = _canonical_axis(operator.index(0 if axis is None else axis), t.ndim)
    if dtype is None:
        result = comp = _promote_integer_dtype(t.dtype) if promote_integers or t.dtype == dt.bool_ else t.dtype
    elif np.dtype(dtype) == dt.bool_:
        result = dt.bool_
        if t.dtype != result:
            a = _lax.ne(a, Const(np.array(0, t.dtype), t.dtype, False))
        comp = _promote_integer_dtype(result)
    else:
        result = comp = dt.canonicalize(dtype)
    if type_of(a).dtype != comp or type_of(a).weak_type:   # a weak operand gives a strong result (as JAX)
        a = convert(a, comp)
    r = bind(rd.CUMULATIVE[kind], a, axis=ax, reverse=False)
    return convert(r, result) if comp != result else r


@api("sc.cumsum")
def cumsum(a, axis=None, dtype=None, out=None):
    """Inclusive prefix sum along `axis` (which must be unsharded)."""
    return _cumulative("sum", "cumsum", a, axis, dtype, out, promote_integers=False)


@api("sc.cumprod")
def cumprod(a, axis=None, dtype=None, out=None):
    """Inclusive prefix product along `axis` (which must be unsharded)."""
    return _cumulative("prod", "cumprod", a, axis, dtype, out, promote_integers=False)


def _lax_cumulative(kind: str, x, axis: int, reverse: bool):
    x = _arr(x)
    if axis < 0:
        raise_user_error(ShardcValueError("XLA operations do not allow negative axes"), [type_of(x)])
    return bind(rd.CUMULATIVE[kind], x, axis=int(axis), reverse=bool(reverse))


@api("sc.cummax")
def cummax(x, axis: int = 0, reverse: bool = False):
    """Running maximum along `axis` (as `lax.cummax`: `jnp` has none)."""
    return _lax_cumulative("max", x, axis, reverse)


@api("sc.cummin")
def cummin(x, axis: int = 0, reverse: bool = False):
    """Running minimum along `axis` (as `lax.cummin`)."""
    return _lax_cumulative("min", x, axis, reverse)
