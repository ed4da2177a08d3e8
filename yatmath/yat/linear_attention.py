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

Array libraries: written once against the array API standard (``xp``: the array_api_compat
namespace of Q, K, V, ``yatmath._backend.fast_namespace``): NumPy, CuPy, PyTorch, JAX and
``array_api_strict`` arrays run the same code and get the result in their library, on their
device.  The causal scan concatenates its chunks (no in-place assignment).  The feature maps run
in whatever library they are written for; their output is taken into Q's library and device.
NumPy results are bit-identical to the NumPy-only code this replaced.
"""
from __future__ import annotations

from .. import _backend as be
from .._registry import register
from .._validate import as_float_array, check_bool, check_int, check_same_last_dim, float_dtype
from ._dispatch import astype as _astype

__all__ = ["linear_attention"]


def _divide(num, den, xp):
    den = xp.expand_dims(den, axis=1)
    safe = xp.where(den == 0, 1.0, den)
    return xp.where(den == 0, 0.0, num / safe)


@register("yat.linear_attention", "reference",
          note="array API generic (any library, on its device), float64 sums; the feature maps "
               "are the caller's (yatmath.features maps are generic)")
def linear_attention(Q, K, V, feature_map, causal=False, *, chunk=128, check_finite=True):
    """Normalised kernel smoothing with K(q, k) = phi(q).phi(k), in time linear in length.

    Parameters
    ----------
    Q : (Lq, d);  K : (Lk, d);  V : (Lk, dv) or (Lk,)
    feature_map : callable X -> (n, F) (e.g. from ``yatmath.features``), or a pair
        (phi_query, phi_key) of such callables for asymmetric maps.
    causal : bool; needs Lq == Lk; query i sees keys j <= i.
    chunk : rows per block of the causal prefix-sum scan.

    Returns (Lq, dv) or (Lq,) in the common dtype of Q, K, V (sums in float64), in their array
    library and on their device.
    """
    xp = be.fast_namespace(Q, K, V)
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
    dtype = float_dtype(xp, Q, K, V)
    vec = V.ndim == 1
    device = be.device_of(Q)
    # float64 copies (xp.astype copies by default): a fresh C-ordered V2 keeps NumPy's matmul
    # on the BLAS path it always took (a (L, 1) view of a vector has a zero stride)
    V2 = xp.astype(xp.expand_dims(V, axis=1) if vec else V, xp.float64)
    Pq = xp.astype(xp.asarray(phi_q(Q), device=device), xp.float64)
    Pk = xp.astype(xp.asarray(phi_k(K), device=device), xp.float64)
    if Pq.ndim != 2 or Pk.ndim != 2 or Pq.shape[1] != Pk.shape[1] or Pq.shape[0] != Q.shape[0] \
            or Pk.shape[0] != K.shape[0]:
        raise ValueError(f"feature_map must return (n, F) arrays with one F, got "
                         f"{tuple(Pq.shape)} for Q and {tuple(Pk.shape)} for K")
    if not causal:
        G = Pk.T @ V2
        z = xp.sum(Pk, axis=0)
        out = _divide(Pq @ G, Pq @ z, xp)
    else:
        L, F = Pq.shape
        G = xp.zeros((F, V2.shape[1]), dtype=xp.float64, device=device)
        z = xp.zeros(F, dtype=xp.float64, device=device)
        parts = [xp.zeros((0, V2.shape[1]), dtype=xp.float64, device=device)]
        for s in range(0, L, chunk):
            e = min(L, s + chunk)
            pq, pk, v = Pq[s:e, :], Pk[s:e, :], V2[s:e, :]
            A = xp.tril(pq @ pk.T)                       # within-chunk j <= i
            num = pq @ G + A @ v
            den = pq @ z + xp.sum(A, axis=1)
            parts.append(_divide(num, den, xp))
            G = G + pk.T @ v
            z = z + xp.sum(pk, axis=0)
        out = xp.concat(parts, axis=0)
    out = out[:, 0] if vec else out
    return _astype(xp, out, dtype)
