"""The statistics the library, the ledger, the figures and the benchmarks share: one definition each.

* :func:`loglog_slope`   least-squares exponent p of y ~ C x^p (no interval: figures, benchmarks)
* :func:`loglog_fit`     the same with a percentile-bootstrap confidence interval (:class:`Fit`)
* :func:`t_quantile`     the Student-t quantile t_{(1+level)/2, n-1} of a mean of n samples
* :func:`t_upper`        the upper p quantile of Student's t (a one-sided or Bonferroni tail)
* :func:`t_halfwidth`    half-width t_{(1+level)/2, n-1} s / sqrt(n) of a Student-t interval
* :func:`mean_ci`        mean and Student-t confidence interval of replicates
* :func:`binom_ci`       Clopper-Pearson interval of a proportion
* :func:`rel_err`        relative error with the norm named: ``"max"`` (max|a - b| / max|b|) or
                         ``"fro"`` (||a - b||_F / ||b||_F)

Intervals use the Student-t quantile for every sample size (no switch to a normal quantile at a
"large" n: the t quantile is the exact one for normal data and tends to the normal one anyway).
Every interval carries its level so that a caller can record it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy import stats as _st

#: The default confidence level (claims.md, General rules: "Monte Carlo results carry 95% CIs").
LEVEL = 0.95

__all__ = ["LEVEL", "Fit", "loglog_slope", "loglog_fit", "t_quantile", "t_upper", "t_halfwidth",
           "mean_ci", "binom_ci", "rel_err"]


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

    def to_dict(self) -> dict[str, Any]:
        return {"slope": self.slope, "intercept": self.intercept, "ci": list(self.ci),
                "level": self.level, "fit_range": list(self.x_range), "n_points": self.n_points,
                "n_boot": self.n_boot}


def _ls(lx: np.ndarray, ly: np.ndarray) -> tuple[float, float]:
    A = np.stack([lx, np.ones_like(lx)], axis=1)
    coef, *_ = np.linalg.lstsq(A, ly, rcond=None)
    return float(coef[0]), float(coef[1])


def _positive_pairs(x: npt.ArrayLike, y: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    xa = np.asarray(x, dtype=float)
    ya = np.asarray(y, dtype=float)
    if xa.ndim != 1 or xa.size < 2:
        raise ValueError(f"x must be 1-D with at least 2 points, got shape {xa.shape}")
    if np.any(xa <= 0) or np.any(ya <= 0) or not (np.all(np.isfinite(xa))
                                                  and np.all(np.isfinite(ya))):
        raise ValueError("x and y must be finite and positive for a log-log fit")
    return xa, ya


def loglog_slope(x: npt.ArrayLike, y: npt.ArrayLike) -> float:
    """The least-squares exponent p of log y = p log x + c over the given points (x, y > 0,
    at least two distinct x).  Solved by ``numpy.linalg.lstsq``; exact up to the rounding of the
    logarithms and the QR solve (a few ulps of the slope for well-spread x)."""
    xa, ya = _positive_pairs(x, y)
    if ya.shape != xa.shape:
        raise ValueError(f"y must have the shape of x {xa.shape}, got {ya.shape}")
    if np.ptp(xa) == 0:
        raise ValueError("x must hold at least two distinct values (a slope needs them)")
    return _ls(np.log(xa), np.log(ya))[0]


def loglog_fit(x: npt.ArrayLike, y: npt.ArrayLike, rng: np.random.Generator, *,
               n_boot: int = 1000, level: float = LEVEL) -> Fit:
    """Fit log y = p log x + c, with a percentile-bootstrap interval of p at ``level``.

    ``y`` is either one value per ``x`` (bootstrap over the (x, y) pairs) or an array of shape
    ``(len(x), R)`` of R replicates per ``x`` (bootstrap over the replicates within each x, the
    fit made to their means).  Resamples that leave fewer than two distinct x (pairs mode) are
    drawn again.
    """
    xa, ya = _positive_pairs(x, y)
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    lx = np.log(xa)
    boots: list[float] = []
    if ya.ndim == 1:
        if ya.shape != xa.shape:
            raise ValueError(f"y must have the shape of x {xa.shape}, got {ya.shape}")
        slope, icpt = _ls(lx, np.log(ya))
        while len(boots) < n_boot:
            idx = rng.integers(0, xa.size, xa.size)
            if np.ptp(lx[idx]) > 0:
                boots.append(_ls(lx[idx], np.log(ya[idx]))[0])
    elif ya.ndim == 2 and ya.shape[0] == xa.size:
        R = ya.shape[1]
        slope, icpt = _ls(lx, np.log(ya.mean(axis=1)))
        idx = rng.integers(0, R, (n_boot, xa.size, R))
        means = np.take_along_axis(np.broadcast_to(ya, (n_boot,) + ya.shape), idx,
                                   axis=2).mean(axis=2)
        boots = [_ls(lx, np.log(m))[0] for m in means]
    else:
        raise ValueError(f"y must have shape {xa.shape} or ({xa.size}, R), got {ya.shape}")
    a = (1 - level) / 2
    lo, hi = np.quantile(boots, [a, 1 - a])
    return Fit(slope, icpt, (float(lo), float(hi)), level, (float(xa.min()), float(xa.max())),
               int(xa.size), int(n_boot))


def t_quantile(n: int, level: float = LEVEL) -> float:
    """The quantile t_{(1+level)/2, n-1} that multiplies the standard error of a mean of ``n >= 2``
    samples in its two-sided Student-t interval at ``level`` (SciPy's ``t.ppf``)."""
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    if n < 2:
        raise ValueError(f"n must be >= 2 for a t quantile, got {n}")
    return float(_st.t.ppf(0.5 + level / 2, n - 1))


def t_upper(p: float, dof: int) -> float:
    """The upper ``p`` quantile of Student's t with ``dof`` degrees of freedom, t with
    P(T > t) = p (SciPy's ``t.isf``, accurate for small ``p``: a Bonferroni share alpha / 2m
    of a test over m entries)."""
    if not 0 < p < 1:
        raise ValueError(f"p must be in (0, 1), got {p}")
    if dof < 1:
        raise ValueError(f"dof must be >= 1, got {dof}")
    return float(_st.t.isf(p, dof))


def t_halfwidth(sd: Any, n: int, level: float = LEVEL) -> Any:
    """Half-width t_{(1+level)/2, n-1} sd / sqrt(n) of the Student-t interval of a mean of ``n``
    samples with sample standard deviation ``sd`` (ddof = 1); infinite for n < 2.  ``sd`` may
    be an array (the half-widths of several means)."""
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    if n < 2:
        return np.full_like(np.asarray(sd, dtype=float), np.inf)
    return t_quantile(n, level) * sd / np.sqrt(n)


def mean_ci(samples: npt.ArrayLike, *, level: float = LEVEL, axis: int = 0) -> tuple[Any, Any]:
    """(mean, (low, high)) with a Student-t interval; a single sample gives an infinite interval."""
    a = np.asarray(samples, dtype=float)
    n = a.shape[axis]
    m = a.mean(axis=axis)
    if n < 2:
        inf = np.full_like(m, np.inf)
        return m, (m - inf, m + inf)
    h = t_halfwidth(a.std(axis=axis, ddof=1), n, level)
    return m, (m - h, m + h)


def binom_ci(k: int, n: int, *, level: float = LEVEL) -> tuple[float, float]:
    """Clopper-Pearson interval of a proportion k / n."""
    if n < 1 or not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n and n >= 1, got k={k}, n={n}")
    ci = _st.binomtest(int(k), int(n)).proportion_ci(confidence_level=level, method="exact")
    return float(ci.low), float(ci.high)


def rel_err(a: npt.ArrayLike, b: npt.ArrayLike, *, norm: str = "max") -> float:
    """Relative error of ``a`` against the reference ``b`` in the named norm: ``"max"``,
    max|a - b| / max|b|, or ``"fro"``, ||a - b||_F / ||b||_F.  0 when both vanish, inf when only
    ``b`` does."""
    if norm not in ("max", "fro"):
        raise ValueError(f"norm must be 'max' or 'fro', got {norm!r}")
    aa = np.asarray(a, dtype=float)
    ba = np.asarray(b, dtype=float)
    diff = aa - ba
    if norm == "max":
        num = float(np.max(np.abs(diff))) if diff.size else 0.0
        den = float(np.max(np.abs(ba))) if ba.size else 0.0
    else:
        num = float(np.linalg.norm(diff.ravel()))
        den = float(np.linalg.norm(ba.ravel()))
    if den == 0.0:
        return 0.0 if num == 0.0 else float("inf")
    return num / den
