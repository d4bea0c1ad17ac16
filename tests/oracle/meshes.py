"""Meshes for the oracle: each one built twice, as a shardc mesh and a JAX
mesh over the same devices in the same order with the same axis types."""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import jax
from jax.sharding import AxisType as JAxisType

import shardc as sc


@dataclass(frozen=True)
class MeshSpec:
    """A mesh written once for both sides.

    `types` has one letter per axis, ``E`` (Explicit) or ``A`` (Auto); empty
    means every axis Explicit. `reverse` lays the devices out in reverse order
    (a non-iota device assignment)."""

    shape: tuple[int, ...]
    names: tuple[str, ...]
    types: str = ""
    reverse: bool = False

    def __post_init__(self):
        assert len(self.shape) == len(self.names), self
        assert not self.types or len(self.types) == len(self.names), self

    @property
    def axis_types(self) -> str:
        return self.types or "E" * len(self.names)

    @property
    def sizes(self) -> dict[str, int]:
        return dict(zip(self.names, self.shape))


#: every named mesh the differential tests use
MESHES: dict[str, MeshSpec] = {
    "1d": MeshSpec((8,), ("X",)),
    "2d": MeshSpec((2, 4), ("X", "Y")),
    "3d": MeshSpec((2, 2, 2), ("X", "Y", "Z")),
    # the 2×4 mesh over the devices in reverse order
    "2d_rev": MeshSpec((2, 4), ("X", "Y"), reverse=True),
    # manual-mode tables: one axis named like JAX's shard_map examples
    "1d_i": MeshSpec((8,), ("i",)),
    "i2": MeshSpec((2,), ("i",)),
    "tp": MeshSpec((2,), ("tp",)),
    "x2": MeshSpec((2,), ("x",)),
    "ij": MeshSpec((2, 2), ("i", "j")),
    # Auto meshes
    "tp_auto": MeshSpec((2,), ("tp",), "A"),
    "2d_auto": MeshSpec((2, 4), ("X", "Y"), "AA"),
}

#: the meshes every generated table runs over
BASIC_MESHES: dict[str, MeshSpec] = {k: MESHES[k] for k in ("1d", "2d", "3d")}


def resolve(mesh: str | MeshSpec) -> MeshSpec:
    return mesh if isinstance(mesh, MeshSpec) else MESHES[mesh]


def axis_sizes(mesh: str | MeshSpec) -> dict[str, int]:
    return resolve(mesh).sizes


@functools.cache
def _pair(spec: MeshSpec):
    devs = jax.devices()[: math.prod(spec.shape)]
    if spec.reverse:
        devs = devs[::-1]
    m = sc.make_mesh(spec.shape, spec.names,
                     tuple(sc.AxisType.Auto if t == "A" else sc.AxisType.Explicit for t in spec.axis_types),
                     devices=devs)
    jm = jax.make_mesh(spec.shape, spec.names,
                       axis_types=tuple(JAxisType.Auto if t == "A" else JAxisType.Explicit
                                        for t in spec.axis_types),
                       devices=devs)
    assert [d.id for d in m.devices.flat] == [d.id for d in jm.devices.flat]
    return m, jm


def mesh_pair(mesh: str | MeshSpec):
    """(shardc mesh, JAX mesh) over the same devices."""
    return _pair(resolve(mesh))


def placed_pair(meshes, data, spec):
    """`data` placed as `spec` on both sides: (shardc array, JAX array), `meshes` being the
    (shardc mesh, JAX mesh) pair of the `meshes` fixture of tests/differential/conftest.py."""
    sm, jm = meshes
    return (sc.device_put(data, sc.NamedSharding(sm, spec)),
            jax.device_put(data, jax.sharding.NamedSharding(jm, jax.P(*spec))))
