"""Printed formulas of paper 003 (ITNet) evaluated on seeded instances, for ledger reproductions.

Each function rebuilds a small random instance from an integer ``seed`` (``np.random.default_rng``)
so that a one-line reproduction ``proofs_check.support.itnet_paper003_formulas.<name>(seed, ...)`` re-computes exactly the
number a claim check recorded.  Nothing here is assumed correct: these are transcriptions of the
paper's equations, compared against the toolkit's dense reference (:func:`yatmath.itnet.grad`,
:func:`yatmath.itnet.apply`) or against ``scipy.linalg.expm_frechet``.

Public functions
----------------
seeded_setup            the random instance (net, X, U, omega, W, G) of a seed
eq204_input_grad        003 eq.204 (App H.10) for dL/du: query Jacobian + value term + W^T g
eq204_rel_error         ||eq.204 - dL/dU|| / ||dL/dU|| on a seeded instance
alg1_rel_error          Alg. 1 (``itnet_alg_literal.alg1_literal``) vs dense, max abs error / max |O|
alg2_du_rel_error       Alg. 2 dL/dU (``itnet_alg_literal.alg2_literal``) vs the dense gradient
eq253_rel_error         003 eq.253 (S4 dL/dA as tau e^{A^T tau}) vs the exact Frechet adjoint
alekseev_formulas       h(T) by solve_ivp, by 003 eq.120 (printed) and by Alekseev-Groebner
mamba_bound_ratio       max ||kappa_ts|| over the bound of 003 Thm 3(d)
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
import numpy.typing as npt
from scipy.integrate import solve_ivp
from scipy.linalg import expm, expm_frechet

from yatmath.itnet.evaluate import apply, grad
from yatmath.itnet.measures import Measure
from yatmath.itnet.network import GROUPS, KernelMLP, gelu_prime, random_kernel_mlp
from yatmath.itnet.operator import ITNetOperator
from yatmath.itnet.special import recurrent as _R

from proofs_check.support.itnet_alg_literal import alg1_literal, alg2_literal

POSITION_GROUPS = ("gx", "gy", "gd", "dist")   # a content-independent kernel (no u inputs)


def seeded_setup(seed: int, n: int, d: int, *, s: int = 1, width: int = 8, L: int = 2,
                 content_dependent: bool = True, gelu: str = "exact",
                 random_omega: bool = True) -> dict[str, Any]:
    """A seeded ITNet instance: ``{"net", "X", "U", "omega", "W", "G"}``.

    net: :func:`random_kernel_mlp` (all input groups, or positions only when
    ``content_dependent=False``); X ~ U[0,1]^(n,s); U, G ~ N(0,1)^(n,d); W ~ N(0,1/d);
    omega ~ U[0.5,1.5]/n (``random_omega``) or 1/n.
    """
    rng = np.random.default_rng(int(seed))
    groups = GROUPS if content_dependent else POSITION_GROUPS
    net = random_kernel_mlp(d, s, width=width, L=L, groups=groups, gelu=gelu, rng=rng)
    X = rng.uniform(0, 1, (n, s))
    U = rng.normal(size=(n, d))
    om = rng.uniform(0.5, 1.5, n) / n if random_omega else np.full(n, 1.0 / n)
    W = rng.normal(size=(d, d)) / np.sqrt(d)
    G = rng.normal(size=(n, d))
    return {"net": net, "X": X, "U": U, "omega": om, "W": W, "G": G}


def eq204_input_grad(net: KernelMLP, W: npt.NDArray[np.float64], X: npt.NDArray[np.float64],
                     U: npt.NDArray[np.float64], omega: npt.NDArray[np.float64],
                     G: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """003 eq.204 for dL/du_i with L = <G, O>: (a) the query-side MLP Jacobian term,
    (b) sum_k omega_i K_ki^T g_k (the value term), (c) W^T g_i.  No key-side Jacobian term."""
    n, d = U.shape
    K = net.kernel(X, X, U, U)
    a = net.preactivation(X, X, U, U)
    J = np.einsum("vk,ijk,kD->ijvD", net.W2, gelu_prime(a, net.gelu), net.W1)
    sl = net.slices
    v = (omega[None, :, None, None] * G[:, None, :, None] * U[None, :, None, :]).reshape(n, n, d * d)
    qry = np.zeros((n, d))
    if "ux" in sl:
        qry += np.einsum("ijv,ijvb->ib", v, J[:, :, :, sl["ux"]])
    if "uxuy" in sl:
        qry += np.einsum("ijv,ijvb,jb->ib", v, J[:, :, :, sl["uxuy"]], U)
    value = np.einsum("j,ijab,ia->jb", omega, K, G)
    return qry + value + G @ W


def eq204_rel_error(seed: int, n: int = 5, d: int = 3, content_dependent: bool = True) -> float:
    """||eq.204 - dL/dU||_F / ||dL/dU||_F on :func:`seeded_setup` (dense autodiff reference)."""
    S = seeded_setup(seed, n, d, content_dependent=content_dependent)
    ref = grad(ITNetOperator(S["net"], S["W"]), S["U"], Measure(S["X"], S["omega"]), S["G"])["U"]
    p = eq204_input_grad(S["net"], S["W"], S["X"], S["U"], S["omega"], S["G"])
    return float(np.linalg.norm(p - ref) / np.linalg.norm(ref))


def alg1_rel_error(seed: int, n: int, bq: int, bk: int, *, ragged: bool = False,
                   omega_index: str = "key", random_omega: bool = False) -> float:
    """max|O_alg1 - O_dense| / max|O_dense| on :func:`seeded_setup` (d = 2, width 8, L = 3)."""
    S = seeded_setup(seed, n, 2, L=3, random_omega=random_omega)
    O_ref = apply(ITNetOperator(S["net"], S["W"]), S["U"], Measure(S["X"], S["omega"]))
    O = alg1_literal(S["net"], S["W"], S["X"], S["U"], S["omega"], bq, bk, ragged=ragged,
                     omega_index=omega_index)[0]
    return float(np.abs(O - O_ref).max() / np.abs(O_ref).max())


def alg2_du_rel_error(seed: int, n: int, bq: int, bk: int, *, content_dependent: bool = True,
                      ragged: bool = False, write: str = "overwrite") -> float:
    """||dU_alg2 - dL/dU||_F / ||dL/dU||_F on :func:`seeded_setup` (d = 2)."""
    S = seeded_setup(seed, n, 2, content_dependent=content_dependent)
    ref = grad(ITNetOperator(S["net"], S["W"]), S["U"], Measure(S["X"], S["omega"]), S["G"])["U"]
    lit = alg2_literal(S["net"], S["W"], S["X"], S["U"], S["omega"], S["G"], bq, bk, ragged=ragged,
                       write=write)["U"]
    return float(np.linalg.norm(lit - ref) / np.linalg.norm(ref))


def eq253_rel_error(A: npt.ArrayLike, seed: int, n: int = 6) -> float:
    """003 eq.253, dL/dA = sum_{j<=i} omega_j tau e^{A^T tau} C^T g_i u_j^T B^T (tau = t_i - t_j),
    against the exact gradient sum omega_j L_exp(A^T tau, tau C^T g_i u_j^T B^T) (the adjoint of
    the Frechet derivative of the matrix exponential), for the causal S4 kernel on n uniform
    nodes of [0, 1] with omega = 1/n; B, C, u, g ~ N(0,1) from ``seed``.  Relative Frobenius error."""
    A = np.asarray(A, dtype=float)
    N = A.shape[0]
    rng = np.random.default_rng(int(seed))
    B, C = rng.normal(size=(N, 1)), rng.normal(size=(1, N))
    u, g = rng.normal(size=(n, 1)), rng.normal(size=(n, 1))
    t = np.linspace(0, 1, n)
    w = np.full(n, 1.0 / n)
    gh = g @ C
    printed = np.zeros((N, N))
    exact = np.zeros((N, N))
    for i in range(n):
        for j in range(i + 1):
            tau = t[i] - t[j]
            X = np.outer(gh[i], u[j]) @ B.T
            printed += w[j] * tau * expm(A.T * tau) @ X
            exact += w[j] * expm_frechet(A.T * tau, tau * X, compute_expm=False)
    return float(np.linalg.norm(printed - exact) / np.linalg.norm(exact))


def mamba_bound_ratio(p: dict[str, Any], U: npt.ArrayLike) -> float:
    """max_{s<=t} max_c |kappa_ts| / (||W_C|| e^{(t-s) Delta_max ||A||} ||W_B|| ||u||_inf), the
    ratio to the kernel-norm bound of 003 Thm 3(d) (kernel: ``recurrent.mamba_kernel``, main index
    range; ||A|| = max |A_cn|, ||u||_inf = max_t ||u_t||_2).  A value above 1 violates the bound."""
    p = {k: np.asarray(v, dtype=float) for k, v in p.items()}
    U = np.asarray(U, dtype=float)
    K = _R.mamba_kernel(p, U, index="main")
    Dl = np.logaddexp(0.0, U @ p["WD"].T + p["bD"])
    nA, nC, nB = np.abs(p["A"]).max(), np.linalg.norm(p["WC"], 2), np.linalg.norm(p["WB"], 2)
    uinf = np.linalg.norm(U, axis=1).max()
    best = 0.0
    for t in range(U.shape[0]):
        for s in range(t + 1):
            kn = np.abs(np.diag(K[t, s])).max()
            best = max(best, kn / (nC * np.exp((t - s) * Dl.max() * nA) * nB * uinf))
    return float(best)


def alekseev_formulas(F: Callable[[Any, Any], Any], J: Callable[[Any, Any], Any],
                      u: Callable[[float], Any], h0: npt.NDArray[np.float64], T: float,
                      nq: int = 32) -> dict[str, Any]:
    """h(T) by solve_ivp and by the two Alekseev formulas (003 eq.120 and the textbook Alekseev-Groebner formula).

    F(h, u), J(h, u) = dF/dh; G(h, u) = F(h, u) - F(h, 0); psi = flow of z' = F(z, 0).
    (P) printed: Phi_F(T, s) along the actual trajectory (Phi_F(T, s) = Phi(T, 0) Phi(s, 0)^-1).
    (T) textbook: M(T; s) = d phi0(T; s, xi)/d xi at xi = h(s) (one variational solve per node).
    The s-integral uses Gauss-Legendre with ``nq`` nodes.
    """
    N = h0.size
    kw = dict(method="DOP853", rtol=1e-12, atol=1e-12)

    def rhs(t: float, z: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        h, Phi = z[:N], z[N:].reshape(N, N)
        return np.concatenate([F(h, u(t)), (J(h, u(t)) @ Phi).ravel()])

    sol = solve_ivp(rhs, (0, T), np.concatenate([h0, np.eye(N).ravel()]), dense_output=True, **kw)
    hT = sol.y[:N, -1]
    PhiT0 = sol.y[N:, -1].reshape(N, N)
    psi = solve_ivp(lambda t, z: F(z, np.zeros_like(u(t))), (0, T), h0, **kw).y[:, -1]
    xi, w = np.polynomial.legendre.leggauss(nq)
    s_nodes, s_w = T * (xi + 1) / 2, T * w / 2
    intP = np.zeros(N)
    intT = np.zeros(N)
    for s, ws in zip(s_nodes, s_w):
        zs = sol.sol(s)
        hs, Phis0 = zs[:N], zs[N:].reshape(N, N)
        Gs = F(hs, u(s)) - F(hs, np.zeros_like(u(s)))
        intP += ws * (PhiT0 @ np.linalg.solve(Phis0, Gs))

        def rhs0(t: float, z: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
            x, M = z[:N], z[N:].reshape(N, N)
            zero = np.zeros_like(u(t))
            return np.concatenate([F(x, zero), (J(x, zero) @ M).ravel()])

        zz = solve_ivp(rhs0, (s, T), np.concatenate([hs, np.eye(N).ravel()]), **kw).y[:, -1]
        intT += ws * (zz[N:].reshape(N, N) @ Gs)
    return {"h_T": hT, "printed": psi + intP, "textbook": psi + intT, "sol": sol, "N": N}
