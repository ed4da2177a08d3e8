"""particles.pde_identities: 004 §4 (equivalent form, gradient flow, dissipation, stationary points); App E.1
(E.5-E.6); App A.3 (A.24-A.29)."""
from __future__ import annotations

import numpy as np
import sympy as sp

import yatmath.particles as P
from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Reading, Scope, Threshold, register
from proofs_check.support.particles_meanfield_problem import V1, dissipation_residual, sympy_identities


def sympy_dissipation_and_gibbs():
    """1-D: mu dx(rho dx mu) = dx(mu rho dx mu) - rho (dx mu)^2 (so with zero flux at the ends
    dF/dt = int mu d_t rho = -int rho |dx mu|^2); and rho = C exp(-beta U) has zero flux rho dx(U + log(rho)/beta)."""
    x = sp.Symbol("x", real=True)
    beta, C = sp.symbols("beta C", positive=True)
    rho, mu, U = sp.Function("rho", positive=True)(x), sp.Function("mu")(x), sp.Function("U")(x)
    ibp = sp.simplify(mu * sp.diff(rho * sp.diff(mu, x), x) - (sp.diff(mu * rho * sp.diff(mu, x), x)
                                                              - rho * sp.diff(mu, x) ** 2)) == 0
    g = C * sp.exp(-beta * U)
    gibbs = sp.simplify(g * sp.diff(U + sp.log(g) / beta, x)) == 0
    return {"integration_by_parts": bool(ibp), "gibbs_zero_flux": bool(gibbs)}


@register("particles.pde_identities",
          method="sympy (gradient-flow form, Robin, beta -> inf, integration by parts of the dissipation, zero flux of "
                 "Gibbs densities) in 1-D; FV (SG, upwind) monotone F_h and the discrete dissipation (recorded); damped "
                 "fixed points from several rho_0 (Plummer, hard; several lambda): Gibbs residual, distances")
def check_pde_identities(ctx):
    sym = sympy_identities()
    sym2 = sympy_dissipation_and_gibbs()
    sym_scope = Scope("symbolic", "sympy, generic smooth rho > 0, U, mu in 1-D (the multi-d identities are the same "
                                  "algebra with div/grad)", universal=True)
    forms = Evidence(V.holds(sym["gradient_flow_form"] and sym["noflux_equals_robin/beta"]),
                     {k: bool(v) for k, v in sym.items()}, scope=sym_scope,
                     reading=Reading("'(4.5)' taken as eq. 4.4 with its no-flux boundary condition",
                                     "004 §4: the no-flux condition (4.5) accompanies (4.4)"))
    diss = Evidence(V.holds(sym2["integration_by_parts"]), {"integration_by_parts": sym2["integration_by_parts"]},
                    scope=sym_scope, notes="dF/dt = int mu d_t rho with mu = dF/drho = V + lambda g*rho + (log rho + 1)/"
                                           "beta (g symmetric); d_t rho = dx(rho dx mu); the boundary term vanishes by "
                                           "no-flux, leaving -int rho |dx mu|^2 <= 0")
    stat = Evidence(V.holds(sym2["gibbs_zero_flux"]), {"gibbs_zero_flux": sym2["gibbs_zero_flux"]}, scope=sym_scope,
                    notes="stationary with no flux => rho dx mu = 0 => mu constant where rho > 0 => rho proportional to "
                          "exp(-beta (V + lambda g*rho)); uniqueness is not claimed")
    lim = Evidence(V.holds(sym["beta_inf_flux_limit"]), {"beta_inf_flux_limit": bool(sym["beta_inf_flux_limit"])},
                   scope=sym_scope, notes="flux rho dx U + dx rho / beta -> rho dx U (E.6)")
    # FV evidence (recorded; the discrete scheme is a substitute, it does not decide)
    M = ctx.pick(200, 400)
    beta = 20.0
    grid = P.FVGrid.interval(-1.0, 1.0, M)
    x = grid.x
    rho0 = 1.0 + 0.8 * np.sin(np.pi * x)
    mono = {}
    for flux in ("sg", "upwind"):
        model = P.McKeanVlasovFV(grid, V1, lam=0.5, interaction=("plummer", 0.0, 0.1), beta=beta, flux=flux)
        res = model.run(rho0, ctx.pick(0.2, 1.0))
        F = np.array(res.free_energy)
        mono[flux] = {"max_rel_increase": float(np.max(np.diff(F)) / max(1.0, abs(F[0]))), "steps": res.steps}
    model = P.McKeanVlasovFV(grid, V1, lam=0.5, interaction=("plummer", 0.0, 0.1), beta=beta)
    rho_mid = model.run(rho0, 0.05).rho
    dFdt, dd = dissipation_residual(model, rho_mid, 0.25 * model.stable_dt(rho_mid))
    starts = {"uniform": np.ones(M), "peaked_left": np.exp(-((x + 0.7) / 0.1) ** 2) + 1e-3,
              "random": ctx.rng("rho0").uniform(0.1, 1.0, M)}
    max_res, max_dist = 0.0, 0.0
    for kname, inter in (("plummer", ("plummer", 0.0, 0.1)), ("hard", ("hard", 0.0, 0.1))):
        for lam in ctx.pick((0.5, 2.0), (0.5, 2.0, 5.0)):
            m = P.McKeanVlasovFV(grid, V1, lam=lam, interaction=inter, beta=beta)
            sols = []
            for r0 in starts.values():
                r, info = m.stationary(r0, tol=1e-13, max_iter=ctx.pick(20000, 100000))
                sols.append(r)
                max_res = max(max_res, info["residual"])
            max_dist = max(max_dist, max(grid.h * np.sum(np.abs(a - b)) for i, a in enumerate(sols) for b in sols[i + 1:]))
    fv_stat = Evidence(
        V.holds(max_res <= 1e-10),
        {"max_gibbs_fixed_point_residual": max_res, "max_L1_between_steady_states": max_dist},
        thresholds=[Threshold("fixed-point residual <= 1e-10", 1e-10, "precision",
                              "float64 damped iteration stopped at tol 1e-13; residual 1e-10 is >> rounding", max_res,
                              max_res)],
        scope=Scope("instance", "1-D FV, Plummer and hard kernels, lambda in {0.5, 2}, three rho_0"),
        notes="every FV steady state found is a self-consistent Gibbs density")
    return Evidence.of_parts(
        {"equivalent_form_and_robin": forms, "dissipation_identity": diss, "stationary_are_gibbs": stat,
         "beta_to_inf_E6": lim, "fv_steady_states": fv_stat},
        numbers={"fv_free_energy_monotone": mono, "fv_dF/dt": dFdt, "fv_minus_int_rho_grad_mu^2": dd,
                 "fv_dissipation_rel_diff": abs(dFdt - dd) / abs(dd)},
        notes="the FV free energy and the discrete dissipation identity are recorded as substitutes (O(h) face "
              "averaging), they do not decide")
