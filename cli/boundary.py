"""The CLI's error boundary: what every failure prints and which exit code it gives.

Exit codes (documented in `shardc --help` and the README):

    0    ok
    1    a program failed: its script did not import, it did not type-check or compile,
         the user's own code raised, or golden files differ
    2    bad usage: options, files, environment variables (SHARDC_*), devices that cannot be had
    3    a runtime failure: XLA or the devices failed while running (out of memory, a process
         of a multi-process job died or hung)
    4    internal error: a shardc bug (please report it with the output of `--debug`)
    130  interrupted (Ctrl-C); 143 / 129: SIGTERM / SIGHUP while `run --processes` ran (every rank
         is stopped)

No Python traceback is printed for any of these unless `--debug` is given (or
SHARDC_DEBUG=1): a user's own exception is shown with their frames only.
"""
from __future__ import annotations

import os
import sys
import traceback

import click

from shardc import errors

OK, PROGRAM_ERROR, USAGE, RUNTIME_ERROR, INTERNAL_ERROR, INTERRUPTED = 0, 1, 2, 3, 4, 130

__all__ = ["OK", "PROGRAM_ERROR", "USAGE", "RUNTIME_ERROR", "INTERNAL_ERROR", "INTERRUPTED", "debug",
           "set_debug", "reset", "note_failure", "failure_code", "internal_summary", "claim_frames"]

_state = {"debug": None, "codes": []}


def claim_frames() -> None:
    """Frames of the CLI and of click are not the user's: an error found while the CLI runs
    a program names the user's line (a traced function's), or none, never the CLI's."""
    entry = os.path.abspath(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    for d in (os.path.dirname(os.path.abspath(__file__)), os.path.dirname(os.path.abspath(click.__file__)),
              entry if entry.endswith(("shardc", "shardc.exe")) else ""):
        if not d:
            continue
        if d not in errors.INTERNAL_PREFIXES:
            errors.INTERNAL_PREFIXES.append(d)


def debug() -> bool:
    """Whether `--debug` (or SHARDC_DEBUG=1) asks for Python tracebacks."""
    if _state["debug"] is not None:
        return _state["debug"]
    return os.environ.get("SHARDC_DEBUG", "").strip().lower() in ("1", "true", "yes", "on")


def set_debug(on: bool) -> None:
    _state["debug"] = bool(on) or None


def reset() -> None:
    """Start of one command: no failures noted, `--debug` off (in-process runners reuse the module)."""
    _state["debug"] = None
    _state["codes"] = []


def note_failure(code: int) -> None:
    """A program failed with `code` (the command goes on with the next program)."""
    _state["codes"].append(code)


def failure_code() -> int:
    """The exit code of a command whose programs failed: the most severe noted (default 1)."""
    return max(_state["codes"], default=PROGRAM_ERROR)


def internal_summary(e: BaseException) -> str:
    """A shardc bug in a few lines: the exception and where it was raised, not the traceback
    (that comes with `--debug`)."""
    frames = traceback.extract_tb(e.__traceback__)
    where = f" (at {os.path.basename(frames[-1].filename)}:{frames[-1].lineno})" if frames else ""
    text = str(e).strip().splitlines()
    return (f"{type(e).__name__}: {text[0] if text else ''}{where}\n"
            "this is a shardc bug; please report it with the output of the same command with --debug")
