"""Checks of particles.thm1_mean_field, particles.thm1_proof_bounds, particles.pde_identities (004 §4, App A.3)."""
import importlib

import mpmath as mp
import pytest

from checkrun import assert_valid_evidence, run_quick
from proofs_check import runner
from proofs_check import verdicts as V
from proofs_check.report import walk
from proofs_check.repro import run_repro

runner.load_checks()

IDS = ["particles.thm1_mean_field", "particles.thm1_proof_bounds", "particles.pde_identities"]


@pytest.mark.parametrize("cid", IDS)
def test_record_valid_and_repros_run(cid):
    ev = run_quick(cid)
    assert_valid_evidence(cid, ev, importlib.import_module(f"proofs_check.checks.particles.{cid.split('.')[1]}"))
    assert ev.problems() == []
    for _, node in walk(ev.to_dict()):
        if node.get("repro"):
            assert run_repro(node["repro"])[1]


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


def test_plummer_bounds_mpmath():
    d = mp.mpf("0.3")
    f = lambda r: r / (r * r + d * d)                         # noqa: E731
    rmax = mp.findroot(lambda r: mp.diff(f, r), 0.25)
    assert abs(rmax - d) < 1e-12 and abs(f(rmax) - 1 / (2 * d)) < 1e-12
    assert abs(mp.diff(f, 0) - 1 / d ** 2) < 1e-12
    ev = run_quick("particles.thm1_proof_bounds")
    # the checked steps hold; A.18's C_T bound and A.21-A.22 cannot be checked
    for k in ("A6_lipschitz", "A19_drift_bounded", "A16_to_A18"):
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
    assert ev.parts["A18_final_bound"].tried is not None
    o = ev.parts["A6_lipschitz"].other_readings
    assert o["unregularised"].verdict == V.REFUTED and o["unregularised"].numbers["drift_at_r=1e-8"] > 1e7
    assert abs(o["hard_truncation"].numbers["force_jump_at_delta"]) > 1.0


def test_pde_identities_parts():
    ev = run_quick("particles.pde_identities")
    assert ev.verdict == V.combine_parts(p.verdict for p in ev.parts.values()) == V.CONFIRMED
    assert ev.parts["fv_steady_states"].numbers["max_gibbs_fixed_point_residual"] <= 1e-10
