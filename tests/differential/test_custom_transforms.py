"""JAX's custom transformations against jax 0.10.2: `custom_gradient`, `closure_convert`,
`linear_call`, `zero_from_primal` (`custom_derivatives`), `custom_batching.custom_vmap` /
`sequential_vmap`, `linear_transpose`, `fwd_and_bwd`, `float0` gradients (`allow_int`) and
`ensure_compile_time_eval`: values, `str(typeof)`, and accept/reject (error class and phrase)."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import shardc as sc
from shardc import P

EX = (jax.sharding.AxisType.Explicit,) * 2
SPECS = [P(), P("X"), P("Y"), P(("X", "Y"))]
DTYPES = [np.float32, jnp.bfloat16]


@pytest.fixture
def meshes(mesh24):
    """shardc's 2×4 Explicit mesh and JAX's, each its library's context mesh."""
    jm = jax.make_mesh((2, 4), ("X", "Y"), axis_types=EX)
    with jax.set_mesh(jm):
        yield mesh24, jm


def _pair(meshes, data, spec):
    sm, jm = meshes
    return (sc.device_put(data, sc.NamedSharding(sm, spec)),
            jax.device_put(data, jax.sharding.NamedSharding(jm, jax.P(*spec))))


def _same(a, b, rtol=1e-6):
    for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b)):
        if getattr(y, "dtype", None) == jax.float0:
            assert x.dtype == sc.float0 and x.shape == y.shape
            continue
        assert str(sc.typeof(x)) == str(jax.typeof(y)), (sc.typeof(x), jax.typeof(y))
        np.testing.assert_allclose(np.asarray(x, np.float32), np.asarray(y, np.float32), rtol=rtol, atol=1e-6)


def _rejects(run_sc, run_jax, cls, phrase):
    with pytest.raises(cls, match=phrase):
        run_jax()
    with pytest.raises(cls, match=phrase):
        run_sc()


# --- custom_gradient --------------------------------------------------------------------------
def _cg(ns, cd):
    @cd.custom_gradient
    def f(x, y):
        out = ns.sin(x) * y

        def vjp(g):
            return g * ns.cos(x) * y * 2.0, g * ns.sin(x)
        return out, vjp
    return f


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", ["eager", "jit", "vmap"])
def test_custom_gradient(meshes, spec, dtype, mode):
    data = np.linspace(-1, 1, 32, dtype=np.float32).reshape(8, 4).astype(dtype)
    x, jx = _pair(meshes, data, spec)
    results = []
    for ns, cd, a in ((sc, sc.custom_derivatives, x), (jax, jax.custom_derivatives, jx)):
        f = _cg(ns if ns is sc else jnp, cd)
        g = ns.grad(lambda a, b: (f(a, b) ** 2).sum() if mode != "vmap" else f(a, b).sum(), argnums=(0, 1))
        if mode == "jit":
            g = ns.jit(g)
        if mode == "vmap":
            g = ns.vmap(g)
        results.append((g(a, a * 0.5), f(a, a)))
    _same(*results, rtol=2e-2 if dtype is jnp.bfloat16 else 1e-5)




def test_custom_gradient_single_arg_and_pytree_out(meshes):
    x, jx = _pair(meshes, np.linspace(0, 1, 8, dtype=np.float32), P("X"))
    outs = []
    for ns, a in ((sc, x), (jax, jx)):
        np_ = ns if ns is sc else jnp

        @ns.custom_derivatives.custom_gradient
        def f(a):
            return {"s": np_.sin(a), "c": np_.cos(a)}, lambda g: g["s"] * 3.0 + g["c"]
        outs.append((ns.grad(lambda a: np_.sum(f(a)["s"] + f(a)["c"]))(a),
                     ns.jit(ns.grad(lambda a: np_.sum(f(a)["s"])))(a)))
    _same(*outs)


# --- closure_convert --------------------------------------------------------------------------
@pytest.mark.parametrize("spec", SPECS)
def test_closure_convert_hoists_traced_floats(meshes, spec):
    data = np.linspace(-1, 1, 32, dtype=np.float32).reshape(8, 4)
    x, jx = _pair(meshes, data, spec)
    res = []
    for ns, a in ((sc, x), (jax, jx)):
        np_ = ns if ns is sc else jnp

        def outer(a, w, n):
            conv, consts = ns.closure_convert(lambda y: np_.sin(y) * w + n.astype(np.float32), a)
            return conv(a, *consts), len(consts)
        n = np.int32(3)
        jitted = ns.jit(lambda a, w, n: outer(a, w, n)[0])
        counts = []

        def count(a, w, n):
            out, k = outer(a, w, n)
            counts.append(k)
            return out
        ns.jit(count)(a, 2.0, n)
        res.append((jitted(a, 2.0, n), outer(a, 2.0, n)[0], counts[0], outer(a, 2.0, n)[1]))
    _same(res[0][:2], res[1][:2])
    assert res[0][2:] == res[1][2:]


def test_closure_convert_rejects_other_trees(meshes):
    x, jx = _pair(meshes, np.ones(8, np.float32), P("X"))
    _rejects(lambda: sc.closure_convert(lambda y: y, x)[0]((x,)),
             lambda: jax.closure_convert(lambda y: y, jx)[0]((jx,)), TypeError, "same Pytree structure")


# --- linear_call ------------------------------------------------------------------------------
@pytest.mark.parametrize("spec", SPECS[:3])
def test_linear_call(meshes, spec):
    x, jx = _pair(meshes, np.linspace(0, 1, 32, dtype=np.float32).reshape(8, 4), spec)
    res = []
    for ns, a in ((sc, x), (jax, jx)):
        lc = ns.custom_derivatives.linear_call
        f = lambda r, lin: lc(lambda r, l: r * l, lambda r, c: r * c * 10.0, r, lin)  # noqa: E731
        res.append((f(2.0, a), ns.grad(lambda l: (f(2.0, l)).sum())(a), ns.jit(ns.grad(lambda l: f(3.0, l).sum()))(a)))
    _same(*res)


def test_zero_from_primal(meshes):
    x, jx = _pair(meshes, np.ones((2, 4), np.float32), P("X", "Y"))
    ours = sc.custom_derivatives.zero_from_primal({"a": x, "i": np.int32(1)})
    theirs = jax.custom_derivatives.zero_from_primal({"a": jx, "i": np.int32(1)})
    _same(ours, theirs)
    assert sc.custom_derivatives.zero_from_primal(x, symbolic_zeros=True).shape == (2, 4)


def test_custom_derivatives_module_names():
    ours = {n for n in dir(sc.custom_derivatives) if not n.startswith("_")}
    theirs = {n for n in dir(jax.custom_derivatives) if not n.startswith("_")}
    internals = {"custom_jvp_call_p", "custom_vjp_call_p", "remat_opt_p", "CustomVJPPrimal",
                 "custom_vjp_primal_tree_values"}
    assert theirs - internals <= ours
    assert sc.custom_derivatives.custom_vjp is sc.custom_vjp and sc.custom_gradient is sc.custom_derivatives.custom_gradient


# --- custom_vmap --------------------------------------------------------------------------------
def _cv(ns, np_):
    @ns.custom_batching.custom_vmap
    def f(x, y):
        return np_.sin(x) * y

    @f.def_vmap
    def rule(n, in_batched, x, y):
        assert n == 8
        return np_.cos(x) * y, in_batched[0] or in_batched[1]
    return f


@pytest.mark.parametrize("in_axes", [(0, None), (0, 0), (None, 0), (1, None)])
@pytest.mark.parametrize("mode", ["eager", "jit", "grad_of_vmap"])
def test_custom_vmap(meshes, in_axes, mode):
    data = np.linspace(-1, 1, 32, dtype=np.float32).reshape(8, 4)
    res = []
    for ns, np_ in ((sc, sc), (jax, jnp)):
        f = _cv(ns, np_)
        x = np_.asarray({0: data, 1: data.T, None: data[0]}[in_axes[0]])
        y = np_.asarray(data * 0.5 if in_axes[1] == 0 else np.float32(2.0))
        vf = ns.vmap(f, in_axes=in_axes)
        if mode == "jit":
            vf = ns.jit(vf)
        if mode == "grad_of_vmap":
            vf = ns.grad(lambda a, b, inner=vf: inner(a, b).sum())
        res.append((vf(x, y), f(np_.asarray(data[0]), 3.0)))
    _same(*res)


def test_custom_vmap_rejections(meshes):
    for kind in ("grad", "tree"):
        def run(ns, np_, kind=kind):
            f = _cv(ns, np_)
            if kind == "grad":
                return ns.grad(lambda a: f(a, 2.0).sum())(np_.ones(4))
            g = ns.custom_batching.custom_vmap(lambda a: np_.sin(a))
            g.def_vmap(lambda n, b, a: ((a, a), b[0]))
            return ns.vmap(g)(np_.ones((8, 4)))
        phrase = "Linearization failed" if kind == "grad" else "do not match"
        _rejects(lambda: run(sc, sc), lambda: run(jax, jnp), ValueError, phrase)
    g = sc.custom_batching.custom_vmap(lambda a: a)
    with pytest.raises(AttributeError, match="No batching rule"):
        g(np.ones(2, np.float32))


@pytest.mark.parametrize("in_axes", [(0, None), (0, 0)])
def test_sequential_vmap(meshes, in_axes):
    data = np.linspace(-1, 1, 32, dtype=np.float32).reshape(8, 4)
    res = []
    for ns, np_ in ((sc, sc), (jax, jnp)):
        f = ns.custom_batching.sequential_vmap(lambda x, y: np_.sin(x) * y)
        y = np_.asarray(data[:, 0] if in_axes[1] == 0 else np.float32(2.0))
        res.append((ns.vmap(f, in_axes=in_axes)(np_.asarray(data), y),
                    ns.jit(ns.vmap(f, in_axes=in_axes))(np_.asarray(data), y)))
    _same(*res)


# --- linear_transpose ---------------------------------------------------------------------------
LINEAR = [
    ("scale", lambda np_: lambda x: x * 2.0),
    ("sum", lambda np_: lambda x: np_.sum(x, axis=0)),
    ("transpose", lambda np_: lambda x: x.T * 3.0 - x.T),
    ("dict", lambda np_: lambda x: {"a": x + x, "b": np_.sum(x)}),
]


@pytest.mark.parametrize("name,make", LINEAR, ids=[n for n, _ in LINEAR])
@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_linear_transpose(meshes, name, make, spec, mode):
    data = np.linspace(-1, 1, 32, dtype=np.float32).reshape(8, 4)
    x, jx = _pair(meshes, data, spec)
    res = []
    for ns, np_, a in ((sc, sc, x), (jax, jnp, jx)):
        f = make(np_)
        t = ns.linear_transpose(f, a)
        ct = f(a)
        res.append(ns.jit(t)(ct) if mode == "jit" else t(ct))
    _same(*res)


@pytest.mark.parametrize("case", ["sin", "tree", "type", "dtypes"])
def test_linear_transpose_rejects(case):
    def run(ns, np_):
        if case == "sin":
            return ns.linear_transpose(np_.sin, np.float32(1.0))(np.float32(1.0))
        if case == "tree":
            return ns.linear_transpose(lambda x: x * 2.0, np.float32(1.0))((np.float32(1.0),))
        if case == "type":
            return ns.linear_transpose(lambda x: x * 2.0, np.float32(1.0))(np.ones(2, np.float32))
        return ns.linear_transpose(lambda x: x.astype(np.int32), np.float32(1.0))
    cls, phrase = {"sin": (NotImplementedError, "Transpose rule .* for 'sin' not implemented"),
                   "tree": (TypeError, "cotangent tree does not match"),
                   "type": (TypeError, "cotangent type does not match"),
                   "dtypes": (TypeError, "linear_transpose only supports")}[case]
    _rejects(lambda: run(sc, sc), lambda: run(jax, jnp), cls, phrase)


# --- fwd_and_bwd ----------------------------------------------------------------------------------
@pytest.mark.parametrize("argnums", [0, (0, 1), 1])
@pytest.mark.parametrize("jitted", [True, False])
@pytest.mark.parametrize("spec", [P("X", "Y"), P()])
def test_fwd_and_bwd(meshes, argnums, jitted, spec):
    data = np.linspace(-1, 1, 16, dtype=np.float32).reshape(4, 4)
    x, jx = _pair(meshes, data, spec)
    res = []
    for ns, np_, a in ((sc, sc, x), (jax, jnp, jx)):
        fwd, bwd = ns.fwd_and_bwd(lambda a, w: np_.tanh(a * w).sum(axis=1), argnums=argnums, jitted=jitted)
        out, r = fwd(a, a * 0.5)
        res.append((out, bwd(r, out)))
    _same(*res)


def test_fwd_and_bwd_has_aux(meshes):
    x, jx = _pair(meshes, np.linspace(-1, 1, 8, dtype=np.float32), P("X"))
    res = []
    for ns, np_, a in ((sc, sc, x), (jax, jnp, jx)):
        fwd, bwd = ns.fwd_and_bwd(lambda a: (np_.sin(a), np_.cos(a)), argnums=0, has_aux=True)
        out, r, aux = fwd(a)
        res.append((out, aux, bwd(r, out)))
    _same(*res)


# --- float0 -------------------------------------------------------------------------------------
@pytest.mark.parametrize("idtype", [np.int32, np.bool_, np.uint8])
def test_grad_allow_int_float0(meshes, idtype):
    x, jx = _pair(meshes, np.linspace(0, 1, 8, dtype=np.float32), P("X"))
    i, ji = _pair(meshes, (np.arange(8) % 2).astype(idtype), P("X"))
    res = []
    for ns, np_, a, b in ((sc, sc, x, i), (jax, jnp, jx, ji)):
        f = lambda a, b: np_.sum(a * b.astype(np.float32))  # noqa: E731
        g = ns.grad(f, argnums=(0, 1), allow_int=True)(a, b)
        assert g[1].dtype == jax.float0 and g[1].shape == (8,)
        out, pull = ns.vjp(f, a, b)
        res.append((g, ns.jit(ns.grad(f, allow_int=True))(a, b), pull(np.float32(1.0))))
    _same(*res)
    assert sc.float0 == jax.float0
    _rejects(lambda: sc.grad(lambda a, b: sc.sum(a), argnums=1)(x, i),
             lambda: jax.grad(lambda a, b: jnp.sum(a), argnums=1)(jx, ji), TypeError,
             "grad requires real- or complex-valued inputs")


def test_vjp_integer_output_float0_cotangent(meshes):
    x, jx = _pair(meshes, np.linspace(0, 1, 8, dtype=np.float32), P("X"))
    res = []
    for ns, np_, a in ((sc, sc, x), (jax, jnp, jx)):
        _, pull = ns.vjp(lambda a: (a * 2.0, np_.arange(3)), a)
        res.append((pull((a, np.zeros(3, jax.float0))), pull((a, np_.zeros(3, np.int32)))))
    _same(*res)


# --- ensure_compile_time_eval ---------------------------------------------------------------------
def test_ensure_compile_time_eval(meshes):
    x, jx = _pair(meshes, np.linspace(0, 1, 8, dtype=np.float32), P("X"))
    res, kinds = [], []
    for ns, np_, a in ((sc, sc, x), (jax, jnp, jx)):
        @ns.jit
        def f(a):
            with ns.ensure_compile_time_eval():
                y = np_.arange(8.0) * 2.0
                n = int(y.sum())        # concrete: usable as a Python value
                kinds.append(isinstance(a * 1.0, (sc.core.Tracer, jax.core.Tracer)))
            return a + y + n
        res.append(f(a))
    _same(*res)
    assert kinds == [True, True]
