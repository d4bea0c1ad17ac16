"""Models with eagerly sharded parameters (`sc.nn`), after Flax's FLIP 4844.

A parameter may carry a sharding annotation. Constructed under a mesh, it is
created *sharded* as annotated — no init program, no `with_sharding_constraint`
dance::

    mesh = sc.make_mesh((2, 4), ("data", "model"))
    with sc.set_mesh(mesh):
        mlp = sc.nn.MLP(16, 64, kernel_shardings=(P(None, "model"), P("model", None)))
    sc.typeof(mlp.fc1.kernel.value)        # float32[16,64@model]

Constructing an annotated parameter with no mesh set is an error that names
the fix; `eager_sharding=False` (per parameter, or per module for all of its
parameters) opts out: the parameter is created replicated (or, with no mesh,
on the default device) and its annotation is kept as metadata only.

**Passing models to programs.** Modules (and `Param`s) are pytrees whose
leaves are the parameter values; their configuration (sizes, epsilon,
activation, annotations) is static. So a model is an ordinary program
argument, and `sc.nn.grad` differentiates with respect to it:

    y = sc.jit(lambda m, x: m(x, out_sharding=P("data", None)))(mlp, x)
    g = sc.jit(sc.nn.grad(loss))(mlp, x)   # a model-shaped gradient: g.fc1.kernel.value

`model.params()` is the same leaves as a nested dict, and
`model.apply(params, *args)` runs the model with such a dict — the form to use
when the parameters are a program's typed arguments (`shardc` scripts)::

    @sc.jit
    def forward(x: "f32[8@data,16]", w1: "f32[16,64@model]", ...):
        return mlp.apply({"fc1": {"kernel": w1, ...}, ...}, x)

Initialization is deterministic: NumPy's generator from `seed` (or a given
`rng`), never JAX's PRNG.
"""
from __future__ import annotations

import sys as _sys
from typing import Any as _Any
from typing import Callable as _Callable
from typing import Sequence as _Sequence

import jax.tree_util as _jtu
import numpy as _np

from . import dtypes as _dt
from . import nn_initializers as initializers
from .autodiff import grad as _grad
from .autodiff import value_and_grad as _value_and_grad
from .core import Tracer as _Tracer
from .core import current_trace as _current_trace
from .core import typeof as _typeof
from .errors import ShardcValueError as _ShardcValueError
from .errors import user_location as _user_location
from .mesh import get_abstract_mesh as _get_abstract_mesh
from .ops.activations import (  # noqa: F401  (jax.nn names, in __all__ through _JAX_NAMES)
    celu,
    elu,
    gelu,
    glu,
    hard_sigmoid,
    hard_silu,
    hard_swish,
    hard_tanh,
    identity,
    leaky_relu,
    log1mexp,
    log_sigmoid,
    log_softmax,
    logmeanexp,
    logsumexp,
    mish,
    one_hot,
    relu,
    relu6,
    selu,
    sigmoid,
    silu,
    soft_sign,
    softmax,
    softplus,
    sparse_plus,
    sparse_sigmoid,
    squareplus,
    standardize,
    swish,
    tanh,
)
from .ops.attention import dot_product_attention  # noqa: F401  (a jax.nn name)
from .ops.creation import asarray as _asarray
from .ops.elementwise import astype as _astype
from .ops.elementwise import rsqrt as _rsqrt
from .ops.indexing import take as _take
from .ops.linalg import matmul as _matmul
from .ops.reductions import mean as _mean
from .ops.shape import transpose as _transpose
from .ops.sharding import device_put as _device_put
from .ops.sharding import reshard as _reshard
from .runtime.mesh import get_mesh as _get_mesh
from .sharding import NamedSharding as _NamedSharding
from .sharding import PartitionSpec as _PartitionSpec

#: shardc's own: models with eagerly sharded parameters (not in `jax.nn`)
_MODEL_NAMES = ("Param", "Module", "Linear", "Embed", "LayerNorm", "MLP", "grad", "value_and_grad")
#: `jax.nn` 0.10.2's names that shardc has (`docs` and the coverage test list the rest)
_JAX_NAMES = (
    "celu", "dot_product_attention", "elu", "gelu", "glu", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh", "identity",
    "leaky_relu", "log1mexp", "log_sigmoid", "log_softmax", "logmeanexp", "logsumexp", "mish", "one_hot",
    "relu", "relu6", "selu", "sigmoid", "silu", "soft_sign", "softmax", "softplus", "sparse_plus",
    "sparse_sigmoid", "squareplus", "standardize", "swish", "tanh", "initializers",
)
# `import shardc.nn.initializers` works as `import jax.nn.initializers` does
_sys.modules.setdefault(__name__ + ".initializers", initializers)
__all__ = [*_MODEL_NAMES, *_JAX_NAMES]


def __dir__() -> list[str]:
    """Only the public names (the imports behind them stay out of `dir(sc.nn)`)."""
    return sorted(__all__)


def _tu():
    return _jtu


def _is_array(x) -> bool:
    return isinstance(x, _Tracer) or getattr(x, "_shardc_type", None) is not None


def _spec_text(s) -> str:
    return repr(s) if isinstance(s, (_PartitionSpec, _NamedSharding)) else str(s)


# --- parameters ------------------------------------------------------------------------------------
class Param:
    """A parameter value with an optional sharding annotation.

    `Param(value, out_sharding=P(...))` places `value` (host data or an array)
    on the context mesh as annotated (`sc.device_put`; inside a program,
    `sc.reshard`); `out_sharding` may also be an `sc.NamedSharding`, which
    brings its own mesh. With `eager_sharding=False` the annotation is only
    recorded. `.value` is the array, `.out_sharding` the annotation.
    """

    __slots__ = ("value", "out_sharding", "eager_sharding")

    def __init__(self, value, *, out_sharding=None, eager_sharding: bool = True, dtype=None):
        if isinstance(out_sharding, tuple):
            out_sharding = _PartitionSpec(*out_sharding)
        if out_sharding is not None and not isinstance(out_sharding, (_PartitionSpec, _NamedSharding)):
            raise _ShardcValueError(f"Param out_sharding must be an sc.P or sc.NamedSharding, got "
                                   f"{out_sharding!r}")
        self.out_sharding = out_sharding
        self.eager_sharding = bool(eager_sharding)
        self.value = _create(value, out_sharding, self.eager_sharding, dtype)

    # a Param reads like its value in arithmetic-free places
    @property
    def shape(self):
        return _typeof(self.value).shape

    @property
    def dtype(self):
        return _typeof(self.value).dtype

    def __repr__(self) -> str:
        ann = "" if self.out_sharding is None else f", out_sharding={_spec_text(self.out_sharding)}"
        eager = "" if self.eager_sharding else ", eager_sharding=False"
        try:
            t = _typeof(self.value)
        except Exception:  # noqa: BLE001 - a placeholder leaf inside a tree transformation
            t = type(self.value).__name__
        return f"Param({t}{ann}{eager})"


def _create(value, sharding, eager: bool, dtype):
    """The parameter's array: placed as annotated, or left replicated/unplaced."""
    if not _is_array(value):
        value = _np.asarray(value, dtype=dtype) if dtype is not None else _np.asarray(value)
        value = value.astype(_dt.canonicalize(value.dtype))
    elif dtype is not None:
        value = _astype(value, dtype)
    if sharding is None or not eager:
        return value if _is_array(value) else _asarray(value)
    if isinstance(sharding, _NamedSharding):
        return _device_put(value, sharding)
    if _current_trace() is not None:
        if _get_abstract_mesh().empty:
            raise _no_mesh_error(sharding)
        return _reshard(value if _is_array(value) else _asarray(value), sharding)
    if _get_mesh() is None:
        raise _no_mesh_error(sharding)
    return _device_put(value, sharding)


def _no_mesh_error(sharding) -> _ShardcValueError:
    return _ShardcValueError(
        f"a parameter annotated with out_sharding={_spec_text(sharding)} is created sharded, which "
        "needs a mesh, and none is set. Construct the model under `with sc.set_mesh(mesh):` (or "
        "after `sc.set_mesh(mesh)`), give the annotation a mesh (`sc.NamedSharding(mesh, spec)`), "
        "or pass `eager_sharding=False` to create the parameter unsharded and keep the annotation "
        "as metadata only", loc=_user_location())


def _flatten_param(p: Param):
    return (p.value,), (p.out_sharding, p.eager_sharding)


def _unflatten_param(aux, children) -> Param:
    p = object.__new__(Param)
    p.out_sharding, p.eager_sharding = aux
    (p.value,) = children
    return p


_tu().register_pytree_node(Param, _flatten_param, _unflatten_param)


# --- modules -----------------------------------------------------------------------------------------
def _is_child(v) -> bool:
    """Attributes that hold parameters: a Param, a Module, or a list/tuple of them."""
    if isinstance(v, (Param, Module)):
        return True
    return isinstance(v, (list, tuple)) and bool(v) and all(isinstance(e, (Param, Module)) for e in v)


class Module:
    """Base class: a module's parameters are its `Param` attributes and those of
    its sub-`Module`s (also in lists/tuples); everything else is static
    configuration. Subclasses are pytrees automatically."""

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        _tu().register_pytree_node(cls, _flatten_module, lambda aux, ch: _unflatten_module(cls, aux, ch))

    # --- parameters as data ------------------------------------------------------------------
    def _child_names(self) -> list[str]:
        return sorted(k for k, v in vars(self).items() if _is_child(v))

    def params(self) -> dict[str, _Any]:
        """The parameter values as a nested dict (sub-modules nest; lists of
        modules become lists), in the leaf order of the module's pytree."""
        out: dict[str, _Any] = {}
        for k in self._child_names():
            out[k] = _params_of(getattr(self, k))
        return out

    def apply(self, params: dict[str, _Any], *args, **kwargs):
        """Call the module with the parameter values in `params` (structured as
        `self.params()`); works inside programs with traced values."""
        return self.replace(params)(*args, **kwargs)

    def replace(self, params: dict[str, _Any]) -> "Module":
        """A copy of this module holding the values in `params` (as `params()`)."""
        tu = _tu()
        want = tu.tree_structure(self.params(), is_leaf=_is_array)
        got = tu.tree_structure(params, is_leaf=_is_array)
        if want != got:
            raise _ShardcValueError(
                f"params do not match {type(self).__name__}'s parameters: expected the structure of "
                f"`module.params()`, {want}, got {got}")
        leaves = tu.tree_leaves(params, is_leaf=_is_array)
        return tu.tree_unflatten(tu.tree_structure(self, is_leaf=_is_array), leaves)

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={getattr(self, k)!r}" for k in self._child_names())
        return f"{type(self).__name__}({inner})"


def _params_of(v):
    if isinstance(v, Param):
        return v.value
    if isinstance(v, Module):
        return v.params()
    return [_params_of(e) for e in v]


def _flatten_module(m: Module):
    keys = m._child_names()
    static = tuple((k, v) for k, v in sorted(vars(m).items()) if k not in keys)
    return tuple(getattr(m, k) for k in keys), (tuple(keys), static)


def _unflatten_module(cls, aux, children) -> Module:
    keys, static = aux
    m = object.__new__(cls)
    for k, v in static:
        object.__setattr__(m, k, v)
    for k, v in zip(keys, children):
        object.__setattr__(m, k, v)
    return m


def _rng(rng, seed: int) -> _np.random.Generator:
    if rng is None:
        return _np.random.default_rng(seed)
    if isinstance(rng, _np.random.Generator):
        return rng
    return _np.random.default_rng(rng)


def _normal(rng: _np.random.Generator, shape, std: float, dtype) -> _np.ndarray:
    return (rng.standard_normal(shape) * std).astype(_np.float32).astype(dtype)


# --- layers -----------------------------------------------------------------------------------------------
class Linear(Module):
    """`y = x @ kernel + bias` with `kernel: [in_features, out_features]`
    (LeCun-normal init: std `1/sqrt(in_features)`; zero bias)."""

    def __init__(self, in_features: int, out_features: int, *, use_bias: bool = True,
                 kernel_sharding=None, bias_sharding=None, dtype=_np.float32,
                 eager_sharding: bool = True, rng: _np.random.Generator | int | None = None, seed: int = 0):
        r = _rng(rng, seed)
        self.in_features, self.out_features = int(in_features), int(out_features)
        self.kernel = Param(_normal(r, (in_features, out_features), 1 / _np.sqrt(in_features), dtype),
                            out_sharding=kernel_sharding, eager_sharding=eager_sharding)
        self.bias = (Param(_np.zeros((out_features,), dtype), out_sharding=bias_sharding,
                           eager_sharding=eager_sharding) if use_bias else None)

    def __call__(self, x, *, out_sharding=None):
        """`out_sharding` goes to the matmul (needed when the contraction is
        sharded on both sides: say how to combine the partial sums)."""
        y = _matmul(x, self.kernel.value, out_sharding=out_sharding)
        if self.bias is not None:
            y = y + self.bias.value
        return y


class Embed(Module):
    """A `[num_embeddings, features]` table; `embed(ids)` is `sc.take(table,
    ids, axis=0)` (normal init, std `1/sqrt(features)`)."""

    def __init__(self, num_embeddings: int, features: int, *, embedding_sharding=None,
                 dtype=_np.float32, eager_sharding: bool = True,
                 rng: _np.random.Generator | int | None = None, seed: int = 0):
        r = _rng(rng, seed)
        self.num_embeddings, self.features = int(num_embeddings), int(features)
        self.embedding = Param(_normal(r, (num_embeddings, features), 1 / _np.sqrt(features), dtype),
                               out_sharding=embedding_sharding, eager_sharding=eager_sharding)

    def __call__(self, ids, *, out_sharding=None):
        """The rows at `ids` (out-of-range ids read NaN, as `jnp.take`). With
        sharded `ids`, pass `out_sharding=` (the gather cannot infer it)."""
        return _take(self.embedding.value, ids, axis=0, out_sharding=out_sharding)

    def attend(self, query, *, out_sharding=None):
        """`query @ table.T`: logits against every embedding (weight tying)."""
        return _matmul(query, _transpose(self.embedding.value), out_sharding=out_sharding)


class LayerNorm(Module):
    """Normalize over the last axis: `(x - mean) / sqrt(var + epsilon) * scale + bias`."""

    def __init__(self, features: int, *, epsilon: float = 1e-6, use_scale: bool = True,
                 use_bias: bool = True, scale_sharding=None, bias_sharding=None, dtype=_np.float32,
                 eager_sharding: bool = True):
        self.features, self.epsilon = int(features), float(epsilon)
        self.scale = (Param(_np.ones((features,), dtype), out_sharding=scale_sharding,
                            eager_sharding=eager_sharding) if use_scale else None)
        self.bias = (Param(_np.zeros((features,), dtype), out_sharding=bias_sharding,
                           eager_sharding=eager_sharding) if use_bias else None)

    def __call__(self, x):
        mu = _mean(x, axis=-1, keepdims=True)
        xc = x - mu
        var = _mean(xc * xc, axis=-1, keepdims=True)
        y = xc * _rsqrt(var + self.epsilon)
        if self.scale is not None:
            y = y * self.scale.value
        if self.bias is not None:
            y = y + self.bias.value
        return y


class MLP(Module):
    """`fc2(activation(fc1(x)))`: `features → hidden → out_features` (default
    `features`). For a Megatron layout pass
    `kernel_shardings=(P(None, "model"), P("model", None))` and call with
    `out_sharding=P(<batch axis>, None)` (the row-parallel sum)."""

    def __init__(self, features: int, hidden: int, *, out_features: int | None = None,
                 activation: _Callable | None = None, use_bias: bool = True,
                 kernel_shardings: _Sequence = (None, None), bias_shardings: _Sequence = (None, None),
                 dtype=_np.float32, eager_sharding: bool = True,
                 rng: _np.random.Generator | int | None = None, seed: int = 0):
        r = _rng(rng, seed)
        self.activation = activation
        self.fc1 = Linear(features, hidden, use_bias=use_bias, kernel_sharding=kernel_shardings[0],
                          bias_sharding=bias_shardings[0], dtype=dtype, eager_sharding=eager_sharding,
                          rng=r)
        self.fc2 = Linear(hidden, features if out_features is None else out_features, use_bias=use_bias,
                          kernel_sharding=kernel_shardings[1], bias_sharding=bias_shardings[1],
                          dtype=dtype, eager_sharding=eager_sharding, rng=r)

    def __call__(self, x, *, out_sharding=None):
        act = gelu if self.activation is None else self.activation
        return self.fc2(act(self.fc1(x)), out_sharding=out_sharding)


# --- gradients over pytrees ------------------------------------------------------------------------
#: `sc.nn.value_and_grad` / `sc.nn.grad` are `sc.value_and_grad` / `sc.grad`, which take pytree
#: arguments (modules, `params()` dicts, lists): one gradient API.
value_and_grad = _value_and_grad
grad = _grad
