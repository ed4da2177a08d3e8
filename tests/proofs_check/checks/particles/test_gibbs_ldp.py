"""Tests of the particles LDP checks (thm2_ldp, thm2_kernel_concentration, lemma7, lemma8,
lemma9_10_regime2, goodness_and_free_energy): numbers re-derived independently."""
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from tests.checkrun import assert_valid_evidence, run_quick
from proofs_check import verdicts as V
from proofs_check.registry import load_all

load_all()


def _check_record(cid, module_name):
    import importlib
    ev = run_quick(cid)
    assert_valid_evidence(cid, ev, importlib.import_module(module_name))
    return ev


def test_thm2_ldp_refuted_by_infinite_energy():
    ev = _check_record("particles.thm2_ldp", "proofs_check.checks.particles.thm2_ldp")
    assert ev.verdict == V.REFUTED and ev.reading is not None
    # the lower bound, re-derived with exact fractions at eps = 1e-5, s = 2, lam = 1/2, L^2 = 2
    eps = Fraction(1, 10 ** 5)
    lb = -2 + Fraction(1, 2) * (1 / eps) ** 2 / (2 * math.ceil(2 / eps))
    assert float(lb) == pytest.approx(ev.counterexample["E_s_lower_bound_for_every_mu"], rel=1e-12)
    assert lb > 10 ** 3
    # the bound is a true lower bound: random discrete measures on [-1, 1] never go below it
    rng = np.random.default_rng(1)
    e = 0.05
    bound = -2 + 0.5 * e ** -2 / (2 * math.ceil(2 / e))
    for _ in range(50):
        x, w = rng.uniform(-1, 1, 30), rng.dirichlet(np.ones(30))
        r = np.abs(x[:, None] - x[None, :])
        g = np.where(r < e, e ** -2, np.minimum(np.maximum(r, e) ** -2.0, e ** -2))
        energy = -2 + 0.25 * w @ g @ w        # worst field value -L^2 plus (lam/2) int int g
        assert energy >= bound - 1e-12
    # other readings carry their own verdicts, never combined
    assert set(ev.other_readings) == {"R2_fixed_eps_softened", "R3_s_lt_d"}


def test_kernel_concentration_not_checkable_and_instance_rule():
    ev = _check_record("particles.thm2_kernel_concentration",
                       "proofs_check.checks.particles.thm2_kernel_concentration")
    assert ev.verdict == V.NOT_CHECKABLE and ev.tried is not None
    # the softened reading is decided by a written proof (LDP + contraction); its hypotheses hold on the instance
    r = ev.other_readings["softened_kernel"]
    hyp = r.numbers["proof_hypotheses_on_the_instance"]
    assert r.verdict == V.CONFIRMED and r.scope.kind == "proof"
    assert hyp["softened_g_at_0"] == pytest.approx(1 / 0.2 ** 2) and hyp["sup_|f|"] <= 2.0
    assert r.numbers["tail_prob"][-1] <= r.numbers["tail_prob"][0]
    # the proof covers both regimes (speed N and speed beta_N, A.4.4/A.65); the instance's beta_N/N is 2, not 1
    assert "A.65" in r.notes and "beta_N/N -> inf" in r.scope.covered.replace(" / ", "/")
    assert "beta_N = 2N" in r.reading.text and "not Thm 2's 1" in r.reading.text
    # no decay rate is claimed from the instance unless >= 3 tail frequencies are nonzero (a slope needs them)
    nz = [p_ for p_ in r.numbers["tail_prob"] if p_ > 0]
    assert r.numbers["N_with_nonzero_tail"] == [n for n, p_ in zip(r.numbers["N"], r.numbers["tail_prob"]) if p_ > 0]
    if len(nz) < 3:
        assert math.isnan(r.numbers["log_tail_slope_in_N"]) and "no decay rate is measured" in r.notes
    assert "decays exponentially in N" not in r.reading.text


def test_lemma7_confirmed_and_identity_exact():
    ev = _check_record("particles.lemma7_finite_size", "proofs_check.checks.particles.lemma7_finite_size")
    assert ev.verdict == V.CONFIRMED
    # A.41 with exact fractions on a 4-particle configuration, g = hard truncation s = 1, eps = 1/10
    xs = [Fraction(0), Fraction(1, 20), Fraction(1, 3), Fraction(1, 3)]
    g = lambda r: Fraction(10) if r < Fraction(1, 10) else 1 / r      # noqa: E731
    N = len(xs)
    S = sum(g(abs(a - b)) for i, a in enumerate(xs) for j, b in enumerate(xs) if i != j)
    WN = S / (2 * N * (N - 1))
    Wmu = (S + N * Fraction(10)) / (2 * N * N)
    assert Wmu == Fraction(N - 1, N) * WN + Fraction(10) / (2 * N)
    assert ev.parts["uniform_bound"].numbers["max_W_over_bound"] <= 1 + 1e-12
    b = ev.parts["uniform_bound"].bounds[0]                    # attained by coincident particles: tight
    assert b.claimed == 1.0 and b.tight == pytest.approx(1.0, rel=1e-12)


def test_lemma8_sanov_sandwich_mpmath():
    ev = _check_record("particles.lemma8_sanov_varadhan", "proofs_check.checks.particles.lemma8_sanov_varadhan")
    assert ev.verdict == V.CONFIRMED
    mpmath.mp.dps = 40
    N, k, p = 200, 120, mpmath.mpf("0.45")
    P = mpmath.fsum(mpmath.binomial(N, j) * p ** j * (1 - p) ** (N - j) for j in range(k, N + 1))
    a = mpmath.mpf(k) / N
    kl = a * mpmath.log(a / p) + (1 - a) * mpmath.log((1 - a) / (1 - p))
    rate = -mpmath.log(P) / N
    assert kl <= rate <= kl + mpmath.log(N + 1) / N
    # |V_D| <= L_phi^2 = 2 is proved for every dataset and attained: two points, opposite labels, omega = 0, b = 0
    vb = ev.parts["V_bound_A52"]
    assert vb.scope.kind == "proof" and vb.scope.universal
    assert vb.numbers["instance_search_one_dataset"]["max_abs_V"] <= 2.0      # one dataset: an instance only
    phi = math.sqrt(2) * math.cos(0.0)
    y = vb.numbers["witness"]["y"]
    n = len(y)
    v = -sum(y[i] * y[j] * phi * phi for i in range(n) for j in range(n) if i != j) / (n * (n - 1))
    assert v == pytest.approx(2.0, rel=1e-15) and vb.numbers["witness_|V|"] == pytest.approx(2.0, rel=1e-12)
    tb = ev.parts["tail_bound_A46"]
    lam, s_, eps = tb.numbers["lam"], tb.numbers["s"], tb.numbers["eps"]
    assert tb.numbers["witness_|H|"] == pytest.approx(2.0 + lam * eps ** -s_ / 2, rel=1e-12) == tb.numbers["C"]
    from proofs_check.repro import run_repro
    assert run_repro(vb.repro.to_dict())[1] and run_repro(tb.repro.to_dict())[1]
    # the Bound records: both constants are attained (tight), so CONFIRMED and not CONFIRMED_LOOSE
    assert (vb.bounds[0].claimed, tb.bounds[0].claimed) == (2.0, tb.numbers["C"])
    assert vb.bounds[0].tight == pytest.approx(2.0, rel=1e-12) and tb.bounds[0].tight == pytest.approx(tb.numbers["C"])
    assert vb.verdict == tb.verdict == V.CONFIRMED
    # L_phi is never defined in 004: the record reads sup|phi| (sqrt2 for sqrt2 cos); eq. 2.1's [-1, 1] reading
    # would fail on the same witness (|V_D| = 2 > 1)
    txt = __import__("proofs_check.papers", fromlist=["paper_text"]).paper_text("004")
    assert "L_\\phi^2" in txt and "L_\\phi \\stackrel" not in txt and "L_\\phi =" not in txt
    assert "never defined" in vb.reading.text and "never defined" in ev.notes
    alt = vb.other_readings["L_phi_from_eq_2.1_range"]
    assert alt.verdict == V.REFUTED and alt.counterexample["V_D"] == pytest.approx(2.0) and run_repro(alt.repro.to_dict())[1]
    # Sanov rests on the standard theorem; the 40 binomial draws are corroboration
    sanov = ev.parts["sanov_A30"]
    assert sanov.scope.kind == "reference" and "Dembo" in sanov.scope.covered
    assert sanov.numbers["corroboration_binomial"]["draws"] == 40
    # the alpha_N -> 1 step of A.62 is noted as argued by neither
    assert "alpha_N" in ev.notes and "A.62" in ev.notes


def test_lemma9_10_refuted_bound_below_grid_minimum():
    ev = _check_record("particles.lemma9_10_regime2", "proofs_check.checks.particles.lemma9_10_regime2")
    assert ev.verdict == V.REFUTED
    lim = ev.parts["eps_to_zero_limit"]
    assert lim.verdict == V.REFUTED
    # the exact lower bound never exceeds the grid ground state (an upper bound) at the same eps, and every
    # value is listed under its own eps (not read by index against another eps list)
    grid = lim.numbers["e_star_eps_grid_upper_bound_by_eps"]["s2"]
    sandwich = lim.numbers["sandwich_s2_at_grid_eps"]
    assert set(grid) == set(sandwich) == {"0.2", "0.1", "0.05"}
    for key, e_grid in grid.items():
        eps = float(key)
        lb = -0.8 + 0.5 * eps ** -2 / (2 * math.ceil(2 / eps))
        assert lb <= e_grid + 1e-9
        assert sandwich[key] == {"lower_bound": pytest.approx(lb, rel=1e-12), "grid_upper_bound": e_grid}
    assert lim.numbers["sandwich_consistent"] is True
    for key, lb in lim.numbers["lower_bound_by_eps"].items():
        eps = float(key)
        assert lb == pytest.approx(-0.8 + 0.5 * eps ** -2 / (2 * math.ceil(2 / eps)), rel=1e-12)
    assert lim.numbers["lim_eps->0_of_the_lower_bound (sympy)"] == "oo"
    assert lim.counterexample["e_star_eps_at_least"] > 1e4


def test_lemma9_10_at_fixed_eps_confirmed_by_their_proofs():
    ev = _check_record("particles.lemma9_10_regime2", "proofs_check.checks.particles.lemma9_10_regime2")
    for name in ("lemma9_sanov_negligible", "lemma10_partition", "bound_A65", "bound_A69"):
        part = ev.parts[name]
        assert part.verdict == V.CONFIRMED and part.scope.kind == "proof" and part.scope.universal
        assert part.notes.startswith("Proof")
    # the typos are notes only
    assert "e*_M" in ev.notes and "H_{s,M}" in ev.notes and "along a subsequence" in ev.notes
    # the two-point instance re-derived with mpmath at N = 1000: Omega = {-1, 1}, rho uniform, s = 2, eps = 0.1
    inst = ev.parts["lemma10_partition"].numbers["two_point_instance"]
    mpmath.mp.dps = 40
    v = lambda w: -mpmath.cos(3 * w) / 2 + mpmath.mpf("0.3") * w           # noqa: E731
    lam, g0, g2 = mpmath.mpf("0.5"), mpmath.mpf(100), mpmath.mpf("0.25")
    H = lambda q: v(-1) * (1 - q) + v(1) * q + lam / 2 * (g0 * ((1 - q) ** 2 + q ** 2) + 2 * g2 * q * (1 - q))  # noqa: E731
    qs = [mpmath.mpf(i) / 100000 for i in range(100001)]
    e_star = min(H(q) for q in qs[40000:60000])
    assert float(e_star) == pytest.approx(inst["e_star_eps"], abs=1e-8)
    N = 1000
    beta = mpmath.mpf(N) ** mpmath.mpf("1.5")
    Z = mpmath.fsum(mpmath.binomial(N, k) * mpmath.mpf(2) ** -N * mpmath.exp(-beta * H(mpmath.mpf(k) / N))
                    for k in range(N + 1))
    row = [r for r in inst["rows"] if r["N"] == N][0]
    assert float(mpmath.log(Z) / beta) == pytest.approx(row["logZ_over_beta"], rel=1e-12)
    assert float(mpmath.log(Z) / beta) <= -float(e_star)                         # Lemma 10's upper bound
    PF = mpmath.fsum(mpmath.binomial(N, k) * mpmath.mpf(2) ** -N * mpmath.exp(-beta * H(mpmath.mpf(k) / N))
                     for k in range(700, N + 1)) / Z
    assert float(mpmath.log(PF) / beta) == pytest.approx(row["logP_F_over_beta"], rel=1e-10)
    # the gaps to the limits shrink with N; A.65's bound is -(H(0.7) - e*)
    assert inst["A65_bound"] == pytest.approx(-float(H(mpmath.mpf("0.7")) - e_star), abs=1e-8)
    checks = ev.parts["lemma10_partition"].numbers["instance_checks"]
    assert all(b < a for a, b in zip(checks["gap_logZ"], checks["gap_logZ"][1:]))
    # Lemma 9's binomial instance: (1/N) log Q_N(U) >= -min KL - log(N+1)/N (method of types) at every N
    l9 = ev.parts["lemma9_sanov_negligible"].numbers
    assert l9["types_lower_bound_holds_every_N"] is True and l9["step4_limit_(sympy, beta_N = N^1.5)"] == "0"


def test_goodness_refuted_on_open_domain():
    ev = _check_record("particles.goodness_and_free_energy",
                       "proofs_check.checks.particles.goodness_and_free_energy")
    assert ev.verdict == V.REFUTED
    good = ev.parts["goodness"]
    J = [math.cos(3.0 / n) + 0.5 * 0.05 ** -2 / 2 + 1 for n in good.numbers["n"]]
    assert max(J) == pytest.approx(good.repro.expected, rel=1e-12)
    assert "compact_domain" in good.other_readings
    conc = ev.parts["concentration"]
    gaps = conc.numbers["N3_instance"]["E_beta[H] - min H"]
    assert all(b < a for a, b in zip(gaps, gaps[1:]))
    # E.9 as printed fails at beta_N = N: independent quadrature of the Chernoff exponent (scipy.integrate.quad)
    from scipy.integrate import quad
    b = conc.numbers["beta_N=N"]
    Vf = lambda w: -math.cos(3 * w) / 2 + 0.3 * w                      # noqa: E731
    th, lam, g0, t = b["theta"], b["lam"], b["g(0)"], b["t"]
    num = quad(lambda w: math.exp(-(1 + th) * Vf(w)), -1, 1, limit=200)[0]
    den = quad(lambda w: math.exp(-Vf(w)), -1, 1, limit=200)[0]
    rate = lam * g0 / 2 + th * (b["min_V"] + lam * g0 / 2 + t) + math.log(num / den)
    assert rate == pytest.approx(b["rate_bound_(1/N)logP"], abs=1e-6) and rate < 0
    assert conc.verdict == V.REFUTED and lam == 1e-3
    assert conc.other_readings["beta_N_over_N_to_inf"].verdict == V.CONFIRMED
    # the deciding threshold: value 0 (the sign of the rate bound), flip at the measured bound (registry.Threshold)
    th_ = conc.thresholds[0]
    assert th_.value == 0.0 and th_.flip == th_.measured == pytest.approx(rate, abs=1e-6)
    # fixed N, beta -> inf (Laplace principle): its own reading, proved; the N = 3 gaps fall towards 0
    fx = conc.other_readings["fixed_N_beta_to_inf"]
    assert fx.verdict == V.CONFIRMED and fx.scope.kind == "proof"
    assert fx.numbers["N3_instance"]["E_beta[H] - min H"] == gaps and gaps[-1] < 0.01 * gaps[0]
    # the goodness counterexample concerns J^eps only (bare E_s(delta) = +inf)
    assert "(and J_s)" not in good.reading.text and "J^eps only" in good.reading.text
