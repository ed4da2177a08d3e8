"""Finite inputs beyond the squared-norm range (entries > 2^480) never give NaN: the Yat kernel,
its Gram matrix, matvec and gradient return K (or inf where K exceeds float64), by the exact
power-of-two rescaling documented in ``yatmath.yat._reference``."""
from __future__ import annotations

import mpmath
import numpy as np
import pytest

import yatmath.yat as yat

U64 = 2.0 ** -53
BACKENDS = ["numpy", "numba"]


def k_exact(w, x, eps, b=0.0):
    with mpmath.workdps(60):
        w = [mpmath.mpf(float(t)) for t in w]
        x = [mpmath.mpf(float(t)) for t in x]
        N = mpmath.fsum(a * c for a, c in zip(w, x)) + mpmath.mpf(b)
        D = mpmath.fsum((a - c) ** 2 for a, c in zip(w, x)) + mpmath.mpf(eps)
        return N * N / D


def _pairs():
    rng = np.random.default_rng(5)
    out = [(np.array([1e200, 1e200]), np.array([1e200, -1e200])),     # w.x = 0 exactly
           (np.array([3e150, 1e149]), np.array([1.5e150, 5e148])),     # K finite ~1e301
           (np.array([1e300, -2e299, 5e298]), np.array([-1e299, 1e300, 3e298]))]
    for _ in range(4):
        out.append(tuple(rng.standard_normal((2, 6)) * 10.0 ** rng.uniform(145, 300)))
    return out


def _check(value, exact):
    """|value - K| <= 64 d u K where K is finite in float64; inf where K overflows."""
    assert not np.isnan(value)
    if exact > mpmath.mpf(np.finfo(np.float64).max) * (1 + 1e-15):
        assert value == np.inf
    else:
        assert abs(mpmath.mpf(float(value)) - exact) <= 64 * 8 * U64 * exact + 1e-300


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("eps", [1e-3, 1.0, 1e300])
def test_product_and_gram_beyond_the_squared_norm_range(backend, eps):
    pairs = _pairs()
    for w, x in pairs:
        _check(yat.product(w, x, eps, backend=backend), k_exact(w, x, eps))
    Z = np.array([p[0] for p in pairs[-4:]] + [p[1] for p in pairs[-4:]])
    G = yat.gram(Z, None, eps, backend=backend)
    assert G.shape == (8, 8) and not np.isnan(G).any()
    for i in range(8):
        for j in range(8):
            _check(G[i, j], k_exact(Z[i], Z[j], eps))
    # matvec sums a row of G: where the row is finite, it equals the sum of the exact row
    v = np.ones(8)
    mv = yat.matvec(Z, Z, v, eps, backend=backend)
    assert not np.isnan(mv).any()
    for i in range(8):
        row = [k_exact(Z[i], Z[j], eps) for j in range(8)]
        _check(mv[i], mpmath.fsum(row))


def test_inner_and_outer_bias_are_rescaled_with_the_inputs():
    w, x = np.array([1e200, 2e199]), np.array([3e199, -1e200])
    b = 1e300                               # an inner bias, rescaled by c^2 together with w.x
    _check(yat.product(w, x, 1.0, b), k_exact(w, x, 1.0, b))
    out = yat.product(w, x, 1.0, 5.0, bias_mode="outer")
    assert out == pytest.approx(float(k_exact(w, x, 1.0)) + 5.0, rel=64 * U64)


def test_grad_beyond_the_range_matches_the_closed_form_at_scale():
    # the closed form 2 r (x + r (x - w)), r = N / D, with r from mpmath at 60 digits
    w, x, eps = np.array([2e200, -1e200, 5e199]), np.array([1e200, 3e200, -2e199]), 1e-3
    g = yat.grad(w, x, eps)
    with mpmath.workdps(60):
        W = [mpmath.mpf(float(t)) for t in w]
        X = [mpmath.mpf(float(t)) for t in x]
        r = mpmath.fsum(a * c for a, c in zip(W, X)) / (
            mpmath.fsum((a - c) ** 2 for a, c in zip(W, X)) + eps)
        gw = [2 * r * (c + r * (c - a)) for a, c in zip(W, X)]
    assert not np.isnan(g.w).any()
    for got, want in zip(g.w, gw):
        assert abs(mpmath.mpf(float(got)) - want) <= 64 * 8 * U64 * max(abs(v) for v in gw)
    assert float(g.eps) == pytest.approx(float(-r * r), rel=64 * U64)
