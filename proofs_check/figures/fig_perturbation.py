"""000 Fig. 7(b): input-perturbation robustness, |K(w, x') - K(w, x)| against ||x' - x||.

Setting of 000 Prop 3/4: ||w|| <= 1, x and x' in the closed unit ball of R^d.  Pairs are drawn
as x uniform in the ball and x' = x + r delta (delta a uniform unit direction, r uniform in
(0, r_max]), kept only when x' stays in the ball.  The papers' constant L = 2/eps + 4/eps^2 is
drawn as a line; the data also record the largest observed ratio |dK|/||dx|| and its ratio to
L.  Random pairs are not an adversarial search (that is the ledger's yat.perturbation_robustness).
"""
from __future__ import annotations

import numpy as np

from ._common import rng_for, stamp, yat
from .registry import register_figure


def _ball(rng, n, d):
    g = rng.standard_normal((n, d))
    g /= np.linalg.norm(g, axis=1, keepdims=True)
    return g * rng.random((n, 1)) ** (1.0 / d)


def paper_constant(eps):
    """000 Prop 3's Lipschitz constant on the unit ball, L = 2/eps + 4/eps^2."""
    return 2.0 / eps + 4.0 / eps ** 2


def data(seed=0, eps_values=(0.5, 1.0, 2.0), w=(0.6, 0.8), n_pairs=3000, r_max=0.5):
    w = np.asarray(w, float)
    if np.linalg.norm(w) > 1 + 1e-12:
        raise ValueError(f"w must satisfy ||w|| <= 1 (the papers' setting), got {w}")
    d = w.size
    rng = rng_for(seed, 7)
    X = _ball(rng, 4 * n_pairs, d)
    dirs = rng.standard_normal(X.shape)
    dirs /= np.linalg.norm(dirs, axis=1, keepdims=True)
    r = r_max * (1.0 - rng.random((X.shape[0], 1)))          # in (0, r_max]
    Xp = X + r * dirs
    keep = np.linalg.norm(Xp, axis=1) <= 1.0
    X, Xp = X[keep][:n_pairs], Xp[keep][:n_pairs]
    dx = np.linalg.norm(Xp - X, axis=1)
    out = {"dx": dx, "dK": {}, "max_ratio": {}, "L": {}, "x": X, "x_prime": Xp}
    for e in eps_values:
        dK = np.abs(yat(w, Xp, e) - yat(w, X, e))
        out["dK"][e] = dK
        out["max_ratio"][e] = float(np.max(dK / dx))
        out["L"][e] = paper_constant(e)
    out["params"] = {"w": w.tolist(), "eps": list(map(float, eps_values)),
                     "n_pairs": int(len(dx)), "r_max": float(r_max), "d": int(d),
                     "seed": int(seed), "sampling": "x uniform in unit ball, x' = x + r delta"}
    return out


@register_figure("perturbation_robustness", paper="000 Fig. 7(b)",
                 title="Input perturbation robustness of the Yat product", data=data)
def draw(d, fig):
    p = d["params"]
    fig.set_size_inches(5.2 * len(p["eps"]), 4.8)
    axs = np.atleast_1d(fig.subplots(1, len(p["eps"])))
    for ax, e in zip(axs, p["eps"]):
        dK = d["dK"][e]
        ax.scatter(d["dx"], dK, s=3, alpha=0.4, label="random pairs")
        xx = np.linspace(0, d["dx"].max(), 50)
        ax.plot(xx, d["L"][e] * xx, "r--", label=f"paper bound L dx, L = 2/eps+4/eps^2 = {d['L'][e]:.3g}")
        ax.plot(xx, d["max_ratio"][e] * xx, "k:", label=f"max observed ratio {d['max_ratio'][e]:.3g}")
        ax.set_ylim(0, 1.15 * max(dK.max(), d["max_ratio"][e] * xx[-1]))
        ax.set_xlabel("||x' - x||"), ax.set_ylabel("|K(w,x') - K(w,x)|")
        ax.set_title(f"eps = {e:g}", fontsize=10)
        ax.legend(fontsize=7, loc="upper left")
    fig.suptitle(f"Perturbation robustness, w = {tuple(p['w'])} (||w|| <= 1), x, x' in the unit "
                 f"ball, {p['n_pairs']} pairs, r_max = {p['r_max']:g}")
    stamp(fig, p)
