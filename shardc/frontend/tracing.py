"""Tracing: Python values → typed IR equations.

`bind` is the single entry point every operation goes through. Inside a
program it types the equation (running the primitive's rules) and records it;
outside any program it runs the operation eagerly through the same rules and
a cached compiled program (`frontend.eager`).
"""
from __future__ import annotations

import functools
import sys
from typing import Any, Callable, Sequence

import numpy as np

from .. import dtypes as dt
from ..errors import ShardcError, ShardcValueError, SourceLoc, user_location, user_location_from
from ..ir import Eqn, Literal, Var
from ..mesh import EMPTY_MESH, AbstractMesh, get_abstract_mesh
from ..primitives.core import Primitive, infer
from ..types import ArrayType
from .arraylike import ArrayMethods


class Trace:
    """The program being built: its mesh and its equations so far."""

    def __init__(self, mesh: AbstractMesh, name: str = "main",
                 manual_axes: frozenset[str] = frozenset(), check_vma: bool = True):
        self.mesh = mesh
        self.name = name
        self.eqns: list[Eqn] = []
        self.in_vars: list[Var] = []
        #: inside `shard_map`: the Manual axes, and whether varying axes are tracked
        self.manual_axes = frozenset(manual_axes)
        self.check_vma = check_vma

    def new_arg(self, t: ArrayType) -> "Tracer":
        v = Var(t)
        self.in_vars.append(v)
        return Tracer(self, v)


_TRACES: list[Trace] = []


def current_trace() -> Trace | None:
    return _TRACES[-1] if _TRACES else None


class _TraceScope:
    def __init__(self, trace: Trace):
        self.trace = trace

    def __enter__(self) -> Trace:
        _TRACES.append(self.trace)
        return self.trace

    def __exit__(self, *exc) -> None:
        _TRACES.pop()


def tracing(trace: Trace) -> _TraceScope:
    return _TraceScope(trace)


class Tracer(ArrayMethods):
    """A value inside a program being traced. `sc.typeof(t)` gives its type."""

    __slots__ = ("_trace", "_var")
    __array_priority__ = 100

    def __init__(self, trace: Trace, var: Var):
        self._trace = trace
        self._var = var

    @property
    def aval(self) -> ArrayType:
        return self._var.type

    def __repr__(self) -> str:
        return f"Tracer<{self.aval}>"

    def __bool__(self):
        raise ShardcValueError(
            f"the truth value of a traced array ({self.aval}) is not known while tracing; "
            "use sc.where or control flow primitives instead of Python `if`")

    def __array__(self, *a, **k):
        raise ShardcValueError(
            f"a traced array ({self.aval}) has no value while tracing: it cannot be converted "
            "to a NumPy array inside a program")

    def __index__(self):
        raise ShardcValueError(f"a traced array ({self.aval}) cannot be used as a Python integer")


# --- the user-facing op name and line ------------------------------------------------------
class _ApiState:
    """The outermost public op being applied: its name as the user wrote it and
    the user's frame (resolved to a file:line once, on first use)."""

    __slots__ = ("api", "frame", "loc")

    def __init__(self):
        self.api: str | None = None
        self.frame = None
        self.loc = None


_STATE = _ApiState()


def api(name: str) -> Callable[[Callable], Callable]:
    """Mark a public operation: errors inside name it as the user wrote it.

    Python operators pass `api="@"` (etc.) so messages show the operator.
    """

    def deco(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapper(*args, api=None, **kwargs):
            st = _STATE
            if st.api is not None:
                return fn(*args, **kwargs)
            st.api, st.frame, st.loc = api or name, sys._getframe(1), None
            try:
                return fn(*args, **kwargs)
            finally:
                st.api = st.frame = st.loc = None
        wrapper.__shardc_api__ = name
        return wrapper

    return deco


def current_api() -> str | None:
    return _STATE.api


def current_loc() -> SourceLoc | None:
    """The user's source line for the op being applied (cheap after the first call)."""
    st = _STATE
    if st.loc is None:
        st.loc = user_location_from(st.frame) if st.frame is not None else user_location(2)
    return st.loc


class user_code:
    """Run user code (a `shard_map` body, say) from inside an op: ops it calls
    are named as the user wrote them, not after the enclosing op."""

    def __enter__(self):
        st = _STATE
        self._saved = (st.api, st.frame, st.loc)
        st.api = st.frame = st.loc = None

    def __exit__(self, *exc):
        _STATE.api, _STATE.frame, _STATE.loc = self._saved


# --- typeof ------------------------------------------------------------------------
def typeof(x: Any) -> ArrayType:
    """The sharding type of a traced value, an `sc.Array`, a `jax.Array` or a constant."""
    if isinstance(x, Tracer):
        return x.aval
    t = getattr(x, "_shardc_type", None)
    if t is not None:
        return t
    from ..runtime.jaxbridge import is_jax_array, type_of_jax_array
    if is_jax_array(x):
        return type_of_jax_array(x)
    return literal_type(x, EMPTY_MESH)


class Const:
    """A constant operand with an explicit dtype and weak type (a promoted Python scalar)."""

    __slots__ = ("value", "weak")

    def __init__(self, value: Any, dtype, weak: bool = False):
        self.value = np.asarray(value, dtype=dtype)
        self.weak = weak

    def key(self):
        return (self.value.shape, self.value.dtype.str, self.value.tobytes(), self.weak)


def literal_type(x: Any, mesh: AbstractMesh) -> ArrayType:
    if isinstance(x, Const):
        v = x.value
        return ArrayType(v.shape, v.dtype, (None,) * v.ndim, mesh=mesh, weak_type=x.weak)
    if isinstance(x, (bool, int, float, complex, np.generic)):
        dtype, weak = dt.scalar_dtype(x)
        return ArrayType((), dtype, (), mesh=mesh, weak_type=weak)
    arr = np.asarray(x)
    if arr.dtype == object:
        raise ShardcValueError(f"cannot use a value of type {type(x).__name__} as an array")
    return ArrayType(arr.shape, dt.canonicalize(arr.dtype), (None,) * arr.ndim, mesh=mesh)


_SCALAR_LITERALS: dict = {}


def _literal(x: Any, mesh: AbstractMesh) -> Literal:
    # Scalar constants recur (`x * 2.0` in every layer): share one Literal per
    # (type, value) so type rules see identical, already-hashed types.
    key = None
    if mesh is EMPTY_MESH:
        if isinstance(x, Const):
            if x.value.ndim == 0:
                key = (x.value.dtype, x.weak, type(x.value.item()), x.value.item())
        elif type(x) in (int, float, bool):
            key = (type(x), x)
        if key is not None:
            hit = _SCALAR_LITERALS.get(key)
            if hit is not None:
                return hit
    t = literal_type(x, mesh)
    lit = Literal(x.value, t) if isinstance(x, Const) else Literal(np.asarray(x, dtype=t.dtype), t)
    if key is not None and len(_SCALAR_LITERALS) < 10_000:
        _SCALAR_LITERALS[key] = lit
    return lit


# --- bind --------------------------------------------------------------------------
def bind(prim: Primitive, *args: Any, **params: Any):
    """Apply `prim` to `args`: record it in the current program, or run it eagerly."""
    trace = None
    for a in args:
        if isinstance(a, Tracer):
            trace = a._trace
            if _TRACES and trace is not _TRACES[-1] and _TRACES[-1].manual_axes:
                raise _closure_error(a.aval)   # a shard_map body used an outer program's value
            break
    if trace is None:
        trace = current_trace()
    if trace is None:
        from .eager import apply_eagerly
        return apply_eagerly(prim, args, params)
    return _bind_in_trace(trace, prim, args, params)


def _bind_in_trace(trace: Trace, prim: Primitive, args: Sequence[Any], params: dict):
    # The context mesh may differ from the program's (inside auto_axes /
    # explicit_axes / use_abstract_mesh): ops are typed on the context mesh.
    mesh = get_abstract_mesh()
    if mesh.empty:
        mesh = trace.mesh
    atoms = []
    for a in args:
        if isinstance(a, Tracer):
            if a._trace is not trace:
                if trace.manual_axes and a._trace in _TRACES:
                    raise _closure_error(a.aval)
                if a._trace in _TRACES:
                    raise ShardcValueError(
                        f"a value of the enclosing program ({a.aval}) is used inside a nested body "
                        "(sc.cond / sc.fori_loop / sc.scan): bodies cannot close over traced values "
                        "yet; pass it in as an operand (cond) or a carry (fori_loop, scan)",
                        op=current_api(), loc=current_loc())
                raise ShardcValueError(
                    "a value from another program was used here: programs cannot close over "
                    "values traced by an enclosing or finished program")
            atoms.append(a._var)
        elif getattr(a, "_shardc_type", None) is not None:
            if trace.manual_axes and a._shardc_type.mesh.has_explicit:
                raise _closure_error(a._shardc_type)
            atoms.append(Literal(np.asarray(a.to_jax() if hasattr(a, "to_jax") else a), a._shardc_type))
        else:
            # constants fit any mesh: they take the operands' (or the context's)
            atoms.append(_literal(a, EMPTY_MESH))
    if trace.manual_axes and trace.check_vma and prim.auto_pcast:
        atoms = _auto_pcast(trace, atoms)
    in_types = [a.type for a in atoms]
    try:
        out_types = infer(prim, in_types, params, mesh)
    except ShardcError as e:
        raise e.with_context(op=current_api() or prim.name, loc=current_loc(),
                             inputs=[t.str_short() for t in in_types]) from None
    outs = [Var(t) for t in out_types]
    trace.eqns.append(Eqn(prim, atoms, outs, params, current_loc(), current_api()))
    tracers = [Tracer(trace, v) for v in outs]
    return tracers if prim.multiple_results else tracers[0]


def _closure_error(t: ArrayType) -> ShardcError:
    """A `shard_map` body used a value from outside it (JAX: not implemented on Explicit meshes)."""
    from ..errors import ShardcNotImplementedError
    return ShardcNotImplementedError(
        "Closing over inputs to shard_map where the input is sharded on `Explicit` axes is not "
        "implemented. As a workaround, please pass those inputs as an argument to shard_map. Got "
        f"input with shape {t.str_short(mesh_axis_types=True)}", loc=current_loc(), op=current_api())


def _auto_pcast(trace: Trace, atoms: list) -> list:
    """JAX's auto pcast: operands that vary over fewer Manual axes than the
    others get a `pvary` (or `reduced_vary_cast` when reduced on exactly those
    axes) so a primitive sees one varying set. Constants vary as needed."""
    from ..primitives.collectives import pvary, reduced_vary_cast
    union = frozenset().union(*(a.type.vma for a in atoms if isinstance(a, Var)))
    if not union:
        return atoms
    out = []
    for a in atoms:
        if isinstance(a, Literal):
            out.append(Literal(a.value, a.type.update(vma=union)))
            continue
        rest = union - a.type.vma
        if not rest:
            out.append(a)
            continue
        prim = reduced_vary_cast if a.type.reduced == rest else pvary
        axes = trace.mesh.mesh_order(rest)
        try:
            (t,) = infer(prim, [a.type], {"axes": axes}, trace.mesh)
        except ShardcError as e:
            raise e.with_context(op=current_api(), loc=current_loc(),
                                 inputs=[x.type.str_short() for x in atoms]) from None
        v = Var(t)
        trace.eqns.append(Eqn(prim, [a], [v], {"axes": axes}, current_loc(), current_api()))
        out.append(v)
    return out


def raise_user_error(err: ShardcError, in_types: Sequence[ArrayType] = ()) -> None:
    """Raise `err` naming the user's op and line (for checks done outside `bind`)."""
    raise err.with_context(op=current_api(), loc=current_loc(),
                           inputs=[t.str_short() for t in in_types]) from None


def context_mesh_for(args: Sequence[Any]) -> AbstractMesh:
    """The mesh an eager op runs on: the context mesh, else its operands' mesh."""
    m = get_abstract_mesh()
    if not m.empty:
        return m
    for a in args:
        t = getattr(a, "_shardc_type", None)
        if t is not None and not t.mesh.empty:
            return t.mesh
    return EMPTY_MESH
