"""Programs written against a module pair (`jax.scipy.linalg` / `shardc.scipy.linalg`, ...): run once per
side under `jit` on that side's mesh with the same placed arguments, with what each side said (its outputs
and their `str(typeof)`, or its exception) returned for the test to compare. The differential tests of the
ported modules (tests/differential/test_scipy_*.py) share it."""
from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

import jax

import shardc as sc


@functools.cache
def module_meshes() -> tuple:
    """(JAX's, shardc's) Explicit (2, 4) mesh ('X', 'Y')."""
    return (jax.make_mesh((2, 4), ("X", "Y"), axis_types=(jax.sharding.AxisType.Explicit,) * 2),
            sc.make_mesh((2, 4), ("X", "Y")))


def on_both_meshes(fn: Callable[..., Any], modules: Sequence[tuple], args: Sequence[tuple],
                   run: Callable[[Callable[[], Any]], Any] = lambda call: call()) -> list:
    """`jit(lambda *xs: fn(*side_modules, *xs))` of `args` (`(value, spec)` pairs placed by each side)
    on JAX's mesh, then on shardc's: per side `(outputs, [str(typeof) of each leaf])`, or the exception
    (JAX's ShardingTypeError is not a TypeError: anything it raises is kept). `modules` is one tuple
    of modules per side; `run` wraps the call (a test's warnings filter)."""
    got: list = []
    for top, mods, mesh in zip((jax, sc), modules, module_meshes()):
        with top.set_mesh(mesh):
            placed = [top.device_put(val, top.P(*spec)) for val, spec in args]
            try:
                out = run(lambda: top.jit(lambda *xs: fn(*mods, *xs))(*placed))
                got.append((out, [str(top.typeof(o)) for o in jax.tree.leaves(out)]))
            except Exception as e:  # noqa: BLE001  (the exception is the side's answer)
                got.append(e)
    return got
