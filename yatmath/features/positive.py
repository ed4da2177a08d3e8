"""Positive feature maps: FAVOR+ (R3) and the maps of 004 App. D (R4).

Notation: Omega in R^{d x M} with columns omega_i (drawn N(0, I_d), i.i.d. or R2 orthogonal
blocks, unless given), u_i(x) = omega_i . x / tau, tau > 0 the temperature, ``floor`` > 0 a clamp.
004 fixes neither tau nor floor; the values used are recorded in ``params`` (defaults tau = 1,
floor = 1e-6).  "renorm" is the per-token l1 renormalisation phi <- sqrt(M) a / sum_i a_i.

=================  =======================================  ====================================
kind               a_i(x) before renorm                     kernel estimated (M -> infinity)
=================  =======================================  ====================================
"favor"            exp(omega_i.x - ||x||^2/2), no renorm    exp(q.k), unbiased for every M
                   (phi = a / sqrt(M))                      (relative sd sqrt((e^{||q+k||^2}-1)/M))
"elu+1"            max(1 + ELU(u_i + b_i), floor)           E[a(q)a(k)] / (E a(q) E a(k))
"softplus"         softplus(u_i) + floor                    same ratio form
"sigmoid2"         logistic(u_i)^2 (+ floor if floor_sigmoid) same ratio form
"softmaxfeat"      phi = sqrt(M) softmax_i(u_i)             exp(q.k / tau^2)
"cos2"             cos(omega_i.x + b_i)^2, fixed b;         1 + exp(-2||q-k||^2)/2
                   renorm with sum a >= floor guarded      (E_b cos^2(u+b)cos^2(v+b) =
                                                             1/4 + cos(2(u-v))/8, E a = 1/2)
"porf-softplus"    softplus map with orthogonal Omega (R2)  as softplus
=================  =======================================  ====================================

With renorm, phi(q).phi(k) = M sum a_i(q) a_i(k) / (sum a(q) sum a(k)) is a ratio of sample
means: it converges to the stated kernel at rate O(M^{-1/2}) but is biased at finite M.  The
ratio-form limits E[a(u)a(v)] with (u, v) bivariate normal (Cov = [[|q|^2, q.k], [q.k, |k|^2]] /
tau^2) are evaluated by 2-D Gauss-Hermite quadrature (``limit_kernel``, 48^2 nodes, accurate to
~1e-10 relative for |q|, |k| / tau <= 3).  Without renorm (``renorm=False``) phi = a / sqrt(M) and
phi(q).phi(k) is an unbiased estimate of E[a(q)a(k)].

004 C.2 scaling (``n_scale_order``): multiply by M^{-1/2} "before_renorm" (cancels in the renorm),
"after_renorm", or "none" (default).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import special

from .._array import at_host_boundary, caller, parameter, to_host
from .._registry import register
from .._typing import Array, RNGLike
from .._validate import (as_float_array, as_rng, check_bool, check_choice, check_int,
                         check_memory, check_positive)
from ._common import FeatureMap, frozen
from .fourier import HOST_DRAW, gaussian_frequencies, gaussian_kernel

__all__ = ["PositiveFeatures", "positive_features", "favor_plus", "POSITIVE_KINDS"]

POSITIVE_KINDS = ("favor", "elu+1", "softplus", "sigmoid2", "softmaxfeat", "cos2", "porf-softplus")
_RENORM_DEFAULT = {"favor": False, "softmaxfeat": False}


def _act(kind, u, b, floor, floor_sigmoid, xp=np):
    """a(u) of the module table for the activation kinds (any array API namespace ``xp``)."""
    if kind == "elu+1":
        z = u + b
        return xp.maximum(1.0 + xp.where(z > 0, z, xp.expm1(xp.minimum(z, 0))), floor)
    if kind in ("softplus", "porf-softplus"):
        return xp.logaddexp(0.0, u) + floor
    if kind == "sigmoid2":
        s = 0.5 * (1.0 + xp.tanh(0.5 * u))
        return s * s + (floor if floor_sigmoid else 0.0)
    raise AssertionError(kind)


@register("features.PositiveFeatures.__call__", "reference",
          note="generic; float64 evaluation, result in the input's dtype")
def _positive_apply(self, X, c):
    """phi(X) of the module table on a validated (n, d) float64 array of the caller ``c``."""
    M, xp = self.num_features, c.xp
    Om, b = parameter(self, self.omega, c), parameter(self, self.bias, c)
    if self.kind == "favor":
        z = X @ Om - 0.5 * xp.sum(X * X, axis=1, keepdims=True)
        return xp.exp(z) / math.sqrt(M)
    if self.kind == "softmaxfeat":
        u = (X @ Om) / self.tau
        u = u - xp.max(u, axis=1, keepdims=True)
        e = xp.exp(u)
        return math.sqrt(M) * e / xp.sum(e, axis=1, keepdims=True)
    if self.kind == "cos2":
        a = xp.cos(X @ Om + b) ** 2
    else:
        a = _act(self.kind, (X @ Om) / self.tau, b, self.floor, self.floor_sigmoid, xp)
    if self.n_scale_order == "before_renorm":
        a = a / math.sqrt(M)
    if self.renorm:
        s = xp.sum(a, axis=1, keepdims=True)
        if self.kind == "cos2":
            s = xp.maximum(s, self.floor)
        a = math.sqrt(M) * a / s
    elif self.n_scale_order == "none":
        a = a / math.sqrt(M)        # unbiased normalisation of the un-renormalised map
    if self.n_scale_order == "after_renorm":
        a = a / math.sqrt(M)
    return a


@register("features.PositiveFeatures.__call__", "cupy", libraries=("cupy",), device="gpu",
          host_input=True,
          note="one matmul X @ Omega, then one fused numba-cuda row kernel (_cuda_features: "
               "activation, row norm / softmax / l1 sums once per row, scalings; written once "
               "in the input's dtype)")
def _positive_cupy(self, X, c):
    """phi(X) on the device: the reference's product ``X @ Omega`` (cuBLAS), then the row kernel
    of ``_cuda_features`` for the rest of ``_positive_apply`` (one block per row; the result in
    ``c.dtype``, the input's dtype, stored by the kernel)."""
    from . import _cuda_features as cf

    here = caller(X)            # the device copy's caller (host_input moves NumPy input there)
    proj = X @ parameter(self, self.omega, here)
    return cf.positive_map(proj, X, parameter(self, self.bias, here), self.kind, self.tau,
                           self.floor, self.renorm, self.floor_sigmoid, self.n_scale_order,
                           c.dtype)


class PositiveFeatures(FeatureMap):
    """One of the positive maps in the module table; all options recorded in ``params``.

    ``omega`` (d, M) and ``bias`` (M,) may be arrays of any library (kept as float64 NumPy
    copies); drawn ones come from NumPy's Generator (``as_rng``), so the same seed gives the same
    map on every array library.  ``phi(X)`` returns X's library on X's device.
    """

    _op = "features.PositiveFeatures.__call__"

    def __init__(self, d: int, num_features: int, kind: str = "favor", *, tau: float = 1.0,
                 floor: float = 1e-6, renorm: bool | None = None, floor_sigmoid: bool = False,
                 n_scale_order: str = "none", orthogonal: bool | None = None,
                 omega: Array | None = None, bias: Array | None = None,
                 rng: RNGLike = None) -> None:
        check_choice(kind, "kind", POSITIVE_KINDS)
        check_choice(n_scale_order, "n_scale_order", ("none", "before_renorm", "after_renorm"))
        self.d = check_int(d, "d", minimum=1)
        self.num_features = M = check_int(num_features, "num_features", minimum=1)
        self.kind = kind
        self.tau = check_positive(tau, "tau")
        self.floor = check_positive(floor, "floor")
        renorm = check_bool(renorm, "renorm", allow_none=True)
        floor_sigmoid = check_bool(floor_sigmoid, "floor_sigmoid")
        orthogonal = check_bool(orthogonal, "orthogonal", allow_none=True)
        self.renorm = _RENORM_DEFAULT.get(kind, True) if renorm is None else renorm
        if kind in ("favor", "softmaxfeat") and self.renorm:
            raise ValueError(f"renorm must be False for kind={kind!r} (004 App. D applies no "
                             "l1 renormalisation to it)")
        if orthogonal is None:
            orthogonal = kind == "porf-softplus"
        g = as_rng(rng)
        if omega is None:
            omega = gaussian_frequencies(self.d, M, orthogonal=bool(orthogonal), rng=g).T
        else:
            omega = to_host(as_float_array(omega, "omega")).astype(np.float64)
            if omega.shape != (self.d, M):
                raise ValueError(f"omega must have shape (d, num_features) = {(self.d, M)}, got "
                                 f"{omega.shape}")
        self.omega = frozen(omega)
        if bias is None:
            bias = g.uniform(0, 2 * np.pi, size=M) if kind == "cos2" else np.zeros(M)
        bias = to_host(as_float_array(bias, "bias")).astype(np.float64)
        if bias.shape != (M,):
            raise ValueError(f"bias must have shape ({M},), got {bias.shape}")
        self.bias = frozen(bias)
        self.floor_sigmoid = bool(floor_sigmoid)
        self.n_scale_order = n_scale_order
        self.params = {"kind": kind, "tau": self.tau, "floor": self.floor,
                       "renorm": self.renorm, "floor_sigmoid": self.floor_sigmoid,
                       "n_scale_order": n_scale_order, "orthogonal": bool(orthogonal)}

    # -- the kernel estimated ----------------------------------------------------------------
    def limit_kernel(self, X: Array, Y: Array, *, nodes: int = 48) -> Array:
        """The M -> infinity kernel of the module table (Omega ~ N(0, I), default phases),
        for the default ``n_scale_order="none"``; an (n, m) float64 array.

        X (n, d), Y (m, d); ``nodes`` >= 1 Gauss-Hermite nodes per axis.  Where the true value
        overflows (favor/softmaxfeat with q.k > ~709) the entry is inf.  Evaluated with
        NumPy/SciPy on the host; other libraries' arrays are copied there and the result comes
        back in their library, on their device."""
        nodes = check_int(nodes, "nodes", minimum=1)
        return self._kernel_call("features.PositiveFeatures.limit_kernel", X, Y, nodes=nodes)

    kernel = limit_kernel


@register("features.PositiveFeatures.limit_kernel", "reference", dtypes=("float64",),
          note="NumPy/SciPy (Gauss-Hermite nodes) on the host: other libraries' arrays are "
               "copied to NumPy and the result back to the caller's library and device")
def _positive_limit_kernel(self, X, Y, *, nodes):
    """``PositiveFeatures.limit_kernel`` on validated X, Y: the NumPy float64 reference on the
    host, the result returned in the inputs' library on their device."""
    return at_host_boundary(_limit_kernel_host, (self, X, Y, nodes), {})


def _limit_kernel_host(self, X, Y, nodes):
    """The NumPy float64 body of ``limit_kernel`` (module docstring)."""
    X, Y = X.astype(np.float64, copy=False), Y.astype(np.float64, copy=False)
    per_row = 3 * Y.shape[0] * nodes * nodes if self.kind not in (
        "favor", "softmaxfeat", "cos2") else 0
    check_memory(8 * (X.shape[0] * Y.shape[0] + per_row),
                 f"the dense ({X.shape[0]}, {Y.shape[0]}) limit kernel matrix",
                 alternative="row blocks of X")
    if self.kind == "favor":
        return np.exp(X @ Y.T)
    if self.kind == "softmaxfeat":
        return np.exp(X @ Y.T / self.tau ** 2)
    if self.kind == "cos2":
        second = 0.25 + gaussian_kernel(X, Y, 2.0) / 8
        return second / 0.25 if self.renorm else second
    if np.any(self.bias != 0):
        raise ValueError("limit_kernel needs bias = 0 for the activation maps")
    t, w = special.roots_hermite(nodes)     # int e^{-t^2} f(t) dt
    z, w = np.sqrt(2.0) * t, w / np.sqrt(np.pi)   # E_{Z~N(0,1)} f(Z)
    nx = np.linalg.norm(X, axis=1) / self.tau
    ny = np.linalg.norm(Y, axis=1) / self.tau
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = (X @ Y.T) / np.outer(nx * self.tau, ny * self.tau)
    rho = np.nan_to_num(np.clip(rho, -1, 1))
    act = lambda u: _act(self.kind, u, 0.0, self.floor, self.floor_sigmoid)  # noqa: E731
    # (u, v) = (nx Z1, ny (rho Z1 + sqrt(1 - rho^2) Z2))
    Z1, Z2 = z[:, None], z[None, :]
    W2 = w[:, None] * w[None, :]
    out = np.empty((X.shape[0], Y.shape[0]))
    for i in range(X.shape[0]):
        au = act(nx[i] * Z1)                                  # (n, 1)
        v = ny[:, None, None] * (rho[i][:, None, None] * Z1 + np.sqrt(
            1 - rho[i][:, None, None] ** 2) * Z2)             # (m, n, n)
        out[i] = (W2 * au * act(v)).sum(axis=(1, 2))
    if self.renorm:
        ex = (w * act(nx[:, None] * z[None, :])).sum(1)
        ey = (w * act(ny[:, None] * z[None, :])).sum(1)
        out = out / np.outer(ex, ey)
    return out


@register("features.positive_features", "reference", libraries=("numpy",), dtypes=("float64",),
          note=HOST_DRAW)
def positive_features(d: int, num_features: int, kind: str = "favor",
                      **kw: Any) -> PositiveFeatures:
    """Construct a ``PositiveFeatures`` map (see the module table for ``kind``)."""
    return PositiveFeatures(d, num_features, kind, **kw)


@register("features.favor_plus", "reference", libraries=("numpy",), dtypes=("float64",),
          note=HOST_DRAW)
def favor_plus(d: int, num_features: int, *, orthogonal: bool = True,
               rng: RNGLike = None) -> PositiveFeatures:
    """FAVOR+ (R3): E[phi(q).phi(k)] = exp(q.k).  For softmax attention exp(q.k/sqrt(d)) feed
    q / d^(1/4) and k / d^(1/4)."""
    return PositiveFeatures(d, num_features, "favor", orthogonal=orthogonal, rng=rng)
