"""Tests of the particles object and algorithm checks (kernel, hamiltonian_forms, lemma3, kta_objectives,
alg.*): numbers re-derived independently."""
import importlib
import math
import numpy as np

import pytest
import sympy as sp
from scipy import stats

from tests.checkrun import assert_valid_evidence, run_quick
from proofs_check import verdicts as V
from proofs_check.registry import load_all

load_all()
MOD = {"particles.kernel.feature_range": "kernel", "particles.hamiltonian_forms": "hamiltonian_forms",
       "particles.lemma3_kta_trig_energy.b7": "lemma3_kta_trig_energy",
       "particles.lemma3_kta_trig_energy.b8_b9": "lemma3_kta_trig_energy",
       "particles.kta_objectives": "kta_objectives", "particles.alg.update_scaling": "alg",
       "particles.alg.invariant_law": "alg", "particles.alg.projection": "alg",
       "particles.alg.stopping_rules": "alg", "particles.alg.reweighting": "alg"}


def _ev(cid):
    ev = run_quick(cid)
    assert_valid_evidence(cid, ev, importlib.import_module("proofs_check.checks.particles." + MOD[cid]))
    return ev


def test_feature_range_refuted_by_sqrt2():
    ev = _ev("particles.kernel.feature_range")
    assert ev.verdict == V.REFUTED
    assert ev.parts["range_[-1,1]"].counterexample["phi"] == pytest.approx(math.sqrt(2) * math.cos(0.0))
    # the claim line carries the refuted part's reproduction (not "the check gave no reproduction")
    from proofs_check.cli import format_repro
    from proofs_check.repro import run_repro
    assert ev.repro is not None and ev.repro.to_dict() == ev.parts["range_[-1,1]"].repro.to_dict()
    value, ok = run_repro(ev.repro.to_dict())
    assert ok and value == pytest.approx(math.sqrt(2), rel=1e-15)
    assert "features(" in format_repro(ev.to_dict()["repro"])


def test_hamiltonian_forms_confirmed():
    ev = _ev("particles.hamiltonian_forms")
    assert ev.verdict == V.CONFIRMED
    assert ev.numbers["library_vs_loops_rel_residual"] < 1e-12
    r = sp.Symbol("r", positive=True)
    assert sp.simplify(sp.diff(r ** -1, r, 2) + 2 / r * sp.diff(r ** -1, r)) == 0   # d = 3 Coulomb


def _plain_EN(X, y, w, b):
    n = len(y)
    phi = [math.sqrt(2) * math.cos(x * w + b) for x in X]
    return -sum(y[i] * y[j] * phi[i] * phi[j] for i in range(n) for j in range(n) if i != j) / (n * (n - 1))


def test_b7_counterexample_plain_formula():
    ev = _ev("particles.lemma3_kta_trig_energy.b7")
    assert ev.verdict == V.REFUTED
    X, y = [0.0, 1.0, 2.0], [1.0, -1.0, 1.0]
    r = lambda w: _plain_EN(X, y, w, 0.0) + 2 / 9 * sum(yi * math.cos(x * w) for x, yi in zip(X, y)) ** 2  # noqa: E731
    assert ev.counterexample["E_N_plus_B7_term_difference"] == pytest.approx(r(0.0) - r(1.0), rel=1e-10)
    assert abs(r(0.0) - r(1.0)) > 1e-3


def test_b8_b9_confirmed_and_literal_display_refuted():
    ev = _ev("particles.lemma3_kta_trig_energy.b8_b9")
    assert ev.verdict == V.CONFIRMED
    lit = ev.other_readings["final_display_-1/n^2"]
    X, y = [0.0, 1.0, 2.0], [1.0, -1.0, 1.0]
    # exact phase average by the closed form (1/(n(n-1))) * (-(|z|^2 - n)) for N = 1
    def avg(w):
        z2 = sum(yi * math.cos(x * w) for x, yi in zip(X, y)) ** 2 + sum(yi * math.sin(x * w) for x, yi in zip(X, y)) ** 2
        return -(z2 - 3) / 6, z2
    r = lambda w: avg(w)[0] + avg(w)[1] / 9           # noqa: E731
    assert lit.verdict == V.REFUTED
    assert lit.counterexample["difference"] == pytest.approx(r(0.0) - r(1.0), rel=1e-9)


def test_kta_objectives_scale_exponents():
    ev = _ev("particles.kta_objectives")
    assert ev.verdict == V.CONFIRMED
    e = ev.numbers["scale_exponent_under_phi->3phi"]
    assert e["printed"] == pytest.approx(2.0, abs=1e-9) and abs(e["centred_kta"]) < 1e-9


def test_update_scaling_and_projection():
    ev = _ev("particles.alg.update_scaling")
    assert ev.verdict == V.CONFIRMED
    assert max(ev.numbers["fd_max_rel_residual_per_N"].values()) < 1e-6
    assert ev.bounds[0].claimed == ev.bounds[0].tight == 1.0          # the C/N leave-one-out rate is tight
    pr = _ev("particles.alg.projection")
    # A.8 read as the paper uses it (an identity: projected step = discrete Skorokhod step; convergence is
    # assumed, A.11 / Thm 1) and A.14 are proved; convergence is another reading, NOT_CHECKABLE
    assert pr.verdict == V.CONFIRMED
    ident = pr.parts["projected_euler_is_the_reflected_scheme"]
    assert ident.verdict == V.CONFIRMED and ident.scope.kind == "proof" and ident.reading is not None
    assert pr.parts["reflection_monotone_A14"].verdict == V.CONFIRMED
    assert pr.parts["nonexpansive_projection"].scope.kind == "proof"
    # independent: the normal-cone condition of the projection onto a ball, by hand
    rng = np.random.default_rng(3)
    R, y = 1.5, rng.standard_normal(64) * 4
    z = y * min(1.0, R / np.linalg.norm(y))
    w = rng.standard_normal((500, 64)); w *= R * rng.random((500, 1)) ** (1 / 64) / np.linalg.norm(w, axis=1, keepdims=True)
    assert np.max((w - z) @ (y - z)) <= 1e-12
    # the exact instance (Spitzer's identity): weak error of projected Euler at the boundary ~ 0.5826 sqrt(h)
    conv = ident.other_readings["convergence_of_the_scheme"]
    assert conv.verdict == V.NOT_CHECKABLE
    werr = conv.numbers["instance_weak_error_E[X_1]"]
    zeta_half = -1.4603545088095868
    assert werr["1e-06"] == pytest.approx(-zeta_half / math.sqrt(2 * math.pi) * 1e-3, rel=1e-2)
    assert conv.tried is not None and conv.numbers["instance_fitted_order_h<=1e-4"] == pytest.approx(0.5, abs=0.01)
    assert pr.parts["nonexpansive_projection"].numbers["maximiser"] is not None
    assert max(pr.parts["nonexpansive_projection"].numbers["max_ratio_per_domain"].values()) <= 1 + 1e-12


def test_invariant_law_factor_N():
    ev = _ev("particles.alg.invariant_law")
    assert ev.verdict == V.REFUTED
    eta, beta, a, N = sp.Rational(1, 50), sp.Integer(2), sp.Integer(1), 8
    want = (2 * eta / beta) / (1 - (1 - eta * a) ** 2) / (N / (beta * a))
    assert ev.counterexample["iteration_variance_over_E7_variance"] == pytest.approx(float(want), rel=1e-12)
    # the library chain agrees with the exact AR(1) variance (95% interval, 3 se)
    num = ev.numbers
    assert abs(num["yatmath_chain_var"] - num["stationary_var_exact"]) < 3 * num["yatmath_chain_se"] + 0.01
    assert ev.other_readings["R2_beta_N=N_beta"].verdict == V.CONFIRMED


def test_stopping_rule_bound_is_above_true_probability():
    ev = _ev("particles.alg.stopping_rules")
    # F.2's epoch cap terminates Phase A; its 1e-6 early stop is vacuous (another reading, refuted);
    # Alg 1-2 (no step cap) with the one (D, delta) 004 prints never stop: the claim is refuted
    assert ev.verdict == V.REFUTED
    dr = ev.parts["Alg1_D_rule"]
    assert dr.verdict == V.REFUTED and dr.counterexample["delta"] == 1e-6 and dr.counterexample["d"] == 64
    assert dr.repro is not None and dr.repro.expected < -200
    assert min(dr.numbers["noise_floor_min_over_steps"].values()) > 1e3 * 1e-6
    f2 = ev.parts["F2_epoch_cap_and_early_stop"]
    assert f2.verdict == V.CONFIRMED and f2.other_readings["early_stop_rule_alone"].verdict == V.REFUTED
    lb = f2.other_readings["early_stop_rule_alone"].counterexample[
        "log10_P_one_particle_moves_less_than_tol_per_step"]
    sig = math.sqrt(2 * 2e-3 / 50)
    true = stats.chi(63).logcdf(1e-6 / sig) / math.log(10)
    assert true <= lb + 1e-9 and lb < -200
    # the stopping time is finite with probability 1 (expected wait >= 10^-lb steps), not "never": the verdict is
    # judged at horizons below the flip point 0.05 / 10^lb (union bound), recorded
    flip_h = dr.numbers["log10_horizon_flip_steps"]
    assert flip_h == pytest.approx(math.log10(0.05) - lb, abs=1e-12) and flip_h > 280
    wait = dr.numbers["log10_expected_wait_steps_at_least"]
    assert wait == pytest.approx(-lb) and wait > 293
    assert "finite with probability 1" in dr.notes and "never stop" not in ev.notes + dr.notes


def test_reweighting_halves_variance():
    ev = _ev("particles.alg.reweighting")
    assert ev.verdict == V.REFUTED
    assert ev.counterexample["ratio"] == pytest.approx(0.5, abs=0.05)
