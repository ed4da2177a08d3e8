"""Checks of particles.nlp.* (004 Tables 1, 2, 5-8)."""
import math
from fractions import Fraction

import pytest

from tests.checkrun import assert_valid_evidence, run_quick
from proofs_check import runner
from proofs_check import verdicts as V
from proofs_check.report import walk
from proofs_check.repro import run_repro

runner.load_checks()
import proofs_check.checks.particles.nlp as M  # noqa: E402

IDS = ["particles.nlp.table_consistency", "particles.nlp.metric_identities", "particles.nlp.accuracy_granularity",
       "particles.nlp.text_claims", "particles.nlp.significance_and_protocol"]


@pytest.mark.parametrize("cid", IDS)
def test_record_valid_and_repros_run(cid):
    ev = run_quick(cid)
    assert_valid_evidence(cid, ev, M)
    assert ev.problems() == []
    for _, node in walk(ev.to_dict()):
        if node.get("repro"):
            assert run_repro(node["repro"])[1]


def test_ece_above_sqrt_brier_rederived():
    ev = run_quick("particles.nlp.metric_identities")
    ce = ev.parts["probability_identities"].counterexample
    # QQP Linformer as printed in Table 7 (independent copy): ECE 0.4541, Brier 0.1337
    assert (ce["ece"], ce["brier_printed"]) == (0.4541, 0.1337) or ce["ece"] - math.sqrt(ce["brier_printed"]) > 0.05
    assert 0.4541 - 5e-5 > math.sqrt(0.1337 + 5e-5)
    assert ev.verdict == V.REFUTED


def test_sst2_softmax_accuracy_not_a_test_fraction():
    # 0.8050 printed: nearest k/1821 and k/5463 are more than 5e-5 away; k/872 is within
    a = Fraction(8050, 10000)
    for n in (1821, 3 * 1821):
        k = round(a * n)
        assert abs(Fraction(k, n) - a) > Fraction(5, 100000)
    assert abs(Fraction(round(a * 872), 872) - a) <= Fraction(5, 100000)
    assert run_quick("particles.nlp.accuracy_granularity").verdict == V.REFUTED


def test_text_claims_parts():
    ev = run_quick("particles.nlp.text_claims")
    assert ev.parts["consistent_direction_qqp_rt"].verdict == V.REFUTED
    assert round(0.6848 - 0.7083, 4) == -0.0235            # Table 8 Kernel-favor - Vanilla-favor
    assert ev.parts["softmax_strongest_qqp"].verdict == V.AMBIGUOUS
    assert ev.parts["temperature_scaling_in_supplement"].verdict == V.NOT_CHECKABLE
    assert ev.verdict == V.combine_parts(p.verdict for p in ev.parts.values()) == V.REFUTED


def test_table_consistency_and_significance():
    ev = run_quick("particles.nlp.table_consistency")
    assert ev.verdict == V.CONFIRMED
    assert round(0.8108 - 0.8028, 4) == 0.0080              # Table 2 SST-2 ELU gain
    ev = run_quick("particles.nlp.significance_and_protocol")
    assert ev.verdict == V.REFUTED
    zs = ev.parts["significance"].numbers["headline_softmaxfeat_gain_z_range"]
    a1, a0, n = 0.7167, 0.6782, 1066
    assert abs(zs["RT"]["z_test_independent"] - (a1 - a0) / math.sqrt((a1 * (1 - a1) + a0 * (1 - a0)) / n)) < 1e-3
    # the lower end is maximal discordance (b = min(a1, 1 - a0), c = b - g), not the independent z:
    # SST-2 test (softmaxfeat 0.8085 vs 0.8005, n = 1821): 0.55 < 0.61
    a1, a0, n = 0.8085, 0.8005, 1821
    g = a1 - a0
    b = min(a1, 1 - a0)
    z_low = g / math.sqrt((b + (b - g) - g * g) / n)
    z_ind = g / math.sqrt((a1 * (1 - a1) + a0 * (1 - a0)) / n)
    z_high = g / math.sqrt(g * (1 - g) / n)
    lo, hi = zs["SST-2"]["z_test"]
    assert round(z_low, 2) == 0.55 and round(z_ind, 2) == 0.61
    assert abs(lo - z_low) < 1e-3 and abs(hi - z_high) < 1e-3 and lo < zs["SST-2"]["z_test_independent"] < hi
    for ds in zs.values():
        for lab in ("test", "dev"):
            assert ds[f"z_{lab}"][0] <= ds[f"z_{lab}_independent"] <= ds[f"z_{lab}"][1]


def test_protocol_share_contradicts_20_percent():
    ev = run_quick("particles.nlp.significance_and_protocol")
    part = ev.parts["protocol_consistency"]
    assert part.verdict == V.REFUTED
    txt = M.paper_text("004")
    for words in ("the alignment phase runs for 20% of total steps", "for up to 10 epochs",
                  "with cross-entropy loss for 10 epochs", "Training uses a batch size of 64"):
        assert words in txt
    # 10 epochs of Phase A (the early stop cannot fire) and 10 of Phase B at one batch size: 50%, not 20%
    assert part.numbers["alignment_share_from_F2"] == Fraction(10, 20) and part.numbers["printed_share_§5"] == 0.2
    # corroboration: Kernel/Vanilla train time (Tables 6-8) near 2x (equal phases), far from 1.25x (a 20% share)
    cor = part.numbers["corroboration_kernel_over_vanilla_train_time"]
    lo, hi = cor["range_Tables_6-8"]
    assert (round(lo, 2), round(hi, 2)) == (1.74, 2.15)
    # extremes as printed: QQP softmaxplus 1100.7 s / 633.3 s, Rotten Tomatoes cos2 26.7 s / 12.4 s
    assert abs(lo - 1100.7 / 633.3) < 1e-12 and abs(hi - 26.7 / 12.4) < 1e-12
    assert cor["expected_at_F2_share"] == 2.0 and cor["expected_at_printed_20pct"] == 1.25 < lo
    # the early stop: P(one particle of d_k = 64 moves < 1e-6 in a step) <= the small-ball bound; chi law check
    from scipy import stats
    sig = math.sqrt(2 * 2e-3 / 50)
    true = stats.chi(63).logcdf(1e-6 / sig) / math.log(10)
    lb = part.numbers["log10_P_early_stop_per_step_bound"]
    assert true <= lb + 1e-9 and lb < -200
    # the same bound as particles.alg.stopping_rules (one helper, proofs_check.support.particles_stopping)
    alg = run_quick("particles.alg.stopping_rules").parts["F2_epoch_cap_and_early_stop"].other_readings[
        "early_stop_rule_alone"]
    assert alg.counterexample["log10_P_one_particle_moves_less_than_tol_per_step"] == pytest.approx(lb, rel=1e-12)
    value, ok = run_repro(part.repro.to_dict())
    assert ok and value[0] == 0.5
    assert ev.repro is not None and run_repro(ev.repro.to_dict())[1]


def test_not_checkable_leaves_say_what_was_tried():
    """Rule 5: every NOT_CHECKABLE leaf of the NLP records carries its own Tried (no shared boilerplate)."""
    seen = set()
    for cid in ("particles.nlp.text_claims", "particles.nlp.metric_identities",
                "particles.nlp.significance_and_protocol"):
        for path, node in walk(run_quick(cid).to_dict()):
            if node["verdict"] in (V.NOT_CHECKABLE, V.INCONCLUSIVE) and not node["parts"]:
                t = node["tried"]
                assert t and all(t[k].strip() for k in ("printed", "search", "budget")), (cid, path)
                assert t["search"] not in seen, (cid, path)       # claim-specific, not one text for all
                seen.add(t["search"])
    # the rerun budget of a statement: its rows' printed training seconds (Tables 6-8), three seeds
    tc = run_quick("particles.nlp.text_claims")
    sst2 = 80.5 + 166.0 + 78.8 + 164.3 + 88.5 + 173.5 + 82.6 + 170.1 + 89.5 + 171.4 + 81.5 + 165.0 + 85.7 + 162.8
    qk = {ds: sum(r["train_s"] for n, r in rows.items() if n.startswith(("Vanilla-", "Kernel-")) and
                  not n.endswith("WqWk")) for ds, rows in M.TABLES.items()}
    assert qk["SST-2"] == pytest.approx(sst2)               # Table 6's 14 Q=K rows, by hand
    secs = sum(qk.values())
    assert f"{secs:.0f} s of 004's own training per seed" in tc.parts["kernel_best_qk_acc"].tried.budget
    assert f"{3 * secs:.0f} s for §5's three seeds" in tc.parts["kernel_best_qk_acc"].tried.budget
    z = run_quick("particles.nlp.significance_and_protocol").parts["significance"].tried.search
    assert "beyond 1.96 under every pairing at both sizes for QQP" in z
