"""`shard_map`: a per-device body over Manual mesh axes (JAX rules §4.1, §4.5).

The body is a nested typed program on the mesh with the manual axes marked
Manual; its values have *local* shapes and a varying-manual-axes (VMA) set.
Outside, the results have the global types the `out_specs` give. Lowering
emits `sdy.manual_computation` with the body inlined as its region.
"""
from __future__ import annotations

import math

from ..core import Nested, Tracer, bind, current_trace, infer
from ..emit.text import ttype
from ..errors import ShardcNotImplementedError, ShardcValueError
from ..ir import Eqn, Program, Var
from ..mesh import AbstractMesh, AxisType
from ..sharding import Entry, PartitionSpec, entry_axes
from ..transforms.ad import replay
from ..transforms.batching import vmapped_spmd_axes
from ..types import ArrayType, check_spec
from . import collectives as col
from . import shape as sp


def manual_entry(e: Entry, manual: frozenset[str]) -> tuple[str, ...]:
    return tuple(a for a in entry_axes(e) if a in manual)


def local_type(t: ArrayType, spec: PartitionSpec, body_mesh: AbstractMesh,
               manual: frozenset[str], check_vma: bool) -> ArrayType:
    """The type a body sees for an argument `t` passed with in_spec `spec`."""
    spec_t = tuple(spec) + (None,) * (t.ndim - len(spec))
    shape, entries, vma = [], [], set()
    for i, d in enumerate(t.shape):
        man = manual_entry(spec_t[i], manual)
        n = math.prod(body_mesh.axis_size(a) for a in man)
        shape.append(d // n)
        vma.update(man)
        rest = tuple(a for a in entry_axes(t.spec[i]) if a not in manual)
        entries.append(None if not rest else (rest[0] if len(rest) == 1 else rest))
    # the free (Explicit) axes must still divide the local dims (a given in_spec may split a
    # dim the argument also shards on a free axis)
    check_spec(PartitionSpec(*entries), body_mesh, shape)
    # as JAX's `_shard_shaped_array`: the axes of enclosing shard_maps it varies over stay; with
    # check_vma=False nothing is tracked over the manual axes, unreduced/reduced included (the
    # free axes' stay in the sharding)
    u, r = (t.unreduced, t.reduced) if check_vma else (t.unreduced - manual, t.reduced - manual)
    return ArrayType(tuple(shape), t.dtype, tuple(entries), u, r,
                     (frozenset(vma) if check_vma else frozenset()) | t.vma, body_mesh, t.weak_type,
                     t.memory_space)   # (JAX's `aval.update`: the memory space stays)


def global_type(t: ArrayType, spec: PartitionSpec, outer_mesh: AbstractMesh,
                manual: frozenset[str]) -> ArrayType:
    """The type outside for a body result `t` returned under out_spec `spec`."""
    spec_t = tuple(spec) + (None,) * (t.ndim - len(spec))
    shape, entries = [], []
    for i, d in enumerate(t.shape):
        man = manual_entry(spec_t[i], manual)
        shape.append(d * math.prod(outer_mesh.axis_size(a) for a in man))
        axes = tuple(a for a in man + entry_axes(t.spec[i])
                     if outer_mesh.axis_type(a) == AxisType.Explicit)
        entries.append(None if not axes else (axes[0] if len(axes) == 1 else axes))
    u = frozenset(a for a in spec.unreduced | (t.unreduced - manual))
    r = frozenset(a for a in spec.reduced | (t.reduced - manual))
    # as JAX's `_unshard_shaped_array`: it still varies over the enclosing shard_maps' axes it did
    vma = frozenset(a for a in t.vma if a in outer_mesh.axis_names and outer_mesh.axis_type(a) == AxisType.Manual)
    return ArrayType(tuple(shape), t.dtype, tuple(entries), u, r, vma, outer_mesh, t.weak_type, t.memory_space)


def _sdy_manual(spec: PartitionSpec, ndim: int, manual: frozenset[str], mesh: AbstractMesh,
                sym: str = "@mesh") -> str:
    spec_t = tuple(spec) + (None,) * (ndim - len(spec))
    dims = ", ".join("{" + ", ".join(f'"{a}"' for a in manual_entry(e, manual)) + "}" for e in spec_t)
    u = [a for a in mesh.mesh_order(spec.unreduced) if a in manual]
    extra = ", unreduced={" + ", ".join(f'"{a}"' for a in u) + "}" if u else ""
    return f"<{sym}, [{dims}]{extra}>"


def _check_free_unreduced(body: Program, manual: frozenset[str]) -> None:
    """XLA cannot compile a value unreduced over a free (non-manual) axis inside
    a partial-manual computation: its sdy export aborts the process ("Only one of
    unreduced and manual axes can be present"; JAX 0.10.2 crashes the same way).
    Refuse to lower such a body instead."""
    for v in list(body.in_vars) + [o for e in body.eqns for o in e.outputs]:
        free_u = v.type.unreduced - manual
        if free_u:
            raise ShardcNotImplementedError(
                f"a value of type {v.type} is unreduced over the free (non-manual) axes "
                f"{sorted(free_u)} inside a partial-manual sc.shard_map; XLA cannot compile this "
                "(JAX 0.10.2 aborts). Give the op a reduced out_sharding instead (e.g. "
                "`out_sharding=P(...)` without `unreduced=`), or make those axes manual too and "
                "reduce with `sc.psum`.")


def with_residuals(body: Program, out_specs: tuple, out_types: tuple, manual: frozenset[str],
                   outer: AbstractMesh, check_vma: bool) -> tuple[Program, tuple, tuple, tuple[int, ...]]:
    """A shard_map's body, out_specs and result types extended for reverse mode
    (the front end calls this under differentiation): the body also returns the
    results of its top-level equations, each with a leading dim of 1 laid out
    over the manual axes it varies over (all of them when VMA is unchecked),
    so each device's value comes back unchanged in the backward pass.
    Unreduced / reduced values are left to recompute."""
    saved = [v for e in body.eqns for v in e.outputs if not (v.type.unreduced or v.type.reduced)]
    eqns, outs, specs, types = list(body.eqns), list(body.outputs), list(out_specs), list(out_types)
    for v in saved:
        t = v.type
        params = {"shape": (1, *t.shape), "broadcast_dimensions": tuple(range(1, t.ndim + 1)), "out_sharding": None}
        v1 = Var(infer(sp.broadcast_in_dim, [t], params, body.mesh)[0])
        eqns.append(Eqn(sp.broadcast_in_dim, [v], [v1], params))
        axes = tuple(outer.mesh_order(t.vma if check_vma else manual - vmapped_spmd_axes()))
        spec = PartitionSpec(None if not axes else axes[0] if len(axes) == 1 else axes)
        outs.append(v1)
        specs.append(spec)
        types.append(global_type(v1.type, spec, outer, manual))
    prog = Program(body.name, body.in_vars, eqns, outs, body.mesh)
    return prog, tuple(specs), tuple(types), tuple(v.id for v in saved)


def _saved_vars(body: Program, saved: tuple[int, ...]) -> list[Var]:
    by_id = {v.id: v for e in body.eqns for v in e.outputs}
    return [by_id[i] for i in saved]


class ShardMap(Nested):
    name = "shard_map"
    #: the VJP takes None for outputs no cotangent reaches (its saved values, mostly)
    sparse_cts = True
    constrain_outputs = False
    auto_pcast = False

    def batch(self, B, axis, args, dims, *, body, in_specs, out_specs, manual_axes, check_vma, out_types,
              saved=()):
        """JAX's `_shard_map_batch`: the batch dim goes first and into the specs (over
        `spmd_axis_name`'s manual axes, else unsplit), the body is batched per device. A
        shard_map traced for reverse mode (with residuals) is mapped one example at a time."""
        params = dict(body=body, in_specs=in_specs, out_specs=out_specs, manual_axes=manual_axes,
                      check_vma=check_vma, out_types=out_types, saved=saved)
        if saved:
            return B.map_fallback(self, args, dims, params, axis)
        used = {a for sp_ in in_specs for e in sp_ for a in entry_axes(e)}
        if axis.spmd_name and set(axis.spmd_name) & used:
            raise ShardcValueError("vmap spmd_axis_name cannot appear in shard_map in_specs")
        used_out = {a for sp_ in out_specs for e in sp_ for a in entry_axes(e)}
        if axis.spmd_name and set(axis.spmd_name) & used_out:
            raise ShardcValueError("vmap spmd_axis_name cannot appear in shard_map out_specs")
        if axis.ema and set(axis.ema) & used:
            raise ShardcValueError("vmapped away explicit mesh axis cannot appear in shard_map in_specs")
        spmd = tuple(a for a in (axis.spmd_name or ()) if a in manual_axes)
        entry = None if not spmd else (spmd[0] if len(spmd) == 1 else spmd)
        local = axis.size // math.prod(body.mesh.axis_size(a) for a in spmd) if spmd else axis.size
        inner = type(axis)(axis.name, local, axis.spmd_name, None if spmd else axis.ema)
        xs = [B.moveaxis(x, d, 0) if d is not None else x for x, d in zip(args, dims)]
        bdims = [0 if d is not None else None for d in dims]
        specs = tuple(B.insert_spec(sp_, 0, entry) if d is not None else sp_ for sp_, d in zip(in_specs, bdims))
        # the mesh the shard_map's results live on (its arguments may be host values: `mesh=`
        # given without a context mesh)
        outer = out_types[0].mesh if out_types else B.type_of(xs[0]).mesh if xs else body.mesh
        types = [local_type(B.type_of(x), sp_, body.mesh, manual_axes, check_vma) for x, sp_ in zip(xs, specs)]
        _, od = B.batch_program(body, bdims, inner, manual_axes=manual_axes, check_vma=check_vma, in_types=types)
        want = [0 if d is not None else None for d in od]
        prog, _ = B.batch_program(body, bdims, inner, want=want, manual_axes=manual_axes, check_vma=check_vma,
                                  in_types=types)
        ospecs = tuple(B.insert_spec(sp_, 0, entry) if w is not None else sp_ for sp_, w in zip(out_specs, want))
        otypes = tuple(global_type(o.type, sp_, outer, manual_axes) for o, sp_ in zip(prog.outputs, ospecs))
        outs = B.bind(self, *xs, body=prog, in_specs=specs, out_specs=ospecs, manual_axes=manual_axes,
                      check_vma=check_vma, out_types=otypes, saved=())
        return outs, want

    def vjp(self, L, cts, ins, outs, *, body, in_specs, out_specs, manual_axes, check_vma, out_types,
            saved=()):
        """The backward pass is another shard_map over the same axes that
        replays the body per device and differentiates it; pvary/psum
        transposes move cotangents between varying and invariant. A shard_map
        traced under differentiation (`with_residuals`) also returned its
        body's values, so the replay recomputes none of them (its collectives
        included); one built by another rule replays everything."""
        n, num_res = len(ins), len(saved)
        n_out = len(out_specs) - num_res
        diff = [i for i, x in enumerate(ins) if isinstance(x, Tracer) and x.aval.dtype.kind == "f"]
        # cotangents reaching the saved values (a derivative of this backward pass, e.g. a JVP of
        # a JVP) flow back through the body's equations that computed them
        res_cts = [(k, c) for k, c in enumerate(cts[n_out:]) if c is not None]
        cts = [c if c is not None else L.zeros_ct(o.aval) for c, o in zip(cts[:n_out], outs)]
        prog = Program(body.name, body.in_vars, body.eqns[:len(body.eqns) - num_res], body.outputs[:n_out],
                       body.mesh)
        shapes = [v.type.shape for v in _saved_vars(body, saved)]

        def bwd(*args):
            xs, gs = list(args[:n]), list(args[n:n + n_out])
            rs, rgs = args[n + n_out:n + n_out + num_res], args[n + n_out + num_res:]
            if not check_vma:   # JAX's unchecked transpose: a result's cotangent is shared out
                gs = [_unchecked_scale(L, g, s, manual_axes, body.mesh) for g, s in zip(gs, out_specs[:n_out])]
            trace = current_trace()
            stand_in = {vid: L.reshape(r, shape) for vid, r, shape in zip(saved, rs, shapes)}
            eqns = replay(trace, prog, xs, stand_in)
            ys = eqns.pop()
            pairs = [(y._var, g) for y, g in zip(ys, gs) if hasattr(y, "_var")]
            pairs += [(stand_in[saved[k]]._var, L.reshape(g, shapes[k])) for (k, _), g in zip(res_cts, rgs)]
            res = L.backward(trace, eqns, [xs[i]._var for i in diff], [v for v, _ in pairs], [g for _, g in pairs])
            if not check_vma:   # ... and an argument's is summed over the axes its in_spec leaves out
                res = [c if c is None else _unchecked_sum(c, in_specs[i], manual_axes, body.mesh)
                       for i, c in zip(diff, res)]
            return tuple(L.fit_ct(c, xs[i].aval) if c is not None else L.zeros_ct(xs[i].aval)
                         for i, c in zip(diff, res))

        ct_in_specs = (tuple(in_specs) + tuple(_ct(s) for s in out_specs[:n_out]) + tuple(out_specs[n_out:])
                       + tuple(_ct(out_specs[n_out + k]) for k, _ in res_cts))
        ct_out_specs = tuple(_ct(in_specs[i]) for i in diff)
        # the forward's mesh (its results are typed on it): also where no mesh context is set
        mesh = next((t.mesh for t in out_types if not t.mesh.empty), None)
        res = L.shard_map(bwd, in_specs=ct_in_specs, out_specs=ct_out_specs, mesh=mesh,
                          axis_names=manual_axes, check_vma=check_vma)(*ins, *cts, *outs[n_out:],
                                                                       *(c for _, c in res_cts))
        out = [None] * n
        for i, c in zip(diff, res):
            out[i] = c
        return out

    def format_params(self, p):
        ins = ", ".join(repr(s) for s in p["in_specs"])
        outs = ", ".join(repr(s) for s in p["out_specs"])
        manual = ", ".join(sorted(p["manual_axes"]))
        vma = "" if p["check_vma"] else " check_vma=False"
        return f"manual_axes=({manual}) in_specs=({ins}) out_specs=({outs}){vma}"

    def lower(self, ctx, eqn, *args):
        p = eqn.params
        body: Program = p["body"]
        manual = p["manual_axes"]
        _check_free_unreduced(body, manual)
        ins = [a.type for a in eqn.inputs]
        outs = [v.type for v in eqn.outputs]
        # inside a region traced without a mesh context (a vmap's per-example scan of a shard_map
        # given `mesh=`) the enclosing context has no mesh: the shard_map's results name it
        mesh = ctx.mesh if not ctx.mesh.empty else next(
            (t.mesh for t in (*p["out_types"], *outs, *ins) if not t.mesh.empty), ctx.mesh)
        sym = ctx.mesh_symbol(mesh)
        in_sh = ", ".join(_sdy_manual(s, t.ndim, manual, mesh, sym)
                          for s, t in zip(p["in_specs"], ins))
        out_sh = ", ".join(_sdy_manual(s, t.ndim, manual, mesh, sym)
                           for s, t in zip(p["out_specs"], outs))
        axes = ", ".join(f'"{a}"' for a in mesh.mesh_order(manual))
        lhs, names = ctx.results(len(outs))
        inner = ctx.child(body.mesh)
        block = [inner.fresh("m") for _ in body.in_vars]
        block_args = ", ".join(f"{b}: {ttype(v.type)}" for b, v in zip(block, body.in_vars))
        ctx.emit(f"{lhs} = sdy.manual_computation({', '.join(args)}) in_shardings=[{in_sh}] "
                 f"out_shardings=[{out_sh}] manual_axes={{{axes}}} ({block_args}) {{")
        res = inner.lower_body(body, block)
        inner.emit(f"sdy.return {', '.join(res)} : {', '.join(ttype(o.type) for o in body.outputs)}")
        sig_in = ", ".join(ttype(t) for t in ins)
        sig_out = ", ".join(ttype(t) for t in outs)
        ctx.emit(f"}} : ({sig_in}) -> ({sig_out}){ctx._loc}" if len(outs) != 1 else
                 f"}} : ({sig_in}) -> {sig_out}{ctx._loc}")
        return names


def _unmentioned(spec: PartitionSpec, manual, mesh: AbstractMesh) -> tuple[str, ...]:
    """The manual axes the cotangent spec of `spec` does not name (JAX's
    `_unmentioned2(mesh, spec.to_ct_spec(), ...)`: its partitions and unreduced axes, which are
    `spec`'s reduced ones), in mesh order, less an enclosing vmap's `spmd_axis_name` axes (the
    batch dimension goes there)."""
    used = {a for e in spec for a in entry_axes(e)} | set(spec.reduced)
    return tuple(a for a in mesh.mesh_order(manual - vmapped_spmd_axes()) if a not in used)


def _unchecked_scale(L, g, spec: PartitionSpec, manual, mesh: AbstractMesh):
    """JAX's `_shard_map_transpose` with check_vma=False: a result's cotangent divided by
    the size of the manual axes its out_spec leaves out (every device holds a copy; an
    unreduced result's partial sums too)."""
    size = math.prod(mesh.axis_size(a) for a in _unmentioned(spec, manual, mesh))
    t = L.type_of(g)
    return g if size == 1 or t.dtype.kind != "f" else L.div(g, L.full_like(g, size))


def _unchecked_sum(c, spec: PartitionSpec, manual, mesh: AbstractMesh):
    """... and an argument's cotangent `psum`med over the manual axes its in_spec leaves out."""
    axes = _unmentioned(spec, manual, mesh)
    # (axes a cotangent is reduced over are left as they are: shardc's psum refuses reduced input)
    axes = tuple(a for a in axes if a not in c.aval.reduced)
    return c if not axes else bind(col.ALL_REDUCE["psum"], c, axes=axes)


def _ct(spec: PartitionSpec) -> PartitionSpec:
    return PartitionSpec(*spec, unreduced=spec.reduced, reduced=spec.unreduced)


shard_map = ShardMap()
