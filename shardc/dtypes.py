"""Dtypes, their short and MLIR names, and JAX's type-promotion lattice.

shardc follows JAX with x64 disabled: 64-bit types canonicalize to 32-bit ones,
Python scalars are *weak* (they adopt the other operand's dtype), and binary
ops promote along JAX's lattice rather than NumPy's.
"""
from __future__ import annotations

import functools
from typing import Any

import ml_dtypes
import numpy as np

from .errors import ShardcTypeError, ShardcTypePromotionError, ShardcValueError

#: `jax.dtypes.TypePromotionError`
TypePromotionError = ShardcTypePromotionError

# JAX's dtype descriptions, by the names `jax.dtypes` has them (`import shardc as jax` code asks
# `jnp.issubdtype(key.dtype, jax.dtypes.prng_key)`): they describe dtypes, they do not compute
from jax.dtypes import (  # noqa: E402,F401
    canonicalize_dtype,
    extended,
    finfo,
    iinfo,
    issubdtype,
    itemsize_bits,
    prng_key,
    scalar_type_of,
)

bool_ = np.dtype(np.bool_)
int8, int16, int32, int64 = (np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64))
uint8, uint16, uint32, uint64 = (np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64))
float16, float32, float64 = (np.dtype(t) for t in (np.float16, np.float32, np.float64))
bfloat16 = np.dtype(ml_dtypes.bfloat16)
complex64, complex128 = np.dtype(np.complex64), np.dtype(np.complex128)
#: `jax.float0`: the dtype of the (empty, zero) cotangents of integer and bool values; host
#: arrays of it are what `grad(..., allow_int=True)` and `vjp` return for such arguments
float0 = np.dtype([("float0", np.void, 0)])

#: JAX's 8-bit and 4-bit floats (`jnp.float8_*`, `jnp.float4_e2m1fn`, from ml_dtypes): storage
#: and arithmetic types that promote with nothing but weak scalars (JAX's lattice: below `f*`,
#: above nothing); the float6 types are not here, as XLA's CPU runtime has no buffers of them
float8_e3m4, float8_e4m3, float8_e8m0fnu, float8_e4m3b11fnuz, float8_e4m3fn, float8_e4m3fnuz, float8_e5m2, \
    float8_e5m2fnuz = (np.dtype(getattr(ml_dtypes, n)) for n in (
        "float8_e3m4", "float8_e4m3", "float8_e8m0fnu", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
        "float8_e5m2", "float8_e5m2fnuz"))
float4_e2m1fn = np.dtype(ml_dtypes.float4_e2m1fn)
FLOAT8 = (float8_e3m4, float8_e4m3, float8_e8m0fnu, float8_e4m3b11fnuz, float8_e4m3fn, float8_e4m3fnuz,
          float8_e5m2, float8_e5m2fnuz)
SMALL_FLOATS = FLOAT8 + (float4_e2m1fn,)

SUPPORTED = (bool_, int8, int16, int32, uint8, uint16, uint32, float16, bfloat16, float32, complex64, *SMALL_FLOATS)

SHORT_NAMES = {
    bool_: "bool", int8: "i8", int16: "i16", int32: "i32", int64: "i64",
    uint8: "u8", uint16: "u16", uint32: "u32", uint64: "u64",
    float16: "f16", bfloat16: "bf16", float32: "f32", float64: "f64",
    complex64: "c64", complex128: "c128",
}
MLIR_NAMES = {
    bool_: "i1", int8: "i8", int16: "i16", int32: "i32", int64: "i64",
    uint8: "ui8", uint16: "ui16", uint32: "ui32", uint64: "ui64",
    float16: "f16", bfloat16: "bf16", float32: "f32", float64: "f64",
    complex64: "complex<f32>", complex128: "complex<f64>",
}
# JAX's `_short_dtype_name` (`float8_e4m3fn` -> `f8_e4m3fn`) and MLIR's spellings (`f8E4M3FN`)
for _d in SMALL_FLOATS:
    SHORT_NAMES[_d] = _d.name.replace("float", "f")
    MLIR_NAMES[_d] = "f" + _d.name[5:].replace("_", "").upper()
_BY_NAME = {}
for _d, _s in SHORT_NAMES.items():
    _BY_NAME[_s] = _d
    _BY_NAME[_d.name] = _d
_BY_NAME.update({"bool_": bool_, "pred": bool_})


def short_name(dtype: np.dtype) -> str:
    return SHORT_NAMES[np.dtype(dtype)]


def mlir_name(dtype: np.dtype) -> str:
    return MLIR_NAMES[np.dtype(dtype)]


def from_name(name: str) -> np.dtype:
    """Parse a short (`f32`) or long (`float32`) dtype name."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise ShardcValueError(f"unknown dtype name {name!r}; expected one of "
                               + ", ".join(sorted(SHORT_NAMES.values()))) from None


def float0_error(op: str, position: int | None = None) -> ShardcTypeError:
    """JAX's TypeError for an operation on a float0 array (`op`: the operation's name; `position`:
    the operand's, where JAX's message names it)."""
    what = "a float0 array" if position is None else f"a float0 at position {position}"
    return ShardcTypeError(
        f"Called {op} with {what}. float0s do not support any operations by design because "
        "they are not compatible with non-trivial vector spaces. No implicit dtype conversion is done. You "
        "can use np.zeros_like(arr, dtype=np.float) to cast a float0 array to a regular zeros array. \nIf "
        "you didn't expect to get a float0 you might have accidentally taken a gradient with respect to an "
        "integer argument.")


class TracedFloat0(np.ndarray):
    """A float0 zero made inside a program (the gradient of an integer input): JAX's is a traced
    value, on which `t + 1` and every other operation is JAX's TypeError; a plain NumPy float0
    array would give NumPy's UFuncTypeError instead. It is still a float0 `np.ndarray`, so it
    crosses program boundaries as one (as structure, not data)."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if any(getattr(x, "dtype", None) == float0 for x in inputs):
            raise float0_error(_FLOAT0_OP_NAMES.get(ufunc.__name__, ufunc.__name__))
        # (a view of another dtype, e.g. `np.zeros_like(t, dtype=float)`, computes as NumPy does)
        inputs = tuple(x.view(np.ndarray) if isinstance(x, TracedFloat0) else x for x in inputs)
        return getattr(ufunc, method)(*inputs, **kwargs)


def _float0_operator(name: str, dunder: str):
    def op(self, *args):
        if self.dtype == float0:
            raise float0_error(name)
        return getattr(self.view(np.ndarray), dunder)(*args)
    return op


#: NumPy's ufunc names where JAX's float0 error names the operation otherwise
_FLOAT0_OP_NAMES = {"absolute": "abs", "divide": "true_divide", "square": "power"}
# Python's operators, named as JAX's float0 error names them (comparisons of a structured
# array do not reach __array_ufunc__)
for _dunder, _name in (("__eq__", "equal"), ("__ne__", "not_equal"), ("__lt__", "less"), ("__le__", "less_equal"),
                       ("__gt__", "greater"), ("__ge__", "greater_equal"), ("__pow__", "power"),
                       ("__rpow__", "power"), ("__truediv__", "true_divide"), ("__rtruediv__", "true_divide")):
    setattr(TracedFloat0, _dunder, _float0_operator(_name, _dunder))


def traced_float0(shape: tuple[int, ...]) -> np.ndarray:
    return np.zeros(shape, float0).view(TracedFloat0)


def canonicalize(dtype: Any) -> np.dtype:
    """The dtype JAX uses for `dtype` with x64 disabled (64-bit → 32-bit, complex128 → complex64)."""
    d = np.dtype(dtype)
    d = {int64: int32, uint64: uint32, float64: float32, complex128: complex64}.get(d, d)
    if d == float0:
        # (they cross program boundaries as structure, not data: sc.jit / sc.vmap)
        raise float0_error("an operation")
    if d not in SUPPORTED:
        raise ShardcValueError(f"dtype {d} is not supported by shardc; supported: "
                               + ", ".join(str(s) for s in SUPPORTED))
    return d


_FLOATS = frozenset((float16, bfloat16, float32, float64, *SMALL_FLOATS))


def is_float(d: np.dtype) -> bool:
    return d in _FLOATS if isinstance(d, np.dtype) else np.dtype(d) in _FLOATS


def is_custom_float(d: np.dtype) -> bool:
    """bfloat16 and the small floats: floating dtypes NumPy files under kind "V" (ml_dtypes)."""
    d = np.dtype(d)
    return d == bfloat16 or d in SMALL_FLOATS


def supports_inf(d: np.dtype) -> bool:
    """JAX's `dtypes.supports_inf`: inexact, except the four finite-only float8 types."""
    d = np.dtype(d)
    return is_inexact(d) and d not in (float8_e4m3b11fnuz, float8_e4m3fn, float8_e4m3fnuz, float8_e5m2fnuz)


def is_complex(d: np.dtype) -> bool:
    return np.dtype(d).kind == "c"


def is_inexact(d: np.dtype) -> bool:
    """Floating or complex (JAX's `np.inexact`): the dtypes that carry gradients."""
    return is_float(d) or is_complex(d)


def real_dtype(d: np.dtype) -> np.dtype:
    """The component dtype of a complex dtype (`complex64` → `float32`); others unchanged."""
    d = np.dtype(d)
    return {complex64: float32, complex128: float64}.get(d, d)


def complex_dtype(d: np.dtype) -> np.dtype:
    """The complex dtype with real dtype `d` (`float32`/`f16`/`bf16` → `complex64`, as JAX)."""
    d = np.dtype(d)
    return complex128 if d in (float64, complex128) else complex64


def is_int(d: np.dtype) -> bool:
    return np.dtype(d).kind in "iu"


def is_signed(d: np.dtype) -> bool:
    return np.dtype(d).kind == "i"


def is_bool(d: np.dtype) -> bool:
    return np.dtype(d) == bool_


# --- JAX's promotion lattice -------------------------------------------------
# Nodes are dtypes or the weak kinds "i*", "f*" and "c*" (Python int / float / complex).
_I, _F, _C = "i*", "f*", "c*"
_LATTICE: dict[Any, list[Any]] = {
    bool_: [_I],
    _I: [uint8, int8],
    uint8: [int16, uint16], uint16: [int32, uint32], uint32: [int64, uint64], uint64: [_F],
    int8: [int16], int16: [int32], int32: [int64], int64: [_F],
    _F: [*SMALL_FLOATS, bfloat16, float16, _C],
    **{d: [] for d in SMALL_FLOATS},
    bfloat16: [float32], float16: [float32], float32: [float64, complex64], float64: [complex128],
    _C: [complex64], complex64: [complex128], complex128: [],
}


@functools.cache
def _upper_bounds(node: Any, strict: bool = False) -> frozenset:
    out = {node}
    for nxt in (_STRICT if strict else _LATTICE)[node]:
        out |= _upper_bounds(nxt, strict)
    return frozenset(out)


def _least_upper_bound(nodes: frozenset, strict: bool = False) -> Any:
    """The least upper bound of `nodes` on JAX's lattice (its strict one with `strict`), or None."""
    common = functools.reduce(frozenset.intersection, (_upper_bounds(n, strict) for n in nodes))
    for c in common:
        if all(o in _upper_bounds(c, strict) for o in common):
            return c
    return None


def _node_str(n: Any) -> str:
    return {_I: "<class 'int'>", _F: "<class 'float'>", _C: "<class 'complex'>"}.get(n, str(n))


def _lub(nodes: frozenset) -> Any:
    out = _least_upper_bound(nodes)
    if out is None:
        # only the small floats stand apart on the standard lattice (JAX's message for them)
        bits = "4" if float4_e2m1fn in nodes and not any(n in FLOAT8 for n in nodes) else "8"
        raise ShardcTypePromotionError(
            f"Input dtypes {tuple(_node_str(n) for n in nodes)} have no available implicit dtype promotion path. "
            f"To avoid unintended promotion, {bits}-bit floats do not support implicit promotion. If you'd like "
            "your inputs to be promoted to another type, you can do so explicitly using e.g. x.astype('float32')")
    return out


def _node(dtype: np.dtype, weak: bool) -> Any:
    if not weak:
        return np.dtype(dtype)
    if is_bool(dtype):
        return bool_
    if is_complex(dtype):
        return _C
    return _I if is_int(dtype) else _F


#: JAX's promotion flags, set by `sc.config` (`jax_numpy_dtype_promotion`, `jax_numpy_rank_promotion`);
#: kept here, below every op that reads them. Process-wide, as the rest of `sc.config`.
PROMOTION_FLAGS: dict[str, str] = {"dtype": "standard", "rank": "allow"}

# JAX's strict lattice (`_type_promotion_lattice(strict=True)`): a weak kind promotes only to the
# dtypes of its own kind (and a weak int to a weak float, a weak float to a weak complex);
# two different concrete dtypes never promote.
_STRICT: dict[Any, list[Any]] = {
    _I: [_F, int8, int16, int32, int64, uint8, uint16, uint32, uint64],
    _F: [_C, *SMALL_FLOATS, bfloat16, float16, float32, float64],
    _C: [complex64, complex128],
    **{d: [] for d in (bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
                       *SMALL_FLOATS, bfloat16, float16, float32, float64, complex64, complex128)},
}


def _strict_lub(nodes: frozenset) -> Any:
    """The least upper bound on the strict lattice, or JAX's TypePromotionError."""
    out = _least_upper_bound(nodes, strict=True)
    if out is not None:
        return out
    names = tuple({_I: "<class 'int'>", _F: "<class 'float'>", _C: "<class 'complex'>"}.get(n, str(n))
                  for n in nodes)
    raise ShardcTypePromotionError(
        f"Input dtypes {names} have no available implicit dtype promotion path when "
        "jax_numpy_dtype_promotion=strict. Try explicitly casting inputs to the desired output type, "
        "or set jax_numpy_dtype_promotion=standard.")


def result_type(*operands: tuple[np.dtype, bool]) -> tuple[np.dtype, bool]:
    """Promote (dtype, weak_type) pairs as `jnp` binary ops do (JAX's `lattice_result_type`)."""
    dts = [np.dtype(d) for d, _ in operands]
    weaks = [w for _, w in operands]
    if len(set(dts)) == 1 and not all(weaks):
        return dts[0], False
    if len(operands) == 1:
        return dts[0], weaks[0]
    if PROMOTION_FLAGS["dtype"] == "strict":
        out = _strict_lub(frozenset(_node(d, w) for d, w in zip(dts, weaks)))
        weak = out in (_I, _F, _C)
        out = canonicalize({_I: int32, _F: float32, _C: complex64}.get(out, out))
        return out, bool(weak and out != bool_)
    if all(weaks):
        # JAX's `_lattice_result_type`: all weak, the bound of the strong dtypes, made
        # weak (weak int8 + weak uint8 is a weak int16, not a Python int)
        out = canonicalize(_lub(frozenset(_node(d, False) for d in dts)))
        return out, out != bool_
    out = _lub(frozenset(_node(d, w) for d, w in zip(dts, weaks)))
    weak = all(weaks) or out in (_I, _F, _C)
    if out == _I:
        out = int32
    elif out == _F:
        out = float32
    elif out == _C:
        out = complex64
    out = canonicalize(out)
    return out, bool(weak and out != bool_)


def scalar_dtype(value: Any) -> tuple[np.dtype, bool]:
    """The (dtype, weak) JAX gives a Python or NumPy scalar."""
    if isinstance(value, (bool, np.bool_)):
        return bool_, isinstance(value, bool) and False
    if isinstance(value, int) and not isinstance(value, np.integer):
        return int32, True
    if isinstance(value, float):
        return float32, True
    if isinstance(value, complex) and not isinstance(value, np.generic):
        return complex64, True
    return canonicalize(np.asarray(value).dtype), False
