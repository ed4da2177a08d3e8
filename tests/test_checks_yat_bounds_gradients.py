"""Ledger checks of claims.md A4 (bounds, limits, gradients): run at level quick, seed 0.

Each check runs once (module fixture).  The tests assert valid verdicts and the fields the
catalogue's Record lines ask for, and re-evaluate stored counterexamples and maximisers
independently: K in 50-digit mpmath from the plain formula, gradients by mpmath numerical
differentiation of that formula (not by the closed forms under test).
"""
import math

import mpmath as mp
import numpy as np
import pytest
from checkrun import assert_valid_evidence

from proofs_check import verdicts as V
from proofs_check.registry import REGISTRY, Context
from proofs_check.checks import yat_bounds_gradients as B

IDS = ["yat.bound.global_upper", "yat.bound.self_regulation_bounded", "yat.limit.self_regulation",
       "yat.limit.score_statistics", "yat.grad.decay_input", "yat.grad.outlier_weight_updates",
       "yat.grad.formula_x", "yat.grad.formula_w", "yat.grad.scalar_partials",
       "yat.lipschitz_unit_ball", "yat.lipschitz_global_001", "yat.perturbation_robustness",
       "yat.analyticity", "yat.eps_sharpening"]

mp.mp.dps = 50


def _mpf(v):
    return v if isinstance(v, mp.mpf) else mp.mpf(float(v))


def mpK(w, x, eps):
    """(w.x)^2 / (||w-x||^2 + eps) in 50-digit arithmetic (the plain formula)."""
    w = [_mpf(v) for v in w]
    x = [_mpf(v) for v in x]
    s = mp.fsum(a * b for a, b in zip(w, x))
    return s ** 2 / (mp.fsum((a - b) ** 2 for a, b in zip(w, x)) + mp.mpf(eps))


def mp_grad(w, x, eps, wrt="x"):
    """Gradient of the plain formula by mpmath numerical differentiation (50 digits)."""
    out = []
    for j in range(len(x)):
        def f(t, j=j):
            if wrt == "x":
                xx = [_mpf(v) for v in x]
                xx[j] += t
                return mpK(w, xx, eps)
            ww = [_mpf(v) for v in w]
            ww[j] += t
            return mpK(ww, x, eps)
        out.append(mp.diff(f, 0))
    return out


def mp_norm(v):
    return mp.sqrt(mp.fsum(t * t for t in v))


@pytest.fixture(scope="module")
def results():
    return {cid: REGISTRY[cid].func(Context("quick", 0, cid)) for cid in IDS}


@pytest.mark.parametrize("cid", IDS)
def test_registered_and_valid_verdict(results, cid):
    assert_valid_evidence(cid, results[cid], B)


def test_helpers_validate_and_fit():
    rng = np.random.default_rng(0)
    xs = np.logspace(0, 3, 10)
    slope, (lo, hi) = B.loglog_fit(xs, 3 * xs ** -1.5, rng)
    assert slope == pytest.approx(-1.5, abs=1e-12) and lo <= slope <= hi
    with pytest.raises(ValueError, match="variant"):
        B.printed_grad_w_eq9(np.ones(2), np.ones(2), 1.0, variant="nope")


# ---------------------------------------------------------------------------- bounds and limits

def test_global_upper_counterexamples(results):
    ev = results["yat.bound.global_upper"]
    assert ev.verdict == V.REFUTED
    s = ev.counterexample["simplest"]
    assert mpK(s["w"], s["x"], s["eps"]) == 2 and s["claimed_bound"] == 1
    big = ev.counterexample["largest_ratio_found"]
    a2 = mp.fsum(mp.mpf(v) ** 2 for v in big["w"])
    ratio = mpK(big["w"], big["x"], big["eps"]) / (a2 ** 2 / big["eps"])
    assert float(ratio) == pytest.approx(big["ratio"], rel=1e-10)
    # closed form of the sup (derived by hand, checked here in mpmath): 1 + eps/||w||^2
    assert float(ratio) == pytest.approx(float(1 + big["eps"] / a2), rel=1e-8)
    n = ev.numbers
    assert n["configs_violating_bound"] == n["configs"]
    assert n["sympy"]["value_minus_(a^4/eps + a^2)"] == "0"
    for row in n["table_d2"]:  # record: the sup, claim, ratio and maximiser x*/w
        assert row["x*/w"] == pytest.approx(1 + row["eps"] / row["norm_w"] ** 2, rel=1e-6)


def test_self_regulation_bounded_readings(results):
    ev = results["yat.bound.self_regulation_bounded"]
    assert [ev.parts[k].verdict for k in ("R1_limit", "R2_all_x", "R3_finite_sup")] == \
        [V.CONFIRMED, V.REFUTED, V.CONFIRMED]
    assert ev.verdict == V.AMBIGUOUS
    c = ev.counterexample["R2"]
    assert mpK(c["w"], c["x"], c["eps"]) / c["norm_w^2"] > 1
    s = ev.counterexample["R2_simplest"]
    assert float(mpK(s["w"], s["x"], s["eps"])) == pytest.approx(10, rel=1e-15) and s["K"] > 1
    r1 = ev.parts["R1_limit"].numbers
    assert r1["fraction_from_above_when_w.u>0"] == 1.0 and r1["fraction_from_below_when_w.u<0"] == 1.0


def test_limit_self_regulation_mpmath(results):
    ev = results["yat.limit.self_regulation"]
    assert ev.verdict == V.CONFIRMED
    assert ev.numbers["leading_correction_coeff_of_1/k"] == "2*c**3"
    k = mp.mpf(10) ** 20
    u = [mp.mpf(3) / 5, mp.mpf(4) / 5]
    c = u[0] + 2 * u[1]  # w = (1, 2)
    assert abs(mpK([1, 2], [k * u[0], k * u[1]], 0.1) - c ** 2) < 1e-15


def test_score_statistics_record(results):
    ev = results["yat.limit.score_statistics"]
    assert ev.verdict == V.CONFIRMED
    for d in ("d=8", "d=64"):
        r = ev.numbers["per_d"][d]
        assert len(r["mean_rel_err_mean"]) == len(r["scales"])
        lo, hi = r["rate_mean_ci95"]
        assert lo <= r["rate_mean"] <= hi and -1.1 < r["rate_mean"] < -0.9
        assert r["batch0_small_scales"]


# ---------------------------------------------------------------------------- gradients

def test_decay_input_limit_recomputed(results):
    ev = results["yat.grad.decay_input"]
    assert ev.verdict == V.CONFIRMED
    gen = ev.numbers["slopes"]["generic"]
    assert gen["ci95"][0] - 0.05 <= -1 <= gen["ci95"][1] + 0.05
    assert ev.numbers["slopes"]["perpendicular"]["grad_identically_zero"]
    # independent: k |grad_x K(w, k u)| -> 2|c| sqrt(a^2 - c^2) at k = 1e8 (mpmath differentiation)
    w, u = [1.0, 0.5, -0.3], [0.6, 0.8, 0.0]
    k = 1e8
    g = mp_grad(w, [k * t for t in u], 0.5)
    c = sum(a * b for a, b in zip(w, u))
    a2 = sum(a * a for a in w)
    assert float(k * mp_norm(g)) == pytest.approx(2 * abs(c) * math.sqrt(a2 - c * c), rel=1e-6)
    assert ev.numbers["sup_R*|grad|_over_a^2_at_R=1e6"] == pytest.approx(1.0, abs=1e-3)


def test_outlier_grad_w_does_not_vanish(results):
    ev = results["yat.grad.outlier_weight_updates"]
    assert ev.parts["R1_grad_x"].verdict == V.CONFIRMED
    assert ev.parts["R2_grad_w"].verdict == V.REFUTED and ev.verdict == V.AMBIGUOUS
    c = ev.counterexample
    g = mp_grad(c["w"], c["x"], c["eps"], wrt="w")
    assert float(mp_norm(g)) == pytest.approx(c["grad_w_norm"], rel=1e-8)
    assert float(mp_norm(g)) == pytest.approx(1.2, rel=1e-5)  # 2 |w.u| with w.u = 0.6
    batch = ev.parts["R2_grad_w"].numbers["batch"]
    assert batch[-1]["outlier_grad_w_norm"] == pytest.approx(
        ev.parts["R2_grad_w"].numbers["predicted_outlier_limit"], rel=1e-4)


def test_formula_x_record(results):
    ev = results["yat.grad.formula_x"]
    assert ev.verdict == V.CONFIRMED
    assert ev.numbers["sympy_residual_form1"] == ["0"] * 3
    assert ev.numbers["fd_max_rel_err_form1"] < B.FD_TOL and ev.numbers["fd_max_rel_err_form2"] < B.FD_TOL
    # the printed forms against mpmath differentiation at one pair
    w, x, eps = np.array([1.0, 2.0, -0.5]), np.array([0.3, -1.0, 0.7]), 0.3
    g = [float(t) for t in mp_grad(w, x, eps)]
    np.testing.assert_allclose(B.printed_grad_x_form1(w, x, eps), g, rtol=1e-13)
    np.testing.assert_allclose(B.printed_grad_x_form2(w, x, eps), g, rtol=1e-12)


def test_formula_w_counterexample_recomputed(results):
    ev = results["yat.grad.formula_w"]
    assert ev.parts["a_000_Prop12"].verdict == V.REFUTED
    assert ev.parts["b_000_eq9"].verdict == V.REFUTED
    assert ev.parts["c_001_eq19"].verdict == V.CONFIRMED
    assert ev.verdict == V.REFUTED
    c = ev.counterexample
    g = np.array([float(t) for t in mp_grad(c["w"], c["x"], c["eps"], wrt="w")])
    np.testing.assert_allclose(c["true_grad_w"], g, rtol=1e-12)
    for key in ("prop12", "eq9_printed", "eq9_D2_for_X"):
        assert np.linalg.norm(np.array(c[key]) - g) > 0.1 * np.linalg.norm(g)
    w, x = np.array(c["w"]), np.array(c["x"])
    np.testing.assert_allclose(B.printed_grad_w_eq19(w, x, c["eps"]), g, rtol=1e-12)
    np.testing.assert_allclose(B.printed_grad_w_eq9(w, x, c["eps"], "D2_times_x"), g, rtol=1e-12)
    assert ev.numbers["c_001_eq19"]["sympy_residual_is_zero"]


def test_scalar_partials(results):
    ev = results["yat.grad.scalar_partials"]
    assert ev.verdict == V.CONFIRMED
    assert ev.numbers["residual_dy/ds"] == "0" and ev.numbers["residual_dy/d|x|^2"] == "0"


# ---------------------------------------------------------------------------- Lipschitz

def test_lipschitz_unit_ball_maximiser_recomputed(results):
    ev = results["yat.lipschitz_unit_ball"]
    assert ev.verdict in (V.CONFIRMED, V.CONFIRMED_LOOSE)
    rows = ev.parts["prop3_value_lipschitz_L"].numbers["table"]
    assert [r["eps"] for r in rows] == list(B.EPS_GRID_LIP)
    for r in rows:
        assert np.linalg.norm(r["w"]) <= 1 + 1e-12 and np.linalg.norm(r["x"]) <= 1 + 1e-12
        g = float(mp_norm(mp_grad(r["w"], r["x"], r["eps"])))
        assert g == pytest.approx(r["sup"], rel=1e-7)
        assert g <= r["L"]
        assert r["sup"] >= r["scan_x=(1-delta)w_max"] * (1 - 1e-9)  # the optimiser beats the scan
    # the sup grows like eps^-3/2, not eps^-2: the claimed exponent lies outside the CI
    lo, hi = ev.numbers["exponent_ci95"]
    assert -1.6 < lo <= hi < -1.4
    assert ev.numbers["hessian_exponent"] == pytest.approx(-2.0, abs=0.05)


def test_perturbation_pair_recomputed(results):
    ev = results["yat.perturbation_robustness"]
    assert ev.verdict in (V.CONFIRMED, V.CONFIRMED_LOOSE)
    for r in ev.numbers["table"]:
        assert r["max_ratio_random"] <= r["max_ratio_adversarial"] * (1 + 1e-6) <= r["constant"]
    p = ev.numbers["worst_pair"]
    for v in (p["w"], p["x"], p["x_prime"]):
        assert np.linalg.norm(v) <= 1 + 1e-12
    q = abs(mpK(p["w"], p["x_prime"], p["eps"]) - mpK(p["w"], p["x"], p["eps"])) / \
        mp_norm([mp.mpf(a) - mp.mpf(b) for a, b in zip(p["x_prime"], p["x"])])
    L = 2 / p["eps"] + 4 / p["eps"] ** 2
    assert float(q / L) == pytest.approx(p["ratio_over_constant"], rel=1e-6)
    assert q <= L


def test_lipschitz_global_001_recomputed(results):
    ev = results["yat.lipschitz_global_001"]
    assert ev.verdict in (V.CONFIRMED, V.CONFIRMED_LOOSE)
    for r in ev.numbers["table"]:
        a, eps = r["a"], r["eps"]
        g = float(mp_norm(mp_grad(r["w"], r["maximiser_x"], eps)))
        assert g == pytest.approx(r["sup_grad"], rel=1e-7)
        rr = mp.mpf(r["argmax_r_Phi"])
        q = (rr - a) ** 2 + eps
        phi = 2 * a * a * rr / q + 2 * a * a * rr * rr * (rr + a) / q ** 2
        assert float(phi) == pytest.approx(r["sup_Phi"], rel=1e-10)
        assert g <= float(phi)
    assert set(ev.numbers["growth_in_a"]) == {"eps=0.1", "eps=1"}


def test_analyticity_exponents(results):
    ev = results["yat.analyticity"]
    assert ev.verdict == V.CONFIRMED
    for p, row in ev.numbers["taylor_remainder_exponents"].items():
        assert row["expected"] == int(p[2:]) + 1


def test_eps_sharpening_closed_form(results):
    ev = results["yat.eps_sharpening"]
    assert ev.verdict == V.CONFIRMED
    # perpendicular profile ||w||^4/(t^2+eps): FWHM = 2 sqrt(eps) exactly
    np.testing.assert_allclose(ev.numbers["fwhm_perp"], 2 * np.sqrt(ev.numbers["eps"]), rtol=1e-9)
    # along the ray the width is infinite exactly when eps >= ||w||^2 = 1
    inf_eps = ev.numbers["ray_fwhm_infinite_for_eps>=|w|^2"]
    assert all(e >= 1 for e in inf_eps) and all(
        math.isfinite(f) for e, f in zip(ev.numbers["eps"], ev.numbers["fwhm_ray"]) if e < 1)
