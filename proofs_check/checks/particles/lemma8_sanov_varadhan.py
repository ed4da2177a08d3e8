"""particles.lemma8_sanov_varadhan (004 A.30 Sanov; Lemma 8, A.44-A.45; A.46-A.61 tail condition;
the identity Ent(mu|rho) = Ent(mu|l) + log l(Omega))."""
from __future__ import annotations

import numpy as np
import sympy as sp
from scipy import optimize, special, stats as st

import yatmath.particles as P
from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Scope, Threshold, bound_threshold, register

PREC = 1e-10   # float64 logsumexp of binomial pmfs / quadrature sums: relative error far below


def _kl(a, p):
    return float(a * np.log(a / p) + (1 - a) * np.log((1 - a) / (1 - p)))


@register("particles.lemma8_sanov_varadhan", method="exact binomial tails against the Chernoff and "
          "method-of-types sandwich (40 random (p, a), N to 1e4); Donsker-Varadhan at the Gibbs "
          "maximiser plus 40 random measures; multi-start maximisation of |V_D| and |H^eps|; sympy "
          "entropy identity")
def check_lemma8(ctx):
    rng = ctx.rng("sanov")
    Ns = [10, 100, 1000, 10000]
    worst_lo, worst_hi, arg = -np.inf, -np.inf, None
    for _ in range(40):
        p = float(rng.uniform(0.05, 0.9))
        for N in Ns:
            lo_k = int(np.floor(p * N)) + 1
            if lo_k >= N:
                continue
            k = int(rng.integers(lo_k, N))
            a = k / N
            rate = -float(special.logsumexp(st.binom.logpmf(np.arange(k, N + 1), N, p))) / N
            kl = _kl(a, p) if a < 1 else float(-np.log(p))
            lo = kl - rate                                           # Chernoff: rate >= KL
            hi = rate - (kl + np.log(N + 1) / N)                     # types: rate <= KL + log(N+1)/N
            if lo > worst_lo:
                worst_lo = lo
            if hi > worst_hi:
                worst_hi, arg = hi, {"p": p, "N": N, "k": k}
    v_sanov = V.holds(worst_lo <= PREC and worst_hi <= PREC)
    # Donsker-Varadhan for linear F on [-1, 1], rho uniform (trapezoid grid)
    xg = np.linspace(-1, 1, 401)
    fx = np.sin(3 * xg) + 0.5 * xg
    wq = np.full(401, 1 / 400.0)
    wq[[0, -1]] /= 2
    exact = float(special.logsumexp(fx, b=wq))

    def J(pi):
        m = pi > 0
        return float(pi[m] @ (fx[m] - np.log(pi[m] / wq[m])))
    gibbs = wq * np.exp(fx - exact)
    at_gibbs = J(gibbs)
    rg = ctx.rng("dv")
    best, restarts = -np.inf, 40
    for t_ in range(restarts):          # perturbations of the maximiser and random measures
        z = (np.log(gibbs) + rg.standard_normal(401) * 10.0 ** rg.uniform(-4, 0.5)) if t_ % 2 == 0 \
            else rg.standard_normal(401) * 3
        pi = np.exp(z - special.logsumexp(z))
        best = max(best, J(pi))
    v_dv = V.holds(abs(at_gibbs - exact) <= PREC * max(1, abs(exact)) and best <= exact + PREC)
    # |V_D(omega, b)| <= L_phi^2 = 2 for phi = sqrt2 cos (A.52): multi-start maximisation
    r = ctx.rng("V")
    X, y = r.standard_normal((30, 2)), r.choice([-1.0, 1.0], 30)
    H = P.Hamiltonian(X, y, feature="rff", backend="numpy")
    og = r.uniform(-6, 6, (4000, 2))
    bg = r.uniform(0, 2 * np.pi, 4000)
    vals = np.abs(H.potential(og, bg))
    negV = lambda z: -float(abs(H.potential(z[None, :2], z[2:3])[0]))   # noqa: E731
    worst_V, argV = float(vals.max()), np.r_[og[int(vals.argmax())], bg[int(vals.argmax())]]
    for i in np.argsort(vals)[::-1][:20]:
        rr = optimize.minimize(negV, np.r_[og[i], bg[i]], method="Nelder-Mead")
        if -rr.fun > worst_V:
            worst_V, argV = float(-rr.fun), rr.x
    # tail condition |H^eps(mu_N)| <= L_phi^2 + |lam| eps^-s / 2 (hard truncation s = 1, eps = 0.1)
    lam, s, eps = 0.8, 1.0, 0.1
    Hs = P.Hamiltonian(X, y, feature="rff", lam=lam, interaction=("hard", s, eps), backend="numpy")
    C = 2.0 + lam * eps ** -s / 2
    worst_H, argH = 0.0, None
    for t in range(40):
        Om = r.uniform(-3, 3, (20, 2)) * (1e-3 if t < 20 else r.random())   # clustered starts first
        b = r.uniform(0, 2 * np.pi, 20)
        e = abs(Hs.energy(Om, b))
        if e > worst_H:
            worst_H, argH = float(e), {"start": t}
    # entropy identity, symbolic
    pden, L = sp.symbols("p L", positive=True)
    ent = sp.simplify(sp.expand_log(pden * sp.log(pden * L), force=True) - pden * sp.log(pden)
                      - pden * sp.log(L))
    parts = {
        "sanov_A30": Evidence(
            v_sanov, {"max_KL_minus_rate": worst_lo, "max_rate_minus_types_bound": worst_hi,
                      "worst_case": arg, "N": Ns, "draws": 40},
            thresholds=[Threshold("sandwich KL <= -(1/N) log P <= KL + log(N+1)/N holds to 1e-10",
                                  PREC, "precision", "float64 binomial logsf",
                                  max(worst_lo, worst_hi), max(worst_lo, worst_hi))],
            scope=Scope("search", "40 random (p, a = k/N), N in 10..1e4, exact tails; the sandwich "
                        "implies the Sanov limit for two bins", universal=True)),
        "varadhan_linear": Evidence(
            v_dv, {"exact_log_mgf": exact, "J_at_gibbs": at_gibbs, "best_of_40_measures": best},
            thresholds=[Threshold("sup_mu J(mu) - log E e^f <= 1e-10", PREC, "precision",
                                  "float64 sums over a 401-point grid", best - exact, best - exact)],
            scope=Scope("search", "the Gibbs maximiser + 40 random measures (perturbations of it at scales 1e-4..3, and random ones); Gibbs inequality J(mu) = log E e^f - KL(mu|mu*)", universal=True)),
        "V_bound_A52": Evidence(
            V.from_bound(worst_V, 2.0, rtol=1e-12), {"max_abs_V": worst_V, "maximiser": list(argV),
                                                      "L_phi_sq": 2.0},
            thresholds=[bound_threshold("max |V_D| <= L_phi^2 = 2 (phi = sqrt2 cos)", worst_V, 2.0,
                                        source="004 A.52 (|int V dmu| <= L_phi^2), L_phi = sup|phi| = sqrt2")],
            scope=Scope("search", "4000-point screen + 20 Nelder-Mead restarts over (omega, b)", universal=True)),
        "tail_bound_A46": Evidence(
            V.from_bound(worst_H, C, rtol=1e-12), {"max_abs_H": worst_H, "C": C, "maximiser": argH},
            thresholds=[bound_threshold("max |H^eps| <= L_phi^2 + lam eps^-s/2", worst_H, C,
                                        source="004 A.46-A.61")],
            scope=Scope("search", "40 configurations, 20 clustered (near-coincident) ones", universal=True)),
        "entropy_identity": Evidence(V.holds(ent == 0), {"difference": str(ent)},
                                     scope=Scope("symbolic", "integrand identity, sympy", universal=True)),
    }
    return Evidence.of_parts(parts, notes="All parts hold; L_phi = sup|phi| = sqrt2 for the RFF map "
                             "(eq.2.1's [-1, 1] range would give 1; see particles.kernel.feature_range).")
