"""Argument types written as shardc type strings (``"f32[8@X,4@(Y,Z)]{U:X, R:Y}"``),
parsed here independently of shardc (so the JAX side gets the type the test
wrote, not shardc's reading of it), spec enumeration for the generated tables,
and deterministic input data."""
from __future__ import annotations

import functools
import itertools
import re
from dataclasses import dataclass, field
from typing import Any, Sequence

import jax
import ml_dtypes
import numpy as np
from jax.sharding import NamedSharding as JNamedSharding

import shardc as sc

from .meshes import axis_sizes

DTYPES = {"f32": np.float32, "f16": np.float16, "f64": np.float64, "bf16": ml_dtypes.bfloat16,
          "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
          "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "bool": np.bool_,
          "c64": np.complex64, "c128": np.complex128,
          "bfloat16": ml_dtypes.bfloat16}
_TYPE_RE = re.compile(r"^(?P<weak>~?)(?P<dt>[a-z0-9]+)\[(?P<dims>[^\]]*)\](?:\{(?P<attrs>[^}]*)\})?$")
_TOP_COMMA = re.compile(r",(?![^()]*\))")


@dataclass(frozen=True)
class ArgType:
    dtype: np.dtype
    shape: tuple[int, ...]
    spec: tuple
    unreduced: frozenset
    reduced: frozenset
    weak_type: bool
    text: str

    def jax_pspec(self, *, unreduced: bool = True):
        return jax.P(*self.spec, unreduced=set(self.unreduced) if unreduced else set(),
                     reduced=set(self.reduced))

    def sc_pspec(self, *, unreduced: bool = True):
        return sc.P(*self.spec, unreduced=set(self.unreduced) if unreduced else set(),
                    reduced=set(self.reduced))

    def jax_struct(self, jm):
        return jax.ShapeDtypeStruct(self.shape, self.dtype, sharding=JNamedSharding(jm, self.jax_pspec()),
                                    weak_type=self.weak_type)


def _axes(s: str) -> tuple[str, ...]:
    s = s.strip()
    return tuple(a.strip() for a in s[1:-1].split(",") if a.strip()) if s.startswith("(") else (s,)


def _dtype(name: str) -> np.dtype:
    return np.dtype(DTYPES[name]) if name in DTYPES else np.dtype(name)


@functools.cache
def parse_type(text: str) -> ArgType:
    """`f32[8@X,4@(X,Y)]{U:Z, R:X}` → dtype, shape, spec, unreduced, reduced."""
    m = _TYPE_RE.match(text.replace(" ", ""))
    assert m, f"not a type string: {text!r}"
    shape, spec = [], []
    for d in filter(None, _TOP_COMMA.split(m.group("dims"))):
        size, _, ax = d.partition("@")
        shape.append(int(size))
        axes = _axes(ax) if ax else ()
        spec.append(None if not axes else (axes[0] if len(axes) == 1 else axes))
    u, r = frozenset(), frozenset()
    for attr in filter(None, _TOP_COMMA.split(m.group("attrs") or "")):
        tag, _, ax = attr.partition(":")
        if tag == "U":
            u = frozenset(_axes(ax))
        elif tag == "R":
            r = frozenset(_axes(ax))
        else:
            raise AssertionError(f"unknown attribute {tag!r} in {text!r}")
    return ArgType(_dtype(m.group("dt")), tuple(shape), tuple(spec), u, r, bool(m.group("weak")), text)


@dataclass(frozen=True)
class Placed:
    """An argument given by its concrete placement rather than by its type: a
    spec that may name Auto axes, and optionally the value itself (otherwise
    `data_for` makes one). Traced as the type JAX gives the placed array."""

    shape: tuple[int, ...] = ()
    spec: tuple = ()
    dtype: str = "f32"
    value: Any = field(default=None, compare=False)
    reduced: frozenset = frozenset()

    def __post_init__(self):
        if self.value is not None:
            v = np.asarray(self.value)
            object.__setattr__(self, "shape", v.shape)
            object.__setattr__(self, "dtype", str(v.dtype))

    def jax_pspec(self):
        return jax.P(*self.spec, reduced=set(self.reduced))

    def sc_pspec(self):
        return sc.P(*self.spec, reduced=set(self.reduced))

    def __repr__(self) -> str:
        return f"Placed({self.dtype}{list(self.shape)}, {self.spec})"


# --- data ------------------------------------------------------------------------------------------
def data_for(dtype, shape, seed: int) -> np.ndarray:
    """Deterministic data: floats (and complex parts) uniform in [-2, 2), integers in [-5, 5], bools half true."""
    dtype = _dtype(dtype) if isinstance(dtype, str) else np.dtype(dtype)
    rng = np.random.default_rng(seed)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(dtype, np.unsignedinteger):
        return rng.integers(0, 6, size=shape).astype(dtype)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-5, 6, size=shape).astype(dtype)
    if np.issubdtype(dtype, np.complexfloating):
        parts = rng.uniform(-2.0, 2.0, size=(2, *shape)).astype(np.float32)
        return (parts[0] + 1j * parts[1]).astype(dtype)
    return rng.uniform(-2.0, 2.0, size=shape).astype(np.float32).astype(dtype)


def arg_data(arg, seed: int) -> np.ndarray:
    if isinstance(arg, Placed):
        if arg.value is not None:
            return np.asarray(arg.value)
        return data_for(arg.dtype, arg.shape, seed)
    t = parse_type(arg)
    return data_for(t.dtype, t.shape, seed)


# --- writing types and enumerating specs ----------------------------------------------------------
def entry_str(e) -> str:
    if e is None:
        return ""
    if isinstance(e, str):
        return e
    return "(" + ",".join(e) + ")"


def entry_axes(e) -> tuple[str, ...]:
    if e is None:
        return ()
    return (e,) if isinstance(e, str) else tuple(e)


def type_str(dtype: str, shape: Sequence[int], spec: Sequence[Any] = (), u=(), r=()) -> str:
    """`f32[8@X,4]{U:Y}` from parts (U/R axes in the order given)."""
    spec = tuple(spec) + (None,) * (len(shape) - len(spec))
    dims = ",".join(f"{d}@{entry_str(e)}" if e is not None else str(d) for d, e in zip(shape, spec))
    attrs = []
    for tag, s in (("U", u), ("R", r)):
        s = tuple(s)
        if s:
            attrs.append(f"{tag}:{s[0]}" if len(s) == 1 else f"{tag}:({','.join(s)})")
    return f"{dtype}[{dims}]" + ("{" + ", ".join(attrs) + "}" if attrs else "")


def spec_id(spec) -> str:
    return "P(" + ",".join(entry_str(e) or "-" for e in spec) + ")"


@functools.cache
def _specs_for(shape: tuple[int, ...], mesh, valid: bool, max_axes_per_dim: int) -> tuple:
    sizes = axis_sizes(mesh)
    names = list(sizes)
    out = []

    def rec(i: int, used: frozenset, acc: list):
        if i == len(shape):
            out.append(tuple(acc))
            return
        free = [a for a in names if a not in used]
        for k in range(0, min(len(free), max_axes_per_dim) + 1):
            for combo in itertools.permutations(free, k):
                e = None if k == 0 else (combo[0] if k == 1 else combo)
                rec(i + 1, used | set(combo), acc + [e])

    rec(0, frozenset(), [])

    def ok(spec):
        return all(d % int(np.prod([sizes[a] for a in entry_axes(e)])) == 0 for d, e in zip(shape, spec))

    return tuple(s for s in out if ok(s) == valid)


def specs_for(shape: Sequence[int], mesh, *, valid: bool = True, max_axes_per_dim: int = 3):
    """Every spec (tuple of entries) for `shape` on `mesh`: each dim None, an
    axis, or an ordered tuple of axes; no axis twice. With `valid`, only specs
    whose sharded dims are divisible; with `valid=False`, only the invalid ones."""
    return list(_specs_for(tuple(shape), mesh, valid, max_axes_per_dim))
