"""Pair interactions g of 004 (eq.2.3, App B eq.B.10) with Plummer softening and hard truncation.

Kernels (r = ||w||, w in R^d; algorithms.md §P2)
-----------------------------------------------
``kind="none"`` (the bare kernels g_s of 004):
    s > 0          g(w) = r^{-s}            (Riesz)
    s = 0          g(w) = -ln r             (logarithmic)
    s in (-2, 0)   g(w) = -r^{-s}           (App B)
    "Coulomb" is s = d - 2 (pass ``s="coulomb"`` together with the dimension d).
``kind="plummer"`` (softening length delta > 0), q = r^2 + delta^2:
    s > 0: q^{-s/2};   s = 0: -ln(q)/2;   s < 0: -q^{-s/2}
``kind="hard"`` (the truncation of 004 eq.A.36; delta > 0):
    g^delta(w) = g(max(r, delta)); for s > 0 this is min(r^{-s}, delta^{-s}) with
    g^delta(0) = delta^{-s}; for s = 0 it is -ln max(r, delta) (toolkit extension).

Gradients
---------
Every kernel is radial and its gradient is  grad g(w) = -c(r^2) w  with

    c = a * q^{-(s+2)/2},   a = |s| (s != 0) or 1 (s = 0),

q = r^2 (``"none"`` and ``"hard"``) or r^2 + delta^2 (``"plummer"``), and c = 0 where r <= delta
for ``"hard"``.  c >= 0 always: every kernel is repulsive (g decreases in r).  One definition of
c, :func:`force_factor`, is shared by the NumPy reference; the Numba and CuPy kernels evaluate
the same expression with the exponent specialised (see ``exponent_family``).

Accuracy: g and c are evaluated with a relative error of a few units of roundoff (one pow or
sqrt, one division) wherever they are finite; the bare kernels are infinite at w = 0.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from .._validate import check_choice

KINDS = ("none", "plummer", "hard")

#: exponent families of c = a q^{-p}: code -> p (0 is the general pow path)
_FAMILIES = {1: 1.5, 2: 1.0, 3: 0.5, 4: 2.0}


@dataclass(frozen=True)
class Interaction:
    """A validated pair interaction: ``kind`` in KINDS, exponent ``s`` > -2, length ``delta``.

    Build one with :func:`make_interaction`; every public function also accepts the triple
    ``(kind, s, delta)`` directly.
    """

    kind: str
    s: float
    delta: float

    @property
    def p(self) -> float:
        """The exponent p = (s + 2)/2 of c = a q^{-p}."""
        return 0.5 * (self.s + 2.0)

    @property
    def a(self) -> float:
        """The prefactor a = |s| (or 1 when s = 0) of c = a q^{-p}."""
        return abs(self.s) if self.s != 0.0 else 1.0

    @property
    def family(self) -> int:
        """Exponent family used by the compiled kernels (0: general pow)."""
        for code, p in _FAMILIES.items():
            if self.p == p:
                return code
        return 0

    @property
    def soft2(self) -> float:
        """delta^2 added to r^2 inside c (Plummer), else 0."""
        return self.delta ** 2 if self.kind == "plummer" else 0.0

    @property
    def cut2(self) -> float:
        """c = 0 where r^2 <= cut2 (hard truncation), else -1 (no cut)."""
        return self.delta ** 2 if self.kind == "hard" else -1.0

    def g(self, r):
        """g as a function of the distance r >= 0 (array or scalar), float64."""
        r = np.asarray(r, dtype=np.float64)
        s = self.s
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.kind == "plummer":
                q = r * r + self.delta ** 2
                if s == 0.0:
                    return -0.5 * np.log(q)
                v = q ** (-0.5 * s)
                return v if s > 0 else -v
            if self.kind == "hard":
                r = np.maximum(r, self.delta)
            if s == 0.0:
                return -np.log(r)
            v = r ** (-s)
            return v if s > 0 else -v

    def g_vec(self, w):
        """g(w) for vectors w of shape (..., d)."""
        w = np.asarray(w, dtype=np.float64)
        return self.g(np.sqrt(np.sum(w * w, axis=-1)))

    def factor(self, r2):
        """c(r^2) with grad g(w) = -c(||w||^2) w (see the module docstring)."""
        return force_factor(r2, self)

    def grad(self, w):
        """grad g(w) for vectors w of shape (..., d), float64."""
        w = np.asarray(w, dtype=np.float64)
        c = self.factor(np.sum(w * w, axis=-1))
        return -c[..., None] * w

    def g_at_zero(self) -> float:
        """g(0): finite for softened/truncated kernels and for s < 0; +inf for bare s >= 0."""
        return float(self.g(0.0))


def _real(value, name):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    value = float(value)
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return value


def make_interaction(kind="none", s=1.0, delta=0.0, d=None) -> Interaction:
    """Validate ``(kind, s, delta)`` and return an :class:`Interaction`.

    kind : "none" | "plummer" | "hard"
    s : real > -2, or "coulomb" (then ``d`` is required and s = d - 2)
    delta : 0 for "none"; > 0 for "plummer" and "hard"
    """
    if isinstance(kind, Interaction):
        return kind
    check_choice(kind, "kind", KINDS)
    if isinstance(s, str):
        if s != "coulomb":
            raise ValueError(f"s must be a real number > -2 or 'coulomb', got {s!r}")
        if d is None:
            raise ValueError("s='coulomb' needs the dimension d (s = d - 2)")
        if isinstance(d, bool) or not isinstance(d, numbers.Integral) or d < 1:
            raise ValueError(f"d must be an integer >= 1, got {d!r}")
        s = float(d - 2)
    s = _real(s, "s")
    if s <= -2.0:
        raise ValueError(f"s must be > -2 (004 App B defines g_s for s in (-2, inf)), got {s!r}")
    delta = _real(delta, "delta")
    if kind == "none":
        if delta != 0.0:
            raise ValueError(f"delta must be 0 for kind='none' (no softening), got {delta!r}")
    elif delta <= 0.0:
        raise ValueError(f"delta must be > 0 for kind={kind!r}, got {delta!r}")
    return Interaction(kind, s, delta)


def as_interaction(kind, s=1.0, delta=0.0, d=None) -> Interaction:
    """``kind`` may already be an :class:`Interaction` (then s and delta are ignored)."""
    if isinstance(kind, Interaction):
        return kind
    return make_interaction(kind, s, delta, d)


def force_factor(r2, inter: Interaction):
    """c(r^2) = a (r^2 [+ delta^2])^{-(s+2)/2}, zero inside the hard core.  float64 NumPy."""
    r2 = np.asarray(r2, dtype=np.float64)
    q = r2 + inter.soft2
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        p = inter.p
        if p == 1.5:
            c = inter.a / (q * np.sqrt(q))
        elif p == 1.0:
            c = inter.a / q
        else:
            c = inter.a * q ** (-p)
    if inter.kind == "hard":
        c = np.where(r2 > inter.cut2, c, 0.0)
    return c


def gram(omega, inter: Interaction):
    """The N x N matrix G_kl = g(omega_k - omega_l) (diagonal: g(0)); a diagnostic, O(N^2) memory.

    Used to inspect positive definiteness of each softening (algorithms.md §P2 diagnostics).
    """
    omega = np.asarray(omega, dtype=np.float64)
    if omega.ndim == 1:
        omega = omega[:, None]
    diff = omega[:, None, :] - omega[None, :, :]
    return inter.g_vec(diff)


def radial_fourier(inter: Interaction, L: float, n: int = 4096):
    """FFT of the sampled profile r -> g(|r|) on the symmetric grid [-L, L) (1-D diagnostic).

    Returns (frequencies, real part of the transform scaled by the grid step).  A softened
    kernel whose transform is >= 0 is positive definite on the line.
    """
    x = (np.arange(n) - n // 2) * (2.0 * L / n)
    vals = inter.g(np.abs(x))
    if not np.all(np.isfinite(vals)):
        raise ValueError("the kernel is infinite at r = 0; use kind='plummer' or 'hard'")
    spec = np.fft.fft(np.fft.ifftshift(vals)).real * (2.0 * L / n)
    freq = np.fft.fftfreq(n, d=2.0 * L / n)
    return np.fft.fftshift(freq), np.fft.fftshift(spec)
