"""`shardc.random`: JAX 0.10.2's `jax.random`, bit for bit.

    import shardc as jax
    k = jax.random.key(0)                      # key<fry>[]
    x = jax.random.normal(k, (8, 4))           # the same float32 values as JAX

The generator is JAX's default threefry2x32 with `jax_threefry_partitionable`
on (its 0.10.2 default): every value depends on the key and its position only,
so a sharded result (`out_sharding=`) holds the same values as JAX's on any
mesh. The kernel is `shardc/ops/prng.py`; the bits→float conversions below are
JAX's (`_uniform`, `_normal_real`, `_gumbel`, ...), with the same operation order.

Implementations. JAX's three: `threefry2x32` (the default, `key<fry>`, key data `uint32[..., 2]`),
`rbg` (`key<rbg>`) and `unsafe_rbg` (`key<urbg>`), key data `uint32[..., 4]`, as JAX's
`random/rbg.py` builds them (split / fold_in by threefry on each half key, or by RngBitGenerator;
random bits by `lax.rng_bit_generator`); `impl=` / `dtype=` or `jax_default_prng_impl` chooses.
A `KeyArray` carries its `PRNGImpl`; `_run` traces a sampler with it in use (`_split`, `_bits`).

Keys. `key(seed)` gives a typed key array, a `KeyArray` holding its key data
(`uint32[..., 2]`) and typed `key<fry>[...]` (`sc.typeof` prints it as JAX
does, shardings and varying axes included). It is a pytree with that one leaf,
so keys pass through `sc.jit` arguments and results, `scan` / `fori_loop`
carries and `shard_map` specs (a spec names the key dims); `keys[i]`, `len`,
iteration (`k1, k2 = split(k)`), `.shape`, `.dtype`, `==` work. `PRNGKey(seed)`
is a raw `uint32[2]` key, accepted wherever a key is. Samplers take one key
(JAX's error for a batch of keys: use `vmap`).

Each sampler runs as one program: inside a trace it is traced in place;
eagerly it is a cached `sc.jit` per static configuration (JAX jits its samplers
too). With `out_sharding=` the sampler runs under `auto_axes` over the mesh's
Explicit axes and its result is resharded, as JAX's `maybe_auto_axes`.

The gamma family (`gamma`, `loggamma`, `beta`, `dirichlet`, `chisquare`, `f`, `t`,
`generalized_normal`, `ball`) is JAX's Marsaglia–Tsang `_gamma_one` (a while_loop
with an inner while_loop) vmapped over the flattened elements, one key each; its
gradient in `a` is JAX's (`lax.random_gamma_grad`). `poisson` and `binomial` are
JAX's rejection loops over the whole array. `orthogonal` and `multivariate_normal` are
JAX's, over the linalg decompositions (`shardc/primitives/linalg.py`).

Key arrays as array data (as JAX 0.10.2): `jnp.where`, `lax.select`/`select_n`, `stack`,
`concatenate`, `reshape`, `transpose`, `expand_dims`, `squeeze`, `flip`, `take`, `roll`, `split`,
`tile`, `repeat`, `broadcast_to`, `asarray`, `lax.dynamic_slice`/`dynamic_index_in_dim`/`slice`/
`index_in_dim`/`broadcast`, `sc.reshard` / `sc.device_put` and `jit(in/out_shardings=)` take key
arrays: `_KeyOps` does the op on the key data with its trailing dim last and unsharded, registered
by op name with `core.register_foreign_ops`, so the one dispatch on operand type at each op's entry
(`core.api`, `core.dispatches` on `lax.py`'s functions) reaches it; an op needs no key check of its own. Arithmetic and
comparisons raise JAX's TypeErrors; keys mixed with other data, its ValueError.
"""
from __future__ import annotations

import contextlib
import functools
import math
from typing import Any, Sequence

import jax.tree_util as tu
import ml_dtypes
import numpy as np
from jax._src.dtypes import ExtendedDType as _ExtendedDType  # (JAX 0.10.2: not public; the base of key dtypes)
from jax.dtypes import prng_key as _prng_key

from . import core as _core
from . import dtypes as dt
from . import lax
from .batching import vmap
from .config import config
from .core import Const, Tracer, api, current_api, current_loc, current_trace, register_foreign_typeof
from .errors import ShardcError, ShardcNotImplementedError, ShardcTypeError, ShardcValueError
from .lax import is_array, type_of
from .mesh import get_abstract_mesh
from .ops import numpy_linalg as _la
from .ops import prng
from .ops._util import promote, promote_to_float
from .ops.activations import softmax
from .ops.construct import repeat as _repeat
from .ops.construct import split as _jsplit
from .ops.construct import tile as _tile
from .ops.control_flow import scan, while_loop
from .ops.creation import arange, asarray, broadcast_to, zeros
from .ops.custom import custom_jvp
from .ops.elementwise import abs as _abs
from .ops.elementwise import add, clip, erf, floor, log, log1p, multiply, power, sqrt, tan, true_divide, where
from .ops.elementwise import sign as _sign
from .ops.indexing import take
from .ops.lax_extra import rng_bit_generator as _rbg
from .ops.manual import pcast
from .ops.math import _inexact as _inexact_la
from .ops.reductions import any as _reduce_any
from .ops.reductions import argmax, cumsum
from .ops.reductions import sum as _sum
from .ops.shape import moveaxis, reshape, squeeze
from .ops.shape import stack as stack_
from .ops.sharding import auto_axes, reshard, stop_gradient
from .ops.sorting import sort_key_val, top_k
from .ops.special import random_gamma_grad
from .sharding import NamedSharding, PartitionSpec
from .stages import jit
from .types import ArrayType

__all__ = [
    "KeyArray", "PRNGKey", "key", "key_data", "wrap_key_data", "key_impl", "clone", "split", "fold_in",
    "bits", "uniform", "normal", "randint", "bernoulli", "categorical", "choice", "truncated_normal",
    "gumbel", "exponential", "laplace", "logistic", "cauchy", "rademacher", "permutation",
    "pareto", "rayleigh", "lognormal", "geometric", "maxwell", "triangular", "wald",
    "gamma", "loggamma", "beta", "dirichlet", "chisquare", "f", "t", "poisson", "binomial", "multinomial",
    "weibull_min", "double_sided_maxwell", "generalized_normal", "ball", "key_dtype",
]

class PRNGImpl:
    """One of JAX's PRNG implementations as shardc builds it (JAX's `PRNGImpl`): its name, its
    dtype tag (`key<fry>`), the key data's trailing shape and the kernels on one raw key,
    which `_split` / `_bits` / `fold_in` call for the key being used (`_using`)."""

    def __init__(self, name: str, tag: str, key_size: int, seed, split, fold_in, random_bits):
        self.name, self.tag, self.key_size = name, tag, key_size
        self.seed, self.split, self.fold_in, self.random_bits = seed, split, fold_in, random_bits

    def __repr__(self) -> str:
        return f"PRNGImpl({self.name})"

    def __str__(self) -> str:
        return self.name

    def __reduce__(self):
        return (_impl_by_name, (self.name,))


def _impl_by_name(name: str) -> "PRNGImpl":
    return _IMPLS[name]


class KeyDType(_ExtendedDType):
    """The dtype of a typed key array of one implementation (`key<fry>`, `key<rbg>`, `key<urbg>`):
    an extended dtype of JAX's kind, so `jnp.issubdtype(key.dtype, jax.dtypes.prng_key)` holds."""

    #: JAX's abstract scalar type of key dtypes
    type = _prng_key

    def __init__(self, impl: PRNGImpl):
        self._impl = impl
        self.name = f"key<{impl.tag}>"

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__

    def __eq__(self, other) -> bool:
        return (isinstance(other, KeyDType) and other._impl is self._impl) or other == self.name

    def __hash__(self) -> int:
        return hash(self.name)


# --- the implementations' kernels, on one raw key (JAX's jax/_src/random/threefry2x32.py, rbg.py) ---
def _rbg_seed(seed):
    """JAX's `_rbg_seed`: the threefry seed key twice (`uint32[4]`)."""
    half = prng.threefry_seed(seed)
    return lax.concatenate([half, half], 0)


def _halves(key) -> tuple[Any, Any]:
    """The two threefry half keys `uint32[2]` of an rbg key `uint32[4]` (JAX's `key.reshape(2, 2)`)."""
    return lax.slice(key, (0,), (2,)), lax.slice(key, (2,), (4,))


def _rbg_split(key, shape: Sequence[int]):
    """JAX's `_rbg_split`: each half key split by threefry's fold-like split, side by side."""
    h0, h1 = _halves(key)
    return lax.concatenate([prng.threefry_split(h0, shape), prng.threefry_split(h1, shape)], len(tuple(shape)))


def _rbg_fold_in(key, data):
    """JAX's `_rbg_fold_in`: threefry's fold_in on each half key."""
    h0, h1 = _halves(key)
    return lax.concatenate([prng.threefry_fold_in(h0, data), prng.threefry_fold_in(h1, data)], 0)


def _rbg_random_bits(key, bit_width: int, shape: Sequence[int]):
    """JAX's `_rbg_random_bits`: XLA's RngBitGenerator (default algorithm) on the key; the bits vary
    over the Manual axes the key varies over (JAX's `random_bits` type)."""
    if bit_width not in (8, 16, 32, 64):
        raise ShardcTypeError("requires 8-, 16-, 32- or 64-bit field width.")
    if bit_width == 64:
        raise ShardcNotImplementedError("64-bit random bits need jax_enable_x64, which shardc does not have")
    _, bits = _rbg(key, tuple(shape), dtype=prng.UINT_DTYPES[bit_width])
    return _pvary_like(_like_key(bits, key), key)


def _like_key(x, key):
    """`x` sharded as JAX's `random_bits` / `random_split` types it: the key's spec, then
    unsharded dims. Under `vmap` over sharded keys the batch dim takes the keys' sharding
    (XLA's RngBitGenerator draws the whole batch from the first key, replicated, as in JAX's
    lowering; the result is then resharded)."""
    t = type_of(x)
    if not t.mesh.has_explicit:
        return x
    spec = PartitionSpec(*type_of(key).spec[:-1], *(None,) * (t.ndim - type_of(key).ndim + 1))
    return reshard(x, spec)


def _unsafe_rbg_split(key, shape: Sequence[int]):
    """JAX's `_unsafe_rbg_split`: every 10th of `10 * num` generated keys."""
    num = math.prod(shape)
    _, keys = _rbg(key, (10 * num, 4), dtype=dt.uint32)
    keys = lax.slice(keys, (0, 0), (10 * num, 4), (10, 1))
    return _pvary_like(_like_key(lax.reshape(keys, (*shape, 4)), key), key)


def _unsafe_rbg_fold_in(key, data):
    """JAX's `_unsafe_rbg_fold_in`: the key xor the last of 10 keys generated from `data`'s seed."""
    _, bits = _rbg(_rbg_seed(data), (10, 4), dtype=dt.uint32)
    last = lax.reshape(lax.slice(bits, (9, 0), (10, 4)), (4,))
    return lax._binary("xor", key, _pvary_like(last, key))


_IMPLS: dict[str, PRNGImpl] = {i.name: i for i in (
    PRNGImpl("threefry2x32", "fry", 2, prng.threefry_seed, prng.threefry_split, prng.threefry_fold_in,
             prng.threefry_random_bits),
    PRNGImpl("rbg", "rbg", 4, _rbg_seed, _rbg_split, _rbg_fold_in, _rbg_random_bits),
    PRNGImpl("unsafe_rbg", "urbg", 4, _rbg_seed, _unsafe_rbg_split, _unsafe_rbg_fold_in, _rbg_random_bits))}
THREEFRY = _IMPLS["threefry2x32"]
KEY_DTYPE = KeyDType(THREEFRY)   # threefry's (JAX's default)
#: the implementation of the keys the sampler being traced uses (`_run` sets it)
_IMPL_STACK: list[PRNGImpl] = []


@contextlib.contextmanager
def _using(impl: PRNGImpl):
    _IMPL_STACK.append(impl)
    try:
        yield
    finally:
        _IMPL_STACK.pop()


def _cur_impl() -> PRNGImpl:
    return _IMPL_STACK[-1] if _IMPL_STACK else _default_impl()


def _default_impl() -> PRNGImpl:
    """`jax_default_prng_impl`: the implementation of `key(seed)` and of raw keys."""
    return _IMPLS[config.read("jax_default_prng_impl")]


def _split(key, shape: Sequence[int]):
    """`split` of one raw key of the implementation in use."""
    return _cur_impl().split(key, tuple(shape))


def _bits(key, bit_width: int, shape: Sequence[int]):
    """`random_bits` of one raw key of the implementation in use."""
    return _cur_impl().random_bits(key, bit_width, tuple(shape))


class ShardcOverflowError(ShardcError, OverflowError):
    """A seed or folded-in value outside the integer range JAX converts it to."""


class KeyType:
    """`key<fry>[...]`: the type of a typed key array, from the type of its data
    (`uint32[..., 2]`, `uint32[..., 4]` for rbg) and its implementation: the key dims keep
    their shardings, V/U/R sets as the data's."""

    def __init__(self, data: ArrayType, impl: PRNGImpl = THREEFRY):
        self.data, self.impl = data, impl

    @property
    def dtype(self) -> KeyDType:
        return KeyDType(self.impl)

    @property
    def shape(self) -> tuple[int, ...]:
        return self.data.shape[:-1]

    @property
    def ndim(self) -> int:
        return len(self.shape)

    weak_type = False

    @property
    def spec(self):
        return self.data.spec[:-1]

    @property
    def vma(self):
        return self.data.vma

    @property
    def mesh(self):
        return self.data.mesh

    @property
    def sharding(self) -> NamedSharding:
        return NamedSharding(self.mesh, PartitionSpec(*self.spec))

    def str_short(self, **_) -> str:
        keys = self.data.update(shape=self.shape, spec=self.spec)
        return f"key<{self.impl.tag}>" + keys.str_short()[len(dt.short_name(keys.dtype)):]

    def __str__(self) -> str:
        return self.str_short()

    def __repr__(self) -> str:
        return f"ShapedArray({self})"

    def __eq__(self, other) -> bool:
        return isinstance(other, KeyType) and other.data == self.data and other.impl is self.impl

    def __hash__(self) -> int:
        return hash(("key", self.impl.name, self.data))


@tu.register_pytree_node_class
class KeyArray:
    """A typed array of keys of one implementation (JAX's `PRNGKeyArray`): its key data
    (`uint32[*shape, 2]` for threefry, `[*shape, 4]` for rbg; a traced value or an `sc.Array`)
    behind a key type."""

    __slots__ = ("_data", "_impl")
    __array_priority__ = 200
    _key_ops: Any = None   # `_KeyOps`, below: the array ops JAX allows on key arrays

    def __init__(self, data, impl: PRNGImpl = THREEFRY):
        self._data, self._impl = data, impl

    def _like(self, data) -> "KeyArray":
        """Keys of this implementation over other key data."""
        return KeyArray(data, self._impl)

    # pytree: the key data is the one leaf; the implementation is static
    def tree_flatten(self):
        return (self._data,), self._impl.name

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(children[0], _IMPLS[aux] if aux is not None else THREEFRY)

    @property
    def aval(self) -> KeyType:
        return KeyType(type_of(self._data), self._impl)

    @property
    def dtype(self) -> KeyDType:
        return KeyDType(self._impl)

    @property
    def shape(self) -> tuple[int, ...]:
        return self.aval.shape

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def sharding(self):
        """On devices: the key data's concrete mesh (JAX's `NamedSharding(mesh, spec)`); traced: the type's."""
        mesh = getattr(self._data, "_mesh", None)
        if mesh is not None and not isinstance(self._data, Tracer):
            return NamedSharding(mesh, PartitionSpec(*self.aval.spec))
        return self.aval.sharding

    def block_until_ready(self) -> "KeyArray":
        """Waits for the key data (as `jax.Array.block_until_ready`)."""
        wait = getattr(self._data, "block_until_ready", None)
        if wait is not None:
            wait()
        return self

    @property
    def at(self) -> "_KeyAt":
        """`keys.at[idx].get()` / `.set(other_keys)` (JAX's indexed update on key arrays)."""
        return _KeyAt(self)

    def _index(self, idx) -> tuple:
        idx = idx if isinstance(idx, tuple) else (idx,)
        if Ellipsis not in idx:
            idx = idx + (Ellipsis,)
        return idx + (slice(None),)

    def ravel(self) -> "KeyArray":
        return self.reshape(-1)

    flatten = ravel

    def squeeze(self, axis=None) -> "KeyArray":
        """`jax.Array.squeeze` over the key dims (the key data's trailing dim stays)."""
        nd = self.ndim
        if axis is None:
            axes = tuple(i for i, n in enumerate(self.shape) if n == 1)
        else:
            axes = tuple(int(a) % nd if nd else int(a) for a in (axis if isinstance(axis, (tuple, list)) else (axis,)))
        return self._like(squeeze(self._data, axes))

    def __len__(self) -> int:
        if not self.shape:
            raise ShardcTypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise ShardcTypeError("iteration over a 0-d key array")
        return (self[i] for i in range(self.shape[0]))

    def __getitem__(self, idx) -> "KeyArray":
        idx = idx if isinstance(idx, tuple) else (idx,)
        if Ellipsis not in idx:
            idx = idx + (Ellipsis,)
        return self._like(self._data[idx + (slice(None),)])

    def __eq__(self, other):
        if not isinstance(other, KeyArray):
            return NotImplemented
        _same_impl("equal", self, other)
        return (self._data == other._data).all(axis=-1)

    def __ne__(self, other):
        if not isinstance(other, KeyArray):
            return NotImplemented
        _same_impl("not_equal", self, other)
        return (self._data != other._data).any(axis=-1)

    __hash__ = None  # arrays are unhashable

    def reshape(self, *shape) -> "KeyArray":
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        return self._like(reshape(self._data, (*shape, self._impl.key_size)))

    @property
    def T(self) -> "KeyArray":
        nd = self.ndim
        return self._like(self._data.transpose((*reversed(range(nd)), nd)))

    def __repr__(self) -> str:
        if isinstance(self._data, Tracer):
            return f"Tracer<{self.aval}>"
        return f"Array({self.shape}, dtype={self.dtype}) overlaying:\n{np.asarray(self._data)}"


register_foreign_typeof(lambda x: isinstance(x, KeyArray), lambda x: x.aval)


class _KeyAt:
    """`keys.at`: `[idx]` gives the get/set view of those keys."""

    def __init__(self, keys: KeyArray, idx=None):
        self._keys, self._idx = keys, idx

    def __getitem__(self, idx) -> "_KeyAt":
        return _KeyAt(self._keys, idx)

    def get(self, **kw) -> KeyArray:
        return self._keys._like(self._keys._data.at[self._keys._index(self._idx)].get(**kw))

    def set(self, values, **kw) -> KeyArray:
        if not _is_typed(values):
            raise ShardcValueError(f"dtype={self._keys.dtype} is not a valid dtype for JAX type promotion.")
        if values._impl is not self._keys._impl:
            raise ShardcTypeError(f"Cannot determine dtype of {self._keys.dtype}")
        return self._keys._like(self._keys._data.at[self._keys._index(self._idx)].set(values._data, **kw))


# === key arrays as array data ===============================================================
def _key_spec(out_sharding, nd: int):
    """A key array's `out_sharding` as its data's: padded to the key rank, the data dim unsharded."""
    if out_sharding is None:
        return None
    spec = out_sharding.spec if isinstance(out_sharding, NamedSharding) else out_sharding
    ents = (*tuple(spec), *(None,) * (nd - len(spec)), None)
    p = PartitionSpec(*ents)
    return NamedSharding(out_sharding.mesh, p) if isinstance(out_sharding, NamedSharding) else p


def _norm(axis, nd: int) -> int:
    a = int(axis)
    if not -nd <= a < nd:
        raise ShardcValueError(f"axis {axis} is out of bounds for array of dimension {nd}")
    return a % nd


#: which key dtype JAX's promotion error names when keys of several implementations meet
_MIX_ORDER = ("threefry2x32", "unsafe_rbg", "rbg")


def _keys_only(name: str, *xs) -> None:
    """JAX's error for a key array mixed with other data, or with keys of another
    implementation, in one op (its type promotion refuses)."""
    keys = [x for x in xs if _is_typed(x)]
    impls = {k._impl.name for k in keys}
    if len(keys) != len(xs) or len(impls) > 1:
        named = next(_IMPLS[n] for n in _MIX_ORDER if n in impls)
        raise ShardcValueError(f"dtype={KeyDType(named)} is not a valid dtype for JAX type promotion.")


def _same_impl(name: str, a: "KeyArray", b: "KeyArray") -> None:
    """JAX's TypeError for a comparison of keys of two implementations."""
    if a._impl is not b._impl:
        raise ShardcTypeError(f"{name} does not accept dtypes {a.dtype}, {b.dtype}.")


def _dtype_name(x) -> str:
    if _is_typed(x):
        return str(x.dtype)
    if isinstance(x, (bool, np.bool_)):
        return "bool"
    if isinstance(x, int):
        return "int32"
    if isinstance(x, float):
        return "float32"
    return dt.canonicalize(type_of(x).dtype if is_array(x) else np.asarray(x).dtype).name


_NUMERIC = "integer, floating, complexfloating"


def _no_arith(name: str, kind: str, accepted: str = _NUMERIC, mixed: str | None = None):
    """A `KeyArray` operator JAX refuses: its TypeError naming the lax op and the dtypes
    (`kind` "position": lax's per-operand check when both are keys, `mixed`'s dtypes message otherwise)."""
    def binary(self, other, swap=False):
        a, b = (other, self) if swap else (self, other)
        if kind == "position" and (_is_typed(a) and _is_typed(b) or mixed is None):
            i = 0 if _is_typed(a) else 1
            raise ShardcTypeError(f"{name} does not accept dtype {(a, b)[i].dtype} at position {i}. Accepted dtypes "
                                  f"at position {i} are subtypes of {accepted}.")
        raise ShardcTypeError(f"{mixed or name} does not accept dtypes {_dtype_name(a)}, {_dtype_name(b)}.")

    def unary(self):
        raise ShardcTypeError(f"{name} does not accept dtype {self.dtype}. Accepted dtypes are subtypes of {accepted}.")
    if kind == "unary":
        return unary, None
    return binary, (lambda self, other: binary(self, other, swap=True))


for _name, _lax, _kind, _acc, _mixed in [
        ("add", "add", "dtypes", _NUMERIC, None), ("mul", "multiply", "dtypes", _NUMERIC, None),
        ("truediv", "true_divide", "dtypes", _NUMERIC, None), ("mod", "remainder", "dtypes", _NUMERIC, None),
        ("floordiv", "floor_divide", "dtypes", _NUMERIC, None), ("and", "bitwise_and", "dtypes", _NUMERIC, None),
        ("or", "bitwise_or", "dtypes", _NUMERIC, None), ("xor", "bitwise_xor", "dtypes", _NUMERIC, None),
        ("sub", "sub", "position", _NUMERIC, "subtract"), ("neg", "neg", "unary", _NUMERIC, None),
        ("abs", "abs", "unary", "floating, complexfloating, signedinteger", None),
        ("lt", "lt", "position", "integer, floating, bool", None), ("le", "le", "position", "integer, floating, bool", None),
        ("gt", "gt", "position", "integer, floating, bool", None), ("ge", "ge", "position", "integer, floating, bool", None)]:
    _f, _rf = _no_arith(_lax, _kind, _acc, _mixed)
    setattr(KeyArray, f"__{_name}__", _f)
    if _rf is not None and _name not in ("lt", "le", "gt", "ge"):
        setattr(KeyArray, f"__r{_name}__", _rf)
del _name, _lax, _kind, _acc, _mixed, _f, _rf


class _KeyOps:
    """JAX's shape and selection ops on key arrays (`ops/` and `lax.py` dispatch here through
    `KeyArray._key_ops`): the op on the key data `uint32[*shape, 2]`, whose trailing dim stays
    last and unsharded, so types, shardings and key data are JAX's."""

    @staticmethod
    def asarray(a, dtype=None, order=None, *, copy=None, device=None, out_sharding=None):
        if isinstance(dtype, KeyDType) and dtype != a.dtype:
            raise ShardcValueError(
                f"cannot directly convert between extended dtypes: from {a.dtype} to {dtype}. Instead, convert to "
                f"and from their representation dtypes, e.g.:\n{a.dtype} -> uint32 -> uint32 -> {dtype}")
        if dtype is not None and dtype != a.dtype:
            raise ShardcTypeError(f"Cannot interpret a key array as dtype {dtype}")
        if out_sharding is None:
            return a
        return a._like(reshard(a._data, _key_spec(out_sharding, a.ndim)))

    @staticmethod
    def pcast(x, axis_name, *, to: str):
        """`lax.pcast` of keys: their data's varying/invariant state changes (JAX's `pcast` on a key array)."""
        return x._like(pcast(x._data, axis_name, to=to))

    @staticmethod
    def broadcast_to(x, shape, out_sharding=None):
        shape = (int(shape),) if np.ndim(shape) == 0 else tuple(int(s) for s in shape)
        return x._like(broadcast_to(x._data, (*shape, x._impl.key_size), out_sharding=_key_spec(out_sharding, len(shape))))

    @staticmethod
    def reshape(a, shape, order="C", *, copy=None, out_sharding=None):
        if order != "C":
            return NotImplemented
        shape = (shape,) if np.ndim(shape) == 0 else tuple(shape)
        return a._like(reshape(a._data, (*shape, a._impl.key_size), out_sharding=_key_spec(out_sharding, len(shape))))

    @staticmethod
    def transpose(x, axes=None):
        nd = x.ndim
        perm = tuple(reversed(range(nd))) if axes is None else tuple(_norm(a, nd) for a in axes)
        return x._like(lax.transpose(x._data, (*perm, nd)))

    @staticmethod
    def expand_dims(x, axis):
        axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
        nd = x.ndim + len(axes)
        return x._like(lax.expand_dims(x._data, sorted(_norm(a, nd) for a in axes)))

    @staticmethod
    def squeeze(x, axis=None):
        return x.squeeze(axis)

    @staticmethod
    def concatenate(arrays, axis=0, dtype=None):
        arrays = list(arrays)
        _keys_only("concatenate", *arrays)
        if axis is None:
            arrays, axis = [a.reshape(-1) for a in arrays], 0
        nd = arrays[0].ndim
        if nd == 0:
            raise ShardcValueError("Zero-dimensional arrays cannot be concatenated.")
        return arrays[0]._like(lax.concatenate([a._data for a in arrays], _norm(axis, nd)))

    @staticmethod
    def stack(arrays, axis=0, out=None, dtype=None):
        arrays = list(arrays)
        _keys_only("concatenate", *arrays)
        shapes = {a.shape for a in arrays}
        if len(shapes) != 1:
            raise ShardcValueError("All input arrays must have the same shape.")
        ax = _norm(axis, arrays[0].ndim + 1)
        return arrays[0]._like(lax.concatenate([lax.expand_dims(a._data, [ax]) for a in arrays], ax))

    @staticmethod
    def where(condition, x, y):
        _keys_only("select_n", x, y)
        c = asarray(condition)
        return x._like(where(lax.expand_dims(c, [type_of(c).ndim]), x._data, y._data))

    @staticmethod
    def select(pred, on_true, on_false):
        _keys_only("select_n", on_true, on_false)
        if on_true.shape != on_false.shape:
            raise ShardcTypeError("select cases must have the same shapes, got "
                                  f"[{', '.join(str(s) for s in (on_true.shape, on_false.shape))}].")
        p = asarray(pred)
        if type_of(p).ndim:
            p = lax.expand_dims(p, [type_of(p).ndim])
        return on_true._like(lax.select(p, on_true._data, on_false._data) if not type_of(p).ndim
                        else where(p, on_true._data, on_false._data))

    @staticmethod
    def select_n(which, *cases):
        _keys_only("select_n", *cases)
        w = asarray(which)
        data = [c._data for c in cases]
        if type_of(w).ndim:
            w = broadcast_to(lax.expand_dims(w, [type_of(w).ndim]), type_of(data[0]).shape)
        return cases[0]._like(lax.select_n(w, *data))

    @staticmethod
    def dynamic_slice(x, start_indices, slice_sizes, allow_negative_indices=True):
        neg = allow_negative_indices if isinstance(allow_negative_indices, bool) else [*allow_negative_indices, True]
        return x._like(lax.dynamic_slice(x._data, [*start_indices, 0], [*slice_sizes, x._impl.key_size],
                                          allow_negative_indices=neg))

    @staticmethod
    def dynamic_slice_in_dim(x, start_index, slice_size, axis=0, allow_negative_indices=True):
        return x._like(lax.dynamic_slice_in_dim(x._data, start_index, slice_size, _norm(axis, x.ndim),
                                                 allow_negative_indices=allow_negative_indices))

    @staticmethod
    def dynamic_index_in_dim(x, index, axis=0, keepdims=True, allow_negative_indices=True):
        return x._like(lax.dynamic_index_in_dim(x._data, index, _norm(axis, x.ndim), keepdims,
                                                 allow_negative_indices=allow_negative_indices))

    @staticmethod
    def flip(m, axis=None):
        nd = m.ndim
        axes = range(nd) if axis is None else (axis,) if isinstance(axis, (int, np.integer)) else axis
        return m._like(lax.rev(m._data, [_norm(a, nd) for a in axes]))

    @staticmethod
    def take(a, indices, axis=None, **kw):
        if axis is None:
            a, axis = a.reshape(-1), 0
        return a._like(take(a._data, indices, axis=_norm(axis, a.ndim), **kw))

    # `lax`'s forms (no promotion, positional dims)
    @staticmethod
    def lax_reshape(x, new_sizes, dimensions=None, out_sharding=None):
        nd, new_sizes = x.ndim, tuple(new_sizes)
        dims = None if dimensions is None else (*(_norm(d, nd) for d in dimensions), nd)
        return x._like(lax.reshape(x._data, (*new_sizes, x._impl.key_size), dims,
                                    out_sharding=_key_spec(out_sharding, len(new_sizes))))

    @staticmethod
    def lax_broadcast(x, sizes, out_sharding=None):
        sizes = tuple(sizes)
        return x._like(lax.broadcast(x._data, sizes, out_sharding=_key_spec(out_sharding, len(sizes) + x.ndim)))

    @staticmethod
    def lax_slice(x, start_indices, limit_indices, strides=None):
        return x._like(lax.slice(x._data, (*start_indices, 0), (*limit_indices, x._impl.key_size),
                                  None if strides is None else (*strides, 1)))

    @staticmethod
    def lax_slice_in_dim(x, start_index, limit_index, stride=1, axis=0):
        return x._like(lax.slice_in_dim(x._data, start_index, limit_index, stride, _norm(axis, x.ndim)))

    @staticmethod
    def lax_index_in_dim(x, index, axis=0, keepdims=True):
        return x._like(lax.index_in_dim(x._data, index, _norm(axis, x.ndim), keepdims))

    @staticmethod
    def split(x, indices_or_sections, axis=0):
        return [x._like(d) for d in _jsplit(x._data, indices_or_sections, _norm(axis, x.ndim))]

    @staticmethod
    def tile(x, reps):
        reps = (reps,) if np.ndim(reps) == 0 else tuple(reps)
        reps = (1,) * (x.ndim - len(reps)) + reps
        return x._like(_tile(x._data, (*reps, 1)))

    @staticmethod
    def repeat(x, repeats, axis=None, total_repeat_length=None, out_sharding=None):
        if axis is None:
            x, axis = x.reshape(-1), 0
        return x._like(_repeat(x._data, repeats, _norm(axis, x.ndim), total_repeat_length=total_repeat_length,
                                out_sharding=_key_spec(out_sharding, x.ndim)))


KeyArray._key_ops = _KeyOps
#: the public ops key arrays go through (`core.api` / `core.dispatches` look them up by name)
_core.register_foreign_ops(KeyArray, {
    **{f"sc.{n}": getattr(_KeyOps, n) for n in (
        "asarray", "broadcast_to", "pcast", "reshape", "transpose", "expand_dims", "squeeze", "concatenate", "stack",
        "where", "take", "split", "tile", "repeat", "flip")},
    **{f"lax.{n}": getattr(_KeyOps, n) for n in (
        "select", "select_n", "transpose", "expand_dims", "squeeze", "concatenate", "dynamic_slice",
        "dynamic_slice_in_dim", "dynamic_index_in_dim")},
    **{f"lax.{n}": getattr(_KeyOps, f"lax_{n}") for n in (
        "reshape", "broadcast", "slice", "slice_in_dim", "index_in_dim")},
})


def _is_typed(x) -> bool:
    return isinstance(x, KeyArray)


def _check_key_data(data, impl: PRNGImpl) -> Any:
    """Raw key data of `impl` as an operand: `uint32[..., 2]` (threefry) or `uint32[..., 4]`
    (rbg, unsafe_rbg) (JAX's `_check_prng_key_data`)."""
    if not is_array(data):
        data = asarray(data) if not isinstance(data, Const) else data
    t = type_of(data)
    if t.shape[-1:] != (impl.key_size,):
        raise ShardcTypeError(
            f"JAX encountered invalid PRNG key data: expected key_data.shape to end with ({impl.key_size},); "
            f"got shape={t.shape} for impl={impl.name}")
    if t.dtype != dt.uint32:
        raise ShardcTypeError(
            f"JAX encountered invalid PRNG key data: expected key_data.dtype = uint32; got dtype={t.dtype.name}")
    return data


def _check_key(name: str, key, allow_batched: bool = False) -> tuple[KeyArray, bool]:
    """(typed keys, was it raw) of a typed or raw key (raw key data is of the default
    implementation, as JAX's); one key unless `allow_batched`."""
    if _is_typed(key):
        keys, raw = key, False
    elif is_array(key) or isinstance(key, (np.ndarray, np.generic)) or hasattr(key, "__jax_array__") \
            or type(key).__module__.startswith("jax"):
        impl = _default_impl()
        keys, raw = KeyArray(_check_key_data(key, impl), impl), True
    else:
        raise ShardcTypeError(f"unexpected PRNG key type {type(key)}")
    if not allow_batched and keys.shape:
        raise ShardcValueError(f"{name} accepts a single key, but was given a key array of shape {keys.shape} "
                               "!= (). Use jax.vmap for batching.")
    return keys, raw


def _out_key(keys: KeyArray, raw: bool):
    return keys._data if raw else keys


# === running a sampler ======================================================================
_JITS: dict = {}


def _run(name: str, f, out_sharding, args: Sequence[Any], **static):
    """`f(*args, **static)` as one program: in place inside a trace, else a cached `sc.jit`;
    under `auto_axes` over the Explicit axes when `out_sharding` is given (JAX's `maybe_auto_axes`).
    A typed key among `args` reaches `f` as its raw data, and `f` runs with its implementation
    in use (`_split`, `_bits`)."""
    impl = next((a._impl for a in args if _is_typed(a)), None) or _cur_impl()
    args = tuple(a._data if _is_typed(a) else a for a in args)

    def make():
        return _maybe_auto_axes(_with_impl(functools.partial(f, **static), impl), out_sharding)

    if current_trace() is not None:
        return make()(*args)
    try:
        cache_key = (f, impl.name, tuple(sorted(static.items())), out_sharding, get_abstract_mesh())
        hash(cache_key)
    except TypeError:
        return jit(make(), name=name)(*args)
    j = _JITS.get(cache_key)
    if j is None:
        j = _JITS[cache_key] = jit(make(), name=name)
    return j(*args)


def _with_impl(fn, impl: PRNGImpl):
    """`fn` traced with `impl` in use."""
    @functools.wraps(fn)
    def run(*args, **kwargs):
        with _using(impl):
            return fn(*args, **kwargs)
    return run


def _maybe_auto_axes(fn, osh):
    """`fn` under `auto_axes` over the Explicit axes with result sharding `osh` (JAX's
    `maybe_auto_axes`), or `fn` itself when `osh` is None.

    A replicated `osh` (the `P()` JAX gives scalar and `shape=None` samplers on an all-Explicit
    mesh) over replicated operands is the identity on types and values, so that region is left
    out: `sc.grad` through an `auto_axes` region fails in shardc for now (a context-mesh mismatch
    in the backward pass), and `grad(lambda a: gamma(key, a).sum())` is the common case."""
    if osh is None:
        return fn
    auto = auto_axes(fn, axes=get_abstract_mesh().explicit_axes, out_sharding=osh)
    if any(e is not None for e in osh) or getattr(osh, "unreduced", None) or getattr(osh, "reduced", None):
        return auto

    def run(*args):
        leaves = [x for x in tu.tree_leaves(args) if is_array(x)]
        if any(any(e is not None for e in type_of(x).spec) or type_of(x).vma for x in leaves):
            return auto(*args)
        out = fn(*args)
        return tu.tree_map(lambda o: reshard(o, osh) if any(e is not None for e in type_of(o).spec) else o, out)
    return run


def _canonical_shape(shape) -> tuple[int, ...]:
    """JAX's `canonicalize_shape`: a Python int (bool included) is a 1-D shape, a NumPy integer
    scalar is not a shape (Python's TypeError, as JAX's); each dimension a Python or NumPy integer
    (a Python bool counts, a NumPy bool does not)."""
    if isinstance(shape, int):
        shape = (int(shape),)
    try:
        dims = tuple(shape)
    except TypeError as e:
        raise ShardcTypeError(str(e)) from None
    if not all(isinstance(d, (int, np.integer)) for d in dims):
        raise ShardcTypeError(f"Shapes must be 1D sequences of concrete values of integer type, got {shape}.")
    if any(d < 0 for d in dims):
        raise ShardcTypeError(f"Shapes must be 1D sequences of integer scalars, got {dims}")
    return tuple(int(d) for d in dims)


def _canonical_sharding(out_sharding, name: str):
    """`canonicalize_sharding`: a spec on the context mesh (or None)."""
    if out_sharding is None:
        return None
    if isinstance(out_sharding, NamedSharding):
        return out_sharding.spec
    if isinstance(out_sharding, PartitionSpec):
        if get_abstract_mesh().empty:
            raise ShardcValueError(
                "Using PartitionSpec when you are not under a mesh context is not allowed. Please pass a "
                f"NamedSharding instance or enter into a mesh context via `jax.set_mesh`. Got {out_sharding!r}")
        return out_sharding
    raise ShardcTypeError(f"{name}: out_sharding must be a PartitionSpec or NamedSharding, got {out_sharding!r}")


def _sampler_sharding(out_sharding, name: str, shape: tuple[int, ...]):
    """`canonicalize_sharding_for_samplers`: a scalar on an all-Explicit mesh is replicated."""
    spec = _canonical_sharding(out_sharding, name)
    m = get_abstract_mesh()
    if spec is None and not shape and not m.empty and m.are_all_axes_explicit:
        spec = PartitionSpec()
    return spec


def _user_dtype(dtype, default) -> np.dtype:
    return dt.canonicalize(default if dtype is None else dtype)


def _float_dtype(dtype, name: str, what: str = "a float dtype") -> np.dtype:
    """The sampler's dtype (float32 by default); complex too where `what` says so (JAX's
    `normal`, `lognormal`, `orthogonal`: `issubdtype(dtype, np.inexact)`)."""
    d = _user_dtype(dtype, dt.float32)
    if not (dt.is_float(d) or (dt.is_complex(d) and what == "a float or complex dtype")):
        raise ShardcValueError(f"dtype argument to `{name}` must be {what}, got {d.name}")
    return d


def _finfo(d: np.dtype):
    return ml_dtypes.finfo(d)


# === keys ===================================================================================
def _seed_operand(seed, ctor: str):
    if _is_typed(seed):
        raise ShardcTypeError(f"{ctor} accepts a scalar seed, but was given a PRNG key.")
    if np.ndim(seed) if not is_array(seed) else type_of(seed).ndim:
        shape = np.shape(seed) if not is_array(seed) else type_of(seed).shape
        raise ShardcTypeError(f"{ctor} accepts a scalar seed, but was given an array of shape {shape} != (). "
                              "Use jax.vmap for batching")
    if isinstance(seed, (bool, np.bool_)):
        raise ShardcTypeError(f"PRNG key seed must be an integer; got {seed!r}")
    if isinstance(seed, int):
        # JAX converts through int64 and keeps the low 32 bits (x64 disabled)
        if not -2 ** 63 <= seed < 2 ** 63:
            raise ShardcOverflowError("Python int too large to convert to C long")
        low = seed & 0xFFFFFFFF
        return np.int32(low - 2 ** 32 if low >= 2 ** 31 else low)
    if not is_array(seed):
        seed = np.asarray(seed)
        if seed.dtype.kind not in "iu":
            raise ShardcTypeError(f"PRNG key seed must be an integer; got {seed!r}")
        return seed.astype(dt.canonicalize(seed.dtype))
    return seed


def _seed(seed):
    return _cur_impl().seed(seed)


_JAX_IMPLS = ("philox2x32", "philox4x32", "threefry2x32", "rbg", "unsafe_rbg", "threefry4x32")
_BY_TAG = {f"key<{i.tag}>": i for i in _IMPLS.values()}


def _resolve_impl(spec) -> PRNGImpl:
    """JAX's `resolve_prng_impl`: None is the default implementation; a name, a key dtype
    (`key<rbg>`, shardc's or JAX's), a `PRNGSpec` / `PRNGImpl` name one. JAX's generators
    shardc does not build (philox, threefry4x32) are refused by name."""
    if spec is None:
        return _default_impl()
    if isinstance(spec, PRNGImpl):
        return spec
    if isinstance(spec, KeyDType):
        return spec._impl
    name = spec
    if not isinstance(spec, str) and type(spec).__module__.startswith("jax"):
        name = getattr(getattr(spec, "_impl", spec), "name", str(spec))
    if isinstance(name, str):
        if name in _IMPLS:
            return _IMPLS[name]
        if name in _BY_TAG:
            return _BY_TAG[name]
        if name in _JAX_IMPLS:
            raise ShardcNotImplementedError(f"PRNG implementation {name!r} is not available in shardc: only "
                                            "threefry2x32 (JAX's default), rbg and unsafe_rbg")
    if isinstance(spec, str):
        raise ShardcValueError(f'unrecognized PRNG implementation "{spec}". Did you mean one of: '
                               + ", ".join(f'"{n}"' for n in _JAX_IMPLS) + "?")
    raise ShardcTypeError(f"unrecognized type {type(spec)} for specifying PRNG implementation.")


def key(seed, *, impl=None, dtype=None) -> KeyArray:
    """A typed key `key<fry>[]` (`key<rbg>`, `key<urbg>`) from an integer seed (as `jax.random.key`)."""
    if dtype is not None and impl is not None:
        raise ShardcValueError("Cannot specify both `impl` and `dtype` arguments to jax.random.key")
    im = _resolve_impl(impl if impl is not None else dtype)
    s = _seed_operand(seed, "key")
    with _using(im):
        return KeyArray(_run("key", _seed, None, (s,)), im)


def PRNGKey(seed, *, impl=None):
    """Raw key data `uint32[2]` (`uint32[4]` for rbg) from an integer seed (as `jax.random.PRNGKey`)."""
    im = _resolve_impl(impl)
    s = _seed_operand(seed, "PRNGKey")
    with _using(im):
        return _run("PRNGKey", _seed, None, (s,))


def key_data(keys):
    """The `uint32[..., 2]` (`[..., 4]`) data of (typed or raw) keys."""
    ks, _ = _check_key("key_data", keys, allow_batched=True)
    return ks._data


def wrap_key_data(key_bits_array, *, impl=None, dtype=None) -> KeyArray:
    """Typed keys of `impl` over `uint32[..., 2]` (`[..., 4]`) key data."""
    if dtype is not None and impl is not None:
        raise ShardcValueError("Cannot specify both `impl` and `dtype` arguments to jax.random.wrap_key_data")
    im = _resolve_impl(impl if impl is not None else dtype)
    if _is_typed(key_bits_array):
        raise ShardcTypeError("wrap_key_data takes key data (uint32), got a typed key array")
    return KeyArray(_check_key_data(key_bits_array, im), im)


def key_impl(keys) -> str:
    """The name of the keys' implementation (JAX 0.10.2 returns the name)."""
    ks, _ = _check_key("key_impl", keys, allow_batched=True)
    return ks._impl.name


def clone(key):
    """Identity (JAX's key-reuse checker is not modelled)."""
    return key


def _split_keys(key, *, shape):
    return _split(key, shape)


def split(key, num: int | tuple[int, ...] = 2):
    """`num` new keys (a shape, if a tuple) from one key."""
    ks, raw = _check_key("split", key)
    shape = tuple(num) if isinstance(num, (tuple, list)) else (num,)
    shape = _canonical_shape(shape)
    return _out_key(ks._like(_run("split", _split_keys, None, (ks,), shape=shape)), raw)


def _fold_in(data, msg):
    out = _cur_impl().fold_in(data, lax.convert_element_type(msg, dt.uint32))
    return _pvary_like(out, msg) if is_array(msg) else out


def fold_in(key, data):
    """A new key from `key` and a 32-bit integer."""
    ks, raw = _check_key("fold_in", key)
    nd = type_of(data).ndim if is_array(data) else np.ndim(data)
    if nd:
        shape = type_of(data).shape if is_array(data) else np.shape(data)
        raise ShardcTypeError(f"fold_in accepts a scalar, but was given an array ofshape {shape} != (). "
                              "Use jax.vmap for batching.")
    if isinstance(data, int) and not 0 <= data < 2 ** 32:
        raise ShardcOverflowError(f"Python integer {data} out of bounds for uint32")
    if not is_array(data):
        data = np.asarray(np.asarray(data).astype(np.int64) & 0xFFFFFFFF, dtype=np.uint32) \
            if np.asarray(data).dtype.kind in "iub" else np.asarray(data, dtype=np.uint32)
    return _out_key(ks._like(_run("fold_in", _fold_in, None, (ks, data))), raw)


# === samplers ===============================================================================
def _random_bits(key, bit_width: int, shape):
    return _bits(key, bit_width, shape)


def bits(key, shape=(), dtype=None, *, out_sharding=None):
    """Uniform random bits as unsigned integers (uint32 by default)."""
    kd, _ = _check_key("bits", key)
    d = _user_dtype(dtype, dt.uint32)
    if d.kind != "u":
        raise ShardcValueError(f"dtype argument to `bits` must be an unsigned int dtype, got {d.name}")
    shape = _canonical_shape(shape)
    osh = _sampler_sharding(out_sharding, "bits", shape)
    return _run("bits", _random_bits, osh, (kd,), bit_width=d.itemsize * 8, shape=shape)


def _broadcast_to_rank(x, rank: int):
    t = type_of(x)
    return x if t.ndim >= rank else lax.expand_dims(x, tuple(range(rank - t.ndim)))


def _uniform(key, minval, maxval, *, shape, dtype):
    minval = _broadcast_to_rank(lax.convert_element_type(minval, dtype), len(shape))
    maxval = _broadcast_to_rank(lax.convert_element_type(maxval, dtype), len(shape))
    fi = _finfo(dtype)
    nbits, nmant = fi.bits, fi.nmant
    rng_bits = 8 if nmant < 8 else nbits
    b = _bits(key, rng_bits, shape)
    udt = prng.UINT_DTYPES[nbits]
    if rng_bits != nbits:
        b = lax.convert_element_type(b, udt)
    float_bits = lax.shift_right_logical(b, Const(rng_bits - nmant, udt))
    one_bits = np.array(1.0, dtype).view(udt)
    float_bits = lax._binary("or", float_bits, Const(one_bits, udt))
    floats = lax.sub(lax.bitcast_convert_type(float_bits, dtype), Const(np.array(1.0, dtype), dtype))
    out = lax.add(lax.mul(floats, lax.sub(maxval, minval)), minval)
    return lax.max(minval, lax.reshape(out, shape))


def _real_operand(x, name: str):
    """A bound (`minval`, `p`, ...) as an operand: arrays stay, Python/NumPy values too."""
    if _is_typed(x):
        raise ShardcTypeError(f"{name}: a PRNG key cannot be a bound")
    return x


def uniform(key, shape=(), dtype=None, minval=0.0, maxval=1.0, *, out_sharding=None):
    """Uniform values in [minval, maxval)."""
    kd, _ = _check_key("uniform", key)
    d = _user_dtype(dtype, dt.float32)
    shape = _canonical_shape(shape)
    osh = _sampler_sharding(out_sharding, "uniform", shape)
    if not dt.is_float(d):
        raise ShardcValueError(f"dtype argument to `uniform` must be a float dtype, got {d.name}")
    return _run("uniform", _uniform, osh, (kd, _real_operand(minval, "uniform"), _real_operand(maxval, "uniform")),
                shape=shape, dtype=d)


def _normal(key, *, shape, dtype):
    """JAX's `_normal`: a complex dtype has independent real and imaginary parts from two split
    keys, each of variance 1/2 (`(re + 1j * im) / sqrt(2)`, in JAX's order of operations)."""
    if dt.is_complex(dtype):
        real = dt.real_dtype(dtype)
        keys = _split(key, (2,))
        re = lax.convert_element_type(_normal_real(keys[0], shape=shape, dtype=real), dtype)
        im = lax.convert_element_type(_normal_real(keys[1], shape=shape, dtype=real), dtype)
        c = lambda v: Const(np.array(v, dtype), np.dtype(dtype))  # noqa: E731
        return lax.div(lax.add(re, lax.mul(c(1j), im)), c(np.sqrt(2)))
    return _normal_real(key, shape=shape, dtype=dtype)


def _normal_real(key, *, shape, dtype):
    lo = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype), dtype=dtype)
    u = _uniform(key, Const(lo, dtype), Const(np.array(1.0, dtype), dtype), shape=shape, dtype=dtype)
    return lax.mul(Const(np.array(np.sqrt(2), dtype), dtype), lax.erf_inv(u))


def normal(key, shape=(), dtype=None, *, out_sharding=None):
    """Standard normal values."""
    kd, _ = _check_key("normal", key)
    shape = _canonical_shape(shape)
    osh = _sampler_sharding(out_sharding, "normal", shape)
    d = _float_dtype(dtype, "normal", "a float or complex dtype")
    return _run("normal", _normal, osh, (kd,), shape=shape, dtype=d)


def _convert_and_clip_integer(val, dtype):
    """`val` (integer) as `dtype`, clipped to the range both dtypes hold."""
    vt = type_of(val).dtype
    lo = max(np.iinfo(dtype).min, np.iinfo(vt).min)
    hi = min(np.iinfo(dtype).max, np.iinfo(vt).max)
    v = lax.min(lax.max(val, Const(lo, vt)), Const(hi, vt))
    return lax.convert_element_type(v, dtype)


def _int_operand(x):
    """`jnp.asarray(x)`, floats as int (as `_randint`)."""
    if not is_array(x):
        a = np.asarray(x)
        if isinstance(x, (int, np.integer)) and not isinstance(x, bool) and a.dtype.kind in "iu":
            a = np.asarray(x, dtype=dt.canonicalize(a.dtype)) if not isinstance(x, int) else \
                np.asarray(np.int64(x).astype(np.int32))
        x = Const(a, dt.canonicalize(a.dtype))
    if not dt.is_int(type_of(x).dtype):
        x = lax.convert_element_type(x, dt.int32)
    return x


def _randint(key, minval, maxval, *, shape, dtype):
    minval, maxval = _int_operand(minval), _int_operand(maxval)
    mt = type_of(maxval).dtype
    info = np.iinfo(dtype)
    top = _convert_and_clip_integer(Const(np.array(info.max, dtype), dtype), mt)
    maxval_out_of_range = lax.gt(maxval, top)
    minval = _broadcast_to_rank(_convert_and_clip_integer(minval, dtype), len(shape))
    maxval = _broadcast_to_rank(_convert_and_clip_integer(maxval, dtype), len(shape))
    nbits = info.bits
    ks = _split(key, (2,))
    higher = _bits(ks[0], nbits, shape)
    lower = _bits(ks[1], nbits, shape)
    udt = prng.UINT_DTYPES[nbits]
    span = lax.convert_element_type(lax.sub(maxval, minval), udt)
    span = _select(lax.le(maxval, minval), lax.full_like(span, 1), span)
    bump = lax._binary("and", maxval_out_of_range if type_of(maxval_out_of_range).ndim == 0 else
                       _broadcast_to_rank(maxval_out_of_range, len(shape)), lax.gt(maxval, minval))
    span = _select(bump, lax.add(span, Const(1, udt)), span)
    mult = lax.rem(Const(np.array(2 ** (nbits // 2), udt), udt), span)
    mult = lax.rem(lax.mul(mult, mult), span)
    off = lax.add(lax.mul(lax.rem(higher, span), mult), lax.rem(lower, span))
    off = lax.rem(off, span)
    return lax.add(minval, lax.convert_element_type(off, dtype))


def _select(pred, on_true, on_false):
    """`lax.select` with NumPy broadcasting of the operands (shapes of `_randint`)."""
    return where(pred, on_true, on_false)


def _check_shape(name: str, shape, *param_shapes) -> None:
    if param_shapes:
        try:
            res = np.broadcast_shapes(shape, *param_shapes)
        except ValueError:
            raise ShardcValueError(f"Incompatible shapes for broadcasting: shapes={[tuple(shape), *param_shapes]}") \
                from None
        if res != tuple(shape):
            raise ShardcValueError(
                f"{name} parameter shapes must be broadcast-compatible with shape argument, and the result of "
                f"broadcasting the shapes must equal the shape argument, but got result {res} for shape "
                f"argument {tuple(shape)}.")


def _shape_of(x) -> tuple[int, ...]:
    return type_of(x).shape if is_array(x) else np.shape(x)


def randint(key, shape, minval, maxval, dtype=None, *, out_sharding=None):
    """Uniform integers in [minval, maxval)."""
    kd, _ = _check_key("randint", key)
    d = _user_dtype(dtype, dt.int32)
    shape = _canonical_shape(shape)
    osh = _sampler_sharding(out_sharding, "randint", shape)
    if not dt.is_int(d):
        raise ShardcTypeError(f"randint only accepts integer dtypes, got {d.name}")
    _check_shape("randint", shape, _shape_of(minval), _shape_of(maxval))
    info = np.iinfo(d)
    sample_dtype = d
    if info.bits < 32:
        sample_dtype = dt.int32
        minval = clip(_as_int32(minval), int(info.min), int(info.max))
        maxval = clip(_as_int32(maxval), int(info.min), int(info.max) + 1)
    out = _run("randint", _randint, osh, (kd, minval, maxval), shape=shape, dtype=sample_dtype)
    return out if sample_dtype == d else lax.convert_element_type(out, d)


def _as_int32(x):
    if is_array(x):
        return lax.convert_element_type(x, dt.int32)
    return np.asarray(x).astype(np.int32)


def _bernoulli(key, p, *, shape, mode):
    d = type_of(p).dtype
    if shape is None:
        shape = type_of(p).shape
    if mode == "high":
        u = _uniform(key, Const(np.array(0.0, d), d), Const(np.array(1.0, d), d), shape=(2, *shape), dtype=d)
        u1, u2 = u[0], u[1]
        u2 = lax.mul(u2, Const(np.array(2.0 ** -_finfo(d).nmant, d), d))
        return lax.lt(u2, lax.sub(p, u1))
    u = _uniform(key, Const(np.array(0.0, d), d), Const(np.array(1.0, d), d), shape=shape, dtype=d)
    return lax.lt(u, p)


def bernoulli(key, p=0.5, shape=None, mode: str = "low", *, out_sharding=None):
    """Booleans that are True with probability `p`."""
    if shape is not None:
        shape = _canonical_shape(shape)
    if mode not in ("high", "low"):
        raise ShardcValueError(f"got mode={mode!r}, expected 'high' or 'low'")
    kd, _ = _check_key("bernoulli", key)
    osh = _canonical_sharding(out_sharding, "bernoulli")
    pt = type_of(p)
    if not dt.is_float(pt.dtype):
        raise ShardcTypeError(f"bernoulli probability `p` must have a floating dtype, got {pt.dtype.name}.")
    if not is_array(p):
        p = np.asarray(p, pt.dtype)
    if shape is not None:
        _check_shape("bernoulli", shape, pt.shape)
    return _run("bernoulli", _bernoulli, osh, (kd, p), shape=shape, mode=mode)


def _truncated_normal(key, lower, upper, *, shape, dtype):
    if shape is None:
        shape = tuple(np.broadcast_shapes(type_of(lower).shape, type_of(upper).shape))
    sqrt2 = Const(np.array(np.sqrt(2), dtype), dtype)
    lower = lax.convert_element_type(lower, dtype)
    upper = lax.convert_element_type(upper, dtype)
    a = erf(lax.div(lower, sqrt2))
    b = erf(lax.div(upper, sqrt2))
    u = _uniform(key, a, b, shape=shape, dtype=dtype)
    out = lax.mul(sqrt2, lax.erf_inv(u))
    lo = _nextafter(stop_gradient(lower), +1, dtype)
    hi = _nextafter(stop_gradient(upper), -1, dtype)
    return lax.min(hi, lax.max(lo, out))


def _nextafter(x, direction: int, dtype):
    """`lax.nextafter(x, ±inf)` by the bits (XLA's next_after: zero steps to the smallest
    subnormal, infinities toward themselves stay, NaN stays)."""
    nbits = 8 * np.dtype(dtype).itemsize
    udt = prng.UINT_DTYPES[nbits]
    if not is_array(x):
        x = Const(np.asarray(x, dtype), dtype)
    b = lax.bitcast_convert_type(x, udt)
    sign = Const(np.array(1 << (nbits - 1), udt), udt)
    magnitude = lax._binary("and", b, Const(np.array((1 << (nbits - 1)) - 1, udt), udt))
    negative = lax.ne(lax._binary("and", b, sign), Const(np.array(0, udt), udt))
    one = Const(np.array(1, udt), udt)
    away = lax.add(b, one)     # magnitude up
    toward = lax.sub(b, one)   # magnitude down
    if direction > 0:
        stepped = where(negative, toward, away)
        zero_step = Const(np.array(1, udt), udt)
    else:
        stepped = where(negative, away, toward)
        zero_step = Const(np.array((1 << (nbits - 1)) | 1, udt), udt)
    stepped = where(lax.eq(magnitude, Const(np.array(0, udt), udt)), zero_step, stepped)
    res = lax.bitcast_convert_type(stepped, dtype)
    inf = Const(np.array(np.inf if direction > 0 else -np.inf, dtype), dtype)
    keep = lax._binary("or", lax.eq(x, inf), lax.ne(x, x))
    return where(keep, x, res)


def truncated_normal(key, lower, upper, shape=None, dtype=None, *, out_sharding=None):
    """Standard normal values truncated to (lower, upper)."""
    if shape is not None:
        shape = _canonical_shape(shape)
    kd, _ = _check_key("truncated_normal", key)
    osh = _canonical_sharding(out_sharding, "truncated_normal")
    d = _float_dtype(dtype, "truncated_normal")
    if shape is not None:
        _check_shape("truncated_normal", shape, _shape_of(lower), _shape_of(upper))
    return _run("truncated_normal", _truncated_normal, osh,
                (kd, _real_operand(lower, "truncated_normal"), _real_operand(upper, "truncated_normal")),
                shape=shape, dtype=d)


def _neg_log_neg_log(u):
    return lax.neg(lax.log(lax.neg(lax.log(u))))


def _gumbel(key, *, shape, dtype, mode):
    fi = _finfo(dtype)
    c = lambda v: Const(np.array(v, dtype), dtype)
    if mode == "highest" and dtype == dt.float32:
        return _gumbel_highest(key, shape)
    if mode in ("high", "highest"):
        hl = _uniform(key, c(0.0), c(1.0), shape=(2, *shape), dtype=dtype)
        high, low = hl[0], hl[1]
        x = where(lax.ge(high, c(0.5)), high,
                  lax.add(lax.add(high, lax.mul(c(2.0 ** -fi.nmant), low)), c(fi.tiny)))
        return lax.neg(lax.log(lax.neg(log1p(lax.neg(x)))))
    return _neg_log_neg_log(_uniform(key, c(fi.tiny), c(1.0), shape=shape, dtype=dtype))


def _u32c(v: int) -> Const:
    return Const(np.uint32(v), dt.uint32)


def _safe_int_to_float(hi, lo):
    """A float32 in (0, 1) from 64 random bits (hi, lo) keeping the leading zeros'
    precision (JAX's `_safe_int_to_float`)."""
    fi = _finfo(dt.float32)
    hiclz, loclz = lax.clz(hi), lax.clz(lo)
    full = lax.eq(hiclz, _u32c(32))
    mantissa = lax._binary("or", lax.shift_left(hi, hiclz),
                           where(full, lax.shift_left(lo, loclz),
                                 lax.shift_right_logical(lo, lax.sub(_u32c(fi.bits), hiclz))))
    mantissa = lax.shift_right_logical(mantissa, _u32c(fi.bits - fi.nmant - 1))
    mantissa = lax._binary("and", mantissa, _u32c((1 << fi.nmant) - 1))
    exp = lax.sub(_u32c(-fi.minexp), where(full, lax.add(_u32c(32), loclz), hiclz))
    exp = lax.shift_left(exp, _u32c(fi.nmant))
    exp = lax._binary("and", exp, _u32c((1 << (fi.bits - 2)) - (1 << (fi.nmant - 1))))
    return lax.bitcast_convert_type(lax._binary("or", exp, mantissa), dt.float32)


def _gumbel_highest(key, shape):
    """`gumbel(mode='highest')` in float32: 64 bits per value (JAX's branch of `_gumbel`)."""
    b = _bits(key, 32, (2, *shape))
    neg = lax._binary("xor", b, _u32c(0xFFFFFFFF))
    lo_bits = neg[1]
    carry = lax.convert_element_type(lax.eq(lo_bits, _u32c(0xFFFFFFFF)), dt.uint32)
    neg = lax.add(neg, stack_([carry, lax.full_like(lo_bits, 1)]))
    flip = lax.lt(b[0], _u32c(1 << 31))
    chosen = where(flip, b, neg)
    x = _safe_int_to_float(chosen[0], chosen[1])
    one_minus = lax.neg(log1p(lax.neg(x)))
    return where(flip, lax.neg(lax.log(one_minus)), lax.neg(lax.log(lax.neg(lax.log(x)))))


def gumbel(key, shape=(), dtype=None, mode: str | None = None, *, out_sharding=None):
    """Standard Gumbel values."""
    kd, _ = _check_key("gumbel", key)
    d = _float_dtype(dtype, "gumbel")
    shape = _canonical_shape(shape)
    mode = "low" if mode is None else mode
    if mode not in ("highest", "high", "low"):
        raise ShardcValueError(f"Must provide valid mode for gumbel got: {mode}")
    osh = _sampler_sharding(out_sharding, "gumbel", shape)
    return _run("gumbel", _gumbel, osh, (kd,), shape=shape, dtype=d, mode=mode)


def _categorical(key, logits, *, shape, batch_shape, axis, mode):
    lt = type_of(logits)
    prefix = shape[:len(shape) - len(batch_shape)]
    if axis >= 0:
        axis -= lt.ndim
    logits_shape = list(shape[len(shape) - len(batch_shape):])
    logits_shape.insert(axis % lt.ndim, lt.shape[axis])
    g = _gumbel(key, shape=(*prefix, *logits_shape), dtype=lt.dtype, mode=mode or "low")
    if prefix:
        logits = lax.expand_dims(logits, tuple(range(len(prefix))))
    return argmax(lax.add(g, logits), axis=axis)


def categorical(key, logits, axis: int = -1, shape=None, replace: bool = True, mode=None, *,
                out_sharding=None):
    """Samples of a categorical distribution given by unnormalized log-probabilities."""
    kd, _ = _check_key("categorical", key)
    if not is_array(logits):
        logits = asarray(logits)
    lt = type_of(logits)
    batch_shape = tuple(np.delete(np.array(lt.shape, dtype=np.int64), axis).tolist())
    if shape is None:
        shape = batch_shape
    else:
        shape = _canonical_shape(shape)
        _check_shape("categorical", shape, batch_shape)
    osh = _canonical_sharding(out_sharding, "categorical")
    f = _categorical if replace else _categorical_no_replace
    return _run("categorical", f, osh, (kd, logits), shape=shape, batch_shape=batch_shape,
                axis=axis, mode=mode)


def _categorical_no_replace(key, logits, *, shape, batch_shape, axis, mode):
    """The Gumbel top-k trick: the k largest of logits + Gumbel noise (as JAX)."""
    lt = type_of(logits)
    prefix = shape[:len(shape) - len(batch_shape)]
    logits = lax.add(logits, _gumbel(key, shape=lt.shape, dtype=lt.dtype, mode=mode or "low"))
    k = math.prod(prefix)
    if k > lt.shape[axis]:
        raise ShardcValueError(f"Number of samples without replacement ({k}) cannot exceed number of "
                               f"categories ({lt.shape[axis]}).")
    _, indices = top_k(moveaxis(logits, axis, -1), k)
    nd = type_of(indices).ndim
    return lax.reshape(lax.transpose(indices, (nd - 1, *range(nd - 1))), shape)


def _exponential(key, *, shape, dtype):
    u = _uniform(key, Const(np.array(0.0, dtype), dtype), Const(np.array(1.0, dtype), dtype), shape=shape,
                 dtype=dtype)
    return lax.neg(log1p(lax.neg(u)))


def _laplace(key, *, shape, dtype):
    fi = _finfo(dtype)
    u = _uniform(key, Const(np.array(-1.0 + fi.epsneg, dtype), dtype), Const(np.array(1.0, dtype), dtype),
                 shape=shape, dtype=dtype)
    return lax.mul(lax.sign(u), log1p(lax.neg(_abs(u))))


def _logistic(key, *, shape, dtype):
    fi = _finfo(dtype)
    x = _uniform(key, Const(np.array(fi.tiny, dtype), dtype), Const(np.array(1.0, dtype), dtype), shape=shape,
                 dtype=dtype)
    return lax.sub(lax.log(x), log1p(lax.neg(x)))


def _cauchy(key, *, shape, dtype):
    fi = _finfo(dtype)
    u = _uniform(key, Const(np.array(fi.eps, dtype), dtype), Const(np.array(1.0, dtype), dtype), shape=shape,
                 dtype=dtype)
    return tan(lax.mul(Const(np.array(np.pi, dtype), dtype), lax.sub(u, Const(np.array(0.5, dtype), dtype))))


def _simple(name: str, impl):
    def sampler(key, shape=(), dtype=None, *, out_sharding=None):
        return _param_sampler(name, impl, key, (), _canonical_shape(shape), dtype, out_sharding)
    sampler.__name__ = sampler.__qualname__ = name
    sampler.__doc__ = f"`jax.random.{name}`: the same values as JAX."
    return sampler


exponential = _simple("exponential", _exponential)
laplace = _simple("laplace", _laplace)
logistic = _simple("logistic", _logistic)
cauchy = _simple("cauchy", _cauchy)


def _rademacher(key, *, shape, dtype):
    b = _bernoulli(key, Const(np.array(0.5, dt.float32), dt.float32), shape=shape, mode="low")
    b = lax.convert_element_type(b, dtype)
    return lax.convert_element_type(lax.sub(lax.mul(Const(2, dtype), b), Const(1, dtype)), dtype)


def rademacher(key, shape=(), dtype=None, *, out_sharding=None):
    """-1 or 1 with probability 1/2 each (integers by default)."""
    kd, _ = _check_key("rademacher", key)
    d = _user_dtype(dtype, dt.int32)
    shape = _canonical_shape(shape)
    osh = _sampler_sharding(out_sharding, "rademacher", shape)
    return _run("rademacher", _rademacher, osh, (kd,), shape=shape, dtype=d)


def choice(key, a, shape=(), replace: bool = True, p=None, axis: int = 0, mode=None):
    """Random samples of `a` (or of `arange(a)`) along `axis`."""
    kd, _ = _check_key("choice", key)
    if not isinstance(shape, (tuple, list)):
        raise ShardcTypeError(f"shape argument of jax.random.choice must be a sequence, got {shape}")
    shape = _canonical_shape(shape)
    arr = a if is_array(a) else asarray(a)
    at = type_of(arr)
    if at.ndim == 0:
        if is_array(a) and isinstance(a, Tracer):
            raise ShardcTypeError("choice: a scalar `a` must be concrete (a Python int)")
        n_inputs = int(np.asarray(a))
    else:
        axis = int(axis) % at.ndim
        n_inputs = at.shape[axis]
    n_draws = math.prod(shape)
    if n_draws == 0:
        return zeros(shape, dtype=at.dtype)
    if n_inputs <= 0:
        raise ShardcValueError("a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise ShardcValueError(f"Cannot take a larger sample (size {n_draws}) than population (size {n_inputs}) "
                               "when 'replace=False'")
    if p is None:
        if replace:
            ind = randint(kd, shape, 0, n_inputs)
            result = ind if at.ndim == 0 else take(arr, ind, axis)
        else:
            perm = permutation(kd, n_inputs if at.ndim == 0 else arr, axis)
            result = perm[(slice(None),) * axis + (slice(n_draws),)]
    else:
        if not is_array(p):
            p = asarray(p)
        if not dt.is_float(type_of(p).dtype):
            p = lax.convert_element_type(p, dt.float32)
        if type_of(p).shape != (n_inputs,):
            raise ShardcValueError(
                "p must be None or a 1D vector with the same size as a.shape[axis]. "
                f"p has shape {type_of(p).shape} and a.shape[axis] is {n_inputs}.")
        pd = type_of(p).dtype
        if replace:
            p_cuml = cumsum(p)
            u = uniform(kd, shape, dtype=pd)
            r = lax.mul(p_cuml[-1], lax.sub(Const(np.array(1, pd), pd), u))
            ind = _searchsorted_left(p_cuml, r)
        else:
            g = lax.add(gumbel(kd, (n_inputs,), dtype=pd, mode=mode), log(p))
            ind = lax.convert_element_type(top_k(g, n_draws)[1], dt.int32)
        result = ind if at.ndim == 0 else take(arr, ind, axis)
    out_shape = shape if at.ndim == 0 else at.shape[0:axis] + tuple(shape) + at.shape[axis + 1:]
    return reshape(result, out_shape)


def _searchsorted_left(sorted_1d, v):
    """Indices where `v` would go in the ascending 1-D array (`side='left'`): how many
    entries are smaller (what any searchsorted method computes)."""
    n = type_of(sorted_1d).shape[0]
    vt = type_of(v)
    less = lax.lt(lax.reshape(sorted_1d, (1,) * vt.ndim + (n,)), lax.expand_dims(v, (vt.ndim,)))
    return _sum(lax.convert_element_type(less, dt.int32), axis=-1)


def _shuffle(key, x, *, axis: int):
    """Sort by fresh random 32-bit keys, rounds enough to make ties unlikely (JAX's `_shuffle`)."""
    size = math.prod(type_of(x).shape)
    rounds = int(np.ceil(3 * np.log(max(1, size)) / np.log(np.iinfo(np.uint32).max)))
    for _ in range(rounds):
        ks = _split(key, (2,))
        key, subkey = ks[0], ks[1]
        sort_keys = _bits(subkey, 32, type_of(x).shape)
        _, x = sort_key_val(sort_keys, x, axis)
    return x


def _permute_range(key, *, n: int, axis: int):
    return _shuffle(key, arange(n), axis=axis)


def _permutation(key, x, *, axis: int, independent: bool):
    if independent or type_of(x).ndim == 1:
        return _shuffle(key, x, axis=axis)
    ind = _shuffle(key, arange(type_of(x).shape[axis]), axis=0)
    return take(x, ind, axis)


def permutation(key, x, axis: int = 0, independent: bool = False, *, out_sharding=None):
    """A random permutation of `arange(x)` (an int) or of `x` along `axis`."""
    kd, _ = _check_key("permutation", key)
    if _is_typed(x):
        raise ShardcTypeError("permutation: x must be an integer or an array, got a PRNG key array")
    nd = type_of(x).ndim if is_array(x) else np.ndim(x)
    if not -max(nd, 1) <= axis < max(nd, 1):
        raise ShardcValueError(f"axis {axis} is out of bounds for array of dimension {max(nd, 1)}")
    axis = int(axis) % max(nd, 1)
    osh = _canonical_sharding(out_sharding, "permutation")
    if not nd:
        if is_array(x) or not np.issubdtype(np.asarray(x).dtype, np.integer):
            if is_array(x) and dt.is_int(type_of(x).dtype):
                raise ShardcTypeError("permutation: an integer `x` must be concrete (a Python int); got a traced "
                                      "value")
            raise ShardcTypeError("x must be an integer or at least 1-dimensional")
        return _run("permutation", _permute_range, osh, (kd,), n=int(x), axis=axis)
    if not is_array(x):
        x = asarray(x)
    return _run("permutation", _permutation, osh, (kd, x), axis=axis, independent=bool(independent))


# --- more samplers (JAX's formulas and operation order) ------------------------------------------
def _param_shape(name: str, shape, *params) -> tuple[int, ...]:
    """`_check_broadcast_shapes`: the parameters' broadcast shape, or `shape` checked against them."""
    shapes = [tuple(_shape_of(p)) for p in params]
    if shape is None:
        try:
            return tuple(np.broadcast_shapes(*shapes)) if shapes else ()
        except ValueError:
            raise ShardcValueError(f"Incompatible shapes for broadcasting: shapes={shapes}") from None
    shape = _canonical_shape(shape)
    _check_shape(name, shape, *shapes)
    return shape


def _check_safe_cast(name: str, dtype, *args) -> None:
    """`_check_all_safe_to_cast`: a parameter must promote to `dtype` without widening it."""
    for a in args:
        t = type_of(_as_operand(a)) if not isinstance(a, (int, float)) else None
        if t is None or t.dtype == dtype:
            continue
        if dt.result_type((t.dtype, t.weak_type), (dtype, False))[0] != dtype:
            raise ShardcValueError(f"In arguments to {name}, cannot safely cast argument of type {t.dtype.name} "
                                   f"to {np.dtype(dtype).name}")


def _as_operand(x):
    return x if is_array(x) else asarray(x)


def _param_sampler(name: str, impl, key, params: tuple, shape, dtype, out_sharding, *, samplers: bool = True,
                   what: str = "a float dtype", safe_cast: bool = True, **static):
    """A float sampler with array parameters, JAX's prelude in JAX's order: one key, a float
    dtype, the parameters' broadcast shape (or `shape` checked against it), the sampler's
    `out_sharding` (`canonicalize_sharding_for_samplers`, or plain `canonicalize_sharding`
    where JAX uses that), parameters that cast safely to the dtype; then `impl` as one program."""
    kd, _ = _check_key(name, key)
    d = _float_dtype(dtype, name, what)
    shape = _param_shape(name, shape, *params)
    osh = _sampler_sharding(out_sharding, name, shape) if samplers else _canonical_sharding(out_sharding, name)
    if safe_cast:
        _check_safe_cast(name, d, *params)
    return _run(name, impl, osh, (kd, *(_as_operand(p) for p in params)), shape=shape, dtype=d, **static)


def _broadcast_to(x, shape):
    return broadcast_to(x, shape)


def _pareto(key, b, *, shape, dtype):
    b = lax.convert_element_type(b, dtype)
    e = _exponential(key, shape=shape, dtype=dtype)
    return lax.exp(lax.div(e, b))


def pareto(key, b, shape=None, dtype=None, *, out_sharding=None):
    """Pareto values with shape parameter `b`."""
    return _param_sampler("pareto", _pareto, key, (b,), shape, dtype, out_sharding)


def _rayleigh(key, scale, *, shape, dtype):
    u = _uniform(key, Const(np.array(0.0, dtype), dtype), Const(np.array(1.0, dtype), dtype), shape=shape,
                 dtype=dtype)
    scale = _broadcast_to(lax.convert_element_type(scale, dtype), shape)
    sqrt_u = sqrt(lax.mul(lax.log(u), Const(np.array(-2, dtype), dtype)))
    return lax.mul(scale, sqrt_u)


def rayleigh(key, scale, shape=None, dtype=None, *, out_sharding=None):
    """Rayleigh values with scale `scale`."""
    return _param_sampler("rayleigh", _rayleigh, key, (scale,), shape, dtype, out_sharding)


def _lognormal(key, sigma, *, shape, dtype):
    sigma = lax.convert_element_type(sigma, dtype)
    return lax.exp(lax.mul(_normal(key, shape=shape, dtype=dtype), sigma))


def lognormal(key, sigma=np.float32(1), shape=None, dtype=None, *, out_sharding=None):
    """exp of normal values scaled by `sigma`."""
    return _param_sampler("lognormal", _lognormal, key, (sigma,), shape, dtype, out_sharding, samplers=False,
                          what="a float or complex dtype")


def _geometric(key, p, *, shape, dtype, osh):
    pd = type_of(p).dtype
    u = uniform(key, shape, pd, out_sharding=osh)
    u = where(lax.eq(u, Const(np.array(0, pd), pd)), Const(np.array(1, pd), pd), u)
    log_u = lax.log(u)
    log_q = log1p(lax.neg(p))
    if osh is None:
        log_q = _broadcast_to(log_q, shape)
    else:
        log_q = broadcast_to(log_q, shape, out_sharding=osh)
    g = lax.add(floor(lax.div(log_u, log_q)), Const(np.array(1, pd), pd))
    return lax.convert_element_type(g, dtype)


def geometric(key, p, shape=None, dtype=None, *, out_sharding=None):
    """Geometric values (trials until the first success) with success probability `p`."""
    kd, _ = _check_key("geometric", key)
    d = _user_dtype(dtype, dt.int32)
    if not dt.is_int(d):
        raise ShardcValueError(f"dtype argument to `geometric` must be an int dtype, got {d.name}")
    shape = _param_shape("geometric", shape, p)
    osh = _sampler_sharding(out_sharding, "geometric", shape)
    p = _as_operand(p)
    if not dt.is_float(type_of(p).dtype):
        p = lax.convert_element_type(p, dt.float32)
    return _run("geometric", _geometric, None, (kd, p), shape=shape, dtype=d, osh=osh)


def _maxwell(key, *, shape, dtype, osh):
    shape = shape + (3,)
    if osh is not None:
        osh = PartitionSpec(*tuple(osh) + (None,) * (len(shape) - 1 - len(tuple(osh))), None)
    x = normal(key, shape, dtype, out_sharding=osh)
    return sqrt(_sum(lax.mul(x, x), axis=-1))


def maxwell(key, shape=(), dtype=None, *, out_sharding=None):
    """Maxwell values: the norm of three standard normals."""
    kd, _ = _check_key("maxwell", key)
    d = _float_dtype(dtype, "maxwell")
    shape = _canonical_shape(shape)
    osh = _sampler_sharding(out_sharding, "maxwell", shape)
    return _run("maxwell", _maxwell, None, (kd,), shape=shape, dtype=d, osh=osh)


def _c(v, dtype) -> Const:
    return Const(np.array(v, dtype), dtype)


def _triangular(key, left, mode, right, *, shape, dtype):
    left = broadcast_to(lax.convert_element_type(left, dtype), shape)
    right = broadcast_to(lax.convert_element_type(right, dtype), shape)
    mode = broadcast_to(lax.convert_element_type(mode, dtype), shape)
    fc = lax.div(lax.sub(mode, left), lax.sub(right, left))
    u = _uniform(key, _c(0.0, dtype), _c(1.0, dtype), shape=shape, dtype=dtype)
    out1 = lax.add(left, sqrt(lax.mul(lax.mul(u, lax.sub(right, left)), lax.sub(mode, left))))
    out2 = lax.sub(right, sqrt(lax.mul(lax.mul(lax.sub(_c(1, dtype), u), lax.sub(right, left)),
                                       lax.sub(right, mode))))
    return lax.select_n(lax.lt(u, fc), out2, out1)


def triangular(key, left, mode, right, shape=None, dtype=None, *, out_sharding=None):
    """Triangular values on [left, right] with peak at `mode`."""
    return _param_sampler("triangular", _triangular, key, (left, mode, right), shape, dtype, out_sharding)


def _wald(key, mean, *, shape, dtype):
    ks = _split(key, (2,))
    mean = broadcast_to(lax.convert_element_type(mean, dtype), shape)
    v = _normal(ks[0], shape=shape, dtype=dtype)
    z = _uniform(ks[1], _c(0.0, dtype), _c(1.0, dtype), shape=shape, dtype=dtype)
    y = lax.integer_pow(v, 2)
    y_sq = lax.integer_pow(y, 2)
    mean_sq = lax.integer_pow(mean, 2)
    sqrt_term = sqrt(lax.add(lax.mul(lax.mul(_c(4, dtype), mean), y), lax.mul(mean_sq, y_sq)))
    x = lax.sub(lax.add(mean, lax.div(lax.mul(mean_sq, y), _c(2, dtype))),
                lax.mul(lax.div(mean, _c(2, dtype)), sqrt_term))
    return lax.select_n(lax.le(z, lax.div(mean, lax.add(mean, x))), lax.div(mean_sq, x), x)


def wald(key, mean, shape=None, dtype=None, *, out_sharding=None):
    """Wald (inverse Gaussian) values with the given mean."""
    return _param_sampler("wald", _wald, key, (mean,), shape, dtype, out_sharding, samplers=False)


# --- the gamma family: Marsaglia–Tsang in a while_loop, vmapped over the elements ---------------
def _gamma_one(key, alpha, *, log_space: bool):
    """One Gamma(alpha) value from one key (JAX's `_gamma_one`, operation for operation):
    alpha < 1 is boosted to alpha + 1 and scaled by U**(1/alpha) (in log space: + log(U)/alpha)."""
    dtype = type_of(alpha).dtype
    # the loop constants vary where alpha does (inside shard_map), as JAX's `core.pvary`s
    zero, one, minus_one, two = (_pvary_like(_c(v, dtype), alpha) for v in (0, 1, -1, 2))
    third = _c(1. / 3., dtype)
    boost_mask = lax.ge(alpha, one)
    alpha_orig = alpha
    alpha = lax.select(boost_mask, alpha, lax.add(alpha, one))
    d = lax.sub(alpha, third)
    c = lax.div(third, lax.sqrt(d))

    def cond_fn(kXVU):
        _, X, V, U = kXVU
        squeeze = lax.ge(U, lax.sub(one, lax.mul(_c(0.0331, dtype), lax.mul(X, X))))
        log_test = lax.ge(lax.log(U), lax.add(lax.mul(X, _c(0.5, dtype)),
                                              lax.mul(d, lax.add(lax.sub(one, V), lax.log(V)))))
        return lax.bitwise_and(squeeze, log_test)

    def next_kxv(kxv):
        ks = _split(kxv[0], (2,))
        x = _normal(ks[1], shape=(), dtype=dtype)
        return ks[0], x, lax.add(one, lax.mul(x, c))

    def body_fn(kXVU):
        ks = _split(kXVU[0], (3,))
        _, x, v = while_loop(lambda kxv: lax.le(kxv[2], zero), next_kxv, (ks[1], zero, minus_one))
        U = _uniform(ks[2], zero, one, shape=(), dtype=dtype)
        return ks[0], lax.mul(x, x), lax.mul(lax.mul(v, v), v), U

    ks = _split(key, (2,))
    # the initial state makes cond_fn True
    _, _, V, _ = while_loop(cond_fn, body_fn, (ks[0], zero, one, two))
    if log_space:
        log_samples = lax.neg(_exponential(ks[1], shape=(), dtype=dtype))
        log_boost = lax.select(lax.bitwise_or(boost_mask, lax.eq(log_samples, zero)), zero,
                               lax.mul(log_samples, lax.div(one, alpha_orig)))
        return lax.add(lax.add(lax.log(d), lax.log(V)), log_boost)
    samples = lax.sub(one, _uniform(ks[1], zero, one, shape=(), dtype=dtype))
    boost = lax.select(boost_mask, one, lax.pow(samples, lax.div(one, alpha_orig)))
    return lax.mul(lax.mul(d, V), boost)


def _gamma_impl(key, a, *, log_space: bool):
    """JAX's `random_gamma_p` lowering: one key per element (`split(key, a.size)`), `_gamma_one`
    vmapped over the flattened elements (one level of vmap, whatever the rank: it compiles in
    seconds), reshaped back."""
    t = type_of(a)
    if any(e is not None for e in t.spec):
        flat = tuple(ax for e in t.spec if e is not None for ax in ((e,) if isinstance(e, str) else e))
        raise ShardcValueError("Mapped away dimension of inputs passed to vmap should be sharded the same. Got "
                               f"inconsistent axis specs: None vs {flat[0] if len(flat) == 1 else flat}")
    n = math.prod(t.shape)
    if n == 0:
        return a
    keys = _split(key, (n,))
    one = functools.partial(_gamma_one, log_space=log_space)
    if _cur_impl() is THREEFRY:
        samples = vmap(one)(keys, reshape(a, (n,)))
    else:   # JAX's `lax.map` for the other implementations (vmapped RngBitGenerator draws from one key)
        samples = scan(lambda c, ka: (c, one(*ka)), None, (keys, reshape(a, (n,))))[1]
    return reshape(samples, t.shape)


def _gamma_grad(sample, a, *, log_space: bool):
    """d sample / d a at fixed key (JAX's `_gamma_grad`, elementwise `random_gamma_grad`)."""
    if log_space:
        # d[log(sample)] = d[sample] / sample; exp(log sample) may round to 0: use tiny instead
        samples = lax.exp(sample)
        d = type_of(samples).dtype
        samples = lax.select(lax.eq(samples, _c(0, d)), lax.full_like(samples, _finfo(d).tiny), samples)
        return lax.div(random_gamma_grad(a, samples), samples)
    return random_gamma_grad(a, sample)


@functools.partial(custom_jvp, nondiff_argnums=(2, 3))
def _random_gamma(key, a, log_space, impl):
    with _using(impl):
        return _gamma_impl(key, a, log_space=log_space)


@_random_gamma.defjvp
def _random_gamma_jvp(log_space, impl, primals, tangents):
    key, a = primals
    with _using(impl):   # the rule may be traced after the sampler's `_run` returned
        ans = _gamma_impl(key, a, log_space=log_space)
    return ans, lax.mul(tangents[1], _gamma_grad(ans, a, log_space=log_space))


def _gamma(key, a, *, shape, dtype, log_space: bool = False):
    if shape is None:
        shape = type_of(a).shape
    else:
        _check_shape("gamma", shape, type_of(a).shape)
    a = lax.convert_element_type(a, dtype)
    if type_of(a).shape != shape:
        a = broadcast_to(a, shape)
    return _random_gamma(key, _insert_pvary("gamma", key, a), log_space, _cur_impl())


def _pvary_like(x, ref):
    """`x` varying over the Manual axes `ref` varies over (a constant becomes an array)."""
    vma = type_of(ref).vma
    if not vma:
        return x
    missing = tuple(sorted(set(vma) - set(type_of(x).vma)))
    return pcast(x if is_array(x) else asarray(x), missing, to="varying") if missing else x


def _insert_pvary(name: str, key, a):
    """JAX's `random_insert_pvary`: a parameter varies over the Manual axes its key varies over;
    one that varies over more than the key is refused (key reuse)."""
    a = _pvary_like(a, key)
    if set(type_of(a).vma) != set(type_of(key).vma):
        raise ShardcTypeError(
            f"{name} requires all arguments to have matching type. Got key type: {KeyType(type_of(key), _cur_impl())} vs arg "
            f"type: {type_of(a)}. Use jax.lax.pcast(..., to='varying') to make them match. If your key is less "
            "varying than arg, watch out for key-reuse problems.")
    return a


def gamma(key, a, shape=None, dtype=None, *, out_sharding=None):
    """Gamma(a, 1) values; differentiable in `a` (the implicit reparameterization gradient)."""
    kd, _ = _check_key("gamma", key)
    d = _float_dtype(dtype, "gamma")
    shape = None if shape is None else _canonical_shape(shape)
    osh = _sampler_sharding(out_sharding, "gamma", shape)
    return _run("gamma", _gamma, osh, (kd, _as_operand(a)), shape=shape, dtype=d)


def loggamma(key, a, shape=None, dtype=None, *, out_sharding=None):
    """log of Gamma(a, 1) values, accurate for small `a`."""
    kd, _ = _check_key("loggamma", key)
    d = _float_dtype(dtype, "gamma")  # JAX's message names `gamma`
    shape = None if shape is None else _canonical_shape(shape)
    osh = _canonical_sharding(out_sharding, "loggamma")
    return _run("loggamma", _gamma, osh, (kd, _as_operand(a)), shape=shape, dtype=d, log_space=True)


def _beta(key, a, b, *, shape, dtype):
    ks = _split(key, (2,))
    a = broadcast_to(lax.convert_element_type(a, dtype), shape)
    b = broadcast_to(lax.convert_element_type(b, dtype), shape)
    log_gamma_a = _gamma(ks[0], a, shape=shape, dtype=dtype, log_space=True)
    log_gamma_b = _gamma(ks[1], b, shape=shape, dtype=dtype, log_space=True)
    # gamma_a / (gamma_a + gamma_b) without losing precision
    log_max = lax.max(log_gamma_a, log_gamma_b)
    gamma_a_scaled = lax.exp(lax.sub(log_gamma_a, log_max))
    gamma_b_scaled = lax.exp(lax.sub(log_gamma_b, log_max))
    return lax.div(gamma_a_scaled, lax.add(gamma_a_scaled, gamma_b_scaled))


def beta(key, a, b, shape=None, dtype=None, *, out_sharding=None):
    """Beta(a, b) values (from two log-gamma values)."""
    return _param_sampler("beta", _beta, key, (a, b), shape, dtype, out_sharding)


def _dirichlet(key, alpha, *, shape, dtype):
    at = type_of(alpha)
    if at.ndim < 1:
        raise ShardcValueError(f"dirichlet requires alpha.ndim >= 1, got alpha.ndim == {at.ndim}")
    if shape is None:
        shape = at.shape[:-1]
    else:
        _check_shape("dirichlet", shape, at.shape[:-1])
    alpha = lax.convert_element_type(alpha, dtype)
    # in log space: small alpha would lose the small values
    log_gamma_samples = _gamma(key, alpha, shape=shape + at.shape[-1:], dtype=dtype, log_space=True)
    return softmax(log_gamma_samples, -1)


def dirichlet(key, alpha, shape=None, dtype=None, *, out_sharding=None):
    """Dirichlet(alpha) values along the last axis (normalized log-gamma values)."""
    kd, _ = _check_key("dirichlet", key)
    d = _float_dtype(dtype, "dirichlet")
    shape = None if shape is None else _canonical_shape(shape)
    osh = _sampler_sharding(out_sharding, "dirichlet", shape)
    return _run("dirichlet", _dirichlet, osh, (kd, _as_operand(alpha)), shape=shape, dtype=d)


def _chi2(key, df, shape, dtype, osh):
    """2 * Gamma(df / 2), through `loggamma` with its own `out_sharding` (as JAX's `_chisquare`)."""
    df = lax.convert_element_type(df, dtype)
    two = _c(2, dtype)
    half_df = lax.div(df, two)
    log_g = _maybe_auto_axes(functools.partial(_gamma, shape=shape, dtype=dtype, log_space=True), osh)(key, half_df)
    return lax.mul(lax.exp(log_g), two)


def _chisquare(key, df, *, shape, dtype, osh):
    return _chi2(key, df, shape, dtype, osh)


def chisquare(key, df, shape=None, dtype=None, *, out_sharding=None):
    """Chi-square values with `df` degrees of freedom."""
    kd, _ = _check_key("chisquare", key)
    d = _float_dtype(dtype, "chisquare")
    shape = _param_shape("chisquare", shape, df)
    _check_safe_cast("chisquare", d, df)
    osh = _sampler_sharding(out_sharding, "chisquare", shape)
    return _run("chisquare", _chisquare, None, (kd, _as_operand(df)), shape=shape, dtype=d, osh=osh)


def _f(key, dfnum, dfden, *, shape, dtype, osh):
    dfden = lax.convert_element_type(dfden, dtype)
    dfnum = lax.convert_element_type(dfnum, dtype)
    ks = _split(key, (2,))
    chi2_dfn = _chi2(ks[1], dfnum, shape, dtype, osh)
    chi2_dfd = _chi2(ks[0], dfden, shape, dtype, osh)
    return lax.div(lax.div(chi2_dfn, dfnum), lax.div(chi2_dfd, dfden))


def f(key, dfnum, dfden, shape=None, dtype=None, *, out_sharding=None):
    """F-distribution values (a ratio of scaled chi-square values)."""
    kd, _ = _check_key("f", key)
    d = _float_dtype(dtype, "f")
    shape = _param_shape("f", shape, dfnum, dfden)
    osh = _sampler_sharding(out_sharding, "f", shape)
    _check_safe_cast("f", d, dfnum, dfden)
    return _run("f", _f, None, (kd, _as_operand(dfnum), _as_operand(dfden)), shape=shape, dtype=d, osh=osh)


def _t(key, df, *, shape, dtype):
    df = lax.convert_element_type(df, dtype)
    ks = _split(key, (2,))
    n = _normal(ks[0], shape=shape, dtype=dtype)
    half_df = lax.div(df, _c(2, dtype))
    g = _gamma(ks[1], half_df, shape=shape, dtype=dtype)
    return lax.mul(n, lax.sqrt(lax.div(half_df, g)))


def t(key, df, shape=None, dtype=None, *, out_sharding=None):
    """Student's t values with `df` degrees of freedom."""
    return _param_sampler("t", _t, key, (df,), shape, dtype, out_sharding)


# --- poisson: Knuth's product of uniforms (lam < 10) or Hörmann's transformed rejection -----------
def _below_max_iters(i, dtype):
    """`i < dtype.type(iinfo/finfo(dtype).max)` as JAX's loops compare their weak int32 counter
    (it converts to the sample dtype: an int8 poisson stops after 127 rounds)."""
    info = np.iinfo(dtype) if dt.is_int(dtype) else _finfo(dtype)
    return lax.lt(lax.convert_element_type(i, dtype), _c(info.max, dtype))


def _poisson_knuth(key, lam, shape, dtype):
    neg_lam = lax.neg(lam)

    def body_fn(carry):
        i, k, rng, log_prod = carry
        ks = _split(rng, (2,))
        k = lax.select(lax.gt(log_prod, neg_lam), lax.add(k, _c(1, dtype)), k)
        u = _uniform(ks[1], _c(0., dt.float32), _c(1., dt.float32), shape=shape, dtype=dt.float32)
        return lax.add(i, _c(1, dt.int32)), k, ks[0], lax.add(log_prod, lax.log(u))

    def cond_fn(carry):
        i, log_prod = carry[0], carry[3]
        return lax.bitwise_and(_reduce_any(lax.gt(log_prod, neg_lam)), _below_max_iters(i, dtype))

    init = (lax.full((), 0, dt.int32), lax.full(shape, 0, dtype), key, lax.full(shape, 0, dt.float32))
    k = while_loop(cond_fn, body_fn, init)[1]
    return lax.convert_element_type(lax.sub(k, _c(1, dtype)), dtype)


def _poisson_rejection(key, lam, shape, dtype):
    f32 = type_of(lam).dtype
    c = lambda v: _c(v, f32)  # noqa: E731
    log_lam = lax.log(lam)
    b = lax.add(c(0.931), lax.mul(c(2.53), lax.sqrt(lam)))
    a = lax.add(c(-0.059), lax.mul(c(0.02483), b))
    inv_alpha = lax.add(c(1.1239), lax.div(c(1.1328), lax.sub(b, c(3.4))))
    v_r = lax.sub(c(0.9277), lax.div(c(3.6224), lax.sub(b, c(2))))

    def body_fn(carry):
        i, k_out, accepted, key = carry
        ks = _split(key, (3,))
        u = lax.sub(_uniform(ks[1], c(0.), c(1.), shape=shape, dtype=f32), c(0.5))
        v = _uniform(ks[2], c(0.), c(1.), shape=shape, dtype=f32)
        u_shifted = lax.sub(c(0.5), lax.abs(u))
        k = lax.floor(lax.add(lax.add(lax.mul(lax.add(lax.div(lax.mul(c(2), a), u_shifted), b), u), lam), c(0.43)))
        s = lax.log(lax.div(lax.mul(v, inv_alpha), lax.add(lax.div(a, lax.mul(u_shifted, u_shifted)), b)))
        t_ = lax.sub(lax.add(lax.neg(lam), lax.mul(k, log_lam)), lax.lgamma(lax.add(k, c(1))))
        accept1 = lax.bitwise_and(lax.ge(u_shifted, c(0.07)), lax.le(v, v_r))
        reject = lax.bitwise_or(lax.lt(k, c(0)), lax.bitwise_and(lax.lt(u_shifted, c(0.013)), lax.gt(v, u_shifted)))
        accept = lax.bitwise_or(accept1, lax.bitwise_and(lax.bitwise_not(reject), lax.le(s, t_)))
        return (lax.add(i, _c(1, dt.int32)), lax.select(accept, k, k_out), lax.bitwise_or(accepted, accept), ks[0])

    def cond_fn(carry):
        return lax.bitwise_and(_reduce_any(lax.bitwise_not(carry[2])), _below_max_iters(carry[0], dtype))

    init = (lax.full((), 0, dt.int32), lax.full(shape, -1, f32), lax.full(shape, False, dt.bool_), key)
    k = while_loop(cond_fn, body_fn, init)[1]
    return lax.convert_element_type(k, dtype)


def _poisson(key, lam, *, shape, dtype):
    use_knuth = lax.bitwise_or(lax.ne(lam, lam), lax.lt(lam, _c(10, dt.float32)))
    lam_knuth = lax.select(use_knuth, lam, lax.full_like(lam, 0.0))
    # the acceptance probability of rejection sampling tends to 89%: any large value will do
    lam_rejection = lax.select(use_knuth, lax.full_like(lam, 1e5), lam)
    result = lax.select(use_knuth, _poisson_knuth(key, lam_knuth, shape, dtype),
                        _poisson_rejection(key, lam_rejection, shape, dtype))
    return lax.select(lax.eq(lam, _c(0, dt.float32)), lax.full_like(result, 0), result)


def poisson(key, lam, shape=None, dtype=None, *, out_sharding=None):
    """Poisson values with rate `lam` (integers)."""
    kd, _ = _check_key("poisson", key)
    if kd._impl is not THREEFRY:
        raise ShardcNotImplementedError(f"`poisson` is only implemented for the threefry2x32 RNG, not {kd._impl}")
    d = _user_dtype(dtype, dt.int32)
    if not dt.is_int(d):  # JAX fails in `iinfo(dtype)`
        raise ShardcValueError(f"Invalid integer data type '{d.kind}'.")
    shape = _shape_of(lam) if shape is None else _canonical_shape(shape)
    osh = _sampler_sharding(out_sharding, "poisson", shape)
    lam = lax.convert_element_type(broadcast_to(_as_operand(lam), shape), dt.float32)
    return _run("poisson", _poisson, osh, (kd, lam), shape=tuple(shape), dtype=d)


# --- binomial: inversion (n * p <= 10) or BTRS, as TensorFlow's -------------------------------------
_STIRLING_TAIL = [0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
                  0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
                  0.00925546218271273, 0.00833056343336287]


def _stirling_approx_tail(k):
    d = type_of(k).dtype
    c = lambda v: _c(v, d)  # noqa: E731
    use_tail_values = lax.le(k, c(9))
    k = lax.clamp(c(0.0), k, c(9.0))
    k1 = lax.add(k, c(1))
    kp1sq = lax.mul(k1, k1)
    approx = lax.div(lax.sub(c(1.0 / 12), lax.div(lax.sub(c(1.0 / 360), lax.div(c(1.0 / 1260), kp1sq)), kp1sq)), k1)
    idx = lax.convert_element_type(lax.floor(k), dt.int32)
    tail = take(asarray(np.asarray(_STIRLING_TAIL, d)), idx)
    return lax.select(use_tail_values, tail, approx)


def _binomial_inversion(key, count, prob, shape, dtype):
    pd = type_of(prob).dtype
    log1minusprob = log1p(lax.neg(prob))

    def body_fn(carry):
        i, num_geom, geom_sum, key = carry
        ks = _split(key, (2,))   # JAX's `subkey, key = split(key)`
        num_geom_out = lax.select(lax.le(geom_sum, count), lax.add(num_geom, _c(1, pd)), num_geom)
        u = _uniform(ks[0], _c(0., pd), _c(1., pd), shape=shape, dtype=pd)
        geom = lax.ceil(lax.div(lax.log(u), log1minusprob))
        return lax.add(i, _c(1, dt.int32)), num_geom_out, lax.add(geom_sum, geom), ks[1]

    def cond_fn(carry):
        return lax.bitwise_and(_reduce_any(lax.le(carry[2], count)), _below_max_iters(carry[0], dtype))

    init = (lax.full((), 0, dt.int32), lax.full(shape, 0, pd), lax.full(shape, 0, pd), key)
    k = while_loop(cond_fn, body_fn, init)[1]
    return lax.convert_element_type(lax.sub(k, _c(1, pd)), dtype)


def _btrs(key, count, prob, shape, dtype):
    """The transformed-rejection sampler (Hörmann 1993), operation for operation as JAX's `_btrs`."""
    pd = type_of(prob).dtype
    c_ = lambda v: _c(v, pd)  # noqa: E731
    L = lax
    stddev = L.sqrt(L.mul(L.mul(count, prob), L.sub(c_(1), prob)))
    b = L.add(c_(1.15), L.mul(c_(2.53), stddev))
    a = L.add(L.add(c_(-0.0873), L.mul(c_(0.0248), b)), L.mul(c_(0.01), prob))
    c = L.add(L.mul(count, prob), c_(0.5))
    v_r = L.sub(c_(0.92), L.div(c_(4.2), b))
    r = L.div(prob, L.sub(c_(1), prob))
    alpha = L.mul(L.add(c_(2.83), L.div(c_(5.1), b)), stddev)
    m = L.floor(L.mul(L.add(count, c_(1)), prob))

    def body_fn(carry):
        i, k_out, accepted, key = carry
        ks = _split(key, (3,))
        u = _uniform(ks[1], c_(0.), c_(1.), shape=shape, dtype=pd)
        v = _uniform(ks[2], c_(0.), c_(1.), shape=shape, dtype=pd)
        u = L.sub(u, c_(0.5))
        us = L.sub(c_(0.5), L.abs(u))
        accept1 = L.bitwise_and(L.ge(us, c_(0.07)), L.le(v, v_r))
        k = L.floor(L.add(L.mul(L.add(L.div(L.mul(c_(2), a), us), b), u), c))
        reject = L.bitwise_or(L.lt(k, c_(0)), L.gt(k, count))
        v = L.log(L.div(L.mul(v, alpha), L.add(L.div(a, L.mul(us, us)), b)))
        cm1 = L.add(L.sub(count, m), c_(1))
        ck1 = L.add(L.sub(count, k), c_(1))
        ub = L.add(L.add(L.mul(L.add(m, c_(0.5)), L.log(L.div(L.add(m, c_(1)), L.mul(r, cm1)))),
                         L.mul(L.add(count, c_(1)), L.log(L.div(cm1, ck1)))),
                   L.mul(L.add(k, c_(0.5)), L.log(L.div(L.mul(r, ck1), L.add(k, c_(1))))))
        ub = L.add(L.add(ub, _stirling_approx_tail(m)), _stirling_approx_tail(L.sub(count, m)))
        ub = L.sub(L.sub(ub, _stirling_approx_tail(k)), _stirling_approx_tail(L.sub(count, k)))
        accept = L.bitwise_or(accept1, L.bitwise_and(L.bitwise_not(reject), L.le(v, ub)))
        return L.add(i, _c(1, dt.int32)), L.select(accept, k, k_out), L.bitwise_or(accepted, accept), ks[0]

    def cond_fn(carry):
        return L.bitwise_and(_reduce_any(L.bitwise_not(carry[2])), _below_max_iters(carry[0], dtype))

    init = (L.full((), 0, dt.int32), L.full(shape, -1, pd), L.full(shape, False, dt.bool_), key)
    return L.convert_element_type(while_loop(cond_fn, body_fn, init)[1], dtype)


def _binomial(key, count, prob, *, shape, dtype):
    if shape is None:
        shape = tuple(np.broadcast_shapes(type_of(count).shape, type_of(prob).shape))
    else:
        _check_shape("binomial", shape, type_of(count).shape, type_of(prob).shape)
    prob, = _inexact(prob)
    pd = type_of(prob).dtype
    c = lambda v: _c(v, pd)  # noqa: E731
    count = broadcast_to(lax.convert_element_type(count, pd), shape)
    prob = broadcast_to(prob, shape)
    p_lt_half = lax.lt(prob, c(0.5))
    q = lax.select(p_lt_half, prob, lax.sub(c(1.0), prob))
    count_nan_or_neg = lax.bitwise_or(lax.ne(count, count), lax.lt(count, c(0.0)))
    count_inf = lax.eq(lax.abs(count), c(np.inf))
    q_is_nan = lax.ne(q, q)
    q_l_0 = lax.lt(q, c(0.0))
    q = lax.select(lax.bitwise_or(q_is_nan, q_l_0), lax.full_like(q, 0.01), q)
    use_inversion = lax.bitwise_or(count_nan_or_neg, lax.le(lax.mul(count, q), c(10.0)))
    count = lax.floor(count)  # as np.random.binomial for a float count
    count_inv = lax.select(use_inversion, count, lax.full_like(count, 0.0))
    count_btrs = lax.select(use_inversion, lax.full_like(count, 1e4), count)
    q_btrs = lax.select(use_inversion, lax.full_like(q, 0.5), q)
    samples = lax.select(use_inversion, _binomial_inversion(key, count_inv, q, shape, dtype),
                         _btrs(key, count_btrs, q_btrs, shape, dtype))
    # a nan q gives nan, a nan or negative count gives nan, +inf count gives inf
    invalid = lax.bitwise_or(lax.bitwise_or(q_l_0, q_is_nan), count_nan_or_neg)
    samples = lax.select(invalid, lax.full_like(samples, np.nan), samples)
    samples = lax.select(lax.bitwise_and(count_inf, lax.bitwise_not(invalid)), lax.full_like(samples, np.inf), samples)
    keep = lax.bitwise_or(lax.bitwise_or(lax.bitwise_or(p_lt_half, count_nan_or_neg), q_is_nan), count_inf)
    return lax.select(keep, samples, lax.sub(lax.convert_element_type(count, dtype), samples))


def _inexact(*xs) -> list:
    """`promote_dtypes_inexact`: one common dtype (weak types kept), integers to float32."""
    return [promote_to_float(x) for x in promote(*(_as_operand(x) for x in xs))]


def _check_arraylike(name: str, *args) -> None:
    for i, a in enumerate(args):
        if not (is_array(a) or isinstance(a, (int, float, complex, bool, np.ndarray, np.generic))
                or hasattr(a, "__jax_array__") or type(a).__module__.startswith("jax")):
            raise ShardcTypeError(f"{name} requires ndarray or scalar arguments, got {type(a)} "
                                  f"at position {i}.")


def binomial(key, n, p, shape=None, dtype=None):
    """Binomial(n, p) values (floats, as JAX's)."""
    kd, _ = _check_key("binomial", key)
    _check_arraylike("binomial", n, p)
    d = _float_dtype(dtype, "binomial")
    shape = None if shape is None else _canonical_shape(shape)
    return _run("binomial", _binomial, None, (kd, _as_operand(n), _as_operand(p)), shape=shape, dtype=d)


def _multinomial(key, n, p, *, shape, dtype, unroll):
    n, p = _inexact(n, p)
    pt = type_of(p)
    if shape is None:
        shape = pt.shape
    n = broadcast_to(n, shape[:-1])
    p = moveaxis(broadcast_to(p, shape), -1, 0)
    pd = pt.dtype

    def step(remainder, ratio_key):
        ratio, k = ratio_key
        count = _binomial(k, remainder, clip(ratio, 0, 1), shape=None, dtype=type_of(remainder).dtype)
        return lax.sub(remainder, count), count

    remaining_probs = lax.cumsum(p, 0, reverse=True)
    ratios = lax.div(p, where(lax.eq(remaining_probs, _c(0, pd)), _c(1, pd), remaining_probs))
    keys = _split(key, (type_of(ratios).shape[0],))
    _, counts = scan(step, n, (ratios, keys), unroll=unroll)
    return lax.convert_element_type(moveaxis(counts, 0, -1), dtype)


def multinomial(key, n, p, *, shape=None, dtype=None, unroll=1):
    """Multinomial counts of `n` trials over the last axis of `p` (sequential binomials)."""
    kd, _ = _check_key("multinomial", key)
    _check_arraylike("multinomial", n, p)
    d = _user_dtype(dtype, dt.float32)
    shape = None if shape is None else _canonical_shape(shape)
    return _run("multinomial", _multinomial, None, (kd, _as_operand(n), _as_operand(p)), shape=shape, dtype=d,
                unroll=unroll)


# --- samplers built on the ones above ---------------------------------------------------------------
def _weibull_min(key, scale, concentration, *, shape, dtype):
    u = _uniform(key, _c(0, dtype), _c(1, dtype), shape=shape, dtype=dtype)
    # the inverse Weibull CDF
    return multiply(power(lax.neg(log1p(lax.neg(u))), true_divide(1.0, concentration)), scale)


def weibull_min(key, scale, concentration, shape=(), dtype=None):
    """Weibull values with the given scale and concentration."""
    kd, _ = _check_key("weibull_min", key)
    d = _float_dtype(dtype, "weibull_min")
    shape = _canonical_shape(shape)
    return _run("weibull_min", _weibull_min, None, (kd, scale, concentration), shape=shape, dtype=d)


def _double_sided_maxwell(key, loc, scale, *, shape, dtype):
    params_shapes = tuple(np.broadcast_shapes(_shape_of(loc), _shape_of(scale)))
    shape = (shape or params_shapes) + params_shapes  # JAX's: the parameters' dims are appended
    ks = _split(key, (2,))
    maxwell_rvs = _maxwell(ks[0], shape=shape, dtype=dtype, osh=None)
    random_sign = _rademacher(ks[1], shape=shape, dtype=dtype)
    return add(multiply(multiply(random_sign, maxwell_rvs), scale), loc)


def double_sided_maxwell(key, loc, scale, shape=(), dtype=None):
    """Maxwell values with a random sign, scaled and shifted."""
    kd, _ = _check_key("double_sided_maxwell", key)
    d = _float_dtype(dtype, "double_sided_maxwell")
    shape = _canonical_shape(shape)
    return _run("double_sided_maxwell", _double_sided_maxwell, None, (kd, loc, scale), shape=shape, dtype=d)


def _generalized_normal(key, p, *, shape, dtype):
    ks = _split(key, (2,))
    inv_p = true_divide(1, p)
    gsh = _sampler_sharding(None, "gamma", shape)
    g = _maybe_auto_axes(functools.partial(_gamma, shape=shape, dtype=dtype), gsh)(ks[0], _as_operand(inv_p))
    r = _rademacher(ks[1], shape=shape, dtype=dtype)
    return multiply(r, power(g, inv_p))


def generalized_normal(key, p, shape=(), dtype=None, *, out_sharding=None):
    """Generalized normal values with exponent `p` (`|x|**p` is Gamma(1/p)-distributed)."""
    shape = _canonical_shape(shape)
    kd, _ = _check_key("generalized_normal", key)
    d = _user_dtype(dtype, dt.float32)
    osh = _sampler_sharding(out_sharding, "generalized_normal", shape)
    return _run("generalized_normal", _generalized_normal, osh, (kd, p), shape=shape, dtype=d)


def _ball(key, p, *, d, shape, dtype):
    ks = _split(key, (2,))
    gshape = (*shape, d)
    g = _maybe_auto_axes(functools.partial(_generalized_normal, shape=gshape, dtype=dtype),
                         _sampler_sharding(None, "generalized_normal", gshape))(ks[0], p)
    e = _exponential(ks[1], shape=shape, dtype=dtype)
    norm = power(add(_sum(power(_abs(g), p), axis=-1), e), true_divide(1, p))
    return true_divide(g, lax.expand_dims(norm, (len(shape),)))


def ball(key, d, p=2, shape=(), dtype=None, *, out_sharding=None):
    """Points uniformly distributed in the d-dimensional unit p-norm ball."""
    shape = _canonical_shape(shape)
    kd, _ = _check_key("ball", key)
    dd = _user_dtype(dtype, dt.float32)
    if not isinstance(d, (int, np.integer)) or isinstance(d, bool):
        raise ShardcTypeError(f"ball: d must be a concrete integer, got {d!r}")
    osh = _canonical_sharding(out_sharding, "ball")
    return _run("ball", _ball, osh, (kd, p), d=int(d), shape=shape, dtype=dd)


def key_dtype(impl_spec=None) -> KeyDType:
    """The dtype of typed keys of an implementation (`key<fry>` for the default)."""
    return KeyDType(_resolve_impl(impl_spec))


# === samplers over the linalg decompositions (shardc/primitives/linalg.py) ===================
__all__ += ["orthogonal", "multivariate_normal"]


def _row(x):
    """`x[..., None, :]`."""
    return lax.expand_dims(x, (type_of(x).ndim - 1,))


def _orthogonal(key, *, n, m, shape, dtype):
    """JAX's `_orthogonal`: Q of a normal matrix's QR, its columns' signs fixed by diag(R)."""
    z = _normal(key, shape=(*shape, max(n, m), min(n, m)), dtype=dtype)
    q, r = _la.qr(z)
    d = _la.diagonal(r)
    x = multiply(q, _row(_sign(d)))
    return _la.matrix_transpose(x) if n < m else x


def orthogonal(key, n: int, shape=(), dtype=None, m: int | None = None, *, out_sharding=None):
    """Uniformly (Haar) random orthogonal matrices of shape `shape + (n, m)`."""
    m = n if m is None else m
    shape = _canonical_shape(shape)
    kd, _ = _check_key("orthogonal", key)
    d = _float_dtype(dtype, "normal", "a float or complex dtype")
    _check_shape("orthogonal", shape)
    osh = _sampler_sharding(out_sharding, "orthogonal", shape)
    return _run("orthogonal", _orthogonal, osh, (kd,), n=int(n), m=int(m), shape=shape, dtype=d)


def _multivariate_normal(key, mean, cov, *, shape, dtype, method):
    """JAX's `_multivariate_normal`: mean + factor(cov) @ normal samples."""
    tm, tc = type_of(mean), type_of(cov)
    if tm.ndim < 1:
        raise ShardcValueError(f"multivariate_normal requires mean.ndim >= 1, got mean.ndim == {tm.ndim}")
    if tc.ndim < 2:
        raise ShardcValueError(f"multivariate_normal requires cov.ndim >= 2, got cov.ndim == {tc.ndim}")
    n = tm.shape[-1]
    if tc.shape[-2:] != (n, n):
        raise ShardcValueError(f"multivariate_normal requires cov.shape == (..., n, n) for n={n}, but got "
                               f"cov.shape == {tc.shape}.")
    if shape is None:
        shape = tuple(np.broadcast_shapes(tm.shape[:-1], tc.shape[:-2]))
    else:
        _check_shape("normal", shape, tm.shape[:-1], tc.shape[:-2])
    if method == "svd":
        u, s, _ = _la.svd(cov)
        factor = multiply(u, _row(sqrt(s)))
    elif method == "eigh":
        w, v = _la.eigh(cov)
        factor = multiply(v, _row(sqrt(w)))
    else:
        factor = _la.cholesky(cov)
    samples = _normal(key, shape=tuple(shape) + (n,), dtype=dtype)
    col = lax.expand_dims(samples, (type_of(samples).ndim,))  # JAX: einsum('...ij,...j->...i')
    prod = _la.matmul(factor, col)
    return add(mean, lax.squeeze(prod, (type_of(prod).ndim - 1,)))


def multivariate_normal(key, mean, cov, shape=None, dtype=None, method: str = "cholesky", *, out_sharding=None):
    """Multivariate normal samples with mean `mean` and covariance `cov` (cholesky, svd or eigh factor)."""
    kd, _ = _check_key("multivariate_normal", key)
    mean, cov = _inexact_la(mean, cov)
    if method not in {"svd", "eigh", "cholesky"}:
        raise ShardcValueError("method must be one of {'svd', 'eigh', 'cholesky'}")
    d = type_of(mean).dtype if dtype is None else dt.canonicalize(dtype)
    if not dt.is_float(d):
        raise ShardcValueError(f"dtype argument to `multivariate_normal` must be a float dtype, got {d.name}")
    if shape is not None:
        shape = _canonical_shape(shape)
    osh = _canonical_sharding(out_sharding, "multivariate_normal")
    return _run("multivariate_normal", _multivariate_normal, osh, (kd, mean, cov), shape=shape, dtype=d,
                method=method)


def _public(fn):
    """A public function: its errors name it (`sc.random.normal`) and the user's line."""
    @api(f"sc.random.{fn.__name__}")
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except ShardcError as e:
            raise e.with_context(op=current_api(), loc=current_loc()) from None
    return wrapper


for _name in __all__:
    if _name != "KeyArray":
        globals()[_name] = _public(globals()[_name])
del _name
