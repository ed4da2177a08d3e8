"""The coefficients and quadrature behind the Yat feature maps (``features.yat``, module
docstring): the Maclaurin coefficients a_n of f(c) = (c + b)^2 / (2 + eps - 2c), their tail
masses in closed form, the Laplace quadrature nodes of Y8(b), and the Neyman allocation of a
feature budget over the strata of "series" and "harmonic".  Host (NumPy) scalars and vectors.
"""
from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .._registry import register
from .._validate import check_eps, check_int, check_memory, check_positive, check_real

__all__ = ["maclaurin_coefficients", "laplace_nodes"]


@register("features.maclaurin_coefficients", "reference", libraries=("numpy",),
          dtypes=("float64",), note="scalar inputs; float64 NumPy result (host)")
def maclaurin_coefficients(n_max: int, eps: float, bias: float = 0.0) -> npt.NDArray[np.float64]:
    """a_0..a_{n_max} of f(c) = (c + b)^2 / (2 + eps - 2c) = sum a_n c^n (unit vectors).

    a_n = b^2 g_n + 2 b g_{n-1} + g_{n-2}, g_n = 2^n / A^{n+1}, A = 2 + eps.  Each term is
    evaluated in logs (exp(2 ln|b| + ln g_n), ...), so no intermediate overflows or underflows
    where a_n is representable (b = 1e200, eps = 1e300 gives a_0 = 1e100); relative error of
    each term ~ (|ln g_n| + 2 |ln b|) u.  n_max >= 0 an integer, eps > 0, bias any finite real.
    """
    n_max = check_int(n_max, "n_max", minimum=0)
    eps = check_eps(eps)
    bias = check_real(bias, "bias")
    check_memory(3 * 8 * (n_max + 1), f"n_max={n_max}: {n_max + 1} Maclaurin coefficients")
    n = np.arange(n_max + 1)
    lg = n * np.log(2.0) - (n + 1) * np.log(2.0 + eps)          # ln g_n
    with np.errstate(divide="ignore"):
        lb = np.log(abs(bias))                                   # -inf at b = 0: terms vanish
    a = np.exp(2.0 * lb + lg)
    a[1:] += np.sign(bias) * np.exp(np.log(2.0) + lb + lg[:-1])
    a[2:] += np.exp(lg[:-2])
    return a


def _g_tail(N: int, A: float, eps: float) -> float:
    """sum_{n > N} g_n (with g_n = 0 for n < 0)."""
    if N < -1:
        return 1.0 / eps
    return np.exp((N + 1) * (np.log(2.0) - np.log(A))) / eps


def _tail_mass(N: int, A: float, eps: float, b: float) -> float:
    """sum_{n > N} a_n in closed form."""
    return b * b * _g_tail(N, A, eps) + 2 * b * _g_tail(N - 1, A, eps) + _g_tail(N - 2, A, eps)


@register("features.laplace_nodes", "reference", libraries=("numpy",), dtypes=("float64",),
          note="scalar inputs; float64 NumPy nodes and weights (host)")
def laplace_nodes(eps: float, r2_max: float,
                  h: float = 0.5) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Y8(b) nodes t_q and weights W_q = h t_q e^{-t_q eps}: 1/(r^2 + eps) ~= sum W_q e^{-t_q r^2}
    for 0 <= r^2 <= r2_max.

    eps > 0, r2_max >= 0 and h > 0 (finite reals); the rule has about
    (ln((eps + r2_max) / eps) + 29) / h nodes, refused up front when they would not fit in memory.
    """
    eps = check_eps(eps)
    r2_max = check_real(r2_max, "r2_max", ge=0.0)
    h = check_positive(h, "h")
    with np.errstate(divide="ignore"):      # ln(eps + r2_max) without overflow (r2_max = 0 ok)
        ln_max = float(np.logaddexp(np.log(eps), np.log(r2_max)))
    lo, hi = -ln_max - 25.0, -np.log(eps) + 4.0 + h / 2
    count = (hi - lo) / h + 1
    check_memory(3 * 8 * count, f"{count:.3g} quadrature nodes (h={h!r})",
                 alternative="a larger h (0.5 gives relative error ~5e-8)")
    tau = np.arange(lo, hi, h)
    t = np.exp(tau)
    return t, h * t * np.exp(-t * eps)


def _largest_remainder(weights: np.ndarray, total: int, minimum: int = 1) -> np.ndarray:
    k = len(weights)
    if total < minimum * k:
        raise ValueError(f"num_features is too small: the method needs at least {minimum * k} "
                         "random features here")
    share = weights / weights.sum() * (total - minimum * k)
    m = np.floor(share).astype(int)
    m[np.argsort(-(share - m), kind="stable")[: total - minimum * k - m.sum()]] += 1
    return m + minimum


_N_HI = 64      # highest Maclaurin degree given its own stratum


def _neyman_plan(a, base, budget, eps, b):
    """Neyman allocation of ``budget`` random features over the strata ``base`` (label, weight
    w_s sqrt(v_s), degree), the exact-degree strata n = 3..n_cut and the tail n > n_cut.

    Minimises the modelled variance sum_s w_s^2 v_s / m_s: m_s proportional to w_s sqrt(v_s),
    at least one feature each; n_cut is the last degree whose share is >= 1 feature.
    Returns (strata, m, modelled variance).
    """
    A = 2.0 + eps
    total = sum(s[1] for s in base) + _tail_mass(2, A, eps, b)
    n_cut = 2
    while n_cut < _N_HI and a[n_cut + 1] * budget / total >= 1.0:
        n_cut += 1
    strata = base + [("deg", a[n], n) for n in range(3, n_cut + 1)]
    strata.append(("tail", _tail_mass(n_cut, A, eps, b), n_cut))
    w = np.array([s[1] for s in strata])
    m = _largest_remainder(w, budget)
    return strata, m, float((w ** 2 / m).sum())
