"""Golden files: `golden/<example>/<program>.{typed.txt, stablehlo.mlir,
collectives.txt, out.txt}` for every program of every script in `examples/`.

Text files compare exactly; `out.txt` compares its non-numeric text exactly
and its numbers with a tolerance (XLA may sum in a different order on another
machine). Nothing in a golden file depends on where the repository lives:
sources are named relative to the script (`megatron.py:23`), and the
StableHLO is emitted without locations.
"""
from __future__ import annotations

import difflib
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from .loading import Script, ScriptProgram, load_script
from .render import group_collectives
from .running import out_text, run_program

KINDS = ("typed.txt", "stablehlo.mlir", "collectives.txt", "out.txt")
SEED = 0
RTOL = 1e-4
ATOL = 1e-4


def collectives_text(script: Script, prog: ScriptProgram, collectives) -> str:
    lines = [f"# {script.path.name}: {prog.name}: collectives in XLA's partitioned HLO "
             "(kind, mesh axes, bytes per device, count, runs per execution inside loops, source line)"]
    rows = group_collectives(script, collectives)
    for r in rows:
        code = f"  # {r.code}" if r.code else ""
        runs = "" if r.runs == 1 else f" runs={r.runs if r.runs else '?'}"
        also = f" (+ {r.also})" if r.also else ""
        lines.append(f"{r.kind} axes=({r.axes}) bytes={r.bytes} count={r.count}{runs} at {r.source}{also}{code}")
    if not rows:
        lines.append("none")
    return "\n".join(lines) + "\n"


def golden_texts(script: Script, prog: ScriptProgram) -> dict[str, str]:
    """The four golden texts of one program (raises `sc.ShardcError` on failure)."""
    res = run_program(script, prog, seed=SEED, repeat=0)
    st = res.stages
    return {
        "typed.txt": str(st.traced) + "\n",
        "stablehlo.mlir": st.lowered.as_text(),
        "collectives.txt": collectives_text(script, prog, script.call(st.compiled.collectives)),
        "out.txt": out_text(script, prog, res, SEED),
    }


# --- comparison ------------------------------------------------------------------------------------
_NUM = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?(?:inf|nan)")


def numbers_close(expected: str, actual: str, rtol: float = RTOL, atol: float = ATOL) -> bool:
    """Same text between the numbers, and every number within tolerance."""
    if _NUM.sub("#", expected) != _NUM.sub("#", actual):
        return False
    for a, b in zip(_NUM.findall(expected), _NUM.findall(actual)):
        x, y = float(a), float(b)
        if math.isnan(x) and math.isnan(y):
            continue
        if x == y:
            continue
        if not math.isclose(x, y, rel_tol=rtol, abs_tol=atol):
            return False
    return True


def unified_diff(expected: str, actual: str, path: str) -> str:
    lines = difflib.unified_diff(expected.splitlines(keepends=True), actual.splitlines(keepends=True),
                                 fromfile=f"{path} (golden)", tofile=f"{path} (now)")
    out = "".join(lines)
    return out if out.endswith("\n") else out + "\n"


@dataclass
class Mismatch:
    path: str            # golden file, relative to the golden root
    reason: str          # 'differs', 'missing', 'stale', 'error', or a sentence (left alone)
    diff: str = ""

    def render(self) -> str:
        head = {"differs": f"{self.path}: differs from the golden file",
                "missing": f"{self.path}: no golden file (run `shardc golden --update`)",
                "stale": f"{self.path}: golden file for a program that no longer exists",
                "error": f"{self.path}: the program failed"}.get(self.reason, f"{self.path}: {self.reason}")
        return head + ("\n" + self.diff if self.diff else "")


@dataclass
class GoldenReport:
    checked: int = 0
    mismatches: list[Mismatch] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches


def compare_file(rel: str, kind: str, expected: str | None, actual: str) -> Mismatch | None:
    if expected is None:
        return Mismatch(rel, "missing", unified_diff("", actual, rel))
    same = numbers_close(expected, actual) if kind == "out.txt" else expected == actual
    if same:
        return None
    return Mismatch(rel, "differs", unified_diff(expected, actual, rel))


def check_script(script: Script, golden_root: Path, update: bool = False,
                 report: GoldenReport | None = None) -> GoldenReport:
    """Compare (or with `update`, rewrite) the golden files of every program of `script`.

    Only files named `<program>.<kind>` are golden files: others in the folder (a
    NOTES.md) are never reported or deleted; the goldens of a program that failed are
    kept; symbolic links and non-regular files are reported, never read, written or
    followed; each file is written whole (a temporary file renamed into place)."""
    import shardc as sc  # late: the CLI configures devices before shardc starts JAX
    report = report or GoldenReport()
    folder = golden_root / script.stem
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        report.mismatches.append(Mismatch(script.stem, "not a folder (or a symbolic link); left alone"))
        return report
    keep = set()
    for prog in script.select(None):
        keep.update(f"{prog.name}.{kind}" for kind in KINDS)
        if not prog.name.isidentifier():
            report.mismatches.append(Mismatch(f"{script.stem}/{prog.name}", "not an identifier; skipped"))
            continue
        try:
            texts = golden_texts(script, prog)
        except sc.ShardcError as e:
            report.mismatches.append(Mismatch(f"{script.stem}/{prog.name}", "error", str(e) + "\n"))
            continue
        for kind in KINDS:
            _check_file(folder, script.stem, f"{prog.name}.{kind}", kind, texts[kind], update, report)
    _stale(folder, script.stem, keep, update, report)
    return report


def _check_file(folder: Path, stem: str, name: str, kind: str, text: str, update: bool,
                report: GoldenReport) -> None:
    rel, p = f"{stem}/{name}", folder / name
    if p.is_symlink() or (p.exists() and not p.is_file()):
        report.mismatches.append(Mismatch(rel, "not a regular file (or a symbolic link); left alone"))
        return
    old = p.read_text(encoding="utf-8", errors="replace") if p.exists() else None
    report.checked += 1
    m = compare_file(rel, kind, old, text)
    if m is None:
        return
    if not update:
        report.mismatches.append(m)
        return
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{name}.shardc-tmp"
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, p)
    report.written.append(m.render())


def _stale(folder: Path, stem: str, keep: set[str], update: bool, report: GoldenReport) -> None:
    """Golden files of programs the script no longer has (only `<name>.<kind>` files)."""
    if not folder.is_dir():
        return
    for p in sorted(folder.iterdir()):
        if p.name in keep or not any(p.name.endswith("." + k) for k in KINDS):
            continue
        rel = f"{stem}/{p.name}"
        if p.is_symlink() or not p.is_file():
            report.mismatches.append(Mismatch(rel, "not a regular file (or a symbolic link); left alone"))
        elif update:
            p.unlink()
            report.removed.append(rel)
        else:
            report.mismatches.append(Mismatch(rel, "stale"))


def find_scripts(path: Path) -> list[Path]:
    if path.is_dir():
        return sorted(p for p in path.glob("*.py") if not p.name.startswith("_"))
    return [path]


def default_golden_root(path: Path) -> Path:
    """`golden/` beside the examples folder (`examples/x.py` → `golden/`)."""
    folder = path if path.is_dir() else path.parent
    return folder.resolve().parent / "golden"


def check_path(path: Path, golden_root: Path | None = None, update: bool = False,
               echo: bool = False) -> GoldenReport:
    """Golden check of one script or of every script in a folder (devices configured already)."""
    golden_root = golden_root or default_golden_root(path)
    report = GoldenReport()
    for s in find_scripts(path):
        script = load_script(s, echo=echo)
        check_script(script, golden_root, update=update, report=report)
    return report
