"""Linear-time kernel attention (R4 "linearised attention"): normalised kernel smoothing

    out_i = sum_j K(q_i, k_j) v_j / sum_j K(q_i, k_j),   K(q, k) = phi(q) . phi(k),

evaluated as phi(q_i)^T G / phi(q_i)^T z with G = sum_j phi(k_j) v_j^T (F x dv) and
z = sum_j phi(k_j) (F).  Causal (j <= i) uses prefix sums of G and z, processed in chunks of
``chunk`` rows: within a chunk the (chunk x chunk) masked kernel block, across chunks the running
(G, z).  Cost O(L F dv) time (plus O(L chunk F) for the causal blocks) and O(F dv + chunk F)
memory, against O(Lq Lk (d + dv)) time for exact attention.

The result equals the quadratic form above (the reference) up to rounding: the sums are
re-associated, so agreement is to ~ L u cond, u the unit roundoff, where
cond = sum_j |K_ij| |v_j| / |sum_j K_ij v_j| (and the same for the normaliser).  With signed
feature maps (RFF, Maclaurin/Laplace Yat features) the normaliser can be near 0 or negative;
nothing is clipped.  A row whose normaliser is exactly 0 gives 0.
"""
from __future__ import annotations

import numpy as np

from .. import _backend as be
from .._validate import as_float_array, check_bool, check_int, check_same_last_dim, common_dtype

__all__ = ["linear_attention"]


def _divide(num, den, xp):
    safe = xp.where(den == 0, 1.0, den)
    return xp.where(den[:, None] == 0, 0.0, num / safe[:, None])


def linear_attention(Q, K, V, feature_map, causal=False, *, chunk=128, check_finite=True):
    """Normalised kernel smoothing with K(q, k) = phi(q).phi(k), in time linear in length.

    Parameters
    ----------
    Q : (Lq, d);  K : (Lk, d);  V : (Lk, dv) or (Lk,)
    feature_map : callable X -> (n, F) (e.g. from ``yatmath.features``), or a pair
        (phi_query, phi_key) of such callables for asymmetric maps.
    causal : bool; needs Lq == Lk; query i sees keys j <= i.
    chunk : rows per block of the causal prefix-sum scan.
    """
    xp = be.array_module(Q, K, V)
    Q = as_float_array(Q, "Q", ndim=2, check_finite=check_finite, xp=xp)
    K = as_float_array(K, "K", ndim=2, check_finite=check_finite, xp=xp)
    V = as_float_array(V, "V", ndim=(1, 2), check_finite=check_finite, xp=xp)
    check_same_last_dim(Q, K, "Q", "K")
    if V.shape[0] != K.shape[0]:
        raise ValueError(f"V must have one row per key: K.shape={tuple(K.shape)}, "
                         f"V.shape={tuple(V.shape)}")
    if isinstance(feature_map, tuple) and len(feature_map) == 2:
        phi_q, phi_k = feature_map
    else:
        phi_q = phi_k = feature_map
    if not (callable(phi_q) and callable(phi_k)):
        raise TypeError("feature_map must be a callable X -> (n, F) or a pair of them, got "
                        f"{type(feature_map).__name__}")
    causal = check_bool(causal, "causal")
    chunk = check_int(chunk, "chunk", minimum=1)
    if causal and Q.shape[0] != K.shape[0]:
        raise ValueError(f"causal=True needs as many queries as keys, got Q.shape={tuple(Q.shape)}"
                         f" and K.shape={tuple(K.shape)}")
    dtype = common_dtype(Q, K, V)
    vec = V.ndim == 1
    V2 = (V[:, None] if vec else V).astype(np.float64)
    Pq = xp.asarray(phi_q(Q)).astype(np.float64)
    Pk = xp.asarray(phi_k(K)).astype(np.float64)
    if Pq.ndim != 2 or Pk.ndim != 2 or Pq.shape[1] != Pk.shape[1] or Pq.shape[0] != Q.shape[0] \
            or Pk.shape[0] != K.shape[0]:
        raise ValueError(f"feature_map must return (n, F) arrays with one F, got "
                         f"{tuple(Pq.shape)} for Q and {tuple(Pk.shape)} for K")
    if not causal:
        G = Pk.T @ V2
        z = Pk.sum(0)
        out = _divide(Pq @ G, Pq @ z, xp)
    else:
        L, F = Pq.shape
        out = xp.empty((L, V2.shape[1]))
        G = xp.zeros((F, V2.shape[1]))
        z = xp.zeros(F)
        for s in range(0, L, chunk):
            e = min(L, s + chunk)
            pq, pk, v = Pq[s:e], Pk[s:e], V2[s:e]
            A = xp.tril(pq @ pk.T)                       # within-chunk j <= i
            num = pq @ G + A @ v
            den = pq @ z + A.sum(1)
            out[s:e] = _divide(num, den, xp)
            G = G + pk.T @ v
            z = z + pk.sum(0)
    out = out[:, 0] if vec else out
    return out.astype(dtype, copy=False)
