"""`sc.smap`, as `jax.smap`: a `shard_map` over one mesh axis, written with vmap-style
`in_axes` / `out_axes` instead of partition specs.

`in_axes=k` maps dimension k of an argument over `axis_name` (the spec
`P(None, ..., axis_name)` with k leading Nones), `None` passes it whole; `out_axes`
likewise for the results. Omitted `in_axes` (JAX's `Infer`) takes the arguments'
own shardings on `axis_name`, which needs that axis to be Explicit, as in JAX.
"""
from __future__ import annotations

import functools
from typing import Any, Callable

import jax.tree_util as tu

from ..core import raise_user_error
from ..errors import ShardcTypeError
from ..mesh import AxisType, get_abstract_mesh
from ..sharding import PartitionSpec
from .manual import INFER, shard_map

__all__ = ["smap"]


class _InferFromArgs:
    def __repr__(self) -> str:
        return "Infer"


#: `in_axes` left out: take the arguments' shardings (JAX's `jax.sharding.Infer`)
Infer = _InferFromArgs()


def smap(f: Callable | None = None, /, *, in_axes: Any = Infer, out_axes: Any, axis_name: str):
    """`f` mapped over the mesh axis `axis_name`, one shard per instance (see the module)."""
    _check_axes(in_axes, out_axes, axis_name)
    if f is None:
        return lambda g: smap(g, in_axes=in_axes, out_axes=out_axes, axis_name=axis_name)
    out_specs = _specs(out_axes, axis_name)
    in_specs = INFER if in_axes is Infer else _specs(in_axes, axis_name)

    @functools.wraps(f)
    def mapped(*args):
        if in_axes is Infer:
            _check_infer(axis_name)
        return shard_map(f, in_specs=in_specs, out_specs=out_specs, axis_names={axis_name})(*args)

    return mapped


def _specs(axes: Any, axis_name: str) -> Any:
    """JAX's `_axes_to_pspec` over a pytree of axes (None leaves included)."""
    return tu.tree_map(lambda k: PartitionSpec() if k is None else PartitionSpec(*[None] * k, axis_name),
                       axes, is_leaf=lambda x: x is None)


def _check_axes(in_axes: Any, out_axes: Any, axis_name: Any) -> None:
    """JAX's argument checks, with its messages (TypeErrors, at definition)."""
    if isinstance(axis_name, (list, tuple)):
        raise ShardcTypeError(f"smap axis_name should be a `str` or a `Hashable`, but got {axis_name}")
    if in_axes is not None and in_axes is not Infer and not isinstance(in_axes, (int, tuple)):
        raise ShardcTypeError(
            "smap in_axes must be an int, None, jax.sharding.Infer, or a tuple of entries corresponding to the "
            f"positional arguments passed to the function, but got {in_axes}.")
    if in_axes is not Infer and not all(isinstance(k, int) for k in tu.tree_leaves(in_axes)):
        raise ShardcTypeError("smap in_axes must be an int, None, jax.sharding.Infer, or (nested) container with "
                              f"those types as leaves, but got {in_axes}.")
    if not all(isinstance(k, int) for k in tu.tree_leaves(out_axes)):
        raise ShardcTypeError("smap out_axes must be an int, None, or (nested) container with those types as "
                              f"leaves, but got {out_axes}.")


def _check_infer(axis_name: str) -> None:
    """Inferring in_axes reads Explicit types: another axis type needs them written out."""
    mesh = get_abstract_mesh()
    if axis_name in mesh.axis_names and mesh.axis_type(axis_name) != AxisType.Explicit:
        raise_user_error(ShardcTypeError(
            f"in_axes was not specified when axis_name=frozenset({{{axis_name!r}}}) was of type "
            f"{mesh.axis_type(axis_name)}"))
