"""`sc.export`: `jax.export` for shardc programs, byte-compatible with JAX's.

`sc.export.export(sc.jit(f))(*args)` traces and lowers `f` with shardc (its sharding types, its
StableHLO + Shardy module) and wraps the module in a genuine `jax.export.Exported`: the same
calling convention (`jax.result_info` on results, `jax.uses_shape_polymorphism`, the
`_platform_index` argument when exported for several platforms), the same in/out shardings
(`NamedSharding`s over the export's abstract mesh, as JAX records them) and JAX's flatbuffer
serialization. So `jax.export.deserialize(sc_exp.serialize()).call(x)` runs in JAX, and
`sc.export.deserialize(jax_exp.serialize())` gives an `Exported` that shardc calls, eagerly or
inside `sc.jit`, through the `call_exported` primitive below: its lowering inlines the module's
functions (with unique SSA names) into shardc's emitted module, constraining arguments and results
to the exported shardings as JAX's `call_exported` lowering does.

A JAX export with dimension variables (shape polymorphism) is called at concrete shapes: JAX
solves the variables and its shape refinement specializes the module before it is inlined.

What is left out, and why (each raises `ShardcNotImplementedError` naming JAX's feature):
making shape-polymorphic exports (`symbolic_shape`, `symbolic_args_specs`, `SymbolicScope`: shardc
types have no symbolic dimensions), host callbacks (JAX cannot serialize them either), calling an exported
module with ordered effects (token arguments) or inside `shard_map`, exporting one program
for several platforms whose modules differ (JAX selects per platform with `platform_dependent`),
and typed PRNG key arrays in a signature (JAX's `key<impl>` avals vs shardc's uint32-data pytree).
Integer and bool values get JAX's float0 cotangents in exported VJPs (bool placeholders in the module;
shardc's `in_avals` / `out_avals` show them as `bool`).

The module's text is inlined because shardc's emitter writes one function (`main`): private
functions and `stablehlo.composite` decompositions are inlined at their call sites too.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Any, Callable, Sequence

import jax
import jax.tree_util as tu
import numpy as np
from jax import export as _jexport
from jax._src import config as _jconfig
from jax._src import core as _jcore
from jax._src import linear_util as _lu
from jax._src import mesh as _jmesh
from jax._src import tree_util as _jtu
from jax._src.export import _export as _jex
from jax._src.export import shape_poly as _shape_poly
from jax._src.interpreters import mlir as _jmlir
from jax._src.lib import _jax
from jax._src.lib.mlir import ir as _ir
from jax._src.lib.mlir import passmanager as _passmanager
from jax.sharding import NamedSharding as _JNamedSharding

from . import dtypes as dt
from .autodiff import vjp as _sc_vjp
from .core import Primitive, bind, current_trace
from .emit.stablehlo import emit_module
from .emit.text import sdy_spec_body, ttype
from .errors import ShardcNotImplementedError, ShardcTypeError, ShardcValueError
from .ir import Program, Var
from .mesh import AbstractMesh, get_abstract_mesh
from .ops.creation import asarray, zeros
from .ops.custom import custom_vjp
from .runtime.devices import default_devices
from .runtime.jaxbridge import abstract_mesh_of_jax, spec_from_jax, to_jax_spec
from .runtime.mesh import Mesh, get_mesh
from .shapes import ShapeDtypeStruct
from .sharding import UNCONSTRAINED, NamedSharding, PartitionSpec
from .stages import Jit, _platform_name
from .stages import jit as _sc_jit
from .transforms import ad, batching
from .types import ArrayType, as_type, visible_entry

__all__ = [
    "Exported", "export", "deserialize", "call", "DisabledSafetyCheck", "default_export_platform",
    "minimum_supported_calling_convention_version", "maximum_supported_calling_convention_version",
    "register_pytree_node_serialization", "register_namedtuple_serialization",
    "symbolic_shape", "symbolic_args_specs", "SymbolicScope", "is_symbolic_dim",
]

#: JAX's: the serialization (and its pytree registries) is JAX's own, so these are shared
DisabledSafetyCheck = _jexport.DisabledSafetyCheck
default_export_platform = _jexport.default_export_platform
minimum_supported_calling_convention_version = _jexport.minimum_supported_calling_convention_version
maximum_supported_calling_convention_version = _jexport.maximum_supported_calling_convention_version
register_pytree_node_serialization = _jexport.register_pytree_node_serialization
register_namedtuple_serialization = _jexport.register_namedtuple_serialization
is_symbolic_dim = _jexport.is_symbolic_dim   # (True only for JAX's dimension expressions)

_NO_SYMBOLIC = ("shardc has no symbolic dimensions: every sharding type has a concrete shape, and "
                "shape-polymorphic export needs symbolic shapes through every rule")


def symbolic_shape(*args, **kwargs):
    """JAX's `jax.export.symbolic_shape`: not in shardc (see the module docstring)."""
    raise ShardcNotImplementedError(f"jax.export.symbolic_shape (shape polymorphism): {_NO_SYMBOLIC}")


def symbolic_args_specs(*args, **kwargs):
    """JAX's `jax.export.symbolic_args_specs`: not in shardc."""
    raise ShardcNotImplementedError(f"jax.export.symbolic_args_specs (shape polymorphism): {_NO_SYMBOLIC}")


class SymbolicScope:
    """JAX's `jax.export.SymbolicScope`: not in shardc."""

    def __init__(self, *args, **kwargs):
        raise ShardcNotImplementedError(f"jax.export.SymbolicScope (shape polymorphism): {_NO_SYMBOLIC}")


# === conversions between shardc's types and JAX's avals / shardings ====================================

def _jax_abstract_mesh(mesh: AbstractMesh):
    """The `jax.sharding.AbstractMesh` of a shardc abstract mesh (with its device kind, as JAX's
    `Mesh.abstract_mesh` carries it; a mesh without one takes the default device's)."""
    ad = mesh.abstract_device
    if ad is None:
        d = default_devices()[0]
        cores = {"tpu": "num_cores", "gpu": "core_count"}.get(d.platform)
        ad = _jmesh.AbstractDevice(d.device_kind, getattr(d, cores, None) if cores else None, d.platform)
    else:
        ad = _jmesh.AbstractDevice(ad.device_kind, ad.num_cores, ad.platform)
    types = tuple(getattr(jax.sharding.AxisType, t.value) for t in mesh.axis_types)
    return _jmesh.AbstractMesh(tuple(mesh.axis_sizes), tuple(mesh.axis_names), types, abstract_device=ad)


def _jax_sharding(jmesh, spec: PartitionSpec) -> _JNamedSharding:
    return _JNamedSharding(jmesh, to_jax_spec(spec), memory_kind="device")


def _jax_aval(t: ArrayType, jmesh):
    """JAX's `ShapedArray` for a shardc type (its sharding on the export's abstract mesh)."""
    if t.mesh.empty:
        return _jcore.ShapedArray(t.shape, t.dtype, weak_type=t.weak_type)
    return _jcore.ShapedArray(t.shape, t.dtype, weak_type=t.weak_type, sharding=_JNamedSharding(jmesh, to_jax_spec(t.pspec)))


def _type_of_aval(aval, fun_name: str) -> ArrayType:
    """shardc's type of one of an Exported's avals (JAX's `ShapedArray` with a sharding)."""
    if jax.dtypes.issubdtype(aval.dtype, jax.dtypes.extended):
        raise ShardcNotImplementedError(f"the exported function '{fun_name}' takes or returns {aval}: {_NO_KEYS}")
    if not _jcore.is_constant_shape(aval.shape):
        raise ShardcNotImplementedError(
            f"the exported function '{fun_name}' has symbolic (shape-polymorphic) shapes {aval.shape}: "
            f"{_NO_SYMBOLIC}")
    shape = tuple(int(d) for d in aval.shape)
    sh = getattr(aval, "sharding", None)
    if aval.dtype == jax.dtypes.float0:   # (a cotangent of an integer value: a bool placeholder, as JAX lowers it)
        aval = _jcore.ShapedArray(aval.shape, np.bool_, sharding=sh)
    jm = getattr(sh, "mesh", None)
    if jm is None or not getattr(jm, "axis_names", ()):
        return ArrayType(shape, dt.canonicalize(aval.dtype), (None,) * len(shape), weak_type=bool(aval.weak_type))
    mesh = abstract_mesh_of_jax(jm)
    spec = spec_from_jax(sh.spec)
    ents = tuple(visible_entry(e, mesh) for e in spec) + (None,) * (len(shape) - len(spec))
    return ArrayType(shape, dt.canonicalize(aval.dtype), ents, spec.unreduced, spec.reduced, frozenset(), mesh,
                     bool(aval.weak_type))


def _sc_spec(jspec) -> PartitionSpec:
    """shardc's spec for a JAX spec (JAX's `UNCONSTRAINED` entries as shardc's)."""
    u = jax.sharding.PartitionSpec.UNCONSTRAINED
    entries = tuple(getattr(jspec, "partitions", None) or tuple(jspec))
    return spec_from_jax(jax.sharding.PartitionSpec(
        *[None if e is u else e for e in entries], unreduced=set(jspec.unreduced), reduced=set(jspec.reduced))) \
        if u not in entries else PartitionSpec(*[UNCONSTRAINED if e is u else e for e in entries],
                                               unreduced=frozenset(jspec.unreduced), reduced=frozenset(jspec.reduced))


def _same_mesh(a, b) -> bool:
    return (tuple(a.axis_sizes) == tuple(b.axis_sizes) and tuple(a.axis_names) == tuple(b.axis_names)
            and tuple(t.name if hasattr(t, "name") else str(t) for t in a.axis_types)
            == tuple(t.name if hasattr(t, "name") else str(t) for t in b.axis_types))


# === Exported ==========================================================================================

class Exported:
    """A shardc (or JAX) function lowered to StableHLO, as `jax.export.Exported`.

    It holds a genuine `jax.export.Exported` (`serialize()` is JAX's flatbuffer); the fields are
    JAX's, with `in_avals` / `out_avals` as shardc types (printing as JAX's `ShapedArray`s) and
    `in_shardings_jax(mesh)` giving shardc `NamedSharding`s. `call` runs it in shardc.
    """

    def __init__(self, jexp: _jex.Exported):
        self._jax = jexp
        self._avals: tuple | None = None
        self._inlinable = None

    # --- JAX's fields ---------------------------------------------------------------------------
    fun_name = property(lambda self: self._jax.fun_name)
    in_tree = property(lambda self: self._jax.in_tree)
    out_tree = property(lambda self: self._jax.out_tree)
    in_shardings_hlo = property(lambda self: self._jax.in_shardings_hlo)
    out_shardings_hlo = property(lambda self: self._jax.out_shardings_hlo)
    nr_devices = property(lambda self: self._jax.nr_devices)
    platforms = property(lambda self: self._jax.platforms)
    ordered_effects = property(lambda self: self._jax.ordered_effects)
    unordered_effects = property(lambda self: self._jax.unordered_effects)
    disabled_safety_checks = property(lambda self: self._jax.disabled_safety_checks)
    mlir_module_serialized = property(lambda self: self._jax.mlir_module_serialized)
    calling_convention_version = property(lambda self: self._jax.calling_convention_version)
    module_kept_var_idx = property(lambda self: self._jax.module_kept_var_idx)
    uses_global_constants = property(lambda self: self._jax.uses_global_constants)

    @property
    def _poly(self) -> bool:
        """Exported with symbolic (shape-polymorphic) dimensions (by JAX: shardc cannot make them)."""
        return not all(_jcore.is_constant_shape(a.shape) for a in self._jax.in_avals)

    def _types(self) -> tuple:
        """shardc's types of the avals; a shape-polymorphic export's are JAX's own `ShapedArray`s
        (their dimension expressions have no shardc type)."""
        if self._avals is None and self._poly:
            self._avals = (tuple(self._jax.in_avals), tuple(self._jax.out_avals))
        if self._avals is None:
            name = self.fun_name
            self._avals = (tuple(_type_of_aval(a, name) for a in self._jax.in_avals),
                           tuple(_type_of_aval(a, name) for a in self._jax.out_avals))
        return self._avals

    @property
    def in_avals(self) -> tuple[ArrayType, ...]:
        return self._types()[0]

    @property
    def out_avals(self) -> tuple[ArrayType, ...]:
        return self._types()[1]

    def mlir_module(self, serialized: bool = True):
        """The module as text (JAX's `Exported.mlir_module`)."""
        return self._jax.mlir_module(serialized)

    def __str__(self) -> str:
        return f"Exported(fun_name={self.fun_name}, ...)"

    __repr__ = __str__

    def _shardings(self, named, avals, mesh) -> tuple:
        out = []
        for ns, t in zip(named, avals):
            if ns is None:
                out.append(None)
                continue
            if mesh is None:
                out.append(NamedSharding(abstract_mesh_of_jax(ns.mesh), _sc_spec(ns.spec)))
                continue
            if not _same_mesh(getattr(mesh, "abstract_mesh", mesh), ns.mesh):
                raise ShardcValueError(f"NamedSharding new mesh {mesh} does not match the mesh used for export "
                                       f"{ns.mesh}.")
            out.append(NamedSharding(mesh, _sc_spec(ns.spec)))
        return tuple(out)

    def in_shardings_jax(self, mesh: Mesh | AbstractMesh) -> tuple[NamedSharding | None, ...]:
        """The input shardings on `mesh` (same axis names, sizes and types as the export's), as
        `jax.export.Exported.in_shardings_jax`: to place arguments with `sc.device_put`."""
        return self._shardings(self._jax._in_named_shardings, self.in_avals, mesh)

    def out_shardings_jax(self, mesh: Mesh | AbstractMesh) -> tuple[NamedSharding | None, ...]:
        return self._shardings(self._jax._out_named_shardings, self.out_avals, mesh)

    def has_vjp(self) -> bool:
        return self._jax.has_vjp()

    def vjp(self) -> "Exported":
        """The exported VJP: takes the flat primal arguments then one cotangent per flat result,
        returns one cotangent per flat primal argument (JAX's convention)."""
        if not self._jax.has_vjp():
            raise ShardcValueError("No VJP is available")
        if self.__dict__.get("_vjp") is None:   # made once (its programs are then compiled once)
            self._vjp = Exported(self._jax.vjp())
        return self._vjp

    def serialize(self, vjp_order: int = 0) -> bytearray:
        """JAX's serialization (`jax.export.deserialize` reads it back, as does `sc.export.deserialize`)."""
        try:
            return self._jax.serialize(vjp_order=vjp_order)
        except TypeError as e:   # JAX's own: its serializer cannot write UNCONSTRAINED dims (mixed meshes)
            raise ShardcTypeError(f"{e} (jax.export cannot serialize the UNCONSTRAINED dims that exports on meshes "
                                  "mixing Explicit and Auto axes record; JAX raises this TypeError too)") from None

    def call(self, *args, **kwargs):
        """Run it on shardc (or JAX) arrays, eagerly or inside `sc.jit` (reverse-mode
        differentiable when the export has a VJP), as `jax.export.Exported.call`."""
        return call(self)(*args, **kwargs)


def deserialize(blob: bytes | bytearray) -> Exported:
    """An `Exported` from bytes written by `Exported.serialize` (shardc's or JAX's)."""
    return Exported(_jexport.deserialize(bytearray(blob)))


# === export ============================================================================================

def _is_leaf(x) -> bool:
    return isinstance(x, (ArrayType, str, ShapeDtypeStruct)) or getattr(x, "_shardc_type", None) is not None


def _arg_sharding(a, jmesh, ctx_mesh: AbstractMesh):
    """What JAX records as an argument's in-sharding: the sharding it was placed or declared with,
    spelled as written (None: unspecified, as a host array's)."""
    if isinstance(a, ShapeDtypeStruct):
        s = a.sharding
        if s is None:
            return None
        spec = s.spec if isinstance(s, NamedSharding) else s
        return _jax_sharding(jmesh, spec) if jmesh is not None else None
    if getattr(a, "_shardc_type", None) is not None:
        if getattr(a, "_mesh", None) is None or jmesh is None:
            return None
        return _jax_sharding(jmesh, a.sharding.spec)
    if isinstance(a, jax.Array):
        s = a.sharding
        if isinstance(s, _JNamedSharding) and s.mesh.axis_names and jmesh is not None:
            return _JNamedSharding(jmesh, s.spec, memory_kind="device")
        return None
    if isinstance(a, (ArrayType, str)) and jmesh is not None:
        t = as_type(a, ctx_mesh)   # a type (string) is declared like a ShapeDtypeStruct with its sharding
        return None if t.mesh.empty else _jax_sharding(jmesh, t.pspec)
    return None


def _sds_with_sharding(a, ctx: AbstractMesh):
    """A `ShapeDtypeStruct` whose sharding is a bare `P` (JAX's: on the context mesh) with it as a
    `NamedSharding` on that mesh, so shardc's tracing reads its type."""
    if isinstance(a, ShapeDtypeStruct) and isinstance(a.sharding, PartitionSpec):
        m = get_mesh()
        mesh = m if m is not None else ctx
        if mesh.empty:
            raise ShardcValueError("a ShapeDtypeStruct with a PartitionSpec sharding needs a mesh: "
                                   "`with sc.set_mesh(mesh):`")
        return ShapeDtypeStruct(a.shape, a.dtype, sharding=NamedSharding(mesh, a.sharding), weak_type=a.weak_type)
    return a


_NO_KEYS = ("JAX exports typed PRNG key arrays (jax.random.key) with their extended `key<impl>` dtype in "
            "the signature; shardc's key arrays are a pytree over their uint32 key data, so the calling "
            "conventions would differ: pass `sc.random.key_data(k)` and wrap it inside with `wrap_key_data`")


def _check_specs(leaves: Sequence[Any], fun_name: str) -> None:
    for a in leaves:
        if getattr(a, "_key_ops", None) is not None:
            raise ShardcNotImplementedError(f"exporting `{fun_name}` with a key array argument: {_NO_KEYS}")
        shape = getattr(a, "shape", ())
        if any(_jexport.is_symbolic_dim(d) for d in shape):
            raise ShardcNotImplementedError(
                f"exporting `{fun_name}` with symbolic dimensions {tuple(shape)} (jax.export shape "
                f"polymorphism): {_NO_SYMBOLIC}")


def _result_infos(out_tree) -> list[str]:
    """JAX's `jax.result_info` of each flat result: `result`, `result[0]`, `result['a']`, …"""
    paths = [p for p, _ in tu.tree_flatten_with_path(tu.tree_unflatten(out_tree, [0] * out_tree.num_leaves))[0]]
    return [f"result{_lu._clean_keystr_arg_names(p)}" for p in paths]


_BUFFER_LOC = re.compile(r'loc\("-":\d+:\d+\)')
_PLATFORM_ARG = '%_platform_index: tensor<i32> {jax.global_constant = "_platform_index"}'


def _canonical_platform(p: str) -> str:
    p = p.lower()
    return {"gpu": "cuda"}.get(p, p)


def _module_bytes(text: str, out_tree, n_platforms: int, disabled_checks) -> bytes:
    """The portable artifact of shardc's module with JAX's calling convention added: the
    `_platform_index` first argument when exported for several platforms, `jax.result_info` on
    results, `jax.uses_shape_polymorphism`; checked with JAX's export checks (custom calls)."""
    if n_platforms > 1:
        head = "func.func public @main("
        i = text.index(head) + len(head)
        text = text[:i] + _PLATFORM_ARG + ("" if text[i] == ")" else ", ") + text[i:]
    ctx = _jmlir.make_ir_context()
    with ctx, _ir.Location.unknown(ctx):
        # what shardc leaves unlocated (module, function, arguments) is unknown, not the parser's buffer position
        located = _ir.Module.parse(text).operation.get_asm(enable_debug_info=True)
        module = _ir.Module.parse(_BUFFER_LOC.sub("loc(unknown)", located))
        main = _ir.SymbolTable(module.operation)["main"]
        infos = _result_infos(out_tree)
        n = len(main.type.results)
        old = list(_ir.ArrayAttr(main.result_attrs)) if "res_attrs" in main.attributes else [None] * n
        new = []
        for attrs, info in zip(old, infos + [""] * (n - len(infos))):
            d = {a.name: a.attr for a in _ir.DictAttr(attrs)} if attrs is not None else {}
            d["jax.result_info"] = _ir.StringAttr.get(info)
            new.append(_ir.DictAttr.get(d))
        main.result_attrs = _ir.ArrayAttr.get(new)
        module.operation.attributes["jax.uses_shape_polymorphism"] = _ir.BoolAttr.get(n_platforms > 1)
        shardy = _jex.has_sdy_mesh(_ir.SymbolTable(module.operation), module)
        _jex._check_module(module, disabled_checks=disabled_checks, shardy_enabled=shardy)
        return _jex._module_to_bytecode(module)


def _named_shardings_out(fun_jit: Jit, out_types: Sequence[ArrayType], jmesh) -> tuple:
    n = len(out_types)
    decl = fun_jit.out_shardings
    if isinstance(decl, (PartitionSpec, NamedSharding)):
        decl = [decl] * n
    decl = list(decl) if isinstance(decl, (list, tuple)) and len(decl) == n else [None] * n
    out = []
    for t, d in zip(out_types, decl):
        if jmesh is None:
            out.append(None)
        elif d is not None:
            out.append(_jax_sharding(jmesh, d.spec if isinstance(d, NamedSharding) else d))
        elif t.mesh.has_explicit and t.mesh.auto_axes:   # JAX leaves the dims its type does not shard to XLA
            u = jax.sharding.PartitionSpec.UNCONSTRAINED
            out.append(_JNamedSharding(jmesh, jax.sharding.PartitionSpec(
                *[u if e is None else e for e in t.spec], unreduced=set(t.unreduced), reduced=set(t.reduced)),
                memory_kind="device"))
        elif t.mesh.has_explicit:
            out.append(_jax_sharding(jmesh, t.pspec))
        else:
            out.append(None)
    return tuple(out)


def _split_static(fun_jit: Jit, args: tuple, kwargs: dict):
    n = len(args)
    static = {i if i >= 0 else i + n for i in fun_jit.static_argnums}
    dyn_args = tuple(a for i, a in enumerate(args) if i not in static)
    dyn_kwargs = {k: v for k, v in kwargs.items() if k not in fun_jit.static_argnames}
    return dyn_args, dyn_kwargs, static


def export(fun_jit: Jit, *, platforms: Sequence[str] | None = None,
           disabled_checks: Sequence[DisabledSafetyCheck] = ()) -> Callable[..., Exported]:
    """Export an `sc.jit` program for the argument specs given to the returned function (arrays,
    `sc.ShapeDtypeStruct`s with `sharding=`, type strings), as `jax.export.export`."""
    if not isinstance(fun_jit, Jit):
        raise ShardcValueError(f"Function to be exported must be the result of `jit` but is: {fun_jit}")
    plats = tuple(_canonical_platform(p) for p in platforms) if platforms is not None \
        else (_canonical_platform(default_export_platform()),)

    def do_export(*args_specs, **kwargs_specs) -> Exported:
        ctx_mesh = get_abstract_mesh()
        args_specs = tu.tree_map(lambda a: _sds_with_sharding(a, ctx_mesh), args_specs, is_leaf=_is_leaf)
        kwargs_specs = tu.tree_map(lambda a: _sds_with_sharding(a, ctx_mesh), kwargs_specs, is_leaf=_is_leaf)
        _check_specs(tu.tree_leaves((args_specs, kwargs_specs),
                                    is_leaf=lambda a: _is_leaf(a) or getattr(a, "_key_ops", None) is not None),
                     fun_jit.name)
        lowered = fun_jit.lower(*args_specs, **kwargs_specs)
        return _export_lowered(fun_jit, lowered, args_specs, kwargs_specs, plats, tuple(disabled_checks))

    return do_export


def _export_lowered(fun_jit: Jit, lowered, args_specs: tuple, kwargs_specs: dict, plats: tuple,
                    disabled_checks: tuple) -> Exported:
    traced = lowered.traced
    prog = lowered.program
    if lowered.host_callbacks:
        raise ShardcNotImplementedError("serialization of host_callbacks is not yet implemented "
                                        "(as jax.export: sc.debug.print / pure_callback cannot be exported)")
    kept = _kept_args(prog)
    layouts, aliases = lowered.in_layouts, traced.aliases
    if len(kept) < len(prog.in_vars):   # as JAX's lowering: unused arguments are not module arguments
        prog = Program(prog.name, [prog.in_vars[i] for i in kept], prog.eqns, prog.outputs, prog.mesh,
                       out_tree=prog.out_tree)
        layouts = None if layouts is None else [layouts[i] for i in kept]
        aliases = {kept.index(i): r for i, r in traced.aliases.items() if i in kept}
    here = _canonical_platform(_platform_name())
    texts = {}
    for p in plats:
        if p == here and len(kept) == len(lowered.program.in_vars):
            texts[p] = lowered.as_text(locations=True)
        else:
            cbs: list = []
            texts[p] = emit_module(prog, locations=True, in_layouts=layouts, aliases=aliases, host_callbacks=cbs,
                                   platform=p)
    if len(set(texts.values())) > 1:
        raise ShardcNotImplementedError(
            f"`{fun_jit.name}` lowers differently on the platforms {plats} (platform-specific custom calls); "
            "JAX's multi-platform export selects the lowering with lax.platform_dependent on the platform index "
            "argument, which shardc does not emit: export for each platform separately")
    text = texts[plats[0]]
    dyn_args, dyn_kwargs, _ = _split_static(fun_jit, args_specs, kwargs_specs)
    if not args_specs and not kwargs_specs and traced.program.in_vars and fun_jit._sig:
        # typed by its parameters' type strings: called with one argument per parameter
        dyn_args = tuple(tu.tree_unflatten(fun_jit._sig_tree, fun_jit._sig_flat))
    in_tree = tu.tree_structure((tuple(dyn_args), dyn_kwargs), is_leaf=_is_leaf)
    in_leaves = tu.tree_leaves((tuple(dyn_args), dyn_kwargs), is_leaf=_is_leaf)
    in_types = list(traced.program.in_types)
    out_types = list(traced.program.out_types)
    out_tree = traced.program.out_tree
    if "KeyArray" in str(out_tree):
        raise ShardcNotImplementedError(f"exporting `{fun_jit.name}` with a key array result: {_NO_KEYS}")
    if out_tree is None:
        out_tree = tu.tree_structure(tuple(range(len(out_types))))
    mesh = prog.mesh
    jmesh = None if mesh.empty else _jax_abstract_mesh(mesh)
    if len(in_leaves) != len(in_types):
        in_leaves = [None] * len(in_types)
    decl = fun_jit.declared_placements(len(in_types)) if fun_jit.in_shardings is not None else [None] * len(in_types)
    in_named = tuple(
        None if i not in kept else
        (_jax_sharding(jmesh, d) if d is not None and jmesh is not None else _arg_sharding(a, jmesh, mesh))
        for i, (a, d) in enumerate(zip(in_leaves, decl)))
    out_named = _named_shardings_out(fun_jit, out_types, jmesh)
    module = _module_bytes(text, out_tree, len(plats), disabled_checks)
    version = _jconfig.jax_export_calling_convention_version.value
    if not (minimum_supported_calling_convention_version <= version <= maximum_supported_calling_convention_version):
        raise ShardcValueError(
            f"The requested export calling convention version {version} is outside the range of supported "
            f"versions [{minimum_supported_calling_convention_version}..{maximum_supported_calling_convention_version}]")
    holder: list[Exported] = []

    def get_vjp(_jexp) -> _jex.Exported:
        return _export_vjp(fun_jit, holder[0], args_specs, kwargs_specs)._jax

    jexp = _jex.Exported(
        fun_name=fun_jit.name, in_tree=in_tree, out_tree=out_tree,
        in_avals=tuple(_jax_aval(t, jmesh) for t in in_types),
        out_avals=tuple(_jax_aval(t, jmesh) for t in out_types),
        _has_named_shardings=True, _in_named_shardings=in_named, _out_named_shardings=out_named,
        in_shardings_hlo=(None,) * len(in_named), out_shardings_hlo=(None,) * len(out_named),
        nr_devices=max(mesh.size, 1) if not mesh.empty else 1, platforms=plats,
        ordered_effects=(), unordered_effects=(), disabled_safety_checks=disabled_checks,
        mlir_module_serialized=module, calling_convention_version=version,
        module_kept_var_idx=tuple(kept), uses_global_constants=len(plats) > 1,
        _get_vjp=get_vjp)
    exp = Exported(jexp)
    holder.append(exp)
    return exp


def _kept_args(prog: Program) -> list[int]:
    """The arguments the program uses (JAX's `kept_var_idx`): the others are dropped from the module."""
    used = {a.id for e in prog.eqns for a in e.inputs if type(a) is Var}
    used |= {a.id for a in prog.outputs if type(a) is Var}
    return [i for i, v in enumerate(prog.in_vars) if v.id in used]


def _export_vjp(fun_jit: Jit, primal: Exported, args_specs: tuple, kwargs_specs: dict) -> Exported:
    """The VJP of an exported shardc program, exported too (JAX's `_get_vjp_fun`): flat primal
    arguments then one cotangent per flat result in, one cotangent per flat argument out."""
    n_args = len(primal.in_avals)
    in_tree = primal.in_tree
    dyn_args, dyn_kwargs, static = _split_static(fun_jit, args_specs, kwargs_specs)
    n_pos = len(args_specs)

    def full_call(*dyn, **kw):
        it = iter(dyn)
        full = [args_specs[i] if i in static else next(it) for i in range(n_pos)]
        kw.update({k: v for k, v in kwargs_specs.items() if k in fun_jit.static_argnames})
        return fun_jit(*full, **kw)

    def flat_primal(*xs):
        a, k = tu.tree_unflatten(in_tree, list(xs))
        return tu.tree_leaves(full_call(*a, **k))

    int_in = [not _differentiable(t.dtype) for t in primal.in_avals]
    int_out = [not _differentiable(t.dtype) for t in primal.out_avals]

    def fun_vjp(*flat):
        # integer/bool arguments are held fixed, their results get no cotangent (float0 in JAX's
        # convention: the cotangent arguments are unused, the cotangent results are `false`s)
        primals, cts = flat[:n_args], flat[n_args:]

        def float_primal(*xs):
            it = iter(xs)
            merged = [p if b else next(it) for p, b in zip(primals, int_in)]
            return [o for o, b in zip(flat_primal(*merged), int_out) if not b]
        _, pull = _sc_vjp(float_primal, *[p for p, b in zip(primals, int_in) if not b])
        fcts = iter(pull([c for c, b in zip(cts, int_out) if not b]))
        return tuple(zeros(t.shape, np.bool_, out_sharding=None if t.mesh.empty else NamedSharding(t.mesh, t.pspec)) if b else next(fcts)
                     for t, b in zip(primal.in_avals, int_in))

    in_named = primal.in_shardings_jax(None)
    out_named = primal.out_shardings_jax(None)

    def sds(t: ArrayType, s):
        return ShapeDtypeStruct(t.shape, t.dtype, sharding=s if s is not None else (
            None if t.mesh.empty else NamedSharding(t.mesh, t.pspec)))

    specs = [sds(t, s) for t, s in zip(primal.in_avals, in_named)] + \
            [sds(t.update(dtype=np.dtype(np.bool_)) if b else t, s)
             for t, s, b in zip(primal.out_avals, out_named, int_out)]
    vjp_jit = _sc_jit(fun_vjp)
    vjp_jit.name = f"vjp_{fun_jit.name}"
    exp = export(vjp_jit, platforms=primal.platforms, disabled_checks=primal.disabled_safety_checks)(*specs)
    if not any(int_in) and not any(int_out):
        return exp
    # JAX's avals: float0 for the cotangents of integer values (bool placeholders in the module)
    f0 = lambda a, b: _jcore.ShapedArray(a.shape, jax.dtypes.float0, sharding=a.sharding) if b else a  # noqa: E731
    j = exp._jax
    j = dataclasses.replace(j, in_avals=tuple(f0(a, b) for a, b in zip(j.in_avals, [False] * n_args + int_out)),
                            out_avals=tuple(f0(a, b) for a, b in zip(j.out_avals, int_in)))
    return Exported(j)


def _differentiable(dtype) -> bool:
    return jax.dtypes.issubdtype(dtype, np.inexact)


# === calling an Exported ===============================================================================

def call(exported: Exported) -> Callable[..., Any]:
    """`exported` as a function of arrays (JAX's `jax.export.call`)."""
    if not isinstance(exported, Exported):
        raise ShardcValueError(f"The exported argument must be an export.Exported. Found {exported}.")
    for aval in exported._jax.in_avals + exported._jax.out_avals:
        if jax.dtypes.issubdtype(aval.dtype, jax.dtypes.extended):
            raise ShardcNotImplementedError(
                f"calling the exported function '{exported.fun_name}', which takes or returns {aval}: {_NO_KEYS}")

    def f_flat(*args_flat):
        return bind(call_exported_p, *args_flat, exported=exported)

    if exported.has_vjp():
        f_flat = custom_vjp(f_flat)

        def fwd(*args_flat):
            return bind(call_exported_p, *args_flat, exported=exported), args_flat

        def bwd(res, cts):
            cts = [np.zeros(a.shape, jax.dtypes.float0) if not _differentiable(a.dtype) else c
                   for c, a in zip(cts, exported._jax.out_avals)]
            return tuple(exported.vjp().call(*res, *cts))

        f_flat.defvjp(fwd, bwd)

    def f_imported(*args, **kwargs):
        args_flat, in_tree = tu.tree_flatten((args, kwargs))
        if in_tree != exported.in_tree:
            in_args = in_tree.unflatten([0] * in_tree.num_leaves)
            exp_in_args = exported.in_tree.unflatten([0] * exported.in_tree.num_leaves)
            msg = (
                "The invocation args and kwargs must have the same pytree structure "
                f"as when the function '{exported.fun_name}' was exported, but they "
                "have the following structural differences:\n" +
                ("\n".join(
                    f"   - {_shape_poly.args_kwargs_path_to_str(path)} is a {thing1} in the invocation and a "
                    f"{thing2} when exported, so {explanation}.\n"
                    for path, thing1, thing2, explanation
                    in _jtu.equality_errors(in_args, exp_in_args))))
            raise ShardcValueError(msg)
        # float0 (the cotangent of an integer value) travels as a bool placeholder, as JAX lowers it
        args_flat = [np.zeros(a.shape, np.bool_) if getattr(a, "dtype", None) == jax.dtypes.float0 else a
                     for a in args_flat]
        if current_trace() is None:   # host data become arrays: one program for every value, as JAX's
            args_flat = [a if _is_array_like(a) else asarray(a) for a in args_flat]
        outs = [np.zeros(a.shape, jax.dtypes.float0) if a.dtype == jax.dtypes.float0 else o
                for o, a in zip(f_flat(*args_flat), exported._jax.out_avals)]
        return exported.out_tree.unflatten(outs)

    return f_imported


def _is_array_like(a) -> bool:
    return getattr(a, "_shardc_type", None) is not None or isinstance(a, jax.Array)


class CallExported(Primitive):
    """A call of an `Exported`'s module (JAX's `call_exported_p`): results typed by the
    exported avals and shardings; lowered by inlining the module's functions."""

    name = "call_exported"
    multiple_results = True

    def shape_rule(self, *ins: ArrayType, exported: Exported):
        if exported._poly:
            return [(t.shape, t.dtype, t.weak_type) for t in _poly_out_avals(exported, ins)]
        exp_in = exported.in_avals
        if len(ins) != len(exp_in):
            raise ShardcValueError(f"call_exported: {len(ins)} arguments for {len(exp_in)} inputs")
        tree = exported.in_tree
        for i, (e, a) in enumerate(zip(exp_in, ins)):
            if len(e.shape) != len(a.shape):
                raise ShardcValueError(
                    f"Rank mismatch for {_shape_poly.pretty_print_dimension_descriptor(tree, i, None)}: "
                    f"expected {e.shape} and called with {a.shape}")
            if e.dtype != a.dtype:
                raise ShardcValueError(
                    f"Dtype mismatch for {_shape_poly.pretty_print_dimension_descriptor(tree, i, None)}: "
                    f"expected {e.dtype} and called with {a.dtype}")
            for d, (x, y) in enumerate(zip(e.shape, a.shape)):
                if x != y:
                    raise ShardcValueError(
                        f"Shape mismatch for {_shape_poly.pretty_print_dimension_descriptor(tree, i, d)} "
                        f"(expected same constant): expected {e.shape} and called with {a.shape}")
        return [(t.shape, t.dtype, t.weak_type) for t in exported.out_avals]

    def sharding_rule(self, *ins: ArrayType, exported: Exported):
        mesh = ins[0].mesh if ins else get_abstract_mesh()
        out = []
        for (ndim, spec), ns in zip(_out_specs(exported, ins), exported._jax._out_named_shardings):
            if ns is None or not ns.mesh.axis_names:
                out.append((None,) * ndim)
                continue
            if not _same_mesh(mesh, ns.mesh):
                raise ShardcValueError(
                    f"Function {exported.fun_name} was exported on the mesh {ns.mesh} and is called on {mesh!r}; "
                    "call it under a mesh with the same axis names, sizes and types")
            out.append(tuple(visible_entry(e, mesh) for e in spec) + (None,) * (ndim - len(spec)))
        return out

    def ur_rule(self, *ins: ArrayType, exported: Exported):
        return [(spec.unreduced, spec.reduced) for _, spec in _out_specs(exported, ins)]

    def vma_rule(self, *ins: ArrayType, exported: Exported):
        if any(t.vma for t in ins):
            raise ShardcNotImplementedError(
                f"calling the exported function '{exported.fun_name}' inside shard_map (varying manual axes): "
                "not supported by shardc")
        return [frozenset()] * len(exported._jax.out_avals)

    def format_params(self, params) -> str:
        return f"exported={params['exported'].fun_name}"

    def vjp(self, L, g, ins, outs, *, exported: Exported):
        """Never reached through `Exported.call`, whose `custom_vjp` differentiates with the exported
        VJP module (`Exported.vjp()`); a bare bind has no derivative."""
        raise ShardcNotImplementedError(
            f"differentiating a bare call_exported of '{exported.fun_name}': call it as `exported.call(...)`, "
            "which differentiates through the exported VJP")

    def batch(self, B, axis, args, dims, *, exported: Exported):
        """JAX has no batching rule for `call_exported_p` either."""
        raise ShardcNotImplementedError("Batching rule for 'call_exported' not implemented")

    def lower(self, ctx, eqn, *args: str) -> list[str]:
        exp = eqn.params["exported"]
        return _lower_call(ctx, exp, [a.type for a in eqn.inputs], [v.type for v in eqn.outputs], list(args))


call_exported_p = CallExported()
# (defined above the primitives package, so its rules are registered here, as primitives/__init__ does)
ad.defvjp(call_exported_p, call_exported_p.vjp)
batching.defbatch(call_exported_p, call_exported_p.batch)


def _poly_out_avals(exp: Exported, ins: Sequence[ArrayType]) -> list[ArrayType]:
    """The result types of a shape-polymorphic export called on `ins` (JAX solves the dimension
    variables from the argument shapes and checks them, with its ValueErrors)."""
    if len(ins) != len(exp._jax.in_avals):
        raise ShardcValueError(f"call_exported: {len(ins)} arguments for {len(exp._jax.in_avals)} inputs")
    avals = tuple(_jcore.ShapedArray(t.shape, t.dtype) for t in ins)
    try:
        outs, _ = _jex._call_exported_abstract_eval(*avals, exported=exp._jax)
    except ValueError as e:
        raise ShardcValueError(str(e)) from None
    return [_type_of_aval(_jcore.ShapedArray(a.shape, a.dtype, weak_type=a.weak_type), exp.fun_name) for a in outs]


def _out_specs(exp: Exported, ins: Sequence[ArrayType]) -> list[tuple[int, PartitionSpec]]:
    """(rank, exported out-sharding spec) of each result."""
    ndims = [len(a.shape) for a in exp._jax.out_avals]
    return [(n, PartitionSpec() if ns is None else _sc_spec(ns.spec))
            for n, ns in zip(ndims, exp._jax._out_named_shardings)]


# --- lowering: inlining the exported module -----------------------------------------------------------

_NAME = r'@("(?:[^"\\]|\\.)*"|[\w$.\-]+)'
_SSA = re.compile(r"%[\w$.\-]+")
_USE = re.compile(r"%[\w$.\-]+(?:#\d+)?")
_CALL = re.compile(r"^(\s*)(?:(%[\w$.\-]+)(?::(\d+))? = )?(?:func\.)?call " + _NAME + r"\(([^)]*)\)")
#: a composite op runs its decomposition (inlined like a call: shardc's module has only `main`)
_COMPOSITE = re.compile(r'^(\s*)(?:(%[\w$.\-]+)(?::(\d+))? = )?stablehlo\.composite "(?:[^"\\]|\\.)*" ([^{]*?)\s*\{.*'
                        r'decomposition = ' + _NAME)
_MESH_LINE = re.compile(r"^\s*sdy\.mesh " + _NAME + r" = <\[(.*?)\](?:, device_ids=\[([\d, ]*)\])?>")
_MESH_REF = re.compile(r"<@([\w$.\-]+)(?=[,>\s])")


class _Func:
    __slots__ = ("arg_types", "body", "ret")

    def __init__(self, arg_types: list[str], body: list[str], ret: list[str]):
        self.arg_types, self.body, self.ret = arg_types, body, ret


class _Module:
    """An exported module split for inlining: its functions (argument types, body lines without
    the final return, returned values) and its meshes (axes, device ids)."""

    def __init__(self, module):
        with module.context, _ir.Location.unknown(module.context):
            if _jex.has_sdy_meshes_in_frontend_attributes(module):
                _passmanager.PassManager.parse("builtin.module(xla-sdy-round-trip-import-shardy-attrs)").run(
                    module.operation)
            _passmanager.PassManager.parse("builtin.module(sdy-lift-inlined-meshes)").run(module.operation)
            self.funcs: dict[str, _Func] = {}
            self.meshes: dict[str, tuple] = {}
            for op in module.body.operations:
                name = op.operation.name
                if name == "sdy.mesh":
                    m = _MESH_LINE.match(op.operation.get_asm(enable_debug_info=False).strip())
                    if m is None:
                        raise ShardcNotImplementedError(f"an exported mesh shardc cannot read: {op}")
                    axes = re.findall(r'"([^"]*)"=(\d+)', m.group(2))
                    ids = tuple(int(x) for x in m.group(3).split(",")) if m.group(3) else None
                    self.meshes[_unquote(m.group(1))] = (tuple(a for a, _ in axes), tuple(int(s) for _, s in axes),
                                                         ids)
                elif name == "func.func":
                    sym = _ir.StringAttr(op.operation.attributes["sym_name"]).value
                    self.funcs[sym] = _split_func(op, sym)

    def mesh_symbol(self, ctx, name: str) -> str:
        names, sizes, ids = self.meshes[name]
        if not names:
            if ids is not None and len(ids) == 1:
                return ctx.maximal_mesh(ids[0])
            return ctx.mesh_symbol(AbstractMesh((), ()))
        if ids is not None and list(ids) != list(range(len(ids))):
            raise ShardcNotImplementedError(f"an exported mesh with device ids {ids} (shardc emits iota meshes)")
        return ctx.mesh_symbol(AbstractMesh(sizes, names))


def _unquote(s: str) -> str:
    return s[1:-1] if s.startswith('"') else s


def _split_func(op, sym: str) -> _Func:
    text = op.operation.get_asm(enable_debug_info=False)
    lines = text.rstrip("\n").split("\n")
    if len(lines) < 2 or lines[-1].strip() != "}":
        raise ShardcNotImplementedError(f"the exported function @{sym} has a form shardc cannot inline")
    body = lines[1:-1]
    last = body[-1].strip() if body else ""
    m = re.match(r"^(?:func\.)?return\b\s*(.*?)(?:\s*:\s*.*)?$", last)
    if m is None or len(op.operation.regions[0].blocks) != 1:
        raise ShardcNotImplementedError(f"the exported function @{sym} has several blocks; shardc inlines one")
    ret = [v.strip() for v in m.group(1).split(",")] if m.group(1).strip() else []
    arg_types = [str(t) for t in _ir.FunctionType(_ir.TypeAttr(op.operation.attributes["function_type"]).value)
                 .inputs]
    return _Func(arg_types, body[:-1], ret)


def _inline(ctx, mod: _Module, fname: str, operands: list[str], depth: int = 0) -> list[str]:
    """Append the body of `fname` (its arguments bound to `operands`) to `ctx`'s lines, every SSA
    name prefixed uniquely; calls are inlined the same way. Returns the values it returns."""
    if depth > 64:
        raise ShardcNotImplementedError("exported functions nested more than 64 calls deep")
    f = mod.funcs.get(fname)
    if f is None:
        raise ShardcNotImplementedError(f"the exported module calls @{fname}, which it does not define")
    prefix = ctx.fresh("xc")[1:] + "_"
    for j, (v, ty) in enumerate(zip(operands, f.arg_types)):
        ctx.lines.append(f"{ctx.indent}%{prefix}arg{j} = stablehlo.convert {v} : ({ty}) -> {ty}")
    subs: dict[str, str] = {}

    def rename(line: str) -> str:
        line = _SSA.sub(lambda m: "%" + prefix + m.group(0)[1:], line)
        if subs:
            line = _USE.sub(lambda m: subs.get(m.group(0), m.group(0)), line)
        return _MESH_REF.sub(lambda m: "<" + mod.mesh_symbol(ctx, m.group(1)), line)

    for raw in f.body:
        line = rename(raw)
        m = _CALL.match(line)
        if m is not None:
            callee, arg_text = m.group(4), m.group(5)
        else:
            m = _COMPOSITE.match(line)
            if m is not None:
                callee, arg_text = m.group(5), m.group(4)
        if m is not None:
            res, n = m.group(2), int(m.group(3) or 1)
            args = [a.strip() for a in arg_text.split(",")] if arg_text.strip() else []
            outs = _inline(ctx, mod, _unquote(callee), args, depth + 1)
            if res is not None:
                if n == 1:
                    subs[res] = outs[0]
                else:
                    subs.update({f"{res}#{i}": o for i, o in enumerate(outs)})
            continue
        indent = len(raw) - len(raw.lstrip())
        ctx.lines.append(ctx.indent + " " * max(indent - 2, 0) + line.lstrip())
    return [rename(v) for v in f.ret]


def _deserialized(exp: Exported):
    ctx = _jmlir.make_ir_context()
    with ctx, _ir.Location.unknown(ctx):
        return _jax.mlir.deserialize_portable_artifact(exp.mlir_module_serialized)


def _refined(exp: Exported, in_types: Sequence[ArrayType], out_types: Sequence[ArrayType], index: int):
    """A shape-polymorphic module specialized to the call's shapes, as JAX compiles one: a new
    `main` of the concrete types calls the exported one (platform index passed), then JAX's shape
    refinement makes every shape static (checking the shape assertions)."""
    module = _deserialized(exp)
    with module.context, _ir.Location.unknown(module.context):
        symtab = _ir.SymbolTable(module.operation)
        main = symtab["main"]
        main.attributes["sym_visibility"] = _ir.StringAttr.get("private")
        symtab.set_symbol_name(main, "_sc_poly_main")
        poly_in = [str(t) for t in main.type.inputs]
        poly_out = [str(t) for t in main.type.results]
        text = module.operation.get_asm(enable_debug_info=False)
    kept = [t for i, t in enumerate(in_types) if i in exp.module_kept_var_idx]
    lines = [f"  func.func public @main({', '.join(f'%a{i}: {ttype(t)}' for i, t in enumerate(kept))}) -> "
             f"({', '.join(ttype(t) for t in out_types)}) {{"]
    ops = []
    if len(exp.platforms) > 1:
        lines.append(f"    %plat = stablehlo.constant dense<{index}> : tensor<i32>")
        ops.append("%plat")
    for i, (t, pt) in enumerate(zip(kept, poly_in[len(ops):])):
        lines.append(f"    %c{i} = stablehlo.convert %a{i} : ({ttype(t)}) -> {pt}")
        ops.append(f"%c{i}")
    n = len(poly_out)
    res = "%r" if n == 1 else f"%r:{n}"
    lines.append(f"    {res} = call @_sc_poly_main({', '.join(ops)}) : ({', '.join(poly_in)}) -> "
                 f"({', '.join(poly_out)})")
    outs = []
    for i, (t, pt) in enumerate(zip(out_types, poly_out)):
        lines.append(f"    %o{i} = stablehlo.convert {'%r' if n == 1 else f'%r#{i}'} : ({pt}) -> {ttype(t)}")
        outs.append(f"%o{i}")
    lines.append(f"    return {', '.join(outs)} : {', '.join(ttype(t) for t in out_types)}" if outs else "    return")
    lines.append("  }")
    end = text.rstrip().rfind("}")
    text = text[:end] + "\n".join(lines) + "\n}\n"
    ctx = _jmlir.make_ir_context()
    with ctx, _ir.Location.unknown(ctx):
        try:
            return _jmlir.refine_polymorphic_shapes(_ir.Module.parse(text))
        except ValueError as e:
            raise ShardcValueError(f"Error refining shapes of the exported function '{exp.fun_name}' for "
                                   f"{[str(t) for t in in_types]}: {str(e).splitlines()[0]}") from None


def _lower_call(ctx, exp: Exported, in_types: list[ArrayType], out_types: list[ArrayType],
                args: list[str]) -> list[str]:
    """JAX's `_call_exported_lowering`, as inlined text: check the device count and platform,
    pass the platform index, constrain the arguments to the exported in-shardings."""
    if exp.ordered_effects:
        raise ShardcNotImplementedError(
            f"calling the exported function '{exp.fun_name}' with ordered effects {exp.ordered_effects} "
            "(token arguments): shardc programs have no effect tokens")
    if ctx.mesh.manual_axes:
        raise ShardcNotImplementedError(
            f"calling the exported function '{exp.fun_name}' inside shard_map: not supported by shardc")
    n = max(ctx.mesh.size, 1) if not ctx.mesh.empty else 1
    if n != exp.nr_devices and exp.nr_devices != 1:
        raise ShardcValueError(
            f"Function {exp.fun_name} was exported for {exp.nr_devices} devices and is called in a context with "
            f"{n} devices, which is not allowed.")
    here = _canonical_platform(ctx.platform)
    if here in exp.platforms:
        index = exp.platforms.index(here)
    elif DisabledSafetyCheck.platform() in exp.disabled_safety_checks:
        index = 0
    else:
        raise ShardcValueError(f"Function '{exp.fun_name}' was exported for platforms '{exp.platforms}' but it "
                               f"is used on '{(here,)}'.")
    if exp._poly:   # specialized to these shapes (the platform index passed inside)
        key = (tuple(in_types), index)
        cache = exp.__dict__.setdefault("_refined", {})
        if key not in cache:
            cache[key] = _Module(_refined(exp, in_types, out_types, index))
        mod = cache[key]
    else:
        if exp._inlinable is None:
            exp._inlinable = _Module(_deserialized(exp))
        mod = exp._inlinable
    operands = []
    if len(exp.platforms) > 1 and not exp._poly:
        operands.append(ctx.op("stablehlo.constant dense<" + str(index) + "> : tensor<i32>"))
    for i, (v, t, ns) in enumerate(zip(args, in_types, exp._jax._in_named_shardings)):
        if i not in exp.module_kept_var_idx:
            continue
        if ns is not None and ns.mesh.axis_names and not ctx.mesh.empty:
            body = sdy_spec_body(_sc_spec(ns.spec), t.ndim, ctx.mesh_symbol(ctx.mesh))
            v = ctx.op(f"sdy.sharding_constraint {v} <{body}> : {ttype(t)}")
        operands.append(v)
    outs = _inline(ctx, mod, "main", operands)
    res = []
    for v, t, ns in zip(outs, out_types, exp._jax._out_named_shardings):
        if ns is not None and ns.mesh.axis_names and not ctx.mesh.empty:   # (JAX's wrap_with_sharding)
            body = sdy_spec_body(_sc_spec(ns.spec), t.ndim, ctx.mesh_symbol(ctx.mesh))
            v = ctx.op(f"sdy.sharding_constraint {v} <{body}> : {ttype(t)}")
        res.append(v)
    return res


