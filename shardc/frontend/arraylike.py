"""Python operators and methods shared by traced values and `sc.Array`s.

Each forwards to the public op of the same meaning, so `x @ w` and
`sc.matmul(x, w)` type-check identically (errors name the operator).
"""
from __future__ import annotations

from typing import Any


def _ops():
    from .. import ops
    return ops


class ArrayMethods:
    __slots__ = ()

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

    def __len__(self) -> int:
        if not self.aval.shape:
            raise TypeError("len() of unsized object")
        return self.aval.shape[0]

    # --- arithmetic ----------------------------------------------------------------
    def __add__(self, o): return _ops().binary_op("add", self, o, api="+")
    def __radd__(self, o): return _ops().binary_op("add", o, self, api="+")
    def __sub__(self, o): return _ops().binary_op("sub", self, o, api="-")
    def __rsub__(self, o): return _ops().binary_op("sub", o, self, api="-")
    def __mul__(self, o): return _ops().binary_op("mul", self, o, api="*")
    def __rmul__(self, o): return _ops().binary_op("mul", o, self, api="*")
    def __truediv__(self, o): return _ops().true_divide(self, o, api="/")
    def __rtruediv__(self, o): return _ops().true_divide(o, self, api="/")
    def __floordiv__(self, o): return _ops().floor_divide(self, o, api="//")
    def __rfloordiv__(self, o): return _ops().floor_divide(o, self, api="//")
    def __mod__(self, o): return _ops().remainder(self, o, api="%")
    def __rmod__(self, o): return _ops().remainder(o, self, api="%")
    def __pow__(self, o): return _ops().power(self, o, api="**")
    def __rpow__(self, o): return _ops().power(o, self, api="**")
    def __matmul__(self, o): return _ops().matmul(self, o, api="@")
    def __rmatmul__(self, o): return _ops().matmul(o, self, api="@")
    def __neg__(self): return _ops().negative(self, api="-")
    def __pos__(self): return self
    def __abs__(self): return _ops().abs(self, api="abs")
    def __invert__(self): return _ops().invert(self, api="~")
    def __and__(self, o): return _ops().binary_op("and", self, o, api="&")
    def __rand__(self, o): return _ops().binary_op("and", o, self, api="&")
    def __or__(self, o): return _ops().binary_op("or", self, o, api="|")
    def __ror__(self, o): return _ops().binary_op("or", o, self, api="|")
    def __xor__(self, o): return _ops().binary_op("xor", self, o, api="^")
    def __rxor__(self, o): return _ops().binary_op("xor", o, self, api="^")

    # --- comparisons ---------------------------------------------------------------
    def __lt__(self, o): return _ops().binary_op("lt", self, o, api="<")
    def __le__(self, o): return _ops().binary_op("le", self, o, api="<=")
    def __gt__(self, o): return _ops().binary_op("gt", self, o, api=">")
    def __ge__(self, o): return _ops().binary_op("ge", self, o, api=">=")
    def __eq__(self, o): return _ops().binary_op("eq", self, o, api="==")
    def __ne__(self, o): return _ops().binary_op("ne", self, o, api="!=")
    __hash__ = None  # arrays are unhashable, as in NumPy and JAX

    # --- shape and indexing ----------------------------------------------------------
    @property
    def T(self): return _ops().transpose(self, api=".T")
    def __getitem__(self, idx): return _ops().getitem(self, idx)
    def reshape(self, *shape, out_sharding=None):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return _ops().reshape(self, shape, out_sharding=out_sharding, api=".reshape")
    def transpose(self, *axes):
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        return _ops().transpose(self, axes or None, api=".transpose")
    def astype(self, dtype): return _ops().astype(self, dtype, api=".astype")
    def squeeze(self, axis=None): return _ops().squeeze(self, axis, api=".squeeze")
    def ravel(self): return _ops().reshape(self, (self.size,), api=".ravel")
    def flatten(self): return _ops().reshape(self, (self.size,), api=".flatten")

    # --- reductions ------------------------------------------------------------------
    def sum(self, axis=None, keepdims=False): return _ops().sum(self, axis, keepdims=keepdims, api=".sum")
    def max(self, axis=None, keepdims=False): return _ops().max(self, axis, keepdims=keepdims, api=".max")
    def min(self, axis=None, keepdims=False): return _ops().min(self, axis, keepdims=keepdims, api=".min")
    def mean(self, axis=None, keepdims=False): return _ops().mean(self, axis, keepdims=keepdims, api=".mean")
    def prod(self, axis=None, keepdims=False): return _ops().prod(self, axis, keepdims=keepdims, api=".prod")
    def argmax(self, axis=None, keepdims=False): return _ops().argmax(self, axis, keepdims=keepdims, api=".argmax")
    def argmin(self, axis=None, keepdims=False): return _ops().argmin(self, axis, keepdims=keepdims, api=".argmin")
    def any(self, axis=None, keepdims=False): return _ops().any(self, axis, keepdims=keepdims, api=".any")
    def all(self, axis=None, keepdims=False): return _ops().all(self, axis, keepdims=keepdims, api=".all")
    def cumsum(self, axis=None): return _ops().cumsum(self, axis, api=".cumsum")
    def dot(self, o): return _ops().dot(self, o, api=".dot")
