"""Multi-process execution on one machine: `jax.distributed` on loopback with
gloo CPU collectives, set up to fail fast, and a launcher for K processes.

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
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
import traceback
from dataclasses import dataclass
from typing import Callable, Sequence

from ..errors import ShardcError, ShardcValueError

# environment the launcher passes to its workers (and `initialize()` reads)
ENV_COORDINATOR = "SHARDC_DIST_COORDINATOR"
ENV_NUM_PROCESSES = "SHARDC_DIST_NUM_PROCESSES"
ENV_PROCESS_ID = "SHARDC_DIST_PROCESS_ID"
ENV_LOCAL_DEVICES = "SHARDC_DIST_LOCAL_DEVICES"
ENV_TOKEN = "SHARDC_DIST_JOB_TOKEN"
ENV_COLLECTIVE_TIMEOUT = "SHARDC_DIST_COLLECTIVE_TIMEOUT"
ENV_LAUNCHED_AT = "SHARDC_DIST_LAUNCHED_AT"      # time.time() when the launcher started the job

DEFAULT_HEARTBEAT_TIMEOUT = 10
DEFAULT_SHUTDOWN_TIMEOUT = 10
DEFAULT_INIT_TIMEOUT = 30
DEFAULT_COLLECTIVE_TIMEOUT = 60

_LOOPBACK = ("127.0.0.1", "localhost")
_TOKEN_KEY = "shardc/job_token"


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
        from jax._src import xla_bridge
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
    if _state.initialized:
        same = (_state.coordinator, _state.num_processes, _state.process_id, _state.local_device_count) == (
            coord, num_processes, process_id, local_device_count)
        if same:
            return
        raise ShardcValueError(
            f"sc.distributed is already initialized as process {_state.process_id} of "
            f"{_state.num_processes} (coordinator {_state.coordinator}); it cannot be re-initialized "
            f"with other settings")

    import jax
    from jax._src import xla_bridge
    if xla_bridge.backends_are_initialized():
        raise ShardcValueError(
            "sc.distributed.initialize must run before any array is created or any device is "
            "queried (the runtime has already started)")
    _set_collective_timeout(collective_timeout)
    for k in [k for k in os.environ if k.lower().endswith("_proxy")]:
        del os.environ[k]   # jax warns that proxies can hang initialisation; loopback needs none
    jax.config.update("jax_platforms", "cpu")
    jax.config.update("jax_num_cpu_devices", local_device_count)
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    _pin_gloo_to_loopback()
    if fail_fast:
        sys.excepthook = _die_on_uncaught
    _state.process_id, _state.num_processes = process_id, num_processes
    t0 = time.perf_counter()
    try:
        jax.distributed.initialize(
            coordinator_address=coord, num_processes=num_processes, process_id=process_id,
            local_device_ids=list(range(local_device_count)), coordinator_bind_address=coord,
            initialization_timeout=int(init_timeout), heartbeat_timeout_seconds=int(heartbeat_timeout),
            shutdown_timeout_seconds=int(shutdown_timeout))
    except Exception as e:  # noqa: BLE001  (jax's errors: port in use, no coordinator, ...)
        raise ShardcError(f"rank {process_id}: jax.distributed.initialize on {coord} failed: "
                          f"{_first_line(e)}") from None
    _state.initialized = True
    _state.coordinator, _state.local_device_count, _state.token = coord, local_device_count, job_token
    if job_token and num_processes > 1:
        _check_token(job_token, process_id, num_processes, int(init_timeout))
    _state.init_seconds = time.perf_counter() - t0


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
    from jax._src import distributed as jd
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
    import jax
    return jax.process_index()


def process_count() -> int:
    """How many processes take part (1 when not distributed)."""
    if not _state.initialized:
        return 1
    import jax
    return jax.process_count()


def shutdown() -> None:
    """Leave the job cleanly (every rank must call it; the shutdown barrier waits
    for all of them)."""
    if not _state.initialized:
        return
    import jax
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


# --- data on several processes --------------------------------------------------------------------
def process_local_indices(sharding, global_shape: Sequence[int]):
    """Per dimension, the global indices this process's devices hold (sorted), in
    the layout `make_array_from_process_local_data` expects."""
    import numpy as np

    from ..sharding import NamedSharding
    from ..types import type_from_spec
    from .jaxbridge import jax_sharding
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
    import numpy as np
    a = np.asarray(global_data)
    if a.ndim == 0:
        return a
    idx = process_local_indices(sharding, a.shape)
    return a[np.ix_(*idx)]


def gather(a):
    """The full value of an `sc.Array` as NumPy on every process (resharding it to
    replicated inside a compiled program when some shards live elsewhere).
    Every process must call it, in the same order."""
    import numpy as np
    j = a.to_jax() if hasattr(a, "to_jax") else a
    if getattr(j, "is_fully_addressable", True) and not getattr(getattr(a, "aval", None), "unreduced", None):
        return np.asarray(a)
    from ..ops.sharding import reshard
    from ..sharding import PartitionSpec
    t = a.aval
    full = reshard(a, PartitionSpec(*([None] * len(t.shape)), reduced=t.reduced))
    return np.asarray(full.to_jax().addressable_shards[0].data)


# --- the launcher ---------------------------------------------------------------------------------
@dataclass
class RankResult:
    rank: int
    returncode: int | None          # None: still running when stopped (killed)
    stdout: str
    stderr: str
    killed: bool = False            # stopped by the launcher (after another rank failed / timeout)
    elapsed: float = 0.0

    @property
    def ok(self) -> bool:
        return self.returncode == 0


@dataclass
class LaunchResult:
    ranks: list[RankResult]
    elapsed: float
    timed_out: bool = False
    failed_rank: int | None = None  # the first rank that failed on its own
    port: int | None = None
    attempts: int = 1
    timeout: float | None = None

    @property
    def ok(self) -> bool:
        return not self.timed_out and all(r.ok for r in self.ranks)

    @property
    def returncodes(self) -> list[int | None]:
        return [r.returncode for r in self.ranks]

    @property
    def exit_code(self) -> int:
        """0 if every rank succeeded; else the failing rank's code (1 for a
        timeout or a signal)."""
        if self.ok:
            return 0
        if self.failed_rank is not None:
            rc = self.ranks[self.failed_rank].returncode
            return rc if rc and rc > 0 else 1
        return 1

    def message(self, tail_lines: int = 20) -> str:
        """What went wrong, naming the rank; with the last `tail_lines` lines of
        its stderr (none with 0)."""
        if self.ok:
            return f"all {len(self.ranks)} ranks succeeded in {self.elapsed:.2f} s"
        lines = []
        if self.failed_rank is not None:
            r = self.ranks[self.failed_rank]
            lines.append(f"rank {r.rank} failed ({_describe_rc(r.returncode)}) after {r.elapsed:.2f} s")
        if self.timed_out:
            lines.append(f"the job ran past its timeout of {self.timeout or self.elapsed:.0f} s and was stopped")
        stopped = [r.rank for r in self.ranks if r.killed]
        if stopped:
            lines.append(f"stopped rank(s) {', '.join(map(str, stopped))}")
        others = [r for r in self.ranks if not r.killed and not r.ok and r.rank != self.failed_rank]
        for r in others:
            lines.append(f"rank {r.rank} also failed ({_describe_rc(r.returncode)})")
        head = "; ".join(lines)
        r = self.ranks[self.failed_rank] if self.failed_rank is not None else None
        if r is not None and tail_lines > 0:
            tail = [ln for ln in r.stderr.splitlines() if not _is_noise(ln)][-tail_lines:]
            if tail:
                head += f"\n--- stderr of rank {r.rank} (last {len(tail)} lines) ---\n" + "\n".join(tail)
        return head

    def check(self) -> "LaunchResult":
        if not self.ok:
            raise ShardcError(self.message())
        return self


def _describe_rc(rc: int | None) -> str:
    if rc is None:
        return "still running"
    if rc < 0:
        try:
            return f"killed by {signal.Signals(-rc).name}"
        except ValueError:
            return f"killed by signal {-rc}"
    return f"exit code {rc}"


def _is_noise(line: str) -> bool:
    """Gloo's connection notes and the frames of a native abort's stack trace."""
    s = line.strip()
    return (line.startswith("[Gloo]") or s.startswith("*** Check failure stack trace")
            or (s.startswith("@ ") and "0x" in s))


def free_port() -> int:
    """A currently free TCP port on 127.0.0.1 (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _target_args(target) -> list[str]:
    if callable(target):
        mod = getattr(target, "__module__", None)
        qual = getattr(target, "__qualname__", "")
        if not mod or mod == "__main__" or "<" in qual:
            raise ShardcValueError(
                f"launch needs an importable function (module-level, not in __main__), got {target!r}; "
                f"or pass a script path or 'module:function'")
        return ["--call", f"{mod}:{qual}"]
    target = os.fspath(target)
    if target.endswith(".py") or os.path.sep in target:
        if not os.path.exists(target):
            raise ShardcValueError(f"no such script: {target}")
        return ["--script", os.path.abspath(target)]
    if ":" in target:
        return ["--call", target]
    raise ShardcValueError(f"launch target must be a .py script, a function or 'module:function', got {target!r}")


def _worker_env(base: dict | None, extra: dict | None) -> dict:
    env = dict(os.environ if base is None else base)
    for k in [k for k in env if k.lower().endswith("_proxy")]:
        del env[k]
    for k in [k for k in env if k.startswith("SHARDC_DIST_")]:
        del env[k]
    env.pop("JAX_COORDINATOR_ADDRESS", None)
    env.pop("JAX_PLATFORMS", None)
    env.setdefault("PYTHONUNBUFFERED", "1")
    if extra:
        env.update(extra)
    return env


def launch(target, num_processes: int, devices_per_process: int = 1, args: Sequence[str] = (), *,
           timeout: float = 120.0, grace: float = 2.0, collective_timeout: int | None = None,
           env: dict | None = None, extra_env: dict | None = None, cwd: str | None = None,
           on_output: Callable[[int, str, str], None] | None = None, retries: int = 2,
           python: str | None = None, port: int | None = None) -> LaunchResult:
    """Run `target` on `num_processes` processes × `devices_per_process` CPU devices
    on loopback and wait for all of them.

    `target` is a script path (run as `__main__` with `args` as `sys.argv[1:]`),
    a module-level function, or `'module:function'` (called with the list
    `args`; a non-zero int it returns is the exit code). Each worker calls
    `initialize()` before the target runs. The coordinator port is picked by
    binding port 0; every job gets a fresh token. Proxy variables are removed
    from the workers' environment.

    When one rank fails, the others get `grace` seconds to finish on their own
    and are then killed; the whole job is killed after `timeout` seconds.
    `on_output(rank, 'stdout'|'stderr', line)` sees every line as it arrives.
    Returns a `LaunchResult` (exit codes, captured output, the failing rank);
    `.check()` raises `sc.ShardcError` naming the failed rank. `port` fixes the
    coordinator port (default: a free one; then a port lost to a race is retried
    `retries` times).
    """
    if int(num_processes) < 1 or int(devices_per_process) < 1:
        raise ShardcValueError("num_processes and devices_per_process must be at least 1")
    num_processes, devices_per_process = int(num_processes), int(devices_per_process)
    targs = _target_args(target)
    t_start = time.monotonic()
    attempt = 0
    while True:
        attempt += 1
        use_port = port or free_port()
        res = _launch_once(targs, num_processes, devices_per_process, list(args), use_port, timeout=timeout,
                           deadline=t_start + timeout, grace=grace, collective_timeout=collective_timeout,
                           env=env, extra_env=extra_env, cwd=cwd, on_output=on_output, python=python)
        res.attempts = attempt
        port_lost = (not res.ok and res.failed_rank == 0
                     and "Failed to start RPC server" in res.ranks[0].stderr)
        if port_lost and port is None and attempt <= retries and time.monotonic() - t_start < timeout:
            continue
        res.elapsed = time.monotonic() - t_start
        res.timeout = timeout
        return res


def _launch_once(targs, n, dpp, args, port, *, timeout, deadline, grace, collective_timeout, env,
                 extra_env, cwd, on_output, python) -> LaunchResult:
    token = secrets.token_hex(8)
    coll = collective_timeout or DEFAULT_COLLECTIVE_TIMEOUT
    procs: list[subprocess.Popen] = []
    bufs: list[dict[str, list[str]]] = []
    threads: list[threading.Thread] = []
    waiters: list[threading.Thread] = []
    wake = threading.Event()
    starts: list[float] = []
    ends: list[float | None] = [None] * n
    t0 = time.monotonic()
    launched_at = time.time()

    def pump(rank: int, name: str, stream) -> None:
        buf = bufs[rank][name]
        for line in iter(stream.readline, ""):
            if name == "stdout" and line.startswith("[Gloo] Rank "):
                continue   # gloo's C++ connection notes (one per device group), not the target's output
            buf.append(line)
            if on_output is not None:
                try:
                    on_output(rank, name, line.rstrip("\n"))
                except Exception:  # noqa: BLE001  (a bad callback must not hang the job)
                    pass
        stream.close()

    def waiter(rank: int, p: subprocess.Popen) -> None:
        p.wait()
        ends[rank] = time.monotonic()     # when it exited: the first failure is the culprit
        wake.set()

    try:
        for rank in range(n):
            wenv = _worker_env(env, extra_env)
            wenv.update({ENV_COORDINATOR: f"127.0.0.1:{port}", ENV_NUM_PROCESSES: str(n),
                         ENV_PROCESS_ID: str(rank), ENV_LOCAL_DEVICES: str(dpp), ENV_TOKEN: token,
                         ENV_COLLECTIVE_TIMEOUT: str(coll), ENV_LAUNCHED_AT: repr(launched_at),
                         "SHARDC_CPU_DEVICES": str(dpp)})
            flags = wenv.get("XLA_FLAGS", "")
            if "xla_cpu_collective_timeout_seconds" not in flags:
                wenv["XLA_FLAGS"] = (flags + f" --xla_cpu_collective_timeout_seconds={coll}").strip()
            cmd = [python or sys.executable, "-m", "shardc.runtime.distributed_worker", *targs, "--", *args]
            p = subprocess.Popen(cmd, env=wenv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, errors="replace", bufsize=1,
                                 start_new_session=True)
            procs.append(p)
            starts.append(time.monotonic())
            bufs.append({"stdout": [], "stderr": []})
            for name, stream in (("stdout", p.stdout), ("stderr", p.stderr)):
                th = threading.Thread(target=pump, args=(rank, name, stream), daemon=True)
                th.start()
                threads.append(th)
            w = threading.Thread(target=waiter, args=(rank, p), daemon=True)
            w.start()
            waiters.append(w)

        kill_at = None
        timed_out = False
        killed: set[int] = set()
        while True:
            wake.wait(0.05)
            wake.clear()
            now = time.monotonic()
            done = [r for r in range(n) if ends[r] is not None]
            if kill_at is None and any(procs[r].returncode != 0 for r in done):
                kill_at = now + grace
            if len(done) == n:
                break
            if now >= deadline:
                timed_out = True
                kill_at = now
            if kill_at is not None and now >= kill_at:
                for rank, p in enumerate(procs):
                    if ends[rank] is None:
                        _kill(p)
                        killed.add(rank)
                for w in waiters:
                    w.join(timeout=5)
                break
    finally:
        for p in procs:
            if p.poll() is None:   # an exception in the launcher itself: leave nothing behind
                _kill(p)
    for th in threads:
        th.join(timeout=5)
    failing = [r for r in range(n) if r not in killed and ends[r] is not None and procs[r].returncode != 0]
    failed_rank = min(failing, key=lambda r: ends[r]) if failing else None
    ranks = []
    for rank, p in enumerate(procs):
        rc = p.returncode
        ranks.append(RankResult(rank, rc, "".join(bufs[rank]["stdout"]), "".join(bufs[rank]["stderr"]),
                                killed=rank in killed, elapsed=(ends[rank] or time.monotonic()) - starts[rank]))
    return LaunchResult(ranks, time.monotonic() - t0, timed_out=timed_out, failed_rank=failed_rank, port=port)


def _kill(p: subprocess.Popen) -> None:
    """SIGKILL a worker we started (its own session: the process group of that id)."""
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        try:
            p.kill()
        except OSError:
            pass


def _first_line(e: BaseException) -> str:
    s = str(e).strip()
    return s.splitlines()[0] if s else type(e).__name__
