"""002 Fig. 2: the Yat product's field in 2-D and 3-D.

Left: K(w, x) for w in R^2 as a heatmap with the gradient field grad_x K (algorithms.md Y2)
as arrows.  Right: grad_x K for w in R^3 on a coarse 3-D lattice, arrows coloured by K.  The
gradient is the closed form Y2 (or yatmath.yat.grad), checked against finite differences in
the tests.
"""
from __future__ import annotations

import numpy as np

from ._common import grid2d, stamp, yat, yat_grad_x
from .registry import register_figure


def data(seed=0, w2=(1.0, 1.0), w3=(1.0, 1.0, 1.0), eps=0.5, lim=3.0, n=160, n_arrow=20,
         lim3=2.5, n3=7):
    xs, ys, P = grid2d(lim, n)
    xa, ya, Pa = grid2d(lim, n_arrow)
    g = np.linspace(-lim3, lim3, n3)
    P3 = np.stack(np.meshgrid(g, g, g, indexing="ij"), axis=-1).reshape(-1, 3)
    return {
        "xs": xs, "ys": ys, "K2": yat(w2, P, eps),
        "arrow_xs": xa, "arrow_ys": ya, "G2": yat_grad_x(w2, Pa, eps), "arrow_points": Pa,
        "P3": P3, "K3": yat(w3, P3, eps), "G3": yat_grad_x(w3, P3, eps),
        "params": {"w2": list(map(float, w2)), "w3": list(map(float, w3)), "eps": float(eps),
                   "lim": float(lim), "grid": f"{n}x{n}", "arrows": f"{n_arrow}x{n_arrow}",
                   "lim3": float(lim3), "lattice3": f"{n3}^3", "seed": int(seed)},
    }


@register_figure("yat_field_2d3d", paper="002 Fig. 2",
                 title="Yat product field in 2-D and 3-D", data=data)
def draw(d, fig):
    p = d["params"]
    fig.set_size_inches(13, 6)
    ax = fig.add_subplot(1, 2, 1)
    xs, ys = d["xs"], d["ys"]
    im = ax.imshow(d["K2"], origin="lower", extent=(xs[0], xs[-1], ys[0], ys[-1]), cmap="viridis")
    fig.colorbar(im, ax=ax, label="K(w, x)")
    G = d["G2"]
    nrm = np.linalg.norm(G, axis=-1)
    safe = np.where(nrm > 0, nrm, 1.0)            # grad = 0 on the line w.x = 0
    Pa = d["arrow_points"]
    ax.quiver(Pa[..., 0], Pa[..., 1], G[..., 0] / safe, G[..., 1] / safe,
              np.log10(np.maximum(nrm, 1e-12)),
              cmap="autumn", scale=30, width=0.003)
    ax.plot(*p["w2"], "r*", ms=13, mec="white")
    ax.set_title("2-D: K and grad_x K (unit arrows, colour log10 ||grad||)")
    ax3 = fig.add_subplot(1, 2, 2, projection="3d")
    P3, G3, K3 = d["P3"], d["G3"], d["K3"]
    n3 = np.linalg.norm(G3, axis=-1)
    U = G3 / np.where(n3 > 0, n3, 1.0)[:, None]
    import matplotlib.cm as cm
    colors = cm.viridis((K3 - K3.min()) / (np.ptp(K3) or 1.0))
    ax3.quiver(P3[:, 0], P3[:, 1], P3[:, 2], U[:, 0], U[:, 1], U[:, 2], length=0.35,
               colors=colors, linewidth=0.6)
    ax3.scatter(*p["w3"], color="r", marker="*", s=150)
    ax3.set_title("3-D: grad_x K (unit arrows, colour K)")
    fig.suptitle(f"Yat field, w = {tuple(p['w2'])} (2-D) and {tuple(p['w3'])} (3-D), "
                 f"eps = {p['eps']:g}")
    stamp(fig, p)
