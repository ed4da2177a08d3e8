"""Ledger checks of claims.md C5 (004 linearised attention, FAVOR, positive maps), quick, seed 0.

Counterexamples are re-evaluated with plain numpy formulas, independently of the library.
"""

import numpy as np
import pytest
from checkrun import assert_valid_evidence

from proofs_check import verdicts as V
from proofs_check.registry import REGISTRY, Context
from proofs_check.checks import particles_attention_maps as C

IDS = ["particles.attention.linearized", "particles.maps.favor", "particles.maps.positive_family"]


@pytest.fixture(scope="module")
def results():
    return {cid: REGISTRY[cid].func(Context("quick", 0, cid)) for cid in IDS}


@pytest.mark.parametrize("cid", IDS)
def test_valid_verdict_and_json(results, cid):
    assert_valid_evidence(cid, results[cid], C)


def test_attention_cost_counterexample(results):
    ev = results["particles.attention.linearized"]
    assert ev.parts["equality_with_quadratic_form"].verdict == V.CONFIRMED
    ce = ev.parts["cost_per_head"].counterexample
    if ce is not None:
        l, N, dv = ce["l"], ce["N"], ce["d_v"]
        # lower bound: l outputs of dimension d_v, each a length-N inner product
        assert ce["counted_flops"] >= l * N * dv
        assert ce["l*N + N*d_v"] == l * N + N * dv
        assert ce["counted_flops"] / ce["l*N + N*d_v"] > 100


def test_plain_linear_attention_equals_quadratic_form():
    r = np.random.default_rng(0)
    Pq, Pk, Vv = r.random((9, 5)), r.random((9, 5)), r.standard_normal((9, 3))
    G, z = Pk.T @ Vv, Pk.sum(0)
    np.testing.assert_allclose((Pq @ G) / (Pq @ z)[:, None], C.nw_quadratic(Pq, Pk, Vv),
                               rtol=1e-13)


def test_favor_reading_R2_counterexample(results):
    ev = results["particles.maps.favor"]
    r2 = ev.parts["R2_exp_qk_over_sqrt_d"]
    if r2.verdict == V.REFUTED:
        ce = r2.counterexample
        q, k = np.array(ce["q"]), np.array(ce["k"])
        # the exact mean of the estimator: E exp(w.(q+k) - |q|^2/2 - |k|^2/2) = exp(q.k)
        r = np.random.default_rng(1)
        W = r.standard_normal((200000, q.size))
        mc = np.exp(W @ (q + k) - q @ q / 2 - k @ k / 2)
        assert mc.mean() == pytest.approx(np.exp(q @ k), abs=5 * mc.std() / np.sqrt(len(mc)))
        assert abs(np.exp(q @ k) - ce["exp_qk_over_sqrt_d"]) > 5 * mc.std() / np.sqrt(len(mc))
    rows = ev.parts["R1_exp_qk"].numbers["rows"]
    assert all("rel_sd" in r and "rel_sd_pred" in r for r in rows)


def test_porf_counterexample(results):
    ev = results["particles.maps.positive_family"]
    ce = ev.parts["porf_orthogonality"].counterexample
    assert ce is not None and ce["rank_Omega^T_Omega"] <= ce["d_k"] < ce["M"]
    # rank <= d_k < M forces an eigenvalue 0, hence ||Omega^T Omega - I||_2 >= 1
    assert ce["norm_OtO_minus_I"] >= 1.0
    # independent construction: unit-norm orthogonal blocks, plain numpy QR
    r = np.random.default_rng(2)
    Om = np.concatenate([np.linalg.qr(r.standard_normal((64, 64)))[0] for _ in range(4)], axis=1)
    assert np.linalg.matrix_rank(Om.T @ Om) == 64
    np.testing.assert_allclose(Om @ Om.T, 4 * np.eye(64), atol=1e-12)
    per = ev.parts["positivity_psd_sums"].numbers
    for kind, row in per.items():
        assert row["min_phi"] >= 0 and row["psd"]
