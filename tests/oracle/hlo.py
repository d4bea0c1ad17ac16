"""Reading compiled and lowered modules: collectives in partitioned HLO and
the sdy sharding annotations of a StableHLO module."""
from __future__ import annotations

import re

COLLECTIVE_KINDS = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute")
_HLO_COLLECTIVE = re.compile(r"=\s*\S.*?\s(" + "|".join(COLLECTIVE_KINDS) + r")(-start)?\(")


def hlo_collectives(text: str) -> dict[str, int]:
    """Collectives of a partitioned HLO module by kind (an async start/done pair counts once)."""
    counts: dict[str, int] = {}
    for line in text.splitlines():
        if "-done(" in line:
            continue
        m = _HLO_COLLECTIVE.search(line)
        if m:
            counts[m.group(1)] = counts.get(m.group(1), 0) + 1
    return counts


def reported_collectives(compiled) -> dict[str, int]:
    """The collectives a shardc `Compiled` reports (`.collectives()`), by kind."""
    counts: dict[str, int] = {}
    for c in compiled.collectives():
        k = c.kind.removesuffix("-start")
        counts[k] = counts.get(k, 0) + 1
    return counts


def _split_top(s: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in s:
        depth += (ch in "<{[(") - (ch in ">}])")
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return out + ([cur] if cur.strip() else [])


def sdy_constructs(text: str) -> dict:
    """The sdy annotations of a module, SSA names aside: each argument's and
    result's `sdy.sharding` (None when absent) and the set of
    `sdy.sharding_constraint` bodies; mesh symbols are replaced by their axes."""
    meshes = dict(re.findall(r"sdy\.mesh (@\w+) = (<\[[^\]]*\][^>]*>)", text))
    sub = lambda body: re.sub(r"@\w+", lambda m: meshes.get(m.group(0), m.group(0)), body)
    main = next(line for line in text.splitlines() if "@main(" in line)
    a, arrow = main.index("@main(") + len("@main("), main.index(") -> (")
    sh = lambda item: sub(m.group(1)) if (m := re.search(r"#sdy\.sharding<([^>]*)>", item)) else None
    return {"args": [sh(x) for x in _split_top(main[a:arrow])],
            "results": [sh(x) for x in _split_top(main[arrow + len(") -> ("):main.rindex(") {")])],
            "constraints": sorted({sub(b) for b in
                                   re.findall(r"sdy\.sharding_constraint %\S+ <([^>]*)>", text)})}
