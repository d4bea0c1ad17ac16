"""`shardc` entry point."""
from __future__ import annotations

import click

import shardc


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(shardc.__version__, prog_name="shardc")
def main() -> None:
    """shardc: check, compile, run and inspect sharded array programs."""


if __name__ == "__main__":
    main()
