"""itnet.lowrank.prop12: the bound's supremum re-derived independently (flat spectrum of 2r values)."""
import math
from fractions import Fraction

import numpy as np
import pytest

import proofs_check.checks.itnet.lowrank as LR
from tests.checkrun import assert_valid_evidence, run_quick
from proofs_check import verdicts as V
from proofs_check.repro import run_repro


def test_prop12_record_and_sup():
    ev = run_quick("itnet.lowrank.prop12")
    assert_valid_evidence("itnet.lowrank.prop12", ev, LR)
    assert ev.problems() == []
    for r in (1, 3):
        s = np.ones(2 * r)                              # flat spectrum of 2r values: ratio exactly 1/2
        assert math.sqrt((s[r:] ** 2).sum() * r) / s.sum() == 0.5
    sup = ev.numbers["max_ratio"]
    assert 0.45 < sup <= 0.5 + 1e-9
    lit = ev.parts["step_tail_index"].other_readings["literal_min_n_d"]
    assert lit.verdict == V.REFUTED
    _, ok = run_repro(lit.repro.to_dict())
    assert ok


def test_prop12_tight_constant_half_makes_it_loose():
    ev = run_quick("itnet.lowrank.prop12")
    b = ev.parts["bound_eq214"]
    assert b.verdict == V.CONFIRMED_LOOSE and ev.verdict == V.CONFIRMED_LOOSE
    assert ev.numbers["tight_constant"] == 0.5 and ev.numbers["ratio_claimed_over_tight"] == 2.0
    th = b.thresholds[0]
    assert (th.value, th.kind, th.flip) == (1.0, "paper", 0.5)
    (bd,) = b.bounds                                      # the Bound record: claimed 1, tight 1/2, smaller is better
    assert (bd.claimed, bd.better) == (1.0, "smaller") and bd.tight == pytest.approx(0.5, abs=1e-12)
    assert bd.verdict() == V.CONFIRMED_LOOSE
    # independent, exact: r ||K-K_r||_F^2 / ||K||_*^2 <= 1/4 on random rational spectra (the proof's chain)
    rng = np.random.default_rng(7)
    for _ in range(200):
        m, r = int(rng.integers(2, 9)), None
        r = int(rng.integers(1, m))
        s = sorted((Fraction(int(v), 7) for v in rng.integers(0, 50, m)), reverse=True)
        if sum(s) == 0:
            continue
        assert r * sum(x * x for x in s[r:]) / sum(s) ** 2 <= Fraction(1, 4)
    value, ok = run_repro(b.repro.to_dict())
    assert ok and abs(value - 0.5) < 1e-12 and run_repro(ev.repro.to_dict())[1]


def test_prop12_cites_the_printed_equation_214():
    import re

    from proofs_check.papers import paper_text
    ev = run_quick("itnet.lowrank.prop12")
    src = ev.parts["bound_eq214"].thresholds[0].source
    assert "(214)" in src and "211" not in src
    line = int(re.search(r"\(l\.(\d+)\)", src).group(1))
    printed = paper_text("003").split("\n")[line - 1]
    # the cited line carries the bound ||K - K^(r)||_F <= ||K||_*/sqrt(r) and its number (214)
    assert r"\(214\)" in printed and r"\\|\_\{\*\}" in printed and r"\sqrt\{r\}" in printed
