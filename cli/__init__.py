"""The `shardc` command line (installed as the `shardc.cli` sub-package)."""
