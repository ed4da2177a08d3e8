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
# # Particles that learn a kernel
# What the model of 004 is for (§2, App B, Alg 1; algorithms.md §P1-P3): the particles are the
# frequencies $\omega_k$ (and phases $b_k$) of random Fourier features, and their empirical
# measure $\mu_N$ defines the kernel
# $$K_{\mu_N}(x, x') = \frac1N\sum_{k=1}^N \phi_{\omega_k,b_k}(x)\,\phi_{\omega_k,b_k}(x'),\qquad
# \phi_{\omega,b}(x) = \sqrt2\cos(\omega^\top x + b).$$
# Langevin dynamics on the Hamiltonian $H_N = -\hat A + \lambda\,\mathcal W_{N,s}$ (the printed
# kernel-target alignment $\hat A = \frac{1}{n(n-1)}\sum_{i\ne j} y_iy_j K_{\mu_N}(x_i, x_j)$ of
# 004 eq.2.2 plus the Coulomb repulsion) moves the frequencies to where the labels have spectral
# power, so the kernel learns the task.  The target of the alignment is the label kernel
# $Y = yy^\top$.  The next cell is tagged `parameters` (papermill can inject values; convert
# first, from the repository root, with
# `jupytext --to notebook notebooks/kernel_learning.py`).

# %% tags=["parameters"]
n_train = 400        # training points (the alignment sees only these)
n_test = 400         # held-out points for every reported alignment and accuracy
freq = 2.5           # label frequency a (labels sign(sin(a x1) sin(a x2)), x uniform on [-pi, pi]^2)
N = 300              # particles (random features)
gamma = 0.5          # initial frequencies omega ~ N(0, 2 gamma I): the RBF kernel exp(-gamma |x-x'|^2)
eta = 0.5            # Langevin step
beta = 1000.0        # inverse temperature
lam = 0.5            # repulsion strength lambda
delta = 0.05         # Plummer softening of the Coulomb kernel
radius = 4.0         # the frequencies stay in the ball of this radius (projection)
clip = 1.0           # per-particle clipping of the drift N grad H_N
steps = 300          # Langevin steps
records = 10         # alignment records along the run
seed = 0

# %% [markdown]
# ## The task
# Inputs uniform on $[-\pi, \pi]^2$ and a checkerboard of labels,
# $y = \mathrm{sign}(\sin(a x_1)\sin(a x_2))$.  Since
# $\sin(ax_1)\sin(ax_2) = \frac12[\cos(a(x_1 - x_2)) - \cos(a(x_1 + x_2))]$, the labels' spectral
# power sits at the four frequencies $(\pm a, \pm a)$ (and weaker odd harmonics).  The initial
# frequencies are those of the Gaussian kernel, $\omega \sim N(0, 2\gamma I)$, mostly far
# inside $\|\omega\| = a\sqrt2$.

# %%
import time

import matplotlib.pyplot as plt
import numpy as np
from sklearn.svm import LinearSVC

from yatmath.particles import (Ball, Hamiltonian, alignment, features, make_interaction,
                               run_langevin)

rng = np.random.default_rng(seed)


def label(X):
    return np.sign(np.sin(freq * X[:, 0]) * np.sin(freq * X[:, 1]))


X = rng.uniform(-np.pi, np.pi, size=(n_train + n_test, 2))
y = label(X)
Xtr, ytr, Xte, yte = X[:n_train], y[:n_train], X[n_train:], y[n_train:]
Om0 = rng.normal(0.0, np.sqrt(2.0 * gamma), size=(N, 2))
b0 = rng.uniform(0.0, 2.0 * np.pi, N)
inter = make_interaction("plummer", "coulomb", delta, d=2)      # s = d - 2 = 0: -ln(r^2+delta^2)/2
H = Hamiltonian(Xtr, ytr, feature="rff", objective="printed", lam=lam,
                interaction=inter if lam else None, learn_phase=True)
print(f"{n_train} training / {n_test} test points, class balance {np.mean(ytr > 0):.2f}; "
      f"interaction {inter}")


def kta(Omega, b, Xs, ys):
    """Centred kernel-target alignment of K = Phi Phi^T / N with Y = y y^T (in [-1, 1])."""
    return alignment(features(Xs, Omega, b), ys, objective="centred_kta")[0]


# %% [markdown]
# ## The Langevin run (004 Alg 1)
# $\omega_k \leftarrow P_{\|\omega\|\le r}\big(\omega_k - \eta\,\mathrm{clip}(N\nabla_{\omega_k}H_N) + \sqrt{2\eta/\beta}\,\xi_k\big)$,
# the phases taking the same step; the alignment of the kernel with the labels is recorded on
# the training points (what the run optimises) and on the held-out points.

# %%
chunk = max(1, steps // records)
Omega, b = Om0, b0
history = {"step": [0], "train": [kta(Omega, b, Xtr, ytr)], "test": [kta(Omega, b, Xte, yte)],
           "energy": [H.energy(Omega, b)]}
t0 = time.perf_counter()
done = 0
while done < steps:
    m = min(chunk, steps - done)
    res = run_langevin(H, Omega, b0=b, eta=eta, beta=beta, n_steps=m, rng=rng,
                       domain=Ball(radius, 2), clip=clip, track_energy=False)
    Omega, b, done = res.Omega, res.b, done + m
    history["step"].append(done)
    history["train"].append(kta(Omega, b, Xtr, ytr))
    history["test"].append(kta(Omega, b, Xte, yte))
    history["energy"].append(H.energy(Omega, b))
run_seconds = time.perf_counter() - t0
print(f"{steps} steps of {N} particles in {run_seconds:.1f} s")
print(f"centred KTA on the test points: initial {history['test'][0]:.4f} -> learned {history['test'][-1]:.4f}")

# %% [markdown]
# ## The frequencies on the alignment landscape
# Averaged over the phase, the per-particle potential of the printed objective is
# $\bar V_D(\omega) = -\frac{1}{n(n-1)}\big(|\sum_i y_i e^{i\omega^\top x_i}|^2 - n\big)$
# (004 eq.B.9); it is exactly the mean of `Hamiltonian.potential` at the phases $0$ and $\pi/2$.
# Its wells are where the labels have spectral power.

# %%
g = np.linspace(-radius, radius, 81)
Wg = np.stack(np.meshgrid(g, g, indexing="xy"), axis=-1).reshape(-1, 2)
H0 = Hamiltonian(Xtr, ytr, feature="rff", objective="printed")
Vbar = 0.5 * (H0.potential(Wg, np.zeros(len(Wg))) + H0.potential(Wg, np.full(len(Wg), np.pi / 2)))

fig, axes = plt.subplots(1, 3, figsize=(15, 4.4), layout="constrained")
axes[0].scatter(*Xtr.T, c=ytr, s=6, cmap="coolwarm")
axes[0].set_title(f"training data, y = sign(sin({freq:g} x1) sin({freq:g} x2))"), axes[0].set_aspect("equal")
for ax, (O, name) in zip(axes[1:], ((Om0, "initial"), (Omega, f"after {steps} steps"))):
    im = ax.imshow(Vbar.reshape(len(g), len(g)), origin="lower", extent=(-radius, radius, -radius, radius),
                   cmap="magma")
    ax.plot(O[:, 0], O[:, 1], "c.", ms=3)
    ax.add_patch(plt.Circle((0, 0), radius, fill=False, color="w", lw=0.8))
    ax.plot(freq * np.array([1, 1, -1, -1]), freq * np.array([1, -1, 1, -1]), "w+", ms=12)
    ax.set_title(f"frequencies omega_k, {name}"), ax.set_xlabel("omega_1"), ax.set_ylabel("omega_2")
fig.colorbar(im, ax=axes[2], label="phase-averaged V_D(omega)")
plt.show()

# %% [markdown]
# ## The learned kernel beside the target
# Gram matrices on the held-out points sorted by label: the initial (Gaussian-RFF) kernel, the
# learned kernel, and the target $Y = yy^\top$ of the alignment.  The second row shows the
# stationary part of each kernel, $k(\delta) = \frac1N\sum_k\cos(\omega_k^\top\delta)$ (the
# phases averaged out: the mean of $K(\delta, 0)$ at phases $b$ and $b + \pi/2$), beside the
# target's stationary counterpart, the autocorrelation $\mathbb E_x[y(x)y(x+\delta)]$ of the
# labels (Monte Carlo over 2000 uniform $x$).

# %%
order = np.argsort(yte, kind="stable")
Kinit = features(Xte[order], Om0, b0) @ features(Xte[order], Om0, b0).T / N
Klearn = features(Xte[order], Omega, b) @ features(Xte[order], Omega, b).T / N
Y = np.outer(yte[order], yte[order])

d = np.linspace(-np.pi, np.pi, 61)
D = np.stack(np.meshgrid(d, d, indexing="xy"), axis=-1).reshape(-1, 2)
origin = np.zeros((1, 2))


def stationary(O, ph):
    """k(delta) = (1/N) sum cos(omega_k . delta) from the feature map at phases ph and ph + pi/2."""
    return sum((features(D, O, p) @ features(origin, O, p).T)[:, 0] / N for p in (ph, ph + np.pi / 2)) / 2


k_init, k_learn = stationary(Om0, b0), stationary(Omega, b)
xs = np.random.default_rng(seed + 1).uniform(-np.pi, np.pi, size=(2000, 2))
yx = label(xs)
k_target = np.array([np.mean(yx * label(xs + dl)) for dl in D])
corr = {name: float(np.corrcoef(k, k_target)[0, 1]) for name, k in (("initial", k_init), ("learned", k_learn))}

fig, axes = plt.subplots(2, 3, figsize=(13, 8.4), layout="constrained")
A_init, A_learn = history["test"][0], history["test"][-1]
for ax, Kmat, title in zip(axes[0], (Kinit, Klearn, Y),
                           (f"initial K (KTA {A_init:.3f})", f"learned K (KTA {A_learn:.3f})",
                            "target Y = y y^T")):
    lim = np.max(np.abs(Kmat))
    ax.imshow(Kmat, cmap="RdBu_r", vmin=-lim, vmax=lim)
    ax.set_title(title), ax.set_xticks([]), ax.set_yticks([])
for ax, k, title in zip(axes[1], (k_init, k_learn, k_target),
                        (f"initial k(delta) (corr {corr['initial']:.2f})",
                         f"learned k(delta) (corr {corr['learned']:.2f})",
                         "target: label autocorrelation")):
    lim = np.max(np.abs(k))
    ax.imshow(k.reshape(len(d), len(d)), origin="lower", extent=(-np.pi, np.pi, -np.pi, np.pi),
              cmap="RdBu_r", vmin=-lim, vmax=lim)
    ax.set_title(title), ax.set_xlabel("delta_1"), ax.set_ylabel("delta_2")
plt.show()

# %% [markdown]
# ## Does it help a classifier?  Alignment along the run and held-out accuracy
# A linear SVM (scikit-learn `LinearSVC`, C = 1) on the $N$ features, trained on the training
# points and scored on the held-out ones, with the initial and with the learned frequencies.

# %%
acc = {}
for name, (O, ph) in {"initial": (Om0, b0), "learned": (Omega, b)}.items():
    clf = LinearSVC(C=1.0, max_iter=100_000).fit(features(Xtr, O, ph), ytr)
    acc[name] = float(clf.score(features(Xte, O, ph), yte))

fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 3.6), layout="constrained")
a1.plot(history["step"], history["train"], "o-", label="train")
a1.plot(history["step"], history["test"], "s-", label="held out")
a1.set_xlabel("Langevin step"), a1.set_ylabel("centred KTA"), a1.legend()
a1.set_title("kernel-target alignment")
a2.plot(history["step"], history["energy"], "o-")
a2.set_xlabel("Langevin step"), a2.set_ylabel("H_N"), a2.set_title("Hamiltonian")
plt.show()
print(f"held-out accuracy of a linear SVM: initial features {acc['initial']:.3f}, "
      f"learned features {acc['learned']:.3f}")

# %% [markdown]
# ## Things to try
# * `lam = 0` (004's "robust" variant): without repulsion the particles can pile into a few
#   wells; compare the spread of the learned frequencies and the held-out numbers.
# * A higher `freq`: the initial Gaussian kernel (`gamma`) sees less of the labels' spectrum,
#   the learned one follows it as long as $a\sqrt2$ is inside `radius`.
# * `beta` small: the frequencies diffuse over the landscape instead of settling in its wells.
# * 004 Alg 2: `yatmath.particles.reweight` and `resample` draw $D < N$ features from the
#   particles with Gibbs weights; `notebooks/synthetic_study.py` runs the App F.1 study.

# %%
summary = {"n_train": n_train, "n_test": n_test, "N": N, "steps": steps, "freq": freq, "lam": lam,
           "kta_test_initial": float(A_init), "kta_test_learned": float(A_learn),
           "kta_train": [float(v) for v in history["train"]],
           "stationary_corr": corr, "accuracy": acc,
           "X_test": Xte.tolist(), "y_test": yte.tolist(),
           "Omega": Omega.tolist(), "b": b.tolist(), "Omega0": Om0.tolist(), "b0": b0.tolist()}
{k: v for k, v in summary.items() if k not in ("X_test", "y_test", "Omega", "b", "Omega0", "b0")}
