"""JAX's custom transformations against jax 0.10.2: `custom_gradient`, `closure_convert`,
`linear_call`, `zero_from_primal` (`custom_derivatives`), `custom_batching.custom_vmap` /
`sequential_vmap`, `linear_transpose`, `fwd_and_bwd`, `float0` gradients (`allow_int`) and
`ensure_compile_time_eval`, alone and composed with grad / vmap / jit / scan / shard_map.

The tables run on the oracle harness: types of every output over 1-D to 3-D meshes and the
shardings the shapes allow ("trace"), values, shardings and collectives on a compiled subset
("jit"), accept/reject with JAX's error class and phrase. float0 results (host arrays JAX
returns for integer arguments) are compared directly (more in test_float0.py)."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from oracle import BASIC_MESHES, Case, check, param, placed_pair, specs_for, type_str

import shardc as sc
from shardc import P


def _types(shape=(8, 4), dtypes=("f32",), per_mesh: int = 4) -> list[tuple[str, str]]:
    """(mesh, type) pairs: a spread of the valid shardings of `shape` on each basic mesh."""
    out = []
    for mesh in BASIC_MESHES:
        specs = specs_for(shape, mesh, max_axes_per_dim=2)
        step = max(1, len(specs) // per_mesh)
        for d in dtypes:
            out += [(mesh, type_str(d, shape, spec)) for spec in specs[::step][:per_mesh]]
    return out


# --- the functions (written once, against either namespace) ---------------------------------------
def _cg(ns):
    """custom_gradient: sin(x)·y with a deliberately different gradient (2·cos(x)·y, sin(x))."""
    @ns.custom_gradient
    def f(x, y):
        out = ns.sin(x) * y

        def vjp(g):
            return g * ns.cos(x) * y * 2.0, g * ns.sin(x)
        return out, vjp
    return f


def _cg_tree(ns):
    """One argument, a dict output: the rule takes the dict, returns one cotangent."""
    @ns.custom_gradient
    def f(a):
        return {"s": ns.sin(a), "c": ns.cos(a)}, lambda g: g["s"] * 3.0 + g["c"]
    return f


def _cv(ns):
    """custom_vmap: sin(x)·y unbatched; its rule computes cos(x)·y instead (so the rule shows)."""
    @ns.custom_batching.custom_vmap
    def f(x, y):
        return ns.sin(x) * y

    @f.def_vmap
    def rule(n, in_batched, x, y):
        return ns.cos(x) * y, in_batched[0] or in_batched[1]
    return f


def _closure_vjp(ns, x, w):
    """closure_convert's use: a custom_vjp over a function closing over traced `w`."""
    def apply(fn, a, *consts):
        return fn(a, *consts)
    g = ns.custom_vjp(apply, nondiff_argnums=(0,))

    def fwd(fn, a, *consts):
        return fn(a, *consts), (a, consts)

    def bwd(fn, res, ct):
        a, consts = res
        return ns.vjp(fn, a, *consts)[1](ct * 2.0)
    g.defvjp(fwd, bwd)

    def loss(x, w):
        conv, consts = ns.closure_convert(lambda a: ns.sin(a) * w, x)
        return ns.sum(g(conv, x, *consts))
    return ns.grad(loss, argnums=(0, 1))(x, w)


LINEAR = {
    "scale": lambda ns: lambda x: x * 2.0,
    "sum": lambda ns: lambda x: ns.sum(x, axis=0),
    "transpose": lambda ns: lambda x: x.T * 3.0 - x.T,
    "dict": lambda ns: lambda x: {"a": x + x, "b": ns.sum(x)},
}


def _transpose(ns, make, x):
    f = make(ns)
    return ns.linear_transpose(f, x)(f(x))


def _fwd_bwd(ns, argnums, x, y):
    fwd, bwd = ns.fwd_and_bwd(lambda a, w: ns.tanh(a * w).sum(axis=1), argnums=argnums)
    out, r = fwd(x, y)
    return out, bwd(r, out)


# --- the tables --------------------------------------------------------------------------------
TWO = [  # (name, program over two arguments of the same type)
    ("cg-grad", lambda ns, x, y: ns.grad(lambda a, b: ns.sum(_cg(ns)(a, b) ** 2), argnums=(0, 1))(x, y)),
    ("cg-plain", lambda ns, x, y: _cg(ns)(x, y)),
    ("cg-vjp", lambda ns, x, y: ns.vjp(_cg(ns), x, y)[1](x)),
    ("cg-vmap-grad", lambda ns, x, y: ns.vmap(ns.grad(lambda a, b: ns.sum(_cg(ns)(a, b)), argnums=(0, 1)))(x, y)),
    ("cg-tree", lambda ns, x, y: ns.grad(lambda a: ns.sum(_cg_tree(ns)(a)["s"] + _cg_tree(ns)(a)["c"]))(x)),
    ("closure-convert-vjp", _closure_vjp),
    ("cv-vmap", lambda ns, x, y: ns.vmap(_cv(ns))(x, y)),
    ("cv-vmap-unbatched-y", lambda ns, x, y: ns.vmap(_cv(ns), in_axes=(0, None))(x, ns.sum(y, axis=0))),
    ("cv-vmap-axis1", lambda ns, x, y: ns.vmap(_cv(ns), in_axes=(1, None))(x, ns.sum(y, axis=1))),
    ("cv-grad-of-vmap", lambda ns, x, y: ns.grad(lambda a: ns.sum(ns.vmap(_cv(ns))(a, y)))(x)),
    ("cv-plain", lambda ns, x, y: _cv(ns)(x, y)),
    ("cv-jvp-of-vmap", lambda ns, x, y: ns.jvp(ns.vmap(_cv(ns)), (x, y), (y, x))),
    ("cv-jvp", lambda ns, x, y: ns.jvp(_cv(ns), (x, y), (y, x))),
    ("fwd-bwd-0", lambda ns, x, y: _fwd_bwd(ns, 0, x, y)),
    ("fwd-bwd-01", lambda ns, x, y: _fwd_bwd(ns, (0, 1), x, y)),
    *[(f"transpose-{k}", lambda ns, x, y, k=k: _transpose(ns, LINEAR[k], x)) for k in LINEAR],
]
CASES = [Case(f"{name}-{mesh}-{t}", mesh, fn, (t, t), expect="accept")
         for name, fn in TWO for mesh, t in _types(dtypes=("f32", "bf16"), per_mesh=3)]
# compiled and run: values, shardings and collectives (shardc's at most JAX's)
CASES += [Case(f"{name}-jit", "2d", fn, ("f32[8@X,4@Y]", "f32[8@X,4@Y]"), mode="jit", expect="accept",
               collectives="at_most", tol=(1e-5, 1e-5)) for name, fn in TWO]
CASES += [Case(f"{name}-eager", "2d", fn, ("f32[8@X,4]", "f32[8@X,4]"), mode="eager", expect="accept",
               tol=(1e-5, 1e-5)) for name, fn in TWO if name in ("cg-grad", "cv-vmap", "transpose-dict", "fwd-bwd-0")]


def _cg_in_scan(ns, x, y):
    f = _cg(ns)

    def loss(x, y):
        c, _ = ns.scan(lambda c, _: (f(c, y), None), x, None, length=3)
        return ns.sum(c)
    return ns.grad(loss, argnums=(0, 1))(x, y)


def _cg_in_shard_map(ns, x, y):
    f = _cg(ns)
    sm = ns.shard_map(lambda a, b: f(a, b), in_specs=(ns.P("X", "Y"), ns.P("X", "Y")), out_specs=ns.P("X", "Y"))
    return ns.grad(lambda x, y: ns.sum(sm(x, y)), argnums=(0, 1))(x, y)


def _cv_in_shard_map(ns, x, y):
    sm = ns.shard_map(lambda a, b: ns.vmap(_cv(ns))(a, b), in_specs=(ns.P("X", "Y"), ns.P("X", "Y")),
                      out_specs=ns.P("X", "Y"))
    return sm(x, y)


def _cv_in_scan(ns, x, y):
    return ns.scan(lambda c, r: (c + ns.vmap(_cv(ns))(r, r), None), x, y[None], length=1)[0]


def _seq_vmap(ns, x, y):
    f = ns.custom_batching.sequential_vmap(lambda a, b: ns.sin(a) * b)
    return ns.vmap(f)(x, y), ns.vmap(f, in_axes=(0, None))(x, y[0])


def _transpose_in_grad(ns, x, y):
    t = ns.linear_transpose(lambda a: a * 3.0, x)
    return ns.grad(lambda w: ns.sum(t(w * y)[0] ** 2))(x)


def _ctev(ns, a):
    """ensure_compile_time_eval: concrete values computed while tracing (`int()` of one works)."""
    with ns.ensure_compile_time_eval():
        y = ns.arange(4.0) * 2.0
        k = int(y[1])
    return a * y + k


MORE = [
    ("ctev-vmap", lambda ns, x, y: ns.vmap(lambda r: _ctev(ns, r))(x)),
    ("ctev-grad", lambda ns, x, y: ns.grad(lambda a: ns.sum(_ctev(ns, a)))(x)),
    ("ctev-loop", lambda ns, x, y: ns.fori_loop(0, 2, lambda i, c: c + _ctev(ns, c), ns.sum(y, axis=0))),
    ("cg-cond", lambda ns, x, y: ns.grad(lambda a: ns.cond(True, lambda b: ns.sum(_cg(ns)(b, b)), ns.sum, a))(x)),
    ("cg-hessian", lambda ns, x, y: ns.jacrev(ns.grad(lambda a: ns.sum(_cg(ns)(a, a))))(ns.sum(x, axis=0))),
    ("closure-convert-vmap", lambda ns, x, y: ns.vmap(
        lambda a: (lambda cv: cv[0](a, *cv[1]))(ns.closure_convert(lambda b: b * ns.sum(a), a)))(x)),
    ("fwd-bwd-vmap", lambda ns, x, y: ns.vmap(lambda a: (lambda fb: fb[1](fb[0](a)[1], a))(ns.fwd_and_bwd(ns.sin, 0)))(x)),
    ("transpose-vmap", lambda ns, x, y: ns.vmap(lambda a: ns.linear_transpose(lambda b: b * 2.0, a)(a))(x)),
]
COMPOSED = [*MORE, ("cg-in-scan", _cg_in_scan), ("cg-in-shard_map", _cg_in_shard_map),
            ("cv-in-shard_map", _cv_in_shard_map), ("cv-in-scan", _cv_in_scan),
            ("transpose-in-grad", _transpose_in_grad),
            ("cv-jvp-of-jvp", lambda ns, x, y: ns.jvp(lambda a: ns.jvp(lambda b: _cv(ns)(b, y), (a,), (x,))[1],
                                                     (x,), (y,))),
            ("cv-jvp-in-shard_map", lambda ns, x, y: ns.shard_map(
                lambda a, b: ns.jvp(_cv(ns), (a, b), (b, a)), in_specs=(ns.P("X", "Y"),) * 2,
                out_specs=(ns.P("X", "Y"),) * 2)(x, y)),
            ("cv-jvp-closed-over", lambda ns, x, y: ns.jvp(lambda a: _cv(ns)(a, y) * 2.0, (x,), (y,)))]
CASES += [Case(f"{name}-{mode}", "2d", fn, ("f32[8@X,4@Y]", "f32[8@X,4@Y]"), mode=mode, expect="accept",
               collectives="at_most", tol=(1e-5, 1e-5)) for name, fn in COMPOSED for mode in ("trace", "jit")]
CASES += [Case(f"seq-vmap-{mode}", "2d", _seq_vmap, ("f32[8,4@Y]", "f32[8,4@Y]"), mode=mode, expect="accept",
               collectives="at_most") for mode in ("trace", "jit")]

REJECT = [
    ("cg-jvp", lambda ns, x, y: ns.jvp(_cg(ns), (x, y), (y, x)), TypeError,
     "can't apply forward-mode autodiff"),
    ("cg-jacfwd", lambda ns, x, y: ns.jacfwd(lambda a: ns.sum(_cg(ns)(a, y)))(x), TypeError,
     "can't apply forward-mode autodiff"),
    ("cv-grad", lambda ns, x, y: ns.grad(lambda a: ns.sum(_cv(ns)(a, y)))(x), ValueError, "Linearization failed"),
    ("cv-rule-tree", lambda ns, x, y: ns.vmap(_bad_rule(ns))(x), ValueError, "do not match"),
    ("cv-linearize", lambda ns, x, y: ns.linearize(_cv(ns), x, y)[1](y, x), ValueError, "Linearization failed"),
    ("cv-grad-of-jvp", lambda ns, x, y: ns.grad(lambda a: ns.sum(ns.jvp(lambda b: _cv(ns)(b, y), (a,), (a,))[1]))(x),
     ValueError, "Linearization failed"),
    ("transpose-sin", lambda ns, x, y: ns.linear_transpose(ns.sin, x)(x), NotImplementedError,
     "Transpose rule (for reverse-mode differentiation) for 'sin' not implemented"),
    ("transpose-ct-tree", lambda ns, x, y: ns.linear_transpose(lambda a: a * 2.0, x)((x,)), TypeError,
     "cotangent tree does not match"),
    ("transpose-ct-type", lambda ns, x, y: ns.linear_transpose(lambda a: a * 2.0, x)(ns.sum(x)), TypeError,
     "cotangent type does not match"),
    ("transpose-dtypes", lambda ns, x, y: ns.linear_transpose(lambda a: a.astype(np.int32), x), TypeError,
     "linear_transpose only supports"),
    ("closure-convert-tree", lambda ns, x, y: ns.closure_convert(lambda a: a * y, x)[0]((x,)), TypeError,
     "same Pytree structure"),
    ("grad-int", lambda ns, x, y: ns.grad(lambda a: ns.sum(a.astype(np.float32)))(x.astype(np.int32)), TypeError,
     "grad requires real- or complex-valued inputs"),
]


def _bad_rule(ns):
    g = ns.custom_batching.custom_vmap(lambda a: ns.sin(a))
    g.def_vmap(lambda n, b, a: ((a, a), b[0]))
    return g


# (JAX traces jvp of a custom_vjp function and refuses it when the program is lowered: compiled here)
CASES += [Case(f"reject-{name}", "2d", fn, ("f32[8@X,4@Y]", "f32[8@X,4@Y]"), expect="reject", kind=kind,
               phrase=phrase, mode="jit" if name.startswith("cg-j") else "trace") for name, fn, kind, phrase in REJECT]


@param(CASES)
def test_custom_transforms(case):
    check(case)




# --- direct comparisons (float0 host arrays, module contents, concrete values) --------------------
SPECS = [P(), P("X"), P("Y"), P(("X", "Y"))]


def _same(a, b, rtol=1e-6):
    la, lb = jax.tree.leaves(a), jax.tree.leaves(b)
    assert len(la) == len(lb)
    for x, y in zip(la, lb):
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


@pytest.mark.parametrize("idtype", [np.int32, np.bool_, np.uint8])
def test_grad_allow_int_float0(meshes, idtype):
    x, jx = placed_pair(meshes, np.linspace(0, 1, 8, dtype=np.float32), P("X"))
    i, ji = placed_pair(meshes, (np.arange(8) % 2).astype(idtype), P("X"))
    res = []
    for ns, np_, a, b in ((sc, sc, x, i), (jax, jnp, jx, ji)):
        f = lambda a, b: np_.sum(a * b.astype(np.float32))  # noqa: E731
        g = ns.grad(f, argnums=(0, 1), allow_int=True)(a, b)
        assert g[1].dtype == jax.float0 and g[1].shape == (8,)
        out, pull = ns.vjp(f, a, b)
        res.append((g, ns.jit(ns.grad(f, allow_int=True))(a, b), pull(np.float32(1.0))))
    _same(*res)
    assert sc.float0 == jax.float0


# --- linear_call ------------------------------------------------------------------------------
@pytest.mark.parametrize("spec", SPECS[:3])
def test_linear_call(meshes, spec):
    x, jx = placed_pair(meshes, np.linspace(0, 1, 32, dtype=np.float32).reshape(8, 4), spec)
    res = []
    for ns, a in ((sc, x), (jax, jx)):
        lc = ns.custom_derivatives.linear_call
        f = lambda r, lin: lc(lambda r, l: r * l, lambda r, c: r * c * 10.0, r, lin)  # noqa: E731
        res.append((f(2.0, a), ns.grad(lambda l: (f(2.0, l)).sum())(a), ns.jit(ns.grad(lambda l: f(3.0, l).sum()))(a),
                    ns.jvp(lambda l: f(2.0, l), (a,), (a,))))
    _same(*res)


def test_zero_from_primal(meshes):
    x, jx = placed_pair(meshes, np.ones((2, 4), np.float32), P("X", "Y"))
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


def test_fwd_and_bwd_has_aux(meshes):
    x, jx = placed_pair(meshes, np.linspace(-1, 1, 8, dtype=np.float32), P("X"))
    res = []
    for ns, np_, a in ((sc, sc, x), (jax, jnp, jx)):
        fwd, bwd = ns.fwd_and_bwd(lambda a: (np_.sin(a), np_.cos(a)), argnums=0, has_aux=True)
        out, r, aux = fwd(a)
        res.append((out, aux, bwd(r, out)))
    _same(*res)


def test_vjp_integer_output_float0_cotangent(meshes):
    x, jx = placed_pair(meshes, np.linspace(0, 1, 8, dtype=np.float32), P("X"))
    res = []
    for ns, np_, a in ((sc, sc, x), (jax, jnp, jx)):
        _, pull = ns.vjp(lambda a: (a * 2.0, np_.arange(3)), a)
        res.append((pull((a, np.zeros(3, jax.float0))), pull((a, np_.zeros(3, np.int32)))))
    _same(*res)


# --- ensure_compile_time_eval ---------------------------------------------------------------------
def test_ensure_compile_time_eval(meshes):
    x, jx = placed_pair(meshes, np.linspace(0, 1, 8, dtype=np.float32), P("X"))
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


def test_jvp_float0_tangents(meshes):
    """Integer primals take float0 tangents (an integer tangent is JAX's TypeError); integer
    outputs get float0 tangents, from jvp and linearize."""
    x, jx = placed_pair(meshes, np.linspace(0, 1, 8, dtype=np.float32), P("X"))
    i, ji = placed_pair(meshes, np.arange(8, dtype=np.int32), P("X"))
    t0 = np.zeros(8, jax.float0)
    res = []
    for ns, a, b in ((sc, x, i), (jax, jx, ji)):
        f = lambda a, b: (a * b.astype(np.float32), b * 2)  # noqa: E731
        res.append((ns.jvp(f, (a, b), (a, t0)), ns.linearize(f, a, b)[1](a, t0),
                    ns.jit(lambda a, b: ns.jvp(f, (a, b), (a, t0))[1][0])(a, b)))
    _same(*res)
    _rejects(lambda: sc.jvp(lambda b: b * 2, (i,), (i,)), lambda: jax.jvp(lambda b: b * 2, (ji,), (ji,)),
             TypeError, "dtypes must be equal, or in case of int/bool primal dtype the tangent dtype must be float0")


# --- custom_jvp(symbolic_zeros=True) ---------------------------------------------------------------
def _sz_fun(ns, np_, seen):
    """a·b + b with a rule that records which tangents are SymbolicZero and weights them apart."""
    @ns.custom_jvp
    def f(a, b):
        return a * b + b

    def f_jvp(primals, tangents):
        (a, b), (ta, tb) = primals, tangents
        seen.append(tuple(isinstance(t, ns.custom_derivatives.SymbolicZero) for t in tangents))
        y = f(a, b)
        out = ns.custom_derivatives.SymbolicZero.from_primal_value(y)
        if not isinstance(ta, ns.custom_derivatives.SymbolicZero):
            out = ta * b * 2.0
        if not isinstance(tb, ns.custom_derivatives.SymbolicZero):
            out = tb * (a + 1.0) * 3.0 if isinstance(out, ns.custom_derivatives.SymbolicZero) else out + tb * a
        return y, out
    f.defjvp(f_jvp, symbolic_zeros=True)
    return f


_SZ_CASES = {
    "jvp_const_b": lambda ns, f, x, y: ns.jvp(lambda x: f(x, y), (x,), (x,)),
    "jvp_const_a": lambda ns, f, x, y: ns.jvp(lambda y: f(x, y), (y,), (y,)),
    "jvp_both": lambda ns, f, x, y: ns.jvp(f, (x, y), (x, y)),
    "grad_a": lambda ns, f, x, y: ns.grad(lambda x: f(x, y).sum())(x),
    "grad_b": lambda ns, f, x, y: ns.grad(lambda y: f(x, y).sum())(y),
    "jit_grad_both": lambda ns, f, x, y: ns.jit(ns.grad(lambda x, y: f(x, y).sum(), argnums=(0, 1)))(x, y),
    "grad_same_arg": lambda ns, f, x, y: ns.grad(lambda x: f(x, x).sum())(x),
    "jit_jvp_const_b": lambda ns, f, x, y: ns.jit(lambda x, y: ns.jvp(lambda x: f(x, y), (x,), (x,)))(x, y),
    "grad_output_zero": lambda ns, f, x, y: ns.grad(lambda x: f(x, ns.lax.stop_gradient(y)).sum())(x),
}
_SZ_SHARD_MAP = {
    "shard_map_jvp": lambda ns, f, x, y, s: ns.jvp(
        lambda x: ns.shard_map(f, in_specs=(s, s), out_specs=s)(x, y), (x,), (x,)),
    "shard_map_grad": lambda ns, f, x, y, s: ns.jit(ns.grad(
        lambda y: ns.shard_map(f, in_specs=(s, s), out_specs=s)(x, y).sum()))(y),
    "shard_map_psum_grad": lambda ns, f, x, y, s: ns.grad(
        lambda x: ns.shard_map(lambda a, b: ns.lax.psum(f(a, b).sum(), tuple(s[0]) if len(s) == 1 else tuple(s)), in_specs=(s, s), out_specs=ns.P())(
            x, y))(x),
}


@pytest.mark.parametrize("case,spec", [(c, P("X") if k % 3 else P()) for k, c in enumerate(_SZ_CASES)] + [
    (c, s) for c in _SZ_SHARD_MAP for s in (P("X"), P("X", "Y"))])
def test_custom_jvp_symbolic_zeros(meshes, case, spec):
    """The rule sees JAX's SymbolicZero pattern (constants, the undifferentiated argument) and
    the results agree in value and type, under jit and shard_map (varying values)."""
    x, jx = placed_pair(meshes, np.linspace(0, 1, 32, dtype=np.float32).reshape(8, 4), spec)
    y, jy = placed_pair(meshes, np.linspace(1, 2, 32, dtype=np.float32).reshape(8, 4), spec)
    res, kinds = [], []
    for ns, np_, a, b in ((sc, sc, x, y), (jax, jnp, jx, jy)):
        seen = []
        f = _sz_fun(ns, np_, seen)
        sm = _SZ_SHARD_MAP.get(case)
        res.append(sm(ns, f, a, b, ns.P(*spec)) if sm else _SZ_CASES[case](ns, f, a, b))
        kinds.append(seen[-1])
    assert kinds[0] == kinds[1], kinds
    _same(*res)


def test_custom_jvp_symbolic_zeros_integer_argument(meshes):
    """An integer argument's tangent is a SymbolicZero for the rule (float0 outside)."""
    x, jx = placed_pair(meshes, np.linspace(0, 1, 8, dtype=np.float32), P("X"))
    res, kinds = [], []
    for ns, a in ((sc, x), (jax, jx)):
        seen = []

        @ns.custom_jvp
        def f(a, n):
            return a * n

        def f_jvp(primals, tangents):
            seen.append(tuple(isinstance(t, ns.custom_derivatives.SymbolicZero) for t in tangents))
            return f(*primals), tangents[0] * 5.0
        f.defjvp(f_jvp, symbolic_zeros=True)
        res.append((ns.grad(lambda a: f(a, 3).sum())(a), ns.jvp(lambda a: f(a, 2), (a,), (a,))))
        kinds.append(seen)
    assert kinds[0] == kinds[1], kinds
    _same(*res)


def test_custom_vmap_jvp_under_vmap_not_built(mesh24):
    """JAX batches the JVP of an unbatched custom_vmap call with the JVP of its rule (vmap of
    jvp, jacfwd); shardc has not built that and says so (jvp of vmap works: cv-jvp-of-vmap)."""
    def cv(ns, np_):
        f = ns.custom_batching.custom_vmap(lambda a, b: np_.sin(a) * b)
        f.def_vmap(lambda n, bat, a, b: (np_.cos(a) * b, bat[0] or bat[1]))
        return f
    x = sc.device_put(np.ones((2, 4), np.float32), sc.NamedSharding(mesh24, P("X")))
    jx = jnp.ones((2, 4))
    jax.vmap(lambda a: jax.jvp(cv(jax, jnp), (a, a), (a, a)))(jx)
    jax.jacfwd(lambda a: cv(jax, jnp)(a, a).sum())(jx)
    with pytest.raises(NotImplementedError, match="JVP of a custom_vmap rule is not built"):
        sc.vmap(lambda a: sc.jvp(cv(sc, sc.numpy), (a, a), (a, a)))(x)
    with pytest.raises(NotImplementedError, match="JVP of a custom_vmap rule is not built"):
        sc.jacfwd(lambda a: cv(sc, sc.numpy)(a, a).sum())(x)


def test_eager_closure_convert_of_one_function_is_one_function_as_jax():
    """JAX caches closure_convert's result: the same function and argument types give equal
    converted functions, so a jit taking one as a static argument (odeint's) traces once. Found by
    the jax.experimental.ode port: shardc made a new closure per call and odeint retraced and
    recompiled on every call."""
    x = np.ones(3, np.float32)
    for top in (jax, sc):
        f = lambda a: a * 2  # noqa: E731
        c1, c2, c3 = (top.closure_convert(g, x)[0] for g in (f, f, lambda a: a))
        assert c1 == c2 and hash(c1) == hash(c2) and c1 != c3, top
    traces = []

    def fun(a):
        traces.append(1)
        return a + 1.0
    run = sc.jit(lambda conv, a: conv(a), static_argnums=0)
    for _ in range(3):
        conv, consts = sc.closure_convert(fun, x)
        assert consts == []
        np.testing.assert_array_equal(np.asarray(run(conv, sc.numpy.asarray(x))), x + 1)
    assert len(traces) == 1
