"""The launcher of multi-process jobs on one machine: starts K ranks (each runs
`shardc.runtime.distributed_worker`, which calls `distributed.initialize()`),
watches them, stops the others soon after one fails and kills the job at its
timeout. It defines the environment protocol the ranks read; the in-rank side
is `shardc/runtime/distributed.py`.
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
ENV_HOST = "SHARDC_DIST_HOST"                    # the address a rank's collectives listen on
ENV_ALLOW_REMOTE = "SHARDC_DIST_ALLOW_REMOTE"    # "1": the coordinator may be off loopback
ENV_INIT_TIMEOUT = "SHARDC_DIST_INIT_TIMEOUT"    # seconds for every process to join

#: a rank that finds another rank at fault (it hung, or failed alone) says so on stderr with this
#: line; the launcher then names that rank, not the first one to exit
CULPRIT_MARKER = "shardc-culprit-rank: "
#: ... and with this one when that rank hung (the watchdog in `distributed.py` found it idle or frozen)
HUNG_MARKER = "shardc-hung-rank: "
#: the line after a settings mismatch a rank has said as it found it (JAX may then abort that rank
#: when its peer leaves first; `shardc run` still reports the mismatch, exit code 2)
SETTINGS_MARKER = "shardc-settings-mismatch-said"
#: ... and this one, with the exit code, after any fault a rank of `shardc run` has said (the same reason)
SAID_MARKER = "shardc-said-exit-code: "

DEFAULT_HEARTBEAT_TIMEOUT = 10
DEFAULT_SHUTDOWN_TIMEOUT = 10
DEFAULT_INIT_TIMEOUT = 30
DEFAULT_COLLECTIVE_TIMEOUT = 300    # a backstop: the watchdog (distributed.py) names a hung rank first


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
    failed_hung: bool = False       # the failed rank hung (a peer's collective timed out waiting for it)

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
            if r.killed or self.failed_hung:
                lines.append(f"rank {r.rank} stopped answering (hung or stalled) and was stopped after "
                             f"{r.elapsed:.2f} s")
            else:
                lines.append(f"rank {r.rank} failed ({_describe_rc(r.returncode)}) after {r.elapsed:.2f} s")
        if self.timed_out:
            lines.append(f"the job ran past its timeout of {self.timeout or self.elapsed:.0f} s and was stopped")
        stopped = [r.rank for r in self.ranks if r.killed]
        if stopped:
            lines.append(f"stopped rank(s) {', '.join(map(str, stopped))}")
        others = [r for r in self.ranks if not r.killed and not r.ok and r.rank != self.failed_rank
                  and not (self.failed_hung and CULPRIT_MARKER in r.stderr)]   # they only stopped for it
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
    return (line.startswith("[Gloo]") or line.startswith((CULPRIT_MARKER, HUNG_MARKER, SETTINGS_MARKER, SAID_MARKER))
            or s.startswith("*** Check failure stack trace")
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


_PROTOCOL = (ENV_COORDINATOR, ENV_NUM_PROCESSES, ENV_PROCESS_ID, ENV_LOCAL_DEVICES, ENV_TOKEN, ENV_COLLECTIVE_TIMEOUT,
             ENV_LAUNCHED_AT, ENV_HOST, ENV_ALLOW_REMOTE, ENV_INIT_TIMEOUT)


def _worker_env(base: dict | None, extra: dict | None) -> dict:
    env = dict(os.environ if base is None else base)
    for k in [k for k in env if k.lower().endswith("_proxy")]:
        del env[k]
    for k in _PROTOCOL:       # the job's own settings come from the launcher (tunables such as
        env.pop(k, None)      # SHARDC_DIST_HANG/HOST/AGREE_TIMEOUT pass through)
    env.pop("JAX_COORDINATOR_ADDRESS", None)
    env.pop("JAX_PLATFORMS", None)
    env.setdefault("PYTHONUNBUFFERED", "1")
    # `python -m` would put the working directory first on sys.path: a numpy.py there broke every rank
    env["PYTHONSAFEPATH"] = "1"
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
    coll = collective_timeout or DEFAULT_COLLECTIVE_TIMEOUT
    job = _Job(n, on_output)
    token, launched_at = secrets.token_hex(8), time.time()
    cmd = [python or sys.executable, "-m", "shardc.runtime.distributed_worker", *targs, "--", *args]
    restore = _stop_on_signals(job)
    try:
        for rank in range(n):
            wenv = _rank_env(env, extra_env, rank, n, dpp, port, token, coll, launched_at)
            job.start(rank, cmd, wenv, cwd)
        timed_out, killed = job.watch(deadline, grace)
    finally:
        job.kill_all()   # an exception, Ctrl-C or SIGTERM in the launcher: leave nothing behind
        restore()
    return job.result(timed_out, killed, port)


def join(target, coordinator: str, num_processes: int, process_id: int, devices_per_process: int = 1,
         args: Sequence[str] = (), *, host: str | None = None, allow_remote: bool = False,
         init_timeout: int = DEFAULT_INIT_TIMEOUT, collective_timeout: int | None = None,
         env: dict | None = None, extra_env: dict | None = None, cwd: str | None = None,
         on_output: Callable[[int, str, str], None] | None = None, python: str | None = None) -> RankResult:
    """Run `target` as process `process_id` of a job this launcher did not start (the other
    processes are started elsewhere, e.g. on other hosts, each by its own `join`), in a child
    process watched like a rank of `launch`: JAX aborts a process whose job fails to form or
    loses a member, and the caller turns that into a message. SIGINT/SIGTERM stop the child.
    Returns its `RankResult` (rank = `process_id`)."""
    targs = _target_args(target)
    coll = collective_timeout or DEFAULT_COLLECTIVE_TIMEOUT
    job = _Job(1, None if on_output is None else (lambda _r, stream, line: on_output(process_id, stream, line)))
    cmd = [python or sys.executable, "-m", "shardc.runtime.distributed_worker", *targs, "--", *list(args)]
    wenv = _rank_env(env, extra_env, process_id, num_processes, devices_per_process, 0, "", coll,
                     _process_start_time() or time.time())    # the init timeout counts from the command's start
    wenv[ENV_COORDINATOR] = coordinator
    del wenv[ENV_TOKEN]            # the processes of the job share no secret: the check compares settings
    wenv[ENV_INIT_TIMEOUT] = str(int(init_timeout))
    if host:
        wenv[ENV_HOST] = host
    if allow_remote:
        wenv[ENV_ALLOW_REMOTE] = "1"
    restore = _stop_on_signals(job)
    try:
        job.start(0, cmd, wenv, cwd)
        job.watch(float("inf"), 0.0)
    finally:
        job.kill_all()
        restore()
    r = job.result(False, set(), 0).ranks[0]
    r.rank = process_id
    return r


def _process_start_time() -> float | None:
    """When this process started (time.time() scale; Linux), or None."""
    try:
        with open("/proc/self/stat") as f:
            start_ticks = int(f.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/stat") as f:
            btime = next(int(ln.split()[1]) for ln in f if ln.startswith("btime "))
        t = btime + start_ticks / os.sysconf("SC_CLK_TCK")
        return t if 0 <= time.time() - t < 3600 else None
    except (OSError, ValueError, IndexError, StopIteration):
        return None


class LaunchStopped(KeyboardInterrupt):
    """The launcher got SIGTERM (or SIGHUP): its ranks were killed; `signum` says which."""

    def __init__(self, signum: int):
        super().__init__(f"stopped by {signal.Signals(signum).name}")
        self.signum = signum


def _stop_on_signals(job: "_Job") -> Callable[[], None]:
    """Turn SIGTERM/SIGHUP into `LaunchStopped` (and SIGINT into KeyboardInterrupt) while ranks
    run, so the launcher's `finally` kills every rank; returns the undo. Ranks run in their own
    sessions, so a signal to the launcher alone never reaches them. A signal that comes while a
    rank is being started is taken once its process is recorded (`_Job.start`): raised inside
    `Popen`, after the fork, it left that rank running (seen under load)."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def stop(signum, _frame):
        if job.starting:
            job.pending = signum
            return
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise LaunchStopped(signum)

    old = {}
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        if sig == signal.SIGINT and signal.getsignal(sig) is not signal.default_int_handler:
            continue     # the caller handles Ctrl-C its own way
        try:
            old[sig] = signal.signal(sig, stop)
        except (ValueError, OSError):
            pass

    def restore() -> None:
        for sig, h in old.items():
            try:
                signal.signal(sig, h)
            except (ValueError, OSError):
                pass
    return restore


def _rank_env(env, extra_env, rank: int, n: int, dpp: int, port: int, token: str, coll: int,
              launched_at: float) -> dict:
    """One rank's environment: the protocol `distributed.initialize()` reads, and the
    gloo collective timeout (an XLA flag that must be set before the backend starts)."""
    wenv = _worker_env(env, extra_env)
    wenv.update({ENV_COORDINATOR: f"127.0.0.1:{port}", ENV_NUM_PROCESSES: str(n),
                 ENV_PROCESS_ID: str(rank), ENV_LOCAL_DEVICES: str(dpp), ENV_TOKEN: token,
                 ENV_COLLECTIVE_TIMEOUT: str(coll), ENV_LAUNCHED_AT: repr(launched_at),
                 "SHARDC_CPU_DEVICES": str(dpp)})
    flags = wenv.get("XLA_FLAGS", "")
    if "xla_cpu_collective_timeout_seconds" not in flags:
        wenv["XLA_FLAGS"] = (flags + f" --xla_cpu_collective_timeout_seconds={coll}").strip()
    return wenv


class _Job:
    """The ranks of one launch: their processes, output pumps and exit watchers."""

    def __init__(self, n: int, on_output):
        self.n, self.on_output = n, on_output
        self.procs: list[subprocess.Popen] = []
        self.bufs: list[dict[str, list[str]]] = []
        self.threads: list[threading.Thread] = []
        self.waiters: list[threading.Thread] = []
        self.wake = threading.Event()
        self.starts: list[float] = []
        self.ends: list[float | None] = [None] * n
        self.t0 = time.monotonic()
        self.starting = False           # a rank's process is being created: a stop signal waits
        self.pending: int | None = None     # ... and is this one

    def start(self, rank: int, cmd: list[str], env: dict, cwd) -> None:
        self.starting = True
        try:
            p = subprocess.Popen(cmd, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, errors="replace", bufsize=1,
                                 start_new_session=True)
            self.procs.append(p)
        finally:
            self.starting = False
        if self.pending is not None:        # stopped while it started: now it is killed with the others
            raise KeyboardInterrupt if self.pending == signal.SIGINT else LaunchStopped(self.pending)
        self.starts.append(time.monotonic())
        self.bufs.append({"stdout": [], "stderr": []})
        for name, stream in (("stdout", p.stdout), ("stderr", p.stderr)):
            th = threading.Thread(target=self._pump, args=(rank, name, stream), daemon=True)
            th.start()
            self.threads.append(th)
        w = threading.Thread(target=self._wait, args=(rank, p), daemon=True)
        w.start()
        self.waiters.append(w)

    def _pump(self, rank: int, name: str, stream) -> None:
        buf = self.bufs[rank][name]
        for line in iter(stream.readline, ""):
            if name == "stdout" and line.startswith("[Gloo] Rank "):
                continue   # gloo's C++ connection notes (one per device group), not the target's output
            buf.append(line)
            if self.on_output is not None:
                try:
                    self.on_output(rank, name, line.rstrip("\n"))
                except Exception:  # noqa: BLE001  (a bad callback must not hang the job)
                    pass
        stream.close()

    def _wait(self, rank: int, p: subprocess.Popen) -> None:
        p.wait()
        self.ends[rank] = time.monotonic()     # when it exited: the first failure is the culprit
        self.wake.set()

    def watch(self, deadline: float, grace: float) -> tuple[bool, set[int]]:
        """Wait for every rank; `grace` seconds after one fails (or at the
        deadline) kill the rest. Whether it timed out, and the ranks killed."""
        kill_at = failed_at = None
        timed_out = False
        killed: set[int] = set()
        while True:
            self.wake.wait(0.05)
            self.wake.clear()
            now = time.monotonic()
            done = [r for r in range(self.n) if self.ends[r] is not None]
            if kill_at is None and any(self.procs[r].returncode != 0 for r in done):
                kill_at, failed_at = now + grace, now
            if failed_at is not None and any(self._said_hung(r) for r in done):
                # the watchdog told every rank to leave: one still there a second later is frozen
                kill_at = min(kill_at, failed_at + min(grace, 1.0))
            if len(done) == self.n:
                return timed_out, killed
            if now >= deadline:
                timed_out = True
                kill_at = now
            if kill_at is not None and now >= kill_at:
                for rank, p in enumerate(self.procs):
                    if self.ends[rank] is None:
                        _kill(p)
                        killed.add(rank)
                for w in self.waiters:
                    w.join(timeout=5)
                return timed_out, killed

    def _said_hung(self, rank: int) -> bool:
        """Whether `rank` left saying a rank hung (the watchdog's marker)."""
        return any(ln.startswith(HUNG_MARKER) for ln in self.bufs[rank]["stderr"][-8:])

    def kill_all(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                _kill(p)

    def _culprit(self) -> int | None:
        """The rank a failing rank named as the cause (`CULPRIT_MARKER`), if any; or the one
        JAX's coordination service found silent ("unhealthy (stopped sending heartbeats):")."""
        for rank in range(self.n):
            for line in self.bufs[rank]["stderr"]:
                if line.startswith(CULPRIT_MARKER):
                    v = line[len(CULPRIT_MARKER):].strip()
                    if v.isdigit() and int(v) < self.n:
                        return int(v)
        for rank in range(self.n):
            lines = self.bufs[rank]["stderr"]
            for i, line in enumerate(lines[:-1]):
                if "stopped sending heartbeats):" in line:
                    v = lines[i + 1].strip().split(",")[0].strip()
                    if v.isdigit() and int(v) < self.n:
                        lines.append(f"{HUNG_MARKER}{v}\n")    # silent: it hung, froze or died
                        return int(v)
        return None

    def result(self, timed_out: bool, killed: set[int], port: int) -> LaunchResult:
        for th in self.threads:
            th.join(timeout=5)
        ends, procs = self.ends, self.procs
        failing = [r for r in range(self.n) if r not in killed and ends[r] is not None and procs[r].returncode != 0]
        # the culprit: the first to exit, preferring ranks that did not fail because a peer went away
        failed_rank = min(failing, key=lambda r: (_peer_failure("".join(self.bufs[r]["stderr"])), ends[r]),
                          default=None)
        failed_hung = False
        named = self._culprit()
        if named is not None and failed_rank is not None:
            failed_rank = named
            failed_hung = any(ln.startswith(HUNG_MARKER) for r in range(self.n) for ln in self.bufs[r]["stderr"])
        elif (failed_rank is not None and not timed_out
              and _collective_timeout("".join(self.bufs[failed_rank]["stderr"]))):
            # its collective waited for a rank that never came: that rank hung (it was still running
            # when this one gave up; killed by the launcher, or by JAX when the coordinator left)
            hung = [r for r in range(self.n) if r != failed_rank and procs[r].returncode != 0
                    and (r in killed or (ends[r] or 0) > ends[failed_rank])
                    and not _collective_timeout("".join(self.bufs[r]["stderr"]))]
            if hung:
                failed_rank, failed_hung = min(hung), True
        ranks = [RankResult(rank, p.returncode, "".join(self.bufs[rank]["stdout"]),
                            "".join(self.bufs[rank]["stderr"]), killed=rank in killed,
                            elapsed=(ends[rank] or time.monotonic()) - self.starts[rank])
                 for rank, p in enumerate(procs)]
        return LaunchResult(ranks, time.monotonic() - self.t0, timed_out=timed_out, failed_rank=failed_rank,
                            port=port, failed_hung=failed_hung)


_PEER_GONE = ("Connection closed by peer", "Connection reset by peer", "Broken pipe")


def _peer_failure(stderr: str) -> bool:
    """Whether a rank failed in a collective because another rank went away (a
    consequence, not the cause: the rank that went away is the one to name)."""
    tail = stderr[-4000:]
    return any(p in tail for p in _PEER_GONE)


def _collective_timeout(stderr: str) -> bool:
    """Whether a rank failed because a collective timed out waiting for its peers."""
    tail = stderr[-4000:]
    return "Timed out" in tail and ("Gloo" in tail or "gloo" in tail or "collective" in tail)


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
