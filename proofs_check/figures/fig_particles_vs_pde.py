"""Particles against the McKean-Vlasov density over time, 1-D (004 Thm 1, eqs 4.3-4.5; algorithms.md
§P3-P5).  This module also holds the 1-D problem shared by the other ``fig_particles_*`` figures.

The problem (the spec's sanity run of §P4, started from a bump):

    Omega = [-1, 1],  V(w) = -cos(3 w)/2 + 0.3 w,  g(r) = -ln(r^2 + delta^2)/2 (Plummer log, s = 0),
    lambda = 0.5, beta = 20, delta = 0.1,  rho_0 ∝ exp(-(w - 0.4)^2 / (2 * 0.15^2)).

* The PDE d_t rho = div(rho grad(V + lambda g * rho)) + beta^{-1} Laplace rho with no flux is solved
  by ``McKeanVlasovFV`` (Scharfetter-Gummel flux, explicit steps at the stable dt, M cells);
  its mass h sum rho is logged at every step.
* The particles follow the projected Langevin iteration of 004 Alg 1 as printed
  (``run_langevin``: omega <- omega - eta N grad_k H_N + sqrt(2 eta/beta) xi), whose drift
  N grad_k H_N = V'(omega_k) + (lambda/(N-1)) sum_l g'(omega_k - omega_l) and noise make step m
  the Euler step of dX = -grad U dt + sqrt(2/beta) dB at time t = m eta; the boundary is the
  mirror reflection (the Euler scheme of the reflected SDE whose law solves the no-flux problem).
  The N initial particles are i.i.d. from the piecewise-constant density rho_0 of the grid, so
  the two start from the same law.
* W1(mu_N(t), rho_t) is ``w1_density`` (exact for a piecewise-constant density).  For reference,
  N independent samples of rho_t have E W1 ~ sqrt(2/(pi N)) int sqrt(F(1-F)) dx (Brownian-bridge
  limit, F the CDF of rho_t): Thm 1 predicts W1 -> 0 like that, up to the time-step bias O(eta)
  and the correlations that the repulsion creates (which lower it).

Accuracy: the FV density is second order in h for SG (about 1e-4 in W1 at M = 200); the particle
histogram has relative noise about 1/sqrt(count per bin).
"""
from __future__ import annotations

import numpy as np

from yatmath.particles import (
    FieldHamiltonian,
    FVGrid,
    Interval,
    McKeanVlasovFV,
    run_langevin,
    w1_density,
)

from ._common import rng_for, stamp
from .fig_itnet_special_kernels import room_for_stamp
from .registry import register_figure

LO, HI = -1.0, 1.0
BOUNDARY = "reflect"
V_TEXT = "V(w) = -cos(3w)/2 + 0.3w"


def V_cos(W):
    """V(w) = -cos(3 w)/2 + 0.3 w for points W of shape (n, 1)."""
    w = np.asarray(W, float).reshape(len(W), -1)[:, 0]
    return -0.5 * np.cos(3.0 * w) + 0.3 * w


def grad_V_cos(W):
    """V'(w) = 1.5 sin(3 w) + 0.3, shape (n, 1)."""
    w = np.asarray(W, float).reshape(len(W), -1)[:, 0]
    return (1.5 * np.sin(3.0 * w) + 0.3)[:, None]


def problem(beta=20.0, lam=0.5, delta=0.1, M=200, s=0.0, kind="plummer", V=V_cos, grad_V=grad_V_cos):
    """(grid, pde, H, domain) on [-1, 1] with the same V, lambda, interaction for PDE and particles."""
    grid = FVGrid.interval(LO, HI, int(M))
    inter = (kind, float(s), float(delta)) if lam else None
    pde = McKeanVlasovFV(grid, V, lam=lam, interaction=inter, beta=beta, flux="sg")
    H = FieldHamiltonian(V, grad_V, lam=lam, interaction=inter)
    return grid, pde, H, Interval(LO, HI)


def bump(grid, centre=0.4, width=0.15):
    """The initial density rho_0 ∝ exp(-(w - centre)^2/(2 width^2)) (cell centres), mass 1."""
    return grid.normalise(np.exp(-0.5 * ((grid.x - centre) / width) ** 2))


def sample_density(grid, rho, n, rng):
    """n i.i.d. points of the piecewise-constant density ``rho`` (a cell by its mass, then uniform)."""
    p = np.asarray(rho, float) * grid.h
    cell = rng.choice(grid.M, size=int(n), p=p / p.sum())
    return grid.edges[cell] + grid.h * rng.random(int(n))


def steps_for(times, eta):
    """Integer step counts m_i = t_i / eta (ValueError if a time is not a multiple of eta)."""
    m = np.rint(np.asarray(times, float) / eta).astype(int)
    if np.any(np.abs(m * eta - np.asarray(times, float)) > 1e-9 * max(1.0, max(times))):
        raise ValueError(f"times must be multiples of eta={eta}, got {list(times)}")
    if np.any(np.diff(m) < 0):
        raise ValueError("times must be non-decreasing")
    return m


def pde_path(pde, rho0, times):
    """FV densities at ``times`` (explicit SG steps); also the per-step logs of mass, min rho, F_h."""
    rho = pde.grid.normalise(rho0)
    out, t_log, mass, min_rho, F = [], [0.0], [pde.grid.mass(rho)], [float(rho.min())], [pde.free_energy(rho)]
    t = 0.0
    for ti in times:
        if ti > t:
            res = pde.run(rho, ti - t, scheme="explicit")
            t_log += [t + s for s in res.times[1:]]
            mass += res.mass[1:]
            min_rho += res.min_rho[1:]
            F += res.free_energy[1:]
            rho, t = res.rho, ti
        out.append(rho.copy())
    return {"rho": np.array(out), "t": np.array(t_log), "mass": np.array(mass),
            "min_rho": np.array(min_rho), "free_energy": np.array(F)}


def particle_path(H, W0, times, eta, beta, rng, domain):
    """Particles (len(times), N) at ``times`` of the Alg 1 iteration started at W0 (one stream)."""
    m = steps_for(times, eta)
    W = np.asarray(W0, float).copy()
    out, done = [], 0
    for mi in m:
        if mi > done:
            W = run_langevin(H, W, eta=eta, beta=beta, n_steps=int(mi - done), rng=rng,
                             domain=domain, boundary=BOUNDARY, track_energy=False).Omega
            done = mi
        out.append(np.asarray(W, float).reshape(-1).copy())
    return np.array(out)


def iid_w1(grid, rho, n):
    """Asymptotic E W1 of n i.i.d. samples of rho: sqrt(2/(pi n)) int sqrt(F (1 - F)) dx, F linear
    per cell (integrated with 8 midpoints per cell, relative error < 1e-3)."""
    cdf = np.concatenate([[0.0], np.cumsum(rho * grid.h)])
    cdf /= cdf[-1]
    u = (np.arange(8) + 0.5) / 8
    F = cdf[:-1, None] + (cdf[1:] - cdf[:-1])[:, None] * u
    return float(np.sqrt(2.0 / (np.pi * n)) * np.sum(np.sqrt(np.clip(F * (1 - F), 0, None))) * grid.h / 8)


def data(seed=0, N=1000, eta=0.004, times=(0.0, 0.04, 0.12, 0.4, 1.2), beta=20.0, lam=0.5, delta=0.1,
         M=200, bins=40):
    grid, pde, H, dom = problem(beta, lam, delta, M)
    rho0 = bump(grid)
    rng = rng_for(seed, 601)
    P = pde_path(pde, rho0, times)
    W0 = sample_density(grid, rho0, N, rng)
    parts = particle_path(H, W0, times, eta, beta, rng, dom)
    hist_edges = np.linspace(LO, HI, bins + 1)
    hist = np.array([np.histogram(p, bins=hist_edges, density=True)[0] for p in parts])
    w1 = np.array([w1_density(p, grid.edges, r) for p, r in zip(parts, P["rho"])])
    return {
        "times": np.asarray(times, float), "x": grid.x, "edges": grid.edges, "rho": P["rho"],
        "particles": parts, "hist_edges": hist_edges, "hist": hist, "w1": w1,
        "w1_iid": np.array([iid_w1(grid, r, N) for r in P["rho"]]),
        "pde_t": P["t"], "mass": P["mass"], "min_rho": P["min_rho"],
        "params": {"N": int(N), "eta": float(eta), "beta": float(beta), "lam": float(lam),
                   "interaction": f"plummer log, delta={delta:g}", "delta": float(delta),
                   "V": V_TEXT, "domain": "[-1, 1]", "boundary": BOUNDARY, "M": int(M),
                   "flux": "sg", "rho0": "exp(-(w-0.4)^2/(2*0.15^2))", "bins": int(bins),
                   "times": [float(t) for t in times], "seed": int(seed)},
    }


@register_figure("particles_vs_pde", paper="004 Thm 1, eqs 4.3-4.5 (no paper figure)",
                 title="Particles against the McKean-Vlasov density over time", data=data)
def draw(d, fig):
    p = d["params"]
    fig.set_size_inches(12, 6.5)
    room_for_stamp(fig)
    T = len(d["times"])
    ncol = int(np.ceil((T + 1) / 2))
    axes = fig.subplots(2, ncol).ravel()
    for k in range(T):
        ax = axes[k]
        ax.stairs(d["hist"][k], d["hist_edges"], fill=True, alpha=0.4, color="C0",
                  label=f"particles (N = {p['N']})")
        ax.plot(d["x"], d["rho"][k], "C3-", lw=1.5, label="FV density rho_t")
        ax.set_title(f"t = {d['times'][k]:g}  (W1 = {d['w1'][k]:.3g})", fontsize=9)
        ax.set_xlabel("w")
        if k == 0:
            ax.legend(fontsize=7)
    ax = axes[T]
    ax.plot(d["times"], d["w1"], "o-", label="W1(particles, rho_t)")
    ax.plot(d["times"], d["w1_iid"], "k--", lw=1, label="E W1 of N iid samples (asymptotic)")
    ax.set_xlabel("t"), ax.set_ylabel("W1"), ax.set_ylim(bottom=0)
    ax.legend(fontsize=7), ax.set_title("distance to the PDE", fontsize=9)
    for ax in axes[T + 1:]:
        ax.set_visible(False)
    fig.suptitle(f"Projected Langevin particles (004 Alg 1, eta = {p['eta']:g}, {p['boundary']}) against "
                 f"the finite-volume McKean-Vlasov density\n{p['V']}, {p['interaction']}, "
                 f"lambda = {p['lam']:g}, beta = {p['beta']:g}, M = {p['M']} cells (SG), "
                 f"max |mass - 1| = {np.max(np.abs(d['mass'] - 1)):.1e}", fontsize=10)
    stamp(fig, p, keys=["N", "eta", "beta", "lam", "delta", "M", "rho0", "seed"])
