"""Quadrature rules and measures of yatmath.itnet (algorithms.md I1)."""
import numpy as np
import pytest

from yatmath import itnet as it


def _order(rule, f, F, ns, a=0.0, b=1.0):
    errs = [abs(it.interval_rule(rule, n, a, b).integrate(f(it.interval_rule(rule, n, a, b).nodes[:, 0])) - F)
            for n in ns]
    return np.polyfit(np.log(ns), np.log(errs), 1)[0], errs


@pytest.mark.parametrize("rule,order", [("left", 1), ("midpoint", 2), ("trapezoid", 2)])
def test_convergence_order_smooth_integrand(rule, order):
    # int_0^1 exp(x) dx = e - 1; the fitted log-log slope must be -order within 0.1
    slope, _ = _order(rule, np.exp, np.e - 1, [16, 32, 64, 128, 256])
    assert abs(slope + order) < 0.1


def test_gauss_legendre_spectral_and_exact_for_polynomials():
    # n-point Gauss is exact for degree 2n - 1: x^7 with n = 4 on [-1, 2]
    m = it.interval_rule("gauss", 4, -1.0, 2.0)
    assert m.integrate(m.nodes[:, 0] ** 7) == pytest.approx((2.0 ** 8 - 1.0) / 8, rel=1e-13)
    errs = [abs(it.interval_rule("gauss", n).integrate(np.exp(it.interval_rule("gauss", n).nodes[:, 0]))
                - (np.e - 1)) for n in (2, 4, 6, 8)]
    assert errs[-1] < 1e-13 and errs[1] < 1e-6  # faster than any power


def test_2d_tensor_midpoint_order_and_normalisation():
    # (the leading midpoint errors of sin(x) e^y cancel exactly, so use e^(x + 2y))
    f = lambda X: np.exp(X[:, 0] + 2 * X[:, 1])  # noqa: E731
    exact = (np.e - 1) * (np.e ** 2 - 1) / 2
    errs = [abs(it.grid_rule("midpoint", (n, n)).integrate(f(it.grid_rule("midpoint", (n, n)).nodes)) - exact)
            for n in (8, 16, 32)]
    assert abs(np.polyfit(np.log([8, 16, 32]), np.log(errs), 1)[0] + 2) < 0.1
    m = it.grid_rule("trapezoid", (4, 5), lo=(0, 0), hi=(2, 3), normalised=True)
    assert m.total == pytest.approx(1.0, rel=1e-14) and m.n == 5 * 6


def test_weights_integrate_constants_and_uniform():
    for rule in ("left", "midpoint", "trapezoid", "gauss"):
        assert it.interval_rule(rule, 7, 1.0, 4.0).total == pytest.approx(3.0, rel=1e-14)
        assert it.interval_rule(rule, 7, 1.0, 4.0, normalised=True).total == pytest.approx(1.0, rel=1e-14)
    mu = it.discrete_uniform(np.arange(5.0))
    assert np.all(mu.weights == 0.2) and mu.nodes.shape == (5, 1)


def test_causal_mask_diag_weight():
    for dw in (1.0, 0.5, 0.0):
        m = it.causal_mask(4, diag_weight=dw)
        assert np.all(np.diag(m) == dw) and np.all(np.triu(m, 1) == 0) and np.all(m[np.tril_indices(4, -1)] == 1)
    # offsets: tile (rows 2-3, cols 1-3)
    assert np.array_equal(it.causal_mask(2, 3, 0.5, q0=2, k0=1), np.array([[1, 0.5, 0], [1, 1, 0.5]]))


def test_bad_inputs_name_argument():
    with pytest.raises(ValueError, match="rule"):
        it.interval_rule("simpson", 4)
    with pytest.raises(ValueError, match="a < b"):
        it.interval_rule("left", 4, 1.0, 0.0)
    with pytest.raises(ValueError, match="n must be"):
        it.interval_rule("left", 0)
    with pytest.raises(ValueError, match="diag_weight"):
        it.causal_mask(3, diag_weight=0.3)
    with pytest.raises(ValueError, match="weights"):
        it.Measure(np.zeros((3, 1)), np.ones(2))
