"""Differential tests of manual mode (`sc.shard_map`, collectives, `pcast`)
against JAX 0.10.2 (`jax.shard_map`, `jax.lax.*`), JAX rules §4.1–§4.5.

Every case runs in both; see tests/shard_map/sm_harness.py for what is
compared. Big tables are compared by tracing only (types, accept/reject);
`run=True` cases also compile and run both sides and compare values and the
collectives in the partitioned HLO.
"""
from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import jax
import numpy as np
import pytest

import shardc as sc
from shard_map.sm_harness import (JAX, MESHES, SC, Case, S, compare, data_for, jax_collectives, meshes, param,
                                  parse_arg)

AXES = {m: names for m, (_, names, _) in MESHES.items()}
# the meshes every table runs over
TABLE_MESHES = ("1d", "2d", "3d", "2d_rev")
SIZES = {m: dict(zip(names, shape)) for m, (shape, names, _) in MESHES.items()}


def _e(axes):
    """A spec entry for a tuple of axes."""
    axes = tuple(axes)
    return None if not axes else (axes[0] if len(axes) == 1 else axes)


def _dims(shape, spec):
    spec = tuple(spec) + (None,) * (len(shape) - len(spec))
    out = []
    for d, e in zip(shape, spec):
        if e is None:
            out.append(str(d))
        elif isinstance(e, str):
            out.append(f"{d}@{e}")
        else:
            out.append(f"{d}@({','.join(e)})")
    return ",".join(out)


def ty(dtype, shape, spec=(), u=(), r=()):
    attrs = []
    for tag, s in (("U", tuple(u)), ("R", tuple(r))):
        if s:
            attrs.append(f"{tag}:{s[0]}" if len(s) == 1 else f"{tag}:({','.join(s)})")
    return f"{dtype}[{_dims(shape, spec)}]" + ("{" + ", ".join(attrs) + "}" if attrs else "")


def _ident(ns, x):
    return x


# =============================================================================================
# §4.1 types inside shard_map: local shapes, V from in_specs, inferred / given in_specs
# =============================================================================================
SPECS_41 = {
    "1d": [((16, 8), ()), ((16, 8), ("i",)), ((16, 8), (None, "i")), ((8,), ("i",)), ((4, 2, 8), (None, None, "i"))],
    "2d": [((8, 4), ("X", "Y")), ((8, 4), ("X",)), ((8, 4), (None, "Y")), ((8, 4), (("X", "Y"),)),
           ((8, 4), (("Y", "X"),)), ((8, 4), ()), ((8, 4), ("Y", "X")), ((4, 8, 2), (None, ("X", "Y"))),
           ((16,), (("X", "Y"),))],
    "3d": [((8, 4), ("X", "Y")), ((8, 4), (("X", "Z"), "Y")), ((8, 4), ("Z",)), ((8, 4, 2), ("Z", "Y", "X")),
           ((8, 4), (("Z", "Y", "X"),)), ((8, 4), ())],
}
SPECS_41["2d_rev"] = SPECS_41["2d"][:4]


def cases_41():
    cases = []
    for mesh, rows in SPECS_41.items():
        for k, (shape, spec) in enumerate(rows):
            for dt in ("f32", "i32"):
                arg = ty(dt, shape, spec)
                run = (dt == "f32") == (k % 2 == 0) and (mesh != "3d" or k < 3)
                cases.append(Case(f"41-{mesh}-{arg}-inferred", mesh, (arg,), _ident, S(*spec), run=run))
                cases.append(Case(f"41-{mesh}-{arg}-given", mesh, (arg,),
                                  lambda ns, x: x * 2 + 1, S(*spec), in_specs=S(*spec)))
                cases.append(Case(f"41-{mesh}-{arg}-novma", mesh, (arg,), _ident, S(*spec), check_vma=False))
    # several arguments, a pytree of in_specs
    cases.append(Case("41-2d-two-args", "2d", ("f32[8@X,4@Y]", "f32[4,1]"), lambda ns, a, c: (a, c),
                      (S("X", "Y"), S()), in_specs=(S("X", "Y"), S()), run=True))
    cases.append(Case("41-2d-two-args-one-spec", "2d", ("f32[8@X,4]", "f32[8@X,2]"), lambda ns, a, c: (a, c),
                      S("X"), in_specs=S("X")))
    # reduced / unreduced arguments
    cases.append(Case("41-2d-reduced-arg", "2d", ("f32[8,4]{R:X}",), _ident, S(None, None, r={"X"}),
                      in_specs=S(None, None, r={"X"})))
    cases.append(Case("41-2d-reduced-arg-inferred", "2d", ("f32[8,4]{R:X}",),
                      lambda ns, x: ns.log(ns.pcast(x, "X", to="varying")), S("X")))
    cases.append(Case("41-2d-reduced-arg-sharded", "2d", ("f32[8,4@Y]{R:X}",),
                      lambda ns, x: ns.psum(ns.pcast(x, "X", to="varying"), "X"), S(None, "Y")))
    cases.append(Case("41-2d-unreduced-arg", "2d", ("f32[8,16]{U:X}",), lambda ns, x: ns.psum(x, "X"), S(),
                      in_specs=S(u={"X"})))
    cases.append(Case("41-2d-unreduced-arg-inferred", "2d", ("f32[8,16]{U:X}",), lambda ns, x: ns.psum(x, "X"),
                      S()))
    return cases


@param(cases_41())
def test_inside_types(case):
    compare(case)


# --- partial manual (`axis_names`): Explicit free axes stay in the inside types -----------------------
INVALID = (ValueError, "Invalid spec: P(")  # a manual axis minor to a free one in a dim's tuple
PARTIAL = [
    # mesh, arg, axis_names, out_specs (manual axes only)[, error]
    ("2d", "f32[8@X,4@Y]", {"X"}, S("X")),
    ("2d", "f32[8@X,4@Y]", {"Y"}, S(None, "Y")),
    ("2d", "f32[8@(X,Y),2]", {"X"}, S("X")),
    ("2d", "f32[8@(Y,X),2]", {"X"}, S("X"), INVALID),
    ("2d", "f32[8@Y,4@X]", {"X"}, S(None, "X")),
    ("2d", "i32[8@X,4@Y]", {"X"}, S("X")),
    ("2d", "f32[8,4@Y]", {"X"}, S()),
    ("1d", "f32[16@i,4]", {"i"}, S("i")),
    ("3d", "f32[8@X,4@Y,2@Z]", {"X", "Z"}, S("X", None, "Z")),
    ("3d", "f32[8@X,4@Y,2@Z]", {"Y"}, S(None, "Y")),
    ("3d", "f32[8@(X,Y,Z),2]", {"Y"}, S("Y"), INVALID),
    ("3d", "f32[8@(X,Y,Z),2]", {"X", "Y"}, S(("X", "Y"))),
    ("3d", "i32[8@(X,Z),4@Y]", {"Z"}, S("Z"), INVALID),
    ("3d", "i32[8@(Z,X),4@Y]", {"Z"}, S("Z")),
    ("2d_rev", "f32[8@X,4@Y]", {"X"}, S("X")),
]


def cases_partial():
    cases = []
    for k, (mesh, arg, names, out, *err) in enumerate(PARTIAL):
        tag = f"{mesh}-{arg}-{''.join(sorted(names))}"
        err = err[0] if err else None
        cases.append(Case(f"41p-{tag}-ident", mesh, (arg,), _ident, out, axis_names=names, run=k % 3 == 0,
                          error=err))
        # elementwise ops and reductions follow the Explicit rules on the free axes
        cases.append(Case(f"41p-{tag}-ops", mesh, (arg,),
                          lambda ns, x: ns.log(ns.sin(x) * 2 + x) + ns.log(ns.sum(x, axis=0, keepdims=True)),
                          out, axis_names=names, run=k % 3 == 1 and not err, error=err))
        cases.append(Case(f"41p-{tag}-novma", mesh, (arg,), _ident, out, axis_names=names, check_vma=False,
                          error=err))
    # Explicit rules inside a partial-manual body
    x24 = "f32[8@X,4@Y]"
    cases += [
        Case("41p-2d-transpose", "2d", (x24,), lambda ns, x: ns.log(x.T).T, S("X"), axis_names={"X"}),
        Case("41p-2d-reduce-explicit-dim", "2d", (x24,), lambda ns, x: ns.log(ns.sum(x, axis=1)), S("X"),
             axis_names={"X"}, run=True),
        Case("41p-2d-dot-free-axis", "2d", (x24, "f32[4@Y,8]"),
             lambda ns, x, w: ns.matmul(x, w, out_sharding=ns.P(None, None)), S("X"), axis_names={"X"},
             run=True),
        Case("41p-2d-dot-ambiguous", "2d", (x24, "f32[4@Y,8]"), lambda ns, x, w: ns.matmul(x, w), S("X"),
             axis_names={"X"}, error=("ShardingTypeError", "Contracting dimensions are sharded and it is ambiguous")),
        Case("41p-2d-add-conflict", "2d", (x24, "f32[8@X,4]"), lambda ns, x, y: ns.log(x + y), S("X"),
             axis_names={"X"}),
        Case("41p-2d-add-illegal", "2d", ("f32[8@X,4@Y]", "f32[8@(X,Y),4]"), lambda ns, x, y: x.T + y.T,
             S(None, "X"), axis_names={"X"}, error=("ShardingTypeError", "produces an illegally sharded result")),
        Case("41p-2d-reshard-inside", "2d", (x24,), lambda ns, x: ns.log(ns.reshard(x, ns.P("Y"))), S("X"),
             axis_names={"X"}, run=True),
        Case("41p-2d-reshard-manual-axis", "2d", (x24,), lambda ns, x: ns.reshard(x, ns.P("X")), S("X"),
             axis_names={"X"}, error=(ValueError, "X")),
        Case("41p-2d-psum-then-explicit", "2d", (x24,), lambda ns, x: ns.log(ns.psum(x, "X")) * 2, S(),
             axis_names={"X"}, run=True),
        Case("41p-2d-psum-explicit-axis", "2d", (x24,), lambda ns, x: ns.psum(x, "Y"), S("X"), axis_names={"X"},
             error=(NameError, "Found an unbound axis name: Y")),
        Case("41p-2d-axis-index-explicit-axis", "2d", (x24,), lambda ns, x: x + ns.axis_index("Y"), S("X"),
             axis_names={"X"}, error=(NameError, "unbound axis name: Y")),
        Case("41p-2d-all-gather-explicit-axis", "2d", (x24,), lambda ns, x: ns.all_gather(x, "Y"), S("X"),
             axis_names={"X"}, error=(NameError, "unbound axis name: Y")),
        Case("41p-3d-psum-two-manual", "3d", ("f32[8@X,4@Y,2@Z]",), lambda ns, x: ns.psum(x, ("X", "Z")),
             S(), axis_names={"X", "Z"}, run=True),
    ]
    return cases


@param(cases_partial())
def test_partial_manual(case):
    compare(case)


# --- in_specs: inference, mismatch errors, manual-only axes, closures -----------------------------------
def cases_in_specs():
    mism = "does not match the specs of the input"
    return [
        Case("41e-mismatch", "2d", ("f32[8@X,4]",), _ident, S("X", "Y"), in_specs=S("X", "Y"),
             error=(ValueError, mism)),
        Case("41e-mismatch-replicated", "2d", ("f32[8,4]",), _ident, S("X"), in_specs=S("X"),
             error=(ValueError, mism)),
        Case("41e-mismatch-order", "2d", ("f32[8@(X,Y),4]",), _ident, S(("Y", "X")), in_specs=S(("Y", "X")),
             error=(ValueError, mism)),
        Case("41e-mismatch-second-arg", "3d", ("f32[8@X,4]", "f32[8@Z,4]"), lambda ns, a, b: a, S("X"),
             in_specs=(S("X"), S("X")), error=(ValueError, mism)),
        Case("41e-mismatch-reduced", "2d", ("f32[8,4]{R:X}",), _ident, S(), in_specs=S(),
             error=(ValueError, mism)),
        Case("41e-mismatch-1d", "1d", ("i32[16@i]",), _ident, S(), in_specs=S(), error=(ValueError, mism)),
        Case("41e-numpy-arg", "2d", ("f32[8,4]",), _ident, S("X"), in_specs=S("X"), numpy_args=True, run=True,
             error=(ValueError, mism)),
        Case("41e-numpy-arg-replicated", "2d", ("f32[8,4]",), lambda ns, x: x + 1, S(), in_specs=S(),
             numpy_args=True, run=True),
        Case("41e-numpy-arg-inferred", "2d", ("i32[8,4]",), lambda ns, x: ns.log(x * ns.axis_index("Y")),
             S(None, "Y"), numpy_args=True, run=True),
        Case("41e-non-manual-axis", "2d", ("f32[8@X,4@Y]",), _ident, S("X"), in_specs=S("X", "Y"),
             axis_names={"X"}, error=(ValueError, "in_specs refers to 'Y'")),
        Case("41e-non-manual-axis-3d", "3d", ("f32[8@X,4@Y]",), _ident, S("X"), in_specs=S("X", "Y"),
             axis_names={"X", "Z"}, error=(ValueError, "in_specs refers to 'Y'")),
        Case("41e-partial-given-ok", "2d", ("f32[8@X,4@Y]",), _ident, S("X"), in_specs=S("X"),
             axis_names={"X"}, run=True),
        Case("41e-too-many-specs", "2d", ("f32[8@X,4]",), _ident, S("X"), in_specs=(S("X"), S()),
             error=(ValueError, "in_specs")),
        Case("41e-indivisible", "2d", ("f32[6,4]",), _ident, S("Y"), in_specs=S("Y"),
             error=(ValueError, "with axis sizes that are not evenly divisible by the corresponding mesh axis sizes")),
        Case("41e-indivisible-tuple", "3d", ("f32[2,4]",), _ident, S(("X", "Y")), in_specs=S(("X", "Y")),
             error=(ValueError, "which maps array axis 0 (of size 2) to mesh axes ('X', 'Y') (of total size 4)")),
        # partial manual: given in_specs are not checked against the argument (XLA reshards)
        Case("41e-partial-given-P()", "2d", ("f32[8@X,4@Y]",), lambda ns, x: ns.log(x * 2), S(), in_specs=S(),
             axis_names={"X"}, run=True),
        Case("41e-partial-given-replicated", "2d", ("f32[8,4@Y]",), lambda ns, x: x - 1, S("X"), in_specs=S("X"),
             axis_names={"X"}, run=True),
        Case("41e-partial-given-free-indivisible", "2d", ("f32[8@X,4@Y]",), _ident, S(None, "X"),
             in_specs=S(None, "X"), axis_names={"X"},
             error=(ValueError, "Sharding spec ('Y',) implies that array axis 1 is partitioned 4 times, but does "
                                "not evenly divide the dimension size 2")),
        Case("41e-partial-unreduced-arg", "2d", ("f32[8,4@Y]{U:X}",), _ident, S(None, "Y"), axis_names={"Y"},
             error=(NotImplementedError, "unreduced/reduced can only be passed to in_specs when shard_map is in "
                                         "full manual mode")),
        Case("41e-axis-names-empty-means-all", "2d", ("f32[8@X,4@Y]",), _ident, S("X", "Y"), axis_names=set()),
    ]


@param(cases_in_specs())
def test_in_specs(case):
    compare(case)


# =============================================================================================
# operands used by §4.2–§4.4: a (varying on every axis), b (varying on the first axis),
# c (invariant); each local [8,8]
# =============================================================================================
def _operands(mesh: str, dt: str = "f32"):
    names = AXES[mesh]
    n = math.prod(SIZES[mesh].values())
    a = ty(dt, (8 * n, 8), (_e(names),))
    b = ty(dt, (8 * SIZES[mesh][names[0]], 8), (names[0],))
    c = ty(dt, (8, 8))
    return (a, b, c)


def _all(mesh: str) -> S:
    """An out_spec that tiles a leading dim over every mesh axis (fits any V set)."""
    return S(_e(AXES[mesh]))


def _stacked(f):
    """A body returning `f`'s value with a new leading dim (logged before)."""
    def body(ns, *xs):
        return ns.expand_dims(ns.log(f(ns, *xs)), 0)
    return body


# =============================================================================================
# §4.2 elementwise VMA rule and implicit pcast insertion
# =============================================================================================
def _rest(mesh):
    return AXES[mesh][1:] if len(AXES[mesh]) > 1 else AXES[mesh]


ELEMENTWISE = {
    "c*2": lambda ns, m, a, b, c: c * 2,
    "a+c": lambda ns, m, a, b, c: a + c,
    "c+a": lambda ns, m, a, b, c: c + a,
    "b+c": lambda ns, m, a, b, c: b + c,
    "a+b": lambda ns, m, a, b, c: a + b,
    "a*b-c": lambda ns, m, a, b, c: a * b - c,
    "c+axis_index": lambda ns, m, a, b, c: c + ns.axis_index(AXES[m][0]),
    "c+axis_index-last": lambda ns, m, a, b, c: c * ns.axis_index(AXES[m][-1]),
    "a.sum": lambda ns, m, a, b, c: ns.sum(a),
    "a.T": lambda ns, m, a, b, c: a.T,
    "a[0]": lambda ns, m, a, b, c: a[0],
    "a.reshape": lambda ns, m, a, b, c: a.reshape(-1),
    "zeros_like(a)": lambda ns, m, a, b, c: ns.zeros_like(a),
    "concat(a,c)": lambda ns, m, a, b, c: ns.concatenate([a, c]),
    "concat(c,b)": lambda ns, m, a, b, c: ns.concatenate([c, b], axis=1),
    "a.T@c": lambda ns, m, a, b, c: a.T @ c,
    "c@b": lambda ns, m, a, b, c: ns.matmul(c, b),
    "where(a>0,b,c)": lambda ns, m, a, b, c: ns.where(a > 0, b, c),
    "maximum(c,b)": lambda ns, m, a, b, c: ns.maximum(c, b),
    "sin(c)": lambda ns, m, a, b, c: ns.sin(c),
    "c+1.5": lambda ns, m, a, b, c: c + 1.5,
    "psum(a,rest)+c": lambda ns, m, a, b, c: ns.psum(a, _rest(m)) + c,
    "reduced(c,first)+psum(a,rest)": lambda ns, m, a, b, c:
        ns.pcast(c, AXES[m][0], to="reduced") + ns.psum(a, _rest(m)),
    "psum(a,rest)*reduced(c,first)": lambda ns, m, a, b, c:
        ns.psum(a, _rest(m)) * ns.pcast(c, AXES[m][0], to="reduced"),
}
ELEMENTWISE_ERRORS = {
    "reduced(c)+a": (lambda ns, m, a, b, c: ns.pcast(c, AXES[m][0], to="reduced") + a,
                     (ValueError, "pvary cannot accept args which are reduced. Got f32[8,8]{R:")),
    "reduced(c)+c": (lambda ns, m, a, b, c: ns.pcast(c, AXES[m][0], to="reduced") + c,
                     ("ShardingTypeError", "Inputs cannot be replicated on the same axes that another input "
                                           "is reduced on")),
    "c+reduced(c)": (lambda ns, m, a, b, c: c + ns.pcast(c, AXES[m][0], to="reduced"),
                     ("ShardingTypeError", "Inputs cannot be replicated on the same axes that another input "
                                           "is reduced on")),
    "unreduced(a)+a": (lambda ns, m, a, b, c: ns.pcast(a, AXES[m][0], to="unreduced") + a,
                       (ValueError, "pvary cannot accept args which are unreduced. Got f32[8,8]{")),
    "unreduced(a)+c": (lambda ns, m, a, b, c: ns.pcast(a, AXES[m][0], to="unreduced") + c,
                       ("ShardingTypeError", "lhs is unreduced while rhs is not")),
    "c*unreduced(a)": (lambda ns, m, a, b, c: c * ns.pcast(a, AXES[m][0], to="unreduced"),
                       ("ShardingTypeError", "LHS should be reduced along the same axes RHS is unreduced on")),
}


def cases_42():
    cases = []
    for mesh in ("1d", "2d", "3d", "2d_rev"):
        for k, (name, f) in enumerate(ELEMENTWISE.items()):
            if mesh == "1d" and "first" in name:
                continue  # the first axis is the only one: psum(a, rest) is invariant there
            for dt in ("f32", "i32"):
                if dt == "i32" and name in ("sin(c)", "c+1.5"):
                    continue
                run = (mesh in ("2d", "2d_rev") and dt == "f32" and k % 3 == 0) or \
                      (mesh == "3d" and dt == "i32" and k % 4 == 1)
                body = _stacked(lambda ns, a, b, c, f=f, mesh=mesh: f(ns, mesh, a, b, c))
                cases.append(Case(f"42-{mesh}-{dt}-{name}", mesh, _operands(mesh, dt), body, _all(mesh), run=run))
        if mesh == "2d_rev":
            continue
        for name, (f, err) in ELEMENTWISE_ERRORS.items():
            if mesh == "1d" and name == "unreduced(a)+a":
                err = (ValueError, "pvary cannot accept args which are unreduced. Got f32[8,8]{U:i}")
            if mesh == "1d" and name == "reduced(c)+a":
                err = None  # R:i + V:i: a reduced_vary_cast makes it varying
            body = _stacked(lambda ns, a, b, c, f=f, mesh=mesh: f(ns, mesh, a, b, c))
            cases.append(Case(f"42e-{mesh}-{name}", mesh, _operands(mesh), body, _all(mesh), error=err))
    # the reference's exact rows (mesh X=2,Y=4; a=f32[4,1]{V:(X,Y)}, c=f32[4,1])
    ref = ("f32[8@X,4@Y]", "f32[4,1]")
    rows = {
        "c*2": lambda ns, a, c: c * 2,
        "a+c": lambda ns, a, c: a + c,
        "c+axis_index": lambda ns, a, c: c + ns.axis_index("X"),
        "pcast-reduced+psum": lambda ns, a, c: ns.pcast(c, "X", to="reduced") + ns.psum(a, "Y"),
    }
    for name, f in rows.items():
        cases.append(Case(f"42-ref-{name}", "2d", ref, _stacked(f), S(("X", "Y")), in_specs=(S("X", "Y"), S()),
                          run=True))
    cases.append(Case("42-ref-u+a", "2d", ref, _stacked(lambda ns, a, c: ns.pcast(a, "X", to="unreduced") + a),
                      S(("X", "Y")), error=(ValueError, "pvary cannot accept args which are unreduced. "
                                                        "Got f32[4,1]{V:Y, U:X} and axes={'X'}")))
    # check_vma=False: no V anywhere, mixing is fine
    for name in ("a+c", "a*b-c", "c+axis_index", "a.T@c"):
        f = ELEMENTWISE[name]
        for mesh in ("2d", "3d"):
            cases.append(Case(f"42-novma-{mesh}-{name}", mesh, _operands(mesh),
                              _stacked(lambda ns, a, b, c, f=f, mesh=mesh: f(ns, mesh, a, b, c)), _all(mesh),
                              check_vma=False, run=mesh == "2d"))
    return cases


@param(cases_42())
def test_elementwise_vma(case):
    compare(case)


# =============================================================================================
# §4.3 collectives: shape and VMA effect, tuple axes, invariant inputs (pvary first)
# =============================================================================================
def _axis_sets(mesh):
    names = AXES[mesh]
    sets = [(a,) for a in names]
    if len(names) > 1:
        sets.append(names)                       # every axis, mesh order
        sets.append(tuple(reversed(names)))      # every axis, reversed order
    if len(names) == 3:
        sets += [("X", "Z"), ("Z", "Y")]
    return sets


def _n(mesh, axes):
    return math.prod(SIZES[mesh][a] for a in axes)


def _ax(axes):
    return axes[0] if len(axes) == 1 else tuple(axes)


def _shift(n):
    return [(i, (i + 1) % n) for i in range(n)]


COLLECTIVES = {
    "psum": lambda ns, x, ax, n: ns.psum(x, ax),
    "pmax": lambda ns, x, ax, n: ns.pmax(x, ax),
    "pmin": lambda ns, x, ax, n: ns.pmin(x, ax),
    "pmean": lambda ns, x, ax, n: ns.pmean(x, ax),
    "all_gather": lambda ns, x, ax, n: ns.all_gather(x, ax),
    "all_gather-tiled": lambda ns, x, ax, n: ns.all_gather(x, ax, tiled=True),
    "all_gather-axis1-tiled": lambda ns, x, ax, n: ns.all_gather(x, ax, axis=1, tiled=True),
    "all_gather-axis2": lambda ns, x, ax, n: ns.all_gather(x, ax, axis=2),
    "psum_scatter-tiled": lambda ns, x, ax, n: ns.psum_scatter(x, ax, scatter_dimension=1, tiled=True),
    "psum_scatter": lambda ns, x, ax, n: ns.psum_scatter(x.reshape(n, -1), ax),
    "ppermute": lambda ns, x, ax, n: ns.ppermute(x, ax, _shift(n)),
    "ppermute-swap": lambda ns, x, ax, n: ns.ppermute(x, ax, [(0, n - 1), (n - 1, 0)]),
    "all_to_all-tiled": lambda ns, x, ax, n: ns.all_to_all(x, ax, 0, 1, tiled=True),
    "all_to_all": lambda ns, x, ax, n: ns.all_to_all(x.reshape(n, -1), ax, 0, 1),
    "axis_index": lambda ns, x, ax, n: x + ns.axis_index(ax),
    "axis_size": lambda ns, x, ax, n: x * ns.axis_size(ax),
}
# values are compared (compile + run) for these (mesh, collective) pairs
_RUN_43 = {"psum", "pmax", "all_gather-tiled", "psum_scatter-tiled", "ppermute", "all_to_all-tiled",
           "axis_index", "pmean", "psum_scatter", "all_to_all", "all_gather"}


def cases_43():
    cases = []
    for mesh in ("1d", "2d", "3d", "2d_rev"):
        sets = _axis_sets(mesh)
        for si, axes in enumerate(sets):
            n = _n(mesh, axes)
            for ci, (name, f) in enumerate(COLLECTIVES.items()):
                for oi, which in enumerate(("a", "b", "c")):
                    if mesh == "1d" and which == "b":
                        continue
                    if mesh == "2d_rev" and (which == "b" or len(axes) == 1 and axes[0] == "X"):
                        continue
                    dt = "i32" if (si + ci + oi) % 3 == 0 and name != "pmean" else "f32"
                    k = "abc".index(which)
                    body = _stacked(lambda ns, *xs, f=f, k=k, ax=_ax(axes), n=n: f(ns, ns.log(xs[k]), ax, n))
                    run = name in _RUN_43 and (
                        (mesh == "2d_rev" and which == "a" and si in (1, 2)) or
                        (mesh == "3d" and which == "b" and si == 4 and ci % 2 == 0) or
                        (mesh == "2d" and which == "c" and si == 2 and ci % 2 == 1) or
                        (mesh == "1d" and which == "a" and ci % 3 == 0))
                    err = None
                    if which == "b" and len(axes) > 1 and AXES[mesh][0] in axes and \
                            name.startswith(("psum", "pmean")):
                        # b varies over the first axis only: psum/psum_scatter reject mixed states
                        err = (ValueError, f"can only accept axis_name which corresponds to one of varying, "
                                           f"unreduced, reduced or invarying state of the input. Got input "
                                           f"type: {'int32' if dt == 'i32' else 'float32'}[")
                    cases.append(Case(f"43-{mesh}-{name}-{which}-{''.join(axes)}-{dt}", mesh,
                                      _operands(mesh, dt), body, _all(mesh), run=run and not err, error=err))
    # the reference's rows, with the exact shapes (a=f32[4,1]{V:(X,Y)}, c=f32[4,1])
    ref = ("f32[8@X,4@Y]", "f32[4,1]")
    rows = {
        "psum(a,X)": lambda ns, a, c: ns.psum(a, "X"),
        "psum(a,(X,Y))": lambda ns, a, c: ns.psum(a, ("X", "Y")),
        "psum(c,X)": lambda ns, a, c: ns.psum(c, "X"),
        "pmax(a,X)": lambda ns, a, c: ns.pmax(a, "X"),
        "pmean(a,Y)": lambda ns, a, c: ns.pmean(a, "Y"),
        "pmax(c,X)": lambda ns, a, c: ns.pmax(c, "X"),
        "all_gather(a,X)": lambda ns, a, c: ns.all_gather(a, "X"),
        "all_gather(a,X,tiled)": lambda ns, a, c: ns.all_gather(a, "X", tiled=True),
        "pmax(psum(a,X),(X,Y))": lambda ns, a, c: ns.pmax(ns.psum(a, "X"), ("X", "Y")),
        "all_gather(b,(X,Y),reduced)": lambda ns, a, c: ns.pcast(ns.log(ns.all_gather(ns.psum(a, "Y"), ("X", "Y"),
                                                                                      to="reduced")),
                                                                 ("X", "Y"), to="varying"),
        "all_gather(a,Y,invarying)": lambda ns, a, c: ns.all_gather(a, "Y", axis=1, tiled=True, to="invarying"),
        "all_gather(c,(Y,X),invarying)": lambda ns, a, c: ns.all_gather(c, ("Y", "X"), to="invarying"),
        "all_gather(a,(Y,X),tiled)": lambda ns, a, c: ns.all_gather(a, ("Y", "X"), tiled=True),
        "ppermute(a,(Y,X))": lambda ns, a, c: ns.ppermute(a, ("Y", "X"), [(i, (i + 3) % 8) for i in range(8)]),
        "all_to_all(a,(Y,X),1,0)": lambda ns, a, c: ns.all_to_all(ns.all_gather(a, ("X", "Y"), axis=1, tiled=True),
                                                                  ("Y", "X"), 1, 0, tiled=True),
        "all_gather(c,X,tiled)": lambda ns, a, c: ns.all_gather(c, "X", tiled=True),
        "psum_scatter(a,X,tiled)": lambda ns, a, c: ns.psum_scatter(a, "X", tiled=True),
        "psum_scatter(c,X,tiled)": lambda ns, a, c: ns.psum_scatter(c, "X", tiled=True),
        "psum_scatter(u,X,tiled)": lambda ns, a, c: ns.psum_scatter(ns.log(ns.pcast(a, "X", to="unreduced")), "X",
                                                                    tiled=True),
        "ppermute(a,X)": lambda ns, a, c: ns.ppermute(a, "X", [(0, 1), (1, 0)]),
        "ppermute(c,X)": lambda ns, a, c: ns.ppermute(c, "X", [(0, 1), (1, 0)]),
        "all_to_all(a,Y,0,1,tiled)": lambda ns, a, c: ns.all_to_all(a, "Y", 0, 1, tiled=True),
        "axis_index(X)": lambda ns, a, c: ns.axis_index("X"),
        "axis_index((X,Y))": lambda ns, a, c: ns.axis_index(("X", "Y")),
        "axis_index((Y,X))": lambda ns, a, c: ns.axis_index(("Y", "X")),
        "psum(u,X)": lambda ns, a, c: ns.psum(ns.pcast(a, "X", to="unreduced"), "X"),
        "psum(u,(X,Y))": lambda ns, a, c: ns.psum(ns.pcast(a, ("X", "Y"), to="unreduced"), ("X", "Y")),
        "pmean(axis_index)": lambda ns, a, c: ns.pmean(ns.axis_index("X"), "X"),
    }
    for k, (name, f) in enumerate(rows.items()):
        cases.append(Case(f"43-ref-{name}", "2d", ref, _stacked(f), S(("X", "Y")), run=k % 2 == 0))
    # constants: psum of a Python number and axis_size are Python values (`~int32[]`)
    for mesh in ("1d", "3d"):
        for axes in _axis_sets(mesh)[:2]:
            cases.append(Case(f"43-{mesh}-psum(1)-{''.join(axes)}", mesh, _operands(mesh),
                              lambda ns, a, b, c, ax=_ax(axes): ns.log(ns.asarray(ns.log(ns.psum(1, ax)))) * c,
                              S(), run=mesh == "1d"))
            cases.append(Case(f"43-{mesh}-psum(2.5)-{''.join(axes)}", mesh, _operands(mesh),
                              lambda ns, a, b, c, ax=_ax(axes): ns.log(ns.asarray(ns.psum(2.5, ax))) + c, S()))
    # errors
    mixed = "can only accept axis_name which corresponds to one of varying, unreduced, reduced or invarying"
    errs = [
        ("psum-mixed", lambda ns, a, c: ns.psum(ns.psum(a, "Y"), ("X", "Y")), (ValueError, mixed)),
        ("psum_scatter-mixed", lambda ns, a, c: ns.psum_scatter(ns.psum(a, "X"), ("X", "Y"), tiled=True),
         (ValueError, mixed)),
        ("all_gather-reduced-not-varying", lambda ns, a, c: ns.all_gather(ns.psum(a, "X"), "X", to="reduced"),
         (ValueError, "all_gather_reduced is a Varying -> Reduced collective")),
        ("all_gather-to-bad", lambda ns, a, c: ns.all_gather(a, "X", to="unreduced"),
         (ValueError, "Got unexpected `to` value for `")),
        ("all_to_all-untiled-size", lambda ns, a, c: ns.all_to_all(a, "Y", 1, 0),
         (ValueError, "all_to_all requires the size of the mapped axis axis_name to equal x.shape[split_axis], "
                      "but they are 4 and 1 respectively.")),
        ("psum_scatter-untiled-size", lambda ns, a, c: ns.psum_scatter(a, "Y", scatter_dimension=1),
         (ValueError, "reduce_scatter operand scatter dimension size 1 must match shard count 4")),
        ("psum_scatter-tiled-size", lambda ns, a, c: ns.psum_scatter(a, "Y", scatter_dimension=1, tiled=True),
         (ValueError, "tiled reduce_scatter operand scatter dimension size 1 must be divisible by shard_count 4")),
        ("psum-reduced", lambda ns, a, c: ns.psum(ns.pcast(c, "X", to="reduced"), "X"),
         (ValueError, "pvary cannot accept args which are reduced. Got f32[4,1]{R:X} and axes={'X'}")),
        ("pmax-unreduced", lambda ns, a, c: ns.pmax(ns.pcast(a, "X", to="unreduced"), "X"),
         (ValueError, "pvary cannot accept args which are unreduced. Got f32[4,1]{V:Y, U:X} and axes={'X'}")),
        ("all_gather-reduced-invariant", lambda ns, a, c: ns.all_gather(c, "X", to="reduced"),
         (ValueError, "all_gather_reduced only accepts inputs that are varying. Got f32[4,1]")),
        ("all_to_all-indivisible", lambda ns, a, c: ns.all_to_all(a, ("X", "Y"), 0, 1, tiled=True),
         (ValueError, "has to be divisible by the size of the named axis")),
        ("axis_index-unknown-axis", lambda ns, a, c: ns.axis_index("Q"), (NameError, "unbound axis name: Q")),
    ]
    for name, f, err in errs:
        cases.append(Case(f"43e-{name}", "2d", ref, _stacked(f), S(("X", "Y")), error=err))
    # JAX 0.10.2 fails an internal assertion here (in pvary); shardc names the axis
    cases.append(Case("43e-psum-unknown-axis", "2d", ref, _stacked(lambda ns, a, c: ns.psum(a, "Q")), S(("X", "Y")),
                      error=(NameError, "unbound axis name: Q"), quirk=True))
    return cases


@param(cases_43())
def test_collectives(case):
    compare(case)


# =============================================================================================
# §4.4 pcast: every (state, to) pair on single and tuple axes, and its errors
# =============================================================================================
STATES = {
    "invariant": lambda ns, a, c, ax: c,
    "varying": lambda ns, a, c, ax: a,
    "reduced": lambda ns, a, c, ax: ns.pcast(c, ax, to="reduced"),
    "unreduced": lambda ns, a, c, ax: ns.pcast(a, ax, to="unreduced"),
}
PCAST_OK = {("invariant", "varying"), ("invariant", "reduced"), ("varying", "unreduced"), ("reduced", "varying")}
_FROM = {"invariant": "invarying", "varying": "varying", "reduced": "reduced", "unreduced": "unreduced"}


def cases_44():
    cases = []
    for mesh in ("1d", "2d", "3d"):
        for si, axes in enumerate(_axis_sets(mesh)):
            ax = _ax(axes)
            for state, make in STATES.items():
                for to in ("varying", "unreduced", "reduced"):
                    def body(ns, a, b, c, make=make, ax=ax, to=to):
                        ns.log(ns.pcast(ns.log(make(ns, a, c, ax)), ax, to=to))
                        return a
                    err = None if (state, to) in PCAST_OK else \
                        (ValueError, f"Unsupported pcast from={_FROM[state]}, to='{to}'")
                    dt = "i32" if si % 2 else "f32"
                    cases.append(Case(f"44-{mesh}-{state}-to-{to}-{''.join(axes)}-{dt}", mesh, _operands(mesh, dt),
                                      body, _all(mesh), error=err))
    ref = ("f32[8@X,4@Y]", "f32[4,1]")
    rows = {
        "pcast(c,X,varying)": lambda ns, a, c: ns.pcast(c, "X", to="varying"),
        "pcast(c,(X,Y),varying)": lambda ns, a, c: ns.pcast(c, ("X", "Y"), to="varying"),
        "pcast(c,(Y,X),varying)": lambda ns, a, c: ns.pcast(c, ("Y", "X"), to="varying"),
        "pcast(a,X,unreduced)": lambda ns, a, c: ns.pcast(a, "X", to="unreduced"),
        "pcast(c,X,reduced)": lambda ns, a, c: ns.pcast(c, "X", to="reduced"),
        "pcast(pcast(c,X,reduced),X,varying)": lambda ns, a, c: ns.pcast(ns.pcast(c, "X", to="reduced"), "X",
                                                                         to="varying"),
        "psum(pcast(a,X,unreduced),X)": lambda ns, a, c: ns.psum(ns.pcast(a, "X", to="unreduced"), "X"),
        "pcast(a,(),varying)": lambda ns, a, c: ns.pcast(a, (), to="varying"),
        "pcast(psum(a,Y),Y,reduced)": lambda ns, a, c: ns.pcast(ns.psum(a, "Y"), "Y", to="reduced"),
        "pcast(pcast(c,X,reduced),Y,varying)": lambda ns, a, c: ns.pcast(ns.pcast(c, "X", to="reduced"), "Y",
                                                                         to="varying"),
    }
    for k, (name, f) in enumerate(rows.items()):
        def body(ns, a, c, f=f):
            ns.log(f(ns, a, c))
            return ns.expand_dims(ns.pcast(c, ("X", "Y"), to="varying") + a, 0)
        cases.append(Case(f"44-ref-{name}", "2d", ref, body, S(("X", "Y")), run=k in (0, 3, 6)))
    errs = [
        ("to=invarying", lambda ns, a, c: ns.pcast(a, "X", to="invarying"),
         (ValueError, "Got unexpected `to` value. Allowed `to` values are: {")),
        ("set-axes", lambda ns, a, c: ns.pcast(a, {"X"}, to="unreduced"),
         (TypeError, "must be a tuple or a str. Got {'X'}")),
        ("mixed", lambda ns, a, c: ns.pcast(ns.psum(a, "Y"), ("X", "Y"), to="reduced"),
         (ValueError, "pcast can only accept axis_name which corresponds to one of varying, unreduced, reduced "
                      "or invarying state of the input. Got input type: float32[4,1]{V:X}, axes: ('X', 'Y')")),
        ("mixed-u", lambda ns, a, c: ns.pcast(ns.pcast(a, "Y", to="unreduced"), ("Y", "X"), to="reduced"),
         (ValueError, "Got input type: float32[4,1]{V:X, U:Y}, axes: ('Y', 'X') and input state: {")),
        ("reduced-to-reduced", lambda ns, a, c: ns.pcast(ns.pcast(c, "X", to="reduced"), "X", to="reduced"),
         (ValueError, "Unsupported pcast from=reduced, to='reduced'")),
    ]
    for name, f, err in errs:
        cases.append(Case(f"44e-{name}", "2d", ref, _stacked(f), S(("X", "Y")), error=err))
    cases.append(Case("44e-unknown-axis", "2d", ref, _stacked(lambda ns, a, c: ns.pcast(c, "Q", to="varying")),
                      S(("X", "Y")), error=(NameError, "unbound axis name: Q"), quirk=True))
    # check_vma=False: pcast of an untracked value
    cases.append(Case("44-novma-pcast-varying", "2d", ref, _stacked(lambda ns, a, c: ns.pcast(c, "X", to="varying")),
                      S(("X", "Y")), check_vma=False))
    return cases


@param(cases_44())
def test_pcast(case):
    compare(case)


# =============================================================================================
# §4.5 out_specs checks (incl. unreduced / reduced outputs) and check_vma=False
# =============================================================================================
def cases_45():
    ref = ("f32[8@X,4@Y]", "f32[4,1]")
    rep = "out_specs which require replication which can't be statically inferred given the mesh"
    cases = [
        Case("45-varying-P()", "2d", ref, lambda ns, a, c: a, S(),
             error=(ValueError, "out_specs is P() which implies that the corresponding output value is only "
                                "varying across mesh axes {} and not {X,Y}, but it was inferred to be possibly "
                                "varying over {X,Y}")),
        Case("45-varying-P(X)", "2d", ref, lambda ns, a, c: a, S("X"),
             error=(ValueError, "which implies that the corresponding output value is replicated across mesh axis "
                                "'Y', but could not infer replication over any axes")),
        Case("45-3d-varying-P(X)", "3d", ("f32[8@X,4@Y,2@Z]",), lambda ns, a: a, S("X"),
             error=(ValueError, "which implies that the corresponding output value is only varying across mesh "
                                "axes {X} and not {Y,Z}, but it was inferred to be possibly varying over {X,Y,Z}")),
        Case("45-3d-partly-varying-P(X)", "3d", ("f32[8@X,4@Y,2]",), lambda ns, a: a, S("X"),
             error=(ValueError, "only varying across mesh axes {X} and not {Y}, but it was inferred to be "
                                "possibly varying over {X,Y}")),
        Case("45-1d-varying-P()", "1d", ("f32[16@i,4]",), lambda ns, a: a, S(),
             error=(ValueError, "replicated across mesh axis 'i', but could not infer replication over any axes")),
        Case("45-partial-varying-P()", "2d", ("f32[8@X,4@Y]",), lambda ns, a: a, S(), axis_names={"X"},
             error=(ValueError, "only varying across mesh axes {} and not {X}, but it was inferred to be "
                                "possibly varying over {X}")),
        Case("45-scalar-varying", "2d", ref, lambda ns, a, c: ns.sum(a), S(), error=(ValueError, rep)),
        Case("45-two-outputs-one-bad", "2d", ref, lambda ns, a, c: (c, a), (S(), S("X")), error=(ValueError, rep)),
        Case("45-psum(a,Y)-P(X)", "2d", ref, lambda ns, a, c: ns.psum(a, "Y"), S("X"), run=True),
        Case("45-invariant-P(X)", "2d", ref, lambda ns, a, c: c, S("X"), run=True),
        Case("45-invariant-P(X,Y)", "2d", ref, lambda ns, a, c: c * 2, S("X", "Y"), run=True),
        Case("45-invariant-P(None,(Y,X))", "2d", ref, lambda ns, a, c: c + 1, S(None, ("Y", "X")), run=True),
        Case("45-b-P((X,Y))", "2d", ("f32[8@X,4]", "f32[4,1]"), lambda ns, b, c: b + c, S(("X", "Y")), run=True),
        Case("45-b-P(Y,X)", "2d", ("f32[8@X,4]", "f32[4,1]"), lambda ns, b, c: b * c, S("Y", "X"), run=True),
        Case("45-pytree-outputs", "2d", ref, lambda ns, a, c: {"a": a, "c": [c, ns.psum(a, ("X", "Y"))]},
             {"a": S("X", "Y"), "c": [S(), S()]}, run=True),
        Case("45-prefix-out-specs", "2d", ref, lambda ns, a, c: (a, a * 2), S("X", "Y"), run=True),
        # unreduced outputs
        Case("45-unreduced-out", "2d", ref, lambda ns, a, c: ns.pcast(a, "X", to="unreduced"),
             S(None, "Y", u={"X"}), post=lambda ns, u: ns.log(ns.reshard(u, ns.P())), run=True),
        Case("45-unreduced-out-implicit-cast", "2d", ref, lambda ns, a, c: a, S(None, "Y", u={"X"}),
             post=lambda ns, u: ns.reshard(u, ns.P()), run=True),
        Case("45-unreduced-out-both", "2d", ref, lambda ns, a, c: a, S(u={"X", "Y"}),
             post=lambda ns, u: ns.reshard(u, ns.P("Y")), run=True),
        Case("45-unreduced-out-not-varying", "2d", ref, lambda ns, a, c: ns.psum(a, "Y"), S("X", u={"Y"}),
             error=(ValueError, "vary_unreduced_cast is a Varying->Unreduced collective. This means that the axis "
                                "names mentioned in `axes` passed to `vary_unreduced_cast` must be present in")),
        Case("45-unreduced-out-unmentioned", "2d", ref, lambda ns, a, c: ns.pcast(a, "X", to="unreduced"),
             S(None, "Y"), error=(ValueError, rep)),
        Case("45-unreduced-partial", "2d", ("f32[8@X,4@Y]",), lambda ns, a: a, S(u={"X"}), axis_names={"X"},
             error=(NotImplementedError, "unreduced/reduced can only be passed to out_specs when shard_map is in "
                                         "full manual mode")),
        # reduced outputs
        Case("45-reduced-out", "2d", ref, lambda ns, a, c: ns.pcast(c, "X", to="reduced"), S(r={"X"}), run=True),
        Case("45-reduced-out-P()", "2d", ref, lambda ns, a, c: ns.pcast(c, "X", to="reduced"), S(),
             error=(ValueError, rep)),
        Case("45-reduced-out-P(X)", "2d", ref, lambda ns, a, c: ns.pcast(c, "X", to="reduced"), S("X"),
             error=(ValueError, "pvary cannot accept args which are reduced")),
        Case("45-all_gather-reduced-out", "2d", ref, lambda ns, a, c: ns.all_gather(a, "Y", axis=1, tiled=True,
                                                                                    to="reduced"),
             S("X", r={"Y"}), run=True),
        # spec errors
        Case("45-out-spec-too-long", "2d", ref, lambda ns, a, c: ns.sum(c, axis=0), S("X", "Y"),
             error=(ValueError, "out_specs entry which is too long")),
        Case("45-out-spec-non-manual", "2d", ("f32[8@X,4@Y]",), lambda ns, a: a, S("X", "Y"), axis_names={"X"},
             error=(ValueError, "out_specs refers to 'Y'")),
        Case("45-in-spec-too-long", "2d", ("f32[8]",), lambda ns, a: a, S(), in_specs=S(None, "X"),
             error=(ValueError, "in_specs entry which is too long")),
        Case("45-in-spec-unreduced-partial", "2d", ("f32[8,4@Y]{R:X}",), lambda ns, a: a, S(None, "Y"),
             axis_names={"Y"},
             error=(NotImplementedError, "unreduced/reduced can only be passed to in_specs when shard_map is in "
                                         "full manual mode")),
        Case("45-axis-names-not-in-mesh", "2d", ref, lambda ns, a, c: c, S(), axis_names={"X", "Q"},
             error=(ValueError, "to be a subset of")),
        # check_vma=False: nothing is checked; a P() out_spec returns the first shard
        Case("45-novma-varying-P()", "2d", ref, lambda ns, a, c: a + c, S(), check_vma=False, run=True),
        Case("45-novma-varying-P(X)", "2d", ref, lambda ns, a, c: a * 2, S("X"), check_vma=False, run=True),
        Case("45-novma-psum", "2d", ref, lambda ns, a, c: ns.psum(a, "Y") + ns.psum(c, "X"), S("X"),
             check_vma=False, run=True),
        Case("45-novma-collectives", "3d", ("f32[16@(X,Y,Z),8]",),
             lambda ns, a: (ns.log(ns.all_gather(a, "X", tiled=True)), ns.log(ns.ppermute(a, "Y", [(0, 1), (1, 0)])),
                            ns.log(ns.psum_scatter(a, "Z", scatter_dimension=1, tiled=True)),
                            ns.log(ns.all_to_all(a, ("X", "Y"), 1, 0, tiled=True)), ns.axis_index("Z") + a),
             S(("X", "Y", "Z")), check_vma=False, run=True),
        Case("45-novma-unreduced-out", "2d", ref, lambda ns, a, c: a, S(u={"X", "Y"}), check_vma=False),
    ]
    # matmul_unreduced (JAX test `matmul_unreduced`): a local matmul returned unreduced over y
    mm = Case("45-matmul_unreduced", "2d", ("f32[8@X,16@Y]", "f32[16@Y,8]"),
              lambda ns, x, w: ns.log(x @ w), S("X", None, u={"Y"}),
              post=lambda ns, u: (ns.log(u), ns.reshard(u, ns.P("X")))[1], run=True)
    mm_int = Case("45-matmul_unreduced-i32", "3d", ("i32[8@X,16@(Y,Z)]", "i32[16@(Y,Z),8]"),
                  lambda ns, x, w: ns.log(ns.matmul(x, w)), S("X", None, u={"Y", "Z"}),
                  post=lambda ns, u: ns.reshard(u, ns.P(None, "Y")), run=True)
    return cases + [mm, mm_int]


@param(cases_45())
def test_out_specs(case):
    compare(case)


# =============================================================================================
# The seeds (001: typeof inside shard_map, partial manual, unreduced; 002: Megatron via shard_map),
# Auto meshes, eager shard_map, partial-manual collectives
# =============================================================================================
def _colwise(ns, x, w):
    ns.log(x)
    ns.log(w)
    x = ns.log(ns.pcast(x, "tp", to="varying"))
    return ns.log(ns.einsum("sbi,io->sbo", x, w))


def _megatron(ns, x, w1, w2):
    h = ns.log(ns.relu(ns.log(ns.einsum("sbi,io->sbo", x, w1))))
    return ns.psum(ns.log(ns.einsum("sbo,oi->sbi", h, w2)), "tp")


def cases_seeds():
    return [
        # seed 001: typeof inside shard_map
        Case("seed001-typeof", "i2", ("f32[8@i]",), _ident, S("i"), run=True),
        # seed 001: unreduced in shard_map, then psum
        Case("seed001-unreduced-psum", "i2", ("f32[8@i]",),
             lambda ns, x: ns.psum(ns.log(ns.pcast(x, "i", to="unreduced")), "i"), S(None), run=True),
        # seed 001 footnote: mixed Manual and Explicit mode
        Case("seed001-partial-manual", "ij", ("f32[4@i,4@j]",), _ident, S("i", None), axis_names={"i"}, run=True),
        # seed 002: column-parallel linear, the pcast written out
        Case("seed002-colwise", "tp", ("f32[4,2,8]", "f32[8,16@tp]"), _colwise, S(None, None, "tp"),
             in_specs=(S(None, None, None), S(None, "tp")), run=True),
        # ... and with the pcast left implicit
        Case("seed002-colwise-implicit", "tp", ("f32[4,2,8]", "f32[8,16@tp]"),
             lambda ns, x, w: ns.log(ns.einsum("sbi,io->sbo", x, w)), S(None, None, "tp"), run=True),
        # seed 002 on an Auto mesh (as written there: in_specs given, arguments unsharded)
        Case("seed002-colwise-auto", "tp_auto", ("f32[4,2,8]", "f32[8,16]"), _colwise, S(None, None, "tp"),
             in_specs=(S(None, None, None), S(None, "tp")), run=True),
        Case("seed002-auto-infer", "tp_auto", ("f32[4,2,8]", "f32[8,16]"), _colwise, S(None, None, "tp"),
             error=(TypeError, "in_specs argument must be a pytree of")),
        # the Megatron MLP: column- then row-parallel, one all-reduce
        Case("seed002-megatron-mlp", "tp", ("f32[4,2,8]", "f32[8,16@tp]", "f32[16@tp,8]"), _megatron, S(),
             run=True),
        Case("seed002-megatron-mlp-auto", "tp_auto", ("f32[4,2,8]", "f32[8,16]", "f32[16,8]"), _megatron, S(),
             in_specs=(S(), S(None, "tp"), S("tp")), run=True),
        Case("seed002-megatron-mlp-2d", "2d", ("f32[4,2,8@X]", "f32[8@X,16@Y]", "f32[16@Y,8@X]"),
             lambda ns, x, w1, w2: ns.psum(ns.einsum("sbo,oi->sbi", ns.relu(
                 ns.psum(ns.einsum("sbi,io->sbo", x, w1), "X")), w2), "Y"), S(None, None, "X"), run=True),
        # Auto mesh: the varying axes are tracked the same way
        Case("auto-2d-collectives", "2d_auto", ("f32[8,4]", "f32[4,1]"),
             lambda ns, a, c: (ns.log(a + c), ns.log(ns.psum(a, "Y")), ns.log(ns.all_gather(c, "X", tiled=True))),
             (S("X", "Y"), S("X"), S("X")), in_specs=(S("X", "Y"), S()), run=True),
        Case("auto-2d-out-specs-check", "2d_auto", ("f32[8,4]",), lambda ns, a: a, S("X"), in_specs=S("X", "Y"),
             error=(ValueError, "replicated across mesh axis 'Y', but could not infer replication over any axes")),
        Case("auto-2d-partial", "2d_auto", ("f32[8,4]",), lambda ns, a: ns.log(ns.psum(a, "X")) * 2, S(),
             in_specs=S("X"), axis_names={"X"}, run=True),
        # eager shard_map (no jit around it): same types and values
        Case("eager-psum", "2d", ("f32[8@X,4@Y]",), lambda ns, a: ns.psum(a, "Y"), S("X"), eager=True, run=True),
        Case("eager-collectives", "3d", ("i32[16@(X,Y,Z),8]", "i32[4,8]"),
             lambda ns, a, c: (ns.all_gather(a, ("Z", "X"), tiled=True), ns.ppermute(c, "Y", [(0, 1), (1, 0)]),
                               ns.axis_index(("X", "Z")) + c),
             (S(("X", "Y", "Z")), S("Y"), S(("X", "Z"))), eager=True, run=True),
        Case("eager-error", "2d", ("f32[8@X,4@Y]",), lambda ns, a: a, S(), eager=True, run=True,
             error=(ValueError, "out_specs which require replication")),
        Case("eager-partial", "2d", ("f32[8@X,4@Y]",), lambda ns, a: ns.log(a.T).T + 1, S("X"), axis_names={"X"},
             eager=True, run=True),
        # partial manual: collectives over the manual axes of values sharded on free axes
        Case("partial-all_gather", "2d", ("f32[8@X,8@Y]",), lambda ns, a: ns.all_gather(a, "X", tiled=True),
             S("X"), axis_names={"X"}, run=True),
        Case("partial-all_gather-stacked", "2d", ("f32[8@X,8@Y]",), lambda ns, a: ns.log(ns.all_gather(a, "X")),
             S("X"), axis_names={"X"}, run=True),
        Case("partial-all_gather-stacked-last", "2d", ("f32[8@X,8@Y]",),
             lambda ns, a: ns.log(ns.all_gather(a, "X", axis=2)), S("X"), axis_names={"X"}, run=True),
        Case("partial-all_gather-invarying", "2d", ("f32[8@X,8@Y]",),
             lambda ns, a: ns.log(ns.all_gather(a, "X", axis=1, tiled=True, to="invarying")), S(),
             axis_names={"X"}, run=True),
        Case("partial-ppermute-axis_index", "3d", ("f32[8@X,4@Y,2@Z]",),
             lambda ns, a: ns.ppermute(a, ("Z", "X"), _shift(4)) * ns.axis_index(("Z", "X")),
             S("X", None, "Z"), axis_names={"X", "Z"}, run=True),
        # (JAX 0.10.2 fails an internal assertion lowering this one: types only)
        Case("partial-psum_scatter", "2d", ("f32[8@X,8@Y]",),
             lambda ns, a: ns.log(ns.psum_scatter(a, "X", scatter_dimension=0, tiled=True)), S("X"),
             axis_names={"X"}),
        Case("partial-psum_scatter-unsharded", "2d", ("f32[8@X,8]",),
             lambda ns, a: ns.log(ns.psum_scatter(a, "X", scatter_dimension=1, tiled=True)), S("X"),
             axis_names={"X"}, run=True),
        Case("partial-all_to_all", "2d", ("f32[8@X,8@Y]",),
             lambda ns, a: ns.log(ns.all_to_all(a, "X", 0, 1, tiled=True)), S("X"), axis_names={"X"}, run=True),
        Case("partial-axis_size-free-axis", "2d", ("f32[8@X,8@Y]",), lambda ns, a: a * ns.axis_size("Y"), S("X"),
             axis_names={"X"}, error=(NameError, "unbound axis name: Y")),
    ]


@param(cases_seeds())
def test_seeds_and_modes(case):
    compare(case)


# =============================================================================================
# Closures and programs JAX cannot compile
# =============================================================================================
CLOSURES = {
    # closing over a value of the enclosing program: sharded, replicated, or made in the program
    "sharded": lambda ns, x, y: y,
    "replicated": lambda ns, x, y: ns.reshard(y, ns.P()),
    "made-in-program": lambda ns, x, y: ns.ones((4, 1)),
}


@pytest.mark.parametrize("what", list(CLOSURES))
def test_closure_over_program_values(what):
    """A body may not close over the enclosing program's values on an Explicit
    mesh: JAX and shardc both raise NotImplementedError ("Closing over ...")."""
    m, jm = meshes("2d")
    x, y = np.ones((8, 4), np.float32), np.ones((8, 4), np.float32)
    errors = {}
    for ns, put, ctx in ((JAX, lambda v, s: jax.device_put(v, jax.NamedSharding(jm, s.to(jax.P))), jax.set_mesh(jm)),
                         (SC, lambda v, s: sc.device_put(v, s.to(sc.P)), sc.set_mesh(m))):
        with ctx:
            def prog(a, b):
                c = CLOSURES[what](ns, a, b)
                return ns.shard_map(lambda v: v + c[:4, :1], out_specs=ns.P("X", "Y"))(a)
            try:
                ns.jit(prog).trace(put(x, S("X", "Y")), put(y, S("X")))
            except Exception as e:  # noqa: BLE001
                errors[ns.name] = e
    assert isinstance(errors.get("jax"), NotImplementedError), errors
    assert isinstance(errors.get("shardc"), sc.ShardcError) and isinstance(errors["shardc"], NotImplementedError)
    assert "Closing over inputs to shard_map" in str(errors["shardc"])


def test_closure_over_constants_is_fine():
    """NumPy constants and Python numbers are not mesh values: both accept them."""
    c = np.arange(4, dtype=np.float32).reshape(4, 1)
    case = Case("closure-numpy", "2d", ("f32[8@X,4@Y]",), lambda ns, a: ns.log(a + c) * 2.5, S("X", "Y"), run=True)
    compare(case)


def test_unreduced_over_free_axis_is_refused_not_crashed():
    """A value unreduced over a free axis inside a partial-manual body: the types
    agree with JAX, but XLA aborts the process compiling it (JAX 0.10.2 included),
    so shardc refuses to lower it with a ShardcNotImplementedError."""
    case = Case("free-unreduced", "2d", ("f32[8@X,4@Y]", "f32[4@Y,8]"),
                lambda ns, x, w: ns.reshard(ns.log(ns.matmul(x, w, out_sharding=ns.P(None, None, unreduced={"Y"}))),
                                            ns.P()), S("X"), axis_names={"X"})
    j, s = compare(case, run=False)
    assert s.body_log[2] == "float32[4,8]{V:X, U:Y}"
    m, _ = meshes("2d")
    with sc.set_mesh(m):
        prog = sc.jit(lambda x, w: sc.shard_map(lambda x, w: sc.reshard(
            sc.matmul(x, w, out_sharding=sc.P(None, None, unreduced={"Y"})), sc.P()),
            out_specs=sc.P("X"), axis_names={"X"})(x, w))
        with pytest.raises(sc.ShardcNotImplementedError, match="unreduced over the free"):
            prog.lower("f32[8@X,4@Y]", "f32[4@Y,8]")


# =============================================================================================
# examples/megatron_shardmap.py: its collectives (and values) are JAX's for the same program
# =============================================================================================
def _jax_megatron(kind: str):
    P, lax = jax.P, jax.lax

    def block(x, w1, w2):
        h = jax.nn.relu(lax.pcast(x, "Y", to="varying") @ w1)
        return h @ w2

    out = {"mlp": P(), "mlp_data_parallel": P("X"), "mlp_sequence_parallel": P("Y")}[kind]
    reduce = (lambda v: lax.psum_scatter(v, "Y", tiled=True)) if kind == "mlp_sequence_parallel" else \
        (lambda v: lax.psum(v, "Y"))
    return jax.jit(lambda x, w1, w2: jax.shard_map(lambda x, w1, w2: reduce(block(x, w1, w2)), out_specs=out)(
        x, w1, w2))


MEGATRON_PROGRAMS = ("mlp", "mlp_data_parallel", "mlp_sequence_parallel")


@pytest.mark.parametrize("name", MEGATRON_PROGRAMS)
def test_megatron_shardmap_example_matches_jax(name):
    from shardc.cli.loading import load_script

    script = load_script(Path(__file__).resolve().parent.parent / "examples" / "megatron_shardmap.py", echo=False)
    prog = next(p for p in script.programs if p.name == name)
    assert [p.name for p in script.programs] == list(MEGATRON_PROGRAMS)
    types = [parse_arg(t) for t in prog.types]
    data = [data_for(t, k) for k, t in enumerate(types)]

    def run_sc():
        args = [sc.device_put(d, sc.P(*t.spec)) for d, t in zip(data, types)]
        compiled = prog.jit.lower(*args).compile()
        return compiled.collectives(), compiled(*args), str(prog.jit.trace(*args).out_types)

    cols, out, out_type = script.call(run_sc)
    m = script.mesh
    jm = jax.make_mesh(m.axis_sizes, m.axis_names, devices=list(m.devices.flat))
    with jax.set_mesh(jm):
        jargs = [jax.device_put(d, jax.P(*t.spec)) for d, t in zip(data, types)]
        jf = _jax_megatron(name)
        jcompiled = jf.lower(*jargs).compile()
        jout = jcompiled(*jargs)
        assert out_type == str(jax.typeof(jout))
    assert Counter(c.kind for c in cols) == jax_collectives(jcompiled.as_text())
    expect = {"mlp": {"all-reduce": 1}, "mlp_data_parallel": {"all-reduce": 1},
              "mlp_sequence_parallel": {"reduce-scatter": 1}}[name]
    assert dict(Counter(c.kind for c in cols)) == expect
    assert all(c.axes == ("Y",) for c in cols)
    np.testing.assert_allclose(np.asarray(out), np.asarray(jout), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("which", ["same", "other"])
def test_explicit_mesh_argument(which):
    """`mesh=` may repeat the context mesh; a different one is an error in both."""
    errors, types = {}, {}
    for ns in (JAX, SC):
        m, jm = meshes("2d")
        other = meshes("3d")[ns is JAX]
        ctx_mesh = jm if ns is JAX else m
        arg = m if ns is SC else jm
        with (jax.set_mesh(jm) if ns is JAX else sc.set_mesh(m)):
            f = ns.shard_map(lambda x: ns.psum(x, "Y"), mesh=arg if which == "same" else other,
                             out_specs=ns.P("X"))
            x = "f32[8@X,4@Y]" if ns is SC else jax.ShapeDtypeStruct(
                (8, 4), np.float32, sharding=jax.NamedSharding(ctx_mesh, jax.P("X", "Y")))
            try:
                tr = ns.jit(f).trace(x)
                types[ns.name] = str(tr.program.out_types[0] if ns is SC else tr.jaxpr.out_avals[0])
            except Exception as e:  # noqa: BLE001
                errors[ns.name] = e
    if which == "same":
        assert not errors and types["jax"] == types["shardc"] == "float32[8@X,1]", (errors, types)
    else:
        assert isinstance(errors["jax"], ValueError) and isinstance(errors["shardc"], sc.ShardcValueError)
        assert "should match the mesh passed to" in str(errors["jax"])
        assert "should match the mesh passed to" in str(errors["shardc"])
