"""Random features and estimators against yatmath.testing.properties, on every backend that runs
here (the features and estimators have one registered row each, the generic reference), and one
deliberately broken implementation per property.

Statistical tests: seeded, at the level alpha each property states (default 1e-6 per call,
Bonferroni over the entries), so a correct implementation fails a fresh seed with probability
<= alpha per call; with the ``ci`` profile's fixed seeds the outcome is deterministic.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from yatmath import estimators as es
from yatmath import features as fe
from yatmath.testing import properties as P
from yatmath.testing import strategies as S

from tests.property_support import backends, examples, raises_property, search_counterexample

GAMMA = 0.7


@pytest.mark.parametrize("op", ["features.rff", "features.yat_features", "features.positive_features",
                                "estimators.truncated_svd", "estimators.randomized_svd",
                                "estimators.nystrom"])
def test_the_reference_is_the_only_backend(op):
    """These operations take no ``backend``: the properties below cover every backend only
    while the reference is each one's single row."""
    assert backends(op) == ["reference"]


# ---------------------------------------------------------------- unbiasedness
def gaussian(X, Y):
    return fe.gaussian_kernel(X, Y, GAMMA)


@pytest.mark.parametrize("form,orthogonal", [("phase", False), ("sincos", False), ("phase", True)])
@examples(0.5)
@given(xy=S.feature_inputs())
def test_rff_is_unbiased(form, orthogonal, xy):
    X, Y = xy
    d = X.shape[1]
    P.feature_kernel_unbiased(
        lambda seed: fe.rff(d, 32, gamma=GAMMA, form=form, orthogonal=orthogonal, rng=seed),
        gaussian, X, Y, replicates=200)


@examples(0.3)
@given(xy=S.feature_inputs(max_n=3), eps=st.sampled_from([0.3, 1.0, 3.0]),
       bias=st.sampled_from([0.0, 1.0]))
def test_yat_features_laplace_mc_is_unbiased(xy, eps, bias):
    X, Y = xy
    d = X.shape[1]
    ref = fe.yat_features(d, 4, eps=eps, bias=bias, method="laplace_mc", rng=0)
    P.feature_kernel_unbiased(
        lambda seed: fe.yat_features(d, 32, eps=eps, bias=bias, method="laplace_mc", rng=seed),
        ref.kernel, X, Y, replicates=150)


@examples(0.3)
@given(xy=S.feature_inputs(max_n=3))
def test_favor_plus_is_unbiased(xy):
    """FAVOR+'s estimate is log-normal-like with relative sd sqrt((e^{|q+k|^2} - 1)/M): norms
    are capped at 1/2 (|q + k|^2 <= 1) so that 200 replicates meet Cochran's rule and the t
    quantile judges them (at |k| ~ 2.4 the sample skewness reaches ~3: Cochran would need
    R > 250 and the property falls back to Chebyshev's much wider interval)."""
    X, Y = (A * min(1.0, 0.5 / max(np.linalg.norm(A, axis=1).max(), 1e-300)) for A in xy)
    d = X.shape[1]
    P.feature_kernel_unbiased(lambda seed: fe.favor_plus(d, 32, rng=seed),
                              lambda A, B: np.exp(A @ B.T), X, Y, replicates=200)


class _RFFWrongScale:
    """R1 with omega ~ N(0, gamma I) instead of N(0, 2 gamma I): estimates exp(-gamma/2 |x-y|^2)."""

    def __init__(self, d, F, seed):
        g = np.random.default_rng(seed)
        self.W = g.standard_normal((F, d)) * np.sqrt(GAMMA)
        self.b = g.uniform(0, 2 * np.pi, F)

    def __call__(self, X):
        return np.sqrt(2.0 / self.W.shape[0]) * np.cos(X @ self.W.T + self.b)


def test_broken_rff_is_caught_by_unbiasedness():
    case = search_counterexample(S.feature_inputs(), lambda xy: raises_property(
        "features.kernel_unbiased", P.feature_kernel_unbiased,
        lambda seed: _RFFWrongScale(xy[0].shape[1], 32, seed), gaussian, *xy, replicates=100),
        max_examples=50)
    assert case is not None


# ---------------------------------------------------------------- variance ~ 1/F
@pytest.mark.parametrize("form", ["phase", "sincos"])
@examples(0.3)
@given(xy=S.feature_inputs(max_n=3))
def test_rff_variance_decreases_like_one_over_F(form, xy):
    X, Y = xy
    d = X.shape[1]
    P.feature_variance_one_over_F(lambda F, seed: fe.rff(d, F, gamma=GAMMA, form=form, rng=seed),
                                  X, Y, features=(8, 128), replicates=200)


@examples(0.2)
@given(xy=S.feature_inputs(max_n=2))
def test_yat_features_variance_decreases_like_one_over_F(xy):
    X, Y = xy
    d = X.shape[1]
    P.feature_variance_one_over_F(
        lambda F, seed: fe.yat_features(d, F, eps=1.0, bias=1.0, method="laplace_mc", rng=seed),
        X, Y, features=(8, 128), replicates=150)


class _RFFOneFrequency(_RFFWrongScale):
    """One frequency and phase repeated F times: unbiased, but its variance never shrinks."""

    def __init__(self, d, F, seed):
        g = np.random.default_rng(seed)
        self.W = np.repeat(g.standard_normal((1, d)) * np.sqrt(2 * GAMMA), F, axis=0)
        self.b = np.repeat(g.uniform(0, 2 * np.pi, 1), F)


def test_broken_rff_is_caught_by_the_variance_rate():
    case = search_counterexample(S.feature_inputs(max_n=2), lambda xy: raises_property(
        "features.variance_one_over_F", P.feature_variance_one_over_F,
        lambda F, seed: _RFFOneFrequency(xy[0].shape[1], F, seed), *xy, replicates=100),
        max_examples=20)
    assert case is not None


# ---------------------------------------------------------------- truncated and randomized SVD
@examples(3)
@given(case=S.lowrank_matrices())
def test_truncated_svd_is_eckart_young_optimal(case):
    A, r = case
    P.truncated_svd_optimal(es.truncated_svd, A, r)


def _svd_skipping_the_top(A, r):
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    return (U[:, 1:r + 1] * s[1:r + 1]) @ Vt[1:r + 1]      # off by one: drops sigma_1


def test_broken_truncated_svd_is_caught():
    case = search_counterexample(S.lowrank_matrices(), lambda c: raises_property(
        "lowrank.truncated_svd_optimal", P.truncated_svd_optimal, _svd_skipping_the_top, *c))
    assert case is not None


@pytest.mark.parametrize("power_iters", [0, 2])
@examples(2)
@given(case=S.lowrank_matrices())
def test_randomized_svd_near_optimal(power_iters, case):
    A, r = case
    P.randomized_svd_near_optimal(
        lambda A, r, seed: es.randomized_svd(A, r, oversample=10, power_iters=power_iters,
                                             rng=seed),
        A, r, oversample=10, power_iters=power_iters, runs=3)


def _rsvd_without_A_in_the_range_finder(A, r, seed):
    g = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(g.standard_normal((A.shape[0], min(r + 10, min(A.shape)))))
    Ub, s, Vt = np.linalg.svd(Q.T @ A, full_matrices=False)
    return ((Q @ Ub[:, :r]) * s[:r]) @ Vt[:r]


def test_broken_randomized_svd_is_caught():
    case = search_counterexample(S.lowrank_matrices(), lambda c: raises_property(
        "lowrank.randomized_svd_near_optimal", P.randomized_svd_near_optimal,
        _rsvd_without_A_in_the_range_finder, *c, runs=3))
    assert case is not None


# ---------------------------------------------------------------- Nystrom
@pytest.mark.parametrize("sampling", ["uniform", "leverage"])
@examples(2)
@given(case=S.psd_matrices(), seed=st.integers(0, 3))
def test_nystrom_bounds(sampling, case, seed):
    K, m = case
    P.nystrom_bounds(lambda K, m, s: es.nystrom(K, m, sampling=sampling, rng=s), K, m, seed)


@examples(2)
@given(n=st.integers(4, 30), r=st.integers(1, 4), extra=st.integers(0, 4), seed=st.integers(0, 2 ** 16))
def test_nystrom_exact_at_low_rank(n, r, extra, seed):
    rng = np.random.default_rng(seed)
    m = min(n, r + extra)
    B = rng.standard_normal((n, r)) * 10.0 ** rng.integers(-20, 20)
    P.nystrom_exact_at_low_rank(lambda K, m, s: es.nystrom(K, m, rng=s), B, m, seed)


def _nystrom_without_pinv(K, m, seed):
    S = np.random.default_rng(seed).choice(K.shape[0], m, replace=False)
    C = K[:, S]
    return C @ K[np.ix_(S, S)] @ C.T, S                       # C W C^T: W^+ forgotten


def test_broken_nystrom_is_caught():
    case = search_counterexample(S.psd_matrices(), lambda c: raises_property(
        "lowrank.nystrom_bounds", P.nystrom_bounds, _nystrom_without_pinv, *c))
    assert case is not None


# ---------------------------------------------------------------- importance-weighted Monte Carlo
@st.composite
def discrete_integrals(draw):
    """(g (n, k), omega (n,), q (n,), M): values at magnitudes 10^[-3, 3], weights >= 0, a
    proposal mixed with the uniform pmf so that R M min q >= 20 for R = 200 replicates (every
    key is seen ~20 times: the t-test's level needs it, property docstring)."""
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 16)))
    n, k = draw(st.integers(1, 15)), draw(st.integers(1, 3))
    M = draw(st.integers(2, 8))
    g = rng.standard_normal((n, k)) * 10.0 ** rng.integers(-3, 4, (n, 1))
    omega = rng.uniform(0, 2, n) * (rng.random(n) > 0.2)
    mix = min(1.0, 20 * n / (200 * M))
    q = (1 - mix) * rng.dirichlet(np.ones(n)) + mix / n
    return g, omega, q / q.sum(), M


@pytest.mark.parametrize("op", ["estimators.integrate_discrete"])
@examples(1)
@given(case=discrete_integrals())
def test_importance_weighted_monte_carlo_is_unbiased(op, case):
    """E[(1/M) sum_m omega_j g_j / q_j] = sum_j omega_j g_j (I7; estimators/montecarlo.py)."""
    assert backends(op) == ["reference"]
    g, omega, q, M = case
    exact = omega @ g
    # rounding of the mean: each estimate sums M terms omega_j g_j / q_j (M + 8 roundings of at
    # most max_j |omega_j g_j| / q_j each, the weights included), the mean of R more
    top = (np.abs(omega)[:, None] * np.abs(g) / q[:, None]).max(0)
    P.check_unbiased(lambda r: es.integrate_discrete(g, omega, M, pmf=q, rng=r).estimate, exact,
                     replicates=200, rounding=(M + 8 + 200) * 2.0 ** -53 * top)


def _integrate_discrete_without_omega(g, omega, M, q, seed):
    """The 'pmf reading': weights 1/(M q_j) with omega_j forgotten."""
    return es.integrate_discrete(g, np.ones(len(omega)), M, pmf=q, rng=seed).estimate


def test_broken_monte_carlo_estimator_is_caught():
    case = search_counterexample(discrete_integrals(), lambda c: raises_property(
        "estimator.unbiased", P.check_unbiased,
        lambda r: _integrate_discrete_without_omega(c[0], c[1], c[3], c[2], r), c[1] @ c[0],
        replicates=100))
    assert case is not None


# ---------------------------------------------------------------- importance sampling
@pytest.mark.parametrize("op", ["estimators.optimal_pmf", "estimators.discrete_variance"])
def test_importance_operations_have_the_reference_only(op):
    assert backends(op) == ["reference"]


@examples(1)
@given(case=S.importance_problems(), seed=st.integers(0, 2 ** 16))
def test_optimal_proposal_has_the_least_variance(case, seed):
    """q* = optimal_pmf against discrete_variance: the closed form (S^2 - ||I||^2)/M (zero for a
    one-signed scalar integrand) and no smaller variance for the strategy's proposal, the
    uniform pmf and three random pmfs (Dirichlet, some nearly degenerate)."""
    g, omega, q, M = case
    n = len(omega)
    rng = np.random.default_rng(seed)
    live = omega * np.abs(g).sum(1) != 0
    others = [q, np.full(n, 1.0 / n)] + [rng.dirichlet(np.full(n, c)) for c in (0.1, 1.0, 10.0)]
    others = [p for p in others if np.all(p[live] > 0)]
    P.importance_optimal_proposal(es.optimal_pmf, es.discrete_variance, g, omega, M, others)


@examples(0.3)
@given(case=S.importance_problems(), optimal=st.booleans())
def test_importance_estimator_variance_matches_the_formula(case, optimal):
    """integrate_discrete's spread over R = 300 seeded replicates against V_c(q); with q = q*
    (where R M min q* >= 20, or the integrand is one-signed and scalar: V = 0, every replicate
    equals I) the zero/minimal-variance proposal itself."""
    g, omega, q, M = case
    live = omega * np.abs(g).sum(1) != 0
    if optimal:
        qs = es.optimal_pmf(g, omega)
        one_signed = g.shape[1] == 1 and (np.all(g >= 0) or np.all(g <= 0))
        if one_signed or 300 * M * qs[live].min() >= 20:
            q = qs
    P.importance_variance_matches(
        lambda r: es.integrate_discrete(g, omega, M, pmf=q, rng=r).estimate, g, omega, q, M,
        replicates=300)


def _optimal_pmf_without_omega(g, omega):
    """q ~ ||g_j||: the measure weights forgotten (optimal only for uniform omega)."""
    g = np.asarray(g, np.float64).reshape(len(omega), -1)
    s = np.sqrt((g * g).sum(1))
    return s / s.sum()


def _estimator_one_draw(g, omega, M, q, seed):
    """One key drawn and used M times (size=1 where size=M belongs): unbiased, M x the variance."""
    g = np.asarray(g, np.float64).reshape(len(omega), -1)
    j = np.random.default_rng(seed).choice(len(q), size=1, p=q)
    vals = np.repeat(omega[j, None] * g[j] / q[j, None], M, axis=0)
    return vals.mean(0)


def test_broken_optimal_proposal_is_caught():
    case = search_counterexample(S.importance_problems(), lambda c: raises_property(
        "estimator.optimal_proposal", P.importance_optimal_proposal, _optimal_pmf_without_omega,
        es.discrete_variance, c[0], c[1], c[3], [c[2]]))
    assert case is not None


def test_broken_estimator_is_caught_by_its_variance():
    case = search_counterexample(S.importance_problems(), lambda c: raises_property(
        "estimator.variance_matches", P.importance_variance_matches,
        lambda r: _estimator_one_draw(c[0], c[1], c[3], c[2], r), c[0], c[1], c[2], c[3]),
        max_examples=20)
    assert case is not None
