"""Primitives: one definition per operation, holding all of its rules.

| file | primitives |
|---|---|
| `elementwise.py` | unary math (incl. `square`, `erf_inv`), binary arithmetic/comparison, `convert_element_type`, `integer_pow`, `select_n` |
| `bitwise.py` | `shift_left`, `shift_right_logical`, `shift_right_arithmetic`, `bitcast_convert_type`, `population_count`, `clz` |
| `shape.py` | `broadcast_in_dim`, `reshape`, `transpose`, `squeeze`, `rev`, `concatenate`, `slice`, `dynamic_slice`, `dynamic_update_slice`, `pad`, `iota` |
| `reductions.py` | `reduce_{sum,max,min,prod,and,or}`, `argmax`, `argmin`, `cumsum`/`cumprod`/`cummax`/`cummin` |
| `dot.py` | `dot_general` |
| `conv.py` | `conv_general_dilated` (n-d convolution: strides, padding, dilations, feature/batch groups) |
| `sharding_ops.py` | `reshard`, `mesh_cast`, `sharding_constraint`, `copy`, `stop_gradient` |
| `collectives.py` | `psum`/`pmax`/`pmin`, `all_gather`, `psum_scatter`, `ppermute`, `all_to_all`, `axis_index`, the `pcast` family |
| `shard_map.py` | `shard_map` (a nested per-device body over Manual axes) |
| `gather.py` | `gather`, the scatter family `scatter`, `scatter_{add,sub,mul,min,max,apply}` (indexing with arrays, `take`, `x.at[...]`) |
| `sort.py` | `sort` (multi-operand, stable, `num_keys`), `top_k` |
| `callback.py` | `debug_callback` (a host callback: `sc.debug.print`, `sc.debug.callback`) |
| `ffi_call.py` | `ffi_call`, `ffi_call_effect` (a call to an XLA FFI target: `sc.ffi.ffi_call`) |
| `complex.py` | `real`, `imag`, `complex`, `conj` (complex numbers' parts) |
| `fft.py` | `fft` (FFT / IFFT / RFFT / IRFFT over the trailing dims) |
| `special.py` | `lgamma`, `digamma`, `erfc`, `polygamma`, `zeta`, `nextafter`, `bessel_i1e` (chlo special functions), `bessel_i0e` (Cephes series, as JAX lowers it) |
| `windowed.py` | `reduce_window_{sum,max,min}`, the generic `reduce_window` (a reducer body), `select_and_scatter_add`, `select_and_gather_add` (pooling and its VJPs) |
| `reduce_generic.py` | the generic `reduce` (a reducer body), `reduce_xor`, `reduce_precision`, `approx_top_k` |
| `prefix_scan.py` | JAX's parallel prefix scan (`associative_scan`; the cumulative ops' VJPs), not a primitive |
| `control_flow.py` | `cond`, `while`, `scan` (nested bodies with typed carries) |
| `custom.py` | `custom_vjp_call`, `custom_jvp_call` (user-defined derivative rules) |
| `remat.py` | `checkpoint`, `name`, `optimization_barrier` (rematerialization) |
| `rng.py` | `rng_bit_generator`, `rng_uniform` (XLA's generators), `mulhi` |
| `linalg.py` | `cholesky`, `triangular_solve`, `lu`, `qr`, `eigh`, `svd` (LAPACK / cuSOLVER FFI custom calls) |
| `linalg_update.py` | `cholesky_update` (rank-1 update of a Cholesky factor: Givens rotations, as JAX lowers it) |
| `scaled_dot.py` | `scaled_dot` (the block-scaled dot: a `stablehlo.composite` with JAX's decomposition) |
"""
from ..core import REGISTRY, register_vary_prims
from ..transforms import ad, batching
from . import (
    bitwise,
    callback,
    collectives,
    complex,
    control_flow,
    conv,
    custom,
    dot,
    elementwise,
    ffi_call,
    fft,
    gather,
    linalg,
    linalg_update,
    reduce_generic,
    reductions,
    remat,
    rng,
    scaled_dot,
    shape,
    shard_map,
    sharding_ops,
    sort,
    special,
    windowed,
)

__all__ = ["REGISTRY", "bitwise", "callback", "collectives", "complex", "control_flow", "custom", "dot", "elementwise", "fft", "gather", "reductions", "remat",
           "shape", "shard_map", "sharding_ops", "sort", "special", "windowed", "reduce_generic"]
__all__ += ["conv"]
__all__ += ["linalg"]
__all__ += ["linalg_update"]
__all__ += ["scaled_dot"]
__all__ += ["rng"]
__all__ += ["ffi_call"]

# Each primitive's VJP rule is its class's `vjp` method, in its own file; the
# reverse-mode table (`transforms/ad.py`) is filled from them here, once.
for _prim in REGISTRY.values():
    if getattr(type(_prim), "vjp", None) is not None:
        ad.defvjp(_prim, _prim.vjp)

# Each primitive's batching rule is its class's `batch` method, registered the same way
# into the batching table (`transforms/batching.py`).
for _prim in REGISTRY.values():
    if getattr(type(_prim), "batch", None) is not None:
        batching.defbatch(_prim, _prim.batch)

# JAX's auto pcast (inside shard_map bodies) inserts these casts from `core.bind`.
register_vary_prims(collectives.pvary, collectives.reduced_vary_cast)
