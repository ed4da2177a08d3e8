"""The Yat product on the probability simplex and the information quantities it is compared with.

* ``simplex_product(p, q, eps)``: Y(p, q) = (p.q)^2 / (||p - q||^2 + eps) (algorithms.md Y1,
  "Simplex version").  For eps > 0 this is ``yatmath.yat.product`` (float64); for eps = 0 it is
  (p.q)^2 / ||p - q||^2 with the papers' convention Y(p, p) := +inf (001 Def C.1 / Remark C.16,
  002 Def A1 / Remark A1).
* ``kl_divergence(p, q)`` = sum_i p_i ln(p_i / q_i) with 0 ln 0 = 0 and +inf where some p_i > 0 has
  q_i = 0; ``cross_entropy(p, q)`` = -sum_{p_i > 0} p_i ln q_i; ``entropy(p)`` = -sum p_i ln p_i.

All reduce along the last axis and broadcast over leading axes, in float64 (scipy.special
``rel_entr`` / ``xlogy``: error O(n u max|ln p_i|)).  No input validation beyond the shapes: the
caller supplies non-negative vectors (the functions are defined for any non-negative arrays).
"""
from __future__ import annotations

import numpy as np
from scipy.special import rel_entr, xlogy

from .kernel import product

__all__ = ["simplex_product", "kl_divergence", "cross_entropy", "entropy"]


def simplex_product(p, q, eps):
    """Y(p, q) along the last axis; eps = 0 gives (p.q)^2/||p - q||^2 and +inf where p == q."""
    eps = float(eps)
    if not np.isfinite(eps) or eps < 0:
        raise ValueError(f"eps must be finite and >= 0, got {eps!r}")
    p = np.asarray(p, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64)
    if p.ndim == 0 or q.ndim == 0 or p.shape[-1] != q.shape[-1]:
        raise ValueError(f"p and q must share a last axis, got shapes {p.shape} and {q.shape}")
    if eps > 0:
        return np.asarray(product(p, q, eps, backend="numpy"))
    s = np.sum(p * q, axis=-1)
    r = np.sum((p - q) ** 2, axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = s * (s / r)
    return np.where(r == 0, np.inf, out)


def kl_divergence(p, q):
    """KL(p || q) = sum rel_entr(p, q) along the last axis (+inf when p_i > 0 = q_i)."""
    return np.sum(rel_entr(np.asarray(p, float), np.asarray(q, float)), axis=-1)


def cross_entropy(p, q):
    """H(p, q) = -sum_{p_i > 0} p_i ln q_i along the last axis (+inf when p_i > 0 = q_i)."""
    with np.errstate(divide="ignore"):
        return -np.sum(xlogy(np.asarray(p, float), np.asarray(q, float)), axis=-1)


def entropy(p):
    """H(p) = -sum p_i ln p_i (0 ln 0 = 0) along the last axis."""
    p = np.asarray(p, float)
    return -np.sum(xlogy(p, p), axis=-1)
