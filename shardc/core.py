"""The core: primitives, their type inference, and tracing (`bind`).

Everything else builds on this module; it imports only the base modules
(`errors`, `dtypes`, `mesh`, `sharding`, `types`, `ir`).

* `Primitive` bundles the rules of one operation: shape/dtype, sharding on
  Explicit axes, unreduced/reduced, varying manual axes, lowering. `infer`
  runs them in the order JAX does (docs/rules.md §1.4): shapes first, then the
  sharding rule only when the mesh has an Explicit axis, the duplicate-axis
  check, U/R, then VMA. Transformation rules (VJP, …) are registered into the
  transformation's own table (`shardc/transforms/`).
* `Trace` is a program being built and `Tracer` a value in it; `bind` is the
  single entry point every operation goes through: inside a program it types
  the equation and records it, outside any program it hands the operation to
  the eager handler that the pipeline driver (`shardc/stages.py`) registers.

Hooks that higher layers plug into (so this module never imports them):
`register_eager_handler` (stages: run one op eagerly; stage a function
eagerly), `register_foreign_typeof` (runtime: the type of a `jax.Array`),
`register_vary_prims` (primitives: the `pvary` casts of JAX's auto pcast);
the Python operators of `Tracer` are installed by `shardc.ops`.
"""
from __future__ import annotations

import contextlib
import functools
import math
import sys
from typing import Any, Callable, Sequence

import numpy as np

from . import dtypes as dt
from .errors import (
    ShardcError,
    ShardcNotImplementedError,
    ShardcOverflowError,
    ShardcValueError,
    ShardingTypeError,
    SourceLoc,
    UnexpectedTracerError,
    user_location,
    user_location_from,
)
from .ir import Atom, Eqn, Literal, Program, Var, intern_type
from .mesh import EMPTY_MESH, AbstractMesh, AxisType, get_abstract_mesh, mesh_context_is_inferred
from .sharding import Entry, MemorySpace, PartitionSpec, entry_axes
from .types import ArrayType

__all__ = [
    "Primitive", "Nested", "REGISTRY", "infer", "common_mesh", "check_explicit_spec",
    "Trace", "Tracer", "bind", "current_trace", "tracing", "outside_traces", "Const", "scalar_const", "literal_type", "typeof",
    "api", "current_api", "current_loc", "at_source", "user_code", "raise_user_error", "context_mesh_for",
    "register_eager_handler", "register_foreign_typeof", "foreign_type", "register_foreign_ops", "dispatches", "register_vary_prims", "stage_eagerly", "ensure_compile_time_eval",
]

ShapeDtype = tuple[tuple[int, ...], np.dtype, bool]  # shape, dtype, weak_type
URSets = tuple[frozenset[str], frozenset[str]]       # unreduced, reduced

REGISTRY: dict[str, "Primitive"] = {}
_EMPTY: frozenset[str] = frozenset()
_NO_UR: URSets = (_EMPTY, _EMPTY)


class Primitive:
    """One operation and all its rules. Subclasses override what differs."""

    name: str = "?"
    multiple_results: bool = False
    #: emit an `sdy.sharding_constraint` pinning each result to its type
    constrain_outputs: bool = True
    #: inside `shard_map`, make operands' varying axes agree first by inserting
    #: `pvary` (JAX's auto pcast); collectives manage varying axes themselves
    auto_pcast: bool = True
    #: moves a value onto the mesh given by its `mesh` param (same devices,
    #: other axis names or types): `reshard` under `use_abstract_mesh`, `mesh_cast`
    changes_mesh: bool = False
    #: has an effect beyond its results (a host callback): never replayed by a transformation
    side_effect: bool = False

    def __init__(self, name: str | None = None):
        if name is not None:
            self.name = name
        if self.name in REGISTRY:
            raise AssertionError(f"primitive {self.name} defined twice")
        REGISTRY[self.name] = self

    def __repr__(self) -> str:
        return self.name

    # --- rules ----------------------------------------------------------------
    def shape_rule(self, *ins: ArrayType, **params) -> list[ShapeDtype]:
        raise NotImplementedError

    def sharding_rule(self, *ins: ArrayType, **params) -> list[tuple[Entry, ...]]:
        raise ShardingTypeError(
            f"sharding rule for {self.name} is not implemented. You can work around this error "
            "by dropping that operation into full auto sharding mode via: "
            "`sc.auto_axes(fun, out_sharding=...)`")

    # U/R and VMA rules return one entry per output, or a single entry that
    # applies to every output (`infer` broadcasts it).
    def ur_rule(self, *ins: ArrayType, **params) -> list[URSets] | URSets:
        """Default: no unreduced/reduced support at all (as JAX without a ur_rule)."""
        for t in ins:
            if t.unreduced or t.reduced:
                raise ShardcNotImplementedError(
                    f"unreduced/reduced rule for {self.name} is not implemented. "
                    "Please file an issue at https://github.com/jax-ml/jax/issues")
        return _NO_UR

    def vma_rule(self, *ins: ArrayType, **params) -> list[frozenset[str]] | frozenset[str]:
        """Standard VMA rule: operands must vary over the same manual axes."""
        if not ins:
            return _EMPTY
        out = ins[0].vma
        for t in ins:
            if t.vma != out:
                raise ShardcValueError(
                    f"Primitive {self.name} requires varying manual axes to match, but got "
                    f"[{', '.join(_fs(x.vma) for x in ins)}].")
        return out

    def memory_space_rule(self, *ins: ArrayType, **params) -> list[MemorySpace] | MemorySpace:
        """JAX's `_default_memory_space_rule`: results live where the operands of rank > 0 live
        (host values stay on the host); operands in different memories are JAX's ValueError."""
        return default_memory_space(self.name, ins)

    # --- lowering ---------------------------------------------------------------
    def lower(self, ctx, eqn, *args: str) -> list[str]:
        raise NotImplementedError(f"no lowering for {self.name}")

    def format_params(self, params: dict[str, Any]) -> str:
        """The params as the IR printer shows them (nested programs excluded:
        the printer prints those itself, indented, after these)."""
        return " ".join(f"{k}={_fmt(v)}" for k, v in params.items() if v is not None)

    def sub_programs(self, params: dict[str, Any]) -> list[Program]:
        """The nested programs this equation holds (bodies, branches)."""
        return [v for v in params.values() if isinstance(v, Program)]


def _fmt(v: Any) -> str:
    if isinstance(v, np.dtype):
        return dt.short_name(v)
    if isinstance(v, ArrayType):
        return v.str_short()
    return str(v)


def _fs(s: frozenset) -> str:
    return "frozenset()" if not s else "frozenset({" + ", ".join(repr(a) for a in sorted(s)) + "})"


def common_mesh(ins: Sequence[ArrayType], context: AbstractMesh, prim_name: str) -> AbstractMesh:
    """The one mesh all operands live on (empty-mesh operands fit any mesh)."""
    if not context.empty:   # JAX checks operands against the context mesh first (a ValueError)
        bad = next((t for t in ins if not t.mesh.empty and t.mesh != context), None)
        if bad is not None:
            raise ShardcValueError(
                f"For primitive {prim_name}, context mesh {context!r} should match the aval mesh "
                f"{bad.mesh!r} for shape {bad.str_short()}.")
        return context
    meshes = {t.mesh for t in ins if not t.mesh.empty}
    if len(meshes) > 1:
        raise ShardingTypeError(
            "Mesh for all inputs should be equal. Got one mesh: "
            + " and another mesh: ".join(repr(m) for m in sorted(meshes, key=repr)))
    return meshes.pop() if meshes else context


_CACHE: dict[Any, list[ArrayType]] = {}


def infer(prim: Primitive, ins: Sequence[ArrayType], params: dict[str, Any],
          context_mesh: AbstractMesh) -> list[ArrayType]:
    """Compute the output types of `prim` applied to `ins` (or raise the JAX error).

    Rules are pure functions of types and params, so results are memoized:
    programs repeat the same few signatures (layers, loops), and a hit costs
    one hash of already-hashed types.
    """
    try:
        # (most equations have no params: skip building an empty items tuple)
        key = (prim, tuple(ins), tuple(params.items()) if params else (), context_mesh)
        hit = _CACHE.get(key)
    except TypeError:  # an unhashable param: compute without caching
        return _infer(prim, ins, params, context_mesh)
    if hit is None:
        # interned once here, so the `Var`s made from a hit find their type by identity
        hit = [intern_type(t) for t in _infer(prim, ins, params, context_mesh)]
        if len(_CACHE) > 200_000:
            _CACHE.clear()
        _CACHE[key] = hit
    return hit


def _infer(prim: Primitive, ins: Sequence[ArrayType], params: dict[str, Any],
           context_mesh: AbstractMesh) -> list[ArrayType]:
    if prim.changes_mesh:
        mesh = params["mesh"]
        src = {t.mesh for t in ins if not t.mesh.empty}
        if any(m.size != mesh.size for m in src):
            raise ShardcValueError(f"{prim.name} cannot move a value between meshes of different "
                                   f"sizes: {', '.join(repr(m) for m in src)} → {mesh!r}")
    else:
        mesh = common_mesh(ins, context_mesh, prim.name)
        ins = [t if not t.mesh.empty or mesh.empty else t.update(mesh=mesh) for t in ins]
    osh = params.get("out_sharding")
    if isinstance(osh, PartitionSpec) and not mesh.empty:
        check_explicit_spec(osh, mesh, prim.name)
    shapes = prim.shape_rule(*ins, **params)
    if mesh.has_explicit:
        specs = prim.sharding_rule(*ins, **params)
    else:
        specs = [(None,) * len(s) for s, _, _ in shapes]
    for (shape, _, _), spec in zip(shapes, specs):
        _check_no_duplicates(prim, ins, shape, spec, mesh, shapes)
    n = len(shapes)
    urs = prim.ur_rule(*ins, **params)
    if isinstance(urs, tuple):
        urs = [urs] * n
    vmas = prim.vma_rule(*ins, **params)
    if isinstance(vmas, frozenset):
        vmas = [vmas] * n
    spaces = prim.memory_space_rule(*ins, **params)
    if isinstance(spaces, MemorySpace):
        spaces = [spaces] * n
    return [ArrayType(tuple(shape), np.dtype(dtype), tuple(spec), u, r, v, mesh, bool(weak), ms)
            for (shape, dtype, weak), spec, (u, r), v, ms in zip(shapes, specs, urs, vmas, spaces)]


_DEVICE = MemorySpace.Device


def default_memory_space(name: str, ins: Sequence[ArrayType]) -> MemorySpace:
    """JAX's `_default_memory_space_rule` (lax/utils.py): `Any` when every operand is in `Any`;
    else the common memory of the operands of rank > 0 (device memory when there are none)."""
    if all(t.memory_space is _DEVICE for t in ins):   # (the common case, without the loop below)
        return _DEVICE
    if ins and all(t.memory_space is MemorySpace.Any for t in ins):
        return MemorySpace.Any
    prev = None
    for t in ins:
        if not t.ndim:
            continue
        if prev is not None and prev.memory_space is not t.memory_space:
            raise ShardcValueError(
                f"memory_space of all inputs passed to `{name}` must be the same. Got one operand with "
                f"type: {prev.str_short(short_dtypes=False)} and another operand with type: "
                f"{t.str_short(short_dtypes=False)}")
        prev = t
    return _DEVICE if prev is None else prev.memory_space


def check_explicit_spec(spec: PartitionSpec, mesh: AbstractMesh, api: str) -> None:
    """A sharding a result is given (`out_sharding=`, `reshard`) may name
    Explicit axes only (JAX's `canonicalize_sharding`); checked on every mesh,
    all-Auto ones included."""
    for a in [a for e in spec for a in entry_axes(e)] + sorted(spec.unreduced) + sorted(spec.reduced):
        if a in mesh.axis_names and mesh.axis_type(a) in (AxisType.Auto, AxisType.Manual):
            raise ShardcValueError(
                f"PartitionSpec passed to {api} cannot contain axis names that are of type Auto "
                f"or Manual. Got PartitionSpec: {spec!r} with axis name: {a} of type: "
                f"AxisType.{mesh.axis_type(a).value}")


def _check_no_duplicates(prim, ins, shape, spec, mesh, shapes) -> None:
    axes = [a for e in spec for a in entry_axes(e)]
    if len(axes) != len(set(axes)):
        out = ArrayType(tuple(shape), np.dtype(shapes[0][1]), tuple(spec), mesh=mesh)
        raise ShardingTypeError(
            f"{prim.name} operation with inputs: {', '.join(t.str_short() for t in ins)} "
            f"produces an illegally sharded result: {out.str_short()}")


class Nested(Primitive):
    """A primitive with nested bodies (shard_map, cond, while, scan): its
    results' types were computed by tracing the bodies and are carried in the
    `out_types` param, so every rule just reads them back."""

    multiple_results = True
    #: operands enter the bodies with their own types (the bodies were traced
    #: on them): no pvary to a common set of varying axes, as in JAX
    auto_pcast = False

    def shape_rule(self, *ins: ArrayType, out_types, **_):
        return [(t.shape, t.dtype, t.weak_type) for t in out_types]

    def sharding_rule(self, *ins: ArrayType, out_types, **_):
        return [t.spec for t in out_types]

    def ur_rule(self, *ins: ArrayType, out_types, **_):
        return [(t.unreduced, t.reduced) for t in out_types]

    def vma_rule(self, *ins: ArrayType, out_types, **_):
        return [t.vma for t in out_types]

    def memory_space_rule(self, *ins: ArrayType, out_types, **_):
        return [t.memory_space for t in out_types]

    def format_params(self, params: dict[str, Any]) -> str:
        return super().format_params({k: v for k, v in params.items() if k != "out_types"})


# === tracing =========================================================================


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
        #: closure conversion (nested `jit`): values of enclosing programs used here
        #: become extra inputs, outer var id → (the outer tracer, its input here);
        #: None where closing over them is not allowed
        self.closure: dict[int, tuple[Tracer, Var]] | None = None
        #: how a closed-over value's type reads in here (None: unchanged)
        self.capture_type: Callable[[ArrayType], ArrayType] | None = None
        #: where the program's arguments are known (an eager shard_map body, which JAX runs op
        #: by op): `concrete_value(tracer, blocks)` computes a value of this program so far
        #: (blocks=False: the one value of an invariant tracer; True: every device's block),
        #: or returns None
        self.concrete_value: Callable[["Tracer", bool], Any] | None = None

    def new_arg(self, t: ArrayType) -> "Tracer":
        v = Var(t)
        self.in_vars.append(v)
        return Tracer(self, v)

    def capture(self, t: "Tracer") -> Var:
        """The input of this program that stands for `t`, a value of an enclosing one
        (typed as this program sees it: `capture_type`, e.g. a shard_map body's view)."""
        hit = self.closure.get(t._var.id)
        if hit is None:
            hit = self.closure[t._var.id] = (t, Var(self._seen_type(t)))
        return hit[1]

    def _seen_type(self, t: "Tracer") -> ArrayType:
        """`t`'s type as seen here: each program between its own and this one that
        retypes what it closes over (a shard_map body) does so in turn."""
        typ = t._var.type
        chain = _TRACES[_TRACES.index(t._trace) + 1:] if t._trace in _TRACES else [self]
        for tr in chain:
            if tr.capture_type is not None:
                typ = tr.capture_type(typ)
            if tr is self:
                break
        return typ

    def atom(self, a: Any) -> Atom:
        """`a` (a tracer, an `sc.Array` or a constant) as an operand of this program."""
        if isinstance(a, Tracer):
            if a._trace is self:
                return a._var
            if self.closure is not None and a._trace in _TRACES:
                return self.capture(a)
            if self.manual_axes and a._trace in _TRACES:
                raise _closure_error(a.aval)
            if a._trace in _TRACES:
                raise ShardcValueError(
                    f"a value of an enclosing program ({a.aval}) is used inside a nested program that "
                    "cannot close over it; pass it in as an argument",
                    op=current_api(), loc=current_loc())
            raise leaked_tracer_error(a)
        if getattr(a, "_shardc_type", None) is not None:
            t = a._shardc_type
            if self.manual_axes and t.mesh.has_explicit:
                raise _closure_error(t)
            return Literal(np.asarray(a.to_jax() if hasattr(a, "to_jax") else a), _into_manual_context(t))
        # constants fit any mesh: they take the operands' (or the context's)
        return _literal(a, EMPTY_MESH)


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


class outside_traces:
    """Run as if no program were being traced (a concrete value computed while tracing an
    eager shard_map body runs as a program of its own), the traces restored after."""

    def __enter__(self) -> None:
        self.saved = list(_TRACES)
        _TRACES.clear()

    def __exit__(self, *exc) -> None:
        _TRACES[:] = self.saved


class Tracer:
    """A value inside a program being traced. `sc.typeof(t)` gives its type.

    Its Python operators and array methods are installed by `shardc.ops`
    (`ops/array_methods.py`), the layer that defines what `x + y` means, and so
    is what it says to `bool(t)`, `np.asarray(t)`, `t.item()` (JAX's errors)."""

    __slots__ = ("_trace", "_var", "__weakref__")
    __array_priority__ = 100

    def __init__(self, trace: Trace, var: Var):
        self._trace = trace
        self._var = var

    @property
    def aval(self) -> ArrayType:
        return self._var.type

    @property
    def mat(self):
        """JAX's `tracer.mat` (its type's manual axis type: the VMA set, Manual U/R axes)."""
        return self._var.type.mat

    def __repr__(self) -> str:
        return f"Tracer<{self.aval}>"


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
            f = _foreign_impl(name, args, kwargs, fn) if _FOREIGN_OPS else fn
            st = _STATE
            if st.api is not None:
                return f(*args, **kwargs)
            st.api, st.frame, st.loc = api or name, sys._getframe(1), None
            try:
                if type(kwargs.get("out_sharding")) is PartitionSpec and mesh_context_is_inferred():
                    _no_mesh_for_pspec(kwargs["out_sharding"])
                return f(*args, **kwargs)
            finally:
                st.api = st.frame = st.loc = None
        wrapper.__shardc_api__ = name
        return wrapper

    return deco


#: operand types with their own implementations of public ops: type -> {op name: function}
#: (shardc.random's key arrays: `jnp.reshape(keys, ...)` reshapes their key data)
_FOREIGN_OPS: dict[type, dict[str, Callable]] = {}


def register_foreign_ops(cls: type, ops: dict[str, Callable]) -> None:
    """Operands of type `cls` take these implementations of the named ops (`"sc.reshape"`,
    `"lax.reshape"`): the one dispatch on operand type, at the op's entry (`api`, `dispatches`)."""
    _FOREIGN_OPS[cls] = ops


def _foreign_ops(args: tuple, kwargs: dict) -> dict | None:
    """The op table of the first registered operand type among the arguments (also inside a
    list or tuple argument: `concatenate([keys, keys])`)."""
    for a in (*args, *kwargs.values()):
        ops = _FOREIGN_OPS.get(type(a))
        if ops is not None:
            return ops
        if type(a) in (list, tuple):
            for b in a:
                ops = _FOREIGN_OPS.get(type(b))
                if ops is not None:
                    return ops
    return None


def _foreign_impl(name: str, args: tuple, kwargs: dict, fn: Callable) -> Callable:
    """`fn`, or a registered operand type's implementation of op `name` for these arguments
    (which may decline with NotImplemented: then `fn` runs)."""
    ops = _foreign_ops(args, kwargs)
    impl = None if ops is None else ops.get(name)
    if impl is None:
        return fn

    def run(*a, **kw):
        out = impl(*a, **kw)
        return fn(*a, **kw) if out is NotImplemented else out
    return run


def dispatches(name: str) -> Callable[[Callable], Callable]:
    """A public function that is not an `api` op (`lax.reshape`, ...) whose operands may be of a
    registered type (`register_foreign_ops`)."""
    def deco(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            f = _foreign_impl(name, args, kwargs, fn) if _FOREIGN_OPS else fn
            return f(*args, **kwargs)
        return wrapper
    return deco


def _no_mesh_for_pspec(spec: PartitionSpec) -> None:
    """JAX's `canonicalize_sharding` error for a user's bare `out_sharding=P(...)` inside a
    program traced with no mesh context (its mesh taken from its arguments: JAX's
    `get_abstract_mesh()` is empty there)."""
    raise_user_error(ShardcValueError(
        "Using PartitionSpec when you are not under a mesh context is not allowed. Please pass a "
        "NamedSharding instance or enter into a mesh context via `sc.set_mesh`. "
        f"Got {spec!r}"))


def current_api() -> str | None:
    return _STATE.api


def current_loc() -> SourceLoc | None:
    """The user's source line for the op being applied (cheap after the first call inside one
    public op, whose wrapper forgets it on return). A bare `bind` outside any public op (a `lax`
    wrapper) looks its line up each time: kept, it would locate every later bare op there."""
    st = _STATE
    if st.loc is None:
        if st.frame is None and st.api is None:
            return user_location(2)
        st.loc = user_location_from(st.frame) if st.frame is not None else user_location(2)
    return st.loc


class at_source:
    """Ops bound inside are located at `loc` and named `api` (a transformation's
    rules run for an equation: their ops point at the user's line of that
    equation, e.g. "grad of sc.reshard at model.py:25", not at the grad call)."""

    def __init__(self, loc, api: str | None):
        self._at = (api, loc)

    def __enter__(self):
        st = _STATE
        self._saved = (st.api, st.frame, st.loc)
        st.api, st.loc = self._at
        st.frame = None

    def __exit__(self, *exc):
        _STATE.api, _STATE.frame, _STATE.loc = self._saved


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
    t = foreign_type(x)
    return t if t is not None else literal_type(x, EMPTY_MESH)


class Const:
    """A constant operand with an explicit dtype and weak type (a promoted Python scalar)."""

    __slots__ = ("value", "weak", "literal")

    def __init__(self, value: Any, dtype, weak: bool = False):
        self.value = np.asarray(value, dtype=dtype)
        self.weak = weak
        #: its `Literal` once bound as a mesh-free operand (a shared constant is keyed only once)
        self.literal: Literal | None = None

    def key(self):
        return (self.value.shape, self.value.dtype.str, self.value.dtype.name, self.value.tobytes(), self.weak)


_SCALAR_CONSTS: dict = {}


def scalar_const(v: Any, dtype, make: Callable[[], Const] | None = None) -> Const:
    """One shared non-weak rank-0 `Const(v, dtype)` (or `make()`) per (value, dtype).

    The ops' fast paths turn a Python scalar operand (`x * 0.5`, every layer) into a
    constant on every use; sharing it skips building and re-keying the array each time.
    Keyed by type and sign as well as value: `1 == 1.0 == True` and `-0.0 == 0.0`.
    """
    sign = math.copysign(1.0, v) if isinstance(v, (float, np.floating)) else 1.0   # (a big int has none)
    key = (type(v), v, sign, dtype)
    c = _SCALAR_CONSTS.get(key)
    if c is None:
        if len(_SCALAR_CONSTS) > 10_000:   # (NaN keys never match: bounded, not a leak)
            _SCALAR_CONSTS.clear()
        c = _SCALAR_CONSTS[key] = make() if make is not None else Const(v, dtype, False)
    return c


def literal_type(x: Any, mesh: AbstractMesh) -> ArrayType:
    if isinstance(x, Const):
        v = x.value
        return ArrayType(v.shape, v.dtype, (None,) * v.ndim, mesh=mesh, weak_type=x.weak)
    if isinstance(x, (bool, int, float, complex, np.generic)):
        dtype, weak = dt.scalar_dtype(x)
        if weak and type(x) is int and not -2**31 <= x < 2**31:   # as JAX: an operand is parsed as int32
            raise ShardcOverflowError(f"Python int {x} too large to convert to int32", op=current_api(),
                                      loc=current_loc())
        return ArrayType((), dtype, (), mesh=mesh, weak_type=weak)
    arr = np.asarray(x)
    if arr.dtype == object:
        raise ShardcValueError(f"cannot use a value of type {type(x).__name__} as an array")
    if arr.dtype == dt.float0:   # JAX's error names the operation (`jnp.maximum` -> maximum)
        raise dt.float0_error((current_api() or "an operation").rpartition(".")[2]).with_context(loc=current_loc())
    return ArrayType(arr.shape, dt.canonicalize(arr.dtype), (None,) * arr.ndim, mesh=mesh)


_SCALAR_LITERALS: dict = {}


def _literal(x: Any, mesh: AbstractMesh) -> Literal:
    # Scalar constants recur (`x * 2.0` in every layer): share one Literal per
    # (type, value) so type rules see identical, already-hashed types.
    # (keys by bits, not by value: -0.0 == 0.0 but they are different constants)
    key = None
    if mesh is EMPTY_MESH:
        if isinstance(x, Const):
            if x.literal is not None:
                return x.literal
            if x.value.ndim == 0:
                key = (x.value.dtype, x.weak, x.value.tobytes())
        elif type(x) is float:
            key = (float, x, math.copysign(1.0, x))
        elif type(x) in (int, bool):
            key = (type(x), x)
        if key is not None:
            lit = _SCALAR_LITERALS.get(key)
            if lit is None:
                lit = _new_literal(x, mesh)
                if len(_SCALAR_LITERALS) < 10_000:
                    _SCALAR_LITERALS[key] = lit
            if isinstance(x, Const):
                x.literal = lit
            return lit
    return _new_literal(x, mesh)


def _new_literal(x: Any, mesh: AbstractMesh) -> Literal:
    t = literal_type(x, mesh)
    return Literal(x.value, t) if isinstance(x, Const) else Literal(np.asarray(x, dtype=t.dtype), t)


# --- bind --------------------------------------------------------------------------
def bind(prim: Primitive, *args: Any, **params: Any):
    """Apply `prim` to `args`: record it in the current program, or run it eagerly."""
    # the innermost program being traced records it (operands of enclosing ones
    # are closed over, or rejected, by `Trace.atom`)
    trace = _TRACES[-1] if _TRACES else None
    if trace is None:
        for a in args:
            if isinstance(a, Tracer):   # a value leaked from a finished program
                raise leaked_tracer_error(a)
    if _COMPILE_TIME_EVAL[0] and (trace is None or not any(isinstance(a, Tracer) for a in args)):
        # (outside a program too: the eager op's own one-op program must not fold its constants)
        return _eval_now(prim, args, params)
    if trace is None:
        if _HOOKS.eager_op is None:
            raise ShardcValueError("shardc's pipeline is not loaded: import shardc")
        return _HOOKS.eager_op(prim, args, params)
    return _bind_in_trace(trace, prim, args, params)


def _eval_now(prim: Primitive, args: Sequence[Any], params: dict):
    """Run one operation eagerly while a program is traced (`ensure_compile_time_eval`): as
    outside any program, with the traces set aside."""
    saved, depth = list(_TRACES), _COMPILE_TIME_EVAL[0]
    _TRACES.clear()
    _COMPILE_TIME_EVAL[0] = 0
    try:
        return _HOOKS.eager_op(prim, args, params)
    finally:
        _TRACES[:] = saved
        _COMPILE_TIME_EVAL[0] = depth


#: inside `ensure_compile_time_eval()`: operations on concrete values run eagerly in programs too
_COMPILE_TIME_EVAL = [0]


@contextlib.contextmanager
def ensure_compile_time_eval():
    """`jax.ensure_compile_time_eval`: while a program is traced, an operation whose operands
    are all concrete (no traced value) is computed now and its result is a concrete array,
    as JAX's eager constant folding; operations on traced values are traced as usual."""
    _COMPILE_TIME_EVAL[0] += 1
    try:
        yield
    finally:
        _COMPILE_TIME_EVAL[0] -= 1


def _bind_in_trace(trace: Trace, prim: Primitive, args: Sequence[Any], params: dict):
    # The context mesh may differ from the program's (inside auto_axes /
    # explicit_axes / use_abstract_mesh): ops are typed on the context mesh.
    mesh = get_abstract_mesh()
    if mesh.empty:
        mesh = trace.mesh
    if trace.manual_axes and not prim.changes_mesh:   # (mesh casts move values between meshes)
        _check_context_meshes(trace, prim, args, mesh)
    atoms = [a._var if type(a) is Tracer and a._trace is trace else trace.atom(a) for a in args]
    if trace.manual_axes and trace.check_vma and prim.auto_pcast:
        atoms = _auto_pcast(trace, atoms, mesh)
    in_types = [a.type for a in atoms]
    try:
        out_types = infer(prim, in_types, params, mesh)
    except ShardcError as e:
        raise e.with_context(op=current_api() or prim.name, loc=current_loc(),
                             inputs=[t.str_short() for t in in_types]) from None
    outs = [Var(t) for t in out_types]
    trace.eqns.append(Eqn(prim, atoms, outs, params, current_loc(), current_api(), inferred=True))
    if prim.multiple_results:
        return [Tracer(trace, v) for v in outs]
    return Tracer(trace, outs[0])


def leaked_tracer_error(a: "Tracer") -> ShardcError:
    """A traced value used after its program was traced (JAX's UnexpectedTracerError, a TypeError)."""
    return UnexpectedTracerError(
        f"Encountered an unexpected tracer: a value of type {a.aval.str_short()} traced by a finished "
        "program escaped it (a side effect saved it, e.g. appended it to a list or a global) and is used "
        "here. Programs must return their outputs explicitly; a traced value exists only while its "
        "program is being traced", op=current_api(), loc=current_loc())


def _closure_error(t: ArrayType) -> ShardcError:
    """A `shard_map` body used a value from outside it (JAX: not implemented on Explicit meshes)."""
    return ShardcNotImplementedError(
        "Closing over inputs to shard_map where the input is sharded on `Explicit` axes is not "
        "implemented. As a workaround, please pass those inputs as an argument to shard_map. Got "
        f"input with shape {t.str_short(mesh_axis_types=True)}", loc=current_loc(), op=current_api())


def _check_context_meshes(trace: Trace, prim: Primitive, args: Sequence[Any], mesh: AbstractMesh) -> None:
    """JAX's `bind` in a `shard_map` body: operands typed on another mesh than the context's."""
    if mesh.has_explicit:
        try:
            _check_foreign_meshes(trace, prim, args, mesh)
        except ShardcError as e:
            raise e.with_context(op=current_api() or prim.name, loc=current_loc()) from None
    elif mesh.manual_axes:
        for a in args:   # a body value on Explicit axes used under an `auto_axes` view of the body
            if type(a) is Tracer and a._trace is trace and a.aval.mesh.has_explicit and a.aval.mesh != mesh:
                raise _closure_error(a.aval)


def _check_foreign_meshes(trace: Trace, prim: Primitive, args: Sequence[Any], mesh: AbstractMesh) -> None:
    """Inside a partial-manual body whose other axes include Explicit ones, JAX's `bind` does not
    cast values from outside the body: the primitive's mesh check refuses them (a ValueError),
    before any closure error."""
    for a in args:
        if type(a) is Tracer and a._trace is not trace:
            t = a.aval
        elif type(a) is not Tracer and getattr(a, "_shardc_type", None) is not None:
            t = a._shardc_type
        else:
            continue
        if not t.mesh.empty and t.mesh != mesh:
            common_mesh([t], mesh, prim.name)


def _into_manual_context(t: ArrayType) -> ArrayType:
    """A concrete array used where the context mesh has Manual axes and the rest Auto, the
    array's mesh all Auto (a constant closed over by a `shard_map` body): JAX's `bind`
    reshards it to the context mesh, replicated; its value is the same constant."""
    cur = get_abstract_mesh()
    if t.mesh.empty or cur.empty or t.mesh == cur or not t.mesh.are_all_axes_auto:
        return t
    if not cur.manual_axes or cur.has_explicit:
        return t
    return t.update(mesh=cur, spec=(None,) * t.ndim, unreduced=frozenset(), reduced=frozenset())


def _auto_pcast(trace: Trace, atoms: list, mesh: AbstractMesh) -> list:
    """JAX's auto pcast: operands that vary over fewer Manual axes than the
    others get a `pvary` (or `reduced_vary_cast` when reduced on exactly those
    axes) so a primitive sees one varying set. Constants vary as needed. The casts are
    typed on the context `mesh` (inside an `auto_axes` region of a body it is not the body's)."""
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
        prim = _HOOKS.reduced_vary_cast if a.type.reduced == rest else _HOOKS.pvary
        axes = mesh.mesh_order(rest)
        try:
            (t,) = infer(prim, [a.type], {"axes": axes}, mesh)
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


# --- hooks registered by higher layers ---------------------------------------------
class _Hooks:
    """What the layers above plug in at import time (see the module docstring)."""

    eager_op: Callable | None = None       # (prim, args, params) -> result
    eager_fn: Callable | None = None       # (fn, args, name) -> result
    foreign_typeof: list[tuple[Callable, Callable]] = []   # (is_foreign, type_of)
    pvary: Any = None
    reduced_vary_cast: Any = None


_HOOKS = _Hooks()


def register_eager_handler(op: Callable, fn: Callable) -> None:
    """`op(prim, args, params)` applies one primitive outside any program;
    `fn(fun, args, name)` stages `fun` as a program and runs it on `args`."""
    _HOOKS.eager_op, _HOOKS.eager_fn = op, fn


def register_foreign_typeof(is_foreign: Callable[[Any], bool], type_of: Callable[[Any], ArrayType]) -> None:
    """Arrays of another library (`jax.Array`) that `typeof` understands."""
    _HOOKS.foreign_typeof.append((is_foreign, type_of))


def foreign_type(x: Any) -> ArrayType | None:
    """The type of another library's array (`jax.Array`), or None."""
    for is_foreign, type_of in _HOOKS.foreign_typeof:
        if is_foreign(x):
            return type_of(x)
    return None


def register_vary_prims(pvary, reduced_vary_cast) -> None:
    """The casts JAX's auto pcast inserts inside `shard_map` bodies."""
    _HOOKS.pvary, _HOOKS.reduced_vary_cast = pvary, reduced_vary_cast


def stage_eagerly(fun: Callable, args: Sequence[Any], name: str):
    """Run `fun(*args)` on concrete arrays by staging it as a (cached) program:
    how every higher-order op (control flow, shard_map, grad, regions) runs
    outside `sc.jit`."""
    if _HOOKS.eager_fn is None:
        raise ShardcValueError("shardc's pipeline is not loaded: import shardc")
    return _HOOKS.eager_fn(fun, args, name)
