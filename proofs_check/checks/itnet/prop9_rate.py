"""itnet.prop9_rate (003 Prop 9, App F.5, eq.184)."""
from __future__ import annotations

import math

import numpy as np
import sympy as sp
from scipy.special import erf

from proofs_check import stats
from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Plot, Reading, Repro, Scope, Threshold, Tried, register
from proofs_check.repro import evaluate
from proofs_check.support.itnet_exact_references import of_parts
from proofs_check.support.records import decisive_repro
from yatmath.itnet.measures import grid_rule
from yatmath.itnet.network import gelu

C0 = np.array([0.3, 0.6, 0.45])
EXACT_TOL = 1e-12        # float64 sums of <= 5e5 equal-sign terms of a piecewise-linear function

# u_M(x) = |2 frac(M x) - 1| / (4 sqrt M) at yatmath's M midpoint nodes, and its integral by the composite
# midpoint rule on 2 M K cells (each cell inside one linear piece: exact up to rounding)
SAW_EXPR = ("(lambda H, y, xs: [float(np.abs(H * np.abs(2.0 * ((M * y) % 1.0) - 1.0)).max()), "
            "float(np.mean(H * np.abs(2.0 * ((M * xs) % 1.0) - 1.0))), "
            "float(M * np.mean(H * np.abs(2.0 * ((M * xs) % 1.0) - 1.0)))])"
            "(0.25 / math.sqrt(M), yatmath.itnet.grid_rule('midpoint', (M,)).nodes[:, 0], "
            "(np.arange(2 * M * K) + 0.5) / (2 * M * K))")


def _f(Y):
    return np.exp(-((Y - C0[:Y.shape[1]]) ** 2).sum(1)) * (1 + Y[:, 0])


def _exact(s):
    out = 1.0
    for k in range(s):
        ck = C0[k]
        g = math.sqrt(math.pi) / 2 * (erf(1 - ck) + erf(ck))
        out *= g + (0.5 * (math.exp(-ck ** 2) - math.exp(-(1 - ck) ** 2)) + ck * g if k == 0 else 0.0)
    return out


def _saw(x, M):
    return 0.25 / math.sqrt(M) * np.abs(2.0 * ((M * x) % 1.0) - 1.0)


@register("itnet.prop9_rate",
          method="eq. 184 against a counterexample inside its hypotheses: s = 1, F(u) = int u (kappa* = 1, "
                 "W* = 0), U_c the compact Hoelder-1/2 ball, u_M = |2 frac(Mx) - 1|/(4 sqrt M) vanishing at the "
                 "M quadrature nodes, so every ITNet gives the same node outputs for +u_M and -u_M while "
                 "F(+-u_M) = +-1/(8 sqrt M): the C2 eq. 184 needs grows like sqrt(M)/8 (sympy; checked on "
                 "yatmath's midpoint nodes); smooth-integrand midpoint exponents recorded; the width term has "
                 "unspecified C1, B")
def check_prop9(ctx):
    # ---- the counterexample, in closed form ----
    Ms_ = sp.Symbol("M", positive=True)
    a_M = (1 / (4 * sp.sqrt(Ms_))) / 2              # int_0^1 H |2 frac(Mx) - 1| dx = H/2, H = 1/(4 sqrt M)
    c2_needed = sp.simplify(Ms_ * a_M)                # L_F = C_u = mu(Omega) = 1
    c2_limit = sp.limit(c2_needed, Ms_, sp.oo)
    c2_exponent = float(sp.limit(sp.log(c2_needed) / sp.log(Ms_), Ms_, sp.oo))
    # ---- the same numbers on yatmath's midpoint nodes ----
    Ms = ctx.pick([4, 16, 64, 256, 1024, 4096], [4, 16, 64, 256, 1024, 4096, 16384, 65536])
    K = 4
    rows = []
    for m in Ms:
        y = grid_rule("midpoint", (m,)).nodes[:, 0]
        xs = (np.arange(2 * m * K) + 0.5) / (2 * m * K)
        integral = float(np.mean(_saw(xs, m)))
        rows.append({"M": m, "max_|u_M(node)|": float(np.abs(_saw(y, m)).max()), "int_u_M": integral,
                     "closed_form": float(a_M.subs(Ms_, m)), "C2_needed": m * integral})
    rel_dev = max(abs(r_["int_u_M"] - r_["closed_form"]) / r_["closed_form"] for r_ in rows)
    node_max = max(r_["max_|u_M(node)|"] for r_ in rows)
    # u_M in U_c: Hoelder-1/2 constant on random pairs (bound: min(2HM|x-y|, H) <= H sqrt(2M) |x-y|^1/2)
    rng = ctx.rng("holder")
    n_pairs = ctx.pick(200_000, 1_000_000)
    holder = 0.0
    for m in Ms:
        x1 = rng.random(n_pairs)
        x2 = np.clip(x1 + rng.choice([-1.0, 1.0], n_pairs) * 10 ** rng.uniform(-7, 0, n_pairs), 0.0, 1.0)
        ok = x1 != x2
        holder = max(holder, float(np.max(np.abs(_saw(x1[ok], m) - _saw(x2[ok], m)) / np.abs(x1[ok] - x2[ok]) ** 0.5)))
    holder_bound = math.sqrt(2) / 4
    exact_ok = rel_dev <= EXACT_TOL and node_max <= EXACT_TOL and holder <= holder_bound * (1 + EXACT_TOL)
    verdict = V.holds(bool(c2_limit.is_finite)) if exact_ok else V.INCONCLUSIVE
    m_ce = 4096
    bind = {"M": m_ce, "K": K}
    rep = [float(v) for v in evaluate(SAW_EXPR, bind)]
    # ---- smooth integrands (recorded): the midpoint rule on one smooth integrand, s = 1..3 ----
    grids = {1: [4, 8, 16, 32, 64], 2: [4, 8, 16, 32], 3: [4, 6, 8, 12]}
    fits = {}
    for s, ms in grids.items():
        errs = []
        for m in ms:
            meas = grid_rule("midpoint", (m,) * s)
            errs.append(abs(meas.integrate(_f(meas.nodes)) - _exact(s)))
        fits[s] = stats.loglog_fit([m ** s for m in ms], errs, ctx.rng("prop9"), n_boot=ctx.pick(400, 2000))
    quad = Evidence(
        verdict,
        {"C2_needed_closed_form": str(c2_needed), "C2_needed_limit": str(c2_limit),
         "C2_needed_exponent": c2_exponent, "rows": rows, "max_rel_dev_integral_vs_closed_form": rel_dev,
         "max_|u_M|_at_nodes": node_max, "hoelder_half_constant_measured": holder,
         "hoelder_half_constant_bound": holder_bound, "hoelder_pairs_per_M": n_pairs,
         "smooth_integrand_midpoint_exponents": {str(s): fits[s].to_dict() for s in fits}},
        reading=Reading("for every F, compact U_c, kappa* of Assumption 5 with F L_F-Lipschitz and ||kappa*||_B <= "
                        "B: sup_u ||F(u) - K_theta[u]||_inf <= C1 B C_u mu(Omega)/sqrt(w) + C2 L_F C_u/M^(1/s), C2 "
                        "depending only on the smoothness of the integrand and the rule, for every width w and "
                        "number M of quadrature points",
                        '003 Prop 9 (eq. 184): "C2 depends on the smoothness of the integrand and the quadrature '
                        'rule"; its proof sketch: "replacing the integral with an M-point quadrature introduces '
                        'error O(M^{-r/s}) for r-smooth integrands on s-dimensional compact domains, where r >= 1 '
                        'for continuous integrands"; Assumption 5: "F: U_c -> C(Omega, R^d) is continuous and U_c '
                        'is compact"'),
        counterexample=None if verdict != V.REFUTED else {
            "s": 1, "d": 1, "Omega": "[0, 1]", "mu": "Lebesgue (mu(Omega) = 1)",
            "F": "F(u)(x) = int_0^1 u dy (continuous, L_F = 1)",
            "kappa_star": "1 with W* = 0: K*[u] = F(u) exactly (a constant kernel: finite Barron norm)",
            "U_c": "{u in C[0,1]: ||u||_inf <= 1, |u(x) - u(y)| <= |x - y|^(1/2)} (compact: Arzela-Ascoli; C_u = 1)",
            "u_M": "|2 frac(M x) - 1| / (4 sqrt M), zero at the nodes (j + 1/2)/M", "M": m_ce,
            "sup_error_lower_bound_1/(8 sqrt M)": rep[1], "C2_needed_sqrt(M)/8": rep[2],
            "max_|u_M(node)|": rep[0]},
        repro=Repro(SAW_EXPR, bind, expected=rep, rtol=1e-12, atol=1e-12,
                    tol_reason="float64: the node values are 0 up to the rounding of (M y) mod 1; the integral is "
                               "an exact composite midpoint sum of a piecewise-linear function up to rounding"),
        thresholds=[Threshold("exponent p of the smallest admissible C2(M) = M a_M / (L_F C_u) ~ M^p (eq. 184 "
                              "needs p <= 0: a constant C2)", 0.0, "precision",
                              "exact: a_M = 1/(8 sqrt M) in closed form (sympy); on yatmath's midpoint nodes the "
                              f"integral matches it to {EXACT_TOL:g} relative and u_M vanishes at the nodes to "
                              "float64 rounding", c2_exponent, c2_exponent)],
        scope=Scope("proof", "written argument (notes); sympy for the integral and the limit; float64 check on "
                    f"yatmath's midpoint nodes for M in {Ms}, Hoelder-1/2 constant on {n_pairs} random pairs per M"),
        plot=Plot({"M x (lower bound of the sup error)": (Ms, [r_["C2_needed"] for r_ in rows])}, "M (nodes)",
                  "C2 needed", reference={"sqrt(M)/8": (Ms, [math.sqrt(m) / 8 for m in Ms])}),
        notes="Counterexample inside the hypotheses (s = d = 1): Omega = [0,1], mu Lebesgue, U_c = {u: ||u||_inf <= 1, "
              "|u(x) - u(y)| <= |x - y|^(1/2)} (closed, bounded, equicontinuous: compact; C_u = 1), F(u) = int u dmu "
              "(continuous, L_F = 1); kappa* = 1 and W* = 0 give K*[u] = F(u) exactly with a constant kernel (finite "
              "Barron norm).  For M nodes y_j = (j + 1/2)/M, u_M(x) = |2 frac(Mx) - 1|/(4 sqrt M) is in U_c (Lipschitz "
              "2HM and oscillation H = 1/(4 sqrt M) give |u(x) - u(y)| <= min(2HM|x-y|, H) <= H sqrt(2M) |x-y|^(1/2) "
              "= (sqrt 2/4)|x-y|^(1/2)) and vanishes at every node.  At a node x = y_i every term of "
              "K_theta[+-u_M](y_i) = sum_j omega_j kappa_theta(y_i, y_j, u(y_i), u(y_j)) u(y_j) + W u(y_i) is 0, for "
              "every width, theta and W (with an output bias both signs give the same constant), while F(+-u_M) = "
              "+-1/(8 sqrt M).  So sup_u ||F(u) - K_theta[u]||_inf >= 1/(8 sqrt M) for every ITNet with these M "
              "points.  Letting w -> infinity removes eq. 184's first term; its second, C2/M, is below 1/(8 sqrt M) "
              "once M > 64 C2^2: no constant C2 exists (C2 >= sqrt(M)/8 = "
              f"{math.sqrt(m_ce) / 8:g} at M = {m_ce}).  The step 'r >= 1 for continuous integrands' is where it "
              "fails: the quadrature error of the continuous integrand u_M is M^(-1/2).  No other rule rescues the "
              "bound: for any M nodes Y, u_Y = dist(., Y)^(1/2)/2 is in U_c, vanishes on Y and has int u_Y >= "
              "0.2357/sqrt(M+1) (each of the <= M+1 gaps of length g contributes >= (4/3)(g/2)^(3/2)/2; Jensen).  "
              "The catalogue's second statement, O(M^(-r/s)) for r-smooth integrands, is the standard rate of "
              "product rules of order >= r on C^r integrands; a smooth integrand meets (and beats) M^(-1/s) with "
              "the midpoint rule (recorded: fitted exponents "
              + ", ".join(f"s={s}: {fits[s].slope:.2f}" for s in fits) + "), but the proof applies it with 'r >= 1 "
              "for continuous integrands', and the proposition covers the continuous integrands of every compact "
              "U_c: that is where both statements fail.")
    # the width term: random-feature GELU least squares of a kernel of finite Barron norm (a Gaussian on [-1,1]^4,
    # 2s + 2d = 4 at s = d = 1), sup error on held-out points vs width: an upper bound on the best width-w error
    wrng = ctx.rng("width")
    Zf, Zt = wrng.uniform(-1, 1, (800, 4)), wrng.uniform(-1, 1, (800, 4))
    kstar = lambda Z: np.exp(-(Z ** 2).sum(1))                      # noqa: E731
    ws_, werr = [8, 16, 32, 64, 128], []
    for w in ws_:
        A, b = wrng.normal(0, 2, (w, 4)), wrng.uniform(-2, 2, w)
        feats = lambda Z, A=A, b=b: np.concatenate([gelu(Z @ A.T + b), np.ones((len(Z), 1))], 1)  # noqa: E731
        coef = np.linalg.lstsq(feats(Zf), kstar(Zf), rcond=None)[0]
        werr.append(float(np.abs(feats(Zt) @ coef - kstar(Zt)).max()))
    wfit = stats.loglog_fit(ws_, werr, ctx.rng("width_fit"), n_boot=ctx.pick(200, 1000))
    width = Evidence(
        V.NOT_CHECKABLE, {"random_feature_widths": ws_, "random_feature_sup_error": werr,
                          "random_feature_sup_error_exponent": wfit.to_dict()},
        reading=Reading("sup_{(x,y,a,b) in D} ||kappa* - kappa_theta||_op <= C1 B / sqrt(w_kappa) for a width-w_kappa "
                        "MLP, C1 depending only on 2s + 2d, hence the first term of eq. 184 through eq. 178",
                        '003 Prop 9 proof sketch: "The first term follows from Barron\'s theorem [6]: a single hidden '
                        'layer MLP of width w_kappa approximates functions with bounded Barron norm at rate '
                        'O(1/sqrt(w_kappa)), independent of input dimension"; eq. 184: "C1 depends on the input '
                        'dimension 2s+2d"'),
        notes="C1 B C_u mu(Omega)/sqrt(w): C1 and the Barron norm B of the ideal kernel are unspecified constants and "
              "the cited theorem bounds another norm, so neither a finite width fit nor the reference decides the "
              "term; a random-feature fit of one Barron kernel is recorded as a substitute",
        tried=Tried(
            printed="003 prints for this term only the exponent 1/2 (eq. 184 and 'O(1/sqrt(w_kappa))' in the proof "
                    "sketch, which agree) and no value of C1 or B; the proof sketch says the rate is 'independent of "
                    "input dimension' while eq. 184 says C1 'depends on the input dimension 2s+2d' (words, not "
                    "numbers: a dimension-dependent C1 is the weaker statement and is the one judged); the cited [6] "
                    "(Barron 1993, IEEE Trans. IT 39(3)) proves ||f - f_w||_{L2(mu)} <= 2 C_f/sqrt(w) for a "
                    "probability mu, an L2 bound, whereas eq. 184 and eq. 178 use the sup norm over D: the reference "
                    "does not give the printed sup-norm term, and Lemma 6's sharing of one hidden layer among the "
                    "d^2 entries is not covered by it either",
            search="free: the kernel kappa* (any finite Barron norm B), C1 (any function of 2s + 2d), w. A refutation "
                   "needs a Barron kernel whose best width-w sup error decays slower than w^(-1/2), i.e. the best "
                   "approximation over all weights (non-convex), which no finite search certifies; a confirmation "
                   "needs the sup-norm theorem. Searched as a substitute: GELU random features (weights N(0, 4), "
                   "biases U(-2, 2)) fitted by least squares to exp(-||z||^2) on [-1, 1]^4, held-out sup error "
                   + ", ".join(f"{e:.3g}" for e in werr) + f" at widths {ws_}: exponent {wfit.slope:.2f} (95% CI "
                   f"[{wfit.ci[0]:.2f}, {wfit.ci[1]:.2f}]), an upper bound on the best error, consistent with the "
                   "printed w^(-1/2) for this kernel and silent on the constant and on other kernels",
            budget="quick spends < 1 s on the substitute fit; no budget decides: an unspecified constant C1 B admits "
                   "every finite fit, and a rate over all Barron kernels is a theorem (Barron-type sup-norm bounds "
                   "exist with extra sqrt(log w) or dimension factors in the literature, not in 003)"))
    parts = {"quadrature_term": quad, "width_term": width}
    return of_parts(parts, repro=decisive_repro(parts),
                    numbers={"C2_needed_at_M": {str(r_["M"]): r_["C2_needed"] for r_ in rows},
                             "midpoint_exponents_smooth": {str(s): fits[s].slope for s in fits}})
