"""Low-rank ITNet (003 §3.3, Prop. 12; algorithms.md I8).

Kernel ``kappa(x, y, u(x), u(y)) ≈ Phi(x, u(x))^T Psi(y, u(y))`` with ``Phi, Psi in R^{r x d}``.
The *global-Z* evaluation is linear in n::

    Z = sum_j omega_j Psi_j u_j in R^r,        O_i = Phi_i^T Z + W u_i          (O(n r d))

(causal: prefix sums ``Z_i = sum_{j < i} omega_j Psi_j u_j + diag_weight omega_i Psi_i u_i``).
Heads: ``r_h = r / H`` rows of Phi/Psi act on the slice ``u^(h)`` (block structure).

The factors are either MLPs on ``[gamma(x); u]`` (:class:`FactorMLP`) or fixed tables per point
(e.g. from the SVD of a given kernel, :func:`svd_factors`).  The induced linear map has blocks
``M_ij = omega_j Phi_i^T Psi_j``.  Reported quantities (:func:`spectrum_report`): singular values,
``||K||_*``, ``||K - K_r||_F = sqrt(sum_{k>r} sigma_k^2)`` (Eckart-Young) and relative errors.

Array libraries: the factors (:class:`FactorMLP`, :meth:`LowRankOperator.factors`), the low-rank
kernel tensor and the global-Z evaluation are written against the array API standard and run in the
caller's library on its device (NumPy parameters and fixed factor tables moved there; NumPy
results bit for bit those of the NumPy-only code).  The fit-time tools stay on the host:
:func:`svd_factors` (LAPACK; NumPy at the boundary for other libraries), :func:`spectrum_report`
and :func:`als_fit` (NumPy only).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .._typing import Array, RNGLike
from .._validate import as_float_array, as_rng, check_int, check_memory, check_real
from .._registry import register
from .._array import parameter
from ._dispatch import GELU_NOTE, operation
from ._xp_ops import caller, contiguous, einsum, pow2_exponent, xp_of
from .measures import check_diag_weight
from .network import fourier_lift, gelu
from .operator import check_flag


def _points(X: Array, U: Array, d: int, nX: str, nU: str) -> tuple[Array, Array]:
    X = as_float_array(X, nX, ndim=(1, 2))
    xp = xp_of(X)
    X = xp.expand_dims(X, axis=1) if X.ndim == 1 else X
    U = as_float_array(U, nU, ndim=2)
    if U.shape != (X.shape[0], d):
        raise ValueError(f"{nU} must have shape ({X.shape[0]}, {d}) (one row of d = {d} features "
                         f"per row of {nX}), got {tuple(U.shape)}")
    xp = xp_of(X, U)
    return contiguous(X, xp), contiguous(U, xp)


@register("itnet.FactorMLP", "reference", libraries=("numpy",),
          note="NumPy parameters; calling it takes any library")
@dataclass
class FactorMLP:
    """x, u -> F(x, u) in R^{r x d}: one GELU hidden layer on [gamma(x); u]."""

    W1: np.ndarray
    b1: np.ndarray
    W2: np.ndarray
    b2: np.ndarray
    B: np.ndarray
    r: int
    d: int

    def __post_init__(self) -> None:
        self.r = check_int(self.r, "r", minimum=1)
        self.d = check_int(self.d, "d", minimum=1)
        for name in ("W1", "b1", "W2", "b2", "B"):
            setattr(self, name, as_float_array(getattr(self, name), name,
                                               ndim=1 if name[0] == "b" and name != "B" else 2))
        w, L = self.W1.shape[0], self.B.shape[0]
        want = {"W1": (w, 2 * L + self.d), "b1": (w,), "W2": (self.r * self.d, w),
                "b2": (self.r * self.d,)}
        for name, shape in want.items():
            if getattr(self, name).shape != shape:
                raise ValueError(f"{name} must have shape {shape} (width {w}, L = {L}, r = {self.r},"
                                 f" d = {self.d}), got {getattr(self, name).shape}")

    @operation("itnet.FactorMLP.__call__", note=GELU_NOTE, boundary=False)
    def __call__(self, X: Array, U: Array) -> Array:
        """F(x, u) for rows of X (n, s) and U (n, d): (n, r, d), in the library of X and U."""
        X, U = _points(X, U, self.d, "X", "U")
        if X.shape[1] != self.B.shape[1]:
            raise ValueError(f"X must have shape (n, {self.B.shape[1]}), got {tuple(X.shape)}")
        xp = xp_of(X, U)
        W1, b1, W2, b2, B = (caller(X).asarray(p)
                             for p in (self.W1, self.b1, self.W2, self.b2, self.B))
        z = xp.concat([fourier_lift(X, B), U], axis=1)
        with np.errstate(over="ignore", invalid="ignore"):
            h = gelu(xp.matmul(z, W1.T) + b1)
            return xp.reshape(xp.matmul(h, W2.T) + b2, (-1, self.r, self.d))


@register("itnet.init_factor_mlp", "reference", libraries=("numpy",), note="builds NumPy float64 parameters/nodes from Python numbers and a NumPy Generator")
def init_factor_mlp(d: int, s: int, r: int, *, width: int = 64, L: int = 16, sigma: float = 1.0,
                    rng: RNGLike = None) -> FactorMLP:
    """A random :class:`FactorMLP` (B ~ N(0, sigma^2), W1 ~ N(0, 1/D), W2 ~ N(0, 1/width))."""
    d, s, r = check_int(d, "d", minimum=1), check_int(s, "s", minimum=1), check_int(r, "r", minimum=1)
    width, L = check_int(width, "width", minimum=1), check_int(L, "L", minimum=0)
    sigma = check_real(sigma, "sigma", ge=0.0)
    rng = as_rng(rng)
    B = rng.normal(0, sigma, (L, s))
    D = 2 * L + d
    return FactorMLP(rng.normal(0, 1 / np.sqrt(D), (width, D)), np.zeros(width),
                     rng.normal(0, 1 / np.sqrt(width), (r * d, width)), rng.normal(0, 0.1, r * d), B, r, d)


@register("itnet.LowRankOperator", "reference", libraries=("numpy",),
          note="NumPy parameters; evaluated by itnet.apply (any library)")
@dataclass
class LowRankOperator:
    """O_i = sum_j omega_j m_ij Phi_i^T Psi_j u_j + W u_i evaluated with the global Z.

    ``phi`` and ``psi`` are callables ``(X, U) -> (n, r, d)`` (e.g. :class:`FactorMLP`) or fixed
    arrays of shape (n, r, d).  ``heads`` > 1 zeroes the off-block entries of Phi and Psi (r_h = r/H
    rows act on d_h = d/H features).
    """

    phi: object
    psi: object
    W: np.ndarray
    r: int
    d: int
    heads: int = 1
    causal: bool = False
    diag_weight: float = 1.0

    def __post_init__(self) -> None:
        self.r = check_int(self.r, "r", minimum=1)
        self.d = check_int(self.d, "d", minimum=1)
        self.heads = check_int(self.heads, "heads", minimum=1)
        self.W = as_float_array(self.W, "W", ndim=2)
        if self.W.shape != (self.d, self.d):
            raise ValueError(f"W must have shape ({self.d}, {self.d}), got {self.W.shape}")
        if self.r % self.heads or self.d % self.heads:
            raise ValueError(f"heads={self.heads} must divide r={self.r} and d={self.d}")
        for name in ("phi", "psi"):
            f = getattr(self, name)
            if not callable(f):
                F = as_float_array(f, name, ndim=3)
                if F.shape[1:] != (self.r, self.d):
                    raise ValueError(f"{name} must be a callable (X, U) -> (n, r, d) or an array "
                                     f"of shape (n, {self.r}, {self.d}), got {F.shape}")
                setattr(self, name, F)
        self.causal = check_flag(self.causal, "causal")
        self.diag_weight = check_diag_weight(self.diag_weight)

    def _factor(self, f: Any, X: Array, U: Array, name: str = "factor", nX: str = "X") -> Array:
        """The factor at the rows of X, U in their library: a callable is called with them (a NumPy
        result is moved to their device); a fixed table is moved there."""
        xp_of(X, U)                               # one array library (TypeError naming two)
        with np.errstate(over="ignore", invalid="ignore"):
            F = as_float_array(f(X, U) if callable(f) else f, name, check_finite=False)
        if tuple(F.shape) != (X.shape[0], self.r, self.d):
            raise ValueError(f"{name} must give shape ({X.shape[0]}, {self.r}, {self.d}) (one r x d "
                             f"factor per row of {nX}), got {tuple(F.shape)}")
        if isinstance(F, np.ndarray):
            F = caller(X).asarray(F)
        if self.heads > 1:
            rh, dh = self.r // self.heads, self.d // self.heads
            mask = np.kron(np.eye(self.heads), np.ones((rh, dh)))
            F = F * caller(F).asarray(mask)
        return F

    @operation("itnet.LowRankOperator.factors", note=GELU_NOTE, boundary=False)
    def factors(self, Xq: Array, Xk: Array, Uq: Array, Uk: Array) -> tuple[Array, Array]:
        """(Phi at the queries (nq, r, d), Psi at the keys (nk, r, d))."""
        Xq, Uq = _points(Xq, Uq, self.d, "Xq", "Uq")
        Xk, Uk = _points(Xk, Uk, self.d, "Xk", "Uk")
        return (self._factor(self.phi, Xq, Uq, "phi", "Xq"),
                self._factor(self.psi, Xk, Uk, "psi", "Xk"))

    @operation("itnet.LowRankOperator.kernel_tensor", note=GELU_NOTE, boundary=False)
    def kernel_tensor(self, Xq: Array, Xk: Array, Uq: Array, Uk: Array) -> Array:
        """K_ij = Phi_i^T Psi_j, (nq, nk, d, d) (dense; for checks; refuses up front when it
        would not fit in memory)."""
        nq, nk = np.shape(Xq)[0] if np.ndim(Xq) else 0, np.shape(Xk)[0] if np.ndim(Xk) else 0
        check_memory(8 * nq * nk * self.d * self.d, f"the ({nq}, {nk}, {self.d}, {self.d}) "
                     f"low-rank kernel tensor", alternative="yatmath.itnet.apply(mode='lowrank')")
        Phi, Psi = self.factors(Xq, Xk, Uq, Uk)
        from .dense import scaled_einsum
        return scaled_einsum("ira,jrb->ijab", Phi, Psi)


def lowrank_forward(op: LowRankOperator, Xq: Array, Xk: Array, Uq: Array, Uk: Array,
                    omega: Array) -> Array:
    """Global-Z evaluation, O(n r d), in the library of the inputs (the prefix sum of the causal
    form is ``cumsum`` for NumPy, the standard's ``cumulative_sum`` elsewhere)."""
    xp = xp_of(Xq, Xk, Uq, Uk, omega)
    Phi, Psi = op.factors(Xq, Xk, Uq, Uk)
    terms = omega[:, None] * einsum("jrb,jb->jr", Psi, Uk, xp=xp)   # omega_j Psi_j u_j, (nk, r)
    if op.causal:
        if Xq.shape[0] != Xk.shape[0]:
            raise ValueError("a causal operator needs queries and keys on one node set")
        prefix = np.cumsum(terms, axis=0) if xp is np else xp.cumulative_sum(terms, axis=0)
        Z = prefix - (1.0 - op.diag_weight) * terms
        I = einsum("ira,ir->ia", Phi, Z, xp=xp)
    else:
        I = einsum("ira,r->ia", Phi, xp.sum(terms, axis=0), xp=xp)
    return I + xp.matmul(Uq, parameter(op, op.W, Uq).T)


def kernel_matrix(K: npt.ArrayLike) -> npt.NDArray[Any]:
    """(nq, nk, d_out, d_in) kernel tensor -> the (nq d_out, nk d_in) block matrix [K_ij]."""
    K = np.asarray(K)
    nq, nk, a, b = K.shape
    return K.transpose(0, 2, 1, 3).reshape(nq * a, nk * b)


@operation("itnet.svd_factors", note="LAPACK SVD (numpy.linalg); " + "NumPy at the boundary for other libraries")
def svd_factors(K: Array, r: int) -> tuple[Array, Array]:
    """Best rank-r factors of [K_ij] (Eckart-Young): Phi (nq, r, d_out), Psi (nk, r, d_in) with
    sum_r Phi_i^T Psi_j = (K_r)_ij.

    ``K`` (nq, nk, d_out, d_in) finite, ``1 <= r <= min(nq d_out, nk d_in)`` an integer.  The SVD
    runs on K divided by a power of two (exact), so no square inside LAPACK overflows; Phi carries
    the singular values, and a sigma_1 above the float64 maximum raises OverflowError naming K.
    Accuracy: backward stable, ||Phi^T Psi - K_r|| ~ u ||K||_2.
    """
    K = as_float_array(K, "K", ndim=4)
    nq, nk, a, b = K.shape
    if K.size == 0:
        raise ValueError(f"K must be a non-empty (nq, nk, d_out, d_in) tensor, got shape {K.shape}")
    r = check_int(r, "r", minimum=1, maximum=min(nq * a, nk * b))
    A = kernel_matrix(K)
    e = pow2_exponent(float(np.abs(A).max()))   # exact rescaling: LAPACK never squares near overflow
    U, Sc, Vt = np.linalg.svd(np.ldexp(A, -e), full_matrices=False)
    with np.errstate(over="ignore"):
        S = np.ldexp(Sc, e)
    if not np.isfinite(S[0]):
        raise OverflowError(f"K: the largest singular value of the block matrix [K_ij] overflows "
                            f"float64 (sigma_1 = {Sc[0]:.6g} * 2^{e}, "
                            f"max|K| = {float(np.abs(A).max()):.3g}); scale K down")
    Phi = (U[:, :r] * S[:r]).reshape(nq, a, r).transpose(0, 2, 1)
    Psi = Vt[:r].reshape(r, nk, b).transpose(1, 0, 2)
    return Phi, Psi


def spectrum_report(K: npt.ArrayLike) -> dict[str, Any]:
    """Singular values of [K_ij], nuclear norm, and ||K - K_r||_F for every r (index r-1 -> rank r)."""
    A = as_float_array(K, "K", ndim=(2, 4))
    A = kernel_matrix(A) if A.ndim == 4 else A
    e = pow2_exponent(float(np.abs(A).max()) if A.size else 0.0)   # squares of s / 2^e: no overflow
    sc = np.linalg.svd(np.ldexp(A, -e), compute_uv=False)
    tail_c = np.sqrt(np.maximum(np.cumsum((sc ** 2)[::-1])[::-1], 0.0))
    with np.errstate(over="ignore"):
        s, err = np.ldexp(sc, e), np.ldexp(np.append(tail_c[1:], 0.0), e)
        fro = float(np.ldexp(np.linalg.norm(sc), e))
        nuclear = float(np.ldexp(sc.sum(), e))
    return {"sigma": s, "nuclear": nuclear, "fro": fro,
            "err_fro": err, "rel_err_fro": np.append(tail_c[1:], 0.0) / max(
                float(np.linalg.norm(sc)), np.finfo(float).tiny),
            "prop12_bound": nuclear / np.sqrt(np.arange(1, s.size + 1))}


def als_fit(K: npt.ArrayLike, r: int, *, iters: int = 50, rng: RNGLike = None
            ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Alternating least squares for min sum_ij ||K_ij - Phi_i^T Psi_j||_F^2.

    Each half-step is an exact least-squares solve on the block matrix; returns (Phi, Psi, history
    of the Frobenius error)."""
    K = as_float_array(K, "K", ndim=4)
    A = kernel_matrix(K)
    nq, nk, a, b = K.shape
    r = check_int(r, "r", minimum=1, maximum=min(A.shape))
    iters = check_int(iters, "iters", minimum=1)
    rng = as_rng(rng)
    P = rng.normal(size=(nq * a, r))
    hist = []
    for _ in range(iters):
        Q = np.linalg.lstsq(P, A, rcond=None)[0]            # (r, nk b)
        P = np.linalg.lstsq(Q.T, A.T, rcond=None)[0].T      # (nq a, r)
        hist.append(float(np.linalg.norm(A - P @ Q)))
    Phi = P.reshape(nq, a, r).transpose(0, 2, 1)
    Psi = Q.reshape(r, nk, b).transpose(1, 0, 2)
    return Phi, Psi, np.array(hist)
