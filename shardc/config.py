"""`sc.config`, as `jax.config`: `update(name, value)` and reading `config.<name>`.

A ported script's `jax.config.update(...)` lines must either do what they do in JAX or
fail: a flag that changes the meaning of a program (`jax_enable_x64=True`, ...) is never
accepted and ignored. So each flag
shardc knows is one of:

* **acted on**: devices and platform (`jax_num_cpu_devices`, `jax_platforms`,
  `jax_platform_name`), `jax_disable_jit`, the persistent cache
  (`jax_compilation_cache_dir`, `jax_enable_compilation_cache`), the promotion flags
  (`jax_numpy_rank_promotion` 'allow'/'warn'/'raise', `jax_numpy_dtype_promotion`
  'standard'/'strict'; part of every program's cache key, as in JAX: a program retraces under
  a new value and is found again under an old one);
* **fixed**: shardc has one behaviour (x64 off, partitionable threefry, ...); setting the flag to that value is accepted, any other value is a
  `ShardcNotImplementedError` that says so;
* **no effect on results** (cache thresholds, traceback filtering): accepted, recorded.

Any other name is JAX's `AttributeError: Unrecognized config option`.

The flags JAX also offers as context managers (`with jax.enable_x64(False):`,
`@jax.numpy_rank_promotion('allow')`) are `State` objects here under JAX's names
(`sc.enable_x64`, ...): the value is checked when the context manager is made (JAX's parser
and error for a value JAX does not know; shardc's refusal for one it cannot honour), set on
entry through `Config.update` (so an acted-on flag acts) and restored on exit, also when the
block raises. Unlike JAX's, the setting is process-wide, not per thread.
"""
from __future__ import annotations

import contextlib
import enum
import functools
from dataclasses import dataclass
from typing import Any, Callable

import jax

from . import dtypes as dt
from . import trace_context
from .errors import ShardcNotImplementedError, ShardcTypeError, ShardcValueError
from .runtime import compile_cache, devices
from .stages import set_debug_floats, set_jit_disabled

__all__ = [
    "config", "Config", "State",
    # JAX's flags as context managers, defined at the end of this module
    "allow_f16_reductions", "array_garbage_collection_guard", "auto_pcast", "check_tracer_leaks", "checking_leaks",
    "debug_infs", "debug_key_reuse", "debug_nans", "default_device", "default_matmul_precision",
    "default_prng_impl", "enable_checks", "enable_custom_prng", "enable_x64", "explain_cache_misses",
    "jax2tf_associative_scan_reductions", "legacy_prng_key", "log_compiles", "no_execution", "no_tracing",
    "numpy_dtype_promotion", "numpy_rank_promotion", "remove_size_one_mesh_axis_from_type", "softmax_custom_jvp",
    "thread_guard", "threefry_partitionable", "transfer_guard", "transfer_guard_device_to_device",
    "transfer_guard_device_to_host", "transfer_guard_host_to_device",
]


@dataclass(frozen=True)
class _Flag:
    default: Any
    #: acted on: called with the new value; None: only `default` (or `also`) is accepted
    apply: Callable[[Any], None] | None = None
    #: other values accepted without effect on results (a recorded setting)
    free: bool = False
    why: str = ""
    #: other values that mean the same as `default` (`'allow'` for a transfer guard's None)
    also: tuple = ()

    def accepts(self, value: Any) -> bool:
        return self.apply is not None or self.free or value == self.default or value in self.also


def _platforms(value) -> None:
    first = str(value).split(",")[0].strip() if value else None
    devices.set_platform(first or None)


def _cache_dir(value) -> None:
    compile_cache.set_cache_dir(value)


def _jax_gc_guard(value) -> None:
    """shardc's arrays are jaxlib arrays underneath: JAX's own guard watches their collection."""
    jax.config.update("jax_array_garbage_collection_guard", value)


def _promotion_setter(kind: str, values: tuple[str, ...]) -> Callable[[Any], None]:
    """Set a promotion flag (read by `dtypes.result_type` / `lax.rank_promote` while tracing),
    with JAX's ValueError for a value it does not know. The flag is part of the trace context
    (`trace_context`), as JAX keys its traces on it: a program traced under 'allow' is traced
    again (and rejected) under 'raise', and found again, not retraced, back under 'allow'."""
    def apply(value) -> None:
        if kind == "rank" and value not in values:
            raise ShardcValueError(f"new enum value must be in {list(values)}, got {value} of type {type(value)}.")
        if kind == "dtype" and value not in values:
            raise ShardcValueError(f"{value!r} is not a valid NumpyDtypePromotion")
        dt.PROMOTION_FLAGS[kind] = value
        trace_context.set_global(f"promotion:{kind}", value)
    return apply


for _kind, _value in dt.PROMOTION_FLAGS.items():
    trace_context.set_global(f"promotion:{_kind}", _value)


_GUARD = "shardc's runtime places every host value with an explicit device_put, so it cannot tell " \
         "implicit transfers from explicit ones"


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
    # read by shardc.random when a key is made (as JAX's, not part of a traced program's cache key)
    "jax_default_prng_impl": _Flag("threefry2x32", also=("rbg", "unsafe_rbg"),
                                   why="shardc.random implements threefry2x32, rbg and unsafe_rbg"),
    "jax_enable_custom_prng": _Flag(False, why="shardc.random has no custom PRNG implementations"),
    "jax_numpy_rank_promotion": _Flag("allow", _promotion_setter("rank", ("allow", "warn", "raise"))),
    "jax_numpy_dtype_promotion": _Flag("standard", _promotion_setter("dtype", ("standard", "strict"))),
    "jax_default_matmul_precision": _Flag(None, why="shardc emits default-precision dots"),
    "jax_debug_nans": _Flag(False, lambda v: set_debug_floats("nan", v)),
    "jax_debug_infs": _Flag(False, lambda v: set_debug_floats("inf", v)),
    "jax_log_compiles": _Flag(False, why="compile logging is not built"),
    "jax_explain_cache_misses": _Flag(False, why="cache-miss explanations are not built"),
    "jax_allow_f16_reductions": _Flag(True, why="shardc reduces float16/bfloat16 as JAX's default does"),
    "jax_array_garbage_collection_guard": _Flag(None, _jax_gc_guard),
    "jax_auto_pcast": _Flag(True, why="shardc inserts JAX's automatic pvary/pcast inside shard_map"),
    # shardc finds every leaked tracer where it is used (an UnexpectedTracerError): checking for
    # leaks at the end of tracing too would only move JAX's error earlier
    "jax_check_tracer_leaks": _Flag(False, free=True),
    "jax_debug_key_reuse": _Flag(False, why="key-reuse checking is not built"),
    "jax_default_device": _Flag(None, why="shardc places values by the mesh and has no default device"),
    "jax_enable_checks": _Flag(False, free=True),      # shardc type-checks every program before emission anyway
    "jax2tf_associative_scan_reductions": _Flag(False, free=True),   # jax2tf only: shardc has no jax2tf
    "jax_legacy_prng_key": _Flag("allow", why="shardc.random accepts raw uint32 keys as JAX's default does"),
    "jax_no_execution": _Flag(False, why="refusing execution is not built"),
    "jax_no_tracing": _Flag(False, why="refusing tracing is not built"),
    "jax_remove_size_one_mesh_axis_from_type": _Flag(
        False, why="shardc's types keep size-1 mesh axes as JAX's default does"),
    "jax_softmax_custom_jvp": _Flag(False, why="shardc differentiates softmax as JAX's default does"),
    "jax_thread_guard": _Flag(False, why="the multi-thread guard is not built"),
    "jax_transfer_guard": _Flag(None, also=("allow",), why=_GUARD),
    "jax_transfer_guard_host_to_device": _Flag(None, also=("allow",), why=_GUARD),
    "jax_transfer_guard_device_to_host": _Flag(None, also=("allow",), why=_GUARD),
    "jax_transfer_guard_device_to_device": _Flag(None, also=("allow",), why=_GUARD),
}


class Config:
    """The settings shardc knows, read as attributes (`sc.config.jax_enable_x64`) and
    set with `update` (see the module docstring for which ones act)."""

    def __init__(self):
        object.__setattr__(self, "_values", {name: f.default for name, f in _FLAGS.items()})

    def update(self, name: str, value: Any) -> None:
        flag = _flag(name)
        _refuse_unless_accepted(name, flag, value)
        if flag.apply is not None:
            flag.apply(value)
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


def _refuse_unless_accepted(name: str, flag: _Flag, value: Any) -> None:
    if not flag.accepts(value):
        only = " or ".join(repr(v) for v in (flag.default, *flag.also))
        raise ShardcNotImplementedError(f"config {name}={value!r} is not supported: {flag.why} (only {only} is)")


#: the process's settings (`import shardc as jax; jax.config.update(...)`)
config = Config()


_NO_DEFAULT = object()


class State:
    """A config option as JAX's context manager / decorator (`jax.enable_x64` is one):
    `with sc.enable_x64(False): ...`, `@sc.numpy_rank_promotion("allow")`, `sc.debug_nans.value`."""

    def __init__(self, name: str, cm_default: Any = _NO_DEFAULT):
        self._name = name
        self.__name__ = name[4:] if name.startswith("jax_") else name
        self.__doc__ = f"Context manager for `{name}` config option (as `jax.{self.__name__}`)."
        self._cm_default = cm_default

    @property
    def name(self) -> str:
        return self._name

    @property
    def value(self) -> Any:
        return config.read(self._name)

    def __bool__(self):
        raise ShardcTypeError("bool() not supported for instances of type 'State' "
                              "(did you mean to use 'State.value' instead?)")

    def __call__(self, new_val: Any = _NO_DEFAULT) -> _StateContext:
        if new_val is _NO_DEFAULT:
            if self._cm_default is _NO_DEFAULT:
                raise ShardcTypeError(f"Context manager for {self.__name__} config option requires an argument "
                                      "representing the new value for the config option.")
            new_val = self._cm_default
        return _StateContext(self._name, _parse(self._name, new_val))

    def __repr__(self) -> str:
        return f"<shardc config State {self._name}={self.value!r}>"


def _parse(name: str, value: Any) -> Any:
    """JAX's reading of `value` for this option (`bool(v)` for a boolean flag, the enum check and
    JAX's ValueError for an enum), by making JAX's own context manager (which only parses)."""
    short = name[4:] if name.startswith("jax_") else name
    if short == "transfer_guard":   # jax.transfer_guard is a function over the three guards' States
        short = "transfer_guard_host_to_device"
    try:
        parsed = getattr(jax, short)(value).new_val
    except ValueError as e:
        raise ShardcValueError(str(e)) from None
    return parsed.value if isinstance(parsed, enum.Enum) else parsed


class _StateContext(contextlib.ContextDecorator):
    """One `with` (or decorated call): set on entry, restore the previous value on exit."""

    def __init__(self, name: str, value: Any):
        flag = _flag(name)
        if flag.apply is None:          # refuse now, as the value is written, not at first use
            _refuse_unless_accepted(name, flag, value)
        self._name, self.new_val, self._prev = name, value, []

    def __enter__(self) -> None:
        prev = config.read(self._name)
        config.update(self._name, self.new_val)
        self._prev.append(prev)

    def __exit__(self, *exc) -> None:
        config.update(self._name, self._prev.pop())


def _state(name: str, cm_default: Any = _NO_DEFAULT) -> State:
    return State(name, cm_default)


_BOOL = True    # JAX's boolean flags: `with jax.debug_nans():` means True
allow_f16_reductions = _state("jax_allow_f16_reductions", _BOOL)
array_garbage_collection_guard = _state("jax_array_garbage_collection_guard")
auto_pcast = _state("jax_auto_pcast", _BOOL)
check_tracer_leaks = _state("jax_check_tracer_leaks", _BOOL)
debug_infs = _state("jax_debug_infs", _BOOL)
debug_key_reuse = _state("jax_debug_key_reuse", _BOOL)
debug_nans = _state("jax_debug_nans", _BOOL)
default_device = _state("jax_default_device")
default_matmul_precision = _state("jax_default_matmul_precision")
default_prng_impl = _state("jax_default_prng_impl")
enable_checks = _state("jax_enable_checks", _BOOL)
enable_custom_prng = _state("jax_enable_custom_prng", _BOOL)
enable_x64 = _state("jax_enable_x64", _BOOL)
explain_cache_misses = _state("jax_explain_cache_misses", _BOOL)
jax2tf_associative_scan_reductions = _state("jax2tf_associative_scan_reductions", _BOOL)
legacy_prng_key = _state("jax_legacy_prng_key")
log_compiles = _state("jax_log_compiles", _BOOL)
no_execution = _state("jax_no_execution", _BOOL)
no_tracing = _state("jax_no_tracing", _BOOL)
numpy_dtype_promotion = _state("jax_numpy_dtype_promotion")
numpy_rank_promotion = _state("jax_numpy_rank_promotion")
remove_size_one_mesh_axis_from_type = _state("jax_remove_size_one_mesh_axis_from_type", _BOOL)
softmax_custom_jvp = _state("jax_softmax_custom_jvp", _BOOL)
thread_guard = _state("jax_thread_guard", _BOOL)
threefry_partitionable = _state("jax_threefry_partitionable", _BOOL)
transfer_guard_device_to_device = _state("jax_transfer_guard_device_to_device")
transfer_guard_device_to_host = _state("jax_transfer_guard_device_to_host")
transfer_guard_host_to_device = _state("jax_transfer_guard_host_to_device")
_transfer_guard_all = _state("jax_transfer_guard")

#: `jax.checking_leaks()`: `check_tracer_leaks(True)`
checking_leaks = functools.partial(check_tracer_leaks, True)


@contextlib.contextmanager
def transfer_guard(new_val: str):
    """`jax.transfer_guard(level)`: the guard level of every kind of transfer (host to device,
    device to device, device to host), as JAX's."""
    with contextlib.ExitStack() as stack:
        for cm in (transfer_guard_host_to_device, transfer_guard_device_to_device,
                   transfer_guard_device_to_host, _transfer_guard_all):
            stack.enter_context(cm(new_val))
        yield
