"""`sc.visualize_array_sharding`: a terminal picture of which device holds
which block of an array (or of any value of a sharding type).

Two pictures, two names. Under JAX's names (`sc.debug.visualize_array_sharding`,
`sc.debug.visualize_sharding`) shardc prints exactly what JAX prints, so a
ported program's output is JAX's: `visualize_sharding` here hands the sharding
to JAX's own renderer. shardc's own name `sc.visualize_array_sharding` (which
JAX does not have) and `shardc inspect` draw shardc's richer picture, below.

The picture is computed from the sharding type and the mesh, so it works for
arrays on devices and for types alone (`"f32[8@X,4@Y]"`, `sc.typeof(x)`):

* rank 1: one row of blocks along dim 0;
* rank 2: a grid, dim 0 down and dim 1 across;
* rank 0: one cell listing every device (a scalar is replicated);
* rank ≥ 3: one 2-D panel (the last two dims) per block of the leading dims,
  each panel titled with the leading dims' index ranges.

Each cell lists the devices that hold that block: device ids of the concrete
mesh for an `sc.Array` (or when the context mesh has the type's shape),
otherwise positions in the abstract mesh (`pos 0..n-1`, row-major over the
mesh axes). For an unreduced type (`{U:X}`) the devices listed for a block
each hold a *partial sum* of it; the value is their sum.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any, Sequence

import jax
from jax.sharding import NamedSharding as JNamedSharding

from ..core import typeof
from ..errors import ShardcValueError
from ..mesh import AbstractMesh
from ..sharding import NamedSharding, entry_axes
from ..types import ArrayType, as_type
from .jaxbridge import to_jax_spec
from .mesh import Mesh, get_mesh

_PALETTE = ("on blue", "on green", "on magenta", "on cyan", "on red", "on yellow",
            "on bright_blue", "on bright_green", "on bright_magenta", "on bright_cyan",
            "on bright_red", "on bright_black", "on dark_orange", "on purple", "on dark_green",
            "on navy_blue")
_MAX_PANELS = 16

__all__ = ["visualize_array_sharding", "visualize_sharding", "sharding_renderable", "layout", "Layout"]


def _jax_sharding(sharding: Any) -> Any:
    """`sharding` as a `jax.sharding.Sharding` on concrete devices (JAX's renderer needs them)."""
    if not isinstance(sharding, NamedSharding):
        return sharding
    mesh = sharding.mesh
    if not isinstance(mesh, Mesh):
        ctx = get_mesh()
        if ctx is None or ctx.axis_names != mesh.axis_names or ctx.axis_sizes != mesh.axis_sizes:
            raise ShardcValueError(
                f"visualize_sharding needs devices: {sharding!r} is on an abstract mesh and the context mesh "
                "does not have its shape (use sc.visualize_array_sharding for a picture of a type)")
        mesh = ctx
    return JNamedSharding(mesh.jax_mesh, to_jax_spec(sharding.spec), memory_kind=sharding.memory_kind)


def visualize_sharding(shape: Sequence[int], sharding: Any, *, use_color: bool = True, scale: float = 1.,
                       min_width: int = 9, max_width: int = 80, color_map=None) -> None:
    """`jax.debug.visualize_sharding`: JAX's picture of `sharding` over an array of
    `shape` (1-D or 2-D), drawn by JAX itself so that it is identical."""
    jax.debug.visualize_sharding(tuple(shape), _jax_sharding(sharding), use_color=use_color, scale=scale,
                                 min_width=min_width, max_width=max_width, color_map=color_map)


@dataclass(frozen=True)
class Layout:
    """Where every block of a value lives: `blocks[idx]` is the list of device
    labels holding block `idx` (one block index per dim)."""

    type: ArrayType
    counts: tuple[int, ...]            # blocks per dim
    blocks: dict[tuple[int, ...], list[int]]
    device_kind: str                   # "CPU", "GPU", … or "pos" (abstract positions)

    def range(self, dim: int, b: int) -> tuple[int, int]:
        step = self.type.shape[dim] // self.counts[dim]
        return b * step, (b + 1) * step


def _concrete_mesh(x: Any, amesh: AbstractMesh) -> Mesh | None:
    m = getattr(x, "_mesh", None) or getattr(x, "mesh", None)
    if isinstance(m, Mesh):
        return m
    ctx = get_mesh()
    if ctx is not None and ctx.axis_names == amesh.axis_names and ctx.axis_sizes == amesh.axis_sizes:
        return ctx
    return None


def layout(x: Any) -> Layout:
    """The block → devices map of `x` (an `sc.Array`, an `sc.ArrayType` or a type string)."""
    t = as_type(x) if isinstance(x, (ArrayType, str)) else typeof(x)
    amesh = t.mesh
    mesh = _concrete_mesh(x, amesh) if not amesh.empty else None
    if mesh is not None:
        labels = [d.id for d in mesh.devices.flat]
        kind = str(getattr(mesh.devices.flat[0], "platform", "dev")).upper()
    else:
        labels = list(range(max(amesh.size, 1)))
        kind = "pos"
    sizes = dict(zip(amesh.axis_names, amesh.axis_sizes))
    counts = tuple(math.prod(sizes[a] for a in entry_axes(e)) for e in t.spec)
    blocks: dict[tuple[int, ...], list[int]] = {idx: [] for idx in itertools.product(*(range(c) for c in counts))}
    for pos, coords in enumerate(itertools.product(*(range(s) for s in amesh.axis_sizes))):
        at = dict(zip(amesh.axis_names, coords))
        idx = []
        for e in t.spec:
            b = 0
            for a in entry_axes(e):       # major to minor
                b = b * sizes[a] + at[a]
            idx.append(b)
        blocks[tuple(idx)].append(labels[pos])
    return Layout(t, counts, blocks, kind)


def _ids_text(ids: Sequence[int]) -> str:
    """`0-3,6` for [0, 1, 2, 3, 6] (ids kept in the order given when not sorted runs)."""
    ids = list(ids)
    if ids != sorted(ids):
        return ",".join(map(str, ids))
    out, i = [], 0
    while i < len(ids):
        j = i
        while j + 1 < len(ids) and ids[j + 1] == ids[j] + 1:
            j += 1
        out.append(f"{ids[i]}-{ids[j]}" if j - i >= 2 else ",".join(map(str, ids[i:j + 1])))
        i = j + 1
    return ",".join(out)


def _dim_label(t: ArrayType, dim: int) -> str:
    axes = entry_axes(t.spec[dim])
    if not axes:
        return f"dim {dim} ({t.shape[dim]}, not sharded)"
    return f"dim {dim} ({t.shape[dim]}@{axes[0] if len(axes) == 1 else '(' + ','.join(axes) + ')'})"


def _grid(lay: Layout, lead: tuple[int, ...], use_color: bool, colors: dict):
    from rich import box
    from rich.table import Table
    from rich.text import Text

    t = lay.type
    r = t.ndim
    row_dim = r - 2 if r >= 2 else None
    col_dim = r - 1 if r >= 1 else None
    n_rows = lay.counts[row_dim] if row_dim is not None else 1
    n_cols = lay.counts[col_dim] if col_dim is not None else 1
    table = Table(box=box.SQUARE, show_lines=True, show_header=col_dim is not None,
                  padding=(0, 1), header_style="bold")
    tall = n_rows <= 4   # few rows: draw each block three lines high
    if row_dim is not None:
        table.add_column(f"d{row_dim} \\ d{col_dim}", justify="right", style="bold", no_wrap=True)
    for c in range(n_cols):
        if col_dim is not None:
            lo, hi = lay.range(col_dim, c)
            head = f"{lo}:{hi}"
        else:
            head = ""
        table.add_column(head, justify="center")
    for rr in range(n_rows):
        cells = []
        if row_dim is not None:
            lo, hi = lay.range(row_dim, rr)
            cells.append(Text(f"\n{lo}:{hi}\n" if tall else f"{lo}:{hi}"))
        for c in range(n_cols):
            idx = lead + ((rr,) if row_dim is not None else ()) + ((c,) if col_dim is not None else ())
            ids = lay.blocks[idx]
            key = tuple(ids)
            if key not in colors:
                colors[key] = _PALETTE[len(colors) % len(_PALETTE)]
            style = ("bold white " + colors[key]) if use_color else ""
            label = f"{lay.device_kind} {_ids_text(ids)}"
            cells.append(Text(f"\n{label}\n" if tall else label, style=style))
        table.add_row(*cells)
    return table


def sharding_renderable(x: Any, *, use_color: bool = True, title: str | None = None):
    """The picture as a rich renderable (what `visualize_array_sharding` prints)."""
    from rich.console import Group
    from rich.text import Text

    lay = layout(x)
    t = lay.type
    mesh = t.mesh
    mesh_text = ("no mesh (one device)" if mesh.empty else
                 "mesh " + ", ".join(f"{n}={s}" for n, s in zip(mesh.axis_names, mesh.axis_sizes)))
    parts: list[Any] = [Text(f"{title + ': ' if title else ''}{t}  on {mesh_text}", style="bold")]
    notes = []
    if t.ndim == 1:
        notes.append(f"one row of blocks along {_dim_label(t, 0)}")
    elif t.ndim == 2:
        notes.append(f"rows: {_dim_label(t, 0)}; columns: {_dim_label(t, 1)}")
    elif t.ndim == 0:
        notes.append("a scalar: one block, held by every device")
    else:
        lead = ", ".join(_dim_label(t, d) for d in range(t.ndim - 2))
        notes.append(f"rank {t.ndim}: one panel per block of the leading dims [{lead}]; each panel "
                     f"shows rows: {_dim_label(t, t.ndim - 2)}, columns: {_dim_label(t, t.ndim - 1)}")
    if lay.device_kind == "pos" and not mesh.empty:
        notes.append("cells list positions in the abstract mesh (row-major over its axes), not device ids")
    if t.unreduced:
        axes = ",".join(mesh.mesh_order(t.unreduced))
        notes.append(f"unreduced over {axes}: the devices listed for a block each hold a partial sum; "
                     "the value is their sum")
    if t.reduced:
        notes.append(f"reduced over {','.join(mesh.mesh_order(t.reduced))}: replicated and known to be so")
    for n in notes:
        parts.append(Text("  " + n, style="dim"))
    colors: dict = {}
    if t.ndim <= 2:
        parts.append(_grid(lay, (), use_color, colors))
    else:
        lead_counts = lay.counts[:-2]
        all_leads = list(itertools.product(*(range(c) for c in lead_counts)))
        for lead in all_leads[:_MAX_PANELS]:
            rng = ", ".join(f"{lo}:{hi}" for lo, hi in (lay.range(d, b) for d, b in enumerate(lead)))
            parts.append(Text(f"[{rng}, :, :]" if t.ndim == 3 else f"[{rng}, ...]", style="bold"))
            parts.append(_grid(lay, lead, use_color, colors))
        if len(all_leads) > _MAX_PANELS:
            parts.append(Text(f"  … {len(all_leads) - _MAX_PANELS} more panels not shown", style="dim"))
    return Group(*parts)


def visualize_array_sharding(x: Any, *, use_color: bool = True, console=None) -> None:
    """Print which device holds which block of `x`.

    `x` is an `sc.Array`, an `sc.ArrayType` or a type string (parsed under the
    context mesh). 1-D and 2-D values are drawn as a row / grid of blocks; a
    scalar as one cell; rank ≥ 3 as one 2-D panel (last two dims) per block of
    the leading dims. Unreduced values are marked: the devices of a block hold
    partial sums.
    """
    from rich.console import Console
    if isinstance(x, (list, tuple, dict)):
        raise ShardcValueError("visualize_array_sharding takes one array or type, not a collection")
    console = console or Console()
    console.print(sharding_renderable(x, use_color=use_color))
