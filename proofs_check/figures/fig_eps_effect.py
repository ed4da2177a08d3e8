"""000 Fig. 7(a): the effect of eps on the shape of K(w, .).

Two slices through the well, for several eps:
* across w: x = w + t u with u orthogonal to w.  There w.x = ||w||^2, so K = ||w||^4/(t^2 + eps):
  peak ||w||^4/eps at t = 0 and full width at half maximum exactly 2 sqrt(eps);
* along w: x = k w/||w||, peak at k = ||w|| + eps/||w|| (see fig_potential_well).
Each curve is divided by its peak (drawn on the right, with the raw peaks on the left on a log
scale); the FWHM of every normalised curve is measured from the sampled data by linear
interpolation of the half-maximum crossings (error <= one sample step).
"""
from __future__ import annotations

import numpy as np

from ._common import stamp, yat
from .registry import register_figure


def fwhm(t, y):
    """Full width at half maximum of a single-peaked sampled curve (linear interpolation)."""
    t, y = np.asarray(t, float), np.asarray(y, float)
    i = int(np.argmax(y))
    half = y[i] / 2.0
    left = np.nonzero(y[:i] < half)[0]
    right = np.nonzero(y[i:] < half)[0]
    if not left.size or not right.size:
        return np.nan
    a = left[-1]
    b = i + right[0]
    tl = np.interp(half, [y[a], y[a + 1]], [t[a], t[a + 1]])
    tr = np.interp(half, [y[b], y[b - 1]], [t[b], t[b - 1]])
    return float(tr - tl)


def data(seed=0, w=(1.0, 1.0), eps_values=(0.01, 0.1, 0.5, 1.0, 4.0), t_max=4.0,
         k_min=-2.0, k_max=8.0, n=4001):
    w = np.asarray(w, float)
    nw = np.linalg.norm(w)
    u_par = w / nw
    u_perp = np.array([-u_par[1], u_par[0]])
    t = np.linspace(-t_max, t_max, n)
    k = np.linspace(k_min, k_max, n)
    across = np.stack([yat(w, w + t[:, None] * u_perp, e) for e in eps_values])
    along = np.stack([yat(w, k[:, None] * u_par, e) for e in eps_values])
    return {
        "t": t, "k": k, "across": across, "along": along,
        "peak_across": across.max(axis=1), "peak_along": along.max(axis=1),
        "fwhm_across": np.array([fwhm(t, y) for y in across]),
        "fwhm_along": np.array([fwhm(k, y) for y in along]),
        "params": {"w": w.tolist(), "eps": list(map(float, eps_values)), "t_max": float(t_max),
                   "k_range": [float(k_min), float(k_max)], "n": int(n), "seed": int(seed),
                   "d": 2},
    }


@register_figure("eps_effect", paper="000 Fig. 7(a)",
                 title="Effect of eps on the Yat response peak", data=data)
def draw(d, fig):
    p = d["params"]
    fig.set_size_inches(16, 4.8)
    a, b, c = fig.subplots(1, 3)
    for e, y, f in zip(p["eps"], d["across"], d["fwhm_across"]):
        a.plot(d["t"], y, label=f"eps={e:g}")
        b.plot(d["t"], y / y.max(), label=f"eps={e:g}: FWHM={f:.3g}")
    for e, y, f in zip(p["eps"], d["along"], d["fwhm_along"]):
        lab = f"FWHM={f:.3g}" if np.isfinite(f) else "never falls to half (limit ||w||^2)"
        c.plot(d["k"], y / y.max(), label=f"eps={e:g}: {lab}")
    a.set_yscale("log"), a.set_xlabel("t  (x = w + t u, u orthogonal to w)"), a.set_ylabel("K")
    a.set_title("across w, raw: peak ||w||^4/eps")
    b.set_xlabel("t"), b.set_ylabel("K / peak"), b.set_title("across w, normalised (FWHM = 2 sqrt(eps))")
    c.set_xlabel("k  (x = k w/||w||)"), c.set_ylabel("K / peak"), c.set_title("along w, normalised")
    for ax in (a, b, c):
        ax.legend(fontsize=7)
    fig.suptitle(f"Effect of eps on the Yat well, w = {tuple(p['w'])}")
    stamp(fig, p)
