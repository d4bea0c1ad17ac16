"""`shardc inspect --html FILE`: one self-contained HTML page per script.

The page has no external assets (inline CSS, no scripts): the mesh; per program its
signature, every input and output drawn as a grid of blocks with the devices that
hold each, the blocks each device sees inside `shard_map` bodies, the collectives XLA
inserted and the cost model's prediction beside them (each row links to its line of
the script, shown at the bottom of the page), and memory per device.
"""
from __future__ import annotations

import html
import itertools
import math
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from shardc.comm_cost import human_seconds
from shardc.mesh import AbstractMesh, AxisType
from shardc.runtime.visualize import _ids_text, layout
from shardc.sharding import entry_axes
from shardc.types import ArrayType

from .loading import Script, ScriptProgram
from .render import _MEMORY_FIELDS, fmt_bytes, group_collectives

__all__ = ["ProgramPage", "render_page"]

_COLORS = ("#cfe2ff", "#d1e7dd", "#f8d7da", "#fff3cd", "#e2d9f3", "#d2f4ea", "#ffe5d0", "#e9ecef",
           "#b6d4fe", "#a3cfbb", "#f1aeb5", "#ffe69c", "#c5b3e6", "#a6e9d5", "#fecba1", "#dee2e6")
_MAX_CELLS = 256
_MAX_ARGS = 12


def esc(x: Any) -> str:
    return html.escape(str(x), quote=True)


# --- device grids ----------------------------------------------------------------------------------
@dataclass
class Grid:
    """One value drawn as blocks: rows × cols cells, each with its index ranges and devices."""

    title: str
    type_text: str
    caption: str
    rows: list[list[tuple[str, str, int]]]   # (slice text, devices text, color index)


def _grid_of(title: str, t: ArrayType, caption: str = "") -> Grid:
    lay = layout(t)
    counts = lay.counts
    # two dims across the page: the first two sharded ones (else the first ones)
    sharded = [d for d, c in enumerate(counts) if c > 1]
    dims = (sharded + [d for d in range(t.ndim) if d not in sharded])[:2]
    dims.sort()
    row_d = dims[0] if dims else None
    col_d = dims[1] if len(dims) > 1 else None
    nr = counts[row_d] if row_d is not None else 1
    nc = counts[col_d] if col_d is not None else 1
    rows = []
    color = {}
    for r in range(min(nr, _MAX_CELLS)):
        row = []
        for c in range(min(nc, _MAX_CELLS // max(min(nr, _MAX_CELLS), 1) or 1)):
            # every block of the other dims at this (r, c): list them all in the cell
            others = [range(counts[d]) if d not in (row_d, col_d) else [r if d == row_d else c]
                      for d in range(t.ndim)]
            devs: list[int] = []
            slices = []
            for idx in itertools.product(*others):
                devs += lay.blocks.get(tuple(idx), [])
                slices.append("[" + ", ".join(
                    ":" if counts[d] == 1 else "{}:{}".format(*lay.range(d, idx[d])) for d in range(t.ndim)) + "]")
            key = (r, c)
            color.setdefault(key, len(color) % len(_COLORS))
            label = slices[0] if len(slices) == 1 else f"{slices[0]} … ({len(slices)} blocks)"
            row.append((label if t.ndim else "scalar", f"{lay.device_kind} {_ids_text(sorted(devs))}", color[key]))
        rows.append(row)
    cap = caption
    if t.unreduced:
        cap += (" " if cap else "") + "unreduced: the devices of a block each hold a partial sum over " \
            + ",".join(sorted(t.unreduced))
    return Grid(title, str(t), cap, rows)


def _manual_blocks(t: ArrayType, spec, mesh: AbstractMesh) -> ArrayType:
    """The global value `t` as a shard_map splits it with `spec` (every axis drawn)."""
    full = AbstractMesh(mesh.axis_sizes, mesh.axis_names, AxisType.Explicit)
    entries = tuple(list(spec) + [None] * (t.ndim - len(spec)))[: t.ndim]
    entries = tuple(None if not entry_axes(e) else e for e in entries)
    return ArrayType(t.shape, t.dtype, entries, mesh=full)


def _shard_map_grids(prog, rel=str) -> list[tuple[str, list[Grid]]]:
    """For each shard_map in `prog` (nested ones included): the block each device's body gets."""
    out = []

    def walk(p):
        for e in p.eqns:
            if e.prim.name == "shard_map":
                body = e.params["body"]
                grids = []
                for k, (a, spec) in enumerate(zip(e.inputs, e.params["in_specs"])):
                    if spec is None:
                        continue
                    local = body.in_vars[k].type if k < len(body.in_vars) else None
                    cap = f"each device's body sees {local.str_short()}" if local is not None else ""
                    grids.append(_grid_of(f"argument {k}: in_spec {spec!r}",
                                          _manual_blocks(a.type, spec, a.type.mesh), cap))
                title = f"shard_map at {rel(str(e.loc))}" if e.loc else "shard_map"
                if len(grids) > _MAX_ARGS:
                    title += f" (first {_MAX_ARGS} of {len(grids)} arguments)"
                    grids = grids[:_MAX_ARGS]
                key = (title, tuple((g.title, g.type_text, g.caption) for g in grids))
                seen[key] = seen.get(key, 0) + 1
                if seen[key] == 1:
                    out.append((key, grids))
            for sub in e.prim.sub_programs(e.params):
                walk(sub)

    seen: dict = {}
    walk(prog)
    # the same shard_map twice (a forward body and its transpose, a remat): drawn once
    return [(k[0] + (f" (×{seen[k]}: e.g. the forward body and its transpose)" if seen[k] > 1 else ""), g)
            for k, g in out]


# --- one program -----------------------------------------------------------------------------------
@dataclass
class ProgramPage:
    name: str
    signature: str
    grids: list[Grid]
    manual: list[tuple[str, list[Grid]]]
    collectives: list                    # CollectiveRow
    matches: list                        # costs.Match
    memory: list[tuple[str, int]]
    predicted_seconds: float
    lines: set[int] = field(default_factory=set)

    @classmethod
    def build(cls, s: Script, prog: ScriptProgram, st, collectives, preds, matches, stats, model) -> "ProgramPage":
        labels = [f"in {p}" for p in prog.params] + st.out_labels()
        types = st.in_types + st.out_types
        grids = s.call(lambda: [_grid_of(lbl, t) for lbl, t in zip(labels, types)])
        manual = s.call(lambda: _shard_map_grids(st.traced.program, s.relsource))
        mem = []
        if stats is not None:
            mem = [(label, getattr(stats, a)) for a, label in _MEMORY_FIELDS if getattr(stats, a, None) is not None]
        rows = group_collectives(s, collectives)
        ins = ", ".join(f"{p}: {t}" for p, t in zip(prog.params, st.in_types))
        outs = ", ".join(str(t) for t in st.out_types)
        secs = sum(p.seconds * (p.runs or 1) for p in preds)
        return cls(prog.name, f"{prog.name}({ins}) -> {outs}", grids, manual, rows, matches, mem, secs)


# --- the page --------------------------------------------------------------------------------------
_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:1.5rem;color:#212529;max-width:1200px}
h1{font-size:1.5rem}h2{font-size:1.25rem;border-bottom:2px solid #dee2e6;padding-bottom:.2rem;margin-top:2rem}
h3{font-size:1rem;margin:1.2rem 0 .4rem}code,pre,.mono{font-family:ui-monospace,Menlo,Consolas,monospace}
table{border-collapse:collapse;margin:.3rem 0 1rem}th,td{border:1px solid #dee2e6;padding:.2rem .5rem;
font-size:.85rem;text-align:left;vertical-align:top}th{background:#f8f9fa}td.num{text-align:right}
.grid td{min-width:6rem;text-align:center}.grid .slice{font-family:ui-monospace,monospace;font-size:.75rem}
.grid .devs{font-weight:600}.gridbox{display:inline-block;margin:0 1.2rem 1rem 0;vertical-align:top}
.gridbox .t{font-family:ui-monospace,monospace;font-size:.8rem}.cap{color:#6c757d;font-size:.8rem;max-width:28rem}
.ok{color:#146c43}.bad{color:#b02a37;font-weight:600}.warn{color:#997404;font-weight:600}
.src{background:#f8f9fa;border:1px solid #dee2e6;padding:.5rem;overflow-x:auto;font-size:.8rem}
.src .ln{color:#adb5bd;display:inline-block;width:3.5em;text-align:right;margin-right:1em;user-select:none}
.src .hit{background:#fff3cd;display:block}.src span.line{display:block}.src span.line:target{background:#ffe69c}
.mesh td{text-align:center;font-family:ui-monospace,monospace}.sig{font-family:ui-monospace,monospace;
font-size:.85rem;background:#f8f9fa;padding:.3rem .5rem;border-radius:4px}
"""


def _line_no(source: str | None) -> int | None:
    if not source or ":" not in source:
        return None
    try:
        return int(source.rsplit(":", 1)[1])
    except ValueError:
        return None


def _src_link(s: Script, source: str | None) -> str:
    rel = s.relsource(source)
    n = _line_no(source)
    if n is None or rel.rsplit(":", 1)[0] != s.path.name:
        return esc(rel)
    return f'<a href="#L{n}">{esc(rel)}</a>'


def _rel_link(s: Script, rel: str) -> str:
    """A `file:line` already relative to the script: a link when it is the script's line."""
    file, _, n = rel.rpartition(":")
    if file != s.path.name or not n.isdigit():
        return esc(rel)
    return f'<a href="#L{n}">{esc(rel)}</a>'


def _grid_html(g: Grid) -> str:
    cells = "".join(
        "<tr>" + "".join(f'<td class="cell" style="background:{_COLORS[ci]}"><div class="slice">{esc(sl)}</div>'
                         f'<div class="devs">{esc(dv)}</div></td>' for sl, dv, ci in row) + "</tr>"
        for row in g.rows)
    cap = f'<div class="cap">{esc(g.caption)}</div>' if g.caption else ""
    return (f'<div class="gridbox"><div><b>{esc(g.title)}</b></div><div class="t">{esc(g.type_text)}</div>'
            f'<table class="grid">{cells}</table>{cap}</div>')


def _mesh_html(s: Script) -> str:
    mesh = s.mesh
    if mesh is None:
        return "<p>No mesh set by the script.</p>"
    names, sizes = list(mesh.axis_names), list(mesh.axis_sizes)
    types = [getattr(t, "name", str(t)) for t in getattr(mesh, "axis_types", [])]
    head = "".join(f"<li><code>{esc(n)}</code> = {k}" + (f" ({esc(t)})" if t else "") + "</li>"
                   for n, k, t in itertools.zip_longest(names, sizes, types, fillvalue=""))
    ids = [d.id for d in mesh.devices.flat]
    platform = str(mesh.devices.flat[0].platform).upper()
    cols = sizes[-1] if sizes else 1
    rows = math.ceil(len(ids) / max(cols, 1))
    body = "".join("<tr>" + "".join(f"<td>{platform} {ids[r * cols + c]}</td>" for c in range(cols)) + "</tr>"
                   for r in range(rows))
    across = f"{esc(names[-1])} across" + (f", {', '.join(esc(n) for n in names[:-1])} down" if len(names) > 1 else "")
    return (f"<ul>{head}</ul><table class='mesh' id='mesh'>{body}</table>"
            f"<div class='cap'>{len(ids)} devices; {across}</div>")


def _collectives_html(s: Script, p: ProgramPage) -> str:
    if not p.collectives:
        return "<p class='ok'>None: every value stays where its type puts it.</p>"
    head = ("<tr><th>collective</th><th>mesh axes</th><th>bytes / device</th><th>count</th><th>runs</th>"
            "<th>source</th><th>line</th></tr>")
    body = "".join(
        f"<tr class='coll'><td>{esc(r.kind)}</td><td>{esc(r.axes)}</td><td class='num'>{r.bytes}</td>"
        f"<td class='num'>{r.count}</td><td class='num'>{'' if r.runs == 1 else ('?' if r.runs is None else r.runs)}"
        f"</td><td>{_rel_link(s, r.source)}"
        f"{' (+ ' + esc(r.also) + ')' if r.also else ''}</td><td><code>{esc(r.code)}</code></td></tr>"
        for r in p.collectives)
    return f"<table class='collectives'>{head}{body}</table>"


def _compare_html(s: Script, p: ProgramPage) -> str:
    if not p.matches:
        return "<p class='ok'>Agrees: no communication predicted, none inserted.</p>"
    head = ("<tr><th></th><th>collective</th><th>mesh axes</th><th>predicted bytes</th><th>XLA bytes</th>"
            "<th>runs</th><th>time (est.)</th><th>source</th><th>note</th></tr>")
    rows = []
    for m in p.matches:
        cls = "ok" if m.ok else ("warn" if m.status == "XLA only" else "bad")
        axes = ",".join(m.predicted[0].axes) if m.predicted else ",".join(m.actual.axes or ("?",))
        runs = m.predicted[0].runs if m.predicted else m.actual.runs
        secs = human_seconds(sum(x.seconds for x in m.predicted)) if m.predicted else ""
        note = m.status + (f": {m.note}" if m.note else "")
        rows.append(
            f"<tr class='cmp {cls}'><td>{'✓' if m.ok else '✗'}</td><td>{esc(m.kind)}</td><td>{esc(axes)}</td>"
            f"<td class='num'>{m.predicted_bytes if m.predicted else '—'}</td>"
            f"<td class='num'>{m.actual.bytes if m.actual is not None else '—'}</td>"
            f"<td class='num'>{'' if runs == 1 else ('?' if runs is None else runs)}</td><td class='num'>{secs}</td>"
            f"<td>{_src_link(s, m.source)}</td><td>{esc(note)}</td></tr>")
    bad = sum(not m.ok for m in p.matches)
    summary = (f"<p class='{'ok' if not bad else 'warn'}'>{len(p.matches) - bad} of {len(p.matches)} agree"
               + (f"; {bad} difference(s) flagged ✗" if bad else "") +
               f". Estimated communication time per run: {esc(human_seconds(p.predicted_seconds))}.</p>")
    return f"<table class='compare'>{head}{''.join(rows)}</table>{summary}"


def _memory_html(p: ProgramPage) -> str:
    if not p.memory:
        return "<p>Not reported by this backend.</p>"
    body = "".join(f"<tr><td>{esc(k)}</td><td class='num'>{v}</td><td class='num'>{esc(fmt_bytes(v))}</td></tr>"
                   for k, v in p.memory)
    return f"<table class='memory'><tr><th>per device</th><th>bytes</th><th></th></tr>{body}</table>"


def _source_html(s: Script, hits: set[int]) -> str:
    try:
        text = s.path.read_text()
    except OSError:
        return ""
    lines = []
    for i, line in enumerate(text.splitlines(), 1):
        cls = "line hit" if i in hits else "line"
        lines.append(f'<span class="{cls}" id="L{i}"><span class="ln">{i}</span>{esc(line) or " "}</span>')
    return f"<pre class='src'>{''.join(lines)}</pre>"


def render_page(s: Script, pages: list[ProgramPage], model) -> str:
    """The whole report for one script."""
    hits: set[int] = set()
    parts = []
    for p in pages:
        for m in p.matches:
            n = _line_no(m.source)
            if n is not None:
                hits.add(n)
        manual = "".join(f"<h4>{esc(title)}</h4>" + "".join(_grid_html(g) for g in grids)
                         for title, grids in p.manual)
        parts.append(
            f"<section class='program' id='prog-{esc(p.name)}'><h2>{esc(p.name)}</h2>"
            f"<div class='sig'>{esc(p.signature)}</div>"
            f"<h3>Inputs and outputs (blocks and the devices holding them)</h3>"
            f"{''.join(_grid_html(g) for g in p.grids)}"
            + (f"<h3>Inside shard_map: the block each device's body sees</h3>{manual}" if p.manual else "")
            + f"<h3>Collectives XLA inserted</h3>{_collectives_html(s, p)}"
            f"<h3>Cost model (from the types) vs XLA</h3>{_compare_html(s, p)}"
            f"<h3>Memory per device</h3>{_memory_html(p)}</section>")
    toc = "".join(f"<li><a href='#prog-{esc(p.name)}'>{esc(p.name)}</a></li>" for p in pages)
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>shardc report: {esc(s.path.name)}</title><style>{_CSS}</style></head><body>"
        f"<h1>shardc report: <code>{esc(s.path.name)}</code></h1>"
        f"<p class='cap'>Written by <code>shardc inspect --html</code> on {when}. Cost model: "
        f"{esc(model.describe())} (docs/cost_model.md).</p>"
        f"<h2>Mesh</h2>{_mesh_html(s)}<h2>Programs</h2><ul>{toc}</ul>{''.join(parts)}"
        f"<h2>Source: {esc(s.path.name)}</h2>{_source_html(s, hits)}</body></html>\n")
