"""Properties of the ITNet operator evaluations (003; ``yatmath.itnet``).

Implementations:

    tiled(op, U, measure, tile) -> O        a memory-bounded evaluation (``itnet.apply(...,
                                            mode="tiled", tile=tile)``)
    dense(op, U, measure) -> O              the reference (default: ``itnet.apply(..., mode="dense")``)
    factorise(K, r) -> (Phi, Psi)           rank-r factors of a kernel tensor K (nq, nk, a, b) with
                                            (K_r)_ij = sum_r Phi_i^T Psi_j (``itnet.svd_factors``)
    mc(seed) -> O                           one Monte Carlo evaluation of the operator
                                            (``itnet.apply(..., mode="mc", M=..., rng=seed)``)

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

import numpy as np

from ._core import U64, gamma, host64, prop, unit_roundoff, worst_outside
from .features import _judge_mean, eckart_young_check

__all__ = ["itnet_output_tolerance", "itnet_tiled_matches_dense", "itnet_lowrank_optimal",
           "itnet_mc_unbiased"]


def _output_magnitude(op, Xq, Xk, Uq, Uk, omega):
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


def itnet_output_tolerance(op, U, measure, *, Xq=None, Uq=None, dtype=np.float64):
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
def itnet_tiled_matches_dense(tiled, dense, op, U, measure, tile, *, Xq=None, Uq=None):
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
def itnet_lowrank_optimal(factorise, K, rank):
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
def itnet_mc_unbiased(mc, op, U, measure, *, replicates=200, alpha=1e-6, dense=None):
    """Monte Carlo evaluations average to the dense operator output."""
    from ...itnet import apply

    U = np.asarray(U, np.float64)
    exact = host64(apply(op, U, measure) if dense is None else dense(op, U, measure))
    rounding = 2 * itnet_output_tolerance(op, U, measure)
    S = np.stack([host64(mc(r)).reshape(exact.shape) for r in range(replicates)])
    _judge_mean(itnet_mc_unbiased.spec, S, exact, alpha, rounding, "output entry")
