"""Differential: reductions (sum/max/min/mean/prod/argmax/argmin/any/all
with axis and keepdims, `lax.reduce_sum(out_sharding=...)` incl. unreduced),
cumulative ops and the nn helpers (relu, gelu, softmax, log_softmax,
logsumexp) — JAX rules §2.7, §2.8; and every reduction with JAX's full signature: where= masks
(sharded as the operand, replicated, broadcast), initial=, promote_integers=, dtype=, correction= /
ddof= / mean= of std and var, the nan reductions, the Array methods, grads through masked
reductions, JAX's errors (out=, where without initial, ...), ravel(order=), take_along_axis's
wrap_negative_indices= and outer, over f32/bf16/int8/int32/uint8/bool, ranks 0-3, 1-D/2-D/3-D meshes."""
from __future__ import annotations

import dataclasses

from oracle import (
    BASIC_MESHES,
    WHOLE_MESSAGE,
    Case,
    check_eager,
    check_types,
    check_values,
    param,
    sample,
    specs_for,
    type_str,
)

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


# --- JAX's full signatures: where= / initial= / promote_integers= / correction= / mean= / out= ------------
#: every reduction with a `where=` mask, and the keywords it needs with one (max/min: `initial=`)
WHERE_OPS = {"sum": {}, "prod": {}, "max": {"initial": -3}, "min": {"initial": 3}, "amax": {"initial": 0},
             "amin": {"initial": 0}, "any": {}, "all": {}, "mean": {}, "std": {}, "var": {},
             "nansum": {}, "nanprod": {}, "nanmax": {"initial": -3}, "nanmin": {"initial": 3}, "nanmean": {},
             "nanvar": {}, "nanstd": {}}
WHERE_DTYPES = ("f32", "bf16", "i8", "i32", "u8", "bool")
RANK_SHAPES = {0: (), 1: (8,), 2: (8, 4), 3: (4, 2, 8)}


def _where_axes(rank: int) -> list:
    return {0: [None], 1: [None, 0, -1], 2: [None, 1, -2, (0, 1)], 3: [None, -1, (0, 2), (2, 1)]}[rank]


def _mask_types(dtype_shape_spec) -> list[tuple[str, str]]:
    """(label, mask type) for an operand: the mask sharded as the operand, replicated, and a
    broadcast one (the trailing dim only)."""
    shape, spec = dtype_shape_spec
    out = [("same", type_str("bool", shape, spec)), ("repl", type_str("bool", shape, (None,) * len(shape)))]
    if len(shape) >= 2:
        out.append(("bcast", type_str("bool", shape[-1:], (None,))))
    return out


def _wfn(op: str, axis, keepdims: bool, extra: dict):
    return lambda ns, x, m: getattr(ns, op)(x, axis=axis, keepdims=keepdims, where=m, **extra)


def where_cases() -> list[Case]:
    cases = []
    for mesh in BASIC_MESHES:
        for rank, shape in RANK_SHAPES.items():
            specs = specs_for(shape, mesh)
            for op, extra in WHERE_OPS.items():
                for axis in _where_axes(rank):
                    for keepdims in (False, True):
                        pool = [Case(f"{op}(where={ml},axis={axis},keepdims={keepdims})-{mesh}-{type_str(d, shape, s)}",
                                     mesh, _wfn(op, axis, keepdims, extra), (type_str(d, shape, s), mt))
                                for s in specs for d in WHERE_DTYPES for ml, mt in _mask_types((shape, s))]
                        cases += sample(pool, 1, salt=op + str(axis) + str(keepdims))
    return cases


WHERE = where_cases()


@param(WHERE)
def test_where_types(case):
    check_types(case)


@param(sample(WHERE, 60, salt="jit"))
def test_where_values_jit(case):
    """Values, concrete shardings and collectives (no more than JAX's) of compiled programs."""
    check_values(dataclasses.replace(case, collectives="at_most"))


@param(sample(WHERE, 30, salt="eager"))
def test_where_values_eager(case):
    check_eager(case)


def _kw_fn(op: str, **kw):
    return lambda ns, x: getattr(ns, op)(x, **kw)


#: (op, keywords) beyond where=: initial=, promote_integers=, dtype=, correction=/ddof=, the method forms
KEYWORD_TABLE = [
    ("sum", dict(initial=2)), ("sum", dict(axis=0, initial=2.5)), ("prod", dict(axis=-1, initial=2)),
    ("max", dict(initial=1)), ("max", dict(axis=0, initial=0.5, keepdims=True)), ("min", dict(axis=-1, initial=-1)),
    ("amax", dict(axis=(0,), initial=1)), ("amin", dict(initial=0)),
    ("sum", dict(promote_integers=False)), ("sum", dict(axis=0, promote_integers=False)),
    ("prod", dict(promote_integers=False)), ("sum", dict(dtype="int16", promote_integers=False)),
    ("sum", dict(dtype="float32")), ("sum", dict(dtype="bfloat16")), ("mean", dict(dtype="bfloat16")),
    ("mean", dict(axis=-1, dtype="float32")),
    ("var", dict(correction=1)), ("std", dict(axis=0, correction=1)), ("var", dict(axis=-1, correction=0.5)),
    ("std", dict(ddof=1, keepdims=True)), ("var", dict(axis=(0,), ddof=2)),
    ("argmax", dict(axis=-1, keepdims=True)), ("argmin", dict(keepdims=True)),
    ("cumsum", dict(axis=0)), ("cumprod", dict(axis=-1)), ("cumsum", dict(axis=0, dtype="bool")),
    ("nansum", dict(axis=0, initial=1)), ("nanmax", dict(initial=1)), ("nanmin", dict(axis=-1, initial=-1)),
    ("nanprod", dict(axis=0, initial=2)),
]


def keyword_cases() -> list[Case]:
    cases = []
    for mesh in ("1d", "2d"):
        for k, (op, kw) in enumerate(KEYWORD_TABLE):
            for rank in (1, 2, 3):
                shape = RANK_SHAPES[rank]
                if op.startswith("cum") and kw.get("axis") is None:
                    continue
                pool = [Case(f"{op}{sorted(kw.items())}-{mesh}-{type_str(d, shape, s)}", mesh, _kw_fn(op, **kw),
                             (type_str(d, shape, s),))
                        for s in specs_for(shape, mesh) for d in WHERE_DTYPES
                        if not (op in ("std", "var") and d == "bool")]
                cases += sample(pool, 2, salt=f"kw{k}{rank}")
    return cases


KEYWORDS = keyword_cases()


@param(KEYWORDS)
def test_keyword_types(case):
    check_types(case)


@param(sample(KEYWORDS, 40, salt="v"))
def test_keyword_values(case):
    check_values(dataclasses.replace(case, collectives="at_most"))


# var/std about a precomputed mean (`mean=`), with and without a mask; the method forms
def _var_mean(op: str, axis, use_where: bool, corr):
    def fn(ns, x, m):
        w = m if use_where else None
        mu = ns.mean(x, axis=axis, keepdims=True, where=w)
        kw = {} if corr is None else {"correction": corr}   # (nanvar/nanstd take ddof only)
        return getattr(ns, op)(x, axis=axis, where=w, mean=mu, **kw)
    return fn


MEAN_CASES = [Case(f"{op}(mean=,axis={axis},where={w},correction={c})-2d-{t}", "2d", _var_mean(op, axis, w, c),
                   (t, type_str("bool", (8, 4), spec)))
              for op in ("var", "std", "nanvar", "nanstd") for axis in (None, 0, -1) for w in (False, True)
              for c in ((None,) if op.startswith("nan") else (None, 1))
              for t, spec in (("f32[8@X,4@Y]", ("X", "Y")), ("bf16[8,4@Y]", (None, "Y")))
              ]
METHOD_CASES = [
    Case("x.sum(where=)-2d", "2d", lambda ns, x, m: x.sum(0, where=m, promote_integers=False),
         ("i8[8@X,4@Y]", "bool[8@X,4@Y]")),
    Case("x.max(initial=,where=)-2d", "2d", lambda ns, x, m: x.max(1, None, True, 0, m), ("f32[8@X,4@Y]", "bool[8,4]")),
    Case("x.mean(where=)-2d", "2d", lambda ns, x, m: x.mean(where=m), ("f32[8@X,4@Y]", "bool[8@X,4@Y]")),
    Case("x.std(correction=,where=)-2d", "2d", lambda ns, x, m: x.std(0, where=m, correction=1),
         ("f32[8@X,4@Y]", "bool[8@X,4]")),
    Case("x.var(ddof=,where=)-2d", "2d", lambda ns, x, m: x.var(None, None, None, 1, True, where=m),
         ("bf16[8@X,4@Y]", "bool[8@X,4@Y]")),
    Case("x.any(where=)-2d", "2d", lambda ns, x, m: (x > 0).any(1, where=m), ("f32[8@X,4@Y]", "bool[8@X,4@Y]")),
    Case("x.all(where=)-2d", "2d", lambda ns, x, m: (x > 0).all(where=m), ("f32[8@X,4@Y]", "bool[4@Y]")),
    Case("x.prod(initial=)-2d", "2d", lambda ns, x, m: x.prod(-1, initial=2, where=m), ("u8[8@X,4@Y]", "bool[8,4]")),
    Case("x.min(where=)-1d", "1d", lambda ns, x, m: x.min(initial=5, where=m), ("i32[8@X,4]", "bool[8@X,4]")),
    Case("x.argmax(out=None)-2d", "2d", lambda ns, x, m: x.argmax(0, None, True), ("f32[8@X,4@Y]", "bool[8,4]")),
    Case("x.cumsum(dtype=)-2d", "2d", lambda ns, x, m: x.cumsum(1, "int32", None), ("i8[8@X,4]", "bool[8,4]")),
]


@param(MEAN_CASES + METHOD_CASES)
def test_mean_keyword_and_methods(case):
    check_types(case)
    check_values(dataclasses.replace(case, collectives="at_most"))


# gradients through masked reductions
GRAD_CASES = [
    Case(f"grad-{name}-{mesh}-{t}", mesh, fn, (t, m))
    for name, fn in [
        ("mean(where)", lambda ns, x, m: ns.grad(lambda v: ns.mean(v * v, where=m))(x)),
        ("mean(where,axis)", lambda ns, x, m: ns.grad(lambda v: ns.sum(ns.mean(ns.sin(v), axis=0, where=m)))(x)),
        ("sum(where)", lambda ns, x, m: ns.grad(lambda v: ns.sum(v * v, where=m))(x)),
        ("sum(where,initial)", lambda ns, x, m: ns.grad(lambda v: ns.sum(ns.sum(v, 1, where=m, initial=1.0)))(x)),
        ("max(where,initial)", lambda ns, x, m: ns.grad(lambda v: ns.max(v, where=m, initial=-10.0))(x)),
        ("max(where,initial,axis)", lambda ns, x, m: ns.grad(
            lambda v: ns.sum(ns.max(v, axis=-1, where=m, initial=0.0)))(x)),
        ("var(where)", lambda ns, x, m: ns.grad(lambda v: ns.var(v, where=m))(x)),
        ("std(where,correction)", lambda ns, x, m: ns.grad(lambda v: ns.sum(ns.std(v, 0, where=m, correction=1)))(x)),
    ]
    for mesh, t, m in [("2d", "f32[8@X,4@Y]", "bool[8@X,4@Y]"), ("2d", "f32[8@X,4]", "bool[8,4]"),
                       ("1d", "f32[8@X,4]", "bool[8@X,4]")]
]


@param(GRAD_CASES)
def test_grad_through_masked_reductions(case):
    check_types(case)
    check_values(dataclasses.replace(case, collectives="at_most"))


# --- JAX's errors -------------------------------------------------------------------------------------------
ERRORS = [
    Case(f"{op}(out=)", "2d", lambda ns, x, op=op: getattr(ns, op)(x, out=x), ("f32[8@X,4@Y]",),
         phrase=WHOLE_MESSAGE, expect="reject", kind=NotImplementedError)
    for op in ("sum", "prod", "max", "min", "amax", "amin", "any", "all", "mean", "std", "var", "argmax", "argmin",
               "cumsum", "cumprod", "nansum", "nanprod", "nanmax", "nanmin", "nanmean", "nanvar", "nanstd",
               "round", "ptp")
] + [
    Case("outer(out=)", "2d", lambda ns, x: ns.outer(x, x, x), ("f32[8@X]",), phrase=WHOLE_MESSAGE, expect="reject"),
    Case("x.sum(out=)", "2d", lambda ns, x: x.sum(out=x), ("f32[8@X,4@Y]",), phrase=WHOLE_MESSAGE, expect="reject"),
    Case("x.mean(out=)", "2d", lambda ns, x: x.mean(0, None, x), ("f32[8@X,4@Y]",), phrase=WHOLE_MESSAGE,
         expect="reject"),
] + [
    Case(f"{op}(where=) without initial", "2d", lambda ns, x, m, op=op: getattr(ns, op)(x, where=m),
         ("f32[8@X,4@Y]", "bool[8@X,4@Y]"), phrase=WHOLE_MESSAGE, expect="reject", kind=ValueError)
    for op in ("max", "min", "amax", "amin", "nanmax", "nanmin")
] + [
    Case(f"{op}(where=int)", "2d", lambda ns, x, m, op=op: getattr(ns, op)(x, where=m),
         ("f32[8@X,4@Y]", "i32[8@X,4@Y]"), phrase=WHOLE_MESSAGE, expect="reject", kind=ValueError)
    for op in ("sum", "prod", "any", "all", "mean", "var", "std", "nansum", "nanmean")
] + [
    Case("sum(initial=array)", "2d", lambda ns, x: ns.sum(x, initial=ns.ones(2)), ("f32[8@X,4@Y]",),
         phrase=WHOLE_MESSAGE, expect="reject", kind=ValueError),
    Case("max(zero-size)", "2d", lambda ns, x: ns.max(x[:0]), ("f32[8,4]",), phrase=WHOLE_MESSAGE,
         expect="reject", kind=ValueError),
    Case("max(zero-size, initial)", "2d", lambda ns, x: ns.max(x[:, :0], axis=1, initial=0.0), ("f32[8@X,4@Y]",)),
    Case("argmax(zero-size)", "2d", lambda ns, x: ns.argmax(x[:0]), ("f32[8,4]",), phrase=WHOLE_MESSAGE,
         expect="reject", kind=ValueError),
    Case("var(ddof=,correction=)", "2d", lambda ns, x: ns.var(x, ddof=1, correction=1), ("f32[8@X,4@Y]",),
         phrase=WHOLE_MESSAGE, expect="reject", kind=ValueError),
    Case("std(ddof=,correction=)", "2d", lambda ns, x: ns.std(x, 0, None, None, 2, correction=0), ("f32[8@X,4@Y]",),
         phrase=WHOLE_MESSAGE, expect="reject", kind=ValueError),
    Case("x.var(ddof=,correction=)", "2d", lambda ns, x: x.var(ddof=1, correction=1), ("f32[8@X,4@Y]",),
         phrase=WHOLE_MESSAGE, expect="reject", kind=ValueError),
    Case("std(dtype=int)", "2d", lambda ns, x: ns.std(x, dtype="int32"), ("f32[8@X,4@Y]",), phrase=WHOLE_MESSAGE,
         expect="reject", kind=ValueError),
    Case("var(complex, dtype=real)", "2d", lambda ns, x: ns.var(x, dtype="float32"), ("c64[8@X,4@Y]",),
         phrase=WHOLE_MESSAGE, expect="reject", kind=ValueError),
    Case("sum(duplicate axis)", "2d", lambda ns, x: ns.sum(x, axis=(0, -2)), ("f32[8@X,4@Y]",),
         phrase=WHOLE_MESSAGE, expect="reject", kind=ValueError),
    Case("sum(axis out of bounds)", "2d", lambda ns, x: ns.sum(x, axis=2), ("f32[8@X,4@Y]",),
         phrase=WHOLE_MESSAGE, expect="reject", kind=ValueError),
    Case("sum(0-d, axis=0)", "2d", lambda ns, x: ns.sum(x[0, 0], axis=0), ("f32[8,4]",),
         phrase=WHOLE_MESSAGE, expect="reject", kind=ValueError),
    Case("mean(axis out of bounds, where)", "2d", lambda ns, x, m: ns.mean(x, axis=-3, where=m),
         ("f32[8@X,4@Y]", "bool[8@X,4@Y]"), expect="reject", kind=ValueError),
    Case("sum(list)", "2d", lambda ns, x: ns.sum([1.0, 2.0]), ("f32[8@X,4@Y]",), phrase=WHOLE_MESSAGE,
         expect="reject", kind=TypeError),
    Case("sum(where=list)", "2d", lambda ns, x: ns.sum(x, where=[[True] * 4] * 8), ("f32[8@X,4@Y]",),
         phrase=WHOLE_MESSAGE, expect="reject", kind=TypeError),
    Case("ravel(order=K)", "2d", lambda ns, x: ns.ravel(x, order="K"), ("f32[8@X,4@Y]",), phrase=WHOLE_MESSAGE,
         expect="reject", kind=NotImplementedError),
    Case("cumsum(axis=None, sharded)", "2d", lambda ns, x: ns.cumsum(x, None, None, None), ("f32[8@X,4@Y]",),
         expect="reject"),
]


@param(ERRORS)
def test_reduction_errors(case):
    check_types(case)


# --- ravel(order=), take_along_axis(wrap_negative_indices=), outer, cumsum's dtype ---------------------------
OTHER = [
    Case(f"ravel(order={o})-{mesh}-{t}", mesh, lambda ns, x, o=o: ns.ravel(x, o), (t,))
    for o in ("C", "F") for mesh, t in [("2d", "f32[8@X,4@Y]"), ("2d", "f32[8,4@Y]"), ("2d", "i32[8@X,4]"),
                                        ("1d", "f32[4,2,8@X]"), ("1d", "f32[8@X]"), ("1d", "bf16[]"),
                                        ("2d", "i32[8,4]"), ("1d", "f32[4,2,8]")]
] + [
    Case(f"ravel(order=F,out_sharding=)-{t}", "2d", lambda ns, x: ns.ravel(x, "F", out_sharding=ns.P("X")), (t,))
    for t in ("f32[8,4]", "f32[8@X,4]", "f32[8,4@X]")
] + [
    Case(f"take_along_axis(wrap_negative_indices={w},mode={md})", "2d",
         lambda ns, x, w=w, md=md: ns.take_along_axis(
             x, ns.asarray([[0, -1, 2, -4]] * 8), axis=1, mode=md, wrap_negative_indices=w), ("f32[8@X,4]",))
    for w in (None, True, False) for md in (None, "clip", "fill")
] + [
    Case(f"outer-{t}", "2d", lambda ns, x: ns.outer(x, x[:4]), (t,)) for t in ("f32[8@X]", "i8[8]", "bf16[8@Y]")
] + [
    Case(f"{op}-{t}", "1d", lambda ns, x, op=op: getattr(ns, op)(x, axis=1), (t,))
    for op in ("cumsum", "cumprod") for t in ("i8[8@X,4]", "u8[8,4]", "bool[8@X,4]", "bf16[8,4]")
]


@param(OTHER)
def test_other_signatures_values(case):
    check_types(case)
    check_values(dataclasses.replace(case, collectives="at_most"))
