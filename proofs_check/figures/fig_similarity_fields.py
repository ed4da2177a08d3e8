"""000 Fig. 1 / 001 Fig. 1: value, gradient magnitude and gradient (vector) field of four measures.

For a fixed w in R^2 and x on a grid, the measures m(w, x) and their input gradients are

  dot product   w.x                         grad_x = w
  Euclidean     ||x - w||                   grad_x = (x - w)/||x - w||
  Yat           (w.x)^2/(||w - x||^2 + eps) grad_x from algorithms.md Y2 (``_common``)
  cosine        w.x/(||w|| ||x||)           grad_x = w/(||w|| ||x||) - (w.x) x/(||w|| ||x||^3)

(the papers' left-to-right order).  The grid has an even number of points so that it never
contains x = 0 (where cosine is undefined); where a grid point is x = w the Euclidean gradient
(undefined there) is drawn as 0.  Values are exact in float64 up
to a few ulps; the gradients are checked against central differences in the tests.
"""
from __future__ import annotations

import numpy as np

from ._common import colorbar_or_constant, grid2d, stamp, yat, yat_grad_x
from .registry import register_figure

MEASURES = ("dot", "euclidean", "yat", "cosine")
LABELS = {"dot": "dot product", "euclidean": "Euclidean distance", "yat": "Yat product",
          "cosine": "cosine similarity"}


def measure_and_grad(name, w, P, eps):
    """(value, grad_x) of measure ``name`` for fixed w (2,) at points P (..., 2)."""
    w = np.asarray(w, float)
    if name == "dot":
        return P @ w, np.broadcast_to(w, P.shape).copy()
    if name == "euclidean":
        diff = P - w
        r = np.linalg.norm(diff, axis=-1)
        safe = np.where(r > 0, r, 1.0)[..., None]
        return r, np.where(r[..., None] > 0, diff / safe, 0.0)   # grad undefined at x = w: 0
    if name == "yat":
        return yat(w, P, eps), yat_grad_x(w, P, eps)
    if name == "cosine":
        nw = np.linalg.norm(w)
        nx = np.linalg.norm(P, axis=-1)
        s = P @ w
        c = s / (nw * nx)
        g = w / (nw * nx[..., None]) - (s / (nw * nx ** 3))[..., None] * P
        return c, g
    raise ValueError(f"name must be one of {MEASURES}, got {name!r}")


def data(seed=0, w=(1.0, 1.0), eps=0.5, lim=3.0, n=100):
    """Values and gradients of the four measures on an n-by-n grid of [-lim, lim]^2."""
    if n % 2:
        raise ValueError(f"n must be even (the grid must avoid x = 0), got {n}")
    xs, ys, P = grid2d(lim, n)
    out = {"xs": xs, "ys": ys, "values": {}, "grads": {}}
    for m in MEASURES:
        v, g = measure_and_grad(m, w, P, eps)
        out["values"][m], out["grads"][m] = v, g
    out["params"] = {"w": list(map(float, w)), "eps": float(eps), "lim": float(lim),
                     "grid": f"{n}x{n}", "n": int(n), "seed": int(seed), "d": 2}
    return out


def _log_magnitude(gn):
    """log10 ||grad||, floored at the 2nd percentile of the positive values (the gradient
    vanishes exactly on lines, e.g. w.x = 0 for Yat, which would otherwise swamp the colours)."""
    pos = gn[gn > 0]
    floor = np.percentile(pos, 2) if pos.size else 1.0
    lg = np.log10(np.maximum(gn, floor))
    if np.ptp(lg) < 1e-9:            # constant magnitude (dot, Euclidean): no rounding noise
        lg = np.full_like(lg, np.median(lg))
    return lg


@register_figure("similarity_fields", paper="000 Fig. 1; 001 Fig. 1",
                 title="Value, gradient magnitude and gradient field of four similarity measures",
                 data=data)
def draw(d, fig):
    p = d["params"]
    xs, ys = d["xs"], d["ys"]
    ext = (xs[0], xs[-1], ys[0], ys[-1])
    axs = fig.subplots(3, 4)
    fig.set_size_inches(16, 12)
    w = p["w"]
    for j, m in enumerate(MEASURES):
        v, g = d["values"][m], d["grads"][m]
        gn = np.linalg.norm(g, axis=-1)
        a0, a1, a2 = axs[0, j], axs[1, j], axs[2, j]
        im = a0.imshow(v, origin="lower", extent=ext, cmap="viridis", aspect="equal")
        colorbar_or_constant(fig, a0, im, v, name="value", shrink=0.8)
        a0.set_title(f"{LABELS[m]}: value")
        lg = _log_magnitude(gn)
        im = a1.imshow(lg, origin="lower", extent=ext, cmap="magma", aspect="equal")
        # dot product and Euclidean distance: ||grad_x|| is the same everywhere (||w||, 1)
        colorbar_or_constant(fig, a1, im, 10.0 ** lg, label="log10 ||grad_x||", name="||grad_x||",
                             shrink=0.8)
        a1.set_title(f"{LABELS[m]}: ||grad||")
        st = max(1, len(xs) // 20)
        gs, ns = g[::st, ::st], np.maximum(gn[::st, ::st], 1e-300)[..., None]
        Xq, Yq = np.meshgrid(xs[::st], ys[::st])
        a2.quiver(Xq, Yq, gs[..., 0] / ns[..., 0], gs[..., 1] / ns[..., 0], lg[::st, ::st],
                  cmap="viridis", scale=28, width=0.004)
        a2.set_xlim(ext[:2]), a2.set_ylim(ext[2:]), a2.set_aspect("equal")
        a2.set_title(f"{LABELS[m]}: grad field")
        for a in (a0, a1, a2):
            a.plot(*w, marker="*", color="red", ms=12, mec="white")
    fig.suptitle(f"Similarity measures around w = ({w[0]:g}, {w[1]:g}); Yat eps = {p['eps']:g}; "
                 f"grid {p['grid']} on [-{p['lim']:g}, {p['lim']:g}]^2")
    stamp(fig, p, note="gradient magnitudes are floored at the 2nd percentile of the positive "
          "values for the colour scale (they vanish exactly on lines)")
