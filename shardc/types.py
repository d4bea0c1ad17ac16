"""Sharding types: `ArrayType` and its printed form.

`str(ArrayType)` is exactly JAX's `str(jax.typeof(x))`: `~` for weak types,
`8@X` / `8@(X,Y)` for sharded dims, then `{V:…, U:…, R:…}` with axes listed in
mesh order. Only Explicit axes appear in the dims; Auto axes are invisible and
Manual axes show up only in the V/U/R sets.
"""
from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from . import dtypes as dt
from .errors import ShardcValueError
from .mesh import EMPTY_MESH, AbstractMesh, AxisType, get_abstract_mesh
from .sharding import UNCONSTRAINED, Entry, NamedSharding, PartitionSpec, entry_axes


@dataclass(frozen=True)
class ManualAxisType:
    """JAX's `aval.mat`: the Manual axes a value inside `shard_map` varies over
    (`varying`, the VMA set) or is unreduced / reduced over."""

    varying: frozenset[str] = frozenset()
    unreduced: frozenset[str] = frozenset()
    reduced: frozenset[str] = frozenset()

    @property
    def empty(self) -> bool:
        return not (self.varying or self.unreduced or self.reduced)

    @property
    def vur(self) -> frozenset[str]:
        return self.varying | self.unreduced | self.reduced

    def update(self, **kw) -> "ManualAxisType":
        return ManualAxisType(**{k: frozenset(kw.get(k, getattr(self, k))) for k in ("varying", "unreduced",
                                                                                     "reduced")})

    def __repr__(self) -> str:
        return f"ManualAxisType(varying={self.varying}, unreduced={self.unreduced}, reduced={self.reduced})"


@dataclass(frozen=True)
class ArrayType:
    """The type of an array value: shape, dtype, and sharding on an abstract mesh.

    `spec` has one entry per dim (None, an axis name, or a tuple of names);
    `unreduced`/`reduced` hold the U/R axes (Explicit or Manual), `vma` the
    Manual axes along which the value varies inside `shard_map`.
    """

    shape: tuple[int, ...]
    dtype: np.dtype
    spec: tuple[Entry, ...] = ()
    unreduced: frozenset[str] = frozenset()
    reduced: frozenset[str] = frozenset()
    vma: frozenset[str] = frozenset()
    mesh: AbstractMesh = EMPTY_MESH
    weak_type: bool = False
    _hash: int = field(default=0, init=False, repr=False, compare=False)

    def __post_init__(self):
        if len(self.spec) != len(self.shape):
            object.__setattr__(self, "spec", tuple(self.spec) + (None,) * (len(self.shape) - len(self.spec)))

    def __hash__(self) -> int:
        h = self._hash
        if not h:
            h = hash((self.shape, self.dtype, self.spec, self.unreduced, self.reduced, self.vma,
                      self.mesh, self.weak_type))
            object.__setattr__(self, "_hash", h)
        return h

    # --- views ---------------------------------------------------------------
    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def pspec(self) -> PartitionSpec:
        return PartitionSpec(*self.spec, unreduced=self.unreduced, reduced=self.reduced)

    @property
    def sharding(self) -> NamedSharding:
        return NamedSharding(self.mesh, self.pspec)

    @property
    def mat(self) -> ManualAxisType:
        """JAX's `aval.mat` (`manual_axis_type`): the VMA set and the Manual unreduced/reduced axes."""
        manual = frozenset(self.mesh.manual_axes)
        return ManualAxisType(frozenset(self.vma), frozenset(self.unreduced) & manual,
                              frozenset(self.reduced) & manual)

    manual_axis_type = mat

    def dim_axes(self, i: int) -> tuple[str, ...]:
        return entry_axes(self.spec[i])

    def dim_shards(self, i: int) -> int:
        return math.prod(self.mesh.axis_size(a) for a in self.dim_axes(i))

    @property
    def local_shape(self) -> tuple[int, ...]:
        """The per-device block shape for this type's Explicit sharding."""
        return tuple(d // self.dim_shards(i) for i, d in enumerate(self.shape))

    def update(self, **kw) -> "ArrayType":
        args = dict(shape=self.shape, dtype=self.dtype, spec=self.spec, unreduced=self.unreduced,
                    reduced=self.reduced, vma=self.vma, mesh=self.mesh, weak_type=self.weak_type)
        args.update(kw)
        return ArrayType(**args)

    # --- printing ------------------------------------------------------------
    def _dims(self) -> str:
        out = []
        for d, e in zip(self.shape, self.spec):
            axes = entry_axes(e)
            if not axes:
                out.append(str(d))
            elif len(axes) == 1:
                out.append(f"{d}@{axes[0]}")
            else:
                out.append(f"{d}@({','.join(axes)})")
        return ",".join(out)

    def _attrs(self) -> str:
        parts = []
        for tag, s in (("V", self.vma), ("U", self.unreduced), ("R", self.reduced)):
            if s:
                names = self.mesh.mesh_order(s) if all(a in self.mesh.axis_names for a in s) else tuple(sorted(s))
                parts.append(f"{tag}:{names[0]}" if len(names) == 1 else f"{tag}:({','.join(names)})")
        return "{" + ", ".join(parts) + "}" if parts else ""

    def str_short(self, short_dtypes: bool = True, mesh_axis_types: bool = False) -> str:
        name = dt.short_name(self.dtype) if short_dtypes else self.dtype.name
        s = f"{name}[{self._dims()}]{self._attrs()}"
        if mesh_axis_types:
            s += f"({self.mesh.str_axis_types()})"
        return s

    def __str__(self) -> str:
        return ("~" if self.weak_type else "") + self.str_short(short_dtypes=False)

    def __repr__(self) -> str:
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({self.str_short(short_dtypes=False)}{weak})"


# --- building types from user specs ------------------------------------------
def _dup_error(spec: PartitionSpec, axes: Sequence[str]) -> ShardcValueError:
    return ShardcValueError(
        "A single NamedSharding spec specification can map every mesh axis to at most one "
        f"positional dimension, but {spec!r} has duplicate entries for "
        + ", ".join(sorted(f"`{a}`" for a in axes)))


def check_spec(spec: PartitionSpec, mesh: AbstractMesh, shape: Sequence[int], *,
               allow_uneven: bool = False) -> None:
    """The checks JAX runs when a sharding meets a shape (JAX rules §1.3);
    `allow_uneven` skips divisibility (as JAX's `with_sharding_constraint`)."""
    if len(spec) > len(shape):
        raise ShardcValueError(
            f"PartitionSpec {spec!r} is only valid for values of rank at least {len(spec)}, "
            f"but was applied to a value of rank {len(shape)}")
    used = [a for e in spec for a in entry_axes(e)]
    if len(used) != len(set(used)):
        raise _dup_error(spec, [a for a in dict.fromkeys(used) if used.count(a) > 1])
    seen: set[str] = set()
    for kind, e in [(None, e) for e in spec] + [("Unreduced", tuple(sorted(spec.unreduced))),
                                                 ("Reduced", tuple(sorted(spec.reduced)))]:
        for a in entry_axes(e):
            if a not in mesh.axis_names and kind is not None:
                raise ShardcValueError(
                    f"{kind} axes {a} is not found in mesh.axis_names={mesh.axis_names!r}. "
                    f"Got pspec={spec!r}")
            if a not in mesh.axis_names:
                raise ShardcValueError(
                    f"Resource axis: {a} of {spec!r} is not found in mesh: {mesh.axis_names!r}.")
            if a in seen:
                raise _dup_error(spec, [a])
            seen.add(a)
    for i, e in enumerate(spec):
        axes = entry_axes(e)
        n = math.prod(mesh.axis_size(a) for a in axes)
        if axes and shape[i] % n and not allow_uneven:
            raise ShardcValueError(
                f"Sharding spec {axes!r} implies that array axis {i} is partitioned {n} times, "
                f"but does not evenly divide the dimension size {shape[i]}. Got shape: "
                f"{tuple(shape)} and sharding NamedSharding(mesh={mesh!r}, spec={spec!r})")
    if UNCONSTRAINED in tuple(spec) and not mesh.auto_axes:
        raise ShardcValueError(
            f"{spec!r} cannot contain `P.UNCONSTRAINED` when no mesh axis_types are `Auto`. "
            f"Got mesh axis_types: ({', '.join(t.value for t in mesh.axis_types)})")


def visible_entry(e: Entry, mesh: AbstractMesh) -> Entry:
    """Drop the axes a type cannot mention (Auto and Manual axes)."""
    axes = tuple(a for a in entry_axes(e) if mesh.axis_type(a) == AxisType.Explicit)
    if not axes:
        return None
    return axes[0] if len(axes) == 1 else axes


def type_from_spec(shape: Sequence[int], dtype, spec: PartitionSpec | None,
                   mesh: AbstractMesh, *, weak_type: bool = False,
                   vma: frozenset[str] = frozenset()) -> ArrayType:
    """Build the type of a value of `shape` laid out as `spec` on `mesh`."""
    shape = tuple(int(d) for d in shape)
    spec = PartitionSpec() if spec is None else spec
    check_spec(spec, mesh, shape)
    entries = tuple(visible_entry(e, mesh) for e in spec) if not mesh.empty else ()
    return ArrayType(shape, dt.canonicalize(dtype), entries, spec.unreduced, spec.reduced,
                     frozenset(vma), mesh, weak_type)


# --- parsing ------------------------------------------------------------------
_TYPE_RE = re.compile(r"^\s*(~)?([a-z0-9_]+)\[([^\]]*)\]\s*(\{[^}]*\})?\s*$")


def _parse_axes(s: str) -> tuple[str, ...]:
    s = s.strip()
    if s.startswith("("):
        return tuple(a.strip() for a in s[1:-1].split(",") if a.strip())
    return (s,)


def _text_error(text: str, start: int, end: int, message: str, choices: Sequence[str] = (),
                word: str | None = None) -> ShardcValueError:
    """A type-string error: the message, the closest valid name (difflib), and the
    offending text underlined with carets."""
    hint = ""
    if word is not None and choices:
        close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.5)
        if close:
            hint = f"; did you mean {close[0]!r}?"
    caret = " " * start + "^" * max(end - start, 1)
    return ShardcValueError(f"{message}{hint}\n    {text}\n    {caret}")


def _pieces(text: str, start: int, end: int, sep: str = ",") -> list[tuple[str, int]]:
    """`text[start:end]` split at top-level `sep`, each piece with its offset in `text`."""
    out, depth, begin = [], 0, start
    for i in range(start, end):
        c = text[i]
        depth += (c == "(") - (c == ")")
        if c == sep and depth == 0:
            out.append((text[begin:i], begin))
            begin = i + 1
    out.append((text[begin:end], begin))
    return out


def _axis_names(text: str, piece: str, off: int) -> list[tuple[str, int]]:
    """The axis names of `X` or `(X,Y)` with their offsets in `text`."""
    out = []
    for m in re.finditer(r"[^\s(),]+", piece):
        out.append((m.group(0), off + m.start()))
    return out


def _check_axis_names(text: str, names: list[tuple[str, int]], mesh: AbstractMesh) -> None:
    for name, at in names:
        if mesh.empty:
            raise _text_error(text, at, at + len(name), f"type {text!r} names mesh axes but no mesh is set: "
                              "use `with sc.set_mesh(mesh):` or pass mesh=")
        if name not in mesh.axis_names:
            raise _text_error(text, at, at + len(name), f"in type {text!r}: Resource axis {name!r} is not found "
                              f"in mesh: {mesh.axis_names!r}", mesh.axis_names, name)


def parse_type(text: str, mesh: AbstractMesh | None = None) -> ArrayType:
    """Parse `f32[8@X,4]{U:Y}` (short or long dtype names, optional `~`).

    Axis names are resolved against `mesh` or the context mesh. A mistake is a
    `ShardcValueError` that underlines the offending text and suggests the closest
    valid dtype or axis name.
    """
    if isinstance(text, ArrayType):
        return text
    if not isinstance(text, str):
        raise ShardcValueError(f"a type must be a string like 'f32[8@X,4]' or an ArrayType, got {text!r}")
    m = _TYPE_RE.match(text)
    if not m:
        lb, rb = text.find("["), text.find("]")
        at, end = (len(text.rstrip()), len(text.rstrip()) + 1) if lb < 0 or rb < lb else (0, len(text))
        raise _text_error(text, at, end, f"cannot parse type {text!r}: expected e.g. 'f32[8@X,4]' or "
                          "'float32[8@(X,Y)]{U:Z}'" + (" (no '[…]' with the dims)" if lb < 0 or rb < lb else ""))
    weak, dname, dims, attrs = m.groups()
    try:
        dtype = dt.from_name(dname)
    except ShardcValueError as e:
        names = sorted(set(dt.SHORT_NAMES.values()) | {d.name for d in dt.SHORT_NAMES})
        raise _text_error(text, m.start(2), m.end(2), e.message, names, dname) from None
    mesh = get_abstract_mesh() if mesh is None else mesh
    if hasattr(mesh, "abstract_mesh"):
        mesh = mesh.abstract_mesh
    shape, entries = [], []
    for d, off in (_pieces(text, m.start(3), m.end(3)) if dims.strip() else []):
        if not d.strip():
            continue
        size, _, axes = d.partition("@")
        try:
            shape.append(int(size))
        except ValueError:
            lead = len(size) - len(size.lstrip())
            raise _text_error(text, off + lead, off + len(size.rstrip()),
                              f"cannot parse dim {d.strip()!r} in type {text!r}: expected a size, "
                              "optionally followed by @AXIS or @(AXIS,AXIS)") from None
        if axes:
            _check_axis_names(text, _axis_names(text, axes, off + len(size) + 1), mesh)
        entries.append(_parse_axes(axes) if axes else None)
    sets = {"V": frozenset(), "U": frozenset(), "R": frozenset()}
    if attrs:
        for part in re.split(r",\s*(?=[VUR]:)", attrs[1:-1]):
            off = text.find(part, m.start(4)) if part else m.start(4)
            part = part.strip()
            if not part:
                continue
            tag, _, axes = part.partition(":")
            if tag not in sets:
                raise _text_error(text, off, off + len(tag),
                                  f"unknown attribute {tag!r} in type {text!r} (expected V, U or R)")
            _check_axis_names(text, _axis_names(text, axes, off + len(tag) + 1), mesh)
            sets[tag] = frozenset(_parse_axes(axes))
    spec = PartitionSpec(*entries, unreduced=sets["U"], reduced=sets["R"])
    t = type_from_spec(shape, dtype, spec, mesh, weak_type=bool(weak), vma=sets["V"])
    return t


def as_type(x: "ArrayType | str", mesh: AbstractMesh | None = None) -> ArrayType:
    """A type from an `ArrayType` or a type string."""
    if isinstance(x, ArrayType):
        return x
    return parse_type(x, mesh)
