"""Shared 1-D Gibbs test problem of the particles LDP checks (thm2_ldp, thm2_kernel_concentration,
lemma9_10_regime2, goodness_and_free_energy).

Omega = [-1, 1], V(w) = -cos(3w)/2 + 0.3 w (algorithms.md §P4 sanity potential), lam = 0.5,
beta_N = beta0 N with beta0 = 2, sampled with the reflected Langevin of yatmath.particles.ldp.
"""
from __future__ import annotations

import math

import numpy as np

import yatmath.particles as P

DOM = P.Interval(-1.0, 1.0)
LAM, BETA0 = 0.5, 2.0
SOFT = ("plummer", 2.0, 0.2)          # a softened s = 2 > d = 1 kernel (bounded, continuous)
NEAR_SINGULAR = ("hard", 0.5, 0.02)   # s = 1/2 < d = 1, hard truncation at eps = 0.02
MIN_V = -0.8                          # min over [-1, 1] of V is >= -1/2 - 0.3


def v_pot(w):
    return -np.cos(3 * w) / 2 + 0.3 * w


def V_of(W):
    return v_pot(W)[..., 0]


def grad_V(W):
    return 1.5 * np.sin(3 * W) + 0.3


def f_lin(W):
    return W[..., 0]


def grad_f_lin(W):
    return np.ones_like(W)


def system(interaction, diagonal="exclude", lam=LAM):
    return P.PairGibbs(V_of, grad_V, lam, interaction, DOM, diagonal=diagonal)


def grid(M=200):
    return P.FVGrid(-1.0, 1.0, M)


def wls_intercept(N, y, se):
    """Weighted least squares y = a + b/N (+ c/N^2 with >= 3 sizes); returns (a, se_a)."""
    N = np.asarray(N, float)
    order = 2 if N.shape[0] >= 3 else 1
    X = np.stack([N ** -k for k in range(order + 1)], 1)
    w = 1.0 / np.maximum(np.asarray(se, float), 1e-12) ** 2
    cov = np.linalg.inv(X.T @ (w[:, None] * X))
    coef = cov @ (X.T @ (w * np.asarray(y, float)))
    return float(coef[0]), float(np.sqrt(cov[0, 0]))


def energy_lower_bound(s, eps, lam, min_field, length=2.0):
    """A lower bound, valid for EVERY probability measure mu on an interval of the given length, of
    int V dmu + (lam/2) int int g^eps dmu dmu with g^eps = min(r^-s, eps^-s) (lam >= 0):
    split the interval into m = ceil(length/eps) cells of length <= eps; two points of one cell
    are at distance <= eps, so g^eps = eps^-s there and, by Cauchy-Schwarz,
    int int g^eps >= eps^-s sum_j mu(I_j)^2 >= eps^-s / m.  Since g_s >= g^eps, the same bound holds
    for the bare Riesz energy; for s > d = 1 it tends to +inf as eps -> 0."""
    return float(min_field + lam * eps ** (-s) / (2 * math.ceil(length / eps)))


LOWER_BOUND_EXPR = "mv + lam * eps ** (-s) / (2 * math.ceil(length / eps))"
