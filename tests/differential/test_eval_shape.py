"""`sc.eval_shape` and `sc.ShapeDtypeStruct` against JAX's: the outputs' shapes, dtypes,
shardings and weak types without running anything; programs traced and lowered from
`ShapeDtypeStruct` arguments; `typeof` of a `ShapeDtypeStruct`."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import shardc as sc


def _side(j: bool):
    mesh = (jax.make_mesh((2, 4), ("X", "Y"), axis_types=(jax.sharding.AxisType.Explicit,) * 2) if j
            else sc.make_mesh((2, 4), ("X", "Y")))
    return mesh, (jax if j else sc), (jnp if j else sc)


PROGRAMS = {
    "elementwise+reduce": (lambda np_, a: (np_.sin(a) * 2, np_.sum(a)), [((8, 4), ("X", "Y"))]),
    "matmul": (lambda np_, a, b: a @ b, [((8, 16), ("X", None)), ((16, 4), (None, "Y"))]),
    "weak-scalar": (lambda np_, a: (a * 2, 1.0 * a.sum() + 2), [((8,), (None,))]),
    "pytree": (lambda np_, p: {"h": np_.tanh(p["x"]), "n": p["x"].shape[0] * 1.0},
               [((8, 4), ("X", None))]),
    "no-sharding": (lambda np_, a: a.T, [((4, 2), None)]),
}


def _structs(top, mesh, specs, j):
    out = []
    for shape, spec in specs:
        sharding = None if spec is None else top.sharding.NamedSharding(mesh, (jax.P if j else sc.P)(*spec))
        out.append(top.ShapeDtypeStruct(shape, np.float32, sharding=sharding))
    return out


def _summary(tree, typeof):
    return [(tuple(s.shape), np.dtype(s.dtype).name, str(typeof(s)))
            for s in jax.tree_util.tree_leaves(tree)]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_eval_shape_agrees_with_jax(name):
    fn, specs = PROGRAMS[name]
    got = {}
    for j in (True, False):
        mesh, top, np_ = _side(j)
        with (jax.set_mesh if j else sc.set_mesh)(mesh):
            args = _structs(top, mesh, specs, j)
            if name == "pytree":
                args = [{"x": args[0]}]
            out = top.eval_shape(lambda *a: fn(np_, *a), *args)
            got[j] = _summary(out, jax.typeof if j else sc.typeof)
    assert got[False] == got[True]


def test_programs_trace_and_lower_from_structs(mesh24):
    s = sc.ShapeDtypeStruct((8, 4), np.float32, sharding=sc.NamedSharding(mesh24, sc.P("X", "Y")))
    assert str(sc.typeof(s)) == "float32[8@X,4@Y]" and s.ndim == 2 and s.size == 32
    f = sc.jit(lambda a: sc.sin(a).sum(axis=0))
    assert str(f.trace(s).out_types) == "float32[4@Y]"
    assert "sdy.sharding" in f.lower(s).as_text()
    with pytest.raises(sc.ShardcValueError, match="is a type, not data"):
        f.lower(s).compile()(s)
    wide = sc.ShapeDtypeStruct((2,), np.float64)          # kept as given; typed as float32 (x64 off)
    assert wide.dtype == jax.ShapeDtypeStruct((2,), np.float64).dtype
    assert str(sc.typeof(wide)) == str(jax.typeof(jax.ShapeDtypeStruct((2,), np.float64)))


# eval_shape called inside a program, on its traced values: the struct carries the value's type
# (inside shard_map its VMA as `manual_axis_type`), and full_like of it has that type; from JAX's
# ShardMapTest.test_eval_shape_vma. name -> (function of (top, np_, p, x), body in_specs)
INSIDE = {
    "shard_map vma": lambda top, np_, p, x: np_.einsum("i,i->", x, p),
    "shard_map invariant": lambda top, np_, p, x: p * 2,
    "shard_map pytree": lambda top, np_, p, x: {"a": x * p, "b": p.sum()},
}


@pytest.mark.parametrize("name", sorted(INSIDE))
@pytest.mark.parametrize("jit", [False, True])
def test_eval_shape_inside_shard_map_keeps_vma(name, jit):
    fn = INSIDE[name]
    got = {}
    for j in (True, False):
        mesh = (jax.make_mesh((2,), ("x",), axis_types=(jax.sharding.AxisType.Explicit,)) if j
                else sc.make_mesh((2,), ("x",)))
        top, np_, P = (jax, jnp, jax.P) if j else (sc, sc.numpy, sc.P)
        seen = []
        with top.set_mesh(mesh):
            p = top.device_put(np.arange(5, dtype=np.float32), P())
            x = top.device_put(np.ones((4, 5), np.float32), P("x"))

            @top.shard_map(in_specs=(P(), P("x")), out_specs=P("x"))
            def g(p, x):
                def one_row(row):
                    s = top.eval_shape(lambda a, b: fn(top, np_, a, b), p, row)
                    for leaf in jax.tree_util.tree_leaves(s):
                        seen.append((str(top.typeof(leaf)), str(top.typeof(top.lax.full_like(leaf, 1)))))
                    return row
                return top.lax.map(one_row, x)

            (top.jit(g) if jit else g)(p, x)
        got[j] = seen
    assert got[False] == got[True] and got[True]


def test_shape_dtype_struct_manual_axis_type_is_jax_s():
    """`manual_axis_type=` as JAX's: checked, printed, part of equality, typed into the struct."""
    with pytest.raises(TypeError, match="should be of type `ManualAxisType`"):
        sc.ShapeDtypeStruct((2,), np.float32, manual_axis_type={"x"})
    m = sc.typeof(sc.ShapeDtypeStruct((2,), np.float32)).mat.update(varying={"x"})
    s = sc.ShapeDtypeStruct((2,), np.float32, manual_axis_type=m)
    assert "manual_axis_type=ManualAxisType(varying=frozenset({'x'})" in repr(s)
    assert s != sc.ShapeDtypeStruct((2,), np.float32) and hash(s) == hash(
        sc.ShapeDtypeStruct((2,), np.float32, manual_axis_type=m))
    assert sc.typeof(s).vma == frozenset({"x"})
