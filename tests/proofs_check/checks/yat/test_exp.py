"""Tests of the yat.exp.* checks (proofs_check/checks/yat/exp.py): numbers re-derived independently."""
import math
import re
from fractions import Fraction

import numpy as np
import pytest

from tests.checkrun import assert_valid_evidence, run_quick
from proofs_check import verdicts as V
from proofs_check.checks.yat import exp as M
from proofs_check.repro import run_repro

IDS = ["yat.exp.mnist_main", "yat.exp.mnist_inversion", "yat.exp.mnist_analysis", "yat.exp.norm_dynamics",
       "yat.exp.eurlex", "yat.exp.gpt2_000", "yat.exp.gpt2_001", "yat.exp.gpt2_002", "yat.exp.vision_001",
       "yat.exp.unsupported_mentions"]


@pytest.mark.parametrize("cid", IDS)
def test_valid_and_follows_rules(cid):
    ev = run_quick(cid)
    assert_valid_evidence(cid, ev, M)
    assert ev.problems() == []


@pytest.mark.parametrize("cid", ["yat.exp.gpt2_001", "yat.exp.vision_001", "yat.exp.eurlex"])
def test_unreplicable_experiments_are_not_confirmed(cid):
    # printed-number arithmetic never confirms an experimental result
    assert run_quick(cid).verdict == V.NOT_CHECKABLE


def test_mnist_main_refuted_by_two_accuracies_in_one_subsection():
    # 000 §3.3: Table 1 (92.08, 92.38) and the inversion table's 'Original' column (92.04, 92.18) of the same
    # subsection's classifiers differ beyond their rounding (0.005 each): rule 5(a), the consistency part is refuted;
    # the replication stays NOT_CHECKABLE and nothing is confirmed
    assert abs(Fraction("92.08") - Fraction("92.04")) > Fraction(1, 100)
    assert abs(Fraction("92.38") - Fraction("92.18")) > Fraction(1, 100)
    ev = run_quick("yat.exp.mnist_main")
    assert ev.verdict == V.REFUTED
    part = ev.parts["000_table1_vs_inversion_original"]
    assert part.verdict == V.REFUTED and run_repro(part.repro.to_dict())[1]
    assert ev.parts["replication"].verdict == V.NOT_CHECKABLE
    assert ev.parts["printed_percentages"].scope.kind == "consistency"


def test_mnist_main_printed_percentages_reachable():
    # 1.58 -> 1.80 is +13.92%, in the rounding interval of +13.8%? (1.585-1.575 ... ) recomputed with fractions
    lo = (Fraction("1.795") - Fraction("1.585")) / Fraction("1.585") * 100
    hi = (Fraction("1.805") - Fraction("1.575")) / Fraction("1.575") * 100
    assert lo <= Fraction("13.85") and hi >= Fraction("13.75")
    assert run_quick("yat.exp.mnist_main").numbers["printed_consistency"]["linear_13.8pct"] is True


def test_mnist_inversion_no_pair_gives_7_82():
    nums = [92.04, 91.88, 92.29, 92.18, 84.67, 87.87, 92.08, 92.38, 91.90]
    assert all(abs(a - b - 7.82) > 0.005 and abs((a - b) / a * 100 - 7.82) > 0.005
               for a in nums for b in nums if a > b)
    ev = run_quick("yat.exp.mnist_inversion")
    assert ev.numbers["7.82_matches_any_pair"] == []
    # E.8.4 prints no Yat accuracy before inversion of its own run, and every printed run with a Yat baseline
    # differs from E.8.4's run (linear 92.04 -> 0.01, Yat 84.67 after) in a shared quantity beyond rounding:
    # 7.82% contradicts no printed value of its own quantity (not REFUTED)
    part = ev.parts["001_7.82pct_degradation"]
    assert part.verdict == V.NOT_CHECKABLE and "never prints" in part.notes
    runs = part.numbers["printed_runs_with_a_yat_baseline"]
    assert set(runs) == {"000 §3.3 table", "001 §3.2", "001 App E.8.2", "001 App E.8.6", "001 App E.8.8",
                         "002 Table 1"}
    e84 = {"lin_orig": Fraction("92.04"), "yat_inv": Fraction("84.67")}
    shared = {"000 §3.3 table": {"lin_orig": "92.04", "yat_inv": "87.87"}, "001 §3.2": {"lin_orig": "91.88", "yat_inv": "87.87"},
              "001 App E.8.2": {"lin_orig": "92.08"}, "001 App E.8.6": {"lin_orig": "91.90"},
              "001 App E.8.8": {"lin_orig": "92.08"}, "002 Table 1": {"lin_orig": "91.88", "yat_inv": "87.87"}}
    for name, qs in shared.items():
        differ = {q for q, v in qs.items() if abs(Fraction(v) - e84[q]) > Fraction("0.01")}
        assert differ and differ == set(runs[name]["differs_from_E.8.4_in"]), name
    # the implied Yat baseline (84.67 + 7.82, or 84.67 / (1 - 7.82%)), every rounding corner, misses 92.38: under the
    # reading that App E.8 is one run (not operative) the degradation would contradict E.8.2/E.8.6/E.8.8
    corners = [f(Fraction(i), Fraction(g)) for f in (lambda i, g: i + g, lambda i, g: i / (1 - g / 100))
               for i in ("84.665", "84.675") for g in ("7.815", "7.825")]
    assert all(abs(c - Fraction("92.38")) > Fraction("0.005") for c in corners)
    one_run = part.other_readings["E.8_is_one_run"]
    assert one_run.verdict == V.REFUTED and one_run.numbers["value"] > 0
    assert one_run.counterexample["baselines"] == [[92.38, 0.005]]
    assert run_repro(one_run.repro.to_dict())[1]
    # the note no longer calls two passages of 001 different versions, and gives both passages' lines
    assert "Between versions" not in ev.notes and "Within 001, §3.2 (l.250-251" in ev.notes
    assert "l.1803, 1815" in ev.notes


def test_mnist_inversion_text_contradicts_its_own_table_and_caption():
    ev = run_quick("yat.exp.mnist_inversion")
    assert ev.verdict == V.REFUTED
    # 002: '93%' and '89%' vs Table 1's 91.88 and 87.87 (integers stand for +-0.5)
    assert abs(93 - Fraction("91.88")) > Fraction(1, 2) + Fraction(5, 1000)
    assert abs(89 - Fraction("87.87")) > Fraction(1, 2) + Fraction(5, 1000)
    assert abs(92 - Fraction("92.18")) <= Fraction(1, 2) + Fraction(5, 1000)
    t = ev.parts["002_text_vs_table1"]
    assert t.verdict == V.REFUTED
    assert t.counterexample["pairs"] == [[93.0, 0.5, 91.88, 0.005], [92.0, 0.5, 92.18, 0.005], [89.0, 0.5, 87.87, 0.005]]
    # 001: E.8.4 says Figure 8 shows 92.04%, the caption prints 92.29%
    c = ev.parts["001_E8.4_vs_fig8_caption"]
    assert c.verdict == V.REFUTED and c.counterexample["pairs"] == [[92.04, 0.005, 92.29, 0.005]]
    for p in (t, c):
        value, ok = run_repro(p.repro.to_dict())
        assert ok and value > 0
    assert ev.repro is not None and run_repro(ev.repro.to_dict())[1]      # the claim line shows a reproduction
    assert ev.parts["replication"].verdict == V.NOT_CHECKABLE


def test_printed_numbers_are_read_from_the_papers():
    P = M.printed_mnist()
    expected = {"002_text_lin_orig": "93", "002_T1_lin_orig": "91.88", "002_text_yat_inv": "89", "002_T1_yat_inv": "87.87",
                "001_E84_lin_orig": "92.04", "001_Fig8_lin_orig": "92.29", "001_E84_degradation": "7.82",
                "001_E86_lin": "91.90", "001_E82_lin": "92.08", "001_E88_lin": "92.08", "sim_yat_mean": "0.274",
                "sim_lin_mean": "0.0325"}
    for k, digits in expected.items():
        p = P[k]
        assert p.digits == digits
        assert digits in M.paper_text(p.paper).split("\n")[p.line - 1]     # the number stands on the cited line


def test_mnist_analysis_ratios_accuracy_and_caption():
    ev = run_quick("yat.exp.mnist_analysis")
    assert ev.verdict == V.REFUTED
    assert math.isclose(ev.numbers["mean_ratio"], 0.274 / 0.0325)
    assert 8 < 0.274 / 0.0325 and 8.5 < 2.01 / 0.23 < 9
    acc = ev.parts["linear_accuracy_E8.2_E8.6_E8.8"]
    assert acc.verdict == V.REFUTED and math.isclose(acc.numbers["value"], 92.08 - 91.90 - 0.01, abs_tol=1e-9)
    cap = ev.parts["caption_orthogonality"]
    # operative: the caption's own parenthesis ("stronger orthogonality (higher dynamic range)"), restated in
    # E.8.8; the E-product range 0.0005-2.01 is wider than the whole linear scale up to its max 0.23 (rounding
    # extremes: 2.005 - 0.00055 against 0.235)
    assert cap.verdict == V.CONFIRMED and cap.scope.kind == "consistency"
    assert "higher dynamic range" in cap.reading.passage and "E.8.8" in cap.reading.passage
    assert math.isclose(cap.numbers["value"], (2.01 - 0.005) - (0.0005 + 0.00005) - (0.23 + 0.005))
    value, ok = run_repro(cap.repro.to_dict())
    assert ok and value > 0
    literal = cap.other_readings["literal_lower_similarity"]
    assert literal.verdict == V.REFUTED and "highly orthogonal" in literal.reading.passage
    assert run_repro(literal.repro.to_dict()) == (False, True)
    # the claim is refuted by the linear accuracy alone
    assert [k for k, p in ev.parts.items() if p.verdict == V.REFUTED] == ["linear_accuracy_E8.2_E8.6_E8.8"]


def test_norm_dynamics_linear_minimiser_is_stationary():
    ev = run_quick("yat.exp.norm_dynamics")
    lin = ev.parts["linear_unbounded"]
    assert ev.verdict == V.REFUTED and lin.verdict == V.REFUTED
    ce = lin.counterexample
    X, y, W, b = (np.array(ce[k]) for k in ("X", "y", "W", "b"))
    Z = X @ W.T + b
    P = np.exp(Z - Z.max(1, keepdims=True))
    P /= P.sum(1, keepdims=True)
    G = (P - np.eye(3)[y]) / len(y)
    g = np.concatenate([(G.T @ X).ravel(), G.sum(0)])
    assert np.linalg.norm(g) < 1e-6                      # a finite stationary point of a convex loss
    # the data are not linearly separable: the minimiser misclassifies points
    assert np.mean(np.argmax(Z, 1) == y) < 1.0
    value, ok = run_repro(lin.repro.to_dict())
    assert ok
    assert ev.plot is not None and ev.parts["yat_bounded"].verdict == V.INCONCLUSIVE


def test_gpt2_000_learning_rates_and_counts():
    ev = run_quick("yat.exp.gpt2_000")
    part = ev.parts["identical_hyperparameters"]
    assert part.verdict == V.REFUTED and part.numbers["lr_gpt2"] != part.numbers["lr_aether"]
    assert (part.numbers["lr_gpt2"], part.numbers["lr_aether"]) == (1e-4, 3e-4)     # read from Table 7
    assert run_repro(part.repro.to_dict())[1]
    emb = 50257 * 768 + 1024 * 768
    non = 12 * (4 * 768 * 768 + 2 * 768 * 3072 + 2 * 768) + 768
    pa = ev.parts["printed_arithmetic"]
    # the arithmetic is checked, so its verdict is what it computed: consistent (a consistency part)
    assert pa.verdict == V.CONFIRMED
    counts = pa.parts["parameter_counts_39M_85M_124M"]
    assert counts.verdict == V.CONFIRMED and counts.scope.kind == "consistency"
    assert math.isclose(counts.numbers["embedding_M"], emb / 1e6) and math.isclose(counts.numbers["non_embedding_M"], non / 1e6)
    assert round(emb / 1e6) == 39 and round(non / 1e6) == 85 and round((emb + non) / 1e6) == 124
    assert run_repro(counts.repro.to_dict())[1]
    val = pa.parts["val_improvement_1.45pct"]
    # (4.64175 - 4.57465) / 4.64165 is the largest reachable improvement: 1.4456% >= 1.445
    best = (Fraction("4.64175") - Fraction("4.57465")) / Fraction("4.64165") * 100
    assert best >= Fraction("1.445") and val.verdict == V.CONFIRMED and run_repro(val.repro.to_dict())[1]
    # Table 4 prints '>>10' (not '>10'); only the threshold 10 is below ln 50257
    div = ev.parts["diverged_runs"]
    assert div.numbers["printed"] == ">>10" and ">>10" in M.paper_text("000")
    assert math.isclose(div.numbers["ln_vocab"], math.log(50257)) and 10 < math.log(50257)
    assert "'>10 within" not in div.notes and "threshold 10 lies below" in div.notes


def test_gpt2_002_one_corpus_against_multiple():
    import re
    ev = run_quick("yat.exp.gpt2_002")
    assert ev.verdict == V.REFUTED
    part = ev.parts["multiple_corpora"]
    assert part.verdict == V.REFUTED and part.numbers["corpora_in_table2"] == ["Fineweb"]
    # independent: every "<N> tokens of/from <corpus>" in the three versions names FineWeb only
    names = {m.lower() for v in ("000", "001", "002")
             for m in re.findall(r"tokens (?:of|from) (?:the )?(\w+)", M.paper_text(v))}
    assert names == {"fineweb"} and part.numbers["distinct_corpora_named"] == 1
    assert "across multiple text corpora" in M.paper_text("002")
    assert run_repro(part.repro.to_dict()) == (False, True)
    # the same machinery as gpt2_000's text-against-table part
    assert ev.parts["multiple_corpora"].scope.kind == run_quick("yat.exp.gpt2_000").parts[
        "identical_hyperparameters"].scope.kind == "consistency"
    assert math.isclose(ev.numbers["loss_gap"], 2.83 - 2.69)
    assert ev.parts["competitive_marginally_higher"].verdict == V.NOT_CHECKABLE


def test_gpt2_001_11_2_percent():
    assert round((3.03 - 2.69) / 3.03 * 100, 1) == 11.2
    assert run_quick("yat.exp.gpt2_001").numbers["11.2pct_consistent"] is True


def test_vision_counts():
    ev = run_quick("yat.exp.vision_001")
    diffs = [b - a for a, b in M.VISION.values()]
    assert ev.numbers["wins"] == sum(d > 0 for d in diffs) == 7
    assert math.isclose(ev.numbers["worst_diff"], min(diffs), abs_tol=0.006)


UCI_LABEL = "UCI handwritten digits (sklearn load_digits, 8×8), a substitute for MNIST"
DIGIT_PARTS = {"yat.exp.mnist_main": "replication", "yat.exp.mnist_inversion": "replication",
               "yat.exp.mnist_analysis": "weights_kurtosis", "yat.exp.unsupported_mentions": "prototype_sharpness"}


@pytest.mark.parametrize("cid", sorted(DIGIT_PARTS))
def test_digit_substitute_parts_are_labelled_and_decide_nothing(cid):
    ev = run_quick(cid)
    part = ev if DIGIT_PARTS[cid] is None else ev.parts[DIGIT_PARTS[cid]]
    assert UCI_LABEL in part.notes and "synthetic" not in part.notes.lower()
    assert "substitute" in part.numbers
    # a replication on a substitute never confirms the MNIST claim
    assert part.verdict == V.NOT_CHECKABLE and ev.verdict in (V.NOT_CHECKABLE, V.REFUTED)


def test_digit_substitute_is_the_uci_split_and_its_accuracies_recompute():
    from sklearn.datasets import load_digits

    from proofs_check.registry import Context
    from yatmath.yat import product
    sub = M._substitute_mnist(Context(level="quick", seed=0, claim_id="yat.exp.mnist_main"))
    assert sub["data"]["train"] + sub["data"]["test"] == len(load_digits().target) == 1797
    assert sub["data"]["d"] == 64 and sub["data"]["dataset"] == UCI_LABEL
    Xte, yte = M.load_uci_digits(0, test_fraction=0.3)[2:]
    assert len(yte) == sub["data"]["test"]
    # linear: argmax of W x + b; Yat: s K(w_i, x) with s > 0, so argmax_i K(w_i, x) (kernel recomputed)
    P = sub["linear"]["P"]
    for sign, key in ((1, "acc"), (-1, "acc_inverted")):
        pred = np.argmax(Xte @ (sign * P["W"]).T + P["b"], axis=1)
        assert sub["linear"][key] == pytest.approx(np.mean(pred == yte), abs=0)
    P = sub["yat"]["P"]
    for sign, key in ((1, "acc"), (-1, "acc_inverted")):
        K = product(sign * P["W"][None, :, :], Xte[:, None, :], P["eps"], backend="numpy")
        assert sub["yat"][key] == pytest.approx(np.mean(np.argmax(K, axis=1) == yte), abs=0)
    assert sub["linear"]["acc"] > 0.5 and sub["yat"]["acc"] > 0.5        # chance is 0.1
    # one substitute run per (seed, level): every claim that reports it reports the same numbers
    inv = run_quick("yat.exp.mnist_inversion").parts["replication"].numbers["substitute"]
    main = run_quick("yat.exp.mnist_main").numbers["substitute"]
    for k in ("linear", "yat"):
        assert inv[k]["acc"] == main[k]["acc"] and inv[k]["acc_inverted"] == main[k]["acc_inverted"]


def test_unsupported_mentions_pinn_refuted_by_an_independent_text_search():
    from proofs_check.papers import paper_text
    ev = run_quick("yat.exp.unsupported_mentions")
    pinn = ev.parts["pinn"]
    assert ev.verdict == V.REFUTED and pinn.verdict == V.REFUTED
    assert "physics-informed neural" in pinn.reading.passage and "§5" in pinn.reading.passage
    # independent: 001 §5 does assert a PINN validation, and no text holds a PDE experiment
    t001 = " ".join(paper_text("001").split())
    assert re.search(r"language modeling and physics-informed neural (?:\d+ )?networks—demonstrates", t001)
    for k in ("000", "001", "002"):
        body = paper_text(k).split("References")[0]
        assert not re.search(r"Burgers|Poisson equation|Navier|collocation|partial differential|\bPDEs?\b",
                             body, flags=re.I), k
    assert pinn.repro.expected == 0 and run_repro(pinn.repro.to_dict())[1]
    assert pinn.scope.kind == "exhaustive"
    other = pinn.other_readings["section1_enables_applications"]
    assert other.verdict == V.NOT_CHECKABLE and other.tried is not None
