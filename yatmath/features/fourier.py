"""Random Fourier features (R1) and orthogonal random frequencies (R2).

Gaussian kernel  k(x, y) = exp(-gamma ||x - y||^2),  gamma > 0.  By Bochner's theorem
k(x, y) = E_omega[cos(omega . (x - y))] with omega ~ N(0, 2 gamma I_d).

* Phase form (``form="phase"``): z(x) = sqrt(2/F) cos(Omega^T x + beta), beta ~ U[0, 2 pi]; F
  features, one frequency each.  The single-feature estimator 2 cos(w.x+b) cos(w.y+b) has
  variance 1 + k(2 delta)/2 - k(delta)^2 (delta = x - y), so the F-feature estimate has variance
  that over F.
* sin/cos form (``form="sincos"``): z(x) = M^{-1/2} [cos(Omega^T x); sin(Omega^T x)] with
  M = F/2 frequencies; z(x).z(y) = M^{-1} sum_i cos(omega_i . (x - y)) exactly, variance
  (1 + k(2 delta) - 2 k(delta)^2) / (2 M) per the same count of features: never larger than
  the phase form at equal F.
* Orthogonal frequencies (R2, Yu et al. 2016, ``orthogonal=True``): blocks of d rows of a
  Haar-random orthogonal matrix, each row rescaled by an independent chi(d) norm, so each row
  is marginally N(0, I) (the estimator stays unbiased) while rows within a block are exactly
  orthogonal; the variance is lower than i.i.d. frequencies for every d (asymptotically) and is
  measured in the tests.
"""
from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from scipy.spatial.distance import cdist

from .._array import at_host_boundary, caller, parameter
from .._registry import choose, register
from .._typing import Array, RNGLike
from .._validate import (as_float_array, as_rng, check_bool, check_choice, check_int,
                         check_memory, check_positive, check_same_last_dim)
from ._common import FeatureMap, frozen

HOST_DRAW = ("draws on the host with NumPy's Generator (the seed rule); returns float64 NumPy "
             "arrays, which the maps move to the caller's namespace and device")

__all__ = ["gaussian_frequencies", "orthogonal_gaussian", "rff", "RandomFourierFeatures",
           "gaussian_kernel"]


@register("features.orthogonal_gaussian", "reference", libraries=("numpy",), dtypes=("float64",),
          note=HOST_DRAW)
def orthogonal_gaussian(d: int, m: int, *, rng: RNGLike = None) -> npt.NDArray[np.float64]:
    """(m, d) rows that are marginally N(0, I_d), orthogonal within blocks of d rows (R2).

    Each block: G ~ N(0,1)^{d x d}; Q R = G; Q <- Q diag(sign(diag R)) (Haar); rows scaled by
    s_i ~ chi(d).  Blocks are independent and the stack is truncated to m rows.
    ``rng``: None, a non-negative int seed, a SeedSequence or a Generator (``as_rng``).
    """
    d = check_int(d, "d", minimum=1)
    m = check_int(m, "m", minimum=0)
    check_memory(8 * (m + 2 * d) * d, f"m={m} frequencies in dimension d={d}")
    g = as_rng(rng)
    blocks = []
    for _ in range(-(-m // d)):
        Q, R = np.linalg.qr(g.standard_normal((d, d)))
        Q = Q * np.sign(np.diag(R))[None, :]
        s = np.sqrt(g.chisquare(d, size=d))
        blocks.append(s[:, None] * Q.T)
    if not blocks:
        return np.zeros((0, d))
    return np.concatenate(blocks, axis=0)[:m]


@register("features.gaussian_frequencies", "reference", libraries=("numpy",),
          dtypes=("float64",), note=HOST_DRAW)
def gaussian_frequencies(d: int, m: int, *, scale: float = 1.0, orthogonal: bool = False,
                         rng: RNGLike = None) -> npt.NDArray[np.float64]:
    """(m, d) frequencies omega_i ~ N(0, scale^2 I) (i.i.d., or R2 orthogonal blocks); scale > 0."""
    d = check_int(d, "d", minimum=1)
    m = check_int(m, "m", minimum=0)
    scale = check_positive(scale, "scale")
    orthogonal = check_bool(orthogonal, "orthogonal")
    g = as_rng(rng)
    if orthogonal:
        W = orthogonal_gaussian(d, m, rng=g)
    else:
        check_memory(8 * m * d, f"m={m} frequencies in dimension d={d}")
        W = g.standard_normal((m, d))
    return scale * W


def gaussian_kernel(X: Array, Y: Array, gamma: float) -> Array:
    """exp(-gamma ||x_i - y_j||^2) as an (n, m) float64 array, gamma > 0.

    X (n, d) and Y (m, d) are 2-D arrays with the same d, of one array library; the result is
    that library's array on the inputs' device.  The squared distances are the direct sums of
    squared differences (``scipy.spatial.distance.cdist``, "sqeuclidean": no cancellation as
    x -> y, relative error ~ d u), so each entry has relative error ~ (gamma ||x - y||^2 + 1) d u.
    A distance that overflows (coordinates ~1e154 apart) gives exactly 0, the true value to
    float64 precision.  cdist is SciPy (host only): non-NumPy inputs are copied to the host and
    the result back to the caller's library and device.
    """
    X = as_float_array(X, "X", ndim=2)
    Y = as_float_array(Y, "Y", ndim=2)
    check_same_last_dim(X, Y, "X", "Y")
    gamma = check_positive(gamma, "gamma")
    check_memory(8 * X.shape[0] * Y.shape[0], f"the dense ({X.shape[0]}, {Y.shape[0]}) Gaussian "
                 "kernel matrix", alternative="random Fourier features (rff) or row blocks of X")
    impl = choose("features.gaussian_kernel", "auto", caller(X, Y).library)
    return impl(X, Y, gamma)


@register("features.gaussian_kernel", "reference", dtypes=("float64",),
          note="scipy cdist on the host: other libraries' arrays are copied to NumPy and the "
               "float64 result back to the caller's library and device")
def _gaussian_kernel(X, Y, gamma):
    return at_host_boundary(_gaussian_kernel_host, (X, Y, gamma), {})


def _gaussian_kernel_host(X, Y, gamma):
    """exp(-gamma cdist(X, Y, "sqeuclidean")) for NumPy X, Y (the float64 reference)."""
    with np.errstate(over="ignore"):
        D = cdist(X.astype(np.float64, copy=False), Y.astype(np.float64, copy=False),
                  "sqeuclidean")
        return np.exp(-gamma * D)


@register("features.RandomFourierFeatures.__call__", "reference",
          note="generic; float64 evaluation, result in the input's dtype")
def _rff_apply(self, X, c):
    """z(X) on a validated (n, d) float64 array of the caller ``c`` (array API standard)."""
    xp = c.xp
    proj = X @ parameter(self, self.omega, c).T
    if self.form == "phase":
        return math.sqrt(2.0 / self.num_features) * xp.cos(proj + parameter(self, self.phase, c))
    m = self.omega.shape[0]
    return xp.concat([xp.cos(proj), xp.sin(proj)], axis=1) / math.sqrt(m)


@register("features.RandomFourierFeatures.__call__", "cupy", libraries=("cupy",), device="gpu",
          host_input=True,
          note="one matmul X @ Omega^T, then one fused numba-cuda epilogue (_cuda_features: "
               "phase or sin/cos, scaled, written once in the input's dtype)")
def _rff_cupy(self, X, c):
    """z(X) on the device: the reference's product ``X @ Omega^T`` (cuBLAS), then one kernel of
    ``_cuda_features`` for the cos/sin, the phases and the scale (the result in ``c.dtype``,
    the input's dtype, stored by the kernel)."""
    from . import _cuda_features as cf

    here = caller(X)            # the device copy's caller (host_input moves NumPy input there)
    proj = X @ parameter(self, self.omega, here).T
    if self.form == "phase":
        return cf.phase_map(proj, parameter(self, self.phase, here),
                            math.sqrt(2.0 / self.num_features), c.dtype)
    return cf.sincos_map(proj, math.sqrt(self.omega.shape[0]), c.dtype)


class RandomFourierFeatures(FeatureMap):
    """R1: E[z(x) . z(y)] = exp(-gamma ||x - y||^2) (see the module docstring for the variance).

    Frequencies and phases are drawn at construction with NumPy's Generator (``as_rng``), so
    the same seed gives the same map on every array library; ``phi(X)`` returns X's library.
    """

    _op = "features.RandomFourierFeatures.__call__"

    def __init__(self, d: int, num_features: int, *, gamma: float = 1.0, form: str = "phase",
                 orthogonal: bool = False, rng: RNGLike = None) -> None:
        self.d = check_int(d, "d", minimum=1)
        self.num_features = check_int(num_features, "num_features", minimum=1)
        self.gamma = check_positive(gamma, "gamma")
        check_choice(form, "form", ("phase", "sincos"))
        orthogonal = check_bool(orthogonal, "orthogonal")
        if form == "sincos" and self.num_features % 2:
            raise ValueError(f"num_features must be even for form='sincos', got {num_features}")
        g = as_rng(rng)
        m = self.num_features if form == "phase" else self.num_features // 2
        self.omega = frozen(gaussian_frequencies(self.d, m, scale=np.sqrt(2 * self.gamma),
                                                 orthogonal=orthogonal, rng=g))
        self.phase = frozen(g.uniform(0.0, 2 * np.pi, size=m)) if form == "phase" else None
        self.form = form
        self.params = {"gamma": self.gamma, "form": form, "orthogonal": bool(orthogonal)}

    def kernel(self, X: Array, Y: Array) -> Array:
        """The exact kernel exp(-gamma ||x - y||^2) for X (n, d), Y (m, d) (``gaussian_kernel``;
        any array library, result in the inputs' library)."""
        return self._kernel_call("features.RandomFourierFeatures.kernel", X, Y)


@register("features.RandomFourierFeatures.kernel", "reference", dtypes=("float64",),
          note="= features.gaussian_kernel (scipy cdist on the host)")
def _rff_kernel(self, X, Y):
    return gaussian_kernel(X, Y, self.gamma)


@register("features.rff", "reference", libraries=("numpy",), dtypes=("float64",), note=HOST_DRAW)
def rff(d: int, num_features: int, *, gamma: float = 1.0, form: str = "phase",
        orthogonal: bool = False, rng: RNGLike = None) -> RandomFourierFeatures:
    """Random Fourier features for exp(-gamma ||x - y||^2); see ``RandomFourierFeatures``."""
    return RandomFourierFeatures(d, num_features, gamma=gamma, form=form, orthogonal=orthogonal,
                                 rng=rng)


# ---------------------------------------------------------------------------------------------
# Reference kernels used by the kernel-theory checks of the ledger (claims.md A2): the inverse
# multiquadric and its Fourier transform, and the arc-cosine kernel of order 1.


def imq_kernel(X: npt.ArrayLike, Y: npt.ArrayLike, eps: float) -> npt.NDArray[np.float64]:
    """Inverse multiquadric 1 / (||x_i - y_j||^2 + eps) as an (n, m) float64 array (eps > 0)."""
    eps = check_positive(eps, "eps")
    X = np.atleast_2d(np.asarray(X, dtype=np.float64))
    Y = np.atleast_2d(np.asarray(Y, dtype=np.float64))
    return 1.0 / (((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1) + eps)


def imq_fourier_transform(rho: npt.ArrayLike, d: int,
                          eps: float) -> float | npt.NDArray[np.float64]:
    """Fourier transform of the IMQ (||x||^2 + eps)^-1 on R^d at radius rho = ||xi|| > 0.

    Convention f^(xi) = int f(x) exp(-i x.xi) dx.  Computed from the Laplace mixture
    1/a = int_0^inf exp(-t a) dt and the Gaussian transform, with no Bessel function:

        FT(rho) = pi^{d/2} int_0^inf t^{-d/2} exp(-eps t - rho^2 / (4 t)) dt,

    by adaptive quadrature in tau = ln t (smooth, doubly-exponentially decaying integrand),
    relative accuracy ~1e-12.  For d >= 2 the IMQ is not in L^1(R^d) and this is its transform
    as a tempered distribution, a function finite for rho > 0.  ``rho`` may be a scalar (returns
    a float) or an array (returns an array of the same shape).
    """
    import math

    from scipy import integrate

    d = check_int(d, "d", minimum=1)
    eps = check_positive(eps, "eps")
    r = np.asarray(rho, dtype=np.float64)
    if np.any(~np.isfinite(r)) or np.any(r <= 0):
        raise ValueError("rho must be finite and > 0 (the transform is singular at 0 for d >= 2)")

    def one(rv):
        def f(tau):
            if abs(tau) > 700.0:
                return 0.0
            return math.exp(tau * (1 - d / 2) - eps * math.exp(tau) - rv * rv * math.exp(-tau) / 4)
        peak = math.log(rv / (2 * math.sqrt(eps)))
        v = integrate.quad(f, -np.inf, peak, epsabs=0, epsrel=1e-13, limit=200)[0]
        v += integrate.quad(f, peak, np.inf, epsabs=0, epsrel=1e-13, limit=200)[0]
        return math.pi ** (d / 2) * v

    if r.ndim == 0:
        return one(float(r))
    return np.vectorize(one, otypes=[np.float64])(r)


def imq_fourier_bessel(rho: npt.ArrayLike, d: int, eps: float) -> float | npt.NDArray[np.float64]:
    """The Bessel closed form of ``imq_fourier_transform`` (001 Lemma C.13, eq. 28):

        C_{d,eps} rho^{1-d/2} K_{d/2-1}(sqrt(eps) rho),
        C_{d,eps} = 2 pi^{d/2} (2 sqrt(eps))^{d/2-1},

    with K_nu the modified Bessel function of the second kind (scipy.special.kv, ~1e-15 relative).
    """
    from scipy import special

    d = check_int(d, "d", minimum=1)
    eps = check_positive(eps, "eps")
    r = np.asarray(rho, dtype=np.float64)
    C = 2.0 * np.pi ** (d / 2) * (2.0 * np.sqrt(eps)) ** (d / 2 - 1)
    out = C * r ** (1 - d / 2) * special.kv(d / 2 - 1, np.sqrt(eps) * r)
    return float(out) if out.ndim == 0 else out


def arccos1_kernel(X: npt.ArrayLike, Y: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Arc-cosine kernel of order 1 (Cho & Saul 2009), the kernel of infinite-width ReLU layers:

        k(x, y) = (1/pi) ||x|| ||y|| (sin t + (pi - t) cos t),  t = angle(x, y),

    as an (n, m) float64 array (0 where x = 0 or y = 0).  Positively 1-homogeneous in each
    argument: k(a x, y) = a k(x, y) for a >= 0.
    """
    X = np.atleast_2d(np.asarray(X, dtype=np.float64))
    Y = np.atleast_2d(np.asarray(Y, dtype=np.float64))
    nx = np.linalg.norm(X, axis=1)[:, None]
    ny = np.linalg.norm(Y, axis=1)[None, :]
    den = nx * ny
    with np.errstate(invalid="ignore", divide="ignore"):
        c = np.where(den > 0, (X @ Y.T) / np.where(den > 0, den, 1.0), 1.0)
    t = np.arccos(np.clip(c, -1.0, 1.0))
    return den / np.pi * (np.sin(t) + (np.pi - t) * np.cos(t))


__all__ += ["imq_kernel", "imq_fourier_transform", "imq_fourier_bessel", "arccos1_kernel"]
