"""Contractions: `dot_general`, `dot`, `matmul`, `einsum` (all with
`out_sharding=`, unreduced allowed)."""
from __future__ import annotations

import functools
import string

import numpy as np
from jax._src.lax.lax import canonicalize_precision as _jax_precision  # JAX's parsing of PrecisionLike (pinned 0.10.2)

from ..core import Tracer, api, bind, check_explicit_spec, raise_user_error
from ..errors import ShardcNotImplementedError, ShardcValueError
from ..mesh import get_abstract_mesh
from ..primitives.dot import dot_general as dot_general_p
from ..primitives.shape import transpose as transpose_p
from ..sharding import NamedSharding, PartitionSpec
from ..types import ArrayType
from ._util import promote, to_spec, type_of
from .elementwise import astype, multiply
from .reductions import sum as rsum
from .shape import _arr, expand_dims, ravel, squeeze, transpose
from .sharding import auto_axes, reshard


def _dg(lhs, rhs, contract, batch, out_sharding=None, preferred_element_type=None):
    if not _same_dtype_tracers(lhs, rhs):
        lhs, rhs = promote(_arr(lhs), _arr(rhs))
        lhs, rhs = _arr(lhs), _arr(rhs)
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
    return _dg(lhs, rhs, (lc, rc), (lb, rb), out_sharding, preferred_element_type)


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


def _parse_einsum(subscripts: str, n: int) -> tuple[list[str], str]:
    terms, out = _parse_einsum_cached(subscripts, n)
    return list(terms), out


@functools.lru_cache(maxsize=1024)
def _parse_einsum_cached(subscripts: str, n: int) -> tuple[tuple[str, ...], str]:
    terms, out = _parse_einsum_uncached(subscripts, n)
    return tuple(terms), out


def _parse_einsum_uncached(subscripts: str, n: int) -> tuple[list[str], str]:
    s = subscripts.replace(" ", "")
    if "." in s:
        raise ShardcNotImplementedError("einsum ellipsis ('...') is not supported by shardc yet")
    if "->" in s:
        ins, out = s.split("->")
    else:
        ins = s
        letters = ins.replace(",", "")
        out = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    terms = ins.split(",")
    if len(terms) != n:
        raise ShardcValueError(f"einsum subscripts {subscripts!r} name {len(terms)} operands, got {n}")
    for t in terms + [out]:
        if len(set(t)) != len(t):
            raise ShardcNotImplementedError(
                f"einsum with a repeated index in one term ({t!r}: diagonals/traces) is not supported yet")
        if any(c not in string.ascii_letters for c in t):
            raise ShardcValueError(f"invalid einsum subscripts {subscripts!r}")
    for c in out:
        if c not in "".join(terms):
            raise ShardcValueError(f"einsum output index {c!r} does not appear in the inputs")
    return terms, out


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


@api("sc.einsum")
def einsum(subscripts: str, *operands, precision=None, out_sharding=None, preferred_element_type=None):
    """`jnp.einsum` for explicit/implicit subscripts (no ellipsis, no diagonals).

    Operands contract left to right through `dot_general`; `out_sharding`
    applies to the final result (its spec is permuted into the last
    contraction's dim order, then the result is transposed)."""
    _precision(precision)
    ops = [_arr(o) for o in operands]
    terms, out = _parse_einsum(subscripts, len(ops))
    for o, t in zip(ops, terms):
        if type_of(o).ndim != len(t):
            raise ShardcValueError(f"einsum term {t!r} has {len(t)} indices but its operand has "
                                   f"rank {type_of(o).ndim}")
    if out_sharding is not None:   # JAX canonicalizes it as einsum's (the error names einsum)
        try:
            check_explicit_spec(to_spec(out_sharding), get_abstract_mesh(), "einsum")
        except ShardcValueError as e:
            raise_user_error(e, [type_of(o) for o in ops])
        if len(ops) > 2:
            # JAX: more than one contraction with an `out_sharding` runs under `auto_axes` over the
            # Explicit axes (the intermediate einsums' shardings are XLA's), then reshards the result
            mesh = (out_sharding.abstract_mesh if isinstance(out_sharding, NamedSharding)
                    else get_abstract_mesh())
            return auto_axes(lambda *xs: einsum(subscripts, *xs, preferred_element_type=preferred_element_type),
                             out_sharding=to_spec(out_sharding), axes=mesh.explicit_axes)(*ops)
    cur, cur_t = ops[0], terms[0]
    if len(ops) == 1:
        cur, cur_t = _sum_out(cur, cur_t, set(out))
    for k in range(1, len(ops)):
        later = set(out) | {c for t in terms[k + 1:] for c in t}
        last = k == len(ops) - 1
        cur, cur_t = _contract_pair(cur, cur_t, ops[k], terms[k], later,
                                    out_sharding if last else None, out if last else None,
                                    preferred=preferred_element_type)
    perm = [cur_t.index(c) for c in out]
    if perm != list(range(len(perm))):
        cur = transpose(cur, perm)
    if len(ops) == 1 and out_sharding is not None:
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
def outer(a, b):
    return multiply(expand_dims(ravel(a), 1), expand_dims(ravel(b), 0))
