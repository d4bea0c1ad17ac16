"""Transformations composed with each other, with `shard_map` and with control flow, against the
same compositions in JAX: `grad(shard_map(checkpoint))`, `jit(grad(scan(checkpoint)))`,
`jvp(scan)`, `grad(grad)`, custom rules inside loops inside shard_map, `jacrev(shard_map)`, …
Types, values and collectives (shardc ≤ JAX)."""
from __future__ import annotations

from oracle import Case, check, param


def _sm(ns, body, in_specs, out_specs):
    return ns.shard_map(body, in_specs=in_specs, out_specs=out_specs)


def grad_shard_map_remat(ns, x, w):
    body = ns.checkpoint(lambda a, b: ns.tanh(a @ b) * 2.0)
    f = _sm(ns, body, (ns.P("X", None), ns.P()), ns.P("X", None))
    return ns.grad(lambda w: ns.sum(f(x, w) ** 2))(w)


def jit_grad_scan_remat(ns, x, w):
    layer = ns.checkpoint(lambda c, w: ns.sin(c @ w), policy=ns.checkpoint_policies.dots_saveable)
    loss = lambda w: ns.sum(ns.scan(lambda c, _: (layer(c, w), None), x, None, length=3)[0])  # noqa: E731
    return ns.jit(ns.grad(loss))(w)


def jvp_scan(ns, x, w):
    f = lambda x: ns.scan(lambda c, _: (ns.tanh(c @ w), ns.sum(c)), x, None, length=3)  # noqa: E731
    return ns.jvp(f, (x,), (x * 0.5,))


def grad_grad(ns, x, w):
    f = lambda w: ns.sum(ns.sin(x @ w))  # noqa: E731
    return ns.grad(lambda w: ns.sum(ns.grad(f)(w) ** 2))(w)


def custom_vjp_in_scan_in_shard_map(ns, x, w):
    @ns.custom_vjp
    def act(a):
        return ns.tanh(a)
    act.defvjp(lambda a: (ns.tanh(a), ns.tanh(a)), lambda t, g: (g * (1.0 - t * t) * 0.5,))

    def body(a, b):
        c, _ = ns.scan(lambda c, _: (act(c @ b), None), a, None, length=2)
        return c
    f = _sm(ns, body, (ns.P("X", None), ns.P()), ns.P("X", None))
    return ns.grad(lambda w: ns.sum(f(x, w)))(w)


def jacrev_of_shard_map(ns, x, w):
    f = _sm(ns, lambda a, b: ns.psum(ns.sum(ns.sin(a @ b), axis=0), "X"), (ns.P("X", None), ns.P()), ns.P())
    return ns.jacrev(lambda w: f(x, w))(w)


def grad_cond_in_scan(ns, x, w):
    def step(c, i):
        c = ns.cond(i % 2 == 0, lambda c: ns.sin(c @ w), lambda c: ns.cos(c @ w), c)
        return c, None
    return ns.grad(lambda w: ns.sum(ns.scan(step, x, ns.arange(4))[0]))(w)


def value_and_grad_jit_nested(ns, x, w):
    inner = ns.jit(lambda a, b: ns.tanh(ns.matmul(a, b, out_sharding=ns.P("X", None))))
    return ns.value_and_grad(lambda w: ns.sum(ns.lax.map(lambda r: ns.sum(inner(r, w)), x[None])))(w)


def hvp_through_shard_map(ns, x, w):
    f = _sm(ns, lambda a, b: ns.psum(ns.sum(ns.tanh(a @ b) ** 2), "X"), (ns.P("X", None), ns.P()), ns.P())
    g = ns.grad(lambda w: f(x, w))
    return ns.jvp(g, (w,), (w * 0.1,))


def grad_grad_scan(ns, x, w):
    f = lambda w: ns.sum(ns.scan(lambda c, _: (ns.tanh(c @ w), None), x, None, length=2)[0])  # noqa: E731
    return ns.grad(lambda w: ns.sum(ns.grad(f)(w) ** 2))(w)


def grad_grad_remat(ns, x, w):
    f = lambda w: ns.sum(ns.checkpoint(lambda a: ns.sin(a @ w))(x))  # noqa: E731
    return ns.grad(lambda w: ns.sum(ns.grad(f)(w) ** 2))(w)


def grad_grad_custom_vjp(ns, x, w):
    @ns.custom_vjp
    def act(a):
        return ns.sin(a)
    act.defvjp(lambda a: (ns.sin(a), ns.cos(a)), lambda c, g: (g * c,))
    f = lambda w: ns.sum(act(x @ w))  # noqa: E731
    return ns.grad(lambda w: ns.sum(ns.grad(f)(w) ** 2))(w)


ARGS = ("f32[8@X,16]", "f32[16,16]")
PROGRAMS = [grad_shard_map_remat, jit_grad_scan_remat, jvp_scan, grad_grad, custom_vjp_in_scan_in_shard_map,
            jacrev_of_shard_map, grad_cond_in_scan, value_and_grad_jit_nested, hvp_through_shard_map,
            grad_grad_scan, grad_grad_remat, grad_grad_custom_vjp]
# Known gap (docs/rules.md 3.6): the JVP of a scan is the transpose of its VJP, a second loop, so a
# collective in the body runs in both loops where JAX's single JVP loop lets XLA merge it
# (jvp_scan: 2 all-reduces, JAX 1). Types and values agree.
SEPARATE_LOOPS = {"jvp_scan"}
CASES = [Case(f"{fn.__name__}-{mode}", "2d", fn, ARGS, mode=mode, expect="accept",
              collectives=None if fn.__name__ in SEPARATE_LOOPS else "at_most", tol=(1e-4, 1e-4))
         for fn in PROGRAMS for mode in ("trace", "jit")]


@param(CASES)
def test_compositions(case):
    check(case)


# --- second derivatives whose inner rules replay their forward (reduce_prod's halvings, cumprod,
# a custom_vjp's `fwd`, cond branches, scan, remat): under `jacrev` / `hessian` / `jacfwd` the
# outer pullback runs in a scan over basis vectors, where the replayed values are captures of the
# enclosing program's; shardc's Hessians of prod, cumprod and custom_vjp functions were wrong there
def _clip_vjp(ns):
    @ns.custom_vjp
    def f(a):
        return ns.sin(a) * a

    def bwd(res, g):
        a, c = res
        return (ns.clip(g * (c * a + ns.sin(a)), -0.3, 0.3) * a,)
    f.defvjp(lambda a: (f(a), (a, ns.cos(a))), bwd)
    return f


SECOND = {
    "prod": lambda ns, v: ns.prod(v) ** 2 + ns.sum(ns.sin(v)),
    "cumprod": lambda ns, v: ns.sum(ns.cumprod(v) ** 2),
    "custom_vjp": lambda ns, v: ns.sum(_clip_vjp(ns)(v) ** 2),
    "custom_vjp_shared": lambda ns, v: ns.sum(_clip_vjp(ns)(v[0] * v)),
    "cond": lambda ns, v: ns.sum(ns.cond(v[0] > 0, lambda y: ns.sin(y) * y, lambda y: y, v) ** 2),
    "scan": lambda ns, v: ns.scan(lambda c, vi: (c * ns.sin(vi) + vi * c, None), 1.0, v)[0],
    "remat": lambda ns, v: ns.sum(ns.checkpoint(lambda y: ns.sin(y) * ns.exp(y))(v) ** 2),
    "max": lambda ns, v: ns.max(ns.sin(v) * v) ** 2,
}
OUTER = {
    "jacrev_grad": lambda ns, f: ns.jacrev(ns.grad(f)),
    "hessian": lambda ns, f: ns.hessian(f),
    "jacrev_jacrev": lambda ns, f: ns.jacrev(ns.jacrev(f)),
}
SECOND_CASES = [
    Case(f"{outer}-{name}-{mode}-{arg}", "2d",
         lambda ns, v, f=f, o=o: o(ns, lambda v: f(ns, v))(v), (arg,), mode=mode,
         # sharded: some of JAX's rules refuse (prod's halvings slice the sharded dim); shardc must too
         expect="accept" if "@" not in arg else None, tol=(1e-4, 1e-4),
         # known gap: max's second derivative over a sharded operand runs 3 all-reduces to JAX's 2
         # (the count of maxima is summed again in the outer pullback's loop); values agree
         collectives=None if (name, arg) == ("max", "f32[4@X]") else "at_most")
    for name, f in SECOND.items() for outer, o in OUTER.items() for mode in ("trace", "jit")
    for arg in ("f32[4]", "f32[4@X]")
    # the custom_vjp ones under hessian (jacfwd of jacrev): JAX gives a user's custom_vjp no
    # forward mode (test_custom_transforms.py has the refusal)
    if not (outer == "hessian" and name.startswith("custom_vjp"))]


@param(SECOND_CASES)
def test_second_derivatives(case):
    check(case)
