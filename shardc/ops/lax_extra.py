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
from ..lax import (
    _same_dtype,
    _strict_rank,
    bitwise_and,
    broadcast,
    broadcast_in_dim,
    broadcasted_iota,
    concatenate,
    cumsum,
    expand_dims,
    le,
    lt,
    reduced_scalar_reshard,
    select,
    slice_in_dim,
    transpose,
)
from ..mesh import get_abstract_mesh
from ..primitives import gather as gp
from ..primitives import remat as rp
from ..primitives import rng as rg
from ..primitives.elementwise import broadcasting_sharding_rule
from ..runtime.host import default_backend
from ..sharding import PartitionSpec
from . import incomplete as _inc
from ._util import as_operand, is_array, to_spec, type_of
from .control_flow import switch
from .creation import asarray, zeros
from .elementwise import remainder
from .indexing import lax_gather
from .lax_ops import dot_general
from .manual import all_to_all, ppermute

__all__ = ["broadcast_like", "index_take", "empty", "stage", "optimization_barrier", "pshuffle", "pswapaxes",
           "platform_dependent", "rng_bit_generator", "rng_uniform", "mulhi", "ragged_dot", "ragged_dot_general", "igamma", "igammac", "igamma_grad_a", "betainc"]


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


# --- ragged_dot ---------------------------------------------------------------------------------------
_RAGGED_NONCONTRACTING, _RAGGED_CONTRACTING, _RAGGED_BATCH = "noncontracting", "contracting", "batch"


def _remaining(n: int, *taken) -> list[int]:
    used = {d for t in taken for d in t}
    return [d for d in range(n) if d not in used]


def _ragged_mode(rank: int, dnums) -> tuple[str, int]:
    """JAX's `_ragged_dot_mode_and_dim`: the kind of the lhs ragged dim."""
    dim = dnums.lhs_ragged_dimensions[0]
    (lc, _), (lb, _) = dnums.dot_dimension_numbers
    free = _remaining(rank, lc, lb)
    if dim in free:
        return _RAGGED_NONCONTRACTING, dim
    if dim in lc:
        return _RAGGED_CONTRACTING, dim
    if dim in lb:
        return _RAGGED_BATCH, dim
    raise ShardcTypeError(f"lhs_ragged_dim {dim} not found in lhs_noncontracting {free}, lhs_contracting "
                          f"{tuple(lc)}, or lhs_batch {tuple(lb)}.")


def _prefix_dims(mode: str, rank: int, ragged: int, batch, contract) -> list[int]:
    """JAX's `_ragged_dot_prefix_dims`: the lhs dims `group_sizes` is batched over (before its group dim)."""
    batch, contract = list(batch), list(contract)
    free = _remaining(rank, contract, batch)
    if mode == _RAGGED_NONCONTRACTING:
        return batch + free[:free.index(ragged)]
    if mode == _RAGGED_CONTRACTING:
        return batch + contract[:contract.index(ragged)]
    return batch[:batch.index(ragged)]


def _check_ragged(tl, tr, tg, dnums) -> str:
    """JAX's `_ragged_dot_general_shape_rule` and dtype rule (its messages); returns the mode."""
    def in_range(dim, rank, dim_name, arg_name):
        if dim < 0 or dim >= rank:
            raise ShardcTypeError(f"ragged_dot_general requires {dim_name} numbers to be nonnegative and less "
                                  f"than the number of axes of the {arg_name} value, got {dim} for {arg_name} of "
                                  f"rank {rank}.")
    if len(dnums.lhs_ragged_dimensions) != 1:
        raise ShardcTypeError("ragged_dot_general expects exactly one lhs ragged dimension.")
    ragged = dnums.lhs_ragged_dimensions[0]
    in_range(ragged, tl.ndim, "lhs ragged dimension", "lhs")
    mode, _ = _ragged_mode(tl.ndim, dnums)
    (lc, rc), (lb, rb) = dnums.dot_dimension_numbers
    if tg.ndim == 0:
        raise ShardcTypeError("expected rank of group_sizes to be >=1.")
    if tg.ndim != 1:
        want = tuple(tl.shape[i] for i in _prefix_dims(mode, tl.ndim, ragged, lb, lc)) + (tg.shape[-1],)
        if tg.shape != want:
            raise ShardcTypeError(f"expected group_sizes to have shape {want}, got {tg.shape}.")
    groups = tg.shape[-1]
    rg = tuple(dnums.rhs_group_dimensions)
    if mode in (_RAGGED_CONTRACTING, _RAGGED_BATCH) and rg:
        raise ShardcTypeError("ragged_dot_general requires zero group dimensions in the rhs when lhs ragged "
                              "dimension is contracting or batch.")
    if mode == _RAGGED_NONCONTRACTING:
        if len(rg) != 1:
            raise ShardcTypeError("ragged_dot_general requires exactly one rhs group dimension when lhs ragged "
                                  "dimension is noncontracting.")
        in_range(rg[0], tr.ndim, "rhs group dimension", "rhs")
        if rg[0] in rb or rg[0] in rc:
            raise ShardcTypeError("ragged_dot_general requires rhs group dimension numbers to be distinct from "
                                  "contracting and batch dimensions.")
        if tr.shape[rg[0]] != groups:
            raise ShardcTypeError(f"expected rhs group dimension size to be {groups}, got {tr.shape[rg[0]]}.")
    if not dt.is_int(tg.dtype):
        raise ShardcTypeError("ragged_dot_general requires that group_sizes.dtype is subtype of np.integer.")
    return mode


def _ragged_to_dense(x, gs, dim: int, axes: Sequence[int]):
    """`x` ([..., m, ...], ragged along `dim`) as `[g, *x.shape]`: group i keeps the rows of `dim` in
    [start_i, end_i) of the cumulative `gs` (`[*x.shape[axes], g]`), zeros elsewhere; JAX's vmapped
    `ragged_to_dense`, with the same values."""
    tx, tg = type_of(x), type_of(gs)
    g = tg.shape[-1]
    shape = (g, *tx.shape)
    xb = broadcast_in_dim(x, shape, tuple(range(1, len(shape))))
    iota = broadcasted_iota(tg.dtype, shape, dim + 1)
    ends = cumsum(gs, axis=tg.ndim - 1)
    zero = broadcast_in_dim(np.zeros((), tg.dtype), (*tg.shape[:-1], 1), ())
    starts = concatenate([zero, slice_in_dim(ends, 0, g - 1, axis=tg.ndim - 1)], tg.ndim - 1)
    # gs dims: axes (in the order given), then the group dim -> result dims a + 1 and 0 (sorted for broadcast)
    targets = [a + 1 for a in axes] + [0]
    order = sorted(range(len(targets)), key=lambda i: targets[i])
    bdims = tuple(targets[i] for i in order)
    ends, starts = (broadcast_in_dim(transpose(v, order), shape, bdims) for v in (ends, starts))
    mask = bitwise_and(le(starts, iota), lt(iota, ends))
    return select(mask, xb, broadcast_in_dim(np.zeros((), tx.dtype), shape, ()))


@api("lax.ragged_dot_general")
def ragged_dot_general(lhs, rhs, group_sizes, ragged_dot_dimension_numbers, precision=None,
                       preferred_element_type=None, group_offset=None, out_sharding=None):
    """A dot whose lhs ragged dim is split into groups by `group_sizes` (JAX's three modes), computed as
    JAX lowers it: each group's rows masked into a dense `[g, ...]` operand, then one `dot_general`."""
    lhs, rhs, gs = _array(lhs), _array(rhs), _array(group_sizes)
    tl, tr, tg = type_of(lhs), type_of(rhs), type_of(gs)
    dnums = ragged_dot_dimension_numbers
    mode = _check_ragged(tl, tr, tg, dnums)
    mesh = get_abstract_mesh()
    if out_sharding is None and not mesh.empty:
        raise ShardcNotImplementedError("Explicit sharding inference for ragged_dot_general is not currently "
                                        "implemented. Please specify out_sharding.")
    if group_offset is not None:
        raise ShardcNotImplementedError("Unimplemented group_offset support.")
    ragged = dnums.lhs_ragged_dimensions[0]
    (lc, rc), (lb, rb) = (tuple(map(list, p)) for p in dnums.dot_dimension_numbers)
    prefix = _prefix_dims(mode, tl.ndim, ragged, lb, lc)
    if tg.ndim == 1 and prefix:
        gs = broadcast(gs, [tl.shape[i] for i in prefix])
    incr = lambda dims: [d + 1 for d in dims]  # noqa: E731
    kw = dict(precision=precision, preferred_element_type=preferred_element_type, out_sharding=out_sharding)
    if mode == _RAGGED_NONCONTRACTING:
        dense = _ragged_to_dense(lhs, gs, ragged, prefix)
        return dot_general(dense, rhs, ((incr(lc) + [0], rc + [dnums.rhs_group_dimensions[0]]), (incr(lb), rb)), **kw)
    if mode == _RAGGED_CONTRACTING:
        rragged = rc[lc.index(ragged)]
        rprefix = _prefix_dims(mode, tr.ndim, rragged, rb, rc)
        return dot_general(_ragged_to_dense(lhs, gs, ragged, prefix), _ragged_to_dense(rhs, gs, rragged, rprefix),
                           ((incr(lc), incr(rc)), ([0] + incr(lb), [0] + incr(rb))), **kw)
    return dot_general(lhs, rhs, ((lc, rc), (lb, rb)), **kw)


_BASIC_RAGGED = jax.lax.RaggedDotDimensionNumbers(dot_dimension_numbers=(([1], [1]), ([], [])),
                                                  lhs_ragged_dimensions=[0], rhs_group_dimensions=[0])


@api("lax.ragged_dot")
def ragged_dot(lhs, rhs, group_sizes, precision=None, preferred_element_type=None, group_offset=None,
               out_sharding=None):
    """`[m, k] x [g, k, n] -> [m, n]`: rows of lhs in group i (by `group_sizes`) multiply `rhs[i]`."""
    return ragged_dot_general(lhs, rhs, group_sizes, _BASIC_RAGGED, precision=precision,
                              preferred_element_type=preferred_element_type, group_offset=group_offset,
                              out_sharding=out_sharding)


# --- incomplete gamma and beta functions ----------------------------------------------------------------
def _float_nary(name: str, *xs):
    """JAX's `standard_naryop([_float, ...])` checks for a composed op: one rank (or scalars), one
    float dtype (constants take the arrays'), shapes that broadcast; the operands as arrays."""
    _strict_rank(name, *xs)
    for i, x in enumerate(xs):   # each array's dtype at its position, then one dtype (JAX's order)
        d = type_of(x).dtype
        if is_array(x) and not dt.is_float(d):
            raise ShardcTypeError(f"{name} does not accept dtype {d.name} at position {i}. Accepted dtypes "
                                  f"at position {i} are subtypes of floating.")
    xs = _same_dtype(name, *xs)
    ts = [type_of(x) for x in xs]
    if not dt.is_float(ts[0].dtype):
        raise ShardcTypeError(f"{name} does not accept dtype {ts[0].dtype.name} at position 0. Accepted dtypes "
                              f"at position 0 are subtypes of floating.")
    shapes = [t.shape for t in ts if t.shape]
    if shapes and any(len(s) != len(shapes[0]) or any(a != b and 1 not in (a, b) for a, b in zip(s, shapes[0]))
                      for s in shapes):
        raise ShardcTypeError(f"{name} got incompatible shapes for broadcasting: "
                              + ", ".join(str(s) for s in shapes) + ".")
    xs = [_array(x) for x in reduced_scalar_reshard(list(xs))]
    broadcasting_sharding_rule(name, [type_of(x) for x in xs])   # the n-ary sharding rule JAX's primitive runs
    return xs


@api("lax.igamma")
def igamma(a, x):
    """The regularized lower incomplete gamma function P(a, x)."""
    return _inc.igamma(*_float_nary("igamma", a, x))


@api("lax.igammac")
def igammac(a, x):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    return _inc.igammac(*_float_nary("igammac", a, x))


@api("lax.igamma_grad_a")
def igamma_grad_a(a, x):
    """d/da of P(a, x) (not itself differentiable, as in JAX)."""
    return _inc.igamma_grad_a(*_float_nary("igamma_grad_a", a, x))


@api("lax.betainc")
def betainc(a, b, x):
    """The regularized incomplete beta function I_x(a, b); differentiable in `x` only, as JAX's."""
    a, b, x = _float_nary("regularized_incomplete_beta", a, b, x)
    return _inc.betainc(_inc.no_grad_ab(a), _inc.no_grad_ab(b), x)
