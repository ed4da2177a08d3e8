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

from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import stats
from scipy.spatial.distance import cdist, pdist

from .._typing import Array, RNGLike
from ..stats import t_quantile
from ._arrays import host_op
from .._validate import (as_float_array, as_rng, check_int, check_nonempty, check_positive,
                         check_real)


def _pts(A, name, *, minimum=1):
    """Samples as (n, d) float64 with n >= minimum (a 1-D array is n points on the line)."""
    A = as_float_array(A, name, ndim=(1, 2)).astype(np.float64)
    A = A[:, None] if A.ndim == 1 else A
    if A.shape[0] < minimum:
        raise ValueError(f"{name} must hold at least {minimum} sample point"
                         f"{'s' if minimum > 1 else ''} (rows), got shape {A.shape}")
    if A.shape[1] == 0:
        raise ValueError(f"{name} must have at least one coordinate, got shape {A.shape}")
    return A


def _same_dim(A, B):
    if A.shape[1] != B.shape[1]:
        raise ValueError(f"A and B must have the same dimension, got {A.shape[1]} and {B.shape[1]}")


def _scale(*arrays):
    """A power of two s with max |entries| / s in [1, 2) when the data leave [2^-300, 2^300],
    else 1: distances are homogeneous, so statistics of the scaled points are exact rescalings,
    and squares of huge or tiny coordinates neither overflow nor underflow."""
    m = max((float(np.max(np.abs(a))) for a in arrays if a.size), default=0.0)
    if m == 0.0 or 2.0 ** -300 <= m <= 2.0 ** 300:
        return 1.0
    return float(2.0 ** (np.frexp(m)[1] - 1))


def _weights(w, name, n):
    """None, or nonnegative weights of length n with a positive finite sum, normalised."""
    if w is None:
        return None
    w = as_float_array(w, name, ndim=1).astype(np.float64)
    if w.shape[0] != n:
        raise ValueError(f"{name} must have one weight per sample point ({n}), got length "
                         f"{w.shape[0]}")
    if np.any(w < 0):
        raise ValueError(f"{name} must be >= 0 (weights), got a minimum of {float(w.min())!r}")
    w = w / np.max(w) if np.max(w) > 0 else w          # rescale before summing
    tot = float(np.sum(w))
    if not tot > 0:
        raise ValueError(f"{name} must have a positive sum, got all zeros")
    return w / tot


def _alpha(alpha):
    return check_real(alpha, "alpha", gt=0.0, lt=1.0)


def _slope_t_quantile(n_points: int, level: float) -> float:
    """The Student-t quantile t_{(1+level)/2, n_points-2} of a least-squares slope fitted to
    ``n_points >= 3`` points (two fitted parameters): ``yatmath.stats.t_quantile`` of a mean of
    n_points - 1 samples has those n_points - 2 degrees of freedom."""
    return t_quantile(n_points - 1, level)


@host_op("particles.w1_1d", note="scipy.stats / scipy.spatial.distance")
def w1_1d(a: Array, b: Array, wa: Array | None = None, wb: Array | None = None) -> float:
    """W1 between two 1-D (weighted) samples: int |F_a - F_b| (scipy.stats.wasserstein_distance)."""
    a = as_float_array(a, "a", ndim=1).astype(np.float64)
    b = as_float_array(b, "b", ndim=1).astype(np.float64)
    check_nonempty(a, "a", what="sample points")
    check_nonempty(b, "b", what="sample points")
    wa, wb = _weights(wa, "wa", a.shape[0]), _weights(wb, "wb", b.shape[0])
    sc = _scale(a, b)                                   # W1 is homogeneous of degree 1
    return float(stats.wasserstein_distance(a / sc, b / sc, wa, wb)) * sc


@host_op("particles.w1_density", note="scipy.stats / scipy.spatial.distance")
def w1_density(particles: Array, edges: Array, rho: Array) -> float:
    """W1 between the empirical law of 1-D particles and the density with cell averages ``rho``
    on cells [edges[i], edges[i+1]] (normalised here to total mass 1).

    F_rho is piecewise linear, F_N a step function; the integral of |F_N - F_rho| is exact
    between merged breakpoints (a linear function's |.| integrated in closed form).
    """
    x = np.sort(as_float_array(particles, "particles", ndim=1).astype(np.float64))
    check_nonempty(x, "particles", what="particles")
    edges = as_float_array(edges, "edges", ndim=1).astype(np.float64)
    rho = as_float_array(rho, "rho", ndim=1).astype(np.float64)
    if edges.shape[0] != rho.shape[0] + 1:
        raise ValueError(f"edges must have len(rho) + 1 = {rho.shape[0] + 1} entries, got "
                         f"{edges.shape[0]}")
    if not np.all(np.diff(edges) > 0):
        raise ValueError("edges must be strictly increasing (cell boundaries)")
    if np.any(rho < 0):
        raise ValueError(f"rho must be >= 0 (a density), got a minimum of {float(rho.min())!r}")
    rho = rho / np.max(rho) if np.max(rho) > 0 else rho
    mass = np.concatenate([[0.0], np.cumsum(rho * np.diff(edges))])
    if not mass[-1] > 0:
        raise ValueError("rho must have positive total mass, got all zeros")
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


@host_op("particles.sliced_w2", note="scipy.stats / scipy.spatial.distance")
def sliced_w2(A: Array, B: Array, n_dirs: int = 64, rng: RNGLike = 0) -> float:
    """Sliced W2^2: mean over ``n_dirs`` uniform random directions of W2^2 of the projections.

    A (n, d), B (m, d) (or 1-D: points on the line, where the exact W2^2 is returned); n, m >= 1.
    rng follows :func:`yatmath._validate.as_rng` (default seed 0: the same directions each call).
    Points outside [2^-300, 2^300] are rescaled by a power of two first (W2^2 is homogeneous
    of degree 2), so the result is finite whenever the true value is, and inf when it overflows.
    """
    A, B = _pts(A, "A"), _pts(B, "B")
    _same_dim(A, B)
    n_dirs = check_int(n_dirs, "n_dirs", minimum=1)
    r = as_rng(rng)
    sc = _scale(A, B)
    A, B = A / sc, B / sc
    d = A.shape[1]
    with np.errstate(over="ignore"):
        if d == 1:
            return _w2sq_1d(A[:, 0], B[:, 0]) * sc * sc
        Th = r.standard_normal((n_dirs, d))
        Th /= np.linalg.norm(Th, axis=1, keepdims=True)
        return float(np.mean([_w2sq_1d(A @ t, B @ t) for t in Th])) * sc * sc


@host_op("particles.median_bandwidth", note="scipy.stats / scipy.spatial.distance")
def median_bandwidth(A: Array, B: Array, max_points: int = 2000, rng: RNGLike = 0) -> float:
    """Median of the pooled pairwise distances (on a random subset of at most ``max_points``
    points, drawn with ``rng``); 1.0 when every pooled point is the same (no scale to take).
    Distances are computed on rescaled points (see :func:`sliced_w2`): no overflow to inf."""
    A, B = _pts(A, "A"), _pts(B, "B")
    _same_dim(A, B)
    max_points = check_int(max_points, "max_points", minimum=2)
    r = as_rng(rng)
    P = np.concatenate([A, B])
    if P.shape[0] > max_points:
        P = P[r.choice(P.shape[0], max_points, replace=False)]
    if P.shape[0] < 2:
        return 1.0
    sc = _scale(P)
    med = float(np.median(pdist(P / sc))) * sc
    return med if med > 0 else 1.0


def _gauss_gram(P, Q, h):
    """K_ij = exp(-||P_i - Q_j||^2 / (2 h^2)), evaluated as exp(-(D/h)^2/2) with D the distance
    of the rescaled points (:func:`_scale`), so that neither huge coordinates nor a tiny h gives
    inf/inf or 0/0: a finite K for every finite input, 1 on coincident points."""
    sc = _scale(P, Q)
    D = cdist(P / sc, Q / sc)
    hs = h / sc
    with np.errstate(over="ignore", under="ignore", divide="ignore"):
        if np.isfinite(hs) and hs >= np.finfo(np.float64).tiny:
            z = D / hs
        else:                                        # h/sc leaves the range: work in logs
            z = np.exp(np.log(D) - np.log(h) + np.log(sc))
        return np.exp(-0.5 * z * z)


@host_op("particles.mmd2", note="scipy.stats / scipy.spatial.distance")
def mmd2(A: Array, B: Array, bandwidth: float | None = None, wa: Array | None = None,
         wb: Array | None = None) -> float:
    """Squared MMD with k(x, y) = exp(-||x-y||^2 / (2 h^2)); h = median heuristic by default.

    Unweighted sides use the unbiased within-sample U-statistic (diagonal excluded; needs at
    least 2 points), a weighted side (e.g. grid cells with density weights wa/wb >= 0,
    normalised here) the V-statistic (1 point suffices).  bandwidth > 0 (finite); every entry
    of the kernel is in [0, 1] and computed without 0/0 (see ``_gauss_gram``), so the result
    is finite for finite input.
    """
    A = _pts(A, "A", minimum=1 if wa is not None else 2)
    B = _pts(B, "B", minimum=1 if wb is not None else 2)
    _same_dim(A, B)
    wa, wb = _weights(wa, "wa", A.shape[0]), _weights(wb, "wb", B.shape[0])
    h = median_bandwidth(A, B) if bandwidth is None else check_positive(bandwidth, "bandwidth")

    def within(P, w):
        K = _gauss_gram(P, P, h)
        if w is None:
            n = P.shape[0]
            return (K.sum() - np.trace(K)) / (n * (n - 1))
        return float(w @ K @ w)

    def mean_w(P, w):
        return np.full(P.shape[0], 1.0 / P.shape[0]) if w is None else w

    cross = mean_w(A, wa) @ _gauss_gram(A, B, h) @ mean_w(B, wb)
    return float(within(A, wa) + within(B, wb) - 2.0 * cross)


@host_op("particles.mmd2_test", note="scipy.stats / scipy.spatial.distance")
def mmd2_test(A: Array, B: Array, bandwidth: float | None = None, n_perm: int = 200,
              alpha: float = 0.05, rng: RNGLike = 0) -> dict[str, Any]:
    """Unbiased MMD^2 with a permutation test: {"mmd2", "threshold" (the 1-alpha null
    quantile), "p_value", "bandwidth"}.  ``mmd2 <= threshold`` means the two samples agree
    within their statistical error at level alpha.  A and B need at least 2 points each;
    n_perm >= 1 permutations drawn with ``rng`` (:func:`yatmath._validate.as_rng`); alpha in
    (0, 1); bandwidth > 0 or None (median heuristic)."""
    A, B = _pts(A, "A", minimum=2), _pts(B, "B", minimum=2)
    _same_dim(A, B)
    h = median_bandwidth(A, B) if bandwidth is None else check_positive(bandwidth, "bandwidth")
    n_perm = check_int(n_perm, "n_perm", minimum=1)
    alpha = _alpha(alpha)
    r = as_rng(rng)
    P = np.concatenate([A, B])
    K = _gauss_gram(P, P, h)
    np.fill_diagonal(K, 0.0)
    n, m = A.shape[0], B.shape[0]

    def stat(idx):
        ia, ib = idx[:n], idx[n:]
        return (K[np.ix_(ia, ia)].sum() / (n * (n - 1)) + K[np.ix_(ib, ib)].sum() / (m * (m - 1))
                - 2.0 * K[np.ix_(ia, ib)].sum() / (n * m))

    obs = stat(np.arange(n + m))
    null = np.array([stat(r.permutation(n + m)) for _ in range(n_perm)])
    return {"mmd2": float(obs), "threshold": float(np.quantile(null, 1 - alpha)),
            "p_value": float((1 + np.sum(null >= obs)) / (n_perm + 1)), "bandwidth": h}


@host_op("particles.energy_distance", note="scipy.stats / scipy.spatial.distance")
def energy_distance(A: Array, B: Array) -> float:
    """2 E||X - Y|| - E||X - X'|| - E||Y - Y'|| with within-sample U-statistics (A and B need
    at least 2 points each).  Computed on points rescaled by a power of two (homogeneous of
    degree 1): finite whenever the true value is."""
    A, B = _pts(A, "A", minimum=2), _pts(B, "B", minimum=2)
    _same_dim(A, B)
    sc = _scale(A, B)
    A, B = A / sc, B / sc
    n, m = A.shape[0], B.shape[0]
    with np.errstate(over="ignore"):
        return float(2.0 * cdist(A, B).mean() - 2.0 * pdist(A).sum() / (n * (n - 1))
                     - 2.0 * pdist(B).sum() / (m * (m - 1))) * sc


@host_op("particles.n_var", note="scipy.stats / scipy.spatial.distance")
def n_var(means: Array, N: int, alpha: float = 0.05) -> dict[str, Any]:
    """N Var of an observable's empirical mean (1/N) sum_k f(omega_k) over R independent runs.

    means : (R,) per-run means.  Returns {"n_var", "ci": (lo, hi)} with the chi-square(R-1)
    interval for a variance (exact for Gaussian means, a large-R approximation otherwise).
    """
    m = as_float_array(means, "means", ndim=1).astype(np.float64)
    R = m.shape[0]
    if R < 2:
        raise ValueError(f"means must hold at least 2 runs, got {R}")
    N = check_int(N, "N", minimum=1)
    alpha = _alpha(alpha)
    sc = _scale(m)
    with np.errstate(over="ignore"):
        v = float(np.var(m / sc, ddof=1)) * sc * sc
    lo = (R - 1) * v / stats.chi2.ppf(1 - alpha / 2, R - 1)
    hi = (R - 1) * v / stats.chi2.ppf(alpha / 2, R - 1)
    return {"n_var": N * v, "ci": (N * lo, N * hi), "runs": R}


@host_op("particles.fit_rate", note="scipy.stats / scipy.spatial.distance")
def fit_rate(x: Array, err: Array, alpha: float = 0.05) -> dict[str, Any]:
    """Fit err ~ C x^rate by least squares on logs: {"rate", "ci", "C", "r2"}."""
    x = as_float_array(x, "x", ndim=1).astype(np.float64)
    e = as_float_array(err, "err", ndim=1).astype(np.float64)
    if x.shape[0] < 3:
        raise ValueError(f"x must hold at least 3 points, got {x.shape[0]}")
    if x.shape != e.shape:
        raise ValueError(f"x and err must have the same length, got {x.shape[0]} and {e.shape[0]}")
    if np.any(x <= 0):
        raise ValueError("x must be > 0 (the fit is on logarithms)")
    if np.any(e <= 0):
        raise ValueError("err must be > 0 (the fit is on logarithms)")
    if np.ptp(np.log(x)) == 0:
        raise ValueError("x must hold at least two distinct values (a slope needs them)")
    alpha = _alpha(alpha)
    res = stats.linregress(np.log(x), np.log(e))
    t = _slope_t_quantile(x.shape[0], 1 - alpha)
    return {"rate": float(res.slope), "ci": (float(res.slope - t * res.stderr),
                                             float(res.slope + t * res.stderr)),
            "C": float(np.exp(res.intercept)), "r2": float(res.rvalue ** 2)}


@host_op("particles.histogram_entropy", note="scipy.stats / scipy.spatial.distance")
def histogram_entropy(W: Array, edges: Sequence[Array]) -> float:
    """int rho ln rho of the histogram density of 1-D or 2-D particles on the given bin edges
    (a list of edge arrays, one per dimension); the plug-in estimate used for free energies."""
    P = _pts(W, "W")
    if isinstance(edges, np.ndarray) and edges.ndim == 1 and P.shape[1] == 1:
        edges = [edges]
    if not isinstance(edges, (list, tuple)) or len(edges) != P.shape[1]:
        raise ValueError(f"edges must be a list of {P.shape[1]} edge arrays (one per dimension "
                         f"of W), got {type(edges).__name__} of length "
                         f"{len(edges) if hasattr(edges, '__len__') else '?'}")
    edges = [as_float_array(e, "edges", ndim=1).astype(np.float64) for e in edges]
    for e in edges:
        if e.shape[0] < 2 or not np.all(np.diff(e) > 0):
            raise ValueError(f"edges must be strictly increasing arrays of >= 2 entries, got {e}")
    H, _ = np.histogramdd(P, bins=edges)
    vol = np.ones_like(H)
    for ax, e in enumerate(edges):
        shape = [1] * H.ndim
        shape[ax] = -1
        vol = vol * np.diff(e).reshape(shape)
    rho = H / (P.shape[0] * vol)
    m = H > 0
    return float(np.sum(rho[m] * np.log(rho[m]) * vol[m]))
