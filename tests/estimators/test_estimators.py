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


@pytest.mark.slow
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


@pytest.mark.slow
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
    with pytest.raises(ValueError, match="K must be a non-empty square"):
        nystrom(A, 2)
    with pytest.raises(ValueError, match="K must be symmetric"):
        nystrom(np.triu(np.ones((4, 4))), 2)
    with pytest.raises(ValueError, match="sampling"):
        nystrom(np.eye(4), 2, sampling="norm")
    with pytest.raises(ValueError, match="num_landmarks"):
        nystrom(np.eye(4), 5)


# ------------------------------------------------------- numerics at extreme scales (issue 13)

def _mp_mean_se(x):
    import mpmath
    with mpmath.workdps(60):
        v = [mpmath.mpf(float(t)) for t in x]
        m = sum(v) / len(v)
        var = sum((t - m) ** 2 for t in v) / (len(v) - 1)
        return float(m), float(mpmath.sqrt(var / len(v))), float(mpmath.log10(var / len(v)))


def test_mean_estimate_standard_error_finite_near_1e200():
    # before: stderr = inf (the squares overflowed); the true value is ~5.8e198
    x = np.array([1e200, 1.1e200, 0.9e200, 1.05e200])
    est = mean_estimate(x)
    m, se, log10_var = _mp_mean_se(x)
    # two-pass mean/variance of 4 numbers: relative error a few u; 1e-14 leaves a wide margin
    assert est.estimate == pytest.approx(m, rel=1e-14)
    assert est.stderr == pytest.approx(se, rel=1e-14)
    assert log10_var > 308.3 and est.variance == np.inf  # a true overflow is inf, never NaN
    assert np.all(np.isfinite(est.ci))
    # columns are scaled separately: a column of ordinary numbers is unchanged bit for bit
    two = mean_estimate(np.column_stack([x, [1.0, 2.0, 3.0, 4.5]]))
    ref = mean_estimate(np.array([1.0, 2.0, 3.0, 4.5]))
    assert two.stderr[1] == ref.stderr and two.estimate[1] == ref.estimate


def test_discrete_variance_is_never_negative_and_has_no_cancellation(rng):
    import mpmath
    n = 40
    g = rng.uniform(1.0, 2.0, size=n)
    omega = rng.uniform(0.5, 1.0, size=n)
    q = optimal_pmf(g, omega) * (1 + 1e-7 * rng.standard_normal(n))
    q /= q.sum()
    with mpmath.workdps(60):
        a = [mpmath.mpf(float(o)) * mpmath.mpf(float(t)) for o, t in zip(omega, g)]
        qq = [mpmath.mpf(float(t)) for t in q]
        I, S = sum(a), sum(qq)
        # the variance of the estimator numpy draws: keys with probability q_j / S
        exact = float((sum(x * x / p for x, p in zip(a, qq)) / S - (I / S) ** 2) / 3)
    V = discrete_variance(g, omega, q, 3)
    # V ~ 1e-14 I^2: the difference form loses ~14 digits (measured: relative error 1e-3 to
    # 3e-2, and it can come out negative).  The sum q (a/q - I)^2 has relative error about
    # 4 u max|a/q| / sqrt(V M) ~ 1e-10 here (measured 7e-11 to 2.3e-10 over 5 seeds).
    assert V >= 0
    assert V == pytest.approx(exact, rel=2e-9)
    assert discrete_variance(g, omega, optimal_pmf(g, omega), 3) >= 0


def test_optimal_pmf_signed_and_huge_weights():
    g = np.array([1.0, 2.0, 3.0])
    q = optimal_pmf(g, np.array([-1.0, 1.0, 1.0]))
    np.testing.assert_allclose(q, np.array([1.0, 2.0, 3.0]) / 6, rtol=4e-16)   # |omega| enters
    big = optimal_pmf(1e200 * g, np.array([1e200, 1e200, 1e200]))
    np.testing.assert_allclose(big, np.array([1.0, 2.0, 3.0]) / 6, rtol=1e-15)  # was NaN/inf


@pytest.mark.parametrize("scale", [2.0 ** 996, 1e300])
def test_svd_errors_of_a_matrix_scaled_to_1e300(rng, scale):
    # The SVD of cA is c times the SVD of A.  Before: error_fro = inf (truncated) and an
    # OverflowError (randomized bounds) for c = 1e300.  With c a power of two the scaling is
    # exact and the results are c times those of A bit for bit; for c = 1e300 the rounding of
    # cA perturbs the singular values by <= sqrt(n) u ||A||_2 (Weyl).
    A, s = _test_matrix(rng, m=30, n=20)
    ref, big = truncated_svd(A, 4), truncated_svd(scale * A, 4)
    tol = 0.0 if scale == 2.0 ** 996 else 1e-13
    np.testing.assert_allclose(big.s, scale * ref.s, rtol=tol, atol=0)
    assert big.error_fro == pytest.approx(scale * ref.error_fro, rel=max(tol, 1e-12))
    assert big.error_spec == pytest.approx(scale * s[4], rel=1e-12)
    rr, rb = randomized_svd(A, 4, rng=0), randomized_svd(scale * A, 4, rng=0)
    for key in rr.bounds:
        assert rb.bounds[key] == pytest.approx(scale * rr.bounds[key], rel=1e-10), key
    assert rb.error_spec == pytest.approx(scale * rr.error_spec, rel=1e-8)


def test_nystrom_scaled_psd_matrix_and_indefinite_refused(rng):
    X = rng.standard_normal((20, 3))
    K = gram(X, None, 1.0, bias=1.0)
    ref, big = nystrom(K, 5, rng=1), nystrom(2.0 ** 1000 * K, 5, rng=1)
    np.testing.assert_array_equal(big.s, 2.0 ** 1000 * ref.s)
    assert big.info["error_trace"] == 2.0 ** 1000 * ref.info["error_trace"]
    with pytest.raises(ValueError, match="K must be positive semidefinite"):
        nystrom(K - 2 * np.eye(20) * np.linalg.eigvalsh(K).max(), 5)


def test_discrete_input_checks_name_the_argument():
    with pytest.raises(ValueError, match="pmf must be > 0 wherever"):
        discrete_variance(np.ones(3), np.ones(3), np.array([0.0, 0.5, 0.5]), 2)
    with pytest.raises(ValueError, match="omega is 0 at key 0"):
        density_from_pmf(np.array([0.5, 0.5]), np.array([0.0, 1.0]))
    np.testing.assert_array_equal(density_from_pmf(np.array([0.0, 1.0]), np.array([0.0, 0.5])),
                                  [0.0, 2.0])
