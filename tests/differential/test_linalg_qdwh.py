"""Differential: `lax.linalg.qdwh` (JAX's QR-based dynamically weighted Halley polar
decomposition, a composition: shardc/ops/qdwh.py) and `lax.linalg.cholesky_update` (a primitive:
shardc/primitives/linalg_update.py) against JAX 0.10.2.

qdwh: values of (u, h) (allclose), `num_iters` and `is_converged` equal, and the output types
(`~int32[]` for the loop counter) for tall and square f32/c64 matrices, `max_iterations`/`eps`
(a schedule cut short: not converged), `dynamic_shape` (the padded block), inside `jit`, under
`vmap`, replicated on an Explicit mesh; JAX's errors (M < N, rank, integer dtype, bf16's
"Unsupported dtype", a traced `max_iterations`, reverse mode through its while_loop, and a row- or
column-sharded operand: the dynamic_update_slice of `_dynamic_concat`).

cholesky_update: values (the Givens sweep: R'^T R' = R^T R + w w^T), f32/bf16/f16 on an Auto
mesh, JAX's dtype, rank and shape errors, "sharding rule for cholesky_update is not implemented" on
Explicit meshes (replicated operands too), and no JVP, VJP or batching rule.
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from oracle import JAX, Case, Placed, check, param

import shardc.numpy as snp


def M(ns):
    return jnp if ns is JAX else snp


def _spd_factor(n: int, seed: int, dtype=np.float32) -> tuple[np.ndarray, np.ndarray]:
    """An upper Cholesky factor R (positive diagonal) and a vector w."""
    rng = np.random.RandomState(seed)
    a = rng.randn(n, n)
    r = np.linalg.cholesky(a @ a.T + n * np.eye(n)).T
    return r.astype(dtype), rng.randn(n).astype(dtype)


def _matrix(shape, seed: int, dtype=np.float32) -> np.ndarray:
    rng = np.random.RandomState(seed)
    x = rng.randn(*shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.randn(*shape)
    return x.astype(dtype)


def _qdwh(**kw):
    return lambda ns, x: tuple(ns.lax.linalg.qdwh(x, **kw))


def qdwh_cases():
    f32, c64 = np.float32, np.complex64
    cases = []
    # several calls per program (one compile each side): pairs of options on one matrix
    for shape, dtype, kws in [((6, 4), f32, ({}, dict(max_iterations=3, eps=1e-3))),
                              ((5, 5), f32, ({}, dict(eps=1e-4, is_hermitian=True))),
                              ((8, 3), c64, ({},)),
                              ((6, 4), f32, (dict(max_iterations=2), dict(dynamic_shape=(5, 3)),
                                             dict(dynamic_shape=(4, 2))))]:
        name = f"qdwh-{shape}-{np.dtype(dtype).name}-{kws}"
        fn = (lambda kws: lambda ns, x: tuple(o for kw in kws for o in ns.lax.linalg.qdwh(x, **kw)))(kws)
        cases.append(Case(name, "2d", fn, (Placed(value=_matrix(shape, 1, dtype)),),
                          mode="jit", tol=(2e-4, 2e-4), collectives=None, expect="accept"))
    x64 = Placed(value=_matrix((6, 4), 2))
    cases += [
        Case("qdwh-vmap", "2d", lambda ns, x: tuple(ns.vmap(ns.lax.linalg.qdwh)(x)),
             (Placed(value=_matrix((2, 6, 4), 3)),), mode="jit", tol=(2e-4, 2e-4),
             collectives=None, expect="accept"),
        Case("qdwh-wide", "2d", _qdwh(), (Placed(value=_matrix((4, 6), 4)),),
             expect="reject", kind=ValueError),
        Case("qdwh-batched", "2d", _qdwh(), (Placed(value=_matrix((2, 6, 4), 4)),),
             expect="reject", kind=ValueError),
        Case("qdwh-rank1", "2d", _qdwh(), (Placed(value=_matrix((6,), 4)),),
             expect="reject", kind=ValueError),
        Case("qdwh-int", "2d", _qdwh(), (Placed(value=np.ones((6, 4), np.int32)),),
             expect="reject", kind=ValueError),
        Case("qdwh-bf16", "2d", lambda ns, x: tuple(ns.lax.linalg.qdwh(x.astype(M(ns).bfloat16))), (x64,),
             mode="jit", expect="reject", kind=NotImplementedError, phrase="Unsupported dtype bfloat16"),
        Case("qdwh-traced-maxit", "2d", lambda ns, x: tuple(ns.lax.linalg.qdwh(x, max_iterations=x.shape[0] + 0 *
                                                                              x[0, 0].astype(M(ns).int32))),
             (x64,), expect="reject", kind=ValueError, phrase="Non-hashable static arguments are not supported"),
        Case("qdwh-grad", "2d", lambda ns, x: ns.grad(lambda v: ns.lax.linalg.qdwh(v)[0].sum())(x), (x64,),
             expect="reject", kind=ValueError, phrase="Reverse-mode differentiation does not work for lax.while_loop"),
        Case("qdwh-row-sharded", "2d", _qdwh(), ("f32[6@X,4]",), expect="reject"),
        Case("qdwh-col-sharded", "2d", _qdwh(), ("f32[6,4@Y]",), expect="reject"),
        # JAX 0.10.2 fails vmapping its while_loop over a sharded batch ("Resource axis: X ... is not
        # found in mesh"); shardc refuses it too, naming that (docs/rules.md): a quirk, reject only
        Case("qdwh-vmap-batch-sharded", "2d", lambda ns, x: tuple(ns.vmap(ns.lax.linalg.qdwh)(x)),
             ("f32[2@X,6,4]",), quirk=True),
        Case("qdwh-replicated-types", "3d", _qdwh(), ("f32[6,4]",), expect="accept"),
        Case("qdwh-c64-types", "1d", _qdwh(max_iterations=4), ("c64[5,3]",), expect="accept"),
    ]
    return cases


@param(qdwh_cases())
def test_qdwh(case):
    check(case)


def _cu(ns, r, w):
    return ns.lax.linalg.cholesky_update(r, w)


def _cu_cast(d):
    return lambda ns, r, w: ns.lax.linalg.cholesky_update(r.astype(getattr(M(ns), d)), w.astype(getattr(M(ns), d)))


def cholesky_update_cases():
    cases = []
    for n, seed, mode in ((1, 0, "eager"), (5, 2, "jit")):
        r, w = _spd_factor(n, seed)
        args = (Placed(value=r), Placed(value=w))
        cases.append(Case(f"cu-{n}-{mode}", "2d_auto", _cu, args, mode=mode, collectives=None, expect="accept"))
    r, w = _spd_factor(4, 3)
    w[1] = 0.0     # a zero entry: the identity rotation (JAX's cond)
    args = (Placed(value=r), Placed(value=w))
    cases += [
        Case("cu-zero-entry-f32-bf16-f16", "2d_auto", lambda ns, r, w: (
             _cu(ns, r, w), _cu_cast("bfloat16")(ns, r, w), _cu_cast("float16")(ns, r, w)), args, mode="jit",
             collectives=None, expect="accept"),
        Case("cu-c64", "2d_auto", _cu_cast("complex64"), args, expect="reject", kind=TypeError),
        Case("cu-i32", "2d_auto", _cu_cast("int32"), args, expect="reject", kind=TypeError),
        Case("cu-mixed", "2d_auto", lambda ns, r, w: _cu(ns, r, w.astype(M(ns).bfloat16)), args, expect="reject",
             kind=TypeError),
        Case("cu-not-square", "2d_auto", lambda ns, r, w: _cu(ns, r[:3], w), args, expect="reject", kind=ValueError),
        Case("cu-short-w", "2d_auto", lambda ns, r, w: _cu(ns, r, w[:3]), args, expect="reject", kind=ValueError),
        Case("cu-rank", "2d_auto", lambda ns, r, w: _cu(ns, r, r), args, expect="reject", kind=TypeError),
        Case("cu-batched", "2d_auto", lambda ns, r, w: _cu(ns, M(ns).stack([r, r]), M(ns).stack([w, w])), args,
             expect="reject", kind=TypeError),
        Case("cu-grad", "2d_auto", lambda ns, r, w: ns.grad(lambda v: _cu(ns, v, w).sum())(r), args,
             expect="reject", kind=NotImplementedError),
        Case("cu-jvp", "2d_auto", lambda ns, r, w: ns.jvp(lambda v: _cu(ns, v, w), (r,), (r,))[1], args,
             expect="reject", kind=NotImplementedError),
        Case("cu-vmap", "2d_auto", lambda ns, r, w: ns.vmap(lambda a, b: _cu(ns, a, b))(
             M(ns).stack([r, r]), M(ns).stack([w, w])), args, expect="reject", kind=NotImplementedError),
        Case("cu-explicit-replicated", "2d", _cu, ("f32[4,4]", "f32[4]"), expect="reject", kind="ShardingTypeError"),
        Case("cu-explicit-sharded", "2d", _cu, ("f32[4@X,4]", "f32[4]"), expect="reject", kind="ShardingTypeError"),
        Case("cu-explicit-w-sharded", "1d", _cu, ("f32[8,8]", "f32[8@X]"), expect="reject", kind="ShardingTypeError"),
    ]
    return cases


@param(cholesky_update_cases())
def test_cholesky_update(case):
    check(case)


def test_cholesky_update_is_the_update():
    """Not only JAX's values: R' is upper triangular and R'^T R' = R^T R + w w^T."""
    import shardc as sc
    r, w = _spd_factor(6, 5)
    with sc.set_mesh(sc.make_mesh((2, 4), ("X", "Y"), axis_types=(sc.AxisType.Auto,) * 2)):
        out = np.asarray(sc.lax.linalg.cholesky_update(r, w))
    np.testing.assert_allclose(np.tril(out, -1), 0, atol=1e-6)
    np.testing.assert_allclose(out.T @ out, r.T @ r + np.outer(w, w), rtol=1e-4, atol=1e-4)
