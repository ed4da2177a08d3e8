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
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from .._registry import register
from .._typing import Array, Namespace, RNGLike
from .._validate import (as_float_array, as_rng, check_choice, check_int, check_memory,
                         check_real)
from .._array import parameter
from ._dispatch import GELU_NOTE, GENERIC_NOTE, operation
from ._xp_ops import all_finite, caller, contiguous, erfc, size, xp_of

GROUPS = ("gx", "gy", "gd", "dist", "ux", "uy", "uxuy")
#: the input groups made of the Fourier lift gamma (2L features each)
FOURIER_GROUPS = ("gx", "gy", "gd")
GELUS = ("exact", "tanh")
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_INV_SQRT2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
#: the memory-free routes named when a dense (nq, nk, ...) evaluation would not fit
DENSE_ALTERNATIVES = ("yatmath.itnet.apply(..., mode='tiled') (never stores the pair tensors), "
                      "mode='lowrank' or mode='mc'")


def _gelu(a, kind, xp=np):
    """GELU without argument checks (the one definition in Python, for every array library:
    ``xp`` is NumPy itself for NumPy arrays, else the array API namespace; see :func:`gelu`)."""
    with np.errstate(over="ignore", invalid="ignore"):
        if kind == "exact":
            out = 0.5 * a * erfc(-a * _INV_SQRT2, xp)
        else:
            out = 0.5 * a * (1.0 + xp.tanh(_SQRT_2_OVER_PI * (a + 0.044715 * a ** 3)))
    inf = xp.isinf(a)
    return xp.where(inf & (a < 0), 0.0, out) if bool(xp.any(inf)) else out


def _gelu_prime(a, kind, xp=np):
    """GELU' without argument checks (the one definition in Python; see :func:`gelu_prime`)."""
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        if kind == "exact":
            tail = a * xp.exp(-0.5 * a * a) * _INV_SQRT_2PI
            out = 0.5 * erfc(-a * _INV_SQRT2, xp) + xp.where(xp.isinf(a), 0.0, tail)
        else:
            t = xp.tanh(_SQRT_2_OVER_PI * (a + 0.044715 * a ** 3))
            sech2 = 1.0 - t * t
            tail = 0.5 * a * sech2 * _SQRT_2_OVER_PI * (1.0 + 3 * 0.044715 * a * a)
            out = 0.5 * (1.0 + t) + xp.where(sech2 > 0, tail, 0.0)
    return out


@register("itnet.gelu", "reference", note="array API generic; erfc: SciPy (NumPy), cupyx (CuPy), "
          "the namespace's special.erfc (PyTorch), jax.scipy (JAX), else SciPy at the boundary")
def gelu(a: Array, kind: str = "exact") -> Array:
    """GELU(a): exact ``a Phi(a) = a/2 erfc(-a/sqrt 2)`` or the tanh approximation
    ``a/2 (1 + tanh(sqrt(2/pi)(a + 0.044715 a^3)))``, elementwise.

    Accuracy: the exact form uses ``erfc``, so the left tail keeps its relative accuracy, about
    ``(a^2 + few) u`` (the condition number of Phi at a): ``gelu(-10) = -7.6e-23`` to 1e-14, where
    ``1 + erf`` would round to 0.  Defined for every real and
    for the limits ``gelu(-inf) = 0``, ``gelu(inf) = inf``; never NaN for a non-NaN argument.
    """
    check_choice(kind, "kind", GELUS)
    a = as_float_array(a, "a", check_finite=False)
    return _gelu(a, kind, xp_of(a))


@register("itnet.gelu_prime", "reference", note="array API generic; erfc as for itnet.gelu")
def gelu_prime(a: Array, kind: str = "exact") -> Array:
    """GELU'(a): exact ``Phi(a) + a phi(a)``; the derivative of the tanh form for ``kind="tanh"``.

    The tail ``a phi(a)`` is 0 where it underflows (``|a| > 38``), so huge or infinite arguments
    give the limits 1 (``a -> inf``) and 0 (``a -> -inf``), never NaN.
    """
    check_choice(kind, "kind", GELUS)
    a = as_float_array(a, "a", check_finite=False)
    return _gelu_prime(a, kind, xp_of(a))


def _lift_argument(X, B, xp=np):
    """``2 pi X B^T``, reduced mod 2 pi where the plain product overflows.

    ``sin(2 pi t)`` only depends on ``t mod 1`` (exact in floating point), so where ``2 pi t``
    overflows float64 but ``t`` does not, ``2 pi (t mod 1)`` gives the same sines and cosines.
    Raises OverflowError naming ``X`` when ``t = X B^T`` itself overflows.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        t = xp.matmul(X, B.T)
        arg = 2.0 * math.pi * t
    if size(arg) and not all_finite(arg, xp):
        if not all_finite(t, xp):
            raise OverflowError(
                f"X B^T (the Fourier-lift argument) overflows float64: max|X| = "
                f"{float(xp.max(xp.abs(X))):.3g}, max|B| = {float(xp.max(xp.abs(B))):.3g}; the "
                f"product of the two must stay below {np.finfo(np.float64).max:.3g}")
        arg = xp.where(xp.isfinite(arg), arg, 2.0 * math.pi * xp.remainder(t, 1.0))
    return arg


def pair_distance(diff: Array, xp: Namespace = np) -> Array:
    """``||diff||_2`` over the last axis without overflow or underflow in the squares.

    The plain ``sqrt(sum diff^2)`` is used (bit for bit) where it is finite; where the squares
    overflow (``|diff| > 1.3e154``) the entries are rescaled by their largest magnitude first, so
    the distance is returned whenever it is below the float64 maximum (inf above it).
    """
    with np.errstate(over="ignore"):
        r = xp.sqrt(xp.sum(diff * diff, axis=-1))
    if size(r) and not all_finite(r, xp):
        m = xp.max(xp.abs(diff), axis=-1)
        safe = xp.where(m > 0, m, 1.0)
        with np.errstate(over="ignore", invalid="ignore"):
            scaled = m * xp.sqrt(xp.sum((diff / xp.expand_dims(safe, axis=-1)) ** 2, axis=-1))
        r = xp.where(xp.isfinite(r), r, scaled)
    return r


@register("itnet.fourier_lift", "reference",
          note="array API generic: runs in the caller's library and device")
def fourier_lift(X: Array, B: Array) -> Array:
    """gamma(X) = [sin(2 pi X B^T), cos(2 pi X B^T)] for X (n, s), B (L, s): shape (n, 2L).

    Accuracy: sines and cosines of the rounded argument, ~|2 pi X B^T| 2^-53 absolute; finite for
    every finite X (the argument is reduced mod 1 where ``2 pi X B^T`` overflows).  Written against
    the array API standard: X and B of one library (NumPy, CuPy, PyTorch, JAX, ...), the result in
    that library on that device; the NumPy float64 result is the reference.
    """
    X = as_float_array(X, "X", ndim=2)
    B = as_float_array(B, "B", ndim=2)
    if X.shape[1] != B.shape[1]:
        raise ValueError(f"X and B must have the same number of columns s (X is (n, s), B is "
                         f"(L, s)), got X.shape={X.shape} and B.shape={B.shape}")
    xp = xp_of(X, B)
    if xp is np:
        X, B = np.ascontiguousarray(X), np.ascontiguousarray(B)
    return _lift(X, B, xp)


def _lift(X, B, xp=np):
    arg = _lift_argument(X, B, xp)
    return xp.concat([xp.sin(arg), xp.cos(arg)], axis=-1)


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


@register("itnet.KernelMLP", "reference", libraries=("numpy",),
          note="the parameters are NumPy arrays; its evaluation methods take any library")
@dataclass
class KernelMLP:
    """One-hidden-layer kernel network kappa_theta: R^s x R^s x R^d x R^d -> R^{d x d}.

    Parameters (theta): ``W1`` (w, D), ``b1`` (w,), ``W2`` (d*d, w), ``b2`` (d*d,); frozen ``B``
    (L, s).  ``groups`` selects input groups (a subset of :data:`GROUPS`, kept in canonical order).

    The parameters are NumPy float64 arrays; the evaluation methods are written against the array
    API standard: positions and features of any library (NumPy, CuPy, PyTorch, JAX,
    ``array_api_strict``) run in that library on their device, the parameters moved there per call
    (``asarray_like``: a zero-copy view for PyTorch/JAX on the CPU).  NumPy results are bit for bit
    those of the NumPy-only code; other libraries agree to their libm's last bits.
    """

    W1: np.ndarray
    b1: np.ndarray
    W2: np.ndarray
    b2: np.ndarray
    B: np.ndarray
    d: int
    groups: tuple = GROUPS
    gelu: str = "exact"
    # (set by __post_init__)
    _slices: dict[str, slice] = field(default=None, repr=False)  # type: ignore[arg-type]

    def __post_init__(self) -> None:
        check_choice(self.gelu, "gelu", GELUS)
        if isinstance(self.groups, str):
            raise TypeError(f"groups must be a sequence of names from {GROUPS}, got the string "
                            f"{self.groups!r} (write ({self.groups!r},))")
        try:
            groups = tuple(self.groups)
        except TypeError:
            raise TypeError(f"groups must be a sequence of names from {GROUPS}, got "
                            f"{self.groups!r}") from None
        for g in groups:
            check_choice(g, "groups", GROUPS)
        if len(set(groups)) != len(groups) or not groups:
            raise ValueError(f"groups must be a non-empty list of distinct names, got {groups!r}")
        self.groups = tuple(g for g in GROUPS if g in groups)
        self.B = as_float_array(self.B, "B", ndim=2)
        self.W1 = as_float_array(self.W1, "W1", ndim=2)
        self.b1 = as_float_array(self.b1, "b1", ndim=1)
        self.W2 = as_float_array(self.W2, "W2", ndim=2)
        self.b2 = as_float_array(self.b2, "b2", ndim=1)
        d, w, L = check_int(self.d, "d", minimum=1), self.W1.shape[0], self.B.shape[0]
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
    def slices(self) -> dict[str, slice]:
        return dict(self._slices)

    def params(self) -> dict[str, npt.NDArray[np.float64]]:
        """The trainable parameters theta (B is frozen and not included)."""
        return {"W1": self.W1, "b1": self.b1, "W2": self.W2, "b2": self.b2}

    def with_params(self, **p: npt.NDArray[np.float64]) -> "KernelMLP":
        """A copy with some of ``W1, b1, W2, b2`` replaced (validated as in the constructor)."""
        q = self.params()
        unknown = sorted(set(p) - set(q))
        if unknown:
            raise TypeError(f"with_params takes the parameters {tuple(q)}, got unknown "
                            f"{', '.join(unknown)}")
        q.update(p)
        return KernelMLP(q["W1"], q["b1"], q["W2"], q["b2"], self.B, self.d, self.groups, self.gelu)

    def n_params(self) -> int:
        return sum(v.size for v in self.params().values())

    # ---- argument checks ---------------------------------------------------------------------
    def _points(self, X, U, nX, nU):
        """Positions ``X`` (n, s) (or (n,) when s = 1) and features ``U`` (n, d), checked."""
        X = as_float_array(X, nX, ndim=(1, 2))
        if X.ndim == 1 and self.s == 1:
            X = xp_of(X).expand_dims(X, axis=1)
        if X.ndim != 2 or X.shape[1] != self.s:
            raise ValueError(f"{nX} must have shape (n, s) with s = {self.s} (the network's B has "
                             f"{self.s} columns), got {tuple(X.shape)}")
        U = as_float_array(U, nU, ndim=2)
        if U.shape != (X.shape[0], self.d):
            raise ValueError(f"{nU} must have shape ({X.shape[0]}, {self.d}) (one row of d = "
                             f"{self.d} features per row of {nX}), got {tuple(U.shape)}")
        xp = xp_of(X, U)
        return contiguous(X, xp), contiguous(U, xp)

    def _pairs(self, Xq, Xk, Uq, Uk, matched):
        Xq, Uq = self._points(Xq, Uq, "Xq", "Uq")
        Xk, Uk = self._points(Xk, Uk, "Xk", "Uk")
        if matched:
            if Xq.shape[0] != Xk.shape[0]:
                raise ValueError(f"Xk must have as many rows as Xq (matched pairs), got "
                                 f"{Xk.shape[0]} and {Xq.shape[0]}")
        else:
            nq, nk = Xq.shape[0], Xk.shape[0]
            per_pair = self.input_dim + 2 * self.width + 2 * self.d * self.d
            check_memory(8 * nq * nk * per_pair,
                         f"the dense (nq, nk, ...) = ({nq}, {nk}, ...) pair tensors of the kernel "
                         f"MLP for Xq ({nq} rows) x Xk ({nk} rows)",
                         alternative=DENSE_ALTERNATIVES)
        return Xq, Xk, Uq, Uk

    # ---- dense evaluation (the reference) ----------------------------------------------------
    def _z(self, xq: Array, xk: Array, uq: Array, uk: Array) -> Array:
        """z for broadcast-compatible (..., s) positions and (..., d) features."""
        xp = xp_of(xq, xk, uq, uk)
        shape = np.broadcast_shapes(tuple(xq.shape[:-1]), tuple(xk.shape[:-1]),
                                    tuple(uq.shape[:-1]), tuple(uk.shape[:-1]))
        B = parameter(self, self.B, xq)
        parts = []
        for g in self.groups:
            if g == "gx":
                parts.append(xp.broadcast_to(_lift(xq, B, xp), shape + (2 * self.L,)))
            elif g == "gy":
                parts.append(xp.broadcast_to(_lift(xk, B, xp), shape + (2 * self.L,)))
            elif g == "gd":
                with np.errstate(over="ignore"):
                    diff = xq - xk
                parts.append(xp.broadcast_to(_lift(diff, B, xp), shape + (2 * self.L,)))
            elif g == "dist":
                with np.errstate(over="ignore"):
                    diff = xq - xk
                parts.append(xp.broadcast_to(xp.expand_dims(pair_distance(diff, xp), axis=-1),
                                             shape + (1,)))
            elif g == "ux":
                parts.append(xp.broadcast_to(uq, shape + (self.d,)))
            elif g == "uy":
                parts.append(xp.broadcast_to(uk, shape + (self.d,)))
            else:
                with np.errstate(over="ignore"):
                    parts.append(xp.broadcast_to(uq * uk, shape + (self.d,)))
        return xp.concat(parts, axis=-1)

    def _params(self, xp, like):
        """(W1, b1, W2, b2) in namespace ``xp`` on the device of ``like``."""
        return tuple(caller(like).asarray(p) for p in (self.W1, self.b1, self.W2, self.b2))

    def _first_layer(self, z):
        """a = W1 z + b1 over the last axis of z.  ``z`` (the caller's temporary) is released
        before ``+ b1`` allocates, so the allocator reuses its memory (as the one-expression
        NumPy code did: a live ``z`` costs fresh pages, ~30% of a dense forward at n = 160)."""
        xp = xp_of(z)
        W1, b1, _, _ = self._params(xp, z)
        with np.errstate(over="ignore", invalid="ignore"):
            a = xp.matmul(z, W1.T)
            del z
            return a + b1

    def _last_layer(self, h):
        """vec K = W2 h + b2 over the last axis of h, reshaped to (..., d, d) (``h`` released
        before ``+ b2``, as in :meth:`_first_layer`)."""
        xp = xp_of(h)
        _, _, W2, b2 = self._params(xp, h)
        shape = tuple(h.shape[:-1]) + (self.d, self.d)
        with np.errstate(over="ignore", invalid="ignore"):
            v = xp.matmul(h, W2.T)
            del h
            return xp.reshape(v + b2, shape)

    @operation("itnet.KernelMLP.inputs", note=GENERIC_NOTE, boundary=False)
    def inputs(self, Xq: Array, Xk: Array, Uq: Array, Uk: Array) -> Array:
        """z for all pairs: shape (nq, nk, D) (positions (n, s), features (n, d))."""
        Xq, Xk, Uq, Uk = self._pairs(Xq, Xk, Uq, Uk, matched=False)
        return self._z(Xq[:, None, :], Xk[None, :, :], Uq[:, None, :], Uk[None, :, :])

    @operation("itnet.KernelMLP.pair_inputs", note=GENERIC_NOTE, boundary=False)
    def pair_inputs(self, Xq: Array, Xk: Array, Uq: Array, Uk: Array) -> Array:
        """z for matched rows (pair p = (Xq[p], Xk[p])): shape (P, D)."""
        Xq, Xk, Uq, Uk = self._pairs(Xq, Xk, Uq, Uk, matched=True)
        return self._z(Xq, Xk, Uq, Uk)

    @operation("itnet.KernelMLP.kernel_pairs", note=GELU_NOTE, boundary=False)
    def kernel_pairs(self, Xq: Array, Xk: Array, Uq: Array, Uk: Array) -> Array:
        """kappa for matched rows: (P, d, d)."""
        a = self._first_layer(self.pair_inputs(Xq, Xk, Uq, Uk))
        with np.errstate(over="ignore", invalid="ignore"):
            return self._last_layer(_gelu(a, self.gelu, xp_of(a)))

    @operation("itnet.KernelMLP.preactivation", note=GENERIC_NOTE, boundary=False)
    def preactivation(self, Xq: Array, Xk: Array, Uq: Array, Uk: Array) -> Array:
        """a = W1 z + b1 for all pairs: (nq, nk, w)."""
        return self._first_layer(self.inputs(Xq, Xk, Uq, Uk))

    @operation("itnet.KernelMLP.hidden", note=GELU_NOTE, boundary=False)
    def hidden(self, Xq: Array, Xk: Array, Uq: Array, Uk: Array) -> Array:
        """h = GELU(a) for all pairs: (nq, nk, w)."""
        a = self.preactivation(Xq, Xk, Uq, Uk)
        return _gelu(a, self.gelu, xp_of(a))

    @operation("itnet.KernelMLP.kernel", note=GELU_NOTE, boundary=False)
    def kernel(self, Xq: Array, Xk: Array, Uq: Array, Uk: Array) -> Array:
        """K_ij = kappa(x_i, y_j, u_i, u_j) for all pairs: (nq, nk, d, d) (dense; small n only)."""
        return self._last_layer(self.hidden(Xq, Xk, Uq, Uk))

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

    @operation("itnet.KernelMLP.query_part", note=GENERIC_NOTE, boundary=False)
    def query_part(self, Xq: Array, Uq: Array, sw: SplitWeights | None = None) -> Array:
        """b1 + W1^gx gamma(x) + W1^ux u(x) per query: (nq, w)."""
        Xq, Uq = self._points(Xq, Uq, "Xq", "Uq")
        sw = self._split_arg(sw)
        xp = xp_of(Xq, Uq)
        B, b1, Wgx, Wux = (caller(Xq).asarray(p) for p in (self.B, self.b1, sw.Wgx, sw.Wux))
        with np.errstate(over="ignore", invalid="ignore"):
            return b1 + xp.matmul(_lift(Xq, B, xp), Wgx.T) + xp.matmul(Uq, Wux.T)

    @operation("itnet.KernelMLP.key_part", note=GENERIC_NOTE, boundary=False)
    def key_part(self, Xk: Array, Uk: Array, sw: SplitWeights | None = None) -> Array:
        """W1^gy gamma(y) + W1^uy u(y) per key: (nk, w)."""
        Xk, Uk = self._points(Xk, Uk, "Xk", "Uk")
        sw = self._split_arg(sw)
        xp = xp_of(Xk, Uk)
        B, Wgy, Wuy = (caller(Xk).asarray(p) for p in (self.B, sw.Wgy, sw.Wuy))
        with np.errstate(over="ignore", invalid="ignore"):
            return xp.matmul(_lift(Xk, B, xp), Wgy.T) + xp.matmul(Uk, Wuy.T)

    def _split_arg(self, sw):
        if sw is None:
            return self.split()
        if not isinstance(sw, SplitWeights):
            raise TypeError(f"sw must be None or the SplitWeights of this network (from "
                            f".split()), got {type(sw).__name__}")
        return sw

    @operation("itnet.KernelMLP.trig", note=GENERIC_NOTE, boundary=False)
    def trig(self, X: Array) -> tuple[Array, Array]:
        """(sin(2 pi X B^T), cos(2 pi X B^T)), each (n, L), or zero-width when "gd" is absent."""
        X = as_float_array(X, "X", ndim=(1, 2))
        xp = xp_of(X)
        if X.ndim == 1 and self.s == 1:
            X = xp.expand_dims(X, axis=1)
        if X.ndim != 2 or X.shape[1] != self.s:
            raise ValueError(f"X must have shape (n, s) with s = {self.s}, got {tuple(X.shape)}")
        if "gd" not in self._slices:
            z = caller(X).zeros((X.shape[0], 0), xp.float64)
            return z, z
        arg = _lift_argument(contiguous(X, xp), parameter(self, self.B, X), xp)
        return xp.sin(arg), xp.cos(arg)


@register("itnet.init_kernel_mlp", "reference", libraries=("numpy",), note="builds NumPy float64 parameters/nodes from Python numbers and a NumPy Generator")
def init_kernel_mlp(d: int, s: int = 1, *, n_keys: int, width: int = 128, L: int = 64,
                    sigma: float = 10.0, eps_init: float = 1e-3, groups: Sequence[str] = GROUPS,
                    gelu: str = "exact", rng: RNGLike = None,
                    B: npt.NDArray[np.float64] | None = None) -> KernelMLP:
    """A kernel MLP initialised as printed in 003 App H.3.1 (see the module docstring).

    ``n_keys`` is the n of ``b2 = 1/n`` on the diagonal.  ``B`` may be passed to share one frozen
    Fourier matrix between several networks (``share_B``); otherwise B ~ N(0, sigma^2).
    ``L`` (the number of Fourier frequencies L_f of 003 App H.2.1) must be >= 1 when ``groups``
    holds a Fourier group ("gx", "gy", "gd": each is the 2L features gamma); L = 0 is accepted only
    without them (positions then enter through the distance alone).  ``eps_init`` is the scale
    epsilon of W2 = epsilon W~2 (10^-3 in H.3.1; ||vec K|| ~ epsilon d): a finite real >= 0 (0:
    W2 = 0, every kernel starts as exactly b2).
    """
    d, s, n_keys, width = (check_int(v, k, minimum=1) for k, v in
                           (("d", d), ("s", s), ("n_keys", n_keys), ("width", width)))
    L = check_int(L, "L", minimum=0)
    sigma = check_real(sigma, "sigma", ge=0.0)
    eps_init = check_real(eps_init, "eps_init", ge=0.0)
    if isinstance(groups, str):
        raise TypeError(f"groups must be a sequence of names from {GROUPS}, got the string {groups!r}")
    for g in groups:
        check_choice(g, "groups", GROUPS)
    check_choice(gelu, "gelu", GELUS)
    groups = tuple(g for g in GROUPS if g in tuple(groups))
    if B is not None:
        B = as_float_array(B, "B", ndim=2)
        if B.shape[1] != s:
            raise ValueError(f"B must have shape (L, {s}), got {B.shape}")
        L = B.shape[0]
    fourier = [g for g in groups if g in FOURIER_GROUPS]
    if L == 0 and fourier:
        raise ValueError(f"L must be >= 1 (Fourier frequencies) with the Fourier groups "
                         f"{tuple(fourier)}, got L=0: they would have no features; leave them out "
                         f"of groups for a network without Fourier features")
    rng = as_rng(rng)
    if B is None:
        B = rng.normal(0.0, sigma, size=(L, s))
    sizes = {"gx": 2 * L, "gy": 2 * L, "gd": 2 * L, "dist": 1, "ux": d, "uy": d, "uxuy": d}
    D = sum(sizes[g] for g in groups)
    W1 = rng.normal(0.0, 0.02, size=(width, D))
    b1 = np.zeros(width)
    W2 = eps_init * rng.normal(0.0, 1.0 / math.sqrt(width), size=(d * d, width))
    b2 = np.zeros(d * d)
    b2[np.arange(d) * d + np.arange(d)] = 1.0 / n_keys
    return KernelMLP(W1, b1, W2, b2, B, d, groups, gelu)


@register("itnet.random_kernel_mlp", "reference", libraries=("numpy",), note="builds NumPy float64 parameters/nodes from Python numbers and a NumPy Generator")
def random_kernel_mlp(d: int, s: int = 1, *, width: int = 16, L: int = 4, sigma: float = 1.0,
                      scale: float = 1.0, groups: Sequence[str] = GROUPS, gelu: str = "exact",
                      rng: RNGLike = None) -> KernelMLP:
    """A kernel MLP with O(1) random weights (W1 ~ N(0, scale^2/D), W2 ~ N(0, scale^2/w),
    biases N(0, 0.1^2)): a strongly content-dependent kernel for tests, unlike the near-constant
    printed initialisation.  The arguments are checked as in :func:`init_kernel_mlp` (L >= 1
    with the Fourier groups, which the default ``groups`` hold)."""
    rng = as_rng(rng)
    scale = check_real(scale, "scale", ge=0.0)
    net = init_kernel_mlp(d, s, n_keys=1, width=width, L=L, sigma=sigma, groups=groups,
                          gelu=gelu, rng=rng)
    D = net.input_dim
    return net.with_params(W1=rng.normal(0, scale / math.sqrt(D), (width, D)),
                           b1=rng.normal(0, 0.1, width),
                           W2=rng.normal(0, scale / math.sqrt(width), (d * d, width)),
                           b2=rng.normal(0, 0.1, d * d))
