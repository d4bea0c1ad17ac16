"""Errors shardc raises for user mistakes.

Every user-facing error derives from `ShardcError`. Type errors are also
`TypeError`s (as JAX's `ShardingTypeError` is), and the JAX-style value /
not-implemented errors also derive from the matching builtin, so code written
against JAX's exception classes keeps working.

A message starts with the user's `file:line` and the op as the user wrote it,
then JAX's wording of the rule, then the input types and the fix.
"""
from __future__ import annotations

import functools
import os
import sys
from dataclasses import dataclass
from typing import Sequence

# JAX's own: raised by JAX code that shardc calls (`export`'s symbolic shapes), re-exported by name
from jax.errors import InconclusiveDimensionOperation, JaxprTypeError  # noqa: F401

_PKG_DIR = os.path.dirname(os.path.abspath(__file__))


@dataclass(frozen=True)
class SourceLoc:
    """A position in the user's program (the first frame outside shardc)."""

    file: str
    line: int
    function: str = ""
    #: the `sc.named_scope` names active where the op was written ("block/attn"); they
    #: prefix the op's name in emitted locations (and so in XLA's op_name), not messages
    scope: str = ""

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


#: the active `sc.named_scope` names, outermost first (a tracing-time stack, as JAX's name stack)
NAME_STACK: list[str] = []


#: folders whose frames are never "the user's line": shardc's own; a front end that calls user
#: programs (the CLI) adds itself and its libraries, so an error found while the CLI runs a
#: program names the user's line, or no line, never the CLI's
INTERNAL_PREFIXES: list[str] = [_PKG_DIR, "<frozen"]


_INTERNAL_MEMO: dict[str, bool] = {}
#: what the memo was filled under: the prefix list (the CLI and jaxbridge append to it; a test
#: may replace it) and its length
_MEMO_FOR: list = [None, -1]


def _is_internal(filename: str) -> bool:
    if _MEMO_FOR[0] is not INTERNAL_PREFIXES or _MEMO_FOR[1] != len(INTERNAL_PREFIXES):
        _INTERNAL_MEMO.clear()
        _MEMO_FOR[:] = [INTERNAL_PREFIXES, len(INTERNAL_PREFIXES)]
    hit = _INTERNAL_MEMO.get(filename)
    if hit is None:
        hit = _INTERNAL_MEMO[filename] = filename.startswith(tuple(INTERNAL_PREFIXES))
    return hit


def user_location(skip: int = 1) -> SourceLoc | None:
    """Return the innermost frame that belongs to the user's code.

    Walking frames is O(stack depth) and happens once per op, which keeps
    tracing linear in program size.
    """
    return user_location_from(sys._getframe(skip + 1))


#: one `SourceLoc` per (file, line, function, scope): a loop's ops share their line, and building
#: a frozen dataclass per op cost about as much as the rest of recording the equation
_LOCS: dict[tuple, SourceLoc] = {}


def user_location_from(frame) -> SourceLoc | None:
    """The first frame at or above `frame` that is outside shardc."""
    while frame is not None:
        code = frame.f_code
        fname = code.co_filename
        if not _is_internal(fname):
            key = (fname, frame.f_lineno, code.co_name, "/".join(NAME_STACK) if NAME_STACK else "")
            loc = _LOCS.get(key)
            if loc is None:
                if len(_LOCS) > 100_000:
                    _LOCS.clear()
                loc = _LOCS[key] = SourceLoc(*key)
            return loc
        frame = frame.f_back
    return None


class ShardcError(Exception):
    """Base class of every error shardc reports about a user's program or input."""

    def __init__(self, message: str, *, op: str | None = None,
                 loc: SourceLoc | None = None, inputs: Sequence[str] = (),
                 fix: str | None = None):
        self.message = message
        self.op = op
        self.loc = loc
        self.inputs = tuple(inputs)
        self.fix = fix
        super().__init__(self._render())

    def _render(self) -> str:
        head = []
        if self.loc is not None:
            head.append(f"{self.loc}:")
        if self.op:
            head.append(f"in `{self.op}`:")
        text = (" ".join(head) + " " if head else "") + self.message
        if self.inputs:
            text += "\n  input types: " + ", ".join(self.inputs)
        if self.fix:
            text += "\n  fix: " + self.fix.replace("\n", "\n       ")
        return text

    def with_context(self, *, op: str | None = None, loc: SourceLoc | None = None,
                     inputs: Sequence[str] | None = None) -> "ShardcError":
        """A copy of this error that names the user's op and line (first one wins)."""
        err = type(self).__new__(type(self))
        ShardcError.__init__(err, self.message, op=self.op or op,
                             loc=self.loc or loc,
                             inputs=self.inputs or tuple(inputs or ()), fix=self.fix)
        return err

    def __reduce__(self):
        return (_rebuild, (type(self), self.message, self.op, self.loc, self.inputs, self.fix))


def _rebuild(cls, message, op, loc, inputs, fix):
    return cls(message, op=op, loc=loc, inputs=inputs, fix=fix)


def located(fn):
    """Decorate a public function called outside traced programs (a mesh, a spec, a placement):
    a `ShardcError` it raises without a line names the caller's `file:line`."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except ShardcError as e:
            if e.loc is not None:
                raise
            raise e.with_context(loc=user_location_from(sys._getframe(1))) from None
    return wrapper


class ShardingTypeError(ShardcError, TypeError):
    """A program is ill-typed: its shardings do not fit an op's rule."""


class ShardcTypeError(ShardcError, TypeError):
    """A malformed call (e.g. a required keyword missing), where JAX raises TypeError."""


class ShardcValueError(ShardcError, ValueError):
    """A bad value: an unknown axis, an indivisible dim, a bad spec, a bad argument."""


class ShardcTypePromotionError(ShardcValueError):
    """JAX's `jax.dtypes.TypePromotionError` (a ValueError): no implicit promotion path between
    operand dtypes (under `jax_numpy_dtype_promotion='strict'`)."""


class ShardcAttributeError(ShardcError, AttributeError):
    """Something is missing from a user's object, where JAX raises AttributeError
    (a `custom_vjp` function called before `defvjp`)."""


class ShardcOverflowError(ShardcError, OverflowError):
    """A Python int too large for the dtype it becomes (JAX's OverflowError for an int32 operand)."""


class ShardcNotImplementedError(ShardcError, NotImplementedError):
    """A construct JAX 0.10.2 also does not implement (e.g. most ops on unreduced values)."""


class ShardcAssertionError(ShardcError, AssertionError):
    """`with_sharding_constraint` used as an assertion on Explicit axes did not hold."""


class ShardcInternalError(ShardcError, RuntimeError):
    """A bug in shardc (e.g. an emitted module that does not verify). Please report it."""


class ShardcFloatingPointError(ShardcError, FloatingPointError):
    """A NaN or infinity in a result under `jax_debug_nans` / `jax_debug_infs` (JAX's FloatingPointError)."""


class ShardcRuntimeError(ShardcError, RuntimeError):
    """A compiled program failed while running (a peer process died, a collective timed out)."""


# --- JAX's named error classes (`jax.errors`): code that catches them by name catches shardc's ----
class JAXTypeError(ShardcTypeError):
    """The base of JAX's TypeErrors that have an error page (`jax.errors.JAXTypeError`)."""


class JAXIndexError(ShardcError, IndexError):
    """The base of JAX's IndexErrors that have an error page (`jax.errors.JAXIndexError`)."""


class ConcretizationTypeError(JAXTypeError):
    """A Python value (`float(x)`, a shape, a static argument) was needed of a traced value."""


class TracerBoolConversionError(ConcretizationTypeError):
    """`bool(x)` of a traced value (`if x:`, `while x:`, `and`/`or`)."""


class TracerIntegerConversionError(JAXTypeError):
    """`operator.index(x)` of a traced value (a Python index, `range(x)`)."""


class TracerArrayConversionError(JAXTypeError):
    """`np.asarray(x)` of a traced value (a NumPy function applied to it)."""


class NonConcreteBooleanIndexError(JAXIndexError):
    """`x[mask]` with a traced boolean mask (the result's shape would depend on its values)."""


class UnexpectedTracerError(JAXTypeError):
    """A traced value used after its program was traced (leaked by a side effect)."""


class KeyReuseError(JAXTypeError):
    """A PRNG key used twice where key-reuse checking is on (`jax.errors.KeyReuseError`)."""


#: `except jax.errors.JaxRuntimeError:` in ported code catches a compiled program's failure
JaxRuntimeError = ShardcRuntimeError
