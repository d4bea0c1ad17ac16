"""Differential: reductions (sum/max/min/mean/prod/argmax/argmin/any/all
with axis and keepdims, `lax.reduce_sum(out_sharding=...)` incl. unreduced),
cumulative ops and the nn helpers (relu, gelu, softmax, log_softmax,
logsumexp) — JAX rules §2.7, §2.8."""
from __future__ import annotations

from oracle import BASIC_MESHES, Case, check_types, check_values, param, sample, specs_for, type_str

SHAPES = {1: (8,), 2: (8, 4), 3: (4, 2, 8)}

REDUCTIONS = ["sum", "max", "min", "mean", "prod", "argmax", "argmin", "any", "all"]


def _axes_for(rank):
    out = [None, 0, -1]
    if rank >= 2:
        out += [1, (0, 1)]
    if rank >= 3:
        out += [(0, 2), (1, 2)]
    return out


def _red(op, axis, keepdims):
    if op in ("argmax", "argmin"):
        if isinstance(axis, tuple):
            return None
        return lambda ns, x: getattr(ns, op)(x, axis=axis, keepdims=keepdims)
    return lambda ns, x: getattr(ns, op)(x, axis=axis, keepdims=keepdims)


def reduction_cases():
    cases = []
    for mesh in BASIC_MESHES:
        for rank, shape in SHAPES.items():
            specs = specs_for(shape, mesh)
            for op in REDUCTIONS:
                for axis in _axes_for(rank):
                    for keepdims in (False, True):
                        fn = _red(op, axis, keepdims)
                        if fn is None:
                            continue
                        pool = [Case(f"{op}(axis={axis},keepdims={keepdims})-{mesh}-{type_str(d, shape, s)}",
                                     mesh, fn, (type_str(d, shape, s),))
                                for s in specs for d in ("f32", "bf16", "i32", "bool")]
                        cases += sample(pool, 3, salt=op + str(axis))
    # methods and the reference's table
    ref = [("f32[8@X,4@Y]", lambda ns, x: x.sum()), ("f32[8@X,4@Y]", lambda ns, x: x.mean()),
           ("f32[8@X,4@Y]", lambda ns, x: ns.argmax(x)), ("f32[8@X,4@Y]", lambda ns, x: x.sum(0)),
           ("f32[8@X,4@Y]", lambda ns, x: x.max(0)), ("f32[8@X,4@Y]", lambda ns, x: x.mean(0)),
           ("f32[8@X,4@Y]", lambda ns, x: ns.var(x, 0)), ("f32[8@X,4@Y]", lambda ns, x: (x > 0).any(0)),
           ("f32[8@X,4@Y]", lambda ns, x: x.sum(1)), ("f32[8@X,4@Y]", lambda ns, x: x.min(1)),
           ("f32[8@X,4@Y]", lambda ns, x: x.prod(1)), ("f32[8@X,4@Y]", lambda ns, x: ns.std(x, 1)),
           ("f32[8@X,4@Y]", lambda ns, x: x.sum(0, keepdims=True)),
           ("f32[8@(X,Y),4]", lambda ns, x: x.sum(0)), ("f32[8@(X,Y),4]", lambda ns, x: x.sum(1)),
           ("i32[8@X,2@Y]", lambda ns, x: ns.sum(x)), ("f32[8@X,2@Y]", lambda ns, x: ns.argmin(x, axis=1))]
    for k, (t, fn) in enumerate(ref):
        cases.append(Case(f"red-ref{k}-2d-{t}", "2d", fn, (t,)))
    return cases


REDUCTION = reduction_cases()


@param(REDUCTION)
def test_reduction_types(case):
    check_types(case)


# lax.reduce_sum(out_sharding=...): unreduced results and their checks (§2.7)
def reduce_sum_cases():
    cases = []
    ref = [("2d", "f32[8@X,4@Y]", (0,), ("Y",), {"X"}), ("2d", "f32[8@X,4@Y]", (0, 1), (), {"X", "Y"}),
           ("2d", "f32[8@X,4@Y]", (0, 1), (), {"X"}), ("2d", "f32[8@X,4@Y]", (0,), (), {"Y"}),
           ("2d", "f32[8@X,4@Y]", (0,), (), set()), ("2d", "f32[8@X,4@Y]", (1,), ("X",), set()),
           ("2d", "f32[8@X,4@Y]", (1,), (None,), {"Y"}), ("2d", "f32[8@(X,Y),4]", (0,), (), {"X", "Y"}),
           ("2d", "f32[8@(X,Y),4]", (0,), (), {"X"}), ("3d", "f32[8@(X,Z),4@Y]", (0,), ("Y",), {"Z"}),
           ("3d", "f32[8@(X,Z),4@Y]", (0, 1), (), {"X", "Y", "Z"}), ("1d", "f32[8@X,8]", (0,), (), {"X"}),
           ("1d", "f32[8@X,8]", (0,), ("X",), set()), ("2d", "f32[8@X,4@Y]", (0,), ("X",), {"X"}),
           ("2d", "f32[8,16]{U:X}", (0,), (), set()), ("2d", "f32[8,4]{R:X}", (0,), (), set()),
           ("2d", "f32[8@Y,16]{U:X}", (0,), (), {"Y"})]
    for mesh, t, axes, spec, u in ref:
        cases.append(Case(f"reduce_sum{axes}-{mesh}-{t}-P{spec}U{sorted(u)}", mesh,
                          lambda ns, x, axes=axes, spec=spec, u=u: ns.reduce_sum(
                              x, axes, out_sharding=ns.P(*spec, unreduced=u)), (t,)))
    # generated: every spec of [8,4] on the 2-D/3-D mesh, summing dim 0, unreduced over its axes
    for mesh in ("2d", "3d"):
        for s in specs_for((8, 4), mesh):
            t = type_str("f32", (8, 4), s)
            u = set(s[0]) if isinstance(s[0], tuple) else ({s[0]} if s[0] else set())
            cases.append(Case(f"reduce_sum-gen-{mesh}-{t}", mesh,
                              lambda ns, x, s=s, u=u: ns.reduce_sum(x, (0,), out_sharding=ns.P(s[1], unreduced=u)),
                              (t,)))
    return cases


REDUCE_SUM = reduce_sum_cases()


@param(REDUCE_SUM)
def test_reduce_sum_out_sharding_types(case):
    check_types(case)


# --- cumulative ops -----------------------------------------------------------------------------------------
def cumulative_cases():
    cases = []
    for mesh in BASIC_MESHES:
        for rank in (1, 2, 3):
            shape = SHAPES[rank]
            for op in ("cumsum", "cumprod", "cummax"):
                for axis in [None, 0, -1]:
                    if op == "cummax" and axis is None:
                        continue
                    pool = [Case(f"{op}(axis={axis})-{mesh}-{type_str(d, shape, s)}", mesh,
                                 lambda ns, x, op=op, axis=axis: getattr(ns, op)(x, axis=axis),
                                 (type_str(d, shape, s),))
                            for s in specs_for(shape, mesh) for d in ("f32", "i32", "bool", "bf16")]
                    cases += sample(pool, 4, salt=op + str(axis))
    for t, axis in [("i32[2@X,8]", 0), ("i32[2,8@X]", 0), ("i32[2,8@X]", None), ("f32[8@X,4@Y]", 0)]:
        cases.append(Case(f"cumsum-ref-2d-{t}-{axis}", "2d", lambda ns, x, axis=axis: ns.cumsum(x, axis=axis), (t,)))
    return cases


CUMULATIVE = cumulative_cases()


@param(CUMULATIVE)
def test_cumulative_types(case):
    check_types(case)


# --- nn -------------------------------------------------------------------------------------------------------
NN = {
    "relu": lambda ns, x: ns.relu(x), "gelu": lambda ns, x: ns.gelu(x),
    "gelu_exact": lambda ns, x: ns.gelu(x, approximate=False), "silu": lambda ns, x: ns.silu(x),
    "sigmoid": lambda ns, x: ns.sigmoid(x),
    "softmax": lambda ns, x: ns.softmax(x), "softmax0": lambda ns, x: ns.softmax(x, axis=0),
    "log_softmax": lambda ns, x: ns.log_softmax(x), "log_softmax0": lambda ns, x: ns.log_softmax(x, axis=0),
    "logsumexp": lambda ns, x: ns.logsumexp(x), "logsumexp1": lambda ns, x: ns.logsumexp(x, axis=1),
    "logsumexp0k": lambda ns, x: ns.logsumexp(x, axis=0, keepdims=True),
}


def nn_cases():
    cases = []
    for mesh in BASIC_MESHES:
        for rank in (2, 3):
            shape = SHAPES[rank]
            for name, fn in NN.items():
                pool = [Case(f"{name}-{mesh}-{type_str(d, shape, s)}", mesh, fn, (type_str(d, shape, s),))
                        for s in specs_for(shape, mesh) for d in ("f32", "bf16")]
                cases += sample(pool, 4, salt=name)
    for name in ("relu", "gelu"):
        cases.append(Case(f"{name}-int-2d", "2d", NN[name], ("i32[8@X,4]",)))
    return cases


NN_CASES = nn_cases()


@param(NN_CASES)
def test_nn_types(case):
    check_types(case)


# --- values and collectives -------------------------------------------------------------------------------------
def value_cases():
    picked = sample(REDUCTION, 30, salt="v")
    picked += sample(REDUCE_SUM, 14, salt="v")
    picked += sample(CUMULATIVE, 10, salt="v")
    picked += sample(NN_CASES, 14, salt="v")
    return picked


@param(value_cases())
def test_reduction_values(case):
    check_values(case)
