"""`sc.memory`: JAX's `jax.memory` (memory spaces).

`sc.memory.Space` names the memory a value lives in, and is part of its type:
`float32<host>[8@X]` is a value in host memory (`Space.Host`, JAX's
`memory_kind='pinned_host'`); device memory (`Space.Device`) prints nothing.
`Space.Any` lets a kernel's compiler choose (JAX uses it in Pallas; a program
argument or result in it is JAX's `AssertionError('unreachable')`).

    x_host = sc.device_put(x, sc.memory.Space.Host)           # float32<host>[8@X]
    sc.device_put(x, NamedSharding(mesh, P('X'), memory_kind='pinned_host'))
    sc.jit(f, out_shardings=NamedSharding(mesh, P('X'), memory_kind='pinned_host'))

Operations keep their operands' memory (JAX's default memory-space rule: `x_host * 2`
is in host memory, inside `sc.jit` and eagerly); operands of rank > 0 in different
memories are JAX's `ValueError` ("memory_space of all inputs passed to `add` must be
the same"). The enum is defined in `shardc.sharding` (types are built on it); JAX's own
`jax.memory.Space` members are accepted wherever shardc takes one.
"""
from __future__ import annotations

from .sharding import MemorySpace as Space

__all__ = ["Space"]
