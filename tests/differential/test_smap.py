"""`sc.smap` against `jax.smap`: in_axes / out_axes over one mesh axis (ints, None, tuples,
omitted = inferred from Explicit types), with collectives over the mapped axis, in programs
and eagerly, on 1-D to 3-D meshes and an Auto mesh (where in_axes cannot be inferred);
JAX's TypeErrors for bad axes. Types of outputs and of the body's inputs, values, collectives."""
from __future__ import annotations

import pytest
from oracle import Case, MeshSpec, check, param


def _double(ns, axis_name, in_axes=None, out_axes=0):
    kw = {} if in_axes == "infer" else {"in_axes": in_axes}
    return lambda x: ns.smap(lambda a: ns.note(a) * 2.0, out_axes=out_axes, axis_name=axis_name, **kw)(x)


def _psum_cols(ns, x):
    return ns.smap(lambda a: ns.psum(ns.note(a), "Y"), in_axes=1, out_axes=None, axis_name="Y")(x)


def _scalar_arg(ns, x):
    return ns.smap(lambda a, s: ns.note(a) * s, in_axes=(0, None), out_axes=0, axis_name="X")(x, 3.0)


def _tree(ns, x, y):
    f = ns.smap(lambda d: {"s": ns.note(d["a"]) + ns.note(d["b"])}, in_axes=({"a": 0, "b": 0},),
                out_axes={"s": 0}, axis_name="X")
    return f({"a": x, "b": y})["s"]


def _decorator(ns, x):
    @ns.smap(in_axes=0, out_axes=0, axis_name="X")
    def body(a):
        return ns.sin(ns.note(a))
    return body(x)


def _grad(ns, x):
    return ns.grad(lambda v: ns.sum(ns.smap(lambda a: ns.sin(a) * a, in_axes=0, out_axes=0, axis_name="X")(v)))(x)


def _all_gather(ns, x):
    return ns.smap(lambda a: ns.all_gather(ns.note(a), "X", tiled=True, to="invarying"), in_axes=0, out_axes=None,
                   axis_name="X")(x)


AUTO2 = MeshSpec((2, 4), ("X", "Y"), "AA")
PROGRAMS = [
    ("infer-X-2d", "2d", lambda ns, x: _double(ns, "X", "infer")(x), ("f32[8@X,4@Y]",)),
    ("infer-X-replicated", "2d", lambda ns, x: _double(ns, "X", "infer")(x), ("f32[8,4@Y]",)),
    ("infer-Y-3d", "3d", lambda ns, x: _double(ns, "Y", "infer", 1)(x), ("f32[4@X,8@Y,2@Z]",)),
    ("axis0-X-2d", "2d", lambda ns, x: _double(ns, "X", 0)(x), ("f32[8@X,4@Y]",)),
    ("axis1-Y-2d", "2d", lambda ns, x: _double(ns, "Y", 1, 1)(x), ("f32[8@X,4@Y]",)),
    ("axis0-X-1d", "1d", lambda ns, x: _double(ns, "X", 0)(x), ("f32[16@X,4]",)),
    ("none-in-X", "2d", lambda ns, x: _double(ns, "X", None, 0)(x), ("f32[8,4]",)),
    ("psum-cols", "2d", _psum_cols, ("f32[8@X,4@Y]",)),
    ("scalar-arg", "2d", _scalar_arg, ("f32[8@X,4@Y]",)),
    ("pytree", "2d", _tree, ("f32[8@X,4]", "f32[8@X,4]")),
    ("decorator", "3d", _decorator, ("f32[4@X,4,2]",)),
    ("grad", "2d", _grad, ("f32[8@X,4@Y]",)),
    ("all-gather", "1d", _all_gather, ("f32[16@X]",)),
    ("auto-explicit-axes", AUTO2, lambda ns, x: _double(ns, "X", 0)(x), ("f32[8,4]",)),
    ("auto-infer", AUTO2, lambda ns, x: _double(ns, "X", "infer")(x), ("f32[8,4]",)),
]
CASES = [Case(f"{name}-{mode}", mesh, fn, args, mode=mode, collectives="at_most")
         for name, mesh, fn, args in PROGRAMS for mode in ("trace", "jit", "eager")]


@param(CASES)
def test_smap(case):
    check(case)


@pytest.mark.parametrize("kw, phrase", [
    (dict(in_axes=[0], out_axes=0, axis_name="X"), "smap in_axes must be an int, None, jax.sharding.Infer, or a tuple"),
    (dict(in_axes=(0.5,), out_axes=0, axis_name="X"), "container with those types as leaves"),
    (dict(out_axes=0.5, axis_name="X"), "smap out_axes must be an int, None"),
    (dict(out_axes=0, axis_name=("X",)), "smap axis_name should be a `str`"),
])
def test_smap_argument_errors(kw, phrase):
    import jax

    import shardc as sc
    for ns in (jax, sc):
        with pytest.raises(TypeError, match=phrase.replace("(", r"\(").replace("`", "`")):
            ns.smap(lambda a: a, **kw)
