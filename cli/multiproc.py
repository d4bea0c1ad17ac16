"""`shardc run SCRIPT --processes K`: the same programs on K processes.

The command itself only launches: `sc.distributed.launch` starts K workers
(each with N/K CPU devices, on loopback) that run `rank_main`. Every rank
imports the script, builds each program (deterministic, so every rank
compiles the same module), draws the same deterministic inputs and feeds
only its process-local slice of them through
`sc.make_array_from_process_local_data`, runs the program, and gathers each
output to every process with a reshard to replicated inside a program (the
gathered value is checked against the rank's own addressable shards). Rank 0
prints the usual report; its stdout and stderr reach the user as they come.
Other ranks' output is kept and shown (the end of it) only if one fails.

Failures: the ranks agree (through the coordinator, `sc.distributed.agree`) after
importing the script and after building each program, before anything runs: a
program that fails alike on every rank is reported by rank 0 and the run goes on;
a failure on some ranks only (a rank-local type error, the user's code raising on
one rank) or programs that differ between ranks stop every rank with that rank's
message, before any collective could pair with another program's and print a wrong
number; a rank that hangs before it reaches the agreement is named by the watchdog
(`sc.distributed`, SHARDC_DIST_HANG_TIMEOUT), one that died after
`SHARDC_DIST_AGREE_TIMEOUT` seconds (12; a rank alive and busy is waited for), and
the job ends (exit code 3). An error
while placing inputs or running ends that rank at once; the launcher then stops the
others after a short grace time and the command exits non-zero naming the rank.
SIGINT/SIGTERM to the command kill every rank.
"""
from __future__ import annotations

import contextlib
import hashlib
import io
import os
import re
import statistics
import sys
import time
import traceback
from dataclasses import dataclass

import click
import numpy as np
from rich.text import Text

import shardc as sc
from shardc.runtime import launcher
from shardc.runtime.launcher import CULPRIT_MARKER, ENV_TOKEN, HUNG_MARKER, SAID_MARKER, SETTINGS_MARKER

from . import boundary, render
from .loading import PROGRAM_ERROR, USAGE, ProgramFailure, UsageFailure, load_script
from .running import (
    build,
    check_host_memory,
    checksum,
    compile_label,
    draw_inputs,
    load_inputs,
    timed_runs,
    values_text,
)

WORKER = "shardc.cli.multiproc:rank_main"


# --- the command's side ------------------------------------------------------------------------------
def run_multiprocess(script: str, program: str | None, devices: int, platform: str | None, quiet: bool,
                     seed: int, inputs: str | None, save: str | None, repeat: int, processes: int,
                     timeout: float) -> None:
    """Launch `processes` ranks of `rank_main` and relay rank 0's report."""
    if platform not in (None, "cpu"):
        raise UsageFailure(f"--processes runs on CPU devices over loopback only; drop --platform {platform}")
    if devices % processes:
        raise UsageFailure(f"--devices {devices} cannot be split over --processes {processes}: "
                           f"the devices must be a multiple of the processes")
    args = _rank_args(script, program, devices, quiet, seed, inputs, save, repeat)
    out, err = sys.stdout, sys.stderr

    def relay(rank: int, stream: str, line: str) -> None:
        if (rank != 0 or line.startswith("[Gloo]") or line.startswith("shardc: rank 0 exited with code")
                or line.startswith(CULPRIT_MARKER)):
            return
        target = out if stream == "stdout" else err
        target.write(line + "\n")
        target.flush()

    # `--no-cache` (or the API's switch) reaches the ranks through their environment
    off = None if sc.compilation_cache.is_enabled() else {"SHARDC_CACHE": "0"}
    res = sc.distributed.launch(WORKER, processes, devices // processes, args, timeout=timeout,
                                on_output=relay, extra_env=off)
    con = render.console(stderr=True)
    if res.ok:
        con.print(Text(f"{processes} processes × {devices // processes} devices: {res.elapsed:.2f} s from "
                       f"launch to exit", style="dim"))
        return
    code = res.exit_code if res.exit_code > 0 else PROGRAM_ERROR
    culprit = res.ranks[res.failed_rank] if res.failed_rank is not None else None
    if res.timed_out or (culprit is not None and (culprit.killed or (culprit.returncode or 0) < 0)):
        code = boundary.RUNTIME_ERROR     # a rank hung, stalled or was killed by a signal
    rc0 = _said_code(res.ranks[0])
    named = any(CULPRIT_MARKER in r.stderr for r in res.ranks)   # a rank named another as the cause
    if not res.timed_out and not named and rc0 in (USAGE, PROGRAM_ERROR) and all(
            _said_code(r) == rc0 and not r.killed for r in res.ranks):
        # every rank failed alike (a usage error, a program that does not type-check):
        # rank 0 has said why already
        raise click.exceptions.Exit(rc0)
    # rank 0's own messages were relayed already; another rank's are shown here
    msg = res.message(tail_lines=0 if res.failed_rank == 0 else 20)
    if code == USAGE:
        raise UsageFailure(msg)
    failure = ProgramFailure(msg)
    failure.exit_code = code
    raise failure


# --- one process of a multi-host job (`--coordinator` / `--cluster`) --------------------------------------
@dataclass(frozen=True)
class JobOptions:
    """How `shardc run` joins a job it did not start (one process per invocation)."""

    coordinator: str | None
    num_processes: int | None
    process_id: int | None
    cluster: str | None
    allow_remote: bool
    host: str | None
    init_timeout: int


def run_rank(script: str, program: str | None, devices: int, platform: str | None, quiet: bool, seed: int,
             inputs: str | None, save: str | None, repeat: int, job: JobOptions) -> None:
    """Join the job as one process (as `jax.distributed.initialize` would) and run `rank_entry`
    in a child process watched by `sc.distributed.join`: JAX aborts a process whose job does not
    form or loses a member; this command reports that in words (exit code 3) instead."""
    if platform not in (None, "cpu"):
        raise UsageFailure(f"--coordinator/--cluster run on CPU devices; drop --platform {platform}")
    try:
        coord, n, pid, host = sc.distributed.job_settings(
            job.coordinator, job.num_processes, job.process_id, cluster=job.cluster,
            allow_remote_coordinator=job.allow_remote, host=job.host, init_timeout=job.init_timeout)
    except sc.ShardcValueError as e:
        raise UsageFailure(_cli_words(str(e))) from None
    if devices % n:
        raise UsageFailure(f"--devices {devices} cannot be split over {n} processes: the devices (of the whole "
                           f"job) must be a multiple of the processes")
    args = _rank_args(script, program, devices, quiet, seed, inputs, save, repeat)
    off = None if sc.compilation_cache.is_enabled() else {"SHARDC_CACHE": "0"}
    out, err = sys.stdout, sys.stderr
    in_log = [False]     # inside a multi-line message of JAX's C++ log (reported in words instead)

    def relay(_rank: int, stream: str, line: str) -> None:
        if _ABSL_LOG.match(line):
            in_log[0] = True
        elif in_log[0] and not _log_continuation(line):
            in_log[0] = False
        if in_log[0] or _noise(line):
            return
        target = out if stream == "stdout" else err
        target.write(line + "\n")
        target.flush()

    r = launcher.join(RANK_ENTRY, coord, n, pid, devices // n, args, host=host, allow_remote=job.allow_remote,
                      init_timeout=job.init_timeout, on_output=relay, extra_env=off)
    con = render.console(stderr=True)
    if r.ok:
        con.print(Text(f"process {pid} of {n} × {devices // n} devices: {r.elapsed:.2f} s", style="dim"))
        return
    if SETTINGS_MARKER in r.stderr:       # said already; JAX may have aborted it as its peer left first
        raise click.exceptions.Exit(2)          # the worker's exit code for bad settings
    said = re.search(re.escape(SAID_MARKER) + r"(\d+)", r.stderr)
    if said:                                # a job fault said already (same reason)
        raise click.exceptions.Exit(int(said.group(1)))
    why = _join_failure(r, coord, n, pid, job.init_timeout)
    if why is not None:
        failure = ProgramFailure(why)
        failure.exit_code = boundary.RUNTIME_ERROR
        raise failure
    raise click.exceptions.Exit(r.returncode if r.returncode and r.returncode > 0 else boundary.RUNTIME_ERROR)


_ABSL_LOG = re.compile(r"^[FEWI]\d{4} \d\d:\d\d:\d\d")


def _noise(line: str) -> bool:
    """Lines of a rank that are for the launcher, or JAX's C++ abort (reported in words instead)."""
    s = line.strip()
    return (line.startswith(("[Gloo]", CULPRIT_MARKER, HUNG_MARKER, "shardc: rank ")) and "exited with code" in line
            or line.startswith(("[Gloo]", CULPRIT_MARKER, HUNG_MARKER, SETTINGS_MARKER, SAID_MARKER))
            or bool(_ABSL_LOG.match(line))
            or s.startswith(("RPC: /", "*** Check failure stack trace", "absl::Status")) or s.startswith("@ 0x")
            or (s.startswith("@ ") and "0x" in s))


def _log_continuation(line: str) -> bool:
    """A line of a multi-line message of JAX's C++ log (status texts, task lists, the stack)."""
    s = line.strip()
    return (not s or s.replace(",", "").replace(" ", "").isdigit() or "type.googleapis.com" in s
            or s.startswith(("The tasks have crashed", "RPC: /", "***", "@ ", "absl::Status", "Additional GRPC")))


def _join_failure(r, coord: str, n: int, pid: int, timeout_s: int) -> str | None:
    """What went wrong when JAX aborted this process (None: the process said why itself)."""
    text = r.stderr
    if r.returncode is None or r.returncode >= 0:
        return None
    if "RegisterTask" in text or ("DEADLINE_EXCEEDED" in text and "connect" in text.lower()):
        if pid == 0:
            return (f"process 0 of {n}: not every process joined the job at {coord} within {timeout_s} s. Start all "
                    f"{n} processes (--process-id 0..{n - 1}) with the same --coordinator and --num-processes, "
                    "or allow longer with --init-timeout when they start far apart")
        return (f"process {pid} of {n}: could not join the job at {coord} within {timeout_s} s: no coordinator "
                f"answered there, or not every process joined. Start process 0 (it serves the coordinator) with "
                f"the same --coordinator; check the address, port and firewall; give every process the same "
                f"--num-processes ({n} here); or allow longer with --init-timeout")
    if "detected fatal errors" in text or "another task died" in text or "unhealthy" in text:
        m = re.search(r"stopped sending heartbeats\):\s*\n\s*([\d, ]+)\n", text)
        who = f"process(es) {m.group(1).strip()}" if m else "another process"
        return (f"process {pid} of {n}: {who} of the job died, froze or left (the coordination service stopped "
                "hearing from it); see that process's output. This process stopped too")
    return f"process {pid} of {n} was killed ({launcher._describe_rc(r.returncode)})"


RANK_ENTRY = "shardc.cli.multiproc:rank_entry"


def rank_entry(argv: list[str]) -> int:
    """One process of a job joined with `--coordinator`/`--cluster`: `rank_main` with the
    CLI's error boundary (a message and an exit code, never a traceback)."""
    try:
        return rank_main(argv)
    except click.ClickException as e:
        e.show()
        return e.exit_code
    except sc.ShardcRuntimeError as e:
        return _said(boundary.RUNTIME_ERROR, str(e))
    except sc.ShardcInternalError as e:
        return _said(boundary.INTERNAL_ERROR, boundary.internal_summary(e))
    except sc.ShardcError as e:
        return _said(PROGRAM_ERROR, str(e))
    except Exception as e:  # noqa: BLE001  (the boundary of this process)
        return _said(boundary.INTERNAL_ERROR, "internal error: " + boundary.internal_summary(e))


def _said(code: int, message: str) -> int:
    render.error(render.console(stderr=True), message, "Error")
    return code


def _cli_words(message: str) -> str:
    """An `initialize` error in the CLI's option names."""
    for api, cli in (("allow_remote_coordinator=True (`shardc run --allow-remote-coordinator`)",
                      "--allow-remote-coordinator"), ("pass allow_remote_coordinator=True", "pass "
                      "--allow-remote-coordinator"), ("process_id must be", "--process-id must be"),
                     ("num_processes must be", "--num-processes must be")):
        message = message.replace(api, cli)
    return message


def _rank_args(script: str, program: str | None, devices: int, quiet: bool, seed: int, inputs: str | None,
               save: str | None, repeat: int) -> list[str]:
    """`rank_main`'s arguments (absolute paths: ranks may run elsewhere)."""
    args = [os.path.abspath(script), "--devices", str(devices), "--seed", str(seed), "--repeat", str(repeat)]
    if program:
        args += ["--program", program]
    if inputs:
        args += ["--inputs", os.path.abspath(inputs)]
    if save:
        args += ["--save", os.path.abspath(save)]
    if quiet:
        args += ["--quiet"]
    return args


# --- one rank -------------------------------------------------------------------------------------------
def _parse(argv: list[str]) -> dict:
    @click.command()
    @click.argument("script")
    @click.option("--devices", type=int, required=True)
    @click.option("--seed", type=int, default=0)
    @click.option("--repeat", type=int, default=5)
    @click.option("--program", default=None)
    @click.option("--inputs", default=None)
    @click.option("--save", default=None)
    @click.option("--quiet", is_flag=True)
    def parse(**kw):
        return kw
    return parse.main(argv, standalone_mode=False)




class _JobFault(Exception):
    """The ranks disagree, or one did not answer: every rank stops (no closing barrier)."""

    def __init__(self, message: str, culprit: int, code: int):
        super().__init__(message)
        self.culprit, self.code = culprit, code


def rank_main(argv: list[str]) -> int:
    """One rank of `shardc run --processes K` (sc.distributed is initialized)."""
    opts = _parse(argv)
    rank = sc.distributed.process_index()
    try:
        _agree_options(opts)
        if rank == 0:
            return _rank(opts, rank)
        with contextlib.redirect_stdout(io.StringIO()):   # only rank 0 prints the report
            return _rank(opts, rank)
    except _JobFault as e:
        render.error(render.console(stderr=True), str(e))
        if os.environ.get(ENV_TOKEN):       # started by the launcher: tell it whom to name
            sys.stderr.write(f"{CULPRIT_MARKER}{e.culprit}\n")
        else:       # a rank joined by `--coordinator` (its command reports this rank alone):
            sys.stderr.write(f"{SAID_MARKER}{e.code}\n")     # said: a later abort by JAX keeps this code
            sys.stderr.flush()
            sc.distributed.await_rank0_leaving()
        return e.code


def _agree_options(opts: dict) -> None:
    """Every process must run the same script with the same options (processes of a multi-host
    job are started one by one): else their programs or inputs would differ."""
    def digest(path: str | None) -> str:
        try:
            with open(path, "rb") as f:
                return hashlib.sha256(f.read()).hexdigest()[:12]
        except (OSError, TypeError):
            return "-"
    mine = {"script": digest(opts["script"]), "--devices": opts["devices"], "--seed": opts["seed"],
            "--repeat": opts["repeat"], "--program": opts["program"], "--inputs": digest(opts["inputs"])}
    t = sc.distributed.agree_timeout()
    values, missing = sc.distributed.agree("options", repr(sorted(mine.items())), timeout_s=t)
    me = sc.distributed.process_index()
    if missing:
        raise _JobFault(f"rank {me}: rank(s) {', '.join(map(str, missing))} did not start within {t:g} s (hung, or "
                        "died); stopping the job", missing[0], boundary.RUNTIME_ERROR)
    odd = [r for r, v in enumerate(values) if v != values[0]]
    if odd:
        r = odd[0]
        theirs, first = dict(_option_items(values[r])), dict(_option_items(values[0]))
        diff = ", ".join(f"{k} {theirs.get(k)} vs {first.get(k)}" if k != "script" else "another script file"
                         for k in first if theirs.get(k) != first.get(k))
        raise _JobFault(f"rank {r} was started with other options than rank 0 ({diff}): start every process of "
                        "the job with the same SCRIPT and options", r, USAGE)


def _option_items(text: str) -> list:
    """The (name, value) pairs `_agree_options` published (a repr of str/int/None items)."""
    import ast  # late: only when two processes' options differ
    try:
        return list(ast.literal_eval(text))
    except (ValueError, SyntaxError):
        return []


def _agree(key: str, what: str, status: str) -> list[str]:
    """Every rank's `status` ('ok …' or 'error …') at this point; a rank that does not answer
    in time, a failure on some ranks only, or different programs raise `_JobFault`."""
    t = sc.distributed.agree_timeout()
    values, missing = sc.distributed.agree(key, status, timeout_s=t)
    me = sc.distributed.process_index()
    if missing:
        who = ", ".join(map(str, missing))
        raise _JobFault(f"rank {me}: rank(s) {who} did not reach {what} within {t:g} s (hung, or died); "
                        "stopping the job", missing[0], boundary.RUNTIME_ERROR)
    errors = [r for r, v in enumerate(values) if v.startswith("error")]
    if errors and len(errors) < len(values):
        r = errors[0]
        raise _JobFault(f"rank {r} failed at {what} while rank(s) "
                        f"{', '.join(str(i) for i in range(len(values)) if i not in errors)} did not; stopping "
                        f"every rank before anything runs. Rank {r}'s error:\n{values[r][6:]}", r, PROGRAM_ERROR)
    if not errors and len(set(values)) > 1:
        odd = [r for r, v in enumerate(values) if v != values[0]]
        raise _JobFault(f"rank(s) {', '.join(map(str, odd))} built a different program than rank 0 at {what} "
                        "(the programs depend on the process: every rank must trace the same program); "
                        "stopping every rank before anything runs", odd[0], PROGRAM_ERROR)
    return values


def _failure_text(e: BaseException) -> str:
    """A build failure as the other ranks will show it."""
    if isinstance(e, (sc.ShardcError, click.ClickException)):
        return e.format_message() if isinstance(e, click.ClickException) else str(e)
    frames = [f for f in traceback.extract_tb(e.__traceback__) if "/shardc/" not in f.filename
              and "/cli/" not in f.filename]
    return (f"{type(e).__name__}: {e}\n(raised by your code)\n" + "".join(traceback.format_list(frames))).rstrip()


def _rank(opts: dict, rank: int) -> int:
    code = _rank_body(opts, rank)
    # the failures that get here are the same on every rank: leave together, so that
    # no rank sees the coordinator (rank 0) vanish under it
    sc.distributed.barrier("cli-run-done", timeout_s=60)
    return code


def _said_code(r) -> int | None:
    """A rank's exit code as it said it (`SAID_MARKER`), else its process's: a rank that said its
    failure and returned can still be aborted by JAX on the way out when rank 0, which serves the
    coordination service, left first (exit 1 where it meant 2)."""
    said = re.search(re.escape(SAID_MARKER) + r"(\d+)", r.stderr)
    return int(said.group(1)) if said else r.returncode


def _rank_body(opts: dict, rank: int) -> int:
    ready = sc.distributed.seconds_since_launch()
    try:
        s = load_script(opts["script"], echo=not opts["quiet"])
        progs = s.select(opts["program"])
        _check_mesh(s)
    except click.ClickException as e:
        _agree("load", "the script's import", f"error {e.exit_code} {e.format_message()}")
        e.show()      # every rank failed alike (a rank-local failure raised above)
        sys.stderr.write(f"{SAID_MARKER}{e.exit_code}\n")   # said: kept if JAX then aborts this rank's exit
        sys.stderr.flush()
        return e.exit_code
    _agree("load", "the script's import", "ok " + ",".join(p.name for p in progs))
    con = render.console()
    k = sc.distributed.process_count()
    con.print(Text(f"devices: {_devices_line(s, k)}", style="dim"))
    failed: list[str] = []
    saved: dict[str, np.ndarray] = {}
    err = render.console(stderr=True)
    for i, prog in enumerate(progs):
        render.header(con, s, prog)
        try:
            st = build(s, prog, "compile")
            check_host_memory(prog, st.in_types)
        except Exception as e:  # noqa: BLE001  (a type error, the user's exception: agreed on below)
            _agree(f"build/{i}", f"program `{prog.name}`", "error " + _failure_text(e))
            render.error(err, _failure_text(e), f"error in `{prog.name}`")   # the same on every rank: go on
            failed.append(prog.name)
            continue
        fingerprint = hashlib.sha256(s.call(st.lowered.as_text).encode()).hexdigest()[:16]
        _agree(f"build/{i}", f"program `{prog.name}`", f"ok {fingerprint}")
        types = st.in_types
        try:
            host = load_inputs(opts["inputs"], prog, types) if opts["inputs"] else draw_inputs(types, opts["seed"])
        except click.ClickException as e:
            e.show()
            return e.exit_code
        values, timings = s.call(lambda: _run(st, host, opts["repeat"]))
        labels = st.out_labels()
        con.print(render.types_table(prog, st.in_types, labels, st.out_types))
        con.print()
        con.print(render.outputs_table(labels, values, checksum, lambda a: values_text(a, few=4)))
        con.print()
        tm = st.traced.timings
        all_t = {}
        if ready is not None and prog is progs[0]:
            all_t["launch → joined"] = ready
            all_t["distributed init"] = sc.distributed.init_seconds()
        all_t.update({"trace": tm.trace, "type check": tm.typecheck, "emit": tm.emit, "verify": tm.verify,
                      compile_label(st.compiled): tm.compile})
        all_t.update(timings)
        con.print(render.timings_table(all_t))
        for pname, a in zip(prog.params, host):
            saved[f"{prog.name}.{pname}"] = a
        for i, a in enumerate(values):
            saved[f"{prog.name}.out.{i}"] = a
    if opts["save"] and saved and rank == 0:
        np.savez(opts["save"], **saved)
        render.console(stderr=True).print(f"saved inputs and outputs to {opts['save']}", markup=False)
    if failed:
        err.print(Text(f"error: {len(failed)} of {len(progs)} program(s) failed: {', '.join(failed)}",
                       style="bold red"))
        return PROGRAM_ERROR
    return 0


def _check_mesh(s) -> None:
    mesh = s.mesh
    if mesh is None:
        return
    have = {d.process_index for d in mesh.devices.flat}
    k = sc.distributed.process_count()
    if len(have) < k:
        import jax
        raise UsageFailure(
            f"{s.display}'s mesh uses {mesh.size} of the {jax.device_count()} devices, which leaves "
            f"process(es) {', '.join(str(p) for p in range(k) if p not in have)} without any; with "
            f"--processes {k}, run with --devices {mesh.size} (a multiple of {k})")


def _devices_line(s, k: int) -> str:
    mesh = s.mesh
    if mesh is None:
        return f"no mesh set by the script; {k} processes"
    d = mesh.devices.flat[0]
    axes = ", ".join(f"{n}={m}" for n, m in zip(mesh.axis_names, mesh.axis_sizes))
    return f"{mesh.size} × {d.platform} on mesh ({axes}), {k} processes × {mesh.size // k} devices"


def place_local(host: list[np.ndarray], types: list) -> list:
    """Each type's array built from this process's slice of the host data
    (call inside the script's context)."""
    mesh = sc.get_mesh()
    out = []
    for a, t in zip(host, types):
        if t.mesh.empty:
            out.append(a)
            continue
        spec = sc.P(*t.spec, reduced=t.reduced)
        sh = sc.NamedSharding(mesh, spec)
        x = sc.make_array_from_process_local_data(sh, sc.distributed.process_local_data(sh, a), a.shape)
        out.append(sc.reshard(x, t.pspec) if t.unreduced else x)
    return out


def _run(st, host: list[np.ndarray], repeat: int):
    """Place, run once and `repeat` more times, gather the outputs (every rank alike)."""
    outs, first, steady = timed_runs(st.compiled, place_local(host, st.in_types), repeat)
    t0 = time.perf_counter()
    values = [_gather_checked(o) for o in outs]
    timings = {"first run": first}
    if steady:
        timings["steady-state run"] = statistics.median(steady)
    timings["gather outputs"] = time.perf_counter() - t0
    return values, timings


def _gather_checked(o) -> np.ndarray:
    """The whole value of output `o`, checked against this rank's own shards."""
    full = sc.distributed.gather(o)
    if isinstance(o, sc.Array) and not o.aval.unreduced:
        for shard in o.addressable_shards:
            if not _same(full[shard.index], np.asarray(shard.data)):
                raise sc.ShardcInternalError(
                    f"rank {sc.distributed.process_index()}: the gathered output differs from this "
                    f"process's shard on device {shard.device.id} (a shardc bug)")
    return full


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    if np.array_equal(a, b):
        return True
    try:   # NaNs in the same places
        return np.array_equal(a.astype(np.float64), b.astype(np.float64), equal_nan=True)
    except (TypeError, ValueError):
        return False
