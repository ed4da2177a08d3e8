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

Array libraries: :func:`proposal_pmf`, :func:`softmax`, :func:`mix`, :func:`mc_integral` and
:func:`mc_forward` are written against the array API standard and run in the caller's library on
its device, except the index draw: it stays on the host with NumPy's Generator (:func:`draw`;
the (nq, nk) pmf table is copied to the host for it, the indices copied back), so one seed gives
the same keys on every library -- up to a uniform draw falling within the last bits of a CDF
boundary where two libraries' pmfs differ by rounding (probability ~1e-16 per draw; the uniform and
measure pmfs are exact).  The exact variance, optimal pmf, proposal network, proposal losses and
anchors below are NumPy tools.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from .._typing import Array, Namespace, RNGLike
from .._validate import as_rng, check_choice, check_int, check_memory, check_real
from ..estimators.montecarlo import discrete_variance
from ..estimators.montecarlo import optimal_pmf as _est_optimal_pmf
from .. import _array
from .._array import as_float64, device_of
from .._array import parameter
from ._xp_ops import all_finite, caller, einsum, xp_of
from .dense import pair_kernel, pair_weights
from .network import fourier_lift, pair_distance
from .operator import ITNetOperator, MultiHeadOperator

PROPOSALS = ("uniform", "measure", "gaussian", "softmax", "optimal")


def _check_M(M: Any) -> int:
    """M (samples per query): an integer >= 1."""
    return check_int(M, "M", minimum=1)


def mix(q: Array, eps_mix: float) -> Array:
    """Safety mixture (1 - eps_mix) q + eps_mix / n (rows of q are pmfs over n keys)."""
    eps_mix = check_real(eps_mix, "eps_mix", ge=0.0, le=1.0)
    return (1.0 - eps_mix) * q + eps_mix / q.shape[-1]


def softmax(logits: Array, axis: int = -1) -> Array:
    """exp(z - max z) / sum exp(z - max z) along ``axis`` (no overflow), in the library of
    ``logits``."""
    xp = xp_of(logits)
    z = logits - xp.max(logits, axis=axis, keepdims=True)
    e = xp.exp(z)
    return e / xp.sum(e, axis=axis, keepdims=True)


def _as_library(a: Any, xp: Namespace, like: Array) -> Array:
    """``a`` (a NumPy array, list, or an array of ``xp``) as a float64 array of ``xp`` on the
    device of ``like``."""
    if isinstance(a, (np.ndarray, list, tuple)):
        return caller(like).asarray(np.asarray(a, float))
    return as_float64(a)


def proposal_pmf(kind: str, Xq: Array, Xk: Array, omega: Array, *, scale: float = 0.1,
                 logits: Array | None = None, g: Array | None = None,
                 eps_mix: float = 0.0) -> Array:
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
    xp = xp_of(Xq, Xk, omega)
    if kind == "uniform":
        q = xp.full((nq, nk), 1.0 / nk) if xp is np else xp.full(
            (nq, nk), 1.0 / nk, dtype=xp.float64, device=device_of(Xk))
    elif kind == "measure":
        q = xp.broadcast_to(omega / xp.sum(omega), (nq, nk))
        q = np.array(q) if xp is np else xp.asarray(q, copy=True)
    elif kind == "gaussian":
        scale = check_real(scale, "scale", gt=0.0)
        with np.errstate(over="ignore"):
            r = pair_distance(Xq[:, None, :] - Xk[None, :, :], xp)
            z = -0.5 * (r / scale) ** 2                    # r / scale first: no 0/0 for tiny scale
        dead = ~xp.isfinite(xp.max(z, axis=1))             # every key's weight underflows: the
        if bool(xp.any(dead)):                             # limit is the nearest key(s)
            nearest = xp.where(r == xp.min(r, axis=1, keepdims=True), 0.0, -math.inf)
            z = xp.where(dead[:, None], nearest, z)
        q = softmax(z)
    elif kind == "softmax":
        if logits is None or tuple(np.shape(logits)) != (nq, nk):
            raise ValueError(f"logits must have shape ({nq}, {nk}) for proposal='softmax'")
        q = softmax(_as_library(logits, xp, Xk))
    else:
        if g is None or tuple(np.shape(g))[:2] != (nq, nk):
            raise ValueError(f"g must have shape ({nq}, {nk}, d) for proposal='optimal'")
        g = _as_library(g, xp, Xk)
        a = xp.abs(omega)[None, :] * xp.sqrt(xp.sum(g * g, axis=-1))   # |omega_j| ||g_ij||
        tot = xp.sum(a, axis=1, keepdims=True)
        q = xp.where(tot > 0, a / xp.where(tot > 0, tot, 1.0), 1.0 / nk)
    return mix(q, eps_mix) if eps_mix else q


def draw(q: Array, M: int, rng: RNGLike) -> npt.NDArray[np.intp]:
    """iid draws from each row of q (nq, n) by inverse CDF: NumPy indices (nq, M).

    On the host with NumPy's Generator whatever the library of ``q`` (copied to the host), so a
    seed gives the same indices on every library."""
    M = _check_M(M)
    rng = as_rng(rng)
    q = _array.to_host(q)
    cdf = np.cumsum(q, axis=1)
    cdf /= cdf[:, -1:]
    u = rng.random((q.shape[0], M))
    idx = np.empty((q.shape[0], M), dtype=np.int64)
    for i in range(q.shape[0]):
        idx[i] = np.searchsorted(cdf[i], u[i], side="right")
    return np.minimum(idx, q.shape[1] - 1)


def mc_integral(op: ITNetOperator | MultiHeadOperator, Xq: Array, Xk: Array, Uq: Array,
                Uk: Array, omega: Array, *, M: int, q: Array | None = None, rng: RNGLike = None,
                replace: bool = True, chunk: int = 256) -> tuple[Array, Array, Array]:
    """Importance-weighted estimate of ``sum_j c_ij K_ij u_j`` (no residual).

    ``q``: (nq, nk) pmfs (default uniform).  Returns ``(I_hat (nq, d), idx (nq, M), weights
    (nq, M))`` where ``weights = c_{i j_m} / (M q_{i j_m})`` (Horvitz-Thompson ``c n / M`` without
    replacement).
    """
    M = _check_M(M)
    rng = as_rng(rng)
    xp = xp_of(Xq, Xk, Uq, Uk, omega)
    nq, nk = Xq.shape[0], Xk.shape[0]
    c = pair_weights(omega, nq, op.causal, op.diag_weight)
    q = proposal_pmf("uniform", Xq, Xk, omega) if q is None else _as_library(q, xp, Uk)
    if tuple(q.shape) != (nq, nk):
        raise ValueError(f"q (the proposal) must have shape ({nq}, {nk}), got {tuple(q.shape)}")
    if (not all_finite(q, xp) or bool(xp.any(q < 0))
            or not bool(xp.all(xp.abs(xp.sum(q, axis=1) - 1.0) <= 1e-10))):
        raise ValueError("q (the proposal) must have finite non-negative rows that sum to 1")
    if replace:
        idx_h = draw(q, M, rng)                            # host, NumPy Generator
    else:
        if not bool(xp.all(xp.abs(q - 1.0 / nk) <= 1e-8 + 1e-5 / nk)):   # numpy.allclose
            raise ValueError("replace=False is supported for the uniform proposal only "
                             "(Horvitz-Thompson)")
        if M > nk:
            raise ValueError(f"M={M} exceeds the number of keys {nk}: with replace=False, M must "
                             f"be <= {nk}")
        idx_h = np.stack([rng.choice(nk, M, replace=False) for _ in range(nq)])
    idx = caller(Uk).asarray(idx_h)
    flat = caller(Uk).asarray((idx_h + nk * np.arange(nq)[:, None]).ravel())  # row-major (i, j)

    def picked(table: Array) -> Array:                   # table[i, idx[i, m]], (nq, M)
        return xp.reshape(xp.take(xp.reshape(table, (-1,)), flat), (nq, M))

    if replace:
        qs = picked(q)
        if bool(xp.any(qs == 0)):
            raise ValueError("q (the proposal) gave a drawn key probability 0")
        wts = picked(c) / (M * qs)
    else:
        wts = picked(c) * (nk / M)
    parts, step = [], max(1, chunk // M + 1)
    for s0 in range(0, nq, step):
        s1 = min(nq, s0 + step)
        rows = caller(Uk).asarray(np.repeat(np.arange(s0, s1), M))
        cols = xp.reshape(idx[s0:s1, :], (-1,))
        Ukc = xp.take(Uk, cols, axis=0)
        K = pair_kernel(op, xp.take(Xq, rows, axis=0), xp.take(Xk, cols, axis=0),
                        xp.take(Uq, rows, axis=0), Ukc)
        g = einsum("pab,pb->pa", K, Ukc, xp=xp) * xp.reshape(wts[s0:s1, :], (-1,))[:, None]
        parts.append(xp.sum(xp.reshape(g, (s1 - s0, M, op.d)), axis=1))
    I = xp.concat(parts, axis=0) if parts else caller(Uk).zeros((0, op.d), xp.float64)
    return I, idx, wts


def mc_forward(op: ITNetOperator | MultiHeadOperator, Xq: Array, Xk: Array, Uq: Array,
               Uk: Array, omega: Array, *, M: int, q: Array | None = None, rng: RNGLike = None,
               replace: bool = True) -> Array:
    """The Monte Carlo operator output ``I^ + W u`` (single or multi-head)."""
    I, _, _ = mc_integral(op, Xq, Xk, Uq, Uk, omega, M=M, q=q, rng=rng, replace=replace)
    xp = xp_of(Uq)
    return I + xp.matmul(Uq, parameter(op, op.W, Uq).T)


# ---- exact quantities of I7 (for one query; g_j = K_ij u_j, weights c_j) ---------------------
def trace_variance(g: Array, c: Array, q: Array, M: int = 1) -> float:
    """V(q) = (1/M)(sum_j c_j^2 ||g_j||^2 / q_j - ||I||^2), I = sum_j c_j g_j (iid sampling).

    Delegates to :func:`yatmath.estimators.montecarlo.discrete_variance` (one definition)."""
    return discrete_variance(g, c, q, _check_M(M))


def optimal_pmf(g: Array, c: Array) -> Array:
    """q*_j ∝ |c_j| ||g_j|| (:func:`yatmath.estimators.montecarlo.optimal_pmf`), uniform when
    every term vanishes."""
    c = np.abs(np.asarray(c, float))
    if (c * np.linalg.norm(np.asarray(g, float).reshape(c.size, -1), axis=1)).sum() <= 0:
        return np.full(c.size, 1.0 / c.size)
    return _est_optimal_pmf(g, c)


def optimal_variance(g: Array, c: Array, M: int = 1) -> float:
    """V* = (1/M)((sum_j |c_j| ||g_j||)^2 - ||I||^2)."""
    g, c = np.asarray(g, float), np.asarray(c, float)
    I = (c[:, None] * g).sum(0)
    return float((np.abs(c) * np.linalg.norm(g, axis=1)).sum() ** 2 - I @ I) / _check_M(M)


# ---- proposal network and its training objectives (003 eq. 14; algorithms.md I7) -------------
class ProposalMLP:
    """q_phi(j | i) = softmax_j s_phi(x_i, y_j), s_phi an MLP (one GELU hidden layer) on
    [gamma(x_i); gamma(y_j); gamma(x_i - y_j); ||x_i - y_j||] (positions only)."""

    def __init__(self, s: int, *, width: int = 32, L: int = 8, sigma: float = 1.0,
                 rng: RNGLike = None) -> None:
        s, width = check_int(s, "s", minimum=1), check_int(width, "width", minimum=1)
        L = check_int(L, "L", minimum=0)
        sigma = check_real(sigma, "sigma", ge=0.0)
        rng = as_rng(rng)
        self.B = rng.normal(0, sigma, (L, s))
        D = 6 * L + 1
        self.W1 = rng.normal(0, 1 / np.sqrt(D), (width, D))
        self.b1 = np.zeros(width)
        self.w2 = rng.normal(0, 1 / np.sqrt(width), width)

    def features(self, Xq: npt.NDArray[np.floating[Any]],
                 Xk: npt.NDArray[np.floating[Any]]) -> npt.NDArray[np.float64]:
        nq, nk = Xq.shape[0], Xk.shape[0]
        gx = np.broadcast_to(fourier_lift(Xq, self.B)[:, None], (nq, nk, 2 * self.B.shape[0]))
        gy = np.broadcast_to(fourier_lift(Xk, self.B)[None], (nq, nk, 2 * self.B.shape[0]))
        diff = Xq[:, None] - Xk[None]
        gd = fourier_lift(diff.reshape(-1, diff.shape[-1]), self.B).reshape(nq, nk, -1)
        r = np.sqrt((diff ** 2).sum(-1))[..., None]
        return np.concatenate([gx, gy, gd, r], axis=-1)

    def logits(self, Xq: npt.NDArray[np.floating[Any]],
               Xk: npt.NDArray[np.floating[Any]]) -> npt.NDArray[np.float64]:
        from .network import gelu
        return gelu(self.features(Xq, Xk) @ self.W1.T + self.b1) @ self.w2

    def pmf(self, Xq: npt.NDArray[np.floating[Any]], Xk: npt.NDArray[np.floating[Any]],
            eps_mix: float = 0.01) -> npt.NDArray[np.float64]:
        return mix(softmax(self.logits(Xq, Xk)), eps_mix)


def proposal_loss(kind: str, q: npt.ArrayLike,
                  idx: npt.NDArray[np.integer[Any]] | Sequence[int] | None,
                  g_norm: npt.ArrayLike, c: npt.ArrayLike) -> float:
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


def kmeans_anchors(Xk: npt.NDArray[np.floating[Any]], omega: npt.NDArray[np.floating[Any]],
                   k: int, rng: RNGLike = None
                   ) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.float64]]:
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
