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

# %%
# Particle dynamics beside the McKean-Vlasov density (004 Alg 1, Thm 1; algorithms.md §P3-P5).
#
# Change the parameters in this cell and re-run the notebook.  Environment variables override
# them (used by tests/test_notebooks.py): YATMATH_NB_SMALL=1 selects small sizes, and
# YATMATH_NB_BETA, YATMATH_NB_LAM, YATMATH_NB_S, YATMATH_NB_N set beta, lambda, s and N;
# YATMATH_NB_GIF=path also writes the animation as a GIF (PillowWriter, no ffmpeg needed).
import os

SMALL = os.environ.get("YATMATH_NB_SMALL", "0") == "1"

beta = float(os.environ.get("YATMATH_NB_BETA", 20.0))   # inverse temperature
lam = float(os.environ.get("YATMATH_NB_LAM", 0.5))      # repulsion strength lambda
s = float(os.environ.get("YATMATH_NB_S", 0.0))          # kernel exponent: 0 log, > 0 Riesz, (-2, 0)
N = int(os.environ.get("YATMATH_NB_N", 150 if SMALL else 1000))   # number of particles
kind = "plummer"            # "plummer" (smooth) or "hard" (004 eq.A.36 truncation)
delta = 0.1                 # softening length
eta = 0.003                 # Langevin step; time t = m * eta
T = 0.12 if SMALL else 1.2  # final time
M = 100 if SMALL else 200   # finite-volume cells on [-1, 1]
frames = 4 if SMALL else 40 # animation frames
bins = 30 if SMALL else 40  # histogram bins
seed = 0
GIF_PATH = os.environ.get("YATMATH_NB_GIF", "")

# %% [markdown]
# ## The model
#
# Particles $\omega_1, \dots, \omega_N \in [-1, 1]$ follow the projected Langevin iteration of
# 004 Alg 1, exactly as printed,
# $$\omega_k \leftarrow P\big(\omega_k - \eta N \nabla_{\omega_k} H_N + \sqrt{2\eta/\beta}\,\xi_k\big),
# \qquad H_N = \frac1N\sum_k V(\omega_k) + \frac{\lambda}{2N(N-1)}\sum_{k\ne l} g(\omega_k-\omega_l),$$
# here with the mirror reflection as $P$.  Since $N\nabla_k H_N = V'(\omega_k) + \frac{\lambda}{N-1}\sum_l g'(\omega_k-\omega_l)$,
# step $m$ is an Euler step at time $t = m\eta$ of the SDE whose law solves the McKean-Vlasov PDE
# $$\partial_t\rho = \nabla\cdot(\rho\nabla(V + \lambda g*\rho)) + \beta^{-1}\Delta\rho$$
# with no flux through $\pm 1$.  The PDE is solved by finite volumes (`McKeanVlasovFV`,
# Scharfetter-Gummel flux).  Thm 1 of 004 says the empirical measure of the particles converges
# to $\rho_t$ as $N \to \infty$, $\eta \to 0$.

# %%
import time

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import HTML, display
from matplotlib import animation

from yatmath.particles import (FieldHamiltonian, FVGrid, Interval, McKeanVlasovFV, make_interaction,
                               run_langevin, w1_density)


def V(W):
    w = np.asarray(W, float).reshape(len(W), -1)[:, 0]
    return -0.5 * np.cos(3.0 * w) + 0.3 * w


def grad_V(W):
    w = np.asarray(W, float).reshape(len(W), -1)[:, 0]
    return (1.5 * np.sin(3.0 * w) + 0.3)[:, None]


inter = make_interaction(kind, s, delta) if lam else None
grid = FVGrid.interval(-1.0, 1.0, M)
pde = McKeanVlasovFV(grid, V, lam=lam, interaction=inter, beta=beta, flux="sg")
H = FieldHamiltonian(V, grad_V, lam=lam, interaction=inter)
domain = Interval(-1.0, 1.0)
rho0 = grid.normalise(np.exp(-0.5 * ((grid.x - 0.4) / 0.15) ** 2))

rng = np.random.default_rng(seed)
p0 = rho0 * grid.h
cells = rng.choice(grid.M, size=N, p=p0 / p0.sum())
W = grid.edges[cells] + grid.h * rng.random(N)       # N iid draws of the piecewise-constant rho0
print(f"interaction: {inter}, g(0) = {inter.g_at_zero() if inter else 0:.4g}")

# %% [markdown]
# ## Run both side by side
# The frames are equally spaced in time; between frames the particles take `steps_per_frame`
# Langevin steps and the PDE takes explicit steps at its stable time step up to the same time.

# %%
steps_per_frame = max(1, int(round(T / (eta * frames))))   # the run ends at frames * steps_per_frame * eta
times, particles, densities, w1, mass, F_pde, H_particles = [0.0], [W.copy()], [rho0.copy()], [], [], [], []
rho = rho0.copy()
mass.append(grid.mass(rho))
F_pde.append(pde.free_energy(rho))
H_particles.append(H.energy(W[:, None]))
w1.append(w1_density(W, grid.edges, rho))
t0 = time.perf_counter()
for f in range(frames):
    res = run_langevin(H, W, eta=eta, beta=beta, n_steps=steps_per_frame, rng=rng, domain=domain,
                       boundary="reflect", track_energy=False)
    W = res.Omega
    out = pde.run(rho, steps_per_frame * eta, scheme="explicit")
    rho = out.rho
    times.append(times[-1] + steps_per_frame * eta)
    particles.append(W.copy())
    densities.append(rho.copy())
    mass.append(grid.mass(rho))
    F_pde.append(pde.free_energy(rho))
    H_particles.append(H.energy(W[:, None]))
    w1.append(w1_density(W, grid.edges, rho))
times, w1 = np.array(times), np.array(w1)
print(f"{frames} frames, {steps_per_frame * frames} Langevin steps (t = {times[-1]:.4g}) in "
      f"{time.perf_counter() - t0:.2f} s")
print(f"max |mass - 1| of the PDE: {np.max(np.abs(np.array(mass) - 1)):.2e}")
print(f"W1(particles, rho_t) at the end: {w1[-1]:.4f}  (N^-1/2 = {N ** -0.5:.4f})")

# %% [markdown]
# ## Snapshots, the distance to the PDE and the energies

# %%
edges = np.linspace(-1, 1, bins + 1)
fig, axes = plt.subplots(1, 4, figsize=(15, 3.6), layout="constrained")
for ax, k in zip(axes[:2], (0, len(times) - 1)):
    ax.hist(particles[k], bins=edges, density=True, alpha=0.4, label=f"particles (N = {N})")
    ax.plot(grid.x, densities[k], "r-", label="FV density")
    ax.set_title(f"t = {times[k]:.3g}"), ax.set_xlabel("w")
axes[0].legend(fontsize=8)
axes[2].plot(times, w1, "o-", label="W1(particles, rho_t)")
axes[2].axhline(N ** -0.5 * 0.3, color="k", ls=":", lw=1, label="0.3 N^-1/2 (scale)")
axes[2].set_xlabel("t"), axes[2].legend(fontsize=8), axes[2].set_title("distance to the PDE")
axes[3].plot(times, F_pde, "r-", label="PDE free energy F_h")
axes[3].plot(times, H_particles, "o", ms=3, label="particles H_N (no entropy)")
axes[3].set_xlabel("t"), axes[3].legend(fontsize=8), axes[3].set_title("energies")
fig.suptitle(f"beta = {beta:g}, lambda = {lam:g}, {kind} s = {s:g}, delta = {delta:g}, eta = {eta:g}",
             fontsize=10)
plt.show()

# %% [markdown]
# ## Animation
# `to_jshtml` embeds the frames as JavaScript (no ffmpeg); set `YATMATH_NB_GIF` to also save a GIF.

# %%
matplotlib.rcParams["animation.embed_limit"] = 50.0     # MB
fig, ax = plt.subplots(figsize=(6, 3.6), layout="constrained")
counts0, _ = np.histogram(particles[0], bins=edges, density=True)
bars = ax.bar(edges[:-1], counts0, width=np.diff(edges), align="edge", alpha=0.4, label="particles")
(line,) = ax.plot(grid.x, densities[0], "r-", label="FV density")
ymax = 1.2 * max(max(np.max(d) for d in densities),
                 max(np.histogram(p, bins=edges, density=True)[0].max() for p in particles))
ax.set_ylim(0, ymax), ax.set_xlim(-1, 1), ax.set_xlabel("w"), ax.legend(loc="upper left", fontsize=8)
title = ax.set_title("")


def update(k):
    counts, _ = np.histogram(particles[k], bins=edges, density=True)
    for b, c in zip(bars, counts):
        b.set_height(c)
    line.set_ydata(densities[k])
    title.set_text(f"t = {times[k]:.3f}, W1 = {w1[k]:.4f}")
    return (*bars, line, title)


anim = animation.FuncAnimation(fig, update, frames=len(times), interval=120, blit=False)
animation_html = anim.to_jshtml()
if GIF_PATH:
    anim.save(GIF_PATH, writer=animation.PillowWriter(fps=8))
    print("GIF written to", GIF_PATH)
plt.close(fig)
display(HTML(animation_html))

# %% [markdown]
# ## Things to try
# * `lam = 0`: independent particles; W1 then behaves like that of $N$ i.i.d. samples,
#   $\mathbb E W_1 \approx \sqrt{2/(\pi N)}\int\sqrt{F(1-F)}$.
# * Larger `lam` or smaller `beta`: the repulsion spreads the density against the walls.
# * `s = 1` (Riesz, $s = d$) or `s = 2` ($s > d$, the regime of 004 Thm 2) with `kind = "hard"`:
#   the energy of a density grows like $\ln(1/\delta)$ or $\delta^{d-s}$ (figure
#   `particles_riesz_s_vs_d`), so shrinking `delta` stiffens the dynamics; keep `eta` small.
# * `N` from 100 to 3000: the final W1 falls like $N^{-1/2}$ (figure `particles_w1_vs_n`).

# %%
summary = {"beta": beta, "lam": lam, "s": s, "N": N, "final_w1": float(w1[-1]),
           "mass_error": float(np.max(np.abs(np.array(mass) - 1))),
           "free_energy_monotone": bool(np.all(np.diff(F_pde) <= 1e-12))}
summary
