"""Per-particle feature maps phi_{omega_k}(x) of 004 (RFF, eq.2.1) and App D, with exact VJPs.

Values of the App D maps come from :mod:`yatmath.features` (algorithms.md §R4); this module
adds the per-particle conventions and the exact vector-Jacobian products the Langevin drift
needs (``yatmath.features`` has no gradients).  Conventions:

* particles are rows: ``Omega`` has shape (M, d), phases ``b`` shape (M,); data ``X`` is (n, d);
* :func:`features` returns the matrix ``Phi`` (n, M) with Phi[i, k] = phi_k(x_i), and the
  empirical kernel is K = Phi Phi^T / M (the 1/N of 004 eq.2.2);
* :func:`features_vjp` returns (dL/dOmega, dL/db) given G = dL/dPhi, exactly (no autodiff).

Maps (t = omega.x / tau; "renorm" means phi_k = sqrt(M) a_k / S with S = sum_l a_l):

=============  ======================================  ==========================================
``"rff"``      sqrt(2) cos(omega.x + b)                separable; b uniform on [0, 2 pi)
``"favor"``    exp(omega.x - ||x||^2/2)                separable (R3 without the M^{-1/2})
``"elu1"``     a = max(1 + ELU(t + b), floor)          renorm
``"softplus"`` a = softplus(t) + floor                 renorm (also PORF-softplus, other init)
``"sigmoid2"`` a = logistic(t)^2                       renorm
``"softmaxfeat"`` phi = sqrt(M) softmax(Omega x / tau) per token
``"cos2"``     a = cos(omega.x + b)^2, fixed b         renorm with S = max(sum a, floor)
=============  ======================================  ==========================================

Separable maps give a per-particle potential V_D(omega_k) (algorithms.md §P1); for the
renormalised maps the objective couples all particles and only the total gradient exists.

Accuracy: float64 throughout; softplus and logistic use the overflow-safe forms
(``np.logaddexp``, ``scipy.special.expit``), so values and VJPs have a few ulps of relative error.
"""
from __future__ import annotations

import numpy as np
from scipy.special import expit

from ._arrays import host_op
from .._validate import as_float_array, as_rng, check_choice, check_int, check_positive

MAPS = ("rff", "favor", "elu1", "softplus", "sigmoid2", "softmaxfeat", "cos2")
SEPARABLE = ("rff", "favor")
_USES_B = ("rff", "elu1", "cos2")


def _check(X, Omega, b, kind):
    check_choice(kind, "kind", MAPS)
    X = as_float_array(X, "X", ndim=2).astype(np.float64)
    Omega = as_float_array(Omega, "Omega", ndim=2).astype(np.float64)
    if Omega.shape[0] == 0:
        raise ValueError(f"Omega must hold at least one particle (row), got shape {Omega.shape}")
    if X.shape[1] != Omega.shape[1]:
        raise ValueError(f"X and Omega must have the same number of columns d, got "
                         f"X.shape={X.shape} and Omega.shape={Omega.shape}")
    M = Omega.shape[0]
    if b is None:
        b = np.zeros(M)
    else:
        b = as_float_array(b, "b", ndim=1).astype(np.float64)
        if b.shape[0] != M:
            raise ValueError(f"b must have length M={M} (one phase per particle), got {b.shape}")
    return X, Omega, b


def _pre(X, Omega, b, kind, tau, floor):
    """Pre-renormalisation values a (n, M) and da/dt (n, M), with t the map's argument."""
    if kind in ("rff", "cos2"):
        A = X @ Omega.T + b
        if kind == "rff":
            return np.sqrt(2.0) * np.cos(A), -np.sqrt(2.0) * np.sin(A), A
        return np.cos(A) ** 2, -np.sin(2.0 * A), A
    if kind == "favor":
        A = X @ Omega.T - 0.5 * np.sum(X * X, axis=1)[:, None]
        e = np.exp(A)
        return e, e, A
    T = X @ Omega.T / tau
    if kind == "elu1":
        T = T + b
        e = np.where(T > 0, T + 1.0, np.exp(np.minimum(T, 0.0)))
        de = np.where(T > 0, 1.0, np.exp(np.minimum(T, 0.0)))
        a = np.maximum(e, floor)
        return a, np.where(e > floor, de, 0.0), T
    if kind == "softplus":
        return np.logaddexp(0.0, T) + floor, expit(T), T
    if kind == "sigmoid2":
        sg = expit(T)
        return sg * sg, 2.0 * sg * sg * (1.0 - sg), T
    raise AssertionError(kind)


_FEATURES_KIND = {"favor": "favor", "elu1": "elu+1", "softplus": "softplus",
                  "sigmoid2": "sigmoid2", "softmaxfeat": "softmaxfeat", "cos2": "cos2"}


@host_op("particles.features")
def features(X, Omega, b=None, *, kind="rff", tau=1.0, floor=1e-6):
    """Phi (n, M) with Phi[i, k] = phi_{omega_k}(x_i) for the map ``kind`` (see module table).

    The App D maps are evaluated by :class:`yatmath.features.PositiveFeatures` (one definition
    of each formula; FAVOR is rescaled by sqrt(M) to the per-particle convention); ``"rff"``
    is the per-particle sqrt(2) cos(omega.x + b) of 004 §2.
    """
    X, Omega, b = _check(X, Omega, b, kind)
    tau = check_positive(tau, "tau")
    floor = check_positive(floor, "floor")
    M, d = Omega.shape
    if kind == "rff":
        return np.sqrt(2.0) * np.cos(X @ Omega.T + b)
    from ..features import PositiveFeatures

    bias = b if kind in _USES_B else None
    fmap = PositiveFeatures(d, M, _FEATURES_KIND[kind], tau=tau, floor=floor, omega=Omega.T,
                            bias=bias, rng=0)
    Phi = fmap(X)
    return np.sqrt(M) * Phi if kind == "favor" else Phi


@host_op("particles.features_vjp")
def features_vjp(X, Omega, b, G, *, kind="rff", tau=1.0, floor=1e-6):
    """(dL/dOmega (M, d), dL/db (M,)) for L with dL/dPhi = G (n, M).  dL/db is zero for maps
    without phases (favor, softplus, sigmoid2, softmaxfeat) and for cos2 (fixed phases)."""
    X, Omega, b = _check(X, Omega, b, kind)
    tau = check_positive(tau, "tau")
    floor = check_positive(floor, "floor")
    G = as_float_array(G, "G", ndim=2).astype(np.float64)
    n, M = X.shape[0], Omega.shape[0]
    if G.shape != (n, M):
        raise ValueError(f"G must have shape (n, M)={(n, M)}, got {G.shape}")
    if kind == "softmaxfeat":
        T = X @ Omega.T / tau
        T = T - T.max(axis=1, keepdims=True)
        E = np.exp(T)
        sm = E / E.sum(axis=1, keepdims=True)
        dT = np.sqrt(M) * sm * (G - np.sum(G * sm, axis=1, keepdims=True))
        return dT.T @ X / tau, np.zeros(M)
    a, da, _ = _pre(X, Omega, b, kind, tau, floor)
    if kind in SEPARABLE:
        dA = G
    else:
        S = a.sum(axis=1, keepdims=True)
        guard = np.ones_like(S)
        if kind == "cos2":
            guard = (S > floor).astype(np.float64)
            S = np.maximum(S, floor)
        dA = np.sqrt(M) * (G / S - guard * np.sum(G * a, axis=1, keepdims=True) / S ** 2)
    dT = dA * da                                  # dL/dt, t the map's argument
    scale = 1.0 / tau if kind in ("elu1", "softplus", "sigmoid2") else 1.0
    dOmega = dT.T @ X * scale
    db = dT.sum(axis=0) if kind in ("rff", "elu1") else np.zeros(M)
    return dOmega, db


@host_op("particles.orthogonal_init", note="numpy.random.Generator, numpy.linalg.qr")
def orthogonal_init(M: int, d: int, rng, sigma: float = 1.0):
    """PORF initialisation (algorithms.md §R2): stacked orthogonal blocks with chi(d) norms.

    M >= 1 rows, d >= 1 columns, sigma > 0; rng per :func:`yatmath._validate.as_rng`."""
    M = check_int(M, "M", minimum=1)
    d = check_int(d, "d", minimum=1)
    sigma = check_positive(sigma, "sigma")
    r = as_rng(rng)
    rows = []
    while sum(len(x) for x in rows) < M:
        Q, R = np.linalg.qr(r.standard_normal((d, d)))
        Q = Q * np.sign(np.diag(R))
        norms = np.sqrt(r.chisquare(d, size=d))
        rows.append((norms[:, None] * Q) / sigma)
    return np.concatenate(rows)[:M]
