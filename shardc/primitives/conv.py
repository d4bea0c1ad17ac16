"""`conv_general_dilated`: n-d convolution with strides, padding, lhs/rhs dilation and
feature/batch groups (JAX's `jax/_src/lax/convolution.py`, 0.10.2; JAX rules §2.17).

Every rule is JAX's: the shape rule and its errors, the dtype rule (same dtypes,
`preferred_element_type` as dot's), and the sharding rule on Explicit axes: without
`out_sharding` the kernel must be replicated and the input's feature dim unsharded; the result
then takes the input's spec *by position* (JAX's `_get_sharding_for_varying_out_shape`, so a
layout change such as NHWC -> NCHW keeps the spec where it was), each resized sharded dim staying
divisible by its mesh axes; anything else asks for `out_sharding`. There is no
unreduced/reduced rule (JAX's NotImplementedError) and the VMA rule is the standard one. The VJP
is JAX's pair of transposed convolutions, the batching rule JAX's reshapes into the batch,
feature or output-feature dims, and the lowering `stablehlo.convolution` in JAX's text form.

The pure shape helpers of `jax.lax` (`conv_dimension_numbers`, `conv_general_permutations`,
`conv_shape_tuple`, `padtype_to_pads`, ...) live here too, so the primitive and the wrappers
in `shardc/ops/conv.py` share one copy.
"""
from __future__ import annotations

import math
from typing import Any, NamedTuple, Sequence, Union

import numpy as np

from .. import dtypes as dt
from ..core import Primitive, bind
from ..emit.text import int_list, ttype
from ..errors import ShardcNotImplementedError, ShardcRuntimeError, ShardcTypeError, ShardcValueError, ShardingTypeError
from ..sharding import PartitionSpec
from ..types import ArrayType
from .shape import out_sharding_entries, rev, varying_out_shape_sharding

__all__ = [
    "ConvDimensionNumbers", "ConvGeneralDilatedDimensionNumbers", "conv_dimension_numbers", "conv_general_permutations", "conv_shape_tuple",
    "conv_general_shape_tuple", "conv_transpose_shape_tuple", "conv_transpose_padding", "padtype_to_pads",
    "dilate_shape", "conv_general_dilated", "bind_conv",
]

_NONE: frozenset[str] = frozenset()


class ConvDimensionNumbers(NamedTuple):
    """Batch, feature and spatial dims of a convolution (`jax.lax.ConvDimensionNumbers`).

    lhs_spec: (batch dim, feature dim, spatial dims...); rhs_spec: (out feature dim, in feature
    dim, spatial dims...); out_spec: (batch dim, feature dim, spatial dims...)."""

    lhs_spec: Sequence[int]
    rhs_spec: Sequence[int]
    out_spec: Sequence[int]


#: what `dimension_numbers=` takes (`jax.lax.ConvGeneralDilatedDimensionNumbers`)
ConvGeneralDilatedDimensionNumbers = Union[tuple[str, str, str], ConvDimensionNumbers, None]


# --- pure shape helpers (jax.lax's) ---------------------------------------------------------
def dilate_shape(shape: Sequence[int], dilation: Sequence[int]) -> tuple[int, ...]:
    """The shape after dilating its trailing dims (`lax._dilate_shape`)."""
    if not np.all(np.greater(dilation, 0)):
        raise ShardcTypeError(f"All dilations must be positive, got {dilation}.")
    dilation = (1,) * (len(shape) - len(dilation)) + tuple(dilation)
    # element types kept (JAX's `dilate_dim`): its error messages print the np.int64 of a taken shape
    return tuple(d if r == 1 else max(1 + r * (d - 1), 0) for d, r in zip(shape, dilation))


def padtype_to_pads(in_shape, window_shape, window_strides, padding) -> list[tuple[int, int]]:
    """'SAME' / 'SAME_LOWER' / 'VALID' (or `lax.PaddingType`) as (low, high) pairs (`lax.padtype_to_pads`)."""
    name = getattr(padding, "name", None)
    if isinstance(padding, str):
        name = padding.upper()
        if name not in ("VALID", "SAME", "SAME_LOWER"):
            raise ShardcRuntimeError(
                f"Unrecognized padding type: expected 'VALID', 'SAME', or 'SAME_LOWER', got {padding}.")
    if name in ("SAME", "SAME_LOWER"):
        in_shape, window_shape, strides = (np.asarray(a, np.int64) for a in (in_shape, window_shape, window_strides))
        out_shape = -np.floor_divide(-in_shape, strides)
        sizes = [max(int(d), 0) for d in (out_shape - 1) * strides + window_shape - in_shape]
        if name == "SAME":
            return [(s // 2, s - s // 2) for s in sizes]
        return [(s - s // 2, s // 2) for s in sizes]
    if name == "VALID":
        return [(0, 0)] * len(in_shape)
    raise ShardcTypeError(f"Unknown padding type: {padding}.")


def conv_general_permutations(dimension_numbers) -> tuple[tuple[int, ...], ...]:
    """(lhs, rhs, out) permutations of a string triple such as ('NHWC', 'HWIO', 'NHWC')."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    charpairs = ("N", "C"), ("O", "I"), ("N", "C")
    for i, (a, b) in enumerate(charpairs):
        if not dimension_numbers[i].count(a) == dimension_numbers[i].count(b) == 1:
            raise ShardcTypeError(f"convolution dimension_numbers[{i}] must contain the characters '{a}' and "
                                  f"'{b}' exactly once, got {dimension_numbers[i]}.")
        if len(dimension_numbers[i]) != len(set(dimension_numbers[i])):
            raise ShardcTypeError(f"convolution dimension_numbers[{i}] cannot have duplicate characters, "
                                  f"got {dimension_numbers[i]}.")
    if not (set(lhs_spec) - set(charpairs[0]) == set(rhs_spec) - set(charpairs[1])
            == set(out_spec) - set(charpairs[2])):
        raise ShardcTypeError("convolution dimension_numbers elements must each have the same set of spatial "
                              f"characters, got {dimension_numbers}.")

    def getperm(spec, charpair):
        spatial = [i for i, c in enumerate(spec) if c not in charpair]
        if spec is not rhs_spec:
            spatial = sorted(spatial, key=lambda i: rhs_spec.index(spec[i]))
        return (spec.index(charpair[0]), spec.index(charpair[1])) + tuple(spatial)

    return tuple(getperm(s, c) for s, c in zip(dimension_numbers, charpairs))


def conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers) -> ConvDimensionNumbers:
    """`dimension_numbers` (None, a string triple or ConvDimensionNumbers) in canonical form."""
    if isinstance(dimension_numbers, tuple) and getattr(dimension_numbers, "_fields", None) == \
            ConvDimensionNumbers._fields:   # ours or jax.lax's
        return ConvDimensionNumbers(*(tuple(int(d) for d in s) for s in dimension_numbers))
    if len(lhs_shape) != len(rhs_shape):
        raise ShardcTypeError(f"convolution requires lhs and rhs ndim to be equal, got {len(lhs_shape)} and "
                              f"{len(rhs_shape)}.")
    if dimension_numbers is None:
        iota = tuple(range(len(lhs_shape)))
        return ConvDimensionNumbers(iota, iota, iota)
    if isinstance(dimension_numbers, (list, tuple)):
        if len(dimension_numbers) != 3:
            raise ShardcTypeError("convolution dimension_numbers list/tuple must be length 3, got "
                                  f"{len(dimension_numbers)}.")
        if not all(isinstance(e, str) for e in dimension_numbers):
            raise ShardcTypeError("convolution dimension_numbers elements must be strings, got "
                                  f"{tuple(map(type, dimension_numbers))}.")
        for i, e in enumerate(dimension_numbers):
            if len(e) != len(lhs_shape):
                raise ShardcTypeError(
                    f"convolution dimension_numbers[{i}] must have len equal to the ndim of lhs and rhs, got "
                    f"{len(e)} for lhs and rhs shapes {tuple(lhs_shape)} and {tuple(rhs_shape)}.")
        return ConvDimensionNumbers(*conv_general_permutations(dimension_numbers))
    raise ShardcTypeError(f"convolution dimension_numbers must be tuple/list or None, got {type(dimension_numbers)}.")


def conv_shape_tuple(lhs_shape, rhs_shape, strides, pads, batch_group_count: int = 1) -> tuple[int, ...]:
    """The output shape of a conv with operands in canonical (N, C, spatial...) order."""
    if isinstance(pads, str):
        pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
    if len(pads) != len(lhs_shape) - 2:
        raise ShardcTypeError(f"Wrong number of explicit pads for convolution: expected {len(lhs_shape) - 2}, "
                              f"got {len(pads)}.")
    lhs_padded = np.add(lhs_shape[2:], np.sum(np.array(pads, dtype=np.int64).reshape(-1, 2), axis=1))
    if np.any(lhs_padded < 0):
        raise ShardcValueError("Negative padding is larger than the size of the corresponding dimension: "
                               f"got padding={pads} for lhs_shape[2:]={tuple(lhs_shape[2:])}")
    out_space = tuple(max((int(d) - int(k)) // int(s) + 1, 0) for d, k, s in zip(lhs_padded, rhs_shape[2:], strides))
    out0 = lhs_shape[0] // batch_group_count if batch_group_count > 1 else lhs_shape[0]
    return (int(out0), int(rhs_shape[0])) + out_space


def conv_general_shape_tuple(lhs_shape, rhs_shape, window_strides, padding, dimension_numbers):
    lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
    out_trans = conv_shape_tuple(np.take(lhs_shape, lhs_perm), np.take(rhs_shape, rhs_perm), window_strides, padding)
    return tuple(int(d) for d in np.take(out_trans, np.argsort(out_perm)))


def conv_transpose_padding(k: int, s: int, padding) -> tuple[int, int]:
    """Before/after padding of one dim of a transposed convolution (`_conv_transpose_padding`)."""
    if padding == "SAME":
        pad_len = k + s - 2
        pad_a = k - 1 if s > k - 1 else int(np.ceil(pad_len / 2))
    elif padding == "VALID":
        pad_len = k + s - 2 + max(k - s, 0)
        pad_a = k - 1
    elif isinstance(padding, tuple):
        pads = tuple(k - p - 1 for p in padding)
        pad_a, pad_len = pads[0], sum(pads)
    else:
        raise ShardcValueError(f"Invalid padding mode: {padding}")
    return int(pad_a), int(pad_len - pad_a)


def conv_transpose_shape_tuple(lhs_shape, rhs_shape, window_strides, padding, dimension_numbers):
    lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
    lhs_trans, rhs_trans = np.take(lhs_shape, lhs_perm), np.take(rhs_shape, rhs_perm)
    if isinstance(padding, str):
        padding = [conv_transpose_padding(int(k), s, padding) for k, s in zip(rhs_trans[2:], window_strides)]
    padding = list(map(np.sum, padding))
    unpad = [(i - 1) * s - k + 2 for i, k, s in zip(lhs_trans[2:], rhs_trans[2:], window_strides)]
    out_space = np.sum([unpad, padding], axis=0).tolist()
    out_trans = (lhs_trans[0], rhs_trans[0]) + tuple(out_space)
    return tuple(int(d) for d in np.take(out_trans, np.argsort(out_perm)))


# --- the primitive --------------------------------------------------------------------------
def _shape(lhs: ArrayType, rhs: ArrayType, window_strides, padding, lhs_dilation, rhs_dilation,
           dn: ConvDimensionNumbers, fgc: int, bgc: int) -> tuple[int, ...]:
    """JAX's `_conv_general_dilated_shape_rule`, its checks in its order."""
    if lhs.ndim != rhs.ndim:
        raise ShardcValueError("conv_general_dilated lhs and rhs must have the same number of dimensions, "
                               f"but got {lhs.shape} and {rhs.shape}.")
    if not fgc > 0:
        raise ShardcValueError(f"conv_general_dilated feature_group_count must be a positive integer, got {fgc}.")
    lhs_feat = lhs.shape[dn.lhs_spec[1]]
    quot, rem = divmod(lhs_feat, fgc)
    if rem:
        raise ShardcValueError("conv_general_dilated feature_group_count must divide lhs feature dimension "
                               f"size, but {fgc} does not divide {lhs_feat}.")
    if quot != rhs.shape[dn.rhs_spec[1]]:
        raise ShardcValueError(
            "conv_general_dilated lhs feature dimension size divided by feature_group_count must equal the "
            f"rhs input feature dimension size, but {lhs_feat} // {fgc} != {rhs.shape[dn.rhs_spec[1]]}.")
    rhs_out = rhs.shape[dn.rhs_spec[0]]
    if rhs_out % fgc:
        raise ShardcValueError("conv_general_dilated rhs output feature dimension size must be a multiple of "
                               f"feature_group_count, but {rhs_out} is not a multiple of {fgc}.")
    if not bgc > 0:
        raise ShardcValueError(f"conv_general_dilated batch_group_count must be a positive integer, got {bgc}.")
    lhs_batch = lhs.shape[dn.lhs_spec[0]]
    if bgc > 1 and lhs_batch % bgc != 0:
        raise ShardcValueError("conv_general_dilated batch_group_count must divide lhs batch dimension size, "
                               f"but {bgc} does not divide {lhs_batch}.")
    if rhs_out % bgc:
        raise ShardcValueError("conv_general_dilated rhs output feature dimension size must be a multiple of "
                               f"batch_group_count, but {rhs_out} is not a multiple of {bgc}.")
    if bgc > 1 and fgc > 1:
        raise ShardcValueError("At most one of batch_group_count and feature_group_count may be > 1, got "
                               f"batch_group_count={bgc} and feature_group_count={fgc}")
    if len(dn.rhs_spec) - 2 != len(window_strides):
        raise ShardcValueError("conv_general_dilated window and window_strides must have the same number of "
                               f"dimensions, but got {len(dn.rhs_spec) - 2} and {len(window_strides)}")
    lhs_trans = dilate_shape(np.take(lhs.shape, dn.lhs_spec), lhs_dilation)
    rhs_trans = dilate_shape(np.take(rhs.shape, dn.rhs_spec), rhs_dilation)
    out_trans = conv_shape_tuple(lhs_trans, rhs_trans, window_strides, padding, bgc)
    return tuple(int(d) for d in np.take(out_trans, np.argsort(dn.out_spec)))


def _dtype(lhs: ArrayType, rhs: ArrayType, preferred_element_type) -> np.dtype:
    """JAX's dtype rule: equal operand dtypes; `preferred_element_type` validated as dot's."""
    if lhs.dtype != rhs.dtype:
        raise ShardcTypeError("lax.conv_general_dilated requires arguments to have the same dtypes, got "
                              f"{lhs.dtype.name}, {rhs.dtype.name}.")
    if preferred_element_type is None:
        return lhs.dtype
    validate_preferred_element_type(lhs.dtype, preferred_element_type)
    return np.dtype(preferred_element_type)


def validate_preferred_element_type(input_dtype: np.dtype, preferred: np.dtype) -> None:
    """`lax._validate_preferred_element_type`."""
    kinds = lambda d: (dt.is_int(d) and np.dtype(d) != dt.bool_, dt.is_float(d), np.issubdtype(d, np.complexfloating))
    ik, pk = kinds(input_dtype), kinds(preferred)
    if not (ik[0] and pk[1]):
        if any(a and not b for a, b in zip(ik, pk)):
            raise ShardcTypeError(
                "Input type is incompatible with `preferred_element_type`. The compatible combinations of "
                "(input_type, preferred_element_type) are (integral, integral), (integral, floating), "
                "(floating, floating), (complex, complex.")
        if np.issubdtype(input_dtype, np.signedinteger) and not np.issubdtype(preferred, np.signedinteger):
            raise ShardcTypeError("`preferred_element_type` must have the same signedness as the original type.")
    if np.dtype(preferred).itemsize < np.dtype(input_dtype).itemsize:
        raise ShardcTypeError("`preferred_element_type` must not be narrower than the original type.")


def _ur_error() -> ShardcNotImplementedError:
    return ShardcNotImplementedError("unreduced/reduced rule for conv_general_dilated is not implemented. "
                                     "Please file an issue at https://github.com/jax-ml/jax/issues")


class ConvGeneralDilated(Primitive):
    name = "conv_general_dilated"

    def shape_rule(self, lhs: ArrayType, rhs: ArrayType, *, window_strides, padding, lhs_dilation, rhs_dilation,
                   dimension_numbers, feature_group_count, batch_group_count, precision=None,
                   preferred_element_type=None, out_sharding=None):
        shape = _shape(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
                       feature_group_count, batch_group_count)
        return [(shape, _dtype(lhs, rhs, preferred_element_type), lhs.weak_type and rhs.weak_type)]

    def sharding_rule(self, lhs: ArrayType, rhs: ArrayType, *, window_strides, padding, lhs_dilation,
                      rhs_dilation, dimension_numbers, feature_group_count, batch_group_count, precision=None,
                      preferred_element_type=None, out_sharding=None):
        shape = _shape(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
                       feature_group_count, batch_group_count)
        if out_sharding is not None:
            return [out_sharding_entries(out_sharding, shape, lhs.mesh)]
        rhs_replicated = all(e is None for e in rhs.spec) and not rhs.unreduced
        if rhs_replicated and lhs.spec[dimension_numbers.lhs_spec[1]] is None:
            # JAX's `_get_sharding_for_varying_out_shape`: the input's spec, position by position
            return [varying_out_shape_sharding("conv_general_dilated", lhs, shape)]
        raise ShardingTypeError("Please specify the output sharding via `out_sharding` parameter of "
                                "`conv_general_dilated`")

    def ur_rule(self, lhs: ArrayType, rhs: ArrayType, *, out_sharding=None, **params):
        """No unreduced/reduced rule in JAX: U/R operands or an U/R `out_sharding` are its
        NotImplementedError."""
        if any(t.unreduced or t.reduced for t in (lhs, rhs)):
            raise _ur_error()
        if out_sharding is not None and (out_sharding.unreduced or out_sharding.reduced):
            raise _ur_error()
        return (_NONE, _NONE)

    def vjp(self, L, g, ins, outs, **params):
        """JAX's `defbilinear` pair: each operand's cotangent is a convolution of the output
        cotangent with the other operand (`_conv_general_dilated_transpose_lhs/_rhs`)."""
        lhs, rhs = ins
        cl = _transpose_lhs(L, g, lhs, rhs, **params) if hasattr(lhs, "aval") else None
        cr = _transpose_rhs(L, g, lhs, rhs, **params) if hasattr(rhs, "aval") else None
        return [cl, cr]

    def batch(self, B, axis, args, dims, **params):
        return _batch(self, B, axis, args, dims, **params)

    def format_params(self, p):
        dn = p["dimension_numbers"]
        s = (f"window_strides={tuple(p['window_strides'])} padding={tuple(p['padding'])} "
             f"lhs_dilation={tuple(p['lhs_dilation'])} rhs_dilation={tuple(p['rhs_dilation'])} "
             f"dimension_numbers=({tuple(dn.lhs_spec)}, {tuple(dn.rhs_spec)}, {tuple(dn.out_spec)})")
        if p["feature_group_count"] != 1:
            s += f" feature_group_count={p['feature_group_count']}"
        if p["batch_group_count"] != 1:
            s += f" batch_group_count={p['batch_group_count']}"
        if p.get("precision") is not None:
            s += f" precision={p['precision']}"
        if p.get("preferred_element_type") is not None:
            s += f" preferred={dt.short_name(p['preferred_element_type'])}"
        if p.get("out_sharding") is not None:
            s += f" out_sharding={p['out_sharding']!r}"
        return s

    def lower(self, ctx, eqn, a, b):
        p = eqn.params
        lt, rt, out = eqn.inputs[0].type, eqn.inputs[1].type, eqn.outputs[0].type
        dn = p["dimension_numbers"]
        n = len(dn.rhs_spec) - 2

        def layout(spec, first: str, second: str) -> str:
            names = [""] * len(spec)
            names[spec[0]], names[spec[1]] = first, second
            for k, d in enumerate(spec[2:]):
                names[d] = str(k)
            return "[" + ", ".join(names) + "]"

        pads = "[" + ", ".join(f"[{lo}, {hi}]" for lo, hi in p["padding"]) + "]"
        prec = p.get("precision") or ("DEFAULT", "DEFAULT")
        window = (f"stride = {int_list(p['window_strides'])}, pad = {pads}, "
                  f"lhs_dilate = {int_list(p['lhs_dilation'])}, rhs_dilate = {int_list(p['rhs_dilation'])}, "
                  f"reverse = [{', '.join(['false'] * n)}]")
        attrs = (f"batch_group_count = {p['batch_group_count']} : i64, "
                 f"feature_group_count = {p['feature_group_count']} : i64, "
                 f"precision_config = [{', '.join(f'#stablehlo<precision {q}>' for q in prec)}]")
        return [ctx.op(f"stablehlo.convolution({a}, {b}) dim_numbers = {layout(dn.lhs_spec, 'b', 'f')}x"
                       f"{layout(dn.rhs_spec, 'o', 'i')}->{layout(dn.out_spec, 'b', 'f')}, "
                       f"window = {{{window}}} {{{attrs}}} : ({ttype(lt)}, {ttype(rt)}) -> {ttype(out)}")]


conv_general_dilated = ConvGeneralDilated()


def bind_conv(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
              feature_group_count=1, batch_group_count=1, precision=None, preferred_element_type=None,
              out_sharding=None):
    """Bind the primitive with canonical (hashable) params."""
    return bind(conv_general_dilated, lhs, rhs, window_strides=tuple(int(s) for s in window_strides),
                padding=tuple((int(lo), int(hi)) for lo, hi in padding),
                lhs_dilation=tuple(int(d) for d in lhs_dilation), rhs_dilation=tuple(int(d) for d in rhs_dilation),
                dimension_numbers=ConvDimensionNumbers(*(tuple(int(d) for d in s) for s in dimension_numbers)),
                feature_group_count=int(feature_group_count), batch_group_count=int(batch_group_count),
                precision=precision, preferred_element_type=preferred_element_type, out_sharding=out_sharding)


# --- VJP ---------------------------------------------------------------------------------------
def _spec_transpose(spec):
    return (spec[1], spec[0]) + tuple(spec[2:])


def _reshape_axis_into(L, src: int, dst: int, x):
    """Merge dim `src` into dim `dst` (numbered after `src` is removed), `src` major."""
    shape = L.type_of(x).shape
    perm = [i for i in range(len(shape)) if i != src]
    perm.insert(dst, src)
    new_shape = list(np.delete(shape, src))
    new_shape[dst] *= shape[src]
    return L.reshape(x, tuple(int(d) for d in new_shape), tuple(perm))


def _reshape_axis_out_of(L, src: int, size1: int, x):
    """Split dim `src` into (size1, rest)."""
    shape = list(L.type_of(x).shape)
    size2, ragged = divmod(shape[src], size1)
    assert not ragged
    shape[src:src + 1] = [size1, size2]
    return L.reshape(x, tuple(int(d) for d in shape))


def _sharding_of(t: ArrayType) -> PartitionSpec | None:
    """`x.aval.sharding` as an `out_sharding` (None off a mesh)."""
    return None if t.mesh.empty else PartitionSpec(*t.spec)


def _vjp_lhs_padding(in_shape, window_dimensions, window_strides, out_shape, padding, lhs_dilation, rhs_dilation):
    lhs_d = dilate_shape(in_shape, lhs_dilation)
    rhs_d = dilate_shape(window_dimensions, rhs_dilation)
    out_d = dilate_shape(out_shape, window_strides)
    before = np.subtract(rhs_d, [lo for lo, _ in padding]) - 1
    after = np.add(lhs_d, rhs_d) - 1 - out_d - before
    return [(int(b), int(a)) for b, a in zip(before, after)]


def _vjp_rhs_padding(in_shape, window_dimensions, window_strides, out_shape, padding, lhs_dilation, rhs_dilation):
    if len(in_shape) == 0:
        return []
    lhs_d = dilate_shape(in_shape, lhs_dilation)
    rhs_d = dilate_shape(window_dimensions, rhs_dilation)
    out_d = dilate_shape(out_shape, window_strides)
    lo = [p[0] for p in padding]
    from_lhs = [o - i for o, i in zip(out_d, lhs_d)]
    from_rhs = [r - p - 1 for r, p in zip(rhs_d, lo)]
    return [(int(a), int(b + c)) for a, b, c in zip(lo, from_lhs, from_rhs)]


def _transpose_lhs(L, g, lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
                   feature_group_count, batch_group_count, precision=None, preferred_element_type=None,
                   out_sharding=None):
    lt, gt = lhs.aval, L.type_of(g)
    rhs_shape = L.type_of(rhs).shape
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    lhs_sdims, rhs_sdims, out_sdims = lhs_spec[2:], rhs_spec[2:], out_spec[2:]
    fgc = feature_group_count
    if feature_group_count > 1:
        rhs = _reshape_axis_out_of(L, rhs_spec[0], feature_group_count, rhs)
        rhs = _reshape_axis_into(L, rhs_spec[0], rhs_spec[1], rhs)
    elif batch_group_count > 1:
        rhs = _reshape_axis_out_of(L, rhs_spec[0], batch_group_count, rhs)
        rhs = _reshape_axis_into(L, rhs_spec[0], rhs_spec[1], rhs)
        fgc = batch_group_count
    trans_dn = ConvDimensionNumbers(out_spec, _spec_transpose(rhs_spec), lhs_spec)
    pads = _vjp_lhs_padding(np.take(lt.shape, lhs_sdims), np.take(rhs_shape, rhs_sdims), window_strides,
                            np.take(gt.shape, out_sdims), padding, lhs_dilation, rhs_dilation)
    revd = bind(rev, rhs, dimensions=tuple(rhs_sdims)) if rhs_sdims else rhs
    if L.type_of(revd).dtype != gt.dtype:
        revd = L.convert_element_type(revd, gt.dtype)
    out = bind_conv(g, revd, window_strides=lhs_dilation, padding=pads, lhs_dilation=window_strides,
                    rhs_dilation=rhs_dilation, dimension_numbers=trans_dn, feature_group_count=fgc,
                    batch_group_count=1, precision=precision, preferred_element_type=preferred_element_type,
                    out_sharding=_sharding_of(lt))
    if L.type_of(out).dtype != lt.dtype:
        out = L.convert_element_type(out, lt.dtype)
    if batch_group_count > 1:
        out = _reshape_axis_out_of(L, lhs_spec[1], batch_group_count, out)
        out = _reshape_axis_into(L, lhs_spec[1], lhs_spec[0], out)
    return out


def _transpose_rhs(L, g, lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
                   feature_group_count, batch_group_count, precision=None, preferred_element_type=None,
                   out_sharding=None):
    rt, gt = rhs.aval, L.type_of(g)
    if math.prod(gt.shape) == 0:   # no degenerate convolution with spatial size 0 (as JAX)
        return L.full(rt.shape, 0, rt.dtype, out_sharding=_sharding_of(rt))
    lhs_shape = L.type_of(lhs).shape
    lhs_sdims, rhs_sdims, out_sdims = (s[2:] for s in dimension_numbers)
    lhs_trans, rhs_trans, out_trans = map(_spec_transpose, dimension_numbers)
    fgc, bgc = feature_group_count, batch_group_count
    if bgc > 1:
        fgc, bgc = bgc, 1
    elif fgc > 1:
        fgc, bgc = 1, fgc
    trans_dn = ConvDimensionNumbers(lhs_trans, out_trans, rhs_trans)
    pads = _vjp_rhs_padding(np.take(lhs_shape, lhs_sdims), np.take(rt.shape, rhs_sdims), window_strides,
                            np.take(gt.shape, out_sdims), padding, lhs_dilation, rhs_dilation)
    if L.type_of(lhs).dtype != gt.dtype:
        lhs = L.convert_element_type(lhs, gt.dtype)
    out = bind_conv(lhs, g, window_strides=rhs_dilation, padding=pads, lhs_dilation=lhs_dilation,
                    rhs_dilation=window_strides, dimension_numbers=trans_dn, feature_group_count=fgc,
                    batch_group_count=bgc, precision=precision, preferred_element_type=preferred_element_type,
                    out_sharding=_sharding_of(rt))
    if L.type_of(out).dtype != rt.dtype:
        out = L.convert_element_type(out, rt.dtype)
    return out


# --- batching ------------------------------------------------------------------------------------
def _batch(prim, B, axis, args, dims, *, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
           feature_group_count, batch_group_count, precision=None, preferred_element_type=None, out_sharding=None):
    """JAX's `_conv_general_dilated_batch_rule`: the vmapped dim is reshaped into the batch dim
    (lhs batched), the output-feature dim (rhs batched) or the feature dim with one more feature
    group per example (both batched)."""
    lhs, rhs = args
    lb, rb = dims
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    fgc, bgc = feature_group_count, batch_group_count
    kw = dict(window_strides=window_strides, padding=padding, lhs_dilation=lhs_dilation,
              rhs_dilation=rhs_dilation, dimension_numbers=dimension_numbers, precision=precision,
              preferred_element_type=preferred_element_type)
    if lb is None and rb is None:
        return bind_conv(lhs, rhs, feature_group_count=fgc, batch_group_count=bgc, out_sharding=out_sharding,
                         **kw), None
    lt, rt = B.type_of(lhs), B.type_of(rhs)
    if (lb is not None and lt.shape[lb] == 0) or (rb is not None and rt.shape[rb] == 0):
        un = lambda t, d: t if d is None else ArrayType(t.shape[:d] + t.shape[d + 1:], t.dtype)
        shape = _shape(un(lt, lb), un(rt, rb), window_strides, padding, lhs_dilation, rhs_dilation,
                       dimension_numbers, fgc, bgc)
        osh = None if out_sharding is None else B.insert_spec(out_sharding, 0, axis.entry)
        return B.full((0,) + shape, 0, preferred_element_type or lt.dtype, out_sharding=osh), 0

    def out_sh(pos: int):
        if out_sharding is None:
            return None
        if not axis.explicit_mesh_axis:
            return out_sharding
        parts = list(out_sharding) + [None] * (len(out_spec) - len(tuple(out_sharding)))
        if parts[pos] is not None:
            raise ShardcNotImplementedError("vmap of conv_general_dilated: the batch dim of out_sharding is "
                                            "already sharded")
        parts[pos] = axis.entry
        return PartitionSpec(*parts)

    if lb is not None and rb is not None:
        if bgc > 1:
            new_lhs = _reshape_axis_into(B, lb, lhs_spec[0], lhs)
            bgc *= lt.shape[lb]
        else:
            new_lhs = _reshape_axis_into(B, lb, lhs_spec[1], lhs)
            fgc *= lt.shape[lb]
        new_rhs = _reshape_axis_into(B, rb, rhs_spec[0], rhs)
        out = bind_conv(new_lhs, new_rhs, feature_group_count=fgc, batch_group_count=bgc,
                        out_sharding=out_sh(out_spec[1]), **kw)
        return _reshape_axis_out_of(B, out_spec[1], lt.shape[lb], out), out_spec[1]
    if lb is not None:
        if bgc == 1:
            new_lhs = _reshape_axis_into(B, lb, lhs_spec[0], lhs)
            out = bind_conv(new_lhs, rhs, feature_group_count=fgc, batch_group_count=1,
                            out_sharding=out_sh(out_spec[0]), **kw)
            return _reshape_axis_out_of(B, out_spec[0], lt.shape[lb], out), out_spec[0]
        new_lhs = _reshape_axis_out_of(B, lhs_spec[0] + int(lb <= lhs_spec[0]), bgc, lhs)
        new_lhs = _reshape_axis_into(B, lb + int(lhs_spec[0] < lb), lhs_spec[0] + 1, new_lhs)
        new_lhs = _reshape_axis_into(B, lhs_spec[0], lhs_spec[0], new_lhs)
        out = bind_conv(new_lhs, rhs, feature_group_count=fgc, batch_group_count=bgc,
                        out_sharding=out_sh(out_spec[0]), **kw)
        return _reshape_axis_out_of(B, out_spec[0], lt.shape[lb], out), out_spec[0]
    if fgc == 1 and bgc == 1:
        new_rhs = _reshape_axis_into(B, rb, rhs_spec[0], rhs)
        out = bind_conv(lhs, new_rhs, feature_group_count=1, batch_group_count=1,
                        out_sharding=out_sh(out_spec[1]), **kw)
        return _reshape_axis_out_of(B, out_spec[1], rt.shape[rb], out), out_spec[1]
    if out_sharding is not None:
        raise ShardcNotImplementedError("vmap of a grouped conv_general_dilated over its kernel with out_sharding")
    group = fgc if fgc > 1 else bgc
    new_rhs = _reshape_axis_out_of(B, rhs_spec[0] + int(rb <= rhs_spec[0]), group, rhs)
    new_rhs = _reshape_axis_into(B, rb + int(rhs_spec[0] < rb), rhs_spec[0] + 1, new_rhs)
    new_rhs = _reshape_axis_into(B, rhs_spec[0], rhs_spec[0], new_rhs)
    out = bind_conv(lhs, new_rhs, feature_group_count=fgc, batch_group_count=bgc, out_sharding=None, **kw)
    out = _reshape_axis_out_of(B, out_spec[1], group, out)
    out = _reshape_axis_out_of(B, out_spec[1] + 1, rt.shape[rb], out)
    out = _reshape_axis_into(B, out_spec[1], out_spec[1] + 1, out)
    return out, out_spec[1]


def precision_names(precision: Any) -> tuple[str, str] | None:
    """A canonical `lax.Precision` value (None, one, or a pair) as the two names the lowering prints."""
    if precision is None:
        return None
    if isinstance(precision, tuple):
        return tuple(str(p) for p in precision)
    name = str(precision)
    return (name, name) if name in ("DEFAULT", "HIGH", "HIGHEST") else None

