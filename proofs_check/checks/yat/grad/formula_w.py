"""yat.grad.formula_w: the printed formulas for grad_w K (000 Prop 12, 000 eq.9, 001 eq.19)."""
from __future__ import annotations

import numpy as np
import sympy as sp

from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Reading, Repro, Scope, Threshold, register
from proofs_check.repro import evaluate
from proofs_check.support.yat_bounds_gradients import sym_identity_test, sym_s_D

W, X, EPS = [1.0, 2.0], [0.5, -1.0], 0.3
_TRUE = "yatmath.yat.grad(np.array(w), np.array(x), eps).w"
# each printed formula as one expression of w, x, eps (s = w.x, D = ||w-x||^2 + eps)
PRINTED = {
    "prop12": "(lambda w, x, s, D: 2 * s / D * (x + s * (w - x) / D))",
    "eq9_printed_X": "(lambda w, x, s, D: 2 * s * (w @ w + x @ x + eps - s) / x - 2 * s ** 2 / D ** 2 * w)",
    "eq9_D2_for_X": "(lambda w, x, s, D: 2 * s * (w @ w + x @ x + eps - s) / D ** 2 - 2 * s ** 2 / D ** 2 * w)",
}


def _repro(name):
    f = PRINTED[name]
    expr = (f"float(np.linalg.norm({f}(np.array(w), np.array(x), np.array(w) @ np.array(x), "
            f"((np.array(w) - np.array(x)) ** 2).sum() + eps) - {_TRUE}) / np.linalg.norm({_TRUE}))")
    b = {"w": W, "x": X, "eps": EPS}
    return Repro(expr, b, expected=float(evaluate(expr, b))), float(evaluate(expr, b))


def _componentwise(form):
    """component j of ``form`` minus dK/dw_j = 2 s x_j/D - 2 s^2 (w_j - x_j)/D^2 (every d)."""
    s, D, wj, xj, eps = sp.symbols("s D w_j x_j epsilon", real=True)
    true = 2 * s * xj / D - 2 * s ** 2 * (wj - xj) / D ** 2
    return sp.simplify(form(s, D, wj, xj, D + 2 * s - eps, eps) - true)


def _wrong(name, text, passage, sym_res):
    rep, val = _repro(name)
    return Evidence(
        verdict=V.holds(sym_res == 0 and val <= 1e-12),
        reading=Reading(text, passage),
        numbers={"symbolic_residual": str(sym_res), "rel_error_at_counterexample": val},
        thresholds=[Threshold("||printed - grad_w K|| / ||grad_w K|| = 0", 0.0, "precision",
                              "float64 evaluation of two closed forms: ~1e-15 relative", val, val)],
        scope=Scope("symbolic", "exact residual (component-wise, every d)", universal=True),
        counterexample={"w": W, "x": X, "eps": EPS, "rel_error": val},
        repro=rep)


@register("yat.grad.formula_w",
          method="each printed grad_w formula vs the exact derivative: sympy component-wise (every d) "
                 "and exact rational points in d = 3; float64 counterexample w=(1,2), x=(.5,-1), eps=.3")
def check_formula_w(ctx):
    rng = ctx.rng("sym")
    true_np = np.asarray(evaluate(_TRUE, {"w": W, "x": X, "eps": EPS}))
    # (a) 000 Prop 12
    ra = _componentwise(lambda s, D, wj, xj, n2, e: (2 * s / D) * (xj + s * (wj - xj) / D))

    def sym_a(w, x, eps):
        s, D, _ = sym_s_D(w, x, eps)
        return list((2 * s / D) * (x + s * (w - x) / D))

    zero_a, res_a = sym_identity_test(sym_a, "w", rng)
    rep_a, rel_a = _repro("prop12")
    part_a = Evidence(
        verdict=V.holds(ra == 0 and zero_a),
        numbers={"componentwise_residual": str(ra), "max_exact_residual_d3_rational_points": res_a,
                 "rel_error_at_counterexample": rel_a, "true_grad_w": true_np.tolist()},
        thresholds=[Threshold("||Prop 12 - grad_w K|| / ||grad_w K|| = 0", 0.0, "precision",
                              "float64 evaluation of two closed forms: ~1e-15 relative", rel_a, rel_a)],
        scope=Scope("symbolic", "exact residual 4 s^2 (w_j - x_j)/D^2 (every d)", universal=True),
        counterexample={"w": W, "x": X, "eps": EPS, "rel_error": rel_a},
        repro=rep_a,
        notes="Sign error in the second term: the exact gradient is (2s/D)(x - s(w-x)/D).")
    # (b) 000 eq.9: operative = the typo-corrected form [2S(...)/D^2] X - (2S^2/D^2) W
    rb = _componentwise(lambda s, D, wj, xj, n2, e: 2 * s * (n2 + e - s) / D ** 2 * xj - 2 * s ** 2 / D ** 2 * wj)
    rb_x = _componentwise(lambda s, D, wj, xj, n2, e: 2 * s * (n2 + e - s) / xj - 2 * s ** 2 / D ** 2 * wj)
    rb_d = _componentwise(lambda s, D, wj, xj, n2, e: 2 * s * (n2 + e - s) / D ** 2 - 2 * s ** 2 / D ** 2 * wj)
    part_b = Evidence(
        verdict=V.holds(rb == 0),
        reading=Reading(
            "[2S(||W||^2+||X||^2+eps-S)/D^2] X - (2S^2/D^2) W (the printed denominator 'X' read as "
            "D^2 with the factor X restored)",
            '000 Prop 8 eq.8 prints the same structure for the X-gradient, '
            '"2S(||W||^2+||X||^2+eps-S)/D^2 W - 2S^2/D^2 X", and Y = S^2/D is symmetric in X and W; '
            'the earlier version of the same paper, 001 eq.19, prints exactly the corrected form'),
        other_readings={
            "as_printed_/X": _wrong("eq9_printed_X", "first term divided by the vector X (element-wise)",
                                    '000 Prop 8 eq.9 as printed: "2S(...)/X - 2S^2/D^2 W"', rb_x),
            "D^2_in_place_of_X": _wrong("eq9_D2_for_X", "first term 2S(...)/D^2 without a vector factor",
                                        '000 Prop 8 eq.9 with D^2 for X (claims.md Check)', rb_d)},
        numbers={"componentwise_residual": str(rb)},
        scope=Scope("symbolic", "every d (component-wise identity)", universal=True))
    # (c) 001 eq.19
    part_c = Evidence(
        verdict=V.holds(rb == 0),
        numbers={"componentwise_residual": str(rb)},
        scope=Scope("symbolic", "every d (component-wise identity)", universal=True))
    return Evidence.of_parts(
        {"a_000_Prop12": part_a, "b_000_eq9": part_b, "c_001_eq19": part_c},
        counterexample=part_a.counterexample, repro=part_a.repro,
        notes="000 Prop 12 prints (2s/D)(x + s(w-x)/D); the correct gradient is (2s/D)(x - s(w-x)/D) "
              f"(relative error {rel_a:.3f} at w=(1,2), x=(.5,-1), eps=.3). 000 eq.9, read with the "
              "typesetting corrected (D^2 for the denominator X, X as the vector factor, as in eq.8 "
              "and 001 eq.19), is correct; as printed, or with D^2 only, it is wrong. 001 eq.19 is correct.")
