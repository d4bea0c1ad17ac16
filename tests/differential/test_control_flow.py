"""sc.cond / sc.fori_loop / sc.scan compared with jax.lax through the oracle
(tests/oracle) on a 2×4 Explicit mesh (JAX rules §2.16): types, values and
collectives of the compiled programs, and the carry type errors."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from oracle import WHOLE_MESSAGE, Case, Placed, check

import shardc as sc

A = np.arange(32, dtype=np.float32).reshape(8, 4)


def _sc(a, *spec):
    return sc.reshard(sc.asarray(a), sc.P(*spec))


@pytest.mark.parametrize("pred", [True, False])
def test_cond_types_and_values(pred):
    def prog(ns, p, x, y):
        return ns.cond(p, lambda a, b: (a * 2, b.sum(0)), lambda a, b: (a + b, b.max(0)), x, y)
    check(Case(f"cond-{pred}", "2d", prog, (Placed(value=np.array(pred)), "f32[8@X,4@Y]", "f32[8@X,4@Y]"),
               mode="jit", expect="accept"))


def test_cond_int_pred():
    check(Case("cond-int-pred", "2d", lambda ns, i, x: ns.cond(i, lambda v: v - 1, lambda v: v * 3, x),
               (Placed(value=np.int32(0)), "f32[8@X,4]"), mode="jit", expect="accept"))


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
def test_fori_loop(static):
    def prog(ns, hi, x):
        return ns.fori_loop(0, 3 if static else hi, lambda i, c: (c[0] * 2 + i, c[1] + 1.0), (x, x.sum(1)))
    check(Case(f"fori-{static}", "2d", prog, (Placed(value=np.int32(3)), "f32[8@X,4@Y]"), mode="jit",
               expect="accept"))


@pytest.mark.parametrize("static", [True, False])
def test_fori_loop_carry_type_error(static):
    """JAX's whole message is in shardc's."""
    def prog(ns, c, hi):
        return ns.fori_loop(0, 3 if static else hi, lambda i, v: ns.reshard(v, ns.P("X")), c)
    check(Case(f"fori-carry-{static}", "2d", prog, ("f32[8@Y]", "i32[]"), expect="reject", kind=TypeError,
               phrase=WHOLE_MESSAGE))


@pytest.mark.parametrize("reverse", [False, True])
def test_scan_types_and_values(reverse):
    def prog(ns, c, xs):
        def f(carry, x):
            a, b = carry
            return (a + x, b * 2), {"y": a * x, "s": x.sum()}
        return ns.scan(f, (c, c.sum()), xs, reverse=reverse)
    check(Case(f"scan-{reverse}", "2d", prog, ("f32[4@Y]", "f32[8,4@Y]"), mode="jit", expect="accept"))


def test_scan_no_xs():
    check(Case("scan-no-xs", "2d", lambda ns, c: ns.scan(lambda c, _: (c * 2, c.sum(0)), c, None, length=3),
               ("f32[8@X,4@Y]",), mode="jit", expect="accept"))


@pytest.mark.parametrize("nest", [False, True])
def test_scan_carry_type_error(nest):
    """JAX's whole message is in shardc's."""
    def prog(ns, c):
        body = (lambda cc, x: ((ns.reshard(cc[0], ns.P("X")), cc[1]), x)) if nest else \
            (lambda cc, x: (ns.reshard(cc, ns.P("X")), x))
        return ns.scan(body, (c, c) if nest else c, None, length=3)
    check(Case(f"scan-carry-{nest}", "2d", prog, ("f32[8@Y]",), expect="reject", kind=TypeError,
               phrase=WHOLE_MESSAGE))


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


def _fori(ns, lo, hi, body, init):
    return (ns.lax.fori_loop if ns.name == "jax" else ns.fori_loop)(lo, hi, body, init)


def _scan(ns, f, init, xs):
    return (ns.lax.scan if ns.name == "jax" else ns.scan)(f, init, xs)


def _cond(ns, p, t, f, *ops):
    return (ns.lax.cond if ns.name == "jax" else ns.cond)(p, t, f, *ops)


def _layer(ns, x, w1, w2):
    """A Megatron MLP layer: column-parallel w1, row-parallel w2 (one all-reduce)."""
    return ns.matmul(ns.tanh(x @ w1), w2, out_sharding=ns.P("X", None))


# Bodies closing over values of the enclosing program (closure conversion, as JAX):
# weights of a layer loop, a branch using a value its operands do not carry, a body
# returning an outer value as is, a cond inside a scan body closing over both levels.
CLOSURES = {
    "fori-weights": (("f32[8@X,16]", "f32[16,32@Y]", "f32[32@Y,16]"),
                     lambda ns, x, w1, w2: _fori(ns, 0, 3, lambda i, c: _layer(ns, c, w1, w2), x)),
    "fori-dynamic-bounds": (("f32[8@X,4]", "f32[8@X,4]"),
                            lambda ns, x, b: _fori(ns, 0, ns.asarray(2), lambda i, c: c + b, x)),
    "cond-closure": (("f32[8@X,4@Y]", "f32[8@X,4@Y]"),
                     lambda ns, x, y: _cond(ns, ns.sum(x) > 0, lambda a: a * y, lambda a: a - 1.0, x)),
    "cond-returns-outer": (("f32[8@X,4]", "f32[8@X,4]"),
                           lambda ns, x, y: _cond(ns, ns.sum(x) > 0, lambda a: y, lambda a: a, x)),
    "scan-weights": (("f32[8@X,16]", "f32[3,16,32@Y]", "f32[32@Y,16]"),
                     lambda ns, x, ws, w2: _scan(ns, lambda c, w: (_layer(ns, c, w, w2), ns.sum(c)), x, ws)),
    "scan-nested-cond": (("f32[8@X,4]", "f32[5,4]", "f32[8@X,4]"),
                         lambda ns, c0, xs, z: _scan(ns, lambda c, x: (_cond(ns, ns.sum(x) > 0, lambda a: a + z,
                                                                            lambda a: a * x, c), x.sum()),
                                                     c0, xs)),
}




def _while(ns, cond_fun, body_fun, init):
    return (ns.lax.while_loop if ns.name == "jax" else ns.while_loop)(cond_fun, body_fun, init)


def _switch(ns, i, branches, *ops):
    return (ns.lax.switch if ns.name == "jax" else ns.switch)(i, branches, *ops)


_BRANCHES = (lambda ns: [lambda a, b: a + b, lambda a, b: a * b, lambda a, b: a - 2.0 * b])

WHILE_SWITCH = {
    # a counter and a sharded value; the condition reads the carry
    "while-count": (("f32[8@X,4@Y]",),
                    lambda ns, x: _while(ns, lambda c: c[0] < 5, lambda c: (c[0] + 1, c[1] * 1.5), (0, x))),
    # closes over a weight and a threshold of the program
    "while-closure": (("f32[8@X,16]", "f32[16,32@Y]", "f32[32@Y,16]", "f32[]"),
                      lambda ns, x, w1, w2, t: _while(ns, lambda c: ns.sum(c[1]) < t,
                                                      lambda c: (c[0] + 1, _layer(ns, c[1], w1, w2) + 1.0),
                                                      (0, x))[0]),
    **{f"switch-{i}": (("i32[]", "f32[8@X,4@Y]", "f32[8@X,4@Y]"),
                       (lambda k: lambda ns, i, x, y: _switch(ns, i + k, _BRANCHES(ns), x, y))(k))
       for k, i in ((0, "0"), (1, "1"), (2, "2"), (-5, "neg"), (7, "big"))},
    "switch-closure": (("i32[]", "f32[8@X,4]", "f32[8@X,4]"),
                       lambda ns, i, x, y: _switch(ns, i, [lambda a: a * y, lambda a: a + y], x)),
}




def test_while_loop_errors():
    # the carry changes sharding / the condition is not a boolean scalar: rejected as JAX does
    check(Case("while-carry-type", "2d",
               lambda ns, x: _while(ns, lambda c: ns.sum(c) > 0, lambda c: ns.reshard(c, ns.P("Y", None)), x),
               ("f32[8@X,4]",), expect="reject", kind=TypeError))
    check(Case("while-cond-not-bool", "2d",
               lambda ns, x: _while(ns, lambda c: ns.sum(c), lambda c: c * 2.0, x),
               ("f32[8@X,4]",), expect="reject", kind=TypeError))


# --- reverse mode through control flow (scan, static fori_loop, cond, switch), against jax.grad ----------
def _grad_scan_layers(ns, x, ws, w2):
    def loss(ws, w2):
        c, ys = _scan(ns, lambda c, w: (_layer(ns, c, w, w2), ns.sum(c * c)), x, ws)
        return ns.sum(c) + ns.sum(ys)
    return ns.grad(loss, argnums=(0, 1))(ws, w2)


def _grad_fori(ns, x, w1, w2):
    return ns.grad(lambda w1: ns.sum(_fori(ns, 0, 3, lambda i, c: _layer(ns, c, w1, w2) * 0.5, x)))(w1)


def _grad_fori_carry(ns, x, w1, w2):
    return ns.grad(lambda x: ns.sum(_fori(ns, 1, 4, lambda i, c: ns.sin(c) * i, x)))(x)


def _grad_cond(ns, x, w1, w2):
    def loss(x, w1):
        return ns.sum(_cond(ns, ns.sum(x) > 0, lambda a: ns.tanh(a @ w1), lambda a: a @ w1 * 2.0, x))
    return ns.grad(loss, argnums=(0, 1))(x, w1)


def _grad_switch(ns, x, w1, w2):
    def loss(x):
        return ns.sum(_switch(ns, 1, [lambda a: a * 2.0, lambda a: ns.sin(a), lambda a: a * a], x))
    return ns.grad(loss)(x)


GRADS = {"scan-layers": (("f32[8@X,16]", "f32[3,16,32@Y]", "f32[32@Y,16]"), _grad_scan_layers),
         "fori-closure": (("f32[8@X,16]", "f32[16,32@Y]", "f32[32@Y,16]"), _grad_fori),
         "fori-carry": (("f32[8@X,16]", "f32[16,32@Y]", "f32[32@Y,16]"), _grad_fori_carry),
         "cond": (("f32[8@X,16]", "f32[16,32@Y]", "f32[32@Y,16]"), _grad_cond),
         "switch": (("f32[8@X,16]", "f32[16,32@Y]", "f32[32@Y,16]"), _grad_switch)}




def test_grad_of_while_loop_is_an_error():
    check(Case("grad-while", "2d",
               lambda ns, x: ns.grad(lambda v: ns.sum(_while(ns, lambda c: c[0] < 3,
                                                            lambda c: (c[0] + 1, c[1] * 2.0), (0, v))[1]))(x),
               ("f32[8@X,4]",), expect="reject", kind=ValueError,
               phrase="Reverse-mode differentiation does not work for lax.while_loop"))


# One table for the accepted programs above: closures, while_loop / switch, gradients.
ACCEPTED = {**CLOSURES, **WHILE_SWITCH, **{f"grad-{k}": v for k, v in GRADS.items()}}


@pytest.mark.parametrize("name", sorted(ACCEPTED))
@pytest.mark.parametrize("mode", ["trace", "jit"])
def test_control_flow_programs(name, mode):
    """Types inside and out, values and collectives (≤ JAX) agree with jax.lax."""
    args, fn = ACCEPTED[name]
    check(Case(f"{name}-{mode}", "2d", fn, args, mode=mode, expect="accept", collectives="at_most"))


#: loops whose initial carry is weakly typed (a Python float traced by jit) and whose body returns it strongly
#: typed (or the reverse): JAX types the final carry by the body's output (found by the jax.experimental.ode port,
#: whose adjoint's scan carries `zeros_like(args)` and returns odeint's strong values)
WEAK_CARRIES = {
    "scan": lambda L, N, a: L.scan(lambda c, x: (c + N.ones((), N.float32), x), N.zeros_like(a), N.arange(3.0))[0],
    "scan_to_weak": lambda L, N, a: L.scan(lambda c, x: (2.0, x), N.ones((), N.float32), N.arange(3.0))[0],
    "scan_tuple": lambda L, N, a: L.scan(lambda c, x: ((c[0] * N.float32(2), c[1] + x), None), (a, a),
                                         N.arange(3.0))[0],
    "while": lambda L, N, a: L.while_loop(lambda c: c < 3, lambda c: c + N.ones((), N.float32), a),
    "fori_static": lambda L, N, a: L.fori_loop(0, 3, lambda i, c: c + N.ones((), N.float32), a),
    "fori_dynamic": lambda L, N, a: L.fori_loop(0, N.int32(3), lambda i, c: c + N.ones((), N.float32), a),
    "scan_times_carry": lambda L, N, a: L.scan(lambda c, x: (c * N.ones((), N.float32), x), a, N.arange(3.0))[0] * a,
}


@pytest.mark.parametrize("name", sorted(WEAK_CARRIES))
def test_weak_initial_carry_takes_the_bodys_weak_type_as_jax(name):
    fn = WEAK_CARRIES[name]
    outs = [top.jit(lambda a: fn(L, N, a))(0.5) for top, L, N in ((jax, jax.lax, jnp), (sc, sc.lax, sc.numpy))]
    leaves = [jax.tree.leaves(o) for o in outs]
    for j, s in zip(*leaves):
        assert sc.typeof(s).weak_type == jax.typeof(j).weak_type, (name, sc.typeof(s), jax.typeof(j))
        np.testing.assert_allclose(np.asarray(s), np.asarray(j), rtol=1e-6)


#: branches whose results differ only in weak type: JAX's `cond_p` types its results as its first
#: branch, `false_fun` for `cond` and `branches[0]` for `switch`
WEAK_BRANCHES = {
    "cond-true-strong": lambda L, N, p, x: L.cond(p, lambda: x * 2, lambda: 1.0),
    "cond-false-strong": lambda L, N, p, x: L.cond(p, lambda: 1.0, lambda: x * 2),
    "cond-both-weak": lambda L, N, p, x: L.cond(p, lambda: 1.0, lambda: 2.0),
    "cond-tuple": lambda L, N, p, x: L.cond(p, lambda: (x, 2.0), lambda: (3.0, x)),
    "switch-first-strong": lambda L, N, p, x: L.switch(p.astype(N.int32), [lambda: x, lambda: 2.0, lambda: 3.0]),
    "switch-first-weak": lambda L, N, p, x: L.switch(p.astype(N.int32) + 1, [lambda: 2.0, lambda: x, lambda: x]),
    "switch-five": lambda L, N, p, x: L.switch(p.astype(N.int32) * 3, [lambda: 1.0] + [lambda: x] * 4),
}


@pytest.mark.parametrize("pred", [True, False])
@pytest.mark.parametrize("name", sorted(WEAK_BRANCHES))
def test_branch_results_are_typed_as_the_first_branch_as_jax(name, pred):
    fn = WEAK_BRANCHES[name]
    x = np.float32(1.5)
    outs = [top.jit(lambda p, a: fn(L, N, p, N.asarray(a)))(pred, x)
            for top, L, N in ((jax, jax.lax, jnp), (sc, sc.lax, sc.numpy))]
    for j, s in zip(*(jax.tree.leaves(o) for o in outs)):
        assert str(sc.typeof(s)) == str(jax.typeof(j)), name
        np.testing.assert_allclose(np.asarray(s), np.asarray(j))
