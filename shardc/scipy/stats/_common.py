"""What the distributions share: JAX's promotion and constants (from `shardc.scipy.special`)."""
from __future__ import annotations

from typing import Any

from ... import lax
from ... import numpy as jnp
from ...ops._util import as_operand, promote, promote_to_float
from ..special import _const, _dtype, promote_args_inexact, promote_shapes

__all__ = ["_const", "_dtype", "promote_args_inexact", "promote_args_numeric", "promote_dtypes_inexact"]


def _arrays(args) -> list[Any]:
    xs = [as_operand(x) for x in args]
    return [x if lax.is_array(x) else jnp.asarray(x) for x in xs]


def promote_args_numeric(name: str, *args: Any) -> list[Any]:
    """JAX's `promote_args_numeric`: the common dtype (weak types kept)."""
    xs = _arrays(args)
    return promote_shapes([jnp.asarray(x) for x in (promote(*xs) if len(xs) > 1 else xs)])


def promote_dtypes_inexact(*args: Any) -> list[Any]:
    """JAX's `promote_dtypes_inexact` (as `promote_args_inexact`, without the name)."""
    xs = _arrays(args)
    xs = promote(*xs) if len(xs) > 1 else xs
    return [jnp.asarray(promote_to_float(x)) for x in xs]
