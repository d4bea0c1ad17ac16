"""The communication a typed program implies, read from its sharding types alone,
before XLA sees it (`shardc check --cost`; `inspect` compares it with what XLA
inserted). docs/cost_model.md describes the rules and the time model.

Every equation whose operand and result types differ in a way that needs data to
cross devices is listed with the collective that implies: explicit collectives in
`shard_map` bodies (`psum` → all-reduce, …), `reshard`/`mesh_cast` (a sharded dim
unsharded → all-gather, an axis moved between dims → all-to-all, an unreduced axis
dropped → all-reduce or reduce-scatter), `dot_general`s whose contracting dims are
sharded on both sides (an all-reduce or reduce-scatter unless the result is left
unreduced), operands whose sharded dims the result does not keep (all-gather),
reductions over sharded dims, gathers/scatters XLA must feed. Nested bodies are
walked: a `scan` body's collectives run `length` times, a `while` body's an unknown
number of times, each `cond` branch's once. Axes of type Auto are invisible to the
types, so what XLA does on them is not predicted (listed by `inspect` as
"not predicted").
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from ..comm_cost import CostModel, group_size, wire_bytes
from ..ir import Eqn, Program
from ..mesh import AxisType
from ..primitives.gather import gather_spec, scatter_spec
from ..sharding import entry_axes
from ..types import ArrayType

__all__ = ["Predicted", "predict", "predict_program", "total_seconds", "auto_axes_used"]

_ALL_REDUCE = {"psum", "pmax", "pmin"}
_NESTED_RUNS_UNKNOWN = {"while"}


@dataclass(frozen=True)
class Predicted:
    """One collective the types imply."""

    kind: str                   # all-reduce, all-gather, reduce-scatter, all-to-all, collective-permute
    axes: tuple[str, ...]       # mesh axes of each group, in mesh order
    bytes: int                  # per device: the collective's result buffer, as XLA's HLO counts it
    wire_bytes: float           # per device: what the ring algorithm sends
    seconds: float              # one run, from the cost model
    runs: int | None            # times per execution (loop trip counts; None: unknown)
    source: str | None          # the user's file:line
    op: str                     # the operation as written (`sc.dot`, `reshard`, …)
    why: str                    # what in the types implies it
    where: str = ""             # "shard_map body", "scan body ×4", …

    @property
    def total_seconds(self) -> float | None:
        return None if self.runs is None else self.seconds * self.runs


def total_seconds(preds: Iterable[Predicted]) -> float:
    """The estimated time of all collectives per execution (unknown loop counts as one run)."""
    return sum(p.seconds * (p.runs or 1) for p in preds)


def predict_program(prog: Program, model: CostModel | None = None) -> list[Predicted]:
    """Every collective `prog`'s types imply, in program order (nested bodies included)."""
    out: list[Predicted] = []
    _walk(prog, model or CostModel(), 1, "", out)
    return out


def predict(traced, model: CostModel | None = None) -> list[Predicted]:
    """`predict_program` of a `Traced` (what `sc.jit(f).trace(...)` gives)."""
    return predict_program(traced.program, model)


def auto_axes_used(prog: Program) -> tuple[str, ...]:
    """The Auto mesh axes `prog`'s values live on (nested bodies included): XLA decides
    where to communicate over them, so the model predicts nothing there."""
    seen: dict[str, None] = {}

    def walk(p: Program) -> None:
        for a in p.mesh.auto_axes:
            seen[a] = None
        for e in p.eqns:
            for v in e.outputs:
                for a in v.type.mesh.auto_axes:
                    seen[a] = None
            for sub in e.prim.sub_programs(e.params):
                walk(sub)
    walk(prog)
    return tuple(a for a in prog.mesh.axis_names if a in seen) + tuple(a for a in seen
                                                                     if a not in prog.mesh.axis_names)


# --- helpers -------------------------------------------------------------------------------------
def _explicit(t: ArrayType, axes: Iterable[str]) -> tuple[str, ...]:
    """`axes` that are Explicit on t's mesh (Auto ones are invisible to types; Manual
    ones are the shard_map's, handled by its explicit collectives)."""
    m = t.mesh
    return tuple(a for a in axes if a in m.axis_names and m.axis_type(a) == AxisType.Explicit)


def _local_bytes(shape: Sequence[int], dtype, spec: Sequence, mesh) -> int:
    """Bytes per device of a value of `shape` laid out as `spec` (entries of axis names)."""
    n = 1
    for d, e in zip(shape, spec):
        k = math.prod(mesh.axis_size(a) for a in entry_axes(e)) if e is not None else 1
        n *= max(d // k, 1) if d else 0
    return n * _itemsize(dtype)


def _itemsize(dtype) -> int:
    return np.dtype(dtype).itemsize


def _bytes_of(t: ArrayType) -> int:
    return _local_bytes(t.shape, t.dtype, t.spec, t.mesh)


def _order(mesh, axes: Iterable[str]) -> tuple[str, ...]:
    axes = set(axes)
    return tuple(a for a in mesh.axis_names if a in axes)


class _Emitter:
    """Appends predictions for one equation, with its source, runs and context."""

    def __init__(self, eqn: Eqn, model: CostModel, runs: int | None, where: str, out: list[Predicted],
                 producers: dict[int, Eqn] | None = None):
        self.eqn, self.model, self.runs, self.where, self.out = eqn, model, runs, where, out
        self.producers = producers or {}

    def add(self, kind: str, axes: Iterable[str], mesh, buffer: int, why: str, at: Eqn | None = None) -> None:
        axes = _order(mesh, axes)
        n = group_size(mesh, axes)
        if n <= 1 or not axes:
            return
        e = at or self.eqn
        self.out.append(Predicted(
            kind, axes, int(buffer), wire_bytes(kind, buffer, n), self.model.seconds(kind, axes, buffer, n),
            self.runs, str(e.loc) if e.loc is not None else None, e.api or e.prim.name, why, self.where))

    def reduce_scatter(self, axes: Sequence[str], mesh, buffer: int, why: str, at: Eqn | None = None) -> bool:
        """A reduce-scatter the partitioner must insert (not one the user wrote): XLA's CPU
        pipeline has no pass that forms it, so there it is an all-reduce of the whole buffer
        after which each device keeps its slice; GPU and TPU pipelines form the reduce-scatter."""
        if self.model.platform == "cpu":
            n = group_size(mesh, axes)
            self.add("all-reduce", axes, mesh, buffer * n, why + " (XLA on CPU: all-reduce, then slice)", at)
            return False
        self.add("reduce-scatter", axes, mesh, buffer, why, at)
        return True


# --- rules ---------------------------------------------------------------------------------------
def _reshard(em: _Emitter, src: ArrayType, dst: ArrayType, what: str = "reshard", producer: Eqn | None = None) -> None:
    """From src's layout to dst's: unreduced axes summed, sharded dims gathered, axes moved.
    XLA names a sum of unreduced values after the op that produced them (`producer`)."""
    mesh = dst.mesh
    explicit = set(_explicit(dst, mesh.axis_names)) & set(_explicit(src, src.mesh.axis_names))
    # unreduced axes that dst no longer has: summed (scattered where dst shards a dim on them)
    dropped_u = [a for a in src.unreduced if a not in dst.unreduced and a in explicit]
    dst_dim_axes = {a for e in dst.spec for a in entry_axes(e)}
    cur = list(src.spec)
    if dropped_u:
        scat = [a for a in dropped_u if a in dst_dim_axes]
        summed = [a for a in dropped_u if a not in dst_dim_axes]
        if summed:
            em.add("all-reduce", summed, mesh, _local_bytes(src.shape, src.dtype, cur, mesh),
                   f"{what}: unreduced over {','.join(_order(mesh, summed))} → summed", producer)
        if scat:
            after = _with_axes(cur, dst.spec, scat)
            if em.reduce_scatter(scat, mesh, _local_bytes(src.shape, src.dtype, after, mesh),
                                 f"{what}: unreduced over {','.join(_order(mesh, scat))} → summed and scattered",
                                 producer):
                cur = after                       # else all-reduced whole: sliced below as any new axis
    _reshard_dims(em, src, dst, cur, explicit, what)


def _reshard_dims(em: _Emitter, src: ArrayType, dst: ArrayType, cur: list, explicit: set, what: str) -> None:
    """The sharded dims from `cur` to dst's, as XLA's partitioner was measured to do it on
    2-D layouts over a 2×4 mesh (docs/cost_model.md): a dim whose single axis is replaced
    by another at least as large is one collective-permute; otherwise dims are gathered
    last dim first (a dim sharded on several axes whole when one of its axes must move to
    another dim; blocks reordered first when a major axis goes and a minor one stays);
    then newly sharded dims are sliced (locally), axes that move to another dim go in one
    all-to-all, and a collective-permute reorders blocks that end up in another order."""
    mesh = dst.mesh
    dst_axes = {a for e in dst.spec for a in entry_axes(e)}
    size = lambda axes: math.prod(mesh.axis_size(a) for a in axes)  # noqa: E731

    def axes_of(e) -> list[str]:
        return [a for a in entry_axes(e) if a in explicit]

    def slice_new() -> None:
        have = {a for e in cur for a in entry_axes(e)}
        for d, e in enumerate(dst.spec):
            new = [a for a in axes_of(e) if a not in have]
            if new:
                cur[d] = _entry(list(entry_axes(cur[d])) + new)

    permute: set[str] = set()
    have = {a for e in cur for a in entry_axes(e)}
    for d in range(len(cur)):   # one axis swapped for an unused one at least as large: a permute
        a, b = axes_of(cur[d]), axes_of(dst.spec[d])
        if len(a) == len(b) == 1 == len(entry_axes(cur[d])) and a != b and a[0] not in dst_axes \
                and b[0] not in have and size(b) >= size(a):
            cur[d] = dst.spec[d]
            em.add("collective-permute", a + b, mesh, _bytes_of(dst.update(spec=tuple(cur))),
                   f"{what}: dim {d} sharded on {b[0]} instead of {a[0]}")
        elif len(a) == len(b) == 1 == len(entry_axes(cur[d])) and a != b and a[0] not in dst_axes \
                and b[0] not in have and size(a) % size(b) == 0:
            # by a smaller axis: blocks moved to their new owners, then gathered within them
            em.add("collective-permute", a + b, mesh, _local_bytes(src.shape, src.dtype, cur, mesh),
                   f"{what}: dim {d} sharded on {b[0]} instead of {a[0]} (blocks moved)")
            cur[d] = dst.spec[d]
            em.add("all-gather", a, mesh, _bytes_of(dst.update(spec=tuple(cur))),
                   f"{what}: dim {d} sharded on {b[0]} instead of {a[0]} (blocks gathered)")
    for d in reversed(range(len(cur))):
        axes = axes_of(cur[d])
        gone = [a for a in axes if a not in dst_axes]
        if not gone:
            continue
        stays = [a for a in axes if a in axes_of(dst.spec[d])]
        if any(a not in gone and a not in stays for a in axes):
            gone = axes                           # one of them moves away: the whole dim is gathered
        elif stays and any(axes.index(g) < axes.index(k) for g in gone for k in stays):
            em.add("collective-permute", axes, mesh, _local_bytes(src.shape, src.dtype, cur, mesh),
                   f"{what}: dim {d} blocks reordered before {','.join(gone)} is gathered")
        cur[d] = _entry([a for a in entry_axes(cur[d]) if a not in gone])
        em.add("all-gather", gone, mesh, _local_bytes(src.shape, src.dtype, cur, mesh),
               f"{what}: dim {d} sharded on {','.join(gone)} → gathered")
    slice_new()
    moved = [(d, a) for d, e in enumerate(cur) for a in axes_of(e) if a not in axes_of(dst.spec[d])]
    if moved:
        em.add("all-to-all", [a for _, a in moved], mesh, _local_bytes(src.shape, src.dtype, cur, mesh),
               f"{what}: {','.join(_order(mesh, [a for _, a in moved]))} moves to another dim")
        gone_from = {a for _, a in moved}
        for d in {d for d, _ in moved}:
            rest = entry_axes(cur[d])
            left = [x for x in rest if x not in gone_from]
            # a major axis leaves and a minor one stays: the blocks left are strided
            if left and any(rest.index(a) < rest.index(k) for a in rest if a in gone_from for k in left):
                permute |= set(rest)
            cur[d] = _entry(left)
        for d, a in moved:
            t = next(i for i, e in enumerate(dst.spec) if a in entry_axes(e))
            cur[t] = _entry(list(entry_axes(cur[t])) + [a])
    for d, e in enumerate(dst.spec):
        if tuple(axes_of(cur[d])) != tuple(axes_of(e)):
            permute |= set(axes_of(e)) | set(axes_of(cur[d]))
    if permute:
        em.add("collective-permute", permute, mesh, _bytes_of(dst),
               f"{what}: blocks reordered across {','.join(_order(mesh, permute))}")


def _entry(axes: Sequence[str]):
    return None if not axes else (axes[0] if len(axes) == 1 else tuple(axes))


def _with_axes(cur: list, target: Sequence, axes: Sequence[str]) -> list:
    """cur with `axes` added on the dims where `target` has them."""
    out = list(cur)
    for d, e in enumerate(target):
        add = [a for a in entry_axes(e) if a in axes and a not in entry_axes(out[d])]
        if add:
            out[d] = _entry(list(entry_axes(out[d])) + add)
    return out


def _dot(em: _Emitter, eqn: Eqn) -> None:
    """As XLA's partitioner does it: each operand is resharded to the layout the product needs
    (its batch and free dims sharded as the result's, its contracting dims on the axes both
    sides share), the product is computed per device, and the partial sums over those shared
    contracting axes are all-reduced (or reduce-scattered onto the result's dims). A
    contracting dim sharded on one side only is either gathered or matched (the other side
    sliced the same way, locally, and the result summed): whichever sends fewer bytes."""
    lhs, rhs = (a.type for a in eqn.inputs)
    out = eqn.outputs[0].type
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    mesh = out.mesh

    def ex(t: ArrayType, e) -> list[str]:
        return list(_explicit(t, entry_axes(e)))

    both: list[str] = []
    contract: dict[tuple[int, int], list[str]] = {}
    for l_, r_ in zip(lc, rc):
        la, ra = ex(lhs, lhs.spec[l_]), ex(rhs, rhs.spec[r_])
        if la and la == ra:
            contract[(l_, r_)] = la
        elif bool(la) != bool(ra):
            axes, t, d = (la, lhs, l_) if la else (ra, rhs, r_)
            n = group_size(mesh, axes)
            gathered = _local_bytes(t.shape, t.dtype, [None if i == d else e for i, e in enumerate(t.spec)], mesh)
            summed = _local_bytes(out.shape, out.dtype, [_entry([a for a in entry_axes(e) if a not in axes])
                                                         for e in out.spec], mesh)
            if wire_bytes("all-reduce", summed, n) < wire_bytes("all-gather", gathered, n) \
                    and not set(axes) & {a for e in out.spec for a in entry_axes(e)}:
                contract[(l_, r_)] = axes
        both += [a for a in contract.get((l_, r_), []) if a not in both]
    lfree = [d for d in range(lhs.ndim) if d not in lc and d not in lb]
    rfree = [d for d in range(rhs.ndim) if d not in rc and d not in rb]
    lmap = {d: i for i, d in enumerate(lb)} | {d: len(lb) + i for i, d in enumerate(lfree)}
    rmap = {d: i for i, d in enumerate(rb)} | {d: len(lb) + len(lfree) + i for i, d in enumerate(rfree)}
    for side, t, m, k in (("lhs", lhs, lmap, 0), ("rhs", rhs, rmap, 1)):
        target = []
        for d in range(t.ndim):
            if d in m:
                target.append(_entry([a for a in ex(out, out.spec[m[d]]) if a not in both]))
            else:
                pair = next(p for p in zip(lc, rc) if p[k] == d)
                target.append(_entry(contract.get(pair, [])))
        want = t.update(spec=tuple(target))
        if want.spec != t.spec:
            _reshard(em, t, want, f"dot_general {side}")
    if both and not set(both) <= out.unreduced:
        summed = [a for a in both if a not in out.unreduced]
        out_axes = {a for e in out.spec for a in entry_axes(e)}
        scat = [a for a in summed if a in out_axes]
        red = [a for a in summed if a not in out_axes]
        if red:
            spec = [_entry([a for a in entry_axes(e) if a not in scat]) for e in out.spec]
            em.add("all-reduce", red, mesh, _local_bytes(out.shape, out.dtype, spec, mesh),
                   f"dot_general: contracting dims sharded on {','.join(_order(mesh, red))}, result not unreduced")
        if scat:
            em.reduce_scatter(scat, mesh, _bytes_of(out),
                              f"dot_general: contracting dims sharded on {','.join(_order(mesh, scat))}, "
                              "result sharded on them")


def _reduce(em: _Emitter, eqn: Eqn) -> None:
    x, out = eqn.inputs[0].type, eqn.outputs[0].type
    dims = eqn.params.get("axes")
    if dims is None:
        dims = (eqn.params["axis"],)
    axes = [a for d in dims for a in _explicit(x, entry_axes(x.spec[d]))]
    summed = [a for a in axes if a not in out.unreduced]
    if not summed:
        return
    out_axes = {a for e in out.spec for a in entry_axes(e)}
    scat = [a for a in summed if a in out_axes]
    red = [a for a in summed if a not in out_axes]
    if red:
        em.add("all-reduce", red, out.mesh, _bytes_of(out),
               f"{eqn.prim.name} over dims sharded on {','.join(_order(out.mesh, red))}")
    if scat:
        em.reduce_scatter(scat, out.mesh, _bytes_of(out),
                          f"{eqn.prim.name} over dims sharded on {','.join(_order(out.mesh, scat))}, "
                          "result sharded on them")


def _collective(em: _Emitter, eqn: Eqn) -> None:
    """An explicit collective in a shard_map body: it communicates over the axes the
    operand varies (or is unreduced) along."""
    name = eqn.prim.name
    x, out = eqn.inputs[0].type, eqn.outputs[0].type
    axes = tuple(eqn.params["axes"])
    mesh = x.mesh
    if name in _ALL_REDUCE:
        live = [a for a in axes if a in x.vma or a in x.unreduced]
        em.add("all-reduce", live, mesh, _bytes_of(x), f"{name} over {','.join(live)}")
    elif name == "all_gather":
        em.add("all-gather", axes, mesh, _bytes_of(out), f"all_gather over {','.join(axes)}")
    elif name == "psum_scatter":
        em.add("reduce-scatter", axes, mesh, _bytes_of(out), f"psum_scatter over {','.join(axes)}")
    elif name == "ppermute":
        em.add("collective-permute", axes, mesh, _bytes_of(x), f"ppermute over {','.join(axes)}")
    elif name == "all_to_all":
        em.add("all-to-all", axes, mesh, _bytes_of(x), f"all_to_all over {','.join(axes)}")


def _shard_map(em: _Emitter, eqn: Eqn) -> None:
    """Arguments laid out otherwise than the in_specs ask: the boundary reshards them."""
    for a, spec in zip(eqn.inputs, eqn.params["in_specs"]):
        t = a.type
        if t.mesh.empty or spec is None:
            continue
        want = t.update(spec=tuple(list(spec) + [None] * (t.ndim - len(spec)))[: t.ndim], unreduced=frozenset(),
                        reduced=frozenset())
        want = want.update(spec=tuple(_entry([x for x in entry_axes(e) if x in t.mesh.axis_names]) for e in want.spec))
        _reshard(em, t, want, "shard_map argument")


def _gather_like(em: _Emitter, eqn: Eqn) -> None:
    """A gather/scatter whose result layout the rules could not derive (out_sharding given):
    the operand's sharded dims that the result does not keep are gathered."""
    out = eqn.outputs[0].type
    ins = [a.type for a in eqn.inputs]
    if any(t.mesh.empty for t in ins) or eqn.params.get("out_sharding") is None:
        return
    try:
        if eqn.prim.name == "gather":
            nat = gather_spec(ins[0], ins[1], eqn.params["dimension_numbers"], eqn.params["slice_sizes"])
        else:
            nat = scatter_spec(ins[0], ins[1], ins[2], eqn.params["dimension_numbers"])
    except Exception:  # noqa: BLE001  (a rule this pass cannot re-run: say nothing rather than guess)
        return
    if nat is not None:
        _reshard(em, out.update(spec=tuple(nat), unreduced=frozenset(), reduced=frozenset()), out, eqn.prim.name)
        return
    op = ins[0]
    out_axes = {a for e in out.spec for a in entry_axes(e)}
    dn = eqn.params["dimension_numbers"]
    indexed = set(getattr(dn, "start_index_map", ())) | set(getattr(dn, "collapsed_slice_dims", ())) \
        if eqn.prim.name == "gather" else set(range(op.ndim))
    # operand dims that are indexed: XLA needs the whole operand there (gather it); operand
    # dims taken whole into each slice: gathered locally, then the result is all-gathered
    on_index = [a for d, e in enumerate(op.spec) if d in indexed for a in _explicit(op, entry_axes(e))
                if a not in out_axes]
    on_slice = [a for d, e in enumerate(op.spec) if d not in indexed for a in _explicit(op, entry_axes(e))
                if a not in out_axes]
    if on_index:
        cur = [_entry([a for a in entry_axes(e) if a not in on_index]) for e in op.spec]
        em.add("all-gather", on_index, op.mesh, _local_bytes(op.shape, op.dtype, cur, op.mesh),
               f"{eqn.prim.name}: operand's indexed dims sharded on {','.join(on_index)}")
    if on_slice:
        em.add("all-gather", on_slice, op.mesh, _bytes_of(out),
               f"{eqn.prim.name}: operand sharded on {','.join(on_slice)} along the slices, the result is not")


# --- the walk ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Hoist:
    """Inside a loop body: the values that are the same every iteration (`ids`), and where
    XLA's loop-invariant code motion moves what only depends on them (`runs`, `where`)."""

    ids: frozenset[int]
    runs: int | None
    where: str


def _walk(prog: Program, model: CostModel, runs: int | None, where: str, out: list[Predicted],
          live_outs: set[int] | None = None, hoist: _Hoist | None = None) -> None:
    """Predict the live equations of `prog` (XLA drops the dead ones: a backward
    collective whose cotangent nobody uses is never run; and hoists loop-invariant ones
    out of loops: a `reshard` of a closed-over weight in a loop body runs once)."""
    live, _ = _liveness(prog, live_outs)
    producers: dict[int, Eqn] = {}
    inv = set(hoist.ids) if hoist is not None else set()
    for i, eqn in enumerate(prog.eqns):
        for v in eqn.outputs:
            producers[v.id] = eqn
        invariant = hoist is not None and all(not hasattr(a, "id") or a.id in inv for a in eqn.inputs)
        if invariant:
            inv.update(v.id for v in eqn.outputs)
        if i not in live:
            continue
        e_runs, e_where = (hoist.runs, f"{hoist.where} (hoisted out of the loop: loop-invariant)".lstrip()) \
            if invariant else (runs, where)
        em = _Emitter(eqn, model, e_runs, e_where, out, producers)
        name = eqn.prim.name
        if name in ("reshard", "mesh_cast"):
            x = eqn.inputs[0]
            _reshard(em, x.type, eqn.outputs[0].type, eqn.api or name, producers.get(getattr(x, "id", None)))
        elif name == "dot_general":
            _dot(em, eqn)
        elif name.startswith("reduce_") or name in ("argmax", "argmin"):
            _reduce(em, eqn)
        elif name in _ALL_REDUCE or name in ("all_gather", "psum_scatter", "ppermute", "all_to_all"):
            _collective(em, eqn)
        elif name == "shard_map":
            _shard_map(em, eqn)
        elif name in ("gather", "scatter") or name.startswith("scatter"):
            _gather_like(em, eqn)
        inner = None
        if hoist is not None and not invariant and eqn.prim.name in _ONE_TO_ONE - {"shard_map"}:
            inner = {k for k, a in enumerate(eqn.inputs) if not hasattr(a, "id") or a.id in inv}
        _nested(eqn, model, e_runs, e_where, out, live[i], hoist if inner is not None else None, inner)


def _nested(eqn: Eqn, model: CostModel, runs: int | None, where: str, out: list[Predicted],
            live_outs: set[int], hoist: _Hoist | None = None, inv_inputs: set[int] | None = None) -> None:
    subs = eqn.prim.sub_programs(eqn.params)
    if not subs:
        return
    name = eqn.prim.name
    inner_runs, label = runs, name
    if name == "scan":
        n = int(eqn.params.get("length", 1))
        inner_runs = None if runs is None else runs * n
        label = f"scan body ×{n}"
    elif name in _NESTED_RUNS_UNKNOWN:
        inner_runs, label = None, "while body ×?"
    elif name == "shard_map":
        label = "shard_map body"
    elif name == "cond":
        label = "cond branch"
    ctx = f"{where} / {label}" if where else label
    for sub in subs:
        h = None
        if name == "scan" or (name in _NESTED_RUNS_UNKNOWN and sub is eqn.params.get("body")):
            # carries the body passes through unchanged are the same every iteration
            nc = int(eqn.params.get("num_carry", len(sub.outputs)))
            ids = frozenset(v.id for k, v in enumerate(sub.in_vars[:nc])
                            if k < len(sub.outputs) and sub.outputs[k] is v)
            h = _Hoist(ids, runs, where)
        elif hoist is not None and inv_inputs is not None:
            off = 1 if name == "cond" else 0
            ids = frozenset(v.id for k, v in enumerate(sub.in_vars) if k + off in inv_inputs)
            h = _Hoist(ids, hoist.runs, hoist.where)
        _walk(sub, model, inner_runs, ctx, out, _body_live_outs(eqn, sub, live_outs), h)


# --- liveness (XLA's dead-code elimination, as far as the types show it) ---------------------------
_ONE_TO_ONE = {"shard_map", "checkpoint", "remat", "cond"}


def _liveness(prog: Program, live_outs: set[int] | None) -> tuple[dict[int, set[int]], set[int]]:
    """{live equation index: its live output indices}, and the indices of `prog`'s inputs used."""
    want = set(range(len(prog.outputs))) if live_outs is None else live_outs
    needed = {id(prog.outputs[k]) for k in want if hasattr(prog.outputs[k], "id")}
    needed_ids = {prog.outputs[k].id for k in want if hasattr(prog.outputs[k], "id")}
    del needed
    live: dict[int, set[int]] = {}
    for i in range(len(prog.eqns) - 1, -1, -1):
        eqn = prog.eqns[i]
        outs = {k for k, v in enumerate(eqn.outputs) if v.id in needed_ids}
        if not outs:
            continue
        live[i] = outs
        for k in _used_inputs(eqn, outs):
            a = eqn.inputs[k]
            if hasattr(a, "id"):
                needed_ids.add(a.id)
    used = {k for k, v in enumerate(prog.in_vars) if v.id in needed_ids}
    return live, used


def _used_inputs(eqn: Eqn, live_outs: set[int]) -> set[int]:
    """The inputs of `eqn` its live outputs depend on (all of them unless a body says otherwise)."""
    name = eqn.prim.name
    every = set(range(len(eqn.inputs)))
    subs = eqn.prim.sub_programs(eqn.params)
    if not subs:
        return every
    if name in _ONE_TO_ONE:
        used: set[int] = set()
        off = 1 if name == "cond" else 0
        for sub in subs:
            if len(sub.in_vars) != len(eqn.inputs) - off or len(sub.outputs) != len(eqn.outputs):
                return every
            used |= {k + off for k in _liveness(sub, live_outs)[1]}
        return used | set(range(off))
    if name == "scan":
        body = subs[0]
        if len(body.in_vars) != len(eqn.inputs):
            return every
        outs = _scan_body_live(eqn, body, live_outs)
        return _liveness(body, outs)[1]
    return every


def _scan_body_live(eqn: Eqn, body: Program, live_outs: set[int]) -> set[int]:
    """A scan body's live outputs: the live results, and every carry whose next value a
    live computation reads (to a fixed point)."""
    nc = int(eqn.params.get("num_carry", 0))
    outs = set(live_outs)
    while True:
        used = _liveness(body, outs)[1]
        more = {k for k in used if k < nc} - outs
        if not more:
            return outs
        outs |= more


def _body_live_outs(eqn: Eqn, sub: Program, live_outs: set[int]) -> set[int] | None:
    name = eqn.prim.name
    if name in _ONE_TO_ONE and len(sub.outputs) == len(eqn.outputs):
        return set(live_outs)
    if name == "scan" and sub is eqn.prim.sub_programs(eqn.params)[0] and len(sub.in_vars) == len(eqn.inputs):
        return _scan_body_live(eqn, sub, live_outs)
    return None
