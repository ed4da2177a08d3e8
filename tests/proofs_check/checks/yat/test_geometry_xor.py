"""Ledger checks of yat.topology.*, yat.decision.*, yat.xor.*, yat.superposition, yat.grad.no_dead_zone:
records valid, verdicts following from their numbers, key numbers re-derived independently."""
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp
from tests.checkrun import run_quick

import proofs_check.checks.yat.decision  # noqa: F401  (registers the checks)
import proofs_check.checks.yat.grad.no_dead_zone  # noqa: F401
import proofs_check.checks.yat.superposition  # noqa: F401
import proofs_check.checks.yat.topology  # noqa: F401
import proofs_check.checks.yat.xor  # noqa: F401
from proofs_check import verdicts as V

IDS = {"yat.topology.thm14": "topology", "yat.topology.no_collapse": "topology",
       "yat.decision.quartic_boundary": "decision", "yat.decision.localized_regions": "decision",
       "yat.xor.not_linearly_separable": "xor", "yat.xor.single_unit": "xor",
       "yat.xor.orthogonality_mechanism": "xor", "yat.xor.loss_landscape": "xor",
       "yat.superposition": "superposition", "yat.grad.no_dead_zone": "grad.no_dead_zone"}


def K(w, x, eps):
    w, x = np.asarray(w, float), np.asarray(x, float)
    return float(w @ x) ** 2 / (float((w - x) @ (w - x)) + eps)


def test_thm14_tanh_threshold_and_derivative_bound():
    # operative reading of (2): the proof's sigma bound carried to tanh by tanh(z) = 2 sigma(2z) - 1, i.e.
    # |tanh z1 - tanh z2| <= 4 e^{-2 min}|z1 - z2|; tight constants/rates recomputed in mpmath
    ev = run_quick("yat.topology.thm14")
    assert ev.verdict == V.CONFIRMED and ev.problems() == []
    p2 = ev.parts["(2)_sigmoid_tanh"]
    decay = p2.parts["decay_inequality"]
    assert decay.verdict == V.CONFIRMED and "2 sigma(2z) - 1" in decay.reading.passage
    tight = sorted((b.claimed, b.tight) for b in decay.bounds)
    assert tight == [(1.0, 1.0), (1.0, 1.0), (2.0, 2.0), (4.0, 4.0)]
    zz = mpmath.mpf(40)
    assert abs(mpmath.sech(zz) ** 2 * mpmath.e ** (2 * zz) - 4) < mpmath.mpf(10) ** -12
    assert abs(mpmath.e ** -zz / (1 + mpmath.e ** -zz) ** 2 * mpmath.e ** zz - 1) < mpmath.mpf(10) ** -12
    # the substituted bound on a few pairs in mpmath (identity: tanh = 2 sigma(2z) - 1)
    mpmath.mp.dps = 40
    for z1, z2 in ((0.0, 0.5), (1.0, 1.001), (5.0, 9.0), (20.0, 20.5), (-3.0, 2.0)):
        a, b = mpmath.mpf(z1), mpmath.mpf(z2)
        sig = lambda t: 1 / (1 + mpmath.e ** -t)  # noqa: E731
        assert abs(mpmath.tanh(a) - (2 * sig(2 * a) - 1)) < mpmath.mpf(10) ** -35
        assert abs(mpmath.tanh(b) - mpmath.tanh(a)) <= 4 * mpmath.e ** (-2 * min(a, b)) * abs(b - a)
        assert abs(sig(b) - sig(a)) <= mpmath.e ** (-min(a, b)) * abs(b - a)
    mpmath.mp.dps = 15
    assert max(decay.numbers["grid_max_ratio_to_the_bound"].values()) < 1.0
    # the former reading (e^{-min} for tanh) fails just below ln u*, u^3-3u^2-u-1 = 0, and is loose (rate 1 < 2)
    u = max(r.real for r in np.roots([1, -3, -1, -1]) if abs(r.imag) < 1e-12)
    same = decay.other_readings["tanh_same_e^-min_bound"]
    assert same.verdict == V.CONFIRMED_LOOSE
    assert ev.numbers["tanh_threshold"] == pytest.approx(math.log(u), rel=1e-10)
    assert same.numbers["tanh_exact_threshold_z0"] == pytest.approx(math.log(u), rel=1e-10)
    z = mpmath.log(4)
    assert 4 * mpmath.e ** (-2 * z) <= mpmath.e ** (-z) + mpmath.mpf(10) ** -30
    z0 = math.log(u) - 0.05
    assert 1 / math.cosh(z0) ** 2 > math.exp(-z0)
    # saturation: same side -> 0 (operative), opposite sides stay apart (literal reading refuted)
    sat = p2.parts["saturation_to_0"]
    assert sat.verdict == V.CONFIRMED and "large positive or large negative" in sat.reading.passage
    lit = sat.other_readings["literal_any_signs"]
    assert lit.verdict == V.REFUTED
    M = lit.counterexample["z1"]
    assert lit.counterexample["z2"] == -M
    assert abs(1 / (1 + math.exp(-M)) - 1 / (1 + math.exp(M))) == pytest.approx(math.tanh(M / 2), rel=1e-15)
    assert lit.repro.expected == pytest.approx([math.tanh(M / 2), 2 * math.tanh(M)], rel=1e-15)
    assert 1 / (1 + math.exp(M)) < 1e-15 and 1 - math.tanh(M) < 1e-15       # same side: within 1e-15


def test_no_collapse_other_reading_collision_is_real():
    ev = run_quick("yat.topology.no_collapse")
    assert ev.verdict == V.CONFIRMED and ev.reading is not None
    ce = ev.other_readings["R2_injective"].counterexample
    W = np.array(ce["W"])
    x1, x2 = np.array(ce["x1"]), np.array(ce["x2"])
    assert np.linalg.norm(x1 - x2) > 1e-3
    diff = max(abs(K(w, x1, ce["eps"]) - K(w, x2, ce["eps"])) for w in W)
    assert diff < 1e-9
    assert ev.other_readings["R2_injective"].verdict == V.REFUTED


def test_quartic_boundary_node_at_origin():
    ev = run_quick("yat.decision.quartic_boundary")
    assert ev.verdict == V.REFUTED and ev.parts["smooth"].verdict == V.REFUTED
    x, y = sp.symbols("x y")
    P = x ** 2 * (x ** 2 + (y - 1) ** 2 + 1) - y ** 2 * ((x - 1) ** 2 + y ** 2 + 1)
    assert P.subs({x: 0, y: 0}) == 0
    assert [sp.diff(P, v).subs({x: 0, y: 0}) for v in (x, y)] == [0, 0]
    eig = sorted(sp.hessian(P, (x, y)).subs({x: 0, y: 0}).eigenvals())
    assert eig[0] < 0 < eig[-1]
    assert sorted(ev.parts["smooth"].numbers["hessian_eigs_at_0"]) == pytest.approx([float(e) for e in eig])
    assert sp.Poly(sp.expand(P), x, y).total_degree() == 4


def test_localized_regions_far_field_limit():
    ev = run_quick("yat.decision.localized_regions")
    assert ev.verdict == V.REFUTED
    ce = ev.parts["territories"].counterexample
    W, u = np.array(ce["W"]), np.array(ce["u"])
    limit_owner = int(np.argmax((W @ u) ** 2))
    assert ce["argmax_per_radius"][-1] == limit_owner
    w = np.array([1.0, 0.5])
    assert K(w, 1e6 * w / np.linalg.norm(w), 1.0) == pytest.approx(w @ w, rel=1e-5)
    conf = ev.parts["bounded_confidence"]
    assert conf.verdict == V.CONFIRMED and conf.numbers["sup_measured"] <= conf.numbers["bound"] < 1


def test_xor_exact_values_with_fractions():
    eps = Fraction(7, 10)
    pts = [(0, 0), (0, 1), (1, 0), (1, 1)]

    def Kf(w, x):
        s = sum(Fraction(a) * b for a, b in zip(w, x))
        return s * s / (sum((Fraction(a) - b) ** 2 for a, b in zip(w, x)) + eps)
    assert [Kf((1, -1), p) for p in pts] == [0, 1 / (5 + eps), 1 / (1 + eps), 0]
    for a in (Fraction(1, 3), Fraction(-5, 2)):
        v = [Kf((a, -a), p) for p in pts]
        assert v[0] == v[3] == 0 and v[1] > 0 and v[2] > 0
    ev = run_quick("yat.xor.single_unit")
    assert ev.verdict == V.CONFIRMED
    other = ev.parts["002_opposite_signs"].other_readings["all_w1w2<0"]
    ce = other.counterexample
    assert ce["w"][0] * ce["w"][1] < 0
    k = [K(ce["w"], p, ce["eps"]) for p in pts]
    assert min(k[1], k[2]) - max(k[0], k[3]) <= 0      # no threshold separates
    assert other.verdict == V.REFUTED


def test_xor_linear_separability_and_orthogonality():
    lam = np.ones(4)
    ys = np.array([-1, 1, 1, -1.0])
    A = np.array([[0, 0, 1], [0, 1, 1], [1, 0, 1], [1, 1, 1.0]])
    assert np.all((lam * ys) @ A == 0)
    assert run_quick("yat.xor.not_linearly_separable").verdict == V.CONFIRMED
    ev = run_quick("yat.xor.orthogonality_mechanism")
    assert ev.numbers["dots"] == [0, -1, 1, 0] and ev.verdict == V.CONFIRMED


def test_loss_landscape_not_checkable_and_dot_minimiser():
    ev = run_quick("yat.xor.loss_landscape")
    assert ev.verdict == V.NOT_CHECKABLE and "loss" in ev.notes
    # normal equations of the bias-free MSE dot neuron: [[2,1],[1,2]] w = [1,1] -> w = (1/3, 1/3)
    assert ev.numbers["dot_MSE_minimiser_no_bias"] == pytest.approx([1 / 3, 1 / 3])
    for r in ("R1", "R2", "R3"):
        assert ev.numbers["substitutes"][r]["yat_grad_w_at_w=0"] == [0.0, 0.0]


def test_loss_landscape_yat_spurious_minimum_is_independent_strict_minimum():
    ev = run_quick("yat.xor.loss_landscape")
    assert ev.verdict == V.NOT_CHECKABLE
    o = ev.other_readings["yat_no_spurious_minima_R1"]
    assert o.verdict == V.REFUTED
    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    y = np.array([0.0, 1.0, 1.0, 0.0])

    def sse(w):   # the reviewer's sum of squares (4 x the check's mean), plain formula
        return sum((K(np.asarray(w), x, 1.0) - t) ** 2 for x, t in zip(X, y))
    w = np.array(o.counterexample["w"])
    assert w == pytest.approx([-1.16, -1.16], abs=0.01)
    assert sse(w) == pytest.approx(1.577, abs=2e-3)
    assert sse(w) == pytest.approx(4 * o.counterexample["loss"], rel=1e-9)
    h = 1e-4
    E = np.eye(2) * h
    g = [(sse(w + e) - sse(w - e)) / (2 * h) for e in E]
    assert max(map(abs, g)) < 1e-6
    H = np.array([[(sse(w + a + b) - sse(w + a - b) - sse(w - a + b) + sse(w - a - b)) / (4 * h * h)
                   for b in E] for a in E])
    lam = np.linalg.eigvalsh(H)
    assert lam == pytest.approx([0.018, 0.326], abs=2e-3)
    out = [K(w, x, 1.0) for x in X]
    assert out[3] > max(out[1], out[2])          # (1,1) above both positives: no threshold separates
    from proofs_check.repro import run_repro
    assert run_repro(o.repro.to_dict())[1]


def test_superposition_counterexample_plain_formula():
    ev = run_quick("yat.superposition")
    assert ev.verdict == V.REFUTED
    ce = ev.counterexample
    assert K(ce["w"], ce["x"], ce["eps"]) == pytest.approx(0.5)
    assert K(ce["w"], -np.array(ce["x"]), ce["eps"]) == pytest.approx(1 / 6)
    assert ev.other_readings["R2_prototype_inversion"].verdict == V.REFUTED


def test_no_dead_zone_gradient_vanishes_at_origin():
    ev = run_quick("yat.grad.no_dead_zone")
    assert ev.verdict == V.REFUTED
    p1 = ev.parts["(1)_no_vanishing_gradient_at_x=0"]
    w, x, eps = np.array(p1.counterexample["w"]), np.zeros(3), p1.counterexample["eps"]
    h = 1e-5
    fd_x = [(K(w, x + h * e, eps) - K(w, x - h * e, eps)) / (2 * h) for e in np.eye(3)]
    fd_w = [(K(w + h * e, x, eps) - K(w - h * e, x, eps)) / (2 * h) for e in np.eye(3)]
    assert max(map(abs, fd_x + fd_w)) < 1e-8          # O(h^2) central-difference error only
    assert abs(K(w, x + 0.5 * w, eps) - K(w, x, eps)) > 1e-3   # K itself is not flat
    # the operative reading of (2) holds; the global one fails with 2|w|^3/eps at x = w
    p2 = ev.parts["(2)_no_exploding_gradients"]
    assert p2.verdict == V.CONFIRMED
    assert p2.other_readings["global_bound"].repro.expected == pytest.approx(2 * 30 ** 3, rel=1e-12)


def test_quartic_boundary_location_not_lipschitz():
    # inside Prop 3's setting (|w| <= 1, unit ball): w_i = (1,0), w_j = (c,0), eps = 1/5. K_i - K_j =
    # x1^2 (1-c) q/(D_i D_j), q = (1+c) x1^2 - 2c x1 + (1+c)(x2^2+eps); q = 0 is a circle around (c/(1+c), 0) of
    # radius^2 c^2/(1+c)^2 - eps: empty for c < c0 = sqrt(eps)/(1-sqrt(eps)), so the boundary jumps at c0
    c, x1, x2, e = sp.symbols("c x1 x2 eps", real=True)
    F = x1 ** 2 * ((c - x1) ** 2 + x2 ** 2 + e) - (c * x1) ** 2 * ((1 - x1) ** 2 + x2 ** 2 + e)
    q = (1 + c) * x1 ** 2 - 2 * c * x1 + (1 + c) * (x2 ** 2 + e)
    assert sp.expand(F - x1 ** 2 * (1 - c) * q) == 0
    c0 = sp.sqrt(sp.Rational(1, 5)) / (1 - sp.sqrt(sp.Rational(1, 5)))
    assert sp.simplify(c0 - (1 + sp.sqrt(5)) / 4) == 0
    ev = run_quick("yat.decision.quartic_boundary")
    part = ev.parts["lipschitz_in_parameters"]
    assert part.verdict == V.REFUTED
    ce = part.counterexample
    ca, cb, eps = ce["w_j_a"][0], ce["w_j_b"][0], ce["eps"]
    assert ce["w_j_a"][1] == ce["w_j_b"][1] == 0.0 and max(abs(ca), abs(cb)) <= 1.0       # |w_j| <= 1
    assert cb < float(c0) < ca
    # c_b: q >= (1+c) eps - c^2/(1+c) > 0 (Fractions on the float values): boundary = {x1 = 0}
    fb = Fraction(cb)
    assert (1 + fb) * Fraction(eps) - fb * fb / (1 + fb) > 0
    # c_a: the recorded point is on the boundary, inside the unit ball, at distance > sqrt(eps) from x1 = 0
    p = np.array(ce["point_on_boundary_a"])
    Kf = lambda w, x: float(np.dot(w, x) ** 2 / (np.sum((np.array(w) - x) ** 2) + eps))  # noqa: E731
    scale = abs(Kf([1.0, 0.0], p + [0.01, 0]) - Kf(ce["w_j_a"], p + [0.01, 0]))
    assert abs(Kf([1.0, 0.0], p) - Kf(ce["w_j_a"], p)) <= 1e-9 * scale
    assert np.linalg.norm(p) <= 1.0 and p[0] > math.sqrt(eps)
    # sign change across p along x1 (a genuine crossing)
    s_in = Kf([1.0, 0.0], p - [0.005, 0]) - Kf(ce["w_j_a"], p - [0.005, 0])
    s_out = Kf([1.0, 0.0], p + [0.005, 0]) - Kf(ce["w_j_a"], p + [0.005, 0])
    assert s_in * s_out < 0
    assert ce["ratio"] == pytest.approx(p[0] / abs(ca - cb), rel=1e-9)
    assert min(r["dist_point_to_boundary_b"] for r in part.numbers["family"]) >= math.sqrt(eps)
    assert part.other_readings["defining_function_lipschitz"].verdict == V.CONFIRMED
