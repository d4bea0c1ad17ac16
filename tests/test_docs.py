"""Every rules section cited in the source ("JAX rules §2.16", "docs/rules.md §3",
"§2.2–2.4") must resolve to a heading of docs/rules.md.

Headings in docs/rules.md use one format: `## N. Title` for sections and
`### N.M Title` for subsections. The sources are read at test time, so newly
added citations are checked too.
"""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules.md"
SOURCE_DIRS = ("shardc", "cli")

# `## 3. Title` or `### 2.16 Title`
_HEADING = re.compile(r"^(#{2,3})\s+(\d+(?:\.\d+)?)\.?\s+\S", re.M)
# `§2.16`, `§3`, and a range `§2.2–2.4` / `§4.3-4.4` / `§2.2–§2.4`
_CITE = re.compile(r"§\s*(\d+(?:\.\d+)?)(?:\s*[–—-]\s*§?\s*(\d+(?:\.\d+)?))?")


def rule_headings(text: str) -> set[str]:
    out = set()
    for hashes, num in _HEADING.findall(text):
        # sections are `## N.`, subsections `### N.M`: keep the levels consistent
        assert (len(hashes) == 2) == ("." not in num), f"heading level does not match number: {hashes} {num}"
        out.add(num)
    return out


def citations(text: str) -> set[str]:
    out = set()
    for start, end in _CITE.findall(text):
        out.add(start)
        if end:
            out.add(end)
            a, b = start.split("."), end.split(".")
            if len(a) == len(b) == 2 and a[0] == b[0] and int(a[1]) < int(b[1]):
                out.update(f"{a[0]}.{i}" for i in range(int(a[1]) + 1, int(b[1])))
    return out


def source_citations() -> dict[str, list[str]]:
    """section → the files citing it (every .py under shardc/ and cli/)."""
    found: dict[str, list[str]] = {}
    for d in SOURCE_DIRS:
        for path in sorted((ROOT / d).rglob("*.py")):
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):  # a file being rewritten right now
                continue
            for sec in citations(text):
                found.setdefault(sec, []).append(str(path.relative_to(ROOT)))
    return found


def test_citation_parser():
    assert citations("JAX rules §2.14, §2.15, §3.1.") == {"2.14", "2.15", "3.1"}
    assert citations("(docs/rules.md §3): a value") == {"3"}
    assert citations("JAX rules §2.2–2.4") == {"2.2", "2.3", "2.4"}
    assert citations("§4.3-4.4") == {"4.3", "4.4"}


def test_heading_parser():
    text = "# Title\n## 2. Rules\n### 2.16 Control flow\n### 2.1 Creation\nno ## 9.9 here\n"
    assert rule_headings(text) == {"2", "2.16", "2.1"}


def test_rules_has_the_reference_sections():
    heads = rule_headings(RULES.read_text(encoding="utf-8"))
    for n, last in {1: 4, 2: 16, 3: 3, 4: 6}.items():
        assert str(n) in heads
        for m in range(1, last + 1):
            assert f"{n}.{m}" in heads, f"docs/rules.md lacks section {n}.{m}"


def test_every_cited_section_resolves():
    heads = rule_headings(RULES.read_text(encoding="utf-8"))
    cited = source_citations()
    missing = {sec: files for sec, files in cited.items() if sec not in heads}
    assert not missing, "sections cited in the source but missing from docs/rules.md: " + "; ".join(
        f"§{sec} (cited in {', '.join(files)})" for sec, files in sorted(missing.items()))
