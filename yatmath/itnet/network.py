"""The ITNet kernel network kappa_theta (003 §2.1, eqs 2-3, App H.2-H.3; algorithms.md I2).

Input of the MLP for a query ``x`` and key ``y`` (the seven *input groups*, in this order)::

    z_xy = [gamma(x); gamma(y); gamma(x - y); ||x - y||_2; u(x); u(y); u(x) * u(y)]
           "gx"      "gy"      "gd"          "dist"      "ux"  "uy"  "uxuy"

with the Fourier lift ``gamma(x) = [sin(2 pi B x); cos(2 pi B x)]`` (``B`` in R^{L x s}, entries
N(0, sigma^2), sampled once, frozen, shared by the three positional groups).  The network is

    h = GELU(W1 z + b1) in R^w,   vec K = W2 h + b2 in R^{d^2},   K = reshape(vec K, (d, d))

(row major: ``K[a, b] = vecK[a d + b]``), GELU exact ``x Phi(x)`` or its tanh approximation.

**Split-W1 evaluation.** ``W1 z = W1^gx gamma(x) + W1^gy gamma(y) + W1^gd gamma(x-y) + w_r ||x-y||
+ W1^ux u(x) + W1^uy u(y) + W1^had (u(x) * u(y))``: the query-only part (with ``b1``) and the
key-only part are computed once per point (:meth:`KernelMLP.query_part`, :meth:`key_part`); per pair
only ``gamma(x - y)``, the distance and the Hadamard term remain.  The fast paths evaluate
``gamma(x - y)`` from per-point sines and cosines with ``sin(a-b) = sin a cos b - cos a sin b`` and
``cos(a-b) = cos a cos b + sin a sin b``: equal to the direct evaluation up to a few ulps of the
arguments ``2 pi B x`` (absolute error ~ |2 pi B x| 2^-53 per feature).

**Initialisation as printed (H.3.1)** (:func:`init_kernel_mlp`): W1 ~ N(0, 0.02^2), b1 = 0,
W2 = eps_init * W~2 with W~2 ~ N(0, 1/w) and eps_init = 1e-3, b2[a d + a] = 1/n (else 0).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.special import erf

from .._validate import as_float_array, check_choice

GROUPS = ("gx", "gy", "gd", "dist", "ux", "uy", "uxuy")
GELUS = ("exact", "tanh")
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


def gelu(a, kind: str = "exact"):
    """GELU(a): exact ``a Phi(a)`` or tanh approximation ``a/2 (1 + tanh(sqrt(2/pi)(a + 0.044715 a^3)))``."""
    if kind == "exact":
        return 0.5 * a * (1.0 + erf(a / math.sqrt(2.0)))
    t = np.tanh(_SQRT_2_OVER_PI * (a + 0.044715 * a ** 3))
    return 0.5 * a * (1.0 + t)


def gelu_prime(a, kind: str = "exact"):
    """GELU'(a): exact ``Phi(a) + a phi(a)``; the derivative of the tanh form for ``kind="tanh"``."""
    if kind == "exact":
        return 0.5 * (1.0 + erf(a / math.sqrt(2.0))) + a * np.exp(-0.5 * a * a) / math.sqrt(2 * math.pi)
    t = np.tanh(_SQRT_2_OVER_PI * (a + 0.044715 * a ** 3))
    return 0.5 * (1.0 + t) + 0.5 * a * (1.0 - t * t) * _SQRT_2_OVER_PI * (1.0 + 3 * 0.044715 * a * a)


def fourier_lift(X, B) -> np.ndarray:
    """gamma(X) = [sin(2 pi X B^T), cos(2 pi X B^T)] for X (n, s), B (L, s): shape (n, 2L)."""
    arg = 2.0 * np.pi * (X @ B.T)
    return np.concatenate([np.sin(arg), np.cos(arg)], axis=-1)


@dataclass
class SplitWeights:
    """The column blocks of W1 (absent groups have zero width or zero entries)."""

    Wgx: np.ndarray   # (w, 2L)
    Wgy: np.ndarray   # (w, 2L)
    Wgd: np.ndarray   # (w, 2L)  (sin block first, then cos block)
    wr: np.ndarray    # (w,)
    Wux: np.ndarray   # (w, d)
    Wuy: np.ndarray   # (w, d)
    Wh: np.ndarray    # (w, d) or (w, 0) when "uxuy" is absent


@dataclass
class KernelMLP:
    """One-hidden-layer kernel network kappa_theta: R^s x R^s x R^d x R^d -> R^{d x d}.

    Parameters (theta): ``W1`` (w, D), ``b1`` (w,), ``W2`` (d*d, w), ``b2`` (d*d,); frozen ``B``
    (L, s).  ``groups`` selects input groups (a subset of :data:`GROUPS`, kept in canonical order).
    """

    W1: np.ndarray
    b1: np.ndarray
    W2: np.ndarray
    b2: np.ndarray
    B: np.ndarray
    d: int
    groups: tuple = GROUPS
    gelu: str = "exact"
    _slices: dict = field(default=None, repr=False)

    def __post_init__(self):
        check_choice(self.gelu, "gelu", GELUS)
        groups = tuple(self.groups)
        for g in groups:
            check_choice(g, "groups entry", GROUPS)
        if len(set(groups)) != len(groups) or not groups:
            raise ValueError(f"groups must be a non-empty list of distinct names, got {groups!r}")
        self.groups = tuple(g for g in GROUPS if g in groups)
        self.B = as_float_array(self.B, "B", ndim=2)
        self.W1 = as_float_array(self.W1, "W1", ndim=2)
        self.b1 = as_float_array(self.b1, "b1", ndim=1)
        self.W2 = as_float_array(self.W2, "W2", ndim=2)
        self.b2 = as_float_array(self.b2, "b2", ndim=1)
        d, w, L = int(self.d), self.W1.shape[0], self.B.shape[0]
        self.d = d
        sizes = {"gx": 2 * L, "gy": 2 * L, "gd": 2 * L, "dist": 1, "ux": d, "uy": d, "uxuy": d}
        sl, off = {}, 0
        for g in self.groups:
            sl[g] = slice(off, off + sizes[g])
            off += sizes[g]
        self._slices = sl
        if self.W1.shape[1] != off:
            raise ValueError(f"W1 must have shape (w, {off}) for groups {self.groups} with L={L}, "
                             f"d={d}; got {self.W1.shape}")
        if self.b1.shape != (w,):
            raise ValueError(f"b1 must have shape ({w},), got {self.b1.shape}")
        if self.W2.shape != (d * d, w):
            raise ValueError(f"W2 must have shape ({d * d}, {w}), got {self.W2.shape}")
        if self.b2.shape != (d * d,):
            raise ValueError(f"b2 must have shape ({d * d},), got {self.b2.shape}")

    # ---- sizes -------------------------------------------------------------------------------
    @property
    def width(self) -> int:
        return self.W1.shape[0]

    @property
    def L(self) -> int:
        return self.B.shape[0]

    @property
    def s(self) -> int:
        return self.B.shape[1]

    @property
    def input_dim(self) -> int:
        return self.W1.shape[1]

    @property
    def slices(self) -> dict:
        return dict(self._slices)

    def params(self) -> dict:
        """The trainable parameters theta (B is frozen and not included)."""
        return {"W1": self.W1, "b1": self.b1, "W2": self.W2, "b2": self.b2}

    def with_params(self, **p) -> "KernelMLP":
        q = self.params()
        q.update(p)
        return KernelMLP(q["W1"], q["b1"], q["W2"], q["b2"], self.B, self.d, self.groups, self.gelu)

    def n_params(self) -> int:
        return sum(v.size for v in self.params().values())

    # ---- dense evaluation (the reference) ----------------------------------------------------
    def _z(self, xq, xk, uq, uk) -> np.ndarray:
        """z for broadcast-compatible (..., s) positions and (..., d) features."""
        shape = np.broadcast_shapes(xq.shape[:-1], xk.shape[:-1], uq.shape[:-1], uk.shape[:-1])
        parts = []
        for g in self.groups:
            if g == "gx":
                parts.append(np.broadcast_to(fourier_lift(xq, self.B), shape + (2 * self.L,)))
            elif g == "gy":
                parts.append(np.broadcast_to(fourier_lift(xk, self.B), shape + (2 * self.L,)))
            elif g == "gd":
                parts.append(np.broadcast_to(fourier_lift(xq - xk, self.B), shape + (2 * self.L,)))
            elif g == "dist":
                diff = xq - xk
                parts.append(np.broadcast_to(np.sqrt((diff * diff).sum(-1))[..., None], shape + (1,)))
            elif g == "ux":
                parts.append(np.broadcast_to(uq, shape + (self.d,)))
            elif g == "uy":
                parts.append(np.broadcast_to(uk, shape + (self.d,)))
            else:
                parts.append(np.broadcast_to(uq * uk, shape + (self.d,)))
        return np.concatenate(parts, axis=-1)

    def inputs(self, Xq, Xk, Uq, Uk) -> np.ndarray:
        """z for all pairs: shape (nq, nk, D) (positions (n, s), features (n, d))."""
        return self._z(Xq[:, None, :], Xk[None, :, :], Uq[:, None, :], Uk[None, :, :])

    def pair_inputs(self, Xq, Xk, Uq, Uk) -> np.ndarray:
        """z for matched rows (pair p = (Xq[p], Xk[p])): shape (P, D)."""
        return self._z(Xq, Xk, Uq, Uk)

    def kernel_pairs(self, Xq, Xk, Uq, Uk) -> np.ndarray:
        """kappa for matched rows: (P, d, d)."""
        h = gelu(self.pair_inputs(Xq, Xk, Uq, Uk) @ self.W1.T + self.b1, self.gelu)
        return (h @ self.W2.T + self.b2).reshape(h.shape[:-1] + (self.d, self.d))

    def preactivation(self, Xq, Xk, Uq, Uk) -> np.ndarray:
        """a = W1 z + b1 for all pairs: (nq, nk, w)."""
        return self.inputs(Xq, Xk, Uq, Uk) @ self.W1.T + self.b1

    def hidden(self, Xq, Xk, Uq, Uk) -> np.ndarray:
        return gelu(self.preactivation(Xq, Xk, Uq, Uk), self.gelu)

    def kernel(self, Xq, Xk, Uq, Uk) -> np.ndarray:
        """K_ij = kappa(x_i, y_j, u_i, u_j) for all pairs: (nq, nk, d, d) (dense; small n only)."""
        h = self.hidden(Xq, Xk, Uq, Uk)
        v = h @ self.W2.T + self.b2
        return v.reshape(h.shape[0], h.shape[1], self.d, self.d)

    __call__ = kernel

    # ---- split-W1 pieces (used by the fast paths) --------------------------------------------
    def split(self) -> SplitWeights:
        w, L, d = self.width, self.L, self.d
        sl = self._slices

        def blk(g, width):
            return (np.ascontiguousarray(self.W1[:, sl[g]]) if g in sl
                    else np.zeros((w, width), dtype=self.W1.dtype))

        wr = self.W1[:, sl["dist"]][:, 0].copy() if "dist" in sl else np.zeros(w, self.W1.dtype)
        Wh = blk("uxuy", d) if "uxuy" in sl else np.zeros((w, 0), self.W1.dtype)
        Wgd = blk("gd", 2 * L) if "gd" in sl else np.zeros((w, 0), self.W1.dtype)
        return SplitWeights(blk("gx", 2 * L), blk("gy", 2 * L), Wgd, wr, blk("ux", d),
                            blk("uy", d), Wh)

    def query_part(self, Xq, Uq, sw: SplitWeights | None = None) -> np.ndarray:
        """b1 + W1^gx gamma(x) + W1^ux u(x) per query: (nq, w)."""
        sw = sw or self.split()
        return self.b1 + fourier_lift(Xq, self.B) @ sw.Wgx.T + Uq @ sw.Wux.T

    def key_part(self, Xk, Uk, sw: SplitWeights | None = None) -> np.ndarray:
        """W1^gy gamma(y) + W1^uy u(y) per key: (nk, w)."""
        sw = sw or self.split()
        return fourier_lift(Xk, self.B) @ sw.Wgy.T + Uk @ sw.Wuy.T

    def trig(self, X) -> tuple[np.ndarray, np.ndarray]:
        """(sin(2 pi X B^T), cos(2 pi X B^T)), each (n, L), or zero-width when "gd" is absent."""
        if "gd" not in self._slices:
            z = np.zeros((X.shape[0], 0))
            return z, z
        arg = 2.0 * np.pi * (X @ self.B.T)
        return np.sin(arg), np.cos(arg)


def init_kernel_mlp(d: int, s: int = 1, *, n_keys: int, width: int = 128, L: int = 64,
                    sigma: float = 10.0, eps_init: float = 1e-3, groups=GROUPS,
                    gelu: str = "exact", rng=None, B=None) -> KernelMLP:
    """A kernel MLP initialised as printed in 003 App H.3.1 (see the module docstring).

    ``n_keys`` is the n of ``b2 = 1/n`` on the diagonal.  ``B`` may be passed to share one frozen
    Fourier matrix between several networks (``share_B``); otherwise B ~ N(0, sigma^2).
    """
    for name, v in (("d", d), ("s", s), ("n_keys", n_keys), ("width", width), ("L", L)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < (0 if name == "L" else 1):
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    rng = np.random.default_rng(rng)
    if B is None:
        B = rng.normal(0.0, sigma, size=(L, s))
    else:
        B = as_float_array(B, "B", ndim=2)
        if B.shape[1] != s:
            raise ValueError(f"B must have shape (L, {s}), got {B.shape}")
        L = B.shape[0]
    groups = tuple(g for g in GROUPS if g in tuple(groups))
    sizes = {"gx": 2 * L, "gy": 2 * L, "gd": 2 * L, "dist": 1, "ux": d, "uy": d, "uxuy": d}
    D = sum(sizes[g] for g in groups)
    W1 = rng.normal(0.0, 0.02, size=(width, D))
    b1 = np.zeros(width)
    W2 = eps_init * rng.normal(0.0, 1.0 / math.sqrt(width), size=(d * d, width))
    b2 = np.zeros(d * d)
    b2[np.arange(d) * d + np.arange(d)] = 1.0 / n_keys
    return KernelMLP(W1, b1, W2, b2, B, d, groups, gelu)


def random_kernel_mlp(d: int, s: int = 1, *, width: int = 16, L: int = 4, sigma: float = 1.0,
                      scale: float = 1.0, groups=GROUPS, gelu: str = "exact", rng=None) -> KernelMLP:
    """A kernel MLP with O(1) random weights (W1 ~ N(0, scale^2/D), W2 ~ N(0, scale^2/w),
    biases N(0, 0.1^2)): a strongly content-dependent kernel for tests, unlike the near-constant
    printed initialisation."""
    rng = np.random.default_rng(rng)
    net = init_kernel_mlp(d, s, n_keys=1, width=width, L=L, sigma=sigma, groups=groups,
                          gelu=gelu, rng=rng)
    D = net.input_dim
    return net.with_params(W1=rng.normal(0, scale / math.sqrt(D), (width, D)),
                           b1=rng.normal(0, 0.1, width),
                           W2=rng.normal(0, scale / math.sqrt(width), (d * d, width)),
                           b2=rng.normal(0, 0.1, d * d))
