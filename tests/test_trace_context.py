"""The trace context (shardc/trace_context.py) against JAX 0.10.2: `make_user_context` values and
the promotion flags are part of every jit cache key. Each script below runs on both sides with a
fresh jitted function that counts its traces and bakes the user context's value into its result;
after every call both sides must have traced the same number of times and returned the same
value, and `.value` / `get_global()` must read the same. Scripts cover `with` blocks, nesting,
`set_global`, returning to an earlier value (found again, not retraced), promotion flags,
static arguments, nested jits, and threads (a `with` block is per thread; a global value is not)."""
from __future__ import annotations

import threading

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import shardc as sc
import shardc.numpy as snp

# a script is a list of steps: ("call",), ("call_static", k), ("nested",), ("with", ctx, value, steps),
# ("set_global", ctx, value), ("flag", name, value, steps), ("thread", steps)
SCRIPTS: dict[str, list] = {
    "same value twice": [("call",), ("call",)],
    "with block then back": [("call",), ("with", 0, 2, [("call",), ("call",)]), ("call",)],
    "two values, then the first again": [
        ("with", 0, 2, [("call",)]), ("with", 0, 3, [("call",)]), ("with", 0, 2, [("call",)])],
    "nested blocks": [("with", 0, 2, [("call",), ("with", 0, 5, [("call",)]), ("call",)]), ("call",)],
    "two contexts": [("with", 0, 2, [("with", 1, 7, [("call",)])]), ("with", 1, 7, [("call",)]),
                     ("with", 1, 7, [("with", 0, 2, [("call",)])])],
    "set_global": [("call",), ("set_global", 0, 4), ("call",), ("set_global", 0, None), ("call",)],
    "with block over set_global": [("set_global", 0, 4), ("with", 0, 9, [("call",)]), ("call",),
                                   ("set_global", 0, None)],
    "equal values are one entry": [("with", 0, 2, [("call",)]), ("with", 0, 2, [("call",)])],
    "value equal to the default": [("call",), ("with", 0, None, [("call",)])],
    "rank promotion flag": [("call",), ("flag", "numpy_rank_promotion", "raise", [("call",)]), ("call",),
                            ("flag", "numpy_rank_promotion", "raise", [("call",)])],
    "dtype promotion flag": [("call",), ("flag", "numpy_dtype_promotion", "strict", [("call",), ("call",)]),
                             ("call",)],
    "static arguments": [("call_static", 1), ("with", 0, 2, [("call_static", 1), ("call_static", 2)]),
                         ("call_static", 1)],
    "nested jit": [("nested",), ("with", 0, 2, [("nested",)]), ("nested",)],
    "thread: a with block is per thread": [("with", 0, 2, [("call",), ("thread", [("call",)]), ("call",)])],
    "thread: its own block": [("call",), ("thread", [("with", 0, 6, [("call",)])]), ("call",),
                              ("with", 0, 6, [("call",)])],
    "thread: sees set_global": [("set_global", 0, 8), ("thread", [("call",)]), ("set_global", 0, None)],
}


class _Side:
    """One side's namespace: jit, numpy, user contexts and the flag context managers."""

    def __init__(self, top, np_mod):
        self.top, self.np = top, np_mod
        self.ctx = [top.make_user_context(None), top.make_user_context(None)]
        self.traces = [0]
        ctx0 = self.ctx[0]

        def body(x):
            self.traces[0] += 1
            return x * (ctx0.value or 1)

        self.f = top.jit(body)
        self.g = top.jit(lambda x, k: body(x) + k, static_argnums=1)
        self.outer = top.jit(lambda x: self.f(x) + 1.0)
        self.x = np_mod.arange(4.0)


def _run(side: _Side, steps: list, log: list) -> None:
    for step in steps:
        op = step[0]
        if op in ("call", "call_static", "nested"):
            fn = {"call": lambda: side.f(side.x), "nested": lambda: side.outer(side.x),
                  "call_static": lambda: side.g(side.x, step[1])}[op]
            out = np.asarray(fn())
            log.append((op, side.traces[0], out.tolist(), side.ctx[0].value, side.ctx[1].value))
        elif op == "with":
            with side.ctx[step[1]](step[2]):
                log.append(("in", side.ctx[step[1]].value, side.ctx[step[1]].get_global()))
                _run(side, step[3], log)
        elif op == "set_global":
            side.ctx[step[1]].set_global(step[2])
            log.append(("global", side.ctx[step[1]].value))
        elif op == "flag":
            with getattr(side.top, step[1])(step[2]):
                _run(side, step[3], log)
        elif op == "thread":
            sub: list = []
            t = threading.Thread(target=_run, args=(side, step[1], sub))
            t.start()
            t.join()
            log.append(("thread", sub))


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_trace_counts_and_values_match_jax(name: str) -> None:
    logs = []
    for top, np_mod in ((jax, jnp), (sc, snp)):
        log: list = []
        _run(_Side(top, np_mod), SCRIPTS[name], log)
        logs.append(log)
    assert logs[1] == logs[0]


def test_unhashable_value_is_jax_type_error() -> None:
    for top, np_mod in ((jax, jnp), (sc, snp)):
        ctx = top.make_user_context(None)
        f = top.jit(lambda x: x + 1)
        f(np_mod.ones(2))
        with ctx([1]), pytest.raises(TypeError, match="unhashable type: 'list'"):
            f(np_mod.ones(2))


def test_promotion_flag_back_to_old_value_does_not_retrace_or_recompile() -> None:
    """The point of keying on the flag (instead of forgetting every program): coming back to
    'allow' finds the program compiled under 'allow' (the same Compiled object is run)."""
    f = sc.jit(lambda x: x * 2)
    x = snp.ones(3)
    f(x)
    before = dict(f._compiled)
    with sc.numpy_rank_promotion("raise"):
        f(x)
        assert f._compiled is not before and len(f._compiled) == 1
    f(x)
    assert list(f._compiled.values()) == list(before.values())


def test_rank_raise_inside_block_rejects_a_program_traced_outside() -> None:
    """A program traced under 'allow' that broadcasts ranks is traced again, and rejected, under
    'raise' (JAX's ValueError), then accepted again outside the block."""
    for top, np_mod in ((jax, jnp), (sc, snp)):
        f = top.jit(lambda a, b: a + b)
        a, b = np_mod.ones((2, 3)), np_mod.ones(3)
        f(a, b)
        with top.numpy_rank_promotion("raise"), pytest.raises(ValueError, match="jax_numpy_rank_promotion='raise'"):
            f(a, b)
        np.testing.assert_array_equal(np.asarray(f(a, b)), 2 * np.ones((2, 3)))
