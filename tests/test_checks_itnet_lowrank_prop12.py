"""itnet.lowrank.prop12: the bound's supremum re-derived independently (flat spectrum of 2r values)."""
import math

import numpy as np

import proofs_check.checks.itnet.lowrank as LR
from checkrun import assert_valid_evidence, run_quick
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
    assert 0.45 < sup <= 0.5 + 1e-9 and ev.parts["bound_eq214"].verdict == V.CONFIRMED
    lit = ev.parts["step_tail_index"].other_readings["literal_min_n_d"]
    assert lit.verdict == V.REFUTED
    _, ok = run_repro(lit.repro.to_dict())
    assert ok
    assert ev.verdict == V.CONFIRMED
