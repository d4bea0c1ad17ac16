"""JAX's configuration flags as context managers and decorators (`with jax.enable_x64(False):`),
against JAX 0.10.2's own: every one JAX has is here under its name; a value shardc can honour is
set inside the block (as `sc.config.<flag>` and `.value` read it) and restored after, also when
the block raises; a value JAX does not know gets JAX's ValueError; a value shardc cannot honour is
refused with ShardcNotImplementedError when the context manager is made, never accepted and ignored."""
from __future__ import annotations

import enum

import jax
import pytest

import shardc as sc

#: name -> (values shardc honours besides JAX's default, values it refuses)
TABLE: dict[str, tuple[list, list]] = {
    "allow_f16_reductions": ([], [False]),
    "array_garbage_collection_guard": (["allow", "log", "fatal"], []),
    "auto_pcast": ([], [False]),
    "check_tracer_leaks": ([True], []),
    "debug_infs": ([True], []),
    "debug_key_reuse": ([], [True]),
    "debug_nans": ([True], []),
    "default_device": ([], ["cpu"]),
    "default_matmul_precision": ([], ["highest", "float32", "bfloat16"]),
    "default_prng_impl": (["rbg", "unsafe_rbg"], ["threefry4x32", "philox4x32"]),
    "enable_checks": ([True], []),
    "enable_custom_prng": ([], [True]),
    "enable_x64": ([], [True, 1]),
    "explain_cache_misses": ([], [True]),
    "jax2tf_associative_scan_reductions": ([True], []),
    "legacy_prng_key": ([], ["warn", "error"]),
    "log_compiles": ([], [True]),
    "no_execution": ([], [True]),
    "no_tracing": ([], [True]),
    "numpy_dtype_promotion": (["strict"], []),
    "numpy_rank_promotion": (["warn", "raise"], []),
    "remove_size_one_mesh_axis_from_type": ([], [True]),
    "softmax_custom_jvp": ([], [True]),
    "thread_guard": ([], [True]),
    "threefry_partitionable": ([], [False]),
    "transfer_guard_device_to_device": (["allow"], ["log", "disallow", "log_explicit", "disallow_explicit"]),
    "transfer_guard_device_to_host": (["allow"], ["log", "disallow", "log_explicit", "disallow_explicit"]),
    "transfer_guard_host_to_device": (["allow"], ["log", "disallow", "log_explicit", "disallow_explicit"]),
}
#: values JAX's parser rejects (ValueError) for the enum-valued flags
BAD = {"numpy_rank_promotion": "sometimes", "numpy_dtype_promotion": "loose", "default_prng_impl": "mt19937",
       "default_matmul_precision": "fastest", "legacy_prng_key": "maybe", "array_garbage_collection_guard": "x",
       "transfer_guard_host_to_device": "deny", "transfer_guard_device_to_host": "deny",
       "transfer_guard_device_to_device": "deny"}


def _plain(v):
    return v.value if isinstance(v, enum.Enum) else v


def _jax_default(name: str):
    return _plain(getattr(jax, name).value)


def test_every_jax_flag_context_manager_is_here():
    """The table covers every flag-State in `dir(jax)` (so a new JAX flag fails here), plus the two functions."""
    states = {n for n in dir(jax) if type(getattr(jax, n)).__name__ == "State"}
    assert states == set(TABLE)
    for n in [*TABLE, "transfer_guard", "checking_leaks"]:
        assert callable(getattr(sc, n)) and n in sc.__all__


@pytest.mark.parametrize("name", sorted(TABLE))
def test_default_value_and_name_as_jax(name):
    cm = getattr(sc, name)
    assert cm.value == _jax_default(name)
    assert cm.name == getattr(jax, name).name and cm.__name__ == getattr(jax, name).__name__
    assert sc.config.read(cm.name) == _jax_default(name)
    with getattr(sc, name)(_jax_default(name)):       # JAX's default is always accepted
        assert cm.value == _jax_default(name)
    with pytest.raises(TypeError, match="bool\\(\\) not supported"):
        bool(cm)
    with pytest.raises(TypeError, match="bool\\(\\) not supported"):
        bool(getattr(jax, name))


@pytest.mark.parametrize("name,value", [(n, v) for n, (ok, _) in sorted(TABLE.items()) for v in ok])
def test_honoured_value_inside_restored_after_and_on_exception(name, value):
    cm = getattr(sc, name)
    before = cm.value
    with getattr(jax, name)(value):     # what JAX reads inside its own block
        theirs = _plain(getattr(jax, name).value)
    with cm(value):
        assert cm.value == theirs == sc.config.read(cm.name)
    assert cm.value == before
    with pytest.raises(ZeroDivisionError):
        with cm(value):
            assert cm.value == theirs
            1 / 0
    assert cm.value == before

    @cm(value)
    def decorated():
        return cm.value
    assert decorated() == theirs and cm.value == before


@pytest.mark.parametrize("name,value", [(n, v) for n, (_, bad) in sorted(TABLE.items()) for v in bad])
def test_unsupported_value_refused_when_made(name, value):
    cm = getattr(sc, name)
    before = cm.value
    with getattr(jax, name)(value):     # JAX takes it: shardc must not silently ignore it
        pass
    with pytest.raises(sc.ShardcNotImplementedError, match="is not supported: ") as e:
        cm(value)
    assert isinstance(e.value, NotImplementedError) and cm.name in str(e.value)
    assert cm.value == before
    with pytest.raises(NotImplementedError):     # sc.config.update goes through the same table
        sc.config.update(cm.name, _plain(getattr(jax, name)(value).new_val))


@pytest.mark.parametrize("name", sorted(BAD))
def test_value_jax_does_not_know_is_jaxs_value_error(name):
    with pytest.raises(ValueError) as theirs:
        getattr(jax, name)(BAD[name])
    with pytest.raises(sc.ShardcValueError) as ours:
        getattr(sc, name)(BAD[name])
    assert isinstance(ours.value, ValueError) and str(theirs.value) in str(ours.value)


@pytest.mark.parametrize("name", ["numpy_rank_promotion", "default_device", "transfer_guard_host_to_device"])
def test_value_required_where_jax_requires_one(name):
    with pytest.raises(TypeError, match="requires an argument") as theirs:
        getattr(jax, name)()
    with pytest.raises(TypeError) as ours:
        getattr(sc, name)()
    assert str(ours.value).endswith(str(theirs.value))


def test_boolean_flags_default_to_true_when_called_bare():
    """`with jax.enable_x64():` means True, as JAX: refused here, not read as False."""
    with pytest.raises(sc.ShardcNotImplementedError, match="32-bit"):
        sc.enable_x64()
    with sc.enable_checks():
        assert sc.enable_checks.value is True
    assert sc.enable_checks.value is False
    with sc.checking_leaks():   # (shardc finds a leaked tracer where it is used)
        assert sc.check_tracer_leaks.value is True


def test_garbage_collection_guard_acts_on_jaxs_guard():
    """shardc's arrays are jaxlib arrays: the guard is JAX's own, set inside and restored after."""
    assert jax.config.jax_array_garbage_collection_guard is None
    with sc.array_garbage_collection_guard("log"):
        assert jax.config.jax_array_garbage_collection_guard == "log"
        with sc.array_garbage_collection_guard("allow"):
            assert jax.config.jax_array_garbage_collection_guard == "allow"
        assert jax.config.jax_array_garbage_collection_guard == "log"
    assert jax.config.jax_array_garbage_collection_guard is None


def test_transfer_guard_sets_all_three():
    with sc.transfer_guard("allow"):
        assert [getattr(sc, f"transfer_guard_{k}").value for k in ("host_to_device", "device_to_host",
                                                                    "device_to_device")] == ["allow"] * 3
    assert sc.transfer_guard_host_to_device.value is None
    with pytest.raises(sc.ShardcNotImplementedError, match="implicit transfers"):
        with sc.transfer_guard("disallow"):
            pass
    assert sc.transfer_guard_host_to_device.value is None and sc.transfer_guard_device_to_host.value is None
    with pytest.raises(ValueError):
        with jax.transfer_guard("deny"):
            pass
    with pytest.raises(sc.ShardcValueError, match="new enum value must be None or in"):
        with sc.transfer_guard("deny"):
            pass


def test_disable_jit_state_is_restored_on_exception(mesh24):
    """An acted-on flag (jax_disable_jit, through sc.config) is restored when the block raises."""
    seen = []
    f = sc.jit(lambda x: seen.append(1) or x * 2.0)
    a = sc.device_put(jax.numpy.ones((8, 4)).__array__(), sc.P("X", "Y"))
    with pytest.raises(RuntimeError):
        with sc.disable_jit():
            f(a)
            raise RuntimeError("inside")
    f(a)
    f(a)
    assert len(seen) == 2       # once op by op, then traced once: jit is back on


def test_every_flag_shardc_knows_is_a_jax_option_with_jaxs_default():
    """sc.config's table names only JAX options, each with JAX's default value (so accepting the
    default never changes what a ported program means)."""
    import sys
    flags = sys.modules["shardc.config"]._FLAGS
    for name, flag in flags.items():
        if name in ("jax_num_cpu_devices", "jax_platforms", "jax_platform_name", "jax_compilation_cache_dir",
                    "jax_enable_compilation_cache", "jax_persistent_cache_min_compile_time_secs",
                    "jax_persistent_cache_min_entry_size_bytes"):
            continue        # set by the test process itself (conftest's 8 CPU devices, the cache), or legacy
        assert _plain(getattr(jax.config, name)) == flag.default, name


#: programs with a NaN / infinity: (flag, function of (top-level module, numpy), the primitive JAX names)
SPECIAL = {
    "nan-log": ("debug_nans", lambda T, N: T.jit(lambda x: N.log(x) * 0)(N.asarray(-1.0)), "log"),
    "nan-eager": ("debug_nans", lambda T, N: N.sqrt(N.asarray(-2.0)), "sqrt"),
    "nan-grad": ("debug_nans", lambda T, N: T.jit(T.grad(lambda x: N.sqrt(x) * 0))(N.asarray(-4.0)), "sqrt"),
    "inf-div": ("debug_infs", lambda T, N: T.jit(lambda x: 1.0 / x)(N.zeros(3)), "div"),
    "inf-exp": ("debug_infs", lambda T, N: N.exp(N.asarray(1000.0)), "exp"),
}


@pytest.mark.parametrize("name", sorted(SPECIAL))
def test_debug_nans_and_infs_name_the_operation_as_jax(name, capsys):
    """Under jax_debug_nans / jax_debug_infs a NaN / infinity in a result is JAX's FloatingPointError
    naming the operation that made it (a program is run again op by op to find it); off, none."""
    flag, fn, prim = SPECIAL[name]
    for top, N in ((jax, jax.numpy), (sc, sc.numpy)):
        fn(top, N)   # off: a value, no error
        with getattr(top, flag)(True):
            with pytest.raises(FloatingPointError, match=rf"invalid value \((nan|inf)\) encountered in {prim}"):
                fn(top, N)
        fn(top, N)
    capsys.readouterr()


def test_debug_nans_leaves_clean_programs_and_their_steady_state_alone():
    f = sc.jit(lambda x: x * 2)
    x = sc.numpy.ones(4)
    with sc.debug_nans(True):
        for _ in range(3):
            assert float(f(x).sum()) == 8.0
    assert float(f(x).sum()) == 8.0
