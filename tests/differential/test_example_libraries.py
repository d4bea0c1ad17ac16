"""Differential: `shardc.example_libraries` (`optimizers`, `stax`) against JAX 0.10.2's
`jax.example_libraries`.

* every optimizer (and each schedule) run a few steps on a small quadratic over a pytree of
  parameters, eagerly and with a jitted update: parameters and the whole optimizer state, leaf by
  leaf (structure, shape, dtype, weak type, values to rounding);
* an MLP built with `stax.serial` (init with the same PRNG key: shardc's `random` gives JAX's bits),
  its outputs, gradients and adam steps;
* each stax layer's init shapes, parameters and outputs: Dense, Conv / GeneralConv, ConvTranspose /
  Conv1DTranspose, BatchNorm, Dropout (train and test modes), Max/Sum/AvgPool, Flatten, FanOut /
  FanInSum / FanInConcat / parallel, Identity, the elementwise layers, shape_dependent;
* `clip_grads`, `l2_norm`, `pack_optimizer_state` / `unpack_optimizer_state`, and JAX's errors.
"""
from __future__ import annotations

from typing import Any, Callable

import jax
import jax.example_libraries.optimizers as JOPT
import jax.example_libraries.stax as JS
import numpy as np
import pytest

import shardc as sc
import shardc.example_libraries.optimizers as SOPT
import shardc.example_libraries.stax as SS
from shardc.example_libraries import optimizers, stax

_rng = np.random.default_rng(0)
W = _rng.standard_normal((3, 2)).astype(np.float32)
B = _rng.standard_normal(2).astype(np.float32)
X = _rng.standard_normal((4, 5)).astype(np.float32)
IMG = _rng.standard_normal((2, 6, 6, 3)).astype(np.float32)   # NHWC
SEQ = _rng.standard_normal((2, 7, 3)).astype(np.float32)      # NWC
PARAMS = {"w": W, "b": (B, np.float32(0.5))}


def _sides():
    """(top, optimizers, stax) of JAX, then of shardc."""
    return ((jax, JOPT, JS), (sc, SOPT, SS))


def _leaf_info(x) -> tuple:
    if isinstance(x, (jax.Array, sc.Array)):
        t = jax.typeof(x) if isinstance(x, jax.Array) else sc.typeof(x)
        return np.asarray(x).shape, np.asarray(x).dtype, bool(getattr(t, "weak_type", False))
    return np.shape(x), np.asarray(x).dtype, None   # host values (NumPy, Python scalars)


def _same(j, s, *, rtol: float = 1e-5, weak: bool = True) -> None:
    jl, jt = jax.tree.flatten(j)
    sl, st = jax.tree.flatten(s)
    assert str(jt).replace("jax.example_libraries", "") == str(st).replace("shardc.example_libraries", ""), (jt, st)
    assert len(jl) == len(sl)
    for x, y in zip(jl, sl):
        ji, si = _leaf_info(x), _leaf_info(y)
        assert ji[:2] == si[:2] and (not weak or ji == si), (ji, si)
        np.testing.assert_allclose(np.asarray(y), np.asarray(x), rtol=rtol, atol=rtol)


# --- optimizers ------------------------------------------------------------------------------------------------------
#: name -> fn(O) giving (init_fun, update_fun, get_params)
OPTIMIZERS: dict[str, Callable[[Any], Any]] = {
    "sgd": lambda O: O.sgd(0.1),
    "momentum": lambda O: O.momentum(0.1, 0.9),
    "nesterov": lambda O: O.nesterov(0.1, 0.9),
    "adagrad": lambda O: O.adagrad(0.1),
    "adagrad_momentum": lambda O: O.adagrad(0.1, momentum=0.5),
    "rmsprop": lambda O: O.rmsprop(0.01),
    "rmsprop_momentum": lambda O: O.rmsprop_momentum(0.01),
    "adam": lambda O: O.adam(0.01),
    "adam_betas": lambda O: O.adam(0.05, b1=0.5, b2=0.9, eps=1e-4),
    "adamax": lambda O: O.adamax(0.01),
    "sm3": lambda O: O.sm3(0.1),
    "sm3_momentum": lambda O: O.sm3(0.1, momentum=0.5),
    "sgd_constant": lambda O: O.sgd(O.constant(0.05)),
    "sgd_exponential_decay": lambda O: O.sgd(O.exponential_decay(0.1, 2, 0.5)),
    "momentum_inverse_time_decay": lambda O: O.momentum(O.inverse_time_decay(0.1, 1, 0.5), 0.9),
    "adam_inverse_time_staircase": lambda O: O.adam(O.inverse_time_decay(0.1, 2, 0.5, staircase=True)),
    "adam_polynomial_decay": lambda O: O.adam(O.polynomial_decay(0.1, 3, 0.01, power=2.0)),
    "rmsprop_piecewise_constant": lambda O: O.rmsprop(O.piecewise_constant([1, 2], [0.1, 0.05, 0.01])),
    "sgd_custom_schedule": lambda O: O.sgd(lambda i: 0.1 / (i + 1)),
}


def _quadratic(N):
    return lambda p: N.sum((p["w"] - 1.0) ** 2) + N.sum(p["b"][0] ** 2) + 3.0 * p["b"][1] ** 2


def _run(top, O, name: str, *, jit: bool, steps: int = 4):
    opt_init, opt_update, get_params = OPTIMIZERS[name](O)
    loss = _quadratic(top.numpy)
    update = top.jit(opt_update) if jit else opt_update
    state = opt_init(PARAMS)
    for i in range(steps):
        state = update(i, top.grad(loss)(get_params(state)), state)
    return get_params(state), state


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_optimizer_steps_match_jax(name: str, jit: bool) -> None:
    (jp, js), (sp, ss) = [_run(top, O, name, jit=jit) for top, O, _ in _sides()]
    _same(jp, sp)
    _same(js.packed_state, ss.packed_state)
    assert js.tree_def == ss.tree_def and js.subtree_defs == ss.subtree_defs


@pytest.mark.parametrize("name", ["constant", "exponential_decay", "inverse_time_decay", "polynomial_decay",
                                  "piecewise_constant"])
def test_schedules_match_jax(name: str) -> None:
    args = {"constant": (0.1,), "exponential_decay": (0.1, 3, 0.5), "inverse_time_decay": (0.1, 2, 0.5, True),
            "polynomial_decay": (0.1, 4, 0.001, 0.5), "piecewise_constant": ([2, 5], [0.1, 0.05, 0.01])}[name]
    got = []
    for top, O, _ in _sides():
        sched = getattr(O, name)(*args)
        got.append([sched(i) for i in range(7)] + [top.jit(sched)(3)])
    _same(*got)


def test_clip_grads_and_l2_norm_match_jax() -> None:
    tree = {"a": W * 10, "b": [B]}
    got = [(O.l2_norm(tree), O.clip_grads(tree, 1.0), O.clip_grads(tree, 1e3), top.jit(O.l2_norm)(tree))
           for top, O, _ in _sides()]
    _same(*got)


def test_pack_and_unpack_optimizer_state_match_jax() -> None:
    got = []
    for top, O, _ in _sides():
        init, update, get_params = O.momentum(0.1, 0.9)
        state = update(0, top.grad(_quadratic(top.numpy))(PARAMS), init(PARAMS))
        marked = O.unpack_optimizer_state(state)
        back = O.pack_optimizer_state(marked)
        assert back.tree_def == state.tree_def and back.subtree_defs == state.subtree_defs
        joins = top.tree.leaves(marked)   # one JoinPoint per parameter, holding its (x, velocity) state
        assert len(joins) == len(top.tree.leaves(PARAMS)) and all(isinstance(j, O.JoinPoint) for j in joins)
        got.append(([j.subtree for j in joins], back.packed_state, get_params(back)))
    _same(*got)


def test_optimizer_state_is_a_pytree_as_jax() -> None:
    for top, O, _ in _sides():
        state = O.adam(0.1)[0](PARAMS)
        leaves, treedef = jax.tree.flatten(state)
        assert len(leaves) == 3 * len(jax.tree.leaves(PARAMS))
        again = jax.tree.unflatten(treedef, leaves)
        assert isinstance(again, O.OptimizerState) and again.tree_def == state.tree_def


# --- stax ------------------------------------------------------------------------------------------------------------
#: name -> (fn(S) giving (init_fun, apply_fun), input shape, input value); Dropout/BatchNorm get their own tests
LAYERS: dict[str, tuple[Callable[[Any], Any], tuple, Any]] = {
    "dense": (lambda S: S.Dense(6), (-1, 5), X),
    "dense_inits": (lambda S: S.Dense(3, W_init=S.zeros, b_init=S.ones), (-1, 5), X),
    "conv_valid": (lambda S: S.Conv(4, (3, 3)), (-1, 6, 6, 3), IMG),
    "conv_same_strided": (lambda S: S.Conv(4, (3, 3), strides=(2, 2), padding="SAME"), (-1, 6, 6, 3), IMG),
    "conv_nchw": (lambda S: S.GeneralConv(("NCHW", "OIHW", "NCHW"), 2, (2, 2)), (2, 3, 6, 6),
                  IMG.transpose(0, 3, 1, 2)),
    "conv1d": (lambda S: S.GeneralConv(("NWC", "WIO", "NWC"), 4, (3,), padding="SAME"), (-1, 7, 3), SEQ),
    "conv_transpose": (lambda S: S.ConvTranspose(2, (3, 3), strides=(2, 2)), (-1, 6, 6, 3), IMG),
    "conv_transpose_same": (lambda S: S.ConvTranspose(2, (2, 2), padding="SAME"), (-1, 6, 6, 3), IMG),
    "conv1d_transpose": (lambda S: S.Conv1DTranspose(5, (3,), strides=(2,)), (-1, 7, 3), SEQ),
    "general_conv_transpose": (lambda S: S.GeneralConvTranspose(("NHWC", "HWIO", "NHWC"), 3, (2, 2)),
                               (-1, 6, 6, 3), IMG),
    "max_pool": (lambda S: S.MaxPool((2, 2)), (-1, 6, 6, 3), IMG),
    "max_pool_strided_same": (lambda S: S.MaxPool((3, 3), strides=(2, 2), padding="SAME"), (-1, 6, 6, 3), IMG),
    "sum_pool": (lambda S: S.SumPool((2, 2), strides=(2, 2)), (-1, 6, 6, 3), IMG),
    "avg_pool": (lambda S: S.AvgPool((2, 2)), (-1, 6, 6, 3), IMG),
    "avg_pool_same": (lambda S: S.AvgPool((3, 3), padding="SAME"), (-1, 6, 6, 3), IMG),
    "avg_pool_nchw": (lambda S: S.AvgPool((2, 2), spec="NCHW"), (2, 3, 6, 6), IMG.transpose(0, 3, 1, 2)),
    "flatten": (lambda S: S.Flatten, (-1, 6, 6, 3), IMG),
    "identity": (lambda S: S.Identity, (-1, 5), X),
    **{f"elementwise_{n}": (lambda S, n=n: getattr(S, n), (-1, 5), X)
       for n in ("Tanh", "Relu", "Exp", "LogSoftmax", "Softmax", "Softplus", "Sigmoid", "Elu", "LeakyRelu",
                 "Selu", "Gelu")},
    "elementwise_custom": (lambda S: S.elementwise(S.leaky_relu, negative_slope=0.3), (-1, 5), X),
    "serial_mlp": (lambda S: S.serial(S.Dense(8), S.Relu, S.Dense(4), S.LogSoftmax), (-1, 5), X),
    "serial_cnn": (lambda S: S.serial(S.Conv(4, (3, 3), padding="SAME"), S.Relu, S.MaxPool((2, 2)), S.Flatten,
                                      S.Dense(3)), (-1, 6, 6, 3), IMG),
    "residual": (lambda S: S.serial(S.FanOut(2), S.parallel(S.Dense(5), S.Identity), S.FanInSum), (-1, 5), X),
    "concat": (lambda S: S.serial(S.FanOut(3), S.parallel(S.Dense(2), S.Tanh, S.Identity), S.FanInConcat()),
               (-1, 5), X),
    "concat_axis0": (lambda S: S.serial(S.FanOut(2), S.FanInConcat(axis=0)), (-1, 5), X),
    "shape_dependent": (lambda S: S.shape_dependent(lambda shape: S.Dense(shape[-1] * 2)), (-1, 5), X),
}


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_layer_init_and_apply_match_jax(name: str) -> None:
    make, shape, x = LAYERS[name]
    got = []
    for top, _, S in _sides():
        init_fun, apply_fun = make(S)
        out_shape, params = init_fun(top.random.PRNGKey(0), shape)
        xs = top.numpy.asarray(x)   # (JAX's jnp.reshape of a NumPy array is a NumPy array: Flatten; docs/api.md)
        got.append((out_shape, params, apply_fun(params, xs), top.jit(apply_fun)(params, xs)))
    assert got[0][0] == got[1][0], (got[0][0], got[1][0])
    _same(got[0][1:], got[1][1:], rtol=2e-5)


@pytest.mark.parametrize("kwargs", [{}, {"axis": (0,)}, {"center": False, "scale": False},
                                    {"axis": (0, 1, 2), "beta_init": lambda k, s: np.full(s, 0.5, np.float32)}])
def test_batchnorm_matches_jax(kwargs) -> None:
    got = []
    for top, _, S in _sides():
        init_fun, apply_fun = S.BatchNorm(**kwargs)
        shape = (-1, 6, 6, 3) if kwargs.get("axis") != (0,) else (-1, 5)
        x = IMG if shape[1] == 6 else X
        out_shape, params = init_fun(top.random.PRNGKey(1), shape)
        got.append((out_shape, params, apply_fun(params, x)))
    _same(got[0], got[1], rtol=1e-4)


@pytest.mark.parametrize("mode", ["train", "test"])
def test_dropout_matches_jax(mode: str) -> None:
    got = []
    for top, _, S in _sides():
        init_fun, apply_fun = S.Dropout(0.7, mode=mode)
        out_shape, params = init_fun(top.random.PRNGKey(0), (-1, 5))
        got.append((out_shape, params, apply_fun(params, X, rng=top.random.PRNGKey(3)),
                    top.jit(apply_fun)(params, X, rng=top.random.PRNGKey(3))))
    _same(*got)


def test_mlp_training_matches_jax() -> None:
    """A classifier made with stax, trained three adam steps with a jitted step."""
    labels = np.eye(4, dtype=np.float32)[[0, 1, 2, 3]]
    got = []
    for top, O, S in _sides():
        init_fun, apply_fun = S.serial(S.Dense(8), S.Relu, S.BatchNorm(axis=(0,)), S.Dense(4), S.LogSoftmax)
        _, params = init_fun(top.random.PRNGKey(42), (-1, 5))
        opt_init, opt_update, get_params = O.adam(1e-2)

        def loss(p, x, y):
            return -top.numpy.mean(top.numpy.sum(apply_fun(p, x) * y, axis=1))

        @top.jit
        def step(i, state, x, y):
            value, grads = top.value_and_grad(loss)(get_params(state), x, y)
            return value, opt_update(i, grads, state)

        state, values = opt_init(params), []
        for i in range(3):
            value, state = step(i, state, X, labels)
            values.append(value)
        got.append((values, get_params(state)))
    _same(*got, rtol=1e-4)


#: JAX's errors: name -> fn(top, O, S)
ERRORS = {
    "dropout_without_rng": lambda top, O, S: S.Dropout(0.5)[1]((), X),
    "make_schedule_vector": lambda top, O, S: O.make_schedule(np.ones(2, np.float32)),
    "piecewise_constant_lengths": lambda top, O, S: O.piecewise_constant([1, 2], [0.1, 0.2]),
    "fan_in_concat_mismatch": lambda top, O, S: S.FanInConcat()[1]((), (X, IMG)),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_jax(name: str) -> None:
    errs = []
    for top, O, S in _sides():
        with pytest.raises(Exception) as e:
            ERRORS[name](top, O, S)
        errs.append(e.value)
    je, se = errs
    assert isinstance(se, type(je)) or type(je).__name__ in {c.__name__ for c in type(se).__mro__}, (je, se)
    assert str(je)[:30] in str(se), (str(je), str(se))


def test_every_jax_name_is_built() -> None:
    assert optimizers is SOPT and stax is SS
    for J, S in ((JOPT, SOPT), (JS, SS)):
        public = {n for n in dir(J) if not n.startswith("_")}
        assert {n for n in public if not hasattr(S, n)} <= {"jax"}   # JAX's module binds the jax package
        assert set(S.__all__) <= public and all(hasattr(S, n) for n in S.__all__)
    layers = {n for n in SS.__all__ if n[0].isupper()} - {"BatchNorm", "Dropout"}   # (their own tests)
    mentioned = " ".join([*LAYERS, *(str(v[0].__code__.co_names) for v in LAYERS.values())])
    assert {n for n in layers if n not in mentioned} == set()
