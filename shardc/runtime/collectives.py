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

    def __str__(self) -> str:
        axes = ",".join(self.axes) if self.axes is not None else "?"
        src = self.source or "?"
        return f"{self.kind} axes=({axes}) bytes={self.bytes} at {src}"


def _shape_bytes(shape_text: str) -> int:
    parts = re.findall(r"([a-z]+[0-9]*)\[([0-9,]*)\]", shape_text)
    sizes = []
    for dtype, dims in parts:
        n = math.prod(int(d) for d in dims.split(",") if d) if dims else 1
        sizes.append(n * _BYTES.get(dtype, 4))
    return sizes[-1] if sizes else 0


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


def collectives_of(hlo: str, mesh: AbstractMesh, devices=None) -> list[Collective]:
    out = []
    for line in hlo.splitlines():
        m = _OP_RE.search(line)
        if not m:
            continue
        kind = m.group("kind")
        src = None
        # the innermost op (a collective inside `shard_map` is named "sc.shard_map at F:L1/sc.psum
        # at F:L2"): the user's line that asked for it
        sm = re.search(r'op_name="[^"]* at ((?:[^"\\]|\\.)*):(\d+)"', line)
        if sm:
            src = f"{sm.group(1)}:{sm.group(2)}"
        if kind == "collective-permute":
            pairs = _pairs(line) or []
            axes = _permute_axes(pairs, mesh)
            groups = tuple(tuple(p) for p in pairs)
        else:
            groups_l = _explicit_groups(line) or _iota_groups(line) or _mesh_groups(line)
            axes = groups_to_axes(groups_l, mesh) if groups_l else (mesh.axis_names if "replica_groups={}" in line else None)
            groups = tuple(tuple(g) for g in (groups_l or []))
        out.append(Collective(kind, axes, _shape_bytes(m.group("shape")), src, groups))
    return out
