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
# # Particle dynamics beside the McKean-Vlasov density
# 004 Alg 1 and Thm 1 (algorithms.md §P3-P5), in one dimension.  Change the parameters in the
# next cell and re-run the notebook, or use the sliders of the interactive section at the end.
# The cell is tagged `parameters`, so papermill can inject values; from the repository root,
# `jupytext --to notebook notebooks/particle_dynamics.py`, then
# `papermill notebooks/particle_dynamics.ipynb notebooks/particle_dynamics.out.ipynb --cwd notebooks -p N 300 -p lam 1.0`
# (a relative `gif_path` is then written beside the notebook, as when JupyterLab runs it).

# %% tags=["parameters"]
beta = 20.0          # inverse temperature
lam = 0.5            # repulsion strength lambda
s = 0.0              # kernel exponent: 0 log, > 0 Riesz, (-2, 0) the App B kernels
N = 1000             # number of particles
eta = 0.003          # Langevin step (time after m steps: m * eta)
kind = "plummer"     # "plummer" (smooth) or "hard" (004 eq.A.36 truncation)
delta = 0.1          # softening length
T = 1.2              # final time
M = 200              # finite-volume cells on [-1, 1]
frames = 40          # animation frames
bins = 40            # histogram bins
seed = 0
gif_path = ""        # a path here also writes the animation as a GIF (PillowWriter, no ffmpeg)
interactive = True   # sliders (ipywidgets) in the last section; False: static output there

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
import functools
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


@functools.lru_cache(maxsize=8)
def simulate(beta, lam, s, N, eta, T, frames):
    """Particles and the FV density from the same initial law to time ~T, at ``frames + 1`` times.

    Between frames the particles take ``steps_per_frame`` Langevin steps and the PDE takes
    explicit steps at its stable time step up to the same time.  ``kind``, ``delta``, ``M`` and
    ``seed`` come from the parameters cell.  Cached: the same arguments return the same run.
    """
    inter = make_interaction(kind, s, delta) if lam else None
    grid = FVGrid.interval(-1.0, 1.0, M)
    pde = McKeanVlasovFV(grid, V, lam=lam, interaction=inter, beta=beta, flux="sg")
    H = FieldHamiltonian(V, grad_V, lam=lam, interaction=inter)
    rho = grid.normalise(np.exp(-0.5 * ((grid.x - 0.4) / 0.15) ** 2))
    rng = np.random.default_rng(seed)
    p0 = rho * grid.h
    cells = rng.choice(grid.M, size=N, p=p0 / p0.sum())
    W = grid.edges[cells] + grid.h * rng.random(N)       # N iid draws of the piecewise-constant rho0
    steps_per_frame = max(1, int(round(T / (eta * frames))))
    out = {"grid": grid, "inter": inter, "times": [0.0], "particles": [W.copy()],
           "densities": [rho.copy()], "mass": [grid.mass(rho)], "F_pde": [pde.free_energy(rho)],
           "H_particles": [H.energy(W[:, None])], "w1": [w1_density(W, grid.edges, rho)]}
    t0 = time.perf_counter()
    for _ in range(frames):
        W = run_langevin(H, W, eta=eta, beta=beta, n_steps=steps_per_frame, rng=rng,
                         domain=Interval(-1.0, 1.0), boundary="reflect", track_energy=False).Omega
        rho = pde.run(rho, steps_per_frame * eta, scheme="explicit").rho
        out["times"].append(out["times"][-1] + steps_per_frame * eta)
        out["particles"].append(W.copy())
        out["densities"].append(rho.copy())
        out["mass"].append(grid.mass(rho))
        out["F_pde"].append(pde.free_energy(rho))
        out["H_particles"].append(H.energy(W[:, None]))
        out["w1"].append(w1_density(W, grid.edges, rho))
    out["seconds"] = time.perf_counter() - t0
    out["steps"] = steps_per_frame * frames
    for key in ("times", "w1", "mass", "F_pde", "H_particles"):
        out[key] = np.array(out[key])
    return out


def draw(run, beta, lam, s, N, eta):
    """Snapshots at t = 0 and the last time, W1 to the PDE, and the energies (one figure)."""
    grid, times, N = run["grid"], run["times"], len(run["particles"][0])
    edges = np.linspace(-1, 1, bins + 1)
    fig, axes = plt.subplots(1, 4, figsize=(15, 3.6), layout="constrained")
    for ax, k in zip(axes[:2], (0, len(times) - 1)):
        ax.hist(run["particles"][k], bins=edges, density=True, alpha=0.4, label=f"particles (N = {N})")
        ax.plot(grid.x, run["densities"][k], "r-", label="FV density")
        ax.set_title(f"t = {times[k]:.3g}"), ax.set_xlabel("w")
    axes[0].legend(fontsize=8)
    axes[2].plot(times, run["w1"], "o-", label="W1(particles, rho_t)")
    axes[2].axhline(N ** -0.5 * 0.3, color="k", ls=":", lw=1, label="0.3 N^-1/2 (scale)")
    axes[2].set_xlabel("t"), axes[2].legend(fontsize=8), axes[2].set_title("distance to the PDE")
    axes[3].plot(times, run["F_pde"], "r-", label="PDE free energy F_h")
    axes[3].plot(times, run["H_particles"], "o", ms=3, label="particles H_N (no entropy)")
    axes[3].set_xlabel("t"), axes[3].legend(fontsize=8), axes[3].set_title("energies")
    fig.suptitle(f"beta = {beta:g}, lambda = {lam:g}, {kind} s = {s:g}, delta = {delta:g}, "
                 f"eta = {eta:g}, N = {N}", fontsize=10)
    return fig


# %% [markdown]
# ## Run both side by side
# The frames are equally spaced in time; the run ends at `frames * steps_per_frame * eta`.

# %%
run = simulate(beta, lam, s, N, eta, T, frames)
times, w1, mass, grid = run["times"], run["w1"], run["mass"], run["grid"]
print(f"interaction: {run['inter']}, g(0) = {run['inter'].g_at_zero() if run['inter'] else 0:.4g}")
print(f"{frames} frames, {run['steps']} Langevin steps (t = {times[-1]:.4g}) in {run['seconds']:.2f} s")
print(f"max |mass - 1| of the PDE: {np.max(np.abs(mass - 1)):.2e}")
print(f"W1(particles, rho_t) at the end: {w1[-1]:.4f}  (N^-1/2 = {N ** -0.5:.4f})")

# %% [markdown]
# ## Snapshots, the distance to the PDE and the energies

# %%
draw(run, beta, lam, s, N, eta)
plt.show()

# %% [markdown]
# ## Animation
# `to_jshtml` embeds the frames as JavaScript (no ffmpeg); set `gif_path` to also save a GIF.

# %%
matplotlib.rcParams["animation.embed_limit"] = 50.0     # MB
particles, densities = run["particles"], run["densities"]
edges = np.linspace(-1, 1, bins + 1)
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
if gif_path:
    anim.save(gif_path, writer=animation.PillowWriter(fps=8))
    print("GIF written to", gif_path)
plt.close(fig)
display(HTML(animation_html))

# %% [markdown]
# ## Interactive: move the sliders
# Each change of beta, lambda, s, N or the step eta re-runs the particles and the PDE (same
# initial law, same `T` and `frames`) and draws the figure of the previous section again below
# the sliders; the sliders act when released.  Where ipywidgets is missing, or with `interactive = False` (papermill, nbconvert:
# no live kernel behind the page), this cell draws the figure once for the parameters above.

# %%
def explore(beta=beta, lam=lam, s=s, N=N, eta=eta):
    """Re-run and redraw for one choice of the slider values."""
    r = simulate(float(beta), float(lam), float(s), int(N), float(eta), T, frames)
    draw(r, beta, lam, s, N, eta)
    plt.show()
    print(f"final W1 = {r['w1'][-1]:.4f}, {r['steps']} steps in {r['seconds']:.2f} s")


try:
    import ipywidgets as widgets
    fallback_reason = "interactive = False"
except ImportError as exc:
    widgets = None
    fallback_reason = f"ipywidgets is unavailable ({exc})"

if interactive and widgets is not None:
    slider = dict(continuous_update=False, style={"description_width": "initial"})
    sliders = {
        "beta": widgets.FloatLogSlider(value=beta, base=10, min=0, max=3, step=0.05,
                                       description="beta", **slider),
        "lam": widgets.FloatSlider(value=lam, min=0.0, max=2.0, step=0.05, description="lambda",
                                   **slider),
        "s": widgets.FloatSlider(value=s, min=-1.5, max=3.0, step=0.25, description="s", **slider),
        "N": widgets.IntSlider(value=N, min=20, max=3000, step=10, description="N", **slider),
        "eta": widgets.FloatLogSlider(value=eta, base=10, min=-4, max=-1.5, step=0.05,
                                      description="step eta", **slider),
    }
    widgets.interact(explore, **sliders)
    explore_mode = "widgets"
else:
    print(f"static output ({fallback_reason}): beta = {beta:g}, lambda = {lam:g}, s = {s:g}, "
          f"N = {N}, eta = {eta:g}")
    explore()
    explore_mode = "static"

# %% [markdown]
# ## Things to try
# * `lam = 0`: independent particles; W1 then behaves like that of $N$ i.i.d. samples,
#   $\mathbb E W_1 \approx \sqrt{2/(\pi N)}\int\sqrt{F(1-F)}$.
# * Larger `lam` or smaller `beta`: the repulsion spreads the density against the walls.
# * `s = 1` (Riesz, $s = d$) or `s = 2` ($s > d$, the regime of 004 Thm 2) with `kind = "hard"`:
#   the energy of a density grows like $\ln(1/\delta)$ or $\delta^{d-s}$ (figure
#   `particles_riesz_s_vs_d`), so shrinking `delta` stiffens the dynamics; keep `eta` small.
# * `N` from 100 to 3000: the final W1 falls like $N^{-1/2}$ (figure `particles_w1_vs_n`).
# * `notebooks/particles_2d.py`: the same comparison in two dimensions, Coulomb against Riesz.

# %%
summary = {"beta": beta, "lam": lam, "s": s, "N": N, "eta": eta, "T": T, "M": M,
           "frames": frames, "final_time": float(times[-1]), "final_w1": float(w1[-1]),
           "mass_error": float(np.max(np.abs(mass - 1))),
           "free_energy_monotone": bool(np.all(np.diff(run["F_pde"]) <= 1e-12)),
           "explore_mode": explore_mode}
summary
