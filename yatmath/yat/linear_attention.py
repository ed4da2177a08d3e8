"""Linear-time kernel attention (R4 "linearised attention"): normalised kernel smoothing

    out_i = sum_j K(q_i, k_j) v_j / sum_j K(q_i, k_j),   K(q, k) = phi(q) . phi(k),

evaluated as phi(q_i)^T G / phi(q_i)^T z with G = sum_j phi(k_j) v_j^T (F x dv) and
z = sum_j phi(k_j) (F).  Causal (j <= i) uses prefix sums of G and z, processed in chunks of
``chunk`` rows: within a chunk the (chunk x chunk) masked kernel block, across chunks the running
(G, z) as an exclusive cumulative sum over the chunks, every chunk of a group in one batched
matmul (a scan, not a Python loop over chunks: ``_causal_scan``).  Cost O(L F dv) time (plus O(L chunk F) for the causal blocks) and O(F dv + chunk F)
memory, against O(Lq Lk (d + dv)) time for exact attention.

The result equals the quadratic form above (the reference) up to rounding: the sums are
re-associated, so agreement is to ~ L u cond, u the unit roundoff, where
cond = sum_j |K_ij| |v_j| / |sum_j K_ij v_j| (and the same for the normaliser).  With signed
feature maps (RFF, Maclaurin/Laplace Yat features) the normaliser can be near 0 or negative;
nothing is clipped.  A row whose normaliser is exactly 0 gives 0.

Array libraries: written once against the array API standard (``xp``: the array_api_compat
namespace of Q, K, V, ``yatmath._array.namespace``): NumPy, CuPy, PyTorch, JAX and
``array_api_strict`` arrays run the same code and get the result in their library, on their
device.  The causal scan concatenates its groups (no in-place assignment).  The feature maps run
in whatever library they are written for; their output is taken into Q's library and device.
NumPy results are bit-identical to the NumPy-only code this replaced.
"""
from __future__ import annotations

from typing import Any, Callable

from .. import _array
from .._registry import register
from .._typing import Array, Namespace
from .._validate import as_float_array, check_bool, check_int, check_same_last_dim, float_dtype
from ._dtypes import astype as _astype

__all__ = ["linear_attention"]


def _divide(num: Array, den: Array, xp: Namespace) -> Array:
    den = xp.expand_dims(den, axis=1)
    safe = xp.where(den == 0, 1.0, den)
    return xp.where(den == 0, 0.0, num / safe)


#: Bytes of per-chunk (F, dv) states the causal scan holds at once (a group of chunks).
_SCAN_GROUP_BYTES = 64 << 20


def _causal_scan(Pq: Array, Pk: Array, V2: Array, chunk: int, xp: Namespace,
                 device: Any) -> Array:
    """The causal prefix sums as a scan, not a loop over chunks: the rows are cut into chunks of
    ``chunk`` (the last one padded with zero features, which add nothing), and for a group of
    chunks at once the within-chunk masked blocks, each chunk's (F, dv) sum and the exclusive
    running sum over the chunks before it (``cumulative_sum``) are batched matmuls; groups carry
    the running (G, z) between them, so memory stays O(group * F * dv).  The running sums are
    added chunk by chunk in order, as a loop would."""
    L, F = Pq.shape
    dv = V2.shape[1]
    n = -(-L // chunk)
    pad = n * chunk - L
    if pad:
        Pq, Pk, V2 = (xp.concat([a, xp.zeros((pad, a.shape[1]), dtype=a.dtype, device=device)],
                                axis=0) for a in (Pq, Pk, V2))
    pq = xp.reshape(Pq, (n, chunk, F))
    pk = xp.reshape(Pk, (n, chunk, F))
    v = xp.reshape(V2, (n, chunk, dv))
    group = max(1, _SCAN_GROUP_BYTES // (8 * max(1, F * (dv + 1))))
    G = xp.zeros((1, F, dv), dtype=xp.float64, device=device)
    z = xp.zeros((1, F), dtype=xp.float64, device=device)
    parts = []
    for g0 in range(0, n, group):
        g1 = min(n, g0 + group)    # in-bounds slices (the array API does not clip them)
        gq, gk, gv = pq[g0:g1, ...], pk[g0:g1, ...], v[g0:g1, ...]
        kT = xp.permute_dims(gk, (0, 2, 1))
        A = xp.tril(gq @ kT)                                  # within-chunk j <= i
        Gc = kT @ gv                                          # each chunk's (F, dv)
        zc = xp.sum(gk, axis=1)
        # G before each chunk: the carried G plus the chunks before it in this group, in order
        Gb = xp.cumulative_sum(xp.concat([G, Gc], axis=0), axis=0)
        zb = xp.cumulative_sum(xp.concat([z, zc], axis=0), axis=0)
        num = gq @ Gb[:-1, ...] + A @ gv
        den = xp.squeeze(gq @ xp.expand_dims(zb[:-1, ...], axis=2), axis=2) + xp.sum(A, axis=2)
        parts.append(_divide(xp.reshape(num, (-1, dv)), xp.reshape(den, (-1,)), xp))
        G, z = Gb[-1:, ...], zb[-1:, ...]
    return xp.concat(parts, axis=0)[:L, ...]


def _check_features(P: Array, X: Array, which: str, xp: Namespace) -> None:
    """ValueError naming feature_map when it returned NaN or infinity for a finite input row
    (rows of X that are not finite, allowed by check_finite=False, are the caller's)."""
    ok_rows = xp.all(xp.isfinite(P), axis=1)
    bad = xp.logical_and(xp.logical_not(ok_rows), xp.all(xp.isfinite(X), axis=1))
    if bool(xp.any(bad)):
        rows = int(xp.sum(xp.astype(bad, xp.int64)))
        raise ValueError(f"feature_map returned NaN or infinity for {rows} of {X.shape[0]} rows of "
                         f"{which} (finite inputs): the output would hold NaN; a feature map must "
                         "return finite features")


@register("yat.linear_attention", "reference",
          note="array API generic (any library, on its device), float64 sums; the feature maps "
               "are the caller's (yatmath.features maps are generic)")
def linear_attention(Q: Array, K: Array, V: Array,
                     feature_map: (Callable[[Array], Array]
                                   | tuple[Callable[[Array], Array], Callable[[Array], Array]]),
                     causal: bool = False, *, chunk: int = 128,
                     check_finite: bool = True) -> Array:
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
    xp = _array.namespace(Q, K, V)
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
    device = _array.device_of(Q)
    # float64 copies (xp.astype copies by default): a fresh C-ordered V2 keeps NumPy's matmul
    # on the BLAS path it always took (a (L, 1) view of a vector has a zero stride)
    V2 = xp.astype(xp.expand_dims(V, axis=1) if vec else V, xp.float64)
    Pq = xp.astype(xp.asarray(phi_q(Q), device=device), xp.float64)
    Pk = xp.astype(xp.asarray(phi_k(K), device=device), xp.float64)
    if Pq.ndim != 2 or Pk.ndim != 2 or Pq.shape[1] != Pk.shape[1] or Pq.shape[0] != Q.shape[0] \
            or Pk.shape[0] != K.shape[0]:
        raise ValueError(f"feature_map must return (n, F) arrays with one F, got "
                         f"{tuple(Pq.shape)} for Q and {tuple(Pk.shape)} for K")
    _check_features(Pq, Q, "Q", xp)
    _check_features(Pk, K, "K", xp)
    if not causal:
        G = Pk.T @ V2
        z = xp.sum(Pk, axis=0)
        out = _divide(Pq @ G, Pq @ z, xp)
    else:
        out = _causal_scan(Pq, Pk, V2, chunk, xp, device)
    if check_finite and not bool(xp.all(xp.isfinite(out))):
        big = max(float(xp.max(xp.abs(Pq))), float(xp.max(xp.abs(Pk))))
        raise ValueError(f"feature_map's features overflow the float64 sums of linear attention "
                         f"(largest |feature| {big:.3g}): the output would hold NaN or infinity; "
                         "rescale the feature map")
    out = out[:, 0] if vec else out
    return _astype(xp, out, dtype)
