"""000 Fig. 2: the potential well of a single Yat neuron, K(w, x) over a plane of inputs x.

Besides the surface, the figure marks two points that the mathematics fixes:

* x = w, where K(w, w) = ||w||^4/eps (000 Thm 3 / §3.2);
* the true maximiser.  Writing x = c w + y with y orthogonal to w, the numerator does not depend
  on y and the denominator grows with ||y||, so the maximum lies on the line through w; there
  f(c) = c^2 a^2/((c - 1)^2 a + eps) with a = ||w||^2, and f'(c) = 0 at c* = 1 + eps/a.  Hence
  max_x K = a(a + eps)/eps = ||w||^4/eps + ||w||^2, at x* = (1 + eps/||w||^2) w, NOT at x = w.

The data record the grid maximum and its location (measured) and these closed forms (derived
above), so the tests compare the two.  The 1-D panel is K along the ray x = k w/||w||.
"""
from __future__ import annotations

import numpy as np

from ._common import grid2d, stamp, yat
from .registry import register_figure


def well_peak(w, eps):
    """(x*, K(w, x*)) from the closed form above: x* = (1 + eps/||w||^2) w, K* = a(a+eps)/eps."""
    w = np.asarray(w, float)
    a = float(w @ w)
    return (1.0 + eps / a) * w, a * (a + eps) / eps


def data(seed=0, w=(1.0, 1.0), eps=0.5, lim=3.0, n=240, n_ray=801, k_max=6.0):
    xs, ys, P = grid2d(lim, n)
    K = yat(w, P, eps)
    i, j = np.unravel_index(np.argmax(K), K.shape)
    w_arr = np.asarray(w, float)
    u = w_arr / np.linalg.norm(w_arr)
    ks = np.linspace(-k_max, k_max, n_ray)
    K_ray = yat(w_arr, ks[:, None] * u, eps)
    x_star, K_star = well_peak(w_arr, eps)
    return {
        "xs": xs, "ys": ys, "K": K,
        "grid_max": float(K[i, j]), "grid_argmax": np.array([xs[j], ys[i]]),
        "K_at_w": float(yat(w_arr, w_arr, eps)),
        "x_star": x_star, "K_star": float(K_star),
        "ray_k": ks, "ray_K": K_ray, "ray_limit": float(w_arr @ w_arr),
        "params": {"w": list(map(float, w)), "eps": float(eps), "lim": float(lim),
                   "grid": f"{n}x{n}", "n": int(n), "n_ray": int(n_ray), "k_max": float(k_max),
                   "seed": int(seed), "d": 2},
    }


@register_figure("potential_well", paper="000 Fig. 2",
                 title="Potential well of a single Yat neuron", data=data)
def draw(d, fig):
    p = d["params"]
    fig.set_size_inches(16, 5.2)
    xs, ys, K = d["xs"], d["ys"], d["K"]
    X, Y = np.meshgrid(xs, ys)
    ax3 = fig.add_subplot(1, 3, 1, projection="3d")
    ax3.plot_surface(X, Y, K, cmap="viridis", rstride=3, cstride=3, linewidth=0)
    ax3.set_xlabel("x1"), ax3.set_ylabel("x2"), ax3.set_zlabel("K(w, x)")
    ax3.set_title("surface K(w, x)")
    ax = fig.add_subplot(1, 3, 2)
    im = ax.contourf(X, Y, K, levels=40, cmap="viridis")
    fig.colorbar(im, ax=ax)
    w = p["w"]
    ax.plot(*w, "r*", ms=13, mec="white", label=f"w: K(w,w)=||w||^4/eps={d['K_at_w']:.4g}")
    ax.plot(*d["x_star"], "wo", ms=7, mec="k",
            label=f"x*=(1+eps/||w||^2)w: K={d['K_star']:.4g}")
    ax.legend(loc="lower left", fontsize=7)
    ax.set_aspect("equal"), ax.set_title("heatmap; the maximum is at x*, not at w")
    ax = fig.add_subplot(1, 3, 3)
    nw = float(np.linalg.norm(w))
    ax.plot(d["ray_k"], d["ray_K"], label="K(w, k w/||w||)")
    ax.axhline(d["ray_limit"], color="0.4", ls="--", label="limit ||w||^2 (k -> inf)")
    ax.axvline(nw, color="r", lw=0.8, label="k = ||w|| (x = w)")
    ax.axvline(float(np.linalg.norm(d["x_star"])), color="k", lw=0.8, ls=":",
               label="k = ||x*||")
    ax.set_xlabel("k"), ax.set_ylabel("K"), ax.legend(fontsize=7)
    ax.set_title("along the ray through w")
    fig.suptitle(f"Yat potential well, w = ({w[0]:g}, {w[1]:g}), eps = {p['eps']:g}, "
                 f"grid {p['grid']} on [-{p['lim']:g}, {p['lim']:g}]^2")
    stamp(fig, p)
