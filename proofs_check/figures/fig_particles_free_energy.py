"""Free-energy decay: the discrete F_h of the McKean-Vlasov PDE and the particle estimate
(004 §4 dissipation identity dF/dt = -int rho |grad(U + beta^{-1} ln rho)|^2 <= 0; claims.md
particles.pde_identities; algorithms.md §P4).

The 1-D problem of ``fig_particles_vs_pde`` (V(w) = -cos(3w)/2 + 0.3w on [-1, 1],
Plummer-log repulsion, lambda = 0.5, beta = 20, bump initial density).

* PDE: F_h = h sum V rho + (lambda/2) h^2 sum G rho rho + beta^{-1} h sum rho ln rho at every
  explicit SG step (``McKeanVlasovFV.run``); F_inf = F_h of the stationary Gibbs fixed point
  rho = exp(-beta U[rho])/Z (``McKeanVlasovFV.stationary``, damped iteration, residual stated).
* Particles: H_N(Omega) + beta^{-1} int rho^ ln rho^ with rho^ the histogram density of the
  particles on ``bins`` equal bins (``run_langevin(..., entropy_edges=...)``); since
  H_N = (1/N) sum V(omega_k) + (lambda/(2N(N-1))) sum_{k != l} g, this estimates F(mu_N).
  Its errors: the sampling error of the mean of V, sd about sd_rho(V)/sqrt(N) (~0.01 at N = 1000),
  and the plug-in entropy bias, about -(bins - 1)/(2 N beta) (~1e-3), plus an O(bin^2) binning bias.

The right panel is F_h - F_inf on a log scale (exponential decay to the Gibbs state); the slope
of its last part is fitted (least squares on ln(F_h - F_inf) against t).
"""
from __future__ import annotations

import numpy as np

from yatmath.particles import run_langevin

from ._common import rng_for, stamp
from .fig_itnet_special_kernels import room_for_stamp
from .fig_particles_vs_pde import (
    BOUNDARY,
    HI,
    LO,
    V_TEXT,
    bump,
    pde_path,
    problem,
    sample_density,
    steps_for,
)
from .registry import register_figure


def data(seed=0, N=1000, eta=0.004, T=1.2, beta=20.0, lam=0.5, delta=0.1, M=200, bins=40, record_every=10):
    grid, pde, H, dom = problem(beta, lam, delta, M)
    rho0 = bump(grid)
    P = pde_path(pde, rho0, [T])
    rho_inf, info = pde.stationary(P["rho"][-1])
    F_inf = pde.free_energy(rho_inf)
    rng = rng_for(seed, 604)
    m = int(steps_for([T], eta)[0])
    edges = np.linspace(LO, HI, bins + 1)
    res = run_langevin(H, sample_density(grid, rho0, N, rng), eta=eta, beta=beta, n_steps=m, rng=rng,
                       domain=dom, boundary=BOUNDARY, record_every=record_every, entropy_edges=[edges])
    t_p = eta * np.asarray(res.history["step"], float)
    F_p = np.asarray(res.history["free_energy"], float)
    tail = P["t"] >= 0.5 * T
    gap = P["free_energy"] - F_inf
    ok = tail & (gap > 0)
    decay = float(np.polyfit(P["t"][ok], np.log(gap[ok]), 1)[0]) if ok.sum() >= 2 else float("nan")
    return {
        "t_pde": P["t"], "F_pde": P["free_energy"], "mass": P["mass"], "F_inf": float(F_inf),
        "stationary_residual": float(info["residual"]), "stationary_converged": bool(info["converged"]),
        "t_particles": t_p, "F_particles": F_p, "H_particles": np.asarray(res.history["energy"], float),
        "F_pde_at_particles": np.interp(t_p, P["t"], P["free_energy"]), "decay_rate": decay,
        "params": {"N": int(N), "eta": float(eta), "T": float(T), "beta": float(beta), "lam": float(lam),
                   "delta": float(delta), "interaction": f"plummer log, delta={delta:g}", "V": V_TEXT,
                   "domain": "[-1, 1]", "boundary": BOUNDARY, "M": int(M), "flux": "sg",
                   "bins": int(bins), "record_every": int(record_every),
                   "rho0": "exp(-(w-0.4)^2/(2*0.15^2))", "seed": int(seed)},
    }


@register_figure("particles_free_energy", paper="004 §4 dissipation identity (no paper figure)",
                 title="Free-energy decay of the PDE and of the particles", data=data)
def draw(d, fig):
    p = d["params"]
    fig.set_size_inches(12, 5.2)
    room_for_stamp(fig)
    ax, ax2 = fig.subplots(1, 2)
    ax.plot(d["t_pde"], d["F_pde"], "C3-", lw=1.5, label=f"PDE F_h (M = {p['M']}, SG)")
    ax.plot(d["t_particles"], d["F_particles"], "C0o", ms=4,
            label=f"particles: H_N + (1/beta) int rho^ ln rho^ (N = {p['N']}, {p['bins']} bins)")
    ax.axhline(d["F_inf"], color="k", ls="--", lw=1,
               label=f"F_h of the Gibbs fixed point (residual {d['stationary_residual']:.1e})")
    ax.set_xlabel("t = m eta"), ax.set_ylabel("free energy")
    ax.legend(fontsize=7), ax.set_title("free energy against time", fontsize=9)
    gap = d["F_pde"] - d["F_inf"]
    pos = gap > 0
    ax2.semilogy(d["t_pde"][pos], gap[pos], "C3-", label="PDE F_h - F_inf")
    gp = d["F_particles"] - d["F_inf"]
    ax2.semilogy(d["t_particles"][gp > 0], gp[gp > 0], "C0o", ms=4, label="particles - F_inf (> 0 only)")
    ax2.set_xlabel("t"), ax2.set_ylabel("F - F_inf")
    ax2.set_title(f"decay rate of the tail: {d['decay_rate']:.3g} per unit time", fontsize=9)
    ax2.legend(fontsize=7)
    fig.suptitle(f"Free-energy dissipation: {p['V']}, {p['interaction']}, lambda = {p['lam']:g}, "
                 f"beta = {p['beta']:g}; particles with eta = {p['eta']:g} ({p['boundary']})\n"
                 f"max increase of F_h per step: {np.max(np.diff(d['F_pde'])):.1e}", fontsize=10)
    stamp(fig, p, keys=["N", "eta", "T", "beta", "lam", "delta", "M", "bins", "seed"])
