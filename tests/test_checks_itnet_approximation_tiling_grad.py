"""Tests of proofs_check/checks/itnet_approximation_tiling_grad.py (B5-B7) and of the literal Alg 1 /
Alg 2 and IO-model modules it uses.

Each check runs at level quick, seed 0; its verdict must be valid and its evidence must hold the
numbers its catalogue Record line asks for.  Stored counterexamples are re-evaluated independently
(plain arithmetic or central differences through ``yatmath.itnet.apply``), never by comparison with
numbers copied from the implementation.
"""
import math

import numpy as np
import pytest
from scipy.linalg import expm

import yatmath.itnet as I
from proofs_check import verdicts as V
from proofs_check.checks import itnet_approximation_tiling_grad as M
from proofs_check.registry import Context
from yatmath.itnet import iomodel
from yatmath.itnet.literal import alg1_literal, alg2_literal
from checkrun import run_quick as run

FUNCS = {"itnet.cor_strict_expressiveness": M.check_cor_strict, "itnet.uat": M.check_uat,
         "itnet.uat_lemmas": M.check_uat_lemmas, "itnet.prop9_rate": M.check_prop9,
         "itnet.thm5_kernel_recovery": M.check_thm5, "itnet.tiling.alg1_correctness": M.check_alg1,
         "itnet.tiling.io_prop10": M.check_io_prop10, "itnet.tiling.memory": M.check_tiling_memory,
         "itnet.grad.kernel_outputs": M.check_grad_kernel_outputs, "itnet.grad.inputs": M.check_grad_inputs,
         "itnet.grad.alg2_tiled_backward": M.check_alg2, "itnet.grad.params": M.check_grad_params,
         "itnet.grad.special_cases": M.check_grad_special, "itnet.grad.cost": M.check_grad_cost}
RECORD = {"itnet.cor_strict_expressiveness": ["D_attention", "svf_equivariance_error"],
          "itnet.uat": ["R1_sup_error_lower_bound", "R2_sup_error_vs_width"],
          "itnet.uat_lemmas": ["lemma6_max", "lemma5_lower_bound"],
          "itnet.prop9_rate": ["midpoint_exponents", "mc_exponent"],
          "itnet.thm5_kernel_recovery": ["init", "full_rank_final", "band_limited_final"],
          "itnet.tiling.alg1_correctness": ["max_rel_error_literal", "min_query_coverage"],
          "itnet.tiling.io_prop10": ["reads_exponent_Bk", "per_pair_macs_ITNetB"],
          "itnet.tiling.memory": ["KiB_64", "kernel_tile_bytes"],
          "itnet.grad.kernel_outputs": ["rel_error_K"], "itnet.grad.inputs": ["content_dependent"],
          "itnet.grad.alg2_tiled_backward": ["cases"], "itnet.grad.params": ["forward_exact_prime_exact"],
          "itnet.grad.special_cases": ["conv", "s4"], "itnet.grad.cost": ["counted_ratio", "timed_ratio_cpu"]}


@pytest.mark.parametrize("cid", list(FUNCS))
def test_check_runs_and_records(cid):
    ev = run(cid)
    assert ev.verdict in V.VERDICTS
    for key in RECORD[cid]:
        assert key in ev.numbers, (cid, key)
    if ev.verdict == V.REFUTED:
        assert ev.counterexample and ev.repro
    ev.to_dict()                                   # JSON-ready


def test_deterministic():
    a = M.check_io_prop10(Context("quick", 0, "itnet.tiling.io_prop10")).numbers
    b = M.check_io_prop10(Context("quick", 0, "itnet.tiling.io_prop10")).numbers
    assert a == b


def test_alg1_counterexample_coverage_is_arithmetic():
    cex = run("itnet.tiling.alg1_correctness").counterexample
    n, bq = cex["n"], cex["bq"]
    assert cex["query_coverage"] == pytest.approx((n // bq) * bq / n)
    assert cex["query_coverage"] < 1


def test_alg1_literal_and_ragged_vs_dense():
    rng = np.random.default_rng(1)
    net = I.random_kernel_mlp(2, 1, width=6, L=2, rng=rng)
    W = rng.normal(size=(2, 2))
    n = 37
    X, U = rng.uniform(0, 1, (n, 1)), rng.normal(size=(n, 2))
    om = rng.uniform(0.5, 1.5, n) / n
    ref = I.apply(I.ITNetOperator(net, W), U, I.Measure(X, om))
    rag = alg1_literal(net, W, X, U, om, 8, 5, ragged=True)[0]
    # fp64: only the summation order differs (n = 37 terms): 1e-12 relative is ~100x the rounding
    assert np.abs(rag - ref).max() <= 1e-12 * np.abs(ref).max()
    lit, cov, kc = alg1_literal(net, W, X, U, om, 8, 5)
    assert cov.sum() == 32 and not cov[32:].any() and np.all(lit[32:] == 0)
    assert (kc > 0).sum() == 35


def test_alg2_counterexample_against_finite_differences():
    cex = run("itnet.grad.alg2_tiled_backward").counterexample
    X, U, om, G, W = (np.array(cex[k]) for k in ("X", "U", "omega", "G", "W"))
    # rebuild the same content-independent network from the check's seed
    rng = Context("quick", 0, "itnet.grad.alg2_tiled_backward").rng("content_independent")
    net, X2, U2, *_ = M._setup(rng, n=8, d=2, groups=M.POS_GROUPS)
    assert np.array_equal(X, X2) and np.array_equal(U, U2)
    op, meas = I.ITNetOperator(net, W), I.Measure(X, om)
    h = 1e-6
    fd = np.zeros_like(U)
    for idx in np.ndindex(*U.shape):
        e = np.zeros_like(U)
        e[idx] = h
        fd[idx] = (np.sum(G * I.apply(op, U + e, meas)) - np.sum(G * I.apply(op, U - e, meas))) / (2 * h)
    lit = np.array(cex["dU_alg2"])
    assert np.linalg.norm(lit - fd) > 0.1 * np.linalg.norm(fd)
    ref = I.grad(op, U, meas, G)["U"]
    assert np.linalg.norm(ref - fd) < 1e-6 * np.linalg.norm(fd)   # FD error ~1e-10 relative


def test_alg2_theta_and_W_match_reference_when_loops_cover():
    rng = np.random.default_rng(3)
    net = I.random_kernel_mlp(2, 1, width=6, L=2, rng=rng)
    n = 8
    X, U, G = rng.uniform(0, 1, (n, 1)), rng.normal(size=(n, 2)), rng.normal(size=(n, 2))
    W = rng.normal(size=(2, 2))
    om = np.full(n, 1.0 / n)
    lit = alg2_literal(net, W, X, U, om, G, 4, 2)
    ref = I.grad(I.ITNetOperator(net, W), U, I.Measure(X, om), G)
    for k in ("W1", "b1", "W2", "b2"):
        np.testing.assert_allclose(lit["theta"][k], ref["heads"][0][k], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(lit["W"], G.T @ U, rtol=1e-14)


def test_grad_inputs_counterexample_fd():
    cex = run("itnet.grad.inputs").counterexample
    fd = np.array(cex["fd_total"])
    eq204 = np.array(cex["eq204"])
    assert np.linalg.norm(eq204 - fd) / np.linalg.norm(fd) > 1e-3


def test_uat_product_mixed_difference_by_hand():
    cex = run("itnet.uat").counterexample
    a, a2, b, b2 = (np.array(cex[k]) for k in ("a", "a2", "b", "b2"))
    D = a * b - a2 * b - a * b2 + a2 * b2
    assert np.allclose(D, cex["D"]) and np.abs(D).max() / 4 == 1.0


def test_step3_entrywise_counterexample():
    cex = run("itnet.uat_lemmas").counterexample
    assert cex["target"].startswith("F(u)")
    d = 4
    dK = np.zeros((d, d))
    dK[0] = 1 / math.sqrt(d)
    assert np.linalg.norm(dK, 2) == pytest.approx(1.0)
    assert np.abs(dK @ np.ones(d)).max() == pytest.approx(math.sqrt(d))


def test_thm5_band_limited_null_space_part_is_non_circulant():
    ev = run("itnet.thm5_kernel_recovery")
    spec = np.array(ev.parts["R3_perp_to_zero"].counterexample["spectrum"])
    n = spec.size
    assert (spec == 0).sum() > 0
    F = np.fft.fft(np.eye(n)) / math.sqrt(n)
    null = F[:, spec == 0]
    Pn = np.real(null @ null.conj().T)                       # projector on the null space of Sigma
    K0 = np.random.default_rng(0).normal(size=(n, n))
    part = K0 @ Pn                                           # untouched by gradient descent
    circ = M._circ_proj(part)
    assert np.linalg.norm(part - circ) > 0.1 * np.linalg.norm(part)


def test_io_reads_closed_form():
    for bq in (16, 64, 100):
        for bk in (16, 128):
            r = iomodel.alg1_reads(1000, 32, 2, bq, bk)
            assert r["reads"] == 1000 * 34 + math.ceil(1000 / bq) * 1000 * 35
    assert run("itnet.tiling.io_prop10").verdict == V.REFUTED


def test_memory_tile_bytes():
    assert 64 * 64 * 64 * 64 * 2 == iomodel.kernel_tile_bytes(64, 64, 64, 2) > 228 * 1024
    assert (64 + 64) * 768 * 2 / 1024 == 192


def test_params_gelu_prime_and_counts():
    assert run("itnet.grad.params").parts["eq234_symbolic"].verdict == V.CONFIRMED
    assert iomodel.backward_macs_recompute(10, 64, 128, 64)["ratio"] == pytest.approx(3.0, abs=0.05)


def test_eq253_non_commuting_by_hand():
    A = np.array([[-1.0, 3.0], [0.0, -0.5]])
    X = np.array([[0.0, 0.0], [1.0, 0.0]])                   # direction of perturbation
    Y = np.array([[1.0, 2.0], [0.5, -1.0]])
    tau, h = 0.7, 1e-6
    f = lambda B: np.sum(Y * expm(B * tau))                  # noqa: E731
    fd = (f(A + h * X) - f(A - h * X)) / (2 * h)
    printed = np.sum((tau * expm(A.T * tau) @ Y) * X)        # <tau e^{A^T tau} Y, X>
    assert abs(fd - printed) > 1e-2
    assert run("itnet.grad.special_cases").parts["I10_S4_eq253"].verdict == V.REFUTED


def test_literal_validation():
    net = I.random_kernel_mlp(2, 1, width=4, L=2, rng=0)
    with pytest.raises(ValueError, match="bq"):
        alg1_literal(net, np.eye(2), np.zeros((3, 1)), np.zeros((3, 2)), np.ones(3), 0, 1)
    with pytest.raises(ValueError, match="write"):
        alg2_literal(net, np.eye(2), np.zeros((3, 1)), np.zeros((3, 2)), np.ones(3), np.zeros((3, 2)), 1, 1,
                     write="x")
    with pytest.raises(TypeError, match="net"):
        alg1_literal("x", np.eye(2), np.zeros((3, 1)), np.zeros((3, 2)), np.ones(3), 1, 1)
    with pytest.raises(ValueError, match="n"):
        iomodel.alg1_reads(0, 1, 1, 1, 1)
