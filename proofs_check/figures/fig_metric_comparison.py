"""002 Fig. 3: the Yat product against dot product, cosine similarity and Euclidean distance
in three settings (d = 2, anchor w fixed unless rotated):

(a) scaling: x = s x0 for s in [s_min, s_max] (only x is scaled; the paper does not say which);
(b) rotating the anchor: w(phi) = ||w|| (cos phi, sin phi) against a fixed x;
(c) distance: x = w + r v for a fixed unit direction v at angle psi to w, r in [0, r_max].

The data hold the raw values; the drawing divides each curve by its maximum |value| over its
sweep (stated on the axes) so that the four measures share one axis.
"""
from __future__ import annotations

import numpy as np

from ._common import stamp, yat
from .registry import register_figure

MEASURES = ("yat", "dot", "cosine", "euclidean")


def measures(w, X, eps):
    """dict of the four measures between w (..., 2) and x (..., 2), broadcast."""
    w, X = np.broadcast_arrays(np.asarray(w, float), np.asarray(X, float))
    dot = np.sum(w * X, axis=-1)
    return {"yat": yat(w, X, eps), "dot": dot,
            "cosine": dot / (np.linalg.norm(w, axis=-1) * np.linalg.norm(X, axis=-1)),
            "euclidean": np.linalg.norm(w - X, axis=-1)}


def _unit(deg):
    t = np.deg2rad(deg)
    return np.array([np.cos(t), np.sin(t)])


def data(seed=0, w=(1.0, 0.0), eps=0.1, x0_angle_deg=30.0, s_min=0.05, s_max=5.0,
         x_fixed=(1.0, 0.5), dist_angle_deg=60.0, r_max=5.0, n=600):
    w = np.asarray(w, float)
    x0 = np.linalg.norm(w) * _unit(x0_angle_deg)
    s = np.linspace(s_min, s_max, n)
    phi = np.linspace(0.0, 2 * np.pi, n)
    W_rot = np.linalg.norm(w) * np.stack([np.cos(phi), np.sin(phi)], axis=-1)
    v = _unit(dist_angle_deg)
    r = np.linspace(0.0, r_max, n)
    return {
        "s": s, "scaling": measures(w, s[:, None] * x0, eps),
        "phi": phi, "rotation": measures(W_rot, np.asarray(x_fixed, float), eps),
        "r": r, "distance": measures(w, w + r[:, None] * v, eps),
        "x0": x0, "v": v,
        "params": {"w": w.tolist(), "eps": float(eps), "x0_angle_deg": float(x0_angle_deg),
                   "s_range": [float(s_min), float(s_max)], "x_fixed": list(map(float, x_fixed)),
                   "dist_angle_deg": float(dist_angle_deg), "r_max": float(r_max), "n": int(n),
                   "seed": int(seed), "d": 2},
    }


@register_figure("metric_comparison", paper="002 Fig. 3",
                 title="Yat vs dot, cosine and Euclidean under scaling, rotation and distance",
                 data=data)
def draw(d, fig):
    p = d["params"]
    fig.set_size_inches(16, 4.8)
    axs = fig.subplots(1, 3)
    panels = [("s", "scaling", "(a) x = s x0 (x0 at {x0_angle_deg:g} deg to w, ||x0|| = ||w||)",
               "scale s"),
              ("phi", "rotation", "(b) anchor w rotated by phi; x = {x_fixed}", "phi (rad)"),
              ("r", "distance", "(c) x = w + r v, v at {dist_angle_deg:g} deg to w", "r")]
    for ax, (xk, key, title, xl) in zip(axs, panels):
        for m in MEASURES:
            y = d[key][m]
            ax.plot(d[xk], y / np.max(np.abs(y)), label=m, lw=2.2 if m == "yat" else 1.2)
        ax.set_title(title.format(**{**p, "x_fixed": tuple(p["x_fixed"])}), fontsize=10)
        ax.set_xlabel(xl), ax.set_ylabel("value / max |value| over the sweep")
        ax.axhline(0, color="0.6", lw=0.6)
        ax.legend(fontsize=8)
    fig.suptitle(f"Yat vs other measures, w = {tuple(p['w'])}, eps = {p['eps']:g}")
    stamp(fig, p)
