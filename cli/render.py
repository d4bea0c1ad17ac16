"""Terminal rendering with rich: consoles, program headers, tables for
outputs, timings, collectives and memory."""
from __future__ import annotations

import linecache
import re
import sys
from collections import OrderedDict
from dataclasses import dataclass

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from shardc.comm_cost import human_seconds

from .loading import Script, ScriptProgram


def console(stderr: bool = False) -> Console:
    """A console on the current stdout/stderr (looked up now, so click's test
    runner captures it); 120 columns when not writing to a terminal."""
    stream = sys.stderr if stderr else sys.stdout
    tty = hasattr(stream, "isatty") and stream.isatty()
    return Console(file=stream, width=None if tty else 120, highlight=False, soft_wrap=False)


def header(con: Console, script: Script, prog: ScriptProgram) -> None:
    con.rule(Text(f"{prog.name}  ({script.path.name})", style="bold"), align="left")


def plain(con: Console, text: str) -> None:
    """Print program text as is: no markup, highlighting or wrapping."""
    con.print(Text(text), soft_wrap=True)


def error(con: Console, message: str, what: str = "error") -> None:
    con.print(Text(f"{what}: ", style="bold red") + Text(message), soft_wrap=True)


# --- types, outputs, timings -----------------------------------------------------------------------
def types_table(prog: ScriptProgram, in_types, out_labels, out_types) -> Table:
    t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    t.add_column("value", style="bold")
    t.add_column("type")
    t.add_column("per-device block")
    # cells are `Text`, not `str`: printed as they are (a `str` is parsed as console markup and
    # emoji codes, which a pytree key such as "[red]" must not be), 25-30% faster for ~600 rows
    for name, ty in zip(prog.params, in_types):
        t.add_row(Text(f"in  {name}"), Text(str(ty)), Text(str(list(ty.local_shape))))
    for label, ty in zip(out_labels, out_types):
        t.add_row(Text(label), Text(str(ty)), Text(str(list(ty.local_shape))))
    return t


def outputs_table(labels, arrays, checksum, values_text) -> Table:
    t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for c in ("output", "shape", "dtype", "sum", "abs-sum", "first values"):
        t.add_column(c, overflow="fold")
    for label, a in zip(labels, arrays):
        s, sa = checksum(a)
        t.add_row(Text(label), Text(str(tuple(a.shape))), Text(str(a.dtype)), Text(s), Text(sa),
                  Text(values_text(a)))   # `Text`: as in `types_table`
    return t


def timings_table(timings: dict[str, float]) -> Table:
    t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    t.add_column("phase")
    t.add_column("time", justify="right")
    for k, v in timings.items():
        t.add_row(k, fmt_seconds(v))
    return t


def fmt_seconds(s: float) -> str:
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} µs"


def fmt_bytes(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    for unit in ("KiB", "MiB", "GiB"):
        n /= 1024
        if n < 1024 or unit == "GiB":
            return f"{n:.1f} {unit}"
    return f"{n} B"


# --- collectives ---------------------------------------------------------------------------------
@dataclass
class CollectiveRow:
    kind: str
    axes: str
    bytes: int
    source: str      # relative file:line
    code: str        # the user's source line
    count: int = 1
    runs: int | None = 1   # per execution (inside loops: their trip counts; None: unknown)
    also: str = ""   # other lines XLA merged into it


def group_collectives(script: Script, collectives) -> list[CollectiveRow]:
    """Identical collectives (kind, axes, bytes, line) grouped with a count, in HLO order."""
    rows: "OrderedDict[tuple, CollectiveRow]" = OrderedDict()
    for c in collectives:
        axes = ",".join(c.axes) if c.axes is not None else "?"
        src = script.relsource(c.source)
        runs = getattr(c, "runs", 1)
        also = ", ".join(script.relsource(x) for x in getattr(c, "sources", ())[1:])
        key = (c.kind, axes, c.bytes, src, runs, also)
        if key in rows:
            rows[key].count += 1
        else:
            rows[key] = CollectiveRow(c.kind, axes, c.bytes, src, source_line(c.source), runs=runs, also=also)
    return list(rows.values())



def source_line(source: str | None) -> str:
    if not source:
        return ""
    m = re.match(r"^(.*):(\d+)$", source)
    if not m:
        return ""
    return strip_comment(linecache.getline(m.group(1), int(m.group(2)))).strip()


def strip_comment(line: str) -> str:
    """`line` without its trailing `# comment` (strings containing `#` are left alone)."""
    import io
    import tokenize
    try:
        for tok in tokenize.generate_tokens(io.StringIO(line).readline):
            if tok.type == tokenize.COMMENT:
                return line[: tok.start[1]].rstrip()
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return line.rstrip()


def collectives_table(rows: list[CollectiveRow]) -> Table:
    t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, title_justify="left")
    t.add_column("collective", style="bold")
    t.add_column("mesh axes")
    t.add_column("bytes / device", justify="right")
    t.add_column("count", justify="right")
    t.add_column("runs", justify="right")
    t.add_column("source")
    t.add_column("line", overflow="fold")
    total = 0
    for r in rows:
        src = r.source + (f" (+ {r.also})" if r.also else "")
        t.add_row(r.kind, r.axes, fmt_bytes(r.bytes) if r.bytes >= 1024 else f"{r.bytes} B",
                  str(r.count), f"×{r.runs}" if r.runs != 1 else ("×?" if r.runs is None else ""), src,
                  Text(r.code, style="cyan"))
        total += r.bytes * r.count * (r.runs or 1)
    if rows:
        t.add_section()
        t.add_row("total per run", "", f"{total} B" if total < 1024 else fmt_bytes(total),
                  str(sum(r.count * (r.runs or 1) for r in rows)), "", "", "")
    return t


# --- memory --------------------------------------------------------------------------------------
_MEMORY_FIELDS = (("argument_size_in_bytes", "arguments"), ("output_size_in_bytes", "outputs"),
                  ("alias_size_in_bytes", "aliased (donated)"), ("temp_size_in_bytes", "temporaries"),
                  ("generated_code_size_in_bytes", "generated code"))


def memory_table(stats) -> Table:
    t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    t.add_column("per device")
    t.add_column("bytes", justify="right")
    t.add_column("", justify="right", style="dim")
    if stats is None:
        t.add_row("(not reported by this backend)", "", "")
        return t
    for attr, label in _MEMORY_FIELDS:
        v = getattr(stats, attr, None)
        if v is not None:
            t.add_row(label, str(v), fmt_bytes(v))
    # Donated (aliased) arguments are counted as arguments and as outputs: count them once.
    live = sum(getattr(stats, a, 0) or 0 for a in ("argument_size_in_bytes", "output_size_in_bytes",
                                                  "temp_size_in_bytes"))
    live -= getattr(stats, "alias_size_in_bytes", 0) or 0
    t.add_section()
    t.add_row("arguments + outputs + temporaries", str(live), fmt_bytes(live))
    return t


# --- cost model ----------------------------------------------------------------------------------
def _bytes_cell(n: float) -> str:
    return f"{n:.0f} B" if n < 1024 else fmt_bytes(int(n))


def _runs_cell(runs: int | None) -> str:
    return "" if runs == 1 else ("×?" if runs is None else f"×{runs}")


def cost_table(script: Script, preds, model) -> Table:
    """`check --cost`: every collective the types imply, with bytes and estimated time."""
    t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for c, j in (("collective", "left"), ("mesh axes", "left"), ("bytes / device", "right"),
                 ("sent / device", "right"), ("runs", "right"), ("time (est.)", "right"), ("source", "left"),
                 ("why", "left")):
        t.add_column(c, justify=j, style="bold" if c == "collective" else None,
                     no_wrap=c != "why", overflow="fold")
    total_s = total_b = 0.0
    for p in preds:
        r = p.runs or 1
        t.add_row(p.kind, ",".join(p.axes), _bytes_cell(p.bytes), _bytes_cell(p.wire_bytes), _runs_cell(p.runs),
                  human_seconds(p.seconds), script.relsource(p.source),
                  Text(p.why + (f"  [{p.where}]" if p.where else ""), style="dim"))
        total_s += p.seconds * r
        total_b += p.wire_bytes * r
    if preds:
        t.add_section()
        t.add_row("total per run", "", "", _bytes_cell(total_b), str(sum(p.runs or 1 for p in preds)),
                  human_seconds(total_s), "", "")
    return t


_STATUS_STYLE = {"agrees": "green", "predicted only": "red", "XLA only": "yellow"}


def compare_table(script: Script, rows, model) -> Table:
    """`inspect`: the cost model's prediction beside each collective XLA inserted."""
    t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for c, j in (("", "left"), ("collective", "left"), ("mesh axes", "left"), ("predicted", "right"),
                 ("XLA", "right"), ("runs", "right"), ("time (est.)", "right"), ("source", "left"),
                 ("note", "left")):
        t.add_column(c, justify=j, overflow="fold", no_wrap=c != "note")
    for r in rows:
        mark = "✓" if r.ok else "✗"
        axes = ",".join(r.predicted[0].axes) if r.predicted else ",".join(r.actual.axes or ("?",))
        pb = _bytes_cell(r.predicted_bytes) if r.predicted else "—"
        ab = _bytes_cell(r.actual.bytes) if r.actual is not None else "—"
        runs = r.predicted[0].runs if r.predicted else r.actual.runs
        secs = sum(p.seconds for p in r.predicted)
        note = r.status if r.ok else f"{r.status}: {r.note}" if r.note else r.status
        if r.ok and r.note:
            note = f"agrees ({r.note})"
        t.add_row(Text(mark, style=_STATUS_STYLE.get(r.status, "red")), r.kind, axes, pb, ab, _runs_cell(runs),
                  human_seconds(secs) if r.predicted else "", script.relsource(r.source),
                  Text(note, style=_STATUS_STYLE.get(r.status, "red")))
    return t


def summary_line(prog: ScriptProgram, in_types, out_types, preds, auto: tuple[str, ...] = ()) -> Text:
    """`check --summary`: name(inputs) -> outputs  ·  collectives predicted."""
    ins = ", ".join(f"{p}: {t}" for p, t in zip(prog.params, in_types))
    outs = ", ".join(str(t) for t in out_types)
    outs = outs if len(out_types) == 1 else f"({outs})"
    n = sum(p.runs or 1 for p in preds)
    sent = sum(p.wire_bytes * (p.runs or 1) for p in preds)
    secs = sum(p.seconds * (p.runs or 1) for p in preds)
    comm = (f"{n} collective(s) predicted, {_bytes_cell(sent)} sent per device, ~{human_seconds(secs)}"
            if preds else "no communication predicted")
    if auto:
        comm += f" (+ XLA's choices on Auto axes {','.join(auto)})"
    return (Text(prog.name, style="bold") + Text(f"({ins}) -> {outs}") + Text(f"  ·  {comm}", style="dim"))


# --- small arrays ----------------------------------------------------------------------------------
def compact_array(a, threshold: int = 32, edge: int = 2) -> str:
    """An array on one line, nested as its shape (`[[1, 2], [3, 4]]`), every value of a small
    one and the edges of a large one (`[[0.1, 0.2, ..., 0.7, 0.8], ...]`)."""
    import numpy as np
    a = np.asarray(a)
    if a.dtype.kind == "V" or a.dtype.name == "bfloat16":
        a = a.astype(np.float32)
    fmt = {"float_kind": lambda v: f"{v:.4g}", "int_kind": lambda v: str(int(v)), "bool": lambda v: str(bool(v))}
    return np.array2string(a, separator=", ", max_line_width=10 ** 9, threshold=threshold, edgeitems=edge,
                           formatter=fmt).replace("\n", "")
