"""The synthetic classification study of 004 App F.1 (algorithms.md §P6-P8).

Data (§P6, 004 App F.1.1/F.1.5)
-------------------------------
With one generator ``rng = default_rng(42)`` drawn in the order X, then w::

    X ~ N(0, 1)^{n x p}  (n = 400, p >= 5, default 10),   w ~ N(0, 0.3^2 I_{p-5})  (p > 5)
    l(x) = 1.5 sin(pi x1) + 0.8 x2^2 - x3 x4 + 0.5 sin(3 x5) + x_{6:p} . w
    train/test = train_test_split(arange(n), test_size=0.3, random_state=0)      (280 / 120)

and, per job (sigma index si, trial t), ``r = default_rng([si, t, 2026])`` (toolkit convention;
004 only says "derived deterministically"): xi = r.normal(0, sigma, n), then
y = 1{r.random(n) < expit(l + xi)}.  Method randomness uses ``default_rng([si, t, 2026, code])``
with a fixed per-method ``code`` (:data:`METHOD_CODES`).

Bayes accuracy: the label law given x is P(y=1|x) = pi(x) = E_z[expit(l(x) + sigma z)],
z ~ N(0,1), evaluated by Gauss-Hermite (probabilists', K = 64) for sigma <= 1 and through the
identity E_L[Phi((l + L)/sigma)] (L logistic, trapezoidal rule) beyond -- a deviation from §P6,
whose K = 64 Hermite rule is off by ~3e-3 at sigma = 10 and whose K = 400 rule overflows in
numpy; absolute error < 1e-9 for all sigma (see the tests) -- with the probit approximation
expit(l / sqrt(1 + pi sigma^2/8)) beside it; pi > 1/2 iff l > 0, so acc_Bayes = mean max(pi, 1-pi).

Baselines (§P7): :func:`fit_logistic`, :func:`fit_rbf_svm`, :func:`fit_rff_svm`,
:func:`fit_mkl_svm` (substitute for MKLpy/MEMO: centred-alignment weights),
:func:`fit_sinha_duchi` (bisection on the multiplier + Duchi simplex projection),
:func:`fit_langevin` (004 Alg 1 with ``yatmath.particles.Hamiltonian`` / ``run_langevin``).
Each returns a :class:`Fit` (test predictions, scores, wall time, options used).

Metrics (§P8): :func:`metrics_from_confusion` (Acc, F1 binary/micro/macro/weighted, MCC,
BalAcc, vectorised over arrays of counts: the one definition, used by the forensics too),
:func:`classification_metrics`, :func:`expected_calibration_error`, :func:`reliability`,
:func:`brier_score`, :func:`log_loss`.  Table forensics: :func:`accuracy_denominator_ok`,
:func:`enumerate_confusions`.

Study drivers: :func:`run_study` (accuracy/F1 against sigma, with sizes as arguments so tests
run tiny versions), :func:`summarize`, :func:`paired_difference`, :func:`runtime_scaling`,
:func:`fit_power_law`.  ``python -m yatmath.particles.synthetic --full`` runs the paper's sizes.
"""
from __future__ import annotations

import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import numpy.typing as npt
from scipy import stats
from scipy.special import expit

from .._validate import as_float_array, check_choice
from ..stats import t_halfwidth
from .hamiltonian import Hamiltonian

__all__ = [
    "SyntheticData", "make_design", "logit_function", "draw_labels", "sigma_grid", "job_rng",
    "bayes_posterior", "probit_posterior", "bayes_accuracy", "test_se",
    "Fit", "fit_logistic", "fit_rbf_svm", "fit_rff_svm", "rff_map", "fit_mkl_svm", "centred_alignment",
    "project_simplex", "sinha_duchi_weights", "fit_sinha_duchi", "fit_langevin", "METHODS",
    "METHOD_CODES", "metrics_from_confusion", "confusion_counts", "classification_metrics",
    "expected_calibration_error", "reliability", "brier_score", "log_loss",
    "accuracy_denominator_ok", "enumerate_confusions", "StudyResult", "run_study", "summarize",
    "paired_difference", "runtime_scaling", "fit_power_law", "PAPER",
]

#: the sizes 004 App F.1 prints (sigma count and trial count are not fixed by 004: record them)
PAPER = {"n": 400, "p": 10, "test_size": 0.3, "seed": 42, "split_state": 0, "n_sigmas": 11,
         "n_trials": 10, "D": 200, "gamma": 0.5, "N": 300, "eta": 30.0, "beta": 100.0,
         "T_max": 2000, "radius": 5.0, "clip": 1.0, "lam_alg1": 0.5, "N_w": 10_000,
         "rho_frac": 0.005, "mkl_gammas": (0.1, 0.3, 0.7, 1.0, 1.3, 1.6)}


# =============================================================================== data (§P6)

@dataclass
class SyntheticData:
    """The fixed design: X (n, p), logit l (n,), extra weights w (p-5,), split indices."""

    X: np.ndarray
    logit: np.ndarray
    w: np.ndarray
    train: np.ndarray
    test: np.ndarray
    params: dict = field(default_factory=dict)


def logit_function(X: npt.ArrayLike, w: npt.ArrayLike | None = None) -> npt.NDArray[np.float64]:
    """l(x) = 1.5 sin(pi x1) + 0.8 x2^2 - x3 x4 + 0.5 sin(3 x5) + x_{6:p}.w (004 App F.1.1)."""
    X = as_float_array(X, "X", ndim=2).astype(np.float64)
    p = X.shape[1]
    if p < 5:
        raise ValueError(f"X must have p >= 5 columns, got {p}")
    w = np.zeros(0) if w is None else as_float_array(w, "w", ndim=1).astype(np.float64)
    if w.shape[0] != p - 5:
        raise ValueError(f"w must have length p - 5 = {p - 5}, got {w.shape[0]}")
    out = (1.5 * np.sin(np.pi * X[:, 0]) + 0.8 * X[:, 1] ** 2 - 1.0 * X[:, 2] * X[:, 3]
           + 0.5 * np.sin(3.0 * X[:, 4]))
    if p > 5:
        out = out + X[:, 5:] @ w
    return out


def _posint(v, name, minimum=1):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {v!r}")
    return int(v)


def make_design(n: int = 400, p: int = 10, seed: int = 42, *, test_size: float = 0.3,
                split_state: int = 0) -> SyntheticData:
    """The §P6 design: X then w from ``default_rng(seed)``; sklearn's 70/30 split (state 0)."""
    from sklearn.model_selection import train_test_split

    n, p = _posint(n, "n", 4), _posint(p, "p", 5)
    if not 0.0 < test_size < 1.0:
        raise ValueError(f"test_size must be in (0, 1), got {test_size!r}")
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    w = rng.normal(0.0, 0.3, size=p - 5) if p > 5 else np.zeros(0)
    tr, te = train_test_split(np.arange(n), test_size=test_size, random_state=split_state)
    return SyntheticData(X, logit_function(X, w), w, np.asarray(tr), np.asarray(te),
                         {"n": n, "p": p, "seed": seed, "test_size": test_size,
                          "split_state": split_state, "order": "X then w"})


def sigma_grid(n_sigmas: int = 11, lo: float = -5.0, hi: float = 5.0) -> npt.NDArray[np.float64]:
    """logspace(lo, hi, n_sigmas): 004 sweeps sigma log-spaced over [1e-5, 1e5] (count unstated)."""
    return np.logspace(lo, hi, _posint(n_sigmas, "n_sigmas"))


def job_rng(si: int, trial: int, *extra: int) -> np.random.Generator:
    """The per-job generator default_rng([si, trial, 2026, *extra]) (toolkit convention)."""
    return np.random.default_rng([int(si), int(trial), 2026, *[int(e) for e in extra]])


def draw_labels(logit: npt.NDArray[np.float64], sigma: float, si: int,
                trial: int) -> npt.NDArray[np.int_]:
    """y in {0,1} (n,): xi = r.normal(0, sigma, n), y = 1{r.random(n) < expit(l + xi)}."""
    logit = as_float_array(logit, "logit", ndim=1).astype(np.float64)
    if not (np.isfinite(sigma) and sigma >= 0):
        raise ValueError(f"sigma must be finite and >= 0, got {sigma!r}")
    r = job_rng(si, trial)
    xi = r.normal(0.0, sigma, logit.shape[0])
    return (r.random(logit.shape[0]) < expit(logit + xi)).astype(int)


def bayes_posterior(logit: npt.ArrayLike, sigma: float, K: int | None = None, *,
                    method: str = "auto") -> npt.NDArray[np.float64]:
    """pi(x) = E_z[expit(l + sigma z)], z ~ N(0, 1).

    ``method="hermite"``: Gauss-Hermite (``hermegauss(K)``, weights / sqrt(2 pi), K = 64): the
    integrand is analytic with poles at distance pi/sigma from the real axis, so this is accurate
    to ~1e-14 for sigma <= 1 but only to ~3e-3 at sigma = 10 (and numpy's hermegauss overflows for
    K >~ 150, so the K = 400 of algorithms.md §P6 is not available).
    ``method="logistic"``: the identity E_z[expit(l + sigma z)] = E_L[Phi((l + L)/sigma)], L standard
    logistic, by the trapezoidal rule on [-50, 50] with step 0.05 (K ignored): spectrally accurate
    for sigma >= 1 (error < 1e-9 against adaptive quadrature, see the tests).
    ``"auto"``: Hermite for sigma <= 1, logistic beyond."""
    from numpy.polynomial.hermite_e import hermegauss
    from scipy.special import ndtr

    check_choice(method, "method", ("auto", "hermite", "logistic"))
    l = as_float_array(logit, "logit", ndim=(0, 1)).astype(np.float64)
    if not (np.isfinite(sigma) and sigma >= 0):
        raise ValueError(f"sigma must be finite and >= 0, got {sigma!r}")
    if method == "hermite" or (method == "auto" and sigma <= 1.0):
        K = 64 if K is None else _posint(K, "K")
        z, wts = hermegauss(K)
        wts = wts / np.sqrt(2.0 * np.pi)
        return expit(l[..., None] + sigma * z) @ wts
    if sigma == 0:
        return expit(l)
    h = 0.05
    u = np.arange(-50.0, 50.0 + h / 2, h)
    fL = np.exp(-np.abs(u)) / (1.0 + np.exp(-np.abs(u))) ** 2        # logistic density
    return ndtr((l[..., None] + u) / sigma) @ (h * fL)


def probit_posterior(logit: npt.ArrayLike, sigma: float) -> npt.NDArray[np.float64]:
    """The probit approximation expit(l / sqrt(1 + pi sigma^2 / 8))."""
    l = as_float_array(logit, "logit", ndim=(0, 1)).astype(np.float64)
    return expit(l / np.sqrt(1.0 + np.pi * sigma ** 2 / 8.0))


def bayes_accuracy(logit: npt.ArrayLike, sigma: float, method: str = "gauss_hermite") -> float:
    """mean max(pi, 1 - pi) over the given points (``method`` "gauss_hermite" or "probit")."""
    check_choice(method, "method", ("gauss_hermite", "probit"))
    pi = bayes_posterior(logit, sigma) if method == "gauss_hermite" else probit_posterior(logit, sigma)
    return float(np.mean(np.maximum(pi, 1.0 - pi)))


def test_se(acc: npt.ArrayLike, n_test: int) -> npt.NDArray[np.float64]:
    """Binomial standard error sqrt(acc (1 - acc) / n_test) of a test accuracy."""
    return np.sqrt(np.asarray(acc) * (1.0 - np.asarray(acc)) / n_test)


# =============================================================================== baselines (§P7)

@dataclass
class Fit:
    """Test predictions (0/1), real-valued scores (larger = class 1), seconds, options used."""

    pred: np.ndarray
    score: np.ndarray
    seconds: float
    info: dict = field(default_factory=dict)


def _check_xy(Xtr, ytr, Xte):
    Xtr = as_float_array(Xtr, "Xtr", ndim=2).astype(np.float64)
    Xte = as_float_array(Xte, "Xte", ndim=2).astype(np.float64)
    ytr = np.asarray(ytr)
    if ytr.ndim != 1 or ytr.shape[0] != Xtr.shape[0]:
        raise ValueError(f"ytr must have shape ({Xtr.shape[0]},), got {ytr.shape}")
    if not np.all(np.isin(ytr, (0, 1))):
        raise ValueError("ytr must hold 0/1 labels")
    if Xte.shape[1] != Xtr.shape[1]:
        raise ValueError(f"Xte must have {Xtr.shape[1]} columns, got {Xte.shape[1]}")
    return Xtr, ytr.astype(int), Xte


def _single_class(ytr, nte, t0, info):
    """Every classifier predicts the only training class (sklearn refuses one-class fits)."""
    c = int(ytr[0])
    return Fit(np.full(nte, c), np.full(nte, 2.0 * c - 1.0), time.perf_counter() - t0,
               {**info, "single_class": True})


def fit_logistic(Xtr: npt.ArrayLike, ytr: npt.ArrayLike, Xte: npt.ArrayLike,
                 rng: np.random.Generator | None = None) -> Fit:
    """sklearn ``LogisticRegression()`` with its defaults (L2, C=1, lbfgs) on the raw inputs."""
    from sklearn.linear_model import LogisticRegression

    Xtr, ytr, Xte = _check_xy(Xtr, ytr, Xte)
    t0 = time.perf_counter()
    info = {"method": "LogisticRegression()", "C": 1.0, "penalty": "l2", "solver": "lbfgs"}
    if np.unique(ytr).size < 2:
        return _single_class(ytr, Xte.shape[0], t0, info)
    m = LogisticRegression().fit(Xtr, ytr)
    s = m.decision_function(Xte)
    return Fit((s > 0).astype(int), s, time.perf_counter() - t0,
               {**info, "proba": m.predict_proba(Xte)[:, 1]})


def fit_rbf_svm(Xtr: npt.ArrayLike, ytr: npt.ArrayLike, Xte: npt.ArrayLike,
                rng: np.random.Generator | None = None, *, gamma: float = 0.5,
                C: float = 1.0) -> Fit:
    """sklearn ``SVC(kernel="rbf", gamma=gamma, C=C)``."""
    from sklearn.svm import SVC

    Xtr, ytr, Xte = _check_xy(Xtr, ytr, Xte)
    t0 = time.perf_counter()
    info = {"method": "SVC(rbf)", "gamma": gamma, "C": C}
    if np.unique(ytr).size < 2:
        return _single_class(ytr, Xte.shape[0], t0, info)
    m = SVC(kernel="rbf", gamma=gamma, C=C).fit(Xtr, ytr)
    s = m.decision_function(Xte)
    return Fit((s > 0).astype(int), s, time.perf_counter() - t0, info)


def rff_map(X: npt.NDArray[np.float64], W: npt.NDArray[np.float64],
            b: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """z(x) = sqrt(2/D) cos(W^T x + b), W (p, D), b (D,)."""
    return np.sqrt(2.0 / W.shape[1]) * np.cos(X @ W + b)


def _linear_svc(Ztr, ytr, Zte, t0, info, C=1.0):
    from sklearn.svm import LinearSVC

    if np.unique(ytr).size < 2:
        return _single_class(ytr, Zte.shape[0], t0, info)
    m = LinearSVC(C=C, loss="hinge", dual=True, max_iter=100_000).fit(Ztr, ytr)
    s = m.decision_function(Zte)
    return Fit((s > 0).astype(int), s, time.perf_counter() - t0, info)


def fit_rff_svm(Xtr: npt.ArrayLike, ytr: npt.ArrayLike, Xte: npt.ArrayLike,
                rng: np.random.Generator, *, D: int = 200, gamma: float = 0.5,
                C: float = 1.0) -> Fit:
    """RFF + linear SVM: W_{:,j} ~ N(0, 2 gamma I_p), b ~ U[0, 2 pi], D features, LinearSVC(C)."""
    from .._validate import as_rng

    Xtr, ytr, Xte = _check_xy(Xtr, ytr, Xte)
    r = as_rng(rng)
    D = _posint(D, "D")
    t0 = time.perf_counter()
    W = r.normal(0.0, np.sqrt(2.0 * gamma), size=(Xtr.shape[1], D))
    b = r.uniform(0.0, 2.0 * np.pi, D)
    return _linear_svc(rff_map(Xtr, W, b), ytr, rff_map(Xte, W, b), t0,
                       {"method": "RFF + LinearSVC(hinge)", "D": D, "gamma": gamma, "C": C}, C)


def _sqdist(A, B):
    d2 = np.sum(A * A, 1)[:, None] + np.sum(B * B, 1)[None, :] - 2.0 * A @ B.T
    return np.maximum(d2, 0.0)


def centred_alignment(K: npt.ArrayLike, y: npt.ArrayLike) -> float:
    """A_c(K, y y^T) = <Hc K Hc, Hc Y Hc>_F / (||Hc K Hc|| ||Hc Y Hc||), y in {+-1} or {0,1}."""
    K = as_float_array(K, "K", ndim=2)
    y = np.asarray(y, dtype=np.float64)
    Kc = K - K.mean(0) - K.mean(1)[:, None] + K.mean()
    yc = y - y.mean()
    Yc = np.outer(yc, yc)
    den = np.linalg.norm(Kc) * np.linalg.norm(Yc)
    return float(np.sum(Kc * Yc) / den) if den > 0 else 0.0


def fit_mkl_svm(Xtr: npt.ArrayLike, ytr: npt.ArrayLike, Xte: npt.ArrayLike,
                rng: np.random.Generator | None = None, *,
                gammas: Sequence[float] = PAPER["mkl_gammas"],  # type: ignore[assignment]
                C: float = 1.0) -> Fit:
    """MKL substitute (labelled; MKLpy/MEMO is not used): Gaussian Grams K_m for each gamma,
    weights w_m ∝ max(0, A_c(K_m, yy^T)) normalised to sum 1 (uniform if all vanish), and
    ``SVC(kernel="precomputed", C)`` on sum_m w_m K_m."""
    from sklearn.svm import SVC

    Xtr, ytr, Xte = _check_xy(Xtr, ytr, Xte)
    t0 = time.perf_counter()
    d_tr, d_te = _sqdist(Xtr, Xtr), _sqdist(Xte, Xtr)
    Ks = [np.exp(-g * d_tr) for g in gammas]
    a = np.array([max(0.0, centred_alignment(K, 2 * ytr - 1)) for K in Ks])
    wts = a / a.sum() if a.sum() > 0 else np.full(len(gammas), 1.0 / len(gammas))
    info = {"method": "MKL substitute: centred-alignment weights + SVC(precomputed)",
            "gammas": list(gammas), "weights": wts.tolist(), "C": C}
    if np.unique(ytr).size < 2:
        return _single_class(ytr, Xte.shape[0], t0, info)
    Ktr = sum(w * K for w, K in zip(wts, Ks))
    Kte = sum(w * np.exp(-g * d_te) for w, g in zip(wts, gammas))
    m = SVC(kernel="precomputed", C=C).fit(Ktr, ytr)
    s = m.decision_function(Kte)
    return Fit((s > 0).astype(int), s, time.perf_counter() - t0, info)


def project_simplex(v: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Euclidean projection onto the probability simplex (Duchi et al. 2008): sort descending,
    k* = max{k : mu_k - (sum_{j<=k} mu_j - 1)/k > 0}, theta = (sum_{j<=k*} mu_j - 1)/k*,
    q = max(v - theta, 0).  Exact up to rounding of the cumulative sum."""
    v = as_float_array(v, "v", ndim=1).astype(np.float64)
    mu = np.sort(v)[::-1]
    css = np.cumsum(mu) - 1.0
    k = np.arange(1, v.size + 1)
    kstar = k[mu - css / k > 0][-1]
    theta = css[kstar - 1] / kstar
    return np.maximum(v - theta, 0.0)


def sinha_duchi_weights(v: npt.ArrayLike, rho: float, *, tol: float = 1e-10,
                        lam_start: float = 1.0, max_doublings: int = 200,
                        max_bisections: int = 200
                        ) -> tuple[npt.NDArray[np.float64], float, dict[str, Any]]:
    """max_q v.q over the simplex with ||q - u||^2 <= rho/N_w (u uniform), by bisection on the
    multiplier lam with q(lam) = Proj_simplex(u + v/lam): double lam from ``lam_start`` until
    feasible, then bisect [lam/2, lam] to relative width < tol (hi - lo < tol * hi), stopping also
    when the midpoint no longer splits the float64 interval or after ``max_bisections`` steps (an
    absolute width tol * lam_start cannot be reached once lam's ulp exceeds it, lam >~ 5e5).
    Returns (q, lam, info); lam is always feasible."""
    v = as_float_array(v, "v", ndim=1).astype(np.float64)
    Nw = v.size
    u = np.full(Nw, 1.0 / Nw)
    bound = rho / Nw
    if not bound > 0:
        raise ValueError(f"rho must be > 0, got {rho!r}")

    def q_of(lam):
        return project_simplex(u + v / lam)

    def dev(lam):
        q = q_of(lam)
        return float(np.sum((q - u) ** 2))

    lam, k = float(lam_start), 0
    while dev(lam) > bound:
        lam *= 2.0
        k += 1
        if k > max_doublings:
            raise RuntimeError("sinha_duchi_weights: no feasible multiplier found")
    lo, hi, it = (lam / 2.0 if k else 0.0), lam, 0
    if k:
        while hi - lo >= tol * hi and it < max_bisections:
            mid = 0.5 * (lo + hi)
            if not lo < mid < hi:
                break
            if dev(mid) <= bound:
                hi = mid
            else:
                lo = mid
            it += 1
    q = q_of(hi)
    return q, hi, {"doublings": k, "bisections": it, "deviation": dev(hi), "bound": bound}


def fit_sinha_duchi(Xtr: npt.ArrayLike, ytr: npt.ArrayLike, Xte: npt.ArrayLike,
                    rng: np.random.Generator, *, N_w: int = 10_000, rho_frac: float = 0.005,
                    D: int = 200, gamma: float = 0.5, select: str = "stratified",
                    tol: float = 1e-10, C: float = 1.0) -> Fit:
    """Sinha-Duchi (2016) importance-sampled RFF (reimplemented as §P7.5) + LinearSVC(C).

    Candidates w_m ~ N(0, 2 gamma I), b_m ~ U[0, 2 pi]; v_m = (sum_i y_i cos(w_m.x_i + b_m))^2
    (y in {+-1}); q from :func:`sinha_duchi_weights` with rho = rho_frac N_w; keep q_m > eps;
    D features by ``select`` = "stratified" (systematic resampling on the CDF of q) or "iid";
    then unweighted features sqrt(2/D) cos(w.x + b)."""
    from .._validate import as_rng
    from .langevin import resample

    check_choice(select, "select", ("stratified", "iid"))
    Xtr, ytr, Xte = _check_xy(Xtr, ytr, Xte)
    r = as_rng(rng)
    N_w, D = _posint(N_w, "N_w"), _posint(D, "D")
    t0 = time.perf_counter()
    Wc = r.normal(0.0, np.sqrt(2.0 * gamma), size=(Xtr.shape[1], N_w))
    bc = r.uniform(0.0, 2.0 * np.pi, N_w)
    ypm = 2.0 * ytr - 1.0
    v = (ypm @ np.cos(Xtr @ Wc + bc)) ** 2
    q, lam, sd = sinha_duchi_weights(v, rho_frac * N_w, tol=tol)
    q = np.where(q > np.finfo(float).eps, q, 0.0)
    idx = resample(q, D, r, "systematic" if select == "stratified" else "multinomial")
    W, b = Wc[:, idx], bc[idx]
    info = {"method": "Sinha-Duchi importance sampling + LinearSVC", "N_w": N_w,
            "rho": rho_frac * N_w, "D": D, "gamma": gamma, "select": select, "lam": lam,
            "support": int(np.count_nonzero(q)), "unique_selected": int(np.unique(idx).size), **sd}
    return _linear_svc(rff_map(Xtr, W, b), ytr, rff_map(Xte, W, b), t0, info, C)


def fit_langevin(Xtr: npt.ArrayLike, ytr: npt.ArrayLike, Xte: npt.ArrayLike,
                 rng: np.random.Generator, *, lam: float = 0.5, N: int = 300, D: int = 200,
                 eta: float = 30.0, beta: float = 100.0, T_max: int = 2000,
                 radius: float = 5.0, clip: float = 1.0, gamma: float = 0.5,
                 interaction: tuple[Any, ...] = ("none", 0.0, 0.0), select: str = "first",
                 C: float = 1.0, backend: str = "auto") -> Fit:
    """004 Alg 1 ("Alg-1" lam = 0.5, "robust" lam = 0) + LinearSVC(C).

    H_N = -A_printed(sqrt2 cos(X omega + b)) + lam W_{N,s} (``Hamiltonian``, RFF map, learned
    phases), particles in the ball of radius ``radius`` (projection), drift N grad H_N clipped
    per particle to ``clip``, eta, beta, T_max steps (``run_langevin``); initial particles
    omega ~ N(0, 2 gamma I_p), b ~ U[0, 2 pi] (unspecified in 004; recorded).  Features from the
    first D particles (``select="first"``) or from D draws of the Alg 2 weights
    (``select="alg2"``, reading (a), multinomial).  ``interaction`` = (kind, s, delta) with
    ``s="coulomb"`` allowed; the default is the bare logarithmic kernel (s = 0)."""
    from .._validate import as_rng

    check_choice(select, "select", ("first", "alg2"))
    Xtr, ytr, Xte = _check_xy(Xtr, ytr, Xte)
    r = as_rng(rng)
    N, D = _posint(N, "N", 2), _posint(D, "D")
    if D > N:
        raise ValueError(f"D must be <= N={N}, got {D}")
    T_max = _posint(T_max, "T_max", 0)
    t0 = time.perf_counter()
    # imported here: threadpoolctl's import writes KMP_DUPLICATE_LIB_OK into os.environ
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        return _fit_langevin(Xtr, ytr, Xte, r, t0, lam, N, D, eta, beta, T_max, radius, clip,
                             gamma, interaction, select, C, backend)


def _fit_langevin(Xtr, ytr, Xte, r, t0, lam, N, D, eta, beta, T_max, radius, clip, gamma,
                  interaction, select, C, backend):
    from scipy.spatial.distance import pdist

    from .domains import Ball
    from .langevin import resample, reweight, run_langevin

    p = Xtr.shape[1]
    ypm = 2.0 * ytr - 1.0
    H = _PrintedRFF(Xtr, ypm, feature="rff", objective="printed", lam=lam,
                    interaction=tuple(interaction) if lam != 0 else None, learn_phase=True,
                    backend=backend)
    Om0 = r.normal(0.0, np.sqrt(2.0 * gamma), size=(N, p))
    b0 = r.uniform(0.0, 2.0 * np.pi, N)
    res = run_langevin(H, Om0, b0=b0, eta=eta, beta=beta, n_steps=T_max, rng=r,
                       domain=Ball(radius, p), clip=clip, track_energy=False)
    if select == "first":
        idx = np.arange(D)
    else:
        idx = resample(reweight(H, res.Omega, beta, res.b, "a"), D, r)
    W, b = res.Omega[idx].T, res.b[idx]
    info = {"method": f"Langevin Alg-1 (lam={lam}) + LinearSVC", "lam": lam, "N": N, "D": D,
            "eta": eta, "beta": beta, "T_max": T_max, "radius": radius, "clip": clip,
            "interaction": list(interaction), "init": f"N(0, {2 * gamma} I), b ~ U[0, 2pi]",
            "select": select, "steps": res.steps, "stop": res.stop_reason,
            "mean_norm": float(np.mean(np.linalg.norm(res.Omega, axis=1))),
            "frac_on_sphere": float(np.mean(np.linalg.norm(res.Omega, axis=1) > radius * (1 - 1e-9))),
            "min_pair_distance": float(pdist(res.Omega).min())}
    return _linear_svc(rff_map(Xtr, W, b), ytr, rff_map(Xte, W, b), t0, info, C)


class _PrintedRFF(Hamiltonian):
    """The printed-objective RFF Hamiltonian whose field gradient is the library's vectorised
    P1 formula ``potential_grad`` / N (one cos and one sin evaluation per step instead of three;
    equal to ``Hamiltonian.field_grad`` to rounding, see the tests)."""

    def field_grad(self, Om, b=None):
        gO, gb = self.potential_grad(Om, b)
        N = Om.shape[0]
        return gO / N, (gb / N if self.learn_phase else None)


def _gamma_svm(g):
    def f(Xtr, ytr, Xte, rng=None):
        return fit_rbf_svm(Xtr, ytr, Xte, rng, gamma=g)
    return f


#: method name -> callable(Xtr, ytr, Xte, rng, **size options) (the Fig.1 line-up)
METHODS = {
    "logistic": fit_logistic,
    "rbf_svm": _gamma_svm(0.5),
    "rbf_svm_g0.01": _gamma_svm(0.01),
    "rbf_svm_g100": _gamma_svm(100.0),
    "rff": fit_rff_svm,
    "mkl": fit_mkl_svm,
    "sinha_duchi": fit_sinha_duchi,
    "langevin": fit_langevin,
    "langevin_robust": lambda Xtr, ytr, Xte, rng, **kw: fit_langevin(Xtr, ytr, Xte, rng,
                                                                     **{**kw, "lam": 0.0}),
}
#: fixed per-method seed component (crc32 of the name)
METHOD_CODES = {k: zlib.crc32(k.encode()) for k in METHODS}
#: which size options each method accepts
_SIZE_KEYS = {"rff": ("D", "gamma"), "sinha_duchi": ("N_w", "D", "gamma", "select"),
              "langevin": ("N", "D", "eta", "beta", "T_max", "radius", "clip", "interaction",
                           "lam", "select"),
              "langevin_robust": ("N", "D", "eta", "beta", "T_max", "radius", "clip", "select"),
              "mkl": ("gammas",)}


# =============================================================================== metrics (§P8)

def confusion_counts(y: npt.ArrayLike, yhat: npt.ArrayLike) -> tuple[int, int, int, int]:
    """(TP, FP, FN, TN) for 0/1 labels and predictions (positive class 1)."""
    y, yhat = np.asarray(y).astype(int), np.asarray(yhat).astype(int)
    if y.shape != yhat.shape or y.ndim != 1:
        raise ValueError(f"y and yhat must be 1-D of equal length, got {y.shape} and {yhat.shape}")
    tp = int(np.sum((y == 1) & (yhat == 1)))
    fp = int(np.sum((y == 0) & (yhat == 1)))
    fn = int(np.sum((y == 1) & (yhat == 0)))
    return tp, fp, fn, int(y.size - tp - fp - fn)


def _div(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(b > 0, a / np.where(b > 0, b, 1.0), 0.0)


def metrics_from_confusion(TP: npt.ArrayLike, FP: npt.ArrayLike, FN: npt.ArrayLike,
                           TN: npt.ArrayLike) -> dict[str, Any]:
    """Acc, F1 (binary, micro, macro, weighted), MCC, BalAcc, TPR, TNR from the counts
    (broadcast over arrays).  Zero-division conventions: F1 and rates 0 (sklearn
    ``zero_division=0``), MCC 0 if its denominator is 0; BalAcc averages the rates of the
    classes present (sklearn)."""
    TP, FP, FN, TN = (np.asarray(v, dtype=np.float64) for v in (TP, FP, FN, TN))
    n = TP + FP + FN + TN
    P, Nn = TP + FN, TN + FP
    acc = _div(TP + TN, n)
    f1p = _div(2 * TP, 2 * TP + FP + FN)
    f1n = _div(2 * TN, 2 * TN + FN + FP)
    tpr, tnr = _div(TP, P), _div(TN, Nn)
    present = (P > 0).astype(float) + (Nn > 0).astype(float)
    den = np.sqrt(np.maximum((TP + FP) * P * Nn * (TN + FN), 0.0))
    return {"acc": acc, "f1": f1p, "f1_micro": acc, "f1_macro": 0.5 * (f1p + f1n),
            "f1_weighted": _div(P * f1p + Nn * f1n, n),
            "mcc": _div(TP * TN - FP * FN, den),
            "balacc": _div(tpr * (P > 0) + tnr * (Nn > 0), present), "tpr": tpr, "tnr": tnr}


def _check_prob(y, p):
    y = np.asarray(y)
    p = as_float_array(p, "p", ndim=1).astype(np.float64)
    if y.shape != p.shape:
        raise ValueError(f"y and p must have the same shape, got {y.shape} and {p.shape}")
    if not np.all(np.isin(y, (0, 1))):
        raise ValueError("y must hold 0/1 labels")
    if np.any((p < 0) | (p > 1)):
        raise ValueError("p must lie in [0, 1]")
    return y.astype(int), p


def log_loss(y: npt.ArrayLike, p: npt.ArrayLike, clip: float = 1e-15) -> float:
    """-mean[y ln p + (1-y) ln(1-p)], p clipped to [clip, 1 - clip]."""
    y, p = _check_prob(y, p)
    p = np.clip(p, clip, 1.0 - clip)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log1p(-p)))


def brier_score(y: npt.ArrayLike, p: npt.ArrayLike, convention: str = "binary") -> float:
    """"binary": mean (p - y)^2; "multiclass": mean sum_c (p_c - 1{y=c})^2 (= 2x binary)."""
    check_choice(convention, "convention", ("binary", "multiclass"))
    y, p = _check_prob(y, p)
    b = float(np.mean((p - y) ** 2))
    return b if convention == "binary" else 2.0 * b


def _bins(conf, n_bins):
    n_bins = _posint(n_bins, "n_bins")
    # (lo, hi] membership with the first bin closed: bin index ceil(c M) - 1, clipped at 0
    return np.clip(np.ceil(conf * n_bins).astype(int) - 1, 0, n_bins - 1), n_bins


def reliability(y: npt.ArrayLike, p: npt.ArrayLike, n_bins: int = 15, variant: str = "top"
                ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64],
                           npt.NDArray[np.int_]]:
    """Per-bin (conf, acc, count) over M equal-width bins on [0, 1] ((lo, hi], first closed).
    variant "top": conf = max(p, 1-p), acc = 1{yhat = y}; "positive": conf = p, acc = 1{y = 1}."""
    check_choice(variant, "variant", ("top", "positive"))
    y, p = _check_prob(y, p)
    if variant == "top":
        conf, hit = np.maximum(p, 1.0 - p), ((p >= 0.5).astype(int) == y).astype(float)
    else:
        conf, hit = p, y.astype(float)
    b, M = _bins(conf, n_bins)
    cnt = np.bincount(b, minlength=M).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        c = np.bincount(b, conf, M) / cnt
        a = np.bincount(b, hit, M) / cnt
    return c, a, cnt


def expected_calibration_error(y: npt.ArrayLike, p: npt.ArrayLike, n_bins: int = 15,
                               variant: str = "top") -> float:
    """ECE = sum_b (|B_b|/n) |acc(B_b) - conf(B_b)| (see :func:`reliability`)."""
    c, a, cnt = reliability(y, p, n_bins, variant)
    m = cnt > 0
    return float(np.sum(cnt[m] / cnt.sum() * np.abs(a[m] - c[m])))


def classification_metrics(y: npt.ArrayLike, p: npt.ArrayLike | None = None, *,
                           yhat: npt.ArrayLike | None = None, score: npt.ArrayLike | None = None,
                           n_bins: int = 15) -> dict[str, Any]:
    """All §P8 metrics of one prediction.  ``p`` = P(y=1) (probabilistic metrics too), else
    ``yhat`` (and optionally ``score`` for ROC/PR-AUC)."""
    from sklearn.metrics import average_precision_score, roc_auc_score

    y = np.asarray(y).astype(int)
    if p is not None:
        y, p = _check_prob(y, p)
        yhat = (p >= 0.5).astype(int)
        score = p
    elif yhat is None:
        raise ValueError("give p (probabilities) or yhat (predictions)")
    out = {k: float(v) for k, v in metrics_from_confusion(*confusion_counts(y, yhat)).items()}
    if score is not None and np.unique(y).size == 2:
        out["roc_auc"] = float(roc_auc_score(y, score))
        out["pr_auc"] = float(average_precision_score(y, score))
    if p is not None:
        out.update(log_loss=log_loss(y, p), brier=brier_score(y, p),
                   brier_multiclass=brier_score(y, p, "multiclass"),
                   ece=expected_calibration_error(y, p, n_bins),
                   ece_10=expected_calibration_error(y, p, 10),
                   ece_positive=expected_calibration_error(y, p, n_bins, "positive"))
    return out


# =============================================================================== forensics (§P8)

def accuracy_denominator_ok(a: float, n: int, decimals: int = 4) -> bool:
    """|a - round(a n)/n| <= half a unit of the last printed digit (5e-5 at 4 d.p.)."""
    n = _posint(n, "n")
    return bool(abs(a - round(a * n) / n) <= 0.5 * 10.0 ** (-decimals) + 1e-12)


def enumerate_confusions(n: int, acc: float, balacc: float, f1_macro: float | None = None,
                         f1_weighted: float | None = None, mcc: float | None = None, *,
                         decimals: int = 4, max_keep: int = 20,
                         max_candidates: int = 200_000_000,
                         stop_after: int | None = None) -> dict[str, Any]:
    """Integer confusion matrices (TP, FP, FN, TN) with TP+FP+FN+TN = n whose metrics round to
    the printed ones (|m - printed| <= 5e-5 + 1e-12 at 4 d.p.).

    For each number of positives P, Acc fixes TP + TN = k (k over the integers with
    |k/n - acc| <= 5e-5) and BalAcc bounds TP to an interval (linear in TP for fixed P, k); the
    integers in it are checked against the other given metrics.  Exhaustive: the count of
    candidates examined is returned; ``max_candidates`` stops (``complete=False``) before an
    infeasible budget.  Returns {"matches": [...], "n_matches", "candidates", "complete"}.
    """
    n = _posint(n, "n")
    h = 0.5 * 10.0 ** (-decimals) + 1e-12
    ks = np.arange(int(np.ceil((acc - h) * n)), int(np.floor((acc + h) * n)) + 1)
    ks = ks[(ks >= 0) & (ks <= n)]
    targets = {"f1_macro": f1_macro, "f1_weighted": f1_weighted, "mcc": mcc}
    matches: list[Any]
    matches, total, nm, complete = [], 0, 0, True
    Ps = np.arange(1, n)
    for k in ks:
        Nn = n - Ps
        # BalAcc = (TP/P + (k - TP)/Nn)/2 in [b-h, b+h]  <=>  TP (1/P - 1/Nn) in [2(b-h) - k/Nn, 2(b+h) - k/Nn]
        a = 1.0 / Ps - 1.0 / Nn
        lo_r, hi_r = 2 * (balacc - h) - k / Nn, 2 * (balacc + h) - k / Nn
        with np.errstate(divide="ignore", invalid="ignore"):
            t1, t2 = lo_r / a, hi_r / a
        tlo = np.where(a > 0, t1, np.where(a < 0, t2, -np.inf))
        thi = np.where(a > 0, t2, np.where(a < 0, t1, np.inf))
        zero_ok = (a == 0) & (lo_r <= 0) & (hi_r >= 0)
        tlo = np.where((a == 0) & ~zero_ok, np.inf, tlo)
        with np.errstate(invalid="ignore"):
            lo = np.maximum(np.ceil(tlo - 1e-9), np.maximum(0, k - Nn))
            hi = np.minimum(np.floor(thi + 1e-9), np.minimum(Ps, k))
        lo = np.clip(np.nan_to_num(lo, nan=n + 1.0), -1, n + 1).astype(np.int64)
        hi = np.clip(np.nan_to_num(hi, nan=-1.0), -1, n + 1).astype(np.int64)
        cnt = np.maximum(hi - lo + 1, 0)
        if total + cnt.sum() > max_candidates or (stop_after is not None and nm >= stop_after):
            complete = False
            break
        total += int(cnt.sum())
        sel_all = np.nonzero(cnt)[0]
        csum = np.cumsum(cnt[sel_all])
        start_i = 0
        while start_i < sel_all.size:          # chunks of <= ~4M candidates
            stop_i = int(np.searchsorted(csum, (csum[start_i] - cnt[sel_all[start_i]]) + 4_000_000,
                                         side="right"))
            stop_i = max(stop_i, start_i + 1)
            sel = sel_all[start_i:stop_i]
            start_i = stop_i
            rep = cnt[sel]
            P_c = np.repeat(Ps[sel], rep)
            start = np.repeat(lo[sel], rep)
            offs = np.arange(rep.sum()) - np.repeat(np.cumsum(rep) - rep, rep)
            TP = start + offs
            TN = k - TP
            FN, FP = P_c - TP, (n - P_c) - TN
            m = metrics_from_confusion(TP, FP, FN, TN)
            ok = np.abs(m["acc"] - acc) <= h
            ok &= np.abs(m["balacc"] - balacc) <= h
            for key, v in targets.items():
                if v is not None:
                    ok &= np.abs(m[key] - v) <= h
            idx = np.nonzero(ok)[0]
            nm += idx.size
            for i in idx[:max(0, max_keep - len(matches))]:
                matches.append([int(TP[i]), int(FP[i]), int(FN[i]), int(TN[i])])
    return {"matches": matches, "n_matches": int(nm), "candidates": int(total),
            "complete": complete, "accuracy_numerators": ks.tolist()}


# =============================================================================== study drivers

@dataclass
class StudyResult:
    """acc/f1/seconds[method] (n_sigmas, n_trials); bayes (n_sigmas,); params."""

    sigmas: np.ndarray
    acc: dict
    f1: dict
    seconds: dict
    bayes: np.ndarray
    bayes_probit: np.ndarray
    params: dict


def _call(name, fn, Xtr, ytr, Xte, rng, options):
    keys = _SIZE_KEYS.get(name, ())
    kw = {k: v for k, v in options.items() if k in keys}
    return fn(Xtr, ytr, Xte, rng, **kw)


def run_study(methods: Sequence[str] = ("logistic", "rbf_svm", "rff", "sinha_duchi", "langevin",
                                        "langevin_robust"), *, n_sigmas: int = 11,
              sigmas: npt.ArrayLike | None = None, n_trials: int = 10, n: int = 400, p: int = 10,
              options: dict[str, Any] | None = None,
              method_options: dict[str, dict[str, Any]] | None = None,
              progress: Callable[..., Any] | None = None) -> StudyResult:
    """Accuracy and binary F1 on the test split for every (method, sigma, trial) (§P6-P8).

    ``options`` (sizes shared by all methods that take them: D, N, T_max, N_w, gamma, ...) and
    ``method_options[name]`` (per method) are passed through; every value is recorded."""
    options = dict(options or {})
    method_options = dict(method_options or {})
    funcs = {}
    for m in methods:
        if m not in METHODS and m not in method_options:
            raise ValueError(f"unknown method {m!r}; choose from {sorted(METHODS)}")
        funcs[m] = METHODS[method_options.get(m, {}).get("base", m)]
    data = make_design(n=n, p=p)
    sig = sigma_grid(n_sigmas) if sigmas is None else np.asarray(sigmas, dtype=np.float64)
    n_trials = _posint(n_trials, "n_trials")
    shape = (sig.size, n_trials)
    acc = {m: np.zeros(shape) for m in methods}
    f1 = {m: np.zeros(shape) for m in methods}
    secs = {m: np.zeros(shape) for m in methods}
    Xtr, Xte = data.X[data.train], data.X[data.test]
    for si, s in enumerate(sig):
        for t in range(n_trials):
            y = draw_labels(data.logit, s, si, t)
            ytr, yte = y[data.train], y[data.test]
            for m in methods:
                mo = {k: v for k, v in method_options.get(m, {}).items() if k != "base"}
                base = method_options.get(m, {}).get("base", m)
                code = zlib.crc32(m.encode())
                fit = _call(base, funcs[m], Xtr, ytr, Xte, job_rng(si, t, code), {**options, **mo})
                mt = metrics_from_confusion(*confusion_counts(yte, fit.pred))
                acc[m][si, t], f1[m][si, t], secs[m][si, t] = mt["acc"], mt["f1"], fit.seconds
            if progress is not None:
                progress(si, t)
    lte = data.logit[data.test]
    bayes = np.array([bayes_accuracy(lte, s) for s in sig])
    probit = np.array([bayes_accuracy(lte, s, "probit") for s in sig])
    params = {**data.params, "sigmas": sig.tolist(), "n_trials": n_trials,
              "methods": list(methods), "options": {k: (list(v) if isinstance(v, tuple) else v)
                                                    for k, v in options.items()},
              "method_options": method_options, "job_seed": "default_rng([si, trial, 2026])",
              "method_seed": "default_rng([si, trial, 2026, crc32(name)])",
              "n_train": int(data.train.size), "n_test": int(data.test.size)}
    return StudyResult(sig, acc, f1, secs, bayes, probit, params)


def summarize(values: npt.ArrayLike, level: float = 0.95) -> tuple[Any, Any, Any, Any]:
    """Mean over the last axis with a t confidence interval: (mean, lo, hi, sd)."""
    v = np.asarray(values, dtype=np.float64)
    k = v.shape[-1]
    mean = v.mean(-1)
    sd = v.std(-1, ddof=1) if k > 1 else np.zeros_like(mean)
    half = t_halfwidth(sd, k, level)
    return mean, mean - half, mean + half, sd


def paired_difference(a: npt.ArrayLike, b: npt.ArrayLike, level: float = 0.95) -> dict[str, Any]:
    """Paired differences a - b over all (sigma, trial) cells given: mean, t CI, Wilcoxon p
    (two-sided; 1.0 when all differences vanish), count."""
    d = (np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)).ravel()
    k = d.size
    mean = float(d.mean())
    if k > 1 and np.std(d) > 0:
        half = float(t_halfwidth(d.std(ddof=1), k, level))
        pw = float(stats.wilcoxon(d).pvalue) if np.count_nonzero(d) > 0 else 1.0
    else:
        half, pw = (0.0 if k > 1 else np.inf), 1.0
    return {"mean": mean, "lo": mean - half, "hi": mean + half, "wilcoxon_p": pw, "count": k}


def fit_power_law(n: npt.ArrayLike, t: npt.ArrayLike, *, n_boot: int = 1000,
                  rng: int | np.random.Generator = 0) -> dict[str, Any]:
    """Least squares of log t = log c + gamma log n: gamma, c, sigma_log (residual sd, ddof=2
    when >= 3 points), and a bootstrap 95% CI of gamma over resampled points."""
    from .._validate import as_rng

    n = as_float_array(n, "n", ndim=1)
    t = as_float_array(t, "t", ndim=1)
    if n.shape != t.shape or n.size < 2:
        raise ValueError("n and t must be 1-D of equal length >= 2")
    if np.any(n <= 0) or np.any(t <= 0):
        raise ValueError("n and t must be > 0")
    x, yv = np.log(n), np.log(t)
    g, lc = np.polyfit(x, yv, 1)
    res = yv - (lc + g * x)
    sig = float(np.sqrt(np.sum(res ** 2) / max(n.size - 2, 1)))
    r = as_rng(rng)
    boots = []
    for _ in range(n_boot):
        i = r.integers(0, n.size, n.size)
        if np.unique(x[i]).size >= 2:
            boots.append(np.polyfit(x[i], yv[i], 1)[0])
    ci = (float(np.percentile(boots, 2.5)), float(np.percentile(boots, 97.5))) if boots else (np.nan, np.nan)
    return {"gamma": float(g), "c": float(np.exp(lc)), "sigma_log": sig, "gamma_ci": ci,
            "n_obs": int(n.size)}


def runtime_scaling(methods: Sequence[str] = ("logistic", "rbf_svm", "rff", "sinha_duchi", "mkl",
                                              "langevin"), *,
                    ns: Sequence[int] = (100, 200, 400, 800), n_trials: int = 2,
                    sigma: float = 1.0, p: int = 10,
                    options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Wall seconds (fit + predict, as ``Fit.seconds``) per method, n and trial at noise sigma
    (004 Fig.2: sigma^2 = 1, p = 10, D = 200), plus a power-law fit per method.  The design of
    size n uses the same seed-42 generator; the split is 70/30."""
    options = dict(options or {})
    times = {m: np.zeros((len(ns), n_trials)) for m in methods}
    for i, n in enumerate(ns):
        data = make_design(n=int(n), p=p)
        Xtr, Xte = data.X[data.train], data.X[data.test]
        for t in range(n_trials):
            y = draw_labels(data.logit, sigma, 0, t)
            for m in methods:
                fit = _call(m, METHODS[m], Xtr, y[data.train], Xte,
                            job_rng(0, t, zlib.crc32(m.encode())), options)
                times[m][i, t] = fit.seconds
    n_train = np.array([int(round(0.7 * n)) for n in ns], dtype=float)
    fits = {m: fit_power_law(np.repeat(np.asarray(ns, float), n_trials), times[m].ravel())
            for m in methods}
    return {"ns": list(ns), "n_train": n_train.tolist(), "times": times, "fits": fits,
            "params": {"sigma": sigma, "p": p, "n_trials": n_trials, "options": options}}


def _main(argv=None):
    import argparse
    import json

    ap = argparse.ArgumentParser(description="004 App F.1 synthetic study")
    ap.add_argument("--full", action="store_true", help="the paper's sizes (long: hours on 2 cores)")
    ap.add_argument("--out", default="synthetic_study.json")
    a = ap.parse_args(argv)
    if a.full:
        res = run_study(("logistic", "rbf_svm", "rbf_svm_g0.01", "rbf_svm_g100", "rff", "mkl",
                         "sinha_duchi", "langevin", "langevin_robust"), n_trials=10,
                        progress=lambda si, t: print(f"sigma {si} trial {t}", flush=True))
    else:
        res = run_study(n_sigmas=5, n_trials=2, options={"T_max": 100, "N_w": 2000})
    out = {"sigmas": res.sigmas.tolist(), "bayes": res.bayes.tolist(),
           "acc": {k: v.tolist() for k, v in res.acc.items()},
           "f1": {k: v.tolist() for k, v in res.f1.items()}, "params": res.params}
    with open(a.out, "w") as f:
        json.dump(out, f, indent=1, default=str)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    _main()
