"""The two namespaces a program is written against: `JAX` (jax.numpy, then
jax.nn, then jax.lax, plus the jax.sharding API) and `SC` (shardc).

`ns.note(x, tag=None)` records `str(typeof(x))` (prefixed `tag:`) in the log of
the run in progress and returns `x`: the harness compares the two logs, so a
program can expose the types it sees inside bodies and regions."""
from __future__ import annotations

import jax
import jax.ad_checkpoint
import jax.numpy as jnp
import jax.scipy.special
import jax.scipy.stats
from jax.sharding import AxisType as JAxisType

import shardc as sc
import shardc.numpy as snp

from .meshes import mesh_pair


def _bind():
    from shardc.core import bind
    return bind


def bind(prim, *args, **params):
    """Bind a shardc primitive directly (for lax-level ops shardc has no public op for)."""
    return _bind()(prim, *args, **params)


class _NS:
    name: str
    #: the log of the run in progress (set by the harness)
    _notes: list | None = None

    def note(self, x, tag: str | None = None):
        if self._notes is not None:
            t = self.tstr(x)
            self._notes.append(f"{tag}:{t}" if tag else t)
        return x

    def mesh(self, name):
        """This side's mesh of the named oracle mesh."""
        return mesh_pair(name)[self is JAX]

    def __repr__(self) -> str:
        return self.name


class _JaxNS(_NS):
    name = "jax"
    P = jax.P
    lax = jax.lax
    nn = jax.nn
    AxisType = JAxisType
    AbstractMesh = jax.sharding.AbstractMesh
    NamedSharding = jax.sharding.NamedSharding
    jit = staticmethod(jax.jit)
    grad = staticmethod(jax.grad)
    value_and_grad = staticmethod(jax.value_and_grad)
    vjp = staticmethod(jax.vjp)
    jvp = staticmethod(jax.jvp)
    linearize = staticmethod(jax.linearize)
    jacfwd = staticmethod(jax.jacfwd)
    jacrev = staticmethod(jax.jacrev)
    hessian = staticmethod(jax.hessian)
    vmap = staticmethod(jax.vmap)
    vectorize = staticmethod(jnp.vectorize)
    custom_vjp = jax.custom_vjp
    custom_jvp = jax.custom_jvp
    custom_derivatives = jax.custom_derivatives
    custom_batching = jax.custom_batching
    custom_gradient = staticmethod(jax.custom_gradient)
    closure_convert = staticmethod(jax.closure_convert)
    linear_transpose = staticmethod(jax.linear_transpose)
    fwd_and_bwd = staticmethod(jax.fwd_and_bwd)
    ensure_compile_time_eval = staticmethod(jax.ensure_compile_time_eval)
    checkpoint = staticmethod(jax.checkpoint)
    checkpoint_policies = jax.checkpoint_policies
    checkpoint_name = staticmethod(jax.ad_checkpoint.checkpoint_name)
    typeof = staticmethod(jax.typeof)
    device_put = staticmethod(jax.device_put)
    shard_map = staticmethod(jax.shard_map)
    smap = staticmethod(jax.smap)
    debug = jax.debug
    pure_callback = staticmethod(jax.pure_callback)
    ffi = jax.ffi
    ShapeDtypeStruct = jax.ShapeDtypeStruct
    reshard = staticmethod(jax.sharding.reshard)
    auto_axes = staticmethod(jax.sharding.auto_axes)
    explicit_axes = staticmethod(jax.sharding.explicit_axes)
    use_abstract_mesh = staticmethod(jax.sharding.use_abstract_mesh)
    with_sharding_constraint = staticmethod(jax.lax.with_sharding_constraint)
    dot_general = staticmethod(jax.lax.dot_general)
    random = jax.random
    scipy = jax.scipy
    image = jax.image
    ops = jax.ops

    @staticmethod
    def tstr(x) -> str:
        return str(jax.typeof(x))

    def __getattr__(self, name: str):
        for mod in (jnp, jax.nn, jax.lax):
            if hasattr(mod, name):
                return getattr(mod, name)
        raise AttributeError(name)

    @staticmethod
    def reduce_sum(x, axes, out_sharding=None):
        return jax.lax.reduce_sum(x, tuple(axes), out_sharding=out_sharding)

    @staticmethod
    def concrete(x):
        return jnp.asarray(x)


class _ScNS(_NS):
    name = "shardc"
    P = sc.P
    checkpoint_name = staticmethod(sc.ad_checkpoint.checkpoint_name)
    random = sc.random
    image = sc.image
    ops = sc.ops
    fft = snp.fft  # `jnp.fft` (JAX's side finds it through jax.numpy)
    linalg = snp.linalg  # `jnp.linalg`, likewise

    @staticmethod
    def tstr(x) -> str:
        return str(sc.typeof(x))

    def __getattr__(self, name: str):
        return getattr(sc, name)

    @staticmethod
    def reduce_sum(x, axes, out_sharding=None):
        return sc.sum(x, tuple(axes), out_sharding=out_sharding)

    @staticmethod
    def broadcast_in_dim(x, shape, broadcast_dimensions, out_sharding=None):
        """`lax.broadcast_in_dim` has no public shardc op: bind the primitive."""
        from shardc.primitives.shape import broadcast_in_dim
        return bind(broadcast_in_dim, x, shape=tuple(shape),
                    broadcast_dimensions=tuple(broadcast_dimensions), out_sharding=out_sharding)

    @staticmethod
    def concrete(x):
        return sc.asarray(x)


JAX = _JaxNS()
SC = _ScNS()
