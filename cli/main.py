"""`shardc` entry point: the click group and its commands.

    shardc check SCRIPT                 typed IR, or type errors with file:line
    shardc compile SCRIPT --emit ...    typed IR / StableHLO+sdy / partitioned HLO
    shardc run SCRIPT                   run on deterministic inputs, with timings
    shardc inspect SCRIPT -p NAME       collectives by source line, memory, shardings
    shardc golden [PATH] [--update]     compare (or rewrite) golden files

Exit codes: 0 ok, 1 a program failed (import, type check, compile, run,
golden mismatch), 2 bad usage.
"""
from __future__ import annotations

import click

import shardc

from .commands import COMMANDS


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(shardc.__version__, prog_name="shardc")
def main() -> None:
    """shardc: check, compile, run and inspect sharded array programs.

    A SCRIPT is a Python file whose module-level `@sc.jit` functions have
    typed parameters (`def f(x: "f32[8@X,4]")`) and which sets its mesh
    with `sc.set_mesh(...)`. Every command works on 8 virtual CPU devices
    by default (`--devices N`).
    """


for _cmd in COMMANDS:
    main.add_command(_cmd)


if __name__ == "__main__":
    main()
