"""The Yat product on the probability simplex and the information quantities it is compared with.

* ``simplex_product(p, q, eps)``: Y(p, q) = (p.q)^2 / (||p - q||^2 + eps) (algorithms.md Y1,
  "Simplex version").  For eps > 0 this is ``yatmath.yat.product`` (float64); for eps = 0 it is
  (p.q)^2 / ||p - q||^2 with the papers' convention Y(p, p) := +inf (001 Def C.1 / Remark C.16,
  002 Def A1 / Remark A1).
* ``kl_divergence(p, q)`` = sum_i p_i ln(p_i / q_i) with 0 ln 0 = 0 and +inf where some p_i > 0 has
  q_i = 0; ``cross_entropy(p, q)`` = -sum_{p_i > 0} p_i ln q_i; ``entropy(p)`` = -sum p_i ln p_i.

All reduce along the last axis and broadcast over leading axes, in float64 (error
O(n u max|ln p_i|)).  No input validation beyond the dtype and the shapes: the caller supplies
non-negative vectors (the functions are defined for any non-negative arrays; NaN and inf pass
through as scipy.special defines them).

Array libraries: the inputs may be NumPy (or lists), CuPy, PyTorch, JAX or ``array_api_strict``
arrays; the result is in their library, on their device.  The elementwise terms are
``rel_entr(x, y)`` and ``xlogy(x, y)`` of ``scipy.special``: NumPy runs SciPy's ufuncs (the results
of before, bit for bit), CuPy ``cupyx.scipy.special``, and every other library the same
definitions written with ``xp.where`` (:func:`rel_entr`, :func:`xlogy`; logarithms within ~1 ulp
of libm's, so a few u relative per term).  The sums and the eps = 0 product are one array API
code for all.
"""
from __future__ import annotations

import math

import numpy as np

from .. import _array
from .._array import caller
from .._registry import register
from .._typing import Array, Namespace
from .._validate import as_float_array
from .kernel import product

__all__ = ["simplex_product", "kl_divergence", "cross_entropy", "entropy"]

_NOTE = ("float64; NumPy: scipy.special rel_entr/xlogy, CuPy: cupyx.scipy.special, other array "
         "API libraries: the same definitions with xp.where (on their device)")


def _float64(a: Array, name: str, xp: Namespace) -> Array:
    """``a`` as a float64 array of ``xp`` (NaN and inf allowed: see the module docstring)."""
    return _array.as_float64(as_float_array(a, name, check_finite=False, xp=xp))


def rel_entr(x: Array, y: Array, xp: Namespace) -> Array:
    """x ln(x / y) for x, y > 0; 0 for x = 0 <= y; +inf otherwise; NaN if x or y is NaN
    (``scipy.special.rel_entr``, whose ufunc runs for NumPy; cupyx's for CuPy)."""
    if xp is np:
        from scipy.special import rel_entr as f

        return f(x, y)
    if xp is _array.cupy_module():
        from cupyx.scipy.special import rel_entr as f

        return f(x, y)
    pos = (x > 0) & (y > 0)
    xs, ys = xp.where(pos, x, 1.0), xp.where(pos, y, 1.0)
    out = xp.where(pos, xs * xp.log(xs / ys),
                   xp.where((x == 0) & (y >= 0), xp.zeros_like(x), math.inf))
    return xp.where(xp.isnan(x) | xp.isnan(y), math.nan, out)


def xlogy(x: Array, y: Array, xp: Namespace) -> Array:
    """x ln y, with 0 where x = 0 and y is not NaN (``scipy.special.xlogy``; ln 0 = -inf,
    ln of a negative number NaN).  SciPy's ufunc for NumPy, cupyx's for CuPy."""
    if xp is np:
        from scipy.special import xlogy as f

        with np.errstate(divide="ignore"):
            return f(x, y)
    if xp is _array.cupy_module():
        from cupyx.scipy.special import xlogy as f

        return f(x, y)
    pos = y > 0
    logy = xp.where(pos, xp.log(xp.where(pos, y, 1.0)),
                    xp.where(y == 0, xp.full_like(y, -math.inf), math.nan))
    # x * 0 where x = 0 and y is not NaN (never 0 * -inf); 0 * NaN stays NaN
    return x * xp.where((x == 0) & ~xp.isnan(y), 0.0, logy)


@register("yat.simplex.simplex_product", "reference",
          note="float64 array API code (eps > 0: yat.product's generic reference), any library")
def simplex_product(p: Array, q: Array, eps: float) -> Array:
    """Y(p, q) along the last axis; eps = 0 gives (p.q)^2/||p - q||^2 and +inf where p == q."""
    eps = float(eps)
    if not np.isfinite(eps) or eps < 0:
        raise ValueError(f"eps must be finite and >= 0, got {eps!r}")
    xp = caller(p, q).module
    p, q = _float64(p, "p", xp), _float64(q, "q", xp)
    if p.ndim == 0 or q.ndim == 0 or p.shape[-1] != q.shape[-1]:
        raise ValueError(f"p and q must share a last axis, got shapes {tuple(p.shape)} and "
                         f"{tuple(q.shape)}")
    if eps > 0:
        out = product(p, q, eps, backend="reference")
        return np.asarray(out) if xp is np else out
    s = xp.sum(p * q, axis=-1)
    r = xp.sum((p - q) ** 2, axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = s * (s / r)
    return xp.where(r == 0, math.inf, out)


@register("yat.simplex.kl_divergence", "reference", note=_NOTE)
def kl_divergence(p: Array, q: Array) -> Array:
    """KL(p || q) = sum rel_entr(p, q) along the last axis (+inf when p_i > 0 = q_i)."""
    xp = caller(p, q).module
    return xp.sum(rel_entr(_float64(p, "p", xp), _float64(q, "q", xp), xp), axis=-1)


@register("yat.simplex.cross_entropy", "reference", note=_NOTE)
def cross_entropy(p: Array, q: Array) -> Array:
    """H(p, q) = -sum_{p_i > 0} p_i ln q_i along the last axis (+inf when p_i > 0 = q_i)."""
    xp = caller(p, q).module
    return -xp.sum(xlogy(_float64(p, "p", xp), _float64(q, "q", xp), xp), axis=-1)


@register("yat.simplex.entropy", "reference", note=_NOTE)
def entropy(p: Array) -> Array:
    """H(p) = -sum p_i ln p_i (0 ln 0 = 0) along the last axis."""
    xp = caller(p).module
    p = _float64(p, "p", xp)
    return -xp.sum(xlogy(p, p, xp), axis=-1)
