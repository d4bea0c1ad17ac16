"""Bad-input corpus (issue 15): the Python API.

Each kind of bad input a user can hand the API (impossible shapes, odd arrays,
wrong calls, bad meshes and specs, a leaked tracer) asserts the outcome: the error
class (JAX's builtin class, as `ShardcError` subclasses), the key phrase and the
user's file:line. Where JAX accepts or rejects the same call, JAX is the oracle.
Inputs that used to abort the process inside XLA (SIGABRT) run in a subprocess,
so an abort fails the test instead of killing pytest.
"""
from __future__ import annotations

import os
import subprocess
import sys

import jax
import numpy as np
import pytest

import shardc as sc
import shardc.numpy as jnp
from shardc import AxisType, P

# --- shapes beyond int64 and out of memory: in a subprocess (an XLA abort kills the process) -----------
ISOLATED = [
    # (case, statement, error class, key phrase)
    ("zeros beyond int64 elements", "sc.zeros((2**32, 2**32))", "ShardcValueError", "more than the largest int64"),
    ("ones beyond int64 inside jit", "sc.jit(lambda: jnp.ones((2**32, 2**32)))()", "ShardcValueError",
     "more than the largest int64"),
    ("full beyond int64 bytes", "jnp.full((2**31, 2**31), 1.0)", "ShardcValueError", "more than the largest int64"),
    ("arange beyond int64 bytes", "jnp.arange(2**62)", "ShardcValueError", "more than the largest int64"),
    ("broadcast_to beyond int64", "jnp.broadcast_to(x, (2**40, 2**40, 8, 4))", "ShardcValueError",
     "more than the largest int64"),
    ("type string beyond int64, compiled", "sc.jit(lambda a: a + 1).lower(sc.parse_type('f32[4294967296,4294967296]'))"
     ".compile()", "ShardcValueError", "more than the largest int64"),
    ("eval_shape of a huge ShapeDtypeStruct", "sc.eval_shape(lambda a: a + 1, sc.ShapeDtypeStruct((2**40, 2**40), "
     "np.float32))", "ShardcValueError", "more than the largest int64"),
    ("program output out of device memory", "sc.jit(lambda: jnp.zeros((2**40,), out_sharding=P('X')) + 1)()",
     "ShardcRuntimeError", "out of device memory while running the program; result 0 (float32[1099511627776@X]) "
                           "needs 2.0 TiB per device"),
    ("device_put out of device memory", "sc.device_put(np.broadcast_to(np.float32(0), (2**40,)), P('X'))",
     "ShardcRuntimeError", "out of device memory while putting an array on the devices"),
]


def test_impossible_shapes_are_errors_before_xla(tmp_path):
    """Every case ends in a clean ShardcError naming the line that made it (before: XLA's
    'overflow in static extent product' aborted the process; OOM was a raw JaxRuntimeError)."""
    body = ["import numpy as np", "import shardc as sc", "import shardc.numpy as jnp", "from shardc import P",
            "sc.set_mesh(sc.make_mesh((2, 4), ('X', 'Y')))",
            "x = sc.device_put(np.ones((8, 4), np.float32), P('X'))"]
    lines = {}
    for name, stmt, _, _ in ISOLATED:
        body.append("try:")
        body.append(f"    {stmt}")
        lines[name] = len(body)
        body.append(f"    print('NOERROR|{name}', flush=True)")
        body.append("except Exception as e:")
        body.append(f"    print('CASE|{name}|' + type(e).__name__ + '|' + str(getattr(e, 'loc', None)) + '|' + "
                    "str(e).replace(chr(10), ' '), flush=True)")
    script = tmp_path / "huge.py"
    script.write_text("\n".join(body) + "\n")
    env = dict(os.environ, SHARDC_CPU_DEVICES="8", SHARDC_CACHE="0")
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, f"the process died (rc {r.returncode}):\n{r.stdout}\n{r.stderr[-2000:]}"
    got = {}
    for line in r.stdout.splitlines():
        if line.startswith("CASE|"):
            _, name, cls, loc, msg = line.split("|", 4)
            got[name] = (cls, loc, msg)
    for name, _, cls, phrase in ISOLATED:
        assert name in got, f"{name}: no error raised\n{r.stdout}"
        gcls, loc, msg = got[name]
        assert gcls == cls and phrase in msg, (name, gcls, msg)
        assert loc == f"{script}:{lines[name]}", (name, loc, msg)
    assert "Traceback" not in r.stderr


# --- odd arrays and Python values -------------------------------------------------------------------------
ODD = [
    # (case, argument, error class, key phrase)
    ("object array", lambda: np.array([object()] * 8), sc.ShardcValueError, "cannot use a value of type ndarray"),
    ("string array", lambda: np.array(["a"] * 8), sc.ShardcValueError, "is not supported by shardc"),
    ("long double array", lambda: np.ones(8, np.longdouble), sc.ShardcValueError, "is not supported by shardc"),
    ("long complex array", lambda: np.ones(8, np.clongdouble), sc.ShardcValueError, "is not supported by shardc"),
    ("structured array", lambda: np.zeros(8, dtype=[("a", "f4")]), sc.ShardcValueError, "is not supported"),
    ("a set", lambda: {1, 2}, sc.ShardcValueError, "cannot use a value of type set"),
]


@pytest.mark.parametrize("case,arg,cls,phrase", ODD, ids=[c[0] for c in ODD])
def test_odd_array_arguments(mesh24, case, arg, cls, phrase):
    f = sc.jit(lambda x: x * 2)
    with pytest.raises(cls, match=phrase):
        f(arg())


@pytest.mark.parametrize("case,fn", [
    ("python int beyond int32 to a jitted function", lambda ns: ns.jit(lambda x: x * 2)(2**70)),
    ("python int beyond int32 in an eager op", lambda ns: ns.numpy.ones(3) + 2**40),
    ("python int beyond int32 inside jit", lambda ns: ns.jit(lambda x: x * 2**40)(ns.numpy.ones(3))),
], ids=lambda c: c if isinstance(c, str) else "")
def test_python_int_overflow_is_an_overflow_error_as_in_jax(mesh24, case, fn):
    """JAX: OverflowError (a Python int operand is parsed as int32). Before: a raw
    OverflowError from NumPy in jit, and eagerly a silently wrong float."""
    with pytest.raises(OverflowError):
        fn(jax)
    with pytest.raises(OverflowError, match="too large to convert to int32") as info:
        fn(sc)
    assert isinstance(info.value, sc.ShardcError) and info.value.loc.file == __file__


@pytest.mark.parametrize("case,make", [
    ("float64 array", lambda: np.linspace(-3, 3, 8)),
    ("int64 values beyond int32 (wrap, as JAX)", lambda: np.array([2**40 + 3] * 8)),
    ("NaN and inf", lambda: np.array([np.nan, np.inf, -np.inf, 0, 1, 2, 3, 4], np.float32)),
    ("non-contiguous view", lambda: np.arange(16, dtype=np.float32)[::2]),
    ("0-d NumPy scalar", lambda: np.float32(3)),
])
def test_odd_but_valid_arrays_agree_with_jax(mesh24, case, make):
    want = np.asarray(jax.jit(lambda x: x * 2)(make()))
    got = np.asarray(sc.jit(lambda x: x * 2)(make()))
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_empty_sharded_arrays(mesh24):
    """Empty arrays sharded over a mesh axis place, compute and reduce as NumPy does."""
    e = sc.device_put(np.zeros((0, 4), np.float32), P("X"))
    assert e.shape == (0, 4) and str(sc.typeof(e)) == "float32[0@X,4]"
    np.testing.assert_array_equal(np.asarray(sc.jit(lambda a: a.sum(0))(e)), np.zeros(4, np.float32))
    z = sc.jit(lambda: jnp.zeros((0, 8), out_sharding=P(None, "Y")))()
    assert np.asarray(z).shape == (0, 8)
    assert float(np.asarray((z * 2).sum())) == 0.0


@pytest.mark.parametrize("case,call", [
    ("float dim in a ShapeDtypeStruct", lambda s, n: s.eval_shape(lambda a: a + 1, s.ShapeDtypeStruct((2.5, 4),
                                                                                                  np.float32))),
    ("float dim in reshape", lambda s, n: n.reshape(np.ones((8, 4), np.float32), (2.5, 16))),
    ("NumPy float as a shape", lambda s, n: n.zeros(np.float32(3))),
    ("None as a dim", lambda s, n: n.zeros((None, 3))),
    ("float dim in zeros", lambda s, n: n.ones((2.0,))),
])
def test_non_integer_dims_are_jaxs_type_error(mesh24, case, call):
    """Never rounded (ShapeDtypeStruct((2.5, 4)) and reshape to (2.5, 16) were silently (2, ...))."""
    with pytest.raises(TypeError):
        call(jax, jax.numpy)
    with pytest.raises(sc.ShardcTypeError, match="integer"):
        call(sc, jnp)


@pytest.mark.parametrize("case,call", [
    ("negative dim in broadcast_to", lambda: jnp.broadcast_to(np.ones((8, 4), np.float32), (-1, 8, 4))),
    ("negative tile", lambda: jnp.tile(np.ones((8, 4), np.float32), (-1, 1))),
    ("negative dim in a ShapeDtypeStruct", lambda: sc.eval_shape(lambda a: a, sc.ShapeDtypeStruct((-1, 4),
                                                                                                   np.float32))),
])
def test_negative_dims_are_rejected_in_the_type_layer(mesh24, case, call):
    """Before: broadcast_to and tile emitted a module that did not verify ('a shardc bug')."""
    with pytest.raises(sc.ShardcValueError, match="negative dimensions are not allowed") as e:
        call()
    assert e.value.loc is not None and e.value.loc.file == __file__


# --- wrong calls --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("case,call", [
    ("unknown keyword argument", lambda ns, x: ns.jit(lambda x: x)(x, z=1)),
    ("too many arguments", lambda ns, x: ns.jit(lambda x: x)(x, x)),
    ("jit of a non-callable", lambda ns, x: ns.jit(3)),
])
def test_wrong_calls_raise_jaxs_type_error(mesh24, case, call):
    x = np.ones((8, 4), np.float32)
    with pytest.raises(TypeError) as want:
        call(jax, x)
    with pytest.raises(TypeError) as got:
        call(sc, x)
    phrase = str(want.value).split(" at 0x")[0].split("(")[0]
    assert phrase.split()[-1] in str(got.value), (str(want.value), str(got.value))


def test_keyword_arguments_to_a_jitted_function(mesh24):
    x = np.arange(32, dtype=np.float32).reshape(8, 4)
    want = jax.jit(lambda x, y: x * 2 + y)(x, y=x)
    got = sc.jit(lambda x, y: x * 2 + y)(x, y=x)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_non_string_annotations(mesh24):
    def f(x, y):
        return x
    f.__annotations__ = {"x": int, "y": ["f32[8]", 5]}   # an int and a list holding a non-string

    with pytest.raises(sc.ShardcValueError, match="parameters without type strings"):
        sc.jit(f).trace()


def test_spec_naming_a_manual_axis(mesh24):
    """Inside shard_map X is Manual: a reshard onto it is JAX's ValueError, at the user's line."""
    x = sc.device_put(np.ones((8, 4), np.float32), P("X"))
    body = sc.shard_map(lambda a: sc.reshard(a, P("X")), in_specs=P("X"), out_specs=P("X"))
    with pytest.raises(sc.ShardcValueError, match="cannot contain axis names that are of type Auto or Manual") as e:
        sc.jit(body)(x)
    assert e.value.loc.file == __file__


# --- meshes, specs and placements outside a program: the user's line ---------------------------------------
@pytest.mark.parametrize("case,call,phrase", [
    ("mesh axis of size 0", lambda: sc.make_mesh((0, 4), ("X", "Y")), "positive integers"),
    ("negative mesh axis", lambda: sc.make_mesh((-2, 4), ("X", "Y")), "positive integers"),
    ("float mesh axis", lambda: sc.make_mesh((2.5, 4), ("X", "Y")), "positive integers"),
    ("more devices than there are", lambda: sc.make_mesh((4, 4), ("X", "Y")), "needs 16 devices"),
    ("sizes and names differ", lambda: sc.make_mesh((2, 4), ("X",)), "axis names"),
    ("a spec entry that is not a name", lambda: P(3), "a PartitionSpec entry is None, an axis name"),
    ("a sharding that does not divide", lambda: sc.device_put(np.ones((3, 4), np.float32), P("X")),
     "does not evenly divide"),
    ("100000 virtual devices", lambda: sc.set_cpu_device_count(100000), "from 1 to 4096"),
    ("a type string that does not parse", lambda: sc.parse_type("f32[8@(X,]"), "expected a mesh axis name"),
])
def test_calls_outside_programs_name_the_users_line(mesh24, case, call, phrase):
    with pytest.raises(sc.ShardcValueError, match=phrase.replace("(", r"\(")) as e:
        call()
    assert e.value.loc is not None and e.value.loc.file == __file__, e.value


def test_manual_mesh_types_are_checked():
    m = sc.make_mesh((2, 4), ("X", "Y"), axis_types=(AxisType.Manual, AxisType.Explicit))
    with pytest.raises(sc.ShardcValueError, match="values vary over Manual axes only"):
        sc.parse_type("f32[8]{V:Y}", m.abstract_mesh)


# --- a tracer leaked out of a program -----------------------------------------------------------------------
def test_leaked_tracer_used_later(mesh24):
    """JAX: UnexpectedTracerError (a TypeError), 'Encountered an unexpected tracer'."""
    leaked = []

    def f(x):
        leaked.append(x)
        return x

    x = sc.device_put(np.ones((8, 4), np.float32), P("X"))
    sc.jit(f)(x)
    jleaked = []
    jax.jit(lambda x: jleaked.append(x) or x)(np.ones(3))
    with pytest.raises(TypeError, match="Encountered an unexpected tracer"):
        jleaked[0] + 1
    for use in (lambda: leaked[0] + 1, lambda: sc.jit(lambda a: a + leaked[0])(x), lambda: jnp.sin(leaked[0])):
        with pytest.raises(sc.ShardcTypeError, match="Encountered an unexpected tracer") as e:
            use()
        assert e.value.loc.file == __file__ and "f32[8@X,4]" in str(e.value)
    with pytest.raises(TypeError, match="__array__"):
        np.asarray(leaked[0])
    with pytest.raises(AttributeError, match="block_until_ready"):
        leaked[0].block_until_ready()
    assert "Tracer" in str(leaked[0])   # printing is fine (as JAX)



class _Mine(Exception):
    pass


def _raise(*_):
    raise _Mine("the user's own")


@pytest.mark.parametrize("case,call", [
    ("in jit", lambda x: sc.jit(_raise)(x)),
    ("in grad", lambda x: sc.grad(lambda a: _raise(a))(np.float32(1))),
    ("in shard_map", lambda x: sc.jit(sc.shard_map(_raise, in_specs=P("X"), out_specs=P("X")))(x)),
    ("in a scan body", lambda x: sc.lax.scan(lambda c, a: _raise(a), 0.0, np.ones(3, np.float32))),
    ("in vmap", lambda x: sc.vmap(_raise)(np.ones(3, np.float32))),
])
def test_the_users_own_exception_passes_through_unchanged(mesh24, case, call):
    """Not wrapped, not called a shardc bug: the same object, with the user's frame in its traceback."""
    x = sc.device_put(np.ones((8, 4), np.float32), P("X"))
    with pytest.raises(_Mine, match="the user's own") as e:
        call(x)
    assert type(e.value) is _Mine
    assert any(f.name == "_raise" for f in e.traceback)
