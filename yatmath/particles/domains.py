"""Convex domains Omega for the particles: interval, box, ball (algorithms.md §P3).

Each domain maps points (N, d) (or (N,) for d = 1) back into itself in two ways:

``project(W)``  the Euclidean projection P_Omega of 004 eq.B.11: coordinate clipping for the
                interval and the box, W min(1, R/||W - c||) (about the centre c) for the ball.
                Non-expansive: ||P(a) - P(b)|| <= ||a - b||.
``reflect(W)``  the mirror reflection: on [lo, hi] with length L, y = (x - lo) mod 2L and
                x' = lo + (y if y <= L else 2L - y) (per coordinate for the box); for the ball,
                the point is folded along the line through the centre into [-R, R] by the same
                rule, which gives the radius r' = |2R - r| for R < r <= 3R.

Both are the identity inside the domain and exact in float64 up to one rounding per operation.
"""
from __future__ import annotations

import numpy as np

from .._validate import as_float_array


def _fold(x, lo, hi):
    L = hi - lo
    y = np.mod(x - lo, 2.0 * L)
    return lo + np.where(y <= L, y, 2.0 * L - y)


class Domain:
    d: int

    def _pts(self, W):
        W = as_float_array(W, "W", ndim=(1, 2))
        if W.ndim == 1:
            if self.d != 1:
                raise ValueError(f"W must have shape (N, {self.d}), got {W.shape}")
            return W[:, None], True
        if W.shape[1] != self.d:
            raise ValueError(f"W must have shape (N, {self.d}), got {W.shape}")
        return W, False

    def project(self, W):
        raise NotImplementedError

    def reflect(self, W):
        raise NotImplementedError

    def apply(self, W, boundary="project"):
        """``project`` or ``reflect`` (boundary in {"project", "reflect"})."""
        if boundary == "project":
            return self.project(W)
        if boundary == "reflect":
            return self.reflect(W)
        raise ValueError(f"boundary must be 'project' or 'reflect', got {boundary!r}")


class Box(Domain):
    """The box prod_j [lo_j, hi_j] (lo, hi scalars or length-d arrays)."""

    def __init__(self, lo, hi, d=None):
        lo = np.atleast_1d(np.asarray(lo, dtype=np.float64))
        hi = np.atleast_1d(np.asarray(hi, dtype=np.float64))
        if d is not None:
            lo, hi = np.broadcast_to(lo, (d,)).copy(), np.broadcast_to(hi, (d,)).copy()
        if lo.shape != hi.shape or lo.ndim != 1:
            raise ValueError(f"lo and hi must be scalars or matching 1-D arrays, got {lo.shape}, {hi.shape}")
        if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi)) and np.all(hi > lo)):
            raise ValueError(f"need finite lo < hi, got lo={lo}, hi={hi}")
        self.lo, self.hi, self.d = lo, hi, lo.shape[0]

    @property
    def volume(self) -> float:
        return float(np.prod(self.hi - self.lo))

    def contains(self, W):
        P, _ = self._pts(W)
        return np.all((P >= self.lo) & (P <= self.hi), axis=1)

    def project(self, W):
        P, flat = self._pts(W)
        out = np.clip(P, self.lo, self.hi)
        return out[:, 0] if flat else out

    def reflect(self, W):
        P, flat = self._pts(W)
        out = np.clip(_fold(P, self.lo, self.hi), self.lo, self.hi)   # clip: one-ulp guard
        out = np.where((P >= self.lo) & (P <= self.hi), P, out)       # exact identity inside
        return out[:, 0] if flat else out

    def sample_uniform(self, n, rng):
        from .forces import _as_rng

        return _as_rng(rng).uniform(self.lo, self.hi, size=(n, self.d))


class Interval(Box):
    """[lo, hi] on the line; points are (N,) or (N, 1)."""

    def __init__(self, lo=-1.0, hi=1.0):
        super().__init__(float(lo), float(hi))


class Ball(Domain):
    """The closed ball {||w - center|| <= radius} in R^d."""

    def __init__(self, radius, d, center=None):
        if not (np.isfinite(radius) and radius > 0):
            raise ValueError(f"radius must be finite and > 0, got {radius!r}")
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1:
            raise ValueError(f"d must be an integer >= 1, got {d!r}")
        self.radius, self.d = float(radius), int(d)
        self.center = np.zeros(d) if center is None else np.asarray(center, dtype=np.float64)
        if self.center.shape != (d,):
            raise ValueError(f"center must have shape ({d},), got {self.center.shape}")

    @property
    def volume(self) -> float:
        from scipy.special import gammaln

        d = self.d
        return float(np.exp(0.5 * d * np.log(np.pi) - gammaln(0.5 * d + 1)) * self.radius ** d)

    def contains(self, W):
        P, _ = self._pts(W)
        return np.linalg.norm(P - self.center, axis=1) <= self.radius

    def project(self, W):
        P, flat = self._pts(W)
        Z = P - self.center
        r = np.linalg.norm(Z, axis=1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            scale = np.where(r > self.radius, self.radius / r, 1.0)
        out = self.center + Z * scale
        for _ in range(8):      # rounding can leave ||out|| = R (1 + ulp): step inward by ulps
            bad = np.linalg.norm(out - self.center, axis=1) > self.radius
            if not bad.any():
                break
            scale[bad] = np.nextafter(np.nextafter(scale[bad], 0.0), 0.0)
            out[bad] = self.center + Z[bad] * scale[bad]
        return out[:, 0] if flat else out

    def reflect(self, W):
        P, flat = self._pts(W)
        Z = P - self.center
        r = np.linalg.norm(Z, axis=1, keepdims=True)
        R = self.radius
        t = _fold(r, -R, R)                        # signed position along the ray
        with np.errstate(divide="ignore", invalid="ignore"):
            scale = np.where(r > R, t / r, 1.0)
        out = self.center + Z * scale
        out = self.project(out)                    # guard rounding at |t| = R
        return out[:, 0] if flat else out

    def sample_uniform(self, n, rng):
        from .forces import _as_rng

        r = _as_rng(rng)
        G = r.standard_normal((n, self.d))
        G /= np.linalg.norm(G, axis=1, keepdims=True)
        rad = self.radius * r.random(n) ** (1.0 / self.d)
        return self.center + G * rad[:, None]
