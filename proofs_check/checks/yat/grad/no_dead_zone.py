"""Check of yat.grad.no_dead_zone (000 Prop 10(1)-(2), App D.4; 001 App D.2-D.3; 002 §4)."""
from __future__ import annotations

import numpy as np
import sympy as sp
from scipy import optimize

import yatmath.yat as Y
from proofs_check import stats as S
from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Plot, Reading, Repro, Scope, Threshold, register
from proofs_check.repro import evaluate

_GRAD_EXPR = ("np.concatenate([yatmath.yat.grad(np.array(w), np.array(x), eps).x, "
              "yatmath.yat.grad(np.array(w), np.array(x), eps).w]).tolist()")


@register("yat.grad.no_dead_zone",
          method="sympy grad_x K and grad_w K at x = 0, at w = 0 and on {w.x = 0}; yatmath.yat.grad at the same "
                 "points; multi-start sup of ||grad_x K|| on balls of radius R; measure of the zero-gradient set")
def check_no_dead_zone(ctx):
    w = sp.symbols("w0:3", real=True)
    x = sp.symbols("x0:3", real=True)
    e = sp.symbols("eps", positive=True)
    s = sum(a * b for a, b in zip(w, x))
    K = s ** 2 / (sum((a - b) ** 2 for a, b in zip(w, x)) + e)
    grads = [sp.diff(K, v) for v in x + w]
    at_x0 = [sp.simplify(g.subs({v: 0 for v in x})) for g in grads]
    H = sp.hessian(K, x).subs({v: 0 for v in x})
    Hrank = sp.Matrix(H).rank()
    bnd = {"w": [1.0, -1.0, 0.5], "x": [0.0, 0.0, 0.0], "eps": 1.0}
    g0 = evaluate(_GRAD_EXPR, bnd)
    p1 = Evidence(
        verdict=V.holds(not all(g == 0 for g in at_x0)),
        reading=Reading("at x = 0 the gradient of K (in x and in w) is non-zero",
                        '000 Prop 10(1): "No vanishing gradients at x = 0: the gradient is defined and '
                        'non-degenerate for eps > 0"; 002 §4: the gradient "pushes the neuron\'s weights away from '
                        'configurations that would lead to a zero output"'),
        numbers={"sympy_grads_at_x=0": [str(g) for g in at_x0], "hessian_x_rank_at_x=0": int(Hrank)},
        counterexample={**bnd, "grad_x_and_grad_w": g0},
        repro=Repro(_GRAD_EXPR, bnd, expected=[float(t) for t in g0], rtol=0, atol=0,
                    tol_reason="exact zeros: every term carries the factor w.x = 0"),
        notes="K = (w.x)^2/D vanishes to second order on {w.x = 0}: every point with x = 0 (and w = 0, and w ⊥ x) "
              "is stationary for K and any loss of K.  The Hessian in x at x = 0 is 2 w w^T/(|w|^2+eps), rank 1 "
              "in d = 3: degenerate also in the second-order sense.",
        other_readings={"hessian_non_degenerate": Evidence(
            verdict=V.holds(int(Hrank) == 3),
            reading=Reading("the critical point x = 0 is non-degenerate (Hessian invertible)",
                            "000 Prop 10(1) 'non-degenerate' read in the Morse sense"),
            numbers={"rank": int(Hrank), "d": 3},
            counterexample={**bnd, "hessian_x": [[str(c) for c in row] for row in H.subs({w[0]: 1, w[1]: -1, w[2]: sp.Rational(1, 2), e: 1}).tolist()]},
            repro=Repro("int(np.linalg.matrix_rank(np.outer(np.array(w), np.array(w))))", {"w": bnd["w"]},
                        expected=1, rtol=0, atol=0, tol_reason="integer rank of 2 w w^T/(|w|^2+eps)"))})
    srng = ctx.rng("sup")
    Rs = [1.0, 10.0, 30.0]
    sups, argmax = [], []
    for R in Rs:
        def neg(z, R=R):
            ww = R * z[:3] / max(1.0, np.linalg.norm(z[:3]))
            xx = R * z[3:] / max(1.0, np.linalg.norm(z[3:]))
            return -float(np.linalg.norm(Y.grad(ww, xx, 1.0).x))
        best = (0.0, None)
        for _ in range(ctx.pick(20, 60)):
            r_ = optimize.minimize(neg, srng.standard_normal(6) * R, method="Nelder-Mead", options={"maxiter": 300})
            if -r_.fun > best[0]:
                best = (-r_.fun, r_.x)
        sups.append(best[0])
        argmax.append(best[1].tolist())
    p2 = Evidence(
        verdict=V.holds(all(np.isfinite(sups))),
        reading=Reading("the gradient is bounded on bounded sets (Lipschitz on bounded sets)",
                        '000 Prop 10(2): "Lipschitz continuity prevents exploding gradients (Proposition 3)"; '
                        '000 Remark 4: "Lipschitz on bounded sets (Proposition 3)"'),
        numbers={"R": Rs, "sup_grad_x": sups, "maximisers": argmax, "restarts": ctx.pick(20, 60)},
        scope=Scope("symbolic", "grad K is continuous (denominator >= eps > 0), hence bounded on every compact "
                    "ball; multi-start sup per radius reported", universal=True),
        plot=Plot({"sup ||grad_x K||": (Rs, sups)}, "R", "sup over ||w||,||x|| <= R"),
        other_readings={"global_bound": Evidence(
            verdict=V.holds(False),
            reading=Reading("one bound on ||grad K|| over all (w, x)", "000 Prop 10(2) without 'on bounded sets'"),
            numbers={"sup_grad_x": sups},
            counterexample={"w": [30.0, 0.0, 0.0], "x": [30.0, 0.0, 0.0], "eps": 1.0},
            repro=Repro("float(np.linalg.norm(yatmath.yat.grad(np.array(w), np.array(x), eps).x))",
                        {"w": [30.0, 0.0, 0.0], "x": [30.0, 0.0, 0.0], "eps": 1.0},
                        expected=float(np.linalg.norm(Y.grad(np.array([30.0, 0, 0]), np.array([30.0, 0, 0]), 1.0).x))),
            notes="x = w gives ||grad_x K|| = 2||w||^3/eps, unbounded in ||w||.")})
    rng = ctx.rng("num")
    Wn, Xn = rng.standard_normal((2000, 3)), rng.standard_normal((2000, 3))
    frac_yat = float(np.mean(np.linalg.norm(Y.grad(Wn, Xn, 1.0).w, axis=1) == 0))
    frac_relu = float(np.mean((Wn * Xn).sum(1) < 0))
    lo, hi = S.binom_ci(int(round(frac_relu * 2000)), 2000)
    p3 = Evidence(
        verdict=V.holds(frac_yat == 0.0 and lo > 0),
        reading=Reading("no set of positive measure where the gradient vanishes, unlike ReLU's {w.x < 0}",
                        '000 Prop 10: "These properties contrast with ReLU neurons, which suffer from dead neuron '
                        'problems when w.x < 0"'),
        numbers={"frac_zero_grad_yat": frac_yat, "frac_dead_relu": frac_relu, "relu_ci95": [lo, hi]},
        scope=Scope("symbolic", "grad_w K is a non-zero real-analytic function of (w, x); its zero set is a "
                    "closed null set, while ReLU's dead set {w.x < 0} has positive measure", universal=True),
        thresholds=[Threshold("ReLU dead fraction > 0", 0.0, "statistical", "Clopper-Pearson 95%", lo, lo)])
    return Evidence.of_parts({"(1)_no_vanishing_gradient_at_x=0": p1, "(2)_no_exploding_gradients": p2,
                              "(3)_no_dead_zones_vs_relu": p3})
