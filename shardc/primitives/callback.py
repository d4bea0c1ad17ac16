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

import numpy as np

from ..core import Primitive
from ..emit.text import ttype
from ..errors import ShardcNotImplementedError, ShardcValueError
from ..types import ArrayType
from .shape import concatenate

__all__ = ["debug_callback", "pure_callback", "io_callback", "io_callback_ordered", "HostCallback", "PureHostCallback",
           "take_failure"]


#: exceptions raised by host functions during the run in progress. A callback that raised
#: inside XLA would leave the other devices waiting in the program's collectives until XLA
#: aborts the process; instead the callback returns (zeros, for results), the run completes,
#: and the runtime re-raises the first of these (`take_failure`) as the user's own exception.
_FAILURES: list[BaseException] = []


def take_failure() -> BaseException | None:
    """The first exception a host function raised since the last call (and forget them all)."""
    if not _FAILURES:
        return None
    err = _FAILURES[0]
    _FAILURES.clear()
    return err


class HostCallback:
    """The host function of one `debug_callback` equation: called by XLA with the
    operands as NumPy arrays, it calls `fn` and returns no results. Compared and
    hashed by identity (a program holds the very function its user passed)."""

    __slots__ = ("fn", "name")

    def __init__(self, fn: Callable[..., Any], name: str):
        self.fn, self.name = fn, name

    def __call__(self, *arrays):
        try:
            self.fn(*arrays)
        except BaseException as e:  # noqa: BLE001  (the user's: re-raised once the run ends, see take_failure)
            _FAILURES.append(e)
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
        _lower_callback(ctx, eqn, args, side_effect=True)
        return []


debug_callback = DebugCallback()


def _lower_callback(ctx, eqn, args, side_effect: bool):
    """XLA's FFI Python callback: a custom call naming the function by its index in the
    module's host callbacks; outside manual regions on logical device 0 (`@maximal_mesh_0`)."""
    if ctx.platform == "tpu":
        raise ShardcNotImplementedError("host callbacks (sc.debug.print, sc.debug.callback, sc.pure_callback) "
                                        "are not supported on TPU yet")
    target = "xla_ffi_python_gpu_callback" if ctx.platform in ("gpu", "cuda", "rocm") else \
        "xla_ffi_python_cpu_callback"
    ins, outs = [a.type for a in eqn.inputs], [v.type for v in eqn.outputs]
    attrs = ['backend_config = ""'] + (["has_side_effect = true"] if side_effect else []) + [
        f"mhlo.backend_config = {{index = {ctx.host_callback(eqn.params['callback'])} : ui64}}",
        f"operand_layouts = [{', '.join(_layout(t) for t in ins)}]",
        f"result_layouts = [{', '.join(_layout(t) for t in outs)}]",
    ]
    if not ctx.mesh.empty and not ctx.mesh.manual_axes:
        per_value = ", ".join([f"<{ctx.maximal_mesh(0)}, []>"] * max(len(outs), 1))
        attrs.append(f"sdy.sharding = #sdy.sharding_per_value<[{per_value}]>")
    result_types = ", ".join(ttype(t) for t in outs)
    text = (f"stablehlo.custom_call @{target}({', '.join(args)}) {{{', '.join(attrs)}}} : "
            f"({', '.join(ttype(t) for t in ins)}) -> " + (f"({result_types})" if len(outs) != 1 else result_types))
    if not outs:
        ctx.effect(text)
        return []
    res = ctx.op(text, len(outs))
    return res if isinstance(res, list) else [res]


class PureHostCallback:
    """The host function of one `pure_callback` equation: called by XLA with the
    operands as NumPy arrays, it returns the results it computed, checked against
    the declared shapes and dtypes (JAX's messages). Identity-hashed."""

    __slots__ = ("fn", "name", "result_types")

    def __init__(self, fn: Callable[..., Any], name: str, result_types: tuple):
        self.fn, self.name, self.result_types = fn, name, result_types

    def __call__(self, *arrays):
        try:
            return self._call(*arrays)
        except BaseException as e:  # noqa: BLE001  (the user's: re-raised once the run ends, see take_failure)
            _FAILURES.append(e)
            return tuple(np.zeros(shape, dtype) for shape, dtype in self.result_types)

    def _call(self, *arrays):
        outs = self.fn(*arrays)
        if len(outs) != len(self.result_types):
            raise RuntimeError(f"Mismatched number of outputs from callback. Expected: {len(self.result_types)}, "
                               f"Actual: {len(outs)}")
        checked = []
        for i, (o, (shape, dtype)) in enumerate(zip(outs, self.result_types)):
            o = np.asarray(o)
            if o.shape != tuple(shape):
                raise RuntimeError(f"Incorrect output shape for return value #{i}: Expected: {tuple(shape)}, "
                                   f"Actual: {o.shape}")
            if o.dtype != np.dtype(dtype):
                raise RuntimeError(f"Incorrect output dtype for return value #{i}: Expected: {np.dtype(dtype)}, "
                                   f"Actual: {o.dtype}")
            checked.append(o)
        return tuple(checked)

    def __repr__(self) -> str:
        return self.name


_VMAP_METHODS = ("sequential", "sequential_unrolled", "expand_dims", "broadcast_all", "legacy_vectorized")


class PureCallback(Primitive):
    """`pure_callback`: a host function with results, typed by `result_types` and
    replicated (JAX's results carry no sharding); not differentiable (JAX's error)."""

    name = "pure_callback"
    multiple_results = True
    auto_pcast = False

    def shape_rule(self, *ins: ArrayType, callback, result_types, vmap_method):
        return [(tuple(shape), np.dtype(dtype), False) for shape, dtype in result_types]

    def sharding_rule(self, *ins: ArrayType, callback, result_types, vmap_method):
        return [(None,) * len(shape) for shape, _ in result_types]

    def ur_rule(self, *ins: ArrayType, **params):
        for t in ins:
            if t.unreduced:
                raise ShardcValueError(
                    f"a host callback cannot take an unreduced value ({t}): each device holds an addend; "
                    "`sc.reshard` it to a reduced or replicated sharding first")
        return (frozenset(), frozenset())

    def vma_rule(self, *ins: ArrayType, **params):
        return frozenset().union(*[t.vma for t in ins]) if ins else frozenset()

    def check_live(self, live, **_):
        if any(live):
            raise ShardcValueError("Pure callbacks do not support JVP. Please use `jax.custom_jvp` to use callbacks "
                                   "while taking gradients.")

    def vjp(self, L, cts, ins, outs, **params):
        return [None] * len(ins)

    def batch(self, B, axis, args, dims, *, callback, result_types, vmap_method):
        """JAX's `ffi_batching_rule`: per `vmap_method`, one call per example (stacked), or
        one call on the batched operands (unbatched ones given a leading dim of 1 or the size)."""
        n = axis.size
        if vmap_method not in _VMAP_METHODS:
            raise ShardcNotImplementedError(
                "vmap is only supported for the pure_callback primitive when vmap_method is one of 'sequential', "
                "'sequential_unrolled', 'expand_dims', 'broadcast_all', or 'legacy_vectorized'. "
                f"Got vmap_method={vmap_method!r}.")
        front = [a if d is None else B.moveaxis(a, d, 0) for a, d in zip(args, dims)]
        batched_types = tuple(((n, *shape), dtype) for shape, dtype in result_types)
        if vmap_method in ("sequential", "sequential_unrolled"):
            per = [B.bind(self, *[a if d is None else B.take_static(a, i, 0) for a, d in zip(front, dims)],
                          callback=callback, result_types=result_types, vmap_method=vmap_method)
                   for i in range(n)]
            outs = [B.bind(concatenate, *[B.expand_dims(p[k], (0,)) for p in per], dimension=0)
                    for k in range(len(result_types))]
        else:
            if vmap_method in ("expand_dims", "broadcast_all"):
                size = n if vmap_method == "broadcast_all" else 1
                front = [a if d is not None else B.broadcast(a, size, 0) for a, d in zip(front, dims)]
            outs = B.bind(self, *front, callback=_batched(callback, batched_types), result_types=batched_types,
                          vmap_method=vmap_method)
        return list(outs), [0] * len(outs)

    def format_params(self, p) -> str:
        return f"callback={p['callback']!r} vmap_method={p['vmap_method']}"

    def lower(self, ctx, eqn, *args):
        return _lower_callback(ctx, eqn, args, side_effect=False)


def _batched(cb: "PureHostCallback", result_types: tuple) -> "PureHostCallback":
    """The same function, checked against the batched result types."""
    return PureHostCallback(cb.fn, cb.name, result_types)


pure_callback = PureCallback()


class IoCallback(PureCallback):
    """`io_callback` (JAX's `io_callback_p`, unordered): a host function with results that may
    have side effects, so it is kept although no result is used (`side_effect`: DCE keeps it,
    the custom call is `has_side_effect`), and a replay of a body does not run it again. `vmap`
    runs it once per example, in order (JAX's rule maps over the batch); not differentiable
    (JAX's errors). Its parameters are `pure_callback`'s, `vmap_method` always "sequential"."""

    name = "io_callback"
    side_effect = True

    def check_live(self, live, **_):
        if any(live):
            raise ShardcValueError("IO callbacks do not support JVP.")

    def batch(self, B, axis, args, dims, *, callback, result_types, vmap_method):
        return super().batch(B, axis, args, dims, callback=callback, result_types=result_types,
                             vmap_method="sequential")

    def lower(self, ctx, eqn, *args):
        return _lower_callback(ctx, eqn, args, side_effect=True)


class IoCallbackOrdered(IoCallback):
    """`io_callback(..., ordered=True)`: as `io_callback`, and refused under `vmap` (JAX's
    ValueError). Calls run in program order as XLA schedules side-effecting custom calls; shardc
    threads no effect tokens (docs/api.md)."""

    name = "io_callback_ordered"

    def batch(self, B, axis, args, dims, **params):
        raise ShardcValueError("Cannot `vmap` ordered IO callback.")


io_callback = IoCallback()
io_callback_ordered = IoCallbackOrdered()
