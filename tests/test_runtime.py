"""The runtime: compiled programs run with the mesh's device order, validate
their arguments (a mismatch is a ShardcError, never a crash), and return arrays
carrying the program's output types."""
import jax
import numpy as np
import pytest

import shardc as sc
from shardc import P


def _data(shape=(8, 4)):
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)


def test_program_roundtrip_values_and_types(mesh24):
    x = sc.device_put(_data(), P("X", "Y"))

    @sc.jit
    def f(a):
        return sc.sin(a) * 2 + 1, sc.matmul(a.T, a, out_sharding=P()).sum(0)

    y, z = f(x)
    assert str(sc.typeof(y)) == "float32[8@X,4@Y]"
    np.testing.assert_allclose(np.asarray(y), np.sin(_data()) * 2 + 1, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(z), (_data().T @ _data()).sum(0), rtol=1e-5)
    assert y.sharding == sc.NamedSharding(mesh24, P("X", "Y"))


def test_signature_types_allow_tracing_without_data(mesh24):
    @sc.jit
    def f(a: "f32[8@X,4@Y]", w: "f32[4,16@Y]"):
        return sc.dot(a, w, out_sharding=P("X", "Y"))

    traced = f.trace()
    assert str(traced.out_types) == "float32[8@X,16@Y]"
    text = f.lower().as_text()
    assert "sdy.mesh @mesh" in text and "stablehlo.dot_general" in text


def test_argument_validation_before_execute(mesh24):
    @sc.jit
    def f(a):
        return a + 1

    x = sc.device_put(_data(), P("X", "Y"))
    compiled = f.lower(x).compile()
    with pytest.raises(sc.ShardcValueError, match="laid out"):
        compiled(sc.device_put(_data(), P("Y", "X")))
    with pytest.raises(sc.ShardcValueError, match="shape/dtype"):
        compiled(sc.device_put(_data((8, 8)), P("X", "Y")))
    with pytest.raises(sc.ShardcValueError, match="arguments"):
        compiled(x, x)


def test_annotation_mismatch_is_reported(mesh24):
    @sc.jit
    def f(a: "f32[8@X,4@Y]"):
        return a

    with pytest.raises(sc.ShardcValueError, match="declares type"):
        f(sc.device_put(_data(), P("Y", "X")))


def test_numpy_inputs_take_the_declared_sharding(mesh24):
    @sc.jit
    def f(a: "f32[8@X,4@Y]"):
        return a * 3

    out = f(_data())
    assert str(sc.typeof(out)) == "float32[8@X,4@Y]"
    np.testing.assert_array_equal(np.asarray(out), _data() * 3)


def test_non_iota_device_order_matches_numpy():
    devs = np.array(jax.devices()[:8][::-1]).reshape(2, 4)
    mesh = sc.Mesh(devs, ("X", "Y"))
    with sc.set_mesh(mesh):
        x = sc.device_put(_data(), P("X", "Y"))
        s, r = sc.jit(lambda a: (a.sum(0), sc.reshard(a, P("Y", "X"))))(x)
        np.testing.assert_array_equal(np.asarray(s), _data().sum(0))
        np.testing.assert_array_equal(np.asarray(r), _data())
        for shard in r.addressable_shards:
            np.testing.assert_array_equal(np.asarray(shard.data), _data()[shard.index])


def test_program_compiled_for_one_device_order_rejects_another(mesh24):
    f = sc.jit(lambda a: a + 1)
    x = sc.device_put(_data(), P("X", "Y"))
    compiled = f.lower(x).compile()
    other = sc.Mesh(np.array(jax.devices()[:8][::-1]).reshape(2, 4), ("X", "Y"))
    with sc.set_mesh(other):
        z = sc.device_put(_data(), P("X", "Y"))
    with pytest.raises(sc.ShardcValueError, match="different device order"):
        compiled(z)


def test_unreduced_output_and_asarray_sums_partials(mesh24):
    x = sc.device_put(_data(), P(None, "X"))
    w = sc.device_put(np.ones((4, 16), np.float32), P("X", None))
    u = sc.jit(lambda a, b: sc.dot(a, b, out_sharding=P(unreduced={"X"})))(x, w)
    assert str(sc.typeof(u)) == "float32[8,16]{U:X}"
    np.testing.assert_allclose(np.asarray(u), _data() @ np.ones((4, 16), np.float32))
    # the device buffers hold addends, not the sum
    first = np.asarray(u.addressable_shards[0].data)
    assert not np.allclose(first, np.asarray(u))


def test_reshard_replicated_to_unreduced_zero_fills(mesh24):
    r = sc.device_put(np.arange(1, 9, dtype=np.float32), P())
    u = sc.reshard(r, P(unreduced={"X"}))
    assert str(sc.typeof(u)) == "float32[8]{U:X}"
    np.testing.assert_array_equal(np.asarray(u), np.arange(1, 9))
    sums = sorted(float(np.asarray(s.data).sum()) for s in u.addressable_shards)
    assert sums[0] == 0.0 and sums[-1] == 36.0


def test_eager_ops_cache_per_signature(mesh24):
    from shardc import stages
    x = sc.device_put(_data(), P("X", "Y"))
    sc.sin(x)
    n = len(stages._JITS)
    for _ in range(3):
        sc.sin(x)
    assert len(stages._JITS) == n


def test_single_device_program_without_mesh():
    with sc.set_mesh(None):
        out = sc.jit(lambda a: a * 2)(np.ones(3, np.float32))
        assert str(sc.typeof(out)) == "float32[3]"
        np.testing.assert_array_equal(np.asarray(out), [2, 2, 2])


def test_emitted_text_is_deterministic(mesh24):
    def f(a):
        return sc.softmax(sc.matmul(a, a.T, out_sharding=P("X")), axis=-1)

    x = sc.typeof(sc.device_put(_data(), P("X", None)))
    t1 = sc.jit(f).lower(x).as_text()
    t2 = sc.jit(f).lower(x).as_text()
    assert t1 == t2 and "/" not in t1.split("module", 1)[1].split("\n", 1)[0]


def test_program_cache_keys_include_the_argument_structure(mesh24):
    import jax.tree_util as tu

    @tu.register_pytree_node_class
    class Scaled:
        def __init__(self, w, scale):
            self.w, self.scale = w, scale

        def tree_flatten(self):
            return (self.w,), self.scale

        @classmethod
        def tree_unflatten(cls, scale, children):
            return cls(children[0], scale)

    w = sc.device_put(np.ones((8, 4), np.float32), P("X", "Y"))
    f = sc.jit(lambda m: m.w * m.scale)
    np.testing.assert_array_equal(np.asarray(f(Scaled(w, 2.0))), 2 * np.ones((8, 4)))
    np.testing.assert_array_equal(np.asarray(f(Scaled(w, 5.0))), 5 * np.ones((8, 4)))


def test_future_annotations_type_strings():
    import textwrap
    src = textwrap.dedent('''
        from __future__ import annotations
        import shardc as sc
        def f(x: "f32[8@X]"):
            return x * 2
    ''')
    ns: dict = {}
    exec(compile(src, "<future>", "exec"), ns)
    m = sc.make_mesh((2, 4), ("X", "Y"))
    with sc.set_mesh(m):
        assert str(sc.jit(ns["f"]).trace().out_types) == "float32[8@X]"


def test_repeated_calls_reuse_the_compiled_program(mesh24):
    traces = []

    @sc.jit
    def f(a):
        traces.append(1)
        return a + 1

    x = sc.device_put(np.ones((8, 4), np.float32), P("X", "Y"))
    for _ in range(3):
        f(x)
    assert len(traces) == 1 and len(f._compiled) == 1
    # a pytree argument takes the general path and is cached too
    for _ in range(3):
        f({"a": x}["a"])
    assert len(traces) == 1


def test_steady_state_calls_still_check_where_arguments_live():
    """The dispatch fast path (a signature-cache hit) runs only arguments laid out as the program
    has already validated: the same type on another device takes the checked path (it reached
    XLA, which failed: 'Buffer passed to Execute() ... is on device cpu:3'), which runs the
    mesh-less program on that device as JAX does; arrays on two devices are refused."""
    prog = sc.jit(lambda x: x + 1.0)
    on0 = sc.asarray(jax.device_put(np.ones(4, np.float32), jax.devices()[0]))
    on3 = sc.asarray(jax.device_put(np.ones(4, np.float32), jax.devices()[3]))
    for _ in range(2):    # the second call takes the fast path
        np.testing.assert_array_equal(np.asarray(prog(on0)), np.full(4, 2.0, np.float32))
    for _ in range(2):
        out = prog(on3)
        np.testing.assert_array_equal(np.asarray(out), np.full(4, 2.0, np.float32))
        assert out._jax.devices() == {jax.devices()[3]}
    on5 = sc.asarray(jax.device_put(np.ones(4, np.float32), jax.devices()[5]))
    with pytest.raises(sc.ShardcValueError, match="sc.device_put"):
        sc.jit(lambda x, y: x + y)(on3, on5)
    np.testing.assert_array_equal(np.asarray(prog(on0)), np.full(4, 2.0, np.float32))
