"""softermax, soft_sigmoid, soft_tanh (Y9): identities, limits, extreme arguments vs mpmath."""
from __future__ import annotations

import mpmath
import numpy as np
import pytest
from scipy.special import softmax

import yatmath._array as be
from yatmath.yat import soft_sigmoid, soft_tanh, softermax

U64 = np.finfo(np.float64).eps / 2


@pytest.mark.parametrize("n", [0.5, 1.0, 3.0])
def test_softermax_without_delta_is_softmax_of_n_log_x(n):
    """x in (0, 10): softermax has error O((n + 2) u) and scipy's softmax of n ln x, with
    |n ln x| <= ~30 here, O(30 u); 64 u relative covers both."""
    rng = np.random.default_rng(0)
    x = rng.random((5, 7)) * 10
    np.testing.assert_allclose(softermax(x, n), softmax(n * np.log(x), axis=-1), rtol=64 * U64)
    np.testing.assert_allclose(softermax(x, n, axis=0), softmax(n * np.log(x), axis=0),
                               rtol=64 * U64)


@pytest.mark.parametrize("delta", [0.0, 0.3, 1e3])
def test_softermax_equals_direct_formula(delta):
    rng = np.random.default_rng(1)
    x = rng.random((4, 6)) * 3
    x[0, 2] = 0.0
    direct = x**2.5 / (delta + np.sum(x**2.5, axis=-1, keepdims=True))
    np.testing.assert_allclose(softermax(x, 2.5, delta), direct, rtol=64 * U64, atol=0)
    assert softermax(x, 2.5, delta)[0, 2] == 0.0


@pytest.mark.parametrize("scale,n,delta", [(1e200, 3.0, 0.0), (1e-200, 2.0, 0.0),
                                           (1e-120, 3.0, 1e-300), (1e150, 2.0, 1e290)])
def test_softermax_extreme_scales_against_mpmath(scale, n, delta):
    """x^n over- or underflows float64 here while the result is O(1) (or 1e-60 against delta);
    the scaled evaluation has relative error O((n + 2) u) at any magnitude; we allow 64 u
    (a log-domain shift would lose |n ln x| u ~ 1e-13 and fail)."""
    x = np.array([1.0, 2.0, 0.5, 3.0]) * scale
    out = softermax(x, n, delta)
    mpmath.mp.dps = 40
    X = [mpmath.mpf(float(v)) ** n for v in x]
    den = mpmath.mpf(delta) + mpmath.fsum(X)
    ref = np.array([float(v / den) for v in X])
    np.testing.assert_allclose(out, ref, rtol=64 * U64)


def test_softermax_all_zero_slice_convention():
    x = np.array([[0.0, 0.0, 0.0], [0.0, 1.0, 3.0]])
    out = softermax(x, 2.0)
    np.testing.assert_array_equal(out[0], 0.0)
    assert out[1].sum() == pytest.approx(1.0, abs=4 * U64)
    np.testing.assert_array_equal(softermax(np.zeros(3), 1.0, delta=0.5), 0.0)


def test_soft_tanh_is_two_soft_sigmoid_minus_one():
    """Both are a few ulps accurate; 2 sigma - 1 loses relative accuracy near 0 (at x ~ 1),
    so compare absolutely: 8 u."""
    x = np.concatenate([np.logspace(-30, 30, 301), [0.0, 1.0]])
    for n in (0.3, 1.0, 4.0):
        np.testing.assert_allclose(soft_tanh(x, n), 2 * soft_sigmoid(x, n) - 1, rtol=0,
                                   atol=8 * U64)


def test_limits_and_special_points():
    assert soft_sigmoid(0.0, 2.0) == 0.0
    assert soft_tanh(0.0, 2.0) == -1.0
    assert soft_sigmoid(1.0, 7.0) == 0.5
    assert soft_tanh(1.0, 7.0) == 0.0
    assert soft_sigmoid(1e300, 1.0) == 1.0
    assert soft_tanh(1e300, 1.0) == 1.0
    # just above 0, sigma_n(x) ~ x^n: 1e-100^2 = 1e-200 is representable and must be kept
    assert soft_sigmoid(1e-100, 2.0) == pytest.approx(1e-200, rel=8 * U64)


def test_soft_sigmoid_and_soft_tanh_against_mpmath():
    """Log-uniform x over 1e-300..1e300 plus points near 1, n in {0.5, 2}: both are a few ulps
    relative (module docstring); we allow 32 u relative."""
    mpmath.mp.dps = 40
    rng = np.random.default_rng(2)
    x = np.concatenate([10.0 ** rng.uniform(-300, 300, size=200),
                        1 + rng.uniform(-1e-6, 1e-6, size=20)])
    for n in (0.5, 2.0):
        sig, th = soft_sigmoid(x, n), soft_tanh(x, n)
        for k in range(x.size):
            z = n * mpmath.log(mpmath.mpf(float(x[k])))
            rs = float(1 / (1 + mpmath.exp(-z)))
            rt = float(mpmath.tanh(z / 2))
            assert abs(sig[k] - rs) <= 32 * U64 * abs(rs)
            assert abs(th[k] - rt) <= 32 * U64 * abs(rt)


def test_float32_preserved():
    x = np.array([0.0, 0.5, 2.0], dtype=np.float32)
    for out in (softermax(x, 2.0, 0.1), soft_sigmoid(x, 2.0), soft_tanh(x, 2.0)):
        assert out.dtype == np.float32
    np.testing.assert_allclose(softermax(x, 2.0, 0.1), softermax(x.astype(float), 2.0, 0.1),
                               rtol=16 * np.finfo(np.float32).eps)


@pytest.mark.parametrize("call,exc,word", [
    (lambda: softermax(np.array([1.0, -0.1])), ValueError, "x"),
    (lambda: soft_sigmoid(-1.0), ValueError, "x"),
    (lambda: soft_tanh(np.array([np.nan])), ValueError, "x"),
    (lambda: softermax(np.ones(3), n=0.0), ValueError, "n"),
    (lambda: soft_sigmoid(np.ones(3), n=-2.0), ValueError, "n"),
    (lambda: soft_tanh(np.ones(3), n=np.inf), ValueError, "n"),
    (lambda: softermax(np.ones(3), delta=-1e-3), ValueError, "delta"),
    (lambda: softermax(np.ones(3), axis=2), ValueError, "axis"),
    (lambda: softermax(1.0), ValueError, "x"),
    (lambda: softermax(np.ones(3), n="two"), TypeError, "n"),
])
def test_bad_input_names_the_argument(call, exc, word):
    with pytest.raises(exc, match=word):
        call()


@pytest.mark.gpu
@pytest.mark.skipif(not be.has_cupy(), reason="needs CuPy and a CUDA device")
def test_cupy_matches_numpy():
    import cupy as cp

    rng = np.random.default_rng(3)
    x = rng.random((4, 5)) * 5
    x[1, 1] = 0.0
    for f in (lambda a: softermax(a, 1.5, 0.2), lambda a: soft_sigmoid(a, 1.5),
              lambda a: soft_tanh(a, 1.5)):
        out = f(cp.asarray(x))
        assert isinstance(out, cp.ndarray)
        np.testing.assert_allclose(cp.asnumpy(out), f(x), rtol=64 * U64, atol=0)
