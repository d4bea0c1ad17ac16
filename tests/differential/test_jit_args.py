"""`jit` arguments against `jax.jit`: `static_argnums` / `static_argnames` (one
program per static value, Python values inside), traced keyword arguments,
`donate_argnums` accepted, and the non-hashable static argument error."""
from __future__ import annotations

from oracle import Case, check, param


def _static_num(ns, x):
    f = ns.jit(lambda a, n, shape: ns.reshape(a * n, shape), static_argnums=(1, 2))
    return f(x, 3, (8, 2, 2)), f(x, 2.5, (8, 4))


def _static_name(ns, x):
    f = ns.jit(lambda a, reps=1: sum([ns.sin(a)] * reps), static_argnames="reps")
    return f(x, reps=3), f(x, 2)


def _keywords(ns, x, y):
    f = ns.jit(lambda a, *, b, scale=2.0: a * b + scale)
    return f(x, b=y), f(x, b=y, scale=y)


def _donate(ns, x, y):
    return ns.jit(lambda a, b: a @ b, donate_argnums=0)(x, y)


def _nested_static(ns, x):
    inner = ns.jit(lambda a, k: a ** k, static_argnums=1)
    return ns.jit(lambda a: inner(a, 2) + inner(a, 3))(x)


CASES = [Case(f"{name}-{mode}", "2d", fn, args, mode=mode, expect="accept")
         for name, fn, args in [("static_argnums", _static_num, ("f32[8@X,4]",)),
                                ("static_argnames", _static_name, ("f32[8@X,4@Y]",)),
                                ("keywords", _keywords, ("f32[8@X,4@Y]", "f32[8@X,4@Y]")),
                                ("donate", _donate, ("f32[8@X,16]", "f32[16,4@Y]")),
                                ("nested-static", _nested_static, ("f32[8@X,4]",))]
         for mode in ("trace", "jit", "eager")]

ERRORS = [Case("unhashable-static", "2d",
               lambda ns, x: ns.jit(lambda a, s: a, static_argnums=1)(x, [1, 2]), ("f32[8@X,4]",),
               expect="reject", kind=ValueError, phrase="Non-hashable static arguments are not supported")]


@param(CASES)
def test_jit_arguments(case):
    check(case)


@param(ERRORS)
def test_jit_argument_errors(case):
    check(case)
