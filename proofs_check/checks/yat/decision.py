"""Checks of yat.decision.* (000 Thm 21, Remark 11, §3.2, Prop 11; 001 App E; 002 eqs 18-23, §3.3, §4.1)."""
from __future__ import annotations

import math

import numpy as np
import sympy as sp

import yatmath.yat as Y
from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Reading, Repro, Scope, Threshold, Tried, register
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
    # 'Lipschitz continuity of the boundary location' (the proof's words), searched (rule 5(b)) inside Prop 3's
    # setting (||w|| <= 1, x in the unit ball, eps > 0 fixed): w_i = (1,0), w_j = (c,0), 0 < c < 1.  There
    # K_i - K_j = x1^2 (1 - c) q / (D_i D_j) with q = (1+c)[(x1 - c/(1+c))^2 + x2^2] + (1+c) eps - c^2/(1+c): the
    # boundary is {x1 = 0} for c < c0 = sqrt(eps)/(1 - sqrt(eps)), gains the point (sqrt(eps), 0) at c = c0 and a
    # circle around it for c > c0, so the boundary jumps by >= sqrt(eps) under an arbitrarily small change of c.
    c_, x1_, x2_ = sp.symbols("c x1 x2", real=True)
    Fa = x1_ ** 2 * ((c_ - x1_) ** 2 + x2_ ** 2 + e) - (c_ * x1_) ** 2 * ((1 - x1_) ** 2 + x2_ ** 2 + e)
    q_ = (1 + c_) * ((x1_ - c_ / (1 + c_)) ** 2 + x2_ ** 2) + (1 + c_) * e - c_ ** 2 / (1 + c_)
    factor_ok = sp.simplify(sp.expand(Fa - x1_ ** 2 * (1 - c_) * q_)) == 0
    c0_sym = sp.sqrt(e) / (1 - sp.sqrt(e))
    c0_ok = sp.simplify((c0_sym / (1 + c0_sym)) ** 2 - e) == 0          # the circle's radius^2 vanishes at c0
    eps_l = 0.2
    c0 = float(c0_sym.subs(e, sp.Rational(1, 5)))                       # (1 + sqrt 5)/4 = 0.809017
    rows_l = []
    for dl in (1e-2, 1e-3, 1e-6):
        ca, cb = c0 + dl / 2, c0 - dl / 2
        m_ = ca / (1 + ca)
        p1 = m_ + math.sqrt(m_ * m_ - eps_l)                             # rightmost point of the circle of c_a
        rows_l.append({"delta_c": dl, "w_j_a": [ca, 0.0], "w_j_b": [cb, 0.0], "point_on_boundary_a": [p1, 0.0],
                       "q_min_b": eps_l * (1 + cb) - cb * cb / (1 + cb),
                       "dist_point_to_boundary_b": p1, "ratio": p1 / dl})
    ce_l = rows_l[1]
    bl = {"wi": [1.0, 0.0], "wja": ce_l["w_j_a"], "wjb": ce_l["w_j_b"], "p": ce_l["point_on_boundary_a"],
          "eps": eps_l}
    lip_expr = ("[float(yatmath.yat.product(np.array(wi), np.array(p), eps) - yatmath.yat.product(np.array(wja), "
                "np.array(p), eps)), eps * (1 + wjb[0]) - wjb[0] ** 2 / (1 + wjb[0]), "
                "abs(p[0]) / abs(wja[0] - wjb[0])]")
    lip_val = [float(v) for v in evaluate(lip_expr, bl)]
    # corroboration on a grid of the unit ball: for c_b, K_i - K_j keeps the sign of x1 (no branch off x1 = 0)
    gg = np.linspace(-1, 1, 401)
    G1, G2 = np.meshgrid(gg, gg, indexing="ij")
    inb = (G1 ** 2 + G2 ** 2 <= 1) & (np.abs(G1) > 1e-9)
    Pts = np.stack([G1[inb], G2[inb]], axis=1)
    diff_b = (_K(np.array([1.0, 0.0]), Pts, eps_l) - _K(np.array(ce_l["w_j_b"]), Pts, eps_l))
    sign_ok_b = bool(np.all(diff_b > 0))
    in_domain = all(abs(r["w_j_a"][0]) <= 1 and abs(r["w_j_b"][0]) <= 1 and r["point_on_boundary_a"][0] <= 1
                    and r["q_min_b"] > 0 for r in rows_l)
    d_min = min(r["dist_point_to_boundary_b"] for r in rows_l)
    lipschitz = Evidence(
        verdict=V.holds(not (factor_ok and c0_ok and in_domain and sign_ok_b and abs(lip_val[0]) <= 1e-12
                             and d_min >= math.sqrt(eps_l) - 1e-12)),
        reading=Reading("the boundary location is Lipschitz in the prototypes on Prop 3's domain: for eps > 0 fixed "
                        "and ||w_i||, ||w_j|| <= 1, some L bounds the Hausdorff distance between the boundaries "
                        "within the unit ball by L times the change of (w_i, w_j)",
                        '000 Thm 21: "Lipschitz-continuous in its parameters (Proposition 3)"; its proof: "Lipschitz '
                        'continuity of the boundary location follows from Proposition 3"; Prop 3: "Fix eps > 0 and a '
                        'weight vector w with ||w||_2 <= 1 ... on the unit ball {x : ||x||_2 <= 1}"'),
        numbers={"sympy_K_i-K_j_numerator_(w_i=(1,0),w_j=(c,0))": "x1^2 (1 - c) q, q = (1+c)[(x1 - c/(1+c))^2 + "
                 "x2^2] + (1+c) eps - c^2/(1+c)", "factorisation_verified": bool(factor_ok),
                 "c0": c0, "c0_formula": "sqrt(eps)/(1 - sqrt(eps)) = (1 + sqrt 5)/4 at eps = 1/5",
                 "isolated_point_at_c0": [math.sqrt(eps_l), 0.0], "family": rows_l,
                 "grid_check_b_no_branch_off_x1=0": sign_ok_b},
        counterexample={"w_i": [1.0, 0.0], "eps": eps_l, "w_j_a": ce_l["w_j_a"], "w_j_b": ce_l["w_j_b"],
                        "boundary_b": "{x1 = 0} exactly (q > 0 for c < c0: q >= (1+c) eps - c^2/(1+c) = "
                                      f"{ce_l['q_min_b']:.6g})",
                        "boundary_a": "{x1 = 0} and the circle (x1 - c/(1+c))^2 + x2^2 = c^2/(1+c)^2 - eps",
                        "point_on_boundary_a": ce_l["point_on_boundary_a"], "K_i - K_j_a at that point": lip_val[0],
                        "hausdorff_distance_at_least": ce_l["dist_point_to_boundary_b"],
                        "parameter_distance": abs(ce_l["w_j_a"][0] - ce_l["w_j_b"][0]), "ratio": lip_val[2],
                        "window": "unit ball (Prop 3)"},
        repro=Repro(lip_expr, bl, expected=lip_val, rtol=1e-9, atol=1e-12,
                    tol_reason="the first entry is K_i - K_j at a point of the circle in closed form (|value| ~ "
                               "1e-16, rounding); the second is q's minimum for c_b (> 0: no branch off x1 = 0); the "
                               "third the distance of that point to {x1 = 0} over |c_a - c_b|"),
        thresholds=[Threshold("d_H between the boundaries for c0 +- delta/2 as delta -> 0 (continuity, a fortiori "
                              "Lipschitz continuity, needs it -> 0)", 0.0, "precision",
                              "exact geometry (sympy): for c < c0 the boundary in the unit ball is {x1 = 0}; for "
                              "c > c0 it holds the point (c/(1+c) + sqrt(c^2/(1+c)^2 - eps), 0), at distance > "
                              "sqrt(eps) from x1 = 0; closed form in float64", d_min, d_min)],
        scope=Scope("symbolic", "a family inside Prop 3's hypotheses (eps = 0.2, |w_i| = 1, |w_j| = c0 +- delta/2 < 1, "
                    "unit ball): d_H >= sqrt(eps) = 0.447 for every delta > 0, so the boundary is not even "
                    "continuous in c at c0", universal=True),
        other_readings={"defining_function_lipschitz": Evidence(
            verdict=V.holds(bool((sum(sp.Symbol(f"t{i}", real=True) ** 2 for i in range(2))
                                  + sp.Symbol("eps", positive=True)).is_positive)),
            reading=Reading("the defining function K_i - K_j is Lipschitz in (w_i, w_j), uniformly for (w, x) in "
                            "a bounded set", "000 Thm 21 read as a property of the function Prop 3 is about"),
            scope=Scope("proof", "K is a rational function of (w, x) with denominator ||w - x||^2 + eps >= eps > 0, "
                        "so grad_w K is continuous, hence bounded on every compact set of (w, x): the mean value "
                        "theorem gives a Lipschitz constant in (w_i, w_j) there", universal=True))},
        notes="With w_i = (1,0), w_j = (c,0), eps = 0.2 (inside Prop 3's setting): K_i - K_j = x1^2 (1 - c) q/(D_i "
              "D_j) (sympy), and q = 0 is the circle centred at (c/(1+c), 0) of radius^2 c^2/(1+c)^2 - eps, empty "
              f"for c < c0 = {c0:.6f}, the point (sqrt(eps), 0) = (0.4472, 0) at c0, a circle for c > c0, all inside "
              "the unit ball. For c_b = c0 - delta/2 the boundary is {x1 = 0}; for c_a = c0 + delta/2 it also holds "
              "a point at distance > sqrt(eps) from it: d_H >= " + ", ".join(
                  f"{r['dist_point_to_boundary_b']:.4f}" for r in rows_l) + " for delta = 1e-2, 1e-3, 1e-6 (ratios "
              + ", ".join(f"{r['ratio']:.3g}" for r in rows_l) + "): the boundary location is not continuous, let "
              "alone Lipschitz, in the parameters; the defining function is (other reading), which is what Prop 3's "
              "regularity can give. The former counterexample (w_j = (1+delta, 0) against (1, delta), a boundary "
              "point at x1 = 2) lay outside Prop 3's domain (|w_j| > 1, |x| = 2); it fits only a reading of Thm 21 "
              "with no domain at all, which this in-domain family refutes as well, so it is not kept (second "
              "reader, this session).")
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
    s_mnist = (10 / math.log(11)) ** 2.68
    M_mnist = 4.79 ** 2 * (4.79 ** 2 + 1.0) / 1.0
    delta = Evidence(verdict=V.NOT_CHECKABLE,
                     numbers={"logit_bound_with_000_MNIST_norms_alpha_eps1": s_mnist * M_mnist,
                              "softmax_bound_1-p_max_lower_bound": 9 * math.exp(-s_mnist * M_mnist)},
                     tried=Tried(
                         printed="002 §4.1 and 001 App E.3 say the softmax 'approaches a delta distribution' as "
                                 "training progresses and print no probability, entropy or margin. The only printed "
                                 "numbers about the trained models are 000 Table 1 / 001 E.8.3 (alpha 1 -> 2.68, mean "
                                 "prototype norm 5.02 -> 4.79, C = 10); they agree with each other (+168%, -4.5%) and "
                                 "do not bound the probabilities.",
                         search="The statement's possible failure was searched through the logit bound of part "
                                "bounded_confidence: with the printed alpha = 2.68, ||w|| = 4.79, C = 10 and eps = 1 "
                                f"(eps is not printed), logits are at most s M = {s_mnist * M_mnist:.3g}, so the "
                                "bound leaves 1 - p_max >= 9 exp(-s M), which is 0 in float64: boundedness does not "
                                "keep the softmax away from a delta, and nothing printed rules it out or in. Whether "
                                "it 'approaches' one is a property of the papers' training trajectories.",
                         budget="Under a millisecond. Deciding needs the trained MNIST models' test-set "
                                "probabilities over training (data and checkpoints unavailable); the UCI-digits "
                                "substitute of yat.exp.* would show a different model's trajectory and decide nothing."),
                     notes="'the softmax approaches a delta distribution during training' refers to the papers' "
                           "trained models (not available).")
    return Evidence.of_parts({"territories": territories, "bounded_confidence": confidence,
                              "softmax_delta_in_training": delta})
