"""Helpers shared by the yat simplex / orthogonality checks.

The simplex product and the information quantities are the public
``yatmath.yat.simplex`` functions (``simplex_product``, ``kl_divergence``, ``cross_entropy``,
``entropy``)."""
from __future__ import annotations

import numpy as np
from scipy.optimize import brentq, minimize

import yatmath.yat as yat
from yatmath.yat.simplex import cross_entropy, entropy, kl_divergence, simplex_product  # noqa: F401

def support_patterns(n):
    """All non-empty subsets of range(n) as boolean masks, shape (2^n - 1, n)."""
    return np.array([[(m >> i) & 1 for i in range(n)] for m in range(1, 2 ** n)], dtype=bool)


def dirichlet_on(masks, rng):
    """One Dirichlet(1) distribution supported exactly on each boolean row of ``masks``."""
    g = rng.exponential(size=masks.shape) * masks
    return g / g.sum(axis=-1, keepdims=True)


def random_sparse_pairs(rng, m, n):
    """``m`` pairs (p, q) on Delta^{n-1} with random supports; about a third are disjoint."""
    mp = rng.random((m, n)) < rng.uniform(0.2, 0.9, (m, 1))
    mq = rng.random((m, n)) < rng.uniform(0.2, 0.9, (m, 1))
    disjoint = rng.random(m) < 1 / 3
    mq[disjoint] &= ~mp[disjoint]
    for mask in (mp, mq):  # make every support non-empty
        empty = ~mask.any(axis=1)
        mask[empty, rng.integers(0, n, empty.sum())] = True
    return dirichlet_on(mp, rng), dirichlet_on(mq, rng)


def supp_disjoint(p, q):
    return ~np.any((p > 0) & (q > 0), axis=-1)


def simplex_starts(rng, n, k, extra=()):
    starts = [np.asarray(e, float) for e in extra] + list(rng.dirichlet(np.ones(n), size=k))
    return starts


def maximize_on_simplex(f, n, starts, jac=None):
    """Multi-start SLSQP of f over Delta^{n-1}; returns (best value, argmax, per-start values).

    ``jac`` (optional) is the gradient of f; otherwise SLSQP differences f itself.
    """
    cons = ({"type": "eq", "fun": lambda q: np.sum(q) - 1.0, "jac": lambda q: np.ones_like(q)},)
    best_v, best_q, vals = -np.inf, None, []
    mjac = None if jac is None else (lambda q: -jac(q))
    for q0 in starts:
        res = minimize(lambda q: -f(q), q0, jac=mjac, method="SLSQP", bounds=[(0.0, 1.0)] * n,
                       constraints=cons, options={"ftol": 1e-15, "maxiter": 300})
        q = np.clip(res.x, 0, None)
        q = q / q.sum()
        v = float(f(q))
        vals.append(v)
        if v > best_v:
            best_v, best_q = v, q
    return best_v, best_q, vals


# --------------------------------------------------------------------------------------------
# yat.simplex.min_similarity


def boundary_distance(wi, wj, eps, *, dirs, r_max, n_r):
    """Distance from w_i to the decision boundary {x : K(w_i,x) = K(w_j,x)} along rays.

    For each unit direction u in ``dirs`` the first sign change of f(r) = K(w_i, w_i + r u) -
    K(w_j, w_i + r u) on a grid of ``n_r`` radii in (0, r_max] is refined with brentq.  The
    minimum over directions is an upper bound on the distance that converges as ``dirs`` fills
    the sphere (error O(h^2) for angular spacing h when the nearest point is in the plane of the
    directions).  Returns (distance, nearest point) or (inf, None) when no ray meets the boundary.
    """
    r = np.linspace(r_max / n_r, r_max, n_r)
    X = wi + r[None, :, None] * dirs[:, None, :]
    f = yat.product(wi, X, eps, backend="numpy") - yat.product(wj, X, eps, backend="numpy")
    change = np.sign(f[:, 1:]) != np.sign(f[:, :-1])
    has = change.any(1)
    if not has.any():
        return np.inf, None
    k = np.argmax(change, axis=1)
    r_first = np.where(has, r[k], np.inf)
    best, xbest = np.inf, None
    for i in np.argsort(r_first)[:4]:
        if not has[i]:
            continue
        u = dirs[i]
        g = lambda t, u=u: float(yat.product(wi, wi + t * u, eps, backend="numpy")  # noqa: E731
                                 - yat.product(wj, wi + t * u, eps, backend="numpy"))
        lo = r[k[i]]
        lo_prev = r[k[i] - 1] if k[i] > 0 else 0.0
        rr = brentq(g, max(lo_prev, 1e-12), r[k[i] + 1] if k[i] + 1 < n_r else lo, xtol=1e-13)
        if rr < best:
            best, xbest = rr, wi + rr * u
    return best, xbest


def plane_dirs(wi, wj, n_theta, extra_random, rng):
    """Unit directions in span{w_i, w_j} (n_theta of them) plus random ones in R^d."""
    e1 = wi / np.linalg.norm(wi)
    e2 = wj - (wj @ e1) * e1
    if np.linalg.norm(e2) < 1e-12:
        e2 = np.roll(e1, 1) - (np.roll(e1, 1) @ e1) * e1
    e2 /= np.linalg.norm(e2)
    th = np.linspace(0, 2 * np.pi, n_theta, endpoint=False)
    D = np.cos(th)[:, None] * e1 + np.sin(th)[:, None] * e2
    if extra_random:
        R = rng.normal(size=(extra_random, len(wi)))
        D = np.vstack([D, R / np.linalg.norm(R, axis=1, keepdims=True)])
    return D

