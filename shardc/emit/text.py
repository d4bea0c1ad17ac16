"""Small, deterministic spellings of MLIR types, attributes and constants."""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from .. import dtypes as dt
from ..mesh import AbstractMesh, AxisType
from ..sharding import UNCONSTRAINED, entry_axes
from ..types import ArrayType

_TENSOR_TYPES: dict = {}


def tensor_type(shape: Sequence[int], dtype) -> str:
    key = (tuple(shape), dtype)
    s = _TENSOR_TYPES.get(key)
    if s is None:
        dims = "".join(f"{d}x" for d in shape)
        s = _TENSOR_TYPES[key] = f"tensor<{dims}{dt.mlir_name(dtype)}>"
    return s


_TTYPES: dict = {}


def ttype(t: ArrayType) -> str:
    s = _TTYPES.get(t)
    if s is None:
        if len(_TTYPES) > 100_000:
            _TTYPES.clear()
        s = _TTYPES[t] = tensor_type(t.shape, t.dtype)
    return s


def int_list(values: Sequence[int]) -> str:
    return "[" + ", ".join(str(int(v)) for v in values) + "]"


_FLOAT_BITS = {dt.float32: (np.uint32, 8), dt.float16: (np.uint16, 4), dt.bfloat16: (np.uint16, 4),
               **{d: (np.uint8, 1 if d == dt.float4_e2m1fn else 2) for d in dt.SMALL_FLOATS}}


def _float_literal(v: np.generic) -> str:
    f = float(v)
    if not math.isfinite(f) or np.dtype(v.dtype) in dt.SMALL_FLOATS:
        # the small floats by their bits: a decimal MLIR would round again (e8m0 has no zero)
        utype, width = _FLOAT_BITS[np.dtype(v.dtype)]
        return "0x" + format(int(np.asarray(v).view(utype)), f"0{width}X")
    s = repr(f)
    if "e" in s and "." not in s.split("e")[0]:
        mant, exp = s.split("e")
        s = f"{mant}.0e{exp}"
    return s


def scalar_literal(value, dtype) -> str:
    d = np.dtype(dtype)
    v = np.asarray(value, dtype=d)
    if d == dt.bool_:
        return "true" if bool(v) else "false"
    if dt.is_float(d):
        return _float_literal(v[()])
    if dt.is_complex(d):
        parts = v.real.astype(dt.real_dtype(d)), v.imag.astype(dt.real_dtype(d))
        return "(" + ",".join(_float_literal(p[()]) for p in parts) + ")"
    return str(int(v))


def dense_literal(value: np.ndarray, dtype) -> str:
    """`dense<...>` contents: a scalar, a splat, or a hex blob for general arrays."""
    arr = np.asarray(value, dtype=np.dtype(dtype))
    if arr.ndim == 0:
        return scalar_literal(arr, dtype)
    flat = arr.reshape(-1)
    if flat.size and (flat == flat[0]).all() and not (dt.is_inexact(arr.dtype) and np.isnan(flat[0])):
        return scalar_literal(flat[0], dtype)
    if arr.dtype == dt.bool_:
        raw = arr.astype(np.uint8).tobytes()
    else:
        raw = np.ascontiguousarray(arr).tobytes()
    return '"0x' + raw.hex().upper() + '"'


def _axes_attr(axes) -> str:
    return ", ".join(f'"{a}"' for a in axes)


def sdy_dims(t: ArrayType, spec=None, open_dims: bool = False) -> str:
    """`[{"X"}, {}]` (closed) or `[{"X", ?}, {?}]` (open, for meshes with Auto axes)."""
    spec = t.spec if spec is None else spec
    dims = []
    for e in spec:
        axes = entry_axes(e)
        if e is UNCONSTRAINED:
            dims.append("{?}")
        elif open_dims:
            dims.append("{" + _axes_attr(axes) + (", ?" if axes else "?") + "}")
        else:
            dims.append("{" + _axes_attr(axes) + "}")
    return "[" + ", ".join(dims) + "]"


def sdy_sharding_body(t: ArrayType, mesh_name: str = "@mesh", *, closed: bool = False) -> str:
    """The sharding of a value of type `t`, as JAX writes it for `t`'s mesh.

    On an all-Explicit mesh every dim is closed. With Auto axes present the
    dims are open (the compiler may add Auto axes) and Explicit axes the type
    does not use are listed as `replicated` so the compiler cannot use them.
    Types never carry Auto axes, so `closed=True` pins a result exactly.
    """
    mesh = t.mesh
    mixed = bool(mesh.auto_axes) and not closed
    body = f"{mesh_name}, {sdy_dims(t, open_dims=mixed)}"
    if mixed:
        used = {a for e in t.spec for a in entry_axes(e)} | set(t.unreduced)
        rep = [a for a in mesh.explicit_axes if a not in used]
        if rep:
            body += ", replicated={" + _axes_attr(rep) + "}"
    explicit_u = [a for a in mesh.mesh_order(t.unreduced) if mesh.axis_type(a) != AxisType.Manual]
    if explicit_u:
        body += ", unreduced={" + _axes_attr(explicit_u) + "}"
    return body


def sdy_spec_body(spec, ndim: int, mesh_name: str = "@mesh") -> str:
    """A user's PartitionSpec (any axis types, `UNCONSTRAINED` allowed), closed dims."""
    ents = tuple(spec) + (None,) * (ndim - len(spec))
    dims = []
    for e in ents:
        dims.append("{?}" if e is UNCONSTRAINED else "{" + _axes_attr(entry_axes(e)) + "}")
    body = f"{mesh_name}, [" + ", ".join(dims) + "]"
    if getattr(spec, "unreduced", None):
        body += ", unreduced={" + _axes_attr(sorted(spec.unreduced)) + "}"
    return body


def sdy_mesh(mesh: AbstractMesh, device_ids: Sequence[int] | None = None) -> str:
    axes = ", ".join(f'"{n}"={s}' for n, s in zip(mesh.axis_names, mesh.axis_sizes))
    ids = ""
    if device_ids is not None and list(device_ids) != list(range(len(device_ids))):
        ids = ", device_ids=" + int_list(device_ids)
    return f"<[{axes}]{ids}>"
