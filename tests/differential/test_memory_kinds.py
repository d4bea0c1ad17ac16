"""Memory kinds (`sc.memory.Space`, `memory_kind=`) against JAX 0.10.2 on CPU devices, whose
memories are `device`, `pinned_host` and `unpinned_host`.

* types: `str(typeof)` of host values (`float32<host>[8@X]`, `~float32<host>[]`) over dtypes,
  ranks and shardings on 1-D..3-D meshes, and the type-string parser reading them back;
* programs (`oracle.check`): `device_put` to a `Space` or a sharding with a memory kind, ops on
  host values (results stay on the host; mixed operands are JAX's ValueError), grad through a
  transfer; traced types over the whole table, compiled and eager values on a subset;
* runtime facts both sides report: `x.sharding.memory_kind` of results, `addressable_shards`
  (device, index, memory kind, data), `jit(in_shardings=/out_shardings=)` with memory kinds;
* the lowered module: `mhlo.memory_kind` of each argument and result and the
  `annotate_device_placement` placements, as JAX emits them (mesh-less, Explicit and Auto meshes);
* errors: JAX's class and phrase (an unknown memory kind, a string placement, in_shardings
  against an argument in other memory, `Space.Any` leaving a program).
"""
from __future__ import annotations

import re

import jax
import numpy as np
import pytest
from jax.sharding import NamedSharding as JNS
from jax.sharding import SingleDeviceSharding
from oracle import JAX, SC, Case, check, mesh_pair, param
from oracle.types import arg_data, parse_type

import shardc as sc

#: (mesh, argument type) pairs the program table runs over: 1-D..3-D meshes, several dtypes
ARGS = {
    "1d": ["f32[8@X,4]", "i32[16@X]", "bf16[4,8@X]"],
    "2d": ["f32[8@X,4@Y]", "f32[8@(X,Y),2]", "i32[2,4@Y]", "bf16[8@Y]"],
    "3d": ["f32[4@X,4@(Y,Z)]", "i32[8@Z,2]"],
}


def space(ns):
    """This side's memory-space enum (`jax.memory.Space` / `sc.memory.Space`)."""
    return jax.memory.Space if ns is JAX else sc.memory.Space


def host(ns, x):
    return ns.device_put(x, space(ns).Host)


def sharding(ns, x, kind: str = "pinned_host", spec=None):
    """A NamedSharding in memory `kind`: `x`'s own layout, or `spec`."""
    mesh = ns.mesh(_MESH[0])
    spec = tuple(ns.typeof(x).sharding.spec) if spec is None else spec
    return ns.NamedSharding(mesh, ns.P(*spec), memory_kind=kind)


_MESH = ["2d"]   # the mesh of the case running (programs build shardings on it)

#: name → (program, runs on integer / bfloat16 arguments too)
PROGRAMS = {
    "to_host": (lambda ns, x: host(ns, x), True),
    "host_mul": (lambda ns, x: host(ns, x) * 2, True),
    "host_plus_scalar": (lambda ns, x: host(ns, x) + 1, True),
    "roundtrip_add": (lambda ns, x: ns.device_put(host(ns, x), space(ns).Device) + x, True),
    "host_sum": (lambda ns, x: host(ns, x).sum(), True),
    "host_sum0": (lambda ns, x: host(ns, x).sum(0), True),
    "host_T": (lambda ns, x: host(ns, x).T, True),
    "host_neg_exp": (lambda ns, x: ns.exp(-host(ns, x).astype(np.float32)), True),
    "host_where": (lambda ns, x: ns.where(host(ns, x) > 0, host(ns, x), 0), True),
    "host_astype": (lambda ns, x: host(ns, x).astype(np.int32), True),
    "host_concat": (lambda ns, x: ns.concatenate([host(ns, x), host(ns, x)], axis=0), True),
    "host_reshard": (lambda ns, x: ns.reshard(host(ns, x), ns.P()), True),
    "named_host": (lambda ns, x: ns.device_put(x, sharding(ns, x)), True),
    "named_host_replicated": (lambda ns, x: ns.device_put(x, sharding(ns, x, spec=())), True),
    "named_device_of_host": (lambda ns, x: ns.device_put(host(ns, x), sharding(ns, x, "device")), True),
    "with_memory_kind": (lambda ns, x: ns.device_put(x, sharding(ns, x, "device").with_memory_kind("pinned_host")),
                         True),
    "host_dot": (lambda ns, x: ns.matmul(host(ns, x), host(ns, x).T.astype(x.dtype) if x.ndim > 1 else host(ns, x),
                                         out_sharding=ns.P()), True),
    "host_fori": (lambda ns, x: ns.lax.fori_loop(0, 2, lambda i, c: c * 2, host(ns, x)), True),
    "host_cond": (lambda ns, x: ns.lax.cond(True, lambda a: a + 1, lambda a: a - 1, host(ns, x)), True),
    "host_vmap": (lambda ns, x: ns.vmap(lambda r: r * 2 + 1)(host(ns, x)), True),
    "vmap_to_host": (lambda ns, x: ns.vmap(lambda r: host(ns, r))(x), True),
    "host_scatter": (lambda ns, x: host(ns, x).at[ns.array([0, 1])].set(0), True),
    "host_gather_error": (lambda ns, x: host(ns, x)[ns.array([0, 1])], True),
    "host_slice": (lambda ns, x: host(ns, x)[..., :1], True),
    "host_sort": (lambda ns, x: ns.sort(host(ns, x), axis=-1), True),
    "host_argmax": (lambda ns, x: ns.argmax(host(ns, x)), True),
    "host_zeros_like": (lambda ns, x: ns.zeros_like(host(ns, x)), True),
    "host_scan": (lambda ns, x: ns.lax.scan(lambda c, r: (c + r, r * 2), host(ns, x)[0] * 0, host(ns, x)), True),
    "host_smap": (lambda ns, x: ns.shard_map(lambda b: ns.note(b, "body") * 2,
                                             out_specs=ns.typeof(x).sharding.spec)(host(ns, x)), True),
    "mixed_error": (lambda ns, x: host(ns, x) + x, True),
    "const_array_error": (lambda ns, x: host(ns, x) + ns.ones(x.shape[-1], x.dtype), True),
    "grad": (lambda ns, x: ns.grad(lambda a: (host(ns, a) * 2).sum())(x), False),
    "grad_back_to_device": (lambda ns, x: ns.grad(lambda a: ns.device_put((host(ns, a) * ns.sin(host(ns, a))).sum(),
                                                                       space(ns).Device))(x), False),
}

#: the programs also compiled and run (and run eagerly), on the first argument of each mesh
RUN = ["to_host", "host_mul", "roundtrip_add", "host_sum0", "named_host", "named_host_replicated",
       "named_device_of_host", "mixed_error", "grad_back_to_device", "host_fori"]


def _program(name: str, mesh: str):
    fn, _ = PROGRAMS[name]

    def prog(ns, x):
        _MESH[0] = mesh
        return fn(ns, x)
    return prog


def _cases(mode: str) -> list[Case]:
    out = []
    for mesh, args in ARGS.items():
        for k, arg in enumerate(args):
            if mode != "trace" and k:
                continue
            for name, (fn, any_dtype) in PROGRAMS.items():
                if mode != "trace" and name not in RUN:
                    continue
                if not any_dtype and not arg.startswith("f32"):
                    continue
                out.append(Case(f"{name}-{mesh}-{arg}", mesh, _program(name, mesh), (arg,), mode=mode,
                                collectives=None))
    return out


@param(_cases("trace"))
def test_program_types_match_jax(case):
    check(case)


@param(_cases("jit"))
def test_program_values_match_jax_compiled(case):
    check(case)


@param(_cases("eager"))
def test_program_values_match_jax_eager(case):
    check(case)


# --- printed types ------------------------------------------------------------------------------------
TYPE_ROWS = [("1d", "f32", (8,), ("X",)), ("1d", "bf16", (4, 8), (None, "X")), ("1d", "bool", (16,), ()),
             ("2d", "f32", (8, 4), ("X", "Y")), ("2d", "i32", (8, 4), (("X", "Y"), None)),
             ("2d", "f32", (2, 8, 4), (None, "Y", "X")), ("2d", "bf16", (), ()),
             ("3d", "i32", (4, 4), (("Z", "X"), "Y")), ("3d", "f32", (8,), (("X", "Y", "Z"),))]


@pytest.mark.parametrize("row", TYPE_ROWS, ids=lambda r: f"{r[0]}-{r[1]}{list(r[2])}-{r[3]}")
@pytest.mark.parametrize("kind", ["pinned_host", "unpinned_host", "device"])
def test_placed_types_print_and_parse_as_jax(row, kind):
    """`device_put(data, NamedSharding(..., memory_kind=kind))`: the type, `memory_kind`, and the
    printed type read back by the parser (`<host>`), against JAX's."""
    mesh, dtype, shape, spec = row
    m, jm = mesh_pair(mesh)
    data = arg_data(f"{dtype}[{','.join(map(str, shape))}]", 0)
    j = jax.device_put(data, JNS(jm, jax.P(*spec), memory_kind=kind))
    s = sc.device_put(data, sc.NamedSharding(m, sc.P(*spec), memory_kind=kind))
    assert str(sc.typeof(s)) == str(jax.typeof(j))
    assert s.sharding.memory_kind == j.sharding.memory_kind == kind
    assert repr(s.sharding) == repr(j.sharding)
    np.testing.assert_array_equal(np.asarray(s), np.asarray(j))
    with sc.set_mesh(m):
        t = sc.typeof(s)
        assert sc.parse_type(str(t)) == t and sc.parse_type(t.str_short()) == t


def test_weak_and_scalar_host_types():
    assert str(sc.typeof(sc.device_put(1.0, sc.memory.Space.Host))) == \
        str(jax.typeof(jax.device_put(1.0, jax.memory.Space.Host))) == "~float32<host>[]"
    x = np.arange(8, dtype=np.int32)
    s, j = sc.device_put(x, sc.memory.Space.Host), jax.device_put(x, jax.memory.Space.Host)
    assert str(sc.typeof(s)) == str(jax.typeof(j)) == "int32<host>[8]"
    assert repr(s.sharding) == repr(j.sharding)   # SingleDeviceSharding(..., memory_kind=pinned_host)


def test_parser_reads_memory_spaces_and_underlines_unknown_ones(mesh24):
    t = sc.parse_type("~bf16<host>[8@X,4]{U:Y}")
    assert str(t) == "~bfloat16<host>[8@X,4]{U:Y}" and t.memory_space is sc.memory.Space.Host
    assert str(sc.parse_type("f32<any>[2]")) == "float32<any>[2]"
    with pytest.raises(sc.ShardcValueError, match="unknown memory space 'hots'") as e:
        sc.parse_type("f32<hots>[8]")
    assert "did you mean 'host'?" in str(e.value) and str(e.value).splitlines()[-1] == "    " + " " * 4 + "^^^^"
    with pytest.raises(sc.ShardcValueError, match="expected '>'"):
        sc.parse_type("f32<host[8]")


# --- runtime facts ---------------------------------------------------------------------------------
def _facts(ns, outs) -> list:
    """Each output's type, memory kind, values and shards (device, index, memory kind, data)."""
    out = []
    for o in jax.tree_util.tree_leaves(outs, is_leaf=lambda v: isinstance(v, sc.Array)):
        shards = sorted((s.device.id, str(s.index), s.data.sharding.memory_kind, str(ns.typeof(s.data)),
                         np.asarray(s.data).tobytes()) for s in o.addressable_shards)
        out.append((str(ns.typeof(o)), o.sharding.memory_kind, np.asarray(o).tobytes(), shards))
    return out


def _both(mesh: str, arg: str, run):
    """`run(ns, x)` on both sides (x placed as `arg`): the facts each reports, or its error."""
    m, jm = mesh_pair(mesh)
    t = parse_type(arg)
    data = arg_data(arg, 1)
    res = []
    for ns in (JAX, SC):
        try:
            with (jax.set_mesh(jm) if ns is JAX else sc.set_mesh(m)):
                x = (jax.device_put(data, JNS(jm, t.jax_pspec())) if ns is JAX
                     else sc.device_put(data, t.sc_pspec()))
                res.append(_facts(ns, run(ns, x)))
        except Exception as e:  # noqa: BLE001 - compared below
            res.append(e)
    return res


JIT_ROWS = {
    "out_shardings_host": lambda ns, x: ns.jit(lambda a: a * 2, out_shardings=sharding(ns, x))(x),
    "out_shardings_host_respec": lambda ns, x: ns.jit(lambda a: a + 1, out_shardings=sharding(ns, x, spec=()))(x),
    "in_shardings_host": lambda ns, x: ns.jit(lambda a: a * 2, in_shardings=sharding(ns, x))(host(ns, x)),
    "host_in_host_out": lambda ns, x: ns.jit(lambda a: a - 1)(host(ns, x)),
    "host_in_device_out": lambda ns, x: ns.jit(lambda a: ns.device_put(a, space(ns).Device) * 3)(host(ns, x)),
    "to_host_in_jit": lambda ns, x: ns.jit(lambda a: host(ns, a))(x),
    "two_results": lambda ns, x: ns.jit(lambda a: (host(ns, a), a * 2))(x),
    "eager_device_put_P_of_host": lambda ns, x: ns.device_put(host(ns, x), ns.P()),
    "eager_host_to_device": lambda ns, x: ns.device_put(host(ns, x), space(ns).Device),
    "unpinned_in_jit": lambda ns, x: ns.jit(lambda a: a * 2)(ns.device_put(x, sharding(ns, x, "unpinned_host"))),
    "unpinned": lambda ns, x: ns.device_put(x, sharding(ns, x, "unpinned_host")),
}


@pytest.mark.parametrize("mesh,arg", [("2d", "f32[8@X,4@Y]"), ("1d", "i32[16@X]")])
@pytest.mark.parametrize("row", list(JIT_ROWS))
def test_runtime_facts_match_jax(row, mesh, arg):
    _MESH[0] = mesh
    j, s = _both(mesh, arg, JIT_ROWS[row])
    assert not isinstance(j, Exception), j
    if isinstance(s, Exception):
        raise s
    assert s == j


# --- the lowered module -------------------------------------------------------------------------------
def _module_facts(text: str) -> tuple:
    """(memory kind of each argument, of each result, placements of annotate_device_placement)."""
    sig = re.search(r"func\.func public @main\((.*)\) -> \((.*)\) \{", text)
    split = lambda s: re.split(r", (?=%arg)", s) if s.startswith("%") else re.split(r"(?<=\}), (?=tensor)", s)
    kinds = lambda part: [(re.search(r'mhlo\.memory_kind = "(\w+)"', p) or [None, None])[1] for p in split(part)]
    places = re.findall(r'annotate_device_placement.*_xla_buffer_placement = "(\w+)"', text)
    return kinds(sig.group(1)), kinds(sig.group(2)), places


LOWER_ROWS = {
    "none": lambda ns: lambda a: a * 2,
    "to_host": lambda ns: lambda a: host(ns, a),
    "to_host_and_back": lambda ns: lambda a: ns.device_put(host(ns, a), space(ns).Device) + 1,
    "host_and_device_results": lambda ns: lambda a: (host(ns, a), a),
    "to_device": lambda ns: lambda a: ns.device_put(a, space(ns).Device),
}


@pytest.mark.parametrize("mesh", [None, "1d", "2d", "2d_auto"])
@pytest.mark.parametrize("row", list(LOWER_ROWS))
def test_lowered_memory_kinds_match_jax(row, mesh):
    """The memory kinds JAX writes into the module (and the placements XLA acts on) for a program
    over a concrete argument: on no mesh, Explicit 1-D/2-D meshes and an all-Auto mesh."""
    data = np.arange(16, dtype=np.float32).reshape(8, 2)
    if mesh is None:
        jt = jax.jit(LOWER_ROWS[row](JAX)).lower(jax.numpy.asarray(data)).as_text()
        st = sc.jit(LOWER_ROWS[row](SC)).lower(sc.asarray(data)).as_text()
    else:
        m, jm = mesh_pair(mesh)
        with jax.set_mesh(jm):
            jt = jax.jit(LOWER_ROWS[row](JAX)).lower(jax.device_put(data, jax.P("X"))).as_text()
        with sc.set_mesh(m):
            st = sc.jit(LOWER_ROWS[row](SC)).lower(sc.device_put(data, sc.P("X"))).as_text()
    assert _module_facts(st) == _module_facts(jt)


def test_host_program_runs_from_a_host_argument_without_a_mesh():
    x = np.arange(8, dtype=np.float32)
    j = jax.jit(lambda a: a * 2)(jax.device_put(x, jax.memory.Space.Host))
    s = sc.jit(lambda a: a * 2)(sc.device_put(x, sc.memory.Space.Host))
    assert (str(sc.typeof(s)), s.sharding.memory_kind) == (str(jax.typeof(j)), j.sharding.memory_kind)
    np.testing.assert_array_equal(np.asarray(s), np.asarray(j))


# --- errors -----------------------------------------------------------------------------------------
def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return e
    raise AssertionError("no error")


ERROR_ROWS = {
    "unknown_kind": (lambda ns, m, x: ns.NamedSharding(m, ns.P(), memory_kind="hbm"),
                     "Could not find memory addressable by device cpu. Device cpu can address the following "
                     "memory kinds: device, pinned_host, unpinned_host. Got memory kind: hbm"),
    "unknown_kind_with": (lambda ns, m, x: ns.NamedSharding(m, ns.P()).with_memory_kind("foo"),
                          "Could not find memory addressable by device cpu"),
    "string_placement": (lambda ns, m, x: ns.device_put(x, "pinned_host"),
                         "or a pytree of these values. Received invalid value: pinned_host"),
    "in_shardings_mismatch": (lambda ns, m, x: ns.jit(lambda a: a, in_shardings=ns.NamedSharding(
        m, ns.P("X"), memory_kind="pinned_host"))(x),
        "does not match memory kind on the respective arg. Got jit memory kind: pinned_host, arg memory "
        "kind: device for arg type: float32[8@X,4]"),
    "mixed_operands_in_jit": (lambda ns, m, x: ns.jit(lambda a: a * host(ns, a))(x),
                              "memory_space of all inputs passed to `mul` must be the same. Got one operand "
                              "with type: float32[8@X,4] and another operand with type: float32<host>[8@X,4]"),
    "space_any_eager": (lambda ns, m, x: ns.device_put(x, space(ns).Any), "unreachable"),
    "space_any_result": (lambda ns, m, x: ns.jit(lambda a: ns.device_put(a, space(ns).Any))(x), "unreachable"),
}


@pytest.mark.parametrize("row", list(ERROR_ROWS))
def test_errors_match_jax(row):
    fn, phrase = ERROR_ROWS[row]
    m, jm = mesh_pair("2d")
    data = np.ones((8, 4), np.float32)
    with jax.set_mesh(jm):
        je = _error(lambda: fn(JAX, jm, jax.device_put(data, jax.P("X"))))
    with sc.set_mesh(m):
        se = _error(lambda: fn(SC, m, sc.device_put(data, sc.P("X"))))
    assert isinstance(se, sc.ShardcError), se
    assert phrase in str(je), je
    assert phrase in str(se), se
    for kind in (ValueError, TypeError, AssertionError):
        assert isinstance(je, kind) == isinstance(se, kind), (je, se)


def test_space_any_type_inside_a_program_is_jax_s():
    m, jm = mesh_pair("1d")
    with jax.set_mesh(jm):
        jt = jax.jit(lambda a: jax.device_put(a, jax.memory.Space.Any) * 2).trace(
            jax.ShapeDtypeStruct((8,), np.float32, sharding=JNS(jm, jax.P("X")))).jaxpr.out_avals
    with sc.set_mesh(m):
        st = sc.jit(lambda a: sc.device_put(a, sc.memory.Space.Any) * 2).trace("f32[8@X]").out_types
    assert [str(t) for t in jax.tree_util.tree_leaves(st)] == [str(t) for t in jt] == ["float32<any>[8@X]"]


def test_jax_memory_space_members_are_accepted():
    """A port that keeps `jax.memory.Space.Host` (or mixes imports) gets the same placement."""
    x = sc.device_put(np.arange(8, dtype=np.float32), sc.memory.Space.Host)
    y = sc.device_put(np.arange(8, dtype=np.float32), jax.memory.Space.Host)
    assert str(sc.typeof(x)) == str(sc.typeof(y)) == "float32<host>[8]"
    assert SingleDeviceSharding is type(y.sharding)


# --- remat offloading ---------------------------------------------------------------------------------
def _offload_grad(ns, policy: str):
    cp = ns.checkpoint_policies
    pol = (cp.save_and_offload_only_these_names(names_which_can_be_saved=["b"], names_which_can_be_offloaded=["a"],
                                                offload_src="device", offload_dst="pinned_host")
           if policy == "names" else cp.offload_dot_with_no_batch_dims("device", "pinned_host"))
    name = jax.ad_checkpoint.checkpoint_name if ns is JAX else sc.ad_checkpoint.checkpoint_name

    def f(w, x):
        y = name(ns.sin(x @ w), "a")
        return (ns.sin(y) * name(ns.cos(y), "b")).sum()
    return ns.jit(ns.grad(ns.checkpoint(f, policy=pol), argnums=(0, 1)))


@pytest.mark.parametrize("policy", ["names", "dots"])
def test_offloading_remat_policies_match_jax(policy):
    """JAX runs the offloading policies on CPU (residuals go to pinned_host and come back):
    gradients, their types and the module's memory kinds agree."""
    m, jm = mesh_pair("2d")
    x, w = arg_data("f32[8,4]", 3), arg_data("f32[4,4]", 4)
    with jax.set_mesh(jm):
        g = _offload_grad(JAX, policy)
        args = (jax.device_put(w, jax.P()), jax.device_put(x, jax.P("X")))
        jt, jv = g.lower(*args).as_text(), g(*args)
    with sc.set_mesh(m):
        g = _offload_grad(SC, policy)
        args = (sc.device_put(w, sc.P()), sc.device_put(x, sc.P("X")))
        st, sv = g.lower(*args).as_text(), g(*args)
        assert "device_put[space=Host]" in str(g.trace(*args))   # the residual is kept in host memory
    assert _module_facts(st) == _module_facts(jt)
    for a, b in zip(jv, sv):
        assert str(sc.typeof(b)) == str(jax.typeof(a))
        np.testing.assert_allclose(np.asarray(b), np.asarray(a), rtol=2e-5, atol=2e-5)


def test_offload_policy_names_must_be_exclusive():
    kw = dict(names_which_can_be_saved=["a"], names_which_can_be_offloaded=["a"], offload_src="device",
              offload_dst="pinned_host")
    je = _error(lambda: jax.checkpoint_policies.save_and_offload_only_these_names(**kw))
    se = _error(lambda: sc.checkpoint_policies.save_and_offload_only_these_names(**kw))
    assert isinstance(je, ValueError) and isinstance(se, sc.ShardcValueError)
    assert str(se).endswith(str(je))


def test_shape_dtype_struct_with_a_memory_kind_traces_as_jax():
    m, jm = mesh_pair("2d")
    with jax.set_mesh(jm):
        s = jax.ShapeDtypeStruct((8, 4), np.float32, sharding=JNS(jm, jax.P("X"), memory_kind="pinned_host"))
        jt = jax.jit(lambda a: a * 2).trace(s).jaxpr.out_avals
    with sc.set_mesh(m):
        s = sc.ShapeDtypeStruct((8, 4), np.float32, sharding=sc.NamedSharding(m, sc.P("X"), memory_kind="pinned_host"))
        st = jax.tree_util.tree_leaves(sc.jit(lambda a: a * 2).trace(s).out_types)
    assert [str(t) for t in st] == [str(t) for t in jt] == ["float32<host>[8@X,4]"]


@pytest.mark.parametrize("dtype", ["f32", "i32", "bf16"])
def test_single_device_sharding_memory_kinds_as_jax(dtype):
    """`SingleDeviceSharding(device, memory_kind=...)` with no mesh: placement, an op on the
    host value (its result stays on the host, on that device) and the move back."""
    data = arg_data(f"{dtype}[8]", 5)
    dev = jax.devices()[3]

    def run(ns):
        y = ns.device_put(data, SingleDeviceSharding(dev, memory_kind="pinned_host"))
        z = y * 2
        w = ns.device_put(z, SingleDeviceSharding(dev))
        return [(str(ns.typeof(a)), repr(a.sharding), np.asarray(a).tobytes()) for a in (y, z, w)]
    assert run(SC) == run(JAX)


@pytest.mark.parametrize("mesh", ["1d", "2d", "2d_auto"])
def test_out_shardings_memory_kind_lowered_and_run_as_jax(mesh):
    """`jit(out_shardings=NamedSharding(..., memory_kind='pinned_host'))`: the module's memory
    kinds and placement (an out sharding's memory is annotated on an all-Auto mesh too), the
    result's type, memory kind and value."""
    data = np.arange(16, dtype=np.float32).reshape(8, 2)
    m, jm = mesh_pair(mesh)
    res = []
    for ns, mm in ((JAX, jm), (SC, m)):
        with (jax.set_mesh(mm) if ns is JAX else sc.set_mesh(mm)):
            x = ns.device_put(data, ns.P("X"))
            f = ns.jit(lambda a: a * 2, out_shardings=ns.NamedSharding(mm, ns.P("X"), memory_kind="pinned_host"))
            r = f(x)
            res.append((_module_facts(f.lower(x).as_text()), str(ns.typeof(r)), r.sharding.memory_kind,
                        np.asarray(r).tobytes()))
    assert res[1] == res[0]
