"""Differential tests for Auto and mixed meshes against JAX 0.10.2 (the oracle).

Every program is written once against a namespace `ns` (JAX or shardc) and run
through the oracle (tests/oracle) on the same devices in both, on (2,4) and
(2,2,2) meshes whose axes are all Auto, mixed (Explicit X with Auto others, and
the reverse) or all Explicit. Each run compares accept/reject (error kind and a
key phrase), `str(typeof)` of every output and of the values noted inside
`auto_axes` / `explicit_axes` / `use_abstract_mesh` regions, the values, the
concrete output shardings XLA chose, the collectives of the partitioned HLO by
kind and the sdy annotations of the lowered module. JAX rules §1.2, §2.14,
§2.15; seed 000 (auto_axes, Auto sharding mode, concrete shardings mentioning
Auto axes).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import jax
import numpy as np
import pytest
from oracle import JAX, SC, Case, MeshSpec, Placed, check, param

import shardc as sc

# --- meshes ---------------------------------------------------------------------------------------
SHAPES = {"2d": ((2, 4), ("X", "Y")), "3d": ((2, 2, 2), ("X", "Y", "Z")),
          "4x2": ((4, 2), ("X", "Y"))}   # the mesh of the reference emissions
#: axis-type patterns: the first letter is X's type, the second the others'
KINDS = {"AA": "all Auto", "EA": "Explicit X, Auto others", "AE": "Auto X, Explicit others",
         "EE": "all Explicit"}
MESH_IDS = [f"{s}-{k}" for s in ("2d", "3d") for k in KINDS]


def mesh_spec(mesh_id: str) -> MeshSpec:
    shape, kind = mesh_id.split("-")
    dims, names = SHAPES[shape]
    return MeshSpec(dims, names, kind[0] + kind[1] * (len(names) - 1))


# --- cases ----------------------------------------------------------------------------------------
@dataclass
class Prog:
    """`fn(ns, *args)`; `args` are (shape, concrete spec) pairs (specs may name
    Auto axes: the arrays' placement); the program notes (`ns.note`) the types
    it sees inside regions. `phrase` maps a mesh kind to a phrase both errors
    contain (default: JAX's key phrase)."""

    id: str
    fn: Callable
    args: tuple
    phrase: dict | None = None
    meshes: tuple = tuple(MESH_IDS)
    eager: bool = False


def case(prog: Prog, mesh_id: str, mode: str) -> Case:
    return Case(f"{prog.id}-{mesh_id}" + ("-eager" if mode == "eager" else ""), mesh_spec(mesh_id), prog.fn,
                tuple(Placed(shape, spec) for shape, spec in prog.args),
                phrase=(prog.phrase or {}).get(mesh_id.split("-")[1]), mode=mode, sdy=True)


# --- the programs ---------------------------------------------------------------------------------
X16_8 = ((16, 8), ("X", "Y"))


def p_chain(ns, x):
    y = ns.sin(x) * 2.0 + 1.0
    return y, ns.sum(y, axis=0), ns.max(ns.tanh(y), axis=1)


def p_dot_chain(ns, x, w):
    h = ns.tanh(ns.dot(x, w))
    return ns.sum(h * h, axis=1), h.T


def p_add_conflict(ns, x, y):
    return x + y


def p_dot_ambiguous(ns, x, w):
    return ns.dot(x, w)


def p_wsc_closed(ns, x):
    y = ns.with_sharding_constraint(ns.sin(x), ns.P("X", None))
    return y * 2.0


def p_wsc_unconstrained(ns, x):
    return ns.cos(ns.with_sharding_constraint(ns.sin(x), ns.P(None, ns.P.UNCONSTRAINED)))


def p_wsc_unconstrained0(ns, x):
    return ns.cos(ns.with_sharding_constraint(ns.sin(x), ns.P(ns.P.UNCONSTRAINED, "Y")))


def p_wsc_uneven(ns, x):
    """JAX allows uneven constraints (6 rows over Y=4) on Auto axes."""
    return ns.with_sharding_constraint(x * 2.0, ns.P("Y"))


def p_wsc_same(ns, x):
    return ns.with_sharding_constraint(ns.exp(x), ns.P("X", "Y"))


def p_wsc_dot(ns, x):
    y = x @ x.T
    y = ns.with_sharding_constraint(y, ns.P("X", None))
    return ns.with_sharding_constraint(ns.tanh(y), ns.P(None, ns.P.UNCONSTRAINED))


def p_auto_full(ns, x, y):
    def add(a, b):
        ns.note(a, "a")
        return ns.note(a + b, "sum")
    return ns.auto_axes(add, out_sharding=ns.P("X", None))(x, y)


def p_auto_full_kw(ns, x, y):
    @ns.auto_axes
    def add(a, b):
        return ns.note(a * b + a, "in")
    return add(x, y, out_sharding=ns.P(None, "Y"))


def p_auto_Y(ns, x):
    def f(a):
        ns.note(a, "a")
        return ns.note(ns.exp(a) + 1.0, "r")
    return ns.auto_axes(f, axes="Y", out_sharding=ns.P("X", "Y"))(ns.sin(x) * 2.0)


def p_auto_matmul(ns, x, w):
    return ns.auto_axes(ns.matmul, out_sharding=ns.P("X", None))(x, w)


def p_auto_ref(ns, x):
    y = ns.sin(x)
    g = ns.auto_axes(lambda a: ns.cumsum(ns.note(a @ a.T, "g"), axis=0),
                     out_sharding=ns.P("X", None))
    z = g(y)
    h = ns.auto_axes(lambda a: ns.note(ns.exp(a) + 1.0, "h"), axes="Y",
                     out_sharding=ns.P("X", "Y"))
    return h(z * 2.0)


def p_auto_missing(ns, x):
    return ns.auto_axes(lambda a: a * 2.0)(x)


def p_explicit_full(ns, x):
    def g(a):
        ns.note(a, "a")
        return ns.note(ns.sum(a * 3.0, axis=1), "s")
    return ns.explicit_axes(g, in_sharding=ns.P("X", "Y"))(ns.sin(x)) + 1.0


def p_explicit_X_sharded(ns, x):
    h = ns.explicit_axes(lambda a: ns.note(ns.cos(ns.note(a, "a")) * 2.0, "h"),
                         axes="X", in_sharding=ns.P("X", None))
    return h(ns.sin(x))


def p_explicit_X_replicated(ns, x):
    k = ns.explicit_axes(lambda a: ns.note(ns.sum(ns.note(a, "a"), axis=0), "k"),
                         axes="X", in_sharding=ns.P(None, None))
    return k(ns.sin(x))


def p_explicit_ref(ns, x):
    y = ns.sin(x)
    g = ns.explicit_axes(lambda a: ns.sum(a * 3.0, axis=1), in_sharding=ns.P("X", "Y"))
    h = ns.explicit_axes(lambda a: ns.cos(a) * 2.0, axes="X", in_sharding=ns.P("X", None))
    k = ns.explicit_axes(lambda a: ns.sum(a, axis=0), axes="X", in_sharding=ns.P(None, None))
    return g(y) + 1.0, h(y), k(y)


def p_explicit_missing(ns, x):
    return ns.explicit_axes(lambda a: a * 2.0)(x)


def p_explicit_dot_error(ns, x, w):
    """Inside explicit_axes the Explicit rules apply: an ambiguous dot fails."""
    return ns.explicit_axes(lambda a, b: ns.dot(a, b), in_sharding=(ns.P(None, "X"), ns.P("X", None)))(x, w)


def p_uam_reshard(ns, x):
    m = ns.AbstractMesh((4, 2), ("a", "b"), axis_types=(ns.AxisType.Explicit,) * 2)
    with ns.use_abstract_mesh(m):
        y = ns.note(ns.reshard(x, ns.P("a", "b")), "y")
        z = ns.note(y * 2.0, "z")
    return z


def p_uam_back(ns, x):
    """Onto a (4,2) view of the devices and back onto the context mesh."""
    m = ns.AbstractMesh((4, 2), ("a", "b"), axis_types=(ns.AxisType.Explicit,) * 2)
    with ns.use_abstract_mesh(m):
        y = ns.reshard(x, ns.P("a", "b")) * 2.0
    return ns.reshard(y, ns.P("X")) + 1.0


def p_uam_mixed(ns, x):
    """A result typed on a view with an Auto axis: XLA's placement has no spec
    on the view (JAX fails with IndivisibleError, shardc with a ValueError)."""
    m = ns.AbstractMesh((4, 2), ("a", "b"), axis_types=(ns.AxisType.Explicit, ns.AxisType.Auto))
    with ns.use_abstract_mesh(m):
        return ns.sin(ns.note(ns.reshard(x, ns.P("a")), "y")) * 2.0


def p_uam_stale(ns, x):
    """An array still on the old mesh used under the new one (test user_auto_mix_error)."""
    m = ns.AbstractMesh((4, 2), ("a", "b"), axis_types=(ns.AxisType.Explicit,) * 2)
    with ns.use_abstract_mesh(m):
        return x * 2.0


def p_uam_size(ns, x):
    m = ns.AbstractMesh((2, 2), ("a", "b"), axis_types=(ns.AxisType.Explicit,) * 2)
    with ns.use_abstract_mesh(m):
        return ns.reshard(x, ns.P("a"))


def p_shard_map_auto_in_specs(ns, x):
    """shard_map over every axis, in_specs naming an Auto axis."""
    return ns.shard_map(lambda a: a * 2.0, in_specs=ns.P("X", "Y"), out_specs=ns.P("X", "Y"))(x)


def p_manual_auto_axes(ns, x):
    """auto_axes over every axis inside a shard_map: the Manual axes cannot switch."""
    def body(a):
        return ns.auto_axes(lambda b: b * 2.0, out_sharding=ns.P())(a)
    return ns.shard_map(body, in_specs=ns.P(), out_specs=ns.P())(x)


def p_manual_explicit_axes(ns, x):
    def body(a):
        return ns.explicit_axes(lambda b: b * 2.0, in_sharding=ns.P())(a)
    return ns.shard_map(body, in_specs=ns.P(), out_specs=ns.P())(x)


def p_partial_manual_auto_Y(ns, x):
    """auto_axes over a non-Manual axis inside a partial-manual shard_map is fine."""
    def body(a):
        return ns.auto_axes(lambda b: ns.note(b, "b") * 2.0, axes="Y", out_sharding=ns.P())(a)
    return ns.shard_map(body, in_specs=ns.P(), out_specs=ns.P(), axis_names={"X"})(x)


def p_reshape_flat(ns, x):
    return ns.reshape(ns.sin(x), (128,))


def p_reshape_split(ns, x):
    return ns.reshape(x, (8, 16)) * 2.0


def p_cumsum(ns, x):
    return ns.cumsum(x, axis=1)


def p_dot_out_sharding(ns, x, w):
    return ns.dot(x, w, out_sharding=ns.P("X", None))


def p_zeros_out_sharding(ns):
    return ns.zeros((16, 8), out_sharding=ns.P("X"))


def p_reshard_XY(ns, x):
    return ns.reshard(ns.sin(x), ns.P("X", "Y"))


def p_reshard_replicated(ns, x):
    return ns.reshard(ns.sin(x), ns.P()) + 1.0


def p_nested(ns, x):
    """explicit_axes over everything, then auto_axes over X inside it."""
    def inner(a):
        return ns.note(ns.exp(ns.note(a, "a")), "inner")

    def outer(b):
        ns.note(b, "b")
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
    # JAX's error is XLA's IndivisibleError, shardc's names the view (see p_uam_mixed): JAX's message binds no phrase
    Prog("uam_mixed", p_uam_mixed, (X16_8,), meshes=("2d-EE", "2d-AA"), phrase={k: "" for k in KINDS}),
    Prog("uam_stale", p_uam_stale, (X16_8,), phrase={k: "should match the aval mesh" for k in KINDS}),
    # shardc's wording differs from JAX's "use_abstract_mesh cannot change the size of the mesh"
    Prog("uam_size", p_uam_size, (X16_8,), phrase={k: "use_abstract_mesh" for k in KINDS}),
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

CASES = [case(p, m, "jit") for p in PROGS for m in p.meshes] + \
        [case(p, m, "eager") for p in PROGS if p.eager for m in p.meshes if m.startswith("2d")]


@param(CASES)
def test_auto_differential(case):
    check(case)


# --- lowering from types (no data): arguments pinned as their types say -------------------------
@param([case(p, m, "lower") for p in PROGS if p.args and not p.id.startswith("ref_")
        for m in p.meshes if m.startswith("2d")])
def test_lower_from_types(case):
    """`jit(prog).lower(types)` on both sides, the types being those JAX gives
    the placed arguments: the same accept/reject and the same sdy annotations."""
    check(case)


# --- regions called outside any program run eagerly, as in JAX (issue 12) ---------------------------
def _eager_region(ns, x, kind: str, axes, log: list):
    """Call an `auto_axes` / `explicit_axes` region on a concrete array at top level; the body
    logs what JAX's eager body sees: concrete arrays (`x.sharding` works), the region's mesh."""
    def body(a):
        mesh = (jax if ns is JAX else sc).sharding.get_abstract_mesh()
        log.append(("in", ns.tstr(a), repr(a.sharding.spec), repr(mesh)))
        c = ns.sin(a) * 2.0
        log.append(("body", ns.tstr(c), repr(c.sharding.spec)))
        return c
    try:
        if kind == "auto":
            r = ns.auto_axes(body, axes=axes, out_sharding=ns.P("X", None))(x)
        else:
            r = ns.explicit_axes(body, axes=axes, in_sharding=ns.P("X", None))(x)
        log.append(("out", ns.tstr(r), repr(r.sharding.spec), np.asarray(r).tolist()))
    except ValueError as e:   # JAX's error (class compared; shardc's message has JAX's text after the line)
        log.append(("error", "ValueError", str(e).split("PartitionSpec", 1)[-1][:60]))


@pytest.mark.parametrize("case", [(types, axes, kind) for types in KINDS for axes in (None, "X", "Y")
                                  for kind in ("auto", "explicit")], ids=lambda p: f"{p[0]}-{p[1] or 'all'}-{p[2]}")
def test_region_at_top_level_runs_eagerly(case):
    """`auto_axes(f)(x, out_sharding=...)` outside jit: JAX runs `f` on concrete values (resharded
    onto the region's mesh), so `x.sharding` and `get_abstract_mesh()` work inside; shardc used to
    trace `f` (and `x.sharding` raised). Same log of what the body sees and returns on both sides."""
    types, axes, kind = case
    logs = []
    for ns in (JAX, SC):
        m = ns.mesh(MeshSpec((4, 2), ("X", "Y"), types))
        log: list = []
        with (jax.set_mesh(m) if ns is JAX else sc.set_mesh(m)):
            x = ns.device_put(np.arange(32.0, dtype=np.float32).reshape(8, 4), ns.P("X", None))
            _eager_region(ns, x, kind, axes, log)
        logs.append(log)
    assert logs[1] == logs[0]
    assert logs[0]
