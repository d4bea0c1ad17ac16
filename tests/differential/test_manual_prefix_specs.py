"""`shard_map` in_specs / out_specs as pytree prefixes (one spec for a whole dict of weights,
a tuple of specs over nested arguments), against `jax.shard_map`: types, values, and JAX's
pytree structure errors (ValueError, "pytree structure error")."""
from __future__ import annotations

from oracle import Case, check, param


def _dict_weights(ns, x, a, b):
    f = ns.shard_map(lambda x, p: ns.tanh(x @ p["a"]) + p["b"], in_specs=(ns.P("X", None), ns.P()),
                     out_specs=ns.P("X", None))
    return f(x, {"a": a, "b": b})


def _nested(ns, x, a, b):
    f = ns.shard_map(lambda t, p: (t[0] * p[0]["w"], t[1] + p[1]),
                     in_specs=((ns.P("X", None), ns.P("X", None)), (ns.P(), ns.P())),
                     out_specs=(ns.P("X", None), ns.P("X", None)))
    return f((x, x), ({"w": a[0]}, b))


def _single_spec_all_args(ns, x, a, b):
    f = ns.shard_map(lambda x, y: x * y, in_specs=ns.P("X", None), out_specs=ns.P("X", None))
    return f(x, x)


def _out_prefix(ns, x, a, b):
    f = ns.shard_map(lambda x: {"s": ns.sin(x), "c": (ns.cos(x), x * 2.0)}, in_specs=ns.P("X", None),
                     out_specs={"s": ns.P("X", None), "c": ns.P("X", None)})
    return f(x)


def _mixed_specs_in_dict(ns, x, a, b):
    f = ns.shard_map(lambda p: p["x"] @ p["a"], in_specs=({"x": ns.P("X", None), "a": ns.P()},),
                     out_specs=ns.P("X", None))
    return f({"x": x, "a": a})


def _too_many_specs(ns, x, a, b):
    return ns.shard_map(lambda x, y: x, in_specs=(ns.P("X"), ns.P(), ns.P()), out_specs=ns.P("X"))(x, a)


def _wrong_keys(ns, x, a, b):
    return ns.shard_map(lambda x, p: x, in_specs=(ns.P("X"), {"a": ns.P(), "c": ns.P()}),
                        out_specs=ns.P("X"))(x, {"a": a, "b": b})


def _list_for_tuple(ns, x, a, b):
    return ns.shard_map(lambda x, y: x, in_specs=[ns.P("X"), ns.P()], out_specs=ns.P("X"))(x, a)


def _out_too_short(ns, x, a, b):
    return ns.shard_map(lambda x: (x, x), in_specs=ns.P("X"), out_specs=(ns.P("X"),))(x)


ARGS = ("f32[16@X,4]", "f32[4,4]", "f32[4]")
PROGRAMS = [("dict-weights", _dict_weights), ("nested", _nested), ("one-spec", _single_spec_all_args),
            ("out-prefix", _out_prefix), ("dict-of-specs", _mixed_specs_in_dict)]
CASES = [Case(f"{name}-{mode}", "1d", fn, ARGS, mode=mode, expect="accept")
         for name, fn in PROGRAMS for mode in ("trace", "jit")]
ERRORS = [Case(name, "1d", fn, ARGS, expect="reject", kind=ValueError, phrase=phrase)
          for name, fn, phrase in [
              ("too-many-specs", _too_many_specs, "different lengths of tuple at key path"),
              ("wrong-dict-keys", _wrong_keys, "different pytree metadata at key path"),
              ("list-for-tuple", _list_for_tuple, "different types at key path"),
              ("out-too-short", _out_too_short, "shard_map out_specs")]]


@param(CASES + ERRORS)
def test_prefix_specs(case):
    check(case)
