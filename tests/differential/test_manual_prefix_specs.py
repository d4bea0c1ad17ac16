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


def _static_arg(ns, x, a, b):
    """in_spec None: the argument is static, passed to the body as it is (Python values
    that the body branches on and counts, not traced)."""
    f = ns.shard_map(lambda x, k: x * len(k["name"]) if k["n"] > 2 else x, in_specs=(ns.P("X", None), None),
                     out_specs=ns.P("X", None))
    return f(x, {"n": 3, "name": "abcd"})


def _none_leaves(ns, x, a, b):
    """None in arguments and outputs is an empty subtree, whatever spec covers it."""
    f = ns.shard_map(lambda x, n: (x + x, n), in_specs=(ns.P("X", None), ns.P()), out_specs=(ns.P("X", None), None))
    return f(x, None)[0]


def _spec_over_tuple_arg(ns, x, a, b):
    f = ns.shard_map(lambda t: t[0] * t[1], in_specs=ns.P("X", None), out_specs=ns.P("X", None))
    return f((x, x))


def _list_specs_list_arg(ns, x, a, b):
    f = ns.shard_map(lambda l, p: [l[0] @ p, l[1]], in_specs=([ns.P("X", None), ns.P("X", None)], ns.P()),
                     out_specs=[ns.P("X", None), ns.P("X", None)])
    return f([x, x], a)


def _deep_out_prefix(ns, x, a, b):
    f = ns.shard_map(lambda x, p: {"h": {"y": x @ p["a"], "z": (x, x * 2)}, "b": p["b"]},
                     in_specs=(ns.P("X", None), {"a": ns.P(), "b": ns.P()}),
                     out_specs={"h": ns.P("X", None), "b": ns.P()})
    return f(x, {"a": a, "b": b})


def _out_none_spec_for_array(ns, x, a, b):
    return ns.shard_map(lambda x: (x, x), in_specs=ns.P("X"), out_specs=(ns.P("X"), None))(x)


def _out_dict_for_tuple(ns, x, a, b):
    return ns.shard_map(lambda x: (x, x), in_specs=ns.P("X"), out_specs={"a": ns.P("X"), "b": ns.P("X")})(x)


def _deeper_than_args(ns, x, a, b):
    return ns.shard_map(lambda x: x, in_specs=((ns.P("X"), ns.P("X")),), out_specs=ns.P("X"))(x)


def _dict_spec_top(ns, x, a, b):
    return ns.shard_map(lambda x: x, in_specs={"x": ns.P("X")}, out_specs=ns.P("X"))(x)


def _out_list_for_tuple(ns, x, a, b):
    return ns.shard_map(lambda x: (x, x), in_specs=ns.P("X"), out_specs=[ns.P("X"), ns.P("X")])(x)


#: argument types per (mesh, dtype): x is sharded on X, a and b replicated weights
ARGS = {(m, d): (f"{d}[16@X,4]", f"{d}[4,4]", f"{d}[4]") for m in ("1d", "2d") for d in ("f32", "i32")}
PROGRAMS = [("dict-weights", _dict_weights), ("nested", _nested), ("one-spec", _single_spec_all_args),
            ("out-prefix", _out_prefix), ("dict-of-specs", _mixed_specs_in_dict), ("static-arg", _static_arg),
            ("none-leaves", _none_leaves), ("spec-over-tuple-arg", _spec_over_tuple_arg),
            ("list-specs", _list_specs_list_arg), ("deep-out-prefix", _deep_out_prefix)]
CASES = [Case(f"{name}-{mesh}-{dtype}-{mode}", mesh, fn, ARGS[mesh, dtype], mode=mode, expect="accept")
         for name, fn in PROGRAMS for mesh, dtype in ARGS for mode in ("trace", "jit")
         if not (dtype == "i32" and fn in (_dict_weights,))]   # tanh: floats only
ERROR_PROGRAMS = [
    ("too-many-specs", _too_many_specs, "different lengths of tuple at key path"),
    ("wrong-dict-keys", _wrong_keys, "different pytree metadata at key path"),
    ("list-for-tuple", _list_for_tuple, "different types at key path"),
    ("out-too-short", _out_too_short, "different lengths of tuple at key path"),
    ("out-none-for-array", _out_none_spec_for_array, "different types at key path"),
    ("out-dict-for-tuple", _out_dict_for_tuple, "different types at key path"),
    ("out-list-for-tuple", _out_list_for_tuple, "different types at key path"),
    ("deeper-than-args", _deeper_than_args, "different types at key path"),
    ("dict-spec-for-args", _dict_spec_top, "different types at key path")]
ERRORS = [Case(f"{name}-{mesh}", mesh, fn, ARGS[mesh, "f32"], expect="reject", kind=ValueError, phrase=phrase)
          for name, fn, phrase in ERROR_PROGRAMS for mesh in ("1d", "2d")]


@param(CASES + ERRORS)
def test_prefix_specs(case):
    check(case)
