"""JAX's `tests/shard_map_test.py::ShardMapTest` (tag jax-v0.10.2), ported to the oracle (issue 13 item 6).

Each row is one of JAX's cases rewritten as a manual-mode program (`smap_case`: the body's input and
output types, VMA sets included, are noted and compared) or a whole program (`Case`), run by JAX and
by shardc. JAX's tests mostly run on `jtu.create_mesh` meshes (Auto axes) and pass `mesh=`; the
ported programs run under the same meshes as the context mesh. Checks of jaxprs / lowered text (JAX
internals) are left out; `tools/port_jax_tests.py` runs JAX's own methods (docs/jax_tests.md).
"""
from __future__ import annotations

import functools

import numpy as np
import pytest
from oracle import Case, MeshSpec, S, check, param, smap_case, type_str

XYZ = MeshSpec((2, 2, 2), ("x", "y", "z"), "AAA")
X8 = MeshSpec((8,), ("x",), "A")
X4 = MeshSpec((4,), ("x",), "A")
I4 = MeshSpec((4,), ("i",), "A")
XY = MeshSpec((2, 2), ("x", "y"), "AA")
XY_E = MeshSpec((2, 2), ("x", "y"))
X2_E = MeshSpec((2,), ("x",))
IJ = MeshSpec((4, 2), ("i", "j"), "AA")


def T(shape, spec=(), dt: str = "f32", u=(), r=()) -> str:
    return type_str(dt, shape, spec, u, r)


def _ident(ns, x):
    return x


def _all_gather(ns, a):
    return (ns.lax.all_gather(a, "z", axis=0, tiled=True), ns.lax.all_gather(a, ("x", "y"), axis=-1, tiled=True))


def _matmul_rs(ns, a, b):
    c = ns.matmul(a, b)
    return (ns.lax.psum_scatter(c, "y", scatter_dimension=0, tiled=True),
            ns.lax.psum_scatter(c, ("z", "y"), scatter_dimension=0, tiled=True))


def _permute(ns, a):
    n = ns.lax.axis_size("x")
    return ns.lax.ppermute(a, "x", perm=[(j, (j + 1) % n) for j in range(n)])


def _all_to_all(ns, a):
    return ns.lax.all_to_all(a, "x", split_axis=1, concat_axis=1, tiled=True)


def _cond_rep(ns, x, y):
    return ns.lax.cond(True, lambda a, b: a, lambda a, b: a + 1, x, y)


def _cond_pcast(ns, x, y):
    return ns.lax.cond(True, lambda a, b: ns.lax.pcast(a, "y", to="varying"),
                       lambda a, b: ns.lax.pcast(b, "x", to="varying"), x, y)


def _scan_rep(ns, x, y, z):
    x, y, z = x.sum(), y.sum(), z.sum()

    def body(c, _):
        c, *cs = c
        return (*cs, c), None
    x = ns.lax.pcast(x, ("x", "y"), to="varying")
    y = ns.lax.pcast(y, "y", to="varying")
    out, _ = ns.lax.scan(body, (x, y, z), None, length=3)
    return [ns.expand_dims(a, 0) for a in out]


def _while_rep(ns, x, y, z):
    x, y, z = x.sum(), y.sum(), z.sum()

    def body(c):
        i, c = c
        c, *cs = c
        return i + 1, (*cs, c)
    x = ns.lax.pcast(x, ("x", "y"), to="varying")
    y = ns.lax.pcast(y, "y", to="varying")
    _, out = ns.lax.while_loop(lambda c: c[0] < 3, body, (0, (x, y, z)))
    return [ns.expand_dims(a, 0) for a in out]


def _nested(d1, d2):
    """test_nested_partial_auto_1d: a shard_map over y inside one over x; VMA sets noted at each level."""
    def f(ns, x):
        def g(a):
            return ns.note(ns.note(a) * a)

        def h(a):
            ns.note(a)
            return ns.note(ns.shard_map(g, in_specs=ns.P(None, d2), out_specs=ns.P(None, d2), axis_names={"y"})(a))
        return ns.shard_map(h, in_specs=ns.P(d1, None), out_specs=ns.P(d1, None), axis_names={"x"})(x)
    return f


NESTED_1D = [("0", "x", "y"), ("1", None, "y"), ("2", "x", None), ("3", None, None)]

MANUAL = [
    smap_case("identity", XYZ, (T((8, 8), ("z", ("x", "y"))),), _ident, S("z", ("x", "y")),
              in_specs=(S("z", ("x", "y")),), run=True),
    smap_case("all_gather", XYZ, (T((8, 8), ("z", ("x", "y"))),), _all_gather, S("z", ("x", "y")),
              in_specs=(S("z", ("x", "y")),), run=True),
    smap_case("all_gather_invariant", X4, (T((8,), ("x",)),),
              lambda ns, a: ns.lax.all_gather(a, "x", axis=0, tiled=True, to="invarying"), S(),
              in_specs=S("x"), run=True),
    smap_case("matmul_reduce_scatter", XYZ, (T((8, 8), ("z", "y")), T((8, 8), ("y", None))), _matmul_rs,
              S(("z", "y"), None), in_specs=(S("z", "y"), S("y", None)), run=True),
    smap_case("collective_permute", X8, (T((8, 8), ("x", None), "i32"),), _permute, S("x", None),
              in_specs=(S("x", None),), run=True),
    smap_case("all_to_all_single_axis_name", X8, (T((8, 8), ("x", None)),), _all_to_all, S("x", None),
              in_specs=(S("x", None),), run=True),
    smap_case("pmin", I4, (T((8,)),), lambda ns, x: ns.lax.pmin(x, "i"), S(), in_specs=S("i"), run=True),
    smap_case("pmax", I4, (T((8,)),), lambda ns, x: ns.lax.pmax(x, "i"), S(), in_specs=S("i"), run=True),
    smap_case("cumsum", I4, (T((8,)),), lambda ns, x: ns.cumsum(x), S("i"), in_specs=S("i"), run=True),
    smap_case("erf_rules", I4, (T((16,)),), lambda ns, x: ns.lax.erf(x), S("i"), in_specs=S("i"), run=True),
    smap_case("custom_jvp_inside_jit", I4, (T((16,)),), lambda ns, x: ns.jit(ns.nn.relu)(x), S("i"),
              in_specs=S("i"), run=True),
    smap_case("pvary", X4, (T((8,)),), lambda ns, x: ns.lax.pcast(x, "x", to="varying"), S("x"), in_specs=S()),
    smap_case("vma_out_specs_error_check", XYZ, (T((4, 2, 2), (), "i32"),), lambda ns, x: x * 2, S("x"),
              in_specs=S("x", "y", "z"), error=(ValueError, "out_specs is P('x',) which implies that the")),
    smap_case("cond_rep_rule", XY, (T((4,), (), "i32"), T((4,), (), "i32")), _cond_rep, S("x"),
              in_specs=(S("x"), S("y"))),
    smap_case("cond_rep_rule_error", XY, (T((4,), (), "i32"), T((4,), (), "i32")), _cond_rep, S(None),
              in_specs=(S("x"), S("y")), error=(ValueError, "require replication")),
    smap_case("cond_rep_rule_pcast", XY, (T((4,), (), "i32"), T((4,), (), "i32")), _cond_pcast, S(("x", "y")),
              in_specs=(S("x"), S("y"))),
    smap_case("scan_rep_rule", XY, (T((4,), (), "i32"),) * 3, _scan_rep, S(("x", "y")),
              in_specs=(S(None), S("x"), S(("x", "y")))),
    smap_case("scan_rep_rule_error", XY, (T((4,), (), "i32"),) * 3, _scan_rep, [S(None), S(None), S(("x", "y"))],
              in_specs=(S(None), S("x"), S(("x", "y"))), error=(ValueError, "require replication")),
    smap_case("while_rep_rule", XY, (T((4,), (), "i32"),) * 3, _while_rep, S(("x", "y")),
              in_specs=(S(None), S("x"), S(("x", "y")))),
    smap_case("psum_not_varying_is_allowed", X4, (T((8,)),), lambda ns, x: ns.lax.psum(ns.lax.psum(x, "x"), "x"),
              S(), in_specs=S("x"), run=True),
    smap_case("matmul_unreduced_out", XY_E, (T((8, 4), ("x", "y")), T((4, 8), ("y", None))),
              lambda ns, a, b: ns.matmul(a, b), S("x", None, u={"y"}), in_specs=(S("x", "y"), S("y", None))),
    smap_case("matmul_full_unreduced_out", X2_E, (T((8, 4), (None, "x")), T((4, 8), ("x", None))),
              lambda ns, a, b: ns.matmul(a, b), S(u={"x"}), in_specs=(S(None, "x"), S("x", None))),
    smap_case("sin_unreduced_error", X2_E, (T((8, 4), (None, None), u=("x",)),), lambda ns, a: ns.sin(a),
              S(u={"x"}), in_specs=(S(u={"x"}),), error=(NotImplementedError, "unreduced rule for sin")),
    smap_case("in_spec_none", IJ, (T((8, 2), (), "i32"),), lambda ns, x: ns.sin(x), S("i"), in_specs=S("i"),
              run=True),
    smap_case("argmax_pvary", X4, (T((8, 4)),), lambda ns, x: ns.argmax(x, axis=1), S("x"), in_specs=S("x")),
    smap_case("full_like_pvary_existing", X4, (T((8,)),), lambda ns, x: ns.full_like(x, 2.0) * x, S("x"),
              in_specs=S("x")),
    # types and VMA sets (JAX's checks); XLA places the Auto axes of the result differently
    *[Case(f"nested_partial_auto_1d_{n}", XYZ, _nested(d1, d2), (T((4, 8)),))
      for n, d1, d2 in NESTED_1D],
    smap_case("partial_auto_axis_names", XYZ, (T((8, 8)),), lambda ns, x: ns.lax.psum(x, "x") * 2, S(None, "y"),
              in_specs=S("x", "y"), axis_names={"x", "y"}),
    smap_case("shmap_full_manual_context_explicit", XY_E, (T((8, 4), ("x", "y")),), lambda ns, x: x * 2,
              S("x", "y"), in_specs=S("x", "y"), run=True),
    smap_case("shmap_partial_manual_explicit", XY_E, (T((8, 4), ("x", "y")),), lambda ns, x: x * 2,
              S("x"), in_specs=S("x"), axis_names={"x"}),
]


# --- autodiff through shard_map (test_jvp_basic, test_reverse_mode_ad, test_linearize_basic, ...) -------------------
def _sm(ns, body, in_specs, out_specs):
    return ns.shard_map(body, in_specs=in_specs, out_specs=out_specs)


def _jvp_basic(ns, x, t):
    g = _sm(ns, lambda a: ns.sin(ns.cos(a)), (ns.P("x", "y"),), ns.P("x", "y"))
    return ns.jvp(g, (x,), (t,))


def _jvp_of_jvp(ns, x, t):
    g = _sm(ns, lambda a: ns.sin(ns.cos(a)), (ns.P("x", "y"),), ns.P("x", "y"))
    return ns.jvp(lambda a, b: ns.jvp(g, (a,), (b,)), (x, x), (t, 2 * t))


def _rev(ns, x, y):
    f = _sm(ns, lambda a, b: ns.sin(a) + 3 + ns.tan(2.) * ns.cos(a) + b, (ns.P("x"), ns.P(None)), ns.P("x"))
    return ns.grad(lambda a, b: ns.sum(f(a, b)), argnums=(0, 1))(x, y)


def _grad_of_grad(ns, x):
    g = _sm(ns, lambda a: ns.sin(ns.cos(a)), (ns.P("x", "y"),), ns.P("x", "y"))
    return ns.grad(lambda a: ns.sum(ns.grad(lambda b: ns.sum(g(b)))(a)))(x)


def _post_process(ns, x):
    def g(y):
        return ns.sin(y) * ns.sum(ns.sin(x))
    return _sm(ns, g, ns.P("x"), ns.P("x"))(ns.arange(8.))


def _remat(ns, x):
    f = ns.checkpoint(_sm(ns, lambda a: ns.sin(ns.sin(a)), ns.P("x"), ns.P("x")))
    return ns.grad(lambda a: ns.sum(f(a)))(x)


def _psum_transpose(ns, x):
    f = _sm(ns, lambda a: ns.lax.psum(a, "x"), ns.P("x"), ns.P())
    return ns.grad(lambda a: ns.sum(f(a)))(x)


def _all_to_all_grad(ns, x):
    f = _sm(ns, lambda a: ns.lax.all_to_all(a, "x", 0, 0, tiled=True), ns.P("x", None), ns.P("x", None))
    return ns.grad(lambda a: ns.sum(f(a) * ns.arange(8.)[:, None]))(x)


def _vjp_pvary(ns, x):
    f = _sm(ns, lambda a: ns.lax.pcast(a, "x", to="varying"), ns.P(), ns.P("x"))
    return ns.grad(lambda a: ns.sum(f(a)))(x)


AD = [
    Case("jvp_basic", XY, _jvp_basic, (T((4, 4)), T((4, 4))), mode="jit"),
    Case("jvp_of_jvp", XY, _jvp_of_jvp, (T((4, 4)), T((4, 4))), mode="jit"),
    Case("reverse_mode_ad", XY, _rev, (T((8,)), T((4,))), mode="jit"),
    Case("grad_of_grad", XY, _grad_of_grad, (T((4, 4)),), mode="jit"),
    Case("post_process", XY, _post_process, (T((4,)),), mode="jit"),
    Case("remat_basic", X4, _remat, (T((4,)),), mode="jit"),
    Case("psum_transpose", X4, _psum_transpose, (T((8,)),), mode="jit"),
    Case("all_to_all_grad", X8, _all_to_all_grad, (T((8, 8)),), mode="jit"),
    Case("pvary_grad", X4, _vjp_pvary, (T((8,)),), mode="jit"),
    Case("eager_grad_of_shard_map", X4, _psum_transpose, (T((8,)),), mode="eager"),
    Case("eager_jvp_of_shard_map", XY, _jvp_basic, (T((4, 4)), T((4, 4))), mode="eager"),
]


# --- shard_map(mesh=...) with no mesh context: the call runs on the given mesh ------------------------------------
def _given_mesh(ns, x):
    m = ns.mesh(X4)
    return ns.shard_map(lambda a: ns.lax.psum(a, "x"), mesh=m, in_specs=ns.P("x"), out_specs=ns.P())(x)


def _axis_index_given_mesh(ns):
    m = ns.mesh(X4)
    return ns.shard_map(lambda: ns.lax.axis_index("x")[None], mesh=m, in_specs=(), out_specs=ns.P("x"))()


MESH_ARG = [
    Case("mesh_arg_in_context", X4, _given_mesh, (T((8,)),), mode="jit"),
    Case("axis_index_basic", X4, lambda ns: ns.jit(lambda: _axis_index_given_mesh(ns))(), mode="eager"),
]

# --- test_forwarding_correctness: inputs forwarded to outputs through a shard_map, differentiated -------------
I1 = MeshSpec((1,), ("i",), "A")


def _forwarding(seed: int, n_in: int, n_out: int):
    import numpy as np
    rng = np.random.RandomState(seed)
    in_perm, out_perm = rng.permutation(3), rng.permutation(3)

    def f(ns, a, b, c):
        def body(inputs):
            inputs = [inputs[i] for i in in_perm]
            outputs = inputs[:n_in] + [ns.exp(inputs[i]) if i < n_out else ns.sin(inputs[i])
                                       for i in range(3 - n_in)]
            return [outputs[i] for i in out_perm]
        g = ns.shard_map(body, in_specs=ns.P("i"), out_specs=ns.P("i"))
        loss = lambda xs: sum(ns.sum(o * (k + 1)) for k, o in enumerate(g(xs)))  # noqa: E731
        return g([a, b, c]), ns.grad(loss)([a, b, c])
    return f


FORWARDING = [Case(f"forwarding_correctness{16 * s + 4 * i + o}", I1, _forwarding(s, i, o), (T((1, 1)),) * 3,
                   mode="jit" if (s + i + o) % 5 == 0 else "trace")
              for s in range(4) for i in range(4) for o in range(4)]

CASES = MANUAL + AD + MESH_ARG + FORWARDING


@param(CASES)
def test_shard_map(case):
    check(case, case.mode)


# --- fixes found by running JAX's tests (tools/port_jax_tests.py), each against JAX ----------------------------------
def _unreduced_matmul_grad(ns, a, b):
    f = ns.shard_map(lambda x, y: ns.lax.pcast(x @ y, "y", to="unreduced"), in_specs=(ns.P("x", "y"), ns.P("y", None)),
                     out_specs=ns.P("x", None, unreduced={"y"}))
    return ns.grad(lambda x, y: ns.sum(ns.reshard(f(x, y), ns.P("x", None))), argnums=(0, 1))(a, b)


def _reduced_residual_grad(ns, x):
    g = ns.shard_map(lambda a: ns.sum(ns.lax.sin(a)), out_specs=ns.P(reduced={"x"}))
    return ns.grad(g)(x)


def _nested_mesh_mismatch(ns, x):
    m = ns.mesh(IJ_MIX)

    def h(a):
        return ns.shard_map(lambda b: b * b, mesh=m, in_specs=ns.P(None, "j"), out_specs=ns.P(None, "j"))(a)
    return ns.shard_map(h, in_specs=ns.P("i", None), out_specs=ns.P("i", None), check_vma=False,
                        axis_names={"i"})(x)


def _cond_vma(ns, x, y):
    return ns.lax.cond(True, lambda a, b: a, lambda a, b: b, x, y)


def _scan_vma(ns, x, y):
    def body(carry, _):
        c1, c2 = carry
        return (c2, c1), ()
    (x_, _), _ = ns.lax.scan(body, (x, y), (), length=2)
    return x_


def _unreduced_psum_fwd(ns, x, y):
    ar = ns.shard_map(lambda a: ns.lax.psum(a, "x"), in_specs=ns.P(unreduced={"x"}), out_specs=ns.P())
    f = lambda a, b: ns.sum(ar(ns.einsum("ab,bc->ac", a, b, out_sharding=ns.P(unreduced={"x"}))))  # noqa: E731
    return f(x, y), ns.grad(f, argnums=(0, 1))(x, y)


def _preduced_fwd(ns, x, y):
    pr = ns.shard_map(lambda a: ns.lax.pcast(a, "x", to="reduced"), in_specs=ns.P(), out_specs=ns.P(reduced={"x"}))
    f = lambda a, b: ns.sum(ns.einsum("ab,bc->ac", pr(a), b))  # noqa: E731
    return f(x, y), ns.grad(f, argnums=(0, 1))(x, y)


def _all_gather_reduced_fwd(ns, x, y):
    ag = ns.shard_map(lambda a: ns.lax.all_gather(a, "x", tiled=True, to="reduced"), in_specs=ns.P("x", None),
                      out_specs=ns.P(None, None, reduced={"x"}))
    f = lambda a, b: ns.sum(ns.einsum("td,df->tf", a, ag(b)))  # noqa: E731
    return ns.value_and_grad(f, argnums=(0, 1))(x, y)


def _none_ct_grad(out_spec_kw, in_spec=None):
    """test_zero_unreduced: a custom_vjp whose backward returns None (a zero cotangent) for the
    body's input; the zero must have the input's cotangent type (a reduced input's is unreduced)."""
    def fn(ns, x):
        inner = ns.custom_vjp(lambda a: a)
        inner.defvjp(lambda a: (a, None), lambda _, g: (None,))
        kw = {} if in_spec is None else {"in_specs": in_spec(ns)}
        f = ns.shard_map(inner, out_specs=out_spec_kw(ns), **kw)
        return ns.grad(lambda a: ns.sum(f(a)))(x)
    return fn


IJ_MIX = MeshSpec((2, 2), ("i", "j"), "AA")
XY11 = MeshSpec((1, 1), ("x", "y"), "AA")
IJ11 = MeshSpec((1, 1), ("i", "j"), "AA")
FIXES = [
    Case("vary_unreduced_cast_grad", XY_E, _unreduced_matmul_grad, (T((8, 4), ("x", "y")), T((4, 8), ("y", None))),
         mode="jit"),
    Case("reduced_residual_grad", X2_E, _reduced_residual_grad, (T((8,), (), r=("x",)),), mode="jit"),
    Case("unreduced_psum_fwd_preduced_bwd", X2_E, _unreduced_psum_fwd, (T((2, 4), (None, "x")), T((4, 6), ("x",))),
         mode="jit"),
    Case("preduced_fwd_unreduced_psum_bwd", X2_E, _preduced_fwd, (T((2, 4)), T((4, 6), (None, "x"))), mode="jit"),
    Case("all_gather_reduced_fwd_unreduced_psum_scatter_bwd", X2_E, _all_gather_reduced_fwd,
         (T((4, 2), ("x", None)), T((2, 6), ("x", None))), mode="jit"),
    Case("custom_vjp_none_ct_of_reduced_input", X2_E, _none_ct_grad(lambda ns: ns.P(reduced={"x"})),
         (T((8,), (), r=("x",)),), mode="jit"),
    Case("custom_vjp_none_ct_of_varying_input", X2_E, _none_ct_grad(lambda ns: ns.P("x"), lambda ns: ns.P("x")),
         (T((8,), ("x",)),), mode="jit"),
    Case("custom_vjp_none_ct_of_invariant_input", X2_E, _none_ct_grad(lambda ns: ns.P(), lambda ns: ns.P()),
         (T((8,)),), mode="jit"),
    Case("nested_mesh_arg_must_match_context", IJ_MIX, _nested_mesh_mismatch, (T((4, 8)),), expect="reject",
         kind=ValueError, phrase="should match the mesh passed to shard_map"),
    smap_case("cond_vma_mismatch_hint", XY11, (T((4,)), T((4,))), _cond_vma, S(("x", "y")),
              in_specs=(S("x"), S("y")), error=(TypeError, "so the manual axis types do not match")),
    smap_case("scan_vma_mismatch_hint", IJ11, (T((4,)), T((4,))), _scan_vma, S("i"), in_specs=(S("i"), S()),
              error=(TypeError, "to the initial carry value corresponding to the input carry component")),
    Case("jit_out_shardings_on_auto_axes", XY, lambda ns, x: ns.jit(
        lambda a: a * 2, out_shardings=ns.NamedSharding(ns.mesh(XY), ns.P("x", None)))(x), (T((8, 4)),),
        mode="eager"),
    Case("device_put_array_onto_auto_axes", XY,
         lambda ns, x: ns.device_put(x * 1, ns.NamedSharding(ns.mesh(XY), ns.P("x", "y"))), (T((8, 4)),),
         mode="eager"),
]


@param(FIXES)
def test_fixes(case):
    check(case, case.mode)


def test_mat_inside_shard_map_as_jax():
    """`typeof(x).mat` (JAX's ManualAxisType): the VMA set and Manual unreduced axes, nested shard_maps too."""
    import jax
    import numpy as np
    from oracle import mesh_pair

    import shardc as sc
    got = {}
    for name, ns_mod, P in (("jax", jax, jax.P), ("sc", sc, sc.P)):
        m, jm = mesh_pair(XYZ)
        mesh = jm if name == "jax" else m
        seen = []

        def g(a, ns_mod=ns_mod, seen=seen):
            t = ns_mod.typeof(a)
            seen.append((set(t.mat.varying), set(t.mat.unreduced), set(t.mat.reduced)))
            return a * a

        def h(a, ns_mod=ns_mod, P=P, seen=seen, g=g):
            seen.append(set(ns_mod.typeof(a).mat.varying))
            out = ns_mod.shard_map(g, in_specs=P(None, "y"), out_specs=P(None, "y"), axis_names={"y"})(a)
            seen.append(set(ns_mod.typeof(out).mat.varying))
            return out
        with (jax.set_mesh if name == "jax" else sc.set_mesh)(mesh):
            f = ns_mod.jit(lambda x, h=h, P=P, ns_mod=ns_mod: ns_mod.shard_map(
                h, in_specs=P("x", None), out_specs=P("x", None), axis_names={"x"})(x))
            f(np.arange(32.0, dtype=np.float32).reshape(4, 8))
        got[name] = seen
    assert got["sc"] == got["jax"]


def test_api_details_as_jax():
    """`NamedSharding.is_fully_replicated` (unreduced is not), `ShapeDtypeStruct.like`, and
    `shard_map(..., out_specs=None)` for a body without outputs, `make_mesh` with one axis named by a
    string, against JAX."""
    import jax
    import numpy as np
    from oracle import mesh_pair

    import shardc as sc
    m, jm = mesh_pair(XY_E)
    got = {}
    for name, mod, mesh in (("jax", jax, jm), ("sc", sc, m)):
        with mod.set_mesh(mesh):
            x = mod.device_put(np.arange(8.0, dtype=np.float32), mod.P("x"))
            u = mod.reshard(mod.device_put(np.arange(8.0, dtype=np.float32), mod.P()), mod.P(unreduced={"x", "y"}))
            like = mod.ShapeDtypeStruct.like(x)
            seen = []
            mod.shard_map(lambda a: seen.append(a.shape), in_specs=mod.P("x"), out_specs=None)(x)
            got[name] = (x.sharding.is_fully_replicated, u.sharding.is_fully_replicated,
                         mod.device_put(np.ones(4), mod.P()).sharding.is_fully_replicated,
                         like.shape, str(like.dtype), tuple(like.sharding.spec), seen,
                         mod.make_mesh((2,), "dp", devices=jax.devices()[:2]).axis_names)
    assert got["sc"] == got["jax"]


def test_mesh_arg_without_context_under_checkpoint_as_jax():
    """test_remat_scalar_residuals: `checkpoint(shard_map(..., mesh=m))` differentiated twice with no
    mesh context; the program runs on the shard_map's mesh (shardc emitted an empty mesh here)."""
    import functools

    import jax
    import numpy as np
    from oracle import mesh_pair

    import shardc as sc
    m, jm = mesh_pair(X4)
    x = np.arange(8.0, dtype=np.float32)
    got = {}
    for name, mod, mesh in (("jax", jax, jm), ("sc", sc, m)):
        sin = jax.numpy.sin if name == "jax" else sc.sin

        @functools.partial(mod.checkpoint, policy=mod.checkpoint_policies.everything_saveable)
        @functools.partial(mod.shard_map, mesh=mesh, in_specs=mod.P("x"), out_specs=mod.P("x"))
        def f(a, sin=sin):
            return sin(sin(sin(a.sum()))[None])

        def f_vjp(a, f=f, mod=mod):
            y, pull = mod.vjp(f, a)
            return pull(y)[0]
        y, pull = mod.vjp(f_vjp, x)
        got[name] = (np.asarray(y), np.asarray(pull(np.ones(8, np.float32))[0]))
    np.testing.assert_allclose(got["sc"][0], got["jax"][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got["sc"][1], got["jax"][1], rtol=1e-5, atol=1e-6)


# --- vmap of shard_map(mesh=) with no mesh context, spmd_axis_name (test_vmap_basic*, ..._residuals) -------------
def _vmap_programs(mod, jnp, P, mesh, mesh_ij):
    import functools
    sm = mod.shard_map

    def basic(x):
        return mod.vmap(lambda a: sm(lambda b: 2.0 * b, mesh=mesh, in_specs=P("y"), out_specs=P("y"))(a))(x)

    def basic_axis_name(x):
        return mod.vmap(lambda a: sm(lambda b: 2.0 * b, mesh=mesh, in_specs=P("y"), out_specs=P("y"))(a),
                        axis_name="i")(x)

    def spmd_psum(x):
        return mod.vmap(lambda a: sm(lambda b: mod.lax.psum(b, "x"), mesh=mesh, in_specs=P("x"), out_specs=P())(a),
                        spmd_axis_name="y")(x)

    f = sm(lambda a: jnp.sin(a), mesh=mesh_ij, in_specs=P("j"), out_specs=P("j"))

    def grad_residuals(x):
        return mod.vmap(mod.grad(lambda a: f(a).sum()), spmd_axis_name="i")(x)

    g = mod.remat(f, policy=lambda *_, **__: True)

    def grad_remat_residuals(x):
        return mod.vmap(mod.grad(lambda a: g(a).sum()), spmd_axis_name="i")(x)

    h = functools.partial(sm, mesh=mesh, in_specs=P("y"), out_specs=P(), check_vma=False)(
        lambda a: jnp.sin(jnp.sum(a)))

    def grad_unchecked_spmd(x):
        return mod.vmap(mod.grad(h), spmd_axis_name="x")(x[:4, :4])

    return {"basic": basic, "basic_axis_name": basic_axis_name, "spmd_psum": spmd_psum,
            "grad_residuals": grad_residuals, "grad_remat_residuals": grad_remat_residuals,
            "grad_unchecked_spmd": grad_unchecked_spmd}


def _vmap_sides():
    import jax

    import shardc as sc
    import shardc.numpy as snp
    dev = jax.devices()
    jm = jax.make_mesh((2, 2), ("x", "y"), devices=dev[:4], axis_types=(jax.sharding.AxisType.Auto,) * 2)
    jij = jax.make_mesh((4, 2), ("i", "j"), devices=dev[:8], axis_types=(jax.sharding.AxisType.Auto,) * 2)
    sm_ = sc.make_mesh((2, 2), ("x", "y"), (sc.AxisType.Auto,) * 2, devices=dev[:4])
    sij = sc.make_mesh((4, 2), ("i", "j"), (sc.AxisType.Auto,) * 2, devices=dev[:8])
    return (_vmap_programs(jax, jax.numpy, jax.P, jm, jij), _vmap_programs(sc, snp, sc.P, sm_, sij))


@pytest.mark.parametrize("name", ["basic", "basic_axis_name", "spmd_psum", "grad_residuals", "grad_remat_residuals",
                                  "grad_unchecked_spmd"])
def test_vmap_of_shard_map_with_mesh_arg_as_jax(name):
    """No mesh context: the shard_map's `mesh=` places the program; under `vmap(grad(...))` with
    `spmd_axis_name` the residual specs leave the spmd axes to the batching rule (JAX's
    `_all_newly_manual_mesh_names`). shardc crashed (`mesh.axis_size` of an empty mesh), emitted
    an unverifiable module (a per-example shard_map with no mesh) or refused the residual specs."""
    x = np.arange(8 * 16.0, dtype=np.float32).reshape(8, 16)[:, :8] if name in ("basic", "basic_axis_name",
                                                                             "spmd_psum") else \
        np.arange(4 * 16.0, dtype=np.float32).reshape(4, 16)
    jside, sside = _vmap_sides()
    np.testing.assert_allclose(np.asarray(sside[name](x)), np.asarray(jside[name](x)), rtol=1e-5, atol=1e-5)


def test_vmap_spmd_axis_name_in_out_specs_is_refused_as_jax():
    """test_vmap_spmd_axis_name_error: the spmd axis named in out_specs is JAX's ValueError."""
    import jax

    import shardc as sc
    x = np.arange(4 * 16.0, dtype=np.float32).reshape(4, 16)
    for mod, snp in ((jax, jax.numpy), (sc, sc)):
        mesh = mod.make_mesh((4, 2), ("i", "j"), axis_types=(mod.sharding.AxisType.Auto,) * 2,
                             devices=jax.devices()[:8])
        g = mod.shard_map(lambda a: snp.sin(a), mesh=mesh, in_specs=mod.P("j"), out_specs=mod.P(("i", "j")),
                          check_vma=False)
        with pytest.raises(ValueError, match="spmd_axis_name cannot appear in shard_map out_specs"):
            mod.vmap(g, spmd_axis_name="i")(x)


@pytest.mark.parametrize("which", ["heads", "unmentioned_in_and_out"])
def test_unchecked_vma_grads_as_jax(which):
    """JAX's `_shard_map_transpose` with check_vma=False (test_check_rep_false_grads): a result's
    cotangent is divided by the size of the manual axes its out_spec leaves out, an argument's is
    psummed over the axes its in_spec leaves out (shardc gave twice JAX's gradient)."""
    import jax

    import shardc as sc
    got = []
    for mod, snp in ((jax, jax.numpy), (sc, sc)):
        if which == "heads":
            mesh = mod.make_mesh((4,), ("heads",), axis_types=(mod.sharding.AxisType.Auto,), devices=jax.devices()[:4])
            qs, kvs = mod.P("heads", None), mod.P(None)

            def f(q, k, v, mod=mod, mesh=mesh, qs=qs, kvs=kvs):
                return mod.shard_map(lambda a, b, c: a * b[None, :] + c[None, :], mesh=mesh, check_vma=False,
                                     in_specs=(qs, kvs, kvs), out_specs=qs)(q, k, v).sum()
            args = (np.arange(32.0, dtype=np.float32).reshape(4, 8), np.arange(8.0, dtype=np.float32),
                    np.arange(1.0, 9.0, dtype=np.float32))
            got.append(mod.grad(f, argnums=(0, 1, 2))(*args))
        else:
            mesh = mod.make_mesh((2, 2), ("x", "y"), axis_types=(mod.sharding.AxisType.Auto,) * 2,
                                 devices=jax.devices()[:4])
            h = mod.shard_map(lambda a, snp=snp: snp.sin(snp.sum(a)), mesh=mesh, in_specs=mod.P("y"),
                              out_specs=mod.P(), check_vma=False)
            got.append((mod.grad(h)(np.arange(4.0, dtype=np.float32)),))
    for s, j in zip(got[1], got[0]):
        np.testing.assert_allclose(np.asarray(s), np.asarray(j), rtol=1e-5, atol=1e-5)


def _error_programs(mod, jnp, mesh):
    P, NS, sm = mod.P, mod.sharding.NamedSharding, mod.shard_map
    v = mod.device_put(np.arange(32.0, dtype=np.float32).reshape(4, 8), NS(mesh, P("i", "j")))

    def wsc(axis_names):
        def g(x):
            return mod.lax.with_sharding_constraint(x, NS(mesh, P("i", "j"))) * 2

        return lambda: mod.jit(lambda x: sm(g, mesh=mesh, in_specs=P("i", None), out_specs=P("i", None),
                                           check_vma=False, axis_names=frozenset(axis_names))(x))(v)

    def device_put_in_body(jit):
        g = sm(lambda x: x + mod.device_put(1.0, mod.devices()[0]), mesh=mesh, in_specs=P("i"), out_specs=P("i"))
        return lambda: (mod.jit(g) if jit else g)(np.arange(8.0, dtype=np.float32))

    def custom_vjp_psum_bwd():
        f = mod.custom_vjp(lambda x: mod.lax.psum(x, "i"))
        f.defvjp(lambda x: (f(x), None), lambda _, g: (mod.lax.psum(g, "i"),))
        g = sm(lambda x: f(f(x)), mesh=mesh, in_specs=P("i"), out_specs=P())
        return mod.value_and_grad(lambda x: g(x).sum())(np.ones(4, np.float32))

    return {
        "custom_vjp_bwd_invariant_for_varying": (
            custom_vjp_psum_bwd, "Custom VJP bwd rule must produce an output with the same type"),
        "wsc_manual_axis_partial": (wsc({"i"}), "contains a manual axes"),
        "wsc_manual_axis_full": (wsc({"i", "j"}), "contains a manual axes"),
        "scalar_in_spec_too_long": (lambda: sm(lambda x: x, mesh=mesh, in_specs=P(None), out_specs=P())(3.0),
                                    "consider using an in_specs entry of `P()`"),
        "device_put_device_eager": (device_put_in_body(False),
                                    "device_put with explicit device not allowed within shard_map"),
        "device_put_device_jit": (device_put_in_body(True), None),
        "in_specs_none_all_static": (lambda: [sm(lambda x: x * 2, mesh=mesh, in_specs=s, out_specs=P())(3.0)
                                              for s in (None, (None,), P())], None),
        "jit_mesh_from_out_shardings": (lambda: mod.jit(lambda: sm(
            lambda: mod.lax.axis_index("i").reshape(1, 1), mesh=mesh, in_specs=P("i", None), out_specs=P("i", None),
            check_vma=False, axis_names=frozenset({"i"}))(), out_shardings=NS(mesh, P("i", None)))(), None),
        "array_of_axis_indices": (lambda: sm(lambda: jnp.array([mod.lax.axis_index("i"), mod.lax.axis_index("j")]),
                                             mesh=mesh, in_specs=(), out_specs=P(("i", "j")))(), None),
        "array_of_traced_scalars": (lambda: mod.jit(lambda a, b: jnp.array([[a, b * 2], [3, a]]))(
            np.float32(1.5), np.int32(2)), None),
        "pcast_outside_shard_map": (lambda: _in(mod, mesh, lambda: mod.lax.pcast(np.arange(8.0), "i", to="varying")),
                                    "should be called under"),
        "value_and_grad_of_varying_mean": (lambda: sm(
            lambda x: tuple(jnp.atleast_1d(r) for r in mod.value_and_grad(lambda a: jnp.mean(a ** 2))(x)),
            mesh=mesh, in_specs=P("i"), out_specs=P("i"))(np.arange(1.0, 5.0, dtype=np.float32)), None),
    }


def _in(mod, mesh, fn):
    with mod.set_mesh(mesh):
        return fn()


@pytest.mark.parametrize("name", ["wsc_manual_axis_partial", "wsc_manual_axis_full", "scalar_in_spec_too_long",
                                  "device_put_device_eager", "device_put_device_jit", "pcast_outside_shard_map",
                                  "in_specs_none_all_static", "jit_mesh_from_out_shardings", "array_of_axis_indices",
                                  "array_of_traced_scalars", "custom_vjp_bwd_invariant_for_varying",
                                  "value_and_grad_of_varying_mean"])
def test_errors_as_jax(name):
    """JAX's accept/reject, class and key phrase (test_partial_auto_error_wsc_manual /
    _invalid_auto, test_rank_errors, test_device_put)."""
    import jax

    import shardc as sc
    sides = []
    for mod in (jax, sc):
        mesh = mod.make_mesh((2, 2), ("i", "j"), axis_types=(mod.sharding.AxisType.Auto,) * 2,
                             devices=jax.devices()[:4])
        sides.append(_error_programs(mod, jax.numpy if mod is jax else sc, mesh)[name])
    (jfn, phrase), (sfn, _) = sides
    if phrase is None:
        for g, w in zip(jax.tree_util.tree_leaves(sfn()), jax.tree_util.tree_leaves(jfn())):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)
            assert np.asarray(g).dtype == np.asarray(w).dtype
        return
    with pytest.raises(ValueError, match=None) as want:
        jfn()
    assert phrase in str(want.value)
    with pytest.raises(ValueError) as got:
        sfn()
    assert phrase in str(got.value), got.value


def test_lowered_as_text_dialects_as_jax():
    """test_sharding_metadata_in_hlo_attrs: `Lowered.as_text("stablehlo", debug_info=True)` (JAX's
    signature; the shard_maps are `sdy.manual_computation`s, as many as JAX's), "hlo", and an
    unknown dialect's ValueError."""
    import jax

    import shardc as sc
    counts, hlo = [], []
    for mod, snp in ((jax, jax.numpy), (sc, sc)):
        mesh = mod.make_mesh((4,), ("i",), axis_types=(mod.sharding.AxisType.Auto,), devices=jax.devices()[:4])
        y = np.array([3.0], np.float32)

        def foo(x, mod=mod, snp=snp, mesh=mesh):
            x = snp.sin(x)
            for _ in range(2):
                x = mod.shard_map(lambda a: snp.cos(a * y), mesh=mesh, in_specs=mod.P("i"), out_specs=mod.P("i"))(x)
            return x
        low = mod.jit(foo).lower(np.arange(4, dtype=np.float32))
        text = low.as_text("stablehlo", debug_info=True)
        counts.append(text.count("sdy.manual_computation"))
        hlo.append("HloModule" in low.as_text("hlo") and "loc(" in text)
        with pytest.raises(ValueError, match="unknown dialect"):
            low.as_text("bogus")
    assert counts[0] == counts[1] == 2 and hlo == [True, True]


def test_shard_map_axis_names_exclude_vmapped_explicit_axis_as_jax():
    """test_vmap_explicit_mesh_axis_error: under vmap over an Explicit axis, axis_names naming it
    is JAX's 'requires axis_names=... to be a subset of mesh.axis_names' ValueError."""
    import jax

    import shardc as sc
    for mod in (jax, sc):
        mesh = mod.make_mesh((2, 2), ("x", "y"), axis_types=(mod.sharding.AxisType.Explicit,) * 2,
                             devices=jax.devices()[:4])
        f = mod.shard_map(lambda a: a, mesh=mesh, in_specs=mod.P("x"), out_specs=mod.P("x"), axis_names={"x", "y"})
        x = mod.device_put(np.arange(16).reshape(4, 4), mod.sharding.NamedSharding(mesh, mod.P("x", "y")))
        with pytest.raises(ValueError, match="requires axis_names.*subset of"):
            mod.jit(mod.vmap(f))(x)


def test_eager_shard_map_on_abstract_mesh_as_jax():
    """test_shmap_abstract_mesh_errors: an eager shard_map given an AbstractMesh takes its devices
    from the arguments' meshes (JAX's get_mesh_from_args): host data is JAX's ValueError, an
    argument on a mesh of another shape too; arguments on a matching mesh run."""
    import jax

    import shardc as sc
    outs = []
    for mod in (jax, sc):
        m1 = mod.make_mesh((2,), ("x",), axis_types=(mod.sharding.AxisType.Auto,), devices=jax.devices()[:2])
        m2 = mod.make_mesh((2,), ("y",), axis_types=(mod.sharding.AxisType.Auto,), devices=jax.devices()[:2])
        NS, P = mod.sharding.NamedSharding, mod.P
        arr = mod.device_put(np.arange(8), NS(m1, P("x")))
        arr2 = mod.device_put(np.arange(8), NS(m2, P("y")))
        sm = functools.partial(mod.shard_map, mesh=m1.abstract_mesh, in_specs=P("x"), out_specs=P("x"))
        with pytest.raises(ValueError, match="when passing `AbstractMesh` to the mesh argument"):
            sm(lambda x: x)(np.arange(8))
        with pytest.raises(ValueError, match="Mesh shape of the input.*does not match the mesh shape passed to"):
            mod.shard_map(lambda x: x, mesh=m2.abstract_mesh, in_specs=P("y"), out_specs=P("y"))(arr)
        with pytest.raises(ValueError, match="Mesh shape of the input.*does not match the mesh shape passed to"):
            sm(lambda x, y: (x, y))(arr, arr2)
        outs.append(np.asarray(sm(lambda x: x * 2)(arr)).tolist())
    assert outs[0] == outs[1]


# --- collectives with axis_index_groups (test_all_gather / _reduce_scatter / _all_to_all_with_axis_index_groups) ---
def _grouped(op, axes, groups, **kw):
    """`ns.lax.<op>(a, axes, axis_index_groups=groups, **kw)` as a body."""
    def body(ns, a):
        return getattr(ns.lax, op)(a, axes, axis_index_groups=groups, **kw)
    body.__name__ = op
    return body


def _grouped_grad(op, groups, **kw):
    """The gradient of a shard_map of a grouped collective (JAX transposes all_gather to psum_scatter
    and back with the same groups)."""
    def f(ns, x):
        g = ns.shard_map(lambda b: getattr(ns.lax, op)(b, "x", axis_index_groups=groups, **kw), in_specs=ns.P("x"),
                         out_specs=ns.P("x"))
        return ns.grad(lambda a: ns.sum(g(a) ** 2 * ns.arange(a.shape[0] * (4 if op == "all_gather" else 1) //
                                                                (4 if op == "psum_scatter" else 1),
                                                                dtype=a.dtype)))(x)
    return f


def _psum_unchecked_grad(out_spec):
    """JAX's `_psum_transpose_rule` under check_vma=False: psum transposes to psum (shardc's cotangent
    was the axis size too small)."""
    def f(ns, x):
        g = ns.shard_map(lambda b: ns.lax.psum(b, "x"), in_specs=ns.P("x"), out_specs=out_spec(ns), check_vma=False)
        return ns.grad(lambda a: ns.sum(g(a) ** 2))(x)
    return f


G2 = ((0, 1), (2, 3))
G2X = ((0, 3), (1, 2))
GROUPS = [
    smap_case("all_gather_with_axis_index_groups", XYZ, (T((8, 8), ("x", ("y", "z"))),),
              _grouped("all_gather", ("y", "z"), G2, axis=-1, tiled=True), S("x", ("y", "z")),
              in_specs=S("x", ("y", "z")), run=True),
    smap_case("reduce_scatter_with_axis_index_groups", XYZ, (T((8, 8), (None, ("x", "y", "z"))),),
              _grouped("psum_scatter", ("x", "y", "z"), ((0, 2, 4, 6), (1, 3, 5, 7)), scatter_dimension=0,
                       tiled=True), S(None, ("x", "y", "z")), in_specs=S(None, ("x", "y", "z")), run=True),
    smap_case("all_to_all_with_axis_index_groups", X4, (T((4, 4), ("x", None), "i32"),),
              _grouped("all_to_all", "x", G2, split_axis=1, concat_axis=0, tiled=True), S(None, "x"),
              in_specs=S("x", None), run=True),
    smap_case("all_gather_groups_untiled", X4, (T((8,), ("x",), "bf16"),), _grouped("all_gather", "x", G2X),
              S("x"), in_specs=S("x"), run=True),
    smap_case("psum_scatter_groups_untiled", X4, (T((8, 3), ("x",)),),
              lambda ns, a: ns.lax.psum_scatter(a.reshape(2, 1, 3), "x", axis_index_groups=G2X), S("x"),
              in_specs=S("x"), run=True),
    smap_case("all_to_all_groups_untiled", X4, (T((4, 2), ("x",)),),
              _grouped("all_to_all", "x", G2X, split_axis=1, concat_axis=0), S("x"), in_specs=S("x"), run=True),
    *[smap_case(f"{op}_groups_{dt}_check_vma_{cv}", X4, (T((8, 2), ("x",), dt),), _grouped(op, "x", G2X),
                S("x"), in_specs=S("x"), check_vma=cv, run=True)
      for op in ("pmax", "pmin") for dt in ("f32", "i32") for cv in (True, False)],
    smap_case("pmax_groups_typed_invariant", X4, (T((8,), ("x",)),), _grouped("pmax", "x", G2), S(),
              in_specs=S("x"), run=True),
    *[smap_case(f"{op}_groups_unchecked", X4, (T((8, 2), ("x",)),), _grouped(op, "x", G2X), S("x"),
                in_specs=S("x"), check_vma=False, run=True) for op in ("psum", "pmean")],
    smap_case("psum_uneven_groups_unchecked", X4, (T((8,), ("x",)),), _grouped("psum", "x", ((0, 1, 2), (3,))),
              S("x"), in_specs=S("x"), check_vma=False, run=True),
    smap_case("psum_constant_groups", X4, (T((8,), ("x",)),),
              lambda ns, a: a * ns.lax.psum(1, "x", axis_index_groups=((0, 1, 2), (3,))), S("x"), in_specs=S("x"),
              run=True),
    # JAX's refusals: a bad cover (ValueError), groups where VMA is checked / of to="invarying"|"reduced"
    # (NotImplementedError, no message), unequal groups for all_to_all
    *[smap_case(f"{op}_groups_bad_cover", X4, (T((8,), ("x",)),), _grouped(op, "x", ((0, 1), (1, 3)), **kw),
                S("x"), in_specs=S("x"), error=(ValueError, "axis_index_groups must cover all indices exactly once"))
      for op, kw in (("psum", {}), ("pmax", {}), ("all_gather", {"tiled": True}), ("psum_scatter", {"tiled": True}),
                     ("all_to_all", {"split_axis": 0, "concat_axis": 0, "tiled": True}))],
    *[smap_case(f"{name}_groups_not_implemented", X4, (T((8,), ("x",)),), _grouped(op, "x", G2, **kw),
                S("x"), in_specs=S("x"), error=(NotImplementedError, ""))
      for name, op, kw in (("psum", "psum", {}), ("pmean", "pmean", {}),
                           ("all_gather_invarying", "all_gather", {"tiled": True, "to": "invarying"}),
                           ("all_gather_reduced", "all_gather", {"tiled": True, "to": "reduced"}))],
    # (JAX refuses it when lowering, shardc when tracing: compared as a whole program)
    Case("all_to_all_unequal_groups", X4, lambda ns, x: ns.shard_map(
        lambda a: ns.lax.all_to_all(a, "x", 1, 1, axis_index_groups=((0, 1, 2), (3,)), tiled=True),
        in_specs=ns.P("x"), out_specs=ns.P("x"))(x), (T((8, 3), ("x",)),), mode="jit", expect="reject",
        kind=ValueError, phrase="Replica groups must be equally sized"),
    Case("all_gather_groups_grad", X4, _grouped_grad("all_gather", G2X, tiled=True), (T((8,), ("x",)),), mode="jit"),
    Case("psum_scatter_groups_grad", X4, _grouped_grad("psum_scatter", G2X, tiled=True), (T((8,), ("x",)),),
         mode="jit"),
    Case("psum_unchecked_grad_replicated_out", X4, _psum_unchecked_grad(lambda ns: ns.P()), (T((8,), ("x",)),),
         mode="jit"),
    Case("psum_unchecked_grad_varying_out", X4, _psum_unchecked_grad(lambda ns: ns.P("x")), (T((8,), ("x",)),),
         mode="jit"),
]


@param(GROUPS)
def test_axis_index_groups(case):
    check(case, case.mode)


@pytest.mark.parametrize("grad", [True, False])
def test_replicated_unreduced_bitcast_check_vma_false_as_jax(grad):
    """test_replicated_unreduced_bitcast_check_vma_false: with check_vma=False a body argument carries
    no Manual unreduced/reduced axes (JAX's `_shard_shaped_array`), results take them from out_specs;
    the gradients' shardings (reduced over x for an unreduced argument) and values as JAX's."""
    import jax
    from oracle import mesh_pair

    import shardc as sc
    got = []
    for mod in (jax, sc):
        mesh = mesh_pair(X2_E)[mod is jax]
        with mod.set_mesh(mesh):
            arr = mod.device_put(np.arange(8.0, dtype=np.float32), mod.P())
            seen = []
            f = mod.jit(mod.shard_map(lambda x: x, in_specs=mod.P(), out_specs=mod.P(unreduced={"x"}),
                                      check_vma=False))

            def body(x, mod=mod, seen=seen):
                seen.append(set(mod.typeof(x).mat.unreduced))
                return x
            g = mod.jit(mod.shard_map(body, in_specs=mod.P(unreduced={"x"}), out_specs=mod.P(), check_vma=False))
            out = f(arr)
            out2 = g(out)
            # (the body's first trace: JAX reuses it under grad, shardc traces again)
            row = [out.sharding.spec, [np.asarray(s.data) for s in out.addressable_shards], out2.sharding.spec,
                   np.asarray(out2), seen[:1]]
            if grad:
                g1 = mod.jit(mod.grad(lambda x, f=f, mod=mod: mod.reshard(f(x), mod.P()).sum()))(arr)
                g2 = mod.jit(mod.grad(lambda x, g=g: g(x).sum()))(out)
                row += [g1.sharding.spec, np.asarray(g1), g2.sharding.spec,
                        [np.asarray(s.data) for s in g2.addressable_shards]]
            got.append(row)
    j, s = got
    assert len(j) == len(s)
    for a, b in zip(s, j):
        if isinstance(a, list) and a and isinstance(a[0], np.ndarray):
            for u, v in zip(a, b):
                np.testing.assert_array_equal(u, v)
        elif isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, b)
        elif isinstance(a, list):
            assert a == b
        else:   # PartitionSpecs: compare as JAX spells them
            assert (tuple(a.partitions), set(a.unreduced), set(a.reduced)) == \
                (tuple(b.partitions), set(b.unreduced), set(b.reduced))


# --- eager shard_map bodies: Python on invariant values (test_eager_repr, _eager_control_flow, _axis_index_eager) ---
def _eager_body_programs(mod, jnp):
    """Eager shard_maps whose bodies use per-device values in Python. JAX runs such a body op by
    op; shardc stages it, computing a value where Python asks for one (`bool`/`int`/`index`/`item` of
    an invariant value, `str` of any); elsewhere both refuse with a TypeError."""
    mesh = mod.make_mesh((2, 2), ("x", "y"), axis_types=(mod.sharding.AxisType.Auto,) * 2,
                         devices=__import__("jax").devices()[:4])
    m4 = mod.make_mesh((4,), ("x",), axis_types=(mod.sharding.AxisType.Auto,), devices=__import__("jax").devices()[:4])
    P, lax = mod.P, mod.lax
    sm = functools.partial(mod.shard_map, mesh=mesh, in_specs=P("x", "y"), out_specs=P("x", "y"))

    def control_flow(x):
        y = lax.psum(x, ("x", "y"))
        return x if y < 0 else -x

    def values(x):
        seen = []

        def f(a):
            y = lax.psum(a.sum(), ("x", "y"))
            z = lax.psum(a.sum(), "x")
            seen.extend([str(a), str(y), str(z), int(y), y.item(), list(range(200))[y.astype(int)]])
            return a * 2 if y > 100 else a
        out = sm(f)(x)
        return out, seen

    def axis_index():
        return mod.shard_map(lambda: 1.0 if lax.psum(lax.axis_index("x"), "x") > 0 else -1.0, mesh=m4, in_specs=(),
                             out_specs=P())()

    def refused(kind):
        bodies = {"varying": lambda a: a * (1 if a.sum() > 0 else 2),
                  "float": lambda a: a * float(lax.psum(a.sum(), ("x", "y"))),
                  "jit": lambda a: a * (1 if lax.psum(a.sum(), ("x", "y")) > 0 else 2)}
        g = sm(bodies[kind])
        return lambda x: (mod.jit(g) if kind == "jit" else g)(x)

    return {"control_flow_neg": lambda x: sm(control_flow)(x[:2, :2]),
            "control_flow_pos": lambda x: sm(control_flow)(-x[:2, :2] - 1),
            "values": values, "axis_index": lambda x: axis_index(),
            "varying": refused("varying"), "float": refused("float"), "jit": refused("jit")}


@pytest.mark.parametrize("name", ["control_flow_neg", "control_flow_pos", "values", "axis_index", "varying", "float",
                                  "jit"])
def test_eager_shard_map_body_values_as_jax(name):
    import jax

    import shardc as sc
    x = np.arange(16.0, dtype=np.float32).reshape(4, 4)
    outs = []
    for mod, jnp in ((jax, jax.numpy), (sc, sc)):
        fn = _eager_body_programs(mod, jnp)[name]
        try:
            outs.append(("ok", fn(x)))
        except TypeError as e:   # JAX's ConcretizationTypeError family and shardc's ShardcTypeError
            outs.append(("TypeError", str(e).splitlines()[0].split(": ")[-1][:40]))
    (jk, jv), (sk, sv) = outs
    assert sk == jk, (outs, name)
    if jk != "ok":
        assert sv == jv
        return
    for a, b in zip(jax.tree_util.tree_leaves(sv), jax.tree_util.tree_leaves(jv)):
        if isinstance(b, str):
            assert a == b
        else:
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_ops_on_addressable_data_run_on_its_device_as_jax():
    """test_reduce_scatter_with_axis_index_groups checks `np.squeeze(c.addressable_data(i), -1)`: an
    eager op on one shard's data (committed to device i) runs on device i, with host data and
    default-device arrays moved there (shardc compiled it for device 0 and refused the argument);
    shards of two devices together are refused (JAX's ValueError)."""
    import jax

    import shardc as sc
    got = []
    for mod, jnp in ((jax, jax.numpy), (sc, sc)):
        mesh = mod.make_mesh((8,), ("x",), axis_types=(mod.sharding.AxisType.Auto,), devices=jax.devices()[:8])
        a = mod.device_put(jnp.arange(16.0).reshape(16, 1), mod.sharding.NamedSharding(mesh, mod.P("x")))
        d = a.addressable_data(2)
        outs = [np.squeeze(d, -1), d + 1, d * jnp.ones((2, 1)), d - np.ones((2, 1), np.float32),
                mod.jit(lambda v: v * 2)(d)]
        row = [(np.asarray(o).tolist(), sorted(x.id for x in (o._jax if mod is sc else o).devices())) for o in outs]
        with pytest.raises(ValueError):
            d + a.addressable_data(3)
        got.append(row)
    assert got[1] == got[0]


def test_linearize_tangent_vma_as_jax():
    """test_shmap_linearize_and_linearize_transpose_error: inside shard_map, a tangent varying over
    an axis its (invariant) primal does not is JAX's ValueError with the `pcast(..., ('x',),
    to='varying')` hint; with the primal made varying, linearize and linear_transpose run (their
    values as JAX's)."""
    import jax

    import shardc as sc
    got = []
    for mod, jnp in ((jax, jax.numpy), (sc, sc)):
        mesh = mod.make_mesh((2,), ("x",), axis_types=(mod.sharding.AxisType.Auto,), devices=jax.devices()[:2])

        def m(p, t, vary, mod=mod, jnp=jnp):
            if vary:
                p = mod.lax.pcast(p, "x", to="varying")
            _, fwd = mod.linearize(lambda x: jnp.mean(x ** 2), p)
            out_t = fwd(t)
            return mod.linear_transpose(fwd, p)(out_t)

        p, x = np.array([1.0], np.float32), np.arange(1.0, 3.0, dtype=np.float32)
        with pytest.raises(ValueError, match=r"pcast\(\.\.\., \('x',\).*to the primal value passed") as e:
            mod.shard_map(functools.partial(m, p, vary=False), mesh=mesh, in_specs=mod.P("x"),
                          out_specs=mod.P("x"))(x)
        assert str(e.value).splitlines()[0].endswith("inconsistent with the original primal values:")
        out = mod.shard_map(functools.partial(m, p, vary=True), mesh=mesh, in_specs=mod.P("x"),
                            out_specs=mod.P("x"))(x)
        got.append([np.asarray(o) for o in jax.tree_util.tree_leaves(out)])
    for a, b in zip(got[1], got[0]):
        np.testing.assert_allclose(a, b, rtol=1e-6)
