"""The typed IR: a flat list of equations over typed variables (a jaxpr with
sharding types).

Printed form::

    { lambda ; a:f32[8@X,4] b:f32[4,16@Y]. let
        c:f32[8@X,16@Y] = dot_general[contract=((1,), (0,)) batch=((), ())] a b
      in (c) }
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import SourceLoc
from .mesh import AbstractMesh
from .types import ArrayType

_ids = itertools.count()
_TYPES: dict[ArrayType, ArrayType] = {}


def intern_type(t: ArrayType) -> ArrayType:
    """The one object for types equal to `t`: the dicts keyed by types (rule memo, emission
    caches) then match by identity instead of comparing every field."""
    hit = _TYPES.get(t)
    if hit is None:
        if len(_TYPES) > 50_000:
            _TYPES.clear()
        hit = _TYPES[t] = t
    return hit


class Var:
    """A value produced by one equation (or a program input)."""

    __slots__ = ("type", "id")

    def __init__(self, type: ArrayType):
        self.type = intern_type(type)
        self.id = next(_ids)

    def __repr__(self) -> str:
        return f"Var({self.id}:{self.type.str_short()})"


@dataclass(frozen=True, eq=False)
class Literal:
    """A constant operand: a Python/NumPy scalar or a NumPy array, with its type."""

    value: np.ndarray
    type: ArrayType

    def __repr__(self) -> str:
        return f"Literal({self.value!r})"

    def pretty(self) -> str:
        if self.value.ndim == 0:
            v = self.value.item()
            if isinstance(v, bool):
                s = str(v)
            elif isinstance(v, float):
                s = repr(v)
            else:
                s = str(v)
            return f"{s}:{self.type.str_short()}"
        return f"const{{{self.type.str_short()}}}"


Atom = Var | Literal


@dataclass(eq=False)
class Eqn:
    """One primitive application with its typed inputs and outputs.

    `api` is the operation as the user wrote it (`sc.dot`, `@`), `loc` the
    user's source line; both flow into error messages and emitted locations.
    Equations are not mutated after they are recorded (passes build new ones).
    """

    prim: Any  # primitives.core.Primitive
    inputs: list[Atom]
    outputs: list[Var]
    params: dict[str, Any]
    loc: SourceLoc | None = None
    api: str | None = None
    #: its output types were given by its primitive's rules for exactly these inputs when it
    #: was recorded (`bind`): the type-check pass need not run them again
    inferred: bool = False


@dataclass(eq=False)
class Program:
    """A traced function: typed inputs, equations, outputs, on one abstract mesh."""

    name: str
    in_vars: list[Var]
    eqns: list[Eqn]
    outputs: list[Atom]
    mesh: AbstractMesh
    out_tree: Any = None

    @property
    def in_types(self) -> list[ArrayType]:
        return [v.type for v in self.in_vars]

    @property
    def out_types(self) -> list[ArrayType]:
        return [v.type for v in self.outputs]

    def __str__(self) -> str:
        return pretty_print(self)


def _var_names() -> Any:
    """a, b, …, z, ba, bb, … as jaxprs name variables."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    for n in itertools.count(1):
        for combo in itertools.product(letters, repeat=n):
            if n > 1 and combo[0] == "a":
                continue
            yield "".join(combo)


def pretty_print(prog: Program) -> str:
    names: dict[int, str] = {}
    gen = _var_names()

    def name(v: Atom) -> str:
        if isinstance(v, Literal):
            return v.pretty()
        if v.id not in names:
            names[v.id] = next(gen)
        return names[v.id]

    def binder(v: Var) -> str:
        return f"{name(v)}:{v.type.str_short()}"

    lines = ["{ lambda ; " + " ".join(binder(v) for v in prog.in_vars) + ". let"]
    for e in prog.eqns:
        outs = " ".join(binder(v) for v in e.outputs)
        subs = [(k, v) for k, v in e.params.items() if isinstance(v, Program)]
        params = e.prim.format_params({k: v for k, v in e.params.items() if not isinstance(v, Program)})
        if subs:   # nested bodies: each on its own lines, indented under the equation
            params += "".join(f"\n      {k}=" + pretty_print(v).replace("\n", "\n      ") for k, v in subs)
            params += "\n   "
        pstr = f"[{params}]" if params else ""
        args = " ".join(name(a) for a in e.inputs)
        lines.append(f"    {outs} = {e.prim.name}{pstr} {args}".rstrip())
    lines.append("  in (" + ", ".join(name(o) for o in prog.outputs) + ") }")
    return "\n".join(lines)
