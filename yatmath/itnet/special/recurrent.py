"""Recurrences as ITNet kernels (003 Thm 3, Thm E.1, Props 7-8, App E.4-E.11; algorithms.md I5).

All kernels are tensors ``K[t, s]`` (n, n, p, m) over time steps, applied with
:func:`~yatmath.itnet.dense.apply_kernel_tensor` and ``W = D`` (the feed-through).

* Linear RNN / discrete SSM, state ``h`` in R^N: conventions (C1) ``h_{t+1} = A h_t + B u_t``,
  kernel ``C A^{t-1-s} B`` for s < t; (C2) ``h_t = A h_{t-1} + B u_t``, kernel ``C A^{t-s} B`` for
  s <= t; ``printed``: the kernel ``C A^{t-s} B`` for s < t (003 eq. 163, to be compared).
* Discretisation of ``h' = A h + B u``: Euler ``(I + dt A, dt B)``; ZOH ``(e^{A dt},
  int_0^dt e^{A tau} d tau B)`` via the augmented exponential ``expm([[A, B], [0, 0]] dt)``.
* Continuous SSM kernel ``K(t, s) = 1_{s <= t} C e^{A (t - s)} B`` on quadrature nodes.
* Nonlinear RNN / LSTM / GRU / Mamba: direct recurrences, and the kernels as printed in 003.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
import numpy.typing as npt
from scipy.linalg import expm

from ..._validate import check_choice


def discretise(A: npt.ArrayLike, B: npt.ArrayLike, dt: float, method: str = "zoh"
               ) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
    """(A_bar, B_bar) for h' = A h + B u with step dt (Euler or zero-order hold)."""
    check_choice(method, "method", ("zoh", "euler"))
    A, B = np.atleast_2d(A), np.atleast_2d(B)
    N, m = B.shape
    if method == "euler":
        return np.eye(N) + dt * A, dt * B
    Mx = np.zeros((N + m, N + m), dtype=np.result_type(A, B))
    Mx[:N, :N], Mx[:N, N:] = A, B
    E = expm(Mx * dt)
    return E[:N, :N], E[:N, N:]


def linear_scan(A: npt.NDArray[Any], B: npt.NDArray[Any], C: npt.NDArray[Any],
                U: npt.NDArray[Any], *, convention: str = "C2",
                D: npt.ArrayLike | None = None) -> npt.NDArray[Any]:
    """Direct recurrence y_t (n, p) from h_0 = 0 under convention C1 or C2 (+ D u_t)."""
    check_choice(convention, "convention", ("C1", "C2"))
    h = np.zeros(A.shape[0], dtype=np.result_type(A, B, U))
    Y: Any = []
    for t in range(U.shape[0]):
        if convention == "C2":
            h = A @ h + B @ U[t]
            Y.append(C @ h)
        else:
            Y.append(C @ h)
            h = A @ h + B @ U[t]
    Y = np.array(Y)
    return Y if D is None else Y + U @ np.asarray(D).T


def linear_kernel(A: npt.NDArray[Any], B: npt.NDArray[Any], C: npt.NDArray[Any], n: int, *,
                  convention: str = "C2") -> npt.NDArray[Any]:
    """K[t, s] = C A^{t-s} B (C2, s <= t), C A^{t-1-s} B (C1, s < t), C A^{t-s} B (printed, s < t)."""
    check_choice(convention, "convention", ("C1", "C2", "printed"))
    p, m = C.shape[0], B.shape[1]
    powers = [np.eye(A.shape[0], dtype=A.dtype)]
    for _ in range(n):
        powers.append(A @ powers[-1])
    K = np.zeros((n, n, p, m), dtype=np.result_type(A, B, C))
    for t in range(n):
        for s in range(t + 1):
            if convention == "C2":
                K[t, s] = C @ powers[t - s] @ B
            elif s < t:
                K[t, s] = C @ powers[t - s - (convention == "C1")] @ B
    return K


def ssm_kernel(A: npt.NDArray[Any], B: npt.NDArray[Any], C: npt.NDArray[Any],
               t_nodes: npt.ArrayLike) -> npt.NDArray[Any]:
    """K(t_i, t_j) = C e^{A (t_i - t_j)} B for t_j <= t_i, else 0: (n, n, p, m) (real part for
    real systems; diagonal complex A gives complex K)."""
    t = np.asarray(t_nodes, float).ravel()
    K = np.zeros((t.size, t.size, C.shape[0], B.shape[1]), dtype=np.result_type(A, B, C, float))
    for i in range(t.size):
        for j in range(i + 1):
            K[i, j] = C @ expm(A * (t[i] - t[j])) @ B
    return K


def rnn_reference(Wh: npt.NDArray[np.float64], Wu: npt.NDArray[np.float64],
                  b: npt.NDArray[np.float64], C: npt.NDArray[np.float64],
                  U: npt.NDArray[np.float64],
                  phi: Callable[[Any], Any] = np.tanh
                  ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64],
                             npt.NDArray[np.float64]]:
    """h_t = phi(W_h h_{t-1} + W_u u_t + b), y_t = C h_t; returns (Y, H, preactivations)."""
    h = np.zeros(Wh.shape[0])
    H: Any
    H, P = [], []
    for t in range(U.shape[0]):
        a = Wh @ h + Wu @ U[t] + b
        h = phi(a)
        H.append(h)
        P.append(a)
    H = np.array(H)
    return H @ C.T, H, np.array(P)


def rnn_printed_kernel(Wh: npt.NDArray[np.float64], Wu: npt.NDArray[np.float64],
                       b: npt.NDArray[np.float64], C: npt.NDArray[np.float64],
                       U: npt.NDArray[np.float64],
                       phi_prime: Callable[[Any], Any] = lambda a: 1 - np.tanh(a) ** 2
                       ) -> npt.NDArray[np.float64]:
    """003 eqs 134-135: K_ts = C Phi(t, s) W_u, Phi(t, s) = prod_{tau=s+1}^t diag(a_tau) W_h
    (later tau on the left), a_tau = phi'(preactivation at tau)."""
    _, _, P = rnn_reference(Wh, Wu, b, C, U)
    A = phi_prime(P)
    n, N = U.shape[0], Wh.shape[0]
    K = np.zeros((n, n, C.shape[0], Wu.shape[1]))
    for s in range(n):
        Phi = np.eye(N)
        for t in range(s, n):
            if t > s:
                Phi = (A[t][:, None] * Wh) @ Phi
            K[t, s] = C @ Phi @ Wu
    return K


def _sig(x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    return 1.0 / (1.0 + np.exp(-x))


def lstm_reference(p: dict[str, Any], U: npt.NDArray[np.float64]) -> dict[str, Any]:
    """003 Def 11: gates on [h_{t-1}; u_t]; returns dict of Y and the per-step f, i, o, c, ct, h."""
    N = p["Wf"].shape[0]
    h, c = np.zeros(N), np.zeros(N)
    rec: dict[str, Any] = {k: [] for k in ("f", "i", "o", "c", "ct", "h")}
    for t in range(U.shape[0]):
        z = np.concatenate([h, U[t]])
        f, i, o = _sig(p["Wf"] @ z + p["bf"]), _sig(p["Wi"] @ z + p["bi"]), _sig(p["Wo"] @ z + p["bo"])
        ct = np.tanh(p["Wc"] @ z + p["bc"])
        c = f * c + i * ct
        h = o * np.tanh(c)
        for k, v in zip(rec, (f, i, o, c, ct, h)):
            rec[k].append(v)
    out = {k: np.array(v) for k, v in rec.items()}
    out["Y"] = out["h"] @ p["Wy"].T
    return out


def lstm_printed_kernel(p: dict[str, Any], U: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """K_ts = W_y diag(o_t) diag(tanh'(c_t)) diag(prod_{tau=s+1}^t f_tau) diag(i_s) W_c^(u)."""
    r = lstm_reference(p, U)
    N = p["Wf"].shape[0]
    Wcu = p["Wc"][:, N:]
    n = U.shape[0]
    K = np.zeros((n, n, p["Wy"].shape[0], U.shape[1]))
    for t in range(n):
        pre = p["Wy"] * (r["o"][t] * (1 - np.tanh(r["c"][t]) ** 2))[None, :]
        for s in range(t + 1):
            F = np.prod(r["f"][s + 1:t + 1], axis=0) if t > s else np.ones(N)
            K[t, s] = pre @ ((F * r["i"][s])[:, None] * Wcu)
    return K


def gru_reference(p: dict[str, Any], U: npt.NDArray[np.float64]) -> dict[str, Any]:
    N = p["Wz"].shape[0]
    h = np.zeros(N)
    rec: dict[str, Any] = {k: [] for k in ("z", "r", "ht", "h")}
    for t in range(U.shape[0]):
        x = np.concatenate([h, U[t]])
        z, r = _sig(p["Wz"] @ x + p["bz"]), _sig(p["Wr"] @ x + p["br"])
        ht = np.tanh(p["Wh"] @ np.concatenate([r * h, U[t]]) + p["bh"])
        h = (1 - z) * h + z * ht
        for k, v in zip(rec, (z, r, ht, h)):
            rec[k].append(v)
    out = {k: np.array(v) for k, v in rec.items()}
    out["Y"] = out["h"] @ p["Wy"].T
    return out


def gru_printed_kernel(p: dict[str, Any], U: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """K_ts = W_y diag(prod_{tau=s+1}^t (1 - z_tau)) diag(z_s) W_h~^(u)."""
    r = gru_reference(p, U)
    N = p["Wz"].shape[0]
    Whu = p["Wh"][:, N:]
    n = U.shape[0]
    K = np.zeros((n, n, p["Wy"].shape[0], U.shape[1]))
    for t in range(n):
        for s in range(t + 1):
            F = np.prod(1 - r["z"][s + 1:t + 1], axis=0) if t > s else np.ones(N)
            K[t, s] = p["Wy"] @ ((F * r["z"][s])[:, None] * Whu)
    return K


def _softplus(x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    return np.logaddexp(0.0, x)


def mamba_reference(p: dict[str, Any], U: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Selective scan (per channel c, diagonal A_c < 0 in R^N): Delta_t = softplus(W_D u_t + b_D),
    B_t = W_B u_t, C_t = W_C u_t, h^c_t = exp(Delta^c_t A_c) h^c_{t-1} + Delta^c_t B_t u^c_t,
    y^c_t = C_t . h^c_t.  ``p["A"]`` has shape (d, N)."""
    n, d = U.shape
    h = np.zeros_like(p["A"])
    Y = np.zeros((n, d))
    for t in range(n):
        Dl = _softplus(p["WD"] @ U[t] + p["bD"])
        Bt, Ct = p["WB"] @ U[t], p["WC"] @ U[t]
        h = np.exp(Dl[:, None] * p["A"]) * h + (Dl[:, None] * Bt[None, :]) * U[t][:, None]
        Y[t] = h @ Ct
    return Y


def mamba_kernel(p: dict[str, Any], U: npt.NDArray[np.float64], *,
                 index: str = "main") -> npt.NDArray[np.float64]:
    """Diagonal kernel K^c_ts = C_t . [prod_tau exp(Delta^c_tau A_c)] * (Delta^c_s B_s), s <= t, with
    tau = s+1..t (``index="main"``, 003 Thm 3(d)) or tau = s..t-1 (``index="eq107"``)."""
    check_choice(index, "index", ("main", "eq107"))
    n, d = U.shape
    Dl = _softplus(U @ p["WD"].T + p["bD"])                  # (n, d)
    Bs, Cs = U @ p["WB"].T, U @ p["WC"].T                    # (n, N)
    logA = Dl[:, :, None] * p["A"][None]                     # (n, d, N)
    cum = np.concatenate([np.zeros((1, d, p["A"].shape[1])), np.cumsum(logA, axis=0)])
    K = np.zeros((n, n, d, d))
    for t in range(n):
        for s in range(t + 1):
            lo, hi = (s + 1, t + 1) if index == "main" else (s, t)
            P = np.exp(cum[hi] - cum[lo])                     # prod over tau in [lo, hi)
            K[t, s][np.arange(d), np.arange(d)] = (P * Dl[s][:, None] * Bs[s][None, :]) @ Cs[t]
    return K
