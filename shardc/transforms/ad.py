"""Reverse mode's rule table and cotangent types.

`vjp_rules[prim]` is `rule(L, cts, ins, outs, **params) -> list[ct | None]`:
given the output cotangent(s) (one value, or a list for multiple-result
primitives), the primal inputs (tracers, or constants as NumPy values) and
outputs, it returns one cotangent per input (None: no cotangent flows). `L`
is the rule kit the driver passes in (`shardc/autodiff.py`): the
promotion-free `shardc.lax` functions plus the driver's own helpers, so rules
never import layers above the primitives.

Cotangent types follow JAX (docs/rules.md §3): a value's cotangent has its
sharding with unreduced and reduced swapped: sharded↔sharded,
replicated↔replicated, reduced↔unreduced.
"""
from __future__ import annotations

from typing import Callable

from .. import dtypes as dt
from ..core import Primitive
from ..sharding import PartitionSpec
from ..types import ArrayType

__all__ = ["vjp_rules", "defvjp", "ct_spec", "differentiable", "differentiating", "is_differentiating", "not_differentiating"]

VjpRule = Callable[..., list]

vjp_rules: dict[Primitive, VjpRule] = {}


def defvjp(prim: Primitive, rule: VjpRule) -> None:
    """Register `prim`'s VJP rule (once)."""
    if prim in vjp_rules:
        raise AssertionError(f"VJP rule for {prim.name} registered twice")
    vjp_rules[prim] = rule


def ct_spec(t: ArrayType) -> PartitionSpec:
    """The cotangent's spec: the primal's partitions, unreduced and reduced swapped."""
    return PartitionSpec(*t.spec, unreduced=t.reduced, reduced=t.unreduced)


def differentiable(t: ArrayType) -> bool:
    """Only float values carry cotangents (integers and bools have none)."""
    return dt.is_float(t.dtype)


_DEPTH = [0]


class differentiating:
    """While a function is traced for reverse mode (`sc.grad`, `sc.vjp`):
    user-defined rules (`sc.custom_vjp`, `sc.custom_jvp`) bind their equations
    only then, and call the plain function everywhere else, as JAX does."""

    def __enter__(self):
        _DEPTH[0] += 1

    def __exit__(self, *exc):
        _DEPTH[0] -= 1


def is_differentiating() -> bool:
    return _DEPTH[0] > 0


class not_differentiating:
    """While a custom rule's own functions are traced (`fwd`, the primal function,
    the user's `jvp`): calls of the decorated function inside them are plain,
    not another rule application (which would recurse)."""

    def __enter__(self):
        self._saved, _DEPTH[0] = _DEPTH[0], 0

    def __exit__(self, *exc):
        _DEPTH[0] = self._saved
