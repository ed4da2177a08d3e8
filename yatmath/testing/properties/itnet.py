"""Properties of the ITNet operator evaluations (003; ``yatmath.itnet``).

Implementations:

    tiled(op, U, measure, tile) -> O        a memory-bounded evaluation (``itnet.apply(...,
                                            mode="tiled", tile=tile)``)
    dense(op, U, measure) -> O              the reference (default: ``itnet.apply(..., mode="dense")``)
    factorise(K, r) -> (Phi, Psi)           rank-r factors of a kernel tensor K (nq, nk, a, b) with
                                            (K_r)_ij = sum_r Phi_i^T Psi_j (``itnet.svd_factors``)
    mc(seed) -> O                           one Monte Carlo evaluation of the operator
                                            (``itnet.apply(..., mode="mc", M=..., rng=seed)``)
    apply(op, U, measure) -> O              any evaluation (linearity in u)
    conv(f, x, **options) -> y              a convolution through its ITNet kernel
                                            (``special.conv.conv_kernel(...).apply``)
    evaluate(A, B, C, U, convention, D)     a linear RNN / SSM through its ITNet kernel
    evaluate(U, Wq, Wk, Wv, omega, causal, diag_weight)   attention through its ITNet kernel

The special cases are compared with direct implementations written here from NumPy / SciPy
primitives (``conv_direct``, ``ssm_direct``, ``attention_direct``), not with yatmath's own.

The rounding tolerance of the operator output uses the magnitudes of the kernel network
(``_output_magnitude``): for a single-head operator with kernel MLP (W1, b1, W2, b2),

    S_ia = sum_j |c_ij| sum_b Kmag_ij,ab |u_jb| + sum_b |W_ab| |u_ib|,
    Kmag = |W2| (|h| + 2 amag) + |b2|,  amag = |W1| (|z| + P_ij) + |b1|,

with z the MLP input and h its hidden layer (yatmath's own ``KernelMLP.inputs`` / ``hidden``),
P_ij = 1 + 2 pi max_l (|B_l|.|x_i| + |B_l|.|x_j|) the scale of the absolute error of the Fourier
lift (network.py docstring: the angle-difference gamma(x - y) is exact to ~|2 pi B x| u), and the
factor 2 the bound 1.13 of GELU's derivative rounded up.  Any evaluation order of the first
layer (D terms), the last layer (w terms) and the key sum (nk d terms) is within gamma_m S,
m = D + w + nk d + d + 16 (Higham's bound for sums and dot products; 16 roundings for the
elementwise steps).
"""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from ._core import U64, gamma, host64, prop, unit_roundoff, worst_outside
from .features import _judge_mean, eckart_young_check

__all__ = ["itnet_output_tolerance", "itnet_tiled_matches_dense", "itnet_lowrank_optimal",
           "itnet_mc_unbiased", "itnet_linear_in_u", "U_GROUPS", "conv_direct",
           "itnet_conv_matches_direct", "ssm_direct", "itnet_ssm_matches_recurrence",
           "attention_direct", "itnet_attention_matches_direct"]


def _output_magnitude(op: Any, Xq: Any, Xk: Any, Uq: Any, Uk: Any,
                      omega: npt.ArrayLike) -> tuple[npt.NDArray[np.float64], int]:
    """(S (nq, d), m): the magnitude S of the module docstring and the count m."""
    from ...itnet.dense import pair_weights
    from ...itnet.operator import ITNetOperator

    if not isinstance(op, ITNetOperator):
        raise TypeError("the ITNet output tolerance covers a single-head ITNetOperator, got "
                        f"{type(op).__name__}")
    net = op.kernel
    z = host64(net.inputs(Xq, Xk, Uq, Uk))                  # (nq, nk, D)
    h = host64(net.hidden(Xq, Xk, Uq, Uk))                  # (nq, nk, w)
    B = np.abs(net.B)
    Xq2 = np.abs(np.asarray(Xq, np.float64).reshape(len(Xq), -1))
    Xk2 = np.abs(np.asarray(Xk, np.float64).reshape(len(Xk), -1))
    lift = 1 + 2 * math.pi * (Xq2 @ B.T)[:, None, :] + 2 * math.pi * (Xk2 @ B.T)[None, :, :]
    P = lift.max(-1, initial=1.0)                           # (nq, nk)
    amag = (np.abs(z) + P[..., None]) @ np.abs(net.W1).T + np.abs(net.b1)
    d = net.d
    Kmag = ((np.abs(h) + 2 * amag) @ np.abs(net.W2).T + np.abs(net.b2)).reshape(
        z.shape[0], z.shape[1], d, d)
    c = np.abs(host64(pair_weights(np.asarray(omega, np.float64), Xq2.shape[0], op.causal,
                                   op.diag_weight)))
    S = (np.einsum("ij,ijab,jb->ia", c, Kmag, np.abs(host64(Uk)))
         + np.abs(host64(Uq)) @ np.abs(op.W).T)
    m = net.input_dim + net.width + Xk2.shape[0] * d + d + 16
    return S, m


def itnet_output_tolerance(op: Any, U: npt.ArrayLike, measure: Any, *,
                           Xq: npt.ArrayLike | None = None, Uq: npt.ArrayLike | None = None,
                           dtype: npt.DTypeLike = np.float64) -> npt.NDArray[np.float64]:
    """gamma_m(u) S + gamma_m(u64) S: the allowed difference of an evaluation in ``dtype`` from
    the float64 reference (module docstring)."""
    Xk, om = measure.nodes, measure.weights
    Xq = Xk if Xq is None else Xq
    Uq = U if Uq is None else Uq
    S, m = _output_magnitude(op, Xq, Xk, Uq, U, om)
    return (gamma(m, unit_roundoff(dtype)) + gamma(m, U64)) * S


@prop("itnet.tiled_matches_dense", "itnet",
      "003 §3.1 and App H (Alg. 1/2: the tiled/streamed evaluation computes the same sum "
      "O_i = sum_j omega_j m_ij K_ij u_j + W u_i as the dense one); yatmath/itnet/evaluate.py "
      "docstring ('tiled: <= 1e-12 rel. vs dense' in float64)",
      "|O_tiled - O_dense| <= (gamma_m(u) + gamma_m(u64)) S entrywise, S and m from the kernel "
      "network's magnitudes (yatmath.testing.properties.itnet module docstring); u of the tiled "
      "result's dtype")
def itnet_tiled_matches_dense(tiled: Callable[..., Any], dense: Callable[..., Any], op: Any,
                              U: npt.ArrayLike, measure: Any, tile: int | tuple[int, int], *,
                              Xq: npt.ArrayLike | None = None,
                              Uq: npt.ArrayLike | None = None) -> None:
    """A tiled evaluation equals the dense one for any shapes and tile sizes, to rounding."""
    spec = itnet_tiled_matches_dense.spec
    kw = {} if Xq is None else dict(Xq=Xq, Uq=Uq)
    Ot_raw = tiled(op, U, measure, tile, **kw)
    Ot, Od = host64(Ot_raw), host64(dense(op, U, measure, **kw))
    spec.check(Ot.shape == Od.shape, f"tiled output shape {Ot.shape}, dense {Od.shape}")
    tol = itnet_output_tolerance(op, np.asarray(U, np.float64), measure, Xq=Xq,
                                 Uq=None if Uq is None else np.asarray(Uq, np.float64),
                                 dtype=getattr(Ot_raw, "dtype", np.float64))
    err = np.abs(Ot - Od)
    k = worst_outside(err, tol)
    if k is not None:
        spec.fail(f"O[{k[0]}, {k[1]}]: tiled {Ot[k]!r}, dense {Od[k]!r} (|diff| = {err[k]:.3g}; "
                  f"tile = {tile}, n = {measure.n}, d = {op.d}, causal = {op.causal})", tol[k])


@prop("itnet.lowrank_optimal", "itnet",
      "003 §3.3, Prop. 12 and yatmath/itnet/lowrank.py (svd_factors: 'best rank-r factors of "
      "[K_ij] (Eckart-Young)'): the block matrix [sum_r Phi_i^T Psi_j] is the rank-r truncated "
      "SVD of [K_ij] (yatmath.itnet.lowrank.kernel_matrix)",
      "as lowrank.truncated_svd_optimal on the (nq a, nk b) block matrix: rank <= r + tau, "
      "Frobenius and spectral errors within 2 tau of the optimum, tau = (32 max(m,n) "
      "sqrt(min(m,n)) u64 + gamma_{r+2} sqrt(m n)) ||[K]||_2")
def itnet_lowrank_optimal(factorise: Callable[..., Any], K: npt.ArrayLike, rank: int) -> None:
    """Rank-r kernel factors reach the Eckart-Young optimum of the kernel's block matrix."""
    from ...itnet.lowrank import kernel_matrix

    spec = itnet_lowrank_optimal.spec
    K = host64(K)
    Phi, Psi = factorise(K, rank)
    Phi, Psi = host64(Phi), host64(Psi)
    nq, nk, a, b = K.shape
    spec.check(Phi.shape == (nq, rank, a) and Psi.shape == (nk, rank, b),
               f"factors of shapes {Phi.shape}, {Psi.shape}; expected ({nq}, {rank}, {a}) and "
               f"({nk}, {rank}, {b})")
    Kr = np.einsum("ira,jrb->ijab", Phi, Psi)
    eckart_young_check(spec, kernel_matrix(K), kernel_matrix(Kr), rank, "[K_r]")


@prop("itnet.mc_unbiased", "itnet",
      "003 §3.2, eq. 13 and App H.11 (yatmath/itnet/mc.py docstring): "
      "E[I_hat_i] = sum_j omega_j m_ij K_ij u_j for any proposal q > 0 on the keys (importance "
      "weights c_ij / (M q_ij); Horvitz-Thompson n/M without replacement)",
      "the t-test of estimator.unbiased at level alpha over the nq d entries (failure probability "
      "<= alpha under the property), plus the rounding allowance 4 gamma_m(u64) S of the dense "
      "reference (module docstring; it alone judges a zero-variance estimator)")
def itnet_mc_unbiased(mc: Callable[[int], Any], op: Any, U: npt.ArrayLike, measure: Any, *,
                      replicates: int = 200, alpha: float = 1e-6,
                      dense: Callable[..., Any] | None = None) -> None:
    """Monte Carlo evaluations average to the dense operator output."""
    from ...itnet import apply

    U = np.asarray(U, np.float64)
    exact = host64(apply(op, U, measure) if dense is None else dense(op, U, measure))
    rounding = 2 * itnet_output_tolerance(op, U, measure)
    S = np.stack([host64(mc(r)).reshape(exact.shape) for r in range(replicates)])
    _judge_mean(itnet_mc_unbiased.spec, S, exact, alpha, rounding, "output entry")



# ----------------------------------------------------------------------------------------------
#: the kernel-network input groups that read the features u (yatmath.itnet.network.GROUPS)
U_GROUPS = ("ux", "uy", "uxuy")


@prop("itnet.linear_in_u", "itnet",
      "003 Def. 1 / eq. 4 (yatmath/itnet/operator.py: O_i = sum_j omega_j m_ij K_ij u_j + W u_i): "
      "when the kernel network reads no feature group (K_ij = kappa(x_i, y_j), groups without "
      "ux, uy, uxuy) the operator is linear in u: O(a U + b V) = a O(U) + b O(V)",
      "|O(a U + b V) - a O(U) - b O(V)| <= 2 T entrywise, T = (gamma_m(u) + gamma_m(u64)) "
      "S(|a| |U| + |b| |V|) the output tolerance of the module docstring (S is linear in |u| "
      "when K ignores u, so it bounds the three evaluations' errors gamma_m S, the rounding of "
      "a U + b V propagated through the operator, gamma_2 S, and the final combination, "
      "gamma_3 S: 4 gamma_m S <= 2 T)")
def itnet_linear_in_u(apply: Callable[..., Any], op: Any, U: npt.ArrayLike, V: npt.ArrayLike,
                      a: float, b: float, measure: Any) -> None:
    """``apply(op, U, measure)`` is linear in the features for an operator whose kernel does
    not read them (the property's hypothesis; ValueError otherwise)."""
    spec = itnet_linear_in_u.spec
    used = [g for g in op.kernel.groups if g in U_GROUPS]
    if used:
        raise ValueError(f"the kernel reads the feature groups {used}: the operator is not linear "
                         "in u (the property needs groups without ux, uy, uxuy)")
    U = np.asarray(U, np.float64)
    V = np.asarray(V, np.float64)
    a, b = float(a), float(b)
    Ow = host64(apply(op, a * U + b * V, measure))
    Ou, Ov = host64(apply(op, U, measure)), host64(apply(op, V, measure))
    spec.check(Ow.shape == Ou.shape == U.shape, f"outputs of shapes {Ow.shape}, {Ou.shape} for "
               f"features of shape {U.shape}")
    tol = 2 * itnet_output_tolerance(op, abs(a) * np.abs(U) + abs(b) * np.abs(V), measure)
    err = np.abs(Ow - (a * Ou + b * Ov))
    k = worst_outside(err, tol)
    if k is not None:
        spec.fail(f"O(aU + bV)[{k[0]}, {k[1]}] = {Ow[k]!r}, a O(U) + b O(V) = "
                  f"{a * Ou[k] + b * Ov[k]!r} (|diff| = {err[k]:.3g}; a = {a:g}, b = {b:g}, n = "
                  f"{measure.n}, groups = {op.kernel.groups}, causal = {op.causal})", tol[k])


# ----------------------------------------------------------------------------------------------
def _dilate(f: npt.NDArray[np.float64], dilation: tuple[int, ...]) -> npt.NDArray[np.float64]:
    shp = f.shape[:2] + tuple((k - 1) * dl + 1 for k, dl in zip(f.shape[2:], dilation))
    fd = np.zeros(shp)
    fd[(slice(None), slice(None)) + tuple(slice(None, None, dl) for dl in dilation)] = f
    return fd


def _correlate_valid(x: npt.NDArray[np.float64], f: npt.NDArray[np.float64],
                     flip: bool) -> npt.NDArray[np.float64]:
    """'valid' cross-correlation (flip=False) or convolution (flip=True) of one channel, by
    numpy.correlate / numpy.convolve in 1-D and scipy.signal's direct method otherwise."""
    import scipy.signal as ss

    if x.ndim == 1:
        return np.convolve(x, f, mode="valid") if flip else np.correlate(x, f, mode="valid")
    fn = ss.convolve if flip else ss.correlate
    return fn(x, f, mode="valid", method="direct")


def conv_direct(f: npt.ArrayLike, x: npt.ArrayLike, *, convention: str = "corr",
                stride: int | tuple[int, ...] = 1, dilation: int | tuple[int, ...] = 1,
                groups: int = 1, boundary: str = "same") -> npt.NDArray[np.float64]:
    """A direct multi-channel convolution with yatmath.itnet.special.conv's conventions (PyTorch
    layout f[o, c, k...], x[c, grid...]), built from numpy.correlate / numpy.convolve (1-D) and
    scipy.signal.correlate / convolve (method "direct") with the filter dilated by zero
    insertion: boundary "valid" (no padding), "same" (zeros, dilation (k-1)//2 per side, odd k)
    or "wrap" (periodic, span//2 before and the rest after); ``stride`` subsamples the result.
    The "conv" convention is numpy's / scipy's convolve (the filter flipped by them, not here)."""
    f = np.asarray(f, np.float64)
    x = np.asarray(x, np.float64)
    s = x.ndim - 1
    stride = (stride,) * s if np.ndim(stride) == 0 else tuple(stride)  # type: ignore[arg-type]
    dilation = (dilation,) * s if np.ndim(dilation) == 0 else tuple(dilation)  # type: ignore[arg-type]
    span = [dl * (k - 1) for dl, k in zip(dilation, f.shape[2:])]
    if boundary == "same":
        xp = np.pad(x, [(0, 0)] + [(sp // 2, sp // 2) for sp in span])
    elif boundary == "wrap":
        xp = np.pad(x, [(0, 0)] + [(sp // 2, sp - sp // 2) for sp in span], mode="wrap")
    else:
        xp = x
    fd = _dilate(f, dilation)  # type: ignore[arg-type]
    C_out, cpg = f.shape[:2]
    opg = C_out // groups
    out = []
    for o in range(C_out):
        g0 = (o // opg) * cpg
        out.append(sum(_correlate_valid(xp[g0 + c], fd[o, c], convention == "conv")
                       for c in range(cpg)))
    y = np.array(out)
    return y[(slice(None),) + tuple(slice(None, None, st) for st in stride)]


@prop("itnet.conv_matches_direct", "itnet",
      "003 Thm 1 / Thm C.1 (App C.6-C.12) and yatmath/itnet/special/conv.py docstring: on a grid "
      "y(x_i) = sum_m f_m u(x_i + m h) is the ITNet integral with K_ij = f_{j-i} / omega_j "
      "(cross-correlation; the flipped filter for 'conv'), with channels, groups, dilation, "
      "stride and the boundaries valid / same (zeros) / wrap (periodic)",
      "|y_itnet - y_direct| <= (gamma_{nk C_in + prod k + 4} + gamma_{C_in/groups prod k + 2}) "
      "(1 + gamma_{C_in/groups prod k + 2}) (|f| * |x|) entrywise: the ITNet sum runs over "
      "all nk C_in keys and channels (K = f / omega then omega K: two roundings; taps that share "
      "a key are added), the direct one over the cpg prod k taps; |f| * |x| is the direct "
      "convolution of the absolute values")
def itnet_conv_matches_direct(conv: Callable[..., Any], f: npt.ArrayLike, x: npt.ArrayLike,
                              **options: Any) -> None:
    """``conv(f, x, **options)`` (an ITNet evaluation of a convolution, e.g. ``conv_kernel(f,
    x.shape[1:], **options).apply(x)``) equals the direct convolution :func:`conv_direct`."""
    spec = itnet_conv_matches_direct.spec
    f = np.asarray(f, np.float64)
    x = np.asarray(x, np.float64)
    direct_opts = {k: v for k, v in options.items() if k != "weight"}
    ref = conv_direct(f, x, **direct_opts)
    mag = conv_direct(np.abs(f), np.abs(x), **direct_opts)
    y = host64(conv(f, x, **options))
    spec.check(y.shape == ref.shape, f"returned shape {y.shape}, the direct convolution "
               f"{ref.shape} (f {f.shape}, x {x.shape}, {options})")
    taps = int(np.prod(f.shape[2:]))
    cpg = f.shape[1]
    C_in = x.shape[0]
    dil = options.get("dilation", 1)
    dil = (dil,) * (x.ndim - 1) if np.ndim(dil) == 0 else tuple(dil)
    pads = [dl * (k - 1) // 2 if options.get("boundary", "same") == "same" else 0
            for dl, k in zip(dil, f.shape[2:])]
    nk = int(np.prod([n + 2 * p for n, p in zip(x.shape[1:], pads)]))      # the ITNet keys
    m2 = cpg * taps + 2
    tol = (gamma(nk * C_in + taps + 4) + gamma(m2)) * (1 + gamma(m2)) * mag
    err = np.abs(y - ref)
    k = worst_outside(err, tol)
    if k is not None:
        spec.fail(f"y{tuple(int(i) for i in k)} = {y[k]!r}, direct {ref[k]!r} (|diff| = "
                  f"{err[k]:.3g}; f {f.shape}, x {x.shape}, {options})", tol[k])


# ----------------------------------------------------------------------------------------------
def ssm_direct(A: npt.ArrayLike, B: npt.ArrayLike, C: npt.ArrayLike, U: npt.ArrayLike, *,
               convention: str = "C2", D: npt.ArrayLike | None = None,
               absolute: bool = False) -> npt.NDArray[np.float64]:
    """The direct recurrence of a linear RNN / discrete SSM from h = 0 (yatmath/itnet/special/
    recurrent.py conventions): C2 h_t = A h_{t-1} + B u_t, y_t = C h_t; C1 y_t = C h_t,
    h_{t+1} = A h_t + B u_t; plus D u_t.  ``absolute``: the same with |A|, |B|, |C|, |D|, |u|
    (the magnitude S_t of the error bounds)."""
    A, B, C, U = (np.asarray(M, np.float64) for M in (A, B, C, U))
    if absolute:
        A, B, C, U = np.abs(A), np.abs(B), np.abs(C), np.abs(U)
        D = None if D is None else np.abs(np.asarray(D, np.float64))
    h = np.zeros(A.shape[0])
    Y = np.zeros((U.shape[0], C.shape[0]))
    for t in range(U.shape[0]):
        if convention == "C2":
            h = A @ h + B @ U[t]
            Y[t] = C @ h
        else:
            Y[t] = C @ h
            h = A @ h + B @ U[t]
    if D is not None:
        Y = Y + U @ np.asarray(D, np.float64).T
    return Y


@prop("itnet.ssm_matches_recurrence", "itnet",
      "003 Thm 3 / Thm E.1 (Props 7-8, App E.4-E.11) and yatmath/itnet/special/recurrent.py "
      "docstring: a linear RNN / discrete SSM is the causal ITNet operator with kernel "
      "K[t, s] = C A^(t-s) B (C2, s <= t) or C A^(t-1-s) B (C1, s < t), unit weights and the "
      "feed-through W = D",
      "|Y_itnet - Y_direct| <= 2 gamma_{(n+2)(N+m) + n m + 4} S entrywise, S the recurrence on "
      "|A|, |B|, |C|, |D|, |u| (ssm_direct(absolute=True)): the powers A^k by k products carry "
      "gamma_{kN} |A|^k, C A^k B and the n m-term key sum the rest; the direct recurrence "
      "gamma_{N+m} per step on |A| |h| + |B| |u|, accumulated over the n steps")
def itnet_ssm_matches_recurrence(evaluate: Callable[..., Any], A: npt.ArrayLike, B: npt.ArrayLike,
                                 C: npt.ArrayLike, U: npt.ArrayLike, *, convention: str = "C2",
                                 D: npt.ArrayLike | None = None) -> None:
    """``evaluate(A, B, C, U, convention, D)`` (e.g. ``apply_kernel_tensor(linear_kernel(A, B,
    C, n, convention=convention), U, ones(n), W=D)``) equals the direct recurrence."""
    spec = itnet_ssm_matches_recurrence.spec
    ref = ssm_direct(A, B, C, U, convention=convention, D=D)
    S = ssm_direct(A, B, C, U, convention=convention, D=D, absolute=True)
    Y = host64(evaluate(A, B, C, U, convention, D))
    spec.check(Y.shape == ref.shape, f"returned shape {Y.shape}, the recurrence {ref.shape}")
    n, m = np.shape(U)
    N = np.shape(A)[0]
    tol = 2 * gamma((n + 2) * (N + m) + n * m + 4) * S
    err = np.abs(Y - ref)
    k = worst_outside(err, tol)
    if k is not None:
        spec.fail(f"y[{k[0]}, {k[1]}] = {Y[k]!r}, direct recurrence {ref[k]!r} (|diff| = "
                  f"{err[k]:.3g}; convention {convention}, n = {n}, N = {N}, m = {m})", tol[k])


# ----------------------------------------------------------------------------------------------
def _elu1(x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    return np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))


def attention_direct(U: npt.ArrayLike, Wq: npt.ArrayLike, Wk: npt.ArrayLike, Wv: npt.ArrayLike,
                     omega: npt.ArrayLike, *, causal: bool = False, diag_weight: float = 1.0,
                     kind: str = "softmax") -> tuple[npt.NDArray[np.float64],
                                                    npt.NDArray[np.float64],
                                                    npt.NDArray[np.float64]]:
    """(O, P, Delta): weighted attention computed directly, O_i = sum_j P_ij V_j with
    P_ij = omega_j m_ij w_ij / sum_l omega_l m_il w_il, w_ij = exp(q_i.k_j / sqrt(d_k))
    (``kind="softmax"``: scipy.special.softmax of the scores plus log(omega_j m_ij)) or
    phi(q_i).phi(k_j) with phi = elu + 1 (``kind="linear"``), m the causal mask (1 below the
    diagonal, ``diag_weight`` on it); Delta_i bounds the relative error of row i's weights
    (see itnet.attention_matches_direct)."""
    from scipy.special import softmax

    U, Wq, Wk, Wv = (np.asarray(M, np.float64) for M in (U, Wq, Wk, Wv))
    omega = np.asarray(omega, np.float64)
    n, d = U.shape
    dk = Wq.shape[0]
    m = np.ones((n, n))
    if causal:
        m = np.tril(m, -1) + diag_weight * np.eye(n)
    Q, K, V = U @ Wq.T, U @ Wk.T, U @ Wv.T
    Qm, Km = np.abs(U) @ np.abs(Wq).T, np.abs(U) @ np.abs(Wk).T
    cw = omega[None, :] * m
    g = gamma(d + 2)
    if kind == "softmax":
        Ssc = Q @ K.T / math.sqrt(dk)
        mag = Qm @ Km.T / math.sqrt(dk)
        with np.errstate(divide="ignore"):
            P = softmax(np.where(cw > 0, Ssc + np.log(np.where(cw > 0, cw, 1.0)), -np.inf), axis=1)
        # scores: gamma_{2d + dk + 4} |q||k| (q, k from U: gamma_d each, then the dot product);
        # the shift by the row maximum: u |s - c| <= 2 u max |s|
        Delta = (gamma(2 * d + dk + 4) + 4 * U64) * np.where(cw > 0, mag, 0.0).max(1)
    else:
        pq, pk = _elu1(Q), _elu1(K)
        Ssc = pq @ pk.T
        w = cw * Ssc
        P = w / w.sum(1, keepdims=True)
        # phi(q), phi(k): the projections' gamma_d |U||W| (phi' <= 1) and 2 ulps of elu + 1;
        # the d_k-term dot product of positive terms: gamma_{d_k}
        rel = gamma(dk + 6) + g * (Qm @ pk.T + pq @ Km.T) / np.maximum(Ssc, 1e-300)
        Delta = np.where(cw > 0, rel, 0.0).max(1)
    return P @ V, P, Delta


@prop("itnet.attention_matches_direct", "itnet",
      "003 Thm 2 / Thm D.1 (Props 5-6) as yatmath/itnet/special/attention.py states it: "
      "K_ij = alpha_ij W_V with alpha_ij = e_ij / Z_i, Z_i = sum_l omega_l m_il e_il (so that "
      "sum_j omega_j m_ij alpha_ij = 1), applied with the causal mask: the ITNet output is the "
      "omega-weighted attention sum_j omega_j m_ij e_ij V_j / Z_i, standard softmax(QK^T/sqrt "
      "d_k) V under omega = 1/n; the same for linear attention (phi = elu + 1).  Only this "
      "equality is claimed: alpha depends on all of U, so the kernel is not a Definition-1/8 "
      "kernel kappa(x_i, y_j, u_i, u_j) (ledger; 003 Thm 2 is not checked here)",
      "|O_itnet - O_direct|_i <= 2 sum_j P_ij [(2 Delta_i + gamma_{2n+8}) |V_j| + "
      "gamma_{n d + d + 8} (|U||W_V|^T)_j]: Delta_i bounds the relative error of row i's weights "
      "in either evaluation (softmax: the scores' rounding gamma_{2d+d_k+4} |q_i||k_j|/sqrt(d_k) "
      "and the shift 4u max|s|, which exp turns into relative errors; linear: gamma_{d_k+6} + "
      "gamma_{d+2} (|q||phi(k)| + |phi(q)||k|)/phi(q).phi(k)); the normalisation adds "
      "gamma_{2n+8}, V = U W_V^T and the key sum gamma_{nd+d+8} on the magnitudes")
def itnet_attention_matches_direct(evaluate: Callable[..., Any], U: npt.ArrayLike,
                                   Wq: npt.ArrayLike, Wk: npt.ArrayLike, Wv: npt.ArrayLike,
                                   omega: npt.ArrayLike, *, causal: bool = False,
                                   diag_weight: float = 1.0, kind: str = "softmax") -> None:
    """``evaluate(U, Wq, Wk, Wv, omega, causal, diag_weight)`` (the ITNet evaluation of the
    attention kernel, e.g. ``apply_kernel_tensor(attention_kernel(...), U, omega, mask=...)``)
    equals the directly computed weighted attention :func:`attention_direct`."""
    spec = itnet_attention_matches_direct.spec
    ref, P, Delta = attention_direct(U, Wq, Wk, Wv, omega, causal=causal,
                                     diag_weight=diag_weight, kind=kind)
    O = host64(evaluate(U, Wq, Wk, Wv, omega, causal, diag_weight))
    spec.check(O.shape == ref.shape, f"returned shape {O.shape}, the direct attention {ref.shape}")
    n, d = np.shape(U)
    Vabs = np.abs(np.asarray(U, np.float64) @ np.asarray(Wv, np.float64).T)
    Vm = np.abs(np.asarray(U, np.float64)) @ np.abs(np.asarray(Wv, np.float64)).T
    tol = 2 * (((2 * Delta + gamma(2 * n + 8))[:, None] * (P @ Vabs))
               + gamma(n * d + d + 8) * (P @ Vm))
    err = np.abs(O - ref)
    k = worst_outside(err, tol)
    if k is not None:
        spec.fail(f"O[{k[0]}, {k[1]}] = {O[k]!r}, direct {kind} attention {ref[k]!r} (|diff| = "
                  f"{err[k]:.3g}; n = {n}, causal = {causal}, diag_weight = {diag_weight})",
                  tol[k])
