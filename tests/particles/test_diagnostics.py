"""Distances, fluctuation variance and rate fits (yatmath.particles.diagnostics)."""
import numpy as np
import pytest

from yatmath.particles import (energy_distance, fit_rate, mmd2, mmd2_test, n_var, sliced_w2,
                               w1_1d)


def test_w1_and_sliced_w2_one_d(rng):
    a, b = rng.standard_normal(300), rng.standard_normal(300) + 0.5
    assert w1_1d(a, b) == pytest.approx(np.mean(np.abs(np.sort(a) - np.sort(b))), rel=1e-12)
    assert sliced_w2(a, b) == pytest.approx(np.mean((np.sort(a) - np.sort(b)) ** 2), rel=1e-12)
    # unequal sizes: W2^2 of {0,1} vs {0, 0.5, 1} = int_0^1 (Q_a - Q_b)^2 = 1/6 * 0.25 * 2
    assert sliced_w2(np.array([0.0, 1.0]), np.array([0.0, 0.5, 1.0])) == pytest.approx(1 / 12)


def test_sliced_w2_of_a_shift(rng):
    """W2^2 between A and A + s along theta is (theta.s)^2 exactly."""
    A = rng.standard_normal((200, 3))
    s = np.array([0.3, -0.1, 0.2])
    Th = np.random.default_rng(11).standard_normal((64, 3))
    Th /= np.linalg.norm(Th, axis=1, keepdims=True)
    assert sliced_w2(A, A + s, rng=11) == pytest.approx(np.mean((Th @ s) ** 2), rel=1e-9)


def test_mmd2_unbiased_and_closed_form(rng):
    """E[MMD^2_u] = 0 for equal laws (mean of 200 replicates within 4 SE); for 1-D Gaussians
    N(0,1) vs N(m,1) with kernel bandwidth h: MMD^2 = 2 c (1 - exp(-m^2 / (2(h^2+2)))),
    c = h / sqrt(h^2 + 2)."""
    vals = [mmd2(rng.standard_normal(60), rng.standard_normal(60), bandwidth=1.0) for _ in range(200)]
    assert abs(np.mean(vals)) <= 4 * np.std(vals) / np.sqrt(200)
    h, m = 1.0, 0.8
    exact = 2 * h / np.sqrt(h * h + 2) * (1 - np.exp(-m * m / (2 * (h * h + 2))))
    est = [mmd2(rng.standard_normal(400), rng.standard_normal(400) + m, bandwidth=h) for _ in range(30)]
    assert abs(np.mean(est) - exact) <= 4 * np.std(est) / np.sqrt(30)


def test_mmd2_test_detects_shift_and_accepts_same_law(rng):
    same = mmd2_test(rng.standard_normal((150, 2)), rng.standard_normal((150, 2)), rng=1)
    diff = mmd2_test(rng.standard_normal((150, 2)), rng.standard_normal((150, 2)) + 1.0, rng=1)
    assert diff["mmd2"] > diff["threshold"] and diff["p_value"] < 0.01
    assert same["p_value"] > 0.001


def test_energy_distance_one_d_matches_scipy(rng):
    from scipy.stats import energy_distance as ed

    a, b = rng.standard_normal(80), rng.standard_normal(90) + 1
    # scipy uses V-statistics and returns sqrt(2E|X-Y| - E|X-X'| - E|Y-Y'|): compare V-forms
    n, m = 80, 90
    u = energy_distance(a, b)
    v = u - (np.abs(a[:, None] - a).sum() / n ** 2 - np.abs(a[:, None] - a).sum() / (n * (n - 1))) \
          - (np.abs(b[:, None] - b).sum() / m ** 2 - np.abs(b[:, None] - b).sum() / (m * (m - 1)))
    assert np.sqrt(v) == pytest.approx(ed(a, b), rel=1e-10)


def test_n_var_and_fit_rate(rng):
    N, R = 100, 400
    means = rng.standard_normal((R, N)).mean(axis=1)
    out = n_var(means, N)
    assert out["ci"][0] <= 1.0 <= out["ci"][1]
    x = np.array([10.0, 20, 40, 80, 160])
    f = fit_rate(x, 3.0 * x ** -0.5)
    assert f["rate"] == pytest.approx(-0.5, abs=1e-12) and f["C"] == pytest.approx(3.0, rel=1e-12)
    with pytest.raises(ValueError, match="> 0"):
        fit_rate(x, -x)


def test_no_nan_from_extreme_but_finite_samples(rng):
    """Distances are homogeneous: sliced W2^2(cA, cB) = c^2 W2^2(A, B), energy distance scales
    by c.  Before, squares of 1e200 overflowed (inf - inf = NaN) and a bandwidth of 1e-200
    gave 0/0.  The reference is the unscaled computation times the exact power (c = 2^k keeps
    the scaled data exact); 1e-12 relative covers the different summation paths."""
    A, B = rng.standard_normal((30, 2)), rng.standard_normal((40, 2)) + 0.3
    c = 2.0 ** 600                                    # ~4e180
    assert sliced_w2(c * A, c * B, rng=3) == np.inf   # true value ~1e361 overflows: inf
    c = 2.0 ** 400                                    # ~3e120: c^2 W2^2 is finite
    assert sliced_w2(c * A, c * B, rng=3) == pytest.approx(c * c * sliced_w2(A, B, rng=3),
                                                           rel=1e-12)
    assert sliced_w2(A / c, B / c, rng=3) == pytest.approx(sliced_w2(A, B, rng=3) / c / c,
                                                           rel=1e-12)
    assert energy_distance(c * A, c * B) == pytest.approx(c * energy_distance(A, B), rel=1e-12)
    m = mmd2(c * A, c * B)                            # median bandwidth scales with the data
    assert m == pytest.approx(mmd2(A, B), rel=1e-12)
    # h -> 0: every off-diagonal kernel entry is exp(-huge) = 0, so MMD^2_u = 0 exactly
    assert mmd2(A, B, bandwidth=1e-200) == 0.0
    assert np.isfinite(mmd2_test(A, B, bandwidth=1e-300, n_perm=5)["mmd2"])
    with pytest.raises(ValueError, match="bandwidth must be > 0"):
        mmd2(A, B, bandwidth=0.0)
