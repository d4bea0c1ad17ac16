"""`grad` / `value_and_grad` over pytree arguments (a dict of parameters, nested
lists and tuples), `argnums` tuples and `has_aux`, against `jax.grad`: types
of every gradient leaf (JAX's cotangent sharding rule), values, collectives."""
from __future__ import annotations

from oracle import Case, check, param


def _mlp_loss(ns, params, x):
    h = ns.tanh(x @ params["w1"] + params["b1"])
    y = ns.matmul(h, params["w2"], out_sharding=ns.P("X", None))
    return ns.sum(y * y)


def _grad_dict(ns, x, w1, b1, w2):
    return ns.grad(lambda ps, x: _mlp_loss(ns, ps, x))({"w1": w1, "b1": b1, "w2": w2}, x)


def _value_and_grad_nested(ns, x, w1, b1, w2):
    def loss(ps, x):
        (a, b), c = ps
        return _mlp_loss(ns, {"w1": a, "b1": b, "w2": c}, x)
    return ns.value_and_grad(loss, argnums=(0, 1))(((w1, b1), w2), x)


def _has_aux(ns, x, w1, b1, w2):
    def loss(ps, x):
        return _mlp_loss(ns, ps, x), {"mean": ns.mean(x)}
    (v, aux), g = ns.value_and_grad(loss, has_aux=True)({"w1": w1, "b1": b1, "w2": w2}, x)
    return v, aux["mean"], g["w2"]


def _grad_has_aux(ns, x, w1, b1, w2):
    g, aux = ns.grad(lambda ps: (_mlp_loss(ns, ps, x), ps["b1"] * 2.0), has_aux=True)(
        {"w1": w1, "b1": b1, "w2": w2})
    return g["w1"], aux


ARGS = ("f32[8@X,16]", "f32[16,32@Y]", "f32[32@Y]", "f32[32@Y,16]")
CASES = [Case(f"{name}-{mode}", "2d", fn, ARGS, mode=mode, expect="accept", collectives="at_most")
         for name, fn in [("grad-dict", _grad_dict), ("value_and_grad-nested", _value_and_grad_nested),
                          ("value_and_grad-has_aux", _has_aux), ("grad-has_aux", _grad_has_aux)]
         for mode in ("trace", "jit", "eager")]


@param(CASES)
def test_grad_over_pytrees(case):
    check(case)


def _vjp_tree(ns, x, w1, b1, w2):
    def f(ps, x):
        h = ns.tanh(x @ ps["w1"] + ps["b1"])
        return {"h": h, "y": ns.matmul(h, ps["w2"], out_sharding=ns.P("X", None))}
    out, pull = ns.vjp(f, {"w1": w1, "b1": b1, "w2": w2}, x)
    g_ps, g_x = pull({"h": out["h"] * 2.0, "y": out["y"]})
    return g_ps["w1"], g_ps["b1"], g_ps["w2"], g_x


def _vjp_aux(ns, x, w1, b1, w2):
    out, pull, aux = ns.vjp(lambda a: (ns.sin(a @ w1), ns.sum(a)), x, has_aux=True)
    return pull(out)[0], aux


VJPS = [Case(f"{name}-{mode}", "2d", fn, ARGS, mode=mode, expect="accept", collectives="at_most")
        for name, fn in [("vjp-pytree", _vjp_tree), ("vjp-has_aux", _vjp_aux)] for mode in ("trace", "jit")]

VJP_ERRORS = [Case("vjp-tree-mismatch", "2d",
                   lambda ns, x: ns.vjp(lambda a: (a * 2.0, a), x)[1]((x,)), ("f32[8@X,4]",),
                   expect="reject", kind=ValueError, phrase="unexpected tree structure")]


@param(VJPS)
def test_vjp_over_pytrees(case):
    check(case)


@param(VJP_ERRORS)
def test_vjp_errors(case):
    check(case)
