"""The steady-state call path (`Jit._call_known`, `Compiled.__call__`'s fast path, the
executable's `fast_runner`): a call whose argument types and meshes are the very objects of an
earlier call skips the signature work, and must still behave exactly as the checked path:
results (values, types, shardings, meshes, pytree structure) as JAX's, donation, deleted
arrays, arrays on another device, weak types, pytrees, static arguments, keywords, the context
mesh, `clear_caches` and `disable_jit`. Every case calls a program several times, so that the
first call takes the checked path and the later ones the steady-state path."""
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import shardc as sc
import shardc.numpy as snp
from shardc import P

CALLS = 4   # the first call traces and compiles; the others take the steady-state path
_X = np.arange(32, dtype=np.float32).reshape(8, 4)

jax_mesh = lambda: jax.make_mesh((2, 4), ("X", "Y"), axis_types=(jax.sharding.AxisType.Explicit,) * 2)


def _spec(sharding) -> tuple:
    """A sharding's spec entries padded to rank 2 (None: a single-device sharding)."""
    spec = getattr(sharding, "spec", None)
    return None if spec is None else tuple(spec) + (None,) * (2 - len(spec))


# name -> function written once against a namespace (jnp or snp)
PROGRAMS = {
    "one-result": lambda np_, x, y: x * 2.0 + y,
    "tuple": lambda np_, x, y: (x + y, np_.sin(x)),
    "dict": lambda np_, x, y: {"s": (x * y).sum(), "d": x - y},
    "nested": lambda np_, x, y: [x, {"z": (y, x.sum(axis=0))}],
}


@pytest.mark.parametrize("where", ["1-device", "mesh"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_steady_state_results_agree_with_jax(name, where):
    fn = PROGRAMS[name]
    if where == "mesh":
        jm, sm = jax_mesh(), sc.make_mesh((2, 4), ("X", "Y"))
        with jax.set_mesh(jm):
            jx, jy = jax.device_put(_X, jax.P("X", "Y")), jax.device_put(_X + 1, jax.P("X", None))
            jout = jax.jit(lambda x, y: fn(jnp, x, y))(jx, jy)
        with sc.set_mesh(sm):
            x, y = sc.device_put(_X, P("X", "Y")), sc.device_put(_X + 1, P("X", None))
            prog = sc.jit(lambda x, y: fn(snp, x, y))
            outs = [prog(x, y) for _ in range(CALLS)]
    else:
        jout = jax.jit(lambda x, y: fn(jnp, x, y))(jnp.asarray(_X), jnp.asarray(_X + 1))
        x, y = sc.asarray(_X), sc.asarray(_X + 1)
        prog = sc.jit(lambda x, y: fn(snp, x, y))
        outs = [prog(x, y) for _ in range(CALLS)]
    j_leaves, j_tree = jax.tree_util.tree_flatten(jout)
    for out in outs:
        leaves, tree = jax.tree_util.tree_flatten(out)
        assert tree == j_tree and all(type(o) is sc.Array for o in leaves)
        for o, j in zip(leaves, j_leaves):
            np.testing.assert_array_equal(np.asarray(o), np.asarray(j))
            assert str(sc.typeof(o)) == str(jax.typeof(j))
            assert _spec(o.sharding) == _spec(j.sharding)
            assert (o.mesh is None) == (where == "1-device")
            assert o.committed == j.committed
    # the steady-state results carry the checked path's types and meshes (the same objects)
    for a, b in zip(jax.tree_util.tree_leaves(outs[0]), jax.tree_util.tree_leaves(outs[-1])):
        assert a._shardc_type == b._shardc_type and a._mesh is b._mesh


class Scaled:
    """A pytree node whose aux data (the scale) is part of the program's signature."""

    def __init__(self, w, scale):
        self.w, self.scale = w, scale


jax.tree_util.register_pytree_node(Scaled, lambda s: ((s.w,), s.scale), lambda scale, ch: Scaled(ch[0], scale))


def test_steady_state_pytree_arguments_are_keyed_by_their_structure():
    """The same leaves under another structure (aux data, container, None) are another signature."""
    x = sc.asarray(_X)
    traces = []

    def f(a):
        traces.append(1)
        leaves = jax.tree_util.tree_leaves(a)
        return leaves[0] * (a.scale if isinstance(a, Scaled) else float(len(leaves)))

    prog, jf = sc.jit(f), jax.jit(f)
    xj = jnp.asarray(_X)
    args = [lambda v: Scaled(v, 2.0), lambda v: Scaled(v, 5.0), lambda v: (v,), lambda v: [v, v],
            lambda v: {"a": v, "b": None}, lambda v: {"a": v, "b": v}, lambda v: v]
    for _ in range(3):
        for make in args:
            np.testing.assert_array_equal(np.asarray(prog(make(x))), np.asarray(jf(make(xj))))
    assert len(traces) == 2 * len(args)   # once per structure on each side, never again


def test_steady_state_context_mesh_is_part_of_the_signature():
    """A program without array arguments is typed on the context mesh: the steady state of one
    context is not reused under another (JAX's jit keys on the context mesh too)."""
    def ones():
        return snp.ones((8, 4))

    prog = sc.jit(ones)
    meshes = [sc.make_mesh((2, 4), ("X", "Y")), sc.make_mesh((8,), ("X",)), None]
    j_meshes = [jax_mesh(), jax.make_mesh((8,), ("X",), axis_types=(jax.sharding.AxisType.Explicit,)), None]
    for _ in range(3):
        for m, jm in zip(meshes, j_meshes):
            if m is None:
                out, jout = prog(), jax.jit(lambda: jnp.ones((8, 4)))()
            else:
                with sc.set_mesh(m), jax.set_mesh(jm):
                    out, jout = prog(), jax.jit(lambda: jnp.ones((8, 4)))()
            assert (out.mesh is None) == (m is None)
            if m is not None:
                assert out.mesh.axis_names == m.axis_names == jout.sharding.mesh.axis_names
            assert str(sc.typeof(out)) == str(jax.typeof(jout))


def test_steady_state_weak_types_are_separate_signatures():
    """A weakly typed scalar and a strong one of the same shape and dtype: each call's result
    is typed as JAX types it, in any order of calls."""
    weak, strong = sc.jit(lambda: 2.0)(), sc.asarray(np.float32(2.0))
    j_weak, j_strong = jax.jit(lambda: 2.0)(), jnp.asarray(np.float32(2.0))
    assert sc.typeof(weak).weak_type and not sc.typeof(strong).weak_type
    prog, jf = sc.jit(lambda s: s * 3), jax.jit(lambda s: s * 3)
    for _ in range(3):
        for a, ja in ((weak, j_weak), (strong, j_strong)):
            out, jout = prog(a), jf(ja)
            assert sc.typeof(out).weak_type == jax.typeof(jout).weak_type
            assert str(sc.typeof(out)) == str(jax.typeof(jout))
            np.testing.assert_array_equal(np.asarray(out), np.asarray(jout))


def test_steady_state_static_arguments_and_keywords():
    prog = sc.jit(lambda x, n, *, y: x * n + y, static_argnums=1)
    jf = jax.jit(lambda x, n, *, y: x * n + y, static_argnums=1)
    x, y, xj, yj = sc.asarray(_X), sc.asarray(_X + 1), jnp.asarray(_X), jnp.asarray(_X + 1)
    for _ in range(3):
        for n in (2, 3):
            np.testing.assert_array_equal(np.asarray(prog(x, n, y=y)), np.asarray(jf(xj, n, y=yj)))
    kw = sc.jit(lambda x, y: x - y)
    for _ in range(3):
        np.testing.assert_array_equal(np.asarray(kw(x, y=y)), _X - (_X + 1))
        np.testing.assert_array_equal(np.asarray(kw(y, x)), (_X + 1) - _X)
        np.testing.assert_array_equal(np.asarray(kw(x, _X)), np.zeros_like(_X))  # host data mixed in


def test_steady_state_donation_deletes_and_then_refuses(mesh24):
    """A donated argument is deleted by a steady-state call as by the first one, and passing it
    again gets the checked path's error (never XLA's), through `prog(x)` and the AOT object."""
    x = sc.device_put(_X, P("X", "Y"))
    step = sc.jit(lambda a: a * 2.0, donate_argnums=0)
    ys = [step(x)]
    for _ in range(CALLS):
        ys.append(step(ys[-1]))
    assert [y._jax.is_deleted() for y in ys] == [True] * CALLS + [False]
    np.testing.assert_array_equal(np.asarray(ys[-1]), _X * 2.0 ** (CALLS + 1))
    for arr in (x, ys[0], ys[-2]):
        with pytest.raises(sc.ShardcRuntimeError, match="was donated to an earlier call"):
            step(arr)
    compiled = step.lower(ys[-1]).compile()
    z = compiled(compiled(ys[-1]))
    with pytest.raises(sc.ShardcRuntimeError, match="was donated to an earlier call"):
        compiled(ys[-1])
    np.testing.assert_array_equal(np.asarray(z), _X * 2.0 ** (CALLS + 3))


def test_steady_state_aot_calls_check_their_arguments(mesh24):
    """`Compiled.__call__` on its steady state: another shape, another layout, another device or
    another count of arguments gets the same ShardcValueError as on a cold executable."""
    x = sc.device_put(_X, P("X", "Y"))
    bad = {"shape": sc.device_put(np.ones((8, 8), np.float32), P("X", "Y")),
           "layout": sc.device_put(_X, P("Y", "X")), "dtype": sc.device_put(_X.astype(np.int32), P("X", "Y"))}

    def errors(compiled):
        out = {}
        for k, v in bad.items():
            with pytest.raises(sc.ShardcValueError) as e:
                compiled(v)
            out[k] = str(e.value).splitlines()[0].split(": ", 1)[-1]
        with pytest.raises(sc.ShardcValueError) as e:
            compiled(x, x)
        out["count"] = str(e.value).splitlines()[0].split(": ", 1)[-1]
        return out

    prog = sc.jit(lambda a: a + 1.0)
    cold = errors(prog.lower(x).compile())
    warm_compiled = prog.lower(x).compile()
    for _ in range(CALLS):
        np.testing.assert_array_equal(np.asarray(warm_compiled(x)), _X + 1)
    assert errors(warm_compiled) == cold
    assert "compiled for" in cold["shape"] and "laid out as" in cold["layout"]
    np.testing.assert_array_equal(np.asarray(warm_compiled(x)), _X + 1)


def test_steady_state_aot_call_on_another_device():
    """As test_runtime's prog(x) case, through the AOT object: the same type (the very type
    object, so the steady-state key matches) on device 3."""
    on0 = sc.asarray(jax.device_put(np.ones(4, np.float32), jax.devices()[0]))
    on3 = sc.Array(jax.device_put(np.ones(4, np.float32), jax.devices()[3]), on0.aval)
    compiled = sc.jit(lambda x: x + 1.0).lower(on0).compile()
    for _ in range(CALLS):
        np.testing.assert_array_equal(np.asarray(compiled(on0)), np.full(4, 2.0, np.float32))
    with pytest.raises(sc.ShardcValueError, match="sc.device_put"):
        compiled(on3)


def test_steady_state_clear_caches_and_disable_jit():
    traces = []

    def f(a):
        traces.append(1)
        return a + 1.0

    prog, x = sc.jit(f), sc.asarray(_X)
    for _ in range(CALLS):
        prog(x)
    assert len(traces) == 1
    sc.clear_caches()
    prog(x)
    prog(x)
    assert len(traces) == 2                      # traced again once, as jax.clear_caches does
    with sc.disable_jit():
        out = prog(x)
        prog(x)
    assert len(traces) == 4 and np.array_equal(np.asarray(out), _X + 1)   # the Python body ran each call
    prog(x)
    assert len(traces) == 4


def test_steady_state_calls_inside_a_program_are_traced():
    """A program called while another is traced inlines (its steady state does not run it)."""
    inner = sc.jit(lambda a: a * 3.0)
    x = sc.asarray(_X)
    for _ in range(CALLS):
        inner(x)
    outer = sc.jit(lambda a: inner(a) + inner(a))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(np.asarray(outer(x)), _X * 6)
    assert str(outer.trace(x)).count("mul") >= 2    # both calls of inner are in outer's program


def test_fresh_arrays_of_a_validated_layout_skip_the_argument_checks(mesh24, monkeypatch):
    """Each `device_put` makes a new sharding object; one equal to a layout the executable has
    validated is not checked again (the checks run once per layout), and a layout it has not
    validated still is (and refused as before)."""
    from shardc.runtime.executable import Executable
    checked = []
    real = Executable.check_args
    monkeypatch.setattr(Executable, "check_args", lambda self, args: (checked.append(1), real(self, args))[1])
    prog = sc.jit(lambda a: a * 2.0)
    for k in range(CALLS):
        x = sc.device_put(_X + k, P("X", "Y"))
        np.testing.assert_array_equal(np.asarray(prog(x)), (_X + k) * 2.0)
    assert len(checked) == 1
    compiled = prog.lower(x).compile()
    with pytest.raises(sc.ShardcValueError, match="laid out as"):
        compiled(sc.device_put(_X, P("Y", "X")))
    assert len(checked) == 2


#: host arguments: NumPy arrays and scalars, Python scalars; each call gets other values of the
#: same kinds, so a signature keyed by value (or not cached) would show as one compile per call
HOST_ARGS = {
    "numpy-array": lambda k: (np.full((8, 4), k, np.float32),),
    "python-float": lambda k: (_X, float(k) + 0.5),
    "python-int": lambda k: (_X, k),
    "python-bool": lambda k: (_X, bool(k % 2)),
    "numpy-scalar": lambda k: (_X, np.float32(k)),
    "numpy-int-array": lambda k: (np.arange(4, dtype=np.int32) * k,),
}


@pytest.mark.parametrize("name", sorted(HOST_ARGS))
def test_host_arguments_compile_once_per_signature(name, monkeypatch):
    """A program called with NumPy / Python arguments compiles once per signature (JAX's
    dispatch keys them by shape, dtype and weak type), with each call's own values."""
    fn = lambda x, *y: (x * 2 + sum(y), x.sum())   # noqa: E731
    f, g = sc.jit(fn), jax.jit(fn)
    compiles = []
    real = sc.stages.Jit._lower_traced
    monkeypatch.setattr(sc.stages.Jit, "_lower_traced", lambda self, *a, **k: compiles.append(1) or real(self, *a, **k))
    for k in range(1, CALLS + 1):
        args = HOST_ARGS[name](k)
        got, want = f(*args), g(*args)
        for s, j in zip(got, want):
            assert str(sc.typeof(s)) == str(jax.typeof(j))
            np.testing.assert_array_equal(np.asarray(s), np.asarray(j))
    assert len(compiles) == 1


def test_host_int_out_of_int32_range_is_refused_every_call():
    f = sc.jit(lambda x, n: x + n)
    assert float(f(_X, 3)[0, 0]) == 3.0
    for _ in range(2):
        with pytest.raises(OverflowError, match="too large to convert to int32"):
            f(_X, 2**40)
