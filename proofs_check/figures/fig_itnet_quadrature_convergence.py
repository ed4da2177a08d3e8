"""Quadrature convergence of the ITNet integral per rule (003 Def. 1; algorithms.md I1).

The continuous operator on Omega = [0, 1] with Lebesgue measure,

    I(x) = int_0^1 kappa_theta(x, y, u(x), u(y)) u(y) dy,

is evaluated with ``apply(op, U, measure, mode="dense", Xq=..., Uq=...)`` (residual W = 0) at a few
query points x (not on any grid), the key measure being ``interval_rule(rule, n)`` for the four
rules ``left`` (left Riemann), ``midpoint``, ``trapezoid`` and ``gauss`` (Gauss-Legendre).  The
features are a smooth field u(y) = (sin(2 pi y + 0.3), cos(3 y), 1/(1 + y^2)).  The kernel network is
``random_kernel_mlp`` (d = 3, one GELU layer, Fourier lift with sigma = 1.5):

* left panel: the network *without* the distance group ||x - y|| (groups gx, gy, gd, ux, uy, uxuy),
  so the integrand is analytic in y: the classical orders 1 (left), 2 (midpoint, trapezoid) and a
  super-algebraic (geometric) rate for Gauss-Legendre are expected;
* right panel: the paper's full input (with ||x - y||), whose integrand has a kink at y = x: the
  low-order rules keep their orders (a kink costs O(h^2) in one cell) but Gauss-Legendre drops
  to an algebraic rate.

Error: max over the queries of ||I_n(x) - I_ref(x)|| / ||I_ref(x)||, with I_ref from
``scipy.integrate.quad_vec`` on the integrand, split at y = x (epsabs = epsrel = 1e-14); the reference
is independent of the measures being measured.  Fitted orders: least-squares slope of
-log(err) against log n over n >= n_fit_min (Gauss, smooth case: the local order between the last
two points above 1e-13 is reported instead, since no algebraic order fits a geometric rate).
"""
from __future__ import annotations

import numpy as np
from scipy.integrate import quad_vec

from yatmath.itnet import ITNetOperator, apply, interval_rule, random_kernel_mlp
from yatmath.stats import loglog_slope

from .fig_itnet_special_kernels import room_for_stamp
from ._common import rng_for, stamp
from .registry import register_figure

RULES = ("left", "midpoint", "trapezoid", "gauss")
LABELS = {"left": "left Riemann", "midpoint": "midpoint", "trapezoid": "trapezoid",
          "gauss": "Gauss-Legendre"}
SMOOTH_GROUPS = ("gx", "gy", "gd", "ux", "uy", "uxuy")
FULL_GROUPS = ("gx", "gy", "gd", "dist", "ux", "uy", "uxuy")


def u_field(y):
    """The smooth feature field u(y) in R^3 for y (m, 1)."""
    y = np.asarray(y, float).reshape(-1)
    return np.stack([np.sin(2 * np.pi * y + 0.3), np.cos(3 * y), 1.0 / (1.0 + y * y)], axis=1)


def operator(seed, groups, d=3, width=16, L=4, sigma=1.5):
    net = random_kernel_mlp(d, 1, width=width, L=L, sigma=sigma, groups=groups,
                            rng=rng_for(seed, 504))
    return ITNetOperator(net, np.zeros((d, d)))


def itnet_integral(op, rule, n, xq):
    """I_n at the queries xq (m,) with the key measure interval_rule(rule, n) on [0, 1]."""
    meas = interval_rule(rule, n, 0.0, 1.0)
    Xq = np.asarray(xq, float)[:, None]
    return apply(op, u_field(meas.nodes), meas, mode="dense", Xq=Xq, Uq=u_field(Xq))


def reference(op, xq):
    """int_0^1 kappa(x, y, u(x), u(y)) u(y) dy per query by adaptive quadrature (quad_vec)."""
    net = op.kernel
    out = []
    for x in np.asarray(xq, float):
        X, Ux = np.array([[x]]), u_field([x])

        def f(y):
            Y = np.array([[y]])
            Uy = u_field([y])
            return (net.kernel_pairs(X, Y, Ux, Uy)[0] @ Uy[0])

        a = quad_vec(f, 0.0, x, epsabs=1e-14, epsrel=1e-14)[0]
        b = quad_vec(f, x, 1.0, epsabs=1e-14, epsrel=1e-14)[0]
        out.append(a + b)
    return np.array(out)


def rel_error(I, ref):
    return float(np.max(np.linalg.norm(I - ref, axis=1) / np.linalg.norm(ref, axis=1)))


def fit_order(ns, errs, n_min, floor=1e-13):
    """Least-squares slope of -log err against log n over n >= n_min and err > floor."""
    ns, errs = np.asarray(ns, float), np.asarray(errs, float)
    m = (ns >= n_min) & (errs > floor)
    if m.sum() < 2:
        return float("nan")
    return -loglog_slope(ns[m], errs[m])


def local_order(ns, errs, floor=1e-13):
    """-d log err / d log n between the last two points with err > floor."""
    ns, errs = np.asarray(ns, float), np.asarray(errs, float)
    k = np.flatnonzero(errs > floor)
    if k.size < 2:
        return float("nan")
    a, b = k[-2], k[-1]
    return float(-np.log(errs[b] / errs[a]) / np.log(ns[b] / ns[a]))


def data(seed=0, xq=(0.237, 0.5123, 0.861), ns=(4, 8, 16, 32, 64, 128, 256, 512, 1024),
         ns_gauss=(2, 3, 4, 6, 8, 12, 16, 20, 24, 32, 40, 48, 56, 64, 80, 96), n_fit_min=16):
    out = {"ns": np.asarray(ns), "ns_gauss": np.asarray(ns_gauss), "err": {}, "order": {},
           "ref": {}}
    for case, groups in (("smooth", SMOOTH_GROUPS), ("kink", FULL_GROUPS)):
        op = operator(seed, groups)
        ref = reference(op, xq)
        out["ref"][case] = ref
        for rule in RULES:
            nn = ns_gauss if rule == "gauss" else ns
            e = np.array([rel_error(itnet_integral(op, rule, int(n), xq), ref) for n in nn])
            out["err"][(case, rule)] = e
            if rule == "gauss" and case == "smooth":
                out["order"][(case, rule)] = local_order(nn, e)
            else:
                out["order"][(case, rule)] = fit_order(nn, e, n_fit_min)
    out["params"] = {"domain": "[0, 1], Lebesgue", "xq": list(map(float, xq)), "d": 3,
                     "width": 16, "L": 4, "sigma": 1.5, "W": "0 (integral only)",
                     "u": "(sin(2 pi y + 0.3), cos 3y, 1/(1+y^2))",
                     "groups_smooth": list(SMOOTH_GROUPS), "groups_kink": list(FULL_GROUPS),
                     "ns": [int(n) for n in ns], "ns_gauss": [int(n) for n in ns_gauss],
                     "n_fit_min": int(n_fit_min), "reference": "quad_vec split at y = x, tol 1e-14",
                     "error": "max over queries of relative 2-norm error", "seed": int(seed)}
    return out


@register_figure("itnet_quadrature_convergence", paper="003 Def. 1, §2 (no paper figure)",
                 title="ITNet integral: quadrature convergence per rule", data=data)
def draw(d, fig):
    p = d["params"]
    fig.set_size_inches(13, 5.6)
    room_for_stamp(fig)
    axs = fig.subplots(1, 2, sharey=True)
    titles = {"smooth": "kernel without ||x - y|| (analytic integrand)",
              "kink": "full kernel input with ||x - y|| (kink at y = x)"}
    for ax, case in zip(axs, ("smooth", "kink")):
        for rule in RULES:
            nn = d["ns_gauss"] if rule == "gauss" else d["ns"]
            o = d["order"][(case, rule)]
            what = "local order" if (rule == "gauss" and case == "smooth") else "fitted order"
            ax.loglog(nn, np.maximum(d["err"][(case, rule)], 1e-17), "o-", ms=4,
                      label=f"{LABELS[rule]}: {what} {o:.2f}")
        ax.axhline(2.0 ** -52, color="0.5", lw=0.8, ls=":", label="machine epsilon")
        ax.set_xlabel("n (quadrature intervals / Gauss nodes)")
        ax.set_title(titles[case], fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8, loc="lower left")
    axs[0].set_ylabel("max_x ||I_n(x) - I(x)|| / ||I(x)||")
    fig.suptitle(f"ITNet integral int_0^1 kappa(x, y, u(x), u(y)) u(y) dy at x = "
                 f"{tuple(p['xq'])}; random kernel MLP d = {p['d']}, width {p['width']}, "
                 f"L = {p['L']}, sigma = {p['sigma']:g}; orders fitted on n >= {p['n_fit_min']}",
                 fontsize=10)
    stamp(fig, p, keys=["u", "W", "reference", "seed"])
