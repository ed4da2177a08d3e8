"""Tests of proofs_check/checks/particles_synthetic.py (claims.md C6).

Each check runs at level quick, seed 0; the fields the Record lines ask for are asserted, and the
decisive numbers are re-derived independently: the Bayes ceiling at sigma = 1e2 by SciPy
quadrature of the logistic-normal integral, the flop ratios from the formulas written out, the
distance exponents from closed forms (E|U - V| = 1/3 in 1-D for every N; nearest-neighbour
spacing ~ 1/N), and the caption order of Table 4 by sorting the printed exponents here.
"""
import numpy as np
import pytest
from scipy import integrate, special, stats

from proofs_check import verdicts as V
from proofs_check.checks import particles_synthetic as M
from yatmath.particles import synthetic as S
from checkrun import run_quick as run

FUNCS = {"particles.synthetic.generator": M.check_generator, "particles.synthetic.fig1": M.check_fig1,
         "particles.synthetic.fig3_ablation": M.check_fig3,
         "particles.synthetic.runtime_fits": M.check_runtime_fits,
         "particles.synthetic.feature_budget": M.check_feature_budget,
         "particles.complexity_table3": M.check_complexity,
         "particles.scaling_factor_and_repulsion": M.check_scaling}


@pytest.mark.parametrize("cid", sorted(FUNCS))
def test_valid_evidence(cid):
    ev = run(cid)
    assert ev.verdict in V.VERDICTS
    assert all(p.verdict in V.VERDICTS for p in ev.parts.values())
    if ev.verdict == V.REFUTED:
        assert ev.counterexample and ev.repro
    if ev.verdict == V.NOT_CHECKABLE:
        assert ev.notes
    ev.to_dict()        # JSON-ready


def test_generator_records_bayes_curve_and_se():
    ev = run("particles.synthetic.generator")
    b = ev.numbers["bayes_test"]
    assert len(b) == 11 and ev.numbers["test_se_at_120"]["0.50"] == pytest.approx(np.sqrt(0.25 / 120))
    # independent: sigma = 10 Bayes accuracy by SciPy quad on the 120 test points
    d = S.make_design()
    l = d.logit[d.test]
    pi = [integrate.quad(lambda z: special.expit(li + 10 * z) * stats.norm.pdf(z), -12, 12,
                         points=[-li / 10], limit=200)[0] for li in l]
    assert b[6] == pytest.approx(np.mean(np.maximum(pi, 1 - np.array(pi))), abs=1e-5)
    assert ev.verdict == V.CONFIRMED


def test_fig1_records_paired_differences_and_is_reduced():
    ev = run("particles.synthetic.fig1")
    assert ev.numbers["protocol_reduced"] is True
    for k in ("optimised_rf_beats_rff", "langevin_beats_importance_sampling"):
        p = ev.parts[k]
        assert p.verdict == V.INCONCLUSIVE and {"mean", "lo", "hi"} <= set(p.numbers)
    assert set(ev.numbers["mean_acc"]) >= set(M.FIG1_METHODS)
    # printed eta = 30 with clip 1 and radius 5: particles end on the sphere
    assert ev.numbers["printed_langevin_frac_on_sphere"] > 0.9


def test_fig3_bayes_ceiling_counterexample():
    ev = run("particles.synthetic.fig3_ablation")
    part = ev.parts["few_points_gain_possible_up_to_1e2"]
    ce = part.counterexample
    assert ce is not None and ce["sigma"] == 100.0
    assert part.parts["R_whole_range"].verdict == V.REFUTED and part.verdict == V.AMBIGUOUS
    # the comparisons are downgraded at the reduced quick budget
    assert all(p.verdict == V.INCONCLUSIVE for p in ev.parts["coulomb"].parts.values())
    d = S.make_design()
    l = d.logit[d.test]
    pi = np.array([integrate.quad(lambda z: special.expit(li + 100 * z) * stats.norm.pdf(z), -10, 10,
                                  points=[-li / 100], limit=400)[0] for li in l])
    bayes = np.mean(np.maximum(pi, 1 - pi))
    assert bayes - 0.5 < 0.03 and bayes == pytest.approx(ce["bayes_accuracy"], abs=1e-4)


def test_runtime_order_and_implied_times():
    ev = run("particles.synthetic.runtime_fits")
    printed = {"mkl": 1.961, "rbf_svm": 1.477, "sinha_duchi": 0.967, "rff": 0.799, "langevin": 0.730,
               "logistic": 0.021}
    assert sorted(printed, key=lambda m: -printed[m]) == list(ev.parts["caption_order_matches_exponents"]
                                                               .numbers["order_by_gamma"])
    assert ev.numbers["implied_seconds"]["langevin"]["280"] == pytest.approx(0.382 * 280 ** 0.73)
    # MKL/Langevin crossover: 8e-5 n^1.961 = 0.382 n^0.730
    n_star = (0.382 / 8.0e-5) ** (1 / (1.961 - 0.730))
    assert ev.numbers["crossover_n"]["mkl/langevin"] == pytest.approx(n_star, rel=1e-9)
    assert ev.parts["timings"].verdict == V.INCONCLUSIVE


def test_feature_budget_searches_text_and_runs_substitute():
    ev = run("particles.synthetic.feature_budget")
    assert ev.verdict == V.NOT_CHECKABLE and ev.numbers["supporting_experiment_in_004"] is False
    sub = ev.numbers["substitute"]["rff"]
    assert sub["ratio"] == pytest.approx(sub["acc64"] / sub["acc256"])


def test_complexity_ratios_by_hand():
    ev = run("particles.complexity_table3")
    ce = ev.parts["R_total"].counterexample
    flops = ce["T"] * (4 * ce["n"] * ce["N"] * ce["d"] + 3 * ce["N"] ** 2 * ce["d"])
    assert flops / (ce["n"] * ce["D"] ** 2) == pytest.approx(ce["ratio"]) and ce["ratio"] > 100
    assert ev.parts["R_per_iteration"].verdict in (V.CONFIRMED, V.CONFIRMED_LOOSE)
    assert ev.verdict == V.AMBIGUOUS


def test_scaling_exponents_against_closed_forms():
    ev = run("particles.scaling_factor_and_repulsion")
    e = ev.numbers["exponents"]
    # E|U - V| = 1/3 for every N in 1-D: pairwise exponent 0; NN spacing ~ 1/(2N): exponent -1
    assert abs(e["1"]["pair"]) < 0.05 and e["1"]["nn"] == pytest.approx(-1.0, abs=0.1)
    assert e["2"]["nn"] == pytest.approx(-0.5, abs=0.1)
    assert ev.parts["R_pairwise"].verdict == V.REFUTED
    assert ev.parts["R_nearest_neighbour"].verdict == V.CONFIRMED
    assert ev.numbers["factor_in_formula"] is False
