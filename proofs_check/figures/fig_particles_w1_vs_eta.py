"""W1 between the particle law and the McKean-Vlasov density against the step eta
(004 Thm 1, the projected-Euler error eps_{N,eta}; claims.md particles.thm1_mean_field).

The 1-D problem of ``fig_particles_vs_pde`` (V(w) = -cos(3w)/2 + 0.3w on [-1, 1],
Plummer-log repulsion, beta = 20), run to T with steps eta in a geometric sequence.  To see the
time-step bias rather than the sampling noise, the particles of R independent runs of N particles
are pooled (R N draws from the one-particle marginal of the N-particle system) and W1(pooled, rho_T)
is computed with ``w1_density``.  The rate is the least-squares slope of log W1 on log eta
(``fit_rate``, 95% t-interval).  The Euler scheme of dX = -grad U dt + sqrt(2/beta) dB (with
mirror reflection) has weak order 1, so the expected rate is 1.

The floor (dashed) is what W1 would be without any bias: E W1 of R N i.i.d. samples of rho_T,
sqrt(2/(pi R N)) int sqrt(F(1-F)) dx (Brownian-bridge limit), with the mean over four actual
draws beside it (dotted).  Near the floor the measured W1 flattens, lowering the fitted slope; the
default steps keep the smallest bias a few times above it.  The propagation-of-chaos bias of the
marginal, O(1/N) with N = 400, sits below the floor too.
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


def data(seed=0, etas=(0.16, 0.08, 0.04, 0.02), N=400, reps=64, T=0.48, beta=20.0, lam=0.5, delta=0.1,
         M=200):
    grid, pde, H, dom = problem(beta, lam, delta, M)
    rho0 = bump(grid)
    rhoT = pde_path(pde, rho0, [T])["rho"][-1]
    rng = rng_for(seed, 603)
    w1, steps = [], []
    for eta in etas:
        m = int(steps_for([T], eta)[0])
        pooled = np.concatenate([
            run_langevin(H, sample_density(grid, rho0, N, rng), eta=eta, beta=beta, n_steps=m, rng=rng,
                         domain=dom, boundary=BOUNDARY, track_energy=False).Omega
            for _ in range(reps)])
        w1.append(w1_density(pooled, grid.edges, rhoT))
        steps.append(m)
    floor = float(np.mean([w1_density(sample_density(grid, rhoT, N * reps, rng), grid.edges, rhoT)
                           for _ in range(4)]))
    w1 = np.array(w1)
    return {
        "eta": np.asarray(etas, float), "w1": w1, "steps": np.array(steps),
        "fit": fit_rate(np.asarray(etas, float), w1), "floor": floor,
        "floor_theory": iid_w1(grid, rhoT, N * reps), "x": grid.x, "edges": grid.edges, "rhoT": rhoT,
        "params": {"etas": [float(e) for e in etas], "N": int(N), "reps": int(reps),
                   "pooled": int(N * reps), "T": float(T), "beta": float(beta), "lam": float(lam),
                   "delta": float(delta), "interaction": f"plummer log, delta={delta:g}", "V": V_TEXT,
                   "domain": "[-1, 1]", "boundary": BOUNDARY, "M": int(M),
                   "rho0": "exp(-(w-0.4)^2/(2*0.15^2))", "expected_rate": 1.0, "seed": int(seed)},
    }


@register_figure("particles_w1_vs_eta", paper="004 Thm 1 (no paper figure)",
                 title="W1 of particles to the PDE against the step eta", data=data)
def draw(d, fig):
    p = d["params"]
    fig.set_size_inches(8, 6)
    room_for_stamp(fig)
    ax = fig.subplots()
    e, f = d["eta"], d["fit"]
    ax.loglog(e, d["w1"], "o", label=f"W1(pooled particles, rho_T): rate {f['rate']:.3f} "
                                     f"[{f['ci'][0]:.2f}, {f['ci'][1]:.2f}]")
    ax.loglog(e, f["C"] * e ** f["rate"], "-", lw=1, label="least-squares fit")
    ax.loglog(e, d["w1"][0] * (e / e[0]), ":", color="0.4", lw=1, label="slope 1 (weak order of Euler)")
    ax.axhline(d["floor_theory"], color="k", ls="--", lw=1,
               label=f"sampling floor: E W1 of {p['pooled']} iid samples of rho_T (asymptotic)")
    ax.axhline(d["floor"], color="k", ls=":", lw=1, label="the same, mean of 4 draws")
    ax.set_xlabel("step eta"), ax.set_ylabel("W1")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.suptitle(f"Time-step bias of the particle law at T = {p['T']:g}: {p['reps']} runs of N = {p['N']} "
                 f"pooled\n{p['V']}, {p['interaction']}, lambda = {p['lam']:g}, beta = {p['beta']:g}, "
                 f"M = {p['M']} cells", fontsize=10)
    stamp(fig, p, keys=["etas", "N", "reps", "T", "beta", "lam", "delta", "M", "boundary", "seed"])
