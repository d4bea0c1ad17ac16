"""Nested `jit` (a jitted helper called while another program is traced),
against JAX: types inside and out, values and collectives, on 1-D to 3-D
meshes, inside `shard_map`, control-flow bodies and `grad`, and with the inner
function's `in_shardings` / `out_shardings` (which, as in JAX 0.10.2, do not
change types inside the outer program)."""
from __future__ import annotations

from oracle import Case, S, check, param, smap_case


def _helper(ns, **kw):
    return ns.jit(lambda a, b: ns.note(ns.tanh(a @ b), "inner"), **kw)


def _mlp(ns, x, w):
    return _helper(ns)(x, w) * 2.0


def _twice(ns, x, w):
    h = _helper(ns)
    return h(h(x, w), ns.transpose(w))


def _out_shardings(ns, x, w):
    return _helper(ns, out_shardings=ns.P(None, None))(x, w) + 1.0


def _in_shardings(ns, x, w):
    return _helper(ns, in_shardings=(ns.P(), ns.P()))(x, w)


def _grad(ns, x, w):
    loss = ns.jit(lambda a, b: ns.sum(ns.tanh(a @ b)))
    return ns.grad(loss, argnums=1)(x, w)


def _jit_of_grad_of_jit(ns, x, w):
    inner = ns.jit(lambda b: ns.sum(ns.sin(x @ b)))
    return ns.jit(ns.grad(inner))(w)


def _fori(ns, x, w):
    step = ns.jit(lambda c: c * 0.5 + 1.0)
    return ns.lax.fori_loop(0, 3, lambda i, c: step(c), x) if ns.name == "jax" else \
        ns.fori_loop(0, 3, lambda i, c: step(c), x)


def _pytree(ns, x, w):
    f = ns.jit(lambda d: {"y": d["x"] @ d["w"], "s": ns.sum(d["x"])})
    out = f({"x": x, "w": w})
    return out["y"], out["s"]


PROGRAMS = [("mlp", _mlp), ("twice", _twice), ("out_shardings", _out_shardings),
            ("in_shardings", _in_shardings), ("grad", _grad), ("jit_grad_jit", _jit_of_grad_of_jit),
            ("fori", _fori), ("pytree", _pytree)]

ARGS = {
    "1d": ("f32[8@X,16]", "f32[16,16]"),
    "2d": ("f32[8@X,16]", "f32[16,16@Y]"),
    "3d": ("f32[8@X,16@Z]", "f32[16@Z,16@Y]"),
}

CASES = [Case(f"{name}-{mesh}-{mode}", mesh, fn, args, mode=mode, collectives="at_most")
         for name, fn in PROGRAMS for mesh, args in ARGS.items() for mode in ("trace", "jit")]


@param(CASES)
def test_nested_jit(case):
    check(case)


def _smap_body(ns, a, b):
    inner = ns.jit(lambda u, v: ns.psum(u @ v, "Y"))
    return inner(a, b)


SMAP = [smap_case(f"shard_map-body-jit-{'run' if run else 'trace'}", "2d", ("f32[8@X,16@Y]", "f32[16@Y,8]"), _smap_body,
                  out_specs=S("X", None), in_specs=(S("X", "Y"), S("Y", None)), run=run)
        for run in (False, True)]


@param(SMAP)
def test_nested_jit_in_shard_map(case):
    check(case)
