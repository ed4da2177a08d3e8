"""Ledger checks of yat.dim_scaling*, yat.optimal_eps, yat.ntk.*, yat.krr_bound: records valid, verdicts
following from their numbers, key numbers re-derived independently (plain formulas, mpmath, fractions)."""
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from tests.checkrun import run_quick
from scipy import stats

import proofs_check.checks.yat.dim_scaling  # noqa: F401  (registers the checks)
import proofs_check.checks.yat.krr_bound  # noqa: F401
import proofs_check.checks.yat.ntk  # noqa: F401
import proofs_check.checks.yat.optimal_eps  # noqa: F401
from proofs_check import verdicts as V

IDS = {"yat.dim_scaling": "dim_scaling", "yat.dim_scaling.proof_steps": "dim_scaling",
       "yat.optimal_eps": "optimal_eps", "yat.ntk.formula": "ntk", "yat.ntk.orthogonality": "ntk",
       "yat.ntk.moment_identity": "ntk", "yat.ntk.class_separation": "ntk", "yat.ntk.spectral_decay": "ntk",
       "yat.ntk.lazy_convergence": "ntk", "yat.krr_bound": "krr_bound"}


def grad_w(W, x, eps):
    s = W @ x
    D = ((W - x) ** 2).sum(1) + eps
    return 2 * (s / D)[:, None] * x[None] - 2 * (s ** 2 / D ** 2)[:, None] * (W - x)


def test_dim_scaling_bound_and_verdict():
    # E[chi2_d^-2] = 1/((d-2)(d-4)) (exact), the moment behind the closed-form Cauchy-Schwarz bound
    d = 9
    val = mpmath.quad(lambda t: t ** -2 * t ** (d / 2 - 1) * mpmath.e ** (-t / 2) / (2 ** (d / 2) * mpmath.gamma(d / 2)),
                      [0, 1, 10, mpmath.inf])
    assert float(val) == pytest.approx(1 / ((d - 2) * (d - 4)), rel=1e-10)
    ev = run_quick("yat.dim_scaling")
    assert ev.parts["E[K]=O(1)"].verdict == V.CONFIRMED
    assert ev.parts["layernorm_redundant"].verdict == V.NOT_CHECKABLE
    assert ev.verdict == V.combine_parts(p.verdict for p in ev.parts.values()) == V.NOT_CHECKABLE
    # E[K] -> sigma^2 / 2 for variance fixed in d (U/d -> sigma^4 in mean, V/d -> 2 sigma^2)
    lim = ev.parts["E[K]=O(1)"].numbers["EK_over_sigma2_at_dmax"]
    assert all(abs(v - 0.5) < 0.05 for k, v in lim.items() if "eps=1.0" in k)


def test_proof_steps_chernoff_constant():
    c = (math.log(2) - 0.5) / 2
    for d in (1, 7, 64, 1000):
        assert stats.chi2.cdf(d / 2, d) <= math.exp(-c * d)
    assert run_quick("yat.dim_scaling.proof_steps").verdict == V.CONFIRMED


@pytest.mark.slow
def test_optimal_eps_counterexample_snr_increases_to_the_limit():
    ev = run_quick("yat.optimal_eps")
    assert ev.verdict == V.REFUTED and ev.reading is not None
    b = ev.repro.bindings
    X = np.array(b["x0"]) + b["sigma"] * np.random.default_rng(b["seed"]).standard_normal((b["n"], len(b["w"])))

    def snr(eps):
        w = np.array(b["w"])
        s = X @ w
        D = ((w - X) ** 2).sum(1) + eps
        g = 2 * (s / D)[:, None] * X - 2 * (s ** 2 / D ** 2)[:, None] * (w - X)
        mu, v = g.mean(0), g.var(0, ddof=1).sum()
        return (mu @ mu - v / len(g)) / v
    vals = [snr(e) for e in b["epss"]]
    assert vals == pytest.approx(ev.repro.expected, rel=1e-8)
    assert vals[-1] > vals[0]            # the eps -> inf limit beats eps = d sigma^2
    lo = ev.numbers["gap_inf_minus_grid_max_ci95"][0]
    assert lo > 0 and ev.thresholds[0].measured == lo


@pytest.mark.slow
def test_optimal_eps_sigma_sweep_slope_below_one():
    # at a fixed (w, x0) in d = 4 the maxima are interior and log eps* on log sigma^2 has slope well below 1
    ev = run_quick("yat.optimal_eps")
    sw, fit = ev.numbers["sigma_sweep"], ev.numbers["fit"]
    assert sw["all_maxima_interior"] and all(1e-2 < e < 1e4 for row in sw["eps_star"] for e in row)
    lx = np.log(np.array(sw["sigmas"]) ** 2)
    ly = np.log(np.array(sw["eps_star"]).mean(1))
    assert np.polyfit(lx, ly, 1)[0] == pytest.approx(fit["slope"], rel=1e-9)
    assert fit["ci"][1] < 1.0 and ev.thresholds[1].value == 1.0 and ev.thresholds[1].measured == fit["ci"][1]
    # plain NumPy at the largest sigma, first replicate: eps* beats its neighbours 10^{+-0.1} and the value that
    # eps* ∝ sigma^2 predicts from the sigma with the largest eps*
    w, x0, sig = np.array(sw["w"]), np.array(sw["x0"]), sw["sigmas"][-1]
    X = x0 + sig * np.random.default_rng(sw["noise_seeds"][0]).standard_normal((sw["n"], len(w)))

    def snr(eps):
        s, D = X @ w, ((w - X) ** 2).sum(1) + eps
        g = 2 * (s / D)[:, None] * X - 2 * (s ** 2 / D ** 2)[:, None] * (w - X)     # grad_w K (000 Thm 5)
        mu, v = g.mean(0), g.var(0, ddof=1).sum()
        return (mu @ mu - v / len(g)) / v
    e_star = sw["eps_star"][-1][0]
    med = np.median(np.array(sw["eps_star"]), axis=1)
    j = int(np.argmax(med))
    pred = med[j] * (sig / sw["sigmas"][j]) ** 2
    assert pred > 5 * e_star                                 # proportionality is off by a large factor
    assert snr(e_star) > snr(pred)
    assert [snr(e_star), snr(pred)] == pytest.approx(sw["proportional_prediction"]["snr_at_[measured, predicted]"],
                                                     rel=1e-8)
    assert snr(e_star) >= max(snr(e_star * 10 ** 0.1), snr(e_star * 10 ** -0.1))


def test_ntk_formula_feature_term_grows_like_m():
    ev = run_quick("yat.ntk.formula")
    assert ev.verdict == V.REFUTED
    r = ev.parts["formula"].numbers["K_m_over_formula"]
    # sum_i K(w_i,x)^2 ~ m E[K^2]: ten times the width, about ten times the value
    assert r[-1] / r[-2] == pytest.approx(10, rel=0.2)
    assert ev.parts["psd"].verdict == V.CONFIRMED


def _normalised_plain(W, d, r, eps):
    """Normalised K_NTK(r e1, r e2) from full d-dimensional weights, plain NumPy (grad_w above)."""
    x, xp = np.zeros(d), np.zeros(d)
    x[0] = xp[1] = r
    Kx = (W @ x) ** 2 / (((W - x) ** 2).sum(1) + eps)
    Kp = (W @ xp) ** 2 / (((W - xp) ** 2).sum(1) + eps)
    gx, gp = grad_w(W, x, eps), grad_w(W, xp, eps)
    cross = (Kx * Kp + (gx * gp).sum(1)).mean()
    return cross / math.sqrt((Kx ** 2 + (gx ** 2).sum(1)).mean() * (Kp ** 2 + (gp ** 2).sum(1)).mean())


@pytest.mark.slow
def test_ntk_orthogonality_nonzero_at_d2():
    rng = np.random.default_rng(123)
    W = rng.standard_normal((200_000, 2))
    x, xp = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    Kx = (W @ x) ** 2 / (((W - x) ** 2).sum(1) + 1)
    Kp = (W @ xp) ** 2 / (((W - xp) ** 2).sum(1) + 1)
    smp = Kx * Kp + (grad_w(W, x, 1.0) * grad_w(W, xp, 1.0)).sum(1)
    m, se = smp.mean(), smp.std(ddof=1) / math.sqrt(len(smp))
    assert abs(m) > 5 * se                      # independently: clearly non-zero
    ev = run_quick("yat.ntk.orthogonality")
    assert ev.verdict == V.REFUTED and ev.problems() == []
    assert ev.repro.expected[0] == pytest.approx(m, abs=6 * se)


@pytest.mark.slow
def test_ntk_orthogonality_r3_search_beats_relu():
    ev = run_quick("yat.ntk.orthogonality")
    r3 = ev.other_readings["R3_below_relu"]
    assert r3.verdict == V.REFUTED and r3.scope.kind == "search"
    assert r3.numbers["restarts"] >= 20 and r3.numbers["reduction_max_rel_diff"] < 1e-12
    ce = r3.counterexample
    # independently, plain NumPy on full d-dimensional weights at the maximiser: far beyond 1/(2 pi)
    vals = [_normalised_plain(ce["sigma_w"] * np.random.default_rng(k).standard_normal((20_000, ce["d"])),
                              ce["d"], ce["x"][0], ce["eps"]) for k in range(10)]
    mean, half = np.mean(vals), stats.t.ppf(0.975, 9) * np.std(vals, ddof=1) / math.sqrt(10)
    assert abs(mean) - half > 1 / (2 * math.pi)
    assert mean == pytest.approx(ce["normalised_mean_10x20k"], abs=4 * half + 0.01)


@pytest.mark.slow
def test_ntk_orthogonality_r2_limit_is_one_seventh():
    # leading order as d -> inf (D = sigma^2 d): r^4 / (E[s^4] + 4 r^2 E[s^2] / sigma^2) with Gaussian
    # moments E[s^2] = sigma^2 r^2, E[s^4] = 3 sigma^4 r^4 (r = sigma = 1): 1 / (3 + 4) exactly
    assert Fraction(1, 3 + 4) == Fraction(1, 7)
    ev = run_quick("yat.ntk.orthogonality")
    r2 = ev.other_readings["R2_d_to_infinity"]
    assert r2.verdict == V.REFUTED and r2.numbers["limit_sigma_1"] == pytest.approx(1 / 7, rel=1e-15)
    assert r2.numbers["limits"]["sigma=2.0"] == pytest.approx(4 / (12 + 4))
    # independently at d = 512 with full-dimensional weights (plain NumPy): near 1/7, far from 0
    vals = [_normalised_plain(np.random.default_rng(50 + k).standard_normal((4_000, 512)), 512, 1.0, 1.0)
            for k in range(5)]
    mean, half = np.mean(vals), stats.t.ppf(0.975, 4) * np.std(vals, ddof=1) / math.sqrt(5)
    assert mean - half > 0.12 and abs(mean - 1 / 7) < half + 0.01
    m512 = r2.numbers["normalised_[mean,ci]"]["sigma=1.0"][1][0]       # d = 512 in the check
    assert abs(m512 - mean) < half + 0.01


@pytest.mark.slow
def test_moment_identity_ratio_is_one_third():
    for d in (3, 50, 128):
        orth = Fraction(1, d * (d + 2))
        aligned = Fraction(1 + 2, d * (d + 2))
        assert orth / aligned == Fraction(1, 3)
    ev = run_quick("yat.ntk.moment_identity")
    assert ev.parts["identity"].verdict == V.CONFIRMED
    assert ev.parts["orth_vs_aligned_O(1/d^2)"].verdict == V.REFUTED and ev.verdict == V.REFUTED
    th = ev.parts["orth_vs_aligned_O(1/d^2)"].thresholds[0]
    # one quantity throughout: the limit of the ratio (needs 0 for O(1/d^2)), measured 1/3
    assert th.value == 0.0 and th.measured == th.flip == pytest.approx(1 / 3, rel=1e-15)


def test_class_separation_refuted_above_relu():
    # the bias-free ReLU NTK by hand for unit inputs: |x||x'|/(2 pi) (sin t + (pi - t) cos t) + x.x' (pi - t)/(2 pi)
    def relu(t):
        return (math.sin(t) + (math.pi - t) * math.cos(t)) / (2 * math.pi) + math.cos(t) * (math.pi - t) / (2 * math.pi)
    assert relu(math.pi / 2) / relu(0.0) == pytest.approx(1 / (2 * math.pi), rel=1e-14)
    # sigma -> inf: K -> (w.x)^2/||w||^2, so the cross/same ratio -> E[g1^2 g2^2]/E[g1^4] = 1/3 (Isserlis),
    # above the ReLU NTK's 1/(2 pi) and Remark 8's printed form's 1/pi
    assert Fraction(1, 1) / Fraction(3, 1) > 1 / math.pi > 1 / (2 * math.pi)
    ev = run_quick("yat.ntk.class_separation")
    assert ev.verdict == V.REFUTED and ev.problems() == []
    ce = ev.counterexample
    assert ev.thresholds[0].value == pytest.approx(1 / (2 * math.pi), rel=1e-12)
    # independently, plain NumPy on full 32-dimensional weights at the counterexample's sigma
    vals = [_normalised_plain(ce["sigma_w"] * np.random.default_rng(k).standard_normal((10_000, 32)), 32, 1.0,
                              ce["eps"]) for k in range(8)]
    mean, half = np.mean(vals), stats.t.ppf(0.975, 7) * np.std(vals, ddof=1) / math.sqrt(8)
    assert mean - half > 1 / (2 * math.pi) and abs(mean - 1 / 3) < 0.02
    grid = ev.numbers["sigma_grid"]
    assert grid[0]["ratio"] < 1 / (2 * math.pi) < grid[-1]["ratio"]        # below ReLU only for small sigma


def test_lazy_is_not_checkable():
    lz = run_quick("yat.ntk.lazy_convergence")
    assert lz.verdict == V.NOT_CHECKABLE
    mse = lz.other_readings["MSE_000_Cor4"]
    assert mse.verdict == V.CONFIRMED and mse.numbers["lambda_min"] > 0
    # "any analytic loss" (R1) fails: L = sum exp(-e) has no critical point, e(t) = log(e^{e0} + t)
    r1 = lz.other_readings["R1_any_analytic_loss"]
    assert r1.verdict == V.REFUTED
    t = r1.counterexample["t"]
    e = math.log(1.0 + t)
    assert abs(e - math.log(1.0 + t / 2) - math.log(2)) < 1e-5     # still growing like log t
    assert math.exp(-e) > 0


def test_spectral_decay_relu_rank_and_loose_bounds():
    x = np.linspace(-1, 1, 31)[:, None]
    nx = np.abs(x[:, 0])
    c = np.sign(np.outer(x[:, 0], x[:, 0]))
    th = np.arccos(np.clip(c, -1, 1))
    G = np.outer(nx, nx) / (2 * np.pi) * (np.sin(th) + (np.pi - th) * c) + (x @ x.T) * (np.pi - th) / (2 * np.pi)
    assert np.linalg.matrix_rank(G) == 2
    ev = run_quick("yat.ntk.spectral_decay")
    assert ev.verdict == V.combine_parts(p.verdict for p in ev.parts.values())
    for k in ("yat_ntk_O(k^-2/d)", "gaussian_matches", "relu_ntk_O(k^-1/d)"):
        assert ev.parts[k].verdict in (V.CONFIRMED, V.CONFIRMED_LOOSE)


def test_krr_bound_refuted_by_the_recorded_errors():
    ev = run_quick("yat.krr_bound")
    assert ev.verdict == V.REFUTED
    b = ev.repro.bindings
    errs = np.array(ev.repro.expected)
    bound = b["M"] ** 2 * b["R"] ** 4 / b["eps"] / b["n"]
    lo = errs.mean() - stats.t.ppf(0.975, len(errs) - 1) * errs.std(ddof=1) / math.sqrt(len(errs))
    assert lo > bound
    assert ev.counterexample["bound"] == pytest.approx(bound)


def test_moment_identity_t2_cross_rate_tight():
    # d |T2(x,x_perp)| / T2(x,x) -> 1: the O(1/d) claim holds with its exponent -1 exact (tight bound)
    ev = run_quick("yat.ntk.moment_identity")
    part = ev.parts["T2_cross_O(1/d)"]
    assert part.verdict == V.CONFIRMED and part.bounds[0].claimed == part.bounds[0].tight == -1.0
    for row in part.numbers["d_times_ratio_[mean,ci95]_reduced_sampler"].values():
        m, ci = row[-1]
        assert ci[0] <= 1.0 <= ci[1] and abs(m - 1.0) < 0.05
    # the threshold's measured value is a CI end: that of the intersection of the three intervals nearest 1
    cis = [row[-1][1] for row in part.numbers["d_times_ratio_[mean,ci95]_reduced_sampler"].values()]
    lo, hi = max(c[0] for c in cis), min(c[1] for c in cis)
    near = lo if 1 - lo <= hi - 1 else hi
    assert part.thresholds[0].measured == part.thresholds[0].flip == near
    assert part.numbers["d=1e6_ci95_intersection"] == [lo, hi]


@pytest.mark.slow
def test_optimal_eps_downstream_linear_readout_is_r1():
    # SNR(a g) = SNR(g) for every a != 0: a linear readout's loss gradient has R1's SNR, so R3 falls with R1
    rng = np.random.default_rng(0)
    g = rng.standard_normal((500, 3)) + 0.3

    def snr(h):
        v = h.var(0, ddof=1).sum()
        return (h.mean(0) @ h.mean(0) - v / len(h)) / v
    assert snr(-2.5 * g) == pytest.approx(snr(g), rel=1e-12)
    ev = run_quick("yat.optimal_eps")
    r3 = ev.other_readings["R3_downstream_loss"]
    assert ev.verdict == V.REFUTED and r3.verdict == V.REFUTED
    assert "linear_readout" in r3.numbers["decisive_losses"]
