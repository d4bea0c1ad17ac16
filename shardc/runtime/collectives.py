"""Collectives in XLA's partitioned HLO, decoded back to mesh axes and the
user's source lines (carried in by the emitter's `loc(...)` annotations)."""
from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..mesh import AbstractMesh

_KINDS = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute",
          "collective-broadcast", "ragged-all-to-all")
_OP_RE = re.compile(r"=\s*(?P<shape>\((?:[^=]|=(?=\d+\*/))*?\)|[a-z0-9]+\[[^\]]*\](?:\{[^}]*\})?)\s+"
                    r"(?P<kind>" + "|".join(_KINDS) + r")(?P<start>-start)?\(")
_BYTES = {"pred": 1, "s8": 1, "u8": 1, "s16": 2, "u16": 2, "f16": 2, "bf16": 2, "s32": 4, "u32": 4,
          "f32": 4, "s64": 8, "u64": 8, "f64": 8, "c64": 8, "c128": 16}


@dataclass(frozen=True)
class Collective:
    """One collective: its kind, the mesh axes it spans, the bytes each device
    receives (its output), and the user's source line."""

    kind: str
    axes: tuple[str, ...] | None
    bytes: int
    source: str | None
    groups: tuple[tuple[int, ...], ...] = ()
    #: times it runs per execution: the product of the trip counts of the loops it is in
    #: (None: inside a loop whose trip count XLA does not know)
    runs: int | None = 1
    #: every user line XLA merged into it (a combined gradient all-reduce); `source` is the first
    sources: tuple[str, ...] = ()

    def __str__(self) -> str:
        axes = ",".join(self.axes) if self.axes is not None else "?"
        src = self.source or "?"
        return f"{self.kind} axes=({axes}) bytes={self.bytes} at {src}"


def shape_elements(shape_text: str, start: bool = False) -> list[int]:
    """The bytes of each element of a collective's result shape. XLA merges collectives
    into one tuple-shaped op (several gradient all-reduces) and splits an all-to-all into
    one element per peer, so a collective moves the sum of its elements; an async
    `-start` op's shape is (operands, results), of which the results count."""
    parts = re.findall(r"([a-z]+[0-9]*)\[([0-9,]*)\]", shape_text)
    sizes = [(math.prod(int(d) for d in dims.split(",") if d) if dims else 1) * _BYTES.get(dtype, 4)
             for dtype, dims in parts]
    if start and len(sizes) > 1:
        sizes = sizes[len(sizes) // 2:]
    return sizes


def _iota_groups(text: str) -> list[list[int]] | None:
    m = re.search(r"replica_groups=\[([0-9,]+)\]<=\[([0-9,]+)\](?:T\(([0-9,]+)\))?", text)
    if not m:
        return None
    shape = [int(x) for x in m.group(1).split(",")]
    dims = [int(x) for x in m.group(2).split(",")]
    ids = np.arange(math.prod(dims)).reshape(dims)
    if m.group(3):
        ids = ids.transpose([int(x) for x in m.group(3).split(",")])
    return ids.reshape(shape).tolist()


def _explicit_groups(text: str) -> list[list[int]] | None:
    m = re.search(r"replica_groups=\{(\{[0-9,]*\}(?:,\{[0-9,]*\})*)\}", text)
    if not m:
        return None
    return [[int(x) for x in g.split(",") if x] for g in re.findall(r"\{([0-9,]*)\}", m.group(1))]


def _mesh_groups(text: str) -> list[list[int]] | None:
    m = re.search(r"replica_groups=mesh\[([^\]]*)\](?:,\s*device_ids=\(([^)]*\)?)\))?\s*\{([^}]*)\}", text)
    if not m:
        return None
    axes = re.findall(r"'([^']+)'=(\d+)", m.group(1))
    names = [a for a, _ in axes]
    sizes = [int(s) for _, s in axes]
    n = math.prod(sizes)
    ids = np.arange(n)
    dev = m.group(2)
    if dev:
        dm = re.match(r"\[([0-9,]+)\](?:T\(([0-9,]+)\))?", dev.strip())
        if dm:
            d = np.arange(n).reshape([int(x) for x in dm.group(1).split(",")])
            if dm.group(2):
                d = d.transpose([int(x) for x in dm.group(2).split(",")])
            ids = d.reshape(-1)
        else:
            ids = np.array([int(x) for x in re.findall(r"\d+", dev)])
    grid = ids.reshape(sizes)
    sel = re.findall(r"'([^']+)'(?::\((\d+)\)(\d+))?", m.group(3))
    if any(sub for _, sub, _ in sel):
        return None
    group_axes = [names.index(a) for a, _, _ in sel]
    other = [i for i in range(len(names)) if i not in group_axes]
    moved = np.transpose(grid, other + group_axes)
    return moved.reshape(-1, math.prod(sizes[i] for i in group_axes) if group_axes else 1).tolist()


def _pairs(text: str) -> list[list[int]] | None:
    m = re.search(r"source_target_pairs=\{([^}]*(?:\},\{[^}]*)*)\}", text)
    if not m:
        return None
    return [[int(a), int(b)] for a, b in re.findall(r"\{?(\d+),(\d+)\}?", m.group(1))]


def groups_to_axes(groups: Sequence[Sequence[int]], mesh: AbstractMesh) -> tuple[str, ...] | None:
    """The mesh axes whose devices form exactly these groups (logical ids)."""
    if not groups or mesh.empty:
        return None
    target = {frozenset(g) for g in groups}
    ids = np.arange(mesh.size).reshape(mesh.axis_sizes)
    n = len(mesh.axis_names)
    for k in range(0, n + 1):
        for combo in itertools.combinations(range(n), k):
            other = [i for i in range(n) if i not in combo]
            moved = np.transpose(ids, other + list(combo)).reshape(-1, math.prod(mesh.axis_sizes[i] for i in combo) if combo else 1)
            if {frozenset(r.tolist()) for r in moved} == target:
                return tuple(mesh.axis_names[i] for i in combo)
    return None


def _permute_axes(pairs: list[list[int]], mesh: AbstractMesh) -> tuple[str, ...] | None:
    if mesh.empty:
        return None
    coords = lambda i: np.unravel_index(i, mesh.axis_sizes)
    changed = set()
    for a, b in pairs:
        ca, cb = coords(a), coords(b)
        changed |= {mesh.axis_names[k] for k in range(len(ca)) if ca[k] != cb[k]}
    return mesh.mesh_order(changed)


_COMP_RE = re.compile(r"^(?:ENTRY )?%?([\w.\-]+) .*\{$")
_WHILE_RE = re.compile(r"while\(.*?body=%?([\w.\-]+)")
_TRIP_RE = re.compile(r'"known_trip_count":\{"n":"(\d+)"\}')


def _op_lines(hlo: str):
    """(the computation it is in, the line) for each instruction line of an HLO module."""
    comp = None
    for line in hlo.splitlines():
        m = _COMP_RE.match(line)
        if m and not line.startswith(" "):
            comp = m.group(1)
            continue
        yield comp, line


def _loop_runs(hlo: str) -> dict[str, int | None]:
    """How many times each computation runs per execution: a while body runs its loop's
    known trip count times its caller's (None where XLA does not know the count)."""
    parent: dict[str, tuple[str, int | None]] = {}
    for comp, line in _op_lines(hlo):
        w = _WHILE_RE.search(line)
        if w and comp is not None:
            t = _TRIP_RE.search(line)
            parent[w.group(1)] = (comp, int(t.group(1)) if t else None)

    def runs(c: str, depth: int = 0) -> int | None:
        if c not in parent or depth > 64:
            return 1
        up, n = parent[c]
        r = runs(up, depth + 1)
        return None if n is None or r is None else n * r

    return {c: runs(c) for c in parent}


def _sources(line: str) -> tuple[str, ...]:
    """The user's lines in an op's name: the innermost for a nested name ("sc.shard_map at
    F:L1/sc.psum at F:L2"), all of them for a name XLA merged ("(A at F:L1:B at F:L2)")."""
    m = re.search(r'op_name="((?:[^"\\]|\\.)*)"', line)
    if not m:
        return ()
    name = m.group(1)
    found = [f"{f}:{n}" for f, n in re.findall(r" at ([^ :\"]+):(\d+)", name)]
    if not found:
        return ()
    return tuple(dict.fromkeys(found)) if name.startswith("(") else (found[-1],)


def collectives_of(hlo: str, mesh: AbstractMesh, devices=None) -> list[Collective]:
    out = []
    loops = _loop_runs(hlo)
    for comp, line in _op_lines(hlo):
        m = _OP_RE.search(line)
        if not m:
            continue
        kind = m.group("kind")
        srcs = _sources(line)
        src = srcs[0] if srcs else None
        if kind == "collective-permute":
            pairs = _pairs(line) or []
            axes = _permute_axes(pairs, mesh)
            groups = tuple(tuple(p) for p in pairs)
        else:
            groups_l = _explicit_groups(line) or _iota_groups(line) or _mesh_groups(line)
            axes = groups_to_axes(groups_l, mesh) if groups_l else (mesh.axis_names if "replica_groups={}" in line else None)
            groups = tuple(tuple(g) for g in (groups_l or []))
        out.append(Collective(kind, axes, sum(shape_elements(m.group("shape"), bool(m.group("start")))), src,
                              groups, loops.get(comp, 1), srcs))
    return out
