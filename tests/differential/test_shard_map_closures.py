"""Values a `shard_map` body closes over, against `jax.shard_map`: refused on meshes with
Explicit axes (JAX's NotImplementedError), passed in whole (invariant, global shape) on
all-Auto meshes, also through control flow inside the body and under `grad`."""
from __future__ import annotations

from oracle import Case, MeshSpec, check, param


def _times(ns, x, w):
    return ns.shard_map(lambda a: a * w, in_specs=ns.P("X", None), out_specs=ns.P("X", None))(x)


def _scalar(ns, x, w):
    s = ns.sum(w)
    return ns.shard_map(lambda a: a * s, in_specs=ns.P("X", None), out_specs=ns.P("X", None))(x)


def _matmul(ns, x, w):
    return ns.shard_map(lambda a: ns.tanh(a @ w.T), in_specs=ns.P("X", None), out_specs=ns.P("X", None))(x)


def _in_scan(ns, x, w):
    def body(a):
        c, _ = ns.scan(lambda c, _: (ns.sin(c @ w.T), None), a, None, length=2)
        return c
    return ns.shard_map(body, in_specs=ns.P("X", None), out_specs=ns.P("X", None))(x)


def _grad(ns, x, w):
    def loss(w):
        return ns.sum(ns.shard_map(lambda a: ns.sin(a @ w.T), in_specs=ns.P("X", None),
                                   out_specs=ns.P("X", None))(x))
    return ns.grad(loss)(w)


AUTO = MeshSpec((8,), ("X",), "A")
AUTO2 = MeshSpec((2, 4), ("X", "Y"), "AA")
CASES = [Case(f"{name}-{mname}-{mode}", mesh, fn, args, mode=mode)
         for name, fn, args in [("times-whole", _times, ("f32[16,4]", "f32[16,4]")),
                                ("times-mismatch", _times, ("f32[16,4]", "f32[4,4]")),
                                ("scalar", _scalar, ("f32[16,4]", "f32[16,4]")),
                                ("matmul", _matmul, ("f32[16,4]", "f32[4,4]")),
                                ("in-scan", _in_scan, ("f32[16,4]", "f32[4,4]")),
                                ("grad", _grad, ("f32[16,4]", "f32[4,4]"))]
         for mname, mesh in [("explicit", "1d"), ("auto", AUTO), ("auto2d", AUTO2)]
         for mode in ("trace", "jit")]


@param(CASES)
def test_shard_map_closures(case):
    check(case)
