"""Ledger checks of claims.md C4 (004 Gibbs law / large deviations) at level quick, seed 0.

Asserts valid verdicts and the Record fields, and re-evaluates the key numbers independently
(closed forms, scipy/mpmath, plain formulas) where the verdict rests on an explicit condition.
"""
import math

import mpmath as mp
import numpy as np
import pytest
from checkrun import assert_valid_evidence
from scipy import stats

from proofs_check import verdicts as V
from proofs_check.registry import REGISTRY, Context
from proofs_check.checks import particles_gibbs_ldp as C

IDS = ["particles.thm2_ldp", "particles.thm2_kernel_concentration",
       "particles.lemma7_finite_size", "particles.lemma8_sanov_varadhan",
       "particles.lemma9_10_regime2", "particles.goodness_and_free_energy"]


@pytest.fixture(scope="module")
def results():
    return {cid: REGISTRY[cid].func(Context("quick", 0, cid)) for cid in IDS}


@pytest.mark.parametrize("cid", IDS)
def test_valid_verdict_and_json(results, cid):
    assert_valid_evidence(cid, results[cid], C)


def test_thm2_records_each_reading_and_R1_counterexample(results):
    ev = results["particles.thm2_ldp"]
    assert set(ev.numbers["per_reading"]) == {"R1", "R2", "R3"}
    assert ev.verdict == V.combine_readings(list(ev.numbers["per_reading"].values()))
    r1 = ev.parts["R1_bare_s_gt_d"]
    if r1.verdict == V.REFUTED:
        ce = r1.counterexample
        # 1-D closed form: W^eps = (1/2)[eps^{-s}(2eps - eps^2) + int_eps^1 2(1-r) r^{-2} dr]
        for eps, w in zip(ce["eps"], ce["W_eps_uniform"]):
            exact = 0.5 * (eps ** -2 * (2 * eps - eps ** 2) + 2 * (1 / eps - 1) + 2 * math.log(eps))
            assert w == pytest.approx(exact, rel=1e-8)
        # the equispaced configuration bounds min W_N from above; min W_N grows at least ~N
        for N, m in zip(ce["N"], ce["min_W_N"]):
            x = np.linspace(0, 1, N)
            D = np.abs(x[:, None] - x[None, :]) + np.eye(N)
            eq = (np.sum(D ** -2.0) - N) / (2 * N * (N - 1))
            assert m <= eq * (1 + 1e-9)
        assert ce["min_W_N"][-1] / ce["min_W_N"][0] > 0.5 * ce["N"][-1] / ce["N"][0]
    r2 = ev.parts["R2_softened"].numbers
    for key in ("Lambda_N", "Lambda_meanfield", "Lambda_inf_ci95", "NVar_at_largest_N"):
        assert key in r2


def test_lemma7_bound_maximiser_reevaluated(results):
    ev = results["particles.lemma7_finite_size"]
    u = ev.parts["uniform_bound"].numbers
    x = np.array(u["maximiser"])
    r = np.abs(x[:, None] - x[None, :])
    g = np.where(r <= u["eps"], u["eps"] ** -u["s"], np.maximum(r, 1e-12) ** -u["s"])
    W = 0.5 * g.mean()
    assert W / (u["eps"] ** -u["s"] / 2) == pytest.approx(u["max_W_over_bound"], rel=1e-12)
    assert W <= u["eps"] ** -u["s"] / 2 * (1 + 1e-12)     # the bound, plain formula
    assert ev.numbers["max_residual_A41"] < 1e-12


def test_lemma8_sanov_numbers_reevaluated(results):
    s = results["particles.lemma8_sanov_varadhan"].parts["sanov_2bin"].numbers
    mp.mp.dps = 30
    for N, rate in zip(s["N"][:3], s["rate"][:3]):
        k0 = math.ceil(0.4 * N - 1e-12)
        tail = mp.fsum(mp.binomial(N, k) * mp.mpf("0.3") ** k * mp.mpf("0.7") ** (N - k)
                       for k in range(k0, N + 1))
        assert rate == pytest.approx(float(-mp.log(tail) / N), rel=1e-9)
    v = results["particles.lemma8_sanov_varadhan"].parts["varadhan_linear"].numbers
    w = np.linspace(-1, 1, 401)
    wq = np.full(401, 1 / 400.0)
    wq[[0, -1]] /= 2
    assert v["exact_log_mgf"] == pytest.approx(
        math.log(np.sum(wq * np.exp(np.sin(3 * w) + 0.5 * w))), rel=1e-12)


def test_lemma9_10_reevaluated(results):
    ev = results["particles.lemma9_10_regime2"]
    b = ev.parts["lemma9_binomial"].numbers
    N = b["N"][2]
    k = np.arange(math.floor(0.45 * N) + 1, math.ceil(0.55 * N))
    Q = stats.binom.pmf(k, N, 0.3).sum()
    assert b["logQ_over_betaN"][2] == pytest.approx(math.log(Q) / N ** 1.5, rel=1e-9)
    lz = ev.parts["lemma10_partition"].numbers
    assert {"logZ_over_betaN", "minus_e_star", "gap"} <= set(lz)
    lim = ev.parts["eps_to_zero_limit"]
    if lim.verdict == V.REFUTED:
        e = lim.counterexample["e_star_eps"]
        assert e[0] < e[1] < e[2]          # e*_eps increases as eps decreases (s > d)


def test_goodness_escape_counterexample_reevaluated(results):
    ev = results["particles.goodness_and_free_energy"]
    part = ev.parts["goodness_regime2_open_domain"]
    J = part.numbers["J_eps_delta_1_over_n"]
    e_star = part.numbers["e_star_eps"]
    for n, j in zip(part.numbers["n"], J):
        assert j == pytest.approx(math.cos(3 / n) + 0.5 * 0.05 ** -2 / 2 - e_star, rel=1e-12)
    assert max(J) - min(J) < 2.0           # bounded along a sequence escaping to the boundary
    fe = ev.parts["free_energy_limit"].numbers
    assert {"minus_logZ_over_betaN", "meanfield_min_F", "ci95"} <= set(fe)
