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

from .._validate import (as_float_array, as_rng, check_choice, check_int, check_memory,
                         check_psd)
from .montecarlo import _pow2_scale

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


def _errors(A, Ahat, c=1.0):
    """(||A - Ahat||_F, ||A - Ahat||_2) times c (A, Ahat in units of c)."""
    E = A - Ahat
    with np.errstate(over="ignore"):
        return float(c * np.linalg.norm(E)), float(c * np.linalg.norm(E, 2))


def _check(A, rank, name="A"):
    """A (m, n) as float64 divided by c (a power of two near max |A|), c, and rank in 1..min."""
    A = as_float_array(A, name, ndim=2).astype(np.float64)
    if A.size == 0:
        raise ValueError(f"{name} must have at least one row and one column, got shape {A.shape}")
    r = check_int(rank, "rank", minimum=1, maximum=min(A.shape))
    c = float(_pow2_scale(A))
    return A / c, c, r


def _svd(A, name="A", **kw):
    try:
        return np.linalg.svd(A, **kw)
    except np.linalg.LinAlgError:
        raise np.linalg.LinAlgError(f"the SVD of {name} (shape {A.shape}) did not converge; "
                                    f"{name} is finite, so it is numerically pathological"
                                    ) from None


def _scaled(x, c):
    with np.errstate(over="ignore"):
        return float(c * x)


def truncated_svd(A, rank) -> LowRank:
    """A_r = U_r S_r V_r^T, the best rank-r approximation (Eckart-Young-Mirsky).

    A : (m, n) finite real, rank : integer in 1..min(m, n).  The SVD is taken of A / c (c a
    power of two near max |A|, an exact scaling) and s, the errors and the bounds are scaled
    back by c, so they are finite wherever the true values are (A scaled by 1e300 gives errors
    1e300 times those of A, not inf).  Errors are equal to the bounds up to
    ~ sqrt(min(m, n)) u ||A||_2.
    """
    As, c, r = _check(A, rank)
    U, s, Vt = _svd(As, full_matrices=False)
    out = LowRank(U[:, :r], c * s[:r], Vt[:r],
                  *_errors(As, (U[:, :r] * s[:r]) @ Vt[:r], c))
    tail = s[r:]
    out.bounds = {"fro_optimal": _scaled(np.linalg.norm(tail), c),
                  "spec_optimal": _scaled(tail[0], c) if tail.size else 0.0}
    return out


def randomized_svd(A, rank, *, oversample=10, power_iters=2, rng=None) -> LowRank:
    """Halko-Martinsson-Tropp randomized SVD with the bounds of the module docstring.

    A : (m, n) finite real; rank r in 1..min(m, n); oversample p >= 2 and power_iters q >= 0
    integers; ``rng`` follows the seed rule (``as_rng``).  Everything is computed on A / c (c a
    power of two) and scaled back, so values are finite wherever the true ones are; the
    spectral bound is evaluated as sigma_{r+1} (...)^{1/(2q+1)} with the tail divided by
    sigma_{r+1}, so no power sigma^{2(2q+1)} over- or underflows.
    """
    As, c, r = _check(A, rank)
    p = check_int(oversample, "oversample", minimum=2)
    q = check_int(power_iters, "power_iters", minimum=0)
    ell = min(r + p, min(As.shape))
    g = as_rng(rng)
    Qm, _ = np.linalg.qr(As @ g.standard_normal((As.shape[1], ell)))
    for _ in range(q):
        Z, _ = np.linalg.qr(As.T @ Qm)
        Qm, _ = np.linalg.qr(As @ Z)
    B = Qm.T @ As
    Ub, s, Vt = _svd(B, "the sketch Q^T A", full_matrices=False)
    U = Qm @ Ub[:, :r]
    out = LowRank(U, c * s[:r], Vt[:r], *_errors(As, (U * s[:r]) @ Vt[:r], c))
    proj_fro, proj_spec = _errors(As, Qm @ B)
    sv = _svd(As, compute_uv=False)
    tail = sv[r:]
    sig1 = float(tail[0]) if tail.size else 0.0
    e = 2 * q + 1
    if sig1 > 0:
        rel = tail / sig1
        spread = np.e * np.sqrt(r + p) / p * np.sqrt((rel ** (2 * e)).sum())
        spec_bound = sig1 * ((1 + np.sqrt(r / (p - 1))) + spread) ** (1 / e)
    else:
        spec_bound = 0.0
    out.bounds = {"fro_optimal": _scaled(np.linalg.norm(tail), c),
                  "spec_optimal": _scaled(sig1, c),
                  "proj_spec_expected": _scaled(spec_bound, c),
                  "rank_r_spec": _scaled(sig1 + proj_spec, c)}
    if q == 0:
        out.bounds["proj_fro_expected"] = _scaled(np.sqrt(1 + r / (p - 1)) *
                                                  np.linalg.norm(tail), c)
    out.info = {"proj_error_fro": _scaled(proj_fro, c), "proj_error_spec": _scaled(proj_spec, c),
                "oversample": p, "power_iters": q, "sketch_width": ell}
    return out


def nystrom(K, num_landmarks, *, sampling="uniform", rank=None, rng=None) -> LowRank:
    """Nystrom approximation K_hat = C W^+ C^T of a PSD matrix K from m landmarks.

    K : (n, n) symmetric positive semidefinite (checked up to rounding, ``check_psd``: an
    indefinite matrix is refused); num_landmarks m in 1..n; sampling "uniform" or "leverage";
    rank k in 1..n, the rank of the leverage scores (default m; only with "leverage");
    ``rng`` follows the seed rule.  Computed on K / c (c a power of two) and scaled back.
    """
    K = as_float_array(K, "K", ndim=2).astype(np.float64)
    n = K.shape[0]
    if K.shape != (n, n) or n == 0:
        raise ValueError(f"K must be a non-empty square (PSD) matrix, got shape {K.shape}")
    m = check_int(num_landmarks, "num_landmarks", minimum=1, maximum=n)
    check_choice(sampling, "sampling", ("uniform", "leverage"))
    if rank is not None:
        if sampling != "leverage":
            raise ValueError(f"rank is used only by sampling='leverage' (the rank of the leverage "
                             f"scores), got rank={rank!r} with sampling={sampling!r}")
        rank = check_int(rank, "rank", minimum=1, maximum=n)
    check_memory(8 * 6 * n * n, f"the eigendecomposition of the ({n}, {n}) matrix K")
    c = float(_pow2_scale(K))
    Ks = check_psd(K / c, "K")
    g = as_rng(rng)
    lam, U = np.linalg.eigh(Ks)
    lam, U = lam[::-1], U[:, ::-1]
    if sampling == "uniform":
        S = g.choice(n, size=m, replace=False)
    else:
        k = m if rank is None else rank
        lev = (U[:, :k] ** 2).sum(1)
        if np.count_nonzero(lev) < m:
            raise ValueError(f"the rank-{k} leverage scores are non-zero on only "
                             f"{np.count_nonzero(lev)} rows, fewer than num_landmarks={m}: "
                             "raise rank or lower num_landmarks")
        S = g.choice(n, size=m, replace=False, p=lev / lev.sum())
    C = Ks[:, S]
    W = Ks[np.ix_(S, S)]
    Wp = np.linalg.pinv(W, rcond=1e-12, hermitian=True)
    Khat = C @ Wp @ C.T
    Khat = (Khat + Khat.T) / 2
    lh, Uh = np.linalg.eigh(Khat)
    out = LowRank(Uh[:, ::-1][:, :m], c * lh[::-1][:m], Uh[:, ::-1][:, :m].T,
                  *_errors(Ks, Khat, c))
    tail = np.clip(lam[m:], 0, None)
    out.bounds = {"trace_floor": _scaled(tail.sum(), c),
                  "spec_floor": _scaled(tail[0], c) if tail.size else 0.0,
                  "fro_floor": _scaled(np.linalg.norm(tail), c)}
    out.info = {"landmarks": np.sort(S), "error_trace": _scaled(np.trace(Ks - Khat), c),
                "min_eig_residual": _scaled(np.linalg.eigvalsh(Ks - Khat).min(), c),
                "sampling": sampling}
    return out
