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

Coincident particles
--------------------
A bare kernel (``kind="none"``) is singular at w = 0: g(0) = +inf for s >= 0 and the pair force
has no value there.  The force and potential functions of :mod:`.forces` therefore refuse two
coincident particles with a bare kernel (an error naming ``omega``) unless the caller passes
``coincident="singular"``: then g(0) = +inf enters the potential and energy (their true,
infinite value) and a coincident pair contributes 0 to the force (the symmetric principal
value: the pair force is odd in w).  Softened and truncated kernels are finite at 0 and need
no opt-in.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .._typing import Array
from .._validate import as_float_array, check_choice, check_int, check_real
from .._array import namespace, to_host
from ._arrays import generic_op, host_op

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

    def __post_init__(self) -> None:
        check_choice(self.kind, "kind", KINDS)
        s = check_real(self.s, "s", gt=-2.0)
        delta = check_real(self.delta, "delta", ge=0.0)
        if self.kind == "none" and delta != 0.0:
            raise ValueError(f"delta must be 0 for kind='none' (no softening), got {delta!r}")
        if self.kind != "none" and delta <= 0.0:
            raise ValueError(f"delta must be > 0 for kind={self.kind!r}, got {delta!r}")
        object.__setattr__(self, "s", s)
        object.__setattr__(self, "delta", delta)

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

    @property
    def singular(self) -> bool:
        """True for the bare kernels, whose force (and, for s >= 0, g) is infinite at w = 0."""
        return self.kind == "none"

    @generic_op("particles.Interaction.g")
    def g(self, r: Array | float) -> Array:
        """g as a function of the distance r >= 0 (array or scalar; r = inf allowed), float64
        (float32 input stays float32).  Generic over the array API: the result is in the
        library and on the device of ``r``."""
        r = _nonneg(r, "r")
        xp = namespace(r)
        s = self.s
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.kind == "plummer":
                q = r * r + self.delta ** 2
                if s == 0.0:
                    return -0.5 * xp.log(q)
                v = q ** (-0.5 * s)
                return v if s > 0 else -v
            if self.kind == "hard":
                r = xp.maximum(r, self.delta)
            if s == 0.0:
                return -xp.log(r)
            v = r ** (-s)
            return v if s > 0 else -v

    @generic_op("particles.Interaction.g_vec")
    def g_vec(self, w: Array) -> Array:
        """g(w) for vectors w of shape (..., d); ||w|| is computed without overflow or
        underflow (:func:`norm`), so a finite w never gives NaN."""
        w = _vectors(w, "w")
        return self.g(generic_norm(w))

    @generic_op("particles.Interaction.factor")
    def factor(self, r2: Array | float) -> Array:
        """c(r^2) with grad g(w) = -c(||w||^2) w (see the module docstring); r2 >= 0."""
        return force_factor(_nonneg(r2, "r2"), self)

    @host_op("particles.Interaction.grad", note="log-domain repair of pair_terms")
    def grad(self, w: Array) -> Array:
        """grad g(w) = -c(||w||^2) w for vectors w of shape (..., d), float64.

        Evaluated in logarithms when ||w||^2 under- or overflows, so a finite w gives the
        finite (or, past the float64 range, infinite) gradient and never NaN.  At w = 0 a bare
        kernel has no gradient: ValueError naming ``w`` (softened/truncated kernels give 0).
        """
        w = _vectors(w, "w")
        if self.singular and w.size and bool(np.any(np.all(w == 0, axis=-1))):
            raise ValueError("w contains the zero vector, where the bare kernel "
                             f"(kind='none', s={self.s}) has no gradient; use kind='plummer' "
                             "or 'hard' (delta > 0)")
        return pair_terms(w, self)

    def g_at_zero(self) -> float:
        """g(0): finite for softened/truncated kernels and for s < 0; +inf for bare s >= 0."""
        return float(self.g(0.0))


def _nonneg(r: Array | float, name: str) -> Array:
    """``r`` as a float array of its own library (float64 unless float32) with every entry
    >= 0, else ValueError naming ``name`` and quoting the first bad value."""
    r = as_float_array(r, name, check_finite=False)
    if isinstance(r, np.ndarray):        # NumPy: float64 always (the oracle's dtype)
        r = r.astype(np.float64, copy=False)
    xp = namespace(r)
    if math.prod(r.shape) and not bool(xp.all(r >= 0)):          # NaN fails this test too
        rh = np.asarray(to_host(r))
        bad = rh[~(rh >= 0)].ravel()[0]
        raise ValueError(f"{name} must be >= 0 (a distance), got {bad!r}")
    return r


def norm(w: npt.NDArray[np.floating[Any]]) -> npt.NDArray[np.floating[Any]]:
    """||w|| over the last axis without intermediate overflow or underflow (``np.hypot``)."""
    w = np.asarray(w, dtype=np.float64)
    return np.abs(w[..., 0]) if w.shape[-1] == 1 else np.hypot.reduce(w, axis=-1)


def _vectors(w: Array, name: str) -> Array:
    """``w`` (..., d) in its own library; NumPy arrays as float64."""
    w = as_float_array(w, name, ndim=tuple(range(1, 33)))
    return w.astype(np.float64, copy=False) if isinstance(w, np.ndarray) else w


@host_op("particles.make_interaction", note="no arrays")
def make_interaction(kind: str = "none", s: float | str = 1.0, delta: float = 0.0,
                     d: int | None = None) -> Interaction:
    """Validate ``(kind, s, delta)`` and return an :class:`Interaction`.

    kind : "none" | "plummer" | "hard"
    s : real > -2, or "coulomb" (then ``d`` is required and s = d - 2)
    delta : 0 for "none"; > 0 for "plummer" and "hard"
    """
    if isinstance(kind, Interaction):
        return kind
    check_choice(kind, "kind", KINDS)
    if d is not None:
        d = check_int(d, "d", minimum=1)
    if isinstance(s, str):
        if s != "coulomb":
            raise ValueError(f"s must be a real number > -2 or 'coulomb', got {s!r}")
        if d is None:
            raise ValueError("s='coulomb' needs the dimension d (s = d - 2)")
        if d < 2:
            raise ValueError(f"d must be >= 2 for s='coulomb' (s = d - 2 > -2), got {d!r}")
        s = float(d - 2)
    return Interaction(kind, s, delta)       # validates s > -2 and delta (see __post_init__)


@host_op("particles.as_interaction", note="no arrays")
def as_interaction(kind: str | Interaction, s: float | str = 1.0, delta: float = 0.0,
                   d: int | None = None) -> Interaction:
    """``kind`` may already be an :class:`Interaction` (then s and delta are ignored)."""
    if isinstance(kind, Interaction):
        return kind
    return make_interaction(kind, s, delta, d)


def interaction_argument(value: Interaction | tuple[Any, ...] | list[Any],
                         name: str = "interaction", d: int | None = None) -> Interaction:
    """An ``interaction=`` argument: an :class:`Interaction` or a (kind, s, delta) tuple/list,
    validated; errors name ``name`` and quote the value."""
    if isinstance(value, Interaction):
        return value
    if not isinstance(value, (tuple, list)) or not 1 <= len(value) <= 3:
        raise TypeError(f"{name} must be a (kind, s, delta) tuple or an Interaction, got "
                        f"{value!r}")
    try:
        return as_interaction(*value, d=d)  # type: ignore[misc]
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{name}={tuple(value)!r}: {exc}") from None


def force_factor(r2: Array, inter: Interaction) -> Array:
    """c(r^2) = a (r^2 [+ delta^2])^{-(s+2)/2}, zero inside the hard core: THE Python definition
    of the force factor (every Python path calls it; the Numba twin is
    ``_numba_kernels.cfac``, which ``_cuda_kernels`` also compiles for the GPU).

    Generic over the array API (the result is in the library and on the device of ``r2``, in
    its dtype).  The expression per exponent family is the compiled kernels':
    p = 3/2: a/(q sqrt q); p = 1: a/q; p = 1/2: a/sqrt q; p = 2: a/(q q); else a q^-p.
    Accuracy: at most 3 roundings (one sqrt or pow, one product, one division), so a few ulps
    relative wherever c is finite and normal.
    """
    xp = namespace(r2)
    q = r2 + inter.soft2
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        fam = inter.family
        if fam == 1:
            c = inter.a / (q * xp.sqrt(q))
        elif fam == 2:
            c = inter.a / q
        elif fam == 3:
            c = inter.a / xp.sqrt(q)
        elif fam == 4:
            c = inter.a / (q * q)
        else:
            c = inter.a * q ** (-inter.p)
    if inter.kind == "hard":
        c = xp.where(r2 > inter.cut2, c, 0.0)
    return c


def generic_norm(w: Array) -> Array:
    """||w|| over the last axis of any array API array without intermediate overflow or
    underflow: hypot folded over the coordinates in order, which is what ``np.hypot.reduce``
    does, so NumPy results equal :func:`norm`'s bit for bit."""
    xp = namespace(w)
    r = xp.abs(w[..., 0])
    for j in range(1, w.shape[-1]):
        r = xp.hypot(r, w[..., j])
    return r


def pair_terms(w: Array, inter: Interaction) -> Array:
    """grad g(w) = -c(||w||^2) w for w of shape (..., d), honest where ||w||^2 leaves the
    float64 range: the plain product where every factor is finite and nonzero, else the
    same quantity in logarithms,

        log|c w_j| = log a + log|w_j| - p log(||w||^2 + soft2)   (||w|| by ``np.linalg.norm``),

    which is finite where the true value is, +-inf where it overflows and 0 where it underflows
    (relative error about u |log value|, at most ~1e-13, on that path).  A zero vector gives 0
    (for a bare kernel the caller has decided what that means).
    """
    w = np.asarray(w, dtype=np.float64)
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        r2 = np.sum(w * w, axis=-1)
        c = force_factor(r2, inter)
        out = -c[..., None] * w
        bad = ~np.isfinite(out).all(axis=-1) | ((r2 == 0) | ~np.isfinite(r2)) & np.any(w != 0,
                                                                                     axis=-1)
        if np.any(bad):
            wb = w[bad]
            nrm = norm(wb)
            logr2 = 2.0 * np.log(nrm)
            logq = np.logaddexp(logr2, np.log(inter.soft2)) if inter.soft2 > 0 else logr2
            logc = np.log(inter.a) - inter.p * logq
            if inter.kind == "hard":
                logc = np.where(nrm > inter.delta, logc, -np.inf)
            mag = np.exp(logc[..., None] + np.log(np.abs(wb)))
            out[bad] = np.where(wb == 0, 0.0, -np.sign(wb) * mag)
        out[np.all(w == 0, axis=-1)] = 0.0
    return out


def gram(omega: Array, inter: Interaction) -> Array:
    """The N x N matrix G_kl = g(omega_k - omega_l) (diagonal: g(0)); a diagnostic, O(N^2) memory.

    Used to inspect positive definiteness of each softening (algorithms.md §P2 diagnostics).
    """
    omega = np.asarray(omega, dtype=np.float64)
    if omega.ndim == 1:
        omega = omega[:, None]
    diff = omega[:, None, :] - omega[None, :, :]
    return inter.g_vec(diff)


def radial_fourier(inter: Interaction, L: float, n: int = 4096
                   ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
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
