"""Checks of particles.thm1_mean_field, particles.thm1_proof_bounds, particles.pde_identities (004 §4, App A.3)."""
import importlib

import mpmath as mp
import numpy as np
import pytest

from tests.checkrun import assert_valid_evidence, run_quick
from proofs_check import runner
from proofs_check import verdicts as V
from proofs_check.report import walk
from proofs_check.repro import run_repro

runner.load_checks()

IDS = ["particles.thm1_mean_field", "particles.thm1_proof_bounds", "particles.pde_identities"]


@pytest.mark.slow
@pytest.mark.parametrize("cid", IDS)
def test_record_valid_and_repros_run(cid):
    ev = run_quick(cid)
    assert_valid_evidence(cid, ev, importlib.import_module(f"proofs_check.checks.particles.{cid.split('.')[1]}"))
    assert ev.problems() == []
    for _, node in walk(ev.to_dict()):
        if node.get("repro"):
            assert run_repro(node["repro"])[1]


@pytest.mark.slow
def test_mean_field_instance_verdict_follows_ci():
    ev = run_quick("particles.thm1_mean_field")
    inst = ev.parts["instance_W1_decreases_in_N"]
    lo, hi = inst.numbers["fit"]["ci"]
    want = V.CONFIRMED if hi < 0 else (V.REFUTED if lo > 0 else V.INCONCLUSIVE)
    assert inst.verdict == want
    means = inst.numbers["mean_W1"]
    assert means[-1] < means[0]
    assert ev.verdict == V.NOT_CHECKABLE                      # a limit theorem: the instance cannot confirm it
    assert ev.parts["theorem_for_all_admissible_data"].tried is not None
    # the record agrees with what was run: the N range and the run time come from the run itself
    Ns = inst.numbers["N"]
    budget = ev.parts["theorem_for_all_admissible_data"].tried.budget
    assert f"N = {Ns[0]}..{Ns[-1]}" in budget and "half a minute" not in budget
    from proofs_check.registry import load_all
    assert f"N = {Ns[0]}..{Ns[-1]} at quick" in load_all()["particles.thm1_mean_field"].method


@pytest.mark.slow
def test_plummer_bounds_mpmath():
    d = mp.mpf("0.3")
    f = lambda r: r / (r * r + d * d)                         # noqa: E731
    rmax = mp.findroot(lambda r: mp.diff(f, r), 0.25)
    assert abs(rmax - d) < 1e-12 and abs(f(rmax) - 1 / (2 * d)) < 1e-12
    assert abs(mp.diff(f, 0) - 1 / d ** 2) < 1e-12
    ev = run_quick("particles.thm1_proof_bounds")
    # the checked steps hold; A.18 is proved (written argument); A.22's 1/N cannot be checked
    for k in ("A6_lipschitz", "A19_drift_bounded", "A16_to_A18", "A18_final_bound"):
        assert ev.parts[k].verdict == V.CONFIRMED
    assert ev.parts["A21_A22_KL_Pinsker"].verdict == V.NOT_CHECKABLE == ev.verdict
    # A.21 proved (Girsanov + A.6); A.22's 1/N left open, with the general-inequality counterexample recorded
    kl = ev.parts["A21_A22_KL_Pinsker"].parts
    assert kl["A21_Girsanov_KL"].verdict == V.CONFIRMED and kl["A21_Girsanov_KL"].scope.kind == "proof"
    a22 = kl["A22_Pinsker_1/N"]
    assert a22.verdict == V.NOT_CHECKABLE and a22.tried is not None
    ce = a22.numbers["general_inequality_counterexample"]
    # E[(Y - 1/2)^2] for Y ~ Unif[1/2, 1] is 1/12, on half of the mixture: 1/24; A.22's side sqrt(2 log 2 / N)
    assert ce["E W2^2 lower bound, every coupling"] == pytest.approx(0.5 * float(mp.quad(lambda y: (y - 0.5) ** 2,
                                                                                         [0.5, 1])) / 0.5)
    rhs = ce["A.22 right-hand side by N"]
    assert rhs["798"] > 1 / 24 > rhs["799"]
    a18 = ev.parts["A18_final_bound"]
    assert a18.scope.kind == "proof" and a18.scope.universal and "Gronwall" in a18.notes
    assert a18.reading is not None and "Assumption A.1" in a18.reading.passage
    # the Monte Carlo split carries 95% t-intervals around its means
    sp_ = ev.numbers["W2_split"]
    for key in ("E_W2sq", "a_N"):
        for m, (lo, hi) in zip(sp_[key], sp_[key + "_ci95"]):
            assert lo <= m <= hi
    # step (9): a_N >= Var/N. Independent: for N iid uniforms on [-1, 1] the exact per-sample W2^2 to the
    # uniform law (piecewise quantile integral) averages 2/(3N) = 2 Var/N; the record's ratios are above 1 too
    rng = np.random.default_rng(11)
    N = 50
    w2 = []
    for _ in range(400):
        x = np.sort(rng.uniform(-1, 1, N))
        i = np.arange(N)
        a, b = 2 * i / N - 1, 2 * (i + 1) / N - 1                       # quantile q(u) = 2u - 1 on [i/N, (i+1)/N]
        w2.append(np.sum(((x - a) ** 3 - (x - b) ** 3) / 3 / 2))        # int (x - q)^2 du, du = dq / 2
    assert np.mean(w2) == pytest.approx(2 / (3 * N), rel=0.15) and np.mean(w2) > (1 / 3) / N
    assert min(a18.numbers["N_a_N_over_Var_rho_t"]) > 1
    # the literal reading (exchangeable start => rho_0, no coupling) is refuted: ratio h_N^2 / (D^2/(2 sqrt N) + 2/N)
    side = a18.other_readings["exchangeable_mu0N_to_rho0"]
    assert side.verdict == V.REFUTED and side.scope.kind == "proof"
    want = [float((1 / mp.log(n)) ** 2 / (mp.mpf(4) / (2 * mp.sqrt(n)) + 2 / mp.mpf(n))) for n in side.numbers["N"]]
    assert side.repro.expected == pytest.approx(want, rel=1e-12)
    assert all(b_ > a_ for a_, b_ in zip(want, want[1:])) and want[-1] > 1e20
    assert run_repro(side.repro.to_dict())[1]
    o = ev.parts["A6_lipschitz"].other_readings
    assert o["unregularised"].verdict == V.REFUTED and o["unregularised"].numbers["drift_at_r=1e-8"] > 1e7
    assert abs(o["hard_truncation"].numbers["force_jump_at_delta"]) > 1.0


def test_pde_identities_parts():
    ev = run_quick("particles.pde_identities")
    assert ev.verdict == V.combine_parts(p.verdict for p in ev.parts.values()) == V.CONFIRMED
    assert ev.parts["fv_steady_states"].numbers["max_gibbs_fixed_point_residual"] <= 1e-10
