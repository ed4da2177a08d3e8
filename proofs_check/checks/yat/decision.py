"""Checks of yat.decision.* (000 Thm 21, Remark 11, §3.2, Prop 11; 001 App E; 002 eqs 18-23, §3.3, §4.1)."""
from __future__ import annotations

import math

import numpy as np
import sympy as sp

import yatmath.yat as Y
from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Reading, Repro, Scope, Threshold, register
from proofs_check.repro import evaluate


def _K(w, x, eps):
    return Y.product(w, x, eps, backend="numpy")


_SING_EXPR = ("[float(yatmath.yat.product(np.array(wi), np.array(x), eps, backend='numpy') "
              "- yatmath.yat.product(np.array(wj), np.array(x), eps, backend='numpy'))] + "
              "(yatmath.yat.grad(np.array(wi), np.array(x), eps).x - yatmath.yat.grad(np.array(wj), np.array(x), eps).x).tolist()")


@register("yat.decision.quartic_boundary",
          method="sympy: P = <wi,x>^2 D_j - <wj,x>^2 D_i = D_i D_j (K_i - K_j), its total degree, P and grad P "
                 "at x = 0 for symbolic (wi, wj, eps) and the Hessian there (a node: two crossing branches); "
                 "linear boundary identity")
def check_quartic_boundary(ctx):
    x1, x2, e = sp.symbols("x1 x2 eps", positive=True)
    a1, a2, b1, b2 = sp.symbols("a1 a2 b1 b2", real=True)
    X = (x1, x2)

    def P(wi, wj):
        return (sum(p * q for p, q in zip(wi, X)) ** 2 * (sum((p - q) ** 2 for p, q in zip(wj, X)) + e)
                - sum(p * q for p, q in zip(wj, X)) ** 2 * (sum((p - q) ** 2 for p, q in zip(wi, X)) + e))
    Pg = sp.expand(P((a1, a2), (b1, b2)))
    Ki = (a1 * x1 + a2 * x2) ** 2 / ((a1 - x1) ** 2 + (a2 - x2) ** 2 + e)
    Kj = (b1 * x1 + b2 * x2) ** 2 / ((b1 - x1) ** 2 + (b2 - x2) ** 2 + e)
    Di = (a1 - x1) ** 2 + (a2 - x2) ** 2 + e
    Dj = (b1 - x1) ** 2 + (b2 - x2) ** 2 + e
    eq_res = sp.expand(Pg - sp.cancel(sp.together(Di * Dj * (Ki - Kj))))
    deg = sp.Poly(Pg, x1, x2).total_degree()
    at0 = [sp.expand(Pg.subs({x1: 0, x2: 0}))] + [sp.expand(sp.diff(Pg, v).subs({x1: 0, x2: 0})) for v in X]
    equation = Evidence(
        verdict=V.holds(eq_res == 0),
        numbers={"residual": str(eq_res)},
        scope=Scope("symbolic", "P = D_i D_j (K_i - K_j) with D_i, D_j >= eps > 0, so {P = 0} = {K_i = K_j}",
                    universal=True))
    quartic = Evidence(
        verdict=V.holds(deg == 4),
        numbers={"total_degree_generic": deg},
        scope=Scope("symbolic", "sympy total degree of P for symbolic (wi, wj, eps)", universal=True))
    wi, wj, eps = [1.0, 0.0], [0.0, 1.0], 1.0
    Pc = sp.expand(P((1, 0), (0, 1)).subs(e, 1))
    H0 = sp.hessian(Pc, X).subs({x1: 0, x2: 0})
    H_eigs = sorted(float(v) for v in H0.eigenvals())
    bnd = {"wi": wi, "wj": wj, "x": [0.0, 0.0], "eps": eps}
    val = evaluate(_SING_EXPR, bnd)
    singular = all(s_ == 0 for s_ in at0)
    smooth = Evidence(
        verdict=V.holds(not (singular and H_eigs[0] < 0 < H_eigs[-1])),
        reading=Reading("the decision boundary {K_i = K_j} is a smooth hypersurface",
                        '000 Thm 21 / Remark 11: the boundary "is smooth (by Lemma 1)"; a boundary is smooth as a '
                        'set, which Lemma 1 (smoothness of K) gives only where grad(K_i - K_j) != 0'),
        numbers={"P(0)_gradP(0)_symbolic": [str(s_) for s_ in at0], "hessian_eigs_at_0": H_eigs},
        counterexample={"w_i": wi, "w_j": wj, "eps": eps, "x": [0.0, 0.0], "K_i-K_j_and_grad": val,
                        "hessian_of_P_eigs": H_eigs,
                        "boundary_near_0": "x1 = +-x2 (two crossing lines: a node)"},
        repro=Repro(_SING_EXPR, bnd, expected=[float(t) for t in val], rtol=0, atol=0,
                    tol_reason="exact zeros: w.0 = 0 makes K and its x-gradient vanish"),
        scope=Scope("symbolic", "P(0) = 0 and grad P(0) = 0 for every (wi, wj, eps): x = 0 is a singular "
                    "point of every boundary; with the Hessian indefinite the boundary crosses itself"),
        thresholds=[Threshold("Hessian eigenvalues of opposite sign", 0.0, "precision",
                              "exact sympy eigenvalues", H_eigs[0], H_eigs[0])],
        other_readings={"defining_function_smooth": Evidence(
            verdict=V.holds(bool((sum(sp.Symbol(f"t{i}", real=True) ** 2 for i in range(2))
                                  + sp.Symbol("eps", positive=True)).is_positive)),   # denominator > 0
            reading=Reading("the function K_i - K_j defining the boundary is C^infinity",
                            "000 Thm 21: 'smooth (by Lemma 1)' read as a property of K"),
            scope=Scope("symbolic", "rational function with denominator >= eps > 0", universal=True))})
    lipschitz = Evidence(
        verdict=V.NOT_CHECKABLE,
        notes="'Lipschitz-continuous in its parameters (Prop 3)': no metric on boundaries is given and Prop 3 "
              "bounds K in x, not the boundary location in w.  Near the node at x = 0 (present for every w) "
              "the boundary is not a graph over w; not checkable as stated.")
    a, b_ = sp.symbols("a b", real=True)
    lin = sp.expand((a1 * x1 + a2 * x2) - (b1 * x1 + b2 * x2) - ((a1 - b1) * x1 + (a2 - b2) * x2))
    linear = Evidence(verdict=V.holds(lin == 0), numbers={"residual": str(lin)},
                      scope=Scope("symbolic", "w_i.x = w_j.x <=> (w_i - w_j).x = 0", universal=True))
    return Evidence.of_parts({"equation": equation, "quartic": quartic, "smooth": smooth,
                              "lipschitz_in_parameters": lipschitz, "linear_boundary": linear},
                             numbers={"degree": deg, "hessian_eigs_at_0": H_eigs})


_FAR_EXPR = ("[int(np.argmax([float(yatmath.yat.product(np.array(w), r * np.array(u), eps, backend='numpy')) "
             "for w in W])) for r in radii]")
_RESP_EXPR = "float(yatmath.yat.product(np.array(w), r * np.array(w) / np.linalg.norm(w), eps, backend='numpy'))"


@register("yat.decision.localized_regions",
          method="far field K(w, r u) -> (w.u)^2 (sympy limit); argmax regions of random prototypes at radii "
                 "up to 1e6 (2-D, 3-D); bound of the softmax confidence by the bounded logits; bullet 3 needs "
                 "the papers' trained models")
def check_localized_regions(ctx):
    r, e = sp.symbols("r eps", positive=True)
    w1, w2, u1, u2 = sp.symbols("w1 w2 u1 u2", real=True)
    Kr = (w1 * r * u1 + w2 * r * u2) ** 2 / ((w1 - r * u1) ** 2 + (w2 - r * u2) ** 2 + e)
    lim = sp.simplify(sp.limit(Kr.subs({u1: sp.Rational(3, 5), u2: sp.Rational(4, 5)}), r, sp.oo))
    rng = ctx.rng("protos")
    eps, C = 1.0, 4
    radii = [1e2, 1e3, 1e4, 1e6]
    W = rng.standard_normal((C, 2))
    ang = np.linspace(0, 2 * np.pi, 360, endpoint=False)
    dirs = np.column_stack([np.cos(ang), np.sin(ang)])
    far = np.argmax(_K(W[None, :, :], (1e6 * dirs)[:, None, :], eps), axis=1)
    owners = sorted(set(far.tolist()))
    j = int(np.argmax(far == owners[0]))
    bnd = {"W": W.tolist(), "u": dirs[j].tolist(), "eps": eps, "radii": radii}
    far_idx = evaluate(_FAR_EXPR, bnd)
    bounded_all = len(owners) == 0
    r1 = Evidence(
        verdict=V.holds(bounded_all),
        reading=Reading("each class region {x : argmax_i K(w_i,x) = c} is bounded ('territories around "
                        "prototypes instead of half-spaces')",
                        '000 §3.2: "localized vortex territories around prototypes instead of half-spaces"; 002 '
                        '§4.1: "bounded potential wells"'),
        numbers={"prototypes": W.tolist(), "regions_reaching_r=1e6": owners, "limit_K(w,ru)": str(lim)},
        counterexample={**bnd, "argmax_per_radius": far_idx},
        repro=Repro(_FAR_EXPR, bnd, expected=far_idx, rtol=0, atol=0, tol_reason="integer argmax"),
        scope=Scope("symbolic", "K(w, r u) -> (w.u)^2 as r -> inf (sympy), so the prototype maximising "
                    "(w_i.u)^2 owns every far point along u; regions cover R^d, so some region is unbounded"),
        notes="Every direction u is owned far away by argmax_i (w_i.u)^2: the far field is a partition into "
              "cones, as for a linear classifier on (w.u)^2.")
    w = np.array([1.0, 0.5])
    bresp = {"w": w.tolist(), "r": 1e4, "eps": eps}
    resp = float(evaluate(_RESP_EXPR, bresp))
    r2 = Evidence(
        verdict=V.holds(resp < 1e-6 * float(w @ w)),
        reading=Reading("the response field K(w, .) is localized (decays far from w)",
                        '001 §3.1: "vortex" fields around prototypes'),
        numbers={"K_far_along_w": resp, "limit": float(w @ w)},
        counterexample={**bresp, "K": resp, "limit_norm_w_sq": float(w @ w)},
        repro=Repro(_RESP_EXPR, bresp, expected=resp),
        thresholds=[Threshold("K(w, r w/|w|) vs ||w||^2", float(w @ w), "precision",
                              "exact limit ||w||^2 (sympy); float64 value at r = 1e4", resp, resp)])
    territories = Evidence(verdict=r1.verdict, reading=r1.reading, numbers=r1.numbers,
                           counterexample=r1.counterexample, repro=r1.repro, scope=r1.scope, notes=r1.notes,
                           other_readings={"R2_localized_response": r2})
    # R3: confidence bounded: logits K(w_i, x) in [0, M], M = max_i ||w_i||^2 (||w_i||^2 + eps)/eps
    a2 = (W ** 2).sum(1)
    M = float((a2 * (a2 + eps) / eps).max())
    pmax = 1.0 / (1.0 + (C - 1) * math.exp(-M))
    pts = np.concatenate([rr * dirs for rr in (1e-2, 1, 10, 1e3, 1e6)])
    Kp = _K(W[None, :, :], pts[:, None, :], eps)
    Z = Kp - Kp.max(1, keepdims=True)
    conf = float((np.exp(Z) / np.exp(Z).sum(1, keepdims=True)).max())
    confidence = Evidence(
        verdict=V.holds(conf <= pmax and pmax < 1.0),
        reading=Reading("the max softmax probability over K-logits stays below a constant < 1 for all x",
                        '000 §3.2: regions "remain well-defined even for extreme inputs, preventing unbounded '
                        'confidence growth"'),
        numbers={"bound": pmax, "sup_measured": conf, "M_logit_bound": M},
        scope=Scope("symbolic", "0 <= K(w,x) <= ||w||^2(||w||^2+eps)/eps = M for all x, so every softmax "
                    "probability is <= 1/(1 + (C-1) e^-M) < 1", universal=True))
    delta = Evidence(verdict=V.NOT_CHECKABLE,
                     notes="'the softmax approaches a delta distribution during training' refers to the papers' "
                           "trained models (not available).")
    return Evidence.of_parts({"territories": territories, "bounded_confidence": confidence,
                              "softmax_delta_in_training": delta})
