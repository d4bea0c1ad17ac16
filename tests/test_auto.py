"""Differential tests for Auto and mixed meshes against JAX 0.10.2 (the oracle).

Every program is written once against a namespace `ns` (JAX or shardc) and run
on the same devices in both, on (2,4) and (2,2,2) meshes whose axes are all
Auto, mixed (Explicit X with Auto others, and the reverse) or all Explicit.
Each run compares accept/reject (error kind and a key phrase), `str(typeof)`
of every output and of the values seen inside `auto_axes` / `explicit_axes` /
`use_abstract_mesh` regions, the values, the concrete output shardings XLA
chose (`.sharding.spec`, trailing Nones stripped) and the collectives of the
partitioned HLO by kind. JAX rules §1.2, §2.14, §2.15; seed 000 (auto_axes,
Auto sharding mode, concrete shardings mentioning Auto axes).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import AxisType as JAxisType, NamedSharding as JNamedSharding

import shardc as sc

# --- meshes ---------------------------------------------------------------------------------------
SHAPES = {"2d": ((2, 4), ("X", "Y")), "3d": ((2, 2, 2), ("X", "Y", "Z")),
          "4x2": ((4, 2), ("X", "Y"))}   # the mesh of the reference emissions
#: axis-type patterns: the first letter is X's type, the second the others'
KINDS = {"AA": "all Auto", "EA": "Explicit X, Auto others", "AE": "Auto X, Explicit others",
         "EE": "all Explicit"}
MESH_IDS = [f"{s}-{k}" for s in ("2d", "3d") for k in KINDS]

_MESHES: dict[str, tuple[Any, Any]] = {}


def axis_types(mesh_id: str, lib) -> tuple:
    shape, kind = mesh_id.split("-")
    n = len(SHAPES[shape][0])
    t = lambda c: lib.Auto if c == "A" else lib.Explicit
    return (t(kind[0]),) + (t(kind[1]),) * (n - 1)


def meshes(mesh_id: str):
    """(shardc mesh, JAX mesh) over the same devices with the same axis types."""
    if mesh_id not in _MESHES:
        shape, names = SHAPES[mesh_id.split("-")[0]]
        m = sc.make_mesh(shape, names, axis_types=axis_types(mesh_id, sc.AxisType))
        jm = jax.make_mesh(shape, names, axis_types=axis_types(mesh_id, JAxisType),
                           devices=list(m.devices.flat))
        _MESHES[mesh_id] = (m, jm)
    return _MESHES[mesh_id]


# --- the two namespaces ---------------------------------------------------------------------------
class JaxNS:
    name = "jax"
    P = jax.P
    AxisType = JAxisType
    AbstractMesh = jax.sharding.AbstractMesh
    typeof = staticmethod(jax.typeof)
    reshard = staticmethod(jax.sharding.reshard)
    auto_axes = staticmethod(jax.sharding.auto_axes)
    explicit_axes = staticmethod(jax.sharding.explicit_axes)
    use_abstract_mesh = staticmethod(jax.sharding.use_abstract_mesh)
    with_sharding_constraint = staticmethod(jax.lax.with_sharding_constraint)
    shard_map = staticmethod(jax.shard_map)
    psum = staticmethod(jax.lax.psum)

    def __getattr__(self, name):
        for mod in (jnp, jax.nn, jax.lax):
            if hasattr(mod, name):
                return getattr(mod, name)
        raise AttributeError(name)


class ScNS:
    name = "shardc"
    P = sc.P

    def __getattr__(self, name):
        return getattr(sc, name)


JNS, SNS = JaxNS(), ScNS()


# --- cases ----------------------------------------------------------------------------------------
@dataclass
class Prog:
    """`fn(ns, log, *args)`; `args` are (shape, concrete spec) pairs (specs may
    name Auto axes: the arrays' placement); `log` collects `str(typeof)` seen
    inside regions. `phrase` maps a mesh kind to a phrase both errors contain."""

    id: str
    fn: Callable
    args: tuple
    phrase: dict | None = None
    meshes: tuple = tuple(MESH_IDS)
    eager: bool = False


def _param(prog: Prog, mesh_id: str, *rest):
    return pytest.param(prog, mesh_id, *rest,
                        id=f"{prog.id}-{mesh_id}" + ("-eager" if rest and rest[0] else ""))


def _data(shape, seed):
    return np.random.default_rng(seed).uniform(-1, 1, size=shape).astype(np.float32)


def _log(ns, log, tag, v):
    log.append(f"{tag}:{ns.typeof(v)}")
    return v


def norm_spec(spec) -> tuple:
    """A concrete spec as a tuple of axis tuples, trailing Nones stripped."""
    ents = []
    for e in tuple(spec):
        ents.append(() if e is None else ((e,) if isinstance(e, str) else tuple(e)))
    while ents and ents[-1] == ():
        ents.pop()
    return tuple(ents)


def concrete(a) -> tuple:
    """An output's concrete sharding: its mesh's axis names and its spec."""
    return tuple(a.sharding.mesh.axis_names), norm_spec(a.sharding.spec)


_COLL = re.compile(r"\s(all-reduce|all-gather|reduce-scatter|all-to-all|collective-permute)(-start)?\(")


def collectives(hlo: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for line in hlo.splitlines():
        m = _COLL.search(line)
        if m and "=" in line.split(m.group(1))[0]:
            out[m.group(1)] = out.get(m.group(1), 0) + 1
    return out


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


@dataclass
class Outcome:
    error: BaseException | None = None
    types: list | None = None
    log: list | None = None
    values: list | None = None
    specs: list | None = None
    coll: dict | None = None
    sdy: dict | None = None


def run_jax(prog: Prog, mesh_id: str, eager: bool) -> Outcome:
    _, jm = meshes(mesh_id)
    log: list = []
    with jax.set_mesh(jm):
        args = [jax.device_put(_data(s, i), JNamedSharding(jm, jax.P(*sp)))
                for i, (s, sp) in enumerate(prog.args)]
        try:
            if eager:
                outs, coll, text = prog.fn(JNS, log, *args), None, None
            else:
                lowered = jax.jit(lambda *xs: prog.fn(JNS, log, *xs)).lower(*args)
                compiled = lowered.compile()
                outs, coll, text = compiled(*args), collectives(compiled.as_text()), lowered.as_text()
        except Exception as e:  # noqa: BLE001 - the oracle's verdict
            return Outcome(error=e, log=log)
        outs = jax.tree_util.tree_leaves(outs)
        return Outcome(types=[str(jax.typeof(o)) for o in outs], log=log,
                       values=[np.asarray(o) for o in outs],
                       specs=[concrete(o) for o in outs], coll=coll,
                       sdy=sdy_constructs(text) if text else None)


def run_sc(prog: Prog, mesh_id: str, eager: bool) -> Outcome:
    m, _ = meshes(mesh_id)
    log: list = []
    with sc.set_mesh(m):
        args = [sc.device_put(_data(s, i), sc.P(*sp)) for i, (s, sp) in enumerate(prog.args)]
        try:
            if eager:
                outs, coll, text = prog.fn(SNS, log, *args), None, None
            else:
                lowered = sc.jit(lambda *xs: prog.fn(SNS, log, *xs)).lower(*args)
                compiled = lowered.compile()
                outs, coll, text = compiled(*args), collectives(compiled.as_text()), lowered.as_text()
        except Exception as e:  # noqa: BLE001
            return Outcome(error=e, log=log)
        outs = jax.tree_util.tree_leaves(outs, is_leaf=lambda a: isinstance(a, sc.Array))
        return Outcome(types=[str(sc.typeof(o)) for o in outs], log=log,
                       values=[np.asarray(o) for o in outs],
                       specs=[concrete(o) for o in outs], coll=coll,
                       sdy=sdy_constructs(text) if text else None)


def _err_ok(je: BaseException, se: BaseException) -> bool:
    if type(je).__name__ == "ShardingTypeError":
        return isinstance(se, sc.ShardingTypeError)
    for k in (NotImplementedError, AssertionError):
        if isinstance(je, k):
            return isinstance(se, k)
    return isinstance(se, (ValueError, TypeError))


def compare(prog: Prog, mesh_id: str, j: Outcome, s: Outcome, eager: bool) -> None:
    where = f"[{prog.id} on {mesh_id}{' eager' if eager else ''}]"
    if j.error is not None or s.error is not None:
        assert j.error is not None, f"{where} JAX accepts {j.types} but shardc raised " \
                                    f"{type(s.error).__name__}: {s.error}"
        assert s.error is not None, f"{where} JAX raised {type(j.error).__name__}: {j.error}\n" \
                                    f"  but shardc accepts: {s.types}"
        assert isinstance(s.error, sc.ShardcError), \
            f"{where} shardc raised a non-shardc {type(s.error).__name__}: {s.error}"
        assert _err_ok(j.error, s.error), \
            f"{where} error kinds differ: JAX {type(j.error).__name__}: {j.error}\n" \
            f"  shardc {type(s.error).__name__}: {s.error}"
        phrase = (prog.phrase or {}).get(mesh_id.split("-")[1])
        if phrase:
            assert phrase in str(j.error), f"{where} phrase {phrase!r} not in JAX's {j.error}"
            assert phrase in str(s.error), f"{where} phrase {phrase!r} not in shardc's {s.error}\n" \
                                           f"  JAX: {j.error}"
        assert s.log == j.log, f"{where} region types differ:\n  jax:    {j.log}\n  shardc: {s.log}"
        return
    assert s.types == j.types, f"{where} output types differ:\n  jax:    {j.types}\n  shardc: {s.types}"
    assert s.log == j.log, f"{where} region types differ:\n  jax:    {j.log}\n  shardc: {s.log}"
    for k, (a, b) in enumerate(zip(j.values, s.values)):
        np.testing.assert_allclose(b, a, rtol=2e-5, atol=2e-5, err_msg=f"{where} output {k}")
    assert s.specs == j.specs, f"{where} concrete output shardings differ:\n  jax:    {j.specs}\n" \
                               f"  shardc: {s.specs}"
    assert s.coll == j.coll, f"{where} collectives differ:\n  jax:    {j.coll}\n  shardc: {s.coll}"
    for k in ("args", "results", "constraints"):
        if j.sdy is not None:
            assert s.sdy[k] == j.sdy[k], f"{where} sdy {k} differ:\n  jax:    {j.sdy[k]}\n" \
                                         f"  shardc: {s.sdy[k]}"


# --- the programs ---------------------------------------------------------------------------------
X16_8 = ((16, 8), ("X", "Y"))


def p_chain(ns, log, x):
    y = ns.sin(x) * 2.0 + 1.0
    return y, ns.sum(y, axis=0), ns.max(ns.tanh(y), axis=1)


def p_dot_chain(ns, log, x, w):
    h = ns.tanh(ns.dot(x, w))
    return ns.sum(h * h, axis=1), h.T


def p_add_conflict(ns, log, x, y):
    return x + y


def p_dot_ambiguous(ns, log, x, w):
    return ns.dot(x, w)


def p_wsc_closed(ns, log, x):
    y = ns.with_sharding_constraint(ns.sin(x), ns.P("X", None))
    return y * 2.0


def p_wsc_unconstrained(ns, log, x):
    return ns.cos(ns.with_sharding_constraint(ns.sin(x), ns.P(None, ns.P.UNCONSTRAINED)))


def p_wsc_unconstrained0(ns, log, x):
    return ns.cos(ns.with_sharding_constraint(ns.sin(x), ns.P(ns.P.UNCONSTRAINED, "Y")))


def p_wsc_uneven(ns, log, x):
    """JAX allows uneven constraints (6 rows over Y=4) on Auto axes."""
    return ns.with_sharding_constraint(x * 2.0, ns.P("Y"))


def p_wsc_same(ns, log, x):
    return ns.with_sharding_constraint(ns.exp(x), ns.P("X", "Y"))


def p_wsc_dot(ns, log, x):
    y = x @ x.T
    y = ns.with_sharding_constraint(y, ns.P("X", None))
    return ns.with_sharding_constraint(ns.tanh(y), ns.P(None, ns.P.UNCONSTRAINED))


def p_auto_full(ns, log, x, y):
    def add(a, b):
        _log(ns, log, "a", a)
        return _log(ns, log, "sum", a + b)
    return ns.auto_axes(add, out_sharding=ns.P("X", None))(x, y)


def p_auto_full_kw(ns, log, x, y):
    @ns.auto_axes
    def add(a, b):
        return _log(ns, log, "in", a * b + a)
    return add(x, y, out_sharding=ns.P(None, "Y"))


def p_auto_Y(ns, log, x):
    def f(a):
        _log(ns, log, "a", a)
        return _log(ns, log, "r", ns.exp(a) + 1.0)
    return ns.auto_axes(f, axes="Y", out_sharding=ns.P("X", "Y"))(ns.sin(x) * 2.0)


def p_auto_matmul(ns, log, x, w):
    return ns.auto_axes(ns.matmul, out_sharding=ns.P("X", None))(x, w)


def p_auto_ref(ns, log, x):
    y = ns.sin(x)
    g = ns.auto_axes(lambda a: ns.cumsum(_log(ns, log, "g", a @ a.T), axis=0),
                     out_sharding=ns.P("X", None))
    z = g(y)
    h = ns.auto_axes(lambda a: _log(ns, log, "h", ns.exp(a) + 1.0), axes="Y",
                     out_sharding=ns.P("X", "Y"))
    return h(z * 2.0)


def p_auto_missing(ns, log, x):
    return ns.auto_axes(lambda a: a * 2.0)(x)


def p_explicit_full(ns, log, x):
    def g(a):
        _log(ns, log, "a", a)
        return _log(ns, log, "s", ns.sum(a * 3.0, axis=1))
    return ns.explicit_axes(g, in_sharding=ns.P("X", "Y"))(ns.sin(x)) + 1.0


def p_explicit_X_sharded(ns, log, x):
    h = ns.explicit_axes(lambda a: _log(ns, log, "h", ns.cos(_log(ns, log, "a", a)) * 2.0),
                         axes="X", in_sharding=ns.P("X", None))
    return h(ns.sin(x))


def p_explicit_X_replicated(ns, log, x):
    k = ns.explicit_axes(lambda a: _log(ns, log, "k", ns.sum(_log(ns, log, "a", a), axis=0)),
                         axes="X", in_sharding=ns.P(None, None))
    return k(ns.sin(x))


def p_explicit_ref(ns, log, x):
    y = ns.sin(x)
    g = ns.explicit_axes(lambda a: ns.sum(a * 3.0, axis=1), in_sharding=ns.P("X", "Y"))
    h = ns.explicit_axes(lambda a: ns.cos(a) * 2.0, axes="X", in_sharding=ns.P("X", None))
    k = ns.explicit_axes(lambda a: ns.sum(a, axis=0), axes="X", in_sharding=ns.P(None, None))
    return g(y) + 1.0, h(y), k(y)


def p_explicit_missing(ns, log, x):
    return ns.explicit_axes(lambda a: a * 2.0)(x)


def p_explicit_dot_error(ns, log, x, w):
    """Inside explicit_axes the Explicit rules apply: an ambiguous dot fails."""
    return ns.explicit_axes(lambda a, b: ns.dot(a, b), in_sharding=(ns.P(None, "X"), ns.P("X", None)))(x, w)


def p_uam_reshard(ns, log, x):
    m = ns.AbstractMesh((4, 2), ("a", "b"), axis_types=(ns.AxisType.Explicit,) * 2)
    with ns.use_abstract_mesh(m):
        y = _log(ns, log, "y", ns.reshard(x, ns.P("a", "b")))
        z = _log(ns, log, "z", y * 2.0)
    return z


def p_uam_back(ns, log, x):
    """Onto a (4,2) view of the devices and back onto the context mesh."""
    m = ns.AbstractMesh((4, 2), ("a", "b"), axis_types=(ns.AxisType.Explicit,) * 2)
    with ns.use_abstract_mesh(m):
        y = ns.reshard(x, ns.P("a", "b")) * 2.0
    return ns.reshard(y, ns.P("X")) + 1.0


def p_uam_mixed(ns, log, x):
    """A result typed on a view with an Auto axis: XLA's placement has no spec
    on the view (JAX fails with IndivisibleError, shardc with a ValueError)."""
    m = ns.AbstractMesh((4, 2), ("a", "b"), axis_types=(ns.AxisType.Explicit, ns.AxisType.Auto))
    with ns.use_abstract_mesh(m):
        return ns.sin(_log(ns, log, "y", ns.reshard(x, ns.P("a")))) * 2.0


def p_uam_stale(ns, log, x):
    """An array still on the old mesh used under the new one (test user_auto_mix_error)."""
    m = ns.AbstractMesh((4, 2), ("a", "b"), axis_types=(ns.AxisType.Explicit,) * 2)
    with ns.use_abstract_mesh(m):
        return x * 2.0


def p_uam_size(ns, log, x):
    m = ns.AbstractMesh((2, 2), ("a", "b"), axis_types=(ns.AxisType.Explicit,) * 2)
    with ns.use_abstract_mesh(m):
        return ns.reshard(x, ns.P("a"))


def p_shard_map_auto_in_specs(ns, log, x):
    """shard_map over every axis, in_specs naming an Auto axis."""
    return ns.shard_map(lambda a: a * 2.0, in_specs=ns.P("X", "Y"), out_specs=ns.P("X", "Y"))(x)


def p_manual_auto_axes(ns, log, x):
    """auto_axes over every axis inside a shard_map: the Manual axes cannot switch."""
    def body(a):
        return ns.auto_axes(lambda b: b * 2.0, out_sharding=ns.P())(a)
    return ns.shard_map(body, in_specs=ns.P(), out_specs=ns.P())(x)


def p_manual_explicit_axes(ns, log, x):
    def body(a):
        return ns.explicit_axes(lambda b: b * 2.0, in_sharding=ns.P())(a)
    return ns.shard_map(body, in_specs=ns.P(), out_specs=ns.P())(x)


def p_partial_manual_auto_Y(ns, log, x):
    """auto_axes over a non-Manual axis inside a partial-manual shard_map is fine."""
    def body(a):
        return ns.auto_axes(lambda b: _log(ns, log, "b", b) * 2.0, axes="Y", out_sharding=ns.P())(a)
    return ns.shard_map(body, in_specs=ns.P(), out_specs=ns.P(), axis_names={"X"})(x)


def p_reshape_flat(ns, log, x):
    return ns.reshape(ns.sin(x), (128,))


def p_reshape_split(ns, log, x):
    return ns.reshape(x, (8, 16)) * 2.0


def p_cumsum(ns, log, x):
    return ns.cumsum(x, axis=1)


def p_dot_out_sharding(ns, log, x, w):
    return ns.dot(x, w, out_sharding=ns.P("X", None))


def p_zeros_out_sharding(ns, log):
    return ns.zeros((16, 8), out_sharding=ns.P("X"))


def p_reshard_XY(ns, log, x):
    return ns.reshard(ns.sin(x), ns.P("X", "Y"))


def p_reshard_replicated(ns, log, x):
    return ns.reshard(ns.sin(x), ns.P()) + 1.0


def p_nested(ns, log, x):
    """explicit_axes over everything, then auto_axes over X inside it."""
    def inner(a):
        return _log(ns, log, "inner", ns.exp(_log(ns, log, "a", a)))

    def outer(b):
        _log(ns, log, "b", b)
        return ns.auto_axes(inner, axes="X", out_sharding=ns.P("X", "Y"))(b * 2.0)
    return ns.explicit_axes(outer, in_sharding=ns.P("X", "Y"))(x)


PROGS = [
    Prog("chain", p_chain, (X16_8,), eager=True),
    Prog("dot_chain", p_dot_chain, (((16, 8), ("X", None)), ((8, 16), (None, "Y")))),
    Prog("add_conflict", p_add_conflict, (((8, 8), ("X", None)), ((8, 8), (None, "X"))),
         phrase={"EE": "illegally sharded result", "EA": "illegally sharded result"}, eager=True),
    Prog("dot_ambiguous", p_dot_ambiguous, (((16, 8), (None, "X")), ((8, 16), ("X", None))),
         phrase={"EE": "ambiguous", "EA": "ambiguous"}, eager=True),
    Prog("dot_ambiguous_Y", p_dot_ambiguous, (((16, 8), (None, "Y")), ((8, 16), ("Y", None))),
         phrase={"EE": "ambiguous", "AE": "ambiguous"}),
    Prog("wsc_closed", p_wsc_closed, (X16_8,),
         phrase={"EE": "acts as an assert", "EA": "can only refer to Auto axes"}),
    Prog("wsc_unconstrained", p_wsc_unconstrained, (X16_8,),
         phrase={"EE": "cannot contain `P.UNCONSTRAINED`"}, eager=True),
    Prog("wsc_unconstrained0", p_wsc_unconstrained0, (X16_8,),
         phrase={"EE": "cannot contain `P.UNCONSTRAINED`"}),
    Prog("wsc_same", p_wsc_same, (X16_8,)),
    Prog("wsc_uneven", p_wsc_uneven, (((6, 8), ()),),
         phrase={"EE": "acts as an assert", "AE": "can only refer to Auto axes"}),
    Prog("wsc_dot", p_wsc_dot, (X16_8,)),
    Prog("auto_full", p_auto_full, (((8, 8), ("X", None)), ((8, 8), (None, "X"))), eager=True),
    Prog("auto_full_kw", p_auto_full_kw, (X16_8, X16_8), eager=True),
    Prog("auto_Y", p_auto_Y, (X16_8,), eager=True),
    Prog("auto_matmul", p_auto_matmul, (((8, 4), (None, "X")), ((4, 16), ("X", None)))),
    Prog("auto_ref", p_auto_ref, (X16_8,)),
    Prog("auto_missing", p_auto_missing, (X16_8,), phrase={k: "out_sharding" for k in KINDS}),
    Prog("explicit_full", p_explicit_full, (X16_8,), eager=True),
    Prog("explicit_X_sharded", p_explicit_X_sharded, (X16_8,)),
    Prog("explicit_X_replicated", p_explicit_X_replicated, (X16_8,), eager=True),
    Prog("explicit_ref", p_explicit_ref, (X16_8,)),
    Prog("explicit_missing", p_explicit_missing, (X16_8,), phrase={k: "in_sharding" for k in KINDS}),
    Prog("explicit_dot_error", p_explicit_dot_error, (((16, 8), (None, "X")), ((8, 16), ("X", None)))),
    Prog("uam_reshard", p_uam_reshard, (X16_8,)),
    Prog("uam_back", p_uam_back, (X16_8,),
         phrase={k: "cannot contain axis names that are of type Auto" for k in ("AE", "AA")}),
    Prog("uam_mixed", p_uam_mixed, (X16_8,), meshes=("2d-EE", "2d-AA")),
    Prog("uam_stale", p_uam_stale, (X16_8,), phrase={k: "should match the aval mesh" for k in KINDS}),
    Prog("uam_size", p_uam_size, (X16_8,)),
    Prog("reshape_flat", p_reshape_flat, (((16, 8), (None, "X")),),
         phrase={"EE": "This reshape is not supported", "EA": "This reshape is not supported"}),
    Prog("reshape_split", p_reshape_split, (X16_8,),
         phrase={k: "This reshape is not supported" for k in ("EE", "EA", "AE")}),
    Prog("cumsum", p_cumsum, (((16, 8), (None, "X")),),
         phrase={"EE": "Input should be unsharded over the axis", "EA": "Input should be unsharded"}),
    Prog("dot_out_sharding", p_dot_out_sharding, (((16, 8), (None, "X")), ((8, 16), ("X", None))),
         phrase={k: "cannot contain axis names that are of type Auto" for k in ("AE", "AA")}),
    Prog("zeros_out_sharding", p_zeros_out_sharding, (),
         phrase={k: "cannot contain axis names that are of type Auto" for k in ("AE", "AA")}),
    Prog("reshard_XY", p_reshard_XY, (X16_8,),
         phrase={k: "cannot contain axis names that are of type Auto" for k in ("AE", "EA", "AA")}),
    Prog("reshard_replicated", p_reshard_replicated, (X16_8,)),
    Prog("nested", p_nested, (X16_8,)),
    Prog("manual_auto_axes", p_manual_auto_axes, (((16, 8), (None, None)),),
         phrase={k: "Going from `Manual` AxisType" for k in KINDS}),
    Prog("manual_explicit_axes", p_manual_explicit_axes, (((16, 8), (None, None)),),
         phrase={k: "Going from `Manual` AxisType" for k in KINDS}),
    Prog("shard_map_auto_in_specs", p_shard_map_auto_in_specs, (X16_8,)),
    Prog("partial_manual_auto_Y", p_partial_manual_auto_Y, (((16, 8), (None, None)),)),
]

#: the three programs of the reference emissions (jax-emission/{wsc_auto, auto_axes_in_explicit,
#: explicit_axes_in_auto}.mlir), on their (4,2) mesh; `compare` also checks the sdy constructs
PROGS += [
    Prog("ref_wsc_auto", p_wsc_dot, (X16_8,), meshes=("4x2-AA",)),
    Prog("ref_auto_axes_in_explicit", p_auto_ref, (X16_8,), meshes=("4x2-EE",)),
    Prog("ref_explicit_axes_in_auto", p_explicit_ref, (X16_8,), meshes=("4x2-AA",)),
]

CASES = [(p, m, False) for p in PROGS for m in p.meshes] + \
        [(p, m, True) for p in PROGS if p.eager for m in p.meshes if m.startswith("2d")]


@pytest.mark.parametrize("prog,mesh_id,eager", [_param(*c) for c in CASES])
def test_auto_differential(prog, mesh_id, eager):
    j = run_jax(prog, mesh_id, eager)
    s = run_sc(prog, mesh_id, eager)
    compare(prog, mesh_id, j, s, eager)


# --- lowering from types (no data): arguments pinned as their types say -------------------------
TYPE_CASES = [(p, m) for p in PROGS if p.args and not p.id.startswith("ref_")
              for m in p.meshes if m.startswith("2d")]


@pytest.mark.parametrize("prog,mesh_id", [_param(*c) for c in TYPE_CASES])
def test_lower_from_types(prog, mesh_id):
    """`prog.lower(types)` against JAX lowering `ShapeDtypeStruct`s carrying the
    types' shardings: same accept/reject and the same sdy constructs."""
    m, jm = meshes(mesh_id)
    with sc.set_mesh(m):
        types = [sc.typeof(sc.device_put(np.zeros(s, np.float32), sc.P(*sp))) for s, sp in prog.args]
    structs = [jax.ShapeDtypeStruct(t.shape, t.dtype, sharding=JNamedSharding(jm, jax.P(*t.spec)))
               for t in types]
    with jax.set_mesh(jm):
        try:
            jtext = jax.jit(lambda *xs: prog.fn(JNS, [], *xs)).lower(*structs).as_text()
        except Exception:  # noqa: BLE001 - rejections are compared by test_auto_differential
            jtext = None
    with sc.set_mesh(m):
        try:
            stext = sc.jit(lambda *xs: prog.fn(SNS, [], *xs)).lower(*map(str, types)).as_text()
        except sc.ShardcError:
            stext = None
    assert (jtext is None) == (stext is None), f"[{prog.id} on {mesh_id}] JAX " \
        f"{'rejects' if jtext is None else 'accepts'} the types, shardc does not"
    if jtext is not None:
        assert sdy_constructs(stext) == sdy_constructs(jtext), \
            f"[{prog.id} on {mesh_id}]\n  jax:    {sdy_constructs(jtext)}\n  shardc: {sdy_constructs(stext)}"
