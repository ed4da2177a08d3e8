r"""The spherical (Mercer) expansion of the Yat kernel on unit vectors, degrees 0-2.

For unit q, k in R^d (d >= 2) the Yat kernel with inner bias b is a dot-product kernel,
K = f(c) = (c + b)^2 / (A - 2c), c = q.k, A = 2 + eps.  Its Mercer expansion with respect to the
uniform measure sigma on the sphere is (Funk-Hecke / the addition theorem)

    f(q.k) = sum_n lambda_n P_n(q.k) = sum_n mu_n sum_{i=1}^{N_n} Y_{n,i}(q) Y_{n,i}(k),

P_n the Gegenbauer polynomial normalised to P_n(1) = 1, Y_{n,i} an orthonormal basis (in
L2(sigma)) of the degree-n spherical harmonics, N_0 = 1, N_1 = d, N_2 = (d+2)(d-1)/2, and the
per-function eigenvalue mu_n = lambda_n / N_n.  Here P_1(c) = c and P_2(c) = (d c^2 - 1)/(d - 1).

Coefficients.  With c distributed as q.k for independent uniform q, k, the even moments are
m_j = E[c^{2j}] = (1/2)_j / (d/2)_j, and with g = 1/(A - 2c) = (1/A) sum_n (2c/A)^n,

    G_k := E[c^k g] = (1/A) (2/A)^p m_{j0} 2F1(1/2 + j0, 1; d/2 + j0; 4/A^2),
    p = k mod 2,  j0 = (k + p)/2,

so lambda_0 = E[f], lambda_1 = d E[c f], lambda_2 = N_2 E[P_2 f] = (d+2)/2 (d E[c^2 f] - E[f]),
each a combination of G_0..G_4 (f = (c^2 + 2bc + b^2) g).  The mean square of f over pairs is
E[f^2] = sum_n lambda_n^2 / N_n, from E[c^k g^2] = -dG_k/dA.  Everything is evaluated with mpmath
at 40 significant digits (the hypergeometric series converges slowly as eps -> 0, where
4/A^2 -> 1, and mpmath continues it analytically; the subtraction in lambda_2 loses up to
log10(d) digits), then rounded to float64: the returned values are correct to a few units in
the last place.  ``tests/features/test_spherical.py`` checks them against direct quadrature.

Degree-2 harmonics used by the map.  For z in R^d, with E over sigma:
    Y_ij(z) = sqrt(d (d+2)) z_i z_j            (i < j; E[z_i^2 z_j^2] = 1/(d(d+2))),
    Y_u(z)  = sqrt(d (d+2) / 2) sum_k u_k z_k^2 (u a row of the Helmert basis of 1-perp),
and sum over all N_2 of them of Y(q) Y(k) = N_2 P_2(q.k).
"""
from __future__ import annotations

import math
from typing import Any

import mpmath
import numpy as np
import numpy.typing as npt
from scipy.linalg import helmert

from .._typing import Array, Namespace

__all__ = ["harmonic_dims", "gegenbauer_coefficients", "degree2_basis", "degree2_harmonics"]


def harmonic_dims(d: int) -> tuple[int, int, int]:
    """(N_0, N_1, N_2): dimensions of the degree-0, 1, 2 spherical harmonics on S^{d-1}."""
    return 1, d, (d + 2) * (d - 1) // 2


def gegenbauer_coefficients(d: int, eps: float,
                            bias: float = 0.0) -> tuple[float, float, float, float]:
    """(lambda_0, lambda_1, lambda_2, E[f^2]) for f(c) = (c + b)^2 / (2 + eps - 2c) on S^{d-1}.

    lambda_n >= 0 (Schoenberg: f has nonnegative Maclaurin coefficients for b >= 0); E[f^2] is
    the mean square of K(q, k) over independent uniform unit q, k.
    """
    if d < 2:
        raise ValueError(f"d must be >= 2 for the spherical expansion, got {d}")
    with mpmath.workdps(40):
        b, dd = mpmath.mpf(bias), mpmath.mpf(d)

        def m(j: int) -> Any:
            return mpmath.rf(mpmath.mpf(1) / 2, j) / mpmath.rf(dd / 2, j)

        def G(k: int, A: Any) -> Any:
            p = k % 2
            j0 = (k + p) // 2
            z = 4 / A ** 2
            return (2 / A) ** p / A * m(j0) * mpmath.hyp2f1(mpmath.mpf(1) / 2 + j0, 1,
                                                              dd / 2 + j0, z)

        A = 2 + mpmath.mpf(eps)
        Gk = [G(k, A) for k in range(5)]
        dGk = [mpmath.diff(lambda a, k=k: G(k, a), A) for k in range(5)]

        def expect(k: int) -> Any:          # E[c^k f]
            return Gk[k + 2] + 2 * b * Gk[k + 1] + b * b * Gk[k]

        lam0 = expect(0)
        lam1 = dd * expect(1)
        lam2 = (dd + 2) / 2 * (dd * expect(2) - lam0)
        binom = (1, 4, 6, 4, 1)
        ef2 = -sum(binom[k] * b ** (4 - k) * dGk[k] for k in range(5))
        return float(lam0), float(lam1), max(float(lam2), 0.0), float(ef2)


def degree2_basis(d: int) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp],
                                   npt.NDArray[np.float64]]:
    """The canonical list of the N_2 degree-2 harmonics: (I, J) index pairs i < j and the Helmert
    rows U ((d-1) x d); harmonic h < len(I) is a pair, h >= len(I) is row h - len(I) of U."""
    I, J = np.triu_indices(d, k=1)
    return I, J, helmert(d, full=False)


def degree2_harmonics(Z: Array, I: Array, J: Array, U: Array, xp: Namespace = np) -> Array:
    """Orthonormal degree-2 harmonics of the rows of Z (n, d): pairs (I, J), then rows of U.

    Array API standard (``xp.take``, ``xp.concat``): Z, I, J, U are arrays of namespace ``xp``
    (I, J integer index vectors, U (k, d)); the result is (n, len(I) + k) in that namespace.
    """
    d = Z.shape[1]
    cols = []
    if I.shape[0]:
        cols.append(math.sqrt(d * (d + 2.0)) * xp.take(Z, I, axis=1) * xp.take(Z, J, axis=1))
    if U.shape[0]:
        cols.append(math.sqrt(d * (d + 2.0) / 2.0) * ((Z * Z) @ U.T))
    return xp.concat(cols, axis=1) if len(cols) > 1 else cols[0]
