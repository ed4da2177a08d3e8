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
# # The synthetic classification study of 004 App F.1, explored
# algorithms.md §P6-P8.  Pick the sizes in the next cell and re-run.  The cell is tagged
# `parameters`, so papermill can inject values: from the repository root,
# `jupytext --to notebook notebooks/synthetic_study.py`, then
# `papermill notebooks/synthetic_study.ipynb notebooks/synthetic_study.out.ipynb --cwd notebooks -p preset small`.

# %% tags=["parameters"]
preset = "default"   # "small" (seconds), "default" (minutes on 2 cores), "paper" (hours)

# %% [markdown]
# The presets: `"paper"` is the sizes 004 prints (`proofs_check.studies.synthetic.PAPER`: N = 300
# particles, D = 200 features, T_max = 2000 steps, N_w = 10^4 candidates, 10 trials);
# `"default"` shortens the runs and the trials; `"small"` is for a quick look and the tests.

# %%
PRESETS = {
    "small": {"n_sigmas": 3, "n_trials": 2, "sizes": {"N": 40, "D": 30, "T_max": 15, "N_w": 400},
              "runtime_ns": (100, 200), "sigma_demo": 1.0, "demo_steps": 15},
    "default": {"n_sigmas": 11, "n_trials": 3,
                "sizes": {"N": 300, "D": 200, "T_max": 300, "N_w": 4000},
                "runtime_ns": (100, 200, 400, 800), "sigma_demo": 1.0, "demo_steps": 300},
    "paper": {"n_sigmas": 11, "n_trials": 10, "sizes": {},     # the defaults of synthetic.py are the paper's
              "runtime_ns": (100, 200, 400, 800), "sigma_demo": 1.0, "demo_steps": 2000},
}
if preset not in PRESETS:
    raise ValueError(f"preset must be one of {sorted(PRESETS)}, got {preset!r}")
n_sigmas, n_trials, sizes, runtime_ns, sigma_demo, demo_steps = (
    PRESETS[preset][k] for k in ("n_sigmas", "n_trials", "sizes", "runtime_ns", "sigma_demo", "demo_steps"))
methods = ("logistic", "rbf_svm", "rff", "sinha_duchi", "langevin", "langevin_robust")
print(f"preset {preset!r}: {n_sigmas} noise levels x {n_trials} trials, sizes {sizes or 'of 004'}")

# %% [markdown]
# ## The data of 004 App F.1
# $X \sim N(0, I_{10})$, $n = 400$, logit
# $l(x) = 1.5\sin(\pi x_1) + 0.8x_2^2 - x_3x_4 + 0.5\sin(3x_5) + x_{6:10}\cdot w$, and labels
# $y = 1\{u < \sigma(l(x) + \xi)\}$ with $\xi \sim N(0, \sigma^2)$.  The Bayes classifier predicts
# $1\{l(x) > 0\}$ whatever $\sigma$; its accuracy $\mathbb E\max(\pi, 1 - \pi)$ with
# $\pi(x) = \mathbb E_z[\mathrm{expit}(l(x) + \sigma z)]$ falls to 1/2 as $\sigma \to \infty$.

# %%
import time

import matplotlib.pyplot as plt
import numpy as np

from yatmath.particles import Ball, Hamiltonian, run_langevin
from proofs_check.studies import synthetic as S

design = S.make_design()
Xtr, Xte = design.X[design.train], design.X[design.test]
sig_fine = np.logspace(-2, 2, 41)
bayes_gh = [S.bayes_accuracy(design.logit[design.test], s) for s in sig_fine]
bayes_probit = [S.bayes_accuracy(design.logit[design.test], s, "probit") for s in sig_fine]

fig, (a, b) = plt.subplots(1, 2, figsize=(11, 3.6), layout="constrained")
a.hist(design.logit, bins=40)
a.set_xlabel("logit l(x)"), a.set_title(f"logits of the n = {design.X.shape[0]} points")
b.semilogx(sig_fine, bayes_gh, label="Bayes accuracy (quadrature)")
b.semilogx(sig_fine, bayes_probit, "--", label="probit approximation")
b.set_xlabel("noise sigma"), b.set_ylabel("accuracy on the test split"), b.legend()
plt.show()
print(design.params, f"train {design.train.size} / test {design.test.size}")

# %% [markdown]
# ## Accuracy and F1 against the noise (004 Fig. 1)
# Every method is fitted on the same labels for each $(\sigma, \text{trial})$; the band is a 95%
# t-interval over trials, the black line the Bayes accuracy on the same test points.

# %%
t0 = time.perf_counter()
study = S.run_study(methods, n_sigmas=n_sigmas, n_trials=n_trials, options=sizes)
study_seconds = time.perf_counter() - t0
print(f"{len(methods)} methods x {n_sigmas} sigmas x {n_trials} trials in {study_seconds:.1f} s")

fig, axes = plt.subplots(1, 2, figsize=(12, 4.2), layout="constrained")
for ax, metric, values in ((axes[0], "accuracy", study.acc), (axes[1], "F1 (binary)", study.f1)):
    for m in methods:
        mean, lo, hi, _ = S.summarize(values[m])
        ax.semilogx(study.sigmas, mean, "o-", ms=3, label=m)
        if n_trials > 1:
            ax.fill_between(study.sigmas, lo, hi, alpha=0.15)
    if metric == "accuracy":
        ax.semilogx(study.sigmas, study.bayes, "k-", lw=2, label="Bayes")
    ax.set_xlabel("noise sigma"), ax.set_ylabel(metric), ax.legend(fontsize=7)
plt.show()

# %% [markdown]
# ## Alg-1 ($\lambda = 0.5$, repulsion) against the "robust" run ($\lambda = 0$)
# Paired over all $(\sigma, \text{trial})$ cells: mean difference, t-interval, Wilcoxon p-value.

# %%
paired = S.paired_difference(study.acc["langevin"], study.acc["langevin_robust"])
paired

# %% [markdown]
# ## Inside the Langevin feature learning
# The particles $(\omega_k, b_k)$ are random-Fourier frequencies and phases; the Hamiltonian is
# the printed alignment $-\hat A(\sqrt2\cos(X\omega + b))$ plus $\lambda W_{N,s}$ (log kernel),
# run by 004 Alg 1 in the ball of radius 5 with per-particle clipping (the settings of App F.1.2).
# Here we run it directly with `yatmath.particles` at one noise level and watch the energy and
# the spread of the frequencies with and without repulsion.

# %%
si = int(np.argmin(np.abs(study.sigmas - sigma_demo)))
y = S.draw_labels(design.logit, study.sigmas[si], si, 0)
ypm = 2.0 * y[design.train] - 1.0
P = S.PAPER
N_demo = sizes.get("N", P["N"])
runs = {}
for lam in (P["lam_alg1"], 0.0):
    r = np.random.default_rng([si, 0, 2026, 7])
    H = Hamiltonian(Xtr, ypm, feature="rff", objective="printed", lam=lam,
                    interaction=("none", 0.0, 0.0) if lam else None, learn_phase=True)
    Om0 = r.normal(0.0, np.sqrt(2 * P["gamma"]), size=(N_demo, Xtr.shape[1]))
    b0 = r.uniform(0.0, 2 * np.pi, N_demo)
    runs[lam] = run_langevin(H, Om0, b0=b0, eta=P["eta"], beta=P["beta"], n_steps=demo_steps, rng=r,
                             domain=Ball(P["radius"], Xtr.shape[1]), clip=P["clip"],
                             record_every=max(1, demo_steps // 30))
    runs[lam].Omega0 = Om0

norm_bins = np.linspace(0.0, 1.02 * P["radius"], 35)
on_sphere = {}
fig, (a, b) = plt.subplots(1, 2, figsize=(11, 3.6), layout="constrained")
for lam, res in runs.items():
    norms = np.linalg.norm(res.Omega, axis=1)
    on_sphere[lam] = float(np.mean(norms > P["radius"] * (1 - 1e-9)))
    a.plot(res.history["step"], res.history["energy"], "o-", ms=3, label=f"lambda = {lam:g}")
    b.hist(norms, bins=norm_bins, alpha=0.5, label=f"lambda = {lam:g}")
b.hist(np.linalg.norm(runs[0.0].Omega0, axis=1), bins=norm_bins, histtype="step", color="k", label="initial")
a.set_xlabel("step"), a.set_ylabel("H_N"), a.legend(), a.set_title("Hamiltonian along the run")
b.set_xlabel("||omega_k||"), b.legend(), b.set_title(f"frequency norms (radius {P['radius']:g})")
plt.show()
# With eta = 30 and the drift clipped to norm 1, one step can move a particle by 30 > the radius 5,
# so the projection puts (almost) every particle on the sphere ||omega|| = 5 after a few steps:
print("fraction of particles on the sphere:", on_sphere)

# %% [markdown]
# ## Runtime scaling (004 Fig. 2)
# Wall time of fit + predict against the sample size, with a least-squares power law per method.

# %%
rt = S.runtime_scaling(("logistic", "rbf_svm", "rff", "langevin"), ns=runtime_ns, n_trials=1,
                       options=sizes)
fig, ax = plt.subplots(figsize=(6, 4), layout="constrained")
for m, t in rt["times"].items():
    ax.loglog(rt["ns"], t.mean(1), "o-", label=f"{m}: n^{rt['fits'][m]['gamma']:.2f}")
ax.set_xlabel("n"), ax.set_ylabel("seconds"), ax.legend(fontsize=8)
plt.show()

# %%
study_summary = {
    "sigmas": study.sigmas.tolist(),
    "bayes": study.bayes.tolist(),
    "mean_acc": {m: S.summarize(study.acc[m])[0].tolist() for m in methods},
    "langevin_minus_robust": paired["mean"],
    "fraction_on_sphere": {str(k): v for k, v in on_sphere.items()},
    "energy_drop": {str(lam): float(res.history["energy"][0] - res.history["energy"][-1])
                    for lam, res in runs.items()},
    "runtime_exponents": {m: f["gamma"] for m, f in rt["fits"].items()},
    "sizes": sizes, "n_trials": n_trials, "preset": preset,
}
study_summary
