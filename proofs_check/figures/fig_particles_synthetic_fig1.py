"""004 Fig. 1: test accuracy (left) and binary F1 (right) against the logit-noise standard deviation
sigma for the §P7 methods, with the Bayes-optimal accuracy overlaid (algorithms.md §P6-P8).

Data: ``proofs_check.studies.synthetic.run_study`` on the §P6 design (seed 42, n = 400, p = 10, split
280/120, per-job seeds default_rng([si, trial, 2026])).  Lines are means over trials with 95%
t-intervals (shaded; 004 shades +-1 SD over 10 trials).  The Bayes curve is mean max(pi, 1 - pi)
over the 120 test points (pi from ``bayes_posterior``, accurate to 1e-9); it bounds every
method's *expected* accuracy.  The x axis is sigma (App F.1.1), not the caption's sigma^2.

Default sizes are small so that ``data()`` takes seconds (5 sigmas, 2 trials, Langevin T_max = 20,
Sinha-Duchi N_w = 2000); the paper's sizes are n_sigmas = 11, n_trials = 10, T_max = 2000,
N_w = 10000.  The sizes are written on the figure.
"""
from __future__ import annotations

import numpy as np

from proofs_check.studies import synthetic as S

from ._common import stamp
from .fig_itnet_special_kernels import room_for_stamp
from .registry import register_figure

METHODS = ("logistic", "rbf_svm", "rbf_svm_g0.01", "rbf_svm_g100", "rff", "sinha_duchi",
           "langevin", "langevin_robust")
LABELS = {"logistic": "Linear logistic", "rbf_svm": "SVM RBF (gamma = 0.5)",
          "rbf_svm_g0.01": "SVM RBF (gamma = 0.01)", "rbf_svm_g100": "SVM RBF (gamma = 100)",
          "rff": "RFF (linear SVM)", "sinha_duchi": "Optimized RFF (importance sampling)",
          "langevin": "Langevin Alg-1 (lambda = 0.5)", "langevin_robust": "Langevin robust (lambda = 0)",
          "mkl": "MKL substitute"}


def data(seed=0, n_sigmas=5, n_trials=2, T_max=20, N_w=2000, methods=METHODS):
    res = S.run_study(tuple(methods), n_sigmas=n_sigmas, n_trials=n_trials,
                      options={"T_max": T_max, "N_w": N_w})
    acc = {m: S.summarize(v) for m, v in res.acc.items()}
    f1 = {m: S.summarize(v) for m, v in res.f1.items()}
    return {"sigmas": res.sigmas, "acc_raw": res.acc, "f1_raw": res.f1,
            "acc": {m: {"mean": a[0], "lo": a[1], "hi": a[2]} for m, a in acc.items()},
            "f1": {m: {"mean": a[0], "lo": a[1], "hi": a[2]} for m, a in f1.items()},
            "bayes": res.bayes, "bayes_probit": res.bayes_probit,
            "params": {**res.params, "T_max": int(T_max), "N_w": int(N_w), "seed": int(seed),
                       "seed_note": "protocol seeds are fixed (42; [si, trial, 2026]); seed is recorded only",
                       "band": "95% t-interval over trials"}}


def _panel(ax, d, key, ylabel):
    s = d["sigmas"]
    for m, v in d[key].items():
        (ln,) = ax.semilogx(s, v["mean"], "-o", ms=3, lw=1.2, label=LABELS.get(m, m))
        lo, hi = np.nan_to_num(v["lo"], nan=v["mean"]), np.nan_to_num(v["hi"], nan=v["mean"])
        ax.fill_between(s, np.clip(lo, 0, 1), np.clip(hi, 0, 1), color=ln.get_color(), alpha=0.12)
    if key == "acc":
        ax.semilogx(s, d["bayes"], "k--", lw=2, label="Bayes-optimal accuracy")
    ax.axhline(0.5, color="0.6", lw=0.8, ls=":")
    ax.set_xlabel("logit noise standard deviation sigma")
    ax.set_ylabel(ylabel)
    ax.grid(True, which="both", alpha=0.3)


@register_figure("particles_synthetic_fig1", paper="004 Fig. 1 (App F.1.6)",
                 title="Synthetic study: accuracy and F1 against noise, Bayes accuracy overlaid", data=data)
def draw(d, fig):
    p = d["params"]
    fig.set_size_inches(13, 5.5)
    a1, a2 = fig.subplots(1, 2)
    _panel(a1, d, "acc", "test accuracy")
    _panel(a2, d, "f1", "test F1 (binary, positive = 1)")
    a1.legend(fontsize=7, loc="lower left")
    fig.suptitle(f"004 Fig. 1 re-run: {len(d['sigmas'])} sigmas x {p['n_trials']} trials, "
                 f"Langevin T_max = {p['T_max']} (paper 2000), N_w = {p['N_w']} (paper 1e4); "
                 f"n = {p['n']}, p = {p['p']}, 280/120 split", fontsize=10)
    room_for_stamp(fig)
    stamp(fig, p, keys=["n", "p", "n_trials", "T_max", "N_w", "seed", "band"])
