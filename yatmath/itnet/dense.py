"""Dense float64 NumPy reference of the ITNet forward and backward (algorithms.md I3, I4).

Everything here materialises the (nq, nk, d, d) kernel tensor and is meant for small n (the
oracle for the tiled, Monte Carlo and low-rank modes).

Forward: ``O = einsum('ijab,jb,ij->ia', K, U, c) + Uq W^T`` with ``c_ij = omega_j m_ij``.

Backward (003 App I.4-I.7, eqs 223-239; g_i = dL/dO_i), per pair with ``c = c_ij``:

* ``dL/dK_ij = c g_i u_j^T``; ``dL/dW = sum_i g_i u_i^T``;
* ``delta2 = vec(dL/dK_ij)``; ``dW2 += delta2 h^T``; ``db2 += delta2``;
* ``delta1 = (W2^T delta2) * GELU'(W1 z + b1)``; ``dW1 += delta1 z^T``; ``db1 += delta1``;
  ``dz = W1^T delta1``;
* ``dL/du_m`` = value term ``sum_i c_im K_im^T g_i`` + key-side Jacobian ``dz_im[uy] + u_i * dz_im[uxuy]``
  summed over i + query-side Jacobian ``dz_mk[ux] + u_k * dz_mk[uxuy]`` summed over k + ``W^T g_m``.

Accuracy: float64 throughout; errors are those of the einsum reductions, O(n u) relative.
"""
from __future__ import annotations

import numpy as np

from .measures import causal_mask
from .network import KernelMLP, gelu, gelu_prime
from .operator import ITNetOperator


def pair_weights(omega, nq, causal=False, diag_weight=1.0):
    """c_ij = omega_j m_ij, shape (nq, nk)."""
    c = np.broadcast_to(omega[None, :], (nq, omega.shape[0]))
    if causal:
        c = c * causal_mask(nq, omega.shape[0], diag_weight)
    return np.ascontiguousarray(c)


def kernel_tensor(op, Xq, Xk, Uq, Uk) -> np.ndarray:
    """The full d x d kernel of an operator for all pairs, (nq, nk, d, d) (multi-head: W_O blockdiag)."""
    if isinstance(op, ITNetOperator):
        return op.kernel.kernel(Xq, Xk, Uq, Uk)
    nq, nk = Xq.shape[0], Xk.shape[0]
    K = np.zeros((nq, nk, op.d, op.d))
    for h, net in enumerate(op.heads):
        sl = op.head_slice(h)
        K[:, :, :, sl] += np.einsum("ae,ijeb->ijab", op.W_O[:, sl], net.kernel(Xq, Xk, Uq[:, sl], Uk[:, sl]))
    return K


def apply_kernel_tensor(K, Uk, omega, *, Uq=None, W=None, mask=None) -> np.ndarray:
    """``O_i = sum_j omega_j m_ij K_ij u_j (+ W u_i)`` for a given kernel tensor K (nq, nk, d_out, d_in).

    ``mask`` (nq, nk) defaults to 1; ``W`` (d_out, d_in) needs ``Uq`` (nq, d_in) (defaults to Uk).
    """
    K = np.asarray(K)
    c = omega[None, :] if mask is None else omega[None, :] * mask
    c = np.broadcast_to(c, K.shape[:2])
    O = np.einsum("ijab,jb,ij->ia", K, Uk, c)
    if W is not None:
        O = O + (Uk if Uq is None else Uq) @ np.asarray(W).T
    return O


def dense_integral(net: KernelMLP, Xq, Xk, Uq, Uk, c) -> np.ndarray:
    """sum_j c_ij K_ij u_j for one kernel MLP."""
    return np.einsum("ijab,jb,ij->ia", net.kernel(Xq, Xk, Uq, Uk), Uk, c)


def dense_forward(op, Xq, Xk, Uq, Uk, omega) -> np.ndarray:
    """The reference forward (algorithms.md I3), float64."""
    c = pair_weights(omega, Xq.shape[0], op.causal, op.diag_weight)
    if isinstance(op, ITNetOperator):
        return dense_integral(op.kernel, Xq, Xk, Uq, Uk, c) + Uq @ op.W.T
    I = np.concatenate([dense_integral(net, Xq, Xk, Uq[:, op.head_slice(h)], Uk[:, op.head_slice(h)], c)
                        for h, net in enumerate(op.heads)], axis=1)
    return I @ op.W_O.T + Uq @ op.W.T


def _head_grad(net: KernelMLP, Xq, Xk, Uq, Uk, c, G):
    """Gradients of <G, sum_j c_ij K_ij u_j> for one kernel MLP (no residual)."""
    d = net.d
    z = net.inputs(Xq, Xk, Uq, Uk)                       # (nq, nk, D)
    a = z @ net.W1.T + net.b1                            # (nq, nk, w)
    h = gelu(a, net.gelu)
    K = (h @ net.W2.T + net.b2).reshape(a.shape[:2] + (d, d))
    dK = c[:, :, None, None] * G[:, None, :, None] * Uk[None, :, None, :]   # eq. 223
    delta2 = dK.reshape(a.shape[:2] + (d * d,))
    dW2 = np.einsum("ijv,ijk->vk", delta2, h)
    db2 = delta2.sum(axis=(0, 1))
    delta1 = (delta2 @ net.W2) * gelu_prime(a, net.gelu)
    dW1 = np.einsum("ijk,ijD->kD", delta1, z)
    db1 = delta1.sum(axis=(0, 1))
    dz = delta1 @ net.W1                                 # (nq, nk, D)
    sl = net.slices
    dUk = np.einsum("ijab,ia,ij->jb", K, G, c)          # value term
    dUq = np.zeros_like(Uq)
    if "uy" in sl:
        dUk += dz[:, :, sl["uy"]].sum(axis=0)
    if "ux" in sl:
        dUq += dz[:, :, sl["ux"]].sum(axis=1)
    if "uxuy" in sl:
        dh = dz[:, :, sl["uxuy"]]
        dUk += np.einsum("ijb,ib->jb", dh, Uq)
        dUq += np.einsum("ijb,jb->ib", dh, Uk)
    return {"W1": dW1, "b1": db1, "W2": dW2, "b2": db2}, dUq, dUk


def dense_grad(op, Xq, Xk, Uq, Uk, omega, G, *, shared: bool = True) -> dict:
    """Reference gradients of ``L`` given ``G = dL/dO`` (nq, d).

    Returns ``{"U": dL/dU, "W": dL/dW, "heads": [ {W1, b1, W2, b2}, ... ], "W_O": ...}``.  When
    queries and keys are the same points (``shared``), ``U`` is the total gradient; otherwise
    ``U`` is the key-feature gradient and ``Uq`` the query-feature gradient.
    """
    c = pair_weights(omega, Xq.shape[0], op.causal, op.diag_weight)
    out = {"W": G.T @ Uq}
    dUq = G @ op.W
    dUk = np.zeros_like(Uk)
    if isinstance(op, ITNetOperator):
        p, q, k = _head_grad(op.kernel, Xq, Xk, Uq, Uk, c, G)
        out["heads"] = [p]
        dUq = dUq + q
        dUk = dUk + k
    else:
        GI = G @ op.W_O                                    # dL/d concat(I)
        Is, heads = [], []
        for h, net in enumerate(op.heads):
            sl = op.head_slice(h)
            Is.append(dense_integral(net, Xq, Xk, Uq[:, sl], Uk[:, sl], c))
            p, q, k = _head_grad(net, Xq, Xk, Uq[:, sl], Uk[:, sl], c, GI[:, sl])
            heads.append(p)
            dUq[:, sl] += q
            dUk[:, sl] += k
        out["heads"] = heads
        out["W_O"] = G.T @ np.concatenate(Is, axis=1)
    if shared:
        out["U"] = dUq + dUk
    else:
        out["U"] = dUk
        out["Uq"] = dUq
    return out


def pair_kernel(op, Xq, Xk, Uq, Uk) -> np.ndarray:
    """The full d x d kernel for matched rows (pair p = (query row p, key row p)): (P, d, d)."""
    if isinstance(op, ITNetOperator):
        return op.kernel.kernel_pairs(Xq, Xk, Uq, Uk)
    K = np.zeros((Xq.shape[0], op.d, op.d))
    for h, net in enumerate(op.heads):
        sl = op.head_slice(h)
        K[:, :, sl] += np.einsum("ae,peb->pab", op.W_O[:, sl], net.kernel_pairs(Xq, Xk, Uq[:, sl], Uk[:, sl]))
    return K
