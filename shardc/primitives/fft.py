"""`fft` (JAX's `lax.fft_p`): FFT / IFFT / RFFT / IRFFT over the trailing `fft_lengths` dims.

Rules, as `jax/_src/lax/fft.py` of JAX 0.10.2:
* shape/dtype (`fft_abstract_eval`): FFT/IFFT take complex operands whose minor dims equal
  `fft_lengths` and keep shape and dtype; RFFT takes float32 (JAX: float32/float64, float64
  is canonicalized away) with minor dims equal to `fft_lengths` and gives complex64 with the
  last dim `n // 2 + 1`; IRFFT takes complex operands whose minor dims equal all but the last
  length and gives float32 with the minor dims `fft_lengths`. The weak type is kept.
* sharding: JAX has no sharding rule beyond `x.update(shape=..., dtype=...)`: the result keeps
  the operand's spec, sharded FFT dims included (XLA gathers them); a spec that no longer
  divides the new size (RFFT/IRFFT's last dim) is JAX's "does not evenly divide" ValueError.
* unreduced/reduced: kept on Explicit axes (the spec is kept whole); over Manual axes (inside
  shard_map) refused, as JAX's bare NotImplementedError. VMA: kept.
* VJP: JAX's transpose rules (the op is linear): FFT/IFFT transpose to themselves; RFFT's
  cotangent is `N * irfft(conj(ct) / mask)` and IRFFT's `conj(rfft(ct) * mask / N)`, with
  `mask` 1 at the DC (and, for even n, Nyquist) bins and 2 elsewhere.
* batching: the batch dim goes first (`_fft_batching_rule`).
* lowering: `stablehlo.fft %x, type = FFT, length = [..]`.
"""
from __future__ import annotations

import math

import numpy as np
from jax.lax import FftType  # JAX's enum of FFT kinds (a description)

from .. import dtypes as dt
from ..core import Const, Primitive, bind
from ..emit.text import int_list, ttype
from ..errors import ShardcNotImplementedError, ShardcValueError
from ..mesh import AxisType
from ..sharding import PartitionSpec
from ..types import ArrayType, check_spec
from .complex import conj

__all__ = ["FftType", "fft"]


class Fft(Primitive):
    name = "fft"

    def shape_rule(self, x: ArrayType, *, fft_type: FftType, fft_lengths: tuple[int, ...]):
        n = len(fft_lengths)
        if n > x.ndim:
            raise ShardcValueError(f"FFT input shape {x.shape} must have at least as many input dimensions as "
                                   f"fft_lengths {fft_lengths}.")
        minor = x.shape[x.ndim - n:]
        if fft_type == FftType.RFFT:
            if x.dtype != dt.float32:
                raise ShardcValueError(f"RFFT input must be float32 or float64, got {x.dtype.name}")
            if minor != fft_lengths:
                raise ShardcValueError(f"RFFT input shape {x.shape} minor dimensions must be equal to fft_lengths "
                                       f"{fft_lengths}")
            shape = x.shape[:x.ndim - n] + fft_lengths[:-1] + (fft_lengths[-1] // 2 + 1,)
            return [(shape, dt.complex_dtype(x.dtype), x.weak_type)]
        if fft_type == FftType.IRFFT:
            if not dt.is_complex(x.dtype):
                raise ShardcValueError(f"IRFFT input must be complex64 or complex128, got {x.dtype.name}")
            if minor[:-1] != fft_lengths[:-1]:
                raise ShardcValueError(f"IRFFT input shape {x.shape} minor dimensions must be equal to all except "
                                       f"the last fft_length, got fft_lengths={fft_lengths}")
            return [(x.shape[:x.ndim - n] + fft_lengths, dt.real_dtype(x.dtype), x.weak_type)]
        if not dt.is_complex(x.dtype):
            raise ShardcValueError(f"FFT input must be complex64 or complex128, got {x.dtype.name}")
        if minor != fft_lengths:
            raise ShardcValueError(f"FFT input shape {x.shape} minor dimensions must be equal to fft_lengths "
                                   f"{fft_lengths}")
        return [(x.shape, x.dtype, x.weak_type)]

    def sharding_rule(self, x: ArrayType, **params):
        """The operand's spec, checked against the result's shape (JAX's `x.update(shape=...)`)."""
        [(shape, _, _)] = self.shape_rule(x, **params)
        check_spec(PartitionSpec(*x.spec), x.mesh, shape)
        return [x.spec]

    def ur_rule(self, x: ArrayType, **_):
        """Explicit U/R are kept (JAX's `x.update` keeps the sharding); unreduced/reduced over
        Manual axes (inside shard_map) are refused, as JAX's `x.mat.unreduced or x.mat.reduced`."""
        if any(x.mesh.axis_type(a) == AxisType.Manual for a in x.unreduced | x.reduced if a in x.mesh.axis_names):
            raise ShardcNotImplementedError("fft of a value unreduced or reduced over manual axes is not "
                                            "implemented (JAX raises NotImplementedError too)")
        return [(x.unreduced, x.reduced)]

    def batch(self, B, axis, args, dims, **params):
        """JAX's `_fft_batching_rule`: the batch dim first, then the same fft."""
        return B.bind(self, B.moveaxis(args[0], dims[0], 0), **params), 0

    def vjp(self, L, g, ins, outs, *, fft_type, fft_lengths):
        """JAX's `_fft_transpose_rule`."""
        if fft_type == FftType.RFFT:
            return [_rfft_transpose(L, g, fft_lengths)]
        if fft_type == FftType.IRFFT:
            return [_irfft_transpose(L, g, fft_lengths)]
        return [bind(self, g, fft_type=fft_type, fft_lengths=fft_lengths)]

    def format_params(self, params):
        return f"fft_type={params['fft_type'].name} fft_lengths={tuple(params['fft_lengths'])}"

    def lower(self, ctx, eqn, x, **_):
        p = eqn.params
        src, out = eqn.inputs[0].type, eqn.outputs[0].type
        return [ctx.op(f"stablehlo.fft {x}, type = {p['fft_type'].name}, length = {int_list(p['fft_lengths'])} : "
                       f"({ttype(src)}) -> {ttype(out)}")]


fft = Fft()


def _mask(m: int, n_last: int, ndim: int, dtype) -> Const:
    """1 at the DC bin (and the Nyquist bin for an even length), 2 elsewhere, on the last dim."""
    mask = np.full((m,), 2.0, dtype=dtype)
    mask[0] = 1.0
    if n_last % 2 == 0:
        mask[m - 1] = 1.0
    return Const(mask.reshape((1,) * (ndim - 1) + (m,)), np.dtype(dtype), False)


def _rfft_transpose(L, t, fft_lengths):
    """`N * irfft(conj(t) / mask)` (JAX's `_rfft_transpose`)."""
    tt = t.aval
    mask = _mask(tt.shape[-1], fft_lengths[-1], tt.ndim, tt.dtype)
    x = L.div(bind(conj, t, input_dtype=tt.dtype), mask)
    out = bind(fft, x, fft_type=FftType.IRFFT, fft_lengths=tuple(fft_lengths))
    return L.mul(out, float(math.prod(fft_lengths)))


def _irfft_transpose(L, t, fft_lengths):
    """`conj(scale * mask * rfft(t))` (JAX's `_irfft_transpose`)."""
    x = bind(fft, t, fft_type=FftType.RFFT, fft_lengths=tuple(fft_lengths))
    xt = x.aval
    mask = _mask(xt.shape[-1], fft_lengths[-1], xt.ndim, xt.dtype)
    out = L.mul(L.mul(mask, x), 1.0 / math.prod(fft_lengths))
    return bind(conj, out, input_dtype=xt.dtype)
