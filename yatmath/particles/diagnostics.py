"""Distances between particle laws and densities, fluctuations, fitted rates (algorithms.md §P5).

``w1_1d(a, b)``               W1 = int |F_a - F_b| dx of two 1-D samples (scipy, exact)
``w1_density(p, edges, rho)`` W1 between particles and a cell-average density on a 1-D grid:
                              int |F_N - F_rho| with F_rho piecewise linear, integrated exactly
                              on the merged breakpoints
``sliced_w2(A, B)``           mean over K random unit directions of the 1-D W2^2 of projections
                              (exact quantile-function integral, any sample sizes)
``mmd2(A, B)``                unbiased U-statistic MMD^2, Gaussian kernel, median-heuristic
                              bandwidth; weighted (grid) sides enter as V-statistics
``mmd2_test(A, B)``           MMD^2 with a permutation null quantile and p-value
``energy_distance(A, B)``     2 E|X-Y| - E|X-X'| - E|Y-Y'| (U-statistics)
``n_var(means, N)``           N Var of an observable's empirical mean over independent runs,
                              with a chi-square confidence interval
``fit_rate(x, err)``          least-squares slope of log err on log x with a t confidence interval

All in float64 NumPy; the pairwise statistics use O(n m) memory (subsample large sets).
"""
from __future__ import annotations

import numpy as np
from scipy import stats
from scipy.spatial.distance import cdist, pdist

from .._validate import as_float_array


def _rng(rng):
    from .forces import _as_rng

    return _as_rng(rng)


def _pts(A, name):
    A = as_float_array(A, name, ndim=(1, 2)).astype(np.float64)
    return A[:, None] if A.ndim == 1 else A


def w1_1d(a, b, wa=None, wb=None) -> float:
    """W1 between two 1-D (weighted) samples: int |F_a - F_b| (scipy.stats.wasserstein_distance)."""
    a = as_float_array(a, "a", ndim=1)
    b = as_float_array(b, "b", ndim=1)
    return float(stats.wasserstein_distance(a, b, wa, wb))


def w1_density(particles, edges, rho) -> float:
    """W1 between the empirical law of 1-D particles and the density with cell averages ``rho``
    on cells [edges[i], edges[i+1]] (normalised here to total mass 1).

    F_rho is piecewise linear, F_N a step function; the integral of |F_N - F_rho| is exact
    between merged breakpoints (a linear function's |.| integrated in closed form).
    """
    x = np.sort(as_float_array(particles, "particles", ndim=1).astype(np.float64))
    edges = as_float_array(edges, "edges", ndim=1).astype(np.float64)
    rho = as_float_array(rho, "rho", ndim=1).astype(np.float64)
    if edges.shape[0] != rho.shape[0] + 1 or np.any(np.diff(edges) <= 0):
        raise ValueError("edges must be increasing with len(edges) = len(rho) + 1")
    if np.any(rho < 0):
        raise ValueError("rho must be >= 0")
    mass = np.concatenate([[0.0], np.cumsum(rho * np.diff(edges))])
    if mass[-1] <= 0:
        raise ValueError("rho has zero mass")
    cdf_e = mass / mass[-1]
    lo, hi = min(edges[0], x[0]), max(edges[-1], x[-1])
    pts = np.unique(np.concatenate([edges, x, [lo, hi]]))
    Fr = np.interp(pts, edges, cdf_e, left=0.0, right=1.0)
    n = x.shape[0]
    # F_N on each open interval (pts[j], pts[j+1]) = #{x <= pts[j]} / n
    FN = np.searchsorted(x, pts[:-1], side="right") / n
    d0 = FN - Fr[:-1]
    d1 = FN - Fr[1:]
    L = np.diff(pts)
    same = d0 * d1 >= 0
    area_same = 0.5 * L * np.abs(d0 + d1)
    with np.errstate(divide="ignore", invalid="ignore"):
        area_cross = 0.5 * L * (d0 * d0 + d1 * d1) / (np.abs(d0) + np.abs(d1))
    return float(np.sum(np.where(same, area_same, np.nan_to_num(area_cross))))


def _w2sq_1d(a, b):
    a, b = np.sort(a), np.sort(b)
    ta = np.arange(1, a.size + 1) / a.size
    tb = np.arange(1, b.size + 1) / b.size
    t = np.unique(np.concatenate([ta, tb]))
    dt = np.diff(np.concatenate([[0.0], t]))
    ia = np.minimum(np.searchsorted(ta, t, side="left"), a.size - 1)
    ib = np.minimum(np.searchsorted(tb, t, side="left"), b.size - 1)
    return float(np.sum(dt * (a[ia] - b[ib]) ** 2))


def sliced_w2(A, B, n_dirs=64, rng=0) -> float:
    """Sliced W2^2: mean over ``n_dirs`` uniform random directions of W2^2 of the projections."""
    A, B = _pts(A, "A"), _pts(B, "B")
    if A.shape[1] != B.shape[1]:
        raise ValueError(f"A and B must have the same dimension, got {A.shape[1]} and {B.shape[1]}")
    d = A.shape[1]
    if d == 1:
        return _w2sq_1d(A[:, 0], B[:, 0])
    Th = _rng(rng).standard_normal((n_dirs, d))
    Th /= np.linalg.norm(Th, axis=1, keepdims=True)
    return float(np.mean([_w2sq_1d(A @ t, B @ t) for t in Th]))


def median_bandwidth(A, B, max_points=2000, rng=0) -> float:
    """Median of the pooled pairwise distances (on at most ``max_points`` points)."""
    P = np.concatenate([_pts(A, "A"), _pts(B, "B")])
    if P.shape[0] > max_points:
        P = P[_rng(rng).choice(P.shape[0], max_points, replace=False)]
    med = float(np.median(pdist(P)))
    return med if med > 0 else 1.0


def _gauss(D2, h):
    return np.exp(-D2 / (2.0 * h * h))


def mmd2(A, B, bandwidth=None, wa=None, wb=None) -> float:
    """Squared MMD with k(x, y) = exp(-||x-y||^2 / (2 h^2)); h = median heuristic by default.

    Unweighted sides use the unbiased within-sample U-statistic (diagonal excluded); a weighted
    side (e.g. grid cells with density weights, normalised here) uses the V-statistic.
    """
    A, B = _pts(A, "A"), _pts(B, "B")
    h = median_bandwidth(A, B) if bandwidth is None else float(bandwidth)

    def within(P, w):
        K = _gauss(cdist(P, P, "sqeuclidean"), h)
        if w is None:
            n = P.shape[0]
            return (K.sum() - np.trace(K)) / (n * (n - 1))
        w = np.asarray(w, dtype=np.float64) / np.sum(w)
        return float(w @ K @ w)

    def mean_w(P, w):
        return (np.full(P.shape[0], 1.0 / P.shape[0]) if w is None
                else np.asarray(w, dtype=np.float64) / np.sum(w))

    cross = mean_w(A, wa) @ _gauss(cdist(A, B, "sqeuclidean"), h) @ mean_w(B, wb)
    return float(within(A, wa) + within(B, wb) - 2.0 * cross)


def mmd2_test(A, B, bandwidth=None, n_perm=200, alpha=0.05, rng=0) -> dict:
    """Unbiased MMD^2 with a permutation test: {"mmd2", "threshold" (the 1-alpha null
    quantile), "p_value", "bandwidth"}.  ``mmd2 <= threshold`` means the two samples agree
    within their statistical error at level alpha."""
    A, B = _pts(A, "A"), _pts(B, "B")
    h = median_bandwidth(A, B) if bandwidth is None else float(bandwidth)
    P = np.concatenate([A, B])
    K = _gauss(cdist(P, P, "sqeuclidean"), h)
    np.fill_diagonal(K, 0.0)
    n, m = A.shape[0], B.shape[0]

    def stat(idx):
        ia, ib = idx[:n], idx[n:]
        return (K[np.ix_(ia, ia)].sum() / (n * (n - 1)) + K[np.ix_(ib, ib)].sum() / (m * (m - 1))
                - 2.0 * K[np.ix_(ia, ib)].sum() / (n * m))

    obs = stat(np.arange(n + m))
    r = _rng(rng)
    null = np.array([stat(r.permutation(n + m)) for _ in range(n_perm)])
    return {"mmd2": float(obs), "threshold": float(np.quantile(null, 1 - alpha)),
            "p_value": float((1 + np.sum(null >= obs)) / (n_perm + 1)), "bandwidth": h}


def energy_distance(A, B) -> float:
    """2 E||X - Y|| - E||X - X'|| - E||Y - Y'|| with within-sample U-statistics."""
    A, B = _pts(A, "A"), _pts(B, "B")
    n, m = A.shape[0], B.shape[0]
    return float(2.0 * cdist(A, B).mean() - 2.0 * pdist(A).sum() / (n * (n - 1))
                 - 2.0 * pdist(B).sum() / (m * (m - 1)))


def n_var(means, N, alpha=0.05) -> dict:
    """N Var of an observable's empirical mean (1/N) sum_k f(omega_k) over R independent runs.

    means : (R,) per-run means.  Returns {"n_var", "ci": (lo, hi)} with the chi-square(R-1)
    interval for a variance (exact for Gaussian means, a large-R approximation otherwise).
    """
    m = as_float_array(means, "means", ndim=1).astype(np.float64)
    R = m.shape[0]
    if R < 2:
        raise ValueError("means needs at least 2 runs")
    v = float(np.var(m, ddof=1))
    lo = (R - 1) * v / stats.chi2.ppf(1 - alpha / 2, R - 1)
    hi = (R - 1) * v / stats.chi2.ppf(alpha / 2, R - 1)
    return {"n_var": N * v, "ci": (N * lo, N * hi), "runs": R}


def fit_rate(x, err, alpha=0.05) -> dict:
    """Fit err ~ C x^rate by least squares on logs: {"rate", "ci", "C", "r2"}."""
    x = as_float_array(x, "x", ndim=1).astype(np.float64)
    e = as_float_array(err, "err", ndim=1).astype(np.float64)
    if x.shape != e.shape or x.shape[0] < 3:
        raise ValueError("x and err must be 1-D of the same length >= 3")
    if np.any(x <= 0) or np.any(e <= 0):
        raise ValueError("x and err must be > 0 (the fit is on logarithms)")
    res = stats.linregress(np.log(x), np.log(e))
    t = stats.t.ppf(1 - alpha / 2, x.shape[0] - 2)
    return {"rate": float(res.slope), "ci": (float(res.slope - t * res.stderr),
                                             float(res.slope + t * res.stderr)),
            "C": float(np.exp(res.intercept)), "r2": float(res.rvalue ** 2)}


def histogram_entropy(W, edges) -> float:
    """int rho ln rho of the histogram density of 1-D or 2-D particles on the given bin edges
    (a list of edge arrays, one per dimension); the plug-in estimate used for free energies."""
    P = _pts(W, "W")
    H, _ = np.histogramdd(P, bins=edges)
    vol = np.ones_like(H)
    for ax, e in enumerate(edges):
        shape = [1] * H.ndim
        shape[ax] = -1
        vol = vol * np.diff(e).reshape(shape)
    rho = H / (P.shape[0] * vol)
    m = H > 0
    return float(np.sum(rho[m] * np.log(rho[m]) * vol[m]))
