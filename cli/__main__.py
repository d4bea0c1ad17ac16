"""`python -m shardc.cli`."""
from .main import main

main(prog_name="shardc")
