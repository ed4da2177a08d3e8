"""yatmath.stats: the one statistics module of the library, the ledger, the figures, the benchmarks."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as st

from yatmath import stats


def test_loglog_slope_recovers_an_exact_power_law():
    x = np.array([2.0, 8.0, 32.0, 128.0, 512.0])
    for p in (-2.0, -0.5, 1.0, 3.0):
        # exact data: the slope is p up to the rounding of the logarithms (a few ulps)
        assert stats.loglog_slope(x, 7.0 * x ** p) == pytest.approx(p, rel=1e-13, abs=1e-13)
    with pytest.raises(ValueError, match="positive"):
        stats.loglog_slope(x, -x)
    with pytest.raises(ValueError, match="distinct"):
        stats.loglog_slope([3.0, 3.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="shape"):
        stats.loglog_slope(x, x[:3])


def test_loglog_fit_slope_is_loglog_slope():
    rng = np.random.default_rng(0)
    x = np.logspace(0, 3, 9)
    y = x ** -1.5 * np.exp(rng.normal(0, 0.1, x.size))
    fit = stats.loglog_fit(x, y, np.random.default_rng(1), n_boot=200)
    assert fit.slope == stats.loglog_slope(x, y)
    assert fit.ci[0] <= fit.slope <= fit.ci[1] and fit.level == stats.LEVEL


def test_t_halfwidth_is_the_student_t_interval_for_every_n():
    # t_{0.975, 9} = 2.2621571627982 (tables); no switch to the normal quantile at large n
    assert stats.t_halfwidth(1.0, 10) == pytest.approx(2.2621571627982 / np.sqrt(10), rel=1e-12)
    n = 400
    assert stats.t_halfwidth(2.0, n) == pytest.approx(st.t.ppf(0.975, n - 1) * 2 / np.sqrt(n),
                                                      rel=1e-15)
    assert stats.t_halfwidth(2.0, n) > st.norm.ppf(0.975) * 2 / np.sqrt(n)
    assert np.isinf(stats.t_halfwidth(1.0, 1))
    np.testing.assert_allclose(stats.t_halfwidth(np.array([1.0, 3.0]), 5, 0.9),
                               st.t.ppf(0.95, 4) * np.array([1.0, 3.0]) / np.sqrt(5), rtol=1e-15)
    with pytest.raises(ValueError, match="level"):
        stats.t_halfwidth(1.0, 5, 1.5)


def test_mean_ci_uses_t_halfwidth():
    a = np.array([1.0, 2.0, 4.0, 8.0])
    m, (lo, hi) = stats.mean_ci(a, level=0.9)
    assert m == 3.75 and hi - m == pytest.approx(st.t.ppf(0.95, 3) * a.std(ddof=1) / 2, rel=1e-15)
    assert m - lo == pytest.approx(hi - m, rel=1e-15)


def test_rel_err_names_its_norm():
    a, b = np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[1.0, 2.0], [3.0, 2.0]])
    assert stats.rel_err(a, b) == 2.0 / 3.0                       # max norm (the default)
    assert stats.rel_err(a, b, norm="fro") == pytest.approx(2.0 / np.sqrt(18.0), rel=1e-15)
    assert stats.rel_err([0.0], [0.0], norm="fro") == 0.0
    assert stats.rel_err([1.0], [0.0], norm="fro") == np.inf
    with pytest.raises(ValueError, match="norm"):
        stats.rel_err(a, b, norm="l2")


def test_the_ledger_uses_the_library_definitions():
    from proofs_check import stats as ledger_stats

    for name in ("loglog_fit", "loglog_slope", "mean_ci", "binom_ci", "rel_err", "Fit"):
        assert getattr(ledger_stats, name) is getattr(stats, name)


def test_t_upper_is_the_upper_tail_and_agrees_with_the_two_sided_quantile():
    # P(T > 2.2621571627982) = 0.025 at 9 degrees of freedom (tables), the two-sided 95% point
    assert stats.t_upper(0.025, 9) == pytest.approx(stats.t_quantile(10), rel=1e-12)
    # a Bonferroni tail far below where 1 - p rounds: isf keeps its accuracy
    assert st.t.sf(stats.t_upper(1e-18, 5), 5) == pytest.approx(1e-18, rel=1e-9)
    for bad in (0.0, 1.0, -0.1):
        with pytest.raises(ValueError, match="p must be"):
            stats.t_upper(bad, 3)
    with pytest.raises(ValueError, match="dof must be"):
        stats.t_upper(0.1, 0)


def test_t_quantile():
    assert stats.t_quantile(10) == pytest.approx(2.2621571627982, rel=1e-12)
    assert stats.t_quantile(10, 0.9) == st.t.ppf(0.95, 9)
    with pytest.raises(ValueError, match="n must be"):
        stats.t_quantile(1)
