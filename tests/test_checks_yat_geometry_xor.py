"""Ledger checks of yat.topology.*, yat.decision.*, yat.xor.*, yat.superposition, yat.grad.no_dead_zone:
records valid, verdicts following from their numbers, key numbers re-derived independently."""
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp
from checkrun import run_quick

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
    # the inequality |tanh z1 - tanh z2| <= e^{-min z}|z1-z2| fails just below ln u*, u^3-3u^2-u-1 = 0
    u = max(r.real for r in np.roots([1, -3, -1, -1]) if abs(r.imag) < 1e-12)
    ev = run_quick("yat.topology.thm14")
    # (2) holds, with the printed rate e^-z tight for sigmoid and a strictly better one (e^-2z) for tanh:
    # CONFIRMED_LOOSE (claims.md rule 5); tanh'(z) e^{2z} -> 4 and sigma'(z) e^{z} -> 1 recomputed in mpmath
    assert ev.verdict == V.CONFIRMED_LOOSE
    rates = {b.name.split("|")[1].split("(")[0].strip(): b.tight for b in ev.parts["(2)_sigmoid_tanh"].bounds}
    assert rates == {"sigmoid": 1.0, "tanh": 2.0}
    zz = mpmath.mpf(40)
    assert abs(mpmath.sech(zz) ** 2 * mpmath.e ** (2 * zz) - 4) < mpmath.mpf(10) ** -12
    assert abs(mpmath.e ** -zz / (1 + mpmath.e ** -zz) ** 2 * mpmath.e ** zz - 1) < mpmath.mpf(10) ** -12
    assert ev.numbers["tanh_threshold"] == pytest.approx(math.log(u), rel=1e-10)
    z = mpmath.log(4)
    assert 4 * mpmath.e ** (-2 * z) <= mpmath.e ** (-z) + mpmath.mpf(10) ** -30
    # at min z slightly below the threshold a failing pair exists (tanh'(z0) > e^{-z0})
    z0 = math.log(u) - 0.05
    assert 1 / math.cosh(z0) ** 2 > math.exp(-z0)


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
    # w_i = (1,0), eps = 1: for w_j = (c,0) the boundary is x1 = 0 only, since K_i - K_j = x1^2 (1-c) q / (D_i D_j)
    # with q = (c+1) x1^2 - 2c x1 + (c+1)(x2^2+1) of negative discriminant 4c^2 - 4(c+1)^2(x2^2+1) < 0;
    # for w_j = (1, delta) the boundary passes near (2, delta/4): d_H >= 2 while the parameters move sqrt(2) delta
    c, x1, x2 = sp.symbols("c x1 x2", positive=True)
    assert sp.simplify(4 * c ** 2 - 4 * (c + 1) ** 2 * (x2 ** 2 + 1) + 4 * (2 * c + 1) + 4 * (c + 1) ** 2 * x2 ** 2) == 0
    ev = run_quick("yat.decision.quartic_boundary")
    part = ev.parts["lipschitz_in_parameters"]
    assert part.verdict == V.REFUTED
    ce = part.counterexample
    p = np.array(ce["point_on_boundary_b"])
    Kf = lambda w, x: float(np.dot(w, x) ** 2 / (np.sum((np.array(w) - x) ** 2) + 1.0))  # noqa: E731
    scale = abs(Kf([1.0, 0.0], p + [0, 0.01]) - Kf(ce["w_j_b"], p + [0, 0.01]))
    assert abs(Kf([1.0, 0.0], p) - Kf(ce["w_j_b"], p)) <= 1e-9 * scale
    assert p[0] == 2.0 and ce["ratio"] == pytest.approx(2.0 / np.linalg.norm(np.subtract(ce["w_j_a"], ce["w_j_b"])))
    assert part.other_readings["defining_function_lipschitz"].verdict == V.CONFIRMED
