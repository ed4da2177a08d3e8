"""Tests of proofs_check/checks/yat_layers_cost.py and yatmath/yat/opcount.py.

Each check runs at level quick, seed 0; its verdict must be a valid one and its evidence must hold
the numbers the catalogue's Record line asks for.  Counterexamples and maximisers are then
re-evaluated independently (plain formulas, mpmath), never compared with numbers copied from the
implementation.
"""

import mpmath as mp
import numpy as np
import pytest

import yatmath.yat as Y
from proofs_check import verdicts as V
from proofs_check.checks import yat_layers_cost as M
from yatmath.yat import opcount
from yatmath.yat.layer import layer_backward, layer_forward
from checkrun import run_quick as run

IDS = ["yat.squash.softermax", "yat.squash.soft_sigmoid_tanh", "yat.width_scaling",
       "yat.layernorm_interaction", "yat.attention_expressivity", "yat.cost.forward",
       "yat.cost.backward_formulas", "yat.cost.overhead_ratio", "yat.cost.per_neuron",
       "yat.cost.memory", "yat.cost.throughput", "yat.numerics.stability"]
FUNCS = {"yat.squash.softermax": M.check_softermax, "yat.squash.soft_sigmoid_tanh": M.check_soft_sigmoid_tanh,
         "yat.width_scaling": M.check_width_scaling, "yat.layernorm_interaction": M.check_layernorm,
         "yat.attention_expressivity": M.check_attention_expressivity,
         "yat.cost.forward": M.check_cost_forward, "yat.cost.backward_formulas": M.check_cost_backward,
         "yat.cost.overhead_ratio": M.check_overhead, "yat.cost.per_neuron": M.check_per_neuron,
         "yat.cost.memory": M.check_memory, "yat.cost.throughput": M.check_throughput,
         "yat.numerics.stability": M.check_stability}


@pytest.mark.parametrize("cid", IDS)
def test_valid_evidence(cid):
    ev = run(cid)
    assert ev.verdict in V.VERDICTS
    d = ev.to_dict()
    assert set(d) >= {"verdict", "evidence", "counterexample", "repro", "parts", "notes"}
    for p in ev.parts.values():
        assert p.verdict in V.VERDICTS
    if ev.verdict == V.REFUTED:
        assert ev.counterexample and ev.repro


def test_record_fields():
    # Record lines: per sub-claim results; exponents with/without s; counted vs claimed; ...
    assert len(run("yat.squash.softermax").parts) >= 4
    assert len(run("yat.squash.soft_sigmoid_tanh").parts) >= 5
    fits = run("yat.width_scaling").numbers["fits"]
    assert any(k.endswith("with_s") for k in fits) and any(k.endswith("no_s") for k in fits)
    fw = run("yat.cost.forward").numbers
    assert {"counted_minimal", "claimed"} <= set(fw)
    ov = run("yat.cost.overhead_ratio").numbers
    assert {"formula", "table_terms", "instrumented"} <= set(ov)
    mem = run("yat.cost.memory").parts
    for p in mem.values():
        assert {"gpt2_bytes_fp32", "aether_bytes_fp32", "reduction_fp32"} <= set(p.numbers)
    assert "substitute_numpy_forward_time_ratio_yat_over_linear" in run("yat.cost.throughput").numbers
    assert "error_vs_delta" in run("yat.numerics.stability").numbers


# ---------------------------------------------------------------- opcount


def test_opcounter_matmul_and_phases():
    c = opcount.OpCounter()
    with c.phase("backward"):
        c.matmul(np.ones((3, 4)), np.ones((4, 5)))
    assert c.total("backward") == 2 * 3 * 4 * 5 and c.total("forward") == 0
    with pytest.raises(ValueError, match="phase"):
        with c.phase("sideways"):
            pass
    with pytest.raises(ValueError, match="matmul"):
        c.matmul(np.ones((3, 4)), np.ones((3, 4)))


def test_counted_layer_computes_the_layer():
    rng = np.random.default_rng(1)
    X, W, G = rng.standard_normal((5, 6)), rng.standard_normal((4, 6)), rng.standard_normal((5, 4))
    _, Yc, dX, dW = opcount.count_yat_layer(X, W, 0.7, G)
    np.testing.assert_allclose(Yc, Y.gram(X, W, 0.7, backend="numpy"), rtol=1e-12)
    _, cache = layer_forward(X, W, 0.7, alpha=0.0, return_cache=True, backend="numpy")
    g = layer_backward(G, cache)
    np.testing.assert_allclose(dX, g.X, rtol=1e-10)
    np.testing.assert_allclose(dW, g.W, rtol=1e-10)


def test_count_by_hand():
    # Hand count of the op list in the docstring: forward 2Bnd + 2Bd + 2nd + 5Bn + B;
    # backward 4Bnd + 10Bn + 2Bd + 2nd + B + n.
    B, n, d = 3, 5, 7
    c = opcount.count_yat_layer(np.ones((B, d)), np.ones((n, d)) * 2, 1.0, np.ones((B, n)))[0]
    assert c.total("forward") == 2 * B * n * d + 2 * B * d + 2 * n * d + 5 * B * n + B
    assert c.total("backward") == 4 * B * n * d + 10 * B * n + 2 * B * d + 2 * n * d + B + n
    cl = opcount.count_linear_layer(np.ones((B, d)), np.ones((n, d)), np.ones((B, n)), relu=True)[0]
    assert cl.total() == 6 * B * n * d + 4 * B * n


# ---------------------------------------------------------------- independent re-evaluations


def test_softermax_counterexamples():
    ev = run("yat.squash.softermax")
    ce = ev.parts["n1_is_softmax_002"].counterexample
    x = np.array(ce["x"])
    plain = x / x.sum()
    soft = np.exp(x) / np.exp(x).sum()
    assert np.max(np.abs(plain - soft)) > 0.01
    np.testing.assert_allclose(ce["softermax_1"], plain, rtol=1e-12)
    d = ev.parts["output_is_distribution"].counterexample
    xs = np.array(d["x"]) ** d["n"]
    assert abs(xs.sum() / (d["eps"] + xs.sum()) - d["sum"]) < 1e-12 and d["sum"] < 0.99
    # fp16 overflow: x^8 overflows at x = 5 while exp(5) does not
    with np.errstate(over="ignore"):
        assert not np.isfinite(np.float16(5.0) ** 8) and np.isfinite(np.exp(np.float16(5.0)))


def test_soft_sigmoid_literal_reading():
    ce = run("yat.squash.soft_sigmoid_tanh").counterexample
    x, n = mp.mpf(ce["x"]), ce["n"]
    assert abs(float(x ** n / (1 + x ** n)) - ce["sigma"]) < 1e-15
    assert ce["sigma"] > 0.98 and ce["tau"] > 0.97    # near 1, not near 0 / -1


def test_width_scaling_slope_is_that_of_s():
    ev = run("yat.width_scaling")
    ns = np.array([8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096], float)
    slope_s = np.polyfit(np.log(ns), np.log(ns / np.log1p(ns)), 1)[0]
    assert abs(ev.numbers["slope_of_s_itself"] - slope_s) < 1e-12
    f = ev.numbers["fits"]
    # s is a deterministic gain: slope(with s) - slope(without) ~ slope of s (MC noise ~0.1)
    diff = f["x1.0_readout_with_s"]["slope"] - f["x1.0_readout_no_s"]["slope"]
    assert abs(diff - slope_s) < 0.15
    if ev.verdict == V.REFUTED:
        assert ev.numbers["min_increase_abs_slope"] > 0.1


def test_backward_counterexample_independently():
    ce = run("yat.cost.backward_formulas").counterexample
    X, W, G, eps = (np.array(ce[k]) for k in ("X", "W", "G")), None, None, ce["eps"]
    X, W, G = (np.array(ce[k]) for k in ("X", "W", "G"))

    def loss(Xv):
        S = Xv @ W.T
        D = ((Xv[:, None, :] - W[None]) ** 2).sum(-1) + eps
        return float(np.sum(G * S ** 2 / D))
    h = 1e-6
    fd = np.zeros_like(X)
    for i in np.ndindex(*X.shape):
        e = np.zeros_like(X)
        e[i] = h
        fd[i] = (loss(X + e) - loss(X - e)) / (2 * h)
    printed = np.array(ce["dX_printed"])
    assert np.linalg.norm(printed - fd) / np.linalg.norm(fd) > 0.05
    S = X @ W.T
    D = ((X[:, None, :] - W[None]) ** 2).sum(-1) + eps
    full = (G * 2 * S * (D + S) / D ** 2) @ W + 2 * (G * -S ** 2 / D ** 2).sum(1)[:, None] * X
    assert np.linalg.norm(full - fd) / np.linalg.norm(fd) < 1e-7


def test_overhead_counterexample():
    ce = run("yat.cost.overhead_ratio").counterexample
    B, n, d = ce["B"], ce["n"], ce["d"]
    assert abs(ce["formula"] - (1 + 1 / (2 * n) + 1 / (2 * B) + 2 / d)) < 1e-15
    assert ce["formula"] > 1.05
    # ratio rebuilt from Table 5's printed terms, by hand
    yat = 6 * B * n * d + 2 * B * d + 2 * n * d + 11 * B * n
    lin = 6 * B * n * d + 3 * B * n
    assert abs(run("yat.cost.overhead_ratio").numbers["table_terms"] - yat / lin) < 1e-12


def test_per_neuron_ratios_by_hand():
    r = run("yat.cost.per_neuron").numbers["ratios"]
    assert abs(r["gelu"][0] - 143 / 129) < 1e-12 and abs(r["optimized"][1] - 3076 / 1537) < 1e-12


def test_memory_reductions_consistent():
    for p in run("yat.cost.memory").parts.values():
        n = p.numbers
        assert abs(n["reduction_fp32"] - (1 - n["aether_bytes_fp32"] / n["gpt2_bytes_fp32"])) < 1e-12


def test_throughput_times():
    ev = run("yat.cost.throughput")
    ce = ev.counterexample
    assert ce["tokens"] / ce["linear_tok_per_s"] > ce["reported_linear_s"]
    assert abs(ev.numbers["ratio_132_138"] - 132 / 138) < 1e-15


def test_stability_counterexample_mpmath():
    ce = run("yat.numerics.stability").counterexample
    mp.mp.dps = 40
    d, delta, eps = ce["d"], ce["delta"], ce["eps"]
    x0 = mp.mpf(float(np.float32(1) + np.float32(delta)))
    s = x0 + (d - 1)
    D = (x0 - 1) ** 2 + mp.mpf(eps)
    exact = float(s ** 2 / D)
    assert abs(exact - ce["K_exact"]) / exact < 1e-10
    if run("yat.numerics.stability").parts["fp32_denominator_accurate"].verdict == V.REFUTED:
        assert abs(ce["K_fp32_expanded"] - exact) / exact > 1e-2


def test_bf16_rounding():
    # 1 + 2^-8 is exactly halfway between bf16 neighbours 1 and 1 + 2^-7: ties to even -> 1
    assert M._bf16(np.float32(1 + 2 ** -8)) == 1.0
    assert M._bf16(np.float32(1 + 3 * 2 ** -9)) == np.float32(1 + 2 ** -7)
    assert np.isinf(M._bf16(np.float32(3.4e38)))
