"""Plain float64 NumPy reference for the Yat kernel (the oracle every fast path is tested against).

Everything here computes in float64 from the direct form

    s = w . x,    D = sum_i (w_i - x_i)^2 + eps,    K = s * (s / D)

``s * (s / D)`` rather than ``s**2 / D``: the two agree to rounding, but ``s**2`` overflows
(norms ~1e155) or underflows (norms ~1e-155) where K itself is representable.

Inputs beyond ``BIG`` (2^480, about 3e144) in magnitude can overflow ``w_i x_i`` or
``(w_i - x_i)^2`` and give inf - inf = NaN.  Only the entries whose direct evaluation is not
finite are evaluated again, exactly rescaled (every other entry is left as computed: a global
rescaling would push the small values of mixed-magnitude pairs into underflow): with
c = 2^-k (k the binary exponent of the largest |entry|, so the scaling itself is exact),

    K(w, x; eps, b) = K(c w, c x; c^2 eps, c^2 b) / c^2        (inner bias; outer: + b after),

``c^2 eps`` raised to the smallest subnormal if it underflows to 0 (an absolute change of at most
2^-1074 in the scaled D, so K keeps its relative accuracy unless the scaled D is itself
subnormal, where K / c^2 overflows anyway).  The final division by c^2 overflows to inf exactly
where K is beyond the float64 range.

Inner bias (000 Thm 4, 001 UAT): N = s + b replaces s.  Outer bias (002 §3.4.1): K + b.
"""
from __future__ import annotations

import numpy as np

# Rows per chunk so that a chunk's (rows, n, d) difference tensor holds about 2**22 numbers.
_CHUNK_ELEMS = 1 << 22


BIG = 2.0 ** 480
_TINY = np.nextafter(0.0, 1.0)


def rescale_factor(*arrays):
    """``c = 2^-k`` bringing the largest |entry| of ``arrays`` into [1/2, 1) when it exceeds
    ``BIG``; ``None`` otherwise (the common case: no rescaling)."""
    m = 0.0
    for a in arrays:
        if a is not None and a.size:
            m = max(m, float(abs(a).max()))
    if not m > BIG or not np.isfinite(m):
        return None
    return 2.0 ** -np.frexp(m)[1]


def scaled_eps_bias(c, eps, bias, bias_mode):
    """(c^2 eps, c^2 b for an inner bias) for the rescaled evaluation (module docstring)."""
    b = bias * c * c if bias is not None and bias_mode == "inner" else None  # c*c may underflow
    return max(eps * c * c, _TINY), b


def _repair_overflow(out, fn, A, B, eps, bias, bias_mode):
    """``out`` with its non-finite entries replaced by the rescaled evaluation (module
    docstring), when the inputs are beyond ``BIG``; ``out`` itself otherwise."""
    c = rescale_factor(A, B)
    if c is None:
        return out
    bad = ~np.isfinite(out)
    if not bad.any():
        return out
    eps_c, b_c = scaled_eps_bias(c, eps, bias, bias_mode)
    with np.errstate(over="ignore", invalid="ignore"):
        alt = fn(A * c, B * c, eps_c, b_c, "inner") / c / c
    if bias is not None and bias_mode == "outer":
        alt = alt + bias
    return np.where(bad, alt, out)


def _finish(s, D, bias, bias_mode):
    if bias is not None and bias_mode == "inner":
        s = s + bias
    out = s * (s / D)
    if bias is not None and bias_mode == "outer":
        out = out + bias
    return out


def product(w, x, eps, bias=None, bias_mode="inner"):
    """K(w, x) over the broadcast leading axes of ``w`` and ``x`` (last axis = features)."""
    w = np.asarray(w, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    b = None if bias is None else np.asarray(bias, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        s = np.sum(w * x, axis=-1)
        D = np.sum((w - x) ** 2, axis=-1) + eps
        out = _finish(s, D, b, bias_mode)
    return _repair_overflow(out, product, w, x, eps, b, bias_mode)


def gram(X, W, eps, bias=None, bias_mode="inner"):
    """K(X_i, W_j) as a (B, n) float64 array, by the direct form in row chunks."""
    X = np.asarray(X, dtype=np.float64)
    W = np.asarray(W, dtype=np.float64)
    B, n, d = X.shape[0], W.shape[0], X.shape[1]
    out = np.empty((B, n))
    rows = max(1, _CHUNK_ELEMS // max(1, n * d))
    b = None if bias is None else np.asarray(bias, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        for i0 in range(0, B, rows):
            xi = X[i0:i0 + rows, None, :]
            s = np.sum(xi * W[None, :, :], axis=-1)
            D = np.sum((xi - W[None, :, :]) ** 2, axis=-1) + eps
            out[i0:i0 + rows] = _finish(s, D, b, bias_mode)
    return _repair_overflow(out, gram, X, W, eps, b, bias_mode)


def matvec(X, Y, v, eps, bias=None, bias_mode="inner"):
    """K(X, Y) @ v in float64, one row chunk of the Gram matrix at a time."""
    X = np.asarray(X, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    n = Y.shape[0]
    rows = max(1, _CHUNK_ELEMS // max(1, n * X.shape[1]))
    out = np.empty((X.shape[0],) + v.shape[1:])
    for i0 in range(0, X.shape[0], rows):
        out[i0:i0 + rows] = gram(X[i0:i0 + rows], Y, eps, bias, bias_mode) @ v
    return out
