"""particles.lemma9_10_regime2 (004 Lemmas 9-10, A.65, A.69, the eps -> 0 steps of A.4.3-A.4.4)."""
from __future__ import annotations

import numpy as np
import sympy as sp
from scipy import special, stats

import yatmath.particles as P
from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Plot, Reading, Repro, Scope, Threshold, register
from proofs_check.support import particles_gibbs_problem as G


PAPER_TYPOS = (
    "Typos of the printed proofs (recorded only; none changes a statement at fixed eps > 0): (i) A.4.4 opens "
    "'Fix eps >= 0', but 'Since g_s^eps and V are bounded, H_s^eps is bounded and continuous' needs eps > 0 "
    "(g_s^0 = g_s is unbounded for s > 0); (ii) Lemma 10's lower bound and the A.69 step reuse eps for the "
    "approximation slack (H(mu_eps) <= e*_eps + eps) while eps is the truncation, so 'letting eps -> 0' must be "
    "read as letting the slack -> 0 at fixed truncation; (iii) Lemma 10 ends 'gives the lower bound >= -e*_M' "
    "for -e*_eps; (iv) A.69 prints inf_G H_{s,M} for inf_G H_s^eps; (v) Lemma 9 says (1/N) log Q_N(U) 'is "
    "bounded below along a subsequence', whereas the Sanov liminf > -inf gives it for all large N (what the "
    "step needs).")

PROOF_LEMMA9 = (
    "Proof (line by line, every nonempty open U of P(Omega), beta_N/N -> inf). (1) Q_N(U) <= 1, so "
    "(1/beta_N) log Q_N(U) <= 0 for every N. (2) rho = Lebesgue/|Omega| (A.4.1) has full support on the compact "
    "Omega, so the measures with a density w.r.t. rho (finite Ent(.|rho)) are weakly dense: U contains some mu0 "
    "with Ent(mu0|rho) = I0 < inf. (3) Sanov's lower bound (A.30; Dembo-Zeitouni Thm 6.2.10) for the open U: "
    "liminf (1/N) log Q_N(U) >= -inf_U Ent >= -I0, so for every delta > 0 and all large N, "
    "(1/N) log Q_N(U) >= -(I0 + delta) (for all large N, not only along a subsequence). (4) Then "
    "(1/beta_N) log Q_N(U) = (N/beta_N)(1/N) log Q_N(U) >= -(N/beta_N)(I0 + delta) -> 0. (1) and (4) give the "
    "limit 0.")

PROOF_LEMMA10 = (
    "Proof (line by line, eps > 0 fixed). H^eps(mu) = int V dmu + (lam/2) int int g^eps dmu dmu with V and "
    "g^eps bounded and continuous on the compact Omega, so H^eps is bounded and weakly continuous (mu_k => mu "
    "implies mu_k x mu_k => mu x mu) and e*_eps = inf H^eps is finite. Upper: H^eps(mu_N) >= e*_eps pointwise, "
    "so Z~ = E[exp(-beta_N H^eps(mu_N))] <= exp(-beta_N e*_eps). Lower: for a slack t > 0 take mu_t with "
    "H^eps(mu_t) <= e*_eps + t and, by continuity, an open U around mu_t with sup_U H^eps <= e*_eps + 2t; then "
    "Z~ >= exp(-beta_N (e*_eps + 2t)) Q_N(U), so (1/beta_N) log Z~ >= -(e*_eps + 2t) + (1/beta_N) log Q_N(U) "
    "-> -(e*_eps + 2t) by Lemma 9; t -> 0 gives liminf >= -e*_eps.")

PROOF_A65 = (
    "Proof of A.65 (F closed, eps > 0 fixed): on {mu_N in F}, exp(-beta_N H^eps(mu_N)) <= "
    "exp(-beta_N inf_F H^eps), so P(mu_N in F) <= exp(-beta_N inf_F H^eps) / Z~; take (1/beta_N) log and the "
    "limsup, and use Lemma 10 (lim (1/beta_N) log Z~ = -e*_eps): limsup <= -(inf_F H^eps - e*_eps).")

PROOF_A69 = (
    "Proof of A.69 (G open, eps > 0 fixed): for mu in G and a slack t > 0 take an open U in G around mu with "
    "sup_U H^eps <= H^eps(mu) + t (continuity); P(mu_N in G) >= P(mu_N in U) >= exp(-beta_N (H^eps(mu) + t)) "
    "Q_N(U) / Z~ and Z~ <= exp(-beta_N e*_eps) (Lemma 10's upper bound), so (1/beta_N) log P(mu_N in G) >= "
    "-(H^eps(mu) - e*_eps + t) + (1/beta_N) log Q_N(U); Lemma 9 sends the last term to 0; t -> 0 and the "
    "infimum over mu in G give liminf >= -(inf_G H^eps - e*_eps).")


def two_point_instance(Ns, *, s=2.0, eps=0.1, a=0.7):
    """The proofs' finite-N inequalities, exactly, on Omega = {-1, 1} with rho uniform (full support), the
    shared potential V and lam, g^eps = min(r^-s, eps^-s), beta_N = N^1.5: mu_N = (1 - k/N, k/N), Q_N is
    Binomial(N, 1/2) and H^eps(q) = V(-1)(1 - q) + V(1) q + (lam/2)(g0 ((1-q)^2 + q^2) + 2 g2 q (1-q)), a
    quadratic in q whose minimum over [0, 1] is e*_eps in closed form.  F = {q >= a} (closed), G = {q > a}."""
    I = P.make_interaction("hard", s, eps)
    g0, g2 = (float(x) for x in I.g(np.array([0.0, 2.0])))
    vm, vp = (float(x) for x in G.v_pot(np.array([-1.0, 1.0])))
    lam = G.LAM

    def H(q):
        return vm * (1 - q) + vp * q + lam / 2 * (g0 * ((1 - q) ** 2 + q ** 2) + 2 * g2 * q * (1 - q))
    A = lam / 2 * (2 * g0 - 2 * g2)
    B = (vp - vm) + lam / 2 * (-2 * g0 + 2 * g2)
    q_star = float(np.clip(-B / (2 * A), 0.0, 1.0))
    e_star = float(H(q_star))
    inf_F = float(min(H(np.clip(q_star, a, 1.0)), H(a), H(1.0)))
    rows = []
    for N in Ns:
        beta = float(N) ** 1.5
        k = np.arange(N + 1)
        logq = stats.binom.logpmf(k, N, 0.5)
        expo = logq - beta * H(k / N)
        logZ = float(special.logsumexp(expo))
        inF, inG = k / N >= a, k / N > a
        kbest = int(np.argmin(H(k / N)))
        rows.append({"N": int(N), "logZ_over_beta": logZ / beta,
                     "lemma10_upper_-e*_minus_value": -e_star - logZ / beta,
                     "lemma10_lower_proof_term": float(-H(kbest / N) + logq[kbest] / beta),
                     "logP_F_over_beta": float(special.logsumexp(expo[inF]) - logZ) / beta,
                     "logP_G_over_beta": float(special.logsumexp(expo[inG]) - logZ) / beta})
    return {"Omega": [-1.0, 1.0], "rho": "uniform on the two points", "s": s, "eps": eps, "lam": lam,
            "g_eps(0), g_eps(2)": [g0, g2], "V(-1), V(1)": [vm, vp], "beta_N": "N^1.5", "q_star": q_star,
            "e_star_eps": e_star, "F": f"q >= {a}", "G": f"q > {a}", "inf_F_H": inf_F,
            "A65_bound": -(inf_F - e_star), "A69_bound": -(inf_F - e_star), "rows": rows}


def _instance_ok(inst, prec):
    """Every finite-N inequality of the proofs holds on the instance (to the float64 precision ``prec``), and
    the gaps to the limits shrink as N grows."""
    r = inst["rows"]
    upper = all(x["lemma10_upper_-e*_minus_value"] >= -prec for x in r)
    lower = all(x["logZ_over_beta"] >= x["lemma10_lower_proof_term"] - prec for x in r)
    a65 = all(x["logP_F_over_beta"] <= -(inst["inf_F_H"]) - x["logZ_over_beta"] + prec for x in r)
    gaps = [abs(x["logZ_over_beta"] + inst["e_star_eps"]) for x in r]
    gapF = [abs(x["logP_F_over_beta"] - inst["A65_bound"]) for x in r]
    shrink = all(b < a for a, b in zip(gaps, gaps[1:])) and all(b < a for a, b in zip(gapF, gapF[1:]))
    return upper and lower and a65 and shrink, {"upper_bound_every_N": upper, "lower_bound_every_N": lower,
                                                 "A65_finite_N_every_N": a65, "gaps_shrink_with_N": shrink,
                                                 "gap_logZ": gaps, "gap_A65": gapF}


@register("particles.lemma9_10_regime2", method="the proofs of Lemmas 9-10, A.65 and A.69 at fixed eps read line "
          "by line; their finite-N inequalities exactly on a two-point Omega (binomial Q_N, beta_N = N^1.5) and "
          "the binomial instance of Lemma 9; grid QP e*_eps for s < d, s = d, s > d; exact cell lower bound of "
          "e*_eps for s > d (every measure)")
def check_lemma9_10(ctx):
    PREC = 1e-9        # float64 logsumexp over <= 1e5 terms of size <= beta_N H ~ 1e9: relative 1e-16 x 1e9 / beta_N
    Ns = np.array([10, 100, 1000, 10000, 100000])
    p, a, h = 0.3, 0.5, 0.05
    logQ, types_lb = [], []
    for N in Ns:
        k = np.arange(np.floor((a - h) * N) + 1, np.ceil((a + h) * N))
        logQ.append(float(special.logsumexp(stats.binom.logpmf(k, N, p))))
        # method of types: Q_N(type k/N) >= exp(-N KL(k/N | p)) / (N + 1), so (1/N) log Q_N(U) >= this
        kl = np.array([float(P.bernoulli_kl(x, p)) for x in k / N])
        types_lb.append(float(-kl.min() - np.log(N + 1) / N))
    scaled = (np.array(logQ) / Ns ** 1.5).tolist()
    kl_U = float(P.bernoulli_kl(a - h, p))
    sanov_lb_ok = all(lq / N >= lb - PREC for lq, lb, N in zip(logQ, types_lb, Ns))
    n_ = sp.Symbol("N", positive=True)
    step4 = sp.limit(-(n_ / n_ ** sp.Rational(3, 2)) * (sp.nsimplify(kl_U) + sp.log(n_ + 1) / n_), n_, sp.oo)
    lemma9 = Evidence(
        V.holds(sanov_lb_ok and step4 == 0 and all(x <= 0 for x in scaled)),
        {"N": Ns.tolist(), "logQ_over_betaN": scaled, "KL_U": kl_U, "logQ_over_N_at_1e5": logQ[-1] / Ns[-1],
         "types_lower_bound_(1/N)logQ": types_lb, "types_lower_bound_holds_every_N": sanov_lb_ok,
         "step4_limit_(sympy, beta_N = N^1.5)": str(step4)},
        reading=Reading("for every nonempty open U of P(Omega) and every beta_N with beta_N/N -> inf, "
                        "(1/beta_N) log Q_N(U) -> 0",
                        '004 A.4.4, Lemma 9: "Assume beta_N/N -> inf. Then for every nonempty open set U of P(Omega), '
                        'lim (1/beta_N) log Q_N(U) = 0", with Q_N = rho^N o mu_N^-1 and rho = Lebesgue/|Omega| '
                        '(A.4.1)'),
        thresholds=[Threshold("(1/N) log Q_N(U) - types lower bound >= 0 at every N (binomial instance)", -PREC,
                              "precision", "float64 logsumexp of binomial log-pmfs",
                              min(lq / N - lb for lq, lb, N in zip(logQ, types_lb, Ns)),
                              min(lq / N - lb for lq, lb, N in zip(logQ, types_lb, Ns)))],
        scope=Scope("proof", "written argument (notes), resting on Sanov's lower bound (the standard theorem) and "
                    "the density of finite-entropy measures; its steps checked on the binomial instance (p = 0.3, "
                    "U = (0.45, 0.55), N to 1e5: the method-of-types lower bound and step (4)'s limit in sympy)",
                    universal=True),
        notes=PROOF_LEMMA9 + " The binomial instance: (1/beta_N) log Q_N -> 0 like -KL_U N^-1/2.")
    inst = two_point_instance(Ns)
    inst_ok, inst_checks = _instance_ok(inst, PREC)
    inst_cov = ("two-point Omega = {-1, 1}, rho uniform, s = 2, eps = 0.1, beta_N = N^1.5, N = 10 ... 1e5 (exact "
                "binomial sums): the proofs' finite-N inequalities hold at every N and the gaps shrink")
    lemma10 = Evidence(
        V.holds(inst_ok),
        {"two_point_instance": inst, "instance_checks": inst_checks},
        reading=Reading("at fixed eps > 0 and beta_N/N -> inf, (1/beta_N) log Z~^eps_N -> -e*_eps",
                        '004 A.4.4, Lemma 10: "Under beta_N/N -> inf, lim (1/beta_N) log Z~^eps_{N,beta_N} = '
                        '-e*_eps", e*_eps = inf_mu H_s^eps(mu) "in R" since "g_s^eps and V are bounded"'),
        thresholds=[Threshold("the finite-N inequalities of the proof on the instance", PREC, "precision",
                              "float64 logsumexp over <= 1e5+1 terms", min(x["lemma10_upper_-e*_minus_value"]
                                                                            for x in inst["rows"]),
                              min(x["lemma10_upper_-e*_minus_value"] for x in inst["rows"]))],
        scope=Scope("proof", "written argument (notes) for every compact Omega with rho of full support and eps > "
                    "0; checked on the instance: " + inst_cov, universal=True),
        notes=PROOF_LEMMA10)
    a65 = Evidence(
        V.holds(inst_ok), {"A65_bound": inst["A65_bound"],
                           "logP_F_over_beta_by_N": [x["logP_F_over_beta"] for x in inst["rows"]]},
        reading=Reading("A.65: limsup (1/beta_N) log P(mu_N in F) <= -(inf_F H^eps - e*_eps) for closed F, eps > 0",
                        "004 A.4.4 (A.65)"),
        scope=Scope("proof", "written argument (notes); the instance: F = {q >= 0.7}", universal=True),
        notes=PROOF_A65)
    a69 = Evidence(
        V.holds(inst_ok), {"A69_bound": inst["A69_bound"],
                           "logP_G_over_beta_by_N": [x["logP_G_over_beta"] for x in inst["rows"]]},
        reading=Reading("A.69: liminf (1/beta_N) log P(mu_N in G) >= -(inf_G H^eps - e*_eps) for open G, eps > 0 "
                        "(printed with H_{s,M}, read H_s^eps: the inequality derived just above it)",
                        "004 A.4.4 (A.66)-(A.69)"),
        scope=Scope("proof", "written argument (notes); the instance: G = {q > 0.7}", universal=True),
        notes=PROOF_A69)
    # e*_eps vs eps on a grid of step eps/4 (grid minimum: an upper bound on e*_eps)
    eps_list = [0.2, 0.1, 0.05]
    est = {}
    for s in (0.5, 1.0, 2.0):
        row = []
        for eps in eps_list:
            xq = np.linspace(-1, 1, int(np.ceil(2 / (eps / 4))) + 1)
            Gq = P.make_interaction("hard", s, eps).g(np.abs(xq[:, None] - xq[None, :]))
            row.append(P.simplex_ground_state(G.v_pot(xq), Gq, G.LAM, restarts=ctx.pick(3, 20),
                                              iters=ctx.pick(300, 2000), rng=ctx.rng(f"e{s}{eps}"))[0])
        est[f"s{s:g}"] = row
    s = 2.0
    epss = [10.0 ** -k for k in range(1, 6)]
    eps_ce = epss[-1]
    lbs = [G.energy_lower_bound(s, e, G.LAM, G.MIN_V) for e in epss]
    bind = {"mv": G.MIN_V, "lam": G.LAM, "eps": eps_ce, "s": s, "length": 2.0}
    # the sandwich at the grid's own eps: exact lower bound <= e*_eps <= grid ground state (an upper bound)
    sandwich = {str(e): {"lower_bound": G.energy_lower_bound(s, e, G.LAM, G.MIN_V), "grid_upper_bound": ub}
                for e, ub in zip(eps_list, est["s2"])}
    consistent = all(v["lower_bound"] <= v["grid_upper_bound"] for v in sandwich.values())
    # e*_eps >= mv + lam eps^-s / (2 ceil(2/eps)) >= mv + lam eps^(1-s) / (2 (2 + eps)) (ceil(2/eps) <= 2/eps + 1)
    e_ = sp.Symbol("epsilon", positive=True)
    lim = sp.limit(sp.nsimplify(G.MIN_V) + sp.nsimplify(G.LAM) * e_ ** (1 - sp.nsimplify(s)) / (2 * (2 + e_)),
                   e_, 0, "+")
    limit = Evidence(
        V.holds(lim.is_finite),                     # the claim needs e* = lim e*_eps finite
        {"s": s, "d": 1, "lim_eps->0_of_the_lower_bound (sympy)": str(lim),
         "e_star_eps_grid_upper_bound_by_eps": {k: dict(zip(map(str, eps_list), row)) for k, row in est.items()},
         "grid_restarts": ctx.pick(3, 20),
         "lower_bound_by_eps": dict(zip(map(str, epss), lbs)),
         "sandwich_s2_at_grid_eps": sandwich, "sandwich_consistent": consistent},
        reading=Reading("the limits eps -> 0 and N -> inf combine: e*_eps ↑ e* (finite) and "
                        "J^eps_s ↑ J_s = H_s - e*, for s > d as in Thm 2",
                        '004 A.4.4: "Thus J^eps_s(mu) ↑ J_s(mu) pointwise, where J_s(mu) = H_s(mu) - '
                        'e*"; Thm 2: "let s > d".'),
        counterexample={"Omega": "[-1, 1]", "V": "-cos(3w)/2 + 0.3w", "lam": G.LAM, "s": s, "d": 1,
                        "eps": eps_ce, "e_star_eps_at_least": lbs[-1]},
        repro=Repro(G.LOWER_BOUND_EXPR, bind, expected=lbs[-1],
                    tol_reason="float64 evaluation of the same closed form"),
        scope=Scope("symbolic", "lower bound e*_eps >= min V + lam eps^-s/(2 ceil(2/eps)) for every "
                    "measure (cells of length eps, Cauchy-Schwarz); grows like eps^(1-s)/4, and its limit as "
                    "eps -> 0 (sympy, s = 2, d = 1) is +oo", universal=True),
        plot=Plot({"lower bound of e*_eps (s=2)": (epss, lbs)}, "eps", "e*_eps", logy=False),
        notes="For s > d, e*_eps -> +inf, so e* = +inf and J_s = H_s - e* is inf - inf: the eps -> 0 "
              "step fails (reading R1 of particles.thm2_ldp). Each bound is listed with its own eps: the lower "
              "bound at eps = 0.1 ... 1e-5, and at the grid's eps = 0.2, 0.1, 0.05 beside the grid ground state "
              "(an upper bound on e*_eps); lower <= upper at every common eps.")
    parts = {"lemma9_sanov_negligible": lemma9, "lemma10_partition": lemma10, "bound_A65": a65,
             "bound_A69": a69, "eps_to_zero_limit": limit}
    return Evidence.of_parts(parts, repro=limit.repro, notes="REFUTED by the eps -> 0 step for s > d. At fixed "
                             "eps > 0, Lemmas 9-10 and the bounds A.65 and A.69 hold: their printed proofs were read "
                             "line by line (written out in each part's notes) and their finite-N inequalities hold "
                             "exactly on a two-point instance. " + PAPER_TYPOS + " Tried (rule 5): the binomial "
                             "instance of Lemma 9 (N to 1e5) with the method-of-types lower bound; the two-point "
                             "instance of Lemma 10, A.65, A.69 (N to 1e5); grid ground states (upper bounds on "
                             "e*_eps) at eps = 0.2, 0.1, 0.05 for s < d, s = d, s > d; the exact lower bound of "
                             "e*_eps for every measure at eps = 0.1 ... 1e-5 and at the grid's eps, and its sympy "
                             "limit as eps -> 0.")
