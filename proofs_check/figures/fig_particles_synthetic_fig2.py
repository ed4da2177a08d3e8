"""004 Fig. 2 / Table 4: wall time against the number of samples n with power-law fits
t(n) = c n^gamma (solid: measured means; dashed: the fit extrapolated), next to Table 4's printed
fits (dotted).  Data from ``proofs_check.studies.synthetic.runtime_scaling`` (sigma = 1, p = 10,
D = 200, BLAS limited to one thread for the Langevin solver); fits by least squares on log t
with a bootstrap CI of gamma (``fit_power_law``).

Timings are hardware-dependent: 004 gives neither the hardware nor the n grid.  Default sizes are
small (n in {100, 200, 400}, 1 trial, Langevin T_max = 10, N_w = 2000) so that ``data()`` takes
seconds; the Langevin time per job scales with T_max, so its absolute level is T_max/2000 of the
printed protocol's.
"""
from __future__ import annotations

import numpy as np

from proofs_check.studies import synthetic as S

from ._common import stamp
from .fig_itnet_special_kernels import room_for_stamp
from .registry import register_figure

METHODS = ("mkl", "rbf_svm", "sinha_duchi", "rff", "langevin", "logistic")
#: 004 Table 4: gamma, c
TABLE4 = {"mkl": (1.961, 8.00e-5), "rbf_svm": (1.477, 3.00e-6), "sinha_duchi": (0.967, 3.55e-4),
          "rff": (0.799, 9.50e-5), "langevin": (0.730, 3.82e-1), "logistic": (0.021, 1.16e-1)}


def data(seed=0, ns=(100, 200, 400), n_trials=1, T_max=10, N_w=2000, methods=METHODS,
         extrapolate_to=10_000):
    r = S.runtime_scaling(tuple(methods), ns=tuple(ns), n_trials=n_trials,
                          options={"T_max": T_max, "N_w": N_w})
    n_ext = np.geomspace(min(ns), extrapolate_to, 50)
    fits = r["fits"]
    return {"ns": np.asarray(ns, float), "times": r["times"],
            "mean_times": {m: t.mean(axis=1) for m, t in r["times"].items()},
            "fits": fits, "n_ext": n_ext,
            "fit_curves": {m: fits[m]["c"] * n_ext ** fits[m]["gamma"] for m in methods},
            "paper_curves": {m: TABLE4[m][1] * n_ext ** TABLE4[m][0] for m in methods if m in TABLE4},
            "params": {"ns": [int(n) for n in ns], "n_trials": int(n_trials), "T_max": int(T_max),
                       "N_w": int(N_w), "sigma": 1.0, "p": 10, "D": 200, "seed": int(seed),
                       "x": "n = size of the whole design (70% train)"}}


@register_figure("particles_synthetic_fig2", paper="004 Fig. 2, Table 4",
                 title="Synthetic study: run time against n with power-law fits", data=data)
def draw(d, fig):
    p = d["params"]
    fig.set_size_inches(9, 6)
    ax = fig.subplots()
    for m, t in d["mean_times"].items():
        f = d["fits"][m]
        (ln,) = ax.loglog(d["ns"], t, "-o", label=f"{m}: gamma = {f['gamma']:.2f} "
                                                   f"[{f['gamma_ci'][0]:.2f}, {f['gamma_ci'][1]:.2f}]")
        ax.loglog(d["n_ext"], d["fit_curves"][m], "--", color=ln.get_color(), lw=1)
        if m in d["paper_curves"]:
            ax.loglog(d["n_ext"], d["paper_curves"][m], ":", color=ln.get_color(), lw=1)
    ax.set_xlabel("number of samples n"), ax.set_ylabel("wall time per job (s)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, title="measured (solid), fit (dashed), 004 Table 4 (dotted)", title_fontsize=7)
    fig.suptitle(f"Run-time scaling (sigma = 1, p = 10, D = 200); Langevin T_max = {p['T_max']} "
                 f"(paper 2000), N_w = {p['N_w']}, {p['n_trials']} trial(s)", fontsize=10)
    room_for_stamp(fig)
    stamp(fig, p, keys=["ns", "n_trials", "T_max", "N_w", "seed"])
