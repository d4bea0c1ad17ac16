"""The `Primitive` base class and the generic type-inference driver.

A primitive bundles every rule about one operation: its shape/dtype rule,
its sharding rule on Explicit axes, its unreduced/reduced rule, its
varying-manual-axes rule and its StableHLO lowering. `infer` runs them in the
order JAX does (JAX rules §1.4): shapes first, then the sharding rule only when
the mesh has an Explicit axis, the duplicate-axis check, U/R, then VMA.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..errors import ShardcNotImplementedError, ShardcValueError, ShardingTypeError
from ..mesh import AbstractMesh, AxisType
from ..sharding import Entry, PartitionSpec, entry_axes
from ..types import ArrayType

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

    def _nout(self, ins, params) -> int:
        return len(self.shape_rule(*ins, **params))

    # --- lowering ---------------------------------------------------------------
    def lower(self, ctx, eqn, *args: str) -> list[str]:
        raise NotImplementedError(f"no lowering for {self.name}")

    def format_params(self, params: dict[str, Any]) -> str:
        return " ".join(f"{k}={_fmt(v)}" for k, v in params.items() if v is not None)


def _fmt(v: Any) -> str:
    if isinstance(v, np.dtype):
        from ..dtypes import short_name
        return short_name(v)
    if isinstance(v, ArrayType):
        return v.str_short()
    return str(v)


def _fs(s: frozenset) -> str:
    return "frozenset()" if not s else "frozenset({" + ", ".join(repr(a) for a in sorted(s)) + "})"


def common_mesh(ins: Sequence[ArrayType], context: AbstractMesh, prim_name: str) -> AbstractMesh:
    """The one mesh all operands live on (empty-mesh operands fit any mesh)."""
    meshes = {t.mesh for t in ins if not t.mesh.empty}
    if len(meshes) > 1:
        raise ShardingTypeError(
            "Mesh for all inputs should be equal. Got one mesh: "
            + " and another mesh: ".join(repr(m) for m in sorted(meshes, key=repr)))
    mesh = meshes.pop() if meshes else context
    if not context.empty and not mesh.empty and mesh != context:
        bad = next(t for t in ins if t.mesh == mesh)
        raise ShardcValueError(
            f"For primitive {prim_name}, context mesh {context!r} should match the aval mesh "
            f"{mesh!r} for shape {bad.str_short()}.")
    return mesh if not mesh.empty else context


_CACHE: dict[Any, list[ArrayType]] = {}


def infer(prim: Primitive, ins: Sequence[ArrayType], params: dict[str, Any],
          context_mesh: AbstractMesh) -> list[ArrayType]:
    """Compute the output types of `prim` applied to `ins` (or raise the JAX error).

    Rules are pure functions of types and params, so results are memoized:
    programs repeat the same few signatures (layers, loops), and a hit costs
    one hash of already-hashed types.
    """
    try:
        key = (prim, tuple(ins), tuple(params.items()), context_mesh)
        hit = _CACHE.get(key)
    except TypeError:  # an unhashable param: compute without caching
        return _infer(prim, ins, params, context_mesh)
    if hit is None:
        hit = _infer(prim, ins, params, context_mesh)
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
    return [ArrayType(tuple(shape), np.dtype(dtype), tuple(spec), u, r, v, mesh, bool(weak))
            for (shape, dtype, weak), spec, (u, r), v in zip(shapes, specs, urs, vmas)]


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

    def shape_rule(self, *ins: ArrayType, out_types, **_):
        return [(t.shape, t.dtype, t.weak_type) for t in out_types]

    def sharding_rule(self, *ins: ArrayType, out_types, **_):
        return [t.spec for t in out_types]

    def ur_rule(self, *ins: ArrayType, out_types, **_):
        return [(t.unreduced, t.reduced) for t in out_types]

    def vma_rule(self, *ins: ArrayType, out_types, **_):
        return [t.vma for t in out_types]
