"""Helpers shared by the figure modules (not a figure itself: ``load_all`` imports only ``fig_*``).

* :func:`yat` -- K(w, x) = (w.x)^2 / (||w - x||^2 + eps), evaluated with ``yatmath.yat.product``
  on the NumPy reference backend (figures want the float64 oracle, not a JIT warm-up).
* :func:`yat_grad_x`, :func:`yat_grad_w` -- the gradients of algorithms.md Y2, from
  ``yatmath.yat.grad`` (float64).
* :func:`stamp` -- writes the parameters a figure used onto the figure itself, since the papers
  do not state eps, w or sizes.
"""
from __future__ import annotations

import numpy as np

from yatmath.yat import grad as _grad
from yatmath.yat import product as _product

BACKEND = "numpy"


def yat(w, x, eps):
    """K(w, x) broadcast over leading axes (float64 NumPy reference backend)."""
    return _product(np.asarray(w, float), np.asarray(x, float), eps, backend=BACKEND)


def yat_grad_x(w, x, eps):
    """grad_x K(w, x) (algorithms.md Y2, ``yatmath.yat.grad``), shape broadcast(w, x)."""
    return np.asarray(_grad(np.asarray(w, float), np.asarray(x, float), eps).x)


def yat_grad_w(w, x, eps):
    """grad_w K(w, x) (algorithms.md Y2, ``yatmath.yat.grad``), shape broadcast(w, x)."""
    return np.asarray(_grad(np.asarray(w, float), np.asarray(x, float), eps).w)


def grid2d(lim, n):
    """A square n-by-n grid on [-lim, lim]^2 (or [lo, hi]^2 if lim is a pair): (xs, ys, P (n,n,2))."""
    lo, hi = (-lim, lim) if np.isscalar(lim) else lim
    xs = np.linspace(lo, hi, n)
    X, Y = np.meshgrid(xs, xs)
    return xs, xs.copy(), np.stack([X, Y], axis=-1)


def fmt(v):
    """Short text for a parameter value (vectors as (a, b), floats with 3 significant digits)."""
    if isinstance(v, (list, tuple, np.ndarray)):
        return "(" + ", ".join(fmt(u) for u in np.asarray(v).ravel().tolist()) + ")"
    if isinstance(v, float):
        return f"{v:.3g}"
    return str(v)


def stamp(fig, params, keys=None, y=0.005):
    """Write ``key=value`` for the chosen parameters at the bottom of the figure."""
    keys = keys or [k for k in params if k != "seed"] + (["seed"] if "seed" in params else [])
    txt = ", ".join(f"{k}={fmt(params[k])}" for k in keys if k in params)
    fig.text(0.5, y, txt, ha="center", va="bottom", fontsize=7, color="0.3", wrap=True)
    return txt


def rng_for(seed, tag=0):
    """A NumPy Generator derived from (seed, tag), so two figures never share a stream."""
    return np.random.default_rng([int(seed), int(tag)])
