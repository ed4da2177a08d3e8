"""Tests of proofs_check/checks/particles_nlp_tables.py (claims.md C7).

The printed numbers used for the independent re-derivations are re-typed here from 004 Tables 1,
2, 5, 7, 8 (not read from the check), and the arithmetic is redone with fractions / plain floats.
"""
import math
from fractions import Fraction

import pytest

from proofs_check import verdicts as V
from proofs_check.checks import particles_nlp_tables as M
from checkrun import run_quick as run

FUNCS = {"particles.nlp.table_consistency": M.check_table_consistency,
         "particles.nlp.metric_identities": M.check_metric_identities,
         "particles.nlp.accuracy_granularity": M.check_accuracy_granularity,
         "particles.nlp.text_claims": M.check_text_claims,
         "particles.nlp.significance_and_protocol": M.check_significance_and_protocol}


@pytest.mark.parametrize("cid", sorted(FUNCS))
def test_valid_evidence(cid):
    ev = run(cid)
    assert ev.verdict in V.VERDICTS and all(p.verdict in V.VERDICTS for p in ev.parts.values())
    if ev.verdict == V.REFUTED:
        assert ev.counterexample and ev.repro
    ev.to_dict()


def test_table2_cells_by_hand():
    ev = run("particles.nlp.table_consistency")
    # RT softmaxfeat: Kernel 0.7167 - Vanilla 0.6782 = 0.0385 (Table 2); QQP cos2 0.7842 - 0.7746 = 0.0096
    assert Fraction("0.7167") - Fraction("0.6782") == Fraction("0.0385")
    assert Fraction("0.7842") - Fraction("0.7746") == Fraction("0.0096")
    assert ev.numbers["table2_mismatches"] == 0 and ev.verdict == V.CONFIRMED
    assert ev.numbers["ties"]["SST-2:Vanilla"] == ["cos2", "porf"]     # 0.8142 twice in Table 6


def test_ece_exceeds_sqrt_brier_qqp_linformer():
    ev = run("particles.nlp.metric_identities")
    ce = ev.counterexample
    # Table 7 Linformer: ECE 0.4541, Brier 0.1337; even with rounding slack ECE > sqrt(Brier)
    assert ce["row"] == "QQP Linformer" and ce["ece"] == 0.4541 and ce["brier_printed"] == 0.1337
    assert 0.4541 - 5e-5 > math.sqrt(0.1337 + 5e-5)
    assert ev.parts["identities_binary_brier"].verdict == V.REFUTED
    assert ev.parts["identities_two_class_brier"].verdict == V.REFUTED
    assert ev.verdict == V.REFUTED


def test_sst2_accuracy_granularity():
    ev = run("particles.nlp.accuracy_granularity")
    rows = dict((r[1], r[2]) for r in ev.counterexample["rows_not_test_accuracies"] if r[0] == "SST-2")
    assert rows["Vaswani-softmaxattn"] == 0.8050
    # 0.8050 is k/1821 for no k and (k/5463) for no k; it is 702/872
    for n in (1821, 5463):
        k = round(Fraction("0.8050") * n)
        assert all(abs(Fraction(kk, n) - Fraction("0.8050")) > Fraction(5, 100000) for kk in (k - 1, k, k + 1))
    assert abs(Fraction(702, 872) - Fraction("0.8050")) <= Fraction(5, 100000)
    assert ev.numbers["SST-2"]["dev"] == 18 and ev.parts["SST-2"].verdict == V.REFUTED


def test_text_claims_counterexamples():
    ev = run("particles.nlp.text_claims")
    neg = ev.parts["consistent_direction_qqp_rt"].counterexample["negative_gains"]
    assert neg["RT"]["favor"] == pytest.approx(0.6848 - 0.7083, abs=1e-12)
    assert 0.8077 > 0.8005 and ev.parts["softmax_strongest_qqp"].verdict == V.AMBIGUOUS
    assert ev.parts["kernel_best_qk_acc"].verdict == V.CONFIRMED
    t = ev.parts["training_time_doubles"].numbers
    assert t["min_ratio"] <= 1197.1 / 567.8 <= t["max_ratio"]


def test_significance_z_by_hand():
    ev = run("particles.nlp.significance_and_protocol")
    z = ev.numbers["headline_z"]["RT"]
    a1, a0, n = 0.7167, 0.6782, 1066
    zi = (a1 - a0) / math.sqrt((a1 * (1 - a1) + a0 * (1 - a0)) / n)
    assert z["z_test"][0] == pytest.approx(zi, abs=1e-3)
    assert "optimizer_AdamW_vs_Adam" in ev.numbers["contradictions"]
    assert ev.parts["nlp_results"].verdict == V.NOT_CHECKABLE and ev.parts["nlp_results"].notes
