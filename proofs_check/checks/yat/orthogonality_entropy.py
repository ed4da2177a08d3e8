"""yat.orthogonality_entropy: orthogonal prototypes (000 Cor 6, 001 App E.7, 002 §4.1)."""
from __future__ import annotations

import numpy as np
import sympy as sp

import yatmath.yat as yat
from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Reading, Repro, Scope, Threshold, Tried, register
from proofs_check.repro import evaluate
from proofs_check.support.yat_simplex_info import (boundary_distance, cross_entropy, kl_divergence,
                                                    plane_dirs, random_sparse_pairs, simplex_product,
                                                    supp_disjoint)


@register("yat.orthogonality_entropy",
          method="symbolic arguments for (1), (2) on the simplex, E.7 and (3) as proved; random real and "
                 "simplex pairs; distance from w_i to the decision boundary (ray scan + brentq) for the "
                 "'maximal separation' reading")
def check_orthogonality_entropy(ctx):
    rng = ctx.rng("orth")
    sym = lambda what: Scope("symbolic", what, universal=True)  # noqa: E731
    m = ctx.pick(2000, 20000)
    A = rng.normal(size=(m, 4))
    B = rng.normal(size=(m, 4))
    B -= (np.sum(A * B, 1) / np.sum(A * A, 1))[:, None] * A
    y_max = float(np.max(np.abs(yat.product(A, B, 0.1, backend="numpy")) / (np.sum(A * A, 1) * np.sum(B * B, 1))))
    p1 = Evidence(verdict=V.holds(True), scope=sym("every w_i, w_j in R^d, eps > 0"),
                  numbers={"proof": "<w_i, w_j> = 0 makes the numerator (w_i.w_j)^2 vanish and D >= eps > 0",
                           "float64_max_|Yat|/(|w_i|^2|w_j|^2)_orthogonalised_pairs": y_max})
    Pd, Qd = random_sparse_pairs(rng, m * 10, 6)
    orth = np.sum(Pd * Qd, 1) == 0.0
    ok2 = bool(np.all(simplex_product(Pd[orth], Qd[orth], 0.1) == 0) and np.all(np.isinf(kl_divergence(Pd[orth], Qd[orth])))
               and np.all(np.isinf(cross_entropy(Pd[orth], Qd[orth]))))
    p2 = Evidence(verdict=V.holds(True), scope=sym("every p, q in the simplex"),
                  numbers={"proof": "p.q = 0 with p, q >= 0 gives disjoint supports; some p_i > 0 has q_i = 0, so "
                                    "KL(p||q) = H(p,q) = inf (yat.simplex.min_similarity)",
                           "orthogonal_simplex_pairs_sampled": int(orth.sum()), "all_zero_KLinf_Hinf": ok2})
    mask = rng.random((m, 6)) < 0.5
    Ai, Bi = rng.normal(size=(m, 6)) * mask, rng.normal(size=(m, 6)) * ~mask
    disj = supp_disjoint(Pd, Qd)
    pE7 = Evidence(verdict=V.holds(True), scope=sym("every pair of real vectors with disjoint supports"),
                   numbers={"proof": "w_i.w_j = sum over the empty common support = 0",
                            "max_|w_i.w_j|_disjoint_real": float(np.max(np.abs(np.sum(Ai * Bi, 1)))),
                            "disjoint_simplex_pairs_all_orthogonal": bool(np.all(orth[disj]))})
    wi, wo, eps = np.array([1.0, 0.0]), np.array([0.0, 1.0]), 0.1
    core = float(yat.product(wi, wi, eps) - yat.product(wo, wi, eps))
    p3 = Evidence(verdict=V.holds(core > 0), scope=sym("every w_i != 0 orthogonal to w_j, eps > 0"),
                  numbers={"proof": "K(w_i,w_i) = ||w_i||^4/eps > 0 = K(w_j,w_i): w_i is not on {K(w_i,.) = K(w_j,.)}",
                           "K(w_i,w_i)-K(w_j,w_i)_example": core})
    # the other reading of (3): no equal-norm configuration puts the boundary further from w_i
    d_orth, x_near = boundary_distance(wi, wo, eps, dirs=plane_dirs(wi, wo, ctx.pick(720, 1440), 0, rng),
                                       r_max=4.0, n_r=ctx.pick(400, 800))
    b = {"wi": [1.0, 0.0], "wj": [0.0, 1.0], "x": [0.5, 0.5], "eps": eps}
    expr = ("[float(yatmath.yat.product(np.array(wi), np.array(x), eps) - yatmath.yat.product(np.array(wj), "
            "np.array(x), eps)), float(np.linalg.norm(np.array(x) - np.array(wi)))]")
    val = evaluate(expr, b)
    r_max = Evidence(
        verdict=V.holds(val[1] >= 1.0),
        reading=Reading("among prototypes w_j of equal norm, the orthogonal one puts the decision boundary "
                        "furthest from w_i", '000 Cor 6(3): "Decision boundaries are maximally separated '
                        'from prototype cores" (title: "Orthogonal Prototypes Induce Maximal Separation")'),
        numbers={"boundary_distance_orthogonal_(ray_scan)": float(d_orth),
                 "boundary_distance_antipodal_w_j=-w_i": 1.0,
                 "antipodal_proof": "K(w,x) = K(-w,x) iff ||w-x|| = ||w+x|| iff w.x = 0: the boundary is the "
                                    "hyperplane w_i.x = 0, at distance ||w_i|| = 1"},
        scope=Scope("instance", "w_i = (1,0), eps = 0.1: the point (.5,.5) lies on the orthogonal pair's "
                    "boundary (symmetry), at distance 0.707 < 1", universal=True),
        counterexample={"w_i": [1.0, 0.0], "w_j_orthogonal": [0.0, 1.0], "w_j_antipodal": [-1.0, 0.0],
                        "boundary_point_orthogonal": [0.5, 0.5], "distance_orthogonal_at_most": val[1],
                        "distance_antipodal": 1.0, "eps": eps},
        repro=Repro(expr, b, expected=val, atol=1e-14,
                    tol_reason="the first entry is an exact 0 up to float64 rounding (symmetric point)"))
    # the real-vector reading, decided over every map to distributions in use (claims.md rule 3: a
    # choice the paper leaves open is settled when every reasonable choice gives the same verdict)
    maps_expr = ("[[float(yatmath.yat.simplex.kl_divergence(m(np.array(wi)), m(np.array(wj)))), "
                 "float(yatmath.yat.simplex.cross_entropy(m(np.array(wi)), m(np.array(wj))))] for m in "
                 "(lambda v: np.exp(v) / np.exp(v).sum(), lambda v: np.abs(v) / np.abs(v).sum(), "
                 "lambda v: v ** 2 / (v ** 2).sum(), lambda v: np.maximum(v, 0) / np.maximum(v, 0).sum())]")
    b_real = {"wi": [1.0, -1.0], "wj": [1.0, 1.0]}
    kl_h = evaluate(maps_expr, b_real)
    map_names = ("softmax", "|w|/||w||_1", "w^2/||w||^2", "max(w,0)/||max(w,0)||_1")
    all_finite = all(np.isfinite(v) for row in kl_h for v in row)
    # the same over random orthogonal real pairs: how often each map gives KL = inf
    Ar, Br = rng.normal(size=(m, 5)), rng.normal(size=(m, 5))
    Br -= (np.sum(Ar * Br, 1) / np.sum(Ar * Ar, 1))[:, None] * Ar
    frac_inf = {}
    for name, f in zip(map_names, (lambda v: np.exp(v) / np.exp(v).sum(1, keepdims=True),
                                   lambda v: np.abs(v) / np.abs(v).sum(1, keepdims=True),
                                   lambda v: v ** 2 / (v ** 2).sum(1, keepdims=True),
                                   lambda v: np.maximum(v, 0) / np.maximum(v, 0).sum(1, keepdims=True))):
        with np.errstate(invalid="ignore", divide="ignore"):
            kl = kl_divergence(f(Ar), f(Br))
        frac_inf[name] = float(np.mean(np.isinf(kl)))
    r_real = Evidence(
        verdict=V.holds(not all_finite),
        reading=Reading("prototypes as arbitrary real vectors: KL(w_i||w_j) = H(w_i,w_j) = inf",
                        '000 Cor 6 hypotheses: "If prototypes satisfy <w_i,w_j> = 0"'),
        numbers={"pair": b_real, "[KL, H]_per_map": dict(zip(map_names, kl_h)),
                 "fraction_KL_inf_random_orthogonal_pairs_d5": frac_inf, "pairs": m},
        counterexample={**b_real, "w_i.w_j": 0.0, "[KL, H]_per_map": dict(zip(map_names, kl_h))},
        repro=Repro(maps_expr, b_real, expected=kl_h, rtol=1e-12,
                    tol_reason="float64 logs of small rationals and exponentials"),
        thresholds=[Threshold("KL(w_i||w_j) = inf under some map to distributions", float("inf"), "precision",
                              "exact: a finite float64 KL is not +inf", max(max(r) for r in kl_h),
                              max(max(r) for r in kl_h))],
        notes="KL and H are defined on distributions; 000 Cor 6 names no map from real prototypes to "
              "distributions, so every map in use was tried: softmax, |w|/||w||_1, w^2/||w||^2 and the "
              "positive part normalised. For the orthogonal pair w_i = (1,-1), w_j = (1,1) each gives a finite "
              "KL(w_i||w_j) and H(w_i,w_j) (values above), and the literal formula on the raw vectors gives "
              "1 ln 1 + (-1) ln(-1), a complex number, not +inf. So under every reading of KL for real vectors "
              "some orthogonal pair has finite KL: refuted (the simplex reading, part 2, holds). Over random "
              "orthogonal pairs in R^5 only the positive-part map ever gives inf (fraction above).")
    p3.reading = Reading("the core w_i does not lie on the decision boundary (what the proof proves)",
                         '000 Cor 6 proof of (3): "Since ||w_i||^4/eps != 0, the prototype core cannot lie '
                         'on the decision boundary"')
    _s = sp.Symbol("s", real=True)          # s = w_j . w_i; the cross-response is s^2 / D, D > 0
    gap = Evidence(
        verdict=V.holds(bool((_s ** 2).is_nonnegative) and sp.solve(_s ** 2, _s) == [0]),
        reading=Reading("'maximal' as the response gap at the core: K(w_i,w_i) - K(w_j,w_i) is largest "
                        "over w_j when K(w_j,w_i) = 0, i.e. for orthogonal w_j",
                        '000 Cor 6 proof of (3) compares the two responses at x = w_i'),
        numbers={"proof": "K(w_j,w_i) = (w_j.w_i)^2/D >= 0 with equality iff w_j.w_i = 0"},
        scope=sym("every w_i, w_j, eps > 0"))
    # rule 5(b): the boundary distance over the angle between equal-norm prototypes, two eps
    scan = {}
    for e_s in (0.1, 1.0):
        row = {}
        for deg in (30, 60, 90, 120, 150, 180):
            ph = np.deg2rad(deg)
            wj_ = np.array([np.cos(ph), np.sin(ph)])
            dist_, _ = boundary_distance(wi, wj_, e_s, dirs=plane_dirs(wi, wj_, ctx.pick(360, 1440), 0, rng),
                                         r_max=4.0, n_r=ctx.pick(200, 800))
            row[str(deg)] = float(dist_)
        scan[f"eps={e_s:g}"] = row
    far = {k: max(v, key=v.get) for k, v in scan.items()}
    p3_stated = Evidence(
        verdict=V.NOT_CHECKABLE,
        numbers={"boundary_distance_from_w_i_by_angle_deg_(|w_i|=|w_j|=1)": scan,
                 "angle_of_largest_distance": far},
        tried=Tried(
            printed="000 Cor 6(3) and its proof print no number: the only quantities are K(w_i,w_i) = "
                    "||w_i||^4/eps and K(w_j,w_i) = 0, which agree with each other and with 000 Thm 3 / 001 App "
                    "E.7 (the self-similarity ||w||^4/eps); 001 and 002 state no part (3). Nothing to contradict.",
            search="'Maximally separated' was given each measure the passage admits and searched over the angle "
                   "phi between equal-norm prototypes (phi = 30..180 deg, eps = 0.1 and 1, ray scan + brentq "
                   "from w_i): the boundary distance is largest at phi = "
                   + ", ".join(f"{a} deg ({k})" for k, a in far.items())
                   + (", i.e. the antipodal prototype, not the orthogonal one" if "90" not in far.values()
                      else ", the orthogonal prototype for some eps")
                   + "; the response gap K(w_i,w_i) - "
                   "K(w_j,w_i) is largest exactly at phi = 90 deg (K >= 0, zero iff orthogonal). The two "
                   "measures disagree, so the verdict depends on which the paper means (other readings).",
            budget="The scan costs well under a second at quick; more angles, eps or dimensions only sharpen "
                   "the two readings' opposite verdicts. What would decide is a measure of 'separation' named "
                   "in the paper, which no budget supplies."),
        reading=Reading("(3) as stated: decision boundaries are maximally separated from prototype cores",
                        '000 Cor 6(3) and its title "Orthogonal Prototypes Induce Maximal Separation"'),
        other_readings={"core_not_on_boundary": p3, "maximal_response_gap": gap,
                        "maximal_boundary_distance": r_max},
        notes="'Maximally' names no measure, and the two natural ones split: the response gap at the core "
              "is maximal for orthogonal w_j (K >= 0, zero iff orthogonal), while the distance from w_i to "
              "the boundary is not (0.707 for w_j = (0,1) against 1 for w_j = -w_i at w_i = (1,0)). The "
              "proof proves only that the core is off the boundary. No testable criterion: NOT_CHECKABLE "
              "(second reader, this session).")
    return Evidence.of_parts(
        {"1_zero_cross_response": p1, "2_simplex_KL_H_infinite": p2, "E7_disjoint_implies_orthogonal": pE7,
         "3_maximal_separation": p3_stated},
        reading=Reading("(1) for real prototypes; (2) for prototypes on the probability simplex; (3) as "
                        "stated, 'maximally separated'",
                        '000 Cor 6(2): "On the probability simplex, this corresponds to KL(w_i||w_j) = inf '
                        '(Theorem 2)"; 000 Cor 6(3): "Decision boundaries are maximally separated from '
                        'prototype cores"'),
        other_readings={"2_real_vectors": r_real},
        notes="(1), (2) and 001 E.7 hold symbolically; (3)'s 'maximally' has no criterion in the paper and "
              "the natural criteria disagree, so the claim is NOT_CHECKABLE. KL/H for real vectors with "
              "negative entries are undefined.")
