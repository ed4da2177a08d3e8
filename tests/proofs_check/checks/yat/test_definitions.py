"""Ledger checks yat.def.basic and yat.def.expanded_form (proofs_check/checks/yat/def.py).

Independent re-derivations: exact rational arithmetic for the zero set, sympy for the identity,
mpmath for the catastrophic cancellation of the expanded form in bf16."""
from __future__ import annotations

import importlib
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
import sympy as sp

from tests.checkrun import assert_valid_evidence, run_quick
from proofs_check import verdicts as V
from proofs_check.registry import module_for
from proofs_check.repro import run_repro

MOD = importlib.import_module("proofs_check.checks.yat.def")   # 'def' is a keyword
IDS = ["yat.def.basic", "yat.def.expanded_form"]


@pytest.mark.parametrize("cid", IDS)
def test_registered_where_the_id_leads_and_record_is_valid(cid):
    ev = run_quick(cid)
    assert MOD.__name__ in module_for(cid)
    assert_valid_evidence(cid, ev, MOD)
    assert ev.problems() == []
    if ev.repro is not None:
        value, ok = run_repro(ev.to_dict()["repro"])
        assert ok, (value, ev.repro.expected)


def test_def_basic_verdict_follows_from_symbolic_proof_and_zero_set_is_exact():
    ev = run_quick("yat.def.basic")
    sym = ev.numbers["sympy"]
    assert ev.verdict == V.holds(all(all(v.values()) for v in sym.values()))
    assert ev.scope.kind == "symbolic" and ev.scope.universal
    # independent: exact rationals, K = 0 iff w.x = 0, K >= 0, symmetric
    rng = np.random.default_rng(7)
    for _ in range(200):
        w = [int(v) for v in rng.integers(-3, 4, 4)]
        x = [int(v) for v in rng.integers(-3, 4, 4)]
        eps = Fraction(1, 1000)
        s = sum(a * b for a, b in zip(w, x))
        K = Fraction(s * s) / (sum((a - b) ** 2 for a, b in zip(w, x)) + eps)
        Kt = Fraction(s * s) / (sum((b - a) ** 2 for a, b in zip(w, x)) + eps)
        assert K >= 0 and K == Kt and ((K == 0) == (s == 0))
    assert ev.numbers["zero_set_agreement_rate"] == 1.0
    assert ev.numbers["min_K"] >= 0.0


def test_expanded_identity_independently_and_bf16_cancellation():
    ev = run_quick("yat.def.expanded_form")
    w, x = sp.symbols("w0:4", real=True), sp.symbols("x0:4", real=True)
    e = sp.Symbol("e", positive=True)
    s = sum(a * b for a, b in zip(w, x))
    assert sp.expand(sum((a - b) ** 2 for a, b in zip(w, x)) + e
                     - (sum(a * a for a in w) + sum(b * b for b in x) - 2 * s + e)) == 0
    assert ev.verdict == V.CONFIRMED
    # bf16: w = ones(64), x = w + 0.5 e_1, eps = 2^-10: the expanded denominator loses r^2
    w1 = np.ones(64)
    x1 = w1.copy()
    x1[0] += 0.5
    _, Ke, De = MOD.printed_forms(w1, x1, 2.0 ** -10, "bf16")
    with mp.workdps(30):
        D_true = mp.mpf(0.25) + mp.mpf(2) ** -10
    assert abs(float(De) - float(D_true)) > 0.1 * float(D_true)
    # round_bf16 keeps 8 significant bits: 1 + 2^-8 rounds (ties to even) to 1, 1 + 2^-7 stays
    assert MOD.round_bf16(np.float32(1 + 2 ** -8)) == np.float32(1.0)
    assert MOD.round_bf16(np.float32(1 + 2 ** -7)) == np.float32(1 + 2 ** -7)
