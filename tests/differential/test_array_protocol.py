"""The iteration protocol of traced values and arrays, against JAX: rows along
the first dim (so `for`, `list`, `zip` and unpacking stop), static indices
past the end clamped as JAX clamps them, a `TypeError` for 0-d arrays.

Eager iteration of a concrete array is compared for values only: JAX's
`Array.__iter__` returns rows without the array's sharding (`float32[4]` for
a `float32[8,4@Y]`), shardc's keep it."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from oracle import Case, check, param

import shardc as sc


def _sum_rows(ns, x):
    return sum(r for r in x)


def _unpack(ns, x):
    a, b, c, d = x
    return a * d - b * c


def _zip(ns, x, y):
    return [u + v for u, v in zip(x, y)]


CASES = [Case(f"{name}-{mode}", "2d", fn, args, mode=mode, expect="accept")
         for name, fn, args in [("sum-rows", _sum_rows, ("f32[8,4@Y]",)),
                                ("unpack", _unpack, ("f32[4,8@X]",)),
                                ("zip", _zip, ("f32[3,4@Y]", "f32[3,4@Y]"))]
         for mode in ("trace", "jit")]

CLAMPED = [Case(f"{name}-{mode}", "2d", fn, args, mode=mode, expect="accept")
           for name, fn, args in [("index-past-end", lambda ns, x: x[8], ("f32[8,4@Y]",)),
                                  ("negative-past-end", lambda ns, x: x[:, -5], ("f32[8,4]",)),
                                  ("far-past-end", lambda ns, x: x[100, 1], ("f32[8,4]",))]
           for mode in ("trace", "jit")]

ERRORS = [Case("iterate-0d", "2d", lambda ns, x: list(x), ("f32[]",), expect="reject", kind=TypeError)]


@param(CASES)
def test_iteration(case):
    check(case)


@param(CLAMPED)
def test_static_indices_past_the_end_are_clamped(case):
    check(case)


@param(ERRORS)
def test_iteration_errors(case):
    check(case)


def test_list_of_an_array_stops(mesh24):
    with sc.set_mesh(mesh24):
        x = sc.device_put(np.arange(12, dtype=np.float32).reshape(3, 4), sc.P(None, "Y"))
        rows = list(x)
    assert len(rows) == 3
    np.testing.assert_array_equal(np.stack([np.asarray(r) for r in rows]), np.arange(12).reshape(3, 4))
    np.testing.assert_array_equal(np.asarray(x[3]), np.arange(8, 12))   # clamped, as in JAX
    with pytest.raises(TypeError):
        iter(sc.asarray(np.float32(1.0)))


# --- eager `asarray` keeps JAX's weak types (a Python scalar is weak on devices too) --------------
VALUES = {"float": 1.0, "int": 2, "bool": True, "np.float32": np.float32(1.0), "list": [1.0, 2.0],
          "np.int8-array": np.ones(3, np.int8)}


@pytest.mark.parametrize("with_mesh", [False, True])
@pytest.mark.parametrize("name", sorted(VALUES))
def test_eager_asarray_type(name, with_mesh, mesh24):
    v = VALUES[name]
    if with_mesh:
        jm = jax.make_mesh((2, 4), ("X", "Y"), axis_types=(jax.sharding.AxisType.Explicit,) * 2)
        with jax.set_mesh(jm):
            want = str(jax.typeof(jnp.asarray(v)))
        with sc.set_mesh(mesh24):
            got = str(sc.typeof(sc.asarray(v)))
    else:
        want, got = str(jax.typeof(jnp.asarray(v))), str(sc.typeof(sc.asarray(v)))
    assert got == want
