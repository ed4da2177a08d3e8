"""particles.thm1_proof_bounds: 004 App A.3 (A.6, A.15-A.18, A.19-A.22)."""
from __future__ import annotations

import numpy as np
import sympy as sp

from proofs_check import stats
from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Plot, Reading, Repro, Scope, Tried, register
from proofs_check.support.particles_meanfield_problem import (particle_run, pde_reference, sample_density,
                                                             w2sq_to_density)
from yatmath.particles.interactions import make_interaction

FORCE_EXPR = "float(yatmath.particles.make_interaction(kind, 0.0, delta).factor(np.array([r * r]))[0] * r)"


def force(kind, delta, r):
    return float(make_interaction(kind, 0.0, delta).factor(np.array([r * r]))[0] * r)


@register("particles.thm1_proof_bounds",
          method="sympy: Lipschitz constant 1/delta^2 and sup 1/(2 delta) of the Plummer force r/(r^2+delta^2) (A.6, "
                 "A.19), C_T/N^2 <= C_T/N (A.16 -> A.18); a written proof of A.18 (synchronous coupling from the iid "
                 "start, A.14, Gronwall; its algebra in sympy) and a counterexample under Thm 1's literal exchangeable "
                 "start; measured E W2^2(mu_N, rho_t) split into a_N (N iid draws) and the rest (recorded, 95% "
                 "t-intervals); the hard-truncated and bare kernels as other readings")
def check_thm1_proof_bounds(ctx):
    r, dl = sp.symbols("r delta", positive=True)
    f = r / (r ** 2 + dl ** 2)                      # |grad g| of the Plummer log kernel g = -log(r^2+delta^2)/2
    fp = sp.simplify(sp.diff(f, r))
    # |f'| <= f'(0) = 1/delta^2: 1/delta^2 - |f'| >= 0, checked on both signs of f'
    lip_ok = (sp.simplify(fp.subs(r, 0) - 1 / dl ** 2) == 0
              and sp.factor(sp.simplify(1 / dl ** 2 - fp)).is_nonnegative is not False
              and sp.simplify((1 / dl ** 2 + fp) * dl ** 2 * (r ** 2 + dl ** 2) ** 2).is_positive is not False)
    crit = sp.solve(sp.Eq(fp, 0), r)
    sup_ok = crit == [dl] and sp.simplify(f.subs(r, dl) - 1 / (2 * dl)) == 0
    # numeric agreement of yatmath's Plummer force with the formula (the kernel the runs use)
    dval = 0.3
    rr = np.geomspace(1e-6, 2.0, 2000)
    lib = np.array([force("plummer", dval, x) for x in rr[::100]])
    form = rr[::100] / (rr[::100] ** 2 + dval ** 2)
    lib_err = stats.rel_err(lib, form)
    a6 = Evidence(V.holds(lip_ok and lib_err <= 1e-12),
                  {"f'(r)": str(fp), "lipschitz_constant": "1/delta^2", "yatmath_force_vs_formula": lib_err},
                  scope=Scope("symbolic", "sympy: f' = (delta^2 - r^2)/(r^2+delta^2)^2, |f'| <= f'(0) = 1/delta^2", universal=True))
    a19 = Evidence(V.holds(bool(sup_ok)), {"argmax": str(crit), "sup": "1/(2 delta)"},
                   scope=Scope("symbolic", "sympy: the only critical point is r = delta, f(delta) = 1/(2 delta)", universal=True))
    N = sp.Symbol("N", positive=True, integer=True)
    a16 = Evidence(V.holds(bool(sp.simplify(1 / N - 1 / N ** 2 - (N - 1) / N ** 2) == 0)),
                   {"1/N - 1/N^2": "(N-1)/N^2 >= 0"},
                   scope=Scope("symbolic", "only the last step: C_T/N^2 <= C_T/N for N >= 1 (A.18 keeps the looser "
                               "term); the Gronwall step from A.16 to A.18 is not checked here but proved in part "
                               "A18_final_bound", universal=True),
                   notes="sympy checks only N^-2 <= N^-1; the Gronwall step (A.15-A.16 -> A.18) is the written "
                         "proof of part A18_final_bound")
    # the W2 split (recorded: an unspecified C_T cannot be confirmed or refuted at finite N)
    t, beta, lam = 0.25, 10.0, 0.5
    inter = make_interaction("plummer", 0.0, dval)
    Ns = np.array(ctx.pick((50, 100, 200, 400), (50, 100, 200, 400, 800)))
    R = ctx.pick(4, 12)
    eta = 0.005
    grid, rho, _ = pde_reference(t, inter, lam, beta)
    meas = np.array([[w2sq_to_density(particle_run(int(n), eta, t, inter, ctx.rng(f"p-{n}-{k}"), lam, beta),
                                      grid.edges, rho) for k in range(R)] for n in Ns])
    rs = ctx.rng("iid")
    aN = np.array([[w2sq_to_density(sample_density(grid, rho, int(n), rs), grid.edges, rho) for _ in range(4 * R)]
                   for n in Ns])
    ratio = meas.mean(axis=1) / (aN.mean(axis=1) + 1.0 / Ns)
    fit = stats.loglog_fit(Ns, meas, ctx.rng("boot"), n_boot=500)
    other = {}
    rb = 1e-8
    hard_jump = force("hard", dval, dval + 1e-9) - force("hard", dval, dval - 1e-9)
    other["hard_truncation"] = Evidence(
        V.holds(abs(hard_jump) <= 1e-6),
        {"force_jump_at_delta": hard_jump},
        counterexample={"kind": "hard", "delta": dval, "r_below": dval - 1e-9, "r_above": dval + 1e-9,
                        "jump": hard_jump},
        repro=Repro(f"{FORCE_EXPR.replace('r * r', 'ra * ra').replace('* r)', '* ra)')} - "
                    f"{FORCE_EXPR.replace('r * r', 'rb * rb').replace('* r)', '* rb)')}",
                    {"kind": "hard", "delta": dval, "ra": dval + 1e-9, "rb": dval - 1e-9}, hard_jump, rtol=1e-6,
                    tol_reason="force values on both sides of the cut, float64"),
        scope=Scope("instance", "the force on both sides of r = delta"),
        reading=Reading("the hard truncation of A.36 as the 'regularised' interaction: A.6 (Lipschitz drift) fails",
                        "004 A.36 (hard truncation used by the Thm 2 proof); A.6"))
    unreg = force("none", 0.0, rb)
    other["unregularised"] = Evidence(
        V.holds(unreg <= 1e6),
        {"drift_at_r=1e-8": unreg},
        counterexample={"kind": "none", "delta": 0.0, "r": rb, "drift": unreg},
        repro=Repro(FORCE_EXPR, {"kind": "none", "delta": 0.0, "r": rb}, unreg, rtol=1e-9),
        scope=Scope("symbolic", "bare log kernel: |grad g| = 1/r, unbounded as r -> 0"),
        reading=Reading("unregularised g: A.19's 'the drift is bounded' (Novikov) fails",
                        '004 A.19: Novikov "holds because ... the drift is bounded"'))
    a6.other_readings = other
    a6.reading = Reading("the regularised (Plummer-softened) interaction of Thm 1's hypotheses",
                         '004 Thm 1 hypotheses: "A Lipschitz, regularised interaction (smoothly regularized or '
                         'collision-free)"')
    r_slope = stats.loglog_slope(Ns, ratio)
    # 95% t-intervals of the two Monte Carlo estimates (R particle runs, 4R iid draws per N)
    m_mean, (m_lo, m_hi) = stats.mean_ci(meas, axis=1)
    a_mean, (a_lo, a_hi) = stats.mean_ci(aN, axis=1)
    # the lower bound a_N >= Var(x)/N used in step (9) of the proof, on the instance (rho_t of the FV reference)
    p_t = rho * grid.h / float(np.sum(rho * grid.h))
    var_t = float(np.sum(p_t * grid.x ** 2) - np.sum(p_t * grid.x) ** 2)
    # the algebra of the written proof, in sympy: Young's inequality of step (3) and the Gronwall extremal of step (5)
    x_, S_, W_, c_, L_, A_, K_, t_, s_ = sp.symbols("x S W c L A K t s", positive=True)
    young_ok = sp.expand(L_ * (5 * x_ ** 2 + S_ ** 2 + W_ ** 2 + c_ ** 2) - 2 * x_ * L_ * (x_ + S_ + W_ + c_)
                         - L_ * ((x_ - S_) ** 2 + (x_ - W_) ** 2 + (x_ - c_) ** 2)) == 0
    u_ = K_ * sp.exp(A_ * t_)
    gronwall_ok = sp.simplify(K_ + A_ * sp.integrate(u_.subs(t_, s_), (s_, 0, t_)) - u_) == 0
    a18_ok = bool(lip_ok and young_ok and gronwall_ok)
    # side reading: Thm 1's literal hypothesis "exchangeable mu_0^N => rho_0" (no initial coupling): iid start from
    # rho_0 shifted by h_N = 1/log N; A.18's left side at t = 0 >= h_N^2, its right side / C_T <= D^2/(2 sqrt N) + 2/N
    n_sym = sp.Symbol("N", positive=True)
    diam = 2.0
    lim_ratio = sp.limit((1 / sp.log(n_sym)) ** 2 / (sp.Integer(2) ** 2 / (2 * sp.sqrt(n_sym)) + 2 / n_sym), n_sym,
                         sp.oo)
    side_N = [1e2, 1e4, 1e8, 1e16, 1e32, 1e64]
    RATIO_EXPR = "[(1 / math.log(n)) ** 2 / (diam ** 2 / (2 * math.sqrt(n)) + 2 / n) for n in N]"
    side_ratio = [(1 / np.log(n_)) ** 2 / (diam ** 2 / (2 * np.sqrt(n_)) + 2 / n_) for n_ in side_N]
    side = Evidence(
        V.holds(lim_ratio.is_finite is True),
        {"limit_of_ratio_as_N_to_inf": str(lim_ratio), "N": side_N, "ratio": side_ratio},
        counterexample={
            "Omega": "[-1, 1] (d = 1, diam D = 2); any admissible V, lambda, beta and regularised g (e.g. the "
                     "instance's Plummer delta = 0.3, lambda = 0.5, beta = 10)",
            "rho_0": "uniform on [-1/2, 1/2]; mu_t the McKean-Vlasov solution from rho_0 (A.12)",
            "initial particles": "iid from rho_0(. - h_N), h_N = 1/log N <= 1/2 for N >= 8 (exchangeable; mu_0^N => "
                                 "rho_0 since h_N -> 0)",
            "eta_N": "small enough that eps_{N,eta}(T) <= 1/N (projected Euler converges strongly at fixed N)",
            "N": side_N, "left side at t = 0, lower bound h_N^2": [(1 / np.log(n_)) ** 2 for n_ in side_N],
            "right side / C_T, upper bound D^2/(2 sqrt N) + 2/N": [diam ** 2 / (2 * np.sqrt(n_)) + 2 / n_
                                                                 for n_ in side_N],
            "ratio (a lower bound on the C_T A.18 needs)": side_ratio},
        repro=Repro(RATIO_EXPR, {"N": side_N, "diam": diam}, side_ratio, rtol=1e-12,
                    tol_reason="float64 arithmetic of the same closed forms"),
        scope=Scope("proof", "written argument (notes) for every N >= 8; the ratios at the listed N illustrate it",
                    universal=True),
        reading=Reading("Thm 1's literal hypothesis: exchangeable initial particles with mu_0^N => rho_0 (no "
                        "coupling of the start with rho_0); A.18 then asserts sup_t E W2^2(mu_t^N, mu_t) <= "
                        "C_T(a_N + 1/N + eps_{N,eta}) with mu_t started from rho_0",
                        '004 Thm 1: "exchangeable mu_0^N => rho_0 d omega"; A.18'),
        notes="Proof (line by line). (1) At t = 0, W2 >= W1 >= |int x d mu_0^N - int x d rho_0| (x is 1-Lipschitz) "
              "and E int x d mu_0^N - int x d rho_0 = h_N, so by Jensen E W2^2(mu_0^N, rho_0) >= h_N^2 = 1/log^2 N. "
              "(2) a_N(T) = sup_s E W2^2(nu_s^N, mu_s) for iid draws from mu_s on an interval of length D: W2^2 <= D "
              "W1 and E W1 = int E|F_N - F| <= int (F(1 - F)/N)^(1/2) <= D/(2 sqrt N), so a_N <= D^2/(2 sqrt N). (3) "
              "eta_N is free (eta_N -> 0 only) and eps_{N,eta} -> 0 as eta -> 0 at fixed N, so eps_{N,eta_N} <= 1/N. "
              "(4) A.18 would need C_T >= h_N^2 / (D^2/(2 sqrt N) + 2/N) for every N; this ratio grows like "
              "sqrt(N)/(2 log^2 N) -> inf (sympy limit: " + str(lim_ratio) + "), so no fixed C_T exists. The "
              "bound lacks an initial-data term (W2^2(mu_0^N, rho_0)) that the operative reading's coupling (same "
              "initial particle, Assumption A.1) makes 0.")
    a18_reading = Reading(
        "A.18 with the particles started iid from rho_0 (Assumption A.1) and coupled to the nonlinear processes "
        "with the same Brownian motion and the same initial particle: sup_{t <= T} E W2^2(mu_t^N, mu_t) <= C_T(a_N(T) "
        "+ N^-1 + eps_{N,eta}(T)) -> 0, for the Lipschitz regularised drift of A.6",
        '004 App E, Assumption A.1: "The particles are initially sampled independently from a probability '
        'distribution mu_0 that admits a Lebesgue density rho_0"; A.3 Step 3: "Couple X_k^N and X_k with the same '
        'Brownian motion and the same initial particle"')
    a18 = Evidence(
        V.holds(a18_ok, otherwise=V.INCONCLUSIVE),
        {"ratio_to_a_N+1/N": ratio.tolist(), "log_ratio_slope_in_log_N": r_slope,
         "E_W2sq_ci95": [[float(lo), float(hi)] for lo, hi in zip(m_lo, m_hi)],
         "a_N_ci95": [[float(lo), float(hi)] for lo, hi in zip(a_lo, a_hi)],
         "Var_rho_t": var_t, "N_a_N_over_Var_rho_t": (Ns * a_mean / var_t).tolist(),
         "sympy_young_step3": bool(young_ok), "sympy_gronwall_step5": bool(gronwall_ok),
         "C_T_from_the_proof": "max(4 L T e^{6LT} + 4, 4 L T D^2 e^{6LT}, 2), D = diam(Omega)"},
        reading=a18_reading, other_readings={"exchangeable_mu0N_to_rho0": side},
        scope=Scope("proof", "written argument (notes), for every Lipschitz regularised drift (A.6, part A6), compact "
                    "convex Omega and iid start from rho_0; sympy checks its algebra (steps 3 and 5)", universal=True),
        tried=None if a18_ok else Tried(
            printed="A.16 prints C_T/N^2 and A.18 C_T N^-1; C_T, a_N and eps_{N,eta} have no printed value",
            search="the proof's algebra failed in sympy (see numbers); the measured split is recorded",
            budget="a proof decides the bound; no budget would"),
        notes="Proof (line by line; X_k^N of A.9, X_k iid copies of A.12, same B_k and same initial particle, iid "
              "from rho_0; L the constant of A.6; D = diam Omega). (1) Delta_k = X_k^N - X_k: the Brownian terms "
              "cancel, so d|Delta_k|^2 = 2 Delta_k . (b[mu_t^{N,(-k)}](X_k^N) - b[mu_t](X_k)) dt + 2 Delta_k . (-n "
              "dL_k^N + n dL_k) with no martingale or Ito term; the reflection term is <= 0 by A.14 (convex Omega); "
              "Delta_k(0) = 0. (2) A.6 bounds the drift difference by L(|Delta_k| + W1(mu_t^{N,(-k)}, mu_t)); with "
              "nu_t^N = N^-1 sum_j delta_{X_j(t)}, W1(mu^{N,(-k)}, mu_t) <= W1(mu^{N,(-k)}, mu^N) + W1(mu^N, nu^N) + "
              "W1(nu^N, mu_t) <= D/N + S + W, since mu^N = mu^{N,(-k)} + (delta_{X_k^N} - mu^{N,(-k)})/N moves mass "
              "1/N at most D, pairing indices gives W1(mu^N, nu^N) <= N^-1 sum |Delta_j| <= S = (N^-1 sum "
              "|Delta_j|^2)^(1/2), and W = W1(nu^N, mu_t) <= W2(nu^N, mu_t). (3) With x = |Delta_k|, 2xL(x + S + W + "
              "D/N) <= L(5x^2 + S^2 + W^2 + D^2/N^2), the difference being L((x - S)^2 + (x - W)^2 + (x - D/N)^2) "
              "(sympy, numbers); averaging over k (mean x^2 = S^2): S^2(t) <= L int_0^t (6 S^2 + W2^2(nu_s^N, mu_s) + "
              "D^2/N^2) ds pathwise. (4) The right side increases in t, so sup_{r<=t} S^2(r) obeys it too; taking "
              "E: e_N(t) <= 6L int_0^t e_N + L int_0^t E W2^2(nu_s^N, mu_s) ds + L T D^2/N^2, which is A.16, and the "
              "middle term is <= L T a_N(T) (A.17: nu_s^N are iid draws from mu_s). (5) Gronwall (extremal K e^{At} "
              "solves u = K + A int u; sympy): e_N(T) <= L T (a_N + D^2/N^2) e^{6LT}. (6) Pairing indices, "
              "W2^2(mu_t^N, mu_t) <= 2 S^2(t) + 2 W2^2(nu_t^N, mu_t); for the chain's empirical law (Thm 1's mu_t^N, "
              "A.8) pairing with X^N adds 2 N^-1 sum |omega_k - X_k^N|^2, whose E sup is eps_{N,eta} (A.11): sup_t E "
              "W2^2 <= 2 eps + 4 e_N + 4 a_N. (7) So sup_t E W2^2 <= C_T(a_N + N^-2 + eps) with C_T = max(4LT e^{6LT} "
              "+ 4, 4LT D^2 e^{6LT}, 2), and N^-2 <= N^-1 (part A16_to_A18): A.18. (8) -> 0: on compact Omega, "
              "E W2^2(nu^N, mu) <= C(d, D) r_d(N) -> 0 uniformly over mu in P(Omega) (Fournier-Guillin 2015, Thm 1), "
              "so a_N(T) -> 0; eps -> 0 is Thm 1's hypothesis. (9) CONFIRMED, not CONFIRMED_LOOSE: the proof's N^-2 "
              "is no better rate than A.18's N^-1, because a_N(T) >= E W2^2(nu_0^N, rho_0) >= E(N^-1 sum_j x_1(X_j(0)) "
              "- m)^2 = Var_{rho_0}(x_1)/N =: c/N with c > 0 (rho_0 has a density), hence a_N + N^-1 <= (1 + 1/c)(a_N "
              "+ N^-2): the two right sides agree up to the free constant C_T. On the instance (rho_0 uniform on "
              f"[-1, 1], t = {t}) N a_N / Var(rho_t) = " + ", ".join(f"{v:.2f}" for v in Ns * a_mean / var_t)
              + " (>= 1 up to Monte Carlo error, as step 9 says). The measured E W2^2 and a_N are Monte Carlo "
              f"estimates ({R} particle runs, {4 * R} iid draws per N) with 95% t-intervals in numbers; at N = "
              f"{int(Ns[0])} a_N = {a_mean[0]:.4f} [{a_lo[0]:.4f}, {a_hi[0]:.4f}] exceeds E W2^2 = {m_mean[0]:.4f} "
              f"[{m_lo[0]:.4f}, {m_hi[0]:.4f}], which A.18 allows (it bounds E W2^2 by C_T times a_N + ..., C_T "
              "free). The Thm 1 literal reading (exchangeable start, no coupling) is refuted beside it "
              "(other reading exchangeable_mu0N_to_rho0).")
    a21 = Evidence(
        V.holds(bool(lip_ok and sup_ok)),
        {"C": "beta L^2 / 4 (L the Lipschitz constant of A.6)", "needs": ["A6_lipschitz", "A19_drift_bounded"]},
        reading=Reading("A.21: D_KL(P~_{N,T} || P_{N,T}) = (1/2) sum_k E~ int_0^T ||u_k||^2 dt <= C N int_0^T "
                        "E~ W2^2(mu_t^N, mu_t) dt, for the regularised interaction",
                        "004 A.19-A.21 (u_k = sqrt(beta/2)(b[mu_t^N] - b[mu_t])(X_k^N))"),
        scope=Scope("proof", "written argument (notes), for the Lipschitz, bounded (regularised) drift of Thm 1",
                    universal=True),
        notes="Proof (line by line). (1) u_k is bounded (the regularised drift is bounded on the compact Omega, "
              "part A19), so Novikov holds and Z_T (A.20) is a martingale: P~ = Z_T P is a probability under which "
              "B~_k = B_k + int u_k are Brownian motions (Girsanov). (2) D_KL(P~ || P) = E~[log Z_T] = E~[-sum_k "
              "int u_k . dB_k - (1/2) sum_k int ||u_k||^2 dt]; with dB_k = dB~_k - u_k dt this is E~[-sum_k int "
              "u_k . dB~_k] + (1/2) sum_k E~ int ||u_k||^2 dt, and the stochastic integral of a bounded integrand "
              "against the P~-Brownian B~_k has mean 0: the equality of A.21. (3) A.6 at the same point with mu = "
              "mu_t^N, nu = mu_t: ||u_k||^2 = (beta/2) ||b[mu_t^N](X_k) - b[mu_t](X_k)||^2 <= (beta/2) L^2 "
              "W1^2 <= (beta/2) L^2 W2^2(mu_t^N, mu_t). (4) Summing over the N particles: (1/2) sum_k E~ int "
              "||u_k||^2 <= (beta L^2 / 4) N int E~ W2^2 dt, the inequality of A.21 with C = beta L^2 / 4.")
    mix_N = [100, 798, 799, 10000]
    mix_rhs = {str(n_): float(np.sqrt(2 * np.log(2) / n_)) for n_ in mix_N}
    a22 = Evidence(
        V.NOT_CHECKABLE, {"general_inequality_counterexample": {
            "Omega": "[0, 1] (diam 1)", "P~": "Unif[0, 1/2]^N (a product)",
            "P": "(Unif[0, 1/2]^N + Unif[1/2, 1]^N) / 2 (exchangeable, not a product)", "KL(P~ || P)": "log 2",
            "E W2^2 lower bound, every coupling": 1 / 24, "A.22 right-hand side by N": mix_rhs}},
        notes="A.22 (Pinsker, E W2^2 <= diam^2 (2 KL/N)^(1/2)) is not decided: the 1/N inside does not follow from "
              "Pinsker alone when the reference law is the interacting, non-product one (second reader, earlier "
              "session); as a general inequality it fails (recorded), but not on the laws A.22 is applied to.",
        tried=Tried(
            printed=("A.22's constant diam(Omega)^2 (2/N)^(1/2) against what its cited tools give: Pinsker, TV <= "
                     "(KL/2)^(1/2), with a maximal coupling (configurations equal with probability 1 - TV, W2^2 <= "
                     "diam^2 otherwise) gives E W2^2 <= diam^2 (KL/2)^(1/2), larger than A.22's by sqrt(N)/2: the "
                     "printed bound is stronger than its justification for N > 4; A.21 (part A21_Girsanov_KL) makes "
                     "KL = O(N int E W2^2), which A.22 needs divided by N"),
            search=("as an inequality between two N-particle laws A.22 fails: P~ = Unif[0, 1/2]^N, P = (Unif[0, "
                    "1/2]^N + Unif[1/2, 1]^N)/2 give KL(P~ || P) = log 2 and, under every coupling, E W2^2 >= (1/2) "
                    "E[(Y - 1/2)^2 | Y ~ Unif[1/2, 1]] = 1/24 (|y - x| >= y - 1/2 when every x <= 1/2 <= y, on the "
                    "half of P where all Y_i >= 1/2), against A.22's (2 log 2 / N)^(1/2) = "
                    + ", ".join(f"{v:.3f} at N = {k}" for k, v in mix_rhs.items())
                    + " (fails for N >= 799); that P is not the law of a particle system with independent Brownian "
                    "noise, so it is no counterexample inside A.22's setting. Marton's transport inequality gives "
                    "the 1/N (with constant 1/2) when the reference law is a product; here the reference P is the "
                    "interacting law and the product is P~, the other argument"),
            budget=("no finite budget: an instance can only refute, and on the Thm 1 instance the expected orders "
                    "(synchronous-coupling E W2^2 ~ 1/N against diam^2 (2 KL/N)^(1/2) ~ N^-1/2 with KL = O(1)) leave "
                    "the bound slack; the universal step needs a transport-entropy inequality for the non-product "
                    "reference law, which 004 does not give")))
    a21 = Evidence.of_parts({"A21_Girsanov_KL": a21, "A22_Pinsker_1/N": a22})
    return Evidence.of_parts(
        {"A6_lipschitz": a6, "A19_drift_bounded": a19, "A16_to_A18": a16, "A18_final_bound": a18,
         "A21_A22_KL_Pinsker": a21},
        numbers={"W2_split": {"N": Ns.tolist(), "E_W2sq": meas.mean(axis=1).tolist(), "a_N": aN.mean(axis=1).tolist(),
                              "E_W2sq_ci95": [[float(lo), float(hi)] for lo, hi in zip(m_lo, m_hi)],
                              "a_N_ci95": [[float(lo), float(hi)] for lo, hi in zip(a_lo, a_hi)],
                              "replicates": {"E_W2sq": R, "a_N": 4 * R}, "ci": "Student t, 95%",
                              "ratio_to_a_N+1/N": ratio.tolist(), "E_W2sq_fit": fit.to_dict(), "eta": eta}},
        plot=Plot({"E W2^2": (Ns.tolist(), meas.mean(axis=1).tolist()), "a_N": (Ns.tolist(), aN.mean(axis=1).tolist())},
                  "N", "W2^2", reference={"1/N": (Ns.tolist(), (1.0 / Ns).tolist())}),
        notes="A.6, A.19's bounded drift and the last A.16 -> A.18 step (N^-2 <= N^-1) hold for the regularised "
              "kernel (sympy); A.18's final bound is proved (part A18_final_bound: synchronous coupling from the iid "
              "start of Assumption A.1, A.14, Gronwall), while under Thm 1's literal 'exchangeable mu_0^N => rho_0' "
              "it is refuted (other reading of that part: no initial-data term); A.21 is proved and A.22's 1/N is "
              "not decided, so the claim is NOT_CHECKABLE. The measured split is recorded with 95% t-intervals "
              "(E W2^2 decays like a_N ~ 1/N). Other readings (hard truncation, bare kernel) are attached to A6.")
