"""Multi-process execution on one machine, inside a rank: `jax.distributed` on
loopback with gloo CPU collectives, set up to fail fast (the launcher that
starts K ranks is `runtime/launcher.py`; `launch` is re-exported here).

    import shardc as sc
    sc.distributed.initialize()            # in a worker started by `launch`: reads SHARDC_DIST_*
    mesh = sc.make_mesh((2, 4), ("X", "Y"))   # global devices, ordered by process
    x = sc.make_array_from_process_local_data(sc.NamedSharding(mesh, sc.P("X")), my_rows, (8, 4))

    res = sc.distributed.launch("train.py", num_processes=2, devices_per_process=4)
    res.check()                            # raises ShardcError naming the rank that failed

Every process must trace, compile and run the same programs in the same order.
An array's value is spread over processes: each holds only its addressable
shards (`a.addressable_shards`); `np.asarray(a)` works only when every shard is
local (reshard to replicated first, or use `gather`).

Failure behaviour (see the reference notes): an uncaught exception in a rank
would run JAX's atexit shutdown barrier and stall every rank until the
shutdown timeout, so `initialize` installs an excepthook that prints the
traceback and leaves at once with `os._exit(1)`; the launcher then stops the
other ranks. Heartbeat, shutdown and init timeouts are small, and gloo
collectives time out after `collective_timeout` seconds (an XLA flag that must
be in the environment before the CPU backend starts).
"""
from __future__ import annotations

import os
import sys
import time
import traceback
from dataclasses import dataclass
from typing import Sequence

import jax
import numpy as np
from jax._src import distributed as jd
from jax._src import xla_bridge

from ..core import bind
from ..errors import ShardcError, ShardcRuntimeError, ShardcValueError, user_location
from ..primitives.sharding_ops import reshard as reshard_p
from ..sharding import NamedSharding, PartitionSpec
from ..types import type_from_spec
from .jaxbridge import jax_sharding
from .launcher import (
    CULPRIT_MARKER,
    DEFAULT_COLLECTIVE_TIMEOUT,
    DEFAULT_HEARTBEAT_TIMEOUT,
    DEFAULT_INIT_TIMEOUT,
    DEFAULT_SHUTDOWN_TIMEOUT,
    ENV_COLLECTIVE_TIMEOUT,
    ENV_COORDINATOR,
    ENV_LAUNCHED_AT,
    ENV_LOCAL_DEVICES,
    ENV_NUM_PROCESSES,
    ENV_PROCESS_ID,
    ENV_TOKEN,
    LaunchResult,
    RankResult,
    _first_line,
    free_port,
    launch,
)

_LOOPBACK = ("127.0.0.1", "localhost")
_TOKEN_KEY = "shardc/job_token"


__all__ = ["initialize", "is_initialized", "init_seconds", "seconds_since_launch", "process_index",
           "process_count", "shutdown", "barrier", "allgather_str", "agree", "agree_timeout", "process_local_indices",
           "process_local_data", "gather", "launch", "free_port", "LaunchResult", "RankResult"]


@dataclass
class _State:
    initialized: bool = False
    coordinator: str | None = None
    num_processes: int = 1
    process_id: int = 0
    local_device_count: int | None = None
    token: str | None = None
    init_seconds: float = 0.0       # jax.distributed.initialize + the job-token check


_state = _State()


# --- set-up in a process ---------------------------------------------------------------------------
def _loopback_address(address: str) -> str:
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        raise ShardcValueError(f"coordinator_address must be 'HOST:PORT', got {address!r}")
    host = host.strip("[]")
    if host not in _LOOPBACK:
        raise ShardcValueError(
            f"coordinator_address {address!r} is not on loopback: shardc runs several processes on "
            f"one machine only; use 127.0.0.1:PORT")
    return f"127.0.0.1:{int(port)}"


def _set_collective_timeout(seconds: int) -> None:
    """Put `--xla_cpu_collective_timeout_seconds` into XLA_FLAGS (read when the CPU
    backend starts; has no effect afterwards)."""
    flags = os.environ.get("XLA_FLAGS", "")
    if "xla_cpu_collective_timeout_seconds" in flags:
        return
    os.environ["XLA_FLAGS"] = (flags + f" --xla_cpu_collective_timeout_seconds={int(seconds)}").strip()


def _pin_gloo_to_loopback() -> None:
    """Make gloo listen on the loopback interface (it otherwise uses the address of
    `gethostname()`). Wraps a private jax hook; skipped if jax changed it."""
    try:
        orig = xla_bridge._jax.make_gloo_tcp_collectives
    except AttributeError:
        return
    if getattr(orig, "_shardc_loopback", False):
        return

    def make(distributed_client, hostname=None, interface=None):
        return orig(distributed_client=distributed_client, hostname=hostname,
                    interface=interface or "lo")

    make._shardc_loopback = True
    try:
        xla_bridge._jax.make_gloo_tcp_collectives = make
    except (AttributeError, TypeError):
        pass


def _env_int(name: str) -> int | None:
    v = os.environ.get(name)
    return int(v) if v not in (None, "") else None


def _die_on_uncaught(exc_type, exc, tb) -> None:
    """Excepthook of a distributed process: print, then exit without running the
    atexit shutdown barrier (which would hold every rank until its timeout)."""
    try:
        sys.stderr.write(f"shardc: rank {_state.process_id} of {_state.num_processes} failed:\n")
        traceback.print_exception(exc_type, exc, tb)
        sys.stderr.flush()
        sys.stdout.flush()
    finally:
        os._exit(1)


def initialize(coordinator_address: str | None = None, num_processes: int | None = None,
               process_id: int | None = None, local_device_count: int | None = None, *,
               job_token: str | None = None, heartbeat_timeout: int = DEFAULT_HEARTBEAT_TIMEOUT,
               shutdown_timeout: int = DEFAULT_SHUTDOWN_TIMEOUT,
               init_timeout: int = DEFAULT_INIT_TIMEOUT,
               collective_timeout: int | None = None, fail_fast: bool = True) -> None:
    """Join a multi-process job on this machine (call before creating any array).

    Arguments left out come from the launcher's environment (`SHARDC_DIST_*`);
    `local_device_count` CPU devices are this process's (default: the
    `SHARDC_CPU_DEVICES` setting, else 1). Binds the coordinator to 127.0.0.1
    only, with small heartbeat/shutdown/init timeouts, a gloo collective
    timeout, and a check through the coordinator's key-value store that every
    rank belongs to the same job (two jobs on one port fail cleanly instead of
    mixing). With `fail_fast`, an uncaught exception ends the process at once
    (exit code 1) instead of stalling all ranks in JAX's shutdown barrier.

    Calling it again with the same settings does nothing.
    """
    cfg = _settings(coordinator_address, num_processes, process_id, local_device_count, job_token,
                    collective_timeout)
    if _state.initialized:
        if (_state.coordinator, _state.num_processes, _state.process_id, _state.local_device_count) == (
                cfg.coordinator, cfg.num_processes, cfg.process_id, cfg.local_device_count):
            return
        raise ShardcValueError(
            f"sc.distributed is already initialized as process {_state.process_id} of "
            f"{_state.num_processes} (coordinator {_state.coordinator}); it cannot be re-initialized "
            f"with other settings")
    _configure_cpu_runtime(cfg, fail_fast)
    _state.process_id, _state.num_processes = cfg.process_id, cfg.num_processes
    t0 = time.perf_counter()
    try:
        jax.distributed.initialize(
            coordinator_address=cfg.coordinator, num_processes=cfg.num_processes, process_id=cfg.process_id,
            local_device_ids=list(range(cfg.local_device_count)), coordinator_bind_address=cfg.coordinator,
            initialization_timeout=int(init_timeout), heartbeat_timeout_seconds=int(heartbeat_timeout),
            shutdown_timeout_seconds=int(shutdown_timeout))
    except Exception as e:  # noqa: BLE001  (jax's errors: port in use, no coordinator, ...)
        raise ShardcError(f"rank {cfg.process_id}: jax.distributed.initialize on {cfg.coordinator} failed: "
                          f"{_first_line(e)}") from None
    _state.initialized = True
    _state.coordinator, _state.local_device_count, _state.token = (cfg.coordinator, cfg.local_device_count,
                                                                   cfg.job_token)
    if cfg.job_token and cfg.num_processes > 1:
        _check_token(cfg.job_token, cfg.process_id, cfg.num_processes, int(init_timeout))
    _state.init_seconds = time.perf_counter() - t0


@dataclass(frozen=True)
class _Settings:
    """A rank's validated settings (arguments, else the launcher's environment)."""

    coordinator: str
    num_processes: int
    process_id: int
    local_device_count: int
    job_token: str | None
    collective_timeout: int


def _settings(coordinator_address, num_processes, process_id, local_device_count, job_token,
              collective_timeout) -> _Settings:
    coordinator_address = coordinator_address or os.environ.get(ENV_COORDINATOR)
    num_processes = num_processes if num_processes is not None else _env_int(ENV_NUM_PROCESSES)
    process_id = process_id if process_id is not None else _env_int(ENV_PROCESS_ID)
    if local_device_count is None:
        local_device_count = _env_int(ENV_LOCAL_DEVICES) or _env_int("SHARDC_CPU_DEVICES") or 1
    job_token = job_token or os.environ.get(ENV_TOKEN)
    if collective_timeout is None:
        collective_timeout = _env_int(ENV_COLLECTIVE_TIMEOUT) or DEFAULT_COLLECTIVE_TIMEOUT
    missing = [n for n, v in (("coordinator_address", coordinator_address),
                              ("num_processes", num_processes), ("process_id", process_id)) if v is None]
    if missing:
        raise ShardcValueError(
            f"sc.distributed.initialize needs {', '.join(missing)} (pass them, or start the processes "
            f"with sc.distributed.launch / `shardc run --processes K`, which set {ENV_COORDINATOR}, "
            f"{ENV_NUM_PROCESSES} and {ENV_PROCESS_ID})")
    coord = _loopback_address(coordinator_address)
    num_processes, process_id, local_device_count = int(num_processes), int(process_id), int(local_device_count)
    if num_processes < 1 or not 0 <= process_id < num_processes:
        raise ShardcValueError(f"process_id must be in [0, {num_processes}), got {process_id}")
    if local_device_count < 1:
        raise ShardcValueError(f"local_device_count must be at least 1, got {local_device_count}")
    return _Settings(coord, num_processes, process_id, local_device_count, job_token, int(collective_timeout))


def _configure_cpu_runtime(cfg: _Settings, fail_fast: bool) -> None:
    """CPU devices, gloo collectives on loopback and their timeout, before the runtime starts."""
    if xla_bridge.backends_are_initialized():
        raise ShardcValueError(
            "sc.distributed.initialize must run before any array is created or any device is "
            "queried (the runtime has already started)")
    _set_collective_timeout(cfg.collective_timeout)
    for k in [k for k in os.environ if k.lower().endswith("_proxy")]:
        del os.environ[k]   # jax warns that proxies can hang initialisation; loopback needs none
    jax.config.update("jax_platforms", "cpu")
    jax.config.update("jax_num_cpu_devices", cfg.local_device_count)
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    _pin_gloo_to_loopback()
    if fail_fast:
        sys.excepthook = _die_on_uncaught


def _check_token(token: str, rank: int, n: int, timeout_s: int) -> None:
    """Every rank publishes its job token and compares it with rank 0's (rank 0
    compares everyone's), so ranks of two jobs sharing a port notice at once."""
    client = _client()
    ms = max(1, timeout_s) * 1000
    try:
        client.key_value_set(f"{_TOKEN_KEY}/{rank}", token)
        if rank == 0:
            others = {r: client.blocking_key_value_get(f"{_TOKEN_KEY}/{r}", ms) for r in range(1, n)}
            bad = [r for r, t in others.items() if t != token]
        else:
            bad = [0] if client.blocking_key_value_get(f"{_TOKEN_KEY}/0", ms) != token else []
        if not bad:   # nobody leaves (and takes the coordinator down) before everyone has checked
            client.wait_at_barrier(f"{_TOKEN_KEY}/checked", ms)
    except Exception as e:  # noqa: BLE001
        why = _first_line(e)
        if "ALREADY_EXISTS" in why:
            why = (f"another process already registered as rank {rank} at {_state.coordinator} "
                   f"(two jobs on one port?); start each job on its own port")
        raise ShardcError(f"rank {rank}: the job-token check through the coordinator failed: {why}") from None
    if bad:
        raise ShardcError(
            f"rank {rank}: rank(s) {', '.join(map(str, bad))} at coordinator {_state.coordinator} belong to "
            f"another job (two jobs on one port?); start each job on its own port")


def _client():
    if jd.global_state.client is None:
        raise ShardcError("sc.distributed is not initialized")
    return jd.global_state.client


def is_initialized() -> bool:
    return _state.initialized


def init_seconds() -> float:
    """How long joining the job took in this process (0 when not distributed)."""
    return _state.init_seconds


def seconds_since_launch() -> float | None:
    """Wall time since the launcher started this job (None outside `launch`)."""
    v = os.environ.get(ENV_LAUNCHED_AT)
    try:
        return time.time() - float(v) if v else None
    except ValueError:
        return None


def process_index() -> int:
    """This process's rank (0 when not distributed)."""
    if not _state.initialized:
        return 0
    return jax.process_index()


def process_count() -> int:
    """How many processes take part (1 when not distributed)."""
    if not _state.initialized:
        return 1
    return jax.process_count()


def shutdown() -> None:
    """Leave the job cleanly (every rank must call it; the shutdown barrier waits
    for all of them)."""
    if not _state.initialized:
        return
    jax.distributed.shutdown()
    _state.initialized = False


def barrier(name: str, timeout_s: float = 60) -> None:
    """Wait until every rank reaches the barrier `name` (names must be unique per use)."""
    if process_count() == 1:
        return
    _client().wait_at_barrier(f"shardc/{name}", int(timeout_s * 1000))


def allgather_str(name: str, value: str, timeout_s: float = 60) -> list[str]:
    """Every rank's `value` for key `name`, in rank order (through the coordinator's
    key-value store; `name` must be unique per use)."""
    if process_count() == 1:
        return [value]
    c = _client()
    rank, n = process_index(), process_count()
    c.key_value_set(f"shardc/gather/{name}/{rank}", value)
    return [c.blocking_key_value_get(f"shardc/gather/{name}/{r}", int(timeout_s * 1000)) for r in range(n)]


#: how long ranks wait for each other at an agreement point (seconds; SHARDC_DIST_AGREE_TIMEOUT):
#: long enough for a rank slowed down on a busy machine, short enough that a hung one ends the
#: job within 15 s
AGREE_TIMEOUT = 12.0


def agree_timeout() -> float:
    try:
        return float(os.environ.get("SHARDC_DIST_AGREE_TIMEOUT", "") or AGREE_TIMEOUT)
    except ValueError:
        return AGREE_TIMEOUT


def agree(name: str, value: str, timeout_s: float = AGREE_TIMEOUT) -> tuple[list[str | None], list[int]]:
    """Every rank's `value` for `name` (unique per use, same order on every rank), waiting at
    most `timeout_s` seconds in all for the others: (values in rank order, None for a rank
    that did not answer; the ranks that did not answer). A rank that hangs or died is named
    instead of holding the job until a collective times out."""
    if process_count() == 1:
        return [value], []
    c = _client()
    rank, n = process_index(), process_count()
    c.key_value_set(f"shardc/agree/{name}/{rank}", value)
    deadline = time.monotonic() + timeout_s
    values: list[str | None] = []
    missing: list[int] = []
    for r in range(n):
        left_ms = max(1, int((deadline - time.monotonic()) * 1000))
        try:
            values.append(c.blocking_key_value_get(f"shardc/agree/{name}/{r}", left_ms))
        except Exception:  # noqa: BLE001  (a timeout, or the coordinator went away with rank 0)
            values.append(None)
            missing.append(r)
    _all_have_read(c, name, rank, n, missing, deadline)
    return values, missing


def _all_have_read(c, name: str, rank: int, n: int, missing: list[int], deadline: float) -> None:
    """The coordination service lives in rank 0's process: when an agreement ends the job on
    every rank (a failure on some ranks), rank 0 must not exit, taking the service down, before
    the others have read every value, or they would report each other as missing."""
    if rank != 0:
        c.key_value_set(f"shardc/agree/{name}/read/{rank}", "1")
        return
    for r in range(1, n):
        if r in missing:
            continue
        try:
            c.blocking_key_value_get(f"shardc/agree/{name}/read/{r}",
                                     max(1, int((deadline - time.monotonic()) * 1000)))
        except Exception:  # noqa: BLE001  (that rank died after answering: nothing to wait for)
            pass


_programs_agreed = [0]


def agree_on_program(fingerprint: str) -> None:
    """Before the first run of a program over several processes' devices: every rank must be
    about to run the same program (the n-th such program of each rank), else its collectives
    would pair with another program's and compute wrong numbers. A rank that runs another
    program, or does not arrive within SHARDC_DIST_AGREE_TIMEOUT seconds (12), is named."""
    if process_count() == 1:
        return
    k = _programs_agreed[0]
    _programs_agreed[0] += 1
    t = agree_timeout()
    values, missing = agree(f"program/{k}", fingerprint, timeout_s=t)
    me = process_index()
    if missing:
        sys.stderr.write(f"{CULPRIT_MARKER}{missing[0]}\n")
        raise ShardcRuntimeError(
            f"rank {me}: rank(s) {', '.join(map(str, missing))} did not reach this program (run #{k + 1} over "
            f"several processes) within {t:g} s: hung, died, or failed before it; not running it",
            loc=user_location())
    odd = [r for r, v in enumerate(values) if v != values[0]]
    if odd:
        sys.stderr.write(f"{CULPRIT_MARKER}{odd[0]}\n")
        raise ShardcRuntimeError(
            f"rank {me}: rank(s) {', '.join(map(str, odd))} are about to run another program than rank 0 (run "
            f"#{k + 1} over several processes): every rank must run the same programs in the same "
            "order (a program that failed or was skipped on some ranks only?); not running it",
            loc=user_location())


# --- data on several processes --------------------------------------------------------------------
def process_local_indices(sharding, global_shape: Sequence[int]):
    """Per dimension, the global indices this process's devices hold (sorted), in
    the layout `make_array_from_process_local_data` expects."""

    shape = tuple(int(s) for s in global_shape)
    js = sharding
    if isinstance(sharding, NamedSharding):
        js = jax_sharding(sharding.mesh, type_from_spec(shape, np.float32, sharding.spec,
                                                        sharding.mesh.abstract_mesh))
    idx_map = js.addressable_devices_indices_map(shape)
    out = []
    for d, size in enumerate(shape):
        covered: set[int] = set()
        for index in idx_map.values():
            s = index[d]
            covered.update(range(*s.indices(size)))
        out.append(np.array(sorted(covered), dtype=np.int64))
    return out


def process_local_data(sharding, global_data):
    """This process's slice of `global_data` for `sharding` (what it would feed
    to `sc.make_array_from_process_local_data` with the global shape)."""
    a = np.asarray(global_data)
    if a.ndim == 0:
        return a
    idx = process_local_indices(sharding, a.shape)
    return a[np.ix_(*idx)]


def gather(a):
    """The full value of an `sc.Array` as NumPy on every process (resharding it to
    replicated inside a compiled program when some shards live elsewhere).
    Every process must call it, in the same order."""
    j = a.to_jax() if hasattr(a, "to_jax") else a
    if getattr(j, "is_fully_addressable", True) and not getattr(getattr(a, "aval", None), "unreduced", None):
        return np.asarray(a)
    t = a.aval
    full = bind(reshard_p, a, spec=PartitionSpec(*([None] * len(t.shape)), reduced=t.reduced), mesh=t.mesh)
    return np.asarray(full.to_jax().addressable_shards[0].data)
