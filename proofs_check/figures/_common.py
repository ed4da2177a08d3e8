"""Helpers shared by the figure modules (not a figure itself: ``load_all`` imports only ``fig_*``).

* :func:`yat` -- K(w, x) = (w.x)^2 / (||w - x||^2 + eps), evaluated with ``yatmath.yat.product``
  on the NumPy reference backend (figures want the float64 oracle, not a JIT warm-up).
* :func:`yat_grad_x`, :func:`yat_grad_w` -- the gradients of algorithms.md Y2, from
  ``yatmath.yat.grad`` (float64).
* :func:`stamp` -- writes the parameters a figure used onto the figure itself, since the papers
  do not state eps, w or sizes, below the axes: the room it takes is measured and reserved
  (:func:`reserve_bottom`), so the footer never overlaps tick labels.
* :func:`colorbar_or_constant` -- a colour bar for an image, or, for constant data, none and the
  text ``constant = value`` on the panel.
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


#: the footer's font size (points) and its gaps (points): below it, and between it and the axes
FOOTER_FONTSIZE = 7
FOOTER_GAP_PT = 6


def _renderer(fig):
    """A renderer to measure text with: the figure's own canvas's where it has one (Agg), else a
    throwaway Agg renderer at the figure's size and dpi (text extents scale with the dpi, so the
    figure fractions measured are those of any later savefig)."""
    get = getattr(fig.canvas, "get_renderer", None)
    if get is not None:
        return get()
    from matplotlib.backends.backend_agg import RendererAgg

    w, h = fig.get_size_inches() * fig.dpi
    return RendererAgg(max(int(w), 1), max(int(h), 1), fig.dpi)


def _wrap(fig, renderer, pieces, sep, width_px, **text_kw):
    """Greedy lines of ``pieces`` joined by ``sep``, each at most ``width_px`` wide when drawn
    (a piece wider than a line gets a line of its own)."""
    from matplotlib.text import Text

    probe = Text(0, 0, "", figure=fig, **text_kw)
    lines: list[str] = []
    for piece in pieces:
        trial = f"{lines[-1]}{sep}{piece}" if lines else piece
        probe.set_text(trial)
        if lines and probe.get_window_extent(renderer).width <= width_px:
            lines[-1] = trial
        else:
            lines.append(piece)
    return lines


def reserve_bottom(fig, frac):
    """Keep the bottom ``frac`` of the figure free of axes, tick labels, axis labels and colour
    bars: the constrained layout's rectangle starts above it (never lower than a room already
    reserved); without a layout engine the subplots are moved up by what their decorations
    overlap it."""
    from matplotlib.layout_engine import ConstrainedLayoutEngine, TightLayoutEngine

    eng = fig.get_layout_engine()
    if isinstance(eng, ConstrainedLayoutEngine):
        x0, y0, w, h = eng.get().get("rect", (0, 0, 1, 1))
        bottom = max(y0, frac)
        eng.set(rect=(x0, bottom, w, y0 + h - bottom))
    elif isinstance(eng, TightLayoutEngine):
        l_, b_, r_, t_ = eng.get().get("rect", (0, 0, 1, 1)) or (0, 0, 1, 1)
        eng.set(rect=(l_, max(b_, frac), r_, t_))
    else:
        renderer = _renderer(fig)
        lows = [ax.get_tightbbox(renderer).y0 / fig.bbox.height for ax in fig.axes]
        low = min(lows, default=1.0)
        if low < frac:
            fig.subplots_adjust(bottom=min(0.9, fig.subplotpars.bottom + frac - low))


def stamp(fig, params, keys=None, y=0.005, note=None):
    """Write ``key=value`` for the chosen parameters at the bottom of the figure (a footer), with
    ``note`` (a sentence about the figure, optional) above them, and keep the axes above it.

    The footer is wrapped into lines no wider than the figure, measured with the renderer, and
    its height decides the room reserved below the axes (:func:`reserve_bottom`): the footer never
    overlaps tick labels, axis labels or colour bars, whatever the figure's size.  Call it after
    the figure has its final size.  Returns the parameter text (one line, as before wrapping).
    Sets ``fig._yatmath_footer`` to the footer's Text (the tests measure it)."""
    keys = keys or [k for k in params if k != "seed"] + (["seed"] if "seed" in params else [])
    items = [f"{k}={fmt(params[k])}" for k in keys if k in params]
    txt = ", ".join(items)
    renderer = _renderer(fig)
    width = 0.96 * fig.bbox.width
    kw = dict(fontsize=FOOTER_FONTSIZE)
    lines = _wrap(fig, renderer, note.split(" "), " ", width, **kw) if note else []
    lines += _wrap(fig, renderer, items, ", ", width, **kw)
    footer = fig.text(0.5, y, "\n".join(lines), ha="center", va="bottom", color="0.3", **kw)
    top_px = footer.get_window_extent(renderer).y1
    reserve_bottom(fig, (top_px + FOOTER_GAP_PT * fig.dpi / 72) / fig.bbox.height)
    fig._yatmath_footer = footer
    return txt


def colorbar_or_constant(fig, ax, im, values, label=None, name=None, fmt_value="{:.4g}", **kw):
    """``fig.colorbar(im, ax=ax, label=label, ...)``, unless ``values`` is constant (max == min
    over its finite entries): a colour bar of one value is meaningless, so then none is drawn and
    the panel says ``NAME: constant = value`` (``name``, default ``label``, names the quantity
    ``values`` holds).  Returns the colour bar, or the Text."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if v.size and v.max() == v.min():
        what = f"{name or label}: " if (name or label) else ""
        if hasattr(im, "set_clim"):        # the middle of the colour map, not its dark end
            c = float(np.asarray(im.get_array(), dtype=float).ravel()[0])
            im.set_clim(c - 1.0, c + 1.0)
        return ax.text(0.5, 0.5, f"{what}constant = {fmt_value.format(float(v[0]))}",
                       transform=ax.transAxes, ha="center", va="center", fontsize=9,
                       bbox=dict(boxstyle="round", fc="white", ec="0.5", alpha=0.9))
    return fig.colorbar(im, ax=ax, label=label, **kw)


def rng_for(seed, tag=0):
    """A NumPy Generator derived from (seed, tag), so two figures never share a stream."""
    return np.random.default_rng([int(seed), int(tag)])
