"""Literal transcriptions of 003 Algorithms 1 and 2 (App H.9, H.10), for the claim checks.

These are *not* the toolkit's tiled evaluation (see :mod:`~yatmath.itnet.tiled`): they reproduce
the printed pseudo-code line by line so that a check can compare it with the dense reference
(:mod:`~yatmath.itnet.dense`).  Their results are never assumed correct.

Algorithm 1 (forward), Phase 2, as printed::

    for i = 0 to n - Bq step Bq:            # ``range(0, n - Bq + 1, Bq)``: no ragged last tile
        acc_i = 0
        for j = 0 to n - Bk step Bk:
            for p, q in tile:  K_pq = kappa(X_i[p], X_j[q], U_i[p], U_j[q])
                               acc_i[p] += K_pq U_j[q] omega_j          (line 22)
        O[i:i+Bq] = acc_i + W U_i

``omega_index`` selects how line 22's ``omega_j`` is read: ``"key"`` (the weight of key j + q,
the intended reading) or ``"tile"`` (the weight at the tile start j, the literal index).
``ragged=True`` replaces the printed loop bounds by ``range(0, n, B)`` with a short last tile.

Algorithm 2 (backward), lines 11-14, 17, 18, as printed::

    dU = 0; dtheta = 0; dW = 0
    for each query tile i:   dU_i = 0
        for each key tile j:
            recompute K_pq
            dK_pq = omega_j g_p U_j[q]^T                      (l.11)
            dU_i[p]    += K_pq^T g_p omega_j                  (l.12)
            dU[j + q]  += K_pq   g_p omega_j                  (l.13, global buffer)
            dtheta     += tr(dK_pq^T dkappa/dtheta)           (l.14, MLP backprop)
        dW += g_i U_i^T                                       (l.17)
        dU[i:i+Bq] <- dU_i                                    (l.18, ``write="overwrite"``)

``write="add"`` reads l.18 as an accumulation instead.  No line adds ``W^T g`` or the kernel's
u-Jacobian terms to dU; the transcription adds nothing the algorithm does not print.

Accuracy: float64 (or the dtype of the inputs, for the forward) with the kernel evaluated by
:meth:`~yatmath.itnet.network.KernelMLP.kernel` per tile.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from yatmath.arguments import as_float_array, check_choice
from yatmath.itnet.network import KernelMLP, gelu, gelu_prime


def _tile_starts(n: int, B: int, ragged: bool) -> list[int]:
    return list(range(0, n, B)) if ragged else list(range(0, n - B + 1, B))


def _check_args(net: KernelMLP, W: Any, X: Any, U: Any, omega: Any, bq: int,
                bk: int) -> tuple[Any, Any, Any, Any]:
    if not isinstance(net, KernelMLP):
        raise TypeError(f"net must be a KernelMLP, got {type(net).__name__}")
    X = as_float_array(X, "X", ndim=(1, 2))
    X = X[:, None] if X.ndim == 1 else X
    U = np.asarray(U)
    if U.ndim != 2 or U.shape[1] != net.d or U.shape[0] != X.shape[0]:
        raise ValueError(f"U must have shape ({X.shape[0]}, {net.d}), got {U.shape}")
    omega = np.asarray(omega, dtype=U.dtype if U.dtype == np.float32 else np.float64)
    if omega.shape != (X.shape[0],):
        raise ValueError(f"omega must have shape ({X.shape[0]},), got {omega.shape}")
    W = np.asarray(W, dtype=U.dtype if U.dtype == np.float32 else np.float64)
    if W.shape != (net.d, net.d):
        raise ValueError(f"W must have shape ({net.d}, {net.d}), got {W.shape}")
    for name, v in (("bq", bq), ("bk", bk)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name} must be an integer >= 1, got {v!r}")
    return X, U, omega, W


def alg1_literal(net: KernelMLP, W: npt.ArrayLike, X: npt.ArrayLike, U: npt.ArrayLike,
                 omega: npt.ArrayLike, bq: int, bk: int, *, omega_index: str = "key",
                 ragged: bool = False, dtype: npt.DTypeLike | None = None
                 ) -> tuple[npt.NDArray[Any], npt.NDArray[np.bool_], npt.NDArray[Any]]:
    """Algorithm 1 Phase 2 as printed (see the module docstring).

    Returns ``(O, query_covered, key_count)``: the output (rows never written stay 0), a boolean
    mask of the queries written, and for each key the number of query tiles that summed it.
    ``dtype`` (float64 default, or float32) is the arithmetic of the accumulation.
    """
    check_choice(omega_index, "omega_index", ("key", "tile"))
    X, U, omega, W = _check_args(net, W, X, U, omega, bq, bk)
    dt = np.dtype(np.float64 if dtype is None else dtype)
    n, d = U.shape
    O = np.zeros((n, d), dtype=dt)
    covered = np.zeros(n, dtype=bool)
    key_count = np.zeros(n, dtype=int)
    Ud, Wd, om = U.astype(dt), W.astype(dt), omega.astype(dt)
    for i0 in _tile_starts(n, bq, ragged):
        i1 = min(i0 + bq, n)
        acc = np.zeros((i1 - i0, d), dtype=dt)
        for j0 in _tile_starts(n, bk, ragged):
            j1 = min(j0 + bk, n)
            K = net.kernel(X[i0:i1], X[j0:j1], U[i0:i1].astype(np.float64),
                           U[j0:j1].astype(np.float64)).astype(dt)
            w = om[j0:j1] if omega_index == "key" else np.full(j1 - j0, om[j0], dtype=dt)
            acc += np.einsum("pqab,qb,q->pa", K, Ud[j0:j1], w)
            key_count[j0:j1] += 1
        O[i0:i1] = acc + Ud[i0:i1] @ Wd.T
        covered[i0:i1] = True
    return O, covered, key_count


def _pair_backprop(net: KernelMLP, z: npt.NDArray[np.float64],
                   dK: npt.NDArray[np.float64]) -> dict[str, npt.NDArray[np.float64]]:
    """theta gradients of sum_pairs <dK_pair, kappa(z_pair)> for pairs z (P, D), dK (P, d, d)."""
    a = z @ net.W1.T + net.b1
    h = gelu(a, net.gelu)
    delta2 = dK.reshape(dK.shape[0], -1)
    delta1 = (delta2 @ net.W2) * gelu_prime(a, net.gelu)
    return {"W1": delta1.T @ z, "b1": delta1.sum(0), "W2": delta2.T @ h, "b2": delta2.sum(0)}


def alg2_literal(net: KernelMLP, W: npt.ArrayLike, X: npt.ArrayLike, U: npt.ArrayLike,
                 omega: npt.ArrayLike, G: npt.ArrayLike, bq: int, bk: int, *,
                 ragged: bool = False, write: str = "overwrite") -> dict[str, Any]:
    """Algorithm 2 lines 11-14, 17, 18 as printed (see the module docstring), float64.

    Returns ``{"U": dL/dU, "W": dL/dW, "theta": {W1, b1, W2, b2}, "query_covered": mask}``.
    """
    check_choice(write, "write", ("overwrite", "add"))
    X, U, omega, W = _check_args(net, W, X, np.asarray(U, np.float64), omega, bq, bk)
    G = as_float_array(G, "G", ndim=2)
    if G.shape != U.shape:
        raise ValueError(f"G must have shape {U.shape} like U, got {G.shape}")
    n, d = U.shape
    dU = np.zeros((n, d))
    dW = np.zeros((d, d))
    dth = {k: np.zeros_like(v) for k, v in net.params().items()}
    covered = np.zeros(n, dtype=bool)
    for i0 in _tile_starts(n, bq, ragged):
        i1 = min(i0 + bq, n)
        Gi = G[i0:i1]
        dUi = np.zeros((i1 - i0, d))
        for j0 in _tile_starts(n, bk, ragged):
            j1 = min(j0 + bk, n)
            K = net.kernel(X[i0:i1], X[j0:j1], U[i0:i1], U[j0:j1])           # l.9 recompute
            w = omega[j0:j1]
            dK = w[None, :, None, None] * Gi[:, None, :, None] * U[None, j0:j1, None, :]  # l.11
            dUi += np.einsum("pqab,pa,q->pb", K, Gi, w)                       # l.12: K^T g omega
            dU[j0:j1] += np.einsum("pqab,pb,q->qa", K, Gi, w)                 # l.13: K g omega
            z = net.inputs(X[i0:i1], X[j0:j1], U[i0:i1], U[j0:j1]).reshape(-1, net.input_dim)
            for k, v in _pair_backprop(net, z, dK.reshape(-1, d, d)).items():  # l.14
                dth[k] += v
        dW += Gi.T @ U[i0:i1]                                                 # l.17
        if write == "overwrite":                                              # l.18
            dU[i0:i1] = dUi
        else:
            dU[i0:i1] += dUi
        covered[i0:i1] = True
    return {"U": dU, "W": dW, "theta": dth, "query_covered": covered}


__all__ = ["alg1_literal", "alg2_literal"]
