"""000 Fig. 8(a): eigenvalue spectra of the Yat NTK and the ReLU NTK, computed honestly.

Kernels (algorithms.md Y7), on N points drawn uniformly from the unit ball of R^d, d = 1, 2, 3:

* Yat NTK, Monte Carlo at infinite width for f = m^{-1/2} sum_i a_i K(w_i, x), a_i ~ N(0, 1)
  (reading R2 of claims.md yat.ntk.formula), w_i ~ N(0, sigma_w^2 I):
      Theta(x, x') = E_w[K(w,x) K(w,x')] + E[a^2] E_w[grad_w K(w,x) . grad_w K(w,x')],
  estimated with M samples as Phi Phi^T, Phi(x) = M^{-1/2} [K(w_m, x), grad_w K(w_m, x)]_m, so
  the estimate is positive semi-definite by construction.  grad_w is yatmath.yat.grad (Y2).
* the Yat kernel itself (yatmath.yat.gram);
* the bias-free two-layer ReLU NTK in closed form:
      Theta(x,x') = ||x|| ||x'|| (sin t + (pi - t) cos t)/(2 pi) + (x.x')(pi - t)/(2 pi);
* a Gaussian kernel exp(-||x - x'||^2/(2 sigma^2)) as the reference the paper names.

Nystrom estimates lambda_k = eigvalsh(G/N) (descending); eigenvalues below 1e3 u lambda_1 are
dropped (u = float64 roundoff).  The Monte Carlo NTK is trusted only where it is reproducible:
the M samples are split into two halves with estimates Theta_1, Theta_2 (Theta = their mean);
lambda_k is "resolved" for k below the first k at which either half's lambda_k differs from
Theta's by more than ``resolve_tol`` (relative).  Unresolved eigenvalues are drawn faded and left
out of the slope fits.  The data also keep the Weyl bound ||Theta_1 - Theta_2||_2 / (2N), a
worst-case (pessimistic) size of the Monte Carlo error of any single eigenvalue.
Local slopes are least-squares fits of log lambda_k against log k over the window k_fit.  No
bootstrap here (the ledger's yat.ntk.spectral_decay does that); the slopes are for reading the
figure, not a verdict.
"""
from __future__ import annotations

import numpy as np

from yatmath.yat import gram, grad
from yatmath.stats import loglog_slope

from ._common import BACKEND, rng_for, stamp
from .registry import register_figure

KERNELS = ("yat_ntk", "yat_kernel", "relu_ntk", "gaussian")
LABELS = {"yat_ntk": "Yat NTK (Monte Carlo)", "yat_kernel": "Yat kernel",
          "relu_ntk": "ReLU NTK (closed form)", "gaussian": "Gaussian kernel"}


def uniform_ball(rng, n, d):
    """n points uniform in the unit ball of R^d."""
    g = rng.standard_normal((n, d))
    g /= np.linalg.norm(g, axis=1, keepdims=True)
    return g * rng.random((n, 1)) ** (1.0 / d)


def yat_ntk_features(X, Wm, eps):
    """Phi (N, M (1 + d)) with Phi Phi^T the Monte Carlo Yat NTK of Y7 (E[a^2] = 1)."""
    M = Wm.shape[0]
    Kx = gram(X, Wm, eps, backend=BACKEND)                        # (N, M): K(w_m, x_i)
    Gw = np.asarray(grad(Wm[None, :, :], X[:, None, :], eps).w)   # (N, M, d): grad_w K(w_m, x_i)
    return np.concatenate([Kx, Gw.reshape(X.shape[0], -1)], axis=1) / np.sqrt(M)


def relu_ntk(X, Y):
    """Bias-free two-layer ReLU NTK (algorithms.md Y7), w ~ N(0, I), a ~ N(0, 1)."""
    nx = np.linalg.norm(X, axis=1)[:, None]
    ny = np.linalg.norm(Y, axis=1)[None, :]
    dot = X @ Y.T
    with np.errstate(invalid="ignore", divide="ignore"):
        c = np.clip(dot / (nx * ny), -1.0, 1.0)
    c = np.where((nx * ny) > 0, c, 1.0)
    t = np.arccos(c)
    return (nx * ny * (np.sin(t) + (np.pi - t) * c) + dot * (np.pi - t)) / (2 * np.pi)


def gaussian(X, Y, sigma):
    d2 = np.sum((X[:, None, :] - Y[None, :, :]) ** 2, axis=-1)
    return np.exp(-d2 / (2 * sigma ** 2))


def nystrom(G):
    """Descending eigenvalues of G/N (all of them, before any dropping)."""
    return np.linalg.eigvalsh(G / G.shape[0])[::-1]


def local_slope(lam, k_lo, k_hi, floor=0.0):
    """Least-squares slope of log lambda_k vs log k over k in [k_lo, k_hi] with lambda_k > floor."""
    k = np.arange(1, lam.size + 1)
    m = (k >= k_lo) & (k <= k_hi) & (lam > floor)
    if m.sum() < 3:
        return np.nan
    return loglog_slope(k[m], lam[m])


def resolved_prefix(lam, lam1, lam2, tol):
    """Number of leading eigenvalues where both half-sample spectra agree with lam within tol."""
    rel = np.maximum(np.abs(lam1 - lam), np.abs(lam2 - lam)) / np.abs(lam)
    bad = np.nonzero(~(rel <= tol))[0]
    return int(bad[0]) if bad.size else int(lam.size)


def data(seed=0, dims=(1, 2, 3), n_points=300, n_w=2000, eps=1.0, sigma_w=1.0,
         gauss_sigma=0.5, k_fit=(3, 30), resolve_tol=0.25):
    out = {"dims": list(dims), "eig": {}, "eig_all": {}, "slopes": {}, "weyl_bound": {},
           "n_resolved": {}, "points": {}}
    u = np.finfo(float).eps
    for d in dims:
        rng = rng_for(seed, 100 + d)
        X = uniform_ball(rng, n_points, d)
        Wm = sigma_w * rng.standard_normal((n_w, d))
        h = n_w // 2
        P1, P2 = yat_ntk_features(X, Wm[:h], eps), yat_ntk_features(X, Wm[h:2 * h], eps)
        T1, T2 = P1 @ P1.T, P2 @ P2.T
        G = {"yat_ntk": (T1 + T2) / 2, "yat_kernel": gram(X, eps=eps, backend=BACKEND),
             "relu_ntk": relu_ntk(X, X), "gaussian": gaussian(X, X, gauss_sigma)}
        out["points"][d] = X
        out["weyl_bound"][d] = float(np.linalg.norm(T1 - T2, 2) / 2 / n_points)
        for name, Gk in G.items():
            lam = nystrom(Gk)
            out["eig_all"][(name, d)] = lam
            keep = lam > 1e3 * u * lam[0]
            out["eig"][(name, d)] = lam[keep]
            if name == "yat_ntk":
                nk = int(keep.sum())
                nres = resolved_prefix(lam[:nk], nystrom(T1)[:nk], nystrom(T2)[:nk], resolve_tol)
                out["n_resolved"][d] = nres
                out["slopes"][(name, d)] = local_slope(lam[:nres], *k_fit)
            else:
                out["slopes"][(name, d)] = local_slope(lam[keep], *k_fit)
        out["slopes"][("claimed_-2/d", d)] = -2.0 / d
    out["params"] = {"eps": float(eps), "dims": list(dims), "n_points": int(n_points),
                     "n_w_samples": int(2 * (n_w // 2)), "sigma_w": float(sigma_w),
                     "w_law": "N(0, sigma_w^2 I)", "a_law": "N(0,1), f = m^-1/2 sum a_i K",
                     "gauss_sigma": float(gauss_sigma), "k_fit": list(k_fit),
                     "resolve_tol": float(resolve_tol),
                     "domain": "uniform in the unit ball", "seed": int(seed)}
    return out


@register_figure("ntk_spectrum", paper="000 Fig. 8(a)",
                 title="Eigenvalue spectra: Yat NTK vs ReLU NTK (Nystrom)", data=data)
def draw(d, fig):
    p = d["params"]
    dims = d["dims"]
    fig.set_size_inches(5.5 * len(dims), 5)
    axs = np.atleast_1d(fig.subplots(1, len(dims)))
    for ax, dim in zip(axs, dims):
        nres = d["n_resolved"][dim]
        for name in KERNELS:
            lam = d["eig"][(name, dim)]
            k = np.arange(1, lam.size + 1)
            s = d["slopes"][(name, dim)]
            if name == "yat_ntk":
                (ln,) = ax.loglog(k[:nres], lam[:nres], lw=2,
                                  label=f"{LABELS[name]}: slope {s:.2f} (resolved k <= {nres})")
                ax.loglog(k[nres:], lam[nres:], color=ln.get_color(), alpha=0.25,
                          label="  Monte Carlo unresolved")
            else:
                lab = (f"slope {s:.2f}" if np.isfinite(s) else
                       f"slope n/a: only {lam.size} eigenvalues above 1e3 u lambda_1")
                ax.loglog(k, lam, label=f"{LABELS[name]}: {lab}")
        lam0 = d["eig"][("yat_ntk", dim)]
        kk = np.arange(1, lam0.size + 1)
        ax.loglog(kk, lam0[0] * kk ** (-2.0 / dim), "k--", lw=0.8, label=f"k^(-2/d) = k^{-2/dim:.2f}")
        ax.set_xlabel("k"), ax.set_ylabel("lambda_k (Nystrom, G/N)")
        ax.set_title(f"d = {dim}, slopes fitted on k in {tuple(p['k_fit'])}", fontsize=10)
        ax.set_ylim(bottom=max(1e-16, min(v[-1] for key, v in d["eig"].items() if key[1] == dim)))
        ax.legend(fontsize=7)
    fig.suptitle(f"NTK spectra on {p['n_points']} uniform points in the unit ball; Yat eps = "
                 f"{p['eps']:g}, w ~ N(0, {p['sigma_w']:g}^2 I), {p['n_w_samples']} Monte Carlo "
                 f"w samples; Gaussian sigma = {p['gauss_sigma']:g}")
    stamp(fig, p)
