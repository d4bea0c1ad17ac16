"""Multi-process execution, inside a rank: `jax.distributed` with gloo CPU
collectives, set up to fail fast, on loopback (the launcher that starts K ranks
on this machine is `runtime/launcher.py`; `launch` is re-exported here) or across
hosts (`initialize(cluster="auto")`, or a coordinator off loopback with
`allow_remote_coordinator=True`; `launcher.join` runs one such process).

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
other ranks. Heartbeat, shutdown and init timeouts are small; a watchdog
thread names a rank that is blocked (outside any program, or in one of its host
callbacks) or frozen while the others wait for it, and ends the job; one busy on the
host is reported with its line, and ended only past `SHARDC_DIST_HOST_TIMEOUT`
(`_Watchdog`); gloo collectives time out after `collective_timeout`
seconds (300, a backstop; an XLA flag that must be in the environment before the
CPU backend starts).
"""
from __future__ import annotations

import functools
import ipaddress
import os
import socket
import sys
import sysconfig
import threading
import time
import traceback
from dataclasses import dataclass
from typing import Sequence

import jax
import numpy as np
from jax._src import distributed as jd
from jax._src import xla_bridge

from ..core import bind
from ..errors import INTERNAL_PREFIXES, ShardcError, ShardcRuntimeError, ShardcValueError, user_location
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
    ENV_ALLOW_REMOTE,
    ENV_COLLECTIVE_TIMEOUT,
    ENV_COORDINATOR,
    ENV_HOST,
    ENV_INIT_TIMEOUT,
    ENV_LAUNCHED_AT,
    ENV_LOCAL_DEVICES,
    ENV_NUM_PROCESSES,
    ENV_PROCESS_ID,
    ENV_TOKEN,
    HUNG_MARKER,
    SETTINGS_MARKER,
    LaunchResult,
    RankResult,
    _first_line,
    free_port,
    launch,
)

_TOKEN_KEY = "shardc/job_token"


__all__ = ["initialize", "await_rank0_leaving", "job_settings", "is_loopback", "hang_timeout", "CLUSTERS", "is_initialized", "init_seconds",
           "seconds_since_launch", "process_index", "process_count", "shutdown", "barrier", "allgather_str", "agree", "agree_timeout", "process_local_indices",
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
    collective_timeout: int = DEFAULT_COLLECTIVE_TIMEOUT   # the backstop of a wait for the others
    # set by a launched rank's worker: say a settings mismatch on stderr the moment it is found
    # (JAX may abort this process when a peer leaves before this one has said it)
    say_early: bool = False


_state = _State()


# --- set-up in a process ---------------------------------------------------------------------------
#: `cluster` names of `initialize` (JAX's cluster environments; "auto" tries them in JAX's order)
CLUSTERS = ("auto", "slurm", "ompi", "mpi4py", "k8s")
#: what each cluster environment must provide (for the error when it is not there)
_CLUSTER_VARS = {"slurm": "SLURM_JOB_ID, SLURM_STEP_NODELIST, SLURM_NTASKS, SLURM_PROCID and SLURM_LOCALID "
                          "(set by srun in every task)",
                 "ompi": "OMPI_MCA_orte_hnp_uri (set by mpirun / mpiexec of Open MPI)",
                 "mpi4py": "mpi4py and an MPI launcher",
                 "k8s": "KUBERNETES_SERVICE_HOST and the `kubernetes` package (pip install jax[k8s])"}


def _split_address(address: str) -> tuple[str, int]:
    host, sep, port = str(address).strip().rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ShardcValueError(f"coordinator address must be 'HOST:PORT' (a port in 1..65535), got {address!r}")
    return host, int(port)


def is_loopback(host: str) -> bool:
    """Whether `host` is this machine's loopback (127.0.0.0/8, ::1 or 'localhost')."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _coordinator(address: str, allow_remote: bool) -> str:
    """The validated coordinator address ('localhost' as 127.0.0.1). One off loopback needs
    `allow_remote`: the coordinator serves an unauthenticated gRPC service on that port."""
    host, port = _split_address(address)
    if is_loopback(host):
        return f"{'127.0.0.1' if host.lower() == 'localhost' else host}:{port}"
    if not allow_remote:
        raise ShardcValueError(
            f"coordinator {address!r} is not on loopback: rank 0 would serve the job's coordination service "
            f"(gRPC, unauthenticated) on port {port} of {host}, reachable by anyone who can reach that address. "
            "To join a multi-host job over a private network, pass allow_remote_coordinator=True "
            "(`shardc run --allow-remote-coordinator`); on one machine use 127.0.0.1:PORT")
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _detect_cluster(method: str, timeout_s: int) -> tuple[str | None, int | None, int | None, str, str | None]:
    """(coordinator, num_processes, process_id, cluster name, this task's host or None) from JAX's
    cluster environments,
    exactly as `jax.distributed.initialize()` finds them (JAX_COORDINATOR_PORT overrides the port)."""
    from jax._src import clusters  # late: JAX's cluster environments, only when asked to detect one
    by_name = {"slurm": clusters.SlurmCluster, "ompi": clusters.OmpiCluster, "mpi4py": clusters.Mpi4pyCluster,
               "k8s": clusters.K8sCluster}
    if method not in CLUSTERS:
        raise ShardcValueError(f"cluster must be one of {', '.join(CLUSTERS)}, got {method!r}")
    try:
        if method == "auto":
            env = next((c for c in clusters.ClusterEnv._cluster_types
                        if not c.opt_in_only_method and c.is_env_present()), None)
            if env is None:
                raise ShardcValueError(
                    "no cluster environment found (SLURM: srun sets SLURM_*; Open MPI: mpirun sets "
                    "OMPI_MCA_orte_hnp_uri; Kubernetes: KUBERNETES_SERVICE_HOST); pass the coordinator, "
                    "the number of processes and this process's id instead "
                    "(`--coordinator HOST:PORT --num-processes N --process-id I`)")
        else:
            env = by_name[method]
            if not env.is_env_present():
                raise ShardcValueError(f"cluster {method!r}: not in that environment (it needs "
                                       f"{_CLUSTER_VARS[method]})")
        coord = env.get_coordinator_address(timeout_secs=timeout_s,
                                            override_coordinator_port=os.environ.get("JAX_COORDINATOR_PORT"))
        # SLURM names the node of each task: its collectives listen on that node's address
        host = os.environ.get("SLURMD_NODENAME") if env is clusters.SlurmCluster else None
        return coord, env.get_process_count(), env.get_process_id(), env.name or env.__name__, host
    except ShardcError:
        raise
    except Exception as e:  # noqa: BLE001  (a malformed variable, the k8s API: JAX's own errors)
        raise ShardcValueError(f"cluster {method!r}: could not read the job's settings from the environment: "
                               f"{type(e).__name__}: {_first_line(e)}") from None


def _bind_address(coordinator: str) -> str:
    """Where process 0 serves the coordinator: the coordinator's own address, never every
    interface; but a host name that resolves to loopback here (a Debian-style `127.0.1.1
    node007` line in /etc/hosts) would be unreachable from other hosts: then every interface,
    as JAX does, with a note (JAX_COORDINATOR_BIND_ADDRESS narrows it)."""
    host, port = _split_address(coordinator)
    if is_loopback(host):
        return coordinator
    try:
        ipaddress.ip_address(host)
        return coordinator
    except ValueError:
        pass
    try:
        addrs = {ai[4][0] for ai in socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)}
    except OSError:
        return coordinator
    if addrs and all(is_loopback(a) for a in addrs):
        sys.stderr.write(f"shardc: the coordinator's host name {host!r} resolves to loopback here "
                         f"({', '.join(sorted(addrs))}): serving it on every interface, port {port} (set "
                         "JAX_COORDINATOR_BIND_ADDRESS=ADDRESS:PORT to serve it on one)\n")
        return f"[::]:{port}"
    return coordinator


def _rank_host(coordinator: str, host: str | None) -> str | None:
    """The address this rank's collectives (gloo) listen on: `host`, else SHARDC_DIST_HOST, else
    for a loopback coordinator None (the loopback interface), else the local address that routes
    to the coordinator (gethostname() may resolve to 127.0.1.1, unreachable from other hosts)."""
    host = host or os.environ.get(ENV_HOST) or None
    if host:
        try:
            info = socket.getaddrinfo(host, 0, proto=socket.IPPROTO_TCP)[0]
            with socket.socket(info[0], socket.SOCK_STREAM) as s:
                s.bind(info[4])
        except OSError as e:
            raise ShardcValueError(f"host {host!r} (the address this process's collectives listen on) is not an "
                                   f"address of this machine: {e.strerror or e}; give one of its own addresses "
                                   "(`--host`, SHARDC_DIST_HOST)") from None
        return host
    chost, port = _split_address(coordinator)
    if is_loopback(chost):
        return None
    try:
        info = socket.getaddrinfo(chost, port, proto=socket.IPPROTO_UDP)[0]
        with socket.socket(info[0], socket.SOCK_DGRAM) as s:
            s.connect(info[4])      # no packet is sent: it only picks the route
            return s.getsockname()[0]
    except OSError:
        return None     # JAX's default (the address of gethostname())


def _set_collective_timeout(seconds: int) -> None:
    """Put `--xla_cpu_collective_timeout_seconds` into XLA_FLAGS (read when the CPU
    backend starts; has no effect afterwards)."""
    flags = os.environ.get("XLA_FLAGS", "")
    if "xla_cpu_collective_timeout_seconds" in flags:
        return
    os.environ["XLA_FLAGS"] = (flags + f" --xla_cpu_collective_timeout_seconds={int(seconds)}").strip()


def _pin_gloo(host: str | None) -> None:
    """Make gloo listen on `host`, or on the loopback interface when None (it otherwise uses
    the address of `gethostname()`). Wraps a private jax hook; skipped if jax changed it."""
    _gloo_host[0] = host
    try:
        orig = xla_bridge._jax.make_gloo_tcp_collectives
    except AttributeError:
        return
    if getattr(orig, "_shardc_pinned", False):
        return

    def make(distributed_client, hostname=None, interface=None):
        if hostname is None and interface is None:
            if _gloo_host[0] is None:
                interface = "lo"
            else:
                hostname = _gloo_host[0]
        return orig(distributed_client=distributed_client, hostname=hostname, interface=interface)

    make._shardc_pinned = True
    try:
        xla_bridge._jax.make_gloo_tcp_collectives = make
    except (AttributeError, TypeError):
        pass


_gloo_host: list[str | None] = [None]


def _env_int(name: str) -> int | None:
    v = os.environ.get(name)
    return int(v) if v not in (None, "") else None


def _die_on_uncaught(exc_type, exc, tb) -> None:
    """Excepthook of a distributed process: print, then exit without running the
    atexit shutdown barrier (which would hold every rank until its timeout)."""
    if leaving():
        time.sleep(5)       # the watchdog is ending this rank (exit code 3, its message said)
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
               init_timeout: int | None = None,
               collective_timeout: int | None = None, fail_fast: bool = True, cluster: str | None = None,
               allow_remote_coordinator: bool = False, host: str | None = None) -> None:
    """Join a multi-process job (call before creating any array), as `jax.distributed.initialize`.

    Arguments left out come from the launcher's environment (`SHARDC_DIST_*`), or with
    `cluster` ('auto', 'slurm', 'ompi', 'mpi4py', 'k8s') from JAX's detection of that
    cluster environment (explicit arguments win, as in JAX). `local_device_count` CPU
    devices are this process's (default: the `SHARDC_CPU_DEVICES` setting, else 1).
    Rank 0 serves the coordination service on the coordinator's address only (never on
    every interface); a coordinator off loopback needs `allow_remote_coordinator` (that
    service is unauthenticated: keep it on a private network). `host` is the address this
    rank's collectives listen on (default: loopback, or the local address that routes to
    a remote coordinator; SHARDC_DIST_HOST). Small heartbeat/shutdown/init timeouts, a
    gloo collective timeout, and a check through the coordinator's key-value store that
    every rank belongs to the same job with the same number of processes and devices
    (two jobs on one port, or ranks started with different settings, fail cleanly instead
    of mixing). With `fail_fast`, an uncaught exception ends the process at once (exit
    code 1) instead of stalling all ranks in JAX's shutdown barrier; a watchdog thread
    names a rank that hangs or freezes while the others wait for it in a program
    (`SHARDC_DIST_HANG_TIMEOUT`).

    Calling it again with the same settings does nothing.
    """
    if init_timeout is None:
        init_timeout = _env_int(ENV_INIT_TIMEOUT) or DEFAULT_INIT_TIMEOUT
    allow_remote_coordinator = allow_remote_coordinator or os.environ.get(ENV_ALLOW_REMOTE) == "1"
    cfg = _settings(coordinator_address, num_processes, process_id, local_device_count, job_token,
                    collective_timeout, cluster, allow_remote_coordinator, host, int(init_timeout))
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
    deadline = _JoinDeadline(cfg, int(init_timeout))
    try:
        jax.distributed.initialize(
            coordinator_address=cfg.coordinator, num_processes=cfg.num_processes, process_id=cfg.process_id,
            local_device_ids=list(range(cfg.local_device_count)), coordinator_bind_address=cfg.bind_address,
            initialization_timeout=int(init_timeout), heartbeat_timeout_seconds=int(heartbeat_timeout),
            shutdown_timeout_seconds=int(shutdown_timeout), cluster_detection_method="deactivate")
    except Exception as e:  # noqa: BLE001  (jax's errors: port in use, no coordinator, ...)
        deadline.cancel()
        raise ShardcError(f"rank {cfg.process_id}: jax.distributed.initialize on {cfg.coordinator} failed: "
                          f"{_first_line(e)}{_init_hint(e, cfg, int(init_timeout))}") from None
    deadline.cancel()
    _state.initialized = True
    _state.collective_timeout = cfg.collective_timeout
    _state.coordinator, _state.local_device_count, _state.token = (cfg.coordinator, cfg.local_device_count,
                                                                   cfg.job_token)
    if cfg.num_processes > 1:
        _check_job(cfg, int(init_timeout))
        _Watchdog.start_for(cfg.process_id, cfg.num_processes)
    _state.init_seconds = time.perf_counter() - t0


class _JoinDeadline:
    """JAX's connect gives up some seconds after its init timeout, and then aborts the process
    (SIGABRT, a C++ stack): at the init timeout, say why in words and leave (exit code 3)."""

    def __init__(self, cfg: "_Settings", timeout_s: int):
        # counted from the launch when there is one (its start-up is part of the time to join)
        since = seconds_since_launch()
        left = timeout_s - since if since is not None and since >= 0 else timeout_s
        self.timer = threading.Timer(max(left, 4.0) + 0.5, self.expire, args=(cfg, timeout_s))
        self.timer.daemon = True
        self.timer.start()

    def cancel(self) -> None:
        self.timer.cancel()

    @staticmethod
    def expire(cfg: "_Settings", timeout_s: int) -> None:
        try:
            sys.stderr.write(f"shardc: rank {cfg.process_id}: could not join the job at {cfg.coordinator}"
                             f"{_init_hint(RuntimeError('DEADLINE_EXCEEDED'), cfg, timeout_s)}\n")
            sys.stderr.flush()
        finally:
            os._exit(3)


def _init_hint(e: Exception, cfg: "_Settings", timeout_s: int) -> str:
    """What to do about a failed join (JAX's message says what happened, not why)."""
    text = str(e)
    if "DEADLINE_EXCEEDED" in text or "timed out" in text.lower() or "Barrier timed out" in text:
        if cfg.process_id == 0:
            return (f". Not every one of the {cfg.num_processes} processes joined within {timeout_s} s: start "
                    f"all of them (process ids 0..{cfg.num_processes - 1}) with the same coordinator and number "
                    "of processes, or allow longer (init_timeout, `--init-timeout`) when they start far apart")
        return (f". No coordinator answered at {cfg.coordinator} within {timeout_s} s, or not every process "
                f"joined: start process 0 (it serves the coordinator) with the same coordinator address, check "
                f"the address, port and firewall, give every process the same number of processes "
                f"({cfg.num_processes} here), or allow longer (`--init-timeout`)")
    if "Failed to start RPC server" in text or "bind" in text.lower():
        return (f". Process 0 could not serve the coordinator on {cfg.bind_address}: the port is in use, or "
                "that address is not this machine's (run process 0 on the coordinator's host, or choose "
                "another port)")
    if "task" in text.lower() and ("invalid" in text.lower() or "unexpected" in text.lower()):
        return (f". The coordinator does not expect process {cfg.process_id}: give every process the same "
                "number of processes, and each its own process id below it")
    return ""


@dataclass(frozen=True)
class _Settings:
    """A rank's validated settings (arguments, else a cluster's or the launcher's environment)."""

    coordinator: str
    num_processes: int
    process_id: int
    local_device_count: int
    job_token: str | None
    collective_timeout: int
    bind_address: str
    host: str | None


def _settings(coordinator_address, num_processes, process_id, local_device_count, job_token,
              collective_timeout, cluster=None, allow_remote=False, host=None, init_timeout=30) -> _Settings:
    found = ""
    if cluster is not None and None in (coordinator_address, num_processes, process_id):
        c, n, p, found, node = _detect_cluster(cluster, init_timeout)
        host = host or os.environ.get(ENV_HOST) or node
        coordinator_address = coordinator_address or c
        num_processes = num_processes if num_processes is not None else n
        process_id = process_id if process_id is not None else p
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
            f"sc.distributed.initialize needs {', '.join(missing)} (pass them, use cluster='auto' in a SLURM, "
            f"Open MPI or Kubernetes job, or start the processes with sc.distributed.launch / `shardc run "
            f"--processes K`, which set {ENV_COORDINATOR}, {ENV_NUM_PROCESSES} and {ENV_PROCESS_ID})")
    coord = _coordinator(coordinator_address, allow_remote)
    try:
        num_processes, process_id, local_device_count = int(num_processes), int(process_id), int(local_device_count)
    except (TypeError, ValueError):
        raise ShardcValueError(f"num_processes, process_id and local_device_count must be integers, got "
                               f"{num_processes!r}, {process_id!r}, {local_device_count!r}") from None
    src = f" (from the {found} environment)" if found else ""
    if num_processes < 1:
        raise ShardcValueError(f"num_processes must be at least 1, got {num_processes}{src}")
    if not 0 <= process_id < num_processes:
        raise ShardcValueError(f"process_id must be in [0, {num_processes}), got {process_id}{src}: each of the "
                               f"{num_processes} processes needs its own id 0..{num_processes - 1}")
    if local_device_count < 1:
        raise ShardcValueError(f"local_device_count must be at least 1, got {local_device_count}")
    bind = os.environ.get("JAX_COORDINATOR_BIND_ADDRESS") or (_bind_address(coord) if process_id == 0 else coord)
    return _Settings(coord, num_processes, process_id, local_device_count, job_token, int(collective_timeout),
                     bind, _rank_host(coord, host))


def job_settings(coordinator_address: str | None = None, num_processes: int | None = None,
                 process_id: int | None = None, *, cluster: str | None = None,
                 allow_remote_coordinator: bool = False, host: str | None = None,
                 init_timeout: int = DEFAULT_INIT_TIMEOUT) -> tuple[str, int, int, str | None]:
    """(coordinator, number of processes, this process's id, its collectives' address or None
    for loopback) that `initialize` with these arguments would join; raises its errors."""
    cfg = _settings(coordinator_address, num_processes, process_id, 1, None, None, cluster,
                    allow_remote_coordinator, host, init_timeout)
    return cfg.coordinator, cfg.num_processes, cfg.process_id, cfg.host


def _configure_cpu_runtime(cfg: _Settings, fail_fast: bool) -> None:
    """CPU devices, gloo collectives on this rank's address and their timeout, before the runtime starts."""
    if xla_bridge.backends_are_initialized():
        raise ShardcValueError(
            "sc.distributed.initialize must run before any array is created or any device is "
            "queried (the runtime has already started)")
    _set_collective_timeout(cfg.collective_timeout)
    for k in [k for k in os.environ if k.lower().endswith("_proxy")]:
        del os.environ[k]   # jax warns that proxies can hang initialisation; the coordinator is direct
    jax.config.update("jax_platforms", "cpu")
    jax.config.update("jax_num_cpu_devices", cfg.local_device_count)
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    _pin_gloo(cfg.host)
    if fail_fast:
        sys.excepthook = _die_on_uncaught


def _check_job(cfg: _Settings, timeout_s: int) -> None:
    """Every rank publishes its job token, number of processes and devices, and compares them
    with rank 0's (rank 0 compares everyone's), so ranks of two jobs sharing a port, or ranks
    started with other settings, notice at once."""
    client = _client()
    ms = max(1, timeout_s) * 1000
    rank, n = cfg.process_id, cfg.num_processes
    mine = f"{cfg.job_token or '-'} {n} {cfg.local_device_count}"
    try:
        client.key_value_set(f"{_TOKEN_KEY}/{rank}", mine)
        if rank == 0:
            others = {r: client.blocking_key_value_get(f"{_TOKEN_KEY}/{r}", ms) for r in range(1, n)}
        else:
            others = {0: client.blocking_key_value_get(f"{_TOKEN_KEY}/0", ms)}
        bad = {r: v for r, v in others.items() if v != mine}
        if bad and _state.say_early:
            sys.stderr.write(f"shardc: rank {rank}: {_mismatch(mine, bad)}\n{SETTINGS_MARKER}\n")
            sys.stderr.flush()
        if rank != 0:
            _leave_after_rank0(client, rank, bool(bad), ms)
        if not bad:   # nobody leaves (and takes the coordinator down) before everyone has checked
            client.wait_at_barrier(f"{_TOKEN_KEY}/checked", ms)
        elif rank == 0:   # said: the others may leave now; they must read rank 0's settings before it leaves
            client.key_value_set(f"{_TOKEN_KEY}/said/0", "1")
            for r in others:
                client.blocking_key_value_get(f"{_TOKEN_KEY}/read/{r}", ms)
    except Exception as e:  # noqa: BLE001
        why = _first_line(e)
        if "ALREADY_EXISTS" in why:
            why = (f"another process already registered as rank {rank} at {_state.coordinator} "
                   f"(two jobs on one port, or two processes given the same process id?); give each process "
                   f"its own id and each job its own port")
        elif "UNAVAILABLE" in why or "Socket closed" in why:
            why = (f"the coordinator at {_state.coordinator} went away (process 0 stopped: see its output); "
                   f"{why}")
        raise ShardcError(f"rank {rank}: the job check through the coordinator failed: {why}") from None
    if bad:
        err = ShardcValueError(f"rank {rank}: {_mismatch(mine, bad)}")
        err.said = _state.say_early
        raise err


def _leave_after_rank0(client, rank: int, bad: bool, ms: int) -> None:
    """Tell rank 0 this rank has read its settings (it may leave, taking the coordinator with it);
    with a mismatch, wait until rank 0 has said its own message before leaving: JAX aborts a
    process whose peer leaves, and rank 0 aborted before saying why left the job unexplained."""
    try:
        client.key_value_set(f"{_TOKEN_KEY}/read/{rank}", "1")
        if bad:
            client.blocking_key_value_get(f"{_TOKEN_KEY}/said/0", min(ms, 10_000))
    except Exception:  # noqa: BLE001  (rank 0 left already, or never says: leave anyway)
        pass


def _mismatch(mine: str, bad: dict[int, str]) -> str:
    token, n, ldc = mine.split(" ")
    r, theirs = next(iter(bad.items()))
    t2, n2, ldc2 = (theirs.split(" ") + ["?", "?", "?"])[:3]
    if t2 != token:
        return (f"rank(s) {', '.join(map(str, bad))} at coordinator {_state.coordinator} belong to another job "
                "(two jobs on one port?); start each job on its own port")
    if n2 != n:
        return (f"rank {r} was started with {n2} processes, this one with {n}: start every process of the job "
                "with the same number of processes (--num-processes)")
    return (f"rank {r} has {ldc2} local devices, this one {ldc}: start every process with the same number of "
            "devices per process (the same --devices and --num-processes)")


# --- the watchdog: a rank that hangs while the others wait for it ----------------------------------------
#: seconds a rank may be blocked (its process using no CPU time) outside any program and outside
#: sc.distributed, or in one host callback of a program, or send no heartbeat, while another rank
#: waits for it (inside a program, or in sc.distributed), before it is named as hung and the job
#: ends; also when a rank that keeps the others waiting while busy is first reported
#: (SHARDC_DIST_HANG_TIMEOUT; 0 turns the watchdog off)
HANG_TIMEOUT = 6.0
#: seconds a rank busy on the host (outside any program, or in a host callback: using CPU time)
#: may keep the others waiting before the job ends (SHARDC_DIST_HOST_TIMEOUT; at least the hang
#: timeout). 0, the default: never; such a rank is reported, with where it is, every
#: `_REPORT_EVERY` seconds, and the others give up at the collective timeout (a backstop). A
#: busy rank cannot be told from a slow one: a loop that never ends and a 20 s data load, or one
#: long NumPy call, both use CPU time, and both can sit on one line of the user's code
HOST_TIMEOUT = 0.0
#: seconds between two reports of one rank that keeps the others waiting while busy
_REPORT_EVERY = 30.0
_WD_DIR = "shardc/wd/"
_waiting = [0]
#: the rank an agreement of this rank's main thread waits for now (-1: any, or none)
_awaited = [-1]


def hang_timeout() -> float:
    try:
        v = float(os.environ.get("SHARDC_DIST_HANG_TIMEOUT", "") or HANG_TIMEOUT)
    except ValueError:
        return HANG_TIMEOUT
    return HANG_TIMEOUT if v != v else v     # NaN: the default


def host_timeout() -> float:
    """SHARDC_DIST_HOST_TIMEOUT in seconds; 0 (no bound) unless set to a positive number."""
    try:
        v = float(os.environ.get("SHARDC_DIST_HOST_TIMEOUT", "") or HOST_TIMEOUT)
    except ValueError:
        return HOST_TIMEOUT
    return v if v > 0 else 0.0


def _waits(fn):
    """Mark the main thread as waiting for the other ranks (in sc.distributed) while `fn` runs:
    idle, but not hung."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        _waiting[0] += 1
        try:
            return fn(*args, **kwargs)
        finally:
            _waiting[0] -= 1
    return wrapper


def _cpu_ticks(native_id: int | None = None) -> int | None:
    """CPU time (clock ticks, 1/100 s) this process, or one of its threads, has used (Linux), or None."""
    try:
        with open("/proc/self/stat" if native_id is None else f"/proc/self/task/{native_id}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except (OSError, IndexError, ValueError):
        return None


def _family_ticks() -> int | None:
    """CPU time (clock ticks) this process, the children it waited for, and its live child
    processes (and theirs) have used: a rank waiting for a subprocess that works (a compiler,
    a download tool) is busy, not hung."""
    total = 0
    todo, seen = ["self"], set()
    while todo and len(seen) < 64:
        pid = todo.pop()
        seen.add(pid)
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += sum(int(v) for v in fields[11:15])
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/children") as f:
                    todo.extend(c for c in f.read().split() if c not in seen)
        except (OSError, IndexError, ValueError):
            if pid == "self":
                return None
    return total


#: CPU time per second (clock ticks) below which a process counts as idle: an idle rank's
#: gRPC and heartbeat threads use 0-1 tick a second, one waiting in a gloo collective 0-1
#: (measured); a thread doing work uses far more
_IDLE_TICKS_PER_S = 3
#: folders of the standard library and of installed packages: a frame there is not "the user's line"
_LIB_DIRS = tuple(sorted({os.path.join(p, "") for p in (sysconfig.get_paths().get(k) for k in
                                                       ("stdlib", "platstdlib", "purelib", "platlib")) if p}))


def _user_frame(frame):
    """The innermost frame of the stack ending in `frame` that runs the user's code: outside shardc
    (and a front end's folders, `errors.INTERNAL_PREFIXES`), the standard library and installed
    packages; else the innermost frame outside shardc; else `frame`."""
    outside = None
    f = frame
    while f is not None:
        name = f.f_code.co_filename
        if not name.startswith(tuple(INTERNAL_PREFIXES)):
            if outside is None:
                outside = f
            if not name.startswith(_LIB_DIRS) and "-packages" + os.sep not in name:
                return f
        f = f.f_back
    return outside or frame


def _spot(frame, line: int | None = None) -> str:
    """'file:line in function' of `frame` (the file relative to the working directory when inside it)."""
    name = frame.f_code.co_filename
    try:
        rel = os.path.relpath(name)
        name = name if rel.startswith(os.pardir) else rel
    except (OSError, ValueError):     # no working directory any more, another drive
        pass
    return f"{name}:{frame.f_lineno if line is None else line} in {frame.f_code.co_name}"


def _this_machine() -> str:
    """Who can read this process's /proc entry: host name, boot id and pid namespace ('' if unknown)."""
    try:
        with open("/proc/sys/kernel/random/boot_id") as f:
            boot = f.read().strip()
        return f"{socket.gethostname()}/{boot}/{os.readlink('/proc/self/ns/pid')}"
    except OSError:
        return ""


def _process_cpu(pid: int) -> tuple[str, int] | None:
    """(state letter, CPU ticks) of process `pid` of this machine, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return fields[0], int(fields[11]) + int(fields[12])
    except (OSError, IndexError, ValueError):
        return None


@dataclass
class _Peer:
    """What a rank's last heartbeat said: its state ('run', 'cb', 'sync', 'host'), for how long
    its process has used almost no CPU time in that state, for how long it has been in it; in
    'sync', the rank its agreement waits for (-1: any); whether its main thread used CPU time in
    the last second; for how long the innermost frame of the user's code it runs (of its main
    thread, or in 'cb' of the thread in a callback) has stayed on one line; and that line."""
    state: str
    idle: float
    since: float
    awaits: int = -1
    main_busy: bool = False
    stuck: float = 0.0
    where: str = ""
    gil: bool = False       # silent, but its process (on this machine) runs: a C call holds the GIL

    @classmethod
    def parse(cls, hb: str | None) -> "_Peer | None":
        parts = (hb or "").split(" ", 7)
        try:
            p = cls(parts[1], float(parts[2]), float(parts[3] if len(parts) > 3 else parts[2]))
            if len(parts) == 8:
                p.awaits, p.main_busy, p.stuck = int(parts[4]), parts[5] == "1", float(parts[6])
                p.where = "" if parts[7] == "-" else parts[7]
            return p
        except (IndexError, ValueError):
            return None

    def text(self, seq: int) -> str:
        return (f"{seq} {self.state} {self.idle:.1f} {self.since:.1f} {self.awaits} {int(self.main_busy)} "
                f"{self.stuck:.1f} {self.where.replace(chr(10), ' ') or '-'}")

    def waited(self) -> float:
        """For how long this rank has waited for the others: in sc.distributed, or inside a
        program using no CPU time (in a collective); 0 when it is not waiting."""
        if self.state == "sync":
            return self.since
        return min(self.since, self.idle) if self.state == "run" else 0.0

    def waits_for(self, r: int) -> bool:
        return self.awaits in (-1, r)

    def busy(self) -> bool:
        """Whether its process used CPU time in the last two seconds (not blocked)."""
        return self.gil or self.idle < 2.0

    def doing(self) -> str:
        """What a rank that keeps the others waiting is doing, for a message."""
        at = f" at {self.where}" if self.where else ""
        if self.gil:
            return ("in a call that holds Python's GIL (busy: using CPU time; its watchdog thread cannot run to say "
                    "where)")
        if self.state == "cb":
            how = "busy: using CPU time" if self.busy() else "idle: using no CPU time"
            return f"running a host callback{at} ({how}; inside a shardc program)"
        if not self.busy():
            how = "blocked: using no CPU time"
        elif self.main_busy:
            how = "busy: its main thread uses CPU time"
        else:
            how = "busy: its main thread waits while its other threads or child processes use CPU time"
        if self.stuck >= 2.0:
            how += f", on that line for {self.stuck:.0f} s"
        return f"running host code{at} ({how}; not in a shardc program)"


class _Watchdog:
    """A daemon thread in every rank of a multi-process job (the user's code cannot block it:
    it needs no lock the main thread holds, and the GIL is released by sleeps and switched
    every few ms by loops). Once a second it publishes this rank's heartbeat and state to the
    coordinator's key-value store, and reads everyone's. The state: 'run' (the main thread is
    inside a program), 'cb' (inside a program, and a thread runs one of its host callbacks:
    `sc.debug.callback`, `sc.pure_callback`), 'sync' (waiting in sc.distributed: an agreement,
    a barrier), 'host' (elsewhere); with how long the process (all its threads but this one)
    has used almost no CPU time in that state, how long it has been in it, and where it is (the
    innermost line of the user's code, from `sys._current_frames()`).

    While this rank waits for the others ('run' or 'sync') for a while, a peer is named hung,
    and every rank leaves (exit code 3), the hung one printing where it is, when it
    - sent no heartbeat for 6 s (stopped, frozen, gone), or
    - sat idle in 'host' for `hang_s` seconds (it used no CPU time and is not waiting in
      sc.distributed: a slow peer uses CPU time, or waits in sc.distributed itself), or
    - has been running one host callback for `hang_s` seconds using no CPU time while this
      rank, inside a program or in sc.distributed, used none either (it waits for that
      callback in a collective), or
    - with `host_s` (SHARDC_DIST_HOST_TIMEOUT) set, has kept this rank waiting that long while
      busy on the host or in a host callback.
    A peer busy on the host (a loop, a data load, a long NumPy call), or in a host callback,
    while others wait for it is otherwise progress: rank 0 reports it after `hang_s` seconds of
    waiting, and every `_REPORT_EVERY` seconds, with where it is and what to do; the others wait
    up to the collective timeout (a backstop). A slow program on all ranks is left alone."""

    _instance: "_Watchdog | None" = None

    @classmethod
    def start_for(cls, rank: int, n: int) -> None:
        hang_s = hang_timeout()
        if hang_s <= 0 or cls._instance is not None or n < 2:
            return
        cls._instance = w = cls(rank, n, hang_s, host_timeout())
        threading.Thread(target=w.loop, name="shardc-watchdog", daemon=True).start()

    def __init__(self, rank: int, n: int, hang_s: float, host_s: float = 0.0):
        self.rank, self.n, self.hang_s = rank, n, hang_s
        self.host_s = max(host_s, hang_s) if host_s > 0 else 0.0
        # a frozen peer must be named before JAX's own heartbeat check aborts every process
        self.stale_s = 0.6 * DEFAULT_HEARTBEAT_TIMEOUT
        self.main = threading.main_thread()
        self.stopped = False
        now = time.monotonic()
        self.state, self.state_since, self.idle_since = "host", now, now
        self.cpu: int | None = None
        self.main_cpu: int | None = None
        self.last_sample = now
        self.spot: tuple[object, int] | None = None      # (the user's frame, its line) last seen
        self.spot_since = now
        self.callbacks: dict[int, tuple[object, float]] = {}   # thread -> (its callback's frame, since)
        self.seen: dict[int, tuple[str | None, float]] = {}   # peer -> (its last heartbeat, when it changed)
        self.peers: dict[int, tuple[_Peer | None, float]] = {}   # peer -> (its last state, when read)
        self.reported: dict[int, float] = {}    # rank 0: straggler -> when it was last reported
        self.machine = _this_machine()
        self.cpu_of: dict[int, tuple[int, float]] = {}   # silent peer on this machine -> (its CPU ticks, when)
        self.gil_busy: set[int] = set()     # silent peers whose process runs (a call holds their GIL)

    def loop(self) -> None:
        seq = 0
        while not self.stopped:
            if seq:
                self.pause(1.0)
            seq += 1
            try:
                self.tick(seq)
            except Exception:  # noqa: BLE001  (the coordinator is gone: JAX's own heartbeat ends the rank)
                if not _state.initialized:
                    return

    def pause(self, seconds: float) -> None:
        """Wait between heartbeats, watching for an abort (a hung rank hears at once that it was found)."""
        end = time.monotonic() + seconds
        c = jd.global_state.client
        try:
            if c is not None:
                abort = c.blocking_key_value_get(f"{_WD_DIR}abort", int(seconds * 1000))
                self.leave(abort)
        except Exception:  # noqa: BLE001  (no abort in time; or the coordinator is gone)
            pass
        left = end - time.monotonic()
        if left > 0:
            time.sleep(left)

    def tick(self, seq: int) -> None:
        now = time.monotonic()
        me = self.sample(now)
        c = jd.global_state.client
        if c is None or self.stopped:
            return
        if seq == 1 and self.machine:
            c.key_value_set(f"{_WD_DIR}pid/{self.rank}", f"{self.machine} {os.getpid()}", allow_overwrite=True)
        c.key_value_set(f"{_WD_DIR}hb/{self.rank}", me.text(seq), allow_overwrite=True)
        entries = dict(c.key_value_dir_get(_WD_DIR))
        abort = entries.get(f"{_WD_DIR}abort")
        if abort is not None:
            self.leave(abort)
        everyone = {self.rank: me}
        heard: dict[int, tuple[str | None, float]] = {}
        for r in range(self.n):
            if r != self.rank:
                hb = entries.get(f"{_WD_DIR}hb/{r}")
                heard[r] = (hb, now - self.note(r, hb, now))
                p = _Peer.parse(hb)
                self.peers[r] = (p, heard[r][1])
                gil = p is not None and self.holds_gil(r, entries, now, heard[r][1])
                if p is not None and (heard[r][1] < self.stale_s or gil):
                    p.gil = gil
                    everyone[r] = p
        if self.rank == 0:      # first: a rank ended below is reported before (said once, at its start)
            self.report(everyone, now)
        waited = me.since if me.state in ("run", "sync") else 0.0
        if waited < min(self.hang_s, self.stale_s):
            return
        for r, (hb, silent) in heard.items():
            found = self.verdict(r, hb, silent, waited, me)
            if found is not None:
                self.end(c, r, *found, waited=waited, where=me.state)

    def end(self, c, r: int, why: str, setting: str, *, waited: float, where: str) -> None:
        """Name peer `r` as hung (`why`) to every rank, and leave."""
        place = "inside a program" if where == "run" else "in sc.distributed (an agreement or barrier)"
        msg = (f"rank {r} {why} while rank {self.rank} waited {waited:.0f} s for it {place}; stopping every rank "
               f"({setting})")
        frozen = why.startswith(("sent no", "never sent")) or r in self.gil_busy    # it cannot say where it is
        try:
            self.stopped = True     # from here on this rank leaves with exit code 3 (see `leaving`)
            c.key_value_set(f"{_WD_DIR}abort", f"{r} {self.rank} {msg}", allow_overwrite=True)
            if not frozen and r != 0:   # the hung rank says where it is before this one leaves
                c.blocking_key_value_get(f"{_WD_DIR}left/{r}", 3000)
        finally:
            self.leave(f"{r} {self.rank} {msg}")

    def verdict(self, r: int, hb: str | None, silent: float, waited: float, me: _Peer) -> tuple[str, str] | None:
        """(why, the setting that bounds it) when a peer whose last heartbeat is `hb` (unchanged
        for `silent` s) is hung, while this rank (`me`) has waited `waited` s for the others;
        or None."""
        hang = f"SHARDC_DIST_HANG_TIMEOUT={self.hang_s:g} s"
        if silent >= min(self.hang_s, self.stale_s) and r in self.gil_busy:    # alive and busy, not frozen
            kept = me.waited()
            if self.host_s and me.waits_for(r) and min(kept, silent) >= self.host_s:
                return (f"has been {_Peer('host', 0.0, silent, gil=True).doing()} for {silent:.0f} s",
                        f"SHARDC_DIST_HOST_TIMEOUT={self.host_s:g} s")
            return None
        if silent >= min(self.hang_s, self.stale_s):
            return ((f"sent no heartbeat for {silent:.0f} s (stopped, frozen, or gone)" if hb else
                     f"never sent a heartbeat in {silent:.0f} s"), hang)
        p = _Peer.parse(hb)
        if p is None or waited < self.hang_s or not me.waits_for(r):
            return None
        at = f" at {p.where}" if p.where else ""
        if p.state == "host" and p.idle >= self.hang_s:
            return (f"has been idle outside any program for {p.idle:.0f} s{at} (hung: it used no CPU time and was "
                    "not waiting in sc.distributed)", hang)
        if p.state == "cb" and p.since >= self.hang_s and p.idle >= self.hang_s and me.idle >= self.hang_s:
            return (f"has been inside a host callback of a program for {p.since:.0f} s{at} (hung: idle: it used "
                    "no CPU time; a rank waits for it in the program's collectives)", hang)
        kept = me.waited()
        if self.host_s and p.state in ("host", "cb") and kept >= self.host_s and min(p.since, kept) >= self.host_s:
            return f"has been {p.doing()}", f"SHARDC_DIST_HOST_TIMEOUT={self.host_s:g} s"
        return None

    def report(self, everyone: dict[int, _Peer], now: float) -> None:
        """Rank 0 (whose output `shardc run` shows as it comes) says which rank keeps the others
        waiting while busy, where it is and what to do: after `hang_s` seconds, then every
        `_REPORT_EVERY` seconds. A blocked one is not reported: it is ended at `hang_s`."""
        for r, p in everyone.items():
            kept = max((q.waited() for w, q in everyone.items() if w != r and q.waits_for(r)), default=0.0)
            if p.state not in ("host", "cb") or kept < self.hang_s or not p.busy():
                self.reported.pop(r, None)
                continue
            last = self.reported.get(r)
            if last is not None and now - last < _REPORT_EVERY:
                continue
            self.reported[r] = now
            if self.host_s:
                then = (f"the job ends if it keeps them waiting {self.host_s:g} s (SHARDC_DIST_HOST_TIMEOUT), "
                        "or press Ctrl-C")
            else:
                then = (f"a slow rank is waited for (up to the collective timeout, {_state.collective_timeout} s); "
                        "to end a job whose rank stays busy this long, set SHARDC_DIST_HOST_TIMEOUT=SECONDS, "
                        "or press Ctrl-C")
            try:
                sys.stderr.write(f"shardc: rank {r} has kept the others waiting {int(kept)} s: it is {p.doing()}. "
                                 f"{then[0].upper()}{then[1:]}\n")
                sys.stderr.flush()
            except (OSError, ValueError):
                pass

    def holds_gil(self, r: int, entries: dict, now: float, silent: float) -> bool:
        """Whether silent peer `r` runs on this machine, not stopped, using CPU time: a C call that
        holds Python's GIL (a regex, pickling a huge object) keeps its watchdog thread from sending
        heartbeats; such a rank is busy, not frozen. Unknown (another machine): False."""
        if silent < 2.0:
            self.cpu_of.pop(r, None)
            self.gil_busy.discard(r)
            return False
        machine, _, pid = (entries.get(f"{_WD_DIR}pid/{r}") or "").rpartition(" ")
        seen = _process_cpu(int(pid)) if machine == self.machine and self.machine and pid.isdigit() else None
        last = self.cpu_of.get(r)
        if seen is None or seen[0] in "TtZXx":
            self.cpu_of.pop(r, None)
            self.gil_busy.discard(r)
            return False
        self.cpu_of[r] = (seen[1], now)
        if last is not None and now > last[1]:
            if seen[1] - last[0] > _IDLE_TICKS_PER_S * max(now - last[1], 1.0):
                self.gil_busy.add(r)
            else:
                self.gil_busy.discard(r)
        return r in self.gil_busy

    def note(self, r: int, hb: str | None, now: float) -> float:
        """When peer `r`'s heartbeat last changed (by this rank's clock)."""
        last = self.seen.get(r)
        if last is None or last[0] != hb:
            self.seen[r] = (hb, now)
            return now
        return last[1]

    def sample(self, now: float) -> _Peer:
        """This rank's state: for how long its process has used almost no CPU time in it, for
        how long it has been in it (a new host callback starts a new 'cb' state), whether its
        main thread used CPU time, and where the user's code runs (a callback's, in 'cb')."""
        frames = sys._current_frames()
        main = frames.get(self.main.ident)
        running = _in_code(main, _run_code())
        new_callback = self.sample_callbacks(frames, now)
        state = "sync" if _waiting[0] else ("cb" if running and self.callbacks else "run" if running else "host")
        if state != self.state or (state == "cb" and new_callback):
            self.state, self.state_since, self.idle_since = state, now, now
        # the whole process's CPU time but the watchdog's own: a rank whose main thread waits for
        # its own worker threads (a data loader) or child processes is busy, not hung
        proc, mine = _family_ticks(), _cpu_ticks(threading.get_native_id())
        cpu = None if proc is None or mine is None else proc - mine
        main_cpu = _cpu_ticks(self.main.native_id)
        dt = max(now - self.last_sample, 1.0)
        if cpu is None or self.cpu is None or cpu - self.cpu > _IDLE_TICKS_PER_S * dt:
            self.idle_since = now
        main_busy = (main_cpu is not None and self.main_cpu is not None
                     and main_cpu - self.main_cpu > _IDLE_TICKS_PER_S * dt)
        self.cpu, self.main_cpu, self.last_sample = cpu, main_cpu, now
        if state == "cb":
            tid = min(self.callbacks, key=lambda t: self.callbacks[t][1])
            top = frames.get(tid)
        else:
            top = main
        try:
            where, stuck = self.where_now(top, now)
        except Exception:  # noqa: BLE001  (where is extra: the heartbeat must go out, or peers think this rank froze)
            where, stuck = "", 0.0
        return _Peer(state, now - self.idle_since, now - self.state_since, _awaited[0] if state == "sync" else -1,
                     main_busy, stuck, where)

    def where_now(self, top, now: float) -> tuple[str, float]:
        """The user's line the stack ending in `top` runs, and for how long that frame has stayed on it."""
        f = _user_frame(top) if top is not None else None
        if f is None:
            self.spot = None
            return "", 0.0
        spot = (f, f.f_lineno)
        if self.spot is None or self.spot[0] is not f or self.spot[1] != spot[1]:
            self.spot, self.spot_since = spot, now
        return _spot(f, spot[1]), now - self.spot_since

    def sample_callbacks(self, frames: dict, now: float) -> bool:
        """Record which threads run a host callback, and since when (by the callback's frame,
        held until the next sample so that a new call cannot reuse its identity); whether one
        started since the last sample."""
        codes = _callback_codes()
        seen: dict[int, tuple[object, float]] = {}
        new = False
        for tid, frame in frames.items():
            f = _find_code(frame, codes) if codes and tid != threading.get_ident() else None
            if f is None:
                continue
            last = self.callbacks.get(tid)
            if last is not None and last[0] is f:
                seen[tid] = last
            else:
                seen[tid], new = (f, now), True
        self.callbacks = seen
        return new

    def where(self) -> str:
        """Where this rank is (the stack of its main thread, and of the thread in a callback)."""
        frames = sys._current_frames()
        out = []
        stacks = [("main thread", frames.get(self.main.ident))]
        if self.callbacks:
            tid = min(self.callbacks, key=lambda t: self.callbacks[t][1])
            stacks.append(("thread running a host callback", frames.get(tid)))   # last: the summary's tail
        for name, frame in stacks:
            if frame is not None:
                out.append(f"rank {self.rank}'s {name} was at (most recent call last):\n"
                           + "".join(traceback.format_stack(frame)[-6:]))
        return "".join(out)

    def leave(self, abort: str) -> None:
        """Every rank leaves at once, the hung one saying where it was. Rank 0 serves the
        coordinator: it leaves last (JAX aborts a process whose coordinator goes away, with a
        C++ stack instead of its message), after every other rank said it is leaving."""
        culprit, _, rest = abort.partition(" ")
        by, _, msg = rest.partition(" ")
        self.stopped = True
        try:
            if culprit == str(self.rank):
                sys.stderr.write(f"shardc: rank {self.rank} was found hung by rank {by}: {msg}\n{self.where()}")
                if os.environ.get(ENV_TOKEN):
                    sys.stderr.write(f"{HUNG_MARKER}{culprit}\n")
            else:
                sys.stderr.write(f"shardc: rank {self.rank}: {msg}\n")
                if os.environ.get(ENV_TOKEN):       # started by the launcher: tell it whom to name
                    sys.stderr.write(f"{CULPRIT_MARKER}{culprit}\n{HUNG_MARKER}{culprit}\n")
            sys.stderr.flush()
            sys.stdout.flush()
            c = jd.global_state.client
            if self.rank != 0:
                c.key_value_set(f"{_WD_DIR}left/{self.rank}", "1")
            else:
                parts = msg.split(" ", 2)      # "rank R why...": a frozen rank cannot say it leaves
                frozen = len(parts) == 3 and parts[2].startswith(("sent no", "never sent"))
                deadline = time.monotonic() + 2.0
                for r in range(1, self.n):
                    if r == int(culprit) and frozen:
                        continue
                    c.blocking_key_value_get(f"{_WD_DIR}left/{r}",
                                             max(1, int((deadline - time.monotonic()) * 1000)))
                time.sleep(0.1)     # from their saying so to their exit
        except Exception:  # noqa: BLE001  (the coordinator is gone already, or a rank did not answer)
            pass
        finally:
            os._exit(3)

    def still_coming(self, r: int) -> bool:
        """Whether peer `r`, which has not yet reached an agreement, is alive and doing something
        else than waiting in sc.distributed (its heartbeat is fresh): if it hangs, this watchdog
        names it; a slow peer is waited for."""
        p, silent = self.peers.get(r, (None, 0.0))
        return (not self.stopped and p is not None and p.state != "sync"
                and (silent < self.stale_s or r in self.gil_busy))


def leaving() -> bool:
    """Whether the watchdog is ending this rank (exit code 3, after its message): a failure the
    main thread meets meanwhile (a collective broken by the hung rank's exit) must not exit first."""
    w = _Watchdog._instance
    return w is not None and w.stopped


def _in_code(frame, code) -> bool:
    """Whether `code` is on the stack that ends in `frame`."""
    return code is not None and _find_code(frame, (code,)) is not None


def _find_code(frame, codes):
    """The innermost frame of the stack ending in `frame` that runs one of `codes`, or None."""
    while frame is not None:
        if frame.f_code in codes:
            return frame
        frame = frame.f_back
    return None


def _callback_codes() -> tuple:
    """The code objects of the host-callback entry points (once that module is loaded)."""
    mod = sys.modules.get("shardc.primitives.callback")
    if mod is None:
        return ()
    return tuple(c for c in (getattr(getattr(getattr(mod, name, None), "__call__", None), "__code__", None)
                             for name in ("HostCallback", "PureHostCallback")) if c is not None)


def _run_code():
    """The code object of `Executable.__call__` (a program run), once that module is loaded."""
    mod = sys.modules.get("shardc.runtime.executable")
    cls = getattr(mod, "Executable", None)
    return getattr(getattr(cls, "__call__", None), "__code__", None)


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


def await_rank0_leaving(timeout_s: float = 10.0) -> None:
    """Leave in order after a job fault every rank found and has just said (joined ranks: each
    command reports its own rank). JAX aborts a process whose peer leaves first, so a rank whose
    message is not out yet must not see the job go away:

    * a rank other than 0 marks that it has said its fault, then waits (at most `timeout_s`) until
      rank 0 has left, taking the coordinator with it (rank 0 aborted before saying the fault left
      the job unexplained);
    * rank 0 waits (at most `timeout_s` in all) until every other rank has marked it: leaving as
      soon as the agreement was read aborted a rank still printing its message (exit 3, "Socket
      closed", instead of the fault's own code: seen under load)."""
    if not _state.initialized or process_count() == 1:
        return
    c, rank = _client(), process_index()
    if rank != 0:
        try:
            c.key_value_set(f"shardc/said/{rank}", "1")
            # a key nobody sets: returns when the coordinator goes away, or at the timeout
            c.blocking_key_value_get("shardc/rank0-left", max(1, int(timeout_s * 1000)))
        except Exception:  # noqa: BLE001  (rank 0 left: the coordinator went away with it)
            pass
        return
    until = time.monotonic() + timeout_s
    for r in range(1, process_count()):
        try:
            c.blocking_key_value_get(f"shardc/said/{r}", max(1, int((until - time.monotonic()) * 1000)))
        except Exception:  # noqa: BLE001  (that rank died, or did not say in time: leave anyway)
            pass


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


@_waits
def shutdown() -> None:
    """Leave the job cleanly (every rank must call it; the shutdown barrier waits
    for all of them)."""
    if not _state.initialized:
        return
    jax.distributed.shutdown()
    _state.initialized = False


@_waits
def barrier(name: str, timeout_s: float = 60) -> None:
    """Wait until every rank reaches the barrier `name` (names must be unique per use)."""
    if process_count() == 1:
        return
    _client().wait_at_barrier(f"shardc/{name}", int(timeout_s * 1000))


@_waits
def allgather_str(name: str, value: str, timeout_s: float = 60) -> list[str]:
    """Every rank's `value` for key `name`, in rank order (through the coordinator's
    key-value store; `name` must be unique per use)."""
    if process_count() == 1:
        return [value]
    c = _client()
    rank, n = process_index(), process_count()
    c.key_value_set(f"shardc/gather/{name}/{rank}", value)
    return [c.blocking_key_value_get(f"shardc/gather/{name}/{r}", int(timeout_s * 1000)) for r in range(n)]


#: how long ranks wait for each other at an agreement point (seconds; SHARDC_DIST_AGREE_TIMEOUT)
#: before a rank that has not come is taken for dead; one alive and busy elsewhere is waited for
#: (up to the collective timeout), and the watchdog names one that hangs (in ~6 s)
AGREE_TIMEOUT = 12.0


def agree_timeout() -> float:
    try:
        return float(os.environ.get("SHARDC_DIST_AGREE_TIMEOUT", "") or AGREE_TIMEOUT)
    except ValueError:
        return AGREE_TIMEOUT


@_waits
def agree(name: str, value: str, timeout_s: float = AGREE_TIMEOUT) -> tuple[list[str | None], list[int]]:
    """Every rank's `value` for `name` (unique per use, same order on every rank), waiting at
    `timeout_s` seconds in all for the others, longer for a rank still alive and busy (see
    `_await_peer`): (values in rank order, None for a rank that did not answer; the ranks that
    did not answer). A rank that died is named instead of holding the job until a collective
    times out; one that hangs, by the watchdog."""
    if process_count() == 1:
        return [value], []
    c = _client()
    rank, n = process_index(), process_count()
    c.key_value_set(f"shardc/agree/{name}/{rank}", value)
    start = time.monotonic()
    deadline = start + timeout_s
    backstop = start + max(timeout_s, _state.collective_timeout)
    values: list[str | None] = []
    missing: list[int] = []
    for r in range(n):
        v = _await_peer(c, f"shardc/agree/{name}/{r}", r, deadline, backstop)
        values.append(v)
        if v is None:
            missing.append(r)
        deadline = max(deadline, time.monotonic())   # time waited for a slow peer is not taken from the next
    _all_have_read(c, name, rank, n, missing, deadline)
    return values, missing


def _await_peer(c, key: str, r: int, deadline: float, backstop: float) -> str | None:
    """Rank `r`'s value at `key`, or None when it did not come by `deadline`. With the watchdog
    running, a rank still alive and busy elsewhere (not waiting in sc.distributed itself) is
    waited for past `deadline`, up to `backstop` (the collective timeout): it is slow, not hung,
    and if it hangs the watchdog names it and ends the job."""
    _awaited[0] = r       # the watchdog blames no other rank meanwhile
    try:
        return _await_peer_value(c, key, r, deadline, backstop)
    finally:
        _awaited[0] = -1


def _await_peer_value(c, key: str, r: int, deadline: float, backstop: float) -> str | None:
    while True:
        now = time.monotonic()
        wd = _Watchdog._instance
        # with the watchdog: 1 s slices (past the deadline too: the peer may come, or be found hung)
        left = deadline - now if wd is None else (min(deadline - now, 1.0) if now < deadline else 1.0)
        try:
            return c.blocking_key_value_get(key, max(1, int(left * 1000)))
        except Exception as e:  # noqa: BLE001  (a timeout, or the coordinator went away with rank 0)
            now = time.monotonic()
            timed_out = "DEADLINE" in str(e).upper() or "TIMED OUT" in str(e).upper()
            if (wd is None or not timed_out or now >= backstop
                    or (now >= deadline and not wd.still_coming(r))):
                return None


def _all_have_read(c, name: str, rank: int, n: int, missing: list[int], deadline: float) -> None:
    """The coordination service lives in rank 0's process: when an agreement ends the job on
    every rank (a failure on some ranks), rank 0 must not exit, taking the service down, before
    the others have read every value, or they would report each other as missing."""
    if rank != 0:
        try:
            c.key_value_set(f"shardc/agree/{name}/read/{rank}", "1")
        except Exception:  # noqa: BLE001  (rank 0 left already: this rank has read every value)
            pass
        return
    # a rank that answered is alive and reads next: wait for it past the agreement's deadline (on
    # a loaded machine rank 0 left first and the others failed writing this key: seen in CI)
    until = max(deadline, time.monotonic() + _READ_GRACE_S)
    for r in range(1, n):
        if r in missing:
            continue
        try:
            c.blocking_key_value_get(f"shardc/agree/{name}/read/{r}",
                                     max(1, int((until - time.monotonic()) * 1000)))
        except Exception:  # noqa: BLE001  (that rank died after answering: nothing to wait for)
            pass


#: seconds rank 0 waits, past an agreement's deadline, for the ranks that answered to read it
_READ_GRACE_S = 10.0


_programs_agreed = [0]


def agree_on_program(fingerprint: str) -> None:
    """Before the first run of a program over several processes' devices: every rank must be
    about to run the same program (the n-th such program of each rank), else its collectives
    would pair with another program's and compute wrong numbers. A rank that runs another
    program, or does not arrive (see `agree`), is named."""
    if process_count() == 1:
        return
    k = _programs_agreed[0]
    _programs_agreed[0] += 1
    t0 = time.monotonic()
    values, missing = agree(f"program/{k}", fingerprint, timeout_s=agree_timeout())
    me = process_index()
    if missing:     # the time waited: past the agreement's timeout for a rank alive and busy
        sys.stderr.write(f"{CULPRIT_MARKER}{missing[0]}\n")
        raise ShardcRuntimeError(
            f"rank {me}: rank(s) {', '.join(map(str, missing))} did not reach this program (run #{k + 1} over "
            f"several processes) in {time.monotonic() - t0:.0f} s: hung, died, or failed before it; not running it",
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
