"""`reshard` (change a value's sharding, with communication) and
`sharding_constraint` (a hint on Auto axes). JAX rules §2.14, §3.1."""
from __future__ import annotations

from ..sharding import PartitionSpec
from ..types import ArrayType
from .core import Primitive
from .shape import out_sharding_entries


class Reshard(Primitive):
    """The only sanctioned way to change a sharding: the output type is exactly
    `spec` (partitions, unreduced, reduced) on the context mesh (which may be a
    `use_abstract_mesh` view of the same devices). Lowers to a constraint; XLA
    moves the data."""

    name = "reshard"
    changes_mesh = True

    def shape_rule(self, x: ArrayType, *, spec: PartitionSpec, mesh):
        return [(x.shape, x.dtype, x.weak_type)]

    def sharding_rule(self, x: ArrayType, *, spec: PartitionSpec, mesh):
        return [out_sharding_entries(spec, x.shape, mesh)]

    def ur_rule(self, x: ArrayType, *, spec: PartitionSpec, mesh):
        return [(spec.unreduced, spec.reduced)]

    def vma_rule(self, x: ArrayType, **_):
        return [x.vma]

    def vjp(self, g, ins, outs, *, spec, mesh):
        from ..frontend.tracing import bind
        from ..passes.ad import ct_spec
        t = ins[0].aval
        return [bind(reshard, g, spec=ct_spec(t), mesh=t.mesh)]

    def format_params(self, p):
        return f"spec={p['spec']!r}"

    def lower(self, ctx, eqn, x):
        return [ctx.reshard(x, eqn.inputs[0].type, eqn.outputs[0].type)]


reshard = Reshard()


class ShardingConstraint(Primitive):
    """`with_sharding_constraint` on a mesh with Auto axes: a hint to XLA for
    the Auto axes (Explicit axes must already agree with the type)."""

    name = "sharding_constraint"
    constrain_outputs = False

    def shape_rule(self, x: ArrayType, *, spec: PartitionSpec):
        return [(x.shape, x.dtype, x.weak_type)]

    def sharding_rule(self, x: ArrayType, *, spec: PartitionSpec):
        return [x.spec]

    def ur_rule(self, x: ArrayType, *, spec: PartitionSpec):
        return [(x.unreduced, x.reduced)]

    def vjp(self, g, ins, outs, **_):
        return [g]

    def format_params(self, p):
        return f"spec={p['spec']!r}"

    def lower(self, ctx, eqn, x):
        return [ctx.constrain_spec(x, eqn.inputs[0].type, eqn.params["spec"])]



class MeshCast(Primitive):
    """Re-type a value onto a mesh whose axis types differ (entering/leaving
    `auto_axes` / `explicit_axes`); XLA sees a constraint in the new mesh's style."""

    name = "mesh_cast"
    changes_mesh = True

    def shape_rule(self, x: ArrayType, *, spec: PartitionSpec, mesh):
        return [(x.shape, x.dtype, x.weak_type)]

    def sharding_rule(self, x: ArrayType, *, spec: PartitionSpec, mesh):
        return [out_sharding_entries(spec, x.shape, mesh)]

    def ur_rule(self, x: ArrayType, *, spec: PartitionSpec, mesh):
        return [(spec.unreduced, spec.reduced)]

    def vma_rule(self, x: ArrayType, **_):
        return [x.vma]

    def vjp(self, g, ins, outs, *, spec, mesh):
        from ..frontend.tracing import bind
        from ..passes.ad import ct_spec
        t = ins[0].aval
        return [bind(mesh_cast, g, spec=ct_spec(t), mesh=t.mesh)]

    def format_params(self, p):
        return f"spec={p['spec']!r} axis_types={p['mesh'].str_axis_types()}"

    def lower(self, ctx, eqn, x):
        return [x]


mesh_cast = MeshCast()


sharding_constraint = ShardingConstraint()


class Copy(Primitive):
    """Identity: gives a value a fresh variable (used by autodiff so each
    differentiated argument has its own cotangent)."""

    name = "copy"
    constrain_outputs = False

    def shape_rule(self, x: ArrayType):
        return [(x.shape, x.dtype, x.weak_type)]

    def sharding_rule(self, x: ArrayType):
        return [x.spec]

    def ur_rule(self, x: ArrayType):
        return (x.unreduced, x.reduced)

    def vjp(self, g, ins, outs):
        return [g]

    def lower(self, ctx, eqn, x):
        return [x]


copy_p = Copy()
