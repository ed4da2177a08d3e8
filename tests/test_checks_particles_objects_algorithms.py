"""Ledger checks of claims.md C1-C2 (particles objects and algorithms) at level quick, seed 0.

Each check runs once (module fixture).  The tests assert a valid verdict, the fields the
catalogue's Record lines ask for, and re-evaluate the stored counterexamples / key numbers
independently (plain formulas, mpmath, scipy) rather than through the check's own code.
"""
import math

import mpmath as mp
import numpy as np
import pytest
from checkrun import assert_valid_evidence

import yatmath.particles as P
from proofs_check import verdicts as V
from proofs_check.checks import particles_objects_algorithms as M
from proofs_check.registry import REGISTRY, Context

IDS = ["particles.kernel.feature_range", "particles.hamiltonian_forms",
       "particles.lemma3_kta_trig_energy.b7", "particles.lemma3_kta_trig_energy.b8_b9",
       "particles.kta_objectives", "particles.alg.update_scaling", "particles.alg.invariant_law",
       "particles.alg.projection", "particles.alg.stopping_rules", "particles.alg.reweighting"]

mp.mp.dps = 40


@pytest.fixture(scope="module")
def results():
    return {cid: REGISTRY[cid].func(Context("quick", 0, cid)) for cid in IDS}


@pytest.mark.parametrize("cid", IDS)
def test_registered_and_valid(results, cid):
    assert_valid_evidence(cid, results[cid], M)


def test_feature_range_record_and_counterexample(results):
    ev = results["particles.kernel.feature_range"]
    assert set(ev.numbers["range_per_map"]) == set(P.MAPS)          # range per map
    assert "identity_max_z" in ev.numbers                             # identity residual
    ce = ev.counterexample
    # plain formula: sqrt(2) cos(0 * 0 + 0) = sqrt 2 > 1
    assert math.sqrt(2) * math.cos(ce["omega"][0] * ce["x"][0] + ce["b"]) == pytest.approx(ce["phi"])
    assert ce["phi"] > 1.0
    assert ev.verdict == V.REFUTED


def test_favor_kernel_diagonal_closed_form_by_quadrature():
    # E_{w ~ N(0,1)} exp(2 w x - x^2) = exp(x^2), by mpmath quadrature (d = 1, x = 0.7)
    x = mp.mpf("0.7")
    val = mp.quad(lambda w: mp.exp(2 * w * x - x ** 2) * mp.npdf(w), [-mp.inf, mp.inf])
    assert float(val) == pytest.approx(math.exp(0.49), rel=1e-12)
    m, se, closed = M.kernel_diagonal_mc("favor", np.array([0.7]), 20000, np.random.default_rng(1))
    assert closed == pytest.approx(math.exp(0.49), rel=1e-14)
    assert abs(m - closed) < 5 * se


def test_hamiltonian_forms_record(results):
    ev = results["particles.hamiltonian_forms"]
    assert ev.numbers["residual_eq2.2_R1"] < 1e-12
    # the literal 0..n range: n + 1 = 13 points under 1/(n(n-1)) with n = 12 -> (n+1)/(n-1)
    assert ev.numbers["ratio_literal_range"] == pytest.approx(13 / 11, rel=1e-9)
    assert ev.parts["formula_eq2.2"].verdict == V.AMBIGUOUS


def _E_loops_mp(X, y, w, b):
    """E_N of B.6 for N = 1, d = 1 in 40-digit arithmetic (plain double loop)."""
    n = len(y)
    phi = [mp.sqrt(2) * mp.cos(mp.mpf(w) * mp.mpf(X[i]) + b) for i in range(n)]
    tot = mp.fsum(y[i] * y[j] * phi[i] * phi[j] for i in range(n) for j in range(n) if i != j)
    return -tot / (n * (n - 1))


def test_b7_counterexample_mpmath(results):
    ev = results["particles.lemma3_kta_trig_energy.b7"]
    assert ev.verdict == V.REFUTED
    ce = ev.counterexample
    X = [r[0] for r in ce["X"]]
    y = ce["y"]
    vals = []
    for cfg in ce["configs"]:
        w, b = cfg["omega"][0][0], cfg["b"][0]
        E = _E_loops_mp(X, y, w, b)
        C2 = mp.fsum(y[i] * mp.cos(w * X[i] + b) for i in range(3)) ** 2
        vals.append(E + mp.mpf(2) / 9 * C2)
    # B.7 says E_N + (2/n^2)||y^T C||^2 is constant in (Omega, b): it is not
    assert abs(float(vals[0] - vals[1])) > 1e-3
    assert float(vals[0] - vals[1]) == pytest.approx(ce["difference"], rel=1e-10)
    assert "R2" in ev.numbers["per_N"][8] and "coef" in ev.numbers["per_N"][8]


def test_b8_constant_and_final_display(results):
    ev = results["particles.lemma3_kta_trig_energy.b8_b9"]
    n, N = 40, 6
    assert ev.numbers["constant_B8"] == pytest.approx(1 / (n - 1), abs=1e-12)
    assert ev.numbers["prefactor_ratio"] == pytest.approx(N * (n - 1) / n)
    assert ev.parts["B8"].verdict == V.CONFIRMED
    assert ev.parts["A2_final_display_-1/n^2"].verdict == V.REFUTED


def test_phase_average_by_dense_rule():
    # the 3-point rule equals a 64-point uniform rule (both exact for degree-2 trig polynomials)
    rng = np.random.default_rng(3)
    X, y = M.lemma3_data(rng, n=10, d=2)
    H = P.Hamiltonian(X, y, backend="numpy")
    Om = rng.standard_normal((1, 2))
    dense = np.mean([H.energy(Om, np.array([q])) for q in 2 * np.pi * np.arange(64) / 64])
    assert M.phase_average_energy(H, Om) == pytest.approx(dense, rel=1e-12, abs=1e-15)
    assert M.phase_average_energy(H, Om) == pytest.approx(M.b8_expression(X, y, Om) + 1 / 9,
                                                          rel=1e-12)


def test_kta_scale_exponents_plain(results):
    ev = results["particles.kta_objectives"]
    ex = ev.numbers["scale_exponents"]
    assert ex["printed_max"] == pytest.approx(2.0, abs=1e-9)
    assert abs(ex["centred_kta_max"]) < 1e-9
    # plain uncentred KTA: <K, yy^T>/(||K|| ||yy^T||) is invariant under Phi -> 3 Phi
    rng = np.random.default_rng(0)
    Phi = rng.standard_normal((9, 4))
    y = rng.choice([-1.0, 1.0], 9)

    def kta(F):
        K = F @ F.T
        Y = np.outer(y, y)
        return np.sum(K * Y) / (np.linalg.norm(K) * np.linalg.norm(Y))
    assert P.alignment(Phi, y, objective="kta")[0] == pytest.approx(kta(Phi), rel=1e-12)
    assert kta(3 * Phi) == pytest.approx(kta(Phi), rel=1e-12)
    assert ev.numbers["i<j_normaliser_over_ordered_mean"] == pytest.approx(0.5, rel=1e-12)


def test_update_scaling(results):
    ev = results["particles.alg.update_scaling"]
    assert ev.numbers["sympy_N3"] == "0"
    lo, hi = ev.numbers["loo_ci"]
    assert lo - 0.1 <= -1.0 <= hi + 0.1           # C/N
    assert ev.numbers["fd_max_rel"] < 1e-6


def test_invariant_law_readings(results):
    ev = results["particles.alg.invariant_law"]
    q = ev.numbers["quadratic"]
    # exact AR(1) stationary variance (2 eta/beta)/(1 - (1 - eta a)^2), a = 1
    eta, beta = q["eta"], q["beta"]
    assert q["exact_AR1_var"] == pytest.approx((2 * eta / beta) / (1 - (1 - eta) ** 2), rel=1e-5)
    assert abs(q["measured_var"] - q["exact_AR1_var"]) < 4 * q["se"]
    assert ev.parts["R2"].verdict == V.CONFIRMED and ev.parts["R1"].verdict == V.REFUTED
    assert ev.verdict == V.AMBIGUOUS


def test_projection(results):
    ev = results["particles.alg.projection"]
    assert ev.numbers["max_lipschitz_ratio"] <= 1 + 1e-12
    # a plain-formula pair for the ball of radius 5: projections of +-(3,...,3) in d = 10
    a = np.full(10, 3.0)
    pa = a * min(1.0, 5.0 / np.linalg.norm(a))
    assert np.linalg.norm(2 * pa) / np.linalg.norm(2 * a) <= 1.0
    lo, _ = ev.numbers["order_projected_ci"]
    assert lo > 0.0                                 # projected Euler converges (order ~ 1/2)


def test_stopping_bound_mpmath(results):
    ev = results["particles.alg.stopping_rules"]
    ce = ev.counterexample
    assert ev.verdict == V.REFUTED
    sig = math.sqrt(2 * 2e-3 / 50)
    # P(chi_63 < t/sigma) = regularised lower incomplete gamma(63/2, x^2/2)
    x = mp.mpf(1e-6) / mp.mpf(sig)
    p = mp.gammainc(mp.mpf(63) / 2, 0, x ** 2 / 2, regularized=True)
    assert float(mp.log10(p)) == pytest.approx(ce["log10_P_one_particle_moves_less_than_tol"], rel=1e-6)
    assert ce["simulated_min_max_move"] > 1e-6
    assert ev.numbers["F2"]["stop_reason"] == "t_max"


def test_reweighting_targets(results):
    ev = results["particles.alg.reweighting"]
    assert ev.verdict == V.REFUTED
    for r in ("a", "b"):
        pr = ev.numbers["per_reading"][r]
        assert pr["W1_to_reading_target"] < pr["W1_to_gibbs_rho_inf"]
    # analytic: at the fixed point rho = exp(-beta U)/Z, so rho exp(-beta U) ∝ rho^2
    grid, model, rho, _, _ = M.reweighting_setup(M=200)
    U = model.potential(rho)
    ta = grid.normalise(rho * np.exp(-5.0 * (U - U.min())))
    assert np.max(np.abs(ta - grid.normalise(rho ** 2))) < 1e-8 * np.max(ta)
