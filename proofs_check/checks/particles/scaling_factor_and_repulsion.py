"""particles.scaling_factor_and_repulsion (004 App B after B.10)."""
from __future__ import annotations

import math

import numpy as np
import sympy as sp
from scipy.spatial import cKDTree
from scipy.spatial.distance import pdist

from proofs_check import stats, verdicts as V
from proofs_check.papers import paper_text
from proofs_check.registry import Evidence, Plot, Reading, Repro, Scope, Threshold, Tried, register

PAIR_EXPR = ("(lambda f: f(n2) / f(n1))(lambda N: float(np.mean([np.mean(np.abs(x[:, None] - x[None, :])"
             "[np.triu_indices(N, 1)] ** s) for x in [np.random.default_rng(seed).random(N)]])))")


def _exps(d, Ns, reps, rng):
    pair, nn = [], []
    for N in Ns:
        pv, nv = [], []
        for _ in range(reps):
            Pt = rng.random((N, d))
            pv.append(np.mean(pdist(Pt)))
            dist, _ = cKDTree(Pt).query(Pt, k=2)
            nv.append(np.mean(dist[:, 1]))
        pair.append(pv)
        nn.append(nv)
    return np.array(pair), np.array(nn)


@register("particles.scaling_factor_and_repulsion", method="fitted exponents (bootstrap 95% CI) of the mean "
          "pairwise and nearest-neighbour distance^s (s = 1) of N uniform points in [0,1]^d vs N, d = 1, 2, 3")
def check_scaling(ctx):
    Ns = ctx.pick((50, 100, 200, 400), (50, 100, 200, 400, 800, 1600))
    reps = ctx.pick(5, 20)
    rng = ctx.rng("points")
    fits, series = {}, {}
    for d in (1, 2, 3):
        pr, nn = _exps(d, Ns, reps, rng)
        fp = stats.loglog_fit(Ns, pr, ctx.rng(f"bp{d}"), n_boot=300)
        fn = stats.loglog_fit(Ns, nn, ctx.rng(f"bn{d}"), n_boot=300)
        fits[d] = {"pair": fp.to_dict(), "nn": fn.to_dict(), "claimed": -1.0 / d}
        series[f"pairwise d={d}"] = (list(Ns), pr.mean(1).tolist())
        series[f"nearest d={d}"] = (list(Ns), nn.mean(1).tolist())
    bind = {"n1": 50, "n2": 1600, "s": 1.0, "seed": 0}
    from proofs_check.repro import evaluate
    ratio = float(evaluate(PAIR_EXPR, bind))
    claimed = (1600 / 50) ** (-1.0)
    hi = max(f["pair"]["ci"][1] for f in fits.values())
    lo_pair = min(f["pair"]["ci"][0] for f in fits.values())
    pair_refuted = all(f["pair"]["ci"][0] > f["claimed"] for f in fits.values())
    nn_in_ci = {d: bool(f["nn"]["ci"][0] <= f["claimed"] <= f["nn"]["ci"][1]) for d, f in fits.items()}
    # the proof's explicit sandwich (s = 1): e^-1 (V_d N)^(-1/d) <= E[nearest distance] <= Gamma(1 + 1/d)
    # ((N - 1) d^(-d/2))^(-1/d) + sqrt(d) exp(-(N - 1) 2^-d), against the measured means
    sandwich = {}
    for d in (1, 2, 3):
        vd = math.pi ** (d / 2) / math.gamma(d / 2 + 1)
        lo_b = [math.exp(-1) * (vd * N) ** (-1 / d) for N in Ns]
        hi_b = [math.gamma(1 + 1 / d) * ((N - 1) * d ** (-d / 2)) ** (-1 / d) + math.sqrt(d) * math.exp(-(N - 1) * 2.0 ** -d)
                for N in Ns]
        meas = [float(x) for x in np.array(series[f"nearest d={d}"][1])]
        sandwich[d] = {"lower": lo_b, "measured_mean": meas, "upper": hi_b,
                       "inside": bool(all(a <= m <= b for a, m, b in zip(lo_b, meas, hi_b)))}
    nn_reading = Evidence(
        V.holds(all(v["inside"] for v in sandwich.values()), otherwise=V.INCONCLUSIVE),
        {**{d: f["nn"] for d, f in fits.items()}, "claimed_inside_fit_ci": nn_in_ci, "proof_sandwich_s=1": sandwich},
        reading=Reading("nearest-neighbour distance^s ~ N^{-s/d} (the interparticle spacing)",
                        '004 after B.10: "ensures that N^{s/d} x L_N and U_{N,s} exhibit comparable growth" '
                        '(the hypersingular energy is dominated by nearest neighbours).'),
        thresholds=[Threshold("measured mean nearest distance inside the proof's explicit bounds at every (d, N)",
                              0.0, "precision", "closed-form bounds, float64; the measured means are corroboration",
                              0.0, 0.0)],
        scope=Scope("proof", f"written argument (notes) for N iid uniform points in [0, 1]^d, every d, s > 0; "
                    f"corroborated by d = 1, 2, 3, N in {list(Ns)}, s = 1", universal=True),
        notes="Proof (N iid uniform points in Q = [0, 1]^d, D the distance from one of them to its nearest "
              "neighbour, s > 0). Given the point at x, P(D > r) = (1 - |B(x, r) ∩ Q|)^(N-1). Upper: for r <= "
              "sqrt(d)/2 the ball contains a cube of side r/sqrt(d) inside Q (per coordinate one of [x_i, x_i + "
              "r/sqrt(d)], [x_i - r/sqrt(d), x_i] lies in [0, 1]), so |B ∩ Q| >= d^(-d/2) r^d and P(D > r) <= "
              "exp(-(N-1) d^(-d/2) r^d); beyond, P(D > r) <= exp(-(N-1) 2^-d) and D <= sqrt(d); hence E[D^s] = "
              "int s r^(s-1) P(D > r) dr <= Gamma(1 + s/d) ((N-1) d^(-d/2))^(-s/d) + d^(s/2) exp(-(N-1) 2^-d). "
              "Lower: |B ∩ Q| <= V_d r^d, so for r <= (V_d N)^(-1/d), P(D > r) >= (1 - 1/N)^(N-1) >= e^-1 and "
              "E[D^s] >= e^-1 (V_d N)^(-s/d). Both bounds are constants times N^(-s/d): the exponent is exactly "
              "-s/d. The fitted exponents (recorded) carry the finite-N boundary layer (d = 3: the CI misses -1/3 "
              "at these N), which the proof's constants absorb; the measured means lie inside the explicit "
              "bounds.")
    main = Evidence(
        V.REFUTED if pair_refuted else V.INCONCLUSIVE,
        {"exponents": fits, "pair_ratio_N1600_over_N50": ratio, "claimed_ratio": claimed},
        reading=Reading("the typical PAIRWISE distance^s scales like N^{-s/d}",
                        '004 after B.10: "the typical pairwise distance in potential term scales as '
                        '||omega_k - omega_l||^s ~ N^{-s/d} in d-dimensions".'),
        counterexample={**bind, "d": 1, "points": "uniform on [0, 1] (default_rng(seed))",
                        "mean_pairwise_distance_ratio": ratio, "claimed_ratio": claimed},
        repro=Repro(PAIR_EXPR, bind, expected=ratio, tol_reason="same seed; float64 means"),
        thresholds=[Threshold("claimed -1/d below the lower end of every bootstrap 95% CI of the pairwise "
                              "exponent", 0.95, "statistical", "stats.loglog_fit, replicate bootstrap",
                              lo_pair, lo_pair)],
        scope=Scope("instance", "counterexample: uniform points, the mean pairwise distance does not "
                    "shrink with N", universal=True),
        plot=Plot(series, "N", "mean distance", reference={}),
        other_readings={"nearest_neighbour": nn_reading},
        notes="Pairwise distances of N points in a fixed domain stay O(1) (exponent ~ 0); nearest-"
              "neighbour distances shrink like N^{-1/d}. The operative reading is the printed word "
              "'pairwise'.")
    txt = paper_text("004")
    lines = txt.splitlines()
    fac_lines = [i + 1 for i, ln in enumerate(lines) if "N^{\\frac{s}{d}}" in ln]
    b3 = [(i + 1, ln) for i, ln in enumerate(lines) if "(\\text{B.3})" in ln]
    b4 = [(i + 1, ln) for i, ln in enumerate(lines) if "(\\text{B.4})" in ln]
    if len(b3) != 1 or len(b4) != 1:
        raise LookupError("paper 004: the B.3 / B.4 displays not found once (text changed?)")
    disp = {"B.3": b3[0], "B.4": b4[0]}
    carries = {k: "frac{s}{d}" in ln for k, (_, ln) in disp.items()}
    N_f, s_f, d_f = 300, 8.0, 10           # F.1.2's N = 300 particles in d = p = 10, Coulomb s = d - 2 (App B)
    factor = N_f ** (s_f / d_f)
    formula = Evidence(
        V.holds(any(carries.values()), otherwise=V.REFUTED),
        {"lines_with_N^(s/d)": fac_lines, "display_lines": {k: v[0] for k, v in disp.items()},
         "display_carries_the_factor": carries, "claimed_factor_at_F1.2_Coulomb": factor},
        reading=Reading("the Hamiltonian of B.3 multiplies its loss by N^{s/d}: L_N read as B.3's loss E_N (B.4's "
                        "'population loss function'; no other loss appears in B.3), U_{N,s} as its interaction W_{N,s}",
                        '004 after B.10: "in the definition of Hamiltonian H_N in Eq. (B.3), the scaling factor '
                        'N^{s/d} is multiplied in the loss function L_N ... ensures that N^{s/d} x L_N and U_{N,s} '
                        'exhibit comparable growth"; B.3: "H_N(Omega_N) = E_N(Omega_N) + lambda W_{N,s}(Omega_N)"; '
                        'B.4: "the population loss function is approximated as follows: E_N(Omega_N) = ..."'),
        counterexample={"B.3_as_printed": "H_N = E_N + lambda W_{N,s} (loss coefficient 1)",
                        "claimed_coefficient": "N^{s/d}", "N": N_f, "s": s_f, "d": d_f, "N^(s/d)": factor},
        repro=Repro("N ** (s / d)", {"N": N_f, "s": s_f, "d": d_f}, expected=factor,
                    tol_reason="float64 power"),
        thresholds=[Threshold("coefficient of the loss in B.3 as printed (1) against the stated N^{s/d}", factor,
                              "precision", "exact: the printed display against the sentence", 1.0, 1.0)],
        scope=Scope("consistency", "the whole text of 004: N^{s/d} occurs only in the sentence after B.10; the "
                    "displays B.3 and B.4 (and eq. 2.2, A.35, E.2, A.7) carry no such factor"),
        notes=f"N^(s/d) occurs on line(s) {fac_lines} only, the sentence itself; B.3 (line {disp['B.3'][0]}) and "
              f"B.4 (line {disp['B.4'][0]}) carry no factor, and neither do eq. 2.2, A.35, E.2 or A.7 (the drift "
              "the algorithm uses). With F.1.2's N = 300 particles in d = 10 and the Coulomb s = d - 2 = 8 the "
              f"stated factor would be {factor:.1f}, against B.3's 1. L_N and U_{{N,s}} are named only in that "
              "sentence; read as B.3's two terms (the only loss and interaction it has), the sentence contradicts "
              "the display it describes.")
    stab = Evidence(
        V.NOT_CHECKABLE, {},
        notes="'Numerical simulations confirm that this regularization indeed improves both the "
              "stability ... and the generalization': no such simulation is reported; 'improves' has "
              "no criterion.",
        tried=Tried(
            printed=("the sentence prints no number; the only related evidence 004 prints is Fig. 3 (curves, no "
                     "values) with App F.1.7's words ('nonzero potentials consistently outperform ... lambda = 0 "
                     "... smaller variance') and F.1.2 (6)'s two variants lambda_reg = 0.5 and 0: nothing numeric "
                     "to compare"),
            search=("'stability of the particle system' has no criterion in 004 (rule 3); the accuracy half is "
                    "particles.synthetic.fig3_ablation's comparison (lambda > 0 against lambda = 0), undecided there "
                    "at a reduced horizon; the min-distance effect of the repulsion is immediate (g decreasing) and "
                    "says nothing about generalisation"),
            budget=("the printed ablation (6 lambdas x 2 kernels x 11 sigmas x 10 trials at T_max = 2000, about 9 "
                    "h single-core) would decide the accuracy half; the stability half stays vague whatever the "
                    "budget")))
    # "preventing the particles from collapsing into a single point mass (Dirac delta)" (lambda > 0), per B.10's g_s
    r_, s_, lam_, b_, w_, kap_ = sp.symbols("r s lambda b w kappa", positive=True)
    M_ = sp.Symbol("M", integer=True, nonnegative=True)
    N_ = M_ + 2                                              # N >= 2 particles
    lim_riesz = sp.limit(lam_ * r_ ** (-s_), r_, 0, "+")       # s > 0: g_s = r^-s
    lim_log = sp.limit(-lam_ * sp.log(r_), r_, 0, "+")         # s = 0: g_0 = -log r
    Vf = sp.Function("V")
    v_split = sp.simplify(sp.series(Vf(w_ + r_) + Vf(w_ - r_) - 2 * Vf(w_), r_, 0, 3).removeO().doit())
    a_ = 2 - b_                                              # s in (-2, 0): g_s = -r^a, a = -s = 2 - b in (0, 2)
    d_w = -lam_ / (2 * N_ * (N_ - 1)) * (2 * (2 * r_) ** a_ + 4 * (N_ - 2) * r_ ** a_)
    lead = sp.simplify(sp.limit((kap_ * r_ ** 2 / N_ + d_w) / r_ ** a_, r_, 0, "+"))
    collapse_ok = bool(lim_riesz == sp.oo and lim_log == sp.oo and lead.is_negative
                       and v_split == r_ ** 2 * sp.Derivative(Vf(w_), (w_, 2)))
    collapse = Evidence(
        V.holds(collapse_ok, otherwise=V.INCONCLUSIVE),
        {"lim_{r->0} lambda r^-s (s > 0)": str(lim_riesz), "lim_{r->0} -lambda log r (s = 0)": str(lim_log),
         "V(w+r)+V(w-r)-2V(w) to order r^2": str(v_split),
         "lim_{r->0} (H_N(split) - H_N(Dirac)) / r^a, s = -a in (-2, 0), a = 2 - b": str(lead)},
        reading=Reading("for lambda > 0 the repulsion prevents the N particles from collapsing into one point mass: "
                        "for s >= 0, g_s -> +inf as two particles meet, so a collapsed (or any colliding) "
                        "configuration has H_N = +inf and is excluded from the minimisers, from the support of the "
                        "Gibbs law e^{-beta H_N} and from every energy-decreasing path started at finite energy; for "
                        "s in (-2, 0), g_s = -r^{-s} is bounded, and splitting the Dirac configuration lowers H_N, "
                        "so it is never a local minimiser (V of class C^2)",
                        '004 App B after B.10: "These repulsive interactions act as a regularization mechanism, '
                        'preventing the particles from collapsing into a single point mass (Dirac delta)"; B.10 '
                        '(g_s for s > 0, s = 0, s in (-2, 0)); B.3 H_N = E_N + lambda W_{N,s}'),
        scope=Scope("symbolic", "sympy: lim_{r->0+} lambda r^-s = +inf (s > 0) and -lambda log r = +inf (s = 0); for s "
                    "in (-2, 0), all N >= 2 particles at w, particle 1 moved to w + r u and 2 to w - r u: the loss "
                    "E_N = N^-1 sum V(omega_k) changes by (r^2 u'V''u + o(r^2))/N <= kappa r^2/N (Taylor, sympy), the "
                    "interaction lambda W_{N,s} (B.10, ordered pairs) by -lambda (2 (2r)^a + 4(N-2) r^a)/(2N(N-1)), "
                    "and the ratio of the total to r^a tends to a negative limit (a < 2)", universal=True),
        tried=None if collapse_ok else Tried(
            printed="004 prints no number for the sentence; B.10 fixes g_s",
            search="the sympy limits above did not all come out as the argument needs (see numbers)",
            budget="a symbolic argument; no budget decides it"),
        notes="The energy argument covers the particle Hamiltonian of B.3 with the g_s of B.10 and lambda > 0 (in "
              "d > 1 the Taylor step is taken along the direction u). Neither half applies to the softened kernels "
              "the experiments use (Plummer: smooth at 0; hard truncation: flat near 0): with them collapse has "
              "finite energy and whether it is a minimiser depends on lambda against V's curvature; the sentence is "
              "read with the g_s of B.10 that it follows.")
    return Evidence.of_parts({"distance_scaling": main, "factor_in_B3": formula, "repulsion_improves": stab,
                              "repulsion_prevents_collapse": collapse},
                             notes="REFUTED by the pairwise-distance scaling as printed.")
