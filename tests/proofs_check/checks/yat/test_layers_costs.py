"""Tests of the A9/A10 checks: yat.squash.*, yat.width_scaling, yat.layernorm_interaction,
yat.attention_expressivity (checks/yat/<group>.py), yat.cost.* (checks/yat/cost.py),
yat.numerics.stability (checks/yat/numerics.py).  Key numbers are re-derived independently."""
import importlib
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from tests.checkrun import assert_valid_evidence, run_quick
from proofs_check import verdicts as V
from proofs_check.registry import module_for
from proofs_check.repro import run_repro

for _m in ("squash", "width_scaling", "layernorm_interaction", "attention_expressivity", "cost", "numerics"):
    importlib.import_module(f"proofs_check.checks.yat.{_m}")

IDS = ["yat.squash.softermax", "yat.squash.soft_sigmoid_tanh", "yat.width_scaling", "yat.layernorm_interaction",
       "yat.attention_expressivity", "yat.cost.forward", "yat.cost.backward_formulas", "yat.cost.overhead_ratio",
       "yat.cost.per_neuron", "yat.cost.memory", "yat.cost.throughput", "yat.numerics.stability"]


@pytest.mark.slow
@pytest.mark.parametrize("cid", IDS)
def test_valid_and_follows_rules(cid):
    ev = run_quick(cid)
    assert_valid_evidence(cid, ev, importlib.import_module(module_for(cid)[0]))
    assert ev.problems() == []


def test_softermax_parts():
    ev = run_quick("yat.squash.softermax")
    assert ev.verdict == V.REFUTED
    assert ev.parts["n1_recovers_original"].verdict == V.CONFIRMED
    assert ev.parts["harder_for_larger_n"].verdict == V.CONFIRMED
    assert ev.parts["harder_for_larger_n"].numbers["restarts"] >= 20
    # fp16: 5^8 = 390625 > 65504 overflows while exp(5) = 148.4 does not
    assert 5.0 ** 8 > float(np.finfo(np.float16).max) > math.exp(5.0)
    st = ev.parts["stability_large_inputs"]
    value, ok = run_repro(st.repro.to_dict())
    assert st.verdict == V.REFUTED and ok and list(value) == [False, True]
    # sum of softermax = S/(eps+S): x = (1e-3, 2e-3, 0), eps = 1e-3 -> 0.003/0.004 = 3/4
    d = ev.parts["output_is_distribution"]
    assert d.verdict == V.REFUTED
    assert math.isclose(d.numbers["sum_at_counterexample"], float(Fraction(3, 4)), rel_tol=1e-12)


def test_soft_sigmoid_tanh_refuted_as_written():
    ev = run_quick("yat.squash.soft_sigmoid_tanh")
    assert ev.verdict == V.REFUTED
    part = ev.parts["saturation_faster_in_n_001_002"]
    assert part.verdict == V.REFUTED and not part.other_readings       # no correction of the check's own
    assert "approach zero faster for large x" in part.reading.passage
    # independent (mpmath): at x = 10 a larger n moves sigma_n away from 0 and tau_n away from -1
    sig = lambda x, n: x ** n / (1 + x ** n)                            # noqa: E731
    x = mpmath.mpf(10)
    assert [sig(x, n) for n in (1, 2)] == [mpmath.mpf(10) / 11, mpmath.mpf(100) / 101]
    vals = [sig(x, n) for n in (0.5, 1, 2, 4)]
    assert all(a < b for a, b in zip(vals, vals[1:]))                   # increasing in n: away from 0
    taus = [2 * v - 1 for v in vals]
    assert all(a < b for a, b in zip(taus, taus[1:])) and taus[0] > -1   # away from -1
    assert math.isclose(part.numbers["sigma_2(10)"], 100 / 101, rel_tol=1e-14)
    value, ok = run_repro(part.repro.to_dict())
    assert ok and min(value) > 0
    assert ev.repro is not None and run_repro(ev.repro.to_dict())[1]
    # the other parts are unchanged and hold symbolically
    for k in ("sigma_range", "tau_identity_range", "heavy_tail_and_gain_000", "logistic_on_nonneg"):
        assert ev.parts[k].verdict == V.CONFIRMED


def test_width_scaling_not_checkable_but_not_width_independent():
    ev = run_quick("yat.width_scaling")
    assert ev.verdict == V.NOT_CHECKABLE and ev.plot is not None
    other = ev.other_readings["width_independent_at_init"]
    ci = other.numbers["ci95"]
    assert other.verdict == (V.CONFIRMED if ci[0] <= 0 <= ci[1] else V.REFUTED)
    # s alone grows like n^0.8 over 8..4096: log-log slope of n/ln(1+n)
    ns = np.array([8, 4096.0])
    s = ns / np.log1p(ns)
    assert 0.75 < math.log(s[1] / s[0]) / math.log(ns[1] / ns[0]) < 0.85
    assert run_repro(other.repro.to_dict())[1]


def test_layernorm_norm_identity_numeric():
    rng = np.random.default_rng(3)
    x = rng.standard_normal(16) * 0.01
    eps = 1e-5
    ln = (x - x.mean()) / math.sqrt(x.var() + eps)
    assert math.isclose(np.sum(ln ** 2), 16 * x.var() / (x.var() + eps), rel_tol=1e-12)
    assert run_quick("yat.layernorm_interaction").parts["norm_sq_equals_d"].verdict == V.CONFIRMED


def test_cost_forward_counts():
    ev = run_quick("yat.cost.forward")
    counted = ev.numbers["counted"]
    assert counted["Bnd"] == 2 and ev.verdict == V.CONFIRMED_LOOSE
    # multiply-add = 2 FLOPs: ||x||^2 over d entries is d mults + d adds
    assert counted["Bd"] == 2 and counted["nd"] == 2


def test_backward_complete_gradient_differs_from_printed():
    ev = run_quick("yat.cost.backward_formulas")
    part = ev.parts["eqs20_22_complete_gradients"]
    assert ev.verdict == V.REFUTED and part.verdict == V.REFUTED
    assert part.other_readings["S_path_only"].verdict == V.CONFIRMED
    ce = part.counterexample
    X, W, G, eps = np.array(ce["X"]), np.array(ce["W"]), np.array(ce["G"]), ce["eps"]
    # complete dL/dX by central differences of sum(G * K) with the plain formula
    def L(X_):
        S = X_ @ W.T
        D = np.sum(X_ ** 2, 1)[:, None] + np.sum(W ** 2, 1)[None] - 2 * S + eps
        return float(np.sum(G * S ** 2 / D))
    fd = np.zeros_like(X)
    for idx in np.ndindex(*X.shape):
        e = np.zeros_like(X)
        e[idx] = 1e-6
        fd[idx] = (L(X + e) - L(X - e)) / 2e-6
    S = X @ W.T
    a, b = np.sum(X * X, 1)[:, None], np.sum(W * W, 1)[None]
    printed = (G * 2 * S * (a + b + eps - S) / (a + b - 2 * S + eps) ** 2) @ W
    rel = np.linalg.norm(printed - fd) / np.linalg.norm(fd)
    assert rel > 1e-3 and math.isclose(rel, ce["rel_err"], rel_tol=1e-4)
    assert run_repro(part.repro.to_dict())[1]


def test_overhead_ratio_corner():
    ev = run_quick("yat.cost.overhead_ratio")
    f = Fraction(1) + Fraction(1, 128) + Fraction(1, 32) + Fraction(2, 64)
    assert f > Fraction(105, 100)                          # 7.03% > 5%: the printed claim fails
    tab = Fraction(6 * 16 * 64 * 64 + 2 * 16 * 64 + 2 * 64 * 64 + 11 * 16 * 64, 6 * 16 * 64 * 64 + 3 * 16 * 64)
    assert tab < Fraction(105, 100)
    p = ev.parts["printed_formula_below_5pct"]
    assert p.verdict == V.REFUTED and math.isclose(p.numbers["formula_at_corner"], float(f))
    assert p.other_readings["table_terms_ratio"].verdict == V.CONFIRMED
    assert math.isclose(ev.numbers["table_ratio_at_corner"], float(tab), rel_tol=1e-12)


def test_per_neuron_gelu_refuted_at_the_papers_widths_others_hold():
    ev = run_quick("yat.cost.per_neuron")
    assert ev.verdict == V.REFUTED
    r = ev.parts["table_ratios"].parts
    g = r["gelu_1.03"]
    assert g.verdict == V.REFUTED and g.counterexample["d"] in (768, 784, 3072)
    d = g.counterexample["d"]
    assert abs((2 * d + 15) / (2 * d + 1) - 1.03) > 0.005 == g.thresholds[0].value
    assert r["naive_2.5"].verdict == V.CONFIRMED and r["optimized_2.0"].verdict == V.CONFIRMED
    # (2d+15)/(2d+1) = 1.03 at d = (15 - 1.03)/(2*0.03) ~ 232.8
    assert abs((2 * 233 + 15) / (2 * 233 + 1) - 1.03) < 0.001
    assert abs((2 * 768 + 15) / (2 * 768 + 1) - 1.03) > 0.005
    assert 1 - (4 * 64 + 4) / (5 * 64 + 1) < 0.195 <= 1 - (4 * 128 + 4) / (5 * 128 + 1)


def test_throughput_times_inconsistent():
    ev = run_quick("yat.cost.throughput")
    assert ev.verdict == V.REFUTED
    assert 2.45e9 / 138.5e3 > 4 * 3600 + 50 * 60 + 10       # 17690 s > 17410 s reported
    assert (132e3 - 500) / (138e3 + 500) > 0.92
    for k in ("ratio_in_0.85_0.92", "times_vs_throughput"):
        assert ev.parts[k].verdict == V.REFUTED and run_repro(ev.parts[k].repro.to_dict())[1]


def test_numerics_fp32_denominator_cancellation():
    ev = run_quick("yat.numerics.stability")
    part = ev.parts["fp32_denominator_accuracy"]
    assert ev.verdict == V.REFUTED and part.verdict == V.REFUTED
    ce = part.counterexample
    d, delta, eps = ce["d"], ce["delta"], ce["eps"]
    # exact K with mpmath: x = w + delta e1, w = ones(d) (x rounded to fp32 first)
    x0 = float(np.float32(1.0) + np.float32(delta))
    s = mpmath.mpf(x0) + (d - 1)
    K = s ** 2 / ((mpmath.mpf(x0) - 1) ** 2 + eps)
    assert abs(ce["K_fp32_denominator"] - float(K)) / float(K) >= 1.0
    assert run_repro(part.repro.to_dict())[1]


def test_memory_and_attention_not_checkable():
    assert run_quick("yat.cost.memory").verdict == V.NOT_CHECKABLE
    assert run_quick("yat.attention_expressivity").verdict == V.NOT_CHECKABLE
