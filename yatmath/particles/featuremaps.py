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
(``logaddexp``, ``scipy.special.expit`` or its expression 1/(1 + exp(-t))), so values and VJPs
have a few ulps of relative error.

Array libraries: :func:`features` and :func:`features_vjp` are written once against the array
API standard; X, Omega, b, G of one library (NumPy, CuPy, PyTorch, JAX, ``array_api_strict``)
give float64 results in it, on its device, and NumPy gives the same bits as before the generic
rewrite.  :func:`orthogonal_init` draws on the host (NumPy's Generator, QR).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.special import expit

from .._array import as_float64, device_of, namespace
from .._typing import Array, RNGLike
from ._arrays import generic_op, host_op
from .._validate import as_float_array, as_rng, check_choice, check_int, check_positive

MAPS = ("rff", "favor", "elu1", "softplus", "sigmoid2", "softmaxfeat", "cos2")
SEPARABLE = ("rff", "favor")
_USES_B = ("rff", "elu1", "cos2")


def _float64(A: Any, name: str, ndim: int | tuple[int, ...]) -> Array:
    return as_float64(as_float_array(A, name, ndim=ndim))


def _check(X: Array, Omega: Array, b: Array | None, kind: str) -> tuple[Array, Array, Array]:
    """Validated float64 (X, Omega, b) of one array library (TypeError naming the libraries
    otherwise); b = zeros when None."""
    check_choice(kind, "kind", MAPS)
    X = _float64(X, "X", 2)
    Omega = _float64(Omega, "Omega", 2)
    if Omega.shape[0] == 0:
        raise ValueError(f"Omega must hold at least one particle (row), got shape "
                         f"{tuple(Omega.shape)}")
    if X.shape[1] != Omega.shape[1]:
        raise ValueError(f"X and Omega must have the same number of columns d, got "
                         f"X.shape={tuple(X.shape)} and Omega.shape={tuple(Omega.shape)}")
    M = Omega.shape[0]
    if b is None:
        xp = namespace(X, Omega)
        b = xp.zeros(M, dtype=xp.float64, device=device_of(Omega))
    else:
        b = _float64(b, "b", 1)
        if b.shape[0] != M:
            raise ValueError(f"b must have length M={M} (one phase per particle), got "
                             f"{tuple(b.shape)}")
    namespace(X, Omega, b)          # one library (TypeError naming them otherwise)
    return X, Omega, b


def _expit(T: Array) -> Array:
    """The logistic function 1/(1 + exp(-T)): ``scipy.special.expit`` for NumPy, the same
    expression (SciPy's own, overflow-safe in IEEE: exp(-T) = inf gives 0) for the others."""
    if isinstance(T, np.ndarray):
        return expit(T)
    xp = namespace(T)
    return 1.0 / (1.0 + xp.exp(-T))


def _pre(X: Array, Omega: Array, b: Array, kind: str, tau: float,
         floor: float) -> tuple[Array, Array, Array]:
    """Pre-renormalisation values a (n, M) and da/dt (n, M), with t the map's argument."""
    xp = namespace(X)
    if kind in ("rff", "cos2"):
        A = X @ Omega.T + b
        if kind == "rff":
            return math.sqrt(2.0) * xp.cos(A), -math.sqrt(2.0) * xp.sin(A), A
        return xp.cos(A) ** 2, -xp.sin(2.0 * A), A
    if kind == "favor":
        A = X @ Omega.T - 0.5 * xp.sum(X * X, axis=1)[:, None]
        e = xp.exp(A)
        return e, e, A
    T = X @ Omega.T / tau
    if kind == "elu1":
        T = T + b
        e = xp.where(T > 0, T + 1.0, xp.exp(xp.minimum(T, 0.0)))
        de = xp.where(T > 0, 1.0, xp.exp(xp.minimum(T, 0.0)))
        a = xp.maximum(e, floor)
        return a, xp.where(e > floor, de, 0.0), T
    if kind == "softplus":
        return xp.logaddexp(0.0, T) + floor, _expit(T), T
    if kind == "sigmoid2":
        sg = _expit(T)
        return sg * sg, 2.0 * sg * sg * (1.0 - sg), T
    raise AssertionError(kind)


_FEATURES_KIND = {"favor": "favor", "elu1": "elu+1", "softplus": "softplus",
                  "sigmoid2": "sigmoid2", "softmaxfeat": "softmaxfeat", "cos2": "cos2"}


@generic_op("particles.features", dtypes=("float64",),
            note="generic; the App D maps (not rff) are evaluated by "
            "yatmath.features.PositiveFeatures, which keeps Omega and b as host copies: for "
            "another library they make one (M, d) round trip per call, the (n, M) evaluation "
            "stays on the device")
def features(X: Array, Omega: Array, b: Array | None = None, *, kind: str = "rff",
             tau: float = 1.0, floor: float = 1e-6) -> Array:
    """Phi (n, M) with Phi[i, k] = phi_{omega_k}(x_i) for the map ``kind`` (see module table).

    The App D maps are evaluated by :class:`yatmath.features.PositiveFeatures` (one definition
    of each formula; FAVOR is rescaled by sqrt(M) to the per-particle convention); ``"rff"``
    is the per-particle sqrt(2) cos(omega.x + b) of 004 §2.  X, Omega, b of one array API
    library; Phi is float64 in that library, on its device (NumPy: the same bits as ever).
    """
    X, Omega, b = _check(X, Omega, b, kind)
    tau = check_positive(tau, "tau")
    floor = check_positive(floor, "floor")
    M, d = Omega.shape
    xp = namespace(X)
    if kind == "rff":
        return math.sqrt(2.0) * xp.cos(X @ Omega.T + b)
    from ..features import PositiveFeatures

    bias = b if kind in _USES_B else None
    fmap = PositiveFeatures(d, M, _FEATURES_KIND[kind], tau=tau, floor=floor, omega=Omega.T,
                            bias=bias, rng=0)
    Phi = fmap(X)
    return math.sqrt(M) * Phi if kind == "favor" else Phi


@generic_op("particles.features_vjp", dtypes=("float64",),
            note="generic; scipy.special.expit for NumPy, its "
            "expression 1/(1+exp(-t)) elsewhere")
def features_vjp(X: Array, Omega: Array, b: Array | None, G: Array, *, kind: str = "rff",
                 tau: float = 1.0, floor: float = 1e-6) -> tuple[Array, Array]:
    """(dL/dOmega (M, d), dL/db (M,)) for L with dL/dPhi = G (n, M).  dL/db is zero for maps
    without phases (favor, softplus, sigmoid2, softmaxfeat) and for cos2 (fixed phases).
    Arrays of one array API library; the result is float64 in it, on its device."""
    X, Omega, b = _check(X, Omega, b, kind)
    tau = check_positive(tau, "tau")
    floor = check_positive(floor, "floor")
    G = _float64(G, "G", 2)
    xp = namespace(X, G)
    n, M = X.shape[0], Omega.shape[0]
    if tuple(G.shape) != (n, M):
        raise ValueError(f"G must have shape (n, M)={(n, M)}, got {tuple(G.shape)}")
    dev = device_of(X)
    if kind == "softmaxfeat":
        T = X @ Omega.T / tau
        T = T - xp.max(T, axis=1, keepdims=True)
        E = xp.exp(T)
        sm = E / xp.sum(E, axis=1, keepdims=True)
        dT = math.sqrt(M) * sm * (G - xp.sum(G * sm, axis=1, keepdims=True))
        return dT.T @ X / tau, xp.zeros(M, dtype=xp.float64, device=dev)
    a, da, _ = _pre(X, Omega, b, kind, tau, floor)
    if kind in SEPARABLE:
        dA = G
    else:
        S = xp.sum(a, axis=1, keepdims=True)
        if kind == "cos2":
            guard = xp.astype(S > floor, xp.float64)
            S = xp.maximum(S, floor)
        else:
            guard = xp.ones_like(S)
        dA = math.sqrt(M) * (G / S - guard * xp.sum(G * a, axis=1, keepdims=True) / S ** 2)
    dT = dA * da                                  # dL/dt, t the map's argument
    scale = 1.0 / tau if kind in ("elu1", "softplus", "sigmoid2") else 1.0
    dOmega = dT.T @ X * scale
    db = xp.sum(dT, axis=0) if kind in ("rff", "elu1") else xp.zeros(M, dtype=xp.float64,
                                                                        device=dev)
    return dOmega, db


@host_op("particles.orthogonal_init", note="numpy.random.Generator, numpy.linalg.qr")
def orthogonal_init(M: int, d: int, rng: RNGLike, sigma: float = 1.0) -> Array:
    """PORF initialisation (algorithms.md §R2): stacked orthogonal blocks with chi(d) norms.

    M >= 1 rows, d >= 1 columns, sigma > 0; rng per :func:`yatmath._validate.as_rng`."""
    M = check_int(M, "M", minimum=1)
    d = check_int(d, "d", minimum=1)
    sigma = check_positive(sigma, "sigma")
    r = as_rng(rng)
    rows: list[np.ndarray] = []
    while sum(len(x) for x in rows) < M:
        Q, R = np.linalg.qr(r.standard_normal((d, d)))
        Q = Q * np.sign(np.diag(R))
        norms = np.sqrt(r.chisquare(d, size=d))
        rows.append((norms[:, None] * Q) / sigma)
    return np.concatenate(rows)[:M]
