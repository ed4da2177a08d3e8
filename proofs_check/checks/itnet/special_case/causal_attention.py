"""itnet.special_case.causal_attention: 003 Prop 6 (App D.8); §3.4."""
from __future__ import annotations

import numpy as np

from proofs_check.registry import Reading, register
from proofs_check.support.itnetops_common import attn_setup, exact_identity_evidence, r2_reading, rel
from yatmath.itnet.dense import apply_kernel_tensor
from yatmath.itnet.measures import causal_mask
from yatmath.itnet.special import attention as at

PASS_R1 = ('003 Prop 6: kappa = 1_{y<=x} exp(.)/Z_causal(x) W_V with Z_causal(x) = int 1_{z<=x} exp(.) dmu(z); '
           'the proof (as Thm D.1(a)) treats Z_causal(x) as part of the kernel; "in the discrete case this is the '
           'lower-triangular mask"')
PASS_R2 = '003 Def 1: kappa a function of (x, y, u(x), u(y)) only'
F_EXPR = ("yatmath.itnet.special.attention.softmax_attention(V_, np.array(Wq), np.array(Wk), np.array(Wv), "
          "causal=True)")


@register("itnet.special_case.causal_attention",
          method="R1 (operative): causal attention_kernel with the indicator 1_{y<=x} (diagonal weight 1) vs masked "
                 "softmax over >= 20 random draws; diagonal weights 0.5 / 0 reported; R2 mixed difference")
def check_causal_attention(ctx):
    def draw(rng):
        n = int(rng.choice([8, 64]))
        U, Wq, Wk, Wv = attn_setup(rng, n)
        om = np.full(n, 1.0 / n)
        K = at.attention_kernel(U, Wq, Wk, Wv, om, causal=True, diag_weight=1.0)
        return rel(apply_kernel_tensor(K, U, om, mask=causal_mask(n, n, 1.0)),
                   at.softmax_attention(U, Wq, Wk, Wv, causal=True)), {"n": n}

    ev = exact_identity_evidence(ctx, "c", draw, what="1_{y<=x} kernel (diagonal included) vs lower-triangular "
                                                      "masked softmax")
    rng = ctx.rng("diag")
    U, Wq, Wk, Wv = attn_setup(rng, 8)
    om = np.full(8, 1 / 8)
    K = at.attention_kernel(U, Wq, Wk, Wv, om, causal=True, diag_weight=0.5)
    ev.numbers["diag_weight_0.5_rel_err"] = rel(apply_kernel_tensor(K, U, om, mask=causal_mask(8, 8, 0.5)),
                                                at.softmax_attention(U, Wq, Wk, Wv, causal=True))
    _, Wq, Wk, Wv = attn_setup(ctx.rng("D_w"), 4)
    r2 = r2_reading(ctx, F_EXPR, {"Wq": Wq.tolist(), "Wk": Wk.tolist(), "Wv": Wv.tolist()},
                    lambda V_: at.softmax_attention(V_, Wq, Wk, Wv, causal=True),
                    text="strict Def 1 (no global causal normaliser in the kernel)", passage=PASS_R2)
    ev.reading = Reading("R1: the kernel may use Z_causal(x); 1_{y<=x} includes the diagonal", PASS_R1)
    ev.other_readings["R2_strict_def1"] = r2
    return ev
