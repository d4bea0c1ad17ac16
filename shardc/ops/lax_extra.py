"""More of `jax.lax`'s public functions, each composed of existing primitives the way
JAX 0.10.2's source composes them (`shardc.lax` forwards these names here):

* `broadcast_like(arr, like)`: `broadcast_in_dim` to `like`'s shape and sharding (JAX's
  `lax.broadcast_to` with `like`'s sharding, and its error for an incompatible operand);
* `index_take(src, idxs, axes)`: one `gather` of the points `idxs` (wrapped modulo the dims);
* `empty(shape, dtype, *, out_sharding)`: zeros, which is what JAX's CPU lowering of
  `empty_p` emits (a broadcast zero);
* `stage(x)`: the value as an array of the current trace (identity on arrays);
* `optimization_barrier(pytree)`: one `optimization_barrier` over the flattened leaves;
* `pshuffle` / `pswapaxes`: `ppermute` / `all_to_all`, as JAX defines them;
* `platform_dependent(*args, default=None, **per_platform)`: a `switch` over the branches on
  the index of the platform shardc compiles for (JAX's `platform_index` lowers to that
  constant), every branch traced as in JAX; eagerly the chosen branch alone.

The description types (`Precision`, `DotAlgorithm`, `RandomAlgorithm`, ...) are JAX's own
objects, re-exported by `shardc.lax`: they describe arguments and do not compute.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import jax
import jax.tree_util as tu
import numpy as np

from .. import dtypes as dt
from ..core import api, bind, current_trace
from ..errors import ShardcNotImplementedError, ShardcTypeError, ShardcValueError
from ..lax import _same_dtype, _strict_rank, broadcast_in_dim, concatenate, expand_dims, reduced_scalar_reshard
from ..primitives import gather as gp
from ..primitives import remat as rp
from ..primitives import rng as rg
from ..runtime.host import default_backend
from ..sharding import PartitionSpec
from ._util import as_operand, is_array, to_spec, type_of
from .control_flow import switch
from .creation import asarray, zeros
from .elementwise import remainder
from .indexing import lax_gather
from .manual import all_to_all, ppermute

__all__ = ["broadcast_like", "index_take", "empty", "stage", "optimization_barrier", "pshuffle", "pswapaxes",
           "platform_dependent", "rng_bit_generator", "rng_uniform", "mulhi"]


def _array(x: Any) -> Any:
    x = as_operand(x)
    return x if is_array(x) else asarray(x)


def _type_str(shape: Sequence[int], dtype: np.dtype, spec: Sequence[Any]) -> str:
    dims = ",".join(f"{d}@{s if isinstance(s, str) else '(' + ','.join(s) + ')'}" if s else f"{d}"
                    for d, s in zip(shape, spec))
    return f"{dt.short_name(dtype)}[{dims}]"


@api("lax.broadcast_like")
def broadcast_like(arr, like_arr):
    """`arr` broadcast to `like_arr`'s shape and sharding (its sharding on every dim)."""
    x = _array(arr)
    t, like = type_of(x), type_of(like_arr)
    shape, spec = like.shape, tuple(like.spec)
    if t.shape == shape and tuple(t.spec) == spec:
        return x
    nlead = len(shape) - t.ndim
    ok = nlead >= 0 and all(a in (1, b) for a, b in zip(t.shape, shape[max(nlead, 0):])) and \
        all(a is None or a == b for a, b in zip(t.spec, spec[max(nlead, 0):]))
    if not ok:
        if nlead < 0:
            raise ShardcValueError(f"Cannot broadcast to shape with fewer dimensions: arr_shape={t.shape} "
                                   f"shape={shape}")
        raise ShardcValueError(f"Incompatible types for broadcasting: input type={t} and requested "
                               f"type={_type_str(shape, t.dtype, spec)}")
    return broadcast_in_dim(x, shape, tuple(range(nlead, len(shape))), out_sharding=PartitionSpec(*spec))


@api("lax.index_take")
def index_take(src, idxs, axes: Sequence[int]):
    """`src` at the points `idxs[k]` along `axes[k]` (wrapped modulo those dims): JAX's one gather."""
    src = _array(src)
    t = type_of(src)
    if list(axes) != sorted(axes):   # JAX's gather shape rule, as JAX words it for this caller
        raise ShardcTypeError(f"collapsed_slice_dims in gather op must be sorted; got {tuple(axes)}")
    cols = [expand_dims(_array(i), (1,)) for i in idxs]
    indices = concatenate(cols, 1)
    ti = type_of(indices)
    # JAX writes `indices % max_idx` on arrays: jnp's floor modulo, a NumPy int array (int32 without x64)
    max_idx = np.array([t.shape[ax] for ax in axes], np.int32).reshape((1,) * (ti.ndim - 1) + (-1,))
    indices = remainder(indices, max_idx)
    slice_sizes = list(t.shape)
    for ax in axes:
        slice_sizes[ax] = 1
    offset_dims = tuple(range(1, t.ndim - ti.shape[1] + 1))
    dnums = gp.GatherDimensionNumbers(offset_dims=offset_dims, collapsed_slice_dims=tuple(axes),
                                      start_index_map=tuple(axes))
    # JAX binds gather with its default mode, FILL_OR_DROP
    return lax_gather(src, indices, dnums, tuple(slice_sizes), mode="fill")


@api("lax.empty")
def empty(shape, dtype, *, out_sharding=None):
    """An array of `shape` (an int or a sequence) whose values are unspecified: zeros, as JAX's CPU lowering."""
    shape = (int(shape),) if np.ndim(shape) == 0 else tuple(int(d) for d in shape)
    return zeros(shape, dtype, out_sharding=to_spec(out_sharding))


@api("lax.stage")
def stage(x, /):
    """The value as an array of the current trace (identity on arrays; constants become arrays)."""
    return _array(x)


@api("lax.optimization_barrier")
def optimization_barrier(operand, /):
    """The identity on a pytree of arrays that XLA may not move computation across."""
    leaves, tree = tu.tree_flatten(operand)
    if not leaves:
        return operand
    outs = bind(rp.optimization_barrier, *[_array(x) for x in leaves])
    return tu.tree_unflatten(tree, list(outs) if isinstance(outs, (list, tuple)) else [outs])


@api("lax.pshuffle")
def pshuffle(x, axis_name, perm):
    """Device `perm[i]`'s value to device `i` along `axis_name` (a `ppermute`)."""
    if set(perm) != set(range(len(perm))):
        raise ShardcValueError(f"`perm` does not represent a permutation: {perm}")
    return ppermute(x, axis_name, list(zip(perm, range(len(perm)))))


@api("lax.pswapaxes")
def pswapaxes(x, axis_name, axis, *, axis_index_groups=None):
    """Swap the mapped axis `axis_name` with the positional `axis` (an `all_to_all` on `axis`)."""
    if axis_index_groups is not None:
        raise ShardcNotImplementedError("axis_index_groups is not supported in shard_map (as in JAX)")
    return all_to_all(x, axis_name, axis, axis)


@api("lax.platform_dependent")
def platform_dependent(*args: Any, default: Callable | None = None, **per_platform: Callable):
    """`per_platform[p](*args)` for the platform `p` this program runs on, else `default(*args)`.

    As JAX: inside a program every branch is traced (a `switch` on the platform's index, so the
    branches must agree in type) and the compiled program runs the chosen one; eagerly only the
    chosen branch runs."""
    branches: list[Callable] = []
    platforms: list[tuple[str, ...] | None] = []
    for name, fn in per_platform.items():
        if not callable(fn):
            raise ShardcTypeError(f"lax.platform_dependent: the '{name}' branch must be a callable.")
        if name == "gpu":
            raise ShardcValueError("Use 'cuda' or 'rocm' for lax.platform_dependent.")
        if fn in branches:
            k = branches.index(fn)
            platforms[k] = (*platforms[k], name)
        else:
            branches.append(fn)
            platforms.append((name,))
    if default is not None:
        if not callable(default):
            raise ShardcTypeError("lax.platform_dependent: the 'default' branch must be a callable.")
        branches.append(default)
        platforms.append(None)
    index = _platform_index(platforms)
    if current_trace() is None:
        return branches[index](*args)
    return switch(np.int32(index), branches, *args)


def _platform_index(platforms: list[tuple[str, ...] | None]) -> int:
    """The branch for the platform shardc compiles for (JAX's `platform_index` lowering)."""
    backend = default_backend()
    names = {"gpu": ("cuda", "rocm")}.get(backend, (backend,))
    for i, ps in enumerate(platforms):
        if ps is not None and any(p in names for p in ps):
            return i
    if None in platforms:
        return platforms.index(None)
    desc = ", ".join(f"({', '.join(repr(p) for p in ps)},)" for ps in platforms if ps)
    raise ShardcNotImplementedError(f"MLIR translation rule for primitive 'platform_index(platforms=({desc}))' "
                                    f"not found for platform {names[0]}")


_RBG_DTYPES = (dt.uint8, dt.uint16, dt.uint32)


@api("lax.rng_bit_generator")
def rng_bit_generator(key, shape, dtype=np.uint32, algorithm=jax.lax.RandomAlgorithm.RNG_DEFAULT, *,
                      out_sharding=None):
    """`(new_key, bits)`: XLA's generator (`algorithm`) on a `uint32[4]` key; `bits` is `dtype[shape]`."""
    shape = (int(shape),) if np.ndim(shape) == 0 else tuple(int(d) for d in shape)
    dtype = dt.canonicalize(dtype)
    if dtype not in _RBG_DTYPES:
        raise ShardcTypeError(f"rng_bit_generator: unsupported dtype {dtype}")
    return tuple(bind(rg.rng_bit_generator, _array(key), shape=shape, dtype=dtype,
                      algorithm=jax.lax.RandomAlgorithm(algorithm), out_sharding=to_spec(out_sharding)))


@api("lax.rng_uniform")
def rng_uniform(a, b, shape):
    """XLA's stateful uniform generator over [a, b) (JAX: experimental, use `random` instead)."""
    return bind(rg.rng_uniform, _array(a), _array(b), shape=tuple(int(d) for d in shape))


@api("lax.mulhi")
def mulhi(x, y, /):
    """The high half of each double-width integer product (no promotion: one integer dtype)."""
    _strict_rank("mulhi", x, y)
    x, y = _same_dtype("mulhi", x, y)
    return bind(rg.mulhi, *reduced_scalar_reshard([x, y]))
