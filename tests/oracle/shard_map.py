"""Manual-mode programs for the oracle: `smap(...)` builds `fn(ns, *args)`
calling `ns.shard_map(body, ...)` (with optional `pre`/`post` steps around
it inside the same program) and notes the type of every body input and
output; `smap_case` makes a `Case` of it with the manual-mode tables'
conventions (`error=(kind, phrase)` claims, `run`/`eager`). Also the shared
builders of those tables (operands a/b/c, axis sets)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import jax

from .cases import Case
from .meshes import resolve


@dataclass(frozen=True)
class S:
    """A PartitionSpec written once for both sides: `S('X', None, u={'Y'})`."""

    entries: tuple
    u: frozenset = frozenset()
    r: frozenset = frozenset()

    def __init__(self, *entries, u=(), r=()):
        object.__setattr__(self, "entries", tuple(entries))
        object.__setattr__(self, "u", frozenset(u))
        object.__setattr__(self, "r", frozenset(r))

    def to(self, P):
        kw = {}
        if self.u:
            kw["unreduced"] = set(self.u)
        if self.r:
            kw["reduced"] = set(self.r)
        return P(*self.entries, **kw)

    def __repr__(self) -> str:
        parts = [repr(e) for e in self.entries]
        if self.u:
            parts.append(f"u={sorted(self.u)}")
        if self.r:
            parts.append(f"r={sorted(self.r)}")
        return "S(" + ", ".join(parts) + ")"


def specs_to(specs, P):
    """A spec tree (S, tuple/list/dict of S, None) as the namespace's P objects."""
    if specs is None:
        return None
    if isinstance(specs, S):
        return specs.to(P)
    if isinstance(specs, dict):
        return {k: specs_to(v, P) for k, v in specs.items()}
    return type(specs)(specs_to(s, P) for s in specs)


def smap(body: Callable[..., Any], out_specs, *, in_specs=None, axis_names=None, check_vma: bool = True,
         pre: Callable[..., Any] | None = None, post: Callable[..., Any] | None = None):
    """`fn(ns, *args)`: `pre`, then `ns.shard_map(body, ...)`, then `post`; the
    body's inputs and outputs are noted (`ns.note`) in order."""
    def fn(ns, *args):
        def wrapped(*xs):
            for x in jax.tree_util.tree_leaves(xs):
                ns.note(x)
            out = body(ns, *xs)
            for o in jax.tree_util.tree_leaves(out):
                ns.note(o)
            return out

        wrapped.__name__ = getattr(body, "__name__", "body")
        kw: dict[str, Any] = dict(out_specs=specs_to(out_specs, ns.P), check_vma=check_vma)
        if in_specs is not None:
            kw["in_specs"] = specs_to(in_specs, ns.P)
        if axis_names is not None:
            kw["axis_names"] = set(axis_names)
        smapped = ns.shard_map(wrapped, **kw)
        if pre is not None:
            args = pre(ns, *args)
        outs = smapped(*args)
        if post is not None:
            outs = post(ns, *(outs if isinstance(outs, (tuple, list)) else (outs,)))
        return outs

    return fn


def smap_case(id: str, mesh, args, body, out_specs, *, in_specs=None, axis_names=None, check_vma: bool = True,
              pre=None, post=None, error: tuple | None = None, quirk: bool = False, run: bool = False,
              numpy_args: bool = False, eager: bool = False) -> Case:
    """A manual-mode case. `error=(kind, phrase)`: JAX rejects it with that
    class (a builtin or "ShardingTypeError") and phrase, and so must shardc;
    without it JAX must accept. `quirk`: JAX rejects for an implementation gap,
    shardc must reject with `error`. `run`: compile and run both ("jit");
    `eager`: call the shard_map outside any jit."""
    kind, phrase = error if error is not None else (None, None)
    return Case(id, mesh, smap(body, out_specs, in_specs=in_specs, axis_names=axis_names, check_vma=check_vma,
                               pre=pre, post=post),
                tuple(args), phrase=phrase, kind=kind, quirk=quirk,
                expect=None if quirk else ("reject" if error is not None else "accept"),
                mode="eager" if eager else ("jit" if run else "trace"), numpy_args=numpy_args)


# --- builders shared by the manual-mode tables --------------------------------------------------------
def axes_of(mesh) -> tuple[str, ...]:
    return resolve(mesh).names


def sizes_of(mesh) -> dict[str, int]:
    return resolve(mesh).sizes


def entry(axes):
    """A spec entry for a tuple of axes."""
    axes = tuple(axes)
    return None if not axes else (axes[0] if len(axes) == 1 else axes)


def operands(mesh, dt: str = "f32") -> tuple[str, str, str]:
    """a (varying on every axis), b (varying on the first axis), c (invariant); each local [8,8]."""
    from .types import type_str
    names = axes_of(mesh)
    n = math.prod(sizes_of(mesh).values())
    a = type_str(dt, (8 * n, 8), (entry(names),))
    b = type_str(dt, (8 * sizes_of(mesh)[names[0]], 8), (names[0],))
    c = type_str(dt, (8, 8))
    return (a, b, c)


def tile_all(mesh) -> S:
    """An out_spec that tiles a leading dim over every mesh axis (fits any V set)."""
    return S(entry(axes_of(mesh)))


def stacked(f):
    """A body returning `f`'s value with a new leading dim (noted before)."""
    def body(ns, *xs):
        return ns.expand_dims(ns.note(f(ns, *xs)), 0)
    return body


def axis_sets(mesh) -> list[tuple[str, ...]]:
    names = axes_of(mesh)
    sets = [(a,) for a in names]
    if len(names) > 1:
        sets.append(names)                       # every axis, mesh order
        sets.append(tuple(reversed(names)))      # every axis, reversed order
    if len(names) == 3:
        sets += [("X", "Z"), ("Z", "Y")]
    return sets


def rest_axes(mesh) -> tuple[str, ...]:
    names = axes_of(mesh)
    return names[1:] if len(names) > 1 else names


def shift(n: int) -> list[tuple[int, int]]:
    return [(i, (i + 1) % n) for i in range(n)]


def ident(ns, x):
    return x
