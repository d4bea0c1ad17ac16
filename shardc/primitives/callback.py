"""`debug_callback`: call a Python function on the host with values of a running
program (`sc.debug.print`, `sc.debug.callback`), as JAX's `debug_callback_p`.

It has operands and no results, so nothing depends on it; the emitter never drops
an equation, and the custom call is marked `has_side_effect`, so XLA keeps it too.
Outside manual regions the operands are gathered to logical device 0 (JAX's
`@maximal_mesh_0` sharding), so the function runs once per execution with whole
values; inside a `shard_map` body it runs on every device with that device's block,
as JAX's does. Lowering is XLA's FFI Python callback: the custom call names the
function by its index in the module's host callbacks (`LowerCtx.host_callback`),
which the driver hands to XLA when it compiles the module.

No cotangent flows through it (it has no outputs); reverse mode's replay of a
body skips it (`side_effect`), so a value is printed once, as in JAX.
"""
from __future__ import annotations

from typing import Any, Callable

from ..core import Primitive
from ..emit.text import ttype
from ..errors import ShardcNotImplementedError, ShardcValueError
from ..types import ArrayType

__all__ = ["debug_callback", "HostCallback"]


class HostCallback:
    """The host function of one `debug_callback` equation: called by XLA with the
    operands as NumPy arrays, it calls `fn` and returns no results. Compared and
    hashed by identity (a program holds the very function its user passed)."""

    __slots__ = ("fn", "name")

    def __init__(self, fn: Callable[..., Any], name: str):
        self.fn, self.name = fn, name

    def __call__(self, *arrays):
        self.fn(*arrays)
        return ()

    def __repr__(self) -> str:
        return self.name


def _layout(t: ArrayType) -> str:
    """XLA's default (row-major) layout of an operand: minor-to-major dims."""
    if not t.ndim:
        return "dense<> : tensor<0xindex>"
    return f"dense<[{', '.join(str(d) for d in reversed(range(t.ndim)))}]> : tensor<{t.ndim}xindex>"


class DebugCallback(Primitive):
    name = "debug_callback"
    multiple_results = True
    constrain_outputs = False
    #: operands may vary over different manual axes (each device passes its own block)
    auto_pcast = False
    #: an effect: replays of a body (reverse mode, remat) must not run it again
    side_effect = True

    def shape_rule(self, *ins: ArrayType, callback):
        return []

    def sharding_rule(self, *ins: ArrayType, callback):
        return []

    def ur_rule(self, *ins: ArrayType, callback):
        for t in ins:
            if t.unreduced:
                raise ShardcValueError(
                    f"a host callback cannot take an unreduced value ({t}): each device holds an addend; "
                    "`sc.reshard` it to a reduced or replicated sharding first")
        return []

    def vma_rule(self, *ins: ArrayType, callback):
        return []

    def vjp(self, L, cts, ins, outs, *, callback):
        return [None] * len(ins)

    def batch(self, B, axis, args, dims, *, callback):
        """JAX's `debug_batching_rule`: the callback runs once per example, in order."""
        for i in range(axis.size):
            B.bind(self, *[a if d is None else B.take_static(a, i, d) for a, d in zip(args, dims)],
                   callback=callback)
        return [], []

    def format_params(self, p) -> str:
        return f"callback={p['callback']!r}"

    def lower(self, ctx, eqn, *args):
        callback = eqn.params["callback"]
        if ctx.platform == "tpu":
            raise ShardcNotImplementedError("host callbacks (sc.debug.print / sc.debug.callback) are not "
                                            "supported on TPU yet")
        target = "xla_ffi_python_gpu_callback" if ctx.platform in ("gpu", "cuda", "rocm") else \
            "xla_ffi_python_cpu_callback"
        ins = [a.type for a in eqn.inputs]
        attrs = [
            'backend_config = ""', "has_side_effect = true",
            f"mhlo.backend_config = {{index = {ctx.host_callback(callback)} : ui64}}",
            f"operand_layouts = [{', '.join(_layout(t) for t in ins)}]", "result_layouts = []",
        ]
        if not ctx.mesh.empty and not ctx.mesh.manual_axes:
            attrs.append(f"sdy.sharding = #sdy.sharding_per_value<[<{ctx.maximal_mesh(0)}, []>]>")
        ctx.effect(f"stablehlo.custom_call @{target}({', '.join(args)}) {{{', '.join(attrs)}}} : "
                   f"({', '.join(ttype(t) for t in ins)}) -> ()")
        return []


debug_callback = DebugCallback()
