"""`jit` arguments against `jax.jit`: `static_argnums` / `static_argnames` (one
program per static value, Python values inside), traced keyword arguments,
donation (the same buffers reused, arrays deleted, memory stats, warnings and
aliasing attributes as JAX's), and the non-hashable static argument error."""
from __future__ import annotations

import warnings

import jax
import numpy as np
import pytest
from oracle import Case, check, param

import shardc as sc


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


# --- donation: buffers reused as JAX reuses them -------------------------------------------------
_X = np.arange(64 * 16, dtype=np.float32).reshape(64, 16)

# name -> (function, jit keywords, argument specs (over mesh axis X), static values appended)
DONATIONS = {
    "one-result-of-the-same-type": (lambda a, b: (a * 2, b.sum()), {"donate_argnums": (0, 1)}, ("X", "X")),
    "first-match-wins": (lambda a, b: (b + 1, a - 1), {"donate_argnums": 1}, ("X", "X")),
    "other-sharding-not-usable": (lambda a, b: a + b, {"donate_argnums": 1}, ("X", None)),
    "argnames": (lambda a, b: a * b, {"donate_argnames": "b"}, ("X", "X")),
    "pytree-argument": (lambda p, b: {"w": p["w"] - b, "v": p["v"]}, {"donate_argnums": 0}, ("X", "X")),
    "with-static": (lambda a, n, b: a * n + b, {"donate_argnums": 0, "static_argnums": 1}, ("X", "X")),
    "nothing-donated": (lambda a, b: a + b, {}, ("X", "X")),
}


def _donation_run(side, name):
    """(memory stats, deleted flags of the arguments, warnings, aliasing attributes, values)."""
    fn, kw, specs = DONATIONS[name]
    j = side == "jax"
    mesh = (jax.make_mesh((8,), ("X",), axis_types=(jax.sharding.AxisType.Explicit,)) if j
            else sc.make_mesh((8,), ("X",)))
    P, put = (jax.P, jax.device_put) if j else (sc.P, sc.device_put)
    with (jax.set_mesh if j else sc.set_mesh)(mesh):
        a, b = (put(_X * (k + 1), P(s, None)) for k, s in enumerate(specs))
        args = ({"w": a, "v": put(_X, P("X", None))}, b) if name == "pytree-argument" else (a, b)
        if name == "with-static":
            args = (a, 3.0, b)
        f = (jax.jit if j else sc.jit)(fn, **kw)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lowered = f.lower(*args)
            stats = lowered.compile().memory_analysis() if j else lowered.compile().memory_stats()
            out = f(*args)
        text = lowered.as_text()
        leaves = jax.tree_util.tree_leaves(args, is_leaf=lambda x: hasattr(x, "_jax"))
        deleted = [x.is_deleted() if j else x._jax.is_deleted() for x in leaves if not isinstance(x, float)]
        values = [np.asarray(o) for o in jax.tree_util.tree_leaves(out, is_leaf=lambda x: hasattr(x, "_jax"))]
    keys = ("argument_size_in_bytes", "output_size_in_bytes", "alias_size_in_bytes", "temp_size_in_bytes")
    return ({k: getattr(stats, k) for k in keys}, deleted, sorted({str(m.message).split(":")[0] for m in w}),
            sorted(line.split("tf.aliasing_output = ")[1][:1] for line in text.split("%arg")[1:]
                   if "tf.aliasing_output" in line.split(")")[0]), values)


@pytest.mark.parametrize("name", sorted(DONATIONS))
def test_donation_agrees_with_jax(name):
    j_stats, j_deleted, j_warn, j_alias, j_vals = _donation_run("jax", name)
    s_stats, s_deleted, s_warn, s_alias, s_vals = _donation_run("shardc", name)
    assert s_stats == j_stats
    assert s_deleted == j_deleted
    assert s_warn == j_warn
    assert s_alias == j_alias
    for s, v in zip(s_vals, j_vals):
        np.testing.assert_array_equal(s, v)


def test_donated_array_cannot_be_used_again(mesh24):
    with sc.set_mesh(mesh24):
        x = sc.device_put(np.ones((8, 4), np.float32), sc.P("X", "Y"))
        step = sc.jit(lambda a: a * 2.0, donate_argnums=0)
        y = step(x)
        with pytest.raises(sc.ShardcRuntimeError, match="was donated to an earlier call") as e:
            step(x)
        assert isinstance(e.value, RuntimeError) and "test_jit_args.py" in str(e.value)
        np.testing.assert_array_equal(np.asarray(step(y)), np.full((8, 4), 4.0, np.float32))
