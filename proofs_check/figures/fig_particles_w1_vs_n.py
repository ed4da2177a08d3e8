"""W1 between the particle law and the McKean-Vlasov density against the number of particles N
(004 Thm 1; claims.md particles.thm1_mean_field; algorithms.md §P5).

The 1-D problem of ``fig_particles_vs_pde`` (V(w) = -cos(3w)/2 + 0.3w on [-1, 1],
Plummer-log repulsion, beta = 20), particles started i.i.d. from rho_0 and run to time T with a
small step eta, then W1(mu_N(T), rho_T) = ``w1_density`` against the FV density.  For each N the
plotted value is the mean over R independent runs; the rate is the least-squares slope of
log(mean W1) on log N (``fit_rate``, with its 95% t-interval).

Two series:

* lambda = 0.5 (interacting): Thm 1 says W1 -> 0; for a Lipschitz (softened) interaction the
  propagation-of-chaos rate is N^{-1/2}, as for i.i.d. samples.
* lambda = 0 (independent particles; each has law rho_T^{lambda=0} up to the O(eta) bias): here the
  expected W1 is known, E W1 ~ sqrt(2/(pi N)) int sqrt(F(1-F)) dx (Brownian-bridge limit), drawn
  as the dashed line; the lambda = 0 runs are simulated as one array of R * sum(N) independent
  particles (the same law as separate runs, since nothing couples them).

The dotted line is the same i.i.d. prediction for rho_T^{lambda=0.5}: the interacting particles
sit below it (repulsion makes the empirical measure more regular than i.i.d. samples).

Accuracy: the mean of R = 16 W1 values has a relative standard error of about 10%; the time-step
bias at eta = 0.006 is about 0.0015 in W1 (see ``particles_w1_vs_eta``), small against W1 at the
largest N.
"""
from __future__ import annotations

import numpy as np

from yatmath.particles import fit_rate, run_langevin, w1_density

from ._common import rng_for, stamp
from .fig_itnet_special_kernels import room_for_stamp
from .fig_particles_vs_pde import (
    BOUNDARY,
    V_TEXT,
    bump,
    iid_w1,
    pde_path,
    problem,
    sample_density,
    steps_for,
)
from .registry import register_figure


def data(seed=0, Ns=(25, 50, 100, 200, 400, 800), reps=16, T=0.48, eta=0.006, beta=20.0, lam=0.5,
         delta=0.1, M=200):
    out = {}
    rng = rng_for(seed, 602)
    m = int(steps_for([T], eta)[0])
    for key, lm in (("interacting", lam), ("independent", 0.0)):
        grid, pde, H, dom = problem(beta, lm, delta, M)
        rho0 = bump(grid)
        rhoT = pde_path(pde, rho0, [T])["rho"][-1]
        W = np.zeros((reps, len(Ns)))
        if lm == 0.0:   # independent particles: one array holds every run
            sizes = [n for _ in range(reps) for n in Ns]
            P = run_langevin(H, sample_density(grid, rho0, sum(sizes), rng), eta=eta, beta=beta,
                             n_steps=m, rng=rng, domain=dom, boundary=BOUNDARY,
                             track_energy=False).Omega
            chunks = np.split(P, np.cumsum(sizes)[:-1])
            for idx, c in enumerate(chunks):
                W[idx // len(Ns), idx % len(Ns)] = w1_density(c, grid.edges, rhoT)
        else:
            for r in range(reps):
                for j, n in enumerate(Ns):
                    P = run_langevin(H, sample_density(grid, rho0, n, rng), eta=eta, beta=beta,
                                     n_steps=m, rng=rng, domain=dom, boundary=BOUNDARY,
                                     track_energy=False).Omega
                    W[r, j] = w1_density(P, grid.edges, rhoT)
        mean = W.mean(axis=0)
        out[key] = {"w1_runs": W, "w1": mean, "fit": fit_rate(np.asarray(Ns, float), mean),
                    "iid": np.array([iid_w1(grid, rhoT, n) for n in Ns]), "lam": float(lm),
                    "rhoT": rhoT}
    return {
        "N": np.asarray(Ns, float), **out, "x": grid.x, "edges": grid.edges,
        "params": {"Ns": [int(n) for n in Ns], "reps": int(reps), "T": float(T), "eta": float(eta),
                   "steps": m, "beta": float(beta), "lam": float(lam), "delta": float(delta),
                   "interaction": f"plummer log, delta={delta:g}", "V": V_TEXT, "domain": "[-1, 1]",
                   "boundary": BOUNDARY, "M": int(M), "rho0": "exp(-(w-0.4)^2/(2*0.15^2))",
                   "expected_rate": -0.5, "seed": int(seed)},
    }


@register_figure("particles_w1_vs_n", paper="004 Thm 1 (no paper figure)",
                 title="W1 of particles to the PDE against N", data=data)
def draw(d, fig):
    p = d["params"]
    fig.set_size_inches(8, 6)
    room_for_stamp(fig)
    ax = fig.subplots()
    N = d["N"]
    for key, c in (("interacting", "C0"), ("independent", "C2")):
        s = d[key]
        f = s["fit"]
        ax.loglog(np.repeat(N, p["reps"]), s["w1_runs"].T.ravel(), ".", color=c, alpha=0.25, ms=3)
        ax.loglog(N, s["w1"], "o", color=c,
                  label=f"lambda = {s['lam']:g}: mean of {p['reps']} runs, rate {f['rate']:.3f} "
                        f"[{f['ci'][0]:.2f}, {f['ci'][1]:.2f}]")
        ax.loglog(N, f["C"] * N ** f["rate"], "-", color=c, lw=1)
    ax.loglog(N, d["independent"]["iid"], "k--", lw=1,
              label="iid prediction sqrt(2/(pi N)) int sqrt(F(1-F)), lambda = 0")
    ax.loglog(N, d["interacting"]["iid"], "k:", lw=1,
              label=f"iid prediction for rho_T at lambda = {p['lam']:g}")
    ax.set_xlabel("number of particles N"), ax.set_ylabel("W1(mu_N(T), rho_T)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.suptitle(f"Particle law against the FV McKean-Vlasov density at T = {p['T']:g} "
                 f"(eta = {p['eta']:g}, {p['steps']} steps); expected rate N^(-1/2)\n"
                 f"{p['V']}, {p['interaction']}, beta = {p['beta']:g}, M = {p['M']} cells",
                 fontsize=10)
    stamp(fig, p, keys=["Ns", "reps", "T", "eta", "beta", "lam", "delta", "M", "boundary", "seed"])
