"""`jax.ops`: segment reductions (`jax/_src/ops/scatter.py`, `_segment_update`).

`segment_sum(data, segment_ids, num_segments)` is, as in JAX, one scatter of `data`'s rows
into an array of `num_segments` rows filled with the reduction's identity (0, 1, the
dtype's lowest / highest value), with JAX's default mode FILL_OR_DROP and no wrapping of
negative ids, so ids outside `[0, num_segments)` are dropped. `bucket_size` splits the rows
into buckets, reduces each and combines the buckets (JAX's numerically steadier sum). The
number of segments must be static: JAX's errors where it is traced.
"""
from __future__ import annotations

import numpy as np

from ..core import Tracer, raise_user_error
from ..errors import ShardcValueError
from ..primitives.reductions import identity_value
from ..types import ArrayType
from ._util import as_operand, is_array, type_of
from .construct import array_split
from .creation import asarray, full
from .indexing import scatter_update
from .reductions import max as _max
from .reductions import min as _min
from .reductions import prod as _prod
from .reductions import sum as _sum
from .shape import stack
from .sorting import ConcretizationTypeError

__all__ = ["segment_sum", "segment_prod", "segment_max", "segment_min"]


#: the scatter of each segment reduction and the reduction whose init value is its identity
_REDUCTION = {"add": "sum", "mul": "prod", "max": "max", "min": "min"}


def _num_segments(num_segments, segment_ids) -> int:
    """The static number of segments: `num_segments`, or JAX's `np.max(segment_ids) + 1`."""
    if num_segments is None:
        if isinstance(segment_ids, Tracer):
            _not_static(ArrayType((), type_of(segment_ids).dtype))      # JAX: the traced max
        ids = np.asarray(segment_ids.to_jax() if hasattr(segment_ids, "to_jax") else segment_ids)
        return int(np.max(ids)) + 1
    if isinstance(num_segments, Tracer):
        _not_static(type_of(num_segments))
    n = int(np.asarray(num_segments.to_jax() if hasattr(num_segments, "to_jax") else num_segments))
    if n < 0:
        raise ShardcValueError("num_segments must be non-negative.")
    return n


def _not_static(t: ArrayType) -> None:
    # JAX's message names segment_sum for all four (its `_segment_update` hard-codes it)
    raise_user_error(ConcretizationTypeError(
        "Abstract tracer value encountered where concrete value is expected: traced array with shape "
        f"{t.dtype.name}[{','.join(map(str, t.shape))}]\nsegment_sum() `num_segments` argument.",
        fix="pass num_segments as a Python int (the number of segments must be known when tracing)"), [t])


def _segment_update(name: str, data, segment_ids, kind: str, num_segments, indices_are_sorted: bool,
                    unique_indices: bool, bucket_size, reducer, mode):
    data = data if is_array(data) else asarray(as_operand(data))
    segment_ids = segment_ids if is_array(segment_ids) else asarray(as_operand(segment_ids))
    dtype = type_of(data).dtype
    n = _num_segments(num_segments, segment_ids)
    mode = "drop" if mode is None else mode
    if bucket_size is None:
        out = full((n,) + type_of(data).shape[1:], identity_value(_REDUCTION[kind], dtype), dtype=dtype)
        return scatter_update(out, segment_ids, data, kind, indices_are_sorted=indices_are_sorted,
                              unique_indices=unique_indices, mode=mode, normalize_indices=False)
    outs = [_segment_update(name, d, s, kind, n, indices_are_sorted, unique_indices, None, None, None)
            for d, s in zip(array_split(data, bucket_size), array_split(segment_ids, bucket_size))]
    return reducer(stack(outs), axis=0).astype(dtype)


def segment_sum(data, segment_ids, num_segments=None, indices_are_sorted: bool = False,
                unique_indices: bool = False, bucket_size=None, mode=None):
    """`jax.ops.segment_sum`: the sum of `data`'s rows in each segment."""
    return _segment_update("segment_sum", data, segment_ids, "add", num_segments, indices_are_sorted,
                           unique_indices, bucket_size, _sum, mode)


def segment_prod(data, segment_ids, num_segments=None, indices_are_sorted: bool = False,
                 unique_indices: bool = False, bucket_size=None, mode=None):
    """`jax.ops.segment_prod`: the product of `data`'s rows in each segment (1 where empty)."""
    return _segment_update("segment_prod", data, segment_ids, "mul", num_segments, indices_are_sorted,
                           unique_indices, bucket_size, _prod, mode)


def segment_max(data, segment_ids, num_segments=None, indices_are_sorted: bool = False,
                unique_indices: bool = False, bucket_size=None, mode=None):
    """`jax.ops.segment_max`: the maximum of `data`'s rows in each segment (-inf / the
    dtype's lowest where empty)."""
    return _segment_update("segment_max", data, segment_ids, "max", num_segments, indices_are_sorted,
                           unique_indices, bucket_size, _max, mode)


def segment_min(data, segment_ids, num_segments=None, indices_are_sorted: bool = False,
                unique_indices: bool = False, bucket_size=None, mode=None):
    """`jax.ops.segment_min`: the minimum of `data`'s rows in each segment (+inf / the
    dtype's highest where empty)."""
    return _segment_update("segment_min", data, segment_ids, "min", num_segments, indices_are_sorted,
                           unique_indices, bucket_size, _min, mode)
