"""Fluctuations N Var of linear statistics with and without repulsion (004 Thm 2 and its
Gärtner-Ellis check; claims.md particles.thm2_ldp (b); algorithms.md §P5).

Setting: Omega = [-1, 1] (mirror reflection), V(w) = a w^2/2 with a = 8, beta = 2, Plummer-log
repulsion g = -ln(r^2 + delta^2)/2 with delta = 0.2 and strength lambda.  The Langevin iteration of
004 Alg 1 (drift eta N grad_k H_N, noise sqrt(2 eta/beta)) targets the Gibbs law
∝ exp(-beta N H_N) = exp(-beta [sum_k V(omega_k) + (lambda/(2(N-1))) sum_{k != l} g]).
For a linear statistic <f, mu_N> = (1/N) sum_k f(omega_k), the plotted quantity is N Var<f, mu_N>
at equilibrium (``n_var``, with its chi-square 95% interval), for f(w) = w and f(w) = w^2.

Predictions (both computed on the FV grid of M cells from the stationary density rho_inf of
``McKeanVlasovFV.stationary``; p_i = rho_i h, C = diag(p) - p p^T, G_ij = g(x_i - x_j) the FV
interaction table):

* independent particles with the same one-particle law: N Var = Var_rho_inf(f) = f^T C f (dashed);
* the mean-field CLT: the rate function beta F(mu) - beta F(rho_inf) has the second variation
  int eta^2/rho + beta lambda <g * eta, eta> on mass-zero eta, so the fluctuation field
  sqrt(N)(mu_N - rho_inf) has covariance (I + beta lambda C G)^{-1} C and
  N Var<f, mu_N> -> f^T (I + beta lambda C G)^{-1} C f (solid).  For f = w it stays at 1/(beta a):
  the centre of mass feels only V (the pair forces cancel), so repulsion cannot change it, while
  the independent-particle value grows with the spread of rho_inf.

Sampling: lambda = 0 runs R copies of N independent particles in one array (exactly independent
samples); lambda > 0 runs one chain from N draws of rho_inf, discards ``burn`` steps and records
every ``spacing`` steps (the slowest mode, the centre of mass, decorrelates by (1 - eta a)^spacing
~ 0.036 between records).  The Euler step shifts the stationary variance by O(eta a) = 8%/2: for
lambda = 0 and f = w the chain's exact value is 2/(beta a (2 - eta a)) (recorded as
``discrete_w_lambda0``).
"""
from __future__ import annotations

import numpy as np

from yatmath.particles import (
    FieldHamiltonian,
    FVGrid,
    Interval,
    McKeanVlasovFV,
    n_var,
    run_langevin,
)

from ._common import rng_for, stamp
from .fig_itnet_special_kernels import room_for_stamp
from .fig_particles_vs_pde import sample_density
from .registry import register_figure

OBSERVABLES = {"w": lambda w: w, "w^2": lambda w: w * w}


def clt_prediction(grid, pde, rho, beta, lam, f):
    """(f^T (I + beta lam C G)^{-1} C f, f^T C f) on the grid (see the module docstring)."""
    p = np.asarray(rho, float) * grid.h
    C = np.diag(p) - np.outer(p, p)
    fx = f(grid.x)
    iid = float(fx @ C @ fx)
    if lam == 0.0:
        return iid, iid
    M = grid.M
    idx = np.arange(M)
    G = pde.kernel[idx[:, None] - idx[None, :] + M - 1]
    S = np.linalg.solve(np.eye(M) + beta * lam * C @ G, C)
    return float(fx @ S @ fx), iid


def _setup(a, beta, lam, delta, M):
    grid = FVGrid.interval(-1.0, 1.0, int(M))
    V = lambda W: 0.5 * a * np.asarray(W, float).reshape(len(W), -1)[:, 0] ** 2
    gV = lambda W: a * np.asarray(W, float).reshape(len(W), -1)
    inter = ("plummer", 0.0, float(delta)) if lam else None
    pde = McKeanVlasovFV(grid, V, lam=lam, interaction=inter, beta=beta)
    rho, info = pde.stationary(np.ones(grid.M))
    return grid, pde, FieldHamiltonian(V, gV, lam=lam, interaction=inter), rho, info


def data(seed=0, N=64, lams=(0.0, 1.0, 3.0), samples=120, eta=0.01, burn=100, spacing=40, a=8.0,
         beta=2.0, delta=0.2, M=200, lam_grid=np.linspace(0.0, 3.0, 13)):
    rng = rng_for(seed, 605)
    dom = Interval(-1.0, 1.0)
    sim = {k: {"n_var": [], "lo": [], "hi": []} for k in OBSERVABLES}
    means = {k: [] for k in OBSERVABLES}
    for lam in lams:
        grid, pde, H, rho, _ = _setup(a, beta, lam, delta, M)
        if lam == 0.0:
            W = run_langevin(H, sample_density(grid, rho, N * samples, rng), eta=eta, beta=beta,
                             n_steps=burn, rng=rng, domain=dom, boundary="reflect",
                             track_energy=False).Omega
            snaps = W.reshape(samples, N)
        else:
            snaps = []

            def keep(m, Om, b):
                if m > burn and (m - burn) % spacing == 0:
                    snaps.append(np.asarray(Om, float).reshape(-1).copy())

            run_langevin(H, sample_density(grid, rho, N, rng), eta=eta, beta=beta,
                         n_steps=burn + spacing * samples, rng=rng, domain=dom, boundary="reflect",
                         track_energy=False, callback=keep)
            snaps = np.array(snaps)
        for k, f in OBSERVABLES.items():
            mk = f(snaps).mean(axis=1)
            r = n_var(mk, N)
            means[k].append(mk)
            sim[k]["n_var"].append(r["n_var"])
            sim[k]["lo"].append(r["ci"][0])
            sim[k]["hi"].append(r["ci"][1])
    clt = {k: [] for k in OBSERVABLES}
    iid = {k: [] for k in OBSERVABLES}
    residuals = []
    for lam in lam_grid:
        grid, pde, _, rho, info = _setup(a, beta, float(lam), delta, M)
        residuals.append(info["residual"])
        for k, f in OBSERVABLES.items():
            c, i = clt_prediction(grid, pde, rho, beta, float(lam), f)
            clt[k].append(c)
            iid[k].append(i)
    arr = lambda dct: {k: np.asarray(v, float) for k, v in dct.items()}
    return {
        "lams": np.asarray(lams, float), "sim": {k: arr(v) for k, v in sim.items()},
        "means": {k: np.array(v) for k, v in means.items()},
        "lam_grid": np.asarray(lam_grid, float), "clt": arr(clt), "iid": arr(iid),
        "stationary_residual_max": float(np.max(residuals)),
        "discrete_w_lambda0": 2.0 / (beta * a * (2.0 - eta * a)), "continuum_w": 1.0 / (beta * a),
        "params": {"N": int(N), "lams": [float(x) for x in lams], "samples": int(samples),
                   "eta": float(eta), "burn": int(burn), "spacing": int(spacing), "a": float(a),
                   "V": f"a w^2/2, a={a:g}", "beta": float(beta), "delta": float(delta),
                   "interaction": f"plummer log, delta={delta:g}", "domain": "[-1, 1]",
                   "boundary": "reflect", "M": int(M), "observables": list(OBSERVABLES),
                   "seed": int(seed)},
    }


@register_figure("particles_fluctuations", paper="004 Thm 2 (no paper figure)",
                 title="N Var of linear statistics with and without repulsion", data=data)
def draw(d, fig):
    p = d["params"]
    fig.set_size_inches(12, 5.2)
    room_for_stamp(fig)
    axes = fig.subplots(1, len(OBSERVABLES))
    for ax, k in zip(axes, OBSERVABLES):
        s = d["sim"][k]
        ax.plot(d["lam_grid"], d["clt"][k], "C3-", label="mean-field CLT f^T (I + beta lam C G)^-1 C f")
        ax.plot(d["lam_grid"], d["iid"][k], "k--", lw=1, label="independent particles: Var_rho_inf(f)")
        ax.errorbar(d["lams"], s["n_var"], yerr=[s["n_var"] - s["lo"], s["hi"] - s["n_var"]], fmt="o",
                    color="C0", capsize=3, label=f"simulated N Var (N = {p['N']}, {p['samples']} samples, 95% CI)")
        if k == "w":
            ax.axhline(d["continuum_w"], color="0.5", ls=":", lw=1, label="1/(beta a)")
        ax.set_xlabel("repulsion strength lambda"), ax.set_ylabel(f"N Var <{k}, mu_N>")
        ax.set_ylim(bottom=0)
        ax.set_title(f"f(w) = {k}", fontsize=9)
        ax.legend(fontsize=7)
    fig.suptitle(f"Equilibrium fluctuations of linear statistics: V = {p['V']}, beta = {p['beta']:g}, "
                 f"{p['interaction']}, on {p['domain']}\nLangevin eta = {p['eta']:g}; repulsion lowers "
                 f"N Var below the independent-particle value", fontsize=10)
    stamp(fig, p, keys=["N", "samples", "eta", "burn", "spacing", "a", "beta", "delta", "M", "seed"])
