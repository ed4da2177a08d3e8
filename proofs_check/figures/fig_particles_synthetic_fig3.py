"""004 Fig. 3 (App F.1.7): ablation of the repulsion strength lambda for Coulomb (top, s = p - 2)
and Riesz (bottom; 004 does not give s: s = 1 here) interactions, test accuracy against sigma,
with the vanilla-RFF baseline and the Bayes accuracy.

Each lambda runs the printed Langevin (eta = 30, beta = 100, N = 300, D = 200, radius 5, clip 1,
bare kernel) through ``proofs_check.studies.synthetic.run_study``; lines are means over trials with
95% t-intervals.  Default sizes are small (lambda in {0, 0.5, 1.5}, 4 sigmas, 2 trials,
T_max = 10) so that ``data()`` takes seconds; the paper's are 6 lambdas, 10 trials, T_max = 2000.
"""
from __future__ import annotations

import numpy as np

from proofs_check.studies import synthetic as S

from ._common import stamp
from .fig_itnet_special_kernels import room_for_stamp
from .registry import register_figure


def data(seed=0, lams=(0.0, 0.5, 1.5), n_sigmas=4, n_trials=2, T_max=10, riesz_s=1.0):
    p = 10
    kernels = {"Coulomb (s = p - 2 = 8)": ("none", "coulomb", 0.0),
               f"Riesz (s = {riesz_s:g})": ("none", float(riesz_s), 0.0)}
    mo = {"rff": {}}
    names = {}
    for kn, it in kernels.items():
        for lam in lams:
            key = f"{kn}|{lam}"
            mo[key] = {"base": "langevin", "lam": float(lam), "interaction": it}
            names[key] = (kn, float(lam))
    res = S.run_study(tuple(mo), n_sigmas=n_sigmas, n_trials=n_trials, p=p,
                      options={"T_max": T_max}, method_options=mo)
    summ = {m: S.summarize(v) for m, v in res.acc.items()}
    curves = {kn: {lam: {"mean": summ[k][0], "lo": summ[k][1], "hi": summ[k][2]}
                   for k, (kk, lam) in names.items() if kk == kn} for kn in kernels}
    return {"sigmas": res.sigmas, "curves": curves, "acc_raw": res.acc,
            "rff": {"mean": summ["rff"][0], "lo": summ["rff"][1], "hi": summ["rff"][2]},
            "bayes": res.bayes,
            "params": {"lams": [float(x) for x in lams], "n_sigmas": int(n_sigmas),
                       "n_trials": int(n_trials), "T_max": int(T_max), "riesz_s": float(riesz_s),
                       "kernels": {k: list(v) for k, v in kernels.items()}, "p": p, "seed": int(seed),
                       "band": "95% t-interval over trials"}}


@register_figure("particles_synthetic_fig3", paper="004 Fig. 3 (App F.1.7)",
                 title="Synthetic study: repulsion-strength ablation (Coulomb, Riesz)", data=data)
def draw(d, fig):
    p = d["params"]
    fig.set_size_inches(9, 9)
    axes = fig.subplots(2, 1, sharex=True)
    s = d["sigmas"]
    for ax, (kn, cur) in zip(axes, d["curves"].items()):
        for lam, v in cur.items():
            (ln,) = ax.semilogx(s, v["mean"], "-o", ms=3, label=f"lambda = {lam:g}")
            ax.fill_between(s, np.clip(np.nan_to_num(v["lo"], nan=0.5), 0, 1),
                            np.clip(np.nan_to_num(v["hi"], nan=0.5), 0, 1),
                            color=ln.get_color(), alpha=0.1)
        ax.semilogx(s, d["rff"]["mean"], "-s", color="0.4", label="RFF baseline")
        ax.semilogx(s, d["bayes"], "k--", lw=2, label="Bayes-optimal")
        ax.axhline(0.5, color="0.6", lw=0.8, ls=":")
        ax.set_title(kn, fontsize=10)
        ax.set_ylabel("test accuracy")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, loc="lower left")
    axes[-1].set_xlabel("logit noise standard deviation sigma")
    fig.suptitle(f"Repulsion ablation: {p['n_trials']} trials, T_max = {p['T_max']} (paper 2000), "
                 f"lambdas {p['lams']} (paper 0, 0.2, 0.5, 0.8, 1.0, 1.5)", fontsize=10)
    room_for_stamp(fig)
    stamp(fig, p, keys=["n_sigmas", "n_trials", "T_max", "riesz_s", "seed", "band"])
