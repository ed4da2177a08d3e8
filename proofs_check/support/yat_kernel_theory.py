"""Helpers shared by the Yat kernel-theory checks (claims.md A1/A2): ``checks/yat/def.py``,
``mercer_psd.py``, ``mercer_proof_steps.py``, ``rkhs_existence.py``, ``uat_biased.py``,
``uat_bias_identity.py``, ``imq_fourier.py``, ``uat_unbiased.py``,
``universal_kernel_proof_002.py``, ``rkhs_relu_comparison.py``, ``background_theorems.py``.

Kernel formulas come from ``yatmath`` (``yatmath.yat`` for the Yat kernel, float64 reference
backend; ``yatmath.features.fourier`` for the IMQ, its Fourier transform and the arc-cosine
kernel); statistics from ``proofs_check.stats``.  Nothing here decides a verdict.
"""
from __future__ import annotations

import math

import numpy as np
import scipy.optimize as opt
import sympy as sp

import yatmath.yat as Y
from proofs_check import stats as S

PSD_RTOL = S.PSD_RTOL
PSD_SOURCE = ("claims.md General rules: 'PSD tests use lambda_min >= -1e-12 lambda_max "
              "(relative)' (float64 eigvalsh backward error ~ n u ||G||)")


def psd_ratio(G) -> float:
    """lambda_min / max|lambda| of the symmetric part of G (stats.psd_report)."""
    return S.psd_report(G)["ratio"]


def grid(lo, hi, d, n):
    """The tensor grid of n points per axis on [lo, hi]^d, shape (n^d, d)."""
    g = np.linspace(lo, hi, n)
    return np.stack(np.meshgrid(*([g] * d), indexing="ij"), axis=-1).reshape(-1, d)


def ball(rng, n, d, radius=1.0):
    """n points uniform in the d-ball of the given radius."""
    u = rng.standard_normal((n, d))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    return u * radius * rng.uniform(0, 1, (n, 1)) ** (1.0 / d)


# ---------------------------------------------------------------------------------------------
# adversarial search for the smallest Gram eigenvalue ratio of the Yat kernel


def fast_ratio(G) -> float:
    """lambda_min / max|lambda| of a symmetric matrix (no checks; for inner loops of searches)."""
    lam = np.linalg.eigvalsh(G)
    m = max(abs(lam[0]), abs(lam[-1]))
    return 1.0 if m == 0.0 else float(lam[0] / m)


def yat_gram_ratio(P, n, d, eps):
    """Objective of the search: the ratio of the Yat Gram (plain float64 direct formula, the
    same as yatmath's reference; the minimiser is re-evaluated with yatmath.yat.gram)."""
    X = P.reshape(n, d)
    G = (X @ X.T) ** 2 / (((X[:, None, :] - X[None, :, :]) ** 2).sum(-1) + eps)
    return fast_ratio(G)


def adversarial_yat_psd(rng, restarts, maxfev, eps_list=(1e-3, 1.0, 10.0)):
    """Multi-start Nelder-Mead minimisation of lambda_min/lambda_max of Yat Gram matrices over
    the coordinates of n in {3..6} points in R^d, d in {1, 2, 3}, eps in ``eps_list``, scales
    10^U(-2, 2).  Returns the minimiser record (ratio, points, eps, n, d) and all restart minima."""
    best = {"ratio": np.inf}
    minima = []
    for k in range(restarts):
        n, d, eps = (3, 4, 5, 6)[k % 4], (1, 2, 3)[k % 3], eps_list[(k // 3) % len(eps_list)]
        scale = 10.0 ** rng.uniform(-2, 2)
        p0 = rng.standard_normal(n * d) * scale
        res = opt.minimize(yat_gram_ratio, p0, args=(n, d, eps), method="Nelder-Mead",
                           options={"maxfev": maxfev, "xatol": 1e-10 * scale, "fatol": 1e-16})
        minima.append(float(res.fun))
        if res.fun < best["ratio"]:
            X = res.x.reshape(n, d)
            best = {"ratio": psd_ratio(Y.gram(X, eps=eps, backend="numpy")),
                    "points": X.tolist(), "eps": eps, "n": n, "d": d, "restart": k}
    return best, minima


# ---------------------------------------------------------------------------------------------
# symbolic facts used by several checks


def sympy_imq_ft_integrand_positive() -> bool:
    """The Laplace-mixture integrand of the IMQ transform, pi^{d/2} t^{-d/2} exp(-eps t -
    rho^2/(4t)), is strictly positive for t, eps, rho > 0 and every d (sympy's assumptions)."""
    t, eps, rho, d = sp.symbols("t eps rho d", positive=True)
    f = sp.pi ** (d / 2) * t ** (-d / 2) * sp.exp(-eps * t - rho ** 2 / (4 * t))
    return bool(f.is_positive)


def sympy_bias_second_difference() -> dict:
    """g(b) = (s + b)^2 / D: d2g/db2 = 2/D and [g(b+h) - 2g(b) + g(b-h)]/h^2 = 2/D exactly."""
    s, b, h = sp.symbols("s b h", real=True)
    D = sp.Symbol("D", positive=True)

    def g(bb):
        return (s + bb) ** 2 / D
    second = sp.simplify(sp.diff(g(b), b, 2) - 2 / D) == 0
    diffq = sp.simplify((g(b + h) - 2 * g(b) + g(b - h)) / h ** 2 - 2 / D) == 0
    return {"second_derivative_is_2_over_D": bool(second),
            "second_difference_is_2_over_D_for_all_h": bool(diffq)}


# ---------------------------------------------------------------------------------------------
# least-squares approximation sweeps (substitute evidence for the density theorems)


def bump(X, center, radius=0.6):
    r2 = np.sum((X - center) ** 2, axis=1) / radius ** 2
    out = np.zeros(len(X))
    m = r2 < 1
    out[m] = np.exp(1.0 - 1.0 / (1.0 - r2[m]))
    return out


def targets(d, center):
    T = {"one": lambda X: np.ones(len(X)),
         "abs": lambda X: np.linalg.norm(X, axis=1),
         "sin3x_abs": lambda X: np.sin(3 * X[:, 0]) + np.abs(X[:, 0]) - 0.8}
    if d >= 2:
        T["bump"] = lambda X: bump(X, center)
        T["x1x2"] = lambda X: X[:, 0] * X[:, 1]
    return T


def ls_sup(A_fit, A_eval, Yf, Ye, with_const):
    """Column-scaled least squares on the fit grid; sup error on the evaluation grid."""
    if with_const:
        A_fit = np.hstack([A_fit, np.ones((A_fit.shape[0], 1))])
        A_eval = np.hstack([A_eval, np.ones((A_eval.shape[0], 1))])
    sc = np.linalg.norm(A_fit, axis=0)
    sc[sc == 0] = 1.0
    coef, _, _, sv = np.linalg.lstsq(A_fit / sc, Yf, rcond=1e-10)
    pred = (A_eval / sc) @ coef
    cond = float(sv[0] / sv[-1]) if sv[-1] > 0 else float("inf")
    return np.max(np.abs(pred - Ye), axis=0), cond, coef / sc[:, None]


GRID_N = {"quick": {1: (201, 2001), 2: (31, 81), 3: (13, 25)},
          "full": {1: (401, 4001), 2: (51, 121), 3: (17, 29)}}


def uat_sweep(level, rng, d, domain, eps, Ns, biased, with_const):
    """Least-squares fits of every target with the first N random atoms (w ~ U(domain +- 0.5),
    b ~ N(0, 1) when biased); sup error on a finer grid.  Returns a dict of plain numbers."""
    lo, hi = domain
    nf, ne = GRID_N[level][d]
    Xf, Xe = grid(lo, hi, d, nf), grid(lo, hi, d, ne)
    T = targets(d, np.full(d, 0.5 * (lo + hi)))
    Yf = np.stack([f(Xf) for f in T.values()], 1)
    Ye = np.stack([f(Xe) for f in T.values()], 1)
    W = rng.uniform(lo - 0.5, hi + 0.5, (max(Ns), d))
    b = rng.standard_normal(max(Ns)) if biased else None
    errs, conds, last = [], [], None
    for N in Ns:
        kw = dict(bias=b[:N], bias_mode="inner") if biased else {}
        Af = Y.gram(Xf, W[:N], eps=eps, backend="numpy", **kw)
        Ae = Y.gram(Xe, W[:N], eps=eps, backend="numpy", **kw)
        e, c, coef = ls_sup(Af, Ae, Yf, Ye, with_const)
        errs.append(e / np.max(np.abs(Ye), axis=0))
        conds.append(c)
        last = coef
    errs = np.array(errs)
    return {"targets": list(T), "N": list(Ns), "domain": [lo, hi], "d": d, "eps": eps,
            "with_const": bool(with_const),
            "rel_sup_error": {n: errs[:, j].tolist() for j, n in enumerate(T)},
            "log10_cond": [round(math.log10(c), 2) if np.isfinite(c) else "inf" for c in conds],
            "_W": W, "_coef_last": last}
