"""`shardc.experimental.pjit`, as JAX 0.10.2's `jax.experimental.pjit`: `pjit`, deprecated in JAX
(its DeprecationWarning, "Please use `jax.jit` instead.", when the name is looked up) and there
`jit` with `in_shardings` / `out_shardings` whose PartitionSpecs name the context mesh's axes;
here it is `sc.jit` with JAX's pjit signature. `keep_unused`, `device`, `backend` and
`compiler_options` are accepted at their defaults only (shardc's `jit` has no such knobs)."""
import warnings as _warnings
from collections.abc import Callable as _Callable
from collections.abc import Iterable as _Iterable
from collections.abc import Sequence as _Sequence
from typing import Any as _Any

from ..errors import ShardcNotImplementedError as _NotImplemented
from ..stages import Jit as _Jit
from ..stages import jit as _jit

# (imports bound under private names: the module's public names are JAX's, none)

__all__: list[str] = []   # JAX's module lists no names: `pjit` is reached through its deprecation hook

_MESSAGE = "jax.experimental.pjit.pjit has been deprecated. Please use `jax.jit` instead."


def _pjit(fun: _Callable, in_shardings: _Any = None, out_shardings: _Any = None,
          static_argnums: int | _Sequence[int] | None = None, static_argnames: str | _Iterable[str] | None = None,
          donate_argnums: int | _Sequence[int] | None = None, donate_argnames: str | _Iterable[str] | None = None,
          keep_unused: bool = False, device: _Any = None, backend: str | None = None, inline: bool = False,
          compiler_options: dict[str, _Any] | None = None) -> _Jit:
    """`jax.experimental.pjit.pjit` has been deprecated. Please use `jax.jit`."""
    unsupported = {"keep_unused": keep_unused, "device": device, "backend": backend,
                   "compiler_options": compiler_options}
    given = [k for k, v in unsupported.items() if v not in (None, False)]
    if given:
        raise _NotImplemented(f"pjit: {', '.join(given)} are not supported by shardc's jit")
    return _jit(fun, in_shardings=in_shardings, out_shardings=out_shardings,
                static_argnums=() if static_argnums is None else static_argnums,
                static_argnames=() if static_argnames is None else static_argnames,
                donate_argnums=() if donate_argnums is None else donate_argnums,
                donate_argnames=() if donate_argnames is None else donate_argnames, inline=inline)


def __getattr__(name: str) -> _Any:
    """JAX's deprecation hook: `pjit` warns when looked up, as `jax.experimental.pjit.pjit`."""
    if name == "pjit":
        _warnings.warn(_MESSAGE, DeprecationWarning, stacklevel=2)
        return _pjit
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
