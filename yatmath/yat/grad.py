"""Closed-form gradients of the Yat kernel for one pair (w, x) (Y2).

With s = w . x, N = s + b (inner bias; N = s without a bias or with the outer bias),
D = ||w - x||^2 + eps and r = N / D:

    grad_x g = (2N/D) w - (2N^2/D^2)(x - w) = 2 r (w - r (x - w))
    grad_w g = (2N/D) x - (2N^2/D^2)(w - x) = 2 r (x - r (w - x))
    dg/d eps = -N^2/D^2 = -r^2
    dg/db    = 2N/D = 2 r            (inner bias)
    d(K + b)/db = 1                  (outer bias; the other gradients are those of K)

Everything is written through r = N / D, never N^2 or D^2: those overflow for norms ~1e77
(and underflow for ~1e-77) where the gradients are finite.  s and D are accumulated in float64
from the direct form sum (w_i - x_i)^2 (no cancellation as x -> w), so each gradient component
has error  O((d + 4) u (cond + 8))  relative to the largest of its two terms, with u the unit
roundoff of float64 and cond = (||w|| ||x|| + |b|) / |N| as in ``kernel.product``; the result is
then rounded to the working dtype (float32 when w and x are both float32).
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np


from .._array import caller
from .._registry import choose, register
from .._typing import Array
from . import _reference as _ref
from .kernel import check_pair

__all__ = ["grad", "YatGrad"]


class YatGrad(NamedTuple):
    """Gradients of K(w, x) (or of the biased atom): shapes lead + (d,), lead + (d,), lead, lead."""

    w: Array
    x: Array
    eps: Array
    bias: Array | None  # None when no bias was given


def grad(w: Array, x: Array, eps: float, bias: Array | None = None, *, bias_mode: str = "inner",
         check_finite: bool = True) -> YatGrad:
    """Gradients of the Yat atom with respect to w, x, eps and the bias (module docstring).

    Parameters
    ----------
    w, x : array_like (..., d), leading shapes broadcast against each other (as ``product``)
    eps : float > 0
    bias : None, scalar or array broadcastable to the leading shape
    bias_mode : "inner" ((w.x + b)^2 / D) or "outer" (K + b)

    Returns ``YatGrad(w, x, eps, bias)``; ``bias`` is None when no bias was given.  Arrays live
    where the inputs live (NumPy, CuPy, PyTorch, JAX, any array API library, on their device),
    in the common dtype of w and x.
    """
    where = caller(w, x, bias)
    _, w, x, b, dtype, eps, lead = check_pair(w, x, eps, bias, bias_mode, check_finite, where)
    return choose("yat.grad", "auto", where.library)(w, x, eps, b, bias_mode, dtype, lead)


@register("yat.grad", "reference", note="float64 direct form, any array API library")
def _grad_reference(w: Array, x: Array, eps: float, b: Array | None, bias_mode: str, dtype: Any,
                    lead: tuple[int, ...]) -> YatGrad:
    xp = _ref.namespace(w, x, b)
    f64 = xp.float64
    if b is not None:
        b = xp.astype(b, f64)
    d = w.shape[-1]
    w64, x64 = xp.astype(w, f64), xp.astype(x, f64)
    with np.errstate(over="ignore", invalid="ignore"):
        N = xp.sum(w64 * x64, axis=-1)
        diff = w64 - x64
        D = xp.sum(diff * diff, axis=-1) + eps
        if b is not None and bias_mode == "inner":
            N = N + b
        r = N / D
    # Beyond the squared-norm range (yat._reference) the entries that overflowed are evaluated
    # again rescaled: r = N / D is unchanged by w, x, eps, b -> c w, c x, c^2 eps, c^2 b.
    c = _ref.rescale_factor(w64, x64)
    if c is not None and not bool(xp.all(xp.isfinite(r))):
        eps_s, b_s = _ref.scaled_eps_bias(c, eps, b, bias_mode)
        ws, xs = w64 * c, x64 * c
        Ns = xp.sum(ws * xs, axis=-1) + (b_s if b_s is not None else 0.0)
        ds = ws - xs
        r = xp.where(xp.isfinite(r), r, Ns / (xp.sum(ds * ds, axis=-1) + eps_s))
    r = xp.broadcast_to(r, lead)
    rr = xp.expand_dims(r, axis=-1)
    diff = x64 - w64  # x - w
    gx = 2.0 * rr * (w64 - rr * diff)
    gw = 2.0 * rr * (x64 + rr * diff)
    geps = -(r * r)
    gb = None
    if b is not None:
        gb = 2.0 * r if bias_mode == "inner" else xp.ones_like(r)
        gb = xp.astype(gb, dtype)
    shape = lead + (d,)
    return YatGrad(w=xp.astype(xp.broadcast_to(gw, shape), dtype),
                   x=xp.astype(xp.broadcast_to(gx, shape), dtype),
                   eps=xp.astype(xp.asarray(geps), dtype), bias=gb)
