"""Sharding types: `ArrayType` and its printed form.

`str(ArrayType)` is exactly JAX's `str(jax.typeof(x))`: `~` for weak types,
`8@X` / `8@(X,Y)` for sharded dims, then `{V:…, U:…, R:…}` with axes listed in
mesh order. Only Explicit axes appear in the dims; Auto axes are invisible and
Manual axes show up only in the V/U/R sets.
"""
from __future__ import annotations

import difflib
import math
import operator
import re
import sys
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from . import dtypes as dt
from .errors import ShardcTypeError, ShardcValueError, user_location, user_location_from
from .mesh import EMPTY_MESH, AbstractMesh, AxisType, get_abstract_mesh
from .sharding import UNCONSTRAINED, Entry, MemorySpace, NamedSharding, PartitionSpec, entry_axes


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

    def invarying(self, mesh) -> frozenset[str]:
        """The Manual axes of `mesh` the value is invariant over (neither varying, unreduced nor reduced)."""
        return frozenset(mesh.manual_axes) - self.vur

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
    #: JAX's `aval.memory_space`: device memory, or host memory (`float32<host>[8]`)
    memory_space: MemorySpace = MemorySpace.Device
    _hash: int = field(default=0, init=False, repr=False, compare=False)

    def __post_init__(self):
        # XLA aborts the process on extents beyond int64: no such type may exist (checked cheaply)
        if self.shape and (min(self.shape) < 0 or max(self.shape) > INT64_MAX
                           or math.prod(self.shape) * getattr(self.dtype, "itemsize", 1) > INT64_MAX):
            # (frame 1 is dataclass's generated __init__, whose file is '<string>')
            raise ShardcValueError(check_extent(self.shape, self.dtype), loc=user_location_from(sys._getframe(2)))
        if len(self.spec) != len(self.shape):
            object.__setattr__(self, "spec", tuple(self.spec) + (None,) * (len(self.shape) - len(self.spec)))

    def __hash__(self) -> int:
        h = self._hash
        if not h:
            h = hash((self.shape, self.dtype, self.spec, self.unreduced, self.reduced, self.vma,
                      self.mesh, self.weak_type, self.memory_space))
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
        return NamedSharding(self.mesh, self.pspec)   # (JAX's `aval.sharding`: the memory space is apart)

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
                    reduced=self.reduced, vma=self.vma, mesh=self.mesh, weak_type=self.weak_type,
                    memory_space=self.memory_space)
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
        ms = "" if self.memory_space is MemorySpace.Device else f"<{self.memory_space.name.lower()}>"
        s = f"{name}{ms}[{self._dims()}]{self._attrs()}"
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


def _unknown_axis(kind: str | None, a: str, spec: PartitionSpec, mesh: AbstractMesh) -> str:
    """JAX's message for an axis name the mesh does not have (in a dim, or unreduced/reduced)."""
    if kind is not None:
        return f"{kind} axes {a} is not found in mesh.axis_names={mesh.axis_names!r}. Got pspec={spec!r}"
    return f"Resource axis: {a} of {spec!r} is not found in mesh: {mesh.axis_names!r}."


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
            if a not in mesh.axis_names:
                raise ShardcValueError(_unknown_axis(kind, a, spec, mesh))
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
                   vma: frozenset[str] = frozenset(),
                   memory_space: MemorySpace = MemorySpace.Device) -> ArrayType:
    """Build the type of a value of `shape` laid out as `spec` on `mesh`."""
    shape = integer_dims(shape)
    spec = PartitionSpec() if spec is None else spec
    check_spec(spec, mesh, shape)
    entries = tuple(visible_entry(e, mesh) for e in spec) if not mesh.empty else ()
    return ArrayType(shape, dt.canonicalize(dtype), entries, spec.unreduced, spec.reduced,
                     frozenset(vma), mesh, weak_type, memory_space)


# --- parsing ------------------------------------------------------------------
#: the largest element count, dim size and byte size XLA can represent (int64 extents)
INT64_MAX = 2**63 - 1


def integer_dims(shape: Sequence, what: str = "Shapes") -> tuple[int, ...]:
    """`shape` as Python ints; a float, None or string dim is JAX's TypeError (2.5 is never
    rounded to 2)."""
    try:
        return tuple(operator.index(d) for d in shape)
    except TypeError:
        raise ShardcTypeError(f"{what} must be 1D sequences of concrete values of integer type, "
                              f"got {tuple(shape)}.", loc=user_location()) from None


def check_extent(shape: Sequence[int], dtype) -> str | None:
    """Why an array of `shape` and `dtype` cannot exist (None when it can): a negative dim,
    or a dim, element count or byte size beyond int64 (XLA aborts the process on those)."""
    if not shape:
        return None
    if min(shape) < 0:
        return f"negative dimensions are not allowed: {tuple(shape)}"
    n = math.prod(shape)
    nbytes = n * getattr(dtype, "itemsize", 1)
    if max(shape) > INT64_MAX or nbytes > INT64_MAX:
        return (f"shape {tuple(shape)} of {getattr(dtype, 'name', dtype)} has {n} elements ({nbytes} bytes): "
                f"more than the largest int64 ({INT64_MAX}); no array can be that large")
    return None


def _text_error(text: str, start: int, end: int, message: str, choices: Sequence[str] = (),
                word: str | None = None) -> ShardcValueError:
    """A type-string error: the message, the closest valid name (difflib), and the
    offending text underlined with carets."""
    hint = ""
    if word is not None and choices:
        close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.5)
        if close:
            hint = f"; did you mean {close[0]!r}?"
            message = message.rstrip(".")
    caret = " " * start + "^" * max(end - start, 1)
    return ShardcValueError(f"{message}{hint}\n    {text}\n    {caret}")


#: characters that end an axis name in a type string
_NAME_STOP = frozenset(" \t\r\n()[]{},@:~")
_EXAMPLE = "expected e.g. 'f32[8@X,4]' or 'float32[8@(X,Y)]{U:Z}'"


class _Reader:
    """A cursor over a type string; every mistake raises with a caret under it.

    The grammar (one parser for every type string shardc reads):
        type  := '~'? DTYPE ('<' SPACE '>')? '[' (dim (',' dim)*)? ']' ('{' (attr (',' attr)*)? '}')?
        SPACE := 'host' | 'any'              (the memory space; none: device memory)
        dim   := DIGITS ('@' axes)?          attr := ('V' | 'U' | 'R') ':' axes
        axes  := NAME | '(' NAME (',' NAME)* ')'
    with blanks allowed around every token."""

    def __init__(self, text: str):
        self.text, self.i = text, 0

    def ws(self) -> None:
        while self.i < len(self.text) and self.text[self.i] in " \t\r\n":
            self.i += 1

    def peek(self) -> str:
        return self.text[self.i] if self.i < len(self.text) else ""

    def eat(self, ch: str) -> bool:
        self.ws()
        if self.peek() == ch:
            self.i += 1
            return True
        return False

    def fail(self, message: str, start: int | None = None, end: int | None = None) -> ShardcValueError:
        start = self.i if start is None else start
        if end is None:  # underline the offending token (one character at least)
            end = start + 1
            while end < len(self.text) and self.text[end] not in _NAME_STOP and self.text[start] not in _NAME_STOP:
                end += 1
        what = repr(self.text[start]) if start < len(self.text) else "the end"
        return _text_error(self.text, start, end, f"cannot parse type {self.text!r}: {message}, found {what}")

    def expect(self, ch: str, message: str) -> None:
        if not self.eat(ch):
            raise self.fail(message)

    def dtype(self) -> tuple[str, int]:
        self.ws()
        m = re.compile(r"[A-Za-z][A-Za-z0-9_]*").match(self.text, self.i)
        if not m:
            raise self.fail(f"expected a dtype name ({_EXAMPLE.removeprefix('expected ')})")
        self.i = m.end()
        return m.group(0), m.start()

    def size(self) -> int:
        self.ws()
        start = self.i
        m = re.compile(r"[0-9]+").match(self.text, start)
        end = start
        while end < len(self.text) and self.text[end] not in ",]@" and not self.text[end].isspace():
            end += 1
        if not m or m.end() != end:
            if start >= len(self.text):
                raise self.fail("the dims are not closed (no '[…]' with the dims)")
            token = self.text[start:end]
            if not token:
                raise self.fail("expected a dim size (a non-negative integer)")
            why = ("negative dim sizes are not allowed" if token.startswith("-") and token[1:].isdigit()
                   else "expected a size (a non-negative integer), optionally followed by @AXIS or @(AXIS,AXIS)")
            raise _text_error(self.text, start, max(end, start + 1),
                              f"cannot parse dim {token!r} in type {self.text!r}: {why}")
        self.i = end
        value = int(m.group(0))
        if value > INT64_MAX:
            raise _text_error(self.text, start, end,
                              f"in type {self.text!r}: dim size {value} is larger than the largest int64 "
                              f"({INT64_MAX})")
        return value

    def name(self) -> tuple[str, int]:
        self.ws()
        start = self.i
        while self.i < len(self.text) and self.text[self.i] not in _NAME_STOP:
            self.i += 1
        if self.i == start:
            raise self.fail("expected a mesh axis name")
        return self.text[start:self.i], start

    def axes(self) -> list[tuple[str, int]]:
        if not self.eat("("):
            return [self.name()]
        names = [self.name()]
        while not self.eat(")"):
            self.expect(",", "expected ',' or ')' in a tuple of mesh axes")
            names.append(self.name())
        return names


def _read_type(r: _Reader):
    """(weak, (dtype name, at), dims as (size, axes), {tag: axes}, (dims start, dims end)) of `r`'s text."""
    r.ws()
    weak = r.eat("~")
    dname = r.dtype()
    space = MemorySpace.Device
    if r.eat("<"):
        r.ws()
        m = re.compile(r"[A-Za-z_]*").match(r.text, r.i)
        if m.group(0) not in ("host", "any"):
            raise _text_error(r.text, r.i, max(m.end(), r.i + 1),
                              f"cannot parse type {r.text!r}: unknown memory space {m.group(0)!r} "
                              "(expected <host> or <any>; device memory is written without one)",
                              ("host", "any"), m.group(0))
        r.i = m.end()
        space = MemorySpace[m.group(0).capitalize()]
        r.expect(">", "expected '>' after the memory space")
    r.expect("[", "expected '[' and the dims after the dtype")
    dims_start = r.i
    dims: list[tuple[int, list[tuple[str, int]] | None]] = []
    if not r.eat("]"):
        while True:
            size = r.size()
            dims.append((size, r.axes() if r.eat("@") else None))
            if r.eat("]"):
                break
            if r.i >= len(r.text):
                raise r.fail("the dims are not closed (no '[…]' with the dims)")
            r.expect(",", "expected ',' or ']' after a dim")
    dims_end = r.i - 1
    attrs: dict[str, list[tuple[str, int]]] = {}
    if r.eat("{") and not r.eat("}"):
        while True:
            r.ws()
            at, tag = r.i, r.peek()
            if tag not in ("V", "U", "R") or r.text[at + 1:at + 2].isalnum():
                word = re.compile(r"[^\s:,{}]*").match(r.text, at).group(0)
                if not word:
                    raise r.fail("expected V:, U: or R: (varying, unreduced, reduced axes)")
                raise _text_error(r.text, at, at + len(word), f"unknown attribute {word!r} in type {r.text!r} "
                                  "(expected V, U or R: varying, unreduced, reduced axes)")
            if tag in attrs:
                raise r.fail(f"{tag}: appears twice", at, at + 1)
            r.i += 1
            r.expect(":", f"expected ':' after {tag}")
            attrs[tag] = r.axes()
            if r.eat("}"):
                break
            r.expect(",", "expected ',' or '}' after the axes")
    r.ws()
    if r.i < len(r.text):
        raise r.fail("unexpected text after the type", r.i, len(r.text.rstrip()))
    return weak, (*dname, space), dims, attrs, (dims_start, dims_end)


def _check_axis_names(text: str, names: list[tuple[str, int]], mesh: AbstractMesh, spec: "PartitionSpec",
                      kind: str | None = None) -> None:
    for name, at in names:
        if mesh.empty:
            raise _text_error(text, at, at + len(name), f"type {text!r} names mesh axes but no mesh is set: "
                              "use `with sc.set_mesh(mesh):` or pass mesh=")
        if name not in mesh.axis_names:   # JAX's wording, as `check_spec`'s
            raise _text_error(text, at, at + len(name), f"in type {text!r}: {_unknown_axis(kind, name, spec, mesh)}",
                              mesh.axis_names, name)


def _entry(names: list[tuple[str, int]]) -> Entry:
    axes = tuple(n for n, _ in names)
    return axes[0] if len(axes) == 1 else axes


def parse_type(text: str, mesh: AbstractMesh | None = None) -> ArrayType:
    """Parse `f32[8@X,4]{U:Y}` (short or long dtype names, optional `~`).

    One strict grammar (`_Reader`): every printed type parses back to itself and
    anything else is a `ShardcValueError` with a caret under the offending text
    (suggesting the closest dtype or axis name). Axis names are resolved against
    `mesh` or the context mesh; sizes are checked before XLA sees them (int64).
    """
    if isinstance(text, ArrayType):
        return text
    try:
        return _parse_type(text, mesh)
    except ShardcValueError as e:  # name the user's line (the first frame outside shardc)
        raise (e if e.loc is not None else e.with_context(loc=user_location())) from None


def _parse_type(text: str, mesh: AbstractMesh | None) -> ArrayType:
    if not isinstance(text, str):
        raise ShardcValueError(f"a type must be a string like 'f32[8@X,4]' or an ArrayType, got {text!r}")
    weak, (dname, d_at, space), dims, attrs, (ds, de) = _read_type(_Reader(text))
    try:
        dtype = dt.from_name(dname)
    except ShardcValueError as e:
        names = sorted(set(dt.SHORT_NAMES.values()) | {d.name for d in dt.SHORT_NAMES})
        raise _text_error(text, d_at, d_at + len(dname), e.message, names, dname) from None
    mesh = get_abstract_mesh() if mesh is None else mesh
    if hasattr(mesh, "abstract_mesh"):
        mesh = mesh.abstract_mesh
    named = _message_spec(dims, attrs)
    for _, names in dims:
        _check_axis_names(text, names or [], mesh, named)
    for tag, names in attrs.items():
        _check_axis_names(text, names, mesh, named, {"U": "Unreduced", "R": "Reduced"}.get(tag))
        if tag == "V":
            for name, at in names:
                if mesh.axis_type(name) != AxisType.Manual:
                    raise _text_error(text, at, at + len(name),
                                      f"in type {text!r}: V:{name} says the value varies over mesh axis "
                                      f"{name!r}, but {name!r} is {mesh.axis_type(name).value} here: values vary "
                                      "over Manual axes only, inside `shard_map`")
    shape = tuple(size for size, _ in dims)
    why = check_extent(shape, dtype)
    if why:
        raise _text_error(text, ds, de, f"in type {text!r}: {why}")
    try:
        spec = PartitionSpec(*(_entry(n) if n else None for _, n in dims),
                             unreduced=frozenset(n for n, _ in attrs.get("U", ())),
                             reduced=frozenset(n for n, _ in attrs.get("R", ())))
        return type_from_spec(shape, dtype, spec, mesh, weak_type=weak,
                              vma=frozenset(n for n, _ in attrs.get("V", ())), memory_space=space)
    except ShardcValueError as e:  # the spec does not fit (indivisible, an axis twice): underline the dims
        raise _text_error(text, ds, de, f"in type {text!r}: {e.message}") from None


def _message_spec(dims, attrs) -> PartitionSpec:
    """The spec a type string writes, for JAX's unknown-axis messages (partitions only when
    the unreduced/reduced sets themselves are invalid: that is reported later, underlined)."""
    parts = [_entry(n) if n else None for _, n in dims]
    try:
        return PartitionSpec(*parts, unreduced=frozenset(n for n, _ in attrs.get("U", ())),
                             reduced=frozenset(n for n, _ in attrs.get("R", ())))
    except ShardcValueError:
        return PartitionSpec(*parts)


def as_type(x: "ArrayType | str", mesh: AbstractMesh | None = None) -> ArrayType:
    """A type from an `ArrayType` or a type string."""
    if isinstance(x, ArrayType):
        return x
    return parse_type(x, mesh)
