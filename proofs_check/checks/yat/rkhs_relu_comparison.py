"""yat.rkhs_relu_comparison (claims.md A2; 000 Cor 3, Remark 7): ||f||_Yat <= C_{eps,R}
||f||_ReLU (arc-cosine kernel of order 1) on the ball of radius R; Remark 7 is informal.

Every h in H_Yat satisfies |h(x)| <= ||h||_Yat sqrt(k(x,x)) = ||h||_Yat |x|^2 / sqrt(eps)
(Cauchy-Schwarz), while every f in H_ReLU is positively 1-homogeneous (f(t u) = t f(u))."""
from __future__ import annotations

import math

import numpy as np

import yatmath.yat as Y
from yatmath.features import fourier as FF
from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Plot, Reading, Repro, Scope, Tried, register
from proofs_check.support import yat_kernel_theory as C


@register("yat.rkhs_relu_comparison",
          method="Cauchy-Schwarz lower bound |f(x)|/sqrt(k_Yat(x,x)) on ||f||_Yat for f = "
                 "k_ReLU(., z) (||f||_ReLU = 1) as x = t z -> 0; min-norm (Tikhonov 1e-12) Yat "
                 "interpolant norms of ReLU-RKHS functions on m nested points")
def check_rkhs_relu_comparison(ctx):
    d, eps, R = 2, 0.5, 1.0
    z = [1.0, 0.0]
    za = np.array([z])
    ts = np.logspace(-1, -6, 6)
    norm_relu = float(np.sqrt(FF.arccos1_kernel(za, za)[0, 0]))          # = 1
    lbs = []
    for t in ts:
        x = t * za[0]
        lbs.append(float(FF.arccos1_kernel(x[None], za)[0, 0]
                         / math.sqrt(Y.product(x, x, eps, backend="numpy"))))
    # min-norm Yat interpolants of random ReLU-RKHS functions on nested point sets
    rng = ctx.rng("relu")
    ms = ctx.pick([8, 16, 32, 64, 128], [8, 16, 32, 64, 128, 256, 512])
    Xall = C.ball(rng, max(ms), d, R)
    growth = []
    curves = {}
    for k in range(ctx.pick(4, 12)):
        Zc = C.ball(rng, 3, d, R)
        a = rng.standard_normal(3)
        fn = float(np.sqrt(a @ FF.arccos1_kernel(Zc, Zc) @ a))
        ratios = []
        for m in ms:
            X = Xall[:m]
            G = Y.gram(X, eps=eps, backend="numpy")
            lam, U = np.linalg.eigh(G)
            alpha = U @ ((U.T @ (FF.arccos1_kernel(X, Zc) @ a)) / (lam + 1e-12 * lam[-1]))
            ratios.append(float(np.sqrt(max(alpha @ G @ alpha, 0.0))) / fn)
        growth.append(ratios[-1] / ratios[0])
        if k < 3:
            curves[f"f{k}"] = (ms, ratios)
    t_ce = float(ts[-1])
    x_ce = (t_ce * za[0]).tolist()
    lb = lbs[-1]
    diverges = all(lbs[i + 1] > lbs[i] for i in range(len(lbs) - 1))
    lit = Evidence(
        # vacuous truth: the diverging lower bounds show no non-zero f lies in both spaces
        verdict=V.holds(diverges),
        reading=Reading("for f in the intersection H_Yat ∩ H_ReLU, ||f||_Yat <= C ||f||_ReLU",
                        "000 Cor 3: 'For functions f expressible in both RKHSs'"),
        numbers={"lower_bounds": lbs},
        scope=Scope("proof", "proof: f in both is 1-homogeneous along rays and |f(x)| <= "
                    "||f||_Yat |x|^2/sqrt(eps), so f(u) = t^-1 f(t u) -> 0: the intersection is "
                    "{0} and the inequality holds vacuously", universal=True),
        notes="vacuous: the only function in both spaces is 0")
    emb = Evidence(
        verdict=V.holds(not diverges),
        reading=Reading("H_ReLU embeds boundedly in H_Yat on the ball of radius R: every f "
                        "with bounded ReLU-RKHS norm has a Yat-RKHS norm <= C_{eps,R} "
                        "||f||_ReLU",
                        "000 Cor 3: 'Thus, functions with bounded ReLU-RKHS norm also have "
                        "bounded Yat-RKHS norm, and the generalization bound of Theorem 16 "
                        "applies' (Thm 16: compact X with ||x|| <= R); the vacuous reading "
                        "would give Thm 16 nothing to apply to"),
        numbers={"ts": ts.tolist(), "lower_bound_on_||f||_Yat": lbs, "||f||_ReLU": norm_relu,
                 "interpolant_norm_ratio_growth_m_max_over_m_min": growth, "m": ms},
        scope=Scope("proof", "Cauchy-Schwarz in H_Yat: ||f||_Yat >= |f(x)|/sqrt(k(x,x)) = "
                    "sqrt(eps)|f(x)|/|x|^2 for every x; for f = k_ReLU(., z), f(t z) = t, so "
                    "||f||_Yat >= sqrt(eps)/t for all t in (0, R]: f is not in H_Yat",
                    universal=True),
        counterexample=None if not diverges else {
            "f": "k_ReLU(., z), z = (1, 0)", "||f||_ReLU": norm_relu, "eps": eps, "R": R,
            "x": x_ce, "lower_bound_||f||_Yat": lb,
            "why": "the bound sqrt(eps)/t exceeds every constant C as t -> 0"},
        repro=None if not diverges else Repro(
            "float(yatmath.features.fourier.arccos1_kernel(np.array([x]), np.array([z]))[0, 0]"
            " / math.sqrt(yatmath.yat.product(np.array(x), np.array(x), eps)))",
            {"x": x_ce, "z": z, "eps": eps}, expected=lb, rtol=1e-12,
            tol_reason="float64, a few operations on well-scaled numbers"),
        plot=Plot(series={"sqrt(eps)|f(tz)|/|tz|^2": (ts.tolist(), lbs)},
                  reference={"sqrt(eps)/t": (ts.tolist(), [math.sqrt(eps) / t for t in ts])},
                  xlabel="t (x = t z)", ylabel="lower bound on ||f||_Yat (||f||_ReLU = 1)",
                  title="ReLU-RKHS function not in the Yat RKHS"))
    # Remark 7's one factual premise, measured: a random 16-atom Yat expansion stays bounded along
    # rays while a ReLU expansion grows linearly (the generalisation part has no criterion)
    r7 = ctx.rng("remark7")
    W7, c7 = r7.standard_normal((16, d)), r7.standard_normal(16)
    A7, a7 = r7.standard_normal((16, d)), r7.standard_normal(16)
    radii = np.logspace(0, 6, 7)
    U7 = r7.standard_normal((64, d))
    U7 /= np.linalg.norm(U7, axis=1, keepdims=True)
    yat_sup = [float(np.max(np.abs(Y.gram(t * U7, W7, eps=eps, backend="numpy") @ c7))) for t in radii]
    relu_sup = [float(np.max(np.abs(np.maximum(t * U7 @ A7.T, 0.0) @ a7))) for t in radii]
    remark7 = Evidence(
        verdict=V.NOT_CHECKABLE,
        numbers={"radii": radii.tolist(), "sup_over_64_directions_|yat_net|": yat_sup,
                 "sup_over_64_directions_|relu_net|": relu_sup},
        tried=Tried(
            printed="000 Remark 7 (App C.19, after Cor 3) prints no number: its only quantitative anchors are "
                    "Prop 1 (outputs bounded) and Thm 16's rate O(||f*||^2/sqrt n), which it says practical "
                    "networks 'may' beat; no generalisation gap, bound value or experiment is printed to set "
                    "against anything, so there is no pair of printed numbers to compare.",
            search=f"The premise 'Yat outputs remain bounded for large inputs, ReLU outputs are unbounded' was "
                   f"measured on a random 16-atom expansion of each kind (eps = {eps}, d = {d}) along 64 "
                   f"directions for ||x|| = 1..1e6: sup |Yat net| goes {yat_sup[0]:.3g} -> {yat_sup[-1]:.3g} "
                   f"(bounded: the ray limit sum c_i (w_i.u)^2), sup |ReLU net| {relu_sup[0]:.3g} -> "
                   f"{relu_sup[-1]:.3g} (linear growth). The premise holds (it is yat.limit.self_regulation); "
                   "the conclusion 'may achieve better generalization than the worst-case RKHS bounds indicate' "
                   "is hedged ('suggests', 'may') and names no class, bound or data: no choice of the free "
                   "quantities can make it false.",
            budget="Quick spends < 0.1 s on the premise. No budget decides a 'may' statement: a generalisation "
                   "gap measured on any data set would be consistent with it whatever its value."),
        notes=("Remark 7 is informal ('suggests', 'may achieve better generalization'): no "
               "testable criterion. Substitute facts (not deciding): ReLU expansions grow "
               "linearly along rays, Yat atoms stay bounded (yat.limit.self_regulation)."))
    cor3 = Evidence(verdict=emb.verdict, reading=emb.reading, other_readings={"literal": lit},
                    numbers=emb.numbers, scope=emb.scope, counterexample=emb.counterexample,
                    repro=emb.repro, plot=emb.plot)
    return Evidence.of_parts(
        {"cor3": cor3, "remark7": remark7},
        numbers={"lower_bound_at_t_1e-6": lb, "interpolant_norm_growth": growth},
        plot=Plot(series={k: v for k, v in curves.items()}, xlabel="m (interpolation points)",
                  ylabel="||min-norm Yat interpolant|| / ||f||_ReLU",
                  title="Yat interpolant norms of ReLU-RKHS functions"),
        notes=("Cor 3's proof sketch ('product RKHS inherits universality') does not address "
               "norms; the Cauchy-Schwarz bound shows ReLU-RKHS functions are not in H_Yat."))
