"""`reshard` (change a value's sharding, with communication),
`sharding_constraint` (a hint on Auto axes) and `mesh_cast` (enter/leave an
`auto_axes` / `explicit_axes` region). JAX rules §2.14, §2.15, §3.1."""
from __future__ import annotations

from ..core import Primitive, bind, check_explicit_spec
from ..emit.text import ttype
from ..errors import ShardcValueError
from ..mesh import AxisType
from ..sharding import MemorySpace, PartitionSpec, entry_axes, mem_space_to_kind
from ..transforms.ad import ct_spec
from ..types import ArrayType
from .shape import out_sharding_entries


class Reshard(Primitive):
    """The only sanctioned way to change a sharding: the output type is exactly
    `spec` (partitions, unreduced, reduced) on the context mesh (which may be a
    `use_abstract_mesh` view of the same devices). Lowers to a constraint; XLA
    moves the data."""

    name = "reshard"
    changes_mesh = True

    def shape_rule(self, x: ArrayType, *, spec: PartitionSpec, mesh):
        check_explicit_spec(spec, mesh, "reshard")
        return [(x.shape, x.dtype, x.weak_type)]

    def sharding_rule(self, x: ArrayType, *, spec: PartitionSpec, mesh):
        return [out_sharding_entries(spec, x.shape, mesh)]

    def ur_rule(self, x: ArrayType, *, spec: PartitionSpec, mesh):
        return [(spec.unreduced, spec.reduced)]

    def vma_rule(self, x: ArrayType, **_):
        return [x.vma]

    def memory_space_rule(self, x: ArrayType, **_):
        return [x.memory_space]   # JAX's `x.update(sharding=...)`: the memory stays (rank 0 too)

    def batch(self, B, axis, args, dims, *, spec, mesh):
        """JAX's `_reshard_batcher`: the target spec gets the vmap's batch-dim entry."""
        d = dims[0]
        entry = axis.entry if axis.ema and all(mesh.axis_type(a) == AxisType.Explicit for a in axis.ema) else None
        return B.bind(self, args[0], spec=B.insert_spec(spec, d, entry), mesh=mesh), d

    def vjp(self, L, g, ins, outs, *, spec, mesh):
        t = ins[0].aval
        return [bind(self, g, spec=ct_spec(t), mesh=t.mesh)]

    def format_params(self, p):
        return f"spec={p['spec']!r}"

    def lower(self, ctx, eqn, x):
        return [ctx.reshard(x, eqn.inputs[0].type, eqn.outputs[0].type)]


reshard = Reshard()


def constraint_spec(x: ArrayType, spec: PartitionSpec) -> PartitionSpec:
    """What `with_sharding_constraint(x, spec)` pins on a mesh with Auto axes
    (JAX's `_sharding_constraint_hlo_lowering`): when the type shards no dim,
    `spec` itself (`P.UNCONSTRAINED` dims open); otherwise, per dim, the type's
    Explicit axes then the user's Auto axes, all closed (JAX normalizes
    `P.UNCONSTRAINED` to None in that case, so those dims are pinned too)."""
    ents = tuple(spec) + (None,) * (x.ndim - len(spec))
    if all(e is None for e in x.spec):
        return PartitionSpec(*ents, unreduced=spec.unreduced)
    out = []
    for user, have in zip(ents, x.spec):
        axes = entry_axes(have) + entry_axes(user)
        out.append(None if not axes else (axes[0] if len(axes) == 1 else axes))
    return PartitionSpec(*out, unreduced=spec.unreduced)


class ShardingConstraint(Primitive):
    """`with_sharding_constraint` on a mesh with Auto axes: `spec` names Auto
    axes only (checked by the op); the type is unchanged and XLA is held to
    `constraint_spec`."""

    name = "sharding_constraint"
    constrain_outputs = False

    def shape_rule(self, x: ArrayType, *, spec: PartitionSpec):
        return [(x.shape, x.dtype, x.weak_type)]

    def sharding_rule(self, x: ArrayType, *, spec: PartitionSpec):
        return [x.spec]

    def ur_rule(self, x: ArrayType, *, spec: PartitionSpec):
        return [(x.unreduced, x.reduced)]

    def vma_rule(self, x: ArrayType, **_):
        return [x.vma]

    def batch(self, B, axis, args, dims, *, spec):
        """JAX's `_sharding_constraint_batcher`: the batch dim is left unconstrained, or
        constrained to `spmd_axis_name` (which the spec must not use)."""
        d = dims[0]
        if axis.spmd_name:
            used = {a for e in spec for a in entry_axes(e)}
            if set(axis.spmd_name) & used:
                raise ShardcValueError(f"vmap spmd_axis_name {axis.spmd_name} cannot appear in "
                                       f"with_sharding_constraint spec, but got spec {spec!r}")
            entry = axis.spmd_name[0] if len(axis.spmd_name) == 1 else tuple(axis.spmd_name)
        else:
            entry = PartitionSpec.UNCONSTRAINED
        return B.bind(self, args[0], spec=B.insert_spec(spec, d, entry)), d

    def vjp(self, L, g, ins, outs, **_):
        return [g]

    def format_params(self, p):
        return f"spec={p['spec']!r}"

    def lower(self, ctx, eqn, x):
        t = eqn.inputs[0].type
        return [ctx.constrain_spec(x, t, constraint_spec(t, eqn.params["spec"]))]


sharding_constraint = ShardingConstraint()


class MeshCast(Reshard):
    """Re-type a value onto a mesh whose axis types differ (entering/leaving
    `auto_axes` / `explicit_axes`): a `reshard` whose destination mesh is the
    region's (JAX uses `reshard` under `use_abstract_mesh`); XLA sees a
    constraint in the new mesh's style."""

    name = "mesh_cast"

    def format_params(self, p):
        return f"spec={p['spec']!r} axis_types={p['mesh'].str_axis_types()}"


mesh_cast = MeshCast()


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

    def memory_space_rule(self, x: ArrayType):
        return x.memory_space

    def batch(self, B, axis, args, dims):
        return B.bind(self, args[0]), dims[0]

    def vjp(self, L, g, ins, outs):
        return [g]

    def lower(self, ctx, eqn, x):
        return [x]


copy_p = Copy()


class StopGradient(Copy):
    """`lax.stop_gradient`: the identity whose cotangent is zero (no cotangent
    flows to its operand). Types, U/R and varying axes pass through."""

    name = "stop_gradient"

    def vjp(self, L, g, ins, outs):
        return [None]


stop_gradient_p = StopGradient()


class DevicePut(Primitive):
    """`device_put(x, memory_space)` inside a program: the value moves to another memory
    (`jax.memory.Space`, or a sharding's `memory_kind`); only the type's memory space changes
    (JAX's `update_dp_aval`). The layout part of a `device_put` is a `reshard` before it.
    `jit_out=True` marks the one `sc.jit(out_shardings=)` puts on a result: its memory is
    annotated on every mesh (JAX's out sharding with a memory kind)."""

    name = "device_put"
    constrain_outputs = False

    def shape_rule(self, x: ArrayType, *, space: MemorySpace, **_):
        return [(x.shape, x.dtype, x.weak_type)]

    def sharding_rule(self, x: ArrayType, *, space: MemorySpace, **_):
        return [x.spec]

    def ur_rule(self, x: ArrayType, *, space: MemorySpace, **_):
        return (x.unreduced, x.reduced)

    def vma_rule(self, x: ArrayType, *, space: MemorySpace, **_):
        return x.vma

    def memory_space_rule(self, x: ArrayType, *, space: MemorySpace, **_):
        return space

    def batch(self, B, axis, args, dims, *, space, **params):
        return B.bind(self, args[0], space=space, **params), dims[0]

    def vjp(self, L, g, ins, outs, *, space, **_):
        """JAX's `_device_put_transpose`: the cotangent goes back to the operand's memory."""
        return [bind(self, g, space=ins[0].aval.memory_space)]

    def format_params(self, p):
        return f"space={p['space'].name}"

    def lower(self, ctx, eqn, x):
        """On CPU JAX lowers it to nothing (`_common_device_put_lowering`): the program's
        arguments and results carry the memory kinds. On GPU/TPU, JAX's
        `annotate_device_placement` custom call tells XLA where the value goes."""
        if ctx.platform == "cpu":
            return [x]
        t = eqn.outputs[0].type
        kind = mem_space_to_kind(t.memory_space)
        return [ctx.op(f'stablehlo.custom_call @annotate_device_placement({x}) {{backend_config = "", '
                       f'has_side_effect = true, mhlo.frontend_attributes = {{_xla_buffer_placement = "{kind}"}}}} : '
                       f"({ttype(eqn.inputs[0].type)}) -> {ttype(t)}")]


device_put_p = DevicePut()
