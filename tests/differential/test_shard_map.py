"""Differential tests of manual mode (`sc.shard_map`) against JAX 0.10.2
(`jax.shard_map`), JAX rules §4.1, §4.2 and §4.5: types inside the body,
partial manual mode, in_specs / out_specs checks, the elementwise VMA rule,
the seeds, Auto meshes and eager shard_map. Collectives and pcast (§4.3,
§4.4) are in test_collectives.py.

Every case runs in both through the oracle (tests/oracle): big tables are
compared by tracing only (types inside and out, accept/reject); `run=True`
cases also compile and run both sides and compare values and the
collectives in the partitioned HLO.
"""
from __future__ import annotations

from pathlib import Path

import jax
import numpy as np
import pytest
from oracle import (
    Case,
    S,
    check,
    data_for,
    hlo_collectives,
    mesh_pair,
    param,
    parse_type,
    reported_collectives,
    smap_case,
    type_str,
)
from oracle.shard_map import axes_of, ident, operands, rest_axes, shift, stacked, tile_all

import shardc as sc

# =============================================================================================
# §4.1 types inside shard_map: local shapes, V from in_specs, inferred / given in_specs
# =============================================================================================
SPECS_41 = {
    "1d_i": [((16, 8), ()), ((16, 8), ("i",)), ((16, 8), (None, "i")), ((8,), ("i",)), ((4, 2, 8), (None, None, "i"))],
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
                arg = type_str(dt, shape, spec)
                run = (dt == "f32") == (k % 2 == 0) and (mesh != "3d" or k < 3)
                cases.append(smap_case(f"41-{mesh}-{arg}-inferred", mesh, (arg,), ident, S(*spec), run=run))
                cases.append(smap_case(f"41-{mesh}-{arg}-given", mesh, (arg,),
                                  lambda ns, x: x * 2 + 1, S(*spec), in_specs=S(*spec)))
                cases.append(smap_case(f"41-{mesh}-{arg}-novma", mesh, (arg,), ident, S(*spec), check_vma=False))
    # several arguments, a pytree of in_specs
    cases.append(smap_case("41-2d-two-args", "2d", ("f32[8@X,4@Y]", "f32[4,1]"), lambda ns, a, c: (a, c),
                      (S("X", "Y"), S()), in_specs=(S("X", "Y"), S()), run=True))
    cases.append(smap_case("41-2d-two-args-one-spec", "2d", ("f32[8@X,4]", "f32[8@X,2]"), lambda ns, a, c: (a, c),
                      S("X"), in_specs=S("X")))
    # reduced / unreduced arguments
    cases.append(smap_case("41-2d-reduced-arg", "2d", ("f32[8,4]{R:X}",), ident, S(None, None, r={"X"}),
                      in_specs=S(None, None, r={"X"})))
    cases.append(smap_case("41-2d-reduced-arg-inferred", "2d", ("f32[8,4]{R:X}",),
                      lambda ns, x: ns.note(ns.pcast(x, "X", to="varying")), S("X")))
    cases.append(smap_case("41-2d-reduced-arg-sharded", "2d", ("f32[8,4@Y]{R:X}",),
                      lambda ns, x: ns.psum(ns.pcast(x, "X", to="varying"), "X"), S(None, "Y")))
    cases.append(smap_case("41-2d-unreduced-arg", "2d", ("f32[8,16]{U:X}",), lambda ns, x: ns.psum(x, "X"), S(),
                      in_specs=S(u={"X"})))
    cases.append(smap_case("41-2d-unreduced-arg-inferred", "2d", ("f32[8,16]{U:X}",), lambda ns, x: ns.psum(x, "X"),
                      S()))
    return cases


@param(cases_41())
def test_inside_types(case):
    check(case)


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
    ("1d_i", "f32[16@i,4]", {"i"}, S("i")),
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
        cases.append(smap_case(f"41p-{tag}-ident", mesh, (arg,), ident, out, axis_names=names, run=k % 3 == 0,
                          error=err))
        # elementwise ops and reductions follow the Explicit rules on the free axes
        cases.append(smap_case(f"41p-{tag}-ops", mesh, (arg,),
                          lambda ns, x: ns.note(ns.sin(x) * 2 + x) + ns.note(ns.sum(x, axis=0, keepdims=True)),
                          out, axis_names=names, run=k % 3 == 1 and not err, error=err))
        cases.append(smap_case(f"41p-{tag}-novma", mesh, (arg,), ident, out, axis_names=names, check_vma=False,
                          error=err))
    # Explicit rules inside a partial-manual body
    x24 = "f32[8@X,4@Y]"
    cases += [
        smap_case("41p-2d-transpose", "2d", (x24,), lambda ns, x: ns.note(x.T).T, S("X"), axis_names={"X"}),
        smap_case("41p-2d-reduce-explicit-dim", "2d", (x24,), lambda ns, x: ns.note(ns.sum(x, axis=1)), S("X"),
             axis_names={"X"}, run=True),
        smap_case("41p-2d-dot-free-axis", "2d", (x24, "f32[4@Y,8]"),
             lambda ns, x, w: ns.matmul(x, w, out_sharding=ns.P(None, None)), S("X"), axis_names={"X"},
             run=True),
        smap_case("41p-2d-dot-ambiguous", "2d", (x24, "f32[4@Y,8]"), lambda ns, x, w: ns.matmul(x, w), S("X"),
             axis_names={"X"}, error=("ShardingTypeError", "Contracting dimensions are sharded and it is ambiguous")),
        smap_case("41p-2d-add-conflict", "2d", (x24, "f32[8@X,4]"), lambda ns, x, y: ns.note(x + y), S("X"),
             axis_names={"X"}),
        smap_case("41p-2d-add-illegal", "2d", ("f32[8@X,4@Y]", "f32[8@(X,Y),4]"), lambda ns, x, y: x.T + y.T,
             S(None, "X"), axis_names={"X"}, error=("ShardingTypeError", "produces an illegally sharded result")),
        smap_case("41p-2d-reshard-inside", "2d", (x24,), lambda ns, x: ns.note(ns.reshard(x, ns.P("Y"))), S("X"),
             axis_names={"X"}, run=True),
        smap_case("41p-2d-reshard-manual-axis", "2d", (x24,), lambda ns, x: ns.reshard(x, ns.P("X")), S("X"),
             axis_names={"X"}, error=(ValueError, "X")),
        smap_case("41p-2d-psum-then-explicit", "2d", (x24,), lambda ns, x: ns.note(ns.psum(x, "X")) * 2, S(),
             axis_names={"X"}, run=True),
        smap_case("41p-2d-psum-explicit-axis", "2d", (x24,), lambda ns, x: ns.psum(x, "Y"), S("X"), axis_names={"X"},
             error=(NameError, "Found an unbound axis name: Y")),
        smap_case("41p-2d-axis-index-explicit-axis", "2d", (x24,), lambda ns, x: x + ns.axis_index("Y"), S("X"),
             axis_names={"X"}, error=(NameError, "unbound axis name: Y")),
        smap_case("41p-2d-all-gather-explicit-axis", "2d", (x24,), lambda ns, x: ns.all_gather(x, "Y"), S("X"),
             axis_names={"X"}, error=(NameError, "unbound axis name: Y")),
        smap_case("41p-3d-psum-two-manual", "3d", ("f32[8@X,4@Y,2@Z]",), lambda ns, x: ns.psum(x, ("X", "Z")),
             S(), axis_names={"X", "Z"}, run=True),
    ]
    return cases


@param(cases_partial())
def test_partial_manual(case):
    check(case)


# --- in_specs: inference, mismatch errors, manual-only axes, closures -----------------------------------
def cases_in_specs():
    mism = "does not match the specs of the input"
    return [
        smap_case("41e-mismatch", "2d", ("f32[8@X,4]",), ident, S("X", "Y"), in_specs=S("X", "Y"),
             error=(ValueError, mism)),
        smap_case("41e-mismatch-replicated", "2d", ("f32[8,4]",), ident, S("X"), in_specs=S("X"),
             error=(ValueError, mism)),
        smap_case("41e-mismatch-order", "2d", ("f32[8@(X,Y),4]",), ident, S(("Y", "X")), in_specs=S(("Y", "X")),
             error=(ValueError, mism)),
        smap_case("41e-mismatch-second-arg", "3d", ("f32[8@X,4]", "f32[8@Z,4]"), lambda ns, a, b: a, S("X"),
             in_specs=(S("X"), S("X")), error=(ValueError, mism)),
        smap_case("41e-mismatch-reduced", "2d", ("f32[8,4]{R:X}",), ident, S(), in_specs=S(),
             error=(ValueError, mism)),
        smap_case("41e-mismatch-1d", "1d_i", ("i32[16@i]",), ident, S(), in_specs=S(), error=(ValueError, mism)),
        smap_case("41e-numpy-arg", "2d", ("f32[8,4]",), ident, S("X"), in_specs=S("X"), numpy_args=True, run=True,
             error=(ValueError, mism)),
        smap_case("41e-numpy-arg-replicated", "2d", ("f32[8,4]",), lambda ns, x: x + 1, S(), in_specs=S(),
             numpy_args=True, run=True),
        smap_case("41e-numpy-arg-inferred", "2d", ("i32[8,4]",), lambda ns, x: ns.note(x * ns.axis_index("Y")),
             S(None, "Y"), numpy_args=True, run=True),
        smap_case("41e-non-manual-axis", "2d", ("f32[8@X,4@Y]",), ident, S("X"), in_specs=S("X", "Y"),
             axis_names={"X"}, error=(ValueError, "in_specs refers to 'Y'")),
        smap_case("41e-non-manual-axis-3d", "3d", ("f32[8@X,4@Y]",), ident, S("X"), in_specs=S("X", "Y"),
             axis_names={"X", "Z"}, error=(ValueError, "in_specs refers to 'Y'")),
        smap_case("41e-partial-given-ok", "2d", ("f32[8@X,4@Y]",), ident, S("X"), in_specs=S("X"),
             axis_names={"X"}, run=True),
        smap_case("41e-too-many-specs", "2d", ("f32[8@X,4]",), ident, S("X"), in_specs=(S("X"), S()),
             error=(ValueError, "in_specs")),
        smap_case("41e-indivisible", "2d", ("f32[6,4]",), ident, S("Y"), in_specs=S("Y"),
             error=(ValueError, "with axis sizes that are not evenly divisible by the corresponding mesh axis sizes")),
        smap_case("41e-indivisible-tuple", "3d", ("f32[2,4]",), ident, S(("X", "Y")), in_specs=S(("X", "Y")),
             error=(ValueError, "which maps array axis 0 (of size 2) to mesh axes ('X', 'Y') (of total size 4)")),
        # partial manual: given in_specs are not checked against the argument (XLA reshards)
        smap_case("41e-partial-given-P()", "2d", ("f32[8@X,4@Y]",), lambda ns, x: ns.note(x * 2), S(), in_specs=S(),
             axis_names={"X"}, run=True),
        smap_case("41e-partial-given-replicated", "2d", ("f32[8,4@Y]",), lambda ns, x: x - 1, S("X"), in_specs=S("X"),
             axis_names={"X"}, run=True),
        smap_case("41e-partial-given-free-indivisible", "2d", ("f32[8@X,4@Y]",), ident, S(None, "X"),
             in_specs=S(None, "X"), axis_names={"X"},
             error=(ValueError, "Sharding spec ('Y',) implies that array axis 1 is partitioned 4 times, but does "
                                "not evenly divide the dimension size 2")),
        smap_case("41e-partial-unreduced-arg", "2d", ("f32[8,4@Y]{U:X}",), ident, S(None, "Y"), axis_names={"Y"},
             error=(NotImplementedError, "unreduced/reduced can only be passed to in_specs when shard_map is in "
                                         "full manual mode")),
        smap_case("41e-axis-names-empty-means-all", "2d", ("f32[8@X,4@Y]",), ident, S("X", "Y"), axis_names=set()),
    ]


@param(cases_in_specs())
def test_in_specs(case):
    check(case)


# =============================================================================================
# operands used by §4.2–§4.4: a (varying on every axis), b (varying on the first axis),
# c (invariant); each local [8,8]
# =============================================================================================


# =============================================================================================
# §4.2 elementwise VMA rule and implicit pcast insertion
# =============================================================================================


ELEMENTWISE = {
    "c*2": lambda ns, m, a, b, c: c * 2,
    "a+c": lambda ns, m, a, b, c: a + c,
    "c+a": lambda ns, m, a, b, c: c + a,
    "b+c": lambda ns, m, a, b, c: b + c,
    "a+b": lambda ns, m, a, b, c: a + b,
    "a*b-c": lambda ns, m, a, b, c: a * b - c,
    "c+axis_index": lambda ns, m, a, b, c: c + ns.axis_index(axes_of(m)[0]),
    "c+axis_index-last": lambda ns, m, a, b, c: c * ns.axis_index(axes_of(m)[-1]),
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
    "psum(a,rest)+c": lambda ns, m, a, b, c: ns.psum(a, rest_axes(m)) + c,
    "reduced(c,first)+psum(a,rest)": lambda ns, m, a, b, c:
        ns.pcast(c, axes_of(m)[0], to="reduced") + ns.psum(a, rest_axes(m)),
    "psum(a,rest)*reduced(c,first)": lambda ns, m, a, b, c:
        ns.psum(a, rest_axes(m)) * ns.pcast(c, axes_of(m)[0], to="reduced"),
}
ELEMENTWISE_ERRORS = {
    "reduced(c)+a": (lambda ns, m, a, b, c: ns.pcast(c, axes_of(m)[0], to="reduced") + a,
                     (ValueError, "pvary cannot accept args which are reduced. Got f32[8,8]{R:")),
    "reduced(c)+c": (lambda ns, m, a, b, c: ns.pcast(c, axes_of(m)[0], to="reduced") + c,
                     ("ShardingTypeError", "Inputs cannot be replicated on the same axes that another input "
                                           "is reduced on")),
    "c+reduced(c)": (lambda ns, m, a, b, c: c + ns.pcast(c, axes_of(m)[0], to="reduced"),
                     ("ShardingTypeError", "Inputs cannot be replicated on the same axes that another input "
                                           "is reduced on")),
    "unreduced(a)+a": (lambda ns, m, a, b, c: ns.pcast(a, axes_of(m)[0], to="unreduced") + a,
                       (ValueError, "pvary cannot accept args which are unreduced. Got f32[8,8]{")),
    "unreduced(a)+c": (lambda ns, m, a, b, c: ns.pcast(a, axes_of(m)[0], to="unreduced") + c,
                       ("ShardingTypeError", "lhs is unreduced while rhs is not")),
    "c*unreduced(a)": (lambda ns, m, a, b, c: c * ns.pcast(a, axes_of(m)[0], to="unreduced"),
                       ("ShardingTypeError", "LHS should be reduced along the same axes RHS is unreduced on")),
}


def cases_42():
    cases = []
    for mesh in ("1d_i", "2d", "3d", "2d_rev"):
        for k, (name, f) in enumerate(ELEMENTWISE.items()):
            if mesh == "1d_i" and "first" in name:
                continue  # the first axis is the only one: psum(a, rest) is invariant there
            for dt in ("f32", "i32"):
                if dt == "i32" and name in ("sin(c)", "c+1.5"):
                    continue
                run = (mesh in ("2d", "2d_rev") and dt == "f32" and k % 3 == 0) or \
                      (mesh == "3d" and dt == "i32" and k % 4 == 1)
                body = stacked(lambda ns, a, b, c, f=f, mesh=mesh: f(ns, mesh, a, b, c))
                cases.append(smap_case(f"42-{mesh}-{dt}-{name}", mesh, operands(mesh, dt), body, tile_all(mesh), run=run))
        if mesh == "2d_rev":
            continue
        for name, (f, err) in ELEMENTWISE_ERRORS.items():
            if mesh == "1d_i" and name == "unreduced(a)+a":
                err = (ValueError, "pvary cannot accept args which are unreduced. Got f32[8,8]{U:i}")
            if mesh == "1d_i" and name == "reduced(c)+a":
                err = None  # R:i + V:i: a reduced_vary_cast makes it varying
            body = stacked(lambda ns, a, b, c, f=f, mesh=mesh: f(ns, mesh, a, b, c))
            cases.append(smap_case(f"42e-{mesh}-{name}", mesh, operands(mesh), body, tile_all(mesh), error=err))
    # the reference's exact rows (mesh X=2,Y=4; a=f32[4,1]{V:(X,Y)}, c=f32[4,1])
    ref = ("f32[8@X,4@Y]", "f32[4,1]")
    rows = {
        "c*2": lambda ns, a, c: c * 2,
        "a+c": lambda ns, a, c: a + c,
        "c+axis_index": lambda ns, a, c: c + ns.axis_index("X"),
        "pcast-reduced+psum": lambda ns, a, c: ns.pcast(c, "X", to="reduced") + ns.psum(a, "Y"),
    }
    for name, f in rows.items():
        cases.append(smap_case(f"42-ref-{name}", "2d", ref, stacked(f), S(("X", "Y")), in_specs=(S("X", "Y"), S()),
                          run=True))
    cases.append(smap_case("42-ref-u+a", "2d", ref, stacked(lambda ns, a, c: ns.pcast(a, "X", to="unreduced") + a),
                      S(("X", "Y")), error=(ValueError, "pvary cannot accept args which are unreduced. "
                                                        "Got f32[4,1]{V:Y, U:X} and axes={'X'}")))
    # check_vma=False: no V anywhere, mixing is fine
    for name in ("a+c", "a*b-c", "c+axis_index", "a.T@c"):
        f = ELEMENTWISE[name]
        for mesh in ("2d", "3d"):
            cases.append(smap_case(f"42-novma-{mesh}-{name}", mesh, operands(mesh),
                              stacked(lambda ns, a, b, c, f=f, mesh=mesh: f(ns, mesh, a, b, c)), tile_all(mesh),
                              check_vma=False, run=mesh == "2d"))
    return cases


@param(cases_42())
def test_elementwise_vma(case):
    check(case)


# =============================================================================================
# §4.5 out_specs checks (incl. unreduced / reduced outputs) and check_vma=False
# =============================================================================================
def cases_45():
    ref = ("f32[8@X,4@Y]", "f32[4,1]")
    rep = "out_specs which require replication which can't be statically inferred given the mesh"
    cases = [
        smap_case("45-varying-P()", "2d", ref, lambda ns, a, c: a, S(),
             error=(ValueError, "out_specs is P() which implies that the corresponding output value is only "
                                "varying across mesh axes {} and not {X,Y}, but it was inferred to be possibly "
                                "varying over {X,Y}")),
        smap_case("45-varying-P(X)", "2d", ref, lambda ns, a, c: a, S("X"),
             error=(ValueError, "which implies that the corresponding output value is replicated across mesh axis "
                                "'Y', but could not infer replication over any axes")),
        smap_case("45-3d-varying-P(X)", "3d", ("f32[8@X,4@Y,2@Z]",), lambda ns, a: a, S("X"),
             error=(ValueError, "which implies that the corresponding output value is only varying across mesh "
                                "axes {X} and not {Y,Z}, but it was inferred to be possibly varying over {X,Y,Z}")),
        smap_case("45-3d-partly-varying-P(X)", "3d", ("f32[8@X,4@Y,2]",), lambda ns, a: a, S("X"),
             error=(ValueError, "only varying across mesh axes {X} and not {Y}, but it was inferred to be "
                                "possibly varying over {X,Y}")),
        smap_case("45-1d-varying-P()", "1d_i", ("f32[16@i,4]",), lambda ns, a: a, S(),
             error=(ValueError, "replicated across mesh axis 'i', but could not infer replication over any axes")),
        smap_case("45-partial-varying-P()", "2d", ("f32[8@X,4@Y]",), lambda ns, a: a, S(), axis_names={"X"},
             error=(ValueError, "only varying across mesh axes {} and not {X}, but it was inferred to be "
                                "possibly varying over {X}")),
        smap_case("45-scalar-varying", "2d", ref, lambda ns, a, c: ns.sum(a), S(), error=(ValueError, rep)),
        smap_case("45-two-outputs-one-bad", "2d", ref, lambda ns, a, c: (c, a), (S(), S("X")), error=(ValueError, rep)),
        smap_case("45-psum(a,Y)-P(X)", "2d", ref, lambda ns, a, c: ns.psum(a, "Y"), S("X"), run=True),
        smap_case("45-invariant-P(X)", "2d", ref, lambda ns, a, c: c, S("X"), run=True),
        smap_case("45-invariant-P(X,Y)", "2d", ref, lambda ns, a, c: c * 2, S("X", "Y"), run=True),
        smap_case("45-invariant-P(None,(Y,X))", "2d", ref, lambda ns, a, c: c + 1, S(None, ("Y", "X")), run=True),
        smap_case("45-b-P((X,Y))", "2d", ("f32[8@X,4]", "f32[4,1]"), lambda ns, b, c: b + c, S(("X", "Y")), run=True),
        smap_case("45-b-P(Y,X)", "2d", ("f32[8@X,4]", "f32[4,1]"), lambda ns, b, c: b * c, S("Y", "X"), run=True),
        smap_case("45-pytree-outputs", "2d", ref, lambda ns, a, c: {"a": a, "c": [c, ns.psum(a, ("X", "Y"))]},
             {"a": S("X", "Y"), "c": [S(), S()]}, run=True),
        smap_case("45-prefix-out-specs", "2d", ref, lambda ns, a, c: (a, a * 2), S("X", "Y"), run=True),
        # unreduced outputs
        smap_case("45-unreduced-out", "2d", ref, lambda ns, a, c: ns.pcast(a, "X", to="unreduced"),
             S(None, "Y", u={"X"}), post=lambda ns, u: ns.note(ns.reshard(u, ns.P())), run=True),
        smap_case("45-unreduced-out-implicit-cast", "2d", ref, lambda ns, a, c: a, S(None, "Y", u={"X"}),
             post=lambda ns, u: ns.reshard(u, ns.P()), run=True),
        smap_case("45-unreduced-out-both", "2d", ref, lambda ns, a, c: a, S(u={"X", "Y"}),
             post=lambda ns, u: ns.reshard(u, ns.P("Y")), run=True),
        smap_case("45-unreduced-out-not-varying", "2d", ref, lambda ns, a, c: ns.psum(a, "Y"), S("X", u={"Y"}),
             error=(ValueError, "vary_unreduced_cast is a Varying->Unreduced collective. This means that the axis "
                                "names mentioned in `axes` passed to `vary_unreduced_cast` must be present in")),
        smap_case("45-unreduced-out-unmentioned", "2d", ref, lambda ns, a, c: ns.pcast(a, "X", to="unreduced"),
             S(None, "Y"), error=(ValueError, rep)),
        smap_case("45-unreduced-partial", "2d", ("f32[8@X,4@Y]",), lambda ns, a: a, S(u={"X"}), axis_names={"X"},
             error=(NotImplementedError, "unreduced/reduced can only be passed to out_specs when shard_map is in "
                                         "full manual mode")),
        # reduced outputs
        smap_case("45-reduced-out", "2d", ref, lambda ns, a, c: ns.pcast(c, "X", to="reduced"), S(r={"X"}), run=True),
        smap_case("45-reduced-out-P()", "2d", ref, lambda ns, a, c: ns.pcast(c, "X", to="reduced"), S(),
             error=(ValueError, rep)),
        smap_case("45-reduced-out-P(X)", "2d", ref, lambda ns, a, c: ns.pcast(c, "X", to="reduced"), S("X"),
             error=(ValueError, "pvary cannot accept args which are reduced")),
        smap_case("45-all_gather-reduced-out", "2d", ref, lambda ns, a, c: ns.all_gather(a, "Y", axis=1, tiled=True,
                                                                                    to="reduced"),
             S("X", r={"Y"}), run=True),
        # spec errors
        smap_case("45-out-spec-too-long", "2d", ref, lambda ns, a, c: ns.sum(c, axis=0), S("X", "Y"),
             error=(ValueError, "out_specs entry which is too long")),
        smap_case("45-out-spec-non-manual", "2d", ("f32[8@X,4@Y]",), lambda ns, a: a, S("X", "Y"), axis_names={"X"},
             error=(ValueError, "out_specs refers to 'Y'")),
        smap_case("45-in-spec-too-long", "2d", ("f32[8]",), lambda ns, a: a, S(), in_specs=S(None, "X"),
             error=(ValueError, "in_specs entry which is too long")),
        smap_case("45-in-spec-unreduced-partial", "2d", ("f32[8,4@Y]{R:X}",), lambda ns, a: a, S(None, "Y"),
             axis_names={"Y"},
             error=(NotImplementedError, "unreduced/reduced can only be passed to in_specs when shard_map is in "
                                         "full manual mode")),
        smap_case("45-axis-names-not-in-mesh", "2d", ref, lambda ns, a, c: c, S(), axis_names={"X", "Q"},
             error=(ValueError, "to be a subset of")),
        # check_vma=False: nothing is checked; a P() out_spec returns the first shard
        smap_case("45-novma-varying-P()", "2d", ref, lambda ns, a, c: a + c, S(), check_vma=False, run=True),
        smap_case("45-novma-varying-P(X)", "2d", ref, lambda ns, a, c: a * 2, S("X"), check_vma=False, run=True),
        smap_case("45-novma-psum", "2d", ref, lambda ns, a, c: ns.psum(a, "Y") + ns.psum(c, "X"), S("X"),
             check_vma=False, run=True),
        smap_case("45-novma-collectives", "3d", ("f32[16@(X,Y,Z),8]",),
             lambda ns, a: (ns.note(ns.all_gather(a, "X", tiled=True)), ns.note(ns.ppermute(a, "Y", [(0, 1), (1, 0)])),
                            ns.note(ns.psum_scatter(a, "Z", scatter_dimension=1, tiled=True)),
                            ns.note(ns.all_to_all(a, ("X", "Y"), 1, 0, tiled=True)), ns.axis_index("Z") + a),
             S(("X", "Y", "Z")), check_vma=False, run=True),
        smap_case("45-novma-unreduced-out", "2d", ref, lambda ns, a, c: a, S(u={"X", "Y"}), check_vma=False),
    ]
    # matmul_unreduced (JAX test `matmul_unreduced`): a local matmul returned unreduced over y
    mm = smap_case("45-matmul_unreduced", "2d", ("f32[8@X,16@Y]", "f32[16@Y,8]"),
              lambda ns, x, w: ns.note(x @ w), S("X", None, u={"Y"}),
              post=lambda ns, u: (ns.note(u), ns.reshard(u, ns.P("X")))[1], run=True)
    mm_int = smap_case("45-matmul_unreduced-i32", "3d", ("i32[8@X,16@(Y,Z)]", "i32[16@(Y,Z),8]"),
                  lambda ns, x, w: ns.note(ns.matmul(x, w)), S("X", None, u={"Y", "Z"}),
                  post=lambda ns, u: ns.reshard(u, ns.P(None, "Y")), run=True)
    return cases + [mm, mm_int]


@param(cases_45())
def test_out_specs(case):
    check(case)


# =============================================================================================
# The seeds (001: typeof inside shard_map, partial manual, unreduced; 002: Megatron via shard_map),
# Auto meshes, eager shard_map, partial-manual collectives
# =============================================================================================
def _colwise(ns, x, w):
    ns.note(x)
    ns.note(w)
    x = ns.note(ns.pcast(x, "tp", to="varying"))
    return ns.note(ns.einsum("sbi,io->sbo", x, w))


def _megatron(ns, x, w1, w2):
    h = ns.note(ns.relu(ns.note(ns.einsum("sbi,io->sbo", x, w1))))
    return ns.psum(ns.note(ns.einsum("sbo,oi->sbi", h, w2)), "tp")


def cases_seeds():
    return [
        # seed 001: typeof inside shard_map
        smap_case("seed001-typeof", "i2", ("f32[8@i]",), ident, S("i"), run=True),
        # seed 001: unreduced in shard_map, then psum
        smap_case("seed001-unreduced-psum", "i2", ("f32[8@i]",),
             lambda ns, x: ns.psum(ns.note(ns.pcast(x, "i", to="unreduced")), "i"), S(None), run=True),
        # seed 001 footnote: mixed Manual and Explicit mode
        smap_case("seed001-partial-manual", "ij", ("f32[4@i,4@j]",), ident, S("i", None), axis_names={"i"}, run=True),
        # seed 002: column-parallel linear, the pcast written out
        smap_case("seed002-colwise", "tp", ("f32[4,2,8]", "f32[8,16@tp]"), _colwise, S(None, None, "tp"),
             in_specs=(S(None, None, None), S(None, "tp")), run=True),
        # ... and with the pcast left implicit
        smap_case("seed002-colwise-implicit", "tp", ("f32[4,2,8]", "f32[8,16@tp]"),
             lambda ns, x, w: ns.note(ns.einsum("sbi,io->sbo", x, w)), S(None, None, "tp"), run=True),
        # seed 002 on an Auto mesh (as written there: in_specs given, arguments unsharded)
        smap_case("seed002-colwise-auto", "tp_auto", ("f32[4,2,8]", "f32[8,16]"), _colwise, S(None, None, "tp"),
             in_specs=(S(None, None, None), S(None, "tp")), run=True),
        smap_case("seed002-auto-infer", "tp_auto", ("f32[4,2,8]", "f32[8,16]"), _colwise, S(None, None, "tp"),
             error=(TypeError, "in_specs argument must be a pytree of")),
        # the Megatron MLP: column- then row-parallel, one all-reduce
        smap_case("seed002-megatron-mlp", "tp", ("f32[4,2,8]", "f32[8,16@tp]", "f32[16@tp,8]"), _megatron, S(),
             run=True),
        smap_case("seed002-megatron-mlp-auto", "tp_auto", ("f32[4,2,8]", "f32[8,16]", "f32[16,8]"), _megatron, S(),
             in_specs=(S(), S(None, "tp"), S("tp")), run=True),
        smap_case("seed002-megatron-mlp-2d", "2d", ("f32[4,2,8@X]", "f32[8@X,16@Y]", "f32[16@Y,8@X]"),
             lambda ns, x, w1, w2: ns.psum(ns.einsum("sbo,oi->sbi", ns.relu(
                 ns.psum(ns.einsum("sbi,io->sbo", x, w1), "X")), w2), "Y"), S(None, None, "X"), run=True),
        # Auto mesh: the varying axes are tracked the same way
        smap_case("auto-2d-collectives", "2d_auto", ("f32[8,4]", "f32[4,1]"),
             lambda ns, a, c: (ns.note(a + c), ns.note(ns.psum(a, "Y")), ns.note(ns.all_gather(c, "X", tiled=True))),
             (S("X", "Y"), S("X"), S("X")), in_specs=(S("X", "Y"), S()), run=True),
        smap_case("auto-2d-out-specs-check", "2d_auto", ("f32[8,4]",), lambda ns, a: a, S("X"), in_specs=S("X", "Y"),
             error=(ValueError, "replicated across mesh axis 'Y', but could not infer replication over any axes")),
        smap_case("auto-2d-partial", "2d_auto", ("f32[8,4]",), lambda ns, a: ns.note(ns.psum(a, "X")) * 2, S(),
             in_specs=S("X"), axis_names={"X"}, run=True),
        # eager shard_map (no jit around it): same types and values
        smap_case("eager-psum", "2d", ("f32[8@X,4@Y]",), lambda ns, a: ns.psum(a, "Y"), S("X"), eager=True, run=True),
        smap_case("eager-collectives", "3d", ("i32[16@(X,Y,Z),8]", "i32[4,8]"),
             lambda ns, a, c: (ns.all_gather(a, ("Z", "X"), tiled=True), ns.ppermute(c, "Y", [(0, 1), (1, 0)]),
                               ns.axis_index(("X", "Z")) + c),
             (S(("X", "Y", "Z")), S("Y"), S(("X", "Z"))), eager=True, run=True),
        smap_case("eager-error", "2d", ("f32[8@X,4@Y]",), lambda ns, a: a, S(), eager=True, run=True,
             error=(ValueError, "out_specs which require replication")),
        smap_case("eager-partial", "2d", ("f32[8@X,4@Y]",), lambda ns, a: ns.note(a.T).T + 1, S("X"), axis_names={"X"},
             eager=True, run=True),
        # partial manual: collectives over the manual axes of values sharded on free axes
        smap_case("partial-all_gather", "2d", ("f32[8@X,8@Y]",), lambda ns, a: ns.all_gather(a, "X", tiled=True),
             S("X"), axis_names={"X"}, run=True),
        smap_case("partial-all_gather-stacked", "2d", ("f32[8@X,8@Y]",), lambda ns, a: ns.note(ns.all_gather(a, "X")),
             S("X"), axis_names={"X"}, run=True),
        smap_case("partial-all_gather-stacked-last", "2d", ("f32[8@X,8@Y]",),
             lambda ns, a: ns.note(ns.all_gather(a, "X", axis=2)), S("X"), axis_names={"X"}, run=True),
        smap_case("partial-all_gather-invarying", "2d", ("f32[8@X,8@Y]",),
             lambda ns, a: ns.note(ns.all_gather(a, "X", axis=1, tiled=True, to="invarying")), S(),
             axis_names={"X"}, run=True),
        smap_case("partial-ppermute-axis_index", "3d", ("f32[8@X,4@Y,2@Z]",),
             lambda ns, a: ns.ppermute(a, ("Z", "X"), shift(4)) * ns.axis_index(("Z", "X")),
             S("X", None, "Z"), axis_names={"X", "Z"}, run=True),
        # (JAX 0.10.2 fails an internal assertion lowering this one: types only)
        smap_case("partial-psum_scatter", "2d", ("f32[8@X,8@Y]",),
             lambda ns, a: ns.note(ns.psum_scatter(a, "X", scatter_dimension=0, tiled=True)), S("X"),
             axis_names={"X"}),
        smap_case("partial-psum_scatter-unsharded", "2d", ("f32[8@X,8]",),
             lambda ns, a: ns.note(ns.psum_scatter(a, "X", scatter_dimension=1, tiled=True)), S("X"),
             axis_names={"X"}, run=True),
        smap_case("partial-all_to_all", "2d", ("f32[8@X,8@Y]",),
             lambda ns, a: ns.note(ns.all_to_all(a, "X", 0, 1, tiled=True)), S("X"), axis_names={"X"}, run=True),
        smap_case("partial-axis_size-free-axis", "2d", ("f32[8@X,8@Y]",), lambda ns, a: a * ns.axis_size("Y"), S("X"),
             axis_names={"X"}, error=(NameError, "unbound axis name: Y")),
    ]


@param(cases_seeds())
def test_seeds_and_modes(case):
    check(case)


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
    def prog(ns, a, b):
        c = CLOSURES[what](ns, a, b)
        return ns.shard_map(lambda v: v + c[:4, :1], out_specs=ns.P("X", "Y"))(a)

    check(Case(f"closure-{what}", "2d", prog, ("f32[8@X,4@Y]", "f32[8@X,4]"), expect="reject",
               kind=NotImplementedError, phrase="Closing over inputs to shard_map"))


def test_closure_over_constants_is_fine():
    """NumPy constants and Python numbers are not mesh values: both accept them."""
    c = np.arange(4, dtype=np.float32).reshape(4, 1)
    check(smap_case("closure-numpy", "2d", ("f32[8@X,4@Y]",), lambda ns, a: ns.note(a + c) * 2.5, S("X", "Y"),
                    run=True))


def test_unreduced_over_free_axis_is_refused_not_crashed():
    """A value unreduced over a free axis inside a partial-manual body: the types
    agree with JAX, but XLA aborts the process compiling it (JAX 0.10.2 included),
    so shardc refuses to lower it with a ShardcNotImplementedError."""
    case = smap_case("free-unreduced", "2d", ("f32[8@X,4@Y]", "f32[4@Y,8]"),
                     lambda ns, x, w: ns.reshard(ns.note(ns.matmul(x, w, out_sharding=ns.P(None, None,
                                                                                            unreduced={"Y"}))),
                                                 ns.P()), S("X"), axis_names={"X"})
    j, s = check(case, "trace")
    assert s.log[2] == "float32[4,8]{V:X, U:Y}"
    m, _ = mesh_pair("2d")
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

    script = load_script(Path(__file__).resolve().parents[2] / "examples" / "megatron_shardmap.py", echo=False)
    prog = next(p for p in script.programs if p.name == name)
    assert [p.name for p in script.programs] == list(MEGATRON_PROGRAMS)
    types = [parse_type(t) for t in prog.types]
    data = [data_for(t.dtype, t.shape, k) for k, t in enumerate(types)]

    def run_sc():
        args = [sc.device_put(d, t.sc_pspec()) for d, t in zip(data, types)]
        compiled = prog.jit.lower(*args).compile()
        return compiled, compiled(*args), str(prog.jit.trace(*args).out_types)

    compiled, out, out_type = script.call(run_sc)
    m = script.mesh
    jm = jax.make_mesh(m.axis_sizes, m.axis_names, devices=list(m.devices.flat))
    with jax.set_mesh(jm):
        jargs = [jax.device_put(d, t.jax_pspec()) for d, t in zip(data, types)]
        jcompiled = _jax_megatron(name).lower(*jargs).compile()
        jout = jcompiled(*jargs)
        assert out_type == str(jax.typeof(jout))
    ours = reported_collectives(compiled)
    assert ours == hlo_collectives(compiled.as_text()) == hlo_collectives(jcompiled.as_text())
    assert ours == {"mlp": {"all-reduce": 1}, "mlp_data_parallel": {"all-reduce": 1},
                    "mlp_sequence_parallel": {"reduce-scatter": 1}}[name]
    assert all(c.axes == ("Y",) for c in compiled.collectives())
    np.testing.assert_allclose(np.asarray(out), np.asarray(jout), rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("which", ["same", "other"])
def test_explicit_mesh_argument(which):
    """`mesh=` may repeat the context mesh; a different one is an error in both."""
    def prog(ns, x):
        mesh = ns.mesh("2d" if which == "same" else "3d")
        return ns.shard_map(lambda v: ns.psum(v, "Y"), mesh=mesh, out_specs=ns.P("X"))(x)

    if which == "same":
        j, s = check(Case("mesh-arg-same", "2d", prog, ("f32[8@X,4@Y]",), expect="accept"))
        assert s.types == ["float32[8@X,1]"]
    else:
        check(Case("mesh-arg-other", "2d", prog, ("f32[8@X,4@Y]",), expect="reject", kind=ValueError,
                   phrase="should match the mesh passed to"))
