"""Python operators and methods of traced values and `sc.Array`s.

Each forwards to the public op of the same meaning, so `x @ w` and
`sc.matmul(x, w)` type-check identically (errors name the operator). The
core's `Tracer` and the runtime's `Array` know nothing of ops; `install` puts
these methods on both when `shardc.ops` is imported.
"""
from __future__ import annotations

from typing import Any, NoReturn

import numpy as np

from ..core import Tracer, typeof
from ..errors import ShardcAttributeError, ShardcTypeError, ShardcValueError, user_location
from ..runtime.array import Array, check_bool_conversion, check_integer_conversion, check_scalar_conversion
from . import elementwise as E
from . import indexing as I
from . import linalg as LA
from . import math as M
from . import reductions as R
from . import shape as S
from . import sorting as SO

__all__ = ["ArrayMethods", "TracedMethods", "install"]


class ArrayMethods:
    """The methods `install` copies onto `Tracer` and `Array`."""

    # --- type views -------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return self.aval.shape

    @property
    def dtype(self):
        return self.aval.dtype

    @property
    def ndim(self) -> int:
        return self.aval.ndim

    @property
    def size(self) -> int:
        return self.aval.size

    @property
    def weak_type(self) -> bool:
        return self.aval.weak_type

    @property
    def itemsize(self) -> int:
        return np.dtype(self.aval.dtype).itemsize

    @property
    def nbytes(self) -> int:
        """Bytes of the whole (global) array, as `jax.Array.nbytes`: not per shard."""
        return self.aval.size * np.dtype(self.aval.dtype).itemsize

    def __len__(self) -> int:
        if not self.aval.shape:
            raise TypeError("len() of unsized object")
        return self.aval.shape[0]

    def __contains__(self, other: Any):
        """`v in x`: `any(x == v)` for a 1-d `x` and a scalar `v` (JAX's deliberate
        departure from NumPy, which also takes n-d arrays); on a traced value Python's
        `in` then meets the traced truth-value error, as in JAX."""
        if other is None or isinstance(other, str):
            raise ShardcTypeError(f"Array.__contains__: unsupported operand type {type(other)}.",
                                  loc=user_location())
        if not (isinstance(other, (np.generic, bool, int, float, complex))
                or hasattr(other, "shape") and hasattr(other, "dtype")):  # an array of any library
            raise ShardcTypeError(f"Array.__contains__ requires ndarray or scalar arguments, got "
                                  f"{type(other)} at position 0.", loc=user_location())
        if self.aval.ndim != 1:
            raise ShardcValueError(f"Array.__contains__: search array must be one-dimensional, got "
                                   f"arr.shape={self.aval.shape}.", loc=user_location())
        query_shape = tuple(typeof(other).shape)
        if query_shape:
            raise ShardcValueError(f"Array.__contains__: query value must be a scalar, got "
                                   f"query.shape={query_shape}", loc=user_location())
        return R.any(E.binary_op("eq", self, other, api="in"), api="in")

    # --- arithmetic ----------------------------------------------------------------
    def __add__(self, o): return E.binary_op("add", self, o, api="+")
    def __radd__(self, o): return E.binary_op("add", o, self, api="+")
    def __sub__(self, o): return E.binary_op("sub", self, o, api="-")
    def __rsub__(self, o): return E.binary_op("sub", o, self, api="-")
    def __mul__(self, o): return E.binary_op("mul", self, o, api="*")
    def __rmul__(self, o): return E.binary_op("mul", o, self, api="*")
    def __truediv__(self, o): return E.true_divide(self, o, api="/")
    def __rtruediv__(self, o): return E.true_divide(o, self, api="/")
    def __floordiv__(self, o): return E.floor_divide(self, o, api="//")
    def __rfloordiv__(self, o): return E.floor_divide(o, self, api="//")
    def __mod__(self, o): return E.remainder(self, o, api="%")
    def __rmod__(self, o): return E.remainder(o, self, api="%")
    def __pow__(self, o): return E.power(self, o, api="**")
    def __rpow__(self, o): return E.power(o, self, api="**")
    def __matmul__(self, o): return LA.matmul(self, o, api="@")
    def __rmatmul__(self, o): return LA.matmul(o, self, api="@")
    def __neg__(self): return E.negative(self, api="-")
    def __pos__(self): return self
    def __abs__(self): return E.abs(self, api="abs")
    def __invert__(self): return E.invert(self, api="~")
    def __and__(self, o): return E.binary_op("and", self, o, api="&")
    def __rand__(self, o): return E.binary_op("and", o, self, api="&")
    def __or__(self, o): return E.binary_op("or", self, o, api="|")
    def __ror__(self, o): return E.binary_op("or", o, self, api="|")
    def __xor__(self, o): return E.binary_op("xor", self, o, api="^")
    def __rxor__(self, o): return E.binary_op("xor", o, self, api="^")

    # --- comparisons ---------------------------------------------------------------
    def __lt__(self, o): return E.binary_op("lt", self, o, api="<")
    def __le__(self, o): return E.binary_op("le", self, o, api="<=")
    def __gt__(self, o): return E.binary_op("gt", self, o, api=">")
    def __ge__(self, o): return E.binary_op("ge", self, o, api=">=")
    def __eq__(self, o): return E.binary_op("eq", self, o, api="==")
    def __ne__(self, o): return E.binary_op("ne", self, o, api="!=")
    __hash__ = None  # arrays are unhashable, as in NumPy and JAX

    # --- shape and indexing ----------------------------------------------------------
    @property
    def T(self): return S.transpose(self, api=".T")

    @property
    def mT(self):
        """The matrix transpose: the last two dims swapped (`jnp.matrix_transpose`)."""
        n = self.aval.ndim
        if n < 2:
            raise ShardcValueError(f"x must be at least two-dimensional for matrix_transpose; got ndim={n}",
                                   loc=user_location())
        return S.transpose(self, (*range(n - 2), n - 1, n - 2), api=".mT")
    def __getitem__(self, idx): return I.getitem(self, idx)

    # --- complex parts (`ops/math.py`): real arrays are their own real part ------------
    @property
    def real(self): return M.real(self)

    @property
    def imag(self): return M.imag(self)

    def conj(self): return M.conjugate(self)
    def conjugate(self): return M.conjugate(self)

    @property
    def at(self):
        """`x.at[idx].set/add/.../get(...)`: JAX's indexed updates (`ops/indexing.py`)."""
        return I.IndexUpdateHelper(self)

    def __iter__(self):
        """Rows along the first dim (as `jax.Array`); a 0-d array is not iterable."""
        if not self.aval.shape:
            raise ShardcTypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.aval.shape[0]))
    def reshape(self, *shape, out_sharding=None):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return S.reshape(self, shape, out_sharding=out_sharding, api=".reshape")
    def transpose(self, *axes):
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        return S.transpose(self, axes or None, api=".transpose")
    def astype(self, dtype): return E.astype(self, dtype, api=".astype")
    def squeeze(self, axis=None): return S.squeeze(self, axis, api=".squeeze")
    def ravel(self): return S.reshape(self, (self.size,), api=".ravel")
    def flatten(self): return S.reshape(self, (self.size,), api=".flatten")

    # --- reductions ------------------------------------------------------------------
    def sum(self, axis=None, keepdims=False): return R.sum(self, axis, keepdims=keepdims, api=".sum")
    def max(self, axis=None, keepdims=False): return R.max(self, axis, keepdims=keepdims, api=".max")
    def min(self, axis=None, keepdims=False): return R.min(self, axis, keepdims=keepdims, api=".min")
    def mean(self, axis=None, keepdims=False): return R.mean(self, axis, keepdims=keepdims, api=".mean")
    def prod(self, axis=None, keepdims=False): return R.prod(self, axis, keepdims=keepdims, api=".prod")
    def argmax(self, axis=None, keepdims=False): return R.argmax(self, axis, keepdims=keepdims, api=".argmax")
    def argmin(self, axis=None, keepdims=False): return R.argmin(self, axis, keepdims=keepdims, api=".argmin")
    def any(self, axis=None, keepdims=False): return R.any(self, axis, keepdims=keepdims, api=".any")
    def all(self, axis=None, keepdims=False): return R.all(self, axis, keepdims=keepdims, api=".all")
    def cumsum(self, axis=None): return R.cumsum(self, axis, api=".cumsum")
    def dot(self, o): return LA.dot(self, o, api=".dot")

    # sorting and searching (`ops/sorting.py`)
    def sort(self, axis=-1, *, kind=None, order=None, stable=True, descending=False):
        return SO.sort(self, axis, kind=kind, order=order, stable=stable, descending=descending, api=".sort")

    def argsort(self, axis=-1, *, kind=None, order=None, stable=True, descending=False):
        return SO.argsort(self, axis, kind=kind, order=order, stable=stable, descending=descending,
                          api=".argsort")

    def searchsorted(self, v, side="left", sorter=None, *, method="scan"):
        return SO.searchsorted(self, v, side=side, sorter=sorter, method=method, api=".searchsorted")

    def nonzero(self, *, fill_value=None, size=None):
        return SO.nonzero(self, size=size, fill_value=fill_value, api=".nonzero")


class TracedMethods:
    """What a traced value says to the parts of the `jax.Array` protocol that need a
    value, with the error class family and the wording of `jax.core.Tracer`: the
    shape checks first (a 2-d array is not a scalar, traced or not), then the
    traced-value error, at the user's line."""

    def __bool__(self) -> NoReturn:
        check_bool_conversion(self.aval)
        _no_value(self, f"Attempted boolean conversion of traced array with shape {_shape(self)}.",
                  "use sc.where, or sc.cond / sc.while_loop for control flow on traced values")

    def __float__(self) -> NoReturn:
        check_scalar_conversion(self.aval)
        _no_value(self, _abstract(self, "The problem arose with the `float` function."),
                  "to change the dtype use `x.astype(float)`")

    def __int__(self) -> NoReturn:
        check_scalar_conversion(self.aval)
        _no_value(self, _abstract(self, "The problem arose with the `int` function."),
                  "to change the dtype use `x.astype(int)`")

    def __complex__(self) -> NoReturn:
        check_scalar_conversion(self.aval)
        _no_value(self, _abstract(self, "The problem arose with the `complex` function."),
                  "to change the dtype use `x.astype(complex)`")

    def __index__(self) -> NoReturn:
        check_integer_conversion(self.aval)
        _no_value(self, f"The __index__() method was called on traced array with shape {_shape(self)}",
                  "index with the traced value itself (x[i]), or pass it as a static argument")

    def __array__(self, *args, **kwargs) -> NoReturn:
        _no_value(self, f"The numpy.ndarray conversion method __array__() was called on traced array "
                  f"with shape {_shape(self)}", "use sc ops (not NumPy functions) on traced values")

    def item(self, *args: int) -> NoReturn:
        _no_value(self, _abstract(self, "This occurred in the item() method of sc.Array"))

    def tolist(self) -> NoReturn:
        _no_value(self, _abstract(self, f"The tolist() method was called on traced array with shape "
                                        f"{_shape(self)}."))

    def addressable_data(self, index: int) -> NoReturn:
        _no_value(self, _abstract(self, f"The addressable_data() method was called on traced array with "
                                        f"shape {_shape(self)}."))

    def devices(self) -> NoReturn:
        _no_value(self, _abstract(self, f"The devices() method was called on traced array with shape "
                                        f"{_shape(self)}."))

    @property
    def addressable_shards(self) -> NoReturn:
        _no_value(self, _abstract(self, f"The 'addressable_shards' attribute is not available on traced "
                                        f"array with shape {_shape(self)}."))

    @property
    def committed(self) -> NoReturn:
        _no_value(self, _abstract(self, f"The 'committed' attribute is not available on traced array with "
                                        f"shape {_shape(self)}."))

    @property
    def is_fully_replicated(self) -> NoReturn:
        _no_value(self, _abstract(self, f"The is_fully_replicated property was called on traced array with "
                                        f"shape {_shape(self)}."))

    @property
    def is_fully_addressable(self) -> NoReturn:
        _no_value(self, _abstract(self, f"The is_fully_addressable property was called on traced array "
                                        f"with shape {_shape(self)}."))

    # JAX raises AttributeError for these, so that `hasattr` / `getattr(x, name, None)` work
    @property
    def sharding(self) -> NoReturn:
        raise ShardcAttributeError(
            f"The 'sharding' attribute is not available on traced array with shape {_shape(self)}. To query "
            "sharding information on tracers, use `sc.typeof(x)`.", loc=user_location())

    @property
    def block_until_ready(self) -> NoReturn:
        raise ShardcAttributeError(f"The 'block_until_ready' method is not available on traced array with "
                                   f"shape {_shape(self)}.", loc=user_location())

    @property
    def copy_to_host_async(self) -> NoReturn:
        raise ShardcAttributeError(f"The 'copy_to_host_async' method is not available on traced array with "
                                   f"shape {_shape(self)}.", loc=user_location())


def _shape(x: Tracer) -> str:
    """The type as JAX's tracer errors print it (`aval.str_short()`: no weak-type mark)."""
    return x.aval.str_short(short_dtypes=False)


def _abstract(x: Tracer, detail: str) -> str:
    return (f"Abstract tracer value encountered where concrete value is expected: traced array with shape "
            f"{_shape(x)}\n{detail}")


def _no_value(x: Tracer, message: str, fix: str | None = None) -> NoReturn:
    """Raise the traced-value error: the value exists only when the program runs."""
    raise ShardcTypeError(message + "\nThe value is not known while tracing: it depends on the program's "
                          "arguments.", loc=user_location(), fix=fix)


def install(*classes: type, methods: type = ArrayMethods) -> None:
    """Give each class the operators and methods of `methods` (not overriding its own)."""
    for cls in classes:
        for name, value in vars(methods).items():
            if name in _PLUMBING or name in vars(cls):
                continue
            setattr(cls, name, value)


#: what every class body has, which is not a method to copy
_PLUMBING = {"__module__", "__qualname__", "__doc__", "__dict__", "__weakref__", "__firstlineno__",
             "__static_attributes__"}

install(Tracer, Array)
install(Tracer, methods=TracedMethods)
