"""XLA and runtime failures as `ShardcRuntimeError`s that say what to do.

XLA reports a failed allocation, a dead peer or a bad buffer as `JaxRuntimeError`
(a status code and one line); a user should see which array, how many bytes per
device, and the fix. Only JAX's runtime errors are translated: anything else is
not XLA's and passes through unchanged.
"""
from __future__ import annotations

import math
from typing import Sequence

from ..errors import ShardcRuntimeError, SourceLoc, user_location
from ..types import ArrayType

__all__ = ["is_xla_failure", "xla_failure", "bytes_per_device"]


def is_xla_failure(e: BaseException) -> bool:
    """Whether `e` is XLA's / the runtime's own error (`JaxRuntimeError`, `XlaRuntimeError`)."""
    return type(e).__name__ in ("JaxRuntimeError", "XlaRuntimeError")


def bytes_per_device(t: ArrayType) -> int:
    """What one device holds of a value of type `t` (its Explicit shard)."""
    return math.prod(t.local_shape) * getattr(t.dtype, "itemsize", 1)


def _human(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


def _first_line(e: BaseException) -> str:
    s = str(e).strip()
    return s.splitlines()[0] if s else type(e).__name__


def xla_failure(e: BaseException, what: str, arrays: Sequence[tuple[str, ArrayType]] = (),
                loc: SourceLoc | None = None) -> ShardcRuntimeError:
    """The `ShardcRuntimeError` for XLA's failure `e` while doing `what` ("running `f`"),
    naming the largest of `arrays` (label, type) and its bytes per device when memory ran out."""
    line = _first_line(e)
    loc = loc or user_location()
    if "RESOURCE_EXHAUSTED" in line or "out of memory" in line.lower():
        sized = sorted(((bytes_per_device(t), label, t) for label, t in arrays), key=lambda x: -x[0])
        total = sum(b for b, _, _ in sized)
        detail = ""
        if sized:
            b, label, t = sized[0]
            detail = (f"; {label} ({t}) needs {_human(b)} per device ({b} bytes)"
                      + (f", the most of the {len(sized)} arrays ({_human(total)} per device in all)"
                         if len(sized) > 1 else ""))
        return ShardcRuntimeError(
            f"out of device memory while {what}{detail} (XLA: {line})", loc=loc,
            fix="shard the largest arrays over more mesh axes (fewer bytes per device), use smaller shapes, "
                "or run on devices with more memory")
    return ShardcRuntimeError(f"XLA failed while {what}: {line}", loc=loc)
