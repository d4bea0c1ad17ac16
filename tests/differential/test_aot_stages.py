"""The ahead-of-time stages against JAX's: `jit(f).trace(...)`, `.lower()`, `.compile()` answer
JAX's questions about arguments and results (`args_info`, `in_tree`, `out_tree`,
`donate_argnums`, `in_avals`, `out_avals`, `fun_name`, `jaxpr`), and the compiled program's XLA
analyses (`cost_analysis`, `memory_analysis`, `input_formats` / `output_formats`,
`runtime_executable`, `Lowered.compiler_ir` / `cost_analysis`), as training scripts read them
(flops for utilisation, bytes for memory budgets). Each program is staged on both sides with the
same arguments and the answers are compared.

Known difference (not compared): a NumPy argument beside a sharded one on an Explicit mesh. JAX
leaves such an uncommitted argument's sharding unannotated and lets XLA choose where it lives
(`x[8,16@Y] @ w` with a NumPy `w`: XLA shards `w` and all-reduces, 288 flops per device); shardc
types it replicated, as `typeof` says in both, and annotates it so (an all-gather of `x`, 1024
flops) -- what JAX does too once `w` is a committed replicated array ("mlp-2d" below).
"""
from __future__ import annotations

import contextlib
import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jaxlib.mlir import ir

import shardc as sc


def _mlp(ns, p, x, *, scale=2.0):
    return {"y": ns.tanh(x @ p["w"]) * scale, "n": ns.sum(p["b"])}


def _proj(ns, x, w):
    return x @ w, ns.max(x, axis=1)


def _mixed(ns, a, b, c):
    return (ns.sin(a) * b).astype(ns.bfloat16), ns.cumsum(c)


_W, _B = np.ones((16, 4), np.float32), np.arange(4, dtype=np.float32)
_X = np.linspace(-1, 1, 128, dtype=np.float32).reshape(8, 16)

#: name -> (mesh shape and names or None, function, donate_argnums, args builder(put) with put(v, spec))
PROGRAMS = {
    "mlp-2d-donated": ((2, 4), ("X", "Y"), _mlp, (0,), lambda put: ({"w": _W, "b": _B}, put(_X, ("X",)))),
    "mlp-2d": ((2, 4), ("X", "Y"), functools.partial(_mlp, scale=0.5), (), lambda put: (
        {"w": put(_W, ()), "b": _B}, put(_X, (None, "Y")))),
    "proj-1d": ((8,), ("X",), _proj, (), lambda put: (put(_X, ("X",)), _W)),
    "proj-3d": ((2, 2, 2), ("X", "Y", "Z"), _proj, (0,), lambda put: (put(_X, (("X", "Y"),)), put(_W, (None, "Z")))),
    "mixed-no-mesh": (None, None, _mixed, (1,), lambda put: (_X, _X * 2, np.arange(5, dtype=np.int32))),
}


def _stage(side: str, name: str):
    shape, names, fn, donate, build = PROGRAMS[name]
    if side == "jax":
        ns, jit = jnp, jax.jit
        mesh = None if shape is None else jax.make_mesh(shape, names,
                                                        axis_types=(jax.sharding.AxisType.Explicit,) * len(shape))
        put = lambda v, spec: jax.device_put(v, jax.sharding.NamedSharding(mesh, jax.P(*spec)))  # noqa: E731
        ctx = jax.set_mesh(mesh) if mesh is not None else contextlib.nullcontext()
    else:
        ns, jit = sc.numpy, sc.jit
        mesh = None if shape is None else sc.make_mesh(shape, names)
        put = lambda v, spec: sc.device_put(v, sc.NamedSharding(mesh, sc.P(*spec)))  # noqa: E731
        ctx = sc.set_mesh(mesh) if mesh is not None else contextlib.nullcontext()
    with ctx:
        traced = jit(functools.partial(fn, ns) if not isinstance(fn, functools.partial)
                     else functools.partial(fn.func, ns, **fn.keywords), donate_argnums=donate).trace(*build(put))
        lowered = traced.lower()
        return traced, lowered, lowered.compile()


@functools.cache
def _staged(name: str):
    return _stage("jax", name), _stage("sc", name)


def _arg(a) -> tuple:
    return a.shape, np.dtype(a.dtype).name, a.donated


def _info(s) -> tuple:
    return s.shape, np.dtype(s.dtype).name


@pytest.mark.parametrize("stage", [0, 1, 2], ids=["traced", "lowered", "compiled"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_arguments_and_results_as_jax(name, stage):
    j, s = (side[stage] for side in _staged(name))
    assert s.in_tree == j.in_tree, f"{s.in_tree} vs {j.in_tree}"
    assert s.out_tree == j.out_tree
    assert s.donate_argnums == j.donate_argnums
    assert jax.tree.map(_arg, s.args_info) == jax.tree.map(_arg, j.args_info)
    assert jax.tree.map(_info, s.out_info) == jax.tree.map(_info, j.out_info)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_traced_views_as_jax(name):
    (jt, _, jc), (st, _, scc) = _staged(name)
    assert st.fun_name == jt.fun_name
    assert jax.tree.map(str, st.in_avals) == jax.tree.map(str, jt.in_avals)
    assert jax.tree.map(str, st.out_avals) == jax.tree.map(str, jt.out_avals)
    assert jax.tree.map(str, scc.in_avals) == jax.tree.map(str, jc.in_avals)
    # the typed IR as make_jaxpr gives it: JAX's avals beside shardc's types, one per value
    assert [str(a) for a in st.jaxpr.in_avals] == [str(a) for a in jt.jaxpr.in_avals]
    assert [str(a) for a in st.jaxpr.out_avals] == [str(a) for a in jt.jaxpr.out_avals]
    assert str(st.jaxpr) == str(st)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_compiled_analyses_as_jax(name):
    (_, jl, jc), (_, sl, scc) = _staged(name)
    jca, sca = jc.cost_analysis(), scc.cost_analysis()
    assert sca["flops"] == jca["flops"] and sca["bytes accessed"] == jca["bytes accessed"]
    jm, sm = jc.memory_analysis(), scc.memory_analysis()
    for field in ("argument_size_in_bytes", "output_size_in_bytes", "alias_size_in_bytes"):
        assert getattr(sm, field) == getattr(jm, field), field
    layout = lambda f: str(f.layout)  # noqa: E731
    assert jax.tree.map(layout, scc.input_formats) == jax.tree.map(layout, jc.input_formats)
    assert jax.tree.map(layout, scc.output_formats) == jax.tree.map(layout, jc.output_formats)
    assert type(scc.runtime_executable()) is type(jc.runtime_executable())


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_lowered_views(name):
    (_, jl, _), (_, sl, _) = _staged(name)
    module = sl.compiler_ir()
    assert isinstance(module, ir.Module) and type(module) is type(jl.compiler_ir())
    assert "func.func public @main" in str(module)
    hlo = sl.compiler_ir("hlo")
    assert type(hlo) is type(jl.compiler_ir("hlo")) and "ENTRY" in hlo.as_hlo_text()
    # the unoptimized module's estimate: shardc emits its own module, so the flops may differ by
    # an op or two of bookkeeping, never in the work
    jf, sf = jl.cost_analysis()["flops"], sl.cost_analysis()["flops"]
    assert abs(sf - jf) <= 0.01 * jf + 4, (sf, jf)
    with pytest.raises(sc.ShardcValueError, match="unknown dialect"):
        sl.compiler_ir("mhlo-json")
