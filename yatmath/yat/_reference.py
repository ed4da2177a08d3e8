"""The Yat kernel's reference: one definition of each formula, on any array API library.

Everything here is written once against the array API standard (``xp`` is the namespace of the
inputs, ``array_api_compat.array_namespace``): NumPy, CuPy, PyTorch, JAX and ``array_api_strict``
arrays all run it, and the result comes back in the caller's library on the caller's device.
Its NumPy float64 result is the oracle every fast path is tested against.  The direct form

    s = w . x,    D = sum_i (w_i - x_i)^2 + eps,    K = s * (s / D)      (:func:`finish`)

``s * (s / D)`` rather than ``s**2 / D``: the two agree to rounding, but ``s**2`` overflows
(norms ~1e155) or underflows (norms ~1e-155) where K itself is representable.  Inner bias
(000 Thm 4, 001 UAT): N = s + b replaces s.  Outer bias (002 §3.4.1): K + b.

The expanded form D = ||x||^2 + ||w||^2 - 2 s + eps used by the GEMM paths cancels as x -> w;
:func:`needs_repair` is the rule (``REPAIR_TAU``) that sends such a pair back to the direct form.
These two formulas have one definition per language: here (Python, any array library) and
``_numba_kernels._finish`` / ``_needs_repair`` (Numba), which ``_cuda_kernels`` compiles a second
time as CUDA device functions; ``tests/yat/test_array_api.py`` and ``tests/yat/test_cuda_kernels.py``
check each against this module on hard inputs.

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

Accuracy: float64 inputs, the bound of ``kernel`` (module docstring) for the direct form.  The
float32 inputs of the public functions are promoted to float64 here and the result rounded back.
"""
from __future__ import annotations

import math

import numpy as np

from .. import _array
from .._array import namespace

# Rows per chunk so that a chunk's (rows, n, d) difference tensor holds about 2**22 numbers.
_CHUNK_ELEMS = 1 << 22
#: Relative threshold below which the expanded squared distance is recomputed directly.
REPAIR_TAU = 0.125

BIG = 2.0 ** 480
_TINY = math.ulp(0.0)


def finish(s, D, bias=None, bias_mode="inner"):
    """K from the dot s and the distance D: N * (N / D), N = s + b (inner bias) or s, then + b
    (outer bias).  Elementwise; s, D, bias arrays of one library (bias may be None)."""
    if bias is not None and bias_mode == "inner":
        s = s + bias
    out = s * (s / D)
    if bias is not None and bias_mode == "outer":
        out = out + bias
    return out


def needs_repair(s, nrm, tau=REPAIR_TAU):
    """The repair rule of the expanded form, elementwise: True where
    t = nrm - 2 s (nrm = ||x||^2 + ||w||^2) is not at least ``tau * nrm``, or is NaN or inf."""
    t = nrm - (s + s)
    return ~((tau * nrm <= t) & (t < math.inf))


def rescale_factor(*arrays):
    """``c = 2^-k`` bringing the largest |entry| of ``arrays`` into [1/2, 1) when it exceeds
    ``BIG``; ``None`` otherwise (the common case: no rescaling)."""
    m = 0.0
    for a in arrays:
        if a is not None and math.prod(a.shape):
            xp = namespace(a)
            m = max(m, float(xp.max(xp.abs(a))))
    if not m > BIG or not math.isfinite(m):
        return None
    return 2.0 ** -math.frexp(m)[1]


def scaled_eps_bias(c, eps, bias, bias_mode):
    """(c^2 eps, c^2 b for an inner bias) for the rescaled evaluation (module docstring)."""
    b = bias * c * c if bias is not None and bias_mode == "inner" else None  # c*c may underflow
    return max(eps * c * c, _TINY), b


def _repair_overflow(out, fn, A, B, eps, bias, bias_mode, *rest):
    """``out`` with its non-finite entries replaced by the rescaled evaluation (module
    docstring), when the inputs are beyond ``BIG``; ``out`` itself otherwise."""
    c = rescale_factor(A, B)
    if c is None:
        return out
    xp = namespace(out)
    bad = ~xp.isfinite(out)
    if not bool(xp.any(bad)):
        return out
    eps_c, b_c = scaled_eps_bias(c, eps, bias, bias_mode)
    with np.errstate(over="ignore", invalid="ignore"):
        alt = fn(A * c, B * c, *rest, eps_c, b_c, "inner") / c / c
    if bias is not None and bias_mode == "outer":
        alt = alt + bias
    return xp.where(bad, alt, out)


def _f64(xp, a):
    return None if a is None else xp.astype(xp.asarray(a), xp.float64)


def product(w, x, eps, bias=None, bias_mode="inner"):
    """K(w, x) over the broadcast leading axes of ``w`` and ``x`` (last axis = features), in
    float64, in the library of ``w`` and ``x``."""
    xp = namespace(w, x, bias)
    w, x, b = _f64(xp, w), _f64(xp, x), _f64(xp, bias)
    with np.errstate(over="ignore", invalid="ignore"):
        s = xp.sum(w * x, axis=-1)
        diff = w - x
        D = xp.sum(diff * diff, axis=-1) + eps
        out = finish(s, D, b, bias_mode)
    return _repair_overflow(out, product, w, x, eps, b, bias_mode)


def gram(X, W, eps, bias=None, bias_mode="inner"):
    """K(X_i, W_j) as a (B, n) float64 array, by the direct form in row chunks."""
    xp = namespace(X, W, bias)
    X, W, b = _f64(xp, X), _f64(xp, W), _f64(xp, bias)
    B, n, d = X.shape[0], W.shape[0], X.shape[1]
    rows = max(1, _CHUNK_ELEMS // max(1, n * d))
    Wb = xp.expand_dims(W, axis=0)
    parts = []
    with np.errstate(over="ignore", invalid="ignore"):
        for i0 in range(0, B, rows):
            xi = xp.expand_dims(X[i0:min(i0 + rows, B), :], axis=1)
            s = xp.sum(xi * Wb, axis=-1)
            diff = xi - Wb
            D = xp.sum(diff * diff, axis=-1) + eps
            parts.append(finish(s, D, b, bias_mode))
    if not parts:
        return xp.zeros((B, n), dtype=xp.float64, device=_array.device_of(X))
    out = parts[0] if len(parts) == 1 else xp.concat(parts, axis=0)
    return _repair_overflow(out, gram, X, W, eps, b, bias_mode)


def matvec(X, Y, v, eps, bias=None, bias_mode="inner"):
    """K(X, Y) @ v in float64, one row chunk of the Gram matrix at a time; v (m,) or (m, k)."""
    xp = namespace(X, Y, v, bias)
    v = _f64(xp, v)
    n = Y.shape[0]
    rows = max(1, _CHUNK_ELEMS // max(1, n * X.shape[1]))
    parts = [gram(X[i0:min(i0 + rows, X.shape[0]), ...], Y, eps, bias, bias_mode) @ v
             for i0 in range(0, X.shape[0], rows)]
    if not parts:
        return xp.zeros((0,) + tuple(v.shape[1:]), dtype=xp.float64, device=_array.device_of(v))
    return parts[0] if len(parts) == 1 else xp.concat(parts, axis=0)
