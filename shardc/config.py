"""`sc.config`, as `jax.config`: `update(name, value)` and reading `config.<name>`.

A ported script's `jax.config.update(...)` lines must either do what they do in JAX or
fail: a flag that changes the meaning of a program (`jax_enable_x64=True`,
`jax_numpy_rank_promotion='raise'`, ...) is never accepted and ignored. So each flag
shardc knows is one of:

* **acted on**: devices and platform (`jax_num_cpu_devices`, `jax_platforms`,
  `jax_platform_name`), `jax_disable_jit`, the persistent cache
  (`jax_compilation_cache_dir`, `jax_enable_compilation_cache`);
* **fixed**: shardc has one behaviour (x64 off, partitionable threefry, standard
  promotion, ...); setting the flag to that value is accepted, any other value is a
  `ShardcNotImplementedError` that says so;
* **no effect on results** (cache thresholds, traceback filtering): accepted, recorded.

Any other name is JAX's `AttributeError: Unrecognized config option`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from .errors import ShardcNotImplementedError, ShardcValueError
from .runtime import compile_cache, devices
from .stages import set_jit_disabled

__all__ = ["config", "Config"]


@dataclass(frozen=True)
class _Flag:
    default: Any
    #: acted on: called with the new value; None: only `default` (or `also`) is accepted
    apply: Callable[[Any], None] | None = None
    #: other values accepted without effect on results (a recorded setting)
    free: bool = False
    why: str = ""


def _platforms(value) -> None:
    first = str(value).split(",")[0].strip() if value else None
    devices.set_platform(first or None)


def _cache_dir(value) -> None:
    compile_cache.set_cache_dir(value)


_FLAGS: dict[str, _Flag] = {
    "jax_num_cpu_devices": _Flag(-1, lambda v: devices.set_cpu_device_count(int(v))),
    "jax_platforms": _Flag(None, _platforms),
    "jax_platform_name": _Flag("", _platforms),
    "jax_disable_jit": _Flag(False, lambda v: set_jit_disabled(bool(v))),
    "jax_compilation_cache_dir": _Flag(None, _cache_dir),
    "jax_enable_compilation_cache": _Flag(True, lambda v: compile_cache.set_enabled(bool(v))),
    "jax_persistent_cache_min_compile_time_secs": _Flag(1.0, free=True),
    "jax_persistent_cache_min_entry_size_bytes": _Flag(0, free=True),
    "jax_traceback_filtering": _Flag("auto", free=True),
    "jax_enable_x64": _Flag(False, why="shardc computes in JAX's default 32-bit types"),
    "jax_threefry_partitionable": _Flag(True, why="shardc.random is the partitionable threefry"),
    "jax_default_prng_impl": _Flag("threefry2x32", why="shardc.random implements threefry2x32 only"),
    "jax_enable_custom_prng": _Flag(False, why="shardc.random has no custom PRNG implementations"),
    "jax_numpy_rank_promotion": _Flag("allow", why="shardc promotes ranks as JAX's default ('allow')"),
    "jax_numpy_dtype_promotion": _Flag("standard", why="shardc implements JAX's standard promotion"),
    "jax_default_matmul_precision": _Flag(None, why="shardc emits default-precision dots"),
    "jax_debug_nans": _Flag(False, why="checking results for NaNs after each program is not built"),
    "jax_debug_infs": _Flag(False, why="checking results for infinities after each program is not built"),
    "jax_log_compiles": _Flag(False, why="compile logging is not built"),
    "jax_explain_cache_misses": _Flag(False, why="cache-miss explanations are not built"),
}


class Config:
    """The settings shardc knows, read as attributes (`sc.config.jax_enable_x64`) and
    set with `update` (see the module docstring for which ones act)."""

    def __init__(self):
        object.__setattr__(self, "_values", {name: f.default for name, f in _FLAGS.items()})

    def update(self, name: str, value: Any) -> None:
        flag = _flag(name)
        if flag.apply is not None:
            flag.apply(value)
        elif not flag.free and value != flag.default:
            raise ShardcNotImplementedError(
                f"config {name}={value!r} is not supported: {flag.why} (only {flag.default!r} is)")
        self._values[name] = value

    def read(self, name: str) -> Any:
        _flag(name)
        return self._values[name]

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return self.read(name)

    def __setattr__(self, name: str, value: Any) -> None:
        raise ShardcValueError(f"set config options with sc.config.update({name!r}, value)")

    @property
    def values(self) -> dict[str, Any]:
        return dict(self._values)


def _flag(name: str) -> _Flag:
    flag = _FLAGS.get(name)
    if flag is None:
        raise AttributeError(f"Unrecognized config option: {name}")
    return flag


#: the process's settings (`import shardc as jax; jax.config.update(...)`)
config = Config()
