"""Low-rank ITNet (003 §3.3, Prop. 12; algorithms.md I8).

Kernel ``kappa(x, y, u(x), u(y)) ≈ Phi(x, u(x))^T Psi(y, u(y))`` with ``Phi, Psi in R^{r x d}``.
The *global-Z* evaluation is linear in n::

    Z = sum_j omega_j Psi_j u_j in R^r,        O_i = Phi_i^T Z + W u_i          (O(n r d))

(causal: prefix sums ``Z_i = sum_{j < i} omega_j Psi_j u_j + diag_weight omega_i Psi_i u_i``).
Heads: ``r_h = r / H`` rows of Phi/Psi act on the slice ``u^(h)`` (block structure).

The factors are either MLPs on ``[gamma(x); u]`` (:class:`FactorMLP`) or fixed tables per point
(e.g. from the SVD of a given kernel, :func:`svd_factors`).  The induced linear map has blocks
``M_ij = omega_j Phi_i^T Psi_j``.  Reported quantities (:func:`spectrum_report`): singular values,
``||K||_*``, ``||K - K_r||_F = sqrt(sum_{k>r} sigma_k^2)`` (Eckart-Young) and relative errors.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validate import as_float_array
from .measures import check_diag_weight
from .network import fourier_lift, gelu


@dataclass
class FactorMLP:
    """x, u -> F(x, u) in R^{r x d}: one GELU hidden layer on [gamma(x); u]."""

    W1: np.ndarray
    b1: np.ndarray
    W2: np.ndarray
    b2: np.ndarray
    B: np.ndarray
    r: int
    d: int

    def __call__(self, X, U) -> np.ndarray:
        z = np.concatenate([fourier_lift(X, self.B), U], axis=1)
        return (gelu(z @ self.W1.T + self.b1) @ self.W2.T + self.b2).reshape(-1, self.r, self.d)


def init_factor_mlp(d, s, r, *, width=64, L=16, sigma=1.0, rng=None) -> FactorMLP:
    rng = np.random.default_rng(rng)
    B = rng.normal(0, sigma, (L, s))
    D = 2 * L + d
    return FactorMLP(rng.normal(0, 1 / np.sqrt(D), (width, D)), np.zeros(width),
                     rng.normal(0, 1 / np.sqrt(width), (r * d, width)), rng.normal(0, 0.1, r * d), B, r, d)


@dataclass
class LowRankOperator:
    """O_i = sum_j omega_j m_ij Phi_i^T Psi_j u_j + W u_i evaluated with the global Z.

    ``phi`` and ``psi`` are callables ``(X, U) -> (n, r, d)`` (e.g. :class:`FactorMLP`) or fixed
    arrays of shape (n, r, d).  ``heads`` > 1 zeroes the off-block entries of Phi and Psi (r_h = r/H
    rows act on d_h = d/H features).
    """

    phi: object
    psi: object
    W: np.ndarray
    r: int
    d: int
    heads: int = 1
    causal: bool = False
    diag_weight: float = 1.0

    def __post_init__(self):
        self.W = as_float_array(self.W, "W", ndim=2)
        if self.W.shape != (self.d, self.d):
            raise ValueError(f"W must have shape ({self.d}, {self.d}), got {self.W.shape}")
        if self.r % self.heads or self.d % self.heads:
            raise ValueError(f"r={self.r} and d={self.d} must be divisible by heads={self.heads}")
        self.diag_weight = check_diag_weight(self.diag_weight)

    def _factor(self, f, X, U):
        F = np.asarray(f(X, U) if callable(f) else f, float)
        if F.shape != (X.shape[0], self.r, self.d):
            raise ValueError(f"factor must have shape ({X.shape[0]}, {self.r}, {self.d}), got {F.shape}")
        if self.heads > 1:
            rh, dh = self.r // self.heads, self.d // self.heads
            mask = np.kron(np.eye(self.heads), np.ones((rh, dh)))
            F = F * mask
        return F

    def factors(self, Xq, Xk, Uq, Uk):
        return self._factor(self.phi, Xq, Uq), self._factor(self.psi, Xk, Uk)

    def kernel_tensor(self, Xq, Xk, Uq, Uk) -> np.ndarray:
        """K_ij = Phi_i^T Psi_j, (nq, nk, d, d) (dense; for checks)."""
        Phi, Psi = self.factors(Xq, Xk, Uq, Uk)
        return np.einsum("ira,jrb->ijab", Phi, Psi)


def lowrank_forward(op: LowRankOperator, Xq, Xk, Uq, Uk, omega) -> np.ndarray:
    """Global-Z evaluation, O(n r d)."""
    Phi, Psi = op.factors(Xq, Xk, Uq, Uk)
    terms = omega[:, None] * np.einsum("jrb,jb->jr", Psi, Uk)      # omega_j Psi_j u_j, (nk, r)
    if op.causal:
        if Xq.shape[0] != Xk.shape[0]:
            raise ValueError("a causal operator needs queries and keys on one node set")
        Z = np.cumsum(terms, axis=0) - (1.0 - op.diag_weight) * terms
        I = np.einsum("ira,ir->ia", Phi, Z)
    else:
        I = np.einsum("ira,r->ia", Phi, terms.sum(0))
    return I + Uq @ op.W.T


def kernel_matrix(K) -> np.ndarray:
    """(nq, nk, d_out, d_in) kernel tensor -> the (nq d_out, nk d_in) block matrix [K_ij]."""
    K = np.asarray(K)
    nq, nk, a, b = K.shape
    return K.transpose(0, 2, 1, 3).reshape(nq * a, nk * b)


def svd_factors(K, r: int):
    """Best rank-r factors of [K_ij] (Eckart-Young): Phi (nq, r, d_out), Psi (nk, r, d_in) with
    sum_r Phi_i^T Psi_j = (K_r)_ij."""
    nq, nk, a, b = np.shape(K)
    if isinstance(r, bool) or not isinstance(r, (int, np.integer)) or not 1 <= r <= min(nq * a, nk * b):
        raise ValueError(f"r must be an integer in [1, {min(nq * a, nk * b)}], got {r!r}")
    U, S, Vt = np.linalg.svd(kernel_matrix(K), full_matrices=False)
    Phi = (U[:, :r] * S[:r]).reshape(nq, a, r).transpose(0, 2, 1)
    Psi = Vt[:r].reshape(r, nk, b).transpose(1, 0, 2)
    return Phi, Psi


def spectrum_report(K) -> dict:
    """Singular values of [K_ij], nuclear norm, and ||K - K_r||_F for every r (index r-1 -> rank r)."""
    A = kernel_matrix(K) if np.ndim(K) == 4 else np.asarray(K)
    s = np.linalg.svd(A, compute_uv=False)
    tail = np.sqrt(np.maximum(np.cumsum((s ** 2)[::-1])[::-1], 0.0))
    err = np.append(tail[1:], 0.0)
    return {"sigma": s, "nuclear": float(s.sum()), "fro": float(np.linalg.norm(s)),
            "err_fro": err, "rel_err_fro": err / max(np.linalg.norm(s), np.finfo(float).tiny),
            "prop12_bound": s.sum() / np.sqrt(np.arange(1, s.size + 1))}


def als_fit(K, r: int, *, iters: int = 50, rng=None):
    """Alternating least squares for min sum_ij ||K_ij - Phi_i^T Psi_j||_F^2.

    Each half-step is an exact least-squares solve on the block matrix; returns (Phi, Psi, history
    of the Frobenius error)."""
    A = kernel_matrix(K)
    nq, nk, a, b = np.shape(K)
    rng = np.random.default_rng(rng)
    P = rng.normal(size=(nq * a, r))
    hist = []
    for _ in range(iters):
        Q = np.linalg.lstsq(P, A, rcond=None)[0]            # (r, nk b)
        P = np.linalg.lstsq(Q.T, A.T, rcond=None)[0].T      # (nq a, r)
        hist.append(float(np.linalg.norm(A - P @ Q)))
    Phi = P.reshape(nq, a, r).transpose(0, 2, 1)
    Psi = Q.reshape(r, nk, b).transpose(1, 0, 2)
    return Phi, Psi, np.array(hist)
