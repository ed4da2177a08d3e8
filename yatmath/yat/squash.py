"""Squashers for nonnegative inputs (Y9; 000 App B, 001 App C, 002 §3.6).

    softermax_n(x)_k = x_k^n / (delta + sum_i x_i^n)          x >= 0, n > 0, delta >= 0
    soft_sigmoid_n(x) = x^n / (1 + x^n) = logistic(n ln x)     (0 at x = 0)
    soft_tanh_n(x)    = (x^n - 1) / (x^n + 1) = tanh(n ln x / 2) = 2 soft_sigmoid_n(x) - 1

All three are evaluated in the log domain, l = n ln x (l = -inf at x = 0), so that x^n never
overflows or underflows on its own: only results whose true value is below the smallest normal
number of the dtype are lost.  softermax shifts by lmax = max(max_i l_i, ln delta), so every
exponential is <= 1 and the denominator is >= 1; its relative error is a few units of
(1 + |l_k - lmax|) u (u the unit roundoff), the conditioning of exp at the shifted argument.
With delta = 0 it equals softmax(n ln x) (scipy.special.softmax), entries with x_k = 0 give 0.

Convention: a slice whose denominator is exactly 0 (all x_i = 0 and delta = 0) returns zeros,
the same convention as a fully masked row in attention.

Negative inputs raise ``ValueError`` naming ``x``; ``n`` must be finite and > 0, ``delta``
finite and >= 0.  Results live where ``x`` lives (NumPy or CuPy), in x's float dtype.
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import _backend as be
from .._validate import as_float_array

__all__ = ["softermax", "soft_sigmoid", "soft_tanh"]


def _real(value, name, *, positive=False, nonneg=False):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        try:
            value = float(np.asarray(value).item())
        except Exception:
            raise TypeError(f"{name} must be a real number, got {value!r}") from None
    value = float(value)
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}")
    if positive and value <= 0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    if nonneg and value < 0:
        raise ValueError(f"{name} must be >= 0, got {value!r}")
    return value


def _nonneg_input(x, check_finite):
    xp = be.array_module(x)
    x = as_float_array(x, "x", check_finite=check_finite, xp=xp)
    if x.size and bool((x < 0).any()):
        raise ValueError("x must be >= 0 (the squashers are defined on [0, inf)), "
                         f"got a minimum of {float(x.min())!r}")
    return x, xp


def _log_power(x, n, xp):
    """n ln x with -inf at x = 0, without a divide-by-zero warning."""
    with np.errstate(divide="ignore"):
        return n * xp.log(x)


def _softermax_parts(x, n, delta, axis, xp):
    """(out, lx, shifted denominator, lmax) for x >= 0; shared with the attention backward."""
    l = _log_power(x, n, xp)
    lmax = xp.max(l, axis=axis, keepdims=True) if x.shape[axis] else xp.full_like(
        xp.sum(x, axis=axis, keepdims=True), -np.inf)
    if delta > 0:
        lmax = xp.maximum(lmax, float(np.log(delta)))
    lmax = xp.where(xp.isfinite(lmax), lmax, 0.0).astype(x.dtype)
    e = xp.exp(l - lmax)
    den = xp.sum(e, axis=axis, keepdims=True)
    if delta > 0:
        den = den + xp.exp(float(np.log(delta)) - lmax)
    safe = xp.where(den > 0, den, 1.0)
    out = xp.where(den > 0, e / safe, 0.0).astype(x.dtype)
    return out, safe, lmax


def softermax(x, n=1.0, delta=0.0, axis=-1, *, check_finite=True):
    """softermax_n(x)_k = x_k^n / (delta + sum_i x_i^n) along ``axis`` (see module docstring).

    Parameters
    ----------
    x : array_like, entries >= 0
    n : float > 0, the power;  delta : float >= 0, the extra mass in the denominator
    axis : int, the normalisation axis

    The outputs along ``axis`` are >= 0 and sum to 1 when delta = 0 (to
    (sum x^n) / (delta + sum x^n) otherwise).  Accuracy: a few ulps times (1 + |l_k - lmax|).
    """
    n = _real(n, "n", positive=True)
    delta = _real(delta, "delta", nonneg=True)
    x, xp = _nonneg_input(x, check_finite)
    if x.ndim == 0:
        raise ValueError("x must have at least one axis for softermax, got a scalar")
    if not -x.ndim <= int(axis) < x.ndim:
        raise ValueError(f"axis={axis!r} is out of range for x of shape {tuple(x.shape)}")
    out, _, _ = _softermax_parts(x, n, delta, int(axis), xp)
    return out


def _logistic(z, xp):
    """1 / (1 + e^-z) without overflow: e = exp(-|z|) <= 1 on both branches."""
    e = xp.exp(-xp.abs(z))
    return xp.where(z >= 0, 1.0 / (1.0 + e), e / (1.0 + e)).astype(z.dtype)


def soft_sigmoid(x, n=1.0, *, check_finite=True):
    """sigma_n(x) = x^n / (1 + x^n) = logistic(n ln x), with sigma_n(0) = 0.

    Accuracy: a few ulps relative, over the whole range (no cancellation in either branch).
    """
    n = _real(n, "n", positive=True)
    x, xp = _nonneg_input(x, check_finite)
    return _logistic(_log_power(x, n, xp), xp)


def soft_tanh(x, n=1.0, *, check_finite=True):
    """tau_n(x) = (x^n - 1) / (x^n + 1) = tanh(n ln x / 2), with tau_n(0) = -1.

    Accuracy: a few ulps relative (the relative conditioning of tanh(n ln x / 2) near x = 1 is
    that of ln x, which is exact to rounding for representable x).
    """
    n = _real(n, "n", positive=True)
    x, xp = _nonneg_input(x, check_finite)
    return xp.tanh(0.5 * _log_power(x, n, xp)).astype(x.dtype)
