"""Estimator error against budget (issue 4; algorithms.md I7, I8).

Left: Monte Carlo and randomised QMC (scrambled Sobol, ``yatmath.estimators.integrate_qmc``) for
I = int_{[0,1]^D} prod_i (pi/2) sin(pi u_i) du = 1.  Plotted: the root-mean-square error over
``mc_seeds`` independent runs, each the mean of R randomisations of M points.  The theory line
for plain MC is sigma / sqrt(M R), sigma^2 = Var f(U) = (pi^2/8)^D - 1 (closed form); scrambled
Sobol on this smooth product integrand decays faster (about M^{-3/2} up to log factors).

Middle: low rank for the Yat Gram matrix A = K(X, X) (unit-norm X, eps, bias; PSD since its
Maclaurin coefficients are non-negative): spectral error of the truncated SVD (equal to
sigma_{r+1}, Eckart-Young: the floor for every rank-r matrix), of the rank-r randomized SVD
(range finder with r + p Gaussian columns, no power iterations; mean over ``lr_seeds`` runs) and
its bound sigma_{r+1} + E||A - Q Q^T A||_2 <= sigma_{r+1} + (HMT Cor. 10.10 bound) (HMT 9.3).

Right: Nystrom with m landmarks (uniform and leverage-score sampling): trace error
trace(A - A_hat), mean over ``lr_seeds`` runs, against the floor sum_{k>m} lambda_k that every
rank-m PSD approximation below A obeys.
"""
from __future__ import annotations

import numpy as np

from yatmath.estimators import integrate_qmc, nystrom, randomized_svd, truncated_svd
from yatmath.yat import gram
from yatmath.stats import loglog_slope

from ._common import rng_for, stamp
from .registry import register_figure


def _integrand(u):
    return np.prod(0.5 * np.pi * np.sin(np.pi * u), axis=1)


def data(seed=0, dim=4, samples=(64, 256, 1024, 4096), randomizations=4, mc_seeds=12, n=64,
         d=8, eps=1.0, bias=0.5, ranks=(2, 4, 8, 16, 24), oversample=5, lr_seeds=3):
    sigma = float(np.sqrt((np.pi ** 2 / 8) ** dim - 1.0))
    rmse = {}
    for method in ("mc", "sobol"):
        errs = []
        for M in samples:
            est = [integrate_qmc(_integrand, dim, M, method=method, randomizations=randomizations,
                                 rng=rng_for(seed, 1000 * M + s)).estimate
                   for s in range(mc_seeds)]
            errs.append(float(np.sqrt(np.mean((np.asarray(est) - 1.0) ** 2))))
        rmse[method] = np.array(errs)
    M = np.asarray(samples, float)
    theory = sigma / np.sqrt(M * randomizations)
    mc_slopes = {k: loglog_slope(M, v) for k, v in rmse.items()}

    g = rng_for(seed, 42)
    X = g.standard_normal((n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    A = gram(X, X, eps=eps, bias=bias, backend="numpy")
    A = (A + A.T) / 2
    svd_err, rsvd_err, rsvd_proj, rsvd_bound = [], [], [], []
    nys = {"uniform": [], "leverage": []}
    floor = []
    for r in ranks:
        t = truncated_svd(A, r)
        svd_err.append(t.error_spec)
        runs = [randomized_svd(A, r, oversample=oversample, power_iters=0,
                               rng=rng_for(seed, 100 * r + s)) for s in range(lr_seeds)]
        rsvd_err.append(np.mean([o.error_spec for o in runs]))
        rsvd_proj.append(np.mean([o.info["proj_error_spec"] for o in runs]))
        rsvd_bound.append(t.error_spec + runs[0].bounds["proj_spec_expected"])
        for sampling in nys:
            outs = [nystrom(A, r, sampling=sampling, rng=rng_for(seed, 200 * r + s))
                    for s in range(lr_seeds)]
            nys[sampling].append(np.mean([o.info["error_trace"] for o in outs]))
        floor.append(outs[0].bounds["trace_floor"])
    return {
        "samples": np.asarray(samples), "rmse": rmse, "theory_mc": theory, "mc_slopes": mc_slopes,
        "sigma": sigma, "ranks": np.asarray(ranks), "svd_spec": np.array(svd_err),
        "A": A, "rsvd_spec": np.array(rsvd_err), "rsvd_proj_spec": np.array(rsvd_proj),
        "rsvd_bound": np.array(rsvd_bound),
        "nystrom_trace": {k: np.array(v) for k, v in nys.items()},
        "trace_floor": np.array(floor),
        "params": {"dim": dim, "samples": list(samples), "randomizations": randomizations,
                   "mc_seeds": mc_seeds, "n": n, "d": d, "eps": eps, "bias": bias,
                   "ranks": list(ranks), "oversample": oversample, "power_iters": 0,
                   "lr_seeds": lr_seeds, "seed": int(seed)},
    }


@register_figure("estimators_error_vs_budget", paper="issue 4 (no paper figure)",
                 title="Monte Carlo, QMC and low-rank error against budget", data=data)
def draw(dd, fig):
    p = dd["params"]
    fig.set_size_inches(15, 4.8)
    a, b, c = fig.subplots(1, 3)
    M = dd["samples"]
    for k, lab in (("mc", "Monte Carlo"), ("sobol", "scrambled Sobol")):
        a.loglog(M, dd["rmse"][k], "o-", label=f"{lab} (slope {dd['mc_slopes'][k]:.2f})")
    a.loglog(M, dd["theory_mc"], "k--", lw=1, label="sigma / sqrt(M R)  (MC theory)")
    a.set_xlabel("points per randomisation M"), a.set_ylabel("RMS error")
    a.set_title(f"int prod (pi/2) sin(pi u_i) over [0,1]^{p['dim']}", fontsize=10)
    r = dd["ranks"]
    b.semilogy(r, dd["svd_spec"], "o-", label="truncated SVD = sigma_{r+1}")
    b.semilogy(r, dd["rsvd_spec"], "s-", label=f"randomized SVD (p={p['oversample']}, q=0)")
    b.semilogy(r, dd["rsvd_bound"], "k--", lw=1, label="sigma_{r+1} + HMT expectation bound")
    b.set_xlabel("rank r"), b.set_ylabel("spectral error"), b.set_title("Yat Gram matrix", fontsize=10)
    for k, v in dd["nystrom_trace"].items():
        c.semilogy(r, v, "o-", label=f"Nystrom, {k}")
    c.semilogy(r, dd["trace_floor"], "k--", lw=1, label="floor sum_{k>m} lambda_k")
    c.set_xlabel("landmarks m"), c.set_ylabel("trace(A - A_hat)"), c.set_title("Nystrom", fontsize=10)
    for ax in (a, b, c):
        ax.legend(fontsize=7)
    fig.suptitle(f"Estimator error vs budget (Yat Gram: n={p['n']}, d={p['d']}, eps={p['eps']:g}, "
                 f"bias={p['bias']:g})")
    stamp(fig, p)
