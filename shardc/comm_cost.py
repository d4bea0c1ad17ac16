"""What a collective costs: the bytes it moves per device and a time estimate from a
per-mesh-axis latency/bandwidth model (docs/cost_model.md).

This is the one place that turns "a collective of this kind over these axes on a
buffer of this size" into numbers: the pre-compilation cost pass
(`shardc.passes.cost`), the CLI's `check --cost` / `inspect`, and the `out_sharding`
fixes of `dot_general`'s ambiguity error all call it, so they always agree.

Sizes: `buffer` is the collective's *result* per device, as XLA's HLO counts it (the
reduced buffer of an all-reduce, the gathered block of an all-gather, the scattered
block of a reduce-scatter). `wire_bytes` is what a device sends in the textbook ring
algorithm (Patarasuk & Yuan; Thakur et al.), with n devices in the group:

    all-reduce          2 (n-1)/n · buffer        steps 2 (n-1)
    all-gather            (n-1)/n · buffer        steps   (n-1)
    reduce-scatter        (n-1)   · buffer        steps   (n-1)    (its input is n · buffer)
    all-to-all            (n-1)/n · buffer        steps   (n-1)
    collective-permute              buffer        steps    1

and the time is `steps · latency + wire_bytes / bandwidth`, with the slowest of the
axes' links for a group spanning several mesh axes.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Iterable, Mapping

__all__ = ["KINDS", "Link", "CostModel", "wire_bytes", "steps", "PLATFORM_LINKS", "human_bytes",
           "human_seconds"]

KINDS = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute")


def wire_bytes(kind: str, buffer: float, n: int) -> float:
    """Bytes one device sends for a collective of `kind` whose result is `buffer` bytes
    per device, over a group of `n` devices (ring algorithms)."""
    if n <= 1:
        return 0.0
    if kind == "all-reduce":
        return 2 * (n - 1) / n * buffer
    if kind in ("all-gather", "all-to-all"):
        return (n - 1) / n * buffer
    if kind == "reduce-scatter":
        return (n - 1) * buffer
    if kind == "collective-permute":
        return float(buffer)
    raise ValueError(f"unknown collective kind {kind!r} (expected one of {', '.join(KINDS)})")


def steps(kind: str, n: int) -> int:
    """Latency-bound steps of the ring algorithm for `kind` over `n` devices."""
    if n <= 1:
        return 0
    return {"all-reduce": 2 * (n - 1), "collective-permute": 1}.get(kind, n - 1)


@dataclass(frozen=True)
class Link:
    """One mesh axis's interconnect: per-message latency (s) and per-device bandwidth (bytes/s)."""

    latency: float
    bandwidth: float


#: Rough defaults per platform (docs/cost_model.md says where they come from): CPU devices
#: of one host copy through memory; a GPU axis is NVLink; a TPU axis is one ICI link.
PLATFORM_LINKS: dict[str, Link] = {
    "cpu": Link(latency=5e-6, bandwidth=10e9),
    "gpu": Link(latency=10e-6, bandwidth=150e9),
    "tpu": Link(latency=5e-6, bandwidth=45e9),
}


@dataclass(frozen=True)
class CostModel:
    """Latency and bandwidth per mesh axis (`axes`), `default` for the others."""

    platform: str = "cpu"
    default: Link = PLATFORM_LINKS["cpu"]
    axes: Mapping[str, Link] = field(default_factory=dict)

    @classmethod
    def for_platform(cls, platform: str | None) -> "CostModel":
        p = (platform or "cpu").lower()
        if p == "cuda" or p == "rocm":
            p = "gpu"
        if p not in PLATFORM_LINKS:
            raise ValueError(f"no cost-model defaults for platform {platform!r} "
                             f"(known: {', '.join(PLATFORM_LINKS)})")
        return cls(p, PLATFORM_LINKS[p], {})

    def with_link(self, axis: str | None, *, latency: float | None = None,
                  bandwidth: float | None = None) -> "CostModel":
        """This model with one axis's link (every axis's, for `axis` None or '*') changed."""
        if axis in (None, "*"):
            d = self.default
            new = Link(d.latency if latency is None else latency, d.bandwidth if bandwidth is None else bandwidth)
            return replace(self, default=new)
        d = self.axes.get(axis, self.default)
        new = Link(d.latency if latency is None else latency, d.bandwidth if bandwidth is None else bandwidth)
        return replace(self, axes={**self.axes, axis: new})

    def link(self, axes: Iterable[str]) -> Link:
        """The link of a group spanning `axes`: the slowest bandwidth and latency among them."""
        links = [self.axes.get(a, self.default) for a in axes] or [self.default]
        return Link(max(x.latency for x in links), min(x.bandwidth for x in links))

    def seconds(self, kind: str, axes: Iterable[str], buffer: float, n: int) -> float:
        """Estimated time of one collective of `kind` over `axes` (a group of `n` devices)."""
        axes = tuple(axes)
        if n <= 1:
            return 0.0
        lk = self.link(axes)
        return steps(kind, n) * lk.latency + wire_bytes(kind, buffer, n) / lk.bandwidth

    def describe(self) -> str:
        def one(lk: Link) -> str:
            return f"{lk.latency * 1e6:g} µs latency, {lk.bandwidth / 1e9:g} GB/s"
        extra = "".join(f"; {a}: {one(lk)}" for a, lk in self.axes.items())
        return f"{self.platform} model: {one(self.default)} per axis{extra}"


def group_size(mesh, axes: Iterable[str]) -> int:
    """Devices in one group of a collective over `axes` of `mesh`."""
    return math.prod(mesh.axis_size(a) for a in axes)


def human_bytes(n: float) -> str:
    """`512 B`, `1.5 KiB`, … (the ambiguity error and the CLI print sizes this way)."""
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"


def human_seconds(s: float) -> str:
    if s == 0:
        return "0 s"
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} µs"
