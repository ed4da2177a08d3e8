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

Array libraries: ``project``, ``reflect``, ``contains`` and ``apply`` are written once against
the array API standard: points of NumPy, CuPy, PyTorch, JAX or ``array_api_strict`` stay in
their library and on their device (float64 result).  The parameters (lo, hi, centre) are kept as
read-only NumPy arrays and copied once per device (``yatmath._array.parameter``).  NumPy points
give the same bits as before the generic rewrite (the NumPy functions run: ``np.linalg.norm``,
``np.mod``);
other libraries agree with them to a few ulps (their libm's remainder/sqrt).  The constructors
and ``sample_uniform`` (a draw from NumPy's Generator) stay on the host.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from .._array import namespace, parameter
from .._typing import Array, RNGLike
from ._arrays import generic_op, host_op
from .._validate import as_float_array, as_rng, check_choice, check_int, check_positive, check_real

BOUNDARIES = ("project", "reflect")

_PARAMS = "lo, hi, centre kept on the host, copied once per device"


def row_norms(A: Array, *, keepdims: bool = False) -> Array:
    """Euclidean norms of the rows of the 2-D array ``A`` of any array API library:
    ``np.linalg.norm(A, axis=1)`` for NumPy (unchanged bits), ``xp.linalg.vector_norm`` for the
    others (correctly rounded sums of squares to within a few ulps, same library and device)."""
    if isinstance(A, np.ndarray):
        return np.linalg.norm(A, axis=1, keepdims=keepdims)
    return namespace(A).linalg.vector_norm(A, axis=1, keepdims=keepdims)


def _fold(x: Array, lo: Any, hi: Any) -> Array:
    """The mirror fold of x into [lo, hi] (module docstring); any array API library."""
    xp = namespace(x)
    L = hi - lo
    y = xp.remainder(x - lo, 2.0 * L)
    return lo + xp.where(y <= L, y, 2.0 * L - y)


class Domain:
    d: int

    def _pts(self, W: Array) -> tuple[Array, bool]:
        """(W as (N, d) float64 in its own library and device, whether W was 1-D)."""
        W = as_float_array(W, "W", ndim=(1, 2))
        xp = namespace(W)
        W = xp.astype(W, xp.float64, copy=False)
        if W.ndim == 1:
            if self.d != 1:
                raise ValueError(f"W must have shape (N, {self.d}), got {tuple(W.shape)}")
            return W[:, None], True
        if W.shape[1] != self.d:
            raise ValueError(f"W must have shape (N, {self.d}), got {tuple(W.shape)}")
        return W, False

    def project(self, W: Array) -> Array:
        raise NotImplementedError

    def reflect(self, W: Array) -> Array:
        raise NotImplementedError

    @generic_op("particles.Domain.apply", dtypes=("float64",),
                note="generic; dispatches to project or reflect")
    def apply(self, W: Array, boundary: str = "project") -> Array:
        """``project`` or ``reflect`` (boundary in {"project", "reflect"}); W of any array API
        library, the result in its library and on its device."""
        check_choice(boundary, "boundary", BOUNDARIES)
        return self.project(W) if boundary == "project" else self.reflect(W)

    def _n(self, n: Any) -> int:
        return check_int(n, "n", minimum=0)


class Box(Domain):
    """The box prod_j [lo_j, hi_j] (lo, hi scalars or length-d arrays)."""

    @host_op("particles.Box", note="lo, hi stored as NumPy float64")
    def __init__(self, lo: float | npt.ArrayLike, hi: float | npt.ArrayLike,
                 d: int | None = None) -> None:
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
            raise ValueError(f"lo and hi must be scalars or matching 1-D arrays, got {lo.shape}, "
                             f"{hi.shape}")
        if lo.shape[0] == 0:
            raise ValueError("lo and hi must have at least one coordinate, got length 0")
        if not np.all(hi > lo):
            raise ValueError(f"hi must be > lo in every coordinate (need lo < hi), got lo={lo}, "
                             f"hi={hi}")
        if not np.all(np.isfinite(hi - lo)):
            raise ValueError(f"hi - lo overflows float64 (lo={lo}, hi={hi}); use a smaller box")
        lo.flags.writeable = hi.flags.writeable = False      # frozen: cached on a device
        self.lo, self.hi, self.d = lo, hi, lo.shape[0]

    @property
    def volume(self) -> float:
        return float(np.prod(self.hi - self.lo))

    def _bounds(self, P: Array) -> tuple[Array, Array]:
        return parameter(self, self.lo, P), parameter(self, self.hi, P)

    @generic_op("particles.Box.contains", dtypes=("float64",), note=f"generic; {_PARAMS}")
    def contains(self, W: Array) -> Array:
        """Boolean (N,): lo <= w <= hi in every coordinate."""
        P, _ = self._pts(W)
        lo, hi = self._bounds(P)
        return namespace(P).all((P >= lo) & (P <= hi), axis=1)

    @generic_op("particles.Box.project", dtypes=("float64",),
                note=f"generic (clip by maximum/minimum); {_PARAMS}")
    def project(self, W: Array) -> Array:
        """Coordinate clipping min(max(w, lo), hi) (exact)."""
        P, flat = self._pts(W)
        lo, hi = self._bounds(P)
        xp = namespace(P)
        out = np.clip(P, lo, hi) if isinstance(P, np.ndarray) else xp.minimum(
            xp.maximum(P, lo), hi)
        return out[:, 0] if flat else out

    @generic_op("particles.Box.reflect", dtypes=("float64",),
                note=f"generic (remainder, where); {_PARAMS}")
    def reflect(self, W: Array) -> Array:
        """The mirror fold per coordinate; the identity (bit for bit) inside the box."""
        P, flat = self._pts(W)
        lo, hi = self._bounds(P)
        xp = namespace(P)
        F = _fold(P, lo, hi)
        # clip: one-ulp guard
        out = np.clip(F, lo, hi) if isinstance(F, np.ndarray) else xp.minimum(
            xp.maximum(F, lo), hi)
        out = xp.where((P >= lo) & (P <= hi), P, out)                 # exact identity inside
        return out[:, 0] if flat else out

    @host_op("particles.Box.sample_uniform", note="numpy.random.Generator")
    def sample_uniform(self, n: int, rng: RNGLike) -> npt.NDArray[np.float64]:
        n = self._n(n)
        return as_rng(rng).uniform(self.lo, self.hi, size=(n, self.d))


class Interval(Box):
    """[lo, hi] on the line; points are (N,) or (N, 1)."""

    @host_op("particles.Interval")
    def __init__(self, lo: float = -1.0, hi: float = 1.0) -> None:
        super().__init__(check_real(lo, "lo"), check_real(hi, "hi"))


class Ball(Domain):
    """The closed ball {||w - center|| <= radius} in R^d."""

    @host_op("particles.Ball", note="centre stored as NumPy float64")
    def __init__(self, radius: float, d: int, center: npt.ArrayLike | None = None) -> None:
        radius = check_positive(radius, "radius")
        d = check_int(d, "d", minimum=1)
        self.radius, self.d = radius, d
        self.center = (np.zeros(d) if center is None
                       else as_float_array(center, "center", ndim=1).astype(np.float64))
        if self.center.shape != (d,):
            raise ValueError(f"center must have shape ({d},), got {self.center.shape}")
        self.center.flags.writeable = False                  # frozen: cached on a device

    @property
    def volume(self) -> float:
        from scipy.special import gammaln

        d = self.d
        return float(np.exp(0.5 * d * np.log(np.pi) - gammaln(0.5 * d + 1)) * self.radius ** d)

    @generic_op("particles.Ball.contains", dtypes=("float64",), note=f"generic; {_PARAMS}")
    def contains(self, W: Array) -> Array:
        """Boolean (N,): ||w - center|| <= radius."""
        P, _ = self._pts(W)
        return row_norms(P - parameter(self, self.center, P)) <= self.radius

    @generic_op("particles.Ball.project", dtypes=("float64",),
                note="generic; the ulp guard is a bounded loop of "
                "where/nextafter (one device sync per pass); " + _PARAMS)
    def project(self, W: Array) -> Array:
        """center + (w - center) min(1, R/||w - center||), then a guard: a row that rounding
        leaves at ||out - center|| > R has its scale stepped down by 2 ulps and is recomputed
        (at most 8 passes; one pass suffices in practice)."""
        P, flat = self._pts(W)
        xp = namespace(P)
        c = parameter(self, self.center, P)
        R = self.radius
        Z = P - c
        r = row_norms(Z, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            scale = xp.where(r > R, R / r, 1.0)
        out = c + Z * scale
        for _ in range(8):      # rounding can leave ||out|| = R (1 + ulp): step inward by ulps
            bad = (row_norms(out - c) > R)[:, None]
            if not bool(xp.any(bad)):
                break
            scale = xp.where(bad, xp.nextafter(xp.nextafter(scale, 0.0), 0.0), scale)
            out = xp.where(bad, c + Z * scale, out)
        return out[:, 0] if flat else out

    @generic_op("particles.Ball.reflect", dtypes=("float64",),
                note=f"generic (remainder, where); {_PARAMS}")
    def reflect(self, W: Array) -> Array:
        """The fold along the ray from the centre (module docstring), then :meth:`project` as
        a guard against rounding at |t| = R."""
        P, flat = self._pts(W)
        xp = namespace(P)
        c = parameter(self, self.center, P)
        Z = P - c
        r = row_norms(Z, keepdims=True)
        R = self.radius
        t = _fold(r, -R, R)                        # signed position along the ray
        with np.errstate(divide="ignore", invalid="ignore"):
            scale = xp.where(r > R, t / r, 1.0)
        out = c + Z * scale
        out = self.project(out)                    # guard rounding at |t| = R
        return out[:, 0] if flat else out

    @host_op("particles.Ball.sample_uniform", note="numpy.random.Generator")
    def sample_uniform(self, n: int, rng: RNGLike) -> npt.NDArray[np.float64]:
        """n points uniform in the ball, (n, d); rng per :func:`yatmath._validate.as_rng`."""
        n = self._n(n)
        r = as_rng(rng)
        G = r.standard_normal((n, self.d))
        G /= np.linalg.norm(G, axis=1, keepdims=True)
        rad = self.radius * r.random(n) ** (1.0 / self.d)
        return self.center + G * rad[:, None]
