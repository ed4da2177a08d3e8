"""Low-rank approximation with its error and the bound it should satisfy (I8).

* ``truncated_svd(A, r)``: A_r = U_r S_r V_r^T.  Eckart-Young-Mirsky: it is optimal, with
  ||A - A_r||_2 = sigma_{r+1} and ||A - A_r||_F = sqrt(sum_{k>r} sigma_k^2) (equalities, up to
  rounding ~ sqrt(min(m,n)) u ||A||).
* ``randomized_svd(A, r, oversample=p, power_iters=q)`` (Halko, Martinsson & Tropp 2011): range
  finder Y = (A A^T)^q A Omega with Gaussian Omega (n x (r+p)), re-orthonormalised (QR) after
  every product; B = Q^T A; SVD of B truncated to r.  Bounds reported (HMT Thm 10.5 and
  Cor. 10.10, p >= 2):
      E ||A - Q Q^T A||_F <= sqrt(1 + r/(p-1)) * sqrt(sum_{k>r} sigma_k^2)          (q = 0)
      E ||A - Q Q^T A||_2 <= [ (1 + sqrt(r/(p-1))) sigma_{r+1}^{2q+1}
                              + e sqrt(r+p)/p * sqrt(sum_{k>r} sigma_k^{2(2q+1)}) ]^{1/(2q+1)}
  and, for the rank-r truncation, ||A - A_hat_r||_2 <= sigma_{r+1} + ||A - Q Q^T A||_2
  (HMT §9.3).  The bounds are on expectations; single runs are compared with them in the tests
  (Markov: P(error > t E) <= 1/t).
* ``nystrom(K, m, sampling="uniform"|"leverage")`` for a PSD matrix: landmarks S, C = K[:, S],
  W = K[S, S], K_hat = C W^+ C^T.  Always 0 <= K - K_hat (PSD; the Schur complement), so
  trace(K - K_hat) >= sum_{k>m} lambda_k (the best rank-m trace error: reported as the floor).
  Leverage sampling uses the rank-k leverage scores l_i = ||U_k[i]||^2 (k = ``rank`` or m) with
  probabilities l_i / k, landmarks drawn without replacement (Gittens & Mahoney 2016).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._validate import as_float_array, check_choice
from ..features._common import as_generator, check_pos_int

__all__ = ["LowRank", "truncated_svd", "randomized_svd", "nystrom"]


@dataclass
class LowRank:
    U: np.ndarray
    s: np.ndarray
    Vt: np.ndarray
    error_fro: float
    error_spec: float
    bounds: dict = field(default_factory=dict)
    info: dict = field(default_factory=dict)

    def matrix(self):
        return (self.U * self.s) @ self.Vt


def _errors(A, Ahat):
    E = A - Ahat
    return float(np.linalg.norm(E)), float(np.linalg.norm(E, 2))


def _check(A, rank):
    A = as_float_array(A, "A", ndim=2).astype(np.float64)
    r = check_pos_int(rank, "rank")
    if r > min(A.shape):
        raise ValueError(f"rank must be <= min(A.shape) = {min(A.shape)}, got {rank}")
    return A, r


def truncated_svd(A, rank) -> LowRank:
    A, r = _check(A, rank)
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    out = LowRank(U[:, :r], s[:r], Vt[:r], *_errors(A, (U[:, :r] * s[:r]) @ Vt[:r]))
    tail = s[r:]
    out.bounds = {"fro_optimal": float(np.sqrt((tail ** 2).sum())),
                  "spec_optimal": float(tail[0]) if tail.size else 0.0}
    return out


def randomized_svd(A, rank, *, oversample=10, power_iters=2, rng=None) -> LowRank:
    A, r = _check(A, rank)
    p = check_pos_int(oversample, "oversample", minimum=2)
    q = check_pos_int(power_iters, "power_iters", minimum=0)
    ell = min(r + p, min(A.shape))
    g = as_generator(rng)
    Qm, _ = np.linalg.qr(A @ g.standard_normal((A.shape[1], ell)))
    for _ in range(q):
        Z, _ = np.linalg.qr(A.T @ Qm)
        Qm, _ = np.linalg.qr(A @ Z)
    B = Qm.T @ A
    Ub, s, Vt = np.linalg.svd(B, full_matrices=False)
    U = Qm @ Ub[:, :r]
    out = LowRank(U, s[:r], Vt[:r], *_errors(A, (U * s[:r]) @ Vt[:r]))
    proj_fro, proj_spec = _errors(A, Qm @ B)
    sv = np.linalg.svd(A, compute_uv=False)
    tail = sv[r:]
    sig1 = float(tail[0]) if tail.size else 0.0
    e = 2 * q + 1
    spec_bound = ((1 + np.sqrt(r / (p - 1))) * sig1 ** e
                  + np.e * np.sqrt(r + p) / p * np.sqrt((tail ** (2 * e)).sum())) ** (1 / e)
    out.bounds = {"fro_optimal": float(np.sqrt((tail ** 2).sum())), "spec_optimal": sig1,
                  "proj_spec_expected": float(spec_bound),
                  "rank_r_spec": float(sig1 + proj_spec)}
    if q == 0:
        out.bounds["proj_fro_expected"] = float(np.sqrt(1 + r / (p - 1)) *
                                                np.sqrt((tail ** 2).sum()))
    out.info = {"proj_error_fro": proj_fro, "proj_error_spec": proj_spec, "oversample": p,
                "power_iters": q, "sketch_width": ell}
    return out


def nystrom(K, num_landmarks, *, sampling="uniform", rank=None, rng=None) -> LowRank:
    K = as_float_array(K, "K", ndim=2).astype(np.float64)
    n = K.shape[0]
    if K.shape != (n, n) or not np.allclose(K, K.T, rtol=1e-12, atol=1e-12 * np.abs(K).max()):
        raise ValueError(f"K must be a symmetric (PSD) square matrix, got shape {K.shape}")
    m = check_pos_int(num_landmarks, "num_landmarks")
    if m > n:
        raise ValueError(f"num_landmarks must be <= {n}, got {m}")
    check_choice(sampling, "sampling", ("uniform", "leverage"))
    g = as_generator(rng)
    lam, U = np.linalg.eigh(K)
    lam, U = lam[::-1], U[:, ::-1]
    if sampling == "uniform":
        S = g.choice(n, size=m, replace=False)
    else:
        k = m if rank is None else check_pos_int(rank, "rank")
        lev = (U[:, :k] ** 2).sum(1)
        S = g.choice(n, size=m, replace=False, p=lev / lev.sum())
    C = K[:, S]
    W = K[np.ix_(S, S)]
    Wp = np.linalg.pinv(W, rcond=1e-12, hermitian=True)
    Khat = C @ Wp @ C.T
    Khat = (Khat + Khat.T) / 2
    lh, Uh = np.linalg.eigh(Khat)
    out = LowRank(Uh[:, ::-1][:, :m], lh[::-1][:m], Uh[:, ::-1][:, :m].T, *_errors(K, Khat))
    tail = np.clip(lam[m:], 0, None)
    out.bounds = {"trace_floor": float(tail.sum()), "spec_floor": float(tail[0]) if tail.size
                  else 0.0, "fro_floor": float(np.sqrt((tail ** 2).sum()))}
    out.info = {"landmarks": np.sort(S), "error_trace": float(np.trace(K - Khat)),
                "min_eig_residual": float(np.linalg.eigvalsh(K - Khat).min()),
                "sampling": sampling}
    return out
