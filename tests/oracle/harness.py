"""Running a `Case` in JAX (the oracle) and in shardc, and comparing.

`check(case, mode)` runs the program on both sides and asserts that

* both accept or both reject it; on rejection shardc raises a `ShardcError` of
  JAX's error class (`error_kind`) whose message contains the case's phrase
  or, by default, the rule-naming start of JAX's message (`key_phrase`);
* `str(typeof)` of every output agrees, and so does the log of types the
  program recorded with `ns.note` (body inputs/outputs of a `smap` body,
  values inside auto/explicit regions) — on rejection too, up to the error;
* when run ("jit"/"eager"): values agree (np.testing, tolerance by dtype) and
  so do the concrete output shardings (mesh axes and spec);
* when compiled ("jit"): the collectives in the partitioned HLO agree by kind
  (or shardc has at most JAX's), and shardc's `Compiled.collectives()` report
  matches its own HLO; with `case.sdy` also the sdy annotations;
* "lower": lowering from the argument types, the sdy annotations agree.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Any

import jax
import ml_dtypes
import numpy as np
from jax.sharding import NamedSharding as JNamedSharding

import shardc as sc

from .cases import WHOLE_MESSAGE, Case
from .hlo import hlo_collectives, reported_collectives, sdy_constructs
from .meshes import mesh_pair
from .namespaces import _NS, JAX, SC
from .types import DTYPES, Placed, arg_data, parse_type, type_str


@dataclass
class Outcome:
    side: str
    error: BaseException | None = None
    types: list[str] | None = None
    log: list[str] = field(default_factory=list)
    values: list[np.ndarray] | None = None
    shardings: list | None = None
    collectives: dict[str, int] | None = None
    #: shardc only: what `Compiled.collectives()` reports
    reported: dict[str, int] | None = None
    sdy: dict | None = None

    def describe(self) -> str:
        if self.error is not None:
            return f"raised {type(self.error).__name__}: {self.error}"
        return f"returned {self.types}"


# --- arguments ----------------------------------------------------------------------------------
_SHORT = {np.dtype(v): k for k, v in reversed(list(DTYPES.items()))}


def _placed_jax(p: Placed, jm, seed: int):
    return jax.device_put(arg_data(p, seed), JNamedSharding(jm, p.jax_pspec()))


def _placed_type(p: Placed, jm) -> tuple[Any, str]:
    """A placed argument's type as JAX gives it: (ShapeDtypeStruct, type string)."""
    t = jax.typeof(_placed_jax(p, jm, 0))
    spec = t.sharding.spec
    struct = jax.ShapeDtypeStruct(t.shape, t.dtype, sharding=JNamedSharding(jm, spec))
    text = type_str(_SHORT[np.dtype(t.dtype)], t.shape, tuple(spec), sorted(spec.unreduced), sorted(spec.reduced))
    return struct, text


def abstract_args(ns: _NS, case: Case) -> list:
    _, jm = mesh_pair(case.mesh)
    out = []
    for a in case.args:
        if isinstance(a, Placed):
            struct, text = _placed_type(a, jm)
            out.append(struct if ns is JAX else text)
        else:
            out.append(parse_type(a).jax_struct(jm) if ns is JAX else a)
    return out


def concrete_args(ns: _NS, case: Case) -> list:
    _, jm = mesh_pair(case.mesh)
    out = []
    for k, a in enumerate(case.args):
        x = arg_data(a, case.seed + k)
        if case.numpy_args:
            out.append(x)
            continue
        spec = a if isinstance(a, Placed) else parse_type(a)
        if ns is JAX:
            out.append(jax.device_put(x, JNamedSharding(jm, spec.jax_pspec())))
        else:
            out.append(sc.device_put(x, spec.sc_pspec()))
    return out


# --- running one side ---------------------------------------------------------------------------
def _leaves(tree) -> list:
    return jax.tree_util.tree_leaves(tree, is_leaf=lambda x: isinstance(x, sc.Array))


def _norm_spec(spec) -> tuple:
    """A spec as axis tuples per dim (trailing Nones stripped), then its sorted unreduced and reduced axes."""
    ents = [() if e is None else ((e,) if isinstance(e, str) else tuple(e))
            for e in tuple(getattr(spec, "partitions", spec))]
    while ents and ents[-1] == ():
        ents.pop()
    return (tuple(ents), tuple(sorted(getattr(spec, "unreduced", ()))),
            tuple(sorted(getattr(spec, "reduced", ()))))


def concrete_sharding(x) -> tuple | None:
    """An output's concrete sharding: its mesh's axis names and its spec (`_norm_spec`)."""
    s = getattr(x, "sharding", None)
    if s is None or not hasattr(s, "spec"):
        return None
    return tuple(s.mesh.axis_names), _norm_spec(s.spec)


def _logical(ns: _NS, x) -> np.ndarray:
    """The logical value of an output (a JAX unreduced one is reduced first)."""
    if ns is JAX and hasattr(x, "sharding"):
        spec = jax.typeof(x).sharding.spec
        if spec.unreduced:
            x = jax.sharding.reshard(x, jax.P(*spec.partitions, reduced=spec.reduced))
    return np.asarray(x)


def run_side(ns: _NS, case: Case, mode: str) -> Outcome:
    m, jm = mesh_pair(case.mesh)
    out = Outcome(ns.name)
    prog = lambda *xs: case.fn(ns, *xs)
    ns._notes = out.log
    try:
        with (jax.set_mesh(jm) if ns is JAX else sc.set_mesh(m)):
            if mode in ("trace", "lower"):
                args = abstract_args(ns, case)
                if mode == "lower":
                    out.sdy = sdy_constructs(ns.jit(prog).lower(*args).as_text())
                    return out
                traced = ns.jit(prog).trace(*args)
                types = traced.jaxpr.out_avals if ns is JAX else _leaves(traced.out_types)
                out.types = [str(t) for t in types]
                return out
            args = concrete_args(ns, case)
            if mode == "eager":
                outs = prog(*args)
            else:
                lowered = ns.jit(prog).lower(*args)
                compiled = lowered.compile()
                if case.collectives:
                    out.collectives = hlo_collectives(compiled.as_text())
                    if ns is SC:
                        out.reported = reported_collectives(compiled)
                if case.sdy:
                    out.sdy = sdy_constructs(lowered.as_text())
                outs = compiled(*args)
            outs = _leaves(outs)
            out.types = [ns.tstr(o) for o in outs]
            out.shardings = [concrete_sharding(o) for o in outs]
            out.values = [_logical(ns, o) for o in outs]
    except Exception as e:  # noqa: BLE001 - the verdict itself is compared
        out.error = e
    finally:
        ns._notes = None
    return out


def run_jax(case: Case, mode: str = "trace") -> Outcome:
    return run_side(JAX, case, mode)


def run_sc(case: Case, mode: str = "trace") -> Outcome:
    return run_side(SC, case, mode)


# --- comparing errors ---------------------------------------------------------------------------
#: where the detail part of a JAX message starts (mesh reprs, API names, set orders)
_CUT = re.compile(r"(\bGot\b|, got \[|got `which`|\bPlease\b|NamedSharding\(|AbstractMesh\(|\bjax\.|"
                  r"`jax|frozenset\(|Reshard the input|This error occurs|\bnot found in mesh)")


def key_phrase(msg: str) -> str:
    """The rule-naming part of a JAX error message (before any detail)."""
    first = msg.strip().splitlines()[0] if msg.strip() else ""
    m = _CUT.search(first)
    key = first[:m.start()] if m else first
    return key.rstrip(" ,.:;(")


_KINDS = (NameError, NotImplementedError, AssertionError, TypeError, ValueError)


def error_kind(e: BaseException):
    """The class an error is compared by: "ShardingTypeError" (JAX's is not a
    TypeError; shardc's is `sc.ShardingTypeError`), else the first builtin of
    NameError, NotImplementedError, AssertionError, TypeError, ValueError it
    derives from; None for anything else (not compared)."""
    if type(e).__name__ == "ShardingTypeError":
        return "ShardingTypeError"
    return next((k for k in _KINDS if isinstance(e, k)), None)


def _is_kind(e: BaseException, kind) -> bool:
    if kind is None:
        return True
    if kind == "ShardingTypeError":
        return isinstance(e, sc.ShardingTypeError) or type(e).__name__ == "ShardingTypeError"
    return isinstance(e, kind)


def is_quirk(e: BaseException) -> bool:
    """JAX failing for an implementation gap rather than a sharding rule."""
    msg = str(e)
    if isinstance(e, AssertionError) and "with_sharding_constraint" not in msg:
        return True  # an internal `assert` inside JAX
    return ("is dangerous" in msg or "device_indices_map" in msg or "safe_zip()" in msg
            or "of PartitionSpec" in msg
            or type(e).__name__ in ("KeyError", "IndexError", "AttributeError"))


def _kname(kind) -> str:
    return kind if isinstance(kind, str) else getattr(kind, "__name__", str(kind))


def compare_errors(case: Case, je: BaseException, se: BaseException, where: str) -> None:
    assert isinstance(se, sc.ShardcError), (
        f"{where} shardc raised a non-shardc error {type(se).__name__}: {se}\n"
        f"  (JAX: {type(je).__name__}: {je})")
    phrase = str(je) if case.phrase == WHOLE_MESSAGE else case.phrase
    if case.quirk or is_quirk(je):
        # JAX's verdict stands, its message does not: only the case's own claims bind shardc
        assert _is_kind(se, case.kind), f"{where} shardc raised {type(se).__name__}, the case says " \
                                        f"{_kname(case.kind)}: {se}"
        if phrase and case.phrase != WHOLE_MESSAGE:
            assert phrase in str(se), f"{where} phrase {phrase!r} not in shardc's message:\n{se}"
        return
    kind = error_kind(je)
    assert _is_kind(se, kind), (
        f"{where} error kind differs: JAX {type(je).__name__}, shardc {type(se).__name__}\n"
        f"  jax:    {je}\n  shardc: {se}")
    phrase = phrase if phrase is not None else key_phrase(str(je))
    assert phrase in str(je), f"{where} the case's phrase {phrase!r} is not in JAX's message: {je}"
    assert phrase in str(se), (
        f"{where} JAX's key phrase is missing from shardc's message\n  phrase: {phrase!r}\n"
        f"  jax:    {je}\n  shardc: {se}")


# --- comparing values ----------------------------------------------------------------------------
def tolerance(dtype: np.dtype) -> dict[str, float]:
    if dtype == ml_dtypes.bfloat16:
        return dict(rtol=2e-2, atol=2e-2)
    if np.issubdtype(dtype, np.inexact):
        return dict(rtol=2e-5, atol=2e-5)
    return dict(rtol=0, atol=0)


def assert_values(case: Case, jouts, souts, where: str = "") -> None:
    where = where or f"[{case.id}]"
    assert len(jouts) == len(souts), f"{where} {len(souts)} outputs, JAX {len(jouts)}"
    for k, (a, b) in enumerate(zip(jouts, souts)):
        assert b.shape == a.shape, f"{where} output {k}: shape {b.shape} vs JAX {a.shape}"
        assert b.dtype == a.dtype, f"{where} output {k}: dtype {b.dtype} vs JAX {a.dtype}"
        tol = tolerance(a.dtype)
        if case.tol is not None and np.issubdtype(a.dtype, np.inexact):
            tol = dict(rtol=case.tol[0], atol=case.tol[1])
        if a.dtype == np.bool_:
            np.testing.assert_array_equal(b, a, err_msg=f"{where} output {k} values differ")
        else:
            wide = np.complex128 if np.issubdtype(a.dtype, np.complexfloating) else np.float64
            np.testing.assert_allclose(b.astype(wide), a.astype(wide),
                                       err_msg=f"{where} output {k} values differ", **tol)


# --- comparing outcomes ---------------------------------------------------------------------------
def compare(case: Case, j: Outcome, s: Outcome, mode: str = "trace") -> None:
    """Assert that shardc's outcome `s` agrees with JAX's `j` (see the module docstring)."""
    where = f"[{case.id}{'' if mode == 'trace' else ' ' + mode}]"
    # the case's claims about the reference
    if case.expect == "accept":
        assert j.error is None, f"{where} the case expects JAX to accept it, JAX raised " \
                                f"{type(j.error).__name__}: {j.error}"
    if case.expect == "reject" or case.quirk:
        assert j.error is not None, f"{where} the case expects JAX to reject it, JAX accepts: {j.types}"
    if j.error is not None and not case.quirk:
        if case.kind is not None:
            assert _is_kind(j.error, case.kind), \
                f"{where} JAX raised {type(j.error).__name__}, the case says {_kname(case.kind)}: {j.error}"
        if case.phrase not in (None, WHOLE_MESSAGE):
            assert case.phrase in str(j.error), f"{where} phrase {case.phrase!r} not in JAX's message:\n{j.error}"
    # the verdicts
    if j.error is None and s.error is not None:
        raise AssertionError(f"{where} JAX accepts ({j.types}) but shardc {s.describe()}") from s.error
    if j.error is not None and s.error is None:
        raise AssertionError(f"{where} JAX rejects ({type(j.error).__name__}: {j.error}) but shardc "
                             f"accepts: {s.types}")
    if j.error is not None:
        compare_errors(case, j.error, s.error, where)
        assert s.log == j.log, f"{where} types seen before the error differ:\n  jax:    {j.log}\n" \
                               f"  shardc: {s.log}"
        return
    assert s.types == j.types, f"{where} output types differ:\n  jax:    {j.types}\n  shardc: {s.types}"
    assert s.log == j.log, f"{where} types inside the program differ:\n  jax:    {j.log}\n  shardc: {s.log}"
    if j.values is not None:
        assert_values(case, j.values, s.values, where)
        assert s.shardings == j.shardings, \
            f"{where} concrete output shardings differ:\n  jax:    {j.shardings}\n  shardc: {s.shardings}"
    if j.collectives is not None:
        assert s.reported == s.collectives, f"{where} shardc's Compiled.collectives() ({s.reported}) is not " \
                                            f"what its HLO holds ({s.collectives})"
        if case.collectives == "equal":
            assert s.collectives == j.collectives, \
                f"{where} collectives differ:\n  jax:    {j.collectives}\n  shardc: {s.collectives}"
        else:
            more = {k: (n, j.collectives.get(k, 0)) for k, n in s.collectives.items()
                    if n > j.collectives.get(k, 0)}
            assert not more, f"{where} shardc has more collectives than JAX (shardc, JAX): {more}\n" \
                             f"  jax:    {j.collectives}\n  shardc: {s.collectives}"
    if j.sdy is not None:
        for k in ("args", "results", "constraints"):
            assert s.sdy[k] == j.sdy[k], f"{where} sdy {k} differ:\n  jax:    {j.sdy[k]}\n  shardc: {s.sdy[k]}"


def check(case: Case, mode: str | None = None, **changes) -> tuple[Outcome, Outcome]:
    """Run `case` on both sides in `mode` (default `case.mode`) and compare; returns (jax, shardc)."""
    if changes:
        case = dataclasses.replace(case, **changes)
    mode = mode or case.mode
    j = run_side(JAX, case, mode)
    s = run_side(SC, case, mode)
    compare(case, j, s, mode)
    return j, s


def check_types(case: Case) -> tuple[Outcome, Outcome]:
    return check(case, "trace")


def check_values(case: Case) -> tuple[Outcome, Outcome]:
    return check(case, "jit")


def check_eager(case: Case) -> tuple[Outcome, Outcome]:
    return check(case, "eager")
