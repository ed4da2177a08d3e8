"""Check of claims.md B11 itnet.generative_linear_time (003 §5)."""
from __future__ import annotations

import numpy as np

import yatmath.itnet as I
from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Reading, Scope, Threshold, register

F64 = float(np.finfo(float).eps)


@register("itnet.generative_linear_time",
          method="autoregressive generation with a causal low-rank kernel and a running state Z_t vs the dense "
                 "causal operator; exact per-token operation counts; numerical rank of a general causal MLP kernel")
def check_generative(ctx):
    rng = ctx.rng("gen")
    d, r, T = 6, 3, 64
    Phi = rng.normal(size=(T, r, d))
    Psi = rng.normal(size=(T, r, d))
    U = rng.normal(size=(T, d))
    dense = np.stack([sum(Phi[t].T @ Psi[j] @ U[j] for j in range(t + 1)) / T for t in range(T)])
    Z = np.zeros(r)
    gen = np.empty((T, d))
    for t in range(T):                                   # O(r d) per token: Z_t = Z_{t-1} + Ψ_t u_t
        Z = Z + Psi[t] @ U[t] / T
        gen[t] = Phi[t].T @ Z
    err = float(np.abs(gen - dense).max() / np.abs(dense).max())
    per_token = 2 * r * d                                # independent of t
    tol = 64 * T * F64
    net = I.random_kernel_mlp(1, 1, width=16, L=4, rng=rng)
    ranks = {}
    for n in (16, 64):
        X = np.linspace(0, 1, n)[:, None]
        Km = np.tril(net.kernel(X, X, np.sin(7 * X), np.sin(7 * X))[:, :, 0, 0])
        s = np.linalg.svd(Km, compute_uv=False)
        ranks[str(n)] = int((s > 1e-10 * s[0]).sum())
    general = Evidence(V.NOT_CHECKABLE, {"causal_mlp_kernel_numerical_rank": ranks},
                       reading=Reading("every causal ITNet kernel generates in O(1) per token",
                                       '003 §5: "the operator admits efficient factorizations"'),
                       notes="a lower bound on the generation cost of an arbitrary causal MLP kernel cannot be "
                             "established numerically; its causal kernel matrix has full numerical rank (recorded), "
                             "so no fixed-rank state reproduces it exactly.")
    return Evidence(verdict=V.holds(err <= tol),
                    numbers={"rel_error_running_state_vs_dense": err, "macs_per_token": per_token, "T": T,
                             "total_macs": per_token * T},
                    reading=Reading("with the paper's factorised (low-rank) kernel and causal masking, generation "
                                    "keeps a running state Z_t = Σ_{j<=t} ω_j Ψ_j u_j: O(r d) per token, O(T) total",
                                    '003 §5: "enforcing causality in the interaction function ... the operator admits '
                                    'efficient factorizations that reduce generation cost to linear time"; §3.3: '
                                    '"κ_θ ≈ Φ_θ^TΨ_θ ... Z is computed once in O(nrd)"'),
                    other_readings={"every_causal_kernel": general},
                    thresholds=[Threshold("running-state output = causal dense output (relative)", tol, "precision",
                                          f"float64, 64 T eps for sums of T = {T} terms", err, err)],
                    scope=Scope("symbolic", "Φ_t^T Σ_{j<=t} Ψ_j u_j = Σ_{j<=t} Φ_t^T Ψ_j u_j (associativity); the "
                                "update Z_t = Z_{t-1} + ω_t Ψ_t u_t costs r d + r, the read-out r d, independent of t; "
                                "numeric agreement at T = 64", universal=True),
                    notes="Both wordings of the Read line (O(1) per token with a constant-size state; O(T) total) "
                          "hold for the factorised kernel.")
