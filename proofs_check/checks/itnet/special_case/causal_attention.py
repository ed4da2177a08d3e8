"""itnet.special_case.causal_attention: 003 Prop 6 (App D.8, eq. 93: Z_causal(x)); §3.4; Def 8."""
from __future__ import annotations

import numpy as np

from proofs_check.registry import Evidence, Reading, register
from proofs_check.support.itnet_operators import (DEF8_TEXT, attn_setup, def8_layer_part, def8_passage,
                                                  exact_identity_evidence, rel, u_fixed_reading)
from proofs_check.support.records import decisive_repro
from yatmath.itnet.dense import apply_kernel_tensor
from yatmath.itnet.measures import causal_mask
from yatmath.itnet.special import attention as at

PASS_R1 = ('003 Prop 6, eq. 93: kappa = 1_{y<=x} exp(.)/Z_causal(x) W_V with Z_causal(x) = int_{y<=x} exp(.) dmu(y); '
           'the proof (as Thm D.1(a)) treats Z_causal(x) as part of the kernel; "in the discrete case this is the '
           'lower-triangular mask"')
F_EXPR = ("yatmath.itnet.special.attention.softmax_attention(V_, np.array(Wq), np.array(Wk), np.array(Wv), "
          "causal=True)")


@register("itnet.special_case.causal_attention",
          method="Def. 8 (operative, as itnet.special_case.attention): mixed difference D of causal attention over two "
                 "key slots before the query (multistart), zero for every Def.-8 layer; R1 (the proof's kernel with "
                 "Z_causal(x), reported): the indicator 1_{y<=x} (diagonal weight 1) vs masked softmax over >= 20 "
                 "random draws; diagonal weight 0.5 reported")
def check_causal_attention(ctx):
    def draw(rng):
        n = int(rng.choice([8, 64]))
        U, Wq, Wk, Wv = attn_setup(rng, n)
        om = np.full(n, 1.0 / n)
        K = at.attention_kernel(U, Wq, Wk, Wv, om, causal=True, diag_weight=1.0)
        return rel(apply_kernel_tensor(K, U, om, mask=causal_mask(n, n, 1.0)),
                   at.softmax_attention(U, Wq, Wk, Wv, causal=True)), {"n": n}

    r1_reading, r1_numbers, r1_notes = u_fixed_reading(
        "the kernel may divide by Z_causal(x), an integral over every earlier key; 1_{y<=x} includes the diagonal",
        PASS_R1)
    r1 = exact_identity_evidence(ctx, "c", draw, what="1_{y<=x} kernel (diagonal included) vs lower-triangular "
                                                      "masked softmax", reading=r1_reading, numbers=r1_numbers)
    r1.notes = r1.notes + ". " + r1_notes
    rng = ctx.rng("diag")
    U, Wq, Wk, Wv = attn_setup(rng, 8)
    om = np.full(8, 1 / 8)
    K = at.attention_kernel(U, Wq, Wk, Wv, om, causal=True, diag_weight=0.5)
    r1.numbers["diag_weight_0.5_rel_err"] = rel(apply_kernel_tensor(K, U, om, mask=causal_mask(8, 8, 0.5)),
                                                at.softmax_attention(U, Wq, Wk, Wv, causal=True))
    _, Wq, Wk, Wv = attn_setup(ctx.rng("D_w"), 4)
    d8 = def8_layer_part(ctx, F_EXPR, {"Wq": Wq.tolist(), "Wk": Wk.tolist(), "Wv": Wv.tolist()},
                         lambda V_: at.softmax_attention(V_, Wq, Wk, Wv, causal=True),
                         operator="causal attention", normaliser="Z_causal(x) (eq. 93)")
    parts = {"def8_layer_gives_causal_attention": d8}
    return Evidence.of_parts(
        parts, repro=decisive_repro(parts), reading=Reading(DEF8_TEXT, def8_passage()),
        other_readings={"R1_global_causal_normaliser": r1},
        numbers={"def8_|D|": d8.numbers["|D|"], "def8_sup_error_lower_bound": d8.numbers["sup_error_lower_bound"],
                 "R1_max_rel_err": r1.numbers["max_rel_err"],
                 "R1_diag_weight_0.5_rel_err": r1.numbers["diag_weight_0.5_rel_err"]},
        notes="Prop 6 shares the defect of Thm D.1(a) (itnet.special_case.attention): its kernel divides by "
              "Z_causal(x), a functional of u at every earlier key. Under Def. 8 causal attention has |D| > 0 over "
              "two keys before the query (row 3, keys 0 and 1) while every Def.-8 layer has D = 0: REFUTED with the "
              "four inputs as counterexample. Reported beside: the proof's kernel (R1, exact to rounding with the "
              "diagonal included; weight 0.5 on the diagonal is not masked softmax).")
