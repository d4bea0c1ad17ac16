"""`shardc` entry point: the click group and its commands.

    shardc check SCRIPT                 typed IR, or type errors with file:line
    shardc compile SCRIPT --emit ...    typed IR / StableHLO+sdy / partitioned HLO
    shardc run SCRIPT                   run on deterministic inputs, with timings
    shardc inspect SCRIPT -p NAME       collectives by source line, memory, shardings
    shardc golden [PATH] [--update]     compare (or rewrite) golden files

Exit codes: 0 ok, 1 a program failed (import, type check, compile, its own
exception, golden mismatch), 2 bad usage (options, files, SHARDC_* variables),
3 a runtime failure (out of memory, a process of the job died or hung), 4 an
internal error (a shardc bug), 130 interrupted. No traceback is printed unless
`--debug` is given (cli/boundary.py).
"""
from __future__ import annotations

import gc
import sys

import click

import shardc

from . import boundary, render
from .commands import COMMANDS


def _debug_flag(ctx: click.Context, _param, value: bool) -> None:
    if value:
        boundary.set_debug(True)


def _debug_option() -> click.Option:
    return click.Option(["--debug"], is_flag=True, expose_value=False, is_eager=True, callback=_debug_flag,
                        help="Print Python tracebacks of failures (for reporting a shardc bug).")


class _Main(click.Group):
    """The group, with the error boundary around every command: whatever escapes a
    command is reported in one message with its exit code, never as a traceback
    (unless --debug)."""

    def make_context(self, info_name, args, parent=None, **extra):
        boundary.reset()
        return super().make_context(info_name, args, parent=parent, **extra)

    def main(self, args=None, *rest, **extra):
        """As click's; run from the command line (`args` None: `sys.argv`, the process ends after
        it), the objects alive at the end are frozen out of the garbage collector first: the
        interpreter's last full collection at exit traverses every object JAX and the script
        made and cost 0.25-0.35 s of CPU per run (bench/PROFILE.md §6). Exit handlers, flushes and
        finalizers still run as usual. Not done for a caller passing `args` (tests, embedding),
        whose process goes on."""
        try:
            return super().main(args, *rest, **extra)
        finally:
            if args is None:
                gc.freeze()

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort, SystemExit):
            raise
        except KeyboardInterrupt as e:   # Ctrl-C, or SIGTERM/SIGHUP while ranks run (every rank killed)
            if boundary.debug():
                raise
            signum = getattr(e, "signum", None)
            self._fail(str(e) if signum else "interrupted", 128 + signum if signum else boundary.INTERRUPTED)
        except Exception as e:  # noqa: BLE001  (the boundary: classify, report, exit)
            if boundary.debug():
                raise
            self._fail(*_classify(e))

    @staticmethod
    def _fail(message: str, code: int) -> None:
        render.error(render.console(stderr=True), message, "Error")
        sys.stderr.flush()
        raise click.exceptions.Exit(code)


def _classify(e: Exception) -> tuple[str, int]:
    """(message, exit code) of an exception that escaped a command."""
    if isinstance(e, shardc.ShardcRuntimeError):
        return str(e), boundary.RUNTIME_ERROR
    if isinstance(e, shardc.ShardcInternalError):
        return boundary.internal_summary(e), boundary.INTERNAL_ERROR
    if isinstance(e, shardc.ShardcError):
        return str(e), boundary.PROGRAM_ERROR
    if isinstance(e, MemoryError):
        return "out of host memory (MemoryError): use smaller shapes or fewer programs", boundary.RUNTIME_ERROR
    if isinstance(e, OSError):
        where = f"{e.filename}: " if e.filename else ""
        return f"{where}{e.strerror or e}", boundary.USAGE
    return "internal error: " + boundary.internal_summary(e), boundary.INTERNAL_ERROR


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(shardc.__version__, prog_name="shardc")
@click.option("--debug", is_flag=True, expose_value=False, is_eager=True, callback=_debug_flag,
              help="Print Python tracebacks of failures (for reporting a shardc bug).")
def main() -> None:
    """shardc: check, compile, run and inspect sharded array programs.

    A SCRIPT is a Python file whose module-level `@sc.jit` functions have
    typed parameters (`def f(x: "f32[8@X,4]")`) and which sets its mesh
    with `sc.set_mesh(...)`. Every command works on 8 virtual CPU devices
    by default (`--devices N`).

    Exit codes: 0 ok, 1 a program failed, 2 bad usage, 3 a runtime failure
    (out of memory, a process died or hung), 4 a shardc bug, 130 interrupted.
    No traceback is printed unless --debug is given.
    """


boundary.claim_frames()
for _cmd in COMMANDS:
    if not any(p.name == "debug" for p in _cmd.params):
        _cmd.params.append(_debug_option())
    main.add_command(_cmd)


if __name__ == "__main__":
    main()
