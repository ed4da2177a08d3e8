"""itnet.special_case.lstm (003 Thm 3(c), Prop 7 (App E.7, eq.148))."""
from __future__ import annotations

from proofs_check.registry import register
from proofs_check.support.itnet_exact_references import gated_rnn_evidence, lstm_params


@register("itnet.special_case.lstm",
          method="unrolling identity over >= 20 random lstms; the printed kernel's output vs the reference lstm "
                 "at input scales 1e-3..1")
def check_lstm(ctx):
    return gated_rnn_evidence(ctx, "lstm", lstm_params, lambda o: (o["f"], o["i"] * o["ct"], o["c"]))
