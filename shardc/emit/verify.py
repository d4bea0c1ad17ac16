"""Parse and verify emitted text with jaxlib's MLIR bindings before XLA sees it.

A failure here is a shardc bug (the type checker accepted the program), so it
raises `ShardcInternalError` with MLIR's diagnostics and the offending line.
"""
from __future__ import annotations

import functools

from ..errors import ShardcInternalError


@functools.cache
def _context():
    from jax._src.interpreters.mlir import make_ir_context
    return make_ir_context()


def parse_module(text: str):
    """`text` as a jaxlib MLIR `ir.Module` (in shardc's one MLIR context with JAX's dialects):
    what `Lowered.compiler_ir()` hands to code that walks the module."""
    from jaxlib.mlir import ir
    with _context():
        return ir.Module.parse(text)


def verify_module(text: str) -> None:
    from jaxlib.mlir import ir
    ctx = _context()
    with ctx:
        try:
            module = ir.Module.parse(text)
            ok = module.operation.verify()
        except ir.MLIRError as e:
            raise ShardcInternalError(
                "shardc emitted a module that does not verify (this is a shardc bug; please "
                f"report it with the program):\n{_diagnostics(e, text)}") from None
    if not ok:
        raise ShardcInternalError("shardc emitted a module that does not verify (shardc bug)")


def _diagnostics(e, text: str) -> str:
    lines = text.splitlines()
    out = []
    for d in getattr(e, "error_diagnostics", []) or []:
        out.append(f"  {d.location}: {d.message}")
        loc = str(d.location)
        try:
            ln = int(loc.split(":")[1])
            out.append("    > " + lines[ln - 1].strip())
        except (IndexError, ValueError):
            pass
    return "\n".join(out) or str(e)
