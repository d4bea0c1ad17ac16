"""`ffi_call`: a call to a foreign function registered with XLA (JAX's `ffi_call_p`, the
primitive behind `jax.ffi.ffi_call` / `sc.ffi.ffi_call`).

Rules, as `jax/_src/ffi.py` of JAX 0.10.2:
* shape/dtype: the declared results (`result_types`), dtypes kept exactly as declared (an
  `int64` result stays `int64` without x64, as JAX's `_result_avals`), weak types as declared.
* sharding: none is inferred from the operands (JAX has no sharding rule for it): each result
  has the sharding its `ShapeDtypeStruct` names, else it is replicated on the context mesh
  (`get_cur_mesh_sharding`). The operands may be sharded in any way (unreduced ones too): the
  custom call carries no sharding, so XLA gives the handler whole arrays, as it does for JAX.
* unreduced/reduced: the results' are the declared ones; operands are not checked.
* VMA: JAX's auto pcast first makes the operands vary over one set of Manual axes (`bind`),
  `standard_vma_rule` checks they do; the results vary over the axes their declarations say
  (none for a `ShapeDtypeStruct`: JAX discards the operands' set).
* no derivative: a cotangent reaching an operand is JAX's ValueError ("The FFI call to `t`
  cannot be differentiated").
* batching (`ffi_batching_rule`): `sequential` / `sequential_unrolled` scan the call over the
  batch (the batch dim of every batched operand must be replicated, JAX's scan error; shardc's
  scan does not unroll, so both lower to one loop); `expand_dims` / `broadcast_all` call it once
  on the batch, unbatched operands given a leading dim of 1 / of the batch size, every layout
  shifted to keep the batch dim most major; `legacy_vectorized` the same without broadcasting;
  `None` is JAX's NotImplementedError.
* lowering (`ffi_call_lowering`): one `stablehlo.custom_call @target` written as JAX writes it:
  for the typed FFI (`custom_call_api_version >= 4`) the attributes become the
  `mhlo.backend_config` dictionary (JAX's `mlir.ir_attribute` encoding, `encode_attribute`) with
  `backend_config = ""` and the default `api_version` (XLA reads the dictionary as the typed FFI's
  attributes, as it does JAX's); earlier API versions carry `legacy_backend_config` as the string
  `backend_config` and `api_version = N`; `has_side_effect`, `operand_layouts` /
  `result_layouts` (minor-to-major) and `output_operand_aliases`. No `sdy` sharding is written on
  the call and its results are not constrained, as JAX's.

`has_side_effect=True` binds `ffi_call_effect`, the same primitive marked as an effect, so the
dead-code pass keeps it when its results are unused (JAX's `FfiEffect`).
"""
from __future__ import annotations

import math
import re
from typing import Any, Sequence

import ml_dtypes
import numpy as np

from .. import dtypes as dt
from ..core import Primitive, bind
from ..emit.text import ttype
from ..errors import (
    ShardcError,
    ShardcNotImplementedError,
    ShardcOverflowError,
    ShardcRuntimeError,
    ShardcTypeError,
    ShardcValueError,
)
from ..sharding import PartitionSpec
from ..types import ArrayType
from . import control_flow as cf

__all__ = ["ffi_call_p", "ffi_call_effect_p", "ResultType", "HashableArray", "FrozenDict", "encode_attribute",
           "VMAP_METHODS"]

#: JAX's `allowed_vmap_methods`
VMAP_METHODS = ["sequential", "sequential_unrolled", "expand_dims", "broadcast_all", "legacy_vectorized", None]


# --- params ---------------------------------------------------------------------------------------
class ResultType(tuple):
    """One declared result: (shape, dtype, weak_type, spec, unreduced, reduced, vma), hashable
    (the rules read it; the mesh is the equation's)."""

    __slots__ = ()

    def __new__(cls, shape, dtype, weak, spec, unreduced=frozenset(), reduced=frozenset(), vma=frozenset()):
        return super().__new__(cls, (tuple(int(d) for d in shape), np.dtype(dtype), bool(weak), tuple(spec),
                                     frozenset(unreduced), frozenset(reduced), frozenset(vma)))

    shape = property(lambda self: self[0])
    dtype = property(lambda self: self[1])
    weak_type = property(lambda self: self[2])
    spec = property(lambda self: self[3])
    unreduced = property(lambda self: self[4])
    reduced = property(lambda self: self[5])
    vma = property(lambda self: self[6])

    def batched(self, n: int) -> "ResultType":
        """The result of the call on a batch of `n` (JAX's `unmapped_aval(n, 0, aval)`)."""
        return ResultType((n, *self.shape), self.dtype, self.weak_type, (None, *self.spec), self.unreduced,
                          self.reduced, self.vma)

    def __repr__(self) -> str:
        return str(ArrayType(self.shape, self.dtype, self.spec, self.unreduced, self.reduced, self.vma,
                             weak_type=self.weak_type))


class HashableArray:
    """A NumPy attribute in the params (JAX's `HashableArray`): a read-only copy, hashed by value."""

    __slots__ = ("val",)

    def __init__(self, val):
        self.val = np.array(val, copy=True)
        self.val.setflags(write=False)

    def __hash__(self) -> int:
        return hash((self.val.shape, self.val.dtype, self.val.tobytes()))

    def __eq__(self, other: Any) -> bool:
        return (isinstance(other, HashableArray) and self.val.shape == other.val.shape
                and self.val.dtype == other.val.dtype and np.array_equal(self.val, other.val))

    def __repr__(self) -> str:
        return f"HashableArray({self.val!r})"


class FrozenDict:
    """A dict attribute in the params (JAX's `FrozenDict`): hashed by its items, so its values
    must be hashable (JAX's TypeError otherwise, raised where the params are hashed)."""

    __slots__ = ("d",)

    def __init__(self, d):
        self.d = dict(d.items())

    def __hash__(self) -> int:
        return hash(frozenset(self.d.items()))

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, FrozenDict) and self.d == other.d

    def __repr__(self) -> str:
        return f"FrozenDict({self.d!r})"


# --- attributes: JAX's `mlir.ir_attribute`, as MLIR text ------------------------------------------
_SCALAR_TYPES = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
                 np.float16, np.float32, np.float64, np.complex64, np.complex128, np.bool_, np.longlong,
                 ml_dtypes.bfloat16)
_PY_SCALARS = {bool: np.dtype(np.bool_), int: np.dtype(np.int64), float: np.dtype(np.float64),
               complex: np.dtype(np.complex128)}
_SUB_BYTE_INTS = {"int2": "i2", "int4": "i4", "uint2": "ui2", "uint4": "ui4"}
_BARE_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_$.]*$")


def mlir_type_name(dtype) -> str:
    """MLIR's element type of `dtype` (JAX's `dtype_to_ir_type`; its TypeError otherwise)."""
    d = np.dtype(dtype)
    name = dt.MLIR_NAMES.get(d) or _SUB_BYTE_INTS.get(d.name)
    if name is None and d.kind == "V" and d.type.__module__.startswith("ml_dtypes") and d.name.startswith("float"):
        name = "f" + d.name[5:].replace("_", "").upper()   # ml_dtypes' small floats: f8E4M3FN, f4E2M1FN, ...
    if name is None:
        raise ShardcTypeError(f"No dtype_to_ir_type handler for dtype: {d}")
    return name


def _escape(data: bytes) -> str:
    """An MLIR string literal, escaped as MLIR prints it."""
    out = []
    for b in data:
        c = chr(b)
        if c == "\\":
            out.append("\\\\")
        elif 0x20 <= b < 0x7F and c != '"':
            out.append(c)
        else:
            out.append(f"\\{b:02X}")
    return '"' + "".join(out) + '"'


def _float_text(v, dtype: np.dtype) -> str:
    """A float literal MLIR parses back to exactly `v` in `dtype` (NaN / inf as their bits)."""
    f = float(v)
    if not math.isfinite(f):
        bits = np.asarray(v, dtype).reshape(1).view(f"u{dtype.itemsize}")[0]
        return "0x" + format(int(bits), f"0{2 * dtype.itemsize}X")
    s = repr(f)
    mant, _, exp = s.partition("e")
    if "." not in mant:
        mant += ".0"
    return mant + (f"e{exp}" if exp else "")


def _element_text(v, dtype: np.dtype) -> str:
    if dtype == np.bool_:
        return "true" if bool(v) else "false"
    if dtype.kind == "c":
        part = np.dtype(np.float32 if dtype == np.complex64 else np.float64)
        return f"({_float_text(np.real(v), part)},{_float_text(np.imag(v), part)})"
    if dtype.kind in "iu" or dtype.name in _SUB_BYTE_INTS:
        return str(int(v))
    return _float_text(v, dtype)


def _nested(a: np.ndarray, dtype: np.dtype) -> str:
    if a.ndim == 0:
        return _element_text(a[()], dtype)
    return "[" + ", ".join(_nested(x, dtype) for x in a) + "]"


def _array_attribute(a: np.ndarray) -> str:
    """`dense<...> : tensor<...>` (JAX's `_numpy_array_attribute`)."""
    ty = mlir_type_name(a.dtype)
    dims = "".join(f"{d}x" for d in a.shape)
    body = "" if a.size == 0 else _nested(a, a.dtype)
    return f"dense<{body}> : tensor<{dims}{ty}>"


def _scalar_attribute(v) -> str:
    """JAX's `_numpy_scalar_attribute`: an integer or float attribute of the scalar's type."""
    d = np.dtype(v.dtype)
    ty = mlir_type_name(d)
    if d == np.bool_:
        return "true" if bool(v) else "false"
    if d.kind in "iu":
        if d == np.uint64 and int(v) > np.iinfo(np.int64).max:   # JAX's MLIR bindings fail here too
            raise ShardcRuntimeError(f"std::bad_cast: the uint64 attribute {int(v)} exceeds the signed 64-bit "
                                     "range JAX's MLIR bindings build integer attributes from")
        return f"{int(v)} : {ty}"
    if d.kind == "f" or (d.kind == "V" and ty.startswith(("f", "bf"))):
        return f"{_float_text(v, d)} : {ty}"
    raise ShardcTypeError(f"Unsupported scalar attribute type: {type(v)}")


def _ndarray_handler(v) -> str:
    """JAX's `_numpy_array_attribute_handler`."""
    if 0 in getattr(v, "strides", ()) and v.size > 0:
        raise ShardcValueError("NumPy arrays with zero strides are not supported as MLIR attributes")
    if v.dtype == dt.float0:
        v = np.zeros(v.shape, dtype=np.bool_)
    if np.isscalar(v):
        return _scalar_attribute(v)
    return _array_attribute(np.asarray(v))


def _py_scalar(v) -> str:
    d = _PY_SCALARS[bool if type(v) is bool else next(t for t in (int, float, complex) if isinstance(v, t))]
    try:
        arr = np.array(v, d)
    except OverflowError:
        raise ShardcOverflowError("Python int too large to convert to C long") from None
    return _scalar_attribute(arr) if d.kind != "c" else _raise_unsupported(arr)


def _raise_unsupported(arr) -> str:
    raise ShardcTypeError(f"Unsupported scalar attribute type: {type(arr)}")


def _dict_handler(d: dict) -> str:
    items = []
    for k, v in d.items():
        if not isinstance(k, str):
            raise ShardcTypeError(f"attribute dictionary keys must be strings, got {k!r} (JAX's MLIR bindings "
                                  "fail with std::bad_cast)")
        key = k if _BARE_KEY.match(k) else _escape(k.encode())
        items.append(f"{key} = {encode_attribute(v)}")
    return "{" + ", ".join(items) + "}"


def _handler(t: type):
    """The handler JAX's `ir_attribute` picks for type `t` (the first of its MRO registered)."""
    if t is HashableArray:
        return lambda v: _ndarray_handler(v.val)
    if t is FrozenDict:
        return lambda v: _dict_handler(v.d)
    if t is np.ndarray or t in _SCALAR_TYPES:
        return _ndarray_handler
    if t is np.dtype or issubclass(t, np.dtype):
        return lambda v: mlir_type_name(v)
    if t is np.generic:
        return lambda v: mlir_type_name(type(v))
    if t in (bool, int, float, complex):
        return _py_scalar
    if t is str:
        return lambda v: _escape(str(v).encode())
    if t is bytes:
        return lambda v: _escape(bytes(v))
    if t is dict:
        return _dict_handler
    if t in (list, tuple):
        return lambda v: "[" + ", ".join(encode_attribute(x) for x in v) + "]"
    if t.__module__.startswith(("jaxlib.mlir", "jax._src.lib.mlir")) and t.__name__ in ("Attribute", "Type"):
        return str   # an MLIR attribute or type the user built: its own text
    return None


def encode_attribute(v: Any) -> str:
    """`v` as the MLIR attribute JAX's `mlir.ir_attribute` makes of it, in MLIR's text syntax:
    ints (i64) and floats (f64), NumPy scalars of their type, arrays as dense elements, dtypes as
    types, strings, tuples as arrays, dicts as dictionaries; JAX's error for anything else."""
    for t in type(v).__mro__:
        h = _handler(t)
        if h is not None:
            return h(v)
    m = getattr(v, "__jax_array__", None)
    if m is not None:
        return encode_attribute(m())
    raise ShardcTypeError(f"No attribute handler defined for type: {type(v)}")


# --- the primitive --------------------------------------------------------------------------------
class FfiCall(Primitive):
    """`ffi_call(*operands; target_name, result_types, ...)`: see the module docstring."""

    name = "ffi_call"
    multiple_results = True
    #: JAX's lowering writes the custom call alone: no sharding constraint on its results
    constrain_outputs = False

    def shape_rule(self, *ins: ArrayType, result_types, **_):
        return [(r.shape, r.dtype, r.weak_type) for r in result_types]

    def sharding_rule(self, *ins: ArrayType, result_types, **_):
        return [r.spec for r in result_types]

    def ur_rule(self, *ins: ArrayType, result_types, **_):
        return [(r.unreduced, r.reduced) for r in result_types]

    def vma_rule(self, *ins: ArrayType, result_types, **_):
        super().vma_rule(*ins)   # JAX's `standard_vma_rule` (its result is discarded)
        return [r.vma for r in result_types]

    def check_live(self, live, *, target_name, **_):
        if any(live):
            raise ShardcValueError(f"The FFI call to `{target_name}` cannot be differentiated. You can use "
                                   "`sc.custom_jvp` or `sc.custom_vjp` to add support.")

    def vjp(self, L, cts, ins, outs, **params):
        return [None] * len(ins)   # (never reached with a live operand: `check_live` refuses first)

    def batch(self, B, axis, args, dims, **params):
        """JAX's `ffi_batching_rule`, per `vmap_method`."""
        method = params["vmap_method"]
        if method not in VMAP_METHODS or method is None:
            raise ShardcNotImplementedError(
                "vmap is only supported for the ffi_call primitive when vmap_method is one of 'sequential', "
                "'sequential_unrolled', 'expand_dims', 'broadcast_all', or 'legacy_vectorized'. "
                f"Got vmap_method={method!r}.")
        n = axis.size
        front = [a if d is None else B.moveaxis(a, d, 0) for a, d in zip(args, dims)]
        if method in ("sequential", "sequential_unrolled"):
            outs = self._scan(B, front, dims, params, n)
            return outs, [0] * len(outs)
        shift = lambda lay: tuple(k + 1 for k in lay) + (0,)   # noqa: E731  (the batch dim most major)
        new = dict(params, result_types=tuple(r.batched(n) for r in params["result_types"]),
                   output_layouts=tuple(shift(lay) for lay in params["output_layouts"]))
        if method == "legacy_vectorized":
            new["input_layouts"] = tuple(lay if d is None else shift(lay)
                                         for lay, d in zip(params["input_layouts"], dims))
        else:
            size = n if method == "broadcast_all" else 1
            front = [B.broadcast(a, size, 0) if d is None else a for a, d in zip(front, dims)]
            new["input_layouts"] = tuple(shift(lay) for lay in params["input_layouts"])
        outs = B.bind(self, *front, **new)
        return list(outs), [0] * len(outs)

    def _scan(self, B, front, dims, params, n):
        """JAX's `sequential` method: `lax.scan` of the call over the batched operands (the
        unbatched ones closed over), one result slice per example."""
        consts = [a for a, d in zip(front, dims) if d is None]
        xs = [a for a, d in zip(front, dims) if d is not None]
        for x in xs:
            t = B.type_of(x)
            if t.spec[0] is not None:
                raise ShardcValueError("0th dimension of all xs should be replicated. Got "
                                       f"{PartitionSpec(*t.spec, unreduced=t.unreduced, reduced=t.reduced)!r}")
        c_types = [B.type_of(c) for c in consts]
        s_types = [t.update(shape=t.shape[1:], spec=t.spec[1:]) for t in (B.type_of(x) for x in xs)]
        batched = [d is not None for d in dims]
        nc = len(consts)

        def body(*vals):
            it_c, it_x = iter(vals[:nc]), iter(vals[nc:])
            merged = [next(it_x) if b else next(it_c) for b in batched]
            return [*vals[:nc], *bind(self, *merged, **params)]

        prog = B.trace_program(body, c_types + s_types, f"{params['target_name']}_sequential")
        ys = tuple(_stacked(v.type, n) for v in prog.outputs[nc:])
        outs = B.bind(cf.scan, *consts, *xs, body=prog, length=n, reverse=False, num_carry=nc,
                      out_types=tuple(c_types) + ys, num_res=0)
        return list(outs[nc:])

    def format_params(self, p) -> str:
        shown = {k: v for k, v in p.items() if k not in ("result_types",) and v not in (None, (), False)}
        return super().format_params(shown)

    def lower(self, ctx, eqn, *args):
        try:
            text = custom_call_text(eqn, args)
        except ShardcError as e:
            raise e.with_context(op=eqn.api or self.name, loc=eqn.loc) from None
        outs = eqn.outputs
        if not outs:
            ctx.effect(text)
            return []
        res = ctx.op(text, len(outs))
        return res if isinstance(res, list) else [res]


class FfiCallEffect(FfiCall):
    """`ffi_call` with `has_side_effect=True`: kept although no result is used (JAX's `FfiEffect`)."""

    name = "ffi_call_effect"
    side_effect = True


ffi_call_p = FfiCall()
ffi_call_effect_p = FfiCallEffect()


def _stacked(t: ArrayType, n: int) -> ArrayType:
    return t.update(shape=(n, *t.shape), spec=(None, *t.spec))


# --- lowering -------------------------------------------------------------------------------------
def _layout_text(layout: Sequence[int]) -> str:
    """A minor-to-major layout as MLIR prints an index vector (one element: a splat)."""
    vals = [int(v) for v in layout]
    if not vals:
        return "dense<> : tensor<0xindex>"
    if len(vals) == 1:
        return f"dense<{vals[0]}> : tensor<1xindex>"
    return f"dense<[{', '.join(map(str, vals))}]> : tensor<{len(vals)}xindex>"


def _check_layout(layout: Sequence[int], t: ArrayType) -> None:
    """The StableHLO verifier's check: a layout is a permutation of the value's dims (JAX reports
    the verifier's message as a ValueError when it lowers)."""
    if sorted(int(v) for v in layout) != list(range(t.ndim)):
        raise ShardcValueError(
            "Cannot lower jaxpr with verifier errors: 'stablehlo.custom_call' op incorrect layout "
            f"{_layout_text(layout)} for type '{ttype(t)}', layout must be a permutation of [0, {t.ndim})")


def custom_call_text(eqn, args: Sequence[str]) -> str:
    """The `stablehlo.custom_call` JAX's `ffi_call_lowering` writes for this equation."""
    p = eqn.params
    ins, outs = [a.type for a in eqn.inputs], [v.type for v in eqn.outputs]
    for r in outs:
        if r.unreduced or r.reduced:
            raise ShardcNotImplementedError(
                f"an ffi_call result declared unreduced or reduced ({r}) cannot be lowered: the custom call's "
                "results are whole arrays (JAX 0.10.2 fails to lower it too)")
    for lay, t in [*zip(p["input_layouts"], ins), *zip(p["output_layouts"], outs)]:
        _check_layout(lay, t)
    api_version = p["custom_call_api_version"]
    attributes = p["attributes"]
    attrs = []
    if api_version >= 4:
        attrs.append('backend_config = ""')
    else:
        if attributes:
            raise ShardcValueError("The use of ffi_call attributes requires a custom call API version of at least "
                                   f"4; got api_version={api_version}.")
        if api_version != 1:
            attrs.append(f"api_version = {api_version} : i32")
        attrs.append(f"backend_config = {_escape((p['legacy_backend_config'] or '').encode())}")
    if p["has_side_effect"]:
        attrs.append("has_side_effect = true")
    if api_version >= 4:
        attrs.append("mhlo.backend_config = {" + ", ".join(
            f"{k if _BARE_KEY.match(k) else _escape(k.encode())} = {encode_attribute(v)}"
            for k, v in attributes) + "}")
    attrs.append(f"operand_layouts = [{', '.join(_layout_text(lay) for lay in p['input_layouts'])}]")
    aliases = p["input_output_aliases"]
    if aliases:
        attrs.append("output_operand_aliases = [" + ", ".join(
            f"#stablehlo.output_operand_alias<output_tuple_indices = [{'' if len(outs) == 1 else o}], "
            f"operand_index = {i}, operand_tuple_indices = []>" for i, o in aliases) + "]")
    attrs.append(f"result_layouts = [{', '.join(_layout_text(lay) for lay in p['output_layouts'])}]")
    res = ", ".join(ttype(t) for t in outs)
    return (f"stablehlo.custom_call @{p['target_name']}({', '.join(args)}) {{{', '.join(attrs)}}} : "
            f"({', '.join(ttype(t) for t in ins)}) -> " + (res if len(outs) == 1 else f"({res})"))
