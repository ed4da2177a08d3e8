"""001 Fig. 5 / 002 Fig. 6: loss landscapes of a single dot-product neuron and a single Yat
neuron on XOR, as functions of the weight w in R^2.

The papers do not state the loss; this figure uses reading R1 of claims.md yat.xor.loss_landscape:
mean squared error of the raw output, L(w) = (1/4) sum_i (f_w(x_i) - y_i)^2 over
x in {(0,0),(0,1),(1,0),(1,1)}, y = (0,1,1,0), with f_w(x) = w.x (no bias) or K(w, x).  The data
also hold, for every grid w, whether the neuron's outputs separate the classes by a threshold
(max over negatives < min over positives).  For the bias-free dot neuron this is impossible:
f(1,1) = f(0,1) + f(1,0) and f(0,0) = 0.
"""
from __future__ import annotations

import numpy as np

from ._common import grid2d, stamp, yat
from .registry import register_figure

XOR_X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
XOR_Y = np.array([0.0, 1.0, 1.0, 0.0])


def outputs(Wg, eps):
    """(dot, yat) outputs on the four XOR inputs for every weight in Wg (..., 2): (..., 4) each."""
    dot = Wg @ XOR_X.T
    yt = yat(Wg[..., None, :], XOR_X, eps)
    return dot, yt


def data(seed=0, eps=0.1, lim=3.0, n=121):
    xs, ys, Wg = grid2d(lim, n)
    dot, yt = outputs(Wg, eps)
    out = {"xs": xs, "ys": ys, "loss": {}, "separates": {}}
    for name, f in (("dot", dot), ("yat", yt)):
        out["loss"][name] = np.mean((f - XOR_Y) ** 2, axis=-1)
        out["separates"][name] = f[..., [0, 3]].max(axis=-1) < f[..., [1, 2]].min(axis=-1)
        i, j = np.unravel_index(np.argmin(out["loss"][name]), out["loss"][name].shape)
        out.setdefault("argmin", {})[name] = np.array([xs[j], ys[i]])
        out.setdefault("min_loss", {})[name] = float(out["loss"][name][i, j])
    out["params"] = {"eps": float(eps), "lim": float(lim), "grid": f"{n}x{n}", "n": int(n),
                     "loss": "MSE of raw output (reading R1)", "bias": "none",
                     "seed": int(seed), "d": 2}
    return out


@register_figure("xor_loss_landscape", paper="001 Fig. 5; 002 Fig. 6",
                 title="XOR loss landscape: dot-product neuron vs Yat neuron", data=data)
def draw(d, fig):
    p = d["params"]
    fig.set_size_inches(12, 5.2)
    axs = fig.subplots(1, 2)
    xs, ys = d["xs"], d["ys"]
    for ax, name in zip(axs, ("dot", "yat")):
        L = d["loss"][name]
        im = ax.contourf(xs, ys, np.log10(L), levels=30, cmap="viridis")
        fig.colorbar(im, ax=ax, label="log10 MSE")
        sep = d["separates"][name]
        if sep.any():
            ax.contour(xs, ys, sep.astype(float), levels=[0.5], colors="w", linewidths=1.2)
        am = d["argmin"][name]
        ax.plot(*am, "r*", ms=12, mec="w", label=f"grid min {d['min_loss'][name]:.3g} at "
                                                   f"({am[0]:.2f}, {am[1]:.2f})")
        ax.set_xlabel("w1"), ax.set_ylabel("w2"), ax.legend(fontsize=8, loc="lower left")
        frac = 100 * sep.mean()
        ax.set_title(f"{'dot product w.x' if name == 'dot' else 'Yat K(w, x)'}: "
                     f"separating w (white outline) {frac:.0f}% of grid", fontsize=10)
    fig.suptitle(f"XOR, single neuron, no bias, MSE on raw output; Yat eps = {p['eps']:g}; "
                 f"grid {p['grid']} on [-{p['lim']:g}, {p['lim']:g}]^2")
    stamp(fig, p)
