# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Coulomb and Riesz particles in two dimensions
# 004 Alg 1 and Thm 1 (algorithms.md §P3-P5) in the plane: the same particles and the 2-D
# finite-volume density, once with the Coulomb kernel ($s = d - 2 = 0$, the logarithm) and once
# with a Riesz kernel ($s > d - 2$).  The next cell is tagged `parameters` (papermill can inject
# values; convert first, from the repository root, with
# `jupytext --to notebook notebooks/particles_2d.py`).

# %% tags=["parameters"]
beta = 100.0      # inverse temperature
lam = 1.0         # repulsion strength lambda (Coulomb support radius sqrt(lambda))
s_riesz = 1.0     # Riesz exponent, d - 2 < s < d
delta = 0.05      # Plummer softening length
N = 800           # number of particles per run
eta = 0.01        # Langevin step
T = 3.0           # final time
frames = 6        # snapshots (and W1 records) after the initial one
M = 64            # FV cells per side of the square around the disk
R = 1.6           # the domain: the disk of radius R (particles reflect at its boundary)
width = 0.3       # standard deviation of the initial Gaussian blob
seed = 0

# %% [markdown]
# ## The model
# Particles $\omega_k \in \Omega = \{\|\omega\| \le R\} \subset \mathbb R^2$ in the confining
# potential $V(\omega) = \|\omega\|^2/2$ follow the projected Langevin iteration of 004 Alg 1
# (here with the mirror reflection at $\|\omega\| = R$),
# $$\omega_k \leftarrow P\Big(\omega_k - \eta\big(\nabla V(\omega_k) + \tfrac{\lambda}{N-1}\textstyle\sum_{l\ne k}\nabla g(\omega_k-\omega_l)\big) + \sqrt{2\eta/\beta}\,\xi_k\Big),$$
# whose mean-field limit is $\partial_t\rho = \nabla\cdot(\rho\nabla(V + \lambda g*\rho)) + \beta^{-1}\Delta\rho$
# with no flux through the circle (004 eq.4.4-4.5), solved here by `McKeanVlasovFV` on the cells
# of a square grid whose centres lie in the disk.  Both use the Plummer-softened kernel
# (softening `delta`): $g = -\tfrac12\ln(r^2+\delta^2)$ for $s = 0$, $(r^2+\delta^2)^{-s/2}$ for $s > 0$.
#
# **Coulomb, $s = d - 2 = 0$.**  $-\ln r$ is the fundamental solution in the plane,
# $-\Delta(-\ln r) = 2\pi\delta_0$.  On the support of the equilibrium measure
# $V + \lambda g*\rho$ is constant; taking the Laplacian gives $2 = 2\pi\lambda\rho$: the
# density is *flat*, $\rho = 1/(\pi\lambda)$ on the disk of radius $\sqrt\lambda$ (the circular
# law), up to an edge layer of width about $1/\beta$ and the softening.
#
# **Riesz, $d - 2 < s < d$.**  $r^{-s}$ is no longer harmonic away from 0, the local argument
# fails, and the equilibrium measure of a quadratic field is a dome, proportional to
# $(R_s^2 - r^2)^{(s-d+2)/2}$ on a ball (Chafaï, Saff and Womersley 2022): for $s = 1$ a
# half-ellipsoid profile, highest at the centre and falling to 0 at the edge without a plateau.

# %%
import time

import matplotlib.pyplot as plt
import numpy as np

from yatmath.particles import (Ball, FieldHamiltonian, FVGrid, McKeanVlasovFV, make_interaction,
                               run_langevin, w1_1d)


def V(W):
    W = np.asarray(W, float)
    return 0.5 * np.sum(W * W, axis=1)


def grad_V(W):
    return np.asarray(W, float)


grid = FVGrid.disk(R, M)
active = np.flatnonzero(grid.active)
r_cells = np.linalg.norm(grid.centres[active], axis=1)
rho0 = grid.normalise(np.exp(-0.5 * np.sum(grid.centres ** 2, axis=1) / width ** 2))
kernels = {"Coulomb": make_interaction("plummer", "coulomb", delta, d=2),
           "Riesz": make_interaction("plummer", s_riesz, delta)}
print({k: v for k, v in kernels.items()})
print(f"grid: {active.size} active cells of side h = {grid.h:.4f} in the disk of radius {R:g}")


def radial_w1(W, rho):
    """W1 between the radii of the particles and the radius law of the FV density (cell centres
    weighted by their mass h^2 rho): a 1-D distance that sees the profile, not the angles."""
    return w1_1d(np.linalg.norm(W, axis=1), r_cells, None, rho[active] * grid.cell_volume)


def side_by_side(inter):
    """Particles and FV density from the same initial law, recorded at frames + 1 times."""
    pde = McKeanVlasovFV(grid, V, lam=lam, interaction=inter, beta=beta, flux="sg")
    H = FieldHamiltonian(V, grad_V, lam=lam, interaction=inter)
    rng = np.random.default_rng(seed)
    p0 = rho0[active] / rho0[active].sum()
    W = grid.centres[active[rng.choice(active.size, size=N, p=p0)]]
    W = W + grid.h * (rng.random((N, 2)) - 0.5)          # iid draws of the piecewise-constant rho0
    steps = max(1, int(round(T / (eta * frames))))
    rho = rho0.copy()
    out = {"times": [0.0], "W": [W], "rho": [rho], "w1": [radial_w1(W, rho)], "mass": [grid.mass(rho)]}
    t0 = time.perf_counter()
    for _ in range(frames):
        W = run_langevin(H, W, eta=eta, beta=beta, n_steps=steps, rng=rng, domain=Ball(R, 2),
                         boundary="reflect", track_energy=False).Omega
        rho = pde.run(rho, steps * eta, scheme="explicit").rho
        out["times"].append(out["times"][-1] + steps * eta)
        out["W"].append(W)
        out["rho"].append(rho)
        out["w1"].append(radial_w1(W, rho))
        out["mass"].append(grid.mass(rho))
    out["seconds"] = time.perf_counter() - t0
    return out


runs = {}
for name, inter in kernels.items():
    runs[name] = side_by_side(inter)
    r = runs[name]
    print(f"{name:8s} s = {inter.s:g}: t = {r['times'][-1]:.3g} in {r['seconds']:.1f} s, "
          f"radial W1 at the end {r['w1'][-1]:.4f}, max |mass - 1| {np.max(np.abs(np.array(r['mass']) - 1)):.1e}")

# %% [markdown]
# ## Snapshots: the particles over the FV density
# Each panel shows the density $\rho_t$ of the PDE (colour, the same scale in a row) and the
# particles at the same time (dots).  The colour scale of a row is set by the later panels, so the
# initial blob (peak $1/(2\pi\,\mathrm{width}^2)$) saturates.

# %%
def density_image(rho):
    img = np.full(grid.M * grid.M, np.nan)
    img[active] = rho[active]
    return img.reshape(grid.shape).T            # rows: y, columns: x


shown = sorted(set(np.linspace(0, frames, min(frames + 1, 4)).round().astype(int)))
fig, axes = plt.subplots(2, len(shown), figsize=(3.3 * len(shown), 6.4), layout="constrained",
                         squeeze=False)
for row, (name, r) in zip(axes, runs.items()):
    vmax = max(np.nanmax(r["rho"][k]) for k in shown[1:] or shown)
    for ax, k in zip(row, shown):
        im = ax.imshow(density_image(r["rho"][k]), origin="lower", extent=(-R, R, -R, R),
                       vmin=0, vmax=vmax, cmap="viridis")
        ax.plot(r["W"][k][:, 0], r["W"][k][:, 1], "w.", ms=1.5, alpha=0.7)
        ax.set_title(f"{name} (s = {kernels[name].s:g}), t = {r['times'][k]:.2f}", fontsize=9)
        ax.set_xticks([]), ax.set_yticks([]), ax.set_aspect("equal")
    fig.colorbar(im, ax=row[-1], shrink=0.8, label="rho")
plt.show()

# %% [markdown]
# ## Radial profiles at the final time, and the distance between particles and PDE
# The particle profile is the number of particles per annulus divided by $N$ times its area;
# the FV profile is every active cell's $\rho$ against its centre's radius.

# %%
ring_edges = np.linspace(0.0, R, 25)
ring_area = np.pi * np.diff(ring_edges ** 2)
plateau = 1.0 / (np.pi * lam)
fig, axes = plt.subplots(1, 3, figsize=(15, 3.8), layout="constrained")
for ax, (name, r) in zip(axes[:2], runs.items()):
    counts, _ = np.histogram(np.linalg.norm(r["W"][-1], axis=1), bins=ring_edges)
    ax.plot(r_cells, r["rho"][-1][active], ".", ms=2, color="C1", label="FV cells")
    ax.stairs(counts / (N * ring_area), ring_edges, color="C0", label=f"particles (N = {N})")
    if kernels[name].s == 0.0:
        ax.axhline(plateau, color="k", ls=":", label="1/(pi lambda)")
        ax.axvline(np.sqrt(lam), color="k", ls="--", lw=1, label="sqrt(lambda)")
    ax.set_xlabel("r = ||omega||"), ax.set_ylabel("density"), ax.legend(fontsize=8)
    ax.set_title(f"{name}, s = {kernels[name].s:g}, t = {r['times'][-1]:.2f}")
for name, r in runs.items():
    axes[2].plot(r["times"], r["w1"], "o-", label=name)
axes[2].axhline(0.5 * R / np.sqrt(N), color="k", ls=":", lw=1, label="R / (2 sqrt N)")
axes[2].set_xlabel("t"), axes[2].set_ylabel("W1 of the radii"), axes[2].legend(fontsize=8)
axes[2].set_title("particles against the PDE")
plt.show()



def centre_to_mid(rho):
    """Mean FV density for r < sqrt(lambda)/8 over that on the ring |r - sqrt(lambda)/2| < h."""
    rho, a = rho[active], np.sqrt(lam)
    return float(np.mean(rho[r_cells < a / 8]) / np.mean(rho[np.abs(r_cells - a / 2) < grid.h]))


coulomb_plateau = float(np.mean(runs["Coulomb"]["rho"][-1][active][r_cells < 0.5 * np.sqrt(lam)]))
shape = {name: centre_to_mid(r["rho"][-1]) for name, r in runs.items()}
print(f"Coulomb: mean FV density for r < sqrt(lambda)/2: {coulomb_plateau:.4f}, "
      f"1/(pi lambda) = {plateau:.4f} (ratio {coulomb_plateau / plateau:.4f})")
print("density near the centre / density at r = sqrt(lambda)/2 (flat: 1, dome: > 1):",
      {k: round(v, 4) for k, v in shape.items()})

# %% [markdown]
# ## Things to try
# * Larger `beta`: the Coulomb edge at $r = \sqrt\lambda$ sharpens (width about $1/\beta$).
# * `s_riesz` towards $d = 2$: the dome rounds further; beyond $d$ the bare energy of a density
#   diverges and only the softening `delta` keeps it finite (004 Thm 2, $s > d$).
# * `N` from 200 to 3000: the radial W1 falls like $N^{-1/2}$ (the particles are more regular
#   than i.i.d. samples, so often faster).
# * `lam`: the Coulomb support radius is $\sqrt\lambda$; keep it below `R`.

# %%
summary = {"beta": beta, "lam": lam, "s_riesz": s_riesz, "N": N, "M": M, "T": T, "R": R, "h": grid.h,
           "final_time": float(runs["Coulomb"]["times"][-1]),
           "s": {name: kernels[name].s for name in runs},
           "final_w1": {name: float(r["w1"][-1]) for name, r in runs.items()},
           "mass_error": max(float(np.max(np.abs(np.array(r["mass"]) - 1))) for r in runs.values()),
           "coulomb_plateau": coulomb_plateau, "plateau_theory": plateau,
           "centre_to_mid": shape}
summary
