"""The `shardc` commands: check, compile, run, inspect, golden."""
from __future__ import annotations

import contextlib
import inspect as pyinspect
import io
import os
import sysconfig
import traceback
from pathlib import Path
from typing import Any, Callable

import click
import numpy as np
from rich.text import Text

import shardc as sc
from shardc.comm_cost import PLATFORM_LINKS, CostModel
from shardc.passes.cost import auto_axes_used, predict
from shardc.runtime import compile_cache as compilation_cache

from . import boundary, render
from . import costs as costs_mod
from . import golden as golden_mod
from . import report as report_mod
from .loading import ProgramFailure, Script, ScriptProgram, UsageFailure, configure_devices, load_script
from .running import build, checksum, run_program

EMIT_EXT = {"typed": "typed.txt", "stablehlo": "stablehlo.mlir", "hlo": "hlo.txt"}


# --- shared options and helpers ----------------------------------------------------------------------
def device_options(f: Callable) -> Callable:
    """`--devices N` and `--platform P`: applied before the script is imported."""
    f = click.option("--platform", type=click.Choice(["cpu", "gpu", "tpu"]), default=None,
                     envvar="SHARDC_PLATFORM", show_envvar=True,
                     help="Run on this platform (default: JAX's default backend).")(f)
    f = click.option("--devices", type=click.IntRange(min=1), default=8, show_default=True,
                     envvar="SHARDC_CPU_DEVICES", show_envvar=True,
                     help="Number of virtual CPU devices.")(f)
    return f


def cache_option(f: Callable) -> Callable:
    """`--no-cache`: compile every program with XLA, neither loading from nor writing to the
    persistent compilation cache (for this command only; SHARDC_CACHE=0 does it everywhere)."""
    def off(ctx: click.Context, _param, value: bool) -> None:
        if value:
            prev = compilation_cache.set_enabled(False)
            ctx.call_on_close(lambda: compilation_cache.set_enabled(prev))
    return click.option("--no-cache", is_flag=True, expose_value=False, callback=off,
                        help="Do not use the compilation cache (compile every program with XLA).")(f)


def cost_options(f: Callable) -> Callable:
    """`--cost-model P` and `--link AXIS=GB/s[,µs]`: the latency/bandwidth model of the estimates."""
    f = click.option("--link", "links", multiple=True, metavar="AXIS=GBPS[,USEC]",
                     help="Bandwidth (GB/s) and optionally latency (µs) of mesh axis AXIS ('*': every axis) "
                          "for the cost estimates; repeatable.")(f)
    f = click.option("--cost-model", type=click.Choice(list(PLATFORM_LINKS)), default=None,
                     help="Latency/bandwidth defaults of the cost estimates (default: the platform the "
                          "programs run on; docs/cost_model.md).")(f)
    return f


def cost_model_for(s: Script, platform: str | None, links: tuple[str, ...]) -> CostModel:
    """The cost model `--cost-model` / `--link` ask for (defaults: the devices' platform)."""
    if platform is None:
        mesh = s.mesh
        platform = mesh.devices.flat[0].platform if mesh is not None else "cpu"
    try:
        model = CostModel.for_platform(platform)
    except ValueError:
        model = CostModel.for_platform("cpu")
    for spec in links:
        axis, eq, rest = spec.partition("=")
        try:
            bw, _, lat = rest.partition(",")
            model = model.with_link(axis.strip() or "*", bandwidth=float(bw) * 1e9 if bw.strip() else None,
                                    latency=float(lat) * 1e-6 if lat.strip() else None)
            if not eq or (not bw.strip() and not lat.strip()):
                raise ValueError
        except ValueError:
            raise UsageFailure(f"--link {spec!r}: expected AXIS=GBPS[,USEC], e.g. --link data=25,10") from None
    return model


def script_argument(f: Callable) -> Callable:
    """SCRIPT, and `-q` to hide what it prints."""
    f = click.option("-q", "--quiet", is_flag=True,
                     help="Hide what the script itself prints (shown on stderr by default).")(f)
    return click.argument("script", type=click.Path(exists=True, dir_okay=False))(f)


def program_option(help: str = "Only this program (default: every program of the script).") -> Callable:
    return click.option("-p", "--program", "program", metavar="NAME", default=None, help=help)


def prepare(script: str, devices: int, platform: str | None, quiet: bool = False) -> Script:
    configure_devices(devices, platform)
    return load_script(script, echo=not quiet)


def note_untyped(s: Script, program: str | None) -> None:
    if program is None and s.untyped:
        err = render.console(stderr=True)
        for name, why in s.untyped.items():
            err.print(Text(f"note: `{name}` is not a program ({why}); skipped", style="dim"))


def attempt(s: Script, prog: ScriptProgram, fn: Callable[[], Any]) -> tuple[bool, Any]:
    """Run one program's work; report its error on stderr instead of raising."""
    err = render.console(stderr=True)
    try:
        return True, fn()
    except sc.ShardcInternalError as e:
        boundary.note_failure(boundary.INTERNAL_ERROR)
        render.error(err, _internal(e, prog), f"error in `{prog.name}`")
    except sc.ShardcError as e:
        boundary.note_failure(boundary.RUNTIME_ERROR if isinstance(e, sc.ShardcRuntimeError)
                              else boundary.PROGRAM_ERROR)
        render.error(err, type_string_context(s, prog) or str(e), f"error in `{prog.name}`")
    except (UsageFailure, ProgramFailure):
        raise
    except Exception as e:  # noqa: BLE001  (the user's own exception, or a shardc bug)
        user_tb = _user_frames(e)
        if user_tb is not None:
            boundary.note_failure(boundary.PROGRAM_ERROR)
            render.error(err, f"{type(e).__name__}: {e}\n(raised by your code while tracing "
                              f"`{prog.name}`)\n{user_tb}", f"error in `{prog.name}`")
        elif isinstance(e, MemoryError):
            boundary.note_failure(boundary.RUNTIME_ERROR)
            render.error(err, "out of host memory (MemoryError): use smaller shapes", f"error in `{prog.name}`")
        else:
            boundary.note_failure(boundary.INTERNAL_ERROR)
            render.error(err, _internal(e, prog))
    return False, None


def _internal(e: BaseException, prog: ScriptProgram) -> str:
    """A shardc bug: a summary, or (with --debug) the traceback."""
    head = f"internal error while processing `{prog.name}` (a shardc bug; please report it)"
    if boundary.debug():
        return f"{head}:\n{''.join(traceback.format_exception(e)).rstrip()}"
    return f"{head}: {boundary.internal_summary(e)}"


def type_string_context(s: Script, prog: ScriptProgram) -> str | None:
    """The error of the first parameter whose type string does not parse, naming the
    parameter and the script line that annotates it (None when every one parses)."""
    for pname, text in zip(prog.params, prog.types):
        try:
            s.call(sc.parse_type, text)
        except sc.ShardcError as e:
            msg = str(e).removeprefix(f"{e.loc}: ") if e.loc is not None else str(e)  # the line is named here
            return f"{annotation_line(s, prog, text)}: type of parameter `{pname}` of `{prog.name}`: {msg}"
    return None


def annotation_line(s: Script, prog: ScriptProgram, text: str) -> str:
    """`file:line` of the annotation `text` in the program's source (its `def` line if not found)."""
    fun = getattr(prog.jit, "fun", None)
    try:
        lines, start = pyinspect.getsourcelines(fun)
        file = pyinspect.getsourcefile(fun) or str(s.path)
    except (OSError, TypeError):
        return s.path.name
    at = next((i for i, line in enumerate(lines) if repr(text)[1:-1] in line), None)
    if at is None:
        at = next((i for i, line in enumerate(lines) if line.lstrip().startswith("def ")), 0)
    return s.relsource(f"{file}:{start + at}")


_OURS = (os.path.dirname(os.path.abspath(sc.__file__)), os.path.dirname(os.path.abspath(__file__)))
_LIBS = tuple({os.path.abspath(sysconfig.get_paths()[k]) for k in ("stdlib", "purelib", "platlib")})


def _user_frames(e: BaseException) -> str | None:
    """The traceback of an exception the user's code raised, shardc's frames left
    out; None for an exception from shardc (a bug). Whose it is: the innermost
    frame that is the user's or shardc's (library frames, NumPy's, JAX's, are
    whoever called them)."""
    frames = traceback.extract_tb(e.__traceback__)
    ours = [os.path.abspath(f.filename).startswith(_OURS) for f in frames]
    own = [o for f, o in zip(frames, ours) if o or not os.path.abspath(f.filename).startswith(_LIBS)]
    if not own or own[-1]:
        return None
    return "".join(traceback.format_list([f for f, o in zip(frames, ours) if not o])).rstrip()


def finish(failed: list[str], total: int, what: str) -> None:
    if failed:
        failure = ProgramFailure(f"{len(failed)} of {total} program(s) {what}: {', '.join(failed)}")
        failure.exit_code = boundary.failure_code()
        raise failure


def each_built(s: Script, program: str | None, con, upto: str, what: str, headers: bool = True):
    """Yield `(prog, stages)` for every selected program built up to `upto`,
    printing each one's header; failures are reported and, at the end, make
    the command exit 1 (`what` says what they failed to do)."""
    progs = s.select(program)
    note_untyped(s, program)
    failed = []
    for prog in progs:
        if headers:
            render.header(con, s, prog)
        ok, st = attempt(s, prog, lambda: build(s, prog, upto))
        if not ok:
            failed.append(prog.name)
            continue
        yield prog, st
    finish(failed, len(progs), what)


# --- check --------------------------------------------------------------------------------------
@click.command()
@script_argument
@program_option()
@click.option("--cost", is_flag=True,
              help="Instead of the typed IR, list the communication the types imply: each collective, its "
                   "mesh axes, bytes per device and estimated time (before XLA compiles anything).")
@click.option("--summary", is_flag=True,
              help="One line per program: input types -> output types, collectives predicted.")
@device_options
@cost_options
def check(script: str, program: str | None, devices: int, platform: str | None, quiet: bool, cost: bool,
          summary: bool, cost_model: str | None, links: tuple[str, ...]) -> None:
    """Trace and type-check every program of SCRIPT; print its typed IR.

    A type error is printed with the user's file:line and the fix, and the
    command exits with status 1.
    """
    s = prepare(script, devices, platform, quiet)
    con = render.console()
    model = cost_model_for(s, cost_model, links) if (cost or summary) else None
    n = 0
    for prog, st in each_built(s, program, con, "typecheck", "failed to type-check", headers=not summary):
        preds = s.call(lambda: predict(st.traced, model)) if model is not None else []
        if summary:
            con.print(render.summary_line(prog, st.in_types, st.out_types, preds, auto_axes_used(st.traced.program)),
                      soft_wrap=True)
        if cost:
            auto = auto_axes_used(st.traced.program)
            if preds:
                con.print(render.cost_table(s, preds, model))
                con.print(Text(f"  estimates: {model.describe()} (docs/cost_model.md)", style="dim"))
            else:
                con.print(Text("  no communication implied by the types", style="dim"))
            if auto:
                con.print(Text(f"  note: values on Auto axes ({', '.join(auto)}): XLA decides where to communicate "
                               "over them, which the types cannot show", style="yellow"))
        if not (cost or summary):
            render.plain(con, str(st.traced))
        n += 1
    con.print(Text(f"{n} program(s) type-check", style="green"))


# --- compile ------------------------------------------------------------------------------------
@click.command("compile")
@script_argument
@program_option()
@click.option("--emit", type=click.Choice(list(EMIT_EXT)), default="stablehlo", show_default=True,
              help="typed: the typed IR; stablehlo: StableHLO + sdy text; hlo: XLA's partitioned HLO.")
@click.option("-o", "--output", type=click.Path(), default=None,
              help="Write here instead of stdout (a folder, one file per program, when several "
                   "programs are selected).")
@click.option("--locations", is_flag=True,
              help="With --emit stablehlo: annotate every op with the user's file:line.")
@device_options
@cache_option
def compile_cmd(script: str, program: str | None, emit: str, output: str | None, locations: bool,
                devices: int, platform: str | None, quiet: bool) -> None:
    """Emit one stage's text for the programs of SCRIPT."""
    s = prepare(script, devices, platform, quiet)
    progs = s.select(program)
    note_untyped(s, program)
    if locations and emit != "stablehlo":
        raise UsageFailure("--locations applies to --emit stablehlo only")
    upto = {"typed": "typecheck", "stablehlo": "lower", "hlo": "compile"}[emit]

    def text_of(prog: ScriptProgram) -> str:
        st = build(s, prog, upto)
        if emit == "typed":
            return str(st.traced) + "\n"
        if emit == "stablehlo":
            return s.call(lambda: st.lowered.as_text(locations=locations))
        return s.call(st.compiled.as_text)

    failed = []
    texts: list[tuple[ScriptProgram, str]] = []
    for prog in progs:
        ok, text = attempt(s, prog, lambda: text_of(prog))
        if ok:
            texts.append((prog, text if text.endswith("\n") else text + "\n"))
        else:
            failed.append(prog.name)
    to_stdout = output is None or output == "-"
    if to_stdout:
        for prog, text in texts:
            if len(progs) > 1:
                click.echo(f"// ---- program {prog.name} ({emit}) ----")
            click.echo(text, nl=False)
    elif len(progs) == 1:
        if texts:
            write_safely(Path(output), texts[0][1], s.path, "-o")
    else:
        folder = Path(output)
        if folder.exists() and not folder.is_dir():
            raise UsageFailure(f"-o {output}: several programs are selected, so -o must name a folder")
        for prog, text in texts:
            if not prog.name.isidentifier():
                raise UsageFailure(f"program name {prog.name!r} is not a plain identifier; not writing it")
            write_safely(folder / f"{prog.name}.{EMIT_EXT[emit]}", text, s.path, "-o")
    finish(failed, len(progs), "failed to compile")


def write_safely(path: Path, data: str | bytes, script: Path, option: str) -> None:
    """Write an output file: never the script itself, never through a symlink, all at
    once (a temporary file renamed into place), OS errors as usage errors."""
    if path.is_symlink():
        raise UsageFailure(f"{option} {path}: is a symbolic link; not following it")
    if path.exists() and path.resolve() == script.resolve():
        raise UsageFailure(f"{option} {path}: that is the script being run; choose another file")
    if path.exists() and not path.is_file():
        raise UsageFailure(f"{option} {path}: not a regular file")
    tmp = path.with_name(f".{path.name}.shardc-tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        (tmp.write_bytes if isinstance(data, bytes) else tmp.write_text)(data)
        os.replace(tmp, path)
    except OSError as e:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise UsageFailure(f"{option} {path}: cannot write it ({e.strerror or e})") from None
    render.console(stderr=True).print(f"wrote {path}", markup=False)


# --- run ----------------------------------------------------------------------------------------
@click.command()
@script_argument
@program_option()
@device_options
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the generated inputs.")
@click.option("--inputs", type=click.Path(exists=True, dir_okay=False), default=None,
              help="Inputs from an .npz (keys PROGRAM.PARAM or PARAM) instead of generated ones.")
@click.option("--save", type=click.Path(dir_okay=False), default=None,
              help="Save inputs (PROGRAM.PARAM) and outputs (PROGRAM.out.I) to an .npz.")
@click.option("--repeat", type=click.IntRange(min=1), default=5, show_default=True,
              help="Runs after the first, for the steady-state time (the median).")
@click.option("--processes", type=click.IntRange(min=1), default=1, show_default=True,
              help="Run on K processes (loopback, jax.distributed) with --devices/K CPU devices each; "
                   "every process feeds its own slice of the inputs.")
@click.option("--timeout", type=click.FloatRange(min=1), default=300, show_default=True,
              help="With --processes: stop the whole job after this many seconds.")
@click.option("--coordinator", metavar="HOST:PORT", default=None,
              help="Join a job as one of its processes (as jax.distributed.initialize): the address of "
                   "process 0, which serves the coordinator there. With --num-processes and --process-id.")
@click.option("--num-processes", type=click.IntRange(min=1), default=None,
              help="With --coordinator/--cluster: how many processes the job has (each gets --devices/N devices).")
@click.option("--process-id", type=click.IntRange(min=0), default=None,
              help="With --coordinator/--cluster: this process's id, 0..N-1.")
@click.option("--cluster", type=click.Choice(["auto", "slurm", "ompi", "mpi4py", "k8s"]), default=None,
              help="Join a job started by a cluster (SLURM srun, Open MPI mpirun, Kubernetes): the coordinator, "
                   "number of processes and process id come from its environment, as jax.distributed finds them.")
@click.option("--allow-remote-coordinator", is_flag=True,
              help="Allow a coordinator that is not on loopback (its gRPC service is unauthenticated: "
                   "private networks only; see the README).")
@click.option("--host", "rank_host", metavar="ADDRESS", default=None,
              help="With --coordinator/--cluster: the address this process's collectives listen on "
                   "(default: loopback, or the address that routes to the coordinator).")
@click.option("--init-timeout", type=click.IntRange(min=1), default=10, show_default=True,
              help="With --coordinator/--cluster: seconds to wait for every process to join.")
@cache_option
def run(script: str, program: str | None, devices: int, platform: str | None, quiet: bool, seed: int,
        inputs: str | None, save: str | None, repeat: int, processes: int, timeout: float,
        coordinator: str | None = None, num_processes: int | None = None, process_id: int | None = None,
        cluster: str | None = None, allow_remote_coordinator: bool = False, rank_host: str | None = None,
        init_timeout: int = 10) -> None:
    """Compile and run the programs of SCRIPT on deterministic inputs.

    Inputs are drawn per input type (floats normal, ints in a small range,
    bools random) and placed with each type's sharding. Prints input and
    output types, a summary of every output and the time of every phase.
    With --processes K, the programs run on K processes; rank 0 prints the
    report and the exit status is non-zero if any process fails. With
    --coordinator/--num-processes/--process-id or --cluster, this command is
    one process of a job whose other processes are started elsewhere (one
    per host, as jax.distributed.initialize; see the README's Multi-host).
    """
    joined = (coordinator, num_processes, process_id, cluster) != (None, None, None, None)
    if processes > 1 or joined:
        from . import multiproc  # late: the multi-process paths only; a single-process run never loads it
        if not joined:
            return multiproc.run_multiprocess(script, program, devices, platform, quiet, seed, inputs, save, repeat,
                                              processes, timeout)
        if processes > 1:
            raise UsageFailure("--processes starts every process here; with --coordinator/--cluster each "
                               "process is started on its own: drop one of them")
        job = multiproc.JobOptions(coordinator, num_processes, process_id, cluster, allow_remote_coordinator,
                                   rank_host, init_timeout)
        return multiproc.run_rank(script, program, devices, platform, quiet, seed, inputs, save, repeat, job)
    s = prepare(script, devices, platform, quiet)
    progs = s.select(program)
    note_untyped(s, program)
    con = render.console()
    con.print(Text(f"devices: {devices_line(s)}", style="dim"))
    failed = []
    saved: dict[str, np.ndarray] = {}
    for prog in progs:
        render.header(con, s, prog)
        ok, res = attempt(s, prog, lambda: run_program(s, prog, seed=seed, inputs=inputs, repeat=repeat))
        if not ok:
            failed.append(prog.name)
            continue
        st = res.stages
        labels = st.out_labels()
        con.print(render.types_table(prog, st.in_types, labels, st.out_types))
        con.print()
        con.print(render.outputs_table(labels, res.outputs, checksum, render.compact_array))
        con.print()
        con.print(render.timings_table(res.timings))
        for pname, a in zip(prog.params, res.inputs):
            saved[f"{prog.name}.{pname}"] = a
        for i, a in enumerate(res.outputs):
            saved[f"{prog.name}.out.{i}"] = a
    if save and saved:
        buf = io.BytesIO()
        np.savez(buf, **saved)
        path = Path(save if save.endswith(".npz") else save + ".npz")   # as np.savez names it
        write_safely(path, buf.getvalue(), s.path, "--save")
    finish(failed, len(progs), "failed")


def devices_line(s: Script) -> str:
    mesh = s.mesh
    if mesh is None:
        return "no mesh set by the script"
    d = mesh.devices.flat[0]
    axes = ", ".join(f"{n}={k}" for n, k in zip(mesh.axis_names, mesh.axis_sizes))
    return f"{mesh.size} × {d.platform} on mesh ({axes})"


# --- inspect ------------------------------------------------------------------------------------
@click.command()
@script_argument
@program_option("The program to inspect (default: every program of the script).")
@click.option("--collectives", "show_collectives", is_flag=True,
              help="Show the collectives section (XLA's collectives and the cost model beside them).")
@click.option("--memory", "show_memory", is_flag=True, help="Show the memory section.")
@click.option("--pictures", "show_pictures", is_flag=True, help="Show the sharding pictures.")
@click.option("--html", "html", type=click.Path(dir_okay=False), default=None,
              help="Also write a self-contained HTML report of the script's programs to this file.")
@device_options
@cost_options
@cache_option
def inspect(script: str, program: str | None, devices: int, platform: str | None, quiet: bool,
            show_collectives: bool, show_memory: bool, show_pictures: bool, html: str | None,
            cost_model: str | None, links: tuple[str, ...]) -> None:
    """Show what XLA made of a program: its collectives, each tied to the
    line of SCRIPT that caused it, beside what the cost model predicted from
    the types; memory per device; and a picture of every input's and output's
    sharding. --collectives / --memory / --pictures select sections (default: all)."""
    from shardc.runtime.visualize import sharding_renderable  # late: after `prepare` has configured the devices
    s = prepare(script, devices, platform, quiet)
    con = render.console()
    model = cost_model_for(s, cost_model, links)
    every = not (show_collectives or show_memory or show_pictures)
    pages = []
    for prog, st in each_built(s, program, con, "compile", "failed to compile"):
        con.print(Text(cache_line(st.compiled.cache_outcome), style="dim"))
        collectives = s.call(st.compiled.collectives)
        preds = s.call(lambda: predict(st.traced, model))
        matches = costs_mod.compare(preds, costs_mod.actual_collectives(s.call(st.compiled.as_text), collectives),
                                    st.traced.program.mesh)
        ok, stats = attempt(s, prog, lambda: s.call(st.compiled.memory_stats))
        if every or show_collectives:
            print_collectives(con, s, collectives, matches, model)
        if every or show_memory:
            con.print(Text("memory", style="bold"))
            con.print(render.memory_table(stats if ok else None))
            con.print()
        labels = [f"in {p}" for p in prog.params] + st.out_labels()
        types = st.in_types + st.out_types
        if every or show_pictures:
            con.print(Text("shardings", style="bold"))
            pictures = s.call(lambda: [sharding_renderable(t, title=l) for l, t in zip(labels, types)])
            for pic in pictures:
                con.print(pic)
        if html:
            pages.append(report_mod.ProgramPage.build(s, prog, st, collectives, preds, matches, stats if ok else None,
                                           model))
    if html and pages:
        write_safely(Path(html), report_mod.render_page(s, pages, model), s.path, "--html")


def print_collectives(con, s: Script, collectives, matches, model) -> None:
    """XLA's collectives, then the cost model beside them (every difference flagged)."""
    rows = render.group_collectives(s, collectives)
    con.print(Text("collectives XLA inserted", style="bold"))
    if rows:
        con.print(render.collectives_table(rows))
    else:
        con.print(Text("  none: every value stays where its type puts it", style="dim"))
    con.print()
    con.print(Text("cost model (from the types) vs XLA", style="bold"))
    if matches:
        con.print(render.compare_table(s, matches, model))
        bad = sum(not m.ok for m in matches)
        con.print(Text(f"  {len(matches) - bad} of {len(matches)} agree" +
                       (f"; {bad} difference(s) flagged ✗" if bad else ""), style="green" if not bad else "yellow"))
    else:
        con.print(Text("  agrees: no communication predicted, none inserted", style="green"))
    con.print()


def cache_line(outcome) -> str:
    """Where a program's XLA executable came from, for `inspect`."""
    took = render.fmt_seconds(outcome.seconds)
    if outcome.status == "hit":
        saved = f"; XLA took {render.fmt_seconds(outcome.xla_seconds)}" if outcome.xla_seconds is not None else ""
        return f"XLA executable: from the compilation cache (loaded in {took}{saved})"
    if outcome.status == "miss":
        kept = "stored in the compilation cache" if outcome.stored else "not stored in the compilation cache"
        return f"XLA executable: compiled in {took} ({kept})"
    return f"XLA executable: compiled in {took} (compilation cache off: {outcome.reason})"


# --- golden -------------------------------------------------------------------------------------
@click.command()
@click.argument("path", type=click.Path(exists=True), default="examples")
@click.option("--update", is_flag=True, help="Rewrite the golden files that differ (review the diff!).")
@click.option("--golden-dir", type=click.Path(file_okay=False), default=None,
              help="Where the golden files live (default: golden/ beside the examples folder).")
@click.option("-v", "--verbose", is_flag=True, help="Show what the scripts print (hidden by default).")
@device_options
@cache_option
def golden(path: str, update: bool, golden_dir: str | None, verbose: bool, devices: int,
           platform: str | None) -> None:
    """Compare the golden files of PATH (a script, or a folder of scripts;
    default examples/) with what shardc produces now, printing unified diffs."""
    configure_devices(devices, platform)
    con = render.console()
    report = golden_mod.check_path(Path(path), Path(golden_dir) if golden_dir else None, update=update,
                                   echo=verbose)
    for m in report.mismatches:
        print_diff(con, m.render())
    if update:
        for w in report.written:
            print_diff(con, "updated " + w)
        for r in report.removed:
            con.print(Text(f"removed {r}"))
        con.print(Text(f"{report.checked} golden file(s) checked, {len(report.written)} updated, "
                       f"{len(report.removed)} removed", style="bold"))
    else:
        style = "green" if report.ok else "bold red"
        con.print(Text(f"{report.checked} golden file(s) checked, {len(report.mismatches)} mismatch(es)",
                       style=style))
    if not report.ok:
        raise ProgramFailure("golden files differ (after reviewing the diff: shardc golden --update)")


def print_diff(con, text: str) -> None:
    for line in text.splitlines():
        style = ("green" if line.startswith("+") else "red" if line.startswith("-")
                 else "cyan" if line.startswith("@@") else "")
        con.print(Text(line, style=style), soft_wrap=True)


COMMANDS = [check, compile_cmd, run, inspect, golden]
