"""000 Fig. 3: (a) Yat response vs the angle between w and x; (b) response along rays x = k u.

(a) w = ||w|| e1 and x = r (cos t, sin t): K = (||w|| r cos t)^2/(||w||^2 + r^2 - 2||w|| r cos t
    + eps), zero at t = pi/2 (orthogonality) for every r.
(b) x = k u with u at angle t to w: K(w, k u) -> (w.u)^2 = ||w||^2 cos^2 t as k -> inf
    (000 Prop 1), drawn as dashed asymptotes.  The curve for small t overshoots the limit
    before it converges (it approaches from above), which the figure shows as it is.
All values come from yatmath.yat.product in float64.
"""
from __future__ import annotations

import numpy as np

from ._common import stamp, yat
from .registry import register_figure


def data(seed=0, w_norm=1.0, eps=0.1, radii=(0.5, 1.0, 2.0), n_theta=721,
         ray_angles_deg=(0, 30, 45, 60, 80, 90), k_min=1e-2, k_max=1e4, n_k=400):
    w = np.array([float(w_norm), 0.0])
    th = np.linspace(0.0, 2 * np.pi, n_theta)
    U = np.stack([np.cos(th), np.sin(th)], axis=-1)
    K_angle = np.stack([yat(w, r * U, eps) for r in radii])
    ks = np.geomspace(k_min, k_max, n_k)
    ang = np.deg2rad(np.asarray(ray_angles_deg, float))
    Ur = np.stack([np.cos(ang), np.sin(ang)], axis=-1)
    K_ray = yat(w, ks[None, :, None] * Ur[:, None, :], eps)
    return {
        "theta": th, "K_angle": K_angle, "k": ks, "K_ray": K_ray,
        "ray_limit": (Ur @ w) ** 2,
        "params": {"w": w.tolist(), "w_norm": float(w_norm), "eps": float(eps),
                   "radii": list(map(float, radii)), "n_theta": int(n_theta),
                   "ray_angles_deg": list(map(float, ray_angles_deg)), "k_range":
                   [float(k_min), float(k_max)], "n_k": int(n_k), "seed": int(seed), "d": 2},
    }


@register_figure("angle_radius_response", paper="000 Fig. 3",
                 title="Yat response vs angle (a) and along rays (b)", data=data)
def draw(d, fig):
    p = d["params"]
    fig.set_size_inches(13, 5)
    a, b = fig.subplots(1, 2)
    for r, K in zip(p["radii"], d["K_angle"]):
        a.plot(d["theta"], K, label=f"||x|| = {r:g}")
    for v in (np.pi / 2, 3 * np.pi / 2):
        a.axvline(v, color="0.5", ls=":", lw=0.8)
    a.set_xlabel("angle theta between w and x (rad)"), a.set_ylabel("K(w, x)")
    a.set_yscale("symlog", linthresh=1e-2), a.set_ylim(bottom=0)
    a.set_title("(a) angle response: K = 0 at theta = pi/2")
    a.legend(fontsize=8)
    for t, K, L in zip(p["ray_angles_deg"], d["K_ray"], d["ray_limit"]):
        (ln,) = b.plot(d["k"], K, label=f"theta = {t:g} deg")
        if L > 0:
            b.axhline(L, color=ln.get_color(), ls="--", lw=0.8)
    b.set_xscale("log"), b.set_yscale("symlog", linthresh=1e-3), b.set_ylim(bottom=0)
    b.set_xlabel("radius k of x = k u"), b.set_ylabel("K(w, k u)")
    b.set_title("(b) self-regulation: K -> ||w||^2 cos^2 theta (dashed)")
    b.legend(fontsize=8)
    fig.suptitle(f"Yat angle and radius responses, w = ({p['w'][0]:g}, 0), eps = {p['eps']:g}")
    stamp(fig, p)
