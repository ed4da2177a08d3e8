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

Array libraries: A and K may be arrays of any array API library with the linalg extension
(NumPy, CuPy, PyTorch, JAX, ``array_api_strict``); the factors come back in that library on the
caller's device, computed in float64 with ``xp.linalg`` (svd, svdvals, qr, eigh, eigvalsh).
The random test matrix (randomized SVD) and the landmarks (Nystrom) are drawn on the host with
NumPy's Generator (the seed rule, ``as_rng``) and moved to the caller's library, so a seed gives
the same numbers on every library.  The NumPy float64 result is the oracle.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._array import caller, namespace, to_host
from .._registry import choose, register
from .._typing import Array, RNGLike
from .._validate import (as_float_array, as_rng, check_choice, check_int, check_memory,
                         check_psd)
from ._scale import pow2_scale

__all__ = ["LowRank", "truncated_svd", "randomized_svd", "nystrom"]


@dataclass
class LowRank:
    U: Array
    s: Array
    Vt: Array
    error_fro: float
    error_spec: float
    bounds: dict[str, Any] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)

    def matrix(self) -> Array:
        """U diag(s) Vt, in the factors' array library (one rounding per product term)."""
        return choose("estimators.LowRank.matrix", "auto",
                      caller(self.U, self.s, self.Vt).library)(self)


@register("estimators.LowRank.matrix", "reference", note="generic")
def _lowrank_matrix(lr):
    return (lr.U * lr.s) @ lr.Vt


def _norm(E, xp):
    """The Frobenius (2-norm for vectors) norm sqrt(e . e) of E flattened, a Python float (the
    evaluation of ``numpy.linalg.norm(E)``: one dot product, so NumPy results are unchanged)."""
    e = xp.reshape(E, (-1,))
    return math.sqrt(float(e @ e))


def _errors(A, Ahat, c=1.0):
    """(||A - Ahat||_F, ||A - Ahat||_2) times c (A, Ahat in units of c)."""
    xp = namespace(A, Ahat)
    E = A - Ahat
    with np.errstate(over="ignore"):
        spec = float(xp.max(xp.linalg.svdvals(E))) if math.prod(E.shape) else 0.0
        return float(np.float64(c) * _norm(E, xp)), float(np.float64(c) * spec)


def _check(A, rank, name="A"):
    """A (m, n) as float64 divided by c (a power of two near max |A|), c, and rank in 1..min."""
    A = as_float_array(A, name, ndim=2)
    xp = namespace(A)
    A = xp.astype(A, xp.float64)
    if math.prod(A.shape) == 0:
        raise ValueError(f"{name} must have at least one row and one column, got shape "
                         f"{tuple(A.shape)}")
    r = check_int(rank, "rank", minimum=1, maximum=min(A.shape))
    c = float(pow2_scale(A))
    return A / c, c, r


def _svd(A, name="A", compute_uv=True):
    xp = namespace(A)
    try:
        return xp.linalg.svd(A, full_matrices=False) if compute_uv else xp.linalg.svdvals(A)
    except np.linalg.LinAlgError:
        raise np.linalg.LinAlgError(f"the SVD of {name} (shape {tuple(A.shape)}) did not "
                                    f"converge; {name} is finite, so it is numerically "
                                    "pathological") from None


def _scaled(x, c):
    with np.errstate(over="ignore"):
        return float(np.float64(c) * np.float64(x))


def truncated_svd(A: Array, rank: int) -> LowRank:
    """A_r = U_r S_r V_r^T, the best rank-r approximation (Eckart-Young-Mirsky).

    A : (m, n) finite real, rank : integer in 1..min(m, n).  The SVD is taken of A / c (c a
    power of two near max |A|, an exact scaling) and s, the errors and the bounds are scaled
    back by c, so they are finite wherever the true values are (A scaled by 1e300 gives errors
    1e300 times those of A, not inf).  Errors are equal to the bounds up to
    ~ sqrt(min(m, n)) u ||A||_2.  U, s, Vt are in A's library, on A's device.
    """
    As, c, r = _check(A, rank)
    return choose("estimators.truncated_svd", "auto", caller(As).library)(As, c, r)


@register("estimators.truncated_svd", "reference", dtypes=("float64",),
          note="generic (xp.linalg.svd)")
def _truncated_svd(As, c, r):
    xp = namespace(As)
    U, s, Vt = _svd(As)
    out = LowRank(U[:, :r], c * s[:r], Vt[:r, :],
                  *_errors(As, (U[:, :r] * s[:r]) @ Vt[:r, :], c))
    tail = s[r:]
    out.bounds = {"fro_optimal": _scaled(_norm(tail, xp), c),
                  "spec_optimal": _scaled(float(tail[0]), c) if tail.shape[0] else 0.0}
    return out


def randomized_svd(A: Array, rank: int, *, oversample: int = 10, power_iters: int = 2,
                   rng: RNGLike = None) -> LowRank:
    """Halko-Martinsson-Tropp randomized SVD with the bounds of the module docstring.

    A : (m, n) finite real; rank r in 1..min(m, n); oversample p >= 2 and power_iters q >= 0
    integers; ``rng`` follows the seed rule (``as_rng``; the Gaussian test matrix is drawn on the
    host and moved to A's library).  Everything is computed on A / c (c a power of two) and
    scaled back, so values are finite wherever the true ones are; the spectral bound is
    evaluated as sigma_{r+1} (...)^{1/(2q+1)} with the tail divided by sigma_{r+1}, so no power
    sigma^{2(2q+1)} over- or underflows.
    """
    As, c, r = _check(A, rank)
    p = check_int(oversample, "oversample", minimum=2)
    q = check_int(power_iters, "power_iters", minimum=0)
    g = as_rng(rng)
    return choose("estimators.randomized_svd", "auto", caller(As).library)(As, c, r, p, q, g)


@register("estimators.randomized_svd", "reference", dtypes=("float64",),
          note="generic (xp.linalg.qr/svd); the test matrix is drawn on the host")
def _randomized_svd(As, c, r, p, q, g):
    xp = namespace(As)
    ell = min(r + p, min(As.shape))
    Om = g.standard_normal((As.shape[1], ell))
    Om = caller(As).asarray(Om)
    Qm, _ = xp.linalg.qr(As @ Om)
    for _ in range(q):
        Z, _ = xp.linalg.qr(As.T @ Qm)
        Qm, _ = xp.linalg.qr(As @ Z)
    B = Qm.T @ As
    Ub, s, Vt = _svd(B, "the sketch Q^T A")
    U = Qm @ Ub[:, :r]
    out = LowRank(U, c * s[:r], Vt[:r, :], *_errors(As, (U * s[:r]) @ Vt[:r, :], c))
    proj_fro, proj_spec = _errors(As, Qm @ B)
    sv = _svd(As, compute_uv=False)
    tail = to_host(sv[r:])
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


def _pinv_symmetric(W, rcond):
    """Pseudo-inverse of the symmetric W by its eigendecomposition, the algorithm of
    ``numpy.linalg.pinv(W, rcond, hermitian=True)`` in the array API standard: W = V diag(w) V^T,
    singular values |w| sorted decreasingly, those <= rcond max|w| dropped,
    W^+ = (V sign(w)) diag(1/|w|) V^T."""
    xp = namespace(W)
    w, V = xp.linalg.eigh(W)
    sgn, s = xp.sign(w), xp.abs(w)
    order = xp.flip(xp.argsort(s, stable=True))
    sgn, s, V = xp.take(sgn, order), xp.take(s, order), xp.take(V, order, axis=1)
    large = s > rcond * xp.max(s)
    sinv = xp.where(large, 1.0 / xp.where(large, s, 1.0), 0.0)
    return (V * sgn[None, :]) @ (sinv[:, None] * V.T)


def nystrom(K: Array, num_landmarks: int, *, sampling: str = "uniform", rank: int | None = None,
            rng: RNGLike = None) -> LowRank:
    """Nystrom approximation K_hat = C W^+ C^T of a PSD matrix K from m landmarks.

    K : (n, n) symmetric positive semidefinite (checked up to rounding, ``check_psd``, on the
    host: an indefinite matrix is refused); num_landmarks m in 1..n; sampling "uniform" or
    "leverage"; rank k in 1..n, the rank of the leverage scores (default m; only with
    "leverage"); ``rng`` follows the seed rule (landmarks drawn on the host).  Computed on K / c
    (c a power of two) and scaled back; the factors are in K's library, on K's device, and
    ``info["landmarks"]`` is a NumPy index array.
    """
    K = as_float_array(K, "K", ndim=2)
    xp = namespace(K)
    K = xp.astype(K, xp.float64)
    n = K.shape[0]
    if K.shape != (n, n) or n == 0:
        raise ValueError(f"K must be a non-empty square (PSD) matrix, got shape {tuple(K.shape)}")
    m = check_int(num_landmarks, "num_landmarks", minimum=1, maximum=n)
    check_choice(sampling, "sampling", ("uniform", "leverage"))
    if rank is not None:
        if sampling != "leverage":
            raise ValueError(f"rank is used only by sampling='leverage' (the rank of the leverage "
                             f"scores), got rank={rank!r} with sampling={sampling!r}")
        rank = check_int(rank, "rank", minimum=1, maximum=n)
    check_memory(8 * 6 * n * n, f"the eigendecomposition of the ({n}, {n}) matrix K")
    c = float(pow2_scale(K))
    Ks = K / c
    check_psd(to_host(Ks), "K")
    impl = choose("estimators.nystrom", "auto", caller(Ks).library)
    return impl(Ks, c, m, sampling, rank, as_rng(rng))


@register("estimators.nystrom", "reference", dtypes=("float64",),
          note="generic (xp.linalg.eigh); the PSD check and the landmark draw on the host")
def _nystrom(Ks, c, m, sampling, rank, g):
    xp = namespace(Ks)
    n = Ks.shape[0]
    lam, U = xp.linalg.eigh(Ks)
    lam, U = xp.flip(lam), xp.flip(U, axis=1)
    if sampling == "uniform":
        S = g.choice(n, size=m, replace=False)
    else:
        k = m if rank is None else rank
        lev = to_host(xp.sum(U[:, :k] ** 2, axis=1))
        if np.count_nonzero(lev) < m:
            raise ValueError(f"the rank-{k} leverage scores are non-zero on only "
                             f"{np.count_nonzero(lev)} rows, fewer than num_landmarks={m}: "
                             "raise rank or lower num_landmarks")
        S = g.choice(n, size=m, replace=False, p=lev / lev.sum())
    Sx = caller(Ks).asarray(S)
    C = xp.take(Ks, Sx, axis=1)
    W = xp.take(C, Sx, axis=0)
    Wp = _pinv_symmetric(W, 1e-12)
    Khat = C @ Wp @ C.T
    Khat = (Khat + Khat.T) / 2
    lh, Uh = xp.linalg.eigh(Khat)
    Uh = xp.flip(Uh, axis=1)[:, :m]
    out = LowRank(Uh, c * xp.flip(lh)[:m], Uh.T, *_errors(Ks, Khat, c))
    tail = xp.clip(lam[m:], min=0.0)
    out.bounds = {"trace_floor": _scaled(float(xp.sum(tail)), c),
                  "spec_floor": _scaled(float(tail[0]), c) if tail.shape[0] else 0.0,
                  "fro_floor": _scaled(_norm(tail, xp), c)}
    out.info = {"landmarks": np.sort(S),
                "error_trace": _scaled(float(xp.linalg.trace(Ks - Khat)), c),
                "min_eig_residual": _scaled(float(xp.min(xp.linalg.eigvalsh(Ks - Khat))), c),
                "sampling": sampling}
    return out
