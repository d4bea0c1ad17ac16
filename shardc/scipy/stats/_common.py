"""What the distributions share: JAX's promotion and constants (from `shardc.scipy.special`)."""
from __future__ import annotations

from typing import Any

from ..special import _const, _dtype, promote_args_inexact, promote_dtypes, promote_shapes

__all__ = ["_const", "_dtype", "promote_args_inexact", "promote_args_numeric", "promote_dtypes_inexact"]


def promote_args_numeric(name: str, *args: Any) -> list[Any]:
    """JAX's `promote_args_numeric`: `promote_dtypes`, then `promote_shapes`."""
    return promote_shapes(promote_dtypes(*args))


def promote_dtypes_inexact(*args: Any) -> list[Any]:
    """JAX's `promote_dtypes_inexact` (no shape promotion)."""
    return promote_dtypes(*args, inexact=True)
