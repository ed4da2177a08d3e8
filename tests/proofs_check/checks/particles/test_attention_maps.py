"""particles.attention.linearized and particles.maps.*: independent re-derivations."""
import math

import numpy as np
import pytest

import proofs_check.checks.particles.attention as ATT
import proofs_check.checks.particles.maps as MAPS
from tests.checkrun import assert_valid_evidence, run_quick
from proofs_check import verdicts as V
from proofs_check.repro import run_repro

MODS = {"particles.attention.linearized": ATT, "particles.maps.favor": MAPS,
        "particles.maps.positive_family": MAPS}


@pytest.mark.parametrize("cid", sorted(MODS))
def test_valid(cid):
    ev = run_quick(cid)
    assert_valid_evidence(cid, ev, MODS[cid])
    assert ev.problems() == []
    stack = [ev.to_dict()]
    while stack:
        node = stack.pop()
        if node.get("repro"):
            assert run_repro(node["repro"])[1]
        stack += list(node["parts"].values()) + list(node["other_readings"].values())


def test_linear_attention_cost_grows_like_n():
    # direct loop count of multiply-adds for l = N = d_v = n
    def count(l, N, dv):
        G = l * N * dv; z = l * N; num = l * N * dv; den = l * N; div = l * dv
        return 2 * (G + num) + z + 2 * den + div
    r = [count(n, n, n) / (2 * n * n) for n in (64, 128, 256)]
    assert r[1] / r[0] == pytest.approx(2, rel=0.05) and r[2] / r[1] == pytest.approx(2, rel=0.05)
    ev = run_quick("particles.attention.linearized")
    assert ev.verdict == V.REFUTED and ev.parts["softmax_nw_feature_form_masks"].verdict == V.CONFIRMED
    assert ev.parts["cost_O(lN+Ndv)"].counterexample["count_over_lN_plus_Ndv"] > 100


def test_favor_limit_and_mc():
    ev = run_quick("particles.maps.favor")
    assert ev.verdict == V.CONFIRMED
    r2 = ev.other_readings["R2_eq3.1_kernel"]
    q, k = np.array(r2.counterexample["q"]), np.array(r2.counterexample["k"])
    assert r2.verdict == V.REFUTED and abs(math.exp(q @ k) - math.exp(q @ k / 4)) > 1e-3
    assert ev.numbers["mc_mean"] == pytest.approx(math.exp(q @ k), rel=0.05)


def test_porf_rank_bound():
    O = np.random.default_rng(1).normal(size=(64, 256))
    assert np.linalg.matrix_rank(O.T @ O) <= 64
    assert np.linalg.norm(O.T @ O / 64 - np.eye(256), 2) >= 1 - 1e-9
    ev = run_quick("particles.maps.positive_family")
    assert ev.parts["porf_OtO_approx_I"].verdict == V.REFUTED and ev.verdict == V.REFUTED
    assert ev.parts["positive_psd_well_posed"].verdict == V.CONFIRMED
    assert ev.parts["sums_sqrt_M"].verdict == V.CONFIRMED
