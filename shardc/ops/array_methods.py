"""Python operators and methods of traced values and `sc.Array`s.

Each forwards to the public op of the same meaning, so `x @ w` and
`sc.matmul(x, w)` type-check identically (errors name the operator). The
core's `Tracer` and the runtime's `Array` know nothing of ops; `install` puts
these methods on both when `shardc.ops` is imported.
"""
from __future__ import annotations

import importlib
from typing import Any, NoReturn

import numpy as np

from .. import lax
from ..core import Tracer, typeof
from ..errors import (
    ConcretizationTypeError,
    ShardcAttributeError,
    ShardcNotImplementedError,
    ShardcTypeError,
    ShardcValueError,
    TracerArrayConversionError,
    TracerBoolConversionError,
    TracerIntegerConversionError,
    user_location,
)
from ..runtime.array import Array, check_bool_conversion, check_integer_conversion, check_scalar_conversion
from ..sharding import PartitionSpec
from . import construct as C
from . import creation as CR
from . import elementwise as E
from . import indexing as I
from . import linalg as LA
from . import math as M
from . import nan_reductions as N
from . import reductions as R
from . import shape as S
from . import sharding as SH
from . import sorting as SO

__all__ = ["ARRAY_API_VERSION", "ArrayMethods", "TracedMethods", "install"]

#: the Python array API standard version `__array_namespace__` serves (JAX 0.10.2's)
ARRAY_API_VERSION = "2024.12"


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
    def __divmod__(self, o): return M.divmod(self, o, api="divmod")
    def __rdivmod__(self, o): return M.divmod(o, self, api="divmod")
    def __lshift__(self, o): return M.left_shift(self, o, api="<<")
    def __rlshift__(self, o): return M.left_shift(o, self, api="<<")
    def __rshift__(self, o): return M.right_shift(self, o, api=">>")
    def __rrshift__(self, o): return M.right_shift(o, self, api=">>")
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
    def reshape(self, *shape, order="C", out_sharding=None):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return S.reshape(self, shape, order=order, out_sharding=out_sharding, api=".reshape")

    def transpose(self, *axes):
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        return S.transpose(self, axes or None, api=".transpose")

    def astype(self, dtype, copy=False, device=None):
        return E.astype(self, dtype, copy=copy, device=device, api=".astype")

    def squeeze(self, axis=None): return S.squeeze(self, axis, api=".squeeze")

    def ravel(self, order="C", *, out_sharding=None):
        return _flatten(self, order, out_sharding, ".ravel")

    def flatten(self, order="C", *, out_sharding=None):
        return _flatten(self, order, out_sharding, ".flatten")

    def swapaxes(self, axis1, axis2): return S.swapaxes(self, axis1, axis2, api=".swapaxes")

    def diagonal(self, offset=0, axis1=0, axis2=1):
        return C.diagonal(self, offset=offset, axis1=axis1, axis2=axis2, api=".diagonal")

    def trace(self, offset=0, axis1=0, axis2=1, dtype=None, out=None):
        return C.trace(self, offset=offset, axis1=axis1, axis2=axis2, dtype=dtype, out=out, api=".trace")

    def repeat(self, repeats, axis=None, *, total_repeat_length=None, out_sharding=None):
        return C.repeat(self, repeats, axis, total_repeat_length=total_repeat_length, out_sharding=out_sharding,
                        api=".repeat")

    def choose(self, choices, out=None, mode="raise"):
        return C.choose(self, choices, out=out, mode=mode, api=".choose")

    def compress(self, condition, axis=None, *, out=None, size=None, fill_value=0):
        return SO.compress(condition, self, axis, out=out, size=size, fill_value=fill_value, api=".compress")

    def take(self, indices, axis=None, out=None, mode=None, unique_indices=False, indices_are_sorted=False,
             fill_value=None):
        return I.take(self, indices, axis=axis, out=out, mode=mode, unique_indices=unique_indices,
                      indices_are_sorted=indices_are_sorted, fill_value=fill_value, api=".take")

    def copy(self): return C.copy(self, api=".copy")

    def __copy__(self): return C.copy(self, api="copy.copy")

    def __deepcopy__(self, memo): return C.copy(self, api="copy.deepcopy")

    def __round__(self, ndigits=None):
        """`round(x)`: to integers (int32, as Python's `round` of a float gives an int);
        `round(x, n)`: `n` decimals in `x`'s dtype (JAX's `_operator_round`)."""
        out = E.round(self, ndigits or 0, api="round")
        return out.astype(int) if ndigits is None else out

    def __setitem__(self, idx, value) -> NoReturn:
        raise ShardcTypeError("JAX arrays are immutable and do not support in-place item assignment."
                              " Instead of x[idx] = y, use x = x.at[idx].set(y) or another .at[] method:"
                              " https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html",
                              loc=user_location())

    def __array_namespace__(self, *, api_version: str | None = None):
        """The array-API namespace: `shardc.numpy` (array-API code calls `x.__array_namespace__()`)."""
        if api_version is not None and api_version != ARRAY_API_VERSION:
            raise ShardcValueError(f"{api_version=!r} is not available; available versions are: "
                                   f"{[ARRAY_API_VERSION]}", loc=user_location())
        # shardc.numpy is the namespace module above ops (it imports this module)
        return importlib.import_module("shardc.numpy")

    def clip(self, min=None, max=None): return E.clip(self, min=min, max=max, api=".clip")  # noqa: A002

    def round(self, decimals=0, out=None):
        _no_out(out, "round")
        return E.round(self, decimals, api=".round")

    def byteswap(self):
        """The bytes of each element reversed (JAX's: to uint8 bytes, `rev` the last dim, back)."""
        d = np.dtype(self.aval.dtype)
        if d.kind == "c":
            return lax.complex(self.real.byteswap(), self.imag.byteswap())
        if d.itemsize == 1:
            return self.copy()
        b = lax.bitcast_convert_type(self, np.dtype("uint8"))
        return lax.bitcast_convert_type(lax.rev(b, [self.aval.ndim]), d)

    def view(self, dtype=None, type=None):  # noqa: A002  (NumPy's parameter name)
        return _view(self, dtype, type)

    @property
    def flat(self):
        raise ShardcNotImplementedError("JAX Arrays do not implement the arr.flat property: consider "
                                        "arr.flatten() instead.", loc=user_location())

    # --- reductions (JAX's method signatures; `out=` is refused as JAX refuses it) -------
    def sum(self, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None, promote_integers=True):
        return R.sum(self, axis, dtype, out, keepdims, initial, where, promote_integers, api=".sum")

    def prod(self, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,
             promote_integers=True):
        return R.prod(self, axis, dtype, out, keepdims, initial, where, promote_integers, api=".prod")

    def max(self, axis=None, out=None, keepdims=False, initial=None, where=None):
        return R.max(self, axis, out, keepdims, initial, where, api=".max")

    def min(self, axis=None, out=None, keepdims=False, initial=None, where=None):
        return R.min(self, axis, out, keepdims, initial, where, api=".min")

    def mean(self, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
        return R.mean(self, axis, dtype, out, keepdims, where=where, api=".mean")

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None, correction=None):
        return R.std(self, axis, dtype, out, ddof, keepdims, where=where, correction=correction, api=".std")

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None, correction=None):
        return R.var(self, axis, dtype, out, ddof, keepdims, where=where, correction=correction, api=".var")

    def ptp(self, axis=None, out=None, keepdims=False):
        return N.ptp(self, axis, out=out, keepdims=keepdims, api=".ptp")

    def argmax(self, axis=None, out=None, keepdims=None):
        return R.argmax(self, axis, out, keepdims, api=".argmax")

    def argmin(self, axis=None, out=None, keepdims=None):
        return R.argmin(self, axis, out, keepdims, api=".argmin")

    def any(self, axis=None, out=None, keepdims=False, *, where=None):
        return R.any(self, axis, out, keepdims, where=where, api=".any")

    def all(self, axis=None, out=None, keepdims=False, *, where=None):
        return R.all(self, axis, out, keepdims, where=where, api=".all")

    def cumsum(self, axis=None, dtype=None, out=None):
        return R.cumsum(self, axis, dtype, out, api=".cumsum")

    def cumprod(self, axis=None, dtype=None, out=None):
        return R.cumprod(self, axis, dtype, out, api=".cumprod")

    def dot(self, b, *, precision=None, preferred_element_type=None):
        return LA.dot(self, b, preferred_element_type=preferred_element_type, api=".dot")

    # sorting and searching (`ops/sorting.py`)
    def sort(self, axis=-1, *, kind=None, order=None, stable=True, descending=False):
        return SO.sort(self, axis, kind=kind, order=order, stable=stable, descending=descending, api=".sort")

    def argsort(self, axis=-1, *, kind=None, order=None, stable=True, descending=False):
        return SO.argsort(self, axis, kind=kind, order=order, stable=stable, descending=descending,
                          api=".argsort")

    def argpartition(self, kth, axis=-1): return SO.argpartition(self, kth, axis, api=".argpartition")

    def searchsorted(self, v, side="left", sorter=None, *, method="scan"):
        return SO.searchsorted(self, v, side=side, sorter=sorter, method=method, api=".searchsorted")

    def nonzero(self, *, fill_value=None, size=None):
        return SO.nonzero(self, size=size, fill_value=fill_value, api=".nonzero")

    # --- placement (concrete arrays; a traced value has none, as in JAX) ----------------
    @property
    def device(self):
        """The one device holding the array, else its sharding (as `jax.Array.device`)."""
        if isinstance(self, Tracer):
            raise ShardcAttributeError(f"The 'device' attribute is not available on traced array with shape "
                                       f"{_shape(self)}.", loc=user_location())
        devs = self.devices()
        return next(iter(devs)) if len(devs) == 1 else self.sharding

    @property
    def global_shards(self):
        """Every shard across all devices (this process addresses them all)."""
        if isinstance(self, Tracer):
            _no_value(self, _abstract(self, f"The global_shards property was called on traced array with shape "
                                            f"{_shape(self)}."))
        return self.addressable_shards

    def to_device(self, device, *, stream=None):
        """A copy placed on `device` (a device or a sharding), as `sc.device_put`."""
        if stream is not None:
            raise ShardcNotImplementedError("stream argument of array.to_device()", loc=user_location())
        return SH.device_put(self, device)


def _no_out(out, name: str) -> None:
    if out is not None:
        raise ShardcNotImplementedError(f"The 'out' argument to jnp.{name} is not supported.", loc=user_location())


def _flatten(x, order, out_sharding, api: str):
    """JAX's `ravel` (what `x.ravel()` / `x.flatten()` call): a reshape to one dim in `order`."""
    if order == "K":
        raise ShardcNotImplementedError("Ravel not implemented for order='K'.", loc=user_location())
    return S.reshape(x, (x.aval.size,), order, out_sharding=out_sharding, api=api)


def _view(x, dtype, type_):
    """JAX's `_view`: a bitwise reinterpretation, reshaping the last dim when the item size changes."""
    if type_ is not None:
        raise ShardcNotImplementedError("`type` argument of array.view() is not supported.", loc=user_location())
    if dtype is None:
        return x
    dtype = np.dtype(dtype)
    t = x.aval
    nbits_in, nbits_out = np.dtype(t.dtype).itemsize * 8, dtype.itemsize * 8
    if t.ndim == 0:
        if nbits_in != nbits_out:
            raise ShardcValueError("view() of a 0d array is only supported if the itemsize is unchanged.",
                                   loc=user_location())
        return _view(S.expand_dims(x, (0,)), dtype, None).squeeze()
    if (t.shape[-1] * nbits_in) % nbits_out != 0:
        raise ShardcValueError("When changing to a larger dtype, its size must be a divisor of the total size in "
                               "bytes of the last axis of the array.", loc=user_location())
    if t.dtype == dtype:
        return x
    if t.dtype == np.bool_:
        return _view(x.astype(np.uint8), dtype, None)
    if dtype == np.bool_:
        return _view(x, np.uint8, None).astype(np.bool_)
    if np.dtype(t.dtype).kind == "c":
        # JAX's: interleave the real and imaginary parts into a float array of twice the last dim
        # (typed as `x`), then view that
        fdt = np.finfo(t.dtype).dtype
        spec = PartitionSpec(*t.spec, unreduced=t.unreduced, reduced=t.reduced) if not t.mesh.empty else None
        out = CR.zeros((*t.shape[:-1], t.shape[-1] * 2), fdt, out_sharding=spec)
        out = out.at[..., 0::2].set(M.real(x)).at[..., 1::2].set(M.imag(x))
        return _view(out, dtype, None)
    if dtype.kind == "c":
        out = E.astype(_view(x, np.finfo(dtype).dtype, None), dtype)
        return out[..., 0::2] + 1j * out[..., 1::2]
    if nbits_in < nbits_out:
        factor = nbits_out // nbits_in
        out = x.reshape(*t.shape[:-1], t.shape[-1] // factor, factor)
        return lax.bitcast_convert_type(out, dtype)
    if nbits_in > nbits_out:
        out = lax.bitcast_convert_type(x, dtype)
        s = out.aval.shape
        return out.reshape(*s[:-2], s[-2] * s[-1])
    return lax.bitcast_convert_type(x, dtype)


class TracedMethods:
    """What a traced value says to the parts of the `jax.Array` protocol that need a
    value, with the error class family and the wording of `jax.core.Tracer`: the
    shape checks first (a 2-d array is not a scalar, traced or not), then the
    traced-value error, at the user's line."""

    def __bool__(self) -> bool:
        check_bool_conversion(self.aval)
        if (v := _known_value(self)) is not None:
            return bool(v)
        _no_value(self, f"Attempted boolean conversion of traced array with shape {_shape(self)}.",
                  "use sc.where, or sc.cond / sc.while_loop for control flow on traced values",
                  TracerBoolConversionError)

    def __float__(self) -> NoReturn:
        check_scalar_conversion(self.aval)
        _no_value(self, _abstract(self, "The problem arose with the `float` function."),
                  "to change the dtype use `x.astype(float)`")

    def __int__(self) -> int:
        check_scalar_conversion(self.aval)
        if (v := _known_value(self)) is not None:
            return int(v)
        _no_value(self, _abstract(self, "The problem arose with the `int` function."),
                  "to change the dtype use `x.astype(int)`")

    def __complex__(self) -> NoReturn:
        check_scalar_conversion(self.aval)
        _no_value(self, _abstract(self, "The problem arose with the `complex` function."),
                  "to change the dtype use `x.astype(complex)`")

    def __index__(self) -> int:
        check_integer_conversion(self.aval)
        if (v := _known_value(self)) is not None:
            return v.__index__()
        _no_value(self, f"The __index__() method was called on traced array with shape {_shape(self)}",
                  "index with the traced value itself (x[i]), or pass it as a static argument",
                  TracerIntegerConversionError)

    def __array__(self, *args, **kwargs) -> NoReturn:
        _no_value(self, f"The numpy.ndarray conversion method __array__() was called on traced array "
                  f"with shape {_shape(self)}", "use sc ops (not NumPy functions) on traced values",
                  TracerArrayConversionError)

    def __str__(self) -> str:
        """An eager shard_map body's value: each device's block at its mesh coordinates (JAX's
        `ShardMapTracer.__str__`); elsewhere the tracer's repr."""
        describe = getattr(self._trace.concrete_value, "describe", None)
        text = describe(self) if describe is not None else None
        return text if text is not None else repr(self)

    def item(self, *args: int):
        if (v := _known_value(self)) is not None:
            return v.item(*args)
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


def _known_value(x: Tracer) -> np.ndarray | None:
    """A traced value that is known nonetheless (an invariant value of an eager shard_map
    body, whose arguments are known: JAX's `ShardMapTracer.to_concrete_value`), or None."""
    hook = x._trace.concrete_value   # (as JAX: for bool, int, index and item, not float or complex)
    return None if hook is None else hook(x, False)


def _no_value(x: Tracer, message: str, fix: str | None = None,
              kind: type[ConcretizationTypeError] | type[ShardcTypeError] = ConcretizationTypeError) -> NoReturn:
    """Raise the traced-value error, of JAX's class for the conversion (`jax.errors.*`): the value
    exists only when the program runs."""
    raise kind(message + "\nThe value is not known while tracing: it depends on the program's "
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
