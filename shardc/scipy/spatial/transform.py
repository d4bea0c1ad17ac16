"""`shardc.scipy.spatial.transform`: JAX 0.10.2's `jax.scipy.spatial.transform` (`Rotation`, `Slerp`).

JAX's own composition (`jax/_src/scipy/spatial/transform.py`, Copyright 2023 The JAX Authors, Apache
License 2.0) ported onto shardc's `numpy`, `numpy.vectorize` and `numpy.linalg.eigh`: rotations are held
as scalar-last unit quaternions and every conversion is a `vectorize`d function of one quaternion, matrix
or vector, so batches, values, dtypes and errors follow JAX's. `Rotation` and `Slerp` are NamedTuples as
in JAX, so they are pytrees (through `jit`, `grad`, `vmap`) with no registration.
"""
from __future__ import annotations

import functools
import re
import typing

import numpy as np

from ... import numpy as jnp
from ...config import numpy_rank_promotion
from ...errors import ShardcNotImplementedError, ShardcTypeError, ShardcValueError
from ...numpy import vectorize

jnp_linalg = jnp.linalg

Array = typing.Any

__all__ = ["Rotation", "Slerp"]  # JAX 0.10.2's jax.scipy.spatial.transform, every name


def _check_seq(seq: str) -> tuple[bool, bool]:
    intrinsic = re.match(r"^[XYZ]{1,3}$", seq) is not None
    extrinsic = re.match(r"^[xyz]{1,3}$", seq) is not None
    return intrinsic, extrinsic


class Rotation(typing.NamedTuple):
    """`jax.scipy.spatial.transform.Rotation`: rotation(s) in 3 dimensions, as scalar-last quaternions."""

    quat: Array

    @classmethod
    def concatenate(cls, rotations: typing.Sequence):
        """Concatenate a sequence of `Rotation` objects."""
        return cls(jnp.concatenate([rotation.quat for rotation in rotations]))

    @classmethod
    def from_euler(cls, seq: str, angles: Array, degrees: bool = False):
        """Initialize from Euler angles."""
        num_axes = len(seq)
        if num_axes < 1 or num_axes > 3:
            raise ShardcValueError("Expected axis specification to be a non-empty "
                                   f"string of upto 3 characters, got {seq}")
        intrinsic, extrinsic = _check_seq(seq)
        if not (intrinsic or extrinsic):
            raise ShardcValueError("Expected axes from `seq` to be from ['x', 'y', "
                                   f"'z'] or ['X', 'Y', 'Z'], got {seq}")
        if any(seq[i] == seq[i + 1] for i in range(num_axes - 1)):
            raise ShardcValueError(f"Expected consecutive axes to be different, got {seq}")
        angles = jnp.atleast_1d(angles)
        axes = jnp.array([_elementary_basis_index(x) for x in seq.lower()])
        return cls(_elementary_quat_compose(angles, axes, intrinsic, degrees))

    @classmethod
    def from_matrix(cls, matrix: Array):
        """Initialize from rotation matrix."""
        return cls(_from_matrix(matrix))

    @classmethod
    def from_mrp(cls, mrp: Array):
        """Initialize from Modified Rodrigues Parameters (MRPs)."""
        return cls(_from_mrp(mrp))

    @classmethod
    def from_quat(cls, quat: Array):
        """Initialize from quaternions."""
        return cls(_normalize_quaternion(quat))

    @classmethod
    def from_rotvec(cls, rotvec: Array, degrees: bool = False):
        """Initialize from rotation vectors."""
        return cls(_from_rotvec(rotvec, degrees))

    @classmethod
    def identity(cls, num: int | None = None, dtype=float):
        """Get identity rotation(s)."""
        assert num is None
        return cls(jnp.array([0.0, 0.0, 0.0, 1.0], dtype=dtype))

    @classmethod
    def random(cls, random_key: Array, num: int | None = None):
        """Generate uniformly distributed rotations (not implemented, as in JAX)."""
        raise ShardcNotImplementedError("")

    def __getitem__(self, indexer):
        """Extract rotation(s) at given index(es) from object."""
        if self.single:
            raise ShardcTypeError("Single rotation is not subscriptable.")
        return Rotation(self.quat[indexer])

    def __len__(self):
        """Number of rotations contained in this object."""
        if self.single:
            raise ShardcTypeError("Single rotation has no len().")
        return self.quat.shape[0]

    def __mul__(self, other) -> Rotation:
        """Compose this rotation with the other."""
        return Rotation.from_quat(_compose_quat(self.quat, other.quat))

    def apply(self, vectors: Array, inverse: bool = False) -> Array:
        """Apply this rotation to one or more vectors."""
        return _apply(self.as_matrix(), vectors, inverse)

    def as_euler(self, seq: str, degrees: bool = False):
        """Represent as Euler angles."""
        if len(seq) != 3:
            raise ShardcValueError(f"Expected 3 axes, got {seq}.")
        intrinsic, extrinsic = _check_seq(seq)
        if not (intrinsic or extrinsic):
            raise ShardcValueError("Expected axes from `seq` to be from ['x', 'y', 'z'] or ['X', 'Y', 'Z'], "
                                   f"got {seq}")
        if any(seq[i] == seq[i + 1] for i in range(2)):
            raise ShardcValueError(f"Expected consecutive axes to be different, got {seq}")
        axes = jnp.array([_elementary_basis_index(x) for x in seq.lower()])
        with numpy_rank_promotion("allow"):
            return _compute_euler_from_quat(self.quat, axes, extrinsic, degrees)

    def as_matrix(self) -> Array:
        """Represent as rotation matrix."""
        return _as_matrix(self.quat)

    def as_mrp(self) -> Array:
        """Represent as Modified Rodrigues Parameters (MRPs)."""
        return _as_mrp(self.quat)

    def as_rotvec(self, degrees: bool = False) -> Array:
        """Represent as rotation vectors."""
        return _as_rotvec(self.quat, degrees)

    def as_quat(self, canonical: bool = False, scalar_first: bool = False) -> Array:
        """Represent as quaternions."""
        quat = _make_canonical(self.quat) if canonical else self.quat
        if scalar_first:
            return jnp.roll(quat, shift=1, axis=-1)
        return quat

    def inv(self):
        """Invert this rotation."""
        return Rotation(_inv(self.quat))

    def magnitude(self) -> Array:
        """Get the magnitude(s) of the rotation(s)."""
        return _magnitude(self.quat)

    def mean(self, weights: Array | None = None):
        """Get the mean of the rotations (the top eigenvector of the weighted quaternion outer products)."""
        w = (jnp.ones(self.quat.shape[0], dtype=self.quat.dtype) if weights is None
             else jnp.asarray(weights, dtype=self.quat.dtype))
        if w.ndim != 1:
            raise ShardcValueError(f"Expected `weights` to be 1 dimensional, got shape {w.shape}.")
        if w.shape[0] != len(self):
            raise ShardcValueError("Expected `weights` to have number of values equal to number of rotations, got "
                                   f"{w.shape[0]} values and {len(self)} rotations.")
        K = jnp.dot(w[np.newaxis, :] * self.quat.T, self.quat)
        _, v = jnp_linalg.eigh(K)
        return Rotation(v[:, -1])

    @property
    def single(self) -> bool:
        """Whether this instance represents a single rotation."""
        return self.quat.ndim == 1


class Slerp(typing.NamedTuple):
    """`jax.scipy.spatial.transform.Slerp`: spherical linear interpolation of rotations (`Slerp.init`)."""

    times: Array
    timedelta: Array
    rotations: Rotation
    rotvecs: Array

    @classmethod
    def init(cls, times: Array, rotations: Rotation):
        """The interpolator of `rotations` at key `times`."""
        if not isinstance(rotations, Rotation):
            raise ShardcTypeError("`rotations` must be a `Rotation` instance.")
        if rotations.single or len(rotations) == 1:
            raise ShardcValueError("`rotations` must be a sequence of at least 2 rotations.")
        times = jnp.asarray(times, dtype=rotations.quat.dtype)
        if times.ndim != 1:
            raise ShardcValueError(f"Expected times to be specified in a 1 dimensional array, got {times.ndim} "
                                   "dimensions.")
        if times.shape[0] != len(rotations):
            raise ShardcValueError("Expected number of rotations to be equal to number of timestamps given, got "
                                   f"{len(rotations)} rotations and {times.shape[0]} timestamps.")
        timedelta = jnp.diff(times)
        new_rotations = Rotation(rotations.as_quat()[:-1])
        return cls(
            times=times,
            timedelta=timedelta,
            rotations=new_rotations,
            rotvecs=(new_rotations.inv() * Rotation(rotations.as_quat()[1:])).as_rotvec())

    def __call__(self, times: Array):
        """Interpolate rotations."""
        compute_times = jnp.asarray(times, dtype=self.times.dtype)
        if compute_times.ndim > 1:
            raise ShardcValueError("`times` must be at most 1-dimensional.")
        single_time = compute_times.ndim == 0
        compute_times = jnp.atleast_1d(compute_times)
        ind = jnp.maximum(jnp.searchsorted(self.times, compute_times) - 1, 0)
        alpha = (compute_times - self.times[ind]) / self.timedelta[ind]
        result = self.rotations[ind] * Rotation.from_rotvec(self.rotvecs[ind] * alpha[:, None])
        if single_time:
            return result[0]
        return result


@functools.partial(vectorize, signature="(m,m),(m),()->(m)")
def _apply(matrix: Array, vector: Array, inverse: bool) -> Array:
    return jnp.where(inverse, matrix.T, matrix) @ vector


@functools.partial(vectorize, signature="(m)->(n,n)")
def _as_matrix(quat: Array) -> Array:
    x = quat[0]
    y = quat[1]
    z = quat[2]
    w = quat[3]
    x2 = x * x
    y2 = y * y
    z2 = z * z
    w2 = w * w
    xy = x * y
    zw = z * w
    xz = x * z
    yw = y * w
    yz = y * z
    xw = x * w
    return jnp.array([[+ x2 - y2 - z2 + w2, 2 * (xy - zw), 2 * (xz + yw)],
                      [2 * (xy + zw), - x2 + y2 - z2 + w2, 2 * (yz - xw)],
                      [2 * (xz - yw), 2 * (yz + xw), - x2 - y2 + z2 + w2]])


@functools.partial(vectorize, signature="(m)->(n)")
def _as_mrp(quat: Array) -> Array:
    sign = jnp.where(quat[3] < 0, -1.0, 1.0)
    denominator = 1.0 + sign * quat[3]
    return sign * quat[:3] / denominator


@functools.partial(vectorize, signature="(m),()->(n)")
def _as_rotvec(quat: Array, degrees: bool) -> Array:
    quat = jnp.where(quat[3] < 0, -quat, quat)  # w > 0 to ensure 0 <= angle <= pi
    angle = 2.0 * jnp.arctan2(_vector_norm(quat[:3]), quat[3])
    angle2 = angle * angle
    small_scale = 2 + angle2 / 12 + 7 * angle2 * angle2 / 2880
    large_scale = angle / jnp.sin(angle / 2)
    scale = jnp.where(angle <= 1e-3, small_scale, large_scale)
    scale = jnp.where(degrees, jnp.rad2deg(scale), scale)
    return scale * jnp.array(quat[:3])


@functools.partial(vectorize, signature="(n),(n)->(n)")
def _compose_quat(p: Array, q: Array) -> Array:
    cross = jnp.cross(p[:3], q[:3])
    return jnp.array([p[3] * q[0] + q[3] * p[0] + cross[0],
                      p[3] * q[1] + q[3] * p[1] + cross[1],
                      p[3] * q[2] + q[3] * p[2] + cross[2],
                      p[3] * q[3] - p[0] * q[0] - p[1] * q[1] - p[2] * q[2]])


@functools.partial(vectorize, signature="(m),(l),(),()->(n)")
def _compute_euler_from_quat(quat: Array, axes: Array, extrinsic: bool, degrees: bool) -> Array:
    angle_first = jnp.where(extrinsic, 0, 2)
    angle_third = jnp.where(extrinsic, 2, 0)
    axes = jnp.where(extrinsic, axes, axes[::-1])
    i = axes[0]
    j = axes[1]
    k = axes[2]
    symmetric = i == k
    k = jnp.where(symmetric, 3 - i - j, k)
    sign = jnp.array((i - j) * (j - k) * (k - i) // 2, dtype=quat.dtype)
    eps = 1e-7
    a = jnp.where(symmetric, quat[3], quat[3] - quat[j])
    b = jnp.where(symmetric, quat[i], quat[i] + quat[k] * sign)
    c = jnp.where(symmetric, quat[j], quat[j] + quat[3])
    d = jnp.where(symmetric, quat[k] * sign, quat[k] * sign - quat[i])
    angles = jnp.empty(3, dtype=quat.dtype)
    angles = angles.at[1].set(2 * jnp.arctan2(jnp.hypot(c, d), jnp.hypot(a, b)))
    case = jnp.where(jnp.abs(angles[1] - np.pi) <= eps, 2, 0)
    case = jnp.where(jnp.abs(angles[1]) <= eps, 1, case)
    half_sum = jnp.arctan2(b, a)
    half_diff = jnp.arctan2(d, c)
    angles = angles.at[0].set(jnp.where(case == 1, 2 * half_sum, 2 * half_diff * jnp.where(extrinsic, -1, 1)))
    angles = angles.at[angle_first].set(jnp.where(case == 0, half_sum - half_diff, angles[angle_first]))
    angles = angles.at[angle_third].set(jnp.where(case == 0, half_sum + half_diff, angles[angle_third]))
    angles = angles.at[angle_third].set(jnp.where(symmetric, angles[angle_third], angles[angle_third] * sign))
    angles = angles.at[1].set(jnp.where(symmetric, angles[1], angles[1] - np.pi / 2))
    angles = (angles + np.pi) % (2 * np.pi) - np.pi
    return jnp.where(degrees, jnp.rad2deg(angles), angles)


def _elementary_basis_index(axis: str) -> int:
    if axis == "x":
        return 0
    elif axis == "y":
        return 1
    elif axis == "z":
        return 2
    raise ShardcValueError(f"Expected axis to be from ['x', 'y', 'z'], got {axis}")


@functools.partial(vectorize, signature="(m),(m),(),()->(n)")
def _elementary_quat_compose(angles: Array, axes: Array, intrinsic: bool, degrees: bool) -> Array:
    angles = jnp.where(degrees, jnp.deg2rad(angles), angles)
    result = _make_elementary_quat(axes[0], angles[0])
    for idx in range(1, len(axes)):
        quat = _make_elementary_quat(axes[idx], angles[idx])
        result = jnp.where(intrinsic, _compose_quat(result, quat), _compose_quat(quat, result))
    return result


@functools.partial(vectorize, signature="(m),()->(n)")
def _from_rotvec(rotvec: Array, degrees: bool) -> Array:
    rotvec = jnp.where(degrees, jnp.deg2rad(rotvec), rotvec)
    angle = _vector_norm(rotvec)
    angle2 = angle * angle
    small_scale = 0.5 - angle2 / 48 + angle2 * angle2 / 3840
    large_scale = jnp.sin(angle / 2) / angle
    scale = jnp.where(angle <= 1e-3, small_scale, large_scale)
    return jnp.hstack([scale * rotvec, jnp.cos(angle / 2)])


@functools.partial(vectorize, signature="(m,m)->(n)")
def _from_matrix(matrix: Array) -> Array:
    matrix_trace = matrix[0, 0] + matrix[1, 1] + matrix[2, 2]
    decision = jnp.array([matrix[0, 0], matrix[1, 1], matrix[2, 2], matrix_trace], dtype=matrix.dtype)
    choice = jnp.argmax(decision)
    i = choice
    j = (i + 1) % 3
    k = (j + 1) % 3
    quat_012 = jnp.empty(4, dtype=matrix.dtype)
    quat_012 = quat_012.at[i].set(1 - decision[3] + 2 * matrix[i, i])
    quat_012 = quat_012.at[j].set(matrix[j, i] + matrix[i, j])
    quat_012 = quat_012.at[k].set(matrix[k, i] + matrix[i, k])
    quat_012 = quat_012.at[3].set(matrix[k, j] - matrix[j, k])
    quat_3 = jnp.empty(4, dtype=matrix.dtype)
    quat_3 = quat_3.at[0].set(matrix[2, 1] - matrix[1, 2])
    quat_3 = quat_3.at[1].set(matrix[0, 2] - matrix[2, 0])
    quat_3 = quat_3.at[2].set(matrix[1, 0] - matrix[0, 1])
    quat_3 = quat_3.at[3].set(1 + decision[3])
    quat = jnp.where(choice != 3, quat_012, quat_3)
    return _normalize_quaternion(quat)


@functools.partial(vectorize, signature="(m)->(n)")
def _from_mrp(mrp: Array) -> Array:
    mrp_squared_plus_1 = jnp.dot(mrp, mrp) + 1
    return jnp.hstack([2 * mrp[:3], (2 - mrp_squared_plus_1)]) / mrp_squared_plus_1


@functools.partial(vectorize, signature="(n)->(n)")
def _inv(quat: Array) -> Array:
    return quat * jnp.array([-1, -1, -1, 1], dtype=quat.dtype)


@functools.partial(vectorize, signature="(n)->()")
def _magnitude(quat: Array) -> Array:
    return 2.0 * jnp.arctan2(_vector_norm(quat[:3]), jnp.abs(quat[3]))


@functools.partial(vectorize, signature="(),()->(n)")
def _make_elementary_quat(axis: int, angle: Array) -> Array:
    quat = jnp.zeros(4, dtype=angle.dtype)
    quat = quat.at[3].set(jnp.cos(angle / 2.0))
    quat = quat.at[axis].set(jnp.sin(angle / 2.0))
    return quat


@functools.partial(vectorize, signature="(n)->(n)")
def _normalize_quaternion(quat: Array) -> Array:
    return quat / _vector_norm(quat)


@functools.partial(vectorize, signature="(n)->()")
def _vector_norm(vector: Array) -> Array:
    return jnp.sqrt(jnp.dot(vector, vector))


@functools.partial(vectorize, signature="(n)->(n)")
def _make_canonical(quat: Array) -> Array:
    is_neg = quat < 0
    is_zero = quat == 0
    neg = (
        is_neg[3]
        | (is_zero[3] & is_neg[0])
        | (is_zero[3] & is_zero[0] & is_neg[1])
        | (is_zero[3] & is_zero[0] & is_zero[1] & is_neg[2])
    )
    return jnp.where(neg, -quat, quat)
