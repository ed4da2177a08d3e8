"""Ledger checks of claims.md A3 (simplex, information theory): run at level quick, seed 0.

Each check runs once (module fixture); the tests assert the verdict is a valid one, that the
evidence holds what the catalogue's Record line asks for, and re-evaluate stored counterexamples
and maximisers independently with mpmath (50 digits) from the plain formulas.
"""
import math

import mpmath as mp
import numpy as np
import pytest

from proofs_check import verdicts as V
from proofs_check.registry import REGISTRY, Context
from proofs_check.checks import yat_simplex as S

IDS = ["yat.simplex.min_similarity", "yat.simplex.self_similarity_eps",
       "yat.simplex.max_similarity_eps0", "yat.simplex.kl_identity", "yat.simplex.remarks",
       "yat.orthogonality_entropy"]

mp.mp.dps = 50


def mp_yat(p, q, eps):
    """(p.q)^2 / (||p-q||^2 + eps) in 50-digit arithmetic (inf when the denominator is 0)."""
    p = [mp.mpf(float(v)) for v in p]
    q = [mp.mpf(float(v)) for v in q]
    s = mp.fsum(a * b for a, b in zip(p, q))
    D = mp.fsum((a - b) ** 2 for a, b in zip(p, q)) + mp.mpf(eps)
    return mp.inf if D == 0 else s ** 2 / D


@pytest.fixture(scope="module")
def results():
    return {cid: REGISTRY[cid].func(Context("quick", 0, cid)) for cid in IDS}


@pytest.mark.parametrize("cid", IDS)
def test_registered_and_valid_verdict(results, cid):
    assert REGISTRY[cid].func.__module__ == S.__name__
    ev = results[cid]
    assert ev.verdict in V.VERDICTS
    for part in ev.parts.values():
        assert part.verdict in V.VERDICTS
    d = ev.to_dict()  # JSON-ready
    import json
    json.dumps(d)
    if ev.verdict == V.REFUTED:
        assert ev.counterexample and ev.repro


def test_deterministic_given_seed():
    cid = "yat.simplex.remarks"
    a = REGISTRY[cid].func(Context("quick", 3, cid)).to_dict()
    b = REGISTRY[cid].func(Context("quick", 3, cid)).to_dict()
    assert a == b


# ---------------------------------------------------------------------------- helpers

def test_simplex_yat_eps0_convention_and_validation():
    p = np.array([0.5, 0.3, 0.2])
    assert math.isinf(float(S.simplex_yat(p, p, 0.0)))
    q = np.array([0.2, 0.3, 0.5])
    # plain formula in 50 digits; relative tolerance 1e-14 (a few ulp of float64)
    assert float(S.simplex_yat(p, q, 0.0)) == pytest.approx(float(mp_yat(p, q, 0)), rel=1e-14)
    assert float(S.simplex_yat(p, q, 0.1)) == pytest.approx(float(mp_yat(p, q, 0.1)), rel=1e-14)
    with pytest.raises(ValueError, match="eps"):
        S.simplex_yat(p, q, -1.0)
    with pytest.raises(TypeError, match="eps"):
        S.simplex_yat(p, q, "0")
    with pytest.raises(ValueError, match="tol"):
        S.simplex_yat(p, q, 0.0, tol=-1)
    # tolerance-based equality is recorded behaviour: near-equal pairs become inf only with tol
    assert np.isfinite(S.simplex_yat(p, p + np.array([1e-9, -1e-9, 0]), 0.0))
    assert np.isinf(S.simplex_yat(p, p + np.array([1e-9, -1e-9, 0]), 0.0, tol=1e-12))


def test_information_quantities_against_mpmath():
    p = np.array([0.6, 0.4, 0.0])
    q = np.array([0.3, 0.3, 0.4])
    kl_ref = sum(mp.mpf(a) * mp.log(mp.mpf(a) / mp.mpf(b)) for a, b in zip(p, q) if a > 0)
    h_ref = -sum(mp.mpf(a) * mp.log(mp.mpf(b)) for a, b in zip(p, q) if a > 0)
    e_ref = -sum(mp.mpf(a) * mp.log(mp.mpf(a)) for a in p if a > 0)
    assert S.kl(p, q) == pytest.approx(float(kl_ref), rel=1e-14)
    assert S.cross_entropy(p, q) == pytest.approx(float(h_ref), rel=1e-14)
    assert S.entropy(p) == pytest.approx(float(e_ref), rel=1e-14)
    assert math.isinf(S.kl(q, p)) and math.isinf(S.cross_entropy(q, p))


def test_support_patterns_exhaustive():
    m = S.support_patterns(4)
    assert m.shape == (15, 4) and m.any(1).all()
    assert len({tuple(r) for r in m}) == 15


# ---------------------------------------------------------------------------- claims

def test_min_similarity_contingency(results):
    ev = results["yat.simplex.min_similarity"]
    tables = ev.numbers["contingency_by_eps"]
    assert set(tables) == {"eps=0", "eps=0.001", "eps=1"}
    for t in tables.values():
        assert sum(t.values()) == ev.numbers["pairs"]
        off_diag = t["zero_and_overlap"] + t["positive_and_disjoint"]
        assert (ev.verdict == V.CONFIRMED) == (off_diag == 0 and ev.numbers["disjoint_pairs"]
                                               == ev.numbers["disjoint_pairs_with_H_inf"])
    # the disjoint cell is populated, so the 'iff' was really exercised in both directions
    assert tables["eps=0"]["zero_and_disjoint"] > 1000 and tables["eps=0"]["positive_and_overlap"] > 1000


def test_self_similarity_R2_counterexample_recomputed(results):
    ev = results["yat.simplex.self_similarity_eps"]
    assert ev.parts["R1_values"].verdict == V.CONFIRMED
    assert ev.parts["R2_maximal"].verdict == V.REFUTED
    assert ev.verdict == V.AMBIGUOUS
    c = ev.counterexample
    p, q, eps = np.array(c["p"]), np.array(c["q"]), c["eps"]
    assert abs(q.sum() - 1) < 1e-9 and q.min() >= -1e-12  # on the simplex
    assert mp_yat(p, q, eps) > mp_yat(p, p, eps) * (1 + 1e-6)
    assert float(mp_yat(p, q, eps) / mp_yat(p, p, eps)) == pytest.approx(c["ratio"], rel=1e-9)
    # the simple case quoted in the evidence: p = (.5,.3,.2), q = e1, eps = 1
    assert mp_yat([.5, .3, .2], [1, 0, 0], 1) > mp_yat([.5, .3, .2], [.5, .3, .2], 1)
    # uniform p is not a counterexample: its rows have ratio <= 1
    rows = [r for r in ev.parts["R2_maximal"].numbers["table"] if r["p"] == "uniform_n3"]
    assert rows and all(r["ratio"] <= 1 + 1e-9 for r in rows)


def test_max_similarity_eps0_readings(results):
    ev = results["yat.simplex.max_similarity_eps0"]
    r1 = ev.parts["R1_eps0_convention"]
    assert r1.verdict == V.CONFIRMED
    assert r1.numbers["sympy_limit_q_to_p"] == "oo"
    assert r1.numbers["min_n_norm2_optimised_n6"] == pytest.approx(1.0, abs=1e-8)
    r2 = ev.parts["R2_network_eps_positive"]
    assert r2.verdict == V.REFUTED and ev.verdict == V.AMBIGUOUS
    c = r2.counterexample
    val = mp_yat(c["p"], c["q"], c["eps"])
    assert mp.isfinite(val) and float(val) == pytest.approx(c["yat"], rel=1e-14)
    # the sup over the simplex pair is 1/eps (p = q = vertex), independently: (p.q)^2 <= 1, D >= eps
    for row in r2.numbers["sup_table"]:
        assert row["sup_times_eps"] == pytest.approx(1.0, abs=1e-6)


def test_kl_identity_numbers(results):
    ev = results["yat.simplex.kl_identity"]
    n = ev.numbers
    assert ev.verdict == V.CONFIRMED
    assert n["min_KL_over_distinct_pairs"] > 0
    assert n["min_KL_over_half_l1_squared_(Pinsker>=1)"] >= 1 - 1e-6
    assert n["identity_residual_max_|H(p,p)-H(p)|"] < 1e-12


def test_remarks_counterexamples_recomputed(results):
    ev = results["yat.simplex.remarks"]
    assert ev.parts["a_symmetry"].verdict == V.CONFIRMED
    assert ev.parts["b_scale_invariance"].verdict == V.AMBIGUOUS
    assert ev.parts["d_remark_C18_A3"].verdict == V.NOT_CHECKABLE
    viol = ev.parts["c_orthogonality_equivalence"].numbers["violations_per_direction"]
    # Euclidean <=> combinatorial, and both => information: no violation; information => others: some
    for k in ("euclidean=>combinatorial", "combinatorial=>euclidean", "euclidean=>information",
              "combinatorial=>information"):
        assert viol[k] == 0
    cex = ev.counterexample["c"]["information=>euclidean"]
    p, q = cex["p"], cex["q"]
    assert any(a > 0 and b == 0 for a, b in zip(p, q))  # KL(p||q) = inf by definition
    assert mp.fsum(mp.mpf(a) * mp.mpf(b) for a, b in zip(p, q)) > 0  # yet not orthogonal
    b2 = ev.counterexample["b_R2"]
    c = b2["c"]
    ratio = mp_yat([c * t for t in b2["p"]], [c * t for t in b2["q"]], 0) / mp_yat(b2["p"], b2["q"], 0)
    assert float(ratio) == pytest.approx(c ** 2, rel=1e-12)
    assert ev.verdict == V.REFUTED


def test_orthogonality_entropy_separation_recomputed(results):
    ev = results["yat.orthogonality_entropy"]
    assert ev.parts["R1_real_vectors"].verdict == V.REFUTED
    assert ev.parts["R2_distributions"].verdict == V.CONFIRMED
    assert ev.verdict == V.AMBIGUOUS
    sep = ev.counterexample["R1_separation"]
    wi, wj, eps = sep["w_i"], sep["w_j_better"], sep["eps"]
    xb = sep["nearest_boundary_point_better"]
    # the stored point is on the boundary K(w_i,x) = K(w_j,x), at the stored distance
    diff = mp_yat(wi, xb, eps) - mp_yat(wj, xb, eps)
    assert abs(diff) < 1e-9
    assert math.dist(wi, xb) == pytest.approx(sep["d_better"], rel=1e-9)
    # orthogonal w_j = e2: the point (1/2, 1/2) is on its boundary (symmetry), so
    # d_orth <= 1/sqrt(2) < d_better
    assert mp_yat(wi, [0.5, 0.5], eps) == mp_yat([0.0, 1.0], [0.5, 0.5], eps)
    assert sep["d_orthogonal"] <= math.sqrt(0.5) + 1e-12 < sep["d_better"]
    # independent grid: K(w_i,.) - K(w_j,.) keeps its sign on the disc of radius 0.99 around w_i
    r = np.linspace(0, 0.99, 100)
    t = np.linspace(0, 2 * np.pi, 361)
    X = np.array(wi) + r[:, None, None] * np.stack([np.cos(t), np.sin(t)], -1)[None]
    s = X @ np.array(wi)
    f = s ** 2 / (((X - wi) ** 2).sum(-1) + eps) - (X @ np.array(wj)) ** 2 / (((X - wj) ** 2).sum(-1) + eps)
    assert np.all(f[np.abs(X[..., 0]) > 1e-12] > 0)
    info = ev.counterexample["R1_info"]
    assert info["w_i"][0] * info["w_j"][0] + info["w_i"][1] * info["w_j"][1] == 0
    assert all(math.isfinite(v["H"]) for v in info["per_map"].values())
