"""The data of the 004 App F.1 synthetic study (algorithms.md §P6): the fixed design, the logit,
the per-job labels and their seeds, the Bayes posterior and accuracy.

With one generator ``rng = default_rng(42)`` drawn in the order X, then w::

    X ~ N(0, 1)^{n x p}  (n = 400, p >= 5, default 10),   w ~ N(0, 0.3^2 I_{p-5})  (p > 5)
    l(x) = 1.5 sin(pi x1) + 0.8 x2^2 - x3 x4 + 0.5 sin(3 x5) + x_{6:p} . w
    train/test = train_test_split(arange(n), test_size=0.3, random_state=0)      (280 / 120)

and, per job (sigma index si, trial t), ``r = default_rng([si, t, 2026])`` (toolkit convention;
004 only says "derived deterministically"): xi = r.normal(0, sigma, n), then
y = 1{r.random(n) < expit(l + xi)}.

Bayes accuracy: see :func:`bayes_posterior` and the package docstring.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
from scipy.special import expit

from yatmath.arguments import as_float_array, check_choice

from ._args import posint as _posint

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
    ``method="logistic"``: the identity E_z[expit(l + sigma z)] = E_L[Phi((l + L)/sigma)],
    L standard
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
    pi = (bayes_posterior(logit, sigma) if method == "gauss_hermite"
          else probit_posterior(logit, sigma))
    return float(np.mean(np.maximum(pi, 1.0 - pi)))


def test_se(acc: npt.ArrayLike, n_test: int) -> npt.NDArray[np.float64]:
    """Binomial standard error sqrt(acc (1 - acc) / n_test) of a test accuracy."""
    return np.sqrt(np.asarray(acc) * (1.0 - np.asarray(acc)) / n_test)
