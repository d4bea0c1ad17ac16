"""Differential harness for manual mode: run one `shard_map` program in JAX
(the oracle) and in shardc and compare what each says about it.

A `Case` is a shard_map body written once against a namespace `ns`
(`JAX` gives `jax.lax` collectives / `jax.numpy`, `SC` gives shardc), the
mesh, the global argument types (shardc type strings such as
``"f32[8@X,4@Y]{U:X}"``), `in_specs` / `out_specs` / `axis_names` /
`check_vma`, and optional `pre` / `post` steps run inside the same jit around
the shard_map. `compare(case)` traces it on both sides and checks

* accept/reject (the error's builtin class and a phrase both messages contain);
* `str(typeof)` of every body input and output and of every value the body
  logs with `ns.log(x)`, in order;
* `str(typeof)` of every program output;

and with `run=True` also compiles and runs both, comparing values
(np.testing) and the kinds/counts of collectives in the partitioned HLO.
"""
from __future__ import annotations

import functools
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, NamedSharding as JNamedSharding

import shardc as sc

# --- meshes ---------------------------------------------------------------------------------------
MESHES: dict[str, tuple[tuple[int, ...], tuple[str, ...], bool]] = {
    "1d": ((8,), ("i",), False),
    "2d": ((2, 4), ("X", "Y"), False),
    "3d": ((2, 2, 2), ("X", "Y", "Z"), False),
    # the same 2×4 mesh over the devices in reverse order (a non-iota device assignment)
    "2d_rev": ((2, 4), ("X", "Y"), True),
    # the seeds' small meshes
    "i2": ((2,), ("i",), False),
    "tp": ((2,), ("tp",), False),
    "ij": ((2, 2), ("i", "j"), False),
}
#: meshes whose axes are Auto (default: Explicit)
AUTO_MESHES = {"tp_auto": ((2,), ("tp",), False), "2d_auto": ((2, 4), ("X", "Y"), False)}


@functools.cache
def meshes(name: str):
    """(shardc mesh, JAX mesh) over the same devices (Explicit axes unless the mesh is Auto)."""
    auto = name in AUTO_MESHES
    shape, names, rev = AUTO_MESHES[name] if auto else MESHES[name]
    devs = jax.devices()[: math.prod(shape)]
    if rev:
        devs = devs[::-1]
    kind = AxisType.Auto if auto else AxisType.Explicit
    m = sc.make_mesh(shape, names, (sc.AxisType.Auto if auto else sc.AxisType.Explicit,) * len(names),
                     devices=devs)
    jm = jax.make_mesh(shape, names, axis_types=(kind,) * len(names), devices=devs)
    assert [d.id for d in m.devices.flat] == [d.id for d in jm.devices.flat]
    return m, jm


# --- specs and types --------------------------------------------------------------------------------
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
    """A spec tree (S, tuple/list of S, None) as the namespace's P objects."""
    if specs is None:
        return None
    if isinstance(specs, S):
        return specs.to(P)
    if isinstance(specs, dict):
        return {k: specs_to(v, P) for k, v in specs.items()}
    return type(specs)(specs_to(s, P) for s in specs)


_DT = {"f32": np.float32, "i32": np.int32, "bf16": None, "f16": np.float16, "bool": np.bool_}
_TYPE_RE = re.compile(r"^(?P<dt>[a-z0-9]+)\[(?P<dims>[^\]]*)\](?:\{(?P<attrs>[^}]*)\})?$")


@dataclass(frozen=True)
class ArgType:
    dtype: np.dtype
    shape: tuple[int, ...]
    spec: tuple
    u: frozenset
    r: frozenset
    text: str


def _axes(s: str) -> tuple[str, ...]:
    s = s.strip()
    return tuple(a.strip() for a in s[1:-1].split(",")) if s.startswith("(") else (s,)


def parse_arg(text: str) -> ArgType:
    """`f32[8@X,4@(X,Y)]{U:Z, R:X}` → dtype, shape, spec, unreduced, reduced."""
    m = _TYPE_RE.match(text.replace(" ", ""))
    assert m, text
    shape, spec = [], []
    for d in filter(None, re.split(r",(?![^()]*\))", m.group("dims"))):
        size, _, ax = d.partition("@")
        shape.append(int(size))
        spec.append(None if not ax else (lambda a: a[0] if len(a) == 1 else a)(_axes(ax)))
    u, r = frozenset(), frozenset()
    for attr in filter(None, re.split(r",(?![^()]*\))", m.group("attrs") or "")):
        tag, _, ax = attr.partition(":")
        if tag == "U":
            u = frozenset(_axes(ax))
        elif tag == "R":
            r = frozenset(_axes(ax))
        else:
            raise AssertionError(text)
    return ArgType(np.dtype(_DT[m.group("dt")]), tuple(shape), tuple(spec), u, r, text)


def data_for(t: ArgType, k: int = 0) -> np.ndarray:
    """Deterministic, non-symmetric data (exact in float32 sums)."""
    n = math.prod(t.shape)
    base = (np.arange(n) * 7 + 3 * k) % 23 - 11
    if t.dtype == np.float32:
        return (base / 4).astype(np.float32).reshape(t.shape)
    return base.astype(t.dtype).reshape(t.shape)


# --- the two namespaces -------------------------------------------------------------------------------
class _NS:
    """Common: `ns.log(x)` records `str(typeof(x))` in the current log."""

    log_list: list | None = None

    def log(self, x):
        self.log_list.append(self.tstr(x))
        return x


class _JaxNS(_NS):
    name = "jax"
    P = jax.P
    lax = jax.lax
    jit = staticmethod(jax.jit)
    shard_map = staticmethod(jax.shard_map)
    reshard = staticmethod(jax.sharding.reshard)

    @staticmethod
    def tstr(x) -> str:
        return str(jax.typeof(x))

    def __getattr__(self, name: str):
        for mod in (jnp, jax.lax, jax.nn):
            if hasattr(mod, name):
                return getattr(mod, name)
        raise AttributeError(name)

    @staticmethod
    def einsum(spec, *xs, out_sharding=None):
        return jnp.einsum(spec, *xs, out_sharding=out_sharding)


class _ScNS(_NS):
    name = "shardc"
    P = sc.P
    jit = staticmethod(sc.jit)
    shard_map = staticmethod(sc.shard_map)
    reshard = staticmethod(sc.reshard)

    @staticmethod
    def tstr(x) -> str:
        return str(sc.typeof(x))

    def __getattr__(self, name: str):
        return getattr(sc, name)


JAX = _JaxNS()
SC = _ScNS()


# --- cases ---------------------------------------------------------------------------------------------
@dataclass
class Case:
    """One shard_map program (see the module docstring)."""

    id: str
    mesh: str
    args: tuple[str, ...]
    body: Callable[..., Any]              # body(ns, *local_values) -> outputs
    out_specs: Any                        # S or tuple of S
    in_specs: Any = None                  # None: inferred from the arguments
    axis_names: frozenset | None = None   # None: all mesh axes manual
    check_vma: bool = True
    pre: Callable[..., Any] | None = None   # pre(ns, *args) -> args, inside the jit
    post: Callable[..., Any] | None = None  # post(ns, *outs) -> outs, inside the jit
    #: when JAX rejects: (builtin exception class or "ShardingTypeError", a phrase both messages contain)
    error: tuple[type, str] | None = None
    #: JAX rejects this for an implementation gap (an internal assertion, say): shardc
    #: must still reject it, with `error`'s class and phrase
    quirk: bool = False
    run: bool = False
    #: arguments passed as NumPy arrays (not placed on the mesh)
    numpy_args: bool = False
    eager: bool = False                   # call the shard_map outside any jit (run only)
    tags: tuple[str, ...] = field(default_factory=tuple)

    def __repr__(self) -> str:
        return self.id


def param(cases):
    import pytest
    cases = list(cases)
    ids = [c.id for c in cases]
    dup = {i for i in ids if ids.count(i) > 1}
    assert not dup, f"duplicate case ids: {sorted(dup)[:5]}"
    return pytest.mark.parametrize("case", cases, ids=ids)


@dataclass
class Outcome:
    error: BaseException | None = None
    body_log: list[str] = field(default_factory=list)
    out_types: list[str] = field(default_factory=list)
    values: list[np.ndarray] | None = None
    collectives: Counter | None = None


def _leaves(tree) -> list:
    return jax.tree_util.tree_leaves(tree, is_leaf=lambda x: x is None)


def _program(ns: _NS, case: Case, log: list):
    def body(*xs):
        for x in _leaves(xs):
            log.append(ns.tstr(x))
        ns.log_list = log
        out = case.body(ns, *xs)
        for o in _leaves(out):
            log.append(ns.tstr(o))
        return out

    body.__name__ = case.body.__name__ if hasattr(case.body, "__name__") else "body"
    kw: dict[str, Any] = dict(out_specs=specs_to(case.out_specs, ns.P), check_vma=case.check_vma)
    if case.in_specs is not None:
        kw["in_specs"] = specs_to(case.in_specs, ns.P)
    if case.axis_names is not None:
        kw["axis_names"] = set(case.axis_names)
    smapped = ns.shard_map(body, **kw)

    def prog(*args):
        if case.pre is not None:
            args = case.pre(ns, *args)
        outs = smapped(*args)
        if case.post is not None:
            outs = case.post(ns, *(outs if isinstance(outs, (tuple, list)) else (outs,)))
        return outs

    return prog


def _abstract_args(ns: _NS, case: Case):
    m, jm = meshes(case.mesh)
    types = [parse_arg(a) for a in case.args]
    if ns is SC:
        return [t.text for t in types]
    out = []
    for t in types:
        spec = jax.P(*t.spec, unreduced=set(t.u), reduced=set(t.r)) if (t.u or t.r) else jax.P(*t.spec)
        out.append(jax.ShapeDtypeStruct(t.shape, t.dtype, sharding=JNamedSharding(jm, spec)))
    return out


def _concrete_args(ns: _NS, case: Case):
    m, jm = meshes(case.mesh)
    types = [parse_arg(a) for a in case.args]
    out = []
    for k, t in enumerate(types):
        assert not t.u, "unreduced arguments cannot be placed; build them in `pre`"
        x = data_for(t, k)
        if case.numpy_args:
            out.append(x)
        elif ns is SC:
            out.append(sc.device_put(x, S(*t.spec, r=t.r).to(sc.P)))
        else:
            out.append(jax.device_put(x, JNamedSharding(jm, S(*t.spec, r=t.r).to(jax.P))))
    return out


_KINDS = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute")
_HLO_OP = re.compile(r"\s(" + "|".join(_KINDS) + r")(?:-start)?\(")


def jax_collectives(hlo: str) -> Counter:
    """Kinds of collectives in JAX's partitioned HLO (async pairs counted once)."""
    return Counter(m.group(1) for line in hlo.splitlines() for m in [_HLO_OP.search(line)] if m)


def run_side(ns: _NS, case: Case, *, run: bool) -> Outcome:
    m, jm = meshes(case.mesh)
    log: list[str] = []
    res = Outcome(body_log=log)
    prog = _program(ns, case, log)
    ctx = sc.set_mesh(m) if ns is SC else jax.set_mesh(jm)
    try:
        with ctx:
            if not run:
                if ns is SC:
                    outs = ns.jit(prog).trace(*_abstract_args(ns, case)).program.out_types
                else:
                    outs = ns.jit(prog).trace(*_abstract_args(ns, case)).jaxpr.out_avals
                res.out_types = [str(t) for t in outs]
                return res
            args = _concrete_args(ns, case)
            if case.eager:
                outs = prog(*args)
            else:
                jitted = ns.jit(prog)
                compiled = jitted.lower(*args).compile()
                if ns is SC:
                    res.collectives = Counter(c.kind for c in compiled.collectives())
                else:
                    res.collectives = jax_collectives(compiled.as_text())
                outs = compiled(*args)
            outs = _leaves(outs)
            res.out_types = [ns.tstr(o) for o in outs]
            res.values = [np.asarray(o) for o in outs]
    except Exception as e:  # noqa: BLE001 - the error itself is compared
        res.error = e
    return res


_BUILTINS = (NameError, NotImplementedError, TypeError, ValueError)


def _kind(e: BaseException):
    """The error's class as compared: JAX's and shardc's `ShardingTypeError`
    (which in JAX is not a TypeError) are "ShardingTypeError"; others by builtin base."""
    if type(e).__name__ == "ShardingTypeError":
        return "ShardingTypeError"
    for k in _BUILTINS:
        if isinstance(e, k):
            return k
    return type(e)


def compare(case: Case, *, run: bool | None = None) -> tuple[Outcome, Outcome]:
    """Run `case` on both sides and assert they agree; returns (jax, shardc)."""
    run = case.run if run is None else run
    j = run_side(JAX, case, run=run)
    s = run_side(SC, case, run=run)
    if case.quirk:
        assert j.error is not None, f"{case.id} is marked a JAX quirk but JAX accepts it"
        kind, phrase = case.error
        assert isinstance(s.error, sc.ShardcError), f"shardc: {s.error!r}"
        assert _kind(s.error) == kind and phrase in str(s.error), f"shardc: {s.error!r}"
        return j, s
    if j.error is not None:
        assert case.error is not None, f"JAX rejects {case.id} but the case expects success: {j.error!r}"
        kind, phrase = case.error
        assert _kind(j.error) == kind, f"JAX raised {type(j.error).__name__}, the case says {kind}: {j.error}"
        assert phrase in str(j.error), f"phrase {phrase!r} not in JAX's message:\n{j.error}"
        assert s.error is not None, (f"JAX rejects {case.id} ({j.error}) but shardc accepts it; "
                                     f"shardc out types {s.out_types}")
        assert isinstance(s.error, sc.ShardcError), f"shardc raised a non-shardc error: {s.error!r}"
        assert _kind(s.error) == kind, (f"shardc raised {type(s.error).__name__} "
                                        f"({s.error}), JAX {kind}")
        assert phrase in str(s.error), f"phrase {phrase!r} not in shardc's message:\n{s.error}"
        return j, s
    assert case.error is None, f"the case expects an error ({case.error}) but JAX accepts {case.id}"
    if s.error is not None:
        raise AssertionError(f"JAX accepts {case.id} but shardc rejects it: {s.error}") from s.error
    assert s.body_log == j.body_log, f"body types differ\n  jax:    {j.body_log}\n  shardc: {s.body_log}"
    assert s.out_types == j.out_types, f"output types differ\n  jax:    {j.out_types}\n  shardc: {s.out_types}"
    if run:
        assert len(s.values) == len(j.values)
        for a, b in zip(s.values, j.values):
            assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, a.dtype, b.shape, b.dtype)
            if np.issubdtype(a.dtype, np.floating):
                np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
            else:
                np.testing.assert_array_equal(a, b)
        if not case.eager:
            assert s.collectives == j.collectives, (
                f"collectives differ\n  jax:    {dict(j.collectives)}\n  shardc: {dict(s.collectives)}")
    return j, s
