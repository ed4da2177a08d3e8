"""yatmath.features.fourier: imq_kernel, imq_fourier_transform, imq_fourier_bessel,
arccos1_kernel, against independent closed forms (mpmath)."""
from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from yatmath.features import fourier as FF


@pytest.mark.parametrize("eps", [0.3, 1.0, 4.0])
@pytest.mark.parametrize("rho", [0.05, 1.0, 7.0])
def test_imq_transform_d1_d3_closed_forms(eps, rho):
    se = math.sqrt(eps)
    d1 = math.pi / se * math.exp(-se * rho)            # FT of 1/(x^2+eps) on R
    d3 = 2 * math.pi ** 2 * math.exp(-se * rho) / rho   # radial FT on R^3
    assert FF.imq_fourier_transform(rho, 1, eps) == pytest.approx(d1, rel=1e-10)
    assert FF.imq_fourier_transform(rho, 3, eps) == pytest.approx(d3, rel=1e-10)
    assert FF.imq_fourier_bessel(rho, 3, eps) == pytest.approx(d3, rel=1e-12)


def test_imq_transform_d2_against_mpmath_hankel():
    eps, rho = 0.5, 1.3
    with mp.workdps(25):
        v = 2 * mp.pi * mp.quadosc(lambda r: r * mp.besselj(0, r * rho) / (r * r + eps),
                                   [0, mp.inf], omega=rho)
    assert FF.imq_fourier_transform(rho, 2, eps) == pytest.approx(float(v), rel=1e-8)
    arr = FF.imq_fourier_transform(np.array([0.5, 1.3]), 2, eps)
    assert arr.shape == (2,) and arr[1] == pytest.approx(float(v), rel=1e-8)


def test_imq_transform_rejects_bad_input():
    with pytest.raises(ValueError):
        FF.imq_fourier_transform(0.0, 2, 1.0)
    with pytest.raises(ValueError):
        FF.imq_fourier_transform(1.0, 2, -1.0)


def test_imq_kernel_and_arccos1():
    X = np.array([[0.0, 0.0], [1.0, 2.0]])
    assert FF.imq_kernel(X, X, 0.5)[0, 1] == pytest.approx(1 / 5.5)
    x, y = np.array([[2.0, 0.0]]), np.array([[0.0, 3.0]])
    assert FF.arccos1_kernel(x, y)[0, 0] == pytest.approx(6 / math.pi)     # orthogonal
    assert FF.arccos1_kernel(x, x)[0, 0] == pytest.approx(4.0)             # theta = 0
    assert FF.arccos1_kernel(0.25 * x, y)[0, 0] == pytest.approx(0.25 * 6 / math.pi)
    assert FF.arccos1_kernel(np.zeros((1, 2)), y)[0, 0] == 0.0
