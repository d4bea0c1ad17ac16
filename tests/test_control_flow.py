"""sc.cond / sc.fori_loop / sc.scan compared with jax.lax on a 2×4 Explicit mesh (JAX rules §2.16)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import AxisType, PartitionSpec as JP

import shardc as sc
from shardc.errors import ShardcError

A = np.arange(32, dtype=np.float32).reshape(8, 4)


@pytest.fixture
def jmesh():
    m = jax.make_mesh((2, 4), ("X", "Y"), axis_types=(AxisType.Explicit,) * 2)
    with jax.set_mesh(m):
        yield m


def _sc(a, *spec):
    return sc.reshard(sc.asarray(a), sc.P(*spec))


def _jx(a, *spec):
    return jax.device_put(a, JP(*spec))


def _same(s_out, j_out):
    s_leaves = jax.tree_util.tree_leaves(s_out, is_leaf=lambda x: hasattr(x, "_shardc_type"))
    j_leaves = jax.tree_util.tree_leaves(j_out)
    assert len(s_leaves) == len(j_leaves)
    for s, j in zip(s_leaves, j_leaves):
        assert str(sc.typeof(s)) == str(jax.typeof(j))
        np.testing.assert_allclose(np.asarray(s), np.asarray(j), rtol=1e-6)


def _both(mesh24, jmesh, fn_sc, fn_jax, args):
    """args: list of (array, spec tuple) run through sc.jit(fn_sc) and jax.jit(fn_jax)."""
    with sc.set_mesh(mesh24):
        s = sc.jit(fn_sc)(*[_sc(a, *sp) for a, sp in args])
    with jax.set_mesh(jmesh):
        j = jax.jit(fn_jax)(*[_jx(a, *sp) for a, sp in args])
    _same(s, j)
    return s


@pytest.mark.parametrize("pred", [True, False])
def test_cond_types_and_values(mesh24, jmesh, pred):
    def body(lax, p, x, y):
        return lax.cond(p, lambda a, b: (a * 2, b.sum(0)), lambda a, b: (a + b, b.max(0)), x, y)
    p = np.array(pred)
    _both(mesh24, jmesh, lambda p, x, y: body(sc, p, x, y), lambda p, x, y: body(jax.lax, p, x, y),
          [(p, ()), (A, ("X", "Y")), (A, ("X", "Y"))])


def test_cond_int_pred(mesh24, jmesh):
    _both(mesh24, jmesh, lambda i, x: sc.cond(i, lambda v: v - 1, lambda v: v * 3, x),
          lambda i, x: jax.lax.cond(i, lambda v: v - 1, lambda v: v * 3, x),
          [(np.int32(0), ()), (A, ("X", None))])


def test_cond_branch_type_error(mesh24):
    with sc.set_mesh(mesh24):
        x, y = _sc(A, "X", None), _sc(A, "Y", None)
        with pytest.raises(sc.ShardcTypeError) as e:
            sc.jit(lambda p, a, b: sc.cond(p, lambda a, b: a, lambda a, b: b, a, b))(True, x, y)
    msg = str(e.value)
    assert "cond branches must have equal output types but they differ.\n\ntrue_fun is <lambda> at " in msg
    assert ("The output of true_fun has type float32[8@X,4] but the corresponding output of false_fun "
            "has type float32[8@Y,4].\n\nRevise true_fun and/or false_fun so that all output types match."
            in msg)


@pytest.mark.parametrize("static", [True, False])
def test_fori_loop(mesh24, jmesh, static):
    def run(lax, hi, x):
        return lax.fori_loop(0, 3 if static else hi, lambda i, c: (c[0] * 2 + i, c[1] + 1.0), (x, x.sum(1)))
    _both(mesh24, jmesh, lambda h, x: run(sc, h, x), lambda h, x: run(jax.lax, h, x),
          [(np.int32(3), ()), (A, ("X", "Y"))])


@pytest.mark.parametrize("static", [True, False])
def test_fori_loop_carry_type_error(mesh24, jmesh, static):
    c = np.ones(8, np.float32)
    with jax.set_mesh(jmesh):
        with pytest.raises(TypeError) as je:
            jax.jit(lambda c, h: jax.lax.fori_loop(0, 3 if static else h, lambda i, v: jax.reshard(v, JP("X")), c))(
                _jx(c, "Y"), np.int32(3))
    with sc.set_mesh(mesh24):
        with pytest.raises(sc.ShardcTypeError) as se:
            sc.jit(lambda c, h: sc.fori_loop(0, 3 if static else h, lambda i, v: sc.reshard(v, sc.P("X")), c))(
                _sc(c, "Y"), np.int32(3))
    assert str(je.value) in str(se.value)


@pytest.mark.parametrize("reverse", [False, True])
def test_scan_types_and_values(mesh24, jmesh, reverse):
    def run(lax, c, xs):
        def f(carry, x):
            a, b = carry
            return (a + x, b * 2), {"y": a * x, "s": x.sum()}
        return lax.scan(f, (c, c.sum()), xs, reverse=reverse)
    _both(mesh24, jmesh, lambda c, xs: run(sc, c, xs), lambda c, xs: run(jax.lax, c, xs),
          [(np.ones(4, np.float32), ("Y",)), (A, (None, "Y"))])


def test_scan_no_xs(mesh24, jmesh):
    def run(lax, c):
        return lax.scan(lambda c, _: (c * 2, c.sum(0)), c, None, length=3)
    _both(mesh24, jmesh, lambda c: run(sc, c), lambda c: run(jax.lax, c), [(A, ("X", "Y"))])


def test_scan_carry_type_error(mesh24, jmesh):
    c = np.ones(8, np.float32)
    for nest in (False, True):
        def fj(c):
            return jax.lax.scan(lambda cc, x: ((jax.reshard(cc[0], JP("X")), cc[1]) if nest else
                                               jax.reshard(cc, JP("X")), x), (c, c) if nest else c, None, length=3)

        def fs(c):
            return sc.scan(lambda cc, x: ((sc.reshard(cc[0], sc.P("X")), cc[1]) if nest else
                                          sc.reshard(cc, sc.P("X")), x), (c, c) if nest else c, None, length=3)
        with jax.set_mesh(jmesh):
            with pytest.raises(TypeError) as je:
                jax.jit(fj)(_jx(c, "Y"))
        with sc.set_mesh(mesh24):
            with pytest.raises(sc.ShardcTypeError) as se:
                sc.jit(fs)(_sc(c, "Y"))
        assert str(je.value) in str(se.value)


def test_scan_carry_type_error_message(mesh24):
    with sc.set_mesh(mesh24):
        with pytest.raises(sc.ShardcTypeError) as e:
            sc.jit(lambda c: sc.scan(lambda c, x: (sc.reshard(c, sc.P("X")), x), c, None, length=3))(
                _sc(np.ones(8, np.float32), "Y"))
    assert ("scan body function carry input and carry output must have equal types, but they differ:\n\n"
            "The input carry c has type float32[8@Y] but the corresponding output carry component has type "
            "float32[8@X].\n\nRevise the function so that all output types match the corresponding input types."
            in str(e.value))


def test_scan_xs_leading_dim_error(mesh24):
    with sc.set_mesh(mesh24):
        with pytest.raises(sc.ShardcValueError) as e:
            sc.jit(lambda c, xs: sc.scan(lambda c, x: (c, x), c, xs))(
                _sc(np.ones(4, np.float32), "Y"), _sc(A, "X", "Y"))
    assert "0th dimension of all xs should be replicated. Got P('X', 'Y')" in str(e.value)


def test_eager_control_flow(mesh24):
    with sc.set_mesh(mesh24):
        x = _sc(A, "X", "Y")
        r = sc.cond(True, lambda v: v * 2, lambda v: v, x)
        assert str(sc.typeof(r)) == "float32[8@X,4@Y]"
        np.testing.assert_allclose(np.asarray(r), A * 2)
        r = sc.fori_loop(0, 2, lambda i, v: v + 1.0, x)
        np.testing.assert_allclose(np.asarray(r), A + 2)
        c, ys = sc.scan(lambda c, x: (c + x, c), _sc(np.zeros(4, np.float32), "Y"), _sc(A, None, "Y"))
        np.testing.assert_allclose(np.asarray(c), A.sum(0))
        assert str(sc.typeof(ys)) == "float32[8,4@Y]"


def test_control_flow_has_no_gradient_yet(mesh24):
    with sc.set_mesh(mesh24):
        x = _sc(A, "X", "Y")
        with pytest.raises(ShardcError, match="differentiation of .* is not supported yet"):
            sc.jit(sc.grad(lambda v: sc.fori_loop(0, 2, lambda i, c: c * 2.0, v).sum()))(x)


def test_closing_over_a_traced_value_names_the_fix():
    m = sc.make_mesh((2, 4), ("X", "Y"))
    with sc.set_mesh(m):
        w = sc.device_put(np.ones((8, 4), np.float32), sc.P("X", "Y"))

        @sc.jit
        def f(x, w):
            return sc.fori_loop(0, 3, lambda i, c: c + w, x)

        with pytest.raises(sc.ShardcValueError, match="pass it in as an operand .cond. or a carry"):
            f(w, w)
