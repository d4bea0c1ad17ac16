"""The pipeline driver: `sc.jit` and its stages, trace → typed IR → type check
→ StableHLO/sdy → verify → XLA → run.

The stages mirror JAX's AOT API (`jax/_src/stages.py`): `prog.trace(*args)`
gives a `Traced` (the typed IR), `.lower()` a `Lowered` (StableHLO text,
verified once with jaxlib's MLIR bindings), `.compile()` a `Compiled` (an XLA
executable with its partitioned HLO and collectives). Calling the program runs
all of them, cached per input-type signature.

This module sits on top of every stage and imports each normally. It also
registers the eager handlers of `shardc.core`: one primitive applied to
arrays outside any program is staged as a one-equation program (the same
rules and errors as inside), compiled once per (primitive, params, operand
types, constants); a higher-order op (control flow, shard_map, grad, regions)
applied outside a program is staged with `stage_eagerly`.
"""
from __future__ import annotations

import ast
import contextlib
import functools
import gc
import inspect
import time
import warnings
import weakref
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import jax
import jax.tree_util as tu
import numpy as np
from jax._src.layout import Format, Layout  # JAX's layout descriptions (`Compiled.input_formats`)
from jax._src.lib import _jax as _jaxlib  # jaxlib's MLIR → HLO conversion and HLO cost analysis
from jax._src.tree_util import broadcast_prefix  # JAX's prefix rule (pinned 0.10.2), as ops/manual.py
from jax.sharding import NamedSharding as JNamedSharding

from . import dtypes as dt
from . import ops, trace_context
from . import ref as _ref
from .core import (
    _TRACES,
    Const,
    Primitive,
    Trace,
    Tracer,
    at_source,
    bind,
    current_loc,
    current_trace,
    literal_type,
    register_eager_handler,
    register_foreign_typeof,
    tracing,
    typeof,
)
from .emit.stablehlo import emit_module
from .emit.verify import parse_module, verify_module
from .errors import (
    ShardcFloatingPointError,
    ShardcNotImplementedError,
    ShardcRuntimeError,
    ShardcTypeError,
    ShardcValueError,
    user_location,
)
from .ir import Eqn, Program, Var, pretty_print
from .mesh import _ABSTRACT as _ABSTRACT_MESH
from .mesh import _CONCRETE as _CONCRETE_MESH
from .mesh import EMPTY_MESH, AbstractMesh, AxisType, _abstract_mesh_override, _inferred_mesh, get_abstract_mesh
from .passes.dce import dce
from .passes.typecheck import typecheck
from .primitives.shape import dynamic_slice as dynamic_slice_p
from .primitives.shape import slice_p
from .primitives.sharding_ops import device_put_p
from .runtime.array import Array, array_of, mesh_of_sharding, place, respell
from .runtime.collectives import collectives_of
from .runtime.devices import backend_for, default_devices, platform
from .runtime.executable import RETRY, Executable
from .runtime.jaxbridge import memory_kind_of, spec_from_jax, to_jax_spec
from .runtime.mesh import Mesh, get_mesh
from .shapes import ShapeDtypeStruct
from .sharding import NamedSharding, PartitionSpec, entry_axes, mem_kind_to_space
from .types import ArrayType, as_type, parse_type, visible_entry

__all__ = ["jit", "Jit", "Traced", "Lowered", "Compiled", "Timings", "eval_shape", "signature_leaves", "device_get",
           "clear_caches", "disable_jit", "set_jit_disabled", "make_jaxpr"]

#: every program the user made with `sc.jit` (weakly: `clear_caches` empties their caches)
_USER_JITS: "weakref.WeakSet[Jit]" = weakref.WeakSet()
#: `sc.disable_jit()` is active: user programs run their Python op by op, eagerly
_JIT_DISABLED = [False]
#: `jax_debug_nans` / `jax_debug_infs`: every program's results are checked on the host (the
#: steady-state call paths, which skip `Jit._run`, are off while either is on)
_DEBUG_FLOATS = {"nan": False, "inf": False}
_DEBUG_ON = [False]

@functools.lru_cache(maxsize=64)
def _flat_tree(n: int):
    """The treedef of a tuple of n leaves (what `tree_flatten(args)` gives for n arrays)."""
    return tu.tree_structure((0,) * n)


def _is_leaf(x) -> bool:
    return isinstance(x, (Tracer, ArrayType, str)) or getattr(x, "_shardc_type", None) is not None


class _Float0:
    """A `float0` argument or result of a program (the gradient of an integer value): it has
    no data, so it crosses the program boundary in the pytree structure, which rebuilds it as
    JAX's host `np.zeros(shape, float0)` (JAX passes a `bool` placeholder and rebuilds it)."""
    __slots__ = ("shape",)

    def __init__(self, shape: tuple[int, ...]):
        self.shape = shape


tu.register_pytree_node(_Float0, lambda h: ((), h.shape), lambda shape, _: np.zeros(shape, dt.float0))


def _is_float0(x) -> bool:
    return isinstance(x, np.ndarray) and x.dtype == dt.float0


def _float0_holes(tree):
    """`tree` with its float0 host arrays as `_Float0` structure (no leaves)."""
    leaves, struct = tu.tree_flatten(tree, is_leaf=lambda x: _is_leaf(x) or _is_float0(x) or isinstance(x, _Float0))
    return tu.tree_unflatten(struct, [_Float0(tuple(x.shape)) if _is_float0(x) else x for x in leaves])


class _gc_paused:
    """Tracing allocates many small long-lived objects; the cyclic GC rescanning
    them makes big programs superlinear, so it is paused for the duration."""

    def __enter__(self):
        self._was = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc):
        if self._was:
            gc.enable()


@dataclass
class Timings:
    """Seconds spent per phase (reported by the CLI and benchmarks)."""

    trace: float = 0.0
    typecheck: float = 0.0
    emit: float = 0.0
    verify: float = 0.0
    compile: float = 0.0


@dataclass(frozen=True)
class ArgInfo:
    """One argument of a staged program, as `jax.stages.ArgInfo`: its type and whether the
    caller donated its buffer (`args_info` leaves, for code that reads shapes before a call)."""
    _aval: ArrayType
    donated: bool

    @property
    def shape(self) -> tuple[int, ...]:
        return self._aval.shape

    @property
    def dtype(self):
        return self._aval.dtype


class _StageInfo:
    """What JAX's three stages (`jax.stages.Traced`, `Lowered`, `Compiled`) all answer about the
    arguments and results, read from the traced program: code written against one stage's
    `args_info` / `in_tree` / `out_tree` / `out_info` works on every stage."""

    @property
    def _traced(self) -> "Traced":
        raise NotImplementedError

    @property
    def args_info(self):
        """`(args, kwargs)` of `ArgInfo`s: each argument's type and donation."""
        tr = self._traced
        return tr.args_tree([ArgInfo(t, i in tr.donated) for i, t in enumerate(tr.program.in_types)])

    @property
    def in_tree(self):
        """The pytree structure of `(args, kwargs)`."""
        return tu.tree_structure(self.args_info)

    @property
    def out_tree(self):
        """The pytree structure of the results."""
        return self._traced.program.out_tree

    @property
    def donate_argnums(self) -> tuple[int, ...]:
        """Flat indices of the donated arguments."""
        return tuple(sorted(self._traced.donated))

    @property
    def out_info(self):
        """The results as `ShapeDtypeStruct`s with their shardings on the program's mesh, in
        the output pytree (JAX's `out_info`)."""
        def info(t: ArrayType) -> ShapeDtypeStruct:
            sh = None if t.mesh.empty else NamedSharding(t.mesh, t.pspec)
            return ShapeDtypeStruct(t.shape, t.dtype, sharding=sh, weak_type=t.weak_type)
        prog = self._traced.program
        return tu.tree_unflatten(prog.out_tree, [info(t) for t in prog.out_types])


class Traced(_StageInfo):
    """A traced program: its typed IR (`str()` prints it) and output types."""

    def __init__(self, jit: "Jit", program: Program, timings: Timings, donated: tuple[int, ...] = ()):
        self.jit = jit
        self.program = program
        self.timings = timings
        #: flat argument indices whose buffers the caller donated
        self.donated = donated
        #: donated argument → the result that reuses its buffer
        self.aliases = _aliases(program, donated)
        #: the positional arguments' pytree structure (None: a flat list)
        self._args_treedef = None

    def args_tree(self, leaves: list):
        """`leaves` (one per flat argument) arranged as the arguments were: `(args, kwargs)` as JAX."""
        tree = self._args_treedef
        args = tu.tree_unflatten(tree, leaves) if tree is not None else tuple(leaves)
        return (tuple(args), {})

    @property
    def in_types(self) -> list[ArrayType]:
        return self.program.in_types

    @property
    def out_types(self):
        return tu.tree_unflatten(self.program.out_tree, self.program.out_types)

    def __str__(self) -> str:
        return pretty_print(self.program)

    @property
    def _traced(self) -> "Traced":
        return self

    @property
    def fun_name(self) -> str:
        return self.jit.name

    @property
    def jaxpr(self) -> "ClosedJaxpr":
        """The typed IR, as `make_jaxpr` gives it (JAX's `Traced.jaxpr`)."""
        return ClosedJaxpr(self.program)

    @property
    def in_avals(self):
        """`(args, kwargs)` of the arguments' types."""
        return self.args_tree(list(self.program.in_types))

    @property
    def out_avals(self):
        """The results' types, in the output pytree."""
        return self.out_types

    def lower(self, *, locations: bool = False, lowering_platforms: Sequence[str] | None = None) -> "Lowered":
        """The lowered module. `lowering_platforms` (JAX's) names the platforms it is for: the
        module is the same on each, but for host callbacks, which are emitted for this one."""
        if lowering_platforms is not None:
            plats = tuple(lowering_platforms)
            if not plats or any(p not in ("cpu", "cuda", "rocm", "tpu", "gpu") for p in plats):
                raise ShardcValueError(f"Unknown lowering platforms: {plats!r}")
            if _has_host_callbacks(self.program) and any(p != _platform_name() for p in plats):
                raise ShardcNotImplementedError(
                    f"a program with host callbacks is lowered for {_platform_name()} only, not {plats!r}")
        return self.jit._lower_traced(self, locations=locations)


class Lowered(_StageInfo):
    """StableHLO + sdy text for a traced program.

    The module is emitted once, with source locations (what XLA compiles, so
    collectives map back to the user's lines), and verified once. The text
    without locations, for reading, is the same emission without them, made
    on first request.
    """

    def __init__(self, traced: Traced, located_text: str, in_layouts, host_callbacks: Sequence = (),
                 program: Program | None = None):
        self.traced = traced
        #: what was emitted: the traced program without its dead code (`passes.dce`)
        self.program = traced.program if program is None else program
        self._located = located_text
        self._text: str | None = None
        self.in_layouts = in_layouts
        #: the Python functions the module's host callbacks call, by index (`sc.debug.print`)
        self.host_callbacks = list(host_callbacks)

    @property
    def in_avals(self):
        """`(args, kwargs)` of the arguments' types (as `jax.stages.Lowered.in_avals`)."""
        return self.traced.args_tree(list(self.traced.program.in_types))

    def as_text(self, dialect: str | None = None, *, debug_info: bool = False, locations: bool = False) -> str:
        """The module as text: "stablehlo" (default; `debug_info=True` keeps the source
        locations) or "hlo" (XLA's HLO of the unpartitioned module), as JAX's `Lowered.as_text`."""
        if dialect not in (None, "stablehlo", "hlo"):
            raise ShardcValueError(f"unknown dialect: {dialect}")
        if dialect == "hlo":
            return _xla_computation(self.as_text(locations=debug_info)).as_hlo_text()
        if locations or debug_info:
            return self._located
        if self._text is None:
            self._text = emit_module(self.program, locations=False, in_layouts=self.in_layouts,
                                     aliases=self.traced.aliases, platform=_platform_name())
        return self._text

    @property
    def _traced(self) -> Traced:
        return self.traced

    def compiler_ir(self, dialect: str | None = None):
        """The module as an object: "stablehlo" (default) an MLIR `ir.Module` (jaxlib's
        bindings), "hlo" an `XlaComputation`, as JAX's `Lowered.compiler_ir`."""
        if dialect not in (None, "stablehlo", "hlo"):
            raise ShardcValueError(f"unknown dialect: {dialect}")
        if dialect == "hlo":
            return _xla_computation(self.as_text(locations=True))
        return parse_module(self.as_text(locations=True))

    def cost_analysis(self) -> dict[str, float]:
        """XLA's cost estimate of the unoptimized, unpartitioned module (flops, bytes accessed,
        ...), as JAX's `Lowered.cost_analysis`; `compile().cost_analysis()` is after optimization."""
        comp = _xla_computation(self.as_text(locations=True))
        return _jaxlib.hlo_module_cost_analysis(backend_for(default_devices()[:1]), comp.get_hlo_module())

    def compile(self) -> "Compiled":
        return self.traced.jit._compile_lowered(self)


class Compiled(_StageInfo):
    """An XLA executable for one input-type signature."""

    def __init__(self, lowered: Lowered, executable, mesh: Mesh | None):
        self.lowered = lowered
        self.executable = executable
        self.mesh = mesh
        self.program = lowered.traced.program
        self.in_types = self.program.in_types
        self.out_types = self.program.out_types
        # a result typed on a `use_abstract_mesh` view lives on that view's concrete mesh
        self.out_meshes = [executable._mesh_for(t) if mesh is not None else None
                           for t in self.out_types]
        self._fast = None if self.program.mesh.has_auto else executable.fast_runner(*self._wrapper())
        #: the AOT call's steady state: argument types (by identity, kept alive) this executable ran
        self._calls: dict[tuple, tuple] = {}

    def _wrapper(self) -> tuple[Callable[[list], Any], tuple | None]:
        """How the fast path makes its `sc.Array`s of results: `Array(o, t, m)` with each result's
        type and mesh (a mesh-less program's: the mesh of its result sharding, None) bound once;
        plus `(type, mesh)` of a program with one array result (the runner builds it directly)."""
        tree = self.program.out_tree
        metas = [(t, m if m is not None else mesh_of_sharding(s)) for t, m, s in
                 zip(self.out_types, self.out_meshes, self.executable.out_shardings)]
        unflatten = functools.partial(tu.tree_unflatten, tree)
        wrap = lambda outs: unflatten([array_of(o, t, m) for o, (t, m) in zip(outs, metas)])  # noqa: E731
        single = tree is not None and tu.treedef_is_leaf(tree) and tree.num_leaves == 1
        return wrap, (metas[0] if single else None)

    def on_device(self, device) -> Executable:
        """The executable of this mesh-less program for another single device: where its
        committed arguments live (an array's `addressable_data(i)`), JAX runs it there."""
        cache = self.__dict__.setdefault("_on_device", {})
        exe = cache.get(device)
        if exe is None:
            exe = cache[device] = Executable(self.lowered.as_text(locations=True), None, self.in_types,
                                             self.out_types, [device], self.lowered.host_callbacks)
            exe.committed = True   # results computed from committed arguments stay committed (JAX)
        return exe

    @property
    def in_avals(self):
        """`(args, kwargs)` of the arguments' types (as `jax.stages.Compiled.in_avals`)."""
        return self.lowered.in_avals

    @property
    def input_shardings(self):
        """`(args, kwargs)` of each argument's `NamedSharding` (as `jax.stages.Compiled`)."""
        return self.lowered.traced.args_tree([_sharding_of(t, self.mesh) for t in self.in_types])

    @property
    def output_shardings(self):
        """Each output's `NamedSharding`, in the outputs' pytree structure."""
        return tu.tree_unflatten(self.program.out_tree, [_sharding_of(t, self.mesh) for t in self.out_types])

    def as_text(self) -> str:
        """XLA's partitioned (post-SPMD) HLO."""
        return self.executable.hlo_text()

    def collectives(self):
        """One record per collective XLA inserted, mapped to the user's source line."""
        return collectives_of(self.as_text(), self.program.mesh, self.executable.devices)

    def memory_stats(self):
        return self.executable.memory_stats()

    @property
    def _traced(self) -> Traced:
        return self.lowered.traced

    def cost_analysis(self) -> dict[str, float] | None:
        """XLA's cost estimate of the optimized, partitioned program (per device: flops,
        bytes accessed, ...), as JAX's `Compiled.cost_analysis`; None where XLA has none."""
        return _unimplemented_as_none(self.executable.exe.cost_analysis)

    def memory_analysis(self):
        """XLA's `CompiledMemoryStats` (argument, output, temporary and generated-code bytes
        per device), as JAX's `Compiled.memory_analysis`; None where XLA has none."""
        return _unimplemented_as_none(self.executable.exe.get_compiled_memory_stats)

    def runtime_executable(self):
        """jaxlib's loaded executable (as JAX's `Compiled.runtime_executable`, for debugging)."""
        return self.executable.exe

    @property
    def input_formats(self):
        """`(args, kwargs)` of each argument's `Format` (XLA's chosen layout and the sharding)."""
        layouts = [Layout.from_pjrt_layout(lay) for lay in self.executable.exe.get_parameter_layouts()]
        shardings = self.executable.in_shardings   # (JAX's shardings: a Format holds a jax.Sharding)
        return self.lowered.traced.args_tree([Format(lay, s) for lay, s in zip(layouts, shardings)])

    @property
    def output_formats(self):
        """Each result's `Format` (XLA's chosen layout and the sharding), in the output pytree."""
        layouts = [Layout.from_pjrt_layout(lay) for lay in self.executable.exe.get_output_layouts()]
        shardings = self.executable.out_shardings
        return tu.tree_unflatten(self.program.out_tree, [Format(lay, s) for lay, s in zip(layouts, shardings)])

    @property
    def cache_hit(self) -> bool:
        """Whether XLA's executable came from the persistent compilation cache
        (`sc.compilation_cache`) instead of being compiled."""
        return self.executable.cache_hit

    @property
    def cache_outcome(self):
        """The cache's record of this compile: status 'hit' / 'miss' / 'off', seconds, key, entry path."""
        return self.executable.cache

    def __call__(self, *args):
        key = _type_ids(args)
        if key is not None and key in self._calls and not _DEBUG_ON[0]:
            out = self._fast(args)
            if out is not RETRY:
                return out
        flat, _ = tu.tree_flatten(args, is_leaf=_is_leaf)
        out = self.lowered.traced.jit._run(self, flat)
        if key is not None and self._fast is not None and len(args) == len(self.in_types):
            # these argument types passed `_run`'s checks (shape, dtype); the runner checks the
            # layout and deletion of each call's arrays itself
            if len(self._calls) >= 64:
                self._calls.clear()
            self._calls[key] = tuple(a._shardc_type for a in args)
        return out


class Jit:
    """A program: a Python function traced per input types, compiled, cached."""

    def __init__(self, fun: Callable, in_shardings=None, out_shardings=None, name: str | None = None, *,
                 static_argnums=(), static_argnames=(), donate_argnums=(), donate_argnames=()):
        self.fun = fun
        self.name = name or _fun_name(fun)
        #: the primitive of an eager operation's one-op program (`apply_eagerly`); None for a program
        self.eager_prim: str | None = None
        self.in_shardings = in_shardings
        self.out_shardings = out_shardings
        self.static_argnums, self.static_argnames = _static_args(fun, static_argnums, static_argnames)
        #: donated arguments' buffers are reused for results of the same type (as JAX's
        #: `tf.aliasing_output`); the caller's arrays are deleted by the call
        self.donate_argnums, self.donate_argnames = _static_args(fun, donate_argnums, donate_argnames)
        self._by_static: dict[Any, Jit] = {}
        self._sig = _annotations(fun)
        self._sig_flat, self._sig_tree = _flat_sig(self._sig)
        self._traced: dict[Any, Traced] = {}
        self._compiled: dict[Any, Compiled] = {}
        #: the steady-state calls (`_call_known`): identities of argument types and meshes → runner
        self._calls: dict[tuple, tuple] = {}
        self._nested: dict[Any, tuple[Program, list]] = {}
        #: the trace context the caches above belong to, and the caches of the other contexts
        #: this program was called under (`_use_context`)
        self._ctx = trace_context.key()
        self._by_ctx: dict[tuple, tuple] = {}
        # name, doc and module of `fun`; not its __dict__ (a wrapped Jit's would replace ours)
        functools.update_wrapper(self, fun, updated=())

    def __repr__(self) -> str:
        return f"<sc.jit program {self.name}>"

    def _use_context(self, ctx: tuple) -> None:
        """Swap in the caches of trace context `ctx` (promotion flags, user contexts), keeping
        those of the context they belonged to: JAX keys its caches on these values, so a
        program is traced again under a new value and found again under an old one."""
        caches = (self._by_static, self._traced, self._compiled, self._calls, self._nested)
        try:
            self._by_ctx[self._ctx] = caches
        except TypeError:   # a context with an unhashable value: its programs are not kept
            pass
        caches = self._by_ctx.get(ctx)   # JAX's TypeError for an unhashable user context value
        if caches is None:
            caches = ({}, {}, {}, {}, {})
        self._by_static, self._traced, self._compiled, self._calls, self._nested = caches
        self._ctx = ctx

    # --- stages ------------------------------------------------------------------------------
    def trace(self, *args, **kwargs) -> Traced:
        """Trace for `args` (arrays, `sc.ArrayType`s or type strings; none: the signature's)."""
        if _ref.active() and not getattr(self, "_ref_pure", False) and not _ref.take_bypass(self):
            return _ref.trace_jit(self, args, kwargs)   # (refuses mutable array references: not built)
        ctx = trace_context.key()
        if ctx is not self._ctx:
            self._use_context(ctx)
        if kwargs or self.static_argnums:
            inner, dyn = self._specialize(args, kwargs)
            return inner.trace(*dyn)
        types, mesh = self._arg_types(_float0_holes(args))
        return self._trace_types(types, mesh)

    def eval_shape(self, *args, **kwargs):
        """The outputs as `ShapeDtypeStruct`s, traced but not compiled (JAX's `jit(f).eval_shape`)."""
        return eval_shape(self, *args, **kwargs)

    def clear_cache(self) -> None:
        """Forget this program's traces and executables (JAX's `jit(f).clear_cache()`)."""
        for cache in (self._by_static, self._traced, self._compiled, self._nested, self._calls, self._by_ctx):
            cache.clear()

    def _cache_size(self) -> int:
        """How many executables this program holds (JAX's `jit(f)._cache_size()`)."""
        return len(self._compiled) + sum(inner._cache_size() for inner in self._by_static.values()
                                         if isinstance(inner, Jit))

    def lower(self, *args, locations: bool = False, **kwargs) -> Lowered:
        if kwargs or self.static_argnums:
            inner, dyn = self._specialize(args, kwargs)
            return inner.lower(*dyn, locations=locations)
        traced = self.trace(*args)
        flat, _ = tu.tree_flatten(args, is_leaf=_is_leaf)
        layouts = _layouts(flat, traced.in_types) if flat else None
        return self._lower_traced(traced, locations=locations, in_layouts=layouts)

    def __call__(self, *args, **kwargs):
        if _ref.active() and not getattr(self, "_ref_pure", False) and not _ref.take_bypass(self):
            return _ref.call_jit(self, args, kwargs, Jit)   # mutable array references threaded through
        ctx = trace_context.key()
        if ctx is not self._ctx:
            self._use_context(ctx)
        if not (kwargs or _TRACES or _JIT_DISABLED[0] or self.static_argnums or _DEBUG_ON[0]):
            # steady state: the very argument types, meshes and context mesh of an earlier call
            out = self._call_known(args)
            if out is not RETRY:
                return out
        if _JIT_DISABLED[0] and self in _USER_JITS and current_trace() is None:
            return self.fun(*args, **kwargs)
        if kwargs or self.static_argnums:
            inner, dyn = self._specialize(args, kwargs)
            return inner(*dyn)
        if current_trace() is not None:   # called while another program is traced
            return self._call_nested(args)
        # steady state: positional sc.Arrays; same key as below without flattening a pytree
        if all(type(a) is Array for a in args):
            m = get_mesh()
            # (an argument on Auto axes is keyed with its placement below: no hit here)
            key = (_flat_tree(len(args)), m or get_abstract_mesh(),
                   *[(a._shardc_type, a._mesh, m, a._mesh is None and a._jax.committed) for a in args])
            compiled = self._compiled.get(key)
            if compiled is not None:
                if compiled._fast is not None and len(args) == len(compiled.in_types) and not _DEBUG_ON[0]:
                    self._remember(args, compiled)
                    out = compiled._fast(args)
                    if out is not RETRY:
                        return out
                return self._run(compiled, args, any_device=True)
        flat, tree = tu.tree_flatten(args, is_leaf=_is_leaf)
        if any(_is_float0(a) for a in flat):   # float0 arguments travel in the structure
            return self(*_float0_holes(args))
        # the argument structure (pytree aux data included) is part of the signature
        # and so is the context mesh: a program without array arguments (an eager `zeros`) is
        # typed on it, and must not be reused under another mesh
        key = (tree, get_mesh() or get_abstract_mesh()) + tuple(_fast_type(a) for a in flat)
        # `None in key` would compare the PyTreeDef with None, which raises TypeError
        cacheable = not any(k is None for k in key)
        try:
            compiled = self._compiled.get(key) if cacheable else None
        except TypeError:  # unhashable pytree aux data: no caching
            cacheable, compiled = False, None
        if compiled is None:
            types, mesh = self._arg_types(args)
            traced = self._trace_types(types, mesh)
            compiled = self._lower_traced(traced, in_layouts=_layouts(flat, types)).compile()
            if cacheable:
                self._compiled[key] = compiled
        if cacheable and compiled._fast is not None and len(flat) == len(compiled.in_types):
            self._remember(args, compiled)
        return self._run(compiled, flat, any_device=True)

    def _call_known(self, args: tuple):
        """A call whose signature an earlier call derived: its arguments (positional, or the
        leaves of pytrees) are `sc.Array`s carrying the very type and mesh objects, under the
        very context meshes, that `_remember` recorded, so the signature key, its checks and the
        flattening with `_is_leaf` are not redone. The compiled runner still checks each
        array's layout and deletion. RETRY: the full path decides (and says what is wrong)."""
        if len(args) == 1:   # the commonest call, keyed without a loop (the same key as `_call_key`'s)
            a = args[0]
            if type(a) is not Array:
                return self._call_known_tree(args)
            key = (id(_context_mesh()), id(_context_abstract_mesh()), id(a._shardc_type), id(a._mesh),
                   a._mesh is None and a._jax.committed)
        else:
            key = _call_key(args)
            if key is None:
                return self._call_known_tree(args)
        known = self._calls.get(key)
        if known is None or known[1] is not None:
            return RETRY
        return known[0](args)

    def _call_known_tree(self, args: tuple):
        """`_call_known` for pytree arguments: flattened once (C++, no `is_leaf` callback: an
        `sc.Array` is a leaf either way), then keyed by the leaves and the structure."""
        leaves, tree = tu.tree_flatten(args)
        key = _call_key(leaves)
        known = self._calls.get(key) if key is not None else None
        if known is None or known[1] is None or known[1] != tree:
            return RETRY
        return known[0](leaves)

    def _remember(self, args: tuple, compiled: Compiled) -> None:
        """Record that `args` (whose value signature just found `compiled`) may take `_call_known`:
        keyed by the identity of each array's type and mesh and of the context meshes, which the
        entry keeps alive so that no id is reused while it exists."""
        key, leaves, tree = _call_key(args), args, None
        if key is None:
            leaves, tree = tu.tree_flatten(args)
            key = _call_key(leaves) if len(leaves) == len(compiled.in_types) else None
            if key is None:
                return
        for a in leaves:
            if a._shardc_type.mesh.has_auto:
                return   # (on Auto axes, the placement XLA chose is part of the signature too)
        if len(self._calls) >= 64:
            self._calls.clear()
        keep = (_CONCRETE_MESH.get(), _ABSTRACT_MESH.get(), [(a._shardc_type, a._mesh) for a in leaves])
        self._calls[key] = (compiled._fast, tree, keep)

    # --- jax_debug_nans / jax_debug_infs -------------------------------------------------------
    def _check_floats(self, compiled: Compiled, arrays: list, flat_args: Sequence[Any]) -> None:
        """JAX's `check_special`: a NaN (or infinity) in a result. One eager operation says which;
        a program is run again op by op (JAX's de-optimized call), where the first operation to
        make one says so, at the user's line."""
        ty = _special_value(arrays)
        if ty is None:
            return
        if self.eager_prim is not None:
            raise ShardcFloatingPointError(f"invalid value ({ty}) encountered in {self.eager_prim}",
                                           loc=current_loc() or user_location())
        print("Invalid nan value encountered in the output of a jax.jit function. Calling the de-optimized version.")
        _run_op_by_op(compiled.program, flat_args)
        raise ShardcFloatingPointError(
            f"invalid value ({ty}) encountered in {self.name}. Because jax_config.debug_nans.value and/or "
            "config.jax_debug_infs is set, the de-optimized function (i.e., the function as if the `jit` decorator "
            "were removed) was called in an attempt to get a more precise error message. However, the "
            "de-optimized function did not produce invalid values during its execution. This behavior can result "
            "from `jit` optimizations causing the invalid value to be produced. It may also arise from having "
            "nan/inf literals as inputs or outputs, like `jax.jit(lambda ...: jax.numpy.nan)(...)`.",
            loc=user_location())

    # --- tracing ----------------------------------------------------------------------------
    def _arg_types(self, args: Sequence[Any]) -> tuple[list[ArrayType], AbstractMesh]:
        ctx = get_abstract_mesh()
        # data-less arguments (`sc.ShapeDtypeStruct`) are the types they describe
        args = tu.tree_map(lambda a: a.to_type(ctx) if isinstance(a, ShapeDtypeStruct) else a, args,
                           is_leaf=lambda a: isinstance(a, (ShapeDtypeStruct, _Float0)) or _is_leaf(a))
        if not args and self._sig:
            self._in_tree = self._sig_tree
            if any(s is None for s in self._sig_flat):
                raise ShardcValueError(
                    f"program `{self.name}` has parameters without type strings; pass arguments "
                    "or annotate every parameter, e.g. `def f(x: \"f32[8@X,4]\")`")
            return [parse_type(s, ctx) for s in self._sig_flat], ctx
        flat, self._in_tree = tu.tree_flatten(args, is_leaf=_is_leaf)
        self._arg_mesh = next((a._mesh for a in flat if getattr(a, "_mesh", None) is not None), None)
        types = []
        for i, a in enumerate(flat):
            if isinstance(a, (ArrayType, str)):
                t = as_type(a, ctx)
            elif getattr(a, "_shardc_type", None) is not None or _is_jax(a):
                t = typeof(a)
            else:
                ann = self._sig_flat[i] if i < len(self._sig_flat) else None
                t = parse_type(ann, ctx) if ann else literal_type(a, ctx).update(
                    weak_type=literal_type(a, ctx).weak_type)
                if isinstance(a, np.ndarray) or not np.isscalar(a):
                    t = t.update(weak_type=False)
            types.append(t)
        self._check_signature(types, flat)
        meshes = {t.mesh for t in types if not t.mesh.empty}
        if ctx.empty and len(meshes) > 1:
            raise ShardcValueError(f"arguments of `{self.name}` live on different meshes: {meshes}")
        mesh = ctx if not ctx.empty else (meshes.pop() if meshes else EMPTY_MESH)
        if mesh.empty:   # no context and no placed argument: the mesh `in/out_shardings` name (as JAX)
            named = next((s.mesh for s in tu.tree_leaves((self.in_shardings, self.out_shardings),
                                                         is_leaf=lambda x: isinstance(x, NamedSharding))
                          if isinstance(s, NamedSharding) and isinstance(s.mesh, Mesh)), None)
            if named is not None:
                mesh, self._arg_mesh = named.abstract_mesh, named
        types = [t.update(mesh=mesh) if t.mesh.empty and not mesh.empty else t for t in types]
        if self.in_shardings is not None and mesh.has_explicit:
            # host data is typed as `in_shardings` declares it (JAX's in_avals), then placed so
            specs = self.declared_placements(len(flat))
            for i, (a, t) in enumerate(zip(flat, types)):
                sp = specs[i] if i < len(specs) else None
                if sp is None or (_is_placed(a) and not _uncommitted(a)) or len(sp) > t.ndim or sp.unreduced \
                        or sp.reduced:
                    continue
                ents = tuple(visible_entry(e, mesh) for e in sp)
                types[i] = t.update(spec=ents + (None,) * (t.ndim - len(ents)),
                                    memory_space=mem_kind_to_space(self._in_memory_kinds(len(flat))[i]))
        return types, mesh

    def _in_shardings_per_leaf(self, n: int) -> list:
        """`in_shardings` as one sharding (or None) per flat argument leaf: as `jax.jit`'s, a prefix
        of the positional arguments (one entry covers every leaf of its argument's pytree)."""
        tree = getattr(self, "_in_tree", None)
        return _per_leaf(self.in_shardings, tree if tree is not None and tree.num_leaves == n else None, n)

    def _leaf_name(self, i: int, n: int) -> str:
        """Flat argument leaf `i` as the user wrote it: `p['wo']` for leaf 'wo' of parameter `p`
        (its index alone when the call's structure or the parameter names are not known)."""
        tree = getattr(self, "_in_tree", None)
        if tree is None or tree.num_leaves != n:
            return str(i)
        path = tu.tree_flatten_with_path(tu.tree_unflatten(tree, list(range(n))))[0][i][0]
        try:
            params = [q.name for q in inspect.signature(self.fun).parameters.values()
                      if q.kind in (q.POSITIONAL_ONLY, q.POSITIONAL_OR_KEYWORD)]
        except (TypeError, ValueError):   # a builtin or a callable object without a signature
            params = []
        head = path[0] if path else None
        if isinstance(head, tu.SequenceKey) and head.idx < len(params):
            return f"`{params[head.idx]}{tu.keystr(path[1:])}`"
        return f"{i} (`args{tu.keystr(path)}`)"

    def _in_memory_kinds(self, n: int) -> list[str | None]:
        """The memory kind `in_shardings` names for each flat argument (None: none named)."""
        return [getattr(s, "memory_kind", None) for s in self._in_shardings_per_leaf(n)]

    def declared_placements(self, n: int) -> list[PartitionSpec | None]:
        """`in_shardings` as one spec (or None) per flat argument: where arguments are to be
        placed when their types cannot say (Auto axes); None without `in_shardings`."""
        return [(s.spec if isinstance(s, NamedSharding) else s) for s in self._in_shardings_per_leaf(n)]

    def _check_signature(self, types: list[ArrayType], flat: Sequence[Any]) -> None:
        """Arrays passed to a program with annotated (or `in_shardings`) types must match them."""
        declared: list[Any] = list(self._sig_flat)
        if self.in_shardings is not None:
            declared = self._in_shardings_per_leaf(len(types))
        for i, (t, d) in enumerate(zip(types, declared)):
            if d is None or isinstance(flat[i], (ArrayType, str)):
                continue
            if isinstance(d, str):
                want = parse_type(d, t.mesh if not t.mesh.empty else get_abstract_mesh())
                ok = (want.shape, want.dtype, want.spec, want.unreduced, want.reduced, want.memory_space) == \
                     (t.shape, t.dtype, t.spec, t.unreduced, t.reduced, t.memory_space)
                what = f"type {want}"
            else:
                spec = d.spec if isinstance(d, NamedSharding) else d
                want_spec = tuple(spec) + (None,) * (t.ndim - len(spec))
                have = tuple(t.spec)
                placed = getattr(flat[i], "sharding", None)
                if t.mesh.has_auto and not t.mesh.empty and isinstance(placed, NamedSharding):
                    # Auto axes are not in the type: the argument's placement is compared (JAX's check)
                    auto = set(t.mesh.auto_axes)
                    have = tuple(e if e is None or not set((e,) if isinstance(e, str) else e) <= auto else None
                                 for e in have)
                    have = tuple(h if h is not None else p for h, p in
                                 zip(have, tuple(placed.spec) + (None,) * (t.ndim - len(placed.spec))))
                ok = (want_spec == have and spec.unreduced == t.unreduced
                      and spec.reduced == t.reduced)
                what = f"sharding {spec!r}"
                kind, placed_kind = getattr(d, "memory_kind", None), getattr(placed, "memory_kind", None)
                if kind is not None and placed_kind is not None and kind != placed_kind:
                    raise ShardcValueError(   # JAX's check of jit's memory kinds against the arguments'
                        "Memory kinds passed to sc.jit does not match memory kind on the respective arg. "
                        f"Got jit memory kind: {kind}, arg memory kind: {placed_kind} for arg type: "
                        f"{t.str_short(short_dtypes=False)}", loc=user_location())
            if not ok and (getattr(flat[i], "_shardc_type", None) is not None or _is_jax(flat[i])) \
                    and not _uncommitted(flat[i]):   # JAX moves an uncommitted array where jit takes it
                raise ShardcValueError(
                    f"argument {self._leaf_name(i, len(flat))} of `{self.name}` has type {t} but the program "
                    f"declares {what}; "
                    "pass matching data or `sc.reshard` it first", loc=user_location())

    def _trace_types(self, types: list[ArrayType], mesh: AbstractMesh) -> Traced:
        in_tree = getattr(self, "_in_tree", None)
        key = (tuple(types), mesh, in_tree)
        try:
            hit = self._traced.get(key)
        except TypeError:  # unhashable pytree aux data: trace afresh
            key, hit = None, None
        if hit is not None:
            return hit
        timings = Timings()
        t0 = time.perf_counter()
        trace = Trace(mesh, self.name)
        tracers = [trace.new_arg(t) for t in types]
        in_tree = getattr(self, "_in_tree", None)
        args = tu.tree_unflatten(in_tree, tracers) if in_tree is not None and in_tree.num_leaves == len(tracers) else tracers
        # with no mesh context, the mesh taken from the arguments is not one for a bare P (JAX's)
        inferred = mesh if get_abstract_mesh().empty and not mesh.empty else None
        with tracing(trace), _abstract_mesh_override(mesh), _inferred_mesh(inferred), _gc_paused():
            out = _float0_holes(self.fun(*args))
            flat_out, out_tree = tu.tree_flatten(out, is_leaf=_is_leaf)
            outs = [self._output_atom(trace, o) for o in flat_out]
            outs = self._apply_out_shardings(trace, outs, out_tree)
        if mesh.empty:   # no mesh context: the mesh its shard_maps were given (`mesh=`)
            mesh = ops.manual.shard_map_mesh(trace.eqns, mesh)
        prog = Program(self.name, trace.in_vars, trace.eqns, outs, mesh, out_tree=out_tree)
        timings.trace = time.perf_counter() - t0
        traced = Traced(self, prog, timings, self._donated_flat(in_tree, len(types)))
        traced._args_treedef = in_tree if in_tree is not None and in_tree.num_leaves == len(types) else None
        if key is not None:
            self._traced[key] = traced
        return traced

    def _donated_flat(self, in_tree, n: int) -> tuple[int, ...]:
        """The flat argument indices of the donated positional arguments."""
        if not self.donate_argnums:
            return ()
        if in_tree is None or in_tree.num_leaves != n:
            return tuple(i for i in self.donate_argnums if 0 <= i < n)
        out, k = [], 0
        for pos, child in enumerate(in_tree.children()):
            if pos in self.donate_argnums:
                out.extend(range(k, k + child.num_leaves))
            k += child.num_leaves
        return tuple(out)

    def _output_atom(self, trace: Trace, o):
        if isinstance(o, Tracer):
            if o._trace is not trace:
                raise ShardcValueError(f"`{self.name}` returned a value traced by another program")
            return o._var
        if isinstance(o, _ref.Ref):
            _ref.no_refs_returned(o, self.fun, "jit")
        return ops.asarray(o)._var

    def _specialize(self, args: tuple, kwargs: dict):
        """The program for these static argument values (one per distinct set,
        as JAX caches per static values) and the dynamic arguments it takes:
        the non-static positional ones, then the non-static keywords."""
        n = len(args)
        static_pos = tuple(i if i >= 0 else i + n for i in self.static_argnums)
        try:
            static = tuple((i, args[i]) for i in static_pos if i < n)
            static += tuple(sorted((k, v) for k, v in kwargs.items() if k in self.static_argnames))
            key = (n, static, tuple(sorted(k for k in kwargs if k not in self.static_argnames)))
            inner = self._by_static.get(key)
        except TypeError:
            raise ShardcValueError(
                "Non-hashable static arguments are not supported: static arguments of "
                f"`{self.name}` must be hashable (use a tuple instead of a list)", loc=user_location()) from None
        dyn_pos = [i for i in range(n) if i not in static_pos]
        dyn_names = key[2]
        if inner is None:
            fun, statics = self.fun, dict(static)

            def specialized(*xs):
                full = [statics[i] if i in statics else None for i in range(n)]
                for i, x in zip(dyn_pos, xs):
                    full[i] = x
                kw = {k: statics[k] for k in self.static_argnames if k in statics}
                kw.update(zip(dyn_names, xs[len(dyn_pos):]))
                return fun(*full, **kw)

            donate = tuple(j for j, i in enumerate(dyn_pos) if i in self.donate_argnums) + tuple(
                len(dyn_pos) + k for k, name in enumerate(dyn_names) if name in self.donate_argnames)
            inner = Jit(specialized, self.in_shardings, self.out_shardings, self.name, donate_argnums=donate)
            self._by_static[key] = inner
        return inner, [args[i] for i in dyn_pos] + [kwargs[k] for k in dyn_names]

    def _call_nested(self, args: tuple):
        """Nested jit: called while another program is traced, the function is
        traced into a sub-program (cached per argument types, as JAX caches
        its trace, so its Python runs once per signature) whose equations are
        then replayed into the enclosing program: inlined, as JAX inlines its
        `jit` equation when lowering, so values and collectives are the same.
        Values of enclosing programs it uses become extra inputs (closure
        conversion); a sub-program with such inputs is not cached. As in JAX
        0.10.2, the inner `in_shardings` / `out_shardings` leave types unchanged."""
        ctx = trace_context.key()
        if ctx is not self._ctx:
            self._use_context(ctx)
        outer = current_trace()
        flat, in_tree = tu.tree_flatten(_float0_holes(args), is_leaf=_is_leaf)
        atoms = [outer.atom(a) for a in flat]
        mesh = get_abstract_mesh()
        key = (in_tree, tuple(a.type for a in atoms), mesh, outer.manual_axes, outer.check_vma)
        try:
            hit = self._nested.get(key)
        except TypeError:  # unhashable pytree aux data: trace afresh
            key, hit = None, None
        if hit is None:
            hit = self._trace_nested(in_tree, [a.type for a in atoms], mesh, outer)
            if key is not None and not hit[1]:
                self._nested[key] = hit
        prog, closed = hit
        outs = _replay(outer, prog, atoms + [outer.atom(t) for t in closed])
        return tu.tree_unflatten(prog.out_tree, outs)

    def _trace_nested(self, in_tree, types: list[ArrayType], mesh: AbstractMesh, outer: Trace):
        """The function traced on `types` as a sub-program of `outer` (same
        mesh view and manual axes); also the enclosing values it closed over."""
        trace = Trace(mesh, self.name, manual_axes=outer.manual_axes, check_vma=outer.check_vma)
        trace.closure = {}
        tracers = [trace.new_arg(t) for t in types]
        with tracing(trace):
            out = _float0_holes(self.fun(*tu.tree_unflatten(in_tree, tracers)))
            flat_out, out_tree = tu.tree_flatten(out, is_leaf=_is_leaf)
            outs = [self._output_atom(trace, o) for o in flat_out]
        closed = [t for t, _ in trace.closure.values()]
        in_vars = trace.in_vars + [v for _, v in trace.closure.values()]
        return Program(self.name, in_vars, trace.eqns, outs, mesh, out_tree=out_tree), closed

    def _apply_out_shardings(self, trace: Trace, outs, out_tree):
        if self.out_shardings is None:
            return outs
        specs = _per_leaf(self.out_shardings, out_tree, len(outs))
        new = []
        for v, s in zip(outs, specs, strict=True):
            if s is None:
                new.append(v)
                continue
            spec = s.spec if isinstance(s, NamedSharding) else s
            am = trace.mesh
            if any(a in am.axis_names and am.axis_type(a) == AxisType.Auto for e in spec for a in entry_axes(e)) \
                    or (am.auto_axes and not am.explicit_axes):
                # naming Auto axes, or any spec on an all-Auto mesh (`P()`: replicated), it places the
                # result (JAX's out_shardings), as a sharding constraint
                out = ops.with_sharding_constraint(Tracer(trace, v), spec)
            else:
                out = ops.reshard(Tracer(trace, v), spec)
            if getattr(s, "memory_kind", None) is not None:   # the result goes to that memory (JAX's)
                out = bind(device_put_p, out, space=mem_kind_to_space(s.memory_kind), jit_out=True)
            new.append(out._var)
        return new

    # --- lowering and compiling ---------------------------------------------------------------
    def _lower_traced(self, traced: Traced, locations: bool = False, in_layouts=None) -> Lowered:
        """Type-check, emit (with locations) and verify, each once. Lowered from types alone,
        arguments on Auto axes are laid out as `in_shardings` declares."""
        if in_layouts is None and self.in_shardings is not None and traced.program.mesh.auto_axes:
            in_layouts = self.declared_placements(len(traced.program.in_vars))
        with _gc_paused():
            t0 = time.perf_counter()
            prog = dce(traced.program)   # as jax.jit's lowering; the traced program stays as printed
            typecheck(prog)
            t1 = time.perf_counter()
            callbacks: list = []
            text = emit_module(prog, locations=True, in_layouts=in_layouts, aliases=traced.aliases,
                               host_callbacks=callbacks, platform=_platform_name())
            t2 = time.perf_counter()
            verify_module(text)
            t3 = time.perf_counter()
        traced.timings.typecheck, traced.timings.emit, traced.timings.verify = t1 - t0, t2 - t1, t3 - t2
        unusable = [traced.program.in_vars[i].type for i in traced.donated if i not in traced.aliases]
        if unusable:   # JAX's warning, once per lowering
            warnings.warn("Some donated buffers were not usable: "
                          f"{', '.join(t.str_short(short_dtypes=False) for t in unusable)}.", stacklevel=3)
        return Lowered(traced, text, in_layouts, callbacks, prog)

    def _concrete_mesh(self, amesh: AbstractMesh, required: bool = True) -> Mesh | None:
        if amesh.empty:
            return None
        m = get_mesh()
        if m is not None and m.abstract_mesh.axis_sizes == amesh.axis_sizes and m.axis_names == amesh.axis_names:
            return m
        m = getattr(self, "_arg_mesh", None)
        if m is not None and m.abstract_mesh.axis_names == amesh.axis_names:
            return m
        m = ops.manual.given_mesh(amesh)
        if m is not None:
            return m
        m = get_mesh()
        if m is not None and m.size == amesh.size:   # a `use_abstract_mesh` view of the context mesh's devices
            return Mesh(m.devices.reshape(amesh.axis_sizes), amesh.axis_names, amesh.axis_types)
        if required:
            raise ShardcValueError(
                f"`{self.name}` is typed on {amesh} but no concrete mesh is set: wrap the call "
                "in `with sc.set_mesh(mesh):`")
        return None

    def _compile_lowered(self, lowered: Lowered) -> Compiled:
        prog = lowered.traced.program
        mesh = self._concrete_mesh(prog.mesh)
        devices = list(mesh.devices.flat) if mesh is not None else default_devices()[:1]
        text = lowered.as_text(locations=True)
        t0 = time.perf_counter()
        exe = Executable(text, mesh, prog.in_types, prog.out_types, devices, lowered.host_callbacks)
        lowered.traced.timings.compile = time.perf_counter() - t0
        self._spell_out_shardings(exe, prog.out_tree, len(prog.out_types))
        return Compiled(lowered, exe, mesh)

    def _spell_out_shardings(self, exe: Executable, tree, n: int) -> None:
        """Results placed by `out_shardings` carry the spec as the user wrote it (JAX's
        executable takes the user's shardings: `out_shardings=P(unreduced={'x'})` gives
        `P(unreduced={'x'})`, not the type's `P(None, unreduced={'x'})`)."""
        if self.out_shardings is None:
            return
        specs = _per_leaf(self.out_shardings, tree, n)
        changed = False
        for i, (s, t) in enumerate(zip(specs, exe.out_types)):
            old = exe.out_shardings[i]
            if s is None or not isinstance(old, JNamedSharding):
                continue
            spec = to_jax_spec(s.spec if isinstance(s, NamedSharding) else s)
            new = JNamedSharding(old.mesh, spec, memory_kind=old.memory_kind)
            if (len(spec) <= t.ndim and spec != old.spec and set(spec.unreduced) == set(old.spec.unreduced)
                    and set(spec.reduced) == set(old.spec.reduced) and new.is_equivalent_to(old, t.ndim)):
                exe.out_shardings[i] = new
                changed = True
        if changed:
            exe._handlers = None

    # --- running -------------------------------------------------------------------------------
    def _run(self, compiled: Compiled, flat_args: Sequence[Any], any_device: bool = False):
        """Run `compiled` on the arguments; `any_device` (a call of the jit, not of an AOT-compiled
        object): a mesh-less program runs on the device its committed arguments are on."""
        prog = compiled.program
        in_types = compiled.in_types
        if len(flat_args) != len(in_types):
            raise ShardcValueError(
                f"`{self.name}` was compiled for {len(in_types)} arguments, got {len(flat_args)}")
        exe = compiled.executable
        if compiled.mesh is None and any_device:   # JAX runs it where its committed arguments are
            device = _committed_device(flat_args, in_types, self.name)
            if device is not None:
                exe = compiled.on_device(device)
        jargs = []
        for i, (a, t) in enumerate(zip(flat_args, in_types)):
            if type(a) is Array:
                if a._jax.is_deleted():
                    raise ShardcRuntimeError(
                        f"argument {i} of `{self.name}` ({t}) was donated to an earlier call "
                        "(donate_argnums / donate_argnames) and its buffer now holds that call's result: "
                        "Array has been deleted. Use the result instead, or stop donating it",
                        loc=user_location())
                if a._mesh is None and compiled.mesh is not None and a.committed:
                    _incompatible_with_mesh(i, t, flat_args, in_types, compiled.mesh, self.name)
                if a._mesh is None and compiled.mesh is not None and not a.committed \
                        and a._jax.devices() == {jax.devices()[0]}:
                    # JAX: an uncommitted array (one without a mesh, on the default device) moves
                    # to where the program takes that argument
                    jargs.append(jax.device_put(a._jax, compiled.executable.in_shardings[i]))
                elif exe is not compiled.executable and a._mesh is None and a._jax.devices() != set(exe.devices):
                    jargs.append(jax.device_put(a._jax, exe.devices[0]))   # uncommitted: moves there
                else:
                    jargs.append(a._jax)
            elif _is_jax(a):
                jargs.append(a)
            elif isinstance(a, (ArrayType, str, ShapeDtypeStruct)):
                raise ShardcValueError(f"argument {i} of `{self.name}` is a type, not data")
            else:
                if compiled.mesh is None:
                    jargs.append(jax.device_put(np.asarray(a, dtype=t.dtype), exe.devices[0]))
                else:
                    jargs.append(place(np.asarray(a, dtype=t.dtype), compiled.mesh, t.pspec,
                                       memory_kind_of(t))._jax)
        if prog.mesh.has_auto:
            jargs = compiled.executable.place_auto_args(jargs)
        outs = exe(jargs)
        arrays = [Array(o, t, m) for o, t, m in zip(outs, compiled.out_types, compiled.out_meshes)]
        if _DEBUG_ON[0]:
            self._check_floats(compiled, arrays, flat_args)
        if prog.mesh.has_auto and not prog.mesh.explicit_axes and jargs and self.out_shardings is None:
            # JAX's source: the first argument placed by the user (not host data placed here)
            first = next((j for a, j in zip(flat_args, jargs) if _is_placed(a) and not _uncommitted(a)), None)
            arrays = arrays if first is None else _recover_arg_sharding(arrays, first)
        return tu.tree_unflatten(prog.out_tree, arrays)


def _is_sharding(x) -> bool:
    return x is None or isinstance(x, (PartitionSpec, NamedSharding))


def _per_leaf(shardings, tree, n: int) -> list:
    """`jax.jit`'s `in_shardings` / `out_shardings` as one entry (a sharding or None) per leaf of
    the flattened arguments / results (`tree`): a single sharding covers all; otherwise it is a
    prefix of the positional arguments' tuple (or of the result), each entry covering every leaf
    of its subtree (`(P(None, 'model'), P('data'))` for a dict of parameters and a batch). A flat
    list of one entry per leaf, shardc's older form, is taken where it is not such a prefix."""
    if _is_sharding(shardings):
        return [shardings] * n
    if tree is not None:
        structure = tu.tree_unflatten(tree, [0] * n)
        prefix = tuple(shardings) if isinstance(shardings, list) and isinstance(structure, tuple) else shardings
        try:   # JAX's prefix rule, as shard_map's in_specs (`ops/manual.py`): a None entry covers its subtree
            return broadcast_prefix(prefix, structure, is_leaf=lambda x: x is None)
        except (ValueError, TypeError):
            pass
    flat = list(shardings) if isinstance(shardings, (list, tuple)) else None
    if flat is None or len(flat) > n or not all(_is_sharding(x) for x in flat):
        raise ShardcValueError(
            f"jit's shardings {shardings!r} are not a prefix of the {n} argument/result leaves' structure "
            f"{tree}; give one sharding per argument (a pytree of shardings over it) or one for all",
            loc=user_location())
    return flat + [None] * (n - len(flat))


def _committed_device(flat_args: Sequence[Any], in_types: Sequence[ArrayType], name: str):
    """The device the mesh-less arguments committed to one device are on (`device_put(x, device)`,
    `addressable_data(i)`, a result computed there), where JAX runs the program; None where none
    is (the program's default device, to which uncommitted arrays move). Arguments committed to
    two different devices are JAX's ValueError."""
    found: dict[Any, int] = {}
    for i, a in enumerate(flat_args):
        if type(a) is Array and a._mesh is None and a._jax.committed:
            found.setdefault(next(iter(a._jax.devices())), i)
    if len(found) > 1:
        (d1, i), (d2, j) = list(found.items())[:2]
        raise ShardcValueError(
            f"Received incompatible devices for jitted computation. Got {_arg_devices(i, in_types[i], [d1], name)} "
            f"and {_arg_devices(j, in_types[j], [d2], name)}; put them on one device (sc.device_put)",
            loc=user_location())
    return next(iter(found), None)


def _arg_devices(i: int, t: ArrayType, devices: Sequence, name: str) -> str:
    """How JAX's incompatible-devices error names an argument and its devices."""
    return (f"argument {i} of {name} with shape {t.str_short(short_dtypes=False)} and with device ids {[d.id for d in devices]} "
            f"on platform {devices[0].platform.upper()}")


def _incompatible_with_mesh(i: int, t: ArrayType, flat_args: Sequence[Any], in_types: Sequence[ArrayType],
                            mesh, name: str) -> None:
    """JAX's error for an array committed to one device in a program over a mesh: the context
    mesh's devices, or those of the first argument laid out on a mesh."""
    dev = list(flat_args[i]._jax.devices())
    ids = [d.id for d in mesh.devices.flat]
    other = next((k for k, a in enumerate(flat_args) if type(a) is Array and a._mesh is not None), None)
    if get_mesh() is not None or other is None:
        where = f"jit's context mesh with device ids {ids} on platform {dev[0].platform.upper()}"
    else:
        where = _arg_devices(other, in_types[other], list(mesh.devices.flat), name)
    raise ShardcValueError(
        f"Received incompatible devices for jitted computation. Got {_arg_devices(i, t, dev, name)} and {where}; "
        "move it with sc.device_put(x, sharding) or leave it uncommitted", loc=user_location())


def _recover_arg_sharding(arrays: list, first) -> list:
    """JAX's `maybe_recover_user_shardings`: a result XLA placed (Auto axes) as the first
    argument is placed, of its rank and mesh, carries that argument's sharding object (so
    `P('x', None)` in gives `P('x', None)` out where XLA's own spelling is `P('x',)`)."""
    sh = getattr(first, "sharding", None)
    if not isinstance(sh, JNamedSharding):
        return arrays
    return [respell(a, sh) if a._jax.ndim == first.ndim else a for a in arrays]


def _uncommitted(a) -> bool:
    """An `sc.Array` without a mesh left on the default device (`sc.arange(8.)`): like host data,
    jit places it as `in_shardings` declare (JAX's), where a committed one must match."""
    return type(a) is Array and a._mesh is None and not a.committed


def _is_placed(a) -> bool:
    """An argument that is not host data: an array on devices, or a type / ShapeDtypeStruct."""
    return (getattr(a, "_shardc_type", None) is not None or _is_jax(a) or isinstance(a, (ArrayType, str))
            or isinstance(a, ShapeDtypeStruct))


def _has_host_callbacks(prog: Program) -> bool:
    """Whether the program (its nested bodies too) calls back into Python."""
    def walk(eqns) -> bool:
        return any(getattr(e.prim, "name", "").endswith("callback") or any(walk(p.eqns) for p in
                                                                             e.prim.sub_programs(e.params))
                   for e in eqns)
    return walk(prog.eqns)


def _platform_name() -> str:
    """The platform programs are emitted for (host callbacks name it)."""
    return platform() or jax.default_backend()


def _replay(trace: Trace, prog: Program, atoms: Sequence) -> list[Tracer]:
    """Append `prog`'s equations to `trace` with its inputs bound to `atoms`
    (fresh variables of the same types; sources, op names and params kept)."""
    env = {v.id: a for v, a in zip(prog.in_vars, atoms)}

    def read(a):
        return env[a.id] if isinstance(a, Var) else a

    for e in prog.eqns:
        outs = [Var(v.type) for v in e.outputs]
        trace.eqns.append(Eqn(e.prim, [read(a) for a in e.inputs], outs, e.params, e.loc, e.api, e.inferred))
        env.update((v.id, o) for v, o in zip(e.outputs, outs))
    return [Tracer(trace, a) if isinstance(a, Var) else a for a in map(read, prog.outputs)]


def _layouts(flat: Sequence[Any], types: Sequence[ArrayType]):
    """Concrete argument shardings, where they say more than the types (Auto axes)."""
    out, any_auto = [], False
    for a, t in zip(flat, types):
        spec = None
        if t.mesh.auto_axes:
            js = getattr(getattr(a, "_jax", a), "sharding", None)
            if js is not None and hasattr(js, "spec"):
                spec = spec_from_jax(js.spec)
                any_auto = True
        out.append(spec)
    return out if any_auto else None


def _is_jax(a) -> bool:
    return isinstance(a, jax.Array)


_context_mesh, _context_abstract_mesh = _CONCRETE_MESH.get, _ABSTRACT_MESH.get


def _call_key(leaves) -> tuple | None:
    """The identity key of a call (`Jit._call_known`): the context meshes, then each
    argument's type and mesh objects; None unless every argument is an `sc.Array`."""
    key = [id(_context_mesh()), id(_context_abstract_mesh())]
    for a in leaves:
        if type(a) is not Array:
            return None
        key.append(id(a._shardc_type))
        key.append(id(a._mesh))
        # a mesh-less array committed to its device makes the results committed (JAX): part of the key
        key.append(a._mesh is None and a._jax.committed)
    return tuple(key)


def _type_ids(args) -> tuple | None:
    """The identities of the arguments' types (`Compiled.__call__`); None unless all are `sc.Array`s."""
    key = []
    for a in args:
        if type(a) is not Array:
            return None
        key.append(id(a._shardc_type))
    return tuple(key)


#: Python scalars keyed by their type alone: a jit argument's type is `~int32[]`, `~float32[]`...
_PY_SCALARS = (bool, int, float, complex)


def _fast_type(a):
    """An argument's part of a call's signature key (`Jit.__call__`): what its type is derived
    from. NumPy arrays and scalars by class, shape and dtype, Python scalars by class (an int out
    of int32's range by nothing: the full path says how it is typed or refused each time), as
    JAX's dispatch keys them; None (no caching) for anything else."""
    t = getattr(a, "_shardc_type", None)
    if t is not None:
        if t.mesh.auto_axes:
            return (t, a._mesh, get_mesh(), a._jax.sharding.spec)
        return (t, a._mesh, get_mesh(), a._mesh is None and a._jax.committed)
    ta = type(a)
    if ta is np.ndarray or isinstance(a, np.generic):
        return (ta, a.shape, a.dtype)
    if ta in _PY_SCALARS:
        return None if ta is int and not -2**31 <= a < 2**31 else (ta,)
    return None


def _annotations(fun: Callable) -> list[Any]:
    """Each parameter's type annotation: a type string, a pytree of them (a dict of
    weights: `params: {"w": "f32[8@X,4]", "b": "f32[4]"}`), or None."""
    try:
        sig = inspect.signature(fun)
    except (TypeError, ValueError):
        return []
    return [_annotation(p.annotation) for p in sig.parameters.values()
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def _annotation(ann: Any) -> Any:
    if isinstance(ann, str) and ann[:1] in ("'", '"', "{", "[", "("):
        # `from __future__ import annotations` keeps the source text (quotes, dict displays)
        try:
            ann = ast.literal_eval(ann)
        except (ValueError, SyntaxError):
            return None
    if isinstance(ann, str):
        return ann
    if isinstance(ann, (dict, list, tuple)):
        leaves = tu.tree_leaves(ann, is_leaf=lambda x: isinstance(x, str))
        return ann if leaves and all(isinstance(x, str) for x in leaves) else None
    return None


def signature_leaves(fun: Callable) -> list[tuple[str, str | None]]:
    """(name, type string or None) per array parameter leaf, in argument order: a
    parameter annotated with a pytree gives one per leaf, named by its path
    (`params.w1`, `layers.0`)."""
    try:
        names = [p.name for p in inspect.signature(fun).parameters.values()
                 if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    except (TypeError, ValueError):
        return []
    out = []
    for name, ann in zip(names, _annotations(fun)):
        if ann is None or isinstance(ann, str):
            out.append((name, ann))
            continue
        for path, leaf in tu.tree_flatten_with_path(ann, is_leaf=lambda x: isinstance(x, str))[0]:
            out.append((name + "".join(f".{getattr(k, 'key', getattr(k, 'idx', k))}" for k in path), leaf))
    return out


def _flat_sig(sig: list) -> tuple[list, Any]:
    """The annotations' leaves (None for a parameter without one) and their tree."""
    leaves, tree = tu.tree_flatten(tuple(sig), is_leaf=lambda x: x is None or isinstance(x, str))
    return leaves, tree


def jit(fun: Callable | None = None, *, in_shardings=None, out_shardings=None, static_argnums=(),
        static_argnames=(), donate_argnums=(), donate_argnames=(), name: str | None = None,
        inline: bool = False):
    """Turn `fun` into a program (usable as `@sc.jit` or `sc.jit(f, out_shardings=...)`).

    `static_argnums` / `static_argnames` are passed as Python values (hashable; one
    program per distinct set of values), as in `jax.jit`; keyword arguments are
    otherwise traced. `donate_argnums` / `donate_argnames` let results reuse those arguments'
    buffers (the caller's arrays are deleted), as in JAX. `inline` is accepted for JAX's
    signature: a jitted function called inside another program is always inlined here."""
    kw = dict(static_argnums=static_argnums, static_argnames=static_argnames, donate_argnums=donate_argnums,
              donate_argnames=donate_argnames)
    if fun is None:
        return lambda f: jit(f, in_shardings=in_shardings, out_shardings=out_shardings, name=name, **kw)
    if not callable(fun):   # JAX's TypeError
        raise ShardcTypeError(f"Expected a callable value, got {fun!r}", loc=user_location())
    prog = Jit(fun, in_shardings, out_shardings, name, **kw)
    _USER_JITS.add(prog)
    return prog


def clear_caches() -> None:
    """Forget every traced and compiled program (`jax.clear_caches`): the user's
    `sc.jit` programs and the one-op programs of eager execution trace and compile
    again on their next call. The persistent compilation cache on disk is kept."""
    for prog in list(_USER_JITS):
        prog.clear_cache()
    _JITS.clear()
    _flat_tree.cache_clear()


def set_debug_floats(kind: str, on: bool) -> None:
    """`jax_debug_nans` (`kind='nan'`) / `jax_debug_infs` (`'inf'`) for the whole process."""
    _DEBUG_FLOATS[kind] = bool(on)
    _DEBUG_ON[0] = any(_DEBUG_FLOATS.values())


def _run_op_by_op(prog: Program, args: Sequence[Any]) -> None:
    """JAX's de-optimized call: the program's equations run one by one as eager operations (each
    checked, and located at its own line), a transformation's equations (`grad`) included."""
    env: dict[int, Any] = {v.id: a for v, a in zip(prog.in_vars, args)}
    for e in prog.eqns:
        ins = [env[a.id] if isinstance(a, Var) else a.value for a in e.inputs]
        with at_source(e.loc, e.api) if e.loc is not None else contextlib.nullcontext():
            res = bind(e.prim, *ins, **e.params)
        for v, r in zip(e.outputs, res if e.prim.multiple_results else [res]):
            env[v.id] = r


def _special_value(arrays: Sequence[Array]) -> str | None:
    """'nan' / 'inf' when a floating result holds one that is being checked for (host values)."""
    for a in arrays:
        if not dt.is_inexact(a._shardc_type.dtype):
            continue
        v = np.asarray(a)
        if _DEBUG_FLOATS["nan"] and np.isnan(v).any():
            return "nan"
        if _DEBUG_FLOATS["inf"] and np.isinf(v).any():
            return "inf"
    return None


def set_jit_disabled(disable: bool) -> None:
    """`jax_disable_jit` for the whole process (`sc.config.update`)."""
    _JIT_DISABLED[0] = bool(disable)


@contextmanager
def disable_jit(disable: bool = True):
    """`jax.disable_jit`: inside, calling an `sc.jit` program runs its Python
    function op by op on concrete arrays (each op still typed and checked, as
    eagerly), so `print` and a debugger see values. Programs called while
    another is being traced are traced as usual (JAX does the same)."""
    saved, _JIT_DISABLED[0] = _JIT_DISABLED[0], bool(disable)
    try:
        yield
    finally:
        _JIT_DISABLED[0] = saved


class ClosedJaxpr:
    """What `sc.make_jaxpr` returns: shardc's typed IR of the function (its `str`
    prints the program, every value with its sharding type), with JAX's
    `in_avals` / `out_avals` / `eqns` / `jaxpr` attributes."""

    def __init__(self, program: Program):
        self.jaxpr = program
        self.eqns = program.eqns
        self.in_avals = list(program.in_types)
        self.out_avals = list(program.out_types)

    def __str__(self) -> str:
        return pretty_print(self.jaxpr)

    __repr__ = __str__

    def pretty_print(self) -> str:
        return str(self)


def make_jaxpr(fun: Callable, static_argnums: int | Sequence[int] = (), axis_env=None,
               return_shape: bool = False) -> Callable:
    """`jax.make_jaxpr`: `make_jaxpr(f)(*args)` traces `f` at the arguments' types
    (arrays, `ShapeDtypeStruct`s, type strings) and returns its typed IR; with
    `return_shape=True` also the outputs as `ShapeDtypeStruct`s. `axis_env` (for
    pmap-style collectives) has no meaning without pmap and must be None."""
    if axis_env is not None:
        raise ShardcValueError("sc.make_jaxpr(axis_env=...) is not supported: named axes come from "
                               "the mesh (sc.shard_map) or sc.vmap(axis_name=...)")

    @functools.wraps(fun)
    def make(*args, **kwargs):
        prog = Jit(fun, static_argnums=static_argnums)
        traced = prog.trace(*args, **kwargs)
        out = ClosedJaxpr(traced.program)
        if return_shape:
            shapes = tu.tree_map(ShapeDtypeStruct.from_type, traced.out_types,
                                 is_leaf=lambda t: isinstance(t, ArrayType))
            return out, shapes
        return out
    return make


def _aliases(prog: Program, donated: Sequence[int]) -> dict[int, int]:
    """Each donated argument's buffer goes to the first result of the same type
    (shape, dtype, sharding) not taken yet, as JAX matches them."""
    out: dict[int, int] = {}
    taken: set[int] = set()
    outs = [o.type.update(weak_type=False) for o in prog.outputs]
    for i in donated:
        t = prog.in_vars[i].type.update(weak_type=False)
        j = next((j for j, o in enumerate(outs) if j not in taken and o == t), None)
        if j is not None:
            out[i] = j
            taken.add(j)
    return out


def _tuple(x) -> tuple:
    return (x,) if isinstance(x, (int, str)) else tuple(x)


def _static_args(fun: Callable, nums, names) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """`static_argnums` and `static_argnames`, each completed from the other through
    `fun`'s signature (as `jax.jit` does)."""
    nums, names = _tuple(nums), _tuple(names)
    try:
        params = [p for p in inspect.signature(fun).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        return nums, names
    by_name = {p.name: i for i, p in enumerate(params)}
    nums = tuple(sorted(set(nums) | {by_name[n] for n in names if n in by_name}))
    names = tuple(dict.fromkeys(names + tuple(params[i].name for i in nums if 0 <= i < len(params))))
    return nums, names


_JITS: dict[Any, Any] = {}


def _is_array(a) -> bool:
    if getattr(a, "_shardc_type", None) is not None:
        return True
    return isinstance(a, jax.Array)


def _const_key(a) -> Any:
    if isinstance(a, Const):
        return ("const",) + a.key()
    if isinstance(a, (bool, int, float)):
        return (type(a).__name__, a)
    arr = np.asarray(a)
    if arr.dtype == object:
        raise ShardcValueError(f"cannot use a value of type {type(a).__name__} as an array")
    return (arr.shape, arr.dtype.str, arr.dtype.name, arr.tobytes())   # (.str: '<V1' for several f8s)


def _params_key(params: dict) -> Any:
    try:
        key = tuple(sorted(params.items()))
        hash(key)
        return key
    except TypeError:
        return None


def apply_eagerly(prim: Primitive, args: Sequence[Any], params: dict):
    """Apply one primitive to concrete arrays outside any program."""
    if prim is slice_p and _auto_only(args[0]) and all(s == 1 for s in params.get("strides") or ()):
        return _slice_as_dynamic(args[0], params)
    positions = tuple(i for i, a in enumerate(args) if _is_array(a))
    consts = {i: a for i, a in enumerate(args) if i not in positions}
    pkey = _params_key(params)
    key = None
    if pkey is not None:
        # (the trace context too: a composite's function is traced under the promotion flags)
        key = (prim.name, pkey, positions, tuple((i, _const_key(a)) for i, a in consts.items()),
               trace_context.key())
    fn = _JITS.get(key) if key is not None else None
    if fn is None:
        def op(*xs):
            full = list(args)
            for p, x in zip(positions, xs):
                full[p] = x
            return bind(prim, *full, **params)
        fn = Jit(op, name=prim.name)
        fn.eager_prim = prim.name
        if key is not None and len(_JITS) < 4096:
            _JITS[key] = fn
    return fn(*[args[p] for p in positions])


def _auto_only(x) -> bool:
    """An array placed on a mesh whose axes are all Auto (where XLA, not the type, places results)."""
    t = getattr(x, "_shardc_type", None)
    return t is not None and bool(t.mesh.auto_axes) and not t.mesh.explicit_axes and not t.mesh.manual_axes


def _slice_as_dynamic(x, params: dict):
    """JAX's eager `slice` (`_slice_impl`): a `dynamic_slice` whose start indices are arguments of
    the program, so that one program serves every offset; on Auto axes XLA then places the
    result replicated along the sliced dims (a static slice under `jit` keeps the operand's
    placement), and the result's placement is JAX's."""
    starts = params["start_indices"]
    sizes = tuple(int(b) - int(a) for a, b in zip(starts, params["limit_indices"]))
    replicated = JNamedSharding(x._jax.sharding.mesh, jax.sharding.PartitionSpec())
    idx = [jax.device_put(np.int32(a), replicated) for a in starts]
    return apply_eagerly(dynamic_slice_p, [x, *idx], {"slice_sizes": sizes})


def stage_function(fun: Callable, args: Sequence[Any], name: str):
    """Run `fun(*args)` on concrete arrays as a one-off compiled program."""
    return Jit(lambda *xs: fun(*xs), name=name)(*args)


register_eager_handler(apply_eagerly, stage_function)


register_foreign_typeof(lambda x: isinstance(x, ShapeDtypeStruct), lambda x: x.to_type())


def eval_shape(fun: Callable, *args, **kwargs):
    """The outputs' shapes, dtypes and shardings as `sc.ShapeDtypeStruct`s (a pytree
    like the outputs), without compiling or running: `fun` is traced on the
    arguments' types (arrays, `ShapeDtypeStruct`s, type strings)."""
    prog = Jit(lambda *a: fun(*a, **kwargs), name=getattr(fun, "__name__", "eval_shape"))
    outer = current_trace()
    if outer is None and isinstance(fun, Jit):   # its own static arguments and keywords, as JAX's
        out_types = fun.trace(*args, **kwargs).out_types
    elif outer is None:
        out_types = prog.trace(*args).out_types
    else:   # inside a program: traced as a sub-program of it (its manual axes, vma and mesh view)
        types, _ = prog._arg_types(tu.tree_map(lambda a: a.aval if isinstance(a, Tracer) else a, args))
        sub, _ = prog._trace_nested(prog._in_tree, types, get_abstract_mesh(), outer)
        out_types = tu.tree_unflatten(sub.out_tree, sub.out_types)
    return tu.tree_map(ShapeDtypeStruct.from_type, out_types, is_leaf=lambda t: isinstance(t, ArrayType))


def _fun_name(fun: Callable) -> str:
    """The name a program is given: the function's, through `functools.partial` (JAX's
    `fun_name`), else "program"."""
    while getattr(fun, "__name__", None) is None and isinstance(fun, functools.partial):
        fun = fun.func
    return getattr(fun, "__name__", "program")


def _xla_computation(text: str):
    """The emitted module as an XLA computation (unpartitioned HLO), as JAX's `Lowered.hlo()`."""
    return _jaxlib.mlir.mlir_module_to_xla_computation(text, use_tuple_args=False, return_tuple=False)


def _unimplemented_as_none(query: Callable[[], Any]) -> Any:
    """An executable's analysis, or None where the XLA backend has none (JAX's stages do the same)."""
    try:
        return query()
    except Exception as e:  # noqa: BLE001  (jaxlib's JaxRuntimeError "UNIMPLEMENTED: ...")
        if str(e).startswith("UNIMPLEMENTED"):
            return None
        raise


def _sharding_of(t: ArrayType, mesh) -> NamedSharding | None:
    if t.mesh.empty:
        return None
    return NamedSharding(mesh if mesh is not None else t.mesh,
                         PartitionSpec(*t.spec, unreduced=t.unreduced, reduced=t.reduced))


def device_get(x):
    """Arrays (a pytree of them) as NumPy arrays on the host, as `jax.device_get`."""
    return tu.tree_map(lambda a: np.asarray(a) if _is_array(a) else a, x,
                       is_leaf=lambda a: _is_array(a))
