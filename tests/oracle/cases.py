"""`Case`: one program, written once against a namespace, with its mesh,
its arguments and what the test claims about JAX's verdict."""
from __future__ import annotations

import hashlib
import itertools
import random
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from .meshes import MeshSpec

#: `Case.phrase` value: JAX's whole error message must appear in shardc's
WHOLE_MESSAGE = "<the whole JAX message>"


@dataclass
class Case:
    """One program `fn(ns, *args)`, run on both sides by `check`.

    `args` are shardc type strings (``"f32[8@X,4@Y]{R:X}"``) or `Placed`
    arguments. With `expect` left None the case follows JAX, whatever it
    says; `expect="accept"` / `"reject"` also asserts JAX's verdict (and with
    `kind` / `phrase`, the class and a phrase of JAX's error), so that a table
    documents the reference."""

    id: str
    mesh: str | MeshSpec
    fn: Callable[..., Any]
    args: tuple = ()
    #: a phrase both error messages must contain (default: the rule-naming
    #: start of JAX's message, see `key_phrase`); `WHOLE_MESSAGE`: all of it
    phrase: str | None = None
    #: None: follow JAX; "accept" / "reject": JAX must do so
    expect: str | None = None
    #: the error class both must raise (a builtin or "ShardingTypeError"); default: JAX's
    kind: Any = None
    #: JAX rejects for an implementation gap: shardc only has to reject (with `kind`/`phrase` if given)
    quirk: bool = False
    #: how `check(case)` runs it: "trace", "jit" (compile and run), "eager" (op by op) or
    #: "lower" (lower from the argument types and compare the sdy annotations)
    mode: str = "trace"
    #: in "jit" mode: shardc's collectives "equal" JAX's by kind, or are "at_most" JAX's; None: not compared
    collectives: str | None = "equal"
    #: in "jit" mode also compare the sdy annotations of the lowered modules
    sdy: bool = False
    #: value tolerance (rtol, atol) for floating outputs; default by dtype
    tol: tuple[float, float] | None = None
    #: pass the arguments as NumPy arrays (not placed on the mesh)
    numpy_args: bool = False
    #: the first seed of the input data (argument k uses seed + k)
    seed: int = 0
    tags: tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self):
        assert self.expect in (None, "accept", "reject"), self.expect
        assert self.mode in ("trace", "jit", "eager", "lower"), self.mode
        assert self.collectives in (None, "equal", "at_most"), self.collectives

    def __repr__(self) -> str:
        return self.id


def param(cases: Iterable[Case], name: str = "case"):
    """`pytest.mark.parametrize` over cases with their ids (which must be unique)."""
    import pytest
    cases = list(cases)
    ids = [c.id for c in cases]
    dup = {i for i in ids if ids.count(i) > 1}
    assert not dup, f"duplicate case ids: {sorted(dup)[:5]}"
    return pytest.mark.parametrize(name, cases, ids=ids)


def sample(cases: Sequence[Case], n: int, salt: str = "") -> list[Case]:
    """A deterministic, spread-out subset of `cases` (by a hash of the id)."""
    if len(cases) <= n:
        return list(cases)
    key = lambda c: hashlib.sha1((salt + c.id).encode()).hexdigest()
    return sorted(sorted(cases, key=key)[:n], key=lambda c: cases.index(c))


def sample_product(pools: Sequence[Sequence[Any]], n: int, salt: str = "") -> list[tuple]:
    """Up to `n` distinct tuples of `itertools.product(*pools)`, chosen
    deterministically without building the whole product."""
    sizes = [len(p) for p in pools]
    total = int(np.prod(sizes)) if sizes else 0
    if total <= n:
        return list(itertools.product(*pools))
    rng = random.Random(salt + repr(sizes))
    picks = sorted(rng.sample(range(total), n))
    out = []
    for k in picks:
        idx = []
        for size in reversed(sizes):
            idx.append(k % size)
            k //= size
        out.append(tuple(p[i] for p, i in zip(pools, reversed(idx))))
    return out
