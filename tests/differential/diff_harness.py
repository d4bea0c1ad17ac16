"""The differential harness: run one program in JAX (the oracle) and in shardc
and compare what each says about it.

A `Case` is a program written once against a namespace `ns` (`JAX_NS` gives
`jax.numpy` / `jax.nn` / `jax.lax` / `jax.sharding.reshard` / `jax.P`, `SC_NS`
gives `shardc`), the mesh it runs on and its input types (shardc type strings,
e.g. ``"f32[8@X,4@Y]{R:X}"``). `check_types` traces it on both sides and
compares accept/reject (error kind and key phrase) and `str(typeof)` of every
output; `check_values` also compiles and runs it on both sides and compares
the output values and the collectives in the partitioned HLO.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import itertools
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
from jax.sharding import AxisType, NamedSharding as JNamedSharding

import shardc as sc

# --- meshes -------------------------------------------------------------------------------
MESHES: dict[str, tuple[tuple[int, ...], tuple[str, ...]]] = {
    "1d": ((8,), ("X",)),
    "2d": ((2, 4), ("X", "Y")),
    "3d": ((2, 2, 2), ("X", "Y", "Z")),
}


@functools.cache
def meshes(name: str):
    """(shardc mesh, JAX mesh) over the same devices, every axis Explicit."""
    shape, names = MESHES[name]
    m = sc.make_mesh(shape, names)
    jm = jax.make_mesh(shape, names, axis_types=(AxisType.Explicit,) * len(names),
                       devices=list(m.devices.flat))
    return m, jm


@contextlib.contextmanager
def on_mesh(name: str):
    m, jm = meshes(name)
    with sc.set_mesh(m), jax.set_mesh(jm):
        yield m, jm


def axis_sizes(mesh: str) -> dict[str, int]:
    shape, names = MESHES[mesh]
    return dict(zip(names, shape))


# --- the two namespaces ------------------------------------------------------------------------
class _JaxNS:
    """`ns` for the JAX side: jnp first, then jax.nn, then jax.lax."""

    name = "jax"
    P = jax.P
    reshard = staticmethod(jax.sharding.reshard)
    with_sharding_constraint = staticmethod(jax.lax.with_sharding_constraint)
    dot_general = staticmethod(jax.lax.dot_general)

    def __getattr__(self, name: str):
        for mod in (jnp, jax.nn, jax.lax):
            if hasattr(mod, name):
                return getattr(mod, name)
        raise AttributeError(name)

    @staticmethod
    def reduce_sum(x, axes, out_sharding=None):
        return jax.lax.reduce_sum(x, tuple(axes), out_sharding=out_sharding)

    @staticmethod
    def concrete(x):
        return jnp.asarray(x)


class _ScNS:
    """`ns` for the shardc side."""

    name = "shardc"
    P = sc.P

    def __getattr__(self, name: str):
        return getattr(sc, name)

    @staticmethod
    def reduce_sum(x, axes, out_sharding=None):
        return sc.sum(x, tuple(axes), out_sharding=out_sharding)

    @staticmethod
    def broadcast_in_dim(x, shape, broadcast_dimensions, out_sharding=None):
        """`lax.broadcast_in_dim` has no public shardc op: bind the primitive."""
        from shardc.frontend.tracing import bind
        from shardc.primitives.shape import broadcast_in_dim
        return bind(broadcast_in_dim, x, shape=tuple(shape),
                    broadcast_dimensions=tuple(broadcast_dimensions), out_sharding=out_sharding)

    @staticmethod
    def concrete(x):
        return sc.asarray(x)


JAX_NS = _JaxNS()
SC_NS = _ScNS()

# --- cases ---------------------------------------------------------------------------------------
DTYPES = {"f32": np.dtype(np.float32), "bf16": np.dtype(ml_dtypes.bfloat16),
          "i32": np.dtype(np.int32), "bool": np.dtype(np.bool_)}


@dataclass
class Case:
    """One program, its mesh and its input types (shardc type strings)."""

    id: str
    mesh: str
    fn: Callable[..., Any]          # fn(ns, *inputs)
    args: tuple[str, ...] = ()
    #: a phrase both errors must contain, when the reference names one
    phrase: str | None = None
    #: JAX fails for an implementation gap (reference "quirk"): shardc only has to reject
    quirk: bool = False
    tags: tuple[str, ...] = field(default_factory=tuple)

    def __repr__(self) -> str:
        return self.id


def param(cases: Iterable[Case]):
    """`pytest.mark.parametrize` arguments with readable ids."""
    import pytest
    cases = list(cases)
    ids = [c.id for c in cases]
    dup = {i for i in ids if ids.count(i) > 1}
    assert not dup, f"duplicate case ids: {sorted(dup)[:5]}"
    return pytest.mark.parametrize("case", cases, ids=ids)


def sample(cases: Sequence[Case], n: int, salt: str = "") -> list[Case]:
    """A deterministic, spread-out subset of `cases` (by a hash of the id)."""
    if len(cases) <= n:
        return list(cases)
    key = lambda c: hashlib.sha1((salt + c.id).encode()).hexdigest()
    return sorted(sorted(cases, key=key)[:n], key=lambda c: cases.index(c))


def sample_product(pools: Sequence[Sequence[Any]], n: int, salt: str = "") -> list[tuple]:
    """Up to `n` distinct tuples of `itertools.product(*pools)`, chosen
    deterministically without building the whole product."""
    import random
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


# --- spec enumeration ----------------------------------------------------------------------------
def entry_str(e) -> str:
    if e is None:
        return ""
    if isinstance(e, str):
        return e
    return "(" + ",".join(e) + ")"


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


@functools.cache
def _specs_for(shape: tuple[int, ...], mesh: str, valid: bool, max_axes_per_dim: int) -> tuple:
    return tuple(_enumerate_specs(shape, mesh, valid, max_axes_per_dim))


def specs_for(shape: Sequence[int], mesh: str, *, valid: bool = True, max_axes_per_dim: int = 3):
    """Every spec (tuple of entries) for `shape` on `mesh`: each dim None, an
    axis, or an ordered tuple of axes; no axis twice. With `valid`, only specs
    whose sharded dims are divisible; with `valid=False`, only the invalid ones."""
    return list(_specs_for(tuple(shape), mesh, valid, max_axes_per_dim))


def _enumerate_specs(shape, mesh, valid, max_axes_per_dim):
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

    return [s for s in out if ok(s) == valid]


def entry_axes(e) -> tuple[str, ...]:
    if e is None:
        return ()
    return (e,) if isinstance(e, str) else tuple(e)


def spec_id(spec) -> str:
    return "P(" + ",".join(entry_str(e) or "-" for e in spec) + ")"


# --- building inputs ---------------------------------------------------------------------------------
def sc_type(text: str) -> sc.ArrayType:
    return sc.parse_type(text)


def jax_spec(t: sc.ArrayType):
    return jax.P(*t.spec, unreduced=set(t.unreduced), reduced=set(t.reduced))


def jax_struct(t: sc.ArrayType, jm):
    return jax.ShapeDtypeStruct(t.shape, t.dtype, sharding=JNamedSharding(jm, jax_spec(t)),
                                weak_type=t.weak_type)


def host_data(t: sc.ArrayType, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if t.dtype == np.bool_:
        return rng.random(t.shape) < 0.5
    if np.issubdtype(t.dtype, np.integer):
        return rng.integers(-5, 6, size=t.shape).astype(t.dtype)
    return rng.uniform(-2.0, 2.0, size=t.shape).astype(np.float32).astype(t.dtype)


# --- outcomes -----------------------------------------------------------------------------------------
@dataclass
class Outcome:
    types: list[str] | None = None
    error: BaseException | None = None
    outs: list[Any] | None = None
    collectives: dict[str, int] | None = None

    def describe(self) -> str:
        if self.error is not None:
            return f"raised {type(self.error).__name__}: {self.error}"
        return f"returned {self.types}"


def _flat(x) -> list:
    return jax.tree_util.tree_leaves(x)


def trace_jax(case: Case) -> Outcome:
    _, jm = meshes(case.mesh)
    try:
        structs = [jax_struct(sc_type(a), jm) for a in case.args]
        traced = jax.jit(lambda *xs: case.fn(JAX_NS, *xs)).trace(*structs)
        return Outcome(types=[str(a) for a in traced.jaxpr.out_avals])
    except Exception as e:  # noqa: BLE001 - the oracle's verdict
        return Outcome(error=e)


def trace_sc(case: Case) -> Outcome:
    try:
        types = [sc_type(a) for a in case.args]
        traced = sc.jit(lambda *xs: case.fn(SC_NS, *xs)).trace(*types)
        return Outcome(types=[str(t) for t in _flat(traced.out_types)])
    except Exception as e:  # noqa: BLE001
        return Outcome(error=e)


# --- comparing errors ------------------------------------------------------------------------------------
#: where the detail part of a JAX message starts (mesh reprs, API names, set orders)
_CUT = re.compile(r"(\bGot\b|, got \[|got `which`|\bPlease\b|NamedSharding\(|AbstractMesh\(|\bjax\.|"
                  r"`jax|frozenset\(|Reshard the input|This error occurs|\bnot found in mesh)")


def key_phrase(msg: str) -> str:
    """The rule-naming part of a JAX error message (before any detail)."""
    first = msg.strip().splitlines()[0] if msg.strip() else ""
    m = _CUT.search(first)
    key = first[:m.start()] if m else first
    return key.rstrip(" ,.:;(")


def _kind(e: BaseException) -> tuple[type, ...]:
    """The error class shardc must raise where JAX raised `e`: a sharding rule
    error must be a `ShardingTypeError`; NotImplementedError, AssertionError,
    ValueError and TypeError must match (shardc's errors derive from them)."""
    name = type(e).__name__
    if name == "ShardingTypeError":
        return (sc.ShardingTypeError,)
    for k in (NotImplementedError, AssertionError):
        if isinstance(e, k):
            return (k,)
    for k in (ValueError, TypeError):
        if isinstance(e, k):
            return (k,)
    return (Exception,)


def is_quirk(e: BaseException) -> bool:
    """JAX failing for an implementation gap rather than a sharding rule."""
    msg = str(e)
    if isinstance(e, AssertionError) and "with_sharding_constraint" not in msg:
        return True  # an internal `assert` inside JAX
    return ("is dangerous" in msg or "device_indices_map" in msg or "safe_zip()" in msg
            or "of PartitionSpec" in msg
            or type(e).__name__ in ("KeyError", "IndexError", "AttributeError"))


def compare(case: Case, j: Outcome, s: Outcome) -> None:
    if j.error is None and s.error is None:
        assert s.types == j.types, (
            f"[{case.id}] output types differ:\n  jax:    {j.types}\n  shardc: {s.types}")
        return
    if j.error is None:
        raise AssertionError(f"[{case.id}] JAX accepts ({j.types}) but shardc "
                             f"{s.describe()}") from s.error
    if s.error is None:
        raise AssertionError(f"[{case.id}] JAX rejects ({type(j.error).__name__}: {j.error}) but "
                             f"shardc accepts: {s.types}")
    compare_errors(case, j.error, s.error)


def compare_errors(case: Case, je: BaseException, se: BaseException) -> None:
    assert isinstance(se, sc.ShardcError), (
        f"[{case.id}] shardc raised a non-shardc error {type(se).__name__}: {se}\n"
        f"  (JAX: {type(je).__name__}: {je})")
    if case.quirk or is_quirk(je):
        return
    want = _kind(je)
    assert isinstance(se, want), (
        f"[{case.id}] error kind differs: JAX {type(je).__name__}, shardc {type(se).__name__}\n"
        f"  jax:    {je}\n  shardc: {se}")
    phrase = case.phrase or key_phrase(str(je))
    assert phrase in str(je), f"[{case.id}] the case's phrase {phrase!r} is not in JAX's message: {je}"
    assert phrase in str(se), (
        f"[{case.id}] JAX's key phrase is missing from shardc's message\n  phrase: {phrase!r}\n"
        f"  jax:    {je}\n  shardc: {se}")


def check_types(case: Case) -> None:
    with on_mesh(case.mesh):
        j = trace_jax(case)
        s = trace_sc(case)
    compare(case, j, s)


# --- values and collectives ----------------------------------------------------------------------------------
_HLO_COLLECTIVE = re.compile(
    r"=\s*\S.*?\s(all-reduce|all-gather|reduce-scatter|all-to-all|collective-permute)(-start)?\(")
COLLECTIVE_KINDS = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute")


def hlo_collectives(text: str) -> dict[str, int]:
    counts = {k: 0 for k in COLLECTIVE_KINDS}
    for line in text.splitlines():
        if "-done(" in line:
            continue
        m = _HLO_COLLECTIVE.search(line)
        if m:
            counts[m.group(1)] += 1
    return {k: v for k, v in counts.items() if v}


def sc_collectives(compiled) -> dict[str, int]:
    counts: dict[str, int] = {}
    for c in compiled.collectives():
        k = c.kind.removesuffix("-start")
        counts[k] = counts.get(k, 0) + 1
    return counts


def _jax_logical(x):
    """The logical value of a JAX output (an unreduced one is reduced first)."""
    spec = jax.typeof(x).sharding.spec
    if spec.unreduced:
        x = jax.sharding.reshard(x, jax.P(*spec.partitions, reduced=spec.reduced))
    return np.asarray(x)


def run_jax(case: Case, seed: int, collectives: bool) -> Outcome:
    m, jm = meshes(case.mesh)
    try:
        types = [sc_type(a) for a in case.args]
        args = [jax.device_put(host_data(t, seed + i), JNamedSharding(jm, jax_spec(t)))
                for i, t in enumerate(types)]
        compiled = jax.jit(lambda *xs: case.fn(JAX_NS, *xs)).lower(*args).compile()
        outs = _flat(compiled(*args))
        coll = hlo_collectives(compiled.as_text()) if collectives else None
        return Outcome(types=[str(jax.typeof(o)) for o in outs], outs=[_jax_logical(o) for o in outs],
                       collectives=coll)
    except Exception as e:  # noqa: BLE001
        return Outcome(error=e)


def run_sc(case: Case, seed: int, collectives: bool) -> Outcome:
    try:
        types = [sc_type(a) for a in case.args]
        args = [sc.device_put(host_data(t, seed + i), t.pspec) for i, t in enumerate(types)]
        compiled = sc.jit(lambda *xs: case.fn(SC_NS, *xs)).lower(*args).compile()
        outs = _flat(compiled(*args))
        coll = sc_collectives(compiled) if collectives else None
        return Outcome(types=[str(sc.typeof(o)) for o in outs], outs=[np.asarray(o) for o in outs],
                       collectives=coll)
    except Exception as e:  # noqa: BLE001
        return Outcome(error=e)


def eager_jax(case: Case, seed: int) -> Outcome:
    """The program applied op by op to concrete arrays, outside any `jit`."""
    m, jm = meshes(case.mesh)
    try:
        types = [sc_type(a) for a in case.args]
        args = [jax.device_put(host_data(t, seed + i), JNamedSharding(jm, jax_spec(t)))
                for i, t in enumerate(types)]
        outs = _flat(case.fn(JAX_NS, *args))
        return Outcome(types=[str(jax.typeof(o)) for o in outs], outs=[_jax_logical(o) for o in outs])
    except Exception as e:  # noqa: BLE001
        return Outcome(error=e)


def eager_sc(case: Case, seed: int) -> Outcome:
    try:
        types = [sc_type(a) for a in case.args]
        args = [sc.device_put(host_data(t, seed + i), t.pspec) for i, t in enumerate(types)]
        outs = _flat(case.fn(SC_NS, *args))
        return Outcome(types=[str(sc.typeof(o)) for o in outs], outs=[np.asarray(o) for o in outs])
    except Exception as e:  # noqa: BLE001
        return Outcome(error=e)


def check_eager(case: Case, seed: int = 0) -> None:
    with on_mesh(case.mesh):
        j = eager_jax(case, seed)
        s = eager_sc(case, seed)
    compare(case, j, s)
    if j.error is None:
        assert_values(case, j.outs, s.outs)


def tolerance(dtype: np.dtype) -> dict[str, float]:
    if dtype == ml_dtypes.bfloat16:
        return dict(rtol=2e-2, atol=2e-2)
    if np.issubdtype(dtype, np.floating):
        return dict(rtol=2e-5, atol=2e-5)
    return dict(rtol=0, atol=0)


def assert_values(case: Case, jouts, souts) -> None:
    assert len(jouts) == len(souts)
    for k, (a, b) in enumerate(zip(jouts, souts)):
        assert b.shape == a.shape, f"[{case.id}] output {k}: shape {b.shape} vs JAX {a.shape}"
        assert b.dtype == a.dtype, f"[{case.id}] output {k}: dtype {b.dtype} vs JAX {a.dtype}"
        tol = tolerance(a.dtype)
        np.testing.assert_allclose(b.astype(np.float64) if a.dtype != np.bool_ else b,
                                   a.astype(np.float64) if a.dtype != np.bool_ else a,
                                   err_msg=f"[{case.id}] output {k} values differ", **tol)


def check_values(case: Case, seed: int = 0, collectives: bool = True) -> None:
    with on_mesh(case.mesh):
        j = run_jax(case, seed, collectives)
        s = run_sc(case, seed, collectives)
    compare(case, j, s)
    if j.error is not None:
        return
    assert_values(case, j.outs, s.outs)
    if collectives:
        assert s.collectives == j.collectives, (
            f"[{case.id}] collectives differ:\n  jax:    {j.collectives}\n  shardc: {s.collectives}")
