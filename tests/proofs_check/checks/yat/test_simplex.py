"""Ledger checks migrated from checks/yat_simplex.py and the public yatmath.yat.simplex helpers."""
import math
from fractions import Fraction

import numpy as np
import pytest
from tests.checkrun import run_quick

import yatmath.yat as yat
from proofs_check import verdicts as V

IDS = ["yat.simplex.min_similarity", "yat.simplex.self_similarity_eps", "yat.simplex.max_similarity_eps0",
       "yat.simplex.kl_identity", "yat.simplex.remarks", "yat.orthogonality_entropy"]




def _Y(p, q, eps):
    s = sum(a * b for a, b in zip(p, q))
    return s * s / (sum((a - b) ** 2 for a, b in zip(p, q)) + eps)


def test_public_simplex_helpers_against_plain_formulas():
    p, q = np.array([0.2, 0.5, 0.3]), np.array([0.4, 0.4, 0.2])
    kl = sum(a * math.log(a / b) for a, b in zip(p, q))
    assert yat.simplex.kl_divergence(p, q) == pytest.approx(kl, rel=1e-12)
    assert yat.simplex.cross_entropy(p, q) == pytest.approx(-sum(a * math.log(b) for a, b in zip(p, q)), rel=1e-12)
    assert yat.simplex.entropy(p) == pytest.approx(-sum(a * math.log(a) for a in p), rel=1e-12)
    assert yat.simplex.kl_divergence([0.5, 0.5], [1.0, 0.0]) == math.inf
    assert yat.simplex.kl_divergence([1.0, 0.0], [0.5, 0.5]) == pytest.approx(math.log(2))
    assert yat.simplex.simplex_product(p, p, 0.0) == math.inf
    assert yat.simplex.simplex_product(p, q, 0.0) == pytest.approx(_Y(p, q, 0.0), rel=1e-12)
    assert yat.simplex.simplex_product(p, q, 0.1) == pytest.approx(_Y(p, q, 0.1), rel=1e-12)
    with pytest.raises(ValueError):
        yat.simplex.simplex_product(p, q, -1.0)


def test_min_similarity_and_identities_confirmed():
    for cid in ("yat.simplex.min_similarity", "yat.simplex.max_similarity_eps0", "yat.simplex.kl_identity"):
        assert run_quick(cid).verdict == V.CONFIRMED
    ev = run_quick("yat.simplex.min_similarity")
    for part in ev.parts.values():
        t = part.numbers["contingency"]
        assert t["zero_and_overlap"] == 0 and t["positive_and_disjoint"] == 0


def test_self_similarity_other_reading_exact():
    ev = run_quick("yat.simplex.self_similarity_eps")
    assert ev.verdict == V.CONFIRMED
    r2 = ev.other_readings["R2_q=p_maximises"]
    c = r2.counterexample
    p, q, eps = [Fraction(v).limit_denominator(1000) for v in c["p"]], [Fraction(v) for v in c["q"]], Fraction(c["eps"])
    assert _Y(p, q, eps) > _Y(p, p, eps) and r2.verdict == V.REFUTED  # 25/138 > 361/2500


def test_max_similarity_other_reading_finite():
    ev = run_quick("yat.simplex.max_similarity_eps0")
    r2 = ev.other_readings["R2_network_eps_positive"]
    assert r2.verdict == V.REFUTED
    assert r2.repro.expected == pytest.approx(float(Fraction(1, 9) / Fraction(1, 10)))


def test_remarks_information_orthogonality_counterexample():
    ev = run_quick("yat.simplex.remarks")
    assert ev.verdict == V.REFUTED
    c = ev.parts["c_orthogonality_equivalence"].counterexample
    p, q = c["p"], c["q"]
    assert any(a > 0 and b == 0 for a, b in zip(p, q))  # KL(p||q) = inf
    assert sum(a * b for a, b in zip(p, q)) == 0.5       # but not orthogonal
    assert ev.parts["b_scale_invariance"].verdict == V.CONFIRMED
    assert ev.parts["d_remark_C18_A3"].verdict == V.NOT_CHECKABLE


def test_orthogonality_entropy_maximal_has_no_criterion():
    ev = run_quick("yat.orthogonality_entropy")
    p3 = ev.parts["3_maximal_separation"]
    # the two natural measures of "maximal" disagree, so (3) and the claim are not checkable
    assert p3.verdict == V.NOT_CHECKABLE and ev.verdict == V.NOT_CHECKABLE
    assert p3.other_readings["maximal_response_gap"].verdict == V.CONFIRMED
    assert p3.other_readings["core_not_on_boundary"].verdict == V.CONFIRMED
    r = p3.other_readings["maximal_boundary_distance"]
    assert r.verdict == V.REFUTED
    # (.5,.5) is equidistant from (1,0) and (0,1) with equal dot products: on the boundary
    assert _Y([1, 0], [0.5, 0.5], 0.1) == _Y([0, 1], [0.5, 0.5], 0.1)
    assert math.hypot(0.5, 0.5) < 1.0 <= r.numbers["boundary_distance_antipodal_w_j=-w_i"]
    # exact distance 1/sqrt 2: P = (x1 - x2) Q and Q = 0 lies in {x1 + x2 <= 0} (distance >= 1/sqrt 2 from (1,0));
    # checked on a polar grid around w_i: no boundary sign change within radius 0.70
    assert r.numbers["boundary_distance_orthogonal_exact"] == pytest.approx(1 / math.sqrt(2), rel=1e-15)
    assert r.numbers["boundary_distance_orthogonal_ray_scan_(coarse_upper_bound)"] >= 1 / math.sqrt(2) - 1e-12
    th = np.linspace(0, 2 * np.pi, 721)[:, None]
    rr = np.linspace(1e-3, 0.70, 300)[None, :]
    X1, X2 = 1 + rr * np.cos(th), rr * np.sin(th)
    P = X1 ** 2 * (X1 ** 2 + (X2 - 1) ** 2 + 0.1) - X2 ** 2 * ((X1 - 1) ** 2 + X2 ** 2 + 0.1)
    assert np.all(P > 0)
    # the angle scan's refined distances: exact sin(phi/2) at 30/60/90 deg, 1 at 180 deg, and never above the
    # coarse ray-scan values
    scan = p3.numbers["boundary_distance_from_w_i_by_angle_deg_(|w_i|=|w_j|=1)_(refined)"]
    coarse = p3.numbers["ray_scan_coarse_upper_bounds"]
    for k, row in scan.items():
        for deg in ("30", "60", "90"):
            assert row[deg] == pytest.approx(math.sin(math.radians(int(deg)) / 2), rel=1e-9)
        assert row["180"] == pytest.approx(1.0, rel=1e-12)
        assert all(row[a] <= coarse[k][a] + 1e-12 for a in row)


def test_orthogonality_entropy_real_vectors_not_checkable_with_substitutes():
    # KL/H of real vectors is undefined and no passage maps a prototype to a distribution: NOT_CHECKABLE; the four
    # maps are substitutes. w_i = (1,-1) ⊥ w_j = (1,1): softmax, |w|/||w||_1, w^2/||w||^2 and the normalised
    # positive part all give a finite KL(w_i || w_j) (two of them give 0: identical distributions)
    wi, wj = np.array([1.0, -1.0]), np.array([1.0, 1.0])
    maps = [lambda v: np.exp(v) / np.exp(v).sum(), lambda v: np.abs(v) / np.abs(v).sum(),
            lambda v: v ** 2 / (v ** 2).sum(), lambda v: np.maximum(v, 0) / np.maximum(v, 0).sum()]
    kl = []
    for f in maps:
        p, q = f(wi), f(wj)
        kl.append(sum(a * math.log(a / b) for a, b in zip(p, q) if a > 0))
    assert all(math.isfinite(k) for k in kl) and kl[1] == kl[2] == 0.0
    ev = run_quick("yat.orthogonality_entropy")
    r = ev.other_readings["2_real_vectors"]
    assert r.verdict == V.NOT_CHECKABLE and r.tried is not None and not r.tried.missing()
    assert r.counterexample is None and not r.thresholds and ev.problems() == []
    sub = r.numbers["substitutes_(not deciding)"]
    assert [row[0] for row in sub["[KL, H]_per_map"].values()] == pytest.approx(kl, rel=1e-12, abs=1e-15)
