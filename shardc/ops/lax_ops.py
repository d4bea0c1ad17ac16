"""`jax.lax`'s contractions under their `lax` signatures (`shardc.lax` forwards these names
here: they build on `shardc.ops.linalg`, a layer above `shardc.lax`)."""
from __future__ import annotations

from ..core import api
from ..errors import ShardcValueError
from ._util import type_of
from .linalg import _dg
from .shape import _arr

__all__ = ["batch_matmul", "dot", "dot_general"]


@api("lax.dot_general")
def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None, *, out_sharding=None):
    """`lax.dot_general(lhs, rhs, ((lc, rc), (lb, rb)))`: output dims are batch, lhs free, rhs
    free. `precision` is accepted as JAX does (CPU and GPU default precision is exact here)."""
    (lc, rc), (lb, rb) = dimension_numbers
    return _dg(lhs, rhs, (lc, rc), (lb, rb), out_sharding, preferred_element_type, promote_dtypes=False)


@api("lax.dot")
def dot(lhs, rhs, *, dimension_numbers=None, precision=None, preferred_element_type=None, out_sharding=None):
    """`lax.dot`: vector/matrix products of 1-D and 2-D operands (or any `dimension_numbers`)."""
    lhs, rhs = _arr(lhs), _arr(rhs)
    if dimension_numbers is not None:
        return dot_general(lhs, rhs, dimension_numbers, precision, preferred_element_type,
                           out_sharding=out_sharding)
    tl, tr = type_of(lhs), type_of(rhs)
    if not (1 <= tl.ndim <= 2 and 1 <= tr.ndim <= 2 and tl.shape[-1] == tr.shape[0]):
        raise ShardcValueError(
            "jax.lax.dot: dimension_numbers must be specified when not performing simple un-batched "
            "matrix-matrix, matrix-vector, or vector-vector products; got "
            f"lhs_shape={tl.shape} rhs_shape={tr.shape}")
    return _dg(lhs, rhs, ((tl.ndim - 1,), (0,)), ((), ()), out_sharding, preferred_element_type,
               promote_dtypes=False)


@api("lax.batch_matmul")
def batch_matmul(lhs, rhs, precision=None):
    """Matrix products over the leading (batch) dims of two operands of one rank >= 2."""
    lhs, rhs = _arr(lhs), _arr(rhs)
    nl, nr = type_of(lhs).ndim, type_of(rhs).ndim
    if min(nl, nr) < 2:
        raise ShardcValueError(f"Arguments to batch_matmul must be at least 2D, got {nl}, {nr}")
    if nl != nr:
        raise ShardcValueError(f"Arguments to batch_matmul must have same ndim, got {nl}, {nr}")
    batch = tuple(range(nl - 2))
    return _dg(lhs, rhs, ((nl - 1,), (nr - 2,)), (batch, batch))
