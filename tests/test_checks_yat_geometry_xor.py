"""Ledger checks of claims.md A7 (topology, decision geometry) and A8 (XOR, landscape).

Each check runs once at level quick with seed 0 (cached); tests assert the verdict vocabulary,
the Record fields, and re-evaluate stored counterexamples with the plain formula, fractions or
sympy (exact where the claim is exact).
"""
from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from proofs_check import verdicts as V
from proofs_check.checks import yat_geometry_xor as M
from proofs_check.registry import REGISTRY
from checkrun import run_quick as run

IDS = ["yat.topology.thm14", "yat.topology.no_collapse", "yat.decision.quartic_boundary",
       "yat.decision.localized_regions", "yat.xor.not_linearly_separable", "yat.xor.single_unit",
       "yat.xor.orthogonality_mechanism", "yat.superposition", "yat.grad.no_dead_zone",
       "yat.xor.loss_landscape"]

RECORD = {
    "yat.topology.thm14": ["tanh_threshold", "relu_collision"],
    "yat.topology.no_collapse": ["zero_set_dim_n<d", "ranks_yat", "ranks_relu"],
    "yat.decision.quartic_boundary": ["degree", "hessP(0)_eigs", "max_boundary_sensitivity"],
    "yat.decision.localized_regions": ["R1", "R2", "R3", "min_fraction_bounded", "sup_conf_yat"],
    "yat.xor.not_linearly_separable": ["lp_status"],
    "yat.xor.single_unit": ["values", "frac_best_threshold_separating_in_w1w2<0"],
    "yat.xor.orthogonality_mechanism": ["dots"],
    "yat.superposition": ["residual_R1", "residual_R2", "example", "R3"],
    "yat.grad.no_dead_zone": ["grad_at_x=0_max", "grad_at_w=0_max", "sup_grad_x_vs_R"],
    "yat.xor.loss_landscape": ["summary"],
}


def plain_K(w, x, eps):
    w, x = np.asarray(w, float), np.asarray(x, float)
    return (w * x).sum(-1) ** 2 / (((w - x) ** 2).sum(-1) + eps)


def frac_K(w, x, eps):
    """Exact rational evaluation."""
    w = [Fraction(v) for v in w]
    x = [Fraction(v) for v in x]
    s = sum(a * b for a, b in zip(w, x))
    return s * s / (sum((a - b) ** 2 for a, b in zip(w, x)) + Fraction(eps))


@pytest.mark.parametrize("cid", IDS)
def test_check_runs_and_is_well_formed(cid):
    assert REGISTRY[cid].func.__module__ == M.__name__
    ev = run(cid)
    assert ev.verdict in V.VERDICTS
    d = ev.to_dict()
    json.dumps(d)
    for key in RECORD[cid]:
        assert key in d["evidence"], f"{cid}: Record field {key!r} missing"
    for name, part in ev.parts.items():
        assert part.verdict in V.VERDICTS, name
    if ev.verdict == V.REFUTED:
        assert ev.counterexample and ev.repro


def test_thm14_tanh_threshold_and_sigmoid_everywhere():
    ev = run("yat.topology.thm14")
    z0 = ev.numbers["tanh_threshold"]
    # sech^2(z) = e^-z at the threshold (u = e^z root of u^3 - 3u^2 - u - 1)
    assert math.isclose(1 / math.cosh(z0) ** 2, math.exp(-z0), rel_tol=1e-10)
    assert 1 / math.cosh(0.5) ** 2 > math.exp(-0.5)          # fails inside (0, z0)
    assert ev.numbers["sigmoid_threshold"] is None            # holds on the whole grid
    assert ev.verdict == V.CONFIRMED


def test_no_collapse_collision_plain():
    ev = run("yat.topology.no_collapse")
    ce = ev.counterexample
    W = np.array(ce["W"])
    a, b = plain_K(W, np.array(ce["x1"]), ce["eps"]), plain_K(W, np.array(ce["x2"]), ce["eps"])
    assert np.linalg.norm(np.array(ce["x1"]) - np.array(ce["x2"])) > 0.1
    assert np.abs(a - b).max() <= 1e-12 * max(1.0, np.abs(a).max())
    assert ev.parts["R1_no_region_collapsed"].verdict == V.CONFIRMED


def test_quartic_boundary_singular_origin_sympy():
    ev = run("yat.decision.quartic_boundary")
    ce = ev.counterexample
    x, y = sp.symbols("x y")
    wi, wj, e = ce["w_i"], ce["w_j"], ce["eps"]
    P = (wi[0] * x + wi[1] * y) ** 2 * ((wj[0] - x) ** 2 + (wj[1] - y) ** 2 + e) - \
        (wj[0] * x + wj[1] * y) ** 2 * ((wi[0] - x) ** 2 + (wi[1] - y) ** 2 + e)
    at0 = {x: 0, y: 0}
    assert P.subs(at0) == 0 and all(sp.diff(P, v).subs(at0) == 0 for v in (x, y))
    H = sp.hessian(P, (x, y)).subs(at0)
    assert H.det() < 0                                          # node: two crossing branches
    assert sp.Poly(sp.expand(P), x, y).total_degree() == 4
    assert ev.verdict == V.REFUTED


def test_localized_regions_far_field_plain():
    ev = run("yat.decision.localized_regions")
    ce = ev.counterexample
    W, u = np.array(ce["W"]), np.array(ce["u"])
    for r in (1e5, 1e7):
        assert int(np.argmax(plain_K(W, r * u, ce["eps"]))) == ce["argmax_at_r_1e2_1e3_1e4"][-1]
    # K(w, r u) -> (w.u)^2, not 0
    w = np.array([1.0, 0.5])
    assert abs(plain_K(w, 1e6 * w / np.linalg.norm(w), 1.0) - w @ w) < 1e-5


def test_xor_lp_and_single_unit_exact():
    assert run("yat.xor.not_linearly_separable").numbers["lp_status"] == 2
    eps = Fraction(7, 10)
    vals = [frac_K((1, -1), x, eps) for x in [(0, 0), (0, 1), (1, 0), (1, 1)]]
    assert vals == [0, 1 / (5 + eps), 1 / (1 + eps), 0]
    ev = run("yat.xor.single_unit")
    ce = ev.counterexample
    w = ce["w"]
    assert w[0] * w[1] < 0
    k = [frac_K(w, x, Fraction(ce["eps"])) for x in [(0, 0), (0, 1), (1, 0), (1, 1)]]
    assert min(k[1], k[2]) <= max(k[0], k[3])                  # no threshold separates
    assert ev.parts["002.R2_w=(a,-a)"].verdict == V.CONFIRMED


def test_orthogonality_mechanism_exact():
    ev = run("yat.xor.orthogonality_mechanism")
    assert ev.numbers["dots"] == [0, -1, 1, 0]
    assert ev.verdict == V.CONFIRMED


def test_superposition_example_exact():
    ev = run("yat.superposition")
    ex = ev.numbers["example"]
    w, x = ex["w"], ex["x"]
    kx = frac_K(w, x, 1)
    assert kx == Fraction(1, 2)
    assert frac_K(w, [-v for v in x], 1) == Fraction(1, 6) == frac_K([-v for v in w], x, 1)
    assert ev.verdict == V.REFUTED


def test_no_dead_zone_gradient_zero_at_origin_fd():
    ev = run("yat.grad.no_dead_zone")
    ce = ev.counterexample
    w, x, eps, h = np.array(ce["w"]), np.zeros(3), ce["eps"], 1e-5
    g = [(plain_K(w, x + h * e, eps) - plain_K(w, x - h * e, eps)) / (2 * h) for e in np.eye(3)]
    assert np.abs(g).max() < 1e-9                              # K = O(|x|^2): exact zero gradient
    # x = w gives |grad_x K| = 2 |w|^3 / eps: unbounded growth in |w|
    assert ev.numbers["growth_exponent"] > 2.5
    assert ev.verdict == V.REFUTED


def test_loss_landscape_dot_never_separates():
    ev = run("yat.xor.loss_landscape")
    for r in ("R1", "R2", "R3"):
        assert ev.numbers["summary"][r]["dot_success"] == 0.0   # Prop 9: linear cannot separate
        assert ev.parts[r].numbers["yat_grad_w_at_w=0"] == [0.0, 0.0]
