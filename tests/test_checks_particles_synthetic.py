"""Tests of the particles synthetic / Table 3 / scaling checks: numbers re-derived independently."""
import importlib

import numpy as np
import pytest

from checkrun import assert_valid_evidence, run_quick
from proofs_check import verdicts as V
from proofs_check.registry import load_all

load_all()


def _ev(cid, mod):
    ev = run_quick(cid)
    assert_valid_evidence(cid, ev, importlib.import_module("proofs_check.checks.particles." + mod))
    return ev


def test_generator_confirmed():
    ev = _ev("particles.synthetic.generator", "synthetic")
    assert ev.verdict == V.CONFIRMED
    assert ev.parts["split_280_120"].numbers == {"n_train": 280, "n_test": 120}
    th = ev.parts["labels_follow_bayes_posterior"].thresholds[0]
    assert th.value == pytest.approx(__import__("scipy").stats.norm.ppf(1 - 0.005 / 11))


def test_fig1_operative_p5_and_p10_beside():
    from scipy import stats
    from sklearn.svm import SVC

    from yatmath.particles import synthetic as S

    ev = _ev("particles.synthetic.fig1", "synthetic")
    # part 1 NOT_CHECKABLE ('substantially' vague), parts 2-3 INCONCLUSIVE: the claim follows rule 2
    assert ev.verdict == V.NOT_CHECKABLE and ev.numbers["p"] == 5
    p1 = ev.parts["rbf_tuned_best_and_misspecified_underperform"]
    assert p1.verdict == V.NOT_CHECKABLE and p1.numbers["p"] == 5
    assert p1.thresholds[0].value == pytest.approx(1 / 120)
    assert p1.numbers["premise_gamma_0.5_tuned"]["gamma_0.5_tuned_vs_0.1"]
    # independently at p = 5: gamma = 0.5 vs both mis-specified gammas, lower ends above one test point
    data = S.make_design(p=5)
    tr, te = data.train, data.test
    for g_other in (0.01, 100.0):
        diffs = []
        for si, sig in enumerate(S.sigma_grid(11)):
            for t in range(p1.numbers["trials"]):
                y = S.draw_labels(data.logit, sig, si, t)
                acc = [np.mean(SVC(kernel="rbf", gamma=g, C=1.0).fit(data.X[tr], y[tr]).predict(data.X[te])
                               == y[te]) for g in (0.5, g_other)]
                diffs.append(acc[0] - acc[1])
        diffs = np.array(diffs)
        half = stats.t.ppf(0.975, diffs.size - 1) * diffs.std(ddof=1) / np.sqrt(diffs.size)
        assert diffs.mean() - half > 1 / 120
    assert p1.numbers["rbf_minus_other_acc_points"]["logistic"]["lo"] > 0
    # p = 10 beside: its premise fails (gamma = 0.1 beats gamma = 0.5 at low noise), its gap is < 1 point
    b10 = p1.other_readings["p_10_fig2_caption_premise_fails"]
    assert b10.numbers["p"] == 10 and b10.numbers["premise_gamma_0.5_tuned"]["gamma_0.1_beats_0.5"]
    assert b10.verdict == V.REFUTED and b10.counterexample["ci95_points"][1] < 100 / 120
    # part 2 at p = 5: accuracy gain, F1 interval straddles 0 at the quick budget
    p2 = ev.parts["optimised_rf_beats_rff"]
    assert p2.verdict == V.INCONCLUSIVE and p2.numbers["p"] == 5 and ">= 30 trials" in p2.notes
    d = np.array(p2.repro.bindings["a"]) - np.array(p2.repro.bindings["b"])
    hw = stats.t.ppf(0.975, d.size - 1) * d.std(ddof=1) / np.sqrt(d.size)
    assert d.mean() - hw < 0 < d.mean() + hw and d.mean() + hw == pytest.approx(p2.thresholds[0].measured, rel=1e-12)
    assert ev.parts["langevin_beats_importance_sampling"].verdict == V.INCONCLUSIVE


def test_fig3_vague():
    ev3 = _ev("particles.synthetic.fig3_ablation", "synthetic")
    assert ev3.verdict == V.NOT_CHECKABLE
    ceil = ev3.parts["few_points_gain"].numbers["bayes_minus_half"]
    assert ceil["100"] < 0.01 < ceil["1"]     # the vague word is decided differently across the range


def test_runtime_and_feature_budget():
    ev = _ev("particles.synthetic.runtime_fits", "synthetic")
    assert ev.verdict == V.NOT_CHECKABLE
    # MKL / Langevin crossover from the printed numbers, by hand
    n = (0.382 / 8.00e-5) ** (1 / (1.961 - 0.730))
    assert ev.numbers["crossover_n"]["mkl/langevin"] == pytest.approx(n, rel=1e-12)
    fb = _ev("particles.synthetic.feature_budget", "synthetic")
    assert fb.verdict == V.NOT_CHECKABLE


def test_complexity_ratio():
    ev = _ev("particles.complexity_table3", "complexity_table3")
    assert ev.verdict == V.CONFIRMED_LOOSE            # O(nD^2) holds, O(nNd + N^2 d) is a strictly better rate
    time, mem = ev.parts["time_per_iteration"], ev.parts["memory"]
    n, D, d = 280, 200, 10
    assert (4 * n * D * d + 3 * D * D * d) / (n * D * D) <= 7
    # F.1's sizes read from the paper: 70% of n = 400, N = 300 particles, D = 200, p = 10
    assert time.numbers["F1_sizes"] == {"n": 280, "N": 300, "D": 200, "d": 10}
    assert time.numbers["F1_nNd+N^2d"] == 280 * 300 * 10 + 300 ** 2 * 10 == 1_740_000
    assert time.numbers["F1_nD^2"] == 280 * 200 ** 2 == 11_200_000
    # along n = N = D = t the derived count grows like t^2, the printed bound like t^3
    ts = np.array([1e3, 1e4])
    derived = 4 * ts * ts * d + 3 * ts ** 2 * d
    assert np.allclose(np.diff(np.log(derived)) / np.diff(np.log(ts)), 2.0)
    th = time.thresholds[0]
    assert (th.value, th.measured, th.kind) == (3.0, 2.0, "paper")
    from proofs_check.repro import run_repro
    assert run_repro(ev.repro.to_dict())[1]
    # N = c D (not printed: Alg 2 only requires D < N): the ratio to n D^2 is at most 4c + 3c^2 for d <= min(n, D)
    c = 1.5                                            # F.1: N = 300, D = 200
    assert (4 * n * c * D * d + 3 * (c * D) ** 2 * d) / (n * D ** 2) <= 4 * c + 3 * c ** 2
    assert "D < N" in ev.reading.passage and "not printed" in ev.reading.text
    assert "N = D" not in ev.reading.text and "D of its N particles" in ev.reading.passage
    # memory: (n + N) d streams y^T C without storing C; grows like t against the printed O(nD)'s t^2
    assert mem.verdict == V.CONFIRMED_LOOSE
    assert (mem.numbers["exponent_along_n=N=D=t_derived"], mem.numbers["exponent_printed"]) == (1, 2)
    assert mem.numbers["F1_(n+N)d"] == (280 + 300) * 10 < mem.numbers["F1_nD"] == 280 * 200
    # the total over T_max = 2000 (a constant) has the same loose rate: CONFIRMED_LOOSE, not CONFIRMED
    tot = ev.other_readings["total_with_T_max"]
    assert tot.verdict == V.CONFIRMED_LOOSE and tot.thresholds[0].measured == 2.0
    # the side reading where O(nD^2) is tight (centred KTA, App D), reported beside and not operative
    cen = ev.other_readings["centred_KTA_objective"]
    assert cen.verdict == V.CONFIRMED and cen.thresholds[0].measured == 3.0 and "Not operative" in cen.notes


def test_scaling_pairwise_counterexample():
    ev = _ev("particles.scaling_factor_and_repulsion", "scaling_factor_and_repulsion")
    assert ev.verdict == V.REFUTED
    ce = ev.parts["distance_scaling"].counterexample
    # independent: E|U - U'| = 1/3 for uniform points, whatever N; the claim predicts a 1/32 ratio
    x1 = np.random.default_rng(5).random(1600)
    assert abs(np.mean(np.abs(x1[:800] - x1[800:])) - 1 / 3) < 0.03
    assert ce["mean_pairwise_distance_ratio"] == pytest.approx(1.0, abs=0.1)
    assert ce["claimed_ratio"] == pytest.approx(1 / 32)
