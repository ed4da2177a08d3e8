"""001 Fig. 3 / 002 Fig. 1: how an element-wise activation distorts a data manifold.

A 2-D manifold (a circle of radius r plus a square grid) is mapped by h = phi(A x + b) with a
fixed random A (2x2, seeded) and b.  phi = identity (an affine homeomorphism: distances change
by at most the singular values of A), ReLU (every point with a negative pre-activation
coordinate is collapsed onto a face of the orthant: many-to-one), tanh with gain g (saturation:
distant points map close together).  The data record, per map, the fraction of points collapsed
(ReLU) and the smallest and largest ratio ||h(x) - h(x')||/||x - x'|| over neighbouring pairs
along the curves (0 means information is lost).  This is an illustration with our own manifold
and map; the papers do not state theirs.
"""
from __future__ import annotations

import numpy as np

from ._common import rng_for, stamp
from .registry import register_figure


def _manifold(radius, n_circle, n_lines, n_per_line, lim):
    t = np.linspace(0, 2 * np.pi, n_circle, endpoint=False)
    curves = [radius * np.stack([np.cos(t), np.sin(t)], axis=1)]
    s = np.linspace(-lim, lim, n_per_line)
    for c in np.linspace(-lim, lim, n_lines):
        curves.append(np.stack([s, np.full_like(s, c)], axis=1))
        curves.append(np.stack([np.full_like(s, c), s], axis=1))
    return curves


def _ratios(curves_in, curves_out):
    r = []
    for a, b in zip(curves_in, curves_out):
        din = np.linalg.norm(np.diff(a, axis=0), axis=1)
        dout = np.linalg.norm(np.diff(b, axis=0), axis=1)
        r.append(dout / din)
    r = np.concatenate(r)
    return float(r.min()), float(r.max())


def data(seed=0, radius=1.5, n_circle=400, n_lines=9, n_per_line=200, lim=2.0, gain=2.0):
    rng = rng_for(seed, 3)
    A = rng.standard_normal((2, 2))
    b = 0.3 * rng.standard_normal(2)
    curves = _manifold(radius, n_circle, n_lines, n_per_line, lim)
    maps = {"affine": lambda z: z, "relu": lambda z: np.maximum(z, 0.0),
            "tanh": lambda z: np.tanh(gain * z)}
    pre = [c @ A.T + b for c in curves]
    out = {"curves": curves, "pre": pre, "mapped": {}, "ratio_range": {}, "A": A, "b": b}
    for name, f in maps.items():
        m = [f(z) for z in pre]
        out["mapped"][name] = m
        out["ratio_range"][name] = _ratios(curves, m)
    allpre = np.concatenate(pre)
    out["relu_collapsed_fraction"] = float(np.mean(np.any(allpre < 0, axis=1)))
    out["singular_values"] = np.linalg.svd(A, compute_uv=False)
    out["params"] = {"radius": float(radius), "grid_lim": float(lim), "n_circle": int(n_circle),
                     "n_lines": int(n_lines), "n_per_line": int(n_per_line),
                     "tanh_gain": float(gain), "A": A.round(4).tolist(), "b": b.round(4).tolist(),
                     "eps": "n/a (no Yat kernel in this illustration)", "seed": int(seed), "d": 2}
    return out


@register_figure("manifold_distortion", paper="001 Fig. 3; 002 Fig. 1",
                 title="Activation functions distort a data manifold", data=data)
def draw(d, fig):
    p = d["params"]
    fig.set_size_inches(17, 4.6)
    axs = fig.subplots(1, 4)
    panels = [("original x", d["curves"], None),
              ("affine A x + b", d["mapped"]["affine"], "affine"),
              ("ReLU(A x + b)", d["mapped"]["relu"], "relu"),
              (f"tanh({p['tanh_gain']:g} (A x + b))", d["mapped"]["tanh"], "tanh")]
    for ax, (title, curves, key) in zip(axs, panels):
        for i, c in enumerate(curves):
            ax.plot(c[:, 0], c[:, 1], lw=1.8 if i == 0 else 0.7,
                    color="C3" if i == 0 else ("C0" if i % 2 else "C2"))
        if key:
            lo, hi = d["ratio_range"][key]
            title += f"\nlocal stretch in [{lo:.3g}, {hi:.3g}]"
        if key == "relu":
            title += f"; {100 * d['relu_collapsed_fraction']:.0f}% of points on a face"
        ax.set_title(title, fontsize=9), ax.set_aspect("equal", adjustable="datalim")
    fig.suptitle(f"Manifold distortion by activations (circle r = {p['radius']:g}, grid on "
                 f"[-{p['grid_lim']:g}, {p['grid_lim']:g}]^2, A, b seeded: {p['seed']})")
    stamp(fig, p, keys=["A", "b", "tanh_gain", "eps", "seed"])
