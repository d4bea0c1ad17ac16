"""`sc.pure_callback`, as `jax.pure_callback`: a host (NumPy) function whose results
flow back into the program; and `io_callback`, as `jax.experimental.io_callback`: the same for
an impure function (kept although its results are unused, run once per example under `vmap`,
`ordered=True` refused under `vmap`; JAX's "IO callbacks do not support JVP.").

`sc.pure_callback(f, result_shape_dtypes, *args, **kwargs)` calls `f(*args, **kwargs)` on
the host when the program runs, with array arguments as `jax.Array`s on the host, and
returns its results typed by `result_shape_dtypes` (a pytree of `ShapeDtypeStruct`s);
the results are replicated, as JAX's. The function must be pure: JAX and shardc may call
it any number of times, or not at all. Under `vmap` it runs as `vmap_method` says
(`"sequential"`: once per example; `"expand_dims"` / `"broadcast_all"`: once on the whole
batch, unbatched arguments given a leading dim of 1 / of the batch size); it cannot be
differentiated (JAX's error: wrap it in `sc.custom_jvp`). `sharding=` other than None is
refused, as JAX refuses anything but a single-device sharding.
"""
from __future__ import annotations

from typing import Any, Callable

import jax.tree_util as tu
import numpy as np

from . import dtypes as dt
from .core import Tracer, api, bind, current_trace, raise_user_error
from .debug import _eager_value, _host_array
from .errors import ShardcNotImplementedError, ShardcValueError
from .ops.creation import asarray
from .primitives.callback import PureHostCallback
from .primitives.callback import io_callback as io_callback_p
from .primitives.callback import io_callback_ordered as io_callback_ordered_p
from .primitives.callback import pure_callback as pure_callback_p

__all__ = ["io_callback", "pure_callback"]

_METHODS = ["sequential", "sequential_unrolled", "expand_dims", "broadcast_all", "legacy_vectorized", None]


@api("sc.pure_callback")
def pure_callback(callback: Callable[..., Any], result_shape_dtypes: Any, *args: Any, sharding=None,
                  vmap_method: str | None = None, **kwargs: Any):
    if vmap_method not in _METHODS:
        raise_user_error(ShardcValueError(
            f"vmap_method must be on of the allowed methods {_METHODS}, but got: {vmap_method}"))
    if sharding is not None:
        raise_user_error(ShardcNotImplementedError(
            f"pure_callback only supports SingleDeviceSharding, but got {type(sharding)}"))
    return _call(pure_callback_p, callback, result_shape_dtypes, args, kwargs, vmap_method)


@api("sc.experimental.io_callback")
def io_callback(callback: Callable[..., Any], result_shape_dtypes: Any, *args: Any, sharding=None,
                ordered: bool = False, **kwargs: Any):
    """Calls an impure host function (`jax.experimental.io_callback`)."""
    if sharding is not None:
        raise_user_error(ShardcNotImplementedError(
            f"io_callback only supports sharding=None here, but got {type(sharding)}"))
    return _call(io_callback_ordered_p if ordered else io_callback_p, callback, result_shape_dtypes, args, kwargs,
                 "sequential")


def _call(prim, callback: Callable[..., Any], result_shape_dtypes: Any, args: tuple, kwargs: dict,
          vmap_method: str | None):
    """Bind a host callback primitive (or call it at once, outside programs) on the flattened
    arguments, its results typed by `result_shape_dtypes`."""
    flat_res, out_tree = tu.tree_flatten(result_shape_dtypes)
    result_types = tuple((tuple(r.shape), _result_dtype(r.dtype)) for r in flat_res)
    flat_args, in_tree = tu.tree_flatten((args, kwargs))

    def host(*arrays):
        a, k = tu.tree_unflatten(in_tree, [_host_array(x) for x in arrays])
        return tuple(tu.tree_leaves(callback(*a, **k)))

    def host_eager(*xs):
        a, k = tu.tree_unflatten(in_tree, [_eager_value(x) for x in xs])
        return tuple(tu.tree_leaves(callback(*a, **k)))

    name = getattr(callback, "__name__", "callback")
    if current_trace() is None and not any(isinstance(x, Tracer) for x in flat_args):
        outs = PureHostCallback(host_eager, name, result_types)(*flat_args)
        return tu.tree_unflatten(out_tree, [asarray(o) for o in outs])
    outs = bind(prim, *flat_args, callback=PureHostCallback(host, name, result_types),
                result_types=result_types, vmap_method=vmap_method)
    return tu.tree_unflatten(out_tree, outs)


def _result_dtype(d) -> np.dtype:
    d = np.dtype(d)
    if dt.canonicalize(d) != d:
        raise_user_error(ShardcValueError(
            "result_shape_dtypes cannot specify 64-bit types when `jax_enable_x64` is disabled"))
    return d
