"""Kernel-approximation error against the feature budget F (issue 4; algorithms.md R1-R5, Y8).

For each random-feature map phi and its target kernel k, the plotted error at budget F is the
relative Frobenius error ||Phi(X) Phi(Y)^T - K||_F / ||K||_F on fixed point sets X, Y (n points
each), averaged over ``seeds`` independent feature draws:

* RFF and ORF (R1, R2) against exp(-gamma ||x - y||^2);
* FAVOR+ (R3) against exp(x . y) (inputs scaled to norm ``favor_radius`` so that the relative sd
  sqrt((e^{|x+y|^2} - 1)/F) is moderate);
* the positive maps of 004 App. D (R4) against their M -> infinity limit kernels
  (``PositiveFeatures.limit_kernel``; the renormalised maps are ratio estimators, biased by
  O(1/F), so their error also falls about like F^{-1/2} once the variance dominates);
* the Yat maps (R5, Y8) against the Yat kernel (x.y + b)^2 / (||x - y||^2 + eps): "laplace_mc"
  and "laplace_quadrature" on general (Gaussian) inputs, "maclaurin", "series" and "harmonic"
  on unit vectors ("harmonic" is the biased Mercer truncation for F <= 1 + d + (d+2)(d-1)/2 = 44
  at d = 8, and unbiased with only degrees >= 3 random above that).

An unbiased map with F independent features has error ~ c F^{-1/2}; the dashed line is that
slope through the RFF curve's first point.  ``slopes`` holds the least-squares slope of
log(error) on log(F) for every map (tests assert on them).
"""
from __future__ import annotations

import numpy as np

from yatmath.features import POSITIVE_KINDS, gaussian_kernel, positive_features, rff, yat_features
from yatmath.yat import gram
from yatmath.stats import loglog_slope

from ._common import rng_for, stamp
from .registry import register_figure

UNBIASED = ("rff", "orf", "favor", "yat laplace_mc", "yat laplace_quadrature", "yat maclaurin",
            "yat series")


def _rel(A, B):
    return float(np.linalg.norm(A - B) / np.linalg.norm(B))


def data(seed=0, d=8, n=24, budgets=(32, 128, 512, 2048), seeds=4, gamma=0.25, eps=1.0,
         bias=0.5, favor_radius=0.5, appd_scale=0.3):
    g = rng_for(seed, 41)
    X, Y = g.standard_normal((n, d)), g.standard_normal((n, d))
    Xs = X / np.linalg.norm(X, axis=1, keepdims=True)
    Ys = Y / np.linalg.norm(Y, axis=1, keepdims=True)
    Xf, Yf = favor_radius * Xs, favor_radius * Ys
    Xp, Yp = appd_scale * X, appd_scale * Y         # App. D maps: moderate pre-activations
    r2_max = float(((X[:, None] - Y[None]) ** 2).sum(-1).max())
    targets = {"gauss": gaussian_kernel(X, Y, gamma), "exp": np.exp(Xf @ Yf.T),
               "yat": gram(X, Y, eps=eps, bias=bias, backend="numpy"),
               "yat_s": gram(Xs, Ys, eps=eps, bias=bias, backend="numpy")}
    maps = {
        "rff": lambda F, s: (rff(d, F, gamma=gamma, rng=s), X, Y, targets["gauss"]),
        "orf": lambda F, s: (rff(d, F, gamma=gamma, orthogonal=True, rng=s), X, Y,
                             targets["gauss"]),
        "yat laplace_mc": lambda F, s: (yat_features(d, F, eps=eps, bias=bias, rng=s), X, Y,
                                        targets["yat"]),
        "yat laplace_quadrature": lambda F, s: (yat_features(
            d, F, eps=eps, bias=bias, method="laplace_quadrature", r2_max=r2_max, rng=s), X, Y,
            targets["yat"]),
        "yat maclaurin": lambda F, s: (yat_features(d, F, eps=eps, bias=bias, spherical=True,
                                                    method="maclaurin", rng=s), Xs, Ys,
                                       targets["yat_s"]),
        "yat series": lambda F, s: (yat_features(d, F, eps=eps, bias=bias, spherical=True,
                                                 method="series", rng=s), Xs, Ys,
                                    targets["yat_s"]),
        "yat harmonic": lambda F, s: (yat_features(d, F, eps=eps, bias=bias, spherical=True,
                                                   method="harmonic", rng=s), Xs, Ys,
                                      targets["yat_s"]),
    }
    limits = {}
    for kind in POSITIVE_KINDS:
        name = "favor" if kind == "favor" else f"appD {kind}"
        A, B = (Xf, Yf) if kind == "favor" else (Xp, Yp)
        if kind == "favor":
            limits[name] = targets["exp"]
        else:   # the limit kernel does not depend on the draw (default phases/renorm)
            limits[name] = positive_features(d, 8, kind, rng=0).limit_kernel(A, B)
        maps[name] = (lambda kind, A, B, name: lambda F, s: (
            positive_features(d, F, kind, rng=s), A, B, limits[name]))(kind, A, B, name)
    errors = {}
    for name, make in maps.items():
        e = []
        for F in budgets:
            vals = []
            for s in range(seeds):
                phi, A, B, K = make(F, 1000 * int(seed) + s)
                vals.append(_rel(phi(A) @ phi(B).T, K))
            e.append(np.mean(vals))
        errors[name] = np.array(e)
    slopes = {k: loglog_slope(budgets, v) for k, v in errors.items()}
    return {"budgets": np.asarray(budgets), "errors": errors, "slopes": slopes,
            "unbiased": list(UNBIASED),
            "params": {"d": d, "n": n, "budgets": list(budgets), "seeds": seeds, "gamma": gamma,
                       "eps": eps, "bias": bias, "favor_radius": favor_radius, "appd_scale": appd_scale,
                       "r2_max": r2_max, "seed": int(seed)}}


@register_figure("features_kernel_error_vs_budget", paper="issue 4 (no paper figure)",
                 title="Random-feature kernel error against the budget F", data=data)
def draw(dd, fig):
    p = dd["params"]
    F = dd["budgets"]
    fig.set_size_inches(15, 4.8)
    axes = fig.subplots(1, 3)
    groups = [("Gaussian / softmax kernels", ("rff", "orf", "favor")),
              ("004 App. D maps vs limit kernels",
               tuple(k for k in dd["errors"] if k.startswith("appD"))),
              ("Yat maps vs the Yat kernel", tuple(k for k in dd["errors"] if k.startswith("yat")))]
    ref = dd["errors"]["rff"][0] * (F / F[0]) ** -0.5
    for ax, (title, names) in zip(axes, groups):
        for k in names:
            ax.loglog(F, dd["errors"][k], "o-", label=f"{k} (slope {dd['slopes'][k]:.2f})")
        ax.loglog(F, ref, "k--", lw=1, label="F^-1/2")
        ax.set_xlabel("features F"), ax.set_ylabel("||Phi Phi^T - K||_F / ||K||_F")
        ax.set_title(title, fontsize=10)
        ax.legend(fontsize=7)
    fig.suptitle(f"Kernel-approximation error vs F (d={p['d']}, eps={p['eps']:g}, "
                 f"bias={p['bias']:g}, {p['seeds']} draws)")
    stamp(fig, p)
