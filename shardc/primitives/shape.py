"""Shape primitives: `broadcast_in_dim`, `reshape`, `transpose`, `squeeze`,
`concatenate`, `slice`, `dynamic_slice`, `iota` (JAX rules §2.1, §2.5, §2.6,
§2.10, §2.11). All keep U and R unless noted."""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from .. import dtypes as dt
from ..core import Const, Primitive, bind
from ..emit.text import int_list, ttype
from ..errors import ShardcNotImplementedError, ShardcTypeError, ShardcValueError, ShardingTypeError
from ..sharding import Entry, PartitionSpec, entry_axes
from ..transforms.ad import ct_spec
from ..types import ArrayType, check_spec, visible_entry

_NONE: frozenset[str] = frozenset()


class KeepsUR(Primitive):
    """Structural ops move data without arithmetic: U and R pass through."""

    def ur_rule(self, *ins: ArrayType, **_):
        x = ins[0]
        return (x.unreduced, x.reduced)


def out_sharding_entries(spec: PartitionSpec, shape, mesh) -> tuple[Entry, ...]:
    """A user's `out_sharding` as type entries (validated; Auto axes dropped)."""
    check_spec(spec, mesh, shape)
    ents = tuple(visible_entry(e, mesh) for e in spec)
    return ents + (None,) * (len(shape) - len(ents))


# --- broadcast_in_dim --------------------------------------------------------------
class BroadcastInDim(KeepsUR):
    name = "broadcast_in_dim"

    def shape_rule(self, x: ArrayType, *, shape, broadcast_dimensions, out_sharding=None):
        if len(broadcast_dimensions) != x.ndim:
            raise ShardcValueError(f"broadcast_in_dim needs one target dim per operand dim: "
                                   f"operand rank {x.ndim}, dims {broadcast_dimensions}")
        for k, d in enumerate(broadcast_dimensions):
            if not 0 <= d < len(shape) or x.shape[k] not in (1, shape[d]):
                raise ShardcValueError(
                    f"Incompatible shapes for broadcasting: {x.shape} to {tuple(shape)} "
                    f"with broadcast_dimensions {tuple(broadcast_dimensions)}")
        return [(tuple(shape), x.dtype, x.weak_type)]

    def sharding_rule(self, x: ArrayType, *, shape, broadcast_dimensions, out_sharding=None):
        if out_sharding is not None:
            return [out_sharding_entries(out_sharding, shape, x.mesh)]
        out: list[Entry] = [None] * len(shape)
        for k, d in enumerate(broadcast_dimensions):
            if x.shape[k] == shape[d]:
                out[d] = x.spec[k]
        return [tuple(out)]

    def ur_rule(self, x: ArrayType, *, out_sharding=None, **_):
        if out_sharding is not None and (out_sharding.unreduced or out_sharding.reduced):
            return [(out_sharding.unreduced, out_sharding.reduced)]
        if out_sharding is not None:
            # JAX's `_broadcast_in_dim_sharding_rule` (a given sharding is the result's): a
            # reduced operand broadcast to a result partitioned over those axes (`P('x', None)`)
            # is no longer reduced over them
            parts = frozenset(a for e in out_sharding for a in entry_axes(e))
            return [(x.unreduced, x.reduced - parts)]
        return [(x.unreduced, x.reduced)]

    def memory_space_rule(self, x: ArrayType, **_):
        return x.memory_space   # JAX's `_broadcast_in_dim_abstract_eval`: a host scalar broadcasts on the host

    def batch(self, B, axis, args, dims, *, shape, broadcast_dimensions, out_sharding=None):
        """The batch dim first, mapped to a new leading dim (JAX's rule; a given
        `out_sharding` gets the vmap's batch-dim entry)."""
        x = B.moveaxis(args[0], dims[0], 0)
        size = B.type_of(x).shape[0]
        osh = None if out_sharding is None else B.insert_spec(out_sharding, 0, axis.entry)
        return B.bind(self, x, shape=(size, *shape), broadcast_dimensions=(0, *(d + 1 for d in broadcast_dimensions)),
                      out_sharding=osh), 0

    def vjp(self, L, g, ins, outs, *, shape, broadcast_dimensions, out_sharding=None):
        """Sum over the new and the size-1-expanded dims, back to the operand's shape."""
        x = ins[0]
        xs = x.aval.shape if hasattr(x, "aval") else np.shape(x)
        summed = [d for d in range(len(shape)) if d not in broadcast_dimensions]
        summed += [d for k, d in enumerate(broadcast_dimensions) if xs[k] == 1 and shape[d] != 1]
        r = L.reduce_sum(g, tuple(sorted(summed))) if summed else g
        return [L.reshape(r, xs) if tuple(r.aval.shape) != tuple(xs) else r]

    def format_params(self, p):
        s = f"shape={tuple(p['shape'])} broadcast_dimensions={tuple(p['broadcast_dimensions'])}"
        return s + (f" sharding={p['out_sharding']!r}" if p.get("out_sharding") is not None else "")

    def lower(self, ctx, eqn, x):
        src, out = eqn.inputs[0].type, eqn.outputs[0].type
        if src.shape == out.shape and list(eqn.params["broadcast_dimensions"]) == list(range(src.ndim)):
            return [x]
        dims = int_list(eqn.params["broadcast_dimensions"])
        return [ctx.op(f"stablehlo.broadcast_in_dim {x}, dims = {dims} : ({ttype(src)}) -> {ttype(out)}")]


broadcast_in_dim = BroadcastInDim()


# --- reshape -------------------------------------------------------------------------
def _reshape_error(x: ArrayType, new_sizes) -> ShardingTypeError:
    return ShardingTypeError(
        "This reshape is not supported. Please specify the sharding of the output via the "
        "`out_sharding` argument of sc.reshape. "
        f"Got operand type: {x.str_short(short_dtypes=False)}, new sizes: {tuple(new_sizes)}")


def _groups(old: Sequence[int], new: Sequence[int]):
    """Pair contiguous runs of old and new dims with equal products."""
    groups, i, j = [], 0, 0
    while i < len(old) and j < len(new):
        gi, gj = [i], [j]
        po, pn = old[i], new[j]
        i, j = i + 1, j + 1
        while po != pn:
            if po < pn:
                po *= old[i]; gi.append(i); i += 1
            else:
                pn *= new[j]; gj.append(j); j += 1
        groups.append((gi, gj))
    return groups


def _split_axes(x: ArrayType, axes: tuple[str, ...], sizes: Sequence[int], new_sizes) -> list[Entry]:
    out, rest = [], list(axes)
    for o in sizes:
        mine = []
        while o > 1 and rest:
            s = x.mesh.axis_size(rest[0])
            if o % s:
                raise _reshape_error(x, new_sizes)
            o //= s
            mine.append(rest.pop(0))
        out.append(None if not mine else (mine[0] if len(mine) == 1 else tuple(mine)))
    if rest:
        raise _reshape_error(x, new_sizes)
    return out


def reshape_sharding(x: ArrayType, new_sizes: Sequence[int]) -> tuple[Entry, ...]:
    """`_reshape_sharding_rule`: size-1 dims come and go; one dim may split, or
    one contiguous group may merge (minor-sharded-only groups cannot)."""
    if all(e is None for e in x.spec):
        return (None,) * len(new_sizes)
    old_keep = [i for i, d in enumerate(x.shape) if d != 1]
    new_keep = [j for j, d in enumerate(new_sizes) if d != 1]
    out: list[Entry] = [None] * len(new_sizes)
    groups = _groups([x.shape[i] for i in old_keep], [new_sizes[j] for j in new_keep])
    nontrivial = [g for g in groups if len(g[0]) > 1 or len(g[1]) > 1]
    if len(nontrivial) > 1:
        raise _reshape_error(x, new_sizes)
    for gi, gj in groups:
        olds = [old_keep[i] for i in gi]
        news = [new_keep[j] for j in gj]
        if len(olds) == 1 and len(news) == 1:
            out[news[0]] = x.spec[olds[0]]
        elif len(olds) == 1:
            axes = x.dim_axes(olds[0])
            for j, e in zip(news, _split_axes(x, axes, [new_sizes[j] for j in news], new_sizes)):
                out[j] = e
        elif len(news) == 1:
            ents = [x.spec[i] for i in olds]
            while ents and ents[-1] is None:
                ents.pop()
            if any(e is None for e in ents):
                raise _reshape_error(x, new_sizes)
            axes = tuple(a for e in ents for a in entry_axes(e))
            out[news[0]] = None if not axes else (axes[0] if len(axes) == 1 else axes)
        else:   # neither a split nor a merge: JAX refuses it whenever the operand is sharded at all
            raise _reshape_error(x, new_sizes)
    return tuple(out)


class Reshape(KeepsUR):
    name = "reshape"

    def shape_rule(self, x: ArrayType, *, new_sizes, out_sharding=None):
        if math.prod(new_sizes) != x.size:
            raise ShardcValueError(f"cannot reshape array of shape {x.shape} (size {x.size}) "
                                   f"into shape {tuple(new_sizes)} (size {math.prod(new_sizes)})")
        return [(tuple(new_sizes), x.dtype, x.weak_type)]

    def sharding_rule(self, x: ArrayType, *, new_sizes, out_sharding=None):
        if out_sharding is not None:
            return [out_sharding_entries(out_sharding, new_sizes, x.mesh)]
        return [reshape_sharding(x, new_sizes)]

    def ur_rule(self, x: ArrayType, *, new_sizes, out_sharding=None):
        """JAX's `_reshape_unreduced_rule` / `_reduced_rule`: an unreduced (reduced) operand
        stays so, and a given out_sharding must say the same axes; a plain operand's
        out_sharding cannot add any."""
        manual = frozenset(x.mesh.manual_axes)   # (inside shard_map JAX keeps these out of the spec)
        replicated = all(e is None for e in x.spec)
        singleton = [d for d in x.shape if d != 1] == [d for d in new_sizes if d != 1]
        if out_sharding is None and (x.unreduced - manual or x.reduced - manual) and (
                (replicated and len(new_sizes) < x.ndim) or (not replicated and singleton)):
            # JAX's sharding rule keeps a replicated operand's spec whole (too long for a lower
            # rank) and reads a singleton split/merge's entry by entry, both of which its
            # PartitionSpec refuses with unreduced/reduced axes
            raise ShardcValueError(
                f"reshape of an unreduced/reduced operand ({x.str_short()}) to {tuple(new_sizes)} needs "
                "an explicit `out_sharding=` carrying the same unreduced/reduced axes (JAX 0.10.2 fails "
                "here too, with `Using pspec[...] is dangerous`)")

        def one(op: frozenset, kind: str) -> frozenset:
            want = None if out_sharding is None else getattr(out_sharding, kind)
            if op:
                if want is not None and frozenset(want) - manual != op - manual:
                    raise ShardcValueError(
                        f"out_sharding passed to reshape must be {kind} over the same mesh axes as "
                        f"operand. Got out_sharding: {out_sharding!r} and operand type: {x.str_short()}")
                return op
            if want:
                raise ShardcValueError(f"out_sharding passed to `reshape` cannot contain {kind} axes. "
                                       f"Got {out_sharding!r}")
            return _NONE
        return [(one(x.unreduced, "unreduced"), one(x.reduced, "reduced"))]

    def batch(self, B, axis, args, dims, *, new_sizes, out_sharding=None):
        x = B.moveaxis(args[0], dims[0], 0)
        size = B.type_of(x).shape[0]
        osh = None if out_sharding is None else B.insert_spec(out_sharding, 0, axis.entry)
        return B.bind(self, x, new_sizes=(size, *new_sizes), out_sharding=osh), 0

    def vjp(self, L, g, ins, outs, *, new_sizes, out_sharding=None):
        t = ins[0].aval
        if t.mesh.empty:
            return [L.reshape(g, t.shape, out_sharding=None)]
        spec, manual = ct_spec(t), frozenset(t.mesh.manual_axes)
        # JAX's transpose passes the operand's sharding, whose spec never names Manual axes
        spec = PartitionSpec(*spec, unreduced=frozenset(spec.unreduced) - manual,
                             reduced=frozenset(spec.reduced) - manual)
        return [L.reshape(g, t.shape, out_sharding=spec)]

    def format_params(self, p):
        s = f"new_sizes={tuple(p['new_sizes'])}"
        return s + (f" sharding={p['out_sharding']!r}" if p.get("out_sharding") is not None else "")

    def lower(self, ctx, eqn, x):
        src, out = eqn.inputs[0].type, eqn.outputs[0].type
        if src.shape == out.shape:
            return [x]
        return [ctx.op(f"stablehlo.reshape {x} : ({ttype(src)}) -> {ttype(out)}")]


reshape = Reshape()


# --- transpose / squeeze ---------------------------------------------------------------
class Transpose(KeepsUR):
    name = "transpose"

    def shape_rule(self, x: ArrayType, *, permutation):
        if sorted(permutation) != list(range(x.ndim)):
            raise ShardcValueError(f"transpose permutation {tuple(permutation)} is not a "
                                   f"permutation of the {x.ndim} dims of {x.str_short()}")
        return [(tuple(x.shape[p] for p in permutation), x.dtype, x.weak_type)]

    def sharding_rule(self, x: ArrayType, *, permutation):
        return [tuple(x.spec[p] for p in permutation)]

    def batch(self, B, axis, args, dims, *, permutation):
        d = dims[0]
        perm = [p + (p >= d) for p in permutation]
        perm.insert(d, d)
        return B.bind(self, args[0], permutation=tuple(perm)), d

    def vjp(self, L, g, ins, outs, *, permutation):
        return [L.transpose(g, tuple(int(i) for i in np.argsort(permutation)))]

    def format_params(self, p):
        return f"permutation={tuple(p['permutation'])}"

    def lower(self, ctx, eqn, x):
        src, out = eqn.inputs[0].type, eqn.outputs[0].type
        perm = eqn.params["permutation"]
        if list(perm) == list(range(len(perm))):
            return [x]
        return [ctx.op(f"stablehlo.transpose {x}, dims = {int_list(perm)} : ({ttype(src)}) -> {ttype(out)}")]


transpose = Transpose()


class Squeeze(KeepsUR):
    name = "squeeze"

    def shape_rule(self, x: ArrayType, *, dimensions):
        for d in dimensions:
            if x.shape[d] != 1:
                raise ShardcValueError(
                    f"cannot select an axis to squeeze out which has size not equal to one, "
                    f"got shape={x.shape} and dimensions={tuple(dimensions)}")
        return [(tuple(s for i, s in enumerate(x.shape) if i not in dimensions), x.dtype, x.weak_type)]

    def sharding_rule(self, x: ArrayType, *, dimensions):
        return [tuple(e for i, e in enumerate(x.spec) if i not in dimensions)]

    def batch(self, B, axis, args, dims, *, dimensions):
        x = B.moveaxis(args[0], dims[0], 0)
        return B.bind(self, x, dimensions=tuple(d + 1 for d in dimensions)), 0

    def vjp(self, L, g, ins, outs, *, dimensions):
        return [L.expand_dims(g, tuple(dimensions))]

    def format_params(self, p):
        return f"dimensions={tuple(p['dimensions'])}"

    def lower(self, ctx, eqn, x):
        src, out = eqn.inputs[0].type, eqn.outputs[0].type
        return [ctx.op(f"stablehlo.reshape {x} : ({ttype(src)}) -> {ttype(out)}")]


squeeze = Squeeze()


# --- rev ---------------------------------------------------------------------------------------
class Rev(Primitive):
    """`lax.rev`: reverse the order along `dimensions`; the spec is kept. No
    unreduced/reduced rule (as JAX)."""

    name = "rev"

    def shape_rule(self, x: ArrayType, *, dimensions):
        if any(not 0 <= d < x.ndim for d in dimensions):
            raise ShardcValueError(f"rev dimensions {tuple(dimensions)} out of range for {x.str_short()}")
        return [(x.shape, x.dtype, x.weak_type)]

    def sharding_rule(self, x: ArrayType, *, dimensions):
        return [x.spec]

    def batch(self, B, axis, args, dims, *, dimensions):
        x = B.moveaxis(args[0], dims[0], 0)
        return B.bind(self, x, dimensions=tuple(d + 1 for d in dimensions)), 0

    def vjp(self, L, g, ins, outs, *, dimensions):
        return [bind(rev, g, dimensions=dimensions)]

    def format_params(self, p):
        return f"dimensions={tuple(p['dimensions'])}"

    def lower(self, ctx, eqn, x):
        t = eqn.outputs[0].type
        return [ctx.op(f"stablehlo.reverse {x}, dims = {int_list(eqn.params['dimensions'])} : {ttype(t)}")]


rev = Rev()


# --- concatenate -------------------------------------------------------------------------
class Concatenate(Primitive):
    name = "concatenate"

    def shape_rule(self, *xs: ArrayType, dimension):
        """JAX's `_concatenate_shape_rule` / `_concatenate_dtype_rule`, errors included."""
        base = xs[0]
        shapes = ", ".join(str(t.shape) for t in xs)
        if len({t.ndim for t in xs}) != 1:
            raise ShardcTypeError(f"Cannot concatenate arrays with different numbers of dimensions: got {shapes}.")
        if not 0 <= dimension < base.ndim:
            raise ShardcTypeError(f"concatenate dimension out of bounds: dimension {dimension} for shapes {shapes}.")
        rest = {t.shape[:dimension] + t.shape[dimension + 1:] for t in xs}
        if len(rest) != 1:
            raise ShardcTypeError("Cannot concatenate arrays with shapes that differ in dimensions other than the "
                                  f"one being concatenated: concatenating along dimension {dimension} for shapes "
                                  f"{shapes}.")
        if len({t.dtype for t in xs}) != 1:
            raise ShardcTypeError("lax.concatenate requires arguments to have the same dtypes, got "
                                  + ", ".join(t.dtype.name for t in xs) + ". (Tip: jnp.concatenate is a similar "
                                  "function that does automatic type promotion on inputs).")
        shape = list(base.shape)
        shape[dimension] = sum(t.shape[dimension] for t in xs)
        return [(tuple(shape), base.dtype, all(t.weak_type for t in xs))]

    def sharding_rule(self, *xs: ArrayType, dimension):
        # whole shardings are compared (U and R too), as JAX compares NamedShardings
        shardings = [(t.spec, t.unreduced, t.reduced) for t in xs]
        if any(s != shardings[0] for s in shardings):
            raise ShardingTypeError("All operands should have the same sharding. Got shardings "
                                    + ", ".join(repr(t.sharding) for t in xs))
        return [xs[0].spec]

    def ur_rule(self, *xs: ArrayType, dimension):
        if any(t.unreduced != xs[0].unreduced for t in xs):
            raise ShardingTypeError("All operands should be unreduced along the same mesh axes. "
                                    "Got unreduced specs: " + ", ".join(repr(sorted(t.unreduced)) for t in xs))
        if any(t.reduced != xs[0].reduced for t in xs):
            raise ShardingTypeError("All operands should be reduced along the same mesh axes. "
                                    "Got reduced specs: " + ", ".join(repr(sorted(t.reduced)) for t in xs))
        return [(xs[0].unreduced, xs[0].reduced)]

    def batch(self, B, axis, args, dims, *, dimension):
        """Every operand batched at dim 0 (unbatched ones broadcast, JAX's rule)."""
        xs = [B.bdim_at_front(x, d, axis.size, axis.entry) for x, d in zip(args, dims)]
        return B.bind(self, *xs, dimension=dimension + 1), 0

    def vjp(self, L, g, ins, outs, *, dimension):
        cts, off = [], 0
        for x in ins:
            xs = x.aval.shape if hasattr(x, "aval") else np.shape(x)
            start = [0] * len(xs)
            limit = list(g.aval.shape)
            start[dimension], limit[dimension] = off, off + xs[dimension]
            off += xs[dimension]
            cts.append(bind(slice_p, g, start_indices=tuple(start), limit_indices=tuple(limit),
                            strides=None) if hasattr(x, "aval") else None)
        return cts

    def format_params(self, p):
        return f"dimension={p['dimension']}"

    def lower(self, ctx, eqn, *xs):
        ins = ", ".join(ttype(a.type) for a in eqn.inputs)
        out = eqn.outputs[0].type
        return [ctx.op(f"stablehlo.concatenate {', '.join(xs)}, dim = {eqn.params['dimension']} : "
                       f"({ins}) -> {ttype(out)}")]


concatenate = Concatenate()


# --- slicing -------------------------------------------------------------------------------
def varying_out_shape_sharding(kind: str, x: ArrayType, out_shape: Sequence[int]) -> tuple[Entry, ...]:
    """`_get_sharding_for_varying_out_shape`: the operand's spec, as long as every
    resized sharded dim stays divisible by its mesh axes."""
    for i, (old, new) in enumerate(zip(x.shape, out_shape)):
        if old == new or x.spec[i] is None:
            continue
        n = x.dim_shards(i)
        if new % n:
            raise ShardingTypeError(
                f"{kind} on sharded dims where out dim ({new}) is not divisible by mesh axes ({n}) "
                f"with spec ({x.spec[i]}) is not implemented. Got input type={x.str_short()} and "
                f"output shape={tuple(out_shape)}")
    return x.spec


class Slice(KeepsUR):
    name = "slice"

    def shape_rule(self, x: ArrayType, *, start_indices, limit_indices, strides=None):
        strides = strides or (1,) * x.ndim
        shape = []
        for d, s, l, st in zip(x.shape, start_indices, limit_indices, strides):
            if not (0 <= s <= l <= d) or st < 1:
                raise ShardcValueError(f"slice [{s}:{l}:{st}] is out of bounds for a dim of size {d}")
            shape.append(max(0, -(-(l - s) // st)))
        return [(tuple(shape), x.dtype, x.weak_type)]

    def sharding_rule(self, x: ArrayType, **params):
        (shape, _, _), = self.shape_rule(x, **params)
        return [varying_out_shape_sharding("slicing", x, shape)]

    def batch(self, B, axis, args, dims, *, start_indices, limit_indices, strides=None):
        d = dims[0]
        n = B.type_of(args[0]).shape[d]
        start, limit = list(start_indices), list(limit_indices)
        start.insert(d, 0)
        limit.insert(d, n)
        st = None if strides is None else (*strides[:d], 1, *strides[d:])
        return B.bind(self, args[0], start_indices=tuple(start), limit_indices=tuple(limit), strides=st), d

    def vjp(self, L, g, ins, outs, *, start_indices, limit_indices, strides=None):
        """Pad the cotangent back into place with zeros."""
        xs = ins[0].aval.shape
        strides = strides or (1,) * len(xs)
        lo, hi, interior = [], [], []
        for d, s0, l, st, n in zip(xs, start_indices, limit_indices, strides, g.aval.shape):
            lo.append(s0)
            interior.append(st - 1)
            hi.append(d - (s0 + (n - 1) * st + 1) if n else d - s0)
        zero = Const(0, g.aval.dtype)
        return [bind(pad, g, zero, low=tuple(lo), high=tuple(hi), interior=tuple(interior))]

    def format_params(self, p):
        s = f"start_indices={tuple(p['start_indices'])} limit_indices={tuple(p['limit_indices'])}"
        return s + (f" strides={tuple(p['strides'])}" if p.get("strides") else "")

    def lower(self, ctx, eqn, x):
        p = eqn.params
        strides = p.get("strides") or (1,) * len(p["start_indices"])
        parts = []
        for s, l, st in zip(p["start_indices"], p["limit_indices"], strides):
            parts.append(f"{s}:{l}" + (f":{st}" if st != 1 else ""))
        return [ctx.op(f"stablehlo.slice {x} [{', '.join(parts)}] : "
                       f"({ttype(eqn.inputs[0].type)}) -> {ttype(eqn.outputs[0].type)}")]


slice_p = Slice()


class DynamicSlice(Primitive):
    name = "dynamic_slice"

    def shape_rule(self, x: ArrayType, *idx: ArrayType, slice_sizes):
        if len(idx) != x.ndim or any(i.ndim or not dt.is_int(i.dtype) for i in idx):
            raise ShardcValueError("dynamic_slice needs one scalar integer index per operand dim")
        if any(not 0 <= s <= d for s, d in zip(slice_sizes, x.shape)):
            raise ShardcValueError(f"dynamic_slice sizes {tuple(slice_sizes)} exceed operand shape {x.shape}")
        return [(tuple(slice_sizes), x.dtype, x.weak_type)]

    def sharding_rule(self, x: ArrayType, *idx: ArrayType, slice_sizes):
        return [varying_out_shape_sharding("dynamic_slice", x, slice_sizes)]

    def ur_rule(self, x: ArrayType, *idx: ArrayType, slice_sizes):
        if x.unreduced:
            raise ShardcNotImplementedError(
                "unreduced rule for dynamic_slice is not implemented. "
                "Please file an issue at https://github.com/jax-ml/jax/issues")
        return [(_NONE, x.reduced)]

    def vma_rule(self, *ins, **params):
        return super().vma_rule(*ins, **params)

    def batch(self, B, axis, args, dims, *, slice_sizes):
        """Unbatched indices: the whole batch dim is sliced along. Batched ones: a gather with
        the batch as operand/indices batching dims (as JAX's rule)."""
        x, idx = args[0], args[1:]
        if all(d is None for d in dims[1:]):
            d = dims[0]
            n = B.type_of(x).shape[d]
            idx = list(idx)
            idx.insert(d, np.int32(0) if not idx else B.zeros_index(idx[0]))
            return B.bind(self, x, *idx, slice_sizes=(*slice_sizes[:d], n, *slice_sizes[d:])), d
        return B.dynamic_slice_gather(x, dims[0], list(idx), list(dims[1:]), tuple(slice_sizes), axis), 0

    def vjp(self, L, g, ins, outs, *, slice_sizes):
        x, idx = ins[0], ins[1:]
        zeros = L.zeros_like(x)
        return [bind(dynamic_update_slice, zeros, g, *idx)] + [None] * len(idx)

    def format_params(self, p):
        return f"slice_sizes={tuple(p['slice_sizes'])}"

    def lower(self, ctx, eqn, x, *idx):
        tys = ", ".join(ttype(a.type) for a in eqn.inputs)
        return [ctx.op(f"stablehlo.dynamic_slice {x}, {', '.join(idx)}, sizes = "
                       f"{int_list(eqn.params['slice_sizes'])} : ({tys}) -> {ttype(eqn.outputs[0].type)}")]


dynamic_slice = DynamicSlice()


class DynamicUpdateSlice(Primitive):
    """`dynamic_update_slice(operand, update, *indices)`: operand and update
    must be sharded identically (JAX rules §2.11)."""

    name = "dynamic_update_slice"

    def shape_rule(self, x: ArrayType, u: ArrayType, *idx: ArrayType):
        if u.ndim != x.ndim or any(b > a for a, b in zip(x.shape, u.shape)) or u.dtype != x.dtype:
            raise ShardcValueError(f"dynamic_update_slice update {u.str_short()} does not fit "
                                   f"operand {x.str_short()}")
        if len(idx) != x.ndim or any(i.ndim or not dt.is_int(i.dtype) for i in idx):
            raise ShardcValueError("dynamic_update_slice needs one scalar integer index per dim")
        return [(x.shape, x.dtype, x.weak_type)]

    def sharding_rule(self, x: ArrayType, u: ArrayType, *idx: ArrayType):
        if x.spec != u.spec:
            raise ShardingTypeError(
                "dynamic_update_slice operand sharding must be equal to update sharding, got operand "
                f"sharding {x.str_short(short_dtypes=False, mesh_axis_types=True)} and update sharding "
                f"{u.str_short(short_dtypes=False, mesh_axis_types=True)}.")
        return [x.spec]

    def ur_rule(self, x: ArrayType, u: ArrayType, *idx: ArrayType):
        if (x.unreduced, x.reduced) != (u.unreduced, u.reduced):
            raise ShardingTypeError("dynamic_update_slice operand and update must be unreduced/reduced "
                                    f"alike, got {x.str_short()} and {u.str_short()}")
        return (x.unreduced, x.reduced)

    def batch(self, B, axis, args, dims):
        """Unbatched indices: operand and update batched at dim 0, index 0 there. Batched
        indices: a scatter of the windows (JAX's rule)."""
        x, u, idx = args[0], args[1], args[2:]
        if all(d is None for d in dims[2:]):
            x = B.bdim_at_front(x, dims[0], axis.size, axis.entry)
            u = B.bdim_at_front(u, dims[1], axis.size, axis.entry)
            zero = B.zeros_index(idx[0]) if idx else np.int32(0)
            return B.bind(self, x, u, zero, *idx), 0
        return B.dynamic_update_slice_scatter(x, dims[0], u, dims[1], list(idx), list(dims[2:]), axis)

    def vjp(self, L, g, ins, outs):
        _x, u, idx = ins[0], ins[1], ins[2:]
        cx = bind(dynamic_update_slice, g, L.zeros_like(u), *idx)
        cu = bind(dynamic_slice, g, *idx, slice_sizes=tuple(u.aval.shape))
        return [cx, cu] + [None] * len(idx)

    def lower(self, ctx, eqn, x, u, *idx):
        tys = ", ".join(ttype(a.type) for a in eqn.inputs)
        return [ctx.op(f"stablehlo.dynamic_update_slice {x}, {u}, {', '.join(idx)} : ({tys}) -> "
                       f"{ttype(eqn.outputs[0].type)}")]


dynamic_update_slice = DynamicUpdateSlice()


class Pad(KeepsUR):
    """`pad(x, value, low, high, interior)`: keeps the operand's sharding as long
    as resized sharded dims stay divisible (JAX rules §2.10)."""

    name = "pad"

    def shape_rule(self, x: ArrayType, v: ArrayType, *, low, high, interior):
        if v.ndim or v.dtype != x.dtype:
            raise ShardcValueError(f"pad value must be a scalar of dtype {x.dtype.name}")
        shape = []
        for d, lo, hi, it in zip(x.shape, low, high, interior):
            if it < 0:
                raise ShardcValueError("pad interior must be non-negative")
            n = lo + hi + d + max(d - 1, 0) * it
            if n < 0:
                raise ShardcValueError(f"pad makes a negative dim from {x.shape}")
            shape.append(n)
        return [(tuple(shape), x.dtype, x.weak_type)]

    def sharding_rule(self, x: ArrayType, v: ArrayType, **params):
        (shape, _, _), = self.shape_rule(x, v, **params)
        return [varying_out_shape_sharding("padding", x, shape)]

    def ur_rule(self, x: ArrayType, v: ArrayType, **_):
        return (x.unreduced, x.reduced)

    def vma_rule(self, x: ArrayType, v: ArrayType, **_):
        return x.vma

    def batch(self, B, axis, args, dims, *, low, high, interior):
        """JAX's `_pad_batch_rule`: no padding on the batch dim; a batched padding value pads
        with zeros and selects each example's value where the mask says padding."""
        x, v = args
        d, vd = dims
        if d is None:
            d = 0
            x = B.broadcast(x, axis.size, 0, None)
        ins = lambda t, k: (*t[:d], k, *t[d:])
        cfg = dict(low=ins(low, 0), high=ins(high, 0), interior=ins(interior, 0))
        if vd is None:
            return B.bind(self, x, v, **cfg), d
        t = B.type_of(x)
        padded = B.bind(self, x, np.zeros((), t.dtype), **cfg)
        spec = B.PartitionSpec(*t.spec) if t.mesh.has_explicit else None
        ones = B.full(t.shape, True, np.bool_, out_sharding=spec)
        mask = B.bind(self, ones, np.bool_(False), **cfg)
        fill = B.broadcast_in_dim(B.moveaxis(v, vd, 0), B.type_of(padded).shape, (d,))
        return B.select_n(mask, fill, padded), d

    def vjp(self, L, g, ins, outs, *, low, high, interior):
        """JAX's `_pad_transpose`: take every `interior + 1`-th element between the pads. Where a
        low/high pad is negative (a crop), first un-pad by the negated low/high, as JAX does: the
        cropped elements get zeros."""
        xs = ins[0].aval.shape
        st = [it + 1 for it in interior]
        if any(lo < 0 for lo in low) or any(hi < 0 for hi in high):
            g = bind(self, g, np.zeros((), g.aval.dtype), low=tuple(-lo for lo in low),
                     high=tuple(-hi for hi in high), interior=(0,) * len(low))
            start = [0] * len(xs)
        else:   # (positive pads only: a slice of the padded cotangent)
            start = list(low)
        limit = [s0 + (d - 1) * k + 1 if d else s0 for s0, d, k in zip(start, xs, st)]
        r = bind(slice_p, g, start_indices=tuple(start), limit_indices=tuple(limit),
                 strides=None if all(k == 1 for k in st) else tuple(st))
        return [r, None]

    def format_params(self, p):
        return f"low={tuple(p['low'])} high={tuple(p['high'])} interior={tuple(p['interior'])}"

    def lower(self, ctx, eqn, x, v):
        p = eqn.params
        return [ctx.op(f"stablehlo.pad {x}, {v}, low = {int_list(p['low'])}, high = {int_list(p['high'])}, "
                       f"interior = {int_list(p['interior'])} : ({ttype(eqn.inputs[0].type)}, "
                       f"{ttype(eqn.inputs[1].type)}) -> {ttype(eqn.outputs[0].type)}")]


pad = Pad()


# --- iota ----------------------------------------------------------------------------------
class Iota(Primitive):
    """`broadcasted_iota` / `arange`: replicated unless `out_sharding` is given."""

    name = "iota"

    def shape_rule(self, *, dtype, shape, dimension, out_sharding=None, mesh=None):
        return [(tuple(shape), dtype, False)]

    def sharding_rule(self, *, dtype, shape, dimension, out_sharding=None, mesh=None):
        if out_sharding is None:
            return [(None,) * len(shape)]
        return [out_sharding_entries(out_sharding, shape, mesh)]

    def ur_rule(self, **_):
        return [(_NONE, _NONE)]

    def vma_rule(self, **_):
        return [_NONE]

    def format_params(self, p):
        s = f"dtype={dt.short_name(p['dtype'])} shape={tuple(p['shape'])} dimension={p['dimension']}"
        return s + (f" sharding={p['out_sharding']!r}" if p.get("out_sharding") is not None else "")

    def lower(self, ctx, eqn):
        return [ctx.op(f"stablehlo.iota dim = {eqn.params['dimension']} : {ttype(eqn.outputs[0].type)}")]


iota = Iota()
