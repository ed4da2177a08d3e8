"""Check of claims.md B11 itnet.generative_linear_time (003 §5)."""
from __future__ import annotations

import math

import numpy as np

import yatmath.itnet as I
from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Reading, Repro, Scope, Threshold, register
from proofs_check.repro import evaluate

F64 = float(np.finfo(float).eps)
# smallest eigenvalue of the causal block of exp(-(u_t - u_s)^2) with contents 1.5 (i - 1), i = 1..m, repeated
GRAM_EXPR = "float(np.linalg.eigvalsh(np.exp(-np.subtract.outer(1.5 * np.arange(m), 1.5 * np.arange(m)) ** 2)).min())"


@register("itnet.generative_linear_time",
          method="autoregressive generation with a causal low-rank kernel and a running state Z_t vs the dense "
                 "causal operator; exact per-token operation counts; for every causal kernel: a Gaussian content "
                 "kernel whose causal block has rank m for every m (Gershgorin), and a causal MLP kernel's rank")
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
    # every causal kernel? k(a, b) = exp(-(a - b)^2) (content only, d = 1) with the contents of tokens m+1..2m repeating
    # those of tokens 1..m: the block t > s of the causal kernel matrix is the Gram matrix of m points 1.5 apart,
    # positive definite (Gershgorin) for every m, so no exact factorization Phi_t^T Psi_s of rank r < m reproduces it
    r_fix = 8
    gb = {"m": r_fix + 1}
    lam_min = float(evaluate(GRAM_EXPR, gb))
    gersh = 1 - 2 * sum(math.exp(-(1.5 * k) ** 2) for k in range(1, 200))
    general = Evidence(
        V.holds(lam_min <= 0),
        {"causal_mlp_kernel_numerical_rank": ranks, "gaussian_block_lambda_min_m9": lam_min,
         "gershgorin_lower_bound_every_m": gersh, "rank_needed": "m for every m (unbounded)"},
        reading=Reading("every causal ITNet kernel admits an exact factorization kappa(t, s, u_t, u_s) = Phi(t, u_t)^T "
                        "Psi(s, u_s) (s <= t) of a fixed rank r, so generation keeps an O(r d) running state: O(1) "
                        "per token, O(T) in total",
                        '003 §5: "enforcing causality in the interaction function ... the operator admits efficient '
                        'factorizations that reduce generation cost to linear time" (read for every causal kernel)'),
        counterexample={"kernel": "kappa(t, s, a, b) = 1_{s<=t} exp(-(a - b)^2), d = 1 (a content-dependent causal "
                        "Def.-1 kernel)", "contents": "u_t = 1.5 (t - 1) for t = 1..m and u_{m+i} = u_i",
                        "m": gb["m"], "r": r_fix, "T": 2 * gb["m"],
                        "u_values": [1.5 * (i % gb["m"]) for i in range(2 * gb["m"])],
                        "block": "rows t = m+1..2m, columns s = 1..m (all s < t): the Gram matrix of m points 1.5 "
                        "apart", "lambda_min_at_m=9": lam_min, "gershgorin_bound_every_m": gersh,
                        "conclusion": "rank >= m for every m: no fixed-rank exact factorization (r = 8 fails at m = 9)"},
        repro=Repro(GRAM_EXPR, gb, expected=lam_min, rtol=1e-12,
                    tol_reason="float64 symmetric eigenvalues of a well-conditioned 9 x 9 matrix"),
        thresholds=[Threshold("smallest eigenvalue of the m x m causal block (0 would allow rank < m)", 0.0,
                              "precision", "float64 eigvalsh of a 9 x 9 matrix with entries in [0, 1]: error ~1e-15",
                              lam_min, lam_min)],
        scope=Scope("proof", "written argument (notes): Gershgorin bound for every m; eigenvalue at m = 9",
                    universal=True),
        notes="Proof. If 1_{s<=t} kappa = 1_{s<=t} Phi_t^T Psi_s with Phi_t, Psi_s in R^{r x 1}, the block "
              "B = [kappa(t, s)]_{t = m+1..2m, s = 1..m} (all s < t) equals [Phi_t^T Psi_s] and has rank <= r. "
              "With u_{m+i} = u_i = 1.5 (i - 1), B_ij = exp(-2.25 (i - j)^2) is symmetric with unit diagonal and "
              f"off-diagonal row sums <= 2 sum_k exp(-2.25 k^2) = {1 - gersh:.4f}, so lambda_min(B) >= "
              f"{gersh:.4f} > 0 (Gershgorin) and rank B = m. Taking m = r + 1 refutes every fixed r: this causal "
              "kernel has no exact fixed-rank factorization, so the running-state generation of the factorised "
              "reading does not apply to it; the general causal MLP kernel of the substitute has full numerical "
              f"rank too (recorded: {ranks}).")
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
                          "hold for the factorised kernel. Beside it, the reading 'every causal kernel' is REFUTED "
                          "(other_readings.every_causal_kernel, with its counterexample and reproduction in the "
                          "record): kappa(t, s, a, b) = 1_{s<=t} exp(-(a - b)^2), d = 1, T = "
                          f"{2 * gb['m']} tokens with contents u_t = 1.5 (t - 1) for t = 1..{gb['m']} repeated once; "
                          f"the causal block (rows {gb['m'] + 1}..{2 * gb['m']}, columns 1..{gb['m']}) has smallest "
                          f"eigenvalue {lam_min:.6f} > 0 (Gershgorin bound {gersh:.4f} for every m), so no rank-"
                          f"{r_fix} factorization reproduces it; reproduce with m = {gb['m']}: {GRAM_EXPR}")
