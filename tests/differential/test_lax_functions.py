"""Differential: `shardc.lax` functions under `jax.lax`'s names and signatures, against
jax.lax 0.10.2: no promotion (mixed dtypes and ranks are JAX's TypeErrors), lax's dtype
rules, positional/keyword arguments, `out_sharding=`. Types and errors by tracing over 1-D
to 3-D meshes for f32/bf16/i32/bool and the shardings the shapes allow; values, output
shardings and collectives (shardc <= JAX) by compiling a spread subset."""
from __future__ import annotations

import inspect
import itertools
import re

import numpy as np
from oracle import BASIC_MESHES, Case, check, param, sample, specs_for, type_str

import shardc as sc
from shardc import lax as slax

SHAPES = {0: (), 1: (8,), 2: (8, 4), 3: (4, 2, 8)}
DTYPES = ("f32", "bf16", "i32", "bool")


def _types(dname: str, mesh: str, ranks=(0, 1, 2, 3), n: int = 3, salt: str = "") -> list[str]:
    pool = [type_str(dname, SHAPES[r], spec) for r in ranks for spec in specs_for(SHAPES[r], mesh)]
    return [c.id for c in sample([Case(t, mesh, None) for t in pool], n, salt=salt + dname + mesh)]


def _p(expr, nargs: int = 1):
    """A program `lambda ns, x[, y]: <expr>` with `L` the side's lax module."""
    args = "x" if nargs == 1 else "x, y"
    return eval(compile(f"lambda ns, {args}: (lambda L: {expr})(ns.lax)", expr, "eval"), {"np": np})


def test_every_public_name_is_a_jax_lax_name():
    import jax
    ours = {n for n in dir(slax) if not n.startswith("_")}
    assert ours == set(slax.__all__)
    assert ours <= set(dir(jax.lax)), ours - set(dir(jax.lax))
    for name in ("np", "bind", "Tracer", "Any", "is_array", "type_of", "WRAPPERS"):
        assert name not in dir(slax)


# --- unary -----------------------------------------------------------------------------------------
UNARY = ["abs", "neg", "sign", "floor", "ceil", "round", "exp", "exp2", "log", "log1p", "expm1", "tanh", "logistic",
         "sqrt", "rsqrt", "cbrt", "square", "erf", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh",
         "asinh", "acosh", "atanh", "bitwise_not", "is_finite", "reciprocal"]


def unary_cases():
    out = []
    for name, dname, mesh in itertools.product(UNARY, DTYPES, BASIC_MESHES):
        for t in _types(dname, mesh, n=2 if dname == "f32" else 1, salt=name):
            out.append(Case(f"{name}-{mesh}-{t}", mesh, _p(f"L.{name}(x)"), (t,)))
    for k, name in enumerate(UNARY):
        mesh = ("1d", "2d", "3d")[k % 3]
        dname = "i32" if name in ("bitwise_not", "neg", "sign", "square", "abs") and k % 2 else "f32"
        t = type_str(dname, (8, 4), ("X", None))
        out.append(Case(f"{name}-vals-{mesh}-{t}", mesh, _p(f"L.{name}(x)"), (t,), mode="jit", collectives="at_most"))
    out.append(Case("round-even-vals", "1d", _p("L.round(x * 2.5, L.RoundingMethod.TO_NEAREST_EVEN)"),
                    ("f32[8@X,4]",), mode="jit"))
    out.append(Case("round-afz-vals", "1d", _p("L.round(x * 2.5 - 0.5, 0)"), ("f32[8@X,4]",), mode="jit"))
    return out


@param(unary_cases())
def test_unary(case):
    check(case)


# --- binary ----------------------------------------------------------------------------------------
BINARY = ["add", "sub", "mul", "div", "rem", "max", "min", "pow", "atan2", "eq", "ne", "lt", "le", "gt", "ge",
          "bitwise_and", "bitwise_or", "bitwise_xor"]
PAIRS = [("f32", "f32"), ("i32", "i32"), ("bool", "bool"), ("bf16", "bf16"), ("f32", "i32")]
BSHAPES = [((8, 4), (8, 4)), ((8, 4), ()), ((8, 4), (4,)), ((4, 2, 8), (4, 2, 8))]


def binary_cases():
    out = []
    for name, (d1, d2), mesh in itertools.product(BINARY, PAIRS, BASIC_MESHES):
        pool = sorted({(type_str(d1, s1, spec), type_str(d2, s2, spec if s2 == s1 else ()))
                       for s1, s2 in BSHAPES for spec in specs_for(s1, mesh)})
        for c in sample([Case(f"{a}|{b}", mesh, None) for a, b in pool], 2 if d1 == d2 == "f32" else 1,
                        salt=name + d1 + d2):
            a, b = c.id.split("|")
            out.append(Case(f"{name}-{mesh}-{a}-{b}", mesh, _p(f"L.{name}(x, y)", 2), (a, b)))
    # Python scalars of the array's kind (JAX types them int32/float32; shardc also converts a scalar of
    # another kind to the array's dtype, where JAX's lax raises: the rules of transformations rely on it)
    for name in BINARY:
        out.append(Case(f"{name}-scalar-f", "2d", _p(f"L.{name}(x, 1.5)"), ("f32[8@X,4]",)))
        out.append(Case(f"{name}-scalar-i", "2d", _p(f"L.{name}(2, x)"), ("i32[8,4@Y]",)))
    for k, name in enumerate(BINARY):
        mesh = ("1d", "2d", "3d")[k % 3]
        d = "i32" if name.startswith("bitwise") or k % 2 else "f32"
        a = type_str(d, (8, 4), ("X", None))
        out.append(Case(f"{name}-vals-{mesh}-{a}", mesh, _p(f"L.{name}(x, y)", 2), (a, a), mode="jit",
                        collectives="at_most"))
    return out


@param(binary_cases())
def test_binary(case):
    check(case)


# --- the rest: shapes, slicing, reductions, creation, contractions -------------------------------
#: (name, expression of L and x, ranks of x)
PROGRAMS = [
    ("broadcast", "L.broadcast(x, (2, 3))", (0, 1, 2)),
    ("broadcast-out", "L.broadcast(x, (2,), out_sharding=ns.P('X'))", (0, 1, 2)),
    ("broadcast_in_dim", "L.broadcast_in_dim(x, (3,) + x.shape, tuple(range(1, x.ndim + 1)))", (0, 1, 2, 3)),
    ("broadcasted_iota", "L.broadcasted_iota(np.int32, (8, 4), 1, out_sharding=ns.P('X'))", (0,)),
    ("broadcasted_iota-f", "L.broadcasted_iota('float32', (4, 8), 0) + L.full_like(x, 0, shape=(4, 8))", (0,)),
    ("iota", "L.iota(np.int32, 5)", (0,)),
    ("reshape", "L.reshape(x, (x.size,))", (1, 2, 3)),
    ("reshape-dims", "L.reshape(x, (x.size,), dimensions=tuple(reversed(range(x.ndim))))", (2, 3)),
    ("reshape-out", "L.reshape(x, (x.size,), out_sharding=ns.P())", (2, 3)),
    ("squeeze", "L.squeeze(L.expand_dims(x, (0,)), (0,))", (0, 1, 2, 3)),
    ("squeeze-bad", "L.squeeze(x, (0,))", (1, 2)), ("expand_dims", "L.expand_dims(x, (0, -1))", (0, 1, 2)),
    ("transpose", "L.transpose(x, tuple(reversed(range(x.ndim))))", (1, 2, 3)),
    ("rev", "L.rev(x, (0,))", (1, 2, 3)), ("rev-bad", "L.rev(x, (x.ndim,))", (1, 2)),
    ("concatenate", "L.concatenate([x, x], x.ndim - 1)", (1, 2, 3)),
    ("concatenate-dt", "L.concatenate([x, L.convert_element_type(x, np.int8)], 0)", (1, 2)),
    ("concatenate-rank", "L.concatenate([x, x[0]], 0)", (2,)),
    ("pad", "L.pad(x, L.convert_element_type(0, x.dtype), [(1, 2, 0)] * x.ndim)", (0, 1, 2, 3)),
    ("pad-interior", "L.pad(x, L.convert_element_type(1, x.dtype), [(0, 0, 1)] * x.ndim)", (1, 2)),
    ("pad-neg", "L.pad(x, L.convert_element_type(0, x.dtype), [(-1, 1, 0)] * x.ndim)", (1, 2)),
    ("slice", "L.slice(x, (0,) * x.ndim, x.shape, (2,) * x.ndim)", (1, 2, 3)),
    ("slice-half", "L.slice(x, (1,) * x.ndim, tuple(s // 2 + 1 for s in x.shape))", (1, 2, 3)),
    ("slice_in_dim", "L.slice_in_dim(x, 2, None, axis=-1)", (1, 2, 3)),
    ("slice_in_dim-neg", "L.slice_in_dim(x, -4, -1, 1, 0)", (1, 2)),
    ("index_in_dim", "L.index_in_dim(x, -1, 0, keepdims=False)", (1, 2, 3)),
    ("index_in_dim-kd", "L.index_in_dim(x, 1, x.ndim - 1)", (1, 2)),
    ("dynamic_slice", "L.dynamic_slice(x, (1,) * x.ndim, (2,) * x.ndim)", (1, 2, 3)),
    ("dynamic_slice-traced", "L.dynamic_slice(x, [L.convert_element_type(x.sum(), np.int32)] + [0] * (x.ndim - 1), "
     "(3,) + x.shape[1:])", (1, 2)),
    ("dynamic_slice-len", "L.dynamic_slice(x, (0,), (1,))", (2, 3)),
    ("dynamic_slice_in_dim", "L.dynamic_slice_in_dim(x, -3, 2, axis=0)", (1, 2, 3)),
    ("dynamic_index_in_dim", "L.dynamic_index_in_dim(x, 2, x.ndim - 1, keepdims=False)", (1, 2, 3)),
    ("dynamic_update_slice", "L.dynamic_update_slice(x, L.slice(x, (0,) * x.ndim, (1,) * x.ndim), (1,) * x.ndim)",
     (1, 2, 3)),
    ("dynamic_update_slice_in_dim", "L.dynamic_update_slice_in_dim(x, L.slice_in_dim(x, 0, 2, axis=0), 5, 0)",
     (1, 2, 3)),
    ("dynamic_update_index_in_dim", "L.dynamic_update_index_in_dim(x, L.index_in_dim(x, 0, 0, False), -1, 0)",
     (1, 2, 3)),
    ("select", "L.select(L.ne(x, x), x, L.neg(x) if x.dtype != np.bool_ else x)", (0, 1, 2, 3)),
    ("select_n", "L.select_n(L.eq(x, x), x, x)", (0, 1, 2)),
    ("select-dt", "L.select(L.eq(x, x), x, L.convert_element_type(x, np.int8))", (1, 2)),
    ("clamp", "L.clamp(L.convert_element_type(0, x.dtype), x, L.convert_element_type(1, x.dtype))", (0, 1, 2, 3)),
    ("clamp-arr", "L.clamp(x, x, x)", (1, 2)), ("clamp-mixed", "L.clamp(0, x, 1.5)", (1,)),
    ("convert", "L.convert_element_type(x, np.float32)", (0, 1, 2, 3)),
    ("convert-bf16", "L.convert_element_type(x, 'bfloat16')", (1, 2)),
    ("reduce_sum", "L.reduce_sum(x, (0,))", (1, 2, 3)), ("reduce_max", "L.reduce_max(x, tuple(range(x.ndim)))", (1, 2, 3)),
    ("reduce_min", "L.reduce_min(x, (x.ndim - 1,))", (1, 2, 3)), ("reduce_prod", "L.reduce_prod(x, (0,))", (1, 2)),
    ("reduce_and", "L.reduce_and(x, (0,))", (1, 2)), ("reduce_or", "L.reduce_or(x, (x.ndim - 1,))", (1, 2)),
    ("reduce-neg", "L.reduce_max(x, (-1,))", (1, 2)),
    ("argmax", "L.argmax(x, 0, np.int32)", (1, 2, 3)), ("argmin", "L.argmin(x, x.ndim - 1, 'int32')", (1, 2, 3)),
    ("argmax-neg", "L.argmax(x, -1, np.int32)", (1, 2)),
    ("cumsum", "L.cumsum(x, 0)", (1, 2, 3)), ("cumsum-rev", "L.cumsum(x, axis=x.ndim - 1, reverse=True)", (1, 2, 3)),
    ("cumprod", "L.cumprod(x)", (1, 2)), ("cummax", "L.cummax(x, 0, True)", (1, 2, 3)),
    ("cummin", "L.cummin(x, x.ndim - 1)", (1, 2)), ("cumsum-neg", "L.cumsum(x, -1)", (1, 2)),
    ("cumlogsumexp", "L.cumlogsumexp(x, 0)", (1, 2, 3)),
    ("cumlogsumexp-rev", "L.cumlogsumexp(x, x.ndim - 1, reverse=True)", (1, 2)),
    ("integer_pow", "L.integer_pow(x, 3)", (0, 1, 2)), ("integer_pow-neg", "L.integer_pow(x, -2)", (1, 2)),
    ("full", "L.full((4, 8), 2.0)", (0,)), ("full-dt", "L.full((4,), 1, np.int32) + L.full((), 2, 'int32')", (0,)),
    ("full-sh", "L.full((8, 4), 0.5, sharding=ns.NamedSharding(ns.mesh('2d'), ns.P('X')))", (0,)),
    ("full_like", "L.full_like(x, 3)", (0, 1, 2, 3)), ("full_like-dt", "L.full_like(x, 1, np.float32)", (1, 2)),
    ("full_like-shape", "L.full_like(x, 1, shape=(2, 3))", (1, 2)),
    ("dot", "L.dot(x, x)", (1,)), ("dot-mv", "L.dot(x, x[0])", (2,)),
    ("dot-mm", "L.dot(x, L.transpose(x, (1, 0)))", (2,)), ("dot-bad", "L.dot(x, x)", (2, 3)),
    ("dot-dn", "L.dot(x, x, dimension_numbers=(((x.ndim - 1,), (x.ndim - 1,)), ((), ())))", (1, 2)),
    ("dot_general", "L.dot_general(x, x, (((0,), (0,)), ((), ())))", (1, 2, 3)),
    ("dot_general-batch", "L.dot_general(x, x, (((2,), (2,)), ((0,), (0,))), None, np.float32)", (3,)),
    ("batch_matmul", "L.batch_matmul(x, L.transpose(x, (0, 2, 1)))", (3,)),
    ("batch_matmul-2d", "L.batch_matmul(x, L.transpose(x, (1, 0)))", (2,)),
    ("batch_matmul-bad", "L.batch_matmul(x, x[0])", (3,)),
    ("split", "L.split(x, (2, 6), axis=0)", (1, 2)), ("split-bad", "L.split(x, (3, 3))", (1, 2)),
    ("split-last", "L.split(x, (1, 1, x.shape[-1] - 2), x.ndim - 1)", (1, 2, 3)),
    ("tile", "L.tile(x, (2,) + (1,) * (x.ndim - 1))", (1, 2, 3)), ("tile-1", "L.tile(x, (1,) * x.ndim)", (1, 2)),
    ("tile-bad", "L.tile(x, (2,))", (2,)),
    ("exp2-int", "L.exp2(x)", (1,)), ("round-int", "L.round(x)", (1,)),
    ("broadcast_to_rank", "L.broadcast_to_rank(x, 3)", (0, 1, 2, 3)),
    ("collapse", "L.collapse(x, 0, 2)", (2, 3)), ("collapse-tail", "L.collapse(x, 1)", (2, 3)),
    ("stack", "L.stack([x, x], axis=-1)", (0, 1, 2)), ("stack-mixed", "L.stack([x, L.neg(x)])", (1, 2)),
    ("stack-shapes", "L.stack([x, x[:2]])", (1, 2)),
    ("unstack", "L.unstack(x, 1)", (2, 3)), ("unstack-0", "L.unstack(x)", (1, 2)),
    ("dtype", "L.full((2,), 1, L.dtype(x))", (0, 1)),
    ("broadcast_shapes", "L.full(L.broadcast_shapes(x.shape, (1,) * x.ndim), 0.5)", (0, 1, 2)),
]


def program_cases():
    out = []
    for (name, expr, ranks), (k, mesh) in itertools.product(PROGRAMS, enumerate(BASIC_MESHES)):
        # f32 always, and one of i32 / bf16 / bool in turn over the meshes
        for dname in ("f32", ("i32", "bf16", "bool")[(k + len(name)) % 3]):
            for t in _types(dname, mesh, ranks=ranks, n=2 if dname == "f32" else 1, salt=name):
                out.append(Case(f"{name}-{mesh}-{t}", mesh, _p(expr), (t,)))
    for k, (name, expr, ranks) in enumerate(PROGRAMS):
        mesh = ("1d", "2d", "3d")[k % 3] if "full-sh" not in name else "2d"
        r = 2 if 2 in ranks else ranks[-1]
        spec = {0: (), 1: ("X",), 2: (None, "X") if k % 2 else ("X", None), 3: ("X", None, None)}[r]
        # (JAX types an integer cumlogsumexp but cannot lower it)
        t = type_str("f32" if k % 3 or name.startswith("cumlogsumexp") else "i32", SHAPES[r], spec)
        out.append(Case(f"{name}-vals-{mesh}-{t}", mesh, _p(expr), (t,), mode="jit", collectives="at_most",
                        tol=(1e-4, 1e-4)))
    return out


@param(program_cases())
def test_programs(case):
    check(case)


def test_grad_through_new_primitives_matches_jax():
    """VJPs of the inverse trig/hyperbolic primitives and of cumlogsumexp against jax.grad."""
    import jax
    x = np.linspace(-0.9, 0.9, 8).astype(np.float32)

    def f(L, m):
        return lambda v: m.sum(L.asin(v) * L.atanh(v) + L.cosh(v) + L.acos(v) * L.atan(v) + L.sinh(v) * L.asinh(v)
                               + L.acosh(v + 2.0) + L.cumlogsumexp(v, 0) + L.exp2(v))

    got = sc.grad(f(slax, sc))(x)
    want = jax.grad(f(jax.lax, jax.numpy))(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=2e-5, atol=2e-5)


def _three_bare_lax_ops(x):
    a = slax.sin(x)
    b = slax.cos(a)
    return slax.exp(b)


def test_bare_lax_ops_are_located_at_their_own_lines():
    """`lax.*` wrappers bind outside any public op: each op names its own line (as JAX's locations
    do), not the line of the first one (the location used to be kept until the next public op)."""
    src, first = inspect.getsourcelines(_three_bare_lax_ops)
    want = {op: first + i for i, line in enumerate(src) for op in ("sin", "cos", "exp") if f"slax.{op}(" in line}
    text = sc.jit(_three_bare_lax_ops).lower(np.ones(8, np.float32)).as_text(locations=True)
    got = {m.group(1): int(m.group(2)) for m in re.finditer(r'loc\("(sin|cos|exp) at [^"]*:(\d+)"', text)}
    assert got == want, (got, want)
