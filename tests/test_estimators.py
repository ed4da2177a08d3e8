"""Monte Carlo estimators (unbiasedness, CIs, factor-n trap, optimal pmf, QMC) and low-rank
approximations (Eckart-Young, randomized-SVD bounds, Nystrom floors)."""
from __future__ import annotations

import numpy as np
import pytest

from yatmath.estimators import (density_from_pmf, discrete_variance, integrate_continuous,
                                integrate_discrete, integrate_qmc, mean_estimate, nystrom,
                                optimal_pmf, randomized_svd, truncated_svd)
from yatmath.yat import gram


def test_continuous_importance_sampling_ci_covers(rng):
    # int_0^inf x^2 e^{-x} dx = 2 with proposal Exp(rate 1/2) (density w.r.t. Lebesgue)
    hits = 0
    for s in range(200):
        est = integrate_continuous(lambda x: x ** 2 * np.exp(-x),
                                   lambda M, g: g.exponential(2.0, size=M),
                                   lambda x: 0.5 * np.exp(-0.5 * x), 400, rng=s)
        hits += est.ci[0] <= 2.0 <= est.ci[1]
    # 95% intervals: coverage over 200 runs is 190 +- 3.1 (binomial sd); allow 4 sd
    assert abs(hits - 190) <= 13


def test_discrete_measure_factor_n_trap(rng):
    # mu = empirical measure (1/n) sum delta_j: I = mean_j g_j.  With pmf q, the density w.r.t.
    # mu is n q; using g/q (pmf read as density) is n times too large.
    n = 50
    g = rng.uniform(0.5, 2.0, size=n)
    omega = np.full(n, 1.0 / n)
    q = rng.dirichlet(np.ones(n))
    exact = g.mean()
    est_pmf = integrate_discrete(g, omega, 20000, pmf=q, rng=1)
    est_den = integrate_discrete(g, omega, 20000, density=density_from_pmf(q, omega), rng=1)
    assert est_pmf.estimate == est_den.estimate                 # same draws, same weights
    assert abs(est_pmf.estimate - exact) <= 4.5 * est_pmf.stderr
    # the trap: averaging g/q (no omega) estimates sum_j g_j = n * I
    idx = np.random.default_rng(1).choice(n, size=20000, p=q)
    trap = np.mean(g[idx] / q[idx])
    assert trap / exact == pytest.approx(n, rel=0.05)
    with pytest.raises(ValueError, match="exactly one of pmf"):
        integrate_discrete(g, omega, 10, pmf=q, density=q)
    with pytest.raises(ValueError, match="density \\* omega"):
        integrate_discrete(g, omega, 10, density=q)      # a pmf passed as a density


def test_discrete_variance_formula_and_optimal_pmf(rng):
    n = 30
    G = rng.standard_normal((n, 3))
    omega = rng.uniform(0.1, 1.0, size=n)
    q = rng.dirichlet(np.ones(n))
    M = 50
    ests = np.array([integrate_discrete(G, omega, M, pmf=q, rng=s).estimate
                     for s in range(2000)])
    measured = ests.var(0, ddof=1).sum()
    assert measured == pytest.approx(discrete_variance(G, omega, q, M), rel=0.1)
    qs = optimal_pmf(G, omega)
    I = (omega[:, None] * G).sum(0)
    vstar = ((omega * np.linalg.norm(G, axis=1)).sum() ** 2 - I @ I) / M
    assert discrete_variance(G, omega, qs, M) == pytest.approx(vstar, rel=1e-12)
    for s in range(20):   # no other pmf does better
        assert discrete_variance(G, omega, rng.dirichlet(np.ones(n)), M) >= vstar
    # one-signed scalar integrand: the optimal pmf has zero variance
    gpos = rng.uniform(1, 2, size=n)
    est = integrate_discrete(gpos, omega, 5, pmf=optimal_pmf(gpos, omega), rng=0)
    assert est.estimate == pytest.approx((omega * gpos).sum(), rel=1e-12)


def test_mean_estimate_unbiased_over_seeds():
    g = np.random.default_rng(0)
    means = np.array([mean_estimate(g.exponential(1.0, size=100)).estimate for _ in range(400)])
    se = means.std(ddof=1) / np.sqrt(400)
    assert abs(means.mean() - 1.0) <= 4.5 * se
    with pytest.raises(ValueError, match="samples"):
        mean_estimate([1.0])
    with pytest.raises(ValueError, match="confidence"):
        mean_estimate([1.0, 2.0], confidence=1.5)


def test_qmc_beats_mc_on_smooth_integrand():
    d = 3
    f = lambda u: np.prod(1 + 0.5 * np.cos(2 * np.pi * u) + u - 0.5, axis=1)  # noqa: E731
    exact = 1.0
    err = {}
    for method in ("mc", "sobol"):
        est = integrate_qmc(f, d, 1024, method=method, randomizations=16, rng=3)
        assert est.ci[0] <= exact + 1e-12 and est.ci[1] >= exact - 1e-12 or \
            abs(est.estimate - exact) <= 4.5 * est.stderr
        err[method] = est.stderr
    # randomised Sobol at M = 1024: the replicate spread is far below plain MC's
    assert err["sobol"] < err["mc"] / 5


def _test_matrix(rng, m=80, n=60, decay=0.8):
    U, _ = np.linalg.qr(rng.standard_normal((m, n)))
    V, _ = np.linalg.qr(rng.standard_normal((n, n)))
    s = decay ** np.arange(n)
    return (U * s) @ V.T, s


def test_truncated_svd_eckart_young(rng):
    A, s = _test_matrix(rng)
    r = 10
    res = truncated_svd(A, r)
    tol = 1e-12 * s[0] * np.sqrt(60)
    assert res.error_spec == pytest.approx(s[r], abs=tol)
    assert res.error_fro == pytest.approx(np.sqrt((s[r:] ** 2).sum()), abs=tol)
    np.testing.assert_allclose(res.bounds["fro_optimal"], res.error_fro, atol=tol)


def test_randomized_svd_within_bounds(rng):
    A, s = _test_matrix(rng, decay=0.9)
    r = 10
    for q in (0, 1, 2):
        errs = [randomized_svd(A, r, oversample=5, power_iters=q, rng=t) for t in range(20)]
        mean_proj = np.mean([e.info["proj_error_spec"] for e in errs])
        assert mean_proj <= errs[0].bounds["proj_spec_expected"]
        for e in errs:
            assert e.error_spec <= e.bounds["rank_r_spec"] * (1 + 1e-10)
            assert e.error_spec >= s[r] * (1 - 1e-10)            # never beats Eckart-Young
        if q == 0:
            mean_fro = np.mean([e.info["proj_error_fro"] for e in errs])
            assert mean_fro <= errs[0].bounds["proj_fro_expected"]
    # power iterations bring the rank-r error to the optimum
    best = randomized_svd(A, r, oversample=10, power_iters=4, rng=0)
    assert best.error_spec <= 1.01 * s[r]


def test_nystrom_errors_and_floors(rng):
    X = rng.standard_normal((120, 3))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    K = gram(X, X, eps=1.0, bias=1.0)       # PSD: inner-biased Yat kernel on the sphere
    K = (K + K.T) / 2
    for sampling in ("uniform", "leverage"):
        res = nystrom(K, 30, sampling=sampling, rng=2)
        lam = np.linalg.eigvalsh(K)[::-1]
        assert res.info["min_eig_residual"] >= -1e-9 * lam[0]       # K - K_hat is PSD
        assert res.info["error_trace"] >= res.bounds["trace_floor"] * (1 - 1e-9)
        assert res.error_spec >= res.bounds["spec_floor"] * (1 - 1e-9)
    # more landmarks, smaller error
    e = [np.mean([nystrom(K, m, rng=s).info["error_trace"] for s in range(5)]) for m in (10, 40)]
    assert e[1] < e[0] / 2


def test_nystrom_leverage_beats_uniform_on_coherent_matrix(rng):
    # a matrix whose top eigenvectors live on a few coordinates (high coherence)
    n = 100
    B = rng.standard_normal((n, 5)) * 0.05
    B[:5] += 10 * np.eye(5)
    K = B @ B.T + 1e-6 * np.eye(n)
    e_u = np.mean([nystrom(K, 8, sampling="uniform", rng=s).info["error_trace"]
                   for s in range(10)])
    e_l = np.mean([nystrom(K, 8, sampling="leverage", rank=5, rng=s).info["error_trace"]
                   for s in range(10)])
    assert e_l < 0.1 * e_u


def test_lowrank_bad_inputs(rng):
    A = rng.standard_normal((5, 4))
    with pytest.raises(ValueError, match="rank"):
        truncated_svd(A, 5)
    with pytest.raises(ValueError, match="oversample"):
        randomized_svd(A, 2, oversample=1)
    with pytest.raises(ValueError, match="K must be a symmetric"):
        nystrom(A, 2)
    with pytest.raises(ValueError, match="sampling"):
        nystrom(np.eye(4), 2, sampling="norm")
    with pytest.raises(ValueError, match="num_landmarks"):
        nystrom(np.eye(4), 5)
