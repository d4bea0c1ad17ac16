"""Print the import graph of the `shardc` package and any import cycle.

    python tools/import_graph.py            # summary: counts, edges between subpackages, cycles
    python tools/import_graph.py --late     # also list every function-level import

An import made inside a function ("late") is counted separately from a
module-level one, and cycles are computed over both, since a late import
still ties the two modules together. `tests/test_architecture.py` asserts
what this prints: no cycle, and every late import marked `# late: <reason>`.
"""
from __future__ import annotations

import argparse
import ast
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "shardc"


@dataclass(frozen=True)
class Import:
    src: str          # importing module, e.g. "shardc.ops.shape"
    dst: str          # imported module inside the package
    late: bool        # made inside a function
    line: int
    marked: bool      # the line carries a `# late: <reason>` comment


def module_files() -> dict[str, Path]:
    """Every module of the package (the CLI folder is mapped to `shardc.cli`)."""
    out = {}
    for base, prefix in ((ROOT / PACKAGE, PACKAGE), (ROOT / "cli", f"{PACKAGE}.cli")):
        for p in sorted(base.rglob("*.py")):
            rel = p.relative_to(base).with_suffix("")
            parts = [prefix, *rel.parts]
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = p
    return out


def _resolve(mod: str, is_pkg: bool, node: ast.ImportFrom | ast.Import, modules) -> list[str]:
    names: list[str] = []
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        if node.level:
            base = mod.split(".")
            base = base if is_pkg else base[:-1]
            base = base[:len(base) - (node.level - 1)]
            target = ".".join(base + ([node.module] if node.module else []))
        else:
            target = node.module or ""
        # `from pkg import mod` imports the module; `from mod import name` the module
        names = [f"{target}.{a.name}" if f"{target}.{a.name}" in modules else target
                 for a in node.names]
    out = []
    for n in names:
        while n and n not in modules:
            n = n.rpartition(".")[0]
        if n and n.startswith(PACKAGE) and n != mod:
            out.append(n)
    return out


def imports() -> list[Import]:
    modules = module_files()
    found: list[Import] = []
    for mod, path in modules.items():
        src = path.read_text()
        lines = src.splitlines()
        tree = ast.parse(src)
        is_pkg = path.name == "__init__.py"

        def visit(node, late):
            for child in ast.iter_child_nodes(node):
                inner = late or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    # the reason sits on the import's line or on the comment line above it
                    marked = any("# late:" in lines[i] for i in (child.lineno - 1, child.lineno - 2) if i >= 0)
                    for dst in dict.fromkeys(_resolve(mod, is_pkg, child, modules)):
                        found.append(Import(mod, dst, late, child.lineno, marked))
                visit(child, inner)

        visit(tree, False)
    return found


def cycles(edges: list[Import]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    graph: dict[str, set[str]] = defaultdict(set)
    for e in edges:
        # a package importing its own submodules (re-exports) is not a cycle
        if e.dst.startswith(e.src + "."):
            continue
        graph[e.src].add(e.dst)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]
    sys.setrecursionlimit(10000)

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in list(graph):
        if v not in index:
            strong(v)
    return out


def _group(mod: str) -> str:
    parts = mod.split(".")
    return ".".join(parts[:2])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--late", action="store_true", help="list every function-level import")
    args = ap.parse_args(argv)
    edges = imports()
    late = [e for e in edges if e.late]
    print(f"modules: {len(module_files())}")
    print(f"imports between modules: {len(edges)} ({len(edges) - len(late)} module-level, "
          f"{len(late)} function-level, {sum(not e.marked for e in late)} of them unmarked)")
    between: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for e in edges:
        a, b = _group(e.src), _group(e.dst)
        if a != b:
            between[a, b][e.late] += 1
    print("\nbetween subpackages (module-level + function-level):")
    for (a, b), (m, f) in sorted(between.items()):
        print(f"  {a:22} -> {b:22} {m:3d} + {f:d}")
    for label, es in (("module-level imports only", [e for e in edges if not e.late]),
                      ("counting function-level imports", edges)):
        cs = cycles(es)
        print(f"\ncycles, {label}: {len(cs)}")
        for c in cs:
            print(f"  {len(c)} modules: {', '.join(c)}")
    if args.late:
        print("\nfunction-level imports:")
        for e in late:
            mark = "" if e.marked else "  (unmarked)"
            print(f"  {e.src}:{e.line} -> {e.dst}{mark}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
