"""Importance-weighted Monte Carlo (I7) with variance estimates and confidence intervals.

Continuous measure mu: with y_m ~ p d mu (p a density *with respect to mu*),
    I = int g d mu,   I_hat = (1/M) sum_m g(y_m) / p(y_m),   E I_hat = I.
Discrete measure mu = sum_j omega_j delta_j: with keys j_m ~ q (a probability mass function,
sum q = 1),
    I_hat = (1/M) sum_m omega_{j_m} g(j_m) / q_{j_m}.
The density of q with respect to mu is p_j = q_j / omega_j; dividing by q without omega (the
"pmf reading") is the classic factor trap: for the empirical measure omega_j = 1/n it is n times
too large.  ``integrate_discrete`` takes exactly one of ``pmf=`` or ``density=``.

Exact variance of the discrete estimator (trace over the components of g):
    V(q) = (1/M) (sum_j omega_j^2 ||g_j||^2 / q_j - ||I||^2),
minimised by q*_j = omega_j ||g_j|| / sum_k omega_k ||g_k||, V* = (1/M)((sum omega ||g||)^2 - ||I||^2)
(zero for a one-signed scalar g).  ``MCEstimate`` carries the sample-variance estimate of
Var(I_hat), its standard error and a normal-theory 95% interval (Student-t for M < 30).

Randomised quasi-Monte Carlo (``integrate_qmc``): R independent scramblings of a Sobol or
Halton point set on [0,1]^d; the R replicate means are i.i.d. and unbiased, so their mean and
t-interval are exact in the same sense; the error typically decays like M^{-1} (log M)^d
instead of M^{-1/2} for smooth integrands (measured in the tests).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from .._validate import as_float_array, check_choice
from ..features._common import as_generator, check_pos_int

__all__ = ["MCEstimate", "mean_estimate", "integrate_continuous", "integrate_discrete",
           "discrete_variance", "optimal_pmf", "density_from_pmf", "integrate_qmc"]


@dataclass
class MCEstimate:
    estimate: np.ndarray | float
    variance: np.ndarray | float      # estimated Var(estimate)
    stderr: np.ndarray | float
    ci: tuple                         # (low, high) at ``confidence``
    n: int
    confidence: float = 0.95


def mean_estimate(samples, confidence: float = 0.95) -> MCEstimate:
    """Mean of i.i.d. samples (axis 0) with its estimated variance and a confidence interval."""
    x = as_float_array(samples, "samples", ndim=(1, 2))
    M = x.shape[0]
    if M < 2:
        raise ValueError(f"samples needs at least 2 rows for a variance, got {M}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    m = x.mean(0)
    var = x.var(0, ddof=1) / M
    se = np.sqrt(var)
    z = stats.t.ppf(0.5 + confidence / 2, M - 1) if M < 30 else stats.norm.ppf(
        0.5 + confidence / 2)
    return MCEstimate(m, var, se, (m - z * se, m + z * se), M, confidence)


def integrate_continuous(g, sample, density, num_samples, *, rng=None, confidence=0.95):
    """I = int g d mu from y ~ p d mu: ``sample(M, rng)`` draws y, ``density(y)`` is p w.r.t. mu."""
    M = check_pos_int(num_samples, "num_samples", minimum=2)
    gen = as_generator(rng)
    y = sample(M, gen)
    p = np.asarray(density(y), dtype=np.float64)
    if np.any(p <= 0):
        raise ValueError("density must be > 0 at every sampled point")
    vals = np.asarray(g(y), dtype=np.float64)
    w = vals / (p if vals.ndim == 1 else p[:, None])
    return mean_estimate(w, confidence)


def density_from_pmf(pmf, omega):
    """p_j = q_j / omega_j: the density w.r.t. mu = sum omega_j delta_j of the pmf q."""
    return np.asarray(pmf, dtype=np.float64) / np.asarray(omega, dtype=np.float64)


def _check_pmf(q, n, name):
    q = as_float_array(q, name, ndim=1)
    if q.shape[0] != n:
        raise ValueError(f"{name} must have length {n} (one per key), got {q.shape[0]}")
    if np.any(q < 0) or abs(q.sum() - 1) > 1e-9:
        raise ValueError(f"{name} must be non-negative and sum to 1, got sum {q.sum()!r}")
    return q


def integrate_discrete(g, omega, num_samples, *, pmf=None, density=None, rng=None,
                       confidence=0.95):
    """I = sum_j omega_j g_j from M keys drawn with replacement.

    g : (n,) or (n, k) values; omega : (n,) measure weights (>= 0);
    pmf : q_j (sum 1), or density : p_j = q_j / omega_j w.r.t. mu (exactly one of the two).
    Keys with g != 0 and omega > 0 must have q > 0 (else the estimate would be biased).
    """
    G = as_float_array(g, "g", ndim=(1, 2))
    n = G.shape[0]
    omega = as_float_array(omega, "omega", ndim=1)
    if omega.shape[0] != n or np.any(omega < 0):
        raise ValueError(f"omega must be {n} non-negative weights, got shape {omega.shape}")
    if (pmf is None) == (density is None):
        raise ValueError("pass exactly one of pmf= (a probability mass function) or density= "
                         "(the density q_j / omega_j with respect to the measure)")
    if pmf is None:
        p = as_float_array(density, "density", ndim=1)
        q = _check_pmf(p * omega, n, "density * omega")
    else:
        q = _check_pmf(pmf, n, "pmf")
    need = (omega > 0) & (np.abs(G).reshape(n, -1).sum(1) > 0)
    if np.any(q[need] == 0):
        raise ValueError("pmf must be > 0 wherever omega * g != 0")
    M = check_pos_int(num_samples, "num_samples", minimum=2)
    idx = as_generator(rng).choice(n, size=M, p=q)
    wts = omega[idx] / q[idx]
    vals = G[idx] * (wts if G.ndim == 1 else wts[:, None])
    return mean_estimate(vals, confidence)


def discrete_variance(g, omega, pmf, num_samples):
    """Exact trace variance V(q) = (1/M)(sum omega^2 ||g||^2 / q - ||I||^2)."""
    G = np.asarray(g, dtype=np.float64).reshape(len(omega), -1)
    omega = np.asarray(omega, dtype=np.float64)
    q = np.asarray(pmf, dtype=np.float64)
    I = (omega[:, None] * G).sum(0)
    nz = q > 0
    return float(((omega[nz] ** 2) * (G[nz] ** 2).sum(1) / q[nz]).sum() - I @ I) / num_samples


def optimal_pmf(g, omega):
    """The variance-optimal pmf q*_j proportional to omega_j ||g_j||."""
    G = np.asarray(g, dtype=np.float64).reshape(len(omega), -1)
    s = np.asarray(omega, dtype=np.float64) * np.linalg.norm(G, axis=1)
    if s.sum() <= 0:
        raise ValueError("g and omega give a zero integrand: no optimal pmf")
    return s / s.sum()


def integrate_qmc(f, d, num_samples, *, rng=None, method="sobol", randomizations=8,
                  confidence=0.95):
    """Randomised QMC for int_{[0,1]^d} f(u) du (f maps (M, d) points to (M,) values)."""
    check_choice(method, "method", ("sobol", "halton", "mc"))
    d = check_pos_int(d, "d")
    M = check_pos_int(num_samples, "num_samples")
    R = check_pos_int(randomizations, "randomizations", minimum=2)
    gen = as_generator(rng)
    reps = []
    for _ in range(R):
        if method == "mc":
            u = gen.random((M, d))
        else:
            eng = (stats.qmc.Sobol if method == "sobol" else stats.qmc.Halton)(
                d, scramble=True, seed=gen)
            u = eng.random(M)
        reps.append(np.mean(np.asarray(f(u), dtype=np.float64)))
    return mean_estimate(np.array(reps), confidence)
