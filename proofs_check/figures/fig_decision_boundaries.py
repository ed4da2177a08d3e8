"""000 Fig. 5 / 001 Fig. 2: decision regions of a few prototypes, linear vs Yat.

Class of x = argmax_i m(w_i, x) (= argmax of the softmax), with m = w_i.x (linear) or
K(w_i, x) (Yat), for fixed prototypes w_i (stated on the figure; the papers' learned prototypes
are not given).  Panels: linear and Yat near the prototypes, and the Yat regions in the far field
(radius up to ``far``).  As ||x|| -> inf, K(w_i, x) -> ||w_i||^2 cos^2 theta_i (000 Prop 1), so
far from the origin the Yat regions become the cones argmax_i (w_i.u)^2 (u = x/||x||): they are
not bounded, which the far-field panel shows.  The data hold the label grids and that far-field
prediction on a circle.
"""
from __future__ import annotations

import numpy as np

from ._common import grid2d, stamp, yat
from .registry import register_figure

PROTOTYPES = ((2.0, 0.5), (-1.0, 1.5), (-1.5, -1.5), (1.0, -2.0), (0.3, 0.4))


def labels(W, P, eps):
    """(linear labels, Yat labels, Yat scores) of points P (..., 2) for prototypes W (k, 2)."""
    lin = np.argmax(P @ W.T, axis=-1)
    S = yat(W, P[..., None, :], eps)
    return lin, np.argmax(S, axis=-1), S


def data(seed=0, prototypes=PROTOTYPES, eps=0.5, lim=4.0, far=200.0, n=300, n_circle=3600):
    W = np.asarray(prototypes, float)
    xs, ys, P = grid2d(lim, n)
    lin, yl, _ = labels(W, P, eps)
    xf, yf, Pf = grid2d(far, n)
    lin_f, yl_f, _ = labels(W, Pf, eps)
    th = np.linspace(0, 2 * np.pi, n_circle, endpoint=False)
    U = np.stack([np.cos(th), np.sin(th)], axis=1)
    S_self = yat(W, W, eps)                                   # K(w_i, w_i)
    S_cross = yat(W[:, None, :], W[None, :, :], eps)          # [j, i] = K(w_j, w_i)
    owns = np.argmax(S_cross, axis=0) == np.arange(len(W))
    _, _, Sg = labels(W, P, eps)
    return {
        "W": W, "xs": xs, "ys": ys, "linear": lin, "yat": yl, "yat_max_score": Sg.max(axis=-1),
        "owns_own_location": owns, "self_score": S_self,
        "far_xs": xf, "far_ys": yf, "linear_far": lin_f, "yat_far": yl_f,
        "circle_theta": th, "circle_unit": U,
        "far_field_prediction": np.argmax((U @ W.T) ** 2, axis=1),
        "params": {"prototypes": W.tolist(), "eps": float(eps), "lim": float(lim),
                   "far": float(far), "grid": f"{n}x{n}", "n": int(n),
                   "n_circle": int(n_circle), "seed": int(seed), "d": 2},
    }


@register_figure("decision_boundaries", paper="000 Fig. 5; 001 Fig. 2",
                 title="Decision regions of fixed prototypes: linear vs Yat", data=data)
def draw(d, fig):
    p = d["params"]
    W = d["W"]
    k = W.shape[0]
    fig.set_size_inches(17, 5.4)
    fig.set_size_inches(22, 5.4)
    axs = fig.subplots(1, 4)
    from matplotlib.colors import ListedColormap
    cmap = ListedColormap([f"C{i}" for i in range(k)])
    for ax, key, xs, ys, title in (
            (axs[0], "linear", d["xs"], d["ys"], "linear argmax w_i.x"),
            (axs[1], "yat", d["xs"], d["ys"], "Yat argmax K(w_i, x)"),
            (axs[2], "yat_far", d["far_xs"], d["far_ys"], f"Yat, far field (|x_j| <= {p['far']:g})")):
        ax.imshow(d[key], origin="lower", extent=(xs[0], xs[-1], ys[0], ys[-1]), cmap=cmap,
                  vmin=-0.5, vmax=k - 0.5, alpha=0.45, interpolation="nearest")
        ax.contour(xs, ys, d[key], levels=np.arange(k) + 0.5, colors="k", linewidths=0.6)
        ax.scatter(W[:, 0], W[:, 1], marker="*", s=220, c=[f"C{i}" for i in range(k)],
                   edgecolors="k", zorder=3)
        ax.set_title(title, fontsize=10), ax.set_aspect("equal")
    ax = axs[3]
    xs, ys = d["xs"], d["ys"]
    im = ax.imshow(np.log10(d["yat_max_score"] + 1e-12), origin="lower", cmap="magma",
                   extent=(xs[0], xs[-1], ys[0], ys[-1]))
    fig.colorbar(im, ax=ax, label="log10 max_i K(w_i, x)")
    ax.scatter(W[:, 0], W[:, 1], marker="*", s=220, c=[f"C{i}" for i in range(k)],
               edgecolors="w", zorder=3)
    ax.set_title("Yat winning score: wells at the prototypes", fontsize=10)
    lost = [tuple(w) for w, o in zip(W.tolist(), d["owns_own_location"]) if not o]
    note = (f"prototypes not in their own Yat region (another K(w_j, w_i) > K(w_i, w_i)): {lost}"
            if lost else None)
    fig.suptitle(f"Decision regions of {k} fixed prototypes (stars), Yat eps = {p['eps']:g}; "
                 f"far-field Yat regions tend to the cones argmax (w_i.u)^2")
    stamp(fig, p, note=note)
