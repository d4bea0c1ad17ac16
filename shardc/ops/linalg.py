"""Contractions: `dot_general`, `dot`, `matmul`, `einsum` (all with
`out_sharding=`, unreduced allowed)."""
from __future__ import annotations

import functools

import numpy as np
import opt_einsum
from jax._src.lax.lax import canonicalize_precision as _jax_precision  # JAX's parsing of PrecisionLike (pinned 0.10.2)

from .. import dtypes as dt
from ..core import Tracer, api, bind, check_explicit_spec, raise_user_error
from ..errors import ShardcNotImplementedError, ShardcValueError
from ..lax import broadcasted_iota
from ..mesh import get_abstract_mesh
from ..primitives.dot import dot_general as dot_general_p
from ..primitives.shape import transpose as transpose_p
from ..sharding import NamedSharding, PartitionSpec
from ..types import ArrayType
from ._util import promote, to_spec, type_of
from .creation import zeros_like
from .elementwise import astype, equal, logical_and, multiply, where
from .reductions import sum as rsum
from .shape import _arr, expand_dims, ravel, squeeze, transpose
from .sharding import auto_axes, reshard


def _dg(lhs, rhs, contract, batch, out_sharding=None, preferred_element_type=None, promote_dtypes: bool = True):
    """One `dot_general`: the jnp products promote their operands first; `lax.dot_general` binds them
    as they are (JAX's dtype rule then takes mixed operands: f32 with bf16 gives f32)."""
    if not _same_dtype_tracers(lhs, rhs):
        lhs, rhs = promote(_arr(lhs), _arr(rhs)) if promote_dtypes else (lhs, rhs)
        lhs, rhs = _arr(lhs), _arr(rhs)
    if preferred_element_type is not None:
        preferred_element_type = dt.canonicalize(preferred_element_type)
    dn = ((tuple(contract[0]), tuple(contract[1])), (tuple(batch[0]), tuple(batch[1])))
    return bind(dot_general_p, lhs, rhs, dimension_numbers=dn, out_sharding=to_spec(out_sharding),
                preferred_element_type=preferred_element_type)


def _same_dtype_tracers(a, b) -> bool:
    """Two tracers of one dtype and weakness: `promote` and `_arr` would return them unchanged."""
    if type(a) is not Tracer or type(b) is not Tracer:
        return False
    ta, tb = a._var.type, b._var.type
    return ta.dtype == tb.dtype and ta.weak_type == tb.weak_type


@api("sc.dot_general")
def dot_general(lhs, rhs, dimension_numbers, *, out_sharding=None, preferred_element_type=None):
    """`lax.dot_general(lhs, rhs, ((lc, rc), (lb, rb)))`: output dims are batch,
    lhs free, rhs free."""
    (lc, rc), (lb, rb) = dimension_numbers
    return _dg(lhs, rhs, (lc, rc), (lb, rb), out_sharding, preferred_element_type, promote_dtypes=False)


def _precision(precision) -> None:
    """`precision=` of the jnp products: JAX's parsing and ValueError; the value is not emitted
    (as `lax.dot_general`'s: shardc's CPU and GPU dots run at full precision by default)."""
    if precision is not None:
        try:
            _jax_precision(precision)
        except ValueError as e:
            raise_user_error(ShardcValueError(str(e)))


@api("sc.dot")
def dot(a, b, *, precision=None, out_sharding=None, preferred_element_type=None):
    """`jnp.dot`: contract a's last dim with b's second-to-last (or only) dim."""
    _precision(precision)
    a, b = _arr(a), _arr(b)
    ta, tb = type_of(a), type_of(b)
    if ta.ndim == 0 or tb.ndim == 0:
        return multiply(a, b)
    cb = 0 if tb.ndim == 1 else tb.ndim - 2
    return _dg(a, b, ((ta.ndim - 1,), (cb,)), ((), ()), out_sharding, preferred_element_type)


def _matmul_plan(ta: ArrayType, tb: ArrayType):
    """`jnp.matmul`'s pairing of batch dims: the dims each operand squeezes,
    the batch dims of the dot_general, the size-1 dims both squeeze (restored
    after), the transpose into matmul order, and whether `b` is a matrix."""
    a_mat, b_mat = ta.ndim > 1, tb.ndim > 1
    a_bd = ta.shape[:-2] if a_mat else ()
    b_bd = tb.shape[:-2] if b_mat else ()
    nb = max(len(a_bd), len(b_bd))
    a_bd = (None,) * (nb - len(a_bd)) + tuple(a_bd)
    b_bd = (None,) * (nb - len(b_bd)) + tuple(b_bd)
    a_bs = tuple(ta.spec[:-2]) if a_mat else ()
    b_bs = tuple(tb.spec[:-2]) if b_mat else ()
    a_bs = (None,) * (nb - len(a_bs)) + a_bs
    b_bs = (None,) * (nb - len(b_bs)) + b_bs
    a_sq, b_sq, both_sq, a_batch, b_batch = [], [], [], [], []
    idx_batch, idx_a, idx_b = [], [], []
    for i, (ba, bb, sa, sb) in enumerate(zip(a_bd, b_bd, a_bs, b_bs)):
        if ba is None:
            idx_b.append(i)
        elif bb is None:
            idx_a.append(i)
        elif ba == 1 and bb == 1 and sa is None and sb is None:
            a_sq.append(len(idx_batch) + len(idx_a) + len(a_sq))
            b_sq.append(len(idx_batch) + len(idx_b) + len(b_sq))
            both_sq.append(i)
        elif ba == 1 and sa is None:
            idx_b.append(i)
            a_sq.append(len(idx_batch) + len(idx_a) + len(a_sq))
        elif bb == 1 and sb is None:
            idx_a.append(i)
            b_sq.append(len(idx_batch) + len(idx_b) + len(b_sq))
        elif ba == bb and sa == sb:
            a_batch.append(len(idx_batch) + len(idx_a))
            b_batch.append(len(idx_batch) + len(idx_b))
            idx_batch.append(i)
        else:
            raise_user_error(ShardcValueError(
                f"Incompatible types for matmul arguments: {ta} and {tb}"), [ta, tb])
    if a_mat:
        idx_a.append(nb)
    if b_mat:
        idx_b.append(nb + a_mat)
    perm = tuple(int(p) for p in np.argsort(np.concatenate([idx_batch, idx_a, idx_b]).astype(int)))
    return a_sq, b_sq, a_batch, b_batch, both_sq, perm, b_mat


@api("sc.matmul")
def matmul(a, b, *, precision=None, out_sharding=None, preferred_element_type=None):
    """`jnp.matmul` (`@`), with its algorithm: batch dims pair up when their
    sizes and shardings agree, unsharded size-1 batch dims broadcast (they
    become free dims of the other operand), anything else is an error; 1-D
    operands lose their dim in the result. `out_sharding` applies to the
    `dot_general` result, before the final transpose into matmul order."""
    _precision(precision)
    a, b = _arr(a), _arr(b)
    ta, tb = type_of(a), type_of(b)
    for i, t in enumerate((ta, tb)):
        if t.ndim < 1:
            raise_user_error(ShardcValueError(
                f"matmul input operand {i} must have ndim at least 1, but it has ndim {t.ndim}"), [ta, tb])
    a_sq, b_sq, a_batch, b_batch, both_sq, perm, b_mat = _matmul_plan(ta, tb)
    if a_sq:
        a = squeeze(a, tuple(a_sq))
    if b_sq:
        b = squeeze(b, tuple(b_sq))
    na, nb_ = type_of(a).ndim, type_of(b).ndim
    out = _dg(a, b, ((na - 1,), (nb_ - 1 - b_mat,)), (tuple(a_batch), tuple(b_batch)), out_sharding,
              preferred_element_type)
    if perm != tuple(range(len(perm))):
        out = bind(transpose_p, out, permutation=perm)
    if both_sq:
        out = expand_dims(out, tuple(both_sq))
    return out


def _sum_out(x, term: str, keep: set[str]):
    """Sum away dims of one operand whose letters appear nowhere else."""
    drop = [i for i, c in enumerate(term) if c not in keep]
    if not drop:
        return x, term
    return rsum(x, tuple(drop)), "".join(c for c in term if c in keep)


@functools.lru_cache(maxsize=1024)
def _pair_plan(ta: str, tb: str, keep: frozenset, final: str | None):
    """What `_contract_pair` does for these terms, computed once per signature:
    dims to sum away first, whether the operands swap, dot dims, result term."""
    keep_a = set(tb) | keep
    drop_a = tuple(i for i, c in enumerate(ta) if c not in keep_a)
    ta = "".join(c for c in ta if c in keep_a)
    keep_b = set(ta) | keep
    drop_b = tuple(i for i, c in enumerate(tb) if c not in keep_b)
    tb = "".join(c for c in tb if c in keep_b)
    contract = sorted(c for c in ta if c in tb and c not in keep)
    if final is not None:
        batch = [c for c in final if c in ta and c in tb]
    else:
        batch = [c for c in ta if c in tb and c in keep]
    free_a = [c for c in ta if c not in batch and c not in contract]
    free_b = [c for c in tb if c not in batch and c not in contract]
    if final is not None and "".join(batch + free_b + free_a) == final:
        dims = ((tuple(tb.index(c) for c in contract), tuple(ta.index(c) for c in contract)),
                (tuple(tb.index(c) for c in batch), tuple(ta.index(c) for c in batch)))
        return drop_a, drop_b, True, dims, final
    dims = ((tuple(ta.index(c) for c in contract), tuple(tb.index(c) for c in contract)),
            (tuple(ta.index(c) for c in batch), tuple(tb.index(c) for c in batch)))
    return drop_a, drop_b, False, dims, "".join(batch + free_a + free_b)


def _contract_pair(a, ta: str, b, tb: str, keep: set[str], out_sharding=None, final: str | None = None,
                   preferred=None):
    """One `dot_general` of an einsum, ordered as `jnp.einsum` orders it:
    contracted names sorted, batch names in result order, and the operands
    swapped when `batch + rhs_free + lhs_free` is already the result order.
    `out_sharding` (final contraction only) is permuted into the dot's order."""
    drop_a, drop_b, swap, dims, res_term = _pair_plan(ta, tb, frozenset(keep), final)
    if drop_a:
        a = rsum(a, drop_a)
    if drop_b:
        b = rsum(b, drop_b)
    spec = to_spec(out_sharding)
    if swap:
        return _dg(b, a, dims[0], dims[1], spec, preferred), final
    if spec is not None and final is not None and res_term != final:
        want = tuple(spec) + (None,) * (len(final) - len(spec))
        by_letter = dict(zip(final, want))
        spec = PartitionSpec(*[by_letter.get(c) for c in res_term], unreduced=spec.unreduced,
                             reduced=spec.reduced)
    return _dg(a, b, dims[0], dims[1], spec, preferred), res_term


class _Unoptimized(opt_einsum.paths.PathOptimizer):
    """JAX's `Unoptimized` path (`optimize=False`): contract left to right."""

    def __call__(self, inputs, *args, **kwargs):
        return [(0, 1)] * (len(inputs) - 1)


class _Shaped:
    """What opt_einsum reads of an operand (its shape), without its data."""
    __slots__ = ("shape",)

    def __init__(self, shape):
        self.shape = tuple(shape)


def _contractions(subscripts: str, types: list[ArrayType], optimize) -> list[tuple[tuple[int, ...], str]]:
    """JAX's contraction order: opt_einsum's path (`optimize` as jnp.einsum takes it: 'auto',
    'greedy', 'optimal', True, False or an explicit path) over the operands' shapes; each step is
    (operand positions to pop, its 'ab,bc->ac' string with `...` spelled out as letters)."""
    shapes = tuple(t.shape for t in types)
    key = optimize
    if not isinstance(optimize, (str, bool)):   # an explicit path, with or without opt_einsum's "einsum_path" head
        steps = optimize[1:] if optimize and optimize[0] == "einsum_path" else optimize
        key = ("path", tuple(tuple(step) for step in steps))
    try:
        return list(_path(subscripts, shapes, key))
    except (ValueError, TypeError) as e:   # opt_einsum's parsing and shape checks: JAX's errors
        raise_user_error(ShardcValueError(str(e)), types)


@functools.lru_cache(maxsize=1024)
def _path(subscripts: str, shapes: tuple, optimize) -> tuple[tuple[tuple[int, ...], str], ...]:
    """opt_einsum's path for these shapes, once per signature (a model traces the same einsum per layer)."""
    if isinstance(optimize, tuple):   # an explicit path, as opt_einsum takes it
        path_type = list(optimize[1])
    else:
        path_type = "optimal" if optimize is True else _Unoptimized() if optimize is False else optimize
    _, steps = opt_einsum.contract_path(subscripts, *[_Shaped(s) for s in shapes], einsum_call=True,
                                        use_blas=True, optimize=path_type)
    return tuple((tuple(step[0]), step[2]) for step in steps)


def _sum_repeats(x, names: str, keep: str):
    """JAX's `sum_repeats`: an index repeated within one term takes the diagonal (a select against
    an identity mask), kept once if `keep` names it, else summed away."""
    for name in dict.fromkeys(names):
        axes = [i for i, n in enumerate(names) if n == name]
        if len(axes) < 2:
            continue
        t = type_of(x)
        eye = None
        for a in axes[1:]:
            same = equal(broadcasted_iota(np.int32, t.shape, axes[0]), broadcasted_iota(np.int32, t.shape, a))
            eye = same if eye is None else logical_and(eye, same)
        x = where(eye, x, zeros_like(x))
        drop = axes if name not in keep else axes[:-1]
        x = rsum(x, tuple(drop))
        names = "".join(n for i, n in enumerate(names) if i not in drop)
    return x, names


def _filter_singletons(x, names: str, other_shape, other_names: str):
    """JAX's `filter_singleton_dims`: a size-1 dim whose counterpart in the other operand is not 1
    is squeezed (it broadcasts)."""
    t = type_of(x)
    drop = tuple(i for i, n in enumerate(names) if t.shape[i] == 1 and n in other_names
                 and other_shape[other_names.index(n)] != 1)
    if not drop:
        return x, names
    return squeeze(x, drop), "".join(n for i, n in enumerate(names) if i not in drop)


@api("sc.einsum")
def einsum(subscripts: str, *operands, out=None, optimize="auto", precision=None, preferred_element_type=None,
           _dot_general=None, out_sharding=None):
    """`jnp.einsum` with NumPy's grammar (`...`, repeated indices, implicit output) and JAX's
    algorithm: opt_einsum's contraction path (`optimize=`), then per step the unique indices
    summed, repeated ones reduced to their diagonal, and one `dot_general` ordered as JAX's (so
    intermediate types, shardings and collectives are JAX's). With `out_sharding` and more than
    one contraction, JAX runs the contractions under `auto_axes` and reshards the result."""
    if out is not None:
        raise_user_error(ShardcNotImplementedError("The 'out' argument to jnp.einsum is not supported."))
    if _dot_general is not None:
        raise_user_error(ShardcNotImplementedError("einsum(_dot_general=...): shardc's einsum binds its own "
                                                   "dot_general"))
    _precision(precision)
    ops = [_arr(o) for o in operands]
    steps = _contractions(subscripts, [type_of(o) for o in ops], optimize)
    if out_sharding is not None:   # JAX canonicalizes it as einsum's (the error names einsum)
        try:
            check_explicit_spec(to_spec(out_sharding), get_abstract_mesh(), "einsum")
        except ShardcValueError as e:
            raise_user_error(e, [type_of(o) for o in ops])
        if len(steps) > 1:
            # JAX: more than one contraction with an `out_sharding` runs under `auto_axes` over the
            # Explicit axes (the intermediate einsums' shardings are XLA's), then reshards the result
            mesh = (out_sharding.abstract_mesh if isinstance(out_sharding, NamedSharding)
                    else get_abstract_mesh())
            return auto_axes(lambda *xs: einsum(subscripts, *xs, optimize=optimize,
                                                preferred_element_type=preferred_element_type),
                             out_sharding=to_spec(out_sharding), axes=mesh.explicit_axes)(*ops)
    for positions, einstr in steps:
        ins, result = einstr.split("->")
        names = ins.split(",")
        picked = [ops.pop(i) for i in positions]
        if len(picked) == 1:
            x, n = picked[0], names[0]
            x, n = _sum_out(x, n, set(result) | {c for c in n if n.count(c) > 1})
            x, n = _sum_repeats(x, n, result)
        else:
            (a, b), (na, nb) = picked, names
            a, na = _filter_singletons(a, na, type_of(b).shape, nb)
            b, nb = _filter_singletons(b, nb, type_of(a).shape, na)
            a, na = _sum_repeats(a, na, result + nb)
            b, nb = _sum_repeats(b, nb, result + na)
            x, n = _contract_pair(a, na, b, nb, set(result), out_sharding, result, preferred=preferred_element_type)
        if n != result:
            x = transpose(x, [n.index(c) for c in result])
        ops.append(x)
    cur = ops[0]
    if out_sharding is not None and all(len(p) == 1 for p, _ in steps):   # (a pair's dot_general took it)
        cur = reshard(cur, to_spec(out_sharding))
    if preferred_element_type is not None:
        cur = astype(cur, preferred_element_type)
    return cur


@api("sc.tensordot")
def tensordot(a, b, axes=2, *, precision=None, preferred_element_type=None, out_sharding=None):
    """`jnp.tensordot`: contract `axes` (a count of trailing/leading dims, or the two lists)."""
    _precision(precision)
    a, b = _arr(a), _arr(b)
    ta, tb = type_of(a), type_of(b)
    if isinstance(axes, int):
        ca, cb = list(range(ta.ndim - axes, ta.ndim)), list(range(axes))
    else:
        ca, cb = axes
        ca = [ca] if isinstance(ca, int) else list(ca)
        cb = [cb] if isinstance(cb, int) else list(cb)
    return _dg(a, b, ([c % ta.ndim for c in ca], [c % tb.ndim for c in cb]), ((), ()), out_sharding,
               preferred_element_type)


@api("sc.outer")
def outer(a, b, out=None):
    """Outer product of the flattened operands (`out=` refused, as JAX)."""
    if out is not None:
        raise_user_error(ShardcNotImplementedError("The 'out' argument to jnp.outer is not supported."))
    return multiply(expand_dims(ravel(a), 1), expand_dims(ravel(b), 0))
