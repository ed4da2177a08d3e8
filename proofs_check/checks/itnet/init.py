"""Check of claims.md B10 itnet.init.identity (003 §2.1, App H.3.1)."""
from __future__ import annotations

import numpy as np

import yatmath.itnet as I
from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Reading, Repro, Scope, Threshold, register

of_parts = Evidence.of_parts   # a claim of parts: verdict by verdicts.combine_parts

H31 = ('003 App H.3.1: "W2 = ε·W~2 where W~2 ∼ N(0,1/w_κ) and ε = 10^-3" (the main text defers: "Full '
       'architectural details, initialization schemes ... are in Appendix H")')


@register("itnet.init.identity",
          method="sample the printed initialisation (d_h = 64, w = 128, L = 64, n in {197, 512}); ||vec K|| "
                 "with and without b2; the exact initial output vs u_i + ū (μ({x_j}) = 1/n)")
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
                  "rel_dev_from_u_plus_ubar": float(np.linalg.norm(O - U[qi] - ubar, axis=1).max() / sc),
                  "rel_dev_from_u_plus_ubar_over_n": float(np.linalg.norm(O - U[qi] - ubar / n, axis=1).max() / sc)}
    n0 = 197
    dev = out[n0]["rel_dev_from_u_plus_ubar"]
    eps_term = max(out[n]["rel_dev_from_u_plus_ubar_over_n"] for n in out)   # what "≈" has to absorb
    outp = Evidence(V.holds(dev <= eps_term),
                    {str(n): {k: out[n][k] for k in ("rel_dev_from_u_plus_ubar", "rel_dev_from_u_plus_ubar_over_n")}
                     for n in out},
                    reading=Reading("with ω_j = μ({x_j}) = 1/n and b2 = (1/n) on the diagonal, the initial output is "
                                    "u_i + ū (up to the O(ε) W2 h term)",
                                    '003 §2.1: "We normalize μ(Ω)=1 in all experiments: μ({x_j})=1/n for discrete '
                                    'domains"; H.3.1: "[b2]_k = 1/n if k corresponds to a diagonal entry"'),
                    counterexample={"n": 1, "omega": [1.0], "kernel": "b2 = 1/n diagonal, W2 h = 0 (ε -> 0)",
                                    "u": [2.0], "integral_term": 2.0, "note": "see repro"},
                    repro=Repro("sum(w * (1.0 / n) * x for w, x in zip([1.0 / n] * n, u)) - sum(u) / n",
                                {"n": 4, "u": [1.0, 2.0, 3.0, 6.0]}, expected=3.0 / 4 - 3.0, rtol=1e-12),
                    thresholds=[Threshold("|O - u_i - ū| / |ū| <= size of the ε-term |O - u_i - ū/n| / |ū|",
                                          eps_term, "paper", "003 H.3.1: ε = 1e-3 (the '≈' covers the W2 h term of "
                                          "size ε); measured on the sampled network", dev, dev)],
                    scope=Scope("instance", "n in {197, 512}, d_h = 64, w = 128, L = 64"),
                    notes="Σ_j ω_j (1/n) I u_j = ū/n, not ū: the printed '(1/n) Σ_j I_d u(x_j)' drops ω_j. The repro "
                          "evaluates the integral term Σ_j ω_j (1/n) u_j minus the claimed ū for n = 4 (ε -> 0).")
    # fix the counterexample to the repro's own values
    outp.counterexample = {"n": 4, "u": [1.0, 2.0, 3.0, 6.0], "omega_j": 0.25, "kernel_diag": 0.25,
                           "integral_term_minus_ubar": 3.0 / 4 - 3.0,
                           "sampled_network_rel_dev_n197": dev}
    nb = [out[n]["norm_vecK_without_b2"] for n in out]
    wb = [out[n]["norm_vecK_with_b2"] for n in out]
    norm = Evidence(V.NOT_CHECKABLE, {"norm_without_b2": nb, "norm_with_b2": wb, "claimed": 0.064,
                                      "printed_arithmetic_1e-3_x_64": 1e-3 * 64},
                    reading=Reading("||vec(K_xy)|| ≈ ε sqrt(d_h^2) = 0.064 at initialisation", H31),
                    notes="'≈' has no tolerance in 003 and the norm depends on the unstated input scale of W1's "
                          "input z; the measured norms are recorded (claims.md rule 3: vague).")
    return of_parts({"initial_output_u_plus_ubar": outp, "norm_0.064": norm},
                    reading=Reading("W2 is the d_h^2 x w matrix ε·W~2 of H.3.1 (the main text's 'W2 = εI_d' is a "
                                    "shorthand: I_d has the wrong shape)", H31),
                    numbers={str(n): out[n] for n in out},
                    notes="W_θ = I is a definition (not a checkable statement).")
