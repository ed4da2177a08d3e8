"""Ledger checks migrated from checks/yat_bounds_gradients.py (bounds, limits, gradients, Lipschitz,
analyticity, eps sharpening): records valid, verdicts follow from their numbers, key numbers
re-derived independently (fractions, mpmath, plain formulas)."""
import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from tests.checkrun import run_quick

from proofs_check import verdicts as V

IDS = ["yat.bound.global_upper", "yat.bound.self_regulation_bounded", "yat.limit.self_regulation",
       "yat.limit.score_statistics", "yat.grad.decay_input", "yat.grad.outlier_weight_updates",
       "yat.grad.formula_x", "yat.grad.formula_w", "yat.grad.scalar_partials", "yat.lipschitz_unit_ball",
       "yat.perturbation_robustness", "yat.lipschitz_global_001", "yat.analyticity", "yat.eps_sharpening"]




def _K(w, x, eps):
    s = sum(a * b for a, b in zip(w, x))
    return s * s / (sum((a - b) ** 2 for a, b in zip(w, x)) + eps)


@pytest.mark.slow
def test_global_upper_counterexample_exact():
    ev = run_quick("yat.bound.global_upper")
    part = ev.parts["K<=||w||^4/eps_for_all_x"]
    c = part.counterexample
    w, x, eps = [Fraction(v) for v in c["w"]], [Fraction(v) for v in c["x"]], Fraction(c["eps"])
    a4 = sum(v * v for v in w) ** 2
    ratio = _K(w, x, eps) * eps / a4
    assert ratio == 2 and part.verdict == V.REFUTED  # K = 4/2 = 2 > ||w||^4/eps = 1
    assert ev.parts["maximum_at_x=w"].verdict == V.REFUTED and ev.verdict == V.REFUTED
    # the search finds the closed form sup = a^4/eps + a^2 (derived by hand: x* = (1 + eps/a^2) w)
    for r in ev.numbers["grid_rows"]:
        assert r["ratio_sup/(a^4/eps)"] == pytest.approx(1 + r["eps"] / r["norm_w"] ** 2, rel=1e-5)


def test_self_regulation_operative_reading_and_other():
    ev = run_quick("yat.bound.self_regulation_bounded")
    assert ev.verdict == V.CONFIRMED and ev.reading is not None
    r2 = ev.other_readings["R2_K<=||w||^2_for_all_x"]
    c = r2.counterexample
    w, eps = [Fraction(v) for v in c["w"]], Fraction(c["eps"]).limit_denominator(1000)
    assert _K(w, w, eps) / sum(v * v for v in w) == 10 and r2.verdict == V.REFUTED


def test_ray_limit_leading_correction_mpmath():
    assert run_quick("yat.limit.self_regulation").verdict == V.CONFIRMED
    with mp.workdps(50):
        w, u = [mp.mpf(1), mp.mpf(2)], [mp.mpf("0.6"), mp.mpf("0.8")]
        c = w[0] * u[0] + w[1] * u[1]
        k = mp.mpf(10) ** 12
        val = _K(w, [k * u[0], k * u[1]], mp.mpf("0.1"))
        assert abs(k * (val - c * c) - 2 * c ** 3) < 1e-9


def test_score_statistics_rate_is_one_over_scale():
    ev = run_quick("yat.limit.score_statistics")
    assert ev.verdict == V.CONFIRMED and ev.plot is not None
    fit = ev.numbers["per_d"]["d=8"]["rate_mean"]
    assert fit["ci"][0] <= -1 + 0.1 and fit["ci"][1] >= -1 - 0.1  # K - c^2 ~ 2c^3/k


def test_decay_input_constant_mpmath():
    assert run_quick("yat.grad.decay_input").verdict == V.CONFIRMED
    with mp.workdps(50):
        w = [mp.mpf(1), mp.mpf("0.5"), mp.mpf("-0.3")]
        u = [mp.mpf("0.6"), mp.mpf("0.8"), mp.mpf(0)]
        k = mp.mpf(10) ** 9
        x = [k * t for t in u]
        s = sum(a * b for a, b in zip(w, x))
        D = sum((a - b) ** 2 for a, b in zip(w, x)) + mp.mpf("0.5")
        g = [2 * s / D * wi - 2 * s * s / D ** 2 * (xi - wi) for wi, xi in zip(w, x)]
        c = sum(a * b for a, b in zip(w, u))
        a2 = sum(t * t for t in w)
        assert k * mp.sqrt(sum(t * t for t in g)) == pytest.approx(2 * abs(c) * mp.sqrt(a2 - c * c), rel=1e-6)


def test_outlier_weight_gradient_does_not_vanish():
    ev = run_quick("yat.grad.outlier_weight_updates")
    assert ev.verdict == V.REFUTED
    c = ev.parts["grad_w_vanishes_for_distant_inputs"].counterexample
    w, x, eps = np.array(c["w"]), np.array(c["x"]), c["eps"]
    s, D = w @ x, np.sum((w - x) ** 2) + eps
    gw = 2 * s / D * x - 2 * s * s / D ** 2 * (w - x)  # plain formula
    assert np.linalg.norm(gw) == pytest.approx(1.2, rel=1e-5)


def test_formula_w_prop12_wrong_by_finite_differences():
    ev = run_quick("yat.grad.formula_w")
    assert ev.parts["a_000_Prop12"].verdict == V.REFUTED and ev.verdict == V.REFUTED
    assert ev.parts["c_001_eq19"].verdict == V.CONFIRMED
    w, x, eps, h = np.array([1.0, 2.0]), np.array([0.5, -1.0]), 0.3, 1e-6
    fd = np.array([(_K(w + h * e, x, eps) - _K(w - h * e, x, eps)) / (2 * h) for e in np.eye(2)])
    s, D = w @ x, np.sum((w - x) ** 2) + eps
    prop12 = 2 * s / D * (x + s * (w - x) / D)
    rel = np.linalg.norm(prop12 - fd) / np.linalg.norm(fd)
    assert rel == pytest.approx(ev.parts["a_000_Prop12"].numbers["rel_error_at_counterexample"], rel=1e-6)


def test_formula_x_and_scalar_partials_confirmed():
    assert run_quick("yat.grad.formula_x").verdict == V.CONFIRMED
    assert run_quick("yat.grad.scalar_partials").verdict == V.CONFIRMED


@pytest.mark.slow
@pytest.mark.parametrize("cid", ["yat.lipschitz_unit_ball", "yat.perturbation_robustness",
                                 "yat.lipschitz_global_001"])
def test_lipschitz_loose_follows_from_ratio(cid):
    ev = run_quick(cid)
    leaf = ev.parts["prop3_value_lipschitz_L"] if ev.parts else ev
    t = leaf.thresholds[0]
    assert t.measured < 1 - 1e-6  # the sup found stays below the claimed constant
    assert leaf.verdict == V.CONFIRMED_LOOSE


@pytest.mark.slow
def test_unit_ball_peak_value_by_plain_formula():
    ev = run_quick("yat.lipschitz_unit_ball")
    eps = 1e-4
    t = math.sqrt(eps / 3)
    x = [math.cos(t), math.sin(t)]
    h = 1e-9
    g = [(_K([1.0, 0.0], [x[0] + h * e0, x[1] + h * e1], eps) - _K([1.0, 0.0], [x[0] - h * e0, x[1] - h * e1], eps))
         / (2 * h) for e0, e1 in ((1, 0), (0, 1))]
    gn = math.hypot(*g)
    assert gn == pytest.approx(9 / (8 * math.sqrt(3)) * eps ** -1.5, rel=0.05)
    assert ev.numbers["L/sup_at_eps1e-4"] > 100  # L = 4e8 vs ~6.5e5


def test_analyticity_and_sharpening_confirmed():
    ev = run_quick("yat.analyticity")
    assert ev.verdict == V.CONFIRMED
    for p, v in ev.numbers["taylor_remainder_exponents"].items():
        assert abs((v["min_slope"] + v["max_slope"]) / 2 - v["expected"]) < 0.5
    ev = run_quick("yat.eps_sharpening")
    assert ev.verdict == V.CONFIRMED
    # FWHM perpendicular to w: a^4/(t^2+eps) = a^4/(2 eps) at t = sqrt(eps)
    assert _K([1.0, 0.0], [1.0, math.sqrt(0.01)], 0.01) == pytest.approx(_K([1.0, 0.0], [1.0, 0.0], 0.01) / 2)
