"""Helpers of the 004 mean-field checks (particles.thm1_mean_field, thm1_proof_bounds, pde_identities).

The common 1-D test problem (algorithms.md §P4): Omega = [-1, 1], V = -cos(3w)/2 + 0.3 w, a softened
interaction; particles run the yatmath projected Langevin iteration (eq. 4.3), the PDE (4.4)-(4.5) the
yatmath finite-volume solver (SG flux).
"""
from __future__ import annotations

import numpy as np
import sympy as sp

import yatmath.particles as P


def sample_density(grid, rho, n, rng):
    """n i.i.d. draws from the piecewise-constant density rho on the 1-D grid."""
    p = rho * grid.h
    cells = rng.choice(len(rho), size=n, p=p / p.sum())
    return grid.edges[cells] + grid.h * rng.random(n)


def stat_trend(ci, *, sign):
    """Verdict of a 95% interval of an exponent: the claimed trend has sign ``sign`` (-1: decreasing).
    CONFIRMED when the interval excludes 0 on the claimed side, REFUTED when it excludes 0 on the other,
    INCONCLUSIVE otherwise."""
    lo, hi = ci
    if (hi < 0 and sign < 0) or (lo > 0 and sign > 0):
        return "CONFIRMED"
    if (lo > 0 and sign < 0) or (hi < 0 and sign > 0):
        return "REFUTED"
    return "INCONCLUSIVE"


def V1(W):
    return -0.5 * np.cos(3.0 * W[:, 0]) + 0.3 * W[:, 0]


def gV1(W):
    return 1.5 * np.sin(3.0 * W) + 0.3


def pde_reference(t, inter, lam=0.5, beta=10.0, M=400):
    """(grid, rho_t, FVResult) for rho_0 uniform on [-1, 1] (SG flux, explicit, stable dt)."""
    grid = P.FVGrid.interval(-1.0, 1.0, M)
    model = P.McKeanVlasovFV(grid, V1, lam=lam, interaction=inter, beta=beta, flux="sg")
    res = model.run(np.ones(M), t)
    return grid, res.rho, res


def particle_run(N, eta, t, inter, rng, lam=0.5, beta=10.0):
    """Particles of eq.4.3 (N, eta) from i.i.d. uniform rho_0, at time t = m eta; shape (N,)."""
    H = P.FieldHamiltonian(V1, gV1, lam=lam, interaction=inter, backend="auto")
    dom = P.Interval(-1.0, 1.0)
    Om = rng.uniform(-1.0, 1.0, (N, 1))
    for _ in range(round(t / eta)):
        Om, _ = P.langevin_step(H, Om, eta, beta, rng, domain=dom)
    return Om[:, 0]


def coupled_runs(N, etas, fine, t, inter, rng, lam=0.5, beta=10.0):
    """mean cos(pi w) at time t for one set of i.i.d. uniform initial particles run with every
    step in ``etas`` (multiples of ``fine``) on the SAME Brownian path: the increment of a coarse
    step is the normalised sum of the fine Gaussian draws it spans.  Each step is the printed
    update P(w - eta N grad H_N + sqrt(2 eta/beta) xi) built from the yatmath drift and
    projection (equal to :func:`yatmath.particles.langevin_step` given the same xi; tested)."""
    H = P.FieldHamiltonian(V1, gV1, lam=lam, interaction=inter, backend="auto")
    dom = P.Interval(-1.0, 1.0)
    Om0 = rng.uniform(-1.0, 1.0, (N, 1))
    nf = round(t / fine)
    xi = rng.standard_normal((nf, N, 1))
    out = {}
    for e in etas:
        k = round(e / fine)
        Om = Om0.copy()
        for m in range(nf // k):
            z = xi[m * k:(m + 1) * k].sum(axis=0) / np.sqrt(k)
            Om = printed_step(H, Om, e, beta, z, dom)
        out[e] = float(np.mean(np.cos(np.pi * Om)))
    return out


def printed_step(H, Om, eta, beta, xi, dom):
    """P_Omega(Om - eta N grad H_N(Om) + sqrt(2 eta/beta) xi) with a given Gaussian draw xi."""
    D, _ = H.drift(Om)
    return dom.project(Om - eta * D + np.sqrt(2.0 * eta / beta) * xi)


def w2sq_to_density(x, edges, rho, n_u=20000):
    """W2^2 between the empirical law of 1-D points x and the piecewise-constant density rho:
    int_0^1 (F_N^{-1}(u) - F^{-1}(u))^2 du by the midpoint rule in u (n_u nodes; the integrand
    is piecewise smooth, error ~1e-4 relative here)."""
    x = np.sort(np.asarray(x, dtype=np.float64))
    mass = np.concatenate([[0.0], np.cumsum(rho * np.diff(edges))])
    cdf = mass / mass[-1]
    u = (np.arange(n_u) + 0.5) / n_u
    q_rho = np.interp(u, cdf, edges)
    q_N = x[np.minimum((u * len(x)).astype(int), len(x) - 1)]
    return float(np.mean((q_N - q_rho) ** 2))


def lipschitz_estimates(inter, hs=(1e-3, 1e-4, 1e-5), r_max=2.0):
    """max |f(r+h) - f(r)|/h of the radial force f(r) = c(r^2) r on [0, r_max] for grid steps hs
    (a finite Lipschitz constant gives estimates that settle as h -> 0; a jump or a singularity
    gives estimates growing like 1/h)."""
    out = []
    for h in hs:
        r = np.arange(0.0, r_max, h) + h / 2
        f = inter.factor(r * r) * r
        out.append(float(np.max(np.abs(np.diff(f))) / h))
    return out


def drift_sup(inter, lam=1.0, r_mins=(1e-4, 1e-8)):
    """sup over two-particle configurations |omega_1 - omega_2| = r >= r_min of the interaction
    drift lam |grad g(r)| (N = 2), for decreasing r_min."""
    out = []
    for rm in r_mins:
        r = np.geomspace(rm, 2.0, 20000)
        out.append(float(lam * np.max(inter.factor(r * r) * r)))
    return out


def sympy_identities():
    """1-D symbolic checks: (4.4) <=> the gradient-flow form; flux <=> Robin; beta -> inf."""
    x, beta = sp.Symbol("x", real=True), sp.Symbol("beta", positive=True)
    rho, U = sp.Function("rho", positive=True)(x), sp.Function("U")(x)
    pde = sp.diff(rho * sp.diff(U, x), x) + sp.diff(rho, x, 2) / beta
    gf = sp.diff(rho * sp.diff(U + sp.log(rho) / beta, x), x)
    J = rho * sp.diff(U, x) + sp.diff(rho, x) / beta
    robin = sp.diff(rho, x) + beta * rho * sp.diff(U, x)
    return {"gradient_flow_form": sp.simplify(pde - gf) == 0,
            "noflux_equals_robin/beta": sp.simplify(J - robin / beta) == 0,
            "beta_inf_flux_limit": sp.simplify(sp.limit(J, beta, sp.oo) - rho * sp.diff(U, x)) == 0,
            "beta_inf_robin/beta_limit": sp.simplify(sp.limit(robin / beta, beta, sp.oo)
                                                     - rho * sp.diff(U, x)) == 0}


def dissipation_residual(model, rho, dt):
    """(dF_h/dt at the middle of two explicit steps (centred difference), -int rho |d(U + log(rho)/beta)|^2
    on faces with rho_face the mean of its two cells): the dissipation identity, discretised."""
    g = model.grid
    r1 = model.step_explicit(rho, dt)
    r2 = model.step_explicit(r1, dt)
    dFdt = (model.free_energy(r2) - model.free_energy(rho)) / (2 * dt)
    U = model.potential(r1)
    mu = U + np.log(r1) / model.beta
    L, Rr = g.face_l, g.face_r
    diss = -g.h * np.sum(0.5 * (r1[L] + r1[Rr]) * ((mu[Rr] - mu[L]) / g.h) ** 2)
    return float(dFdt), float(diss)


