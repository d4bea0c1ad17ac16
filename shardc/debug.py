"""`sc.debug`, as `jax.debug`: print and call back from inside programs.

`sc.debug.print("loss {l} at step {s}", l=loss, s=step)` inside an `sc.jit` program
prints when the program *runs*, with the values of that run (formatted with
`str.format`, as JAX does: write a format string, not an f-string); eagerly it
prints at once. `sc.debug.callback(fn, *args, **kwargs)` calls `fn` the same way.
Array arguments (and Python numbers) reach the function as `jax.Array`s on the host,
as in JAX (so what it prints is what JAX prints); other arguments (strings, objects)
are passed as they are. Both bind the `debug_callback`
primitive (shardc/primitives/callback.py), which lowers to XLA's host callback.

`ordered=True` (ordering across callbacks and programs) and `partitioned=True`
(per-shard callbacks outside `shard_map`) are not built and raise; inside a
`shard_map` body a callback runs on every device with its block, as in JAX.
"""
from __future__ import annotations

import builtins
import string
import sys
from typing import Any, Callable

import jax
import jax.numpy as jnp
import jax.tree_util as tu
import numpy as np

from .core import Tracer, api, bind, current_trace, raise_user_error, typeof
from .errors import ShardcNotImplementedError, ShardcTypeError, ShardcValueError
from .primitives.callback import HostCallback, debug_callback
from .runtime.array import Array
from .runtime.mesh import get_mesh
from .runtime.visualize import visualize_sharding
from .sharding import NamedSharding

__all__ = ["print", "callback", "inspect_array_sharding", "visualize_array_sharding", "visualize_sharding",
           "breakpoint"]


def _is_dynamic(x: Any) -> bool:
    """What JAX stages as an operand: arrays and numbers (anything with a shape/dtype)."""
    return isinstance(x, (Tracer, Array, np.ndarray, np.generic, int, float, complex, bool)) or \
        typeof_or_none(x) is not None


def typeof_or_none(x: Any):
    try:
        return typeof(x) if hasattr(x, "shape") and hasattr(x, "dtype") else None
    except Exception:   # noqa: BLE001  (not an array of any kind: a static argument)
        return None


def _split(args: tuple, kwargs: dict):
    flat, tree = tu.tree_flatten((args, kwargs))
    static = {i: a for i, a in enumerate(flat) if not _is_dynamic(a)}
    dyn = [a for i, a in enumerate(flat) if i not in static]
    return tree, dyn, static


def _merge(tree, dyn, static: dict):
    it = iter(dyn)
    flat = [static[i] if i in static else next(it) for i in range(len(dyn) + len(static))]
    return tu.tree_unflatten(tree, flat)


def _options(ordered: bool, partitioned: bool, what: str) -> None:
    if ordered:
        raise ShardcNotImplementedError(f"{what}(ordered=True) is not supported yet: callbacks run unordered")
    if partitioned:
        raise ShardcNotImplementedError(
            f"{what}(partitioned=True) is not supported yet; inside sc.shard_map a callback already runs per "
            "device with that device's block")


def _stage(fn: Callable, args: tuple, kwargs: dict, name: str) -> None:
    """Call `fn(*args, **kwargs)` now (no program is being traced) or when the program runs."""
    tree, dyn, static = _split(args, kwargs)

    def flat(*arrays):
        a, k = _merge(tree, [_host_array(x) for x in arrays], static)
        fn(*a, **k)

    if current_trace() is None and not any(isinstance(d, Tracer) for d in dyn):
        flat(*[_eager_value(d) for d in dyn])
        return
    bind(debug_callback, *dyn, callback=HostCallback(flat, name))


def _host_array(x: Any):
    """What a callback receives, as in JAX: a `jax.Array` on the host's first CPU device
    (so printing, `np.asarray` and `jnp` functions behave exactly as in a JAX callback)."""
    return jax.device_put(x, jax.local_devices(backend="cpu")[0])


def _eager_value(x: Any):
    """An eager argument as JAX's eager callback sees it: Python numbers stay weakly typed."""
    if isinstance(x, Array):
        return x.to_jax()
    if isinstance(x, (int, float, complex, bool)):
        return jnp.asarray(x)
    return x


def _check_format(fmt: str, args: tuple, kwargs: dict) -> None:
    """JAX's checks: unused arguments are errors."""
    class _Check(string.Formatter):
        def format_field(self, value, format_spec):
            return ""

        def check_unused_args(self, used, a, k):
            unused = [x for i, x in enumerate(a) if i not in used]
            if unused:
                raise ShardcValueError(f"Unused positional arguments to `jax.debug.print`: {unused}")
            unused_k = [x for x in k if x not in used]
            if unused_k:
                raise ShardcValueError(
                    f"Unused keyword arguments to `jax.debug.print`: {unused_k}. You may be passing an f-string "
                    "(i.e, `f\"{x}\"`) into `jax.debug.print` and instead should pass in a regular string.")
    try:
        _Check().format(fmt, *args, **kwargs)
    except ShardcValueError as e:
        raise_user_error(e)


def _has_placeholders(fmt: str) -> bool:
    """JAX's test: the format string's first field names a placeholder."""
    return bool(fmt) and next(iter(string.Formatter().parse(fmt)))[1] is not None


@api("sc.debug.print")
def _print(fmt: str, args: tuple, kwargs: dict, ordered: bool, partitioned: bool, skip_format_check: bool) -> None:
    _options(ordered, partitioned, "sc.debug.print")
    if not skip_format_check:
        _check_format(fmt, args, kwargs)
    placeholders = _has_placeholders(fmt)
    opts = np.get_printoptions()

    def show(*a, **k):
        if placeholders:
            with np.printoptions(**opts):
                msg = fmt.format(*a, **k)
        else:
            msg = " ".join((fmt, *(builtins.str(x) for x in a)))
        sys.stdout.write(msg + "\n")

    _stage(show, args, kwargs, f"print({fmt!r})")


def print(fmt: str | None = None, *args, ordered: bool = False, partitioned: bool = False,  # noqa: A001
          skip_format_check: bool = False, **kwargs):
    """`jax.debug.print`: print `fmt.format(*args, **kwargs)` when the program runs.
    Also the two-call form `sc.debug.print(ordered=...)(fmt, *args, **kwargs)`."""
    if fmt is None:
        if args or kwargs:
            raise ShardcTypeError(f"debug_print received unexpected arguments in the two-call form: {args=} "
                                  f"{kwargs=}")
        return lambda f, *a, **k: _print(f, a, k, ordered, partitioned, skip_format_check)
    _print(fmt, args, kwargs, ordered, partitioned, skip_format_check)
    return None


@api("sc.debug.callback")
def _callback(fn: Callable, args: tuple, kwargs: dict, ordered: bool, partitioned: bool) -> None:
    if not callable(fn):
        raise_user_error(ShardcTypeError(
            f"first argument to jax.debug.callback must be callable, but got an object of type {type(fn)}"))
    _options(ordered, partitioned, "sc.debug.callback")
    _stage(fn, args, kwargs, getattr(fn, "__name__", "callback"))


def callback(callback: Callable | None = None, *args, ordered: bool = False, partitioned: bool = False,
             **kwargs):
    """`jax.debug.callback`: call `callback(*args, **kwargs)` on the host when the program
    runs, with array arguments as NumPy arrays. Also the two-call form."""
    if callback is None:
        if args or kwargs:
            raise ShardcTypeError(f"debug_callback received unexpected arguments in the two-call form: {args=} "
                                  f"{kwargs=}")
        return lambda f, *a, **k: _callback(f, a, k, ordered, partitioned)
    _callback(callback, args, kwargs, ordered, partitioned)
    return None


def inspect_array_sharding(value: Any, *, callback: Callable) -> None:
    """`jax.debug.inspect_array_sharding`: call `callback` with `value`'s sharding. Its
    type says it on Explicit axes, so it is known while tracing (JAX calls it at
    compile time); where the layout is XLA's choice (Auto axes), it is refused."""
    if isinstance(value, Array) and value.sharding is not None:   # an array: its sharding now (as JAX)
        callback(value.sharding)
        return
    t = typeof(value)
    if t.mesh.auto_axes:
        raise_user_error(ShardcNotImplementedError(
            "sc.debug.inspect_array_sharding on a mesh with Auto axes: XLA chooses that layout when it compiles; "
            "look at the compiled program's shardings (sc.jit(f).lower(...).compile().output_shardings)"))
    mesh = get_mesh()
    callback(NamedSharding(mesh if mesh is not None else t.mesh, t.pspec))


def breakpoint(*args, **kwargs):  # noqa: A001
    """`jax.debug.breakpoint` is not built: a program's values reach the host only through callbacks."""
    raise ShardcNotImplementedError("sc.debug.breakpoint is not supported; use sc.debug.print / sc.debug.callback, "
                                    "or run the function under sc.disable_jit() and use Python's breakpoint()")


def visualize_array_sharding(arr: Any, **kwargs) -> None:
    """`jax.debug.visualize_array_sharding`: print JAX's picture of `arr`'s sharding
    (JAX's own renderer, so the output is JAX's), when the sharding is known: at
    once for an array, while tracing for a traced value (as `inspect_array_sharding`).
    shardc's richer picture (types, unreduced axes, rank ≥ 3) is `sc.visualize_array_sharding`."""
    inspect_array_sharding(arr, callback=lambda s: visualize_sharding(arr.shape, s, **kwargs))
