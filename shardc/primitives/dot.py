"""`dot_general`: batched contraction (JAX rules §2.9, §3.2).

Sharding: batch dims take the LHS spec; a contracting dim sharded on one side
only is dropped; sharded on both sides (identically) is ambiguous unless the
user picks `out_sharding` — all-reduce (replicated), reduce-scatter (sharded on
an output dim) or no communication (`P(unreduced=...)`). The error lists those
choices with the bytes each moves per device.
"""
from __future__ import annotations

import math
from typing import Sequence

import ml_dtypes
import numpy as np

from .. import dtypes as dt
from ..comm_cost import human_bytes, wire_bytes
from ..core import Primitive, _fs, bind
from ..emit.text import int_list, ttype
from ..errors import ShardcTypeError, ShardcValueError, ShardingTypeError
from ..sharding import Entry, PartitionSpec, entry_axes
from ..transforms.ad import ct_spec
from ..types import ArrayType
from .shape import out_sharding_entries

_NONE: frozenset[str] = frozenset()


def _free(ndim: int, *dim_lists: Sequence[int]) -> list[int]:
    used = {d for ds in dim_lists for d in ds}
    return [i for i in range(ndim) if i not in used]


def _spec_tuple(t: ArrayType, dims: Sequence[int]) -> tuple[Entry, ...]:
    return tuple(t.spec[d] for d in dims)


def _check_inputs_reduced(lhs: ArrayType, rhs: ArrayType) -> None:
    if lhs.unreduced or rhs.unreduced:
        raise ShardingTypeError(
            f"lhs or rhs passed to dot_general cannot be unreduced. Got lhs={lhs!r} and rhs={rhs!r}")


class DotGeneral(Primitive):
    name = "dot_general"

    def shape_rule(self, lhs: ArrayType, rhs: ArrayType, *, dimension_numbers,
                   out_sharding=None, preferred_element_type=None):
        (lc, rc), (lb, rb) = dimension_numbers
        if len(lc) != len(rc) or len(lb) != len(rb):
            raise ShardcValueError("dot_general needs as many lhs as rhs contracting/batch dims")
        for a, b in list(zip(lc, rc)) + list(zip(lb, rb)):
            if not (0 <= a < lhs.ndim and 0 <= b < rhs.ndim) or lhs.shape[a] != rhs.shape[b]:
                raise ShardcValueError(
                    f"dot_general requires contracting/batch dims of equal size; got lhs "
                    f"{lhs.shape} dim {a} and rhs {rhs.shape} dim {b}")
        shape = ([lhs.shape[d] for d in lb] + [lhs.shape[d] for d in _free(lhs.ndim, lc, lb)]
                 + [rhs.shape[d] for d in _free(rhs.ndim, rc, rb)])
        return [(tuple(shape), _result_dtype(lhs.dtype, rhs.dtype, preferred_element_type), False)]

    def sharding_rule(self, lhs: ArrayType, rhs: ArrayType, *, dimension_numbers,
                      out_sharding=None, preferred_element_type=None):
        (lc, rc), (lb, rb) = dimension_numbers
        if out_sharding is not None:
            (shape, _, _), = self.shape_rule(lhs, rhs, dimension_numbers=dimension_numbers)
            used = out_sharding.axes()
            if len(used) == len(set(used)):
                # JAX rejects unreduced operands before it checks out_sharding's divisibility
                _check_inputs_reduced(lhs, rhs)
            return [out_sharding_entries(out_sharding, shape, lhs.mesh)]
        for l, r in zip(lb, rb):
            if lhs.spec[l] is not None and rhs.spec[r] is not None and lhs.spec[l] != rhs.spec[r]:
                raise ShardingTypeError(
                    "dot_general requires lhs batch dimensions and rhs batch dimensions to have the "
                    f"consistent sharding, got {_spec_tuple(lhs, lb)} and {_spec_tuple(rhs, rb)}.")
        for l, r in zip(lc, rc):
            if lhs.spec[l] is not None and rhs.spec[r] is not None and lhs.spec[l] != rhs.spec[r]:
                raise ShardingTypeError(
                    "dot_general requires contracting dimensions to have consistent sharding, "
                    f"got {_spec_tuple(lhs, lc)} and {_spec_tuple(rhs, rc)}.")
        out = ([lhs.spec[d] for d in lb] + [lhs.spec[d] for d in _free(lhs.ndim, lc, lb)]
               + [rhs.spec[d] for d in _free(rhs.ndim, rc, rb)])
        for l, r in zip(lc, rc):
            if lhs.spec[l] is not None and rhs.spec[r] is not None:
                raise ShardingTypeError(
                    "Contracting dimensions are sharded and it is ambiguous how the output should be "
                    "sharded. Please specify the output sharding via the `out_sharding` parameter. "
                    f"Got lhs_contracting_spec={_spec_tuple(lhs, lc)} and "
                    f"rhs_contracting_spec={_spec_tuple(rhs, rc)}",
                    fix=self._ambiguity_fix(lhs, rhs, dimension_numbers, out))
        return [tuple(out)]

    def _ambiguity_fix(self, lhs, rhs, dimension_numbers, out: list[Entry]) -> str:
        """Each valid `out_sharding`, what it communicates and the bytes per device."""
        (lc, rc), _ = dimension_numbers
        axes = tuple(a for l, r in zip(lc, rc) if lhs.spec[l] is not None and rhs.spec[r] is not None
                     for a in entry_axes(lhs.spec[l]))
        (shape, dtype, _), = self.shape_rule(lhs, rhs, dimension_numbers=dimension_numbers)
        mesh = lhs.mesh
        n = math.prod(mesh.axis_size(a) for a in axes)
        shards = math.prod(math.prod(mesh.axis_size(a) for a in entry_axes(e)) for e in out)
        local = math.prod(shape) // max(shards, 1) * dt.np.dtype(dtype).itemsize
        ax = axes[0] if len(axes) == 1 else axes
        ax_txt = "/".join(axes)
        lines = ["pass `out_sharding=` to say where the partial sums go:"]
        rep = PartitionSpec(*out)
        # bytes sent per device, from the cost model (shardc/comm_cost.py) `check --cost` uses
        lines.append(f"out_sharding={rep!r}: all-reduce over {ax_txt}, "
                     f"~{human_bytes(wire_bytes('all-reduce', local, n))} per device")
        for i, e in enumerate(out):
            if e is None and shape[i] % n == 0:
                scat = list(out)
                scat[i] = ax
                lines.append(f"out_sharding={PartitionSpec(*scat)!r}: reduce-scatter over {ax_txt}, "
                             f"~{human_bytes(wire_bytes('reduce-scatter', local / n, n))} per device")
                break
        lines.append(f"out_sharding={PartitionSpec(*out, unreduced=set(axes))!r}: no communication "
                     f"(0 B); the result stays unreduced over {ax_txt} until a later `reshard`")
        lines.append("or wrap the call in `sc.auto_axes(..., out_sharding=...)` to let XLA choose")
        return "\n".join(lines)

    def ur_rule(self, lhs: ArrayType, rhs: ArrayType, *, dimension_numbers,
                out_sharding=None, preferred_element_type=None):
        _check_inputs_reduced(lhs, rhs)
        # the result is never reduced (JAX drops an out_sharding's reduced set)
        if out_sharding is None or not out_sharding.unreduced:
            return [(_NONE, _NONE)]
        (lc, rc), _ = dimension_numbers
        ls, rs = _spec_tuple(lhs, lc), _spec_tuple(rhs, rc)
        if ls != rs:
            raise ShardingTypeError(
                "lhs and rhs contracting dims should be sharded identically when out_sharding "
                "provided to dot_general mentions unreduced_axes. "
                f"Got lhs_contracting_spec={ls}, rhs_contracting_spec={rs}")
        caxes = frozenset(a for e in ls for a in entry_axes(e))
        if out_sharding.unreduced != caxes:
            raise ShardingTypeError(
                "out_sharding's unreduced axes should be equal to the contracting specs. "
                f"Got unreduced axes={_fs(out_sharding.unreduced)} and contracting spec={ls}")
        return [(out_sharding.unreduced, _NONE)]

    def batch(self, B, axis, args, dims, *, dimension_numbers, out_sharding=None, preferred_element_type=None):
        """JAX's `_dot_general_batch_dim_nums`: both batched, the batch dims become a leading
        dot batch dim; one batched, its batch dim is a free dim of that side."""
        (lc, rc), (lb, rb) = dimension_numbers
        ld, rd = dims
        bump = lambda ds, b: tuple(d + (d >= b) for d in ds)
        if ld is not None and rd is not None:
            dn = ((bump(lc, ld), bump(rc, rd)), ((ld, *bump(lb, ld)), (rd, *bump(rb, rd))))
            od = 0
        elif ld is not None:
            nl = B.type_of(args[0]).ndim
            dn = ((bump(lc, ld), rc), (bump(lb, ld), rb))
            free = [d for d in range(nl) if d not in dn[0][0] and d not in dn[1][0] and d != ld]
            od = len(lb) + sum(d < ld for d in free)
        else:
            nl = B.type_of(args[0]).ndim
            nr = B.type_of(args[1]).ndim
            dn = ((lc, bump(rc, rd)), (lb, bump(rb, rd)))
            free = [d for d in range(nr) if d not in dn[0][1] and d not in dn[1][1] and d != rd]
            od = nl - len(lc) + sum(d < rd for d in free)
        osh = None if out_sharding is None else B.insert_spec(out_sharding, od, axis.entry)
        return B.bind(self, *args, dimension_numbers=dn, out_sharding=osh,
                      preferred_element_type=preferred_element_type), od

    def vjp(self, L, g, ins, outs, *, dimension_numbers, out_sharding=None, preferred_element_type=None):
        """Each operand's cotangent is a dot_general of the output cotangent
        with the other operand, pinned (out_sharding) to the operand's
        cotangent type, so XLA reduces where the primal was replicated."""
        x, y = ins
        (lc, rc), (lb, rb) = dimension_numbers
        cx = _transpose_operand(L, g, y, x, lc, rc, lb, rb, swap=False) if hasattr(x, "aval") else None
        cy = _transpose_operand(L, g, x, y, rc, lc, rb, lb, swap=True) if hasattr(y, "aval") else None
        return [cx, cy]

    def format_params(self, p):
        (lc, rc), (lb, rb) = p["dimension_numbers"]
        s = f"contract=({tuple(lc)}, {tuple(rc)}) batch=({tuple(lb)}, {tuple(rb)})"
        if p.get("out_sharding") is not None:
            s += f" out_sharding={p['out_sharding']!r}"
        if p.get("preferred_element_type") is not None:
            s += f" preferred={dt.short_name(p['preferred_element_type'])}"
        return s

    def lower(self, ctx, eqn, a, b):
        (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
        lt, rt, out = eqn.inputs[0].type, eqn.inputs[1].type, eqn.outputs[0].type
        if lt.dtype != rt.dtype and not (_is_fp8(lt.dtype) and _is_fp8(rt.dtype)):
            # JAX's `_handle_dot_precision` on CPU/GPU: mixed operands are converted to the result's
            # dtype first (XLA accepts the mix, but some backends fail to generate code for it)
            a, lt = _convert_to(ctx, a, lt, out.dtype), lt.update(dtype=out.dtype)
            b, rt = _convert_to(ctx, b, rt, out.dtype), rt.update(dtype=out.dtype)
        dims = []
        if lb:
            dims.append(f"batching_dims = {int_list(lb)} x {int_list(rb)}")
        dims.append(f"contracting_dims = {int_list(lc)} x {int_list(rc)}")
        return [ctx.op(f"stablehlo.dot_general {a}, {b}, {', '.join(dims)} : "
                       f"({ttype(lt)}, {ttype(rt)}) -> {ttype(out)}")]


def _type_properties(d: np.dtype) -> tuple:
    """XLA's `HigherPrecisionType` order, as JAX's `_dot_general_dtype_rule` spells it."""
    c = dt.real_dtype(d) if dt.is_complex(d) else d
    fl = dt.is_float(c)
    bits = ml_dtypes.finfo(c).bits if fl else (1 if c == dt.bool_ else np.iinfo(c).bits)
    return (dt.is_complex(d), ml_dtypes.finfo(c).maxexp if fl else -1, ml_dtypes.finfo(c).nmant if fl else -1,
            bits, not np.issubdtype(c, np.unsignedinteger))


def _result_dtype(lhs: np.dtype, rhs: np.dtype, preferred) -> np.dtype:
    """JAX's `_dot_general_dtype_rule`: operands may differ (f32 with bf16 gives f32, as XLA's
    shape inference), `preferred_element_type` upcasts and may not narrow an integer result."""
    lp, rp = _type_properties(lhs), _type_properties(rhs)
    if lp == rp and lhs != rhs:
        raise ShardcTypeError(f"lax.dot_general argument type error: {lhs}, {rhs}")
    result = lhs if lp >= rp else rhs
    if preferred is None or preferred == result:
        return result
    if not dt.is_float(result) and _type_properties(preferred)[3] < _type_properties(result)[3]:
        raise ShardcTypeError("`preferred_element_type` must not be narrower than the original type, got "
                              f"preferred_element_type of {preferred} for result type of {result}.")
    return preferred


def _is_fp8(d: np.dtype) -> bool:
    return dt.is_float(d) and ml_dtypes.finfo(d).bits == 8


def _convert_to(ctx, x: str, t: ArrayType, d: np.dtype) -> str:
    return ctx.op(f"stablehlo.convert {x} : ({ttype(t)}) -> {ttype(t.update(dtype=d))}")


def _argsort(seq) -> list[int]:
    """`np.argsort` of a few distinct dims, in Python (a NumPy call per transposed dot is the cost)."""
    return sorted(range(len(seq)), key=seq.__getitem__)


def _transpose_operand(L, g, other, me, my_c, other_c, my_b, other_b, swap: bool):
    """The cotangent of operand `me` (JAX's `_dot_general_transpose_lhs`)."""
    t, ot = me.aval, L.type_of(other)
    my_kept = [i for i in range(t.ndim) if i not in my_c and i not in my_b]
    other_kept = [i for i in range(ot.ndim) if i not in other_c and i not in other_b]
    nb = len(my_b)
    if swap:  # output dims: batch, other's kept (lhs), my kept (rhs)
        ans_other = list(range(nb, nb + len(other_kept)))
    else:
        ans_other = list(range(nb + len(my_kept), nb + len(my_kept) + len(other_kept)))
    ans_batch = list(range(nb))
    dims = ((tuple(ans_other), tuple(other_kept)), (tuple(ans_batch), tuple(other_b)))
    my_c_sorted = [my_c[i] for i in _argsort(other_c)]
    order = list(my_b) + my_kept + my_c_sorted
    spec = None
    if not t.mesh.empty:
        want = ct_spec(t)
        spec = PartitionSpec(*[t.spec[d] for d in order], unreduced=want.unreduced, reduced=want.reduced)
    r = bind(dot_general, g, other, dimension_numbers=dims, out_sharding=spec, preferred_element_type=None)
    perm = tuple(_argsort(order))
    return L.transpose(r, perm) if perm != tuple(range(len(perm))) else r


dot_general = DotGeneral()
