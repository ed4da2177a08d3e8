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

from ._arrays import host_op
from .._validate import as_float_array, as_rng, check_choice, check_int, check_positive, check_real

BOUNDARIES = ("project", "reflect")


def _fold(x, lo, hi):
    L = hi - lo
    y = np.mod(x - lo, 2.0 * L)
    return lo + np.where(y <= L, y, 2.0 * L - y)


class Domain:
    d: int

    def _pts(self, W):
        W = as_float_array(W, "W", ndim=(1, 2)).astype(np.float64)
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

    @host_op("particles.Domain.apply")
    def apply(self, W, boundary="project"):
        """``project`` or ``reflect`` (boundary in {"project", "reflect"})."""
        check_choice(boundary, "boundary", BOUNDARIES)
        return self.project(W) if boundary == "project" else self.reflect(W)

    def _n(self, n):
        return check_int(n, "n", minimum=0)


class Box(Domain):
    """The box prod_j [lo_j, hi_j] (lo, hi scalars or length-d arrays)."""

    @host_op("particles.Box")
    def __init__(self, lo, hi, d=None):
        lo = np.atleast_1d(as_float_array(lo, "lo", ndim=(0, 1)).astype(np.float64))
        hi = np.atleast_1d(as_float_array(hi, "hi", ndim=(0, 1)).astype(np.float64))
        if d is not None:
            d = check_int(d, "d", minimum=1)
            for name, v in (("lo", lo), ("hi", hi)):
                if v.shape not in ((1,), (d,)):
                    raise ValueError(f"{name} must be a scalar or have length d={d}, got shape "
                                     f"{v.shape}")
            lo, hi = np.broadcast_to(lo, (d,)).copy(), np.broadcast_to(hi, (d,)).copy()
        if lo.shape != hi.shape:
            raise ValueError(f"lo and hi must be scalars or matching 1-D arrays, got {lo.shape}, {hi.shape}")
        if lo.shape[0] == 0:
            raise ValueError("lo and hi must have at least one coordinate, got length 0")
        if not np.all(hi > lo):
            raise ValueError(f"hi must be > lo in every coordinate (need lo < hi), got lo={lo}, "
                             f"hi={hi}")
        if not np.all(np.isfinite(hi - lo)):
            raise ValueError(f"hi - lo overflows float64 (lo={lo}, hi={hi}); use a smaller box")
        self.lo, self.hi, self.d = lo, hi, lo.shape[0]

    @property
    def volume(self) -> float:
        return float(np.prod(self.hi - self.lo))

    @host_op("particles.Box.contains")
    def contains(self, W):
        P, _ = self._pts(W)
        return np.all((P >= self.lo) & (P <= self.hi), axis=1)

    @host_op("particles.Box.project")
    def project(self, W):
        P, flat = self._pts(W)
        out = np.clip(P, self.lo, self.hi)
        return out[:, 0] if flat else out

    @host_op("particles.Box.reflect")
    def reflect(self, W):
        P, flat = self._pts(W)
        out = np.clip(_fold(P, self.lo, self.hi), self.lo, self.hi)   # clip: one-ulp guard
        out = np.where((P >= self.lo) & (P <= self.hi), P, out)       # exact identity inside
        return out[:, 0] if flat else out

    @host_op("particles.Box.sample_uniform", note="numpy.random.Generator")
    def sample_uniform(self, n, rng):
        n = self._n(n)
        return as_rng(rng).uniform(self.lo, self.hi, size=(n, self.d))


class Interval(Box):
    """[lo, hi] on the line; points are (N,) or (N, 1)."""

    @host_op("particles.Interval")
    def __init__(self, lo=-1.0, hi=1.0):
        super().__init__(check_real(lo, "lo"), check_real(hi, "hi"))


class Ball(Domain):
    """The closed ball {||w - center|| <= radius} in R^d."""

    @host_op("particles.Ball")
    def __init__(self, radius, d, center=None):
        radius = check_positive(radius, "radius")
        d = check_int(d, "d", minimum=1)
        self.radius, self.d = radius, d
        self.center = (np.zeros(d) if center is None
                       else as_float_array(center, "center", ndim=1).astype(np.float64))
        if self.center.shape != (d,):
            raise ValueError(f"center must have shape ({d},), got {self.center.shape}")

    @property
    def volume(self) -> float:
        from scipy.special import gammaln

        d = self.d
        return float(np.exp(0.5 * d * np.log(np.pi) - gammaln(0.5 * d + 1)) * self.radius ** d)

    @host_op("particles.Ball.contains")
    def contains(self, W):
        P, _ = self._pts(W)
        return np.linalg.norm(P - self.center, axis=1) <= self.radius

    @host_op("particles.Ball.project", note="in-place ulp guard loop")
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

    @host_op("particles.Ball.reflect")
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

    @host_op("particles.Ball.sample_uniform", note="numpy.random.Generator")
    def sample_uniform(self, n, rng):
        """n points uniform in the ball, (n, d); rng per :func:`yatmath._validate.as_rng`."""
        n = self._n(n)
        r = as_rng(rng)
        G = r.standard_normal((n, self.d))
        G /= np.linalg.norm(G, axis=1, keepdims=True)
        rad = self.radius * r.random(n) ** (1.0 / self.d)
        return self.center + G * rad[:, None]
