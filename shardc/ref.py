"""Mutable array references, as `jax.ref` / `jax.new_ref` (JAX 0.10.2).

A `Ref` holds the current value of a mutable array: an `sc.Array` outside programs, a traced
value inside one. shardc traces Python, so references are discharged while tracing: a read
(`ref[idx]`) returns (an indexed piece of) the value it holds, a write (`ref[idx] = v`,
`ref[idx] += v`) replaces that value by a functional update (`x.at[idx].set(v)`). Nothing of
a reference reaches the typed IR.

Where a traced program boundary separates a reference from the code that uses it, the
reference is *threaded* through the boundary as an ordinary value:

* `sc.jit`: a reference passed as an argument, or closed over, becomes an extra input of the
  program and its final value an extra output, which the caller's reference then holds
  (`call_jit`, called from `stages.Jit.__call__`).
* `scan` / `fori_loop` / `while_loop` / `cond` (and `switch`, `map`) bodies: the references a
  body uses are extra carries (branch operands and results for `cond`) (`thread_control_flow`,
  plugged into `ops/control_flow.py` by `register_ref_threading`).

Which references a body uses is found by tracing it: each threading boundary is a *frame*;
touching a reference that belongs to an enclosing frame aborts the trace (`_Rediscover`), and
the boundary traces again with that reference threaded. A body that uses no reference is
traced once, unchanged.

JAX's rules and errors are kept: a reference's type (`Ref{float32[8@X,4]}`) never changes, so
writes are checked (JAX's `Invalid shape/dtype for swap`, with its implicit cast of weak
Python scalars and of integers) and placed on the reference's sharding; a sharded reference
is indexed by slices only, full on its sharded dims; references cannot be returned from a
program or body, nor passed twice, nor both closed over and passed (JAX's ValueErrors).
"""
from __future__ import annotations

import functools
import inspect
import weakref
from typing import Any, Callable, Sequence

import jax.tree_util as tu
import numpy as np

from . import dtypes as dt
from . import lax as _lax
from .core import Tracer, current_trace, register_foreign_typeof
from .errors import ShardcError, ShardcNotImplementedError, ShardcTypeError, ShardcValueError, ShardingTypeError
from .ops import control_flow as _cf
from .ops.creation import asarray, zeros
from .ops.elementwise import add, astype
from .ops.indexing import ShardcIndexError
from .ops.sharding import reshard
from .sharding import PartitionSpec
from .types import ArrayType

__all__ = ["AbstractRef", "Ref", "Slice", "addupdate", "ds", "empty_ref", "free_ref", "freeze", "get",
           "new_ref", "set", "swap"]


# --- types ----------------------------------------------------------------------------------------
class AbstractRef:
    """The type of a reference, as `jax.typeof(ref)` prints it: `Ref{float32[8@X,4]}`."""

    __slots__ = ("inner_aval",)

    def __init__(self, inner_aval: ArrayType):
        self.inner_aval = inner_aval

    shape = property(lambda self: self.inner_aval.shape)
    dtype = property(lambda self: self.inner_aval.dtype)
    ndim = property(lambda self: self.inner_aval.ndim)
    sharding = property(lambda self: self.inner_aval.sharding)

    def str_short(self, short_dtypes: bool = False, mesh_axis_types: bool = False) -> str:
        return f"Ref{{{self.inner_aval.str_short(short_dtypes=short_dtypes)}}}"

    def __str__(self) -> str:
        return self.str_short()

    __repr__ = __str__

    def __eq__(self, other) -> bool:
        return isinstance(other, AbstractRef) and other.inner_aval == self.inner_aval

    def __hash__(self) -> int:
        return hash(("Ref", self.inner_aval))


class Slice:
    """`jax.ds(start, size, stride)`: `size` elements from `start` (static or traced) every `stride`."""

    __slots__ = ("start", "size", "stride")

    def __init__(self, start, size, stride: int = 1):
        if stride < 0:
            raise ShardcValueError("`stride` must be >= 0.")
        self.start, self.size, self.stride = start, size, stride

    def __repr__(self) -> str:
        return f"Slice(start={self.start!r}, size={self.size!r}, stride={self.stride!r})"

    def __eq__(self, other) -> bool:
        return (isinstance(other, Slice) and (self.start, self.size, self.stride) ==
                (other.start, other.size, other.stride))

    __hash__ = None   # (a traced start is not hashable either)


def ds(start, size=None, stride: int | None = None):
    """`jax.ds` (`dslice`): `ds(i, n)` is `i:i+n` with `i` static or traced; `ds(n)` is `:n`;
    `ds(None)` is `:`."""
    if start is None:
        return slice(None)
    if stride is None:
        stride = 1
    if not isinstance(stride, int):
        raise ShardcValueError("Non-static stride in `dslice`")
    if size is None:
        start, size = 0, start
    return Slice(start, size, stride)


# --- frames: where a reference's current value lives ------------------------------------------------
class _Frame:
    """One threading boundary being traced (a jit program, a loop body, a cond branch)."""

    __slots__ = ("token", "saved")

    def __init__(self, token: object):
        self.token = token
        self.saved: list[tuple] = []


_FRAMES: list[_Frame] = []
#: the tokens of the jit calls under way (a program's function, traced, reads its call's token)
_PENDING: list[object] = []


class _Rediscover(BaseException):
    """A traced body used a reference of an enclosing frame: the boundary owning `token` traces
    again with `ref` threaded. (BaseException: a user's `except Exception` must not swallow it.)"""

    def __init__(self, token: object, ref: "Ref"):
        super().__init__("internal: trace again with a mutable array reference threaded")
        self.token, self.ref = token, ref


class _Bound:
    """Inside a body: a new frame in which `refs` hold `vals` (the body's inputs standing for
    them); on exit each reference gets back its outer value, frame and trace."""

    def __init__(self, token: object, refs: Sequence["Ref"] = (), vals: Sequence[Any] = ()):
        self.frame = _Frame(token)
        self.refs, self.vals = list(refs), list(vals)

    def __enter__(self) -> _Frame:
        f, tr = self.frame, current_trace()
        _FRAMES.append(f)
        for r, v in zip(self.refs, self.vals):
            f.saved.append((r, r._value, r._frame, r._trace))
            r._value, r._frame, r._trace = v, f, tr
        return f

    def __exit__(self, *exc) -> None:
        _FRAMES.remove(self.frame)
        for r, v, fr, tr in reversed(self.frame.saved):
            r._value, r._frame, r._trace = v, fr, tr


# --- the reference --------------------------------------------------------------------------------
_ACTIVE = [False]


def active() -> bool:
    """Has any reference been made in this process (until then jit and control flow skip the
    threading entirely)."""
    return _ACTIVE[0]


class Ref:
    """A mutable array reference (`jax.Ref`): `ref[idx]` reads, `ref[idx] = v` writes."""

    __slots__ = ("_value", "_type", "_frame", "_trace", "_freed", "__weakref__")

    def __init__(self, value: Any, typ: ArrayType, frame: _Frame | None, trace):
        self._value, self._type, self._frame, self._trace = value, typ, frame, trace
        self._freed = False
        if not _ACTIVE[0]:
            _ACTIVE[0] = True
            _cf.register_ref_threading(thread_control_flow)

    # type-level information
    aval = property(lambda self: AbstractRef(self._type))
    shape = property(lambda self: self._type.shape)
    dtype = property(lambda self: self._type.dtype)
    ndim = property(lambda self: self._type.ndim)
    size = property(lambda self: int(np.prod(self._type.shape, dtype=np.int64)))
    committed = property(lambda self: True)

    @property
    def sharding(self):
        return _read(self).sharding

    def __len__(self) -> int:
        if not self._type.shape:
            raise ShardcTypeError("len() of unsized object")
        return self._type.shape[0]

    def __getitem__(self, idx):
        return get(self, idx)

    def __iter__(self):
        raise ShardcTypeError(f"a mutable array reference ({self.aval}) is not iterable; read it with ref[...]")

    def __array__(self, *a, **k):
        raise ShardcTypeError(f"a mutable array reference ({self.aval}) is not an array; read it with ref[...]")

    def __setitem__(self, idx, value) -> None:
        swap(self, idx, value, _function_name="ref_set")

    def get(self, idx=()):
        return get(self, idx)

    def set(self, value, idx=()) -> None:
        swap(self, idx, value, _function_name="ref_set")

    def swap(self, value, idx=()):
        return swap(self, idx, value)

    def addupdate(self, x, idx=()) -> None:
        addupdate(self, idx, x)

    @property
    def at(self):
        raise NotImplementedError()   # (JAX 0.10.2's Ref.at, a TODO there too)

    def __repr__(self) -> str:
        v = self._value
        if isinstance(v, Tracer) or self._frame is not None:
            return f"Ref<{self.aval}>"
        text = repr(v)
        return "Ref" + text[text.index("("):] if "(" in text else f"Ref({text})"


def _is_ref(x) -> bool:
    return isinstance(x, Ref)


register_foreign_typeof(_is_ref, lambda r: r.aval)


def _leaked(ref: Ref) -> ShardcError:
    return ShardcTypeError(
        f"a mutable array reference of type {ref.aval} made while tracing a function is used after "
        "that function was traced (a leaked reference); keep references inside the traced function "
        "or pass them in as arguments")


def _check_access(ref: Ref) -> None:
    """`ref` may be used here: it belongs to the innermost frame, or that frame traces again
    with it threaded (`_Rediscover`)."""
    if ref._freed == "freeze":   # (JAX's words: the frozen value is no longer a reference)
        raise ShardcValueError(f"`get`/`swap` must be called on `Ref` types: {ref._type}; this reference "
                               "was frozen (`freeze`) inside the program")
    if ref._freed:
        raise ShardcValueError(f"the mutable array reference of type {ref.aval} was used after `free_ref`")
    top = _FRAMES[-1] if _FRAMES else None
    if ref._frame is top:
        return
    if ref._frame is not None and ref._frame not in _FRAMES:
        raise _leaked(ref)
    raise _Rediscover(top.token, ref)


def _read(ref: Ref):
    _check_access(ref)
    return ref._value


def _write(ref: Ref, value) -> None:
    """Make `value` (already of the reference's type) the reference's value."""
    _check_access(ref)
    if isinstance(value, Tracer) and value._trace is not ref._trace:
        raise ShardcValueError(
            f"performing a set/swap operation inside a transformation (grad, jvp, vmap, shard_map, "
            f"checkpoint, custom rules) on an array reference of type {ref.aval} made outside it: shardc "
            "threads references through jit and control flow only. Move the array reference to be an "
            "argument of (or create it inside) the transformed function")
    ref._value = value


# --- creation --------------------------------------------------------------------------------------
def _new(value, typ: ArrayType) -> Ref:
    return Ref(value, typ, _FRAMES[-1] if _FRAMES else None, current_trace())


def new_ref(init_val, *, memory_space=None, kind=None) -> Ref:   # (no hints: `sc.jit(new_ref)` reads them as types)
    """`jax.new_ref`: a mutable array reference holding `init_val` (its type, sharding
    included, is the reference's for good)."""
    if memory_space is not None:
        if current_trace() is None:
            raise ShardcNotImplementedError("array ref with memory space only works inside of a `jit`.")
        raise ShardcNotImplementedError("memory_space=: shardc places every value in device memory")
    if kind not in (None, "no_grad_no_remat"):
        raise ShardcValueError(f"unknown Ref kind {kind!r}")
    if isinstance(init_val, Ref):
        raise ShardcValueError("Cannot store a Ref into another Ref. Did you forget to load from it using `[...]`?")
    if not (isinstance(init_val, (Tracer, np.ndarray, np.generic, bool, int, float, complex))
            or getattr(init_val, "_shardc_type", None) is not None or hasattr(init_val, "__jax_array__")
            or type(init_val).__module__.startswith("jax")):
        if getattr(init_val, "_key_ops", None) is not None:
            raise ShardcNotImplementedError("new_ref of a PRNG key array: shardc's references hold arrays only")
        raise ShardcTypeError(
            f"Error interpreting argument to new_ref as a JAX value. The problematic value is of type "
            f"{type(init_val)} and was passed to new_ref at position 0.")
    value = init_val if isinstance(init_val, Tracer) else asarray(init_val)
    return _new(value, _type_of(value))


def empty_ref(ty, memory_space: Any = None) -> Ref:
    """`jax.empty_ref(ShapeDtypeStruct)`: a reference of that type whose contents are
    unspecified until written (shardc fills it with zeros). Only inside programs, as JAX."""
    if current_trace() is None:
        raise ShardcNotImplementedError("Evaluation rule for 'empty_ref' not implemented")
    if memory_space is not None:
        raise ShardcNotImplementedError("memory_space=: shardc places every value in device memory")
    sharding = getattr(ty, "sharding", None)
    spec = getattr(sharding, "spec", sharding)
    value = zeros(ty.shape, ty.dtype, out_sharding=spec) if spec is not None else zeros(ty.shape, ty.dtype)
    return _new(value, _type_of(value))


def free_ref(ref: Ref):
    """`jax.free_ref`: the reference may not be used again (inside a program; eagerly a no-op, as JAX)."""
    if not isinstance(ref, Ref):
        raise ShardcValueError(f"Can only call `free_ref` on a `Ref`: {ref}.")
    _check_access(ref)
    if current_trace() is not None:
        ref._freed = True
    return ()


def freeze(ref: Ref):
    """`jax.freeze`: the reference's final value (an array given instead is returned as is, as JAX);
    inside a program the reference may not be used after."""
    if not isinstance(ref, Ref):
        return ref
    value = _read(ref)
    if current_trace() is not None:   # (eagerly JAX's reference stays usable)
        ref._freed = "freeze"
    return value


def _type_of(x) -> ArrayType:
    return x.aval if isinstance(x, Tracer) else x._shardc_type


# --- indexing -----------------------------------------------------------------------------------------
def _is_int_index(i) -> bool:
    if isinstance(i, (bool, np.bool_)):
        return False
    if isinstance(i, (int, np.integer)):
        return True
    t = _type_or_none(i)
    return t is not None and t.ndim == 0


def _type_or_none(i):
    if isinstance(i, Tracer):
        return i.aval
    return getattr(i, "_shardc_type", None)


def _expand(idx, shape: tuple[int, ...]) -> tuple | None:
    """`idx` as one entry per dim (None: the whole reference); JAX's IndexErrors."""
    if idx is None or idx is Ellipsis:
        return None
    if not isinstance(idx, tuple):
        idx = (idx,)
    if not idx:
        return None
    n = sum(1 for i in idx if i is not Ellipsis)
    if n > len(shape):
        raise ShardcIndexError(f"Too many indices: array is {len(shape)}-dimensional, but {n} were indexed")
    if sum(1 for i in idx if i is Ellipsis) > 1:
        raise ShardcIndexError("an index can only have a single ellipsis ('...')")
    out: list = []
    for i in idx:
        if i is Ellipsis:
            out.extend([slice(None)] * (len(shape) - n))
        else:
            out.append(i)
    out.extend([slice(None)] * (len(shape) - len(out)))
    return tuple(out)


def _full(entry, d: int) -> bool:
    if isinstance(entry, slice):
        start, stop, step = entry.indices(d)
        return start == 0 and stop == d and step == 1
    if isinstance(entry, Slice):
        return (type(entry.start) is int and entry.start == 0 and type(entry.size) is int
                and entry.size == d and entry.stride == 1)
    return False


def _validate_sharding(typ: ArrayType, entries: tuple) -> None:
    """JAX's `NDIndexer._validate_sharding`: a sharded reference keeps its sharding, so it is
    indexed by slices only, and only full slices on its sharded dims."""
    if all(s is None for s in typ.spec):
        return
    if not all(isinstance(e, (slice, Slice)) for e in entries):
        raise ShardcTypeError("sharded ref (array reference) can only be indexed by slices, not integers")
    for i, (d, e, s) in enumerate(zip(typ.shape, entries, typ.spec)):
        if s is not None and not _full(e, d):
            like = s if isinstance(s, str) else tuple(s)
            raise ShardcValueError(
                "sharded ref (array reference) can only be sliced along unsharded axes, but ref of shape "
                f"{typ.shape} was sliced on axis {i}, which is sharded like {like}")


def _static_slice(e: Slice) -> slice:
    stop = e.start + (e.size - 1) * e.stride + 1 if e.size > 0 else e.start
    return slice(e.start, stop, e.stride)


def _dynamic(entries: tuple) -> list[int]:
    """The dims indexed by a `ds` with a traced start."""
    return [k for k, e in enumerate(entries) if isinstance(e, Slice) and not isinstance(e.start, (int, np.integer))]


def _plain(entries: tuple, dyn: Sequence[int]) -> tuple:
    return tuple(slice(None) if k in dyn else (_static_slice(e) if isinstance(e, Slice) else e)
                 for k, e in enumerate(entries))


def _window(value, entries: tuple, dyn: Sequence[int]):
    """The traced-start `ds` dims cut out with `dynamic_slice`, and its start indices."""
    for k in dyn:
        if entries[k].stride != 1:
            raise ShardcNotImplementedError("`ds` with a traced start and a stride other than 1 on a Ref")
        if not isinstance(entries[k].size, (int, np.integer)):
            raise ShardcNotImplementedError("`ds` with a traced size on a Ref")
    typ = _type_of(value)
    starts = [entries[k].start if k in dyn else 0 for k in range(typ.ndim)]
    sizes = [int(entries[k].size) if k in dyn else typ.shape[k] for k in range(typ.ndim)]
    return _lax.dynamic_slice(value, starts, sizes), starts


def _get_value(value, typ: ArrayType, idx):
    entries = _expand(idx, typ.shape)
    if entries is None:
        return value
    _validate_sharding(typ, entries)
    if all(_full(e, d) for e, d in zip(entries, typ.shape)):
        return value
    dyn = _dynamic(entries)
    if dyn:
        value, _ = _window(value, entries, dyn)
    return value[_plain(entries, dyn)]


def _set_value(value, typ: ArrayType, idx, v):
    """`value` with `v` written at `idx` (already checked against the indexed type)."""
    entries = _expand(idx, typ.shape)
    if entries is None or all(_full(e, d) for e, d in zip(entries, typ.shape)):
        return _conform(v, typ)
    dyn = _dynamic(entries)
    if dyn:
        win, starts = _window(value, entries, dyn)
        win = win.at[_plain(entries, dyn)].set(v)
        return _conform(_lax.dynamic_update_slice(value, win, starts), typ)
    return _conform(value.at[_plain(entries, dyn)].set(v), typ)


def _conform(v, typ: ArrayType):
    """`v` on the reference's sharding (its type never changes, as JAX's `Ref`)."""
    t = _type_of(v)
    if (t.spec, t.unreduced, t.reduced) != (typ.spec, typ.unreduced, typ.reduced) and not typ.mesh.empty:
        v = reshard(v, PartitionSpec(*typ.spec, unreduced=typ.unreduced, reduced=typ.reduced))
    return v


def _indexed_type(value, typ: ArrayType, idx) -> ArrayType:
    entries = _expand(idx, typ.shape)
    if entries is None:
        return typ
    _validate_sharding(typ, entries)
    shape = _basic_shape(entries, typ.shape)
    if shape is not None:
        return typ.update(shape=shape, spec=tuple(s for e, s in zip(entries, typ.spec) if not _is_int_index(e)))
    return _type_of(_get_value(value, typ, idx))


def _basic_shape(entries: tuple, shape: tuple[int, ...]) -> tuple[int, ...] | None:
    """The indexed shape for ints, slices and `ds` (None for advanced indices)."""
    out = []
    for e, d in zip(entries, shape):
        if isinstance(e, slice):
            out.append(len(range(*e.indices(d))))
        elif isinstance(e, Slice):
            if not isinstance(e.size, (int, np.integer)):
                return None
            out.append(int(e.size))
        elif _is_int_index(e):
            continue
        else:
            return None
    return tuple(out)


def _as_ref(ref, function_name: str) -> Ref:
    if not isinstance(ref, Ref):
        raise ShardcValueError(f"Can only call `{function_name}` on a `Ref`: {ref}.")
    return ref


def get(ref: Ref, idx=None):
    """`jax.ref.get` (`ref[idx]`): the value at `idx` (an array, not a reference)."""
    ref = _as_ref(ref, "ref_get")
    return _get_value(_read(ref), ref._type, idx)


def _implicit_cast(dtype: np.dtype, value):
    """JAX's `_maybe_implicit_cast`: a weak float into a float reference, any integer into an
    integer one, is converted to the reference's dtype."""
    t = _type_or_none(value)
    if t is None:
        if isinstance(value, (np.ndarray, np.generic, bool, int, float, complex)):
            value = asarray(value)
            t = _type_of(value)
        else:
            return value
    if ((t.weak_type and dt.is_float(dtype) and dt.is_float(t.dtype))
            or (dt.is_int(dtype) and dt.is_int(t.dtype))):
        if t.dtype != dtype or t.weak_type:
            value = astype(value, dtype)
    return value


def swap(ref: Ref, idx, value, _function_name: str = "ref_swap"):
    """`jax.ref.swap`: write `value` at `idx` and return what was there."""
    ref = _as_ref(ref, _function_name)
    if isinstance(value, Ref):
        raise ShardcValueError("Cannot store a Ref into another Ref. Did you forget to load from it using `[...]`?")
    typ = ref._type
    value = _implicit_cast(typ.dtype, value)
    if _type_or_none(value) is None:
        value = asarray(value)
    cur = _read(ref)
    want = _indexed_type(cur, typ, idx)
    vt = _type_of(value)
    if vt.shape != want.shape:
        raise ShardcValueError(
            f"Invalid shape for `swap`. Ref shape: {typ.shape}. Expected shape: {want.shape}. "
            f"Value shape: {vt.shape}. Transforms: {idx!r}. ")
    if vt.dtype != want.dtype:
        raise ShardcValueError(
            f"Invalid dtype for `swap`. Ref dtype: {want.dtype}. Value dtype: {vt.dtype}. ")
    entries = _expand(idx, typ.shape)
    partial = entries is not None and not all(_full(e, d) for e, d in zip(entries, typ.shape))
    if partial and any(e is not None for e in typ.spec) and (vt.spec, vt.unreduced) != (want.spec, want.unreduced):
        raise ShardingTypeError(   # (JAX writes a piece with dynamic_update_slice, whose rule this is)
            "dynamic_update_slice operand sharding must be equal to update sharding, got operand sharding "
            f"{typ} and update sharding {vt}.")
    old = _get_value(cur, typ, idx) if _function_name == "ref_swap" else None
    _write(ref, _set_value(cur, typ, idx, value))
    return old


def set(ref: Ref, idx, value) -> None:  # noqa: A001  (jax.ref.set's name)
    """`jax.ref.set` (`ref[idx] = value`)."""
    swap(ref, idx, value, _function_name="ref_set")


def addupdate(ref: Ref, idx, x) -> None:
    """`jax.ref.addupdate` (`ref[idx] += x` without a separate read): no implicit cast, and
    on Explicit meshes `x` must have the indexed sharding (JAX's checks)."""
    ref = _as_ref(ref, "ref_addupdate")
    typ = ref._type
    if _type_or_none(x) is None:
        x = asarray(x)
    cur = _read(ref)
    want = _indexed_type(cur, typ, idx)
    xt = _type_of(x)
    if xt.shape != want.shape:
        raise ShardcValueError(
            f"Invalid shape for `addupdate`. Ref shape: {typ.shape}. Expected shape: {want.shape}. "
            f"Value shape: {xt.shape}. Transforms: {idx!r}. ")
    if xt.dtype != want.dtype:
        raise ShardcValueError(
            f"Invalid dtype for `addupdate`. Ref dtype: {typ.dtype}. Value shape: {xt.dtype}. ")
    if ((want.mesh.has_explicit or xt.mesh.has_explicit)
            and (want.spec, want.unreduced, want.reduced) != (xt.spec, xt.unreduced, xt.reduced)):
        raise ShardcValueError(
            f"Invalid sharding for `addupdate`. Ref sharding: {PartitionSpec(*want.spec)}. "
            f"Value sharding: {PartitionSpec(*xt.spec)}. ")
    _write(ref, _set_value(cur, typ, idx, add(_get_value(cur, typ, idx), x)))


# --- JAX's errors at boundaries ---------------------------------------------------------------------
def _fun_info(f) -> str:
    f = inspect.unwrap(f) if callable(f) else f
    name = getattr(f, "__name__", "<function>")
    code = getattr(f, "__code__", None)
    return f"{name} at {code.co_filename}:{code.co_firstlineno}" if code is not None else name


def _no_refs_returned(out, info: str, what: str) -> None:
    """JAX's ValueError for a reference among a traced function's results."""
    for path, leaf in tu.tree_flatten_with_path(out, is_leaf=_is_ref)[0]:
        if isinstance(leaf, Ref):
            where = f" at output tree path result{tu.keystr(path)}" if path else ""
            raise ShardcValueError(
                f"function {info} traced for {what} returned a mutable array reference of type {leaf.aval}"
                f"{where}, but mutable array references cannot be returned.")


def no_refs_returned(out, fun: Callable, what: str) -> None:
    """JAX's ValueError for a reference among the results of `fun` traced for `what`."""
    _no_refs_returned(out, _fun_info(fun), what)


def _arg_names(f, args: tuple, kwargs: dict | None = None) -> list[str]:
    """A name per flat leaf of (args, kwargs), as JAX names arguments in its messages."""
    try:
        params = [p.name for p in inspect.signature(f).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    names = []
    for path, _ in tu.tree_flatten_with_path((tuple(args), dict(kwargs or {})), is_leaf=_is_ref)[0]:
        pos = path[1].idx if path[0].idx == 0 else None
        head = (params[pos] if pos is not None and pos < len(params) else
                (f"args[{pos}]" if pos is not None else str(path[1].key)))
        names.append(head + tu.keystr(path[2:]))
    return names


def _check_aliases(refs: Sequence[Ref], names: Sequence[str], info: str, what: str) -> None:
    seen: dict[int, str] = {}
    for r, n in zip(refs, names):
        if id(r) in seen:
            raise ShardcValueError(
                "only one reference to a mutable array may be passed as an argument to a function, but when "
                f"tracing {info} for {what} the mutable array reference of type {r.aval} appeared at both "
                f"{seen[id(r)]} and {n}.")
        seen[id(r)] = n


def _closure_alias(ref: Ref, name: str, info: str, what: str) -> ShardcError:
    return ShardcValueError(
        f"when tracing {info} for {what}, a mutable array reference of type {ref.aval} was both closed "
        f"over and passed as the argument {name}")


def _run_threaded(arg_refs: Sequence[Ref], arg_names: Sequence[str], info: str, what: str,
                  attempt: Callable, closed: list[Ref] | None = None):
    """Run `attempt(token, closed, values)` (values: the arguments' then the closed-over
    references' current values), which returns (result, their new values); trace again for
    every enclosing reference the traced body turns out to use. Returns (result, closed)."""
    token = object()
    closed = list(closed or ())
    while True:
        refs = list(arg_refs) + closed
        vals = [_read(r) for r in refs]
        try:
            result, new = attempt(token, closed, vals)
        except _Rediscover as e:
            if e.token is not token:
                raise
            for r, n in zip(arg_refs, arg_names):
                if r is e.ref:
                    raise _closure_alias(r, n, info, what) from None
            closed.append(e.ref)
            continue
        for r, v in zip(refs, new):
            _write(r, v)
        return result, closed


def _proxies(vals: Sequence[Any], types: Sequence[ArrayType], frame: _Frame) -> list[Ref]:
    """Stand-ins inside a body for references passed in as arguments (so that the same
    reference used through a closure is told apart, as JAX's aliasing check)."""
    tr = current_trace()
    return [Ref(v, t, frame, tr) for v, t in zip(vals, types)]


def _split_refs(tree) -> tuple[list, Any, list[int]]:
    leaves, treedef = tu.tree_flatten(tree, is_leaf=_is_ref)
    return leaves, treedef, [i for i, x in enumerate(leaves) if isinstance(x, Ref)]


# --- sc.jit ------------------------------------------------------------------------------------------
_CLOSED: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()   # jit → references it closes over
_PURE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()     # jit → {key: the program with them threaded}
_BYPASS: list = []


def take_bypass(jit) -> bool:
    """The call of `jit` that `call_jit` makes itself (no reference to thread): run it as usual."""
    if _BYPASS and _BYPASS[-1] is jit:
        _BYPASS.pop()
        return True
    return False


def call_jit(jit, args: tuple, kwargs: dict, make: Callable):
    """`jit(*args, **kwargs)` with references threaded: those passed as arguments and those the
    function closes over become inputs and outputs of the program (`make(fun, **options)` builds
    it, an `sc.Jit`); the references then hold the program's results."""
    leaves, treedef, pos = _split_refs((tuple(args), dict(kwargs)))
    static = _static_leaves(jit, args, kwargs)
    pos = [k for k in pos if k not in static]   # (a static Ref is a hashable Python value, as JAX's)
    arg_refs = [leaves[i] for i in pos]
    info = _fun_info(jit.fun)
    names = [n for k, n in enumerate(_arg_names(jit.fun, args, kwargs)) if k in pos] if pos else []
    _check_aliases(arg_refs, names, info, "jit")
    closed = _CLOSED.get(jit, [])
    if not arg_refs and not closed:
        token = object()
        frame = _Frame(token)
        _FRAMES.append(frame)
        _BYPASS.append(jit)
        try:
            return jit(*args, **kwargs)
        except _Rediscover as e:
            if e.token is not token:
                raise
            closed = [e.ref]
        finally:
            _FRAMES.remove(frame)
            if _BYPASS and _BYPASS[-1] is jit:
                _BYPASS.pop()

    def attempt(token, closed_now, vals):
        program = _pure_program(jit, treedef, pos, closed_now, info, make)
        vals_it = iter(vals)
        flat = [next(vals_it) if k in pos else x for k, x in enumerate(leaves)]
        a, kw = tu.tree_unflatten(treedef, flat)
        _PENDING.append(token)
        try:
            out, new = program(*a, list(vals[len(pos):]), **kw)
        finally:
            _PENDING.pop()
        return out, new

    out, closed = _run_threaded(arg_refs, names, info, "jit", attempt, closed)
    _CLOSED[jit] = closed
    return out


def trace_jit(jit, args: tuple, kwargs: dict):
    """`jit.trace` / `lower` / `make_jaxpr` (the ahead-of-time stages): refused where the function
    takes or uses a reference, since a compiled program called later could not update it."""
    leaves, _, pos = _split_refs((tuple(args), dict(kwargs)))
    static = _static_leaves(jit, args, kwargs)
    what = ("sc.jit(...).trace / .lower / sc.make_jaxpr of a function that {} a mutable array reference "
            "({}) is not built: call the program instead (it threads references through)")
    for k in pos:
        if k not in static:
            raise ShardcNotImplementedError(what.format("takes", leaves[k].aval))
    token = object()
    frame = _Frame(token)
    _FRAMES.append(frame)
    _BYPASS.append(jit)
    try:
        return jit.trace(*args, **kwargs)
    except _Rediscover as e:
        if e.token is not token:
            raise
        raise ShardcNotImplementedError(what.format("uses", e.ref.aval)) from None
    finally:
        _FRAMES.remove(frame)
        if _BYPASS and _BYPASS[-1] is jit:
            _BYPASS.pop()


def _static_leaves(jit, args: tuple, kwargs: dict) -> frozenset[int]:
    """The flat positions (in `_split_refs((args, kwargs))`) of static arguments' leaves."""
    if not (jit.static_argnums or jit.static_argnames):
        return frozenset()
    n = len(args)
    nums = {i if i >= 0 else i + n for i in jit.static_argnums}
    out, k = [], 0
    for i, a in enumerate(args):
        m = len(tu.tree_leaves(a, is_leaf=_is_ref))
        if i in nums:
            out.extend(range(k, k + m))
        k += m
    for name in sorted(kwargs):   # (dicts flatten in key order)
        m = len(tu.tree_leaves(kwargs[name], is_leaf=_is_ref))
        if name in jit.static_argnames:
            out.extend(range(k, k + m))
        k += m
    return frozenset(out)


def _pure_program(jit, treedef, pos: list[int], closed: list[Ref], info: str, make: Callable):
    """The program taking the references' values as arguments (the closed-over ones last) and
    returning their final values after its results (cached per closed-over set)."""
    key = (tuple(pos), tuple(id(r) for r in closed))
    cache = _PURE.setdefault(jit, {})
    hit = cache.get(key)
    if hit is not None and hit[1] == closed:
        return hit[0]
    fun, refs_closed = jit.fun, list(closed)

    def threaded(*a, **kw):
        *user, closed_vals = a
        token = _PENDING[-1] if _PENDING else object()
        with _Bound(token, refs_closed, closed_vals) as frame:
            flat, tdef = tu.tree_flatten((tuple(user), dict(kw)))
            flat = list(flat)
            arg_vals = [flat[k] for k in pos]
            proxies = _proxies(arg_vals, [_type_of(v) for v in arg_vals], frame)
            for k, p in zip(pos, proxies):
                flat[k] = p
            ua, ukw = tu.tree_unflatten(tdef, flat)
            out = fun(*ua, **ukw)
            _no_refs_returned(out, info, "jit")
            new = [p._value for p in proxies] + [r._value for r in refs_closed]
        return out, new

    functools.update_wrapper(threaded, fun, updated=())
    program = make(threaded, jit.in_shardings, jit.out_shardings, jit.name,
                   static_argnums=jit.static_argnums, static_argnames=jit.static_argnames,
                   donate_argnums=jit.donate_argnums, donate_argnames=jit.donate_argnames)
    program._ref_pure = True
    cache[key] = (program, refs_closed)
    return program


# --- control flow ---------------------------------------------------------------------------------
def thread_control_flow(kind: str, impl: Callable, *args):
    """The hook `ops/control_flow.py` calls for scan / fori_loop / while_loop / cond inside a
    program: the body runs in its own frame; references it uses from outside are threaded
    as extra carries (cond: extra operands and results)."""
    return _THREADERS[kind](impl, *args)


def _marked(f: Callable, g: Callable) -> Callable:
    functools.update_wrapper(g, f, updated=())
    g._ref_threaded = True
    return g


def _carry_refs(tree, f, what: str, info: str, prefix_name: str | None = None) -> None:
    leaves, _, pos = _split_refs(tree)
    if not pos:
        return
    name = prefix_name or _cf._carry_name(f) or "carry"
    paths = [name + tu.keystr(p) for p, _ in tu.tree_flatten_with_path(tree, is_leaf=_is_ref)[0]]
    _check_aliases([leaves[k] for k in pos], [paths[k] for k in pos], info, what)
    raise ShardcValueError(
        f"function {info} traced for {what} returned a mutable array reference of type {leaves[pos[0]].aval}, "
        "but mutable array references cannot be returned. (A reference cannot be a loop carry; "
        "close over it in the body instead.)")


def _scan(impl, f, init, xs, length, reverse):
    info = _fun_info(f)
    _carry_refs(init, f, "scan", info)
    if _split_refs(xs)[2]:
        raise ShardcNotImplementedError("scan over a Ref in xs (JAX scans a reference row by row); "
                                        "index the reference in the body instead")

    def attempt(token, refs, vals):
        if not refs:
            def body(c, x):
                with _Bound(token):
                    out = f(c, x)
                    _no_refs_returned(out, info, "scan")
                return out
            return impl(_marked(f, body), init, xs, length, reverse), []

        def body(c2, x):
            c, rv = c2
            with _Bound(token, refs, rv):
                out = f(c, x)
                _no_refs_returned(out, info, "scan")
                new = [r._value for r in refs]
            c_new, y = out
            return (c_new, new), y
        (c, new), ys = impl(_marked(f, body), (init, list(vals)), xs, length, reverse)
        return (c, ys), new

    return _run_threaded([], [], info, "scan", attempt)[0]


def _fori_loop(impl, lower, upper, f, init):
    info = _fun_info(f)
    _carry_refs(init, f, "fori_loop", info)

    def attempt(token, refs, vals):
        if not refs:
            def body(i, c):
                with _Bound(token):
                    out = f(i, c)
                    _no_refs_returned(out, info, "fori_loop")
                return out
            return impl(lower, upper, _marked(f, body), init), []

        def body(i, c2):
            c, rv = c2
            with _Bound(token, refs, rv):
                out = f(i, c)
                _no_refs_returned(out, info, "fori_loop")
                new = [r._value for r in refs]
            return out, new
        out, new = impl(lower, upper, _marked(f, body), (init, list(vals)))
        return out, new

    return _run_threaded([], [], info, "fori_loop", attempt)[0]


def _while_loop(impl, cond_fun, body_fun, init):
    info = _fun_info(body_fun)
    _carry_refs(init, body_fun, "while_body", info)
    cinfo = _fun_info(cond_fun)

    def attempt(token, refs, vals):
        if not refs:
            def cond(c):
                with _Bound(token):
                    return cond_fun(c)

            def body(c):
                with _Bound(token):
                    out = body_fun(c)
                    _no_refs_returned(out, info, "while_body")
                return out
            return impl(_marked(cond_fun, cond), _marked(body_fun, body), init), []

        def cond(c2):
            c, rv = c2
            with _Bound(token, refs, rv):
                out = cond_fun(c)
                _no_refs_returned(out, cinfo, "while_cond")
            return out

        def body(c2):
            c, rv = c2
            with _Bound(token, refs, rv):
                out = body_fun(c)
                _no_refs_returned(out, info, "while_body")
                new = [r._value for r in refs]
            return out, new
        out, new = impl(_marked(cond_fun, cond), _marked(body_fun, body), (init, list(vals)))
        return out, new

    return _run_threaded([], [], info, "while_loop", attempt)[0]


def _cond(impl, pred, true_fun, false_fun, operands):
    info = _fun_info(true_fun)
    leaves, treedef, pos = _split_refs(tuple(operands))
    arg_refs = [leaves[k] for k in pos]
    names = []
    if pos:
        names = [n for k, n in enumerate(_arg_names(true_fun, tuple(operands))) if k in pos]
        _check_aliases(arg_refs, names, info, "cond")
    stripped = [None if k in pos else x for k, x in enumerate(leaves)]

    def attempt(token, closed, vals):
        if not pos and not closed:
            def branch(fun):
                def run(*ops):
                    with _Bound(token):
                        out = fun(*ops)
                        _no_refs_returned(out, _fun_info(fun), "cond")
                    return out
                return _marked(fun, run)
            return impl(pred, branch(true_fun), branch(false_fun), operands), []

        def branch(fun):
            def run(packed):
                flat, rv = packed
                with _Bound(token, closed, rv[len(pos):]) as frame:
                    proxies = _proxies(rv[:len(pos)], [r._type for r in arg_refs], frame)
                    full = list(flat)
                    for k, p in zip(pos, proxies):
                        full[k] = p
                    out = fun(*tu.tree_unflatten(treedef, full))
                    _no_refs_returned(out, _fun_info(fun), "cond")
                    new = [p._value for p in proxies] + [r._value for r in closed]
                return out, new
            return _marked(fun, run)
        out, new = impl(pred, branch(true_fun), branch(false_fun), ((stripped, list(vals)),))
        return out, new

    return _run_threaded(arg_refs, names, info, "cond", attempt)[0]


_THREADERS = {"scan": _scan, "fori_loop": _fori_loop, "while_loop": _while_loop, "cond": _cond}
