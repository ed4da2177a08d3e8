"""Dense float64 reference of the ITNet forward and backward (algorithms.md I3, I4).

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

Array libraries: written once against the array API standard (``xp`` is NumPy itself for NumPy
arrays, else the namespace of the inputs); the operators' NumPy parameters and the causal mask are
moved to the caller's device, and every contraction is :func:`~yatmath.itnet._xp_ops.einsum`
(``numpy.einsum`` for NumPy: bit for bit the NumPy-only code; batched ``matmul`` elsewhere).

Accuracy: float64 throughout; errors are those of the einsum reductions, O(n u) relative.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .._typing import Array
from .._validate import as_float_array, check_memory
from .._array import parameter
from ._dispatch import GELU_NOTE, GENERIC_NOTE, operation
from ._xp_ops import all_finite, caller, contiguous, einsum, pow2_exponent, size, times_pow2, xp_of
from .measures import causal_mask
from .network import DENSE_ALTERNATIVES, KernelMLP, gelu, gelu_prime
from .operator import ITNetOperator, MultiHeadOperator


def scaled_einsum(spec: str, *operands: Array) -> Array:
    """``einsum(spec, *operands)`` that does not overflow where the true sum is finite.

    The plain einsum is returned (bit for bit) where it is finite.  Where it is not, although every
    operand is finite, each operand is multiplied by ``2^-e`` with ``e`` the binary exponent of its
    largest magnitude (``math.frexp``; the scaling is exact and brings the largest entry to at
    most 1), contracted, and ``2^(sum of e)`` is put back in exact power-of-two factors
    (:func:`~yatmath.itnet._xp_ops.times_pow2`, equal to ``ldexp``): the result is the finite
    value when the sum is representable (partial products overflowed, the sum did not) and
    ``+-inf`` of the right sign when the sum itself overflows.  Entries below ``2^-1074`` times the
    largest product are lost to underflow on that path (relative to the result, below 1e-300).
    Operands of one array library (any: standard operations only); NumPy results are those of the
    former ``frexp``/``ldexp`` code bit for bit.
    """
    xp = xp_of(*operands)
    with np.errstate(over="ignore", invalid="ignore"):
        out = einsum(spec, *operands, xp=xp)
    if not size(out) or all_finite(out, xp) or not all(all_finite(o, xp) for o in operands):
        return out
    exps, scaled = 0, []
    for o in operands:
        e = pow2_exponent(float(xp.max(xp.abs(o))) if size(o) else 0.0)
        scaled.append(times_pow2(o, -e))
        exps += e
    with np.errstate(over="ignore", under="ignore"):
        alt = times_pow2(einsum(spec, *scaled, xp=xp), exps)
    return xp.where(xp.isfinite(out), out, alt)


def dense_bytes(op: ITNetOperator | MultiHeadOperator, nq: int, nk: int, *,
                backward: bool = False) -> int:
    """Bytes the dense reference allocates at its peak for nq queries and nk keys (float64).

    Forward, per pair and head: the MLP input z (D), pre-activation and hidden layer (2w), the
    kernel (2 d_h^2, the flat and the reshaped copy), the pair weight (1), plus the full
    (d x d) kernel of a multi-head operator; backward adds dK, delta2, delta1, dz and GELU'."""
    heads = op.heads
    per = 1 + sum(h.input_dim + 2 * h.width + 2 * h.d * h.d for h in heads)
    if len(heads) > 1:
        per += op.d * op.d
    if backward:
        per += sum(2 * h.input_dim + 3 * h.width + 2 * h.d * h.d for h in heads)
    return 8 * int(nq) * int(nk) * per


def check_dense_memory(op: ITNetOperator | MultiHeadOperator, nq: int, nk: int, *,
                       backward: bool = False) -> None:
    """MemoryError up front when the dense reference would not fit (names the alternatives)."""
    check_memory(dense_bytes(op, nq, nk, backward=backward),
                 f"mode='dense' on {nq} queries x {nk} keys (the measure's nodes; the (nq, nk, ...) "
                 f"pair tensors"
                 f"{' and their gradients' if backward else ''})", alternative=DENSE_ALTERNATIVES)


def pair_weights(omega: Array, nq: int, causal: bool = False, diag_weight: float = 1.0) -> Array:
    """c_ij = omega_j m_ij, shape (nq, nk), in the library and on the device of ``omega``."""
    xp = xp_of(omega)
    c = xp.broadcast_to(omega[None, :], (nq, omega.shape[0]))
    if causal:
        c = c * caller(omega).asarray(causal_mask(nq, omega.shape[0], diag_weight))
    return contiguous(c, xp)


@operation("itnet.kernel_tensor", note=GELU_NOTE, boundary=False)
def kernel_tensor(op: ITNetOperator | MultiHeadOperator, Xq: Array, Xk: Array, Uq: Array,
                  Uk: Array) -> Array:
    """The full d x d kernel of an operator for all pairs, (nq, nk, d, d) (multi-head: W_O blockdiag).

    ``Xq`` (nq, s), ``Xk`` (nk, s) positions; ``Uq`` (nq, d), ``Uk`` (nk, d) features.  Dense:
    refuses up front (MemoryError) when the tensor would not fit in memory.
    """
    if not isinstance(op, (ITNetOperator, MultiHeadOperator)):
        raise TypeError(f"op must be an ITNetOperator or MultiHeadOperator, got {type(op).__name__}")
    Xq, Uq = _op_points(op, Xq, Uq, "Xq", "Uq")
    Xk, Uk = _op_points(op, Xk, Uk, "Xk", "Uk")
    nq, nk = Xq.shape[0], Xk.shape[0]
    check_memory(8 * nq * nk * op.d * op.d, f"the ({nq}, {nk}, {op.d}, {op.d}) kernel tensor",
                 alternative=DENSE_ALTERNATIVES)
    if isinstance(op, ITNetOperator):
        return op.kernel.kernel(Xq, Xk, Uq, Uk)
    xp = xp_of(Xq, Xk, Uq, Uk)
    return xp.concat([scaled_einsum("ae,ijeb->ijab", parameter(op, op.W_O[:, sl], Uq),
                                    net.kernel(Xq, Xk, Uq[:, sl], Uk[:, sl]))
                      for sl, net in ((op.head_slice(h), net) for h, net in enumerate(op.heads))],
                     axis=3)


def _op_points(op: ITNetOperator | MultiHeadOperator, X: Array, U: Array, nX: str,
               nU: str) -> tuple[Array, Array]:
    """Positions (n, s) and features (n, op.d) of an operator (single or multi-head), checked."""
    U = as_float_array(U, nU, ndim=2)
    if U.shape[1] != op.d:
        raise ValueError(f"{nU} must have shape (n, {op.d}) (d = {op.d} features), got {tuple(U.shape)}")
    X, _ = op.heads[0]._points(X, U[:, :op.heads[0].d], nX, nU)
    return X, U


@operation("itnet.apply_kernel_tensor", note=GENERIC_NOTE, boundary=False)
def apply_kernel_tensor(K: Array, Uk: Array, omega: Array, *, Uq: Array | None = None,
                        W: Array | None = None, mask: Array | None = None) -> Array:
    """``O_i = sum_j omega_j m_ij K_ij u_j (+ W u_i)`` for a given kernel tensor K (nq, nk, d_out, d_in).

    ``mask`` (nq, nk) defaults to 1; ``W`` (d_out, d_in) needs ``Uq`` (nq, d_in) (defaults to Uk).
    Accuracy: an einsum in float64, O(nk u) relative; partial products that overflow are redone
    rescaled (:func:`scaled_einsum`).
    """
    K = as_float_array(K, "K", ndim=4)
    nq, nk, a, b = K.shape
    Uk = as_float_array(Uk, "Uk", ndim=2)
    if Uk.shape != (nk, b):
        raise ValueError(f"Uk must have shape ({nk}, {b}) to match K of shape {K.shape}, got "
                         f"{tuple(Uk.shape)}")
    omega = as_float_array(omega, "omega", ndim=1)
    if omega.shape != (nk,):
        raise ValueError(f"omega must have shape ({nk},) (one weight per key), got {tuple(omega.shape)}")
    if mask is not None:
        mask = as_float_array(mask, "mask", ndim=2)
        if mask.shape != (nq, nk):
            raise ValueError(f"mask must have shape ({nq}, {nk}), got {tuple(mask.shape)}")
    if Uq is not None:
        Uq = as_float_array(Uq, "Uq", ndim=2)
        if Uq.shape != (nq, b):
            raise ValueError(f"Uq must have shape ({nq}, {b}), got {tuple(Uq.shape)}")
    if W is not None:
        W = as_float_array(W, "W", ndim=2)
        if W.shape != (a, b):
            raise ValueError(f"W must have shape ({a}, {b}) (d_out, d_in of K), got {tuple(W.shape)}")
        if Uq is None and nq != nk:
            raise ValueError(f"Uq is needed with W when K has nq = {nq} != nk = {nk} (queries "
                             f"differ from keys)")
    xp = xp_of(K, Uk, omega, mask, Uq, W)
    K, Uk = contiguous(K, xp), contiguous(Uk, xp)
    c = omega[None, :] if mask is None else omega[None, :] * mask
    c = contiguous(xp.broadcast_to(c, tuple(K.shape[:2])), xp)
    O = scaled_einsum("ijab,jb,ij->ia", K, Uk, c)
    if W is not None:
        with np.errstate(over="ignore", invalid="ignore"):
            O = O + xp.matmul(Uk if Uq is None else Uq, W.T)
    return O


def dense_integral(net: KernelMLP, Xq: Array, Xk: Array, Uq: Array, Uk: Array,
                   c: Array) -> Array:
    """sum_j c_ij K_ij u_j for one kernel MLP."""
    return scaled_einsum("ijab,jb,ij->ia", net.kernel(Xq, Xk, Uq, Uk), Uk, c)


def dense_forward(op: ITNetOperator | MultiHeadOperator, Xq: Array, Xk: Array, Uq: Array,
                  Uk: Array, omega: Array) -> Array:
    """The reference forward (algorithms.md I3), float64, in the library of the inputs."""
    xp = xp_of(Xq, Xk, Uq, Uk, omega)
    c = pair_weights(omega, Xq.shape[0], op.causal, op.diag_weight)
    W = parameter(op, op.W, Uq)
    if isinstance(op, ITNetOperator):
        I = dense_integral(op.kernel, Xq, Xk, Uq, Uk, c)
        with np.errstate(over="ignore", invalid="ignore"):
            return I + xp.matmul(Uq, W.T)
    I = xp.concat([dense_integral(net, Xq, Xk, Uq[:, op.head_slice(h)], Uk[:, op.head_slice(h)], c)
                   for h, net in enumerate(op.heads)], axis=1)
    with np.errstate(over="ignore", invalid="ignore"):
        return xp.matmul(I, parameter(op, op.W_O, Uq).T) + xp.matmul(Uq, W.T)


def _head_grad(net: KernelMLP, Xq: Array, Xk: Array, Uq: Array, Uk: Array, c: Array,
               G: Array) -> tuple[dict[str, Array], Array, Array]:
    """Gradients of <G, sum_j c_ij K_ij u_j> for one kernel MLP (no residual)."""
    d = net.d
    xp = xp_of(Xq, Xk, Uq, Uk, c, G)
    W1, b1, W2, b2 = net._params(xp, Uq)
    z = net.inputs(Xq, Xk, Uq, Uk)                       # (nq, nk, D)
    a = xp.matmul(z, W1.T) + b1                          # (nq, nk, w)
    h = gelu(a, net.gelu)
    pairs = tuple(a.shape[:2])
    K = xp.reshape(xp.matmul(h, W2.T) + b2, pairs + (d, d))
    dK = c[:, :, None, None] * G[:, None, :, None] * Uk[None, :, None, :]   # eq. 223
    delta2 = xp.reshape(dK, pairs + (d * d,))
    dW2 = einsum("ijv,ijk->vk", delta2, h, xp=xp)
    db2 = xp.sum(delta2, axis=(0, 1))
    delta1 = xp.matmul(delta2, W2) * gelu_prime(a, net.gelu)
    dW1 = einsum("ijk,ijD->kD", delta1, z, xp=xp)
    db1 = xp.sum(delta1, axis=(0, 1))
    dz = xp.matmul(delta1, W1)                           # (nq, nk, D)
    sl = net.slices
    dUk = einsum("ijab,ia,ij->jb", K, G, c, xp=xp)       # value term
    dUq = xp.zeros_like(Uq)
    if "uy" in sl:
        dUk = dUk + xp.sum(dz[:, :, sl["uy"]], axis=0)
    if "ux" in sl:
        dUq = dUq + xp.sum(dz[:, :, sl["ux"]], axis=1)
    if "uxuy" in sl:
        dh = dz[:, :, sl["uxuy"]]
        dUk = dUk + einsum("ijb,ib->jb", dh, Uq, xp=xp)
        dUq = dUq + einsum("ijb,jb->ib", dh, Uk, xp=xp)
    return {"W1": dW1, "b1": db1, "W2": dW2, "b2": db2}, dUq, dUk


def dense_grad(op: ITNetOperator | MultiHeadOperator, Xq: Array, Xk: Array, Uq: Array,
               Uk: Array, omega: Array, G: Array, *, shared: bool = True) -> dict[str, Any]:
    """Reference gradients of ``L`` given ``G = dL/dO`` (nq, d).

    Returns ``{"U": dL/dU, "W": dL/dW, "heads": [ {W1, b1, W2, b2}, ... ], "W_O": ...}``.  When
    queries and keys are the same points (``shared``), ``U`` is the total gradient; otherwise
    ``U`` is the key-feature gradient and ``Uq`` the query-feature gradient.  Arrays of any one
    library; the gradients come back in it.
    """
    xp = xp_of(Xq, Xk, Uq, Uk, omega, G)
    c = pair_weights(omega, Xq.shape[0], op.causal, op.diag_weight)
    out = {"W": xp.matmul(G.T, Uq)}
    dUq = xp.matmul(G, parameter(op, op.W, G))
    dUk = xp.zeros_like(Uk)
    if isinstance(op, ITNetOperator):
        p, q, k = _head_grad(op.kernel, Xq, Xk, Uq, Uk, c, G)
        out["heads"] = [p]
        dUq = dUq + q
        dUk = dUk + k
    else:
        GI = xp.matmul(G, parameter(op, op.W_O, G))    # dL/d concat(I)
        Is, heads, qs, ks = [], [], [], []
        for h, net in enumerate(op.heads):
            sl = op.head_slice(h)
            Is.append(dense_integral(net, Xq, Xk, Uq[:, sl], Uk[:, sl], c))
            p, q, k = _head_grad(net, Xq, Xk, Uq[:, sl], Uk[:, sl], c, GI[:, sl])
            heads.append(p)
            qs.append(q)
            ks.append(k)
        dUq = dUq + xp.concat(qs, axis=1)                  # the heads' column blocks
        dUk = dUk + xp.concat(ks, axis=1)
        out["heads"] = heads
        out["W_O"] = xp.matmul(G.T, xp.concat(Is, axis=1))
    if shared:
        out["U"] = dUq + dUk
    else:
        out["U"] = dUk
        out["Uq"] = dUq
    return out


def pair_kernel(op: ITNetOperator | MultiHeadOperator, Xq: Array, Xk: Array, Uq: Array,
                Uk: Array) -> Array:
    """The full d x d kernel for matched rows (pair p = (query row p, key row p)): (P, d, d)."""
    if isinstance(op, ITNetOperator):
        return op.kernel.kernel_pairs(Xq, Xk, Uq, Uk)
    xp = xp_of(Xq, Xk, Uq, Uk)
    return xp.concat([einsum("ae,peb->pab", parameter(op, op.W_O[:, sl], Uq),
                             net.kernel_pairs(Xq, Xk, Uq[:, sl], Uk[:, sl]), xp=xp)
                      for sl, net in ((op.head_slice(h), net) for h, net in enumerate(op.heads))],
                     axis=2)
