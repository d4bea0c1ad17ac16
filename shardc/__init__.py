"""shardc: a compiler for sharded array programs with sharding types.

    import shardc as sc
    mesh = sc.make_mesh((2, 4), ("X", "Y"))
    with sc.set_mesh(mesh):
        x = sc.device_put(np.ones((8, 4)), sc.P("X", "Y"))
        print(sc.typeof(x))            # float32[8@X,4@Y]

The pipeline: `core` (primitives, tracing) → `ir` (typed IR) → `passes`
(type check) → `emit` (StableHLO + sdy) → `runtime` (XLA via jaxlib), driven
by `stages` (Traced → Lowered → Compiled).
"""
import os as _os

# Installed, `shardc.cli` is the top-level cli/ folder mapped into the package
# (setuptools package-dir). Run from a source checkout (the repository root on
# sys.path, as `python -m pytest` or `python -m ...` from the root do), make it
# findable the same way.
_root = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
if (not _os.path.isdir(_os.path.join(_os.path.dirname(__file__), "cli"))
        and _os.path.isfile(_os.path.join(_root, "cli", "__init__.py"))):
    __path__.append(_root)

from . import (
    ad_checkpoint,
    custom_batching,
    custom_derivatives,
    debug,
    experimental,
    export,
    ffi,
    image,
    lax,
    memory,
    nn,
    numpy,
    profiler,
    random,
    ref,
    scipy,
    tree,
    tree_util,
    typing,
)
from . import dtypes as _dtypes  # noqa: F401
from . import primitives as _primitives  # noqa: F401  (registers every primitive and its rules)
from . import solves as _solves  # noqa: F401  (registers lax.custom_linear_solve)
from .ad_api import fwd_and_bwd, linear_transpose
from .autodiff import grad, hessian, jacfwd, jacobian, jacrev, jvp, linearize, value_and_grad, vjp
from .batching import vectorize, vmap
from .callbacks import pure_callback
from .config import (  # the flags' context managers, as jax's
    allow_f16_reductions,
    array_garbage_collection_guard,
    auto_pcast,
    check_tracer_leaks,
    checking_leaks,
    config,
    debug_infs,
    debug_key_reuse,
    debug_nans,
    default_device,
    default_matmul_precision,
    default_prng_impl,
    enable_checks,
    enable_custom_prng,
    enable_x64,
    explain_cache_misses,
    jax2tf_associative_scan_reductions,
    legacy_prng_key,
    log_compiles,
    no_execution,
    no_tracing,
    numpy_dtype_promotion,
    numpy_rank_promotion,
    remove_size_one_mesh_axis_from_type,
    softmax_custom_jvp,
    thread_guard,
    threefry_partitionable,
    transfer_guard,
    transfer_guard_device_to_device,
    transfer_guard_device_to_host,
    transfer_guard_host_to_device,
)
from .core import ensure_compile_time_eval, typeof
from .custom_derivatives import closure_convert, custom_gradient
from .dtypes import bfloat16, bool_, float0, float16, float32, int8, int16, int32, uint8, uint16, uint32
from .errors import (
    ShardcAssertionError,
    ShardcAttributeError,
    ShardcError,
    ShardcInternalError,
    ShardcNotImplementedError,
    ShardcRuntimeError,
    ShardcTypeError,
    ShardcValueError,
    ShardingTypeError,
)
from .mesh import AbstractMesh, AxisType, get_abstract_mesh, use_abstract_mesh
from .ops import *  # noqa: F403
from .ops import __all__ as _ops_all
from .ops.custom import custom_jvp, custom_vjp
from .ops.remat import checkpoint, checkpoint_policies, remat
from .pmap import pmap
from .ref import Ref, ds, empty_ref, free_ref, freeze, new_ref
from .runtime import compile_cache as compilation_cache  # noqa: F401  (sc.compilation_cache, as jax's)
from .runtime import devices as _devices
from .runtime import distributed
from .runtime.array import Array, make_array_from_process_local_data
from .runtime.devices import set_cpu_device_count, set_platform
from .runtime.host import (
    Device,
    Shard,
    block_until_ready,
    copy_to_host_async,
    default_backend,
    device_count,
    devices,
    effects_barrier,
    host_count,
    host_id,
    host_ids,
    live_arrays,
    local_device_count,
    local_devices,
    make_array_from_callback,
    make_array_from_single_device_arrays,
    named_call,
    named_scope,
    print_environment_info,
    process_count,
    process_index,
    process_indices,
)
from .runtime.mesh import Mesh, get_mesh, make_mesh, set_mesh
from .runtime.visualize import visualize_array_sharding
from .shapes import ShapeDtypeStruct
from .sharding import NamedSharding, P, PartitionSpec
from .stages import (
    Compiled,
    Jit,
    Lowered,
    Traced,
    clear_caches,
    device_get,
    disable_jit,
    eval_shape,
    jit,
    make_jaxpr,
)
from .trace_context import make_user_context
from .types import ArrayType, parse_type

__version__ = "0.1.0"

__all__ = [
    "bfloat16", "bool_", "float16", "float32", "int8", "int16", "int32", "uint8", "uint16", "uint32",
    "ShardcAssertionError", "ShardcAttributeError", "ShardcError", "ShardcInternalError", "ShardcNotImplementedError",
    "ShardcRuntimeError", "ShardcTypeError", "ShardcValueError", "ShardingTypeError",
    "AbstractMesh", "AxisType", "Mesh", "get_abstract_mesh", "get_mesh", "make_mesh", "set_mesh",
    "use_abstract_mesh", "NamedSharding", "P", "PartitionSpec", "ArrayType", "parse_type", "typeof",
    "Array", "make_array_from_process_local_data", "set_cpu_device_count", "set_platform",
    "distributed", "visualize_array_sharding", "lax", "grad", "value_and_grad", "vjp", "jvp", "linearize", "jacfwd", "jacrev", "hessian", "vmap", "vectorize", "custom_jvp", "custom_vjp", "checkpoint", "checkpoint_policies", "remat", "ad_checkpoint", "tree", "tree_util",
    "Compiled", "Jit", "Lowered", "Traced", "jit", "eval_shape", "ShapeDtypeStruct", "device_get", "nn",
    "clear_caches", "disable_jit", "make_jaxpr", "Device", "Shard", "block_until_ready", "copy_to_host_async",
    "default_backend", "device_count", "devices", "host_count", "host_id", "host_ids", "live_arrays",
    "local_device_count", "local_devices", "make_array_from_callback", "make_array_from_single_device_arrays",
    "named_call", "named_scope", "process_count", "process_index", "process_indices", "jacobian", "effects_barrier",
    "print_environment_info", "custom_batching", "custom_derivatives", "custom_gradient", "closure_convert",
    "linear_transpose", "fwd_and_bwd", "ensure_compile_time_eval", "float0", "numpy", "random", "scipy", "typing", "config", "debug", "pure_callback", "experimental", *_ops_all,
]
__all__ += ["image", "profiler"]     # jax.image, jax.profiler
__all__ += ["export"]                # jax.export: serialized programs (export.py)
__all__ += ["ffi"]                   # jax.ffi: calls to XLA FFI targets (ffi.py)
__all__ += ["make_user_context"]     # a user value in every sc.jit cache key (trace_context.py)
__all__ += ["memory"]                # jax.memory: memory spaces (memory.py)
__all__ += ["pmap"]                  # jax.pmap: a jitted shard_map over a one-axis mesh (pmap.py)
__all__ += ["ref", "Ref", "new_ref", "empty_ref", "free_ref", "freeze", "ds"]   # mutable array references (ref.py)
#: JAX's flags as context managers (`with sc.enable_x64(False):`), shardc/config.py
__all__ += [
    "allow_f16_reductions", "array_garbage_collection_guard", "auto_pcast", "check_tracer_leaks", "checking_leaks",
    "debug_infs", "debug_key_reuse", "debug_nans", "default_device", "default_matmul_precision", "default_prng_impl",
    "enable_checks", "enable_custom_prng", "enable_x64", "explain_cache_misses", "jax2tf_associative_scan_reductions",
    "legacy_prng_key", "log_compiles", "no_execution", "no_tracing", "numpy_dtype_promotion", "numpy_rank_promotion",
    "remove_size_one_mesh_axis_from_type", "softmax_custom_jvp", "thread_guard", "threefry_partitionable",
    "transfer_guard", "transfer_guard_device_to_device", "transfer_guard_device_to_host",
    "transfer_guard_host_to_device",
]

_devices._configure_from_env()
