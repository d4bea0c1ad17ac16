"""`checkpoint` / `remat` with JAX's policies and `checkpoint_name`, against `jax.checkpoint`:
types of primal and gradient outputs, values, collectives (shardc ≤ JAX), under `grad`, `jit`,
`scan` and `shard_map`; and the recomputation itself: the compiled gradient has as many matmuls
as JAX's for each policy."""
from __future__ import annotations

import jax
import jax.ad_checkpoint
import numpy as np
import pytest
from oracle import JAX, SC, Case, check, param

import shardc as sc

POLICIES = ["default", "nothing_saveable", "everything_saveable", "dots_saveable",
            "dots_with_no_batch_dims_saveable", "save_only_h", "save_any_but_h", "both"]


def _policy(ns, name):
    cp = ns.checkpoint_policies
    if name == "default":
        return None
    return {"save_only_h": cp.save_only_these_names("h"),
            "save_any_but_h": cp.save_any_names_but_these("h"),
            "both": cp.save_from_both_policies(cp.dots_saveable, cp.save_only_these_names("h"))
            }.get(name) or getattr(cp, name)


def _block(ns, x, w1, w2):
    """A sharded MLP block: column-parallel then row-parallel matmul, a named activation."""
    h = ns.checkpoint_name(ns.tanh(x @ w1), "h")
    return ns.sin(ns.matmul(h, w2, out_sharding=ns.P("X", None)))


def _grad_block(policy):
    def fn(ns, x, w1, w2):
        f = ns.checkpoint(lambda x, w1, w2: _block(ns, x, w1, w2), policy=_policy(ns, policy))
        return ns.value_and_grad(lambda x, w1, w2: ns.sum(f(x, w1, w2)), argnums=(0, 1, 2))(x, w1, w2)
    return fn


def _closure(ns, x, w1, w2):
    """Weights closed over by the checkpointed function still get gradients."""
    def loss(w1, w2):
        f = ns.checkpoint(lambda x: _block(ns, x, w1, w2))
        return ns.sum(f(x))
    return ns.grad(loss, argnums=(0, 1))(w1, w2)


def _scan_layers(ns, x, w1, w2):
    """Scan over layers with a rematerialized body (prevent_cse=False, as recommended in scans)."""
    def loss(w1, w2, x):
        layer = ns.checkpoint(lambda c, w1, w2: ns.tanh(_block(ns, c, w1, w2)), prevent_cse=False)

        def body(c, _):
            return layer(c, w1, w2), None
        c, _ = ns.scan(body, x, None, length=3)
        return ns.sum(c)
    return ns.grad(loss, argnums=(0, 1, 2))(w1, w2, x)


def _static_arg(ns, x, w1, w2):
    f = ns.checkpoint(lambda x, w1, n: ns.tanh(x @ w1) ** n, static_argnums=(2,))
    return ns.grad(lambda w1: ns.sum(f(x, w1, 3)))(w1)


def _nested(ns, x, w1, w2):
    inner = ns.checkpoint(lambda x, w1: ns.tanh(x @ w1))
    outer = ns.checkpoint(lambda x, w1, w2: ns.matmul(inner(x, w1), w2, out_sharding=ns.P("X", None)),
                          policy=ns.checkpoint_policies.dots_saveable)
    return ns.grad(lambda w1, w2: ns.sum(outer(x, w1, w2)), argnums=(0, 1))(w1, w2)


def _not_differentiated(ns, x, w1, w2):
    return ns.checkpoint(lambda x, w1, w2: _block(ns, x, w1, w2))(x, w1, w2)


def _in_shard_map(ns, x, w1, w2):
    def body(x, w1):
        return ns.checkpoint(lambda a, b: ns.sin(a) * b)(x, w1)
    sm = ns.shard_map(body, in_specs=(ns.P("X", None), ns.P("X", None)), out_specs=ns.P("X", None))
    return ns.grad(lambda x, w: ns.sum(sm(x, w)), argnums=(0, 1))(x, x * 2.0)


def _name_outside(ns, x, w1, w2):
    return ns.grad(lambda x: ns.sum(ns.checkpoint_name(ns.sin(x), "s")))(x)


ARGS = ("f32[8@X,16]", "f32[16,32@Y]", "f32[32@Y,16]")
PROGRAMS = [(f"policy-{p}", _grad_block(p)) for p in POLICIES] + [
    ("closure", _closure), ("scan-layers", _scan_layers), ("static_argnums", _static_arg), ("nested", _nested),
    ("not-differentiated", _not_differentiated), ("in-shard_map", _in_shard_map), ("name-outside", _name_outside)]
# three layers of float32 matmuls: gradients of magnitude ~100 differ from JAX's in the last bits
TOL = {"scan-layers": (1e-4, 1e-3)}
CASES = [Case(f"{name}-{mode}", "2d", fn, ARGS, mode=mode, expect="accept", collectives="at_most",
              tol=TOL.get(name)) for name, fn in PROGRAMS for mode in ("trace", "jit")]
CASES += [Case("policy-default-eager", "2d", _grad_block("default"), ARGS, mode="eager", expect="accept"),
          Case("not-differentiated-eager", "2d", _not_differentiated, ARGS, mode="eager", expect="accept")]


@param(CASES)
def test_remat(case):
    check(case)


# --- the recomputation is there, as in JAX ---------------------------------------------------------
def _compiled_ops(ns, policy: str, mesh) -> dict[str, int]:
    x = np.linspace(-1, 1, 8 * 16, dtype=np.float32).reshape(8, 16)
    w1 = np.linspace(-1, 1, 16 * 32, dtype=np.float32).reshape(16, 32)
    w2 = np.linspace(1, -1, 32 * 16, dtype=np.float32).reshape(32, 16)
    fn = _grad_block(policy)
    put = jax.device_put if ns is JAX else sc.device_put
    sh = [ns.P("X", None), ns.P(None, "Y"), ns.P("Y", None)]
    with (jax.set_mesh if ns is JAX else sc.set_mesh)(mesh):
        args = [put(a, s) for a, s in zip((x, w1, w2), sh)]
        jitted = (jax.jit if ns is JAX else sc.jit)(lambda *a: fn(ns, *a))
        text = jitted.lower(*args).compile().as_text()
    return {op: text.count(f" {op}(") for op in ("dot", "tanh", "sine")}


@pytest.mark.parametrize("policy", ["default", "everything_saveable", "dots_saveable", "save_only_h"])
def test_recomputation_matches_jax(policy):
    jm = jax.make_mesh((2, 4), ("X", "Y"), axis_types=(jax.sharding.AxisType.Explicit,) * 2)
    sm = sc.make_mesh((2, 4), ("X", "Y"))
    want, got = _compiled_ops(JAX, policy, jm), _compiled_ops(SC, policy, sm)
    assert got == want, f"{policy}: shardc {got}, JAX {want}"
