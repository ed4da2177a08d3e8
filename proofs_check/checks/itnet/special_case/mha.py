"""itnet.special_case.mha: 003 Thm D.1(b) eq. 58; App D.4 eqs 73-74; Def 7."""
from __future__ import annotations

import numpy as np

from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Reading, Repro, Scope, register
from proofs_check.support.itnetops_common import exact_identity_evidence, r2_reading, rel
from yatmath.itnet.dense import apply_kernel_tensor
from yatmath.itnet.special import attention as at

PASS_74 = ('003 App D.4 Step 2, eq. 74: "(K[u])(x) = W_O int (alpha_1(x,y) W_V^1 u(y); ...; alpha_H(x,y) W_V^H u(y)) '
           'dmu(y)": the proof multiplies u(y) by the vertical stack [alpha_h W_V^h]_h (d x d with W_O, as eq. 73 '
           'states "in R^{d x d}"), which corrects "BlockDiag" of eq. 58 (with Def 7: W_V^h in R^{d_v x d}, a block '
           'diagonal would be (H d_v) x (H d))')
F_EXPR = ("yatmath.itnet.special.attention.mha_reference(V_, [np.array(w) for w in Wq], [np.array(w) for w in Wk], "
          "[np.array(w) for w in Wv], np.array(Wo))")


@register("itnet.special_case.mha",
          method="shape analysis of W_O BlockDiag(alpha_h W_V^h) (eq. 58 as printed); the stacked form "
                 "W_O [alpha_h W_V^h]_h of the proof (eq. 74) vs reference MHA over >= 20 random draws; R2 mixed "
                 "difference")
def check_mha(ctx):
    def draw(rng):
        n, d, H, dv = int(rng.choice([6, 10, 32])), 4, 2, 2
        U = rng.normal(size=(n, d))
        Wq = [rng.normal(size=(2, d)) for _ in range(H)]
        Wk = [rng.normal(size=(2, d)) for _ in range(H)]
        Wv = [rng.normal(size=(dv, d)) for _ in range(H)]
        Wo = rng.normal(size=(d, H * dv))
        om = np.full(n, 1.0 / n)
        return rel(apply_kernel_tensor(at.mha_kernel(U, Wq, Wk, Wv, Wo, om), U, om),
                   at.mha_reference(U, Wq, Wk, Wv, Wo)), {"n": n}

    ev = exact_identity_evidence(ctx, "m", draw, what="stacked kernel W_O [alpha_h W_V^h]_h (mu = 1/n) vs MHA (Def 7)",
                                 reading=Reading("eq. 58 read as the stacked kernel W_O [alpha_1 W_V^1; ...; "
                                                 "alpha_H W_V^H] of the proof (d = H d_v), with the normalisers Z_h(x) "
                                                 "in the kernel (R1, as in Thm D.1(a))", PASS_74))
    d, H, dv = 4, 2, 2
    expr = "list(yatmath.itnet.special.attention.mha_printed_shapes(d, H, dv)['BlockDiag'])"
    shp = [int(v) for v in at.mha_printed_shapes(d, H, dv)["BlockDiag"]]
    printed_ok = V.holds(shp[1] == d)
    ev.other_readings["printed_BlockDiag"] = Evidence(
        printed_ok, {"BlockDiag_shape": shp, "u_dim": d},
        counterexample=None if printed_ok == V.CONFIRMED else {"d": d, "H": H, "dv": dv, "BlockDiag_shape": shp},
        repro=None if printed_ok == V.CONFIRMED else Repro(expr, {"d": d, "H": H, "dv": dv}, shp, rtol=0,
                                                            tol_reason="integer shape"),
        scope=Scope("symbolic", "shapes: BlockDiag of H blocks d_v x d is (H d_v) x (H d) != (d x d) for H > 1"),
        reading=Reading("eq. 58 literally: W_O BlockDiag(alpha_1 W_V^1, ..., alpha_H W_V^H)",
                        "003 Thm D.1(b) eq. 58; Def 7 (W_V^h in R^{d_v x d})"),
        notes="the literal block diagonal does not act on u in R^d; the proof's eq. 74 uses the stacked form")
    rng = ctx.rng("D_w")
    Wq = [rng.normal(size=(2, 3)) for _ in range(2)]
    Wk = [rng.normal(size=(2, 3)) for _ in range(2)]
    Wv = [rng.normal(size=(2, 3)) for _ in range(2)]
    Wo = rng.normal(size=(3, 4))
    ev.other_readings["R2_strict_def1"] = r2_reading(
        ctx, F_EXPR, {"Wq": [w.tolist() for w in Wq], "Wk": [w.tolist() for w in Wk], "Wv": [w.tolist() for w in Wv],
                      "Wo": Wo.tolist()},
        lambda V_: at.mha_reference(V_, Wq, Wk, Wv, Wo),
        text="strict Def 1 (no normalisers Z_h(x) in the kernel)", passage="003 Def 1 / Def 8: kappa a function of "
                                                                          "(x, y, u(x), u(y)) only")
    return ev
