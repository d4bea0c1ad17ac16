"""Differential: `shardc.flatten_util.ravel_pytree` against JAX 0.10.2's `jax.flatten_util`.

* the flat vector and the unraveled pytree over mixed dtypes (f32 / bf16 / int32 / bool), nested
  dicts / lists / tuples / None, scalars and empty pytrees: structure, shape, dtype, weak type,
  values, leaf by leaf;
* inside `jit` on an Explicit 2x4 mesh with sharded leaves: `str(typeof)` of the flat vector and
  of every unraveled leaf equals JAX's;
* `grad` through `unravel` and through `ravel_pytree`;
* JAX's errors of the unravel function (wrong dtype, wrong length).
"""
from __future__ import annotations

from typing import Any, Callable

import jax
import jax.flatten_util
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

import shardc as sc
import shardc.flatten_util

_rng = np.random.default_rng(0)
F = _rng.standard_normal((2, 3)).astype(np.float32)
G = _rng.standard_normal(4).astype(np.float32)
H = _rng.standard_normal((3,)).astype(ml_dtypes.bfloat16)
I32 = np.arange(5, dtype=np.int32)
BOOL = np.array([True, False, True])
C64 = (G + 1j * G).astype(np.complex64)


def _lib(top):
    """(flatten_util, numpy) of one side."""
    return (jax.flatten_util, jnp) if top is jax else (sc.flatten_util, sc.numpy)


#: name -> fn(top) giving the pytree to ravel (built with that side's arrays where it matters)
TREES: dict[str, Callable[[Any], Any]] = {
    "f32_single": lambda top: F,
    "dict_f32": lambda top: {"w": F, "b": G},
    "mixed_f32_bf16": lambda top: {"w": F, "h": H},
    "mixed_f32_int_bool": lambda top: [F, I32, BOOL],
    "int_only": lambda top: (I32, I32[:2]),
    "int_bool": lambda top: (I32, BOOL),
    "bf16_bool": lambda top: {"a": H, "m": BOOL},
    "complex_real": lambda top: (C64, G),
    "nested": lambda top: {"a": [F, (G, None)], "b": {"c": (I32,), "d": []}, "e": None},
    "python_scalars": lambda top: (1.5, 2, True),
    "python_float": lambda top: 3.0,
    "numpy_scalar": lambda top: np.float32(2.5),
    "scalar_and_array": lambda top: (np.float32(2.5), G),
    "device_arrays": lambda top: {"x": top.numpy.asarray(F), "y": top.numpy.arange(3)},
    "weak_array": lambda top: (top.numpy.asarray(F) * 2.0, 1.0),
    "empty_dict": lambda top: {},
    "empty_nested": lambda top: [(), {"a": None}],
    "zero_size_leaf": lambda top: (np.zeros((0, 3), np.float32), G),
}


def _leaf_info(x) -> tuple:
    t = jax.typeof(x) if isinstance(x, jax.Array) else sc.typeof(x)
    return np.asarray(x).shape, np.asarray(x).dtype, bool(getattr(t, "weak_type", False))


def _same(j, s, *, exact: bool = True) -> None:
    jl, jt = jax.tree.flatten(j)
    sl, st = jax.tree.flatten(s)
    assert str(jt) == str(st), (jt, st)
    for x, y in zip(jl, sl):
        assert _leaf_info(x) == _leaf_info(y), (_leaf_info(x), _leaf_info(y))
        if exact:
            np.testing.assert_array_equal(np.asarray(y), np.asarray(x))
        else:
            np.testing.assert_allclose(np.asarray(y, np.float32), np.asarray(x, np.float32), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", sorted(TREES))
def test_ravel_and_unravel_match_jax(name: str) -> None:
    got = []
    for top in (jax, sc):
        fu, _ = _lib(top)
        flat, unravel = fu.ravel_pytree(TREES[name](top))
        got.append((flat, unravel(flat)))
    (jf, ju), (sf, su) = got
    _same(jf, sf)
    _same(ju, su)


@pytest.mark.parametrize("name", ["dict_f32", "mixed_f32_bf16", "mixed_f32_int_bool", "nested", "empty_dict"])
def test_ravel_inside_jit_matches_jax(name: str) -> None:
    got = []
    for top in (jax, sc):
        fu, _ = _lib(top)
        tree = TREES[name](top)

        def f(t):
            flat, unravel = fu.ravel_pytree(t)
            return flat * 2, unravel(flat * 2)
        got.append(top.jit(f)(tree))
    _same(got[0], got[1])


def test_unravel_is_dtype_polymorphic_for_one_dtype() -> None:
    """One leaf dtype: JAX's unravel takes a vector of any dtype (jax issue 7809)."""
    got = []
    for top in (jax, sc):
        fu, N = _lib(top)
        flat, unravel = fu.ravel_pytree({"w": F, "b": G})
        got.append(unravel(N.asarray(flat, N.bfloat16)))
    _same(got[0], got[1])


def test_unravel_functions_of_alike_trees_are_equal_as_jax() -> None:
    for top in (jax, sc):
        fu, _ = _lib(top)
        u1, u2 = fu.ravel_pytree({"a": F, "b": H})[1], fu.ravel_pytree({"a": F * 2, "b": H})[1]
        u3 = fu.ravel_pytree({"a": G, "b": H})[1]
        assert u1 == u2 and hash(u1) == hash(u2) and u1 != u3, top


#: JAX's errors of the unravel function: name -> (tree, fn(N, flat) giving the bad vector)
UNRAVEL_ERRORS = {
    "wrong_dtype_mixed": ({"w": F, "h": H}, lambda N, f: N.asarray(f, N.float16)),
    "wrong_dtype_int": ((F, I32), lambda N, f: N.asarray(f, N.int32)),
    "too_short": ({"w": F, "b": G}, lambda N, f: f[:3]),
    "too_long_mixed": ({"w": F, "h": H}, lambda N, f: N.concatenate([f, f])),
    "not_a_vector": ((F, G), lambda N, f: N.reshape(f, (2, 5))),
}


@pytest.mark.parametrize("name", sorted(UNRAVEL_ERRORS))
def test_unravel_errors_match_jax(name: str) -> None:
    tree, bad = UNRAVEL_ERRORS[name]
    errs = []
    for top in (jax, sc):
        fu, N = _lib(top)
        flat, unravel = fu.ravel_pytree(tree)
        with pytest.raises(Exception) as e:
            unravel(bad(N, flat))
        errs.append(e.value)
    je, se = errs
    assert isinstance(se, type(je)) or type(je).__name__ in {c.__name__ for c in type(se).__mro__}, (je, se)
    assert str(je)[:40] in str(se), (str(je), str(se))


#: sharded leaves: name -> [(value, spec)]; JAX refuses some (SHARDED_ERRORS: the ShardingTypeError of its
#: `concatenate` when the raveled shardings differ, of its `reshape` when only a minor dim is sharded)
SHARDED = {
    "same_flat_sharding": [(np.arange(32, dtype=np.float32).reshape(8, 4), ("X", "Y")),
                           (np.arange(16, dtype=np.float32), (("X", "Y"),))],
    "mixed_dtypes_same_sharding": [(np.arange(32, dtype=np.float32).reshape(8, 4), ("X", "Y")),
                                   (np.arange(16, dtype=np.int32), (("X", "Y"),))],
    "replicated": [(np.arange(32, dtype=np.float32).reshape(8, 4), (None, None)),
                   (np.arange(3, dtype=np.float32), (None,))],
    "one_leaf_X": [(np.arange(32, dtype=np.float32).reshape(8, 4), ("X", None))],
    "one_leaf_XY": [(np.arange(32, dtype=np.float32).reshape(8, 4), ("X", "Y"))],
    "one_leaf_bf16": [(np.arange(32, dtype=np.float32).reshape(8, 4).astype(ml_dtypes.bfloat16), ("X", None))],
    "minor_dim_sharded": [(np.arange(32, dtype=np.float32).reshape(8, 4), (None, "Y"))],
    "different_shardings": [(np.arange(32, dtype=np.float32).reshape(8, 4), ("X", "Y")),
                            (np.arange(8, dtype=np.float32), ("Y",))],
    "sharded_and_replicated": [(np.arange(32, dtype=np.float32).reshape(8, 4), ("X", None)),
                               (np.arange(6, dtype=np.float32).reshape(2, 3), (None, None))],
}
SHARDED_ERRORS = {"different_shardings": "All operands should have the same sharding",
                  "sharded_and_replicated": "All operands should have the same sharding",
                  "minor_dim_sharded": "This reshape is not supported"}


@pytest.mark.parametrize("name", sorted(SHARDED))
def test_sharded_leaves_under_jit_match_jax(name: str) -> None:
    jm = jax.make_mesh((2, 4), ("X", "Y"), axis_types=(jax.sharding.AxisType.Explicit,) * 2)
    sm = sc.make_mesh((2, 4), ("X", "Y"))
    got = []
    for top, mesh in ((jax, jm), (sc, sm)):
        fu, _ = _lib(top)
        with top.sharding.set_mesh(mesh) if top is jax else top.set_mesh(mesh):
            leaves = [top.device_put(v, top.P(*spec)) for v, spec in SHARDED[name]]

            def f(*xs):
                flat, unravel = fu.ravel_pytree(list(xs))
                return flat, unravel(flat + 1)
            try:
                flat, back = top.jit(f)(*leaves)
            except Exception as e:  # noqa: BLE001  (both sides must then refuse alike)
                got.append(e)
                continue
            got.append((flat, back, str(top.typeof(flat)), [str(top.typeof(b)) for b in back]))
    if name in SHARDED_ERRORS:
        je, se = got
        assert isinstance(je, Exception) and isinstance(se, Exception), got
        assert type(je).__name__ in {c.__name__ for c in type(se).__mro__}, (je, se)
        phrase = SHARDED_ERRORS[name]
        assert phrase in str(je) and phrase in str(se), (je, se)
        return
    assert not isinstance(got[1], Exception), got[1]
    (jf, jb, jft, jbt), (sf, sb, sft, sbt) = got
    assert sft == jft and sbt == jbt, ((sft, sbt), (jft, jbt))
    _same(jf, sf)
    _same(jb, sb)


#: grad through unravel / ravel: name -> (params tree, fn(N, params) -> scalar through a flat vector)
GRADS = {
    "through_unravel": ({"w": F, "b": G},
                        lambda fu, N, p: N.sum(N.sin(fu.ravel_pytree(p)[1](fu.ravel_pytree(p)[0] * 3.0)["w"]))),
    "through_ravel": ({"w": F, "b": G}, lambda fu, N, p: N.sum(fu.ravel_pytree(p)[0] ** 2)),
    "mixed_bf16": ({"w": F, "h": H}, lambda fu, N, p: N.sum(fu.ravel_pytree(p)[0] ** 2)),
    "flat_param": (G, lambda fu, N, v: N.sum(N.tanh(fu.ravel_pytree({"a": G[:2], "b": (G[2:],)})[1](v)["a"]))),
}


@pytest.mark.parametrize("name", sorted(GRADS))
@pytest.mark.parametrize("jit", [False, True])
def test_grad_through_ravel_matches_jax(name: str, jit: bool) -> None:
    tree, fn = GRADS[name]
    got = []
    for top in (jax, sc):
        fu, N = _lib(top)
        g = top.grad(lambda p: fn(fu, N, p))
        got.append((top.jit(g) if jit else g)(tree))
    _same(got[0], got[1], exact=False)


def test_every_jax_name_is_built() -> None:
    public = {n for n in dir(jax.flatten_util) if not n.startswith("_")}
    assert public == set(sc.flatten_util.__all__) and all(hasattr(sc.flatten_util, n) for n in public)
