"""Random Fourier features (R1) and orthogonal random frequencies (R2).

Gaussian kernel  k(x, y) = exp(-gamma ||x - y||^2),  gamma > 0.  By Bochner's theorem
k(x, y) = E_omega[cos(omega . (x - y))] with omega ~ N(0, 2 gamma I_d).

* Phase form (``form="phase"``): z(x) = sqrt(2/F) cos(Omega^T x + beta), beta ~ U[0, 2 pi]; F
  features, one frequency each.  The single-feature estimator 2 cos(w.x+b) cos(w.y+b) has
  variance 1 + k(2 delta)/2 - k(delta)^2 (delta = x - y), so the F-feature estimate has variance
  that over F.
* sin/cos form (``form="sincos"``): z(x) = M^{-1/2} [cos(Omega^T x); sin(Omega^T x)] with
  M = F/2 frequencies; z(x).z(y) = M^{-1} sum_i cos(omega_i . (x - y)) exactly, variance
  (1 + k(2 delta) - 2 k(delta)^2) / (2 M) per the same count of features: never larger than
  the phase form at equal F.
* Orthogonal frequencies (R2, Yu et al. 2016, ``orthogonal=True``): blocks of d rows of a
  Haar-random orthogonal matrix, each row rescaled by an independent chi(d) norm, so each row
  is marginally N(0, I) (the estimator stays unbiased) while rows within a block are exactly
  orthogonal; the variance is lower than i.i.d. frequencies for every d (asymptotically) and is
  measured in the tests.
"""
from __future__ import annotations

import numpy as np

from .._validate import check_choice
from ._common import (FeatureMap, as_generator, check_pos_float, check_pos_int)

__all__ = ["gaussian_frequencies", "orthogonal_gaussian", "rff", "RandomFourierFeatures",
           "gaussian_kernel"]


def orthogonal_gaussian(d: int, m: int, *, rng=None) -> np.ndarray:
    """(m, d) rows that are marginally N(0, I_d), orthogonal within blocks of d rows (R2).

    Each block: G ~ N(0,1)^{d x d}; Q R = G; Q <- Q diag(sign(diag R)) (Haar); rows scaled by
    s_i ~ chi(d).  Blocks are independent and the stack is truncated to m rows.
    """
    d = check_pos_int(d, "d")
    m = check_pos_int(m, "m", minimum=0)
    g = as_generator(rng)
    blocks = []
    for _ in range(-(-m // d)):
        Q, R = np.linalg.qr(g.standard_normal((d, d)))
        Q = Q * np.sign(np.diag(R))[None, :]
        s = np.sqrt(g.chisquare(d, size=d))
        blocks.append(s[:, None] * Q.T)
    if not blocks:
        return np.zeros((0, d))
    return np.concatenate(blocks, axis=0)[:m]


def gaussian_frequencies(d: int, m: int, *, scale: float = 1.0, orthogonal: bool = False,
                         rng=None) -> np.ndarray:
    """(m, d) frequencies omega_i ~ N(0, scale^2 I) (i.i.d., or R2 orthogonal blocks)."""
    g = as_generator(rng)
    W = orthogonal_gaussian(d, m, rng=g) if orthogonal else g.standard_normal(
        (check_pos_int(m, "m", minimum=0), check_pos_int(d, "d")))
    return scale * W


def gaussian_kernel(X, Y, gamma: float) -> np.ndarray:
    """exp(-gamma ||x_i - y_j||^2) as an (n, m) float64 array (direct differences)."""
    X = np.asarray(X, dtype=np.float64)
    Y = np.asarray(Y, dtype=np.float64)
    D = ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1)
    return np.exp(-gamma * D)


class RandomFourierFeatures(FeatureMap):
    """R1: E[z(x) . z(y)] = exp(-gamma ||x - y||^2) (see the module docstring for the variance)."""

    def __init__(self, d, num_features, *, gamma=1.0, form="phase", orthogonal=False, rng=None):
        self.d = check_pos_int(d, "d")
        self.num_features = check_pos_int(num_features, "num_features")
        self.gamma = check_pos_float(gamma, "gamma")
        check_choice(form, "form", ("phase", "sincos"))
        if form == "sincos" and self.num_features % 2:
            raise ValueError(f"num_features must be even for form='sincos', got {num_features}")
        g = as_generator(rng)
        m = self.num_features if form == "phase" else self.num_features // 2
        self.omega = gaussian_frequencies(self.d, m, scale=np.sqrt(2 * self.gamma),
                                          orthogonal=orthogonal, rng=g)
        self.phase = g.uniform(0.0, 2 * np.pi, size=m) if form == "phase" else None
        self.form = form
        self.params = {"gamma": self.gamma, "form": form, "orthogonal": bool(orthogonal)}

    def _apply(self, X, xp):
        proj = X @ self._param(self.omega, xp).T
        if self.form == "phase":
            return np.sqrt(2.0 / self.num_features) * xp.cos(proj + self._param(self.phase, xp))
        m = self.omega.shape[0]
        return xp.concatenate([xp.cos(proj), xp.sin(proj)], axis=1) / np.sqrt(m)

    def kernel(self, X, Y):
        return gaussian_kernel(X, Y, self.gamma)


def rff(d, num_features, *, gamma=1.0, form="phase", orthogonal=False, rng=None):
    """Random Fourier features for exp(-gamma ||x - y||^2); see ``RandomFourierFeatures``."""
    return RandomFourierFeatures(d, num_features, gamma=gamma, form=form, orthogonal=orthogonal,
                                 rng=rng)
