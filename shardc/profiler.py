"""`shardc.profiler`, as `jax.profiler`: JAX's own profiler, re-exported.

shardc runs its programs on jaxlib's XLA client in this process, the runtime `jax.profiler`
traces, so a trace taken with these (`with sc.profiler.trace(dir):`, `start_trace` /
`stop_trace`, a profiler server for TensorBoard) shows shardc's compiled programs, their
collectives and the `sc.named_scope` names XLA keeps as op names. `TraceAnnotation` /
`StepTraceAnnotation` / `annotate_function` mark host-side spans; `device_memory_profile`
reports the live device buffers, shardc's arrays' among them (they are jaxlib arrays).
"""
from __future__ import annotations

from jax.profiler import (
    ProfileData,
    ProfileEvent,
    ProfileOptions,
    ProfilePlane,
    StepTraceAnnotation,
    TraceAnnotation,
    annotate_function,
    device_memory_profile,
    register_subprocess,
    save_device_memory_profile,
    start_server,
    start_trace,
    stop_server,
    stop_trace,
    trace,
)

__all__ = [
    "ProfileData", "ProfileEvent", "ProfileOptions", "ProfilePlane", "StepTraceAnnotation", "TraceAnnotation",
    "annotate_function", "device_memory_profile", "register_subprocess", "save_device_memory_profile",
    "start_server", "start_trace", "stop_server", "stop_trace", "trace",
]
