"""Monte Carlo error of the ITNet integral against the number of samples M (003 §3.2, eq. 13,
Prop. 11, eqs 208-210; algorithms.md I7).

One query i of an ITNet operator with a random kernel network (``random_kernel_mlp``, no residual)
on a *non-uniform* discrete measure (normalised Gauss-Legendre nodes and weights on [0, 1]: the
weights omega_j vary by a factor ~ n/2 between the ends and the middle).  The integral is
I = sum_j c_j g_j with c_j = omega_j and g_j = K_ij u_j.  For three proposals q over the keys,

* ``uniform``  q_j = 1/n,
* ``measure``  q_j = omega_j / sum omega,
* ``optimal``  q*_j ∝ |c_j| ||g_j|| (``mc.optimal_pmf``; needs the dense g, so a check, not a method),

the estimator of ``yatmath.itnet.mc.mc_integral`` (iid draws with replacement, importance weights
c_j/(M q_j)) is run R times independently for each M (R copies of the query, one estimate each),
and the root-mean-square error ``sqrt(mean_r ||I^_r - I||^2)`` is plotted against M with the
theory line ``sqrt(V(q) / M)``, V(q) = sum_j c_j^2 ||g_j||^2 / q_j - ||I||^2 the trace variance
(``mc.trace_variance``, Prop. 11 eq. 208).  Slopes are least-squares fits of log RMSE on log M.

Accuracy: the RMSE from R repetitions has a relative standard error of about
sqrt(kurt - 1) / (2 sqrt R) (a few per cent here), so the dots should lie within a few tens of
per cent of the lines; V(q*) <= V(q) for every q (Cauchy-Schwarz).
"""
from __future__ import annotations

import numpy as np

from yatmath.itnet import ITNetOperator, interval_rule, kernel_tensor, mc, random_kernel_mlp
from yatmath.stats import loglog_slope

from .fig_itnet_special_kernels import room_for_stamp
from ._common import rng_for, stamp
from .registry import register_figure

PROPOSALS = ("uniform", "measure", "optimal")


def setup(seed=0, n=64, d=3, width=16, L=4, sigma=1.5, query=21):
    """(op, measure, U, i): the operator, the Gauss-Legendre measure, key features, query index."""
    rng = rng_for(seed, 502)
    net = random_kernel_mlp(d, 1, width=width, L=L, sigma=sigma, rng=rng)
    op = ITNetOperator(net, np.zeros((d, d)))
    meas = interval_rule("gauss", n, 0.0, 1.0, normalised=True)
    U = rng.normal(size=(n, d))
    return op, meas, U, int(query)


def integrands(op, meas, U, i):
    """g (n, d) with g_j = K_ij u_j, and the pair weights c_j = omega_j (non-causal)."""
    K = kernel_tensor(op, meas.nodes[i:i + 1], meas.nodes, U[i:i + 1], U)[0]
    return np.einsum("jab,jb->ja", K, U), meas.weights.copy()


def proposals(g, c):
    n = c.size
    return {"uniform": np.full(n, 1.0 / n), "measure": c / c.sum(),
            "optimal": mc.optimal_pmf(g, c)}


def data(seed=0, n=64, d=3, width=16, L=4, sigma=1.5, query=21, Ms=(1, 2, 4, 8, 16, 32, 64, 128, 256, 512),
         reps=200):
    op, meas, U, i = setup(seed, n, d, width, L, sigma, query)
    g, c = integrands(op, meas, U, i)
    I = c @ g
    qs = proposals(g, c)
    rng = rng_for(seed, 503)
    Xq = np.repeat(meas.nodes[i:i + 1], reps, axis=0)
    Uq = np.repeat(U[i:i + 1], reps, axis=0)
    rmse, theory, slopes, bias = {}, {}, {}, {}
    for name, q in qs.items():
        Q = np.broadcast_to(q, (reps, n)).copy()
        errs, means = [], []
        for M in Ms:
            est, _, _ = mc.mc_integral(op, Xq, meas.nodes, Uq, U, meas.weights, M=int(M), q=Q, rng=rng)
            errs.append(np.sqrt(np.mean(np.sum((est - I) ** 2, axis=1))))
            means.append(np.linalg.norm(est.mean(0) - I))
        rmse[name] = np.array(errs)
        bias[name] = np.array(means)
        theory[name] = np.array([np.sqrt(mc.trace_variance(g, c, q, int(M))) for M in Ms])
        slopes[name] = loglog_slope(Ms, rmse[name])
    return {
        "M": np.asarray(Ms, float), "rmse": rmse, "theory": theory, "slopes": slopes,
        "norm_bias": bias, "I": I, "g": g, "c": c, "q": qs, "x_query": float(meas.nodes[i, 0]),
        "params": {"n": int(n), "d": int(d), "width": int(width), "L": int(L), "sigma": float(sigma),
                   "query": int(i), "measure": "Gauss-Legendre on [0,1], normalised",
                   "kernel": "random_kernel_mlp, W = 0", "U": "N(0, 1) per entry",
                   "Ms": [int(M) for M in Ms], "reps": int(reps), "sampling": "iid with replacement",
                   "eps_mix": 0.0, "seed": int(seed)},
    }


@register_figure("itnet_mc_error", paper="003 §3.2 eq. 13, Prop. 11 (no paper figure)",
                 title="ITNet Monte Carlo error against samples M", data=data)
def draw(d, fig):
    p = d["params"]
    fig.set_size_inches(8, 6)
    room_for_stamp(fig)
    ax = fig.subplots()
    M = d["M"]
    for name in PROPOSALS:
        (ln,) = ax.loglog(M, d["rmse"][name], "o", label=f"{name}: measured, slope {d['slopes'][name]:.3f}")
        ax.loglog(M, d["theory"][name], "-", color=ln.get_color(), lw=1,
                  label=f"{name}: theory sqrt(V(q)/M), V = {d['theory'][name][0] ** 2:.3g}")
    ax.set_xlabel("samples M per query"), ax.set_ylabel("RMSE ||I^ - I|| over repetitions")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.suptitle(f"Importance-weighted Monte Carlo of one ITNet query (x = {d['x_query']:.3f}), "
                 f"{p['reps']} repetitions per M\n"
                 f"n = {p['n']} Gauss-Legendre keys (normalised), d = {p['d']}, random kernel MLP "
                 f"(width {p['width']}, L = {p['L']}, sigma = {p['sigma']:g})", fontsize=10)
    stamp(fig, p, keys=["n", "d", "reps", "sampling", "eps_mix", "seed"])
