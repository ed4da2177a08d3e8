"""Tests of the particles LDP checks (thm2_ldp, thm2_kernel_concentration, lemma7, lemma8,
lemma9_10_regime2, goodness_and_free_energy): numbers re-derived independently."""
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from checkrun import assert_valid_evidence, run_quick
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
    assert ev.verdict == V.NOT_CHECKABLE
    r = ev.other_readings["softened_kernel"]
    hi = r.numbers["slope_ci95"][1]
    want = V.CONFIRMED if (np.isfinite(hi) and hi < 0) else V.INCONCLUSIVE
    assert r.verdict == want


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


def test_lemma9_10_refuted_bound_below_grid_minimum():
    ev = _check_record("particles.lemma9_10_regime2", "proofs_check.checks.particles.lemma9_10_regime2")
    assert ev.verdict == V.REFUTED
    lim = ev.parts["eps_to_zero_limit"]
    assert lim.verdict == V.REFUTED
    # the exact lower bound never exceeds the grid ground state (an upper bound) at the same eps, and every
    # value is listed under its own eps (not read by index against another eps list)
    grid = ev.parts["lemma10_partition"].numbers["e_star_eps_grid_upper_bound_by_eps"]["s2"]
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


def test_goodness_refuted_on_open_domain():
    ev = _check_record("particles.goodness_and_free_energy",
                       "proofs_check.checks.particles.goodness_and_free_energy")
    assert ev.verdict == V.REFUTED
    good = ev.parts["goodness"]
    J = [math.cos(3.0 / n) + 0.5 * 0.05 ** -2 / 2 + 1 for n in good.numbers["n"]]
    assert max(J) == pytest.approx(good.repro.expected, rel=1e-12)
    assert "compact_domain" in good.other_readings
    gaps = ev.parts["concentration"].numbers["E_beta[H] - min H"]
    assert all(b < a for a, b in zip(gaps, gaps[1:]))
