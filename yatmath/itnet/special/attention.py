"""Attention as an ITNet kernel (003 Thm 2, Thm D.1, Props 5-6; algorithms.md I5).

Softmax (functional kernel, reading R1: the normaliser uses all keys)::

    e_ij = exp(q_i . k_j / sqrt(d_k) - c_i),  Z_i = sum_l omega_l m_il e_il,  K_ij = (e_ij / Z_i) W_V

with q = U W_Q^T, k = U W_K^T, c_i = max_j of the scores, m the causal mask.  Under omega = 1/n this
is exactly softmax(Q K^T / sqrt d_k) V with V = U W_V^T.  Multi-head, stacked form:
``K_ij = W_O [alpha^1_ij W_V^1; ...; alpha^H_ij W_V^H]`` (W_V^h in R^{d_v x d}, W_O in R^{d x H d_v}).
Linear attention: phi = elu + 1, ``K_ij = [phi(q_i).phi(k_j) / Z^phi_i] W_V``.
Numerator/denominator construction (fits Def. 1 exactly): on ``u~ = [u; 1]``,
``K~_ij = exp(q_i.k_j / sqrt d_k) blockdiag(W_V, 1)``; attention = O~[:d] / O~[d].
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy.linalg import block_diag

from ..measures import causal_mask


def _mask(n: int, causal: bool, diag_weight: float = 1.0) -> npt.NDArray[np.float64]:
    return causal_mask(n, n, diag_weight) if causal else np.ones((n, n))


def softmax_attention(U: npt.NDArray[np.float64], Wq: npt.NDArray[np.float64],
                      Wk: npt.NDArray[np.float64], Wv: npt.NDArray[np.float64], *,
                      causal: bool = False) -> npt.NDArray[np.float64]:
    """Direct NumPy reference: softmax(Q K^T / sqrt d_k + mask) V."""
    Q, Kt, V = U @ Wq.T, U @ Wk.T, U @ Wv.T
    S = Q @ Kt.T / np.sqrt(Wq.shape[0])
    if causal:
        S = np.where(np.tril(np.ones_like(S)) > 0, S, -np.inf)
    S = S - S.max(1, keepdims=True)
    P = np.exp(S)
    return (P / P.sum(1, keepdims=True)) @ V


def attention_weights(U: npt.NDArray[np.float64], Wq: npt.NDArray[np.float64],
                      Wk: npt.NDArray[np.float64], omega: npt.NDArray[np.float64], *,
                      causal: bool = False, diag_weight: float = 1.0) -> npt.NDArray[np.float64]:
    """alpha_ij = e_ij / Z_i (so that sum_j omega_j m_ij alpha_ij = 1)."""
    S = (U @ Wq.T) @ (U @ Wk.T).T / np.sqrt(Wq.shape[0])
    m = _mask(U.shape[0], causal, diag_weight)
    S = np.where(m > 0, S, -np.inf)
    e = np.exp(S - S.max(1, keepdims=True))
    Z = (e * m * omega[None, :]).sum(1, keepdims=True)
    return e / Z


def attention_kernel(U: npt.NDArray[np.float64], Wq: npt.NDArray[np.float64],
                     Wk: npt.NDArray[np.float64], Wv: npt.NDArray[np.float64],
                     omega: npt.NDArray[np.float64], *, causal: bool = False,
                     diag_weight: float = 1.0) -> npt.NDArray[np.float64]:
    """K_ij = alpha_ij W_V, shape (n, n, d_v, d); apply with mask = causal mask."""
    A = attention_weights(U, Wq, Wk, omega, causal=causal, diag_weight=diag_weight)
    return A[:, :, None, None] * Wv[None, None]


def mha_reference(U: npt.NDArray[np.float64], Wqs: Sequence[npt.NDArray[np.float64]],
                  Wks: Sequence[npt.NDArray[np.float64]], Wvs: Sequence[npt.NDArray[np.float64]],
                  Wo: npt.NDArray[np.float64], *, causal: bool = False) -> npt.NDArray[np.float64]:
    """Standard multi-head attention: W_O concat_h softmax_h V_h."""
    return np.concatenate([softmax_attention(U, q, k, v, causal=causal)
                           for q, k, v in zip(Wqs, Wks, Wvs)], axis=1) @ Wo.T


def mha_kernel(U: npt.NDArray[np.float64], Wqs: Sequence[npt.NDArray[np.float64]],
               Wks: Sequence[npt.NDArray[np.float64]], Wvs: Sequence[npt.NDArray[np.float64]],
               Wo: npt.NDArray[np.float64], omega: npt.NDArray[np.float64], *,
               causal: bool = False, diag_weight: float = 1.0) -> npt.NDArray[np.float64]:
    """Stacked form K_ij = W_O [alpha^h_ij W_V^h]_h, shape (n, n, d, d)."""
    blocks = [attention_weights(U, q, k, omega, causal=causal, diag_weight=diag_weight)[:, :, None, None] * v
              for q, k, v in zip(Wqs, Wks, Wvs)]
    return np.einsum("ae,ijeb->ijab", Wo, np.concatenate(blocks, axis=2))


def mha_printed_shapes(d: int, H: int, d_v: int) -> dict[str, Any]:
    """Shape analysis of the printed form W_O BlockDiag(alpha_1 W_V^1, ..., alpha_H W_V^H) (eq. 58):
    the block diagonal is (H d_v) x (H d), so it acts on R^{H d}, not on u in R^d, unless H = 1."""
    bd = (H * d_v, H * d)
    return {"W_O": (d, H * d_v), "W_V^h": (d_v, d), "BlockDiag": bd,
            "kernel": (d, H * d), "acts_on_u_in_R^d": bd[1] == d}


def elu1(x: npt.NDArray[np.floating[Any]]) -> npt.NDArray[np.float64]:
    return np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))


def linear_attention_reference(U: npt.NDArray[np.float64], Wq: npt.NDArray[np.float64],
                               Wk: npt.NDArray[np.float64], Wv: npt.NDArray[np.float64], *,
                               causal: bool = False) -> npt.NDArray[np.float64]:
    """Direct linear attention (Katharopoulos et al.), phi = elu + 1."""
    P, Qk, V = elu1(U @ Wq.T), elu1(U @ Wk.T), U @ Wv.T
    S = P @ Qk.T
    if causal:
        S = np.tril(S)
    return (S @ V) / S.sum(1, keepdims=True)


def linear_attention_kernel(U: npt.NDArray[np.float64], Wq: npt.NDArray[np.float64],
                            Wk: npt.NDArray[np.float64], Wv: npt.NDArray[np.float64],
                            omega: npt.NDArray[np.float64], *, causal: bool = False,
                            diag_weight: float = 1.0) -> npt.NDArray[np.float64]:
    P, Qk = elu1(U @ Wq.T), elu1(U @ Wk.T)
    S = P @ Qk.T
    m = _mask(U.shape[0], causal, diag_weight)
    Z = (S * m * omega[None, :]).sum(1, keepdims=True)
    return (S / Z)[:, :, None, None] * Wv[None, None]


def numden_kernel(U: npt.NDArray[np.float64], Wq: npt.NDArray[np.float64],
                  Wk: npt.NDArray[np.float64], Wv: npt.NDArray[np.float64]
                  ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """K~_ij = exp(q_i.k_j / sqrt d_k) blockdiag(W_V, 1) on u~ = [u; 1] (n, n, d_v+1, d+1), and u~.
    Scores are shifted by a global constant (cancels in the ratio)."""
    S = (U @ Wq.T) @ (U @ Wk.T).T / np.sqrt(Wq.shape[0])
    e = np.exp(S - S.max())
    Ut = np.concatenate([U, np.ones((U.shape[0], 1))], axis=1)
    return e[:, :, None, None] * block_diag(Wv, 1.0)[None, None], Ut


def attention_from_numden(Ot: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    return Ot[:, :-1] / Ot[:, -1:]
