"""The trace context: what a traced program depends on besides its arguments.

JAX keys its tracing, lowering and compilation caches on the values of some flags (the
promotion flags `jax_numpy_rank_promotion` / `jax_numpy_dtype_promotion`) and of every
`jax.make_user_context`: a program traced under one value is traced again under another, and
the program traced before is found again, without a retrace, when the old value comes back.
`sc.jit` keeps one set of caches per value of `key()` (stages.Jit), so it does the same.

Flags are process-wide here (as the rest of `sc.config`); a user context's `with` block is
per thread and its global value process-wide, as JAX's. A base module: it imports nothing
from shardc, so the flag setters (config) and the caches (stages) both build on it.
"""
from __future__ import annotations

import threading
from typing import Any, Hashable

__all__ = ["key", "set_global", "UserConfig", "UserContext", "make_user_context"]

#: every slot of the context (a flag's name, or a UserConfig) with its process-wide value
_GLOBAL: dict[Hashable, Any] = {}
#: `_GLOBAL` as a tuple (the key of a thread with no `with` block open), rebuilt on each change
_GLOBAL_KEY: list[tuple] = [()]


class _Local(threading.local):
    #: this thread's values set by open `with user_context(v):` blocks (None: none open)
    over: dict | None = None
    #: the key built from them, and the global key it was built on
    key: tuple | None = None
    base: tuple | None = None


_LOCAL = _Local()


def key() -> tuple:
    """This thread's trace context, as a tuple of (slot, value) pairs: compared on every
    `sc.jit` call, so the common case (no `with` block open) is one attribute read."""
    loc = _LOCAL
    if loc.over is None:
        return _GLOBAL_KEY[0]
    if loc.base is not _GLOBAL_KEY[0]:
        loc.base = _GLOBAL_KEY[0]
        loc.key = tuple((slot, loc.over.get(slot, value)) for slot, value in _GLOBAL.items())
    return loc.key


def set_global(slot: Hashable, value: Any) -> None:
    """Set a slot's process-wide value (a flag's `config.update`, `UserConfig.set_global`)."""
    _GLOBAL[slot] = value
    _GLOBAL_KEY[0] = tuple(_GLOBAL.items())


def _value(slot: Hashable) -> Any:
    over = _LOCAL.over
    if over is not None and slot in over:
        return over[slot]
    return _GLOBAL[slot]


class UserContext:
    """`with config(v):`: `v` is this thread's value inside the block (the previous one after)."""
    __slots__ = ("_config", "_new_value", "_prev")

    def __init__(self, config: UserConfig, new_value: Any):
        self._config, self._new_value = config, new_value

    def __enter__(self) -> None:
        loc = _LOCAL
        self._prev = loc.over
        loc.over, loc.base = {**(loc.over or {}), self._config: self._new_value}, None

    def __exit__(self, *exc) -> None:
        _LOCAL.over, _LOCAL.base = self._prev, None


class UserConfig:
    """`jax.make_user_context(default_value)`'s object: `.value` (this thread's), `get_global`,
    `set_global`, and `config(v)` for a `with` block. Identity is the slot: two user contexts
    with equal values are still two entries of the key."""

    def __init__(self, default_value: Any = None):
        set_global(self, default_value)

    @property
    def value(self) -> Any:
        return _value(self)

    def get_global(self) -> Any:
        return _GLOBAL[self]

    def set_global(self, new_value: Any) -> None:
        set_global(self, new_value)

    def __call__(self, new_value: Any) -> UserContext:
        return UserContext(self, new_value)

    def __repr__(self) -> str:
        return f"<user context, value {self.value!r}>"


def make_user_context(default_value: Any = None) -> UserConfig:
    """`jax.make_user_context`: a context whose value is part of every `sc.jit` cache key.

    If the value changes, `sc.jit` programs are traced, lowered and compiled again (once per
    value; coming back to an earlier value finds that value's programs), as JAX's:

        my_context = sc.make_user_context(default_value=None)
        with my_context(1):
            f(x)          # traced for 1
        with my_context(2):
            f(x)          # traced again, for 2
    """
    return UserConfig(default_value)
