"""Python operators and methods of traced values and `sc.Array`s.

Each forwards to the public op of the same meaning, so `x @ w` and
`sc.matmul(x, w)` type-check identically (errors name the operator). The
core's `Tracer` and the runtime's `Array` know nothing of ops; `install` puts
these methods on both when `shardc.ops` is imported.
"""
from __future__ import annotations

from ..core import Tracer
from ..errors import ShardcTypeError
from ..runtime.array import Array
from . import elementwise as E
from . import indexing as I
from . import linalg as LA
from . import reductions as R
from . import shape as S

__all__ = ["ArrayMethods", "install"]


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

    def __len__(self) -> int:
        if not self.aval.shape:
            raise TypeError("len() of unsized object")
        return self.aval.shape[0]

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
    def __getitem__(self, idx): return I.getitem(self, idx)

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


def install(*classes: type) -> None:
    """Give each class the operators and methods above (not overriding its own)."""
    for cls in classes:
        for name, value in vars(ArrayMethods).items():
            if name.startswith("__") and name not in _DUNDERS:
                continue
            if name in vars(cls):
                continue
            setattr(cls, name, value)


_DUNDERS = {n for n in vars(ArrayMethods) if n.startswith("__") and n.endswith("__")} - {
    "__module__", "__qualname__", "__doc__", "__dict__", "__weakref__", "__firstlineno__",
    "__static_attributes__"}

install(Tracer, Array)
