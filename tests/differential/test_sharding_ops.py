"""Differential: reshard (every spec pair of small arrays, to/from unreduced
and reduced), with_sharding_constraint as an assertion, input-type
validation, and the unreduced/reduced propagation rules and errors of JAX
rules §3.2 (U+U, U+rep, U*R, R*2, R+rep, ...)."""
from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
from oracle import BASIC_MESHES, Case, check, check_types, check_values, param, sample, spec_id, specs_for, type_str


# --- reshard ----------------------------------------------------------------------------------------------
def reshard_cases():
    cases = []
    for mesh in BASIC_MESHES:
        for shape in ((8, 4), (4, 2, 8)):
            srcs = specs_for(shape, mesh)
            dsts = specs_for(shape, mesh) + specs_for(shape, mesh, valid=False)
            pool = [Case(f"reshard-{mesh}-{type_str('f32', shape, a)}->{spec_id(b)}", mesh,
                         lambda ns, x, b=b: ns.reshard(x, ns.P(*b)), (type_str("f32", shape, a),))
                    for a, b in itertools.product(srcs, dsts)]
            cases += sample(pool, 60 if mesh == "3d" else 40, salt="rs")
    # to/from unreduced and reduced (§3.1)
    ur = [("2d", "f32[8,16]", dict(unreduced={"X"})), ("2d", "f32[8@X,16]", dict(unreduced={"Y"})),
          ("2d", "f32[8@X,16]", dict(unreduced={"X"})), ("2d", "f32[8,4]", dict(unreduced={"Y", "X"})),
          ("2d", "f32[8,4]", dict(unreduced={"X"}, reduced={"Y"})), ("2d", "f32[8,4]", dict(reduced={"X"})),
          ("2d", "f32[8,16]{U:X}", dict()), ("2d", "f32[8,16]{U:X}", dict(dims=("X",))),
          ("2d", "f32[8,16]{U:X}", dict(dims=("Y",))), ("2d", "f32[8,16]{U:X}", dict(reduced={"X"})),
          ("2d", "f32[8,4]{R:X}", dict(dims=("X",))), ("2d", "f32[8,4]{R:X}", dict()),
          ("2d", "f32[8,4]{R:X}", dict(unreduced={"X"})), ("2d", "f32[8,4@Y]{R:X}", dict(dims=(None, "Y"))),
          ("3d", "f32[8,16]{U:(X,Y)}", dict(dims=("Z",), unreduced={"X"})), ("3d", "f32[8,4]", dict(reduced={"X", "Z"})),
          ("1d", "f32[]", dict(unreduced={"X"})), ("1d", "f32[]", dict(reduced={"X"})),
          ("2d", "f32[8,4]", dict(dims=("X",), unreduced={"X"})), ("2d", "f32[8,4]", dict(unreduced={"Q"}))]
    for k, (mesh, t, kw) in enumerate(ur):
        kw = dict(kw)
        dims = kw.pop("dims", ())
        # (sets sorted: an id must not depend on the hash seed, or pytest-xdist workers disagree)
        kws = ",".join(f"{n}={sorted(v)}" for n, v in sorted(kw.items()))
        cases.append(Case(f"reshard-ur{k}-{mesh}-{t}->{dims}[{kws}]", mesh,
                          lambda ns, x, dims=dims, kw=kw: ns.reshard(x, ns.P(*dims, **kw)), (t,)))
    return cases


RESHARD = reshard_cases()


@param(RESHARD)
def test_reshard_types(case):
    check_types(case)


# --- with_sharding_constraint (an assertion on Explicit meshes) ----------------------------------------------
def wsc_cases():
    cases = []
    for mesh in BASIC_MESHES:
        shape = (8, 4) if mesh != "1d" else (8, 8)
        specs = specs_for(shape, mesh)
        pool = [Case(f"wsc-{mesh}-{type_str('f32', shape, a)}-{spec_id(b)}", mesh,
                     lambda ns, x, b=b: ns.with_sharding_constraint(x, ns.P(*b)), (type_str("f32", shape, a),))
                for a, b in itertools.product(specs, specs)]
        same = [c for c in pool if c.id.split("-")[-1] == "P(" + ",".join(
            (e if "@" not in e else e.split("@")[1].strip("()")) if "@" in e else "-"
            for e in c.args[0][4:-1].split(",")) + ")"]
        cases += sample(same, 8, salt="wsame") + sample([c for c in pool if c not in same], 10, salt="w")
    cases.append(Case("wsc-ref-2d", "2d", lambda ns, x: ns.with_sharding_constraint(x, ns.P("X")), ("i32[8]",)))
    cases.append(Case("wsc-short-2d", "2d", lambda ns, x: ns.with_sharding_constraint(x, ns.P("X")), ("f32[8@X,4]",)))
    cases.append(Case("wsc-U-2d", "2d", lambda ns, x: ns.with_sharding_constraint(x, ns.P()), ("f32[8,16]{U:X}",)))
    cases.append(Case("wsc-R-2d", "2d", lambda ns, x: ns.with_sharding_constraint(x, ns.P(reduced={"X"})),
                      ("f32[8,16]{R:X}",)))
    cases.append(Case("wsc-indiv-2d", "2d", lambda ns, x: ns.with_sharding_constraint(x, ns.P(None, "Y")),
                      ("f32[8,2]",)))
    return cases


WSC = wsc_cases()


@param(WSC)
def test_wsc_types(case):
    check_types(case)


# --- input types: divisibility, duplicates, unknown axes, U/R overlap -------------------------------------------
def input_cases():
    cases = []
    for mesh in BASIC_MESHES:
        for shape in ((8, 4), (3, 4), (2, 6, 8), (4, 2, 8)):
            for spec in specs_for(shape, mesh, valid=False)[:8]:
                t = type_str("f32", shape, spec)
                cases.append(Case(f"input-indivisible-{mesh}-{t}", mesh, lambda ns, x: x * 2, (t,)))
    for mesh, t in [("2d", "f32[8@X,4@X]"), ("3d", "f32[8@(X,Y),4@Y]"), ("2d", "f32[8@(X,X),4]"),
                    ("2d", "f32[8@Z,4]"), ("2d", "f32[8@X,4]{U:X}"), ("2d", "f32[8@X,4]{R:X}"),
                    ("2d", "f32[8,4]{U:X, R:X}"), ("1d", "f32[8,4]{U:Q}")]:
        # shardc words the overlap error differently from JAX (JAX: "`unreduced` and `reduced` argument to
        # PartitionSpec cannot overlap"): only the shared phrase is required of it
        phrase = "cannot overlap" if "U:X, R:X" in t else None
        cases.append(Case(f"input-bad-{mesh}-{t}", mesh, lambda ns, x: x * 2, (t,), phrase=phrase))
    return cases


@param(input_cases())
def test_input_types(case):
    check_types(case)


# --- unreduced / reduced propagation (§3.2) ----------------------------------------------------------------------
U, U2, UY, R, R16, RY = ("f32[8,16]{U:X}", "f32[8,16]{U:X}", "f32[8,16]{U:Y}", "f32[8,4]{R:X}",
                         "f32[8,16]{R:X}", "f32[8,4]{R:Y}")
UR_TABLE = [
    # name, fn, args
    ("U+U", lambda ns, a, b: a + b, (U, U2)),
    ("U+rep", lambda ns, a, b: a + b, (U, "f32[8,16]")),
    ("rep+U", lambda ns, a, b: a + b, ("f32[8,16]", U)),
    ("U{X}+U{Y}", lambda ns, a, b: a + b, (U, UY)),
    ("U+U[8@Y]", lambda ns, a, b: a + b, (U, "f32[8@Y,16]{U:X}")),
    ("U*R", lambda ns, a, b: a * b, (U, R16)),
    ("R*U", lambda ns, a, b: a * b, (R16, U)),
    ("U*R{Y}", lambda ns, a, b: a * b, (U, "f32[8,16]{R:Y}")),
    ("U*2", lambda ns, a: a * 2, (U,)),
    ("2*U", lambda ns, a: 2 * a, (U,)),
    ("U*U", lambda ns, a, b: a * b, (U, U2)),
    ("U*rep", lambda ns, a, b: a * b, (U, "f32[8,16]")),
    ("U-U", lambda ns, a, b: a - b, (U, U2)),
    ("max(U,U)", lambda ns, a, b: ns.maximum(a, b), (U, U2)),
    ("U>0", lambda ns, a: a > 0, (U,)),
    ("U/2", lambda ns, a: a / 2, (U,)),
    ("sin(U)", lambda ns, a: ns.sin(a), (U,)),
    ("-U", lambda ns, a: -a, (U,)),
    ("sin(R)", lambda ns, a: ns.sin(a), (R,)),
    ("exp(R)", lambda ns, a: ns.exp(a), (R,)),
    ("U**3", lambda ns, a: a ** 3, (U,)),
    ("R**3", lambda ns, a: a ** 3, (R,)),
    ("square(R)", lambda ns, a: ns.square(a), (R,)),
    ("square(U)", lambda ns, a: ns.square(a), (U,)),
    ("reciprocal(R)", lambda ns, a: ns.reciprocal(a), (R,)),
    ("mean(R,0)", lambda ns, a: ns.mean(a, 0), (R,)),
    ("var(R,0)", lambda ns, a: ns.var(a, 0), (R,)),
    ("where(c,R,0.)", lambda ns, c, a: ns.where(c, a, 0.0), ("bool[8,4]", R)),
    ("where(c,0.,R)", lambda ns, c, a: ns.where(c, 0.0, a), ("bool[8,4]", R)),
    ("R[::-1]", lambda ns, a: a[::-1], (R,)),
    ("U.astype", lambda ns, a: a.astype(ml_dtypes.bfloat16), (U,)),
    ("R.astype", lambda ns, a: a.astype(np.int32), (R,)),
    ("U.T", lambda ns, a: a.T, (U,)),
    ("R.T", lambda ns, a: a.T, (R,)),
    ("U[0:4]", lambda ns, a: a[0:4], (U,)),
    ("R[0:4]", lambda ns, a: a[0:4], (R,)),
    ("U[0]", lambda ns, a: a[0], (U,)),
    ("U[None]", lambda ns, a: a[None], (U,)),
    ("R[:,None]", lambda ns, a: a[:, None], (R,)),
    ("squeeze(U)", lambda ns, a: ns.squeeze(a[None], 0), (U,)),
    ("concat(U,U)", lambda ns, a, b: ns.concatenate([a, b]), (U, U2)),
    ("concat(U,rep)", lambda ns, a, b: ns.concatenate([a, b]), (U, "f32[8,16]")),
    ("concat(R,R)", lambda ns, a, b: ns.concatenate([a, b]), (R, R)),
    ("concat(R,RY)", lambda ns, a, b: ns.concatenate([a, b]), (R, RY)),
    ("stack(U,U)", lambda ns, a, b: ns.stack([a, b]), (U, U2)),
    ("where(T,U,U)", lambda ns, a, b: ns.where(True, a, b), (U, U2)),
    ("where(c,U,U)", lambda ns, c, a, b: ns.where(c, a, b), ("bool[8,16]", U, U2)),
    ("where(c,R,R)", lambda ns, c, a, b: ns.where(c, a, b), ("bool[8,4]", R, R)),
    ("U.sum(0)", lambda ns, a: a.sum(0), (U,)),
    ("U.sum()", lambda ns, a: a.sum(), (U,)),
    ("R.sum(0)", lambda ns, a: a.sum(0), (R,)),
    ("U.max(0)", lambda ns, a: a.max(0), (U,)),
    ("R.max(0)", lambda ns, a: a.max(0), (R,)),
    ("argmax(U)", lambda ns, a: ns.argmax(a, 0), (U,)),
    ("cumsum(U)", lambda ns, a: ns.cumsum(a, 1), (U,)),
    ("cumsum(R)", lambda ns, a: ns.cumsum(a, 1), (R,)),
    ("U.reshape", lambda ns, a: a.reshape(128), (U,)),
    ("reshape(U,out)", lambda ns, a: ns.reshape(a, (128,), out_sharding=ns.P(unreduced={"X"})), (U,)),
    ("reshape(U,P())", lambda ns, a: ns.reshape(a, (128,), out_sharding=ns.P()), (U,)),
    ("reshape(R,out)", lambda ns, a: ns.reshape(a, (32,), out_sharding=ns.P(reduced={"X"})), (R,)),
    ("U@w", lambda ns, a, b: a @ b, (U, "f32[16,2]")),
    ("w@U", lambda ns, a, b: a @ b, ("f32[2,8]", U)),
    ("R@w", lambda ns, a, b: a @ b, (R, "f32[4,8@X]")),
    ("R@w_rep", lambda ns, a, b: a @ b, (R, "f32[4,8]")),
    ("R+R", lambda ns, a, b: a + b, (R, R)),
    ("R*R", lambda ns, a, b: a * b, (R, R)),
    ("R*2", lambda ns, a: a * 2, (R,)),
    ("2.5+R", lambda ns, a: 2.5 + a, (R,)),
    ("R*s", lambda ns, a, s: a * s, (R, "f32[]")),
    ("R+rep", lambda ns, a, b: a + b, (R, "f32[8,4]")),
    ("R*rep", lambda ns, a, b: a * b, (R, "f32[8,4]")),
    ("R+[8@X]", lambda ns, a, b: a + b, (R, "f32[8@X,4]")),
    ("R+[8@Y]", lambda ns, a, b: a + b, (R, "f32[8@Y,4]")),
    ("[8@X]+R", lambda ns, a, b: a + b, ("f32[8@X,4]", R)),
    ("R{X}+R{Y}", lambda ns, a, b: a + b, (R, RY)),
    ("R[8@Y]+R", lambda ns, a, b: a + b, ("f32[8@Y,4]{R:X}", R)),
    ("R-R", lambda ns, a, b: a - b, (R, R)),
    ("max(R,R)", lambda ns, a, b: ns.maximum(a, b), (R, R)),
    ("R>0", lambda ns, a: a > 0, (R,)),
    ("R/2", lambda ns, a: a / 2, (R,)),
    ("zeros_like(U)", lambda ns, a: ns.zeros_like(a), (U,)),
    ("zeros_like(R)", lambda ns, a: ns.zeros_like(a), (R,)),
    ("reshard(U)->P()", lambda ns, a: ns.reshard(a, ns.P()), (U,)),
    ("relu(R)", lambda ns, a: ns.relu(a), (R,)),
    ("softmax(R)", lambda ns, a: ns.softmax(a), (R,)),
    ("broadcast_to(R)", lambda ns, a: ns.broadcast_to(a, (2, 8, 4)), (R,)),
    ("expand_dims(U)", lambda ns, a: ns.expand_dims(a, 0), (U,)),
    ("transpose(U3)", lambda ns, a: ns.transpose(a, (2, 0, 1)), ("f32[2,4@Y,8]{U:X}",)),
    ("U3d+U3d", lambda ns, a, b: a + b, ("f32[8,16]{U:(X,Y)}", "f32[8,16]{U:(X,Y)}")),
    ("U(X,Y)+U(X)", lambda ns, a, b: a + b, ("f32[8,16]{U:(X,Y)}", "f32[8,16]{U:X}")),
    ("U(X,Y)*R(X,Y)", lambda ns, a, b: a * b, ("f32[8,16]{U:(X,Y)}", "f32[8,16]{R:(X,Y)}")),
    ("U(X)*R(X)[8@Z]", lambda ns, a, b: a * b, ("f32[8,16]{U:X}", "f32[8@Z,16]{R:X}")),
]


def ur_cases():
    cases = []
    for name, fn, args in UR_TABLE:
        mesh = "3d" if any("Z" in a or "(X,Y)" in a for a in args) else "2d"
        cases.append(Case(f"ur-{name}-{mesh}", mesh, fn, args))
    # the same rules on the other meshes, with generated U/R sets
    for mesh in ("1d", "3d"):
        axes = list(BASIC_MESHES[mesh].names)
        for k in (1, 2):
            for u in itertools.combinations(axes, k):
                us = type_str("f32", (8, 16), (), u=u)
                rs = type_str("f32", (8, 16), (), r=u)
                for name, fn in [("U+U", lambda ns, a, b: a + b), ("U*R", lambda ns, a, b: a * b),
                                 ("R+R", lambda ns, a, b: a + b), ("U+R", lambda ns, a, b: a + b)]:
                    a, b = {"U+U": (us, us), "U*R": (us, rs), "R+R": (rs, rs), "U+R": (us, rs)}[name]
                    cases.append(Case(f"ur-gen-{name}-{mesh}-{a}∘{b}", mesh, fn, (a, b)))
                cases.append(Case(f"ur-gen-R*2-{mesh}-{rs}", mesh, lambda ns, a: a * 2, (rs,)))
                cases.append(Case(f"ur-gen-U.sum-{mesh}-{us}", mesh, lambda ns, a: a.sum(1), (us,)))
    return cases


UR = ur_cases()


@param(UR)
def test_unreduced_reduced_types(case):
    check_types(case)


# --- values and collectives: programs that make and consume U/R ------------------------------------------------------
def ur_value_cases():
    cs = [
        Case("v-einsum-unreduced-basic", "1d",
             lambda ns, a, b: ns.einsum("ab,bc->ac", a, b, out_sharding=ns.P(None, None, unreduced={"X"})),
             ("f32[8,8@X]", "f32[8@X,8]")),
        Case("v-dot-U-then-reshard-P()", "2d",
             lambda ns, a, b: ns.reshard(ns.dot(a, b, out_sharding=ns.P(unreduced={"X"})), ns.P()),
             ("f32[8,4@X]", "f32[4@X,16]")),
        Case("v-dot-U-then-reshard-P(X)", "2d",
             lambda ns, a, b: ns.reshard(ns.dot(a, b, out_sharding=ns.P(unreduced={"X"})), ns.P("X")),
             ("f32[8,4@X]", "f32[4@X,16]")),
        Case("v-dot-U-plus-U", "2d",
             lambda ns, a, b: (ns.dot(a, b, out_sharding=ns.P(unreduced={"X"}))
                               + ns.dot(b.T, a.T, out_sharding=ns.P(unreduced={"X"})).T),
             ("f32[8,4@X]", "f32[4@X,16]")),
        Case("v-U-times-R", "2d",
             lambda ns, a, b, r: ns.dot(a, b, out_sharding=ns.P(unreduced={"X"})) * ns.reshard(r, ns.P(reduced={"X"})),
             ("f32[8,4@X]", "f32[4@X,16]", "f32[8,16]")),
        Case("v-reshard-rep-to-U-and-back", "2d",
             lambda ns, a: ns.reshard(ns.reshard(a, ns.P(unreduced={"X"})), ns.P("Y")), ("f32[8,16]",)),
        Case("v-R-input-ops", "2d", lambda ns, r: (r * 2 + r).sum(0), ("f32[8,4]{R:X}",)),
        Case("v-R-matmul", "2d", lambda ns, r, w: r @ w, ("f32[8,4]{R:X}", "f32[4,8@X]")),
        Case("v-reduce_sum-U", "2d",
             lambda ns, x: ns.reshard(ns.reduce_sum(x, (0,), out_sharding=ns.P("Y", unreduced={"X"})), ns.P()),
             ("f32[8@X,4@Y]",)),
        Case("v-U-sum-then-reshard", "3d",
             lambda ns, a, b: ns.reshard(ns.dot(a, b, out_sharding=ns.P("Y", unreduced={"X", "Z"})).sum(0),
                                         ns.P()), ("f32[8@Y,8@(X,Z)]", "f32[8@(X,Z),16]")),
        Case("v-U-T-slice-concat", "2d",
             lambda ns, a, b: ns.reshard(ns.concatenate([ns.dot(a, b, out_sharding=ns.P(unreduced={"X"})).T[0:8]] * 2),
                                         ns.P()), ("f32[8,4@X]", "f32[4@X,16]")),
        Case("v-U-astype", "2d",
             lambda ns, a, b: ns.reshard(ns.dot(a, b, out_sharding=ns.P(unreduced={"X"})).astype(ml_dtypes.bfloat16),
                                         ns.P()), ("f32[8,4@X]", "f32[4@X,16]")),
        Case("v-U-output", "2d", lambda ns, a, b: ns.dot(a, b, out_sharding=ns.P(unreduced={"X"})),
             ("f32[8,4@X]", "f32[4@X,16]")),
        Case("v-R-output", "2d", lambda ns, a: ns.reshard(a, ns.P(reduced={"X"})), ("f32[8,4@Y]",)),
    ]
    return cs


@param(sample(RESHARD, 40, salt="v") + sample(WSC, 6, salt="v") + ur_value_cases())
def test_sharding_values(case):
    check_values(case)


@param(sample([c for c in UR if "gen" not in c.id and not any("U:" in a for a in c.args)], 20, salt="v"))
def test_unreduced_reduced_values(case):
    check_values(case)


# --- device_put inside a program (a reshard, as JAX) and stop_gradient -------------------------
def _grad_through_stop(ns, x, w):
    def loss(a):
        return ns.sum(ns.tanh(a @ ns.stop_gradient(w)) * ns.stop_gradient(a @ w))
    return ns.grad(loss)(x)


def _device_put_in_program(ns, x):
    y = ns.device_put(x, ns.P("Y", None))
    return ns.device_put(y * 2.0, ns.NamedSharding(ns.mesh("2d"), ns.P(None, "X")))


EXTRA = [Case(f"{name}-{mode}", "2d", fn, args, mode=mode, expect="accept", collectives="at_most")
         for name, fn, args in [("stop_gradient-grad", _grad_through_stop, ("f32[8@X,16]", "f32[16,8@Y]")),
                                ("stop_gradient-value", lambda ns, x: ns.stop_gradient(x) * 3.0, ("f32[8@X,4@Y]",)),
                                ("stop_gradient-int", lambda ns, x: ns.stop_gradient(x) + 1, ("i32[8@X,4]",)),
                                ("device_put-in-program", _device_put_in_program, ("f32[8@X,8]",))]
         for mode in ("trace", "jit")]


@param(EXTRA)
def test_stop_gradient_and_device_put_in_programs(case):
    check(case)
