"""`sc.ShapeDtypeStruct`: an array's shape, dtype and sharding without data, as
`jax.ShapeDtypeStruct`. Programs trace and lower from them (`sc.jit(f).lower(s)`),
`sc.eval_shape` returns them, `sc.typeof` reads their type."""
from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes as dt
from .errors import ShardcTypeError
from .mesh import AbstractMesh, get_abstract_mesh
from .sharding import NamedSharding, PartitionSpec, mem_kind_to_space
from .types import ArrayType, ManualAxisType, integer_dims

__all__ = ["ShapeDtypeStruct"]


class ShapeDtypeStruct:
    """`shape`, `dtype`, `sharding` (a `NamedSharding`, or None: replicated on the
    context mesh) and `weak_type`."""

    __slots__ = ("shape", "dtype", "sharding", "weak_type", "manual_axis_type")

    def __init__(self, shape, dtype, *, sharding: NamedSharding | None = None, weak_type: bool = False,
                 manual_axis_type: ManualAxisType | None = None):
        self.shape = integer_dims(shape)
        self.dtype = np.dtype(dtype)   # as given (JAX canonicalizes when it types it)
        self.sharding = sharding
        self.weak_type = bool(weak_type)
        if manual_axis_type is not None and not isinstance(manual_axis_type, ManualAxisType):
            raise ShardcTypeError("`manual_axis_type` argument passed to ShapeDtypeStruct should be of type "
                                  f"`ManualAxisType`. Got {type(manual_axis_type)}")
        #: inside shard_map: the Manual axes it varies over (its VMA), is unreduced or reduced over
        self.manual_axis_type = None if manual_axis_type is None or manual_axis_type.empty else manual_axis_type

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def to_type(self, context: AbstractMesh | None = None) -> ArrayType:
        """The sharding type it describes (on its sharding's mesh, else the context's)."""
        if self.sharding is None:
            mesh = context if context is not None else get_abstract_mesh()
            return self._with_mat(ArrayType(self.shape, dt.canonicalize(self.dtype), (None,) * self.ndim,
                                            mesh=mesh, weak_type=self.weak_type))
        s = self.sharding
        mesh = getattr(s.mesh, "abstract_mesh", s.mesh)
        spec = tuple(s.spec) + (None,) * (self.ndim - len(s.spec))
        return self._with_mat(ArrayType(self.shape, dt.canonicalize(self.dtype), spec, s.spec.unreduced,
                                        s.spec.reduced, mesh=mesh, weak_type=self.weak_type,
                                        memory_space=mem_kind_to_space(getattr(s, "memory_kind", None))))

    def _with_mat(self, t: ArrayType) -> ArrayType:
        m = self.manual_axis_type
        if m is None:
            return t
        return t.update(vma=m.varying, unreduced=t.unreduced | m.unreduced, reduced=t.reduced | m.reduced)

    @classmethod
    def like(cls, x) -> "ShapeDtypeStruct":
        """The shape, dtype, sharding and weak type of `x` (an array, traced or not, or host
        data), as JAX's `ShapeDtypeStruct.like`: a placed array keeps its concrete sharding."""
        t = getattr(x, "aval", None)
        if isinstance(t, ArrayType):
            if getattr(x, "_shardc_type", None) is not None:   # a concrete array: where it lives
                return cls(t.shape, t.dtype, sharding=x.sharding, weak_type=t.weak_type)
            return cls.from_type(t)
        a = np.asarray(x)
        return cls(a.shape, a.dtype, sharding=getattr(x, "sharding", None))

    @classmethod
    def from_type(cls, t: ArrayType) -> "ShapeDtypeStruct":
        sharding = None if t.mesh.empty else NamedSharding(
            t.mesh, PartitionSpec(*t.spec, unreduced=t.unreduced, reduced=t.reduced))
        return cls(t.shape, t.dtype, sharding=sharding, weak_type=t.weak_type, manual_axis_type=t.mat)

    def _key(self) -> tuple:
        s = self.sharding
        return (self.shape, self.dtype, None if s is None else (repr(s.mesh), repr(s.spec)), self.weak_type,
                self.manual_axis_type)

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, ShapeDtypeStruct) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        sh = "" if self.sharding is None else f", sharding={self.sharding!r}"
        wt = ", weak_type=True" if self.weak_type else ""
        mat = f", manual_axis_type={self.manual_axis_type}" if self.manual_axis_type else ""
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{sh}{wt}{mat})"
