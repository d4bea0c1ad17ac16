"""`scaled_dot` (JAX's `jax._src.lax.scaled_dot.scaled_dot_p`): the block-scaled ("mx") dot
`(lhs * lhs_scale) @ (rhs * rhs_scale)`, each scale repeated along the contracting dims over
blocks of `operand_dim // scale_dim` elements.

Rules, as JAX 0.10.2's:
* shape/dtype (`_scaled_dot_validate_inputs`, `_scaled_dot_abstract_eval`): all four operands of
  one rank, equal batch dim sizes, equal contracting sizes, each scale's contracting dims
  dividing the operand's with a ratio of at least 2 and its other dims equal to the operand's
  (JAX's TypeErrors); no dtype check at all; the result is (batch, lhs free, rhs free) of
  `preferred_element_type` (bfloat16 by default), never weak.
* sharding: JAX's abstract eval builds a `ShapedArray` with no sharding, so on any mesh the
  traced type is replicated (`bfloat16[4,4]` from `f32[4@X,8] x f32[8,4@Y]`) and JAX's lowering
  constrains the composite's result to it; the operands' shardings still flow through the
  decomposition (below), whose sharding rules may refuse (a contracting dim sharded: the
  dot_general's "Contracting dimensions are sharded" ShardingTypeError, raised when the program
  is lowered, as JAX's `lower_fun` raises it). Its varying axes: none (JAX's `ShapedArray`).
* no JVP/VJP ("Differentiation rule for 'scaled_dot' not implemented"); batching: JAX's
  `_scaled_dot_batching_rule` (every operand's batch dim to the front, a new leading batch dim).
* lowering: JAX's `mlir.lower_fun(_scaled_dot_impl)` of a `lax.composite` named
  "xla.scaled_dot": a `stablehlo.composite` whose decomposition is a private function that
  broadcasts each scale along its contracting dims (expand_dims, broadcast, reshape), converts
  operands and scales to bfloat16, multiplies, and dots (`preferred_element_type`). The
  decomposition is traced from the operands' types when the equation is lowered (shardc's own
  rules on shardc's own primitives), so its intermediate shardings are JAX's.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as dt
from ..core import Primitive, Trace, bind, tracing
from ..emit.text import ttype
from ..errors import ShardcNotImplementedError, ShardcTypeError
from ..ir import Program
from ..mesh import _abstract_mesh_override
from ..sharding import PartitionSpec
from ..types import ArrayType
from . import elementwise as ew
from . import shape as sp
from .dot import dot_general

__all__ = ["scaled_dot_p", "validate"]

_EMPTY: frozenset = frozenset()


def _validate_operand_scale(side: str, operand: ArrayType, scale: ArrayType, contracting) -> None:
    for i, size in enumerate(operand.shape):
        if i in contracting:
            if size % scale.shape[i] != 0:
                raise ShardcTypeError(f"{side} contracting dim {i} of size {size} must be divisible by its scale's "
                                      f"dim size {scale.shape[i]}.")
            s = size // scale.shape[i]
            if s < 2:
                raise ShardcTypeError(f"The ratio of {side} contracting dim {i} to its scale's dim size ({s}) must be "
                                      "at least 2.")
        elif scale.shape[i] != size:
            raise ShardcTypeError(f"{side} dim {i} of size {size} does not match scale dim size {scale.shape[i]}.")


def validate(lhs: ArrayType, rhs: ArrayType, lhs_scale: ArrayType, rhs_scale: ArrayType, dimension_numbers) -> None:
    """JAX's `_scaled_dot_validate_inputs` (its TypeErrors, in its order)."""
    (lc, rc), (lb, rb) = dimension_numbers
    ndims = [lhs.ndim, rhs.ndim, lhs_scale.ndim, rhs_scale.ndim]
    if max(ndims) != min(ndims):
        raise ShardcTypeError(f"All input tensors must have the same rank. Got lhs rank: {lhs.ndim} rhs rank: "
                              f"{rhs.ndim} lhs_scale rank: {lhs_scale.ndim} rhs_scale rank: {rhs_scale.ndim}.")
    if len(lb) != len(rb):
        raise ShardcTypeError(f"LHS and RHS must have the same number of batch dimensions, got {len(lb)} and "
                              f"{len(rb)}.")
    if len(lc) != len(rc):
        raise ShardcTypeError(f"LHS and RHS must have the same number of contracting dimensions, got {len(lc)} and "
                              f"{len(rc)}.")
    for i, j in zip(lb, rb):
        sizes = [lhs.shape[i], rhs.shape[j], lhs_scale.shape[i], rhs_scale.shape[j]]
        if max(sizes) != min(sizes):
            raise ShardcTypeError(f"All input tensors must have the same batch dimension size for batch dims ({i}, "
                                  f"{j}).")
    for i, j in zip(lc, rc):
        if lhs.shape[i] != rhs.shape[j]:
            raise ShardcTypeError(f"LHS contracting dim {i} of size {lhs.shape[i]} does not match RHS contracting dim "
                                  f"{j} of size {rhs.shape[j]}.")
    _validate_operand_scale("LHS", lhs, lhs_scale, lc)
    _validate_operand_scale("RHS", rhs, rhs_scale, rc)


def _out_shape(lhs: ArrayType, rhs: ArrayType, dimension_numbers) -> tuple[int, ...]:
    (lc, rc), (lb, rb) = dimension_numbers
    lkept = sorted(i for i in range(lhs.ndim) if i not in lc and i not in lb)
    rkept = sorted(i for i in range(rhs.ndim) if i not in rc and i not in rb)
    return tuple([lhs.shape[i] for i in lb] + [lhs.shape[i] for i in lkept] + [rhs.shape[i] for i in rkept])


# --- the decomposition (JAX's `_scaled_dot_impl`), on shardc's primitives ----------------------
def _scale_broadcast(scale, operand_shape, contracting):
    """Each contracting dim of `scale` repeated up to the operand's (JAX's `_scale_broadcast`:
    expand_dims after it, broadcast, merge the two by a reshape)."""
    for i in contracting:
        t = scale.aval
        if t.shape[i] != operand_shape[i]:
            mult = operand_shape[i] // t.shape[i]
            spec = tuple(t.spec)
            expanded = t.shape[:i + 1] + (1,) + t.shape[i + 1:]
            scale = bind(sp.broadcast_in_dim, scale, shape=expanded,
                         broadcast_dimensions=tuple(d for d in range(len(expanded)) if d != i + 1),
                         out_sharding=_spec(spec[:i + 1] + (None,) + spec[i + 1:], t))
            wide = t.shape[:i + 1] + (mult,) + t.shape[i + 1:]
            scale = bind(sp.broadcast_in_dim, scale, shape=wide, broadcast_dimensions=tuple(range(len(wide))),
                         out_sharding=_spec(spec[:i + 1] + (None,) + spec[i + 1:], t))
            merged = t.shape[:i] + (t.shape[i] * mult,) + t.shape[i + 1:]
            scale = bind(sp.reshape, scale, new_sizes=merged)
    return scale


def _spec(entries: tuple, t: ArrayType):
    """An out_sharding for a broadcast on a mesh with Explicit axes (None elsewhere)."""
    return PartitionSpec(*entries) if t.mesh.has_explicit else None


def _to_bf16(x):
    if x.aval.dtype == dt.bfloat16:
        return x
    return bind(ew.convert_element_type, x, new_dtype=dt.bfloat16, weak_type=False)


def decomposition(lhs, rhs, lhs_scale, rhs_scale, *, dimension_numbers, preferred_element_type):
    (lc, rc), _ = dimension_numbers
    lhs_scale = _scale_broadcast(lhs_scale, lhs.aval.shape, lc)
    lhs_scaled = bind(ew.BINARY["mul"], _to_bf16(lhs), _to_bf16(lhs_scale))
    rhs_scale = _scale_broadcast(rhs_scale, rhs.aval.shape, rc)
    rhs_scaled = bind(ew.BINARY["mul"], _to_bf16(rhs), _to_bf16(rhs_scale))
    return bind(dot_general, lhs_scaled, rhs_scaled, dimension_numbers=dimension_numbers, out_sharding=None,
                preferred_element_type=preferred_element_type)


class ScaledDot(Primitive):
    """`scaled_dot_p(lhs, rhs, lhs_scale, rhs_scale; dimension_numbers, preferred_element_type)`."""

    name = "scaled_dot"

    def shape_rule(self, lhs, rhs, lhs_scale, rhs_scale, *, dimension_numbers, preferred_element_type=None):
        validate(lhs, rhs, lhs_scale, rhs_scale, dimension_numbers)
        out_dt = np.dtype(preferred_element_type) if preferred_element_type is not None else dt.bfloat16
        return [(_out_shape(lhs, rhs, dimension_numbers), out_dt, False)]

    def sharding_rule(self, lhs, rhs, lhs_scale, rhs_scale, *, dimension_numbers, preferred_element_type=None):
        return [(None,) * len(_out_shape(lhs, rhs, dimension_numbers))]

    def vma_rule(self, *ins: ArrayType, **params):
        return _EMPTY

    def vjp(self, L, g, ins, outs, **params):
        raise ShardcNotImplementedError("Differentiation rule for 'scaled_dot' not implemented")

    def batch(self, B, axis, args, dims, *, dimension_numbers, preferred_element_type=None):
        """JAX's `_scaled_dot_batching_rule`: batch dims to the front, one more batch dim (0)."""
        xs = [B.bdim_at_front(x, d, axis.size, axis.entry) for x, d in zip(args, dims)]
        (lc, rc), (lb, rb) = dimension_numbers
        sh = lambda ds: tuple(d + 1 for d in ds)
        dn = ((sh(lc), sh(rc)), ((0, *sh(lb)), (0, *sh(rb))))
        return B.bind(self, *xs, dimension_numbers=dn, preferred_element_type=preferred_element_type), 0

    def format_params(self, p: dict[str, Any]) -> str:
        pet = p.get("preferred_element_type")
        return f"dimension_numbers={p['dimension_numbers']}" + (f" preferred={dt.short_name(pet)}" if pet else "")

    def lower(self, ctx, eqn, lhs, rhs, lhs_scale, rhs_scale):
        in_types = [a.type for a in eqn.inputs]
        out_t = eqn.outputs[0].type
        prog = _decomposition_program(in_types, eqn.params)
        sym = _private_function(ctx, "xla.scaled_dot", prog)
        dn = eqn.params["dimension_numbers"]
        (lc, rc), (lb, rb) = dn
        lst = lambda ds: "[" + ", ".join(str(int(d)) for d in ds) + "]"
        pet = eqn.params.get("preferred_element_type")
        attrs = f"dimension_numbers = [[{lst(lc)}, {lst(rc)}], [{lst(lb)}, {lst(rb)}]]"
        attrs += f", preferred_element_type = {dt.mlir_name(pet if pet is not None else dt.bfloat16)}"
        args = ", ".join((lhs, rhs, lhs_scale, rhs_scale))
        return [ctx.op(f'stablehlo.composite "xla.scaled_dot" {args} {{composite_attributes = {{{attrs}}}, '
                       f"decomposition = {sym}}} : ({', '.join(ttype(t) for t in in_types)}) -> {ttype(out_t)}")]


def _decomposition_program(in_types: list[ArrayType], params: dict) -> Program:
    """The decomposition traced from the operands' types (JAX's `lower_fun` traces it at lowering)."""
    mesh = in_types[0].mesh
    inner = Trace(mesh, "xla.scaled_dot", frozenset(mesh.manual_axes), False)
    args = [inner.new_arg(t) for t in in_types]
    with tracing(inner), _abstract_mesh_override(mesh):   # (the operands' mesh: a shard_map body's view too)
        out = decomposition(*args, dimension_numbers=params["dimension_numbers"],
                            preferred_element_type=params.get("preferred_element_type"))
        atoms = [inner.atom(out)]
    return Program("xla.scaled_dot", inner.in_vars, inner.eqns, atoms, mesh)


def _private_function(ctx, base: str, prog: Program) -> str:
    """Lower `prog` into a `func.func private` of the module; its symbol (`@xla.scaled_dot`,
    `@xla.scaled_dot_0`, ... as JAX names repeated decompositions)."""
    funcs = ctx._shared.setdefault("funcs", [])
    names = ctx._shared.setdefault("func_names", set())
    name, k = base, 0
    while name in names:
        name, k = f"{base}_{k}", k + 1
    names.add(name)
    shared = dict(ctx._shared, lines=[], n=0)
    sub = type(ctx)(ctx.mesh, ctx.locations, "    ", shared)   # (a LowerCtx of its own lines)
    arg_names = [f"%arg{i}" for i in range(len(prog.in_vars))]
    outs = sub.lower_body(prog, arg_names)
    sig = ", ".join(f"{a}: {ttype(v.type)}" for a, v in zip(arg_names, prog.in_vars))
    rets = ", ".join(ttype(o.type) for o in prog.outputs)
    funcs.append(f"  func.func private @{name}({sig}) -> ({rets}) {{")
    funcs.extend(shared["lines"])
    funcs.append(f"    return {', '.join(outs)} : {rets}")
    funcs.append("  }")
    return f"@{name}"


scaled_dot_p = ScaledDot()
