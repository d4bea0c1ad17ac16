"""JAX's small Python helpers (`jax._src.util`: `safe_map`, `safe_zip`, `unzip2`), which the
modules ported from JAX's own code (`experimental/ode.py`, `example_libraries/optimizers.py`)
use and bind under JAX's names. Copyright 2018 The JAX Authors, Apache License 2.0."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["safe_map", "safe_zip", "unzip2"]


def safe_map(f: Callable, *args: Iterable) -> list:
    """`map` over iterables of one length (JAX's assertion otherwise), as a list."""
    lists = [list(a) for a in args]
    n = len(lists[0])
    for a in lists[1:]:
        assert len(a) == n, f"length mismatch: {[len(x) for x in lists]}"
    return list(map(f, *lists))


def safe_zip(*args: Iterable) -> list:
    """`zip` of iterables of one length (JAX's assertion otherwise), as a list."""
    lists = [list(a) for a in args]
    n = len(lists[0])
    for a in lists[1:]:
        assert len(a) == n, f"length mismatch: {[len(x) for x in lists]}"
    return list(zip(*lists))


def unzip2(xys: Iterable[tuple[Any, Any]]) -> tuple[tuple, tuple]:
    """Unzip a sequence of pairs into a pair of tuples."""
    xs, ys = [], []
    for x, y in xys:
        xs.append(x)
        ys.append(y)
    return tuple(xs), tuple(ys)
