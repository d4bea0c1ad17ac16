"""`jnp.ufunc` and `jnp.frompyfunc`, ported from JAX's `jax/_src/numpy/ufunc_api.py`: a scalar
function made into a NumPy-style universal function whose call is `vectorize(func)` and whose
`reduce` / `accumulate` / `at` / `reduceat` / `outer` are JAX's generic fallbacks (a `fori_loop`,
a `scan`, a scan of `.at[].set`, a `fori_loop` of masked updates, two nested `vmap`s), so types,
shardings and values follow JAX's. It also builds `shardc.numpy`'s 14 ufunc objects (`add`,
`maximum`, `logaddexp`, ...) as JAX's `ufuncs.py` does (`unary_ufunc` / `binary_ufunc`): the call is
shardc's own function (`sc.add`), `reduce` / `accumulate` / `at` JAX's specialized ones (`sum`,
`cumsum`, `_add_at`, `_reduce_bitwise_xor`, `_logsumexp`, ...). It sits beside `shardc.numpy`
(above `ops` and the batching driver, which it uses)."""
from __future__ import annotations

import math
import operator
from typing import Any, Callable

import jax
import numpy as np

from . import dtypes as dt
from . import lax
from .batching import vectorize, vmap
from .core import Tracer
from .errors import ShardcNotImplementedError, ShardcTypeError, ShardcValueError
from .ops import elementwise as _ew
from .ops import fori_loop, scan
from .ops import math as _math
from .ops import reductions as _red
from .ops._util import is_array, normalize_axis, type_of
from .ops.activations import _logsumexp, _logsumexp2
from .ops.creation import asarray, broadcast_to
from .ops.elementwise import astype, where
from .ops.indexing import take
from .ops.shape import concatenate, moveaxis
from .runtime.array import Array
from .shapes import ShapeDtypeStruct
from .stages import eval_shape, jit

__all__ = ["ufunc", "frompyfunc", "UFUNCS"]

_AT_INPLACE_WARNING = """\
Because JAX arrays are immutable, jnp.ufunc.at() cannot operate inplace like
np.ufunc.at(). Instead, you can pass inplace=False and capture the result; e.g.
>>> arr = jnp.add.at(arr, ind, val, inplace=False)
"""


#: operand types JAX's `check_arraylike` accepts at a glance (the call path's fast case)
_FAST_ARRAYLIKE = frozenset({Array, Tracer, float, int, bool, np.ndarray})


def _check_arraylike(name: str, args: tuple) -> None:
    """JAX's `check_arraylike`: arrays and scalars; a list or a tuple is a TypeError."""
    for pos, x in enumerate(args):
        if type(x) in _FAST_ARRAYLIKE or is_array(x) or isinstance(x, (np.ndarray, jax.Array)) or (
                getattr(x, "__jax_array__", None) is not None or np.isscalar(x)):
            continue
        raise ShardcTypeError(f"{name} requires ndarray or scalar arguments, got {type(x)} at position {pos}.")


def _check_index_leaves(name: str, indices: Any) -> None:
    """`ufunc.at` is a `jax.jit` of its indices in JAX: a slice or an Ellipsis there is JAX's TypeError
    (each leaf must be an array or a scalar)."""
    for leaf in jax.tree_util.tree_leaves(indices):
        if isinstance(leaf, (slice, type(Ellipsis))):
            raise ShardcTypeError(
                f"Error interpreting argument to {name} as an abstract array. The problematic value is of type "
                f"{type(leaf)} and was passed to the function at path indices.")


def _check_static(name: str, **static: Any) -> None:
    """JAX's ufunc methods are `jax.jit`s with these arguments static: an unhashable one (`axis=[0]`,
    `out=array`) is its ValueError."""
    for k, v in static.items():
        try:
            hash(v)
        except TypeError as e:
            raise ShardcValueError(
                f"Non-hashable static arguments are not supported. An error occurred while trying to hash an "
                f"object of type {type(v)}, {v!r}. The error was:\nTypeError: {e}") from None


def _one_struct(x) -> ShapeDtypeStruct:
    """`lax._one(x)` as an abstract value: a scalar of x's dtype and weak type."""
    t = type_of(x)
    return ShapeDtypeStruct((), t.dtype, weak_type=t.weak_type)


class ufunc:
    """A universal function: `func` of `nin` scalars giving `nout` values, broadcast over arrays."""

    def __init__(self, func: Callable[..., Any], /, nin: int, nout: int, *, name: str | None = None,
                 nargs: int | None = None, identity: Any = None, call: Callable[..., Any] | None = None,
                 reduce: Callable[..., Any] | None = None, accumulate: Callable[..., Any] | None = None,
                 at: Callable[..., Any] | None = None, reduceat: Callable[..., Any] | None = None):
        self.__doc__ = func.__doc__
        self.__name__ = name or func.__name__
        self._props = {"func": func, "nin": operator.index(nin), "nout": operator.index(nout),
                       "nargs": operator.index(nargs or nin), "identity": identity, "call": call,
                       "reduce": reduce, "accumulate": accumulate, "at": at, "reduceat": reduceat}

    _func = property(lambda self: self._props["func"])
    nin = property(lambda self: self._props["nin"])
    nout = property(lambda self: self._props["nout"])
    nargs = property(lambda self: self._props["nargs"])
    identity = property(lambda self: self._props["identity"])

    def __hash__(self) -> int:
        return hash((self._func, self.__name__, self.identity, self.nin, self.nout, self.nargs))

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, ufunc) and (
            (self._func, self.__name__, self.identity, self.nin, self.nout, self.nargs)
            == (other._func, other.__name__, other.identity, other.nin, other.nout, other.nargs))

    def __repr__(self) -> str:
        return f"<jnp.ufunc '{self.__name__}'>"

    def __call__(self, *args: Any, out: None = None, where: None = None) -> Any:
        _check_arraylike(self.__name__, args)
        if out is not None:
            raise ShardcNotImplementedError(f"out argument of {self}")
        if where is not None:
            raise ShardcNotImplementedError(f"where argument of {self}")
        call = self._props["call"] or self._call_vectorized
        return call(*args)

    def _call_vectorized(self, *args):
        return vectorize(self._func)(*args)

    def _binary_only(self, what: str) -> None:
        if self.nin != 2:
            raise ShardcValueError(f"{what} only supported for binary ufuncs")
        if self.nout != 1:
            raise ShardcValueError(f"{what} only supported for functions returning a single value")

    # --- reduce -------------------------------------------------------------------------------
    def reduce(self, a, axis: int | None = 0, dtype=None, out=None, keepdims: bool = False, initial=None,
               where=None):
        _check_static("reduce", axis=axis, dtype=dtype, out=out, keepdims=keepdims)
        _check_arraylike(f"{self.__name__}.reduce", (a,))
        self._binary_only("reduce")
        if out is not None:
            raise ShardcNotImplementedError(f"out argument of {self.__name__}.reduce()")
        if initial is not None:
            _check_arraylike(f"{self.__name__}.reduce", (initial,))
        if where is not None:
            _check_arraylike(f"{self.__name__}.reduce", (where,))
            if self.identity is None and initial is None:
                raise ShardcValueError(f"reduction operation {self.__name__!r} does not have an identity, so to "
                                       "use a where mask one has to specify 'initial'.")
            wd = type_of(asarray(where)).dtype
            if wd != np.bool_:
                raise ShardcValueError(f"where argument must have dtype=bool; got dtype={wd}")
        reduce = self._props["reduce"] or self._reduce_via_scan
        return reduce(a, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial, where=where)

    def _reduce_via_scan(self, arr, axis=0, dtype=None, keepdims=False, initial=None, where=None):
        arr = asarray(arr)
        if initial is None:
            initial = self.identity
        if dtype is None:
            dtype = eval_shape(self._func, _one_struct(arr), _one_struct(arr)).dtype
        shape = type_of(arr).shape
        if where is not None:
            where = broadcast_to(where, shape)
        if isinstance(axis, tuple):
            raise ShardcNotImplementedError("tuple of axes")
        if axis is None:
            final_shape = (1,) * len(shape) if keepdims else ()
            arr = arr.ravel()
            if where is not None:
                where = where.ravel()
            axis = 0
        else:
            axis = normalize_axis(axis, len(shape))
            final_shape = (*shape[:axis], 1, *shape[axis + 1:]) if keepdims else (*shape[:axis], *shape[axis + 1:])
        if axis != 0:
            arr = moveaxis(arr, axis, 0)
            if where is not None:
                where = moveaxis(where, axis, 0)
        n = type_of(arr).shape[0]
        if n == 0:
            if initial is None:
                raise ShardcValueError(f"zero-size array to reduction operation {self.__name__} which has no identity")
            return lax.full(final_shape, initial, dtype)

        def body_fun(i, val):
            if where is None:
                return self(val, arr[i].astype(dtype))
            return _where(where[i], self(val, arr[i].astype(dtype)), val)

        if initial is None:
            start_index, start_value = 1, arr[0]
        else:
            start_index, start_value = 0, initial
        start_value = broadcast_to(asarray(start_value).astype(dtype), type_of(arr).shape[1:])
        result = fori_loop(start_index, n, body_fun, start_value)
        if keepdims:
            result = result.reshape(final_shape)
        return result

    # --- accumulate -----------------------------------------------------------------------------
    def accumulate(self, a, axis: int = 0, dtype=None, out=None):
        _check_static("accumulate", axis=axis, dtype=dtype)
        self._binary_only("accumulate")
        if out is not None:
            raise ShardcNotImplementedError(f"out argument of {self.__name__}.accumulate()")
        accumulate = self._props["accumulate"] or self._accumulate_via_scan
        return accumulate(a, axis=axis, dtype=dtype)

    def _accumulate_via_scan(self, arr, axis=0, dtype=None):
        _check_arraylike(f"{self.__name__}.accumulate", (arr,))
        arr = asarray(arr)
        if dtype is None:
            dtype = eval_shape(self._func, _one_struct(arr), _one_struct(arr)).dtype
        if axis is None or isinstance(axis, tuple):
            raise ShardcValueError("accumulate does not allow multiple axes")
        t = type_of(arr)
        axis = normalize_axis(axis, t.ndim)
        if t.size == 0:
            return lax.full(t.shape, 0, dtype)
        arr = moveaxis(arr, axis, 0)

        def scan_fun(carry, _):
            i, x = carry
            y = _where(i == 0, arr[0].astype(dtype), self(x.astype(dtype), arr[i].astype(dtype)))
            return (i + 1, y), y

        _, result = scan(scan_fun, (0, arr[0].astype(dtype)), None, length=type_of(arr).shape[0])
        return moveaxis(result, 0, axis)

    # --- at ---------------------------------------------------------------------------------------
    def at(self, a, indices, b=None, /, *, inplace: bool = True):
        if inplace:
            raise ShardcNotImplementedError(_AT_INPLACE_WARNING)
        _check_index_leaves("ufunc.at", indices)
        # JAX's `at` is a `jax.jit` (the ufunc static): `a` and every index leaf arrive traced (a Python-int
        # index is an int32 scalar, so `.at[i]` is a dynamic slice / scatter), eagerly as under a jit
        return _at_jit(self, a, indices) if b is None else _at_jit(self, a, indices, b)

    def _at_via_scan(self, a, indices, *args):
        _check_arraylike(f"{self.__name__}.at", (a, *args))
        dtype = eval_shape(self._func, _one_struct(asarray(a)), *(_one_struct(asarray(x)) for x in args)).dtype
        a = asarray(a).astype(dtype)
        args = tuple(asarray(x).astype(dtype) for x in args)
        if not isinstance(indices, tuple):
            indices = (indices,)
        if not indices:
            return a
        shapes = [np.shape(i) if not hasattr(i, "aval") else type_of(i).shape
                  for i in indices if not isinstance(i, slice)]
        shape = shapes and tuple(np.broadcast_shapes(*shapes))
        if not shape:
            return a.at[indices].set(self(a.at[indices].get(), *args))
        if args:
            s0 = type_of(args[0]).shape
            arg = broadcast_to(args[0], (*shape, *s0[len(shape):]))
            args = (arg.reshape(math.prod(shape), *s0[len(shape):]),)
        indices = [idx if isinstance(idx, slice) else broadcast_to(idx, shape).ravel() for idx in indices]

        def scan_fun(carry, x):
            i, a = carry
            idx = tuple(ind if isinstance(ind, slice) else ind[i] for ind in indices)
            a = a.at[idx].set(self(a.at[idx].get(), *(arg[i] for arg in args)))
            return (i + 1, a), x

        n = next(type_of(ind).shape[0] for ind in indices if not isinstance(ind, slice))
        carry, _ = scan(scan_fun, (0, a), None, n)
        return carry[1]

    # --- reduceat ---------------------------------------------------------------------------------
    def reduceat(self, a, indices, axis: int = 0, dtype=None, out=None):
        _check_static("reduceat", axis=axis, dtype=dtype)
        self._binary_only("reduceat")
        if out is not None:
            raise ShardcNotImplementedError(f"out argument of {self.__name__}.reduceat()")
        reduceat = self._props["reduceat"] or self._reduceat_via_scan
        return reduceat(a, indices, axis=axis, dtype=dtype)

    def _reduceat_via_scan(self, a, indices, axis=0, dtype=None):
        _check_arraylike(f"{self.__name__}.reduceat", (a, indices))
        a = asarray(a)
        indices = asarray(indices)
        ta, ti = type_of(a), type_of(indices)
        if ta.ndim == 0:
            raise ShardcValueError(f"reduceat: a must have 1 or more dimension, got a.shape={ta.shape}")
        if ti.ndim != 1:
            raise ShardcValueError(f"reduceat: indices must be one-dimensional, got indices.shape={ti.shape}")
        if axis is None or isinstance(axis, (tuple, list)):
            raise ShardcValueError("reduceat requires a single integer axis.")
        axis = normalize_axis(axis, ta.ndim)
        out = take(a, indices, axis=axis)
        nd = type_of(out).ndim
        appended = concatenate([indices, asarray([ta.shape[axis]], dtype=ti.dtype)])
        ind = lax.expand_dims(appended, [d for d in range(nd) if d != axis])
        m = type_of(ind).shape[axis]
        ind_start = lax.slice_in_dim(ind, 0, m - 1, axis=axis)
        ind_end = lax.slice_in_dim(ind, 1, m, axis=axis)

        def loop_body(i, out):
            return _where((i > ind_start) & (i < ind_end),
                          self(out, take(a, lax.expand_dims(i, (0,)), axis=axis)), out)

        return fori_loop(0, ta.shape[axis], loop_body, out)

    # --- outer ------------------------------------------------------------------------------------
    def outer(self, A, B, /):
        self._binary_only("outer")
        _check_arraylike(f"{self.__name__}.outer", (A, B))
        A, B = asarray(A), asarray(B)
        sa, sb = type_of(A).shape, type_of(B).shape
        ravel = lambda x: lax.reshape(x, (math.prod(type_of(x).shape),))  # noqa: E731
        result = vmap(vmap(self, (None, 0)), (0, None))(ravel(A), ravel(B))
        return result.reshape(*sa, *sb)


def _where(c, x, y):
    return where(c, x, y)


def _at_impl(uf: ufunc, a, indices: Any, *b):
    at = uf._props["at"] or uf._at_via_scan
    return at(a, indices, *b)


_at_jit = jit(_at_impl, static_argnums=(0,))


def frompyfunc(func: Callable[..., Any], /, nin: int, nout: int, *, identity: Any = None) -> ufunc:
    """A `jnp.ufunc` from a scalar function of `nin` arguments and `nout` results."""
    return ufunc(func, nin, nout, identity=identity)


# --- jax.numpy's ufuncs (JAX's `ufuncs.py`: `unary_ufunc`, `binary_ufunc`, `_add_at`, ...) --------------
def unary_ufunc(func: Callable[..., Any]) -> ufunc:
    """JAX's `unary_ufunc`: `func` is the call (shardc's function: `jnp.negative(x)` costs as `sc.negative(x)`)."""
    return ufunc(func, name=func.__name__, nin=1, nout=1, call=func)


def binary_ufunc(func: Callable[..., Any], identity: Any, reduce: Callable[..., Any] | None = None,
                 accumulate: Callable[..., Any] | None = None, at: Callable[..., Any] | None = None,
                 reduceat: Callable[..., Any] | None = None) -> ufunc:
    """JAX's `binary_ufunc(identity=, reduce=, accumulate=, at=)` applied to shardc's `func`."""
    return ufunc(func, name=func.__name__, nin=2, nout=1, call=func, identity=identity, reduce=reduce,
                 accumulate=accumulate, at=at, reduceat=reduceat)


def _add_at(a, indices: Any, b):
    """`jnp.add.at`: a scatter-add (bools add as int32 and are read back as bools, as JAX's)."""
    if type_of(a).dtype == dt.bool_:
        a = a.astype(dt.int32)
        b = astype(lax.convert_element_type(b, dt.bool_), dt.int32)
        return a.at[indices].add(b).astype(dt.bool_)
    return a.at[indices].add(b)


def _multiply_at(a, indices: Any, b):
    """`jnp.multiply.at`: a scatter-multiply (bools through int32, as `_add_at`)."""
    if type_of(a).dtype == dt.bool_:
        a = a.astype(dt.int32)
        b = astype(lax.convert_element_type(b, dt.bool_), dt.int32)
        return a.at[indices].mul(b).astype(dt.bool_)
    return a.at[indices].mul(b)


def _subtract_at(a, indices: Any, b):
    """`jnp.subtract.at`: a scatter of `-b` added."""
    return a.at[indices].subtract(b)


add = binary_ufunc(_ew.add, 0, reduce=_red.sum, accumulate=_red.cumsum, at=_add_at)
multiply = binary_ufunc(_ew.multiply, 1, reduce=_red.prod, accumulate=_red.cumprod, at=_multiply_at)
bitwise_and = binary_ufunc(_ew.bitwise_and, -1, reduce=_red._reduce_bitwise_and)
bitwise_or = binary_ufunc(_ew.bitwise_or, 0, reduce=_red._reduce_bitwise_or)
bitwise_xor = binary_ufunc(_ew.bitwise_xor, 0, reduce=_red._reduce_bitwise_xor)
subtract = binary_ufunc(_ew.subtract, None, at=_subtract_at)
minimum = binary_ufunc(_ew.minimum, None, reduce=_red._reduce_min)
maximum = binary_ufunc(_ew.maximum, None, reduce=_red._reduce_max)
logical_and = binary_ufunc(_ew.logical_and, True, reduce=_red._reduce_logical_and)
logical_or = binary_ufunc(_ew.logical_or, False, reduce=_red._reduce_logical_or)
logical_xor = binary_ufunc(_math.logical_xor, False, reduce=_red._reduce_logical_xor)
logaddexp = binary_ufunc(_math.logaddexp, -np.inf, reduce=_logsumexp)
logaddexp2 = binary_ufunc(_math.logaddexp2, -np.inf, reduce=_logsumexp2)
negative = unary_ufunc(_ew.negative)

#: `jax.numpy`'s ufunc objects by name (`shardc.numpy` exports them; `sc.add` etc. stay plain functions)
UFUNCS: dict[str, ufunc] = {u.__name__: u for u in (
    add, bitwise_and, bitwise_or, bitwise_xor, logaddexp, logaddexp2, logical_and, logical_or, logical_xor,
    maximum, minimum, multiply, negative, subtract)}
