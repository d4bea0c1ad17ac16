"""`reshard` (change a value's sharding, with communication) and
`sharding_constraint` (a hint on Auto axes). JAX rules §2.14, §3.1."""
from __future__ import annotations

from ..sharding import PartitionSpec
from ..types import ArrayType
from .core import Primitive
from .shape import out_sharding_entries


class Reshard(Primitive):
    """The only sanctioned way to change a sharding: the output type is exactly
    `spec` (partitions, unreduced, reduced). Lowers to a constraint; XLA moves data."""

    name = "reshard"

    def shape_rule(self, x: ArrayType, *, spec: PartitionSpec):
        return [(x.shape, x.dtype, x.weak_type)]

    def sharding_rule(self, x: ArrayType, *, spec: PartitionSpec):
        return [out_sharding_entries(spec, x.shape, x.mesh)]

    def ur_rule(self, x: ArrayType, *, spec: PartitionSpec):
        return [(spec.unreduced, spec.reduced)]

    def format_params(self, p):
        return f"spec={p['spec']!r}"

    def lower(self, ctx, eqn, x):
        return [ctx.reshard(x, eqn.inputs[0].type, eqn.outputs[0].type)]


reshard = Reshard()


class ShardingConstraint(Primitive):
    """`with_sharding_constraint` where it is more than an assertion (Auto axes)."""

    name = "sharding_constraint"

    def shape_rule(self, x: ArrayType, *, spec: PartitionSpec):
        return [(x.shape, x.dtype, x.weak_type)]

    def sharding_rule(self, x: ArrayType, *, spec: PartitionSpec):
        return [out_sharding_entries(spec, x.shape, x.mesh)]

    def ur_rule(self, x: ArrayType, *, spec: PartitionSpec):
        return [(x.unreduced, x.reduced)]

    def format_params(self, p):
        return f"spec={p['spec']!r}"

    def lower(self, ctx, eqn, x):
        return [x]


sharding_constraint = ShardingConstraint()
