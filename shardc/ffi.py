"""`sc.ffi`, as `jax.ffi` (JAX 0.10.2): calls from a shardc program to foreign functions (C++ /
CUDA handlers) registered with XLA's FFI.

* `ffi_call(target_name, result_shape_dtypes, ...)` returns a function; calling it on arrays
  binds the `ffi_call` primitive (`shardc/primitives/ffi_call.py`: its typing, sharding, VMA,
  batching per `vmap_method` and lowering to `stablehlo.custom_call`). Keyword arguments of the
  call are the handler's attributes, encoded as JAX encodes them (`mhlo.backend_config`).
  `result_shape_dtypes` is one object with `shape` and `dtype` (a `ShapeDtypeStruct`, an array)
  or a list / tuple of them (the results come back as a list / tuple), as JAX's.
* `register_ffi_target`, `register_ffi_type`, `register_ffi_target_as_batch_partitionable` pass
  through to jaxlib's XLA client, as JAX's do: shardc compiles with the same client, so a target
  registered here (or through `jax.ffi`) is callable from both. `register_ffi_type_id` raises
  JAX's ValueError (gone since jaxlib 381). `pycapsule` and `include_dir` are JAX's helpers.
* `ffi_lowering` and `build_ffi_lowering_function` build lowering rules for JAX primitives
  (functions of `mlir.LoweringRuleContext` and MLIR values, registered with
  `mlir.register_lowering`); shardc's primitives lower to text with their own rules and users do
  not define primitives, so these raise `ShardcNotImplementedError`: call the target with
  `sc.ffi.ffi_call`, which writes the same custom call.
"""
from __future__ import annotations

import ctypes
import functools
import os
from typing import Any, Callable, Sequence

import jaxlib
import numpy as np
from jax._src import xla_bridge  # JAX's plugin callbacks (register_ffi_target_as_batch_partitionable)
from jax._src.lib import xla_client  # jaxlib's XLA client: the FFI target registry shardc compiles with

from .core import Tracer, api, bind, raise_user_error, typeof
from .errors import ShardcNotImplementedError, ShardcTypeError, ShardcValueError
from .mesh import get_abstract_mesh
from .primitives.ffi_call import VMAP_METHODS, FrozenDict, HashableArray, ResultType, ffi_call_effect_p, ffi_call_p
from .sharding import PartitionSpec
from .types import ArrayType

__all__ = ["ffi_call", "register_ffi_target", "register_ffi_type_id", "register_ffi_type",
           "register_ffi_target_as_batch_partitionable", "pycapsule", "include_dir", "ffi_lowering",
           "build_ffi_lowering_function"]


# --- registration (jaxlib's XLA client, as JAX's) ---------------------------------------------------
def register_ffi_target(name: str, fn: Any, platform: str = "cpu", api_version: int = 1, **kwargs: Any) -> None:
    """Register a foreign function target (`fn`: a PyCapsule, or a dict of FFI stage name to
    PyCapsule) with XLA, as `jax.ffi.register_ffi_target`: `api_version` 1 (default) for the typed
    FFI, 0 for the earlier custom-call API; other keywords go to jaxlib's
    `register_custom_call_target`."""
    return xla_client.register_custom_call_target(name, fn, platform, api_version, **kwargs)


def register_ffi_type_id(name: str, obj: Any, platform: str = "cpu") -> None:
    """JAX's error: type ids are registered with `register_ffi_type` since jaxlib 381."""
    raise ShardcValueError("register_ffi_type_id is not supported after jaxlib version 381.")


def register_ffi_type(name: str, type_registration: dict, platform: str = "cpu") -> None:
    """Register a custom FFI type (`{"type_id": capsule, "type_info": capsule}`), as JAX's."""
    return xla_client.register_custom_type(name, type_registration, platform=platform)


def register_ffi_target_as_batch_partitionable(name: str) -> None:
    """Let XLA partition calls to `name` along their leading (batch) dims, as JAX's."""
    xla_client.register_custom_call_as_batch_partitionable(name)
    xla_bridge.register_plugin_callbacks(functools.partial(xla_client.register_custom_call_as_batch_partitionable,
                                                           name))


def pycapsule(funcptr):
    """Wrap a ctypes function pointer in a PyCapsule (for `register_ffi_target`), as JAX's."""
    destructor = ctypes.CFUNCTYPE(None, ctypes.py_object)
    builder = ctypes.pythonapi.PyCapsule_New
    builder.restype = ctypes.py_object
    builder.argtypes = (ctypes.c_void_p, ctypes.c_char_p, destructor)
    return builder(funcptr, None, destructor(0))


def include_dir() -> str:
    """The directory of the XLA FFI headers bundled with jaxlib (`xla/ffi/api/ffi.h`)."""
    base = jaxlib.__file__ and os.path.dirname(os.path.abspath(jaxlib.__file__))
    if not base:
        paths = list(getattr(jaxlib, "__path__", []))
        if not paths:
            raise RuntimeError("Cannot determine jaxlib directory: neither __file__ nor __path__ is available")
        base = paths[0]
    return os.path.join(base, "include")


def _no_lowering_rules(name: str) -> Callable:
    def refuse(*args: Any, **kwargs: Any):
        raise ShardcNotImplementedError(
            f"sc.ffi.{name} builds a lowering rule for a JAX primitive (a function of JAX's "
            "mlir.LoweringRuleContext and MLIR values); shardc's primitives lower to StableHLO text with "
            "their own rules and shardc has no user-defined primitives. Call the target with "
            "sc.ffi.ffi_call, which writes the same stablehlo.custom_call")
    refuse.__name__ = name
    refuse.__doc__ = f"Not available in shardc: `jax.ffi.{name}` builds lowering rules for JAX primitives."
    return refuse


ffi_lowering = _no_lowering_rules("ffi_lowering")
build_ffi_lowering_function = _no_lowering_rules("build_ffi_lowering_function")


# --- ffi_call ---------------------------------------------------------------------------------------
def _result_type(r: Any, idx: int) -> ResultType:
    """One declared result (JAX's `_result_avals`): its shape and exact dtype; its sharding,
    U/R and VMA from its type when it is an array, from its `sharding` when it is a
    `ShapeDtypeStruct` (a PartitionSpec is on the context mesh), else replicated."""
    if type(r).__name__ == "AbstractToken":
        raise ShardcNotImplementedError("token results of ffi_call are not supported: shardc programs have no "
                                        "tokens (JAX's `core.abstract_token`)")
    if not hasattr(r, "shape") or not hasattr(r, "dtype"):
        raise ShardcValueError("All elements of result_shape_dtypes must have 'shape' and 'dtype' attributes. "
                               f"Got {r} at position {idx}.")
    shape, dtype = tuple(int(d) for d in r.shape), np.dtype(r.dtype)
    if isinstance(r, Tracer) or getattr(r, "_shardc_type", None) is not None:
        t = typeof(r)
        return ResultType(shape, dtype, t.weak_type, t.spec, t.unreduced, t.reduced, t.vma)
    weak = bool(getattr(r, "weak_type", False))
    s = getattr(r, "sharding", None)
    spec = s if isinstance(s, PartitionSpec) else getattr(s, "spec", None)
    if spec is None:
        return ResultType(shape, dtype, weak, (None,) * len(shape))
    entries = tuple(spec) + (None,) * (len(shape) - len(tuple(spec)))
    return ResultType(shape, dtype, weak, entries, getattr(spec, "unreduced", ()), getattr(spec, "reduced", ()))


def _default_layout(ndim: int) -> tuple[int, ...]:
    return tuple(reversed(range(ndim)))


def _layout(ndim: int, layout: Any, major_to_minor: bool) -> tuple[int, ...]:
    """JAX's `_convert_layout_for_lowering` (minor-to-major); `major_to_minor`: a sequence the
    user gave in `ffi_call`'s order (reversed first, as `_convert_layouts_for_ffi_call`)."""
    if layout is None:
        return _default_layout(ndim)
    if hasattr(layout, "major_to_minor"):   # a `Layout`
        if getattr(layout, "tiling", None) is not None:
            raise ShardcValueError("The FFI does not support layouts with tiling")
        return tuple(layout.major_to_minor[::-1])
    seq = tuple(layout)
    return tuple(seq[::-1] if major_to_minor else seq)


def _hashable_attributes(kwargs: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    """JAX's `_wrap_kwargs_hashable` (arrays and dicts wrapped, anything else must hash), then the
    check JAX's `bind` makes of every param (a dict whose values do not hash fails there)."""
    out = []
    for k, v in sorted(kwargs.items()):
        if isinstance(v, np.ndarray):
            out.append((k, HashableArray(v)))
        elif isinstance(v, dict):
            out.append((k, FrozenDict(v)))
        else:
            try:
                hash(v)
            except TypeError:
                raise ShardcTypeError(f"Non-hashable keyword argument to ffi_call {k}: {v}") from None
            out.append((k, v))
    attrs = tuple(out)
    try:
        hash(attrs)
    except TypeError:
        raise ShardcTypeError(
            "As of JAX v0.7, parameters to jaxpr equations must have __hash__ and __eq__ methods. In a call to "
            f"primitive ffi_call, the value of parameter attributes was not hashable: {attrs}") from None
    return attrs


def ffi_call(target_name: str, result_shape_dtypes: Any, *, has_side_effect: bool = False,
             vmap_method: str | None = None, input_layouts: Sequence[Any] | None = None,
             output_layouts: Any = None, input_output_aliases: dict[int, int] | None = None,
             custom_call_api_version: int = 4, legacy_backend_config: str | None = None) -> Callable[..., Any]:
    """Call the XLA FFI target `target_name` (registered with `register_ffi_target`), as
    `jax.ffi.ffi_call`: returns a function of the input arrays (positional) whose keyword
    arguments are the handler's attributes; its results are typed by `result_shape_dtypes`.

    `vmap_method` says how the call batches under `sc.vmap` (`"sequential"`, `"sequential_unrolled"`,
    `"expand_dims"`, `"broadcast_all"`, `"legacy_vectorized"`; None: vmap is refused).
    `input_layouts` / `output_layouts`: per value None (row-major), a `Layout`, or dims in
    major-to-minor order. `input_output_aliases`: {input index: output index} sharing buffers.
    `custom_call_api_version` < 4 with `legacy_backend_config` calls an old-style custom call.
    """
    if vmap_method not in VMAP_METHODS:
        raise ShardcValueError(f"vmap_method must be on of the allowed methods {VMAP_METHODS}, "
                               f"but got: {vmap_method}")
    if isinstance(result_shape_dtypes, Sequence):
        multiple, outs_layouts = True, output_layouts
        results = tuple(_result_type(r, i) for i, r in enumerate(result_shape_dtypes))
    else:
        multiple, outs_layouts = False, (output_layouts,)
        results = (_result_type(result_shape_dtypes, 0),)
    if custom_call_api_version >= 4 and legacy_backend_config is not None:
        raise ShardcValueError("The use of the legacy_backend_config parameter requires custom_call_api_version "
                               f"< 4; got {custom_call_api_version}.")
    prim = ffi_call_effect_p if has_side_effect else ffi_call_p

    @api("sc.ffi.ffi_call")
    def wrapped(*args: Any, **kwargs: Any):
        in_types = [typeof(x) for x in args]
        if input_layouts is None:
            in_lay = tuple(_default_layout(t.ndim) for t in in_types)
        else:
            if len(input_layouts) != len(in_types):
                raise_user_error(ShardcValueError(
                    f"The number of input arguments ({len(in_types)}) must equal the number of input layouts "
                    f"({len(input_layouts)})."))
            in_lay = tuple(_layout(t.ndim, lay, True) for t, lay in zip(in_types, input_layouts))
        if outs_layouts is None:
            out_lay = tuple(_default_layout(len(r.shape)) for r in results)
        else:
            if len(outs_layouts) != len(results):
                raise_user_error(ShardcValueError(
                    f"The number of outputs ({len(results)}) must equal the number of output layouts "
                    f"({len(outs_layouts)})."))
            out_lay = tuple(_layout(len(r.shape), lay, True) for r, lay in zip(results, outs_layouts))
        aliases = _aliases(input_output_aliases, in_types, results, in_lay, out_lay)
        try:
            attrs = _hashable_attributes(kwargs)
        except ShardcTypeError as e:
            raise_user_error(e)
        outs = bind(prim, *args, result_types=_on_context_mesh(results), vmap_method=vmap_method,
                    target_name=target_name, has_side_effect=bool(has_side_effect), input_layouts=in_lay,
                    output_layouts=out_lay, input_output_aliases=aliases,
                    custom_call_api_version=int(custom_call_api_version),
                    legacy_backend_config=legacy_backend_config, attributes=attrs)
        if multiple:
            return tuple(outs) if isinstance(result_shape_dtypes, tuple) else list(outs)
        return outs[0]

    return wrapped


def _on_context_mesh(results: tuple[ResultType, ...]) -> tuple[ResultType, ...]:
    """The declared specs as types show them on the context mesh: Explicit axes only (an Auto
    axis is a placement XLA chooses; no mesh, no axes)."""
    mesh = get_abstract_mesh()
    explicit = set() if mesh.empty else set(mesh.explicit_axes)

    def entry(e):
        axes = tuple(a for a in ((e,) if isinstance(e, str) else (e or ())) if a in explicit)
        return None if not axes else axes[0] if len(axes) == 1 else axes

    return tuple(ResultType(r.shape, r.dtype, r.weak_type, tuple(entry(e) for e in r.spec),
                            r.unreduced & explicit, r.reduced & explicit, r.vma) for r in results)


def _aliases(io: dict | None, in_types: list[ArrayType], results, in_lay, out_lay) -> tuple[tuple[int, int], ...]:
    """JAX's checks of `input_output_aliases`: indices in range, the same shape and dtype, the
    same layout."""
    if io is None:
        return ()
    out = []
    for i, o in sorted(io.items()):
        i, o = int(i), int(o)
        if i >= len(in_types):
            raise_user_error(ShardcValueError(
                f"input_output_aliases contains the mapping '{i}:{o}' with input index {i} outside the range "
                f"[0, {len(in_types)})."))
        if o >= len(results):
            raise_user_error(ShardcValueError(
                f"input_output_aliases contains the mapping '{i}:{o}' with output index {o} outside the range "
                f"[0, {len(results)})."))
        t, r = in_types[i], results[o]
        if t.shape != r.shape or t.dtype != r.dtype:
            raise_user_error(ShardcValueError(
                f"input_output_aliases contains the mapping '{i}:{o}' referring to an input with abstract value "
                f"{t} and an output with a different abstract value {r!r}."))
        if in_lay[i] != out_lay[o]:
            raise_user_error(ShardcValueError(
                f"input_output_aliases contains the mapping '{i}:{o}' referring to an input with layout "
                f"{in_lay[i]} and an output with a different layout {out_lay[o]}."))
        out.append((i, o))
    return tuple(out)
