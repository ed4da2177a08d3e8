"""Riesz energies against s relative to d: the behaviour behind the s > d hypothesis of 004 Thm 2
(claims.md particles.thm2_ldp checks (a) and (c), particles.lemma9_10_regime2; algorithms.md §P2).

Thm 2 assumes s > d for the Riesz kernel g_s(w) = ||w||^{-s}.  The panels show what that means.

(a), (b) The truncated continuum energy of the uniform measure, W^delta_s = (1/2) ∬ g^delta(x - y) dx dy
    (the continuum form of W_{N,s}, so that (c) converges to it),
    against the softening length delta, with the hard truncation g^delta(r) = g(max(r, delta)) of
    004 eq.A.36 (solid) and Plummer softening (r^2 + delta^2)^{-s/2} (dashed):
    (a) d = 1 on [0, 1]: W = int_0^1 (1 - r) g(r) dr (2 (1 - r) is the density of |x - y|);
    (b) d = 2 on the unit disk: W = (1/2) int_0^2 f(r) g(r) dr with the disk's distance density
        f(r) = (4 r/pi) [arccos(r/2) - (r/2) sqrt(1 - r^2/4)].
    Both are 1-D integrals done by ``scipy.integrate.quad`` (break point at delta, relative
    tolerance 1e-10) on the kernels of ``make_interaction``.  For s < d the energy has a finite
    limit (d = 1: 1/((1 - s)(2 - s))); for s = d it grows like ln(1/delta); for s > d like
    delta^{d - s}: every measure with a bounded density has E_s = +infinity, so in the regime of
    Thm 2 the rate function is finite only on singular measures and the theorem is carried by the
    truncation.  ``slopes`` are least-squares slopes of ln W on ln delta over the smallest deltas.
(c) The discrete energy W_{N,s} = (1/(2N(N-1))) sum_{k != l} g(omega_k - omega_l) of N equally
    spaced points on [0, 1] (``interaction_energy``; the minimiser on the circle, and of the same
    order as the minimiser on the interval): bounded for s < d, ~ ln N for s = d, ~ zeta(s) N^{s-d}
    for s > d (min H_N grows without bound).  The Plummer kernel with fixed delta stays bounded for
    every s.  ``slopes_N`` are slopes of ln W on ln N over the largest N.
(d) The profiles g(r) and |g'(r)| of the three variants for s = 2, delta = 0.1: Plummer is smooth
    (Lipschitz force, the "smoothly regularized" interaction of Thm 1), the hard truncation keeps
    g continuous but its force jumps from s delta^{-s-1} to 0 at r = delta.

Accuracy: the quadratures are good to ~1e-9 relative; the energies of (c) are sums of N^2 float64
terms (relative error ~1e-13).
"""
from __future__ import annotations

import numpy as np
from scipy.integrate import quad

from yatmath.particles import interaction_energy, make_interaction
from yatmath.stats import loglog_slope

from ._common import stamp
from .fig_itnet_special_kernels import room_for_stamp
from .registry import register_figure

KINDS = ("hard", "plummer")


def pair_density(d, r):
    """Density of |x - y| for x, y uniform on [0, 1] (d = 1) or on the unit disk (d = 2)."""
    r = np.asarray(r, float)
    if d == 1:
        return np.where((r >= 0) & (r <= 1), 2.0 * (1.0 - r), 0.0)
    u = np.clip(r / 2.0, 0.0, 1.0)
    return np.where((r >= 0) & (r <= 2), 4.0 * r / np.pi * (np.arccos(u) - u * np.sqrt(1 - u * u)), 0.0)


def truncated_energy(d, kind, s, delta):
    """W^delta_s = (1/2) ∬ g^delta of the uniform measure (d = 1: [0, 1]; d = 2: unit disk), by
    adaptive quadrature over the pair distance."""
    it = make_interaction(kind, s, delta)
    top = 1.0 if d == 1 else 2.0
    f = lambda r: 0.5 * float(pair_density(d, r) * it.g(r))
    pts = [p for p in (delta, 10 * delta) if p < top]
    return quad(f, 0.0, top, points=pts, epsabs=0.0, epsrel=1e-10, limit=400)[0]


def equispaced_energy(N, kind, s, delta=0.0):
    """W_{N,s} of N equally spaced points on [0, 1] (``interaction_energy``, NumPy backend)."""
    return interaction_energy(np.linspace(0.0, 1.0, int(N)), kind, s, delta, backend="numpy")


def _slope(x, y, k):
    return loglog_slope(x[-k:], y[-k:])


def data(seed=0, deltas=np.logspace(-4, -0.5, 15), s_d1=(0.5, 1.0, 2.0), s_d2=(1.0, 2.0, 3.0),
         Ns=(8, 16, 32, 64, 128, 256, 512, 1024, 2048), delta_N=0.05, fit_points=5, profile_s=2.0,
         profile_delta=0.1):
    deltas = np.sort(np.asarray(deltas, float))[::-1]          # decreasing: the fit uses the last
    E = {}
    slopes = {}
    for d, ss in ((1, s_d1), (2, s_d2)):
        for s in ss:
            for kind in KINDS:
                key = f"d={d} {kind} s={s:g}"
                E[key] = np.array([truncated_energy(d, kind, s, dl) for dl in deltas])
                slopes[key] = _slope(deltas, E[key], fit_points)
    Ns_arr = np.asarray(Ns, float)
    W, slopes_N = {}, {}
    for s in s_d1:
        key = f"none s={s:g}"
        W[key] = np.array([equispaced_energy(n, "none", s) for n in Ns])
        slopes_N[key] = _slope(Ns_arr, W[key], fit_points)
        key = f"plummer s={s:g}"
        W[key] = np.array([equispaced_energy(n, "plummer", s, delta_N) for n in Ns])
        slopes_N[key] = _slope(Ns_arr, W[key], fit_points)
    r = np.linspace(1e-3, 0.5, 500)
    prof = {}
    for kind, dl in (("none", 0.0), ("plummer", profile_delta), ("hard", profile_delta)):
        it = make_interaction(kind, profile_s, dl)
        prof[kind] = {"g": it.g(r), "force": np.abs(it.grad(r[:, None])[:, 0])}
    return {
        "deltas": deltas, "E": E, "slopes": slopes, "Ns": Ns_arr, "W": W, "slopes_N": slopes_N,
        "exact_d1_bare": {f"s={s:g}": 1.0 / ((1 - s) * (2 - s)) for s in s_d1 if s < 1},
        "profile_r": r, "profiles": prof,
        "params": {"deltas": f"logspace({np.log10(deltas.min()):g}, {np.log10(deltas.max()):g}, "
                             f"{len(deltas)})", "s_d1": list(map(float, s_d1)),
                   "s_d2": list(map(float, s_d2)), "Ns": [int(n) for n in Ns], "delta_N": float(delta_N),
                   "fit_points": int(fit_points), "profile_s": float(profile_s),
                   "profile_delta": float(profile_delta), "measure": "uniform on [0,1] / unit disk",
                   "configuration": "equispaced on [0, 1]", "seed": int(seed)},
    }


@register_figure("particles_riesz_s_vs_d", paper="004 Thm 2, eq.A.36 (no paper figure)",
                 title="Riesz energies against s relative to d", data=data)
def draw(d, fig):
    p = d["params"]
    fig.set_size_inches(13, 9)
    room_for_stamp(fig)
    (a, b), (c, e) = fig.subplots(2, 2)
    for ax, dim, ss in ((a, 1, p["s_d1"]), (b, 2, p["s_d2"])):
        for i, s in enumerate(ss):
            reg = "s < d" if s < dim else ("s = d" if s == dim else "s > d")
            for kind, ls in zip(KINDS, ("-", "--")):
                key = f"d={dim} {kind} s={s:g}"
                ax.loglog(d["deltas"], d["E"][key], ls, color=f"C{i}",
                          label=f"s = {s:g} ({reg}), {kind}: slope {d['slopes'][key]:.2f}")
            if dim == 1 and f"s={s:g}" in d["exact_d1_bare"]:
                ax.axhline(d["exact_d1_bare"][f"s={s:g}"], color=f"C{i}", ls=":", lw=1,
                           label=f"bare limit 1/((1-s)(2-s)) = {d['exact_d1_bare'][f's={s:g}']:.3g}")
        ax.set_xlabel("softening length delta"), ax.set_ylabel("W^delta_s(uniform) = (1/2) ∬ g^delta")
        ax.set_title(f"({'a' if dim == 1 else 'b'}) d = {dim}: truncated energy of the uniform measure "
                     f"(expected slope min(0, d - s))", fontsize=9)
        ax.legend(fontsize=6.5), ax.grid(True, which="both", alpha=0.3)
    for i, s in enumerate(p["s_d1"]):
        for kind, ls in (("none", "o-"), ("plummer", "s--")):
            key = f"{kind} s={s:g}"
            c.loglog(d["Ns"], d["W"][key], ls, color=f"C{i}", ms=3,
                     label=f"s = {s:g}, {'bare' if kind == 'none' else 'plummer delta=' + format(p['delta_N'], 'g')}: "
                           f"slope {d['slopes_N'][key]:.2f}")
        if f"s={s:g}" in d["exact_d1_bare"]:
            c.axhline(d["exact_d1_bare"][f"s={s:g}"], color=f"C{i}", ls=":", lw=1,
                      label="continuum limit 1/((1-s)(2-s))")
    c.set_xlabel("N"), c.set_ylabel("W_{N,s} (equispaced on [0,1])")
    c.set_title("(c) d = 1: discrete energy of N points (expected slope max(0, s - d))", fontsize=9)
    c.legend(fontsize=6.5), c.grid(True, which="both", alpha=0.3)
    r = d["profile_r"]
    for kind, col in (("none", "k"), ("plummer", "C0"), ("hard", "C3")):
        e.semilogy(r, d["profiles"][kind]["g"], "-", color=col, label=f"g, {kind}")
        e.semilogy(r, np.maximum(d["profiles"][kind]["force"], 1e-3), ":", color=col, label=f"|g'|, {kind}")
    e.axvline(p["profile_delta"], color="0.5", lw=0.8)
    e.set_ylim(1e-1, 1e5)
    e.set_xlabel("r"), e.set_title(f"(d) s = {p['profile_s']:g}, delta = {p['profile_delta']:g}: "
                                   f"kernel and force magnitude (hard: force 0 for r < delta)", fontsize=9)
    e.legend(fontsize=6.5, ncol=2)
    fig.suptitle("Riesz interactions g_s = r^(-s): the continuum energy of any density is infinite when s > d\n"
                 "hard truncation (004 eq.A.36) and Plummer softening restore finiteness at the cost of a "
                 "delta-dependent energy", fontsize=10)
    stamp(fig, p)
