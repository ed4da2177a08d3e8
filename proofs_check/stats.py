"""The statistics the checks share: one definition each.

* :func:`loglog_fit`   fitted exponent of y ~ C x^p with a bootstrap confidence interval
* :func:`mean_ci`      mean and Student-t confidence interval of replicates
* :func:`binom_ci`     Clopper-Pearson interval of a proportion
* :func:`psd_report`   lambda_min / lambda_max and numerical rank of a symmetric matrix, with the
                       PSD rule of claims.md ("lambda_min >= -1e-12 lambda_max", relative)
* :func:`rel_err`      normwise relative error max|a - b| / max|b|

Every interval is returned with its level, so the check records it as the ``Threshold`` of
kind "statistical" that decides a verdict.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats as _st

LEVEL = 0.95                 # claims.md General rules: Monte Carlo results carry 95% CIs
PSD_RTOL = 1e-12             # claims.md General rules: lambda_min >= -1e-12 lambda_max


@dataclass(frozen=True)
class Fit:
    """A log-log least-squares fit: ``slope`` with its bootstrap ``ci`` at ``level``."""

    slope: float
    intercept: float
    ci: tuple[float, float]
    level: float
    x_range: tuple[float, float]
    n_points: int
    n_boot: int

    def to_dict(self) -> dict:
        return {"slope": self.slope, "intercept": self.intercept, "ci": list(self.ci),
                "level": self.level, "fit_range": list(self.x_range), "n_points": self.n_points,
                "n_boot": self.n_boot}


def _ls(lx, ly):
    A = np.stack([lx, np.ones_like(lx)], axis=1)
    coef, *_ = np.linalg.lstsq(A, ly, rcond=None)
    return float(coef[0]), float(coef[1])


def loglog_fit(x, y, rng: np.random.Generator, *, n_boot: int = 1000, level: float = LEVEL) -> Fit:
    """Fit log y = p log x + c.

    ``y`` is either one value per ``x`` (bootstrap over the (x, y) pairs) or an array of shape
    ``(len(x), R)`` of R replicates per ``x`` (bootstrap over the replicates within each x, the
    fit made to their means).  The interval is the percentile interval of ``n_boot`` resamples;
    resamples that leave fewer than two distinct x (pairs mode) are drawn again.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.ndim != 1 or x.size < 2:
        raise ValueError(f"x must be 1-D with at least 2 points, got shape {x.shape}")
    if np.any(x <= 0) or np.any(y <= 0) or not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError("x and y must be finite and positive for a log-log fit")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    lx = np.log(x)
    if y.ndim == 1:
        if y.shape != x.shape:
            raise ValueError(f"y must have the shape of x {x.shape}, got {y.shape}")
        slope, icpt = _ls(lx, np.log(y))
        boots = []
        while len(boots) < n_boot:
            idx = rng.integers(0, x.size, x.size)
            if np.ptp(lx[idx]) > 0:
                boots.append(_ls(lx[idx], np.log(y[idx]))[0])
    elif y.ndim == 2 and y.shape[0] == x.size:
        R = y.shape[1]
        slope, icpt = _ls(lx, np.log(y.mean(axis=1)))
        idx = rng.integers(0, R, (n_boot, x.size, R))
        means = np.take_along_axis(np.broadcast_to(y, (n_boot,) + y.shape), idx, axis=2).mean(axis=2)
        boots = [_ls(lx, np.log(m))[0] for m in means]
    else:
        raise ValueError(f"y must have shape {x.shape} or ({x.size}, R), got {y.shape}")
    a = (1 - level) / 2
    lo, hi = np.quantile(boots, [a, 1 - a])
    return Fit(slope, icpt, (float(lo), float(hi)), level, (float(x.min()), float(x.max())),
               int(x.size), int(n_boot))


def mean_ci(samples, *, level: float = LEVEL, axis: int = 0):
    """(mean, (low, high)) with a Student-t interval; a single sample gives an infinite interval."""
    a = np.asarray(samples, dtype=float)
    n = a.shape[axis]
    m = a.mean(axis=axis)
    if n < 2:
        inf = np.full_like(m, np.inf)
        return m, (m - inf, m + inf)
    se = a.std(axis=axis, ddof=1) / np.sqrt(n)
    h = _st.t.ppf(0.5 + level / 2, n - 1) * se
    return m, (m - h, m + h)


def binom_ci(k: int, n: int, *, level: float = LEVEL) -> tuple[float, float]:
    """Clopper-Pearson interval of a proportion k / n."""
    if n < 1 or not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n and n >= 1, got k={k}, n={n}")
    ci = _st.binomtest(int(k), int(n)).proportion_ci(confidence_level=level, method="exact")
    return float(ci.low), float(ci.high)


def psd_report(G) -> dict:
    """Spectrum summary of the symmetric part of ``G``.

    Returns ``{"lambda_min", "lambda_max", "ratio", "rank", "psd"}``: ``ratio`` =
    lambda_min / max|lambda| (1.0 for the zero matrix), ``rank`` the number of eigenvalues above
    ``PSD_RTOL`` max|lambda|, ``psd`` whether ratio >= -PSD_RTOL (claims.md's rule).
    """
    G = np.asarray(G, dtype=np.float64)
    if G.ndim != 2 or G.shape[0] != G.shape[1]:
        raise ValueError(f"G must be a square matrix, got shape {G.shape}")
    lam = np.linalg.eigvalsh(0.5 * (G + G.T))
    lmax = float(np.max(np.abs(lam))) if lam.size else 0.0
    ratio = 1.0 if lmax == 0.0 else float(lam[0] / lmax)
    return {"lambda_min": float(lam[0]) if lam.size else 0.0, "lambda_max": float(lam[-1]) if lam.size else 0.0,
            "ratio": ratio, "rank": int(np.sum(lam > PSD_RTOL * lmax)), "psd": ratio >= -PSD_RTOL}


def rel_err(a, b) -> float:
    """Normwise relative error max|a - b| / max|b| (0 when both are zero, inf when only b is)."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    num = float(np.max(np.abs(a - b))) if a.size else 0.0
    den = float(np.max(np.abs(b))) if b.size else 0.0
    if den == 0.0:
        return 0.0 if num == 0.0 else float("inf")
    return num / den
