"""The cost model beside XLA: what the types predict (`shardc.passes.cost`) matched
against the collectives in XLA's partitioned HLO, by source line, kind and mesh axes.

XLA combines collectives: several gradient all-reduces become one all-reduce of a
tuple, an all-to-all is split into one tuple element per peer. Each HLO collective is
read here with all its elements' sizes (`Collective.bytes` is their sum), so a
combined all-reduce is matched against every prediction it absorbed and compared by
total bytes.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

from shardc.passes.cost import Predicted
from shardc.runtime.collectives import _OP_RE, _op_lines, shape_elements

__all__ = ["Actual", "Match", "actual_collectives", "compare", "differences"]


@dataclass
class Actual:
    """One collective in XLA's HLO with every element's bytes."""

    kind: str
    axes: tuple[str, ...] | None
    elements: list[int]
    runs: int | None
    sources: tuple[str, ...]

    @property
    def bytes(self) -> int:
        return sum(self.elements)


@dataclass
class Match:
    """One row of the comparison: predictions and the XLA collective they correspond to."""

    status: str                      # agrees | bytes differ | other line | other kind | predicted only | XLA only
    predicted: list[Predicted] = field(default_factory=list)
    actual: Actual | None = None
    note: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "agrees"

    @property
    def source(self) -> str | None:
        if self.predicted:
            return self.predicted[0].source
        return self.actual.sources[0] if self.actual and self.actual.sources else None

    @property
    def kind(self) -> str:
        return self.predicted[0].kind if self.predicted else self.actual.kind if self.actual else "?"

    @property
    def predicted_bytes(self) -> int:
        return sum(p.bytes for p in self.predicted)


def actual_collectives(hlo: str, collectives) -> list[Actual]:
    """`collectives` (from `Compiled.collectives()`, in HLO order) with their elements' bytes."""
    shapes = []
    for _, line in _op_lines(hlo):
        m = _OP_RE.search(line)
        if m:
            shapes.append(shape_elements(m.group("shape"), bool(m.group("start"))))
    out = []
    for c, el in zip(collectives, shapes + [[c.bytes] for c in collectives[len(shapes):]]):
        srcs = tuple(getattr(c, "sources", ()) or ((c.source,) if c.source else ()))
        out.append(Actual(c.kind, c.axes, el or [c.bytes], getattr(c, "runs", 1), srcs))
    return out


def _take(pool: list[Predicted], want) -> Predicted | None:
    for i, p in enumerate(pool):
        if want(p):
            return pool.pop(i)
    return None


def compare(predicted: list[Predicted], actual: list[Actual], mesh=None) -> list[Match]:
    """Pair predictions with XLA's collectives; every unpaired one on either side is a row too."""
    pool = list(predicted)
    rows: list[Match] = []
    left: list[Actual] = []
    for a in actual:
        got: list[Predicted] = []
        # XLA names no line for a collective on a program input (a sum of an unreduced argument)
        # XLA names no line for a collective on a program input (a sum of an unreduced argument);
        # groups that are no set of mesh axes (strided device sets) decode to axes None
        same = lambda p: p.kind == a.kind and (p.axes == a.axes or a.axes is None) and (  # noqa: E731
            p.source in a.sources or not a.sources)
        if a.kind == "all-reduce" and len(a.elements) > 1:   # XLA's combiner: one prediction per element
            remaining = Counter(a.elements)
            for _ in range(len(a.elements)):
                p = _take(pool, lambda p: same(p) and p.runs == a.runs and remaining[p.bytes] > 0)
                if p is None:
                    break
                remaining[p.bytes] -= 1
                got.append(p)
        else:   # one collective (an all-to-all XLA split into one element per peer included)
            p = _take(pool, lambda p: same(p) and p.runs == a.runs and p.bytes == a.bytes) or _take(pool, same)
            got = [p] if p is not None else []
        if not got:
            left.append(a)
            continue
        pb = sum(p.bytes for p in got)
        merged = f"XLA combined {len(a.elements)} collectives into one" if len(a.elements) > 1 \
            and a.kind == "all-reduce" else ""
        if pb == a.bytes and all(p.runs == a.runs for p in got):
            rows.append(Match("agrees", got, a, merged))
        elif pb == a.bytes:
            why = "the model does not know this while loop's trip count; XLA does" \
                if any(p.runs is None for p in got) else merged
            rows.append(Match("runs differ", got, a, why))
        else:
            rows.append(Match("bytes differ", got, a, merged))
    # what is left: the same collective at another line, or another kind at the same line
    for a in left:
        p = _take(pool, lambda p: p.kind == a.kind and p.axes == a.axes and p.bytes == a.bytes)
        if p is not None:
            rows.append(Match("other line", [p], a, "XLA names another line (the value's producer)"))
            continue
        sizes = dict(zip(mesh.axis_names, mesh.axis_sizes)) if mesh is not None else {}
        n = math.prod(sizes.get(x, 0) for x in a.axes) if a.axes else 0
        p = _take(pool, lambda p: p.kind == "reduce-scatter" and a.kind == "all-reduce" and p.axes == a.axes
                  and n and p.bytes * n == a.bytes)
        if p is not None:
            where = "" if p.source in a.sources else " (and names the value's producer)"
            rows.append(Match("other kind", [p], a, "XLA all-reduces the whole buffer and slices it "
                                                   f"instead of a reduce-scatter{where}"))
            continue
        rows.append(Match("XLA only", [], a, "not implied by the types (Auto axes, or XLA's own choice)"))
    for p in pool:
        rows.append(Match("predicted only", [p], None, "XLA inserted no such collective"))
    return rows


def differences(rows: list[Match]) -> list[Match]:
    return [r for r in rows if not r.ok]
