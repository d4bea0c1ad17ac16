"""Differential: `shardc.nn`'s functions against `jax.nn` 0.10.2 — every
activation over dtypes, ranks and shardings on 1-D and 2-D meshes (types,
accept/reject), values and collectives on a compiled sample, values at the
edges (-inf, large inputs, 0 and 6 for the custom JVPs), gradients, the
normalizing functions with `axis=`/`where=`/`b=`/`keepdims=`, and the
namespace itself (every `jax.nn` name is here or listed as left out)."""
from __future__ import annotations

import itertools

import jax
import numpy as np
import pytest
from oracle import BASIC_MESHES, Case, Placed, check, param, sample, specs_for, type_str

import shardc as sc

SHAPES = {0: (), 1: (16,), 2: (8, 16), 3: (2, 8, 16)}
MESHES = {k: BASIC_MESHES[k] for k in ("1d", "2d")}

#: (name, keyword arguments): every elementwise function of jax.nn, and its parameters
ELEMENTWISE = [
    ("celu", {}), ("celu", {"alpha": 0.5}), ("elu", {}), ("elu", {"alpha": 2.0}), ("gelu", {}),
    ("gelu", {"approximate": False}), ("hard_sigmoid", {}), ("hard_silu", {}), ("hard_swish", {}),
    ("hard_tanh", {}), ("identity", {}), ("leaky_relu", {}), ("leaky_relu", {"negative_slope": 0.2}),
    ("log1mexp", {}), ("log_sigmoid", {}), ("mish", {}), ("relu", {}), ("relu6", {}), ("selu", {}),
    ("sigmoid", {}), ("silu", {}), ("swish", {}), ("soft_sign", {}), ("softplus", {}),
    ("sparse_plus", {}), ("sparse_sigmoid", {}), ("squareplus", {}), ("squareplus", {"b": 1.0}),
    ("tanh", {}),
]
DTYPES = ["f32", "bf16", "i32"]


def _kw_id(kw: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in kw.items())


def _fn(name: str, kw: dict):
    return lambda ns, *xs: getattr(ns.nn, name)(*xs, **kw)


def _grad_fn(name: str, kw: dict):
    return lambda ns, x: ns.grad(lambda y: ns.sum(getattr(ns.nn, name)(y, **kw)))(x)


def _pool(dname: str, mesh: str) -> list[str]:
    return [type_str(dname, shape, spec) for shape in SHAPES.values() for spec in specs_for(shape, mesh)]


def elementwise_cases() -> list[Case]:
    cases = []
    for (name, kw), dname, mesh in itertools.product(ELEMENTWISE, DTYPES, BASIC_MESHES):
        pool = [Case(f"{name}({_kw_id(kw)})-{mesh}-{t}", mesh, _fn(name, kw), (t,)) for t in _pool(dname, mesh)]
        cases += sample(pool, 4, salt=name + _kw_id(kw) + dname)
    return cases


def weak_cases() -> list[Case]:
    """Python scalars and weakly typed arrays: the result's dtype and weak type are JAX's."""
    cases = []
    for name, kw in ELEMENTWISE:
        for v in (2.0, 2, -1.5):
            cases.append(Case(f"{name}({_kw_id(kw)})-scalar-{v!r}", "1d",
                              lambda ns, name=name, kw=kw, v=v: getattr(ns.nn, name)(v, **kw)))
        cases.append(Case(f"{name}({_kw_id(kw)})-weak-1d", "1d", _fn(name, kw), ("~f32[16@X]",)))
    return cases


ELEMENTWISE_CASES = elementwise_cases() + weak_cases()


@param(ELEMENTWISE_CASES)
def test_elementwise_types(case):
    check(case, "trace")


@param(sample(ELEMENTWISE_CASES, 40, salt="jit"))
def test_elementwise_values(case):
    check(case, "jit", collectives="at_most")


#: -inf, large inputs, the kinks (0, ±1, 3, 6) and +inf: where the formulas and custom JVPs differ
EDGE = np.array([-np.inf, -1e4, -100.0, -20.0, -6.0, -3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, 6.0, 20.0, 100.0,
                 np.inf], np.float32)


def _edge(dtype=np.float32, spec=("X",)) -> Placed:
    return Placed(spec=spec, value=EDGE.astype(dtype))


EDGE_CASES = [Case(f"{name}({_kw_id(kw)})-edge-{dn}", "1d", _fn(name, kw), (_edge(d),))
              for name, kw in ELEMENTWISE for dn, d in (("f32", np.float32), ("bf16", jax.numpy.bfloat16))]


#: the exact GELU's tail, where `erfc` is tiny and `1 - erf` would be 0: relative tolerance only
EDGE_CASES.append(Case("gelu(approximate=False)-tail", "1d", _fn("gelu", {"approximate": False}),
                       (Placed(spec=("X",), value=-np.linspace(5.0, 12.0, 16, dtype=np.float32)),), tol=(1e-5, 0)))


@param(EDGE_CASES)
def test_elementwise_edges(case):
    check(case, "jit", collectives="at_most")


GRAD_CASES = [Case(f"grad-{name}({_kw_id(kw)})-edge", "1d", _grad_fn(name, kw), (_edge(),))
              for name, kw in ELEMENTWISE]
GRAD_CASES += [Case(f"grad-{name}({_kw_id(kw)})-{mesh}-{t}", mesh, _grad_fn(name, kw), (t,))
               for name, kw in ELEMENTWISE for mesh, t in (("2d", "f32[8@X,16@Y]"), ("1d", "bf16[2,8@X,16]"))]


@param(GRAD_CASES)
def test_elementwise_grads(case):
    check(case, "jit", collectives="at_most")


# --- normalizing functions: axis, where, b, keepdims, return_sign ------------------------------------
def _norm_cases() -> list[Case]:
    cases = []
    xs = {"1d": ["f32[8@X,16]", "f32[8,16@X]", "bf16[2,8@X,16]"],
          "2d": ["f32[8@X,16@Y]", "f32[8@Y,16]", "f32[2@X,8,16@Y]", "i32[8@X,16@Y]"]}
    for mesh, ts in xs.items():
        for t in ts:
            nd = len(t.split(",")) if "[]" not in t else 0
            axes = [-1, 0, None, (0, 1)] + ([(1, 2)] if nd == 3 else [])
            for name in ("softmax", "log_softmax"):
                for ax in axes:
                    cases.append(Case(f"{name}-axis={ax}-{mesh}-{t}", mesh, _fn(name, {"axis": ax}), (t,)))
            for ax in axes:
                for kd in (False, True):
                    cases.append(Case(f"logsumexp-axis={ax}-keepdims={kd}-{mesh}-{t}", mesh,
                                      _fn("logsumexp", {"axis": ax, "keepdims": kd}), (t,)))
                    cases.append(Case(f"logmeanexp-axis={ax}-keepdims={kd}-{mesh}-{t}", mesh,
                                      _fn("logmeanexp", {"axis": ax, "keepdims": kd}), (t,)))
            for ax, alg in itertools.product((-1, 0, None), ("fast", "stable")):
                cases.append(Case(f"standardize-axis={ax}-{alg}-{mesh}-{t}", mesh,
                                  _fn("standardize", {"axis": ax, "algorithm": alg}), (t,)))
            for ax in (-1, 0):
                cases.append(Case(f"glu-axis={ax}-{mesh}-{t}", mesh, _fn("glu", {"axis": ax}), (t,)))
    # where= masks: same shape and broadcast
    for mesh, t, m in [("1d", "f32[8@X,16]", "bool[8@X,16]"), ("2d", "f32[8@X,16@Y]", "bool[8@X,16@Y]"),
                       ("2d", "f32[8@X,16@Y]", "bool[1,16]"), ("1d", "f32[8,16@X]", "bool[16]")]:
        for name in ("softmax", "log_softmax", "logsumexp", "logmeanexp", "standardize"):
            for ax in (-1, 0, None):
                cases.append(Case(f"{name}-where-axis={ax}-{mesh}-{t}-{m}", mesh,
                                  lambda ns, x, w, name=name, ax=ax: getattr(ns.nn, name)(x, axis=ax, where=w),
                                  (t, m)))
    # logsumexp's b= and return_sign=
    for mesh, t, b in [("1d", "f32[8@X,16]", "f32[8@X,16]"), ("2d", "f32[8@X,16@Y]", "f32[16@Y]"),
                       ("2d", "f32[8@X,16@Y]", "i32[8@X,16@Y]")]:
        for ax, rs in itertools.product((-1, None), (False, True)):
            cases.append(Case(f"logsumexp-b-axis={ax}-sign={rs}-{mesh}-{t}-{b}", mesh,
                              lambda ns, x, b, ax=ax, rs=rs: ns.nn.logsumexp(x, axis=ax, b=b, return_sign=rs),
                              (t, b)))
    # standardize with a given mean / variance
    cases.append(Case("standardize-mean-var-2d", "2d",
                      lambda ns, x, m, v: ns.nn.standardize(x, mean=m, variance=v),
                      ("f32[8@X,16@Y]", "f32[8@X,1]", "f32[8@X,1]")))
    # one_hot: dtypes and axes
    for mesh, t in [("1d", "i32[8@X]"), ("2d", "i32[8@X,4@Y]"), ("2d", "i32[]")]:
        for kw in ({}, {"axis": 0}, {"dtype": jax.numpy.bfloat16}, {"dtype": jax.numpy.int32, "axis": -2}):
            cases.append(Case(f"one_hot-{_kw_id(kw)}-{mesh}-{t}", mesh,
                              lambda ns, x, kw=kw: ns.nn.one_hot(x, 5, **kw), (t,)))
    # one_hot over a Manual axis inside shard_map: the class is the device's index along it
    for n in (8, 4):
        cases.append(Case(f"one_hot-axis-name-{n}", "1d_i", lambda ns, x, n=n: ns.shard_map(
            lambda b: ns.nn.one_hot(b, n, axis="i"), in_specs=ns.P("i"), out_specs=ns.P("i"))(x), ("i32[16@i]",)))
    return cases


NORM_CASES = _norm_cases()


@param(NORM_CASES)
def test_normalizing_types(case):
    check(case, "trace")


@param(sample(NORM_CASES, 30, salt="jit"))
def test_normalizing_values(case):
    check(case, "jit", collectives="at_most")


def _norm_grad(name, extra_names=(), **kw):
    def fn(ns, x, *extra):
        def loss(y):
            out = getattr(ns.nn, name)(y, **dict(zip(extra_names, extra)), **kw)
            out = out[0] if isinstance(out, tuple) else out
            return ns.sum(out * ns.arange(out.size, dtype=out.dtype).reshape(out.shape))
        return ns.grad(loss)(x)
    return fn


NORM_GRAD_CASES = [
    Case(f"grad-{name}-{_kw_id(kw)}-{mesh}-{'-'.join(ts)}", mesh, _norm_grad(name, ("b",)[:len(ts) - 1], **kw), ts,
         # glu's halves come from shardc's lax.split, static slices whose VJP pads and adds the two
         # cotangents: 10 collective-permutes where JAX's split transposes to one concatenate
         # (4 collective-permutes + 3 all-to-alls). Types and values are still compared.
         collectives=None if (name, kw, mesh) == ("glu", {"axis": -1}, "2d") else "at_most")
    for name, kw, mesh, ts in [
        ("softmax", {"axis": -1}, "2d", ("f32[8@X,16@Y]",)), ("softmax", {"axis": (0, 1)}, "1d", ("f32[8@X,16]",)),
        ("log_softmax", {"axis": 0}, "2d", ("f32[8@X,16@Y]",)), ("logsumexp", {"axis": -1}, "2d", ("f32[8@X,16@Y]",)),
        ("logsumexp", {"axis": -1, "return_sign": True}, "2d", ("f32[8@X,16@Y]", "f32[8@X,16@Y]")),
        ("logsumexp", {"axis": None}, "1d", ("bf16[2,8@X,16]",)), ("logmeanexp", {"axis": 1}, "2d", ("f32[8@X,16@Y]",)),
        ("standardize", {"axis": -1}, "2d", ("f32[8@X,16@Y]",)),
        ("standardize", {"axis": 0, "algorithm": "stable"}, "1d", ("f32[8@X,16]",)),
        ("glu", {"axis": -1}, "2d", ("f32[8@X,16@Y]",)), ("glu", {"axis": 0}, "1d", ("f32[8,16@X]",)),
    ]]


@param(NORM_GRAD_CASES)
def test_normalizing_grads(case):
    check(case, "jit")


#: rows with -inf, +inf, all-masked and large entries
_ROWS = np.array([[0.0, 1.0, 2.0, 3.0, -1.0, 5.0, 6.0, 7.0],
                  [-np.inf, 0.0, 1.0, -np.inf, 2.0, 3.0, 4.0, 5.0],
                  [-np.inf] * 8,
                  [1e4, 1e4, -1e4, 0.0, 3.0, 88.0, 89.0, 90.0]], np.float32)
_MASK = np.array([[True] * 8, [False, True] * 4, [True] * 8, [False] * 8])


def _finite(ns, m, out):
    """The masked-in entries of an elementwise output (a reduction's is all of it)."""
    return ns.where(m, out, 0.0) if out.ndim == m.ndim else out


def _edge_norm_cases() -> list[Case]:
    x = Placed(spec=(None, "X"), value=_ROWS)
    w = Placed(spec=(None, "X"), value=_MASK)
    cases = []
    for name in ("softmax", "log_softmax", "logsumexp", "logmeanexp", "standardize"):
        cases.append(Case(f"{name}-edge", MESHES["1d"], _fn(name, {"axis": -1}), (x,)))
        cases.append(Case(f"{name}-edge-where", "1d",
                          lambda ns, a, m, name=name: getattr(ns.nn, name)(a, axis=-1, where=m), (x, w)))
        cases.append(Case(f"grad-{name}-edge", "1d",
                          lambda ns, a, name=name: ns.grad(lambda y: ns.sum(
                              getattr(ns.nn, name)(y, axis=-1) * ns.arange(8.0)))(a), (Placed(spec=(None, "X"), value=_ROWS[:2]),)))
        cases.append(Case(f"grad-{name}-edge-where", "1d",
                          lambda ns, a, m, name=name: ns.grad(lambda y: ns.sum(_finite(
                              ns, m, getattr(ns.nn, name)(y, axis=-1, where=m))))(a),
                          (Placed(spec=(None, "X"), value=_ROWS[:2]), Placed(spec=(None, "X"), value=_MASK[:2]))))
    return cases


@param(_edge_norm_cases())
def test_normalizing_edges(case):
    check(case, "jit", collectives="at_most")


# --- the namespace --------------------------------------------------------------------------------
#: jax.nn names shardc leaves out, and why
LEFT_OUT = {
    "scaled_matmul": "block-scaled fp8/fp4 matmul through cuDNN custom calls (no CPU/XLA lowering to mirror)",
    "scaled_dot_general": "quantizes through cuDNN block-scale custom calls (as scaled_matmul)",
    "get_scaled_dot_general_config": "builds configs only scaled_dot_general consumes",
}
#: shardc.nn's own names (models with eagerly sharded parameters), not in jax.nn
MODELS = {"Param", "Module", "Linear", "Embed", "LayerNorm", "MLP", "grad", "value_and_grad"}


def _public(mod) -> set[str]:
    return {n for n in dir(mod) if not n.startswith("_")}


def test_every_jax_nn_name_is_here_or_left_out():
    missing = _public(jax.nn) - _public(sc.nn) - set(LEFT_OUT)
    assert missing == set(), f"jax.nn names neither in shardc.nn nor in LEFT_OUT: {sorted(missing)}"
    assert not set(LEFT_OUT) & _public(sc.nn)


def test_shardc_nn_names_are_jax_names_or_models():
    extra = _public(sc.nn) - _public(jax.nn) - MODELS
    assert extra == set(), f"shardc.nn leaks names that are neither jax.nn's nor its models: {sorted(extra)}"
    assert set(sc.nn.__all__) == _public(sc.nn)
    for leaked in ("np", "tu", "Any", "annotations", "Tracer"):
        assert leaked not in dir(sc.nn)


@pytest.mark.parametrize("name", sorted(_public(jax.nn) - set(LEFT_OUT) - {"initializers"}))
def test_signatures_match(name):
    import inspect
    jf, sf = getattr(jax.nn, name), getattr(sc.nn, name)
    jp = inspect.signature(jf).parameters
    sp = inspect.signature(sf).parameters
    assert [(p.name, p.kind, p.default) for p in sp.values()] == \
           [(p.name, p.kind, p.default) for p in jp.values()], name


# --- dot_product_attention ---------------------------------------------------------------------------
def _dpa(**kw):
    return lambda ns, q, k, v, *extra: ns.nn.dot_product_attention(q, k, v, *extra, **kw)


def _dpa_cases() -> list[Case]:
    cases = []
    B, T, N, H = 4, 8, 8, 16
    # (q spec, kv spec) layouts: batch, heads, batch+heads, query sequence, key sequence, head dim
    layouts = {"2d": [(("X", None, "Y"), ("X", None, "Y")), ((None, None, "Y"), (None, None, "Y")),
                      (("X",), ("X",)), ((None, "X"), ()), ((), (None, "X")), ((None, None, None, "Y"),) * 2,
                      ((None, "Y", "X"), (None, None, "X"))],
               "1d": [(("X",), ("X",)), ((None, "X"), ()), ((), ())]}
    opts = [({}, ""), ({"is_causal": True}, "causal"), ({"scale": 0.5}, "scale"),
            ({"local_window_size": 2}, "window2"), ({"local_window_size": (3, 1)}, "window31"),
            ({"is_causal": True, "local_window_size": (2, 0)}, "causal-window"),
            ({"implementation": "xla"}, "xla"), ({"return_residual": True}, "residual")]
    for mesh, lays in layouts.items():
        b = 8 if mesh == "1d" else B
        for (qs, kvs), kheads, dname in itertools.product(lays, (N, 4, 1), ("f32", "bf16")):
            q = type_str(dname, (b, T, N, H), qs)
            kv = type_str(dname, (b, T, kheads, H), kvs if kheads == N or len(kvs) < 3 or kvs[2] is None
                          or kheads % 4 == 0 else kvs[:2])
            for kw, tag in opts:
                cases.append(Case(f"dpa-{tag}-{mesh}-K{kheads}-{q}-{kv}", mesh, _dpa(**kw), (q, kv, kv)))
    # bias and mask, sharded like the logits or broadcast
    q, kv = "f32[4@X,8,8@Y,16]", "f32[4@X,8,8@Y,16]"
    for extra, tag in [(("f32[4@X,8@Y,8,8]",), "bias"), (("f32[1,1,8,8]",), "bias11"),
                       (("f32[4@X,1,8,8]",), "biasB1"), ((None, "bool[4@X,1,8,8]"), "mask"),
                       (("f32[4@X,8@Y,8,8]", "bool[4@X,8@Y,8,8]"), "bias-mask"),
                       ((None, "bool[1,1,8,8]"), "mask11")]:
        args = tuple(a for a in extra if a is not None)
        if extra[0] is None:
            fn = lambda ns, q, k, v, m: ns.nn.dot_product_attention(q, k, v, mask=m)  # noqa: E731
            cases.append(Case(f"dpa-{tag}-2d", "2d", fn, (q, kv, kv, *args)))
            fn = lambda ns, q, k, v, m: ns.nn.dot_product_attention(q, k, v, mask=m, is_causal=True)  # noqa: E731
            cases.append(Case(f"dpa-{tag}-causal-2d", "2d", fn, (q, kv, kv, *args)))
        else:
            cases.append(Case(f"dpa-{tag}-2d", "2d", _dpa(), (q, kv, kv, *args)))
            cases.append(Case(f"dpa-{tag}-gqa-2d", "2d", _dpa(), (q, "f32[4@X,8,4@Y,16]", "f32[4@X,8,4@Y,16]",
                                                                 *args)))
    # sequence lengths
    lens = Placed(spec=("X",), value=np.array([8, 3, 5, 1], np.int32))
    for tag, fn in [("qlen", lambda ns, q, k, v, n: ns.nn.dot_product_attention(q, k, v, query_seq_lengths=n)),
                    ("kvlen", lambda ns, q, k, v, n: ns.nn.dot_product_attention(q, k, v, key_value_seq_lengths=n)),
                    ("both-causal", lambda ns, q, k, v, n: ns.nn.dot_product_attention(
                        q, k, v, query_seq_lengths=n, key_value_seq_lengths=n, is_causal=True)),
                    ("qlen-residual", lambda ns, q, k, v, n: ns.nn.dot_product_attention(
                        q, k, v, query_seq_lengths=n, return_residual=True))]:
        cases.append(Case(f"dpa-{tag}-2d", "2d", fn, (q, kv, kv, lens)))
    # rank 3 (T, N, H)
    cases.append(Case("dpa-rank3-2d", "2d", _dpa(), ("f32[8,8@Y,16]",) * 3))
    cases.append(Case("dpa-rank3-causal-residual-1d", "1d", _dpa(is_causal=True, return_residual=True),
                      ("f32[8,8@X,16]",) * 3))
    # JAX's errors
    cases += [
        Case("dpa-cudnn", "2d", _dpa(implementation="cudnn"), (q, kv, kv), expect="reject"),
        Case("dpa-bad-impl", "2d", _dpa(implementation="triton"), (q, kv, kv), expect="reject"),
        Case("dpa-heads", "2d", _dpa(), (q, "f32[4@X,8,3,16]", "f32[4@X,8,3,16]"), expect="reject"),
        Case("dpa-dtypes", "2d", _dpa(), ("bf16[4@X,8,8@Y,16]", kv, kv), expect="reject"),
        Case("dpa-value-shape", "2d", _dpa(), (q, kv, "f32[4@X,8,8@Y,8]"), expect="reject"),
        Case("dpa-mask-dtype", "2d", lambda ns, q, k, v, m: ns.nn.dot_product_attention(q, k, v, mask=m),
             (q, kv, kv, "f32[4@X,1,8,8]"), expect="reject"),
        Case("dpa-len-dtype", "2d", lambda ns, q, k, v, n: ns.nn.dot_product_attention(q, k, v, query_seq_lengths=n),
             (q, kv, kv, "f32[4@X]"), expect="reject"),
    ]
    return cases


DPA_CASES = _dpa_cases()


@param(DPA_CASES)
def test_attention_types(case):
    check(case, "trace")


def _dpa_jit() -> list[Case]:
    picked = sample([c for c in DPA_CASES if c.expect is None], 14, salt="jit")
    more = [c for c in DPA_CASES if c.expect is None and c not in picked
            and any(w in c.id for w in ("len", "mask-causal", "bias-mask", "bias11", "rank3"))]
    return picked + more


@param(_dpa_jit())
def test_attention_values(case):
    check(case, "jit", collectives="at_most", tol=(2e-2, 2e-2) if "bf16" in case.id else None)


def _dpa_grad(**kw):
    def fn(ns, q, k, v):
        def loss(q, k, v):
            out = ns.nn.dot_product_attention(q, k, v, **kw)
            return ns.sum(out * out)
        return ns.grad(loss, argnums=(0, 1, 2))(q, k, v)
    return fn


_QKV = [("f32[4@X,8,8@Y,16]", "f32[4@X,8,8@Y,16]"), ("f32[4@X,8,8@Y,16]", "f32[4@X,8,4@Y,16]"),
        ("f32[4,8@X,8,16]", "f32[4,8,8,16]")]
DPA_GRAD_CASES = [Case(f"grad-dpa-{tag}-{q}-{kv}", "2d", _dpa_grad(**kw), (q, kv, kv))
                  for kw, tag, layouts in [({}, "", _QKV), ({"is_causal": True}, "causal", _QKV[1:2]),
                                           ({"local_window_size": 1}, "window", _QKV[2:])]
                  for q, kv in layouts]


@param(DPA_GRAD_CASES)
def test_attention_grads(case):
    check(case, "jit", collectives="at_most")


# --- initializers ----------------------------------------------------------------------------------
def _rnd(ns):
    return jax.random if ns.name == "jax" else sc.random


#: (builder, its arguments): every jax.nn.initializers builder shardc has
INITS = [
    ("zeros", None), ("ones", None), ("constant", (-7,)), ("constant", (0.5, jax.numpy.bfloat16)),
    ("uniform", ()), ("uniform", (3.0,)), ("normal", ()), ("normal", (2.0,)), ("truncated_normal", ()),
    ("truncated_normal", (1.5, None, -1.0, 3.0)), ("variance_scaling", (0.5, "fan_out", "normal")),
    ("variance_scaling", (2.0, "fan_geo_avg", "uniform")), ("variance_scaling", (1.0, "fan_avg", "truncated_normal")),
    ("variance_scaling", (1.0, "fan_in", "normal", (0, 1), -1)), ("glorot_uniform", ()), ("glorot_normal", ()),
    ("xavier_uniform", ()), ("xavier_normal", ()), ("lecun_uniform", ()), ("lecun_normal", ()),
    ("he_uniform", ()), ("he_normal", ()), ("kaiming_uniform", ()), ("kaiming_normal", ()),
    ("he_normal", (-3, -1, 0)),
]


def _init_id(name, args) -> str:
    return f"{name}{'' if args is None else tuple(getattr(a, '__name__', a) for a in args)}"


def _init_fn(name, args, shape, dtype, spec, seed=0):
    def fn(ns):
        mod = ns.nn.initializers
        init = getattr(mod, name) if args is None else getattr(mod, name)(*args)
        kw = {} if spec is None else {"out_sharding": ns.P(*spec)}
        return init(_rnd(ns).key(seed), shape, *(() if dtype is None else (dtype,)), **kw)
    return fn


def _init_cases() -> list[Case]:
    cases = []
    shapes = [(16, 8), (4, 16, 8), (3, 2, 8, 16)]
    for (name, args), shape, dname in itertools.product(INITS, shapes, ("f32", "bf16", None)):
        dtype = {"f32": jax.numpy.float32, "bf16": jax.numpy.bfloat16, None: None}[dname]
        nd = len(shape)
        for spec in (None, ("X",), (None,) * (nd - 1) + ("Y",), ("X",) + (None,) * (nd - 2) + ("Y",)):
            cases.append(Case(f"init-{_init_id(name, args)}-{dname}-{shape}-{spec}", "2d",
                              _init_fn(name, args, shape, dtype, spec), (), tol=(0, 0)))
    return cases


def _per_init(cases: list[Case], n: int, salt: str) -> list[Case]:
    """`n` cases of each initializer (tracing the PRNG makes the whole product slow)."""
    out = []
    for name, args in INITS:
        prefix = f"init-{_init_id(name, args)}-"
        out += sample([c for c in cases if c.id.startswith(prefix)], n, salt=salt)
    return out


INIT_CASES = _init_cases()


@param(_per_init(INIT_CASES, 4, "trace"))
def test_initializer_types(case):
    check(case, "trace")


#: one compiled case per sampler path (compiling threefry takes seconds a case)
_JIT_INITS = ("zeros", "constant(0.5, 'bfloat16')", "uniform(3.0,)", "normal(2.0,)", "truncated_normal(1.5,",
              "variance_scaling(0.5, 'fan_out', 'normal')", "variance_scaling(2.0, 'fan_geo_avg', 'uniform')",
              "glorot_normal", "he_normal(-3")


@param([c for c in _per_init(INIT_CASES, 1, "jit") if c.id.startswith(tuple(f"init-{n}" for n in _JIT_INITS))])
def test_initializer_values_bit_identical(case):
    check(case, "jit", collectives="at_most")


@param([c for c in INIT_CASES if c.id in ("init-zeros-None-(16, 8)-('X',)",
                                          "init-lecun_normal()-bf16-(4, 16, 8)-(None, None, 'Y')")])
def test_initializer_eager(case):
    check(case, "eager")


INIT_ERRORS = [
    Case("init-fans-1d", "2d", _init_fn("lecun_normal", (), (8,), None, None), (), expect="reject"),
    Case("init-bad-mode", "2d", _init_fn("variance_scaling", (1.0, "fan_sideways", "normal"), (8, 4), None, None),
         (), expect="reject"),
    Case("init-bad-distribution", "2d", _init_fn("variance_scaling", (1.0, "fan_in", "cauchy"), (8, 4), None, None),
         (), expect="reject"),
    Case("init-orthogonal-out-sharding", "2d", _init_fn("orthogonal", (), (8, 8), None, ("X",)), (), expect="reject"),
    Case("init-orthogonal-1d", "2d", _init_fn("orthogonal", (), (8,), None, None), (), expect="reject"),
    Case("init-delta-orthogonal-2d", "2d", _init_fn("delta_orthogonal", (), (8, 8), None, None), (), expect="reject"),
    Case("init-bad-spec", "2d", _init_fn("normal", (), (6, 8), None, ("Y",)), (), expect="reject"),
]


@param(INIT_ERRORS)
def test_initializer_errors(case):
    check(case, "trace")


@pytest.mark.parametrize("name,shape,column_axis", [("orthogonal", (8, 8), -1), ("orthogonal", (6, 4), 0),
                                                    ("orthogonal", (2, 3, 8), -1), ("delta_orthogonal", (3, 4, 8), -1),
                                                    ("delta_orthogonal", (3, 3, 4, 4), -1)])
def test_orthogonal_initializers_agree_with_jax(name, shape, column_axis):
    """`orthogonal` / `delta_orthogonal` draw from `random.orthogonal` (a QR): JAX's values for the same key."""
    with sc.set_mesh(sc.make_mesh((8,), ("X",))):
        got = getattr(sc.nn.initializers, name)(column_axis=column_axis)(sc.random.key(3), shape)
    want = getattr(jax.nn.initializers, name)(column_axis=column_axis)(jax.random.key(3), shape)
    assert str(sc.typeof(got)) == str(jax.typeof(want))
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-6)


def test_initializers_namespace_and_signatures():
    import inspect

    import shardc.nn.initializers as si
    assert si is sc.nn.initializers
    assert _public(sc.nn.initializers) == _public(jax.nn.initializers) - {"Initializer"} | {"Initializer"}
    for name in sorted(_public(jax.nn.initializers) - {"Initializer"}):
        jf, sf = getattr(jax.nn.initializers, name), getattr(sc.nn.initializers, name)
        jp, sp = inspect.signature(jf).parameters, inspect.signature(sf).parameters
        assert [(p.name, p.kind, p.default) for p in sp.values()] == \
               [(p.name, p.kind, p.default) for p in jp.values()], name
        if name in ("zeros", "ones"):
            continue
        built_j, built_s = jf(*INIT_DEFAULT_ARGS.get(name, ())), sf(*INIT_DEFAULT_ARGS.get(name, ()))
        assert isinstance(built_s, sc.nn.initializers.Initializer)
        assert [(p.name, p.kind, p.default) for p in inspect.signature(built_s).parameters.values()] == \
               [(p.name, p.kind, p.default) for p in inspect.signature(built_j).parameters.values()], name


INIT_DEFAULT_ARGS = {"constant": (1.0,), "variance_scaling": (1.0, "fan_in", "normal")}


SOFTMAX_JVP_CASES = [c for c in _edge_norm_cases() if c.id.startswith("grad-softmax")] + [
    c for c in NORM_GRAD_CASES if c.id.startswith("grad-softmax")] + [
    Case("jvp-softmax-where-2d", "2d", lambda ns, x, t, m: ns.jvp(lambda y: ns.nn.softmax(y, axis=-1, where=m),
                                                                   (x,), (t,)), ("f32[8@X,16@Y]",) * 2 + ("bool[8@X,16@Y]",))]


@param(SOFTMAX_JVP_CASES)
def test_softmax_custom_jvp_flag(case):
    """Under `jax_softmax_custom_jvp` JAX's softmax is a custom_jvp (no stop_gradient): shardc follows the flag."""
    jax.config.update("jax_softmax_custom_jvp", True)
    try:
        check(case, "jit", collectives="at_most")
    finally:
        jax.config.update("jax_softmax_custom_jvp", False)


@param(sample(ELEMENTWISE_CASES, 6, salt="eager") + sample(NORM_CASES, 6, salt="eager")
       + sample([c for c in DPA_CASES if c.expect is None], 3, salt="eager"))
def test_eager(case):
    """Outside programs (op by op on sc.Arrays; the custom-JVP functions run their primal)."""
    check(case, "eager")
