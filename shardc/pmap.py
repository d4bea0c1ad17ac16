"""`sc.pmap`: JAX 0.10.2's `jax.pmap`, built as JAX builds it (jax/_src/pmap.py): a `shard_map`
over a one-axis Auto mesh of the first `axis_size` devices, each mapped argument split along its
`in_axes` dim (squeezed inside), each result stacked along its `out_axes` dim, under `jit`.

So ported data-parallel code runs unchanged, and its results are JAX's: an `sc.Array` on
`Mesh('i': n, axis_types=(Auto,))` with `P('i')` at the mapped dim (`P()` for `out_axes=None`)."""
from __future__ import annotations

import functools
from typing import Any, Callable, Hashable, Iterable, NamedTuple, Sequence

import jax.tree_util as tu
from jax._src.tree_util import (  # JAX's prefix rules and messages (pinned 0.10.2)
    broadcast_flattened_prefix_with_treedef,
    broadcast_prefix,
    prefix_errors,
)

from .core import Tracer, current_trace
from .errors import ShardcNotImplementedError, ShardcTypeError, ShardcValueError
from .lax import expand_dims, squeeze
from .mesh import AxisType, get_abstract_mesh
from .ops.manual import shard_map
from .runtime.host import devices as _all_devices
from .runtime.host import process_count
from .runtime.mesh import Mesh
from .sharding import NamedSharding, PartitionSpec
from .stages import jit

#: JAX's name for the axis of a pmap given no `axis_name` (it shows in the results' mesh)
_DEFAULT_AXIS = "_internal_pmap_axis_name"


def _is_leaf(x) -> bool:
    """Arrays (shardc's, traced or concrete) are leaves of argument and result trees."""
    return isinstance(x, Tracer) or getattr(x, "_shardc_type", None) is not None


def _index_tuple(x: int | Iterable[int]) -> tuple[int, ...]:
    """JAX's `_ensure_index_tuple`: an int or an iterable of ints, as a tuple."""
    try:
        return (int(x),)   # type: ignore[arg-type]
    except TypeError:
        return tuple(int(i) for i in x)   # type: ignore[union-attr]


def _rebase_donate(donate: tuple[int, ...], static: tuple[int, ...]) -> tuple[int, ...]:
    """JAX's `rebase_donate_argnums`: donated positions counted among the dynamic arguments."""
    if any(i in static for i in donate):
        raise ShardcValueError(f"Static arguments can not be donated. Got static_argnums={static} and "
                               f"donate_argnums={donate}")
    static_sorted = sorted(static)
    return tuple(i - sum(1 for s in static_sorted if s < i) for i in sorted(set(donate)))


def _leaves_are_axes(tree) -> bool:
    """JAX's check of in_axes / out_axes: every leaf a Python int (`None` is an empty subtree)."""
    return all(type(leaf) is int for leaf in tu.tree_leaves(tree))


class _Static:
    """A static broadcasted argument as a cache key: JAX's hashing with strict type equality
    (`1` and `1.0` are different programs)."""

    def __init__(self, value: Any, index: int, fname: str):
        try:
            self._hash = hash(value)
        except TypeError:
            raise ShardcValueError(
                "Non-hashable static arguments are not supported, as this can lead to unexpected cache-misses. "
                f"Static argument (index {index}) of type {type(value)} for function {fname} is "
                "non-hashable.") from None
        self.value = value

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other) -> bool:
        return isinstance(other, _Static) and type(self.value) is type(other.value) and self.value == other.value


class _Cached(NamedTuple):
    """One pmap instance (per argument structure, axes, donation, devices and static values):
    the shard_map and its two jits, with and without the mesh's shardings as JAX's."""
    mesh: Mesh
    jitted: Callable
    jitted_with_shardings: Callable


def _axes_to_pspec(axis_name: Hashable, axis: int | None) -> PartitionSpec:
    """JAX's `_axes_to_pspec`: the mapped dim sharded over the pmap's axis (`P()` when unmapped;
    a negative axis gives `P(axis_name)`, as JAX's list arithmetic does)."""
    if axis is None:
        return PartitionSpec()
    return PartitionSpec(*([None] * axis + [axis_name]))


def pmap(fun: Callable, axis_name: Hashable | None = None, *, in_axes: Any = 0, out_axes: Any = 0,
         static_broadcasted_argnums: int | Iterable[int] = (), devices: Sequence | None = None,
         backend: str | None = None, axis_size: int | None = None,
         donate_argnums: int | Iterable[int] = ()) -> Callable:
    """`jax.pmap` (JAX 0.10.2's signature and errors), on `sc.shard_map` and `sc.jit`:
    `fun` runs once per device on the slices of its mapped arguments; collectives name
    `axis_name`. Legacy in JAX too; kept so code written for it ports by its imports."""
    if devices is not None:
        if not devices:
            raise ShardcValueError("'devices' argument to pmap must be non-empty, or None.")
        devices = tuple(devices)
    if not callable(fun):
        raise ShardcTypeError(f"Expected a callable value, got {fun!r}")
    name = _DEFAULT_AXIS if axis_name is None else axis_name
    static = _index_tuple(static_broadcasted_argnums)
    donate = _rebase_donate(_index_tuple(donate_argnums), static)
    if not _leaves_are_axes(in_axes):
        raise ShardcTypeError("pmap in_axes must be an int, None, or (nested) container with those types as "
                              f"leaves, but got {in_axes}.")
    if not _leaves_are_axes(out_axes):
        raise ShardcTypeError("pmap out_axes must be an int, None, or (nested) container with those types as "
                              f"leaves, but got {out_axes}.")
    out_axes_flat, out_axes_tree = tu.tree_flatten(out_axes)
    fname = getattr(fun, "__name__", "<unnamed function>")
    cache: dict[tuple, _Cached] = {}

    def prepare(args: tuple, kwargs: dict) -> tuple[_Cached, Callable, list]:
        """The instance for these arguments and the flat dynamic arguments (JAX's `infer_params`)."""
        clean = current_trace() is None
        dyn_args, statics = _dynamic_args(args, static, fname)
        dyn_flat, dyn_tree = tu.tree_flatten((dyn_args, kwargs), is_leaf=_is_leaf)
        dyn_argnums = [i for i in range(len(args)) if i not in static] if static else None
        in_axes_flat = _in_axes_flat(in_axes, dyn_argnums, dyn_args, kwargs, dyn_tree)
        size = _mapped_axis_size(dyn_flat, in_axes_flat)
        donated = _donated(donate, dyn_tree, len(dyn_flat))
        mesh_devices = _mesh_devices(devices, backend, size, axis_size)
        key = (dyn_tree, in_axes_flat, donated, mesh_devices, statics)
        if key not in cache:
            cache[key] = _cached_shard_map(fun, statics, len(args), dyn_tree, in_axes_flat, tuple(out_axes_flat),
                                           out_axes_tree, donated, mesh_devices, name)
        cached = cache[key]
        if clean:   # JAX's errors from jit's in_shardings, checked before its shard_map is traced
            _check_context_mesh(cached.mesh)
            _check_divisible(dyn_flat, in_axes_flat, cached.mesh, name)
        return cached, cached.jitted_with_shardings if clean else cached.jitted, dyn_flat

    @functools.wraps(fun)
    def wrapped(*args, **kwargs):
        _, jitted, dyn_flat = prepare(args, kwargs)
        return jitted(*dyn_flat)

    def lower(*args, **kwargs):
        """`pmapped.lower(*args)`: the jitted shard_map's `Lowered` (as JAX's)."""
        _, jitted, dyn_flat = prepare(args, kwargs)
        return jitted.lower(*dyn_flat)

    wrapped.lower = lower   # type: ignore[attr-defined]
    return wrapped


def _dynamic_args(args: tuple, static: tuple[int, ...], fname: str) -> tuple[tuple, tuple]:
    """The positional arguments not static, and the static ones as hashable keys (JAX's
    `_get_dyn_args`, with its error when a static one is not passed positionally)."""
    if not static:
        return args, ()
    if max(static) >= len(args):
        raise ShardcValueError(
            f"pmapped function has static_broadcasted_argnums={static} but was called with only {len(args)} "
            f"positional argument{'s' if len(args) > 1 else ''}. All static broadcasted arguments must be "
            "passed positionally.")
    dyn = tuple(a for i, a in enumerate(args) if i not in static)
    statics = tuple((i, _Static(args[i], i, fname)) for i in sorted(set(static)) if i >= 0)
    return dyn, statics


def _in_axes_flat(in_axes, dyn_argnums: list[int] | None, dyn_args: tuple, kwargs: dict,
                  tree) -> tuple[int | None, ...]:
    """One in_axis per flat argument: `in_axes` a prefix of the positional arguments, keyword
    arguments mapped at 0 (JAX's `_get_in_axes_flat`, with its pytree error)."""
    dyn_in_axes = tuple(in_axes[i] for i in dyn_argnums) if dyn_argnums is not None and isinstance(in_axes, tuple) \
        else in_axes
    try:
        prefix, prefix_tree = tu.tree_flatten((dyn_in_axes, 0), is_leaf=lambda x: x is None)
        return tuple(broadcast_flattened_prefix_with_treedef(prefix, prefix_tree, tree))
    except ValueError:
        e, *_ = prefix_errors((dyn_in_axes, 0), (dyn_args, kwargs), is_leaf=_is_leaf)
        (msg,) = e("pmap in_axes").args
        msg += ("\n\nThe 'full pytree' here is the tuple of arguments passed positionally to the pmapped "
                "function, and the value of `in_axes` must be a tree prefix of that tuple. But it was not a "
                "prefix.")
        if kwargs:
            msg += ("\n\nWhen some arguments are passed by keyword to the pmapped function, they are not "
                    "included in the comparison to `in_axes`. Instead, each argument passed by keyword is "
                    "mapped over its leading axis. See the description of `in_axes` in the `pmap` docstring: "
                    "https://docs.jax.dev/en/latest/_autosummary/jax.pmap.html#jax.pmap")
        msg += ("\n\nCheck that the value of the `in_axes` argument to `pmap` is a tree prefix of the tuple "
                "of arguments passed positionally to the pmapped function.")
        raise ShardcValueError(msg) from None


def _mapped_axis_size(args: list, in_axes: tuple) -> int:
    """The size of the mapped axis, read from the first mapped argument (JAX's
    `_mapped_axis_size`: shard_map's split then checks the others)."""
    for arg, ax in zip(args, in_axes):
        if ax is not None and hasattr(arg, "shape"):
            return int(arg.shape[ax])
    raise ShardcValueError("pmap requires at least one argument with a mapped axis.")


def _donated(donate: tuple[int, ...], tree, n: int) -> tuple[bool, ...]:
    """Which flat arguments are donated: every leaf of each donated positional argument
    (keyword arguments never are, as in JAX)."""
    if not donate:
        return (False,) * n
    args_tree = tree.children()[0]
    out: list[bool] = []
    for i, sub in enumerate(args_tree.children()):
        out += [i in donate] * sub.num_leaves
    return tuple(out + [False] * (n - len(out)))


def _mesh_devices(devices: tuple | None, backend: str | None, size: int, axis_size: int | None) -> tuple:
    """The pmap's devices: the first `size` of `devices` (default: every device of `backend`),
    JAX's `_get_mesh_devices` for one process, with its error for a wrong `axis_size`."""
    if process_count(backend) > 1:   # JAX converts host-local arrays to global ones: not built here
        raise ShardcNotImplementedError("sc.pmap runs in one process; in a multi-process job use sc.shard_map "
                                        "over a mesh of every process's devices")
    if axis_size is not None and axis_size != size:
        raise ShardcValueError(f"Specified axis_size {axis_size} doesn't match received axis_size {size}.")
    pool = devices if devices is not None else tuple(_all_devices(backend))
    return tuple(pool[:size])


def _check_context_mesh(mesh: Mesh) -> None:
    """JAX's shard_map error for a pmap called under another context mesh (`sc.set_mesh`)."""
    ctx = get_abstract_mesh()
    if not ctx.empty and ctx != mesh.abstract_mesh:
        raise ShardcValueError(f"The context mesh {ctx} should match the mesh passed to shard_map {mesh}")


def _check_divisible(args: list, in_axes: tuple, mesh: Mesh, axis_name: Hashable) -> None:
    """JAX's IndivisibleError (jit's in_shardings) for a mapped argument whose spec'd dim is not
    a multiple of the devices: a mismatched leading dim, or JAX's `P(axis_name)` of a negative in_axis."""
    n = mesh.size
    for a, ax in zip(args, in_axes):
        shape = getattr(a, "shape", None)
        if ax is None or isinstance(a, Tracer) or shape is None:
            continue
        spec = _axes_to_pspec(axis_name, ax)
        dim = len(spec) - 1
        if dim < len(shape) and shape[dim] % n:
            factors = [n if d == dim else 1 for d in range(len(shape))]
            raise ShardcValueError(
                f"Sharding {NamedSharding(mesh, spec)!r} implies that array axis {dim} is partitioned {n} times, "
                f"but the dimension size is {shape[dim]} (full shape: {tuple(shape)}, per-dimension tiling "
                f"factors: {factors} should evenly divide the shape)")


def _cached_shard_map(fun: Callable, statics: tuple, nargs: int, in_tree, in_axes_flat: tuple,
                      out_axes_flat: tuple, out_axes_tree, donated: tuple[bool, ...], mesh_devices: tuple,
                      axis_name: Hashable) -> _Cached:
    """JAX's `_cached_shard_map`: the per-device body (squeeze the mapped dims, call `fun`,
    insert the out dims) as a shard_map over a one-axis Auto mesh, jitted."""
    mesh = Mesh(mesh_devices, (axis_name,), axis_types=(AxisType.Auto,))
    out_axes = tu.tree_unflatten(out_axes_tree, list(out_axes_flat))
    in_specs = tuple(_axes_to_pspec(axis_name, ax) for ax in in_axes_flat)
    out_specs = tu.tree_map(lambda ax: _axes_to_pspec(axis_name, ax), out_axes, is_leaf=lambda x: x is None)
    static_at = dict((i, s.value) for i, s in statics)

    def body(*flat_args):
        flat = [x if ax is None else squeeze(x, [ax]) for x, ax in zip(flat_args, in_axes_flat)]
        dyn_args, kwargs = tu.tree_unflatten(in_tree, flat)
        it = iter(dyn_args)
        args = [static_at[i] if i in static_at else next(it) for i in range(nargs)] if static_at else dyn_args
        out = fun(*args, **kwargs)
        out_flat, out_tree = tu.tree_flatten(out, is_leaf=_is_leaf)
        axes = broadcast_prefix(out_axes, out, is_leaf=lambda x: x is None)
        out_flat = [x if ax is None else expand_dims(x, [ax]) for x, ax in zip(out_flat, axes)]
        return tu.tree_unflatten(out_tree, out_flat)

    body.__name__ = getattr(fun, "__name__", "_fun")
    mapped = shard_map(body, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_vma=False,
                       axis_names={axis_name})
    donate_argnums = tuple(i for i, d in enumerate(donated) if d)
    in_shardings = tuple(NamedSharding(mesh, s) for s in in_specs)
    out_shardings = tu.tree_map(lambda s: NamedSharding(mesh, s), out_specs,
                                is_leaf=lambda s: isinstance(s, PartitionSpec))
    return _Cached(mesh, jit(mapped, donate_argnums=donate_argnums),
                   jit(mapped, donate_argnums=donate_argnums, in_shardings=in_shardings,
                       out_shardings=out_shardings))
