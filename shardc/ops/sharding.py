"""Sharding ops: `reshard` (change a sharding, with communication) and
`with_sharding_constraint` (an assertion on Explicit axes, a hint on Auto ones)."""
from __future__ import annotations

from typing import Any

from ..errors import ShardcAssertionError
from ..frontend.tracing import Tracer, api, bind, raise_user_error
from ..mesh import AxisType, get_abstract_mesh
from ..primitives import sharding_ops as so
from ..sharding import NamedSharding, PartitionSpec, UNCONSTRAINED
from ..types import check_spec, visible_entry
from ._util import as_operand, is_array, to_spec, type_of


@api("sc.reshard")
def reshard(x, spec):
    """Give `x` exactly the sharding `spec` (sharded, replicated, unreduced or
    reduced); XLA inserts the communication."""
    x = as_operand(x)
    if isinstance(spec, NamedSharding) and not is_array(x):
        from ..runtime.array import device_put
        return device_put(x, spec)
    p = to_spec(spec) if not isinstance(spec, NamedSharding) else spec.spec
    if not is_array(x):
        from .creation import asarray
        x = asarray(x)
    return bind(so.reshard, x, spec=p)


@api("sc.with_sharding_constraint")
def with_sharding_constraint(x, spec):
    """On an all-Explicit mesh: assert `x` already has `spec` (JAX's behaviour)."""
    x = as_operand(x)
    t = type_of(x)
    p = to_spec(spec) if not isinstance(spec, NamedSharding) else spec.spec
    mesh = t.mesh if not t.mesh.empty else get_abstract_mesh()
    if mesh.auto_axes:
        return bind(so.sharding_constraint, x, spec=p)
    try:
        check_spec(p, mesh, t.shape)
    except Exception as e:  # noqa: BLE001 - re-raised with the user's line
        raise_user_error(e, [t])
    want = tuple(visible_entry(e, mesh) for e in p) + (None,) * (t.ndim - len(p))
    if want != tuple(t.spec) or p.unreduced != t.unreduced or p.reduced != t.reduced:
        raise_user_error(ShardcAssertionError(
            "`with_sharding_constraint` acts as an assert when all axes of mesh are of type "
            f"`Explicit`. The array sharding: {t.pspec!r} did not match the sharding provided: "
            f"{p!r}. Please use `sc.reshard` to shard your input to the sharding you want."), [t])
    return x
