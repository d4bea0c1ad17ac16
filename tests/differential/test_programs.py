"""Differential: random short programs (hypothesis, derandomized). Each
program starts from a sharded input and applies a chain of ops whose
parameters are drawn from the current shape: elementwise math, scalar
arithmetic, transposes, reductions, reshapes that split or merge, slices,
reshards to any spec (valid or not), expand_dims, concatenation, softmax,
cumsum and where. Accept/reject and every output type must match JAX."""
from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle import BASIC_MESHES, Case, check_types, check_values, specs_for, type_str

START_SHAPES = [(8,), (8, 4), (4, 2, 8), (16, 8), (2, 4, 2, 8), (8, 8)]


def _step(draw, shape, mesh):
    """Draw one op applicable to `shape`: (description, new shape or None, fn)."""
    nd = len(shape)
    kinds = ["unary", "scalar", "reshard", "expand", "where"]
    if nd >= 1:
        kinds += ["reduce", "slice", "concat", "softmax", "cumsum", "split"]
    if nd >= 2:
        kinds += ["transpose", "merge"]
    k = draw(st.sampled_from(kinds))
    if k == "unary":
        op = draw(st.sampled_from(["sin", "exp", "negative", "tanh", "abs"]))
        return f"{op}", shape, lambda ns, x: getattr(ns, op)(x)
    if k == "scalar":
        op = draw(st.sampled_from(["*2", "+1.5", "-x", "/3"]))
        f = {"*2": lambda ns, x: x * 2, "+1.5": lambda ns, x: x + 1.5, "-x": lambda ns, x: -x,
             "/3": lambda ns, x: x / 3}[op]
        return op, shape, f
    if k == "reshard":
        valid = draw(st.booleans()) or not specs_for(shape, mesh, valid=False)
        specs = specs_for(shape, mesh, valid=valid)
        spec = draw(st.sampled_from(specs))
        return f"reshard{spec}", shape, lambda ns, x: ns.reshard(x, ns.P(*spec))
    if k == "expand":
        ax = draw(st.integers(0, nd))
        return f"expand_dims({ax})", shape[:ax] + (1,) + shape[ax:], lambda ns, x: ns.expand_dims(x, ax)
    if k == "where":
        return "where(x>0,x,0)", shape, lambda ns, x: ns.where(x > 0, x, 0.0)
    ax = draw(st.integers(0, nd - 1))
    if k == "reduce":
        op = draw(st.sampled_from(["sum", "max", "mean"]))
        keep = draw(st.booleans())
        new = shape[:ax] + ((1,) if keep else ()) + shape[ax + 1:]
        return f"{op}({ax},keepdims={keep})", new, lambda ns, x: getattr(ns, op)(x, axis=ax, keepdims=keep)
    if k == "slice":
        d = shape[ax]
        stop = draw(st.integers(1, d))
        idx = (slice(None),) * ax + (slice(0, stop),)
        return f"slice(dim {ax}, :{stop})", shape[:ax] + (stop,) + shape[ax + 1:], lambda ns, x: x[idx]
    if k == "concat":
        new = shape[:ax] + (2 * shape[ax],) + shape[ax + 1:]
        return f"concat([x,x],{ax})", new, lambda ns, x: ns.concatenate([x, x], axis=ax)
    if k == "softmax":
        return f"softmax({ax})", shape, lambda ns, x: ns.softmax(x, axis=ax)
    if k == "cumsum":
        return f"cumsum({ax})", shape, lambda ns, x: ns.cumsum(x, axis=ax)
    if k == "split":
        d = shape[ax]
        divs = [a for a in range(1, d + 1) if d % a == 0]
        a = draw(st.sampled_from(divs))
        new = shape[:ax] + (a, d // a) + shape[ax + 1:]
        return f"reshape{new}", new, lambda ns, x: ns.reshape(x, new)
    if k == "merge":
        ax = draw(st.integers(0, nd - 2))
        new = shape[:ax] + (shape[ax] * shape[ax + 1],) + shape[ax + 2:]
        return f"reshape{new}", new, lambda ns, x: ns.reshape(x, new)
    if k == "transpose":
        perm = tuple(draw(st.permutations(range(nd))))
        return f"transpose{perm}", tuple(shape[p] for p in perm), lambda ns, x: ns.transpose(x, perm)
    raise AssertionError(k)


@st.composite
def cases(draw):
    mesh = draw(st.sampled_from(sorted(BASIC_MESHES)))
    shape0 = draw(st.sampled_from(START_SHAPES))
    spec = draw(st.sampled_from(specs_for(shape0, mesh)))
    dtype = draw(st.sampled_from(["f32", "bf16"]))
    shape, steps, fns = shape0, [], []
    for _ in range(draw(st.integers(1, 5))):
        if len(shape) > 4 or math.prod(shape) > 1024:
            break
        desc, shape, fn = _step(draw, shape, mesh)
        steps.append(desc)
        fns.append(fn)

    def program(ns, x):
        for f in fns:
            x = f(ns, x)
        return x

    arg = type_str(dtype, shape0, spec)
    return Case(f"{mesh}-{arg}: " + " → ".join(steps), mesh, program, (arg,))


_SETTINGS = dict(derandomize=True, deadline=None, database=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@settings(max_examples=400, **_SETTINGS)
@given(cases())
def test_random_programs_types(case):
    check_types(case)


@settings(max_examples=25, **_SETTINGS)
@given(cases())
def test_random_programs_values(case):
    check_values(case)
