"""Differential: `grad` / `vjp` / `value_and_grad` through `auto_axes` and `explicit_axes`
regions whose inputs are sharded, as JAX 0.10.2.

The backward pass of an operation inside a region runs under the region's mesh (the context
mesh with the region's axis types), as JAX's `eqn.ctx` does; it used to run under the outer
mesh and fail ("context mesh ... should match the aval mesh"). Each program runs on an
Explicit, an Auto and a mixed (Explicit X, Auto Y) 2x4 mesh: accept/reject and types of
every program from its argument types; values and output shardings of a compiled and an
eager subset.
"""
from __future__ import annotations

from oracle import Case, MeshSpec, Placed, check, param

MESHES = {"EE": "2d", "AA": "2d_auto", "EA": MeshSpec((2, 4), ("X", "Y"), "EA")}


def _auto(ns, f, out, axes=None):
    return ns.auto_axes(f, out_sharding=out, **({} if axes is None else {"axes": axes}))


PROGRAMS = {
    "grad-sum-out-P()": lambda ns, x: ns.grad(lambda y: _auto(ns, lambda z: (z * z).sum(), ns.P())(y))(x),
    "grad-square-out-XY": lambda ns, x: ns.grad(
        lambda y: _auto(ns, lambda z: z * z, ns.P("X", "Y"))(y).sum())(x),
    "grad-square-out-X": lambda ns, x: ns.grad(
        lambda y: _auto(ns, lambda z: z * z, ns.P("X", None))(y).sum())(x),
    "grad-axes-X-out-XY": lambda ns, x: ns.grad(
        lambda y: _auto(ns, lambda z: z * 2.0, ns.P("X", "Y"), axes="X")(y).sum())(x),
    "grad-axes-Y-out-X": lambda ns, x: ns.grad(
        lambda y: _auto(ns, lambda z: ns.sin(z) * z, ns.P("X", None), axes="Y")(y).sum())(x),
    "vjp-sin-out-XY": lambda ns, x: ns.vjp(lambda y: _auto(ns, ns.sin, ns.P("X", "Y"))(y), x)[1](x),
    "value_and_grad-matmul": lambda ns, x: ns.value_and_grad(
        lambda y: _auto(ns, lambda z: (z @ z.T).sum(), ns.P())(y))(x),
    "grad-tanh-dot-out-X": lambda ns, x: ns.grad(
        lambda y: _auto(ns, lambda z: ns.tanh(z @ z.T), ns.P("X", None))(y).sum())(x),
    "grad-region-times-outer": lambda ns, x: ns.grad(
        lambda y: (_auto(ns, lambda z: ns.exp(z), ns.P("X", "Y"))(y) * y).sum())(x),
    "grad-of-grad": lambda ns, x: ns.grad(lambda y: ns.grad(
        lambda w: _auto(ns, lambda z: (z * z * z).sum(), ns.P())(w))(y).sum())(x),
    "grad-explicit-sum": lambda ns, x: ns.grad(
        lambda y: ns.explicit_axes(lambda z: (z * z).sum(), in_sharding=ns.P("X", "Y"))(y))(x),
    "grad-explicit-out": lambda ns, x: ns.grad(
        lambda y: ns.explicit_axes(lambda z: ns.exp(z) * z, in_sharding=ns.P("X", None))(y).sum())(x),
    "grad-explicit-reduce-axis": lambda ns, x: ns.grad(
        lambda y: ns.explicit_axes(lambda z: z.sum(axis=0), in_sharding=ns.P(None, "Y"))(y).sum())(x),
}

ARGS = {"f32": (Placed((8, 4), ("X", "Y")),), "bf16": (Placed((8, 4), ("X", "Y"), "bf16"),)}

CASES = [Case(f"{name}-{m}-{dt}", MESHES[m], fn, ARGS[dt], tol=(2e-4, 2e-4) if dt == "f32" else None)
         for name, fn in PROGRAMS.items() for m in MESHES for dt in ARGS]
# compiled and run (values, output shardings, collectives no more than JAX's): the f32 cases
RUN = [c for c in CASES if c.id.endswith("-f32")]
EAGER = [c for c in RUN if c.id.endswith("-EE-f32") or c.id.endswith("-EA-f32")][::3]


@param(CASES)
def test_grad_through_regions_types(case):
    check(case, "trace")


@param(RUN)
def test_grad_through_regions_values(case):
    check(case, "jit", collectives="at_most")


@param(EAGER)
def test_grad_through_regions_eagerly(case):
    check(case, "eager")
