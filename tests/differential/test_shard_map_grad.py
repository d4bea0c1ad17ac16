"""Gradients of `shard_map` programs from training code (mixture of experts with all_to_all,
ring attention's ppermute loop, FSDP's all_gather, a pipeline's ppermute, psum-normalized
losses) against `jax.grad`: types, values, and the collectives of the compiled gradient, which
must be no more than JAX's of any kind. The backward pass reuses the forward's per-device
values instead of replaying the body, so no forward collective runs twice."""
from __future__ import annotations

from oracle import SC, Case, check, param, run_side

import shardc as sc


def _moe(ns, x, w):
    """Tokens go to their expert's device (all_to_all), are transformed there, and come back."""
    def body(x, w):
        t = ns.all_to_all(x, "X", 0, 0, tiled=True)
        h = ns.tanh(t @ w[0])
        return ns.all_to_all(h, "X", 0, 0, tiled=True)
    f = ns.shard_map(body, in_specs=(ns.P("X", None), ns.P("X", None, None)), out_specs=ns.P("X", None))
    return ns.grad(lambda x, w: ns.sum(f(x, w) ** 2), argnums=(0, 1))(x, w)


def _ring(ns, x, w):
    """A ring loop: each step multiplies by the local block and passes it on (ppermute)."""
    perm = [(i, (i + 1) % 8) for i in range(8)]

    def body(x, w):
        def step(i, carry):
            acc, blk = carry
            return acc + ns.sin(blk @ w), ns.ppermute(blk, "X", perm)
        acc, _ = ns.fori_loop(0, 3, step, (ns.zeros_like(x), x))
        return acc
    f = ns.shard_map(body, in_specs=(ns.P("X", None), ns.P()), out_specs=ns.P("X", None))
    return ns.grad(lambda x, w: ns.sum(f(x, w) ** 2), argnums=(0, 1))(x, w[0])


def _fsdp(ns, x, w):
    """FSDP inside shard_map: gather the weight shards, use them, the gradient reduce-scatters."""
    def body(x, w):
        full = ns.all_gather(w, "X", axis=0, tiled=True)
        return ns.tanh(x @ full[0])
    f = ns.shard_map(body, in_specs=(ns.P("X", None), ns.P("X", None, None)), out_specs=ns.P("X", None))
    return ns.grad(lambda x, w: ns.sum(f(x, w) ** 2), argnums=(0, 1))(x, w)


def _gather_invariant(ns, x, w):
    """all_gather to an invariant value: its transpose takes this device's block (no collective)."""
    def body(x, w):
        full = ns.all_gather(w, "X", axis=0, tiled=True, to="invarying")
        return ns.tanh(x @ full[0])
    f = ns.shard_map(body, in_specs=(ns.P("X", None), ns.P("X", None, None)), out_specs=ns.P("X", None))
    return ns.grad(lambda x, w: ns.sum(f(x, w) ** 2), argnums=(0, 1))(x, w)


def _pipeline(ns, x, w):
    """Two pipeline hops: compute on this stage, hand the activations to the next (ppermute)."""
    perm = [(i, (i + 1) % 8) for i in range(8)]

    def body(x, w):
        h = ns.tanh(x @ w[0])
        h = ns.ppermute(h, "X", perm)
        h = ns.tanh(h @ w[0])
        return ns.ppermute(h, "X", perm)
    f = ns.shard_map(body, in_specs=(ns.P("X", None), ns.P("X", None, None)), out_specs=ns.P("X", None))
    return ns.grad(lambda x, w: ns.sum(f(x, w) ** 2), argnums=(0, 1))(x, w)


def _psum_loss(ns, x, w):
    """A loss normalized by a psum'd count inside the body (a scalar collective residual)."""
    def body(x, w):
        h = ns.tanh(x @ w)
        total = ns.psum(ns.sum(h * h), "X")
        return total / ns.psum(ns.sum(ns.abs(h)), "X")
    f = ns.shard_map(body, in_specs=(ns.P("X", None), ns.P()), out_specs=ns.P())
    return ns.grad(lambda x, w: f(x, w), argnums=(0, 1))(x, w[0])


def _partial_manual(ns, x, w):
    """Manual over X only; Y stays Explicit inside."""
    def body(x, w):
        return ns.sin(ns.psum(x @ w, "X"))
    f = ns.shard_map(body, in_specs=(ns.P(None, "X"), ns.P("X", None)), out_specs=ns.P(), axis_names={"X"})
    return ns.grad(lambda x, w: ns.sum(f(x, w)), argnums=(0, 1))(x, w)


def _cond_closure(ns, x, w):
    """A cond inside the body closing over an invariant weight (its gradient is summed once)."""
    def body(x, w):
        return ns.cond(ns.sum(x) > 0, lambda a: ns.sin(a @ w), lambda a: ns.cos(a @ w), x)
    f = ns.shard_map(body, in_specs=(ns.P("X", None), ns.P()), out_specs=ns.P("X", None))
    return ns.grad(lambda x, w: ns.sum(f(x, w) ** 2), argnums=(0, 1))(x, w[0])


PROGRAMS = [
    ("moe-all_to_all", "1d", _moe, ("f32[64@X,16]", "f32[8@X,16,16]")),
    ("ring-ppermute", "1d", _ring, ("f32[64@X,16]", "f32[1,16,16]")),
    ("fsdp-all_gather", "1d", _fsdp, ("f32[64@X,16]", "f32[8@X,16,16]")),
    ("all_gather-invariant", "1d", _gather_invariant, ("f32[64@X,16]", "f32[8@X,16,16]")),
    ("pipeline-ppermute", "1d", _pipeline, ("f32[64@X,16]", "f32[8@X,16,16]")),
    ("psum-loss", "1d", _psum_loss, ("f32[64@X,16]", "f32[1,16,16]")),
    ("partial-manual", "2d", _partial_manual, ("f32[8,16@X]", "f32[16@X,4]")),
]
CASES = [Case(f"{name}-{mode}", mesh, fn, args, mode=mode, expect="accept", collectives="at_most")
         for name, mesh, fn, args in PROGRAMS for mode in ("trace", "jit")]


@param(CASES)
def test_shard_map_gradients(case):
    check(case)


def test_collective_in_divergent_cond_branch_is_refused():
    """The gradient of `_cond_closure` needs a psum over X inside branches that devices take
    differently (the predicate varies over X): shardc refuses it with the fix instead of
    emitting a program whose devices wait for each other forever. (JAX accepts it and relies
    on XLA hoisting the psum out of the branches.)"""
    case = Case("cond-closure", "1d", _cond_closure, ("f32[64@X,16]", "f32[1,16,16]"), mode="jit")
    out = run_side(SC, case, "jit")
    assert isinstance(out.error, sc.ShardcNotImplementedError), out.error
    assert "wait for each other forever" in str(out.error) and "sc.pcast(..., to='varying')" in str(out.error)
    assert "test_shard_map_grad.py" in str(out.error)


def test_cond_closure_with_varying_weight_trains():
    """The fix the message names: vary the closed-over weight first; then it agrees with JAX."""
    def fn(ns, x, w):
        def body(x, w):
            w = ns.pcast(w, "X", to="varying")
            return ns.cond(ns.sum(x) > 0, lambda a: ns.sin(a @ w), lambda a: ns.cos(a @ w), x)
        f = ns.shard_map(body, in_specs=(ns.P("X", None), ns.P()), out_specs=ns.P("X", None))
        return ns.grad(lambda x, w: ns.sum(f(x, w) ** 2), argnums=(0, 1))(x, w[0])
    check(Case("cond-varying-weight", "1d", fn, ("f32[64@X,16]", "f32[1,16,16]"), mode="jit",
               expect="accept", collectives="at_most"))



