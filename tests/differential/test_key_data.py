"""Differential: typed PRNG key arrays used as array data, against JAX 0.10.2.

JAX lets a `key<fry>[...]` array go where array data goes: `jnp.where` / `lax.select`,
`scan` / `fori_loop` carries, `cond` branches, `stack` / `concatenate` / `reshape` /
`transpose` / `expand_dims` / `squeeze` / indexing, `broadcast_to`, `jit` in/out shardings
and `vmap`, and refuses arithmetic on them. Each program here takes sharded key data
(`uint32[..., 2]`) over 1-D to 3-D meshes, wraps it as keys, does one of those, notes the
key type (`str(typeof)` such as `key<fry>[8@X]`) and returns the key data (bit-exact) and,
for some, samples drawn from the keys. The type table runs at trace level; a subset per
operation is compiled and run."""
from __future__ import annotations

import jax
import numpy as np
import pytest
from oracle import BASIC_MESHES, Case, check, param, sample, spec_id, specs_for, type_str

import shardc as sc

EXACT = (0.0, 0.0)
SHAPES = {"1d": [(8,), (8, 4)], "2d": [(8,), (8, 4), (4, 2, 8)], "3d": [(8, 4), (4, 2, 8)]}


def _kd(ns, kd):
    return ns.random.wrap_key_data(kd)


def _out(ns, k, tag="out"):
    ns.note(k, tag)
    return ns.random.key_data(k)


# --- programs over one key array (and sometimes a condition) -----------------------------------------
def _where_flip(ns, kd, c):
    k = _kd(ns, kd)
    other = ns.random.wrap_key_data(kd[::-1])
    return _out(ns, ns.where(c, k, other))


def _where_scalar(ns, kd):
    k = _kd(ns, kd)
    return _out(ns, ns.where(True, k, ns.random.wrap_key_data(kd[::-1])))


def _select(ns, kd, c):
    k = _kd(ns, kd)
    return _out(ns, ns.lax.select(c, k, ns.random.wrap_key_data(kd[::-1])))


def _stack0(ns, kd):
    k = _kd(ns, kd)
    return _out(ns, ns.stack([k, k]))


def _stack_last(ns, kd):
    k = _kd(ns, kd)
    return _out(ns, ns.stack([k, k], axis=-1))


def _concat0(ns, kd):
    k = _kd(ns, kd)
    return _out(ns, ns.concatenate([k, k]))


def _concat_last(ns, kd):
    k = _kd(ns, kd)
    return _out(ns, ns.concatenate([k, k], axis=-1))


def _reshape_flat(ns, kd):
    k = _kd(ns, kd)
    return _out(ns, ns.reshape(k, (-1,)))


def _transpose(ns, kd):
    k = _kd(ns, kd)
    return _out(ns, ns.transpose(k))


def _expand_squeeze(ns, kd):
    k = _kd(ns, kd)
    e = ns.note(ns.expand_dims(k, 0), "expanded")
    return _out(ns, ns.squeeze(e, 0))


def _index(ns, kd):
    k = _kd(ns, kd)
    return _out(ns, k[1]), _out(ns, k[::2], "strided")


def _asarray(ns, kd):
    return _out(ns, ns.asarray(_kd(ns, kd)))


def _vmap_fold_in(ns, kd):
    k = _kd(ns, kd).reshape(-1)
    f = ns.vmap(ns.random.fold_in)(k, ns.arange(k.shape[0]))
    return _out(ns, f)


def _vmap_uniform(ns, kd):
    k = _kd(ns, kd).reshape(-1)
    return ns.vmap(lambda kk: ns.random.uniform(kk, (3,)))(k)


def _scan_carry(ns, kd):
    """JAX's `test_scan_with_random_key_inside_jit`, over a sharded key batch."""
    rng = _kd(ns, kd)
    n = rng.shape[0]

    def step(carry, x):
        nxt = ns.vmap(ns.random.fold_in)(carry, ns.full((n,), x))
        nxt = ns.where(ns.full((n,), x % 2 == 0), carry, nxt)
        ns.note(nxt, "carry")
        return nxt, None
    rng, _ = ns.lax.scan(step, rng, ns.arange(5))
    return _out(ns, rng)


def _fori_carry(ns, kd):
    def body(i, k):
        return ns.vmap(lambda kk: ns.random.split(kk)[0])(k)
    return _out(ns, ns.lax.fori_loop(0, 3, body, _kd(ns, kd)))


def _cond(ns, kd, p):
    k = _kd(ns, kd)
    return _out(ns, ns.lax.cond(p > 0, lambda a, b: a, lambda a, b: b, k, ns.random.wrap_key_data(kd[::-1])))


def _broadcast(ns, kd):
    k = _kd(ns, kd)
    return _out(ns, ns.broadcast_to(k[0], (4,) + k.shape))


def _flip(ns, kd):
    return _out(ns, ns.flip(_kd(ns, kd), 0))


def _take(ns, kd):
    return _out(ns, ns.take(_kd(ns, kd), np.array([1, 3, 2]), axis=0))


def _dynamic_slice(ns, kd):
    k = _kd(ns, kd)
    return _out(ns, ns.lax.dynamic_slice_in_dim(k, 1, 2)), _out(ns, ns.lax.dynamic_index_in_dim(k, 3, 0, False), "i")


def _select_n(ns, kd, c):
    return _out(ns, ns.lax.select_n(c, _kd(ns, kd), ns.random.wrap_key_data(kd[::-1])))


def _ravel(ns, kd):
    return _out(ns, _kd(ns, kd).ravel())


def _lax_forms(ns, kd):
    k = _kd(ns, kd)
    nd = k.ndim
    return (_out(ns, ns.lax.slice(k, (1,) + (0,) * (nd - 1), k.shape), "slice"),
            _out(ns, ns.lax.index_in_dim(k, 2, 0, False), "index"),
            _out(ns, ns.lax.squeeze(ns.lax.expand_dims(k, (0,)), (0,)), "squeeze"),
            _out(ns, ns.lax.broadcast(k, (2,)), "broadcast"),
            _out(ns, ns.lax.concatenate([k, k], nd - 1), "concat"),
            _out(ns, ns.lax.transpose(k, tuple(reversed(range(nd)))), "transpose"),
            _out(ns, ns.roll(k, 1, 0), "roll"),
            _out(ns, ns.split(k, 2)[1], "split"),
            _out(ns, ns.tile(k, 2), "tile"),
            _out(ns, ns.repeat(k, 2, axis=nd - 1), "repeat"))


def _at(ns, kd):
    k = _kd(ns, kd)
    return (_out(ns, k.at[1].set(k[0]), "set"), _out(ns, k.at[:2].set(k[3]), "set-broadcast"),
            _out(ns, k.at[2].get(), "get"))


def _lax_reshape(ns, kd):
    k = _kd(ns, kd)
    return _out(ns, ns.lax.reshape(k, (k.size,)))


OPS = {
    "lax-forms": (_lax_forms, False), "at": (_at, False), "lax-reshape": (_lax_reshape, False),
    "flip": (_flip, False), "take": (_take, False), "dynamic_slice": (_dynamic_slice, False),
    "select_n": (_select_n, True), "ravel": (_ravel, False),
    "where": (_where_flip, True), "where-scalar": (_where_scalar, False), "select": (_select, True),
    "stack0": (_stack0, False), "stack-last": (_stack_last, False), "concat0": (_concat0, False),
    "concat-last": (_concat_last, False), "reshape": (_reshape_flat, False), "transpose": (_transpose, False),
    "expand-squeeze": (_expand_squeeze, False), "index": (_index, False), "asarray": (_asarray, False),
    "vmap-fold_in": (_vmap_fold_in, False), "vmap-uniform": (_vmap_uniform, False),
    "scan": (_scan_carry, False), "fori": (_fori_carry, False), "broadcast": (_broadcast, False),
}


def _cases() -> list[Case]:
    out = []
    for mesh, shapes in SHAPES.items():
        for shape in shapes:
            specs = specs_for(shape, BASIC_MESHES[mesh])
            for spec in dict.fromkeys(specs[::max(1, len(specs) // 4)][:4] + specs[-1:]):
                kd = type_str("u32", (*shape, 2), spec)
                sid = spec_id(spec)
                for name, (fn, cond) in OPS.items():
                    if name == "scan" and len(shape) > 1:
                        continue
                    args = (kd, type_str("bool", shape, spec)) if cond else (kd,)
                    out.append(Case(f"{name}-{mesh}-{shape}-{sid}", mesh, fn, args, tol=EXACT))
                out.append(Case(f"cond-{mesh}-{shape}-{sid}", mesh, _cond, (kd, "i32[]"), tol=EXACT))
    return out


CASES = _cases()


@param(CASES)
def test_key_data_types(case):
    check(case, "trace")


@param(sample(CASES, 48, salt="run"))
def test_key_data_values(case):
    check(case, "jit", collectives=None)


# --- JAX's refusals: arithmetic on keys, keys mixed with other data ----------------------------------------
REFUSED = [
    Case("add", "1d", lambda ns, kd: _kd(ns, kd) + 1, ("u32[8@X,2]",)),
    Case("radd", "1d", lambda ns, kd: 1 + _kd(ns, kd), ("u32[8@X,2]",)),
    Case("sub", "1d", lambda ns, kd: _kd(ns, kd) - _kd(ns, kd), ("u32[8@X,2]",)),
    Case("mul", "1d", lambda ns, kd: _kd(ns, kd) * 2, ("u32[8@X,2]",)),
    Case("neg", "1d", lambda ns, kd: -_kd(ns, kd), ("u32[8@X,2]",)),
    Case("lt", "1d", lambda ns, kd: _kd(ns, kd) < _kd(ns, kd), ("u32[8@X,2]",)),
    Case("where-mixed", "1d", lambda ns, kd: ns.where(True, _kd(ns, kd), 1), ("u32[8@X,2]",)),
    Case("concat-mixed", "1d", lambda ns, kd: ns.concatenate([_kd(ns, kd), kd[:, 0]]), ("u32[8@X,2]",)),
]


@param(REFUSED)
def test_key_data_refused(case):
    check(case, "trace")


# --- jit with in/out shardings of keys, eagerly placed keys --------------------------------------------------
@pytest.mark.parametrize("mesh_name", ["1d", "2d", "3d"])
def test_jit_key_shardings(mesh_name):
    spec = BASIC_MESHES[mesh_name]
    names = spec.names
    shape = (8,) + (len(names) > 1) * (4,)
    outs = []
    for ns in (jax, sc):
        mesh = ns.make_mesh(spec.shape, names,
                            axis_types=(ns.sharding.AxisType.Explicit,) * len(names))
        with ns.set_mesh(mesh):
            ks = ns.random.split(ns.random.key(3), shape)
            ks = ns.device_put(ks, ns.P(names[0]))
            fold = ns.vmap(lambda kk: ns.random.fold_in(kk, 7))
            f = ns.jit(lambda k: fold(k) if k.ndim == 1 else ns.vmap(fold)(k),
                       in_shardings=ns.P(names[0]), out_shardings=ns.P(*names[:len(shape)][::-1]))
            r = f(ks)
            outs.append((str(ns.typeof(r)), np.asarray(ns.random.key_data(r)), str(ns.typeof(ks))))
    assert outs[0][0] == outs[1][0] and outs[0][2] == outs[1][2], (outs[0][0], outs[1][0])
    np.testing.assert_array_equal(outs[0][1], outs[1][1])
