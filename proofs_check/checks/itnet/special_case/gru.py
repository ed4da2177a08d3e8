"""itnet.special_case.gru (003 Prop 8 (App E.8))."""
from __future__ import annotations

from proofs_check.registry import register
from proofs_check.support.itnet_exact_references import gated_rnn_evidence, gru_params


@register("itnet.special_case.gru",
          method="unrolling identity over >= 20 random grus; the printed kernel's output vs the reference gru "
                 "at input scales 1e-3..1")
def check_gru(ctx):
    return gated_rnn_evidence(ctx, "gru", gru_params, lambda o: (1 - o["z"], o["z"] * o["ht"], o["h"]))
