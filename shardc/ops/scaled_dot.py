"""`jax.lax.scaled_dot`: the block-scaled ("mx") dot product, `(lhs * lhs_scale) @ (rhs *
rhs_scale)` in `preferred_element_type` (bfloat16 by default), binding `scaled_dot_p`
(`shardc/primitives/scaled_dot.py`) as JAX's `scaled_dot` does: `dimension_numbers` defaults to
the last dim of lhs against the second-to-last of rhs with the leading dims batch dims (rank 0
and 1 are JAX's TypeError), and a missing scale is JAX's `_create_dummy_scale`: ones of the
operand's shape with its contracting dims 1, made in bfloat16 and converted to float8_e8m0fnu.
"""
from __future__ import annotations

from .. import dtypes as dt
from ..core import api, bind
from ..errors import ShardcTypeError
from ..primitives.scaled_dot import scaled_dot_p
from ._util import type_of
from .creation import ones
from .elementwise import astype
from .shape import _arr

__all__ = ["scaled_dot"]


def _dummy_scale(operand, contracting):
    shape = list(type_of(operand).shape)
    for d in contracting:
        shape[d] = 1
    return astype(ones(shape, dtype=dt.bfloat16), dt.float8_e8m0fnu)


@api("lax.scaled_dot")
def scaled_dot(lhs, rhs, *, lhs_scale=None, rhs_scale=None, dimension_numbers=None, preferred_element_type=None):
    """`jax.lax.scaled_dot`: see the module docstring."""
    lhs, rhs = _arr(lhs), _arr(rhs)
    if dimension_numbers is None:
        n = type_of(lhs).ndim
        if n in (0, 1):
            raise ShardcTypeError("scaled_dot does not support 0-rank and 1-rank operands.")
        dimension_numbers = (((n - 1,), (n - 2,)), (tuple(range(n - 2)), tuple(range(n - 2))))
    (lc, rc), (lb, rb) = dimension_numbers
    dn = ((tuple(int(d) for d in lc), tuple(int(d) for d in rc)), (tuple(int(d) for d in lb), tuple(int(d) for d in rb)))
    lhs_scale = _dummy_scale(lhs, dn[0][0]) if lhs_scale is None else _arr(lhs_scale)
    rhs_scale = _dummy_scale(rhs, dn[0][1]) if rhs_scale is None else _arr(rhs_scale)
    element_type = dt.canonicalize(preferred_element_type if preferred_element_type is not None else dt.bfloat16)
    return bind(scaled_dot_p, lhs, rhs, lhs_scale, rhs_scale, dimension_numbers=dn,
                preferred_element_type=element_type)
