"""`jnp.ufunc` and `jnp.frompyfunc`, ported from JAX's `jax/_src/numpy/ufunc_api.py`: a scalar
function made into a NumPy-style universal function whose call is `vectorize(func)` and whose
`reduce` / `accumulate` / `at` / `reduceat` / `outer` are JAX's generic fallbacks (a `fori_loop`,
a `scan`, a scan of `.at[].set`, a `fori_loop` of masked updates, two nested `vmap`s), so types,
shardings and values follow JAX's. It sits beside `shardc.numpy` (above `ops` and the batching
driver, which it uses)."""
from __future__ import annotations

import math
import operator
from typing import Any, Callable

import numpy as np

from . import lax
from .batching import vectorize, vmap
from .errors import ShardcNotImplementedError, ShardcValueError
from .ops import fori_loop, scan
from .ops._util import normalize_axis, type_of
from .ops.creation import asarray, broadcast_to
from .ops.elementwise import where
from .ops.indexing import take
from .ops.shape import concatenate, moveaxis
from .shapes import ShapeDtypeStruct
from .stages import eval_shape

__all__ = ["ufunc", "frompyfunc"]

_AT_INPLACE_WARNING = """\
Because JAX arrays are immutable, jnp.ufunc.at() cannot operate inplace like
np.ufunc.at(). Instead, you can pass inplace=False and capture the result; e.g.
>>> arr = jnp.add.at(arr, ind, val, inplace=False)
"""


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

    def __call__(self, *args, out=None, where=None):
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
        self._binary_only("reduce")
        if out is not None:
            raise ShardcNotImplementedError(f"out argument of {self.__name__}.reduce()")
        if where is not None:
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
        self._binary_only("accumulate")
        if out is not None:
            raise ShardcNotImplementedError(f"out argument of {self.__name__}.accumulate()")
        accumulate = self._props["accumulate"] or self._accumulate_via_scan
        return accumulate(a, axis=axis, dtype=dtype)

    def _accumulate_via_scan(self, arr, axis=0, dtype=None):
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
        at = self._props["at"] or self._at_via_scan
        return at(a, indices) if b is None else at(a, indices, b)

    def _at_via_scan(self, a, indices, *args):
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
        self._binary_only("reduceat")
        if out is not None:
            raise ShardcNotImplementedError(f"out argument of {self.__name__}.reduceat()")
        reduceat = self._props["reduceat"] or self._reduceat_via_scan
        return reduceat(a, indices, axis=axis, dtype=dtype)

    def _reduceat_via_scan(self, a, indices, axis=0, dtype=None):
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
        A, B = asarray(A), asarray(B)
        sa, sb = type_of(A).shape, type_of(B).shape
        ravel = lambda x: lax.reshape(x, (math.prod(type_of(x).shape),))  # noqa: E731
        result = vmap(vmap(self, (None, 0)), (0, None))(ravel(A), ravel(B))
        return result.reshape(*sa, *sb)


def _where(c, x, y):
    return where(c, x, y)


def frompyfunc(func: Callable[..., Any], /, nin: int, nout: int, *, identity: Any = None) -> ufunc:
    """A `jnp.ufunc` from a scalar function of `nin` arguments and `nout` results."""
    return ufunc(func, nin, nout, identity=identity)
