"""Closed-form gradients of the Yat atom (yatmath.yat.grad, algorithms.md Y2).

Finite differences: central differences with h = 1e-6 on O(1) inputs have truncation error
~h^2 |f'''| ~ 1e-12 and rounding error ~u |f| / h ~ 1e-10 (u = 2^-53), so agreement to 1e-7
relative (normwise) leaves two orders of margin while any wrong term (e.g. a missing factor 2
or a sign) would be off by O(1).
"""
from __future__ import annotations

import mpmath
import numpy as np
import pytest

import yatmath._array as be
from yatmath.yat import grad, product

from tests.fdcheck import FD_RTOL, H, U64  # noqa: F401
from tests.fdcheck import assert_fd_close
from tests.fdcheck import fd as _fd


@pytest.mark.parametrize("bias_mode", [None, "inner", "outer"])
def test_gradients_match_finite_differences(bias_mode):
    rng = np.random.default_rng(1)
    d, eps = 5, 0.7
    w = rng.normal(size=(3, 1, d))
    x = rng.normal(size=(4, d))
    b = None if bias_mode is None else rng.normal(size=(3, 4))
    mode = bias_mode or "inner"
    G = rng.normal(size=(3, 4))  # a random cotangent: checks every output, not just their sum
    g = grad(w, x, eps, b, bias_mode=mode)
    assert g.w.shape == (3, 4, d) and g.x.shape == (3, 4, d) and g.eps.shape == (3, 4)

    def loss(w_=w, x_=x, e_=eps, b_=b):
        return float(np.sum(G * product(w_, x_, e_, b_, bias_mode=mode, backend="numpy")))

    # w is broadcast over the x axis, so dL/dw sums the pairwise gradients over that axis
    assert_fd_close(_fd(lambda a: loss(w_=a), w), np.sum(G[..., None] * g.w, axis=1, keepdims=True))
    assert_fd_close(_fd(lambda a: loss(x_=a), x), np.sum(G[..., None] * g.x, axis=0))
    assert_fd_close(_fd(lambda a: loss(e_=float(a)), np.array(eps)), np.sum(G * g.eps))
    if b is None:
        assert g.bias is None
    else:
        assert_fd_close(_fd(lambda a: loss(b_=a), b), G * g.bias)


def test_outer_bias_gradients_equal_unbiased_ones():
    rng = np.random.default_rng(2)
    w, x = rng.normal(size=(6, 4)), rng.normal(size=(6, 4))
    g0 = grad(w, x, 0.3)
    g1 = grad(w, x, 0.3, np.ones(6), bias_mode="outer")
    np.testing.assert_array_equal(g1.x, g0.x)
    np.testing.assert_array_equal(g1.w, g0.w)
    np.testing.assert_array_equal(g1.bias, np.ones(6))


@pytest.mark.parametrize("c", [1e100, 1e-100, 1e140])
def test_homogeneity_at_extreme_norms(c):
    """K(cw, cx; c^2 eps) = c^2 K(w, x; eps), so grad_x and grad_w scale by c and dK/deps by 1.

    The naive formula 2 s^2 / D^2 overflows (c = 1e100: s^2 ~ 1e400) or underflows (1e-100);
    the r = N/D form does not.  Scaling by a power of ten rounds the inputs, and the gradient
    condition number is O(1) for these well-separated random pairs, so 1e-13 is ~500 u.
    """
    rng = np.random.default_rng(3)
    w, x = rng.normal(size=(8, 6)), rng.normal(size=(8, 6))
    g = grad(w, x, 0.5)
    gc = grad(c * w, c * x, 0.5 * c * c)
    assert np.all(np.isfinite(gc.x)) and np.all(np.isfinite(gc.w))
    np.testing.assert_allclose(gc.x / c, g.x, rtol=1e-13, atol=1e-13 * np.abs(g.x).max())
    np.testing.assert_allclose(gc.w / c, g.w, rtol=1e-13, atol=1e-13 * np.abs(g.w).max())
    np.testing.assert_allclose(gc.eps, g.eps, rtol=1e-13)


@pytest.mark.parametrize("delta,eps", [(1e-15, 1e-30), (1e-8, 1e-12), (1e-3, 1e-300)])
def test_near_coincident_pairs_against_mpmath(delta, eps):
    """x = w (1 + delta): D is tiny and r = N/D huge; compare with 50-digit mpmath.

    The direct form gives D with relative error O(d u) (no cancellation), so each component of
    2r(w - r(x - w)) has error O(d u) relative to its largest term 2r|w| + 2r^2|x - w|; we allow
    64 d u of that.
    """
    rng = np.random.default_rng(4)
    d = 5
    w = rng.normal(size=d)
    x = w * (1 + delta)
    g = grad(w, x, eps)
    mpmath.mp.dps = 50
    W = [mpmath.mpf(float(v)) for v in w]
    X = [mpmath.mpf(float(v)) for v in x]
    s = mpmath.fsum(a * b for a, b in zip(W, X))
    D = mpmath.fsum((a - b) ** 2 for a, b in zip(W, X)) + mpmath.mpf(eps)
    r = s / D
    for k in range(d):
        gx = 2 * r * (W[k] - r * (X[k] - W[k]))
        scale = float(abs(2 * r * W[k]) + abs(2 * r * r * (X[k] - W[k])))
        assert abs(g.x[k] - float(gx)) <= 64 * d * U64 * scale
    assert abs(float(g.eps) - float(-r * r)) <= 64 * d * U64 * float(r * r)


def test_float32_inputs_give_float32_rounded_float64_result():
    """float32 inputs are computed in float64 then rounded: error <= u32 per component, plus
    the float64 error (negligible); 2 u32 relative to the component's largest term."""
    rng = np.random.default_rng(5)
    w, x = rng.normal(size=(20, 7)).astype(np.float32), rng.normal(size=(20, 7)).astype(np.float32)
    g32 = grad(w, x, 0.25)
    g64 = grad(w.astype(np.float64), x.astype(np.float64), 0.25)
    assert g32.x.dtype == np.float32 and g32.w.dtype == np.float32 and g32.eps.dtype == np.float32
    u32 = np.finfo(np.float32).eps / 2
    assert np.all(np.abs(g32.x - g64.x) <= 2 * u32 * np.abs(g64.x) + 1e-30)
    assert np.all(np.abs(g32.eps - g64.eps) <= 2 * u32 * np.abs(g64.eps))


def test_zero_input_gives_zero_gradient_wrt_w():
    """x = 0: K(w, 0) = 0 for every w, so grad_w = 0, while grad_x = 0 too (s = 0 => r = 0)."""
    w = np.array([1.0, -2.0, 3.0])
    g = grad(w, np.zeros(3), 0.1)
    np.testing.assert_array_equal(g.w, 0.0)
    np.testing.assert_array_equal(g.x, 0.0)


@pytest.mark.parametrize("kwargs,exc,word", [
    (dict(w=np.ones(3), x=np.ones(4), eps=1.0), ValueError, "x"),
    (dict(w=np.ones(3), x=np.ones(3), eps=0.0), ValueError, "eps"),
    (dict(w=np.ones(3), x=np.ones(3), eps=np.nan), ValueError, "eps"),
    (dict(w=np.ones(3), x=np.array([1.0, np.nan, 0.0]), eps=1.0), ValueError, "x"),
    (dict(w=np.ones((2, 3)), x=np.ones((4, 3)), eps=1.0), ValueError, "leading"),
    (dict(w=np.ones((2, 3)), x=np.ones((2, 3)), eps=1.0, bias=np.ones(5)), ValueError, "bias"),
    (dict(w=np.ones(3), x=np.ones(3), eps=1.0, bias_mode="middle"), ValueError, "bias_mode"),
    (dict(w=np.ones(3, dtype=complex), x=np.ones(3), eps=1.0), TypeError, "w"),
    (dict(w=1.0, x=np.ones(3), eps=1.0), ValueError, "w"),
])
def test_bad_input_names_the_argument(kwargs, exc, word):
    with pytest.raises(exc, match=word):
        grad(**kwargs)


@pytest.mark.gpu
@pytest.mark.skipif(not be.has_cupy(), reason="needs CuPy and a CUDA device")
def test_cupy_matches_numpy():
    import cupy as cp

    rng = np.random.default_rng(6)
    w, x, b = rng.normal(size=(10, 5)), rng.normal(size=(10, 5)), rng.normal(size=10)
    g = grad(w, x, 0.4, b)
    gc = grad(cp.asarray(w), cp.asarray(x), 0.4, cp.asarray(b))
    assert isinstance(gc.x, cp.ndarray)
    # same float64 formula on both devices; only summation order differs
    np.testing.assert_allclose(cp.asnumpy(gc.x), g.x, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(cp.asnumpy(gc.w), g.w, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(cp.asnumpy(gc.bias), g.bias, rtol=1e-12)
