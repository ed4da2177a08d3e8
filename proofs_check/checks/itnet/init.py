"""Check of claims.md B10 itnet.init.identity (003 §2.1, App H.3.1)."""
from __future__ import annotations

import math

import numpy as np

import yatmath.itnet as I
from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Reading, Repro, Scope, Threshold, register
from proofs_check.repro import evaluate

of_parts = Evidence.of_parts   # a claim of parts: verdict by verdicts.combine_parts

EPS_PRINTED = 1e-3      # 003 App H.3.1: "ε = 10^-3" (and §2.1: "W2 = εI_d (ε = 10^-3)")
H31 = ('003 App H.3.1: "W2 = ε·W~2 where W~2 ∼ N(0,1/w_κ) and ε = 10^-3" (the main text defers: "Full '
       'architectural details, initialization schemes ... are in Appendix H")')


# mean ||vec K_xy|| of the printed initialisation (d_h = 64, w = 128, L = 64, eps = 1e-3, b2 = 1/n) over P seeded pairs
NORM_EXPR = ("float(np.mean(np.linalg.norm((lambda g: yatmath.itnet.init_itnet(64, 2, n_keys=n, rng=seed).kernel"
             ".kernel_pairs(g.uniform(0, 1, (P, 2)), g.uniform(0, 1, (P, 2)), g.normal(size=(P, 64)), "
             "g.normal(size=(P, 64))))(np.random.default_rng(xseed)).reshape(P, -1), axis=1)))")


# the same mean for a head width d_h and position dimension s (the ITNet-PC setting: d = 128, H = 4, s = 3, 1024 points)
NORM_DH_EXPR = ("float(np.mean(np.linalg.norm((lambda g: yatmath.itnet.init_itnet(d_h, s, n_keys=n, rng=seed).kernel"
                ".kernel_pairs(g.uniform(0, 1, (P, s)), g.uniform(0, 1, (P, s)), g.normal(size=(P, d_h)), "
                "g.normal(size=(P, d_h))))(np.random.default_rng(xseed)).reshape(P, -1), axis=1)))")


INIT_EXPR = ("float(np.max(np.linalg.norm((lambda V_: yatmath.itnet.apply(yatmath.itnet.init_itnet(d, 1, n_keys=n, "
             "eps_init=0.0, rng=seed), V_, yatmath.itnet.discrete_uniform(np.array(X))) - V_ - V_.mean(0))(np.array(U)), "
             "axis=1)) / np.linalg.norm(np.mean(np.array(U), axis=0)))")


# the decisive witness, inside the hypotheses: the printed eps = 1e-3, d = d_h = 64, n = 197 (ViT tokens), positions in
# [0,1]^2, the token-constant input u_j = v = (1, -1, 1, ...) (mean 0, variance 1: LayerNorm, eq. 5, maps it to itself
# up to its own 1/sqrt(1 + eps_LN)); q query rows.  [|O - (u + ū)| / |u + ū|, |O - (u + ū/n)| / |u + ū|,
# |O - (u + ū/n)| / |u + ū/n|], each the max over the q rows
WITNESS_EXPR = ("(lambda X, U: (lambda O: [float(np.max(np.linalg.norm(O - U[:q] - U.mean(0), axis=1) "
                "/ np.linalg.norm(U[:q] + U.mean(0), axis=1))), float(np.max(np.linalg.norm(O - U[:q] - U.mean(0) / n, "
                "axis=1) / np.linalg.norm(U[:q] + U.mean(0), axis=1))), float(np.max(np.linalg.norm(O - U[:q] "
                "- U.mean(0) / n, axis=1) / np.linalg.norm(U[:q] + U.mean(0) / n, axis=1)))])"
                "(yatmath.itnet.apply(yatmath.itnet.init_itnet(d, 2, n_keys=n, eps_init=eps, rng=seed), U, "
                "yatmath.itnet.discrete_uniform(X), Xq=X[:q], Uq=U[:q])))"
                "(np.random.default_rng(xseed).uniform(0, 1, (n, 2)), np.tile(np.resize([1.0, -1.0], d), (n, 1)))")


@register("itnet.init.identity",
          method="sample the printed initialisation (d_h = 64, w = 128, L = 64, n in {197, 512}); ||vec K|| "
                 "with and without b2 against ε d_h RMS(h); the initial output at ε = 1e-3 on a token-constant "
                 "LayerNorm-fixed input vs u_i + ū and u_i + ū/n (μ({x_j}) = 1/n); the exact output at ε = 0")
def check_init(ctx):
    rng = ctx.rng("init")
    out = {}
    for n in (197, 512):
        op = I.init_itnet(64, 2, n_keys=n, width=128, L=64, rng=rng)
        X = rng.uniform(0, 1, (n, 2))
        U = rng.normal(size=(n, 64))
        P = ctx.pick(100, 1000)
        i, j = rng.integers(0, n, P), rng.integers(0, n, P)
        Kp = op.kernel.kernel_pairs(X[i], X[j], U[i], U[j])
        b2 = op.kernel.b2.reshape(64, 64)
        qi = rng.integers(0, n, ctx.pick(4, 16))
        O = I.apply(op, U, I.discrete_uniform(X), Xq=X[qi], Uq=U[qi])
        ubar = U.mean(0)
        sc = float(np.linalg.norm(ubar))
        out[n] = {"norm_vecK_without_b2": float(np.linalg.norm((Kp - b2).reshape(P, -1), axis=1).mean()),
                  "norm_vecK_with_b2": float(np.linalg.norm(Kp.reshape(P, -1), axis=1).mean()),
                  # max over the query rows of |O_i - (u_i + ū)|, divided by |ū| (first) or by |u_i + ū| (second)
                  "dev_from_u_plus_ubar_over_|ū|": float(np.linalg.norm(O - U[qi] - ubar, axis=1).max() / sc),
                  "dev_from_u_plus_ubar_over_|u_i+ū|": float(np.max(np.linalg.norm(O - U[qi] - ubar, axis=1)
                                                                    / np.linalg.norm(U[qi] + ubar, axis=1))),
                  "dev_from_u_plus_ubar/n_over_|ū|": float(np.linalg.norm(O - U[qi] - ubar / n, axis=1).max() / sc),
                  "rms_hidden": float(np.sqrt(np.mean(op.kernel.hidden(X[i[:64]], X[j[:64]], U[i[:64]], U[j[:64]]) ** 2)))}
    # the decisive witness at the printed eps = 1e-3 (inside the hypotheses), against the only term the printed
    # '≈' names (W2 h, of size eps): the output's distance from the claimed u_i + ū against its distance from u_i + ū/n
    wb = {"n": 197, "d": 64, "eps": float(EPS_PRINTED), "seed": 0, "xseed": 1, "q": 4}
    miss, eps_term, eps_term_own = (float(v) for v in evaluate(WITNESS_EXPR, wb))
    # the exact explanation beside it: at eps = 0 there is no W2 h term and the output is u_i + ū/n exactly
    rc = ctx.rng("repro")
    n_r, d_r = 4, 3
    bind0 = {"n": n_r, "d": d_r, "seed": 0, "X": rc.uniform(0, 1, (n_r, 1)).round(3).tolist(),
             "U": rc.normal(size=(n_r, d_r)).round(3).tolist()}
    gap0 = float(evaluate(INIT_EXPR, bind0))
    exact_rel = {str(n): 1 - 1 / n for n in (n_r, 197, 512)}
    outp = Evidence(V.holds(miss <= eps_term),
                    {"witness_eps_1e-3": {**wb, "miss_from_u_plus_ubar_over_|u_i+ū|": miss,
                                          "dev_from_u_plus_ubar/n_over_|u_i+ū|": eps_term,
                                          "dev_from_u_plus_ubar/n_over_|u_i+ū/n|": eps_term_own,
                                          "token_constant_input": "u_j = (1, -1, 1, -1, ...) in R^64 for every j",
                                          "exact_part_of_the_miss_(1 - 1/n)/2": (1 - 1 / wb["n"]) / 2},
                     "exact_explanation_eps_0": {"expr": INIT_EXPR, "bindings": bind0, "eps_init": 0.0,
                                                 "dev_from_u_plus_ubar_over_|ū|": gap0,
                                                 "exact_(1 - 1/n)": exact_rel},
                     "sampled_network_eps_1e-3_random_tokens": {
                         str(n): {k: out[n][k] for k in ("dev_from_u_plus_ubar_over_|ū|",
                                                         "dev_from_u_plus_ubar_over_|u_i+ū|",
                                                         "dev_from_u_plus_ubar/n_over_|ū|")}
                         for n in out}},
                    reading=Reading("with ω_j = μ({x_j}) = 1/n and b2 = (1/n) on the diagonal, the initial output at "
                                    "the printed ε = 10^-3 is u_i + ū up to the O(ε) W2 h term",
                                    '003 §2.1: "We normalize μ(Ω)=1 in all experiments: μ({x_j})=1/n for discrete '
                                    'domains"; H.3.1: "[b2]_k = 1/n if k corresponds to a diagonal entry", "≈ (1/n) '
                                    'Σ_j I u(x_j) + W u(x_i) = ū + u(x_i)" with ε = 10^-3 the only approximation named'),
                    counterexample={**wb, "miss_from_u_plus_ubar_over_|u_i+ū|": miss,
                                    "dev_from_u_plus_ubar/n_over_|u_i+ū|": eps_term,
                                    "integral_term": "Σ_j ω_j (1/n) I u_j = ū/n (the printed '(1/n) Σ_j I u(x_j)' "
                                                     "drops ω_j)"},
                    repro=Repro(WITNESS_EXPR, wb, expected=[miss, eps_term, eps_term_own], rtol=1e-9,
                                tol_reason="float64 kernel MLP over 4 x 197 pairs; only BLAS summation order may "
                                           "differ"),
                    thresholds=[Threshold("max_i |O_i - (u_i + ū)| / |u_i + ū| at ε = 1e-3, against the W2 h term "
                                          "the printed '≈' drops, |O_i - (u_i + ū/n)| / |u_i + ū| (measured at the "
                                          "printed ε)", eps_term, "paper",
                                          "003 App H.3.1: ε = 10^-3, the only approximation in '≈ ... = ū + u(x_i)'; "
                                          "the value is the size of that O(ε) term at the printed ε, measured on the "
                                          "same witness as the miss (n = 197, d_h = 64, the same 4 query rows)",
                                          miss, miss)],
                    scope=Scope("instance", "one witness inside the hypotheses (printed ε = 1e-3, d_h = 64, n = 197, "
                                "a LayerNorm-fixed token-constant input); exact beside it: Σ_j ω_j b2 u_j = ū/n for "
                                "every n and u, and the public initialiser at ε = 0 gives u_i + ū/n to rounding"),
                    notes=f"At the printed ε = 1e-3 with the token-constant input v = (1, -1, ...) (which LayerNorm, "
                          f"eq. 5, leaves unchanged), n = 197: the output misses the claimed u_i + ū by {miss:.4f} of "
                          f"the claimed value's norm ((1 - 1/n)/2 = {(1 - 1 / 197) / 2:.4f} exactly, from the dropped "
                          f"ω_j), while it matches u_i + ū/n within {eps_term_own:.2%}: the W2 h term that '≈' names "
                          f"is {eps_term:.4f} of the claimed norm, {miss / eps_term:.0f} times smaller than the miss. "
                          "Exact explanation: Σ_j ω_j (1/n) I u_j = ū/n, not ū (the printed '(1/n) Σ_j I_d u(x_j)' "
                          "drops ω_j); at ε = 0 the public initialiser gives u_i + ū/n to rounding (relative gap "
                          f"{gap0:.4f} = 1 - 1/n of |ū| at n = 4). Random Gaussian tokens (listed per n) miss u_i + ū "
                          "by about (1 - 1/n) |ū| (" + ", ".join(f"n = {k}: {out[k]['dev_from_u_plus_ubar_over_|ū|']:.3f} "
                          "of |ū|" for k in out) + "); their |ū| (~sqrt(d/n)) is small beside |u_i| (~sqrt(d)), so the same miss is a small "
                          "fraction of |u_i + ū| (" + ", ".join(f"n = {k}: {out[k]['dev_from_u_plus_ubar_over_|u_i+ū|']:.3f}"
                                                               for k in out) + "); they decide nothing.")
    nb = [out[n]["norm_vecK_without_b2"] for n in out]
    wbn = [out[n]["norm_vecK_with_b2"] for n in out]
    rms_h = [out[n]["rms_hidden"] for n in out]
    predicted = [float(EPS_PRINTED) * 64 * r for r in rms_h]
    # the printed quantity ||vec K_xy|| = ||W2 h + b2|| at the printed initialisation, with n free (b2 = 1/n on the
    # diagonal: ||b2|| = sqrt(d_h)/n), LayerNorm-scale tokens and positions in [0,1]^2; '≈' gets every tolerance up to
    # half a decade (rule 3), and the worst n decides (rule 5(b): H.3.1 defines the initialisation for every n)
    P_n = ctx.pick(200, 1000)
    n_grid = (197, 512, 1024, 4096)
    vk = {n_: float(evaluate(NORM_EXPR, {"n": n_, "P": P_n, "seed": 3, "xseed": 4})) for n_ in n_grid}
    claimed = 1e-3 * 64
    tols = {"1.5x": 1.5, "2x": 2.0, "half a decade (10^0.5, the widest)": math.sqrt(10)}
    fac = {n_: max(claimed / v, v / claimed) for n_, v in vk.items()}
    n_worst = max(fac, key=fac.get)
    n_ex = sum(fac[n_worst] > t for t in tols.values())
    v_norm = V.REFUTED if n_ex == len(tols) else V.CONFIRMED if n_ex == 0 else V.NOT_CHECKABLE
    nbind = {"n": n_worst, "P": P_n, "seed": 3, "xseed": 4}
    # beside it (not deciding): the paper's own ITNet-PC setting, where the printed formula eps sqrt(d_h^2) gives 0.032
    pc_bind = {"d_h": 32, "s": 3, "n": 1024, "P": P_n, "seed": 3, "xseed": 4}
    pc_norm = float(evaluate(NORM_DH_EXPR, pc_bind))
    pc = {**pc_bind, "setting": "ITNet-PC (003 Table 3: L=6, d=128, H=4, so d_h = 32; ModelNet40, 1024 points, s = 3)",
          "mean_norm_vecK": pc_norm, "formula_eps_d_h": 1e-3 * 32, "factor": 1e-3 * 32 / pc_norm,
          "expr": NORM_DH_EXPR}
    norm = Evidence(
        v_norm,
        {"norm_vecK_by_n": vk, "factor_from_0.064_by_n": fac, "tolerances_of_≈": tols, "worst_n": n_worst,
         "norm_without_b2": nb, "norm_with_b2": wbn, "claimed": claimed, "printed_arithmetic_1e-3_x_64": 1e-3 * 64,
         "rms_hidden_GELU(W1 z)": rms_h, "eps_d_h_rms_h": predicted, "paper_setting_ITNet-PC_beside": pc},
        reading=Reading("||vec(K_xy)||_2 = ||W2 h + b2||_2 ≈ ε sqrt(d_h^2) = 0.064 at the printed initialisation "
                        "(d_h = 64, w = 128, L = 64, ε = 1e-3, b2 = 1/n on the diagonal), for the n the "
                        "initialisation is defined for; '≈' given every tolerance up to half a decade", H31
                        + '; "This ensures the initial kernel output vec(K_xy) = W2 h^(1) + b2 has small norm: '
                        '||vec(K_xy)||_2 ≈ ε sqrt(d_h^2) = 10^-3 x 64 = 0.064, so ||K_xy||_F ≈ 0.064"'),
        counterexample=None if v_norm != V.REFUTED else {
            **nbind, "d_h": 64, "w": 128, "L": 64, "eps": 1e-3, "inputs": "P pairs: positions U[0,1]^2, tokens "
            "N(0, 1)^64 (LayerNorm scale)", "mean_norm_vecK": vk[n_worst], "claimed": claimed,
            "factor": fac[n_worst], "widest_tolerance": math.sqrt(10)},
        repro=Repro(NORM_EXPR, nbind, expected=vk[n_worst], rtol=1e-9,
                    tol_reason="float64 kernel MLP on the same seeded pairs; only BLAS summation order may differ"),
        thresholds=[Threshold("0.064 / mean ||vec K|| at the worst n <= the widest tolerance of '≈' (half a decade)",
                              math.sqrt(10), "paper", "003 App H.3.1 prints 0.064 with '≈'; '≈' is vague, so every "
                              "tolerance a reader gives it is applied (1.5x, 2x, and the widest, a factor 10^0.5 = "
                              "3.16 beyond which 0.064 and the measured value round to different powers of ten)",
                              fac[n_worst], fac[n_worst])],
        scope=Scope("instance", f"the printed initialisation sampled at n in {list(n_grid)} ({P_n} pairs each, "
                    "LayerNorm-scale tokens); the W2 h part is independent of n (ε d_h RMS(h)) and b2 adds "
                    "sqrt(d_h)/n, so the factor only grows with n beyond the grid"),
        notes="The printed ε sqrt(d_h^2) takes RMS(h) = 1, but under W1 ~ N(0, 0.02^2) the hidden layer has RMS(GELU(W1 "
              f"z)) = {rms_h[0]:.3f}, so ||W2 h|| = ε d_h RMS(h) = {predicted[0]:.4f}; b2 adds sqrt(d_h)/n = "
              f"{8 / 197:.4f} at n = 197 and vanishes as n grows. Measured mean ||vec K||: "
              + ", ".join(f"n = {k}: {v:.4f} ({fac[k]:.2f}x from 0.064)" for k, v in vk.items())
              + f". At n = {n_worst} the printed value is {fac[n_worst]:.2f}x the measured one, beyond every tolerance "
              "of '≈' up to half a decade; at n = 197 (ImageNet) it is within 2x, so only the free n decides. Beside "
              f"it, in the paper's own ITNet-PC setting (d_h = 32, n = 1024, s = 3) ||vec K|| = {pc_norm:.4f} against "
              f"the formula's ε d_h = 0.032 ({pc['factor']:.2f}x, also beyond half a decade).")
    return of_parts({"initial_output_u_plus_ubar": outp, "norm_0.064": norm}, repro=outp.repro,
                    reading=Reading("W2 is the d_h^2 x w matrix ε·W~2 of H.3.1 (the main text's 'W2 = εI_d' is a "
                                    "shorthand: I_d has the wrong shape)", H31),
                    numbers={str(n): out[n] for n in out},
                    notes="W_θ = I is a definition (not a checkable statement). Tried (rule 5): the initial output "
                          "at the printed ε = 1e-3 on a token-constant input that LayerNorm leaves unchanged (decisive, "
                          "inside the hypotheses), derived exactly and evaluated at ε = 0 (the explanation), and "
                          "sampled on random tokens for n = 197 and 512 (each n against its own ε-term); the kernel "
                          "norm ||W2 h + b2|| against the printed 0.064 over the free n (197 to 4096), under every "
                          "tolerance of '≈' up to half a decade.")
