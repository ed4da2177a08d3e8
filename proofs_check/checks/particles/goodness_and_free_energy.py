"""particles.goodness_and_free_energy (004 App A.4.5; Def 5; E.8-E.9 and "concentrates around the
minimizer")."""
from __future__ import annotations

import numpy as np

import yatmath.particles as P
from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Reading, Repro, Scope, register
from proofs_check.support import particles_pc8_gibbs as G

J_BOUND_EXPR = "max(math.cos(3.0 / n) + lam * eps ** (-s) / 2 + 1.0 for n in ns)"


@register("particles.goodness_and_free_energy", method="escape sequence delta_{1/n} in P((0,1)) with "
          "bounded J^eps (regime 2, truncated kernel, exact bound); continuity of E^eps along grid "
          "measures (closed domain); N = 3 Gibbs law by 3-D quadrature as beta grows")
def check_goodness(ctx):
    s, eps, lam = 2.0, 0.05, G.LAM
    it = P.make_interaction("hard", s, eps)
    # regime 2 on Omega = (0, 1) open, V(w) = cos(3w), g^eps = min(r^-s, eps^-s) >= 0:
    # e*_eps >= min V = -1, so J^eps(delta_x) = V(x) + lam g^eps(0)/2 - e*_eps <= cos(3x) + lam eps^-s/2 + 1
    ns = [2, 10, 100, 1000, 10000, 100000]
    Jb = [float(np.cos(3.0 / n) + lam * eps ** -s / 2 + 1.0) for n in ns]
    g0 = float(it.g_at_zero()) if hasattr(it, "g_at_zero") else float(it.g(np.array([0.0]))[0])
    open_dom = Evidence(
        V.REFUTED,
        {"n": ns, "J_eps_delta_1_over_n_upper_bound": Jb, "g_eps_at_0": g0, "eps": eps, "s": s, "lam": lam},
        reading=Reading("Thm 6 on a bounded OPEN Omega: in the regime beta_N/N -> inf the rate "
                        "J_s^eps = H_s^eps - e*_eps (and J_s) has compact sublevel sets in P(Omega)",
                        '004 Thm 6: "Let Omega ⊂ R^d be a bounded open set ... good rate function"; '
                        'A.4 is "Proof of Theorem 6"; A.4.4: "an LDP ... with speed beta_N and good rate '
                        'function J^eps_s"; A.4.5: "the underlying space is bounded, so the sublevel sets '
                        'of E_s are tight". Thm 2 ("bounded") admits open sets too.'),
        counterexample={"Omega": "(0, 1) open", "V": "cos(3w)", "interaction": ["hard", s, eps],
                        "lam": lam, "mu_n": "delta_{1/n}", "n": ns, "J_upper_bound": Jb,
                        "why": "the sublevel set {J^eps <= max J} contains delta_{1/n}, which has no "
                               "weakly convergent subsequence in P((0,1)) (its limit delta_0 is not in "
                               "P((0,1))): not tight, not compact"},
        repro=Repro(J_BOUND_EXPR, {"ns": ns, "lam": lam, "eps": eps, "s": s}, expected=max(Jb),
                    tol_reason="float64 evaluation of the same closed form"),
        scope=Scope("symbolic", "exact bound J^eps(delta_x) <= cos(3x) + lam eps^-s/2 + 1 for every x "
                    "in (0,1), using g^eps(0) = eps^-s and e*_eps >= min V = -1", universal=True),
        notes="Boundedness of Omega gives tightness only for a closed (compact) Omega; on the open "
              "set of Thm 6 mass can escape to the boundary at bounded cost.")
    # other reading: compact Omega = [0, 1]: E^eps is weakly continuous (g^eps bounded continuous)
    Wn = []
    for n in (50, 200, 800):
        x = (np.arange(n) + 0.5) / n
        Wn.append(float(0.5 * np.mean(it.g(np.abs(x[:, None] - x[None, :])))))
    Wlim = float(P.truncated_riesz_energy_uniform(s, eps, 1))
    errs = [abs(w - Wlim) for w in Wn]
    closed = Evidence(
        V.holds(errs[-1] < errs[0], otherwise=V.INCONCLUSIVE),
        {"n": [50, 200, 800], "W_n": Wn, "W_uniform": Wlim, "abs_err": errs},
        reading=Reading("Omega compact (the closure): P(Omega) is compact (Prokhorov) and E^eps is "
                        "weakly continuous, so every sublevel set is compact",
                        '004 B.11: "P_Omega" Euclidean projection onto a closed set; App F.1.2 radius-5 '
                        'ball (closed); §4: "with the boundary condition inherited from projection".'),
        scope=Scope("instance", "continuity of E^eps along grid measures -> uniform on [0, 1] "
                    "(s = 2, eps = 0.05)", universal=False),
        notes="Instance of the continuity the compact-domain argument uses.")
    goodness = Evidence(open_dom.verdict, open_dom.numbers, counterexample=open_dom.counterexample,
                        repro=open_dom.repro, reading=open_dom.reading, scope=open_dom.scope,
                        other_readings={"compact_domain": closed}, notes=open_dom.notes)
    # concentration as beta grows, N = 3, d = 1 on [-1, 1], softened kernel: exact 3-D quadrature
    inter = P.make_interaction(*G.SOFT)
    m = ctx.pick(48, 80)
    x = -1 + (np.arange(m) + 0.5) * (2.0 / m)
    W1, W2, W3 = np.meshgrid(x, x, x, indexing="ij")
    H = (G.v_pot(W1) + G.v_pot(W2) + G.v_pot(W3)) / 3 + G.LAM * (
        inter.g(np.abs(W1 - W2)) + inter.g(np.abs(W1 - W3)) + inter.g(np.abs(W2 - W3))) / 6
    Hmin = float(H.min())
    betas = [1.0, 4.0, 16.0, 64.0, 256.0]
    gaps = []
    for b in betas:
        w = np.exp(-b * (H - Hmin))
        gaps.append(float(np.sum(w * (H - Hmin)) / np.sum(w)))
    conc = Evidence(
        V.NOT_CHECKABLE, {"N": 3, "betas": betas, "E_beta[H] - min H": gaps, "grid": m},
        notes="E.9's 'as beta_N -> inf with N -> inf the Gibbs measure concentrates around the "
              "minimizer' is a general statement with no rate; at fixed N it is the Laplace principle. "
              "The N = 3 instance (mean excess energy falls like 1/beta) is recorded, not decisive. "
              "E.8-E.9 themselves are definitions.")
    return Evidence.of_parts({"goodness": goodness, "concentration": conc},
                             notes="REFUTED: goodness fails on the bounded open Omega of Thm 6 "
                                   "(regime 2); it holds on a compact Omega.")
