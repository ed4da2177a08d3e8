"""Ledger checks itnet.{cor_strict_expressiveness, uat, uat_lemmas, prop9_rate, thm5_kernel_recovery,
rnn_strictness} (003 §2.3, App E.9-E.10, App F, App G)."""
import importlib

import numpy as np
import pytest

from tests.checkrun import assert_valid_evidence, run_quick
from proofs_check import verdicts as V
from proofs_check.repro import run_repro

IDS = ["cor_strict_expressiveness", "uat", "uat_lemmas", "prop9_rate", "thm5_kernel_recovery", "rnn_strictness"]
MODS = [importlib.import_module(f'proofs_check.checks.itnet.{n}') for n in IDS]


@pytest.mark.parametrize("name", IDS)
def test_record_is_valid(name):
    cid = f"itnet.{name}"
    ev = run_quick(cid)
    assert_valid_evidence(cid, ev, importlib.import_module(f"proofs_check.checks.itnet.{name}"))
    assert ev.problems() == []
    for node in [ev, *ev.parts.values(), *ev.other_readings.values()]:
        if node.repro is not None:
            assert run_repro(node.repro.to_dict())[1]


def test_product_target_mixed_difference_by_hand():
    # D = F(a,b) - F(a',b) - F(a,b') + F(a',b') with F = a*b, a = b = 1, a' = b' = -1: 1 + 1 + 1 + 1 = 4
    a, a2, b, b2 = 1.0, -1.0, 1.0, -1.0
    assert a * b - a2 * b - a * b2 + a2 * b2 == 4
    ev = run_quick("itnet.uat")
    assert ev.numbers["sup_error_lower_bound"] == 1.0 and ev.verdict == V.REFUTED
    assert abs(ev.numbers["lp_best_single_layer_error"] - 1.0) < 1e-6


def test_lemma6_random_matrices():
    rng = np.random.default_rng(0)
    for d in (2, 5, 17):
        A = rng.uniform(-1, 1, (d, d)) / d
        assert np.linalg.norm(A, 2) <= np.linalg.norm(A, "fro") <= 1 + 1e-12
    assert run_quick("itnet.uat_lemmas").parts["lemma6"].verdict == V.CONFIRMED


def test_thm5_gradient_is_not_circulant():
    ev = run_quick("itnet.thm5_kernel_recovery")
    ce = ev.counterexample
    K, T, S = (np.array(ce[k]) for k in ("K", "T", "S"))
    n = len(K)
    g = (2.0 / n) * (K / n - T) @ S
    assert not np.allclose(g, np.roll(np.roll(g, 1, 0), 1, 1))
    assert ev.verdict == V.REFUTED


def test_rnn_rank_by_hand():
    t = np.linspace(0, 1, 10)
    assert np.linalg.matrix_rank(np.tril(np.exp(-(t[:, None] - t[None, :])))) == 10


def test_prop9_continuous_integrand_counterexample():
    from fractions import Fraction
    # exact: at the midpoint nodes (j + 1/2)/M, frac(M x) = 1/2, so |2 frac(M x) - 1| = 0 (every ITNet sees u = 0)
    for M in (4, 64, 4096):
        assert all(abs(2 * (Fraction(2 * j + 1, 2 * M) * M % 1) - 1) == 0 for j in range(0, M, max(1, M // 16)))
    # int_0^1 |2 frac(M x) - 1| dx = 1/2 on every cell, so int u_M = H/2 = 1/(8 sqrt M) and M int u_M = sqrt(M)/8
    x = (np.arange(64_000) + 0.5) / 64_000
    assert np.mean(np.abs(2 * ((16 * x) % 1.0) - 1)) == pytest.approx(0.5, rel=1e-12)
    ev = run_quick("itnet.prop9_rate")
    assert ev.verdict == V.REFUTED and ev.parts["width_term"].verdict == V.NOT_CHECKABLE
    q = ev.parts["quadrature_term"]
    assert q.verdict == V.REFUTED and q.thresholds[0].measured == pytest.approx(0.5)
    for row in q.numbers["rows"]:
        assert row["C2_needed"] == pytest.approx(np.sqrt(row["M"]) / 8, rel=1e-12)
    # u_M is in the Hoelder-1/2 ball: min(L|x-y|, H) <= sqrt(L H |x-y|) with L = 2 H M, H = 1/(4 sqrt M)
    M = 4096
    H = 0.25 / np.sqrt(M)
    assert np.sqrt(2 * H * M * H) == pytest.approx(np.sqrt(2) / 4) and np.sqrt(2) / 4 <= 1
    assert q.numbers["hoelder_half_constant_measured"] <= np.sqrt(2) / 4 * (1 + 1e-12)
    assert run_repro(q.repro.to_dict())[1]


def test_uat_stack_reading_layernorm_blind_to_channel_mean():
    # independent: LayerNorm over channels ignores a shift by t 1, so a pre-norm residual layer maps t 1 + c to
    # t 1 + (its value at c); any eq.-5 stack moves constant fields t 1 by a t-independent c(x)
    rng = np.random.default_rng(5)
    v, t = rng.normal(size=(4, 3)), 1.7

    def ln(x):
        return (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-5)
    assert np.allclose(ln(v + t), ln(v), atol=1e-12)
    r2 = run_quick("itnet.uat").other_readings["R2_stack"]
    assert r2.verdict == V.REFUTED and r2.numbers["max_|S(t1) - S(0) - t1|"] < 1e-12
    assert r2.numbers["random_stacks"] >= 20 and r2.counterexample["sup_error_lower_bound"] == 0.5
    dev, err = run_repro(r2.repro.to_dict())[0]
    assert dev < 1e-12 and err >= 0.5
    # the refuted reading carries its exact inputs (the stack's parameters are the repro's bindings) and the
    # claim's notes (shown by --explain) name them
    assert all(r2.counterexample[k] == v for k, v in r2.repro.bindings.items())
    assert "R2_stack" in run_quick("itnet.uat").notes and str(r2.repro.bindings["seed"]) in run_quick("itnet.uat").notes


def test_uat_lemmas_step3_tight_and_c_u_fixed_by_section_2_1():
    st = run_quick("itnet.uat_lemmas").parts["step3"]
    assert st.verdict == V.CONFIRMED and st.bounds[0].tight == pytest.approx(1.0, abs=1e-12)
    assert st.numbers["restarts"] >= 20 and st.numbers["sup_ratio_search"] <= 1 + 1e-12
    # independent: Delta = delta I on the constant field C_u e attains the bound with equality
    d, delta, C = 5, 0.3, 2.0
    e = np.ones(d) / np.sqrt(d)
    assert np.linalg.norm(delta * np.eye(d) @ (C * e)) == pytest.approx(delta * C)
    # C_u is fixed by §2.1's uniform norm ||u||_inf = sup_x ||u(x)||_2; no passage admits an entrywise sup, so no
    # such reading is reported (the notes say why it was removed)
    assert st.other_readings == {}
    assert "§2.1" in st.reading.passage and "sup_{x in Omega} ||u(x)||_2" in st.reading.passage
    assert "entrywise" in st.notes and "removed" in st.notes


def test_prop9_width_term_records_what_was_tried():
    w = run_quick("itnet.prop9_rate").parts["width_term"]
    assert w.verdict == V.NOT_CHECKABLE and not w.tried.missing() and "L2" in w.tried.printed
