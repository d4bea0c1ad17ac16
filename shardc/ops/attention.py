"""`jax.nn.dot_product_attention`, JAX 0.10.2's XLA implementation.

JAX groups the query heads `(B, T, N, H) -> (B, T, K, G, H)` and vmaps its
per-head core over the group axis G. shardc writes the same computation with
G as an explicit dimension (`BTKGH,BSKH->BKGTS`, masks broadcast over G,
`BKGTS,BSKH->BTKGH`): the same dot_generals with the same batch, contracting
and free dimensions, so the result's type (sharded batch / heads / sequence)
and its values are JAX's. Masks (`mask`, `is_causal`, `local_window_size`,
the sequence lengths) replace masked logits by JAX's large negative number;
the softmax runs in float32.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as dt
from ..core import api, raise_user_error
from ..errors import ShardcRuntimeError, ShardcValueError
from ._util import type_of
from .activations import logsumexp, softmax
from .creation import arange, asarray, broadcast_to, ones_like
from .elementwise import add, astype, greater_equal, less, less_equal, logical_and, multiply, where
from .linalg import einsum
from .shape import _arr, expand_dims, reshape, transpose
from .sharding import stop_gradient

__all__ = ["dot_product_attention"]


def _ensure_4d(t):
    t = _arr(t)
    k = 4 - type_of(t).ndim
    return expand_dims(t, tuple(range(k))) if k > 0 else t


def _check(t, shape, dtype, name: str) -> None:
    """JAX's `_check_shape_and_dtype` (its ValueError messages)."""
    if t is None:
        return
    tt = type_of(t)
    if tt.ndim != len(shape):
        raise_user_error(ShardcValueError(f"{name} ndim should be {len(shape)}, but got {tt.ndim}"))
    if dtype is not None and tt.dtype != dtype:
        raise_user_error(ShardcValueError(f"{name} dtype should be {dtype}, but got {tt.dtype}"))
    for i in range(tt.ndim):
        if shape[i] != -1 and tt.shape[i] != shape[i]:
            raise_user_error(ShardcValueError(f"{name} shape should be {list(shape)}: but got {tt.shape}"))


def _large_negative(dtype):
    """`_get_large_negative`: -0.7 times the dtype's max, capped at float32's."""
    m = min(float(np.finfo(dtype).max), float(np.finfo(np.float32).max))
    return asarray(np.asarray(-0.7 * m, dtype=dtype))


def _grouped(t, K: int, G: int):
    """`_reshape_to_grouped`: a `(B|1, N|1, T, S)` bias or mask as `(B|1, K|1, G, T, S)`."""
    if t is None:
        return None
    tB, tN, tT, tS = type_of(t).shape
    if tN == 1:
        return broadcast_to(expand_dims(t, (2,)), (tB, tN, G, tT, tS))
    return reshape(t, (tB, K, G, tT, tS))


def _apply_masks(logits, mask, is_causal, q_seqlen, kv_seqlen, local_window_size):
    """`_apply_masks` on the grouped logits `(B, K, G, T, S)`."""
    if mask is None and not is_causal and q_seqlen is None and kv_seqlen is None and local_window_size is None:
        return logits
    combined = ones_like(logits, dtype=dt.bool_)
    if mask is not None:
        combined = logical_and(combined, mask)
    T, S = type_of(logits).shape[3:]
    lead = (0, 1, 2)
    if is_causal:
        # jnp.tril(jnp.ones((T, S), bool)): row >= column
        causal = greater_equal(expand_dims(arange(T), 1), expand_dims(arange(S), 0))
        combined = logical_and(combined, expand_dims(causal, lead))
    if local_window_size is not None:
        left, right = local_window_size
        q_pos, k_pos = expand_dims(arange(T), 1), expand_dims(arange(S), 0)
        window = logical_and(greater_equal(q_pos, add(k_pos, -right)), less_equal(q_pos, add(k_pos, left)))
        combined = logical_and(combined, expand_dims(window, lead))
    if q_seqlen is not None or kv_seqlen is not None:
        pad = True
        if q_seqlen is not None:
            pad = less(expand_dims(arange(T), (0, 2)), expand_dims(q_seqlen, (1, 2)))
        if kv_seqlen is not None:
            kv = less(expand_dims(arange(S), (0, 1)), expand_dims(kv_seqlen, (1, 2)))
            pad = kv if pad is True else logical_and(pad, kv)
        combined = logical_and(combined, expand_dims(pad, (1, 2)))
    return where(combined, logits, _large_negative(type_of(logits).dtype))


def _xla(query, key, value, bias, mask, is_causal, scale, q_seqlen, kv_seqlen, local_window_size,
         return_residual):
    """`_dot_product_attention_xla` with the group axis explicit."""
    B, T, N, H = type_of(query).shape
    _, S, K, _ = type_of(key).shape
    G = N // K
    qd = type_of(query).dtype
    logits_dtype = dt.float32 if qd in (dt.bfloat16, dt.float16, dt.float32) else qd
    q = reshape(query, (B, T, K, G, H))
    bias, mask = _grouped(bias, K, G), _grouped(mask, K, G)
    logits = einsum("BTKGH,BSKH->BKGTS", q, key, preferred_element_type=logits_dtype)
    logits = multiply(logits, asarray(np.asarray(scale, dtype=logits_dtype)))
    if bias is not None:
        logits = astype(add(logits, bias), logits_dtype)
    padded = _apply_masks(logits, mask, is_causal, q_seqlen, kv_seqlen, local_window_size)
    padded = astype(padded, dt.float32)
    kd = type_of(key).dtype
    probs = astype(softmax(padded, axis=-1), kd)
    encoded = einsum("BKGTS,BSKH->BTKGH", probs, value)
    if q_seqlen is not None:
        keep = less(expand_dims(arange(T), 0), expand_dims(q_seqlen, 1))     # (B, T)
        encoded = multiply(encoded, astype(expand_dims(keep, (2, 3, 4)), type_of(encoded).dtype))
    encoded = reshape(encoded, (B, T, N, H))
    if not return_residual:
        return encoded
    lse = astype(logsumexp(padded, axis=-1), kd)                                # (B, K, G, T)
    lse = reshape(transpose(lse, (0, 3, 1, 2)), (B, T, N))
    return encoded, stop_gradient(lse)


@api("sc.nn.dot_product_attention")
def dot_product_attention(query, key, value, bias=None, mask=None, *, scale=None, is_causal=False,
                          query_seq_lengths=None, key_value_seq_lengths=None, local_window_size=None,
                          implementation=None, return_residual=False):
    """`softmax(q @ k.T * scale + bias, masked) @ v` per head, `(B, T, N, H)`
    (or `(T, N, H)`) layout; `K < N` key/value heads is grouped-query
    attention. `implementation="cudnn"` is JAX's cuDNN kernel, which shardc
    does not lower: it raises JAX's error on CPU."""
    output_shape = type_of(_arr(query)).shape
    residual_shape = output_shape[:-1]
    query_arr, key_arr, value_arr = _ensure_4d(query), _ensure_4d(key), _ensure_4d(value)
    bias = _ensure_4d(bias) if bias is not None else None
    mask = _ensure_4d(mask) if mask is not None else None
    if query_seq_lengths is not None:
        query_seq_lengths = _arr(query_seq_lengths)
    if key_value_seq_lengths is not None:
        key_value_seq_lengths = _arr(key_value_seq_lengths)
    if isinstance(local_window_size, int):
        local_window_size = (local_window_size, local_window_size)
    B, S, K, H = type_of(key_arr).shape
    _check(value_arr, [B, S, K, H], type_of(key_arr).dtype, "value")
    _check(query_arr, [B, -1, -1, H], type_of(key_arr).dtype, "query")
    _check(mask, [-1] * 4, np.dtype(bool), "mask")
    _check(bias, [-1] * 4, None, "bias")
    _check(query_seq_lengths, [B], np.dtype("int32"), "query_seq_lengths")
    _check(key_value_seq_lengths, [B], np.dtype("int32"), "key_value_seq_lengths")
    if type_of(query_arr).shape[-2] % K != 0:
        raise_user_error(ShardcValueError(
            f"The number of query heads must be a multiple of key/value heads, but got "
            f"{type_of(query_arr).shape[-2]} vs {K}"))
    scale_val = (1.0 / np.sqrt(H)) if scale is None else scale
    if implementation == "cudnn":
        raise_user_error(ShardcRuntimeError(
            "cuDNN is not detected. shardc lowers dot_product_attention through XLA only: pass "
            "implementation=None or 'xla'"))
    if implementation not in (None, "xla"):
        raise_user_error(ShardcValueError(f"Unsupported implementation option: {implementation}"))
    out = _xla(query_arr, key_arr, value_arr, bias, mask, is_causal, scale_val, query_seq_lengths,
               key_value_seq_lengths, local_window_size, return_residual)
    if return_residual:
        out, residual = out
        return reshape(out, output_shape), reshape(residual, residual_shape)
    return reshape(out, output_shape)
