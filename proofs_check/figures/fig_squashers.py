"""000 Fig. 10 / 001 Fig. 4 / 002 Fig. 5: softermax, soft-sigmoid and soft-tanh (Y9).

softermax_n(x)_k = x_k^n/(delta + sum_i x_i^n),  sigma_n(x) = x^n/(1 + x^n),
tau_n(x) = (x^n - 1)/(x^n + 1) = 2 sigma_n(x) - 1, all from yatmath.yat (log-domain evaluation).
The papers call softermax's additive constant epsilon; here it is ``delta``.  Panels: softermax of
a fixed score vector for several n next to softmax; one softermax component as its own score
varies (the other scores fixed); sigma_n; tau_n.
"""
from __future__ import annotations

import numpy as np

from yatmath.yat import soft_sigmoid, soft_tanh, softermax

from ._common import stamp
from .registry import register_figure


def data(seed=0, n_values=(0.5, 1.0, 2.0, 4.0), delta=1e-3, scores=(0.5, 1.0, 2.0, 4.0, 1.5),
         others=(1.0, 2.0), x_max=5.0, n_grid=501):
    x = np.linspace(0.0, x_max, n_grid)
    sc = np.asarray(scores, float)
    sm = {n: softermax(sc, n=n, delta=delta) for n in n_values}
    e = np.exp(sc - sc.max())
    comp = {}
    for n in n_values:
        V = np.concatenate([x[:, None], np.broadcast_to(np.asarray(others, float), (x.size, len(others)))], axis=1)
        comp[n] = softermax(V, n=n, delta=delta, axis=-1)[:, 0]
    return {
        "x": x, "scores": sc, "softermax": sm, "softmax": e / e.sum(), "component": comp,
        "soft_sigmoid": {n: soft_sigmoid(x, n=n) for n in n_values},
        "soft_tanh": {n: soft_tanh(x, n=n) for n in n_values},
        "params": {"n": list(map(float, n_values)), "eps": float(delta),
                   "eps_meaning": "softermax's additive constant (the papers' epsilon; "
                                  "algorithms.md Y9 delta); no Yat kernel is evaluated",
                   "scores": sc.tolist(), "other_scores": list(map(float, others)),
                   "x_max": float(x_max), "n_grid": int(n_grid), "seed": int(seed)},
    }


@register_figure("squashers", paper="000 Fig. 10; 001 Fig. 4; 002 Fig. 5",
                 title="Softermax, soft-sigmoid and soft-tanh", data=data)
def draw(d, fig):
    p = d["params"]
    fig.set_size_inches(18, 4.6)
    a, b, c, e = fig.subplots(1, 4)
    ns = p["n"]
    k = np.arange(d["scores"].size)
    wbar = 0.8 / (len(ns) + 1)
    for i, n in enumerate(ns):
        a.bar(k + i * wbar, d["softermax"][n], wbar, label=f"softermax n={n:g}")
    a.bar(k + len(ns) * wbar, d["softmax"], wbar, color="0.4", label="softmax")
    a.set_xticks(k + 0.4 - wbar / 2, [f"{s:g}" for s in d["scores"]])
    a.set_xlabel("score x_k"), a.set_title("softermax of one score vector"), a.legend(fontsize=7)
    for n in ns:
        b.plot(d["x"], d["component"][n], label=f"n={n:g}")
        c.plot(d["x"], d["soft_sigmoid"][n], label=f"n={n:g}")
        e.plot(d["x"], d["soft_tanh"][n], label=f"n={n:g}")
    b.set_title(f"softermax_n(x; x, {', '.join(f'{o:g}' for o in p['other_scores'])})[0]")
    c.set_title("soft-sigmoid x^n/(1+x^n)"), e.set_title("soft-tanh (x^n-1)/(x^n+1)")
    for ax in (b, c, e):
        ax.set_xlabel("x >= 0"), ax.legend(fontsize=7), ax.axvline(1.0, color="0.7", lw=0.6)
    fig.suptitle(f"Squashers for non-negative scores; softermax eps (delta) = {p['eps']:g}")
    stamp(fig, p, keys=["n", "eps", "scores", "other_scores", "x_max"])
