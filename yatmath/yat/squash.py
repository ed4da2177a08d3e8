"""Squashers for nonnegative inputs (Y9; 000 App B, 001 App C, 002 §3.6).

    softermax_n(x)_k = x_k^n / (delta + sum_i x_i^n)          x >= 0, n > 0, delta >= 0
    soft_sigmoid_n(x) = x^n / (1 + x^n) = logistic(n ln x)     (0 at x = 0)
    soft_tanh_n(x)    = (x^n - 1) / (x^n + 1) = tanh(n ln x / 2) = 2 soft_sigmoid_n(x) - 1

x^n is never formed on its own, so nothing overflows or underflows where the result is
representable.  softermax divides by c = max(max_i x_i, delta^(1/n)) first and evaluates
(x_k/c)^n / (delta/c^n + sum_i (x_i/c)^n), in float64 whatever the input dtype: every term is
<= 1, the denominator >= 1, and the relative error is O((n + 2) u) (u = 2^-53) at any magnitude
(a log-domain shift exp(n ln x - max) would instead lose |n ln x| u, ~1e-13 at x ~ 1e200).  With
delta = 0 it equals softmax(n ln x) (scipy.special.softmax); entries with x_k = 0 give 0.
soft_sigmoid is t/(1+t) with t = x^n <= 1 (x <= 1), or 1/(1+t) with t = x^-n (x > 1): a few
ulps relative everywhere.  soft_tanh is tanh(l/2) with l = n ln x (-inf at x = 0): ln x is
relatively accurate (also near x = 1) and tanh's relative condition number is <= 1, so again a
few ulps relative.

Convention: a slice whose denominator is exactly 0 (all x_i = 0 and delta = 0) returns zeros,
the same convention as a fully masked row in attention.

Negative inputs raise ``ValueError`` naming ``x``; ``n`` must be finite and > 0, ``delta``
finite and >= 0.  Results live where ``x`` lives (NumPy, CuPy or any array API library, on its device), in
x's float dtype.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np

from .._array import caller
from .._registry import choose, register
from .._typing import Array
from .._validate import as_float_array, check_int, check_real
from ._dtypes import astype as _astype

__all__ = ["softermax", "soft_sigmoid", "soft_tanh"]

_TINY = float(np.finfo(np.float64).tiny)


def _real(value, name, *, positive=False, nonneg=False):
    """A finite real (``check_real``), > 0 with ``positive``, >= 0 with ``nonneg``."""
    return check_real(value, name, gt=0.0 if positive else None, ge=0.0 if nonneg else None)


def _nonneg_input(x, check_finite):
    where = caller(x)
    lib, xp = where.library, where.module
    x = as_float_array(x, "x", check_finite=check_finite, xp=xp)
    if math.prod(x.shape) and bool(xp.any(x < 0)):
        raise ValueError("x must be >= 0 (the squashers are defined on [0, inf)), "
                         f"got a minimum of {float(xp.min(x))!r}")
    return x, xp, lib


def _log_power(x, n, xp):
    """n ln x with -inf at x = 0, without a divide-by-zero warning."""
    with np.errstate(divide="ignore"):
        return n * xp.log(x)


def _delta_root(delta, n):
    """delta^(1/n), correctly rounded to float64 (mpmath at 40 digits: float64's pow(delta, 1/n)
    would carry the rounding of 1/n, a relative error |ln delta| u / n), or None when it is 0 or
    not a normal float64 number."""
    if delta == 0:
        return None
    with mpmath.workdps(40):
        root = float(mpmath.mpf(delta) ** (1 / mpmath.mpf(n)))
    return root if _TINY <= root < math.inf else None


def _softermax_parts(x, n, delta, axis, xp):
    """(out, den, c) for x >= 0, computed in float64 (shared with the attention backward).

    c = max(max_i x_i, delta^(1/n)) (1 for an all-zero slice) and
    out_k = (x_k/c)^n / den,  den = delta/c^n + sum_i (x_i/c)^n,  so every term is <= 1 and
    den >= 1 unless the slice is all zero.  Each ratio x_k/c carries one rounding, which the
    power multiplies by n: relative error O((n + 2) u) whatever the magnitudes.  Where
    delta^(1/n) is not a normal float64 number, delta/c^n = exp(ln delta - n ln c) instead.
    """
    x64 = _astype(xp, x, xp.float64)
    if x.shape[axis]:
        xmax = xp.max(x64, axis=axis, keepdims=True)
    else:
        xmax = xp.zeros_like(xp.sum(x64, axis=axis, keepdims=True))
    root = _delta_root(delta, n)
    c = xmax if root is None else xp.maximum(xmax, root)
    c = xp.where(c > 0, c, 1.0)
    e = (x64 / c) ** n
    den = xp.sum(e, axis=axis, keepdims=True)
    if delta > 0:
        if root is not None:
            den = den + (root / c) ** n
        else:
            with np.errstate(over="ignore"):
                den = den + xp.exp(math.log(delta) - n * xp.log(c))
    safe = xp.where(den > 0, den, 1.0)
    out = xp.where(den > 0, e / safe, 0.0)
    return _astype(xp, out, x.dtype), safe, c


def softermax(x: Array, n: float = 1.0, delta: float = 0.0, axis: int = -1, *,
              check_finite: bool = True) -> Array:
    """softermax_n(x)_k = x_k^n / (delta + sum_i x_i^n) along ``axis`` (see module docstring).

    Parameters
    ----------
    x : array_like, entries >= 0
    n : float > 0, the power;  delta : float >= 0, the extra mass in the denominator
    axis : int, the normalisation axis

    The outputs along ``axis`` are >= 0 and sum to 1 when delta = 0 (to
    (sum x^n) / (delta + sum x^n) otherwise).  Accuracy: relative error O((n + 2) u) in float64,
    then rounded to the dtype of x.
    """
    n = _real(n, "n", positive=True)
    delta = _real(delta, "delta", nonneg=True)
    x, xp, lib = _nonneg_input(x, check_finite)
    if x.ndim == 0:
        raise ValueError("x must have at least one axis for softermax, got a scalar")
    axis = check_int(axis, "axis")
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"axis={axis!r} is out of range for x of shape {tuple(x.shape)}")
    return choose("yat.softermax", "auto", lib)(x, n, delta, axis, xp)


@register("yat.softermax", "reference", note="float64, any array API library")
def _softermax_reference(x, n, delta, axis, xp):
    return _softermax_parts(x, n, delta, axis, xp)[0]


def soft_sigmoid(x: Array, n: float = 1.0, *, check_finite: bool = True) -> Array:
    """sigma_n(x) = x^n / (1 + x^n) = logistic(n ln x), with sigma_n(0) = 0.

    Evaluated as t / (1 + t) with t = x^n for x <= 1 and as 1 / (1 + t) with t = x^-n for
    x > 1, so t <= 1 never overflows and pow's own ~1 ulp is the only error in t: relative
    error a few u over the whole range (logistic(n ln x) would lose |n ln x| u for small x).
    """
    n = _real(n, "n", positive=True)
    x, xp, lib = _nonneg_input(x, check_finite)
    return choose("yat.soft_sigmoid", "auto", lib)(x, n, xp)


@register("yat.soft_sigmoid", "reference", note="in the input dtype, any array API library")
def _soft_sigmoid_reference(x, n, xp):
    small = x <= 1
    with np.errstate(divide="ignore", over="ignore"):
        t = xp.where(small, x ** n, xp.where(small, 1.0, x) ** (-n))
    return _astype(xp, xp.where(small, t / (1.0 + t), 1.0 / (1.0 + t)), x.dtype)


def soft_tanh(x: Array, n: float = 1.0, *, check_finite: bool = True) -> Array:
    """tau_n(x) = (x^n - 1) / (x^n + 1) = tanh(n ln x / 2), with tau_n(0) = -1.

    Accuracy: a few ulps relative (l = n ln x is relatively accurate, tanh's relative condition
    number z sech^2 z / tanh z is <= 1).
    """
    n = _real(n, "n", positive=True)
    x, xp, lib = _nonneg_input(x, check_finite)
    return choose("yat.soft_tanh", "auto", lib)(x, n, xp)


@register("yat.soft_tanh", "reference", note="in the input dtype, any array API library")
def _soft_tanh_reference(x, n, xp):
    return _astype(xp, xp.tanh(0.5 * _log_power(x, n, xp)), x.dtype)
