"""Contractions: `dot_general`, `dot`, `matmul`, `einsum` (all with
`out_sharding=`, unreduced allowed)."""
from __future__ import annotations

import string
from typing import Any, Sequence

import numpy as np

from ..errors import ShardcNotImplementedError, ShardcValueError
from ..frontend.tracing import api, bind
from ..primitives.dot import dot_general as dot_general_p
from ..sharding import PartitionSpec
from ._util import is_array, promote, to_spec, type_of
from .shape import _arr, broadcast_to, expand_dims, squeeze, transpose


def _dg(lhs, rhs, contract, batch, out_sharding=None, preferred_element_type=None):
    lhs, rhs = promote(_arr(lhs), _arr(rhs))
    lhs, rhs = _arr(lhs), _arr(rhs)
    dn = ((tuple(contract[0]), tuple(contract[1])), (tuple(batch[0]), tuple(batch[1])))
    return bind(dot_general_p, lhs, rhs, dimension_numbers=dn, out_sharding=to_spec(out_sharding),
                preferred_element_type=preferred_element_type)


@api("sc.dot_general")
def dot_general(lhs, rhs, dimension_numbers, *, out_sharding=None, preferred_element_type=None):
    """`lax.dot_general(lhs, rhs, ((lc, rc), (lb, rb)))`: output dims are batch,
    lhs free, rhs free."""
    (lc, rc), (lb, rb) = dimension_numbers
    return _dg(lhs, rhs, (lc, rc), (lb, rb), out_sharding, preferred_element_type)


@api("sc.dot")
def dot(a, b, *, out_sharding=None, preferred_element_type=None):
    """`jnp.dot`: contract a's last dim with b's second-to-last (or only) dim."""
    a, b = _arr(a), _arr(b)
    ta, tb = type_of(a), type_of(b)
    if ta.ndim == 0 or tb.ndim == 0:
        from .elementwise import multiply
        return multiply(a, b)
    cb = 0 if tb.ndim == 1 else tb.ndim - 2
    return _dg(a, b, ((ta.ndim - 1,), (cb,)), ((), ()), out_sharding, preferred_element_type)


@api("sc.matmul")
def matmul(a, b, *, out_sharding=None, preferred_element_type=None):
    """`jnp.matmul` (`@`): batch dims broadcast; 1-D operands are promoted and
    their dim removed from the result."""
    a, b = _arr(a), _arr(b)
    ta, tb = type_of(a), type_of(b)
    if ta.ndim == 0 or tb.ndim == 0:
        raise ShardcValueError("matmul operands must have at least one dimension (use `*` for scalars)")
    if ta.ndim == 1 or tb.ndim == 1 or (ta.ndim >= 2 and tb.ndim == 2):
        if tb.ndim == 1:
            return _dg(a, b, ((ta.ndim - 1,), (0,)), ((), ()), out_sharding, preferred_element_type)
        if ta.ndim == 1:
            out = _dg(a, b, ((0,), (tb.ndim - 2,)), ((), ()), out_sharding, preferred_element_type)
            if tb.ndim > 2:  # dot_general put rhs batch dims first: (batch..., m)
                pass
            return out
        return _dg(a, b, ((ta.ndim - 1,), (0,)), ((), ()), out_sharding, preferred_element_type)
    # both have batch dims: broadcast them to a common batch shape
    ba, bb = ta.shape[:-2], tb.shape[:-2]
    batch = tuple(np.broadcast_shapes(ba, bb))
    if ba != batch:
        a = broadcast_to(a, batch + ta.shape[-2:])
    if bb != batch:
        b = broadcast_to(b, batch + tb.shape[-2:])
    nb = len(batch)
    return _dg(a, b, ((nb + 1,), (nb,)), (tuple(range(nb)), tuple(range(nb))), out_sharding,
               preferred_element_type)


def _parse_einsum(subscripts: str, n: int) -> tuple[list[str], str]:
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
    from .reductions import sum as rsum
    drop = [i for i, c in enumerate(term) if c not in keep]
    if not drop:
        return x, term
    return rsum(x, tuple(drop)), "".join(c for c in term if c in keep)


def _contract_pair(a, ta: str, b, tb: str, keep: set[str], out_sharding=None, final: str | None = None):
    a, ta = _sum_out(a, ta, set(tb) | keep)
    b, tb = _sum_out(b, tb, set(ta) | keep)
    batch = [c for c in ta if c in tb and c in keep]
    contract = [c for c in ta if c in tb and c not in keep]
    free_a = [c for c in ta if c not in tb]
    free_b = [c for c in tb if c not in ta]
    res_term = "".join(batch + free_a + free_b)
    spec = to_spec(out_sharding)
    if spec is not None and final is not None:
        want = tuple(spec) + (None,) * (len(final) - len(spec))
        by_letter = dict(zip(final, want))
        spec = PartitionSpec(*[by_letter.get(c) for c in res_term], unreduced=spec.unreduced,
                             reduced=spec.reduced)
    out = _dg(a, b, ([ta.index(c) for c in contract], [tb.index(c) for c in contract]),
              ([ta.index(c) for c in batch], [tb.index(c) for c in batch]), spec)
    return out, res_term


@api("sc.einsum")
def einsum(subscripts: str, *operands, out_sharding=None, preferred_element_type=None):
    """`jnp.einsum` for explicit/implicit subscripts (no ellipsis, no diagonals).

    Operands contract left to right through `dot_general`; `out_sharding`
    applies to the final result (its spec is permuted into the last
    contraction's dim order, then the result is transposed)."""
    ops = [_arr(o) for o in operands]
    terms, out = _parse_einsum(subscripts, len(ops))
    for o, t in zip(ops, terms):
        if type_of(o).ndim != len(t):
            raise ShardcValueError(f"einsum term {t!r} has {len(t)} indices but its operand has "
                                   f"rank {type_of(o).ndim}")
    cur, cur_t = ops[0], terms[0]
    if len(ops) == 1:
        cur, cur_t = _sum_out(cur, cur_t, set(out))
    for k in range(1, len(ops)):
        later = set(out) | {c for t in terms[k + 1:] for c in t}
        last = k == len(ops) - 1
        cur, cur_t = _contract_pair(cur, cur_t, ops[k], terms[k], later,
                                    out_sharding if last else None, out if last else None)
    perm = [cur_t.index(c) for c in out]
    if perm != list(range(len(perm))):
        cur = transpose(cur, perm)
    if len(ops) == 1 and out_sharding is not None:
        from .sharding import reshard
        cur = reshard(cur, to_spec(out_sharding))
    return cur


@api("sc.tensordot")
def tensordot(a, b, axes=2, *, out_sharding=None):
    a, b = _arr(a), _arr(b)
    ta, tb = type_of(a), type_of(b)
    if isinstance(axes, int):
        ca, cb = list(range(ta.ndim - axes, ta.ndim)), list(range(axes))
    else:
        ca, cb = axes
        ca = [ca] if isinstance(ca, int) else list(ca)
        cb = [cb] if isinstance(cb, int) else list(cb)
    return _dg(a, b, ([c % ta.ndim for c in ca], [c % tb.ndim for c in cb]), ((), ()), out_sharding)


@api("sc.outer")
def outer(a, b):
    from .elementwise import multiply
    from .shape import ravel
    return multiply(expand_dims(ravel(a), 1), expand_dims(ravel(b), 0))
