"""Importance-weighted Monte Carlo evaluation of the ITNet integral (003 §3.2, eq. 13, App H.11;
algorithms.md I7).

**Discrete measure.** Keys j carry weights omega_j (times the causal mask: ``c_ij``).  For a pmf q
over the keys (sum q = 1; may depend on the query) and iid draws ``j_1..j_M ~ q``::

    I^_i = (1/M) sum_m c_{i j_m} K_{i j_m} u_{j_m} / q_{j_m},     E[I^_i] = sum_j c_ij K_ij u_j

(the density form ``p_j = q_j / omega_j`` w.r.t. mu gives the same estimator).  Trace variance
``V(q) = (1/M) (sum_j c_j^2 ||g_j||^2 / q_j - ||I||^2)`` with ``g_j = K_ij u_j``; the optimal pmf
is ``q*_j ∝ c_j ||g_j||`` with ``V* = (1/M) ((sum_j c_j ||g_j||)^2 - ||I||^2)``.

Proposals (:func:`proposal_pmf`): ``"uniform"``, ``"measure"`` (q ∝ omega), ``"gaussian"`` (an
isotropic Gaussian in position space around the query, normalised over the keys), ``"softmax"``
(given logits, e.g. from a proposal MLP), ``"optimal"`` (q*, needs the dense g: for checks), each
optionally mixed with the uniform pmf: ``q = (1 - eps_mix) q + eps_mix / n``.

Sampling without replacement (``replace=False``) is supported for the uniform pmf with the
Horvitz-Thompson weights ``1 / pi_j = n / M`` (unbiased; variance reduced by ``(n - M)/(n - 1)``).
"""
from __future__ import annotations

import numpy as np

from .._validate import as_rng, check_choice, check_int, check_memory, check_real
from ..estimators.montecarlo import discrete_variance
from ..estimators.montecarlo import optimal_pmf as _est_optimal_pmf
from .dense import pair_kernel, pair_weights
from .network import fourier_lift, pair_distance

PROPOSALS = ("uniform", "measure", "gaussian", "softmax", "optimal")


def _check_M(M):
    """M (samples per query): an integer >= 1."""
    return check_int(M, "M", minimum=1)


def mix(q, eps_mix: float):
    """Safety mixture (1 - eps_mix) q + eps_mix / n (rows of q are pmfs over n keys)."""
    eps_mix = check_real(eps_mix, "eps_mix", ge=0.0, le=1.0)
    return (1.0 - eps_mix) * q + eps_mix / q.shape[-1]


def softmax(logits, axis=-1):
    z = logits - logits.max(axis=axis, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)


def proposal_pmf(kind: str, Xq, Xk, omega, *, scale: float = 0.1, logits=None, g=None,
                 eps_mix: float = 0.0) -> np.ndarray:
    """Per-query pmfs over the keys, shape (nq, nk).

    For ``"optimal"`` pass ``g`` (nq, nk, d) with ``g[i, j] = K_ij u_j``; the pmf is
    ∝ |omega_j| ||g_ij|| (for a causal mask use :func:`optimal_pmf` per query with c_ij).
    """
    check_choice(kind, "kind", PROPOSALS)
    nq, nk = Xq.shape[0], Xk.shape[0]
    if nk < 1:
        raise ValueError(f"Xk must hold at least one key, got shape {np.shape(Xk)}")
    check_memory(8 * nq * nk * (3 if kind == "gaussian" else 2),
                 f"the ({nq}, {nk}) table of proposal pmfs (one per query)",
                 alternative="fewer queries per call (pass Xq, Uq in chunks)")
    if kind == "uniform":
        q = np.full((nq, nk), 1.0 / nk)
    elif kind == "measure":
        q = np.broadcast_to(omega / omega.sum(), (nq, nk)).copy()
    elif kind == "gaussian":
        scale = check_real(scale, "scale", gt=0.0)
        with np.errstate(over="ignore"):
            r = pair_distance(Xq[:, None, :] - Xk[None, :, :])
            z = -0.5 * (r / scale) ** 2                    # r / scale first: no 0/0 for tiny scale
        dead = ~np.isfinite(z.max(axis=1))                 # every key's weight underflows: the
        if dead.any():                                     # limit is the nearest key(s)
            z[dead] = np.where(r[dead] == r[dead].min(axis=1, keepdims=True), 0.0, -np.inf)
        q = softmax(z)
    elif kind == "softmax":
        if logits is None or np.shape(logits) != (nq, nk):
            raise ValueError(f"logits must have shape ({nq}, {nk}) for proposal='softmax'")
        q = softmax(np.asarray(logits, float))
    else:
        if g is None or np.shape(g)[:2] != (nq, nk):
            raise ValueError(f"g must have shape ({nq}, {nk}, d) for proposal='optimal'")
        a = np.abs(omega)[None, :] * np.linalg.norm(g, axis=-1)
        tot = a.sum(axis=1, keepdims=True)
        q = np.where(tot > 0, a / np.where(tot > 0, tot, 1.0), 1.0 / nk)
    return mix(q, eps_mix) if eps_mix else q


def draw(q, M: int, rng) -> np.ndarray:
    """iid draws from each row of q (nq, n) by inverse CDF: indices (nq, M)."""
    M = _check_M(M)
    rng = as_rng(rng)
    cdf = np.cumsum(q, axis=1)
    cdf /= cdf[:, -1:]
    u = rng.random((q.shape[0], M))
    idx = np.empty((q.shape[0], M), dtype=np.int64)
    for i in range(q.shape[0]):
        idx[i] = np.searchsorted(cdf[i], u[i], side="right")
    return np.minimum(idx, q.shape[1] - 1)


def mc_integral(op, Xq, Xk, Uq, Uk, omega, *, M: int, q=None, rng=None, replace: bool = True,
                chunk: int = 256):
    """Importance-weighted estimate of ``sum_j c_ij K_ij u_j`` (no residual).

    ``q``: (nq, nk) pmfs (default uniform).  Returns ``(I_hat (nq, d), idx (nq, M), weights
    (nq, M))`` where ``weights = c_{i j_m} / (M q_{i j_m})`` (Horvitz-Thompson ``c n / M`` without
    replacement).
    """
    M = _check_M(M)
    rng = as_rng(rng)
    nq, nk = Xq.shape[0], Xk.shape[0]
    c = pair_weights(omega, nq, op.causal, op.diag_weight)
    if q is None:
        q = np.full((nq, nk), 1.0 / nk)
    q = np.asarray(q, float)
    if q.shape != (nq, nk):
        raise ValueError(f"q (the proposal) must have shape ({nq}, {nk}), got {q.shape}")
    if not np.isfinite(q).all() or np.any(q < 0) or not np.allclose(q.sum(1), 1.0, rtol=1e-10, atol=0):
        raise ValueError("q (the proposal) must have finite non-negative rows that sum to 1")
    if replace:
        idx = draw(q, M, rng)
        qs = np.take_along_axis(q, idx, axis=1)
        if np.any((qs == 0)):
            raise ValueError("q (the proposal) gave a drawn key probability 0")
        wts = np.take_along_axis(c, idx, axis=1) / (M * qs)
    else:
        if not np.allclose(q, 1.0 / nk):
            raise ValueError("replace=False is supported for the uniform proposal only "
                             "(Horvitz-Thompson)")
        if M > nk:
            raise ValueError(f"M={M} exceeds the number of keys {nk}: with replace=False, M must "
                             f"be <= {nk}")
        idx = np.stack([rng.choice(nk, M, replace=False) for _ in range(nq)])
        wts = np.take_along_axis(c, idx, axis=1) * (nk / M)
    I = np.zeros((nq, op.d))
    for s0 in range(0, nq, max(1, chunk // M + 1)):
        s1 = min(nq, s0 + max(1, chunk // M + 1))
        rows = np.repeat(np.arange(s0, s1), M)
        cols = idx[s0:s1].ravel()
        K = pair_kernel(op, Xq[rows], Xk[cols], Uq[rows], Uk[cols])
        g = np.einsum("pab,pb->pa", K, Uk[cols]) * wts[s0:s1].ravel()[:, None]
        I[s0:s1] = g.reshape(s1 - s0, M, op.d).sum(axis=1)
    return I, idx, wts


def mc_forward(op, Xq, Xk, Uq, Uk, omega, *, M: int, q=None, rng=None, replace=True):
    """The Monte Carlo operator output ``I^ + W u`` (single or multi-head)."""
    I, _, _ = mc_integral(op, Xq, Xk, Uq, Uk, omega, M=M, q=q, rng=rng, replace=replace)
    return I + Uq @ op.W.T


# ---- exact quantities of I7 (for one query; g_j = K_ij u_j, weights c_j) ---------------------
def trace_variance(g, c, q, M: int = 1) -> float:
    """V(q) = (1/M)(sum_j c_j^2 ||g_j||^2 / q_j - ||I||^2), I = sum_j c_j g_j (iid sampling).

    Delegates to :func:`yatmath.estimators.montecarlo.discrete_variance` (one definition)."""
    return discrete_variance(g, c, q, _check_M(M))


def optimal_pmf(g, c) -> np.ndarray:
    """q*_j ∝ |c_j| ||g_j|| (:func:`yatmath.estimators.montecarlo.optimal_pmf`), uniform when
    every term vanishes."""
    c = np.abs(np.asarray(c, float))
    if (c * np.linalg.norm(np.asarray(g, float).reshape(c.size, -1), axis=1)).sum() <= 0:
        return np.full(c.size, 1.0 / c.size)
    return _est_optimal_pmf(g, c)


def optimal_variance(g, c, M: int = 1) -> float:
    """V* = (1/M)((sum_j |c_j| ||g_j||)^2 - ||I||^2)."""
    g, c = np.asarray(g, float), np.asarray(c, float)
    I = (c[:, None] * g).sum(0)
    return float((np.abs(c) * np.linalg.norm(g, axis=1)).sum() ** 2 - I @ I) / _check_M(M)


# ---- proposal network and its training objectives (003 eq. 14; algorithms.md I7) -------------
class ProposalMLP:
    """q_phi(j | i) = softmax_j s_phi(x_i, y_j), s_phi an MLP (one GELU hidden layer) on
    [gamma(x_i); gamma(y_j); gamma(x_i - y_j); ||x_i - y_j||] (positions only)."""

    def __init__(self, s: int, *, width: int = 32, L: int = 8, sigma: float = 1.0, rng=None):
        s, width = check_int(s, "s", minimum=1), check_int(width, "width", minimum=1)
        L = check_int(L, "L", minimum=0)
        sigma = check_real(sigma, "sigma", ge=0.0)
        rng = as_rng(rng)
        self.B = rng.normal(0, sigma, (L, s))
        D = 6 * L + 1
        self.W1 = rng.normal(0, 1 / np.sqrt(D), (width, D))
        self.b1 = np.zeros(width)
        self.w2 = rng.normal(0, 1 / np.sqrt(width), width)

    def features(self, Xq, Xk):
        nq, nk = Xq.shape[0], Xk.shape[0]
        gx = np.broadcast_to(fourier_lift(Xq, self.B)[:, None], (nq, nk, 2 * self.B.shape[0]))
        gy = np.broadcast_to(fourier_lift(Xk, self.B)[None], (nq, nk, 2 * self.B.shape[0]))
        diff = Xq[:, None] - Xk[None]
        gd = fourier_lift(diff.reshape(-1, diff.shape[-1]), self.B).reshape(nq, nk, -1)
        r = np.sqrt((diff ** 2).sum(-1))[..., None]
        return np.concatenate([gx, gy, gd, r], axis=-1)

    def logits(self, Xq, Xk):
        from .network import gelu
        return gelu(self.features(Xq, Xk) @ self.W1.T + self.b1) @ self.w2

    def pmf(self, Xq, Xk, eps_mix: float = 0.01):
        return mix(softmax(self.logits(Xq, Xk)), eps_mix)


def proposal_loss(kind: str, q, idx, g_norm, c) -> float:
    """Proposal objective for one query (stop-gradient on the weights), algorithms.md I7.

    ``"A"`` (printed eq. 14): w_m = ||g(j_m)||, L = -sum_m (w_m / sum w) log q(j_m);
    ``"B"`` (importance-corrected, self-normalised): w_m = c_{j_m} ||g(j_m)|| / q(j_m);
    ``"C"`` (exact, small n): KL(q* || q) over all keys (``idx`` unused).
    """
    check_choice(kind, "kind", ("A", "B", "C"))
    q, g_norm, c = np.asarray(q, float), np.asarray(g_norm, float), np.asarray(c, float)
    if kind == "C":
        qs = np.abs(c) * g_norm
        qs = qs / qs.sum()
        nz = qs > 0
        return float((qs[nz] * (np.log(qs[nz]) - np.log(q[nz]))).sum())
    w = g_norm[idx] if kind == "A" else np.abs(c[idx]) * g_norm[idx] / q[idx]
    p = w / w.sum()
    return float(-(p * np.log(q[idx])).sum())


def kmeans_anchors(Xk, omega, k: int, rng=None):
    """Deterministic evaluation anchors: k-means on the key positions; per cluster the key nearest
    the centroid with weight W_c = sum of the cluster's omega.  Returns (anchor indices, W)."""
    from scipy.cluster.vq import kmeans2

    k = check_int(k, "k", minimum=1, maximum=Xk.shape[0])
    cent, lab = kmeans2(Xk, k, seed=as_rng(rng), minit="++")
    reps, W = [], []
    for cl in range(k):
        members = np.flatnonzero(lab == cl)
        if members.size == 0:
            continue
        dd = ((Xk[members] - cent[cl]) ** 2).sum(1)
        reps.append(members[np.argmin(dd)])
        W.append(omega[members].sum())
    return np.array(reps), np.array(W)
