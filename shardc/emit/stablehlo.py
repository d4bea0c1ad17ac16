"""The emitter: a typed `Program` → StableHLO text with Shardy annotations.

Every function argument and result carries its `sdy.sharding`; on meshes with
Explicit axes every op result is pinned with an `sdy.sharding_constraint`
equal to its type (as JAX emits), so XLA's partitioner follows the types —
unreduced ones included. Text is deterministic: SSA names are numbered in
program order and locations are only added when asked for.
"""
from __future__ import annotations

from typing import Sequence

from ..errors import ShardcAssertionError, SourceLoc
from ..ir import Eqn, Literal, Program, Var
from ..mesh import AbstractMesh
from ..sharding import MemorySpace, mem_space_to_kind
from ..types import ArrayType
from .text import (
    dense_literal,
    int_list,
    scalar_literal,
    sdy_mesh,
    sdy_sharding_body,
    sdy_spec_body,
    tensor_type,
    ttype,
)

_LOC_TEXTS: dict = {}


def _loc_text(loc: SourceLoc | None, api: str | None) -> str:
    """The ` loc(...)` suffix of an op; memoized (a loop's ops share their line and name)."""
    if loc is None:
        return ""
    key = (loc.file, loc.line, loc.scope, api)     # (a SourceLoc's own hash is a Python call)
    text = _LOC_TEXTS.get(key)
    if text is None:
        if len(_LOC_TEXTS) > 100_000:
            _LOC_TEXTS.clear()
        text = _LOC_TEXTS[key] = _format_loc(loc, api)
    return text


def _format_loc(loc: SourceLoc, api: str | None) -> str:
    f = loc.file.replace("\\", "\\\\").replace('"', '\\"')
    inner = f'"{f}":{loc.line}:0'
    # XLA keeps the location's name as the HLO op_name (and drops the file
    # position from printed metadata), so the name carries "op at file:line".
    # XLA drops the whole op_name at an "@" (the `@` operator's name): spell it out
    op = (api or '?').replace('@', 'matmul')
    name = f"{loc.scope + '/' if loc.scope else ''}{op} at {loc.file}:{loc.line}".replace("\\", "\\\\").replace('"', '\\"')
    return f' loc("{name}"({inner}))'


class LowerCtx:
    """What a primitive's `lower` uses to write ops: fresh names, constants,
    broadcasts and constraints, all indented and located consistently."""

    def __init__(self, mesh: AbstractMesh, locations: bool, indent: str = "    ",
                 shared: dict | None = None):
        self.mesh = mesh
        self.locations = locations
        self.indent = indent
        # names, lines and channel ids are shared with nested bodies (one function)
        self._shared = shared if shared is not None else {"lines": [], "n": 0, "channel": 0,
                                                          "meshes": {}, "callbacks": [], "maximal": {}}
        self.lines: list[str] = self._shared["lines"]
        #: per-type constraint suffixes ("" where none is written) and sharding bodies (shared)
        self._constraints: dict = self._shared.setdefault("constraints", {})
        self._shardings: dict = self._shared.setdefault("shardings", {})
        self._loc = ""
        # per-region caches (a nested region gets its own: values do not cross in)
        self._consts: dict[str, str] = {}
        self._lit_names: dict[Literal, str] = {}    # a shared scalar Literal: its text is built once
        self._splats: set[str] = set()
        self._splat_bcast: dict = {}

    def child(self, mesh: AbstractMesh) -> "LowerCtx":
        """A context for a nested region (e.g. a manual computation's body)."""
        return LowerCtx(mesh, self.locations, self.indent + "  ", self._shared)

    def lower_body(self, prog: Program, arg_names: Sequence[str]) -> list[str]:
        """Lower a nested program (a region's body) into this context; its results' names."""
        return lower_body(self, prog, arg_names)

    def fresh(self, prefix: str = "") -> str:
        name = f"%{prefix}{self._shared['n']}"
        self._shared["n"] += 1
        return name

    def results(self, n: int) -> tuple[str, list[str]]:
        """A fresh result name for an op with `n` results written by hand (regions):
        the left-hand side (`%7` or `%7:3`) and the names to read (`%7#0`, …)."""
        name = self.fresh()
        if n == 1:
            return name, [name]
        return f"{name}:{n}", [f"{name}#{i}" for i in range(n)]

    def channel(self) -> str:
        """A fresh positive channel handle (needed with global device ids)."""
        self._shared["channel"] += 1
        return f"#stablehlo.channel_handle<handle = {self._shared['channel']}, type = 1>"

    def emit(self, line: str) -> None:
        self.lines.append(self.indent + line)

    def effect(self, text: str) -> None:
        """An op without results (a host callback), located like every other op."""
        self.lines.append(f"{self.indent}{text}{self._loc}")

    def host_callback(self, fn) -> int:
        """The index of `fn` among the module's host callbacks (what XLA's
        `xla_ffi_python_*_callback` custom calls name), registering it on first use."""
        cbs = self._shared["callbacks"]
        for i, c in enumerate(cbs):
            if c is fn:
                return i
        cbs.append(fn)
        return len(cbs) - 1

    @property
    def platform(self) -> str:
        """The platform the module is for ("cpu" unless the driver says otherwise)."""
        return self._shared.get("platform", "cpu")

    def maximal_mesh(self, device: int = 0) -> str:
        """`@maximal_mesh_<d>`: a mesh of the one logical device `d` (where JAX runs host callbacks)."""
        return self._shared["maximal"].setdefault(device, f"@maximal_mesh_{device}")

    def op(self, text: str, n_results: int = 1, region: Sequence[str] | None = None):
        name = self.fresh()
        lhs = name if n_results == 1 else f"{name}:{n_results}"
        if not region:
            self.lines.append(f"{self.indent}{lhs} = {text}{self._loc}")
        else:
            self.lines.append(f"{self.indent}{lhs} = {text}")
            for i, r in enumerate(region):
                last = i == len(region) - 1
                self.lines.append(f"{self.indent}  {r}{self._loc if last else ''}")
        return name if n_results == 1 else [f"{name}#{i}" for i in range(n_results)]

    # --- values -------------------------------------------------------------------
    def scalar(self, value, dtype) -> str:
        return self.op(f"stablehlo.constant dense<{scalar_literal(value, dtype)}> : {tensor_type((), dtype)}")

    def splat(self, value, dtype, shape) -> str:
        s = self.scalar(value, dtype)
        if not shape:
            return s
        return self.op(f"stablehlo.broadcast_in_dim {s}, dims = [] : ({tensor_type((), dtype)}) -> "
                       f"{tensor_type(shape, dtype)}")

    def literal(self, lit: Literal) -> str:
        """A constant; scalar constants are emitted once per function body."""
        t = lit.type
        if not t.ndim:
            name = self._lit_names.get(lit)
            if name is not None:
                return name
        text = f"stablehlo.constant dense<{dense_literal(lit.value, t.dtype)}> : {ttype(t)}"
        if t.ndim:
            return self.op(text)
        name = self._consts.get(text)
        if name is None:
            name = self._consts[text] = self.op(text)
            self._splats.add(name)
        self._lit_names[lit] = name
        return name

    def mesh_symbol(self, mesh: AbstractMesh) -> str:
        """`@mesh` for the program's mesh; `@mesh_1`, … for other abstract meshes
        over the same devices (`use_abstract_mesh`)."""
        meshes = self._shared["meshes"]
        key = (mesh.axis_names, mesh.axis_sizes)
        if key not in meshes:
            meshes[key] = "@mesh" if not meshes else f"@mesh_{len(meshes)}"
        return meshes[key]

    def sharding(self, t: ArrayType, *, closed: bool = False) -> str:
        cache = self._shardings
        key = (t.mesh, t.spec, t.unreduced, closed)
        body = cache.get(key)
        if body is None:
            body = cache[key] = sdy_sharding_body(t, self.mesh_symbol(t.mesh), closed=closed)
        return body

    def constrain(self, name: str, t: ArrayType) -> str:
        """Pin a value to its type, as JAX's `lower_with_sharding_in_types`: not
        on all-Auto or all-Manual meshes (Auto+Manual ones get open dims).
        The suffix (or "" for none) is a function of the type: built once per type."""
        suffix = self._constraints.get(t)
        if suffix is None:
            suffix = self._constraints[t] = self._constraint_suffix(t)
        return self.op("sdy.sharding_constraint " + name + suffix) if suffix else name

    def _constraint_suffix(self, t: ArrayType) -> str:
        m = t.mesh
        if not m.has_explicit and not (m.auto_axes and m.manual_axes):
            return ""
        return f" <{self.sharding(t)}> : {ttype(t)}"

    def constrain_spec(self, name: str, t: ArrayType, spec) -> str:
        """A user's constraint (`with_sharding_constraint` on Auto axes)."""
        body = sdy_spec_body(spec, t.ndim, self.mesh_symbol(t.mesh))
        return self.op(f"sdy.sharding_constraint {name} <{body}> : {ttype(t)}")

    def reshard(self, name: str, src: ArrayType, dst: ArrayType) -> str:
        """A sharding change; the constraint added after the equation does the work."""
        return name

    def broadcast_operand(self, name: str, t: ArrayType, out: ArrayType) -> str:
        """Broadcast an n-ary op's operand (rank-0 or size-1 dims) to the result shape."""
        if t.shape == out.shape:
            return name
        if name in self._splats:
            # a constant operand: one broadcast per (constant, result type) is enough
            key = (name, out.shape, out.spec, out.unreduced, out.mesh)
            hit = self._splat_bcast.get(key)
            if hit is None:
                hit = self._splat_bcast[key] = self._broadcast(name, t, out)
            return hit
        return self._broadcast(name, t, out)

    def _broadcast(self, name: str, t: ArrayType, out: ArrayType) -> str:
        dims = list(range(t.ndim)) if t.ndim else []
        b = self.op(f"stablehlo.broadcast_in_dim {name}, dims = {int_list(dims)} : "
                    f"({ttype(t)}) -> {tensor_type(out.shape, t.dtype)}")
        return self.constrain(b, out.update(dtype=t.dtype))


def _arg_attr(ctx: LowerCtx, t: ArrayType, layout, alias: int | None = None, kinds: bool = False) -> str:
    """An argument's sharding: its concrete layout when known (Auto axes
    included), else its type's, closed: an argument given as a type is placed
    as the type says (as JAX lowers a `ShapeDtypeStruct` with that sharding).
    A donated argument also names the result that reuses its buffer."""
    attrs = []
    if kinds and (not t.mesh.empty or t.memory_space is not MemorySpace.Device):
        # JAX: the memory kind of the argument's sharding (a mesh-less one on device memory has none)
        attrs.append(f'mhlo.memory_kind = "{_kind(t)}"')
    if not t.mesh.empty:
        body = (sdy_spec_body(layout, t.ndim, ctx.mesh_symbol(t.mesh)) if layout is not None
                else ctx.sharding(t, closed=True))
        attrs.append(f"sdy.sharding = #sdy.sharding<{body}>")
    if alias is not None:
        attrs.append(f"tf.aliasing_output = {alias} : i32")
    return f" {{{', '.join(attrs)}}}" if attrs else ""


def _result_attr(ctx: LowerCtx, t: ArrayType, kinds: bool = False) -> str:
    """Results are pinned to their types; on an all-Auto mesh XLA chooses, and
    so it does on a mixed mesh when a dim is not sharded on an Explicit axis
    (JAX makes such dims UNCONSTRAINED and then drops the whole annotation).
    In a program that uses memory kinds every result names its memory (JAX's
    `mhlo.memory_kind`)."""
    kind = f'mhlo.memory_kind = "{_kind(t)}"' if kinds else ""
    if t.mesh.empty or not t.mesh.has_explicit and not t.unreduced:
        return f" {{{kind}}}" if kind else ""
    if t.mesh.auto_axes and any(e is None for e in t.spec):
        return f" {{{kind}}}" if kind else ""
    kind = f"{kind}, " if kind else ""
    return f" {{{kind}sdy.sharding = #sdy.sharding<{ctx.sharding(t, closed=True)}>}}"


def _kind(t: ArrayType) -> str:
    """The memory kind of a value of type `t` (JAX's `mem_space_to_kind`, whose
    AssertionError for `MemorySpace.Any` a program result or argument gets too)."""
    try:
        return mem_space_to_kind(t.memory_space)
    except AssertionError:
        raise ShardcAssertionError("unreachable") from None


def uses_memory_kinds(prog: Program) -> bool:
    """Whether the program names a memory other than device memory: an argument or result
    in host memory, or a `device_put` to one anywhere in it (JAX's `all_default_mem_kind`
    is False). Only then are memory kinds written into the module, as JAX does."""
    if any(t.memory_space is not MemorySpace.Device for t in (*prog.in_types, *prog.out_types)):
        return True
    for e in prog.eqns:
        if e.prim.name == "device_put" and e.params["space"] is not MemorySpace.Device:
            return True
        if any(uses_memory_kinds(p) for p in e.prim.sub_programs(e.params)):
            return True
    return False


def _annotate_placement(ctx: LowerCtx, name: str, t: ArrayType) -> str:
    """JAX's `wrap_with_memory_kind` on a result: XLA moves the value to that memory."""
    return ctx.op(f'stablehlo.custom_call @annotate_device_placement({name}) {{backend_config = "", '
                  f'has_side_effect = true, mhlo.frontend_attributes = {{_xla_buffer_placement = "{_kind(t)}"}}}} : '
                  f"({ttype(t)}) -> {ttype(t)}")


def emit_module(prog: Program, *, locations: bool = False, in_layouts=None,
                device_ids: Sequence[int] | None = None, aliases: dict[int, int] | None = None,
                host_callbacks: list | None = None, platform: str = "cpu") -> str:
    """The StableHLO module for `prog` (entry `@main`). `in_layouts` are the
    arguments' concrete specs where they say more than the types (Auto axes);
    `aliases` maps donated arguments to the results that reuse their buffers.
    The Python functions the module's host callbacks call (by index) are appended
    to `host_callbacks`: XLA needs them when it compiles the module."""
    mesh = prog.mesh
    ctx = LowerCtx(mesh, locations)
    ctx._shared["platform"] = platform
    if not mesh.empty:
        ctx.mesh_symbol(mesh)
    layouts = in_layouts or [None] * len(prog.in_vars)
    kinds = uses_memory_kinds(prog)
    env: dict[int, str] = {}
    args = []
    for i, (v, lay) in enumerate(zip(prog.in_vars, layouts)):
        env[v.id] = f"%arg{i}"
        alias = (aliases or {}).get(i)
        args.append(f"%arg{i}: {ttype(v.type)}{_arg_attr(ctx, v.type, lay, alias, kinds)}")
    for eqn in prog.eqns:
        _lower_eqn(ctx, eqn, env)
    ctx._loc = ""
    outs = [_read(ctx, env, o) for o in prog.outputs]
    if kinds:   # JAX: results on a mesh with Explicit axes get an out sharding with their memory kind
        by_jit = {e.outputs[0].id for e in prog.eqns if e.prim.name == "device_put" and e.params.get("jit_out")}
        outs = [_annotate_placement(ctx, n, o.type)
                if (not o.type.mesh.empty and o.type.mesh.has_explicit) or getattr(o, "id", None) in by_jit
                else n for n, o in zip(outs, prog.outputs)]
    results = ", ".join(f"{ttype(o.type)}{_result_attr(ctx, o.type, kinds)}" for o in prog.outputs)
    n = max(mesh.size, 1)
    lines = [f"module @{_symbol(prog.name)} attributes {{mhlo.num_partitions = {n} : i32, "
             f"mhlo.num_replicas = 1 : i32}} {{"]
    by_symbol = {sym: key for key, sym in ctx._shared["meshes"].items()}
    for sym in sorted(by_symbol, key=lambda s: (len(s), s)):
        names, sizes = by_symbol[sym]
        lines.append(f"  sdy.mesh {sym} = {sdy_mesh(AbstractMesh(sizes, names), device_ids)}")
    for device, sym in sorted(ctx._shared["maximal"].items()):
        lines.append(f"  sdy.mesh {sym} = <[], device_ids=[{device}]>")
    if host_callbacks is not None:
        host_callbacks.extend(ctx._shared["callbacks"])
    lines.append(f"  func.func public @main({', '.join(args)}) -> ({results}) {{")
    lines.extend(ctx.lines)
    ret_types = ", ".join(ttype(o.type) for o in prog.outputs)
    lines.append(f"    return {', '.join(outs)} : {ret_types}" if outs else "    return")
    lines.append("  }")
    lines.extend(ctx._shared.get("funcs", ()))   # private functions (a composite's decomposition)
    lines.append("}")
    return "\n".join(lines) + "\n"


def _symbol(name: str) -> str:
    s = "".join(c if c.isalnum() or c == "_" else "_" for c in name) or "main"
    return "shardc_" + s


def _read(ctx: LowerCtx, env: dict[int, str], a) -> str:
    if isinstance(a, Literal):
        name = ctx.literal(a)
        return ctx.constrain(name, a.type) if a.type.ndim else name
    return env[a.id]


def lower_body(ctx: LowerCtx, prog: Program, arg_names: Sequence[str]) -> list[str]:
    """Lower a nested program's equations into `ctx`; returns its result names."""
    env: dict[int, str] = {v.id: n for v, n in zip(prog.in_vars, arg_names)}
    for eqn in prog.eqns:
        _lower_eqn(ctx, eqn, env)
    return [_read(ctx, env, o) for o in prog.outputs]


def _lower_eqn(ctx: LowerCtx, eqn: Eqn, env: dict[int, str]) -> None:
    ctx._loc = _loc_text(eqn.loc, eqn.api or eqn.prim.name) if ctx.locations else ""
    ins = [env[a.id] if type(a) is Var else _read(ctx, env, a) for a in eqn.inputs]
    outs = eqn.prim.lower(ctx, eqn, *ins)
    if eqn.prim.constrain_outputs:
        for v, name in zip(eqn.outputs, outs):
            env[v.id] = ctx.constrain(name, v.type)
    else:
        for v, name in zip(eqn.outputs, outs):
            env[v.id] = name
